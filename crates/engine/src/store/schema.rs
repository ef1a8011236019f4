//! The schema: each migration step, and the check that refuses a database this build must not touch (written
//! by a newer tidings, or by something else).

mod downloads;
mod later;
#[cfg(test)]
mod tests;

use super::{StoreError, classify, folders};
use rusqlite::Connection;
use std::path::Path;

/// Each step moves the schema one version up; `PRAGMA user_version` is the number of steps applied.
pub(super) const MIGRATIONS: &[Step] = &[
    // 1: the first schema.
    Step::Sql(
        "CREATE TABLE folders (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        position INTEGER NOT NULL DEFAULT 0,
        collapsed INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE feeds (
        id INTEGER PRIMARY KEY,
        url TEXT NOT NULL UNIQUE,
        title TEXT,
        custom_title TEXT,
        site_url TEXT,
        folder_id INTEGER REFERENCES folders(id) ON DELETE SET NULL,
        position INTEGER NOT NULL DEFAULT 0,
        etag TEXT,
        last_modified TEXT,
        last_status INTEGER,
        last_error TEXT,
        error_kind TEXT,
        failures INTEGER NOT NULL DEFAULT 0,
        retry_after INTEGER,
        last_fetched_at INTEGER,
        last_success_at INTEGER,
        encoding_decision TEXT,
        encoding_override TEXT,
        added_at INTEGER NOT NULL
    );
    CREATE INDEX feeds_by_folder ON feeds(folder_id);
    CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        title TEXT,
        link TEXT,
        author TEXT,
        published_at INTEGER,
        updated_at INTEGER,
        content_html TEXT,
        summary_html TEXT,
        read INTEGER NOT NULL DEFAULT 0,
        starred INTEGER NOT NULL DEFAULT 0,
        first_seen_at INTEGER NOT NULL,
        sort_at INTEGER NOT NULL,
        UNIQUE (feed_id, key)
    );
    CREATE INDEX entries_by_feed_date ON entries(feed_id, sort_at DESC, id DESC);
    CREATE INDEX entries_unread_by_feed ON entries(feed_id) WHERE read = 0;",
    ),
    // 2: what entries carry besides their text, and what reading a feed had to repair.
    Step::Sql(
        "ALTER TABLE entries ADD COLUMN categories TEXT;
    ALTER TABLE entries ADD COLUMN enclosures TEXT;
    ALTER TABLE entries ADD COLUMN comments TEXT;
    ALTER TABLE entries ADD COLUMN thumbnail TEXT;
        ALTER TABLE feeds ADD COLUMN parse_warnings TEXT;",
    ),
    // 3: politeness: feeds that are gone, and how often a feed asks to be fetched.
    Step::Sql(
        "ALTER TABLE feeds ADD COLUMN dead INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE feeds ADD COLUMN refresh_every_secs INTEGER;",
    ),
    // 4: an instant is named `_at` (it was `retry_after`, which reads as a duration).
    Step::Sql("ALTER TABLE feeds RENAME COLUMN retry_after TO retry_at;"),
    // 5: search, lists of any size, remembered list settings, nested folders, and retention.
    // Full-text search (see `search`): a contentless FTS5 table keyed by entry id. Entries start unindexed and
    // the writer's `index_pending` pass indexes them after a refresh; a change to what is indexed (the
    // entry's text, its feed's name) marks them again; deleting an entry (purge, feed deleted) deletes its row.
    Step::Sql(
        "ALTER TABLE entries ADD COLUMN search_indexed INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX entries_unindexed ON entries(id) WHERE search_indexed = 0;
    CREATE VIRTUAL TABLE entry_search USING fts5(title, author, feed, body, content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2');
    CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN
        DELETE FROM entry_search WHERE rowid = old.id;
    END;
    CREATE TRIGGER entries_search_changed AFTER UPDATE OF title, author, content_html, summary_html ON entries
    WHEN old.search_indexed = 1 BEGIN
        UPDATE entries SET search_indexed = 0 WHERE id = new.id;
    END;
    CREATE TRIGGER feeds_search_renamed AFTER UPDATE OF title, custom_title, url ON feeds
    WHEN coalesce(new.custom_title, new.title, new.url) IS NOT coalesce(old.custom_title, old.title, old.url) BEGIN
        UPDATE entries SET search_indexed = 0 WHERE feed_id = new.id AND search_indexed = 1;
    END;
    -- Lists of any size (see `lists`): one covering index per order, so a 400,000-entry list is read from
    -- the index alone; and one by id, so the entries a search found are put in order without reading rows.
    -- Read and starred flags are in none of them but the partial ones, so that marking 400,000 entries read
    -- touches two small indexes, not six wide ones.
    DROP INDEX entries_by_feed_date;
    CREATE INDEX entries_by_feed_date ON entries(feed_id, sort_at DESC, id DESC, first_seen_at);
    CREATE INDEX entries_by_date ON entries(sort_at, id, feed_id);
    CREATE INDEX entries_unread_by_date ON entries(sort_at, id, feed_id) WHERE read = 0;
    CREATE INDEX entries_starred_by_date ON entries(sort_at, id, feed_id) WHERE starred = 1;
    CREATE INDEX entries_by_title ON entries(title COLLATE NOCASE, sort_at DESC, id DESC, feed_id);
    CREATE INDEX entries_by_id ON entries(id, sort_at, feed_id);
    CREATE TABLE list_settings (
        list TEXT PRIMARY KEY,
        sort TEXT NOT NULL,
        unread_only INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TRIGGER feeds_forget_list_settings AFTER DELETE ON feeds BEGIN
        DELETE FROM list_settings WHERE list = 'feed:' || old.id;
    END;
    CREATE TRIGGER folders_forget_list_settings AFTER DELETE ON folders BEGIN
        DELETE FROM list_settings WHERE list = 'folder:' || old.id;
    END;
    ALTER TABLE folders ADD COLUMN parent_id INTEGER REFERENCES folders(id) ON DELETE CASCADE;
    CREATE INDEX folders_by_parent ON folders(parent_id);
    -- Retention (see `purge`): the keys of purged entries that their feed still lists, so that the next
    -- refresh does not bring them back as new.
    CREATE TABLE purged_entries (
        feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        seen_at INTEGER NOT NULL,
        PRIMARY KEY (feed_id, key)
    ) WITHOUT ROWID;",
    ),
    // 6: full articles: the page behind an entry's link, extracted (or why it could not be), and the feeds whose
    // new entries are fetched in full on refresh (feeds that send only snippets).
    Step::Sql(
        "ALTER TABLE entries ADD COLUMN full_html TEXT;
    ALTER TABLE entries ADD COLUMN full_error TEXT;
    ALTER TABLE entries ADD COLUMN full_fetched_at INTEGER;
    ALTER TABLE feeds ADD COLUMN full_text INTEGER NOT NULL DEFAULT 0;
    -- A full article is searched like the entry's own text: storing one marks the entry for indexing again.
    DROP TRIGGER entries_search_changed;
    CREATE TRIGGER entries_search_changed AFTER UPDATE OF title, author, content_html, summary_html, full_html
    ON entries WHEN old.search_indexed = 1 BEGIN
        UPDATE entries SET search_indexed = 0 WHERE id = new.id;
    END;",
    ),
    // 7: folders as a tree: a name is unique among its siblings only ("Tech/News" and "World/News"), so the
    // table is rebuilt without its old UNIQUE(name); names that were paths ("Tech/Rust") become nested folders.
    Step::Sql(
        "CREATE TABLE folders_tree (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            parent_id INTEGER REFERENCES folders(id) ON DELETE CASCADE,
            position INTEGER NOT NULL DEFAULT 0,
            collapsed INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO folders_tree (id, name, parent_id, position, collapsed)
            SELECT id, name, parent_id, position, collapsed FROM folders;
        DROP TABLE folders;
        ALTER TABLE folders_tree RENAME TO folders;
        CREATE INDEX folders_by_parent ON folders(parent_id);
        CREATE TRIGGER folders_forget_list_settings AFTER DELETE ON folders BEGIN
            DELETE FROM list_settings WHERE list = 'folder:' || old.id;
        END;",
    ),
    Step::Code(folders::migrate_paths_to_tree),
    // 9: accounts — servers that hold subscriptions and read state (see `crate::sync`) — and the change log that
    // carries what people change here to them (see `changes`). An account's feed is fetched by its server, not
    // by tidings; `remote_id` is the server's id for it (a Google Reader stream id), and its entries are keyed
    // by the server's item ids. A feed's address is unique among the local feeds and within each account (the
    // same feed may be both a local subscription and an account's), so the feeds table is rebuilt without its
    // UNIQUE(url); its triggers and indexes come back with it.
    Step::Sql(
        "CREATE TABLE accounts (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            url TEXT NOT NULL,
            login TEXT NOT NULL,
            folder_id INTEGER REFERENCES folders(id) ON DELETE SET NULL,
            auth TEXT,
            synced_at INTEGER,
            items_since INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE feeds_by_account (
            id INTEGER PRIMARY KEY,
            url TEXT NOT NULL,
            title TEXT,
            custom_title TEXT,
            site_url TEXT,
            folder_id INTEGER REFERENCES folders(id) ON DELETE SET NULL,
            position INTEGER NOT NULL DEFAULT 0,
            etag TEXT,
            last_modified TEXT,
            last_status INTEGER,
            last_error TEXT,
            error_kind TEXT,
            failures INTEGER NOT NULL DEFAULT 0,
            retry_at INTEGER,
            last_fetched_at INTEGER,
            last_success_at INTEGER,
            encoding_decision TEXT,
            encoding_override TEXT,
            added_at INTEGER NOT NULL,
            parse_warnings TEXT,
            dead INTEGER NOT NULL DEFAULT 0,
            refresh_every_secs INTEGER,
            full_text INTEGER NOT NULL DEFAULT 0,
            account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
            remote_id TEXT
        );
        INSERT INTO feeds_by_account (id, url, title, custom_title, site_url, folder_id, position, etag, last_modified,
                last_status, last_error, error_kind, failures, retry_at, last_fetched_at, last_success_at,
                encoding_decision, encoding_override, added_at, parse_warnings, dead, refresh_every_secs, full_text)
            SELECT id, url, title, custom_title, site_url, folder_id, position, etag, last_modified,
                last_status, last_error, error_kind, failures, retry_at, last_fetched_at, last_success_at,
                encoding_decision, encoding_override, added_at, parse_warnings, dead, refresh_every_secs, full_text
            FROM feeds;
        DROP TABLE feeds;
        ALTER TABLE feeds_by_account RENAME TO feeds;
        CREATE UNIQUE INDEX feeds_by_url ON feeds(coalesce(account_id, 0), url);
        CREATE INDEX feeds_by_folder ON feeds(folder_id);
        CREATE INDEX feeds_of_accounts ON feeds(account_id, remote_id) WHERE account_id IS NOT NULL;
        CREATE TRIGGER feeds_search_renamed AFTER UPDATE OF title, custom_title, url ON feeds
        WHEN coalesce(new.custom_title, new.title, new.url) IS NOT coalesce(old.custom_title, old.title, old.url) BEGIN
            UPDATE entries SET search_indexed = 0 WHERE feed_id = new.id AND search_indexed = 1;
        END;
        CREATE TRIGGER feeds_forget_list_settings AFTER DELETE ON feeds BEGIN
            DELETE FROM list_settings WHERE list = 'feed:' || old.id;
        END;
        CREATE TABLE changes (
            id INTEGER PRIMARY KEY,
            account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            at INTEGER NOT NULL,
            kind TEXT NOT NULL,
            target TEXT NOT NULL,
            flag TEXT,
            value TEXT
        );
        CREATE UNIQUE INDEX changes_one_per_flag ON changes(account_id, target, flag) WHERE kind = 'flag';",
    ),
    // 10: feeds that give their entries new ids on every fetch: how many times an entry was known again by its
    // link and title under a new id (see `identity::upsert_entry`), for the feed info to say so.
    Step::Sql("ALTER TABLE feeds ADD COLUMN id_rotations INTEGER NOT NULL DEFAULT 0;"),
    // 11: the newest item an account's sync has stored (the server's microseconds), so that a sync with nothing
    // new stops at the first page it already has: `items_since` is whole seconds, and a server that stores a
    // whole refresh within one second would otherwise send all of it again each time.
    Step::Sql("ALTER TABLE accounts ADD COLUMN items_seen_usec INTEGER NOT NULL DEFAULT 0;"),
    // 12: the query language's kill rules and per-feed settings. An entry a kill rule (`[[ignore]]` in the config)
    // catches is kept but `ignored`: the unread and starred indexes leave it out, so every count and list does
    // without a row read, and a small index holds the ignored ones (`tidings list --ignored`). The per-feed
    // settings of the config (`[feeds."URL"]`, their source of truth) that queries need are copied onto the feed
    // at every start and edit: notify on new entries, hidden from the Unread view, its own refresh interval.
    Step::Sql(
        "ALTER TABLE entries ADD COLUMN ignored INTEGER NOT NULL DEFAULT 0;
        DROP INDEX entries_unread_by_feed;
        CREATE INDEX entries_unread_by_feed ON entries(feed_id) WHERE read = 0 AND ignored = 0;
        DROP INDEX entries_unread_by_date;
        CREATE INDEX entries_unread_by_date ON entries(sort_at, id, feed_id) WHERE read = 0 AND ignored = 0;
        DROP INDEX entries_starred_by_date;
        CREATE INDEX entries_starred_by_date ON entries(sort_at, id, feed_id) WHERE starred = 1 AND ignored = 0;
        CREATE INDEX entries_ignored ON entries(id, feed_id) WHERE ignored = 1;
        ALTER TABLE feeds ADD COLUMN notify INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE feeds ADD COLUMN hide_from_unread INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE feeds ADD COLUMN refresh_minutes INTEGER;
        ALTER TABLE feeds ADD COLUMN honour_ttl INTEGER NOT NULL DEFAULT 1;",
    ),
    // 13: what a newsboat home carries over (see `carried`): feeds hidden from the feed list, the tags a feed
    // had besides the one that became its folder, and the other keys an entry carried over may come back under
    // (a refresh that brings one of them takes the stored entry as that entry, so nothing arrives twice); and the
    // reader's remembered settings (feeds with nothing unread hidden, the last search); and when a feed was set to
    // be fetched in full, so only entries first seen since are (not every entry stored before).
    Step::Sql(
        "ALTER TABLE feeds ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE feed_tags (
            feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (feed_id, tag)
        ) WITHOUT ROWID;
        CREATE TABLE entry_aliases (
            feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            PRIMARY KEY (feed_id, key)
        ) WITHOUT ROWID;
        CREATE INDEX entry_aliases_by_entry ON entry_aliases(entry_id);
        ALTER TABLE feeds ADD COLUMN full_text_since INTEGER;
        CREATE TABLE preferences (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        -- Greek is searched without its accents now: entries with Greek text are indexed again.
        UPDATE entries SET search_indexed = 0 WHERE search_indexed = 1
            AND (title GLOB '*[ά-ώΆ-Ώ]*' OR content_html GLOB '*[ά-ώΆ-Ώ]*' OR summary_html GLOB '*[ά-ώΆ-Ώ]*');",
    ),
    // 14: kill rules judge only what can have changed since they last judged (see `query::apply_rules`): the
    // entries whose answer may have moved — their text indexed (rules that read the text judge indexed entries
    // only), their read or starred flag, a field a rule reads, their `ignored` flag set by a refresh or a sync
    // that guessed (unread, unstarred) — are noted here by triggers, and the next
    // judgement reads them and empties the table. Entries stored since are found by id, entries that aged past
    // an `age` limit by date, and changed rules (or feeds a rule names) by the rules' fingerprint. A trigger
    // notes only when the rules of the last judgement need it (what they read is remembered in `preferences`):
    // with no kill rules, indexing and marking 400,000 entries read write nothing more.
    Step::Sql(
        "CREATE TABLE entries_unjudged (entry_id INTEGER PRIMARY KEY);
        CREATE TRIGGER entries_unjudged_indexed AFTER UPDATE OF search_indexed ON entries
        WHEN new.search_indexed = 1 AND old.search_indexed = 0
            AND EXISTS (SELECT 1 FROM preferences WHERE name = 'kill_rules.read' AND value GLOB '*text*')
        BEGIN
            INSERT OR IGNORE INTO entries_unjudged (entry_id) VALUES (new.id);
        END;
        CREATE TRIGGER entries_unjudged_flags AFTER UPDATE OF read, starred ON entries
        WHEN (new.read IS NOT old.read OR new.starred IS NOT old.starred)
            AND EXISTS (SELECT 1 FROM preferences WHERE name = 'kill_rules.read' AND value GLOB '*flags*')
        BEGIN
            INSERT OR IGNORE INTO entries_unjudged (entry_id) VALUES (new.id);
        END;
        CREATE TRIGGER entries_unjudged_fields AFTER UPDATE OF feed_id, key, title, author, link, categories,
            enclosures, sort_at, ignored ON entries
        WHEN (new.feed_id IS NOT old.feed_id OR new.key IS NOT old.key OR new.title IS NOT old.title
            OR new.author IS NOT old.author OR new.link IS NOT old.link OR new.categories IS NOT old.categories
            OR new.enclosures IS NOT old.enclosures OR new.sort_at IS NOT old.sort_at
            OR new.ignored IS NOT old.ignored)
            AND EXISTS (SELECT 1 FROM preferences WHERE name = 'kill_rules.read')
        BEGIN
            INSERT OR IGNORE INTO entries_unjudged (entry_id) VALUES (new.id);
        END;
        -- An entry's id is the table's rowid, which SQLite gives again once the rows above it are gone: when the
        -- newest entries go, the newest judged id comes down with them, so entries stored later under those ids
        -- are still found as new.
        CREATE TRIGGER entries_unjudged_ids_freed AFTER DELETE ON entries
        WHEN old.id > (SELECT coalesce(max(id), 0) FROM entries)
        BEGIN
            UPDATE preferences SET value = CAST((SELECT coalesce(max(id), 0) FROM entries) AS TEXT)
            WHERE name = 'kill_rules.judged_to' AND CAST(value AS INTEGER) > (SELECT coalesce(max(id), 0) FROM entries);
        END;",
    ),
    // 15: a refresh writes each new entry into fewer indexes that take it at a random place (a cold refresh brings
    // entries of every date, and titles come in no order). The unread entries in date order come from the index
    // of unread entries by feed, which now carries their dates and ids (a feed's new entries go next to each
    // other there), sorted when the list is read: it costs what the unread entries are, not all that is stored.
    // The index by title goes too: a list sorted by title is sorted by SQLite when it is read, from the index by
    // id, which now carries the titles (new entries go at its end, and it is a tenth the size of the rows).
    Step::Sql(
        "DROP INDEX entries_by_title;
        DROP INDEX entries_unread_by_date;
        DROP INDEX entries_unread_by_feed;
        CREATE INDEX entries_unread_by_feed ON entries(feed_id, sort_at, id) WHERE read = 0 AND ignored = 0;
        DROP INDEX entries_by_id;
        CREATE INDEX entries_by_id ON entries(id, sort_at, feed_id, title);",
    ),
    // 16: a sync stores at most so many items (see `crate::sync`); one that stopped there, or was cut short,
    // keeps the server's continuation for the older items it did not get, and the next sync goes on from it.
    Step::Sql("ALTER TABLE accounts ADD COLUMN items_resume TEXT;"),
    // 17: feed health (see `later::FEED_HEALTH`).
    Step::Sql(later::FEED_HEALTH),
    // 18: hooks (see `later::HOOKS`).
    Step::Sql(later::HOOKS),
    // 19: entry ids never reused (see `later::ENTRY_IDS_NEVER_REUSED`).
    Step::Sql(later::ENTRY_IDS_NEVER_REUSED),
    // 20: the download queue (see `downloads::DOWNLOADS`).
    Step::Sql(downloads::DOWNLOADS),
    // 21: what a sync learns of an account's server (see `later::ACCOUNT_SERVER`).
    Step::Sql(later::ACCOUNT_SERVER),
    // 22: new entries heard from their ids, not from a trigger (see `later::NEW_ENTRIES_BY_ID`).
    Step::Sql(later::NEW_ENTRIES_BY_ID),
    // 23: the digest of the document a feed's last refresh read (see `later::DOCUMENT_DIGEST`).
    Step::Sql(later::DOCUMENT_DIGEST),
    // 24: no index of every entry by date (see `later::NO_INDEX_BY_DATE`).
    Step::Sql(later::NO_INDEX_BY_DATE),
    // 25: the entries waiting for the search index, found without an index (see `later::SEARCH_PENDING`).
    Step::Sql(later::SEARCH_PENDING),
    // 26: an entry's feed checked at commit (see `later::entry_feed_deferred`).
    Step::Code(later::entry_feed_deferred),
    // 27: the downloads by file (see `downloads::DOWNLOADS_BY_PATH`).
    Step::Sql(downloads::DOWNLOADS_BY_PATH),
];

/// One step of the schema: SQL, or code for what SQL alone cannot say.
pub(super) enum Step {
    Sql(&'static str),
    Code(fn(&Connection) -> rusqlite::Result<()>),
}

/// For tests: leaves `conn` as the build before the first step that `this` picks left its databases (every step
/// before it run, and that version recorded).
#[cfg(test)]
pub(super) fn migrate_to_before(conn: &Connection, this: impl Fn(&Step) -> bool) {
    let before = MIGRATIONS.iter().position(this).expect("the step asked for");
    for step in &MIGRATIONS[..before] {
        match step {
            Step::Sql(sql) => conn.execute_batch(sql).unwrap(),
            Step::Code(code) => code(conn).unwrap(),
        }
    }
    conn.pragma_update(None, "user_version", before as i64).unwrap();
}

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Refuses a database written by a newer tidings, or by something else. With `migrating`, an older (or new,
/// empty) database is fine, since the caller brings it up to date; without, it must be current.
pub(super) fn check_schema(conn: &Connection, path: &Path, migrating: bool) -> Result<(), StoreError> {
    // One statement, so both come from one snapshot: another process may be creating the schema right now.
    let (found, tables): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT user_version FROM pragma_user_version),
                    (SELECT count(*) FROM sqlite_master WHERE type = 'table')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| classify(path, e))?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    if found == 0 {
        if tables > 0 {
            return Err(StoreError::Foreign {
                path: path.to_path_buf(),
                reason: "it already holds tables but no tidings schema version".into(),
            });
        }
        if !migrating {
            return Err(StoreError::Missing { path: path.to_path_buf() });
        }
    }
    if found < SCHEMA_VERSION && !migrating {
        return Err(StoreError::Outdated { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    Ok(())
}
