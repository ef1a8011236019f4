//! Sync against a hostile Google Reader server (our own, on 127.0.0.1: `support::greader`), for what FreshRSS
//! cannot imitate: every sync ends, and takes at most its caps in items, ids and pages, whatever the server sends
//! — the rest comes with the next sync, nothing skipped; a busy server keeps changes waiting, never counted as
//! sent; a login token of insane length is refused and never kept; two subscriptions of one address are one
//! feed; an item of a feed the server does not list holds nothing back; a label nested a thousand deep still
//! shows its feed; and a token goes to no server but the one it was made for.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;
use support::greader::GReader;
use support::{Sandbox, stderr, stdout};
use tidings::model::{NewFeed, UserWrite};
use tidings::store;
use tidings::sync::{Limits, Report, SyncError};

/// When the server's items were stored: 2025-06-15, in microseconds.
const T0: i64 = 1_750_000_000_000_000;

/// `tidings sync` in the sandbox with `config`; one still running after a minute is killed, and the test fails.
fn sync(sandbox: &Sandbox, config: &Path) -> Output {
    let child = sandbox
        .tidings()
        .arg("--config")
        .arg(config)
        .arg("sync")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tidings sync");
    let pid = child.id() as libc::pid_t;
    let (ended, watch) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let late = watch.recv_timeout(Duration::from_secs(60)).is_err();
        if late {
            // SAFETY: signalling our own child, which has not been waited for yet (its id is still its own).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        late
    });
    let out = child.wait_with_output().expect("wait for tidings sync");
    let _ = ended.send(());
    assert!(!watchdog.join().unwrap(), "the sync did not end within a minute: {}", stderr(&out));
    out
}

/// One sync in this process, within `limits` (a minute at most).
fn sync_within(sandbox: &Sandbox, config: &str, limits: Limits) -> Result<Report, SyncError> {
    let config = tidings::config::Config::parse(config).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let writer = store::DbThread::spawn_writer(store::open_write(&sandbox.db()).unwrap());
        let fetcher = tidings::fetch::Fetcher::new(config.fetch_config()).unwrap();
        let syncing = tidings::sync::sync_within(&config.accounts[0], &fetcher, &writer, T0 / 1_000_000, limits);
        tokio::time::timeout(Duration::from_secs(60), syncing).await.expect("the sync ended within a minute")
    })
}

fn db(sandbox: &Sandbox) -> rusqlite::Connection {
    rusqlite::Connection::open(sandbox.db()).unwrap()
}

