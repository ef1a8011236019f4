//! The Fever API's answers, as FreshRSS (`api/fever.php`), Coldsweat (`fever/`), Miniflux and Tiny Tiny RSS's
//! plug-in serve them: every call is `POST URL?api&…` with `api_key` = md5 of `user:password`, and every answer
//! a JSON object with `auth` (1: the key was taken). Groups become labels, feeds subscriptions (`feed/ID`, as the
//! Google Reader API names them, so that sync stores both alike), items keep their decimal id as their key and
//! as the mark paging goes by (`since_id`). An answer without what was asked is an error, never "nothing". Pure.

use crate::greader::{AnswerError, RemoteFeed, RemoteItem};
use crate::model::ParsedEntry;
use serde_json::Value;
use std::collections::HashMap;

/// The `api_key` of a user: the md5 of `user:password`, in lowercase hex.
pub fn api_key(user: &str, password: &str) -> String {
    md5(format!("{user}:{password}").as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The answer as a JSON object whose `auth` is 1; `Ok(None)` when the key was refused.
fn object(answer: &[u8]) -> Result<Option<serde_json::Map<String, Value>>, AnswerError> {
    let text = String::from_utf8_lossy(answer);
    if text.trim_start().starts_with('<') {
        return Err(AnswerError::Html);
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| not_fever(&format!("not JSON: {e}")))?;
    let Value::Object(map) = value else { return Err(not_fever("not a JSON object")) };
    match map.get("auth").and_then(number) {
        Some(1) => Ok(Some(map)),
        Some(_) => Ok(None),
        None => Err(not_fever("no `auth`")),
    }
}

fn not_fever(what: &str) -> AnswerError {
    AnswerError::Malformed(format!("not the Fever API's answer: {what}"))
}

/// A number, given as a number or a string of digits (servers differ).
fn number(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Whether the server took the key (`auth` 1) in an answer of the API.
pub fn authorized(answer: &[u8]) -> Result<bool, AnswerError> {
    Ok(object(answer)?.is_some())
}

/// The field `name` of an authorized answer.
fn field(answer: &[u8], name: &str) -> Result<Value, AnswerError> {
    let mut map = object(answer)?.ok_or_else(|| not_fever("the key was refused"))?;
    map.remove(name).ok_or_else(|| not_fever(&format!("no `{name}`")))
}

/// A group of the server (a folder here): its id, title, and the ids of its feeds, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub id: i64,
    pub title: String,
    pub feeds: Vec<i64>,
}

/// The groups of an answer to `?api&groups…`, with the feeds `feeds_groups` puts in each, in the order
/// `feeds_groups` names them (then those with no feed).
pub fn groups(answer: &[u8]) -> Result<Vec<Group>, AnswerError> {
    let mut map = object(answer)?.ok_or_else(|| not_fever("the key was refused"))?;
    let groups = map.remove("groups").ok_or_else(|| not_fever("no `groups`"))?;
    let links = map.remove("feeds_groups").ok_or_else(|| not_fever("no `feeds_groups`"))?;
    let mut out: Vec<Group> = array(&groups, "groups")?
        .iter()
        .filter_map(|g| {
            let (id, title) = (g.get("id").and_then(number)?, g.get("title")?.as_str()?.to_string());
            Some(Group { id, title, feeds: Vec::new() })
        })
        .collect();
    let mut order: Vec<i64> = Vec::new();
    for link in array(&links, "feeds_groups")? {
        let Some(id) = link.get("group_id").and_then(number) else { continue };
        let Some(group) = out.iter_mut().find(|g| g.id == id) else { continue };
        let ids = link.get("feed_ids").and_then(Value::as_str).unwrap_or_default();
        group.feeds.extend(ids.split(',').filter_map(|i| i.trim().parse::<i64>().ok()));
        if !order.contains(&id) {
            order.push(id);
        }
    }
    out.sort_by_key(|g| order.iter().position(|&id| id == g.id).unwrap_or(order.len()));
    Ok(out)
}

/// Each feed's label: the title of the first group that holds it (a feed may be in several).
fn labels(groups: &[Group]) -> HashMap<i64, &str> {
    let mut label_of = HashMap::new();
    for group in groups {
        for feed in &group.feeds {
            label_of.entry(*feed).or_insert(group.title.as_str());
        }
    }
    label_of
}

/// The group that is the label `title` here and nothing more, to be marked read as one (`mark=group`): the only
/// group of that title, every feed of which has it as its label. `None` where there is no such group (marking it
/// would touch feeds filed under another label here).
pub fn group_of_label(groups: &[Group], title: &str) -> Option<i64> {
    let mut named = groups.iter().filter(|g| g.title == title);
    let group = named.next()?;
    if named.next().is_some() {
        return None;
    }
    let label_of = labels(groups);
    group.feeds.iter().all(|f| label_of.get(f) == Some(&title)).then_some(group.id)
}

/// The subscriptions, from an answer to `?api&groups&feeds`: each feed in the first group that holds it.
pub fn subscriptions(answer: &[u8]) -> Result<Vec<RemoteFeed>, AnswerError> {
    let groups = groups(answer)?;
    let label_of = labels(&groups);
    let feeds = field(answer, "feeds")?;
    let mut out = Vec::new();
    for feed in array(&feeds, "feeds")? {
        let (Some(id), Some(url)) = (feed.get("id").and_then(number), feed.get("url").and_then(Value::as_str)) else {
            continue;
        };
        out.push(RemoteFeed {
            stream: format!("feed/{id}"),
            url: url.to_string(),
            title: crate::sanitize::one_line(feed.get("title").and_then(Value::as_str).unwrap_or(url), 500),
            site_url: feed.get("site_url").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string),
            label: label_of.get(&id).map(|l| l.to_string()),
        });
    }
    Ok(out)
}

fn array<'a>(value: &'a Value, name: &str) -> Result<&'a Vec<Value>, AnswerError> {
    value.as_array().ok_or_else(|| not_fever(&format!("`{name}` is not a list")))
}

