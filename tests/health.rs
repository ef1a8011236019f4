//! Feed health end to end, on the real binary: a farm of 28 feeds on a loopback server (and on hosts that never
//! resolve) in every state, refreshed three times, then judged by `tidings health --json`; and a network-wide
//! outage, which counts against no feed.

mod support;

use support::server::{Reply, Server};
use support::{Sandbox, opml, stdout};

const DAY: i64 = 86_400;

/// An RSS document whose entries are dated `dates` (seconds since the epoch).
fn dated_rss(title: &str, dates: &[i64]) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel><title>{title}</title>\
         <link>http://example.com/</link><description>test</description>\n"
    );
    for (i, at) in dates.iter().enumerate() {
        let date = chrono::DateTime::from_timestamp(*at, 0).unwrap().to_rfc2822();
        xml.push_str(&format!(
            "<item><guid>{title}-{i}</guid><title>Post {i}</title><link>http://example.com/{i}</link>\
             <pubDate>{date}</pubDate></item>\n"
        ));
    }
    xml.push_str("</channel></rss>\n");
    xml
}

/// Weekly posts for three years, the newest `days_ago` days ago.
fn weekly(days_ago: i64) -> Vec<i64> {
    let now = chrono::Utc::now().timestamp();
    (0..156).map(|week| now - days_ago * DAY - week * 7 * DAY).collect()
}

fn feed(reply_title: &str, days_ago: i64) -> Reply {
    Reply::ok("application/rss+xml", dated_rss(reply_title, &weekly(days_ago)))
}

/// `tidings health --json`, parsed, and its exit code.
fn health(sandbox: &Sandbox) -> (Vec<serde_json::Value>, Option<i32>) {
    let out = sandbox.run(&["health", "--json"]);
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("health --json prints JSON");
    (rows.as_array().expect("an array").clone(), out.status.code())
}

#[test]
fn a_farm_of_28_feeds_is_classified_28_of_28_after_three_forced_refreshes() {
    let server = Server::start();
    let mut feeds: Vec<(String, &str)> = Vec::new();
    for i in 0..4 {
        // Not routed: 404.
        feeds.push((server.url(&format!("/missing{i}.xml")), "dead"));
    }
    for i in 0..3 {
        server.route(&format!("/gone{i}.xml"), Reply::status(410));
        feeds.push((server.url(&format!("/gone{i}.xml")), "gone"));
    }
    for i in 0..3 {
        feeds.push((format!("http://feed{i}.tidings-test.invalid/feed.xml"), "dead"));
    }
    let mut moves = Vec::new();
    for i in 0..5 {
        let status = if i % 2 == 0 { 301 } else { 308 };
        server.route(&format!("/old{i}.xml"), Reply::status(status).with_header("Location", &format!("/new{i}.xml")));
        server.route(&format!("/new{i}.xml"), feed(&format!("Moved {i}"), 1));
        feeds.push((server.url(&format!("/old{i}.xml")), "moved"));
        moves.push((server.url(&format!("/old{i}.xml")), server.url(&format!("/new{i}.xml"))));
    }
    for i in 0..5 {
        server.route(&format!("/quiet{i}.xml"), feed(&format!("Quiet {i}"), 200 + i));
        feeds.push((server.url(&format!("/quiet{i}.xml")), "quiet"));
    }
    for i in 0..3 {
        server.route(&format!("/busy{i}.xml"), Reply::status(429).with_header("Retry-After", "86400"));
        feeds.push((server.url(&format!("/busy{i}.xml")), "throttled"));
    }
    for i in 0..5 {
        server.route(&format!("/ok{i}.xml"), feed(&format!("Healthy {i}"), 2));
        feeds.push((server.url(&format!("/ok{i}.xml")), "ok"));
    }
    assert_eq!(feeds.len(), 28);
    let sandbox = Sandbox::new();
    let list: Vec<(Option<&str>, &str, &str)> =
        feeds.iter().map(|(url, _)| (None, url.as_str(), url.as_str())).collect();
    let file = sandbox.write("farm.opml", opml(&list));
    sandbox.tidings().arg("--opml").arg(&file).args(["refresh", "--force"]).output().expect("first refresh");
    for _ in 0..2 {
        sandbox.run(&["refresh", "--force"]);
    }
    let (rows, code) = health(&sandbox);
    assert_eq!(rows.len(), 28, "{rows:?}");
    let mut right = 0;
    for (url, want) in &feeds {
        let row = rows.iter().find(|r| r["url"] == url.as_str()).unwrap_or_else(|| panic!("{url} is listed"));
        assert_eq!(row["state"], *want, "{url}: {row}");
        right += 1;
    }
    assert_eq!(right, 28);
    for (old, new) in &moves {
        let row = rows.iter().find(|r| r["url"] == old.as_str()).unwrap();
        assert_eq!(row["moved_to"], new.as_str(), "{row}");
    }
    let export = stdout(&sandbox.run(&["export"]));
    for (old, new) in &moves {
        assert!(export.contains(old.as_str()) && !export.contains(new.as_str()), "no move applied: {export}");
    }
    let quiet = rows.iter().find(|r| r["state"] == "quiet").unwrap();
    assert_eq!(quiet["median_gap_days"], 7.0, "{quiet}");
    assert!(quiet["last_entry"].is_string(), "{quiet}");
    let dead = rows.iter().find(|r| r["url"] == feeds[0].0.as_str()).unwrap();
    assert_eq!((dead["failures"].as_i64(), dead["status"].as_i64()), (Some(3), Some(404)), "{dead}");
    assert!(dead["since"].is_string() && dead["error"].is_string(), "{dead}");
    assert_eq!(code, Some(1), "a feed that is not ok makes the exit status 1");
    let table = stdout(&sandbox.run(&["health"]));
    assert!(table.lines().nth(1).is_some_and(|l| l.starts_with("dead")), "worst first:\n{table}");
    assert!(table.contains("23 of 28 feeds need a look."), "{table}");
}

