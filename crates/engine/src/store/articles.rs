//! Full articles: the extracted page behind an entry's link, stored beside the entry's own text (which stays),
//! or why it could not be had; and which feeds have their new entries fetched in full on refresh.

use super::{RowIds, StoreError};
use crate::model::EntryId;
use rusqlite::{Connection, OptionalExtension, params};

/// Largest article stored, as for an entry's content.
pub const MAX_ARTICLE_BYTES: usize = super::MAX_CONTENT_BYTES;

/// Stores what fetching an entry's page gave: the article's sanitized HTML, or the reason there is none (the
/// entry is then not tried again automatically). The entry's own content is untouched.
pub fn set_full_text(
    conn: &Connection,
    entry_id: EntryId,
    result: Result<&str, &str>,
    now: i64,
) -> Result<(), StoreError> {
    let (html, error) = match result {
        Ok(html) => (Some(crate::sanitize::truncate_bytes(html, MAX_ARTICLE_BYTES)), None),
        Err(why) => (None, Some(crate::sanitize::truncate_bytes(why, 2048))),
    };
    conn.prepare_cached("UPDATE entries SET full_html = ?2, full_error = ?3, full_fetched_at = ?4 WHERE id = ?1")?
        .execute(params![entry_id.0, html, error, now])?;
    Ok(())
}

/// The address whose networks the page of the entry `entry_id` may be fetched from (`None` when there is no
/// such entry): its feed's, or its account server's (`FeedRow::content_of`; see [`crate::fetch::reach`]).
pub fn feed_url(conn: &Connection, entry_id: EntryId) -> Result<Option<String>, StoreError> {
    let mut stmt = conn.prepare_cached(concat!(
        "SELECT ",
        super::feeds::content_of!(),
        " FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE e.id = ?1"
    ))?;
    Ok(stmt.query_row([entry_id.0], |r| r.get(0)).optional()?)
}

/// Entries whose page is to be fetched in full: of feeds that ask for it, first seen since the feed asked (not
/// those stored before) and in the last `max_age_secs`, never tried, with a link; the newest first, at most
/// `limit`.
pub fn pending(
    conn: &Connection,
    now: i64,
    max_age_secs: i64,
    limit: usize,
) -> Result<Vec<(EntryId, String)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        // The few full-text feeds first, then each one's recent entries through its own index (CROSS JOIN keeps
        // that order even before the planner has statistics): no index of every entry is kept for this.
        "SELECT e.id, e.link FROM feeds f CROSS JOIN entries e ON e.feed_id = f.id
         WHERE f.full_text = 1 AND e.full_html IS NULL AND e.full_error IS NULL AND e.link IS NOT NULL
           AND e.first_seen_at >= ?1 AND e.first_seen_at >= coalesce(f.full_text_since, 0)
         ORDER BY e.first_seen_at DESC, e.id DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![now - max_age_secs, limit as i64], |r| Ok((r.id(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FeedId, NewFeed, UserWrite};

    #[test]
    fn only_new_untried_entries_of_full_text_feeds_are_pending() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = crate::store::open_write(&dir.path().join("t.db")).unwrap();
        let feeds = ["http://example.com/a", "http://example.com/b"].map(|url| NewFeed {
            url: url.into(),
            title: None,
            name: None,
            site_url: None,
            folder: vec![],
        });
        let import = UserWrite::Import { feeds: feeds.to_vec(), folders: vec![] };
        crate::store::apply(&mut conn, &import, 0).unwrap();
        conn.execute_batch(
            "INSERT INTO entries (feed_id, key, link, first_seen_at, sort_at) VALUES
               (1, 'old', 'http://example.com/old', 10, 10),
               (1, 'new', 'http://example.com/new', 1000, 1000),
               (1, 'nolink', NULL, 1000, 1000),
               (2, 'other', 'http://example.com/other', 1000, 1000);",
        )
        .unwrap();
        assert!(pending(&conn, 1000, 500, 10).unwrap().is_empty(), "no feed asks for full text yet");
        crate::store::apply(&mut conn, &UserWrite::SetFeedFullText { feed_id: FeedId(1), on: true }, 0).unwrap();
        let due = pending(&conn, 1000, 500, 10).unwrap();
        assert_eq!(due, vec![(EntryId(2), "http://example.com/new".to_string())]);
        assert_eq!(feed_url(&conn, EntryId(2)).unwrap().as_deref(), Some("http://example.com/a"));
        assert_eq!(feed_url(&conn, EntryId(99)).unwrap(), None);
        set_full_text(&conn, EntryId(2), Err("the page is a PDF"), 1001).unwrap();
        assert!(pending(&conn, 1000, 500, 10).unwrap().is_empty(), "a failure is not tried again");
    }

    /// Defect 11 of issue 21: `T` fetches in full the entries that arrive after it, not every entry stored.
    #[test]
    fn turning_full_text_on_leaves_the_entries_stored_before() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = crate::store::open_write(&dir.path().join("t.db")).unwrap();
        let feed =
            NewFeed { url: "http://example.com/a".into(), title: None, name: None, site_url: None, folder: vec![] };
        crate::store::apply(&mut conn, &UserWrite::Import { feeds: vec![feed], folders: vec![] }, 0).unwrap();
        conn.execute_batch(
            "INSERT INTO entries (feed_id, key, link, first_seen_at, sort_at) VALUES
               (1, 'stored', 'http://example.com/stored', 900, 900);",
        )
        .unwrap();
        crate::store::apply(&mut conn, &UserWrite::SetFeedFullText { feed_id: FeedId(1), on: true }, 950).unwrap();
        assert!(pending(&conn, 1000, 500, 10).unwrap().is_empty(), "stored before T: not fetched in full");
        conn.execute_batch(
            "INSERT INTO entries (feed_id, key, link, first_seen_at, sort_at) VALUES
               (1, 'new', 'http://example.com/new', 990, 990);",
        )
        .unwrap();
        assert_eq!(pending(&conn, 1000, 500, 10).unwrap(), vec![(EntryId(2), "http://example.com/new".to_string())]);
    }
}
