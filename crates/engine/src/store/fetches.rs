//! What a refresh stores: how each feed's fetch ended ([`FetchRecord`]) and the entries it brought, with the
//! feed's validators, backoff and errors. Entries are inserted or updated, never their read or starred flags.
//!
//! Results arrive from many hosts at once; [`Batcher`] stores several feeds per transaction when they arrive
//! together (group commit), each feed still all-or-nothing (a batch that cannot be stored whole is stored again
//! feed by feed), so one writer keeps up.

use super::{DbThread, RowIds, StoreError};
use crate::model::{EntryId, ErrorKind, FeedId, ParsedEntry, ParsedFeed};
use rusqlite::{Connection, OptionalExtension, params};
use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

use super::{MAX_CONTENT_BYTES, MAX_TITLE_BYTES};

pub use crate::model::MAX_ENTRIES_PER_REFRESH;

/// How a fetch of one feed ended, as the store records it.
#[derive(Clone, Debug)]
pub enum FetchRecord {
    /// A new document was fetched and parsed.
    Fetched {
        status: u16,
        etag: Option<String>,
        last_modified: Option<String>,
        /// Boxed: a parsed feed is much larger than the other variants.
        feed: Box<ParsedFeed>,
        /// The decoding decision, as JSON.
        decision: Option<String>,
        /// Where the feed moved for good (every redirect was permanent).
        moved_to: Option<String>,
        /// How often the feed (or its server) asks to be fetched at most, in seconds.
        min_interval_secs: Option<u64>,
        /// The places (in `feed.entries`) of the entries kill rules matched: stored ignored.
        ignored: Vec<usize>,
        /// How many entries the document listed when that is more than a refresh keeps and `feed.entries` was
        /// already cut to [`MAX_ENTRIES_PER_REFRESH`] (the refresher lets the rest go right after parsing).
        cut_from: Option<usize>,
    },
    /// 304: nothing changed since the validators we sent.
    NotModified { etag: Option<String>, last_modified: Option<String>, moved_to: Option<String> },
    /// The fetch, decoding or parsing failed; stored entries stay as they were.
    Failed {
        status: Option<u16>,
        kind: ErrorKind,
        message: String,
        /// How long the server asked us to wait (429, 503), in seconds.
        retry_after_secs: Option<u64>,
    },
}

/// What a refresh changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyOutcome {
    pub new: usize,
    pub updated: usize,
    pub unread: i64,
    /// The feed's display title after the refresh.
    pub title: String,
    /// The feed's new address, when a permanent redirect moved it.
    pub moved_to: Option<String>,
    /// When the feed may be fetched again, after a failure (seconds since the epoch).
    pub retry_at: Option<i64>,
    /// The server said the feed is gone for good (410).
    pub dead: bool,
    /// The feed listed more than [`MAX_ENTRIES_PER_REFRESH`] entries: how many (only the first were kept).
    pub cut_from: Option<usize>,
}

/// What the feed info says of a feed that lists more entries than a refresh keeps.
pub fn cut_warning(listed: usize) -> String {
    format!(
        "the feed lists {listed} entries; tidings keeps the first {MAX_ENTRIES_PER_REFRESH} of each refresh and drops \
         the rest (a fixed limit)"
    )
}

/// How long to leave a feed alone after its `failures`-th failure in a row: nothing after the first (it may
/// be a blip), then five minutes doubling each time, up to a day.
pub fn backoff_secs(failures: i64) -> i64 {
    if failures < 2 {
        return 0;
    }
    let doublings = (failures - 2).min(20) as u32;
    (300_i64 * 2_i64.pow(doublings)).min(86_400)
}

/// Records one fetch of one feed, entries included, in one transaction.
pub fn save(
    conn: &mut Connection,
    feed_id: FeedId,
    record: &FetchRecord,
    now: i64,
) -> Result<ApplyOutcome, StoreError> {
    let tx = conn.transaction()?;
    let outcome = record_fetch(&tx, feed_id, record, now)?;
    tx.commit()?;
    Ok(outcome)
}

