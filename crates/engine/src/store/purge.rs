//! Retention: deleting old entries so that the cache does not grow without bound. Read entries go `keep_days`
//! after they arrived, and a feed keeps at most `max_entries` (its newest); starred entries are never purged,
//! and unread ones only when the policy says `purge_unread`. Deletes run in bounded transactions on the writer,
//! so the reader (on its own WAL connection) never waits.
//!
//! A purged entry that its feed still lists must not come back as new at the next refresh: its key is kept in
//! `purged_entries` while the feed lists it, and forgotten at the first refresh that no longer does (so the
//! table holds at most what the feeds' documents list).

use super::{RowIds, StoreError};
use crate::model::{EntryId, FeedId};
use rusqlite::{Connection, params};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How long one feed's entries are kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Retention {
    /// Read entries are deleted this many days after they arrived; 0 keeps them for ever.
    pub keep_days: u32,
    /// At most this many entries (the newest) are kept; 0 is no limit. Starred and unread entries are kept
    /// beyond it.
    pub max_entries: u32,
    /// Unread entries are purged too (by age and by count), not only read ones.
    pub purge_unread: bool,
}

impl Retention {
    /// True when nothing would ever be purged.
    pub fn keeps_everything(&self) -> bool {
        self.keep_days == 0 && self.max_entries == 0
    }
}

/// The retention of every feed: a default, and feeds with their own (by URL).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Policy {
    pub default: Retention,
    pub feeds: BTreeMap<String, Retention>,
}

impl Policy {
    /// The retention of the feed at `url`.
    pub fn for_feed(&self, url: &str) -> Retention {
        self.feeds.get(url).copied().unwrap_or(self.default)
    }

    /// True when no feed would ever lose an entry.
    pub fn keeps_everything(&self) -> bool {
        self.default.keeps_everything() && self.feeds.values().all(Retention::keeps_everything)
    }

    /// True when some feed keeps a number of entries: new entries push old ones out at once.
    fn by_count(&self) -> bool {
        self.default.max_entries > 0 || self.feeds.values().any(|r| r.max_entries > 0)
    }

    /// What tells this policy from another, in a line.
    fn fingerprint(&self) -> String {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        self.hash(&mut hasher);
        format!("{:016x}", hasher.finish())
    }
}

/// How often a refresh's upkeep reads through every feed's entries when the policy keeps them by age alone:
/// entries come of age by the day, so one purged within the hour rather than at once costs nothing, and a
/// refresh every few minutes no longer reads the index of every entry stored (a sixth of what the writer did in
/// a refresh where every feed answered 304). A policy that keeps feeds by count purges at every upkeep, as does
/// a policy that changed; [`purge`] itself always looks.
pub const AGE_PURGE_EVERY_SECS: i64 = 3_600;

/// The preference that remembers the last purge by age alone: the fingerprint of its policy, and when it ended.
const AGE_PURGED: &str = "purge.by_age";

/// The fingerprint that every policy takes for its own: a new database's (see [`created`]).
const ANY_POLICY: &str = "*";

/// Whether an upkeep at `now` purges: not when the same policy, by age alone, went through every feed in the
/// last [`AGE_PURGE_EVERY_SECS`], or the database was created then.
fn purge_due(conn: &Connection, policy: &Policy, now: i64) -> Result<bool, StoreError> {
    if policy.by_count() {
        return Ok(true);
    }
    let last = super::preferences::get(conn, AGE_PURGED)?;
    let recent = last.as_deref().and_then(|last| last.split_once(' ')).is_some_and(|(fingerprint, at)| {
        (fingerprint == policy.fingerprint() || fingerprint == ANY_POLICY)
            && at.parse::<i64>().is_ok_and(|at| (0..AGE_PURGE_EVERY_SECS).contains(&(now - at)))
    });
    Ok(!recent)
}

/// A new database, created at `now`, holds nothing to purge by age under any policy, and every entry stored in it
/// is first seen when it is stored (refreshes, syncs and entries carried over from another reader alike), so none
/// comes of age within a day: its first upkeeps need not read through every feed's entries. After the cold
/// refresh that fills a database, that purge, finding nothing, was 1.8% of the refresh's processor time (1000
/// feeds × 50 entries).
pub(super) fn created(conn: &Connection, now: i64) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO preferences (name, value) VALUES (?1, ?2)",
        params![AGE_PURGED, format!("{ANY_POLICY} {now}")],
    )?;
    Ok(())
}

