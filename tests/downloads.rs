//! Downloads, end to end: the real binary (`tidings download`, `tidings downloads`) against a file server on
//! 127.0.0.1 that cuts connections, ignores ranges, changes files between tries and counts what it sent, with a
//! real database and real files in a temporary folder.

mod support;

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::files::FileServer;
use support::{Sandbox, path_str, poll, stderr, stdout};

const MB: usize = 1024 * 1024;

/// `len` bytes that are not a pattern a splice could hide in (a xorshift stream from `seed`).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// An item of [`podcast`]: its guid, its title, and its enclosures (address, type).
type Item<'a> = (&'a str, &'a str, Vec<(String, &'a str)>);

/// An RSS feed whose items each carry the enclosures given.
fn podcast(title: &str, items: &[Item<'_>]) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>{title}</title><link>http://example.com/</link>\
         <description>d</description>"
    );
    for (i, (guid, item, enclosures)) in items.iter().enumerate() {
        xml.push_str(&format!(
            "<item><guid>{guid}</guid><title>{item}</title><pubDate>Tue, {:02} Jun 2025 10:00:00 GMT</pubDate>",
            10 + i
        ));
        for (url, kind) in enclosures {
            xml.push_str(&format!("<enclosure url=\"{url}\" type=\"{kind}\" length=\"0\"/>"));
        }
        xml.push_str("</item>");
    }
    xml.push_str("</channel></rss>");
    xml
}

/// A sandbox whose config downloads into `dl/` as `{feed}/{title}.{ext}`, `extra` added to the config.
fn sandbox(extra: &str) -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::new();
    let dl = sandbox.path("dl");
    let config = format!(
        "refresh_on_startup = false\ndownload_dir = \"{}\"\ndownload_name = \"{{feed}}/{{title}}.{{ext}}\"\n{extra}",
        path_str(&dl)
    );
    sandbox.write("config.toml", config);
    (sandbox, dl)
}

fn run(sandbox: &Sandbox, args: &[&str]) -> std::process::Output {
    let config = sandbox.path("config.toml");
    sandbox.tidings().arg("--config").arg(&config).args(args).output().expect("run tidings")
}

/// Subscribes to the feed at `url` and refreshes it.
fn subscribe(sandbox: &Sandbox, url: &str) {
    let added = run(sandbox, &["add", url]);
    assert!(added.status.success(), "add: {}", stderr(&added));
    let refreshed = run(sandbox, &["refresh", "--no-sync"]);
    assert!(refreshed.status.success(), "refresh: {}", stderr(&refreshed));
}

/// A feed with one episode at `/ep.mp3`, subscribed to.
fn one_episode(server: &FileServer, sandbox: &Sandbox) -> String {
    let feed = server.url("/feed.xml");
    server.page(
        "/feed.xml",
        "application/rss+xml",
        podcast("Show", &[("e1", "Episode", vec![(server.url("/ep.mp3"), "audio/mpeg")])]),
    );
    subscribe(sandbox, &feed);
    feed
}

