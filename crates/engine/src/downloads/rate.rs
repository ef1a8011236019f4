//! The rate limit all downloads share (`download_rate_limit`): each piece written reserves its time on one
//! clock, and waits until its turn.

use std::time::Duration;
use tokio::time::Instant;

/// Bytes per second, for everyone together.
pub struct Rate {
    per_second: u64,
    next: std::sync::Mutex<Option<Instant>>,
}

impl Rate {
    pub fn new(per_second: u64) -> Rate {
        Rate { per_second: per_second.max(1), next: std::sync::Mutex::new(None) }
    }

    /// Waits until `bytes` more have gone without passing the rate: to the end of their turn on the clock, not
    /// its start, so however big the pieces the network hands over (a loaded machine gathers large ones), no
    /// stretch of a download, its last piece included, goes faster than the rate.
    pub async fn take(&self, bytes: usize) {
        let cost = Duration::from_secs_f64(bytes as f64 / self.per_second as f64);
        let now = Instant::now();
        let done = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            // Idle time is not saved up: a burst after a pause still keeps the rate.
            let start = next.map_or(now, |n| n.max(now));
            *next = Some(start + cost);
            start + cost
        };
        tokio::time::sleep_until(done).await;
    }
}
