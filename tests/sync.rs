//! Sync against a real FreshRSS (the kit next to the repository, served by PHP on 127.0.0.1): a cold sync brings
//! every feed, label, item and flag; changes made on the server arrive with the next sync, in few requests;
//! marks made here while the server is down wait in the change log and arrive when it is back, also after a
//! kill -9 in the middle of a sync; subscription changes made here reach the server; a wrong password and a
//! wrong address are said with what to do. Where PHP is missing, each test says it skipped, and why.

mod support;

use support::accounts::{folder_names, keys, mark_here};

use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use support::freshrss::{Cutoff, FreshRss, feeds, populated, skipped};
use support::server::{Reply, Server};
use support::{Sandbox, stderr, stdout};
use tidings::model::{Applied, NewFeed, UserWrite};
use tidings::store;

/// A FreshRSS, or the test says it skipped and returns.
macro_rules! freshrss_or_skip {
    ($test:expr) => {
        match FreshRss::start() {
            Ok(server) => server,
            Err(why) => {
                skipped($test, &why);
                return;
            }
        }
    };
}

/// `tidings sync` in the sandbox, with the config given.
fn sync(sandbox: &Sandbox, config: &std::path::Path) -> std::process::Output {
    sandbox.tidings().arg("--config").arg(config).arg("sync").output().expect("run tidings sync")
}

fn db(sandbox: &Sandbox) -> rusqlite::Connection {
    rusqlite::Connection::open(sandbox.db()).unwrap()
}

fn config(sandbox: &Sandbox, freshrss: &FreshRss, password: &str) -> std::path::PathBuf {
    let path = sandbox.write("config.toml", freshrss.config(password));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path
}

#[test]
fn a_cold_sync_brings_every_feed_label_item_and_flag() {
    let freshrss = freshrss_or_skip!("a_cold_sync_brings_every_feed_label_item_and_flag");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("FreshRSS: 12 new"), "{}", stdout(&out));

    assert_eq!(keys(&sandbox, "1"), api.ids("all"), "every item");
    assert_eq!(keys(&sandbox, "e.read = 0"), api.ids("unread"), "every unread flag");
    assert_eq!(keys(&sandbox, "e.starred = 1"), api.ids("starred"), "every starred flag");
    let folders: BTreeSet<(String, Option<String>)> = db(&sandbox)
        .prepare(
            "SELECT d.name, p.name FROM feeds f JOIN folders d ON d.id = f.folder_id LEFT JOIN folders p ON p.id = d.parent_id
             WHERE f.account_id IS NOT NULL",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // News under the account's folder, Tech under News: the label News/Tech is the nested folder.
    let expected: BTreeSet<(String, Option<String>)> = [
        ("News".to_string(), Some("FreshRSS".to_string())),
        ("Tech".to_string(), Some("News".to_string())),
        ("Uncategorized".to_string(), Some("FreshRSS".to_string())),
    ]
    .into();
    assert_eq!(folders, expected);
    // `unread` lists them like any other feed.
    let unread = sandbox.run(&["--config", cfg.to_str().unwrap(), "unread"]);
    assert!(stdout(&unread).contains(" 10  total"), "{}", stdout(&unread));
}

#[test]
fn changes_on_the_server_arrive_with_the_next_sync_in_four_requests_when_nothing_changed() {
    let freshrss = freshrss_or_skip!("changes_on_the_server_arrive_with_the_next_sync");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());

    // Nothing changed: a sync asks four things, and logs in no more (its token is kept).
    let before = freshrss.requests().len();
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    let asked = &freshrss.requests()[before..];
    assert!(asked.len() <= 4, "a sync with nothing new made {} requests: {asked:#?}", asked.len());

    // The phone reads everything unread but one, unstars, stars another; a feed gets two new items.
    let unread: Vec<String> = api.ids("unread").into_iter().collect();
    api.mark(&unread[1..], "read", true);
    let starred: Vec<String> = api.ids("starred").into_iter().collect();
    api.mark(&starred, "starred", false);
    api.mark(&unread[..1], "starred", true);
    feeds(&feeds_server, &[("/a.xml", "Alpha", 7)]);
    freshrss.fetched_again(&feeds_server, "/a.xml");
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("FreshRSS: 2 new"), "{}", stdout(&out));
    assert_eq!(keys(&sandbox, "1"), api.ids("all"));
    assert_eq!(keys(&sandbox, "e.read = 0"), api.ids("unread"), "read on the phone, read here");
    assert_eq!(keys(&sandbox, "e.starred = 1"), api.ids("starred"), "starred on the phone, starred here");
}