fn downloads_json(sandbox: &Sandbox) -> Vec<serde_json::Value> {
    let listed = run(sandbox, &["downloads", "--json"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    serde_json::from_str(&stdout(&listed)).expect("downloads --json is JSON")
}

fn no_part_files(dir: &Path) {
    for entry in walk(dir) {
        assert!(!entry.to_string_lossy().ends_with(".part"), "a .part file was left: {}", entry.display());
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn a_file_cut_at_half_is_whole_after_resume_and_sent_about_once() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    let source = noise(20 * MB, 7);
    server.file("/ep.mp3", source.clone(), "v1");
    server.cut_once("/ep.mp3", 10 * MB as u64, None);
    let feed = one_episode(&server, &sandbox);

    let out = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = std::fs::read(dl.join("Show/Episode.mp3")).expect("the file is there");
    assert_eq!(sha256(&file), sha256(&source), "the file is the source, byte for byte");
    let sent = server.sent();
    assert!(sent as f64 <= 1.05 * source.len() as f64, "{sent} bytes sent for a file of {}", source.len());
    let asked = server.asked();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[1].range.as_deref(), Some(format!("bytes={}-", 10 * MB).as_str()), "resumed where it broke");
    assert_eq!(asked[1].if_range.as_deref(), Some("\"v1\""), "only if the file is still the same");
    assert_eq!(asked[1].status, 206);
    no_part_files(&dl);
}

#[test]
fn a_server_that_ignores_range_gives_the_whole_file_not_a_splice() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    let source = noise(4 * MB, 11);
    server.file("/ep.mp3", source.clone(), "v1");
    server.ignore_range();
    server.cut_once("/ep.mp3", 2 * MB as u64, None);
    let feed = one_episode(&server, &sandbox);

    let out = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = std::fs::read(dl.join("Show/Episode.mp3")).expect("the file is there");
    assert_eq!(file.len(), source.len());
    assert_eq!(sha256(&file), sha256(&source));
    let asked = server.asked();
    assert!(asked[1].range.is_some(), "a resume was asked for: {asked:?}");
    assert_eq!(asked[1].status, 200, "and the whole file came");
    no_part_files(&dl);
}

#[test]
fn a_file_that_changed_between_tries_is_the_new_one_whole() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    let old = noise(4 * MB, 1);
    let new = noise(3 * MB + 17, 2);
    server.file("/ep.mp3", old, "v1");
    server.cut_once("/ep.mp3", 2 * MB as u64, Some((new.clone(), "v2")));
    let feed = one_episode(&server, &sandbox);

    let out = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = std::fs::read(dl.join("Show/Episode.mp3")).expect("the file is there");
    assert_eq!(sha256(&file), sha256(&new), "the new version, whole, not the old one's start and the new one's end");
    let asked = server.asked();
    assert_eq!(asked[1].if_range.as_deref(), Some("\"v1\""), "{asked:?}");
    assert_eq!(asked[1].status, 200);
    no_part_files(&dl);
}

