use super::*;
use crate::store::fixtures::{entry, one_feed};

#[test]
fn a_new_entry_after_another_write_in_the_same_transaction_takes_the_next_free_id() {
    let listed = [entry("a", "A", "", 1), entry("b", "B", "", 2), entry("c", "C", "", 3)];
    let (_dir, mut conn, feed) = one_feed();
    let tx = conn.transaction().unwrap();
    // An account's items (a sync writes flags and more between them); a fetch's new entries are all inserted
    // before anything else writes (see `inserts`).
    let mut elsewhere = Elsewhere::of_items(&tx, feed).unwrap();
    fn stored<'a>(tx: &'a Connection, feed: FeedId, e: &mut Elsewhere<'a>, entry: &'a ParsedEntry) -> i64 {
        match upsert_entry(tx, feed, entry, 9, e, false).unwrap() {
            Upsert::Inserted(id) => id.0,
            _ => panic!("a new entry is inserted"),
        }
    }
    let a = stored(&tx, feed, &mut elsewhere, &listed[0]);
    let b = stored(&tx, feed, &mut elsewhere, &listed[1]);
    assert_eq!(b, a + 1, "one after the other");
    // Something else stores an entry in between (a sync, an import): its id is not given twice.
    tx.execute(
        concat!(
            "INSERT INTO entries (id, feed_id, key, first_seen_at, sort_at) VALUES (",
            next_entry_id!(),
            ", ?1, 'x', 0, 0)"
        ),
        [feed.0],
    )
    .unwrap();
    let c = stored(&tx, feed, &mut elsewhere, &listed[2]);
    assert_eq!(c, b + 2);
}

