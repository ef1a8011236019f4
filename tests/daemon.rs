//! The daemon and what runs beside it, as the real binary: a `new_entries` hook hears every entry once even when
//! the daemon is killed with -9 and started again (twice); a signed webhook's signature verifies and a delivery
//! refused with a 500 comes again later with the same id; `tidings list --after` chained while the daemon stores
//! sees every entry once.

// What a run saw goes to standard error, beside the test harness's own lines.
#![allow(clippy::print_stderr)]

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::server::{Reply, Server};
use support::{Sandbox, opml, path_str};

/// How long a test waits for a process to reach a state before it fails.
const DEADLINE: Duration = Duration::from_secs(60);

/// Polls `check` until it gives a value, failing the test after [`DEADLINE`].
fn poll<T>(what: &str, check: impl FnMut() -> Option<T>) -> T {
    support::poll(what, DEADLINE, check)
}

/// An RSS feed `name` with items `0..items` (no dates: each is new by its guid alone).
fn feed(name: &str, items: usize) -> Reply {
    let mut xml = format!("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>{name}</title>\n");
    for i in 0..items {
        xml.push_str(&format!(
            "<item><guid>{name}-{i}</guid><title>{name} {i}</title><link>http://example.com/{name}/{i}</link></item>\n"
        ));
    }
    xml.push_str("</channel></rss>\n");
    Reply::ok("application/rss+xml", xml)
}

fn stored_entries(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .and_then(|c| c.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)))
        .unwrap_or(0)
}

/// A daemon the test started; a test that fails leaves none running.
struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn daemon(sandbox: &Sandbox, config: &Path) -> Daemon {
    let mut command = sandbox.tidings();
    command.args(["--config", path_str(config), "daemon", "--interval", "1s"]);
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    Daemon(command.spawn().expect("start the daemon"))
}

fn stop(mut daemon: Daemon, signal: &str) {
    assert!(Command::new("kill").args([signal, &daemon.0.id().to_string()]).status().unwrap().success());
    poll("the daemon to stop", || daemon.0.try_wait().unwrap());
}

