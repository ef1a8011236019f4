//! The headless commands, run as the real binary against a loopback server and a temp database.

mod support;

use support::server::{Reply, Server};
use support::{Sandbox, opml, path_str, rss, stderr, stdout};
use tidings::model::UserWrite;
use tidings::store;

fn served() -> Server {
    let server = Server::start();
    server.route(
        "/good.xml",
        Reply::ok(
            "application/rss+xml",
            rss("Good Feed", &[("g1", "First", "<p>one</p>"), ("g2", "Second", "<p>two</p>")]),
        ),
    );
    server.route(
        "/html",
        Reply::ok("text/html; charset=utf-8", "<html><head><title>Home</title></head><body>Welcome</body></html>"),
    );
    server
}

#[test]
fn import_prints_a_report_of_added_duplicates_and_failures() {
    let sandbox = Sandbox::new();
    let file = sandbox.write(
        "subs.opml",
        r#"<?xml version="1.0"?><opml version="1.0"><head/><body>
           <outline text="A" xmlUrl="http://127.0.0.1:9/a.xml"/>
           <outline text="Tech"><outline text="B" xmlUrl="http://127.0.0.1:9/b.xml"/></outline>
           <outline text="A again" xmlUrl="http://127.0.0.1:9/a.xml"/>
           <outline text="Gopher" xmlUrl="gopher://127.0.0.1/x"/>
           </body></opml>"#,
    );
    let out = sandbox.run(&["import", path_str(&file)]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(3), "a failed outline gives the documented status 3\n{text}{}", stderr(&out));
    assert!(text.contains("added       2"), "{text}");
    assert!(text.contains("duplicates  1"), "{text}");
    assert!(text.contains("failed      1"), "{text}");
    assert!(text.contains("gopher://127.0.0.1/x: unsupported URL scheme 'gopher'"), "{text}");

    // Importing again adds nothing: everything is a duplicate now.
    let again = sandbox.run(&["import", path_str(&file)]);
    assert!(stdout(&again).contains("added       0"), "{}", stdout(&again));
    assert!(stdout(&again).contains("duplicates  3"), "{}", stdout(&again));
}

#[test]
fn a_file_that_is_not_opml_is_refused_by_name_and_nothing_is_imported() {
    let sandbox = Sandbox::new();
    let good = sandbox.write("good.opml", opml(&[(None, "A", "http://127.0.0.1:9/a.xml")]));
    assert!(sandbox.run(&["import", path_str(&good)]).status.success());
    let feed = sandbox.write("feed.xml", rss("Not a list", &[("x", "y", "z")]));
    let out = sandbox.run(&["import", path_str(&feed)]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("feed.xml"), "the error names the file: {err}");
    assert!(err.contains("not an OPML file") && err.contains("<rss>"), "and says what is wrong: {err}");
    let unread = sandbox.run(&["unread"]);
    assert_eq!(
        stdout(&unread).lines().count(),
        2,
        "still only the first import's feed and the total: {}",
        stdout(&unread)
    );
}

#[test]
fn refresh_reports_each_failed_feed_and_exits_with_status_3() {
    let server = served();
    let sandbox = Sandbox::new();
    let list = opml(&[
        (None, "Good", &server.url("/good.xml")),
        (None, "Gone", &server.url("/missing.xml")),
        (None, "Home", &server.url("/html")),
    ]);
    let file = sandbox.write("subs.opml", list);
    let out = sandbox.tidings().arg("--opml").arg(&file).arg("refresh").output().unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(3), "{text}{}", stderr(&out));
    assert!(text.contains("Refreshed 3 feeds: 1 updated (2 new entries), 0 not modified, 2 failed."), "{text}");
    let gone = format!("FAILED  Gone <{}> [http]: HTTP 404", server.url("/missing.xml"));
    assert!(text.contains(&gone), "{text}");
    assert!(
        text.contains("FAILED  Home <") && text.contains("[not-a-feed]") && text.contains("tidings discover"),
        "{text}"
    );

    // JSON summary, and a second refresh that finds nothing new.
    let out = sandbox.run(&["refresh", "--json"]);
    let summary: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(summary["feeds"], 3);
    assert_eq!(summary["new_entries"], 0);
    assert_eq!(summary["not_indexed"], 2, "the first refresh's entries, left for the search to index: {summary}");
    assert_eq!(summary["failed"].as_array().unwrap().len(), 2);
    assert_eq!(summary["failed"][0]["kind"], "http");
}

