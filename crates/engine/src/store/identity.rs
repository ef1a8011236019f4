//! Entry identity: which stored entry, if any, an entry a feed lists is — the one stored under its key; the one
//! carried over from another reader under another key ([`alias_of`]); none, when retention purged it while the
//! feed still lists it (it stays purged); or its twin, when the feed gave it a new id — and storing it as that
//! entry: inserted, or updated when its fields changed.
//!
//! Both a refresh (`fetches`, one feed's document at a time) and a sync (`accounts`, the server's items) store
//! their entries here. It never touches an entry's read or starred flags, nor what a fetch records about the
//! feed itself (validators, errors, backoff).

mod inserts;

use super::{MAX_CONTENT_BYTES, MAX_TITLE_BYTES, RowIds, StoreError};
use crate::model::{EntryId, FeedId, ParsedEntry};
use rusqlite::{CachedStatement, Connection, OptionalExtension, params};
use std::borrow::Cow;

/// What storing one entry did.
pub(super) enum Upsert {
    Inserted(EntryId),
    Updated,
    /// The entry was stored under another id, which the feed no longer lists: it now goes by the new one.
    Rotated,
    Unchanged,
}

/// Stores one entry of a feed (an account's item): its id when it is new. Read and starred flags are never
/// touched here. `elsewhere` is the feed's, from [`Elsewhere::of_items`], for the items of one transaction.
pub(super) fn store_entry<'a>(
    tx: &'a Connection,
    feed_id: FeedId,
    entry: &'a ParsedEntry,
    now: i64,
    elsewhere: &mut Elsewhere<'a>,
) -> Result<Option<EntryId>, StoreError> {
    Ok(match upsert_entry(tx, feed_id, entry, now, elsewhere, false)? {
        Upsert::Inserted(id) => Some(id),
        Upsert::Updated | Upsert::Rotated | Upsert::Unchanged => None,
    })
}

