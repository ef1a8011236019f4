//! The Google Reader API's answers, read: the protocol FreshRSS, Miniflux, Inoreader, The Old Reader and BazQux
//! share. Bytes in, values out — the requests themselves are `sync::greader`'s. Every answer is checked for what
//! it is (a web page where JSON was expected says the address is wrong), item ids are normalised (the API gives
//! them long, `tag:google.com,2005:reader/item/<16 hex digits>`, or short, decimal, depending on the call), and
//! each item becomes a [`RemoteItem`] the store keeps like any fetched entry.

use crate::model::{Enclosure, ParsedEntry};
use serde::Deserialize;

/// The state streams the API names flags by.
pub const READ: &str = "user/-/state/com.google/read";
pub const STARRED: &str = "user/-/state/com.google/starred";
pub const READING_LIST: &str = "user/-/state/com.google/reading-list";
/// A label's stream id is this and its name.
pub const LABEL_PREFIX: &str = "user/-/label/";
/// The longest login or action token taken. Real ones are about 60 bytes (FreshRSS: `alice/` and 40 hex
/// digits); one of megabytes would be kept and sent with every request, and fail each of them.
pub const MAX_TOKEN_BYTES: usize = 4096;

/// Why an answer could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AnswerError {
    #[error("it answered with a web page, not the Google Reader API")]
    Html,
    #[error("its answer is not what the Google Reader API sends ({0})")]
    Malformed(String),
    #[error("it gave a token that cannot be one ({0}): refused, and not kept")]
    Token(String),
    /// A list (Miniflux answers `[]` with 200 to every call it does not implement) where an object belongs.
    #[error("it answered a list where the Google Reader API's object belongs: the server does not implement this call")]
    Unsupported,
}

/// A subscription as the server lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteFeed {
    /// The server's id for it: `feed/123`.
    pub stream: String,
    pub url: String,
    pub title: String,
    pub site_url: Option<String>,
    /// The label it is filed under (FreshRSS: its category), a folder's path like `News/Tech`.
    pub label: Option<String>,
}

impl RemoteFeed {
    /// The feed with its addresses fit to print (see [`crate::sanitize::address`]).
    pub fn with_clean_addresses(mut self) -> RemoteFeed {
        for url in std::iter::once(&mut self.url).chain(self.site_url.as_mut()) {
            if let std::borrow::Cow::Owned(clean) = crate::sanitize::address(url) {
                *url = clean;
            }
        }
        self
    }
}

/// An item as the server gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteItem {
    /// The entry, keyed by the item's id (decimal).
    pub entry: ParsedEntry,
    /// The feed it belongs to (`feed/123`).
    pub stream: String,
    pub read: bool,
    pub starred: bool,
    /// When the server first stored it, in microseconds since the epoch (what `ot` pages by).
    pub crawled_usec: i64,
}

/// A page of items, and where the next page starts.
#[derive(Debug)]
pub struct ItemsPage {
    pub items: Vec<RemoteItem>,
    pub continuation: Option<String>,
}

/// A page of item ids, and where the next page starts.
#[derive(Debug)]
pub struct IdsPage {
    pub ids: Vec<String>,
    pub continuation: Option<String>,
}

/// An item id in its short form (decimal), from either form; `None` for what is no item id.
pub fn item_id(id: &str) -> Option<String> {
    let id = id.trim();
    if let Some(hex) = id.rsplit_once("/item/").map(|(_, hex)| hex) {
        return u64::from_str_radix(hex, 16).ok().map(|n| n.to_string());
    }
    if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
        return id.parse::<u64>().ok().map(|n| n.to_string());
    }
    None
}

/// The long form of a decimal item id, as `edit-tag` and `items/contents` take it.
pub fn long_item_id(decimal: &str) -> Option<String> {
    let n: u64 = decimal.parse().ok()?;
    Some(format!("tag:google.com,2005:reader/item/{n:016x}"))
}

