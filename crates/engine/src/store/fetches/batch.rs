//! Group commit: refresh results stored several feeds to a transaction on the writer thread ([`Batcher`]).

use super::{ApplyOutcome, Attempt, FetchRecord, record_fetch};
use crate::model::FeedId;
use crate::store::{DbThread, StoreError};
use rusqlite::Connection;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Most feeds stored in one transaction. Batches save the writer a commit per feed — and a page that several of
/// its feeds' entries touch is written to the log once, not once per feed — but every feed in a batch waits for
/// its commit (a document holds its part of the memory budget until then), and a user's write waits for the batch
/// before it. With 64 rather than
/// 16, a cold 4000 × 100 refresh on 200 hosts took 4.7 s instead of 5.0 (the writer is its bottleneck).
const MAX_BATCH: usize = 64;

/// A batch of 304s smaller than this, while other feeds of a refresh are still on their way, waits up to [`LINGER`]
/// for them. Answers that come one at a time — 304s from hosts far away — found the writer idle and were committed
/// in twos and threes: an all-304 refresh of 1000 feeds on 200 hosts 100 ms away committed 331 times, and a
/// commit (its log frames written, the log's index and locks) cost about 50 µs of processor time, a tenth of the
/// refresh's. A batch with anything else in it goes at once: a document holds part of the refresh's memory
/// budget, which the feeds still expected may be waiting for. So does a full batch: a writer with many results
/// waiting never idles for more. Sixteen at first: answers come back in waves (a round trip's worth of hosts at
/// once), and batches cut at sixteen made an all-304 refresh of 1000 feeds on 200 hosts commit 61 times, each
/// commit writing again the pages of the feeds table and of the fetch history that the one before had written;
/// with 64, 21 times.
const LINGER_BELOW: usize = MAX_BATCH;

/// The longest a small batch waits for more results, from the arrival of its oldest. It holds no request back (a feed's turn ends when its
/// answer is in, before it is stored), only the feed's final event, and a user's write behind it on the writer.
const LINGER: Duration = Duration::from_millis(10);

/// Stores refresh results on the writer thread, several feeds per transaction (group commit): the first result
/// to arrive sends the writer a job, and whatever arrives before that job runs goes into the same transaction, so
/// one writer keeps up with many hosts answering at once. A small batch waits a little for the results still
/// [`Expected`] (see [`LINGER_BELOW`]). Cheap to clone; clones share the queue.
#[derive(Clone)]
pub struct Batcher(Arc<Queue>);

struct Queue {
    /// How long a small batch waits for the results expected ([`LINGER`]).
    linger: Duration,
    pending: Mutex<Pending>,
    /// Told, while a batch lingers, when a change lets it go (see [`Pending::lingers`]).
    news: Condvar,
    writer: DbThread,
}

#[derive(Default)]
struct Pending {
    writes: Vec<PendingWrite>,
    /// Feeds being refreshed whose results have not arrived yet (see [`Expected`]).
    expected: usize,
    /// A writer's job is waiting for them, its batch small: a change that lets it go is told ([`Queue::news`]).
    lingering: bool,
}

/// A feed being refreshed, whose result the batcher may wait for: handed to [`Batcher::save`] with the result,
/// or dropped when the feed's task ends without one.
pub struct Expected {
    queue: Arc<Queue>,
    /// Its result arrived, and was counted off with it.
    settled: bool,
}

impl Drop for Expected {
    fn drop(&mut self) {
        if !self.settled {
            let mut pending = self.queue.lock();
            pending.expected -= 1;
            let ends = pending.lingering && !pending.lingers();
            drop(pending);
            if ends {
                self.queue.news.notify_all();
            }
        }
    }
}

impl Batcher {
    pub fn new(writer: DbThread) -> Batcher {
        Batcher::lingering(writer, LINGER)
    }

    fn lingering(writer: DbThread, linger: Duration) -> Batcher {
        Batcher(Arc::new(Queue { linger, pending: Mutex::default(), news: Condvar::new(), writer }))
    }

    /// Notes a feed whose result is on its way: until it arrives (or the returned guard is dropped), a small
    /// batch may wait for it.
    pub fn expect(&self) -> Expected {
        self.0.lock().expected += 1;
        Expected { queue: self.0.clone(), settled: false }
    }

