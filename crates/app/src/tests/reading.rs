//! The article: opening, rendering, scrolling, links and the browser, zoom, and messages.

use super::*;

#[test]
fn a_loaded_article_is_rendered_for_the_text_width_and_rerendered_on_resize() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, code(KeyCode::Enter));
    let detail =
        EntryDetail { title: Some("Hello".into()), content_html: Some("<p>body</p>".into()), ..detail_of_entry_10() };
    let effects = update(&mut s, Event::ArticleLoaded { entry_id: EntryId(10), detail: Some(Box::new(detail)) });
    let width = s.article_width();
    assert_eq!(
        effects,
        vec![Effect::RenderArticle { entry_id: EntryId(10), html: "<p>body</p>".into(), width, base: None }]
    );
    let body = render::render_article("<p>body</p>", usize::from(width), None);
    update(&mut s, Event::ArticleRendered { entry_id: EntryId(10), width, body: Ok(body) });
    let view = s.article.view.as_ref().unwrap();
    assert_eq!(view.rendered_width, Some(width));
    assert!(view.lines.iter().any(|l| render::line_text(l) == "body"));
    let effects = update(&mut s, Event::Resize { width: 80, height: 30 });
    assert!(
        matches!(effects.as_slice(), [Effect::RenderArticle { entry_id: EntryId(10), width: w, .. }] if *w != width)
    );
}

#[test]
fn a_renderer_failure_is_shown_instead_of_rendering_forever() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, code(KeyCode::Enter));
    update(&mut s, Event::ArticleLoaded { entry_id: EntryId(10), detail: Some(Box::new(detail_of_entry_10())) });
    let width = s.article_width();
    update(
        &mut s,
        Event::ArticleRendered { entry_id: EntryId(10), width, body: Err("the renderer failed: boom".into()) },
    );
    let view = s.article.view.as_ref().unwrap();
    assert_eq!(view.rendered_width, Some(width));
    let text: String = view.lines.iter().map(render::line_text).collect::<Vec<_>>().join(" ");
    assert!(text.contains("could not be shown") && text.contains("boom"), "{text}");
    assert!(!text.contains("Rendering…"));
}

#[test]
fn a_stale_article_result_is_ignored() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, code(KeyCode::Enter)); // wants 10
    update(&mut s, key('h'));
    update(&mut s, key('j'));
    update(&mut s, code(KeyCode::Enter)); // wants 11
    assert!(update(&mut s, Event::ArticleLoaded { entry_id: EntryId(10), detail: None }).is_empty());
    assert!(s.article.view.is_none());
    assert_eq!(s.article.wanted, Some(EntryId(11)));
}

#[test]
fn moving_to_another_feed_clears_an_article_from_elsewhere() {
    let mut s = loaded();
    open_article(&mut s, None, "<p>x</p>");
    assert!(s.article.view.is_some());
    update(&mut s, key('h'));
    update(&mut s, key('h'));
    update(&mut s, key('j')); // the News folder: feed 1's article does not belong there
    assert!(s.article.view.is_none(), "the article pane shows nothing from another list");
    update(&mut s, key('k')); // back to feed 1: nothing is open until an entry is opened again
    assert!(s.article.view.is_none());
}

#[test]
fn ctrl_z_asks_to_suspend_and_ctrl_f_is_not_f() {
    let mut s = loaded();
    assert_eq!(update(&mut s, ctrl('z')), vec![Effect::Suspend]);
    open_article(&mut s, None, "<p><a href=\"/a\">a</a></p>");
    update(&mut s, ctrl('f'));
    assert!(s.dialog.is_none(), "Ctrl-F does not open the link prompt");
    update(&mut s, key('f'));
    assert!(matches!(s.dialog, Some(Dialog::Prompt(_))));
}

#[test]
fn i_opens_the_feed_info_which_arrives_later() {
    let mut s = loaded();
    assert_eq!(update(&mut s, key('i')), vec![Effect::LoadFeedInfo(FeedId(1))]);
    assert!(matches!(&s.dialog, Some(Dialog::Info(info)) if info.feed_id == FeedId(1) && info.info.is_none()));
    update(&mut s, Event::FeedInfoLoaded { feed_id: FeedId(2), info: None });
    assert!(s.dialog.is_some(), "info for another feed is ignored");
    update(&mut s, code(KeyCode::Esc));
    assert!(s.dialog.is_none());
}

