//! The full-article path against pages served from 127.0.0.1: fetching an entry's link through the shared
//! fetcher, extracting the article from a page wrapped in navigation, ads, a sidebar and comments, refusing what
//! is not a web page, and `tidings inspect --full-text` through the real binary.

mod support;

use support::server::{Reply, Server};
use support::{Sandbox, stderr, stdout};
use tidings::extract::ExtractError;
use tidings::fetch::article::{ArticleError, fetch_article};
use tidings::fetch::{FetchConfig, Fetcher};

fn fetcher() -> Fetcher {
    Fetcher::new(FetchConfig {
        connect_timeout: std::time::Duration::from_secs(5),
        timeout: std::time::Duration::from_secs(5),
        max_body_bytes: 1 << 20,
    })
    .unwrap()
}

fn article_page() -> Reply {
    let html = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/article-page.html"))
        .expect("fixture");
    Reply::ok("text/html; charset=utf-8", html)
}

/// A server with the article at its dated address, and the short link an entry would carry redirecting there.
fn news_site() -> Server {
    let server = Server::start();
    server.route("/2026/06/14/harbour-lights.html", article_page());
    let target = server.url("/2026/06/14/harbour-lights.html");
    server.route("/s/harbour", Reply::Ok { status: 301, headers: vec![("Location".into(), target)], body: Vec::new() });
    server
}

/// Sentences of the story, and text of everything around it.
const STORY: [&str; 4] = [
    "every light along the old harbour wall went dark at once",
    "forming a ragged line of light",
    "We never drilled for the lights simply",
    "You bring your lamp.",
];
const AROUND: [&str; 14] = [
    "Sport",
    "Subscribe for one euro",
    "Search the Gazette",
    "cookies",
    "Rowboat X",
    "Advertisement",
    "Most read",
    "luxury cruises",
    "Sign me up",
    "First! Great story",
    "Typical council",
    "Post comment",
    "All rights reserved",
    "track(",
];

#[tokio::test]
async fn the_full_article_holds_the_story_and_not_the_navigation_ads_or_comments() {
    let server = news_site();
    let article = fetch_article(&fetcher(), &server.url("/s/harbour")).await.expect("an article");
    assert_eq!(article.final_url, server.url("/2026/06/14/harbour-lights.html"));
    let e = &article.extracted;
    assert_eq!(e.title.as_deref(), Some("The night the harbour lights went out, and what the town learned from it"));
    assert_eq!(e.site_name.as_deref(), Some("The Tidings Gazette"));
    assert_eq!(e.published.as_deref(), Some("2026-06-14T08:30:00Z"));
    let text = tidings::text::fold_whitespace(&tidings::text::html_to_plain(&e.html));
    for sentence in STORY {
        assert!(text.contains(sentence), "the article lost {sentence:?}:\n{text}");
    }
    for noise in AROUND {
        assert!(!text.contains(noise), "{noise:?} is not part of the article:\n{text}");
    }
    // Relative links and images resolve against the page's final address, not the short link.
    for absolute in [
        server.url("/news/2026/06/harbour-authority-statement"),
        server.url("/council/minutes/2026-06-12.pdf"),
        server.url("/media/2026/06/harbour-dark.jpg"),
    ] {
        assert!(e.html.contains(&format!("\"{absolute}\"")), "{absolute} missing from {}", e.html);
    }
    for unsafe_markup in ["<script", "<style", "<form", "<iframe", "onclick", "style="] {
        assert!(!e.html.contains(unsafe_markup), "{unsafe_markup} survived sanitizing: {}", e.html);
    }
}

#[tokio::test]
async fn a_link_to_a_pdf_is_refused_as_not_a_web_page() {
    let server = Server::start();
    server.route("/report.pdf", Reply::ok("application/pdf", b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n".to_vec()));
    let err = fetch_article(&fetcher(), &server.url("/report.pdf")).await.unwrap_err();
    assert!(matches!(&err, ArticleError::Extract(ExtractError::NotHtml { what, .. }) if what == "a PDF document"));
    assert_eq!(
        err.to_string(),
        "the link leads to a PDF document (application/pdf), not a web page; open it in the browser instead"
    );
}

#[tokio::test]
async fn a_missing_page_says_so_in_words_about_a_page() {
    let server = Server::start();
    let err = fetch_article(&fetcher(), &server.url("/gone")).await.unwrap_err();
    assert_eq!(err.to_string(), "cannot fetch the page: HTTP 404 (not found: the page was moved or removed)");
}

#[tokio::test]
async fn a_page_with_only_a_subscription_prompt_gives_no_article() {
    let server = Server::start();
    server.route(
        "/paywalled",
        Reply::ok(
            "text/html",
            "<html><head><title>Story</title></head><body><nav><a href=\"/\">Home</a></nav>\
             <h1>Story</h1><p>Subscribe to continue reading.</p><footer>© Paper</footer></body></html>",
        ),
    );
    let err = fetch_article(&fetcher(), &server.url("/paywalled")).await.unwrap_err();
    assert!(matches!(err, ArticleError::Extract(ExtractError::NoArticle { .. })), "{err:?}");
    assert!(err.to_string().starts_with("no article found on the page"), "{err}");
}

#[test]
fn inspect_full_text_prints_what_extraction_gives_for_a_page() {
    let server = news_site();
    let sandbox = Sandbox::new();
    let url = server.url("/s/harbour");
    let out = sandbox.run(&["inspect", "--full-text", &url]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with(&format!("Article of {url}\n")), "{text}");
    assert!(text.contains("  title:     The night the harbour lights went out"), "{text}");
    assert!(text.contains(&format!("  found at:  {}", server.url("/2026/06/14/harbour-lights.html"))), "{text}");
    // The article's lines joined, quote marks aside, so sentences wrapped over two lines read whole.
    let unquoted: Vec<&str> = text.lines().map(|l| l.strip_prefix("> ").unwrap_or(l)).collect();
    let body = tidings::text::fold_whitespace(&unquoted.join(" "));
    for sentence in STORY {
        assert!(body.contains(sentence), "{sentence:?} missing:\n{text}");
    }
    for noise in AROUND {
        assert!(!text.contains(noise), "{noise:?} printed:\n{text}");
    }
    // The article itself is laid out at 80 columns (the header above it is not wrapped).
    let article = text.split_once("\n\n").map_or("", |(_, article)| article);
    assert!(article.lines().all(|l| unicode_width::UnicodeWidthStr::width(l) <= 80), "{text}");

    let out = sandbox.run(&["inspect", "--full-text", "--json", &url]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(json["http"]["final_url"], server.url("/2026/06/14/harbour-lights.html"));
    assert_eq!(json["site_name"], "The Tidings Gazette");
    assert!(json["text"].as_str().is_some_and(|t| t.contains("ragged line of light")), "{json}");
    assert!(json["html"].as_str().is_some_and(|h| !h.contains("<script")), "{json}");
}

#[test]
fn inspect_full_text_of_something_that_is_not_a_page_exits_3_with_the_reason() {
    let server = Server::start();
    server.route("/episode.mp3", Reply::ok("audio/mpeg", vec![0xFF, 0xFB, 0x90, 0x00]));
    let sandbox = Sandbox::new();
    let url = server.url("/episode.mp3");
    let out = sandbox.run(&["inspect", "--full-text", &url]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        stderr(&out).trim(),
        format!(
            "tidings: no article from {url}: the link leads to an audio file (audio/mpeg), not a web page; \
             open it in the browser instead"
        )
    );
}
