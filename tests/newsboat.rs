//! Switching from newsboat: a newsboat home made by newsboat itself (its `-x reload` against a loopback server,
//! its `-I` marking entries read), carried over with `tidings import newsboat`, then refreshed by tidings from
//! the same server: every feed, folder, name, read and starred state as newsboat had it, nothing fetched again
//! as new, and a second import changing nothing. .ci/run installs newsboat; where it is missing the test says
//! it skipped. A hostile home (a line of a hundred megabytes, titles that are not UTF-8, a cache that is not
//! newsboat's, filters nested past reason) comes over as far as it can, each fault said: no hang, no crash.

mod support;

use rusqlite::Connection;
use support::server::{Reply, Server};
use support::{Sandbox, stdout};

fn newsboat_installed() -> bool {
    std::process::Command::new("newsboat").arg("-v").output().is_ok_and(|o| o.status.success())
}

/// Feeds whose items exercise every way newsboat and tidings identify an item.
fn serve() -> Server {
    let server = Server::start();
    server.route(
        "/alpha.xml",
        Reply::ok(
            "application/rss+xml",
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel><title>Alpha Feed</title>\
             <link>http://example.com/</link><description>d</description>\n\
             <item><guid>a-1</guid><title>A one</title><link>http://example.com/a/1/</link>\
             <pubDate>Tue, 10 Jun 2025 10:00:00 GMT</pubDate><description>one</description></item>\n\
             <item><title>A two</title><link>http://example.com/a/2/?utm_source=x</link>\
             <pubDate>Wed, 11 Jun 2025 10:00:00 GMT</pubDate><description>two</description></item>\n\
             <item><title>A three</title><link>http://example.com/a/3/</link><description>three</description></item>\n\
             <item><guid>http://example.com/a/4/</guid><title>A four</title><link>http://example.com/a/4/</link>\
             <pubDate>Thu, 12 Jun 2025 10:00:00 GMT</pubDate><description>four</description></item>\n\
             <item><title>A five, title only</title><description>five</description></item>\n\
             </channel></rss>\n",
        ),
    );
    server.route(
        "/beta.atom",
        Reply::ok(
            "application/atom+xml",
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Beta Atom</title>\
             <id>urn:b</id><updated>2025-06-01T00:00:00Z</updated>\n\
             <entry><id>urn:b:1</id><title>B one</title><updated>2025-06-02T00:00:00Z</updated>\
             <link href=\"http://example.com/b/1\"/><content type=\"html\">&lt;p&gt;b1&lt;/p&gt;</content></entry>\n\
             <entry><id>urn:b:2</id><title>B two</title><updated>2025-06-03T00:00:00Z</updated>\
             <link href=\"http://example.com/b/2\"/><content type=\"html\">&lt;p&gt;b2&lt;/p&gt;</content></entry>\n\
             </feed>\n",
        ),
    );
    server.route(
        "/gamma.xml",
        Reply::ok(
            "application/rss+xml",
            support::rss("Gamma", &[("g1", "G one", "<p>g1</p>"), ("g2", "G two", "<p>g2</p>")]),
        ),
    );
    server
}

/// (key, read, starred) of every entry of the feed at `url`, by key.
fn entries_of(db: &std::path::Path, url: &str) -> Vec<(String, bool, bool)> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT e.key, e.read, e.starred FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.url = ?1 ORDER BY e.key")
        .unwrap();
    stmt.query_map([url], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
}

