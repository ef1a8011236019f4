//! Opening a database: for writing (created with its folder, for its owner only, and brought up to the current
//! schema one step per transaction), for reading beside the writer, and read-only for a command that only reads
//! (never created nor migrated, and read as it lies on disk where SQLite cannot share it). It hands the connection
//! over: the threads that own connections are [`super::threads`]'s.

use super::schema::{MIGRATIONS, SCHEMA_VERSION, Step, check_schema};
use super::{BUSY_TIMEOUT, StoreError, classify, private, query, while_busy};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};

/// Rows of each index that gathering statistics reads, at most (`PRAGMA analysis_limit`; SQLite advises 100 to
/// 1000).
pub(super) const ANALYSIS_ROWS: i64 = 1000;

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
    // One plan per statement, whatever values are bound to it. Otherwise SQLite plans some statements by the
    // values bound (`LIMIT -1 OFFSET ?2`, `feed_id = ?1` once `PRAGMA optimize` has gathered statistics) and
    // prepares them again at every new binding: two thirds of the writer's time in a refresh where every feed
    // answered 304 went to preparing the same few statements again, feed after feed.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).map_err(open_err)?;
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
    // The writer's `PRAGMA optimize` (after a refresh, an upkeep, at closing) reads at most about this many rows of
    // each index it gathers statistics on, as SQLite advises: an estimate is all the planner needs. Reading all of
    // them took 23 ms of processor time on the 50,000 entries of a cold refresh of 1000 feeds, 2.4 ms with this.
    conn.pragma_update(None, "analysis_limit", ANALYSIS_ROWS).map_err(open_err)?;
    // Off while the schema changes (a table is rebuilt in a step), checked and on again after.
    conn.pragma_update(None, "foreign_keys", "OFF").map_err(open_err)?;
    // One step per transaction, each re-reading the version under the write lock: two processes opening a new
    // database at once do not both run a step. (An up-to-date database takes no write lock here.)
    let current = |conn: &Connection| conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0));
    // This connection made the database (it took the first step).
    let mut created = false;
    while current(&conn).map_err(open_err)? < SCHEMA_VERSION {
        let tx = conn.transaction().map_err(open_err)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(open_err)?;
        created |= version == 0;
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
            if created {
                super::purge::created(&tx, chrono::Utc::now().timestamp()).map_err(open_err)?;
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
            query::register_functions(&conn).map_err(|e| classify(path, e))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

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
    fn the_writer_plans_a_statement_once_whatever_values_are_bound_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open_write(&dir.path().join("plans.db")).unwrap();
        // Statistics, as the writer's `PRAGMA optimize` gathers them: the planner could now weigh each bound value.
        conn.execute_batch(
            "INSERT INTO feeds (id, url, added_at) VALUES (1, 'http://a.example/', 0), (2, 'http://b.example/', 0);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
             INSERT INTO fetch_attempts (feed_id, at, outcome, duration_ms) SELECT 1 + (i % 2), i, 'fetched', 1 FROM n;
             ANALYZE;",
        )
        .unwrap();
        let mut stmt = conn
            .prepare(
                "DELETE FROM fetch_attempts WHERE rowid IN (SELECT rowid FROM fetch_attempts WHERE feed_id = ?1
                     ORDER BY at DESC, rowid DESC LIMIT -1 OFFSET ?2)",
            )
            .unwrap();
        for (feed, keep) in [(1, 90), (2, 80), (1, 70)] {
            stmt.execute([feed, keep]).unwrap();
        }
        assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0);
    }

    #[test]
    fn the_writer_gathers_statistics_from_a_sample_of_each_index() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open_write(&dir.path().join("stats.db")).unwrap();
        conn.execute_batch(
            "INSERT INTO feeds (id, url, added_at) VALUES (1, 'http://a.example/', 0);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
             INSERT INTO fetch_attempts (feed_id, at, outcome, duration_ms) SELECT 1, i, 'fetched', 1 FROM n;
             ANALYZE;",
        )
        .unwrap();
        let stat: String = conn
            .query_row("SELECT stat FROM sqlite_stat1 WHERE idx = 'fetch_attempts_by_feed'", [], |r| r.get(0))
            .unwrap();
        // The rows per feed: read through, all 20,000 are one feed's; a sample of about ANALYSIS_ROWS sees as many.
        let per_feed: i64 = stat.split(' ').nth(1).unwrap().parse().unwrap();
        assert!(per_feed <= 2 * ANALYSIS_ROWS, "{stat}");
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
}
