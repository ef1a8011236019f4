//! Refreshing feeds. [`Pipeline`] is the whole of it, for the reader and for `tidings refresh` alike: the feeds
//! (this module's [`Refresher`]), then the new entries of full-text feeds fetched in full ([`full_text`]), then
//! retention's purge and the search index. The [`Refresher`] is the work queue that fetches, reads and stores
//! each feed, and reports every step as a [`RefreshEvent`] to whoever asked.
//!
//! - Concurrency follows the hosts: hundreds of feeds in flight at once (up to four times as many revalidations),
//!   never more than `per_host_concurrency` requests to one host, a host's queue draining on the connections it
//!   has open, and the hosts taking free places in turn, so one big host's queue waits on its own limit without
//!   holding everyone else back (the shared [`Courtesy`]).
//! - CPU work stays off the network: decoding and parsing run on the blocking pool, at most one per core (a
//!   refresh no terminal waits on reads small documents in place: `reading`), and the store's one writer saves
//!   the results (several feeds per transaction: [`Batcher`]).
//! - Politeness: a feed that failed waits out its backoff, a server's `Retry-After` is honoured, a feed that is
//!   gone (410) is left alone — unless the refresh is forced (the user asked for that very feed). How often a feed
//!   asks to be fetched (`<ttl>`, `sy:updatePeriod`, `Cache-Control: max-age`) is capped at
//!   [`MAX_REFRESH_EVERY_SECS`], so no server can switch a feed off.
//! - Worker failures are events: a feed whose task panics or is cancelled still gets its one final event.

mod budget;
mod digest;
pub mod full_text;
pub mod notify;
mod order;
mod outage;
mod pipeline;
mod reading;
mod report;

pub use pipeline::{Observer, Outcome, Pipeline, Upkeep};
pub use reading::{READ_IN_PLACE_BYTES, ignored_entries};
pub use report::Summary;
use report::{FeedName, Reporter, STOPPED, Unfinished};

use crate::fetch::{Courtesy, FetchOutcome, Fetcher, Turn, Validators, Weight};
pub use crate::model::RefreshEvent;
use crate::model::{ErrorKind, FeedId};
pub use crate::store::feeds::MAX_REFRESH_EVERY_SECS;
use crate::store::feeds::{self, RefreshTarget};
use crate::store::fetches::{Attempt, Batcher, Expected, FetchRecord};
use crate::store::{DbThread, StoreError};
use budget::{BYTES_IN_FLIGHT, Budget, UNKNOWN_LENGTH};
use order::{interleave_by_host, skip_reason};
use outage::Tally;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Which feeds a refresh run covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Which {
    All,
    Feeds(Vec<FeedId>),
    /// Those due for an automatic refresh: not fetched for this many seconds (or for longer, when they ask).
    Due {
        interval_secs: i64,
    },
}

/// A hook the tests run at the start of each feed's task, with the feed's URL (to make one panic).
type TestHook = Arc<dyn Fn(&str) + Send + Sync>;

/// Refreshes feeds: fetches, reads and stores each, politely (see [`Courtesy`]). Cheap to clone; clones share
/// their limits.
#[derive(Clone)]
pub struct Refresher {
    fetcher: Fetcher,
    courtesy: Courtesy,
    batcher: Batcher,
    writer: DbThread,
    /// Feeds being decoded and parsed at once: one per core, so reading on the blocking pool never starves the
    /// network tasks (a refresh that reads in place holds its runtime's thread for a small document's reading).
    reading: Arc<Semaphore>,
    /// The bytes of documents fetched and not yet stored: no fetch starts while they fill it.
    budget: Budget,
    /// Encodings forced in the config, by feed URL (one forced from the reader, stored with the feed, wins).
    forced: Arc<BTreeMap<String, String>>,
    /// The kill rules (`[[ignore]]`), made ready once: new entries they match are stored ignored.
    rules: Option<Arc<crate::query::Matcher>>,
    test_hook: Option<TestHook>,
    reading_hook: Option<TestHook>,
    /// Small documents are read on the worker that fetched them (see `reading`).
    in_place: bool,
}