    /// Stores one feed's result, and the attempt in its history; returns when it is committed. `expected`, the
    /// feed's guard from [`Batcher::expect`] if it has one, ends with the result's arrival.
    pub async fn save(
        &self,
        expected: Option<Expected>,
        feed_id: FeedId,
        record: FetchRecord,
        attempt: Attempt,
    ) -> Result<ApplyOutcome, String> {
        self.0.save(expected, feed_id, record, attempt).await
    }
}

pub(super) struct PendingWrite {
    pub(super) feed_id: FeedId,
    pub(super) record: FetchRecord,
    pub(super) attempt: Attempt,
    /// When it arrived: a batch lingers for [`LINGER`] from its oldest.
    pub(super) at: Instant,
    /// The answer, and the record given back: what a feed parsed into is freed by the task that waits for it,
    /// not by the one writer every other feed waits on (a cold refresh's writer spent 4% of its time freeing).
    pub(super) saved: oneshot::Sender<(Result<ApplyOutcome, String>, FetchRecord)>,
}

impl Pending {
    /// Whether every result waiting is a 304, which holds nothing the refresh waits for.
    fn all_not_modified(&self) -> bool {
        self.writes.iter().all(|w| matches!(w.record, FetchRecord::NotModified { .. }))
    }

    /// Whether a batch this small waits for more ([`LINGER_BELOW`]): every result a 304, and others expected.
    /// Only a result arriving (or an expected one given up) turns it false.
    fn lingers(&self) -> bool {
        self.writes.len() < LINGER_BELOW && self.expected > 0 && self.all_not_modified()
    }
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends the writer a job that stores the next batch (and sends the job after it, when more are waiting).
    fn drain(self: &Arc<Self>) {
        let mut job = Drain { queue: self.clone(), ran: false };
        self.writer.submit(move |conn| {
            job.ran = true;
            let (batch, more) = {
                let mut pending = job.queue.lock();
                let deadline = pending.writes.first().map_or_else(Instant::now, |w| w.at) + job.queue.linger;
                while pending.lingers() {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    pending.lingering = true;
                    pending = job.queue.news.wait_timeout(pending, left).unwrap_or_else(|e| e.into_inner()).0;
                }
                pending.lingering = false;
                let take = pending.writes.len().min(MAX_BATCH);
                let batch: Vec<PendingWrite> = pending.writes.drain(..take).collect();
                (batch, !pending.writes.is_empty())
            };
            if more {
                job.queue.drain();
            }
            write_batch(conn, batch);
        });
    }

    /// Stores one feed's result; returns when it is committed.
    async fn save(
        self: &Arc<Self>,
        expected: Option<Expected>,
        feed_id: FeedId,
        record: FetchRecord,
        attempt: Attempt,
    ) -> Result<ApplyOutcome, String> {
        let (saved, outcome) = oneshot::channel();
        // The writer lingering over a small batch is told only when the batch may go (a full batch, none
        // expected, or anything but a 304): woken at each result, it went back to waiting nearly every time.
        let (first, ends_linger) = {
            let mut pending = self.lock();
            pending.writes.push(PendingWrite { feed_id, record, attempt, at: Instant::now(), saved });
            if let Some(mut expected) = expected {
                debug_assert!(Arc::ptr_eq(&expected.queue, self), "a guard of another batcher");
                pending.expected -= 1;
                expected.settled = true;
            }
            (pending.writes.len() == 1, pending.lingering && !pending.lingers())
        };
        if ends_linger {
            self.news.notify_all();
        }
        if first {
            self.drain();
        }
        let (outcome, record) = outcome.await.map_err(|_| StoreError::Closed.to_string())?;
        drop(record);
        outcome
    }
}

/// A writer job that stores the next batch. Dropped without running — the writer thread is gone — it drops
/// every waiting result's answer channel, so each waiting feed fails (could not be saved) instead of waiting
/// forever.
struct Drain {
    queue: Arc<Queue>,
    ran: bool,
}

