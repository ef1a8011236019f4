//! Parsing: decoded UTF-8 text → [`ParsedFeed`], through feed-rs, mapped into tidings's own model.
//!
//! Pure: no I/O. The input must already be UTF-8 with its XML declaration saying so (see [`crate::decode`]);
//! feed-rs then never decodes a second time.

pub mod repair;

use crate::model::{FeedKind, ParsedEntry, ParsedFeed};
use crate::text::{html_to_plain, looks_like_html};
use feed_rs::model::{Entry, Feed, FeedType, Link, Text};

#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("not a feed: the document is HTML (a web page); try `tidings discover URL` to find its feed")]
    Html,
    #[error("not a feed: {0}")]
    NotAFeed(String),
    #[error("the feed could not be parsed: {0}")]
    Malformed(String),
}

/// Parses decoded feed text. `base_url` (the URL the feed was fetched from) resolves relative links. A document
/// the parser refuses is repaired (see [`repair`]) and parsed again; the repairs become warnings on the feed.
pub fn parse(text: &str, base_url: Option<&str>) -> Result<ParsedFeed, ParseError> {
    let is_json = text.trim_start().starts_with('{');
    if is_json || !repair::is_atom_03(text) {
        match parse_once(text, base_url) {
            // Parsed but empty, while the text holds items: they may sit where feed-rs does not look.
            Ok(feed)
                if feed.entries.is_empty()
                    && (text.contains("<item") || text.contains("<entry") || feed.title.is_none()) =>
            {
                return Ok(parse_repaired(text, base_url).ok().filter(|r| !r.entries.is_empty()).unwrap_or(feed));
            }
            Ok(feed) => return Ok(feed),
            Err(e @ ParseError::Html) => return Err(e),
            Err(e) if is_json => return Err(e),
            Err(first) => return parse_repaired(text, base_url).map_err(|_| first),
        }
    }
    parse_repaired(text, base_url)
}

fn parse_repaired(text: &str, base_url: Option<&str>) -> Result<ParsedFeed, ParseError> {
    let repaired = repair::repair(text);
    let mut feed = parse_once(&repaired.text, base_url)?;
    feed.warnings.extend(repaired.fixes.iter().map(|f| format!("repaired: {f}")));
    Ok(feed)
}

fn parse_once(text: &str, base_url: Option<&str>) -> Result<ParsedFeed, ParseError> {
    let parser = feed_rs::parser::Builder::new()
        .base_uri(base_url)
        // An empty id means "none": tidings derives its own entry keys.
        .id_generator(|_, _, _| String::new())
        .build();
    // The parser must never take the reader down, whatever the document holds.
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parser.parse(text.as_bytes())));
    match parsed {
        Ok(Ok(feed)) => {
            let mut feed = map_feed(feed, base_url);
            if feed.entries.iter().any(|e| e.title.is_none()) {
                fill_missing_titles(&mut feed, text);
            }
            Ok(feed)
        }
        Ok(Err(err)) => Err(classify_failure(text, err)),
        Err(_) => Err(ParseError::Malformed("the XML parser crashed on this document".into())),
    }
}

/// Titles feed-rs does not read (`media:title` outside a media group, `dc:title`), from a second look at the
/// items, matched to the entries by position.
fn fill_missing_titles(feed: &mut ParsedFeed, text: &str) {
    let titles = item_titles(text);
    if titles.len() != feed.entries.len() {
        return;
    }
    for (entry, title) in feed.entries.iter_mut().zip(titles) {
        if entry.title.is_none() {
            entry.title =
                title.map(|t| crate::sanitize::one_line(&html_to_plain(&t), MAX_TITLE_CHARS)).filter(|t| !t.is_empty());
        }
    }
}

