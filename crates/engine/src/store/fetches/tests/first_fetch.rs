//! A feed's first fetch: what it knows of the feed without reading it back, against what the table holds.

use super::*;

/// The feed's dates (newest entry, median gap) and unread count as the table holds them, read back.
fn read_back(conn: &Connection, feed: FeedId) -> (Option<i64>, Option<i64>, i64) {
    let (newest, gap) = conn
        .query_row("SELECT newest_entry_at, median_gap_secs FROM feeds WHERE id = ?1", [feed.0], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    (newest, gap, feeds::unread_count(conn, feed).unwrap())
}

/// `n` entries `k0`, `k1`, …, a day apart, the first newest (published at 1,700,000,000).
fn daily(n: i64) -> Vec<ParsedEntry> {
    (0..n)
        .map(|i| {
            let mut e = entry(&format!("k{i}"), &format!("Entry {i}"));
            e.published = chrono::DateTime::from_timestamp(1_700_000_000 - i * 86_400, 0);
            e
        })
        .collect()
}

/// Saves `record` as the refresh does, and whether it read the feed's entries back: their dates
/// (`note_entry_dates`), or their unread count.
fn save_reading_back(conn: &mut Connection, feed: FeedId, record: &FetchRecord, now: i64) -> (ApplyOutcome, bool) {
    let mut outcome = None;
    let said = statements_of(conn, |conn| outcome = Some(save(conn, feed, record, now).unwrap()));
    let outcome = outcome.expect("saved");
    let read_back = said.iter().any(|sql| sql.contains("SELECT sort_at FROM entries") || sql.contains("count(*)"));
    (outcome, read_back)
}

/// A first fetch that inserts every entry knows the feed's dates and unread count without reading them back:
/// they are what reading them back gives, for entries dated by publication, by update only, or not at all (the
/// time of the fetch), with one hidden by a kill rule, and more than the hundred the dates are taken from.
#[test]
fn a_first_fetch_knows_the_feeds_dates_and_unread_count_as_the_table_has_them() {
    let at = |secs: i64| chrono::DateTime::from_timestamp(secs, 0);
    let mut entries: Vec<ParsedEntry> = (0..120)
        .map(|i| {
            let mut e = entry(&format!("k{i}"), &format!("Entry {i}"));
            e.published = at(1_700_000_000 - i * 3_600 - (i * i) % 977);
            e
        })
        .collect();
    entries[3].published = None;
    entries[3].updated = at(1_650_000_000);
    entries[4].published = None;
    entries[5].updated = at(1_600_000_000);
    let mut record = fetched(entries);
    let FetchRecord::Fetched { ignored, .. } = &mut record else { unreachable!() };
    *ignored = vec![7];
    let (_dir, mut conn, feed_id) = setup();
    let now = 1_750_000_000;
    let (outcome, read_again) = save_reading_back(&mut conn, feed_id, &record, now);
    assert!(!read_again, "nothing of the feed is read back");
    assert_eq!(outcome.new, 119, "the hidden entry is stored, not counted new");
    let known = read_back(&conn, feed_id);
    assert_eq!(known.0, Some(now), "the undated entry is dated by its fetch, the newest");
    assert_eq!(outcome.unread, known.2);
    // What reading the table gives.
    crate::store::health::note_entry_dates(&conn, feed_id).unwrap();
    assert_eq!(read_back(&conn, feed_id), known);
    assert_eq!(known.2, 119);
}

/// A first fetch that lists a key twice stores the second as an update of the first: the feed is then read back.
#[test]
fn a_first_fetch_with_a_key_listed_twice_reads_the_feed_back() {
    let mut entries = daily(5);
    let mut again = entry("k0", "Entry 0, later");
    again.published = chrono::DateTime::from_timestamp(1_710_000_000, 0);
    entries.push(again);
    let (_dir, mut conn, feed_id) = setup();
    let (outcome, read_again) = save_reading_back(&mut conn, feed_id, &fetched(entries), 1_750_000_000);
    assert!(read_again);
    let stored = read_back(&conn, feed_id);
    assert_eq!(stored.0, Some(1_710_000_000), "the later listing of the key is the one stored");
    assert_eq!(outcome.unread, 5);
    crate::store::health::note_entry_dates(&conn, feed_id).unwrap();
    assert_eq!(read_back(&conn, feed_id), stored);
}

/// A feed whose entries were all purged has nothing in the table, but keys it must not store again: its next
/// fetch is no plain first fetch, and the feed is read back.
#[test]
fn a_purged_feeds_first_fetch_reads_the_feed_back() {
    let entries = daily(4);
    let (_dir, mut conn, feed_id) = setup();
    conn.execute("INSERT INTO purged_entries (feed_id, key, seen_at) VALUES (?1, 'k0', 0)", [feed_id.0]).unwrap();
    let (outcome, read_again) = save_reading_back(&mut conn, feed_id, &fetched(entries), 1_750_000_000);
    assert!(read_again);
    assert_eq!(outcome.new, 3, "the purged entry does not come back");
    let stored = read_back(&conn, feed_id);
    assert_eq!(stored.0, Some(1_700_000_000 - 86_400), "the newest entry stored, not the purged one");
    assert_eq!(outcome.unread, 3);
    crate::store::health::note_entry_dates(&conn, feed_id).unwrap();
    assert_eq!(read_back(&conn, feed_id), stored);
}
