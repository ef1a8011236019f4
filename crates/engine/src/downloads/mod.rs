//! The download queue: entries' enclosures kept as files. The queue lives in the database
//! ([`crate::store::downloads`]), so it survives quit, crash and kill -9; a run takes every queued download,
//! at most `max_at_once` at a time and each host's limit of the shared [`Courtesy`], under an optional rate limit
//! shared by all. A file is written beside its place as `NAME.part` and renamed only when whole ([`transfer`]):
//! a resume asks for the rest with `Range` and `If-Range`, so it appends only to the same version of the file; a
//! feed with a `download_command` hands its enclosures to that program instead ([`command`]). Front ends hear of
//! progress through a [`DownloadObserver`], and never wait on the disk or the network.

mod command;
mod queue;
mod rate;
mod transfer;

use crate::fetch::{Courtesy, Fetcher};
use crate::filename;
use crate::store::downloads::{self as rows, Download, State};
use crate::store::{DbThread, StoreError};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use queue::MAX_AUTO_ENTRIES;
pub use rate::Rate;
pub use transfer::bytes;

/// Where files go and how they are fetched, from the config.
#[derive(Clone, Debug)]
pub struct DownloadSettings {
    /// The folder files go into (`download_dir`).
    pub dir: PathBuf,
    /// The file-name template (`download_name`): see [`crate::filename`].
    pub template: String,
    /// Downloads at once (`max_downloads`).
    pub max_at_once: usize,
    /// Bytes per second for all downloads together (`download_rate_limit`); `None`: no limit.
    pub rate_limit: Option<u64>,
    /// Feeds with settings of their own, by feed URL.
    pub feeds: HashMap<String, FeedDownloads>,
    /// How long a `download_command` may take.
    pub command_deadline: std::time::Duration,
    /// New entries' enclosures are downloaded as a refresh brings them (`auto_download`), unless their feed
    /// says otherwise.
    pub auto: bool,
}

impl DownloadSettings {
    /// Whether the new entries of the feed at `url` are downloaded as they come.
    pub fn auto_for(&self, url: &str) -> bool {
        self.feeds.get(url).and_then(|f| f.auto).unwrap_or(self.auto)
    }

    /// Whether any feed's new entries are downloaded as they come.
    pub fn auto_anywhere(&self) -> bool {
        self.auto || self.feeds.values().any(|f| f.auto == Some(true))
    }
}

impl Default for DownloadSettings {
    fn default() -> Self {
        DownloadSettings {
            dir: PathBuf::from("downloads"),
            template: filename::DEFAULT_TEMPLATE.into(),
            max_at_once: 2,
            rate_limit: None,
            feeds: HashMap::new(),
            command_deadline: std::time::Duration::from_secs(6 * 3600),
            auto: false,
        }
    }
}

/// `[feeds."URL"]`'s download settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedDownloads {
    pub dir: Option<PathBuf>,
    pub template: Option<String>,
    /// The program and its arguments; `{url}` and `{path}` stand for whole arguments.
    pub command: Option<crate::command::CommandLine>,
    /// Whether its new entries' enclosures are downloaded as a refresh brings them (none: as
    /// [`DownloadSettings::auto`] says).
    pub auto: Option<bool>,
}

/// What a download run tells as it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadEvent {
    Started {
        id: i64,
    },
    Progress {
        id: i64,
        done: u64,
        total: Option<u64>,
    },
    /// It ended (done, failed or paused), and why.
    Ended {
        id: i64,
        state: State,
        reason: Option<String>,
    },
}

/// Who hears how downloads go (the reader's view, the command's progress line).
pub trait DownloadObserver: Send + Sync {
    fn event(&self, event: DownloadEvent);
}

/// Nobody listening.
pub struct Quiet;

impl DownloadObserver for Quiet {
    fn event(&self, _event: DownloadEvent) {}
}

