use super::*;
use crate::model::{ErrorKind, UserWrite};
use crate::store::fetches::{self, FetchRecord};
use crate::store::fixtures::{self, entry, fetched};

/// Each delivery's kind and the ids (entries, or feeds) it carries.
fn gathered(conn: &mut Connection, listeners: &[Listener<'_>]) -> Vec<(String, Vec<i64>)> {
    let made = std::cell::RefCell::new(Vec::new());
    gather(conn, listeners, None, 100, &|_, kind, items| {
        let ids = items
            .iter()
            .map(|i| match i {
                Item::Entry(e) => e.id,
                Item::Feed(f) => f.feed_id,
            })
            .collect();
        made.borrow_mut().push((kind.to_string(), ids));
        String::new()
    })
    .unwrap();
    made.into_inner()
}

/// Every stored entry's id, in order.
fn entry_ids(conn: &Connection) -> Vec<i64> {
    conn.prepare("SELECT id FROM entries ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn events(conn: &Connection) -> i64 {
    conn.query_row("SELECT count(*) FROM hook_events", [], |r| r.get(0)).unwrap()
}

#[test]
fn without_hooks_nothing_is_recorded() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    arm(&mut conn, &[]).unwrap();
    fetches::save(&mut conn, id, &fetched("F", vec![entry("a", "A", "", 1)]), 10).unwrap();
    assert_eq!(events(&conn), 0);
}

#[test]
fn each_hook_hears_its_own_kind_once_and_what_its_query_matches() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    let rust = crate::query::parse("title ~ rust").unwrap();
    let listeners = [
        Listener { key: "new", on: "new_entries", query: None },
        Listener { key: "rusty", on: "new_entries", query: Some(&rust) },
        Listener { key: "stars", on: "starred", query: None },
        Listener { key: "unstars", on: "unstarred", query: None },
    ];
    arm(&mut conn, &listeners).unwrap();
    let entries = vec![entry("a", "Rust 2.0", "", 1), entry("b", "Go", "", 2)];
    fetches::save(&mut conn, id, &fetched("F", entries), 10).unwrap();
    let ids = entry_ids(&conn);
    let star = |starred| UserWrite::SetStarred { ids: vec![ids[1].into()], starred };
    crate::store::apply(&mut conn, &star(true), 20).unwrap();
    crate::store::apply(&mut conn, &star(false), 21).unwrap();
    let made = gathered(&mut conn, &listeners);
    assert_eq!(
        made,
        [
            ("new_entries".to_string(), ids.clone()),
            ("new_entries".to_string(), vec![ids[0]]),
            ("starred".to_string(), vec![ids[1]]),
            ("unstarred".to_string(), vec![ids[1]]),
        ]
    );
    assert_eq!(events(&conn), 0, "what every hook took is forgotten");
    assert_eq!(gathered(&mut conn, &listeners), [], "and never taken twice");
}

#[test]
fn storing_entries_records_no_event_and_a_hook_added_later_hears_only_what_comes_after_it() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    let early = [Listener { key: "early", on: "new_entries", query: None }];
    arm(&mut conn, &early).unwrap();
    fetches::save(&mut conn, id, &fetched("F", vec![entry("a", "A", "", 1)]), 10).unwrap();
    assert_eq!(events(&conn), 0, "an entry is its own event");
    let both = [
        Listener { key: "early", on: "new_entries", query: None },
        Listener { key: "late", on: "new_entries", query: None },
    ];
    arm(&mut conn, &both).unwrap();
    fetches::save(&mut conn, id, &fetched("F", vec![entry("a", "A", "", 1), entry("b", "B", "", 2)]), 20).unwrap();
    let ids = entry_ids(&conn);
    assert_eq!(
        gathered(&mut conn, &both),
        [("new_entries".to_string(), ids.clone()), ("new_entries".to_string(), vec![ids[1]])]
    );
    assert_eq!(gathered(&mut conn, &both), [], "never taken twice");
}

#[test]
fn new_entries_waiting_as_events_when_the_database_is_upgraded_are_heard_once() {
    use crate::store::schema::{MIGRATIONS, Step};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.db");
    // A database of the step before entries were heard by id: a hook that took entry 1 of the three its
    // trigger recorded.
    {
        let conn = Connection::open(&path).unwrap();
        for step in &MIGRATIONS[..21] {
            match step {
                Step::Sql(sql) => conn.execute_batch(sql).unwrap(),
                Step::Code(code) => code(&conn).unwrap(),
            }
        }
        conn.execute_batch(
            "PRAGMA user_version = 21;
             INSERT INTO feeds (id, url, added_at) VALUES (1, 'http://f.example/', 0);
             INSERT INTO preferences (name, value) VALUES ('hooks.on', '|new_entries|');
             INSERT INTO hook_cursors (hook, upto) VALUES ('new', 0);
             INSERT INTO entries (id, feed_id, key, first_seen_at, sort_at) VALUES (1, 1, 'a', 0, 0);
             UPDATE hook_cursors SET upto = (SELECT max(id) FROM hook_events);
             INSERT INTO entries (id, feed_id, key, first_seen_at, sort_at) VALUES (2, 1, 'b', 0, 0), (3, 1, 'c', 0, 0);",
        )
        .unwrap();
        assert_eq!(events(&conn), 3);
    }
    let mut conn = crate::store::open_write(&path).unwrap();
    assert_eq!(events(&conn), 0, "the entries' events became the hook's cursor");
    conn.execute_batch("INSERT INTO entries (id, feed_id, key, first_seen_at, sort_at) VALUES (4, 1, 'd', 0, 0)")
        .unwrap();
    let listeners = [Listener { key: "new", on: "new_entries", query: None }];
    assert_eq!(gathered(&mut conn, &listeners), [("new_entries".to_string(), vec![2, 3, 4])]);
}