/// A server that stores a whole refresh within one second (FreshRSS does) and holds more than a page of items:
/// a sync with nothing new asks for one page, sees it had all of it, and stops; new items still arrive.
#[test]
fn a_sync_with_nothing_new_reads_one_page_of_items_however_many_the_server_holds() {
    let freshrss = freshrss_or_skip!("a_sync_with_nothing_new_reads_one_page_of_items");
    let feeds_server = Server::start();
    // Imported, then fetched in one run: FreshRSS gives the 1,350 items ids within a few milliseconds.
    let api = freshrss.api();
    let filled = support::freshrss::fill(&freshrss, &feeds_server, 3, 450);
    assert_eq!(filled.all.len(), 1350, "FreshRSS fetched every item: more than a page of a thousand");
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    let out = sync(&sandbox, &cfg);
    assert!(stdout(&out).starts_with("FreshRSS: 1350 new"), "{}{}", stdout(&out), stderr(&out));

    let before = freshrss.requests().len();
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    let asked = &freshrss.requests()[before..];
    let pages = asked.iter().filter(|r| r.contains("stream/contents")).count();
    assert_eq!(pages, 1, "one page of items for a sync with nothing new: {asked:#?}");
    assert!(asked.len() <= 4, "a sync with nothing new made {} requests: {asked:#?}", asked.len());

    feeds_server.route("/f0.xml", Reply::ok("application/rss+xml", support::freshrss::farm_feed(0, 452)));
    freshrss.fetched_again(&feeds_server, "/f0.xml");
    let out = sync(&sandbox, &cfg);
    assert!(stdout(&out).starts_with("FreshRSS: 2 new"), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(keys(&sandbox, "1"), api.ids("all"), "every item, the new ones too");
}

#[test]
fn marks_made_while_the_server_is_down_wait_and_arrive_when_it_is_back() {
    let mut freshrss = freshrss_or_skip!("marks_made_while_the_server_is_down_wait_and_arrive_when_it_is_back");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());

    freshrss.stop();
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    mark_here(&sandbox, &unread[..3], |ids| UserWrite::SetRead { ids, read: true });
    mark_here(&sandbox, &unread[3..5], |ids| UserWrite::SetStarred { ids, starred: true });
    let read: Vec<String> = keys(&sandbox, "e.read = 1 AND e.starred = 0").into_iter().take(1).collect();
    mark_here(&sandbox, &read, |ids| UserWrite::SetRead { ids, read: false });
    let offline = sync(&sandbox, &cfg);
    assert_eq!(offline.status.code(), Some(3), "an account that cannot be reached: {}", stderr(&offline));
    assert!(
        stderr(&offline).contains("FreshRSS offline") && stderr(&offline).contains("6 changes waiting"),
        "{}",
        stderr(&offline)
    );

    freshrss.serve();
    let back = sync(&sandbox, &cfg);
    assert!(back.status.success(), "{}", stderr(&back));
    assert!(stdout(&back).contains("6 changes sent"), "{}", stdout(&back));
    let server_unread = api.ids("unread");
    assert!(unread[..3].iter().all(|k| !server_unread.contains(k)), "read here, read there");
    assert!(server_unread.contains(&read[0]), "unread here, unread there");
    let server_starred = api.ids("starred");
    assert!(unread[3..5].iter().all(|k| server_starred.contains(k)), "starred here, starred there");
    let waiting: i64 = db(&sandbox).query_row("SELECT count(*) FROM changes", [], |r| r.get(0)).unwrap();
    assert_eq!(waiting, 0, "the log is empty once the server took it all");
    assert_eq!(keys(&sandbox, "e.read = 0"), server_unread, "and both sides agree");
}

