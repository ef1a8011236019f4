//! The feed list and the entry list: moving, views, lists of any size, n/p, undo, stars, sort, search, folders.

use super::*;

#[test]
fn feeds_loaded_builds_folder_rows_with_unread_sums() {
    let s = loaded();
    let views = [ListKey::All, ListKey::Unread, ListKey::Starred].map(FeedListRow::View);
    assert_eq!(s.feeds.rows[..3], views, "the smart views come first");
    assert_eq!(s.feeds.rows.len(), 7);
    assert_eq!(
        s.feeds.rows[4],
        FeedListRow::Folder { id: FolderId(7), name: "News".into(), depth: 0, unread: 1, collapsed: false }
    );
    assert_eq!(s.feeds.rows[5], FeedListRow::Feed { index: 1, depth: 1 });
}

#[test]
fn j_and_k_move_the_feed_cursor_and_load_entries() {
    let mut s = loaded();
    assert_eq!(update(&mut s, key('j')), vec![load(ListKey::Folder(FolderId(7)), ListSource::Folder(FolderId(7)))]);
    assert_eq!(update(&mut s, code(KeyCode::Down)), vec![load(ListKey::Feed(FeedId(2)), ListSource::Feed(FeedId(2)))]);
    assert_eq!(update(&mut s, key('k')), vec![load(ListKey::Folder(FolderId(7)), ListSource::Folder(FolderId(7)))]);
    assert_eq!(s.feeds.cursor.index, 4);
    assert_eq!(update(&mut s, key('g')), vec![load(ListKey::All, ListSource::All)]);
    assert!(update(&mut s, key('k')).is_empty(), "past the top stays put and loads nothing");
    assert_eq!(s.feeds.cursor.index, 0);
}

#[test]
fn page_keys_move_in_every_list() {
    let mut s = loaded();
    let many: Vec<EntryRow> = (0..500).map(|i| entry(1000 + i, 1, true)).collect();
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), many);
    update(&mut s, key('l'));
    let page = s.list_height(Pane::Entries);
    update(&mut s, code(KeyCode::PageDown));
    assert_eq!(s.entries.cursor.index, page - 1);
    update(&mut s, ctrl('d'));
    assert_eq!(s.entries.cursor.index, page - 1 + page / 2);
    update(&mut s, ctrl('u'));
    update(&mut s, code(KeyCode::PageUp));
    assert_eq!(s.entries.cursor.index, 0);
    update(&mut s, key('G'));
    assert_eq!(s.entries.cursor.index, 499);
    assert!(s.entries.cursor.offset + page > 499, "the last entry is on screen");
}

#[test]
fn enter_on_an_entry_opens_it_and_marks_it_read() {
    let mut s = loaded();
    update(&mut s, key('l'));
    assert_eq!(s.focus, Pane::Entries);
    update(&mut s, key('j'));
    let effects = update(&mut s, code(KeyCode::Enter));
    assert_eq!(
        effects,
        vec![
            Effect::LoadArticle(EntryId(11)),
            Effect::write(UserWrite::SetRead { ids: vec![EntryId(11)], read: true })
        ]
    );
    assert!(s.entries.refs[1].read && s.entries.row(1).unwrap().read);
    assert_eq!(s.feeds.feeds[0].unread, 1);
    assert_eq!(s.focus, Pane::Article);
    update(&mut s, key('h'));
    assert_eq!(update(&mut s, code(KeyCode::Enter)), vec![Effect::LoadArticle(EntryId(11))], "not marked twice");
}

#[test]
fn enter_on_a_folder_folds_it_and_remembers() {
    let mut s = loaded();
    update(&mut s, key('j'));
    assert_eq!(
        update(&mut s, code(KeyCode::Enter)),
        vec![Effect::write(UserWrite::SetCollapsed { folder_id: FolderId(7), collapsed: true })]
    );
    assert_eq!(s.feeds.rows.len(), 5);
    assert!(matches!(s.feeds.rows[4], FeedListRow::Folder { collapsed: true, unread: 1, .. }));
    assert_eq!(
        update(&mut s, code(KeyCode::Enter)),
        vec![Effect::write(UserWrite::SetCollapsed { folder_id: FolderId(7), collapsed: false })]
    );
    assert_eq!(s.feeds.rows.len(), 7);
}

