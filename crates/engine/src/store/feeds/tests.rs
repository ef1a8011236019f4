use super::*;

/// The query plan of a statement, one detail line each.
fn plan(conn: &Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let rows = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
    rows.collect::<Result<Vec<_>, _>>().unwrap().join("\n")
}

/// Subscribes to the feed at `url`.
fn subscribe(conn: &mut Connection, url: &str) -> FeedId {
    use crate::model::{Applied, NewFeed, UserWrite};
    let feed = NewFeed { url: url.into(), title: None, name: None, site_url: None, folder: vec![] };
    let Ok(Applied::Subscribed { feed_id, .. }) = crate::store::apply(conn, &UserWrite::AddFeed(feed), 0) else {
        panic!("subscribing to {url}")
    };
    feed_id
}

#[test]
fn unread_counts_and_entry_lists_use_indexes_not_scans() {
    let dir = tempfile::tempdir().unwrap();
    let conn = crate::store::open_write(&dir.path().join("t.db")).unwrap();
    let feeds = plan(
        &conn,
        &format!("{FOLDER_PATHS} SELECT {FEED_COLUMNS} FROM feeds f LEFT JOIN folders d ON d.id = f.folder_id"),
    );
    assert!(feeds.contains("INDEX entries_unread_by_feed"), "{feeds}");
    assert!(!feeds.contains("SCAN e"), "{feeds}");
    let entries = plan(&conn, "SELECT id FROM entries WHERE feed_id = 1 ORDER BY sort_at DESC, id DESC LIMIT 10");
    assert!(entries.contains("entries_by_feed_date") && !entries.contains("TEMP B-TREE"), "{entries}");
}

#[test]
fn a_feed_hidden_from_unread_is_left_out_of_the_unread_view_and_its_count_but_keeps_its_own() {
    use crate::model::{ListQuery, ListSource, Sort};
    use crate::store::fixtures::{entry, fetched, one_feed};
    let (_dir, mut conn, feed) = one_feed();
    let entries = vec![entry("a", "One", "x", 100), entry("b", "Two", "y", 200)];
    crate::store::fetches::save(&mut conn, feed, &fetched("Noisy", entries), 300).unwrap();
    let unread = |conn: &Connection| {
        let query = ListQuery { source: ListSource::Unread, sort: Sort::Newest, unread_only: false };
        (
            super::super::lists::entry_refs(conn, &query).unwrap().len(),
            super::super::lists::view_counts(conn).unwrap().unread,
        )
    };
    assert_eq!(unread(&conn), (2, 2));
    let hidden = FeedSettings { hide_from_unread: true, honour_ttl: true, ..Default::default() };
    apply_settings(&mut conn, &FeedSettings::default(), &[("http://example.com/feed".into(), hidden)]).unwrap();
    assert_eq!(unread(&conn), (0, 0), "hidden from the Unread view and its count");
    assert_eq!(unread_count(&conn, feed).unwrap(), 2, "its own row still counts");
    apply_settings(&mut conn, &FeedSettings::default(), &[]).unwrap();
    assert_eq!(unread(&conn), (2, 2), "a setting removed from the config is removed from the cache");
}

