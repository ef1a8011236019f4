//! The download queue in the database (the schema's `DOWNLOADS` step): one row per enclosure, its file's place,
//! its state and why, how far it got, and the validators a resume sends. `crate::downloads` runs the queue; every
//! change of a row goes through here, on the writer.

use super::StoreError;
use crate::model::{Enclosure, EntryId};
use rusqlite::{Connection, OptionalExtension, params};

pub use crate::model::{Download, DownloadState as State};

const COLUMNS: &str = concat!(
    "id, entry_id, feed_id, url, media_type, path, state, reason, bytes_done, bytes_total, etag,
    last_modified, title, feed_title, created_at, finished_at, (SELECT url FROM feeds WHERE id = feed_id),
    (SELECT ",
    super::feeds::content_of!(),
    " FROM feeds f WHERE f.id = feed_id)"
);

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Download> {
    let state: String = r.get(6)?;
    Ok(Download {
        id: r.get(0)?,
        entry_id: r.get(1)?,
        feed_id: r.get(2)?,
        url: r.get(3)?,
        media_type: r.get(4)?,
        path: r.get(5)?,
        state: State::parse(&state).unwrap_or(State::Failed),
        reason: r.get(7)?,
        bytes_done: r.get::<_, i64>(8)?.max(0) as u64,
        bytes_total: r.get::<_, Option<i64>>(9)?.map(|n| n.max(0) as u64),
        etag: r.get(10)?,
        last_modified: r.get(11)?,
        title: r.get(12)?,
        feed_title: r.get(13)?,
        created_at: r.get(14)?,
        finished_at: r.get(15)?,
        feed_url: r.get(16)?,
        content_of: r.get(17)?,
    })
}

/// Every download, oldest first.
pub fn all(conn: &Connection) -> Result<Vec<Download>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM downloads ORDER BY id"))?;
    let rows = stmt.query_map([], row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<Download>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM downloads WHERE id = ?1"))?;
    Ok(stmt.query_row([id], row).optional()?)
}

/// An enclosure to queue, with what its file's name is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wanted {
    pub entry_id: i64,
    pub feed_id: i64,
    pub feed_url: String,
    pub feed_title: String,
    pub title: String,
    pub published_at: Option<i64>,
    pub enclosure: Enclosure,
}

/// Every enclosure of the entries `ids`, in their order (an entry's in its own order).
pub fn wanted(conn: &Connection, ids: &[EntryId]) -> Result<Vec<Wanted>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.id, f.id, f.url, coalesce(f.custom_title, f.title, tidings_shown_url(f.url)), coalesce(e.title, ''),
                coalesce(e.published_at, e.sort_at), e.enclosures
         FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE e.id = ?1",
    )?;
    let mut out = Vec::new();
    for id in ids {
        let found = stmt
            .query_row([id.0], |r| {
                let enclosures: Vec<Enclosure> = super::json_list(r.get(6)?);
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get(5)?,
                    enclosures,
                ))
            })
            .optional()?;
        if let Some((entry_id, feed_id, feed_url, feed_title, title, published_at, enclosures)) = found {
            for enclosure in enclosures {
                out.push(Wanted {
                    entry_id,
                    feed_id,
                    feed_url: feed_url.clone(),
                    feed_title: feed_title.clone(),
                    title: title.clone(),
                    published_at,
                    enclosure,
                });
            }
        }
    }
    Ok(out)
}

/// Whether `url` is queued already (in any state).
pub fn queued_url(conn: &Connection, url: &str) -> Result<bool, StoreError> {
    Ok(conn.prepare_cached("SELECT 1 FROM downloads WHERE url = ?1")?.exists([url])?)
}

/// Whether a download's file is, or will be, at `path`.
pub fn path_taken(conn: &Connection, path: &str) -> Result<bool, StoreError> {
    Ok(conn.prepare_cached("SELECT 1 FROM downloads WHERE path = ?1")?.exists([path])?)
}

