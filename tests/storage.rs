//! Storage faults met from outside, as the real binary: a database path that is a folder, a database in a
//! folder the user may not write, a database file the user may only read, a disk that fills up during a
//! refresh. Each gets a message that says what to do, reads go on where they can, and nothing stored is lost.
//!
//! The cases that need another user run the binary as `nobody` (util-linux's `setpriv`, when this test runs
//! as root); the full disk is a small tmpfs (when this process may mount one). Otherwise they say they were
//! skipped.

// What a run skipped goes to standard error, beside the test harness's own lines.
#![allow(clippy::print_stderr)]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::server::{Reply, Server};
use support::{Sandbox, opml, path_str, stderr, stdout};

/// An RSS document of undated items `(guid, title, body)`: stored as seen now, so retention keeps them.
fn rss(title: &str, items: &[(&str, &str, &str)]) -> String {
    let items: String = items
        .iter()
        .map(|(guid, title, body)| {
            format!(
                "<item><guid>{guid}</guid><title>{title}</title><description><![CDATA[{body}]]></description></item>"
            )
        })
        .collect();
    format!(
        "<rss version=\"2.0\"><channel><title>{title}</title><link>http://example.com/</link>{items}</channel></rss>"
    )
}

/// A sandbox whose database holds `feeds` feeds of 3 entries each, refreshed (so not yet indexed for search).
fn refreshed(sandbox: &Sandbox, server: &Server, feeds: usize) {
    let list: Vec<(String, String)> = (0..feeds)
        .map(|i| {
            let entries = [(format!("{i}-a"), format!("Alpha {i}"), "<p>one</p>".to_string())];
            let refs: Vec<(&str, &str, &str)> =
                entries.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
            server.route(&format!("/s{i}.xml"), Reply::ok("application/rss+xml", rss(&format!("S{i}"), &refs)));
            (format!("S{i}"), server.url(&format!("/s{i}.xml")))
        })
        .collect();
    let refs: Vec<(Option<&str>, &str, &str)> = list.iter().map(|(t, u)| (None, t.as_str(), u.as_str())).collect();
    let subs = sandbox.write("subs.opml", opml(&refs));
    let out = sandbox.tidings().arg("--opml").arg(&subs).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `tidings ARGS` as the user `nobody`, with `db` as its database; `None` when that cannot be done here.
fn as_nobody(db: &Path, args: &[&str]) -> Option<Output> {
    // SAFETY: geteuid only reads this process's user id.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_tidings"))
        .arg("--db")
        .arg(db)
        .args(args)
        .env("HOME", "/nonexistent")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME");
    cmd.output().ok().filter(|o| !stderr(o).contains("setpriv:"))
}

/// A copy of the sandbox's database in a new folder that everyone may enter, owned by root: `nobody` may read
/// the files there (mode `file_mode`) but write nothing, the folder included unless `folder_writable`. With
/// `with_log`, the database's write-ahead log and its index come too, as a process that did not close the
/// database leaves them; without, the log is applied to the file first, as the last process to close it does.
fn shared_copy(
    sandbox: &Sandbox,
    file_mode: u32,
    folder_writable: bool,
    with_log: bool,
) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("tidings-shared").tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(if folder_writable { 0o777 } else { 0o755 }))
        .unwrap();
    let db = dir.path().join("tidings.db");
    // With its log: a write is left in the WAL, and the connection kept open while copying, so the log is there
    // to copy (the last connection to close checkpoints it and deletes it).
    let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
    let suffixes: &[&str] = if with_log {
        conn.query_row("PRAGMA wal_autocheckpoint = 0", [], |_| Ok(())).unwrap();
        conn.execute("UPDATE entries SET read = read", []).unwrap();
        &["", "-wal", "-shm"]
    } else {
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        &[""]
    };
    for suffix in suffixes {
        let from = PathBuf::from(format!("{}{suffix}", sandbox.db().display()));
        let to = PathBuf::from(format!("{}{suffix}", db.display()));
        std::fs::copy(&from, &to).unwrap();
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(file_mode)).unwrap();
    }
    drop(conn);
    (dir, db)
}

/// The write-ahead log is checkpointed in large steps beside the writer; a refresh that has returned has its
/// entries in the database file itself (synced), not only in the log.
#[test]
fn a_finished_refresh_leaves_its_entries_in_the_database_file() {
    let server = Server::start();
    let sandbox = Sandbox::new();
    refreshed(&sandbox, &server, 5);
    // The database file alone, without its log beside it.
    let alone = sandbox.path("alone.db");
    std::fs::copy(sandbox.db(), &alone).unwrap();
    let conn = rusqlite::Connection::open(&alone).unwrap();
    let entries: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(entries, 5, "the entries are in the database file");
}

#[test]
fn a_database_path_that_is_a_folder_is_named_as_one() {
    let sandbox = Sandbox::new();
    let folder = sandbox.path("not-a-file");
    std::fs::create_dir(&folder).unwrap();
    for command in [&["unread"][..], &["export"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_tidings")).arg("--db").arg(&folder).args(command).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{command:?}");
        let err = stderr(&out);
        assert!(err.contains("is a folder, not a file") && err.contains("--db FILE"), "{command:?}: {err}");
        assert!(!err.contains("disk I/O error"), "{err}");
    }
}