#[test]
fn m_toggles_read_and_a_marks_the_feed_read_and_says_so() {
    let mut s = loaded();
    update(&mut s, key('l'));
    assert_eq!(
        update(&mut s, key('m')),
        vec![Effect::write(UserWrite::SetRead { ids: vec![EntryId(10)], read: true })]
    );
    assert_eq!(s.feeds.feeds[0].unread, 1);
    assert_eq!(
        update(&mut s, key('m')),
        vec![Effect::write(UserWrite::SetRead { ids: vec![EntryId(10)], read: false })]
    );
    assert_eq!(s.feeds.feeds[0].unread, 2);
    assert_eq!(
        update(&mut s, key('A')),
        vec![Effect::write(UserWrite::MarkListRead { source: ListSource::Feed(FeedId(1)) })]
    );
    assert_eq!(s.feeds.feeds[0].unread, 0);
    assert!(s.entries.refs.iter().all(|e| e.read));
    let answer = marked(&s, ids([10, 11]));
    update(&mut s, answer);
    assert_eq!(s.status.current(s.clock.now).unwrap().text, "Marked 2 entries of One read (u undoes it)");
}

#[test]
fn n_opens_the_next_unread_entry() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, key('m')); // entry 10 read
    assert_eq!(
        update(&mut s, key('n')),
        vec![
            Effect::LoadArticle(EntryId(11)),
            Effect::write(UserWrite::SetRead { ids: vec![EntryId(11)], read: true })
        ]
    );
    assert_eq!(s.entries.cursor.index, 1);
}

#[test]
fn a_list_read_before_the_users_last_write_is_asked_for_again() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, code(KeyCode::Enter)); // marks 10 read: write number 1
    let stale = vec![entry(10, 1, false), entry(11, 1, false)];
    let order = (Sort::Newest, false);
    let event = |entries: Vec<EntryRow>, seen: u64| Event::EntriesLoaded {
        list: ListKey::Feed(FeedId(1)),
        refs: refs(&entries),
        rows: entries,
        order,
        keep: None,
        seen: WriteId(seen),
    };
    let effects = update(&mut s, event(stale, 0));
    assert_eq!(
        effects,
        vec![Effect::LoadEntries {
            list: ListKey::Feed(FeedId(1)),
            source: ListSource::Feed(FeedId(1)),
            order: Some(order),
            keep: None
        }]
    );
    assert!(s.entries.refs[0].read, "the stale list did not undo the change");
    let stale_feeds = Event::FeedsLoaded {
        feeds: vec![feed(1, "One", 2, None)],
        folders: vec![],
        views: ViewCounts::default(),
        seen: WriteId::NONE,
    };
    assert_eq!(update(&mut s, stale_feeds), vec![Effect::LoadFeeds]);
    assert_eq!(s.feeds.feeds[0].unread, 1);
    let fresh = vec![entry(10, 1, true), entry(11, 1, false)];
    assert!(update(&mut s, event(fresh, 1)).is_empty());
}

fn unread(feed_id: i64, ids: std::ops::Range<i64>) -> Vec<EntryRow> {
    ids.map(|id| entry(id, feed_id, false)).collect()
}

#[test]
fn the_smart_views_lead_the_feed_list_with_their_counts() {
    let s = loaded();
    assert_eq!(s.list_name(ListKey::Unread), "Unread");
    assert_eq!(s.feeds.views.unread, 3);
    assert_eq!(s.source_of(ListKey::Starred), ListSource::Starred);
}