fn count(sandbox: &Sandbox, sql: &str) -> i64 {
    db(sandbox).query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Keys of the account's entries matching `condition`.
fn keys(sandbox: &Sandbox, condition: &str) -> BTreeSet<String> {
    let sql = format!("SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE {condition}");
    db(sandbox).prepare(&sql).unwrap().query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// A server with one subscription holding `items` items.
fn server_with(name: &str, items: usize) -> GReader {
    let server = GReader::start(name);
    let mut state = server.state();
    state.subscribe("feed/1", "http://example.com/one.xml", "One", None);
    state.add_items("feed/1", items, T0);
    drop(state);
    server
}

#[test]
fn a_server_repeating_a_continuation_ends_the_sync_with_a_message_and_keeps_what_came() {
    let server = server_with("loop", 5);
    server.state().mischief.repeat_continuation = true;
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config("Loop", "alice"));
    let out = sync(&sandbox, &cfg);
    assert_eq!(out.status.code(), Some(3), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("Loop: the server gave the same continuation twice while listing its items"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.asked("stream/contents"), 2, "asked again once, not for ever");
    assert_eq!(count(&sandbox, "SELECT count(*) FROM entries"), 5, "the page that came is kept");
}

#[test]
fn a_server_sending_new_pages_for_ever_is_stopped_at_the_cap_of_items() {
    let server = server_with("endless", 0);
    server.state().mischief.endless_items = true;
    let sandbox = Sandbox::new();
    let limits = Limits { items: 300, ids: 1000, pages: 50, ..Limits::default() };
    let report = sync_within(&sandbox, &server.config("Endless", "alice"), limits).unwrap();
    assert!(report.more && report.line().contains("the rest comes with the next"), "{}", report.line());
    assert_eq!((report.new, count(&sandbox, "SELECT count(*) FROM entries")), (300, 300));
    // The next one takes as many again, from where this one stopped: no more.
    let report = sync_within(&sandbox, &server.config("Endless", "alice"), limits).unwrap();
    assert_eq!((report.new, count(&sandbox, "SELECT count(*) FROM entries")), (300, 600));
    assert!(server.asked("stream/contents") <= 4, "{} pages", server.asked("stream/contents"));
}

/// Items of 20 KB each, a megabyte a sync: each sync stores what the bytes allow and says the rest comes next;
/// the next ones go on from there, and in the end every item is here once.
#[test]
fn a_sync_stores_no_more_bytes_than_its_budget_and_the_next_goes_on() {
    let server = server_with("heavy", 300);
    server.state().mischief.item_padding = 20 * 1024;
    let sandbox = Sandbox::new();
    let config = server.config("Heavy", "alice");
    let limits = Limits { bytes: 1024 * 1024, ..Limits::default() };
    let report = sync_within(&sandbox, &config, limits).unwrap();
    assert!(report.more && report.line().contains("the rest comes with the next"), "{}", report.line());
    let stored = count(&sandbox, "SELECT coalesce(sum(length(summary_html)), 0) FROM entries");
    assert!(stored <= 1024 * 1024 + 21 * 1024, "{stored} bytes stored");
    assert!((45..=52).contains(&report.new), "{} items", report.new);
    let mut syncs = 1;
    while sync_within(&sandbox, &config, limits).unwrap().more {
        syncs += 1;
        assert!(syncs < 20, "the syncs go on from where the last stopped");
    }
    assert_eq!(count(&sandbox, "SELECT count(*) FROM entries"), 300);
    assert_eq!(count(&sandbox, "SELECT count(DISTINCT key) FROM entries"), 300);
}

/// Items of 20 KB each and answers of 256 KB at most: a page of a thousand is too large, so the pages are asked
/// again smaller (and stay smaller, in the next sync too), and one sync brings every item — no answer read past
/// the limit.
#[test]
fn pages_too_large_to_read_are_asked_again_smaller_and_every_item_comes() {
    let server = server_with("large", 300);
    server.state().mischief.item_padding = 20 * 1024;
    let sandbox = Sandbox::new();
    let limits = Limits { answer: 256 * 1024, ..Limits::default() };
    let report = sync_within(&sandbox, &server.config("Large", "alice"), limits).unwrap();
    assert!(!report.more, "{}", report.line());
    assert_eq!((report.new, count(&sandbox, "SELECT count(DISTINCT key) FROM entries")), (300, 300));
    let sizes: Vec<usize> = server
        .requests()
        .iter()
        .filter(|r| r.path.contains("stream/contents"))
        .filter_map(|r| r.path.split(['?', '&']).find_map(|f| f.strip_prefix("n=")?.parse().ok()))
        .collect();
    assert_eq!(sizes[0], 1000, "{sizes:?}");
    assert!(sizes.windows(2).all(|w| w[1] <= w[0]), "once smaller, the pages stay smaller: {sizes:?}");
    let last = *sizes.last().unwrap();
    assert!(last * 20 * 1024 <= 256 * 1024 && last * 2 * 20 * 1024 > 200 * 1024, "halved as far as needed: {sizes:?}");
    assert!(sizes.len() < 60, "{} requests", sizes.len());
    // The size found is kept with the account: the next sync starts there, reading nothing too large again.
    let asked_before = sizes.len();
    server.state().add_items("feed/1", 3, T0 + 60_000_000);
    let report = sync_within(&sandbox, &server.config("Large", "alice"), limits).unwrap();
    assert_eq!(report.new, 3, "{}", report.line());
    let again: Vec<usize> = server
        .requests()
        .iter()
        .filter(|r| r.path.contains("stream/contents"))
        .skip(asked_before)
        .filter_map(|r| r.path.split(['?', '&']).find_map(|f| f.strip_prefix("n=")?.parse().ok()))
        .collect();
    assert_eq!(again.first(), Some(&last), "{again:?}");
}

/// Pages larger than the room for items waiting on the database (64 KB here, pages of 140 KB): each waits for
/// those before to be stored, and every item comes, in one sync that ends (without the writer storing what it
/// holds once that is half the room, the way down would wait for room for ever).
#[test]
fn pages_larger_than_the_room_waiting_for_the_database_are_stored_in_turn() {
    let server = server_with("crowded", 300);
    server.state().mischief.item_padding = 20 * 1024;
    let sandbox = Sandbox::new();
    let limits = Limits { waiting: 64 * 1024, answer: 256 * 1024, ..Limits::default() };
    let report = sync_within(&sandbox, &server.config("Crowded", "alice"), limits).unwrap();
    assert!(!report.more, "{}", report.line());
    assert_eq!((report.new, count(&sandbox, "SELECT count(DISTINCT key) FROM entries")), (300, 300));
}

/// One item larger than an answer may be: the sync fails saying so, after halving its pages down to one item
/// (never asking for ever).
#[test]
fn an_item_larger_than_an_answer_may_be_fails_the_sync_saying_so() {
    let server = server_with("huge", 3);
    server.state().mischief.item_padding = 300 * 1024;
    let sandbox = Sandbox::new();
    let limits = Limits { answer: 256 * 1024, ..Limits::default() };
    let Err(e) = sync_within(&sandbox, &server.config("Huge", "alice"), limits) else { panic!("the sync succeeded") };
    let said = e.to_string();
    assert!(said.contains("Huge") && said.contains("larger than") && said.contains("one item"), "{said}");
    let asked: Vec<String> =
        server.requests().into_iter().filter(|r| r.path.contains("stream/contents")).map(|r| r.path).collect();
    assert_eq!(asked.len(), 10, "halved from 1000 down to 1, once each: {asked:?}");
    assert!(asked.last().unwrap().contains("n=1&"), "{asked:?}");
    assert_eq!(count(&sandbox, "SELECT count(*) FROM entries"), 0);
}

/// A server's addresses carrying an 8-bit CSI and a right-to-left override (a feed's, in its subscription list)
/// are stored percent-encoded, and `list --json`, which escapes only C0, never prints them raw.
#[test]
fn a_servers_addresses_reach_no_output_with_their_controls() {
    let server = GReader::start("controls");
    let mut state = server.state();
    state.subscribe("feed/1", "http://example.com/one\u{9b}2J\u{202e}.xml", "One", None);
    state.add_items("feed/1", 2, T0);
    drop(state);
    let sandbox = Sandbox::new();
    sync_within(&sandbox, &server.config("Controls", "alice"), Limits::default()).unwrap();
    let stored: String = db(&sandbox).query_row("SELECT url FROM feeds", [], |r| r.get(0)).unwrap();
    assert_eq!(stored, "http://example.com/one%C2%9B2J%E2%80%AE.xml");
    let listed = sandbox.run(&["list", "--json"]);
    let json = stdout(&listed);
    assert!(
        listed.status.success() && json.contains("\"feed_url\":\"http://example.com/one%C2%9B2J%E2%80%AE.xml\""),
        "{json}"
    );
    assert!(!json.contains('\u{9b}') && !json.contains('\u{202e}'), "{json}");
}

/// 700 items, 250 a sync: each sync brings the newest it does not have (new ones first), the next goes on where
/// it stopped, and in the end every item is here once — and a sync with nothing new asks for one page.
#[test]
fn what_a_sync_leaves_at_its_cap_comes_with_the_next_and_nothing_is_skipped() {
    let server = server_with("big", 700);
    let sandbox = Sandbox::new();
    let config = server.config("Big", "alice");
    let limits = Limits { items: 250, ids: 10_000, pages: 50, ..Limits::default() };
    let report = sync_within(&sandbox, &config, limits).unwrap();
    assert!(report.more, "{}", report.line());
    let newest: BTreeSet<String> = {
        let mut items = server.state().items.clone();
        items.sort_by_key(|i| std::cmp::Reverse(i.crawl_usec));
        items.iter().take(250).map(|i| i.id.to_string()).collect()
    };
    assert_eq!(keys(&sandbox, "1"), newest, "the newest 250 first");
    // New items arrive meanwhile; they come first, and the older rest after.
    server.state().add_items("feed/1", 10, T0 + 10_000_000);
    let mut syncs = 1;
    loop {
        let before = count(&sandbox, "SELECT count(*) FROM entries");
        let report = sync_within(&sandbox, &config, limits).unwrap();
        syncs += 1;
        assert!(count(&sandbox, "SELECT count(*) FROM entries") - before <= 250, "a sync takes 250 at most");
        if !report.more {
            break;
        }
        assert!(syncs < 6, "every sync goes on where the last one stopped");
    }
    let all: BTreeSet<String> = server.state().items.iter().map(|i| i.id.to_string()).collect();
    assert_eq!(keys(&sandbox, "1"), all, "every item, once ({syncs} syncs)");
    let before = server.asked("stream/contents");
    let report = sync_within(&sandbox, &config, limits).unwrap();
    assert_eq!((report.new, server.asked("stream/contents") - before), (0, 1), "{}", report.line());
}

#[test]
fn endless_id_pages_and_unknown_ids_stay_within_the_caps_and_a_cut_set_marks_nothing_read() {
    let server = server_with("ids", 10);
    server.state().mischief.endless_ids = true;
    let sandbox = Sandbox::new();
    let limits = Limits { items: 300, ids: 500, pages: 20, ..Limits::default() };
    let report = sync_within(&sandbox, &server.config("Ids", "alice"), limits).unwrap();
    assert!(report.sets_cut && report.line().contains("longer than a sync reads"), "{}", report.line());
    assert_eq!(server.asked("stream/items/ids"), 2, "one page of each set, at the cap");
    assert_eq!(report.new, 10, "none of the endless ids is fetched past the cap of items");
    assert_eq!(keys(&sandbox, "e.read = 0").len(), 10, "missing from a cut unread set is not read");

    // Unread ids of 5,000 items the stream never lists: fetched within what is left of the cap of items.
    let server = server_with("unknown", 3);
    server.state().mischief.unknown_unread = 5_000;
    let sandbox = Sandbox::new();
    let limits = Limits { ids: 10_000, ..limits };
    let report = sync_within(&sandbox, &server.config("Unknown", "alice"), limits).unwrap();
    assert!(report.more && !report.sets_cut, "{}", report.line());
    assert_eq!((report.new, count(&sandbox, "SELECT count(*) FROM entries")), (300, 300));
    assert_eq!(server.asked("stream/items/contents"), 2, "297 asked by id, 250 a request");
}

/// Marks an entry read here, through the one write path.
fn mark_read(sandbox: &Sandbox, key: &str) {
    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let id = conn.query_row("SELECT id FROM entries WHERE key = ?1", [key], |r| r.get(0)).unwrap();
    store::apply(&mut conn, &UserWrite::SetRead { ids: vec![tidings::model::EntryId(id)], read: true }, 0).unwrap();
}

#[test]
fn a_busy_or_failing_server_keeps_every_write_waiting_and_a_new_feed_here() {
    let server = server_with("busy", 3);
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config("Busy", "alice"));
    assert!(sync(&sandbox, &cfg).status.success());
    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let new = NewFeed {
        url: "http://example.com/new.xml".into(),
        title: Some("New".into()),
        name: None,
        site_url: None,
        folder: vec!["Busy".into()],
    };
    store::apply(&mut conn, &UserWrite::AddFeed(new), 0).unwrap();
    drop(conn);

    server.state().mischief.subscription_edit = Some(429);
    let out = sync(&sandbox, &cfg);
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let said = stderr(&out);
    assert!(said.contains("Busy: the server is busy (HTTP 429") && said.contains("1 change waiting"), "{said}");
    assert_eq!(count(&sandbox, "SELECT count(*) FROM changes"), 1, "the subscription waits");
    let here = "SELECT count(*) FROM feeds WHERE url = 'http://example.com/new.xml' AND account_id IS NOT NULL";
    assert_eq!(count(&sandbox, here), 1, "and its feed stays");

    // The subscription goes up; a mark meets a failing server, and waits too.
    server.state().mischief = support::greader::Mischief { edit_tag: Some(503), ..Default::default() };
    let key = server.state().items[0].id.to_string();
    mark_read(&sandbox, &key);
    let out = sync(&sandbox, &cfg);
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    assert!(stderr(&out).contains("the server failed (HTTP 503") && stderr(&out).contains("1 change waiting"));
    assert!(server.state().subscriptions.iter().any(|s| s.url == "http://example.com/new.xml"));
    assert_eq!(count(&sandbox, "SELECT count(*) FROM changes"), 1, "the mark waits");

    server.state().mischief.edit_tag = None;
    let out = sync(&sandbox, &cfg);
    assert!(stdout(&out).contains("1 change sent"), "{}{}", stdout(&out), stderr(&out));
    assert!(server.state().items[0].read, "read here, read there");
    assert_eq!((count(&sandbox, here), count(&sandbox, "SELECT count(*) FROM changes")), (1, 0));
}

#[test]
fn a_login_token_of_insane_length_is_refused_and_never_kept() {
    let server = server_with("token", 2);
    server.state().mischief.token = Some("x".repeat(10 * 1024 * 1024));
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config("Token", "alice"));
    let out = sync(&sandbox, &cfg);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("a token that cannot be one (10485760 bytes long"), "{}", stderr(&out));
    assert_eq!(count(&sandbox, "SELECT count(*) FROM accounts WHERE auth IS NOT NULL"), 0, "not kept");

    server.state().mischief.token = None;
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "a healthy server syncs: {}", stderr(&out));
    // One an older build kept is not sent either: a login is asked instead.
    let huge = "y".repeat(10 * 1024 * 1024);
    db(&sandbox).execute("UPDATE accounts SET auth = ?1", [&huge]).unwrap();
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(count(&sandbox, "SELECT max(length(auth)) FROM accounts") < 100);
}

