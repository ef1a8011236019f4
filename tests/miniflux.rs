//! Sync with a Miniflux, over its Google Reader API — which implements a subset of it: no `stream/contents` (any
//! call it does not implement answers `[]` with 200), a POST's login in `T` only, decimal ids from
//! `stream/items/ids` and long ones from `stream/items/contents`, a numeric offset to page by — and over its own
//! REST API (`kind = "miniflux"`): every entry and flag, marks both ways, a list read as one batch, the star of
//! an older server (a toggle) never inverted, subscriptions both ways, four requests when nothing is new, a 429
//! that pauses the account, and what comes with adds and removals. Miniflux cannot run here; `support::miniflux`
//! is a test server written from Miniflux's own documents and sources (`support::miniflux_api` for `/v1/`).

mod support;

use support::accounts::{keys, mark_here};

use std::collections::BTreeSet;
use support::miniflux::{Entry, Miniflux, State};
use support::{Sandbox, stderr, stdout};
use tidings::model::UserWrite;

/// 1,500 entries in two feeds (more than a page of a thousand ids): a third read, one in 75 starred.
fn miniflux() -> Miniflux {
    let feeds = vec![
        (1, "http://example.org/a.xml".to_string(), "Alpha".to_string(), "Tech".to_string()),
        (2, "http://example.org/b.xml".to_string(), "Beta".to_string(), "All".to_string()),
    ];
    let entries = (1..=1500u64)
        .map(|id| Entry {
            id,
            feed: 1 + id % 2,
            published: 1_700_000_000 + id as i64,
            read: id % 3 == 0,
            starred: id % 75 == 0,
        })
        .collect();
    Miniflux::start(State { feeds, entries, ..State::default() })
}

fn there(server: &Miniflux, keep: impl Fn(&Entry) -> bool) -> BTreeSet<String> {
    server.state().entries.iter().filter(|e| keep(e)).map(|e| e.id.to_string()).collect()
}

fn sync(sandbox: &Sandbox, config: &std::path::Path) -> std::process::Output {
    sandbox.tidings().arg("--config").arg(config).arg("sync").output().expect("run tidings sync")
}

/// `tidings sync`, which must succeed.
fn synced(sandbox: &Sandbox, config: &std::path::Path) -> std::process::Output {
    let out = sync(sandbox, config);
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// A first sync, which brings the server's 1,500 entries of two feeds: every one, and its read and starred flags.
fn first_sync_brings_every_item_and_flag(server: &Miniflux, sandbox: &Sandbox, config: &std::path::Path) {
    let out = synced(sandbox, config);
    assert!(stdout(&out).starts_with("Miniflux: 1500 new, 2 feeds added"), "{}", stdout(&out));
    assert_eq!(keys(sandbox, "1"), there(server, |_| true), "every item, the read ones too");
    assert_eq!(keys(sandbox, "e.read = 0"), there(server, |e| !e.read), "every unread flag");
    assert_eq!(keys(sandbox, "e.starred = 1"), there(server, |e| e.starred), "every starred flag");
}

#[test]
fn a_miniflux_without_stream_contents_brings_every_item_and_flag_read_ones_too() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config());
    first_sync_brings_every_item_and_flag(&server, &sandbox, &cfg);
    let asked = server.requests();
    assert!(asked.iter().any(|r| r.path.contains("stream/items/ids") && r.path.contains("c=1000")), "paged by offset");

    // Marks both ways in one sync: two read and one starred here, one read on the phone.
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    mark_here(&sandbox, &unread[..2], |ids| UserWrite::SetRead { ids, read: true });
    mark_here(&sandbox, &unread[2..3], |ids| UserWrite::SetStarred { ids, starred: true });
    let phone: u64 = unread[3].parse().unwrap();
    server.state().entries.iter_mut().find(|e| e.id == phone).unwrap().read = true;
    let out = synced(&sandbox, &cfg);
    assert!(
        stdout(&out).contains("3 changes sent") && stdout(&out).contains("1 marked on the server"),
        "{}",
        stdout(&out)
    );
    assert_eq!(keys(&sandbox, "e.read = 0"), there(&server, |e| !e.read), "both sides agree on what is read");
    assert_eq!(keys(&sandbox, "e.starred = 1"), there(&server, |e| e.starred), "and on what is starred");
}

/// The REST API's requests since the `from`th, as (method, path).
fn api_calls(server: &Miniflux, from: usize) -> Vec<(String, String)> {
    server.requests()[from..].iter().map(|r| (r.method.clone(), r.path.clone())).collect()
}

