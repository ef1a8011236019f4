//! Queries: what the UI and the commands read. Plain functions over a connection, so they run on whichever
//! thread owns it.

use super::StoreError;
pub use crate::model::{EntryDetail, EntryRow, FeedInfo, FeedRow, FolderRow};
use crate::model::{EntryId, ErrorKind, FeedId, FolderId};
use rusqlite::{Connection, OptionalExtension, Row, params};

/// Every folder, in the order the feed list shows them.
pub fn folders(conn: &Connection) -> Result<Vec<FolderRow>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT id, name, parent_id, collapsed FROM folders ORDER BY position, lower(name)")?;
    let rows = stmt
        .query_map([], |r| Ok(FolderRow { id: r.get(0)?, name: r.get(1)?, parent: r.get(2)?, collapsed: r.get(3)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// What a refresh needs to know about a feed before fetching it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefreshTarget {
    pub id: FeedId,
    pub url: String,
    /// What to call it in messages.
    pub title: String,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub encoding_override: Option<String>,
    /// Not to be fetched automatically before this time (seconds since the epoch).
    pub retry_at: Option<i64>,
    pub dead: bool,
}

const FEED_COLUMNS: &str = "f.id, f.url, coalesce(f.custom_title, f.title, f.url), f.site_url, f.folder_id,
    (SELECT path FROM folder_paths p WHERE p.id = f.folder_id),
    (SELECT count(*) FROM entries e WHERE e.feed_id = f.id AND e.read = 0),
    f.last_status, f.last_error, f.error_kind, f.last_fetched_at,
        coalesce(json_array_length(f.encoding_decision, '$.overridden'), 0) > 0, f.encoding_override,
    f.retry_at, f.dead, f.full_text";

/// Every folder's path ("Tech/Rust"), for the feed rows' `folder`.
const FOLDER_PATHS: &str = "WITH RECURSIVE folder_paths(id, path, depth) AS (
        SELECT id, name, 0 FROM folders WHERE parent_id IS NULL
        UNION ALL SELECT c.id, p.path || '/' || c.name, p.depth + 1 FROM folders c JOIN folder_paths p ON c.parent_id = p.id
            WHERE p.depth < 64)";

fn feed_row(r: &Row<'_>) -> rusqlite::Result<FeedRow> {
    Ok(FeedRow {
        id: r.get(0)?,
        url: r.get(1)?,
        title: r.get(2)?,
        site_url: r.get(3)?,
        folder_id: r.get(4)?,
        folder: r.get(5)?,
        unread: r.get(6)?,
        last_status: r.get(7)?,
        last_error: r.get(8)?,
        error_kind: r.get::<_, Option<String>>(9)?.as_deref().and_then(ErrorKind::from_name),
        last_fetched_at: r.get(10)?,
        encoding_overridden: r.get(11)?,
        encoding_forced: r.get(12)?,
        retry_at: r.get(13)?,
        dead: r.get(14)?,
        full_text: r.get(15)?,
    })
}

/// Every subscription with its unread count: top-level feeds first, then folders by name; feeds by title.
pub fn feeds(conn: &Connection) -> Result<Vec<FeedRow>, StoreError> {
    let sql = format!(
        "{FOLDER_PATHS} SELECT {FEED_COLUMNS} FROM feeds f LEFT JOIN folders d ON d.id = f.folder_id
         ORDER BY d.id IS NOT NULL, d.position, lower(d.name), f.position,
                  lower(coalesce(f.custom_title, f.title, f.url))"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([], feed_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// One subscription, as the feed list shows it.
pub fn feed(conn: &Connection, id: FeedId) -> Result<Option<FeedRow>, StoreError> {
    let sql = format!(
        "{FOLDER_PATHS} SELECT {FEED_COLUMNS} FROM feeds f LEFT JOIN folders d ON d.id = f.folder_id WHERE f.id = ?1"
    );
    Ok(conn.prepare_cached(&sql)?.query_row([id], feed_row).optional()?)
}

/// Most entries one list shows (the newest).
pub const MAX_LISTED_ENTRIES: i64 = 10_000;

/// The entries of a feed, newest first.
pub fn entries(conn: &Connection, feed_id: FeedId) -> Result<Vec<EntryRow>, StoreError> {
    entry_rows(
        conn,
        "SELECT id, feed_id, title, link, sort_at, read, starred FROM entries
         WHERE feed_id = ?1 ORDER BY sort_at DESC, id DESC LIMIT ?2",
        feed_id,
    )
}

/// The entries of every feed in a folder, newest first.
pub fn folder_entries(conn: &Connection, folder_id: FolderId) -> Result<Vec<EntryRow>, StoreError> {
    entry_rows(
        conn,
        "SELECT id, feed_id, title, link, sort_at, read, starred FROM entries
         WHERE feed_id IN (SELECT id FROM feeds WHERE folder_id = ?1) ORDER BY sort_at DESC, id DESC LIMIT ?2",
        folder_id,
    )
}

fn entry_rows(conn: &Connection, sql: &str, id: i64) -> Result<Vec<EntryRow>, StoreError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt
        .query_map(params![id, MAX_LISTED_ENTRIES], |r| {
            Ok(EntryRow {
                id: r.get(0)?,
                feed_id: r.get(1)?,
                title: r.get(2)?,
                link: r.get(3)?,
                date: r.get(4)?,
                read: r.get(5)?,
                starred: r.get(6)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// One entry with its content.
pub fn entry(conn: &Connection, id: EntryId) -> Result<Option<EntryDetail>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.id, e.feed_id, coalesce(f.custom_title, f.title, f.url), e.title, e.link, e.author,
                e.published_at, e.updated_at, e.content_html, e.summary_html, e.read, e.starred,
                e.categories, e.enclosures, e.comments, e.thumbnail, e.full_html, e.full_error
         FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE e.id = ?1",
    )?;
    let detail = stmt
        .query_row([id], |r| {
            Ok(EntryDetail {
                id: r.get(0)?,
                feed_id: r.get(1)?,
                feed_title: r.get(2)?,
                title: r.get(3)?,
                link: r.get(4)?,
                author: r.get(5)?,
                published_at: r.get(6)?,
                updated_at: r.get(7)?,
                content_html: r.get(8)?,
                summary_html: r.get(9)?,
                read: r.get(10)?,
                starred: r.get(11)?,
                categories: json_list(r.get(12)?),
                enclosures: json_list(r.get(13)?),
                comments: r.get(14)?,
                thumbnail: r.get(15)?,
                full_html: r.get(16)?,
                full_error: r.get(17)?,
            })
        })
        .optional()?;
    Ok(detail)
}

/// A JSON list stored in a column; an unreadable one reads as empty.
fn json_list<T: serde::de::DeserializeOwned>(column: Option<String>) -> Vec<T> {
    column.and_then(|c| serde_json::from_str(&c).ok()).unwrap_or_default()
}

/// The feed-info view's data for one subscription.
pub fn feed_info(conn: &Connection, id: FeedId) -> Result<Option<FeedInfo>, StoreError> {
    let Some(row) = feed(conn, id)? else { return Ok(None) };
    let info = conn
        .prepare_cached(
            "SELECT (SELECT count(*) FROM entries WHERE feed_id = ?1), failures, last_success_at, etag, last_modified,
                    added_at, encoding_decision, parse_warnings, title
             FROM feeds WHERE id = ?1",
        )?
        .query_row([id], |r| {
            let decision: Option<String> = r.get(6)?;
            Ok(FeedInfo {
                row: row.clone(),
                entries: r.get(0)?,
                failures: r.get(1)?,
                last_success_at: r.get(2)?,
                etag: r.get(3)?,
                last_modified: r.get(4)?,
                added_at: r.get(5)?,
                decision: decision.and_then(|d| serde_json::from_str(&d).ok()),
                warnings: json_list(r.get(7)?),
                own_title: r.get(8)?,
            })
        })
        .optional()?;
    Ok(info)
}

/// URL and validators of the feeds to refresh; `None` means every feed.
pub fn refresh_targets(conn: &Connection, ids: Option<&[FeedId]>) -> Result<Vec<RefreshTarget>, StoreError> {
    let map = |r: &Row<'_>| {
        Ok(RefreshTarget {
            id: r.get(0)?,
            url: r.get(1)?,
            etag: r.get(2)?,
            last_modified: r.get(3)?,
            encoding_override: r.get(4)?,
            retry_at: r.get(5)?,
            dead: r.get(6)?,
            title: r.get(7)?,
        })
    };
    let base = "SELECT id, url, etag, last_modified, encoding_override, retry_at, dead,
                       coalesce(custom_title, title, url) FROM feeds";
    match ids {
        None => {
            let mut stmt = conn.prepare_cached(&format!("{base} ORDER BY id"))?;
            Ok(stmt.query_map([], map)?.collect::<Result<Vec<_>, _>>()?)
        }
        Some(ids) => {
            let mut stmt = conn.prepare_cached(&format!("{base} WHERE id = ?1"))?;
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                if let Some(t) = stmt.query_row(params![id], map).optional()? {
                    out.push(t);
                }
            }
            Ok(out)
        }
    }
}

/// The longest a feed's own request to be fetched less often (`<ttl>`, `sy:updatePeriod`, `Cache-Control:
/// max-age`) can hold off automatic refreshes: a day, so no server can switch a feed off.
pub const MAX_REFRESH_EVERY_SECS: i64 = 24 * 3600;

/// Feeds due for an automatic refresh at `now`: alive, not asked to wait, and not fetched for `interval` seconds
/// (or for longer, up to [`MAX_REFRESH_EVERY_SECS`], when the feed itself asks to be fetched less often).
pub fn due_feeds(conn: &Connection, now: i64, interval: i64) -> Result<Vec<FeedId>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM feeds
         WHERE dead = 0 AND coalesce(retry_at, 0) <= ?1
           AND coalesce(last_fetched_at, 0) + max(?2, min(coalesce(refresh_every_secs, 0), ?3)) <= ?1
         ORDER BY coalesce(last_fetched_at, 0), id",
    )?;
    let rows = stmt.query_map(params![now, interval, MAX_REFRESH_EVERY_SECS], |r| r.get(0))?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Unread entries of a feed.
pub fn unread_count(conn: &Connection, feed_id: FeedId) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM entries WHERE feed_id = ?1 AND read = 0")?
        .query_row([feed_id], |r| r.get(0))?)
}