#[test]
fn o_opens_the_entry_and_f_follows_a_numbered_link() {
    let mut s = loaded();
    let html = "<p><a href=\"/a\">a</a> <a href=\"javascript:x()\">js</a></p>";
    open_article(&mut s, Some("https://site.example/post"), html);
    assert_eq!(
        update(&mut s, key('o')),
        vec![Effect::Open { url: "https://site.example/post".into(), kind: OpenKind::Page }]
    );
    // Two links: a digit can only mean one of them, so it opens without Enter.
    update(&mut s, key('f'));
    assert_eq!(
        update(&mut s, key('1')),
        vec![Effect::Open { url: "https://site.example/a".into(), kind: OpenKind::Page }]
    );
    assert!(s.dialog.is_none());
    update(&mut s, key('f'));
    assert!(update(&mut s, key('2')).is_empty());
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the prompt stays open") };
    assert!(prompt.error.as_deref().unwrap().contains("never opens"));
    update(&mut s, code(KeyCode::Backspace));
    assert!(update(&mut s, key('9')).is_empty());
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the prompt stays open") };
    assert!(prompt.error.as_deref().unwrap().contains("1 to 2"), "out of range says so at once");
    assert_eq!(prompt.input.text(), "", "and the digit does not go in");
    update(&mut s, code(KeyCode::Backspace));
    update(&mut s, key('x'));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the prompt stays open") };
    assert_eq!(prompt.input.text(), "", "only digits go in");
    assert!(prompt.error.as_deref().unwrap().contains("a number"));
}

#[test]
fn keys_typed_ahead_of_an_article_act_on_it_not_on_the_one_before() {
    let mut s = loaded();
    open_article(&mut s, Some("https://site.example/ten"), "<p><a href=\"/a\">a</a></p>");
    update(&mut s, key('h'));
    update(&mut s, key('j'));
    // Enter and the next keys in one read: entry 11 is asked for, entry 10 still on screen.
    update(&mut s, code(KeyCode::Enter));
    assert_eq!(s.article.wanted, Some(EntryId(11)));
    assert_eq!(
        update(&mut s, key('o')),
        vec![Effect::Open { url: "https://example.com/entry/11".into(), kind: OpenKind::Page }],
        "o opens the entry being opened, not the one shown"
    );
    assert!(update(&mut s, key('f')).is_empty());
    assert!(s.dialog.is_none(), "no link of entry 10 is offered");
    assert!(s.status.current(s.clock.now).unwrap().text.contains("still loading"));
    assert!(update(&mut s, key('t')).is_empty(), "no fetch of entry 10's page");
    assert_eq!(
        update(&mut s, key('m')),
        vec![Effect::write(UserWrite::SetRead { ids: vec![EntryId(11)], read: false })]
    );
    // It arrives, but its body (and so its links) is still rendering: f still waits.
    update(
        &mut s,
        Event::ArticleLoaded {
            entry_id: EntryId(11),
            detail: Some(Box::new(EntryDetail { id: EntryId(11), ..detail_of_entry_10() })),
        },
    );
    assert!(update(&mut s, key('f')).is_empty());
    assert!(s.dialog.is_none());
    let width = s.article_width();
    let body = render::render_article("<p><a href=\"/l\">l</a></p>", usize::from(width), None);
    update(&mut s, Event::ArticleRendered { entry_id: EntryId(11), width, body: Ok(body) });
    assert!(s.status.current(s.clock.now).is_none(), "'still loading' goes once it is on screen");
    update(&mut s, key('f'));
    assert!(matches!(s.dialog, Some(Dialog::Prompt(_))), "and f offers its link");
}

#[test]
fn an_article_that_cannot_be_read_says_why_and_keys_act_on_the_one_shown_again() {
    let mut s = loaded();
    open_article(&mut s, Some("https://site.example/ten"), "<p>x</p>");
    update(&mut s, key('h'));
    update(&mut s, key('j'));
    update(&mut s, code(KeyCode::Enter));
    update(
        &mut s,
        Event::ArticleFailed { entry_id: EntryId(11), message: "cannot read the entry: disk I/O error".into() },
    );
    assert_eq!(s.article.wanted, None);
    assert!(s.status.current(s.clock.now).is_some_and(|m| m.error && m.text.contains("disk I/O error")));
    assert_eq!(
        update(&mut s, key('o')),
        vec![Effect::Open { url: "https://site.example/ten".into(), kind: OpenKind::Page }]
    );
}

