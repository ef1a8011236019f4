//! Miniflux's own REST API's answers (`/v1/…`, as its official Go client `client/model.go` reads them): feeds with
//! their category (which becomes the label), entries with their status and star, lists of entry ids, the id of
//! a feed just made, and the `error_message` of a refusal. Feeds are named `feed/ID`, as the Google Reader API
//! names them, so that sync stores both alike; an entry keeps its decimal id as its key and as the mark paging
//! goes by (`after_entry_id`). An answer without what was asked is an error, never "nothing". Pure.

use crate::greader::{AnswerError, RemoteFeed, RemoteItem};
use crate::model::{Enclosure, ParsedEntry};
use serde_json::Value;

/// The answer as JSON.
fn json(answer: &[u8]) -> Result<Value, AnswerError> {
    let text = String::from_utf8_lossy(answer);
    if text.trim_start().starts_with('<') {
        return Err(AnswerError::Html);
    }
    serde_json::from_str(&text).map_err(|e| not_miniflux(&format!("not JSON: {e}")))
}

fn not_miniflux(what: &str) -> AnswerError {
    AnswerError::Malformed(format!("not Miniflux's API answer: {what}"))
}

fn list<'a>(value: &'a Value, name: &str) -> Result<&'a Vec<Value>, AnswerError> {
    value.as_array().ok_or_else(|| not_miniflux(&format!("`{name}` is not a list")))
}

fn text(value: &Value, name: &str) -> Option<String> {
    value.get(name).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
}

/// The subscriptions, from `GET /v1/feeds` (a list of `Feed`: `id`, `feed_url`, `site_url`, `title`, and
/// `category` `{id, title}`).
pub fn subscriptions(answer: &[u8]) -> Result<Vec<RemoteFeed>, AnswerError> {
    let value = json(answer)?;
    let mut out = Vec::new();
    for feed in list(&value, "feeds")? {
        let (Some(id), Some(url)) = (feed.get("id").and_then(Value::as_i64), text(feed, "feed_url")) else {
            continue;
        };
        let title = text(feed, "title").unwrap_or_else(|| url.clone());
        out.push(RemoteFeed {
            stream: format!("feed/{id}"),
            title: crate::sanitize::one_line(&title, 500),
            site_url: text(feed, "site_url"),
            label: feed.get("category").and_then(|c| text(c, "title")).map(|t| crate::sanitize::one_line(&t, 200)),
            url,
        });
    }
    Ok(out)
}

/// The categories of `GET /v1/categories`: (id, title).
pub fn categories(answer: &[u8]) -> Result<Vec<(i64, String)>, AnswerError> {
    let value = json(answer)?;
    Ok(list(&value, "categories")?
        .iter()
        .filter_map(|c| Some((c.get("id")?.as_i64()?, c.get("title")?.as_str()?.to_string())))
        .collect())
}

/// The `id` (a category made) or `feed_id` (a feed made) of an answer to a `POST`.
pub fn made_id(answer: &[u8], name: &str) -> Result<i64, AnswerError> {
    json(answer)?.get(name).and_then(Value::as_i64).ok_or_else(|| not_miniflux(&format!("no `{name}`")))
}

/// A page of entries, from `GET /v1/entries` (`{total, entries}`): the items, and how many the query matches in
/// all (past this page too).
pub fn entries(answer: &[u8]) -> Result<(Vec<RemoteItem>, usize), AnswerError> {
    let value = json(answer)?;
    let total = value.get("total").and_then(Value::as_u64).ok_or_else(|| not_miniflux("no `total`"))?;
    let entries = value.get("entries").ok_or_else(|| not_miniflux("no `entries`"))?;
    // Go writes an empty list as `null`.
    let items =
        if entries.is_null() { Vec::new() } else { list(entries, "entries")?.iter().filter_map(item).collect() };
    Ok((items, total as usize))
}

/// One entry, from `GET /v1/entries/{id}`.
pub fn entry(answer: &[u8]) -> Result<Option<RemoteItem>, AnswerError> {
    Ok(item(&json(answer)?))
}

