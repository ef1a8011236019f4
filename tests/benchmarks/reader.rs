//! The reader's own benchmark: `cargo bench --bench reader -- [lists|views|refresh|pictures|sync|health|downloads]`
//! (all without an argument).
//!
//! - `lists`: a 4000 feeds × 100 entries database (400,000 entries, built once by `support::farm` and kept under
//!   the target directory). Times the first frame (the feed list and the Unread view, 200,000 entries), the
//!   frame after each key in the Unread view and in All (400,000), and reports the reader's peak memory.
//! - `views`: the same database with five saved views (`text ~` among them): keys walk the entries while the
//!   views' unread counts are read on their own thread, key → frame measured until every count arrived.
//! - `refresh`: the reader refreshing `--feeds N --items M` (4000 × 100) served from `--hosts H` loopback
//!   addresses with `--latency-ms L` (200, 100), while a key arrives every 10 ms: the time from each key to the
//!   frame that shows it, as the real loop draws (a key waits behind what is already in the inbox).
//! - `pictures`: an article with 10 pictures (1000 × 800 JPEGs from a loopback server, held back until
//!   released): the key to the frame with its text, beside an article without pictures; each picture from its
//!   bytes released to the frame that shows it; scrolling key → frame; and the peak memory after an article
//!   with 50 pictures was read to its end.
//! - `health`: the health view over 10,000 feeds (`support::farm`, five entries each, a seventh of them failing
//!   for good, a seventh once, a seventh with a move proposed): the key to the frame with every feed judged, and
//!   each key inside the view (moving, marking, marking a whole state) to its frame.
//! - `downloads`: the reader downloading 3 feeds × 5 episodes of 4 MB (from a loopback server that sends them at
//!   about 12 MB/s each), `max_downloads = 2`, while a key arrives every 10 ms: key → frame while it downloads.
//! - `sync`: the reader's first sync with a real FreshRSS (the kit next to the repository) holding `--feeds N`
//!   × `--items M` (200 × 50: 10,000 items), while a key arrives every 10 ms: key → frame while it syncs.
//!
//! Each measurement runs in a child process of its own, so its peak memory is the reader's alone. Figures are
//! printed, nothing is asserted: a shared two-core machine is too noisy for timed tests.

// A benchmark or a harness of its own: what it measured goes to standard output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../support/mod.rs"]
mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::{Duration, Instant};
use support::farm::{self, FarmSpec};
use support::server;
use tidings::app::{Event, ListKey, State};
use tidings::config::Config;
use tidings::runtime::{Options, Reader};

/// Set in a child process: which measurement it runs, and on what.
const CHILD: &str = "TIDINGS_READER_BENCH_CHILD";

