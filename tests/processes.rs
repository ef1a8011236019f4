//! Processes sharing one database, run as the real binary: one reader per database (a second one names the
//! first one's pid and exits), and headless commands next to a running reader, each waiting its turn: none
//! fails with "database is locked", and no write is lost.
//!
//! The reader needs a terminal; util-linux's `script` gives it a pseudo-terminal, and keys sent to `script`
//! reach it.

// What a run saw or skipped goes to standard error, beside the test harness's own lines.
#![allow(clippy::print_stderr)]

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;
use support::server::{Reply, Server};
use support::{Sandbox, opml, path_str, rss, stderr};

/// How long a test waits for a process to reach a state before it fails.
const DEADLINE: Duration = Duration::from_secs(90);

/// A reader (the TUI) running in a pseudo-terminal, its screen written to `screen`.
struct Reader {
    script: Child,
    keys: ChildStdin,
}

impl Reader {
    fn start(sandbox: &Sandbox, config: &Path, screen: &Path) -> Reader {
        Reader::start_with_umask(sandbox, config, screen, None)
    }

    /// A reader started with `umask` as its file mode mask (inherited through `script`).
    fn start_with_umask(sandbox: &Sandbox, config: &Path, screen: &Path, umask: Option<libc::mode_t>) -> Reader {
        let template = sandbox.tidings();
        let mut words = vec![template.get_program().to_string_lossy().into_owned()];
        words.extend(template.get_args().map(|a| a.to_string_lossy().into_owned()));
        words.extend(["--config".to_string(), path_str(config).to_string()]);
        let line = words.iter().map(|w| format!("'{}'", w.replace('\'', "'\\''"))).collect::<Vec<_>>().join(" ");
        // A pseudo-terminal made for a pipe has no size: give it one, so the reader draws its screen.
        let line = format!("stty cols 120 rows 40 2>/dev/null; {line}");
        let mut script = Command::new("script");
        script.args(["-qfec", &line, path_str(screen)]);
        for (key, value) in template.get_envs() {
            match value {
                Some(v) => script.env(key, v),
                None => script.env_remove(key),
            };
        }
        if let Some(mask) = umask {
            use std::os::unix::process::CommandExt;
            // SAFETY: umask is async-signal-safe and touches nothing but the child's own file mode mask.
            unsafe {
                script.pre_exec(move || {
                    libc::umask(mask);
                    Ok(())
                });
            }
        }
        let mut script =
            script.stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("run script");
        let keys = script.stdin.take().expect("script's stdin");
        Reader { script, keys }
    }

    /// Quits the reader with `q`, and returns its exit status.
    fn quit(mut self) -> std::process::ExitStatus {
        self.keys.write_all(b"q").expect("send q");
        self.keys.flush().expect("flush");
        wait_for(&mut self.script, "the reader to quit")
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        // Only when a test failed before quitting it.
        let _ = self.script.kill();
        let _ = self.script.wait();
    }
}

