//! The refresh's memory, bounded by the documents it holds rather than by the number of feeds in flight: a
//! document is admitted before its body is read, and held with what it parses into until the feed is stored.
//! While they fill the budget, no request goes out and no other HTTP/1 body is read (it waits in the socket,
//! where it costs this process nothing, for a third of the timeout at most; that wait is not counted against the
//! request's timeout). A request waiting on its answer holds no part of the budget, so on the real web — answers
//! a round trip away, most of them 304 — every request the concurrency allows is in flight at once. The feeds
//! already past their body never wait on the budget (they only give back what they hold), so it cannot
//! deadlock; one feed larger than the whole budget still goes, alone.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// Bytes of documents a refresh holds at once — each at twice its size (the document, then what it parses into)
/// until its feed is stored — before it reads no other body. A feed larger than this is read alone.
pub(super) const BYTES_IN_FLIGHT: usize = 3 * 1024 * 1024;

/// What a document that does not announce its length is counted as, until it is here.
pub(super) const UNKNOWN_LENGTH: usize = 64 * 1024;

/// The budget; cheap to clone, clones share it.
#[derive(Clone)]
pub(super) struct Budget(Arc<Shared>);

struct Shared {
    limit: usize,
    held: Mutex<usize>,
    freed: Notify,
}

impl Budget {
    pub(super) fn new(limit: usize) -> Budget {
        Budget(Arc::new(Shared { limit, held: Mutex::new(0), freed: Notify::new() }))
    }

    /// Waits until the budget has room, then counts a fetch at `estimate` bytes until the returned hold is
    /// resized or dropped.
    pub(super) async fn admit(&self, estimate: usize) -> Held {
        loop {
            let freed = self.0.freed.notified();
            tokio::pin!(freed);
            // Registered before the check: room given back between the check and the wait still wakes it.
            freed.as_mut().enable();
            {
                let mut held = self.0.held.lock().unwrap_or_else(|e| e.into_inner());
                if *held < self.0.limit {
                    *held += estimate;
                    return Held { budget: self.clone(), bytes: estimate };
                }
            }
            freed.await;
        }
    }

    /// Waits until the budget has room, taking none of it: a request sent now holds no document yet, but while
    /// the budget is full (the writer slower than the network, or held up) none goes out.
    pub(super) async fn until_room(&self) {
        drop(self.admit(0).await);
    }

    /// [`Budget::admit`], waiting no longer than `at_most`: then the document is counted over the budget. A
    /// server does not keep an answer waiting for ever.
    pub(super) async fn admit_within(&self, bytes: usize, at_most: Duration) -> Held {
        match tokio::time::timeout(at_most, self.admit(bytes)).await {
            Ok(held) => held,
            Err(_) => {
                *self.0.held.lock().unwrap_or_else(|e| e.into_inner()) += bytes;
                Held { budget: self.clone(), bytes }
            }
        }
    }

    /// Bytes held now.
    #[cfg(test)]
    fn held(&self) -> usize {
        *self.0.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Bytes one feed holds of the budget; given back when dropped.
pub(super) struct Held {
    budget: Budget,
    bytes: usize,
}

impl Held {
    /// Counts this feed at `bytes` from now on (never waits: the document is already here).
    pub(super) fn resize(&mut self, bytes: usize) {
        let mut held = self.budget.0.held.lock().unwrap_or_else(|e| e.into_inner());
        *held = *held - self.bytes + bytes;
        let shrank = bytes < self.bytes;
        self.bytes = bytes;
        drop(held);
        if shrank {
            self.budget.0.freed.notify_waiters();
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.resize(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn no_fetch_starts_while_the_documents_held_fill_the_budget() {
        let budget = Budget::new(100);
        let mut first = budget.admit(10).await;
        let _second = budget.admit(10).await;
        first.resize(95);
        assert_eq!(budget.held(), 105);
        // Over the budget: the next fetch waits until a feed is stored.
        let waiting = tokio::spawn({
            let budget = budget.clone();
            async move { budget.admit(10).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "admitted over the budget");
        assert_eq!(budget.held(), 105);
        drop(first);
        let third = waiting.await.unwrap();
        assert_eq!(budget.held(), 20);
        drop(third);
        assert_eq!(budget.held(), 10);
    }

    #[tokio::test]
    async fn a_document_waits_on_a_full_budget_no_longer_than_it_may() {
        let budget = Budget::new(100);
        let _full = budget.admit(100).await;
        let started = std::time::Instant::now();
        let late = budget.admit_within(10, Duration::from_millis(50)).await;
        assert!(started.elapsed() >= Duration::from_millis(50), "admitted before the budget had room");
        assert_eq!(budget.held(), 110);
        drop(late);
        assert_eq!(budget.held(), 100);
    }

    #[tokio::test]
    async fn a_document_larger_than_the_budget_goes_alone() {
        let budget = Budget::new(100);
        let mut big = budget.admit(10).await;
        big.resize(1000);
        assert_eq!(budget.held(), 1000);
        drop(big);
        let next = budget.admit(10).await;
        assert_eq!(budget.held(), 10);
        drop(next);
    }
}
