//! The reader's work on the network, all of it through the session: refreshes (each feed's events, then what
//! follows, as the session runs it), syncs (each account's outcome, once what it brought is judged and told),
//! a page fetched in full, discovery for the add dialog, and the start-up upkeep.

use crate::app::Event;
use crate::model::{Discovery, EntryId, FeedId, RefreshEvent};
use crate::panics::join_message;
use crate::refresh::{Observer, Which};
use crate::session::{Session, SyncObserver};
use crate::store::StoreError;
use crate::sync::{AccountConfig, Report, SyncError};
use std::sync::Arc;
use tokio::sync::mpsc;

/// The reader's work on the network. Cheap to clone.
#[derive(Clone)]
pub(super) struct Work {
    session: Session,
    inbox: mpsc::UnboundedSender<Event>,
    /// A daemon keeps the database fresh: refreshes are asked of it.
    beside_daemon: bool,
}

impl Work {
    pub(super) fn new(session: Session, inbox: mpsc::UnboundedSender<Event>, beside_daemon: bool) -> Work {
        Work::say_hook_trouble(&session, inbox.clone());
        Work { session, inbox, beside_daemon }
    }

    /// What goes wrong with the hooks (a delivery given up on) is said among the reader's messages.
    fn say_hook_trouble(session: &Session, inbox: mpsc::UnboundedSender<Event>) {
        if session.hooks().is_empty() {
            return;
        }
        let mut trouble = session.hooks().trouble();
        tokio::spawn(async move {
            loop {
                match trouble.recv().await {
                    Ok(message) => {
                        if inbox.send(Event::Error(format!("hooks: {message}"))).is_err() {
                            return;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }

    /// Refreshes `ids` as batch `batch` (`force`: also those gone or asked to wait), with what follows.
    pub(super) fn refresh(&self, batch: u64, ids: Vec<FeedId>, force: bool) {
        #[cfg(unix)]
        if self.beside_daemon {
            return self.ask_daemon(batch, ids, force);
        }
        self.refresh_here(batch, ids, force);
    }

    /// Asks the daemon to refresh `ids` now; one that no longer answers leaves the refresh to the reader.
    #[cfg(unix)]
    fn ask_daemon(&self, batch: u64, ids: Vec<FeedId>, force: bool) {
        use crate::daemon_socket::{Refresh, ask_refresh};
        let this = self.clone();
        tokio::spawn(async move {
            let request = Refresh { force, feeds: ids.iter().map(|id| id.0).collect() };
            match ask_refresh(this.session.db(), &request).await {
                Ok(r) => {
                    let (new, feeds_with_new, failed) = (r.new, r.feeds_with_new, r.failed);
                    let _ = this.inbox.send(Event::RefreshedByDaemon { batch, ids, new, feeds_with_new, failed });
                }
                Err(e) => {
                    tracing::warn!("the daemon did not refresh ({e}); the reader does");
                    this.refresh_here(batch, ids, force);
                }
            }
        });
    }

    fn refresh_here(&self, batch: u64, ids: Vec<FeedId>, force: bool) {
        let (session, inbox) = (self.session.clone(), self.inbox.clone());
        let observer = Arc::new(ToInbox { inbox: inbox.clone(), batch, asked: ids.clone() });
        tokio::spawn(async move {
            let outcome = session.refresh(Which::Feeds(ids), force, observer).await;
            if outcome.refreshed.as_ref().is_ok_and(|summary| summary.outage) {
                let _ = inbox.send(Event::NetworkDown);
            }
            report_upkeep(&inbox, outcome.full_texts, outcome.purged, outcome.indexed);
            if let Err(e) = outcome.notified {
                let _ = inbox.send(Event::Error(e));
            }
            if !outcome.episodes.is_empty() {
                let _ = inbox.send(Event::NewEpisodes(outcome.episodes));
            }
        });
    }

    /// Syncs the accounts named, side by side; each says [`Event::Synced`] once what it brought is indexed,
    /// judged by the kill rules and told of. Beside a daemon, the daemon syncs them.
    pub(super) fn sync(&self, names: Vec<String>) {
        #[cfg(unix)]
        if self.beside_daemon {
            return self.ask_daemon_to_sync(names);
        }
        self.sync_here(names);
    }

    /// Asks the daemon to sync `names` now, saying each account's outcome as it comes; those it does not answer
    /// for (it does not have them, or it no longer answers) the reader syncs itself.
    #[cfg(unix)]
    fn ask_daemon_to_sync(&self, names: Vec<String>) {
        use crate::daemon_socket::{SyncRequest, ask_sync};
        let this = self.clone();
        tokio::spawn(async move {
            let mut left: std::collections::BTreeSet<String> = names.iter().cloned().collect();
            let request = SyncRequest { accounts: names };
            let asked = ask_sync(this.session.db(), &request, |synced| {
                left.remove(&synced.account);
                let (account, said, changed) = (synced.account, synced.said, synced.changed);
                let _ = this.inbox.send(Event::Synced { account, said, changed });
            })
            .await;
            if let Err(e) = asked {
                tracing::warn!("the daemon did not sync ({e}); the reader does");
            }
            if !left.is_empty() {
                this.sync_here(left.into_iter().collect());
            }
        });
    }

    fn sync_here(&self, names: Vec<String>) {
        let (session, inbox) = (self.session.clone(), self.inbox.clone());
        tokio::spawn(async move {
            session.sync(Some(&names), &SyncToInbox(inbox)).await;
        });
    }

    /// Fetches an entry's page, extracts its article and stores it with the entry.
    pub(super) fn full_text(&self, entry_id: EntryId, url: String) {
        let (session, inbox) = (self.session.clone(), self.inbox.clone());
        tokio::spawn(async move {
            let result = session.full_text().fetch(entry_id, &url).await;
            let _ = inbox.send(Event::FullTextFetched { entry_id, result });
        });
    }

    /// Finds the feeds an address offers (the add dialog's request `request`).
    pub(super) fn discover(&self, request: crate::app::RequestId, url: String) {
        let (fetcher, inbox) = (self.session.fetcher().clone(), self.inbox.clone());
        let task = tokio::spawn(async move { crate::fetch::discovery::discover(&fetcher, &url).await });
        tokio::spawn(async move {
            let discovery = match task.await {
                Ok(found) => found,
                Err(e) => Discovery {
                    error: Some(format!("discovery failed ({}); please report this address", join_message(e))),
                    ..Default::default()
                },
            };
            let _ = inbox.send(Event::Discovered { request, discovery: Box::new(discovery) });
        });
    }

    /// In the background: purges what retention lets go (a [`Event::Purged`] when it did) and brings the search
    /// index up to date (a headless refresh leaves its entries to index).
    pub(super) fn upkeep(&self) {
        let (session, inbox) = (self.session.clone(), self.inbox.clone());
        tokio::spawn(async move {
            let (purged, indexed) = session.pipeline().upkeep().await;
            report_upkeep(&inbox, Ok(0), purged, indexed);
        });
    }
}

/// Tells the reader how each account's sync went.
struct SyncToInbox(mpsc::UnboundedSender<Event>);

impl SyncObserver for SyncToInbox {
    fn account(&self, account: &AccountConfig, outcome: &Result<Report, SyncError>) {
        let (said, changed) = match outcome {
            Ok(report) => (Ok(report.line()), report.changed_anything()),
            Err(e) => (Err(e.to_string()), false),
        };
        let _ = self.0.send(Event::Synced { account: account.name.clone(), said, changed });
    }

    fn trouble(&self, message: &str) {
        let _ = self.0.send(Event::Error(message.to_string()));
    }
}

/// Tells the reader how a refresh goes: each feed's events, then the feeds it did not report on (when its task
/// died), then each page fetched in full.
struct ToInbox {
    inbox: mpsc::UnboundedSender<Event>,
    batch: u64,
    asked: Vec<FeedId>,
}

impl Observer for ToInbox {
    fn feed(&self, event: RefreshEvent) {
        let _ = self.inbox.send(Event::Refresh(event));
    }

    fn feeds_done(&self, reason: &str) {
        // Whatever happened to the refresh, the feeds it did not report on are released: the state machine
        // counts those still waiting as failed, so "Refreshing n/m" always ends.
        let (batch, ids, reason) = (self.batch, self.asked.clone(), reason.to_string());
        let _ = self.inbox.send(Event::RefreshStopped { batch, ids, reason });
    }

    fn full_text(&self, entry_id: EntryId, result: &Result<String, String>) {
        let _ = self.inbox.send(Event::FullTextFetched { entry_id, result: result.clone() });
    }
}

/// Says what the refresh's last steps did: entries purged (the lists are read again), or why a step stopped.
pub(super) fn report_upkeep(
    inbox: &mpsc::UnboundedSender<Event>,
    full_texts: Result<usize, StoreError>,
    purged: Result<usize, StoreError>,
    indexed: Result<usize, StoreError>,
) {
    if let Err(e) = full_texts {
        let _ = inbox.send(Event::Error(format!("cannot fetch full articles: {e}")));
    }
    match (purged, indexed) {
        (Ok(0), Ok(_)) => {}
        (Ok(entries), Ok(_)) => {
            let _ = inbox.send(Event::Purged { entries });
        }
        (Err(e), _) | (_, Err(e)) => {
            let _ = inbox.send(Event::Error(format!(
                "cannot purge old entries or index new ones for search: {e}; the next refresh tries again"
            )));
        }
    }
}
