//! Carrying over another reader's subscriptions and entries (`tidings import newsboat`), inside the transaction
//! [`super::apply`] opened: the feeds (their folders, names, tags, hidden or not), then their entries with read
//! state and stars, each with the other keys a refresh might give it ([`super::identity::alias_of`]), and the keys of entries the
//! other reader deleted (kept with the purged ones, so a refresh does not bring them back). What is already
//! stored is left as it is: carrying the same things over twice changes nothing the second time.

use super::{MAX_CONTENT_BYTES, MAX_TITLE_BYTES, RowIds, StoreError, feeds};
use crate::model::{CarriedEntry, CarriedFeed, CarryOutcome, FeedId, NewFeed};
use rusqlite::{Connection, params};
use std::collections::HashMap;

pub(super) fn carry_over(
    tx: &Connection,
    carried: &[CarriedFeed],
    entries: &[CarriedEntry],
    gone: &[(String, String)],
    now: i64,
) -> Result<CarryOutcome, StoreError> {
    let new: Vec<NewFeed> = carried.iter().map(|c| c.feed.clone()).collect();
    let imported = feeds::import(tx, &new, &[], now, &mut |_| {})?;
    let mut outcome = CarryOutcome { feeds_present: imported.duplicates, ..CarryOutcome::default() };
    // Local subscriptions by address: the carried entries' feeds.
    let mut ids: HashMap<String, FeedId> = HashMap::new();
    {
        let mut stmt = tx.prepare_cached("SELECT url, id FROM feeds WHERE account_id IS NULL")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.id(1)?)))? {
            let (url, id) = row?;
            ids.insert(url, id);
        }
    }
    // Only feeds this carrying-over added get its hidden flag and tags: what the user changed since stays.
    let added: std::collections::HashSet<&str> = imported.added.iter().map(String::as_str).collect();
    {
        let mut hide = tx.prepare_cached("UPDATE feeds SET hidden = 1 WHERE id = ?1")?;
        let mut tag = tx.prepare_cached("INSERT OR IGNORE INTO feed_tags (feed_id, tag) VALUES (?1, ?2)")?;
        for c in carried.iter().filter(|c| added.contains(c.feed.url.as_str())) {
            let Some(id) = ids.get(&c.feed.url) else { continue };
            if c.hidden {
                outcome.hidden += hide.execute([id.0])?;
            }
            for t in &c.tags {
                outcome.tags += tag.execute(params![id.0, crate::sanitize::truncate_bytes(t, MAX_TITLE_BYTES)])?;
            }
        }
    }
    outcome.feeds_added = imported.added;
    {
        let mut exists = tx.prepare_cached("SELECT 1 FROM entries WHERE feed_id = ?1 AND key = ?2")?;
        let mut aliased = tx.prepare_cached("SELECT 1 FROM entry_aliases WHERE feed_id = ?1 AND key = ?2")?;
        let mut insert = tx.prepare_cached(concat!(
            "INSERT INTO entries (id, feed_id, key, first_seen_at, title, link, author, published_at,
                    updated_at, content_html, summary_html, categories, enclosures, comments, thumbnail, sort_at,
                    read, starred)
                 VALUES (",
            next_entry_id!(),
            ", ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, coalesce(?7, ?8, ?3), ?15, ?16)"
        ))?;
        let mut alias =
            tx.prepare_cached("INSERT OR IGNORE INTO entry_aliases (feed_id, key, entry_id) VALUES (?1, ?2, ?3)")?;
        for carried in entries {
            let Some(feed_id) = ids.get(&carried.feed_url).copied() else {
                outcome.entries_orphaned += 1;
                continue;
            };
            let e = &carried.entry;
            let key = crate::sanitize::truncate_bytes(&e.key, MAX_TITLE_BYTES);
            let mut known = exists.exists(params![feed_id.0, key])? || aliased.exists(params![feed_id.0, key])?;
            for other in &carried.aliases {
                known = known || exists.exists(params![feed_id.0, other])?;
            }
            if known {
                outcome.entries_present += 1;
                continue;
            }
            let cap =
                |s: &Option<String>, max| s.as_deref().map(|s| crate::sanitize::truncate_bytes(s, max).to_string());
            let json = |empty: bool, value: String| (!empty).then_some(value);
            insert.execute(params![
                feed_id.0,
                key,
                now,
                cap(&e.display_title(), MAX_TITLE_BYTES),
                cap(&e.link, MAX_TITLE_BYTES),
                cap(&(!e.authors.is_empty()).then(|| e.authors.join(", ")), MAX_TITLE_BYTES),
                e.published.map(|d| d.timestamp()),
                e.updated.map(|d| d.timestamp()),
                cap(&e.content_html, MAX_CONTENT_BYTES),
                cap(&e.summary_html, MAX_CONTENT_BYTES),
                json(e.categories.is_empty(), serde_json::to_string(&e.categories).unwrap_or_default()),
                json(e.enclosures.is_empty(), serde_json::to_string(&e.enclosures).unwrap_or_default()),
                cap(&e.comments, MAX_TITLE_BYTES),
                cap(&e.thumbnail, MAX_TITLE_BYTES),
                carried.read,
                carried.starred,
            ])?;
            let id = tx.last_insert_rowid();
            for other in carried.aliases.iter().filter(|a| a.as_str() != key) {
                alias.execute(params![feed_id.0, crate::sanitize::truncate_bytes(other, MAX_TITLE_BYTES), id])?;
            }
            outcome.entries_added += 1;
            outcome.read += usize::from(carried.read);
            outcome.starred += usize::from(carried.starred);
        }
    }
    {
        let mut remember = tx.prepare_cached(
            "INSERT OR IGNORE INTO purged_entries (feed_id, key, seen_at)
             SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM entries WHERE feed_id = ?1 AND key = ?2)",
        )?;
        for (url, key) in gone {
            if let Some(feed_id) = ids.get(url) {
                outcome.gone += remember.execute(params![feed_id.0, key, now])?;
            }
        }
    }
    Ok(outcome)
}
