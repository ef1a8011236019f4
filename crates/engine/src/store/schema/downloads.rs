//! The download queue's step of the schema, on its own so the steps can be put in order when branches meet.

/// Downloads (see `crate::downloads`): one row per enclosure queued, kept through quit, crash and kill -9. The
/// file is written to `path` + `.part` and renamed to `path` only when whole; the validators of the answer that
/// began the `.part` file (`etag`, `last_modified`) are what a resume sends in `If-Range`. `entry_id` and
/// `feed_id` are cleared when the entry or feed is deleted; the titles stay for the list. A finished download
/// is a `downloaded` event for the hooks (recorded only when some hook listens, like the others).
pub(super) const DOWNLOADS: &str = "CREATE TABLE downloads (
            id INTEGER PRIMARY KEY,
            entry_id INTEGER REFERENCES entries(id) ON DELETE SET NULL,
            feed_id INTEGER REFERENCES feeds(id) ON DELETE SET NULL,
            url TEXT NOT NULL UNIQUE,
            media_type TEXT,
            path TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'queued'
                CHECK (state IN ('queued', 'downloading', 'paused', 'done', 'failed')),
            reason TEXT,
            bytes_done INTEGER NOT NULL DEFAULT 0,
            bytes_total INTEGER,
            etag TEXT,
            last_modified TEXT,
            title TEXT NOT NULL DEFAULT '',
            feed_title TEXT NOT NULL DEFAULT '',
            created_at INTEGER NOT NULL,
            finished_at INTEGER
        );
        CREATE INDEX downloads_by_entry ON downloads(entry_id);
        CREATE TRIGGER hook_downloaded AFTER UPDATE OF state ON downloads
        WHEN new.state = 'done' AND old.state IS NOT 'done'
            AND EXISTS (SELECT 1 FROM preferences WHERE name = 'hooks.on' AND value GLOB '*|downloaded|*')
        BEGIN
            INSERT INTO hook_events (kind, entry_id, feed_id) VALUES ('downloaded', new.entry_id, new.feed_id);
        END;";

/// The downloads by file: a queueing asks whether a path is taken for every file it places.
pub(super) const DOWNLOADS_BY_PATH: &str = "CREATE INDEX downloads_by_path ON downloads(path);";
