//! The reader end to end: a loopback server, a real SQLite file, the real runtime and UI on ratatui's
//! TestBackend. Keys go in through the same inbox the terminal uses.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::Duration;
use support::server::{Reply, Server};
use support::{Sandbox, atom, opml, rss, screen};
use tidings::app::dialogs::Dialog;
use tidings::app::{Event, FeedListRow, Pane, State};
use tidings::config::Config;
use tidings::runtime::{NoHost, Options, Reader};

const WAIT: Duration = Duration::from_secs(20);

fn key(app: &mut Reader, code: KeyCode) {
    app.dispatch(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn draw(app: &Reader, terminal: &mut Terminal<TestBackend>) -> String {
    app.draw(terminal).unwrap();
    screen(terminal.backend())
}

/// The rows of the feeds pane, inside its borders, trimmed.
fn feeds_pane(terminal: &Terminal<TestBackend>) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    let area = tidings::app::layout::screen(buffer.area.width, buffer.area.height, Pane::Feeds, false, true).feeds;
    let area = area.unwrap();
    (area.y + 1..area.y + area.height - 1)
        .map(|y| {
            (area.x + 1..area.x + area.width - 1)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

/// The feeds pane row showing `text`.
fn feed_row(terminal: &Terminal<TestBackend>, text: &str) -> String {
    let rows = feeds_pane(terminal);
    rows.iter()
        .find(|r| r.contains(text))
        .cloned()
        .unwrap_or_else(|| panic!("{text} is not in the feeds pane: {rows:#?}"))
}

/// Moves the feed cursor to the feed titled `title`.
fn select_feed(app: &mut Reader, title: &str) {
    while app.state.focus != Pane::Feeds {
        key(app, KeyCode::Char('h'));
    }
    key(app, KeyCode::Char('g'));
    let row = app
        .state
        .feeds
        .rows
        .iter()
        .position(|r| matches!(r, FeedListRow::Feed { index, .. } if app.state.feeds.feeds[*index].title == title))
        .unwrap_or_else(|| panic!("no feed titled {title}"));
    for _ in 0..row {
        key(app, KeyCode::Char('j'));
    }
}

fn all_fetched(s: &State) -> bool {
    s.feeds.loaded
        && s.progress.is_idle()
        && !s.feeds.feeds.is_empty()
        && s.feeds.feeds.iter().all(|f| f.last_fetched_at.is_some())
}

struct World {
    server: Server,
    sandbox: Sandbox,
}

fn world() -> World {
    let server = Server::start();
    server.route(
        "/one.xml",
        Reply::ok(
            "application/rss+xml",
            rss(
                "Feed One",
                &[
                    ("a1", "Alpha arrives", "<p>The <b>alpha</b> body text.</p>"),
                    ("a2", "Beta follows", "<p>Second body.</p>"),
                    ("a3", "Gamma last", "<p>Third body.</p>"),
                ],
            ),
        )
        .with_header("ETag", "\"one-v1\""),
    );
    server.route(
        "/two.atom",
        Reply::ok(
            "application/atom+xml",
            atom("Feed Two", &[("t1", "Tau entry", "<p>Atom body.</p>"), ("t2", "Upsilon", "<p>x</p>")]),
        ),
    );
    server.route(
        "/page.html",
        Reply::ok("text/html", "<!DOCTYPE html><html><head><title>A page</title></head><body>hi</body></html>"),
    );
    // /missing.xml is not routed: 404.
    let sandbox = Sandbox::new();
    let list = opml(&[
        (None, "One", &server.url("/one.xml")),
        (Some("Folder"), "Two", &server.url("/two.atom")),
        (None, "Missing", &server.url("/missing.xml")),
        (None, "Page", &server.url("/page.html")),
    ]);
    let file = sandbox.write("subs.opml", list);
    let report = tidings::import::import_file(&sandbox.db(), &file).unwrap();
    assert_eq!(report.added.len(), 4);
    World { server, sandbox }
}

fn options(w: &World, refresh_on_startup: bool) -> Options {
    Options {
        db: w.sandbox.db(),
        config: Config { refresh_on_startup, ..Config::default() },
        notice: None,
        report: vec![],
        size: (140, 30),
        zone: tidings::clock::Zone::utc(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_refresh_read_an_entry_and_see_errors_per_feed() {
    let w = world();
    let mut app = Reader::new(options(&w, true)).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();

    // The feeds pane lists every feed, by the name the OPML file gave it (the feed calls itself "Feed One"), with
    // its unread count; the two bad ones carry an error marker.
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("Feeds · 5 unread"), "the pane's title sums the unread entries:\n{shown}");
    assert!(feed_row(&terminal, "One").ends_with(" 3"), "{}", feed_row(&terminal, "One"));
    assert!(feed_row(&terminal, "Two").ends_with(" 2"));
    assert!(feed_row(&terminal, "▾ Folder").ends_with(" 2"), "the folder shows its unread sum");
    assert!(feed_row(&terminal, "Missing").starts_with("! "), "{}", feed_row(&terminal, "Missing"));
    assert!(feed_row(&terminal, "Page").starts_with("! "));
    assert!(!feed_row(&terminal, "One").starts_with("!"));

    // Each bad feed has its own error, and the good ones loaded.
    let by_title = |t: &str| app.state.feeds.feeds.iter().find(|f| f.title == t).unwrap().clone();
    assert!(by_title("Missing").last_error.as_deref().unwrap().contains("HTTP 404"));
    assert!(
        by_title("Page").last_error.as_deref().unwrap().contains("press a and give the page's address"),
        "the reader names its own key"
    );
    assert_eq!(by_title("One").last_error, None);

    // Open the second entry of One.
    select_feed(&mut app, "One");
    app.run_until(WAIT, |s| s.entries.len() == 3).await.unwrap();
    key(&mut app, KeyCode::Char('l'));
    assert_eq!(app.state.focus, Pane::Entries);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.article.view.as_ref().is_some_and(|a| a.rendered_width.is_some())).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("Beta follows"), "{shown}");
    assert!(app.state.entries.refs[1].read);
    assert!(shown.contains("Second body."), "the article pane shows the entry's text:\n{shown}");
    assert!(feed_row(&terminal, "One").ends_with(" 2"), "opening an entry drops the unread count");
    assert!(shown.contains("Feeds · 4 unread"), "and the total with it");

    // The entry is read in the database.
    app.flush_writes().await.unwrap();
    let conn = rusqlite::Connection::open(w.sandbox.db()).unwrap();
    let read: bool = conn.query_row("SELECT read FROM entries WHERE title = 'Beta follows'", [], |r| r.get(0)).unwrap();
    assert!(read);
    let unread: i64 = conn.query_row("SELECT count(*) FROM entries WHERE read = 0", [], |r| r.get(0)).unwrap();
    assert_eq!(unread, 4);

    // The 404 feed shows its error where its entries would be.
    select_feed(&mut app, "Missing");
    app.run_until(WAIT, |s| s.entries.loaded).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("Last refresh failed"), "{shown}");
    assert!(shown.contains("HTTP 404"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_refresh_stores_validators_and_the_second_sends_them() {
    let w = world();
    let mut app = Reader::new(options(&w, true)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    assert_eq!(w.server.requests_for("/one.xml").len(), 1);
    assert_eq!(w.server.requests_for("/one.xml")[0].header("if-none-match"), None);

    key(&mut app, KeyCode::Char('R'));
    assert!(!app.state.progress.is_idle());
    app.run_until(WAIT, |s| s.progress.is_idle() && s.status.log.iter().any(|m| m.text.starts_with("Refreshed")))
        .await
        .unwrap();
    let second = &w.server.requests_for("/one.xml")[1];
    assert_eq!(second.header("if-none-match"), Some("\"one-v1\""));
    assert!(second.header("user-agent").unwrap().starts_with("tidings/"));
    // A 304 adds nothing and keeps the counts.
    assert_eq!(app.state.feeds.feeds.iter().find(|f| f.title == "One").unwrap().unread, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_entries_show_at_once_with_no_network() {
    let w = world();
    {
        let mut app = Reader::new(options(&w, true)).unwrap();
        app.start();
        app.run_until(WAIT, all_fetched).await.unwrap();
    }
    let World { server, sandbox } = w;
    drop(server);
    let w2 = Options {
        db: sandbox.db(),
        config: Config { refresh_on_startup: false, ..Config::default() },
        notice: None,
        report: vec![],
        size: (140, 30),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(w2).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds.loaded && !s.entries.is_empty()).await.unwrap();
    assert!(app.state.progress.is_idle(), "no refresh was started");
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("Alpha arrives"), "{shown}");
    assert!(shown.contains("Gamma last"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_lists_every_key_of_the_keymap_and_resizing_reflows_the_screen() {
    let w = world();
    let mut app = Reader::new(options(&w, false)).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds.loaded).await.unwrap();
    key(&mut app, KeyCode::Char('?'));
    // Scroll through the whole help: every binding of the keymap is shown somewhere.
    let mut seen = String::new();
    for _ in 0..40 {
        seen.push_str(&draw(&app, &mut terminal));
        key(&mut app, KeyCode::PageDown);
    }
    let words = seen.split_whitespace().collect::<Vec<_>>().join(" ");
    for (_, keys, what) in app.state.keymap.help_rows() {
        assert!(words.contains(&keys), "help lists {keys}");
        assert!(words.contains(&what.split_whitespace().collect::<Vec<_>>().join(" ")), "help explains {what}");
    }
    key(&mut app, KeyCode::Char('?'));
    assert!(app.state.dialog.is_none());

    // At 140 columns the two lists, the entry list in the article's room until one is open (the three panes
    // are drawn in the test above); at 60 only the pane with the focus, filling the screen.
    let wide = draw(&app, &mut terminal);
    assert!(wide.contains("Feeds") && !wide.contains("Article"), "{wide}");
    terminal.backend_mut().resize(60, 20);
    app.dispatch(Event::Resize { width: 60, height: 20 });
    let narrow = draw(&app, &mut terminal);
    assert_eq!(narrow.lines().count(), 20);
    assert!(narrow.lines().all(|l| l.chars().count() == 60));
    assert!(narrow.contains("Feeds") && !narrow.contains("Article"), "one pane at 60 columns:\n{narrow}");
    let top = narrow.lines().next().unwrap();
    let corners = top.chars().filter(|c| matches!(c, '┏' | '┌')).count();
    assert_eq!(corners, 1, "one pane across the whole width: {top}");
    assert!(top.ends_with('┓') || top.ends_with('┐'), "the feeds pane spans the whole width: {top}");
}

/// A Russian feed in windows-1251 whose server claims KOI8-R: every byte is valid KOI8-R, so only a person can
/// tell the text is wrong, and forcing the encoding must fix it.
fn mislabelled_cyrillic() -> Vec<u8> {
    let xml = "<?xml version=\"1.0\" encoding=\"windows-1251\"?><rss version=\"2.0\"><channel><title>Новости дня</title>\
               <item><guid>n1</guid><title>Правительство обсудило бюджет</title><description>Текст</description></item>\
               </channel></rss>";
    encoding_rs::WINDOWS_1251.encode(xml).0.into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_info_explains_the_decoding_and_a_forced_encoding_fixes_the_text() {
    let server = Server::start();
    server.route(
        "/cyr.xml",
        Reply::Ok {
            status: 200,
            headers: vec![("Content-Type".into(), "text/xml; charset=koi8-r".into()), ("ETag".into(), "\"c1\"".into())],
            body: mislabelled_cyrillic(),
        },
    );
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Cyr", &server.url("/cyr.xml"))]));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let options = Options {
        db: sandbox.db(),
        config: Config::default(),
        notice: None,
        report: vec![],
        size: (140, 30),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(options).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    app.run_until(WAIT, |s| !s.entries.is_empty()).await.unwrap();
    // The feed list is read again after the refresh, with what decoding decided.
    app.run_until(WAIT, |s| s.feeds.feeds[0].encoding_overridden).await.unwrap();
    let garbled = app.state.entries.row(0).unwrap().title.clone().unwrap();
    assert_ne!(garbled, "Правительство обсудило бюджет", "the server's KOI8-R is taken at its word");
    draw(&app, &mut terminal);
    // Below the three smart views, the one feed's row.
    assert!(
        feeds_pane(&terminal)[3].starts_with("~ "),
        "the overridden declaration is marked: {:?}",
        feeds_pane(&terminal)
    );

    // The feed-info view of the feed says what happened.
    while app.state.feeds.selected_feed().is_none() {
        key(&mut app, KeyCode::Char('j'));
    }
    app.run_until(WAIT, |s| s.entries.loaded && !s.entries.is_empty()).await.unwrap();
    key(&mut app, KeyCode::Char('i'));
    app.run_until(WAIT, |s| matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.is_some())).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(
        shown.contains("KOI8-R from the HTTP charset; the XML declaration said windows-1251 and was overridden"),
        "{shown}"
    );

    // Force windows-1251 from the feed-info view; the next refresh re-reads the feed and fixes the entry.
    key(&mut app, KeyCode::Char('e'));
    for c in "windows-1251".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert!(app.state.dialog.is_none());
    app.run_until(WAIT, |s| {
        s.progress.is_idle()
            && s.entries.row(0).and_then(|e| e.title.as_deref()) == Some("Правительство обсудило бюджет")
    })
    .await
    .unwrap();
    assert_eq!(app.state.entries.len(), 1, "the entry was updated in place, not duplicated");
    let second = &server.requests_for("/cyr.xml")[1];
    assert_eq!(second.header("if-none-match"), None, "forcing an encoding downloads the feed again");
    key(&mut app, KeyCode::Char('i'));
    app.run_until(WAIT, |s| matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.is_some())).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("windows-1251 from the encoding forced for this feed"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_a_site_pick_one_of_its_feeds_then_delete_it() {
    let server = Server::start();
    server.route(
        "/site/",
        Reply::ok(
            "text/html",
            r#"<html><head><link rel="alternate" type="application/rss+xml" href="/site/posts.xml">
               <link rel="alternate" type="application/atom+xml" href="/site/notes.atom"></head><body>hi</body></html>"#,
        ),
    );
    server.route(
        "/site/posts.xml",
        Reply::ok("application/rss+xml", rss("Site Posts", &[("p1", "Post one", "<p>1</p>")])),
    );
    server.route(
        "/site/notes.atom",
        Reply::ok("application/atom+xml", atom("Site Notes", &[("n1", "Note one", "<p>n</p>")])),
    );
    let sandbox = Sandbox::new();
    let options = Options {
        db: sandbox.db(),
        config: Config::default(),
        notice: None,
        report: vec![],
        size: (140, 30),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(options).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds.loaded).await.unwrap();
    assert!(draw(&app, &mut terminal).contains("No feeds yet"));

    key(&mut app, KeyCode::Char('a'));
    for c in server.url("/site/").chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert!(draw(&app, &mut terminal).contains("Looking for feeds"));
    app.run_until(WAIT, |s| matches!(s.dialog, Some(Dialog::Picker(_)))).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("1. Site Posts (rss2)") && shown.contains("2. Site Notes (atom)"), "{shown}");

    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.feeds.feeds.len() == 1 && s.progress.is_idle() && !s.entries.is_empty()).await.unwrap();
    draw(&app, &mut terminal);
    assert!(feed_row(&terminal, "Site Notes").ends_with(" 1"), "subscribed and refreshed: {:?}", feeds_pane(&terminal));

    key(&mut app, KeyCode::Char('D'));
    assert!(draw(&app, &mut terminal).contains("Unsubscribe from Site Notes?"));
    key(&mut app, KeyCode::Char('y'));
    app.run_until(WAIT, |s| s.feeds.feeds.is_empty()).await.unwrap();
    app.flush_writes().await.unwrap();
    let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
    let (feeds, entries): (i64, i64) = conn
        .query_row("SELECT (SELECT count(*) FROM feeds), (SELECT count(*) FROM entries)", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((feeds, entries), (0, 0), "the feed and its entries are gone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_report_opens_over_the_panes() {
    let w = world();
    let options = Options {
        report: vec![
            "Imported subs.opml".into(),
            "failed      1".into(),
            "  gopher://x: unsupported URL scheme".into(),
        ],
        ..options(&w, false)
    };
    let mut app = Reader::new(options).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds.loaded).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("gopher://x: unsupported URL scheme"), "{shown}");
    key(&mut app, KeyCode::Esc);
    assert!(app.state.dialog.is_none());
}

/// The real terminal loop, on a TestBackend, with keys sent through the inbox as the terminal would: it must
/// answer them, and quit, while a feed's answer is held back by the server. A refresh that blocked the loop
/// would keep the `q` from being read until the gate opens, and the deadline would fail the test.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_loop_answers_keys_and_quits_while_a_refresh_waits_on_the_network() {
    use crossterm::event::KeyModifiers;
    let w = world();
    let gate = support::server::Gate::default();
    w.server.route("/one.xml", Reply::Held(gate.clone(), Box::new(Reply::ok("application/rss+xml", rss("Slow", &[])))));
    let mut app = Reader::new(options(&w, true)).unwrap();
    let inbox = app.sender();
    let reader = tokio::spawn(async move {
        let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
        let mut host = NoHost::default();
        let result = tokio::time::timeout(WAIT, app.run(&mut terminal, &mut host)).await;
        (app, terminal, host, result)
    });
    // Wait until the held feed is being fetched (its request reached the server).
    let deadline = std::time::Instant::now() + WAIT;
    while w.server.requests_for("/one.xml").is_empty() {
        assert!(std::time::Instant::now() < deadline, "the refresh never asked for the held feed");
        tokio::task::yield_now().await;
    }
    for c in ['j', '?'] {
        inbox.send(Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))).unwrap();
    }
    inbox.send(Event::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL))).unwrap();
    inbox.send(Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))).unwrap();
    let (app, _terminal, host, result) = reader.await.unwrap();
    let first = app.state.feeds.row_of(tidings::app::ListKey::Unread).unwrap();
    let still_held = !app.state.progress.is_idle();
    gate.open();
    result.expect("the loop ended within the deadline").unwrap();
    assert!(app.state.quit);
    assert!(still_held, "the held feed had not answered when the loop quit");
    assert_eq!(app.state.feeds.cursor.index, first + 1, "j moved the cursor");
    assert!(matches!(app.state.dialog, Some(Dialog::Help { .. })), "? opened the help");
    assert_eq!(host.suspended, 1, "Ctrl-Z reached the terminal, from the help");
    // The title is set with each frame, from the count then: the last one set is the final count's, unless that
    // count arrived in the same burst as the quit (then it was never drawn, nor put in the title). The counts
    // here only grow, so a final count's title seen earlier than last would be a title left behind.
    let title_for = |n: i64| if n == 0 { "tidings".to_string() } else { format!("tidings ({n} unread)") };
    let last = title_for(app.state.feeds.views.unread);
    let titles = &host.titles;
    assert!(!titles.is_empty(), "a title was set once the feeds were known");
    assert!(titles.last() == Some(&last) || !titles.contains(&last), "the window title follows the count: {titles:?}");
    assert!(
        titles.iter().all(|t| t == "tidings" || (t.starts_with("tidings (") && t.ends_with(" unread)"))),
        "{titles:?}"
    );
}

/// Search through the real reader: `/`, words, Enter, right after the refresh that brought the entry; the
/// Search view lists what matches, from every feed and folder; opening one marks the words in the article.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_finds_an_entry_in_any_feed_and_marks_the_words() {
    let w = world();
    let mut app = Reader::new(options(&w, true)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    key(&mut app, KeyCode::Char('/'));
    for c in "upsilon".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.entries.of == Some(tidings::app::ListKey::Search) && s.entries.loaded).await.unwrap();
    assert_eq!(app.state.entries.len(), 1, "one entry, in the feed inside Folder");
    assert_eq!(app.state.entries.row(0).and_then(|r| r.title.as_deref()), Some("Upsilon"));
    assert_eq!(app.state.feeds.search.as_ref().and_then(|s| s.count), Some(1), "the view counts it");
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.article.view.as_ref().is_some_and(|v| v.rendered_width.is_some())).await.unwrap();
    let view = app.state.article.view.as_ref().unwrap();
    assert!(view.marks.iter().any(|m| !m.is_empty()), "the title's word is marked");
    // A query that means nothing is a message, not an error screen.
    key(&mut app, KeyCode::Char('/'));
    key(&mut app, KeyCode::Char('u'));
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)));
    for c in "-only".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.entries.error.is_some()).await.unwrap();
    assert!(app.state.status.current(app.state.clock.now).is_some_and(|m| m.error));
}

