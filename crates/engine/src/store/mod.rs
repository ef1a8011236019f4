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

pub mod accounts;
mod apply;
pub mod articles;
mod carried;
pub mod changes;
pub mod entries;
pub mod feeds;
pub mod fetches;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod folders;
mod holders;
mod identity;
pub mod lists;
mod places;
pub mod preferences;
pub mod private;
pub mod purge;
pub mod query;
mod schema;
pub use holders::holders;
pub mod search;

pub use apply::{apply, apply_with_progress};
pub use schema::SCHEMA_VERSION;
use schema::{MIGRATIONS, Step, check_schema};

use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
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

/// Opens (creating it and its folder if needed) the database for writing, for its owner only (see
/// [`private::database`]), and brings its schema up to date.
/// A database from a newer tidings is refused before anything is written to it. Transactions on the returned
/// connection begin `IMMEDIATE`, and it waits up to [`BUSY_TIMEOUT`] for other processes' writes.
pub fn open_write(path: &Path) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir { path: path.to_path_buf(), source })?;
    }
    let open_err = |e| classify(path, e);
    private::database(path);
    let mut conn = Connection::open(path).map_err(open_err)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
    query::register_functions(&conn).map_err(open_err)?;
    conn.set_transaction_behavior(TransactionBehavior::Immediate);
    // Read-only checks first: a newer or foreign file must be left exactly as it was.
    check_schema(&conn, path, true)?;
    // Switching a new database to WAL takes an exclusive lock, which SQLite refuses at once rather than wait for
    // (its busy handler would risk a deadlock) while another process upgrades the same new file: wait here.
    while_busy(BUSY_TIMEOUT, || conn.pragma_update(None, "journal_mode", "WAL")).map_err(open_err)?;
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(open_err)?;
    // Statement journals in memory rather than in temp files (a write system call per page). The page cache is
    // SQLite's default, 2 MB: a refresh's batches hold no savepoints (see `fetches::write_batch`), and a larger
    // cache made a cold refresh of 1000 feeds × 50 entries no faster, only 8 MB heavier.
    conn.pragma_update(None, "temp_store", "MEMORY").map_err(open_err)?;
    conn.pragma_update(None, "cache_size", -2_048).map_err(open_err)?;
    // The log, once checkpointed and started over, is cut back to 64 MB on disk (it would stay as large as it
    // ever grew, while a reader held it during a long refresh).
    conn.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024).map_err(open_err)?;
    // Off while the schema changes (a table is rebuilt in a step), checked and on again after.
    conn.pragma_update(None, "foreign_keys", "OFF").map_err(open_err)?;
    // One step per transaction, each re-reading the version under the write lock: two processes opening a new
    // database at once do not both run a step. (An up-to-date database takes no write lock here.)
    let current = |conn: &Connection| conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0));
    while current(&conn).map_err(open_err)? < SCHEMA_VERSION {
        let tx = conn.transaction().map_err(open_err)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(open_err)?;
        let Some(step) = usize::try_from(version).ok().and_then(|v| MIGRATIONS.get(v)) else { break };
        match step {
            Step::Sql(sql) => tx.execute_batch(sql),
            Step::Code(run) => run(&tx),
        }
        .map_err(open_err)?;
        if version + 1 == SCHEMA_VERSION {
            // Before the last step commits: a database whose upgrade broke a reference stays one step short and
            // is refused at every start, not once. Only here, since the check reads every row (0.15–0.8 s on
            // 400,000 entries) and, with foreign keys on, nothing else can break them.
            let broken: i64 =
                tx.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0)).map_err(open_err)?;
            if broken > 0 {
                return Err(StoreError::Foreign {
                    path: path.to_path_buf(),
                    reason: format!("{broken} rows point at rows that are not there after the upgrade"),
                });
            }
        }
        tx.pragma_update(None, "user_version", version + 1).map_err(open_err)?;
        tx.commit().map_err(open_err)?;
    }
    conn.pragma_update(None, "foreign_keys", "ON").map_err(open_err)?;
    Ok(conn)
}

/// Opens a read-only connection to a database that [`open_write`] has already set up (the reader's own).
pub fn open_read(path: &Path) -> Result<Connection, StoreError> {
    let conn = read_only(path)?;
    check_schema(&conn, path, true)?;
    Ok(conn)
}

