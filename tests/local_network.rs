//! A feed from the internet cannot make the reader fetch from the user's own machine or network: its entries'
//! pictures and pages on 127.0.0.1, `localhost` or `[::ffff:127.0.0.1]` are refused before any connection (the
//! loopback server's request log stays empty), with the reason in the message log; a feed on this machine keeps
//! its pictures from this machine, and a redirect from there to 169.254.169.254 is refused.
//!
//! The feed is served by the loopback server and refreshed there, then moved in the database to an address on
//! the internet (`http://feeds.example.com/feed`, never fetched: the reader does not refresh), as if it had
//! come from there.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_image::picker::ProtocolType;
use std::time::Duration;
use support::server::{Reply, Server};
use support::{Sandbox, opml};
use tidings::app::article::pictures::Known;
use tidings::app::{Event, State};
use tidings::config::Config;
use tidings::runtime::{Options, Reader};

const WAIT: Duration = Duration::from_secs(30);
const ON_THE_INTERNET: &str = "http://feeds.example.com/feed";

/// A PNG of 40 × 20 red pixels.
fn png() -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image::RgbImage::from_pixel(40, 20, image::Rgb([255, 0, 0])).write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// `path` on the server, under the host `host` (`127.0.0.1`, `localhost`, `[::ffff:127.0.0.1]`).
fn at(server: &Server, host: &str, path: &str) -> String {
    server.url(path).replacen("127.0.0.1", host, 1)
}

/// A sandbox subscribed to a feed of one entry linking to `link`, with a picture at each of `pictures`: refreshed
/// from the loopback server, then, when `moved`, moved to an address on the internet.
fn seeded(server: &Server, link: &str, pictures: &[String], moved: bool) -> Sandbox {
    let body: String = pictures.iter().map(|p| format!("<p><img src=\"{p}\" alt=\"a picture\"></p>")).collect();
    let feed = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Faraway</title><item><guid>1</guid>\
         <title>Look</title><link>{link}</link><description><![CDATA[<p>Text.</p>{body}]]></description></item>\
         </channel></rss>"
    );
    server.route("/feed.xml", Reply::ok("application/rss+xml", feed));
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Faraway", &server.url("/feed.xml"))]));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let out = sandbox.run(&["refresh"]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    if moved {
        let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
        assert_eq!(conn.execute("UPDATE feeds SET url = ?1", [ON_THE_INTERNET]).unwrap(), 1);
    }
    sandbox
}

/// The reader on the sandbox (no refresh: the feed is never fetched), pictures in half-blocks, with its entry
/// open.
async fn reading(sandbox: &Sandbox) -> Reader {
    let options = Options {
        db: sandbox.db(),
        config: Config { refresh_on_startup: false, refresh_interval_minutes: 0, ..Config::default() },
        notice: None,
        report: vec![],
        size: (120, 40),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(options).unwrap();
    app.set_pictures(tidings::pictures::Setup {
        picker: tidings::pictures::detect::fixed(ProtocolType::Halfblocks, (10, 20)),
        cache_dir: Some(sandbox.path("cache")),
        cache_max_bytes: 10 * 1024 * 1024,
    });
    app.start();
    app.run_until(WAIT, |s| s.entries.loaded && !s.entries.is_empty()).await.unwrap();
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.article.view.as_ref().is_some_and(|v| v.rendered_width.is_some())).await.unwrap();
    app
}