#[cfg(unix)]
#[test]
fn kill_9_mid_file_then_again_resumes_and_loses_no_row() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    let source = noise(4 * MB, 3);
    server.file("/ep.mp3", source.clone(), "v1");
    let feed = one_episode(&server, &sandbox);
    server.pace(16 * 1024, Duration::from_millis(10));

    let config = sandbox.path("config.toml");
    let mut child = sandbox
        .tidings()
        .arg("--config")
        .arg(&config)
        .args(["download", "--feed", &feed])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start tidings download");
    let part = dl.join("Show/Episode.mp3.part");
    poll("a quarter of the file on disk", Duration::from_secs(60), || {
        (std::fs::metadata(&part).map(|m| m.len()).unwrap_or(0) >= MB as u64).then_some(())
    });
    child.kill().expect("kill -9");
    child.wait().expect("reaped");
    let kept = std::fs::metadata(&part).expect("the .part file stays").len();
    assert!(kept < source.len() as u64);
    let rows = downloads_json(&sandbox);
    assert_eq!(rows.len(), 1, "the queue's row survived: {rows:?}");
    assert_eq!(rows[0]["state"], "downloading", "as the killed process left it");

    server.no_pace();
    let out = run(&sandbox, &["download"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = std::fs::read(dl.join("Show/Episode.mp3")).expect("the file is there");
    assert_eq!(sha256(&file), sha256(&source));
    let resumed = server.asked().last().cloned().expect("a request");
    let from: u64 = resumed
        .range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes=")?.strip_suffix('-')?.parse().ok())
        .expect("a range");
    assert!(from >= MB as u64, "resumed from what was on disk ({from}), not from the start: {resumed:?}");
    assert_eq!(resumed.status, 206);
    let rows = downloads_json(&sandbox);
    assert_eq!(rows.len(), 1, "0 rows lost, none doubled");
    assert_eq!(rows[0]["state"], "done");
    assert_eq!(rows[0]["bytes_done"], source.len());
}

#[test]
fn three_feeds_of_five_episodes_download_never_more_than_two_at_once() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("max_downloads = 2\n");
    let mut sources = Vec::new();
    for feed in 0..3 {
        let mut items = Vec::new();
        for ep in 0..5 {
            let path = format!("/f{feed}/e{ep}.mp3");
            let body = noise(256 * 1024, (feed * 10 + ep + 1) as u64);
            server.file(&path, body.clone(), &format!("f{feed}e{ep}"));
            sources.push((format!("Feed {feed}/Episode {ep}.mp3"), body));
            items.push((format!("g{ep}"), format!("Episode {ep}"), vec![(server.url(&path), "audio/mpeg")]));
        }
        let items: Vec<Item<'_>> = items.iter().map(|(g, t, e)| (g.as_str(), t.as_str(), e.clone())).collect();
        server.page(&format!("/feed{feed}.xml"), "application/rss+xml", podcast(&format!("Feed {feed}"), &items));
    }
    for feed in 0..3 {
        let added = run(&sandbox, &["add", &server.url(&format!("/feed{feed}.xml"))]);
        assert!(added.status.success(), "{}", stderr(&added));
    }
    let refreshed = run(&sandbox, &["refresh", "--no-sync"]);
    assert!(refreshed.status.success(), "{}", stderr(&refreshed));
    server.pace(16 * 1024, Duration::from_millis(5));

    let out = run(&sandbox, &["download", "--query", "enclosure"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for (name, body) in &sources {
        let file = std::fs::read(dl.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sha256(&file), sha256(body), "{name}");
    }
    assert_eq!(server.most_at_once(), 2, "two at a time, never more (and the two did overlap)");
}

#[test]
fn a_file_larger_than_the_free_space_is_refused_before_a_byte_is_written() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    // 20 TB: more than any disk the tests run on has free.
    let announced: u64 = 20_000_000_000_000;
    server.huge("/ep.mp3", announced);
    let feed = one_episode(&server, &sandbox);

    let out = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let rows = downloads_json(&sandbox);
    let reason = rows[0]["reason"].as_str().expect("a reason").to_string();
    assert_eq!(rows[0]["state"], "failed");
    assert!(reason.contains(&format!("{announced} bytes")), "the size needed: {reason}");
    assert!(reason.contains("free"), "and the space free: {reason}");
    assert!(stderr(&out).contains(&format!("{announced} bytes")), "said on stderr too: {}", stderr(&out));
    assert!(walk(&dl).is_empty(), "nothing written: {:?}", walk(&dl));
}

#[test]
fn dangerous_schemes_are_refused_and_the_rest_still_downloads() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    server.file("/ok.mp3", noise(1000, 5), "ok");
    let enclosures = vec![
        ("file:///etc/passwd".to_string(), "audio/mpeg"),
        ("javascript:alert(1)".to_string(), "audio/mpeg"),
        (server.url("/ok.mp3"), "audio/mpeg"),
    ];
    server.page("/feed.xml", "application/rss+xml", podcast("Show", &[("e1", "Mixed", enclosures)]));
    let feed = server.url("/feed.xml");
    subscribe(&sandbox, &feed);

    let out = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(out.status.code(), Some(3), "a refusal counts as a failure: {}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("not queued: file:///etc/passwd"), "{err}");
    let rows = downloads_json(&sandbox);
    assert_eq!(rows.len(), 1, "only the http enclosure is queued: {rows:?}");
    assert_eq!(rows[0]["state"], "done");
    assert!(dl.join("Show/Mixed.mp3").exists());
}

#[test]
fn every_enclosure_of_an_entry_is_queued_with_a_name_of_its_own() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    server.file("/a.mp3", noise(1000, 1), "a");
    server.file("/b.mp3", noise(2000, 2), "b");
    let enclosures = vec![(server.url("/a.mp3"), "audio/mpeg"), (server.url("/b.mp3"), "audio/mpeg")];
    server.page("/feed.xml", "application/rss+xml", podcast("Show", &[("e1", "../../Two parts", enclosures)]));
    let feed = server.url("/feed.xml");
    subscribe(&sandbox, &feed);

    let out = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut names: Vec<String> =
        walk(&dl).iter().map(|p| p.strip_prefix(&dl).unwrap().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["Show/-..-Two parts (2).mp3", "Show/-..-Two parts.mp3"], "both, inside the folder");
    let again = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(downloads_json(&sandbox).len(), 2, "queuing again adds nothing");
}

