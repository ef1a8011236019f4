//! The refresh from start to end, one pipeline for the reader and for `tidings refresh` alike: the feeds, then
//! the new entries of full-text feeds fetched in full, then what retention no longer keeps purged, then new
//! entries indexed for search. Each store step is a writer job of its own, one bounded transaction at a time, so
//! a mark-read or a star the user asks for meanwhile waits for one slice at most.

use super::full_text::FullText;
use super::{RefreshEvent, Refresher, Summary, Which};
use crate::model::EntryId;
use crate::panics::join_message;
use crate::store::purge::{self, Policy};
use crate::store::{DbThread, StoreError};
use std::sync::Arc;

/// Who hears how a pipeline goes (the reader's inbox; the command line's progress and report).
pub trait Observer: Send + Sync + 'static {
    /// One step of one feed's refresh.
    fn feed(&self, event: RefreshEvent);
    /// The feeds are done: each had its final event, but for those a refresh that stopped (its task died) did
    /// not report on; `reason` says why, for them.
    fn feeds_done(&self, _reason: &str) {}
    /// A page fetched in full was stored (its article), or why it gave none.
    fn full_text(&self, _entry_id: EntryId, _result: &Result<String, String>) {}
}

/// Whether the pipeline's last step indexes the new entries for search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upkeep {
    /// Purge and index (the reader: a search should find what just arrived).
    PurgeAndIndex,
    /// Purge only: `tidings search` indexes before it looks, so a first refresh of thousands of feeds does not
    /// wait on indexing hundreds of thousands of entries.
    PurgeOnly,
}

/// How a pipeline went.
#[derive(Debug)]
pub struct Outcome {
    /// The feeds' refresh, or why it could not run (the feeds could not be listed, or its task died).
    pub refreshed: Result<Summary, String>,
    /// How many pages of full-text feeds were tried, or why none could be.
    pub full_texts: Result<usize, StoreError>,
    /// Entries purged, or why the purge stopped.
    pub purged: Result<usize, StoreError>,
    /// Entries indexed (none with [`Upkeep::PurgeOnly`]), or why indexing stopped.
    pub indexed: Result<usize, StoreError>,
    /// Entries told of by `notify_command` and desktop notifications, or why telling failed.
    pub notified: Result<usize, String>,
    /// New entries whose enclosures are to be downloaded as they come (`auto_download`): the front end that
    /// refreshed queues them (see [`crate::downloads::Downloads::new_episodes`]).
    pub episodes: Vec<EntryId>,
}

/// The refresh pipeline. Cheap to clone.
#[derive(Clone)]
pub struct Pipeline {
    refresher: Refresher,
    full_text: FullText,
    writer: DbThread,
    /// Shared by every clone, so that a setting changed in the reader holds for the next purge.
    retention: Arc<std::sync::RwLock<Arc<Policy>>>,
    upkeep: Upkeep,
    /// The kill rules, applied to what is stored after each refresh.
    rules: Arc<Vec<crate::query::Query>>,
    /// Who tells of new entries of feeds that notify.
    notifier: Option<Arc<super::notify::Notifier>>,
}

impl Pipeline {
    pub fn new(
        refresher: Refresher,
        full_text: FullText,
        writer: DbThread,
        retention: Arc<Policy>,
        upkeep: Upkeep,
    ) -> Pipeline {
        let retention = Arc::new(std::sync::RwLock::new(retention));
        Pipeline { refresher, full_text, writer, retention, upkeep, rules: Arc::default(), notifier: None }
    }

    /// Retention from now on (a feed's `keep_days` or `max_entries` changed in the reader): the next purge, and
    /// every clone's, keeps what it says.
    pub fn set_retention(&self, policy: Policy) {
        *self.retention.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(policy);
    }

    /// Tells of the new entries of feeds that notify, after each refresh (and sync: [`Pipeline::notify_since`]).
    pub fn with_notifier(mut self, notifier: Option<super::notify::Notifier>) -> Pipeline {
        self.notifier = notifier.map(Arc::new);
        self
    }

    /// The newest entry now: what a refresh or sync stores after it is what [`Pipeline::notify_since`] tells.
    pub async fn newest_entry(&self) -> i64 {
        self.writer.call(|c| super::notify::newest_entry(c)).await.unwrap_or(i64::MAX)
    }

    /// Tells of the unread entries of notifying feeds stored after entry `after`; how many, or what went wrong
    /// telling them (in words a person can act on).
    pub async fn notify_since(&self, after: i64) -> Result<usize, String> {
        self.notify_between(after, i64::MAX).await
    }