#[test]
fn a_sync_killed_midway_loses_no_change_and_the_next_one_finishes() {
    let freshrss = freshrss_or_skip!("a_sync_killed_midway_loses_no_change_and_the_next_one_finishes");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    mark_here(&sandbox, &unread, |ids| UserWrite::SetRead { ids, read: true });

    // Killed as soon as the server has seen its first request.
    let before = freshrss.requests().len();
    let mut child = sandbox.tidings().arg("--config").arg(&cfg).arg("sync").spawn().unwrap();
    let started = Instant::now();
    while freshrss.requests().len() == before && child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < Duration::from_secs(30), "the sync made no request");
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = child.kill();
    child.wait().unwrap();
    let integrity: String = db(&sandbox).query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");

    let again = sync(&sandbox, &cfg);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(api.ids("unread").is_empty(), "every mark made here reached the server");
    assert!(keys(&sandbox, "e.read = 0").is_empty());
}

#[test]
fn subscription_changes_made_here_reach_the_server() {
    let freshrss = freshrss_or_skip!("subscription_changes_made_here_reach_the_server");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    feeds(&feeds_server, &[("/d.xml", "Delta", 2)]);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());

    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let feed_of = |conn: &rusqlite::Connection, title: &str| {
        tidings::model::FeedId(
            conn.query_row("SELECT id FROM feeds WHERE title = ?1 AND account_id IS NOT NULL", [title], |r| r.get(0))
                .unwrap(),
        )
    };
    // Subscribed here, in the account's News folder.
    let delta = NewFeed {
        url: feeds_server.url("/d.xml"),
        title: Some("Delta".into()),
        name: None,
        site_url: None,
        folder: vec!["FreshRSS".into(), "News".into()],
    };
    assert!(matches!(
        store::apply(&mut conn, &UserWrite::AddFeed(delta), 0).unwrap(),
        Applied::Subscribed { added: true, .. }
    ));
    // Renamed, moved from News/Tech to News, and one deleted.
    let beta = feed_of(&conn, "Beta");
    store::apply(&mut conn, &UserWrite::RenameFeed { feed_id: beta, title: Some("Better Beta".into()) }, 0).unwrap();
    store::apply(&mut conn, &UserWrite::MoveFeed { feed_id: beta, folder: vec!["FreshRSS".into(), "News".into()] }, 0)
        .unwrap();
    let gamma = feed_of(&conn, "Gamma");
    store::apply(&mut conn, &UserWrite::DeleteFeed(gamma), 0).unwrap();
    // A move out of the account's folder is refused, with why.
    let alpha = feed_of(&conn, "Alpha");
    let refused = store::apply(&mut conn, &UserWrite::MoveFeed { feed_id: alpha, folder: vec!["Local".into()] }, 0);
    assert!(refused.unwrap_err().to_string().contains("cannot leave the account's folder"));
    drop(conn);

    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    let subs = api.subscriptions();
    let by_url = |url: &str| subs.iter().find(|s| s.2 == url).cloned();
    let d = by_url(&feeds_server.url("/d.xml")).expect("subscribed on the server");
    assert_eq!(d.3.as_deref(), Some("News"));
    let b = by_url(&feeds_server.url("/b.xml")).unwrap();
    assert_eq!((b.1.as_str(), b.3.as_deref()), ("Better Beta", Some("News")));
    assert!(by_url(&feeds_server.url("/c.xml")).is_none(), "unsubscribed on the server");
    // The next sync brings Delta's items, and Gamma stays gone.
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(keys(&sandbox, "1"), api.ids("all"));
}

#[test]
fn a_starred_entry_the_server_forgot_stays_starred_here_and_one_unstarred_there_goes() {
    let freshrss = freshrss_or_skip!("a_starred_entry_the_server_forgot_stays_starred_here");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    let all: Vec<String> = api.ids("all").into_iter().collect();
    api.mark(&all[5..7], "starred", true);
    assert!(sync(&sandbox, &cfg).status.success());
    let starred = keys(&sandbox, "e.starred = 1");
    assert!(starred.contains(&all[5]) && starred.contains(&all[6]));

    // One is unstarred on the phone; the server forgets the other.
    api.mark(&all[5..6], "starred", false);
    freshrss.forget(&all[6..7]);
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("1 starred entry the server no longer has kept here"), "{}", stdout(&out));
    let starred = keys(&sandbox, "e.starred = 1");
    assert!(!starred.contains(&all[5]), "unstarred there, unstarred here");
    assert!(starred.contains(&all[6]), "the server forgot it: still starred here");
}

