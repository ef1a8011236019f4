use super::*;
use crate::model::{Enclosure, NewFeed, ParsedEntry, UserWrite};
use crate::query::parse;
use crate::store::fixtures::fetched;
use crate::store::{apply, fetches, search};
use rusqlite::params_from_iter;

const NOW: i64 = 1_767_225_600;

/// Entries whose titles, authors, tags, media, dates and bodies vary over what rules look at.
fn generated(feed: usize, n: usize) -> Vec<ParsedEntry> {
    let titles = ["Sponsored: café deals", "Rust 1.90 released", "Ünïcode über alles", "Weekly news", ""];
    let authors = ["Jane Doe", "JANE DOE", "Zoë", "", "X"];
    let bodies = [
        "<p>Open source software in Rust</p>",
        "<p>Ads and <b>sponsored</b> links</p><script>rust</script>",
        "<p>東京都庁 news</p>",
        "<p>nothing to see</p>",
    ];
    (0..n)
        .map(|i| ParsedEntry {
            key: format!("{feed}-{i}"),
            title: Some(titles[i % titles.len()].to_string()).filter(|t| !t.is_empty()),
            link: Some(format!("https://site{}.example/post/{i}", i % 3)),
            authors: Some(authors[(i / 2) % authors.len()].to_string()).filter(|a| !a.is_empty()).into_iter().collect(),
            published: chrono::DateTime::from_timestamp(NOW - (i as i64 % 20) * 86_400 - 3600, 0),
            updated: None,
            content_html: Some(bodies[(i / 3) % bodies.len()].to_string()),
            summary_html: None,
            categories: match i % 4 {
                0 => vec!["Rust".into(), "news".into()],
                1 => vec!["Podcast".into()],
                _ => vec![],
            },
            enclosures: match i % 5 {
                0 => vec![Enclosure {
                    url: "http://x/a.mp3".into(),
                    media_type: Some("audio/mpeg".into()),
                    length: None,
                }],
                1 => vec![Enclosure { url: "http://x/v".into(), media_type: None, length: None }],
                // No type, but an address that says it (as many podcasts give it).
                2 => vec![Enclosure { url: "http://x/ep.M4A?dl=1".into(), media_type: None, length: None }],
                // A blank type (as SQLite's trim and Rust's agree on it), and one of a tab.
                3 => vec![
                    Enclosure { url: "http://x/c.ogg".into(), media_type: Some("  ".into()), length: None },
                    Enclosure { url: "http://x/d.mp4".into(), media_type: Some("\t".into()), length: None },
                ],
                _ => vec![],
            },
            comments: None,
            thumbnail: None,
        })
        .collect()
}

