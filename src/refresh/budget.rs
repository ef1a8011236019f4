//! The refresh's memory, bounded by the bytes it holds rather than by the number of feeds in flight: a fetched
//! document and what it parses into are held until the feed is stored, and while they exceed the budget no new
//! fetch starts. The feeds already past their fetch never wait on the budget (they only give back what they
//! hold), so it cannot deadlock; one feed larger than the whole budget still goes, alone.

use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Bytes a refresh holds at once — documents fetched and not yet stored, at twice their size (the document, then
/// what it parses into) — before it starts no new fetch. A feed larger than this is read alone.
pub(super) const BYTES_IN_FLIGHT: usize = 3 * 1024 * 1024;

/// What a fetch is counted as before its size is known. Small, so that on the real web (answers a round trip
/// away) enough requests are in flight — 384 fit in the budget, more than the 256 the default concurrency
/// sends at once — and an answer of 304 costs nothing; a document counts its size once it is here. With 6 MB
/// and 16 KB, a cold 1000 × 50 refresh peaked at 27 MB; with 3 MB and 8 KB at 24.6 MB, no slower on one host or
/// on 200 hosts 100 ms away.
pub(super) const FETCH_ESTIMATE: usize = 8 * 1024;

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
