//! Crash safety, as a test: a real `tidings refresh` killed with SIGKILL at seeded moments of its work leaves a
//! database that passes `PRAGMA integrity_check`, where every feed holds all of one refresh's entries or all of
//! the other's (a feed's refresh is one transaction), and where read and star marks are exactly as they were.
//! A last refresh then completes.
//!
//! `TIDINGS_CRASH_KILLS=N` kills N times (default 6); `TIDINGS_CRASH_SEED=N` picks other moments.

// What a run saw or skipped goes to standard error, beside the test harness's own lines.
#![allow(clippy::print_stderr)]

mod support;

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::server::{Gate, Reply, Server};
use support::{Sandbox, opml, rss, stderr};

const FEEDS: usize = 80;
/// Entries of each feed before, and after the change that the killed refreshes are writing.
const BEFORE: i64 = 20;
const AFTER: i64 = 25;

/// A feed of `items` entries whose titles end in `v{version}`.
fn feed(name: &str, items: i64, version: u32) -> Reply {
    let entries: Vec<(String, String, String)> = (0..items)
        .map(|i| (format!("{name}-{i}"), format!("{name} entry {i} v{version}"), format!("<p>{}</p>", "x".repeat(500))))
        .collect();
    let refs: Vec<(&str, &str, &str)> = entries.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    Reply::ok("application/rss+xml", rss(name, &refs))
}

/// xorshift64*: the same moments on every run for a given seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Entry key → (read, starred) for every marked entry.
type Marks = BTreeMap<String, (bool, bool)>;

/// Checks the database after a crash: intact, each feed all-before or all-after, the marks as they were.
/// Returns how many feeds hold the new entries.
fn check(db: &std::path::Path, marks: &Marks, after_kill: usize) -> usize {
    let conn = rusqlite::Connection::open(db).unwrap();
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok", "after kill {after_kill}");
    let per_feed: Vec<(String, i64, i64, i64)> = conn
        .prepare(
            "SELECT f.url, count(e.id), coalesce(sum(e.title LIKE '% v1'), 0), coalesce(sum(e.title LIKE '% v2'), 0)
             FROM feeds f LEFT JOIN entries e ON e.feed_id = f.id GROUP BY f.id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(per_feed.len(), FEEDS, "after kill {after_kill}");
    for (url, entries, v1, v2) in &per_feed {
        let whole = (*entries, *v1, *v2) == (BEFORE, BEFORE, 0) || (*entries, *v1, *v2) == (AFTER, 0, AFTER);
        assert!(whole, "after kill {after_kill}, {url} is half written: {entries} entries, {v1} old, {v2} new");
    }
    let now: Marks = conn
        .prepare("SELECT key, read, starred FROM entries WHERE read = 1 OR starred = 1")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(&now, marks, "after kill {after_kill}, the read and star marks are as they were");
    per_feed.iter().filter(|(_, entries, _, _)| *entries == AFTER).count()
}

/// The numbers of the feeds that do not hold the new entries yet.
fn unwritten(db: &std::path::Path) -> Vec<usize> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).ok();
    let written: Vec<String> = conn
        .prepare("SELECT f.url FROM feeds f JOIN entries e ON e.feed_id = f.id GROUP BY f.id HAVING count(*) = ?1")
        .unwrap()
        .query_map([AFTER], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    (0..FEEDS).filter(|i| !written.iter().any(|u| u.ends_with(&format!("/f{i}.xml")))).collect()
}

/// Feeds that hold the new entries now (read through a connection of its own, beside the refresh).
fn written(db: &std::path::Path) -> usize {
    let Ok(conn) = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY) else {
        return 0;
    };
    conn.busy_timeout(Duration::from_secs(5)).ok();
    conn.query_row(
        "SELECT count(*) FROM (SELECT feed_id FROM entries GROUP BY feed_id HAVING count(*) = ?1)",
        [AFTER],
        |r| r.get::<_, i64>(0),
    )
    .map_or(0, |n| n as usize)
}

