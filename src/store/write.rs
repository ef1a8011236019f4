//! Writes: each function is one transaction, run on the writer's thread (see [`super::DbThread`]).

use super::StoreError;
use crate::model::{EntryId, ErrorKind, FeedId, NewFeed, ParsedEntry, ParsedFeed};
use rusqlite::{Connection, OptionalExtension, params};

/// Caps on what one entry may store, so a hostile feed cannot fill the disk.
pub const MAX_TITLE_BYTES: usize = 2 * 1024;
pub const MAX_CONTENT_BYTES: usize = 1024 * 1024;
pub const MAX_ENTRIES_PER_REFRESH: usize = 5_000;

/// Result of adding subscriptions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportOutcome {
    pub added: Vec<String>,
    /// Already subscribed before this import.
    pub duplicates: Vec<String>,
}

/// Adds subscriptions (creating their folders), skipping URLs already subscribed. All or nothing.
pub fn import_feeds(conn: &mut Connection, feeds: &[NewFeed], now: i64) -> Result<ImportOutcome, StoreError> {
    import_feeds_with_progress(conn, feeds, &[], now, |_| {})
}

/// How many subscriptions [`import_feeds_with_progress`] adds between two progress calls.
pub const IMPORT_PROGRESS_EVERY: usize = 1_000;

/// [`import_feeds`], creating the `folders` listed too (an OPML file's empty folders), and calling `progress`
/// with the number of subscriptions handled so far every [`IMPORT_PROGRESS_EVERY`], and once at the end. One
/// transaction, and linear: each subscription costs an index lookup and an insert (positions and folder ids are
/// counted here, not looked up again each time). A name the file gives a feed is the user's name for it.
pub fn import_feeds_with_progress(
    conn: &mut Connection,
    feeds: &[NewFeed],
    folders: &[Vec<String>],
    now: i64,
    mut progress: impl FnMut(usize),
) -> Result<ImportOutcome, StoreError> {
    let tx = conn.transaction()?;
    let mut outcome = ImportOutcome::default();
    {
        let mut exists = tx.prepare_cached("SELECT 1 FROM feeds WHERE url = ?1")?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO feeds (url, title, custom_title, site_url, folder_id, position, added_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut position: i64 = tx.query_row("SELECT coalesce(max(position), 0) FROM feeds", [], |r| r.get(0))?;
        let mut folder_ids = super::folders::FolderIds::default();
        for path in folders {
            folder_ids.path(&tx, path)?;
        }
        for (done, feed) in feeds.iter().enumerate() {
            if done > 0 && done % IMPORT_PROGRESS_EVERY == 0 {
                progress(done);
            }
            if exists.exists([&feed.url])? {
                outcome.duplicates.push(feed.url.clone());
                continue;
            }
            let folder_id = folder_ids.path(&tx, &feed.folder)?;
            position += 1;
            insert.execute(params![
                feed.url,
                feed.title.as_deref().map(|t| crate::sanitize::truncate_bytes(t, MAX_TITLE_BYTES)),
                feed.name.as_deref().map(|t| crate::sanitize::truncate_bytes(t, MAX_TITLE_BYTES)),
                feed.site_url,
                folder_id,
                position,
                now
            ])?;
            outcome.added.push(feed.url.clone());
        }
    }
    tx.commit()?;
    progress(feeds.len());
    Ok(outcome)
}

/// Adds one subscription (or finds it, when its URL is already subscribed); returns its id and whether it was
/// new.
pub fn add_feed(conn: &mut Connection, feed: &NewFeed, now: i64) -> Result<(FeedId, bool), StoreError> {
    let outcome = import_feeds(conn, std::slice::from_ref(feed), now)?;
    let id = conn.prepare_cached("SELECT id FROM feeds WHERE url = ?1")?.query_row([&feed.url], |r| r.get(0))?;
    Ok((id, !outcome.added.is_empty()))
}

/// Unsubscribes; the feed's entries go with it.
pub fn delete_feed(conn: &mut Connection, feed_id: FeedId) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM feeds WHERE id = ?1")?.execute([feed_id])?;
    Ok(())
}

