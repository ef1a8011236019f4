//! The first hour after switching from newsboat (issue 36), in the real reader: a loopback server, a real SQLite
//! file, the real runtime and UI on ratatui's TestBackend, keys through the terminal's inbox.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::Duration;
use support::server::{Reply, Server};
use support::{Sandbox, opml, rss, screen};
use tidings::app::dialogs::Dialog;
use tidings::app::{Event, FeedListRow, ListKey, Pane, State};
use tidings::config::Config;
use tidings::model::Sort;
use tidings::runtime::{Options, Reader};

const WAIT: Duration = Duration::from_secs(20);

fn key(app: &mut Reader, code: KeyCode) {
    app.dispatch(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn all_fetched(s: &State) -> bool {
    s.feeds.loaded && s.progress.is_idle() && s.feeds.feeds.iter().all(|f| f.last_fetched_at.is_some())
}

/// Two feeds (One: 3 entries, dated a day apart; Two: 2), subscribed, and a config file of `config`.
fn world(config: &str) -> (Server, Sandbox, Options) {
    let server = Server::start();
    let one = rss("Feed One", &[("a1", "Alpha", "<p>a</p>"), ("a2", "Beta", "<p>b</p>"), ("a3", "Gamma", "<p>c</p>")]);
    server.route("/one.xml", Reply::ok("application/rss+xml", one));
    server.route(
        "/two.xml",
        Reply::ok("application/rss+xml", rss("Feed Two", &[("t1", "Tau", "<p>t</p>"), ("t2", "Upsilon", "<p>u</p>")])),
    );
    let sandbox = Sandbox::new();
    let list = opml(&[(None, "One", &server.url("/one.xml")), (None, "Two", &server.url("/two.xml"))]);
    let file = sandbox.write("subs.opml", list);
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let config = config.replace("{one}", &server.url("/one.xml"));
    let path = sandbox.write("config.toml", &config);
    let options = Options {
        db: sandbox.db(),
        config: Config::load(&path, true).unwrap(),
        notice: None,
        report: vec![],
        size: (120, 30),
        zone: tidings::clock::Zone::utc(),
    };
    (server, sandbox, options)
}

async fn started(options: Options) -> Reader {
    let mut app = Reader::new(options).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    app.run_until(WAIT, |s| s.feeds.views.unread == 5).await.unwrap();
    app
}

/// Puts the feed cursor on the row `pick` finds.
fn select_row(app: &mut Reader, pick: impl Fn(&State, &FeedListRow) -> bool) {
    while app.state.focus != Pane::Feeds {
        key(app, KeyCode::Char('h'));
    }
    key(app, KeyCode::Char('g'));
    let state = app.state.clone();
    let row = state.feeds.rows.iter().position(|r| pick(&state, r)).expect("the row is in the feed list");
    for _ in 0..row {
        key(app, KeyCode::Char('j'));
    }
}

fn feed_titled(title: &'static str) -> impl Fn(&State, &FeedListRow) -> bool {
    move |s, r| matches!(r, FeedListRow::Feed { index, .. } if s.feeds.feeds[*index].title == title)
}

/// `A` on the Unread view, then `u`: the entries come back in the list, not only in the count (the list stayed
/// empty until it was chosen again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_after_marking_the_unread_view_read_shows_its_entries_again() {
    let (_server, _sandbox, options) = world("");
    let mut app = started(options).await;
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
    select_row(&mut app, |_, r| *r == FeedListRow::View(ListKey::Unread));
    app.run_until(WAIT, |s| s.entries.of == Some(ListKey::Unread) && s.entries.len() == 5).await.unwrap();
    key(&mut app, KeyCode::Char('A'));
    key(&mut app, KeyCode::Char('y')); // the Unread list is every feed's: A asks first
    app.run_until(WAIT, |s| s.feeds.views.unread == 0 && s.undo.is_some()).await.unwrap();
    assert!(app.state.entries.is_empty());
    key(&mut app, KeyCode::Char('u'));
    app.run_until(WAIT, |s| s.feeds.views.unread == 5 && s.entries.len() == 5).await.expect("the entries are back");
    app.draw(&mut terminal).unwrap();
    let shown = screen(terminal.backend());
    for title in ["Alpha", "Beta", "Gamma", "Tau", "Upsilon"] {
        assert!(shown.contains(title), "{title} is listed again:\n{shown}");
    }
}

/// `sort = "oldest"` orders a list never sorted in the reader oldest first; a feed's or a view's own `sort` wins
/// for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configured_sort_orders_lists_and_a_feeds_own_sort_wins() {
    let (_server, _sandbox, options) = world(
        "sort = \"oldest\"\n\n[feeds.\"{one}\"]\nsort = \"title\"\n\n\
         [[views]]\nname = \"Everything\"\nquery = 'url ~ example'\nsort = \"newest\"\n",
    );
    let mut app = started(options).await;
    let titles = |s: &State| -> Vec<String> {
        s.entries
            .refs
            .iter()
            .map(|r| s.entries.rows.get(&r.id).and_then(|row| row.title.clone()).unwrap_or_default())
            .collect()
    };
    select_row(&mut app, feed_titled("Two"));
    app.run_until(WAIT, |s| s.entries.len() == 2 && s.entries.rows.len() == 2).await.unwrap();
    assert_eq!((app.state.entries.sort, titles(&app.state)), (Sort::Oldest, vec!["Tau".into(), "Upsilon".into()]));
    select_row(&mut app, feed_titled("One"));
    app.run_until(WAIT, |s| s.entries.len() == 3 && s.entries.rows.len() == 3).await.unwrap();
    assert_eq!(app.state.entries.sort, Sort::ByTitle);
    assert_eq!(titles(&app.state), ["Alpha", "Beta", "Gamma"]);
    select_row(&mut app, |_, r| *r == FeedListRow::View(ListKey::View(0)));
    app.run_until(WAIT, |s| s.entries.of == Some(ListKey::View(0)) && s.entries.len() == 5).await.unwrap();
    assert_eq!(app.state.entries.sort, Sort::Newest, "the view's own sort");
}

