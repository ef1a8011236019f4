//! Triage: marking everything above or below the cursor read, the marked set (x, X, :mark QUERY) and what acts
//! on it at once (m, s, E, |), and undo after each.

use super::*;

/// Feed One with entries 1..=n (newest first), all unread, the cursor on the entry at `at`, the entry pane
/// focused.
fn list_of(n: i64, at: usize) -> State {
    let mut s = loaded();
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), (1..=n).map(|i| entry(i, 1, false)).collect());
    update(&mut s, key('l'));
    for _ in 0..at {
        update(&mut s, key('j'));
    }
    s
}

fn status(s: &State) -> String {
    s.status.current(s.clock.now).map(|m| m.text.clone()).unwrap_or_default()
}

fn read_ids(s: &State) -> Vec<i64> {
    s.entries.refs.iter().filter(|r| r.read).map(|r| r.id.0).collect()
}

#[test]
fn mark_above_read_marks_only_the_entries_above_the_cursor_and_u_undoes_it() {
    let mut s = list_of(6, 3);
    let effects = update(&mut s, key('['));
    assert_eq!(effects, vec![Effect::write(UserWrite::SetRead { ids: ids([1, 2, 3]), read: true })]);
    assert_eq!(read_ids(&s), [1, 2, 3], "the entry under the cursor and those below stay unread");
    assert_eq!(status(&s), "Marked 3 entries above the cursor read (u undoes it)");
    assert_eq!(
        update(&mut s, key('u')),
        vec![Effect::write(UserWrite::SetRead { ids: ids([1, 2, 3]), read: false }), Effect::LoadFeeds]
    );
    assert!(read_ids(&s).is_empty());
}

#[test]
fn mark_below_read_marks_only_the_entries_below_the_cursor_leaving_read_ones_out() {
    let mut s = list_of(6, 2);
    s.entries.refs[4].read = true; // entry 5 was read already: undo must not make it unread
    let effects = update(&mut s, key(']'));
    assert_eq!(effects, vec![Effect::write(UserWrite::SetRead { ids: ids([4, 6]), read: true })]);
    assert_eq!(read_ids(&s), [4, 5, 6]);
    update(&mut s, key('u'));
    assert_eq!(read_ids(&s), [5]);
    // At the bottom nothing is below.
    update(&mut s, key('G'));
    assert!(update(&mut s, key(']')).is_empty());
    assert_eq!(status(&s), "Nothing unread below the cursor");
}

#[test]
fn x_marks_entries_one_by_one_and_m_reads_them_all_at_once_and_u_undoes_it() {
    let mut s = list_of(6, 1);
    update(&mut s, key('x')); // 2, and the cursor goes to 3
    update(&mut s, key('j')); // 4
    update(&mut s, key('x'));
    assert_eq!(marked::ids(&s), ids([2, 4]));
    assert!(
        status(&s).starts_with("2 entries marked · m read, s star, O export, E download, | pipe, u undo"),
        "{}",
        status(&s)
    );
    let effects = update(&mut s, key('m'));
    assert_eq!(effects, vec![Effect::write(UserWrite::SetRead { ids: ids([2, 4]), read: true })]);
    assert_eq!(read_ids(&s), [2, 4]);
    assert!(s.entries.marked.is_empty(), "acted on, the marks go");
    assert_eq!(status(&s), "2 entries marked read (u undoes it)");
    assert_eq!(
        update(&mut s, key('u')),
        vec![Effect::write(UserWrite::SetRead { ids: ids([2, 4]), read: false }), Effect::LoadFeeds]
    );
    assert!(read_ids(&s).is_empty());
}

#[test]
fn x_again_unmarks_and_m_on_marked_read_entries_makes_them_unread_undoably() {
    let mut s = list_of(4, 0);
    update(&mut s, key('x'));
    update(&mut s, key('k'));
    update(&mut s, key('x'));
    assert!(s.entries.marked.is_empty(), "x on a marked entry unmarks it");
    s.entries.refs[0].read = true;
    s.entries.refs[1].read = true;
    update(&mut s, key('k'));
    update(&mut s, key('x'));
    update(&mut s, key('x'));
    let effects = update(&mut s, key('m'));
    assert_eq!(effects, vec![Effect::write(UserWrite::SetRead { ids: ids([1, 2]), read: false })]);
    assert!(read_ids(&s).is_empty());
    update(&mut s, key('u'));
    assert_eq!(read_ids(&s), [1, 2], "undo marks them read again");
    assert_eq!(status(&s), "Marked 2 entries read again");
}

