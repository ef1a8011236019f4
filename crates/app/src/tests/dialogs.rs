//! Dialogs and keys: help, feed info, prompts, subscriptions, the keymap and the mouse.

use super::*;

#[test]
fn help_opens_scrolls_and_closes_without_quitting() {
    let mut s = loaded();
    s.viewport = (50, 20);
    update(&mut s, key('?'));
    assert_eq!(s.dialog, Some(Dialog::Help { scroll: 0 }));
    update(&mut s, key('j'));
    assert_eq!(s.dialog, Some(Dialog::Help { scroll: 1 }), "j scrolls the help");
    update(&mut s, key('G'));
    let Some(Dialog::Help { scroll }) = s.dialog else { panic!("help stays open") };
    let area = crate::dialogs::areas::help(&s.keymap, 50, 20);
    let lines = crate::dialogs::help_lines(&s.keymap, area.width - 2).len();
    assert_eq!(scroll, lines - usize::from(area.height - 2), "the end of the help is its last line");
    update(&mut s, key('q'));
    assert!(s.dialog.is_none() && !s.quit);
    update(&mut s, key('q'));
    assert!(s.quit);
}

#[test]
fn ctrl_c_quits_even_from_a_dialog_but_cancels_a_prompt() {
    let mut s = loaded();
    update(&mut s, key('a'));
    update(&mut s, ctrl('c'));
    assert!(s.dialog.is_none() && !s.quit, "Ctrl-C cancels a prompt, as in a shell");
    update(&mut s, key('?'));
    update(&mut s, ctrl('c'));
    assert!(s.quit);
}

#[test]
fn key_releases_are_ignored() {
    let mut s = loaded();
    let mut release = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
    release.kind = KeyEventKind::Release;
    update(&mut s, Event::Key(release));
    assert!(!s.quit);
}

#[test]
fn several_feeds_open_a_picker() {
    let mut s = loaded();
    update(&mut s, key('a'));
    typed(&mut s, "https://multi.example/");
    update(&mut s, code(KeyCode::Enter));
    let feeds = vec![
        found("https://multi.example/posts.xml", "Posts"),
        found("https://multi.example/comments.xml", "Comments"),
    ];
    update(
        &mut s,
        Event::Discovered {
            request: 0,
            discovery: Box::new(Discovery { url: "https://multi.example/".into(), feeds, ..Default::default() }),
        },
    );
    assert!(matches!(&s.dialog, Some(Dialog::Picker(p)) if p.cursor.index == 0));
    update(&mut s, key('j'));
    let effects = update(&mut s, code(KeyCode::Enter));
    assert!(
        matches!(&effects[..], [Effect::Write { write: UserWrite::AddFeed(NewFeed { url, .. }), .. }] if url == "https://multi.example/comments.xml")
    );
    assert!(s.dialog.is_none());
}

/// An address that cannot be read is said as a feed not found is: in a report that stays until it is closed,
/// not only in the status bar (where a `q` meant for it quit the reader).
#[test]
fn an_address_that_cannot_be_read_is_reported_in_a_dialog() {
    let mut s = loaded();
    update(&mut s, key('a'));
    typed(&mut s, "https://gone.example/feed.xml");
    update(&mut s, code(KeyCode::Enter));
    let discovery = Discovery {
        url: "https://gone.example/feed.xml".into(),
        error: Some("HTTP 410 (gone: the feed was removed)".into()),
        ..Default::default()
    };
    update(&mut s, Event::Discovered { request: 0, discovery: Box::new(discovery) });
    let Some(Dialog::Report(report)) = &s.dialog else { panic!("{:?}", s.dialog) };
    let text = report.lines.join("\n");
    assert!(text.contains("Cannot read https://gone.example/feed.xml:") && text.contains("HTTP 410"), "{text}");
}

#[test]
fn a_picker_that_arrives_while_another_dialog_is_open_waits_its_turn() {
    let mut s = loaded();
    update(&mut s, key('a'));
    typed(&mut s, "multi.example");
    update(&mut s, code(KeyCode::Enter));
    update(&mut s, key('?'));
    let feeds = vec![found("https://multi.example/a.xml", "A"), found("https://multi.example/b.xml", "B")];
    update(&mut s, Event::Discovered { request: 0, discovery: Box::new(Discovery { feeds, ..Default::default() }) });
    assert!(matches!(s.dialog, Some(Dialog::Help { .. })));
    update(&mut s, key('?'));
    assert!(matches!(s.dialog, Some(Dialog::Picker(_))), "the picker opens when the help closes");
}

#[test]
fn nothing_found_says_what_was_tried() {
    let mut s = loaded();
    update(&mut s, key('a'));
    typed(&mut s, "empty.example");
    update(&mut s, code(KeyCode::Enter));
    let tried =
        vec!["<link> tags in the page: 0 feed link(s)".to_string(), "common feed addresses: /feed, /rss".to_string()];
    update(
        &mut s,
        Event::Discovered {
            request: 0,
            discovery: Box::new(Discovery { url: "https://empty.example".into(), tried, ..Default::default() }),
        },
    );
    let Some(Dialog::Report(report)) = &s.dialog else { panic!("a report opens") };
    assert!(report.lines.iter().any(|l| l.contains("common feed addresses")));
}