#[test]
fn a_feeds_download_command_makes_the_file_and_its_exit_status_is_the_result() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    let (works, fails) = (server.url("/works.xml"), server.url("/fails.xml"));
    let extra = format!(
        "\n[feeds.\"{works}\"]\ndownload_command = \"touch {{path}}\"\n\
         [feeds.\"{fails}\"]\ndownload_command = \"false {{url}}\"\n"
    );
    let config = std::fs::read_to_string(sandbox.path("config.toml")).unwrap() + &extra;
    sandbox.write("config.toml", config);
    let page = |n: u8| vec![(format!("{}?v={n}", server.url("/watch")), "text/html")];
    server.page("/works.xml", "application/rss+xml", podcast("Videos", &[("e1", "A talk", page(1))]));
    server.page("/fails.xml", "application/rss+xml", podcast("Other", &[("e1", "Gone", page(2))]));
    subscribe(&sandbox, &works);
    let added = run(&sandbox, &["add", &fails]);
    assert!(added.status.success(), "{}", stderr(&added));
    let refreshed = run(&sandbox, &["refresh", "--no-sync"]);
    assert!(refreshed.status.success(), "{}", stderr(&refreshed));

    let out = run(&sandbox, &["download", "--query", "enclosure"]);
    assert_eq!(out.status.code(), Some(3), "one command failed: {}", stderr(&out));
    assert_eq!(walk(&dl), [dl.join("Videos/A talk.bin")], "the command made the file where tidings said");
    let rows = downloads_json(&sandbox);
    let state = |feed: &str| rows.iter().find(|r| r["feed_title"] == feed).map(|r| r["state"].clone());
    assert_eq!(state("Videos"), Some("done".into()));
    assert_eq!(state("Other"), Some("failed".into()));
    let reason = rows.iter().find(|r| r["feed_title"] == "Other").unwrap()["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("false ended with"), "{reason}");
    assert!(server.asked().is_empty(), "the commands download, not tidings");
}

#[test]
fn a_podboat_queue_with_every_state_comes_over_line_for_line() {
    let (sandbox, _dl) = sandbox("");
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    std::fs::write(dot.join("urls"), "http://127.0.0.1:9/podcast.xml\n").unwrap();
    let pod = sandbox.path("pod");
    std::fs::create_dir_all(&pod).unwrap();
    // podboat's files: two still on disk, one half-downloaded, the rest gone.
    std::fs::write(pod.join("downloaded.mp3"), noise(1234, 1)).unwrap();
    std::fs::write(pod.join("played one.mp3"), noise(99, 2)).unwrap();
    std::fs::write(pod.join("queued.mp3.part"), noise(10, 3)).unwrap();
    let at = |name: &str| path_str(&pod.join(name)).to_string();
    let queue = format!(
        "http://127.0.0.1:9/queued.mp3 \"{}\"\n\
         http://127.0.0.1:9/downloaded.mp3 \"{}\" downloaded\n\
         http://127.0.0.1:9/played.mp3 \"{}\" played\n\
         http://127.0.0.1:9/finished.mp3 \"{}\" finished\n\
         http://127.0.0.1:9/missing.mp3 \"{}\" missing\n",
        at("queued.mp3"),
        at("downloaded.mp3"),
        at("played one.mp3"),
        at("finished.mp3"),
        at("missing.mp3")
    );
    std::fs::write(dot.join("queue"), queue).unwrap();

    let out = run(&sandbox, &["import", "newsboat"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("downloads    5 of 5 lines of podboat's queue added"), "{}", stdout(&out));
    let rows = downloads_json(&sandbox);
    let states: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r["url"].as_str().unwrap().rsplit('/').next().unwrap().to_string(), r["state"].to_string()))
        .collect();
    let want = [
        ("queued.mp3", "\"queued\""),
        ("downloaded.mp3", "\"done\""),
        ("played.mp3", "\"done\""),
        ("finished.mp3", "\"failed\""),
        ("missing.mp3", "\"failed\""),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(states, want, "each of podboat's states in tidings's terms");
    assert_eq!(rows[1]["bytes_done"], 1234, "a file on disk counts as whole");
    assert!(rows[3]["reason"].as_str().unwrap().contains("is gone; retry"), "{}", rows[3]["reason"]);
    assert_eq!(rows[2]["path"], at("played one.mp3"), "podboat's name kept, spaces and all");

    let again = run(&sandbox, &["import", "newsboat"]);
    assert!(stdout(&again).contains("0 of 5 lines of podboat's queue added, 5 already queued"), "{}", stdout(&again));
    assert_eq!(downloads_json(&sandbox).len(), 5);
}

