//! Feed links: which feeds a web page offers. Reads `<link rel="alternate">` tags anywhere in the page (`rel` as
//! a token list, any case), the HTTP `Link:` header, and `<a href>` links that look like feeds; resolves
//! relative addresses against `<base href>` and the page's final URL; and lists the common paths worth
//! probing when the page names nothing. Also decodes the page the way browsers do.
//!
//! Pure: the page's bytes and headers in, candidate URLs out. Fetching and verifying them is
//! the job of `fetch::discovery` in the reader crate.

use crate::canonical::{canonical_url, resolve};
use crate::text::{decode_entities, fold_whitespace};
use serde::Serialize;

/// How a candidate was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FoundBy {
    /// The address itself is a feed.
    #[serde(rename = "self")]
    SelfFeed,
    LinkTag,
    LinkHeader,
    BodyLink,
    CommonPath,
}

impl FoundBy {
    pub fn describe(self) -> &'static str {
        match self {
            FoundBy::SelfFeed => "the address itself",
            FoundBy::LinkTag => "a <link> tag",
            FoundBy::LinkHeader => "the HTTP Link header",
            FoundBy::BodyLink => "a link in the page",
            FoundBy::CommonPath => "a common feed address",
        }
    }
}

/// A feed address the page offers, not yet verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lead {
    pub url: String,
    /// The title the page gives it, if any.
    pub title: Option<String>,
    pub found_by: FoundBy,
}

/// Feed media types a `<link>` or `Link:` may announce.
fn is_feed_type(media_type: &str) -> bool {
    let t = media_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    matches!(
        t.as_str(),
        "application/rss+xml"
            | "application/atom+xml"
            | "application/feed+json"
            | "application/json"
            | "application/rdf+xml"
            | "application/rss"
            | "application/x.atom+xml"
            | "application/x-atom+xml"
            | "text/xml"
            | "application/xml"
    )
}

/// `rel` is a space-separated list of tokens, compared without case.
fn has_rel(rel: &str, token: &str) -> bool {
    rel.split_ascii_whitespace().any(|t| t.eq_ignore_ascii_case(token))
}

/// One tag of an HTML page: its lowercase name and attributes.
#[derive(Debug)]
struct Tag {
    name: String,
    attrs: Vec<(String, String)>,
    /// The text up to the next tag (for `<a>` titles).
    text_after: String,
}

impl Tag {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// The start tags of an HTML page, skipping comments and the insides of `<script>` and `<style>`.
fn tags(html: &str) -> Vec<Tag> {
    let mut out = Vec::new();
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    while let Some(at) = html[i..].find('<') {
        let start = i + at;
        let rest = &html[start..];
        if rest.starts_with("<!--") {
            i = lower[start..].find("-->").map_or(html.len(), |e| start + e + 3);
            continue;
        }
        let name_len = rest[1..].bytes().take_while(|b| b.is_ascii_alphanumeric()).count();
        if name_len == 0 {
            i = start + 1;
            continue;
        }
        let name = lower[start + 1..start + 1 + name_len].to_string();
        let Some(end) = crate::markup::tag_end(rest) else {
            // Not a tag after all (or a broken one): read on after the '<'.
            i = start + 1;
            continue;
        };
        let attrs = crate::markup::attributes(&rest[1 + name_len..end - 1])
            .into_iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), decode_entities(&v.unwrap_or_default()).into_owned()))
            .collect();
        i = start + end;
        if name == "script" || name == "style" {
            let close = format!("</{name}");
            i = lower[i..].find(&close).map_or(html.len(), |e| i + e);
            continue;
        }
        let text_end = html[i..].find('<').map_or(html.len(), |e| i + e);
        let text_after = html[i..text_end].to_string();
        out.push(Tag { name, attrs, text_after });
    }
    out
}

/// The most leads a page gives: discovery tries far fewer, and a page listing more is not a person's.
pub const MAX_LEADS: usize = 1_000;