fn have_script() -> bool {
    Command::new("script").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Waits for `child` to exit, failing the test after [`DEADLINE`].
fn wait_for(child: &mut Child, what: &str) -> std::process::ExitStatus {
    poll(what, || child.try_wait().expect("try_wait"))
}

/// Polls `check` until it gives a value, failing the test after [`DEADLINE`].
fn poll<T>(what: &str, check: impl FnMut() -> Option<T>) -> T {
    support::poll(what, DEADLINE, check)
}

/// The pid written in the reader lock beside the database, once a reader holds it.
fn lock_holder(db: &Path) -> Option<u32> {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    std::fs::read_to_string(name).ok()?.trim().parse().ok()
}

fn config(sandbox: &Sandbox, refresh_on_startup: bool) -> std::path::PathBuf {
    sandbox.write("config.toml", format!("refresh_on_startup = {refresh_on_startup}\nrefresh_interval_minutes = 0\n"))
}

#[test]
fn of_two_readers_started_at_once_one_runs_and_the_other_names_its_pid() {
    if !have_script() {
        eprintln!("skipped: util-linux `script` is not installed, and the reader needs a terminal");
        return;
    }
    let sandbox = Sandbox::new();
    let config = config(&sandbox, false);
    let screens = [sandbox.path("screen-a"), sandbox.path("screen-b")];
    let mut readers = [Reader::start(&sandbox, &config, &screens[0]), Reader::start(&sandbox, &config, &screens[1])];
    // The one that loses exits on its own; the other keeps running.
    let (lost, status) = poll("one of the two readers to give up", || {
        readers.iter_mut().enumerate().find_map(|(i, r)| r.script.try_wait().expect("try_wait").map(|s| (i, s)))
    });
    assert_eq!(status.code(), Some(1), "the second reader exits with status 1");
    let holder = poll("the running reader's pid", || lock_holder(&sandbox.db()));
    let said = std::fs::read_to_string(&screens[lost]).unwrap_or_default();
    assert!(
        said.contains(&format!("another tidings reader (pid {holder}) has the database")),
        "the second reader names the first one's pid {holder}: {said:?}"
    );
    let command = std::fs::read_to_string(format!("/proc/{holder}/cmdline")).unwrap_or_default();
    assert!(command.contains("tidings"), "pid {holder} is the running reader: {command:?}");

    let [a, b] = readers;
    let running = if lost == 0 { b } else { a };
    assert!(running.quit().success());
    // Its lock went with it.
    tidings::store::ReaderLock::acquire(&sandbox.db()).expect("the lock is free once the reader quit");
}

#[test]
fn under_umask_000_the_readers_lock_and_log_are_not_writable_by_others() {
    use std::os::unix::fs::PermissionsExt;
    if !have_script() {
        eprintln!("skipped: util-linux `script` is not installed, and the reader needs a terminal");
        return;
    }
    let sandbox = Sandbox::new();
    let config = config(&sandbox, false);
    let reader = Reader::start_with_umask(&sandbox, &config, &sandbox.path("screen"), Some(0));
    poll("the reader to hold its lock", || lock_holder(&sandbox.db()));
    let mode = |path: &Path| std::fs::metadata(path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0o7777);
    let lock = sandbox.path("tidings.db.lock");
    let log = sandbox.path("home/.local/state/tidings/tidings.log");
    let (lock_mode, log_mode) = (mode(&lock), mode(&log));
    assert!(reader.quit().success());
    assert_eq!(lock_mode, 0o644, "the lock is created {lock_mode:o}");
    assert_eq!(log_mode, 0o600, "the log is created {log_mode:o}");
}

/// A feed of `items` entries; `version` changes every title.
fn feed(name: &str, items: usize, version: u32) -> Reply {
    let entries: Vec<(String, String, String)> = (0..items)
        .map(|i| (format!("{name}-{i}"), format!("{name} entry {i} v{version}"), format!("<p>{i}</p>")))
        .collect();
    let refs: Vec<(&str, &str, &str)> = entries.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    Reply::ok("application/rss+xml", rss(name, &refs))
}

#[test]
fn headless_commands_next_to_a_running_reader_wait_their_turn_and_lose_no_write() {
    if !have_script() {
        eprintln!("skipped: util-linux `script` is not installed, and the reader needs a terminal");
        return;
    }
    const FEEDS: usize = 30;
    let server = Server::start();
    for i in 0..FEEDS {
        server.route(&format!("/f{i}.xml"), feed(&format!("f{i}"), 10, 1));
    }
    let sandbox = Sandbox::new();
    let list: Vec<(String, String)> =
        (0..FEEDS).map(|i| (format!("F{i}"), server.url(&format!("/f{i}.xml")))).collect();
    let refs: Vec<(Option<&str>, &str, &str)> = list.iter().map(|(t, u)| (None, t.as_str(), u.as_str())).collect();
    let subs = sandbox.write("subs.opml", opml(&refs));
    let first = sandbox.tidings().arg("--opml").arg(&subs).arg("refresh").output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));

    // Marks made before: every entry of the even feeds read and starred.
    let open = || {
        let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
        conn.busy_timeout(Duration::from_secs(120)).unwrap();
        conn
    };
    let marked = open()
        .execute(
            "UPDATE entries SET read = 1, starred = 1
             WHERE feed_id IN (SELECT id FROM feeds WHERE CAST(substr(url, instr(url, '/f') + 2) AS INTEGER) % 2 = 0)",
            [],
        )
        .unwrap();
    assert_eq!(marked, FEEDS / 2 * 10);

    // The feeds change: new titles, two new entries each. The reader refreshes them as it starts.
    for i in 0..FEEDS {
        server.route(&format!("/f{i}.xml"), feed(&format!("f{i}"), 12, 2));
    }
    server.route("/extra0.xml", feed("extra0", 3, 1));
    server.route("/extra1.xml", feed("extra1", 3, 1));
    let config = config(&sandbox, true);
    let reader = Reader::start(&sandbox, &config, &sandbox.path("screen"));
    poll("the reader to take its lock", || lock_holder(&sandbox.db()));

    // At once: three refreshes, an import of 200 more subscriptions, two adds, and writes from this process.
    for i in 0..200 {
        server.route(&format!("/more/{i}.xml"), feed(&format!("m{i}"), 1, 1));
    }
    let more: Vec<(String, String)> =
        (0..200).map(|i| (format!("M{i}"), server.url(&format!("/more/{i}.xml")))).collect();
    let refs: Vec<(Option<&str>, &str, &str)> =
        more.iter().map(|(t, u)| (Some("More"), t.as_str(), u.as_str())).collect();
    let more_file = sandbox.write("more.opml", opml(&refs));
    let spawn = |args: &[&str]| {
        sandbox.tidings().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn tidings")
    };
    let mut children = vec![
        ("refresh", spawn(&["refresh"])),
        ("refresh", spawn(&["refresh"])),
        ("import", spawn(&["import", path_str(&more_file)])),
        ("add", spawn(&["add", &server.url("/extra0.xml")])),
        ("refresh", spawn(&["refresh"])),
        ("add", spawn(&["add", &server.url("/extra1.xml")])),
    ];
    let conn = open();
    let odd_entries: Vec<i64> = conn
        .prepare(
            "SELECT e.id FROM entries e JOIN feeds f ON f.id = e.feed_id
             WHERE CAST(substr(f.url, instr(f.url, '/f') + 2) AS INTEGER) % 2 = 1 ORDER BY e.id",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut conn = conn;
    for id in &odd_entries {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
        tx.execute("UPDATE entries SET read = 1 WHERE id = ?1", [id]).unwrap();
        tx.commit().unwrap();
    }
    for (name, child) in children.drain(..) {
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert!(out.status.success(), "{name} failed: {err}{}", support::stdout(&out));
        assert!(!err.contains("locked") && !err.contains("busy"), "{name}: {err}");
    }
    assert!(reader.quit().success(), "the reader quits cleanly");

    let conn = open();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
    assert_eq!(count("SELECT count(*) FROM feeds"), (FEEDS + 200 + 2) as i64, "every subscription was added");
    assert_eq!(count("SELECT count(*) FROM feeds f JOIN folders d ON d.id = f.folder_id WHERE d.name = 'More'"), 200);
    let per_feed: Vec<(String, i64, i64)> = conn
        .prepare(
            "SELECT f.url, count(e.id), sum(e.title LIKE '% v2') FROM feeds f JOIN entries e ON e.feed_id = f.id
             WHERE f.url LIKE '%/f%.xml' GROUP BY f.id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(per_feed.len(), FEEDS);
    for (url, entries, updated) in &per_feed {
        assert_eq!((*entries, *updated), (12, 12), "{url}: every entry stored and updated once");
    }
    assert_eq!(count("SELECT count(*) FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.url LIKE '%extra%'"), 6);
    // Marks: the ones made before the refreshes and the ones made during them are all there.
    assert_eq!(count("SELECT count(*) FROM entries WHERE starred = 1"), (FEEDS / 2 * 10) as i64);
    assert_eq!(count("SELECT count(*) FROM entries WHERE starred = 1 AND read = 1"), (FEEDS / 2 * 10) as i64);
    let still_read = odd_entries
        .iter()
        .filter(|id| conn.query_row("SELECT read FROM entries WHERE id = ?1", [id], |r| r.get::<_, bool>(0)).unwrap())
        .count();
    assert_eq!(still_read, odd_entries.len(), "every mark made during the refreshes was kept");
}

/// A database with one feed of three unread entries titled `Quitting0`…, and a reader on it whose screen
/// shows them: keys sent now reach a reader with its lists loaded. With `busy_feeds`, that many more feeds of
/// 50 entries each are stored first and changed on the server, so that the reader's startup refresh keeps
/// its writer busy while the keys arrive.
fn reader_with_three_unread(sandbox: &Sandbox, server: &Server, busy_feeds: usize) -> Reader {
    // Newer than the busy feeds' entries, so that they head the Unread list.
    let items: String = (0..3)
        .map(|i| {
            format!(
                "<item><guid>q-{i}</guid><title>Quitting{i}</title><pubDate>Sun, 0{} Nov 2026 10:00:00 GMT</pubDate>\
                 <description>{i}</description></item>",
                i + 1
            )
        })
        .collect();
    let xml =
        format!("<rss version=\"2.0\"><channel><title>Quitting</title><link>http://q/</link>{items}</channel></rss>");
    server.route("/q.xml", Reply::ok("application/rss+xml", xml));
    let mut list = vec![("Quitting".to_string(), server.url("/q.xml"))];
    // Older than the Quitting feed's entries, so that those head the Unread list.
    let busy = |i: usize, version: u32| {
        let items: String = (0..50)
            .map(|j| {
                format!(
                    "<item><guid>b{i}-{j}</guid><title>busy {i} {j} v{version}</title>\
                     <pubDate>Mon, 01 Sep 2025 10:{j:02}:00 GMT</pubDate><description>{j}</description></item>"
                )
            })
            .collect();
        let xml =
            format!("<rss version=\"2.0\"><channel><title>B{i}</title><link>http://b/</link>{items}</channel></rss>");
        Reply::ok("application/rss+xml", xml)
    };
    for i in 0..busy_feeds {
        server.route(&format!("/busy{i}.xml"), busy(i, 1));
        list.push((format!("B{i}"), server.url(&format!("/busy{i}.xml"))));
    }
    let refs: Vec<(Option<&str>, &str, &str)> = list.iter().map(|(t, u)| (None, t.as_str(), u.as_str())).collect();
    let subs = sandbox.write("subs.opml", opml(&refs));
    let out = sandbox.tidings().arg("--opml").arg(&subs).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    for i in 0..busy_feeds {
        server.route(&format!("/busy{i}.xml"), busy(i, 2));
    }
    let config = config(sandbox, busy_feeds > 0);
    let screen = sandbox.path("screen");
    let reader = Reader::start(sandbox, &config, &screen);
    poll("the reader to show the entries", || {
        std::fs::read_to_string(&screen).ok().filter(|s| s.contains("Quitting0")).map(|_| ())
    });
    reader
}

/// The entries read or starred, by title, with those two flags.
fn flags(db: &Path) -> Vec<(String, bool, bool)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(120)).unwrap();
    conn.prepare("SELECT title, read, starred FROM entries WHERE read = 1 OR starred = 1 ORDER BY title")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn log(sandbox: &Sandbox) -> String {
    std::fs::read_to_string(sandbox.path("home/.local/state/tidings/tidings.log")).unwrap_or_default()
}