/// The reader: `E` on an entry downloads its media in the background, `P` shows it done with its size, and the
/// entry list marks the entry as on disk.
/// The reader on one podcast feed (`feed`, subscribed from an OPML file), with `entries` entries listed and the
/// entry pane in focus, downloading into `dl/` as `{title}.{ext}`.
async fn podcast_reader(sandbox: &Sandbox, feed: &str, entries: usize) -> tidings::runtime::Reader {
    use tidings::app::Pane;
    let list = support::opml(&[(None, "Show", feed)]);
    let file = sandbox.write("subs.opml", list);
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let config = tidings::config::Config {
        download_dir: Some(sandbox.path("dl")),
        download_name: "{title}.{ext}".into(),
        max_downloads: 2,
        ..tidings::config::Config::default()
    };
    let options = tidings::runtime::Options {
        db: sandbox.db(),
        config,
        notice: None,
        report: vec![],
        size: (120, 30),
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = tidings::runtime::Reader::new(options).unwrap();
    app.start();
    app.run_until(WAIT, |s| {
        s.feeds.loaded && s.progress.is_idle() && s.feeds.feeds.iter().all(|f| f.last_fetched_at.is_some())
    })
    .await
    .unwrap();
    while app.state.focus != Pane::Feeds {
        key(&mut app, 'h');
    }
    key(&mut app, 'G');
    app.run_until(WAIT, |s| s.entries.len() == entries).await.unwrap();
    key(&mut app, 'l');
    app
}

const WAIT: Duration = Duration::from_secs(30);

fn key(app: &mut tidings::runtime::Reader, c: char) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    app.dispatch(tidings::app::Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_reader_one_key_downloads_and_the_view_and_the_list_show_it() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let server = FileServer::start();
    let source = noise(300_000, 9);
    server.file("/ep.mp3", source.clone(), "v1");
    server.page(
        "/feed.xml",
        "application/rss+xml",
        podcast("Show", &[("e1", "Episode", vec![(server.url("/ep.mp3"), "audio/mpeg")])]),
    );
    let sandbox = Sandbox::new();
    let dl = sandbox.path("dl");
    let wait = WAIT;
    let mut app = podcast_reader(&sandbox, &server.url("/feed.xml"), 1).await;
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
    key(&mut app, 'E');
    app.run_until(wait, |s| s.downloads.on_disk.len() == 1).await.unwrap();
    let file = std::fs::read(dl.join("Episode.mp3")).expect("downloaded");
    assert_eq!(sha256(&file), sha256(&source));

    let shown = support::screen({
        app.draw(&mut terminal).unwrap();
        terminal.backend()
    });
    let row = shown.lines().find(|l| l.contains("Episode")).expect("the entry's row");
    assert!(row.contains('↓'), "the entry is marked on disk: {row}");
    key(&mut app, 'P');
    app.run_until(wait, |s| s.downloads.rows.as_ref().is_some_and(|r| r.len() == 1)).await.unwrap();
    app.draw(&mut terminal).unwrap();
    let shown = support::screen(terminal.backend());
    assert!(shown.contains("Downloads"), "{shown}");
    assert!(shown.contains("done") && shown.contains("Show: Episode"), "{shown}");
    assert!(shown.contains("300.0 KB"), "its size:\n{shown}");
}

/// An episode queued while another downloads starts at once beside it (`max_downloads = 2`), not when the first
/// ends: the reader's run takes what is queued meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_reader_an_episode_queued_during_a_download_starts_beside_it() {
    let server = FileServer::start();
    let (one, two) = (noise(2 * MB, 3), noise(2 * MB, 4));
    server.file("/one.mp3", one.clone(), "1");
    server.file("/two.mp3", two.clone(), "2");
    let items: Vec<Item<'_>> = vec![
        ("e2", "Two", vec![(server.url("/two.mp3"), "audio/mpeg")]),
        ("e1", "One", vec![(server.url("/one.mp3"), "audio/mpeg")]),
    ];
    server.page("/feed.xml", "application/rss+xml", podcast("Show", &items));
    let sandbox = Sandbox::new();
    let mut app = podcast_reader(&sandbox, &server.url("/feed.xml"), 2).await;
    // About three seconds a file: the second is queued while the first comes.
    server.pace(16 * 1024, Duration::from_millis(25));
    key(&mut app, 'E');
    app.run_until(WAIT, |s| s.downloads.live.len() == 1).await.unwrap();
    key(&mut app, 'j');
    key(&mut app, 'E');
    app.run_until(WAIT, |s| s.downloads.live.len() == 2).await.expect("the second downloads beside the first");
    app.run_until(WAIT, |s| s.downloads.on_disk.len() == 2).await.unwrap();
    for (name, body) in [("One.mp3", &one), ("Two.mp3", &two)] {
        assert_eq!(sha256(&std::fs::read(sandbox.path("dl").join(name)).unwrap()), sha256(body), "{name}");
    }
    assert_eq!(server.most_at_once(), 2);
}

