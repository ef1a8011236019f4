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

/// Marks a shell would act on if a value were pasted into its script: each, if run, creates a file in `dir`.
fn hostile(dir: &Path) -> [String; 4] {
    let d = dir.display();
    [
        format!(";touch$IFS{d}/semicolon;#"),
        format!("$(touch {d}/dollar)"),
        format!("`touch {d}/backquote`"),
        format!("'\"$(touch {d}/quoted)\"'"),
    ]
}

/// A FIFO at `name` in the sandbox, and a channel that gets what is written into it (read on a thread: the test
/// waits by reading, never by sleeping).
fn fifo(sandbox: &Sandbox, name: &str) -> (PathBuf, std::sync::mpsc::Receiver<String>) {
    let path = sandbox.path(name);
    assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success());
    let (tx, rx) = std::sync::mpsc::channel();
    let reading = path.clone();
    std::thread::spawn(move || tx.send(std::fs::read_to_string(reading).unwrap()));
    (path, rx)
}

/// No file a hostile value would have made exists.
fn nothing_ran(dir: &Path) {
    for made in ["semicolon", "dollar", "backquote", "quoted"] {
        assert!(!dir.join(made).exists(), "a value was run as code: {made}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_and_titles_reach_shell_scripts_of_every_command_as_data() {
    let sandbox = Sandbox::new();
    let traps = sandbox.path("traps");
    std::fs::create_dir_all(&traps).unwrap();
    let [semicolon, dollar, backquote, quoted] = hostile(&traps);
    let server = Server::start();
    let link = format!("{}{semicolon}", server.url("/a"));
    let media = format!("{}?x={dollar}", server.url("/e.mp3"));
    let title = format!("Read {backquote} and {quoted} now");
    let xml = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('"', "&quot;");
    server.route(
        "/feed.xml",
        Reply::ok(
            "application/rss+xml",
            format!(
                "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Traps</title><link>http://x.example/</link>\
                 <item><guid>t1</guid><title>{}</title><link>{}</link><description>Short.</description>\
                 <enclosure url=\"{}\" type=\"audio/mpeg\" length=\"1\"/></item></channel></rss>",
                xml(&title),
                xml(&link),
                xml(&media)
            ),
        ),
    );
    // The browser line as `tidings import newsboat` writes it from newsboat's `browser "… %u > FILE &"` (a shell
    // line there), the others as a user writes them: scripts with the placeholders inside, in every quoting.
    let (browser_out, browser_said) = fifo(&sandbox, "browser.out");
    let (player_out, player_said) = fifo(&sandbox, "player.out");
    let (bookmark_out, bookmark_said) = fifo(&sandbox, "bookmark.out");
    let (pipe_out, pipe_said) = fifo(&sandbox, "pipe.out");
    let home = sandbox.path("home");
    std::fs::create_dir_all(home.join(".newsboat")).unwrap();
    std::fs::write(home.join(".newsboat/urls"), "").unwrap();
    std::fs::write(home.join(".newsboat/config"), format!("browser \"printf %s %u > {} &\"\n", browser_out.display()))
        .unwrap();
    let config_file = sandbox.write("config.toml", "");
    let imported = sandbox
        .tidings()
        .env("HOME", &home)
        .args(["--config", support::path_str(&config_file), "import", "newsboat"])
        .output()
        .unwrap();
    assert!(imported.status.success(), "{}", support::stderr(&imported));
    let written = std::fs::read_to_string(&config_file).unwrap();
    assert!(written.contains("sh -c") && !written.contains("%u >"), "no bare %u in the imported script: {written}");
    let mut config = Config::load(&config_file, true).unwrap();
    config.player = Some(format!("sh -c \"printf '%s' %u > {}\"", player_out.display()));
    config.bookmark_command = Some(format!("sh -c 'printf \"%s|%s\" %u \"%t\" > {}'", bookmark_out.display()));
    config.browser_in_terminal = Some(false);
    config.player_in_terminal = Some(false);
    let mut app = reader(&sandbox, &server, config).await;
    let row = app.state.entries.row(0).expect("the entry is read");
    let (stored_link, stored_title) =
        (row.link.clone().expect("it has a link"), row.title.clone().expect("and a title"));
    assert!(stored_link.contains("touch$IFS") && stored_title.contains("`touch"), "{stored_link} {stored_title}");

    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::NONE)));
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
    app.run_until(WAIT, |s| s.article.view.is_some()).await.unwrap();
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::NONE)));
    assert_eq!(browser_said.recv_timeout(WAIT).unwrap(), stored_link);
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('v'), KeyModifiers::NONE)));
    let played = player_said.recv_timeout(WAIT).unwrap();
    assert!(played.starts_with(&server.url("/e.mp3")) && played.contains("touch"), "{played}");
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('b'), KeyModifiers::CONTROL)));
    assert_eq!(bookmark_said.recv_timeout(WAIT).unwrap(), format!("{stored_link}|{stored_title}"));
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('|'), KeyModifiers::NONE)));
    for c in format!("sh -c 'cat > /dev/null; printf \"%s|%s\" %u %t > {}'", pipe_out.display()).chars() {
        app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)));
    }
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
    assert_eq!(pipe_said.recv_timeout(WAIT).unwrap(), format!("{stored_link}|{stored_title}"));
    nothing_ran(&traps);
}

