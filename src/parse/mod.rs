//! Parsing: decoded UTF-8 text → [`ParsedFeed`], through feed-rs, mapped into tidings's own model.
//!
//! Pure: no I/O. The input must already be UTF-8 with its XML declaration saying so (see [`crate::decode`]);
//! feed-rs then never decodes a second time.

pub mod dates;
mod map;
pub mod repair;
mod scan;

use crate::model::ParsedFeed;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    // Dates go through tidings's own parser; those without a zone are counted, to be flagged.
    let zoneless = Arc::new(AtomicUsize::new(0));
    let dates = {
        let zoneless = zoneless.clone();
        move |s: &str| {
            let parsed = dates::parse_date(s)?;
            if parsed.zone_missing {
                zoneless.fetch_add(1, Ordering::Relaxed);
            }
            Some(parsed.at)
        }
    };
    // No base URI for feed-rs: it would resolve relative links against the feed's URL before the feed's own
    // link could be tried (see map.rs for the order).
    let parser = feed_rs::parser::Builder::new()
        // An empty id means "none": tidings derives its own entry keys.
        .id_generator(|_, _, _| String::new())
        .timestamp_parser(dates.clone())
        .build();
    // The parser must never take the reader down, whatever the document holds.
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parser.parse(text.as_bytes())));
    match parsed {
        Ok(Ok(feed)) => {
            let missing_titles = feed.entries.iter().any(|e| e.title.is_none());
            let extras = if scan::worth_scanning(text, missing_titles) { scan::scan_items(text) } else { Vec::new() };
            let mut feed = map::map_feed(feed, base_url, &extras, &dates);
            if let Some(period) = scan::update_period(text) {
                feed.min_interval_secs = Some(feed.min_interval_secs.unwrap_or(0).max(period));
            }
            let zoneless = zoneless.load(Ordering::Relaxed);
            if zoneless > 0 {
                feed.warnings.push(format!("{zoneless} date(s) had no time zone and were read as UTC"));
            }
            Ok(feed)
        }
        Ok(Err(err)) => Err(classify_failure(text, err)),
        Err(_) => Err(ParseError::Malformed("the XML parser crashed on this document".into())),
    }
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

/// Escapes text for inclusion in HTML.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FeedKind;

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