fn count(db: &std::path::Path, sql: &str) -> i64 {
    Connection::open(db).unwrap().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_newsboat_home_comes_over_with_folders_names_and_read_and_flagged_entries_and_a_refresh_adds_nothing() {
    if !newsboat_installed() {
        let test =
            "a_newsboat_home_comes_over_with_folders_names_and_read_and_flagged_entries_and_a_refresh_adds_nothing";
        support::skip(test, "newsboat is not installed (.ci/run installs it)");
        return;
    }
    let server = serve();
    let sandbox = Sandbox::new();
    let home = sandbox.path("home");
    let dot = home.join(".newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    let (alpha, beta, gamma) = (server.url("/alpha.xml"), server.url("/beta.atom"), server.url("/gamma.xml"));
    std::fs::write(
        dot.join("urls"),
        format!(
            "# my feeds\n{alpha} \"News/Tech\" \"rust\" \"~My Alpha\"\n{beta} \"Tech\" \"!\"\n{gamma}\n\
             \"query:Unread tech:unread = \\\"yes\\\" and tags # \\\"Tech\\\"\"\nexec:~/bin/feed.sh \"Scripts\"\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dot.join("config"),
        "browser \"w3m %u\"\nauto-reload yes\nreload-time 20\nbind-key x next-feed\ncolor listfocus black yellow bold\n\
         ignore-article \"*\" \"title =~ \\\"sponsored\\\"\"\nhighlight article \"rust\" red default\n",
    )
    .unwrap();
    let newsboat = |args: &[&str]| {
        let out = std::process::Command::new("newsboat")
            .env("HOME", &home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run newsboat");
        assert!(out.status.success(), "newsboat {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    // newsboat fetches the feeds and writes its cache, then marks two entries read from a list of GUIDs.
    newsboat(&["-x", "reload"]);
    let read_list = sandbox.write("read.txt", "a-1\nurn:b:1\nhttp://example.com/a/4/\n");
    newsboat(&["-I", support::path_str(&read_list)]);
    let cache = dot.join("cache.db");
    {
        // The flag newsboat's `^E` sets, stored as newsboat stores it (tmux-driven flagging is not scriptable
        // without sleeps).
        let conn = Connection::open(&cache).unwrap();
        let flagged = conn.execute("UPDATE rss_item SET flags = 's' WHERE title IN ('A three', 'B two')", []).unwrap();
        assert_eq!(flagged, 2);
        let items: i64 = conn.query_row("SELECT count(*) FROM rss_item", [], |r| r.get(0)).unwrap();
        assert_eq!(items, 9, "newsboat cached every item");
    }

    let import = || sandbox.tidings().env("HOME", &home).args(["import", "newsboat"]).output().unwrap();
    let first = import();
    let said = stdout(&first);
    assert!(first.status.success(), "{said}{}", support::stderr(&first));
    assert!(said.contains("feeds        3 added, 0 already subscribed"), "{said}");
    assert!(said.contains("entries      9 added (3 read, 2 starred from flags)"), "{said}");
    assert!(said.contains("1 hidden (!), 3 tags kept"), "{said}");
    for not in [
        "urls line 6: exec:~/bin/feed.sh: its entries come from running a command",
        "1 saved views \"Unread tech\" and 1 kill rules (ignore-article) written to",
        "config line 7: highlight article \"rust\" red default: no equivalent in tidings",
    ] {
        assert!(said.contains(not), "the report does not say {not:?}:\n{said}");
    }
    let db = sandbox.db();
    // Folders from the first tag (nested at the slash), names from ~, hidden from !.
    let conn = Connection::open(&db).unwrap();
    let feeds: Vec<(String, Option<String>, Option<String>, bool)> = conn
        .prepare(
            "SELECT f.url, f.custom_title, (SELECT coalesce(p.name || '/', '') || d.name FROM folders d
                 LEFT JOIN folders p ON p.id = d.parent_id WHERE d.id = f.folder_id), f.hidden FROM feeds f ORDER BY f.url",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        feeds,
        vec![
            (alpha.clone(), Some("My Alpha".into()), Some("News/Tech".into()), false),
            (beta.clone(), None, Some("Tech".into()), true),
            (gamma.clone(), None, None, false),
        ]
    );
    drop(conn);
    let before = (entries_of(&db, &alpha), entries_of(&db, &beta), entries_of(&db, &gamma));
    let alpha_state: Vec<(bool, bool)> = before.0.iter().map(|e| (e.1, e.2)).collect();
    assert_eq!(before.0.len(), 5);
    assert_eq!(alpha_state.iter().filter(|s| s.0).count(), 2, "a-1 and a/4 were read in newsboat: {:?}", before.0);
    assert_eq!(before.1.iter().filter(|e| e.1).count(), 1);
    assert!(before.1.iter().any(|e| e.0 == "urn:b:2" && e.2), "B two was flagged: starred");

    // tidings refreshes the same feeds: every entry is found stored, none comes back unread.
    let refresh = sandbox.tidings().args(["refresh"]).output().unwrap();
    assert!(refresh.status.success(), "{}{}", stdout(&refresh), support::stderr(&refresh));
    assert_eq!(count(&db, "SELECT count(*) FROM entries"), 9, "the refresh added no duplicate");
    let after = (entries_of(&db, &alpha), entries_of(&db, &beta), entries_of(&db, &gamma));
    type Entries = Vec<(String, bool, bool)>;
    let states = |v: &(Entries, Entries, Entries)| {
        let mut all: Vec<(bool, bool)> = v.0.iter().chain(&v.1).chain(&v.2).map(|e| (e.1, e.2)).collect();
        all.sort_unstable();
        all
    };
    assert_eq!(states(&after), states(&before), "read and starred states survive the refresh");

    // Settings went into tidings's config file; a second import changes nothing.
    let config = sandbox.path("home/.config/tidings/config.toml");
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(written.contains("browser = \"w3m %u\"") && written.contains("refresh_interval_minutes = 20"), "{written}");
    assert!(
        written.contains("next_feed = [\"J\", \"x\"]") && written.contains("selection = \"black on yellow bold\""),
        "{written}"
    );
    assert!(
        written.contains("[[views]]\nname = \"Unread tech\"\nquery = 'unread and feedtag = \"Tech\"'\n")
            && written.contains("[[ignore]]\nquery = 'title ~ \"sponsored\"'\n"),
        "the query feed is a saved view, ignore-article a kill rule: {written}"
    );
    // newsboat's own q, Q and e, where tidings's differ, come over as its bindings do.
    assert!(
        written.contains("back = [\"q\", \"Backspace\"]") && written.contains("quit = [\"Q\", \"Ctrl-c\"]"),
        "{written}"
    );
    let said = stdout(&first);
    assert!(
        said.contains("keys         newsboat's own q (back): q was quit's key and now does back (quit keeps Ctrl-c)"),
        "{said}"
    );
    assert!(!said.contains("habits"), "{said}");
    let second = import();
    let said = stdout(&second);
    assert!(said.contains("feeds        0 added, 3 already subscribed"), "{said}");
    assert!(said.contains("entries      0 added (0 read, 0 starred from flags), 9 already stored"), "{said}");
    assert!(!said.contains("already sets it"), "what the first import wrote is no conflict:\n{said}");
    assert!(!said.contains("habits"), "q goes back already:\n{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written, "the config file is left as it was");
    assert_eq!(count(&db, "SELECT count(*) FROM entries"), 9);
}

#[test]
fn without_a_newsboat_home_the_import_says_where_it_looked_and_what_to_pass() {
    let sandbox = Sandbox::new();
    let out = sandbox.tidings().args(["import", "newsboat"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = support::stderr(&out);
    assert!(
        err.contains("no newsboat home found") && err.contains(".newsboat/urls") && err.contains("--urls FILE"),
        "{err}"
    );
}

/// Query feeds become saved views and `ignore-article` lines kill rules in tidings's config file, after what the
/// file had: a view it already has is not written twice, a view whose name the file gives another query is left
/// as it is (the report says so and how to write it), and a second import leaves the file as it was.
#[test]
fn query_feeds_become_saved_views_and_ignore_article_kill_rules_once() {
    let sandbox = Sandbox::new();
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    let feed = "http://127.0.0.1:9/a.xml";
    std::fs::write(
        dot.join("urls"),
        format!(
            "{feed} \"Tech\"\n\"query:Unread tech:unread = \\\"yes\\\" and tags # \\\"Tech\\\"\"\n\
             \"query:Mine:unread = \\\"yes\\\" and author = \\\"me\\\"\"\n\"query:Fresh:unread = \\\"yes\\\" and tags # \\\"Tech\\\"\"\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dot.join("config"),
        format!(
            "ignore-article \"*\" \"title =~ \\\"sponsored\\\"\"\nignore-article \"{feed}\" \"author = \\\"bot\\\"\"\n"
        ),
    )
    .unwrap();
    let config = sandbox.path("home/.config/tidings/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let mine = "# my views\n[[views]]\nname = \"Unread tech\"\nquery = 'unread and feedtag = \"Tech\"'\n\n\
                [[views]]\nname = \"mine\"\nquery = \"starred\"\n";
    std::fs::write(&config, mine).unwrap();

    let import = || sandbox.tidings().args(["import", "newsboat"]).output().unwrap();
    let first = import();
    let said = stdout(&first);
    assert!(first.status.success(), "{said}{}", support::stderr(&first));
    for line in [
        "1 saved views \"Fresh\" and 2 kill rules (ignore-article) written to",
        "1 views and kill rules",
        "query feed \"Mine\":",
        "has another view of this name, left as it is; as a view: [[views]] name = \"Mine\" query = 'unread and author = \"me\"'",
    ] {
        assert!(said.contains(line), "the report does not say {line:?}:\n{said}");
    }
    assert!(!said.contains("not carried over yet"), "{said}");
    let written = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        written,
        format!(
            "{mine}\n[[views]]\nname = \"Fresh\"\nquery = 'unread and feedtag = \"Tech\"'\n\n\
             [keys]\nback = [\"q\", \"Backspace\"]\ndownload = [\"e\", \"E\"]\nforce_encoding = []\n\
             quit = [\"Q\", \"Ctrl-c\"]\n\n\
             [[ignore]]\nquery = 'title ~ \"sponsored\"'\n\n[[ignore]]\nquery = 'author = \"bot\"'\nfeed = \"{feed}\"\n"
        )
    );

    let second = import();
    let said = stdout(&second);
    assert!(second.status.success(), "{said}{}", support::stderr(&second));
    assert!(said.contains("4 views and kill rules"), "{said}");
    assert!(!said.contains("written to"), "nothing is written the second time:\n{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written, "the config file is left as it was");
}

// ----- a hostile newsboat home -----

/// Runs `cmd` to its end; one still running after a minute is killed and the test fails (these cases used to
/// never end).
fn within_a_minute(cmd: &mut std::process::Command) -> std::process::Output {
    use std::process::Stdio;
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run tidings");
    let pid = child.id();
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    match wait.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(output) => output.expect("wait for tidings"),
        Err(_) => {
            // SAFETY: signalling our own child, which the waiting thread has not reaped (it is still running).
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            panic!("tidings import newsboat was still running after a minute");
        }
    }
}

/// newsboat's cache as newsboat 2.x writes it, with `feeds` (address, title) and `items` (address, GUID, title)
/// of them; titles are bytes, written as text whether or not they are UTF-8.
fn newsboat_cache(path: &std::path::Path, feeds: &[(&str, &[u8])], items: &[(&str, &str, &[u8])]) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE rss_feed (rssurl VARCHAR(1024) PRIMARY KEY NOT NULL, url VARCHAR(1024) NOT NULL,
             title VARCHAR(1024) NOT NULL, lastmodified INTEGER(11) NOT NULL DEFAULT 0,
             is_rtl INTEGER(1) NOT NULL DEFAULT 0, etag VARCHAR(128) NOT NULL DEFAULT '');
         CREATE TABLE rss_item (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, guid VARCHAR(64) NOT NULL,
             title VARCHAR(1024) NOT NULL, author VARCHAR(1024) NOT NULL, url VARCHAR(1024) NOT NULL,
             feedurl VARCHAR(1024) NOT NULL, pubDate INTEGER NOT NULL, content VARCHAR(65535) NOT NULL,
             unread INTEGER(1) NOT NULL, enclosure_url VARCHAR(1024), enclosure_type VARCHAR(1024),
             enqueued INTEGER(1) NOT NULL DEFAULT 0, flags VARCHAR(52), deleted INTEGER(1) NOT NULL DEFAULT 0,
             base VARCHAR(128) NOT NULL DEFAULT '');",
    )
    .unwrap();
    for (url, title) in feeds {
        conn.execute("INSERT INTO rss_feed (rssurl, url, title) VALUES (?1, '', CAST(?2 AS TEXT))", (url, title))
            .unwrap();
    }
    for (url, guid, title) in items {
        conn.execute(
            "INSERT INTO rss_item (guid, title, author, url, feedurl, pubDate, content, unread)
             VALUES (?2, CAST(?3 AS TEXT), '', '', ?1, 1749549600, '<p>x</p>', 1)",
            (url, guid, title),
        )
        .unwrap();
    }
}

/// The attack's line was 1 GB: the import took 4.9 GB of memory and was lost. A line over 64 KB is skipped as
/// it is read, named by its number, and the lines around it come over.
#[test]
fn a_line_too_long_in_urls_is_skipped_by_its_number_in_bounded_memory_and_the_rest_comes_over() {
    let sandbox = Sandbox::new();
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    let line = 128 << 20;
    {
        // Written a megabyte at a time: memory the test itself held would count in the child's peak.
        use std::io::Write;
        let mut urls = std::io::BufWriter::new(std::fs::File::create(dot.join("urls")).unwrap());
        urls.write_all(b"http://a.example/rss \"Tech\"\nhttp://b.example/").unwrap();
        let megabyte = vec![b'x'; 1 << 20];
        for _ in 0..line >> 20 {
            urls.write_all(&megabyte).unwrap();
        }
        urls.write_all(b"\nhttp://c.example/rss\n").unwrap();
        urls.flush().unwrap();
    }
    let measured = support::measure(sandbox.tidings().args(["import", "newsboat"]));
    let said = stdout(&measured.output);
    assert!(measured.output.status.success(), "{said}{}", support::stderr(&measured.output));
    assert!(said.contains("feeds        2 added"), "{said}");
    assert!(said.contains("urls line 2: http://b.example/xxx") && said.contains("longer than 64 KB"), "{said}");
    let feeds = count(
        &sandbox.db(),
        "SELECT count(*) FROM feeds WHERE url IN ('http://a.example/rss', 'http://c.example/rss')",
    );
    assert_eq!(feeds, 2);
    assert!(measured.peak_rss < (line / 2) as u64, "a {line}-byte line took {} bytes of memory", measured.peak_rss);
}

/// One feed title that was not UTF-8 refused the whole cache. Titles are read with replacement characters and
/// the report counts them; entries go to their subscription whichever spelling of its address the cache has.
#[test]
fn titles_that_are_not_utf8_are_read_lossily_and_counted_and_entries_find_their_feed_under_another_spelling() {
    let sandbox = Sandbox::new();
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    std::fs::write(dot.join("urls"), "http://A.example/rss/\nhttp://b.example/rss\n").unwrap();
    newsboat_cache(
        &dot.join("cache.db"),
        &[("http://a.example/rss", b"Caf\xe9 news"), ("http://b.example/rss", b"Beta")],
        &[("http://a.example/rss", "a-1", b"R\xe9sum\xe9"), ("http://b.example/rss", "b-1", b"Fine")],
    );
    let out = sandbox.run(&["import", "newsboat"]);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", support::stderr(&out));
    assert!(said.contains("entries      2 added"), "{said}");
    assert!(
        said.contains("2 titles of the cache were not UTF-8 and were read with replacement characters (\u{fffd})"),
        "{said}"
    );
    let conn = Connection::open(sandbox.db()).unwrap();
    let title = |sql: &str| -> String { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(title("SELECT title FROM feeds WHERE url = 'http://A.example/rss/'"), "Caf\u{fffd} news");
    assert_eq!(title("SELECT title FROM entries WHERE key = 'a-1'"), "R\u{fffd}sum\u{fffd}");
}

/// A cache whose `rss_item` was a recursive view never ended (710 MB of temporary disk in ten seconds). Such a
/// cache, one that is not a database, and one without newsboat's tables are each refused at once, saying why.
#[test]
fn a_cache_that_is_not_newsboats_is_refused_at_once_with_why() {
    let sandbox = Sandbox::new();
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    std::fs::write(dot.join("urls"), "http://a.example/rss\n").unwrap();
    let cache = dot.join("cache.db");
    let refused = |why: &str| {
        let out = within_a_minute(sandbox.tidings().args(["import", "newsboat"]));
        let err = support::stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{}{err}", stdout(&out));
        assert!(err.contains("newsboat's cache") && err.contains(why) && err.contains("leave --cache out"), "{err}");
    };
    newsboat_cache(&cache, &[], &[]);
    Connection::open(&cache)
        .unwrap()
        .execute_batch(
            "DROP TABLE rss_item;
             CREATE VIEW rss_item AS WITH RECURSIVE r(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM r)
                 SELECT id, 'g' || id AS guid, 't' AS title, '' AS author, '' AS url,
                     'http://a.example/rss' AS feedurl, 0 AS pubDate, '' AS content, 1 AS unread FROM r;",
        )
        .unwrap();
    refused("its rss_item is a view (which can make rows up without end), not a table as newsboat writes it");
    std::fs::write(&cache, "not a database, but long enough for SQLite to read its header and say so").unwrap();
    refused("file is not a database");
    std::fs::remove_file(&cache).unwrap();
    Connection::open(&cache).unwrap().execute_batch("CREATE TABLE rss_item (id INTEGER PRIMARY KEY)").unwrap();
    refused("it has no rss_feed table");
}

/// A query feed of 32,000 nested parentheses and an `ignore-article` of 3,447 `and`s (each within the 64 KB a
/// line may have) overflowed the stack (SIGABRT). Each is said to have no equivalent, with the column.
#[test]
fn a_filter_nested_or_chained_too_deep_is_said_with_its_column_not_a_stack_overflow() {
    let sandbox = Sandbox::new();
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    let deep = format!("{}unread = \\\"yes\\\"{}", "(".repeat(32_000), ")".repeat(32_000));
    std::fs::write(dot.join("urls"), format!("http://a.example/rss\n\"query:Deep:{deep}\"\n")).unwrap();
    let chain = vec!["title =~ \\\"x\\\""; 3_447].join(" and ");
    std::fs::write(dot.join("config"), format!("ignore-article \"*\" \"{chain}\"\n")).unwrap();
    let out = sandbox.run(&["import", "newsboat"]);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", support::stderr(&out));
    assert!(said.contains("column 65: parentheses nest deeper than 64"), "{said}");
    assert!(said.contains("config line 1: ignore-article: no equivalent: newsboat's filter does not read: column 4353: more than 256 comparisons"), "{said}");
}

/// The first hour after switching (issue 36): `tidings --config NEW.toml import newsboat` makes the file it is
/// given; a `filter:` feed is subscribed at its URL with its cached entries; a `define-filter` becomes a saved
/// view; a query feed that is the Starred smart view is not written as a second "Starred"; the bookmark command
/// gets the address and title; the notifier, the sort order and `confirm-exit` come over; a macro's `pipe-to
/// "cmd"` keeps its command (it was a bare `pipe`).
#[test]
fn a_new_config_file_is_made_and_filter_feeds_filters_notifier_sort_and_bookmarks_come_over() {
    let sandbox = Sandbox::new();
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    std::fs::write(
        dot.join("urls"),
        "http://a.example/rss \"Tech\"\nfilter:~/bin/clean.sh:http://b.example/rss \"Tech\"\n\
         \"query:Starred:flags # \\\"s\\\"\"\n",
    )
    .unwrap();
    std::fs::write(
        dot.join("config"),
        "bookmark-cmd \"~/bin/bookmark.sh\"\nnotify-program \"notify-me\"\narticle-sort-order date-asc\n\
         confirm-exit yes\nmacro c pipe-to \"urlview\"\ndefine-filter \"Rust\" \"title =~ \\\"rust\\\"\"\n",
    )
    .unwrap();
    newsboat_cache(
        &dot.join("cache.db"),
        &[("filter:~/bin/clean.sh:http://b.example/rss", b"Beta")],
        &[("filter:~/bin/clean.sh:http://b.example/rss", "b-1", b"Filtered one")],
    );
    let config = sandbox.path("new/tidings.toml");
    let out = sandbox.tidings().arg("--config").arg(&config).args(["import", "newsboat"]).output().unwrap();
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", support::stderr(&out));
    assert_eq!(entries_of(&sandbox.db(), "http://b.example/rss"), [("b-1".to_string(), false, false)]);
    assert!(said.contains("the filter script ~/bin/clean.sh: not run"), "{said}");
    assert!(said.contains("query feed \"Starred\": the same as the smart view Starred"), "{said}");
    assert!(!said.contains("not carried over yet"), "define-filter is carried over now:\n{said}");
    let written = std::fs::read_to_string(&config).unwrap();
    let parsed = tidings::config::Config::parse(&written).unwrap();
    assert_eq!(parsed.saved_views(), [("Rust".to_string(), "title ~ \"rust\"".to_string())]);
    assert_eq!(parsed.sort, "oldest");
    assert!(parsed.confirm_quit);
    assert_eq!(parsed.notify_command.as_deref(), Some("notify-me '%n new entries in %f'"));
    let bookmark = tidings::command::CommandLine::parse(parsed.bookmark_command.as_deref().unwrap(), None).unwrap();
    let argv = bookmark.argv(&[("%u", "http://a.example/1"), ("%t", "One"), ("%d", ""), ("%f", "F")], &[]);
    assert_eq!(argv[argv.len() - 4..], ["http://a.example/1", "One", "", "F"], "newsboat's four, in order: {argv:?}");
    assert_eq!(parsed.macros.get("c"), Some(&vec![":pipe urlview".to_string()]), "pipe-to carries its command");
}

/// The home of issue 36, end to end: tags with slashes and spaces ("Long Reads" on three feeds, one of them as
/// its folder), a query feed by tag, a killfile, a macro, bind-keys, a bookmark command and
/// `article-sort-order`. After one import: the bookmark command gets the address and title, every default key
/// works beside the imported ones (and the config starts without a warning), the killfile's entries are neither
/// shown nor counted before any refresh, `feedtag = "Long Reads"` finds all three feeds (and the query feed's
/// `tags # "news"` not `news/science`), and `sort = "oldest"` is set. A second import changes nothing.
#[test]
fn a_power_users_newsboat_home_switches_with_its_keys_kill_rules_tags_and_order() {
    let sandbox = Sandbox::new();
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    let (a, b, c, d) = ("http://a.example/rss", "http://b.example/rss", "http://c.example/rss", "http://d.example/rss");
    std::fs::write(
        dot.join("urls"),
        format!(
            "{a} \"Long Reads\" \"tech/rust\" \"~Alpha\"\n{b} \"news\" \"Long Reads\"\n\
             {c} \"news/science\" \"Long Reads\"\n{d} \"news\"\n\
             \"query:News:tags # \\\"news\\\"\"\n\"query:Starred:flags # \\\"s\\\"\"\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dot.join("config"),
        "bookmark-cmd \"~/bin/bookmark.sh\"\nbind-key j down\nbind-key ^D pagedown\nbind-key x open-in-browser\n\
         bind-key N toggle-article-read\nmacro o open ; toggle-article-read\narticle-sort-order date-asc\n\
         ignore-article \"*\" \"title =~ \\\"(Sponsored|Advertorial)\\\"\"\n\
         ignore-article \"*\" \"title =~ \\\"[Ww]ebinar\\\"\"\n",
    )
    .unwrap();
    let items: Vec<(&str, String, Vec<u8>)> = [
        (a, "a1", "Deep dive"),
        (a, "a2", "Sponsored: buy this"),
        (b, "b1", "Morning news"),
        (b, "b2", "Join our Webinar"),
        (c, "c1", "Quasars"),
        (c, "c2", "Advertorial of the week"),
        (d, "d1", "Evening news"),
    ]
    .into_iter()
    .map(|(feed, guid, title)| (feed, guid.to_string(), title.as_bytes().to_vec()))
    .collect();
    let items: Vec<(&str, &str, &[u8])> = items.iter().map(|(f, g, t)| (*f, g.as_str(), t.as_slice())).collect();
    newsboat_cache(&dot.join("cache.db"), &[(a, b"A"), (b, b"B"), (c, b"C"), (d, b"D")], &items);

    let import = || sandbox.tidings().args(["import", "newsboat"]).output().unwrap();
    let first = import();
    let said = stdout(&first);
    assert!(first.status.success(), "{said}{}", support::stderr(&first));
    assert!(said.contains("entries      7 added") && said.contains("3 entries hidden by the kill rules"), "{said}");
    assert!(
        said.contains("bind-key Ctrl-d page_down: Ctrl-d was half_page_down's key and now does page_down"),
        "{said}"
    );
    let db = sandbox.db();
    // Neither shown nor counted from the first start: the store's unread count, before any refresh or list.
    assert_eq!(count(&db, "SELECT count(*) FROM entries WHERE read = 0 AND ignored = 0"), 4);
    assert_eq!(count(&db, "SELECT count(*) FROM entries WHERE ignored = 1"), 3);

    let path = sandbox.path("home/.config/tidings/config.toml");
    let written = std::fs::read_to_string(&path).unwrap();
    let config = tidings::config::Config::load(&path, true).unwrap();
    assert!(config.warnings.is_empty(), "no warning at every start: {:?}\n{written}", config.warnings);
    assert_eq!(config.sort, "oldest");
    use tidings::app::keymap::{Action, Context, Key};
    let keys = |action| config.keymap.keys_for(Context::General, action).iter().map(Key::to_string).collect::<Vec<_>>();
    let defaults = tidings::app::keymap::Keymap::default();
    for action in [
        Action::Down,
        Action::Up,
        Action::PageDown,
        Action::PageUp,
        Action::Top,
        Action::Bottom,
        Action::NextUnread,
        Action::ToggleRead,
        Action::Bookmark,
    ] {
        for key in defaults.keys_for(Context::General, action) {
            assert!(
                keys(action).contains(&key.to_string()),
                "{} lost {key}: {:?}\n{written}",
                action.name(),
                keys(action)
            );
        }
    }
    assert!(
        keys(Action::OpenInBrowser).contains(&"x".to_string()) && keys(Action::ToggleRead).contains(&"N".to_string())
    );
    assert!(keys(Action::PageDown).contains(&"Ctrl-d".to_string()), "{written}");
    let bookmark = tidings::command::CommandLine::parse(config.bookmark_command.as_deref().unwrap(), None).unwrap();
    let values = [("%u", "http://a.example/1"), ("%t", "Deep dive"), ("%d", ""), ("%f", "Long Reads")];
    let argv = bookmark.argv(&values, &[]);
    assert_eq!(argv[argv.len() - 4..], ["http://a.example/1", "Deep dive", "", "Long Reads"], "{argv:?}");
    assert_eq!(config.macros.get("o"), Some(&vec!["open".to_string(), "toggle_read".to_string()]));

    let list = |query: &str| -> Vec<String> {
        let out = sandbox.tidings().args(["list", "--json", "--query", query]).output().unwrap();
        assert!(out.status.success(), "{}", support::stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut feeds: Vec<String> = json["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["feed_url"].as_str().unwrap_or_default().to_string())
            .collect();
        feeds.sort();
        feeds.dedup();
        feeds
    };
    assert_eq!(list("feedtag = \"Long Reads\""), [a, b, c]);
    let news = config.saved_views().into_iter().find(|(n, _)| n == "News").expect("the query feed is a view").1;
    assert_eq!(news, "feedtag = \"news\"");
    assert_eq!(list(&news), [b, d], "tags # \"news\" does not take in news/science");
    assert!(!config.saved_views().iter().any(|(n, _)| n == "Starred"), "no second Starred");

    let second = import();
    assert!(second.status.success(), "{}", support::stderr(&second));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written, "a second import changes nothing");
}

/// `import --help` said `--config` was tidings's config file, the README that after `import newsboat` it is
/// newsboat's: both say both now.
#[test]
fn import_help_and_the_readme_say_the_same_of_config() {
    let sandbox = Sandbox::new();
    let help = stdout(&sandbox.tidings().args(["import", "--help"]).output().unwrap());
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for said in [help.as_str(), readme.as_str()] {
        assert!(
            said.contains("`--config FILE` names newsboat's config instead")
                || said.contains("--config FILE names newsboat's config instead"),
            "{said}"
        );
    }
    assert!(help.contains("making the file when it does not exist") && readme.contains("(made if missing)"));
}

/// An OPML outline's `category` paths are its feed's tags, as newsboat's tags are.
#[test]
fn opml_categories_become_the_feeds_tags() {
    let sandbox = Sandbox::new();
    let file = sandbox.write(
        "subs.opml",
        "<?xml version=\"1.0\"?><opml version=\"2.0\"><body>\
         <outline text=\"A\" xmlUrl=\"http://a.example/rss\" category=\"/Long Reads,/news/science\"/>\
         </body></opml>",
    );
    let out = sandbox.tidings().arg("import").arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    let conn = Connection::open(sandbox.db()).unwrap();
    let tags: Vec<String> = conn
        .prepare("SELECT tag FROM feed_tags ORDER BY tag")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(tags, ["Long Reads", "news/science"]);
}