/// For each `<item>`/`<entry>` in document order, the text of its first `*:title` child.
fn item_titles(text: &str) -> Vec<Option<String>> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = false;
    let mut titles = Vec::new();
    let mut depth = 0usize;
    let mut item_depth: Option<usize> = None;
    let mut in_title = false;
    let mut current = String::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                depth += 1;
                let local = e.local_name().as_ref().to_string();
                match item_depth {
                    None if local == "item" || local == "entry" => {
                        item_depth = Some(depth);
                        titles.push(None);
                    }
                    Some(d) if depth == d + 1 && local == "title" => {
                        in_title = titles.last().is_some_and(|t: &Option<String>| t.is_none());
                        current.clear();
                    }
                    _ => {}
                }
            }
            Ok(Event::Empty(e)) if item_depth.is_none() => {
                let local = e.local_name().as_ref().to_string();
                if local == "item" || local == "entry" {
                    titles.push(None);
                }
            }
            Ok(Event::Text(t)) if in_title => current.push_str(&crate::text::decode_entities(&t.clone().into_inner())),
            Ok(Event::CData(t)) if in_title => current.push_str(&t.clone().into_inner()),
            Ok(Event::End(_)) => {
                if in_title {
                    in_title = false;
                    if let Some(last) = titles.last_mut() {
                        *last = Some(std::mem::take(&mut current));
                    }
                }
                if item_depth == Some(depth) {
                    item_depth = None;
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    titles
}

fn classify_failure(text: &str, err: feed_rs::parser::ParseFeedError) -> ParseError {
    let head: String = text.chars().take(2048).collect::<String>().to_ascii_lowercase();
    if head.contains("<html") || head.contains("<!doctype html") {
        return ParseError::Html;
    }
    match err {
        feed_rs::parser::ParseFeedError::ParseError(feed_rs::parser::ParseErrorKind::NoFeedRoot) => {
            ParseError::NotAFeed("no RSS, Atom or JSON Feed root element found".into())
        }
        other => ParseError::Malformed(other.to_string()),
    }
}

fn map_feed(feed: Feed, base_url: Option<&str>) -> ParsedFeed {
    let kind = match feed.feed_type {
        FeedType::Atom => FeedKind::Atom,
        FeedType::JSON => FeedKind::Json,
        FeedType::RSS0 => FeedKind::Rss0,
        FeedType::RSS1 => FeedKind::Rss1,
        FeedType::RSS2 => FeedKind::Rss2,
    };
    let link = site_link(&feed.links, base_url);
    let entries = feed.entries.into_iter().map(map_entry).collect();
    ParsedFeed {
        kind,
        title: feed.title.as_ref().and_then(plain_title),
        link,
        description: feed.description.as_ref().and_then(plain_title),
        entries,
        warnings: Vec::new(),
    }
}

/// The feed's site: its alternate link, not the `self` link that points back at the feed.
fn site_link(links: &[Link], base_url: Option<&str>) -> Option<String> {
    links
        .iter()
        .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate"))
        .map(|l| l.href.trim().to_string())
        .filter(|href| !href.is_empty() && Some(href.as_str()) != base_url)
}

fn map_entry(entry: Entry) -> ParsedEntry {
    let title = entry
        .title
        .as_ref()
        .and_then(plain_title)
        .or_else(|| entry.media.iter().find_map(|m| m.title.as_ref().and_then(plain_title)));
    let link = entry
        .links
        .iter()
        .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate"))
        .or(entry.links.first())
        .map(|l| l.href.trim().to_string())
        .filter(|h| !h.is_empty());
    let author = entry.authors.iter().find_map(|p| person_name(&p.name, p.email.as_deref()));
    let content_html = entry.content.as_ref().and_then(|c| c.body.clone()).filter(|b| !b.trim().is_empty());
    let summary_html = entry.summary.as_ref().map(text_as_html).filter(|b| !b.trim().is_empty());
    let (content_html, summary_html) = match content_html {
        Some(c) => (Some(c), summary_html),
        None => (summary_html, None),
    };
    let published = entry.published.or(entry.updated);
    let key = entry_key(&entry.id, link.as_deref(), title.as_deref(), published);
    ParsedEntry { key, title, link, author, published, updated: entry.updated, content_html, summary_html }
}

/// The identity of an entry within its feed: its id, else its link, else a hash of its title and date.
fn entry_key(id: &str, link: Option<&str>, title: Option<&str>, date: Option<chrono::DateTime<chrono::Utc>>) -> String {
    let id = id.trim();
    if !id.is_empty() {
        return id.to_string();
    }
    if let Some(link) = link {
        return link.to_string();
    }
    let material = format!("{}\u{1f}{}", title.unwrap_or(""), date.map(|d| d.timestamp()).unwrap_or(0));
    format!("hash:{:016x}", fnv1a(material.as_bytes()))
}

/// FNV-1a: a small hash whose value never changes between Rust releases, so stored keys stay valid.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// Longest title kept, in characters.
const MAX_TITLE_CHARS: usize = 1000;

/// A title as one line of plain text: tags stripped and entities decoded when it is (or looks like) HTML.
fn plain_title(t: &Text) -> Option<String> {
    let is_html = t.content_type.subty() == "html" || t.content_type.subty() == "xhtml+xml";
    let s = if is_html || looks_like_html(&t.content) { html_to_plain(&t.content) } else { t.content.clone() };
    let s = crate::sanitize::one_line(&s, MAX_TITLE_CHARS);
    (!s.is_empty()).then_some(s)
}

/// A `Text` as HTML: plain text is escaped so it renders as written.
fn text_as_html(t: &Text) -> String {
    if t.content_type.subty() == "plain" && !looks_like_html(&t.content) {
        escape_html(&t.content)
    } else {
        t.content.clone()
    }
}

pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A person's display name; an email address is never shown as a name ("jo@x.org (Jo Doe)" gives "Jo Doe").
fn person_name(name: &Option<String>, email: Option<&str>) -> Option<String> {
    let candidates = [name.as_deref(), email];
    for raw in candidates.into_iter().flatten() {
        let raw = raw.trim();
        if let (Some(open), Some(close)) = (raw.find('('), raw.rfind(')'))
            && open < close
        {
            let inner = raw[open + 1..close].trim();
            if !inner.is_empty() && !inner.contains('@') {
                return Some(crate::sanitize::one_line(&html_to_plain(inner), 200));
            }
        }
        if !raw.is_empty() && !raw.contains('@') {
            return Some(crate::sanitize::one_line(&html_to_plain(raw), 200));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const RSS: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Example &amp; Co</title><link>http://example.com/</link>
<item><title>First &lt;b&gt;post&lt;/b&gt;</title><link>http://example.com/1</link><guid>id-1</guid>
<description>&lt;p&gt;Hello&lt;/p&gt;</description><author>jo@example.com (Jo Doe)</author>
<pubDate>Tue, 10 Jun 2025 04:00:00 GMT</pubDate></item>
<item><title>No guid</title><link>http://example.com/2</link></item>
<item><title>Nothing else</title></item>
</channel></rss>"#;

    #[test]
    fn maps_rss_into_the_model_with_plain_titles() {
        let feed = parse(RSS, Some("http://example.com/feed")).unwrap();
        assert_eq!(feed.kind, FeedKind::Rss2);
        assert_eq!(feed.title.as_deref(), Some("Example & Co"));
        assert_eq!(feed.link.as_deref(), Some("http://example.com/"));
        let first = &feed.entries[0];
        assert_eq!(first.title.as_deref(), Some("First post"));
        assert_eq!(first.key, "id-1");
        assert_eq!(first.author.as_deref(), Some("Jo Doe"));
        assert_eq!(first.content_html.as_deref(), Some("<p>Hello</p>"));
        assert_eq!(first.published.unwrap().to_rfc3339(), "2025-06-10T04:00:00+00:00");
    }

    #[test]
    fn entry_key_falls_back_to_link_then_to_a_stable_hash() {
        let feed = parse(RSS, None).unwrap();
        assert_eq!(feed.entries[1].key, "http://example.com/2");
        let again = parse(RSS, None).unwrap();
        assert!(feed.entries[2].key.starts_with("hash:"));
        assert_eq!(feed.entries[2].key, again.entries[2].key);
    }

    #[test]
    fn atom_content_beats_summary() {
        let atom = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title type="html">A &lt;i&gt;t&lt;/i&gt;</title>
<entry><id>urn:1</id><title>E</title><summary>short</summary><content type="html">&lt;p&gt;long&lt;/p&gt;</content>
<author><name>Ann</name></author></entry></feed>"#;
        let feed = parse(atom, None).unwrap();
        assert_eq!(feed.kind, FeedKind::Atom);
        assert_eq!(feed.title.as_deref(), Some("A t"));
        assert_eq!(feed.entries[0].content_html.as_deref(), Some("<p>long</p>"));
        assert_eq!(feed.entries[0].summary_html.as_deref(), Some("short"));
        assert_eq!(feed.entries[0].author.as_deref(), Some("Ann"));
    }

    #[test]
    fn an_entry_without_a_title_takes_its_media_title() {
        let rss = r#"<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>T</title>
<item><guid>1</guid><media:title>From media</media:title></item><item><title>Own</title></item></channel></rss>"#;
        let feed = parse(rss, None).unwrap();
        assert_eq!(feed.entries[0].title.as_deref(), Some("From media"));
        assert_eq!(feed.entries[1].title.as_deref(), Some("Own"));
    }

    #[test]
    fn an_html_page_is_reported_as_not_a_feed_with_a_hint() {
        let err = parse("<!DOCTYPE html><html><head><title>x</title></head><body></body></html>", None).unwrap_err();
        assert!(matches!(err, ParseError::Html));
        assert!(err.to_string().contains("tidings discover"));
    }

    #[test]
    fn garbage_is_not_a_feed() {
        assert!(matches!(parse("hello", None), Err(ParseError::NotAFeed(_))));
    }
}
