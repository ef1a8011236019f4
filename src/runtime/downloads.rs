//! The reader's downloads, through the session's queue: enclosures queued, the queue run in the background (one
//! run at a time, which takes what is queued meanwhile), its progress and ends sent to the inbox as events, and
//! the view's pauses, resumptions and deletions. At start, what a previous reader or command left queued or
//! half-downloaded (its `.part` file) is taken up again.

use crate::app::Event;
use crate::app::downloads::DownloadOp;
use crate::downloads::{DownloadEvent, DownloadObserver};
use crate::model::EntryId;
use crate::session::Session;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tokio::sync::mpsc;

/// The downloads job. Cheap to clone.
#[derive(Clone)]
pub(super) struct Downloads {
    session: Session,
    inbox: mpsc::UnboundedSender<Event>,
    /// Whether a run of the queue is going on.
    running: Arc<AtomicBool>,
    started: Instant,
}

/// Tells the inbox how downloads go.
struct Told {
    inbox: mpsc::UnboundedSender<Event>,
    started: Instant,
}

impl DownloadObserver for Told {
    fn event(&self, event: DownloadEvent) {
        let _ = self.inbox.send(match event {
            DownloadEvent::Started { .. } => return,
            DownloadEvent::Progress { id, done, total } => {
                let at_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
                Event::DownloadProgress { id, done, total, at_ms }
            }
            DownloadEvent::Ended { id, state, reason } => Event::DownloadEnded { id, state, reason },
        });
    }
}

impl Downloads {
    pub(super) fn new(session: Session, inbox: mpsc::UnboundedSender<Event>) -> Downloads {
        Downloads { session, inbox, running: Arc::default(), started: Instant::now() }
    }

    /// Queues every enclosure of `ids`, says what it did, and runs the queue.
    pub(super) fn queue(&self, ids: Vec<EntryId>) {
        let this = self.clone();
        tokio::spawn(async move {
            match this.session.downloads().queue(ids).await {
                Ok(queued) => {
                    let refused = queued.refused.into_iter().map(|(url, why)| format!("{url}: {why}")).collect();
                    let added = queued.added.len();
                    let _ = this.inbox.send(Event::DownloadsQueued { added, already: queued.already, refused });
                    this.run();
                }
                Err(e) => {
                    let _ = this.inbox.send(Event::Error(format!("cannot queue the downloads: {e}")));
                    // Some may be queued before the failure: they run.
                    this.run();
                }
            }
        });
    }

    /// Runs the queue in the background, unless a run is going on (it takes what is queued meanwhile).
    pub(super) fn run(&self) {
        if self.running.swap(true, Ordering::SeqCst) {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let told: Arc<dyn DownloadObserver> = Arc::new(Told { inbox: this.inbox.clone(), started: this.started });
            if let Err(e) = this.session.download(told).await {
                let _ = this.inbox.send(Event::Error(format!("the downloads stopped: {e}")));
            }
            this.running.store(false, Ordering::SeqCst);
            // Something queued just as the run ended: taken now.
            let queued = this.session.downloads().list().await.unwrap_or_default();
            if queued.iter().any(|d| d.state == crate::model::DownloadState::Queued) {
                this.run();
            }
        });
    }

    /// Reads the queue for the view (and the entry list's marks).
    pub(super) fn load(&self) {
        let this = self.clone();
        tokio::spawn(async move {
            let _ = this.inbox.send(match this.session.downloads().list().await {
                Ok(rows) => Event::DownloadsLoaded(rows),
                Err(e) => Event::Error(format!("cannot read the downloads: {e}")),
            });
        });
    }

    /// Pauses, resumes or deletes the download `id`; a resumed one is run.
    pub(super) fn control(&self, id: i64, op: DownloadOp) {
        let this = self.clone();
        tokio::spawn(async move {
            let downloads = this.session.downloads();
            let done = match op {
                DownloadOp::Pause => downloads.pause(id).await,
                DownloadOp::Resume => downloads.resume(id).await,
                DownloadOp::Delete => downloads.delete(id).await,
            };
            match done {
                Ok(()) if op == DownloadOp::Resume => this.run(),
                Ok(()) => {}
                Err(e) => {
                    let _ = this.inbox.send(Event::Error(format!("download {id}: {e}")));
                }
            }
            this.load();
        });
    }
}