#[test]
fn going_from_a_feed_to_all_keeps_the_open_article_under_the_cursor() {
    let mut s = loaded();
    open_article(&mut s, None, "<p>x</p>");
    assert_eq!(s.article.view.as_ref().map(|v| v.detail.id), Some(EntryId(10)));
    update(&mut s, key('h'));
    update(&mut s, key('h'));
    assert_eq!(row(&s, ListKey::All), 0);
    let effects = update(&mut s, key('g'));
    assert_eq!(
        effects,
        vec![Effect::LoadEntries { list: ListKey::All, source: ListSource::All, order: None, keep: Some(EntryId(10)) }]
    );
    let all = vec![entry(30, 3, false), entry(20, 2, false), entry(11, 1, false), entry(10, 1, false)];
    let (order, seen) = ((s.entries.sort, false), s.saving.last_issued());
    let loaded =
        Event::EntriesLoaded { list: ListKey::All, refs: refs(&all), rows: all, order, keep: Some(EntryId(10)), seen };
    update(&mut s, loaded);
    assert_eq!(s.entries.selected_ref().map(|r| r.id), Some(EntryId(10)), "the list shows which entry is open");
    assert!(s.article.view.is_some());
}

#[test]
fn with_twelve_links_f_1_waits_for_a_second_digit_or_enter_and_f_3_opens_at_once() {
    let mut s = loaded();
    let html: String = (1..=12).map(|i| format!("<p><a href=\"/l{i}\">link {i}</a></p>")).collect();
    open_article(&mut s, Some("https://site.example/post"), &html);
    let opened = |n: usize| vec![Effect::Open { url: format!("https://site.example/l{n}"), kind: OpenKind::Page }];
    update(&mut s, key('f'));
    assert_eq!(update(&mut s, key('3')), opened(3));
    update(&mut s, key('f'));
    assert!(update(&mut s, key('1')).is_empty(), "1 may be the start of 10, 11 or 12");
    assert_eq!(update(&mut s, key('2')), opened(12));
    update(&mut s, key('f'));
    update(&mut s, key('1'));
    assert_eq!(update(&mut s, code(KeyCode::Enter)), opened(1));
}

#[test]
fn o_in_the_entry_list_opens_the_selected_entry_and_marks_it_read() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, key('j'));
    let effects = update(&mut s, key('o'));
    assert_eq!(
        effects,
        vec![
            Effect::Open { url: "https://example.com/entry/11".into(), kind: OpenKind::Page },
            Effect::write(UserWrite::SetRead { ids: vec![EntryId(11)], read: true })
        ]
    );
    assert!(s.entries.refs[1].read);
}

#[test]
fn an_entry_link_that_is_not_a_web_address_is_never_opened() {
    let mut s = loaded();
    open_article(&mut s, Some("javascript:alert(1)"), "<p>x</p>");
    assert!(update(&mut s, key('o')).is_empty());
    assert!(s.status.current(s.clock.now).unwrap().text.contains("not opening"));
}

#[test]
fn entries_for_a_list_no_longer_selected_are_dropped() {
    let mut s = loaded();
    update(&mut s, key('j'));
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(99, 1, false)]);
    assert!(s.entries.refs.is_empty());
}

#[test]
fn space_scrolls_the_article_within_bounds() {
    let mut s = loaded();
    let html: String = (0..200).map(|i| format!("<p>line {i}</p>")).collect();
    open_article(&mut s, None, &html);
    update(&mut s, key(' '));
    let page = s.article.view.as_ref().unwrap().scroll;
    assert!(page > 10);
    for _ in 0..100 {
        update(&mut s, key(' '));
    }
    let view = s.article.view.as_ref().unwrap();
    let max = view.lines.len() - s.article_height();
    assert_eq!(view.scroll, max);
    update(&mut s, key('b'));
    assert_eq!(s.article.view.as_ref().unwrap().scroll, max - page);
}

