//! A newsboat user's habits and the defects a switching user tripped on (issue 21): each test names the defect
//! it covers and fails without its fix.

use super::*;

fn status(s: &State) -> String {
    s.status.current(s.clock.now).map(|m| m.text.clone()).unwrap_or_default()
}

/// Defect 14: an unbound key says so, and where the keys are.
#[test]
fn an_unbound_key_says_it_is_not_bound_and_where_the_keys_are() {
    let mut s = loaded();
    assert!(update(&mut s, key('Q')).is_empty());
    assert_eq!(status(&s), "Q is not bound · ? for keys");
}

/// Defect 1: a list nobody touched stays at its top while a refresh fills it; one the user moved in keeps the
/// entry under the cursor.
#[test]
fn an_untouched_list_stays_at_its_top_as_newer_entries_arrive() {
    let mut s = State::new(Setup::default(), (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    feeds_loaded(&mut s, vec![feed(1, "One", 2, None)], vec![]);
    entries_loaded(&mut s, ListKey::Unread, vec![entry(10, 1, false), entry(11, 1, false)]);
    // The refresh brings two newer entries: they arrive above.
    entries_loaded(
        &mut s,
        ListKey::Unread,
        vec![entry(12, 1, false), entry(13, 1, false), entry(10, 1, false), entry(11, 1, false)],
    );
    assert_eq!(s.entries.cursor.index, 0, "the list stays at its top");
    assert_eq!(s.entries.selected_ref().map(|r| r.id), Some(EntryId(12)));
    // Once the user moved, the cursor stays on their entry.
    s.focus = Pane::Entries;
    update(&mut s, key('j'));
    entries_loaded(&mut s, ListKey::Unread, vec![entry(14, 1, false), entry(12, 1, false), entry(13, 1, false)]);
    assert_eq!(s.entries.selected_ref().map(|r| r.id), Some(EntryId(13)));
}

/// Defect 2: a new order, and a new search, open their list at its top, wherever the cursor was.
#[test]
fn a_new_order_and_a_new_search_open_the_list_at_its_top() {
    let mut s = loaded();
    s.focus = Pane::Entries;
    update(&mut s, key('j'));
    assert_eq!(s.entries.cursor.index, 1);
    update(&mut s, key('S'));
    let order = (Sort::Oldest, false);
    // The entry under the cursor (11) is second in the new order too: kept, the cursor would stay below the top.
    let rows = vec![entry(10, 1, false), entry(11, 1, false)];
    let seen = s.saving.last_issued();
    update(
        &mut s,
        Event::EntriesLoaded {
            list: ListKey::Feed(FeedId(1)),
            refs: refs(&rows),
            rows,
            order,
            keep: Some(EntryId(11)),
            seen,
        },
    );
    assert_eq!(s.entries.cursor.index, 0, "a new order starts at the top");
    // Down again, then a new search: its results open at their top.
    update(&mut s, key('j'));
    update(&mut s, key('/'));
    typed(&mut s, "rust");
    update(&mut s, code(KeyCode::Enter));
    let rows = vec![entry(10, 1, false), entry(11, 1, false)];
    let seen = s.saving.last_issued();
    update(
        &mut s,
        Event::EntriesLoaded {
            list: ListKey::Search,
            refs: refs(&rows),
            rows,
            order: (Sort::Newest, false),
            keep: Some(EntryId(11)),
            seen,
        },
    );
    assert_eq!(s.entries.cursor.index, 0, "a new search starts at the top");
}

/// Defects 6 and 7: a search says how many matched once, with its scope, and its list's title names the scope.
#[test]
fn a_search_is_announced_once_with_its_scope_in_the_title_and_the_message() {
    let mut s = loaded();
    go_to(&mut s, ListKey::Folder(FolderId(7)));
    update(&mut s, key('/'));
    typed(&mut s, "москве");
    update(&mut s, code(KeyCode::Tab));
    update(&mut s, code(KeyCode::Enter));
    entries_loaded(&mut s, ListKey::Search, vec![]);
    assert_eq!(status(&s), "Nothing matches москве in News");
    assert_eq!(s.list_name(ListKey::Search), "Search in News: москве");
    let said = s.status.log.len();
    // Away and back: the list is read again, and not announced again.
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false)]);
    go_to(&mut s, ListKey::Search);
    entries_loaded(&mut s, ListKey::Search, vec![]);
    assert_eq!(s.status.log.len(), said, "{:?}", s.status.log);
}