#[test]
fn a_wrong_password_and_a_wrong_address_are_said_with_what_to_do() {
    let freshrss = freshrss_or_skip!("a_wrong_password_and_a_wrong_address_are_said_with_what_to_do");
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, "not-the-password");
    let out = sync(&sandbox, &cfg);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("FreshRSS refused alice's API password") && stderr(&out).contains("profile page"),
        "{}",
        stderr(&out)
    );
    // A wrong password from a file: the file is named, not the config's `password`.
    let file = sandbox.write("password", "not-the-password\n");
    let from_file =
        freshrss.config("x").replace("password = \"x\"", &format!("password_file = {:?}", file.to_str().unwrap()));
    let out = sync(&sandbox, &sandbox.write("from-file.toml", from_file));
    assert!(
        stderr(&out).contains("the first line of `password_file`") && !stderr(&out).contains("`password`"),
        "{}",
        stderr(&out)
    );
    // The address of FreshRSS's web pages, not its API.
    let web = freshrss.config("alice-api-pass").replace("/api/greader.php", "/");
    let cfg = sandbox.write("web.toml", web);
    let out = sync(&sandbox, &cfg);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("check `url`"), "{}", stderr(&out));
    // And a password in a file others may read is warned about.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o644)).unwrap();
        let out = sync(&sandbox, &cfg);
        assert!(stderr(&out).contains("others may read it"), "{}", stderr(&out));
    }
}

#[test]
fn the_server_stopped_mid_sync_leaves_the_rest_for_the_next_sync() {
    let freshrss = freshrss_or_skip!("the_server_stopped_mid_sync_leaves_the_rest_for_the_next_sync");
    let feeds_server = Server::start();
    // 1,500 items: two pages.
    let specs: Vec<(String, String, usize)> = (0..3).map(|i| (format!("/f{i}.xml"), format!("F{i}"), 500)).collect();
    let refs: Vec<(&str, &str, usize)> = specs.iter().map(|(p, t, n)| (p.as_str(), t.as_str(), *n)).collect();
    feeds(&feeds_server, &refs);
    let api = freshrss.api();
    for (path, _, _) in &specs {
        api.subscribe(&feeds_server.url(path), Some("Big"));
    }
    assert_eq!(api.ids("all").len(), 1_500);
    let sandbox = Sandbox::new();
    // The server goes down once it has served the first page of items.
    let cutoff = Cutoff::new(&freshrss, "stream/contents");
    let cfg = sandbox.write("config.toml", cutoff.config(&freshrss));
    let stopped = sync(&sandbox, &cfg);
    assert_eq!(stopped.status.code(), Some(3), "{}", stderr(&stopped));
    assert!(stderr(&stopped).contains("FreshRSS offline"), "{}", stderr(&stopped));
    let kept = keys(&sandbox, "1").len();
    let feeds: i64 = db(&sandbox).query_row("SELECT count(*) FROM feeds", [], |r| r.get(0)).unwrap();
    assert_eq!(kept, 1_000, "the first page is kept ({feeds} feeds; said: {})", stderr(&stopped));

    cutoff.reopen();
    let again = sync(&sandbox, &cfg);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(keys(&sandbox, "1"), api.ids("all"), "every item, once");
}