impl Drop for Drain {
    fn drop(&mut self) {
        if !self.ran {
            let abandoned = std::mem::take(&mut self.queue.lock().writes);
            drop(abandoned);
        }
    }
}

/// Stores a batch of results and answers each. Optimistically, the whole batch in one transaction and nothing
/// more: a savepoint per feed would copy every page a feed touches into a sub-journal first, a third of the
/// store's work on a cold refresh. When a feed cannot be stored (or the commit fails), that transaction is rolled
/// back and every feed of the batch is stored again in a transaction of its own, so the one that fails fails
/// alone and leaves no trace.
pub(super) fn write_batch(conn: &mut Connection, batch: Vec<PendingWrite>) {
    let now = chrono::Utc::now().timestamp();
    let together = (|| -> Result<Vec<ApplyOutcome>, StoreError> {
        let tx = conn.transaction()?;
        let outcomes = batch.iter().map(|w| record_attempted(&tx, w, now)).collect::<Result<Vec<_>, _>>()?;
        tx.commit()?;
        Ok(outcomes)
    })();
    match together {
        Ok(outcomes) => {
            for (write, outcome) in batch.into_iter().zip(outcomes) {
                let _ = write.saved.send((Ok(outcome), write.record));
            }
        }
        Err(_) => {
            for write in batch {
                let alone = (|| {
                    let tx = conn.transaction()?;
                    let outcome = record_attempted(&tx, &write, now)?;
                    tx.commit()?;
                    Ok::<_, StoreError>(outcome)
                })();
                let _ = write.saved.send((alone.map_err(|e| e.to_string()), write.record));
            }
        }
    }
}