/// Gives a feed the user's own name; `None` goes back to the feed's title.
pub fn rename_feed(conn: &mut Connection, feed_id: FeedId, title: Option<&str>) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE feeds SET custom_title = ?2 WHERE id = ?1")?.execute(params![feed_id, title])?;
    Ok(())
}

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
pub fn apply_fetch(
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

/// Records one fetch of one feed, entries included, inside a transaction (or savepoint) the caller opened and
/// commits: the refresher stores several feeds per transaction, each in its own savepoint.
pub fn record_fetch(
    tx: &Connection,
    feed_id: FeedId,
    record: &FetchRecord,
    now: i64,
) -> Result<ApplyOutcome, StoreError> {
    let mut outcome = ApplyOutcome::default();
    match record {
        FetchRecord::Fetched { status, etag, last_modified, feed, decision, moved_to, min_interval_secs } => {
            let warnings =
                (!feed.warnings.is_empty()).then(|| serde_json::to_string(&feed.warnings).unwrap_or_default());
            tx.prepare_cached(
                "UPDATE feeds SET title = coalesce(?2, title), site_url = coalesce(?3, site_url),
                    etag = ?4, last_modified = ?5, last_status = ?6, last_error = NULL, error_kind = NULL,
                    failures = 0, retry_at = NULL, dead = 0, last_fetched_at = ?7, last_success_at = ?7,
                    encoding_decision = coalesce(?8, encoding_decision), parse_warnings = ?9, refresh_every_secs = ?10
                 WHERE id = ?1",
            )?
            .execute(params![
                feed_id,
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
            for entry in feed.entries.iter().take(MAX_ENTRIES_PER_REFRESH) {
                match upsert_entry(tx, feed_id, entry, now)? {
                    Upsert::Inserted => outcome.new += 1,
                    Upsert::Updated => outcome.updated += 1,
                    Upsert::Unchanged => {}
                }
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
            .execute(params![feed_id, etag, last_modified, now])?;
            outcome.moved_to = move_feed_url(tx, feed_id, moved_to.as_deref())?;
        }
        FetchRecord::Failed { status, kind, message, retry_after_secs } => {
            let failures: i64 = tx
                .prepare_cached("SELECT failures + 1 FROM feeds WHERE id = ?1")?
                .query_row([feed_id], |r| r.get(0))
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
            .execute(params![feed_id, status, kind.as_str(), message, failures, now, retry_at, dead])?;
            outcome.retry_at = retry_at;
            outcome.dead = dead;
        }
    }
    outcome.unread = super::read::unread_count(tx, feed_id)?;
    outcome.title = tx
        .prepare_cached("SELECT coalesce(custom_title, title, url) FROM feeds WHERE id = ?1")?
        .query_row([feed_id], |r| r.get(0))
        .optional()?
        .unwrap_or_default();
    Ok(outcome)
}

/// Stores a feed's new address after a permanent redirect, unless another subscription already has it.
fn move_feed_url(tx: &Connection, feed_id: FeedId, to: Option<&str>) -> Result<Option<String>, StoreError> {
    let Some(to) = to else { return Ok(None) };
    let taken: bool =
        tx.prepare_cached("SELECT 1 FROM feeds WHERE url = ?1 AND id != ?2")?.exists(params![to, feed_id])?;
    if taken {
        return Ok(None);
    }
    let changed =
        tx.prepare_cached("UPDATE feeds SET url = ?2 WHERE id = ?1 AND url != ?2")?.execute(params![feed_id, to])?;
    Ok((changed > 0).then(|| to.to_string()))
}

enum Upsert {
    Inserted,
    Updated,
    Unchanged,
}

/// Inserts a new entry or updates a changed one; read and starred flags are never touched here.
fn upsert_entry(tx: &Connection, feed_id: FeedId, e: &ParsedEntry, now: i64) -> Result<Upsert, StoreError> {
    let cap = |s: &Option<String>, max| s.as_deref().map(|s| crate::sanitize::truncate_bytes(s, max).to_string());
    let json = |empty: bool, value: String| (!empty).then_some(value);
    let row = StoredEntry {
        title: cap(&e.display_title(), MAX_TITLE_BYTES),
        link: cap(&e.link, MAX_TITLE_BYTES),
        author: cap(&(!e.authors.is_empty()).then(|| e.authors.join(", ")), MAX_TITLE_BYTES),
        published: e.published.map(|d| d.timestamp()),
        updated: e.updated.map(|d| d.timestamp()),
        content: cap(&e.content_html, MAX_CONTENT_BYTES),
        summary: cap(&e.summary_html, MAX_CONTENT_BYTES),
        categories: json(e.categories.is_empty(), serde_json::to_string(&e.categories).unwrap_or_default()),
        enclosures: json(e.enclosures.is_empty(), serde_json::to_string(&e.enclosures).unwrap_or_default()),
        comments: cap(&e.comments, MAX_TITLE_BYTES),
        thumbnail: cap(&e.thumbnail, MAX_TITLE_BYTES),
    };
    let key = crate::sanitize::truncate_bytes(&e.key, MAX_TITLE_BYTES);

    let stored: Option<(EntryId, i64, StoredEntry)> = tx
        .prepare_cached(
            "SELECT id, first_seen_at, title, link, author, published_at, updated_at, content_html, summary_html,
                    categories, enclosures, comments, thumbnail
             FROM entries WHERE feed_id = ?1 AND key = ?2",
        )?
        .query_row(params![feed_id, key], |r| {
            Ok((
                r.get(0)?,
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
        .optional()?;

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
        None if super::purge::was_purged(tx, feed_id, key, now)? => Ok(Upsert::Unchanged),
        None => {
            let mut values: Vec<&dyn rusqlite::ToSql> = vec![&feed_id, &key, &now];
            values.extend_from_slice(fields);
            tx.prepare_cached(
                "INSERT INTO entries (feed_id, key, first_seen_at, title, link, author, published_at, updated_at,
                    content_html, summary_html, categories, enclosures, comments, thumbnail, sort_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, coalesce(?7, ?8, ?3))",
            )?
            .execute(values.as_slice())?;
            Ok(Upsert::Inserted)
        }
        Some((_, _, ref old)) if *old == row => Ok(Upsert::Unchanged),
        Some((id, first_seen, _)) => {
            let mut values: Vec<&dyn rusqlite::ToSql> = vec![&id, &first_seen];
            values.extend_from_slice(fields);
            tx.prepare_cached(
                "UPDATE entries SET title = ?3, link = ?4, author = ?5, published_at = ?6, updated_at = ?7,
                    content_html = ?8, summary_html = ?9, categories = ?10, enclosures = ?11, comments = ?12,
                    thumbnail = ?13, sort_at = coalesce(?6, ?7, ?2)
                 WHERE id = ?1",
            )?
            .execute(values.as_slice())?;
            Ok(Upsert::Updated)
        }
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

/// Forces (or with `None`, stops forcing) the encoding of a feed. The validators are dropped so the next
/// refresh downloads the feed again instead of hearing "not modified".
pub fn set_encoding_override(conn: &mut Connection, feed_id: FeedId, label: Option<&str>) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE feeds SET encoding_override = ?2, etag = NULL, last_modified = NULL WHERE id = ?1")?
        .execute(params![feed_id, label])?;
    Ok(())
}

/// Marks entries read or unread; says how many of them were no longer there (purged meanwhile).
pub fn set_read(conn: &mut Connection, ids: &[EntryId], read: bool) -> Result<usize, StoreError> {
    set_flag(conn, "UPDATE entries SET read = ?2 WHERE id = ?1", ids, read)
}

/// Runs `update` (an UPDATE of one entry's flag: `?1` the id, `?2` the value) for each of `ids` in one
/// transaction; returns how many ids matched no entry.
pub(super) fn set_flag(conn: &mut Connection, update: &str, ids: &[EntryId], value: bool) -> Result<usize, StoreError> {
    let tx = conn.transaction()?;
    let mut found = 0;
    {
        let mut stmt = tx.prepare_cached(update)?;
        for id in ids {
            found += stmt.execute(params![id, value])?;
        }
    }
    tx.commit()?;
    Ok(ids.len() - found)
}

/// Marks every entry of a feed read.
pub fn mark_feed_read(conn: &mut Connection, feed_id: FeedId) -> Result<usize, StoreError> {
    Ok(conn.prepare_cached("UPDATE entries SET read = 1 WHERE feed_id = ?1 AND read = 0")?.execute([feed_id])?)
}

/// Marks every entry of every feed in a folder read.
pub fn mark_folder_read(conn: &mut Connection, folder_id: crate::model::FolderId) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "UPDATE entries SET read = 1 WHERE read = 0 AND feed_id IN (SELECT id FROM feeds WHERE folder_id = ?1)",
        )?
        .execute([folder_id])?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FeedKind;
    use crate::store::{open_write, read};

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
        }
    }

    fn setup() -> (tempfile::TempDir, Connection, FeedId) {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = open_write(&dir.path().join("t.db")).unwrap();
        let feeds = vec![NewFeed {
            url: "http://example.com/feed".into(),
            title: None,
            name: None,
            site_url: None,
            folder: vec![],
        }];
        import_feeds(&mut conn, &feeds, 0).unwrap();
        let id = read::feeds(&conn).unwrap()[0].id;
        (dir, conn, id)
    }

    #[test]
    fn a_second_refresh_of_the_same_feed_adds_no_duplicate() {
        let (_dir, mut conn, id) = setup();
        let record = fetched(vec![entry("a", "A"), entry("b", "B")]);
        let first = apply_fetch(&mut conn, id, &record, 10).unwrap();
        assert_eq!((first.new, first.updated, first.unread), (2, 0, 2));
        let second = apply_fetch(&mut conn, id, &record, 20).unwrap();
        assert_eq!((second.new, second.updated, second.unread), (0, 0, 2));
        assert_eq!(read::entries(&conn, id).unwrap().len(), 2);
    }

    #[test]
    fn a_changed_entry_is_updated_and_keeps_its_read_flag() {
        let (_dir, mut conn, id) = setup();
        apply_fetch(&mut conn, id, &fetched(vec![entry("a", "A")]), 10).unwrap();
        let entry_id = read::entries(&conn, id).unwrap()[0].id;
        set_read(&mut conn, &[entry_id], true).unwrap();
        let outcome = apply_fetch(&mut conn, id, &fetched(vec![entry("a", "A, corrected")]), 20).unwrap();
        assert_eq!((outcome.new, outcome.updated, outcome.unread), (0, 1, 0));
        let detail = read::entry(&conn, entry_id).unwrap().unwrap();
        assert_eq!(detail.title.as_deref(), Some("A, corrected"));
        assert!(detail.read);
    }

    #[test]
    fn a_failure_keeps_entries_and_validators_and_records_the_error() {
        let (_dir, mut conn, id) = setup();
        apply_fetch(&mut conn, id, &fetched(vec![entry("a", "A")]), 10).unwrap();
        let failed = FetchRecord::Failed {
            status: Some(500),
            kind: ErrorKind::Http,
            message: "HTTP 500".into(),
            retry_after_secs: None,
        };
        let outcome = apply_fetch(&mut conn, id, &failed, 20).unwrap();
        assert_eq!(outcome.unread, 1);
        let row = read::feed(&conn, id).unwrap().unwrap();
        assert_eq!(row.last_error.as_deref(), Some("HTTP 500"));
        assert_eq!(row.last_status, Some(500));
        let target = &read::refresh_targets(&conn, Some(&[id])).unwrap()[0];
        assert_eq!(target.etag.as_deref(), Some("\"v1\""));
    }

    #[test]
    fn forcing_an_encoding_drops_the_validators_and_shows_in_the_feed_info() {
        let (_dir, mut conn, id) = setup();
        let mut record = fetched(vec![entry("a", "A")]);
        if let FetchRecord::Fetched { decision, .. } = &mut record {
            *decision = Some(r#"{"encoding":"KOI8-R","source":"http-charset","signals":{"media_type":null,"http_charset":"koi8-r","bom":null,"first_bytes":null,"xml_declaration":"utf-8","detected":null},"strict":{"encoding":"KOI8-R","rule":"HTTP 2.6"},"overridden":["xml_declaration"],"lenient":false,"notes":[]}"#.into());
        }
        apply_fetch(&mut conn, id, &record, 10).unwrap();
        let row = read::feed(&conn, id).unwrap().unwrap();
        assert!(row.encoding_overridden);
        set_encoding_override(&mut conn, id, Some("windows-1251")).unwrap();
        let info = read::feed_info(&conn, id).unwrap().unwrap();
        assert_eq!(info.row.encoding_forced.as_deref(), Some("windows-1251"));
        assert_eq!(info.etag, None);
        assert_eq!(info.decision.unwrap().encoding, "KOI8-R");
        assert_eq!(
            read::refresh_targets(&conn, Some(&[id])).unwrap()[0].encoding_override.as_deref(),
            Some("windows-1251")
        );
    }

    #[test]
    fn subscriptions_are_added_renamed_moved_and_deleted_with_their_entries() {
        let (_dir, mut conn, id) = setup();
        apply_fetch(&mut conn, id, &fetched(vec![entry("a", "A")]), 10).unwrap();
        let new = NewFeed {
            url: "http://two.example/rss".into(),
            title: Some("Two".into()),
            name: None,
            site_url: None,
            folder: vec![],
        };
        let (two, added) = add_feed(&mut conn, &new, 0).unwrap();
        assert!(added);
        assert_eq!(add_feed(&mut conn, &new, 0).unwrap(), (two, false), "adding again finds the same feed");
        rename_feed(&mut conn, two, Some("My name")).unwrap();
        crate::store::folders::move_feed(&mut conn, two, &["Later".to_string()]).unwrap();
        let row = read::feed(&conn, two).unwrap().unwrap();
        assert_eq!((row.title.as_str(), row.folder.as_deref()), ("My name", Some("Later")));
        rename_feed(&mut conn, two, None).unwrap();
        assert_eq!(read::feed(&conn, two).unwrap().unwrap().title, "Two");
        delete_feed(&mut conn, id).unwrap();
        let left: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0, "entries go with their feed");
    }

    #[test]
    fn folders_are_created_renamed_collapsed_and_deleted() {
        use crate::store::folders;
        let (_dir, mut conn, id) = setup();
        let path = |p: &str| folders::split_path(p);
        let folder = folders::create(&mut conn, &path("News")).unwrap().unwrap();
        let other = folders::create(&mut conn, &path("Tech")).unwrap().unwrap();
        assert_eq!(read::folders(&conn).unwrap().len(), 2, "an empty folder is listed");
        folders::move_feed(&mut conn, id, &path("News")).unwrap();
        assert!(matches!(folders::rename(&mut conn, folder, "Tech"), Err(StoreError::Conflict(_))));
        folders::rename(&mut conn, folder, "World").unwrap();
        folders::set_collapsed(&mut conn, folder, true).unwrap();
        let listed = read::folders(&conn).unwrap();
        assert!(listed.iter().any(|f| f.name == "World" && f.collapsed));
        folders::delete(&mut conn, folder, folders::Contents::MoveUp).unwrap();
        assert_eq!(read::feed(&conn, id).unwrap().unwrap().folder, None, "its feeds move to the top level");
        assert_eq!(read::folders(&conn).unwrap().iter().map(|f| f.id).collect::<Vec<_>>(), vec![other]);
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
        assert_eq!(apply_fetch(&mut conn, id, &fail(None), 1000).unwrap().retry_at, None, "one failure may be a blip");
        assert_eq!(apply_fetch(&mut conn, id, &fail(None), 2000).unwrap().retry_at, Some(2300));
        assert_eq!(apply_fetch(&mut conn, id, &fail(None), 3000).unwrap().retry_at, Some(3600));
        assert_eq!(apply_fetch(&mut conn, id, &fail(Some(7200)), 4000).unwrap().retry_at, Some(11_200));
        assert_eq!(backoff_secs(40), 86_400);
        // Success clears it all.
        apply_fetch(&mut conn, id, &fetched(vec![]), 5000).unwrap();
        let (failures, retry): (i64, Option<i64>) = conn
            .query_row("SELECT failures, retry_at FROM feeds WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?)))
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
        assert!(apply_fetch(&mut conn, id, &gone, 10).unwrap().dead);
        let mut moved = fetched(vec![]);
        if let FetchRecord::Fetched { moved_to, .. } = &mut moved {
            *moved_to = Some("http://example.com/new-feed".into());
        }
        let outcome = apply_fetch(&mut conn, id, &moved, 20).unwrap();
        assert_eq!(outcome.moved_to.as_deref(), Some("http://example.com/new-feed"));
        let (url, dead): (String, bool) =
            conn.query_row("SELECT url, dead FROM feeds WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert_eq!((url.as_str(), dead), ("http://example.com/new-feed", false));
    }

    #[test]
    fn import_skips_duplicates_and_creates_folders() {
        let (_dir, mut conn, _) = setup();
        let feeds = vec![
            NewFeed { url: "http://example.com/feed".into(), title: None, name: None, site_url: None, folder: vec![] },
            NewFeed {
                url: "http://other.example/rss".into(),
                title: Some("Other".into()),
                name: None,
                site_url: None,
                folder: vec!["News".into()],
            },
        ];
        let outcome = import_feeds(&mut conn, &feeds, 0).unwrap();
        assert_eq!(outcome.added, vec!["http://other.example/rss"]);
        assert_eq!(outcome.duplicates, vec!["http://example.com/feed"]);
        let rows = read::feeds(&conn).unwrap();
        assert_eq!(rows[1].folder.as_deref(), Some("News"));
        assert_eq!(rows[1].title, "Other");
    }

    #[test]
    fn a_big_import_keeps_order_and_folders_and_reports_progress() {
        let (_dir, mut conn, _) = setup();
        let feeds: Vec<NewFeed> = (0..2_500)
            .map(|i| NewFeed {
                url: format!("http://h{}.example/{i}", i % 7),
                title: Some(format!("F{i}")),
                name: None,
                site_url: None,
                folder: if i % 3 != 0 { vec![format!("Folder {}", i % 5)] } else { vec![] },
            })
            .collect();
        let mut calls = Vec::new();
        let outcome = import_feeds_with_progress(&mut conn, &feeds, &[], 0, |n| calls.push(n)).unwrap();
        assert_eq!(outcome.added.len(), 2_500);
        assert_eq!(calls, vec![1_000, 2_000, 2_500]);
        let rows = read::feeds(&conn).unwrap();
        let positions: Vec<i64> = conn
            .prepare("SELECT position FROM feeds ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(positions, (1..=2_501).collect::<Vec<i64>>(), "the first feed of setup() then these, in order");
        assert_eq!(read::folders(&conn).unwrap().len(), 5);
        let f4 = rows.iter().find(|r| r.title == "F4").unwrap();
        assert_eq!(f4.folder.as_deref(), Some("Folder 4"));
    }

    #[test]
    fn entries_sort_newest_first_and_undated_ones_by_first_seen() {
        let (_dir, mut conn, id) = setup();
        let mut old = entry("old", "Old");
        old.published = chrono::DateTime::from_timestamp(1_000, 0);
        let mut undated = entry("undated", "Undated");
        undated.published = None;
        apply_fetch(&mut conn, id, &fetched(vec![old, entry("new", "New"), undated]), 2_000_000_000).unwrap();
        let titles: Vec<_> = read::entries(&conn, id).unwrap().into_iter().map(|e| e.title.unwrap()).collect();
        assert_eq!(titles, vec!["Undated", "New", "Old"]);
    }
}
