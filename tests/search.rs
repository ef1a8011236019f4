//! Search and lists of any size, end to end: feeds served from 127.0.0.1, imported with folders and refreshed
//! by the real binary, searched with `tidings search`; lists read from a 20,000-entry farm.

mod support;

use support::farm::{self, FarmSpec};
use support::server::{Reply, Server};
use support::{Sandbox, opml, stderr, stdout};
use tidings::model::{ListQuery, ListSource, Sort, UserWrite};
use tidings::store::{self, entries, feeds, lists};

/// An RSS feed whose items carry their own dates: `(guid, title, body, RFC 822 date)`.
fn dated_rss(title: &str, items: &[(&str, &str, &str, &str)]) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel><title>{title}</title>\
         <link>http://example.com/</link><description>test</description>\n"
    );
    for (guid, item_title, body, date) in items {
        xml.push_str(&format!(
            "<item><guid>{guid}</guid><title>{item_title}</title><link>http://example.com/{guid}</link>\
             <pubDate>{date}</pubDate><description><![CDATA[{body}]]></description></item>\n"
        ));
    }
    xml.push_str("</channel></rss>\n");
    xml
}

const RECENT: &str = "Tue, 10 Jun 2025 10:00:00 GMT";

/// Feeds in several folders and languages, imported and refreshed: (sandbox, server).
fn subscribed() -> (Sandbox, Server) {
    let server = Server::start();
    let feeds = [
        (
            "News",
            "Daily News",
            "/news.xml",
            dated_rss(
                "Daily News",
                &[
                    ("n1", "Open source wins", "<p>An open source project shipped.</p>", RECENT),
                    ("n2", "Source code is open", "<p>The source was open to all.</p>", RECENT),
                    ("n3", "Tokio runtime", "<p>The scheduler got faster.</p>", RECENT),
                ],
            ),
        ),
        (
            "Archive",
            "Old Letters",
            "/archive.xml",
            dated_rss(
                "Old Letters",
                &[(
                    "a1",
                    "Over the harbour",
                    "<p>A zeppelin drifted over the café, and the crème brûlée went cold.</p>\
                     <script>var zebra = 'not text';</script>",
                    "Mon, 01 Jun 2020 08:00:00 GMT",
                )],
            ),
        ),
        (
            "World",
            "Новости",
            "/ru.xml",
            dated_rss("Новости", &[("r1", "Ёлка в Москве", "<p>Новогодняя ёлка установлена на площади.</p>", RECENT)]),
        ),
        (
            "World",
            "東京ニュース",
            "/ja.xml",
            dated_rss("東京ニュース", &[("j1", "都庁で会見", "<p>新しい計画は東京都庁で発表された。</p>", RECENT)]),
        ),
        (
            "World",
            "서울 소식",
            "/ko.xml",
            dated_rss("서울 소식", &[("k1", "회의 소식", "<p>서울에서 열린 회의에 많은 사람이 왔다.</p>", RECENT)]),
        ),
        (
            "World",
            "每日新闻",
            "/zh.xml",
            dated_rss("每日新闻", &[("z1", "年度报告", "<p>中国经济发展很快。</p>", RECENT)]),
        ),
    ];
    let mut outlines = Vec::new();
    for (folder, title, path, xml) in &feeds {
        server.route(path, Reply::ok("application/rss+xml; charset=utf-8", xml.as_bytes()));
        outlines.push((Some(*folder), *title, server.url(path)));
    }
    let sandbox = Sandbox::new();
    let list: Vec<(Option<&str>, &str, &str)> = outlines.iter().map(|(f, t, u)| (*f, *t, u.as_str())).collect();
    let file = sandbox.write("feeds.opml", opml(&list));
    let import = sandbox.run(&["import", file.to_str().expect("utf-8 path")]);
    assert!(import.status.success(), "{}", stderr(&import));
    let refresh = sandbox.run(&["refresh"]);
    assert!(refresh.status.success(), "{}{}", stdout(&refresh), stderr(&refresh));
    (sandbox, server)
}