/// Stores one entry by its id (`key`). An entry whose id is new but whose twin is stored — the same link and
/// title (and date, when both have one) under an id the document no longer lists (`twins`) — is that twin: a
/// feed that gives its entries new ids on every fetch must not grow the cache and bring back read entries as
/// unread. The twin takes the new id and keeps its flags. `ignored`: a kill rule matched it (stored so when new,
/// and when changed).
///
/// Per entry this costs what storing it must: cached statements bound to fields borrowed from the parsed entry
/// (nothing copied, no SQL built), one lookup by key, and for a new one an insert. A feed's first fetch looks
/// nothing up, and its new entries wait to be inserted several to a statement ([`Elsewhere::flush`], which
/// the caller runs after the last of them).
pub(super) fn upsert_entry<'a>(
    tx: &'a Connection,
    feed_id: FeedId,
    e: &'a ParsedEntry,
    now: i64,
    elsewhere: &mut Elsewhere<'a>,
    ignored: bool,
) -> Result<Upsert, StoreError> {
    let row = NewFields::of(e);
    let key = crate::sanitize::truncate_bytes(&e.key, MAX_TITLE_BYTES);

    // A feed's first fetch stores nothing under a key before the document brings it: only a key it lists twice
    // is looked up.
    let unseen = elsewhere.first_fetch.as_mut().is_some_and(|keys| keys.insert(key));
    // Nothing to look for (and nothing of the feed stored to find): the insert waits to go with others.
    if unseen && !elsewhere.purged && elsewhere.inserts.is_some() {
        let id = elsewhere.next_id(tx)?;
        elsewhere.stored(tx, id);
        elsewhere.inserts.as_mut().expect("checked above").push(id, key, row, now, ignored);
        return Ok(Upsert::Inserted(EntryId(id)));
    }
    // Anything else may read the table: what waits goes in first.
    elsewhere.flush(tx)?;
    elsewhere.not_all_queued();
    // The stored entry's id, when it was first seen, and whether it already holds these fields: compared in
    // place, on the row's own bytes, rather than copied out first (a changed document lists mostly entries that
    // have not changed, each with its whole content).
    let stored: Option<(EntryId, i64, bool)> = if unseen {
        None
    } else {
        held(
            &mut elsewhere.lookup,
            tx,
            "SELECT id, first_seen_at, title, link, author, published_at, updated_at, content_html, summary_html,
                    categories, enclosures, comments, thumbnail
             FROM entries WHERE feed_id = ?1 AND key = ?2",
        )?
        .query_row(params![feed_id.0, key], |r| {
            let text = |i: usize| -> rusqlite::Result<Option<&str>> { Ok(r.get_ref(i)?.as_str_or_null()?) };
            let number = |i: usize| -> rusqlite::Result<Option<i64>> { Ok(r.get_ref(i)?.as_i64_or_null()?) };
            let same = row.title.as_deref() == text(2)?
                && row.link == text(3)?
                && row.author.as_deref() == text(4)?
                && row.published == number(5)?
                && row.updated == number(6)?
                && row.content == text(7)?
                && row.summary == text(8)?
                && row.categories.as_deref() == text(9)?
                && row.enclosures.as_deref() == text(10)?
                && row.comments == text(11)?
                && row.thumbnail == text(12)?;
            Ok((r.id(0)?, r.get(1)?, same))
        })
        .optional()?
    };

    let fields = &row.params();
    match stored {
        // An entry carried over from another reader under another key: it is this one.
        None if let Some(id) = elsewhere.aliases.then(|| alias_of(tx, feed_id, key)).transpose()?.flatten() => {
            // It goes by a listed key now: no longer a twin for another new id.
            if let Some(twins) = elsewhere.twins.as_mut() {
                twins.forget(id);
            }
            upsert_entry(tx, feed_id, e, now, elsewhere, ignored)
        }
        None if elsewhere.purged && super::purge::was_purged(tx, feed_id, key, now)? => Ok(Upsert::Unchanged),
        None if let Some(twin) =
            elsewhere.twins.as_mut().map(|t| t.twin_of(tx, feed_id, &row)).transpose()?.flatten() =>
        {
            tx.prepare_cached(
                "UPDATE entries SET key = ?2, title = ?3, link = ?4, author = ?5, published_at = ?6, updated_at = ?7,
                    content_html = ?8, summary_html = ?9, categories = ?10, enclosures = ?11, comments = ?12,
                    thumbnail = ?13, sort_at = coalesce(?6, ?7, first_seen_at), ignored = ?14
                 WHERE id = ?1",
            )?
            .execute(bound(&[&twin.0, &key], fields, &[&ignored]))?;
            Ok(Upsert::Rotated)
        }
        None => {
            let id = elsewhere.next_id(tx)?;
            held(&mut elsewhere.insert, tx, inserts::insert_sql(1))?.execute(bound(
                &[&feed_id.0, &key, &now],
                fields,
                &[&ignored, &id],
            ))?;
            elsewhere.stored(tx, id);
            Ok(Upsert::Inserted(EntryId(id)))
        }
        Some((_, _, true)) => Ok(Upsert::Unchanged),
        Some((id, first_seen, false)) => {
            held(
                &mut elsewhere.update,
                tx,
                "UPDATE entries SET title = ?3, link = ?4, author = ?5, published_at = ?6, updated_at = ?7,
                    content_html = ?8, summary_html = ?9, categories = ?10, enclosures = ?11, comments = ?12,
                    thumbnail = ?13, sort_at = coalesce(?6, ?7, ?2), ignored = ?14
                 WHERE id = ?1",
            )?
            .execute(bound(&[&id.0, &first_seen], fields, &[&ignored]))?;
            Ok(Upsert::Updated)
        }
    }
}

/// A statement's parameters: some of its own, then an entry's fields, then some more, bound in that order without
/// gathering them anywhere first (a refresh binds 50,000 entries).
fn bound<'p>(
    head: &'p [&'p dyn rusqlite::ToSql],
    fields: &'p [&'p dyn rusqlite::ToSql],
    tail: &'p [&'p dyn rusqlite::ToSql],
) -> impl rusqlite::Params + 'p {
    rusqlite::params_from_iter(head.iter().chain(fields).chain(tail))
}