/// Defect 4: the Unread view counts what the feeds count while a refresh goes on.
#[test]
fn the_unread_view_counts_what_the_feeds_count_during_a_refresh() {
    let mut s = loaded();
    update(&mut s, key('R'));
    let done = RefreshEvent::Done {
        feed_id: FeedId(2),
        new: 5,
        updated: 0,
        unread: 5,
        title: "Two".into(),
        moved_to: None,
        cut_from: None,
    };
    update(&mut s, Event::Refresh(done));
    assert_eq!(s.feeds.views.unread, s.feeds.total_unread());
    assert_eq!(s.feeds.views.unread, 8);
}

/// Defect 10: `u` after unsubscribing marks nothing unread, and says there is no undo.
#[test]
fn undo_after_unsubscribing_marks_nothing_unread() {
    let mut s = loaded();
    open_article(&mut s, None, "<p>x</p>");
    assert!(s.undo.is_some(), "opening marked it read");
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    update(&mut s, key('D'));
    update(&mut s, key('y'));
    assert!(status(&s).starts_with("Unsubscribed from One (no undo"), "{}", status(&s));
    let effects = update(&mut s, key('u'));
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Write { write: UserWrite::SetRead { .. }, .. })),
        "{effects:?}"
    );
    assert_eq!(
        status(&s),
        "Nothing to undo: the last change, unsubscribing, cannot be undone (u undoes read, unread and stars)"
    );
}

/// `u` after a rename or a move does not reach past it to an older marking (the stars of another list): it says
/// the rename cannot be undone. A marking after it can be undone again.
#[test]
fn undo_does_not_reach_past_a_rename_to_an_older_marking() {
    let mut s = loaded();
    s.focus = Pane::Entries;
    update(&mut s, key('x'));
    update(&mut s, key('x'));
    update(&mut s, key('s'));
    assert_eq!(status(&s), "2 entries starred (u undoes it)");
    go_to(&mut s, ListKey::Feed(FeedId(2)));
    update(&mut s, key('c'));
    typed(&mut s, " renamed");
    let effects = update(&mut s, code(KeyCode::Enter));
    assert!(effects.iter().any(|e| matches!(e, Effect::Write { write: UserWrite::RenameFeed { .. }, .. })));
    let effects = update(&mut s, key('u'));
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Write { write: UserWrite::SetStarred { .. }, .. })),
        "{effects:?}"
    );
    assert_eq!(
        status(&s),
        "Nothing to undo: the last change, renaming a feed, cannot be undone (u undoes read, unread and stars)"
    );
    // A marking afterwards is undone as before.
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false), entry(11, 1, false)]);
    s.focus = Pane::Entries;
    update(&mut s, key('x'));
    update(&mut s, key('s'));
    let effects = update(&mut s, key('u'));
    assert!(
        effects.iter().any(|e| matches!(e, Effect::Write { write: UserWrite::SetStarred { starred: false, .. }, .. }))
    );
    assert_eq!(status(&s), "1 entry unstarred again");
    update(&mut s, key('u'));
    assert_eq!(status(&s), "Nothing to undo", "the undo was the last change");
}

/// Defect 19: after `A` on the Unread list, its title counts nothing.
#[test]
fn the_unread_list_holds_nothing_after_marking_all_read() {
    let mut s = loaded();
    go_to(&mut s, ListKey::Unread);
    entries_loaded(&mut s, ListKey::Unread, vec![entry(10, 1, false), entry(11, 1, false), entry(12, 3, false)]);
    update(&mut s, key('A'));
    update(&mut s, key('y'));
    assert_eq!(s.entries.len(), 0);
    assert_eq!(s.feeds.total_unread(), 0);
}

/// Defect 20: the last search comes back as the Search view after a restart.
#[test]
fn the_last_search_is_a_view_again_after_a_restart() {
    // A search is written down as the last search…
    let mut s = loaded();
    update(&mut s, key('/'));
    typed(&mut s, "rust");
    let effects = update(&mut s, code(KeyCode::Enter));
    let remembered = UserWrite::SetPreference { name: "last_search".into(), value: Some("rust".into()) };
    assert!(effects.contains(&Effect::write(remembered)), "{effects:?}");
    // …and comes back as the Search view when the reader starts with it.
    let setup = Setup { last_search: Some("rust".into()), ..Setup::default() };
    let mut s = State::new(setup, (160, 40));
    feeds_loaded(&mut s, vec![feed(1, "One", 2, None)], vec![]);
    assert!(s.feeds.row_of(ListKey::Search).is_some());
    assert_eq!(s.list_name(ListKey::Search), "Search: rust");
}

