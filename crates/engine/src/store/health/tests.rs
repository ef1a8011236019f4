use super::*;
use crate::model::{Applied, NewFeed, UserWrite};
use crate::store::fetches::{FetchRecord, save};
use crate::store::{apply, feeds, fixtures};

fn failed(status: Option<u16>, kind: ErrorKind) -> FetchRecord {
    FetchRecord::Failed { status, kind, message: "it failed".into(), retry_after_secs: None }
}

fn not_modified(moved_to: Option<&str>) -> FetchRecord {
    FetchRecord::NotModified { etag: None, last_modified: None, moved_to: moved_to.map(str::to_string) }
}

fn facts_of(conn: &Connection, id: FeedId) -> HealthFacts {
    facts(conn).unwrap().0.into_iter().find(|f| f.feed_id == id).unwrap()
}

/// Every attempt stored for `id`, newest first: `(at, bytes)`.
fn stored(conn: &Connection, id: FeedId) -> Vec<(i64, i64)> {
    conn.prepare("SELECT at, bytes FROM fetch_attempts WHERE feed_id = ?1 ORDER BY at DESC, rowid DESC")
        .unwrap()
        .query_map([id.0], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn the_history_shows_each_feeds_last_fifty_attempts_and_a_trim_keeps_just_those() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    let tx = conn.transaction().unwrap();
    for i in 0..60 {
        let ended = if i % 2 == 0 { (Some(304), "not-modified") } else { (Some(500), "http") };
        record_attempt(&tx, id, ended, Attempt { bytes: Some(i), duration_ms: 10 }, 1000 + i as i64).unwrap();
    }
    tx.commit().unwrap();
    let kept = attempts(&conn, id).unwrap();
    assert_eq!(kept.len(), MAX_ATTEMPTS as usize);
    assert_eq!((kept[0].at, kept[49].at), (1059, 1010), "the newest first, the oldest left out");
    assert_eq!((kept[0].status, kept[0].outcome.as_str()), (Some(500), "http"));
    assert_eq!((kept[1].status, kept[1].outcome.as_str()), (Some(304), "not-modified"));
    // Five more in the same second as one kept: the later recorded counts as the newer, so the history's last
    // fifty end inside that second, and a trim takes the rest of it with everything older.
    let tx = conn.transaction().unwrap();
    for i in 100..105 {
        record_attempt(&tx, id, (Some(200), "fetched"), Attempt { bytes: Some(i), duration_ms: 10 }, 1013).unwrap();
    }
    trim_history(&tx, id).unwrap();
    tx.commit().unwrap();
    let stored = stored(&conn, id);
    assert_eq!(stored.len(), MAX_ATTEMPTS as usize, "the table itself holds fifty after a trim");
    assert_eq!(stored[45..], [(1014, 14), (1013, 104), (1013, 103), (1013, 102), (1013, 101)]);
}

#[test]
fn recording_attempts_trims_each_feeds_history_now_and_then() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    let tx = conn.transaction().unwrap();
    let mut most = 0;
    for i in 0..1000 {
        record_attempt(&tx, id, (Some(304), "not-modified"), Attempt { bytes: Some(0), duration_ms: 10 }, i).unwrap();
        most = most.max(stored(&tx, id).len());
    }
    tx.commit().unwrap();
    let left = stored(&conn, id);
    assert!(most < MAX_ATTEMPTS as usize + 4 * TRIM_ONE_IN as usize, "at most {most} stored at once");
    assert!(left.len() >= MAX_ATTEMPTS as usize && left.len() < most, "{} left", left.len());
    assert_eq!(left[0].0, 999, "the newest kept");
    assert_eq!(attempts(&conn, id).unwrap().len(), MAX_ATTEMPTS as usize, "fifty shown");
}

