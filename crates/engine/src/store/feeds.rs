//! Feeds: the subscriptions as the feed list, the feed-info view, a refresh and an export read them; and the
//! changes people make to them — subscribing (one, or an OPML file's worth), unsubscribing, renaming, forcing an
//! encoding, reading in full — each inside the transaction [`super::apply`] opened.

use super::changes::{self, FeedChange};
use super::places::{self, FOLDER_PATHS, FolderIds, Place};
use super::{RowIds, StoreError};
use crate::model::{AccountId, ErrorKind, FeedId, FeedInfo, FeedRow, FolderId, ImportOutcome, NewFeed};
use rusqlite::{Connection, OptionalExtension, Row, params};
pub use settings::{FeedSettings, apply_feed_settings, apply_settings};

mod settings;

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
    /// The user paused it: never fetched until resumed.
    pub paused: bool,
    /// Its folder's path ("Tech/Rust"), for kill rules narrowed to a folder.
    pub folder: Option<String>,
    /// Its tags, for kill rules by `feedtag`.
    pub tags: Vec<String>,
    /// The digest of the document its last refresh read whole (see `refresh::digest`).
    pub document_digest: Option<String>,
}

/// The address whose networks what the feed `f` points at may reach ([`FeedRow::content_of`]), as an
/// expression: the feed's, or its account server's.
macro_rules! content_of {
    () => {
        "coalesce((SELECT a.url FROM accounts a WHERE a.id = f.account_id), f.url)"
    };
}
pub(super) use content_of;

const FEED_COLUMNS: &str = concat!(
    "f.id, f.url, coalesce(f.custom_title, f.title, tidings_shown_url(f.url)), f.site_url, f.folder_id,
    (SELECT path FROM folder_paths p WHERE p.id = f.folder_id),
    (SELECT count(*) FROM entries e WHERE e.feed_id = f.id AND e.read = 0 AND e.ignored = 0),
    f.last_status, f.last_error, f.error_kind, f.last_fetched_at,
        coalesce(json_array_length(f.encoding_decision, '$.overridden'), 0) > 0, f.encoding_override,
    f.retry_at, f.dead, f.full_text, f.account_id, f.hidden, f.paused,
    CASE WHEN f.moves_in_a_row >= 3 THEN f.moved_to END, ",
    content_of!()
);

fn feed_row(r: &Row<'_>) -> rusqlite::Result<FeedRow> {
    Ok(FeedRow {
        id: r.id(0)?,
        url: r.get(1)?,
        title: r.get(2)?,
        site_url: r.get(3)?,
        folder_id: r.optional_id(4)?,
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
        account: r.optional_id(16)?,
        hidden: r.get(17)?,
        paused: r.get(18)?,
        moved_to: r.get(19)?,
        content_of: r.get(20)?,
    })
}

/// Every subscription with its unread count: top-level feeds first, then folders by name; feeds by title.
pub fn feeds(conn: &Connection) -> Result<Vec<FeedRow>, StoreError> {
    let sql = format!(
        "{FOLDER_PATHS} SELECT {FEED_COLUMNS} FROM feeds f LEFT JOIN folders d ON d.id = f.folder_id
         ORDER BY d.id IS NOT NULL, d.position, lower(d.name), f.position,
                  lower(coalesce(f.custom_title, f.title, tidings_shown_url(f.url)))"
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
    Ok(conn.prepare_cached(&sql)?.query_row([id.0], feed_row).optional()?)
}

/// The feed-info view's data for one subscription.
pub fn feed_info(conn: &Connection, id: FeedId) -> Result<Option<FeedInfo>, StoreError> {
    let Some(row) = feed(conn, id)? else { return Ok(None) };
    let info = conn
        .prepare_cached(
            "SELECT (SELECT count(*) FROM entries WHERE feed_id = ?1), failures, last_success_at, etag, last_modified,
                    added_at, encoding_decision, parse_warnings, title, id_rotations
             FROM feeds WHERE id = ?1",
        )?
        .query_row([id.0], |r| {
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
                warnings: super::json_list(r.get(7)?),
                own_title: r.get(8)?,
                id_rotations: r.get(9)?,
                settings: Vec::new(),
                attempts: Vec::new(),
            })
        })
        .optional()?;
    let Some(mut info) = info else { return Ok(None) };
    info.attempts = super::health::attempts(conn, id)?;
    Ok(Some(info))
}

/// The feeds a refresh fetches itself: an account's feeds are fetched by its server (a sync brings their entries).
const FETCHED_HERE: &str = "account_id IS NULL";