/// Where a fetch's ids not stored yet are looked for, each asked of the database once per fetch rather than once
/// per entry: among the keys of entries carried over from another reader (`aliases`), the keys retention purged
/// (`purged`), and the twins.
pub(super) struct Elsewhere<'a> {
    aliases: bool,
    purged: bool,
    twins: Option<Twins<'a>>,
    /// On a feed's first fetch (nothing of it stored), the keys stored so far in this fetch.
    first_fetch: Option<std::collections::HashSet<&'a str>>,
    /// The id the next new entry takes, while nothing else has been written since it was worked out: with the
    /// connection's count of rows written then (see [`Elsewhere::next_id`]).
    next_id: Option<(i64, u64)>,
    /// The statements that look an entry up, insert one and update one: taken from the connection's cache at
    /// their first use and kept for the feed, rather than found there again (their text hashed) for every entry.
    lookup: Option<CachedStatement<'a>>,
    insert: Option<CachedStatement<'a>>,
    update: Option<CachedStatement<'a>>,
    /// A refresh's first fetch of a feed: its new entries, waiting to be inserted several at a time (`None` for
    /// an account's items, which are stored one by one, each at once).
    inserts: Option<inserts::Inserts<'a>>,
}

/// The statement `sql`, taken from `tx`'s cache into `slot` at its first use.
fn held<'s, 'a>(
    slot: &'s mut Option<CachedStatement<'a>>,
    tx: &'a Connection,
    sql: &str,
) -> Result<&'s mut CachedStatement<'a>, StoreError> {
    let statement = match slot.take() {
        Some(statement) => statement,
        None => tx.prepare_cached(sql)?,
    };
    Ok(slot.insert(statement))
}

impl<'a> Elsewhere<'a> {
    /// Where an account's items for `feed_id` are looked for, asked of the database once per feed and
    /// transaction rather than once per item: a server's item ids are its own and stable, so no twin is looked
    /// for; a feed with nothing stored (a first sync) has no key to look up but those the items repeat.
    pub(super) fn of_items(tx: &Connection, feed_id: FeedId) -> Result<Elsewhere<'a>, StoreError> {
        let (stored, aliases, purged): (bool, bool, bool) = tx
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM entries WHERE feed_id = ?1),
                        EXISTS (SELECT 1 FROM entry_aliases WHERE feed_id = ?1),
                        EXISTS (SELECT 1 FROM purged_entries WHERE feed_id = ?1)",
            )?
            .query_row([feed_id.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(Elsewhere {
            aliases: stored && aliases,
            purged,
            twins: None,
            first_fetch: (!stored).then(std::collections::HashSet::new),
            next_id: None,
            lookup: None,
            insert: None,
            update: None,
            inserts: None,
        })
    }

    /// The id the next new entry takes ([`next_entry_id!`]), asked of the database only when a row was written
    /// since the last one here (by anything, triggers included: SQLite's count of changes moved). A refresh
    /// stores a feed's new entries one after the other, so it asks once per feed instead of once per entry.
    fn next_id(&mut self, tx: &Connection) -> Result<i64, StoreError> {
        let written = tx.total_changes();
        match self.next_id {
            Some((id, at)) if at == written => Ok(id),
            _ => Ok(tx.prepare_cached(concat!("SELECT ", next_entry_id!()))?.query_row([], |r| r.get(0))?),
        }
    }

    /// Whether retention purged entries of the feed that its documents still listed (their keys are kept).
    pub(super) fn any_purged(&self) -> bool {
        self.purged
    }

    /// Notes that the entry `id` was just stored (the one change since [`Elsewhere::next_id`]).
    fn stored(&mut self, tx: &Connection, id: i64) {
        self.next_id = Some((id + 1, tx.total_changes()));
    }

    /// Where a fetched document's entries for `feed_id` are looked for: as an account's items are, and among
    /// the twins. A twin is a stored entry the document no longer lists: a feed with nothing stored yet (its first
    /// fetch) has none, and its new entries are not searched for one.
    pub(super) fn of_feed(
        tx: &Connection,
        feed_id: FeedId,
        listed: &'a [ParsedEntry],
    ) -> Result<Elsewhere<'a>, StoreError> {
        let mut elsewhere = Elsewhere::of_items(tx, feed_id)?;
        match elsewhere.first_fetch.as_mut() {
            Some(keys) => {
                keys.reserve(listed.len());
                elsewhere.inserts = Some(inserts::Inserts::new(feed_id.0, listed.len()));
            }
            None => elsewhere.twins = Some(Twins::new(listed)),
        }
        Ok(elsewhere)
    }

    /// Inserts the new entries waiting (see [`inserts`]). A fetch's entries are all in the table once this has
    /// run after the last of them.
    pub(super) fn flush(&mut self, tx: &'a Connection) -> Result<(), StoreError> {
        match self.inserts.as_mut() {
            Some(inserts) => inserts.flush(tx),
            None => Ok(()),
        }
    }
}

