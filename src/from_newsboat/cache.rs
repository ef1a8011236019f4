//! newsboat's cache (`cache.db`, SQLite), read as the import needs it, within bounds: opened read-only and
//! `query_only`; its `rss_feed` and `rss_item` must be tables, as newsboat writes them (a view can make rows up
//! without end: a recursive one filled 710 MB of temporary disk in ten seconds); at most [`MAX_ROWS`] rows are
//! read, in at most [`MAX_TIME`] (SQLite's progress handler interrupts a statement past it), and what the bounds
//! leave out is said in the report. Text is read as bytes: what is not UTF-8 is read with replacement
//! characters, and counted, rather than refusing the whole cache.

use super::NewsboatError;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Row, Statement};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};
use tidings_core::newsboat::items::CachedItem;
use tidings_core::newsboat::urls;

/// The most rows read of the cache's two tables together (newsboat keeps every item it has not deleted).
const MAX_ROWS: usize = 1_000_000;
/// The longest reading the cache may take; a cache of a million items is read in a few seconds.
const MAX_TIME: Duration = Duration::from_secs(30);

/// newsboat's cache, as the import needs it.
#[derive(Debug, Default)]
pub(super) struct Cache {
    /// A feed's key (its canonical address: [`urls::feed_key`]) → (site, title).
    pub(super) feeds: HashMap<String, (String, String)>,
    pub(super) items: Vec<CachedItem>,
    /// Items in the podcast queue: (feed URL, GUID).
    pub(super) enqueued: HashSet<(String, String)>,
    /// Titles (of feeds and items) and other texts that were not UTF-8, read with replacement characters.
    pub(super) titles_not_utf8: usize,
    pub(super) texts_not_utf8: usize,
    /// Why reading stopped before the end, when a bound stopped it.
    pub(super) cut: Option<String>,
}

/// How far reading may go.
struct Budget {
    rows: usize,
    time: Duration,
}

/// Reads newsboat's cache; columns later versions added are read when they are there.
pub(super) fn read_cache(path: &Path) -> Result<Cache, NewsboatError> {
    read_within(path, Budget { rows: MAX_ROWS, time: MAX_TIME })
}

fn read_within(path: &Path, budget: Budget) -> Result<Cache, NewsboatError> {
    let fail = |message: String| NewsboatError::Cache { path: path.to_path_buf(), message };
    let failed = |e: rusqlite::Error| fail(e.to_string());
    if !path.is_file() {
        return Err(fail("there is no such file".into()));
    }
    let mut conn =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .map_err(failed)?;
    // Nothing in it runs a function with side effects, and nothing is written, whatever its schema says.
    conn.execute_batch("PRAGMA query_only = ON; PRAGMA trusted_schema = OFF;").map_err(failed)?;
    let started = Instant::now();
    let deadline = started + budget.time;
    conn.progress_handler(1_000, Some(move || Instant::now() >= deadline)).map_err(failed)?;
    for table in ["rss_feed", "rss_item"] {
        let kind: Option<(String, String)> = conn
            .query_row(
                "SELECT type, coalesce(sql, '') FROM sqlite_master WHERE name = ?1 COLLATE NOCASE",
                [table],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(failed)?;
        let not = |what: &str| fail(format!("its {table} is {what}, not a table as newsboat writes it"));
        match kind {
            Some((kind, sql)) if kind == "table" => {
                if sql.to_ascii_uppercase().starts_with("CREATE VIRTUAL") {
                    return Err(not("a virtual table"));
                }
            }
            Some((kind, _)) if kind == "view" => return Err(not("a view (which can make rows up without end)")),
            _ => return Err(fail(format!("it has no {table} table"))),
        }
    }
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info('rss_item')")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(failed)?;
    let has = |c: &str| columns.iter().any(|n| n == c);
    let optional = |c: &str| if has(c) { c.to_string() } else { "NULL".to_string() };
    let mut cache = Cache::default();
    let (mut titles, mut texts) = (Lossy::default(), Lossy::default());
    let mut left = budget.rows;
    let mut feeds = conn.prepare("SELECT rssurl, url, title FROM rss_feed").map_err(failed)?;
    let mut stop = each_row(&mut feeds, &mut left, |r| {
        let (url, site) = (texts.text(r, 0)?, texts.text(r, 1)?);
        cache.feeds.insert(urls::feed_key(urls::cached_feed_url(&url)), (site, titles.text(r, 2)?));
        Ok(())
    })
    .map_err(failed)?;
    if stop.is_none() {
        let sql = format!(
            "SELECT guid, title, author, url, feedurl, pubDate, content, unread, {}, {}, {}, {}, {}, {} FROM rss_item ORDER BY id",
            optional("enclosure_url"),
            optional("enclosure_type"),
            optional("flags"),
            optional("deleted"),
            optional("content_mime_type"),
            optional("enqueued"),
        );
        let mut items = conn.prepare(&sql).map_err(failed)?;
        stop = each_row(&mut items, &mut left, |r| {
            let item = CachedItem {
                guid: texts.text(r, 0)?,
                title: titles.text(r, 1)?,
                author: texts.text(r, 2)?,
                url: texts.text(r, 3)?,
                feed_url: texts.text(r, 4)?,
                pub_date: texts.text(r, 5)?.parse().unwrap_or(0),
                content: texts.text(r, 6)?,
                unread: texts.text(r, 7)? != "0",
                enclosure_url: Some(texts.text(r, 8)?).filter(|s| !s.is_empty()),
                enclosure_type: Some(texts.text(r, 9)?).filter(|s| !s.is_empty()),
                flags: texts.text(r, 10)?,
                deleted: texts.text(r, 11)? == "1",
                content_type: Some(texts.text(r, 12)?).filter(|s| !s.is_empty()),
            };
            if texts.text(r, 13)? == "1" {
                cache.enqueued.insert((item.feed_url.clone(), item.guid.clone()));
            }
            cache.items.push(item);
            Ok(())
        })
        .map_err(failed)?;
    }
    let read = cache.items.len();
    cache.cut = stop.map(|stop| match stop {
        Stop::Rows => format!(
            "newsboat's cache has more than {} rows, the most an import reads: the entries after the first {read} \
             were not carried over",
            budget.rows
        ),
        Stop::Time => format!(
            "reading newsboat's cache stopped after {:.0?}, the longest an import reads it: the entries after the \
             first {read} were not carried over",
            started.elapsed()
        ),
    });
    (cache.titles_not_utf8, cache.texts_not_utf8) = (titles.not_utf8, texts.not_utf8);
    Ok(cache)
}

/// Which bound stopped reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Rows,
    Time,
}

