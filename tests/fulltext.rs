//! Reading snippet feeds in full, through the real reader: `t` fetches the entry's page from a loopback server,
//! extracts the article, stores it beside the entry and shows it (`t` again: the feed's text); `T` makes a feed
//! fetch its new entries in full on every refresh. A page that gives no article is a message, and the feed's
//! text stays.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::time::Duration;
use support::server::{Reply, Server};
use support::{Sandbox, opml};
use tidings::app::{Event, ListKey};
use tidings::config::Config;
use tidings::runtime::{Options, Reader};

const WAIT: Duration = Duration::from_secs(20);

/// The article's own words, and words of the page around it that must not come with it.
const STORY: &str = "every light along the old harbour wall went dark at once";
const NAVIGATION: &str = "Post comment";

fn page() -> Reply {
    let html =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/article-page.html")).unwrap();
    Reply::ok("text/html; charset=utf-8", html)
}

/// A feed of one-line snippets linking to full pages on the same server.
fn snippets(server: &Server, items: &[(&str, &str)]) -> String {
    let mut xml = String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Gazette</title>");
    for (guid, path) in items {
        xml.push_str(&format!(
            "<item><guid>{guid}</guid><title>Story {guid}</title><link>{}</link>\
             <description>A one-line teaser.</description></item>",
            server.url(path)
        ));
    }
    xml.push_str("</channel></rss>");
    xml
}

async fn reader(sandbox: &Sandbox, server: &Server) -> Reader {
    let file = sandbox.write("subs.opml", opml(&[(None, "Gazette", &server.url("/feed.xml"))]));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let options = Options {
        db: sandbox.db(),
        config: Config { refresh_on_startup: true, ..Config::default() },
        notice: None,
        report: vec![],
        size: (160, 40),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(options).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.progress.is_idle() && s.entries.loaded && !s.entries.is_empty()).await.unwrap();
    app
}

