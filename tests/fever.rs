//! Sync over the Fever API (`kind = "fever"`) against two real, independent servers: FreshRSS's `api/fever.php`
//! and Coldsweat's `fever/`. A cold sync brings every item (past Coldsweat's pages of 50) and flag; marks go both
//! ways; a sync with nothing new asks four things; a subscription made here is refused at once — Fever cannot
//! subscribe — and stays a local feed. Where a server cannot start, the test says it skipped (or fails, where
//! every kit is required).

mod support;

use support::accounts::{keys, mark_here};

use support::coldsweat::{Coldsweat, id_set};
use support::freshrss::{FreshRss, populated, skipped};
use support::server::Server;
use support::{Sandbox, stderr, stdout};
use tidings::model::{NewFeed, UserWrite};
use tidings::store;

fn sync(sandbox: &Sandbox, config: &std::path::Path) -> std::process::Output {
    sandbox.tidings().arg("--config").arg(config).arg("sync").output().expect("run tidings sync")
}

/// `tidings sync --json`: the first account's report.
fn sync_json(sandbox: &Sandbox, config: &std::path::Path) -> serde_json::Value {
    let out = sandbox.tidings().arg("--config").arg(config).args(["sync", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    value["accounts"][0]["report"].clone()
}

/// Subscribes here to `url` inside the account's folder `account`.
fn subscribe_here(sandbox: &Sandbox, account: &str, url: &str) {
    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let feed = NewFeed {
        url: url.into(),
        title: Some("Here".into()),
        name: None,
        site_url: None,
        folder: vec![account.into()],
    };
    store::apply(&mut conn, &UserWrite::AddFeed(feed), 0).unwrap();
}

fn account_of(sandbox: &Sandbox, url: &str) -> Option<i64> {
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    db.query_row("SELECT account_id FROM feeds WHERE url = ?1", [url], |r| r.get(0)).unwrap()
}

#[test]
fn freshrss_over_fever_brings_every_item_and_flag_and_marks_go_both_ways() {
    let freshrss = match FreshRss::start() {
        Ok(server) => server,
        Err(why) => return skipped("freshrss_over_fever_brings_every_item_and_flag", &why),
    };
    let feeds_server = Server::start();
    let api = populated(&freshrss, &feeds_server);
    let sandbox = Sandbox::new();
    let config = format!(
        "refresh_on_startup = false\n[[accounts]]\nname = \"FreshRSS\"\nkind = \"fever\"\n\
         url = \"http://127.0.0.1:{}/api/fever.php\"\nuser = \"alice\"\npassword = \"{}\"\n",
        freshrss.port,
        support::freshrss::PASSWORD
    );
    let cfg = sandbox.write("config.toml", config);
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("FreshRSS: 12 new, 3 feeds added"), "{}", stdout(&out));
    assert_eq!(keys(&sandbox, "1"), api.ids("all"), "every item");
    assert_eq!(keys(&sandbox, "e.read = 0"), api.ids("unread"), "every unread flag");
    assert_eq!(keys(&sandbox, "e.starred = 1"), api.ids("starred"), "every starred flag");

    // Nothing new: four requests (the feeds, the new items, the two sets).
    let before = freshrss.requests().len();
    assert!(sync(&sandbox, &cfg).status.success());
    let asked = &freshrss.requests()[before..];
    assert!(asked.len() <= 4, "a sync with nothing new made {} requests: {asked:#?}", asked.len());

    // Marks both ways in one sync: two read and one starred here, one read on the phone.
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    mark_here(&sandbox, &unread[..2], |ids| UserWrite::SetRead { ids, read: true });
    mark_here(&sandbox, &unread[2..3], |ids| UserWrite::SetStarred { ids, starred: true });
    api.mark(&unread[3..4], "read", true);
    let out = sync(&sandbox, &cfg);
    assert!(
        stdout(&out).contains("3 changes sent") && stdout(&out).contains("1 marked on the server"),
        "{}",
        stdout(&out)
    );
    assert_eq!(keys(&sandbox, "e.read = 0"), api.ids("unread"), "both sides agree on what is read");
    assert_eq!(keys(&sandbox, "e.starred = 1"), api.ids("starred"), "and on what is starred");

    // Fever cannot subscribe: refused at once, with why; the feed stays here, a local feed.
    let url = feeds_server.url("/here.xml");
    subscribe_here(&sandbox, "FreshRSS", &url);
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("the Fever API cannot subscribe"), "{}", stdout(&out));
    assert_eq!(account_of(&sandbox, &url), None, "a local feed now");
}