fn main() {
    if let Ok(job) = std::env::var(CHILD) {
        let (mode, arg) = job.split_once(':').unwrap_or((job.as_str(), ""));
        match mode {
            "lists" => child_lists(arg),
            "views" => child_views(arg),
            "refresh" => child_refresh(arg),
            "pictures" => child_pictures(arg),
            "sync" => child_sync(arg),
            "health" => child_health(arg),
            "downloads" => child_downloads(arg),
            other => panic!("unknown child job {other}"),
        }
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--bench")).collect();
    let which = args.first().filter(|a| !a.starts_with("--")).cloned();
    if which.as_deref().is_none_or(|w| w == "lists") {
        lists();
    }
    if which.as_deref().is_none_or(|w| w == "views") {
        views();
    }
    if which.as_deref().is_none_or(|w| w == "refresh") {
        refresh(&args);
    }
    if which.as_deref().is_none_or(|w| w == "pictures") {
        pictures();
    }
    if which.as_deref().is_none_or(|w| w == "sync") {
        sync(&args);
    }
    if which.as_deref().is_none_or(|w| w == "health") {
        health();
    }
    if which.as_deref().is_none_or(|w| w == "downloads") {
        downloads();
    }
}

/// 3 feeds × 5 episodes of 4 MB queued for download (by the engine, as `E` or `tidings download` queue them), then
/// the reader opened: it takes the queue up at start, and keys arrive every 10 ms while it downloads.
fn downloads() {
    let files = support::files::FileServer::start();
    let sandbox = support::Sandbox::new();
    let mut feeds = Vec::new();
    for f in 0..3 {
        let mut items = String::new();
        for e in 0..5 {
            let path = format!("/f{f}/e{e}.mp3");
            files.file(&path, vec![(f * 5 + e) as u8; 4 * 1024 * 1024], &format!("f{f}e{e}"));
            items.push_str(&format!(
                "<item><guid>f{f}e{e}</guid><title>Episode {e}</title><enclosure url=\"{}\" type=\"audio/mpeg\"/></item>",
                files.url(&path)
            ));
        }
        let feed = format!("/feed{f}.xml");
        files.page(
            &feed,
            "application/rss+xml",
            format!("<rss version=\"2.0\"><channel><title>Podcast {f}</title>{items}</channel></rss>"),
        );
        feeds.push(files.url(&feed));
    }
    for url in &feeds {
        assert!(sandbox.run(&["add", url]).status.success(), "subscribe to {url}");
    }
    assert!(sandbox.run(&["refresh", "--no-sync"]).status.success(), "refresh the podcasts");
    let dl = sandbox.path("downloads");
    let settings = tidings::session::Settings {
        downloads: tidings::downloads::DownloadSettings { dir: dl.clone(), ..Default::default() },
        ..Default::default()
    };
    runtime().block_on(async {
        let session = tidings::session::Session::open(&sandbox.db(), settings, tidings::session::Role::Command)
            .expect("open the session");
        let ids: Vec<tidings::model::EntryId> = session
            .writer()
            .call(|c| {
                let mut stmt = c.prepare("SELECT id FROM entries ORDER BY id")?;
                let ids = stmt.query_map([], |r| r.get(0))?.collect::<Result<Vec<i64>, _>>()?;
                Ok(ids.into_iter().map(tidings::model::EntryId).collect())
            })
            .await
            .expect("the entries");
        let queued = session.downloads().queue(ids).await.expect("queue the episodes");
        assert_eq!(queued.added.len(), 15);
    });
    files.pace(64 * 1024, Duration::from_millis(5));
    println!("reader while downloading: 3 feeds × 5 episodes of 4 MB, 2 at once");
    let (printed, peak) = in_child(&format!("downloads:{}\n{}", sandbox.db().display(), dl.display()));
    print!("{printed}");
    println!("  peak memory of the reader: {peak:.1} MB; {} MB sent", files.sent() / (1024 * 1024));
}

/// In the child: the reader takes the queue up as it starts; a key every 10 ms until every file is done.
fn child_downloads(arg: &str) {
    use tidings::model::DownloadState;
    let (db, dl) = arg.split_once('\n').expect("a database and a download folder");
    let mut options = options(std::path::Path::new(db), false);
    options.config.download_dir = Some(dl.into());
    options.config.max_downloads = 2;
    let app = Reader::new(options).expect("open the reader");
    let (took, samples) = keys_while(app, |state| {
        state.downloads.rows.as_ref().is_some_and(|rows| {
            rows.iter().any(|d| matches!(d.state, DownloadState::Queued | DownloadState::Downloading))
        })
    });
    println!("  the downloads took {:.1} s in the reader", took.as_secs_f64());
    println!("  a key to its frame while downloading: {}", spread(samples));
}

/// 10,000 feeds in every state: the health view opened, then read and marked with keys.
fn health() {
    let spec =
        FarmSpec { feeds: 10_000, entries_per_feed: 5, read_percent: 50, starred_per_mille: 0, index: false, seed: 33 };
    let work = tempfile::tempdir().expect("temp dir");
    let db = work.path().join("health.db");
    let started = Instant::now();
    farm::build(&db, &spec);
    let conn = rusqlite::Connection::open(&db).expect("open the farm");
    conn.execute_batch(
        "UPDATE feeds SET
            failures = CASE id % 7 WHEN 0 THEN 3 WHEN 1 THEN 1 ELSE 0 END,
            permanent_failures = CASE id % 7 WHEN 0 THEN 3 ELSE 0 END,
            last_status = CASE id % 7 WHEN 0 THEN 404 WHEN 1 THEN 500 ELSE 200 END,
            last_error = CASE WHEN id % 7 IN (0, 1) THEN 'HTTP ' || last_status || ' (the server failed)' END,
            error_kind = CASE WHEN id % 7 IN (0, 1) THEN 'http' END,
            failing_since = CASE WHEN id % 7 IN (0, 1) THEN unixepoch() - 3600 END,
            moved_to = CASE id % 7 WHEN 2 THEN 'http://moved.example/' || id || '.xml' END,
            moves_in_a_row = CASE id % 7 WHEN 2 THEN 3 ELSE 0 END",
    )
    .expect("give the farm's feeds their health");
    drop(conn);
    println!("reader health: {} feeds (built in {:.1} s)", spec.feeds, started.elapsed().as_secs_f64());
    let (printed, peak) = in_child(&format!("health:{}", db.display()));
    print!("{printed}");
    println!("  peak memory of the reader: {peak:.1} MB");
}

/// In the child: `!` to the frame with every feed judged (five times), then keys in the view to their frames.
fn child_health(db: &str) {
    let rt = runtime();
    rt.block_on(async {
        let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
        let mut app = Reader::new(options(std::path::Path::new(db), false)).expect("open the reader");
        app.dispatch(Event::Tick(chrono::Utc::now().timestamp()));
        app.start();
        app.run_until(Duration::from_secs(60), |s| s.feeds.loaded).await.unwrap();
        app.draw(&mut terminal).unwrap();
        let mut opens = Vec::new();
        for _ in 0..5 {
            app.state.health.rows = None;
            let at = Instant::now();
            app.dispatch(key(KeyCode::Char('!')));
            app.run_until(Duration::from_secs(60), |s| s.health.rows.is_some()).await.unwrap();
            app.draw(&mut terminal).unwrap();
            opens.push(at.elapsed());
            app.dispatch(key(KeyCode::Esc));
        }
        let judged = app.state.health.rows.as_ref().map_or(0, Vec::len);
        println!("  the health view opened with {judged} feeds judged: {}", spread(opens).replace("keys", "opens"));
        app.dispatch(key(KeyCode::Char('!')));
        app.run_until(Duration::from_secs(60), |s| s.health.rows.is_some()).await.unwrap();
        let mut keys = walk();
        keys.extend((0..50).map(|_| key(KeyCode::Char(' '))));
        keys.extend((0..20).map(|_| key(KeyCode::Char('*'))));
        let mut samples = Vec::new();
        for event in keys {
            let at = Instant::now();
            app.dispatch(event);
            app.draw(&mut terminal).unwrap();
            samples.push(at.elapsed());
        }
        println!("  a key in the health view to its frame: {}", spread(samples));
    });
}

/// A 1000 × 800 JPEG of smooth colour (a photograph's worth of detail for the decoder), different per `seed`.
fn jpeg(seed: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(1000, 800, |x, y| {
        image::Rgb([((x + seed * 37) % 256) as u8, ((y + seed * 11) % 256) as u8, ((x ^ y) % 256) as u8])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(image).write_to(&mut out, image::ImageFormat::Jpeg).expect("encode a JPEG");
    out.into_inner()
}

/// `pictures`: an article with 10 pictures (1000 × 800 JPEGs) and one without, then one with 50.
fn pictures() {
    println!("reader with pictures (half-blocks on TestBackend, cells of 10 × 20 pixels):");
    let (printed, peak) = in_child("pictures:");
    print!("{printed}");
    println!("  peak memory of the reader, 50 pictures opened: {peak:.1} MB");
}

fn child_pictures(_: &str) {
    let rt = runtime();
    rt.block_on(async {
        let server = server::Server::start();
        let gates: Vec<server::Gate> = (0..10).map(|_| server::Gate::default()).collect();
        for (i, gate) in gates.iter().enumerate() {
            server.route(
                &format!("/p{i}.jpg"),
                server::Reply::Held(gate.clone(), Box::new(server::Reply::ok("image/jpeg", jpeg(i as u32)))),
            );
        }
        for i in 10..60 {
            server.route(&format!("/p{i}.jpg"), server::Reply::ok("image/jpeg", jpeg(i as u32)));
        }
        let words = "<p>Some words of the article, enough to fill a line or two of the pane at its width.</p>";
        let article = |from: usize, to: usize| -> String {
            (from..to)
                .map(|i| {
                    format!("{words}<p><img src=\"{}\" alt=\"Picture {i}\"></p>", server.url(&format!("/p{i}.jpg")))
                })
                .collect()
        };
        let plain: String = (0..10).map(|_| format!("{words}{words}")).collect();
        let items = [("ten", article(0, 10)), ("none", plain), ("fifty", article(10, 60))];
        let mut xml = String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>P</title>");
        for (i, (guid, body)) in items.iter().enumerate() {
            xml.push_str(&format!(
                "<item><guid>{guid}</guid><title>{guid}</title><pubDate>Tue, 10 Jun 2025 1{i}:00:00 GMT</pubDate>\
                 <description><![CDATA[{body}]]></description></item>"
            ));
        }
        server.route("/feed.xml", server::Reply::ok("application/rss+xml", xml));
        let dir = tempfile::tempdir().expect("temp dir");
        let opml = dir.path().join("f.opml");
        std::fs::write(
            &opml,
            format!("<opml version=\"2.0\"><body><outline xmlUrl=\"{}\"/></body></opml>", server.url("/feed.xml")),
        )
        .unwrap();
        let db = dir.path().join("r.db");
        tidings::import::import_file(&db, &opml).expect("import");
        let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
        let mut app = Reader::new(options(&db, true)).expect("open the reader");
        app.set_pictures(tidings::pictures::Setup {
            picker: tidings::pictures::detect::fixed(ratatui_image::picker::ProtocolType::Halfblocks, (10, 20)),
            cache_dir: None,
            cache_max_bytes: 0,
        });
        app.dispatch(Event::Tick(chrono::Utc::now().timestamp()));
        app.start();
        app.run_until(Duration::from_secs(60), |s| {
            s.feeds.loaded && s.progress.is_idle() && s.feeds.feeds.iter().all(|f| f.last_fetched_at.is_some())
        })
        .await
        .unwrap();
        app.run_until(Duration::from_secs(60), |s| s.entries.len() == 3).await.unwrap();
        app.dispatch(key(KeyCode::Char('l')));
        // Newest first: fifty, none, ten. Text on screen: from Enter to the frame that shows the body.
        let open = |app: &mut Reader, index: usize| {
            app.dispatch(key(KeyCode::Char('g')));
            for _ in 0..index {
                app.dispatch(key(KeyCode::Char('j')));
            }
            app.dispatch(key(KeyCode::Enter));
        };
        for (name, index) in [("without pictures", 1usize), ("with 10 pictures", 2)] {
            app.state.focus = tidings::app::Pane::Entries;
            let started = Instant::now();
            open(&mut app, index);
            app.run_until(Duration::from_secs(60), |s| s.article.ready().is_some_and(|a| a.rendered_width.is_some()))
                .await
                .unwrap();
            app.draw(&mut terminal).unwrap();
            println!("  an article {name}: key to the frame with its text {:.1} ms", ms(started.elapsed()));
        }
        // Each picture's bytes released one at a time: to the frame that shows it.
        let mut samples = Vec::new();
        for (i, gate) in gates.iter().enumerate() {
            let url = server.url(&format!("/p{i}.jpg"));
            // Scroll until the picture's place is on screen (its size is not known yet).
            app.state.focus = tidings::app::Pane::Article;
            let height = app.state.article_height();
            for _ in 0..500 {
                let view = app.state.article.view.as_ref().expect("the article");
                let row = view.pictures.iter().find(|p| p.picture.url == url).map_or(0, |p| p.row);
                if row < view.scroll + height / 2 {
                    break;
                }
                app.dispatch(key(KeyCode::Char('j')));
            }
            let started = Instant::now();
            gate.open();
            app.run_until(Duration::from_secs(60), |s| {
                matches!(
                    s.pictures.known.get(&url),
                    Some(
                        tidings::app::article::pictures::Known::Ready { prepared: Some(_), .. }
                            | tidings::app::article::pictures::Known::Refused(_)
                    )
                )
            })
            .await
            .unwrap_or_else(|e| panic!("{e}: {url} {:?}", app.state.pictures.known));
            app.draw(&mut terminal).unwrap();
            samples.push(started.elapsed());
        }
        println!(
            "  a picture's bytes released to the frame that shows it (1000 × 800 JPEG, decoded and scaled): {}",
            spread(samples).replace("keys", "pictures")
        );
        // Scrolling through it, pictures on screen.
        app.dispatch(key(KeyCode::Char('g')));
        let mut samples = Vec::new();
        for i in 0..200 {
            let at = Instant::now();
            app.dispatch(key(if i < 100 { KeyCode::Char('j') } else { KeyCode::Char('k') }));
            app.draw(&mut terminal).unwrap();
            samples.push(at.elapsed());
            while let Ok(Some(ev)) = tokio::time::timeout(Duration::ZERO, app.next_event()).await {
                app.dispatch(ev);
            }
        }
        println!("  scrolling the article with pictures, a key to its frame: {}", spread(samples));
        // Fifty pictures: open the third article and scroll to its end, every picture fetched and shown.
        app.state.focus = tidings::app::Pane::Entries;
        open(&mut app, 0);
        app.run_until(Duration::from_secs(60), |s| s.article.ready().is_some_and(|a| a.rendered_width.is_some()))
            .await
            .unwrap();
        let started = Instant::now();
        loop {
            app.dispatch(key(KeyCode::PageDown));
            let settle = tokio::time::timeout(
                Duration::from_millis(300),
                app.run_until(Duration::from_secs(60), |s| {
                    s.pictures.known.values().all(|k| {
                        !matches!(
                            k,
                            tidings::app::article::pictures::Known::Loading
                                | tidings::app::article::pictures::Known::Ready { prepared: None, .. }
                        )
                    })
                }),
            )
            .await;
            let _ = settle;
            app.draw(&mut terminal).unwrap();
            let view = app.state.article.view.as_ref().unwrap();
            if view.scroll + 45 >= view.lines.len() {
                break;
            }
        }
        let shown = app
            .state
            .pictures
            .known
            .values()
            .filter(|k| matches!(k, tidings::app::article::pictures::Known::Ready { .. }))
            .count();
        println!("  fifty pictures opened: {shown} decoded, in {:.1} s", started.elapsed().as_secs_f64());
        println!("  {}", memory_now());
    });
}

/// Where the process's memory is now: resident, and the allocator's view (in use, mapped apart, free but kept
/// in its arenas — fragmentation), so that a peak can be told apart from what is held.
fn memory_now() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> f64 {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    let mut out = format!("memory now: resident {:.1} MB (peak {:.1} MB)", field("VmRSS:"), field("VmHWM:"));
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's counters.
        let info = unsafe { libc::mallinfo2() };
        let mb = |n: usize| n as f64 / (1024.0 * 1024.0);
        out.push_str(&format!(
            "; allocator: {:.1} MB in use, {:.1} MB of it mapped apart, {:.1} MB free in its arenas",
            mb(info.uordblks + info.hblkhd),
            mb(info.hblkhd),
            mb(info.fordblks)
        ));
    }
    out
}

/// Runs this benchmark again as a child doing `job`, and returns what it printed and its peak memory in MB.
fn in_child(job: &str) -> (String, f64) {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let mut cmd = std::process::Command::new(exe);
    cmd.env(CHILD, job);
    let m = support::measure(&mut cmd);
    assert!(m.output.status.success(), "the child failed: {}", support::stderr(&m.output));
    (support::stdout(&m.output), m.peak_rss as f64 / (1024.0 * 1024.0))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a tokio runtime")
}

fn options(db: &std::path::Path, refresh_on_startup: bool) -> Options {
    Options {
        db: db.to_path_buf(),
        config: Config { refresh_on_startup, refresh_interval_minutes: 0, ..Config::default() },
        notice: None,
        report: vec![],
        size: (160, 45),
        zone: tidings::clock::Zone::utc(),
    }
}

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Milliseconds, for printing.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// "mean 0.8 ms, p99 2.1 ms, max 3.0 ms (500 keys)".
fn spread(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let n = samples.len().max(1);
    let mean = samples.iter().sum::<Duration>() / n as u32;
    let p99 = samples[(n * 99 / 100).min(n - 1)];
    let max = samples.last().copied().unwrap_or_default();
    format!("mean {:.2} ms, p99 {:.2} ms, max {:.2} ms ({n} keys)", ms(mean), ms(p99), ms(max))
}

fn lists() {
    let spec = FarmSpec::BENCH;
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let started = Instant::now();
    let (farm, built) = farm::cached(&dir, &spec);
    println!(
        "reader lists: {} feeds × {} entries = {} entries ({} in {:.1} s)",
        spec.feeds,
        spec.entries_per_feed,
        spec.entries(),
        if built { "built" } else { "cached" },
        started.elapsed().as_secs_f64()
    );
    // The reader marks nothing read here, but it is a writer: it works on a copy.
    let work = tempfile::tempdir().expect("temp dir");
    let db = work.path().join("reader.db");
    std::fs::copy(&farm.path, &db).expect("copy the farm");
    let (printed, peak) = in_child(&format!("lists:{}", db.display()));
    print!("{printed}");
    println!("  peak memory of the reader: {peak:.1} MB");
}

fn views() {
    let spec = FarmSpec::BENCH;
    // The search benchmark's farm (the same spec), so that one build serves both.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("search-bench");
    let (farm, _) = farm::cached(&dir, &spec);
    let work = tempfile::tempdir().expect("temp dir");
    let db = work.path().join("reader.db");
    std::fs::copy(&farm.path, &db).expect("copy the farm");
    println!("reader views: {} entries, five saved views counted while keys arrive", spec.entries());
    let (printed, peak) = in_child(&format!("views:{}", db.display()));
    print!("{printed}");
    println!("  peak memory of the reader: {peak:.1} MB");
}

/// In the child: the reader with five views; keys walk the Unread view while their counts are read.
fn child_views(db: &str) {
    let word = |rank| farm::Language::English.vocabulary_word(rank);
    let queries = [
        format!("text ~ {}", word(200)),
        format!("text ~ {} and age < 30d and unread", word(2_000)),
        "text ~ \"open source\" or title ~ rust".to_string(),
        format!("folder = Tech and text ~ {}", word(50)),
        format!("not text ~ {} and unread", word(20)),
    ];
    let mut text = "refresh_on_startup = false\nrefresh_interval_minutes = 0\n".to_string();
    for (i, q) in queries.iter().enumerate() {
        text.push_str(&format!("\n[[views]]\nname = \"View {i}\"\nquery = '{q}'\n"));
    }
    let config = Config::parse(&text).expect("the views parse");
    let rt = runtime();
    rt.block_on(async {
        let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
        let options = Options { config, ..options(std::path::Path::new(db), false) };
        let mut app = Reader::new(options).expect("open the reader");
        app.dispatch(Event::Tick(chrono::Utc::now().timestamp()));
        let started = Instant::now();
        app.start();
        app.run_until(Duration::from_secs(60), |s| s.feeds.loaded).await.unwrap();
        app.draw(&mut terminal).unwrap();
        app.dispatch(key(KeyCode::Char('l')));
        let counted = |s: &State| s.feeds.saved.iter().all(|v| v.unread.is_some());
        let mut samples = Vec::new();
        let mut keys = walk().into_iter();
        while !counted(&app.state) && samples.len() < 100_000 {
            let event = keys.next().unwrap_or_else(|| {
                keys = walk().into_iter();
                key(KeyCode::Char('g'))
            });
            let at = Instant::now();
            app.dispatch(event);
            app.draw(&mut terminal).unwrap();
            samples.push(at.elapsed());
            while let Ok(Some(ev)) = tokio::time::timeout(Duration::ZERO, app.next_event()).await {
                app.dispatch(ev);
            }
        }
        let took = started.elapsed();
        let counts: Vec<String> = app.state.feeds.saved.iter().map(|v| format!("{}", v.unread.unwrap_or(-1))).collect();
        println!("  the five views counted ({}) {:.0} ms after the start", counts.join(", "), ms(took));
        println!("  a key to its frame while they were counted: {}", spread(samples));
    });
}

/// Keys that walk a list: down, pages, half pages, to the end and back.
fn walk() -> Vec<Event> {
    let mut keys = Vec::new();
    for _ in 0..200 {
        keys.push(key(KeyCode::Char('j')));
    }
    for _ in 0..50 {
        keys.push(key(KeyCode::PageDown));
    }
    keys.push(key(KeyCode::Char('G')));
    for _ in 0..100 {
        keys.push(key(KeyCode::Char('k')));
    }
    keys.push(key(KeyCode::Char('g')));
    for _ in 0..50 {
        keys.push(Event::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL)));
    }
    keys
}

