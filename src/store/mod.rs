//! The SQLite cache: schema and migrations, the threads that own connections, and the queries.
//!
//! One thread owns the write connection ([`DbThread`] opened with [`open_write`]); everything that writes sends
//! it a closure. The UI reads through its own connection on its own thread. WAL mode keeps readers from
//! blocking on the writer. This module is one of the two that do I/O (with `fetch`).

pub mod read;
pub mod write;

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

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
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("the database thread has stopped")]
    Closed,
    #[error("{0}")]
    Conflict(String),
}

/// Each step moves the schema one version up; `PRAGMA user_version` is the number of steps applied.
const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    "CREATE TABLE folders (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        position INTEGER NOT NULL DEFAULT 0,
        collapsed INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE feeds (
        id INTEGER PRIMARY KEY,
        url TEXT NOT NULL UNIQUE,
        title TEXT,
        custom_title TEXT,
        site_url TEXT,
        folder_id INTEGER REFERENCES folders(id) ON DELETE SET NULL,
        position INTEGER NOT NULL DEFAULT 0,
        etag TEXT,
        last_modified TEXT,
        last_status INTEGER,
        last_error TEXT,
        error_kind TEXT,
        failures INTEGER NOT NULL DEFAULT 0,
        retry_after INTEGER,
        last_fetched_at INTEGER,
        last_success_at INTEGER,
        encoding_decision TEXT,
        encoding_override TEXT,
        added_at INTEGER NOT NULL
    );
    CREATE INDEX feeds_by_folder ON feeds(folder_id);
    CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        title TEXT,
        link TEXT,
        author TEXT,
        published_at INTEGER,
        updated_at INTEGER,
        content_html TEXT,
        summary_html TEXT,
        read INTEGER NOT NULL DEFAULT 0,
        starred INTEGER NOT NULL DEFAULT 0,
        first_seen_at INTEGER NOT NULL,
        sort_at INTEGER NOT NULL,
        UNIQUE (feed_id, key)
    );
    CREATE INDEX entries_by_feed_date ON entries(feed_id, sort_at DESC, id DESC);
    CREATE INDEX entries_unread_by_feed ON entries(feed_id) WHERE read = 0;",
    // 2: what entries carry besides their text, and what reading a feed had to repair.
    "ALTER TABLE entries ADD COLUMN categories TEXT;
    ALTER TABLE entries ADD COLUMN enclosures TEXT;
    ALTER TABLE entries ADD COLUMN comments TEXT;
    ALTER TABLE entries ADD COLUMN thumbnail TEXT;
        ALTER TABLE feeds ADD COLUMN parse_warnings TEXT;",
    // 3: politeness: feeds that are gone, and how often a feed asks to be fetched.
    "ALTER TABLE feeds ADD COLUMN dead INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE feeds ADD COLUMN refresh_every_secs INTEGER;",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Opens (creating it and its folder if needed) the database for writing, and brings its schema up to date.
/// A database from a newer tidings is refused before anything is written to it.
pub fn open_write(path: &Path) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir { path: path.to_path_buf(), source })?;
    }
    let open_err = |source| StoreError::Open { path: path.to_path_buf(), source };
    let mut conn = Connection::open(path).map_err(open_err)?;
    // Read-only checks first: a newer or foreign file must be left exactly as it was.
    let found: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(|e| classify(path, e))?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    if found == 0 {
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))
            .map_err(|e| classify(path, e))?;
        if tables > 0 {
            return Err(StoreError::Foreign {
                path: path.to_path_buf(),
                reason: "it already holds tables but no tidings schema version".into(),
            });
        }
    }
    conn.pragma_update(None, "journal_mode", "WAL").map_err(open_err)?;
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(open_err)?;
    conn.pragma_update(None, "foreign_keys", "ON").map_err(open_err)?;
    conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(open_err)?;
    for (i, step) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let tx = conn.transaction().map_err(open_err)?;
        tx.execute_batch(step).map_err(open_err)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64).map_err(open_err)?;
        tx.commit().map_err(open_err)?;
    }
    Ok(conn)
}

/// Opens a read-only connection to a database that [`open_write`] has already set up.
pub fn open_read(path: &Path) -> Result<Connection, StoreError> {
    let open_err = |source| StoreError::Open { path: path.to_path_buf(), source };
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(open_err)?;
    conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(open_err)?;
    let found: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(|e| classify(path, e))?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    Ok(conn)
}

fn classify(path: &Path, e: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e
        && f.code == rusqlite::ErrorCode::NotADatabase
    {
        return StoreError::Foreign { path: path.to_path_buf(), reason: "it is not an SQLite file".into() };
    }
    StoreError::Open { path: path.to_path_buf(), source: e }
}

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// A thread that owns one connection and runs the closures sent to it, in order. The write connection lives in
/// one of these (the single writer); the reader's connection in another.
#[derive(Clone)]
pub struct DbThread {
    tx: mpsc::Sender<Job>,
}

impl DbThread {
    pub fn spawn(name: &str, mut conn: Connection) -> DbThread {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                for job in rx {
                    job(&mut conn);
                }
                // Last one out: let SQLite refresh its statistics for the query planner.
                let _ = conn.execute_batch("PRAGMA optimize;");
            })
            .expect("spawning a database thread");
        DbThread { tx }
    }

    /// Runs `f` on the connection's thread and waits for its result without blocking the async runtime.
    pub async fn call<R, F>(&self, f: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.tx
            .send(Box::new(move |conn| {
                let _ = reply.send(f(conn));
            }))
            .map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// Runs `f` on the connection's thread without waiting; the closure reports its own outcome.
    pub fn submit<F>(&self, f: F)
    where
        F: FnOnce(&mut Connection) + Send + 'static,
    {
        let _ = self.tx.send(Box::new(f));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_gets_the_current_schema_in_wal_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/tidings.db");
        let conn = open_write(&path).unwrap();
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
        let fk: i64 = conn.pragma_query_value(None, "foreign_keys", |r| r.get(0)).unwrap();
        assert_eq!(fk, 1);
        drop(conn);
        // Opening again migrates nothing and keeps the version.
        let again = open_write(&path).unwrap();
        let version: i64 = again.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }

    #[test]
    fn a_newer_schema_is_refused_and_the_file_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("future.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("CREATE TABLE t(x); PRAGMA user_version = 999;").unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let err = open_write(&path).unwrap_err();
        assert!(matches!(err, StoreError::TooNew { found: 999, .. }), "{err}");
        assert!(err.to_string().contains("newer tidings"));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(!dir.path().join("future.db-wal").exists());
    }

    #[test]
    fn a_foreign_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "this is not a database, just some text that is long enough to be a header......")
            .unwrap();
        let err = open_write(&path).unwrap_err();
        assert!(matches!(err, StoreError::Foreign { .. }), "{err}");
    }

    #[tokio::test]
    async fn db_thread_runs_closures_in_order_and_returns_results() {
        let dir = tempfile::tempdir().unwrap();
        let db = DbThread::spawn("test-writer", open_write(&dir.path().join("t.db")).unwrap());
        db.submit(|c| {
            c.execute("INSERT INTO folders(name) VALUES ('a')", []).unwrap();
        });
        let n =
            db.call(|c| Ok(c.query_row("SELECT count(*) FROM folders", [], |r| r.get::<_, i64>(0))?)).await.unwrap();
        assert_eq!(n, 1);
    }
}