/// What queuing did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Queued {
    /// The ids of the new rows.
    pub added: Vec<i64>,
    /// Enclosures queued before (in any state): left as they are.
    pub already: usize,
    /// Enclosures refused, with why (a scheme other than http and https).
    pub refused: Vec<(String, String)>,
}

/// The queue and its runs. Cheap to clone.
#[derive(Clone)]
pub struct Downloads(Arc<Inner>);

struct Inner {
    writer: DbThread,
    fetcher: Fetcher,
    courtesy: Courtesy,
    settings: DownloadSettings,
    slots: tokio::sync::Semaphore,
    rate: Option<Rate>,
    /// Downloads running in this process, so a run never starts one twice.
    running: std::sync::Mutex<HashSet<i64>>,
    /// Told when this process queues a download (or puts one back), so a run under way takes it at once rather
    /// than when one of its downloads ends.
    queued: tokio::sync::Notify,
}

impl Downloads {
    pub fn new(writer: DbThread, fetcher: Fetcher, courtesy: Courtesy, settings: DownloadSettings) -> Downloads {
        Downloads(Arc::new(Inner {
            writer,
            fetcher,
            courtesy,
            slots: tokio::sync::Semaphore::new(settings.max_at_once.max(1)),
            rate: settings.rate_limit.filter(|r| *r > 0).map(Rate::new),
            settings,
            running: std::sync::Mutex::default(),
            queued: tokio::sync::Notify::new(),
        }))
    }

    pub fn settings(&self) -> &DownloadSettings {
        &self.0.settings
    }

    /// Every download, oldest first.
    pub async fn list(&self) -> Result<Vec<Download>, StoreError> {
        self.0.writer.call(|c| rows::all(c)).await
    }

    /// Runs the queue until nothing is queued: what was left `downloading` by a process that ended without
    /// saying goes back to the queue first (its `.part` file is resumed), and what is queued meanwhile is taken
    /// too. Returns the rows of the downloads this run took, as they ended.
    pub async fn run(&self, observer: Arc<dyn DownloadObserver>) -> Result<Vec<Download>, StoreError> {
        self.0.writer.call(|c| rows::requeue_interrupted(c)).await?;
        let mut tasks: tokio::task::JoinSet<Option<Download>> = tokio::task::JoinSet::new();
        // The downloads this run has a task for: one paused, then resumed after its task ended, is taken again.
        let mut taken = HashMap::new();
        let mut ended: Vec<Download> = Vec::new();
        loop {
            let queued = self.0.writer.call(|c| rows::queued(c)).await?;
            let fresh: Vec<i64> = queued.into_iter().filter(|id| !taken.values().any(|t| t == id)).collect();
            if fresh.is_empty() {
                if tasks.is_empty() {
                    break;
                }
                let joined = tokio::select! {
                    joined = tasks.join_next_with_id() => joined,
                    // Queued meanwhile: taken now, beside those running.
                    () = self.0.queued.notified() => continue,
                };
                match joined {
                    Some(Ok((task, row))) => {
                        taken.remove(&task);
                        if let Some(row) = row {
                            ended.retain(|d| d.id != row.id);
                            ended.push(row);
                        }
                    }
                    Some(Err(e)) => {
                        taken.remove(&e.id());
                        tracing::error!("a download stopped: {}", crate::panics::join_message(e));
                    }
                    None => break,
                }
                continue;
            }
            for id in fresh {
                let (this, observer) = (self.clone(), observer.clone());
                let task = tasks.spawn(async move { this.one(id, observer).await });
                taken.insert(task.id(), id);
            }
        }
        Ok(ended)
    }

    /// Runs the download `id` when a slot is free: its final row, or `None` when it was not queued any more
    /// (paused or deleted meanwhile, or run by another task).
    async fn one(&self, id: i64, observer: Arc<dyn DownloadObserver>) -> Option<Download> {
        let _slot = self.0.slots.acquire().await.ok()?;
        if !self.0.running.lock().unwrap_or_else(|e| e.into_inner()).insert(id) {
            return None;
        }
        let outcome = self.download(id, &observer).await;
        self.0.running.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        match outcome {
            Ok(row) => row,
            Err(e) => {
                tracing::error!("download {id}: {e}");
                None
            }
        }
    }