#[test]
fn refresh_with_every_feed_fine_exits_0() {
    let server = served();
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Good", &server.url("/good.xml"))]));
    let out = sandbox.tidings().arg("--opml").arg(&file).arg("refresh").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn a_refresh_ends_with_its_log_in_the_database_and_none_left_for_the_next_command_to_read_back() {
    let server = Server::start();
    for i in 0..20 {
        let items = [("one", "First", "<p>one</p>"), ("two", "Second", "<p>two</p>")];
        server.route(&format!("/{i}.xml"), Reply::ok("application/rss+xml", rss(&format!("Feed {i}"), &items)));
    }
    let sandbox = Sandbox::new();
    let feeds: Vec<(Option<&str>, String, String)> =
        (0..20).map(|i| (None, format!("Feed {i}"), server.url(&format!("/{i}.xml")))).collect();
    let listed: Vec<(Option<&str>, &str, &str)> = feeds.iter().map(|(f, t, u)| (*f, t.as_str(), u.as_str())).collect();
    let file = sandbox.write("subs.opml", opml(&listed));
    let out = sandbox.tidings().arg("--opml").arg(&file).arg("refresh").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    // SQLite removes the log when the last connection closes; an emptied log left behind is as good.
    let log = sandbox.path("tidings.db-wal");
    let left = std::fs::metadata(&log).map_or(0, |m| m.len());
    assert_eq!(left, 0, "the refresh left {left} bytes of log for the next process to read back");
    // And everything the refresh stored is in the database file itself.
    let conn = rusqlite::Connection::open_with_flags(sandbox.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let entries: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(entries, 40);
}

/// A host that answers over HTTP/2 serves every request on one connection: once its first answer shows it, its
/// other unchanged feeds are asked about at once (up to the six a host is asked at a time), not three to a
/// connection in turn as on HTTP/1. (Where the system's verifier ignores `SSL_CERT_FILE`, macOS and Windows, the
/// test authority cannot be trusted for one process.)
#[cfg(all(unix, not(target_vendor = "apple")))]
#[test]
fn a_host_answering_over_http2_is_asked_about_all_its_unchanged_feeds_at_once() {
    let server = support::h2::H2Server::start();
    let feeds: Vec<(Option<&str>, String, String)> = (0..7)
        .map(|i| {
            let path = format!("/{i}.xml");
            server.route(&path, &format!("\"v{i}\""), rss(&format!("Feed {i}"), &[("one", "First", "<p>one</p>")]));
            (None, format!("Feed {i}"), server.url(&path))
        })
        .collect();
    let listed: Vec<(Option<&str>, &str, &str)> = feeds.iter().map(|(f, t, u)| (*f, t.as_str(), u.as_str())).collect();
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&listed));
    sandbox.tidings().arg("import").arg(&file).output().unwrap();
    // The test authority signed the server's certificate: trusted by these processes alone.
    let refresh = || sandbox.tidings().env("SSL_CERT_FILE", support::h2::authority()).arg("refresh").output().unwrap();
    let out = refresh();
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("7 updated"), "{}", stdout(&out));

    // The first revalidation is answered at once; the others are held until six are in flight together.
    server.hold_until(6);
    let out = refresh();
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("7 not modified"), "{}", stdout(&out));
    assert_eq!(server.most_in_flight(), 6, "the host's revalidations once its first answer came over HTTP/2");
    // Three went out before any answer, each on a connection of its own unless one already set up took it (on one
    // thread, a feed's request starts after the last one's connection had its turn); the four after shared those.
    let connections = server.connections();
    assert!((1..=3).contains(&connections), "{connections} connections for seven revalidations");
}

