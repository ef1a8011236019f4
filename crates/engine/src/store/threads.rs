//! The threads that own connections: [`DbThread`], which runs the closures sent to it in order (the single
//! writer lives in one, the reader's connection in another), and the thread beside the writer that checkpoints its
//! write-ahead log. What the closures do is the other modules' business; opening the connection is
//! [`super::open`]'s.

use super::{BUSY_TIMEOUT, StoreError, while_busy};
use rusqlite::Connection;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

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
    crate::os::nice_this_thread();
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
            // Its connection is opened at the first nudge: most processes' logs never grow that long (a command, a
            // refresh of feeds that did not change), and they need not read the database's schema once more.
            let mut checkpointer = None;
            while nudged.recv().is_ok() {
                if checkpointer.is_none() {
                    // Background work, like the writer's: the reader's terminal loop comes first.
                    lower_this_threads_priority();
                    checkpointer = checkpointer_for(&path);
                }
                // No connection to a database in WAL mode: the writer checkpoints itself from now on (the hook).
                let Some(conn) = &checkpointer else { return };
                if let Err(e) = checkpoint(conn) {
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

/// A connection of its own to the database at `path` for the thread beside the writer, if the database is in WAL
/// mode (a connection knows the log only once it has read the database).
fn checkpointer_for(path: &std::path::Path) -> Option<Connection> {
    let checkpointer = Connection::open(path).ok()?;
    let _ = checkpointer.busy_timeout(BUSY_TIMEOUT);
    let mode = checkpointer.pragma_query_value(None, "journal_mode", |r| r.get::<_, String>(0));
    mode.is_ok_and(|m| m.eq_ignore_ascii_case("wal")).then_some(checkpointer)
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

/// How long each of the writer's last statements (its statistics, its checkpoint) waits for another process's
/// write or read before it gives up (the busy timeout is otherwise two minutes). Another process's write waits
/// as long for the checkpoint, at most.
const CLOSING_WAIT: Duration = Duration::from_millis(200);

/// Closes the writer's connection: statistics for the query planner refreshed, the thread beside it stopped (its
/// connection closed), and the log copied into the database and emptied. Unless another process is writing, or
/// reading an older state of the database, the next process to open it then has no log to read back and check:
/// after a cold refresh of 1000 feeds the log held 17 MB, and every `tidings unread` after it took 21 ms instead
/// of 14 (until a writer closed).
fn close_writer(mut conn: Connection, beside: Option<std::thread::JoinHandle<()>>) {
    // First: a process that ends must not wait two minutes for another one's transaction.
    let _ = conn.busy_timeout(CLOSING_WAIT);
    let _ = conn.execute_batch("PRAGMA optimize;");
    // The hook holds the nudge of the thread beside: once it is gone, that thread ends.
    let unhooked = conn.wal_hook(None::<fn(&mut rusqlite::hooks::Wal, std::ffi::c_int) -> rusqlite::Result<()>>);
    if let (Ok(()), Some(thread)) = (unhooked, beside) {
        let _ = thread.join();
    }
    if let Err(e) = conn.wal_checkpoint_v2(Some(rusqlite::MAIN_DB), rusqlite::wal::CheckpointMode::TRUNCATE) {
        tracing::debug!("the log is left for the last connection to empty: {e}");
    }
}

/// A thread that owns one connection and runs the closures sent to it, in order. The write connection lives in
/// one of these (the single writer); the reader's connection in another. The thread ends once every handle to it
/// is dropped and the closures sent before have run; the thread that drops the writer's last handle waits for
/// that (see [`Ending`]).
#[derive(Clone)]
pub struct DbThread {
    // Declared first, so dropped first: the last handle's sender is gone before its `ending` waits for the thread.
    tx: mpsc::Sender<Job>,
    ending: Option<Arc<Ending>>,
}

/// The writer's thread, waited for by the thread that drops the last handle to the writer: every write sent
/// before then is done, and the connection is closed with its log emptied ([`close_writer`]), before that thread
/// goes on. A command drops its session, and with it the last handle, before it exits, which would otherwise
/// cut the writes still queued and leave the log behind for the next process to read back. Not waited for from
/// the writer's own thread (a job that held the last handle), and not always where a runtime's tasks are dropped
/// in the background: the reader's, which waits for the user's changes before it quits (`app::saving`) and for
/// nothing else, so that the shell gets its prompt back at once.
struct Ending(Option<std::thread::JoinHandle<()>>);

impl Drop for Ending {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take()
            && thread.thread().id() != std::thread::current().id()
        {
            let _ = thread.join();
        }
    }
}

impl DbThread {
    pub fn spawn(name: &str, conn: Connection) -> DbThread {
        DbThread::spawn_ending(name, conn, drop).0
    }

    /// A [`DbThread`] whose thread hands its connection to `end` once its last closure has run; with the thread.
    fn spawn_ending(
        name: &str,
        mut conn: Connection,
        end: impl FnOnce(Connection) + Send + 'static,
    ) -> (DbThread, std::thread::JoinHandle<()>) {
        let (tx, rx) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                for job in rx {
                    job(&mut conn);
                }
                end(conn);
            })
            .expect("spawning a database thread");
        (DbThread { tx, ending: None }, thread)
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
        let beside = checkpoint_beside(&mut conn).unwrap_or_else(|e| {
            tracing::warn!("the log is checkpointed by the writer itself: {e}");
            None
        });
        let (mut writer, thread) = DbThread::spawn_ending("tidings-writer", conn, |conn| close_writer(conn, beside));
        writer.ending = Some(Arc::new(Ending(Some(thread))));
        writer
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
    use crate::store::{open_existing_read_only, open_write};

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
    fn the_last_handle_to_the_writer_waits_for_its_writes_and_leaves_the_log_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("closing.db");
        let writer = DbThread::spawn_writer(open_write(&path).unwrap());
        // A reader of this process keeps its connection open, as the reader's threads do: the log is emptied
        // all the same, and the process need not close every connection for the next one to find it empty.
        let reader = crate::store::open_read(&path).unwrap();
        let other = writer.clone();
        // The writer is held until the writes are queued behind it.
        let (release, held) = mpsc::channel::<()>();
        writer.submit(move |_| {
            let _ = held.recv();
        });
        for i in 0..2000 {
            writer.submit(move |c| {
                c.execute("INSERT INTO folders(name) VALUES (?1)", [format!("folder {i}")]).unwrap();
            });
        }
        drop(other);
        release.send(()).unwrap();
        drop(writer);
        let stored: i64 = reader.query_row("SELECT count(*) FROM folders", [], |r| r.get(0)).unwrap();
        assert_eq!(stored, 2000, "the writes queued before the last handle went were not all done");
        let mut log = path.into_os_string();
        log.push("-wal");
        let left = std::fs::metadata(&log).map_or(0, |m| m.len());
        assert_eq!(left, 0, "{left} bytes of log were left for the next process to read back");
    }

    #[test]
    fn the_writer_ends_without_waiting_minutes_for_another_process_holding_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("held.db");
        let writer = DbThread::spawn_writer(open_write(&path).unwrap());
        let (done, written) = mpsc::channel();
        writer.submit(move |c| {
            for i in 0..500 {
                c.execute("INSERT INTO folders(name) VALUES (?1)", [format!("folder {i}")]).unwrap();
            }
            let _ = done.send(());
        });
        written.recv().unwrap();
        // Another process's transaction, held while the writer ends: its statistics and its checkpoint would wait
        // for it as long as the busy timeout, two minutes.
        let other = Connection::open(&path).unwrap();
        other.busy_timeout(Duration::from_secs(10)).unwrap();
        other.execute_batch("BEGIN IMMEDIATE; INSERT INTO folders(name) VALUES ('elsewhere');").unwrap();
        let (ended, gone) = mpsc::channel();
        std::thread::spawn(move || {
            drop(writer);
            let _ = ended.send(());
        });
        gone.recv_timeout(Duration::from_secs(30)).expect("ending the writer waited for the other transaction");
        other.execute_batch("COMMIT").unwrap();
        let stored: i64 = other.query_row("SELECT count(*) FROM folders", [], |r| r.get(0)).unwrap();
        assert_eq!(stored, 501);
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
