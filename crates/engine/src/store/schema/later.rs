//! The schema's later steps, each a named constant, so `schema.rs` lists them in order and stays short.

use rusqlite::Connection;

/// 17: feed health (see `health` and `tidings_core::health`): paused feeds; when a run of failures began and
/// how many of its last failures were permanent; when the feed last came back to work; a permanent redirect
/// proposed (never applied before the user accepts it) and on how many refreshes in a row; the newest entry
/// and the usual gap between entries (for `quiet`); and the outcome of each feed's last attempts (50 each).
pub(super) const FEED_HEALTH: &str = "ALTER TABLE feeds ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE feeds ADD COLUMN failing_since INTEGER;
        ALTER TABLE feeds ADD COLUMN permanent_failures INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE feeds ADD COLUMN healthy_since INTEGER;
        ALTER TABLE feeds ADD COLUMN moved_to TEXT;
        ALTER TABLE feeds ADD COLUMN moves_in_a_row INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE feeds ADD COLUMN moved_since INTEGER;
        ALTER TABLE feeds ADD COLUMN newest_entry_at INTEGER;
        ALTER TABLE feeds ADD COLUMN median_gap_secs INTEGER;
        UPDATE feeds SET failing_since = last_fetched_at WHERE failures > 0;
        CREATE TABLE fetch_attempts (
            feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            at INTEGER NOT NULL,
            status INTEGER,
            outcome TEXT NOT NULL,
            bytes INTEGER,
            duration_ms INTEGER NOT NULL
        );
        CREATE INDEX fetch_attempts_by_feed ON fetch_attempts(feed_id, at);";

/// 18: hooks (see `hooks`): what happened is recorded by triggers in the transaction that made it happen — an
/// entry stored, starred or unstarred, a feed that began or stopped failing — so an event is never lost to a
/// crash, whichever process stored it. A trigger records only the kinds some hook listens to (the preference
/// `hooks.on`, set by every session as it opens): with no hooks, a refresh writes nothing more. Each hook takes
/// the events past its cursor into deliveries of its own, with their body, in one transaction; a delivery is
/// done once its hook took it, and until then retried (its id, never reused, is the event's stable id). Ids
/// of events are never reused either (AUTOINCREMENT): a cursor past the events taken and forgotten stays past.
pub(super) const HOOKS: &str = "CREATE TABLE hook_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            entry_id INTEGER,
            feed_id INTEGER
        );
        CREATE TABLE hook_cursors (
            hook TEXT PRIMARY KEY,
            upto INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE hook_deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            hook TEXT NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_at INTEGER NOT NULL,
            leased_until INTEGER NOT NULL DEFAULT 0,
            done_at INTEGER,
            gave_up_at INTEGER,
            last_error TEXT
        );
        CREATE INDEX hook_deliveries_pending ON hook_deliveries(next_at) WHERE done_at IS NULL AND gave_up_at IS NULL;
        CREATE TRIGGER hook_new_entries AFTER INSERT ON entries
        WHEN EXISTS (SELECT 1 FROM preferences WHERE name = 'hooks.on' AND value GLOB '*|new_entries|*')
        BEGIN
            INSERT INTO hook_events (kind, entry_id, feed_id) VALUES ('new_entries', new.id, new.feed_id);
        END;
        CREATE TRIGGER hook_starred AFTER UPDATE OF starred ON entries
        WHEN new.starred IS NOT old.starred
            AND EXISTS (SELECT 1 FROM preferences WHERE name = 'hooks.on'
                AND value GLOB CASE WHEN new.starred = 1 THEN '*|starred|*' ELSE '*|unstarred|*' END)
        BEGIN
            INSERT INTO hook_events (kind, entry_id, feed_id)
            VALUES (CASE WHEN new.starred = 1 THEN 'starred' ELSE 'unstarred' END, new.id, new.feed_id);
        END;
        CREATE TRIGGER hook_feed_health AFTER UPDATE OF failures ON feeds
        WHEN (old.failures = 0) IS NOT (new.failures = 0)
            AND EXISTS (SELECT 1 FROM preferences WHERE name = 'hooks.on'
                AND value GLOB CASE WHEN new.failures > 0 THEN '*|feed_failing|*' ELSE '*|feed_recovered|*' END)
        BEGIN
            INSERT INTO hook_events (kind, feed_id)
            VALUES (CASE WHEN new.failures > 0 THEN 'feed_failing' ELSE 'feed_recovered' END, new.id);
        END;";

