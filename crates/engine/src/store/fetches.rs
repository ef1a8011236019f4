//! What a refresh stores: how each feed's fetch ended ([`FetchRecord`]) and the entries it brought, with the
//! feed's validators, backoff and errors. Each entry is stored as the one `identity` finds it to be,
//! inserted or updated, never its read or starred flags.
//!
//! Results arrive from many hosts at once; [`Batcher`] stores several feeds per transaction when they arrive
//! together (group commit), each feed still all-or-nothing (a batch that cannot be stored whole is stored again
//! feed by feed), so one writer keeps up.

pub use super::health::Attempt;
use super::identity::{Elsewhere, Upsert, upsert_entry};
use super::{MAX_TITLE_BYTES, StoreError};
use crate::model::{ErrorKind, FeedId, ParsedFeed};
use rusqlite::{Connection, OptionalExtension, params};

pub use crate::model::MAX_ENTRIES_PER_REFRESH;
pub use batch::{Batcher, Expected};

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
        /// The digest of the document and of what it was read with (see `refresh::digest`), kept so that the
        /// same document is not read again.
        digest: Option<String>,
    },
    /// The whole document came again (`status`, mostly 200), the same bytes as the last one read, to be read the
    /// same way: nothing in it is new, and it was neither decoded nor parsed.
    Unchanged { status: u16, etag: Option<String>, last_modified: Option<String>, moved_to: Option<String> },
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
    /// The feed's unread entries after the refresh (not read after a 304: 0).
    pub unread: i64,
    /// The feed's display title after the refresh (not read after a 304: empty).
    pub title: String,
    /// The new address its permanent redirects propose, when this refresh made the proposal (the same redirect
    /// on `health::STREAK` refreshes in a row); the feed keeps its address until the user accepts it.
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

/// The longest backoff: a feed that keeps failing is then tried once a day, forever.
pub const MAX_BACKOFF_SECS: i64 = 86_400;

