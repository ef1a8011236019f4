//! One refresh against a loopback server that fails in every way a server can: each broken feed gets its own
//! error, every other feed refreshes, what was stored before is kept, and the process stays within its memory
//! bound (measured on the real binary). And a server that closes kept-alive connections without saying so:
//! a GET that meets a closed connection before any byte of its answer is sent again, once, on a fresh one; one
//! whose answer had begun is not.

mod support;

use futures::StreamExt;
use std::time::Duration;
use support::server::{Reply, Server};
use support::{Sandbox, opml, path_str, rss, stderr, stdout};
use tidings::fetch::{FetchConfig, FetchError, FetchOutcome, Fetcher, Validators};
use tidings::model::ErrorKind;

fn good(title: &str) -> Reply {
    Reply::ok("application/rss+xml", rss(title, &[("1", "First", "<p>1</p>"), ("2", "Second", "<p>2</p>")]))
}

/// Every misbehaviour, by path, with the error kind it must produce.
fn faults(server: &Server) -> Vec<(&'static str, &'static str)> {
    let bomb = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bomb-64mb.gz")).unwrap();
    server.route("/ok-a.xml", good("Good A"));
    server.route("/ok-b.xml", good("Good B"));
    // /missing.xml is not routed: 404.
    server.route("/error.xml", Reply::status(500));
    server.route("/busy.xml", Reply::status(429).with_header("Retry-After", "120"));
    server.route("/slow.xml", Reply::Delay(Duration::from_secs(4), Box::new(good("Too late"))));
    server.route("/loop-a.xml", Reply::status(301).with_header("Location", "/loop-b.xml"));
    server.route("/loop-b.xml", Reply::status(302).with_header("Location", "/loop-a.xml"));
    server.route("/huge.xml", Reply::Endless { content_type: "application/rss+xml".into(), total: 200 << 20 });
    server.route(
        "/bomb.xml",
        Reply::Ok {
            status: 200,
            headers: vec![
                ("Content-Type".into(), "application/rss+xml".into()),
                ("Content-Encoding".into(), "gzip".into()),
            ],
            body: bomb,
        },
    );
    server
        .route("/cut.xml", Reply::Truncated { announced: 100_000, body: rss("Cut", &[("1", "x", "y")]).into_bytes() });
    server.route("/reset.xml", Reply::Reset);
    server.route("/page.xml", Reply::ok("text/html", "<!DOCTYPE html><html><body><h1>Home</h1></body></html>"));
    server.route(
        "/empty.xml",
        Reply::Ok { status: 200, headers: vec![("Content-Type".into(), "application/rss+xml".into())], body: vec![] },
    );
    vec![
        ("/missing.xml", "http"),
        ("/error.xml", "http"),
        ("/busy.xml", "http"),
        ("/slow.xml", "timeout"),
        ("/loop-a.xml", "redirect"),
        ("/huge.xml", "too-large"),
        ("/bomb.xml", "too-large"),
        ("/cut.xml", "body"),
        ("/reset.xml", "body"),
        ("/page.xml", "not-a-feed"),
        ("/empty.xml", "empty"),
    ]
}

