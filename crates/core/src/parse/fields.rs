//! What every format shares once its fields are found: plain one-line titles, people's names without their
//! addresses, absolute links, dates through tidings's own parser, and the identity key of an entry.

use super::construct::Text;
use super::dates;
use crate::canonical::{canonical_url, plain_web_address};
pub use crate::text::{MAX_TITLE_CHARS, first_line};
use crate::text::{html_has_text, html_to_line};
use chrono::{DateTime, Utc};

/// Most categories kept per entry.
pub(super) const MAX_CATEGORIES: usize = 20;
/// Most authors kept per entry.
pub(super) const MAX_AUTHORS: usize = 20;

/// A title (or any one-line text) from a text construct; `None` when nothing is left.
pub(super) fn title_of(text: Option<Text<'_>>) -> Option<String> {
    let s = text?.to_line(MAX_TITLE_CHARS);
    (!s.is_empty()).then_some(s)
}

/// An entry's body: its content (the richest text) and, beside it, its summary; the summary is the content when
/// there is nothing else. Content that shows nothing (`<script>` alone, empty paragraphs) does not count.
pub(super) fn body(content: Option<String>, summary: Option<String>) -> (Option<String>, Option<String>) {
    let shows_something = |html: &String| {
        // Text near the start answers at once (the common case), without reading the whole body twice. The
        // head ends after a tag, so no half tag reads as text.
        let head = crate::sanitize::truncate_bytes(html, 4096);
        let head = head.rfind('>').filter(|_| head.len() < html.len()).map_or(head, |end| &head[..=end]);
        if html_has_text(head) {
            return true;
        }
        let lower = crate::sanitize::truncate_bytes(html, 64 * 1024).to_ascii_lowercase();
        // Then the whole body (rare: no text in its first 4 KB, no picture or player in its first 64): its text
        // may come after much markup (a body nested thousands deep), and a body cut short could end in half a
        // tag, which would read as text.
        ["<img", "<video", "<audio", "<iframe", "<embed", "<object", "<picture", "<svg"]
            .iter()
            .any(|t| lower.contains(t))
            || html_has_text(html)
    };
    let summary = summary.filter(shows_something);
    match content.filter(shows_something) {
        Some(content) => (Some(content), summary),
        None => (summary, None),
    }
}

/// A link as written when it is absolute (with the root path's `/` when it has none: `http://e.com/`), else
/// resolved against the first base that works, else as written: a relative link with nothing to resolve it
/// against still says where it points. Links that were escaped twice (`?a=1&amp;b=2`) are repaired first.
pub(super) fn absolute(href: &str, bases: &[Option<&str>]) -> Option<String> {
    let href = href.trim();
    if let std::borrow::Cow::Owned(clean) = crate::sanitize::address(href) {
        // Controls and bidirectional overrides in a link: percent-encoded, as a URL writes them.
        return absolute(&clean, bases);
    }
    if href.is_empty() {
        return None;
    }
    let href = if crate::text::has_byte(href, b'&') && href.contains("&amp;") {
        href.replace("&amp;", "&")
    } else {
        href.to_string()
    };
    let parsed =
        if plain_web_address(&href).is_some() { Ok(true) } else { url::Url::parse(&href).map(|u| u.has_authority()) };
    match parsed {
        Ok(true) => {
            // (A byte search: the string searcher's set-up costs more than a link is long.)
            let host_at = href.as_bytes().windows(3).position(|w| w == b"://").map_or(0, |i| i + 3);
            Some(match href.as_bytes()[host_at..].iter().position(|b| matches!(b, b'/' | b'?' | b'#')) {
                None => format!("{href}/"),
                Some(i) if !href[host_at + i..].starts_with('/') => {
                    format!("{}/{}", &href[..host_at + i], &href[host_at + i..])
                }
                Some(_) => href,
            })
        }
        Ok(false) => Some(href),
        Err(_) => crate::canonical::resolve(&href, bases).or(Some(href)),
    }
}