#[test]
fn only_the_rows_on_screen_are_read_and_scrolling_asks_for_more() {
    let mut s = loaded();
    let refs: Vec<EntryRef> =
        (0..200_000).map(|i| EntryRef { id: EntryId(i), feed_id: FeedId(1), read: true, starred: false }).collect();
    let first_rows: Vec<EntryRow> = (0..300).map(|i| entry(i, 1, true)).collect();
    let event = Event::EntriesLoaded {
        list: ListKey::Feed(FeedId(1)),
        refs,
        rows: first_rows,
        order: (Sort::Newest, false),
        keep: None,
        seen: WriteId::NONE,
    };
    assert!(update(&mut s, event).is_empty(), "the first screen's rows came with the list");
    update(&mut s, key('l'));
    let effects = update(&mut s, key('G'));
    let [Effect::LoadRows { list: ListKey::Feed(FeedId(1)), ids }] = effects.as_slice() else { panic!("{effects:?}") };
    assert!(ids.contains(&EntryId(199_999)), "the last entry is asked for");
    assert!(ids.len() < 300, "and only what is around it: {}", ids.len());
    assert_eq!(s.entries.cursor.index, 199_999);
    assert!(update(&mut s, key('k')).is_empty(), "rows already asked for are not asked again");
    update(&mut s, Event::RowsLoaded { list: ListKey::Feed(FeedId(1)), rows: vec![entry(199_999, 1, true)] });
    assert!(s.entries.row(199_999).is_some());
}

#[test]
fn n_walks_every_unread_entry_of_a_view_and_wraps_within_it() {
    let mut s = loaded();
    go_to(&mut s, ListKey::Unread);
    entries_loaded(&mut s, ListKey::Unread, vec![entry(10, 1, false), entry(31, 3, false), entry(11, 1, false)]);
    update(&mut s, key('l'));
    let mut opened = Vec::new();
    for _ in 0..3 {
        for effect in update(&mut s, key('n')) {
            if let Effect::LoadArticle(id) = effect {
                opened.push(id);
            }
        }
    }
    assert_eq!(opened, ids([10, 31, 11]));
    assert!(update(&mut s, key('n')).is_empty(), "everything is read now");
}

#[test]
fn marking_a_big_list_read_asks_first_and_u_undoes_it() {
    let mut s = loaded();
    s.viewport = (160, 20);
    go_to(&mut s, ListKey::Unread);
    entries_loaded(&mut s, ListKey::Unread, unread(1, 100..160));
    update(&mut s, key('l'));
    assert!(update(&mut s, key('A')).is_empty());
    let Some(Dialog::Confirm(confirm)) = &s.dialog else { panic!("A asks first") };
    assert!(confirm.question.contains("Mark 60 entries of Unread read?"), "{}", confirm.question);
    assert!(update(&mut s, key('n')).is_empty(), "no is no");
    assert!(s.entries.refs.iter().all(|r| !r.read));
    update(&mut s, key('A'));
    assert_eq!(update(&mut s, key('y')), vec![Effect::write(UserWrite::MarkListRead { source: ListSource::Unread })]);
    assert!(s.entries.refs.iter().all(|r| r.read));
    let ids: Vec<EntryId> = ids(100..160);
    let answer = marked(&s, ids.clone());
    assert_eq!(update(&mut s, answer), vec![Effect::LoadFeeds]);
    assert_eq!(
        update(&mut s, key('u')),
        vec![
            Effect::write(UserWrite::SetRead { ids, read: false }),
            Effect::LoadFeeds,
            // The Unread list let them go: it is read again to show them (issue 36).
            Effect::LoadEntries {
                list: ListKey::Unread,
                source: ListSource::Unread,
                order: Some((Sort::Newest, false)),
                keep: None
            }
        ]
    );
    assert!(s.entries.refs.iter().all(|r| !r.read), "undone on screen at once");
    assert_eq!(s.status.current(s.clock.now).unwrap().text, "Marked 60 entries unread again");
    assert!(update(&mut s, key('u')).is_empty(), "an undo is used once");
}

/// The Unread list, where the reader opens, holds every feed's entries: `A` there asks first even when they fit
/// on the screen (newsboat's `A` marks one feed), and a single feed's few are marked at once.
#[test]
fn marking_a_list_of_several_feeds_read_asks_first_however_small() {
    let mut s = loaded();
    s.viewport = (160, 40);
    go_to(&mut s, ListKey::Unread);
    entries_loaded(&mut s, ListKey::Unread, vec![entry(10, 1, false), entry(31, 3, false), entry(11, 1, false)]);
    assert!(update(&mut s, key('A')).is_empty());
    let Some(Dialog::Confirm(confirm)) = &s.dialog else { panic!("A asks first on the Unread list") };
    assert!(confirm.question.contains("Mark 3 entries of Unread read?"), "{}", confirm.question);
    update(&mut s, key('n'));
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false), entry(11, 1, false)]);
    assert_eq!(
        update(&mut s, key('A')),
        vec![Effect::write(UserWrite::MarkListRead { source: ListSource::Feed(FeedId(1)) })],
        "one feed's two: at once"
    );
    assert!(s.dialog.is_none());
}

