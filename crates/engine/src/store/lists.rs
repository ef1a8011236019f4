//! Lists of any size: every entry of a feed, a folder tree, a smart view (All, Unread, Starred) or a search, in
//! its order, with no row limit. A list is read as [`EntryRef`]s: ids, feeds and dates from a covering index (by
//! feed and date, of unread entries by feed, of starred entries by date) and sorted here by date (sorted by title
//! from the index by id, which carries the titles), read and starred flags from the small partial indexes of
//! unread and starred entries (400,000 come back in about 50 ms); the rows on screen are read by id with
//! `entries::entry_rows`. There is no index of every entry by date: a refresh would write each new entry into it
//! at a random place (see `schema::later::NO_INDEX_BY_DATE`). Also here: the counts of the
//! smart views, and each list's remembered sort and unread-only setting.

use super::{RowIds, StoreError, search};
use crate::model::{EntryId, EntryRef, FeedId, ListQuery, ListSource, Sort, ViewCounts};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use std::collections::HashMap;

/// Every entry of the list, in its order; nothing is cut. Only a search can fail on its query.
pub fn entry_refs(conn: &Connection, query: &ListQuery) -> Result<Vec<EntryRef>, StoreError> {
    refs(conn, &query.source, query.sort, query.unread_only)
}

/// The entries of `source` in `sort` order, unread ones only when `unread_only`.
pub(super) fn refs(
    conn: &Connection,
    source: &ListSource,
    sort: Sort,
    unread_only: bool,
) -> Result<Vec<EntryRef>, StoreError> {
    let filter = Filter::of(conn, source)?;
    let unread = filter.unread || unread_only;
    // Unread entries come from the index of unread entries by feed, which carries their dates: what they cost
    // is how many are unread, not how many are stored (by title, SQLite reads their titles from the rows when
    // few are unread, and sorts the whole table when most are). Among a search's matches the read flag would
    // cost a row read per entry: there, read entries are left out after the flags are known instead.
    let unread_in_sql = unread && !filter.matches;
    let condition = filter.condition(unread_in_sql);
    // By feed is the newest-first list put in the feed list's order, newest first within each feed.
    let mut refs = if sort != Sort::ByTitle {
        // Every entry and a feed's or folder's come from the index by feed and date, a search's matches from the
        // index by id, unread entries from theirs by feed: sorting them here by date costs a few milliseconds
        // where SQLite's temporary b-tree took twenty (52,683 matches), and 400,000 in about 30 ms.
        let sql = format!("SELECT e.id, e.feed_id, e.sort_at FROM entries e WHERE {condition}");
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut dated = stmt
            .query_map(params_from_iter(&filter.params), |r| {
                let starred = filter.starred;
                Ok((r.get::<_, i64>(2)?, EntryRef { id: r.id(0)?, feed_id: r.id(1)?, read: false, starred }))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        match sort {
            Sort::Oldest => dated.sort_unstable_by_key(|(at, r)| (*at, r.id)),
            _ => dated.sort_unstable_by_key(|(at, r)| std::cmp::Reverse((*at, r.id))),
        }
        dated.into_iter().map(|(_, r)| r).collect()
    } else {
        let order = "e.title COLLATE NOCASE, e.sort_at DESC, e.id DESC";
        let sql = format!("SELECT e.id, e.feed_id FROM entries e WHERE {condition} ORDER BY {order}");
        let mut stmt = conn.prepare_cached(&sql)?;
        stmt.query_map(params_from_iter(&filter.params), |r| {
            Ok(EntryRef { id: r.id(0)?, feed_id: r.id(1)?, read: false, starred: filter.starred })
        })?
        .collect::<Result<Vec<_>, _>>()?
    };
    attach_flags(conn, &mut refs, unread_in_sql, filter.starred)?;
    if unread && !unread_in_sql {
        refs.retain(|r| !r.read);
    }
    // What kill rules caught is never shown (the unread and starred indexes leave it out).
    if !(filter.ignored || unread_in_sql || filter.starred) {
        leave_out_ignored(conn, &mut refs)?;
    }
    if sort == Sort::ByFeed {
        refs = in_feed_order(conn, refs)?;
    }
    Ok(refs)
}

/// Lists up to this long read their entries' flags row by row; longer ones from the partial indexes.
const FLAGS_BY_ROW: usize = 1_000;

/// Sets the read and starred flags of `refs` (those not already known: every entry unread, every entry
/// starred): row by row for a short list, else from the sets of unread and starred ids, read from their
/// partial indexes, which are small and never need the rows.
fn attach_flags(
    conn: &Connection,
    refs: &mut [EntryRef],
    all_unread: bool,
    all_starred: bool,
) -> Result<(), StoreError> {
    if all_unread && all_starred {
        return Ok(());
    }
    if refs.len() <= FLAGS_BY_ROW {
        let mut stmt = conn.prepare_cached("SELECT read, starred FROM entries WHERE id = ?1")?;
        for r in refs.iter_mut() {
            (r.read, r.starred) = stmt.query_row([r.id.0], |row| Ok((row.get(0)?, row.get(1)?)))?;
        }
        return Ok(());
    }
    let max_id = refs.iter().map(|r| r.id.0).max().unwrap_or(0).max(0) as usize;
    if !all_unread {
        // An ignored entry reads as read here (its index leaves it out); lists leave it out anyway.
        let unread = id_set(conn, "SELECT id FROM entries WHERE read = 0 AND ignored = 0", max_id)?;
        refs.iter_mut().for_each(|r| r.read = !unread.contains(r.id));
    }
    if !all_starred {
        let starred = id_set(conn, "SELECT id FROM entries WHERE starred = 1 AND ignored = 0", max_id)?;
        refs.iter_mut().for_each(|r| r.starred = starred.contains(r.id));
    }
    Ok(())
}

/// Drops the entries kill rules caught (found in their small index; nothing to do when there are none).
fn leave_out_ignored(conn: &Connection, refs: &mut Vec<EntryRef>) -> Result<(), StoreError> {
    let any: bool =
        conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM entries WHERE ignored = 1)")?.query_row([], |r| r.get(0))?;
    if !any || refs.is_empty() {
        return Ok(());
    }
    let max_id = refs.iter().map(|r| r.id.0).max().unwrap_or(0).max(0) as usize;
    let ignored = id_set(conn, "SELECT id FROM entries WHERE ignored = 1", max_id)?;
    refs.retain(|r| !ignored.contains(r.id));
    Ok(())
}

/// A set of entry ids up to `max_id`, as a bitmap (ids are dense: 400,000 of them take 50 KB).
struct IdSet(Vec<u64>);

impl IdSet {
    fn contains(&self, id: EntryId) -> bool {
        let id = id.0.max(0) as usize;
        self.0.get(id / 64).is_some_and(|word| word & (1 << (id % 64)) != 0)
    }
}

fn id_set(conn: &Connection, sql: &str, max_id: usize) -> Result<IdSet, StoreError> {
    let mut bits = vec![0u64; max_id / 64 + 1];
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let id = row.get::<_, i64>(0)?.max(0) as usize;
        if let Some(word) = bits.get_mut(id / 64) {
            *word |= 1 << (id % 64);
        }
    }
    Ok(IdSet(bits))
}