#[test]
fn a_network_wide_outage_for_three_refreshes_counts_against_no_feed() {
    // Three hosts that refuse every connection: a port that was free a moment ago on each.
    let urls: Vec<String> = (0..3)
        .flat_map(|i| {
            let listener = std::net::TcpListener::bind((support::server::farm_address(i), 0)).expect("bind");
            let addr = listener.local_addr().unwrap();
            drop(listener);
            [format!("http://{addr}/a.xml"), format!("http://{addr}/b.xml")]
        })
        .collect();
    let sandbox = Sandbox::new();
    let list: Vec<(Option<&str>, &str, &str)> = urls.iter().map(|u| (None, u.as_str(), u.as_str())).collect();
    let file = sandbox.write("subs.opml", opml(&list));
    let first = sandbox.tidings().arg("--opml").arg(&file).args(["refresh", "--force"]).output().unwrap();
    assert!(stdout(&first).contains("OUTAGE"), "the refresh says the network seems down: {}", stdout(&first));
    for _ in 0..2 {
        sandbox.run(&["refresh", "--force"]);
    }
    let (rows, code) = health(&sandbox);
    assert_eq!(rows.len(), 6);
    for row in &rows {
        assert_eq!((row["state"].as_str(), row["failures"].as_i64()), (Some("ok"), Some(0)), "{row}");
    }
    assert_eq!(code, Some(0));
    // Nothing was left waiting a backoff either: an unforced refresh tries every feed.
    let again = stdout(&sandbox.run(&["refresh"]));
    assert!(!again.contains("SKIPPED"), "{again}");
}

#[test]
fn one_host_down_among_others_that_answer_is_that_hosts_trouble() {
    let server = Server::start();
    server.route("/fine.xml", feed("Fine", 1));
    let listener = std::net::TcpListener::bind((support::server::farm_address(0), 0)).expect("bind");
    let down = format!("http://{}/feed.xml", listener.local_addr().unwrap());
    drop(listener);
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Fine", &server.url("/fine.xml")), (None, "Down", &down)]));
    let out = sandbox.tidings().arg("--opml").arg(&file).args(["refresh", "--force"]).output().unwrap();
    assert!(!stdout(&out).contains("OUTAGE"), "{}", stdout(&out));
    let (rows, _) = health(&sandbox);
    let row = rows.iter().find(|r| r["url"] == down.as_str()).unwrap();
    assert_eq!((row["state"].as_str(), row["failures"].as_i64()), (Some("failing"), Some(1)), "{row}");
}
