//! Full-text search of the cache: the FTS5 index (`entry_search`, see migration 5) and the queries over it.
//!
//! The index is kept in step by the one writer without slowing refreshes: a refresh only writes entries, which
//! start unindexed (`search_indexed = 0`), and [`index_pending`] indexes them afterwards in bounded transactions
//! (the reader's upkeep, and every search before it looks). It finds them with no index of their own: ids only
//! grow, so the new ones are those past the last id it indexed (`search_indexed_to`). Triggers mark an entry
//! again when its text, its full article or its feed's name changes (noting it in `search_pending`), and delete
//! its index row when it is deleted. What is indexed — title, author, feed name, and the plain text of the
//! content and of the full article fetched from the entry's page — and how queries are read are the core's
//! `search` module.

use super::StoreError;
use crate::search::{QueryError, SearchQuery, body_text, indexed_form};
use rusqlite::{Connection, params};

/// Entries indexed per transaction: short enough that the writer's other work never waits long behind it.
pub const INDEX_BATCH: usize = 500;

/// Indexes up to `max_entries` entries that are new or changed since they were last indexed, in transactions of
/// [`INDEX_BATCH`]; returns how many it indexed (fewer than `max_entries` when none are left).
pub fn index_pending(conn: &mut Connection, max_entries: usize) -> Result<usize, StoreError> {
    let mut done = 0;
    while done < max_entries {
        let batch = (max_entries - done).min(INDEX_BATCH);
        let tx = conn.transaction()?;
        let indexed = index_batch(&tx, batch)?;
        tx.commit()?;
        done += indexed;
        if indexed < batch {
            break;
        }
    }
    Ok(done)
}

/// What an entry is indexed from: its id, title, author, feed name, own text and full article.
const INDEXED: &str = "SELECT e.id, e.title, e.author, coalesce(f.custom_title, f.title, tidings_shown_url(f.url)),
        coalesce(e.content_html, e.summary_html), e.full_html
    FROM entries e JOIN feeds f ON f.id = e.feed_id";

/// Indexes up to `batch` entries: those changed since they were indexed, then those stored since the last pass,
/// in the order of their ids; returns how many.
fn index_batch(tx: &Connection, batch: usize) -> Result<usize, StoreError> {
    let mut insert = tx.prepare_cached(
        "INSERT OR REPLACE INTO entry_search (rowid, title, author, feed, body) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut mark = tx.prepare_cached("UPDATE entries SET search_indexed = 1 WHERE id = ?1")?;
    let mut index = |row: &rusqlite::Row<'_>| -> Result<i64, StoreError> {
        let id: i64 = row.get(0)?;
        let form = |text: Option<String>| text.map(|t| indexed_form(&t));
        // The entry's own text, and the full article fetched from its page when there is one.
        let own = row.get::<_, Option<String>>(4)?.map(|html| body_text(&html));
        let full = row.get::<_, Option<String>>(5)?.map(|html| body_text(&html));
        let body = match (own, full) {
            (Some(own), Some(full)) => Some(indexed_form(&format!("{own} {full}"))),
            (one, other) => one.or(other).map(|text| indexed_form(&text)),
        };
        insert.execute(params![id, form(row.get(1)?), form(row.get(2)?), form(row.get(3)?), body])?;
        mark.execute([id])?;
        Ok(id)
    };
    let mut indexed = 0;
    let mut changed = tx.prepare_cached(&format!(
        "{INDEXED} WHERE e.id IN (SELECT entry_id FROM search_pending ORDER BY entry_id LIMIT ?1) ORDER BY e.id"
    ))?;
    let mut rows = changed.query([batch as i64])?;
    let mut done = tx.prepare_cached("DELETE FROM search_pending WHERE entry_id = ?1")?;
    while let Some(row) = rows.next()? {
        done.execute([index(row)?])?;
        indexed += 1;
    }
    if indexed < batch {
        let mut new = tx.prepare_cached(&format!(
            "{INDEXED} WHERE e.id > (SELECT id FROM search_indexed_to) ORDER BY e.id LIMIT ?1"
        ))?;
        let mut rows = new.query([(batch - indexed) as i64])?;
        let mut last = None;
        while let Some(row) = rows.next()? {
            last = Some(index(row)?);
            indexed += 1;
        }
        if let Some(last) = last {
            tx.prepare_cached("UPDATE search_indexed_to SET id = ?1")?.execute([last])?;
        }
    }
    Ok(indexed)
}