/// How many feeds `refresh_targets(conn, None)` lists, without reading them.
pub fn refresh_target_count(conn: &Connection) -> Result<usize, StoreError> {
    let count: i64 = conn.query_row(&format!("SELECT count(*) FROM feeds WHERE {FETCHED_HERE}"), [], |r| r.get(0))?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// Every feed's tags, in order, by the feed's id.
fn tags_by_feed(conn: &Connection) -> Result<std::collections::HashMap<i64, Vec<String>>, StoreError> {
    let mut tags: std::collections::HashMap<i64, Vec<String>> = std::collections::HashMap::new();
    let mut stmt = conn.prepare_cached("SELECT feed_id, tag FROM feed_tags ORDER BY feed_id, tag")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
        let (feed, tag) = row?;
        tags.entry(feed).or_default().push(tag);
    }
    Ok(tags)
}

/// URL and validators of the feeds to refresh; `None` means every feed.
pub fn refresh_targets(conn: &Connection, ids: Option<&[FeedId]>) -> Result<Vec<RefreshTarget>, StoreError> {
    let map = |r: &Row<'_>| {
        Ok(RefreshTarget {
            id: r.id(0)?,
            url: r.get(1)?,
            etag: r.get(2)?,
            last_modified: r.get(3)?,
            encoding_override: r.get(4)?,
            retry_at: r.get(5)?,
            dead: r.get(6)?,
            title: r.get(7)?,
            folder: r.get(8)?,
            paused: r.get(9)?,
            tags: Vec::new(),
            document_digest: r.get(10)?,
        })
    };
    let base = format!(
        "{FOLDER_PATHS} SELECT id, url, etag, last_modified, encoding_override, retry_at, dead,
                       coalesce(custom_title, title, tidings_shown_url(url)), (SELECT path FROM folder_paths p WHERE p.id = folder_id),
                       paused, document_digest
         FROM feeds WHERE {FETCHED_HERE}"
    );
    match ids {
        None => {
            let mut stmt = conn.prepare_cached(&format!("{base} ORDER BY id"))?;
            let mut out = stmt.query_map([], map)?.collect::<Result<Vec<_>, _>>()?;
            // Every feed's tags in one statement: a subquery a feed cost a refresh 2,000 instructions a feed, tags
            // or none.
            let mut tags = tags_by_feed(conn)?;
            for target in &mut out {
                target.tags = tags.remove(&target.id.0).unwrap_or_default();
            }
            Ok(out)
        }
        Some(ids) => {
            let mut stmt = conn.prepare_cached(&format!("{base} AND id = ?1"))?;
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                if let Some(mut target) = stmt.query_row([id.0], map).optional()? {
                    target.tags = tags(conn, target.id)?;
                    out.push(target);
                }
            }
            Ok(out)
        }
    }
}

/// The longest a feed's own request to be fetched less often (`<ttl>`, `sy:updatePeriod`, `Cache-Control:
/// max-age`) can hold off automatic refreshes: a day, so no server can switch a feed off.
pub const MAX_REFRESH_EVERY_SECS: i64 = 24 * 3600;

/// Feeds due for an automatic refresh at `now`: not paused, not asked to wait (a feed that is gone waits a day
/// between tries, see `fetches::record_fetch`), and not fetched for `interval` seconds
/// or their own `refresh_minutes` (or for longer, up to [`MAX_REFRESH_EVERY_SECS`], when the feed itself asks to
/// be fetched less often and its settings honour that).
pub fn due_feeds(conn: &Connection, now: i64, interval: i64) -> Result<Vec<FeedId>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM feeds
         WHERE account_id IS NULL AND paused = 0 AND coalesce(retry_at, 0) <= ?1
           AND coalesce(last_fetched_at, 0) + max(coalesce(refresh_minutes * 60, ?2),
                   CASE WHEN honour_ttl THEN min(coalesce(refresh_every_secs, 0), ?3) ELSE 0 END) <= ?1
         ORDER BY coalesce(last_fetched_at, 0), id",
    )?;
    let rows = stmt.query_map(params![now, interval, MAX_REFRESH_EVERY_SECS], |r| r.id(0))?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// The unread entries of the feed `?1`, as an expression: what [`unread_count`] reads, and what a refresh
/// reads with the feed's title in one statement.
macro_rules! unread_of_feed {
    () => {
        "(SELECT count(*) FROM entries WHERE feed_id = ?1 AND read = 0 AND ignored = 0)"
    };
}
pub(super) use unread_of_feed;

/// Unread entries of a feed.
pub fn unread_count(conn: &Connection, feed_id: FeedId) -> Result<i64, StoreError> {
    Ok(conn.prepare_cached(concat!("SELECT ", unread_of_feed!()))?.query_row([feed_id.0], |r| r.get(0))?)
}