/// Feeds the page announces: `<link rel="alternate">` tags with a feed type, the `Link:` header, and body links
/// that look like feeds. Relative addresses resolve against `<base href>`, then the page's final URL.
pub fn leads(html: &str, page_url: &str, link_header: Option<&str>) -> Vec<Lead> {
    let tags = tags(html);
    let base =
        tags.iter().find(|t| t.name == "base").and_then(|t| t.attr("href")).and_then(|b| resolve(b, &[Some(page_url)]));
    let bases = [base.as_deref(), Some(page_url)];
    let mut found: Vec<Lead> = Vec::new();
    // Each address once, by its canonical form: a set, so that a page of thousands of links is read in linear
    // time (comparing each with every one before took minutes), and at most MAX_LEADS of them.
    let mut seen = std::collections::HashSet::new();
    let mut push = |url: Option<String>, title: Option<String>, found_by: FoundBy, found: &mut Vec<Lead>| {
        let Some(url) = url.filter(|u| u.starts_with("http://") || u.starts_with("https://")) else { return };
        if found.len() >= MAX_LEADS || !seen.insert(canonical_url(&url)) {
            return;
        }
        let title = title.map(|t| crate::sanitize::one_line(&fold_whitespace(&t), 200)).filter(|t| !t.is_empty());
        found.push(Lead { url, title, found_by });
    };
    for tag in tags.iter().filter(|t| t.name == "link") {
        let (Some(rel), Some(href)) = (tag.attr("rel"), tag.attr("href")) else { continue };
        let typed = tag.attr("type").is_some_and(is_feed_type);
        if has_rel(rel, "alternate") && typed && !has_rel(rel, "stylesheet") {
            push(resolve(href, &bases), tag.attr("title").map(str::to_string), FoundBy::LinkTag, &mut found);
        }
    }
    if let Some(header) = link_header {
        for (href, rel, media_type, title) in parse_link_header(header) {
            if has_rel(&rel, "alternate") && media_type.as_deref().is_some_and(is_feed_type) {
                push(resolve(&href, &[Some(page_url)]), title, FoundBy::LinkHeader, &mut found);
            }
        }
    }
    for tag in tags.iter().filter(|t| t.name == "a") {
        let Some(href) = tag.attr("href") else { continue };
        if looks_like_feed_link(href, &tag.text_after) {
            push(
                resolve(href, &bases),
                Some(crate::text::html_to_plain(&tag.text_after)),
                FoundBy::BodyLink,
                &mut found,
            );
        }
    }
    found
}

/// Whether an `<a>` looks like it leads to a feed: its path says rss/atom/feed, or its text says so.
pub fn looks_like_feed_link(href: &str, text: &str) -> bool {
    let href_lower = href.to_ascii_lowercase();
    if href_lower.starts_with("javascript:") || href_lower.starts_with("mailto:") || href_lower.starts_with('#') {
        return false;
    }
    let path = href_lower.split(['?', '#']).next().unwrap_or("");
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let path_says = last.ends_with(".rss")
        || last.ends_with(".atom")
        || last.ends_with(".rdf")
        || matches!(
            last,
            "feed" | "rss" | "atom" | "rss.xml" | "atom.xml" | "feed.xml" | "index.xml" | "feed.json" | "index.rss"
        )
        || path.contains("/feeds/")
        || path.contains("/rss/")
        || href_lower.contains("feed=rss")
        || href_lower.contains("format=rss")
        || href_lower.contains("format=atom");
    let text = crate::text::html_to_plain(text).to_ascii_lowercase();
    let text_says = matches!(text.trim(), "rss" | "atom" | "feed" | "rss feed" | "atom feed" | "subscribe");
    path_says || text_says
}

/// The parts of a `Link:` header: (href, rel, type, title) for each link.
pub fn parse_link_header(header: &str) -> Vec<(String, String, Option<String>, Option<String>)> {
    let mut out = Vec::new();
    let mut rest = header;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>') else { break };
        let href = rest[open + 1..open + close].trim().to_string();
        let after = &rest[open + close + 1..];
        // Parameters run until the next link (a comma outside quotes).
        let mut end = after.len();
        let mut quoted = false;
        for (i, c) in after.char_indices() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        let (mut rel, mut media_type, mut title) = (String::new(), None, None);
        for param in after[..end].split(';') {
            let Some((name, value)) = param.split_once('=') else { continue };
            let value = value.trim().trim_matches('"').to_string();
            match name.trim().to_ascii_lowercase().as_str() {
                "rel" => rel = value,
                "type" => media_type = Some(value),
                "title" => title = Some(value),
                _ => {}
            }
        }
        out.push((href, rel, media_type, title));
        rest = &after[(end + 1).min(after.len())..];
    }
    out
}