/// How many entries wait for [`index_pending`].
pub fn pending_count(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT (SELECT count(*) FROM search_pending)
                  + (SELECT count(*) FROM entries WHERE id > (SELECT id FROM search_indexed_to))",
        )?
        .query_row([], |r| r.get(0))?)
}

/// The SQL condition (on `entries e`) for the entries matching `query`, with its parameter.
pub(super) fn matching(query: &str) -> Result<(String, String), QueryError> {
    let parsed = SearchQuery::parse(query)?;
    Ok(("e.id IN (SELECT rowid FROM entry_search WHERE entry_search MATCH ?)".into(), parsed.expression().into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParsedEntry;
    use crate::model::{EntryId, FeedId, Sort, UserWrite};
    use crate::store::fixtures::{self, fetched};
    use crate::store::lists::search;
    use crate::store::{StoreError, apply, fetches};

    fn entry(key: &str, title: &str, body: &str) -> ParsedEntry {
        fixtures::entry(key, title, body, 1_700_000_000)
    }

    fn setup() -> (tempfile::TempDir, Connection, FeedId) {
        fixtures::one_feed()
    }

    fn ids(conn: &Connection, query: &str) -> Vec<EntryId> {
        search(conn, query, None, false, Sort::Newest).unwrap().into_iter().map(|r| r.id).collect()
    }

    #[test]
    fn new_entries_wait_for_the_index_pass_and_then_are_found() {
        let (_dir, mut conn, feed) = setup();
        fetches::save(&mut conn, feed, &fetched("Feed", vec![entry("a", "Tokio", "<p>runtime</p>")]), 1).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 1);
        assert!(ids(&conn, "runtime").is_empty(), "not indexed yet");
        assert_eq!(index_pending(&mut conn, 100).unwrap(), 1);
        assert_eq!(pending_count(&conn).unwrap(), 0);
        assert_eq!(ids(&conn, "runtime").len(), 1);
        assert_eq!(index_pending(&mut conn, 100).unwrap(), 0, "nothing left");
    }

    #[test]
    fn matches_come_newest_or_oldest_first_with_their_flags() {
        let (_dir, mut conn, feed) = setup();
        let dated = |key: &str, day: i64| ParsedEntry {
            published: chrono::DateTime::from_timestamp(1_700_000_000 + day * 86_400, 0),
            ..entry(key, &format!("Zeppelin {key}"), "<p>airship</p>")
        };
        let entries = vec![dated("b", 2), dated("a", 1), dated("c", 3), entry("x", "Other", "<p>none</p>")];
        fetches::save(&mut conn, feed, &fetched("Feed", entries), 1).unwrap();
        index_pending(&mut conn, 100).unwrap();
        let key_of =
            |id: EntryId| conn.query_row("SELECT key FROM entries WHERE id = ?1", [id.0], |r| r.get::<_, String>(0));
        let id_of = |key: &str| conn.query_row("SELECT id FROM entries WHERE key = ?1", [key], |r| r.get::<_, i64>(0));
        conn.execute("UPDATE entries SET read = 1, starred = 1 WHERE id = ?1", [id_of("c").unwrap()]).unwrap();
        let keys = |sort| -> Vec<(String, bool, bool)> {
            search(&conn, "zeppelin", None, false, sort)
                .unwrap()
                .into_iter()
                .map(|r| (key_of(r.id).unwrap(), r.read, r.starred))
                .collect()
        };
        let newest = keys(Sort::Newest);
        assert_eq!(newest.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(), ["c", "b", "a"]);
        assert_eq!((newest[0].1, newest[0].2), (true, true), "c is read and starred");
        assert!(!newest[1].1 && !newest[1].2);
        let oldest = keys(Sort::Oldest);
        assert_eq!(oldest.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        let unread = search(&conn, "zeppelin", None, true, Sort::Newest).unwrap();
        assert_eq!(unread.len(), 2, "unread only leaves c out");
    }

    #[test]
    fn the_pass_stops_at_its_bound_and_continues_where_it_stopped() {
        let (_dir, mut conn, feed) = setup();
        let entries = (0..1200).map(|i| entry(&format!("k{i}"), &format!("title {i}"), "word")).collect();
        fetches::save(&mut conn, feed, &fetched("Feed", entries), 1).unwrap();
        assert_eq!(index_pending(&mut conn, 700).unwrap(), 700);
        assert_eq!(pending_count(&conn).unwrap(), 500);
        assert_eq!(index_pending(&mut conn, usize::MAX).unwrap(), 500);
        assert_eq!(ids(&conn, "word").len(), 1200);
    }

    #[test]
    fn a_changed_entry_is_indexed_again_with_its_new_text() {
        let (_dir, mut conn, feed) = setup();
        fetches::save(&mut conn, feed, &fetched("Feed", vec![entry("a", "Old title", "first")]), 1).unwrap();
        index_pending(&mut conn, 100).unwrap();
        fetches::save(&mut conn, feed, &fetched("Feed", vec![entry("a", "New title", "second")]), 2).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 1);
        index_pending(&mut conn, 100).unwrap();
        assert!(ids(&conn, "first").is_empty() && ids(&conn, "old").is_empty());
        assert_eq!(ids(&conn, "second new").len(), 1);
    }

    #[test]
    fn changed_and_new_entries_wait_together_and_a_deleted_one_waits_no_more() {
        let (_dir, mut conn, feed) = setup();
        let first = vec![entry("a", "Alpha", "one"), entry("b", "Beta", "two"), entry("c", "Gamma", "three")];
        fetches::save(&mut conn, feed, &fetched("Feed", first), 1).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 3);
        assert_eq!(index_pending(&mut conn, 100).unwrap(), 3);
        assert_eq!(pending_count(&conn).unwrap(), 0);
        // b's text changes and d arrives: one changed, one new.
        let second =
            vec![entry("b", "Beta edited", "twice"), entry("c", "Gamma", "three"), entry("d", "Delta", "four")];
        fetches::save(&mut conn, feed, &fetched("Feed", second), 2).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 2);
        // c changes too, and goes before it is indexed again: nothing of it waits.
        conn.execute("UPDATE entries SET title = 'Gamma edited' WHERE key = 'c'", []).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 3);
        conn.execute("DELETE FROM entries WHERE key = 'c'", []).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 2);
        assert_eq!(index_pending(&mut conn, 100).unwrap(), 2);
        assert_eq!(pending_count(&conn).unwrap(), 0);
        assert_eq!(ids(&conn, "twice").len(), 1);
        assert_eq!(ids(&conn, "delta").len(), 1);
        assert!(ids(&conn, "gamma").is_empty() && ids(&conn, "two").is_empty());
        assert_eq!(index_pending(&mut conn, 100).unwrap(), 0, "nothing indexed twice");
    }

    #[test]
    fn a_database_from_before_keeps_its_unindexed_entries_waiting() {
        use crate::store::schema::Step;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            // The schema as the build before this step left it, with one entry indexed and two not: one
            // never indexed, one whose text changed since.
            let conn = Connection::open(&path).unwrap();
            crate::store::schema::migrate_to_before(
                &conn,
                |step| matches!(step, Step::Sql(sql) if sql.contains("CREATE TABLE search_pending")),
            );
            conn.execute_batch(
                "INSERT INTO feeds (id, url, title, added_at) VALUES (1, 'http://example.com/feed', 'Feed', 0);
                 INSERT INTO entries (id, feed_id, key, title, first_seen_at, sort_at) VALUES
                    (1, 1, 'a', 'indexed albatross', 0, 0),
                    (2, 1, 'b', 'waiting bittern', 0, 0),
                    (3, 1, 'c', 'changed cormorant', 0, 0);
                 INSERT INTO entry_search (rowid, title, author, feed, body) VALUES
                    (1, 'indexed albatross', NULL, NULL, NULL),
                    (3, 'old text', NULL, NULL, NULL);
                 UPDATE entries SET search_indexed = 1 WHERE id = 1;",
            )
            .unwrap();
        }
        let mut conn = crate::store::open_write(&path).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 2);
        assert_eq!(index_pending(&mut conn, 100).unwrap(), 2);
        assert_eq!(ids(&conn, "bittern").len(), 1);
        assert_eq!(ids(&conn, "cormorant").len(), 1);
        assert!(ids(&conn, "old").is_empty(), "the changed entry's old text is gone from the index");
        assert_eq!(ids(&conn, "albatross").len(), 1);
        // And what the refresh stores next is new to the index.
        fetches::save(&mut conn, FeedId(1), &fetched("Feed", vec![entry("d", "new dipper", "x")]), 1).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 1);
        index_pending(&mut conn, 100).unwrap();
        assert_eq!(ids(&conn, "dipper").len(), 1);
    }

    #[test]
    fn renaming_a_feed_reaches_the_feed_name_in_the_index() {
        let (_dir, mut conn, feed) = setup();
        fetches::save(&mut conn, feed, &fetched("Planet Rust", vec![entry("a", "t", "b")]), 1).unwrap();
        index_pending(&mut conn, 100).unwrap();
        assert_eq!(ids(&conn, "planet").len(), 1);
        // A refresh with the same title marks nothing.
        fetches::save(&mut conn, feed, &fetched("Planet Rust", vec![entry("a", "t", "b")]), 2).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 0);
        apply(&mut conn, &UserWrite::RenameFeed { feed_id: feed, title: Some("Crustaceans".into()) }, 0).unwrap();
        assert_eq!(pending_count(&conn).unwrap(), 1);
        index_pending(&mut conn, 100).unwrap();
        assert!(ids(&conn, "planet").is_empty());
        assert_eq!(ids(&conn, "crustaceans").len(), 1);
    }

    #[test]
    fn deleting_a_feed_deletes_its_index_rows() {
        let (_dir, mut conn, feed) = setup();
        fetches::save(&mut conn, feed, &fetched("Feed", vec![entry("a", "gone", "x"), entry("b", "gone", "y")]), 1)
            .unwrap();
        index_pending(&mut conn, 100).unwrap();
        let rows = |c: &Connection| c.query_row("SELECT count(*) FROM entry_search", [], |r| r.get::<_, i64>(0));
        assert_eq!(rows(&conn).unwrap(), 2);
        apply(&mut conn, &UserWrite::DeleteFeed(feed), 0).unwrap();
        assert_eq!(rows(&conn).unwrap(), 0);
    }

    #[test]
    fn scripts_in_content_are_not_indexed() {
        let (_dir, mut conn, feed) = setup();
        let body = "<p>visible</p><script>var hidden = 1;</script><style>.secret{}</style>";
        fetches::save(&mut conn, feed, &fetched("Feed", vec![entry("a", "t", body)]), 1).unwrap();
        index_pending(&mut conn, 100).unwrap();
        assert_eq!(ids(&conn, "visible").len(), 1);
        assert!(ids(&conn, "hidden").is_empty() && ids(&conn, "secret").is_empty());
    }

    #[test]
    fn a_query_that_means_nothing_is_a_query_error_not_an_sqlite_one() {
        let (_dir, conn, _) = setup();
        for query in ["", "  \"\" ", "-only", "!!!"] {
            let err = search(&conn, query, None, false, Sort::Newest).unwrap_err();
            assert!(matches!(err, StoreError::Query(_)), "{query:?}: {err}");
            assert!(!err.to_string().to_lowercase().contains("fts5"), "{err}");
        }
        // FTS5 syntax is read as words, never handed over.
        for query in ["AND", "NEAR(x", "a:b", "\"unclosed", "(", "*", "^x"] {
            match search(&conn, query, None, false, Sort::Newest) {
                Ok(found) => assert!(found.is_empty()),
                Err(err) => assert!(matches!(err, StoreError::Query(_)), "{query:?}: {err}"),
            }
        }
    }
}
