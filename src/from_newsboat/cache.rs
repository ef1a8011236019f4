//! newsboat's cache (`cache.db`, SQLite), read as the import needs it.

use super::NewsboatError;
use std::collections::HashMap;
use std::path::Path;
use tidings_core::newsboat::items::CachedItem;

/// newsboat's cache, as the import needs it.
#[derive(Debug, Default)]
pub(super) struct Cache {
    /// Feed URL → (site, title).
    pub(super) feeds: HashMap<String, (String, String)>,
    pub(super) items: Vec<CachedItem>,
    /// Items in the podcast queue: (feed URL, GUID).
    pub(super) enqueued: std::collections::HashSet<(String, String)>,
}

/// Reads newsboat's cache read-only; columns later versions added are read when they are there.
pub(super) fn read_cache(path: &Path) -> Result<Cache, NewsboatError> {
    let fail = |e: rusqlite::Error| NewsboatError::Cache { path: path.to_path_buf(), message: e.to_string() };
    if !path.is_file() {
        return Err(NewsboatError::Cache { path: path.to_path_buf(), message: "there is no such file".into() });
    }
    let conn = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(fail)?;
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info('rss_item')")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(fail)?;
    if columns.is_empty() {
        return Err(NewsboatError::Cache { path: path.to_path_buf(), message: "it has no rss_item table".into() });
    }
    let has = |c: &str| columns.iter().any(|n| n == c);
    let optional = |c: &str| if has(c) { c.to_string() } else { "NULL".to_string() };
    let mut cache = Cache::default();
    let mut feeds = conn.prepare("SELECT rssurl, url, title FROM rss_feed").map_err(fail)?;
    for row in feeds
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            ))
        })
        .map_err(fail)?
    {
        let (url, site, title) = row.map_err(fail)?;
        cache.feeds.insert(url, (site, title));
    }
    let sql = format!(
        "SELECT guid, title, author, url, feedurl, pubDate, content, unread, {}, {}, {}, {}, {}, {} FROM rss_item ORDER BY id",
        optional("enclosure_url"),
        optional("enclosure_type"),
        optional("flags"),
        optional("deleted"),
        optional("content_mime_type"),
        optional("enqueued"),
    );
    let mut stmt = conn.prepare(&sql).map_err(fail)?;
    let text = |r: &rusqlite::Row<'_>, i: usize| -> rusqlite::Result<String> {
        // newsboat stores text; an odd row may hold another type: read what can be read.
        Ok(match r.get_ref(i)? {
            rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                String::from_utf8_lossy(t).into_owned()
            }
            rusqlite::types::ValueRef::Integer(n) => n.to_string(),
            rusqlite::types::ValueRef::Real(x) => x.to_string(),
            rusqlite::types::ValueRef::Null => String::new(),
        })
    };
    let rows = stmt
        .query_map([], |r| {
            let item = CachedItem {
                guid: text(r, 0)?,
                title: text(r, 1)?,
                author: text(r, 2)?,
                url: text(r, 3)?,
                feed_url: text(r, 4)?,
                pub_date: text(r, 5)?.parse().unwrap_or(0),
                content: text(r, 6)?,
                unread: text(r, 7)? != "0",
                enclosure_url: Some(text(r, 8)?).filter(|s| !s.is_empty()),
                enclosure_type: Some(text(r, 9)?).filter(|s| !s.is_empty()),
                flags: text(r, 10)?,
                deleted: text(r, 11)? == "1",
                content_type: Some(text(r, 12)?).filter(|s| !s.is_empty()),
            };
            Ok((item, text(r, 13)? == "1"))
        })
        .map_err(fail)?;
    for row in rows {
        let (item, enqueued) = row.map_err(fail)?;
        if enqueued {
            cache.enqueued.insert((item.feed_url.clone(), item.guid.clone()));
        }
        cache.items.push(item);
    }
    Ok(cache)
}
