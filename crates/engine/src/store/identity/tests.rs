use super::*;
use crate::store::fixtures::{entry, one_feed};

#[test]
fn a_new_entry_after_another_write_in_the_same_transaction_takes_the_next_free_id() {
    let listed = [entry("a", "A", "", 1), entry("b", "B", "", 2), entry("c", "C", "", 3)];
    let (_dir, mut conn, feed) = one_feed();
    let tx = conn.transaction().unwrap();
    let mut elsewhere = Elsewhere::of_feed(&tx, feed, &listed).unwrap();
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
