//! Parsing: decoded UTF-8 text → [`ParsedFeed`]. XML feeds (RSS 0.90–2.0, RSS 1.0's RDF, Atom 1.0 and 0.3, CDF)
//! are read by tidings's own readers: into a namespace-aware element tree ([`tree`]) whose fields are found by
//! namespace (`xmlfeed`), text constructs by their format's rules ([`construct`]). JSON Feed, which has neither
//! namespaces nor text constructs, is parsed by feed-rs once the document is normalised into the types the
//! specification gives (`json`). A document the XML reader refuses is repaired ([`repair`]) and read again.
//! Every repair and every leniency becomes a warning on the feed.
//!
//! Pure: no I/O. The input must already be UTF-8 (see [`crate::decode`]).

pub mod construct;
pub mod dates;
mod fields;
mod json;
pub mod repair;
pub mod tree;
mod xmlfeed;

pub use fields::{MAX_TITLE_CHARS, entry_key, first_line};

use crate::model::ParsedFeed;

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
/// the XML reader refuses is repaired (see [`repair`]) and read again; the repairs become warnings on the feed.
pub fn parse(text: &str, base_url: Option<&str>) -> Result<ParsedFeed, ParseError> {
    guarded(text, base_url, ItemReading::AsTheyClose)
}

/// The parser must never take the reader down, whatever the document holds.
fn guarded(text: &str, base_url: Option<&str>, items: ItemReading) -> Result<ParsedFeed, ParseError> {
    std::panic::catch_unwind(|| parse_unguarded(text, base_url, items))
        .unwrap_or_else(|_| Err(ParseError::Malformed("the parser failed on this document".into())))
}

fn parse_unguarded(text: &str, base_url: Option<&str>, items: ItemReading) -> Result<ParsedFeed, ParseError> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if body.starts_with('{') {
        return json::read(body, base_url);
    }
    let first = match read_xml(text, base_url, items) {
        Ok(feed) => return Ok(feed),
        Err(XmlFailure::Feed(e)) => return Err(e),
        Err(XmlFailure::Syntax(e)) => e,
    };
    if is_html_page(text) {
        return Err(ParseError::Html);
    }
    let repaired = repair::repair(text);
    let mut feed = read_xml(&repaired.text, base_url, items).map_err(|e| match e {
        XmlFailure::Feed(e) => e,
        XmlFailure::Syntax(_) => ParseError::Malformed(first.to_string()),
    })?;
    feed.warnings.extend(repaired.fixes.iter().map(|f| format!("repaired: {f}")));
    Ok(feed)
}

/// [`parse`] with the document's tree kept whole while its entries are read, rather than each item read and
/// dropped as it closes: the reading [`parse`] must always equal (the conformance driver checks it on every
/// document of the corpus).
#[doc(hidden)]
pub fn parse_whole(text: &str, base_url: Option<&str>) -> Result<ParsedFeed, ParseError> {
    guarded(text, base_url, ItemReading::Whole)
}

/// How a document's items are read: as they close (each dropped once it is an entry), or from the whole tree.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ItemReading {
    AsTheyClose,
    Whole,
}

enum XmlFailure {
    /// The XML reader gave up.
    Syntax(tree::TreeError),
    /// The document was read, and is no feed.
    Feed(ParseError),
}