/// A first fetch's new entries are inserted several to a statement (`inserts`): each is stored as one insert of
/// its own would store it — its id in document order, every field, its date, whether a kill rule hid it —
/// through statements of every size, and around a key the document lists twice (looked up, so what waits goes
/// in first).
#[test]
fn a_first_fetchs_entries_are_stored_whole_and_in_order_whatever_statement_carries_them() {
    let at = |secs: i64| chrono::DateTime::from_timestamp(secs, 0);
    let mut listed: Vec<ParsedEntry> = (0..40)
        .map(|i| ParsedEntry {
            link: Some(format!("http://example.com/{i}")),
            authors: vec![format!("Author {i}")],
            categories: vec![format!("tag{i}")],
            published: if i % 2 == 0 { at(1_000 + i) } else { None },
            updated: if i % 3 == 0 { at(5_000 + i) } else { None },
            ..entry(&format!("k{i}"), &format!("Title {i}"), &format!("<p>{i}</p>"), 0)
        })
        .collect();
    listed[25] = ParsedEntry { title: Some("Title 7, again".into()), ..listed[7].clone() };
    let (_dir, mut conn, feed) = one_feed();
    let mut record = crate::store::fixtures::fetched("Feed", listed.clone());
    if let crate::store::fetches::FetchRecord::Fetched { ignored, .. } = &mut record {
        *ignored = vec![3, 30];
    }
    let outcome = crate::store::fetches::save(&mut conn, feed, &record, 77).unwrap();
    assert_eq!((outcome.new, outcome.updated), (37, 1), "39 keys, two of them hidden; k7 listed twice");

    use rusqlite::types::Value;
    let rows: Vec<Vec<Value>> = conn
        .prepare(
            "SELECT id, key, title, link, author, content_html, categories, published_at, updated_at, sort_at,
                    first_seen_at, ignored
             FROM entries WHERE feed_id = ?1 ORDER BY id",
        )
        .unwrap()
        .query_map([feed.0], |r| (0..12).map(|i| r.get(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let Value::Integer(first) = rows[0][0] else { panic!("{:?}", rows[0]) };
    let order: Vec<usize> = (0..40).filter(|i| *i != 25).collect();
    assert_eq!(rows.len(), order.len());
    for (n, (row, i)) in rows.iter().zip(order).enumerate() {
        let e = &listed[if i == 7 { 25 } else { i }];
        let published = e.published.map(|d| d.timestamp());
        let updated = e.updated.map(|d| d.timestamp());
        let text = |s: String| Value::Text(s);
        let expected = vec![
            Value::Integer(first + n as i64),
            text(format!("k{i}")),
            text(e.title.clone().unwrap()),
            text(format!("http://example.com/{i}")),
            text(format!("Author {i}")),
            text(format!("<p>{i}</p>")),
            text(format!("[\"tag{i}\"]")),
            published.map_or(Value::Null, Value::Integer),
            updated.map_or(Value::Null, Value::Integer),
            Value::Integer(published.or(updated).unwrap_or(77)),
            Value::Integer(77),
            Value::Integer(i64::from(i == 3 || i == 30)),
        ];
        assert_eq!(*row, expected, "entry {i}");
    }
    // The next new entry takes the next id.
    let next = [listed[0].clone(), entry("new", "New", "", 9_000)];
    let outcome =
        crate::store::fetches::save(&mut conn, feed, &crate::store::fixtures::fetched("Feed", next.to_vec()), 78)
            .unwrap();
    assert_eq!(outcome.new, 1);
    let id: i64 = conn.query_row("SELECT id FROM entries WHERE key = 'new'", [], |r| r.get(0)).unwrap();
    assert_eq!(id, first + rows.len() as i64);
}

/// Once the newest entries are deleted, their ids are never given again (schema step 19): a first fetch's
/// entries, inserted several to a statement under the ids SQLite gives (the largest plus one), take ids past
/// the deleted ones, in document order, even when none is left in the table.
#[test]
fn a_first_fetch_after_the_newest_entries_were_deleted_takes_ids_past_theirs_in_order() {
    let (_dir, mut conn, feed) = one_feed();
    let old: Vec<ParsedEntry> = (0..20).map(|i| entry(&format!("old{i}"), "Old", "", i)).collect();
    crate::store::fetches::save(&mut conn, feed, &crate::store::fixtures::fetched("Feed", old), 1).unwrap();
    let newest: i64 = conn.query_row("SELECT max(id) FROM entries", [], |r| r.get(0)).unwrap();
    // Every entry goes (the feed's next fetch is a first one again), so the table's largest id is gone too.
    conn.execute("DELETE FROM entries", []).unwrap();
    let listed: Vec<ParsedEntry> = (0..40).map(|i| entry(&format!("k{i}"), "New", "", i)).collect();
    let outcome =
        crate::store::fetches::save(&mut conn, feed, &crate::store::fixtures::fetched("Feed", listed), 2).unwrap();
    assert_eq!(outcome.new, 40);
    let ids: Vec<(i64, String)> = conn
        .prepare("SELECT id, key FROM entries WHERE feed_id = ?1 ORDER BY id")
        .unwrap()
        .query_map([feed.0], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let expected: Vec<(i64, String)> = (0..40).map(|i| (newest + 1 + i, format!("k{i}"))).collect();
    assert_eq!(ids, expected);
}

/// The ids SQLite gives a statement's rows are checked against those given here: when they differ (something
/// else took an id in between, here a trigger), the fetch is refused whole, with a message, rather than stored
/// under ids that other rows or the new-entry hooks were told otherwise.
#[test]
fn a_first_fetch_whose_rows_come_out_under_other_ids_is_refused_whole() {
    let (_dir, mut conn, feed) = one_feed();
    conn.execute_batch(
        "CREATE TRIGGER intruder AFTER INSERT ON entries WHEN new.key = 'k1' BEGIN
            INSERT INTO entries (id, feed_id, key, first_seen_at, sort_at) VALUES (new.id + 1000, new.feed_id, 'x', 0, 0);
         END;",
    )
    .unwrap();
    let listed: Vec<ParsedEntry> = (0..20).map(|i| entry(&format!("k{i}"), "New", "", i)).collect();
    let err =
        crate::store::fetches::save(&mut conn, feed, &crate::store::fixtures::fetched("Feed", listed), 2).unwrap_err();
    assert!(err.to_string().contains("came out under ids"), "{err}");
    let count: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 0, "nothing of the fetch is kept");
}
