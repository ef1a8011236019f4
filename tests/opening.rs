//! Opening pages and media through the real reader loop: the `browser` and `player` command lines get the
//! entry's exact address as one argument (a script records its argv), terminal programs in the foreground,
//! graphical ones detached. No shell is involved: the address carries characters a shell would act on.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::server::{Reply, Server};
use support::{Sandbox, opml};
use tidings::app::Event;
use tidings::config::Config;
use tidings::runtime::{NoHost, Options, Reader};

const WAIT: Duration = Duration::from_secs(20);

/// A long address with a query, a fragment, and characters a shell would expand or split on.
const PAGE: &str =
    "https://example.com/2017/03/garmin-forerunner-935-in-depth-review.html?utm=a&b=$(id)#comments-section";
const MEDIA: &str = "https://cdn.example.com/podcast/episode-42%20final.mp3?token=a;b";

/// A feed with one entry linking to PAGE, with MEDIA attached.
fn feed() -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Reviews</title><link>https://example.com/</link>\
         <item><guid>r1</guid><title>A review</title><link>{}</link><description>Short.</description>\
         <enclosure url=\"{}\" type=\"audio/mpeg\" length=\"1234\"/></item></channel></rss>",
        PAGE.replace('&', "&amp;"),
        MEDIA
    )
}

/// A script that writes each of its arguments on a line of `out` (a file, or a FIFO the test reads).
fn recorder(sandbox: &Sandbox, name: &str, out: &Path) -> PathBuf {
    let script = sandbox
        .write(name, format!("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '{}'\n", out.display()));
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

async fn reader(sandbox: &Sandbox, server: &Server, config: Config) -> Reader {
    let file = sandbox.write("subs.opml", opml(&[(None, "Reviews", &server.url("/feed.xml"))]));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let options = Options {
        db: sandbox.db(),
        config: Config { refresh_on_startup: true, ..config },
        notice: None,
        report: vec![],
        size: (140, 30),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(options).unwrap();
    app.start();
    app.run_until(WAIT, |s| s.progress.is_idle() && !s.entries.is_empty()).await.unwrap();
    app
}

fn press(app: &Reader, code: KeyCode) {
    app.sender().send(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_browser_gets_the_exact_address_and_the_terminal() {
    let server = Server::start();
    server.route("/feed.xml", Reply::ok("application/rss+xml", feed()));
    let sandbox = Sandbox::new();
    let args = sandbox.path("browser.args");
    let script = recorder(&sandbox, "browser", &args);
    let config = Config {
        browser: Some(format!("'{}' --from-tidings %u", script.display())),
        browser_in_terminal: Some(true),
        ..Config::default()
    };
    let mut app = reader(&sandbox, &server, config).await;
    // o in the entry list opens the selected entry; the loop runs the browser in the foreground.
    press(&app, KeyCode::Char('l'));
    press(&app, KeyCode::Char('o'));
    press(&app, KeyCode::Char('q'));
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    let mut host = NoHost::default();
    tokio::time::timeout(WAIT, app.run(&mut terminal, &mut host)).await.unwrap().unwrap();
    assert_eq!(host.ran.len(), 1, "the browser ran in the foreground");
    let recorded = std::fs::read_to_string(&args).unwrap();
    assert_eq!(recorded.lines().collect::<Vec<_>>(), ["--from-tidings", PAGE], "one argument, exactly the address");
    assert!(app.state.entries.refs[0].read, "opening from the list marks the entry read");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graphical_browser_runs_detached_and_the_player_gets_the_media() {
    let server = Server::start();
    server.route("/feed.xml", Reply::ok("application/rss+xml", feed()));
    let sandbox = Sandbox::new();
    // The scripts write into FIFOs, so the test waits for them by reading, not by sleeping.
    let fifo = |name: &str| {
        let path = sandbox.path(name);
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        path
    };
    let page_fifo = fifo("page.fifo");
    let media_fifo = fifo("media.fifo");
    let browser = recorder(&sandbox, "browser", &page_fifo);
    let player = recorder(&sandbox, "player", &media_fifo);
    let config = Config {
        browser: Some(format!("{} %u", browser.display())),
        browser_in_terminal: Some(false),
        player: Some(format!("{} --no-video", player.display())),
        player_in_terminal: Some(false),
        ..Config::default()
    };
    let mut app = reader(&sandbox, &server, config).await;
    let read_fifo = |path: PathBuf| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(std::fs::read_to_string(path).unwrap()));
        rx
    };
    let page = read_fifo(page_fifo);
    let media = read_fifo(media_fifo);
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::NONE)));
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
    app.run_until(WAIT, |s| s.article.view.is_some()).await.unwrap();
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::NONE)));
    assert_eq!(page.recv_timeout(WAIT).unwrap().lines().collect::<Vec<_>>(), [PAGE]);
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('v'), KeyModifiers::NONE)));
    assert_eq!(media.recv_timeout(WAIT).unwrap().lines().collect::<Vec<_>>(), ["--no-video", MEDIA]);
}