#[test]
fn sql_and_memory_agree_on_every_rule() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = crate::store::open_write(&dir.path().join("t.db")).unwrap();
    let feeds = [
        ("Hacker News", "https://hnrss.org/frontpage", vec!["Tech", "News"]),
        ("Le Café", "http://cafe.example/rss", vec![]),
        ("Rust Blog", "https://blog.rust-lang.org/feed.xml", vec!["Tech"]),
    ];
    let mut all: Vec<(i64, ParsedEntry, &str, &str, Option<String>)> = Vec::new();
    for (f, (title, url, folder)) in feeds.iter().enumerate() {
        let new = NewFeed {
            url: url.to_string(),
            title: None,
            name: None,
            site_url: None,
            folder: folder.iter().map(|s| s.to_string()).collect(),
        };
        let crate::model::Applied::Subscribed { feed_id, .. } = apply(&mut conn, &UserWrite::AddFeed(new), 0).unwrap()
        else {
            panic!()
        };
        let entries = generated(f, 40);
        fetches::save(&mut conn, feed_id, &fetched(title, entries.clone()), NOW).unwrap();
        for e in entries {
            let id: i64 = conn.query_row("SELECT id FROM entries WHERE key = ?1", [&e.key], |r| r.get(0)).unwrap();
            let path = (!folder.is_empty()).then(|| folder.join("/"));
            all.push((id, e, title, url, path));
        }
    }
    conn.execute("UPDATE entries SET read = id % 3 = 0, starred = id % 7 = 0", []).unwrap();
    search::index_pending(&mut conn, usize::MAX).unwrap();
    let rules = [
        "title ~ \"sponsored\"",
        "title ~ cafe",
        "title = \"weekly news\"",
        "title != \"weekly news\"",
        "title !~ rust",
        "author = \"jane doe\"",
        "author = \"X\" and feed ~ \"hn\"",
        "author ~ zoe or author = \"\"",
        "age < 7d and unread",
        "age > 10d or starred",
        "published > 2025-12-25",
        "published = 2025-12-29",
        "published <= 2025-12-20",
        "text ~ \"open source\"",
        "text ~ rust",
        "text ~ 東京",
        "text ~ sponsor*",
        "text !~ rust and not starred",
        "rust",
        "\"jane doe\"",
        "feed = \"Le Cafe\"",
        "feed ~ rust-lang",
        "folder = tech",
        "folder = \"Tech/News\"",
        "folder ~ news or folder = \"\"",
        "folder != tech",
        "url ~ site1",
        "tag = rust",
        "tag ~ pod",
        "tag != rust",
        "enclosure",
        "not enclosure",
        "enclosure ~ audio",
        "enclosure = \"audio/mpeg\" or read",
        "unread = no",
        "starred != yes",
        "(title ~ rust or tag = podcast) and not (unread or age < 3d)",
        "title ~ ÜBER or author = \"zoe\"",
        "author ~ ZOË and not title ~ \"café\"",
        "feed ~ \"LE CAFÉ\" or folder ~ NEWS",
        "tag != RUST and title !~ über",
    ];
    // Each entry read once, as ingest reads it, and judged by every rule in turn: what one rule folds or
    // splits into words is what the next reads (and must not change its answer).
    // Per entry: read, starred, its title and its author.
    type Fields = (bool, bool, Option<String>, Option<String>);
    let fields: Vec<Fields> = all
        .iter()
        .map(|(id, e, ..)| {
            let (read, starred): (bool, bool) = conn
                .query_row("SELECT read, starred FROM entries WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap();
            (read, starred, e.display_title(), (!e.authors.is_empty()).then(|| e.authors.join(", ")))
        })
        .collect();
    let entries: Vec<(i64, Entry<'_>)> = all
        .iter()
        .zip(&fields)
        .map(|((id, e, feed_title, feed_url, folder), (read, starred, title, author))| {
            let mut entry = Entry::new(feed_title, feed_url, folder.as_deref(), e.published.unwrap().timestamp());
            entry.title = title.as_deref();
            entry.author = author.as_deref();
            entry.link = e.link.as_deref();
            entry.tags = &e.categories;
            entry.enclosure_types = e.enclosures.iter().map(|x| x.kind().unwrap_or("")).collect();
            entry.unread = !read;
            entry.starred = *starred;
            entry.body_html = e.content_html.as_deref();
            (*id, entry)
        })
        .collect();
    for rule in rules {
        let query = parse(rule).unwrap();
        let compiled = compile(&conn, &query, NOW).unwrap();
        let sql = format!("SELECT e.id FROM entries e WHERE {} ORDER BY e.id", compiled.sql);
        let by_sql: Vec<i64> = conn
            .prepare(&sql)
            .unwrap()
            .query_map(params_from_iter(&compiled.params), |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let matcher = Matcher::new(&query);
        let mut in_memory: Vec<i64> =
            entries.iter().filter(|(_, entry)| matcher.matches(entry, NOW)).map(|(id, _)| *id).collect();
        in_memory.sort_unstable();
        assert_eq!(by_sql, in_memory, "{rule}: SQL and memory disagree ({})", compiled.sql);
        assert!(!by_sql.is_empty() && by_sql.len() < all.len(), "{rule} should split the entries: {}", by_sql.len());
    }
    // All the rules as one (kill rules at ingest): an entry any of them matches.
    let queries: Vec<Query> = rules.iter().map(|r| parse(r).unwrap()).collect();
    let any = Matcher::any(&queries);
    for (id, entry) in &entries {
        let each = queries.iter().any(|q| q.matches(entry, NOW));
        assert_eq!(any.matches(entry, NOW), each, "entry {id}");
    }
}

/// The ids of the entries stored ignored.
fn ignored_ids(conn: &Connection) -> Vec<i64> {
    let mut stmt = conn.prepare("SELECT id FROM entries WHERE ignored = 1 ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

fn id_of(conn: &Connection, key: &str) -> i64 {
    conn.query_row("SELECT id FROM entries WHERE key = ?1", [key], |r| r.get(0)).unwrap()
}

/// Stores entries as a sync does: not judged at ingest.
fn store(conn: &mut Connection, feed: crate::model::FeedId, entries: Vec<ParsedEntry>) {
    fetches::save(conn, feed, &fetched("Feed", entries), NOW).unwrap();
}

/// A refresh or a sync that updates a stored entry sets its `ignored` flag from a guess (unread, unstarred; a
/// sync: not ignored): the next judgement reads it again, so a hidden entry whose body changed stays hidden
/// and a starred one a rule spares stays shown.
#[test]
fn an_entry_whose_ignored_flag_an_update_guessed_is_judged_again() {
    let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
    let entry = |key: &str, title: &str, body: &str| crate::store::fixtures::entry(key, title, body, NOW);
    store(&mut conn, feed, vec![entry("a", "Sponsored", "<p>1</p>"), entry("b", "Sponsored too", "<p>1</p>")]);
    let (a, b) = (id_of(&conn, "a"), id_of(&conn, "b"));
    let rules = [parse("title ~ sponsored and not starred").unwrap()];
    apply(&mut conn, &UserWrite::SetStarred { ids: vec![crate::model::EntryId(b)], starred: true }, NOW).unwrap();
    assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (1, 0));
    // The bodies change: stored as a sync stores (not ignored) for `a`, as ingest guessed (ignored) for `b`.
    store(&mut conn, feed, vec![entry("a", "Sponsored", "<p>2</p>")]);
    conn.execute("UPDATE entries SET ignored = 1 WHERE id = ?1", [b]).unwrap();
    assert_eq!(ignored_ids(&conn), vec![b]);
    assert_eq!(apply_rules(&mut conn, &rules, NOW + 60).unwrap(), (1, 1));
    assert_eq!(ignored_ids(&conn), vec![a]);
}

/// Once the newest entries are deleted, the next ones stored take ids past theirs (never the freed ones, which
/// the judged mark already covers), and are judged as new.
#[test]
fn entries_stored_after_the_newest_were_deleted_are_judged() {
    let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
    let entry = |key: &str, title: &str| crate::store::fixtures::entry(key, title, "<p>b</p>", NOW);
    store(&mut conn, feed, vec![entry("a", "News"), entry("b", "More news"), entry("c", "Other")]);
    let rules = [parse("title ~ sponsored").unwrap()];
    assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (0, 0));
    let freed = id_of(&conn, "c");
    conn.execute("DELETE FROM entries WHERE id >= ?1", [id_of(&conn, "b")]).unwrap();
    store(&mut conn, feed, vec![entry("a", "News"), entry("d", "Sponsored"), entry("e", "Sponsored too")]);
    assert!(id_of(&conn, "d") > freed, "the freed ids were given again");
    assert_eq!(apply_rules(&mut conn, &rules, NOW + 60).unwrap(), (2, 0));
    assert_eq!(ignored_ids(&conn), vec![id_of(&conn, "d"), id_of(&conn, "e")]);
}

#[test]
fn unchanged_rules_do_not_judge_old_entries_again_but_changed_rules_judge_them_all() {
    let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
    let entry = |key: &str, title: &str| crate::store::fixtures::entry(key, title, "<p>b</p>", NOW - 86_400);
    store(&mut conn, feed, vec![entry("a", "Sponsored: VPN"), entry("b", "News"), entry("c", "A sponsored post")]);
    let rules = [parse("title ~ sponsored").unwrap()];
    assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (2, 0));
    // Behind the store's back, an old entry loses its judgement: only a judgement of every entry would see it.
    let a = id_of(&conn, "a");
    conn.execute("UPDATE entries SET ignored = 0 WHERE id = ?1", [a]).unwrap();
    conn.execute("DELETE FROM entries_unjudged", []).unwrap();
    assert_eq!(apply_rules(&mut conn, &rules, NOW + 60).unwrap(), (0, 0), "the same rules judged old entries");
    assert_eq!(ignored_ids(&conn), vec![id_of(&conn, "c")]);
    // New entries are judged (stored here unjudged, as a sync stores them), old ones still are not.
    store(&mut conn, feed, vec![entry("d", "SPONSORED again")]);
    assert_eq!(apply_rules(&mut conn, &rules, NOW + 120).unwrap(), (1, 0));
    assert_eq!(ignored_ids(&conn), vec![id_of(&conn, "c"), id_of(&conn, "d")]);
    // A rule changed: every entry is judged again.
    let changed = [parse("title ~ sponsored").unwrap(), parse("title = news").unwrap()];
    assert_eq!(apply_rules(&mut conn, &changed, NOW + 180).unwrap(), (2, 0));
    assert_eq!(ignored_ids(&conn), vec![a, id_of(&conn, "b"), id_of(&conn, "c"), id_of(&conn, "d")]);
    // No rules: everything shows again; the same rules as before: judged again, all of them.
    assert_eq!(apply_rules(&mut conn, &[], NOW + 240).unwrap(), (0, 4));
    assert_eq!(apply_rules(&mut conn, &rules, NOW + 300).unwrap(), (3, 0));
}

/// Marking entries read and indexing them note nothing for the next judgement unless the rules read flags or
/// text: with no kill rules (most people), or rules on titles only, they cost what they cost before.
#[test]
fn marks_and_indexing_are_noted_only_for_rules_that_read_them() {
    let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
    let entry = |key: &str| crate::store::fixtures::entry(key, "Post", "<p>b</p>", NOW);
    store(&mut conn, feed, vec![entry("a"), entry("b")]);
    let ids = vec![crate::model::EntryId(id_of(&conn, "a")), crate::model::EntryId(id_of(&conn, "b"))];
    let noted = |conn: &Connection| conn.query_row("SELECT count(*) FROM entries_unjudged", [], |r| r.get::<_, i64>(0));
    let mark = |conn: &mut Connection, read: bool| {
        apply(conn, &UserWrite::SetRead { ids: ids.clone(), read }, NOW).unwrap();
        search::index_pending(conn, usize::MAX).unwrap();
        noted(conn).unwrap()
    };
    for (rules, reads_marks) in [
        (vec![], false),
        (vec![parse("title ~ sponsored").unwrap()], false),
        (vec![parse("title ~ sponsored and unread").unwrap()], true),
    ] {
        apply_rules(&mut conn, &rules, NOW).unwrap();
        conn.execute("UPDATE entries SET search_indexed = 0", []).unwrap();
        assert_eq!(mark(&mut conn, true) > 0, reads_marks, "{rules:?}");
        apply_rules(&mut conn, &rules, NOW).unwrap();
        assert_eq!(mark(&mut conn, false) > 0, reads_marks, "{rules:?}");
    }
    // Rules that read the text note what the index reads.
    apply_rules(&mut conn, &[parse("text ~ giveaway").unwrap()], NOW).unwrap();
    conn.execute("UPDATE entries SET search_indexed = 0", []).unwrap();
    search::index_pending(&mut conn, usize::MAX).unwrap();
    assert_eq!(noted(&conn).unwrap(), 2);
}

#[test]
fn a_feed_renamed_changes_what_a_feed_rule_catches_among_old_entries() {
    let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
    store(&mut conn, feed, vec![crate::store::fixtures::entry("a", "Post", "<p>b</p>", NOW)]);
    let rules = [parse("feed = \"Noise\"").unwrap()];
    assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (0, 0));
    conn.execute("UPDATE feeds SET custom_title = 'Noise' WHERE id = ?1", [feed.0]).unwrap();
    assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (1, 0), "the rule now names this feed");
}

