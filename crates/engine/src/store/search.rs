//! Full-text search of the cache: the FTS5 index (`entry_search`, see migration 5) and the queries over it.
//!
//! The index is kept in step by the one writer without slowing refreshes: a refresh only writes entries, which
//! start unindexed (`search_indexed = 0`, found through a partial index), and [`index_pending`] indexes them
//! afterwards in bounded transactions (the reader's upkeep, and every search before it looks). Triggers mark an
//! entry again when its text, its full article or its feed's name changes, and delete its index row when it is
//! deleted. What is indexed — title, author, feed name, and the plain text of the content and of the full
//! article fetched from the entry's page — and how queries are read are the core's `search` module.

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
        let indexed = {
            let mut pending = tx.prepare_cached(
                "SELECT e.id, e.title, e.author, coalesce(f.custom_title, f.title, f.url),
                        coalesce(e.content_html, e.summary_html), e.full_html
                 FROM entries e JOIN feeds f ON f.id = e.feed_id
                 WHERE e.search_indexed = 0 ORDER BY e.id LIMIT ?1",
            )?;
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO entry_search (rowid, title, author, feed, body) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let mut mark = tx.prepare_cached("UPDATE entries SET search_indexed = 1 WHERE id = ?1")?;
            let mut rows = pending.query([batch as i64])?;
            let mut indexed = 0;
            while let Some(row) = rows.next()? {
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
                indexed += 1;
            }
            indexed
        };
        tx.commit()?;
        done += indexed;
        if indexed < batch {
            break;
        }
    }
    Ok(done)
}

/// How many entries wait for [`index_pending`].
pub fn pending_count(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.prepare_cached("SELECT count(*) FROM entries WHERE search_indexed = 0")?.query_row([], |r| r.get(0))?)
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
    use crate::model::{EntryId, Sort, UserWrite};
    use crate::store::fixtures::{self, fetched};
    use crate::store::lists::search;
    use crate::store::{StoreError, apply, fetches};

    fn entry(key: &str, title: &str, body: &str) -> ParsedEntry {
        fixtures::entry(key, title, body, 1_700_000_000)
    }

    fn setup() -> (tempfile::TempDir, Connection, crate::model::FeedId) {
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