#[test]
fn zoom_shows_the_focused_pane_alone_and_renders_the_article_for_its_width() {
    let mut s = loaded();
    open_article(&mut s, None, "<p>x</p>");
    let before = s.article_width();
    let effects = update(&mut s, key('z'));
    assert!(s.zoom);
    assert!(s.screen().feeds.is_none() && s.screen().entries.is_none());
    assert!(
        matches!(effects.as_slice(), [Effect::RenderArticle { width, .. }] if *width > before || before == s.text_column.max_width)
    );
    update(&mut s, key('z'));
    assert!(!s.zoom);
}

#[test]
fn the_message_log_keeps_messages_in_full() {
    let mut s = loaded();
    let long = format!("a very long error {}", "x".repeat(500));
    update(&mut s, Event::Error(long.clone()));
    update(&mut s, key('L'));
    let Some(Dialog::Report(report)) = &s.dialog else { panic!("the log opens") };
    assert!(report.lines.iter().any(|l| l.ends_with(&long)));
}

#[test]
fn messages_expire() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, key('m'));
    let now = s.clock.now;
    assert_eq!(s.status.current(now).unwrap().text, "Marked read");
    update(&mut s, Event::Tick(now + status::INFO_SECS));
    assert!(s.status.current(s.clock.now).is_none());
}

#[test]
fn adding_a_site_with_one_feed_subscribes_into_the_folder_under_the_cursor() {
    let mut s = loaded();
    update(&mut s, key('j')); // the News folder
    update(&mut s, key('a'));
    typed(&mut s, "site.example");
    assert_eq!(update(&mut s, code(KeyCode::Enter)), vec![Effect::Discover { request: 0, url: "site.example".into() }]);
    assert!(s.status.current(s.clock.now).unwrap().text.starts_with("Looking for feeds"));
    let discovery = Discovery {
        url: "https://site.example".into(),
        feeds: vec![found("https://site.example/feed", "Site")],
        ..Default::default()
    };
    let effects = update(&mut s, Event::Discovered { request: 0, discovery: Box::new(discovery) });
    assert_eq!(
        effects,
        vec![Effect::write(UserWrite::AddFeed(NewFeed {
            url: "https://site.example/feed".into(),
            title: Some("Site".into()),
            name: None,
            site_url: None,
            folder: vec!["News".into()],
        }))]
    );
    let id = s.saving.last_issued();
    let effects =
        update(&mut s, Event::Written { id, outcome: Ok(Applied::Subscribed { feed_id: FeedId(9), added: true }) });
    assert_eq!(effects, vec![Effect::LoadFeeds, refresh(0, vec![9], true)]);
    assert_eq!(s.feeds.select_when_loaded, Some(ListKey::Feed(FeedId(9))));
    // The list read again has it: the cursor goes to it, so that what comes next (rename, move) is about it.
    let mut feeds = vec![feed(1, "One", 2, None), feed(2, "Two", 0, Some((7, "News")))];
    feeds.extend([feed(9, "Site", 0, Some((7, "News"))), feed(3, "Three", 1, Some((7, "News")))]);
    feeds_loaded(&mut s, feeds.clone(), vec![news()]);
    assert_eq!(s.feeds.selected_list(), Some(ListKey::Feed(FeedId(9))));
    assert_eq!(s.focus, Pane::Feeds);
    update(&mut s, key('c'));
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the rename prompt") };
    assert_eq!(prompt.input.text(), "Site", "renaming the feed just added");
}

#[test]
fn two_adds_in_flight_each_keep_their_own_folder_and_result() {
    let mut s = loaded();
    update(&mut s, key('j')); // News
    update(&mut s, key('a'));
    typed(&mut s, "a.example");
    update(&mut s, code(KeyCode::Enter)); // request 0, into News
    update(&mut s, key('g')); // the top level
    update(&mut s, key('a'));
    typed(&mut s, "b.example");
    update(&mut s, code(KeyCode::Enter)); // request 1, top level
    let answer =
        |url: &str, feed: &str| Discovery { url: url.into(), feeds: vec![found(feed, feed)], ..Default::default() };
    let b = update(
        &mut s,
        Event::Discovered { request: 1, discovery: Box::new(answer("https://b.example", "https://b.example/feed")) },
    );
    assert_eq!(
        b,
        vec![Effect::write(UserWrite::AddFeed(NewFeed {
            url: "https://b.example/feed".into(),
            title: Some("https://b.example/feed".into()),
            name: None,
            site_url: None,
            folder: vec![],
        }))]
    );
    let a = update(
        &mut s,
        Event::Discovered { request: 0, discovery: Box::new(answer("https://a.example", "https://a.example/feed")) },
    );
    assert_eq!(
        a,
        vec![Effect::write(UserWrite::AddFeed(NewFeed {
            url: "https://a.example/feed".into(),
            title: Some("https://a.example/feed".into()),
            name: None,
            site_url: None,
            folder: vec!["News".into()],
        }))]
    );
    assert!(
        update(&mut s, Event::Discovered { request: 0, discovery: Box::default() }).is_empty(),
        "an answer comes once"
    );
}

