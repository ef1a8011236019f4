//! What feed health needs from the store: the facts each fetch leaves on its feed (runs of failures, permanent
//! ones, proposed moves, the newest entry and the usual gap), each feed's last [`MAX_ATTEMPTS`] attempts, an
//! outage forgiven, and the user's health changes (pause, accept a move) inside [`super::apply`]'s transaction.
//! Judging the facts is `tidings_core::health`'s; nothing here decides a state.

use super::{RowIds, StoreError};
use crate::health::{HealthFacts, STREAK, is_permanent};
use crate::model::{ErrorKind, FeedId, FetchAttempt};
use rusqlite::{Connection, OptionalExtension, params};

/// How many attempts of each feed the history keeps: the oldest go as new ones come.
pub const MAX_ATTEMPTS: i64 = 50;

/// How one attempt went besides its outcome: the bytes it brought and how long it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attempt {
    pub bytes: Option<u64>,
    pub duration_ms: u64,
}

/// Keeps the health columns after a failed fetch; runs before the fetch's own update (which counts `failures`),
/// so it sees whether this failure begins a run. A failure also ends a run of redirects.
pub(super) fn after_failure(
    tx: &Connection,
    feed_id: FeedId,
    status: Option<u16>,
    kind: ErrorKind,
    now: i64,
) -> Result<(), StoreError> {
    let permanent = is_permanent(status.map(i64::from), Some(kind));
    tx.prepare_cached(
        "UPDATE feeds SET failing_since = CASE WHEN failures = 0 THEN ?3 ELSE coalesce(failing_since, ?3) END,
            permanent_failures = CASE WHEN ?2 THEN permanent_failures + 1 ELSE 0 END,
            moved_to = NULL, moves_in_a_row = 0, moved_since = NULL
         WHERE id = ?1",
    )?
    .execute(params![feed_id.0, permanent, now])?;
    Ok(())
}

/// What a fetch that worked sets on its feed's health columns, as a `SET` list for the fetch's own `UPDATE` of the
/// feed (one statement per feed, not two): `$moved` is the parameter holding where its permanent redirects went
/// (NULL: nowhere), `$now` the parameter holding the time. Every expression reads the row as it was before the
/// update, so it sees the run of failures this fetch ends (the same update resets `failures`). A move is only
/// counted: [`proposed_move`] reads `moves_in_a_row` after the update.
macro_rules! after_success {
    ($moved:literal, $now:literal) => {
        concat!(
            "healthy_since = CASE WHEN failures > 0 OR healthy_since IS NULL THEN ",
            $now,
            " ELSE healthy_since END,
            failing_since = NULL, permanent_failures = 0,
            moves_in_a_row = CASE WHEN ",
            $moved,
            " IS NULL THEN 0 WHEN moved_to IS ",
            $moved,
            " THEN moves_in_a_row + 1 ELSE 1 END,
            moved_since = CASE WHEN ",
            $moved,
            " IS NULL THEN NULL WHEN moved_to IS ",
            $moved,
            " THEN moved_since ELSE ",
            $now,
            " END,
            moved_to = ",
            $moved
        )
    };
}
pub(super) use after_success;

/// The move a fetch that worked proposes, after its update (see [`after_success`]): ready when the same permanent
/// redirect came for the [`STREAK`]-th time in a row. The feed's address never changes here.
///
/// The count is read only when the fetch was redirected, by a statement of its own rather than the update's
/// `RETURNING`: SQLite buffers returned rows in a temporary table, made and dropped at every run. With the same
/// for the trim of the history (see [`record_attempt`]), that cost about 29,000 instructions per feed, 15% of
/// a refresh where every feed answered 304.
pub(super) fn proposed_move(
    tx: &Connection,
    feed_id: FeedId,
    moved_to: Option<&str>,
) -> Result<Option<String>, StoreError> {
    let Some(moved_to) = moved_to else { return Ok(None) };
    let moves: Option<i64> = tx
        .prepare_cached("SELECT moves_in_a_row FROM feeds WHERE id = ?1")?
        .query_row([feed_id.0], |r| r.get(0))
        .optional()?;
    Ok((moves == Some(STREAK)).then(|| moved_to.to_string()))
}

/// Entries whose dates say how often a feed posts: its newest (the `LIMIT` of [`note_entry_dates`]).
pub(super) const DATED_ENTRIES: usize = 100;

