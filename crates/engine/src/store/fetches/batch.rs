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
/// budget, which the feeds still expected may be waiting for. So does a batch this big: a writer with many
/// results waiting never idles for more.
const LINGER_BELOW: usize = 16;

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
    /// Told, while a batch lingers, when a result arrives or an expected one is no longer expected.
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
    pub(super) saved: oneshot::Sender<Delivery>,
}

/// A stored feed's answer ([`PendingWrite::saved`]), and the answers of the rest of its batch for the waiting
/// task to hand on (see [`deliver`]).
pub(super) struct Delivery {
    outcome: Result<ApplyOutcome, String>,
    record: FetchRecord,
    others: Others,
}

/// The answers of a batch's other feeds, each sent to its feed when this is dropped: on the thread of the task
/// that received them, or on the writer's if that task stopped waiting, so every feed gets its answer either way.
struct Others(Vec<(oneshot::Sender<Delivery>, Result<ApplyOutcome, String>, FetchRecord)>);

impl Delivery {
    /// The feed's answer and record, once the others of its batch are handed theirs.
    pub(super) fn into_answer(self) -> (Result<ApplyOutcome, String>, FetchRecord) {
        let Delivery { outcome, record, others } = self;
        drop(others);
        (outcome, record)
    }
}

impl Drop for Others {
    fn drop(&mut self) {
        for (saved, outcome, record) in self.0.drain(..) {
            let _ = saved.send(Delivery { outcome, record, others: Others(Vec::new()) });
        }
    }
}

/// Answers a stored batch with one wake-up of the refresh's threads: the first feed's task gets every answer and
/// hands the others theirs from its own thread (see [`Others`]). A task woken from another thread is woken through
/// its runtime's driver, one write to it each; on the runtime's thread a wake-up is a push onto its queue. Sent
/// feed by feed, an all-304 refresh of 1000 feeds woke its one thread 1000 times from the writer's, about a tenth
/// of its processor time.
fn deliver(answers: Vec<(oneshot::Sender<Delivery>, Result<ApplyOutcome, String>, FetchRecord)>) {
    let mut answers = answers.into_iter();
    if let Some((saved, outcome, record)) = answers.next() {
        // A feed no longer waiting gives the batch back, dropped here: the others are answered one by one.
        let _ = saved.send(Delivery { outcome, record, others: Others(answers.collect()) });
    }
}

impl Pending {
    /// Whether every result waiting is a 304, which holds nothing the refresh waits for.
    fn all_not_modified(&self) -> bool {
        self.writes.iter().all(|w| matches!(w.record, FetchRecord::NotModified { .. }))
    }

    /// Whether a batch this small waits for more ([`LINGER_BELOW`]): every result a 304, and others expected.
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
        // The writer lingering over a small batch is told only when the batch may go: woken at each result, it
        // went back to waiting fifteen times in sixteen.
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
        let (outcome, record) = outcome.await.map_err(|_| StoreError::Closed.to_string())?.into_answer();
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
    let answers = match together {
        Ok(outcomes) => batch.into_iter().zip(outcomes).map(|(w, outcome)| (w.saved, Ok(outcome), w.record)).collect(),
        Err(_) => batch
            .into_iter()
            .map(|write| {
                let alone = (|| {
                    let tx = conn.transaction()?;
                    let outcome = record_attempted(&tx, &write, now)?;
                    tx.commit()?;
                    Ok::<_, StoreError>(outcome)
                })();
                (write.saved, alone.map_err(|e| e.to_string()), write.record)
            })
            .collect(),
    };
    deliver(answers);
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
mod tests;