impl Refresher {
    /// A refresher fetching through `fetcher` as `courtesy` allows, storing through `writer`.
    pub fn new(fetcher: Fetcher, courtesy: Courtesy, writer: DbThread) -> Refresher {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Refresher {
            fetcher,
            courtesy,
            batcher: Batcher::new(writer.clone()),
            writer,
            reading: Arc::new(Semaphore::new(cores)),
            budget: Budget::new(BYTES_IN_FLIGHT),
            forced: Arc::default(),
            rules: None,
            test_hook: None,
            reading_hook: None,
            in_place: false,
        }
    }

    /// Decodes the feeds named here with the encodings given (the config's `[encoding]` table).
    pub fn with_forced_encodings(mut self, forced: BTreeMap<String, String>) -> Refresher {
        self.forced = Arc::new(forced);
        self
    }

    /// Stores the new entries these kill rules match as ignored (see [`crate::store::query::apply_rules`] for
    /// those already stored).
    pub fn with_rules(mut self, rules: Vec<crate::query::Query>) -> Refresher {
        self.rules = (!rules.is_empty()).then(|| Arc::new(crate::query::Matcher::any(&rules)));
        self
    }

    /// Runs `hook` with each feed's URL at the start of its task. For tests: a hook that panics stands for a
    /// bug in tidings, to check that a dead worker still ends its feed with an event.
    #[doc(hidden)]
    pub fn with_test_hook(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Refresher {
        self.test_hook = Some(Arc::new(hook));
        self
    }

    /// Runs `hook` with each feed's URL where its fetched document is read (see `reading`). For tests: a hook
    /// that panics stands for a bug in decoding or parsing.
    #[doc(hidden)]
    pub fn with_reading_hook(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Refresher {
        self.reading_hook = Some(Arc::new(hook));
        self
    }

    /// Refreshes the feeds `which` names, calling `report` for each step, and returns the totals when all are
    /// done. Unless `force`d, feeds that are gone or asked to wait are skipped (and reported as such).
    ///
    /// Every feed the run covers gets exactly one final event (`Done`, `NotModified`, `Failed` or `Skipped`;
    /// see [`RefreshEvent::is_final`]), after its `Started` if it was fetched — also when its task panics (it is
    /// reported `Failed` with [`ErrorKind::Internal`] and stored as failed) and when the run itself is dropped
    /// before the end (each feed not yet done is then reported `Failed` with [`ErrorKind::Internal`], as
    /// stopped). So a reader counting final events never waits on a feed forever. The `Err` case (the feeds
    /// could not be listed) comes before any event.
    pub async fn run<F>(&self, which: Which, force: bool, report: F) -> Result<Summary, StoreError>
    where
        F: Fn(RefreshEvent) + Send + Sync + 'static,
    {
        let now = chrono::Utc::now().timestamp();
        let targets = self
            .writer
            .call(move |c| match which {
                Which::All => feeds::refresh_targets(c, None),
                Which::Feeds(ids) => feeds::refresh_targets(c, Some(&ids)),
                Which::Due { interval_secs } => {
                    feeds::refresh_targets(c, Some(&feeds::due_feeds(c, now, interval_secs)?))
                }
            })
            .await?;
        let reporter = Arc::new(Reporter { report: Box::new(report), open: Mutex::new(true) });
        let tally = Arc::new(Tally::default());
        let mut summary = Summary::default();
        let mut unfinished = Unfinished { feeds: HashMap::new(), waiting: Vec::new(), reporter: reporter.clone() };
        let mut tasks = tokio::task::JoinSet::new();
        // Every feed joins its host's queue first, in this order, before any goes out: each request then knows how
        // many others wait to take its connection over (see `Turn::keep_alive`). A feed's task is spawned when its
        // turn comes: the thousands waiting for theirs are a ticket and their place in `unfinished.waiting`, which
        // holds their targets until then (as tasks, they held 3 MB in a 4000-feed refresh; with a copy of each
        // feed's name beside the target, 2.9 MB).
        let mut waiting = futures::stream::FuturesUnordered::new();
        let one_thread =
            tokio::runtime::Handle::current().runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread;
        let mut listed = std::collections::HashSet::new();
        for target in interleave_by_host(targets) {
            if !listed.insert(target.id) {
                continue; // A feed named twice is refreshed once.
            }
            if let Some(reason) = skip_reason(&target, now, force) {
                let event = RefreshEvent::Skipped { feed_id: target.id, title: target.title.clone(), reason };
                reporter.send(event.clone());
                summary.count(event);
                continue;
            }
            let weight = if target.etag.is_some() || target.last_modified.is_some() {
                Weight::Revalidation
            } else {
                Weight::Document
            };
            let ticket = self.courtesy.queue(&target.url, weight);
            let place = unfinished.waiting.len();
            unfinished.waiting.push(Some(Box::new(target)));
            waiting.push(async move { (ticket.turn().await, place) });
        }
        loop {
            let joined = tokio::select! {
                Some((turn, place)) = futures::StreamExt::next(&mut waiting) => {
                    let Some(target) = unfinished.waiting[place].take() else { continue };
                    let feed = FeedName::of(&target);
                    let (this, reporter, tally) = (self.clone(), reporter.clone(), tally.clone());
                    // Boxed: the task holds a pointer to the feed's state machine (3,296 bytes), which was otherwise
                    // copied whole at each move on its way into the task (callgrind: `memcpy` 13.6 → 10.3 million
                    // instructions in an all-304 refresh of 1000 feeds).
                    let task =
                        tasks.spawn(Box::pin(async move { this.refresh_one(*target, turn, &reporter, &tally).await }));
                    unfinished.feeds.insert(task.id(), feed);
                    if one_thread {
                        // The feed's task goes first, and the connections already opened are written to before
                        // the next feed opens one: a runtime of one thread runs its tasks in turn, and would
                        // otherwise open the first wave's every connection before it wrote any request.
                        tokio::task::yield_now().await;
                    }
                    continue;
                }
                Some(joined) = tasks.join_next_with_id() => joined,
                else => break,
            };
            let event = match joined {
                Ok((task, event)) => {
                    unfinished.feeds.remove(&task);
                    event
                }
                Err(died) => {
                    let Some(feed) = unfinished.feeds.remove(&died.id()) else { continue };
                    self.worker_died(feed, died).await
                }
            };
            reporter.send(event.clone());
            summary.count(event);
        }
        let excused = tally.outage();
        if !excused.is_empty() {
            summary.outage = true;
            self.writer.call(move |c| crate::store::health::forgive_outage(c, &excused, now)).await?;
        }
        summary.failed.sort_by_key(|ev| match ev {
            RefreshEvent::Failed { title, .. } => title.to_lowercase(),
            _ => String::new(),
        });
        if summary.feeds >= 10 {
            // A big batch changed the tables' statistics; let SQLite refresh what its planner relies on.
            self.writer.submit(|c| {
                let _ = c.execute_batch("PRAGMA optimize;");
            });
        }
        Ok(summary)
    }

    /// Fetches, reads and stores one feed, its turn come (see [`Courtesy`]); returns the final event (which `run`
    /// reports).
    async fn refresh_one(
        &self,
        target: RefreshTarget,
        mut turn: Turn,
        reporter: &Reporter,
        tally: &Tally,
    ) -> RefreshEvent {
        let started = std::time::Instant::now();
        // Its result is on its way: a small batch of others may wait for it (see `Batcher`).
        let expected = self.batcher.expect();
        if let Some(hook) = &self.test_hook {
            hook(&target.url);
        }
        reporter.send(RefreshEvent::Started { feed_id: target.id });
        // While the documents held fill the budget, no request goes out either (see `budget`).
        self.budget.until_room().await;
        let validators = Validators { etag: target.etag.clone(), last_modified: target.last_modified.clone() };
        // Memory follows the bytes held, not the feeds: while the documents fetched and not yet stored fill the
        // budget, this document's body waits for one of them to be stored (see `budget`). Counted twice over:
        // the document, then what it parses into.
        let (budget, wait) = (self.budget.clone(), self.fetcher.admit_wait());
        // A success, its body read next: a revalidation answered so counts as a document from now on (`Promotion`).
        let promotion = turn.promotion();
        let admit = move |length: Option<u64>, body_waits: bool| async move {
            promotion.promote();
            let bytes = length.map_or(UNKNOWN_LENGTH, |n| usize::try_from(n).unwrap_or(usize::MAX));
            budget.admit_within(bytes.saturating_mul(2), if body_waits { wait } else { Duration::ZERO }).await
        };
        let fetched = self.fetcher.get_admitted(&target.url, &validators, turn.keep_alive(), admit).await;
        // What the next revalidations cost, and whether the host's others wait for connections, follow its answer.
        turn.heard(fetched.as_ref().map(|(outcome, _)| outcome));
        // The request is over: the next takes its turn while this feed is read and stored.
        drop(turn);
        let bytes = match &fetched {
            Ok((FetchOutcome::Fetched(document), _)) => Some(document.body.len() as u64),
            _ => None,
        };
        let (fetched, _held) = match fetched {
            Ok((outcome, mut held)) => {
                if let (FetchOutcome::Fetched(document), Some(held)) = (&outcome, held.as_mut()) {
                    held.resize(2 * document.body.len());
                }
                (Ok(outcome), held)
            }
            Err(e) => (Err(e), None),
        };
        let record = match fetched {
            Ok(FetchOutcome::NotModified { etag, last_modified, moved_permanently, .. }) => {
                FetchRecord::NotModified { etag, last_modified, moved_to: moved_permanently }
            }
            Ok(FetchOutcome::Fetched(fetched)) => self.read(&target, fetched).await,
            Err(e) => FetchRecord::Failed {
                status: e.answer_status(),
                kind: e.kind(),
                message: e.to_string(),
                retry_after_secs: e.retry_after_secs(),
            },
        };
        tally.note(target.id, &target.url, &record);
        let attempt = Attempt { bytes, duration_ms: started.elapsed().as_millis() as u64 };
        // The target is done with: its name moves into the event rather than being copied.
        let feed = FeedName { id: target.id, title: target.title, url: target.url };
        self.save(Some(expected), feed, record, attempt).await
    }

    /// Stores how one feed's refresh ended and turns it into the feed's final event.
    async fn save(
        &self,
        expected: Option<Expected>,
        feed: FeedName,
        record: FetchRecord,
        attempt: Attempt,
    ) -> RefreshEvent {
        let failure = match &record {
            FetchRecord::Failed { kind, message, .. } => Some((*kind, message.clone())),
            _ => None,
        };
        if let Some((kind, message)) = &failure {
            tracing::warn!(feed = %feed.url, %kind, "refresh failed: {message}");
        }
        let not_modified = matches!(record, FetchRecord::NotModified { .. } | FetchRecord::Unchanged { .. });
        let saved = self.batcher.save(expected, feed.id, record, attempt).await;
        let FeedName { id: feed_id, title, url } = feed;
        match (saved, failure) {
            (Err(e), _) => RefreshEvent::Failed {
                feed_id,
                title,
                url,
                kind: ErrorKind::Store,
                message: format!("could not save the feed: {e}"),
                retry_at: None,
                dead: false,
            },
            (Ok(outcome), Some((kind, message))) => RefreshEvent::Failed {
                feed_id,
                title: outcome.title,
                url,
                kind,
                message,
                retry_at: outcome.retry_at,
                dead: outcome.dead,
            },
            (Ok(outcome), None) if not_modified => {
                RefreshEvent::NotModified { feed_id, title, moved_to: outcome.moved_to }
            }
            (Ok(outcome), None) => RefreshEvent::Done {
                feed_id,
                new: outcome.new,
                updated: outcome.updated,
                unread: outcome.unread,
                title: outcome.title,
                moved_to: outcome.moved_to,
                cut_from: outcome.cut_from,
            },
        }
    }

    /// The final event of a feed whose task panicked (stored as a failure, so the feed list shows it) or was
    /// cancelled.
    async fn worker_died(&self, feed: FeedName, died: tokio::task::JoinError) -> RefreshEvent {
        if !died.is_panic() {
            return feed.failed(STOPPED);
        }
        let what = crate::panics::panic_message(&*died.into_panic());
        tracing::error!(feed = %feed.url, "the refresh task panicked: {what}");
        let message = format!(
            "tidings failed while refreshing this feed (internal error: {}); the other feeds were not affected. It \
             is tried again at the next refresh; if this keeps happening, please report it with the feed's address",
            crate::sanitize::one_line(&what, 300)
        );
        let record = FetchRecord::Failed { status: None, kind: ErrorKind::Internal, message, retry_after_secs: None };
        self.save(None, feed, record, Attempt::default()).await
    }
}

#[cfg(test)]
mod tests;