#[test]
fn two_subscriptions_of_one_address_are_one_feed_and_the_sync_goes_on() {
    let server = server_with("twice", 3);
    server.state().subscribe("feed/2", "http://example.com/one.xml", "One again", None);
    server.state().add_items("feed/2", 2, T0 + 5_000_000);
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config("Twice", "alice"));
    for _ in 0..2 {
        let out = sync(&sandbox, &cfg);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(count(&sandbox, "SELECT count(*) FROM feeds WHERE account_id IS NOT NULL"), 1);
    assert_eq!(count(&sandbox, "SELECT count(*) FROM entries"), 5, "the items of both, in the one feed");
}

#[test]
fn an_item_of_a_feed_the_server_does_not_list_holds_nothing_back() {
    let server = server_with("orphan", 1_500);
    server.state().add_items("feed/9", 1, T0 + 700_000);
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config("Orphan", "alice"));
    let out = sync(&sandbox, &cfg);
    assert!(stdout(&out).contains("1 item of feeds the server does not list left out"), "{}", stdout(&out));
    let before = server.asked("stream/contents");
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.asked("stream/contents") - before, 1, "a sync with nothing new reads one page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_under_a_label_nested_a_thousand_deep_shows_in_the_feed_list() {
    use tidings::app::feeds::FeedListRow;
    let server = GReader::start("deep");
    let label = vec!["Deep"; 1000].join("/");
    server.state().subscribe("feed/1", "http://example.com/deep.xml", "Deepest feed", Some(&label));
    server.state().add_items("feed/1", 1, T0);
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config("Nest", "alice"));
    let out = tokio::task::block_in_place(|| sync(&sandbox, &cfg));
    assert!(out.status.success(), "{}", stderr(&out));

    let options = tidings::runtime::Options {
        db: sandbox.db(),
        config: tidings::config::Config::parse("refresh_on_startup = false").unwrap(),
        notice: None,
        report: vec![],
        size: (80, 24),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = tidings::runtime::Reader::new(options).unwrap();
    app.start();
    app.run_until(Duration::from_secs(10), |s| s.feeds.loaded && !s.feeds.feeds.is_empty()).await.unwrap();
    let depth = app.state.feeds.rows.iter().find_map(|r| match r {
        FeedListRow::Feed { depth, .. } => Some(*depth),
        _ => None,
    });
    assert_eq!(depth, Some(store::accounts::MAX_LABEL_DEPTH + 1), "under the account and four labels");
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    app.draw(&mut terminal).unwrap();
    let screen = support::screen(terminal.backend());
    assert!(screen.contains("Deepest"), "{screen}");
}