    /// Tells of the unread entries of notifying feeds stored after entry `after` and up to entry `upto`.
    pub async fn notify_between(&self, after: i64, upto: i64) -> Result<usize, String> {
        let Some(notifier) = &self.notifier else { return Ok(0) };
        notifier.tell_between(&self.writer, after, upto).await.map_err(|e| {
            tracing::warn!("cannot tell of new entries: {e}");
            format!("cannot tell of new entries: {e}")
        })
    }

    /// Kill rules: new entries they match are stored ignored, and what is stored is judged again after each
    /// refresh (a rule that changed, an entry that aged into `age > 30d`).
    pub fn with_rules(mut self, rules: Vec<crate::query::Query>) -> Pipeline {
        self.refresher = self.refresher.with_rules(rules.clone());
        self.rules = Arc::new(rules);
        self
    }

    /// Judges every stored entry by the kill rules again; how many were hidden and shown again.
    pub async fn apply_rules(&self) -> Result<(usize, usize), StoreError> {
        let rules = self.rules.clone();
        self.writer.call(move |c| crate::store::query::apply_rules(c, &rules, chrono::Utc::now().timestamp())).await
    }

    /// The full-text fetcher (for `t` on one entry).
    pub fn full_text(&self) -> &FullText {
        &self.full_text
    }

    /// Refreshes the feeds `which` names (`force`: also those gone or asked to wait), then the rest of the
    /// pipeline, telling `observer` as it goes.
    pub async fn run(&self, which: Which, force: bool, observer: Arc<dyn Observer>) -> Outcome {
        let started = if self.notifier.is_some() { self.newest_entry().await } else { i64::MAX };
        let refresher = self.refresher.clone();
        let feeds = observer.clone();
        // Its own task: a refresh that panics is a failed step, not a dead pipeline.
        let task = tokio::spawn(async move { refresher.run(which, force, move |ev| feeds.feed(ev)).await });
        let refreshed = match task.await {
            Ok(Ok(summary)) => Ok(summary),
            Ok(Err(e)) => Err(format!("the refresh stopped: {e}")),
            Err(e) => Err(format!("the refresh failed ({}); please report this", join_message(e))),
        };
        observer.feeds_done(match &refreshed {
            Ok(_) => "the refresh ended without a result for it",
            Err(why) => why,
        });
        let now = chrono::Utc::now().timestamp();
        let report = observer.clone();
        let full_texts = self.full_text.fetch_pending(now, &move |id, result| report.full_text(id, result)).await;
        let (purged, indexed) = self.upkeep().await;
        let notified = self.notify_since(started).await;
        // The log is checkpointed beside the writer in large steps (see `store::DbThread::spawn_writer`): what the
        // refresh wrote since the last goes into the database file now, synced.
        if let Err(e) = self.writer.call(|c| crate::store::checkpoint_after_any_running(c)).await {
            tracing::debug!("the refresh's log is left for the next checkpoint: {e}");
        }
        Outcome { refreshed, full_texts, purged, indexed, notified, episodes: Vec::new() }
    }

    /// Purges what retention no longer keeps, then (unless [`Upkeep::PurgeOnly`]) indexes what is new; returns
    /// how many entries went and how many were indexed.
    pub async fn upkeep(&self) -> (Result<usize, StoreError>, Result<usize, StoreError>) {
        let index = self.upkeep == Upkeep::PurgeAndIndex;
        let policy = self.retention.read().unwrap_or_else(|e| e.into_inner()).clone();
        let job = purge::Upkeep::new(policy, chrono::Utc::now().timestamp(), index);
        match in_slices(&self.writer, job).await {
            Ok(done) => {
                if let Err(e) = self.apply_rules().await {
                    tracing::warn!("cannot apply the kill rules to what is stored: {e}");
                }
                (Ok(done.purged), Ok(done.indexed))
            }
            Err(e) => {
                let said = e.to_string();
                (Err(e), Err(StoreError::Conflict(said)))
            }
        }
    }

    /// Indexes what is not indexed yet (before a search looks, and after full articles arrive).
    pub async fn index(&self) -> Result<usize, StoreError> {
        index(&self.writer).await
    }
}

/// Indexes what is not indexed yet, each slice a writer job of its own.
pub(super) async fn index(writer: &DbThread) -> Result<usize, StoreError> {
    in_slices(writer, purge::Upkeep::index_only()).await.map(|done| done.indexed)
}

/// Runs `job` to the end, each step a job of its own on the writer.
async fn in_slices(writer: &DbThread, mut job: purge::Upkeep) -> Result<purge::Upkeep, StoreError> {
    loop {
        let (done, more) = writer
            .call(move |c| {
                let more = job.step(c)?;
                Ok((job, more))
            })
            .await?;
        job = done;
        if !more {
            return Ok(job);
        }
    }
}