/// A newest-first list regrouped feed by feed, in the order of the feeds' names (each feed's entries keep their
/// order).
fn in_feed_order(conn: &Connection, refs: Vec<EntryRef>) -> Result<Vec<EntryRef>, StoreError> {
    if refs.windows(2).all(|pair| pair[0].feed_id == pair[1].feed_id) {
        return Ok(refs);
    }
    let rank: HashMap<FeedId, usize> = conn
        .prepare_cached(
            "SELECT id FROM feeds ORDER BY lower(coalesce(custom_title, title, tidings_shown_url(url))), id",
        )?
        .query_map([], |r| r.id(0))?
        .enumerate()
        .map(|(i, id)| id.map(|id| (id, i)))
        .collect::<Result<_, _>>()?;
    let mut by_feed: Vec<Vec<EntryRef>> = vec![Vec::new(); rank.len() + 1];
    for r in refs {
        by_feed[rank.get(&r.feed_id).copied().unwrap_or(rank.len())].push(r);
    }
    Ok(by_feed.concat())
}

/// A condition on `entries e` that selects a list's entries, with its parameters.
pub(super) struct Filter {
    sql: String,
    pub(super) params: Vec<Value>,
    /// Only unread entries (the condition leaves that out: see [`Filter::condition`]).
    unread: bool,
    /// Only starred entries.
    starred: bool,
    /// The entries match a search.
    matches: bool,
    /// The entries kill rules caught (shown by `tidings list --ignored` only).
    ignored: bool,
}

impl Filter {
    pub(super) fn of(conn: &Connection, source: &ListSource) -> Result<Filter, StoreError> {
        let mut filter = Filter {
            sql: "1".into(),
            params: Vec::new(),
            unread: false,
            starred: false,
            matches: false,
            ignored: false,
        };
        filter.add(conn, source)?;
        Ok(filter)
    }

    /// The SQL condition, with `e.read = 0` when `unread` is asked and the list is of unread entries (what kill
    /// rules caught is not, as the unread index leaves it out — unless the list is of what they caught).
    pub(super) fn condition(&self, unread: bool) -> String {
        match (unread, self.ignored) {
            (false, _) => self.sql.clone(),
            (true, true) => format!("{} AND e.read = 0", self.sql),
            (true, false) => format!("{} AND e.read = 0 AND e.ignored = 0", self.sql),
        }
    }

    fn and(&mut self, condition: &str, param: Option<Value>) {
        self.sql = if self.sql == "1" { condition.to_string() } else { format!("{} AND {condition}", self.sql) };
        self.params.extend(param);
    }