#[test]
fn capital_x_marks_the_range_from_the_last_marked_entry_and_s_stars_them_all_undoably() {
    let mut s = list_of(8, 1);
    update(&mut s, key('x')); // 2 marked, cursor on 3
    for _ in 0..3 {
        update(&mut s, key('j'));
    } // cursor on 6
    update(&mut s, key('X'));
    assert_eq!(marked::ids(&s), ids([2, 3, 4, 5, 6]));
    let starred_before = s.feeds.views.starred;
    let effects = update(&mut s, key('s'));
    assert_eq!(effects, vec![Effect::write(UserWrite::SetStarred { ids: ids([2, 3, 4, 5, 6]), starred: true })]);
    assert_eq!(s.feeds.views.starred, starred_before + 5);
    assert_eq!(s.entries.refs.iter().filter(|r| r.starred).count(), 5);
    assert_eq!(
        update(&mut s, key('u')),
        vec![Effect::write(UserWrite::SetStarred { ids: ids([2, 3, 4, 5, 6]), starred: false }), Effect::LoadFeeds]
    );
    assert!(s.entries.refs.iter().all(|r| !r.starred));
}

#[test]
fn mark_by_query_asks_the_store_and_marks_only_what_is_in_the_list() {
    let mut s = list_of(5, 0);
    update(&mut s, key(':'));
    typed(&mut s, "mark title:Entry");
    let effects = update(&mut s, code(KeyCode::Enter));
    let query = "title:Entry".to_string();
    assert_eq!(
        effects,
        vec![Effect::MatchEntries {
            list: ListKey::Feed(FeedId(1)),
            source: ListSource::Feed(FeedId(1)),
            query: query.clone()
        }]
    );
    let found = Ok(ids([2, 4, 77]));
    update(&mut s, Event::Matched { list: ListKey::Feed(FeedId(1)), query: query.clone(), found });
    assert_eq!(marked::ids(&s), ids([2, 4]), "77 is not in this list");
    let said = Err("no such field".to_string());
    update(&mut s, Event::Matched { list: ListKey::Feed(FeedId(1)), query, found: said });
    assert_eq!(status(&s), "Cannot mark by title:Entry: no such field");
    update(&mut s, key(':'));
    typed(&mut s, "unmark");
    update(&mut s, code(KeyCode::Enter));
    assert!(s.entries.marked.is_empty());
}

#[test]
fn the_marks_belong_to_the_list_and_go_when_another_is_shown() {
    let mut s = list_of(3, 0);
    update(&mut s, key('x'));
    assert_eq!(s.entries.marked.len(), 1);
    go_to(&mut s, ListKey::Unread);
    assert!(s.entries.marked.is_empty());
}

#[test]
fn o_exports_the_marked_entries_to_the_folder_typed_and_offers_it_again() {
    let mut s = list_of(4, 0);
    update(&mut s, key('x'));
    update(&mut s, key('x'));
    update(&mut s, key('O'));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("O asks for the folder") };
    assert_eq!(prompt.title, "Export 2 entries marked as Markdown to");
    typed(&mut s, "~/notes");
    let effects = update(&mut s, code(KeyCode::Enter));
    let to = ExportTo::Files { dir: "~/notes".into(), template: "{feed}/{date}-{title}.md".into() };
    assert_eq!(effects, vec![Effect::Export { ids: ids([1, 2]), to }]);
    assert!(s.entries.marked.is_empty());
    // Nothing marked: the entry under the cursor, and the last folder is offered.
    update(&mut s, key('O'));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("O asks for the folder") };
    assert_eq!(prompt.input.text(), "~/notes");
    let effects = update(&mut s, code(KeyCode::Enter));
    assert!(matches!(&effects[..], [Effect::Export { ids: one, .. }] if *one == ids([3])), "{effects:?}");
}

#[test]
fn o_in_the_feed_list_exports_the_whole_list_and_export_takes_a_folder_on_the_command_line() {
    let mut s = list_of(3, 0);
    update(&mut s, key('h'));
    update(&mut s, key(':'));
    typed(&mut s, "export out");
    let effects = update(&mut s, code(KeyCode::Enter));
    assert!(matches!(&effects[..], [Effect::Export { ids: all, .. }] if *all == ids([1, 2, 3])), "{effects:?}");
}