    async fn download(&self, id: i64, observer: &Arc<dyn DownloadObserver>) -> Result<Option<Download>, StoreError> {
        let now = chrono::Utc::now().timestamp();
        let started = self
            .0
            .writer
            .call(move |c| {
                let row = rows::get(c, id)?;
                match row {
                    Some(row) if row.state == State::Queued => {
                        rows::set_state(c, id, State::Downloading, None, now)?;
                        Ok(Some(row))
                    }
                    _ => Ok(None),
                }
            })
            .await?;
        let Some(row) = started else { return Ok(None) };
        observer.event(DownloadEvent::Started { id });
        let own = row.feed_url.as_ref().and_then(|u| self.0.settings.feeds.get(u));
        let (state, reason) = match own.and_then(|o| o.command.clone()) {
            Some(line) => command::run(&line, &row, self.0.settings.command_deadline).await,
            None => {
                let host = self.0.courtesy.turn(&row.url).await;
                let ended = transfer::Transfer::new(self, &row, observer.as_ref()).run().await;
                drop(host);
                ended
            }
        };
        let reason = reason.map(|r| crate::sanitize::one_line(&r, 500));
        if state == State::Downloading {
            // Another process has it (see `transfer::ELSEWHERE`): its row is that process's to end.
            observer.event(DownloadEvent::Ended { id, state, reason });
            return Ok(None);
        }
        let said = reason.clone();
        let now = chrono::Utc::now().timestamp();
        let row = self
            .0
            .writer
            .call(move |c| {
                rows::set_state(c, id, state, said.as_deref(), now)?;
                rows::get(c, id)
            })
            .await?;
        observer.event(DownloadEvent::Ended { id, state, reason });
        Ok(row)
    }

    /// Pauses a queued download (one running stops at its next piece); its `.part` file stays for a resume.
    pub async fn pause(&self, id: i64) -> Result<(), StoreError> {
        self.set_if(id, &[State::Queued, State::Downloading], State::Paused, Some("paused by you")).await
    }

    /// Puts a paused or failed download back in the queue (a `.part` file is resumed).
    pub async fn resume(&self, id: i64) -> Result<(), StoreError> {
        self.set_if(id, &[State::Paused, State::Failed], State::Queued, None).await?;
        self.0.queued.notify_one();
        Ok(())
    }

    async fn set_if(&self, id: i64, from: &[State], to: State, reason: Option<&str>) -> Result<(), StoreError> {
        let (from, reason) = (from.to_vec(), reason.map(str::to_string));
        let now = chrono::Utc::now().timestamp();
        self.0
            .writer
            .call(move |c| {
                if rows::get(c, id)?.is_some_and(|r| from.contains(&r.state)) {
                    rows::set_state(c, id, to, reason.as_deref(), now)?;
                }
                Ok(())
            })
            .await
    }

    /// Forgets a download and deletes its file (whole or `.part`).
    pub async fn delete(&self, id: i64) -> Result<(), StoreError> {
        let row = self.0.writer.call(move |c| rows::get(c, id)).await?;
        self.0.writer.call(move |c| rows::delete(c, id)).await?;
        if let Some(row) = row {
            for path in [PathBuf::from(&row.path), part_of(Path::new(&row.path))] {
                if let Err(e) = std::fs::remove_file(&path)
                    && e.kind() != std::io::ErrorKind::NotFound
                {
                    tracing::warn!("cannot delete {}: {e}", path.display());
                }
            }
        }
        Ok(())
    }

    /// The row's state as the store has it now (a pause from elsewhere stops a transfer).
    async fn state_of(&self, id: i64) -> Option<State> {
        self.0.writer.call(move |c| rows::get(c, id)).await.ok().flatten().map(|r| r.state)
    }
}

/// The file a download is written to until it is whole.
pub fn part_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".part");
    PathBuf::from(name)
}