/// The reader syncs at start and on `R`: a mark made on the phone shows, a star made here reaches the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reader_syncs_at_start_and_on_r_and_says_what_happened() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use tidings::app::Event;
    use tidings::runtime::{Options, Reader};
    let freshrss = freshrss_or_skip!("the_reader_syncs_at_start_and_on_r_and_says_what_happened");
    let feeds_server = Server::start();
    let api = tokio::task::block_in_place(|| populated(&freshrss, &feeds_server));
    let sandbox = Sandbox::new();
    let config = tidings::config::Config::parse(&freshrss.config(support::freshrss::PASSWORD)).unwrap();
    let options = Options {
        db: sandbox.db(),
        config,
        notice: None,
        report: vec![],
        size: (140, 30),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(options).unwrap();
    app.start();
    let said = |s: &tidings::app::State| {
        s.status.log.iter().any(|m| m.text.starts_with("FreshRSS: 12 new")) && s.sync.in_flight.is_empty()
    };
    app.run_until(Duration::from_secs(60), said).await.unwrap();
    app.run_until(Duration::from_secs(10), |s| s.feeds.feeds.len() == 3).await.unwrap();
    assert!(app.state.feeds.feeds.iter().all(|f| f.account.is_some()));
    assert_eq!(app.state.feeds.feeds.iter().map(|f| f.unread).sum::<i64>(), 10);

    // The phone reads everything; R brings it.
    let all: Vec<String> = api.ids("all").into_iter().collect();
    tokio::task::block_in_place(|| api.mark(&all, "read", true));
    app.dispatch(Event::Key(KeyEvent::new(KeyCode::Char('R'), KeyModifiers::NONE)));
    assert!(app.state.sync.in_flight.contains("FreshRSS"), "R syncs the account");
    app.run_until(Duration::from_secs(60), |s| s.sync.in_flight.is_empty()).await.unwrap();
    app.run_until(Duration::from_secs(10), |s| s.feeds.feeds.iter().all(|f| f.unread == 0)).await.unwrap();
    let line = app.state.status.log.back().unwrap().text.clone();
    assert!(line.starts_with("FreshRSS: 0 new, 10 marked on the server"), "{line}");
}

