//! newsboat's cached items as tidings's entries, keyed as a later refresh keys them so the first refresh after
//! the import finds them stored instead of adding them again.
//!
//! newsboat identifies an item by its GUID, else its link followed by its date as the feed wrote it, else its
//! link, else its title. tidings keys an entry by its id (GUID, Atom id), else its link (canonical), else a hash
//! of its title and date. Where the cache cannot tell which case it was (a GUID equal to the link: a real GUID,
//! or no GUID and no date?), the entry gets the likelier key and the others as aliases: a refresh that brings
//! an alias instead of the key takes the stored entry as that entry (see the store's `entry_aliases`).

use crate::model::{Enclosure, ParsedEntry};
use crate::parse::entry_key;
use chrono::DateTime;

/// One row of newsboat's `rss_item` table, as the import reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CachedItem {
    pub guid: String,
    pub title: String,
    pub author: String,
    pub url: String,
    pub feed_url: String,
    /// Seconds since the epoch; newsboat puts the fetch time here for an item without a date.
    pub pub_date: i64,
    pub content: String,
    /// `text/html` or `text/plain` (newsboat 2.22 and later say which; before, it is HTML).
    pub content_type: Option<String>,
    pub unread: bool,
    pub enclosure_url: Option<String>,
    pub enclosure_type: Option<String>,
    /// Flag letters (`s` for the star most people use).
    pub flags: String,
    /// Deleted in newsboat: it must not come back.
    pub deleted: bool,
}

/// Which key an item gets, and the other keys a refresh might give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub key: String,
    pub aliases: Vec<String>,
}

/// The keys of a cached item.
pub fn identity(item: &CachedItem) -> Identity {
    let guid = item.guid.trim();
    let link = Some(item.url.as_str()).filter(|u| !u.is_empty());
    let title = Some(item.title.as_str()).filter(|t| !t.is_empty());
    let dated = DateTime::from_timestamp(item.pub_date, 0);
    let mut keys: Vec<String> = Vec::new();
    match link {
        // The link followed by the date: newsboat's key for an item with no GUID.
        Some(url) if guid.len() > url.len() && guid.starts_with(url) => keys.push(entry_key(None, link, title, None)),
        // A GUID that is the link: a real GUID (likely), or an item with neither GUID nor date.
        Some(url) if guid == url.trim() => {
            keys.push(guid.to_string());
            keys.push(entry_key(None, link, title, None));
        }
        None if title.is_some_and(|t| t.trim() == guid) || guid.is_empty() => {
            // No GUID and no link: the title (and the date, unless newsboat made it up).
            keys.push(entry_key(None, None, title, dated));
            keys.push(entry_key(None, None, title, None));
        }
        _ if guid.is_empty() => keys.push(entry_key(None, link, title, dated)),
        _ => keys.push(guid.to_string()),
    }
    keys.dedup();
    let mut keys = keys.into_iter();
    let key = keys.next().unwrap_or_default();
    Identity { key, aliases: keys.collect() }
}

/// The entry a cached item stands for.
pub fn entry(item: &CachedItem) -> ParsedEntry {
    let text = |s: &str| Some(crate::sanitize::strip_controls(s).trim().to_string()).filter(|s| !s.is_empty());
    let content = match item.content_type.as_deref() {
        Some(t) if t.starts_with("text/plain") => {
            text(&item.content).map(|t| format!("<pre>{}</pre>", crate::parse::escape_html(&t)))
        }
        _ => text(&item.content),
    };
    ParsedEntry {
        key: identity(item).key,
        title: text(&item.title),
        link: text(&item.url),
        authors: text(&item.author).into_iter().collect(),
        published: DateTime::from_timestamp(item.pub_date, 0),
        updated: None,
        content_html: content,
        summary_html: None,
        categories: Vec::new(),
        enclosures: item
            .enclosure_url
            .as_deref()
            .and_then(text)
            .map(|url| Enclosure { url, media_type: item.enclosure_type.as_deref().and_then(text), length: None })
            .into_iter()
            .collect(),
        comments: None,
        thumbnail: None,
    }
}

/// Whether the item carries a flag (newsboat's "flagged"): tidings stars it.
pub fn is_flagged(item: &CachedItem) -> bool {
    item.flags.chars().any(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(guid: &str, url: &str, title: &str) -> CachedItem {
        CachedItem {
            guid: guid.into(),
            url: url.into(),
            title: title.into(),
            pub_date: 1_749_549_600,
            ..Default::default()
        }
    }

    #[test]
    fn an_item_is_keyed_as_a_refresh_keys_it() {
        assert_eq!(identity(&item("a-1", "http://e.com/a/1/", "A")), Identity { key: "a-1".into(), aliases: vec![] });
        // No GUID, a date: newsboat wrote link + date; tidings keys it by its canonical link.
        let no_guid =
            item("http://e.com/a/2/?utm_source=xWed, 11 Jun 2025 10:00:00 GMT", "http://e.com/a/2/?utm_source=x", "B");
        assert_eq!(identity(&no_guid), Identity { key: "http://e.com/a/2".into(), aliases: vec![] });
        // A GUID that is the link: itself, or (no GUID, no date) the canonical link.
        let same = identity(&item("http://e.com/a/4/", "http://e.com/a/4/", "D"));
        assert_eq!(same, Identity { key: "http://e.com/a/4/".into(), aliases: vec!["http://e.com/a/4".into()] });
        let only_title = identity(&item("Five", "", "Five"));
        assert!(only_title.key.starts_with("hash:") && only_title.aliases.len() == 1, "{only_title:?}");
        assert_eq!(only_title.aliases[0], entry_key(None, None, Some("Five"), None));
    }

    #[test]
    fn a_flagged_item_is_starred_and_plain_text_stays_plain() {
        assert!(is_flagged(&CachedItem { flags: "s".into(), ..Default::default() }));
        assert!(!is_flagged(&CachedItem::default()));
        let e = entry(&CachedItem {
            content: "a < b\nnext".into(),
            content_type: Some("text/plain".into()),
            enclosure_url: Some("http://e.com/x.mp3".into()),
            enclosure_type: Some("audio/mpeg".into()),
            ..item("g", "http://e.com/g", "T\u{1b}[31m")
        });
        assert_eq!(e.content_html.as_deref(), Some("<pre>a &lt; b\nnext</pre>"));
        assert_eq!(e.title.as_deref(), Some("T"), "an escape sequence is stripped whole");
        assert_eq!(e.enclosures[0].media_type.as_deref(), Some("audio/mpeg"));
    }
}