/// Addresses where sites commonly keep their feed, under the page's directory and under the site's root.
pub fn common_paths(page_url: &str) -> Vec<String> {
    const PATHS: &[&str] = &[
        "feed",
        "rss",
        "atom.xml",
        "feed.xml",
        "rss.xml",
        "index.xml",
        "feed.json",
        "feeds/posts/default",
        ".well-known/feed",
        ".well-known/rss",
    ];
    let Ok(page) = url::Url::parse(page_url) else { return Vec::new() };
    let mut dirs = Vec::new();
    if let Ok(dir) = page.join("./")
        && dir.path() != "/"
    {
        dirs.push(dir);
    }
    if let Ok(root) = page.join("/") {
        dirs.push(root);
    }
    let mut out: Vec<String> = Vec::new();
    for dir in &dirs {
        for path in PATHS {
            // The .well-known resources live at the root only.
            if path.starts_with(".well-known") && dir.path() != "/" {
                continue;
            }
            if let Ok(url) = dir.join(path) {
                let url = url.to_string();
                if !out.contains(&url) {
                    out.push(url);
                }
            }
        }
    }
    out
}

/// The encoding an HTML page declares in its first kilobyte: `<meta charset>` or `http-equiv` Content-Type.
pub fn meta_charset(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).into_owned();
    for tag in tags(&head).into_iter().filter(|t| t.name == "meta") {
        if let Some(charset) = tag.attr("charset").filter(|c| !c.trim().is_empty()) {
            return Some(charset.trim().to_string());
        }
        if tag.attr("http-equiv").is_some_and(|h| h.eq_ignore_ascii_case("content-type"))
            && let Some(content) = tag.attr("content")
            && let Some(charset) = crate::decode::sniff::ContentType::parse(content).charset
        {
            return Some(charset);
        }
    }
    None
}