#[test]
fn a_session_writes_only_the_feeds_whose_settings_changed_in_the_config() {
    let (_dir, mut conn, own_feed) = crate::store::fixtures::one_feed();
    let other = subscribe(&mut conn, "http://example.org/other");
    let own =
        FeedSettings { hide_from_unread: true, refresh_minutes: Some(30), full_text: Some(true), ..Default::default() };
    let listed = vec![("http://example.com/feed".to_string(), own)];
    let default = FeedSettings { notify: true, honour_ttl: true, ..Default::default() };
    // Rows written by one session's start, and each feed's settings after it.
    let start = |conn: &mut Connection, default: &FeedSettings, listed: &[(String, FeedSettings)]| {
        let before = conn.total_changes();
        apply_settings(conn, default, listed).unwrap();
        conn.total_changes() - before
    };
    let settings = |conn: &Connection, feed: FeedId| -> (bool, bool, Option<u32>, bool, bool) {
        conn.query_row(
            "SELECT notify, hide_from_unread, refresh_minutes, honour_ttl, full_text FROM feeds WHERE id = ?1",
            [feed.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap()
    };
    assert_eq!(start(&mut conn, &default, &listed), 2, "the first start sets both feeds");
    assert_eq!(settings(&conn, own_feed), (false, true, Some(30), false, true), "its own settings");
    assert_eq!(settings(&conn, other), (true, false, None, true, false), "the default");
    assert_eq!(start(&mut conn, &default, &listed), 0, "the same config again: no row written");
    let quieter = FeedSettings { notify: false, ..default };
    assert_eq!(start(&mut conn, &quieter, &listed), 1, "a new default: only the feed without its own settings");
    assert_eq!(settings(&conn, other), (false, false, None, true, false));
    assert_eq!(settings(&conn, own_feed), (false, true, Some(30), false, true), "its own settings kept");
    assert_eq!(start(&mut conn, &quieter, &[]), 1, "its own settings gone from the config: it takes the default");
    assert_eq!(settings(&conn, own_feed), (false, false, None, true, true), "full text is the T key's then");
    assert_eq!(start(&mut conn, &quieter, &[]), 0);
}

#[test]
fn a_feed_is_due_after_its_own_interval_and_its_ttl_only_when_honoured() {
    use crate::store::fixtures::{fetched, one_feed};
    let (_dir, mut conn, feed) = one_feed();
    let mut record = fetched("Quarterly", vec![]);
    if let crate::store::fetches::FetchRecord::Fetched { min_interval_secs, .. } = &mut record {
        *min_interval_secs = Some(6 * 3600); // <ttl>360</ttl>
    }
    let at = 1_000_000;
    crate::store::fetches::save(&mut conn, feed, &record, at).unwrap();
    let hour = 3600;
    let due = |conn: &Connection, after: i64| due_feeds(conn, at + after, hour).unwrap() == vec![feed];
    let url = "http://example.com/feed".to_string();
    let set = |conn: &mut Connection, s: FeedSettings| {
        apply_settings(conn, &FeedSettings::default(), &[(url.clone(), s)]).unwrap();
    };
    set(&mut conn, FeedSettings { honour_ttl: true, ..Default::default() });
    assert!(!due(&conn, 2 * hour), "the feed's ttl (6 h) beats the interval (1 h)");
    assert!(due(&conn, 6 * hour));
    set(&mut conn, FeedSettings { honour_ttl: false, ..Default::default() });
    assert!(due(&conn, hour), "its ttl not honoured: the interval");
    assert!(!due(&conn, hour - 1));
    set(&mut conn, FeedSettings { honour_ttl: false, refresh_minutes: Some(15), ..Default::default() });
    assert!(due(&conn, 15 * 60), "its own 15 minutes, before the hour");
    assert!(!due(&conn, 15 * 60 - 1));
    set(&mut conn, FeedSettings { honour_ttl: false, refresh_minutes: Some(24 * 60), ..Default::default() });
    assert!(!due(&conn, 23 * hour), "once a day");
    assert!(due(&conn, 24 * hour));
}

#[test]
fn the_count_of_feeds_to_refresh_is_the_length_of_their_list_without_an_accounts() {
    let (_dir, mut conn, _) = crate::store::fixtures::one_feed();
    let two = subscribe(&mut conn, "http://example.com/two");
    assert_eq!((refresh_target_count(&conn).unwrap(), refresh_targets(&conn, None).unwrap().len()), (2, 2));
    // An account's feed is its server's to fetch.
    conn.execute("INSERT INTO accounts (id, name, kind, url, login) VALUES (1, 'Server', 'greader', 'u', 'me')", [])
        .unwrap();
    conn.execute("UPDATE feeds SET account_id = 1, remote_id = 'feed/2' WHERE id = ?1", [two.0]).unwrap();
    assert_eq!((refresh_target_count(&conn).unwrap(), refresh_targets(&conn, None).unwrap().len()), (1, 1));
}

#[test]
fn the_feeds_to_refresh_carry_their_own_tags_in_order() {
    let (_dir, mut conn, tagged) = crate::store::fixtures::one_feed();
    let plain = subscribe(&mut conn, "http://example.org/other");
    set_tags(&conn, tagged, &["Tech".into(), "Long Reads".into()]).unwrap();
    let tags_of = |targets: Vec<RefreshTarget>| -> Vec<(FeedId, Vec<String>)> {
        targets.into_iter().map(|t| (t.id, t.tags)).collect()
    };
    let both = vec![(tagged, vec!["Long Reads".to_string(), "Tech".to_string()]), (plain, vec![])];
    assert_eq!(tags_of(refresh_targets(&conn, None).unwrap()), both, "every feed");
    assert_eq!(tags_of(refresh_targets(&conn, Some(&[plain, tagged])).unwrap()), [both[1].clone(), both[0].clone()]);
}

/// What an account's feed points at may reach its server's networks, whatever address the server gives the
/// feed: a server saying a feed is at `http://169.254.169.254/` must not open the local network to its entries'
/// pictures, pages and files. A local feed's content reaches from its own address.
#[test]
fn an_accounts_feed_reaches_from_its_server_not_from_the_address_the_server_gives() {
    let (_dir, mut conn, local) = crate::store::fixtures::one_feed();
    let claimed = subscribe(&mut conn, "http://169.254.169.254/feed");
    conn.execute(
        "INSERT INTO accounts (id, name, kind, url, login) VALUES (1, 'Server', 'greader', 'https://sync.example/api', 'me')",
        [],
    )
    .unwrap();
    conn.execute("UPDATE feeds SET account_id = 1, remote_id = 'feed/2' WHERE id = ?1", [claimed.0]).unwrap();
    let row = feed(&conn, claimed).unwrap().unwrap();
    assert_eq!(
        (row.url.as_str(), row.content_of.as_str()),
        ("http://169.254.169.254/feed", "https://sync.example/api")
    );
    let own = feed(&conn, local).unwrap().unwrap();
    assert_eq!(own.content_of, own.url);
    // A page of one of its entries is fetched as far as the server's networks reach.
    conn.execute("INSERT INTO entries (feed_id, key, first_seen_at, sort_at) VALUES (?1, 'k', 0, 0)", [claimed.0])
        .unwrap();
    let entry = crate::model::EntryId(conn.last_insert_rowid());
    assert_eq!(super::super::articles::feed_url(&conn, entry).unwrap().as_deref(), Some("https://sync.example/api"));
}