/// Opens an existing database read-only for a command that only reads (`export`, `unread`): a missing file,
/// or one whose schema this tidings would have to migrate, is an error that says what to do; nothing is ever
/// created or changed.
///
/// SQLite reads a database in WAL mode through a shared-memory file beside it (`tidings.db-shm`), which it
/// creates when it is missing. Where it cannot — a folder the user may not write, a full disk — a database with
/// no unapplied log (the usual state once every tidings has closed it) is read as it lies on disk instead.
pub fn open_existing_read_only(path: &Path) -> Result<Connection, StoreError> {
    if path.is_dir() {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            reason: "it is a folder, not a file; name the database file itself with --db FILE".into(),
        });
    }
    if !path.exists() {
        return Err(StoreError::Missing { path: path.to_path_buf() });
    }
    let opened = read_only(path).and_then(|conn| check_schema(&conn, path, false).map(|()| conn));
    match opened {
        // SQLite could not make the shared-memory file.
        Err(e @ StoreError::Open { .. }) if e.cannot_write() => {
            let mut log = path.as_os_str().to_owned();
            log.push("-wal");
            let pending_log = std::fs::metadata(PathBuf::from(&log)).is_ok_and(|m| m.len() > 0);
            if pending_log {
                return Err(StoreError::Unreadable {
                    path: path.to_path_buf(),
                    reason: format!(
                        "{e}: SQLite must create {}-shm beside it to read the changes still in its log, and \
                         cannot (is the folder read-only, or the disk full?); open it once with tidings where the \
                         folder is writable, or free some space",
                        path.display()
                    ),
                });
            }
            let conn = Connection::open_with_flags(
                format!("file:{}?immutable=1", uri_path(path)),
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| classify(path, e))?;
            check_schema(&conn, path, false)?;
            Ok(conn)
        }
        other => other,
    }
}

/// A path in the form an SQLite `file:` URI takes: every byte but unreserved ones and `/` percent-encoded.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn read_only(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| classify(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| classify(path, e))?;
    query::register_functions(&conn).map_err(|e| classify(path, e))?;
    Ok(conn)
}

/// The lock that keeps one reader per database: `tidings.db.lock` beside `tidings.db`, locked (an OS file
/// lock, released when the process ends however it ends) for as long as the reader runs, holding its pid so a
/// second reader can say which process has the database. Headless commands do not take it.
#[derive(Debug)]
pub struct ReaderLock {
    _file: std::fs::File,
}