#[test]
fn miniflux_api_brings_every_item_and_flag_and_marks_go_both_ways_and_nothing_new_costs_four_requests() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    first_sync_brings_every_item_and_flag(&server, &sandbox, &cfg);
    assert!(server.requests().iter().all(|r| r.path.starts_with("/v1/")), "only the REST API is asked");
    // Categories become folders under the account's.
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let folder_of = |url: &str| -> String {
        db.query_row(
            "SELECT fo.name FROM feeds f JOIN folders fo ON fo.id = f.folder_id WHERE f.url = ?1",
            [url],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(
        (folder_of("http://example.org/a.xml"), folder_of("http://example.org/b.xml")),
        ("Tech".into(), "All".into())
    );

    // Marks both ways in one sync: two read and one starred here, one read and one starred on the phone.
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    mark_here(&sandbox, &unread[..2], |ids| UserWrite::SetRead { ids, read: true });
    mark_here(&sandbox, &unread[2..3], |ids| UserWrite::SetStarred { ids, starred: true });
    let (phone_read, phone_star): (u64, u64) = (unread[3].parse().unwrap(), unread[4].parse().unwrap());
    for e in &mut server.state().entries {
        e.read |= e.id == phone_read;
        e.starred |= e.id == phone_star;
    }
    let out = synced(&sandbox, &cfg);
    assert!(stdout(&out).contains("3 changes sent"), "{}", stdout(&out));
    assert_eq!(keys(&sandbox, "e.read = 0"), there(&server, |e| !e.read), "both sides agree on what is read");
    assert_eq!(keys(&sandbox, "e.starred = 1"), there(&server, |e| e.starred), "and on what is starred");
    assert!(!keys(&sandbox, "e.read = 0").contains(&unread[3]) && keys(&sandbox, "e.starred = 1").contains(&unread[4]));

    // Nothing new: the feeds, the entries after the newest, the unread ids and the starred ids.
    let before = server.requests().len();
    synced(&sandbox, &cfg);
    let calls = api_calls(&server, before);
    assert!(calls.len() <= 4, "{} requests when nothing is new: {calls:?}", calls.len());
}

#[test]
fn a_list_read_here_goes_up_to_miniflux_as_one_request() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    assert!(sync(&sandbox, &cfg).status.success());
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    assert_eq!(unread.len(), 1000);
    mark_here(&sandbox, &unread, |ids| UserWrite::SetRead { ids, read: true });
    let before = server.requests().len();
    synced(&sandbox, &cfg);
    let puts: Vec<_> = api_calls(&server, before).into_iter().filter(|(m, _)| m == "PUT").collect();
    assert_eq!(puts, [("PUT".to_string(), "/v1/entries".to_string())], "one batch for the thousand");
    assert!(there(&server, |e| !e.read).is_empty(), "every one read on the server");
}

#[test]
fn a_star_on_a_miniflux_older_than_2_3_2_is_met_by_its_toggle_never_inverted() {
    let server = miniflux();
    server.state().before_2_3_2 = true;
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    synced(&sandbox, &cfg);
    assert_eq!(keys(&sandbox, "e.read = 0"), there(&server, |e| !e.read), "the sets came as entries");
    assert_eq!(keys(&sandbox, "e.starred = 1"), there(&server, |e| e.starred));

    // Starred here: A (unstarred there), B (which the phone starred meanwhile). Unstarred here: C (starred
    // there), D (which the phone unstarred meanwhile). A toggle each would leave B and D inverted.
    let plain: Vec<String> = keys(&sandbox, "e.starred = 0").into_iter().take(2).collect();
    let starred: Vec<String> = keys(&sandbox, "e.starred = 1").into_iter().take(2).collect();
    mark_here(&sandbox, &plain, |ids| UserWrite::SetStarred { ids, starred: true });
    mark_here(&sandbox, &starred, |ids| UserWrite::SetStarred { ids, starred: false });
    let (b, d): (u64, u64) = (plain[1].parse().unwrap(), starred[1].parse().unwrap());
    for e in &mut server.state().entries {
        if e.id == b {
            e.starred = true;
        }
        if e.id == d {
            e.starred = false;
        }
    }
    let before = server.requests().len();
    synced(&sandbox, &cfg);
    let on_server = there(&server, |e| e.starred);
    assert!(plain.iter().all(|k| on_server.contains(k)), "both starred there: {plain:?}");
    assert!(starred.iter().all(|k| !on_server.contains(k)), "both unstarred there: {starred:?}");
    assert_eq!(keys(&sandbox, "e.starred = 1"), on_server, "and here the same");
    let toggles = api_calls(&server, before).into_iter().filter(|(_, p)| p.ends_with("/bookmark")).count();
    assert_eq!(toggles, 2, "a toggle only where the server differed");

    // What the server lacks was learnt once: the next sync asks for no ids it cannot give.
    let before = server.requests().len();
    assert!(sync(&sandbox, &cfg).status.success());
    let calls = api_calls(&server, before);
    assert!(calls.iter().all(|(_, p)| !p.starts_with("/v1/entries/ids")), "{calls:?}");
    assert!(calls.len() <= 4, "{} requests when nothing is new: {calls:?}", calls.len());
}