/// The feed's newest entry and the median gap between its last [`DATED_ENTRIES`], after a fetch stored entries.
pub(super) fn note_entry_dates(tx: &Connection, feed_id: FeedId) -> Result<(), StoreError> {
    let dates: Vec<i64> = tx
        .prepare_cached("SELECT sort_at FROM entries WHERE feed_id = ?1 ORDER BY sort_at DESC LIMIT 100")?
        .query_map([feed_id.0], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    set_entry_dates(tx, feed_id, &dates)
}

/// [`note_entry_dates`] from the dates of the feed's newest entries, newest first, known without reading them.
pub(super) fn set_entry_dates(tx: &Connection, feed_id: FeedId, dates: &[i64]) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE feeds SET newest_entry_at = ?2, median_gap_secs = ?3 WHERE id = ?1")?
        .execute(params![feed_id.0, dates.first(), crate::health::median_gap_secs(dates)])?;
    Ok(())
}

/// Adds one attempt to the feed's history — its HTTP status and `outcome` (`fetched`, `not-modified`, `unchanged`,
/// an error's kind) — and, now and then ([`trims_history`]), lets the oldest go past [`MAX_ATTEMPTS`].
pub(super) fn record_attempt(
    tx: &Connection,
    feed_id: FeedId,
    (status, outcome): (Option<u16>, &str),
    attempt: Attempt,
    now: i64,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO fetch_attempts (feed_id, at, status, outcome, bytes, duration_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        feed_id.0,
        now,
        status,
        outcome,
        attempt.bytes.map(|b| b as i64),
        attempt.duration_ms as i64
    ])?;
    if trims_history(tx.last_insert_rowid()) {
        trim_history(tx, feed_id)?;
    }
    Ok(())
}

/// Lets the feed's oldest attempts go past [`MAX_ATTEMPTS`].
fn trim_history(tx: &Connection, feed_id: FeedId) -> Result<(), StoreError> {
    // Everything after the last attempt kept, in the history's order (newest first, the later of two at the same
    // second first); nothing while fewer are kept. A row compared with a subquery's one row, not `rowid IN` a
    // subquery: SQLite would gather that subquery's rows in a temporary table at every attempt recorded, to find
    // none almost every time.
    tx.prepare_cached(
        "DELETE FROM fetch_attempts WHERE feed_id = ?1 AND (at, rowid) < (SELECT at, rowid FROM fetch_attempts
             WHERE feed_id = ?1 ORDER BY at DESC, rowid DESC LIMIT 1 OFFSET ?2 - 1)",
    )?
    .execute(params![feed_id.0, MAX_ATTEMPTS])?;
    Ok(())
}

/// One attempt in this many, on average, trims its feed's history (see [`trims_history`]).
const TRIM_ONE_IN: u64 = 16;

/// Whether the attempt stored as row `rowid` trims its feed's history back to [`MAX_ATTEMPTS`]: one in
/// [`TRIM_ONE_IN`]. Finding where a feed's last fifty end walks all fifty in the index, about 20,000
/// instructions (callgrind) — about as much as the rest of what storing a 304 costs — to delete one row;
/// trimming at every attempt cost a refresh where every feed answered 304 about an eighth of its instructions
/// once the histories were full. The history shows the last fifty whatever the table holds beyond them (on
/// average fifteen more a feed).
///
/// Chosen by a hash of the row id, not the id itself: feeds refreshed in the same order every time take ids in
/// steps of their number, which repeat their residues (1000 feeds, one in 16: seven in eight would never be
/// trimmed). A multiplicative hash is not enough either: its top bits move by the same fraction at each step,
/// and for some numbers of feeds (987, 610, 1597) that fraction is nearly whole, leaving most feeds untrimmed
/// for thousands of refreshes. splitmix64's finalizer mixes every bit of the id into every bit of the hash.
fn trims_history(rowid: i64) -> bool {
    let mut z = rowid as u64;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    z.is_multiple_of(TRIM_ONE_IN)
}

/// The network as a whole was down during a refresh (no feed answered, feeds on several hosts were tried): the
/// failures it recorded on `feeds` since `since` count against none of them. Their runs of failures go back one
/// step, their backoff is lifted, and their history says `outage`.
pub fn forgive_outage(conn: &mut Connection, feeds: &[FeedId], since: i64) -> Result<(), StoreError> {
    let tx = conn.transaction()?;
    for feed_id in feeds {
        tx.prepare_cached(
            "UPDATE feeds SET failing_since = CASE WHEN failures <= 1 THEN NULL ELSE failing_since END,
                last_error = CASE WHEN failures <= 1 THEN NULL ELSE last_error END,
                error_kind = CASE WHEN failures <= 1 THEN NULL ELSE error_kind END,
                failures = max(failures - 1, 0), permanent_failures = max(permanent_failures - 1, 0), retry_at = NULL
             WHERE id = ?1 AND failures > 0",
        )?
        .execute([feed_id.0])?;
        tx.prepare_cached("UPDATE fetch_attempts SET outcome = 'outage' WHERE feed_id = ?1 AND at >= ?2")?
            .execute(params![feed_id.0, since])?;
    }
    tx.commit()?;
    Ok(())
}