#[test]
fn a_token_goes_to_no_server_but_the_one_it_was_made_for() {
    let (a, b) = (server_with("A", 2), server_with("B", 2));
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", a.config("Home", "alice"));
    assert!(sync(&sandbox, &cfg).status.success());
    let carried = |server: &GReader, token: &str| {
        server.requests().iter().filter(|r| r.authorization.as_deref().is_some_and(|a| a.contains(token))).count()
    };
    assert!(carried(&a, "A-alice-1") > 0, "A's token went to A");

    // The same account, another server: its first request is a login, and A's token never goes there.
    sandbox.write("config.toml", b.config("Home", "alice"));
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(b.requests()[0].path.ends_with("/accounts/ClientLogin"), "{:?}", b.requests()[0]);
    assert_eq!(carried(&b, "A-alice-1"), 0, "{:#?}", b.requests());

    // Another user on the same server: a login of its own, and alice's token is not sent for bob.
    let asked = b.requests().len();
    sandbox.write("config.toml", b.config("Home", "bob"));
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    let after = &b.requests()[asked..];
    assert!(after[0].path.ends_with("/accounts/ClientLogin"), "{:?}", after[0]);
    assert!(!after.iter().any(|r| r.authorization.as_deref().is_some_and(|a| a.contains("B-alice"))), "{after:#?}");
}