/// Every delivery the hook wrote (one file each): its id and the ids of its entries.
fn deliveries(dir: &Path) -> Vec<(i64, Vec<i64>)> {
    let mut found = Vec::new();
    for file in std::fs::read_dir(dir).unwrap() {
        // A file listed may be renamed before it is read (the hook writes under a temporary name first): it is
        // read under its final name by the next look.
        let Ok(text) = std::fs::read_to_string(file.unwrap().path()) else { continue };
        // A file is renamed once written whole: one that does not parse is a delivery a kill cut short (its
        // input ended with the daemon), made again whole by the next daemon. It counts for nothing here.
        let Ok(event) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        assert_eq!(event["event"], "new_entries");
        let ids = event["entries"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
        found.push((event["id"].as_i64().unwrap(), ids));
    }
    found
}

#[test]
fn every_new_entry_reaches_the_hook_once_across_two_kills_of_the_daemon() {
    const FEEDS: usize = 5;
    const STEP: usize = 20;
    const STEPS: usize = 6;
    let server = Server::start();
    let sandbox = Sandbox::new();
    let names: Vec<String> = (0..FEEDS).map(|i| format!("f{i}")).collect();
    let subs: Vec<(Option<&str>, &str, String)> =
        names.iter().map(|n| (None, n.as_str(), server.url(&format!("/{n}.xml")))).collect();
    let subs: Vec<(Option<&str>, &str, &str)> = subs.iter().map(|(f, t, u)| (*f, *t, u.as_str())).collect();
    let subs = sandbox.write("subs.opml", opml(&subs));
    assert!(sandbox.run(&["import", path_str(&subs)]).status.success());
    let hooked = sandbox.path("hooked");
    std::fs::create_dir(&hooked).unwrap();
    // One file per delivery, written whole and then renamed, so a delivery cut short by a kill leaves none.
    let config = sandbox.write(
        "config.toml",
        format!(
            "refresh_interval_minutes = 0\nhook_timeout_seconds = 2\nhook_retry_seconds = 1\n\n[[hooks]]\n\
             on = \"new_entries\"\ncommand = \"sh -c 'cat > \\\"$0/.$$\\\" && sleep 0.5 && mv \\\"$0/.$$\\\" \\\"$0/$$.json\\\"' {}\"\n",
            path_str(&hooked)
        ),
    );
    let mut running = daemon(&sandbox, &config);
    for step in 1..=STEPS {
        for name in &names {
            server.route(&format!("/{name}.xml"), feed(name, step * STEP));
        }
        let expected = (step * STEP * FEEDS) as i64;
        poll("the daemon to store the step's entries", || (stored_entries(&sandbox.db()) == expected).then_some(()));
        if step == 2 || step == 4 {
            // Killed just as the hook hears of what it stored: some deliveries are in flight.
            stop(running, "-KILL");
            running = daemon(&sandbox, &config);
        }
    }
    let total = STEP * FEEDS * STEPS;
    let heard = poll("the hook to hear of every entry", || {
        let heard = deliveries(&hooked);
        let ids: std::collections::HashSet<i64> = heard.iter().flat_map(|(_, ids)| ids.iter().copied()).collect();
        (ids.len() == total).then_some(heard)
    });
    stop(running, "-TERM");
    // An entry heard twice is only ever an event heard twice: a delivery in flight at a kill, made again.
    let mut by_entry: HashMap<i64, Vec<i64>> = HashMap::new();
    for (delivery, ids) in &heard {
        for id in ids {
            by_entry.entry(*id).or_default().push(*delivery);
        }
    }
    let twice: Vec<_> = by_entry.iter().filter(|(_, deliveries)| deliveries.len() > 1).collect();
    for (entry, deliveries) in &twice {
        assert!(
            deliveries.iter().all(|d| *d == deliveries[0]),
            "entry {entry} came in different events: {deliveries:?}"
        );
    }
    let mut again: Vec<i64> = twice.iter().map(|(_, d)| d[0]).collect();
    again.sort_unstable();
    again.dedup();
    let files = std::fs::read_dir(&hooked).unwrap().count();
    eprintln!("{} deliveries cut short by the kills", files - heard.len());
    eprintln!(
        "{total} entries, {} deliveries; heard twice: {} entries, in {} deliveries",
        heard.len(),
        twice.len(),
        again.len()
    );
    assert!(again.len() <= 2 * 16, "only deliveries in flight at the two kills come twice: {again:?}");
}

#[test]
fn a_webhook_is_signed_and_an_event_refused_with_500_comes_again_with_its_id() {
    let server = Server::start();
    server.route("/a.xml", feed("a", 3));
    server.route("/hook", Reply::status(500));
    let sandbox = Sandbox::new();
    let subs = sandbox.write("subs.opml", opml(&[(Some("Work"), "A", &server.url("/a.xml"))]));
    assert!(sandbox.run(&["import", path_str(&subs)]).status.success());
    let config = sandbox.write(
        "config.toml",
        format!(
            "refresh_interval_minutes = 0\nhook_timeout_seconds = 5\nhook_retry_seconds = 1\n\n[[hooks]]\n\
             on = \"new_entries\"\nquery = 'folder = \"Work\"'\nurl = \"{}\"\nsecret = \"Jefe\"\n",
            server.url("/hook")
        ),
    );
    let running = daemon(&sandbox, &config);
    let first = poll("the webhook's first try", || server.requests_for("/hook").into_iter().next());
    server.route("/hook", Reply::status(200));
    let second = poll("the webhook's second try", || server.requests_for("/hook").into_iter().nth(1));
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    poll("the delivery to be recorded done", || {
        db.query_row("SELECT count(*) FROM hook_deliveries WHERE done_at IS NOT NULL", [], |r| r.get::<_, i64>(0))
            .ok()
            .filter(|n| *n == 1)
    });
    stop(running, "-TERM");

    assert_eq!(first.header("x-tidings-delivery"), second.header("x-tidings-delivery"), "the same event, by its id");
    assert_eq!(first.body, second.body);
    assert_eq!(first.header("x-tidings-event"), Some("new_entries"));
    assert_eq!(first.header("content-type"), Some("application/json"));
    // The receiver's check: HMAC-SHA256 of the body with the shared secret (RFC 4231's test key).
    let expected = tidings::hooks::sign::signature(b"Jefe", &first.body);
    assert_eq!(first.header("x-tidings-signature"), Some(expected.as_str()));
    let event: serde_json::Value = serde_json::from_slice(&first.body).unwrap();
    assert_eq!(event["id"].to_string(), first.header("x-tidings-delivery").unwrap());
    let titles: Vec<&str> = event["entries"].as_array().unwrap().iter().map(|e| e["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["a 0", "a 1", "a 2"]);
    assert_eq!(event["entries"][0]["folder"], "Work");
    assert_eq!(event["entries"][0]["link"], "http://example.com/a/0");
    assert_eq!(event["entries"][0]["feed_url"], server.url("/a.xml"));
}

#[test]
fn list_after_a_cursor_chained_while_the_daemon_stores_sees_every_entry_once() {
    const FEEDS: usize = 3;
    const RUNS: usize = 20;
    let server = Server::start();
    let sandbox = Sandbox::new();
    let urls: Vec<String> = (0..FEEDS).map(|i| server.url(&format!("/c{i}.xml"))).collect();
    let subs: Vec<(Option<&str>, &str, &str)> = urls.iter().map(|u| (None, "C", u.as_str())).collect();
    let subs = sandbox.write("subs.opml", opml(&subs));
    assert!(sandbox.run(&["import", path_str(&subs)]).status.success());
    let config = sandbox.write("config.toml", "refresh_interval_minutes = 0\n");
    let running = daemon(&sandbox, &config);
    let list = |after: &str| {
        let out = sandbox.run(&["--config", path_str(&config), "list", "--json", "--after", after]);
        assert!(out.status.success(), "{}", support::stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let ids: Vec<i64> = json["entries"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
        (ids, json["cursor"].as_str().unwrap().to_string())
    };
    let (mut seen, mut cursor) = (Vec::new(), "0".to_string());
    for run in 1..=RUNS {
        // The feeds grow as the runs go: the daemon stores while the lists are read.
        for i in 0..FEEDS {
            server.route(&format!("/c{i}.xml"), feed(&format!("c{i}"), run * 5));
        }
        let (ids, next) = list(&cursor);
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "oldest first: {ids:?}");
        seen.extend(ids);
        cursor = next;
    }
    let total = (FEEDS * RUNS * 5) as i64;
    poll("the daemon to store every entry", || (stored_entries(&sandbox.db()) == total).then_some(()));
    let (ids, _) = list(&cursor);
    seen.extend(ids);
    stop(running, "-TERM");
    let mut once = seen.clone();
    once.sort_unstable();
    once.dedup();
    assert_eq!(once.len(), seen.len(), "no entry printed twice");
    assert_eq!(once, (1..=total).collect::<Vec<_>>(), "and none missing");
}

fn unread_of(state: &tidings::app::State) -> i64 {
    state.feeds.feeds.iter().map(|f| f.unread).sum()
}

fn open_entry(state: &tidings::app::State) -> Option<i64> {
    state.article.view.as_ref().map(|v| v.detail.id.0)
}

/// A reader (or a command) looking whether the daemon is there connects and says nothing: no warning in the
/// daemon's log for that, while a line it does not know is still warned of.
#[test]
fn a_look_at_the_socket_is_no_warning_and_a_request_it_does_not_know_is() {
    use std::io::Write;
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", "refresh_interval_minutes = 0\n");
    let log = sandbox.path("daemon.log");
    let mut command = sandbox.tidings();
    command.args(["--config", path_str(&config), "--log", path_str(&log), "daemon", "--interval", "1h"]);
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    let running = Daemon(command.spawn().expect("start the daemon"));
    poll("the daemon's socket", || tidings::daemon_socket::daemon_listens(&sandbox.db()).then_some(()));
    for _ in 0..3 {
        assert!(tidings::daemon_socket::daemon_listens(&sandbox.db()));
    }
    let mut stream = std::os::unix::net::UnixStream::connect(tidings::daemon_socket::path(&sandbox.db())).unwrap();
    stream.write_all(b"nonsense\n").unwrap();
    drop(stream);
    let warned = || std::fs::read_to_string(&log).unwrap_or_default().matches("a request it does not know").count();
    poll("the warning of the nonsense", || (warned() > 0).then_some(()));
    stop(running, "-TERM");
    assert_eq!(warned(), 1, "{}", std::fs::read_to_string(&log).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_beside_the_daemon_shows_what_it_stores_asks_it_to_refresh_and_keeps_every_mark() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use tidings::app::Event;
    let wait = Duration::from_secs(20);
    let key = |app: &mut tidings::runtime::Reader, c: char| {
        app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)));
    };
    let server = Server::start();
    server.route("/r.xml", feed("r", 12));
    let sandbox = Sandbox::new();
    let subs = sandbox.write("subs.opml", opml(&[(None, "R", &server.url("/r.xml"))]));
    assert!(sandbox.run(&["import", path_str(&subs)]).status.success());
    // The daemon refreshes every second: it writes while the reader does.
    let config = sandbox.write("config.toml", "refresh_interval_minutes = 0\n");
    let running = daemon(&sandbox, &config);
    poll("the daemon's first refresh", || (stored_entries(&sandbox.db()) == 12).then_some(()));
    poll("the daemon's socket", || tidings::daemon_socket::daemon_listens(&sandbox.db()).then_some(()));

    let options = tidings::runtime::Options {
        db: sandbox.db(),
        config: tidings::config::Config { refresh_on_startup: true, ..Default::default() },
        notice: None,
        report: vec![],
        size: (140, 30),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = tidings::runtime::Reader::new(options).unwrap();
    app.start();
    app.run_until(wait, |s| s.feeds.loaded && unread_of(s) == 12).await.unwrap();
    assert!(app.state.progress.is_idle(), "the reader does not refresh on its own beside the daemon");

    // What the daemon stores shows within 5 s of its storing.
    server.route("/r.xml", feed("r", 15));
    poll("the daemon to store the new entries", || (stored_entries(&sandbox.db()) == 15).then_some(()));
    app.run_until(Duration::from_secs(5), |s| unread_of(s) == 15).await.unwrap();

    // R asks the daemon, which refreshes at once; the reader says what it brought.
    let asked = server.requests_for("/r.xml").len();
    server.route("/r.xml", feed("r", 16));
    key(&mut app, 'R');
    app.run_until(wait, |s| s.progress.is_idle() && unread_of(s) == 16).await.unwrap();
    assert!(server.requests_for("/r.xml").len() > asked);

    // n s m, ten times, while the daemon writes: every mark is in the database after q.
    for _ in 0..10 {
        let before = open_entry(&app.state);
        key(&mut app, 'n');
        app.run_until(wait, |s| open_entry(s).is_some() && open_entry(s) != before).await.unwrap();
        key(&mut app, 's');
        key(&mut app, 'm');
    }
    key(&mut app, 'q');
    app.run_until(wait, |s| s.quit).await.unwrap();
    app.flush_writes().await.unwrap();
    drop(app);
    stop(running, "-TERM");
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let (starred, starred_unread): (i64, i64) = db
        .query_row("SELECT count(*), coalesce(sum(read = 0), 0) FROM entries WHERE starred = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((starred, starred_unread), (10, 10), "ten starred, each marked unread again after it was read");
}

#[test]
fn a_hook_that_hangs_or_floods_holds_up_neither_the_refreshes_nor_the_other_hooks() {
    let server = Server::start();
    server.route("/h.xml", feed("h", 3));
    let sandbox = Sandbox::new();
    let subs = sandbox.write("subs.opml", opml(&[(None, "H", &server.url("/h.xml"))]));
    assert!(sandbox.run(&["import", path_str(&subs)]).status.success());
    let hooked = sandbox.path("hooked");
    std::fs::create_dir(&hooked).unwrap();
    let config = sandbox.write(
        "config.toml",
        format!(
            "refresh_interval_minutes = 0\nhook_timeout_seconds = 60\n\n[[hooks]]\non = \"new_entries\"\n\
             command = \"sleep 600\"\n\n[[hooks]]\non = \"new_entries\"\ncommand = \"yes\"\n\n[[hooks]]\n\
             on = \"new_entries\"\ncommand = \"sh -c 'cat > \\\"$0/.$$\\\" && mv \\\"$0/.$$\\\" \\\"$0/$$.json\\\"' {}\"\n",
            path_str(&hooked)
        ),
    );
    let started = Instant::now();
    let running = daemon(&sandbox, &config);
    let heard = |n: usize| deliveries(&hooked).iter().map(|(_, ids)| ids.len()).sum::<usize>() == n;
    poll("the third hook to hear of the first entries", || heard(3).then_some(()));
    server.route("/h.xml", feed("h", 6));
    poll("the daemon to store more while a hook hangs", || (stored_entries(&sandbox.db()) == 6).then_some(()));
    poll("the third hook to hear of them too", || heard(6).then_some(()));
    assert!(started.elapsed() < Duration::from_secs(30), "nobody waited for the hanging hook's 60 s");
    stop(running, "-TERM");
    let left = Command::new("pgrep").args(["-f", "^sleep 600$"]).output().unwrap();
    assert!(left.stdout.is_empty(), "the daemon stopped its hanging hook: {}", String::from_utf8_lossy(&left.stdout));
}

/// Beside a daemon, the reader's syncs are the daemon's too: at start and on `R` it asks the daemon, which syncs
/// and answers each account's line. The reader's own config points the account at an address nothing answers,
/// so a sync the reader ran itself would say it cannot reach the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_beside_the_daemon_asks_it_to_sync_the_accounts() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use support::freshrss::{FreshRss, PASSWORD, populated, skipped};
    let freshrss = match FreshRss::start() {
        Ok(server) => server,
        Err(why) => return skipped("a_reader_beside_the_daemon_asks_it_to_sync_the_accounts", &why),
    };
    let feeds_server = Server::start();
    let api = tokio::task::block_in_place(|| populated(&freshrss, &feeds_server));
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", freshrss.config(PASSWORD));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    // Synced once at start, then not for an hour: what comes later is what a reader asked for.
    let mut command = sandbox.tidings();
    command.args(["--config", path_str(&config), "daemon", "--interval", "1h"]);
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    let running = Daemon(command.spawn().expect("start the daemon"));
    poll("the daemon's first sync", || (stored_entries(&sandbox.db()) == 12).then_some(()));
    poll("the daemon's socket", || tidings::daemon_socket::daemon_listens(&sandbox.db()).then_some(()));

    let unreachable = freshrss.config(PASSWORD).replace(&freshrss.api_url(), "http://127.0.0.1:9/api/greader.php");
    let options = tidings::runtime::Options {
        db: sandbox.db(),
        config: tidings::config::Config::parse(&unreachable).unwrap(),
        notice: None,
        report: vec![],
        size: (140, 30),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = tidings::runtime::Reader::new(options).unwrap();
    app.start();
    let wait = Duration::from_secs(60);
    let said = |s: &tidings::app::State, start: &str| {
        s.sync.in_flight.is_empty() && s.status.log.iter().any(|m| m.text.starts_with(start))
    };
    app.run_until(wait, |s| s.feeds.loaded && said(s, "FreshRSS: 0 new")).await.unwrap();
    assert_eq!(unread_of(&app.state), 10);

    // The phone reads everything; R asks the daemon, which brings it.
    let all: Vec<String> = api.ids("all").into_iter().collect();
    tokio::task::block_in_place(|| api.mark(&all, "read", true));
    app.dispatch(tidings::app::Event::Key(KeyEvent::new(KeyCode::Char('R'), KeyModifiers::NONE)));
    assert!(app.state.sync.in_flight.contains("FreshRSS"), "R syncs the account");
    app.run_until(wait, |s| said(s, "FreshRSS: 0 new, 10 marked on the server")).await.unwrap();
    app.run_until(Duration::from_secs(10), |s| unread_of(s) == 0).await.unwrap();
    let errors: Vec<&str> = app.state.status.log.iter().filter(|m| m.error).map(|m| m.text.as_str()).collect();
    assert!(errors.is_empty(), "the reader never synced against its own (unreachable) address: {errors:?}");
    drop(app);
    stop(running, "-TERM");
}