/// A label's name from its stream id (`user/-/label/News` or `user/123/label/News`).
pub fn label_name(stream: &str) -> Option<&str> {
    let rest = stream.strip_prefix("user/")?;
    let (_, label) = rest.split_once("/label/")?;
    (!label.is_empty()).then_some(label)
}

/// `Auth=…` from ClientLogin's answer.
pub fn auth_token(answer: &[u8]) -> Result<String, AnswerError> {
    let text = String::from_utf8_lossy(answer);
    if looks_like_html(answer) {
        return Err(AnswerError::Html);
    }
    let auth = text
        .lines()
        .find_map(|line| line.strip_prefix("Auth="))
        .map(str::trim)
        .filter(|auth| !auth.is_empty())
        .ok_or_else(|| AnswerError::Malformed("no Auth= line in the login answer".into()))?;
    token(auth)
}

/// The action token of `/token`, which every write carries.
pub fn action_token(answer: &[u8]) -> Result<String, AnswerError> {
    if looks_like_html(answer) {
        return Err(AnswerError::Html);
    }
    token(String::from_utf8_lossy(answer).trim())
}

/// Whether `token` can be one: short, and only the visible ASCII a header carries.
pub fn is_token(token: &str) -> bool {
    !token.is_empty() && token.len() <= MAX_TOKEN_BYTES && token.bytes().all(|b| b.is_ascii_graphic())
}

fn token(text: &str) -> Result<String, AnswerError> {
    if text.is_empty() {
        return Err(AnswerError::Malformed("an empty token".into()));
    }
    if text.len() > MAX_TOKEN_BYTES {
        return Err(AnswerError::Token(format!("{} bytes long; a token is at most {MAX_TOKEN_BYTES}", text.len())));
    }
    if !is_token(text) {
        return Err(AnswerError::Token("it holds spaces or control characters".into()));
    }
    Ok(text.to_string())
}

/// The subscriptions of `subscription/list`.
pub fn subscriptions(answer: &[u8]) -> Result<Vec<RemoteFeed>, AnswerError> {
    #[derive(Deserialize)]
    struct List {
        subscriptions: Vec<Subscription>,
    }
    #[derive(Deserialize)]
    struct Subscription {
        id: String,
        #[serde(default)]
        title: String,
        #[serde(default)]
        categories: Vec<Category>,
        #[serde(default)]
        url: Option<String>,
        #[serde(rename = "htmlUrl", default)]
        html_url: Option<String>,
    }
    #[derive(Deserialize)]
    struct Category {
        id: String,
        #[serde(default)]
        label: Option<String>,
    }
    let list: List = json(answer)?;
    Ok(list
        .subscriptions
        .into_iter()
        .map(|s| {
            let url = s.url.filter(|u| !u.is_empty()).unwrap_or_else(|| s.id.trim_start_matches("feed/").to_string());
            let label =
                s.categories.iter().find_map(|c| c.label.clone().or_else(|| label_name(&c.id).map(String::from)));
            RemoteFeed {
                title: plain(&s.title).unwrap_or_else(|| url.clone()),
                url,
                site_url: s.html_url.filter(|u| !u.is_empty()),
                label: label.filter(|l| !l.trim().is_empty()),
                stream: s.id,
            }
        })
        .collect())
}

