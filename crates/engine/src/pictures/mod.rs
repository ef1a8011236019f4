//! Pictures of the article, on the engine's side: fetched in the background through the shared client and its
//! [`Courtesy`] (the same global and per-host limits as feeds and full articles), as far as the content of their
//! feed may reach ([`crate::fetch::Fetcher::for_content_of`]), kept on disk between sessions ([`disk`],
//! bounded) and in memory as decoded pixels (bounded), decoded within limits off the async workers ([`decode`]).
//!
//! Drawing them — the terminal's protocol, the pictures prepared for it — is the front end's: it asks the
//! [`Library`] for a picture's size with [`Library::load`] and for its pixels with [`Library::kept`]. Escape
//! sequences are built from decoded pixels, never from a feed's bytes.

pub mod decode;
pub mod disk;

use crate::fetch::{Courtesy, Fetcher};
use image::DynamicImage;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Largest picture fetched, in bytes (counted after decompression).
pub const MAX_PICTURE_BYTES: u64 = 8 * 1024 * 1024;
/// Memory kept for decoded pictures, so that a resize or a zoom prepares them again without a fetch.
const DECODED_BYTES: usize = 24 * 1024 * 1024;

/// A least-recently-used map bounded by the bytes of what it holds (few entries: a linear scan is enough).
pub struct Lru<K, V> {
    entries: Vec<(K, V, usize)>,
    held: usize,
    max: usize,
}

impl<K: PartialEq, V: Clone> Lru<K, V> {
    pub fn new(max: usize) -> Self {
        Lru { entries: Vec::new(), held: 0, max }
    }

    pub fn get(&mut self, key: &K) -> Option<V> {
        let at = self.entries.iter().position(|(k, _, _)| k == key)?;
        let entry = self.entries.remove(at);
        let value = entry.1.clone();
        self.entries.push(entry);
        Some(value)
    }

    pub fn peek(&self, key: &K) -> Option<&V> {
        self.entries.iter().find(|(k, _, _)| k == key).map(|(_, v, _)| v)
    }

    /// Inserts `value`, and returns what went out to make room for it (or what it replaced).
    pub fn insert(&mut self, key: K, value: V, bytes: usize) -> Vec<V> {
        let mut out = Vec::new();
        out.extend(self.remove(&key));
        self.entries.push((key, value, bytes));
        self.held += bytes;
        while self.held > self.max && self.entries.len() > 1 {
            let (_, value, bytes) = self.entries.remove(0);
            self.held -= bytes;
            out.push(value);
        }
        out
    }

    pub fn remove(&mut self, key: &K) -> Option<V> {
        let at = self.entries.iter().position(|(k, _, _)| k == key)?;
        let (_, value, bytes) = self.entries.remove(at);
        self.held -= bytes;
        Some(value)
    }

    /// Empties it, and returns what it held.
    pub fn clear(&mut self) -> Vec<V> {
        self.held = 0;
        self.entries.drain(..).map(|(_, v, _)| v).collect()
    }
}

/// A decoded picture kept in memory: its pixels (bounded) and its size in the file.
#[derive(Clone)]
pub struct Kept {
    pub image: Arc<DynamicImage>,
    pub width: u32,
    pub height: u32,
}

/// The picture library: cheap to clone, clones share everything.
#[derive(Clone)]
pub struct Library(Arc<Inner>);

struct Inner {
    fetcher: Fetcher,
    courtesy: Courtesy,
    disk: Option<disk::DiskCache>,
    decoded: Mutex<Lru<String, Kept>>,
    decoding: tokio::sync::Semaphore,
}

impl Library {
    /// A library fetching through `fetcher` within `courtesy`, keeping what it fetched in `cache_dir` (at most
    /// `cache_max_bytes`; none: in memory only).
    pub fn new(fetcher: Fetcher, courtesy: Courtesy, cache_dir: Option<PathBuf>, cache_max_bytes: u64) -> Library {
        crate::os::release_large_buffers();
        let disk = cache_dir.map(|dir| disk::DiskCache::new(dir, cache_max_bytes));
        Library(Arc::new(Inner {
            fetcher,
            courtesy,
            disk: disk.filter(|_| cache_max_bytes > 0),
            decoded: Mutex::new(Lru::new(DECODED_BYTES)),
            decoding: tokio::sync::Semaphore::new(2),
        }))
    }

