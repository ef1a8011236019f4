//! JSON Feed (1.0 and 1.1), parsed by feed-rs. feed-rs reads the specification to the letter: a `version` that
//! is the specification's URL, a `title`, `items`, every member in its type. Feeds in the wild write "1.0",
//! "1.1" or nothing for the version, numbers for ids, a string for an author. So the document is first read as
//! a JSON value and [normalised](normalise) into what feed-rs accepts — nothing readable is rejected, and each
//! leniency about the version becomes a warning — then parsed by `feed_rs::parser` with tidings's own date
//! parser plugged in, and mapped into tidings's model. Items without authors have the feed's (JSON Feed 1.1,
//! "authors").
//!
//! feed-rs reads ids, titles, bodies, summaries, dates, people and tags. Addresses (the home page, an item's
//! link, attachments, images) are taken from the JSON value as the feed wrote them ([`Addresses`]): feed-rs
//! rewrites each through the url crate, and tidings keeps links as written, in every format.
//!
//! Pure: text in, a [`ParsedFeed`] out.

use super::ParseError;
use super::construct::Text;
use super::fields::{self, DateReader, MAX_AUTHORS, absolute, add_author, add_category, person_name, title_of};
use crate::model::{Enclosure, FeedKind, ParsedEntry, ParsedFeed};
use crate::text::looks_like_html;
use feed_rs::model::{Entry, Person};
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex};

mod capped;

const VERSIONS: &[&str] = &["https://jsonfeed.org/version/1", "https://jsonfeed.org/version/1.1"];
/// The version a normalised document states when its own is not the specification's: 1.1 reads every 1.0
/// document the same.
const SPEC_VERSION: &str = "https://jsonfeed.org/version/1.1";

/// Reads a JSON Feed document.
pub(super) fn read(text: &str, base_url: Option<&str>) -> Result<ParsedFeed, ParseError> {
    let (document, unkept) = capped::read(text.trim_start_matches('\u{feff}')).map_err(|e| match e {
        capped::Refused::Syntax(e) => ParseError::Malformed(format!("the JSON is not valid: {e}")),
        capped::Refused::NotAnObject => ParseError::NotAFeed("the JSON document is not an object".into()),
        capped::Refused::TooMany => ParseError::Malformed(format!(
            "the JSON document holds more than {} values, far more than a feed needs",
            capped::MAX_VALUES
        )),
    })?;
    let normalised = normalise(document)?;
    let json = serde_json::to_vec(&normalised.document)
        .map_err(|e| ParseError::Malformed(format!("the JSON Feed could not be normalised: {e}")))?;

    let dates = Arc::new(Mutex::new(DateReader::default()));
    let parser = feed_rs::parser::Builder::new()
        .timestamp_parser({
            let dates = Arc::clone(&dates);
            move |raw| dates.lock().ok()?.read(raw)
        })
        // An item without an id keeps none, and gets tidings's key (`fields::entry_key`), the same on every
        // refresh; feed-rs would make one up, a random UUID for an item without a link.
        .id_generator(|_, _, _| String::new())
        .sanitize_content(false)
        .build();
    let feed = parser
        .parse(json.as_slice())
        .map_err(|e| ParseError::Malformed(format!("feed-rs could not read the JSON Feed: {e}")))?;

    let mut warnings = normalised.warnings;
    warnings.extend(dates.lock().ok().and_then(|d| d.warning()));
    let link = normalised.home_page_url.as_deref().and_then(|u| absolute(u, &[base_url]));
    let link = link.filter(|l| Some(l.as_str()) != base_url);
    let bases = [link.as_deref(), normalised.feed_url.as_deref(), base_url];
    let none = Addresses::default();
    let entries = feed
        .entries
        .into_iter()
        .enumerate()
        .map(|(i, entry)| map_entry(entry, normalised.addresses.get(i).unwrap_or(&none), &bases))
        .collect();
    Ok(ParsedFeed {
        kind: FeedKind::Json,
        title: title_of(feed.title.as_ref().map(|t| guess(&t.content))),
        link,
        description: title_of(feed.description.as_ref().map(|t| guess(&t.content))),
        authors: names(&feed.authors),
        entries,
        warnings,
        min_interval_secs: None,
        unkept,
    })
}

