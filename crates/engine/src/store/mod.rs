//! The SQLite cache: schema and migrations, the threads that own connections, the queries, and the lock that
//! keeps one reader per database.
//!
//! One thread owns the write connection ([`DbThread`] opened with [`open_write`]); everything that writes sends
//! it a closure. The UI reads through its own connection on its own thread. WAL mode keeps readers from
//! blocking on the writer. This module is one of the two that do I/O (with `fetch`).
//!
//! Several processes may share a database: one reader (the TUI, which holds [`ReaderLock`]) and any number of
//! headless commands. Every write transaction starts with `BEGIN IMMEDIATE`, so it takes SQLite's write lock
//! before it reads anything and can never fail half-way because another process wrote in between; a
//! process that finds the lock taken waits its turn (the busy timeout) instead of failing with "database is
//! locked". Read-only commands open the file read-only ([`open_existing_read_only`]) and never create or
//! migrate it.

/// The id a new entry takes: past the largest in the table and past every id ever deleted (schema step 19), so
/// an id is never given to a second entry and every cursor over ids (`tidings list --after`, the notified mark)
/// stays true. A macro, so each `INSERT INTO entries` spells it inside its one SQL literal (`concat!`).
macro_rules! next_entry_id {
    () => {
        concat!(newest_entry_id!(), " + 1")
    };
}

/// The newest entry's id: the largest stored or ever deleted. Entries are stored one writer at a time, so every
/// entry with a larger id was stored after it (the `new_entries` hooks take those).
macro_rules! newest_entry_id {
    () => {
        "max((SELECT coalesce(max(id), 0) FROM entries), (SELECT id FROM entries_high_water))"
    };
}

pub mod accounts;
mod apply;
pub mod articles;
mod carried;
pub mod changes;
pub mod downloads;
pub mod entries;
pub mod feeds;
pub mod fetches;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod folders;
pub mod health;
mod holders;
pub mod hooks;
mod identity;
pub mod lists;
mod lock;
mod open;
pub(crate) mod places;
pub mod preferences;
pub mod private;
pub mod purge;
pub mod query;
mod schema;
pub use holders::holders;
pub mod search;
mod threads;

pub use apply::{apply, apply_with_progress};
pub use lock::ReaderLock;
pub use open::{open_existing_read_only, open_read, open_write};
pub use schema::SCHEMA_VERSION;
pub(crate) use threads::lower_this_threads_priority;
pub use threads::{DbThread, checkpoint, checkpoint_after_any_running};

use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a connection waits for another process's write transaction before giving up. Long enough for an
/// import of 100,000 subscriptions in one transaction; a refresh writes one feed at a time, in milliseconds.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database {path}: {source}")]
    Open { path: PathBuf, source: rusqlite::Error },
    #[error("cannot create the folder for the database {path}: {source}")]
    CreateDir { path: PathBuf, source: std::io::Error },
    #[error(
        "database {path} was written by a newer tidings (schema version {found}, this one knows up to {supported}); \
         upgrade tidings or use another file with --db. The file was left untouched."
    )]
    TooNew { path: PathBuf, found: i64, supported: i64 },
    #[error("database {path} is not a tidings database: {reason}")]
    Foreign { path: PathBuf, reason: String },
    #[error(
        "there is no database at {path} yet: subscribe to feeds first (`tidings import FILE.opml` or \
         `tidings add URL`), or name another database with --db FILE"
    )]
    Missing { path: PathBuf },
    #[error(
        "database {path} has an older schema (version {found}; this tidings writes {supported}); \
         run `tidings refresh` or open the reader once to upgrade it"
    )]
    Outdated { path: PathBuf, found: i64, supported: i64 },
    #[error(
        "another tidings reader{} has the database {path} open; switch to it or quit it, or open another \
         database with --db FILE (headless commands such as refresh, add and export work alongside it)",
        .pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
    )]
    ReaderRunning { path: PathBuf, pid: Option<u32> },
    #[error("cannot read the database {path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("cannot lock {path}: {source}")]
    Lock { path: PathBuf, source: std::io::Error },
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("the database thread has stopped")]
    Closed,
    #[error("{0}")]
    Conflict(String),
    /// A search or list query that means nothing; the message says what to type instead.
    #[error("{0}")]
    Query(#[from] crate::search::QueryError),
    /// A query of the query language that does not parse (the message names the column).
    #[error("{0}")]
    Rule(String),
}

impl StoreError {
    /// SQLite's code for what went wrong, when SQLite said it.
    fn sqlite_code(&self) -> Option<rusqlite::ErrorCode> {
        match self {
            StoreError::Open { source: rusqlite::Error::SqliteFailure(f, _), .. }
            | StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => Some(f.code),
            _ => None,
        }
    }

    /// The same write may work later: another process held the database past the busy timeout, the disk was
    /// full, the file could not be written for now. Such a write is kept and tried again, not dropped.
    pub fn may_work_later(&self) -> bool {
        use rusqlite::ErrorCode::*;
        matches!(self, StoreError::Sqlite(_))
            && matches!(
                self.sqlite_code(),
                Some(
                    DatabaseBusy
                        | DatabaseLocked
                        | DiskFull
                        | SystemIoFailure
                        | ReadOnly
                        | CannotOpen
                        | PermissionDenied
                )
            )
    }

    /// The database could not be written, though it may still be read: this process may only read it, or the
    /// disk is full.
    pub fn cannot_write(&self) -> bool {
        use rusqlite::ErrorCode::*;
        matches!(self.sqlite_code(), Some(ReadOnly | CannotOpen | PermissionDenied | DiskFull | SystemIoFailure))
    }
}

/// Caps on what one entry may store, so a hostile feed cannot fill the disk.
pub const MAX_TITLE_BYTES: usize = 2 * 1024;
pub const MAX_CONTENT_BYTES: usize = 1024 * 1024;

/// A JSON list stored in a column; an unreadable one reads as empty.
pub(crate) fn json_list<T: serde::de::DeserializeOwned>(column: Option<String>) -> Vec<T> {
    column.and_then(|c| serde_json::from_str(&c).ok()).unwrap_or_default()
}

/// Reads row ids as their types: `r.id(0)?` for a `FeedId` column.
pub(crate) trait RowIds {
    fn id<T: From<i64>>(&self, column: usize) -> rusqlite::Result<T>;
    fn optional_id<T: From<i64>>(&self, column: usize) -> rusqlite::Result<Option<T>>;
}

impl RowIds for rusqlite::Row<'_> {
    fn id<T: From<i64>>(&self, column: usize) -> rusqlite::Result<T> {
        self.get::<_, i64>(column).map(T::from)
    }

    fn optional_id<T: From<i64>>(&self, column: usize) -> rusqlite::Result<Option<T>> {
        Ok(self.get::<_, Option<i64>>(column)?.map(T::from))
    }
}

fn classify(path: &Path, e: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e
        && f.code == rusqlite::ErrorCode::NotADatabase
    {
        return StoreError::Foreign { path: path.to_path_buf(), reason: "it is not an SQLite file".into() };
    }
    StoreError::Open { path: path.to_path_buf(), source: e }
}

/// Runs `f` again while SQLite answers that the database is busy without having waited itself (a lock it will
/// not wait for, lest it deadlock, or a checkpoint while another runs), for `at_most`.
fn while_busy<T>(at_most: Duration, mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let started = std::time::Instant::now();
    loop {
        match f() {
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) && started.elapsed() < at_most =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            done => return done,
        }
    }
}
