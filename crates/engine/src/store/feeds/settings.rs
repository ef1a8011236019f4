//! The per-feed settings the config holds (`[feeds."URL"]`, their source of truth), copied onto the feeds for the
//! queries that need them when a session starts.

use crate::store::StoreError;
use rusqlite::{Connection, params};

/// What the cache keeps of a feed's settings from the config (`[feeds."URL"]`, their source of truth), for
/// the queries that need them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedSettings {
    pub notify: bool,
    pub hide_from_unread: bool,
    /// Its own refresh interval, in minutes.
    pub refresh_minutes: Option<u32>,
    /// Honour the feed's own `<ttl>` / `sy:updatePeriod`.
    pub honour_ttl: bool,
    /// Fetch new entries in full on refresh: `Some` when the config says (the `T` key's choice otherwise).
    pub full_text: Option<bool>,
}

/// Copies the config's per-feed settings onto the feeds: `default` for every feed the config names no settings
/// for, then each URL's own. Not a user's write (nothing a server hears of): the config is where these settings
/// live.
///
/// Every session starts with this (each command, the reader, the daemon), and the config seldom changes between
/// two: only the feeds whose settings differ are written. Rewriting every row each time cost a refresh of 1000
/// feeds that all answered 304 six million of its 163 million instructions (callgrind), and a reader's start
/// every page of the table written to the log, for the checkpoint to copy back.
pub fn apply_settings(
    conn: &mut Connection,
    default: &FeedSettings,
    feeds: &[(String, FeedSettings)],
) -> Result<(), StoreError> {
    let tx = conn.transaction()?;
    let own: Vec<&str> = feeds.iter().map(|(url, _)| url.as_str()).collect();
    let own = serde_json::to_string(&own).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    tx.execute(
        "UPDATE feeds SET notify = ?1, hide_from_unread = ?2, refresh_minutes = ?3, honour_ttl = ?4
         WHERE (notify IS NOT ?1 OR hide_from_unread IS NOT ?2 OR refresh_minutes IS NOT ?3 OR honour_ttl IS NOT ?4)
           AND url NOT IN (SELECT value FROM json_each(?5))",
        params![default.notify, default.hide_from_unread, default.refresh_minutes, default.honour_ttl, own],
    )?;
    for (url, s) in feeds {
        apply_feed_settings(&tx, url, s)?;
    }
    tx.commit()?;
    Ok(())
}

/// Copies one feed's settings from the config onto the feed at `url` (one just added takes them at once), when
/// they differ from what it has.
pub fn apply_feed_settings(conn: &Connection, url: &str, s: &FeedSettings) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE feeds SET notify = ?2, hide_from_unread = ?3, refresh_minutes = ?4, honour_ttl = ?5,
            full_text = coalesce(?6, full_text)
         WHERE url = ?1 AND (notify IS NOT ?2 OR hide_from_unread IS NOT ?3 OR refresh_minutes IS NOT ?4
            OR honour_ttl IS NOT ?5 OR full_text IS NOT coalesce(?6, full_text))",
    )?
    .execute(params![url, s.notify, s.hide_from_unread, s.refresh_minutes, s.honour_ttl, s.full_text])?;
    Ok(())
}