/// Where a document's new ids look for their twins: the feed's stored entries that the document no longer lists,
/// by title, read once per fetch and only when the document brings an id not stored yet (a feed's first fetch
/// has none to read). One query per feed instead of one scan of the feed's entries per new entry.
struct Twins<'a> {
    /// The document's entries.
    listed: &'a [ParsedEntry],
    /// By title: (id, canonical link, date) of each stored entry the document does not list; read on first use.
    unlisted: Option<ByTitle>,
    /// The feed's own site, in canonical form (read with `unlisted`).
    site: Option<String>,
}

/// Stored entries by title: (id, canonical link, date) of each.
type ByTitle = std::collections::HashMap<String, Vec<(EntryId, String, Option<i64>)>>;

impl<'a> Twins<'a> {
    fn new(listed: &'a [ParsedEntry]) -> Twins<'a> {
        Twins { listed, unlisted: None, site: None }
    }

    /// The stored entry that `row`, under an id not stored yet, is: one of the feed's with the same title and the
    /// same link (compared in canonical form, so a tracking parameter that changes per fetch does not count), the
    /// same date when both have one, stored under an id that the document no longer has. A link that is only the
    /// feed's site (every entry of some feeds has it) identifies nothing. A twin found is taken: it goes by the
    /// new id from now on.
    fn twin_of(
        &mut self,
        tx: &Connection,
        feed_id: FeedId,
        row: &NewFields<'_>,
    ) -> Result<Option<EntryId>, StoreError> {
        let (Some(title), Some(link)) = (&row.title, row.link) else { return Ok(None) };
        let Some(link) = crate::canonical::canonical_url(link) else { return Ok(None) };
        if self.unlisted.is_none() {
            self.load(tx, feed_id)?;
        }
        let Some(candidates) = self.unlisted.as_mut().and_then(|u| u.get_mut(title.as_ref())) else { return Ok(None) };
        let Some(at) = candidates.iter().position(|(_, their_link, published)| {
            *their_link == link && !(published.is_some() && row.published.is_some() && *published != row.published)
        }) else {
            return Ok(None);
        };
        if self.site.as_ref().is_some_and(|s| *s == link) {
            return Ok(None);
        }
        Ok(Some(candidates.swap_remove(at).0))
    }

    /// `id` is no longer a candidate (it took a key the document lists).
    fn forget(&mut self, id: EntryId) {
        for candidates in self.unlisted.iter_mut().flat_map(|u| u.values_mut()) {
            candidates.retain(|(candidate, _, _)| *candidate != id);
        }
    }

    fn load(&mut self, tx: &Connection, feed_id: FeedId) -> Result<(), StoreError> {
        let listed: std::collections::HashSet<&str> =
            self.listed.iter().map(|e| crate::sanitize::truncate_bytes(&e.key, MAX_TITLE_BYTES)).collect();
        let mut unlisted = ByTitle::default();
        let mut stmt = tx.prepare_cached(
            "SELECT id, key, title, link, published_at FROM entries
             WHERE feed_id = ?1 AND title IS NOT NULL AND link IS NOT NULL ORDER BY id",
        )?;
        let mut rows = stmt.query([feed_id.0])?;
        while let Some(r) = rows.next()? {
            if r.get_ref(1)?.as_str().is_ok_and(|key| listed.contains(key)) {
                continue;
            }
            let link: String = r.get(3)?;
            let Some(link) = crate::canonical::canonical_url(&link) else { continue };
            unlisted.entry(r.get(2)?).or_default().push((r.id(0)?, link, r.get(4)?));
        }
        let site: Option<String> =
            tx.prepare_cached("SELECT site_url FROM feeds WHERE id = ?1")?.query_row([feed_id.0], |r| r.get(0))?;
        self.site = site.as_deref().and_then(crate::canonical::canonical_url);
        self.unlisted = Some(unlisted);
        Ok(())
    }
}

/// An entry's fields as a refresh stores them, capped, borrowed from the parsed entry wherever they can be.
struct NewFields<'a> {
    title: Option<Cow<'a, str>>,
    link: Option<&'a str>,
    author: Option<Cow<'a, str>>,
    published: Option<i64>,
    updated: Option<i64>,
    content: Option<&'a str>,
    summary: Option<&'a str>,
    categories: Option<String>,
    enclosures: Option<String>,
    comments: Option<&'a str>,
    thumbnail: Option<&'a str>,
}