#[test]
fn subscriptions_made_here_reach_miniflux_and_a_refusal_says_why() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    assert!(sync(&sandbox, &cfg).status.success());
    server.state().refuse_urls.push("broken".into());
    let mut conn = tidings::store::open_write(&sandbox.db()).unwrap();
    let feed_of = |conn: &rusqlite::Connection, url: &str| {
        tidings::model::FeedId(conn.query_row("SELECT id FROM feeds WHERE url = ?1", [url], |r| r.get(0)).unwrap())
    };
    let new = |url: &str, folder: &str| tidings::model::NewFeed {
        url: url.into(),
        title: Some("Gamma".into()),
        name: None,
        site_url: None,
        folder: vec!["Miniflux".into(), folder.into()],
    };
    let apply = |conn: &mut rusqlite::Connection, write: UserWrite| tidings::store::apply(conn, &write, 0).unwrap();
    apply(&mut conn, UserWrite::AddFeed(new("http://example.org/c.xml", "Science")));
    apply(&mut conn, UserWrite::AddFeed(new("http://example.org/broken.xml", "Tech")));
    let alpha = feed_of(&conn, "http://example.org/a.xml");
    apply(&mut conn, UserWrite::RenameFeed { feed_id: alpha, title: Some("Better Alpha".into()) });
    apply(&mut conn, UserWrite::MoveFeed { feed_id: alpha, folder: vec!["Miniflux".into(), "All".into()] });
    let beta = feed_of(&conn, "http://example.org/b.xml");
    apply(&mut conn, UserWrite::DeleteFeed(beta));
    drop(conn);

    let out = synced(&sandbox, &cfg);
    assert!(
        stdout(&out).contains("Unable to parse this feed") && stdout(&out).contains("stays a local feed"),
        "{}",
        stdout(&out)
    );
    let state = server.state();
    let by_url = |url: &str| state.feeds.iter().find(|f| f.1 == url).cloned();
    let c = by_url("http://example.org/c.xml").expect("subscribed on the server");
    assert_eq!((c.2.as_str(), c.3.as_str()), ("Gamma", "Science"), "its title, in a category made for it");
    let a = by_url("http://example.org/a.xml").unwrap();
    assert_eq!((a.2.as_str(), a.3.as_str()), ("Better Alpha", "All"), "renamed and moved");
    assert!(by_url("http://example.org/b.xml").is_none(), "unsubscribed on the server");
    assert!(by_url("http://example.org/broken.xml").is_none());
}

#[test]
fn the_users_own_password_works_by_basic_auth_and_that_is_remembered() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let api_key = support::miniflux_api::API_KEY;
    let cfg = sandbox.write("config.toml", server.api_config().replace(api_key, support::miniflux_api::LOGIN_PASSWORD));
    synced(&sandbox, &cfg);
    assert_eq!(keys(&sandbox, "1"), there(&server, |_| true));
    let before = server.requests().len();
    assert!(sync(&sandbox, &cfg).status.success());
    let asked = &server.requests()[before..];
    assert!(
        asked.len() <= 4 && asked.iter().all(|r| r.authorization.as_deref().is_some_and(|a| a.starts_with("Basic ")))
    );

    // Neither an API key nor the password: refused, and said so.
    let wrong = sandbox.write("wrong.toml", server.api_config().replace(api_key, "nope"));
    let out = sync(&sandbox, &wrong);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("refused demo's"), "{}", stderr(&out));
}

#[test]
fn a_429_with_retry_after_pauses_the_account_until_then_even_across_restarts() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    assert!(sync(&sandbox, &cfg).status.success());
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().take(1).collect();
    mark_here(&sandbox, &unread, |ids| UserWrite::SetRead { ids, read: true });

    server.state().busy_for = Some(3600);
    let before = server.requests().len();
    let out = sync(&sandbox, &cfg);
    assert!(!out.status.success());
    let said = stderr(&out);
    assert!(
        said.contains("HTTP 429") && said.contains("not synced until") && said.contains("1 change waiting"),
        "{said}"
    );
    assert_eq!(server.requests().len(), before + 1, "the first answer said to wait: nothing more was asked");
    let until: i64 = rusqlite::Connection::open(sandbox.db())
        .unwrap()
        .query_row("SELECT busy_until FROM accounts", [], |r| r.get(0))
        .unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((now + 3500..=now + 3700).contains(&until), "paused for the hour asked: {until} vs {now}");

    // Another process (a restart): still paused, and the server is not asked at all.
    server.state().busy_for = None;
    let out = sync(&sandbox, &cfg);
    assert!(!out.status.success() && stderr(&out).contains("not synced until"), "{}", stderr(&out));
    assert_eq!(server.requests().len(), before + 1, "not asked before the time it gave");

    // Once the time has come, the sync goes on and the mark arrives.
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    db.execute("UPDATE accounts SET busy_until = ?1", [now - 1]).unwrap();
    synced(&sandbox, &cfg);
    assert!(there(&server, |e| e.read).contains(&unread[0]));
    let cleared: Option<i64> = db.query_row("SELECT busy_until FROM accounts", [], |r| r.get(0)).unwrap();
    assert_eq!(cleared, None);
}