/// An entry purged while it was on screen (retention ran after an old entry was read): starring it says it is
/// gone instead of looking done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starring_an_entry_the_store_has_purged_meanwhile_says_so() {
    let w = world();
    let mut app = Reader::new(options(&w, true)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    select_feed(&mut app, "One");
    app.run_until(WAIT, |s| s.entries.loaded && !s.entries.is_empty()).await.unwrap();
    key(&mut app, KeyCode::Char('l'));
    let id = app.state.entries.selected_ref().unwrap().id;
    app.flush_writes().await.unwrap();
    rusqlite::Connection::open(w.sandbox.db()).unwrap().execute("DELETE FROM entries WHERE id = ?1", [id.0]).unwrap();
    key(&mut app, KeyCode::Char('s'));
    app.run_until(WAIT, |s| s.status.last_error().is_some_and(|m| m.text.contains("purged meanwhile"))).await.unwrap();
    let message = app.state.status.last_error().unwrap();
    assert!(message.text.starts_with("1 entry was not starred"), "{}", message.text);
}

/// A terminal that cannot say where its cursor is, as a real one cannot while the input task reads the answer
/// to that question: the loop must never ask (after Ctrl-Z and `fg` it once failed with "the cursor position
/// could not be read").
struct NoCursorQueries(TestBackend);