#[test]
fn a_finished_download_is_a_downloaded_event_for_the_hooks_once() {
    let server = FileServer::start();
    let (sandbox, _dl) = sandbox("");
    let told = sandbox.path("told.jsonl");
    let hook = format!("\n[[hooks]]\non = \"downloaded\"\ncommand = \"tee -a {}\"\n", path_str(&told));
    let config = std::fs::read_to_string(sandbox.path("config.toml")).unwrap() + &hook;
    sandbox.write("config.toml", config);
    server.file("/ep.mp3", noise(5000, 4), "v1");
    let feed = one_episode(&server, &sandbox);

    let out = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&told).expect("the hook ran");
    let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(events.len(), 1, "{text}");
    assert_eq!(events[0]["event"], "downloaded");
    assert_eq!(events[0]["entries"][0]["title"], "Episode");
    assert_eq!(events[0]["entries"][0]["enclosures"][0], server.url("/ep.mp3"));

    let again = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&told).unwrap().lines().count(), 1, "told once, not again");
}

/// A full disk, for real: the `.part` file of one download is the kernel's `/dev/full`, whose every write fails
/// with ENOSPC.
#[cfg(target_os = "linux")]
#[test]
fn a_disk_that_fills_mid_file_pauses_that_download_with_why_and_the_others_finish() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    server.file("/full.mp3", noise(100_000, 1), "a");
    server.file("/fine.mp3", noise(100_000, 2), "b");
    let dot = sandbox.path("home/.newsboat");
    std::fs::create_dir_all(&dot).unwrap();
    std::fs::create_dir_all(&dl).unwrap();
    std::fs::write(dot.join("urls"), "http://127.0.0.1:9/podcast.xml\n").unwrap();
    std::os::unix::fs::symlink("/dev/full", dl.join("full.mp3.part")).unwrap();
    let queue = format!(
        "{} \"{}\"\n{} \"{}\"\n",
        server.url("/full.mp3"),
        path_str(&dl.join("full.mp3")),
        server.url("/fine.mp3"),
        path_str(&dl.join("fine.mp3"))
    );
    std::fs::write(dot.join("queue"), queue).unwrap();
    assert!(run(&sandbox, &["import", "newsboat"]).status.success());

    let out = run(&sandbox, &["download"]);
    assert_eq!(out.status.code(), Some(3), "one did not finish: {}", stderr(&out));
    let rows = downloads_json(&sandbox);
    assert_eq!(rows[0]["state"], "paused", "{rows:?}");
    let why = rows[0]["reason"].as_str().unwrap();
    assert!(why.contains("the disk is full") && why.contains("then resume"), "{why}");
    assert_eq!(rows[1]["state"], "done", "the other one finished");
    assert_eq!(std::fs::read(dl.join("fine.mp3")).unwrap().len(), 100_000);
    assert!(!dl.join("full.mp3").exists(), "no file that is not whole");
}