/// A person's display name. Addresses are never shown: "jo@x.org (Jo Doe)", "Jo Doe <jo@x.org>" and
/// "Jo Doe (jo@x.org)" give "Jo Doe"; an address alone gives its name part ("jo").
pub(super) fn person_name(name: Option<&str>, email: Option<&str>) -> Option<String> {
    let clean = |s: &str| Some(html_to_line(s, 200)).filter(|s| !s.is_empty());
    for raw in [name, email].into_iter().flatten() {
        let words: Vec<&str> = raw.split_whitespace().filter(|w| !w.contains('@')).collect();
        let rest = words.join(" ");
        let rest = rest.replace("()", "").replace("<>", "");
        let rest = rest.trim_matches(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '<' | '>' | ',' | '-'));
        if let Some(name) = clean(rest) {
            return Some(name);
        }
    }
    // Only an address: its name part.
    [name, email].into_iter().flatten().find_map(|raw| {
        let address = raw.split_whitespace().find(|w| w.contains('@'))?;
        let address = address.trim_matches(|c| matches!(c, '<' | '>' | '(' | ')'));
        let address = address.strip_prefix("mailto:").unwrap_or(address);
        clean(address.split('@').next()?)
    })
}

/// Adds a name to a list of authors unless it is already there (in any case).
pub(super) fn add_author(authors: &mut Vec<String>, name: Option<String>) {
    if let Some(name) = name
        && authors.len() < MAX_AUTHORS
        && !authors.iter().any(|a| a.to_lowercase() == name.to_lowercase())
    {
        authors.push(name);
    }
}

/// Adds an enclosure at `href` (made absolute against `bases`) unless the entry has it already, or has
/// [`MAX_ENCLOSURES`](crate::model::MAX_ENCLOSURES).
pub(super) fn add_enclosure(
    enclosures: &mut Vec<crate::model::Enclosure>,
    href: &str,
    bases: &[Option<&str>],
    media_type: Option<String>,
    length: Option<u64>,
) {
    if enclosures.len() >= crate::model::MAX_ENCLOSURES {
        return;
    }
    let Some(url) = absolute(href, bases) else { return };
    if !enclosures.iter().any(|e| e.url == url) {
        enclosures.push(crate::model::Enclosure { url, media_type, length });
    }
}

/// Adds a category unless it is already there.
pub(super) fn add_category(categories: &mut Vec<String>, raw: &str) {
    let name = html_to_line(raw, 100);
    if !name.is_empty() && !categories.contains(&name) && categories.len() < MAX_CATEGORIES {
        categories.push(name);
    }
}

/// Reads dates, counting those that had no time zone so the feed can say so.
#[derive(Debug, Default)]
pub(super) struct DateReader {
    pub zoneless: usize,
}

impl DateReader {
    pub(super) fn read(&mut self, raw: &str) -> Option<DateTime<Utc>> {
        let parsed = dates::parse_date(raw)?;
        if parsed.zone_missing {
            self.zoneless += 1;
        }
        Some(parsed.at)
    }

    /// The warning for the feed, when some dates had no zone.
    pub(super) fn warning(&self) -> Option<String> {
        (self.zoneless > 0).then(|| format!("{} date(s) had no time zone and were read as UTC", self.zoneless))
    }
}

/// The identity of an entry within its feed: its id, else its canonical link, else a hash of title and date.
pub fn entry_key(id: Option<&str>, link: Option<&str>, title: Option<&str>, date: Option<DateTime<Utc>>) -> String {
    let id = id.unwrap_or("").trim();
    if !id.is_empty() {
        return id.to_string();
    }
    if let Some(link) = link {
        return canonical_url(link).unwrap_or_else(|| link.to_string());
    }
    let material = format!("{}\u{1f}{}", title.unwrap_or(""), date.map(|d| d.timestamp()).unwrap_or(0));
    format!("hash:{:016x}", fnv1a(material.as_bytes()))
}

