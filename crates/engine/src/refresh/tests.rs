//! The refresher's own tests: kill rules at storing, the order by host, the totals.

use super::*;
use crate::model::Skip;

fn target(id: i64, url: &str) -> RefreshTarget {
    RefreshTarget {
        id: FeedId(id),
        url: url.into(),
        title: url.into(),
        etag: None,
        last_modified: None,
        encoding_override: None,
        retry_at: None,
        dead: false,
        paused: false,
        folder: None,
        tags: vec![],
        document_digest: None,
    }
}

#[test]
fn kill_rules_pick_the_new_entries_they_match_and_the_store_keeps_them_hidden() {
    let rules = crate::query::Matcher::any(&[
        crate::query::parse("title ~ sponsored").unwrap(),
        crate::query::parse("author = x and folder = tech").unwrap(),
        crate::query::parse("feedtag = \"Long Reads\" and author = Jane").unwrap(),
    ]);
    let entry = |key: &str, title: &str, author: &str| crate::model::ParsedEntry {
        authors: vec![author.to_string()],
        ..crate::store::fixtures::entry(key, title, "<p>b</p>", 1_700_000_000)
    };
    let entries = vec![
        entry("a", "Sponsored: VPN", "Jane"),
        entry("b", "News", "X"),
        entry("c", "News", "Jane"),
        entry("d", "A SPONSORED post", "X"),
    ];
    let feed = ("Feed".to_string(), "http://example.com/feed".to_string(), Some("Tech/Rust".to_string()), vec![]);
    assert_eq!(ignored_entries(&rules, &entries, &feed), vec![0, 1, 3]);
    let elsewhere = (feed.0.clone(), feed.1.clone(), Some("News".to_string()), vec![]);
    assert_eq!(ignored_entries(&rules, &entries, &elsewhere), vec![0, 3]);
    // A rule by the feed's tag judges at storing too.
    let tagged = (feed.0.clone(), feed.1, Some("News".to_string()), vec!["Long Reads".to_string()]);
    assert_eq!(ignored_entries(&rules, &entries, &tagged), vec![0, 2, 3]);
    // Stored as they arrive: hidden from the feed's unread count and its list at once.
    let (_dir, mut conn, id) = crate::store::fixtures::one_feed();
    let mut record = crate::store::fixtures::fetched("Feed", entries);
    if let FetchRecord::Fetched { ignored, .. } = &mut record {
        *ignored = vec![0, 1, 3];
    }
    let outcome = crate::store::fetches::save(&mut conn, id, &record, 1).unwrap();
    // The hidden ones are not new either: a refresh's message never counts them (issue 36).
    assert_eq!((outcome.new, outcome.unread), (1, 1));
    let list = crate::model::ListQuery {
        source: crate::model::ListSource::Feed(id),
        sort: crate::model::Sort::Newest,
        unread_only: false,
    };
    assert_eq!(crate::store::lists::entry_refs(&conn, &list).unwrap().len(), 1);
}

#[test]
fn work_is_interleaved_by_host_keeping_each_hosts_order() {
    let targets = vec![
        target(1, "http://big.example/1"),
        target(2, "http://big.example/2"),
        target(3, "http://BIG.example:8080/3"),
        target(4, "http://a.example/4"),
        target(5, "https://b.example/5"),
        target(6, "http://a.example/6"),
        target(7, "not a url"),
    ];
    let order: Vec<i64> = interleave_by_host(targets).iter().map(|t| t.id.0).collect();
    assert_eq!(order, vec![1, 4, 5, 7, 2, 6, 3]);
}

#[test]
fn a_summary_counts_each_final_event_once() {
    let mut summary = Summary::default();
    summary.count(RefreshEvent::Started { feed_id: FeedId(1) });
    summary.count(RefreshEvent::Done {
        feed_id: FeedId(1),
        new: 3,
        updated: 0,
        unread: 3,
        title: "A".into(),
        moved_to: Some("http://a.example/new".into()),
        cut_from: None,
    });
    summary.count(RefreshEvent::NotModified { feed_id: FeedId(2), title: "F2".into(), moved_to: None });
    summary.count(FeedName { id: FeedId(3), title: "C".into(), url: "http://c.example/".into() }.failed(STOPPED));
    summary.count(RefreshEvent::Skipped { feed_id: FeedId(4), title: "D".into(), reason: Skip::Waiting { until: 5 } });
    // Redirected for good, and nothing changed there: the move counts all the same.
    let moved = Some("http://e.example/new".to_string());
    summary.count(RefreshEvent::NotModified { feed_id: FeedId(5), title: "E".into(), moved_to: moved });
    assert_eq!((summary.feeds, summary.updated_feeds, summary.not_modified, summary.new_entries), (5, 1, 2, 3));
    assert_eq!((summary.failed.len(), summary.skipped.len()), (1, 1));
    assert_eq!(
        summary.moved,
        vec![
            ("A".to_string(), "http://a.example/new".to_string()),
            ("E".to_string(), "http://e.example/new".to_string())
        ]
    );
}