/// 19: an entry's id is never given to another entry. Ids are rowids, which SQLite would hand out again once the
/// newest entries are deleted (a feed removed, a purge): a script's cursor (`tidings list --after`), the notified
/// mark and an unjudged entry's row would then point past, or at, an entry they never saw. The highest id ever
/// deleted is kept here, and every insert takes an id past both it and the largest in the table
/// (`store::next_entry_id!`). Only deletes pay for it, and only while they go above the mark.
pub(super) const ENTRY_IDS_NEVER_REUSED: &str = "CREATE TABLE entries_high_water (id INTEGER NOT NULL);
        INSERT INTO entries_high_water (id) SELECT coalesce(max(id), 0) FROM entries;
        CREATE TRIGGER entries_high_water_kept AFTER DELETE ON entries
        WHEN old.id > (SELECT id FROM entries_high_water)
        BEGIN
            UPDATE entries_high_water SET id = old.id;
        END;";

/// 21: what a sync learns of an account's server and keeps: `busy_until`, the time (seconds since the epoch) before
/// which it is not asked again, after it answered 429 with a `Retry-After`; `server_traits`, what it was found
/// to lack or want (a Google Reader API without `stream/contents`, an older Miniflux), so that later syncs do not
/// ask again. And `retired`: the account is no longer in the config (as the last session opened read it), so
/// its folder may be deleted here, with nothing sent to a server.
pub(super) const ACCOUNT_SERVER: &str = "ALTER TABLE accounts ADD COLUMN busy_until INTEGER;
        ALTER TABLE accounts ADD COLUMN server_traits TEXT;
        ALTER TABLE accounts ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;";

/// 22: new entries are heard from the entries themselves, not from an event a trigger wrote for each. An entry's
/// id is never reused and is given in the order entries are stored (one writer at a time), so a hook listening
/// to `new_entries` keeps, besides its cursor over events, the id of the last entry it took (`entry_upto`) and
/// takes those past it. The trigger on every insert cost a refresh more than all the entries' indexes together:
/// a statement with a trigger keeps a journal of its own for every page it changes. Events already recorded
/// and not yet taken become the cursor: just before the first of them.
pub(super) const NEW_ENTRIES_BY_ID: &str = "ALTER TABLE hook_cursors ADD COLUMN entry_upto INTEGER;
        UPDATE hook_cursors SET entry_upto = coalesce(
            (SELECT min(entry_id) - 1 FROM hook_events WHERE kind = 'new_entries' AND id > hook_cursors.upto),
            max((SELECT coalesce(max(id), 0) FROM entries), (SELECT id FROM entries_high_water)));
        DROP TRIGGER hook_new_entries;
        DELETE FROM hook_events WHERE kind = 'new_entries';";

/// A feed that answers every request with the whole document (no validators, or validators it ignores) sends
/// the same bytes again and again: the digest of the last document read whole, with what it was read with, lets
/// the next refresh that brings the same skip decoding, parsing and storing it (see `refresh::digest`).
pub(super) const DOCUMENT_DIGEST: &str = "ALTER TABLE feeds ADD COLUMN document_digest TEXT;";

/// 24: no index of every entry by date. A cold refresh brings entries of every date (a feed's newest anywhere in
/// the last years, the rest before it), and each went into that index at a random place: with a 4000 × 100
/// refresh of real-web dates, the writer read its pages back from the file 484,000 times (2 GB) and wrote each
/// batch's share of them to the log again (1.3 GB), where every other index of a new entry takes it next to its
/// feed's or at the end. The lists by date read their entries, dates and feeds from the index by feed and date
/// instead, and sort them here (see `lists::refs`), as the unread lists already did; the starred lists keep
/// their own small index.
pub(super) const NO_INDEX_BY_DATE: &str = "DROP INDEX entries_by_date;";