impl<'a> NewFields<'a> {
    /// The fields as parameters, in the order the statements bind them.
    fn params(&self) -> [&dyn rusqlite::ToSql; 11] {
        [
            &self.title,
            &self.link,
            &self.author,
            &self.published,
            &self.updated,
            &self.content,
            &self.summary,
            &self.categories,
            &self.enclosures,
            &self.comments,
            &self.thumbnail,
        ]
    }

    fn of(e: &'a ParsedEntry) -> NewFields<'a> {
        let cap = |s: &'a Option<String>, max| s.as_deref().map(|s| crate::sanitize::truncate_bytes(s, max));
        let cap_cow = |s: Cow<'a, str>| match s {
            Cow::Borrowed(s) => Cow::Borrowed(crate::sanitize::truncate_bytes(s, MAX_TITLE_BYTES)),
            Cow::Owned(s) => Cow::Owned(crate::sanitize::truncate_bytes(&s, MAX_TITLE_BYTES).to_string()),
        };
        let title = match &e.title {
            Some(title) => Some(Cow::Borrowed(title.as_str())),
            None => e.display_title().map(Cow::Owned),
        };
        let author = match e.authors.as_slice() {
            [] => None,
            [one] => Some(Cow::Borrowed(one.as_str())),
            many => Some(Cow::Owned(many.join(", "))),
        };
        let json = |empty: bool, value: &dyn Fn() -> String| (!empty).then(value);
        NewFields {
            title: title.map(cap_cow),
            link: cap(&e.link, MAX_TITLE_BYTES),
            author: author.map(cap_cow),
            published: e.published.map(|d| d.timestamp()),
            updated: e.updated.map(|d| d.timestamp()),
            content: cap(&e.content_html, MAX_CONTENT_BYTES),
            summary: cap(&e.summary_html, MAX_CONTENT_BYTES),
            categories: json(e.categories.is_empty(), &|| serde_json::to_string(&e.categories).unwrap_or_default()),
            enclosures: json(e.enclosures.is_empty(), &|| serde_json::to_string(&e.enclosures).unwrap_or_default()),
            comments: cap(&e.comments, MAX_TITLE_BYTES),
            thumbnail: cap(&e.thumbnail, MAX_TITLE_BYTES),
        }
    }
}

/// The stored entry that a refresh's `key` is another name for (an entry carried over under a key the other
/// reader chose); the entry takes `key` as its own, so it is found by it from now on.
pub(super) fn alias_of(tx: &Connection, feed_id: FeedId, key: &str) -> Result<Option<EntryId>, StoreError> {
    let Some(id): Option<i64> = tx
        .prepare_cached("SELECT entry_id FROM entry_aliases WHERE feed_id = ?1 AND key = ?2")?
        .query_row(params![feed_id.0, key], |r| r.get(0))
        .optional()?
    else {
        return Ok(None);
    };
    tx.prepare_cached("UPDATE entries SET key = ?2 WHERE id = ?1")?.execute(params![id, key])?;
    tx.prepare_cached("DELETE FROM entry_aliases WHERE entry_id = ?1")?.execute([id])?;
    Ok(Some(EntryId(id)))
}

#[cfg(test)]
mod tests;