#[test]
fn a_small_list_is_marked_read_without_a_question_and_opening_can_be_undone() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, code(KeyCode::Enter)); // opens and reads 10
    update(&mut s, key('h'));
    assert_eq!(
        update(&mut s, key('u')),
        vec![Effect::write(UserWrite::SetRead { ids: vec![EntryId(10)], read: false }), Effect::LoadFeeds]
    );
    assert!(!s.entries.refs[0].read);
}

#[test]
fn s_stars_and_unstars_the_entry_and_counts_it() {
    let mut s = loaded();
    update(&mut s, key('l'));
    assert_eq!(
        update(&mut s, key('s')),
        vec![Effect::write(UserWrite::SetStarred { ids: vec![EntryId(10)], starred: true })]
    );
    assert!(s.entries.refs[0].starred && s.entries.row(0).unwrap().starred);
    assert_eq!(s.feeds.views.starred, 2);
    assert_eq!(
        update(&mut s, key('s')),
        vec![Effect::write(UserWrite::SetStarred { ids: vec![EntryId(10)], starred: false })]
    );
    assert_eq!(s.feeds.views.starred, 1);
}

#[test]
fn sort_and_unread_only_are_remembered_for_the_list() {
    let mut s = loaded();
    update(&mut s, key('l'));
    let effects = update(&mut s, key('S'));
    assert_eq!(
        effects,
        vec![
            Effect::write(UserWrite::SetListOrder {
                source: ListSource::Feed(FeedId(1)),
                sort: Sort::Oldest,
                unread_only: false
            }),
            Effect::LoadEntries {
                list: ListKey::Feed(FeedId(1)),
                source: ListSource::Feed(FeedId(1)),
                order: Some((Sort::Oldest, false)),
                keep: Some(EntryId(10))
            },
        ]
    );
    let effects = update(&mut s, key('U'));
    assert!(matches!(
        &effects[0],
        Effect::Write { write: UserWrite::SetListOrder { sort: Sort::Oldest, unread_only: true, .. }, .. }
    ));
    assert_eq!(s.status.current(s.clock.now).unwrap().text, "Showing unread entries only");
}

#[test]
fn when_two_reads_of_a_list_are_on_their_way_only_the_last_answer_is_shown() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, key('S')); // oldest first
    update(&mut s, key('S')); // by feed
    assert_eq!(s.entries.sort, Sort::ByFeed);
    let seen = s.saving.last_issued();
    let answer = |sort: Sort, ids: &[i64]| Event::EntriesLoaded {
        list: ListKey::Feed(FeedId(1)),
        refs: refs(&ids.iter().map(|id| entry(*id, 1, false)).collect::<Vec<_>>()),
        rows: ids.iter().map(|id| entry(*id, 1, false)).collect(),
        order: (sort, false),
        keep: None,
        seen,
    };
    update(&mut s, answer(Sort::Oldest, &[11, 10]));
    assert_eq!(s.entries.sort, Sort::ByFeed, "the first answer is not shown: a newer one is coming");
    assert_eq!(s.entries.refs.iter().map(|r| r.id).collect::<Vec<_>>(), ids([10, 11]));
    update(&mut s, answer(Sort::ByFeed, &[10, 11, 12]));
    assert_eq!((s.entries.sort, s.entries.len()), (Sort::ByFeed, 3));
}