/// `content_text` as HTML that keeps its lines: a blank line parts paragraphs, a line break stays one.
fn plain_to_html(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let paragraphs: Vec<String> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| format!("<p>{}</p>", p.lines().map(super::escape_html).collect::<Vec<_>>().join("<br>")))
        .collect();
    paragraphs.concat()
}

/// feed-rs's entry in tidings's model, with the item's addresses.
fn map_entry(entry: Entry, addresses: &Addresses, bases: &[Option<&str>]) -> ParsedEntry {
    let link = addresses.link.as_deref().and_then(|u| absolute(u, bases));
    let content_html = entry.content.and_then(|c| {
        let body = c.body?;
        // `content_text` arrives as text/plain, `content_html` as text/html.
        Some(if c.content_type.subty() == "plain" { plain_to_html(&body) } else { body })
    });
    let summary_html = entry.summary.as_ref().map(|s| guess(&s.content).into_html());
    let (content_html, summary_html) = fields::body(content_html, summary_html);
    let title = title_of(entry.title.as_ref().map(|t| guess(&t.content)));
    let published = entry.published.or(entry.updated);
    let mut categories = Vec::new();
    for tag in &entry.categories {
        add_category(&mut categories, &tag.term);
    }
    let mut enclosures: Vec<Enclosure> = Vec::new();
    for attachment in &addresses.attachments {
        let media_type = attachment.media_type.clone();
        fields::add_enclosure(&mut enclosures, &attachment.url, bases, media_type, attachment.length);
    }
    let fallback = title.clone().or_else(|| fields::first_line(content_html.as_deref()));
    let key = fields::entry_key(Some(&entry.id), link.as_deref(), fallback.as_deref(), published);
    ParsedEntry {
        key,
        title,
        link,
        authors: names(&entry.authors),
        published,
        updated: entry.updated,
        content_html,
        summary_html,
        categories,
        enclosures,
        comments: None,
        thumbnail: addresses.thumbnail.as_deref().and_then(|u| absolute(u, bases)),
    }
}

/// The names of people. Normalising made each a display name, listed once.
fn names(people: &[Person]) -> Vec<String> {
    let mut out = Vec::new();
    for person in people {
        add_author(&mut out, person.name.clone());
    }
    out
}

/// Text that should be plain, read as HTML when it carries the evidence (publishers escape it anyway).
fn guess(s: &str) -> Text<'_> {
    if looks_like_html(s) { Text::Html(s.into()) } else { Text::Plain(s.into()) }
}

/// A JSON Feed document as feed-rs accepts it, and its addresses as written.
#[derive(Debug)]
struct Normalised {
    /// The members feed-rs reads for tidings, each in the type the specification gives it.
    document: Value,
    /// The leniencies the document needed.
    warnings: Vec<String>,
    home_page_url: Option<String>,
    feed_url: Option<String>,
    /// Each item's addresses, in the order of the items.
    addresses: Vec<Addresses>,
}

/// An item's addresses as the feed wrote them. feed-rs would give them in the url crate's form: a host in
/// punycode, `é` as `%C3%A9`, `/a/../b` as `/b`.
#[derive(Debug, Default)]
struct Addresses {
    /// `url`, else `external_url`.
    link: Option<String>,
    /// `image`, else `banner_image`.
    thumbnail: Option<String>,
    attachments: Vec<Attachment>,
}

#[derive(Debug)]
struct Attachment {
    url: String,
    media_type: Option<String>,
    length: Option<u64>,
}