/// A server that says the API moved (a redirect) is said to have moved, with where; one that answers an error
/// page is said by its title, never its styles.
#[test]
fn a_moved_api_is_said_to_have_moved_and_an_error_page_by_its_title() {
    let server = support::server::Server::start();
    let moved = support::server::Reply::Ok {
        status: 301,
        headers: vec![("Location".into(), "https://new.example.org/api/greader.php/accounts/ClientLogin".into())],
        body: Vec::new(),
    };
    server.route("/api/greader.php/accounts/ClientLogin", moved);
    let sandbox = Sandbox::new();
    let config = format!(
        "refresh_on_startup = false\n[[accounts]]\nname = \"Moved\"\nurl = \"{}\"\nuser = \"u\"\npassword = \"p\"\n",
        server.url("/api/greader.php")
    );
    let out = sync(&sandbox, &sandbox.write("moved.toml", config));
    let said = stderr(&out);
    assert!(
        said.contains("the API moved (HTTP 301 to https://new.example.org/") && !said.contains("refused"),
        "{said}"
    );

    let page =
        "<!DOCTYPE html><html><head><title>404 Not Found</title><style>body { color: red }</style></head></html>";
    let missing = support::server::Reply::Ok { status: 404, headers: vec![], body: page.into() };
    server.route("/gone/accounts/ClientLogin", missing);
    let config = format!(
        "refresh_on_startup = false\n[[accounts]]\nname = \"Gone\"\nurl = \"{}\"\nuser = \"u\"\npassword = \"p\"\n",
        server.url("/gone")
    );
    let out = sync(&sandbox, &sandbox.write("gone.toml", config));
    let said = stderr(&out);
    assert!(said.contains("a web page: 404 Not Found") && !said.contains("color"), "{said}");
}