#[test]
fn coldsweat_brings_every_item_and_flag_past_its_pages_of_fifty_and_marks_go_both_ways() {
    let feeds_server = Server::start();
    support::freshrss::feeds(&feeds_server, &[("/a.xml", "Alpha", 40), ("/b.xml", "Beta", 30)]);
    let opml = support::opml(&[
        (Some("News"), "Alpha", &feeds_server.url("/a.xml")),
        (None, "Beta", &feeds_server.url("/b.xml")),
    ]);
    let coldsweat = match Coldsweat::start(&opml) {
        Ok(server) => server,
        Err(why) => return support::skip("coldsweat_brings_every_item_and_flag", &format!("no Coldsweat: {why}")),
    };
    let phone = |what: &str| coldsweat.fever(what, &[]);
    // Before anything is marked, every item is unread: the unread set is all of them.
    let all = id_set(&phone("&unread_item_ids"), "unread_item_ids");
    assert_eq!(all.len(), 70, "Coldsweat fetched every item");
    let all: Vec<String> = all.into_iter().collect();
    // Most are read before the sync: a read item that paging skipped would not come with the unread set.
    for id in &all[..45] {
        coldsweat.fever("", &[("mark", "item"), ("as", "read"), ("id", id)]);
    }
    coldsweat.fever("", &[("mark", "item"), ("as", "saved"), ("id", &all[60])]);

    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", coldsweat.config());
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Coldsweat: 70 new, 2 feeds added"), "{}", stdout(&out));
    assert_eq!(keys(&sandbox, "1"), all.iter().cloned().collect(), "every item, past the first page of 50");
    assert_eq!(keys(&sandbox, "e.read = 0"), id_set(&phone("&unread_item_ids"), "unread_item_ids"));
    assert_eq!(keys(&sandbox, "e.starred = 1"), id_set(&phone("&saved_item_ids"), "saved_item_ids"));
    let report = sync_json(&sandbox, &cfg);
    assert!(report["requests"].as_u64().unwrap() <= 4, "nothing new: {report}");

    // Marks both ways in one sync.
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    mark_here(&sandbox, &unread[..3], |ids| UserWrite::SetRead { ids, read: true });
    mark_here(&sandbox, &unread[3..4], |ids| UserWrite::SetStarred { ids, starred: true });
    coldsweat.fever("", &[("mark", "item"), ("as", "read"), ("id", &unread[4])]);
    let report = sync_json(&sandbox, &cfg);
    assert_eq!((report["sent"].as_u64(), report["read_changed"].as_u64()), (Some(4), Some(1)), "{report}");
    assert_eq!(keys(&sandbox, "e.read = 0"), id_set(&phone("&unread_item_ids"), "unread_item_ids"));
    assert_eq!(keys(&sandbox, "e.starred = 1"), id_set(&phone("&saved_item_ids"), "saved_item_ids"));
}