/// Rewrites a JSON Feed document into what feed-rs accepts:
/// - a missing or unknown `version` ("1.0", "1.1", a number) becomes the specification's URL, with a warning;
///   `items` may be missing only when the version names jsonfeed.org (otherwise this is some other JSON);
/// - a missing `title` becomes empty;
/// - a number where text belongs (an id, a title, a tag) is that text; addresses and dates must be strings;
///   members of another type, blank strings and items that are not objects count as absent;
/// - `author` (JSON Feed 1.0), given as an object, a string or a list, joins `authors` (1.1);
/// - addresses are taken out as the feed wrote them ([`Addresses`]);
/// - `content_text` is read only when there is no `content_html` (feed-rs would make it the summary).
fn normalise(mut feed: Map<String, Value>) -> Result<Normalised, ParseError> {
    let version = feed.remove("version").and_then(as_text);
    let items = match feed.remove("items") {
        Some(Value::Array(items)) => items,
        _ if version.as_deref().is_some_and(|v| v.contains("jsonfeed.org")) => Vec::new(),
        _ => return Err(ParseError::NotAFeed("the JSON document has no \"items\": it is not a JSON Feed".into())),
    };
    let mut warnings = Vec::new();
    let version = match version {
        Some(v) => match VERSIONS.iter().find(|known| v.trim_end_matches('/').eq_ignore_ascii_case(known)) {
            Some(known) => known,
            None => {
                warnings.push(format!("read a JSON Feed whose version is {v:?} by JSON Feed 1.1's rules"));
                SPEC_VERSION
            }
        },
        None => {
            warnings.push("read a JSON Feed that states no version by JSON Feed 1.1's rules".into());
            SPEC_VERSION
        }
    };

    let mut out = Map::new();
    out.insert("version".into(), version.into());
    out.insert("title".into(), feed.remove("title").and_then(as_text).unwrap_or_default().into());
    move_members(&mut feed, &mut out, &["description"], as_text);
    move_people(&mut feed, &mut out);
    let mut addresses = Vec::with_capacity(items.len());
    let items: Vec<Value> = items
        .into_iter()
        .filter_map(|item| match item {
            Value::Object(item) => Some(item),
            _ => None,
        })
        .map(|item| {
            let (item, written) = normalise_item(item);
            addresses.push(written);
            Value::Object(item)
        })
        .collect();
    out.insert("items".into(), items.into());
    Ok(Normalised {
        document: Value::Object(out),
        warnings,
        home_page_url: feed.remove("home_page_url").and_then(as_string),
        feed_url: feed.remove("feed_url").and_then(as_string),
        addresses,
    })
}

/// One item, normalised; beside it, its addresses as written.
fn normalise_item(mut item: Map<String, Value>) -> (Map<String, Value>, Addresses) {
    let mut out = Map::new();
    move_members(&mut item, &mut out, &["id", "title", "content_html", "summary"], as_text);
    move_members(&mut item, &mut out, &["date_published", "date_modified"], as_string);
    if !out.contains_key("content_html") {
        move_members(&mut item, &mut out, &["content_text"], as_text);
    }
    move_people(&mut item, &mut out);
    let tags: Vec<Value> = match item.remove("tags") {
        Some(Value::Array(tags)) => tags.into_iter().filter_map(as_text).map(Value::from).collect(),
        Some(tag) => as_text(tag).map(Value::from).into_iter().collect(),
        None => Vec::new(),
    };
    if !tags.is_empty() {
        out.insert("tags".into(), tags.into());
    }
    let attachments = match item.remove("attachments") {
        Some(Value::Array(attachments)) => attachments.into_iter().filter_map(attachment).collect(),
        _ => Vec::new(),
    };
    let link = item.remove("url").and_then(as_string).or_else(|| item.remove("external_url").and_then(as_string));
    let thumbnail =
        item.remove("image").and_then(as_string).or_else(|| item.remove("banner_image").and_then(as_string));
    (out, Addresses { link, thumbnail, attachments })
}

/// An attachment: its `url` (required), `mime_type` and `size_in_bytes` (a number, or digits in a string).
fn attachment(value: Value) -> Option<Attachment> {
    let Value::Object(mut attachment) = value else { return None };
    let length = match attachment.remove("size_in_bytes") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    Some(Attachment {
        url: attachment.remove("url").and_then(as_string)?,
        media_type: attachment.remove("mime_type").and_then(as_string),
        length,
    })
}