#[test]
fn tidings_refresh_refreshes_local_feeds_and_syncs_every_account_both_ways() {
    let freshrss = freshrss_or_skip!("tidings_refresh_refreshes_local_feeds_and_syncs_every_account_both_ways");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    // A local feed beside the account's.
    feeds(&feeds_server, &[("/local.xml", "Local", 2)]);
    let subs = sandbox.write("subs.opml", support::opml(&[(None, "Local", &feeds_server.url("/local.xml"))]));
    let run = |args: &[&str]| {
        let mut all = vec!["--config", cfg.to_str().unwrap()];
        all.extend_from_slice(args);
        sandbox.run(&all)
    };
    assert!(run(&["import", subs.to_str().unwrap()]).status.success());

    let first = run(&["refresh"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let said = stdout(&first);
    assert!(said.contains("Refreshed 1 feed: 1 updated (2 new entries)"), "the local feed: {said}");
    assert!(said.contains("FreshRSS: 12 new"), "a line for the account: {said}");
    assert_eq!(keys(&sandbox, "1"), api.ids("all"), "every item of the account came down");

    // A mark made here waits in the change log; the next refresh sends it.
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().take(2).collect();
    mark_here(&sandbox, &unread, |ids| UserWrite::SetRead { ids, read: true });
    let json = run(&["refresh", "--json"]);
    assert!(json.status.success(), "{}", stderr(&json));
    let value: serde_json::Value = serde_json::from_str(stdout(&json).trim()).unwrap();
    assert_eq!(value["accounts"][0]["account"], "FreshRSS");
    assert_eq!(value["accounts"][0]["report"]["sent"], 2, "the two marks: {value}");
    let server_unread = api.ids("unread");
    assert!(unread.iter().all(|k| !server_unread.contains(k)), "read here, read there");

    // --no-sync leaves the account alone: nothing is asked of the server.
    let before = freshrss.requests().len();
    let local_only = run(&["refresh", "--no-sync"]);
    assert!(local_only.status.success(), "{}", stderr(&local_only));
    assert!(!stdout(&local_only).contains("FreshRSS:"), "{}", stdout(&local_only));
    assert_eq!(freshrss.requests().len(), before, "no request to the server");

    // An account that cannot be reached: the local feeds are still refreshed, and the exit status says so.
    drop(freshrss);
    let offline = run(&["refresh"]);
    assert_eq!(offline.status.code(), Some(3), "{}", stderr(&offline));
    assert!(stdout(&offline).contains("Refreshed 1 feed:"), "{}", stdout(&offline));
    assert!(stderr(&offline).contains("FreshRSS offline"), "{}", stderr(&offline));
}

/// Hears which accounts a sync has finished, as each finishes.
struct Finished(std::sync::Mutex<std::sync::mpsc::Sender<String>>);

impl tidings::session::SyncObserver for Finished {
    fn account(
        &self,
        account: &tidings::sync::AccountConfig,
        _: &Result<tidings::sync::Report, tidings::sync::SyncError>,
    ) {
        let _ = self.0.lock().unwrap().send(account.name.clone());
    }
}

#[test]
fn an_account_whose_password_command_hangs_holds_up_no_other_account() {
    let test = "an_account_whose_password_command_hangs_holds_up_no_other_account";
    let (slow, quick) = (freshrss_or_skip!(test), freshrss_or_skip!(test));
    let feeds_server = Server::start();
    feeds(&feeds_server, &[("/s.xml", "Slow", 2), ("/q.xml", "Quick", 3)]);
    slow.api().subscribe(&feeds_server.url("/s.xml"), None);
    quick.api().subscribe(&feeds_server.url("/q.xml"), None);
    slow.fetch_feeds();
    quick.fetch_feeds();
    let sandbox = Sandbox::new();
    // The slow account's password manager waits for the test: `cat` of a named pipe nobody writes to yet. It
    // comes first, so an account synced after it would wait for it.
    let pipe = sandbox.path("password");
    assert!(std::process::Command::new("mkfifo").arg(&pipe).status().unwrap().success());
    let account = |name: &str, server: &FreshRss, password: &str| {
        format!(
            "[[accounts]]\nname = \"{name}\"\nkind = \"greader\"\nurl = \"{}\"\nuser = \"{}\"\n{password}\n",
            server.api_url(),
            support::freshrss::USER
        )
    };
    let config = format!(
        "refresh_on_startup = false\n{}{}",
        account("Slow", &slow, &format!("password_command = \"cat {}\"", pipe.display())),
        account("Quick", &quick, &format!("password = \"{}\"", support::freshrss::PASSWORD)),
    );
    let config = tidings::config::Config::parse(&config).unwrap();

    let (finished, heard) = std::sync::mpsc::channel();
    let db = sandbox.db();
    let syncing = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async {
            let session =
                tidings::session::Session::open(&db, config.session_settings(), tidings::session::Role::Command)
                    .unwrap();
            session.sync(None, &Finished(std::sync::Mutex::new(finished))).await
        })
    });
    let first = heard.recv_timeout(Duration::from_secs(30));
    // Whatever happened, the password goes in, so the slow account's command ends.
    std::fs::write(&pipe, format!("{}\n", support::freshrss::PASSWORD)).unwrap();
    assert_eq!(first.as_deref(), Ok("Quick"), "the quick account finished while the other waited for its password");
    assert_eq!(heard.recv_timeout(Duration::from_secs(60)).as_deref(), Ok("Slow"));
    let synced = syncing.join().unwrap();
    let names: Vec<&str> = synced.iter().map(|(account, _)| account.name.as_str()).collect();
    assert_eq!(names, ["Slow", "Quick"], "told in the config's order");
    for (account, outcome) in &synced {
        assert!(outcome.is_ok(), "{}: {:?}", account.name, outcome.as_ref().err().map(ToString::to_string));
    }
    assert_eq!(keys(&sandbox, "1").len(), 5, "both accounts' items");
}

/// Two syncs of one account asked at once (the daemon's own and one a reader asked it for) take turns: a mark
/// waiting here goes up once, not once by each.
#[test]
fn two_syncs_of_one_account_at_once_send_a_waiting_mark_once() {
    let freshrss = freshrss_or_skip!("two_syncs_of_one_account_at_once_send_a_waiting_mark_once");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());
    let unstarred: Vec<String> = keys(&sandbox, "e.starred = 0").into_iter().take(1).collect();
    mark_here(&sandbox, &unstarred, |ids| UserWrite::SetStarred { ids, starred: true });
    let edits = || freshrss.requests().iter().filter(|r| r.contains("edit-tag")).count();
    let before = edits();

    let config = tidings::config::Config::parse(&freshrss.config(support::freshrss::PASSWORD)).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (first, second) = runtime.block_on(async {
        let session =
            tidings::session::Session::open(&sandbox.db(), config.session_settings(), tidings::session::Role::Daemon)
                .unwrap();
        let (tx, _rx) = std::sync::mpsc::channel();
        let observer = Finished(std::sync::Mutex::new(tx));
        tokio::join!(session.sync(None, &observer), session.sync(None, &observer))
    });
    for (account, outcome) in first.iter().chain(&second) {
        assert!(outcome.is_ok(), "{}: {:?}", account.name, outcome.as_ref().err().map(ToString::to_string));
    }
    assert_eq!(edits() - before, 1, "the star went up once");
    assert!(api.ids("starred").contains(&unstarred[0]));
}