/// Runs `each` on the statement's rows while `left` (the rows the budget has left) lasts and the progress
/// handler lets it run; says which bound stopped it, if one did.
fn each_row(
    statement: &mut Statement<'_>,
    left: &mut usize,
    mut each: impl FnMut(&Row<'_>) -> rusqlite::Result<()>,
) -> rusqlite::Result<Option<Stop>> {
    let interrupted = |e: &rusqlite::Error| e.sqlite_error_code() == Some(ErrorCode::OperationInterrupted);
    let mut rows = statement.query([])?;
    loop {
        let row = match rows.next() {
            Ok(Some(row)) => row,
            Ok(None) => return Ok(None),
            Err(e) if interrupted(&e) => return Ok(Some(Stop::Time)),
            Err(e) => return Err(e),
        };
        if *left == 0 {
            return Ok(Some(Stop::Rows));
        }
        *left -= 1;
        each(row)?;
    }
}

/// Reads columns as text, whatever type a row holds, counting the texts that were not UTF-8.
#[derive(Default)]
struct Lossy {
    not_utf8: usize,
}

impl Lossy {
    fn text(&mut self, row: &Row<'_>, i: usize) -> rusqlite::Result<String> {
        Ok(match row.get_ref(i)? {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => text.to_string(),
                Err(_) => {
                    self.not_utf8 += 1;
                    String::from_utf8_lossy(bytes).into_owned()
                }
            },
            ValueRef::Integer(n) => n.to_string(),
            ValueRef::Real(x) => x.to_string(),
            ValueRef::Null => String::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache with newsboat's two tables, one feed and `items` items of it.
    fn cache_of(items: usize) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.db");
        let mut conn = Connection::open(&path).unwrap();
        let tx = conn.transaction().unwrap();
        tx.execute_batch(
            "CREATE TABLE rss_feed (rssurl VARCHAR(1024) PRIMARY KEY NOT NULL, url VARCHAR(1024) NOT NULL,
                 title VARCHAR(1024) NOT NULL);
             CREATE TABLE rss_item (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, guid VARCHAR(64) NOT NULL,
                 title VARCHAR(1024) NOT NULL, author VARCHAR(1024) NOT NULL, url VARCHAR(1024) NOT NULL,
                 feedurl VARCHAR(1024) NOT NULL, pubDate INTEGER NOT NULL, content VARCHAR(65535) NOT NULL,
                 unread INTEGER(1) NOT NULL);
             INSERT INTO rss_feed VALUES ('http://a.example/rss', 'http://a.example/', 'A');",
        )
        .unwrap();
        let mut insert = tx
            .prepare(
                "INSERT INTO rss_item (guid, title, author, url, feedurl, pubDate, content, unread)
                      VALUES (?1, 'T', '', '', 'http://a.example/rss', 0, '', 1)",
            )
            .unwrap();
        for i in 0..items {
            insert.execute([format!("g{i}")]).unwrap();
        }
        drop(insert);
        tx.commit().unwrap();
        (dir, path)
    }

    #[test]
    fn reading_stops_at_the_row_budget_and_says_so() {
        let (_dir, path) = cache_of(5);
        let cache = read_within(&path, Budget { rows: 4, time: MAX_TIME }).unwrap();
        assert_eq!(cache.items.iter().map(|i| i.guid.as_str()).collect::<Vec<_>>(), ["g0", "g1", "g2"]);
        let cut = cache.cut.unwrap();
        assert!(cut.contains("more than 4 rows") && cut.contains("after the first 3 were not"), "{cut}");
        let whole = read_within(&path, Budget { rows: 6, time: MAX_TIME }).unwrap();
        assert_eq!((whole.items.len(), whole.cut), (5, None));
    }

    #[test]
    fn reading_stops_at_the_time_budget_and_says_so() {
        // The progress handler looks at the clock every thousand steps: a few thousand rows take many more.
        let (_dir, path) = cache_of(5_000);
        let cache = read_within(&path, Budget { rows: MAX_ROWS, time: Duration::ZERO }).unwrap();
        assert!(cache.items.len() < 5_000);
        let cut = cache.cut.unwrap();
        assert!(cut.contains("reading newsboat's cache stopped after") && cut.contains("not carried over"), "{cut}");
    }
}