#[test]
fn slash_searches_every_feed_or_with_tab_the_selected_one() {
    let mut s = loaded();
    update(&mut s, key('/'));
    typed(&mut s, "rust \"type system\"");
    let effects = update(&mut s, code(KeyCode::Enter));
    let source = ListSource::Search { query: "rust \"type system\"".into(), within: None };
    let remember =
        |query: &str| Effect::write(UserWrite::SetPreference { name: "last_search".into(), value: Some(query.into()) });
    assert_eq!(effects, vec![load(ListKey::Search, source), remember("rust \"type system\"")]);
    assert_eq!(s.feeds.selected_list(), Some(ListKey::Search));
    assert_eq!(s.feeds.rows[3], FeedListRow::View(ListKey::Search), "the search is a view");
    entries_loaded(&mut s, ListKey::Search, vec![entry(10, 1, false)]);
    assert_eq!(s.feeds.search.as_ref().unwrap().count, Some(1));
    // Narrowed to a folder with Tab.
    go_to(&mut s, ListKey::Folder(FolderId(7)));
    update(&mut s, key('/'));
    update(&mut s, ctrl('u'));
    typed(&mut s, "election");
    update(&mut s, code(KeyCode::Tab));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the prompt is open") };
    assert_eq!(prompt.title, "Search in News");
    let effects = update(&mut s, code(KeyCode::Enter));
    let source =
        ListSource::Search { query: "election".into(), within: Some(Box::new(ListSource::Folder(FolderId(7)))) };
    assert_eq!(effects, vec![load(ListKey::Search, source), remember("election")]);
    // A search the store cannot read is a message, and an empty list that says why.
    update(&mut s, Event::EntriesFailed { list: ListKey::Search, message: "nothing to search for".into() });
    assert!(s.status.current(s.clock.now).unwrap().error);
    assert_eq!(s.entries.error.as_deref(), Some("nothing to search for"));
    // A refresh that brings entries does not ask it again (nor repeat its error).
    update(&mut s, key('R'));
    let done = RefreshEvent::Done {
        feed_id: FeedId(2),
        new: 4,
        updated: 0,
        unread: 4,
        title: "Two".into(),
        moved_to: None,
        cut_from: None,
    };
    let effects = update(&mut s, Event::Refresh(done));
    assert!(!effects.iter().any(|e| matches!(e, Effect::LoadEntries { .. })), "{effects:?}");
}

#[test]
fn folders_nest_fold_their_subtree_and_count_it() {
    let mut s = State::new(Setup::default(), (160, 40));
    let folder = |id, name: &str, parent: Option<i64>| FolderRow {
        id: FolderId(id),
        name: name.into(),
        parent: parent.map(FolderId),
        collapsed: false,
    };
    feeds_loaded(
        &mut s,
        vec![
            feed(1, "Top", 1, None),
            feed(2, "Rust blog", 4, Some((8, "Deep"))),
            feed(3, "Tech news", 2, Some((7, "Tech"))),
        ],
        vec![folder(7, "Tech", None), folder(8, "Deep", Some(7))],
    );
    let tech = row(&s, ListKey::Folder(FolderId(7)));
    assert_eq!(
        s.feeds.rows[tech],
        FeedListRow::Folder { id: FolderId(7), name: "Tech".into(), depth: 0, unread: 6, collapsed: false }
    );
    assert_eq!(s.feeds.rows[tech + 1], FeedListRow::Feed { index: 2, depth: 1 });
    assert_eq!(
        s.feeds.rows[tech + 2],
        FeedListRow::Folder { id: FolderId(8), name: "Deep".into(), depth: 1, unread: 4, collapsed: false }
    );
    assert_eq!(s.feeds.rows[tech + 3], FeedListRow::Feed { index: 1, depth: 2 });
    assert_eq!(s.feeds.feed_ids_of(ListKey::Folder(FolderId(7))), vec![FeedId(2), FeedId(3)]);
    assert_eq!(s.feeds.folder_path(FolderId(8)), "Tech/Deep");
    go_to(&mut s, ListKey::Folder(FolderId(7)));
    update(&mut s, code(KeyCode::Enter));
    assert_eq!(s.feeds.rows.len(), tech + 1, "folding Tech hides Deep and its feed too");
}