/// 25: the entries waiting for the search index are found without an index of their own. A new entry's id is
/// past every id before it, so the entries stored since the last indexing pass are those past the last id it
/// indexed (`search_indexed_to`); an entry whose text or feed name changed after it was indexed (the triggers that
/// see it set its `search_indexed` back to 0) is noted in `search_pending` until it is indexed again. The partial
/// index of unindexed entries it replaces took every new entry, and gave it up again at indexing: one B-tree
/// fewer for a refresh to write (a cold 4000 × 100 refresh took 6.1 s instead of 7.2 in the same run).
pub(super) const SEARCH_PENDING: &str = "CREATE TABLE search_pending (entry_id INTEGER PRIMARY KEY);
        CREATE TABLE search_indexed_to (id INTEGER NOT NULL);
        INSERT INTO search_indexed_to (id) SELECT coalesce(max(id), 0) FROM entries;
        INSERT INTO search_pending (entry_id) SELECT id FROM entries WHERE search_indexed = 0;
        DROP INDEX entries_unindexed;
        CREATE TRIGGER entries_search_pending AFTER UPDATE OF search_indexed ON entries
        WHEN new.search_indexed = 0 AND old.search_indexed = 1
        BEGIN
            INSERT OR IGNORE INTO search_pending (entry_id) VALUES (new.id);
        END;
        DROP TRIGGER entries_search_delete;
        CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN
            DELETE FROM entry_search WHERE rowid = old.id;
            DELETE FROM search_pending WHERE entry_id = old.id;
        END;";

/// 26: an entry's feed is checked when its transaction commits, not at each statement. An `INSERT` of several
/// rows that may stop in the middle (a row's feed gone, a key stored twice, an id that is not a number) has
/// SQLite keep a journal of its own of every page it changes, to undo the statement alone: a cold refresh copied
/// each page of its inserts there first. A refresh never needs a statement undone alone (a batch that fails is
/// rolled back whole and its feeds stored again one by one, see `fetches::batch`), so its inserts fail
/// (`INSERT OR FAIL`) rather than abort and leave the ids to SQLite (see `identity::inserts`), and with the
/// feed's check deferred nothing in them asks for that journal.
///
/// The table's text is changed in place, as SQLite documents for a constraint's change that leaves the rows as
/// they are ("Making Other Kinds Of Table Schema Changes", `lang_altertable.html`): within the step's
/// transaction, the schema's text rewritten and its version moved on. A table whose text is not the one step 1
/// wrote is left alone, as is every table where SQLite refuses the change: its feeds are checked at each
/// statement, as before, and nothing else changes.
pub(super) fn entry_feed_deferred(conn: &Connection) -> rusqlite::Result<()> {
    const IMMEDIATE: &str = "feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,";
    const DEFERRED: &str =
        "feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,";
    let sql: String =
        conn.query_row("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'entries'", [], |r| r.get(0))?;
    // A SQLite that keeps its schema from being written (its defensive mode) would refuse the change: it is not
    // made there. Any other failure fails the step, which runs again at the next opening.
    let defensive = conn.db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_DEFENSIVE)?;
    if defensive || sql.matches(IMMEDIATE).count() != 1 {
        return Ok(());
    }
    rewrite_table_sql(conn, "entries", &sql.replacen(IMMEDIATE, DEFERRED, 1))
}

/// Replaces the text SQLite keeps of the table `name` by `sql`, within the caller's transaction, and moves the
/// schema's version on so that every connection, this one included, reads it again.
pub(super) fn rewrite_table_sql(conn: &Connection, name: &str, sql: &str) -> rusqlite::Result<()> {
    let version: i64 = conn.pragma_query_value(None, "schema_version", |r| r.get(0))?;
    conn.pragma_update(None, "writable_schema", true)?;
    let changed = conn.execute("UPDATE sqlite_schema SET sql = ?1 WHERE type = 'table' AND name = ?2", [sql, name]);
    conn.pragma_update(None, "writable_schema", false)?;
    changed?;
    conn.pragma_update(None, "schema_version", version + 1)
}