#[test]
fn feeds_refreshed_in_the_same_order_every_time_are_all_trimmed_at_the_same_rate() {
    // `feeds` feeds, refreshed 256 times in the same order: feed `f` stores its attempts as rows `r * feeds + f`.
    // Counts of feeds that defeat a row id's residues (1000) or a multiplicative hash (987, 610, 1597, 377).
    for feeds in [1000, 987, 610, 1597, 377, 842, 1, 16, 4096] {
        let refreshes = 256;
        let trimmed: Vec<usize> = (0..feeds)
            .map(|f| (0..refreshes).filter(|r| trims_history(r * feeds as i64 + f as i64 + 1)).count())
            .collect();
        let never = trimmed.iter().filter(|&&n| n == 0).count();
        assert_eq!(never, 0, "{feeds} feeds: {never} never trimmed in {refreshes} refreshes");
        let all: usize = trimmed.iter().sum();
        let expected = feeds * refreshes as usize / TRIM_ONE_IN as usize;
        assert!(all > expected * 3 / 4 && all < expected * 5 / 4, "{feeds} feeds: {all} trims against {expected}");
    }
}

#[test]
fn permanent_failures_are_counted_in_a_row_and_a_success_ends_the_run() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    save(&mut conn, id, &failed(Some(404), ErrorKind::Http), 100).unwrap();
    save(&mut conn, id, &failed(None, ErrorKind::Dns), 200).unwrap();
    let f = facts_of(&conn, id);
    assert_eq!((f.failures, f.permanent_failures, f.failing_since), (2, 2, Some(100)));
    save(&mut conn, id, &failed(None, ErrorKind::Timeout), 300).unwrap();
    assert_eq!(facts_of(&conn, id).permanent_failures, 0, "a timeout breaks the run of permanent errors");
    save(&mut conn, id, &not_modified(None), 400).unwrap();
    let f = facts_of(&conn, id);
    assert_eq!((f.failures, f.failing_since, f.healthy_since), (0, None, Some(400)));
}

#[test]
fn an_outage_forgiven_leaves_no_failure_no_backoff_and_says_so_in_the_history() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    for at in [100, 200] {
        let record = failed(None, ErrorKind::Connect);
        let tx = conn.transaction().unwrap();
        crate::store::fetches::record_fetch(&tx, id, &record, at).unwrap();
        record_attempt(&tx, id, (None, "connect"), Attempt::default(), at).unwrap();
        tx.commit().unwrap();
        forgive_outage(&mut conn, &[id], at).unwrap();
    }
    let f = facts_of(&conn, id);
    assert_eq!((f.failures, f.failing_since, f.retry_at, f.last_error), (0, None, None, None));
    assert!(attempts(&conn, id).unwrap().iter().all(|a| a.outcome == "outage"));
}

#[test]
fn a_move_is_accepted_through_the_write_path_and_the_entries_stay() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    let refused = apply(&mut conn, &UserWrite::AcceptMove(id), 0);
    assert!(refused.is_err(), "nothing proposed, nothing to accept");
    for at in 1..=3 {
        save(&mut conn, id, &not_modified(Some("http://example.com/moved")), at).unwrap();
    }
    assert_eq!(feeds::feed(&conn, id).unwrap().unwrap().moved_to.as_deref(), Some("http://example.com/moved"));
    assert_eq!(apply(&mut conn, &UserWrite::AcceptMove(id), 10).unwrap(), Applied::Done);
    let row = feeds::feed(&conn, id).unwrap().unwrap();
    assert_eq!((row.url.as_str(), row.moved_to), ("http://example.com/moved", None));
}

#[test]
fn a_paused_feed_is_never_due_and_a_gone_one_is_due_again_after_a_day() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    let other =
        NewFeed { url: "http://example.com/two".into(), title: None, name: None, site_url: None, folder: vec![] };
    let Ok(Applied::Subscribed { feed_id: two, .. }) = apply(&mut conn, &UserWrite::AddFeed(other), 0) else {
        panic!("subscribe")
    };
    apply(&mut conn, &UserWrite::SetFeedsPaused { feed_ids: vec![id], paused: true }, 0).unwrap();
    save(&mut conn, two, &failed(Some(410), ErrorKind::Http), 0).unwrap();
    let far = 10 * 86_400;
    assert_eq!(feeds::due_feeds(&conn, far, 60).unwrap(), vec![two], "paused is never due; gone is, a day later");
    assert!(feeds::due_feeds(&conn, 3600, 60).unwrap().is_empty(), "gone waits its day");
    let targets = feeds::refresh_targets(&conn, None).unwrap();
    assert!(targets.iter().any(|t| t.id == id && t.paused));
}