/// The command line runs actions by name and commands, completes names and keeps a history.
#[test]
fn the_command_line_runs_actions_by_name_completes_and_remembers() {
    let mut s = loaded();
    s.focus = Pane::Entries;
    update(&mut s, key(':'));
    typed(&mut s, "sta");
    update(&mut s, code(KeyCode::Tab));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the command line is open") };
    assert_eq!(prompt.input.text(), "star ");
    let effects = update(&mut s, code(KeyCode::Enter));
    assert_eq!(effects, vec![Effect::write(UserWrite::SetStarred { ids: vec![EntryId(10)], starred: true })]);
    assert!(s.dialog.is_none());
    update(&mut s, key(':'));
    update(&mut s, code(KeyCode::Up));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the command line is open") };
    assert_eq!(prompt.input.text(), "star");
    update(&mut s, code(KeyCode::Esc));
    update(&mut s, key(':'));
    typed(&mut s, "frobnicate");
    update(&mut s, code(KeyCode::Enter));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("a refused line keeps the prompt") };
    assert!(prompt.error.as_deref().unwrap().contains("neither an action nor a command"));
    assert!(!prompt.error.as_deref().unwrap().contains("did you mean"), "nothing is near frobnicate");
}

/// newsboat's names for actions work on the command line, and the reader says its own name for them.
#[test]
fn the_command_line_takes_newsboats_names() {
    let mut s = loaded();
    s.focus = Pane::Entries;
    update(&mut s, key(':'));
    typed(&mut s, "mark-feed-read");
    let effects = update(&mut s, code(KeyCode::Enter));
    assert!(
        effects.iter().any(|e| matches!(e, Effect::Write { write: UserWrite::MarkListRead { .. }, .. })),
        "{effects:?}"
    );
    assert!(s.dialog.is_none());
    assert!(status(&s).ends_with("newsboat's mark-feed-read is mark-all-read here"), "{}", status(&s));
}

/// A command line with a typo names what was meant: an action, a command, a setting of `:set`.
#[test]
fn the_command_line_says_what_a_typo_meant() {
    let mut s = loaded();
    s.focus = Pane::Entries;
    for (typed_line, meant) in [
        ("tgole-read", "did you mean toggle-read?"),
        ("expotr x", "did you mean export?"),
        ("set unread_onyl on", "did you mean unread_only?"),
    ] {
        update(&mut s, key(':'));
        typed(&mut s, typed_line);
        let effects = update(&mut s, code(KeyCode::Enter));
        assert_eq!(effects, vec![], "{typed_line}: nothing runs");
        let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("a refused line keeps the prompt") };
        assert!(prompt.error.as_deref().unwrap().ends_with(meant), "{typed_line}: {:?}", prompt.error);
        update(&mut s, code(KeyCode::Esc));
    }
}

/// Macros: the macro key, then a key, runs that macro's actions in order.
#[test]
fn a_macro_runs_its_actions_in_order() {
    let keys = vec![(
        keymap::Key::parse("x").unwrap(),
        vec![commands::MacroStep::Action(Action::Star), commands::MacroStep::Action(Action::ToggleRead)],
    )];
    let mut s = State::new(Setup { macros: keys, ..Setup::default() }, (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    feeds_loaded(&mut s, vec![feed(1, "One", 2, None)], vec![]);
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false)]);
    s.focus = Pane::Entries;
    update(&mut s, key(','));
    let effects = update(&mut s, key('x'));
    assert_eq!(
        effects,
        vec![
            Effect::write(UserWrite::SetStarred { ids: vec![EntryId(10)], starred: true }),
            Effect::write(UserWrite::SetRead { ids: vec![EntryId(10)], read: true }),
        ]
    );
}