/// Records one fetch of one feed, entries included, inside a transaction the caller opened and commits: the
/// refresher stores several feeds per transaction.
pub fn record_fetch(
    tx: &Connection,
    feed_id: FeedId,
    record: &FetchRecord,
    now: i64,
) -> Result<ApplyOutcome, StoreError> {
    let mut outcome = ApplyOutcome::default();
    match record {
        FetchRecord::Fetched {
            status,
            etag,
            last_modified,
            feed,
            decision,
            moved_to,
            min_interval_secs,
            ignored,
            cut_from,
        } => {
            let mut warnings = feed.warnings.clone();
            outcome.cut_from =
                cut_from.or((feed.entries.len() > MAX_ENTRIES_PER_REFRESH).then_some(feed.entries.len()));
            if let Some(listed) = outcome.cut_from {
                warnings.push(cut_warning(listed));
            }
            let warnings = (!warnings.is_empty()).then(|| serde_json::to_string(&warnings).unwrap_or_default());
            tx.prepare_cached(
                "UPDATE feeds SET title = coalesce(?2, title), site_url = coalesce(?3, site_url),
                    etag = ?4, last_modified = ?5, last_status = ?6, last_error = NULL, error_kind = NULL,
                    failures = 0, retry_at = NULL, dead = 0, last_fetched_at = ?7, last_success_at = ?7,
                    encoding_decision = coalesce(?8, encoding_decision), parse_warnings = ?9, refresh_every_secs = ?10
                 WHERE id = ?1",
            )?
            .execute(params![
                feed_id.0,
                feed.title.as_deref().map(|t| crate::sanitize::truncate_bytes(t, MAX_TITLE_BYTES)),
                feed.link,
                etag,
                last_modified,
                status,
                now,
                decision,
                warnings,
                min_interval_secs.map(|s| s as i64)
            ])?;
            let listed = &feed.entries[..feed.entries.len().min(MAX_ENTRIES_PER_REFRESH)];
            let mut elsewhere = Elsewhere::of_feed(tx, feed_id, listed)?;
            let mut rotated = 0;
            for (i, entry) in listed.iter().enumerate() {
                match upsert_entry(tx, feed_id, entry, now, &mut elsewhere, ignored.binary_search(&i).is_ok())? {
                    Upsert::Inserted(_) => outcome.new += 1,
                    Upsert::Updated => outcome.updated += 1,
                    Upsert::Rotated => {
                        outcome.updated += 1;
                        rotated += 1;
                    }
                    Upsert::Unchanged => {}
                }
            }
            if rotated > 0 {
                tx.prepare_cached("UPDATE feeds SET id_rotations = id_rotations + ?2 WHERE id = ?1")?
                    .execute(params![feed_id.0, rotated])?;
            }
            if !feed.entries.is_empty() {
                super::purge::forget_unlisted(tx, feed_id, now)?;
            }
            outcome.moved_to = move_feed_url(tx, feed_id, moved_to.as_deref())?;
        }
        FetchRecord::NotModified { etag, last_modified, moved_to } => {
            tx.prepare_cached(
                "UPDATE feeds SET etag = coalesce(?2, etag), last_modified = coalesce(?3, last_modified),
                    last_status = 304, last_error = NULL, error_kind = NULL, failures = 0, retry_at = NULL, dead = 0,
                    last_fetched_at = ?4, last_success_at = ?4
                 WHERE id = ?1",
            )?
            .execute(params![feed_id.0, etag, last_modified, now])?;
            outcome.moved_to = move_feed_url(tx, feed_id, moved_to.as_deref())?;
        }
        FetchRecord::Failed { status, kind, message, retry_after_secs } => {
            let failures: i64 = tx
                .prepare_cached("SELECT failures + 1 FROM feeds WHERE id = ?1")?
                .query_row([feed_id.0], |r| r.get(0))
                .optional()?
                .unwrap_or(1);
            let wait = backoff_secs(failures).max(retry_after_secs.map_or(0, |s| s as i64));
            let retry_at = (wait > 0).then_some(now + wait);
            let dead = *status == Some(410);
            tx.prepare_cached(
                "UPDATE feeds SET last_status = ?2, error_kind = ?3, last_error = ?4, failures = ?5, last_fetched_at = ?6,
                    retry_at = ?7, dead = ?8
                 WHERE id = ?1",
            )?
            .execute(params![feed_id.0, status, kind.as_str(), message, failures, now, retry_at, dead])?;
            outcome.retry_at = retry_at;
            outcome.dead = dead;
        }
    }
    outcome.unread = super::feeds::unread_count(tx, feed_id)?;
    outcome.title = tx
        .prepare_cached("SELECT coalesce(custom_title, title, url) FROM feeds WHERE id = ?1")?
        .query_row([feed_id.0], |r| r.get(0))
        .optional()?
        .unwrap_or_default();
    Ok(outcome)
}