#[test]
fn marks_typed_in_one_burst_with_quit_are_all_saved() {
    if !have_script() {
        eprintln!("skipped: util-linux `script` is not installed, and the reader needs a terminal");
        return;
    }
    // The attack that found it lost the marks in 3 or 4 runs of 5, the writer busy with a refresh.
    for run in 0..5 {
        let server = Server::start();
        let sandbox = Sandbox::new();
        let mut reader = reader_with_three_unread(&sandbox, &server, 200);
        // Next unread (opened: read), star it, quit: one write of the terminal, as fast as keys can come.
        reader.keys.write_all(b"nsq").unwrap();
        reader.keys.flush().unwrap();
        let status = wait_for(&mut reader.script, "the reader to quit");
        assert!(status.success(), "run {run}: {status}");
        let flags = flags(&sandbox.db());
        let marked: Vec<_> = flags.iter().filter(|(_, read, starred)| *read && *starred).collect::<Vec<_>>();
        assert_eq!(marked.len(), 1, "run {run}: the entry opened and starred keeps both marks: {flags:?}");
    }
}

#[test]
fn quitting_while_another_process_holds_the_database_waits_names_it_and_saves_when_it_lets_go() {
    if !have_script() {
        eprintln!("skipped: util-linux `script` is not installed, and the reader needs a terminal");
        return;
    }
    let server = Server::start();
    let sandbox = Sandbox::new();
    let mut reader = reader_with_three_unread(&sandbox, &server, 0);
    // This test holds the write lock, as a backup or an `sqlite3` shell would.
    let mut holder = rusqlite::Connection::open(sandbox.db()).unwrap();
    let held = holder.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
    reader.keys.write_all(b"nsq").unwrap();
    reader.keys.flush().unwrap();
    let me = format!("(pid {})", std::process::id());
    poll("the reader to name the process holding the database", || {
        let log = log(&sandbox);
        log.lines().any(|l| l.contains("quitting waits") && l.contains(&me)).then_some(())
    });
    assert!(reader.script.try_wait().unwrap().is_none(), "the reader waits for its marks, however long");
    held.rollback().unwrap();
    let status = wait_for(&mut reader.script, "the reader to quit once the database is free");
    assert!(status.success(), "{status}");
    let marked = flags(&sandbox.db()).into_iter().filter(|(_, read, starred)| *read && *starred).count();
    assert_eq!(marked, 1, "both marks were saved once the other process let go");
}