/// A whole feed read here goes up as one `mark=feed&as=read&before=…`, not one request per item.
#[test]
fn a_feed_read_here_as_one_list_goes_up_to_coldsweat_as_one_request() {
    let feeds_server = Server::start();
    support::freshrss::feeds(&feeds_server, &[("/d.xml", "Delta", 3)]);
    // Gamma's items are dated (an hour apart, in 2025): Coldsweat compares `before` with the items' dates, and an
    // item without one (or with one it cannot read) is dated when Coldsweat fetched it, maybe in the very second
    // of the sync, so that `before` leaves it unread (it goes up by id then: the test after this one).
    let mut gamma = String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Gamma</title>\n");
    for i in 0..150 {
        gamma.push_str(&format!(
            "<item><guid>Gamma-{i}</guid><title>Gamma item {i}</title><link>http://example.com/g/{i}</link>\
             <pubDate>{}</pubDate></item>\n",
            chrono::DateTime::from_timestamp(1_750_000_000 + i * 3600, 0).unwrap().to_rfc2822()
        ));
    }
    gamma.push_str("</channel></rss>\n");
    feeds_server.route("/g.xml", support::server::Reply::ok("application/rss+xml", gamma));
    let opml = support::opml(&[
        (Some("News"), "Gamma", &feeds_server.url("/g.xml")),
        (None, "Delta", &feeds_server.url("/d.xml")),
    ]);
    let coldsweat = match Coldsweat::start(&opml) {
        Ok(server) => server,
        Err(why) => return support::skip("a_feed_read_here_as_one_list_goes_up", &format!("no Coldsweat: {why}")),
    };
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", coldsweat.config());
    let out = sync(&sandbox, &cfg);
    assert!(stdout(&out).starts_with("Coldsweat: 153 new"), "{}{}", stdout(&out), stderr(&out));
    let gamma = "SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.title = 'Gamma'";
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let list: Vec<String> =
        db.prepare(gamma).unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert_eq!(list.len(), 150);
    mark_here(&sandbox, &list, |ids| UserWrite::SetRead { ids, read: true });
    let report = sync_json(&sandbox, &cfg);
    assert_eq!(report["sent"].as_u64(), Some(150), "{report}");
    // The four of a sync with nothing new, and three for the list: the groups and the unread set before it, the
    // mark, and what it left unread there.
    assert!(report["requests"].as_u64().unwrap() <= 7, "{report}");
    let unread = id_set(&coldsweat.fever("&unread_item_ids", &[]), "unread_item_ids");
    assert_eq!(unread.len(), 3, "only Delta's are unread there: {unread:?}");
    assert!(list.iter().all(|k| !unread.contains(k)));
    assert_eq!(keys(&sandbox, "e.read = 0"), unread, "and here the same");
}

/// Items Coldsweat dated itself (the feed gives none it can read) may carry the very second of the sync, so that
/// a feed's `mark=feed&before=…` leaves them unread there: those go up by id, and the feed ends read on both sides.
#[test]
fn a_feed_read_here_ends_read_on_coldsweat_even_where_before_missed_items() {
    let feeds_server = Server::start();
    // Item 21 on of `support::rss` is dated the 31st of June and later: no date Coldsweat can read.
    // A list goes up whole from 100 items on.
    support::freshrss::feeds(&feeds_server, &[("/g.xml", "Gamma", 120), ("/d.xml", "Delta", 3)]);
    let opml = support::opml(&[
        (Some("News"), "Gamma", &feeds_server.url("/g.xml")),
        (None, "Delta", &feeds_server.url("/d.xml")),
    ]);
    let coldsweat = match Coldsweat::start(&opml) {
        Ok(server) => server,
        Err(why) => return support::skip("a_feed_read_here_ends_read_on_coldsweat", &format!("no Coldsweat: {why}")),
    };
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", coldsweat.config());
    assert!(sync(&sandbox, &cfg).status.success());
    let gamma = "SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.title = 'Gamma'";
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let list: Vec<String> =
        db.prepare(gamma).unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert_eq!(list.len(), 120);
    mark_here(&sandbox, &list, |ids| UserWrite::SetRead { ids, read: true });
    let report = sync_json(&sandbox, &cfg);
    assert_eq!(report["sent"].as_u64(), Some(120), "{report}");
    let unread = id_set(&coldsweat.fever("&unread_item_ids", &[]), "unread_item_ids");
    assert_eq!(unread.len(), 3, "only Delta's are unread there: {unread:?}");
    assert_eq!(keys(&sandbox, "e.read = 0"), unread, "and here the same");
}