// The four ways a sync was wrong (issue 32), each against the real FreshRSS.

/// The key and flags of the entry titled `title`, wherever it is.
fn entry_titled(sandbox: &Sandbox, title: &str) -> (String, bool, bool) {
    db(sandbox)
        .query_row("SELECT key, read, starred FROM entries WHERE title = ?1", [title], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap()
}

#[test]
fn a_local_feed_the_account_also_has_is_taken_over_with_its_marks_and_shows_once() {
    let freshrss = freshrss_or_skip!("a_local_feed_the_account_also_has_is_taken_over");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    // Alpha was a local feed before the account was added, alone in a folder: read and starred here.
    let subs = sandbox.write("subs.opml", support::opml(&[(Some("Mine"), "Alpha", &feeds_server.url("/a.xml"))]));
    let run = |args: &[&str]| {
        let mut all = vec!["--config", cfg.to_str().unwrap()];
        all.extend_from_slice(args);
        sandbox.run(&all)
    };
    assert!(run(&["import", subs.to_str().unwrap()]).status.success());
    assert!(run(&["refresh", "--no-sync"]).status.success());
    mark_here(&sandbox, &["Alpha-3".to_string()], |ids| UserWrite::SetRead { ids, read: true });
    mark_here(&sandbox, &["Alpha-4".to_string()], |ids| UserWrite::SetStarred { ids, starred: true });

    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("1 local feed the server also has now synced with it"), "{}", stdout(&out));
    let copies: i64 = db(&sandbox)
        .query_row("SELECT count(*) FROM feeds WHERE url = ?1", [feeds_server.url("/a.xml")], |r| r.get(0))
        .unwrap();
    assert_eq!(copies, 1, "one copy of the feed");
    let folders = folder_names(&sandbox);
    assert!(!folders.iter().any(|f| f == "Mine"), "the folder it left empty goes: {folders:?}");
    let alpha: i64 = db(&sandbox)
        .query_row("SELECT count(*) FROM entries WHERE title LIKE 'Alpha item %'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(alpha, 5, "each of its entries once");
    assert_eq!(keys(&sandbox, "1"), api.ids("all"), "every entry is the server's item");
    let (read, _, _) = entry_titled(&sandbox, "Alpha item 3");
    let (starred, _, is_starred) = entry_titled(&sandbox, "Alpha item 4");
    assert!(!api.ids("unread").contains(&read), "read here before the account came: read on the server");
    assert!(api.ids("starred").contains(&starred) && is_starred, "starred here: starred on the server");
}

#[test]
fn starred_entries_of_a_feed_the_server_dropped_stay_here_and_the_others_go() {
    let freshrss = freshrss_or_skip!("starred_entries_of_a_feed_the_server_dropped_stay_here");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());
    mark_here(&sandbox, &["Gamma item 1".to_string()].map(|t| entry_titled(&sandbox, &t).0), |ids| {
        UserWrite::SetStarred { ids, starred: true }
    });
    assert!(sync(&sandbox, &cfg).status.success());

    // The phone unsubscribes Gamma.
    let gamma = api.subscriptions().into_iter().find(|s| s.1 == "Gamma").unwrap().0;
    assert_eq!(api.post("/reader/api/0/subscription/edit", &[("ac", "unsubscribe"), ("s", &gamma)]).trim(), "OK");
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("1 starred entry the server no longer has kept here"), "{}", stdout(&out));
    let (_, _, starred) = entry_titled(&sandbox, "Gamma item 1");
    assert!(starred, "the starred entry is still here, starred");
    let place: String = db(&sandbox)
        .query_row(
            "SELECT d.name FROM entries e JOIN feeds f ON f.id = e.feed_id JOIN folders d ON d.id = f.folder_id
             WHERE e.title = 'Gamma item 1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(place, "FreshRSS (gone from the server)");
    let others: i64 = db(&sandbox)
        .query_row("SELECT count(*) FROM entries WHERE title LIKE 'Gamma item %'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(others, 1, "its other entries went with it");
    let again = sync(&sandbox, &cfg);
    assert!(again.status.success() && entry_titled(&sandbox, "Gamma item 1").2, "and stays: {}", stdout(&again));
}

#[test]
fn a_mark_undone_here_before_the_sync_is_not_sent_and_the_phones_mark_stands() {
    let freshrss = freshrss_or_skip!("a_mark_undone_here_before_the_sync_is_not_sent");
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());
    let key: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().take(1).collect();
    // Opened (read), then `m` (unread again): nothing to send. Meanwhile the phone reads it.
    mark_here(&sandbox, &key, |ids| UserWrite::SetRead { ids, read: true });
    mark_here(&sandbox, &key, |ids| UserWrite::SetRead { ids, read: false });
    api.mark(&key, "read", true);

    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("sent"), "nothing was sent: {}", stdout(&out));
    assert!(!api.ids("unread").contains(&key[0]), "the phone's mark stands on the server");
    assert!(!keys(&sandbox, "e.read = 0").contains(&key[0]), "and here");
}