impl ratatui::backend::Backend for NoCursorQueries {
    type Error = std::io::Error;

    fn draw<'a, I>(&mut self, content: I) -> std::io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a ratatui::buffer::Cell)>,
    {
        self.0.draw(content).map_err(|e| match e {})
    }
    fn hide_cursor(&mut self) -> std::io::Result<()> {
        self.0.hide_cursor().map_err(|e| match e {})
    }
    fn show_cursor(&mut self) -> std::io::Result<()> {
        self.0.show_cursor().map_err(|e| match e {})
    }
    fn get_cursor_position(&mut self) -> std::io::Result<ratatui::layout::Position> {
        Err(std::io::Error::other("the cursor position could not be read within a normal duration"))
    }
    fn set_cursor_position<P: Into<ratatui::layout::Position>>(&mut self, position: P) -> std::io::Result<()> {
        self.0.set_cursor_position(position).map_err(|e| match e {})
    }
    fn clear(&mut self) -> std::io::Result<()> {
        self.0.clear().map_err(|e| match e {})
    }
    fn clear_region(&mut self, clear_type: ratatui::backend::ClearType) -> std::io::Result<()> {
        self.0.clear_region(clear_type).map_err(|e| match e {})
    }
    fn size(&self) -> std::io::Result<ratatui::layout::Size> {
        self.0.size().map_err(|e| match e {})
    }
    fn window_size(&mut self) -> std::io::Result<ratatui::backend::WindowSize> {
        self.0.window_size().map_err(|e| match e {})
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(|e| match e {})
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_ctrl_z_the_loop_redraws_without_asking_the_terminal_where_its_cursor_is() {
    use crossterm::event::KeyModifiers;
    let w = world();
    let mut app = Reader::new(options(&w, false)).unwrap();
    let inbox = app.sender();
    let mut terminal = Terminal::new(NoCursorQueries(TestBackend::new(140, 30))).unwrap();
    let mut host = NoHost::default();
    inbox.send(Event::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL))).unwrap();
    inbox.send(Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))).unwrap();
    let result = tokio::time::timeout(WAIT, app.run(&mut terminal, &mut host)).await.expect("the loop ended");
    result.expect("the loop came back from the suspension and quit");
    assert_eq!(host.suspended, 1);
    assert!(app.state.quit);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_added_and_refreshed_from_the_command_line_shows_in_the_running_reader() {
    let w = world();
    w.server.route("/three.xml", Reply::ok("application/rss+xml", rss("Feed Three", &[("c1", "Cee", "<p>c</p>")])));
    let mut app = Reader::new(options(&w, false)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds.loaded).await.unwrap();
    assert_eq!(app.state.feeds.feeds.len(), 4);
    assert!(app.state.feeds.feeds.iter().all(|f| f.unread == 0), "nothing fetched yet");

    // Another process: the command line, beside the running reader.
    let (sandbox, url) = (w.sandbox.tidings(), w.server.url("/three.xml"));
    let outside = tokio::task::spawn_blocking(move || {
        let mut add = sandbox;
        let added = add.args(["add", &url]).output().unwrap();
        assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    });
    outside.await.unwrap();
    let mut refresh = w.sandbox.tidings();
    let refreshed = tokio::task::spawn_blocking(move || refresh.arg("refresh").output().unwrap()).await.unwrap();
    // The world's 404 and HTML page fail there, as they would here: status 3, the rest refreshed.
    assert_eq!(refreshed.status.code(), Some(3), "{}", String::from_utf8_lossy(&refreshed.stderr));
    assert!(String::from_utf8_lossy(&refreshed.stdout).contains("Refreshed 5 feeds"));

    let shows_it_all = |s: &State| {
        let by = |t: &str| s.feeds.feeds.iter().find(|f| f.title == t).map(|f| f.unread);
        by("Feed Three") == Some(1) && by("One") == Some(3)
    };
    app.run_until(WAIT, shows_it_all).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_search_replaces_the_first_query_and_leaves_no_article_of_the_old_results() {
    let w = world();
    let mut app = Reader::new(options(&w, true)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    let search = |app: &mut Reader, typed: &str| {
        key(app, KeyCode::Char('/'));
        for c in typed.chars() {
            key(app, KeyCode::Char(c));
        }
        key(app, KeyCode::Enter);
    };
    search(&mut app, "upsilon");
    app.run_until(WAIT, |s| s.entries.of == Some(tidings::app::ListKey::Search) && s.entries.loaded).await.unwrap();
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.article.view.is_some()).await.unwrap();

    // The prompt opens with "upsilon" selected: typing replaces it.
    search(&mut app, "alpha");
    assert_eq!(app.state.feeds.search.as_ref().map(|s| s.query.as_str()), Some("alpha"));
    app.run_until(WAIT, |s| s.entries.loaded).await.unwrap();
    assert_eq!(app.state.entries.row(0).and_then(|r| r.title.as_deref()), Some("Alpha arrives"));
    assert!(app.state.article.view.is_none(), "Upsilon's article is not one of the new results");
    let said = app.state.status.current(app.state.clock.now).map(|m| m.text.clone());
    assert_eq!(said.as_deref(), Some("1 entry matches alpha"), "no lingering 'Searching for…'");
}

/// Defect 5 of issue 21: what the reader says as it opens (an import's summary, a config warning) is stamped with
/// the time it is said in the message log, not 00:00:00.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_said_at_start_are_stamped_with_the_time() {
    let w = world();
    let mut options = options(&w, false);
    options.notice = Some("Imported 4 feeds".into());
    options.config.warnings.push("a warning".into());
    let before = chrono::Utc::now().timestamp();
    let app = Reader::new(options).unwrap();
    let after = chrono::Utc::now().timestamp();
    let stamps: Vec<(&str, i64)> = app.state.status.log.iter().map(|m| (m.text.as_str(), m.at)).collect();
    assert_eq!(stamps.len(), 2, "{stamps:?}");
    assert!(stamps.iter().all(|(_, at)| (before..=after).contains(at)), "{stamps:?}");
}