    fn add(&mut self, conn: &Connection, source: &ListSource) -> Result<(), StoreError> {
        match source {
            ListSource::All => {}
            ListSource::Unread => {
                self.unread = true;
                // Feeds the config hides from the Unread view (`hide_from_unread`).
                self.and("e.feed_id NOT IN (SELECT id FROM feeds WHERE hide_from_unread = 1)", None);
            }
            ListSource::Starred => {
                self.and("e.starred = 1 AND e.ignored = 0", None);
                self.starred = true;
            }
            ListSource::Query { query, within } => {
                let parsed = crate::query::parse(query).map_err(|e| StoreError::Rule(e.to_string()))?;
                let compiled = super::query::compile(conn, &parsed, chrono::Utc::now().timestamp())?;
                self.and(&format!("({})", compiled.sql), None);
                self.params.extend(compiled.params);
                self.matches = true;
                if let Some(within) = within {
                    self.add(conn, within)?;
                }
            }
            ListSource::Ignored { within } => {
                self.and("e.ignored = 1", None);
                self.ignored = true;
                if let Some(within) = within {
                    self.add(conn, within)?;
                }
            }
            ListSource::Feed(id) => self.and("e.feed_id = ?", Some(Value::Integer(id.0))),
            ListSource::Folder(id) => self.and(
                "e.feed_id IN (SELECT id FROM feeds WHERE folder_id IN (
                    WITH RECURSIVE tree(id) AS (
                        SELECT ? UNION SELECT d.id FROM folders d JOIN tree ON d.parent_id = tree.id)
                    SELECT id FROM tree))",
                Some(Value::Integer(id.0)),
            ),
            ListSource::Search { query, within } => {
                let (condition, expression) = search::matching(query)?;
                self.and(&condition, Some(Value::Text(expression)));
                self.matches = true;
                if let Some(within) = within {
                    self.add(conn, within)?;
                }
            }
        }
        Ok(())
    }
}

/// The counts the smart views show: every entry, the unread ones, the starred ones.
pub fn view_counts(conn: &Connection) -> Result<ViewCounts, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT (SELECT count(*) FROM entries) - (SELECT count(*) FROM entries WHERE ignored = 1),
                    (SELECT count(*) FROM entries WHERE read = 0 AND ignored = 0
                        AND feed_id NOT IN (SELECT id FROM feeds WHERE hide_from_unread = 1)),
                    (SELECT count(*) FROM entries WHERE starred = 1 AND ignored = 0)",
        )?
        .query_row([], |r| Ok(ViewCounts { all: r.get(0)?, unread: r.get(1)?, starred: r.get(2)? }))?)
}

/// The unread entries a query of the query language matches (a saved view's count), ignored ones left out.
pub fn query_unread_count(conn: &Connection, query: &str) -> Result<i64, StoreError> {
    let filter = Filter::of(conn, &ListSource::Query { query: query.to_string(), within: None })?;
    let sql = format!("SELECT count(*) FROM entries e WHERE {}", filter.condition(true));
    Ok(conn.prepare_cached(&sql)?.query_row(params_from_iter(&filter.params), |r| r.get(0))?)
}

/// The entries matching `query`, within a feed, folder or view when `within` is set, in `sort` order; read
/// ones left out with `unread_only`. A query that means nothing is [`StoreError::Query`], whose message
/// says what to type instead; SQLite never sees it.
pub fn search(
    conn: &Connection,
    query: &str,
    within: Option<&ListSource>,
    unread_only: bool,
    sort: Sort,
) -> Result<Vec<EntryRef>, StoreError> {
    let source = ListSource::Search { query: query.to_string(), within: within.cloned().map(Box::new) };
    refs(conn, &source, sort, unread_only)
}

/// How a list is shown, remembered per list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListSetting {
    pub sort: Sort,
    pub unread_only: bool,
}

/// The stable name a list's setting is kept under: `all`, `unread`, `starred`, `feed:ID`, `folder:ID`, and
/// `search` (one setting for every search, wherever it looks).
pub fn list_key(source: &ListSource) -> String {
    match source {
        ListSource::All => "all".into(),
        ListSource::Unread => "unread".into(),
        ListSource::Starred => "starred".into(),
        ListSource::Feed(id) => format!("feed:{id}"),
        ListSource::Folder(id) => format!("folder:{id}"),
        ListSource::Search { .. } => "search".into(),
        ListSource::Query { query, .. } => format!("query:{query}"),
        ListSource::Ignored { .. } => "ignored".into(),
    }
}

/// The remembered setting of a list (see [`list_key`]); `None` when it was never changed. A sort name this build
/// does not know reads as the default sort.
pub fn list_setting(conn: &Connection, key: &str) -> Result<Option<ListSetting>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT sort, unread_only FROM list_settings WHERE list = ?1")?
        .query_row([key], |r| {
            let sort: String = r.get(0)?;
            Ok(ListSetting { sort: Sort::from_name(&sort).unwrap_or_default(), unread_only: r.get(1)? })
        })
        .optional()?)
}

/// Remembers how a list is shown.
pub(super) fn set_list_setting(conn: &Connection, key: &str, setting: ListSetting) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO list_settings (list, sort, unread_only) VALUES (?1, ?2, ?3)
         ON CONFLICT (list) DO UPDATE SET sort = excluded.sort, unread_only = excluded.unread_only",
    )?
    .execute(params![key, setting.sort.name(), setting.unread_only])?;
    Ok(())
}

#[cfg(test)]
mod tests;
