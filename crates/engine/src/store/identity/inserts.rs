//! The new entries of a feed's first fetch, inserted several to a statement. Each run of a statement opens a cursor
//! on the entries table and on every one of its indexes, partial ones included, binds, and closes them again:
//! storing a new entry took 24,300 instructions with a statement of its own, 20,900 with 16 to a statement
//! (callgrind, a cold refresh of 300 feeds × 50). A first fetch looks nothing up before inserting (nothing of the
//! feed is stored), so its new entries wait here, in the order they were given their ids, until something reads
//! the table or the feed's entries are all in.

use super::{Elsewhere, NewFields};
use crate::store::StoreError;
use rusqlite::{CachedStatement, Connection, ToSql};
use std::sync::OnceLock;

/// How many rows one statement inserts: as many of the largest as fit, then the smaller (a feed of 50 entries
/// takes three statements of 16 rows and two of one). SQLite copies each text bound to a statement: with
/// statements of 8 rows, or of up to 64, a cold refresh ran more instructions than with these (callgrind, 300
/// feeds × 50: 911 M and 901 M against 886 M; 934 M one row at a time), and with statements of up to 48 rows once
/// they kept no journal (1000 × 50: 2,394 M against 2,279 M).
const SIZES: [usize; 3] = [16, 4, 1];

/// Parameters of one row's fields, in the order of [`insert_sql`]'s placeholders; a statement of one row has its
/// id after them.
const FIELDS: usize = 15;

/// The statement that inserts `rows` entries: for each, its feed, key, first sighting, eleven fields and whether
/// a kill rule hid it (`?1`…`?15` for the first row, `?16`… for the second).
///
/// A statement of one row gives the entry its id (`?16`). One of several rows leaves the ids to SQLite, which
/// gives each row the largest id stored plus one: the ids [`Inserts::flush`] gave them (checked after each
/// statement). A statement of several rows that names its rows' ids, or that may stop at a constraint (`INSERT`
/// aborts by default), makes SQLite keep a journal of its own of every page the statement changes, to undo it
/// alone: a cold refresh of 1000 feeds × 50 copied 72,000 pages there, and ran 2,452 M instructions against
/// 2,281 M without (callgrind). A failure here fails the whole transaction anyway (see `fetches::batch`), so the
/// statement fails where it stops (`OR FAIL`), and an entry's feed is checked at the commit
/// (`later::entry_feed_deferred`).
pub(super) fn insert_sql(rows: usize) -> &'static str {
    static SQL: [OnceLock<String>; SIZES.len()] = [const { OnceLock::new() }; SIZES.len()];
    let at = SIZES.iter().position(|n| *n == rows).expect("a row count of SIZES");
    SQL[at].get_or_init(|| {
        let with_id = rows == 1;
        let stride = FIELDS + usize::from(with_id);
        let values: Vec<String> = (0..rows)
            .map(|r| {
                let p = |i: usize| format!("?{}", r * stride + i);
                format!(
                    "({}{}, {}, {}, {}, coalesce({}, {}, {}), {})",
                    if with_id { format!("{}, ", p(16)) } else { String::new() },
                    p(1),
                    p(2),
                    p(3),
                    (4..=14).map(p).collect::<Vec<_>>().join(", "),
                    p(7),
                    p(8),
                    p(3),
                    p(15)
                )
            })
            .collect();
        format!(
            "INSERT OR FAIL INTO entries ({}feed_id, key, first_seen_at, title, link, author, published_at,
                updated_at, content_html, summary_html, categories, enclosures, comments, thumbnail, sort_at, ignored)
             VALUES {}",
            if with_id { "id, " } else { "" },
            values.join(",\n                    ")
        )
    })
}

/// One new entry waiting for its insert.
struct Row<'a> {
    id: i64,
    key: &'a str,
    fields: NewFields<'a>,
    first_seen: i64,
    ignored: bool,
}

/// A first fetch's new entries, waiting to be inserted.
pub(super) struct Inserts<'a> {
    feed_id: i64,
    rows: Vec<Row<'a>>,
    /// What every row pushed makes of the feed, while every entry of the fetch is one of them (see [`Fresh`]).
    fresh: Option<Fresh>,
    /// The statements of each size in [`SIZES`], kept for the feed once used.
    statements: [Option<CachedStatement<'a>>; SIZES.len()],
}