/// A new row of the queue, `queued`; returns its id (`None` when its URL was queued already).
#[allow(clippy::too_many_arguments)]
pub fn insert(
    conn: &Connection,
    entry_id: Option<i64>,
    feed_id: Option<i64>,
    url: &str,
    media_type: Option<&str>,
    path: &str,
    state: State,
    title: &str,
    feed_title: &str,
    now: i64,
) -> Result<Option<i64>, StoreError> {
    let added = conn
        .prepare_cached(
            "INSERT INTO downloads (entry_id, feed_id, url, media_type, path, state, title, feed_title, created_at,
                finished_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, CASE WHEN ?6 = 'done' THEN ?9 END)
             ON CONFLICT(url) DO NOTHING",
        )?
        .execute(params![entry_id, feed_id, url, media_type, path, state.as_str(), title, feed_title, now])?;
    Ok((added > 0).then(|| conn.last_insert_rowid()))
}

/// Sets a download's state and why (`reason` is cleared when `None`).
pub fn set_state(conn: &Connection, id: i64, state: State, reason: Option<&str>, now: i64) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE downloads SET state = ?2, reason = ?3,
            finished_at = CASE WHEN ?2 IN ('done', 'failed') THEN ?4 ELSE NULL END WHERE id = ?1",
    )?
    .execute(params![id, state.as_str(), reason, now])?;
    Ok(())
}

/// Sets how far a download got.
pub fn set_progress(conn: &Connection, id: i64, done: u64, total: Option<u64>) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE downloads SET bytes_done = ?2, bytes_total = ?3 WHERE id = ?1")?.execute(params![
        id,
        done as i64,
        total.map(|t| t as i64)
    ])?;
    Ok(())
}

/// Records the validators of the answer that began the `.part` file.
pub fn set_validators(
    conn: &Connection,
    id: i64,
    etag: Option<&str>,
    last_modified: Option<&str>,
) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE downloads SET etag = ?2, last_modified = ?3 WHERE id = ?1")?.execute(params![
        id,
        etag,
        last_modified
    ])?;
    Ok(())
}

/// Forgets a download (its file is the caller's).
pub fn delete(conn: &Connection, id: i64) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM downloads WHERE id = ?1")?.execute([id])?;
    Ok(())
}

/// Downloads left `downloading` by a process that ended without saying (quit, crash, kill -9) go back to the
/// queue; returns how many. Their `.part` files are where they were, and the next run resumes them.
pub fn requeue_interrupted(conn: &Connection) -> Result<usize, StoreError> {
    Ok(conn.prepare_cached("UPDATE downloads SET state = 'queued' WHERE state = 'downloading'")?.execute([])?)
}

/// The ids of the downloads waiting their turn, oldest first.
pub fn queued(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM downloads WHERE state = 'queued' ORDER BY id")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The entries with a finished download: their file is on disk.
pub fn entries_on_disk(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT DISTINCT entry_id FROM downloads WHERE state = 'done' AND entry_id IS NOT NULL")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Entries stored after entry `after` that carry enclosures and no kill rule caught, with their feeds'
/// addresses, newest first: what an automatic download considers after a refresh (the caller keeps those of
/// the feeds that download by themselves, then its cap). A feed with nothing stored before (just subscribed to)
/// has none: what it lists at first is its past, not news.
pub fn new_with_enclosures(conn: &Connection, after: i64) -> Result<Vec<(EntryId, String)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.id, f.url FROM entries e JOIN feeds f ON f.id = e.feed_id
         WHERE e.id > ?1 AND e.enclosures IS NOT NULL AND e.ignored = 0
           AND EXISTS (SELECT 1 FROM entries o WHERE o.feed_id = e.feed_id AND o.id <= ?1)
         ORDER BY e.id DESC",
    )?;
    let rows = stmt.query_map([after], |r| Ok((EntryId(r.get(0)?), r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The entry carrying the enclosure at `url`, with its feed and titles: (entry, feed, title, feed's title).
pub fn entry_with_enclosure(conn: &Connection, url: &str) -> Result<Option<(i64, i64, String, String)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.id, f.id, coalesce(e.title, ''), coalesce(f.custom_title, f.title, tidings_shown_url(f.url))
         FROM entries e JOIN feeds f ON f.id = e.feed_id
         WHERE e.enclosures IS NOT NULL
           AND EXISTS (SELECT 1 FROM json_each(e.enclosures) j WHERE json_extract(j.value, '$.url') = ?1)
         LIMIT 1",
    )?;
    Ok(stmt.query_row([url], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).optional()?)
}