#[test]
fn killing_a_refresh_at_any_moment_loses_nothing_and_corrupts_nothing() {
    let server = Server::start();
    for i in 0..FEEDS {
        server.route(&format!("/f{i}.xml"), feed(&format!("f{i}"), BEFORE, 1));
    }
    let sandbox = Sandbox::new();
    let urls: Vec<(String, String)> =
        (0..FEEDS).map(|i| (format!("F{i}"), server.url(&format!("/f{i}.xml")))).collect();
    let refs: Vec<(Option<&str>, &str, &str)> = urls.iter().map(|(t, u)| (None, t.as_str(), u.as_str())).collect();
    let subs = sandbox.write("subs.opml", opml(&refs));
    let first = sandbox.tidings().arg("--opml").arg(&subs).arg("refresh").output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));

    // Marks on a seeded share of the entries.
    let mut rng = Rng(env_number("TIDINGS_CRASH_SEED", 0x6b69_6c6c).max(1));
    let mut marks = Marks::new();
    {
        let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
        let keys: Vec<String> = conn
            .prepare("SELECT key FROM entries ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for key in keys {
            let (read, starred) = (rng.below(3) == 0, rng.below(7) == 0);
            if read || starred {
                conn.execute("UPDATE entries SET read = ?2, starred = ?3 WHERE key = ?1", (&key, read, starred))
                    .unwrap();
                marks.insert(key, (read, starred));
            }
        }
    }
    assert!(marks.len() > FEEDS, "a fair share is marked: {}", marks.len());

    // Every feed changes; each killed refresh is writing the change when it dies.
    for i in 0..FEEDS {
        server.route(&format!("/f{i}.xml"), feed(&format!("f{i}"), AFTER, 2));
    }
    let kills = env_number("TIDINGS_CRASH_KILLS", 6) as usize;
    let mut halfway = false;
    let mut could_hold = false;
    for kill in 0..kills {
        let served_before = server.requests().len();
        let written_before = written(&sandbox.db());
        // One feed not written yet is held back by the server during this refresh, so that it cannot finish
        // whatever the machine's speed (one of the host's six connections waits; the others go on).
        let unwritten = unwritten(&sandbox.db());
        let by_writes = kill % 2 == 1;
        let held: Vec<usize> = unwritten.last().copied().into_iter().collect();
        let gate = Gate::default();
        for i in &held {
            server.route(&format!("/f{i}.xml"), Reply::Held(gate.clone(), Box::new(feed(&format!("f{i}"), AFTER, 2))));
        }
        // A moment: after this many of its requests were answered (a few feeds in, or most of the way) — or,
        // every other kill, once every feed but the one held back is written (the writes lag the requests by
        // however busy the machine is, so a kill by requests alone may land before any write or after all).
        let moment = if by_writes { unwritten.len() - held.len() } else { 1 + rng.below(FEEDS - 1) };
        could_hold |= by_writes && moment > 0;
        let mut child = sandbox.tidings().arg("refresh").stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let started = Instant::now();
        let reached = || {
            if by_writes {
                written(&sandbox.db()) >= written_before + moment
            } else {
                server.requests().len() >= served_before + moment
            }
        };
        // Polled: the refresh is another process, and the database file the only place its progress shows.
        while !reached() && child.try_wait().unwrap().is_none() {
            assert!(started.elapsed() < Duration::from_secs(120), "the refresh made no progress");
            std::thread::sleep(Duration::from_millis(1));
        }
        // SAFETY: sending a signal to our own child, which has not been reaped yet.
        let killed = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
        assert_eq!(killed, 0, "kill {kill}");
        child.wait().unwrap();
        gate.open();
        for i in &held {
            server.route(&format!("/f{i}.xml"), feed(&format!("f{i}"), AFTER, 2));
        }
        let updated = check(&sandbox.db(), &marks, kill);
        let unit = if by_writes { "feeds written (the others held back)" } else { "answered requests" };
        eprintln!("kill {kill}: after {moment} {unit}, {updated} of {FEEDS} feeds had been written");
        if by_writes && moment > 0 {
            assert!(updated < FEEDS, "kill {kill}: the feeds held back were not written");
        }
        halfway |= updated > 0 && updated < FEEDS;
    }
    assert!(halfway || !could_hold, "at least one kill lands in the middle of the writes");

    let last = sandbox.run(&["refresh"]);
    assert!(last.status.success(), "{}", stderr(&last));
    check(&sandbox.db(), &marks, kills);
    let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
    let updated: i64 =
        conn.query_row("SELECT count(*) FROM entries WHERE title LIKE '% v2'", [], |r| r.get(0)).unwrap();
    assert_eq!(updated, FEEDS as i64 * AFTER, "the last refresh brought every feed up to date");
}