#[cfg(unix)]
#[test]
fn two_processes_at_once_never_download_one_file_twice() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    let source = noise(4 * MB, 8);
    server.file("/ep.mp3", source.clone(), "v1");
    let feed = one_episode(&server, &sandbox);
    server.pace(16 * 1024, Duration::from_millis(10));

    let config = sandbox.path("config.toml");
    let first = sandbox
        .tidings()
        .arg("--config")
        .arg(&config)
        .args(["download", "--feed", &feed])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the first tidings download");
    let part = dl.join("Show/Episode.mp3.part");
    poll("the first process writing", Duration::from_secs(60), || {
        (std::fs::metadata(&part).map(|m| m.len()).unwrap_or(0) >= 256 * 1024).then_some(())
    });
    let second = run(&sandbox, &["download"]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert!(stderr(&second).contains("another tidings is downloading it"), "{}", stderr(&second));
    let first = first.wait_with_output().expect("the first one ends");
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));

    let file = std::fs::read(dl.join("Show/Episode.mp3")).expect("the file is there");
    assert_eq!(sha256(&file), sha256(&source));
    assert_eq!(server.asked().len(), 1, "one request for the file: {:?}", server.asked());
    assert_eq!(server.sent(), source.len() as u64, "sent once");
    assert_eq!(downloads_json(&sandbox)[0]["state"], "done");
}

#[test]
fn the_rate_limit_holds_every_download_to_it() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("download_rate_limit_kb = 256\n");
    let source = noise(MB, 12);
    server.file("/ep.mp3", source.clone(), "v1");
    let feed = one_episode(&server, &sandbox);

    let started = std::time::Instant::now();
    let out = run(&sandbox, &["download", "--feed", &feed]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(sha256(&std::fs::read(dl.join("Show/Episode.mp3")).unwrap()), sha256(&source));
    // 1 MB at 256 KB/s: four seconds at least, whatever the size of the pieces; never faster than the limit.
    assert!(took >= Duration::from_millis(3500), "1 MB at 256 KB/s took only {took:?}");
}