fn press(app: &mut Reader, code: KeyCode) {
    app.dispatch(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// What the reader knows of each picture of the open article, once it knows something of each.
async fn known(app: &mut Reader, count: usize) -> Vec<(String, Known)> {
    let settled = |s: &State| {
        let Some(view) = s.article.view.as_ref() else { return false };
        view.pictures.len() == count
            && view
                .pictures
                .iter()
                .all(|p| !matches!(s.pictures.known.get(&p.picture.url), None | Some(Known::Loading)))
    };
    app.run_until(WAIT, settled).await.unwrap();
    let view = app.state.article.view.as_ref().unwrap();
    view.pictures.iter().map(|p| (p.picture.url.clone(), app.state.pictures.known[&p.picture.url].clone())).collect()
}

fn logged(state: &State) -> String {
    state.status.log.iter().map(|m| m.text.as_str()).collect::<Vec<_>>().join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pictures_of_a_feed_from_the_internet_on_this_machine_are_never_fetched_and_the_log_says_why() {
    let server = Server::start();
    for path in ["/a.png", "/b.png", "/c.png"] {
        server.route(path, Reply::ok("image/png", png()));
    }
    let pictures = [
        at(&server, "127.0.0.1", "/a.png"),
        at(&server, "localhost", "/b.png"),
        at(&server, "[::ffff:127.0.0.1]", "/c.png"),
    ];
    let sandbox = seeded(&server, "http://example.com/look", &pictures, true);
    let mut app = reading(&sandbox).await;

    for (url, known) in known(&mut app, 3).await {
        let Known::Refused(why) = known else { panic!("{url} was shown: {known:?}") };
        assert!(why.starts_with("the picture was not fetched: "), "{url}: {why}");
        assert!(why.ends_with(" is on the local network and the feed is not"), "{url}: {why}");
    }
    let log = logged(&app.state);
    let said = "not shown: the picture was not fetched: 127.0.0.1 is on the local network and the feed is not";
    assert!(log.contains(&format!("Picture {} {said}", pictures[0])), "{log}");
    assert!(log.contains("not fetched: localhost ("), "the name and where it led: {log}");
    for path in ["/a.png", "/b.png", "/c.png"] {
        assert_eq!(server.requests_for(path).len(), 0, "{path} was requested");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_on_this_machine_keeps_its_pictures_from_here_but_not_a_redirect_to_the_link_local_network() {
    let server = Server::start();
    server.route("/a.png", Reply::ok("image/png", png()));
    server.route("/b.png", Reply::ok("image/png", png()));
    server.route(
        "/moved.png",
        Reply::status(302).with_header("Location", "http://169.254.169.254/latest/meta-data/iam.png"),
    );
    let pictures = [at(&server, "127.0.0.1", "/a.png"), at(&server, "localhost", "/b.png"), server.url("/moved.png")];
    let sandbox = seeded(&server, "http://example.com/look", &pictures, false);
    let mut app = reading(&sandbox).await;

    let known = known(&mut app, 3).await;
    assert!(matches!(known[0].1, Known::Ready { width: 40, height: 20, .. }), "{known:?}");
    assert!(matches!(known[1].1, Known::Ready { width: 40, height: 20, .. }), "{known:?}");
    assert_eq!(
        known[2].1,
        Known::Refused(
            "the picture was not fetched: 169.254.169.254 is on the link-local network and the feed is not".into()
        )
    );
    assert_eq!((server.requests_for("/a.png").len(), server.requests_for("/b.png").len()), (1, 1));
    assert_eq!(server.requests_for("/moved.png").len(), 1, "the redirect itself came from this machine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_of_an_entry_from_the_internet_is_not_fetched_from_this_machine() {
    let server = Server::start();
    server.route("/story.html", Reply::ok("text/html", "<html><body><article><p>Secret.</p></article></body></html>"));
    let sandbox = seeded(&server, &server.url("/story.html"), &[], true);
    let mut app = reading(&sandbox).await;

    press(&mut app, KeyCode::Char('t'));
    app.run_until(WAIT, |s| s.article.view.as_ref().is_some_and(|v| v.detail.full_error.is_some())).await.unwrap();
    let message = app.state.status.current(app.state.clock.now).unwrap();
    assert!(message.error, "{}", message.text);
    assert!(
        message.text.contains("the page was not fetched: 127.0.0.1 is on the local network and the feed is not"),
        "{}",
        message.text
    );
    assert_eq!(server.requests_for("/story.html").len(), 0);
}