impl ReaderLock {
    /// Takes the lock, or says which process holds it.
    pub fn acquire(db: &Path) -> Result<ReaderLock, StoreError> {
        let mut name = db.as_os_str().to_owned();
        name.push(".lock");
        let path = PathBuf::from(name);
        let lock_err = |source| StoreError::Lock { path: path.clone(), source };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir { path: db.to_path_buf(), source })?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        // Others may read the holder's pid but never write the file, whatever the umask (under 000: 0666).
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
        let mut file = options.open(&path).map_err(lock_err)?;
        match file.try_lock() {
            Ok(()) => {
                // The file is never removed: a process that opened it before a removal would lock a file
                // nobody else sees. Its content is only the holder's pid.
                file.set_len(0).map_err(lock_err)?;
                file.rewind().map_err(lock_err)?;
                write!(file, "{}", std::process::id()).and_then(|()| file.flush()).map_err(lock_err)?;
                Ok(ReaderLock { _file: file })
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                // A holder that has just taken the lock may not have written its pid yet: give it a moment.
                let mut pid = None;
                for _ in 0..50 {
                    let mut holder = String::new();
                    pid = file
                        .rewind()
                        .and_then(|()| file.read_to_string(&mut holder))
                        .ok()
                        .and_then(|_| holder.trim().parse().ok());
                    if pid.is_some() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(4));
                }
                Err(StoreError::ReaderRunning { path: db.to_path_buf(), pid })
            }
            Err(std::fs::TryLockError::Error(source)) => Err(lock_err(source)),
        }
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

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// Lowers the calling thread's scheduling priority a little, once per thread (Linux applies `setpriority` to one
/// thread when given its id); elsewhere, or when refused, nothing changes. For threads that do a refresh's
/// bulk work (parsing, writing), so that the terminal loop gets a core first when both want one.
pub(crate) fn lower_this_threads_priority() {
    thread_local! {
        static LOWERED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if LOWERED.with(|done| done.replace(true)) {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on this thread's own id; a failure only leaves the priority as it was.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 5);
    }
}

/// Pages of write-ahead log (16 MB) after which the thread beside the writer checkpoints it. SQLite's own
/// default is 1000: a page that a refresh rewrites many times (an index's) is copied into the database once per
/// checkpoint, so fewer checkpoints copy less. A cold 4000 × 100 refresh took 4.6 s with 1000, 3.8–4.1 with 4000.
const CHECKPOINT_PAGES: std::ffi::c_int = 4000;

/// Has `conn`'s write-ahead log checkpointed by a thread with a connection of its own, rather than by `conn` at
/// the commit that fills it. A big refresh is bound by its one writer, which spent a tenth of its time copying
/// the log into the database; the copy now runs beside the next batch (SQLite's passive checkpoint: it never
/// holds the writer up). Once `conn` is dropped, the thread ends.
fn checkpoint_beside(conn: &mut Connection) -> Result<Option<std::thread::JoinHandle<()>>, String> {
    let Some(path) = conn.path().filter(|p| !p.is_empty()).map(PathBuf::from) else { return Ok(None) };
    let (nudge, nudged) = mpsc::sync_channel::<()>(1);
    let thread = std::thread::Builder::new()
        .name("tidings-checkpoint".into())
        .spawn(move || {
            // Background work, like the writer's: the reader's terminal loop comes first.
            lower_this_threads_priority();
            let Ok(checkpointer) = Connection::open(&path) else { return };
            let _ = checkpointer.busy_timeout(BUSY_TIMEOUT);
            // A connection knows the log only once it has read the database.
            let mode = checkpointer.pragma_query_value(None, "journal_mode", |r| r.get::<_, String>(0));
            if !mode.is_ok_and(|m| m.eq_ignore_ascii_case("wal")) {
                return;
            }
            while nudged.recv().is_ok() {
                if let Err(e) = checkpoint(&checkpointer) {
                    tracing::debug!("checkpoint: {e}");
                }
            }
        })
        .map_err(|e| format!("cannot start its thread: {e}"))?;
    // The hook replaces SQLite's automatic checkpoint on this connection; nudges while one runs are one. Should
    // the thread have given up (it could not open the database), the writer checkpoints as SQLite would have.
    conn.wal_hook(Some(move |wal: &mut rusqlite::hooks::Wal, pages: std::ffi::c_int| {
        if pages >= CHECKPOINT_PAGES
            && let Err(mpsc::TrySendError::Disconnected(())) = nudge.try_send(())
        {
            let _ = wal.checkpoint();
        }
        Ok(())
    }))
    .map_err(|e| e.to_string())?;
    Ok(Some(thread))
}

/// Copies the write-ahead log into the database and syncs it, as far as no reader holds it back (SQLite's passive
/// checkpoint, which never waits): the end of a refresh, whose writes are then in the database file itself, and
/// the next start need not read a long log.
pub fn checkpoint(conn: &Connection) -> Result<(), StoreError> {
    conn.wal_checkpoint_v2(Some(rusqlite::MAIN_DB), rusqlite::wal::CheckpointMode::PASSIVE)?;
    Ok(())
}

/// [`checkpoint`], after the one the thread beside the writer may be running (one runs at a time; a passive one
/// does not wait for another): tried again for up to a second.
pub fn checkpoint_after_any_running(conn: &Connection) -> Result<(), StoreError> {
    let passive = || conn.wal_checkpoint_v2(Some(rusqlite::MAIN_DB), rusqlite::wal::CheckpointMode::PASSIVE);
    while_busy(Duration::from_secs(1), passive)?;
    Ok(())
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

    /// The reader's writer: a [`DbThread`] whose thread yields the processor to the terminal loop when both want
    /// it (nice 5 on Linux). A refresh keeps the writer busy for seconds; on two cores the loop would otherwise
    /// wait behind it and a key would take tens of milliseconds to show. Writes still run in order, as fast
    /// as a free core allows.
    pub fn spawn_background_writer(conn: Connection) -> DbThread {
        let thread = DbThread::spawn_writer(conn);
        thread.submit(|_| lower_this_threads_priority());
        thread
    }

    /// The single writer: a [`DbThread`] whose write-ahead log is checkpointed (copied into the database) on a
    /// thread of its own, beside the writes rather than in their midst (see [`checkpoint_beside`]).
    pub fn spawn_writer(mut conn: Connection) -> DbThread {
        if let Err(e) = checkpoint_beside(&mut conn) {
            tracing::warn!("the log is checkpointed by the writer itself: {e}");
        }
        DbThread::spawn("tidings-writer", conn)
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

    #[test]
    fn read_only_opening_never_creates_or_migrates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("none.db");
        assert!(matches!(open_existing_read_only(&path), Err(StoreError::Missing { .. })));
        assert!(!path.exists(), "nothing was created");
        // An older schema is left as it was, with a word on how to upgrade it.
        {
            let conn = Connection::open(&path).unwrap();
            let Step::Sql(first) = MIGRATIONS[0] else { panic!("the first step is SQL") };
            conn.execute_batch(first).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
        }
        let err = open_existing_read_only(&path).unwrap_err();
        assert!(matches!(err, StoreError::Outdated { found: 1, .. }), "{err}");
        let conn = Connection::open(&path).unwrap();
        assert_eq!(conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0)).unwrap(), 1);
        drop(conn);
        open_write(&path).unwrap();
        let conn = open_existing_read_only(&path).unwrap();
        assert!(conn.execute("DELETE FROM feeds", []).is_err(), "the connection cannot write");
    }

    #[test]
    fn the_writers_log_is_checkpointed_by_the_thread_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.db");
        let mut writer = open_write(&path).unwrap();
        let checkpointer = checkpoint_beside(&mut writer).unwrap().expect("a file database has a checkpointer");
        // A reader keeps the log from being checkpointed when the other connections close.
        let reader = open_existing_read_only(&path).unwrap();
        let size = || std::fs::metadata(&path).unwrap().len();
        let before = size();
        writer.execute_batch("CREATE TABLE filler (x BLOB)").unwrap();
        // About 800 pages of log per commit.
        let commit = |writer: &Connection| {
            writer
                .execute(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 800)
                     INSERT INTO filler SELECT zeroblob(3000) FROM n",
                    [],
                )
                .unwrap();
        };
        // Past SQLite's own threshold (1000 pages) and short of ours: nobody checkpoints yet.
        commit(&writer);
        commit(&writer);
        assert_eq!(size(), before, "the writer checkpointed itself");
        // Past ours, before the last commit.
        for _ in 0..CHECKPOINT_PAGES / 800 {
            commit(&writer);
        }
        drop(writer);
        checkpointer.join().unwrap();
        let after = std::fs::metadata(&path).unwrap().len();
        assert!(after > before + 4_000_000, "the database file grew from {before} to {after} bytes only");
        drop(reader);
    }

    #[test]
    fn two_connections_migrating_a_new_database_do_not_collide() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("race.db");
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || open_write(&path).map(|_| ()))
            })
            .collect();
        for h in handles {
            h.join().unwrap().unwrap();
        }
        let conn = open_existing_read_only(&path).unwrap();
        assert_eq!(conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0)).unwrap(), SCHEMA_VERSION);
    }

    #[test]
    fn a_second_reader_lock_names_the_holder_and_the_lock_frees_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.db");
        let first = ReaderLock::acquire(&db).unwrap();
        let err = ReaderLock::acquire(&db).unwrap_err();
        let pid = std::process::id();
        assert!(matches!(err, StoreError::ReaderRunning { pid: Some(p), .. } if p == pid), "{err}");
        assert!(err.to_string().contains(&format!("(pid {pid})")), "{err}");
        drop(first);
        ReaderLock::acquire(&db).unwrap();
    }

    /// Told by the busy handler of [`a_write_waits_for_another_connections_transaction_instead_of_failing`]
    /// that its connection is waiting.
    static WAITING: std::sync::Mutex<Option<mpsc::Sender<()>>> = std::sync::Mutex::new(None);

    #[test]
    fn a_write_waits_for_another_connections_transaction_instead_of_failing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("busy.db");
        let mut holder = open_write(&path).unwrap();
        let mut conn = open_write(&path).unwrap();
        let tx = holder.transaction().unwrap();
        tx.execute("INSERT INTO folders(name) VALUES ('first')", []).unwrap();
        let (waiting_tx, waiting) = mpsc::channel();
        *WAITING.lock().unwrap() = Some(waiting_tx);
        let other = {
            std::thread::spawn(move || {
                // The same wait as the busy timeout's, but saying when it starts.
                conn.busy_handler(Some(|_| {
                    if let Some(tx) = WAITING.lock().unwrap().take() {
                        let _ = tx.send(());
                    }
                    std::thread::sleep(Duration::from_millis(1));
                    true
                }))?;
                // Reads first, then writes: as a deferred transaction this failed with "database is locked".
                let outcome = (|| {
                    let tx = conn.transaction()?;
                    let n: i64 = tx.query_row("SELECT count(*) FROM folders", [], |r| r.get(0))?;
                    tx.execute("INSERT INTO folders(name) VALUES (?1)", [format!("after {n}")])?;
                    tx.commit()
                })();
                // Failing without waiting also ends the wait below.
                if let Some(tx) = WAITING.lock().unwrap().take() {
                    let _ = tx.send(());
                }
                outcome
            })
        };
        waiting.recv().unwrap();
        tx.commit().unwrap();
        other.join().unwrap().unwrap();
        let names: Vec<String> = holder
            .prepare("SELECT name FROM folders ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(names, vec!["first", "after 1"], "the second transaction saw the first one's write");
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