/// Next and previous feed, next feed with unread, and hiding feeds with nothing unread (remembered).
#[test]
fn feeds_are_walked_with_j_k_and_ctrl_n_and_read_ones_hidden_on_h() {
    let mut s = loaded();
    let effects = update(&mut s, key('J'));
    assert_eq!(effects, vec![load(ListKey::Feed(FeedId(2)), ListSource::Feed(FeedId(2)))]);
    let effects = update(&mut s, ctrl('n'));
    assert_eq!(effects, vec![load(ListKey::Feed(FeedId(3)), ListSource::Feed(FeedId(3)))]);
    update(&mut s, key('K'));
    assert_eq!(s.feeds.selected_list(), Some(ListKey::Feed(FeedId(2))));
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    let effects = update(&mut s, key('H'));
    assert_eq!(
        effects,
        vec![Effect::write(UserWrite::SetPreference { name: "hide_read_feeds".into(), value: Some("on".into()) })]
    );
    assert_eq!(s.feeds.row_of(ListKey::Feed(FeedId(2))), None, "Two has nothing unread");
    assert!(s.feeds.row_of(ListKey::Feed(FeedId(3))).is_some());
}

/// Pipe, save, copy and bookmark ask the runtime, with the article's text or the entry's address.
#[test]
fn pipe_save_copy_and_bookmark_hand_the_text_or_the_address_to_the_runtime() {
    let mut s = State::new(Setup { bookmark_command: true, ..Setup::default() }, (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    feeds_loaded(&mut s, vec![feed(1, "One", 2, None)], vec![]);
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false)]);
    open_article(&mut s, Some("https://example.com/a"), "<p>Body \u{1b}[31m text</p>");
    update(&mut s, key('|'));
    typed(&mut s, "wc -l");
    let effects = update(&mut s, code(KeyCode::Enter));
    let [Effect::Pipe { words, input, in_terminal: false }] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!(words, &["wc", "-l"]);
    assert!(input.contains("Body") && !input.contains('\u{1b}'), "{input:?}");
    assert_eq!(update(&mut s, key('y')), vec![Effect::Copy("https://example.com/a".into())]);
    let effects = update(&mut s, ctrl('b'));
    let bookmark = Effect::Bookmark {
        url: "https://example.com/a".into(),
        title: "T".into(),
        description: String::new(),
        feed: "One".into(),
    };
    assert_eq!(effects, vec![bookmark]);
    update(&mut s, key(':'));
    typed(&mut s, "save ~/a.txt");
    let effects = update(&mut s, code(KeyCode::Enter));
    assert!(
        matches!(effects.as_slice(), [Effect::Save { path, overwrite: false, .. }] if path == "~/a.txt"),
        "{effects:?}"
    );
}

/// Defect 21: a web page in place of a feed names the reader's key that finds its feed, not a shell command,
/// in the status and in the feed's error (read again from the store too).
#[test]
fn a_web_page_in_place_of_a_feed_names_the_readers_key_not_a_command() {
    let mut s = loaded();
    let said = "not a feed: the document is HTML (a web page); try `tidings discover URL` to find its feed";
    update(
        &mut s,
        Event::Refresh(RefreshEvent::Failed {
            feed_id: FeedId(1),
            title: "One".into(),
            url: "http://example.com/1".into(),
            kind: ErrorKind::Parse,
            message: said.into(),
            retry_at: None,
            dead: false,
        }),
    );
    let instead =
        "not a feed: the document is HTML (a web page); press a and give the page's address: its feed is found";
    assert_eq!(status(&s), format!("One: {instead}"));
    assert_eq!(s.feeds.feeds[0].last_error.as_deref(), Some(instead));
    let mut stored = feed(1, "One", 2, None);
    stored.last_error = Some(said.into());
    feeds_loaded(&mut s, vec![stored], vec![]);
    assert_eq!(s.feeds.feeds[0].last_error.as_deref(), Some(instead));
}

/// Defect 3: a feed longer than a refresh keeps is named in the refresh's message, with the feed info's key.
#[test]
fn a_feed_cut_to_what_a_refresh_keeps_is_said_in_the_status() {
    let mut s = loaded();
    update(&mut s, key('R'));
    for id in [1, 2, 3] {
        let cut_from = (id == 2).then_some(20_000);
        let title = format!("Feed {id}");
        let done =
            RefreshEvent::Done { feed_id: FeedId(id), new: 0, updated: 0, unread: 0, title, moved_to: None, cut_from };
        update(&mut s, Event::Refresh(done));
    }
    assert!(
        status(&s).contains("Feed 2 lists 20000 entries: only the first 5000 were kept (i on it says so)"),
        "{}",
        status(&s)
    );
}

