//! Discovery against pages served from 127.0.0.1, one per way a site can offer (or not offer) its feed, and
//! the `discover` and `add` commands.

mod support;

use support::server::{Reply, Server};
use support::{Sandbox, atom, rss, stderr, stdout};
use tidings::feedlinks::FoundBy;
use tidings::fetch::discovery::{Discovery, discover};
use tidings::fetch::{FetchConfig, Fetcher};

fn fetcher() -> Fetcher {
    Fetcher::new(FetchConfig {
        connect_timeout: std::time::Duration::from_secs(5),
        timeout: std::time::Duration::from_secs(5),
        max_body_bytes: 1 << 20,
    })
    .unwrap()
}

fn page(head: &str, body: &str) -> Reply {
    Reply::ok(
        "text/html; charset=utf-8",
        format!("<!DOCTYPE html><html><head><title>Site</title>{head}</head><body>{body}</body></html>"),
    )
}

fn feed_xml(title: &str) -> Reply {
    Reply::ok("application/rss+xml", rss(title, &[("1", "An entry", "<p>x</p>")]))
}

async fn find(server: &Server, path: &str) -> Discovery {
    discover(&fetcher(), &server.url(path)).await
}

fn found(d: &Discovery) -> Vec<(String, FoundBy)> {
    d.feeds.iter().map(|f| (f.url.clone(), f.found_by)).collect()
}