#[test]
fn quit_asked_twice_while_the_database_is_held_exits_non_zero_and_names_the_lost_marks() {
    if !have_script() {
        eprintln!("skipped: util-linux `script` is not installed, and the reader needs a terminal");
        return;
    }
    let server = Server::start();
    let sandbox = Sandbox::new();
    let mut reader = reader_with_three_unread(&sandbox, &server, 0);
    let mut holder = rusqlite::Connection::open(sandbox.db()).unwrap();
    let held = holder.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
    reader.keys.write_all(b"nsq").unwrap();
    reader.keys.flush().unwrap();
    let me = format!("(pid {})", std::process::id());
    poll("the reader to wait for the database", || {
        log(&sandbox).lines().any(|l| l.contains("quitting waits") && l.contains(&me)).then_some(())
    });
    reader.keys.write_all(b"q").unwrap();
    reader.keys.flush().unwrap();
    let status = wait_for(&mut reader.script, "the reader to quit without its marks");
    assert_eq!(status.code(), Some(1), "quitting without saving is not a success");
    let said = std::fs::read_to_string(sandbox.path("screen")).unwrap();
    assert!(
        said.contains("which were not saved: marked 1 entry read, starred 1 entry"),
        "the shell is told which changes were lost: {said:?}"
    );
    assert!(log(&sandbox).contains("reader quit without saving 2 changes"));
    held.rollback().unwrap();
}

