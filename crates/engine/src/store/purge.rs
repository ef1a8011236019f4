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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
        if self.purging {
            let report = purge(conn, &self.policy, self.now, PURGE_BATCH, self.next_feed)?;
            self.purged += report.deleted;
            self.next_feed = report.next_feed;
            self.purging = !report.finished;
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
mod tests {
    use super::*;
    use crate::model::ParsedEntry;
    use crate::model::UserWrite;
    use crate::store::fetches::{self, FetchRecord};
    use crate::store::fixtures;

    const DAY: i64 = 86_400;

    fn entry(key: &str, published: i64) -> ParsedEntry {
        fixtures::entry(key, key, &format!("<p>{key}</p>"), published)
    }

    fn fetched(entries: Vec<ParsedEntry>) -> FetchRecord {
        fixtures::fetched("Feed", entries)
    }

    fn setup() -> (tempfile::TempDir, Connection, FeedId) {
        fixtures::one_feed()
    }

    fn keys(conn: &Connection) -> Vec<String> {
        let mut stmt = conn.prepare("SELECT key FROM entries ORDER BY sort_at DESC, id DESC").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    }

    fn policy(keep_days: u32, max_entries: u32, purge_unread: bool) -> Policy {
        Policy { default: Retention { keep_days, max_entries, purge_unread }, feeds: BTreeMap::new() }
    }

    fn id_of(conn: &Connection, key: &str) -> EntryId {
        EntryId(conn.query_row("SELECT id FROM entries WHERE key = ?1", [key], |r| r.get(0)).unwrap())
    }

    #[test]
    fn old_read_entries_go_and_starred_and_unread_stay() {
        let (_dir, mut conn, feed) = setup();
        let entries = ["read", "starred", "unread"].map(|k| entry(k, 1_000)).to_vec();
        fetches::save(&mut conn, feed, &fetched(entries), 1_000).unwrap();
        let (read, starred) = (id_of(&conn, "read"), id_of(&conn, "starred"));
        crate::store::apply(&mut conn, &UserWrite::SetRead { ids: vec![read, starred], read: true }, 0).unwrap();
        crate::store::apply(&mut conn, &UserWrite::SetStarred { ids: vec![starred], starred: true }, 0).unwrap();
        // Not old enough yet.
        assert_eq!(purge(&mut conn, &policy(30, 0, false), 1_000 + 29 * DAY, 100, FeedId(0)).unwrap().deleted, 0);
        let report = purge(&mut conn, &policy(30, 0, false), 1_000 + 31 * DAY, 100, FeedId(0)).unwrap();
        assert_eq!(report, PurgeReport { deleted: 1, feeds: 1, finished: true, next_feed: FeedId(0) });
        assert_eq!(keys(&conn), vec!["unread", "starred"]);
        // purge_unread lets the unread one go too; starred is never purged.
        purge(&mut conn, &policy(30, 0, true), 1_000 + 31 * DAY, 100, FeedId(0)).unwrap();
        assert_eq!(keys(&conn), vec!["starred"]);
    }

    #[test]
    fn a_feed_keeps_its_newest_entries_up_to_the_limit() {
        let (_dir, mut conn, feed) = setup();
        let entries = (0..10).map(|i| entry(&format!("e{i}"), 1_000 + i * 60)).collect();
        fetches::save(&mut conn, feed, &fetched(entries), 2_000).unwrap();
        let all: Vec<EntryId> = (0..10).map(|i| id_of(&conn, &format!("e{i}"))).collect();
        crate::store::apply(&mut conn, &UserWrite::SetRead { ids: all.clone(), read: true }, 0).unwrap();
        crate::store::apply(&mut conn, &UserWrite::SetRead { ids: vec![all[1]], read: false }, 0).unwrap();
        let report = purge(&mut conn, &policy(0, 4, false), 2_000, 100, FeedId(0)).unwrap();
        assert_eq!(report.deleted, 5);
        assert_eq!(keys(&conn), vec!["e9", "e8", "e7", "e6", "e1"], "the unread e1 stays beyond the limit");
    }

    #[test]
    fn age_and_count_together_each_let_their_own_entries_go() {
        let (_dir, mut conn, feed) = setup();
        let old = vec![entry("old0", 5_000), entry("old1", 5_060)];
        fetches::save(&mut conn, feed, &fetched(old.clone()), 1_000).unwrap();
        // Forty days later the feed lists four new entries, dated before the old ones (a feed's dates are its own).
        let mut now_listed = old;
        now_listed.extend((0..4).map(|i| entry(&format!("new{i}"), 1_000 + i * 60)));
        fetches::save(&mut conn, feed, &fetched(now_listed), 40 * DAY).unwrap();
        let all: Vec<EntryId> = ["old0", "old1", "new0", "new1", "new2", "new3"].map(|k| id_of(&conn, k)).to_vec();
        crate::store::apply(&mut conn, &UserWrite::SetRead { ids: all, read: true }, 0).unwrap();
        let report = purge(&mut conn, &policy(30, 5, false), 41 * DAY, 100, FeedId(0)).unwrap();
        // By age: both old ones (first seen 41 days ago, though the newest by date); by count: new0, the sixth.
        assert_eq!(report.deleted, 3);
        assert_eq!(keys(&conn), vec!["new3", "new2", "new1"]);
    }

    #[test]
    fn a_feed_of_its_own_overrides_the_default() {
        let (_dir, mut conn, feed) = setup();
        fetches::save(&mut conn, feed, &fetched(vec![entry("a", 1_000), entry("b", 2_000)]), 2_000).unwrap();
        let both = [id_of(&conn, "a"), id_of(&conn, "b")];
        crate::store::apply(&mut conn, &UserWrite::SetRead { ids: both.to_vec(), read: true }, 0).unwrap();
        let mut keep_all = policy(1, 1, false);
        keep_all.feeds.insert("http://example.com/feed".into(), Retention::default());
        assert!(!keep_all.keeps_everything());
        assert_eq!(purge(&mut conn, &keep_all, 100 * DAY, 100, FeedId(0)).unwrap().deleted, 0);
        assert_eq!(purge(&mut conn, &policy(1, 1, false), 100 * DAY, 100, FeedId(0)).unwrap().deleted, 2);
    }

    #[test]
    fn a_purge_stops_at_its_bound_and_says_so() {
        let (_dir, mut conn, feed) = setup();
        let entries: Vec<_> = (0..1_200).map(|i| entry(&format!("e{i}"), 1_000 + i)).collect();
        fetches::save(&mut conn, feed, &fetched(entries), 1_000).unwrap();
        conn.execute("UPDATE entries SET read = 1", []).unwrap();
        let first = purge(&mut conn, &policy(1, 0, false), 10 * DAY, 700, FeedId(0)).unwrap();
        assert_eq!((first.deleted, first.finished, first.next_feed), (700, false, feed));
        let second = purge(&mut conn, &policy(1, 0, false), 10 * DAY, 700, first.next_feed).unwrap();
        assert_eq!((second.deleted, second.finished), (500, true));
        assert!(keys(&conn).is_empty());
    }

    #[test]
    fn purged_entries_the_feed_still_lists_do_not_come_back_and_are_forgotten_once_it_stops() {
        let (_dir, mut conn, feed) = setup();
        let document = vec![entry("old", 1_000), entry("new", 2_000)];
        fetches::save(&mut conn, feed, &fetched(document.clone()), 1_000).unwrap();
        let old = id_of(&conn, "old");
        crate::store::apply(&mut conn, &UserWrite::SetRead { ids: vec![old], read: true }, 0).unwrap();
        purge(&mut conn, &policy(1, 0, false), 5 * DAY, 100, FeedId(0)).unwrap();
        assert_eq!(keys(&conn), vec!["new"]);
        let outcome = fetches::save(&mut conn, feed, &fetched(document), 6 * DAY).unwrap();
        assert_eq!(outcome.new, 0, "the purged entry is not new again");
        assert_eq!(keys(&conn), vec!["new"]);
        let remembered =
            |c: &Connection| c.query_row("SELECT count(*) FROM purged_entries", [], |r| r.get::<_, i64>(0));
        assert_eq!(remembered(&conn).unwrap(), 1);
        fetches::save(&mut conn, feed, &fetched(vec![entry("new", 2_000)]), 7 * DAY).unwrap();
        assert_eq!(remembered(&conn).unwrap(), 0, "the feed no longer lists it");
    }

    #[test]
    fn purged_entries_leave_the_search_index() {
        let (_dir, mut conn, feed) = setup();
        fetches::save(&mut conn, feed, &fetched(vec![entry("zebra", 1_000)]), 1_000).unwrap();
        conn.execute("UPDATE entries SET read = 1", []).unwrap();
        let upkeep_before = Upkeep::new(Arc::new(policy(0, 0, false)), 1_000, true).run(&mut conn).unwrap();
        assert_eq!(upkeep_before.indexed, 1);
        let found = |c: &Connection| {
            super::super::lists::search(c, "zebra", None, false, crate::model::Sort::Newest).unwrap().len()
        };
        assert_eq!(found(&conn), 1);
        let done = Upkeep::new(Arc::new(policy(1, 0, false)), 10 * DAY, true).run(&mut conn).unwrap();
        assert_eq!(done.purged, 1);
        assert_eq!(found(&conn), 0);
        let rows: i64 = conn.query_row("SELECT count(*) FROM entry_search", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 0);
    }
}
