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
                unkept: 0,
            }),
            decision: None,
            moved_to: None,
            min_interval_secs: None,
            ignored: vec![],
            cut_from: None,
            digest: None,
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

/// The list of what kill rules caught, asked for its unread entries, lists them (it once asked for entries both
/// caught and not caught, and listed none); marking it read marks exactly those.
#[test]
fn the_unread_entries_kill_rules_caught_are_listed_and_marked_read() {
    let (_dir, mut conn, _, _) = setup(3);
    let all = entry_refs(&conn, &list(ListSource::All, Sort::Newest, false)).unwrap();
    let caught = [all[0].id, all[3].id, all[6].id];
    for id in caught {
        conn.execute("UPDATE entries SET ignored = 1 WHERE id = ?1", [id.0]).unwrap();
    }
    write(&mut conn, UserWrite::SetRead { ids: vec![caught[1]], read: true });
    let ignored = ListSource::Ignored { within: None };
    let unread = entry_refs(&conn, &list(ignored.clone(), Sort::Newest, true)).unwrap();
    assert_eq!(unread.iter().map(|r| r.id).collect::<Vec<_>>(), vec![caught[0], caught[2]]);
    assert!(unread.iter().all(|r| !r.read));
    let within_unread = ListSource::Ignored { within: Some(Box::new(ListSource::Unread)) };
    assert_eq!(entry_refs(&conn, &list(within_unread, Sort::Newest, false)).unwrap().len(), 2);
    let mut marked = mark_read(&mut conn, &list(ignored, Sort::Newest, false));
    marked.sort_by_key(|id| id.0);
    let mut expected = vec![caught[0], caught[2]];
    expected.sort_by_key(|id| id.0);
    assert_eq!(marked, expected, "exactly the unread entries caught are marked read");
    assert_eq!(view_counts(&conn).unwrap().unread, 6, "the entries not caught stay unread");
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
fn the_big_lists_are_read_from_narrow_covering_indexes_never_from_the_rows() {
    let (_dir, conn, _, _) = setup(200);
    let select = "SELECT e.id, e.feed_id FROM entries e";
    let newest = "e.sort_at DESC, e.id DESC";
    let unread = "e.read = 0 AND e.ignored = 0";
    let lists_use_their_indexes = |when: &str| {
        // Every entry, a feed's, a folder's and the starred ones, with their dates, to be sorted here: from a
        // narrow index, never from the rows.
        for (filter, index) in [
            ("1", "entries_by_feed_date"),
            ("e.feed_id IN (1, 2)", "entries_by_feed_date"),
            ("e.starred = 1 AND e.ignored = 0", "entries_starred_by_date"),
            ("e.feed_id = 1", "entries_by_feed_date"),
        ] {
            let p = plan(&conn, &format!("SELECT e.id, e.feed_id, e.sort_at FROM entries e WHERE {filter}"));
            assert!(p.contains(&format!("COVERING INDEX {index}")), "{when}, {filter}: {p}");
        }
        // A feed's and the starred ones in order straight from their indexes (a feed's newest entries, the
        // notifications' and the health's reads).
        for filter in ["e.starred = 1 AND e.ignored = 0", "e.feed_id = 1"] {
            let p = plan(&conn, &format!("{select} WHERE {filter} ORDER BY {newest}"));
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

/// What makes a cold refresh of real-web dates fast: every index a new entry goes into (unread, not starred,
/// not caught by a kill rule, not yet searchable) takes it next to its feed's entries or after the newest id,
/// never at a place its date or title picks (a 4000 × 100 refresh read 2 GB of such an index back from disk).
#[test]
fn every_index_a_new_entry_goes_into_keeps_it_by_its_feed_or_at_the_end() {
    let (_dir, conn, _, _) = setup(2);
    let mut stmt = conn.prepare("SELECT name FROM pragma_index_list('entries')").unwrap();
    let names: Vec<String> = stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
    assert!(names.len() >= 5, "{names:?}");
    for name in names {
        let first: String = conn
            .query_row("SELECT name FROM pragma_index_info(?1) WHERE seqno = 0", [&name], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let sql: Option<String> =
            conn.query_row("SELECT sql FROM sqlite_master WHERE name = ?1", [&name], |r| r.get(0)).unwrap();
        let condition = sql.as_deref().and_then(|s| s.split_once(" WHERE ")).map(|(_, w)| w).unwrap_or("");
        let skips_new = condition.contains("starred = 1") || condition.contains("ignored = 1");
        assert!(first == "feed_id" || first == "id" || skips_new, "{name} takes a new entry by its {first}: {sql:?}");
    }
}