/// Piped and saved text carried the reader's hint (`▸ tags: rust · d for details`): it has the tags listed, no
/// key of the reader.
#[test]
fn piped_text_lists_the_details_without_the_readers_hints() {
    let mut s = State::new(Setup::default(), (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    feeds_loaded(&mut s, vec![feed(1, "One", 2, None)], vec![]);
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false)]);
    update(&mut s, key('l'));
    update(&mut s, code(KeyCode::Enter));
    let html = "<p>Body text</p>";
    let detail = EntryDetail {
        title: Some("T".into()),
        content_html: Some(html.into()),
        categories: vec!["rust".into(), "news".into()],
        ..detail_of_entry_10()
    };
    update(&mut s, Event::ArticleLoaded { entry_id: EntryId(10), detail: Some(Box::new(detail)) });
    let width = s.article_width();
    update(
        &mut s,
        Event::ArticleRendered { entry_id: EntryId(10), width, body: Ok(render::render_article(html, 80, None)) },
    );
    let shown: Vec<String> = s.article.view.as_ref().unwrap().lines.iter().map(render::line_text).collect();
    assert!(shown.iter().any(|l| l.contains("for details")), "the pane keeps its hint: {shown:?}");
    update(&mut s, key('|'));
    typed(&mut s, "cat");
    let effects = update(&mut s, code(KeyCode::Enter));
    let [Effect::Pipe { input, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    assert!(input.contains("Body text") && input.contains("Tags: rust, news"), "{input:?}");
    assert!(!input.contains("for details") && !input.contains('▸'), "{input:?}");
}

/// A folder's count left out nothing but counted a hidden feed's entries; with read feeds hidden, a new (empty)
/// folder was not listed at all; `a` says which folder the feed goes to.
#[test]
fn folders_count_what_they_list_a_new_folder_shows_and_add_names_its_folder() {
    let mut s = State::new(Setup { hide_read_feeds: true, ..Setup::default() }, (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    let hidden = FeedRow { hidden: true, ..feed(3, "Three", 5, Some((7, "News"))) };
    let empty = FolderRow { id: FolderId(8), name: "Later".into(), parent: None, collapsed: false };
    feeds_loaded(
        &mut s,
        vec![feed(1, "One", 2, None), feed(2, "Two", 1, Some((7, "News"))), hidden],
        vec![news(), empty],
    );
    let folders: Vec<(String, i64)> = s
        .feeds
        .rows
        .iter()
        .filter_map(|r| match r {
            FeedListRow::Folder { name, unread, .. } => Some((name.clone(), *unread)),
            _ => None,
        })
        .collect();
    assert_eq!(folders, [("News".to_string(), 1), ("Later".to_string(), 0)], "{:?}", s.feeds.rows);
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    update(&mut s, key('a'));
    assert!(matches!(&s.dialog, Some(Dialog::Prompt(p)) if p.title.contains("at the top level")), "{:?}", s.dialog);
    update(&mut s, code(KeyCode::Esc));
    go_to(&mut s, ListKey::Feed(FeedId(2)));
    update(&mut s, key('a'));
    assert!(matches!(&s.dialog, Some(Dialog::Prompt(p)) if p.title.contains("to the folder News")), "{:?}", s.dialog);
}

/// A macro's step can be a command line with its argument (newsboat's `pipe-to "cmd"` is `:pipe cmd`): it pipes
/// the article to that command, not a bare `pipe` asking for one.
#[test]
fn a_macro_step_can_be_a_command_line_with_its_argument() {
    let steps = vec![commands::MacroStep::named(":pipe urlview -x").unwrap()];
    let mut s =
        State::new(Setup { macros: vec![(keymap::Key::parse("c").unwrap(), steps)], ..Setup::default() }, (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    feeds_loaded(&mut s, vec![feed(1, "One", 2, None)], vec![]);
    go_to(&mut s, ListKey::Feed(FeedId(1)));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false)]);
    open_article(&mut s, Some("https://example.com/a"), "<p>Body</p>");
    update(&mut s, key(','));
    let effects = update(&mut s, key('c'));
    let [Effect::Pipe { words, input, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!(words, &["urlview", "-x"]);
    assert!(input.contains("Body"), "{input:?}");
    assert!(s.dialog.is_none(), "nothing is asked");
    assert_eq!(commands::MacroStep::named(":"), None);
}