/// Moves members from one object to the other, each read by `read`.
fn move_members(
    from: &mut Map<String, Value>,
    to: &mut Map<String, Value>,
    keys: &[&str],
    read: fn(Value) -> Option<String>,
) {
    for key in keys {
        if let Some(s) = from.remove(*key).and_then(read) {
            to.insert((*key).to_string(), s.into());
        }
    }
}

/// Moves `author` (1.0) and `authors` (1.1) into one `authors` list of display names, each once, the first
/// [`MAX_AUTHORS`] only: feed-rs compares every name with every other, and gives each item without authors a copy
/// of the feed's. A name is never an address: "Jo Doe <jo@x.org>" is "Jo Doe". That also keeps feed-rs's own
/// name and address split away, which cuts bytes beside the address and panics when a character of several bytes
/// touches it ("张三 （zhang@x.cn）").
fn move_people(from: &mut Map<String, Value>, to: &mut Map<String, Value>) {
    let mut people = Vec::new();
    for value in [from.remove("author"), from.remove("authors")].into_iter().flatten() {
        match value {
            Value::Array(list) => people.extend(list),
            one => people.push(one),
        }
    }
    let mut names = Vec::new();
    for person in people {
        if names.len() == MAX_AUTHORS {
            break;
        }
        let name = match person {
            Value::Object(mut person) => person.remove("name").and_then(as_text),
            Value::String(name) => Some(name),
            _ => None,
        };
        // An address that entities hid from `person_name` is dropped rather than shown.
        add_author(&mut names, name.and_then(|n| person_name(Some(&n), None)).filter(|n| !n.contains('@')));
    }
    if !names.is_empty() {
        let people: Vec<Value> = names.into_iter().map(|name| serde_json::json!({ "name": name })).collect();
        to.insert("authors".into(), people.into());
    }
}

/// A member that is text (an id, a title, a tag, a name): a string, or the digits of a number.
fn as_text(value: Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string()),
        other => as_string(other),
    }
}

