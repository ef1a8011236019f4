//! Kill rules, saved views and `tidings list`, as a newsboat user would write them, over a generated farm served
//! from a loopback server and refreshed by the real binary: every count is checked against an independent count
//! of the same generated entries (plain string tests here, not the query language).

mod support;

use support::server::{Reply, Server};
use support::{Sandbox, opml, path_str, stderr, stdout};

/// One generated item.
struct Item {
    guid: String,
    title: String,
    author: String,
    tags: Vec<&'static str>,
    audio: bool,
    age_hours: i64,
}

struct Feed {
    title: String,
    path: String,
    items: Vec<Item>,
}

/// Six feeds of 40 items; titles, authors, tags, media and ages vary by a small deterministic generator.
fn farm() -> Vec<Feed> {
    let mut seed: u64 = 20;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let titles = [
        "Sponsored: the best VPN",
        "Rust 1.90 is out",
        "Why I left my job",
        "SPONSORED post about coffee",
        "A café in Paris",
        "Show HN: a terminal feed reader",
        "Weekly links",
    ];
    let authors = ["Jane Doe", "X", "HN Bot", "Zoë"];
    let tags = ["rust", "Rust", "news", "podcast", "ads"];
    let names = ["Hacker News", "Lobsters", "Rust Blog", "Le Monde", "Podcast Weekly", "Sponsor Digest"];
    names
        .iter()
        .enumerate()
        .map(|(f, name)| Feed {
            title: name.to_string(),
            path: if f == 0 { "/hn/frontpage.xml".into() } else { format!("/feed{f}.xml") },
            items: (0..40)
                .map(|i| Item {
                    guid: format!("f{f}-{i}"),
                    title: titles[next(titles.len() as u64) as usize].to_string(),
                    author: authors[next(authors.len() as u64) as usize].to_string(),
                    tags: (0..next(3)).map(|_| tags[next(tags.len() as u64) as usize]).collect(),
                    audio: next(4) == 0,
                    age_hours: next(24 * 20) as i64 + 1,
                })
                .collect(),
        })
        .collect()
}

fn rss(feed: &Feed, now: i64) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\
         <channel><title>{}</title><link>http://example.com/</link><description>d</description>\n",
        feed.title
    );
    for item in &feed.items {
        let date = chrono::DateTime::from_timestamp(now - item.age_hours * 3600, 0).unwrap().to_rfc2822();
        let tags: String = item.tags.iter().map(|t| format!("<category>{t}</category>")).collect();
        let media = if item.audio {
            "<enclosure url=\"http://example.com/a.mp3\" type=\"audio/mpeg\" length=\"1\"/>"
        } else {
            ""
        };
        xml.push_str(&format!(
            "<item><guid>{}</guid><title>{}</title><link>http://example.com/{}</link><dc:creator>{}</dc:creator>\
             <pubDate>{date}</pubDate>{tags}{media}<description>&lt;p&gt;text&lt;/p&gt;</description></item>\n",
            item.guid, item.title, item.guid, item.author
        ));
    }
    xml.push_str("</channel></rss>\n");
    xml
}