#[test]
fn entries_whose_flags_fields_or_indexed_text_changed_are_judged_again() {
    let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
    let entry = |key: &str, title: &str, body: &str| crate::store::fixtures::entry(key, title, body, NOW);
    store(&mut conn, feed, vec![entry("a", "Sponsored", "<p>x</p>"), entry("b", "Plain", "<p>a giveaway</p>")]);
    let (a, b) = (id_of(&conn, "a"), id_of(&conn, "b"));
    let rules = [parse("title ~ sponsored and not starred").unwrap()];
    assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (1, 0));
    apply(&mut conn, &UserWrite::SetStarred { ids: vec![crate::model::EntryId(a)], starred: true }, NOW).unwrap();
    assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (0, 1), "a starred entry is shown again");
    // A refresh that changes an entry's title: judged again.
    let changed = crate::store::fixtures::entry("b", "Sponsored now", "<p>a giveaway</p>", NOW);
    conn.execute("UPDATE entries SET ignored = 0", []).unwrap();
    store(&mut conn, feed, vec![entry("a", "Sponsored", "<p>x</p>"), changed]);
    assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (1, 0));
    assert_eq!(ignored_ids(&conn), vec![b]);
    // Rules that read the text judge an entry once the index has read it.
    let text = [parse("text ~ giveaway").unwrap()];
    assert_eq!(apply_rules(&mut conn, &text, NOW).unwrap(), (0, 0), "not indexed: each kept as it was");
    assert_eq!(ignored_ids(&conn), vec![b]);
    store(&mut conn, feed, vec![entry("c", "Plain", "<p>another giveaway</p>")]);
    assert_eq!(apply_rules(&mut conn, &text, NOW).unwrap(), (0, 0), "not indexed yet");
    search::index_pending(&mut conn, usize::MAX).unwrap();
    assert_eq!(apply_rules(&mut conn, &text, NOW).unwrap(), (1, 0), "indexed since");
    assert_eq!(ignored_ids(&conn), vec![b, id_of(&conn, "c")]);
}

