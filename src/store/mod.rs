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

pub mod articles;
#[cfg(test)]
mod fixtures;
pub mod folders;
pub mod lists;
pub mod purge;
pub mod read;
pub mod search;
pub mod write;

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
    #[error("cannot lock {path}: {source}")]
    Lock { path: PathBuf, source: std::io::Error },
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("the database thread has stopped")]
    Closed,
    #[error("{0}")]
    Conflict(String),
}

/// Each step moves the schema one version up; `PRAGMA user_version` is the number of steps applied.
const MIGRATIONS: &[Step] = &[
    // 1: the first schema.
    Step::Sql(
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
    ),
    // 2: what entries carry besides their text, and what reading a feed had to repair.
    Step::Sql(
        "ALTER TABLE entries ADD COLUMN categories TEXT;
    ALTER TABLE entries ADD COLUMN enclosures TEXT;
    ALTER TABLE entries ADD COLUMN comments TEXT;
    ALTER TABLE entries ADD COLUMN thumbnail TEXT;
        ALTER TABLE feeds ADD COLUMN parse_warnings TEXT;",
    ),
    // 3: politeness: feeds that are gone, and how often a feed asks to be fetched.
    Step::Sql(
        "ALTER TABLE feeds ADD COLUMN dead INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE feeds ADD COLUMN refresh_every_secs INTEGER;",
    ),
    // 4: an instant is named `_at` (it was `retry_after`, which reads as a duration).
    Step::Sql("ALTER TABLE feeds RENAME COLUMN retry_after TO retry_at;"),
    // 5: search, lists of any size, remembered list settings, nested folders, and retention.
    // Full-text search (see `search`): a contentless FTS5 table keyed by entry id. Entries start unindexed and
    // the writer's `index_pending` pass indexes them after a refresh; a change to what is indexed (the
    // entry's text, its feed's name) marks them again; deleting an entry (purge, feed deleted) deletes its row.
    Step::Sql(
        "ALTER TABLE entries ADD COLUMN search_indexed INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX entries_unindexed ON entries(id) WHERE search_indexed = 0;
    CREATE VIRTUAL TABLE entry_search USING fts5(title, author, feed, body, content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2');
    CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN
        DELETE FROM entry_search WHERE rowid = old.id;
    END;
    CREATE TRIGGER entries_search_changed AFTER UPDATE OF title, author, content_html, summary_html ON entries
    WHEN old.search_indexed = 1 BEGIN
        UPDATE entries SET search_indexed = 0 WHERE id = new.id;
    END;
    CREATE TRIGGER feeds_search_renamed AFTER UPDATE OF title, custom_title, url ON feeds
    WHEN coalesce(new.custom_title, new.title, new.url) IS NOT coalesce(old.custom_title, old.title, old.url) BEGIN
        UPDATE entries SET search_indexed = 0 WHERE feed_id = new.id AND search_indexed = 1;
    END;
    -- Lists of any size (see `lists`): one covering index per order, so a 400,000-entry list is read from
    -- the index alone; and one by id, so the entries a search found are put in order without reading rows.
    -- Read and starred flags are in none of them but the partial ones, so that marking 400,000 entries read
    -- touches two small indexes, not six wide ones.
    DROP INDEX entries_by_feed_date;
    CREATE INDEX entries_by_feed_date ON entries(feed_id, sort_at DESC, id DESC, first_seen_at);
    CREATE INDEX entries_by_date ON entries(sort_at, id, feed_id);
    CREATE INDEX entries_unread_by_date ON entries(sort_at, id, feed_id) WHERE read = 0;
    CREATE INDEX entries_starred_by_date ON entries(sort_at, id, feed_id) WHERE starred = 1;
    CREATE INDEX entries_by_title ON entries(title COLLATE NOCASE, sort_at DESC, id DESC, feed_id);
    CREATE INDEX entries_by_id ON entries(id, sort_at, feed_id);
    CREATE TABLE list_settings (
        list TEXT PRIMARY KEY,
        sort TEXT NOT NULL,
        unread_only INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TRIGGER feeds_forget_list_settings AFTER DELETE ON feeds BEGIN
        DELETE FROM list_settings WHERE list = 'feed:' || old.id;
    END;
    CREATE TRIGGER folders_forget_list_settings AFTER DELETE ON folders BEGIN
        DELETE FROM list_settings WHERE list = 'folder:' || old.id;
    END;
    ALTER TABLE folders ADD COLUMN parent_id INTEGER REFERENCES folders(id) ON DELETE CASCADE;
    CREATE INDEX folders_by_parent ON folders(parent_id);
    -- Retention (see `purge`): the keys of purged entries that their feed still lists, so that the next
    -- refresh does not bring them back as new.
    CREATE TABLE purged_entries (
        feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        seen_at INTEGER NOT NULL,
        PRIMARY KEY (feed_id, key)
    ) WITHOUT ROWID;",
    ),
    // 6: full articles: the page behind an entry's link, extracted (or why it could not be), and the feeds whose
    // new entries are fetched in full on refresh (feeds that send only snippets).
    Step::Sql(
        "ALTER TABLE entries ADD COLUMN full_html TEXT;
    ALTER TABLE entries ADD COLUMN full_error TEXT;
    ALTER TABLE entries ADD COLUMN full_fetched_at INTEGER;
    ALTER TABLE feeds ADD COLUMN full_text INTEGER NOT NULL DEFAULT 0;
    -- A full article is searched like the entry's own text: storing one marks the entry for indexing again.
    DROP TRIGGER entries_search_changed;
    CREATE TRIGGER entries_search_changed AFTER UPDATE OF title, author, content_html, summary_html, full_html
    ON entries WHEN old.search_indexed = 1 BEGIN
        UPDATE entries SET search_indexed = 0 WHERE id = new.id;
    END;",
    ),
    // 7: folders as a tree: a name is unique among its siblings only ("Tech/News" and "World/News"), so the
    // table is rebuilt without its old UNIQUE(name); names that were paths ("Tech/Rust") become nested folders.
    Step::Sql(
        "CREATE TABLE folders_tree (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            parent_id INTEGER REFERENCES folders(id) ON DELETE CASCADE,
            position INTEGER NOT NULL DEFAULT 0,
            collapsed INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO folders_tree (id, name, parent_id, position, collapsed)
            SELECT id, name, parent_id, position, collapsed FROM folders;
        DROP TABLE folders;
        ALTER TABLE folders_tree RENAME TO folders;
        CREATE INDEX folders_by_parent ON folders(parent_id);
        CREATE TRIGGER folders_forget_list_settings AFTER DELETE ON folders BEGIN
            DELETE FROM list_settings WHERE list = 'folder:' || old.id;
        END;",
    ),
    Step::Code(folders::migrate_paths_to_tree),
];

/// One step of the schema: SQL, or code for what SQL alone cannot say.
enum Step {
    Sql(&'static str),
    Code(fn(&Connection) -> rusqlite::Result<()>),
}

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Opens (creating it and its folder if needed) the database for writing, and brings its schema up to date.
/// A database from a newer tidings is refused before anything is written to it. Transactions on the returned
/// connection begin `IMMEDIATE`, and it waits up to [`BUSY_TIMEOUT`] for other processes' writes.
pub fn open_write(path: &Path) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir { path: path.to_path_buf(), source })?;
    }
    let open_err = |e| classify(path, e);
    let mut conn = Connection::open(path).map_err(open_err)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
    conn.set_transaction_behavior(TransactionBehavior::Immediate);
    // Read-only checks first: a newer or foreign file must be left exactly as it was.
    check_schema(&conn, path, true)?;
    conn.pragma_update(None, "journal_mode", "WAL").map_err(open_err)?;
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(open_err)?;
    // A refresh writes thousands of rows per transaction: statement journals in memory rather than in temp
    // files (a write system call per page), and a page cache that holds a feed's transaction without spilling
    // it into the WAL halfway (8 MB at most, used only as it fills).
    conn.pragma_update(None, "temp_store", "MEMORY").map_err(open_err)?;
    conn.pragma_update(None, "cache_size", -8_192).map_err(open_err)?;
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
pub fn open_existing_read_only(path: &Path) -> Result<Connection, StoreError> {
    if !path.exists() {
        return Err(StoreError::Missing { path: path.to_path_buf() });
    }
    let conn = read_only(path)?;
    check_schema(&conn, path, false)?;
    Ok(conn)
}

fn read_only(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| classify(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| classify(path, e))?;
    Ok(conn)
}

/// Refuses a database written by a newer tidings, or by something else. With `migrating`, an older (or new,
/// empty) database is fine, since the caller brings it up to date; without, it must be current.
fn check_schema(conn: &Connection, path: &Path, migrating: bool) -> Result<(), StoreError> {
    // One statement, so both come from one snapshot: another process may be creating the schema right now.
    let (found, tables): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT user_version FROM pragma_user_version),
                    (SELECT count(*) FROM sqlite_master WHERE type = 'table')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| classify(path, e))?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    if found == 0 {
        if tables > 0 {
            return Err(StoreError::Foreign {
                path: path.to_path_buf(),
                reason: "it already holds tables but no tidings schema version".into(),
            });
        }
        if !migrating {
            return Err(StoreError::Missing { path: path.to_path_buf() });
        }
    }
    if found < SCHEMA_VERSION && !migrating {
        return Err(StoreError::Outdated { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    Ok(())
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
                    std::thread::sleep(std::time::Duration::from_millis(4));
                }
                Err(StoreError::ReaderRunning { path: db.to_path_buf(), pid })
            }
            Err(std::fs::TryLockError::Error(source)) => Err(lock_err(source)),
        }
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
        let thread = DbThread::spawn("tidings-writer", conn);
        thread.submit(|_| lower_this_threads_priority());
        thread
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