/// A file the server no longer has fails in a file's words ("not on the server"), not a feed's ("the feed may
/// have moved"); an address given to `add` that is not there says to check the address.
#[test]
fn a_missing_file_or_address_is_said_in_its_own_words() {
    let server = FileServer::start();
    let (sandbox, _dl) = sandbox("");
    one_episode(&server, &sandbox); // `/ep.mp3` is not served
    let out = run(&sandbox, &["download", "--query", "enclosure"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let rows = downloads_json(&sandbox);
    let reason = rows[0]["reason"].as_str().unwrap();
    assert_eq!(reason, "HTTP 404 (not found: the file is no longer on the server)");
    let out = run(&sandbox, &["add", &server.url("/nosuch.html")]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("HTTP 404 (not found: check the address)") && !said.contains("feed may have moved"),
        "{said}"
    );
}

/// A download that failed is left alone by a plain `tidings download`, which says so and how to try again;
/// `--retry` takes it up again, and once the file is there it is downloaded whole.
#[test]
fn download_with_nothing_queued_names_what_failed_and_retry_takes_it_up_again() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    one_episode(&server, &sandbox); // `/ep.mp3` is not served yet
    let out = run(&sandbox, &["download", "--query", "enclosure"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let out = run(&sandbox, &["download"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing queued to download; 1 failed and 0 paused earlier")
            && stderr(&out).contains("tidings download --retry"),
        "{}",
        stderr(&out)
    );
    let body = noise(100_000, 5);
    server.file("/ep.mp3", body.clone(), "v1");
    let out = run(&sandbox, &["download", "--retry"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 downloaded, 0 not"), "{}", stderr(&out));
    assert_eq!(sha256(&std::fs::read(dl.join("Show/Episode.mp3")).unwrap()), sha256(&body));
    assert_eq!(downloads_json(&sandbox)[0]["state"], "done");
}

/// `auto_download`: what a feed lists when subscribed to is its past and comes down only when asked; an episode
/// a later refresh brings is downloaded by that refresh — unless its feed says `auto_download = false`.
#[test]
fn auto_download_takes_the_new_episodes_a_refresh_brings_and_not_the_back_catalogue() {
    let server = FileServer::start();
    let episode = |feed: &str, n: usize| (format!("{feed}{n}"), format!("Episode {n}"), format!("/{feed}/e{n}.mp3"));
    let publish = |feed: &str, count: usize| {
        let items: Vec<(String, String, String)> = (1..=count).map(|n| episode(feed, n)).collect();
        for (n, (_, _, path)) in items.iter().enumerate() {
            server.file(path, noise(20_000, (n + 1) as u64), "v1");
        }
        let items: Vec<Item<'_>> =
            items.iter().map(|(g, t, p)| (g.as_str(), t.as_str(), vec![(server.url(p), "audio/mpeg")])).collect();
        server.page(&format!("/{feed}.xml"), "application/rss+xml", podcast(feed, &items));
    };
    publish("auto", 2);
    publish("manual", 2);
    let manual = server.url("/manual.xml");
    let (sandbox, dl) = sandbox(&format!("auto_download = true\n\n[feeds.\"{manual}\"]\nauto_download = false\n"));
    for feed in ["/auto.xml", "/manual.xml"] {
        assert!(run(&sandbox, &["add", &server.url(feed)]).status.success());
    }
    let first = run(&sandbox, &["refresh", "--no-sync"]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(downloads_json(&sandbox).is_empty(), "the back catalogue is not downloaded by itself");
    publish("auto", 3);
    // Past the cap of 50 a refresh, in a feed that does not download by itself: it takes none of the cap.
    publish("manual", 60);
    let next = run(&sandbox, &["refresh", "--no-sync"]);
    assert!(next.status.success(), "{}", stderr(&next));
    assert!(stderr(&next).contains("1 of 1 new episodes downloaded (auto_download)"), "{}", stderr(&next));
    let rows = downloads_json(&sandbox);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!((rows[0]["title"].as_str(), rows[0]["state"].as_str()), (Some("Episode 3"), Some("done")));
    assert_eq!(std::fs::read(dl.join("auto/Episode 3.mp3")).unwrap(), noise(20_000, 3));
}

/// A file whose answer says `Content-Encoding: gzip` (a `.gz`, or a bomb: 64 KB on the wire, 64 MB unpacked) is
/// kept as the bytes sent, never unpacked past the size and the space checked for it.
#[test]
fn a_file_sent_gzipped_is_kept_as_sent_not_unpacked() {
    let server = FileServer::start();
    let (sandbox, dl) = sandbox("");
    let sent = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bomb-64mb.gz")).unwrap();
    server.file("/ep.mp3", sent.clone(), "v1");
    server.gzipped("/ep.mp3");
    let feed = one_episode(&server, &sandbox);
    let out = run(&sandbox, &["download", "--feed", &feed]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = std::fs::read(dl.join("Show/Episode.mp3")).expect("the file is there");
    assert_eq!(file.len(), sent.len(), "the bytes sent, not unpacked");
    assert_eq!(sha256(&file), sha256(&sent));
}

/// A download queued from a feed on this machine, whose feed is deleted before it runs, gets no network of its
/// own: its file on this machine is refused (a sync server dropping a feed it placed on the local network must
/// not let that feed's files reach it), while a file queued on its own address is fetched (see the tests above).
#[test]
fn a_download_whose_feed_was_deleted_reaches_only_the_internet() {
    let server = FileServer::start();
    let (sandbox, _dl) = sandbox("");
    let feed = one_episode(&server, &sandbox); // `/ep.mp3` is not served yet: the first try fails
    assert_eq!(run(&sandbox, &["download", "--feed", &feed]).status.code(), Some(3));
    server.file("/ep.mp3", noise(1000, 3), "v1");
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    db.execute_batch("PRAGMA foreign_keys = ON; DELETE FROM feeds; UPDATE downloads SET state = 'queued'").unwrap();
    drop(db);
    let out = run(&sandbox, &["download"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let rows = downloads_json(&sandbox);
    assert_eq!((rows[0]["state"].as_str(), rows[0]["feed_id"].as_i64()), (Some("failed"), None), "{rows:?}");
    let reason = rows[0]["reason"].as_str().unwrap();
    assert!(reason.contains("is on the local network and the feed is not"), "{reason}");
    assert!(server.asked().iter().all(|a| a.status != 200), "the file was never sent: {:?}", server.asked());
}