/// In the child: the first frame, then a walk through the Unread view and through All.
fn child_lists(db: &str) {
    let rt = runtime();
    rt.block_on(async {
        let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
        let started = Instant::now();
        let mut app = Reader::new(options(std::path::Path::new(db), false)).expect("open the reader");
        app.dispatch(Event::Tick(chrono::Utc::now().timestamp()));
        app.start();
        app.run_until(Duration::from_secs(60), |s| s.feeds.loaded).await.unwrap();
        app.draw(&mut terminal).unwrap();
        let feeds_frame = started.elapsed();
        app.run_until(Duration::from_secs(60), |s| s.entries.loaded).await.unwrap();
        app.draw(&mut terminal).unwrap();
        let entries_frame = started.elapsed();
        println!(
            "  first frame with the feed list: {:.0} ms; with the Unread view's {} entries: {:.0} ms",
            ms(feeds_frame),
            app.state.entries.len(),
            ms(entries_frame)
        );
        for (name, list) in [("Unread", ListKey::Unread), ("All", ListKey::All)] {
            if app.state.entries.of != Some(list) {
                let loading = Instant::now();
                select(&mut app, list);
                app.run_until(Duration::from_secs(60), |s: &State| s.entries.loaded).await.unwrap();
                app.draw(&mut terminal).unwrap();
                println!("  {name}: {} entries listed in {:.0} ms", app.state.entries.len(), ms(loading.elapsed()));
            }
            app.dispatch(key(KeyCode::Char('l')));
            let mut samples = Vec::new();
            for event in walk() {
                let at = Instant::now();
                app.dispatch(event);
                app.draw(&mut terminal).unwrap();
                samples.push(at.elapsed());
                // Rows read meanwhile arrive as events, as in the real loop (not counted as key time).
                while let Ok(Some(ev)) = tokio::time::timeout(Duration::ZERO, app.next_event()).await {
                    app.dispatch(ev);
                }
            }
            println!("  a key in {name} ({} entries) to its frame: {}", app.state.entries.len(), spread(samples));
            app.dispatch(key(KeyCode::Char('h')));
        }
    });
}