#[tokio::test]
async fn a_link_tag_with_a_relative_href() {
    let s = Server::start();
    s.route("/blog/", page(r#"<link rel="alternate" type="application/rss+xml" title="Posts" href="feed.xml">"#, ""));
    s.route("/blog/feed.xml", feed_xml("Blog posts"));
    let d = find(&s, "/blog/").await;
    assert_eq!(found(&d), vec![(s.url("/blog/feed.xml"), FoundBy::LinkTag)]);
    assert_eq!(d.feeds[0].title.as_deref(), Some("Blog posts"), "the feed's own title");
}

#[tokio::test]
async fn a_base_href_decides_where_relative_links_point() {
    let s = Server::start();
    s.route(
        "/",
        page(r#"<base href="/static/"><link rel="Alternate" type="application/atom+xml" href="atom.xml">"#, ""),
    );
    s.route("/static/atom.xml", Reply::ok("application/atom+xml", atom("Static", &[("1", "E", "x")])));
    assert_eq!(found(&find(&s, "/").await), vec![(s.url("/static/atom.xml"), FoundBy::LinkTag)]);
}

#[tokio::test]
async fn several_feeds_and_a_json_feed_and_nothing_that_is_not_one() {
    let s = Server::start();
    let head = r#"<link rel="alternate" type="application/rss+xml" href="/posts.xml">
        <link rel="alternate" type="application/atom+xml" href="/comments.atom">
        <link rel="alternate" type="application/feed+json" href="/feed.json">
        <link rel="alternate" type="application/rss+xml" href="/broken.xml">
        <link rel="stylesheet" type="text/css" href="/style.css">"#;
    s.route("/", page(head, r#"<a href="/about">About</a>"#));
    s.route("/posts.xml", feed_xml("Posts"));
    s.route("/comments.atom", Reply::ok("application/atom+xml", atom("Comments", &[("c", "C", "x")])));
    s.route(
        "/feed.json",
        Reply::ok(
            "application/feed+json",
            r#"{"version":"https://jsonfeed.org/version/1.1","title":"JSON","items":[{"id":"1","content_text":"hi"}]}"#,
        ),
    );
    s.route("/broken.xml", Reply::ok("text/html", "<html><body>Not found, but 200</body></html>"));
    let d = find(&s, "/").await;
    assert_eq!(
        found(&d),
        vec![
            (s.url("/posts.xml"), FoundBy::LinkTag),
            (s.url("/comments.atom"), FoundBy::LinkTag),
            (s.url("/feed.json"), FoundBy::LinkTag),
        ]
    );
    assert_eq!(d.feeds[2].kind, tidings::model::FeedKind::Json);
}

#[tokio::test]
async fn the_link_header_alone() {
    let s = Server::start();
    s.route(
        "/",
        page("", "<p>No link tags here.</p>")
            .with_header("Link", "</updates.xml>; rel=\"alternate\"; type=\"application/rss+xml\""),
    );
    s.route("/updates.xml", feed_xml("Updates"));
    assert_eq!(found(&find(&s, "/").await), vec![(s.url("/updates.xml"), FoundBy::LinkHeader)]);
}

#[tokio::test]
async fn a_common_path_alone_is_probed() {
    let s = Server::start();
    s.route("/", page("", "<p>A site that names no feed.</p>"));
    s.route("/index.xml", feed_xml("Hugo site"));
    let d = find(&s, "/").await;
    assert_eq!(found(&d), vec![(s.url("/index.xml"), FoundBy::CommonPath)]);
    assert!(d.tried.iter().any(|t| t.contains("common feed addresses")));
}

#[tokio::test]
async fn a_body_link_alone() {
    let s = Server::start();
    s.route(
        "/",
        page("", r#"<p>Follow us: <a href="/syndication/all.rss">RSS</a> or <a href="/contact">mail</a></p>"#),
    );
    s.route("/syndication/all.rss", feed_xml("Everything"));
    assert_eq!(found(&find(&s, "/").await), vec![(s.url("/syndication/all.rss"), FoundBy::BodyLink)]);
}

#[tokio::test]
async fn a_page_with_nothing_says_what_was_tried() {
    let s = Server::start();
    s.route("/", page("", "<p>Just words, and <a href=\"/feed-me\">a snack</a>.</p>"));
    let d = find(&s, "/").await;
    assert!(d.feeds.is_empty());
    assert!(d.error.is_none());
    assert_eq!(d.tried.len(), 4, "{:?}", d.tried);
}

#[tokio::test]
async fn a_windows_1251_page_with_a_meta_charset() {
    let s = Server::start();
    let html = "<html><head><meta charset=\"windows-1251\">\
                <link rel=\"alternate\" type=\"application/rss+xml\" title=\"Новости\" href=\"/rss\"></head>\
                <body>Русский текст</body></html>";
    s.route(
        "/",
        Reply::Ok {
            status: 200,
            headers: vec![("Content-Type".into(), "text/html".into())],
            body: encoding_rs::WINDOWS_1251.encode(html).0.into_owned(),
        },
    );
    // The feed names no title of its own, so the page's (decoded) one is kept.
    s.route(
        "/rss",
        Reply::ok("application/rss+xml", "<rss version=\"2.0\"><channel><item><title>x</title></item></channel></rss>"),
    );
    let d = find(&s, "/").await;
    assert_eq!(found(&d), vec![(s.url("/rss"), FoundBy::LinkTag)]);
    assert_eq!(d.feeds[0].title.as_deref(), Some("Новости"));
}

#[tokio::test]
async fn a_redirecting_site_resolves_links_against_where_it_lands() {
    let s = Server::start();
    s.route("/old", Reply::status(301).with_header("Location", "/new/home"));
    s.route("/new/home", page(r#"<link rel="alternate" type="application/rss+xml" href="feed">"#, ""));
    s.route("/new/feed", feed_xml("Moved"));
    assert_eq!(found(&find(&s, "/old").await), vec![(s.url("/new/feed"), FoundBy::LinkTag)]);
}

#[tokio::test]
async fn a_feed_address_is_its_own_candidate() {
    let s = Server::start();
    s.route("/feed.xml", feed_xml("Direct"));
    let d = find(&s, "/feed.xml").await;
    assert_eq!(found(&d), vec![(s.url("/feed.xml"), FoundBy::SelfFeed)]);
}

#[tokio::test]
async fn two_links_to_one_feed_count_once() {
    let s = Server::start();
    s.route(
        "/",
        page(
            r#"<link rel="alternate" type="application/rss+xml" href="/feed.xml">"#,
            r#"<a href="/feed.xml?utm_source=footer">RSS</a>"#,
        ),
    );
    s.route("/feed.xml", feed_xml("Once"));
    assert_eq!(find(&s, "/").await.feeds.len(), 1);
}

#[test]
fn discover_command_lists_candidates_as_json() {
    let s = Server::start();
    s.route("/", page(r#"<link rel="alternate" type="application/rss+xml" href="/a.xml"><link rel="alternate" type="application/atom+xml" href="/b.xml">"#, ""));
    s.route("/a.xml", feed_xml("A"));
    s.route("/b.xml", Reply::ok("application/atom+xml", atom("B", &[("1", "E", "x")])));
    let sandbox = Sandbox::new();
    let out = sandbox.run(&["discover", "--json", &s.url("/")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["url"], s.url("/"));
    assert_eq!(v["candidates"][0]["url"], s.url("/a.xml"));
    assert_eq!(v["candidates"][0]["title"], "A");
    assert_eq!(v["candidates"][0]["kind"], "rss2");
    assert_eq!(v["candidates"][0]["found_by"], "link-tag");
    assert_eq!(v["candidates"][1]["kind"], "atom");
    assert!(!sandbox.db().exists(), "discover writes nothing");
}

#[test]
fn add_with_several_candidates_needs_a_pick() {
    let s = Server::start();
    s.route("/", page(r#"<link rel="alternate" type="application/rss+xml" href="/a.xml"><link rel="alternate" type="application/rss+xml" href="/b.xml">"#, ""));
    s.route("/a.xml", feed_xml("A"));
    s.route("/b.xml", feed_xml("B"));
    let sandbox = Sandbox::new();
    let out = sandbox.run(&["add", &s.url("/")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--pick N"), "{}", stderr(&out));
    assert!(stderr(&out).contains("1. A (rss2)"), "{}", stderr(&out));

    let out = sandbox.run(&["add", &s.url("/"), "--pick", "2", "--folder", "Later"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("Subscribed to B"), "{}", stdout(&out));
    assert!(stdout(&out).contains("): 1 entry"), "it was refreshed: {}", stdout(&out));
    let export = stdout(&sandbox.run(&["export"]));
    assert!(export.contains("<outline text=\"Later\"") && export.contains(&s.url("/b.xml")), "{export}");

    let again = sandbox.run(&["add", &s.url("/b.xml")]);
    assert!(stdout(&again).contains("Already subscribed"), "{}", stdout(&again));
    // The site again: the list says which of its feeds is subscribed already, as the reader's picker does.
    let listed = stderr(&sandbox.run(&["add", &s.url("/")]));
    let line = |n: &str| listed.lines().find(|l| l.trim_start().starts_with(n)).unwrap_or_default().to_string();
    assert!(line("2. B").ends_with(" · already subscribed") && !line("1. A").contains("already"), "{listed}");
}

/// Adding a feed reads it once: the document discovery checked is the one its first refresh stores, whether
/// the address given was the feed's or its site's. The next refresh asks the server again.
#[test]
fn add_fetches_the_feed_once_not_for_discovery_and_again_for_its_first_refresh() {
    let s = Server::start();
    s.route("/", page(r#"<link rel="alternate" type="application/rss+xml" href="/a.xml">"#, ""));
    s.route("/a.xml", feed_xml("A"));
    s.route("/b.xml", feed_xml("B"));
    let sandbox = Sandbox::new();
    let by_site = sandbox.run(&["add", &s.url("/")]);
    assert!(
        stdout(&by_site).contains("Subscribed to A") && stdout(&by_site).contains("1 entry"),
        "{}",
        stdout(&by_site)
    );
    let said = stderr(&by_site);
    assert!(
        said.contains(&format!("{} is not a feed; found {} (a <link> tag)", s.url("/"), s.url("/a.xml"))),
        "{said}"
    );
    let direct = sandbox.run(&["add", &s.url("/b.xml")]);
    assert!(stdout(&direct).contains("Subscribed to B") && stdout(&direct).contains("1 entry"), "{}", stdout(&direct));
    assert_eq!((s.requests_for("/a.xml").len(), s.requests_for("/b.xml").len()), (1, 1));
    let refreshed = sandbox.run(&["refresh"]);
    assert!(refreshed.status.success(), "{}", stderr(&refreshed));
    assert_eq!((s.requests_for("/a.xml").len(), s.requests_for("/b.xml").len()), (2, 2), "a refresh asks again");
}

#[test]
fn add_of_a_page_without_feeds_fails_with_what_was_tried() {
    let s = Server::start();
    s.route("/", page("", "<p>nothing</p>"));
    let out = Sandbox::new().run(&["add", &s.url("/")]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("No feed found") && stderr(&out).contains("common feed addresses"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn import_runs_discovery_for_site_only_outlines() {
    let s = Server::start();
    s.route("/site/", page(r#"<link rel="alternate" type="application/rss+xml" href="/site/feed.xml">"#, ""));
    s.route("/site/feed.xml", feed_xml("Site feed"));
    s.route("/empty/", page("", ""));
    let sandbox = Sandbox::new();
    let opml = format!(
        r#"<opml version="2.0"><body><outline text="Tech"><outline text="A site" htmlUrl="{}"/></outline>
           <outline text="Nothing" htmlUrl="{}"/></body></opml>"#,
        s.url("/site/"),
        s.url("/empty/")
    );
    let file = sandbox.write("subs.opml", opml);
    let out = sandbox.run(&["import", support::path_str(&file)]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("discovered  1"), "{text}");
    assert!(text.contains(&format!("{} → {}", s.url("/site/"), s.url("/site/feed.xml"))), "{text}");
    assert!(text.contains(&format!("{}: names a web site that offers no feed", s.url("/empty/"))), "{text}");
    let export = stdout(&sandbox.run(&["export"]));
    assert!(export.contains("<outline text=\"Tech\""), "the found feed keeps the outline's folder: {export}");
    assert!(export.contains("text=\"A site\""), "and its name: {export}");
}

/// Defect 15 of issue 21: an address typed without its scheme is tried as http when https cannot connect, and a
/// refused connection is said in words, without the system's error number.
#[tokio::test]
async fn an_address_without_a_scheme_falls_back_to_http_and_a_refusal_is_said_in_words() {
    let s = Server::start();
    s.route("/feed.xml", feed_xml("Plain"));
    let bare = s.url("/feed.xml").trim_start_matches("http://").to_string();
    let d = discover(&fetcher(), &bare).await;
    assert_eq!(found(&d), vec![(s.url("/feed.xml"), FoundBy::SelfFeed)], "{:?} {:?}", d.error, d.tried);
    // A port nothing listens on (bound, then let go).
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let d = discover(&fetcher(), &format!("127.0.0.1:{port}/feed")).await;
    let said = d.error.unwrap_or_default();
    assert!(said.contains("refused the connection"), "{said}");
    assert!(!said.contains("os error"), "{said}");
}