#[cfg(target_os = "linux")]
#[test]
fn every_fault_gets_its_own_error_and_nothing_else_suffers() {
    let server = Server::start();
    let expected = faults(&server);
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", "timeout_secs = 2\nconnect_timeout_secs = 2\nmax_feed_size_mb = 8\n");

    // First, a good refresh stores entries for the feed that will break next time.
    server.route("/later-broken.xml", good("Later broken"));
    let mut feeds: Vec<(Option<&str>, String, String)> =
        vec![(None, "Later broken".into(), server.url("/later-broken.xml"))];
    let list = opml(&feeds.iter().map(|(f, t, u)| (*f, t.as_str(), u.as_str())).collect::<Vec<_>>());
    let file = sandbox.write("first.opml", list);
    let out = sandbox.tidings().arg("--config").arg(&config).arg("--opml").arg(&file).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    server.route("/later-broken.xml", Reply::status(500));

    feeds.extend([("/ok-a.xml", ""), ("/ok-b.xml", "")].iter().map(|(p, _)| (None, p.to_string(), server.url(p))));
    feeds.extend(expected.iter().map(|(p, _)| (None, p.to_string(), server.url(p))));
    let list = opml(&feeds.iter().map(|(f, t, u)| (*f, t.as_str(), u.as_str())).collect::<Vec<_>>());
    let file = sandbox.write("all.opml", list);
    assert!(sandbox.run(&["import", path_str(&file)]).status.code().is_some());

    let measured = support::measure(sandbox.tidings().arg("--config").arg(&config).args(["refresh", "--json"]));
    let (out, peak) = (measured.output, measured.peak_rss);
    assert_eq!(out.status.code(), Some(3), "{}{}", stdout(&out), stderr(&out));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let failed = summary["failed"].as_array().unwrap();
    for (path, kind) in &expected {
        let url = server.url(path);
        let entry = failed.iter().find(|f| f["url"] == url).unwrap_or_else(|| panic!("{path} did not fail: {summary}"));
        assert_eq!(entry["kind"], *kind, "{path}: {entry}");
    }
    assert_eq!(summary["updated"], 2, "both good feeds refreshed: {summary}");
    assert!(peak < 200 << 20, "peak memory {} MB", peak >> 20);

    let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
    let kept: i64 = conn
        .query_row(
            "SELECT count(*) FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.url LIKE '%later-broken%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, 2, "the entries stored before the failure are kept");
    let (retry, now): (i64, i64) = conn
        .query_row(
            "SELECT retry_at, CAST(strftime('%s','now') AS INTEGER) FROM feeds WHERE url LIKE '%busy.xml'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(retry >= now + 110, "Retry-After: 120 is honoured ({retry} vs {now})");
    let error: String =
        conn.query_row("SELECT last_error FROM feeds WHERE url LIKE '%page.xml'", [], |r| r.get(0)).unwrap();
    assert!(error.contains("tidings discover"), "{error}");

    // The next refresh leaves the 429 feed alone, and says so.
    let out = sandbox.tidings().arg("--config").arg(&config).args(["refresh"]).output().unwrap();
    let text = stdout(&out);
    assert!(text.contains("SKIPPED /busy.xml: waiting until"), "{text}");
}

#[test]
fn a_gone_feed_is_marked_dead_and_left_alone_until_forced() {
    let server = Server::start();
    server.route("/gone.xml", Reply::status(410));
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Gone", &server.url("/gone.xml"))]));
    let out = sandbox.tidings().arg("--opml").arg(&file).arg("refresh").output().unwrap();
    assert!(stdout(&out).contains("HTTP 410 (gone"), "{}", stdout(&out));
    let before = server.requests_for("/gone.xml").len();
    let out = sandbox.run(&["refresh"]);
    assert!(stdout(&out).contains("SKIPPED Gone: the feed is gone"), "{}", stdout(&out));
    assert_eq!(server.requests_for("/gone.xml").len(), before, "not fetched again");
    server.route("/gone.xml", good("Back"));
    let out = sandbox.run(&["refresh", "--force"]);
    assert!(out.status.success(), "{}", stdout(&out));
    let dead: bool = rusqlite::Connection::open(sandbox.db())
        .unwrap()
        .query_row("SELECT dead FROM feeds", [], |r| r.get(0))
        .unwrap();
    assert!(!dead, "a forced refresh that works brings it back");
}

#[test]
fn a_chain_of_permanent_redirects_proposes_a_move_on_the_third_refresh_and_never_applies_it() {
    let server = Server::start();
    server.route("/old.xml", Reply::status(301).with_header("Location", "/middle.xml"));
    server.route("/middle.xml", Reply::status(308).with_header("Location", "/new.xml"));
    server.route("/new.xml", good("Moved"));
    server.route("/temp.xml", Reply::status(302).with_header("Location", "/new-temp.xml"));
    server.route("/new-temp.xml", good("Temporary"));
    let sandbox = Sandbox::new();
    let file = sandbox
        .write("subs.opml", opml(&[(None, "Old", &server.url("/old.xml")), (None, "Temp", &server.url("/temp.xml"))]));
    let out = sandbox.tidings().arg("--opml").arg(&file).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(!stdout(&out).contains("MOVED"), "one redirect is not yet a move: {}", stdout(&out));
    sandbox.run(&["refresh", "--force"]);
    let text = stdout(&sandbox.run(&["refresh", "--force"]));
    // "Old" is the name the OPML file gave it, and stays its name.
    assert!(text.contains(&format!("MOVED   Old: redirected for good to {}", server.url("/new.xml"))), "{text}");
    let export = stdout(&sandbox.run(&["export"]));
    assert!(export.contains(&server.url("/old.xml")) && !export.contains(&server.url("/new.xml")), "{export}");
    assert!(export.contains(&server.url("/temp.xml")), "a temporary redirect keeps the address: {export}");
}

/// `tidings refresh` of 20 feeds on one server, two requests to it at a time; the server, after.
fn refresh_twenty_feeds_two_at_a_time() -> Server {
    let server = Server::start();
    let mut list = Vec::new();
    for i in 0..20 {
        server.route(&format!("/f{i}.xml"), good(&format!("F{i}")));
        list.push(server.url(&format!("/f{i}.xml")));
    }
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", "concurrency = 4\nper_host_concurrency = 2\n");
    let file =
        sandbox.write("subs.opml", opml(&list.iter().map(|u| (None, u.as_str(), u.as_str())).collect::<Vec<_>>()));
    let out = sandbox.tidings().arg("--config").arg(&config).arg("--opml").arg(&file).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    server
}

#[test]
fn refreshes_reuse_connections() {
    let server = refresh_twenty_feeds_two_at_a_time();
    assert_eq!(server.requests().len(), 20);
    assert!(server.connections() <= 4, "{} connections for 20 requests with 2 per host", server.connections());
}

/// A refresh keeps a connection open only while its host has requests waiting to take it over: the requests
/// after which nothing else will use their connection ask the server to close it, so no idle connection outlives
/// the host's work.
#[test]
fn a_refresh_closes_the_connections_its_host_will_not_use_again() {
    let server = refresh_twenty_feeds_two_at_a_time();
    let closing: Vec<bool> = server
        .requests()
        .iter()
        .map(|r| r.header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close")))
        .collect();
    assert_eq!(closing.len(), 20);
    // Two requests in flight at a time: the last two ask to close; all those before keep theirs for the next.
    // (The server may see neighbours in another order: each asks as it goes out, two at a time.)
    assert_eq!(closing.iter().filter(|&&c| c).count(), 2, "{closing:?}");
    assert!(!closing[..16].contains(&true), "only the last requests close their connections: {closing:?}");
    assert!(server.connections() <= 4, "{} connections for 20 requests with 2 per host", server.connections());
}

fn fetcher() -> Fetcher {
    Fetcher::new(FetchConfig {
        connect_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(10),
        max_body_bytes: 1 << 20,
    })
    .unwrap()
}

/// A refresh keeps a document's body waiting while its memory budget is full (`get_admitted`): that time is the
/// refresh's own, not the server's, and does not count against the request's timeout — while a server that is
/// itself slow still times out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_kept_waiting_by_its_caller_is_not_timed_out_for_it() {
    let server = Server::start();
    server.route("/kept.xml", good("Kept"));
    server.route("/slow.xml", Reply::Delay(Duration::from_millis(1500), Box::new(good("Slow"))));
    let fetcher = Fetcher::new(FetchConfig {
        connect_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(1),
        max_body_bytes: 1 << 20,
    })
    .unwrap();
    // Longer than the whole timeout: the headers are here, the body waits on the caller.
    let kept_waiting = |length: Option<u64>, body_waits: bool| async move {
        tokio::time::sleep(Duration::from_millis(1100)).await;
        (length, body_waits)
    };
    let (outcome, admitted) =
        fetcher.get_admitted(&server.url("/kept.xml"), &Validators::default(), true, kept_waiting).await.unwrap();
    assert!(matches!(outcome, FetchOutcome::Fetched(ref f) if !f.body.is_empty()), "{outcome:?}");
    let (length, body_waits) = admitted.expect("a document is admitted");
    assert!(length.is_some_and(|n| n > 0) && body_waits, "HTTP/1 with a Content-Length: {length:?} {body_waits}");
    let slow = fetcher.get(&server.url("/slow.xml"), &Validators::default()).await;
    assert!(matches!(slow, Err(FetchError::Timeout { secs: 1, .. })), "{slow:?}");
    // An answer begun whose body stops coming says so: the site is slow to send, not silent.
    let gate = support::server::Gate::default();
    server.route(
        "/stalled.xml",
        Reply::Stalled { announced: 10_000, body: b"<rss version=\"2.0\">".to_vec(), gate: gate.clone() },
    );
    let stalled = fetcher.get(&server.url("/stalled.xml"), &Validators::default()).await;
    gate.open();
    let err = stalled.unwrap_err();
    assert!(matches!(err, FetchError::TimeoutReading { secs: 1, status: 200, .. }), "{err:?}");
    assert_eq!((err.kind(), err.answer_status(), err.status()), (ErrorKind::Timeout, Some(200), None));
    assert!(err.to_string().starts_with("the answer began but did not finish within 1 s"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gets_whose_pooled_connection_was_closed_are_sent_again_on_a_fresh_one() {
    let server = Server::start_closing_after_each_answer();
    let urls: Vec<String> = (0..60)
        .map(|i| {
            server.route(&format!("/f{i}.xml"), good(&format!("F{i}")));
            server.url(&format!("/f{i}.xml"))
        })
        .collect();
    let fetcher = fetcher();
    let mut failures = Vec::new();
    for round in 0..10 {
        let results: Vec<_> = futures::stream::iter(urls.iter())
            .map(|url| {
                let fetcher = fetcher.clone();
                async move { (url, fetcher.get(url, &Validators::default()).await) }
            })
            .buffer_unordered(6)
            .collect()
            .await;
        for (url, result) in results {
            if let Err(e) = result {
                failures.push(format!("round {round}: {url}: {e}"));
            }
        }
    }
    assert!(server.dropped() > 0, "no pooled connection was reused, so nothing was tested");
    assert!(failures.is_empty(), "{} of 600 GETs failed:\n{}", failures.len(), failures.join("\n"));
    assert!(fetcher.retries() > 0 && fetcher.retries() <= server.dropped(), "{} retries", fetcher.retries());
    assert_eq!(server.requests().len(), 600, "every GET answered once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_whose_answer_had_begun_is_not_sent_again() {
    let server = Server::start();
    let cut = rss("Cut", &[("1", "x", "y")]).into_bytes();
    server.route("/cut.xml", Reply::Truncated { announced: 100_000, body: cut });
    server.route("/head.xml", Reply::Truncated { announced: 100_000, body: Vec::new() });
    let fetcher = fetcher();
    for path in ["/cut.xml", "/head.xml"] {
        let result = fetcher.get(&server.url(path), &Validators::default()).await;
        assert!(matches!(result, Err(FetchError::Body { .. })), "{path}: {result:?}");
        assert_eq!(server.requests_for(path).len(), 1, "{path} was asked for once");
    }
    assert_eq!(fetcher.retries(), 0);
    // And the fetcher goes on: a good feed after them is fetched.
    server.route("/ok.xml", good("Ok"));
    let ok = fetcher.get(&server.url("/ok.xml"), &Validators::default()).await;
    assert!(matches!(ok, Ok(FetchOutcome::Fetched(_))), "{ok:?}");
}

#[test]
fn sixty_feeds_on_a_server_that_closes_kept_alive_connections_refresh_ten_times_without_a_failure() {
    let server = Server::start_closing_after_each_answer();
    let urls: Vec<String> = (0..60)
        .map(|i| {
            server.route(&format!("/f{i}.xml"), good(&format!("F{i}")));
            server.url(&format!("/f{i}.xml"))
        })
        .collect();
    let sandbox = Sandbox::new();
    let file =
        sandbox.write("subs.opml", opml(&urls.iter().map(|u| (None, u.as_str(), u.as_str())).collect::<Vec<_>>()));
    assert!(sandbox.run(&["import", path_str(&file)]).status.success());
    let mut failed = Vec::new();
    for round in 0..10 {
        let out = sandbox.run(&["refresh"]);
        if !out.status.success() {
            failed.push(format!("refresh {round}: {}{}", stdout(&out), stderr(&out)));
        }
    }
    assert!(server.dropped() > 0, "no pooled connection was reused, so nothing was tested");
    assert!(failed.is_empty(), "{} of 10 refreshes had failures:\n{}", failed.len(), failed.join("\n"));
    assert_eq!(server.requests().len(), 600, "every feed answered once per refresh");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_megabyte_of_response_head_is_too_large_not_a_broken_download() {
    let server = Server::start();
    server.route("/big-head.xml", good("Big head").with_header("X-Padding", &"a".repeat(1 << 20)));
    let many: Reply = (0..200).fold(good("Many"), |reply, i| reply.with_header(&format!("X-H{i}"), "v"));
    server.route("/many-headers.xml", many);
    let fetcher = fetcher();
    for path in ["/big-head.xml", "/many-headers.xml"] {
        let err = fetcher.get(&server.url(path), &Validators::default()).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::TooLarge, "{path}: {err:?}");
        let message = err.to_string();
        assert!(message.contains("headers") && message.contains("too large"), "{path}: {message}");
    }
    assert_eq!(fetcher.retries(), 0, "a head too large is not sent again");
}

/// A `Location` with bytes past ASCII in it (a server's raw UTF-8) is followed, percent-encoded, as browsers and
/// curl follow it; one that is no address says so, and what it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_an_address_in_raw_utf8_is_followed_and_one_to_no_address_says_which() {
    let server = Server::start();
    server.route("/moved.xml", Reply::status(301).with_header("Location", "/good/café.xml"));
    server.route("/good/caf%C3%A9.xml", good("Moved"));
    server.route("/nowhere.xml", Reply::status(302).with_header("Location", "http://[::1"));
    let fetcher = fetcher();
    let moved = fetcher.get(&server.url("/moved.xml"), &Validators::default()).await.unwrap();
    let FetchOutcome::Fetched(fetched) = moved else { panic!("{moved:?}") };
    assert!(fetched.final_url.ends_with("/good/caf%C3%A9.xml"), "{}", fetched.final_url);
    let err = fetcher.get(&server.url("/nowhere.xml"), &Validators::default()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Redirect, "{err:?}");
    assert!(err.to_string().contains("redirected to http://[::1, which is no address"), "{err}");
}