/// Puts the feed cursor on `list`.
fn select(app: &mut Reader, list: ListKey) {
    app.state.focus = tidings::app::Pane::Feeds;
    app.dispatch(key(KeyCode::Char('g')));
    while app.state.feeds.selected_list() != Some(list) {
        app.dispatch(key(KeyCode::Char('j')));
    }
}

/// The shape of the refresh measurement.
struct Shape {
    feeds: usize,
    items: usize,
    hosts: usize,
    latency: Duration,
}

fn shape(args: &[String]) -> Shape {
    let value = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    Shape {
        feeds: value("--feeds", 4000) as usize,
        items: value("--items", 100) as usize,
        hosts: value("--hosts", 200) as usize,
        latency: Duration::from_millis(value("--latency-ms", 100)),
    }
}

fn refresh(args: &[String]) {
    let shape = shape(args);
    let farm = server::Farm::start(shape.hosts, shape.latency).expect("bind the farm's loopback addresses");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut outlines = String::new();
    for f in 0..shape.feeds {
        let host = f % shape.hosts;
        let path = format!("/feed/{f}.xml");
        farm.route(&path, server::Reply::ok("application/rss+xml; charset=utf-8", feed(f, shape.items)));
        let url = farm.url(host, &path);
        outlines.push_str(&format!("<outline type=\"rss\" text=\"Feed {f}\" xmlUrl=\"{url}\"/>"));
    }
    let opml = dir.path().join("feeds.opml");
    std::fs::write(&opml, format!("<opml version=\"2.0\"><body>{outlines}</body></opml>")).expect("write the OPML");
    let db = dir.path().join("reader.db");
    tidings::import::import_file(&db, &opml).expect("import the feeds");
    println!(
        "reader during a refresh: {} feeds × {} items from {} hosts, {} ms away",
        shape.feeds,
        shape.items,
        shape.hosts,
        shape.latency.as_millis()
    );
    let (printed, peak) = in_child(&format!("refresh:{}", db.display()));
    print!("{printed}");
    println!("  peak memory of the reader: {peak:.1} MB (refreshing, with the 400,000 new entries)");
}