#[test]
fn entries_that_age_past_a_rules_limit_are_judged_again_and_only_they_are_read() {
    let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
    let days = [1, 5, 9, 13, 29, 31, 40];
    let entries = days
        .iter()
        .map(|d| crate::store::fixtures::entry(&format!("d{d}"), "Post", "<p>b</p>", NOW - d * 86_400))
        .collect();
    store(&mut conn, feed, entries);
    let rules = [parse("age > 10d and age <= 30d").unwrap()];
    let caught = |conn: &Connection| -> Vec<i64> {
        let mut keys: Vec<i64> = ignored_ids(conn)
            .into_iter()
            .map(|id| {
                let key: String = conn.query_row("SELECT key FROM entries WHERE id = ?1", [id], |r| r.get(0)).unwrap();
                key[1..].parse().unwrap()
            })
            .collect();
        keys.sort_unstable();
        keys
    };
    apply_rules(&mut conn, &rules, NOW).unwrap();
    assert_eq!(caught(&conn), vec![13, 29]);
    // Two days later: 9 days old became 11 (caught), 29 became 31 (shown again), as judging all would say.
    assert_eq!(apply_rules(&mut conn, &rules, NOW + 2 * 86_400).unwrap(), (1, 1));
    assert_eq!(caught(&conn), vec![9, 13]);
    // Only the entries near a limit were read: one far from both, unjudged behind the store's back, stays.
    let far = id_of(&conn, "d13");
    conn.execute("UPDATE entries SET ignored = 0 WHERE id = ?1", [far]).unwrap();
    conn.execute("DELETE FROM entries_unjudged", []).unwrap();
    assert_eq!(apply_rules(&mut conn, &rules, NOW + 2 * 86_400 + 3600).unwrap(), (0, 0));
    assert_eq!(caught(&conn), vec![9]);
}