/// FNV-1a: a small hash whose value never changes between Rust releases, so stored keys stay valid.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_whose_text_follows_much_markup_is_kept() {
        let deep = format!("{}<p>the text at the bottom</p>", "<blockquote><ul><li>".repeat(20_000));
        assert_eq!(body(Some(deep.clone()), None), (Some(deep), None));
        let empty = "<p></p>".repeat(20_000);
        assert_eq!(body(Some(empty), Some("<p>summary</p>".into())), (Some("<p>summary</p>".into()), None));
    }

    #[test]
    fn person_names_never_show_addresses() {
        assert_eq!(person_name(Some("jo@example.com (Jo Doe)"), None).as_deref(), Some("Jo Doe"));
        assert_eq!(person_name(Some("Jo Doe (jo@example.com)"), None).as_deref(), Some("Jo Doe"));
        assert_eq!(person_name(Some("Jo Doe <jo@example.com>"), None).as_deref(), Some("Jo Doe"));
        assert_eq!(person_name(Some("Ann"), Some("ann@example.com")).as_deref(), Some("Ann"));
        assert_eq!(person_name(None, Some("jo.doe@example.com")).as_deref(), Some("jo.doe"));
        assert_eq!(person_name(Some("<jo@example.com>"), None).as_deref(), Some("jo"));
        assert_eq!(person_name(None, None), None);
    }

    #[test]
    fn first_line_makes_a_short_title() {
        assert_eq!(first_line(Some("<p>Hello there. More text</p>")).as_deref(), Some("Hello there"));
        let long = format!("<p>{}</p>", "word ".repeat(40));
        let t = first_line(Some(&long)).unwrap();
        assert!(t.ends_with('…') && t.chars().count() <= 81, "{t}");
    }

    #[test]
    fn keys_prefer_the_id_then_the_canonical_link() {
        assert_eq!(entry_key(Some(" id-1 "), Some("http://e.com/a"), None, None), "id-1");
        assert_eq!(entry_key(None, Some("HTTP://E.com/a/?utm_source=rss"), None, None), "http://e.com/a");
        let a = entry_key(Some(""), None, Some("T"), None);
        assert!(a.starts_with("hash:"));
        assert_eq!(a, entry_key(None, None, Some("T"), None));
        assert_ne!(a, entry_key(None, None, Some("U"), None));
    }

    #[test]
    fn absolute_links_stay_as_written_and_relative_ones_resolve() {
        assert_eq!(absolute(" http://E.com/a ", &[]).as_deref(), Some("http://E.com/a"));
        assert_eq!(absolute("http://e.com", &[]).as_deref(), Some("http://e.com/"));
        assert_eq!(absolute("http://e.com?q=1", &[]).as_deref(), Some("http://e.com/?q=1"));
        assert_eq!(absolute("mailto:a@e.com", &[]).as_deref(), Some("mailto:a@e.com"));
        assert_eq!(absolute("/blog/", &[None]).as_deref(), Some("/blog/"), "nothing to resolve it against");
        assert_eq!(
            absolute("a?x=1&amp;y=2", &[None, Some("http://e.com/b/")]).as_deref(),
            Some("http://e.com/b/a?x=1&y=2")
        );
        assert_eq!(absolute("", &[Some("http://e.com/")]), None);
    }

    #[test]
    fn content_that_shows_nothing_gives_way_to_the_summary() {
        let (content, summary) = body(Some(" <script>x()</script> ".into()), Some("item description".into()));
        assert_eq!((content.as_deref(), summary), (Some("item description"), None));
        let (content, summary) = body(Some("<img src=a.png>".into()), Some("s".into()));
        assert_eq!((content.as_deref(), summary.as_deref()), (Some("<img src=a.png>"), Some("s")));
        assert_eq!(body(None, None), (None, None));
        // Long bodies: text or an image after 4 KB of empty markup still shows; a long script alone does not.
        let late_text = format!("{}<p>late words</p>", "<div></div>".repeat(600));
        assert_eq!(body(Some(late_text.clone()), None).0, Some(late_text));
        let long_script = format!("<script>{}</script>", "var x = 1; ".repeat(600));
        assert_eq!(body(Some(long_script), Some("s".into())).0.as_deref(), Some("s"));
        let cut_tag = format!("<p></p>{}<img src=a.png>", " ".repeat(4090));
        assert_eq!(body(Some(cut_tag.clone()), None).0, Some(cut_tag), "a tag cut at 4 KB is not text");
    }

    #[test]
    fn authors_are_listed_once() {
        let mut authors = Vec::new();
        add_author(&mut authors, Some("Ann".into()));
        add_author(&mut authors, Some("ann".into()));
        add_author(&mut authors, None);
        add_author(&mut authors, Some("Bob".into()));
        assert_eq!(authors, ["Ann", "Bob"]);
    }
}