    /// Fetches (or reads from the disk cache) and decodes `url`, a picture of the feed at `feed_url` (empty: not
    /// known, taken for a feed on the internet): its size in pixels, or why it is not shown.
    pub async fn load(&self, url: &str, feed_url: &str) -> Result<(u32, u32), String> {
        if let Some(kept) = self.kept(url) {
            return Ok((kept.width, kept.height));
        }
        let this = self.clone();
        let key = url.to_string();
        let cached = tokio::task::spawn_blocking(move || this.0.disk.as_ref().and_then(|d| d.get(&key)))
            .await
            .map_err(|e| format!("the picture cache failed: {e}"))?;
        let (bytes, fresh) = match cached {
            Some(bytes) => (bytes, false),
            None => (self.fetch(url, feed_url).await?, true),
        };
        // Two decodes at a time: each holds a whole picture's pixels while it runs.
        let _decoding = self.0.decoding.acquire().await.map_err(|e| e.to_string())?;
        let this = self.clone();
        let key = url.to_string();
        tokio::task::spawn_blocking(move || {
            let decoded = decode::decode(&bytes).map_err(|e| e.to_string())?;
            if fresh && let Some(disk) = &this.0.disk {
                disk.put(&key, &bytes);
            }
            let size = (decoded.width, decoded.height);
            this.keep(key, decoded);
            Ok(size)
        })
        .await
        .map_err(|e| format!("decoding failed: {e}"))?
    }

    /// The bytes at `url`, through the shared client as far as the content of the feed at `feed_url` may reach,
    /// within the host's turn and a global slot.
    async fn fetch(&self, url: &str, feed_url: &str) -> Result<Vec<u8>, String> {
        let fetcher = self.0.fetcher.for_content_of(feed_url).await;
        let fetcher = fetcher.map_err(|e| format!("cannot fetch the picture: {e}"))?;
        let _turn = self.0.courtesy.turn(url).await;
        match fetcher.get_limited(url, MAX_PICTURE_BYTES).await {
            Ok(crate::fetch::FetchOutcome::Fetched(page)) => Ok(page.body),
            Ok(crate::fetch::FetchOutcome::NotModified { .. }) => {
                Err("the server answered 304 to a plain request".into())
            }
            Err(crate::fetch::FetchError::Status { status, .. }) => {
                Err(format!("cannot fetch the picture: HTTP {status}"))
            }
            Err(crate::fetch::FetchError::TooLarge { .. }) => {
                Err(format!("the picture is larger than {} MB", MAX_PICTURE_BYTES / (1024 * 1024)))
            }
            Err(e @ crate::fetch::FetchError::LocalNetwork { .. }) => Err(format!("the picture was {e}")),
            Err(e) => Err(format!("cannot fetch the picture: {e}")),
        }
    }

    /// The decoded picture at `url`, while it is kept in memory.
    pub fn kept(&self, url: &str) -> Option<Kept> {
        self.0.decoded.lock().unwrap_or_else(|e| e.into_inner()).get(&url.to_string())
    }

    fn keep(&self, url: String, decoded: decode::Decoded) {
        let bytes = decoded.image.as_bytes().len();
        let kept = Kept { image: Arc::new(decoded.image), width: decoded.width, height: decoded.height };
        self.0.decoded.lock().unwrap_or_else(|e| e.into_inner()).insert(url, kept, bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_cache_lets_the_oldest_go_by_bytes_and_says_what_went() {
        let mut lru = Lru::new(10);
        assert!(lru.insert("a", 1, 4).is_empty());
        assert!(lru.insert("b", 2, 4).is_empty());
        assert_eq!(lru.get(&"a"), Some(1), "a is now the most recent");
        assert_eq!(lru.insert("c", 3, 4), vec![2], "b, the least recently used, goes");
        assert_eq!(lru.held, 8);
        assert_eq!(lru.insert("d", 4, 20), vec![1, 3], "one too big for the cache stays alone");
        assert_eq!(lru.remove(&"d"), Some(4));
        assert_eq!(lru.held, 0);
    }
}