/// Every subscription (its URL, the name it shows, its site and folder) and every folder, in the feed list's
/// order: what `tidings export` writes.
pub fn export_doc(conn: &Connection) -> Result<crate::opml::ExportDoc, StoreError> {
    let paths = super::folders::paths(conn)?;
    let folders = folders(conn)?.into_iter().filter_map(|f| paths.get(&f.id).cloned()).collect();
    let mut stmt = conn.prepare_cached(
        "SELECT url, coalesce(custom_title, title, url), site_url, folder_id FROM feeds
         ORDER BY position, lower(coalesce(custom_title, title, url))",
    )?;
    let feeds = stmt
        .query_map([], |r| {
            let folder: Option<crate::model::FolderId> = r.get(3)?;
            Ok(crate::opml::ExportFeed {
                url: r.get(0)?,
                title: r.get(1)?,
                site_url: r.get(2)?,
                folder: folder.and_then(|id| paths.get(&id).cloned()).unwrap_or_default(),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(crate::opml::ExportDoc { feeds, folders })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query plan of a statement, one detail line each.
    fn plan(conn: &Connection, sql: &str) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.collect::<Result<Vec<_>, _>>().unwrap().join("\n")
    }

    #[test]
    fn unread_counts_and_entry_lists_use_indexes_not_scans() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::store::open_write(&dir.path().join("t.db")).unwrap();
        let feeds = plan(
            &conn,
            &format!("{FOLDER_PATHS} SELECT {FEED_COLUMNS} FROM feeds f LEFT JOIN folders d ON d.id = f.folder_id"),
        );
        assert!(feeds.contains("INDEX entries_unread_by_feed"), "{feeds}");
        assert!(!feeds.contains("SCAN e"), "{feeds}");
        let entries = plan(&conn, "SELECT id FROM entries WHERE feed_id = 1 ORDER BY sort_at DESC, id DESC LIMIT 10");
        assert!(entries.contains("entries_by_feed_date") && !entries.contains("TEMP B-TREE"), "{entries}");
    }
}