/// Reads XML text as a feed. When its first element is not a feed's (a PHP warning in `<b>` before the feed),
/// the feed's root is looked for further on.
fn read_xml(text: &str, base_url: Option<&str>, items: ItemReading) -> Result<ParsedFeed, XmlFailure> {
    let no_root = |e| match e {
        tree::TreeError::NoRoot => {
            XmlFailure::Feed(ParseError::NotAFeed("no RSS, Atom or JSON Feed root element found".into()))
        }
        e => XmlFailure::Syntax(e),
    };
    // Items become entries as they close; in the rare feed that needs its whole channel first, the document is
    // read again and kept whole (but for the items past those a refresh keeps).
    let read_whole = || {
        let mut held = xmlfeed::Items::holding(base_url);
        let whole = tree::read_with(text, base_url, &mut held).map_err(no_root)?;
        Ok(xmlfeed::read(&whole, base_url, held).expect("a whole tree is read at once"))
    };
    let read = match items {
        ItemReading::Whole => read_whole()?,
        ItemReading::AsTheyClose => {
            let mut streamed = xmlfeed::Items::new(base_url);
            let doc = tree::read_with(text, base_url, &mut streamed).map_err(no_root)?;
            match xmlfeed::read(&doc, base_url, streamed) {
                Some(read) => read,
                None => {
                    drop(doc);
                    read_whole()?
                }
            }
        }
    };
    match read {
        Err(ParseError::NotAFeed(why)) => {
            let Some(start) = feed_root_start(text).filter(|s| *s > 0) else {
                return Err(XmlFailure::Feed(if is_html_page(text) {
                    ParseError::Html
                } else {
                    ParseError::NotAFeed(why)
                }));
            };
            let mut feed = read_xml(&text[start..], base_url, items)?;
            feed.warnings.insert(0, "repaired: dropped text outside the root element".into());
            Ok(feed)
        }
        other => other.map_err(XmlFailure::Feed),
    }
}

/// Where a feed's root element starts in a text whose first element is something else.
fn feed_root_start(text: &str) -> Option<usize> {
    ["<rss", "<feed", "<rdf:RDF", "<RDF"]
        .iter()
        .filter_map(|open| {
            text.match_indices(open)
                .find(|(i, _)| text[i + open.len()..].starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/'))
                .map(|(i, _)| i)
        })
        .min()
}

/// True when the text is a web page rather than a feed.
fn is_html_page(text: &str) -> bool {
    let head = crate::sanitize::truncate_bytes(text, 2048).to_ascii_lowercase();
    head.contains("<html") || head.contains("<!doctype html")
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
        assert_eq!(first.authors, ["Jo Doe"]);
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
        assert_eq!(feed.entries[0].authors, ["Ann"]);
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

    /// Past the first `MAX_ENTRIES_PER_REFRESH` items, a document's items are counted and dropped unread: read as
    /// they close, read from the whole tree (a channel whose link follows its items, which the items' relative
    /// links need), and in JSON.
    #[test]
    fn items_past_those_a_refresh_keeps_are_counted_not_read() {
        use crate::model::MAX_ENTRIES_PER_REFRESH as MAX;
        let items = |n: usize| -> String {
            (0..n).map(|i| format!("<item><guid>{i}</guid><link>p{i}</link></item>")).collect()
        };
        let streamed = format!(
            r#"<rss version="2.0"><channel><title>T</title><link>http://e.com/</link>{}</channel>{}</rss>"#,
            items(MAX + 7),
            "<item><guid>out</guid></item>"
        );
        let whole = format!(
            r#"<rss version="2.0"><channel><title>T</title>{}<link>http://e.com/</link></channel></rss>"#,
            items(MAX + 2)
        );
        for (document, unkept) in [(&streamed, 8), (&whole, 2)] {
            for feed in [parse(document, None).unwrap(), parse_whole(document, None).unwrap()] {
                assert_eq!((feed.entries.len(), feed.unkept), (MAX, unkept));
                let last = &feed.entries[MAX - 1];
                assert_eq!((feed.entries[0].key.as_str(), last.key.as_str()), ("0", (MAX - 1).to_string().as_str()));
                assert_eq!(last.link.as_deref(), Some(format!("http://e.com/p{}", MAX - 1).as_str()));
            }
        }
        let json_items: Vec<String> = (0..MAX + 5).map(|i| format!(r#"{{"id": "{i}"}}"#)).collect();
        let json = format!(r#"{{"version": "https://jsonfeed.org/version/1.1", "items": [{}]}}"#, json_items.join(","));
        let feed = parse(&json, None).unwrap();
        assert_eq!((feed.entries.len(), feed.unkept), (MAX, 5));
        assert_eq!(feed.entries[MAX - 1].key, (MAX - 1).to_string());
    }

    #[test]
    fn garbage_is_not_a_feed() {
        assert!(matches!(parse("hello", None), Err(ParseError::NotAFeed(_))));
    }
}
