//! The pictures kept on disk between sessions: one file per address in the cache directory (XDG's
//! `~/.cache/tidings/pictures` on Linux), its first line the address it holds (so two addresses that hash alike
//! never mix), then the bytes as the server sent them. Bounded: past the size allowed, the files written or
//! read longest ago go first. What the user reads is theirs: the folder is 0700 and each file 0600, whatever the
//! umask ([`crate::store::private`]). Blocking file I/O: called from blocking threads only.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bytes the cache may hold by default.
pub const DEFAULT_MAX_BYTES: u64 = 100 * 1024 * 1024;

pub struct DiskCache {
    dir: PathBuf,
    max_bytes: u64,
    /// Bytes in the cache, once counted (the directory is read the first time a picture is stored).
    total: Mutex<Option<u64>>,
}

impl DiskCache {
    pub fn new(dir: PathBuf, max_bytes: u64) -> DiskCache {
        DiskCache { dir, max_bytes, total: Mutex::new(None) }
    }

    /// The directory (for messages and tests).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, url: &str) -> PathBuf {
        self.dir.join(format!("{:016x}", fnv1a(url.as_bytes())))
    }

    /// The bytes kept for `url`, if any (and the file is marked as used now, so it is not the next to go).
    pub fn get(&self, url: &str) -> Option<Vec<u8>> {
        let path = self.path(url);
        let data = std::fs::read(&path).ok()?;
        let newline = data.iter().position(|b| *b == b'\n')?;
        if &data[..newline] != url.as_bytes() {
            return None;
        }
        if let Ok(file) = std::fs::File::options().append(true).open(&path) {
            let _ = file.set_modified(std::time::SystemTime::now());
        }
        Some(data[newline + 1..].to_vec())
    }

    /// Keeps `bytes` for `url`, then lets the oldest files go while the cache is over its size. Failures are
    /// only logged: the cache is a help, not a duty.
    pub fn put(&self, url: &str, bytes: &[u8]) {
        if bytes.len() as u64 + url.len() as u64 + 1 > self.max_bytes / 4 {
            return;
        }
        if let Err(e) = self.write(url, bytes) {
            tracing::debug!("cannot keep a picture in {}: {e}", self.dir.display());
            return;
        }
        let mut total = self.total.lock().unwrap_or_else(|e| e.into_inner());
        let counted = match *total {
            Some(t) => t + bytes.len() as u64 + url.len() as u64 + 1,
            None => self.files().iter().map(|f| f.1).sum(),
        };
        *total = Some(if counted > self.max_bytes { self.evict(self.max_bytes / 10 * 9) } else { counted });
    }

    fn write(&self, url: &str, bytes: &[u8]) -> std::io::Result<()> {
        crate::store::private::create_dir(&self.dir)?;
        let path = self.path(url);
        let temporary = path.with_extension(format!("part{}", std::process::id()));
        let mut file = crate::store::private::options().write(true).create(true).truncate(true).open(&temporary)?;
        file.write_all(url.as_bytes())?;
        file.write_all(b"\n")?;
        file.write_all(bytes)?;
        drop(file);
        std::fs::rename(&temporary, &path)
    }

    /// Every file of the cache: path, size, last use.
    fn files(&self) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
        let Ok(dir) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        dir.flatten()
            .filter_map(|entry| {
                let meta = entry.metadata().ok()?;
                meta.is_file().then(|| (entry.path(), meta.len(), meta.modified().unwrap_or(std::time::UNIX_EPOCH)))
            })
            .collect()
    }

    /// Deletes the files used longest ago until the cache holds at most `target` bytes; returns what it holds.
    fn evict(&self, target: u64) -> u64 {
        let mut files = self.files();
        files.sort_by_key(|f| f.2);
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        for (path, size, _) in files {
            if total <= target {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= size;
            }
        }
        total
    }
}

/// FNV-1a, 64 bits: a file name for an address that stays the same across versions of Rust.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_come_back_for_their_address_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path().join("pictures"), 1024 * 1024);
        cache.put("http://a.example/1.png", b"one");
        assert_eq!(cache.get("http://a.example/1.png").as_deref(), Some(&b"one"[..]));
        assert_eq!(cache.get("http://a.example/2.png"), None);
    }

    #[test]
    fn past_its_size_the_oldest_pictures_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path().to_path_buf(), 10_000);
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for i in 0..4 {
            cache.put(&format!("http://a.example/{i}"), &[b'x'; 2000]);
            // Each file older than the next, without waiting for the clock.
            let path = cache.path(&format!("http://a.example/{i}"));
            let file = std::fs::File::options().append(true).open(path).unwrap();
            file.set_modified(old + std::time::Duration::from_secs(i)).unwrap();
        }
        cache.put("http://a.example/new", &[b'y'; 2000]);
        assert_eq!(cache.get("http://a.example/0"), None, "the oldest went");
        assert!(cache.get("http://a.example/new").is_some() && cache.get("http://a.example/3").is_some());
        let held: u64 = cache.files().iter().map(|f| f.1).sum();
        assert!(held <= 10_000, "{held} bytes held");
    }
}
