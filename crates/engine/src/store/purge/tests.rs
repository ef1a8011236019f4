use super::*;
use crate::model::ParsedEntry;
use crate::model::UserWrite;
use crate::store::fetches::{self, FetchRecord};
use crate::store::fixtures;

const DAY: i64 = 86_400;

fn entry(key: &str, published: i64) -> ParsedEntry {
    fixtures::entry(key, key, &format!("<p>{key}</p>"), published)
}

fn fetched(entries: Vec<ParsedEntry>) -> FetchRecord {
    fixtures::fetched("Feed", entries)
}

fn setup() -> (tempfile::TempDir, Connection, FeedId) {
    fixtures::one_feed()
}

fn keys(conn: &Connection) -> Vec<String> {
    let mut stmt = conn.prepare("SELECT key FROM entries ORDER BY sort_at DESC, id DESC").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

fn policy(keep_days: u32, max_entries: u32, purge_unread: bool) -> Policy {
    Policy { default: Retention { keep_days, max_entries, purge_unread }, feeds: BTreeMap::new() }
}

/// Entries an upkeep by `policy` at `now` purges.
fn upkeep(conn: &mut Connection, policy: Policy, now: i64) -> usize {
    Upkeep::new(Arc::new(policy), now, false).run(conn).unwrap().purged
}

fn id_of(conn: &Connection, key: &str) -> EntryId {
    EntryId(conn.query_row("SELECT id FROM entries WHERE key = ?1", [key], |r| r.get(0)).unwrap())
}

#[test]
fn old_read_entries_go_and_starred_and_unread_stay() {
    let (_dir, mut conn, feed) = setup();
    let entries = ["read", "starred", "unread"].map(|k| entry(k, 1_000)).to_vec();
    fetches::save(&mut conn, feed, &fetched(entries), 1_000).unwrap();
    let (read, starred) = (id_of(&conn, "read"), id_of(&conn, "starred"));
    crate::store::apply(&mut conn, &UserWrite::SetRead { ids: vec![read, starred], read: true }, 0).unwrap();
    crate::store::apply(&mut conn, &UserWrite::SetStarred { ids: vec![starred], starred: true }, 0).unwrap();
    // Not old enough yet.
    assert_eq!(purge(&mut conn, &policy(30, 0, false), 1_000 + 29 * DAY, 100, FeedId(0)).unwrap().deleted, 0);
    let report = purge(&mut conn, &policy(30, 0, false), 1_000 + 31 * DAY, 100, FeedId(0)).unwrap();
    assert_eq!(report, PurgeReport { deleted: 1, feeds: 1, finished: true, next_feed: FeedId(0) });
    assert_eq!(keys(&conn), vec!["unread", "starred"]);
    // purge_unread lets the unread one go too; starred is never purged.
    purge(&mut conn, &policy(30, 0, true), 1_000 + 31 * DAY, 100, FeedId(0)).unwrap();
    assert_eq!(keys(&conn), vec!["starred"]);
}

#[test]
fn a_feed_keeps_its_newest_entries_up_to_the_limit() {
    let (_dir, mut conn, feed) = setup();
    let entries = (0..10).map(|i| entry(&format!("e{i}"), 1_000 + i * 60)).collect();
    fetches::save(&mut conn, feed, &fetched(entries), 2_000).unwrap();
    let all: Vec<EntryId> = (0..10).map(|i| id_of(&conn, &format!("e{i}"))).collect();
    crate::store::apply(&mut conn, &UserWrite::SetRead { ids: all.clone(), read: true }, 0).unwrap();
    crate::store::apply(&mut conn, &UserWrite::SetRead { ids: vec![all[1]], read: false }, 0).unwrap();
    let report = purge(&mut conn, &policy(0, 4, false), 2_000, 100, FeedId(0)).unwrap();
    assert_eq!(report.deleted, 5);
    assert_eq!(keys(&conn), vec!["e9", "e8", "e7", "e6", "e1"], "the unread e1 stays beyond the limit");
}

#[test]
fn age_and_count_together_each_let_their_own_entries_go() {
    let (_dir, mut conn, feed) = setup();
    let old = vec![entry("old0", 5_000), entry("old1", 5_060)];
    fetches::save(&mut conn, feed, &fetched(old.clone()), 1_000).unwrap();
    // Forty days later the feed lists four new entries, dated before the old ones (a feed's dates are its own).
    let mut now_listed = old;
    now_listed.extend((0..4).map(|i| entry(&format!("new{i}"), 1_000 + i * 60)));
    fetches::save(&mut conn, feed, &fetched(now_listed), 40 * DAY).unwrap();
    let all: Vec<EntryId> = ["old0", "old1", "new0", "new1", "new2", "new3"].map(|k| id_of(&conn, k)).to_vec();
    crate::store::apply(&mut conn, &UserWrite::SetRead { ids: all, read: true }, 0).unwrap();
    let report = purge(&mut conn, &policy(30, 5, false), 41 * DAY, 100, FeedId(0)).unwrap();
    // By age: both old ones (first seen 41 days ago, though the newest by date); by count: new0, the sixth.
    assert_eq!(report.deleted, 3);
    assert_eq!(keys(&conn), vec!["new3", "new2", "new1"]);
}

#[test]
fn a_feed_of_its_own_overrides_the_default() {
    let (_dir, mut conn, feed) = setup();
    fetches::save(&mut conn, feed, &fetched(vec![entry("a", 1_000), entry("b", 2_000)]), 2_000).unwrap();
    let both = [id_of(&conn, "a"), id_of(&conn, "b")];
    crate::store::apply(&mut conn, &UserWrite::SetRead { ids: both.to_vec(), read: true }, 0).unwrap();
    let mut keep_all = policy(1, 1, false);
    keep_all.feeds.insert("http://example.com/feed".into(), Retention::default());
    assert!(!keep_all.keeps_everything());
    assert_eq!(purge(&mut conn, &keep_all, 100 * DAY, 100, FeedId(0)).unwrap().deleted, 0);
    assert_eq!(purge(&mut conn, &policy(1, 1, false), 100 * DAY, 100, FeedId(0)).unwrap().deleted, 2);
}

#[test]
fn a_purge_stops_at_its_bound_and_says_so() {
    let (_dir, mut conn, feed) = setup();
    let entries: Vec<_> = (0..1_200).map(|i| entry(&format!("e{i}"), 1_000 + i)).collect();
    fetches::save(&mut conn, feed, &fetched(entries), 1_000).unwrap();
    conn.execute("UPDATE entries SET read = 1", []).unwrap();
    let first = purge(&mut conn, &policy(1, 0, false), 10 * DAY, 700, FeedId(0)).unwrap();
    assert_eq!((first.deleted, first.finished, first.next_feed), (700, false, feed));
    let second = purge(&mut conn, &policy(1, 0, false), 10 * DAY, 700, first.next_feed).unwrap();
    assert_eq!((second.deleted, second.finished), (500, true));
    assert!(keys(&conn).is_empty());
}

#[test]
fn purged_entries_the_feed_still_lists_do_not_come_back_and_are_forgotten_once_it_stops() {
    let (_dir, mut conn, feed) = setup();
    let document = vec![entry("old", 1_000), entry("new", 2_000)];
    fetches::save(&mut conn, feed, &fetched(document.clone()), 1_000).unwrap();
    let old = id_of(&conn, "old");
    crate::store::apply(&mut conn, &UserWrite::SetRead { ids: vec![old], read: true }, 0).unwrap();
    purge(&mut conn, &policy(1, 0, false), 5 * DAY, 100, FeedId(0)).unwrap();
    assert_eq!(keys(&conn), vec!["new"]);
    let outcome = fetches::save(&mut conn, feed, &fetched(document), 6 * DAY).unwrap();
    assert_eq!(outcome.new, 0, "the purged entry is not new again");
    assert_eq!(keys(&conn), vec!["new"]);
    let remembered = |c: &Connection| c.query_row("SELECT count(*) FROM purged_entries", [], |r| r.get::<_, i64>(0));
    assert_eq!(remembered(&conn).unwrap(), 1);
    fetches::save(&mut conn, feed, &fetched(vec![entry("new", 2_000)]), 7 * DAY).unwrap();
    assert_eq!(remembered(&conn).unwrap(), 0, "the feed no longer lists it");
}

#[test]
fn purged_entries_leave_the_search_index() {
    let (_dir, mut conn, feed) = setup();
    fetches::save(&mut conn, feed, &fetched(vec![entry("zebra", 1_000)]), 1_000).unwrap();
    conn.execute("UPDATE entries SET read = 1", []).unwrap();
    let upkeep_before = Upkeep::new(Arc::new(policy(0, 0, false)), 1_000, true).run(&mut conn).unwrap();
    assert_eq!(upkeep_before.indexed, 1);
    let found = |c: &Connection| {
        super::super::lists::search(c, "zebra", None, false, crate::model::Sort::Newest).unwrap().len()
    };
    assert_eq!(found(&conn), 1);
    let done = Upkeep::new(Arc::new(policy(1, 0, false)), 10 * DAY, true).run(&mut conn).unwrap();
    assert_eq!(done.purged, 1);
    assert_eq!(found(&conn), 0);
    let rows: i64 = conn.query_row("SELECT count(*) FROM entry_search", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, 0);
}

/// Entries come of age by the day: an upkeep by age alone reads every feed once an hour, and sooner only when
/// the policy changed. A policy by count purges at every upkeep.
#[test]
fn an_upkeep_by_age_alone_goes_through_the_feeds_once_an_hour_or_when_the_policy_changes() {
    let (_dir, mut conn, feed) = setup();
    let entries = ["a", "b", "c"].map(|k| entry(k, 1_000)).to_vec();
    fetches::save(&mut conn, feed, &fetched(entries), 1_000).unwrap();
    let read = |conn: &mut Connection, key: &str| {
        let id = id_of(conn, key);
        crate::store::apply(conn, &UserWrite::SetRead { ids: vec![id], read: true }, 0).unwrap();
    };
    let late = 1_000 + 31 * DAY;
    read(&mut conn, "a");
    assert_eq!(upkeep(&mut conn, policy(30, 0, false), late), 1, "the first upkeep purges");
    read(&mut conn, "b");
    assert_eq!(upkeep(&mut conn, policy(30, 0, false), late + 60), 0, "a minute later it does not look");
    assert_eq!(keys(&conn), vec!["c", "b"]);
    assert_eq!(upkeep(&mut conn, policy(30, 0, false), late + AGE_PURGE_EVERY_SECS), 1, "an hour later it does");
    read(&mut conn, "c");
    assert_eq!(upkeep(&mut conn, policy(20, 0, false), late + AGE_PURGE_EVERY_SECS + 60), 1, "a new policy purges");
    assert!(keys(&conn).is_empty());

    // By count, every upkeep purges.
    let entries = ["d", "e", "f"].map(|k| entry(k, 2_000)).to_vec();
    fetches::save(&mut conn, feed, &fetched(entries), late).unwrap();
    for key in ["d", "e", "f"] {
        read(&mut conn, key);
    }
    assert_eq!(upkeep(&mut conn, policy(0, 2, false), late + 1), 1);
    assert_eq!(upkeep(&mut conn, policy(0, 1, false), late + 2), 1);
}

/// Every entry of a new database is first seen after it was made: the upkeeps of its first hour do not read
/// through the feeds for a purge by age (entries stored as none are, first seen long before, show it), and
/// after that hour they do again. A policy by count purges at every upkeep, in the first hour too.
#[test]
fn a_new_database_is_not_read_through_for_a_purge_by_age_in_its_first_hour() {
    let made = chrono::Utc::now().timestamp();
    let old_and_read = || {
        let (dir, mut conn, feed) = setup();
        let entries = vec![entry("older", made - 61 * DAY), entry("old", made - 60 * DAY)];
        fetches::save(&mut conn, feed, &fetched(entries), made - 60 * DAY).unwrap();
        let ids = vec![id_of(&conn, "older"), id_of(&conn, "old")];
        crate::store::apply(&mut conn, &UserWrite::SetRead { ids, read: true }, 0).unwrap();
        (dir, conn)
    };
    let (_dir, mut conn) = old_and_read();
    assert_eq!(upkeep(&mut conn, policy(30, 0, false), made + 60), 0, "not looked for");
    assert_eq!(upkeep(&mut conn, policy(7, 0, false), made + 120), 0, "whatever the policy");
    assert_eq!(upkeep(&mut conn, policy(30, 0, false), made + AGE_PURGE_EVERY_SECS + 60), 2, "an hour on");
    let (_dir, mut conn) = old_and_read();
    assert_eq!(upkeep(&mut conn, policy(0, 1, false), made + 60), 1, "by count, at once");
}