/// The ids (guids) `tidings list … --json` printed, from their links.
fn listed(out: &std::process::Output) -> Vec<String> {
    assert!(out.status.success(), "{}{}", stdout(out), stderr(out));
    let json: serde_json::Value = serde_json::from_str(&stdout(out)).expect("JSON");
    let mut guids: Vec<String> = json["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["link"].as_str().unwrap().trim_start_matches("http://example.com/").to_string())
        .collect();
    assert_eq!(json["count"].as_u64(), Some(guids.len() as u64));
    guids.sort();
    guids
}

fn expected(farm: &[Feed], keep: impl Fn(&Feed, &Item) -> bool) -> Vec<String> {
    let mut guids: Vec<String> =
        farm.iter().flat_map(|f| f.items.iter().filter(|i| keep(f, i)).map(|i| i.guid.clone())).collect();
    guids.sort();
    guids
}

#[test]
fn rules_and_views_written_as_a_newsboat_user_would_count_what_an_independent_count_does() {
    let now = chrono::Utc::now().timestamp();
    let farm = farm();
    let server = Server::start();
    for feed in &farm {
        server.route(&feed.path, Reply::ok("application/rss+xml", rss(feed, now)));
    }
    let sandbox = Sandbox::new();
    let hn_url = server.url(&farm[0].path);
    let config = sandbox.write(
        "config.toml",
        format!(
            "# kill rules\n[[ignore]]\nquery = 'title ~ \"sponsored\"'\n\n[[ignore]]\nquery = 'author = \"X\"'\nfeed = \"{hn_url}\"\n\n\
             [[views]]\nname = \"Recent\"\nquery = 'age < 7d and unread'\n\n\
             [[views]]\nname = \"Rust\"\nquery = 'tag = rust or title ~ \"rust\"'\n"
        ),
    );
    let subs = sandbox.write(
        "subs.opml",
        opml(
            &farm
                .iter()
                .map(|f| (None, f.title.as_str(), server.url(&f.path)))
                .collect::<Vec<_>>()
                .iter()
                .map(|(a, b, c)| (*a, *b, c.as_str()))
                .collect::<Vec<_>>(),
        ),
    );
    let run = |args: &[&str]| {
        let mut all = vec!["--config", path_str(&config)];
        all.extend_from_slice(args);
        sandbox.run(&all)
    };
    assert!(run(&["import", path_str(&subs)]).status.success());
    let refreshed = run(&["refresh"]);
    assert!(refreshed.status.success(), "{}", stderr(&refreshed));

    let sponsored = |_: &Feed, i: &Item| i.title.to_lowercase().contains("sponsored");
    let x_on_hn = |f: &Feed, i: &Item| i.author == "X" && f.path.starts_with("/hn/");
    let ignored = |f: &Feed, i: &Item| sponsored(f, i) || x_on_hn(f, i);
    let caught = listed(&run(&["list", "--ignored", "--json"]));
    assert_eq!(caught, expected(&farm, ignored), "the kill rules caught what they say");
    assert!(!caught.is_empty());

    let shown = |keep: &dyn Fn(&Feed, &Item) -> bool| expected(&farm, |f, i| !ignored(f, i) && keep(f, i));
    assert_eq!(listed(&run(&["list", "--json"])), shown(&|_, _| true), "every list leaves them out");
    let recent = |_: &Feed, i: &Item| i.age_hours < 7 * 24;
    assert_eq!(listed(&run(&["list", "--view", "recent", "--json"])), shown(&recent));
    let rust = |_: &Feed, i: &Item| {
        i.tags.iter().any(|t| t.eq_ignore_ascii_case("rust")) || i.title.to_lowercase().contains("rust")
    };
    assert_eq!(listed(&run(&["list", "--view", "Rust", "--json"])), shown(&rust));
    let hn_x = listed(&run(&["list", "--query", "author = \"X\" and feed ~ \"hn\"", "--json"]));
    assert!(hn_x.is_empty(), "the rule hid them all: {hn_x:?}");
    let podcasts = |_: &Feed, i: &Item| i.audio && i.author != "Jane Doe";
    assert_eq!(
        listed(&run(&["list", "--query", "enclosure ~ audio and author != \"jane doe\"", "--json"])),
        shown(&podcasts)
    );
    let cafe = |_: &Feed, i: &Item| i.title.contains("café");
    assert_eq!(listed(&run(&["list", "--query", "title ~ cafe", "--unread", "--json"])), shown(&cafe));
    let lobsters = |f: &Feed, _: &Item| f.title == "Lobsters";
    assert_eq!(listed(&run(&["list", "--feed", "lobsters", "--json"])), shown(&lobsters));

    // A rule that catches too much shows in --ignored; removing it brings its entries back.
    let wide = sandbox.write("wide.toml", "[[ignore]]\nquery = 'feed ~ \"\"'\n");
    let out = sandbox.run(&["--config", path_str(&wide), "list", "--ignored", "--json"]);
    assert_eq!(listed(&out).len(), 240);
    let none = sandbox.write("none.toml", "");
    let out = sandbox.run(&["--config", path_str(&none), "list", "--json"]);
    assert_eq!(listed(&out).len(), 240, "no rule: everything shows again");
}

#[test]
fn a_mistake_in_a_rule_or_a_view_names_the_file_the_line_and_the_column() {
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", "keep_days = 30\n\n[[ignore]]\nquery = 'title ~ \"ads\" and author ~'\n");
    let out = sandbox.run(&["--config", path_str(&config), "list"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("config.toml") && err.contains("line 4, column 36"), "{err}");
    assert!(err.contains("expected a value after `~`") && err.contains("column 27 of the query"), "{err}");
    let config = sandbox.write("views.toml", "[[views]]\nname = \"Mine\"\nquery = \"titel ~ rust\"\n");
    let err = stderr(&sandbox.run(&["--config", path_str(&config), "list"]));
    assert!(err.contains("line 3, column 10") && err.contains("did you mean `title`"), "{err}");
    let out = sandbox.run(&["list", "--query", "age < soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--query: `soon` is not an age") && stderr(&out).contains("column 7"),
        "{}",
        stderr(&out)
    );
}

#[cfg(unix)]
#[test]
fn the_notify_command_reads_what_arrived_on_its_stdin_and_names_it_in_its_arguments() {
    use std::os::unix::fs::PermissionsExt;
    let now = chrono::Utc::now().timestamp();
    let farm = farm();
    let server = Server::start();
    for feed in &farm[..2] {
        server.route(&feed.path, Reply::ok("application/rss+xml", rss(feed, now)));
    }
    let sandbox = Sandbox::new();
    let out = sandbox.path("told");
    std::fs::create_dir_all(&out).unwrap();
    let script = sandbox.write(
        "notify.sh",
        format!("#!/bin/sh\ncat > '{0}/stdin.json'\nprintf '%s\\n' \"$@\" > '{0}/args'\n", out.display()),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let lobsters = server.url(&farm[1].path);
    let config = sandbox.write(
        "config.toml",
        format!(
            "notify_command = \"{} %n %f %t\"\n[[ignore]]\nquery = 'title ~ sponsored'\n\n[feeds.\"{lobsters}\"]\nnotify = true\n",
            script.display()
        ),
    );
    let subs = sandbox
        .write("subs.opml", opml(&[(None, "Hacker News", &server.url(&farm[0].path)), (None, "Lobsters", &lobsters)]));
    let run = |args: &[&str]| {
        let mut all = vec!["--config", path_str(&config)];
        all.extend_from_slice(args);
        sandbox.run(&all)
    };
    assert!(run(&["import", path_str(&subs)]).status.success());
    let refreshed = run(&["refresh"]);
    assert!(refreshed.status.success(), "{}", stderr(&refreshed));
    let told: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stdin.json")).expect("the command ran")).unwrap();
    let mut told_guids: Vec<String> = told
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["feed"], "Lobsters");
            assert_eq!(e["feed_url"].as_str(), Some(lobsters.as_str()));
            e["link"].as_str().unwrap().trim_start_matches("http://example.com/").to_string()
        })
        .collect();
    told_guids.sort();
    let expected = expected(&farm[1..2], |_, i| !i.title.to_lowercase().contains("sponsored"));
    assert_eq!(told_guids, expected, "only the notifying feed's entries, and none a kill rule caught");
    let args = std::fs::read_to_string(out.join("args")).unwrap();
    let first = told[0]["title"].as_str().unwrap();
    assert_eq!(args, format!("{}\nLobsters\n{first}\n", expected.len()));
    // Nothing new: nothing told.
    std::fs::remove_file(out.join("stdin.json")).unwrap();
    assert!(run(&["refresh"]).status.success());
    assert!(!out.join("stdin.json").exists(), "a refresh that brought nothing told nothing");
}