/// Coldsweat sends the items after `since_id` feed by feed, not lowest id first (`since_id=0` gives items 1 to
/// 25, then 76 to 100): paged by `since_id` alone, a sync skipped the read items of whole feeds (the unread ones
/// came by id all the same). Asked by id where `since_id` fell short of what the server says it holds, every
/// item arrives.
#[test]
fn every_item_of_coldsweat_arrives_though_it_pages_feed_by_feed() {
    let feeds_server = Server::start();
    // Twelve feeds in three groups, taken in turn: Coldsweat stores them group by group, and numbers their items
    // in the order it fetches them, which is not the order it sends them in.
    let specs: Vec<(String, String, usize)> = (0..12).map(|f| (format!("/f{f}.xml"), format!("Feed{f}"), 25)).collect();
    let refs: Vec<(&str, &str, usize)> = specs.iter().map(|(p, t, n)| (p.as_str(), t.as_str(), *n)).collect();
    support::freshrss::feeds(&feeds_server, &refs);
    let urls: Vec<String> = specs.iter().map(|(p, ..)| feeds_server.url(p)).collect();
    let groups = ["News", "Tech", "Blogs"];
    let outlines: Vec<(Option<&str>, &str, &str)> = specs
        .iter()
        .zip(&urls)
        .enumerate()
        .map(|(f, ((_, t, _), u))| (Some(groups[f % 3]), t.as_str(), u.as_str()))
        .collect();
    let coldsweat = match Coldsweat::start(&support::opml(&outlines)) {
        Ok(server) => server,
        Err(why) => return support::skip("every_item_of_coldsweat_arrives", &format!("no Coldsweat: {why}")),
    };
    assert_eq!(coldsweat.fever("&items&since_id=0", &[])["total_items"].as_i64(), Some(300));
    // Every item read there: none comes down as an unread item asked for by id, so each must come by paging.
    let tomorrow = (chrono::Utc::now().timestamp() + 86_400).to_string();
    for feed in coldsweat.fever("&feeds", &[])["feeds"].as_array().unwrap() {
        let id = feed["id"].to_string();
        coldsweat.fever("", &[("mark", "feed"), ("as", "read"), ("id", &id), ("before", &tomorrow)]);
    }
    assert!(id_set(&coldsweat.fever("&unread_item_ids", &[]), "unread_item_ids").is_empty());
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", coldsweat.config());
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(keys(&sandbox, "1").len(), 300, "every item: {}", stdout(&out));
    assert!(keys(&sandbox, "e.read = 0").is_empty());

    // Ten more items in each feed, read there too: the next sync asks by id from where the first one ended.
    let more: Vec<(&str, &str, usize)> = specs.iter().map(|(p, t, _)| (p.as_str(), t.as_str(), 35)).collect();
    support::freshrss::feeds(&feeds_server, &more);
    coldsweat.fetch_feeds();
    let tomorrow = (chrono::Utc::now().timestamp() + 86_400).to_string();
    for feed in coldsweat.fever("&feeds", &[])["feeds"].as_array().unwrap() {
        let id = feed["id"].to_string();
        coldsweat.fever("", &[("mark", "feed"), ("as", "read"), ("id", &id), ("before", &tomorrow)]);
    }
    assert_eq!(coldsweat.fever("&items&since_id=0", &[])["total_items"].as_i64(), Some(420));
    let again = sync(&sandbox, &cfg);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(keys(&sandbox, "1").len(), 420, "every new item: {}", stdout(&again));
}

/// A feed of `items` items dated an hour apart in 2025, and then one more for each date of `later` (a new
/// item, arrived after the others).
fn dated_feed(title: &str, items: usize, later: &[i64]) -> String {
    let mut xml = format!("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>{title}</title>\n");
    let dates = (0..items as i64).map(|i| 1_750_000_000 + i * 3600).chain(later.iter().copied());
    for (i, date) in dates.enumerate() {
        xml.push_str(&format!(
            "<item><guid>{title}-{i}</guid><title>{title} item {i}</title><link>http://example.com/{title}/{i}</link>\
             <pubDate>{}</pubDate></item>\n",
            chrono::DateTime::from_timestamp(date, 0).unwrap().to_rfc2822()
        ));
    }
    xml.push_str("</channel></rss>\n");
    xml
}

/// The folder of the list tests: News, three feeds of 100 items; Delta, 3 items, outside it.
const NEWS: [(&str, &str); 3] = [("/n0.xml", "Kappa"), ("/n1.xml", "Lambda"), ("/n2.xml", "Mu")];

fn serve_folder(feeds_server: &Server, later: &[i64]) {
    for (n, (path, title)) in NEWS.iter().enumerate() {
        let extra = if n == 0 { later } else { &[] };
        feeds_server.route(path, support::server::Reply::ok("application/rss+xml", dated_feed(title, 100, extra)));
    }
    feeds_server.route("/d.xml", support::server::Reply::ok("application/rss+xml", dated_feed("Delta", 3, &[])));
}