#[test]
fn unread_reads_a_database_in_a_folder_the_user_may_not_write() {
    let server = Server::start();
    let sandbox = Sandbox::new();
    refreshed(&sandbox, &server, 3);
    for with_log in [true, false] {
        let (_dir, db) = shared_copy(&sandbox, 0o644, false, with_log);
        let Some(out) = as_nobody(&db, &["unread"]) else {
            eprintln!("skipped: needs root and setpriv to run tidings as another user");
            return;
        };
        assert!(out.status.success(), "with its log: {with_log}: {}", stderr(&out));
        assert!(stdout(&out).trim_end().ends_with("3  total"), "with its log: {with_log}: {}", stdout(&out));
    }
}

#[test]
fn search_reads_a_database_file_the_user_may_not_write_and_says_what_it_could_not_index() {
    let server = Server::start();
    let sandbox = Sandbox::new();
    refreshed(&sandbox, &server, 2);
    let (_dir, db) = shared_copy(&sandbox, 0o444, true, true);
    let Some(out) = as_nobody(&db, &["search", "Alpha"]) else {
        eprintln!("skipped: needs root and setpriv to run tidings as another user");
        return;
    };
    let err = stderr(&out);
    assert!(err.contains("cannot be written") && err.contains("2 entries added since the last search"), "{err}");
    // Nothing indexed, nothing found: exit 3, as for any search that finds nothing.
    assert_eq!(out.status.code(), Some(3), "{err}");
    // Once indexed by a user who may write it, the same search finds them.
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_tidings")).arg("--db").arg(&db).args(["search", "Alpha"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // Opened for writing, the file was made its owner's only (it may hold login tokens): shared again on purpose.
    assert_eq!(std::fs::metadata(&db).unwrap().permissions().mode() & 0o777, 0o600);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = as_nobody(&db, &["search", "Alpha"]).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).matches("Alpha").count(), 2, "{}", stdout(&out));
}

/// A tmpfs of `kib` KiB, unmounted when dropped.
struct SmallDisk(tempfile::TempDir);

impl SmallDisk {
    fn mount(kib: usize) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs", path_str(dir.path())])
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then_some(SmallDisk(dir))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).output();
    }
}

#[test]
fn a_refresh_that_fills_the_disk_exits_1_with_one_line_and_keeps_what_was_stored() {
    let Some(disk) = SmallDisk::mount(4096) else {
        eprintln!("skipped: this process may not mount a small tmpfs to fill");
        return;
    };
    let server = Server::start();
    let sandbox = Sandbox::new();
    let db = disk.0.path().join("tidings.db");
    // A first small refresh stores one entry a feed.
    let big = "<p>words words words</p>".repeat(2_000);
    let feeds = 40;
    for i in 0..feeds {
        let entries = [(format!("{i}-a"), format!("First {i}"), "<p>one</p>".to_string())];
        let refs: Vec<(&str, &str, &str)> =
            entries.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
        server.route(&format!("/d{i}.xml"), Reply::ok("application/rss+xml", rss(&format!("D{i}"), &refs)));
    }
    let list: Vec<(String, String)> =
        (0..feeds).map(|i| (format!("D{i}"), server.url(&format!("/d{i}.xml")))).collect();
    let refs: Vec<(Option<&str>, &str, &str)> = list.iter().map(|(t, u)| (None, t.as_str(), u.as_str())).collect();
    let subs = sandbox.write("subs.opml", opml(&refs));
    let tidings = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tidings"));
        let home = sandbox.path("home");
        cmd.env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .arg("--db")
            .arg(&db);
        cmd
    };
    let out = tidings().arg("--opml").arg(&subs).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // Then every feed brings 20 entries of 48 KB: far more than the disk holds.
    for i in 0..feeds {
        let entries: Vec<(String, String, String)> =
            (0..20).map(|j| (format!("{i}-b{j}"), format!("Big {i} {j}"), big.clone())).collect();
        let refs: Vec<(&str, &str, &str)> =
            entries.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
        server.route(&format!("/d{i}.xml"), Reply::ok("application/rss+xml", rss(&format!("D{i}"), &refs)));
    }
    let out = tidings().arg("refresh").output().unwrap();
    let (err, said) = (stderr(&out), stdout(&out));
    assert_eq!(out.status.code(), Some(1), "database trouble is exit 1: {err}{said}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("could not be saved")).collect();
    assert_eq!(lines.len(), 1, "one line, not one per feed: {err}");
    assert!(lines[0].contains("free some space"), "{}", lines[0]);
    assert!(!said.contains("FAILED"), "no line per feed: {said}");
    // What was stored before is all there.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let first: i64 =
        conn.query_row("SELECT count(*) FROM entries WHERE title LIKE 'First %'", [], |r| r.get(0)).unwrap();
    assert_eq!(first, feeds as i64);
}