#[test]
fn a_notify_command_gets_titles_as_data_and_one_that_hangs_is_stopped_after_ten_seconds() {
    let sandbox = Sandbox::new();
    let traps = sandbox.path("traps");
    std::fs::create_dir_all(&traps).unwrap();
    let [semicolon, dollar, backquote, quoted] = hostile(&traps);
    let title = format!("A {semicolon} B {dollar} C {backquote} D {quoted} $IFS end");
    let server = Server::start();
    // Enough entries that their JSON is larger than a pipe holds: a command that never reads must not matter.
    let items = |prefix: &str| -> Vec<(String, String, String)> {
        (0..400).map(|i| (format!("{prefix}{i}"), title.clone(), String::new())).collect()
    };
    let route = |items: Vec<(String, String, String)>| {
        let items: Vec<(&str, &str, &str)> =
            items.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
        server.route("/feed.xml", Reply::ok("application/rss+xml", support::rss("Traps", &items)));
    };
    route(items("g"));
    let told = sandbox.path("told");
    let config = sandbox.write(
        "config.toml",
        format!("notify_every_feed = true\nnotify_command = \"sh -c 'printf %s %t >> {}'\"\n", told.display()),
    );
    let subs = sandbox.write("subs.opml", opml(&[(None, "Traps", &server.url("/feed.xml"))]));
    let run = |config: &Path, args: &[&str]| {
        let mut all = vec!["--config", support::path_str(config)];
        all.extend_from_slice(args);
        sandbox.run(&all)
    };
    assert!(run(&config, &["import", support::path_str(&subs)]).status.success());
    let refreshed = run(&config, &["refresh"]);
    assert!(refreshed.status.success(), "{}", support::stderr(&refreshed));
    let first = std::fs::read_to_string(&told).expect("the notify command ran");
    assert!(first.contains("touch$IFS") && first.contains("`touch"), "{first}");
    assert_eq!(first, title, "the title is one value, exactly");
    nothing_ran(&traps);

    // A command that never reads its input and never ends: stopped, said, and the refresh ends.
    let hanging = sandbox.write("hanging.toml", "notify_every_feed = true\nnotify_command = \"sleep 600\"\n");
    route(items("h"));
    let started = std::time::Instant::now();
    let refreshed = run(&hanging, &["refresh"]);
    let said = support::stderr(&refreshed);
    assert!(said.contains("sleep did not finish within 10 s and was stopped"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(60), "the refresh ended: {:?}", started.elapsed());
    let left = std::process::Command::new("pgrep").args(["-f", "^sleep 600$"]).output().unwrap();
    assert!(left.stdout.is_empty(), "the notify command was killed: {}", String::from_utf8_lossy(&left.stdout));
}

/// notify-send gets a feed's and an entry's titles after `--`: a title such as `-w` (wait for ever) or
/// `--app-name=Bank` is the text shown, never an option.
#[test]
fn the_desktop_notification_takes_titles_that_look_like_options_as_text() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = Sandbox::new();
    let bin = sandbox.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let said = sandbox.path("notify-send.args");
    let fake = bin.join("notify-send");
    std::fs::write(&fake, format!("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > {}\n", said.display()))
        .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = Server::start();
    server.route("/feed.xml", Reply::ok("application/rss+xml", support::rss("--app-name=Bank", &[("g1", "-w", "")])));
    let config = sandbox.write("config.toml", "notify_every_feed = true\nnotify = \"desktop\"\n");
    let subs = sandbox.write("subs.opml", opml(&[(None, "--app-name=Bank", &server.url("/feed.xml"))]));
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let run = |args: &[&str]| {
        let mut command = sandbox.tidings();
        command.env("PATH", &path).arg("--config").arg(&config).args(args);
        command.output().unwrap()
    };
    assert!(run(&["import", support::path_str(&subs)]).status.success());
    let refreshed = run(&["refresh"]);
    assert!(refreshed.status.success(), "{}", support::stderr(&refreshed));
    let args = std::fs::read_to_string(&said).expect("notify-send ran");
    let args: Vec<&str> = args.lines().collect();
    let end = args.iter().position(|a| *a == "--").expect("the options end before the text");
    assert_eq!(&args[..end], ["--app-name=tidings"], "{args:?}");
    assert!(args[end + 1].contains("--app-name=Bank") && args[end + 2] == "-w", "{args:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_for_later_hands_each_marked_entry_to_the_save_command_as_data() {
    let sandbox = Sandbox::new();
    let traps = sandbox.path("traps");
    std::fs::create_dir_all(&traps).unwrap();
    let [semicolon, dollar, ..] = hostile(&traps);
    let server = Server::start();
    let xml = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('"', "&quot;");
    let items: String = [("s1", format!("First {dollar}"), "/one"), ("s2", "Second".to_string(), "/two")]
        .iter()
        .enumerate()
        .map(|(i, (guid, title, path))| {
            format!(
                "<item><guid>{guid}</guid><title>{}</title><link>{}</link>\
                 <pubDate>Tue, 1{i} Jun 2025 10:00:00 GMT</pubDate></item>",
                xml(title),
                xml(&format!("{}{semicolon}", server.url(path)))
            )
        })
        .collect();
    server.route(
        "/feed.xml",
        Reply::ok(
            "application/rss+xml",
            format!("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Later</title>{items}</channel></rss>"),
        ),
    );
    let saved = sandbox.path("saved.txt");
    let config = Config {
        save_command: Some(format!("sh -c 'printf \"%s|%s\\n\" %u \"%t\" >> {}'", saved.display())),
        ..Config::default()
    };
    let mut app = reader(&sandbox, &server, config).await;
    app.run_until(WAIT, |s| s.entries.len() == 2).await.unwrap();
    let rows: Vec<String> = (0..2)
        .map(|i| {
            let row = app.state.entries.row(i).expect("the rows are read");
            format!("{}|{}", row.link.clone().unwrap(), row.title.clone().unwrap())
        })
        .collect();
    for key in ['l', 'x', 'x', 'W'] {
        app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char(key), KeyModifiers::NONE)));
    }
    app.run_until(WAIT, |s| s.status.log.iter().any(|m| m.text.starts_with("Saved 2 entries for later")))
        .await
        .unwrap();
    let lines: Vec<String> = std::fs::read_to_string(&saved).unwrap().lines().map(String::from).collect();
    assert_eq!(lines, rows, "each entry once, in the list's order, its address and title whole");
    nothing_ran(&traps);
}

