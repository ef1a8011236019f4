//! The documents discovery just read, kept a little while for the first refresh of the feed a person subscribes
//! to from them: adding a feed fetched it twice (discovery's check, then the refresh that stores it), so a feed
//! whose server takes twenty seconds took forty, and the server served it twice. A kept document is handed out
//! once, to a GET of its address without validators (a feed's first), within [`KEEP`]; a fetch that may not go
//! everywhere ([`Fetcher::for_content_of`]) neither keeps nor takes one.

use super::{Fetched, Fetcher, Validators};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a document is kept: a person picks among the feeds found, then subscribes.
const KEEP: Duration = Duration::from_secs(120);

/// The most bytes kept, the newest documents first (a discovery verifies up to thirty candidates).
const MAX_BYTES: usize = 8 << 20;

/// Documents by the address they were fetched from, oldest first.
#[derive(Default)]
pub(super) struct Recent(Mutex<Vec<(Instant, Fetched)>>);

impl Fetcher {
    /// Keeps `fetched` (read by discovery) for the first refresh of its address, if one follows soon.
    pub(crate) fn keep_for_first_refresh(&self, fetched: &Fetched) {
        if self.reach.is_some() || fetched.body.len() > MAX_BYTES {
            return;
        }
        let mut kept = self.recent.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        kept.retain(|(at, f)| now.duration_since(*at) < KEEP && f.final_url != fetched.final_url);
        kept.push((now, fetched.clone()));
        let mut bytes: usize = kept.iter().map(|(_, f)| f.body.len()).sum();
        while bytes > MAX_BYTES {
            bytes -= kept.remove(0).1.body.len();
        }
    }

    /// The document discovery read from `url` moments ago, for a GET of it without validators; taken, so that
    /// the next GET asks the server.
    pub(super) fn just_read(&self, url: &str, validators: &Validators) -> Option<Fetched> {
        if self.reach.is_some() || validators.etag.is_some() || validators.last_modified.is_some() {
            return None;
        }
        let mut kept = self.recent.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        kept.retain(|(at, _)| now.duration_since(*at) < KEEP);
        let at = kept.iter().position(|(_, f)| f.final_url == url)?;
        let (_, mut fetched) = kept.remove(at);
        // Asked at its final address: no redirect on the way this time.
        fetched.moved_permanently = None;
        Some(fetched)
    }
}