/// Records one fetch and its attempt in the feed's history.
fn record_attempted(tx: &Connection, write: &PendingWrite, now: i64) -> Result<ApplyOutcome, StoreError> {
    let outcome = record_fetch(tx, write.feed_id, &write.record, now)?;
    let ended = match &write.record {
        FetchRecord::Fetched { status, .. } => (Some(*status), "fetched"),
        FetchRecord::NotModified { .. } => (Some(304), "not-modified"),
        FetchRecord::Unchanged { status, .. } => (Some(*status), "unchanged"),
        FetchRecord::Failed { status, kind, .. } => (*status, kind.as_str()),
    };
    crate::store::health::record_attempt(tx, write.feed_id, ended, write.attempt, now)?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::fixtures;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A writer on a database with one feed, a batcher that waits as long as `linger` for the results expected,
    /// and the count of transactions the writer has committed since.
    async fn batcher(linger: Duration) -> (tempfile::TempDir, Batcher, FeedId, Arc<AtomicUsize>) {
        let (dir, conn, feed) = fixtures::one_feed();
        let writer = DbThread::spawn_writer(conn);
        let commits = Arc::new(AtomicUsize::new(0));
        let counted = commits.clone();
        writer
            .call(move |c| {
                c.commit_hook(Some(move || {
                    counted.fetch_add(1, Ordering::SeqCst);
                    false
                }))?;
                Ok(())
            })
            .await
            .unwrap();
        (dir, Batcher::lingering(writer, linger), feed, commits)
    }

    fn not_modified() -> FetchRecord {
        FetchRecord::NotModified { etag: Some("\"v1\"".into()), last_modified: None, moved_to: None }
    }

    /// Saves a 304 of `feed` on a task of its own.
    fn spawn_304(
        batcher: &Batcher,
        expected: Expected,
        feed: FeedId,
    ) -> tokio::task::JoinHandle<Result<ApplyOutcome, String>> {
        let batcher = batcher.clone();
        tokio::spawn(async move { batcher.save(Some(expected), feed, not_modified(), Attempt::default()).await })
    }

    /// Returns once the writer's job holds a small batch back for the results expected.
    async fn lingering(batcher: &Batcher) {
        while !batcher.0.lock().lingering {
            tokio::task::yield_now().await;
        }
    }

    /// Bounds a wait that must end (a batch that waited for nothing would take the batcher's linger, an hour; one
    /// that never lingered would leave `lingering` waiting).
    async fn soon<T>(what: impl Future<Output = T>) -> T {
        tokio::time::timeout(Duration::from_secs(30), what).await.expect("a wait that must end did not")
    }

    /// The writer's job for the first result starts before the second arrives; it waits for it, as the second is
    /// expected, and commits both in one transaction, without waiting further once none is expected.
    #[tokio::test]
    async fn a_small_batch_waits_for_the_results_expected_and_commits_them_together() {
        let (_dir, batcher, feed, commits) = batcher(Duration::from_secs(3600)).await;
        let (first, second) = (batcher.expect(), batcher.expect());
        let early = spawn_304(&batcher, first, feed);
        soon(lingering(&batcher)).await;
        let late = soon(batcher.save(Some(second), feed, not_modified(), Attempt::default())).await;
        assert!(late.is_ok(), "{late:?}");
        assert!(soon(early).await.unwrap().is_ok());
        assert_eq!(commits.load(Ordering::SeqCst), 1, "both results in one transaction");
    }

    /// A feed whose task ends without a result (it died, or the refresh was dropped) is no longer waited for.
    #[tokio::test]
    async fn a_feed_that_ends_without_a_result_is_not_waited_for() {
        let (_dir, batcher, feed, commits) = batcher(Duration::from_secs(3600)).await;
        let (first, gone) = (batcher.expect(), batcher.expect());
        let saving = spawn_304(&batcher, first, feed);
        soon(lingering(&batcher)).await;
        assert!(!saving.is_finished());
        drop(gone);
        assert!(soon(saving).await.unwrap().is_ok());
        assert_eq!(commits.load(Ordering::SeqCst), 1);
    }

    /// A document goes without waiting for the others expected: they may be waiting for the memory it holds.
    #[tokio::test]
    async fn a_batch_with_a_document_does_not_wait_for_the_others() {
        let (_dir, batcher, feed, commits) = batcher(Duration::from_secs(3600)).await;
        let (first, _still_out) = (batcher.expect(), batcher.expect());
        let document = super::super::tests::fetched(vec![]);
        let saved = soon(batcher.save(Some(first), feed, document, Attempt::default())).await;
        assert!(saved.is_ok(), "{saved:?}");
        assert_eq!(commits.load(Ordering::SeqCst), 1);
    }

    /// A document arriving while a batch of 304s waits for more ends the wait: the batch goes at once, both in it.
    #[tokio::test]
    async fn a_document_arriving_while_304s_wait_for_more_sends_the_batch_at_once() {
        let (_dir, batcher, feed, commits) = batcher(Duration::from_secs(3600)).await;
        let (first, second, _still_out) = (batcher.expect(), batcher.expect(), batcher.expect());
        let early = spawn_304(&batcher, first, feed);
        soon(lingering(&batcher)).await;
        let document = super::super::tests::fetched(vec![]);
        let saved = soon(batcher.save(Some(second), feed, document, Attempt::default())).await;
        assert!(saved.is_ok(), "{saved:?}");
        assert!(soon(early).await.unwrap().is_ok());
        assert_eq!(commits.load(Ordering::SeqCst), 1, "the 304 and the document in one transaction");
    }

    /// A batch of [`LINGER_BELOW`] results goes without waiting for the others expected: a writer with work
    /// waiting never idles.
    #[tokio::test]
    async fn a_batch_big_enough_does_not_wait_for_the_others() {
        let (_dir, batcher, feed, commits) = batcher(Duration::from_secs(3600)).await;
        let still_out = batcher.expect();
        let expected: Vec<Expected> = (0..LINGER_BELOW).map(|_| batcher.expect()).collect();
        let mut expected = expected.into_iter();
        // The first lingers for the others expected; the last of a full batch lets it go.
        let mut saves = vec![spawn_304(&batcher, expected.next().unwrap(), feed)];
        soon(lingering(&batcher)).await;
        saves.extend(expected.map(|e| spawn_304(&batcher, e, feed)));
        for save in saves {
            assert!(soon(save).await.unwrap().is_ok());
        }
        assert_eq!(commits.load(Ordering::SeqCst), 1, "the batch waited for all of them, no more");
        assert_eq!(batcher.0.lock().expected, 1, "one feed still on its way");
        drop(still_out);
        assert_eq!(batcher.0.lock().expected, 0);
    }
}