/// A feed of the farm: `items` entries with a paragraph each.
fn feed(f: usize, items: usize) -> String {
    let mut xml = format!("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Feed {f}</title>");
    for i in 0..items {
        xml.push_str(&format!(
            "<item><guid>f{f}-{i}</guid><title>Entry {i} of feed {f}</title><link>http://example.com/{f}/{i}</link>\
             <pubDate>Tue, 10 Jun 2025 {:02}:{:02}:00 GMT</pubDate><description>&lt;p&gt;Paragraph {i} of feed {f}, \
             with some words to read and index.&lt;/p&gt;</description></item>",
            i / 60 % 24,
            i % 60
        ));
    }
    xml.push_str("</channel></rss>");
    xml
}

/// In the child: refresh everything while a key arrives every 10 ms; each key's latency is from when it was
/// sent to when the frame drawn after it was done, the loop working as `Reader::run` does.
fn child_refresh(db: &str) {
    let app = Reader::new(options(std::path::Path::new(db), true)).expect("open the reader");
    let (took, samples) = keys_while(app, |state| !state.progress.is_idle());
    println!("  refresh took {:.1} s in the reader", took.as_secs_f64());
    println!("  a key to its frame while refreshing: {}", spread(samples));
}

/// Runs `app` as `Reader::run` does while a key arrives every 10 ms, until `busy` has been true and is false
/// again: how long it was busy, and each key's time from being sent to the frame drawn after it, while busy.
fn keys_while(mut app: Reader, busy: fn(&State) -> bool) -> (Duration, Vec<Duration>) {
    let rt = runtime();
    rt.block_on(async {
        let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
        app.dispatch(Event::Tick(chrono::Utc::now().timestamp()));
        app.start();
        let inbox = app.sender();
        let (sent_tx, mut sent_rx) = tokio::sync::mpsc::unbounded_channel::<Instant>();
        let typist = tokio::spawn(async move {
            let keys = [KeyCode::Char('j'), KeyCode::Char('j'), KeyCode::Char('k'), KeyCode::PageDown, KeyCode::PageUp];
            let mut tick = tokio::time::interval(Duration::from_millis(10));
            for i in 0.. {
                tick.tick().await;
                let _ = sent_tx.send(Instant::now());
                if inbox.send(key(keys[i % keys.len()])).is_err() {
                    break;
                }
            }
        });
        let started = Instant::now();
        let mut samples = Vec::new();
        let mut began = false;
        loop {
            let Some(event) = app.next_event().await else { break };
            let mut keys_in_frame = Vec::new();
            let mut take = |ev: &Event, sent: &mut tokio::sync::mpsc::UnboundedReceiver<Instant>| {
                if matches!(ev, Event::Key(_)) {
                    keys_in_frame.push(sent.try_recv().ok());
                }
            };
            take(&event, &mut sent_rx);
            app.dispatch(event);
            for _ in 0..512 {
                match tokio::time::timeout(Duration::ZERO, app.next_event()).await {
                    Ok(Some(ev)) => {
                        take(&ev, &mut sent_rx);
                        app.dispatch(ev);
                    }
                    _ => break,
                }
            }
            app.draw(&mut terminal).unwrap();
            let drawn = Instant::now();
            if busy(&app.state) {
                began = true;
                samples.extend(keys_in_frame.into_iter().flatten().map(|sent| drawn - sent));
            } else if began {
                break;
            }
        }
        typist.abort();
        (started.elapsed(), samples)
    })
}