#[test]
fn deleting_asks_first_and_removes_the_feed() {
    let mut s = loaded();
    update(&mut s, key('D'));
    assert!(matches!(&s.dialog, Some(Dialog::Confirm(c)) if c.action == Confirmed::DeleteFeed(FeedId(1))));
    assert!(update(&mut s, key('n')).is_empty());
    assert_eq!(s.feeds.feeds.len(), 3, "no deletes without a yes");
    update(&mut s, key('D'));
    assert_eq!(update(&mut s, key('y')), vec![Effect::write(UserWrite::DeleteFeed(FeedId(1))), Effect::LoadFeeds]);
    assert_eq!(s.feeds.feeds.len(), 2);
    assert!(s.entries.refs.is_empty());
}

#[test]
fn rename_move_and_folders_confirm_themselves() {
    let mut s = loaded();
    update(&mut s, key('c'));
    update(&mut s, ctrl('u'));
    typed(&mut s, "Mine");
    assert_eq!(
        update(&mut s, code(KeyCode::Enter)),
        vec![
            Effect::write(UserWrite::RenameFeed { feed_id: FeedId(1), title: Some("Mine".into()) }),
            Effect::LoadFeeds
        ]
    );
    assert_eq!(s.status.current(s.clock.now).unwrap().text, "Renamed to Mine");
    update(&mut s, key('M'));
    typed(&mut s, "Later");
    assert_eq!(
        update(&mut s, code(KeyCode::Enter)),
        vec![
            Effect::write(UserWrite::MoveFeed { feed_id: FeedId(1), folder: vec!["Later".into()] }),
            Effect::LoadFeeds
        ]
    );
    assert_eq!(s.status.current(s.clock.now).unwrap().text, "Moved to Later");
    update(&mut s, key('F'));
    typed(&mut s, "News");
    assert!(update(&mut s, code(KeyCode::Enter)).is_empty(), "a taken name is refused");
    update(&mut s, code(KeyCode::Esc));
    update(&mut s, key('j')); // the News folder
    update(&mut s, key('c'));
    update(&mut s, ctrl('u'));
    typed(&mut s, "World");
    assert_eq!(
        update(&mut s, code(KeyCode::Enter)),
        vec![
            Effect::write(UserWrite::RenameFolder { folder_id: FolderId(7), name: "World".into() }),
            Effect::LoadFeeds
        ]
    );
    update(&mut s, key('D'));
    assert_eq!(
        update(&mut s, key('y')),
        vec![
            Effect::write(UserWrite::DeleteFolder { folder_id: FolderId(7), with_contents: false }),
            Effect::LoadFeeds
        ]
    );
}

#[test]
fn after_a_folder_is_deleted_the_cursor_stays_where_it_was() {
    let mut s = loaded();
    go_to(&mut s, ListKey::Folder(FolderId(7)));
    let at = s.feeds.cursor.index;
    update(&mut s, key('D'));
    update(&mut s, key('D'));
    // What was inside moved up: Two and Three now sit at the top level, where the folder was.
    let feeds = vec![feed(1, "One", 2, None), feed(2, "Two", 0, None), feed(3, "Three", 1, None)];
    feeds_loaded(&mut s, feeds, vec![]);
    assert_eq!(s.feeds.cursor.index, at, "not back at the top");
    assert_eq!(s.feeds.selected_list(), Some(ListKey::Feed(FeedId(2))), "the row that took the folder's place");
}

#[test]
fn a_rebound_keymap_drives_the_reader() {
    let table: toml::Table =
        "down = \"Ctrl-n\"\nup = \"Ctrl-p\"\n[entries]\nopen = [\"Enter\", \"Right\"]\n".parse().unwrap();
    let keymap = keymap::Keymap::with_config(&table).unwrap();
    let mut s = State::new(Setup { keymap, ..Setup::default() }, (160, 40));
    feeds_loaded(&mut s, vec![feed(1, "One", 1, None), feed(2, "Two", 0, None)], vec![]);
    assert!(update(&mut s, key('j')).is_empty(), "j is no longer down");
    assert_eq!(update(&mut s, ctrl('n')), vec![load(ListKey::Starred, ListSource::Starred)]);
    update(&mut s, ctrl('n'));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(5, 1, false)]);
    update(&mut s, key('l'));
    assert_eq!(
        update(&mut s, code(KeyCode::Right)),
        vec![Effect::LoadArticle(EntryId(5)), Effect::write(UserWrite::SetRead { ids: vec![EntryId(5)], read: true })]
    );
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer_and_a_click_selects() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut s = loaded();
    let many: Vec<EntryRow> = (0..100).map(|i| entry(1000 + i, 1, true)).collect();
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), many);
    let entries = s.screen().entries.unwrap();
    let at = |kind, row| Event::Mouse(MouseEvent { kind, column: entries.x + 3, row, modifiers: KeyModifiers::NONE });
    update(&mut s, at(MouseEventKind::ScrollDown, entries.y + 2));
    assert_eq!(s.entries.cursor.offset, 3);
    assert_eq!(s.focus, Pane::Feeds, "the wheel does not move the focus");
    update(&mut s, at(MouseEventKind::Down(MouseButton::Left), entries.y + 1 + 4));
    assert_eq!((s.focus, s.entries.cursor.index), (Pane::Entries, 7));
    let effects = update(&mut s, at(MouseEventKind::Down(MouseButton::Left), entries.y + 1 + 4));
    assert_eq!(effects, vec![Effect::LoadArticle(EntryId(1007))], "a second click opens it");
}