/// `tidings search --json QUERY…`: exit status and the titles found.
fn search(sandbox: &Sandbox, args: &[&str]) -> (Option<i32>, Vec<String>) {
    let mut all = vec!["search", "--json"];
    all.extend_from_slice(args);
    let out = sandbox.run(&all);
    if out.status.code() != Some(0) {
        return (out.status.code(), vec![]);
    }
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("search prints JSON");
    let titles = json["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["title"].as_str().unwrap_or_default().to_string())
        .collect();
    (Some(0), titles)
}

#[test]
fn a_word_is_found_in_a_five_year_old_entry_of_a_feed_in_another_folder() {
    let (sandbox, _server) = subscribed();
    let out = sandbox.run(&["search", "--json", "zeppelin"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["matches"], 1);
    let entry = &json["entries"][0];
    assert_eq!(entry["title"], "Over the harbour");
    assert_eq!(entry["feed"], "Old Letters");
    assert!(entry["date"].as_str().unwrap().starts_with("2020-06-01"), "{entry}");
    assert!(entry["id"].is_i64() && entry["feed_id"].is_i64(), "{entry}");
    // The text form: date, feed, title, link.
    let text = sandbox.run(&["search", "zeppelin"]);
    let line = stdout(&text);
    assert!(line.contains("Old Letters") && line.contains("Over the harbour"), "{line}");
    assert!(line.contains("http://example.com/a1") && line.contains("2020-06-0"), "{line}");
    assert_eq!(line.lines().count(), 1);
}

#[test]
fn latin_words_are_found_with_and_without_diacritics() {
    let (sandbox, _server) = subscribed();
    for query in ["cafe", "café", "CAFÉ", "creme brulee", "brûlée"] {
        assert_eq!(search(&sandbox, &[query]), (Some(0), vec!["Over the harbour".into()]), "{query}");
    }
    // What a script holds is not text.
    assert_eq!(search(&sandbox, &["zebra"]).0, Some(3));
}

#[test]
fn cyrillic_words_are_found_and_yo_is_e() {
    let (sandbox, _server) = subscribed();
    for query in ["москве", "Москве", "ёлка", "елка", "новогодн*"] {
        assert_eq!(search(&sandbox, &[query]), (Some(0), vec!["Ёлка в Москве".into()]), "{query}");
    }
}

#[test]
fn cjk_words_are_found_inside_longer_runs() {
    let (sandbox, _server) = subscribed();
    assert_eq!(search(&sandbox, &["東京"]).1, vec!["都庁で会見"], "東京 inside 東京都庁 (and the feed's name)");
    assert_eq!(search(&sandbox, &["都庁"]).1, vec!["都庁で会見"]);
    assert_eq!(search(&sandbox, &["서울"]).1, vec!["회의 소식"], "a two-syllable Korean word inside 서울에서");
    assert_eq!(search(&sandbox, &["회의"]).1, vec!["회의 소식"]);
    assert_eq!(search(&sandbox, &["经济"]).1, vec!["年度报告"]);
    assert_eq!(search(&sandbox, &["经济发展"]).1, vec!["年度报告"]);
    // Characters that are not next to each other in the text are not a word of it.
    assert_eq!(search(&sandbox, &["東都"]).0, Some(3));
}

#[test]
fn phrases_and_prefixes() {
    let (sandbox, _server) = subscribed();
    let (_, both) = search(&sandbox, &["open", "source"]);
    assert_eq!(both.len(), 2, "words are ANDed in any order: {both:?}");
    assert_eq!(search(&sandbox, &["\"open source\""]).1, vec!["Open source wins"]);
    assert_eq!(search(&sandbox, &["zepp*"]).1, vec!["Over the harbour"]);
    assert_eq!(search(&sandbox, &["sched*", "tokio"]).1, vec!["Tokio runtime"]);
    assert_eq!(search(&sandbox, &["source -wins"]).1, vec!["Source code is open"]);
}

#[test]
fn a_query_that_means_nothing_is_a_message_with_status_2_and_nothing_found_is_status_3() {
    let (sandbox, _server) = subscribed();
    // (`--` lets a query start with `-`, as with any command.)
    for query in ["\"\"", "!!!", "-open"] {
        let out = sandbox.run(&["search", "--", query]);
        assert_eq!(out.status.code(), Some(2), "{query}: {}", stderr(&out));
        let message = stderr(&out);
        assert!(message.contains("search for") || message.contains("add a word"), "{message}");
        assert!(!message.to_lowercase().contains("fts5") && !message.contains("syntax"), "{message}");
    }
    // FTS5 syntax typed by a person is just words.
    for query in ["NEAR(a", "title:x", "\"unclosed"] {
        let out = sandbox.run(&["search", query]);
        assert_eq!(out.status.code(), Some(3), "{query}: {}", stderr(&out));
    }
    assert_eq!(search(&sandbox, &["AND"]).1, vec!["Over the harbour"], "the word 'and'");
}

#[test]
fn feed_and_unread_narrow_a_search() {
    let (sandbox, _server) = subscribed();
    assert_eq!(search(&sandbox, &["open"]).1.len(), 2);
    assert_eq!(search(&sandbox, &["--feed", "daily news", "open"]).1.len(), 2, "a feed by its name");
    assert_eq!(search(&sandbox, &["--feed", "Old Letters", "open"]).0, Some(3));
    let out = sandbox.run(&["search", "--feed", "No Such Feed", "open"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("No Such Feed"), "{}", stderr(&out));

    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let all = lists::entry_refs(&conn, &ListQuery { source: ListSource::All, sort: Sort::Newest, unread_only: false })
        .unwrap();
    let rows = entries::entry_rows(&conn, &all.iter().map(|r| r.id).collect::<Vec<_>>()).unwrap();
    let wins = rows.iter().find(|r| r.title.as_deref() == Some("Open source wins")).unwrap().id;
    store::apply(&mut conn, &UserWrite::SetRead { ids: vec![wins], read: true }, 0).unwrap();
    drop(conn);
    assert_eq!(search(&sandbox, &["--unread", "open"]).1, vec!["Source code is open"]);
}

#[test]
fn deleting_a_feed_removes_its_entries_from_results() {
    let (sandbox, _server) = subscribed();
    assert_eq!(search(&sandbox, &["zeppelin"]).0, Some(0));
    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let feed = feeds::feeds(&conn).unwrap().into_iter().find(|f| f.title == "Old Letters").unwrap();
    store::apply(&mut conn, &UserWrite::DeleteFeed(feed.id), 0).unwrap();
    let index_rows: i64 = conn.query_row("SELECT count(*) FROM entry_search", [], |r| r.get(0)).unwrap();
    let entries: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(index_rows, entries, "the index holds exactly the entries left");
    drop(conn);
    assert_eq!(search(&sandbox, &["zeppelin"]).0, Some(3));
}

#[test]
fn every_list_of_a_20000_entry_farm_reaches_its_last_entry() {
    let dir = tempfile::tempdir().unwrap();
    let spec = FarmSpec { feeds: 200, entries_per_feed: 100, index: false, ..FarmSpec::BENCH };
    let farm = farm::build(&dir.path().join("farm.db"), &spec);
    let conn = store::open_read(&farm.path).unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as usize;
    let refs = |source: ListSource, sort: Sort, unread_only: bool| {
        lists::entry_refs(&conn, &ListQuery { source, sort, unread_only }).unwrap()
    };

    let all = refs(ListSource::All, Sort::Newest, false);
    assert_eq!(all.len(), 20_000);
    let oldest: i64 = conn.query_row("SELECT id FROM entries ORDER BY sort_at, id LIMIT 1", [], |r| r.get(0)).unwrap();
    assert_eq!(all.last().map(|r| r.id.0), Some(oldest), "the last entry is the oldest");
    let ids: std::collections::HashSet<_> = all.iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 20_000, "every entry once");
    for sort in [Sort::Oldest, Sort::ByFeed, Sort::ByTitle] {
        assert_eq!(refs(ListSource::All, sort, false).len(), 20_000, "{sort:?}");
    }

    let counts = lists::view_counts(&conn).unwrap();
    assert_eq!(counts.all, 20_000);
    assert_eq!(all.iter().filter(|r| !r.read).count(), counts.unread as usize, "read flags");
    assert_eq!(all.iter().filter(|r| r.starred).count(), counts.starred as usize, "starred flags");
    let unread = refs(ListSource::Unread, Sort::Newest, false);
    assert_eq!(unread.len(), counts.unread as usize);
    assert_eq!(unread.len(), count("SELECT count(*) FROM entries WHERE read = 0"));
    assert!(unread.len() > 5_000 && unread.iter().all(|r| !r.read));
    assert_eq!(refs(ListSource::Starred, Sort::Newest, false).len(), counts.starred as usize);

    // Tech holds Tech/Rust: its list has both folders' entries.
    let folder = |name: &str| farm.folders.iter().find(|(n, _)| n == name).map(|(_, id)| *id).unwrap();
    let tech = refs(ListSource::Folder(folder("Tech")), Sort::Newest, false);
    let in_tree = count(
        "SELECT count(*) FROM entries WHERE feed_id IN (SELECT id FROM feeds WHERE folder_id IN
            (SELECT id FROM folders WHERE name IN ('Tech', 'Tech/Rust')))",
    );
    assert_eq!(tech.len(), in_tree);
    assert!(tech.len() > refs(ListSource::Folder(folder("Tech/Rust")), Sort::Newest, false).len());
    let tech_unread = refs(ListSource::Folder(folder("Tech")), Sort::Newest, true);
    assert_eq!(tech_unread.len(), tech.iter().filter(|r| !r.read).count());
}

#[test]
fn a_headless_refresh_leaves_indexing_to_the_search_which_indexes_before_it_looks() {
    let (sandbox, _server) = subscribed();
    let total: i64 =
        store::open_read(&sandbox.db()).unwrap().query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    let pending = |sandbox: &Sandbox| store::search::pending_count(&store::open_read(&sandbox.db()).unwrap()).unwrap();
    assert_eq!(pending(&sandbox), total, "`tidings refresh` stored every entry and indexed none");
    assert_eq!(search(&sandbox, &["zeppelin"]), (Some(0), vec!["Over the harbour".into()]));
    assert_eq!(pending(&sandbox), 0, "the search indexed them all first");
}