/// Every subscription (its URL, the name it shows, its site, folder and tags) and every folder, in the feed
/// list's order: what `tidings export` writes.
pub fn export_doc(conn: &Connection) -> Result<crate::opml::ExportDoc, StoreError> {
    let paths = places::paths(conn)?;
    let folders = super::folders::folders(conn)?.into_iter().filter_map(|f| paths.get(&f.id).cloned()).collect();
    let mut tags = tags_by_feed(conn)?;
    let mut stmt = conn.prepare_cached(
        "SELECT url, coalesce(custom_title, title, tidings_shown_url(url)), site_url, folder_id, id FROM feeds
         ORDER BY position, lower(coalesce(custom_title, title, tidings_shown_url(url)))",
    )?;
    let feeds = stmt
        .query_map([], |r| {
            let folder: Option<FolderId> = r.optional_id(3)?;
            Ok(crate::opml::ExportFeed {
                url: r.get(0)?,
                title: r.get(1)?,
                site_url: r.get(2)?,
                folder: folder.and_then(|id| paths.get(&id).cloned()).unwrap_or_default(),
                tags: tags.remove(&r.get::<_, i64>(4)?).unwrap_or_default(),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(crate::opml::ExportDoc { feeds, folders })
}

/// How many subscriptions [`import`] adds between two progress calls.
pub const IMPORT_PROGRESS_EVERY: usize = 1_000;

/// Adds subscriptions (creating their folders, and the `folders` listed too: an OPML file's empty folders),
/// skipping URLs already subscribed, and calls `progress` with the number of subscriptions handled so far every
/// [`IMPORT_PROGRESS_EVERY`], and once at the end. Linear: each subscription costs an index lookup and an insert
/// (positions and folder ids are counted here, not looked up again each time). A name the file gives a feed is
/// the user's name for it.
pub(super) fn import(
    tx: &Connection,
    feeds: &[NewFeed],
    folders: &[Vec<String>],
    now: i64,
    progress: &mut dyn FnMut(usize),
) -> Result<ImportOutcome, StoreError> {
    let mut outcome = ImportOutcome::default();
    {
        let mut exists = tx.prepare_cached("SELECT 1 FROM feeds WHERE url = ?1 AND coalesce(account_id, 0) = ?2")?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO feeds (url, title, custom_title, site_url, folder_id, position, added_at, account_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        let mut places: std::collections::HashMap<Option<FolderId>, Place> = std::collections::HashMap::new();
        let mut position: i64 = tx.query_row("SELECT coalesce(max(position), 0) FROM feeds", [], |r| r.get(0))?;
        let mut folder_ids = FolderIds::default();
        for path in folders {
            folder_ids.path(tx, path)?;
        }
        for (done, feed) in feeds.iter().enumerate() {
            if done > 0 && done % IMPORT_PROGRESS_EVERY == 0 {
                progress(done);
            }
            let folder_id = folder_ids.path(tx, &feed.folder)?;
            if let std::collections::hash_map::Entry::Vacant(slot) = places.entry(folder_id) {
                slot.insert(places::place(tx, folder_id)?);
            }
            let place = &places[&folder_id];
            let account = place.account();
            if exists.exists(params![feed.url, account.map_or(0, |a| a.0)])? {
                outcome.duplicates.push(feed.url.clone());
                continue;
            }
            position += 1;
            insert.execute(params![
                feed.url,
                feed.title.as_deref().map(|t| crate::sanitize::truncate_bytes(t, super::MAX_TITLE_BYTES)),
                feed.name.as_deref().map(|t| crate::sanitize::truncate_bytes(t, super::MAX_TITLE_BYTES)),
                feed.site_url,
                folder_id.map(|f| f.0),
                position,
                now,
                account.map(|a| a.0)
            ])?;
            if let Place::Account { account, label } = place {
                // Subscribed in an account's folder: on its server.
                let title = feed.name.clone().or_else(|| feed.title.clone());
                let change = FeedChange::Subscribe { url: feed.url.clone(), title, label: label.clone() };
                changes::record_feed(tx, *account, &change, now)?;
            }
            outcome.added.push(feed.url.clone());
        }
    }
    progress(feeds.len());
    Ok(outcome)
}

/// Adds one subscription (or finds it, when its URL is already subscribed); returns its id and whether it was
/// new.
pub(super) fn add(tx: &Connection, feed: &NewFeed, now: i64) -> Result<(FeedId, bool), StoreError> {
    // An address an account has already (compared in canonical form): that feed, never a second copy — its
    // entries, marks and unread count are the server's.
    if let Some(id) = account_feed_of(tx, &feed.url)? {
        return Ok((id, false));
    }
    let outcome = import(tx, std::slice::from_ref(feed), &[], now, &mut |_| {})?;
    let folder = FolderIds::default().path(tx, &feed.folder)?;
    let account = places::place(tx, folder)?.account().map_or(0, |a| a.0);
    let id = tx
        .prepare_cached("SELECT id FROM feeds WHERE url = ?1 AND coalesce(account_id, 0) = ?2")?
        .query_row(params![feed.url, account], |r| r.id(0))?;
    Ok((id, !outcome.added.is_empty()))
}

/// The account feed whose address is `url`, in canonical form.
fn account_feed_of(tx: &Connection, url: &str) -> Result<Option<FeedId>, StoreError> {
    let canonical = |u: &str| crate::canonical::canonical_url(u).unwrap_or_else(|| u.to_string());
    let wanted = canonical(url);
    let mut stmt = tx.prepare_cached("SELECT id, url FROM feeds WHERE account_id IS NOT NULL ORDER BY id")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let (id, held): (FeedId, String) = (row.id(0)?, row.get(1)?);
        if canonical(&held) == wanted {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// Unsubscribes; the feed's entries go with it.
pub(super) fn delete(tx: &Connection, feed_id: FeedId) -> Result<(), StoreError> {
    tx.prepare_cached("DELETE FROM feeds WHERE id = ?1")?.execute([feed_id.0])?;
    Ok(())
}

/// Gives a feed the user's own name; `None` goes back to the feed's title. An account's feed is renamed on its
/// server too (with its own title again, for `None`).
pub(super) fn rename(tx: &Connection, feed_id: FeedId, title: Option<&str>, now: i64) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE feeds SET custom_title = ?2 WHERE id = ?1")?.execute(params![feed_id.0, title])?;
    let held: Option<(Option<AccountId>, Option<String>, String)> = tx
        .prepare_cached("SELECT account_id, remote_id, coalesce(custom_title, title, tidings_shown_url(url)) FROM feeds WHERE id = ?1")?
        .query_row([feed_id.0], |r| Ok((r.optional_id(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    if let Some((Some(account), Some(stream), shown)) = held {
        changes::record_feed(tx, account, &FeedChange::Rename { stream, title: shown }, now)?;
    }
    Ok(())
}

/// Forces (or with `None`, stops forcing) the encoding of a feed. The validators are dropped so the next
/// refresh downloads the feed again instead of hearing "not modified".
pub(super) fn set_encoding_override(tx: &Connection, feed_id: FeedId, label: Option<&str>) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE feeds SET encoding_override = ?2, etag = NULL, last_modified = NULL, document_digest = NULL
         WHERE id = ?1",
    )?
    .execute(params![feed_id.0, label])?;
    Ok(())
}

/// Leaves a feed out of the feed list, or shows it again.
pub(super) fn set_hidden(tx: &Connection, feed_id: FeedId, hidden: bool) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE feeds SET hidden = ?2 WHERE id = ?1")?.execute(params![feed_id.0, hidden])?;
    Ok(())
}

/// The local subscription (not an account's) at `url`.
pub fn local_id(conn: &Connection, url: &str) -> Result<Option<FeedId>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT id FROM feeds WHERE url = ?1 AND account_id IS NULL")?
        .query_row([url], |r| r.get(0).map(FeedId))
        .optional()?)
}

/// Gives a feed exactly these tags (blank ones dropped, each cut to a title's length).
pub(super) fn set_tags(tx: &Connection, feed_id: FeedId, tags: &[String]) -> Result<(), StoreError> {
    tx.prepare_cached("DELETE FROM feed_tags WHERE feed_id = ?1")?.execute([feed_id.0])?;
    let mut insert = tx.prepare_cached("INSERT OR IGNORE INTO feed_tags (feed_id, tag) VALUES (?1, ?2)")?;
    for tag in tags.iter().map(|t| crate::sanitize::one_line(t, 200)).filter(|t| !t.is_empty()) {
        insert.execute(params![feed_id.0, tag])?;
    }
    Ok(())
}

/// A feed's tags: newsboat's (every one, the folder's too), OPML categories, those set in the feed info.
pub fn tags(conn: &Connection, feed_id: FeedId) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT tag FROM feed_tags WHERE feed_id = ?1 ORDER BY tag")?;
    Ok(stmt.query_map([feed_id.0], |r| r.get(0))?.collect::<Result<_, _>>()?)
}

/// Fetch the new entries of this feed in full on refresh, or stop.
/// Only entries first seen from `now` on are fetched in full: those stored before are left as they are.
pub(super) fn set_full_text(tx: &Connection, feed_id: FeedId, on: bool, now: i64) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE feeds SET full_text = ?2, full_text_since = CASE WHEN ?2 THEN ?3 ELSE full_text_since END
         WHERE id = ?1",
    )?
    .execute(params![feed_id.0, on, now])?;
    Ok(())
}

#[cfg(test)]
mod tests;