#[test]
fn e_downloads_the_media_of_every_marked_entry_and_the_marks_go() {
    let mut s = list_of(3, 0);
    update(&mut s, key('x'));
    update(&mut s, key('j'));
    update(&mut s, key('x'));
    assert_eq!(update(&mut s, key('E')), vec![Effect::QueueDownloads(ids([1, 3]))]);
    assert!(s.entries.marked.is_empty());
}

#[test]
fn piping_marked_entries_sends_their_markdown_or_their_addresses_to_the_command() {
    let mut s = list_of(3, 0);
    update(&mut s, key('x'));
    update(&mut s, key('x'));
    update(&mut s, key('|'));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("| asks for the command") };
    assert_eq!(prompt.title, "Pipe the 2 marked entries to");
    update(&mut s, code(KeyCode::Tab));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("still asking") };
    assert_eq!(prompt.title, "Pipe the addresses of the 2 marked entries to");
    typed(&mut s, "wc -l");
    let effects = update(&mut s, code(KeyCode::Enter));
    let to = ExportTo::Pipe { words: vec!["wc".into(), "-l".into()], in_terminal: false, addresses: true };
    assert_eq!(effects, vec![Effect::Export { ids: ids([1, 2]), to }]);
    // The text comes back and is piped.
    let text = "https://example.com/1\nhttps://example.com/2\n".to_string();
    let back = Event::ExportedText { words: vec!["wc".into()], in_terminal: false, text: text.clone() };
    assert_eq!(update(&mut s, back), vec![Effect::Pipe { words: vec!["wc".into()], input: text, in_terminal: false }]);
}

#[test]
fn w_without_a_save_command_says_how_to_set_one_for_an_entry_no_server_saves() {
    let mut s = list_of(2, 0);
    let effects = update(&mut s, key('W'));
    assert_eq!(effects, vec![Effect::Export { ids: ids([1]), to: ExportTo::SaveForLater }]);
    // A local feed's entry: for the command, and there is none.
    let local = vec![("https://example.com/entry/1".to_string(), "Entry 1".to_string())];
    assert!(update(&mut s, Event::ToSave { server: vec![], command: local }).is_empty());
    assert!(status(&s).contains("Set save_command in the config"), "{}", status(&s));
}

#[test]
fn w_saves_the_entry_or_every_marked_one_for_later() {
    let mut s = list_of(3, 0);
    s.commands.save_command = true;
    let effects = update(&mut s, key('W'));
    assert_eq!(effects, vec![Effect::Export { ids: ids([1]), to: ExportTo::SaveForLater }]);
    update(&mut s, key('x'));
    update(&mut s, key('x'));
    let effects = update(&mut s, key('W'));
    assert_eq!(effects, vec![Effect::Export { ids: ids([1, 2]), to: ExportTo::SaveForLater }]);
    assert!(s.entries.marked.is_empty());
    // The store's answer: each address and title, control characters out, for the command.
    let read = vec![("https://a.example/\u{1b}[2J".to_string(), "T\u{7}itle\nnext".to_string())];
    let effects = update(&mut s, Event::ToSave { server: vec![], command: read });
    let clean = vec![("https://a.example/".to_string(), "Title next".to_string())];
    assert_eq!(effects, vec![Effect::SaveForLater { entries: clean }]);
}

#[test]
fn w_records_entries_of_a_saving_account_for_the_server_and_hands_the_rest_to_the_command() {
    let mut s = list_of(3, 0);
    s.commands.save_command = true;
    let local = vec![("https://example.com/entry/3".to_string(), "Entry 3".to_string())];
    let effects = update(&mut s, Event::ToSave { server: ids([1, 2]), command: local.clone() });
    assert_eq!(
        effects,
        vec![
            Effect::Write { id: effects_write_id(&effects), write: UserWrite::SaveOnServer { ids: ids([1, 2]) } },
            Effect::SaveForLater { entries: local.clone() },
        ]
    );
    assert!(status(&s).contains("2 entries to be saved on their server at the next sync"), "{}", status(&s));
    // Without a command the server's part is still recorded, and the rest is said.
    s.commands.save_command = false;
    let effects = update(&mut s, Event::ToSave { server: ids([1]), command: local });
    assert_eq!(effects.len(), 1, "{effects:?}");
    assert!(matches!(&effects[0], Effect::Write { write: UserWrite::SaveOnServer { ids: i }, .. } if *i == ids([1])));
    assert!(status(&s).contains("Set save_command"), "{}", status(&s));
}

fn effects_write_id(effects: &[Effect]) -> WriteId {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Write { id, .. } => Some(*id),
            _ => None,
        })
        .expect("a write")
}