fn item(entry: &Value) -> Option<RemoteItem> {
    let id = entry.get("id")?.as_i64()?;
    let feed = entry.get("feed_id")?.as_i64()?;
    let date = |name: &str| {
        text(entry, name)
            .and_then(|d| chrono::DateTime::parse_from_rfc3339(&d).ok())
            .map(|d| d.with_timezone(&chrono::Utc))
    };
    let enclosures = entry
        .get("enclosures")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|e| {
                    Some(Enclosure {
                        url: text(e, "url")?,
                        media_type: text(e, "mime_type"),
                        length: e.get("size").and_then(Value::as_u64).filter(|s| *s > 0),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let parsed = ParsedEntry {
        key: id.to_string(),
        title: text(entry, "title").map(|t| crate::sanitize::one_line(&t, 2000)),
        link: text(entry, "url"),
        authors: text(entry, "author").into_iter().collect(),
        published: date("published_at"),
        updated: None,
        content_html: text(entry, "content"),
        summary_html: None,
        categories: entry
            .get("tags")
            .and_then(Value::as_array)
            .map(|t| t.iter().filter_map(Value::as_str).map(|t| crate::sanitize::one_line(t, 200)).collect())
            .unwrap_or_default(),
        enclosures,
        comments: text(entry, "comments_url"),
        thumbnail: None,
    };
    Some(RemoteItem {
        entry: parsed,
        stream: format!("feed/{feed}"),
        read: entry.get("status").and_then(Value::as_str) == Some("read"),
        starred: entry.get("starred").and_then(Value::as_bool) == Some(true),
        crawled_usec: id,
    })
}

/// A page of ids, from `GET /v1/entries/ids` (`{total, entry_ids}`), and how many the query matches in all.
pub fn entry_ids(answer: &[u8]) -> Result<(Vec<String>, usize), AnswerError> {
    let value = json(answer)?;
    let total = value.get("total").and_then(Value::as_u64).ok_or_else(|| not_miniflux("no `total`"))?;
    let ids = value.get("entry_ids").ok_or_else(|| not_miniflux("no `entry_ids`"))?;
    let ids = if ids.is_null() {
        Vec::new()
    } else {
        list(ids, "entry_ids")?.iter().filter_map(Value::as_i64).map(|i| i.to_string()).collect()
    };
    Ok((ids, total as usize))
}

/// The `error_message` of an error answer (`{"error_message": "…"}`), on one line.
pub fn error_message(answer: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(answer).ok()?;
    text(&value, "error_message").map(|m| crate::sanitize::one_line(&m, 200))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feeds_take_their_category_as_label_and_entries_their_flags() {
        let feeds = br#"[{"id":3,"feed_url":"http://h/a.xml","site_url":"http://h/","title":"A",
            "category":{"id":1,"title":"Tech"}},{"id":4,"feed_url":"","title":"no url"}]"#;
        let feeds = subscriptions(feeds).unwrap();
        assert_eq!(feeds.len(), 1);
        assert_eq!((feeds[0].stream.as_str(), feeds[0].label.as_deref()), ("feed/3", Some("Tech")));
        let page = br#"{"total":7,"entries":[{"id":12,"feed_id":3,"status":"read","starred":true,"title":"T",
            "url":"http://h/1","published_at":"2026-01-02T03:04:05Z","content":"<p>x</p>",
            "enclosures":[{"url":"http://h/a.mp3","mime_type":"audio/mpeg","size":0}]}]}"#;
        let (items, total) = entries(page).unwrap();
        assert_eq!(total, 7);
        let item = &items[0];
        assert_eq!(
            (item.entry.key.as_str(), item.stream.as_str(), item.read, item.starred),
            ("12", "feed/3", true, true)
        );
        assert_eq!(item.crawled_usec, 12);
        assert_eq!(item.entry.published.unwrap().timestamp(), 1_767_323_045);
        assert_eq!(item.entry.enclosures[0].length, None);
    }

    #[test]
    fn an_answer_without_what_was_asked_is_an_error_never_nothing() {
        assert!(entries(b"[]").is_err(), "a list where the object belongs");
        assert!(entries(br#"{"entries":[]}"#).unwrap_err().to_string().contains("no `total`"));
        assert!(matches!(entries(b"<html>login</html>"), Err(AnswerError::Html)));
        assert_eq!(entries(br#"{"total":0,"entries":null}"#).unwrap().0.len(), 0);
        assert_eq!(entry_ids(br#"{"total":2,"entry_ids":[9,8]}"#).unwrap(), (vec!["9".into(), "8".into()], 2));
        assert_eq!(error_message(br#"{"error_message":"invalid entry ID"}"#).as_deref(), Some("invalid entry ID"));
        assert_eq!(made_id(br#"{"feed_id":5}"#, "feed_id").unwrap(), 5);
    }
}