/// There is no index of every entry by date: a condition on dates is answered a range per feed from the index by
/// feed and date, never by reading every row, with or without the planner's statistics, however few entries
/// each feed has.
#[test]
fn a_condition_on_dates_seeks_each_feeds_dates_and_reads_no_other_row() {
    let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
    let entries =
        (0..30).map(|d| crate::store::fixtures::entry(&format!("d{d}"), "Post", "<p>b</p>", NOW - d * 86_400));
    store(&mut conn, feed, entries.collect());
    for n in 0..40 {
        let new = NewFeed {
            url: format!("https://site{n}.example/feed"),
            title: None,
            name: None,
            site_url: None,
            folder: vec![],
        };
        let crate::model::Applied::Subscribed { feed_id, .. } = apply(&mut conn, &UserWrite::AddFeed(new), 0).unwrap()
        else {
            panic!()
        };
        store(
            &mut conn,
            feed_id,
            vec![crate::store::fixtures::entry(&format!("f{n}"), "Post", "<p>b</p>", NOW - n * 3600)],
        );
    }
    let plans = |when: &str| {
        for query in
            ["age < 7d", "age >= 2w and unread", "published > 2025-12-01", "published = 2025-12-20 and title ~ post"]
        {
            let compiled = compile(&conn, &parse(query).unwrap(), NOW).unwrap();
            let sql = format!("SELECT e.id FROM entries e WHERE {}", compiled.sql);
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let plan: Vec<String> = stmt
                .query_map(params_from_iter(&compiled.params), |r| r.get::<_, String>(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let plan = plan.join("\n");
            assert!(plan.contains("entries_by_feed_date (feed_id=? AND sort_at"), "{when}, {query}: {plan}");
            assert!(!plan.contains("SCAN e"), "{when}, {query}: {plan}");
            // And the answer is the one the dates give.
            let mut stmt = conn.prepare(&sql).unwrap();
            let found = stmt.query_map(params_from_iter(&compiled.params), |r| r.get::<_, i64>(0)).unwrap().count();
            // The feed of 30 has one entry a day back from NOW (2026-01-01), the forty one an hour apart before it.
            let expected = match query {
                "age < 7d" => 7 + 40,
                "age >= 2w and unread" => 30 - 14,
                "published > 2025-12-01" => 30 + 40,
                _ => 1,
            };
            assert_eq!(found, expected, "{when}, {query}");
        }
    };
    plans("without statistics");
    // Statistics as of a large database of many short feeds (400,000 entries, four per feed), where SQLite would
    // not skip through the index by feed on its own.
    conn.execute_batch(
        "ANALYZE;
         UPDATE sqlite_stat1 SET stat = '400000' || substr(stat, instr(stat || ' ', ' ')) WHERE tbl = 'entries';
         UPDATE sqlite_stat1 SET stat = '400000 4 1 1 1' WHERE idx = 'entries_by_feed_date';
         ANALYZE sqlite_schema;",
    )
    .unwrap();
    plans("with the statistics of 400,000 entries in feeds of four");
}