/// The hooks that hear a feed failing and recovering.
const HEALTH_LISTENERS: [Listener<'static>; 2] = [
    Listener { key: "down", on: "feed_failing", query: None },
    Listener { key: "up", on: "feed_recovered", query: None },
];

/// A fetch that failed with `status`.
fn failed_with(status: u16, retry_after_secs: Option<u64>) -> FetchRecord {
    FetchRecord::Failed {
        status: Some(status),
        kind: ErrorKind::Http,
        message: "server error".into(),
        retry_after_secs,
    }
}

#[test]
fn a_feed_that_begins_and_stops_failing_is_heard_once_each() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    arm(&mut conn, &HEALTH_LISTENERS).unwrap();
    let failed = failed_with(500, None);
    fetches::save(&mut conn, id, &failed, 10).unwrap();
    fetches::save(&mut conn, id, &failed, 20).unwrap();
    fetches::save(&mut conn, id, &fetched("F", vec![]), 30).unwrap();
    let made = gathered(&mut conn, &HEALTH_LISTENERS);
    assert_eq!(made, [("feed_failing".to_string(), vec![id.0]), ("feed_recovered".to_string(), vec![id.0])]);
}

/// A 304 updates a healthy feed without setting `failures` (which runs the health trigger), and a failing one with
/// it reset: the recovery is heard and the failure cleared all the same.
#[test]
fn a_feed_that_recovers_with_a_304_is_heard_and_its_failure_cleared() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    arm(&mut conn, &HEALTH_LISTENERS).unwrap();
    let not_modified = FetchRecord::NotModified { etag: Some("\"v2\"".into()), last_modified: None, moved_to: None };
    let failed = failed_with(503, Some(60));
    let health = |conn: &Connection| -> (i64, Option<String>, Option<i64>, Option<i64>, Option<String>) {
        conn.query_row(
            "SELECT failures, last_error, retry_at, last_fetched_at, etag FROM feeds WHERE id = ?1",
            [id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap()
    };
    fetches::save(&mut conn, id, &not_modified, 10).unwrap();
    assert_eq!(health(&conn), (0, None, None, Some(10), Some("\"v2\"".into())), "a healthy feed's 304");
    assert_eq!(events(&conn), 0, "a healthy feed staying healthy is no event");
    fetches::save(&mut conn, id, &failed, 20).unwrap();
    fetches::save(&mut conn, id, &failed, 30).unwrap();
    assert_eq!(health(&conn).0, 2);
    fetches::save(&mut conn, id, &not_modified, 40).unwrap();
    assert_eq!(health(&conn), (0, None, None, Some(40), Some("\"v2\"".into())), "the failing feed's 304");
    let made = gathered(&mut conn, &HEALTH_LISTENERS);
    assert_eq!(made, [("feed_failing".to_string(), vec![id.0]), ("feed_recovered".to_string(), vec![id.0])]);
}

#[test]
fn a_delivery_is_leased_retried_and_given_up_on() {
    let (_dir, mut conn, id) = fixtures::one_feed();
    let listeners = [Listener { key: "new", on: "new_entries", query: None }];
    arm(&mut conn, &listeners).unwrap();
    fetches::save(&mut conn, id, &fetched("F", vec![entry("a", "A", "", 1)]), 10).unwrap();
    assert_eq!(gathered(&mut conn, &listeners).len(), 1);
    let due = claim_due(&mut conn, 100, 5, 10).unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].attempts, 1);
    assert_eq!(claim_due(&mut conn, 104, 5, 10).unwrap(), [], "leased to the process making it");
    failed(&conn, due[0].id, "500", Some(110), 104).unwrap();
    assert_eq!(claim_due(&mut conn, 109, 5, 10).unwrap(), [], "not before its retry");
    let again = claim_due(&mut conn, 110, 5, 10).unwrap();
    assert_eq!((again[0].id, again[0].attempts), (due[0].id, 2), "the same event, tried again");
    failed(&conn, due[0].id, "500", None, 111).unwrap();
    assert_eq!(claim_due(&mut conn, 10_000, 5, 10).unwrap(), [], "given up on");
    assert_eq!(next_due(&conn).unwrap(), None);
}
