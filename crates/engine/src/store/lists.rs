//! Lists of any size: every entry of a feed, a folder tree, a smart view (All, Unread, Starred) or a search, in
//! its order, with no row limit. A list is read as [`EntryRef`]s: ids and feeds from a covering index (by date,
//! by feed, of unread entries by feed; sorted by title from the index by id, which carries the titles), read and
//! starred flags from the small partial indexes of unread and starred entries (400,000 come back in about
//! 50 ms); the rows on screen are read by id with `entries::entry_rows`. Also here: the counts of the
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
    // By feed is the newest-first list put in the feed list's order, newest first within each feed: cheaper
    // than sorting every row in SQL.
    let order = match sort {
        Sort::Newest | Sort::ByFeed => "e.sort_at DESC, e.id DESC",
        Sort::Oldest => "e.sort_at, e.id",
        Sort::ByTitle => "e.title COLLATE NOCASE, e.sort_at DESC, e.id DESC",
    };
    let condition = filter.condition(unread_in_sql);
    let mut refs = if (filter.matches || unread_in_sql) && sort != Sort::ByTitle {
        // A search's matches come from the index by id, unread entries from theirs by feed: sorting them here by
        // date costs a few milliseconds where SQLite's temporary b-tree took twenty (52,683 matches).
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
        .prepare_cached("SELECT id FROM feeds ORDER BY lower(coalesce(custom_title, title, url)), id")?
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
    /// rules caught is not: the unread index leaves it out).
    pub(super) fn condition(&self, unread: bool) -> String {
        if unread { format!("{} AND e.read = 0 AND e.ignored = 0", self.sql) } else { self.sql.clone() }
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
mod tests {
    use super::*;
    use crate::model::{Applied, FeedKind, FolderId, NewFeed, ParsedEntry, ParsedFeed, UserWrite};
    use crate::store::apply;
    use crate::store::entries::entry_rows;
    use crate::store::fetches::{self, FetchRecord};

    fn write(conn: &mut Connection, write: UserWrite) -> Applied {
        apply(conn, &write, 0).unwrap()
    }

    fn mark_read(conn: &mut Connection, query: &ListQuery) -> Vec<EntryId> {
        match write(conn, UserWrite::MarkListRead { source: query.source.clone() }) {
            Applied::Marked(ids) => ids,
            other => panic!("marking a list read answered {other:?}"),
        }
    }

    /// A database with feeds `a` (top level), `b` in folder Tech and `c` in Tech's child Deep; each with
    /// `per_feed` entries dated one hour apart, titled `"{feed} {i}"`.
    fn setup(per_feed: usize) -> (tempfile::TempDir, Connection, [FeedId; 3], FolderId) {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = crate::store::open_write(&dir.path().join("t.db")).unwrap();
        let mut feeds = [FeedId(0); 3];
        for (i, (name, folder)) in [("a", None), ("b", Some("Tech")), ("c", Some("Deep"))].into_iter().enumerate() {
            let new = NewFeed {
                url: format!("http://example.com/{name}"),
                title: None,
                name: None,
                site_url: None,
                folder: folder.map(String::from).into_iter().collect(),
            };
            let Applied::Subscribed { feed_id, .. } = write(&mut conn, UserWrite::AddFeed(new)) else { panic!() };
            feeds[i] = feed_id;
            let entries = (0..per_feed)
                .map(|n| ParsedEntry {
                    key: format!("{name}{n}"),
                    title: Some(format!("{name} {n}")),
                    link: None,
                    authors: vec![],
                    published: chrono::DateTime::from_timestamp(1_600_000_000 + (n * 3 + i) as i64 * 1200, 0),
                    updated: None,
                    content_html: None,
                    summary_html: None,
                    categories: vec![],
                    enclosures: vec![],
                    comments: None,
                    thumbnail: None,
                })
                .collect();
            let record = FetchRecord::Fetched {
                status: 200,
                etag: None,
                last_modified: None,
                feed: Box::new(ParsedFeed {
                    authors: vec![],
                    kind: FeedKind::Rss2,
                    title: Some(format!("Feed {}", name.to_uppercase())),
                    link: None,
                    description: None,
                    entries,
                    warnings: vec![],
                    min_interval_secs: None,
                }),
                decision: None,
                moved_to: None,
                min_interval_secs: None,
                ignored: vec![],
                cut_from: None,
            };
            fetches::save(&mut conn, feeds[i], &record, 1).unwrap();
        }
        let tech = FolderId(conn.query_row("SELECT id FROM folders WHERE name = 'Tech'", [], |r| r.get(0)).unwrap());
        conn.execute("UPDATE folders SET parent_id = ?1 WHERE name = 'Deep'", [tech.0]).unwrap();
        (dir, conn, feeds, tech)
    }

    fn list(source: ListSource, sort: Sort, unread_only: bool) -> ListQuery {
        ListQuery { source, sort, unread_only }
    }

    fn titles(conn: &Connection, refs: &[EntryRef]) -> Vec<String> {
        let ids: Vec<_> = refs.iter().map(|r| r.id).collect();
        entry_rows(conn, &ids).unwrap().into_iter().map(|r| r.title.unwrap()).collect()
    }

    #[test]
    fn lists_come_in_their_order_with_nothing_cut() {
        let (_dir, conn, _, _) = setup(4);
        let newest = entry_refs(&conn, &list(ListSource::All, Sort::Newest, false)).unwrap();
        assert_eq!(titles(&conn, &newest)[..4], ["c 3", "b 3", "a 3", "c 2"]);
        assert_eq!(newest.len(), 12);
        let oldest = entry_refs(&conn, &list(ListSource::All, Sort::Oldest, false)).unwrap();
        assert_eq!(oldest.iter().rev().copied().collect::<Vec<_>>(), newest);
        let by_feed = entry_refs(&conn, &list(ListSource::All, Sort::ByFeed, false)).unwrap();
        assert_eq!(titles(&conn, &by_feed)[..5], ["a 3", "a 2", "a 1", "a 0", "b 3"]);
        let by_title = entry_refs(&conn, &list(ListSource::All, Sort::ByTitle, false)).unwrap();
        assert_eq!(titles(&conn, &by_title)[..3], ["a 0", "a 1", "a 2"]);
    }

    #[test]
    fn a_folder_lists_the_feeds_of_the_folders_inside_it() {
        let (_dir, conn, [_, b, c], tech) = setup(2);
        let refs = entry_refs(&conn, &list(ListSource::Folder(tech), Sort::Newest, false)).unwrap();
        let feeds: std::collections::BTreeSet<_> = refs.iter().map(|r| r.feed_id).collect();
        assert_eq!(feeds, [b, c].into_iter().collect());
        assert_eq!(refs.len(), 4);
    }

    #[test]
    fn unread_starred_and_counts_follow_the_flags() {
        let (_dir, mut conn, [a, ..], _) = setup(3);
        let all = entry_refs(&conn, &list(ListSource::All, Sort::Newest, false)).unwrap();
        write(&mut conn, UserWrite::SetRead { ids: vec![all[0].id, all[1].id], read: true });
        write(&mut conn, UserWrite::SetStarred { ids: vec![all[0].id, all[5].id], starred: true });
        assert_eq!(view_counts(&conn).unwrap(), ViewCounts { all: 9, unread: 7, starred: 2 });
        let unread = entry_refs(&conn, &list(ListSource::Unread, Sort::Newest, false)).unwrap();
        assert_eq!(unread.iter().map(|r| r.id).collect::<Vec<_>>(), all[2..].iter().map(|r| r.id).collect::<Vec<_>>());
        assert!(unread.iter().all(|r| !r.read));
        let starred = entry_refs(&conn, &list(ListSource::Starred, Sort::Newest, true)).unwrap();
        assert_eq!(starred.iter().map(|r| r.id).collect::<Vec<_>>(), vec![all[5].id]);
        assert!(starred[0].starred && !starred[0].read);
        let by_title = entry_refs(&conn, &list(ListSource::Unread, Sort::ByTitle, false)).unwrap();
        assert_eq!(by_title.len(), 7, "read ones are left out after the sort too");
        assert!(by_title.iter().all(|r| !r.read));
        let feed_unread = entry_refs(&conn, &list(ListSource::Feed(a), Sort::Newest, true)).unwrap();
        assert!(feed_unread.iter().all(|r| r.feed_id == a && !r.read));
    }

    #[test]
    fn flags_are_right_in_long_lists_whose_flags_come_from_the_partial_indexes() {
        let (_dir, mut conn, _, _) = setup(FLAGS_BY_ROW / 3 + 10);
        let all = entry_refs(&conn, &list(ListSource::All, Sort::Newest, false)).unwrap();
        assert!(all.len() > FLAGS_BY_ROW);
        let read: Vec<_> = all.iter().step_by(3).map(|r| r.id).collect();
        let starred: Vec<_> = all.iter().step_by(7).map(|r| r.id).collect();
        write(&mut conn, UserWrite::SetRead { ids: read.to_vec(), read: true });
        write(&mut conn, UserWrite::SetStarred { ids: starred.to_vec(), starred: true });
        for refs in [
            entry_refs(&conn, &list(ListSource::All, Sort::Oldest, false)).unwrap(),
            entry_refs(&conn, &list(ListSource::All, Sort::Newest, false)).unwrap()[..10].to_vec(),
        ] {
            for r in refs {
                assert_eq!(r.read, read.contains(&r.id), "{r:?}");
                assert_eq!(r.starred, starred.contains(&r.id), "{r:?}");
            }
        }
    }

    #[test]
    fn mark_read_returns_exactly_what_it_changed_and_undo_restores_it() {
        let (_dir, mut conn, _, tech) = setup(5);
        let folder = list(ListSource::Folder(tech), Sort::Newest, false);
        let before = entry_refs(&conn, &folder).unwrap();
        write(&mut conn, UserWrite::SetRead { ids: vec![before[0].id], read: true });
        let counts = view_counts(&conn).unwrap();
        let changed = mark_read(&mut conn, &folder);
        assert_eq!(changed.len(), before.len() - 1);
        assert!(!changed.contains(&before[0].id), "it was read already");
        assert_eq!(view_counts(&conn).unwrap().unread, counts.unread - changed.len() as i64);
        assert!(mark_read(&mut conn, &folder).is_empty(), "nothing left to change");
        write(&mut conn, UserWrite::SetRead { ids: changed.to_vec(), read: false });
        assert_eq!(view_counts(&conn).unwrap(), counts);
    }

    #[test]
    fn rows_come_in_the_order_asked_and_missing_ids_are_skipped() {
        let (_dir, conn, _, _) = setup(2);
        let refs = entry_refs(&conn, &list(ListSource::All, Sort::Newest, false)).unwrap();
        let rows = entry_rows(&conn, &[refs[3].id, EntryId(999_999), refs[0].id]).unwrap();
        assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), vec![refs[3].id, refs[0].id]);
    }

    #[test]
    fn list_settings_are_remembered_per_list_and_forgotten_with_their_feed() {
        let (_dir, mut conn, [a, b, _], _) = setup(1);
        let key = list_key(&ListSource::Feed(a));
        assert_eq!(list_setting(&conn, &key).unwrap(), None);
        let setting = ListSetting { sort: Sort::ByTitle, unread_only: true };
        set_list_setting(&conn, &key, setting).unwrap();
        set_list_setting(&conn, &list_key(&ListSource::Feed(b)), ListSetting::default()).unwrap();
        assert_eq!(list_setting(&conn, &key).unwrap(), Some(setting));
        let again = ListSetting { sort: Sort::Oldest, unread_only: false };
        set_list_setting(&conn, &key, again).unwrap();
        assert_eq!(list_setting(&conn, &key).unwrap(), Some(again));
        write(&mut conn, UserWrite::DeleteFeed(a));
        assert_eq!(list_setting(&conn, &key).unwrap(), None);
        assert!(list_setting(&conn, &list_key(&ListSource::Feed(b))).unwrap().is_some());
        let search = ListSource::Search { query: "x".into(), within: Some(Box::new(ListSource::Feed(a))) };
        assert_eq!(list_key(&search), "search");
    }

    /// The query plan of a statement, one detail line each.
    fn plan(conn: &Connection, sql: &str) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.collect::<Result<Vec<_>, _>>().unwrap().join("\n")
    }

    #[test]
    fn the_big_lists_are_read_from_covering_indexes_without_sorting() {
        let (_dir, conn, _, _) = setup(200);
        let select = "SELECT e.id, e.feed_id FROM entries e";
        let newest = "e.sort_at DESC, e.id DESC";
        let unread = "e.read = 0 AND e.ignored = 0";
        let lists_use_their_indexes = |when: &str| {
            for (filter, index) in [
                ("1", "entries_by_date"),
                ("e.starred = 1 AND e.ignored = 0", "entries_starred_by_date"),
                ("e.feed_id = 1", "entries_by_feed_date"),
            ] {
                let p = plan(&conn, &format!("{select} WHERE {filter} ORDER BY {newest}"));
                assert!(p.contains(&format!("COVERING INDEX {index}")), "{when}, {filter}: {p}");
                assert!(!p.contains("TEMP B-TREE"), "{when}, {filter}: {p}");
            }
            // Unread entries, dated, to be sorted here: from their own index, however few or many they are, and
            // never from the rows (the Unread view, a folder's unread entries).
            for filter in [
                format!("e.feed_id NOT IN (SELECT id FROM feeds WHERE hide_from_unread = 1) AND {unread}"),
                format!("e.feed_id IN (1, 2) AND {unread}"),
            ] {
                let p = plan(&conn, &format!("SELECT e.id, e.feed_id, e.sort_at FROM entries e WHERE {filter}"));
                assert!(p.contains("COVERING INDEX entries_unread_by_feed"), "{when}, {filter}: {p}");
            }
            // By title, sorted by SQLite (in bounded memory: it spills to a temporary file) from the narrow index
            // by id, which carries the titles, rather than from the wide rows.
            let p = plan(&conn, &format!("{select} ORDER BY e.title COLLATE NOCASE, {newest}"));
            assert!(p.contains("COVERING INDEX entries_by_id"), "{when}: {p}");
        };
        lists_use_their_indexes("every entry unread, no statistics");
        // A search's matches are put in order from the narrow index by id, not from the wide rows, once the
        // planner has statistics (the writer's `PRAGMA optimize` gathers them).
        conn.execute_batch("ANALYZE").unwrap();
        lists_use_their_indexes("every entry unread");
        let found = plan(
            &conn,
            &format!(
                "{select} WHERE e.id IN (SELECT rowid FROM entry_search WHERE entry_search MATCH 'x') \
                 AND e.feed_id IN (1, 2) ORDER BY {newest}"
            ),
        );
        assert!(found.contains("COVERING INDEX entries_by_id"), "{found}");
        // As most databases are: nearly everything read.
        conn.execute_batch("UPDATE entries SET read = 1 WHERE id % 20 != 0; ANALYZE").unwrap();
        lists_use_their_indexes("nearly every entry read");
    }
}