/// Decodes an HTML page: BOM, then the HTTP charset, then `<meta charset>`, then detection.
pub fn decode_page(bytes: &[u8], content_type: Option<&str>, tld: Option<&str>) -> String {
    use crate::decode::labels::{Label, resolve};
    if let Some(bom) = crate::decode::sniff::bom(bytes) {
        return bom.charset().decode_lossy(&bytes[bom.byte_len()..]).0.into_owned();
    }
    let declared = content_type
        .and_then(|ct| crate::decode::sniff::ContentType::parse(ct).charset)
        .or_else(|| meta_charset(bytes));
    if let Some(Label::Charset(charset)) = declared.as_deref().map(resolve) {
        return charset.decode_lossy(bytes).0.into_owned();
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_string();
    }
    let options = crate::decode::Options { content_type: Some("text/html"), forced: None, tld };
    crate::decode::decode_with::<_, ()>(bytes, &options, |text| Ok(text.to_owned()))
        .map(|(t, _)| t)
        .unwrap_or_else(|_| String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(leads: &[Lead]) -> Vec<(&str, FoundBy)> {
        leads.iter().map(|l| (l.url.as_str(), l.found_by)).collect()
    }

    #[test]
    fn link_tags_anywhere_with_rel_as_a_token_list() {
        let html = r#"<html><head>
            <link rel="stylesheet" href="/style.css">
            <LINK REL="Alternate Home" TYPE="application/rss+xml" HREF="/feed.xml" TITLE="Main &amp; more">
            <link rel="alternate" type="text/html" href="/page.html">
            <link rel="alternate" hreflang="fr" href="/fr/">
            </head><body><link rel="alternate" type="application/atom+xml" href="atom.xml"></body></html>"#;
        let found = leads(html, "https://site.example/blog/", None);
        assert_eq!(
            urls(&found),
            vec![
                ("https://site.example/feed.xml", FoundBy::LinkTag),
                ("https://site.example/blog/atom.xml", FoundBy::LinkTag)
            ]
        );
        assert_eq!(found[0].title.as_deref(), Some("Main & more"));
    }

    #[test]
    fn base_href_beats_the_page_address() {
        let html = r#"<head><base href="https://cdn.example/sub/"><link rel="alternate" type="application/rss+xml" href="rss"></head>"#;
        assert_eq!(
            urls(&leads(html, "https://site.example/", None)),
            vec![("https://cdn.example/sub/rss", FoundBy::LinkTag)]
        );
    }

    #[test]
    fn json_feeds_and_the_link_header() {
        let html = r#"<link rel="alternate" type="application/feed+json" href="/feed.json">"#;
        let header = r#"</comments.xml>; rel="alternate"; type="application/atom+xml"; title="Comments", </style.css>; rel="stylesheet""#;
        let found = leads(html, "http://s.example/", Some(header));
        assert_eq!(
            urls(&found),
            vec![
                ("http://s.example/feed.json", FoundBy::LinkTag),
                ("http://s.example/comments.xml", FoundBy::LinkHeader)
            ]
        );
        assert_eq!(found[1].title.as_deref(), Some("Comments"));
    }

    #[test]
    fn body_links_that_look_like_feeds() {
        let html = r#"<body><a href="/about">About</a><a href="/feeds/all.atom.xml">Everything</a><a href="/x">RSS</a>
            <a href="/category/rust/feed/">Rust posts</a><a href="javascript:void(0)">rss</a><a href="/feed.html">feed page</a></body>"#;
        let found = leads(html, "http://s.example/", None);
        assert_eq!(
            urls(&found),
            vec![
                ("http://s.example/feeds/all.atom.xml", FoundBy::BodyLink),
                ("http://s.example/x", FoundBy::BodyLink),
                ("http://s.example/category/rust/feed/", FoundBy::BodyLink),
            ]
        );
    }

    #[test]
    fn duplicates_count_once_by_canonical_address() {
        let html = r#"<link rel="alternate" type="application/rss+xml" href="/feed/">
            <link rel="alternate" type="application/rss+xml" href="HTTP://S.example/feed?utm_source=x"><a href="/feed">RSS</a>"#;
        assert_eq!(leads(html, "http://s.example/", None).len(), 1);
    }

    #[test]
    fn a_page_of_thousands_of_links_gives_at_most_max_leads_in_page_order() {
        let mut html: String = (0..3_000)
            .map(|i| format!(r#"<link rel="alternate" type="application/rss+xml" href="/c{i}.xml">"#))
            .collect();
        html.extend((0..20_000).map(|i| format!(r#"<a href="/a{i}.rss">feed</a>"#)));
        let found = leads(&html, "http://s.example/", None);
        assert_eq!(found.len(), MAX_LEADS);
        assert_eq!(found[0].url, "http://s.example/c0.xml");
        assert_eq!(found[MAX_LEADS - 1].url, format!("http://s.example/c{}.xml", MAX_LEADS - 1));
        assert!(found.iter().all(|l| l.found_by == FoundBy::LinkTag));
    }

    #[test]
    fn scripts_and_comments_are_not_read() {
        let html = r#"<!-- <link rel="alternate" type="application/rss+xml" href="/old.xml"> -->
            <script>var s = '<a href="/feed">RSS</a>';</script>"#;
        assert!(leads(html, "http://s.example/", None).is_empty());
    }

    #[test]
    fn common_paths_under_the_page_and_the_root() {
        let paths = common_paths("https://s.example/blog/post.html");
        assert_eq!(paths[0], "https://s.example/blog/feed");
        assert!(paths.contains(&"https://s.example/feed".to_string()));
        assert!(paths.contains(&"https://s.example/feeds/posts/default".to_string()));
        assert!(paths.contains(&"https://s.example/.well-known/feed".to_string()));
        assert!(!paths.contains(&"https://s.example/blog/.well-known/feed".to_string()));
    }

    #[test]
    fn pages_decode_by_meta_charset() {
        let page = "<html><head><meta charset=\"windows-1251\"><title>Блог</title></head></html>";
        let bytes = encoding_rs::WINDOWS_1251.encode(page).0.into_owned();
        assert_eq!(decode_page(&bytes, Some("text/html"), None), page);
        let http_equiv = "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\"><p>Новости</p>";
        let bytes = encoding_rs::KOI8_R.encode(http_equiv).0.into_owned();
        assert_eq!(decode_page(&bytes, None, None), http_equiv);
        assert_eq!(meta_charset(b"<meta charset='utf-8'>").as_deref(), Some("utf-8"));
    }
}