/// `sync`: the reader's first sync with a real FreshRSS holding `--feeds` × `--items` (200 × 50), while a key
/// arrives every 10 ms.
fn sync(args: &[String]) {
    let value = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (feeds, items) = (value("--feeds", 200), value("--items", 50));
    let freshrss = match support::freshrss::FreshRss::start() {
        Ok(server) => server,
        Err(why) => {
            println!("reader during a sync: skipped, no FreshRSS here: {why}");
            return;
        }
    };
    let server = server::Server::start();
    let filled = support::freshrss::fill(&freshrss, &server, feeds, items);
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, freshrss.config(support::freshrss::PASSWORD)).expect("write the config");
    let db = dir.path().join("reader.db");
    println!("reader during its first sync: FreshRSS holding {} items of {feeds} feeds", filled.all.len());
    let (printed, peak) = in_child(&format!("sync:{}\n{}", db.display(), config.display()));
    print!("{printed}");
    let stored: i64 = rusqlite::Connection::open(&db)
        .and_then(|c| c.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)))
        .unwrap_or(0);
    println!("  stored {stored} of {} items; peak memory of the reader: {peak:.1} MB", filled.all.len());
}

fn child_sync(arg: &str) {
    let (db, config) = arg.split_once('\n').expect("a database and a config");
    let mut options = options(std::path::Path::new(db), false);
    let text = std::fs::read_to_string(config).expect("read the config");
    options.config = Config { refresh_interval_minutes: 0, ..Config::parse(&text).expect("a valid config") };
    let app = Reader::new(options).expect("open the reader");
    let (took, samples) = keys_while(app, |state| !state.sync.in_flight.is_empty());
    println!("  the sync took {:.1} s in the reader", took.as_secs_f64());
    println!("  a key to its frame while syncing: {}", spread(samples));
}