#[test]
fn a_miniflux_google_reader_sync_with_nothing_new_costs_at_most_four_requests() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config());
    assert!(sync(&sandbox, &cfg).status.success());
    let before = server.requests().len();
    synced(&sandbox, &cfg);
    let asked = api_calls(&server, before);
    assert!(asked.iter().all(|(_, p)| !p.contains("stream/contents")), "what it lacks is not asked again: {asked:#?}");
    assert!(asked.len() <= 4, "{} requests when nothing is new: {asked:#?}", asked.len());
}

#[test]
fn a_feed_added_in_the_account_folder_is_subscribed_at_once_and_adding_it_again_says_where_it_is() {
    let server = miniflux();
    let feeds = support::server::Server::start();
    let rss = support::rss("Gamma", &[("g1", "G one", "<p>one</p>")]);
    feeds.route("/c.xml", support::server::Reply::ok("application/rss+xml", rss));
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    assert!(sync(&sandbox, &cfg).status.success());
    let add = |folder: Option<&str>| {
        let mut command = sandbox.tidings();
        command.arg("--config").arg(&cfg).arg("add").arg(feeds.url("/c.xml"));
        command.args(folder.map(|f| ["--folder", f]).into_iter().flatten());
        command.output().expect("run tidings add")
    };
    let out = add(Some("Miniflux/Science"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Gamma subscribed on Miniflux"), "{}", stdout(&out));
    let on_server = server.state().feeds.iter().find(|f| f.1 == feeds.url("/c.xml")).cloned();
    assert_eq!(on_server.map(|f| f.3).as_deref(), Some("Science"), "subscribed on the server, in its category");

    // Again, as a local feed: where it is, and no second copy.
    let out = add(None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Already subscribed") && stdout(&out).contains("Science"), "{}", stdout(&out));
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let copies: i64 = db.query_row("SELECT count(*) FROM feeds WHERE url LIKE '%/c.xml'", [], |r| r.get(0)).unwrap();
    assert_eq!(copies, 1);
}

#[test]
fn renames_and_moves_on_the_server_are_named() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    assert!(sync(&sandbox, &cfg).status.success());
    {
        let mut state = server.state();
        state.feeds[0].2 = "Alpha Two".into();
        state.feeds[1].3 = "Tech".into();
    }
    let out = synced(&sandbox, &cfg);
    let said = stdout(&out);
    assert!(said.contains("renamed on the server: Alpha → Alpha Two"), "{said}");
    assert!(said.contains("moved on the server: Beta to Tech"), "{said}");
}

#[test]
fn the_folder_of_an_account_gone_from_the_config_can_be_deleted_and_nothing_is_sent() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.api_config());
    assert!(sync(&sandbox, &cfg).status.success());
    let folder = |sandbox: &Sandbox| {
        let db = rusqlite::Connection::open(sandbox.db()).unwrap();
        let id: i64 = db.query_row("SELECT id FROM folders WHERE name = 'Miniflux'", [], |r| r.get(0)).unwrap();
        tidings::model::FolderId(id)
    };
    let delete = |sandbox: &Sandbox| {
        let mut conn = tidings::store::open_write(&sandbox.db()).unwrap();
        let write = UserWrite::DeleteFolder { folder_id: folder(sandbox), with_contents: false };
        tidings::store::apply(&mut conn, &write, 0)
    };
    let refused = delete(&sandbox).unwrap_err().to_string();
    assert!(refused.contains("account"), "while the account is in the config: {refused}");

    // The account leaves the config; the next session reads it so.
    let plain = sandbox.write("plain.toml", "refresh_on_startup = false\n");
    let out = sandbox.tidings().arg("--config").arg(&plain).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let before = server.requests().len();
    delete(&sandbox).expect("deleted");
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let count = |sql: &str| db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT count(*) FROM feeds"), 0, "its feeds went with it");
    assert_eq!(count("SELECT count(*) FROM changes"), 0, "and nothing waits for a server");
    assert_eq!(count("SELECT count(*) FROM folders WHERE name = 'Miniflux'"), 0);
    assert_eq!(server.requests().len(), before, "nobody asked the server anything");
}