/// Stores a feed's new address after a permanent redirect, unless another subscription already has it.
fn move_feed_url(tx: &Connection, feed_id: FeedId, to: Option<&str>) -> Result<Option<String>, StoreError> {
    let Some(to) = to else { return Ok(None) };
    let taken: bool =
        tx.prepare_cached("SELECT 1 FROM feeds WHERE url = ?1 AND id != ?2")?.exists(params![to, feed_id.0])?;
    if taken {
        return Ok(None);
    }
    let changed =
        tx.prepare_cached("UPDATE feeds SET url = ?2 WHERE id = ?1 AND url != ?2")?.execute(params![feed_id.0, to])?;
    Ok((changed > 0).then(|| to.to_string()))
}

/// What storing one entry did.
pub(super) enum Upsert {
    Inserted(EntryId),
    Updated,
    /// The entry was stored under another id, which the feed no longer lists: it now goes by the new one.
    Rotated,
    Unchanged,
}

/// Inserts a new entry or updates a changed one; read and starred flags are never touched here.
/// Stores one entry of a feed (an account's item): its id when it is new.
pub(super) fn store_entry(
    tx: &Connection,
    feed_id: FeedId,
    entry: &ParsedEntry,
    now: i64,
) -> Result<Option<EntryId>, StoreError> {
    // A server's item ids are its own and stable: no twin is looked for.
    let mut elsewhere = Elsewhere { aliases: true, purged: true, twins: None, first_fetch: None };
    Ok(match upsert_entry(tx, feed_id, entry, now, &mut elsewhere, false)? {
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
/// (nothing copied, no SQL built), one lookup by key, and for a new one an insert.
fn upsert_entry<'a>(
    tx: &Connection,
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
    let stored: Option<(EntryId, i64, StoredEntry)> = if unseen {
        None
    } else {
        tx.prepare_cached(
            "SELECT id, first_seen_at, title, link, author, published_at, updated_at, content_html, summary_html,
                    categories, enclosures, comments, thumbnail
             FROM entries WHERE feed_id = ?1 AND key = ?2",
        )?
        .query_row(params![feed_id.0, key], |r| {
            Ok((
                r.id(0)?,
                r.get(1)?,
                StoredEntry {
                    title: r.get(2)?,
                    link: r.get(3)?,
                    author: r.get(4)?,
                    published: r.get(5)?,
                    updated: r.get(6)?,
                    content: r.get(7)?,
                    summary: r.get(8)?,
                    categories: r.get(9)?,
                    enclosures: r.get(10)?,
                    comments: r.get(11)?,
                    thumbnail: r.get(12)?,
                },
            ))
        })
        .optional()?
    };

    let fields = params![
        row.title,
        row.link,
        row.author,
        row.published,
        row.updated,
        row.content,
        row.summary,
        row.categories,
        row.enclosures,
        row.comments,
        row.thumbnail
    ];
    match stored {
        // An entry carried over from another reader under another key: it is this one.
        None if let Some(id) =
            elsewhere.aliases.then(|| super::carried::alias_of(tx, feed_id, key)).transpose()?.flatten() =>
        {
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
            let mut values: Vec<&dyn rusqlite::ToSql> = vec![&twin.0, &key];
            values.extend_from_slice(fields);
            values.push(&ignored);
            tx.prepare_cached(
                "UPDATE entries SET key = ?2, title = ?3, link = ?4, author = ?5, published_at = ?6, updated_at = ?7,
                    content_html = ?8, summary_html = ?9, categories = ?10, enclosures = ?11, comments = ?12,
                    thumbnail = ?13, sort_at = coalesce(?6, ?7, first_seen_at), ignored = ?14
                 WHERE id = ?1",
            )?
            .execute(values.as_slice())?;
            Ok(Upsert::Rotated)
        }
        None => {
            let mut values: Vec<&dyn rusqlite::ToSql> = vec![&feed_id.0, &key, &now];
            values.extend_from_slice(fields);
            values.push(&ignored);
            tx.prepare_cached(
                "INSERT INTO entries (feed_id, key, first_seen_at, title, link, author, published_at, updated_at,
                    content_html, summary_html, categories, enclosures, comments, thumbnail, sort_at, ignored)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, coalesce(?7, ?8, ?3), ?15)",
            )?
            .execute(values.as_slice())?;
            Ok(Upsert::Inserted(EntryId(tx.last_insert_rowid())))
        }
        Some((_, _, ref old)) if row.same_as(old) => Ok(Upsert::Unchanged),
        Some((id, first_seen, _)) => {
            let mut values: Vec<&dyn rusqlite::ToSql> = vec![&id.0, &first_seen];
            values.extend_from_slice(fields);
            values.push(&ignored);
            tx.prepare_cached(
                "UPDATE entries SET title = ?3, link = ?4, author = ?5, published_at = ?6, updated_at = ?7,
                    content_html = ?8, summary_html = ?9, categories = ?10, enclosures = ?11, comments = ?12,
                    thumbnail = ?13, sort_at = coalesce(?6, ?7, ?2), ignored = ?14
                 WHERE id = ?1",
            )?
            .execute(values.as_slice())?;
            Ok(Upsert::Updated)
        }
    }
}

