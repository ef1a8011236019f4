//! What tidings keeps on disk is its owner's only, whatever the umask: the database (it holds login tokens in
//! clear) with its write-ahead log and shared-memory index, as the real binary leaves them under `umask 022`; a
//! database an older tidings left open to others, tightened at start with a line in the log; and the picture
//! cache's folder and files.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::server::{Gate, Reply, Server};
use support::{Sandbox, opml, rss, stderr};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).permissions().mode() & 0o777
}

/// The database's file with `suffix` appended (`-wal`, `-shm`).
fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn feed() -> Reply {
    Reply::ok("application/rss+xml", rss("Kept", &[("1", "One", "<p>one</p>")]))
}

#[test]
fn the_database_its_log_and_its_index_are_created_for_their_owner_only_under_umask_022() {
    let server = Server::start();
    let gate = Gate::default();
    server.route("/feed.xml", Reply::Held(gate.clone(), Box::new(feed())));
    let sandbox = Sandbox::new();
    let subs = sandbox.write("subs.opml", opml(&[(None, "Kept", &server.url("/feed.xml"))]));
    let mut child = sandbox
        .tidings_with_umask("022")
        .arg("--opml")
        .arg(&subs)
        .arg("refresh")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Polled: the refresh is another process; its request reaching the server says the database is open, its
    // subscriptions written, and its log and index beside it.
    let started = Instant::now();
    while server.requests_for("/feed.xml").is_empty() && child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < Duration::from_secs(60), "the refresh never asked for the feed");
        std::thread::sleep(Duration::from_millis(1));
    }
    let db = sandbox.db();
    let modes = ["", "-wal", "-shm"].map(|suffix| (suffix, mode(&beside(&db, suffix))));
    gate.open();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(modes, [("", 0o600), ("-wal", 0o600), ("-shm", 0o600)]);
    assert_eq!(mode(&db), 0o600);
}

#[test]
fn a_database_left_open_to_others_is_tightened_at_start_with_a_line_in_the_log() {
    let server = Server::start();
    server.route("/feed.xml", feed());
    let sandbox = Sandbox::new();
    let subs = sandbox.write("subs.opml", opml(&[(None, "Kept", &server.url("/feed.xml"))]));
    let out = sandbox.tidings_with_umask("022").arg("--opml").arg(&subs).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // As an older tidings left it.
    std::fs::set_permissions(sandbox.db(), std::fs::Permissions::from_mode(0o644)).unwrap();

    let out = sandbox.tidings_with_umask("022").arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(mode(&sandbox.db()), 0o600);
    let log = std::fs::read_to_string(sandbox.path("home/.local/state/tidings/tidings.log")).unwrap();
    let said = format!("{} was open to other users (mode 644)", sandbox.db().display());
    assert!(log.lines().any(|l| l.contains(&said) && l.ends_with("now 600")), "{log}");
}

#[test]
fn the_picture_cache_is_its_owners_only_and_one_left_open_is_tightened() {
    // SAFETY: umask only sets this process's file-creation mask, to the usual one; no other test of this file
    // creates files in this process.
    unsafe { libc::umask(0o022) };
    let sandbox = Sandbox::new();
    let fresh = sandbox.path("fresh/pictures");
    let old = sandbox.path("old/pictures");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    for dir in [&fresh, &old] {
        let cache = tidings::pictures::disk::DiskCache::new(dir.clone(), 1024 * 1024);
        cache.put("http://example.com/a.png", b"the picture's bytes");
        assert_eq!(cache.get("http://example.com/a.png").as_deref(), Some(&b"the picture's bytes"[..]));
        assert_eq!(mode(dir), 0o700, "{}", dir.display());
        let files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 1, "{files:?}");
        assert_eq!(mode(&files[0]), 0o600, "{}", files[0].display());
    }
    assert_eq!(mode(&sandbox.path("fresh")), 0o700, "a folder made for the cache is private too");
}