/// The keys of the entries here in the folder News.
fn news_here(sandbox: &Sandbox) -> Vec<String> {
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let titles = NEWS.iter().map(|(_, t)| format!("'{t}'")).collect::<Vec<_>>().join(",");
    let query = format!("SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.title IN ({titles})");
    db.prepare(&query).unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

/// The requests a sync made to send what was waiting: those before it asked for the feeds (`groups&feeds`).
fn sending(asked: &[String]) -> Vec<&String> {
    asked.iter().take_while(|r| !r.contains("groups&feeds")).collect()
}

/// A folder of three feeds read here (300 entries) goes up to FreshRSS's Fever API as one `mark=group`, in at
/// most three requests (feed by feed, it takes four at least); every entry of it is read there then, and an
/// entry that arrived on the server after the list was shown stays unread on both sides.
#[test]
fn a_folder_read_here_goes_up_to_freshrss_over_fever_as_one_group_mark() {
    let freshrss = match FreshRss::start() {
        Ok(server) => server,
        Err(why) => return skipped("a_folder_read_here_goes_up_to_freshrss_over_fever", &why),
    };
    let feeds_server = Server::start();
    serve_folder(&feeds_server, &[]);
    let api = freshrss.api();
    for (path, _) in NEWS {
        api.subscribe(&feeds_server.url(path), Some("News"));
    }
    api.subscribe(&feeds_server.url("/d.xml"), None);
    freshrss.fetch_feeds();
    let sandbox = Sandbox::new();
    let config = format!(
        "refresh_on_startup = false\n[[accounts]]\nname = \"FreshRSS\"\nkind = \"fever\"\n\
         url = \"http://127.0.0.1:{}/api/fever.php\"\nuser = \"alice\"\npassword = \"{}\"\n",
        freshrss.port,
        support::freshrss::PASSWORD
    );
    let cfg = sandbox.write("config.toml", config);
    let out = sync(&sandbox, &cfg);
    assert!(stdout(&out).starts_with("FreshRSS: 303 new"), "{}{}", stdout(&out), stderr(&out));
    let list = news_here(&sandbox);
    assert_eq!(list.len(), 300);
    mark_here(&sandbox, &list, |ids| UserWrite::SetRead { ids, read: true });
    // After the list was shown, a new item in one of its feeds.
    serve_folder(&feeds_server, &[chrono::Utc::now().timestamp()]);
    freshrss.fetched_again(&feeds_server, NEWS[0].0);
    let new: Vec<String> = api.ids("unread").into_iter().filter(|id| !list.contains(id)).collect();
    assert_eq!(new.len(), 4, "Delta's three and the new one: {new:?}");

    let before = freshrss.requests().len();
    let report = sync_json(&sandbox, &cfg);
    assert_eq!(report["sent"].as_u64(), Some(300), "{report}");
    let asked = freshrss.requests()[before..].to_vec();
    let sent = sending(&asked);
    assert!(!sent.is_empty() && sent.len() <= 3, "{} requests to send the folder: {sent:#?}", sent.len());
    let unread = api.ids("unread");
    assert!(list.iter().all(|k| !unread.contains(k)), "every entry of the folder read there");
    assert_eq!(unread, new.iter().cloned().collect(), "the new one and Delta's stay unread there");
    assert_eq!(keys(&sandbox, "e.read = 0"), unread, "and here the same");
}

/// Coldsweat's `before` is compared with the items' own dates. A folder read here (300 entries, dated in the
/// past) goes up as one `mark=group`: the groups and the unread set first, the mark, the unread set after — three
/// requests. Every entry of it is read there, and a new entry (dated after the list) stays unread.
#[test]
fn a_folder_read_here_goes_up_to_coldsweat_as_one_group_mark() {
    let feeds_server = Server::start();
    serve_folder(&feeds_server, &[]);
    let Some((coldsweat, sandbox, cfg, list)) = folder_on_coldsweat(&feeds_server, "a_folder_read_here_to_coldsweat")
    else {
        return;
    };
    // After the list was shown, a new item in one of its feeds. Coldsweat dates an item no later than it fetched
    // it (an hour on becomes now), and the mark's `before` is the second after the last sync began: that sync is
    // put ten seconds back, so the new item comes after it however fast this test runs (in the same second, the
    // mark would read it too and tidings would make it unread again, with a fourth request).
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    assert_eq!(db.execute("UPDATE accounts SET synced_at = synced_at - 10", []).unwrap(), 1);
    drop(db);
    serve_folder(&feeds_server, &[chrono::Utc::now().timestamp() + 3600]);
    coldsweat.fetch_feeds();
    let unread_there = id_set(&coldsweat.fever("&unread_item_ids", &[]), "unread_item_ids");
    let new: Vec<&String> = unread_there.iter().filter(|id| !list.contains(id)).collect();
    assert_eq!(new.len(), 4, "Delta's three and the new one: {new:?}");

    let before = coldsweat.requests().len();
    let report = sync_json(&sandbox, &cfg);
    assert_eq!(report["sent"].as_u64(), Some(300), "{report}");
    let asked = coldsweat.requests()[before..].to_vec();
    let sent = sending(&asked);
    assert!(!sent.is_empty() && sent.len() <= 3, "{} requests to send the folder: {sent:#?}", sent.len());
    let unread = id_set(&coldsweat.fever("&unread_item_ids", &[]), "unread_item_ids");
    assert!(list.iter().all(|k| !unread.contains(k)), "every entry of the folder read there");
    assert_eq!(unread, new.into_iter().cloned().collect(), "the new one and Delta's stay unread there");
    assert_eq!(keys(&sandbox, "e.read = 0"), unread, "and here the same");
}

/// An item that came to Coldsweat after the list was shown, with a date older than the list's (a feed's backlog):
/// the group mark takes it too, since Coldsweat compares `before` with dates. It is made unread again there, and
/// stays unread here.
#[test]
fn an_old_item_that_came_after_a_folder_was_read_stays_unread_on_coldsweat() {
    let feeds_server = Server::start();
    serve_folder(&feeds_server, &[]);
    let Some((coldsweat, sandbox, cfg, list)) = folder_on_coldsweat(&feeds_server, "an_old_item_that_came_after")
    else {
        return;
    };
    serve_folder(&feeds_server, &[1_700_000_000]);
    coldsweat.fetch_feeds();
    let unread_there = id_set(&coldsweat.fever("&unread_item_ids", &[]), "unread_item_ids");
    let new: std::collections::BTreeSet<String> = unread_there.into_iter().filter(|id| !list.contains(id)).collect();
    assert_eq!(new.len(), 4, "Delta's three and the old one: {new:?}");

    let report = sync_json(&sandbox, &cfg);
    assert_eq!(report["sent"].as_u64(), Some(300), "{report}");
    let unread = id_set(&coldsweat.fever("&unread_item_ids", &[]), "unread_item_ids");
    assert!(list.iter().all(|k| !unread.contains(k)), "every entry of the folder read there");
    assert_eq!(unread, new, "the old one that came later and Delta's stay unread there");
    assert_eq!(keys(&sandbox, "e.read = 0"), unread, "and here the same");
}

/// A Coldsweat with the folder News and Delta, synced once, the folder's 300 entries read here; or `None` (the
/// test skipped) where Coldsweat cannot start.
fn folder_on_coldsweat(
    feeds_server: &Server,
    test: &str,
) -> Option<(Coldsweat, Sandbox, std::path::PathBuf, Vec<String>)> {
    let mut outlines: Vec<(Option<&str>, &str, String)> =
        NEWS.iter().map(|(path, title)| (Some("News"), *title, feeds_server.url(path))).collect();
    outlines.push((None, "Delta", feeds_server.url("/d.xml")));
    let refs: Vec<(Option<&str>, &str, &str)> = outlines.iter().map(|(f, t, u)| (*f, *t, u.as_str())).collect();
    let coldsweat = match Coldsweat::start(&support::opml(&refs)) {
        Ok(server) => server,
        Err(why) => {
            support::skip(test, &format!("no Coldsweat: {why}"));
            return None;
        }
    };
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", coldsweat.config());
    let out = sync(&sandbox, &cfg);
    assert!(stdout(&out).starts_with("Coldsweat: 303 new"), "{}{}", stdout(&out), stderr(&out));
    let list = news_here(&sandbox);
    assert_eq!(list.len(), 300);
    mark_here(&sandbox, &list, |ids| UserWrite::SetRead { ids, read: true });
    Some((coldsweat, sandbox, cfg, list))
}
