//! The reader end to end: a loopback server, a real SQLite file, the real runtime and UI on ratatui's
//! TestBackend. Keys go in through the same inbox the terminal uses.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::Duration;
use support::server::{Reply, Server};
use support::{Sandbox, atom, opml, rss, screen};
use tidings::app::{Event, FeedListRow, Overlay, Pane, State};
use tidings::config::Config;
use tidings::runtime::{App, Options};

const WAIT: Duration = Duration::from_secs(20);

fn key(app: &mut App, code: KeyCode) {
    app.dispatch(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn draw(app: &App, terminal: &mut Terminal<TestBackend>) -> String {
    terminal.draw(|f| tidings::ui::draw(f, &app.state)).unwrap();
    screen(terminal.backend())
}

/// The rows of the feeds pane, inside its borders, trimmed.
fn feeds_pane(terminal: &Terminal<TestBackend>) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    let area = tidings::ui::layout(buffer.area).feeds;
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
fn select_feed(app: &mut App, title: &str) {
    while app.state.focus != Pane::Feeds {
        key(app, KeyCode::Char('h'));
    }
    key(app, KeyCode::Char('g'));
    let row = app
        .state
        .rows
        .iter()
        .position(|r| matches!(r, FeedListRow::Feed(i) if app.state.feeds[*i].title == title))
        .unwrap_or_else(|| panic!("no feed titled {title}"));
    for _ in 0..row {
        key(app, KeyCode::Char('j'));
    }
}

fn all_fetched(s: &State) -> bool {
    s.feeds_loaded && s.progress.is_idle() && !s.feeds.is_empty() && s.feeds.iter().all(|f| f.last_fetched_at.is_some())
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
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_refresh_read_an_entry_and_see_errors_per_feed() {
    let w = world();
    let mut app = App::new(options(&w, true)).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();

    // The feeds pane lists every feed with its unread count; the two bad ones carry an error marker.
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("Feeds · 5 unread"), "the pane's title sums the unread entries:\n{shown}");
    assert!(feed_row(&terminal, "Feed One").ends_with(" 3"), "{}", feed_row(&terminal, "Feed One"));
    assert!(feed_row(&terminal, "Feed Two").ends_with(" 2"));
    assert!(feed_row(&terminal, "▾ Folder").ends_with(" 2"), "the folder shows its unread sum");
    assert!(feed_row(&terminal, "Missing").starts_with("! "), "{}", feed_row(&terminal, "Missing"));
    assert!(feed_row(&terminal, "Page").starts_with("! "));
    assert!(!feed_row(&terminal, "Feed One").starts_with("!"));

    // Each bad feed has its own error, and the good ones loaded.
    let by_title = |t: &str| app.state.feeds.iter().find(|f| f.title == t).unwrap().clone();
    assert!(by_title("Missing").last_error.as_deref().unwrap().contains("HTTP 404"));
    assert!(by_title("Page").last_error.as_deref().unwrap().contains("tidings discover"));
    assert_eq!(by_title("Feed One").last_error, None);

    // Open the second entry of Feed One.
    select_feed(&mut app, "Feed One");
    app.run_until(WAIT, |s| s.entries.len() == 3).await.unwrap();
    key(&mut app, KeyCode::Char('l'));
    assert_eq!(app.state.focus, Pane::Entries);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.article.as_ref().is_some_and(|a| a.rendered_width.is_some())).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("Beta follows"), "{shown}");
    assert!(app.state.entries[1].read);
    assert!(shown.contains("Second body."), "the article pane shows the entry's text:\n{shown}");
    assert!(feed_row(&terminal, "Feed One").ends_with(" 2"), "opening an entry drops the unread count");
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
    app.run_until(WAIT, |s| s.entries_of.is_some()).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("Last refresh failed"), "{shown}");
    assert!(shown.contains("HTTP 404"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_refresh_stores_validators_and_the_second_sends_them() {
    let w = world();
    let mut app = App::new(options(&w, true)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    assert_eq!(w.server.requests_for("/one.xml").len(), 1);
    assert_eq!(w.server.requests_for("/one.xml")[0].header("if-none-match"), None);

    key(&mut app, KeyCode::Char('R'));
    assert!(!app.state.progress.is_idle());
    app.run_until(WAIT, |s| s.progress.is_idle() && s.message.as_deref().is_some_and(|m| m.starts_with("Refreshed")))
        .await
        .unwrap();
    let second = &w.server.requests_for("/one.xml")[1];
    assert_eq!(second.header("if-none-match"), Some("\"one-v1\""));
    assert!(second.header("user-agent").unwrap().starts_with("tidings/"));
    // A 304 adds nothing and keeps the counts.
    assert_eq!(app.state.feeds.iter().find(|f| f.title == "Feed One").unwrap().unread, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_entries_show_at_once_with_no_network() {
    let w = world();
    {
        let mut app = App::new(options(&w, true)).unwrap();
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
    };
    let mut app = App::new(w2).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds_loaded && !s.entries.is_empty()).await.unwrap();
    assert!(app.state.progress.is_idle(), "no refresh was started");
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("Alpha arrives"), "{shown}");
    assert!(shown.contains("Gamma last"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_overlay_lists_the_keys_and_resizing_reflows() {
    let w = world();
    let mut app = App::new(options(&w, false)).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds_loaded).await.unwrap();
    key(&mut app, KeyCode::Char('?'));
    let shown = draw(&app, &mut terminal);
    for (keys, what) in tidings::app::KEYS {
        assert!(shown.contains(keys), "help lists {keys}:\n{shown}");
        assert!(shown.contains(what), "help explains {what}");
    }
    key(&mut app, KeyCode::Char('?'));
    assert!(app.state.overlay.is_none());

    terminal.backend_mut().resize(80, 24);
    app.dispatch(Event::Resize(80, 24));
    let shown = draw(&app, &mut terminal);
    assert_eq!(shown.lines().count(), 24);
    assert!(shown.lines().all(|l| l.chars().count() == 80));
    assert!(shown.contains("Feeds"));
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
    let options =
        Options { db: sandbox.db(), config: Config::default(), notice: None, report: vec![], size: (140, 30) };
    let mut app = App::new(options).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    app.run_until(WAIT, |s| !s.entries.is_empty()).await.unwrap();
    let garbled = app.state.entries[0].title.clone().unwrap();
    assert_ne!(garbled, "Правительство обсудило бюджет", "the server's KOI8-R is taken at its word");
    draw(&app, &mut terminal);
    assert!(
        feed_row(&terminal, "").starts_with("~ "),
        "the overridden declaration is marked: {:?}",
        feeds_pane(&terminal)
    );

    // The feed-info view says what happened.
    key(&mut app, KeyCode::Char('i'));
    app.run_until(WAIT, |s| matches!(&s.overlay, Some(Overlay::FeedInfo { info: Some(_), .. }))).await.unwrap();
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
    assert!(app.state.overlay.is_none());
    app.run_until(WAIT, |s| {
        s.progress.is_idle()
            && s.entries.first().and_then(|e| e.title.as_deref()) == Some("Правительство обсудило бюджет")
    })
    .await
    .unwrap();
    assert_eq!(app.state.entries.len(), 1, "the entry was updated in place, not duplicated");
    let second = &server.requests_for("/cyr.xml")[1];
    assert_eq!(second.header("if-none-match"), None, "forcing an encoding downloads the feed again");
    key(&mut app, KeyCode::Char('i'));
    app.run_until(WAIT, |s| matches!(&s.overlay, Some(Overlay::FeedInfo { info: Some(_), .. }))).await.unwrap();
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
    let options =
        Options { db: sandbox.db(), config: Config::default(), notice: None, report: vec![], size: (140, 30) };
    let mut app = App::new(options).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds_loaded).await.unwrap();
    assert!(draw(&app, &mut terminal).contains("No feeds yet"));

    key(&mut app, KeyCode::Char('a'));
    for c in server.url("/site/").chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert!(draw(&app, &mut terminal).contains("Looking for feeds"));
    app.run_until(WAIT, |s| matches!(s.overlay, Some(Overlay::Picker { .. }))).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("1. Site Posts (rss2)") && shown.contains("2. Site Notes (atom)"), "{shown}");

    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.feeds.len() == 1 && s.progress.is_idle() && !s.entries.is_empty()).await.unwrap();
    draw(&app, &mut terminal);
    assert!(feed_row(&terminal, "Site Notes").ends_with(" 1"), "subscribed and refreshed: {:?}", feeds_pane(&terminal));

    key(&mut app, KeyCode::Char('D'));
    assert!(draw(&app, &mut terminal).contains("Unsubscribe from Site Notes?"));
    key(&mut app, KeyCode::Char('y'));
    app.run_until(WAIT, |s| s.feeds.is_empty()).await.unwrap();
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
    let mut app = App::new(options).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds_loaded).await.unwrap();
    let shown = draw(&app, &mut terminal);
    assert!(shown.contains("gopher://x: unsupported URL scheme"), "{shown}");
    key(&mut app, KeyCode::Esc);
    assert!(app.state.overlay.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reader_answers_keys_while_a_refresh_waits_on_the_network() {
    let w = world();
    w.server.route(
        "/one.xml",
        Reply::Delay(std::time::Duration::from_secs(3), Box::new(Reply::ok("application/rss+xml", rss("Slow", &[])))),
    );
    let mut app = App::new(options(&w, true)).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.feeds_loaded && s.progress.active.len() == 4).await.unwrap();
    // The fetch of /one.xml is still out; the keys act at once and the screen draws.
    assert!(!app.state.progress.is_idle());
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('?'));
    assert_eq!(app.state.feed_cursor, 1);
    assert!(draw(&app, &mut terminal).contains("Refreshing"), "progress shows while the keys are served");
    assert!(!app.state.progress.is_idle(), "the slow feed has not answered yet");
}