/// Messages name the key in effect: rebound, the new key; unbound, none at all.
#[test]
fn questions_and_messages_name_the_keys_in_effect() {
    let said = |config: &str| {
        let keymap = keymap::Keymap::with_config(&config.parse().unwrap()).unwrap();
        let mut s = State::new(Setup { keymap, ..Setup::default() }, (160, 20));
        update(&mut s, Event::Tick(1_000_000));
        feeds_loaded(&mut s, vec![feed(1, "One", 60, None)], vec![]);
        go_to(&mut s, ListKey::Unread);
        entries_loaded(&mut s, ListKey::Unread, unread(1, 100..160));
        update(&mut s, key('l'));
        update(&mut s, key('A'));
        let Some(Dialog::Confirm(confirm)) = &s.dialog else { panic!("A asks first") };
        let question = confirm.question.clone();
        update(&mut s, key('y'));
        let answer = marked(&s, ids(100..160));
        update(&mut s, answer);
        (question, s.status.current(s.clock.now).unwrap().text.clone())
    };
    let (question, done) = said("");
    assert!(question.ends_with("read? (u undoes it) (y/n)"), "{question}");
    assert_eq!(done, "Marked 60 entries of Unread read (u undoes it)");
    let (question, done) = said("undo = \"F2\"\n[confirm]\nno = [\"Esc\"]");
    assert!(question.ends_with("read? (F2 undoes it) (y/Esc)"), "{question}");
    assert_eq!(done, "Marked 60 entries of Unread read (F2 undoes it)");
    let (question, done) = said("undo = []");
    assert!(question.ends_with("read? (y/n)"), "{question}");
    assert_eq!(done, "Marked 60 entries of Unread read");
}

#[test]
fn the_search_prompt_takes_a_query_and_points_at_a_mistake() {
    let mut s = loaded();
    update(&mut s, key('/'));
    typed(&mut s, "title ~ rust and unread");
    let effects = update(&mut s, code(KeyCode::Enter));
    let source = ListSource::Query { query: "title ~ rust and unread".into(), within: None };
    // A query is written down as the last search like plain words, to be the Search view again after a restart.
    let remembered =
        UserWrite::SetPreference { name: "last_search".into(), value: Some("title ~ rust and unread".into()) };
    assert_eq!(effects, vec![load(ListKey::Search, source), Effect::write(remembered)]);
    update(&mut s, key('/'));
    update(&mut s, ctrl('u'));
    typed(&mut s, "title ~");
    update(&mut s, code(KeyCode::Enter));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the prompt stays open") };
    assert_eq!(prompt.error.as_deref(), Some("expected a value after `~` at column 8"));
}

#[test]
fn a_search_is_saved_as_a_view_listed_and_counted() {
    let mut s = loaded();
    update(&mut s, key('V'));
    assert!(s.dialog.is_none(), "nothing to save before a search");
    update(&mut s, key('/'));
    typed(&mut s, "rust OR go -java");
    update(&mut s, code(KeyCode::Enter));
    update(&mut s, key('V'));
    typed(&mut s, "Languages");
    let effects = update(&mut s, code(KeyCode::Enter));
    let query = "(\"rust\" or \"go\") and not \"java\"".to_string();
    assert_eq!(effects, vec![Effect::SaveView { name: "Languages".into(), query: query.clone() }]);
    let effects = update(&mut s, Event::ViewSaved { name: "Languages".into(), query: query.clone(), outcome: Ok(()) });
    assert_eq!(s.feeds.selected_list(), Some(ListKey::View(0)));
    assert_eq!(s.list_name(ListKey::View(0)), "Languages");
    let source = ListSource::Query { query: query.clone(), within: None };
    assert!(effects.contains(&load(ListKey::View(0), source)), "{effects:?}");
    assert!(effects.contains(&Effect::CountViews(vec![(0, query.clone())])), "{effects:?}");
    // Counted off the loop, once at a time: a count asked while one is on its way waits for it.
    assert_eq!(feeds::count_views(&mut s), vec![]);
    let effects = update(&mut s, Event::ViewsCounted(vec![(0, Ok(12))]));
    assert_eq!(s.feeds.saved[0].unread, Some(12));
    assert_eq!(effects, vec![Effect::CountViews(vec![(0, query)])]);
}