/// A reader over the world with `config` as its config file (written to the sandbox), started, every feed
/// fetched (5 unread), Feed One selected; and the config file's path.
async fn feed_one_with_config(w: &World, config: &str) -> (Reader, std::path::PathBuf) {
    let path = w.sandbox.write("config.toml", config);
    let config = Config::load(&path, true).unwrap();
    let mut app = Reader::new(Options { config, ..options(w, true) }).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    app.run_until(WAIT, |s| s.feeds.views.unread == 5).await.unwrap();
    select_feed(&mut app, "One");
    (app, path)
}

/// Types `text` as a setting in the feed info: `s`, the text, Enter.
fn type_setting(app: &mut Reader, text: &str) {
    key(app, KeyCode::Char('s'));
    assert!(matches!(app.state.dialog, Some(Dialog::Prompt(_))), "s in the feed info asks for a setting");
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
    key(app, KeyCode::Enter);
}

/// A feed's setting typed in the feed info lands in its `[feeds."URL"]` table of the config file (its comments
/// kept), shows in the info, and takes effect at once: hidden from the Unread view, its count goes down. A bad
/// value is refused with the config's reason and leaves the file as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_setting_typed_in_the_feed_info_is_written_to_the_config_and_takes_effect() {
    let w = world();
    let (mut app, path) = feed_one_with_config(&w, "# my settings\nrefresh_on_startup = true\n").await;
    key(&mut app, KeyCode::Char('i'));
    app.run_until(WAIT, |s| matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.is_some())).await.unwrap();
    type_setting(&mut app, "hide_from_unread = true");
    app.run_until(WAIT, |s| {
        matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.as_ref().is_some_and(|i| i.settings == ["hide_from_unread = true"]))
    })
    .await
    .unwrap();
    app.run_until(WAIT, |s| s.feeds.views.unread == 2).await.expect("Feed One's 3 entries left the Unread count");
    let written = std::fs::read_to_string(&path).unwrap();
    let url = w.server.url("/one.xml");
    assert!(written.starts_with("# my settings\n"), "{written}");
    assert!(written.contains(&format!("[feeds.\"{url}\"]\nhide_from_unread = true\n")), "{written}");
    let reread = Config::load(&path, true).unwrap();
    assert_eq!(reread.feeds[&url].hide_from_unread, Some(true));

    type_setting(&mut app, "refresh_minutes = 0");
    app.run_until(WAIT, |s| s.status.last_error().is_some_and(|m| m.text.contains("refresh_minutes"))).await.unwrap();
    let error = app.state.status.last_error().unwrap().text.clone();
    assert!(error.contains("refresh_minutes") && error.contains("between 1 and 10080"), "{error}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written, "a refused setting leaves the file alone");

    type_setting(&mut app, "hide_from_unread");
    app.run_until(WAIT, |s| s.feeds.views.unread == 5).await.expect("a setting removed is back in Unread");
    assert!(!std::fs::read_to_string(&path).unwrap().contains("hide_from_unread"));
}

/// Retention typed in the feed info holds at once: the entries it no longer keeps are purged right after the
/// setting is saved (they stayed until the next start), and the other feeds keep theirs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retention_typed_in_the_feed_info_purges_at_once() {
    let w = world();
    let (mut app, _path) = feed_one_with_config(&w, "refresh_on_startup = true\n").await;
    key(&mut app, KeyCode::Char('i'));
    app.run_until(WAIT, |s| matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.is_some())).await.unwrap();
    for setting in ["purge_unread = true", "max_entries_per_feed = 1"] {
        type_setting(&mut app, setting);
        app.run_until(WAIT, |s| {
            matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.as_ref().is_some_and(|i| i.settings.iter().any(|l| l == setting)))
        })
        .await
        .unwrap();
    }
    app.run_until(WAIT, |s| s.feeds.views.unread == 3).await.expect("Feed One keeps its newest entry only");
    let kept: i64 = rusqlite::Connection::open(w.sandbox.db())
        .unwrap()
        .query_row(
            "SELECT count(*) FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.url = ?1",
            [w.server.url("/one.xml")],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, 1);
}