/// The items of `stream/contents` or `stream/items/contents`, and the continuation.
pub fn items(answer: &[u8]) -> Result<ItemsPage, AnswerError> {
    #[derive(Deserialize)]
    struct Stream {
        #[serde(default)]
        items: Vec<Item>,
        #[serde(default)]
        continuation: Option<serde_json::Value>,
    }
    #[derive(Deserialize)]
    struct Item {
        id: String,
        #[serde(rename = "crawlTimeMsec", default)]
        crawl_msec: Option<serde_json::Value>,
        #[serde(rename = "timestampUsec", default)]
        timestamp_usec: Option<serde_json::Value>,
        #[serde(default)]
        published: Option<i64>,
        #[serde(default)]
        updated: Option<i64>,
        #[serde(default)]
        title: Option<String>,
        #[serde(default)]
        canonical: Vec<Href>,
        #[serde(default)]
        alternate: Vec<Href>,
        #[serde(default)]
        categories: Vec<String>,
        #[serde(default)]
        origin: Option<Origin>,
        #[serde(default)]
        summary: Option<Content>,
        #[serde(default)]
        content: Option<Content>,
        #[serde(default)]
        author: Option<String>,
        #[serde(default)]
        enclosure: Vec<Media>,
    }
    #[derive(Deserialize)]
    struct Href {
        href: String,
    }
    #[derive(Deserialize)]
    struct Origin {
        #[serde(rename = "streamId")]
        stream_id: String,
    }
    #[derive(Deserialize)]
    struct Content {
        #[serde(default)]
        content: String,
    }
    #[derive(Deserialize)]
    struct Media {
        href: String,
        #[serde(rename = "type", default)]
        media_type: Option<String>,
        #[serde(default)]
        length: Option<serde_json::Value>,
    }
    let stream: Stream = json(answer)?;
    let mut items = Vec::with_capacity(stream.items.len());
    for item in stream.items {
        let Some(key) = item_id(&item.id) else { continue };
        let Some(origin) = item.origin else { continue };
        let number = |v: &Option<serde_json::Value>| match v {
            Some(serde_json::Value::String(s)) => s.parse::<i64>().ok(),
            Some(serde_json::Value::Number(n)) => n.as_i64(),
            _ => None,
        };
        let crawled_usec = number(&item.timestamp_usec)
            .or_else(|| number(&item.crawl_msec).map(|ms| ms.saturating_mul(1000)))
            .unwrap_or(0);
        let read = item.categories.iter().any(|c| is_state(c, "read"));
        let starred = item.categories.iter().any(|c| is_state(c, "starred"));
        let tags: Vec<String> = item.categories.iter().filter_map(|c| label_name(c)).map(String::from).collect();
        let link = item.canonical.into_iter().chain(item.alternate).map(|h| h.href).find(|h| !h.is_empty());
        let body = item.content.or(item.summary).map(|c| c.content).filter(|c| !c.trim().is_empty());
        let date = |secs: Option<i64>| secs.filter(|s| *s > 0).and_then(|s| chrono::DateTime::from_timestamp(s, 0));
        let entry = ParsedEntry {
            key,
            title: item.title.as_deref().and_then(plain),
            link,
            authors: item.author.as_deref().and_then(plain).into_iter().collect(),
            published: date(item.published),
            updated: date(item.updated),
            content_html: body,
            summary_html: None,
            categories: tags,
            enclosures: item
                .enclosure
                .into_iter()
                .filter(|m| !m.href.is_empty())
                .map(|m| Enclosure {
                    url: m.href,
                    media_type: m.media_type.filter(|t| !t.is_empty()),
                    length: number(&m.length).and_then(|l| u64::try_from(l).ok()),
                })
                .collect(),
            comments: None,
            thumbnail: None,
        };
        items.push(RemoteItem { entry, stream: origin.stream_id, read, starred, crawled_usec });
    }
    Ok(ItemsPage { items, continuation: continuation(stream.continuation) })
}

/// The ids of `stream/items/ids` (decimal), and the continuation.
pub fn item_ids(answer: &[u8]) -> Result<IdsPage, AnswerError> {
    #[derive(Deserialize)]
    struct Refs {
        #[serde(rename = "itemRefs", default)]
        item_refs: Option<Vec<Ref>>,
        #[serde(default)]
        continuation: Option<serde_json::Value>,
    }
    #[derive(Deserialize)]
    struct Ref {
        id: serde_json::Value,
    }
    let refs: Refs = json(answer)?;
    let ids = refs
        .item_refs
        .unwrap_or_default()
        .into_iter()
        .filter_map(|r| match r.id {
            serde_json::Value::String(s) => item_id(&s),
            serde_json::Value::Number(n) => n.as_u64().map(|n| n.to_string()),
            _ => None,
        })
        .filter(|id| id != "0")
        .collect();
    Ok(IdsPage { ids, continuation: continuation(refs.continuation) })
}