/// How long to leave a feed alone after its `failures`-th failure in a row: nothing after the first (it may
/// be a blip), then five minutes doubling each time, up to [`MAX_BACKOFF_SECS`].
pub fn backoff_secs(failures: i64) -> i64 {
    if failures < 2 {
        return 0;
    }
    let doublings = (failures - 2).min(20) as u32;
    (300_i64 * 2_i64.pow(doublings)).min(MAX_BACKOFF_SECS)
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
    // A failure's health first: it reads the run of failures this failure goes on with (or begins). A fetch that
    // worked keeps its health in its own update below.
    if let FetchRecord::Failed { status, kind, .. } = record {
        super::health::after_failure(tx, feed_id, *status, *kind, now)?;
    }
    let mut outcome = ApplyOutcome::default();
    // The feed's unread count, when the fetch knows it without counting.
    let mut unread = None;
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
            digest,
        } => {
            let mut warnings = feed.warnings.clone();
            let listed = feed.entries.len() + feed.unkept;
            outcome.cut_from = cut_from.or((listed > MAX_ENTRIES_PER_REFRESH).then_some(listed));
            if let Some(listed) = outcome.cut_from {
                warnings.push(cut_warning(listed));
            }
            let warnings = (!warnings.is_empty()).then(|| serde_json::to_string(&warnings).unwrap_or_default());
            tx.prepare_cached(concat!(
                "UPDATE feeds SET title = coalesce(?2, title), site_url = coalesce(?3, site_url),
                    etag = ?4, last_modified = ?5, last_status = ?6, last_error = NULL, error_kind = NULL,
                    failures = 0, retry_at = NULL, dead = 0, last_fetched_at = ?7, last_success_at = ?7,
                    encoding_decision = coalesce(?8, encoding_decision), parse_warnings = ?9,
                    refresh_every_secs = ?10, document_digest = ?12, ",
                super::health::after_success!("?11", "?7"),
                " WHERE id = ?1"
            ))?
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
                min_interval_secs.map(|s| s as i64),
                moved_to,
                digest
            ])?;
            outcome.moved_to = super::health::proposed_move(tx, feed_id, moved_to.as_deref())?;
            let listed = &feed.entries[..feed.entries.len().min(MAX_ENTRIES_PER_REFRESH)];
            let mut elsewhere = Elsewhere::of_feed(tx, feed_id, listed)?;
            let mut rotated = 0;
            for (i, entry) in listed.iter().enumerate() {
                let killed = ignored.binary_search(&i).is_ok();
                match upsert_entry(tx, feed_id, entry, now, &mut elsewhere, killed)? {
                    // An entry a kill rule hides is stored, never counted new: it is not shown or told of.
                    Upsert::Inserted(_) if killed => {}
                    Upsert::Inserted(_) => outcome.new += 1,
                    Upsert::Updated => outcome.updated += 1,
                    Upsert::Rotated => {
                        outcome.updated += 1;
                        rotated += 1;
                    }
                    Upsert::Unchanged => {}
                }
            }
            // The first fetch's new entries may still wait for their insert.
            elsewhere.flush(tx)?;
            if rotated > 0 {
                tx.prepare_cached("UPDATE feeds SET id_rotations = id_rotations + ?2 WHERE id = ?1")?
                    .execute(params![feed_id.0, rotated])?;
            }
            // Only a feed that had purged keys has any to forget.
            if !feed.entries.is_empty() && elsewhere.any_purged() {
                super::purge::forget_unlisted(tx, feed_id, now)?;
            }
            // A first fetch that inserted every entry knows what it made of the feed; anything else reads it back.
            match elsewhere.fresh() {
                Some(fresh) => {
                    let dates = fresh.newest_first(super::health::DATED_ENTRIES);
                    super::health::set_entry_dates(tx, feed_id, &dates)?;
                    unread = Some(fresh.unread);
                }
                None => super::health::note_entry_dates(tx, feed_id)?,
            }
        }
        // Nothing changed: one update, and neither the unread count nor the title is read again (the event of a
        // 304, or of the same document again, carries neither).
        FetchRecord::NotModified { etag, last_modified, moved_to } => {
            outcome.moved_to = nothing_new(tx, feed_id, (304, etag, last_modified), moved_to.as_deref(), now)?;
            return Ok(outcome);
        }
        FetchRecord::Unchanged { status, etag, last_modified, moved_to } => {
            outcome.moved_to = nothing_new(tx, feed_id, (*status, etag, last_modified), moved_to.as_deref(), now)?;
            return Ok(outcome);
        }
        FetchRecord::Failed { status, kind, message, retry_after_secs } => {
            let failures: i64 = tx
                .prepare_cached("SELECT failures + 1 FROM feeds WHERE id = ?1")?
                .query_row([feed_id.0], |r| r.get(0))
                .optional()?
                .unwrap_or(1);
            let dead = *status == Some(410);
            // A feed that is gone is still tried once a day: servers come back, and nothing is given up on.
            let wait = backoff_secs(failures).max(retry_after_secs.map_or(0, |s| s as i64)).max(if dead {
                MAX_BACKOFF_SECS
            } else {
                0
            });
            let retry_at = (wait > 0).then_some(now + wait);
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
    (outcome.title, outcome.unread) = match unread {
        Some(unread) => {
            let title = tx
                .prepare_cached(
                    "SELECT coalesce(custom_title, title, tidings_shown_url(url)) FROM feeds WHERE id = ?1",
                )?
                .query_row([feed_id.0], |r| r.get(0))
                .optional()?;
            (title.unwrap_or_default(), unread)
        }
        None => tx
            .prepare_cached(concat!(
                "SELECT coalesce(custom_title, title, tidings_shown_url(url)), ",
                super::feeds::unread_of_feed!(),
                " FROM feeds WHERE id = ?1"
            ))?
            .query_row([feed_id.0], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .unwrap_or_default(),
    };
    Ok(outcome)
}

/// Records a fetch that brought nothing new — a 304, or the same document again — in one update of the feed:
/// its validators (a 304 need not repeat them), its status, its health. Returns the move it proposes.
///
/// A feed that was not failing keeps `failures` as it is, unset: an update that sets it runs the trigger that
/// notes a feed failing or recovering for the hooks (`hook_feed_health`), whose program SQLite sets up and runs for
/// every row updated even when its condition turns out false: about half of the update's time (1000 `UPDATE`s of
/// a 1000-feed table, 3.0 µs each with the trigger and 1.5 µs without; in an all-304 refresh of 1000 feeds, this
/// function's 21.2 million instructions became 13.7 million). A feed that was failing is updated again with
/// `failures` reset, and its trigger runs.
fn nothing_new(
    tx: &Connection,
    feed_id: FeedId,
    (status, etag, last_modified): (u16, &Option<String>, &Option<String>),
    moved_to: Option<&str>,
    now: i64,
) -> Result<Option<String>, StoreError> {
    macro_rules! nothing_new_set {
        () => {
            concat!(
                "UPDATE feeds SET etag = CASE WHEN ?6 = 304 THEN coalesce(?2, etag) ELSE ?2 END,
                    last_modified = CASE WHEN ?6 = 304 THEN coalesce(?3, last_modified) ELSE ?3 END,
                    last_status = ?6, last_error = NULL, error_kind = NULL, retry_at = NULL, dead = 0,
                    last_fetched_at = ?4, last_success_at = ?4, ",
                super::health::after_success!("?5", "?4")
            )
        };
    }
    let values = params![feed_id.0, etag, last_modified, now, moved_to, status];
    let healthy = tx.prepare_cached(concat!(nothing_new_set!(), " WHERE id = ?1 AND failures = 0"))?.execute(values)?;
    if healthy == 0 {
        tx.prepare_cached(concat!(nothing_new_set!(), ", failures = 0 WHERE id = ?1"))?.execute(values)?;
    }
    super::health::proposed_move(tx, feed_id, moved_to)
}

mod batch;
#[cfg(test)]
use batch::{PendingWrite, write_batch};
#[cfg(test)]
mod tests;