impl<'a> Inserts<'a> {
    pub(super) fn new(feed_id: i64, capacity: usize) -> Inserts<'a> {
        let fresh = Some(Fresh { dates: Vec::with_capacity(capacity), unread: 0 });
        Inserts { feed_id, rows: Vec::with_capacity(capacity), fresh, statements: Default::default() }
    }

    pub(super) fn push(&mut self, id: i64, key: &'a str, fields: NewFields<'a>, first_seen: i64, ignored: bool) {
        if let Some(fresh) = self.fresh.as_mut() {
            // The insert's `sort_at` (see `insert_sql`), and its flags: unread, ignored when a rule hid it.
            fresh.dates.push(fields.published.or(fields.updated).unwrap_or(first_seen));
            fresh.unread += i64::from(!ignored);
        }
        self.rows.push(Row { id, key, fields, first_seen, ignored });
    }

    /// Inserts every entry waiting, in their order, several to a statement under the ids SQLite gives them (see
    /// [`insert_sql`]), checked to be those they were given here. SQLite gives the largest id stored plus one;
    /// when the first was given another (the newest entries were deleted, and their ids are never given again),
    /// it goes alone, under its own, and the others follow it.
    pub(super) fn flush(&mut self, tx: &'a Connection) -> Result<(), StoreError> {
        let Some(first) = self.rows.first() else { return Ok(()) };
        let given: i64 =
            tx.prepare_cached("SELECT coalesce(max(id), 0) + 1 FROM entries")?.query_row([], |r| r.get(0))?;
        let mut alone = first.id != given;
        let mut rest = &self.rows[..];
        while !rest.is_empty() {
            let at = if alone {
                SIZES.len() - 1
            } else {
                SIZES.iter().position(|n| *n <= rest.len()).expect("SIZES ends with 1")
            };
            alone = false;
            let (chunk, after) = rest.split_at(SIZES[at]);
            let with_id = chunk.len() == 1;
            let mut values: Vec<&dyn ToSql> = Vec::with_capacity(chunk.len() * (FIELDS + 1));
            for row in chunk {
                values.extend([&self.feed_id as &dyn ToSql, &row.key, &row.first_seen]);
                values.extend(row.fields.params());
                values.push(&row.ignored);
                if with_id {
                    values.push(&row.id);
                }
            }
            super::held(&mut self.statements[at], tx, insert_sql(SIZES[at]))?
                .execute(rusqlite::params_from_iter(values))?;
            let last = chunk.last().expect("a chunk has a row").id;
            if tx.last_insert_rowid() != last {
                return Err(StoreError::Conflict(format!(
                    "the new entries of feed {} came out under ids up to {}, not {last} (a bug in tidings; please \
                     report it): nothing of this fetch was kept, and the next refresh tries again",
                    self.feed_id,
                    tx.last_insert_rowid()
                )));
            }
            rest = after;
        }
        self.rows.clear();
        Ok(())
    }
}

/// The feed as a first fetch leaves it when every entry it stored went in here: nothing else of the feed is in
/// the table, so its dates and unread count are known without reading them back (a cold refresh read 50 rows
/// back per feed for its dates, and counted them again for its unread count).
pub(in crate::store) struct Fresh {
    /// Each entry's `sort_at`, in the order given.
    dates: Vec<i64>,
    /// Entries neither read (none is, new) nor ignored.
    pub(in crate::store) unread: i64,
}

impl Fresh {
    /// The newest `at_most` dates, newest first: what `health::note_entry_dates` reads back.
    pub(in crate::store) fn newest_first(&self, at_most: usize) -> Vec<i64> {
        let mut dates = self.dates.clone();
        dates.sort_unstable_by(|a, b| b.cmp(a));
        dates.truncate(at_most);
        dates
    }
}

impl Elsewhere<'_> {
    /// An entry of this fetch took another way than the inserts waiting (a key listed twice, a purged feed):
    /// the feed is no longer only what they make.
    pub(in crate::store) fn not_all_queued(&mut self) {
        if let Some(inserts) = self.inserts.as_mut() {
            inserts.fresh = None;
        }
    }

    /// The feed as this first fetch left it, when every entry it stored was inserted here; `None` otherwise
    /// (not a first fetch, or an entry went another way). Valid once the fetch's entries are all stored.
    pub(in crate::store) fn fresh(&self) -> Option<&Fresh> {
        self.inserts.as_ref()?.fresh.as_ref()
    }
}