/// Remembers that `policy` went through every feed at `now`.
fn purged_by_age(conn: &Connection, policy: &Policy, now: i64) -> Result<(), StoreError> {
    super::preferences::set(conn, AGE_PURGED, Some(&format!("{} {now}", policy.fingerprint())))
}

/// What a purge did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PurgeReport {
    /// Entries deleted.
    pub deleted: usize,
    /// Feeds that lost entries.
    pub feeds: usize,
    /// Nothing is left to purge (false when `max_rows` stopped it: call again, from `next_feed`).
    pub finished: bool,
    /// Where the next call starts when this one did not finish: the feeds before it are done.
    pub next_feed: FeedId,
}

/// Entries deleted per transaction.
pub const PURGE_BATCH: usize = 500;

/// Deletes up to `max_rows` entries that `policy` no longer keeps at `now` (seconds since the epoch), in
/// transactions of [`PURGE_BATCH`], looking at the feeds from `from_feed` on (0: all of them). Their search
/// index rows go with them.
pub fn purge(
    conn: &mut Connection,
    policy: &Policy,
    now: i64,
    max_rows: usize,
    from_feed: FeedId,
) -> Result<PurgeReport, StoreError> {
    let mut report = PurgeReport { finished: true, ..PurgeReport::default() };
    if policy.keeps_everything() {
        return Ok(report);
    }
    let feeds: Vec<(FeedId, String, bool)> = conn
        .prepare_cached("SELECT id, url, account_id IS NOT NULL FROM feeds WHERE id >= ?1 ORDER BY id")?
        .query_map([from_feed.0], |r| Ok((r.id(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut doomed: Vec<EntryId> = Vec::new();
    for (feed_id, url, on_a_server) in feeds {
        let mut retention = policy.for_feed(&url);
        // What a server holds unread stays unread here until the server says otherwise.
        retention.purge_unread &= !on_a_server;
        if retention.keeps_everything() {
            continue;
        }
        let room = max_rows - report.deleted - doomed.len();
        let cutoff = if retention.keep_days > 0 { now - i64::from(retention.keep_days) * 86_400 } else { i64::MIN };
        let limit = i64::try_from(room).unwrap_or(i64::MAX).saturating_add(1);
        let ids = doomed_of_feed(conn, feed_id, &retention, cutoff, limit)?;
        if ids.is_empty() {
            continue;
        }
        report.feeds += 1;
        let more = ids.len() > room;
        doomed.extend(ids.into_iter().take(room));
        while doomed.len() >= PURGE_BATCH {
            let rest = doomed.split_off(PURGE_BATCH);
            report.deleted += delete_entries(conn, &doomed, now)?;
            doomed = rest;
        }
        if more {
            report.finished = false;
            report.next_feed = feed_id;
            break;
        }
    }
    report.deleted += delete_entries(conn, &doomed, now)?;
    Ok(report)
}

/// Up to `limit` entries of one feed that `retention` lets go: read (or any, with `purge_unread`), not starred,
/// and either first seen before `cutoff` or beyond the newest `max_entries`. Each test reads only what it needs
/// from the feed's index: a feed kept by age alone (the default) is one pass over its index, with no ranking.
fn doomed_of_feed(
    conn: &Connection,
    feed_id: FeedId,
    retention: &Retention,
    cutoff: i64,
    limit: i64,
) -> Result<Vec<EntryId>, StoreError> {
    // Each arm is a literal, so the statement cache finds it without building a string per feed.
    const BY_AGE: &str = "SELECT e.id FROM entries e WHERE e.feed_id = ?1 AND e.first_seen_at < ?3
        AND e.starred = 0 AND (?2 OR e.read = 1) LIMIT ?5";
    const BY_RANK: &str = "SELECT e.id FROM entries e
        WHERE e.id IN (SELECT id FROM entries WHERE feed_id = ?1 ORDER BY sort_at DESC, id DESC LIMIT -1 OFFSET ?4)
        AND e.starred = 0 AND (?2 OR e.read = 1) LIMIT ?5";
    const BY_EITHER: &str = "SELECT e.id FROM entries e
        WHERE (e.id IN (SELECT id FROM entries WHERE feed_id = ?1 ORDER BY sort_at DESC, id DESC LIMIT -1 OFFSET ?4)
               OR (e.feed_id = ?1 AND e.first_seen_at < ?3))
        AND e.starred = 0 AND (?2 OR e.read = 1) LIMIT ?5";
    let sql = match (retention.keep_days > 0, retention.max_entries > 0) {
        (_, false) => BY_AGE,
        (false, true) => BY_RANK,
        (true, true) => BY_EITHER,
    };
    let mut stmt = conn.prepare_cached(sql)?;
    // Every statement takes the same parameters, used or not.
    let params = params![feed_id.0, retention.purge_unread, cutoff, i64::from(retention.max_entries), limit];
    let mut ids = Vec::new();
    let mut rows = stmt.query(params)?;
    while let Some(row) = rows.next()? {
        ids.push(row.id(0)?);
    }
    Ok(ids)
}

/// Deletes entries in one transaction, keeping their keys so that their feeds do not bring them back.
fn delete_entries(conn: &mut Connection, ids: &[EntryId], now: i64) -> Result<usize, StoreError> {
    if ids.is_empty() {
        return Ok(0);
    }
    let tx = conn.transaction()?;
    let mut deleted = 0;
    {
        let mut remember = tx.prepare_cached(
            "INSERT OR REPLACE INTO purged_entries (feed_id, key, seen_at)
             SELECT feed_id, key, ?2 FROM entries WHERE id = ?1",
        )?;
        let mut delete = tx.prepare_cached("DELETE FROM entries WHERE id = ?1")?;
        for id in ids {
            remember.execute(params![id.0, now])?;
            deleted += delete.execute([id.0])?;
        }
    }
    tx.commit()?;
    Ok(deleted)
}

/// True when the entry `key` of a feed was purged (and is still listed by the feed, as it is being stored
/// now): the refresh must not store it again. Notes that the feed still lists it.
pub(super) fn was_purged(tx: &Connection, feed_id: FeedId, key: &str, now: i64) -> Result<bool, StoreError> {
    let seen = tx
        .prepare_cached("UPDATE purged_entries SET seen_at = ?3 WHERE feed_id = ?1 AND key = ?2")?
        .execute(params![feed_id.0, key, now])?;
    Ok(seen > 0)
}

/// After a refresh stored a feed's document: forgets the purged keys that it no longer lists.
pub(super) fn forget_unlisted(tx: &Connection, feed_id: FeedId, now: i64) -> Result<(), StoreError> {
    tx.prepare_cached("DELETE FROM purged_entries WHERE feed_id = ?1 AND seen_at < ?2")?
        .execute(params![feed_id.0, now])?;
    Ok(())
}

/// The writer's upkeep after a refresh, one bounded slice at a time: entries retention lets go are purged,
/// then new and changed entries are indexed for search. Each [`Upkeep::step`] is one transaction, so the reader
/// runs every step as a job of its own and the user's writes go between them; `tidings refresh` runs the purge
/// to the end in one job (and leaves indexing to `tidings search` and the reader).
#[derive(Clone, Debug)]
pub struct Upkeep {
    policy: Arc<Policy>,
    now: i64,
    purging: bool,
    indexing: bool,
    next_feed: FeedId,
    /// Entries deleted so far.
    pub purged: usize,
    /// Entries indexed so far.
    pub indexed: usize,
}

impl Upkeep {
    /// Purges by `policy` at `now`, then indexes when `index`.
    pub fn new(policy: Arc<Policy>, now: i64, index: bool) -> Upkeep {
        Upkeep { policy, now, purging: true, indexing: index, next_feed: FeedId(0), purged: 0, indexed: 0 }
    }

    /// Only the indexing (what a search needs before it looks).
    pub fn index_only() -> Upkeep {
        Upkeep { purging: false, ..Upkeep::new(Arc::default(), 0, true) }
    }

    /// Does one slice; false when nothing is left to do.
    pub fn step(&mut self, conn: &mut Connection) -> Result<bool, StoreError> {
        if self.purging && self.next_feed == FeedId(0) && !purge_due(conn, &self.policy, self.now)? {
            self.purging = false;
        }
        if self.purging {
            let report = purge(conn, &self.policy, self.now, PURGE_BATCH, self.next_feed)?;
            self.purged += report.deleted;
            self.next_feed = report.next_feed;
            self.purging = !report.finished;
            if report.finished && !self.policy.by_count() {
                purged_by_age(conn, &self.policy, self.now)?;
            }
            return Ok(self.purging || self.indexing);
        }
        if self.indexing {
            let indexed = super::search::index_pending(conn, super::search::INDEX_BATCH)?;
            self.indexed += indexed;
            self.indexing = indexed == super::search::INDEX_BATCH;
        }
        Ok(self.indexing)
    }

    /// Every step, in this one job; then statistics for the query planner (cheap when little changed).
    pub fn run(mut self, conn: &mut Connection) -> Result<Upkeep, StoreError> {
        while self.step(conn)? {}
        conn.execute_batch("PRAGMA optimize")?;
        Ok(self)
    }
}

#[cfg(test)]
mod tests;