#[test]
fn unread_prints_counts_per_feed_and_the_total() {
    let server = served();
    let sandbox = Sandbox::new();
    let file = sandbox
        .write("subs.opml", opml(&[(None, "Good", &server.url("/good.xml")), (None, "Gone", &server.url("/nope"))]));
    sandbox.tidings().arg("--opml").arg(&file).arg("refresh").output().unwrap();
    let out = sandbox.run(&["unread"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    // The names the OPML file gave are the user's: they stay after the feed says it is "Good Feed".
    assert!(lines.iter().any(|l| l.trim_start() == "2  Good"), "{text}");
    assert!(lines.iter().any(|l| l.trim_start().starts_with("0  Gone")), "{text}");
    assert_eq!(lines[2].trim_start(), "2  total");
}

#[test]
fn export_then_import_into_an_empty_database_gives_the_same_subscriptions() {
    let sandbox = Sandbox::new();
    let file = sandbox.write(
        "subs.opml",
        opml(&[
            (None, "Top", "http://127.0.0.1:9/top.xml"),
            (Some("News"), "N1", "http://127.0.0.1:9/n1.xml"),
            (Some("News"), "N2", "http://127.0.0.1:9/n2.xml"),
        ]),
    );
    sandbox.run(&["import", path_str(&file)]);
    let exported = sandbox.path("out.opml");
    let out = sandbox.run(&["export", "-o", path_str(&exported)]);
    assert!(out.status.success(), "{}", stderr(&out));

    let other = Sandbox::new();
    let out = other.run(&["import", path_str(&exported)]);
    assert!(stdout(&out).contains("added       3"), "{}", stdout(&out));
    let before = sandbox.run(&["export"]);
    let after = other.run(&["export"]);
    let body = |o: &std::process::Output| {
        stdout(o).lines().filter(|l| !l.contains("dateCreated")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(body(&before), body(&after));
    assert!(body(&after).contains("<outline text=\"News\" title=\"News\">"), "{}", body(&after));
}

/// Every feed's tags, by URL, as the database holds them.
fn feed_tags(sandbox: &Sandbox) -> Vec<(String, Vec<String>)> {
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let mut stmt =
        db.prepare("SELECT f.url, t.tag FROM feed_tags t JOIN feeds f ON f.id = t.feed_id ORDER BY 1, 2").unwrap();
    let rows: Vec<(String, String)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for (url, tag) in rows {
        match out.last_mut() {
            Some((last, tags)) if *last == url => tags.push(tag),
            _ => out.push((url, vec![tag])),
        }
    }
    out
}

#[test]
fn export_writes_each_feeds_tags_as_its_category_and_import_reads_them_back_exactly() {
    let sandbox = Sandbox::new();
    let file = sandbox.write(
        "subs.opml",
        opml(&[(None, "Top", "http://127.0.0.1:9/top.xml"), (Some("News"), "N1", "http://127.0.0.1:9/n1.xml")]),
    );
    sandbox.run(&["import", path_str(&file)]);
    let tags: Vec<String> = ["Long Reads", "News/World", "one, two", "50% off", "Café/日本語", "odd / spaced", "news"]
        .iter()
        .map(|t| t.to_string())
        .collect();
    {
        let mut conn = store::open_write(&sandbox.db()).unwrap();
        for url in ["http://127.0.0.1:9/top.xml", "http://127.0.0.1:9/n1.xml"] {
            let feed_id = store::feeds::local_id(&conn, url).unwrap().expect("imported");
            store::apply(&mut conn, &UserWrite::SetFeedTags { feed_id, tags: tags.clone() }, 0).unwrap();
        }
    }
    let before = feed_tags(&sandbox);
    assert_eq!(before.len(), 2, "{before:?}");
    let exported = sandbox.path("out.opml");
    let out = sandbox.run(&["export", "-o", path_str(&exported)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = std::fs::read_to_string(&exported).unwrap();
    assert!(written.contains("category=\"/,/50%25 off,"), "the top-level feed's category: {written}");

    let other = Sandbox::new();
    let out = other.run(&["import", path_str(&exported)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(feed_tags(&other), before, "every tag back exactly, on the same feeds");
    let folders = |s: &Sandbox| {
        let db = rusqlite::Connection::open(s.db()).unwrap();
        let mut stmt = db.prepare("SELECT name FROM folders ORDER BY name").unwrap();
        stmt.query_map([], |r| r.get::<_, String>(0)).unwrap().collect::<Result<Vec<_>, _>>().unwrap()
    };
    assert_eq!(folders(&other), folders(&sandbox), "no tag became a folder");
    let body = |s: &Sandbox| {
        let o = s.run(&["export"]);
        stdout(&o).lines().filter(|l| !l.contains("dateCreated")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(body(&other), body(&sandbox), "the second export is the first");
}

#[test]
fn import_opml_in_the_config_imports_at_every_start_relative_to_the_config_file() {
    let sandbox = Sandbox::new();
    sandbox
        .write("subs.opml", opml(&[(None, "A", "http://127.0.0.1:9/a.xml"), (None, "B", "http://127.0.0.1:9/b.xml")]));
    let config = sandbox.write("config.toml", "import_opml = \"subs.opml\"\nrefresh_on_startup = false\n");
    let out = sandbox.tidings().arg("--config").arg(&config).arg("unread").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 3, "two feeds and the total: {}", stdout(&out));
    let again = sandbox.tidings().arg("--config").arg(&config).arg("unread").output().unwrap();
    assert_eq!(stdout(&again).lines().count(), 3, "duplicates skipped the second time");
}

#[test]
fn a_bad_config_key_is_an_error_naming_the_key() {
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", "concurrency = 4\nrefresh_evry = 5\n");
    let out = sandbox.tidings().arg("--config").arg(&config).arg("unread").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("config.toml") && err.contains("refresh_evry") && err.contains("line 2"), "{err}");
}

#[test]
fn the_manual_and_the_completions_are_printed_whatever_the_config_says() {
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", "refresh_evry = 5\n");
    let man = sandbox.tidings().arg("--config").arg(&config).arg("man").output().unwrap();
    assert_eq!(man.status.code(), Some(0), "{}", stderr(&man));
    let page = stdout(&man);
    assert!(page.starts_with(".ie") && page.contains(".SH KEYS") && page.contains(".SH \"EXIT STATUS\""), "{page}");
    let fish = sandbox.tidings().arg("--config").arg(&config).args(["completions", "fish"]).output().unwrap();
    assert_eq!(fish.status.code(), Some(0), "{}", stderr(&fish));
    assert!(stdout(&fish).contains("complete -c tidings"), "{}", stdout(&fish));
}

#[test]
fn a_database_from_a_newer_tidings_is_refused_and_left_alone() {
    let sandbox = Sandbox::new();
    {
        let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
        conn.execute_batch("CREATE TABLE x(y); PRAGMA user_version = 99;").unwrap();
    }
    let before = std::fs::read(sandbox.db()).unwrap();
    let out = sandbox.run(&["unread"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("newer tidings"), "{}", stderr(&out));
    assert_eq!(std::fs::read(sandbox.db()).unwrap(), before);
}

#[test]
fn files_default_to_the_xdg_directories() {
    let sandbox = Sandbox::new();
    let home = sandbox.path("home");
    let file = sandbox.write("subs.opml", opml(&[(None, "A", "http://127.0.0.1:9/a.xml")]));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tidings"))
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("cfg"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .arg("import")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(home.join("data/tidings/tidings.db").exists());
    assert!(home.join("state/tidings/tidings.log").exists());
}

/// `--log FILE` puts the log there, and nothing in the state directory.
#[test]
fn the_log_goes_where_log_says() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Gone", "http://127.0.0.1:9/a.xml")]));
    let log = sandbox.path("logs/here.log");
    let out = sandbox.tidings().arg("--log").arg(&log).arg("--opml").arg(&file).arg("refresh").output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let written = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    assert!(written.contains("refresh failed") && written.contains("127.0.0.1:9/a.xml"), "{written}");
    assert!(!sandbox.path("home/.local/state/tidings/tidings.log").exists(), "not the default log too");
    // A log that cannot be written is said, and the command goes on.
    let nowhere = file.join("tidings.log");
    let out = sandbox.tidings().arg("--log").arg(&nowhere).arg("unread").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: cannot write the log to") && stderr(&out).contains("going on without it"),
        "{}",
        stderr(&out)
    );
}

/// KOI8-R text served as text/html with a declaration that says utf-8: the case the product is built around.
fn koi8_as_html() -> Vec<u8> {
    let xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>Новости</title>\
               <item><guid>1</guid><title>Как пережить новогоднюю ночь</title><pubDate>Tue, 10 Jun 2025 04:00:00 GMT</pubDate>\
               <description>Наверное, единственное, во что сегодня можно верить безоговорочно.</description></item></channel></rss>";
    encoding_rs::KOI8_R.encode(xml).0.into_owned()
}

#[test]
fn inspect_a_url_reads_a_mislabelled_feed_right_and_says_why() {
    let server = Server::start();
    server.route(
        "/ru.xml",
        Reply::Ok { status: 200, headers: vec![("Content-Type".into(), "text/html".into())], body: koi8_as_html() },
    );
    let sandbox = Sandbox::new();
    let out = sandbox.run(&["inspect", &server.url("/ru.xml")]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("Как пережить новогоднюю ночь"), "{text}");
    assert!(text.contains("KOI8-R from statistical detection (it guessed KOI8-U)"), "{text}");
    assert!(text.contains("the XML declaration said utf-8 and was overridden"), "{text}");
    assert!(text.contains("not an XML media type"), "the strict reading's failure is told: {text}");

    let out = sandbox.run(&["inspect", "--json", &server.url("/ru.xml")]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["http"]["status"], 200);
    assert_eq!(v["http"]["content_type"], "text/html");
    assert_eq!(v["encoding"]["name"], "KOI8-R");
    assert_eq!(v["encoding"]["source"], "detector");
    assert_eq!(v["encoding"]["signals"]["xml_declaration"], "utf-8");
    assert_eq!(v["encoding"]["signals"]["detected"], "KOI8-U");
    assert_eq!(v["encoding"]["overridden"][0], "xml_declaration");
    assert_eq!(v["feed"]["title"], "Новости");
    assert_eq!(v["entries"][0]["title"], "Как пережить новогоднюю ночь");
    assert_eq!(v["entries"][0]["published"], "2025-06-10T04:00:00Z");
}

#[test]
fn inspect_a_file_with_a_content_type_standing_in_for_the_header() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("ru.xml", koi8_as_html());
    let out =
        sandbox.run(&["inspect", "--json", "--content-type", "application/rss+xml; charset=koi8-r", path_str(&file)]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["http"], serde_json::Value::Null);
    assert_eq!(v["encoding"]["source"], "http-charset");
    assert_eq!(v["entries"][0]["title"], "Как пережить новогоднюю ночь");
    // Without the header, the file's own declaration is believed until the text fails to decode.
    let out = sandbox.run(&["inspect", "--json", path_str(&file)]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["entries"][0]["title"], "Как пережить новогоднюю ночь");
    assert_eq!(v["encoding"]["strict"]["encoding"], "UTF-8");
}

#[test]
fn inspect_of_something_that_is_not_a_feed_exits_3_with_the_reason() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("page.html", "<!DOCTYPE html><html><head><title>x</title></head><body></body></html>");
    let out = sandbox.run(&["inspect", path_str(&file)]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stdout(&out).contains("tidings discover"), "{}", stdout(&out));
    assert!(!sandbox.db().exists(), "inspect writes nothing");
}

#[test]
fn read_only_commands_on_a_missing_database_say_what_to_do_and_create_nothing() {
    let sandbox = Sandbox::new();
    for command in ["unread", "export"] {
        let out = sandbox.run(&[command]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let err = stderr(&out);
        assert!(err.contains("no database at") && err.contains("tidings import"), "{command}: {err}");
        assert_eq!(err.lines().count(), 1, "{command}: {err}");
        assert!(!sandbox.db().exists(), "{command} created the database");
    }
}

#[test]
fn export_and_unread_leave_the_database_file_as_it_was() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "A", "http://127.0.0.1:9/a.xml")]));
    assert!(sandbox.run(&["import", path_str(&file)]).status.success());
    let before = std::fs::read(sandbox.db()).unwrap();
    for command in ["unread", "export"] {
        assert!(sandbox.run(&[command]).status.success(), "{command}");
    }
    assert_eq!(std::fs::read(sandbox.db()).unwrap(), before);
}

/// A database of `n` subscriptions, imported.
fn imported(sandbox: &Sandbox, n: usize) {
    let feeds: Vec<(Option<&str>, String, String)> =
        (0..n).map(|i| (None, format!("Feed number {i}"), format!("http://127.0.0.1:9/feed/{i}.xml"))).collect();
    let list: Vec<(Option<&str>, &str, &str)> = feeds.iter().map(|(f, t, u)| (*f, t.as_str(), u.as_str())).collect();
    let file = sandbox.write("many.opml", opml(&list));
    assert!(sandbox.run(&["import", path_str(&file)]).status.success());
}

#[test]
fn a_closed_pipe_ends_export_and_unread_quietly_with_status_0() {
    let sandbox = Sandbox::new();
    // Far more output than a pipe holds, so the writes meet the closed pipe.
    imported(&sandbox, 5_000);
    for command in ["export", "unread"] {
        let mut child = sandbox
            .tidings()
            .arg(command)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{command} says nothing");
    }
}

#[test]
fn a_pipe_closed_before_the_first_write_ends_keys_and_search_quietly_even_on_stderr() {
    let sandbox = Sandbox::new();
    imported(&sandbox, 20);
    // Both outputs into a pipe whose reading end is already closed (`2>&1 | head` after head has gone):
    // every write meets it, the first as much as the last.
    for args in [vec!["keys"], vec!["keys", "--markdown"], vec!["search", "feed"], vec!["unread"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let status = sandbox.tidings().args(&args).stdout(writer.try_clone().unwrap()).stderr(writer).status().unwrap();
        assert!(matches!(status.code(), Some(0 | 3)), "{args:?}: {status}");
    }
}

#[test]
fn a_missing_file_is_said_once() {
    let sandbox = Sandbox::new();
    let out = sandbox.run(&["import", path_str(&sandbox.path("nowhere.opml"))]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("nowhere.opml"), "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

#[test]
fn a_damaged_database_is_said_once_with_what_to_do() {
    let sandbox = Sandbox::new();
    imported(&sandbox, 3_000);
    // Keep the header page, overwrite every other page.
    let mut bytes = std::fs::read(sandbox.db()).unwrap();
    assert!(bytes.len() > 3 * 4096, "{}", bytes.len());
    for b in &mut bytes[4096..] {
        *b = 0xA5;
    }
    std::fs::write(sandbox.db(), bytes).unwrap();
    for command in ["unread", "export", "refresh"] {
        let out = sandbox.run(&[command]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let err = stderr(&out);
        assert_eq!(err.matches("malformed").count(), 1, "{command}: {err}");
        assert!(!err.contains("Error code"), "{command}: {err}");
        assert!(err.contains("damaged") && err.contains("move it aside"), "{command}: {err}");
    }
}

#[test]
fn a_long_opml_file_is_imported_with_progress_on_stderr() {
    let sandbox = Sandbox::new();
    let n = 20_000;
    let mut xml = String::from("<?xml version=\"1.0\"?><opml version=\"2.0\"><body>\n");
    for i in 0..n {
        xml.push_str(&format!(
            "<outline text=\"F{}\"><outline text=\"Feed {i}\" xmlUrl=\"http://127.0.0.1:9/{i}.xml\"/></outline>\n",
            i % 50
        ));
    }
    xml.push_str("</body></opml>\n");
    let file = sandbox.write("long.opml", xml);
    let out = sandbox.run(&["import", path_str(&file)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(&format!("added       {n}")), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!("Importing {n}/{n} subscriptions")), "{err}");
    assert!(err.lines().count() >= 3, "progress along the way: {err}");
    let unread = stdout(&sandbox.run(&["unread"]));
    assert_eq!(unread.lines().count(), n + 1, "every feed and the total");
}

/// A Japanese feed in ISO-2022-JP, declaring utf-8: 7-bit bytes whose escape sequences are the only signal.
fn iso_2022_jp_feed() -> Vec<u8> {
    let xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>天気予報</title>\
               <item><guid>1</guid><title>東京は晴れ、気温は二十度</title></item></channel></rss>";
    encoding_rs::ISO_2022_JP.encode(xml).0.into_owned()
}

#[test]
fn inspect_reads_iso_2022_jp_by_its_escape_sequences_whatever_the_label_says() {
    let server = Server::start();
    let content_types = ["text/xml", "application/octet-stream", "application/rss+xml; charset=us-ascii", ""];
    for (i, content_type) in content_types.iter().enumerate() {
        let headers = match *content_type {
            "" => vec![],
            ct => vec![("Content-Type".to_string(), ct.to_string())],
        };
        server.route(&format!("/jp{i}.xml"), Reply::Ok { status: 200, headers, body: iso_2022_jp_feed() });
    }
    let sandbox = Sandbox::new();
    for (i, content_type) in content_types.iter().enumerate() {
        let out = sandbox.run(&["inspect", "--json", &server.url(&format!("/jp{i}.xml"))]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(v["entries"][0]["title"], "東京は晴れ、気温は二十度", "{content_type}: {v}");
        assert_eq!(v["encoding"]["name"], "ISO-2022-JP", "{content_type}");
        assert_eq!(v["encoding"]["source"], "escape-sequences", "{content_type}");
        assert_eq!(v["encoding"]["signals"]["escape_sequences"], "ISO-2022-JP", "{content_type}");
    }
    let out = sandbox.run(&["inspect", &server.url("/jp0.xml")]);
    assert!(stdout(&out).contains("ISO-2022-JP from its escape sequences"), "{}", stdout(&out));
}

#[test]
fn bidi_overrides_never_reach_the_command_line_and_hebrew_stays_readable() {
    let server = Server::start();
    let title = "\u{202e}gnp.exe\u{2066} שלום עולם";
    server.route(
        "/spoof.xml",
        Reply::ok("application/rss+xml", rss(title, &[("1", "\u{202b}חדשות\u{202c} today \u{2067}x", "<p>b</p>")])),
    );
    let sandbox = Sandbox::new();
    // Subscribed by address, so the feed's own title is its name.
    let added = sandbox.run(&["add", &server.url("/spoof.xml")]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert!(!stdout(&added).chars().any(tidings::sanitize::is_bidi_control), "{:?}", stdout(&added));
    let out = sandbox.run(&["refresh"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let unread = stdout(&sandbox.run(&["unread"]));
    let inspect = stdout(&sandbox.run(&["inspect", "--json", &server.url("/spoof.xml")]));
    for text in [&unread, &inspect] {
        assert!(!text.chars().any(tidings::sanitize::is_bidi_control), "{text:?}");
    }
    assert!(unread.contains("1  gnp.exe שלום עולם"), "{unread:?}");
    let v: serde_json::Value = serde_json::from_str(&inspect).unwrap();
    assert_eq!(v["feed"]["title"], "gnp.exe שלום עולם");
    assert_eq!(v["entries"][0]["title"], "חדשות today x");
}

#[test]
fn a_document_that_crashes_the_parser_is_an_error_not_a_panic_on_the_terminal() {
    let sandbox = Sandbox::new();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fuzz");
    for name in ["author-email-next-to-a-multibyte-character.bin", "date-cut-inside-a-character.bin"] {
        let out = sandbox.run(&["inspect", &format!("{fixtures}/{name}")]);
        assert!(matches!(out.status.code(), Some(0 | 3)), "{name}: {:?} {}", out.status, stderr(&out));
        assert_eq!(stderr(&out), "", "{name}: nothing but the report");
    }
}

/// Runs `cmd` with a umask of 000, as a careless shell profile sets it.
#[cfg(unix)]
fn with_umask_000(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: umask is async-signal-safe and touches nothing but the child's own file mode mask.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0);
            Ok(())
        })
    }
}

#[cfg(unix)]
#[test]
fn under_umask_000_the_log_is_readable_and_writable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "A", "http://127.0.0.1:9/a.xml")]));
    let out = with_umask_000(sandbox.tidings().args(["import", path_str(&file)])).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let log = sandbox.path("home/.local/state/tidings/tidings.log");
    let mode = std::fs::metadata(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display())).permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the log is created {:o}", mode & 0o777);
}

/// 60 feeds on a server that closes every kept-alive connection after one answer without saying so, ten
/// refreshes: none fails, and the summary counts the requests sent again.
#[test]
fn refresh_on_a_server_that_closes_idle_connections_fails_nothing_and_counts_the_retries() {
    let server = Server::start_closing_after_each_answer();
    let list: Vec<(String, String)> = (0..60)
        .map(|i| {
            server.route(
                &format!("/c{i}.xml"),
                Reply::ok("application/rss+xml", rss(&format!("C{i}"), &[("1", "a", "b")])),
            );
            (format!("C{i}"), server.url(&format!("/c{i}.xml")))
        })
        .collect();
    let refs: Vec<(Option<&str>, &str, &str)> = list.iter().map(|(t, u)| (None, t.as_str(), u.as_str())).collect();
    let sandbox = Sandbox::new();
    let subs = sandbox.write("subs.opml", opml(&refs));
    let mut retried = 0;
    for round in 0..10 {
        let mut cmd = sandbox.tidings();
        if round == 0 {
            cmd.arg("--opml").arg(&subs);
        }
        let out = cmd.args(["refresh", "--force"]).output().unwrap();
        let said = stdout(&out);
        assert!(out.status.success(), "round {round}: {said}{}", stderr(&out));
        assert!(said.contains(", 0 failed"), "round {round}: {said}");
        if let Some(line) = said.lines().find(|l| l.starts_with("Sent ")) {
            retried += line.split_whitespace().nth(1).and_then(|n| n.parse::<usize>().ok()).unwrap();
        }
    }
    assert!(server.dropped() > 0, "no pooled connection was reused, so nothing was tested");
    assert!(retried > 0 && retried <= server.dropped(), "{retried} retries said, {} dropped", server.dropped());
}

#[test]
fn add_gives_the_new_feed_its_settings_from_the_config_before_its_first_fetch() {
    let server = Server::start();
    server.route("/own.xml", Reply::ok("application/rss+xml", rss("Own", &[("1", "One", "<p>b</p>")])));
    server.route("/plain.xml", Reply::ok("application/rss+xml", rss("Plain", &[("1", "One", "<p>b</p>")])));
    let sandbox = Sandbox::new();
    let own = server.url("/own.xml");
    let config = sandbox.write(
        "config.toml",
        format!(
            "notify_every_feed = true\n[feeds.\"{own}\"]\nnotify = false\nhide_from_unread = true\nrefresh_minutes = 15\n"
        ),
    );
    let add = |url: &str| {
        let added = sandbox.run(&["--config", path_str(&config), "add", url]);
        assert!(added.status.success(), "{}", stderr(&added));
    };
    let settings = |url: &str| -> (bool, bool, Option<u32>) {
        let conn = rusqlite::Connection::open(sandbox.db()).unwrap();
        conn.query_row("SELECT notify, hide_from_unread, refresh_minutes FROM feeds WHERE url = ?1", [url], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap()
    };
    add(&own);
    assert_eq!(settings(&own), (false, true, Some(15)), "its own [feeds.\"URL\"] table");
    add(&server.url("/plain.xml"));
    assert_eq!(settings(&server.url("/plain.xml")), (true, false, None), "the config's default for every feed");
}

#[test]
fn export_markdown_writes_a_file_per_entry_with_front_matter_and_only_what_the_query_matches() {
    let server = Server::start();
    let items = [
        ("a1", "First ../../../escape", "<p>one <a href=\"/more\">more</a></p>"),
        ("a2", "Second", "<p>two</p>"),
        ("a3", ".hidden dot", "<p>three</p>"),
    ];
    server.route("/feed.xml", Reply::ok("application/rss+xml", rss("Long Reads", &items)));
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Long Reads", &server.url("/feed.xml"))]));
    let out = sandbox.tidings().arg("--opml").arg(&file).arg("refresh").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let dir = sandbox.path("notes");
    let out = sandbox.run(&["export", "--markdown", path_str(&dir), "--query", "two"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(written, [path_str(&dir.join("Long Reads/2025-06-11-Second.md"))], "only the match");
    let text = std::fs::read_to_string(dir.join("Long Reads/2025-06-11-Second.md")).unwrap();
    assert!(text.starts_with("---\ntitle: \"Second\"\nfeed: \"Long Reads\"\ndate: 2025-06-11T10:00:00Z\n"), "{text}");
    assert!(text.contains("url: \"http://example.com/a2\"\ntags: []\n---\n\n# Second\n\ntwo\n"), "{text}");

    // The query language, not only words to search for.
    let fielded = sandbox.path("fielded");
    let out = sandbox.run(&["export", "--markdown", path_str(&fielded), "--query", "title ~ second or url ~ a3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    let out = sandbox.run(&["export", "--markdown", path_str(&fielded), "--query", "title ~ ("]);
    assert_eq!(out.status.code(), Some(2), "a query that means nothing is refused: {}", stdout(&out));

    let out = sandbox.run(&["export", "--markdown", path_str(&dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut names: Vec<String> = std::fs::read_dir(dir.join("Long Reads"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["2025-06-10-First-escape.md", "2025-06-11-Second.md", "2025-06-12-hidden dot.md"]);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "nothing beside the feed's folder");
    let first = std::fs::read_to_string(dir.join("Long Reads/2025-06-10-First-escape.md")).unwrap();
    assert!(first.contains("one [more][1]\n\n[1]: <http://example.com/more>\n"), "{first}");

    let out = sandbox.run(&["export", "--markdown", path_str(&dir), "--path", "../{title}.md"]);
    assert_eq!(out.status.code(), Some(2), "a template leading out is refused");
    assert!(stderr(&out).contains("must not contain . or .."), "{}", stderr(&out));
}

/// The reader, started where there is no terminal (a script, a service, output to a file), says what it needs
/// and what to run instead, and draws nothing.
#[test]
fn the_reader_without_a_terminal_says_so_and_names_the_commands_for_scripts() {
    let sandbox = Sandbox::new();
    let out = sandbox.tidings().stdin(std::process::Stdio::null()).output().expect("run tidings");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("needs a terminal") && said.contains("tidings refresh"), "{said}");
    assert!(out.stdout.is_empty(), "nothing drawn: {:?}", stdout(&out));
}

/// Outlines `--opml` could not import are named on standard error, whatever the command, as `tidings import`
/// names them; a clean import is one line.
#[test]
fn opml_given_to_a_command_names_the_outlines_it_could_not_import() {
    let sandbox = Sandbox::new();
    let file = sandbox.write(
        "subs.opml",
        r#"<?xml version="1.0"?><opml version="1.0"><head/><body>
           <outline text="Fine" xmlUrl="http://127.0.0.1:9/fine.xml"/>
           <outline text="Script" xmlUrl="javascript:alert(1)"/>
           <outline text="Local" xmlUrl="file:///etc/passwd"/>
           </body></opml>"#,
    );
    let out = sandbox.tidings().arg("--opml").arg(&file).arg("unread").output().unwrap();
    let said = stderr(&out);
    assert!(said.contains("failed      2"), "{said}");
    assert!(
        said.contains("javascript:alert(1): unsupported URL scheme") && said.contains("file:///etc/passwd"),
        "{said}"
    );
    let again = sandbox.tidings().arg("--opml").arg(&file).arg("unread").output().unwrap();
    let said = stderr(&again);
    assert!(said.contains("duplicates  1") && said.contains("failed      2"), "every time: {said}");
    let clean = sandbox.write("one.opml", opml(&[(None, "Other", "http://127.0.0.1:9/other.xml")]));
    let out = sandbox.tidings().arg("--opml").arg(&clean).arg("unread").output().unwrap();
    assert_eq!(stderr(&out).trim(), "Imported one.opml: 1 added, 0 duplicates");
    let again = sandbox.tidings().arg("--opml").arg(&clean).arg("unread").output().unwrap();
    assert_eq!(stderr(&again), "", "nothing new, nothing said");
}

/// A password in a feed's address (a private feed) is never printed: not in a refresh's failures (in words or
/// in JSON), nor by inspect, nor in the log, nor by health; a feed with no title goes by its address with the
/// password hidden.
#[test]
fn a_password_in_a_feeds_address_is_never_printed() {
    let server = served();
    let sandbox = Sandbox::new();
    let private = server.url("/private.xml").replace("http://", "http://me:s3cret@");
    let untitled = server.url("/untitled.xml").replace("http://", "http://me:s3cret@");
    let file = sandbox.write("subs.opml", opml(&[(None, "Private", &private), (None, "", &untitled)]));
    let out = sandbox.tidings().arg("--opml").arg(&file).arg("refresh").output().unwrap();
    let printed = format!("{}{}", stdout(&out), stderr(&out));
    assert!(printed.contains("FAILED  Private <http://me:***@127.0.0.1:"), "{printed}");
    let shown_untitled = untitled.replace("s3cret", "***");
    assert!(printed.contains(&format!("FAILED  {shown_untitled} [")), "named by its address, once: {printed}");
    let json = stdout(&sandbox.run(&["refresh", "--json"]));
    assert!(json.contains(&format!("\"title\":\"{shown_untitled}\"")), "{json}");
    assert!(json.contains("\"url\":\"http://me:***@127.0.0.1:"), "{json}");
    let out = sandbox.run(&["inspect", &private]);
    let inspected = format!("{}{}", stdout(&out), stderr(&out));
    assert!(inspected.contains("http://me:***@127.0.0.1:"), "{inspected}");
    let log = std::fs::read_to_string(sandbox.path("home/.local/state/tidings/tidings.log")).unwrap();
    assert!(log.contains("http://me:***@127.0.0.1:"), "the log names the feeds: {log}");
    let health = stdout(&sandbox.run(&["health", "--json"]));
    assert!(health.contains("\"url\":\"http://me:***@127.0.0.1:"), "{health}");
    for said in [printed, json, inspected, log, health] {
        assert!(!said.contains("s3cret"), "{said}");
    }
}

/// `sync` with no account to sync says how to add one, and exits as a usage error does, not as a success.
#[test]
fn sync_with_no_account_says_how_to_add_one_and_does_not_exit_0() {
    let out = Sandbox::new().run(&["sync"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("add an [[accounts]] table"), "{}", stderr(&out));
}