/// Whether an answer that should say `OK` does.
pub fn is_ok(answer: &[u8]) -> Result<(), AnswerError> {
    if looks_like_html(answer) {
        return Err(AnswerError::Html);
    }
    let text = String::from_utf8_lossy(answer);
    if text.trim() == "OK" {
        Ok(())
    } else {
        Err(AnswerError::Malformed(format!("expected OK, got {:?}", crate::sanitize::one_line(&text, 80))))
    }
}

fn continuation(value: Option<serde_json::Value>) -> Option<String> {
    match value? {
        serde_json::Value::String(s) if !s.is_empty() => Some(s),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn is_state(category: &str, state: &str) -> bool {
    category
        .strip_prefix("user/")
        .and_then(|rest| rest.split_once("/state/com.google/"))
        .is_some_and(|(_, s)| s == state)
}

/// A title or a name as plain text: entities decoded, tags and control characters gone.
fn plain(text: &str) -> Option<String> {
    let text = crate::text::html_to_plain(text);
    let text = crate::sanitize::one_line(&text, 2000);
    (!text.is_empty()).then_some(text)
}

fn looks_like_html(answer: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&answer[..answer.len().min(512)]).trim_start().to_ascii_lowercase();
    head.starts_with("<!doctype") || head.starts_with("<html") || head.starts_with("<?xml") || head.starts_with("<head")
}

fn json<T: serde::de::DeserializeOwned>(answer: &[u8]) -> Result<T, AnswerError> {
    if looks_like_html(answer) {
        return Err(AnswerError::Html);
    }
    // Every answer read here is an object: a list would read as one with every field missing, that is, nothing.
    match answer.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => serde_json::from_slice(answer).map_err(|e| {
            // An answer that stops midway is cut short, not another protocol's.
            AnswerError::Malformed(if e.is_eof() { format!("cut short: {e}") } else { e.to_string() })
        }),
        Some(b'[') => Err(AnswerError::Unsupported),
        _ => Err(AnswerError::Malformed("not a JSON object".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_where_the_object_belongs_is_no_such_call_never_nothing() {
        // Miniflux answers `[]` with 200 to every call it does not implement (stream/contents among them).
        assert!(matches!(items(b"[]"), Err(AnswerError::Unsupported)));
        assert!(matches!(item_ids(b" []"), Err(AnswerError::Unsupported)));
        assert!(matches!(subscriptions(b"[]"), Err(AnswerError::Unsupported)));
        assert!(items(br#"{"items":[]}"#).unwrap().items.is_empty(), "an empty page is still one");
        assert!(items(br#"{"items":[{"id":"#).unwrap_err().to_string().contains("cut short"));
    }

    #[test]
    fn item_ids_in_either_form_are_the_same_decimal() {
        assert_eq!(item_id("tag:google.com,2005:reader/item/0006611a1652687b").as_deref(), Some("1795614531807355"));
        assert_eq!(item_id("1795614531807355").as_deref(), Some("1795614531807355"));
        assert_eq!(item_id("0001").as_deref(), Some("1"));
        assert_eq!(item_id("tag:google.com,2005:reader/item/zz"), None);
        assert_eq!(item_id(""), None);
        assert_eq!(
            long_item_id("1795614531807355").as_deref(),
            Some("tag:google.com,2005:reader/item/0006611a1652687b")
        );
    }

    #[test]
    fn subscriptions_carry_their_label_and_a_plain_title() {
        let answer = br#"{"subscriptions":[{"id":"feed/1","title":"Zero &amp; One","categories":[{"id":"user/-/label/News/Tech","label":"News/Tech"}],"url":"http://h/f0.xml","htmlUrl":"http://h/"},
            {"id":"feed/2","title":"","categories":[],"url":"http://h/f1.xml","htmlUrl":""}]}"#;
        let feeds = subscriptions(answer).unwrap();
        assert_eq!(feeds[0].title, "Zero & One");
        assert_eq!(feeds[0].label.as_deref(), Some("News/Tech"));
        assert_eq!(
            (feeds[1].title.as_str(), feeds[1].label.as_deref(), feeds[1].site_url.as_deref()),
            ("http://h/f1.xml", None, None)
        );
    }

    #[test]
    fn items_carry_their_state_feed_and_crawl_time() {
        let answer = br#"{"items":[{"id":"tag:google.com,2005:reader/item/0006611a1652687b","crawlTimeMsec":"1795614531807","timestampUsec":"1795614531807355","published":1749117600,"title":"A <b>title</b>","canonical":[{"href":"http://h/4"}],"alternate":[{"href":"http://h/4"}],"categories":["user/-/state/com.google/reading-list","user/-/label/Tech","user/-/state/com.google/read","user/1/state/com.google/starred"],"origin":{"streamId":"feed/2","htmlUrl":"http://h/","title":"F"},"summary":{"content":"<p>Body</p>"},"author":"Ann","enclosure":[{"href":"http://h/a.mp3","type":"audio/mpeg","length":"12"}]}],"continuation":"1795614531807355"}"#;
        let page = items(answer).unwrap();
        assert_eq!(page.continuation.as_deref(), Some("1795614531807355"));
        let item = &page.items[0];
        assert_eq!(
            (item.stream.as_str(), item.read, item.starred, item.crawled_usec),
            ("feed/2", true, true, 1_795_614_531_807_355)
        );
        assert_eq!(item.entry.key, "1795614531807355");
        assert_eq!(item.entry.title.as_deref(), Some("A title"));
        assert_eq!(item.entry.link.as_deref(), Some("http://h/4"));
        assert_eq!(item.entry.content_html.as_deref(), Some("<p>Body</p>"));
        assert_eq!(item.entry.categories, ["Tech"]);
        assert_eq!(item.entry.enclosures[0].length, Some(12));
        assert_eq!(item.entry.published.map(|d| d.timestamp()), Some(1_749_117_600));
    }

    #[test]
    fn a_web_page_where_json_was_expected_says_so() {
        let page = b"<!DOCTYPE html><html><body>FreshRSS</body></html>";
        assert_eq!(items(page).unwrap_err(), AnswerError::Html);
        assert_eq!(auth_token(page).unwrap_err(), AnswerError::Html);
        assert!(matches!(subscriptions(b"{\"nope\":1}"), Err(AnswerError::Malformed(_))));
        assert_eq!(is_ok(b"OK\n"), Ok(()));
        assert!(is_ok(b"Bad request").is_err());
    }

    #[test]
    fn a_token_of_insane_length_or_with_control_characters_is_refused() {
        assert_eq!(auth_token(b"SID=x\nLSID=null\nAuth=alice/0123abcd\n").unwrap(), "alice/0123abcd");
        assert_eq!(action_token(b"alice/0123abcdZ\n").unwrap(), "alice/0123abcdZ");
        let huge = format!("Auth={}\n", "a".repeat(10 * 1024 * 1024));
        let refused = auth_token(huge.as_bytes()).unwrap_err();
        assert!(matches!(&refused, AnswerError::Token(why) if why.starts_with("10485760 bytes long")), "{refused}");
        assert!(matches!(action_token(b"to\x01ken"), Err(AnswerError::Token(_))));
        assert!(matches!(action_token(b" \n"), Err(AnswerError::Malformed(_))));
        assert!(is_token(&"a".repeat(MAX_TOKEN_BYTES)) && !is_token(&"a".repeat(MAX_TOKEN_BYTES + 1)));
        assert!(!is_token("two words"));
    }

    #[test]
    fn ids_come_short_and_without_the_placeholder_zero() {
        let page = item_ids(br#"{"itemRefs":[{"id":"123"},{"id":"0"},{"id":"tag:google.com,2005:reader/item/00000000000000ff"}],"continuation":"123"}"#).unwrap();
        assert_eq!(page.ids, ["123", "255"]);
        assert_eq!(page.continuation.as_deref(), Some("123"));
        assert!(item_ids(br#"{"itemRefs":null}"#).unwrap().ids.is_empty());
    }
}