#[test]
fn a_subscription_the_server_refuses_stays_a_local_feed_with_the_servers_reason() {
    let freshrss = freshrss_or_skip!("a_subscription_the_server_refuses_stays_a_local_feed");
    let feeds_server = Server::start();
    populated(&freshrss, &feeds_server);
    // A JSON Feed: this FreshRSS cannot subscribe to it.
    let json =
        r#"{"version":"https://jsonfeed.org/version/1.1","title":"Jay","items":[{"id":"1","content_text":"x"}]}"#;
    feeds_server.route("/j.json", Reply::ok("application/feed+json", json));
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());
    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let jay = NewFeed {
        url: feeds_server.url("/j.json"),
        title: Some("Jay".into()),
        name: None,
        site_url: None,
        folder: vec!["FreshRSS".into(), "News".into()],
    };
    store::apply(&mut conn, &UserWrite::AddFeed(jay), 0).unwrap();
    drop(conn);

    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("1 change refused by the server") && !said.contains("sent"), "{said}");
    assert!(
        said.contains("Jay (")
            && said.contains("the server refused to subscribe (HTTP 400")
            && said.contains("stays a local feed"),
        "{said}"
    );
    let local: Option<i64> = db(&sandbox)
        .query_row("SELECT account_id FROM feeds WHERE url = ?1", [feeds_server.url("/j.json")], |r| r.get(0))
        .unwrap();
    assert_eq!(local, None, "still here, a local feed");
    let again = sync(&sandbox, &cfg);
    assert!(again.status.success() && !stdout(&again).contains("refused"), "refused once: {}", stdout(&again));
}

/// 10,000 items, a third read there: the 6,667 unread ones read here as one list go up as one
/// `mark-all-as-read`, not item by item (27 requests of `edit-tag`).
#[test]
fn a_list_of_6667_read_here_goes_up_in_at_most_three_requests() {
    let freshrss = freshrss_or_skip!("a_list_of_6667_read_here_goes_up_in_at_most_three_requests");
    let feeds_server = Server::start();
    let api = freshrss.api();
    let filled = support::freshrss::fill(&freshrss, &feeds_server, 10, 1000);
    assert_eq!(filled.all.len(), 10_000);
    let sandbox = Sandbox::new();
    let cfg = config(&sandbox, &freshrss, support::freshrss::PASSWORD);
    assert!(sync(&sandbox, &cfg).status.success());
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    assert_eq!(unread.len(), 6_666);
    mark_here(&sandbox, &unread, |ids| UserWrite::SetRead { ids, read: true });

    let before = freshrss.requests().len();
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    let asked = &freshrss.requests()[before..];
    let marks: Vec<&String> =
        asked.iter().filter(|r| r.contains("edit-tag") || r.contains("mark-all-as-read")).collect();
    assert!(!marks.is_empty() && marks.len() <= 3, "{} requests to mark the list: {marks:#?}", marks.len());
    assert!(api.ids("unread").is_empty(), "every one read on the server");
    assert!(keys(&sandbox, "e.read = 0").is_empty(), "and here");
}
