//! One file over HTTP, exactly: written to `NAME.part`, resumed with `Range` and `If-Range` (the validator of
//! the answer that began the `.part` file: its ETag, else its Last-Modified date). A `206` that starts where the
//! `.part` file ends is appended; a `200` (the server ignored the range, or the file changed) starts the file
//! over; the size is checked against `Content-Length` / `Content-Range`, and the file is renamed only when whole.
//! Never a file that is short or spliced from two versions. The disk's free space is checked before writing, and
//! a disk that fills mid-file pauses the download with the reason.

use super::{DownloadEvent, DownloadObserver, Downloads, part_of};
use crate::fetch::{FetchError, FileAnswer, Resume};
use crate::store::downloads::{self as rows, Download, State};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

/// Tries of one download in a run: a connection that breaks is tried again at once from where it stopped.
const TRIES: u32 = 4;

/// How often progress is written to the store and told.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Why a download was left alone: another process holds its `.part` file.
pub(super) const ELSEWHERE: &str = "another tidings is downloading it";

/// Takes this process's lock on the `.part` file (created empty when missing, with its folder): `None` when
/// another process holds it. The kernel lets it go when the process ends, however it ends (kill -9 too).
fn lock(part: &Path) -> Result<Option<std::fs::File>, String> {
    if let Some(folder) = part.parent() {
        std::fs::create_dir_all(folder).map_err(|e| format!("cannot create the folder {}: {e}", folder.display()))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(part)
        .map_err(|e| format!("cannot write {}: {e}", part.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => {
            tracing::warn!("cannot lock {}: {e}; downloading it unlocked", part.display());
            Ok(Some(file))
        }
    }
}

/// How a try ended, short of a whole file.
enum Stop {
    /// Worth trying again now (a broken connection: the `.part` file keeps what came).
    Again(String),
    /// The end of this run for this download, in that state, and why.
    End(State, String),
}

pub(super) struct Transfer<'a> {
    downloads: &'a Downloads,
    row: Download,
    path: PathBuf,
    part: PathBuf,
    observer: &'a dyn DownloadObserver,
}

impl<'a> Transfer<'a> {
    pub(super) fn new(downloads: &'a Downloads, row: &Download, observer: &'a dyn DownloadObserver) -> Transfer<'a> {
        let path = PathBuf::from(&row.path);
        Transfer { downloads, part: part_of(&path), path, row: row.clone(), observer }
    }

    /// Downloads the file, trying again while the connection breaks: the state it ends in, and why. While it
    /// runs, this process holds a lock on the `.part` file: another process that finds it held leaves the file
    /// to its owner ([`ELSEWHERE`], the row left `downloading`), so two processes never write one file.
    pub(super) async fn run(mut self) -> (State, Option<String>) {
        let _lock = match lock(&self.part) {
            Ok(Some(file)) => file,
            Ok(None) => return (State::Downloading, Some(ELSEWHERE.into())),
            Err(why) => return (State::Failed, Some(why)),
        };
        let ended = self.tries().await;
        if ended.0 != State::Done && std::fs::metadata(&self.part).is_ok_and(|m| m.len() == 0) {
            // Nothing came: no empty `.part` file is left behind.
            let _ = std::fs::remove_file(&self.part);
        }
        ended
    }

    async fn tries(&mut self) -> (State, Option<String>) {
        let mut last = String::new();
        for _ in 0..TRIES {
            match self.try_once().await {
                Ok(()) => return (State::Done, None),
                Err(Stop::End(state, why)) => return (state, Some(why)),
                Err(Stop::Again(why)) => {
                    tracing::info!("download {}: {why}; trying again from where it stopped", self.row.id);
                    last = why;
                }
            }
        }
        (State::Failed, Some(format!("{last} ({TRIES} tries); retry to resume it")))
    }

    async fn try_once(&mut self) -> Result<(), Stop> {
        let folder = self.path.parent().map(Path::to_path_buf).unwrap_or_default();
        tokio::fs::create_dir_all(&folder)
            .await
            .map_err(|e| end(State::Failed, format!("cannot create the folder {}: {e}", folder.display())))?;
        if tokio::fs::try_exists(&self.path).await.unwrap_or(false) {
            return Err(end(
                State::Failed,
                format!("a file is already at {}: move it away, then retry", self.path.display()),
            ));
        }
        let have = tokio::fs::metadata(&self.part).await.map(|m| m.len()).unwrap_or(0);
        let validator = self.row.etag.clone().or_else(|| self.row.last_modified.clone());
        let resume = match validator {
            Some(validator) if have > 0 => Some(Resume { from: have, validator }),
            // Without a validator, the bytes kept cannot be proved to be of the file the server has now.
            _ => None,
        };
        // A file queued on its own (no feed, ever: the address a person gave) reaches as its address does. One
        // whose feed was deleted since (it was queued with the feed's name) gets no network of its own: the
        // internet only, as pictures and pages of an unknown feed — a sync server dropping a feed it placed on
        // the local network must not let that feed's files reach it.
        let feed = match (&self.row.content_of, self.row.feed_title.is_empty()) {
            (Some(of), _) => of.clone(),
            (None, true) => self.row.url.clone(),
            (None, false) => String::new(),
        };
        let fetcher = self.downloads.0.fetcher.for_files_of(&feed).await.map_err(failed)?;
        let answer = fetcher.get_file(&self.row.url, resume.as_ref()).await.map_err(failed)?;
        let (from, total) = match (answer.status, answer.content_range) {
            (206, Some((first, total))) if resume.is_some() && first == have => {
                (have, total.or(answer.content_length.map(|n| have + n)))
            }
            (206, _) => {
                // A range other than the one asked for: start over rather than splice.
                self.forget_part().await?;
                return Err(Stop::Again("the server sent another part of the file than asked for".into()));
            }
            (416, _) => {
                self.forget_part().await?;
                return Err(Stop::Again("the server has no more of the file than was kept; starting over".into()));
            }
            (200, _) => (0, answer.content_length),
            (status, _) => return Err(end(State::Failed, format!("the server sent no file (HTTP {status})"))),
        };
        if from == 0 {
            let (id, etag, modified) = (self.row.id, answer.etag.clone(), answer.last_modified.clone());
            self.row.etag = etag.clone();
            self.row.last_modified = modified.clone();
            self.store(move |c| rows::set_validators(c, id, etag.as_deref(), modified.as_deref())).await?;
        }
        if let Some(total) = total {
            check_space(&folder, total.saturating_sub(from))?;
        }
        self.write(answer, from, total).await?;
        tokio::fs::rename(&self.part, &self.path)
            .await
            .map_err(|e| end(State::Failed, format!("cannot rename {}: {e}", self.part.display())))?;
        Ok(())
    }

    /// Writes the body to the `.part` file from `from` on (0: anew), then checks its size.
    async fn write(&mut self, mut answer: FileAnswer, from: u64, total: Option<u64>) -> Result<(), Stop> {
        let mut options = tokio::fs::OpenOptions::new();
        options.create(true);
        if from == 0 {
            options.write(true).truncate(true);
        } else {
            options.append(true);
        }
        let mut file = options
            .open(&self.part)
            .await
            .map_err(|e| end(State::Failed, format!("cannot write {}: {e}", self.part.display())))?;
        let mut done = from;
        let mut told = Instant::now();
        self.progress(done, total).await?;
        loop {
            let chunk = match answer.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => {
                    let _ = file.flush().await;
                    self.progress(done, total).await?;
                    return Err(Stop::Again(broke_off(&e, done, total)));
                }
            };
            if let Some(rate) = &self.downloads.0.rate {
                rate.take(chunk.len()).await;
            }
            if total.is_some_and(|t| done + chunk.len() as u64 > t) {
                self.forget_part().await?;
                return Err(end(State::Failed, "the server sent more than the size it announced".into()));
            }
            if let Err(e) = file.write_all(&chunk).await {
                let _ = file.flush().await;
                return Err(self.write_failed(e, done, total).await);
            }
            done += chunk.len() as u64;
            if told.elapsed() >= PROGRESS_EVERY {
                told = Instant::now();
                self.progress(done, total).await?;
            }
        }
        if let Err(e) = file.flush().await.and(file.sync_all().await) {
            return Err(self.write_failed(e, done, total).await);
        }
        self.progress(done, total).await?;
        match total {
            Some(total) if done < total => {
                Err(Stop::Again(format!("the download broke off at {done} of {total} bytes")))
            }
            _ => Ok(()),
        }
    }

    /// A write that failed: a full disk pauses the download (what came is kept), anything else fails it.
    async fn write_failed(&self, e: std::io::Error, done: u64, total: Option<u64>) -> Stop {
        let _ = self.progress(done, total).await;
        if e.kind() == std::io::ErrorKind::StorageFull || e.kind() == std::io::ErrorKind::QuotaExceeded {
            let folder = self.path.parent().unwrap_or(Path::new("."));
            return end(
                State::Paused,
                format!("the disk is full ({} kept): free space on {}, then resume", bytes(done), folder.display()),
            );
        }
        end(State::Failed, format!("cannot write {}: {e}", self.part.display()))
    }

    /// Tells how far it got, and writes it down; a pause asked for meanwhile stops the transfer.
    async fn progress(&self, done: u64, total: Option<u64>) -> Result<(), Stop> {
        let id = self.row.id;
        self.observer.event(DownloadEvent::Progress { id, done, total });
        self.store(move |c| rows::set_progress(c, id, done, total)).await?;
        match self.downloads.state_of(id).await {
            Some(State::Downloading) => Ok(()),
            // Put back in the queue by a process that started meanwhile (it finds this one's lock): still ours.
            Some(State::Queued) => {
                let now = chrono::Utc::now().timestamp();
                self.store(move |c| rows::set_state(c, id, State::Downloading, None, now)).await
            }
            Some(State::Paused) => Err(end(State::Paused, "paused by you".into())),
            _ => Err(end(State::Failed, "taken out of the queue".into())),
        }
    }

    /// Empties the `.part` file (the same file, so its lock holds) and forgets the validators of what it held:
    /// the next try starts over.
    async fn forget_part(&mut self) -> Result<(), Stop> {
        let emptied = match tokio::fs::OpenOptions::new().write(true).open(&self.part).await {
            Ok(file) => file.set_len(0).await,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        };
        if let Err(e) = emptied {
            return Err(end(State::Failed, format!("cannot empty {}: {e}", self.part.display())));
        }
        self.row.etag = None;
        self.row.last_modified = None;
        let id = self.row.id;
        self.store(move |c| rows::set_validators(c, id, None, None)).await
    }

    async fn store<F>(&self, f: F) -> Result<(), Stop>
    where
        F: FnOnce(&mut rusqlite::Connection) -> Result<(), crate::store::StoreError> + Send + 'static,
    {
        self.downloads.0.writer.call(f).await.map_err(|e| end(State::Failed, format!("the database: {e}")))
    }
}