/// The items of an answer to `?api&items…`, in the order given. Their `crawled_usec` is their id: Fever pages by
/// id, and an id never comes back smaller.
pub fn items(answer: &[u8]) -> Result<Vec<RemoteItem>, AnswerError> {
    let items = field(answer, "items")?;
    let mut out = Vec::new();
    for item in array(&items, "items")? {
        let (Some(id), Some(feed)) = (item.get("id").and_then(number), item.get("feed_id").and_then(number)) else {
            continue;
        };
        let text = |name: &str| item.get(name).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        let published =
            item.get("created_on_time").and_then(number).and_then(|t| chrono::DateTime::from_timestamp(t, 0));
        let entry = ParsedEntry {
            key: id.to_string(),
            title: text("title").map(|t| crate::sanitize::one_line(&t, 2000)),
            link: text("url"),
            authors: text("author").into_iter().collect(),
            published,
            updated: None,
            content_html: text("html"),
            summary_html: None,
            categories: vec![],
            enclosures: vec![],
            comments: None,
            thumbnail: None,
        };
        let flag = |name: &str| item.get(name).and_then(number) == Some(1);
        out.push(RemoteItem {
            entry,
            stream: format!("feed/{feed}"),
            read: flag("is_read"),
            starred: flag("is_saved"),
            crawled_usec: id,
        });
    }
    Ok(out)
}

/// How many items the server holds for the user (`total_items`, beside `items`), when it says.
pub fn total_items(answer: &[u8]) -> Option<i64> {
    field(answer, "total_items").ok().as_ref().and_then(number)
}

/// The ids of `unread_item_ids` or `saved_item_ids` (a string of comma-separated ids).
pub fn item_ids(answer: &[u8], name: &str) -> Result<Vec<String>, AnswerError> {
    let ids = field(answer, name)?;
    let Some(ids) = ids.as_str() else { return Err(not_fever(&format!("`{name}` is not a list of ids"))) };
    Ok(ids
        .split(',')
        .map(str::trim)
        .filter(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_string)
        .collect())
}

/// MD5 (RFC 1321), which the Fever API's key is made with.
fn md5(input: &[u8]) -> [u8; 16] {
    use md5::Digest;
    md5::Md5::digest(input).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_one_group_only_where_no_feed_of_the_group_is_filed_under_another() {
        let group = |id: i64, title: &str, feeds: &[i64]| Group { id, title: title.into(), feeds: feeds.to_vec() };
        let groups = [group(3, "News", &[1, 2]), group(4, "Tech", &[2, 5]), group(6, "Blogs", &[7])];
        assert_eq!(group_of_label(&groups, "News"), Some(3));
        assert_eq!(group_of_label(&groups, "Blogs"), Some(6));
        // Feed 2 is also in Tech, but filed under News here: marking Tech would read it.
        assert_eq!(group_of_label(&groups, "Tech"), None);
        assert_eq!(group_of_label(&groups, "Nowhere"), None);
        // Two groups of one title: which one the label is cannot be told.
        let twice = [group(3, "News", &[1]), group(8, "News", &[9])];
        assert_eq!(group_of_label(&twice, "News"), None);
    }

    #[test]
    fn the_key_is_the_md5_of_user_and_password() {
        // RFC 1321's own test values, then the kits' users.
        let hex = |s: &[u8]| md5(s).iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
        assert_eq!(api_key("alice", "alice-api-pass").len(), 32);
    }

    #[test]
    fn an_answer_without_what_was_asked_is_an_error_never_nothing() {
        assert!(items(br#"{"api_version":3,"auth":1}"#).unwrap_err().to_string().contains("no `items`"));
        assert!(items(b"[]").is_err(), "an array where the object belongs");
        assert!(matches!(items(b"<html>login</html>"), Err(AnswerError::Html)));
        assert!(!authorized(br#"{"api_version":3,"auth":0}"#).unwrap());
        let ids = item_ids(br#"{"auth":1,"unread_item_ids":"1,2,,x,30"}"#, "unread_item_ids").unwrap();
        assert_eq!(ids, ["1", "2", "30"]);
    }

    #[test]
    fn groups_become_labels_and_ids_come_as_numbers_or_strings() {
        let answer = br#"{"auth":1,"groups":[{"id":10,"title":"News"}],
            "feeds":[{"id":"1","url":"http://h/a","title":"A","site_url":""},{"id":2,"url":"http://h/b","title":"B"}],
            "feeds_groups":[{"group_id":10,"feed_ids":"1"}]}"#;
        let feeds = subscriptions(answer).unwrap();
        assert_eq!(feeds[0].stream, "feed/1");
        assert_eq!((feeds[0].label.as_deref(), feeds[1].label.as_deref()), (Some("News"), None));
        assert_eq!(groups(answer).unwrap(), [Group { id: 10, title: "News".into(), feeds: vec![1] }]);
        let page = items(br#"{"auth":1,"items":[{"id":"7","feed_id":1,"title":"T","is_read":1,"is_saved":"0"}]}"#);
        let item = &page.unwrap()[0];
        assert_eq!(
            (item.entry.key.as_str(), item.stream.as_str(), item.read, item.starred),
            ("7", "feed/1", true, false)
        );
    }
}
