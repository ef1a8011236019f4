use super::*;
use crate::model::{EntryId, FeedKind, ParsedEntry, UserWrite};
use crate::store::{apply, feeds, fixtures};
use tokio::sync::oneshot;

fn entry(key: &str, title: &str) -> ParsedEntry {
    ParsedEntry {
        key: key.into(),
        title: Some(title.into()),
        link: Some(format!("http://example.com/{key}")),
        authors: vec![],
        published: chrono::DateTime::from_timestamp(1_700_000_000, 0),
        updated: None,
        content_html: Some("<p>body</p>".into()),
        summary_html: None,
        categories: vec!["news".into()],
        enclosures: vec![],
        comments: None,
        thumbnail: None,
    }
}

pub(super) fn fetched(entries: Vec<ParsedEntry>) -> FetchRecord {
    FetchRecord::Fetched {
        status: 200,
        etag: Some("\"v1\"".into()),
        last_modified: None,
        feed: Box::new(ParsedFeed {
            kind: FeedKind::Rss2,
            title: Some("Feed".into()),
            link: None,
            description: None,
            authors: vec![],
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

fn setup() -> (tempfile::TempDir, Connection, FeedId) {
    fixtures::one_feed()
}

/// A batch is stored in one transaction without savepoints; when one of its feeds cannot be stored, the
/// others still are (each again in a transaction of its own), and of that one nothing is kept: not even the rows
/// its insert of several entries stored before it stopped (`OR FAIL` keeps them in the transaction).
#[test]
fn a_batch_with_a_feed_that_cannot_be_stored_stores_the_others_and_nothing_of_it_and_gives_each_record_back() {
    let (_dir, mut conn, first) = setup();
    let mut ids = vec![first];
    for n in 2..=3 {
        let feed = crate::model::NewFeed {
            url: format!("http://example.com/feed{n}"),
            title: None,
            name: None,
            site_url: None,
            folder: vec![],
        };
        let Ok(crate::model::Applied::Subscribed { feed_id, .. }) = apply(&mut conn, &UserWrite::AddFeed(feed), 0)
        else {
            panic!("subscribing")
        };
        ids.push(feed_id);
    }
    conn.execute_batch(
        "CREATE TRIGGER poison BEFORE INSERT ON entries WHEN NEW.key = 'poison'
         BEGIN SELECT RAISE(FAIL, 'poisoned entry'); END;",
    )
    .unwrap();
    let records = [
        fetched(vec![entry("a", "A"), entry("b", "B")]),
        fetched(vec![entry("fine", "Fine"), entry("also", "Also"), entry("poison", "Poison"), entry("z", "Z")]),
        fetched(vec![entry("c", "C")]),
    ];
    let mut answers = Vec::new();
    let batch = ids
        .iter()
        .zip(records)
        .map(|(id, record)| {
            let (saved, answer) = oneshot::channel();
            answers.push(answer);
            PendingWrite { feed_id: *id, record, attempt: Attempt::default(), at: std::time::Instant::now(), saved }
        })
        .collect();
    write_batch(&mut conn, batch);
    let answers: Vec<(Result<ApplyOutcome, String>, FetchRecord)> =
        answers.into_iter().map(|mut a| a.try_recv().expect("every feed is answered")).collect();
    // Each record comes back with its answer, to be freed by the task that waits for it rather than by the writer.
    let given_back: Vec<usize> = answers
        .iter()
        .map(|(_, record)| match record {
            FetchRecord::Fetched { feed, .. } => feed.entries.len(),
            _ => 0,
        })
        .collect();
    assert_eq!(given_back, [2, 4, 1]);
    let answers: Vec<Result<ApplyOutcome, String>> = answers.into_iter().map(|(answer, _)| answer).collect();
    assert_eq!(answers[0].as_ref().map(|o| o.new), Ok(2));
    assert!(answers[1].as_ref().is_err_and(|e| e.contains("poisoned entry")), "{:?}", answers[1]);
    assert_eq!(answers[2].as_ref().map(|o| o.new), Ok(1));
    let count = |id: FeedId| -> (i64, Option<String>) {
        conn.query_row(
            "SELECT (SELECT count(*) FROM entries WHERE feed_id = ?1), etag FROM feeds WHERE id = ?1",
            [id.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    };
    assert_eq!(count(ids[0]), (2, Some("\"v1\"".into())));
    assert_eq!(count(ids[1]), (0, None), "nothing of the feed that could not be stored");
    assert_eq!(count(ids[2]), (1, Some("\"v1\"".into())));
}

#[test]
fn a_second_refresh_of_the_same_feed_adds_no_duplicate() {
    let (_dir, mut conn, id) = setup();
    let record = fetched(vec![entry("a", "A"), entry("b", "B")]);
    let first = save(&mut conn, id, &record, 10).unwrap();
    assert_eq!((first.new, first.updated, first.unread), (2, 0, 2));
    let second = save(&mut conn, id, &record, 20).unwrap();
    assert_eq!((second.new, second.updated, second.unread), (0, 0, 2));
    assert_eq!(super::super::entries::of_feed(&conn, id).unwrap().len(), 2);
}

/// A feed's first fetch inserts without looking each key up: a key its document lists twice is still one
/// entry, with the fields of its last listing, counted new once and updated once.
/// A refresh said "3 new" when a kill rule hid one of them: the hidden entry is stored, not counted new.
#[test]
fn an_entry_a_kill_rule_hides_is_stored_but_not_counted_new() {
    let (_dir, mut conn, id) = setup();
    let mut record = fetched(vec![entry("a", "A"), entry("b", "Sponsored"), entry("c", "C")]);
    if let FetchRecord::Fetched { ignored, .. } = &mut record {
        *ignored = vec![1];
    }
    let outcome = save(&mut conn, id, &record, 10).unwrap();
    assert_eq!((outcome.new, outcome.unread), (2, 2));
    assert_eq!(super::super::entries::of_feed(&conn, id).unwrap().len(), 3, "the hidden entry is kept");
}

#[test]
fn a_first_fetch_that_lists_a_key_twice_stores_it_once() {
    let (_dir, mut conn, id) = setup();
    let record = fetched(vec![entry("a", "First"), entry("b", "B"), entry("a", "Second")]);
    let outcome = save(&mut conn, id, &record, 10).unwrap();
    assert_eq!((outcome.new, outcome.updated), (2, 1));
    let stored = super::super::entries::of_feed(&conn, id).unwrap();
    let mut titles: Vec<_> = stored.iter().map(|e| e.title.as_deref().unwrap_or("")).collect();
    titles.sort();
    assert_eq!(titles, ["B", "Second"]);
}

/// Defect 3 of issue 21: a feed that lists more than a refresh keeps says so, in the refresh's outcome and in
/// its feed info, instead of silently keeping the first 5,000.
#[test]
fn a_feed_longer_than_a_refresh_keeps_says_how_many_it_listed() {
    let (_dir, mut conn, id) = setup();
    let listed = MAX_ENTRIES_PER_REFRESH + 1;
    let many: Vec<ParsedEntry> = (0..listed).map(|i| entry(&format!("k{i}"), &format!("E {i}"))).collect();
    let outcome = save(&mut conn, id, &fetched(many), 10).unwrap();
    assert_eq!((outcome.new, outcome.cut_from), (MAX_ENTRIES_PER_REFRESH, Some(listed)));
    let info = feeds::feed_info(&conn, id).unwrap().unwrap();
    assert_eq!(info.warnings, [cut_warning(listed)]);
    assert!(info.warnings[0].starts_with("the feed lists 5001 entries; tidings keeps the first 5000"));
    let outcome = save(&mut conn, id, &fetched(vec![entry("k0", "E 0")]), 20).unwrap();
    assert_eq!(outcome.cut_from, None);
    assert!(feeds::feed_info(&conn, id).unwrap().unwrap().warnings.is_empty(), "a shorter fetch clears it");
}

/// The same 20 entries under new ids on every fetch (what the attack's feed did): 20 entries stored after six
/// refreshes, not 120, the read marks kept, and the feed info counting the rotations.
#[test]
fn a_feed_that_changes_its_ids_on_every_fetch_keeps_its_entries_and_their_marks() {
    let (_dir, mut conn, id) = setup();
    let generation = |g: usize| -> Vec<ParsedEntry> {
        (0..20)
            .map(|i| ParsedEntry {
                key: format!("urn:uuid:{g}-{i}"),
                link: Some(format!("http://example.com/post/{i}?utm_source=rss&utm_campaign={g}")),
                ..entry(&format!("p{i}"), &format!("Post {i}"))
            })
            .collect()
    };
    save(&mut conn, id, &fetched(generation(0)), 10).unwrap();
    let first: Vec<EntryId> = super::super::entries::of_feed(&conn, id).unwrap().iter().map(|e| e.id).collect();
    apply(&mut conn, &UserWrite::SetRead { ids: first[..5].to_vec(), read: true }, 0).unwrap();
    apply(&mut conn, &UserWrite::SetStarred { ids: vec![first[7]], starred: true }, 0).unwrap();
    for g in 1..6 {
        let outcome = save(&mut conn, id, &fetched(generation(g)), 10 + g as i64).unwrap();
        assert_eq!(outcome.new, 0, "refresh {g}: nothing new");
    }
    let now: Vec<EntryId> = super::super::entries::of_feed(&conn, id).unwrap().iter().map(|e| e.id).collect();
    assert_eq!(now.len(), 20, "20 entries after six refreshes");
    assert_eq!(feeds::unread_count(&conn, id).unwrap(), 15, "the five read ones stay read");
    let starred: i64 = conn.query_row("SELECT count(*) FROM entries WHERE starred = 1", [], |r| r.get(0)).unwrap();
    assert_eq!(starred, 1);
    let info = feeds::feed_info(&conn, id).unwrap().unwrap();
    assert_eq!(info.id_rotations, 100, "20 entries × 5 refreshes known again by link and title");
    // Known by the new ids from now on.
    let keys: i64 =
        conn.query_row("SELECT count(*) FROM entries WHERE key LIKE 'urn:uuid:5-%'", [], |r| r.get(0)).unwrap();
    assert_eq!(keys, 20);
}

/// A post the document still lists is no twin: a new one alike beside it (same title, link and date) is an
/// entry of its own.
#[test]
fn a_listed_entry_is_no_twin_of_a_new_one_alike() {
    let (_dir, mut conn, id) = setup();
    let post = |key: &str| ParsedEntry { link: Some("http://example.com/weekly".into()), ..entry(key, "Weekly links") };
    assert_eq!(save(&mut conn, id, &fetched(vec![post("w1")]), 10).unwrap().new, 1);
    assert_eq!(save(&mut conn, id, &fetched(vec![post("w1"), post("w2")]), 20).unwrap().new, 1);
    assert_eq!(super::super::entries::of_feed(&conn, id).unwrap().len(), 2);
    assert_eq!(feeds::feed_info(&conn, id).unwrap().unwrap().id_rotations, 0);
}

/// Two posts with the same title and link are two entries when both are listed, when their dates differ, or
/// when the link is only the feed's site.
#[test]
fn entries_alike_in_title_and_link_stay_apart_when_they_are_not_one() {
    let (_dir, mut conn, id) = setup();
    let weekly = |key: &str, link: &str, day: i64| ParsedEntry {
        link: Some(link.into()),
        published: chrono::DateTime::from_timestamp(1_700_000_000 + day * 86_400, 0),
        ..entry(key, "Weekly links")
    };
    // Both in one document.
    let both = vec![weekly("w1", "http://example.com/weekly", 0), weekly("w2", "http://example.com/weekly", 0)];
    assert_eq!(save(&mut conn, id, &fetched(both), 10).unwrap().new, 2);
    // A new week, its predecessor gone from the document: another date, another entry.
    let next = vec![weekly("w3", "http://example.com/weekly", 7)];
    assert_eq!(save(&mut conn, id, &fetched(next), 20).unwrap().new, 1);
    // The feed's own site as every entry's link, no dates: not an identity.
    conn.execute("UPDATE feeds SET site_url = 'http://example.com/' WHERE id = ?1", [id.0]).unwrap();
    let undated =
        |key: &str| ParsedEntry { link: Some("http://example.com/".into()), published: None, ..entry(key, "News") };
    assert_eq!(save(&mut conn, id, &fetched(vec![undated("n1")]), 30).unwrap().new, 1);
    assert_eq!(save(&mut conn, id, &fetched(vec![undated("n2")]), 40).unwrap().new, 1);
    let info = feeds::feed_info(&conn, id).unwrap().unwrap();
    assert_eq!(info.id_rotations, 0);
}

#[test]
fn a_changed_entry_is_updated_and_keeps_its_read_flag() {
    let (_dir, mut conn, id) = setup();
    save(&mut conn, id, &fetched(vec![entry("a", "A")]), 10).unwrap();
    let entry_id = super::super::entries::of_feed(&conn, id).unwrap()[0].id;
    apply(&mut conn, &UserWrite::SetRead { ids: vec![entry_id], read: true }, 0).unwrap();
    let outcome = save(&mut conn, id, &fetched(vec![entry("a", "A, corrected")]), 20).unwrap();
    assert_eq!((outcome.new, outcome.updated, outcome.unread), (0, 1, 0));
    let detail = super::super::entries::entry(&conn, entry_id).unwrap().unwrap();
    assert_eq!(detail.title.as_deref(), Some("A, corrected"));
    assert!(detail.read);
}

/// An entry is compared with what is stored field by field: each field changed alone makes it updated (stored
/// as it reads now), and the same entry again changes nothing.
#[test]
fn an_entry_is_updated_when_any_one_of_its_fields_changed_and_only_then() {
    type Change = fn(&mut ParsedEntry);
    let changes: [(&str, Change); 11] = [
        ("title", |e| e.title = Some("A, corrected".into())),
        ("link", |e| e.link = Some("http://example.com/moved".into())),
        ("author", |e| e.authors = vec!["Ann".into()]),
        ("published", |e| e.published = chrono::DateTime::from_timestamp(1_700_000_001, 0)),
        ("updated", |e| e.updated = chrono::DateTime::from_timestamp(1_700_000_002, 0)),
        ("content", |e| e.content_html = Some("<p>body, longer</p>".into())),
        ("summary", |e| e.summary_html = Some("<p>summary</p>".into())),
        ("categories", |e| e.categories.push("rust".into())),
        ("enclosures", |e| {
            e.enclosures.push(crate::model::Enclosure {
                url: "http://example.com/a.mp3".into(),
                media_type: None,
                length: None,
            });
        }),
        ("comments", |e| e.comments = Some("http://example.com/a#comments".into())),
        ("thumbnail", |e| e.thumbnail = Some("http://example.com/a.png".into())),
    ];
    let (_dir, mut conn, id) = setup();
    let mut current = entry("a", "A");
    save(&mut conn, id, &fetched(vec![current.clone()]), 10).unwrap();
    for (now, (field, change)) in (20..).step_by(10).zip(changes) {
        let outcome = save(&mut conn, id, &fetched(vec![current.clone()]), now).unwrap();
        assert_eq!((outcome.new, outcome.updated), (0, 0), "nothing changed before the {field}");
        change(&mut current);
        let outcome = save(&mut conn, id, &fetched(vec![current.clone()]), now + 5).unwrap();
        assert_eq!((outcome.new, outcome.updated), (0, 1), "the {field} changed");
    }
    let detail = &super::super::entries::of_feed(&conn, id).unwrap()[0];
    assert_eq!(detail.title.as_deref(), Some("A, corrected"));
}

#[test]
fn a_failure_keeps_entries_and_validators_and_records_the_error() {
    let (_dir, mut conn, id) = setup();
    save(&mut conn, id, &fetched(vec![entry("a", "A")]), 10).unwrap();
    let failed = FetchRecord::Failed {
        status: Some(500),
        kind: ErrorKind::Http,
        message: "HTTP 500".into(),
        retry_after_secs: None,
    };
    let outcome = save(&mut conn, id, &failed, 20).unwrap();
    assert_eq!(outcome.unread, 1);
    let row = feeds::feed(&conn, id).unwrap().unwrap();
    assert_eq!(row.last_error.as_deref(), Some("HTTP 500"));
    assert_eq!(row.last_status, Some(500));
    let target = &feeds::refresh_targets(&conn, Some(&[id])).unwrap()[0];
    assert_eq!(target.etag.as_deref(), Some("\"v1\""));
}

#[test]
fn failures_back_off_and_a_server_can_ask_for_longer() {
    let (_dir, mut conn, id) = setup();
    let fail = |retry_after_secs| FetchRecord::Failed {
        status: Some(503),
        kind: ErrorKind::Http,
        message: "HTTP 503".into(),
        retry_after_secs,
    };
    assert_eq!(save(&mut conn, id, &fail(None), 1000).unwrap().retry_at, None, "one failure may be a blip");
    assert_eq!(save(&mut conn, id, &fail(None), 2000).unwrap().retry_at, Some(2300));
    assert_eq!(save(&mut conn, id, &fail(None), 3000).unwrap().retry_at, Some(3600));
    assert_eq!(save(&mut conn, id, &fail(Some(7200)), 4000).unwrap().retry_at, Some(11_200));
    assert_eq!(backoff_secs(40), 86_400);
    // Success clears it all.
    save(&mut conn, id, &fetched(vec![]), 5000).unwrap();
    let (failures, retry): (i64, Option<i64>) = conn
        .query_row("SELECT failures, retry_at FROM feeds WHERE id = ?1", [id.0], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((failures, retry), (0, None));
}

#[test]
fn gone_marks_a_feed_dead_and_waits_a_day_and_a_permanent_move_is_only_proposed() {
    let (_dir, mut conn, id) = setup();
    let gone = FetchRecord::Failed {
        status: Some(410),
        kind: ErrorKind::Http,
        message: "HTTP 410".into(),
        retry_after_secs: None,
    };
    let outcome = save(&mut conn, id, &gone, 10).unwrap();
    assert!(outcome.dead);
    assert_eq!(outcome.retry_at, Some(10 + MAX_BACKOFF_SECS), "gone is tried again in a day, never given up on");
    let mut moved = fetched(vec![]);
    if let FetchRecord::Fetched { moved_to, .. } = &mut moved {
        *moved_to = Some("http://example.com/new-feed".into());
    }
    let proposals: Vec<Option<String>> =
        (0..4).map(|i| save(&mut conn, id, &moved, 20 + i).unwrap().moved_to).collect();
    assert_eq!(proposals, vec![None, None, Some("http://example.com/new-feed".into()), None], "proposed once");
    let (url, dead): (String, bool) =
        conn.query_row("SELECT url, dead FROM feeds WHERE id = ?1", [id.0], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!((url.as_str(), dead), ("http://example.com/feed", false), "the address stays until accepted");
}

#[test]
fn entries_sort_newest_first_and_undated_ones_by_first_seen() {
    let (_dir, mut conn, id) = setup();
    let mut old = entry("old", "Old");
    old.published = chrono::DateTime::from_timestamp(1_000, 0);
    let mut undated = entry("undated", "Undated");
    undated.published = None;
    save(&mut conn, id, &fetched(vec![old, entry("new", "New"), undated]), 2_000_000_000).unwrap();
    let titles: Vec<_> =
        super::super::entries::of_feed(&conn, id).unwrap().into_iter().map(|e| e.title.unwrap()).collect();
    assert_eq!(titles, vec!["Undated", "New", "Old"]);
}

/// Issue 35: a script's cursor is the largest entry id it has seen. When the newest entries go (their feed
/// removed), the next entry stored must still take an id past them, or the script would never see it; and the
/// mark survives the database being closed and opened again.
#[test]
fn an_entry_stored_after_the_newest_were_deleted_never_takes_their_ids() {
    let (dir, mut conn, first) = setup();
    save(&mut conn, first, &fetched(vec![entry("a", "A")]), 10).unwrap();
    let feed = crate::model::NewFeed {
        url: "http://example.com/second".into(),
        title: None,
        name: None,
        site_url: None,
        folder: vec![],
    };
    let Ok(crate::model::Applied::Subscribed { feed_id: second, .. }) = apply(&mut conn, &UserWrite::AddFeed(feed), 0)
    else {
        panic!("subscribing")
    };
    save(&mut conn, second, &fetched(vec![entry("b", "B"), entry("c", "C")]), 20).unwrap();
    let newest: i64 = conn.query_row("SELECT max(id) FROM entries", [], |r| r.get(0)).unwrap();
    apply(&mut conn, &UserWrite::DeleteFeed(second), 30).unwrap();
    let left: i64 = conn.query_row("SELECT max(id) FROM entries", [], |r| r.get(0)).unwrap();
    assert!(left < newest, "the removed feed held the newest entries");
    drop(conn);
    let mut conn = crate::store::open_write(&dir.path().join("t.db")).unwrap();
    save(&mut conn, first, &fetched(vec![entry("a", "A"), entry("d", "D")]), 40).unwrap();
    let d: i64 = conn.query_row("SELECT id FROM entries WHERE key = 'd'", [], |r| r.get(0)).unwrap();
    assert_eq!(d, newest + 1, "the new entry's id is past every id ever given");
}

/// A 304 changes nothing the feed lists: its store is one update of the feed (validators and health together)
/// and its history, and it reads neither the unread count nor the title again.
#[test]
fn a_not_modified_answer_is_stored_with_one_update_of_its_feed_and_reads_no_entry() {
    let (_dir, mut conn, feed) = setup();
    save(&mut conn, feed, &fetched(vec![entry("a", "A")]), 1).unwrap();
    let record = FetchRecord::NotModified { etag: Some("\"v2\"".into()), last_modified: None, moved_to: None };
    let attempt = Attempt { bytes: None, duration_ms: 3 };
    let said = statements_of(&mut conn, |conn| {
        let (saved, answer) = oneshot::channel();
        write_batch(conn, vec![PendingWrite { feed_id: feed, record, attempt, at: std::time::Instant::now(), saved }]);
        answer.blocking_recv().unwrap().0.unwrap();
    });
    let on_feeds: Vec<&String> = said.iter().filter(|sql| sql.contains(" feeds ")).collect();
    assert_eq!(on_feeds.len(), 1, "one statement on the feed: {said:#?}");
    assert!(on_feeds[0].starts_with("UPDATE feeds SET etag"), "{said:#?}");
    assert!(!said.iter().any(|sql| sql.contains("FROM entries")), "no entry read: {said:#?}");
    let (etag, status): (String, i64) = conn
        .query_row("SELECT etag, last_status FROM feeds WHERE id = ?1", [feed.0], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((etag.as_str(), status), ("\"v2\"", 304));
    let attempts: i64 =
        conn.query_row("SELECT count(*) FROM fetch_attempts WHERE feed_id = ?1", [feed.0], |r| r.get(0)).unwrap();
    assert_eq!(attempts, 1, "the 304 is in the feed's history");
}

mod first_fetch;
mod statements;
use statements::statements_of;