/// Where a fetch's ids not stored yet are looked for, each asked of the database once per fetch rather than once
/// per entry: among the keys of entries carried over from another reader (`aliases`), the keys retention purged
/// (`purged`), and the twins.
struct Elsewhere<'a> {
    aliases: bool,
    purged: bool,
    twins: Option<Twins<'a>>,
    /// On a feed's first fetch (nothing of it stored), the keys stored so far in this fetch.
    first_fetch: Option<std::collections::HashSet<&'a str>>,
}

impl<'a> Elsewhere<'a> {
    fn of_feed(tx: &Connection, feed_id: FeedId, listed: &'a [ParsedEntry]) -> Result<Elsewhere<'a>, StoreError> {
        let any = |sql: &str| -> Result<bool, StoreError> {
            Ok(tx.prepare_cached(sql)?.query_row([feed_id.0], |r| r.get::<_, bool>(0))?)
        };
        // A twin is a stored entry the document no longer lists: a feed with nothing stored yet (its first fetch)
        // has none, and its new entries are not searched for one.
        let stored = any("SELECT EXISTS (SELECT 1 FROM entries WHERE feed_id = ?1)")?;
        Ok(Elsewhere {
            aliases: stored && any("SELECT EXISTS (SELECT 1 FROM entry_aliases WHERE feed_id = ?1)")?,
            purged: any("SELECT EXISTS (SELECT 1 FROM purged_entries WHERE feed_id = ?1)")?,
            twins: stored.then(|| Twins::new(listed)),
            first_fetch: (!stored).then(|| std::collections::HashSet::with_capacity(listed.len())),
        })
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
            let key: String = r.get(1)?;
            if listed.contains(key.as_str()) {
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

    /// Whether the stored entry already holds these fields.
    fn same_as(&self, old: &StoredEntry) -> bool {
        self.title.as_deref() == old.title.as_deref()
            && self.link == old.link.as_deref()
            && self.author.as_deref() == old.author.as_deref()
            && self.published == old.published
            && self.updated == old.updated
            && self.content == old.content.as_deref()
            && self.summary == old.summary.as_deref()
            && self.categories == old.categories
            && self.enclosures == old.enclosures
            && self.comments == old.comments.as_deref()
            && self.thumbnail == old.thumbnail.as_deref()
    }
}

/// The stored fields of an entry that a refresh may change.
#[derive(Debug, PartialEq, Eq)]
struct StoredEntry {
    title: Option<String>,
    link: Option<String>,
    author: Option<String>,
    published: Option<i64>,
    updated: Option<i64>,
    content: Option<String>,
    summary: Option<String>,
    categories: Option<String>,
    enclosures: Option<String>,
    comments: Option<String>,
    thumbnail: Option<String>,
}

/// Most feeds stored in one transaction. Batches save the writer a commit per feed — and a page that several of
/// its feeds' entries touch is written to the log once, not once per feed — but every feed in a batch waits for
/// its commit, holding its refresh slot, and a user's write waits for the batch before it. With 64 rather than
/// 16, a cold 4000 × 100 refresh on 200 hosts took 4.7 s instead of 5.0 (the writer is its bottleneck).
const MAX_BATCH: usize = 64;

/// Stores refresh results on the writer thread, several feeds per transaction (group commit): the first result
/// to arrive sends the writer a job, and whatever arrives before that job runs goes into the same transaction, so
/// one writer keeps up with many hosts answering at once. Cheap to clone; clones share the queue.
#[derive(Clone)]
pub struct Batcher(Arc<Queue>);

struct Queue {
    pending: Mutex<Vec<PendingWrite>>,
    writer: DbThread,
}

impl Batcher {
    pub fn new(writer: DbThread) -> Batcher {
        Batcher(Arc::new(Queue { pending: Mutex::default(), writer }))
    }

    /// Stores one feed's result; returns when it is committed.
    pub async fn save(&self, feed_id: FeedId, record: FetchRecord) -> Result<ApplyOutcome, String> {
        self.0.save(feed_id, record).await
    }
}

struct PendingWrite {
    feed_id: FeedId,
    record: FetchRecord,
    saved: oneshot::Sender<Result<ApplyOutcome, String>>,
}

impl Queue {
    /// Sends the writer a job that stores the next batch (and sends the job after it, when more are waiting).
    fn drain(self: &Arc<Self>) {
        let mut job = Drain { queue: self.clone(), ran: false };
        self.writer.submit(move |conn| {
            job.ran = true;
            let (batch, more) = {
                let mut pending = job.queue.pending.lock().unwrap_or_else(|e| e.into_inner());
                let take = pending.len().min(MAX_BATCH);
                let batch: Vec<PendingWrite> = pending.drain(..take).collect();
                (batch, !pending.is_empty())
            };
            if more {
                job.queue.drain();
            }
            write_batch(conn, batch);
        });
    }

    /// Stores one feed's result; returns when it is committed.
    async fn save(self: &Arc<Self>, feed_id: FeedId, record: FetchRecord) -> Result<ApplyOutcome, String> {
        let (saved, outcome) = oneshot::channel();
        let first = {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            pending.push(PendingWrite { feed_id, record, saved });
            pending.len() == 1
        };
        if first {
            self.drain();
        }
        outcome.await.map_err(|_| StoreError::Closed.to_string())?
    }
}

/// A writer job that stores the next batch. Dropped without running — the writer thread is gone — it drops
/// every waiting result's answer channel, so each waiting feed fails (could not be saved) instead of waiting
/// forever.
struct Drain {
    queue: Arc<Queue>,
    ran: bool,
}

impl Drop for Drain {
    fn drop(&mut self) {
        if !self.ran {
            let abandoned = std::mem::take(&mut *self.queue.pending.lock().unwrap_or_else(|e| e.into_inner()));
            drop(abandoned);
        }
    }
}

/// Stores a batch of results and answers each. Optimistically, the whole batch in one transaction and nothing
/// more: a savepoint per feed would copy every page a feed touches into a sub-journal first, a third of the
/// store's work on a cold refresh. When a feed cannot be stored (or the commit fails), that transaction is rolled
/// back and every feed of the batch is stored again in a transaction of its own, so the one that fails fails
/// alone and leaves no trace.
fn write_batch(conn: &mut Connection, batch: Vec<PendingWrite>) {
    let now = chrono::Utc::now().timestamp();
    let together = (|| -> Result<Vec<ApplyOutcome>, StoreError> {
        let tx = conn.transaction()?;
        let outcomes =
            batch.iter().map(|w| record_fetch(&tx, w.feed_id, &w.record, now)).collect::<Result<Vec<_>, _>>()?;
        tx.commit()?;
        Ok(outcomes)
    })();
    match together {
        Ok(outcomes) => {
            for (write, outcome) in batch.into_iter().zip(outcomes) {
                let _ = write.saved.send(Ok(outcome));
            }
        }
        Err(_) => {
            for write in batch {
                let outcome = save(conn, write.feed_id, &write.record, now).map_err(|e| e.to_string());
                let _ = write.saved.send(outcome);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FeedKind, UserWrite};
    use crate::store::{apply, feeds, fixtures};

    fn entry(key: &str, title: &str) -> ParsedEntry {
        ParsedEntry {
            key: key.into(),
            title: Some(title.into()),
            link: Some(format!("http://example.com/{key}")),
            authors: vec![],
            published: chrono::DateTime::from_timestamp(1_700_000_000, 0),
            updated: None,
            content_html: Some("<p>body</p>".into()),
            summary_html: None,
            categories: vec!["news".into()],
            enclosures: vec![],
            comments: None,
            thumbnail: None,
        }
    }

    fn fetched(entries: Vec<ParsedEntry>) -> FetchRecord {
        FetchRecord::Fetched {
            status: 200,
            etag: Some("\"v1\"".into()),
            last_modified: None,
            feed: Box::new(ParsedFeed {
                kind: FeedKind::Rss2,
                title: Some("Feed".into()),
                link: None,
                description: None,
                authors: vec![],
                entries,
                warnings: vec![],
                min_interval_secs: None,
            }),
            decision: None,
            moved_to: None,
            min_interval_secs: None,
            ignored: vec![],
            cut_from: None,
        }
    }

    fn setup() -> (tempfile::TempDir, Connection, FeedId) {
        fixtures::one_feed()
    }

    /// A batch is stored in one transaction without savepoints; when one of its feeds cannot be stored, the
    /// others still are (each again in a transaction of its own), and of that one nothing is kept.
    #[test]
    fn a_batch_with_a_feed_that_cannot_be_stored_stores_the_others_and_nothing_of_it() {
        let (_dir, mut conn, first) = setup();
        let mut ids = vec![first];
        for n in 2..=3 {
            let feed = crate::model::NewFeed {
                url: format!("http://example.com/feed{n}"),
                title: None,
                name: None,
                site_url: None,
                folder: vec![],
            };
            let Ok(crate::model::Applied::Subscribed { feed_id, .. }) = apply(&mut conn, &UserWrite::AddFeed(feed), 0)
            else {
                panic!("subscribing")
            };
            ids.push(feed_id);
        }
        conn.execute_batch(
            "CREATE TRIGGER poison BEFORE INSERT ON entries WHEN NEW.key = 'poison'
             BEGIN SELECT RAISE(ABORT, 'poisoned entry'); END;",
        )
        .unwrap();
        let records = [
            fetched(vec![entry("a", "A"), entry("b", "B")]),
            fetched(vec![entry("fine", "Fine"), entry("poison", "Poison")]),
            fetched(vec![entry("c", "C")]),
        ];
        let mut answers = Vec::new();
        let batch = ids
            .iter()
            .zip(records)
            .map(|(id, record)| {
                let (saved, answer) = oneshot::channel();
                answers.push(answer);
                PendingWrite { feed_id: *id, record, saved }
            })
            .collect();
        write_batch(&mut conn, batch);
        let answers: Vec<Result<ApplyOutcome, String>> =
            answers.into_iter().map(|mut a| a.try_recv().expect("every feed is answered")).collect();
        assert_eq!(answers[0].as_ref().map(|o| o.new), Ok(2));
        assert!(answers[1].as_ref().is_err_and(|e| e.contains("poisoned entry")), "{:?}", answers[1]);
        assert_eq!(answers[2].as_ref().map(|o| o.new), Ok(1));
        let count = |id: FeedId| -> (i64, Option<String>) {
            conn.query_row(
                "SELECT (SELECT count(*) FROM entries WHERE feed_id = ?1), etag FROM feeds WHERE id = ?1",
                [id.0],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
        };
        assert_eq!(count(ids[0]), (2, Some("\"v1\"".into())));
        assert_eq!(count(ids[1]), (0, None), "nothing of the feed that could not be stored");
        assert_eq!(count(ids[2]), (1, Some("\"v1\"".into())));
    }

    #[test]
    fn a_second_refresh_of_the_same_feed_adds_no_duplicate() {
        let (_dir, mut conn, id) = setup();
        let record = fetched(vec![entry("a", "A"), entry("b", "B")]);
        let first = save(&mut conn, id, &record, 10).unwrap();
        assert_eq!((first.new, first.updated, first.unread), (2, 0, 2));
        let second = save(&mut conn, id, &record, 20).unwrap();
        assert_eq!((second.new, second.updated, second.unread), (0, 0, 2));
        assert_eq!(super::super::entries::of_feed(&conn, id).unwrap().len(), 2);
    }

    /// A feed's first fetch inserts without looking each key up: a key its document lists twice is still one
    /// entry, with the fields of its last listing, counted new once and updated once.
    #[test]
    fn a_first_fetch_that_lists_a_key_twice_stores_it_once() {
        let (_dir, mut conn, id) = setup();
        let record = fetched(vec![entry("a", "First"), entry("b", "B"), entry("a", "Second")]);
        let outcome = save(&mut conn, id, &record, 10).unwrap();
        assert_eq!((outcome.new, outcome.updated), (2, 1));
        let stored = super::super::entries::of_feed(&conn, id).unwrap();
        let mut titles: Vec<_> = stored.iter().map(|e| e.title.as_deref().unwrap_or("")).collect();
        titles.sort();
        assert_eq!(titles, ["B", "Second"]);
    }

    /// Defect 3 of issue 21: a feed that lists more than a refresh keeps says so, in the refresh's outcome and in
    /// its feed info, instead of silently keeping the first 5,000.
    #[test]
    fn a_feed_longer_than_a_refresh_keeps_says_how_many_it_listed() {
        let (_dir, mut conn, id) = setup();
        let listed = MAX_ENTRIES_PER_REFRESH + 1;
        let many: Vec<ParsedEntry> = (0..listed).map(|i| entry(&format!("k{i}"), &format!("E {i}"))).collect();
        let outcome = save(&mut conn, id, &fetched(many), 10).unwrap();
        assert_eq!((outcome.new, outcome.cut_from), (MAX_ENTRIES_PER_REFRESH, Some(listed)));
        let info = feeds::feed_info(&conn, id).unwrap().unwrap();
        assert_eq!(info.warnings, [cut_warning(listed)]);
        assert!(info.warnings[0].starts_with("the feed lists 5001 entries; tidings keeps the first 5000"));
        let outcome = save(&mut conn, id, &fetched(vec![entry("k0", "E 0")]), 20).unwrap();
        assert_eq!(outcome.cut_from, None);
        assert!(feeds::feed_info(&conn, id).unwrap().unwrap().warnings.is_empty(), "a shorter fetch clears it");
    }

    /// The same 20 entries under new ids on every fetch (what the attack's feed did): 20 entries stored after six
    /// refreshes, not 120, the read marks kept, and the feed info counting the rotations.
    #[test]
    fn a_feed_that_changes_its_ids_on_every_fetch_keeps_its_entries_and_their_marks() {
        let (_dir, mut conn, id) = setup();
        let generation = |g: usize| -> Vec<ParsedEntry> {
            (0..20)
                .map(|i| ParsedEntry {
                    key: format!("urn:uuid:{g}-{i}"),
                    link: Some(format!("http://example.com/post/{i}?utm_source=rss&utm_campaign={g}")),
                    ..entry(&format!("p{i}"), &format!("Post {i}"))
                })
                .collect()
        };
        save(&mut conn, id, &fetched(generation(0)), 10).unwrap();
        let first: Vec<EntryId> = super::super::entries::of_feed(&conn, id).unwrap().iter().map(|e| e.id).collect();
        apply(&mut conn, &UserWrite::SetRead { ids: first[..5].to_vec(), read: true }, 0).unwrap();
        apply(&mut conn, &UserWrite::SetStarred { ids: vec![first[7]], starred: true }, 0).unwrap();
        for g in 1..6 {
            let outcome = save(&mut conn, id, &fetched(generation(g)), 10 + g as i64).unwrap();
            assert_eq!(outcome.new, 0, "refresh {g}: nothing new");
        }
        let now: Vec<EntryId> = super::super::entries::of_feed(&conn, id).unwrap().iter().map(|e| e.id).collect();
        assert_eq!(now.len(), 20, "20 entries after six refreshes");
        assert_eq!(feeds::unread_count(&conn, id).unwrap(), 15, "the five read ones stay read");
        let starred: i64 = conn.query_row("SELECT count(*) FROM entries WHERE starred = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(starred, 1);
        let info = feeds::feed_info(&conn, id).unwrap().unwrap();
        assert_eq!(info.id_rotations, 100, "20 entries × 5 refreshes known again by link and title");
        // Known by the new ids from now on.
        let keys: i64 =
            conn.query_row("SELECT count(*) FROM entries WHERE key LIKE 'urn:uuid:5-%'", [], |r| r.get(0)).unwrap();
        assert_eq!(keys, 20);
    }

    /// Two posts with the same title and link are two entries when both are listed, when their dates differ, or
    /// when the link is only the feed's site.
    #[test]
    fn entries_alike_in_title_and_link_stay_apart_when_they_are_not_one() {
        let (_dir, mut conn, id) = setup();
        let weekly = |key: &str, link: &str, day: i64| ParsedEntry {
            link: Some(link.into()),
            published: chrono::DateTime::from_timestamp(1_700_000_000 + day * 86_400, 0),
            ..entry(key, "Weekly links")
        };
        // Both in one document.
        let both = vec![weekly("w1", "http://example.com/weekly", 0), weekly("w2", "http://example.com/weekly", 0)];
        assert_eq!(save(&mut conn, id, &fetched(both), 10).unwrap().new, 2);
        // A new week, its predecessor gone from the document: another date, another entry.
        let next = vec![weekly("w3", "http://example.com/weekly", 7)];
        assert_eq!(save(&mut conn, id, &fetched(next), 20).unwrap().new, 1);
        // The feed's own site as every entry's link, no dates: not an identity.
        conn.execute("UPDATE feeds SET site_url = 'http://example.com/' WHERE id = ?1", [id.0]).unwrap();
        let undated =
            |key: &str| ParsedEntry { link: Some("http://example.com/".into()), published: None, ..entry(key, "News") };
        assert_eq!(save(&mut conn, id, &fetched(vec![undated("n1")]), 30).unwrap().new, 1);
        assert_eq!(save(&mut conn, id, &fetched(vec![undated("n2")]), 40).unwrap().new, 1);
        let info = feeds::feed_info(&conn, id).unwrap().unwrap();
        assert_eq!(info.id_rotations, 0);
    }

    #[test]
    fn a_changed_entry_is_updated_and_keeps_its_read_flag() {
        let (_dir, mut conn, id) = setup();
        save(&mut conn, id, &fetched(vec![entry("a", "A")]), 10).unwrap();
        let entry_id = super::super::entries::of_feed(&conn, id).unwrap()[0].id;
        apply(&mut conn, &UserWrite::SetRead { ids: vec![entry_id], read: true }, 0).unwrap();
        let outcome = save(&mut conn, id, &fetched(vec![entry("a", "A, corrected")]), 20).unwrap();
        assert_eq!((outcome.new, outcome.updated, outcome.unread), (0, 1, 0));
        let detail = super::super::entries::entry(&conn, entry_id).unwrap().unwrap();
        assert_eq!(detail.title.as_deref(), Some("A, corrected"));
        assert!(detail.read);
    }

    #[test]
    fn a_failure_keeps_entries_and_validators_and_records_the_error() {
        let (_dir, mut conn, id) = setup();
        save(&mut conn, id, &fetched(vec![entry("a", "A")]), 10).unwrap();
        let failed = FetchRecord::Failed {
            status: Some(500),
            kind: ErrorKind::Http,
            message: "HTTP 500".into(),
            retry_after_secs: None,
        };
        let outcome = save(&mut conn, id, &failed, 20).unwrap();
        assert_eq!(outcome.unread, 1);
        let row = feeds::feed(&conn, id).unwrap().unwrap();
        assert_eq!(row.last_error.as_deref(), Some("HTTP 500"));
        assert_eq!(row.last_status, Some(500));
        let target = &feeds::refresh_targets(&conn, Some(&[id])).unwrap()[0];
        assert_eq!(target.etag.as_deref(), Some("\"v1\""));
    }

    #[test]
    fn failures_back_off_and_a_server_can_ask_for_longer() {
        let (_dir, mut conn, id) = setup();
        let fail = |retry_after_secs| FetchRecord::Failed {
            status: Some(503),
            kind: ErrorKind::Http,
            message: "HTTP 503".into(),
            retry_after_secs,
        };
        assert_eq!(save(&mut conn, id, &fail(None), 1000).unwrap().retry_at, None, "one failure may be a blip");
        assert_eq!(save(&mut conn, id, &fail(None), 2000).unwrap().retry_at, Some(2300));
        assert_eq!(save(&mut conn, id, &fail(None), 3000).unwrap().retry_at, Some(3600));
        assert_eq!(save(&mut conn, id, &fail(Some(7200)), 4000).unwrap().retry_at, Some(11_200));
        assert_eq!(backoff_secs(40), 86_400);
        // Success clears it all.
        save(&mut conn, id, &fetched(vec![]), 5000).unwrap();
        let (failures, retry): (i64, Option<i64>) = conn
            .query_row("SELECT failures, retry_at FROM feeds WHERE id = ?1", [id.0], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!((failures, retry), (0, None));
    }

    #[test]
    fn gone_marks_a_feed_dead_and_a_permanent_move_updates_its_address() {
        let (_dir, mut conn, id) = setup();
        let gone = FetchRecord::Failed {
            status: Some(410),
            kind: ErrorKind::Http,
            message: "HTTP 410".into(),
            retry_after_secs: None,
        };
        assert!(save(&mut conn, id, &gone, 10).unwrap().dead);
        let mut moved = fetched(vec![]);
        if let FetchRecord::Fetched { moved_to, .. } = &mut moved {
            *moved_to = Some("http://example.com/new-feed".into());
        }
        let outcome = save(&mut conn, id, &moved, 20).unwrap();
        assert_eq!(outcome.moved_to.as_deref(), Some("http://example.com/new-feed"));
        let (url, dead): (String, bool) = conn
            .query_row("SELECT url, dead FROM feeds WHERE id = ?1", [id.0], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!((url.as_str(), dead), ("http://example.com/new-feed", false));
    }

    #[test]
    fn entries_sort_newest_first_and_undated_ones_by_first_seen() {
        let (_dir, mut conn, id) = setup();
        let mut old = entry("old", "Old");
        old.published = chrono::DateTime::from_timestamp(1_000, 0);
        let mut undated = entry("undated", "Undated");
        undated.published = None;
        save(&mut conn, id, &fetched(vec![old, entry("new", "New"), undated]), 2_000_000_000).unwrap();
        let titles: Vec<_> =
            super::super::entries::of_feed(&conn, id).unwrap().into_iter().map(|e| e.title.unwrap()).collect();
        assert_eq!(titles, vec!["Undated", "New", "Old"]);
    }
}