/// newsboat's `bookmark-cmd` gets four arguments: the address, the title, a description and the feed's title
/// (`FormAction::bookmark`). A `bookmark_command` with no placeholder gets the same four, in that order, each one
/// whole argument of a real script however the title and feed title are written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bookmark_command_without_placeholders_gets_newsboats_four_values_in_its_order() {
    let sandbox = Sandbox::new();
    let traps = sandbox.path("traps");
    std::fs::create_dir_all(&traps).unwrap();
    let [semicolon, dollar, _, quoted] = hostile(&traps);
    let server = Server::start();
    let link = format!("{}{semicolon}", server.url("/a"));
    let title = format!("Deal; {dollar} and {quoted}");
    let feed_title = format!("News; $(touch {}/feed) \"double\" 'single'", traps.display());
    let xml = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('"', "&quot;");
    server.route(
        "/feed.xml",
        Reply::ok(
            "application/rss+xml",
            format!(
                "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>{}</title><link>http://x.example/</link>\
                 <item><guid>b1</guid><title>{}</title><link>{}</link></item></channel></rss>",
                xml(&feed_title),
                xml(&title),
                xml(&link)
            ),
        ),
    );
    // A real program: each argument it gets, NUL after each, written whole once it is done.
    let out = sandbox.path("bookmark.args");
    let script = sandbox.write(
        "record-bookmark",
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{0}.part' && mv '{0}.part' '{0}'\n",
            out.display()
        ),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let file = sandbox.write("subs.opml", opml(&[(None, &xml(&feed_title), &server.url("/feed.xml"))]));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let config = Config { bookmark_command: Some(script.display().to_string()), ..Config::default() };
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
    let row = app.state.entries.row(0).expect("the entry is read").clone();
    let feed = app.state.feeds.feed(row.feed_id).expect("its feed").title.clone();
    assert!(feed.contains("$(touch") && feed.contains('"') && feed.contains(';'), "{feed}");
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::NONE)));
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('b'), KeyModifiers::CONTROL)));
    let args = support::poll("the bookmark command's arguments", WAIT, || std::fs::read(&out).ok());
    let args: Vec<String> = String::from_utf8(args).unwrap().split_terminator('\0').map(str::to_string).collect();
    assert_eq!(args, [row.link.unwrap(), row.title.unwrap(), String::new(), feed], "url, title, description, feed");
    assert!(args[1].contains("$(touch") && args[1].contains('\''), "the title as it is: {}", args[1]);
    nothing_ran(&traps);
    assert!(!traps.join("feed").exists(), "the feed's title was run as code");
    // It says so once the command ended well.
    app.run_until(WAIT, |s| s.status.log.iter().any(|m| m.text.starts_with("Bookmarked Deal;"))).await.unwrap();
}
