//! Fixtures for the store's own tests: a database with one feed, entries, and the record of a fetch.

use super::fetches::FetchRecord;
use crate::model::{Applied, FeedId, FeedKind, NewFeed, ParsedEntry, ParsedFeed, UserWrite};
use rusqlite::Connection;

/// A new database in a temporary folder, with one feed subscribed (nothing fetched yet).
pub(crate) fn one_feed() -> (tempfile::TempDir, Connection, FeedId) {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = super::open_write(&dir.path().join("t.db")).unwrap();
    let feed =
        NewFeed { url: "http://example.com/feed".into(), title: None, name: None, site_url: None, folder: vec![] };
    let Ok(Applied::Subscribed { feed_id: id, .. }) = super::apply(&mut conn, &UserWrite::AddFeed(feed), 0) else {
        panic!("subscribing to the fixture's feed")
    };
    (dir, conn, id)
}

/// An entry titled `title` with `body` as its content, published at `published` (seconds since the epoch).
pub(crate) fn entry(key: &str, title: &str, body: &str, published: i64) -> ParsedEntry {
    ParsedEntry {
        key: key.into(),
        title: Some(title.into()),
        link: None,
        authors: vec![],
        published: chrono::DateTime::from_timestamp(published, 0),
        updated: None,
        content_html: Some(body.into()),
        summary_html: None,
        categories: vec![],
        enclosures: vec![],
        comments: None,
        thumbnail: None,
    }
}

/// A fetch that brought the feed titled `title` with these entries.
pub(crate) fn fetched(title: &str, entries: Vec<ParsedEntry>) -> FetchRecord {
    FetchRecord::Fetched {
        status: 200,
        etag: None,
        last_modified: None,
        feed: Box::new(ParsedFeed {
            authors: vec![],
            kind: FeedKind::Rss2,
            title: Some(title.into()),
            link: None,
            description: None,
            entries,
            warnings: vec![],
            min_interval_secs: None,
            unkept: 0,
        }),
        decision: None,
        moved_to: None,
        min_interval_secs: None,
        ignored: vec![],
        cut_from: None,
        digest: None,
    }
}
