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

/// A batch of [`LINGER_BELOW`] results goes without waiting for the others expected: a writer with work
/// waiting never idles.
#[tokio::test]
async fn a_batch_big_enough_does_not_wait_for_the_others() {
    let (_dir, batcher, feed, commits) = batcher(Duration::from_secs(3600)).await;
    let still_out = batcher.expect();
    let saves: Vec<_> = (0..LINGER_BELOW).map(|_| spawn_304(&batcher, batcher.expect(), feed)).collect();
    for save in saves {
        assert!(soon(save).await.unwrap().is_ok());
    }
    assert_eq!(commits.load(Ordering::SeqCst), 1, "the batch waited for all of them, no more");
    assert_eq!(batcher.0.lock().expected, 1, "one feed still on its way");
    drop(still_out);
    assert_eq!(batcher.0.lock().expected, 0);
}

/// Wake-ups of a feed's task, and the thread each came from.
#[derive(Default)]
struct Woken(Mutex<Vec<std::thread::ThreadId>>);

impl std::task::Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.lock().unwrap().push(std::thread::current().id());
    }
}

impl Woken {
    fn from(&self) -> Vec<std::thread::ThreadId> {
        self.0.lock().unwrap().clone()
    }
}

/// Five 304s of one batch, each feed's task waiting on its answer: stored by a writer on a thread of its own,
/// which wakes whom it wakes from there. Returns the answers waited on, each task's wake-ups, and the writer's
/// thread.
fn stored_batch(
    first_waits: bool,
) -> (Vec<oneshot::Receiver<Delivery>>, Vec<Arc<Woken>>, std::thread::ThreadId, tempfile::TempDir) {
    let (dir, mut conn, feed) = fixtures::one_feed();
    let mut answers = Vec::new();
    let batch: Vec<PendingWrite> = (0..5)
        .map(|_| {
            let (saved, answer) = oneshot::channel();
            answers.push(answer);
            PendingWrite {
                feed_id: feed,
                record: not_modified(),
                attempt: Attempt::default(),
                at: Instant::now(),
                saved,
            }
        })
        .collect();
    let woken: Vec<Arc<Woken>> = answers.iter().map(|_| Arc::default()).collect();
    for (answer, woken) in answers.iter_mut().zip(&woken) {
        let waker = std::task::Waker::from(woken.clone());
        let waiting = std::pin::Pin::new(answer).poll(&mut std::task::Context::from_waker(&waker));
        assert!(waiting.is_pending(), "nothing stored yet");
    }
    if !first_waits {
        answers.remove(0);
    }
    let writer = std::thread::spawn(move || {
        write_batch(&mut conn, batch);
        std::thread::current().id()
    });
    (answers, woken, writer.join().unwrap(), dir)
}

/// A task woken from another thread is woken through its runtime's driver, a write each: a batch's answers wake
/// one waiting feed from the writer's thread, and that feed's task hands the others theirs from its own.
#[test]
fn a_stored_batch_wakes_one_feed_from_the_writers_thread_and_that_one_the_others() {
    let (mut answers, woken, writer, _dir) = stored_batch(true);
    assert_eq!(woken[0].from(), [writer], "the first feed, from the writer's thread");
    assert!(woken[1..].iter().all(|w| w.from().is_empty()), "no other yet");
    let (first, _) = answers[0].try_recv().expect("the first feed is answered").into_answer();
    assert!(first.is_ok(), "{first:?}");
    let here = std::thread::current().id();
    for (answer, woken) in answers.iter_mut().zip(&woken).skip(1) {
        assert_eq!(woken.from(), [here], "handed on by the first feed's task, on its thread");
        assert!(answer.try_recv().expect("every feed is answered").into_answer().0.is_ok());
    }
}

/// A batch whose first feed stopped waiting still answers every other, from the writer's thread.
#[test]
fn a_stored_batch_whose_first_feed_stopped_waiting_answers_the_others() {
    let (mut answers, woken, writer, _dir) = stored_batch(false);
    assert!(woken[0].from().is_empty(), "its task is gone");
    for (answer, woken) in answers.iter_mut().zip(&woken[1..]) {
        assert_eq!(woken.from(), [writer]);
        assert!(answer.try_recv().expect("every feed is answered").into_answer().0.is_ok());
    }
}