fn press(app: &mut Reader, code: KeyCode) {
    app.dispatch(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn article_text(app: &Reader) -> String {
    let view = app.state.article.view.as_ref().expect("an article is open");
    view.lines.iter().map(tidings::render::line_text).collect::<Vec<_>>().join(" ")
}

fn rendered(s: &tidings::app::State) -> bool {
    s.article.view.as_ref().is_some_and(|v| v.rendered_width.is_some())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t_fetches_the_full_article_shows_it_and_t_again_shows_the_feeds_text() {
    let server = Server::start();
    server.route("/feed.xml", Reply::ok("application/rss+xml", snippets(&server, &[("1", "/story.html")])));
    server.route("/story.html", page());
    let sandbox = Sandbox::new();
    let mut app = reader(&sandbox, &server).await;
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Enter);
    app.run_until(WAIT, rendered).await.unwrap();
    assert!(article_text(&app).contains("A one-line teaser."));

    press(&mut app, KeyCode::Char('t'));
    app.run_until(WAIT, |s| s.article.view.as_ref().is_some_and(|v| v.full && v.rendered_width.is_some()))
        .await
        .unwrap();
    let text = article_text(&app);
    assert!(text.contains(STORY), "the article is shown:\n{text}");
    assert!(!text.contains(NAVIGATION), "without what was around it:\n{text}");
    app.flush_writes().await.unwrap();
    let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
    let (full, content): (String, String) =
        conn.query_row("SELECT full_html, content_html FROM entries", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert!(full.contains("harbour wall") && content.contains("teaser"), "stored beside the feed's text");

    press(&mut app, KeyCode::Char('t'));
    app.run_until(WAIT, rendered).await.unwrap();
    assert!(article_text(&app).contains("A one-line teaser."), "t again: the feed's text");
    assert_eq!(server.requests_for("/story.html").len(), 1, "the stored article is not fetched again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_gives_no_article_is_a_message_and_the_feeds_text_stays() {
    let server = Server::start();
    server.route("/feed.xml", Reply::ok("application/rss+xml", snippets(&server, &[("1", "/gone.html")])));
    let sandbox = Sandbox::new();
    let mut app = reader(&sandbox, &server).await;
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Enter);
    app.run_until(WAIT, rendered).await.unwrap();
    press(&mut app, KeyCode::Char('t'));
    app.run_until(WAIT, |s| s.article.view.as_ref().is_some_and(|v| v.detail.full_error.is_some())).await.unwrap();
    let message = app.state.status.current(app.state.clock.now).unwrap();
    assert!(message.error && message.text.contains("HTTP 404"), "{}", message.text);
    assert!(article_text(&app).contains("A one-line teaser."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_text_feed_fetches_its_new_entries_in_full_on_refresh() {
    let server = Server::start();
    server.route("/feed.xml", Reply::ok("application/rss+xml", snippets(&server, &[("1", "/story.html")])));
    server.route("/story.html", page());
    let sandbox = Sandbox::new();
    let mut app = reader(&sandbox, &server).await;
    // T on the feed, then a refresh that brings a second entry: both are fetched in full, with no key pressed.
    while app.state.feeds.selected_list() != Some(ListKey::Feed(tidings::model::FeedId(1))) {
        press(&mut app, KeyCode::Char('j'));
    }
    press(&mut app, KeyCode::Char('T'));
    assert!(app.state.feeds.feed(tidings::model::FeedId(1)).unwrap().full_text);
    server.route(
        "/feed.xml",
        Reply::ok("application/rss+xml", snippets(&server, &[("1", "/story.html"), ("2", "/story2.html")])),
    );
    server.route("/story2.html", page());
    press(&mut app, KeyCode::Char('r'));
    // Each page is stored before its event is sent: count the events.
    let mut fetched = std::collections::BTreeSet::new();
    tokio::time::timeout(WAIT, async {
        while fetched.len() < 2 {
            let event = app.next_event().await.expect("the inbox stays open");
            if let Event::FullTextFetched { entry_id, result } = &event {
                assert!(result.is_ok(), "{result:?}");
                fetched.insert(*entry_id);
            }
            app.dispatch(event);
        }
    })
    .await
    .expect("both new entries were fetched in full");
    app.flush_writes().await.unwrap();
    let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
    let full: i64 =
        conn.query_row("SELECT count(*) FROM entries WHERE full_html IS NOT NULL", [], |r| r.get(0)).unwrap();
    assert_eq!(full, 2, "fetched {fetched:?}");
    // Opening one shows the full article first.
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Enter);
    app.run_until(WAIT, rendered).await.unwrap();
    assert!(article_text(&app).contains(STORY));
}

#[test]
fn tidings_refresh_fetches_a_full_text_feeds_entries_and_says_which_pages_failed() {
    let server = Server::start();
    server.route(
        "/feed.xml",
        Reply::ok("application/rss+xml", snippets(&server, &[("1", "/story.html"), ("2", "/gone.html")])),
    );
    server.route("/story.html", page());
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Gazette", &server.url("/feed.xml"))]));
    assert!(sandbox.run(&["import", support::path_str(&file)]).status.success());
    let first = sandbox.run(&["refresh"]);
    assert!(first.status.success(), "{}", support::stderr(&first));
    assert!(!support::stdout(&first).contains("in full"), "no feed is read in full yet: {}", support::stdout(&first));
    assert!(server.requests_for("/story.html").is_empty());

    // What `T` in the reader sets.
    rusqlite::Connection::open(sandbox.db()).unwrap().execute("UPDATE feeds SET full_text = 1", []).unwrap();
    let out = sandbox.run(&["refresh"]);
    let text = support::stdout(&out);
    assert!(out.status.success(), "a page without an article is not a failed feed: {text}{}", support::stderr(&out));
    assert!(text.contains("Fetched 1 article in full; 1 page gave no article and keeps its feed's text."), "{text}");
    let gone = server.url("/gone.html");
    let line = text.lines().find(|l| l.starts_with("NO TEXT")).unwrap_or_else(|| panic!("no page listed: {text}"));
    assert!(line.contains("Story 2") && line.contains(&gone) && line.contains("HTTP 404"), "{line}");
    let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
    let full: String =
        conn.query_row("SELECT full_html FROM entries WHERE full_html IS NOT NULL", [], |r| r.get(0)).unwrap();
    assert!(full.contains("harbour wall"), "{full}");

    // Done once: the next refresh fetches neither page again.
    let again = sandbox.run(&["refresh", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(json["full_text"]["fetched"], 0, "{json}");
    assert_eq!(json["full_text"]["failed"].as_array().map(Vec::len), Some(0), "{json}");
    assert_eq!(server.requests_for("/story.html").len(), 1);
    assert_eq!(server.requests_for("/gone.html").len(), 1);
}