fn end(state: State, why: String) -> Stop {
    Stop::End(state, why)
}

fn failed(e: FetchError) -> Stop {
    match e {
        FetchError::Body { .. } | FetchError::Timeout { .. } => Stop::Again(e.to_string()),
        _ => end(State::Failed, e.about(crate::fetch::Subject::File)),
    }
}

fn broke_off(e: &FetchError, done: u64, total: Option<u64>) -> String {
    match total {
        Some(total) => format!("{e} at {done} of {total} bytes"),
        None => format!("{e} at {done} bytes"),
    }
}

/// Refuses a file the disk has no room for, before a byte of it is written: both numbers said.
fn check_space(folder: &Path, needed: u64) -> Result<(), Stop> {
    match crate::os::free_space(folder) {
        Ok(free) if free < needed => Err(end(
            State::Failed,
            format!(
                "not enough space: the file needs {} ({needed} bytes) and {} has {} ({free} bytes) free; free some \
                 space or set download_dir elsewhere, then retry",
                bytes(needed),
                folder.display(),
                bytes(free)
            ),
        )),
        Ok(_) => Ok(()),
        Err(e) => {
            tracing::warn!("cannot tell the free space on {}: {e}", folder.display());
            Ok(())
        }
    }
}

/// A size as people read it.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 { format!("{n} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}