/// Every local feed's health facts, and how many feeds of accounts were left out (their servers fetch them, and
/// report no health tidings could judge).
pub fn facts(conn: &Connection) -> Result<(Vec<HealthFacts>, usize), StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, url, coalesce(custom_title, title, tidings_shown_url(url)), site_url, paused, last_status, error_kind, last_error,
            failures, permanent_failures, failing_since, healthy_since, dead, retry_at, moved_to, moves_in_a_row,
            moved_since, newest_entry_at, median_gap_secs, added_at, last_success_at IS NOT NULL
         FROM feeds WHERE account_id IS NULL ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(HealthFacts {
            feed_id: r.id(0)?,
            url: r.get(1)?,
            title: r.get(2)?,
            site_url: r.get(3)?,
            paused: r.get(4)?,
            last_status: r.get(5)?,
            error_kind: r.get::<_, Option<String>>(6)?.as_deref().and_then(ErrorKind::from_name),
            last_error: r.get(7)?,
            failures: r.get(8)?,
            permanent_failures: r.get(9)?,
            failing_since: r.get(10)?,
            healthy_since: r.get(11)?,
            gone: r.get(12)?,
            retry_at: r.get(13)?,
            moved_to: r.get(14)?,
            moves_in_a_row: r.get(15)?,
            moved_since: r.get(16)?,
            newest_entry_at: r.get(17)?,
            median_gap_secs: r.get(18)?,
            added_at: r.get(19)?,
            fetched: r.get(20)?,
        })
    })?;
    let facts = rows.collect::<Result<Vec<_>, _>>()?;
    let left_out: i64 = conn.query_row("SELECT count(*) FROM feeds WHERE account_id IS NOT NULL", [], |r| r.get(0))?;
    Ok((facts, left_out as usize))
}

/// A feed's last attempts, newest first.
pub fn attempts(conn: &Connection, feed_id: FeedId) -> Result<Vec<FetchAttempt>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT at, status, outcome, bytes, duration_ms FROM fetch_attempts WHERE feed_id = ?1
         ORDER BY at DESC, rowid DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![feed_id.0, MAX_ATTEMPTS], |r| {
        Ok(FetchAttempt {
            at: r.get(0)?,
            status: r.get(1)?,
            outcome: r.get(2)?,
            bytes: r.get(3)?,
            duration_ms: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Pauses a feed (no refresh fetches it, forced or not, until it is resumed) or resumes it.
pub(super) fn set_paused(tx: &Connection, feed_id: FeedId, paused: bool) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE feeds SET paused = ?2 WHERE id = ?1")?.execute(params![feed_id.0, paused])?;
    Ok(())
}

/// Accepts the move a feed's permanent redirects proposed: its address becomes the new one (its entries stay),
/// unless another subscription already has that address.
pub(super) fn accept_move(tx: &Connection, feed_id: FeedId) -> Result<String, StoreError> {
    let to: Option<String> = tx
        .prepare_cached("SELECT moved_to FROM feeds WHERE id = ?1")?
        .query_row([feed_id.0], |r| r.get(0))
        .optional()?
        .flatten();
    let Some(to) = to else {
        return Err(StoreError::Conflict("this feed has no move to accept (it was not redirected for good)".into()));
    };
    let taken = tx
        .prepare_cached("SELECT 1 FROM feeds WHERE url = ?1 AND id != ?2 AND account_id IS NULL")?
        .exists(params![to, feed_id.0])?;
    if taken {
        return Err(StoreError::Conflict(format!(
            "another subscription already has the address {to}: delete this one instead"
        )));
    }
    tx.prepare_cached(
        "UPDATE feeds SET url = ?2, moved_to = NULL, moves_in_a_row = 0, moved_since = NULL, etag = NULL,
            last_modified = NULL, document_digest = NULL
         WHERE id = ?1",
    )?
    .execute(params![feed_id.0, to])?;
    Ok(to)
}

#[cfg(test)]
mod tests;