#[test]
fn n_crosses_to_the_next_feed_with_unread_entries_in_one_press_and_p_goes_back() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, key('n')); // entry 10
    update(&mut s, key('n')); // entry 11, the last unread of feed 1
    assert_eq!(s.article.wanted, Some(EntryId(11)));
    // Feed 2 has nothing unread; the folder News is open, so Three (1 unread) is next.
    let effects = update(&mut s, key('n'));
    assert_eq!(effects, vec![load(ListKey::Feed(FeedId(3)), ListSource::Feed(FeedId(3)))]);
    assert_eq!(s.feeds.selected_list(), Some(ListKey::Feed(FeedId(3))), "the selection follows");
    let effects = entries_loaded(&mut s, ListKey::Feed(FeedId(3)), vec![entry(30, 3, true), entry(31, 3, false)]);
    assert_eq!(effects[0], Effect::LoadArticle(EntryId(31)), "its first unread entry opens as it arrives");
    assert_eq!(s.entries.cursor.index, 1);
    // Nothing unread left after it: n wraps round to feed 1, which has none left either, and stops.
    let effects = update(&mut s, key('n'));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(s.status.current(s.clock.now).unwrap().text, "No unread entries");
    // p walks back: mark 10 unread again and go back to it from feed 3.
    s.feeds.feed_mut(FeedId(1)).unwrap().unread = 1;
    s.feeds.rebuild_rows();
    assert_eq!(update(&mut s, key('p')), vec![load(ListKey::Feed(FeedId(1)), ListSource::Feed(FeedId(1)))]);
    let effects = entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false), entry(11, 1, true)]);
    assert_eq!(effects[0], Effect::LoadArticle(EntryId(10)), "p opens the last unread entry of the feed before");
}

#[test]
fn a_link_tidings_does_not_open_says_what_kind_it_is() {
    let mut s = loaded();
    let html = "<p><a href=\"javascript:alert(1)\">a</a> <a href=\"data:text/html,<b>x</b>\">b</a> \
                <a href=\"file:///etc/passwd\">c</a> <a href=\"gopher://old.example/\">d</a></p>";
    open_article(&mut s, None, html);
    let said = |s: &mut State, n: &str| article::follow_link(s, n).unwrap_err();
    assert!(said(&mut s, "1").contains("is a script"));
    assert!(said(&mut s, "2").contains("(data:), which tidings does not open"), "{}", said(&mut s, "2"));
    assert!(said(&mut s, "3").contains("a file on this computer (file:)"), "{}", said(&mut s, "3"));
    assert!(said(&mut s, "4").contains("does not open gopher: links"), "{}", said(&mut s, "4"));
}

#[test]
fn a_feed_added_in_an_account_folder_syncs_that_account_at_once() {
    let mut s = loaded();
    s.sync.accounts = vec!["FreshRSS".into()];
    let folder = ["FreshRSS".to_string(), "News".to_string()];
    let effects = subscriptions::on_feed_added(&mut s, FeedId(9), true, "Delta".into(), &folder);
    assert_eq!(effects, vec![Effect::LoadFeeds, Effect::Sync(vec!["FreshRSS".into()])]);
    assert!(s.status.current(s.clock.now).unwrap().text.contains("Delta on FreshRSS"));
    // A local folder's feed is fetched, as ever.
    let effects = subscriptions::on_feed_added(&mut s, FeedId(10), true, "Local".into(), &["News".into()]);
    assert_eq!(effects, vec![Effect::LoadFeeds, refresh(0, vec![10], true)]);
}