/// newsboat's `q` as tidings's `back`: the article to its list, the list to the feeds, then quit — and
/// `confirm_quit` asks first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_goes_up_a_level_and_quits_at_the_feeds_after_asking() {
    let (_server, _sandbox, options) =
        world("confirm_quit = true\n\n[keys]\nback = [\"q\"]\nquit = [\"Q\", \"Ctrl-c\"]\n");
    let mut app = started(options).await;
    select_row(&mut app, feed_titled("One"));
    app.run_until(WAIT, |s| s.entries.len() == 3).await.unwrap();
    key(&mut app, KeyCode::Char('l'));
    key(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.focus == Pane::Article || s.article.view.is_some()).await.unwrap();
    key(&mut app, KeyCode::Tab);
    while app.state.focus != Pane::Article {
        key(&mut app, KeyCode::Char('l'));
    }
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.state.focus, Pane::Entries);
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.state.focus, Pane::Feeds);
    key(&mut app, KeyCode::Char('q'));
    assert!(matches!(app.state.dialog, Some(Dialog::Confirm(_))), "confirm_quit asks first");
    assert!(!app.state.quit);
    key(&mut app, KeyCode::Char('n'));
    assert!(!app.state.quit && app.state.dialog.is_none());
    key(&mut app, KeyCode::Char('q'));
    key(&mut app, KeyCode::Char('y'));
    app.run_until(WAIT, |s| s.quit).await.expect("yes quits");
}

/// A feed's tags, typed in its info (`tags = "a, b"`), are what `feedtag` finds: a saved view of
/// `feedtag = "Long Reads"` counts the feed's unread entries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_typed_in_the_feed_info_are_what_feedtag_finds() {
    let (_server, _sandbox, options) = world("[[views]]\nname = \"Long\"\nquery = 'feedtag = \"Long Reads\"'\n");
    let mut app = started(options).await;
    let long = |s: &State| s.feeds.saved.first().and_then(|v| v.unread);
    app.run_until(WAIT, |s| long(s) == Some(0)).await.unwrap();
    select_row(&mut app, feed_titled("One"));
    key(&mut app, KeyCode::Char('i'));
    app.run_until(WAIT, |s| matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.is_some())).await.unwrap();
    key(&mut app, KeyCode::Char('s'));
    for c in "tags = \"Long Reads, news/science\"".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let shows_tags = |s: &State| matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.as_ref().is_some_and(|i| i.settings.first().is_some_and(|l| l == "tags = \"Long Reads, news/science\"")));
    app.run_until(WAIT, shows_tags).await.expect("the info shows the tags");
    key(&mut app, KeyCode::Esc);
    app.run_until(WAIT, |s| long(s) == Some(3)).await.expect("the view counts the tagged feed's entries");
}

/// Two warnings of the config at start (keys taken from other actions) are both in the message log, said as
/// warnings, not "error: warning:".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_warning_at_start_is_in_the_message_log_as_a_warning() {
    let (_server, _sandbox, options) = world("[keys]\nnext_feed = [\"n\"]\nstar = [\"m\"]\n");
    assert_eq!(options.config.warnings.len(), 2, "{:?}", options.config.warnings);
    let mut app = started(options).await;
    key(&mut app, KeyCode::Char('L'));
    let Some(Dialog::Report(report)) = &app.state.dialog else {
        panic!("the message log opens: {:?}", app.state.dialog)
    };
    let warnings: Vec<&String> = report.lines.iter().filter(|l| l.contains("warning: ")).collect();
    assert_eq!(warnings.len(), 2, "{:#?}", report.lines);
    assert!(!report.lines.iter().any(|l| l.contains("error: warning")), "{:#?}", report.lines);
}

/// A feed named in CJK under the feed info's left border: the border was skipped where a wide character of the
/// list behind spans it. Every row of the window has its border.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_keeps_its_borders_over_a_cjk_name() {
    let server = Server::start();
    let name = "日本語のニュース".repeat(6);
    server.route("/one.xml", Reply::ok("application/rss+xml", rss(&name, &[("a1", &name, "<p>a</p>")])));
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, &name, &server.url("/one.xml"))]));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let size = (100, 30);
    let options = Options {
        db: sandbox.db(),
        config: Config::default(),
        notice: None,
        report: vec![],
        size,
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(options).unwrap();
    app.start();
    app.run_until(WAIT, all_fetched).await.unwrap();
    select_row(&mut app, |_, r| matches!(r, FeedListRow::Feed { .. }));
    key(&mut app, KeyCode::Char('i'));
    app.run_until(WAIT, |s| matches!(&s.dialog, Some(Dialog::Info(i)) if i.info.is_some())).await.unwrap();
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    app.draw(&mut terminal).unwrap();
    let area = tidings::app::dialogs::areas::info(size.0, size.1);
    let buffer = terminal.backend().buffer().clone();
    for y in area.y + 1..area.bottom() - 1 {
        assert_eq!(buffer[(area.x, y)].symbol(), "│", "row {y}:\n{}", screen(terminal.backend()));
        assert_eq!(buffer[(area.right() - 1, y)].symbol(), "│", "row {y}:\n{}", screen(terminal.backend()));
    }
}