/// A member that must be a string (an address, a date, a media type): without its surrounding blanks; `None`
/// for anything else and for a blank string.
fn as_string(value: Value) -> Option<String> {
    match value {
        Value::String(s) if s.trim().len() == s.len() => Some(s).filter(|s| !s.is_empty()),
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_version_string_is_read_by_structure_with_a_warning() {
        for version in [r#""version": "1.0","#, r#""version": "1.1","#, ""] {
            let text = format!(r#"{{{version} "title": "T", "items": [{{"id": 7, "content_text": "Hi there"}}]}}"#);
            let feed = read(&text, None).unwrap();
            assert_eq!(feed.title.as_deref(), Some("T"));
            assert_eq!(feed.entries[0].key, "7", "a numeric id is an id");
            assert_eq!(feed.entries[0].title, None, "no title of its own");
            assert_eq!(feed.entries[0].display_title().as_deref(), Some("Hi there"));
            assert!(feed.warnings.iter().any(|w| w.contains("version")), "{:?}", feed.warnings);
        }
        let proper = read(r#"{"version": "https://jsonfeed.org/version/1.1", "items": []}"#, None).unwrap();
        assert!(proper.warnings.is_empty());
    }

    #[test]
    fn an_item_keeps_a_bounded_number_of_attachments() {
        let attachments: Vec<String> =
            (0..3000).map(|i| format!(r#"{{"url": "http://e.com/{i}.mp3", "mime_type": "audio/mpeg"}}"#)).collect();
        let text = format!(
            r#"{{"version": "https://jsonfeed.org/version/1.1", "items": [{{"id": "1", "attachments": [{}]}}]}}"#,
            attachments.join(",")
        );
        let feed = read(&text, None).unwrap();
        assert_eq!(feed.entries[0].enclosures.len(), crate::model::MAX_ENCLOSURES);
        assert_eq!(feed.entries[0].enclosures[0].url, "http://e.com/0.mp3");
    }

    #[test]
    fn items_inherit_the_feed_authors() {
        let text = r#"{"version": "https://jsonfeed.org/version/1", "author": {"name": "Feed Person"},
            "items": [{"id": "1"}, {"id": "2", "authors": [{"name": "A"}, {"name": "B"}]}]}"#;
        let feed = read(text, None).unwrap();
        assert_eq!(feed.entries[0].authors, ["Feed Person"]);
        assert_eq!(feed.entries[1].authors, ["A", "B"]);
    }

    #[test]
    fn json_that_is_not_a_feed_is_said_to_be_so() {
        assert!(matches!(read(r#"{"error": "nope"}"#, None), Err(ParseError::NotAFeed(_))));
        assert!(matches!(read("[1, 2]", None), Err(ParseError::NotAFeed(_))));
        assert!(matches!(read("{", None), Err(ParseError::Malformed(_))));
    }

    #[test]
    fn a_version_1_1_feed_is_read_and_its_version_named_in_the_warning() {
        let feed = read(r#"{"version": "1.1", "title": "Loose", "items": [{"id": "a", "title": "One"}]}"#, None);
        let feed = feed.unwrap();
        assert_eq!(feed.entries[0].title.as_deref(), Some("One"));
        assert_eq!(feed.warnings, [r#"read a JSON Feed whose version is "1.1" by JSON Feed 1.1's rules"#]);
    }

    #[test]
    fn a_feed_without_version_or_title_is_read() {
        let feed = read(r#"{"items": [{"url": "https://e.com/1", "title": "Entry"}]}"#, None).unwrap();
        assert_eq!(feed.title, None);
        assert_eq!(feed.entries[0].link.as_deref(), Some("https://e.com/1"));
        assert!(feed.warnings.iter().any(|w| w.contains("states no version")), "{:?}", feed.warnings);
        let no_items = read(r#"{"version": "https://jsonfeed.org/version/1", "title": "Empty"}"#, None).unwrap();
        assert_eq!((no_items.title.as_deref(), no_items.entries.len()), (Some("Empty"), 0));
    }

    #[test]
    fn numbers_are_read_as_text() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "title": 2025,
            "items": [{"id": 42, "title": 1984, "tags": [2024, "rust", null]}, {"id": 4.5}]}"#;
        let feed = read(text, None).unwrap();
        assert_eq!(feed.title.as_deref(), Some("2025"));
        assert_eq!(feed.entries[0].key, "42");
        assert_eq!(feed.entries[0].title.as_deref(), Some("1984"));
        assert_eq!(feed.entries[0].categories, ["2024", "rust"]);
        assert_eq!(feed.entries[1].key, "4.5");
    }

    #[test]
    fn an_author_given_as_a_string_is_a_name() {
        let text = r#"{"version": "https://jsonfeed.org/version/1", "author": "Feed Writer",
            "items": [{"id": "1"}, {"id": "2", "author": "Jo Doe <jo@example.com>"},
                      {"id": "3", "authors": ["Ann", {"name": "Bob"}, 7]}]}"#;
        let feed = read(text, None).unwrap();
        assert_eq!(feed.authors, ["Feed Writer"]);
        assert_eq!(feed.entries[0].authors, ["Feed Writer"]);
        assert_eq!(feed.entries[1].authors, ["Jo Doe"]);
        assert_eq!(feed.entries[2].authors, ["Ann", "Bob"]);
    }

    #[test]
    fn a_flood_of_authors_is_cut_to_the_first_few() {
        let many: Vec<Value> = (0..5000).map(|i| serde_json::json!({ "name": format!("Writer {i}") })).collect();
        let items: Vec<Value> = (0..200).map(|i| serde_json::json!({ "id": i })).collect();
        let text = serde_json::json!({ "authors": many, "items": items }).to_string();
        let feed = read(&text, None).unwrap();
        assert_eq!(feed.authors.len(), MAX_AUTHORS);
        assert_eq!((feed.authors[0].as_str(), feed.authors[MAX_AUTHORS - 1].as_str()), ("Writer 0", "Writer 19"));
        assert!(feed.entries.iter().all(|e| e.authors == feed.authors), "every item has the feed's, cut too");
    }

    #[test]
    fn an_address_beside_a_wide_character_is_no_part_of_the_name() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "items": [
            {"id": "1", "authors": [{"name": "张三 （zhang@example.cn）"}]},
            {"id": "2", "authors": [{"name": "only&#64;entities.example"}]}]}"#;
        let feed = read(text, None).unwrap();
        assert_eq!(feed.entries[0].authors, ["张三"]);
        assert!(feed.entries[1].authors.is_empty(), "{:?}", feed.entries[1].authors);
    }

    #[test]
    fn members_of_the_wrong_type_count_as_absent() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "title": {"text": "T"}, "description": "  ",
            "items": ["not an item", {"id": true, "url": ["x"], "title": "Kept", "content_html": null,
                      "content_text": "Body", "tags": "solo", "attachments": {"url": "x"},
                      "date_published": {}, "authors": [null]}]}"#;
        let feed = read(text, None).unwrap();
        assert_eq!((feed.title.as_deref(), feed.description.as_deref()), (None, None));
        assert_eq!(feed.entries.len(), 1, "an item that is not an object is skipped");
        let entry = &feed.entries[0];
        assert_eq!(entry.title.as_deref(), Some("Kept"));
        assert_eq!(entry.link, None);
        assert_eq!(entry.content_html.as_deref(), Some("<p>Body</p>"), "content_text, as paragraphs");
        assert_eq!(entry.categories, ["solo"], "a lone tag is a list of one");
        assert!(entry.key.starts_with("hash:"), "a boolean is no id: {}", entry.key);
        assert!(entry.enclosures.is_empty() && entry.authors.is_empty() && entry.published.is_none());
    }

    #[test]
    fn content_text_keeps_its_line_breaks_and_paragraphs() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "title": "T",
            "items": [{"id": "1", "content_text": "First line\nsecond line\n\nA new paragraph"}]}"#;
        let feed = read(text, None).unwrap();
        assert_eq!(
            feed.entries[0].content_html.as_deref(),
            Some("<p>First line<br>second line</p><p>A new paragraph</p>")
        );
    }

    #[test]
    fn content_html_is_the_body_and_content_text_no_summary() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "items": [
            {"id": "1", "content_html": "<p>Rich</p>", "content_text": "Rich"},
            {"id": "2", "content_html": " ", "content_text": "a < b & c", "summary": "Short <b>bold</b> words"}]}"#;
        let feed = read(text, None).unwrap();
        let (rich, plain) = (&feed.entries[0], &feed.entries[1]);
        assert_eq!((rich.content_html.as_deref(), rich.summary_html.as_deref()), (Some("<p>Rich</p>"), None));
        assert_eq!(plain.content_html.as_deref(), Some("<p>a &lt; b &amp; c</p>"), "plain text is escaped");
        assert_eq!(plain.summary_html.as_deref(), Some("Short <b>bold</b> words"), "HTML in a summary is HTML");
    }

    #[test]
    fn relative_urls_resolve_against_the_home_page_then_the_feed_url_then_the_document() {
        let item = r#"{"id": "1", "url": "posts/1", "image": "/img/1.png",
            "attachments": [{"url": "a.mp3", "mime_type": "audio/mpeg", "size_in_bytes": 1000},
                            {"url": "a.mp3"}, {"url": "b.ogg", "size_in_bytes": "2000"}, {"mime_type": "x/y"}]}"#;
        let home = format!(
            r#"{{"home_page_url": "https://site.example/blog/", "feed_url": "https://f.example/feed.json",
            "items": [{item}]}}"#
        );
        let entry = &read(&home, Some("https://doc.example/")).unwrap().entries[0];
        assert_eq!(entry.link.as_deref(), Some("https://site.example/blog/posts/1"));
        assert_eq!(entry.thumbnail.as_deref(), Some("https://site.example/img/1.png"));
        let urls: Vec<_> =
            entry.enclosures.iter().map(|e| (e.url.as_str(), e.media_type.as_deref(), e.length)).collect();
        assert_eq!(
            urls,
            [
                ("https://site.example/blog/a.mp3", Some("audio/mpeg"), Some(1000)),
                ("https://site.example/blog/b.ogg", None, Some(2000))
            ]
        );

        let feed_url = format!(r#"{{"feed_url": "https://f.example/j/feed.json", "items": [{item}]}}"#);
        let entry = &read(&feed_url, Some("https://doc.example/")).unwrap().entries[0];
        assert_eq!(entry.link.as_deref(), Some("https://f.example/j/posts/1"));
        let document = format!(r#"{{"items": [{item}]}}"#);
        let feed = read(&document, Some("https://doc.example/d/feed.json")).unwrap();
        assert_eq!(feed.link, None, "the feed_url is no home page");
        assert_eq!(feed.entries[0].link.as_deref(), Some("https://doc.example/d/posts/1"));
    }

    #[test]
    fn addresses_are_kept_as_the_feed_wrote_them() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "home_page_url": "https://bücher.example/",
            "items": [{"id": "1", "url": "https://bücher.example/über uns", "image": "http://e.com:80/a/../b.png",
                       "attachments": [{"url": "https://e.com/Folge 1.mp3", "mime_type": "audio/mpeg"}]}]}"#;
        let feed = read(text, None).unwrap();
        assert_eq!(feed.link.as_deref(), Some("https://bücher.example/"));
        let entry = &feed.entries[0];
        assert_eq!(entry.link.as_deref(), Some("https://bücher.example/über uns"));
        assert_eq!(entry.thumbnail.as_deref(), Some("http://e.com:80/a/../b.png"));
        assert_eq!(entry.enclosures[0].url, "https://e.com/Folge 1.mp3");
    }

    #[test]
    fn an_external_url_is_the_link_when_there_is_no_url() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "items": [
            {"id": "1", "url": "https://e.com/own", "external_url": "https://elsewhere.example/"},
            {"id": "2", "external_url": "https://elsewhere.example/linked"}]}"#;
        let feed = read(text, None).unwrap();
        assert_eq!(feed.entries[0].link.as_deref(), Some("https://e.com/own"));
        assert_eq!(feed.entries[1].link.as_deref(), Some("https://elsewhere.example/linked"));
    }

    #[test]
    fn dates_are_read_by_tidings_and_zoneless_ones_counted_once() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "items": [
            {"id": "1", "date_published": "Tue, 10 Jun 2025 04:00:00 GMT", "date_modified": "2025-06-11T08:00:00+02:00"},
            {"id": "2", "date_published": "not a date", "date_modified": "2025-06-12 10:30:00"}]}"#;
        let feed = read(text, None).unwrap();
        let iso = |d: Option<chrono::DateTime<chrono::Utc>>| d.map(|d| d.to_rfc3339());
        assert_eq!(iso(feed.entries[0].published).as_deref(), Some("2025-06-10T04:00:00+00:00"), "RFC 822");
        assert_eq!(iso(feed.entries[0].updated).as_deref(), Some("2025-06-11T06:00:00+00:00"));
        assert_eq!(iso(feed.entries[1].published).as_deref(), Some("2025-06-12T10:30:00+00:00"), "modified instead");
        assert_eq!(feed.warnings, ["1 date(s) had no time zone and were read as UTC"]);
    }

    #[test]
    fn items_without_an_id_get_the_same_key_every_time() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "items": [
            {"url": "https://e.com/a?utm_source=feed"}, {"title": "No link"}]}"#;
        let (first, again) = (read(text, None).unwrap(), read(text, None).unwrap());
        assert_eq!(first.entries[0].key, "https://e.com/a");
        assert!(first.entries[1].key.starts_with("hash:"), "{}", first.entries[1].key);
        assert_eq!(first.entries[1].key, again.entries[1].key);
    }
}
