//! Entries: one entry's whole detail, rows for the lists on screen, and the flags people set on them — read and
//! starred — one entry, a handful, or a whole list at once. Flags change only through here (called by
//! [`super::apply`]); a refresh never touches them.

use super::changes::{self, Flag};
use super::lists::Filter;
use super::{RowIds, StoreError};
use crate::model::{EntryDetail, EntryId, EntryRow, FeedId, ListSource};
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

/// One entry with its content.
pub fn entry(conn: &Connection, id: EntryId) -> Result<Option<EntryDetail>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.id, e.feed_id, coalesce(f.custom_title, f.title, tidings_shown_url(f.url)), e.title, e.link, e.author,
                e.published_at, e.updated_at, e.content_html, e.summary_html, e.read, e.starred,
                e.categories, e.enclosures, e.comments, e.thumbnail, e.full_html, e.full_error
         FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE e.id = ?1",
    )?;
    let detail = stmt
        .query_row([id.0], |r| {
            Ok(EntryDetail {
                id: r.id(0)?,
                feed_id: r.id(1)?,
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
                categories: super::json_list(r.get(12)?),
                enclosures: super::json_list(r.get(13)?),
                comments: r.get(14)?,
                thumbnail: r.get(15)?,
                full_html: r.get(16)?,
                full_error: r.get(17)?,
            })
        })
        .optional()?;
    Ok(detail)
}

/// The rows of the entries with these ids, in the order of `ids`; ids that no longer exist are skipped.
pub fn entry_rows(conn: &Connection, ids: &[EntryId]) -> Result<Vec<EntryRow>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT id, feed_id, title, link, sort_at, read, starred FROM entries WHERE id = ?1")?;
    let mut rows = Vec::with_capacity(ids.len());
    for id in ids {
        rows.extend(stmt.query_row([id.0], entry_row).optional()?);
    }
    Ok(rows)
}

/// The rows of a feed's entries, newest first.
pub fn of_feed(conn: &Connection, feed_id: FeedId) -> Result<Vec<EntryRow>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, feed_id, title, link, sort_at, read, starred FROM entries WHERE feed_id = ?1
         ORDER BY sort_at DESC, id DESC",
    )?;
    Ok(stmt.query_map([feed_id.0], entry_row)?.collect::<Result<Vec<_>, _>>()?)
}

fn entry_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<EntryRow> {
    Ok(EntryRow {
        id: r.id(0)?,
        feed_id: r.id(1)?,
        title: r.get(2)?,
        link: r.get(3)?,
        date: r.get(4)?,
        read: r.get(5)?,
        starred: r.get(6)?,
    })
}

/// Sets `flag` to `value` on each of `ids`, inside the caller's transaction, and records each change a server
/// must hear of in the change log. Returns how many ids matched no entry (purged meanwhile).
pub(super) fn set_flag(
    tx: &Connection,
    flag: Flag,
    ids: &[EntryId],
    value: bool,
    now: i64,
) -> Result<usize, StoreError> {
    let mut update = tx.prepare_cached(match flag {
        Flag::Read => "UPDATE entries SET read = ?2 WHERE id = ?1",
        Flag::Starred => "UPDATE entries SET starred = ?2 WHERE id = ?1",
    })?;
    let mut found = 0;
    for id in ids {
        // Recorded first: the change log compares with the flag as it was.
        changes::record_flag(tx, *id, flag, value, now)?;
        found += update.execute(params![id.0, value])?;
    }
    Ok(ids.len() - found)
}

/// Marks every unread entry of the list `source` names read, inside the caller's transaction, and returns
/// exactly the ids it changed (for undo). Those a server holds are recorded in the change log first.
pub(super) fn mark_list_read(tx: &Connection, source: &ListSource, now: i64) -> Result<Vec<EntryId>, StoreError> {
    let filter = Filter::of(tx, source)?;
    let condition = filter.condition(true);
    changes::record_flags_where(tx, &condition, &filter.params, Flag::Read, true, now)?;
    let sql = format!("UPDATE entries AS e SET read = 1 WHERE {condition} RETURNING id");
    let mut stmt = tx.prepare(&sql)?;
    let changed = stmt.query_map(params_from_iter(&filter.params), |r| r.id(0))?.collect::<Result<Vec<_>, _>>()?;
    Ok(changed)
}