/// Entries stored in the database at `db` (0 while it does not exist yet).
fn stored_entries(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .and_then(|c| c.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)))
        .unwrap_or(0)
}

#[test]
fn the_daemon_keeps_feeds_fresh_alone_refuses_a_second_and_stops_cleanly_on_sigterm() {
    let server = Server::start();
    server.route("/a.xml", feed("a", 3, 1));
    let sandbox = Sandbox::new();
    let subs = sandbox.write("subs.opml", opml(&[(None, "A", &server.url("/a.xml"))]));
    assert!(sandbox.run(&["import", path_str(&subs)]).status.success());
    let config = config(&sandbox, false);
    let daemon = |sandbox: &Sandbox| {
        let mut command = sandbox.tidings();
        command.args(["--config", path_str(&config), "daemon", "--interval", "1s"]);
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        command
    };
    let mut first = daemon(&sandbox).spawn().unwrap();
    poll("the daemon's first refresh", || (stored_entries(&sandbox.db()) == 3).then_some(()));
    // The feed grows: the daemon brings the new entries on its own, each interval.
    server.route("/a.xml", feed("a", 5, 1));
    poll("the daemon's next refresh", || (stored_entries(&sandbox.db()) == 5).then_some(()));

    let second = daemon(&sandbox).output().unwrap();
    assert_eq!(second.status.code(), Some(1), "{}", stderr(&second));
    assert!(
        stderr(&second).contains(&format!("another tidings daemon (pid {}) keeps", first.id())),
        "{}",
        stderr(&second)
    );

    // SIGTERM: the daemon stops, saying so in its log, and leaves nothing half written.
    assert!(Command::new("kill").args(["-TERM", &first.id().to_string()]).status().unwrap().success());
    let status = wait_for(&mut first, "the daemon to stop");
    assert!(status.success(), "{status:?}");
    let log = log(&sandbox);
    assert!(log.contains("daemon started") && log.contains("daemon stopped"), "{log}");
    let check: String = rusqlite::Connection::open(sandbox.db())
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}
