//! tidings's own model of a parsed feed and of what the store holds. The UI and the store never see feed-rs
//! types; the parser maps them into these.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// Row id of a subscription in the store.
pub type FeedId = i64;
/// Row id of an entry in the store.
pub type EntryId = i64;
/// Row id of a folder in the store.
pub type FolderId = i64;

/// The syndication format a document was parsed as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeedKind {
    Rss0,
    Rss1,
    Rss2,
    Atom,
    Json,
}

impl FeedKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FeedKind::Rss0 => "rss0",
            FeedKind::Rss1 => "rss1",
            FeedKind::Rss2 => "rss2",
            FeedKind::Atom => "atom",
            FeedKind::Json => "json",
        }
    }
}

/// A feed document after decoding and parsing: plain-text titles, absolute links, UTC dates.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedFeed {
    pub kind: FeedKind,
    pub title: Option<String>,
    /// The site the feed belongs to (its `<link>` / alternate link).
    pub link: Option<String>,
    pub description: Option<String>,
    pub entries: Vec<ParsedEntry>,
    /// Things that were repaired or looked wrong but did not stop the parse.
    pub warnings: Vec<String>,
    /// How often the feed asks to be fetched at most (`<ttl>`, `sy:updatePeriod`), in seconds.
    pub min_interval_secs: Option<u64>,
}

/// One entry of a parsed feed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedEntry {
    /// Identity within its feed: the GUID/id, else the link, else a hash of title and date.
    pub key: String,
    pub title: Option<String>,
    pub link: Option<String>,
    pub author: Option<String>,
    pub published: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    /// The richest body the entry has, as HTML.
    pub content_html: Option<String>,
    /// The short summary, as HTML, when the entry has one besides its content.
    pub summary_html: Option<String>,
    /// Categories and tags, plain text.
    pub categories: Vec<String>,
    /// Attached media: podcast episodes, videos, images.
    pub enclosures: Vec<Enclosure>,
    /// Where the entry's comments are.
    pub comments: Option<String>,
    /// An image that stands for the entry.
    pub thumbnail: Option<String>,
}

/// A file attached to an entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Enclosure {
    pub url: String,
    pub media_type: Option<String>,
    pub length: Option<u64>,
}

/// A subscription to add: what OPML import and `tidings add` produce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewFeed {
    pub url: String,
    pub title: Option<String>,
    pub site_url: Option<String>,
    /// Folder path ("Tech/Rust" for nested outlines); `None` for the top level.
    pub folder: Option<String>,
}
