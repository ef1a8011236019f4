//! Retention, end to end: `tidings refresh` purges what the config no longer keeps (starred and unread entries
//! stay, purged ones do not come back while the feed lists them), and the database file stays bounded over
//! months of refreshes of a rotating feed.

mod support;

use support::server::{Reply, Server};
use support::{Sandbox, rss, stderr, stdout};
use tidings::model::{EntryId, FeedId, FeedKind, NewFeed, ParsedEntry, ParsedFeed, UserWrite};
use tidings::store::{self, fetches, purge};

fn titles(sandbox: &Sandbox) -> Vec<String> {
    let conn = store::open_read(&sandbox.db()).unwrap();
    let mut stmt = conn.prepare("SELECT title FROM entries ORDER BY sort_at DESC").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

#[test]
fn refresh_purges_beyond_the_limit_keeps_starred_and_unread_and_purged_entries_stay_gone() {
    let server = Server::start();
    let items: Vec<(String, String, String)> =
        (0..6).map(|i| (format!("g{i}"), format!("Entry {i}"), format!("<p>body {i}</p>"))).collect();
    let items: Vec<(&str, &str, &str)> = items.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    server.route("/feed.xml", Reply::ok("application/rss+xml", rss("Rotating", &items)));
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", "max_entries_per_feed = 2\n");
    let run = |args: &[&str]| {
        let mut all = vec!["--config", config.to_str().unwrap()];
        all.extend_from_slice(args);
        sandbox.run(&all)
    };
    let opml = sandbox.write("f.opml", support::opml(&[(None, "Rotating", &server.url("/feed.xml"))]));
    assert!(run(&["import", opml.to_str().unwrap()]).status.success());
    let first = run(&["refresh"]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(titles(&sandbox).len(), 6, "unread entries are kept beyond the limit");

    // Read everything but Entry 1; star Entry 0 (the oldest).
    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let id = |conn: &rusqlite::Connection, title: &str| -> EntryId {
        EntryId(conn.query_row("SELECT id FROM entries WHERE title = ?1", [title], |r| r.get(0)).unwrap())
    };
    let all: Vec<EntryId> = (0..6).map(|i| id(&conn, &format!("Entry {i}"))).collect();
    store::apply(&mut conn, &UserWrite::SetRead { ids: all.clone(), read: true }, 0).unwrap();
    store::apply(&mut conn, &UserWrite::SetRead { ids: vec![all[1]], read: false }, 0).unwrap();
    store::apply(&mut conn, &UserWrite::SetStarred { ids: vec![all[0]], starred: true }, 0).unwrap();
    drop(conn);

    let second = run(&["refresh"]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(stdout(&second).contains("Purged 2 old entries"), "{}", stdout(&second));
    assert_eq!(titles(&sandbox), ["Entry 5", "Entry 4", "Entry 1", "Entry 0"], "the newest two, unread, starred");

    // The feed still lists the purged entries: they are not new again.
    let third = run(&["refresh", "--json"]);
    let summary: serde_json::Value = serde_json::from_str(&stdout(&third)).unwrap();
    assert_eq!(summary["new_entries"], 0, "{summary}");
    assert_eq!(titles(&sandbox).len(), 4);
}

/// One day of a feed that publishes `per_day` entries and lists its latest `listed`.
fn day_of_entries(day: i64, per_day: i64, listed: i64, now: i64) -> fetches::FetchRecord {
    let entries = (0..listed)
        .map(|k| {
            let n = day * per_day - k;
            ParsedEntry {
                key: format!("e{n}"),
                title: Some(format!("Entry {n}")),
                link: None,
                authors: vec![],
                published: chrono::DateTime::from_timestamp(now - k * 3_600, 0),
                updated: None,
                content_html: Some(format!("<p>{}</p>", format!("entry {n} has words of its own ").repeat(40))),
                summary_html: None,
                categories: vec![],
                enclosures: vec![],
                comments: None,
                thumbnail: None,
            }
        })
        .collect();
    fetches::FetchRecord::Fetched {
        status: 200,
        etag: None,
        last_modified: None,
        feed: Box::new(ParsedFeed {
            authors: vec![],
            kind: FeedKind::Rss2,
            title: Some("Rotating".into()),
            link: None,
            description: None,
            entries,
            warnings: vec![],
            min_interval_secs: None,
            unkept: 0,
        }),
        decision: None,
        moved_to: None,
        min_interval_secs: None,
        ignored: vec![],
        cut_from: None,
        digest: None,
    }
}

/// Simulates `days` daily refreshes of three rotating feeds, everything read on arrival, with the upkeep a
/// refresh runs; returns (file size, entries) after `days / 2` and after `days`.
fn simulate(policy: &purge::Policy, days: i64) -> [(u64, i64); 2] {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let mut conn = store::open_write(&path).unwrap();
    let feeds: Vec<NewFeed> = (0..3)
        .map(|f| NewFeed {
            url: format!("http://example.com/{f}"),
            title: None,
            name: None,
            site_url: None,
            folder: vec![],
        })
        .collect();
    store::apply(&mut conn, &UserWrite::Import { feeds, folders: vec![] }, 0).unwrap();
    let mut out = [(0, 0); 2];
    for day in 1..=days {
        let now = 1_700_000_000 + day * 86_400;
        for feed in 1..=3 {
            fetches::save(&mut conn, FeedId(feed), &day_of_entries(day, 5, 15, now), now).unwrap();
        }
        conn.execute("UPDATE entries SET read = 1", []).unwrap();
        purge::Upkeep::new(std::sync::Arc::new(policy.clone()), now, true).run(&mut conn).unwrap();
        if day == days / 2 || day == days {
            conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
            let size = std::fs::metadata(&path).unwrap().len();
            let entries: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
            out[usize::from(day == days)] = (size, entries);
        }
    }
    out
}

/// Long enough that both halves are past the 30 days kept.
const DAYS: i64 = 160;

#[test]
fn the_database_stays_bounded_over_months_of_refreshes_with_retention_and_grows_without() {
    let keep_30_days =
        purge::Policy { default: purge::Retention { keep_days: 30, ..Default::default() }, ..Default::default() };
    let [(half_size, half_entries), (size, entries)] = simulate(&keep_30_days, DAYS);
    // 30 days of 3 feeds × 5 entries a day, give or take a day.
    assert!((450..=480).contains(&entries), "{entries} entries kept");
    assert_eq!(entries, half_entries, "the same number of entries after {} days and after {DAYS}", DAYS / 2);
    assert!(size <= half_size + half_size / 10, "the file grew from {half_size} to {size} bytes");

    let [(half_size, half_entries), (size, entries)] = simulate(&purge::Policy::default(), DAYS);
    // Five a day per feed, and the ten older ones the first document listed.
    let stored = |days: i64| 3 * (5 * days + 10);
    assert_eq!((half_entries, entries), (stored(DAYS / 2), stored(DAYS)), "without retention every entry stays");
    assert!(size > half_size * 3 / 2, "without retention the file grows: {half_size} → {size} bytes");
}
