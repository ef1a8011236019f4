//! `cargo bench --bench bench -- sync [--feeds N] [--items M]`: tidings's sync against a real FreshRSS (the kit
//! next to the repository) holding N feeds × M items (200 × 50 by default) in three labels, one nested, with a
//! third of the items read and one in fifty starred: the cold sync's wall time, requests (counted in the
//! server's own log) and peak memory, and the same for a sync with nothing new — beside a plain paged client
//! (login, then `stream/contents` 1000 at a time, then the unread and starred ids) pulling the same server, and
//! newsboat's FreshRSS backend when it is installed. Prints figures; asserts nothing.

use crate::support::freshrss::{Filled, FreshRss, LABELS, PASSWORD, USER, fill};
use crate::support::server::Server;
use crate::support::{Sandbox, measure};
use std::time::{Duration, Instant};

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

pub(crate) fn run(args: &[String]) {
    let (feeds, items) = (arg(args, "--feeds", 200), arg(args, "--items", 50));
    let freshrss = match FreshRss::start() {
        Ok(server) => server,
        Err(why) => {
            println!("sync: skipped, no FreshRSS here: {why}");
            return;
        }
    };
    let server = Server::start();
    let started = Instant::now();
    let Filled { all, read, starred } = fill(&freshrss, &server, feeds, items);
    let api = freshrss.api();
    println!(
        "sync: FreshRSS holds {} items of {feeds} feeds in {} labels ({} read, {} starred); set up in {:.1} s",
        all.len(),
        LABELS.len(),
        read.len(),
        starred.len(),
        started.elapsed().as_secs_f64()
    );

    // The plain paged client.
    let before = freshrss.requests().len();
    let start = Instant::now();
    let plain = api.plain_pull();
    let plain_wall = start.elapsed();
    let plain_calls = freshrss.requests().len() - before;
    println!("  plain paged client: {plain} items in {plain_calls} calls, {:.2} s", plain_wall.as_secs_f64());

    // tidings, cold then with nothing new.
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", freshrss.config(PASSWORD));
    let run = |label: &str| -> (Duration, usize) {
        let before = freshrss.requests().len();
        let measured = measure(sandbox.tidings().arg("--config").arg(&cfg).arg("sync"));
        let calls = freshrss.requests().len() - before;
        let said = String::from_utf8_lossy(&measured.output.stdout).trim().to_string();
        println!(
            "  tidings sync, {label}: {:.2} s, {calls} calls, peak {:.0} MB — {said}",
            measured.wall.as_secs_f64(),
            measured.peak_rss as f64 / 1e6,
        );
        (measured.wall, calls)
    };
    let (cold, _) = run("cold");
    let stored: i64 = rusqlite::Connection::open(sandbox.db())
        .unwrap()
        .query_row("SELECT count(*) FROM entries", [], |r| r.get(0))
        .unwrap();
    run("nothing new");
    println!(
        "  tidings stored {stored} of {} items; cold sync {:.1}× the plain client's time",
        all.len(),
        cold.as_secs_f64() / plain_wall.as_secs_f64().max(1e-6)
    );
    reader_against_command(&freshrss, all.len());
    // The server marks a hundred items read: one sync later they are read here.
    let hundred: Vec<String> = api.ids("unread").into_iter().take(100).collect();
    api.mark(&hundred, "read", true);
    run("after 100 marked read on the server");

    newsboat(&freshrss, all.len());
}

/// The reader's first sync beside `tidings sync`'s, cold, each into a database of its own, alternating three
/// times: the same engine behind both front doors should take the same time (the target: ≤ 1.2×).
fn reader_against_command(freshrss: &FreshRss, total: usize) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (mut command, mut reader) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let sandbox = Sandbox::new();
        let cfg = sandbox.write("config.toml", freshrss.config(PASSWORD));
        command.push(measure(sandbox.tidings().arg("--config").arg(&cfg).arg("sync")).wall);

        let sandbox = Sandbox::new();
        let config = tidings::config::Config::parse(&freshrss.config(PASSWORD)).unwrap();
        let options = tidings::runtime::Options {
            db: sandbox.db(),
            config,
            notice: None,
            report: vec![],
            size: (160, 40),
            zone: tidings::clock::Zone::utc(),
        };
        let started = Instant::now();
        runtime.block_on(async {
            let mut app = tidings::runtime::Reader::new(options).unwrap();
            app.start();
            let synced = |s: &tidings::app::State| {
                s.status.log.iter().any(|m| m.text.starts_with("FreshRSS: ")) && s.sync.in_flight.is_empty()
            };
            app.run_until(Duration::from_secs(300), synced).await.unwrap();
            app.flush_writes().await.unwrap();
        });
        reader.push(started.elapsed());
        let stored: i64 = rusqlite::Connection::open(sandbox.db())
            .unwrap()
            .query_row("SELECT count(*) FROM entries", [], |r| r.get(0))
            .unwrap();
        assert_eq!(stored as usize, total, "the reader stored every item");
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (c, r) = (median(&mut command), median(&mut reader));
    println!(
        "  first sync, cold, medians of 3: tidings sync {:.2} s, the reader {:.2} s: {:.2}× (target ≤ 1.2×)",
        c.as_secs_f64(),
        r.as_secs_f64(),
        r.as_secs_f64() / c.as_secs_f64().max(1e-6)
    );
}

/// newsboat's FreshRSS backend on the same server, when newsboat is installed.
fn newsboat(freshrss: &FreshRss, total: usize) {
    if std::process::Command::new("newsboat").arg("--version").output().is_err() {
        println!("  newsboat: not installed (apt-get install newsboat)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let url = freshrss.api_url().replace("/api/greader.php", "/");
    std::fs::write(
        &config,
        format!("urls-source \"freshrss\"\nfreshrss-url \"{url}\"\nfreshrss-login \"{USER}\"\nfreshrss-password \"{PASSWORD}\"\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("urls"), "").unwrap();
    let cache = dir.path().join("cache.db");
    let before = freshrss.requests().len();
    let measured = measure(
        std::process::Command::new("newsboat")
            .arg("-C")
            .arg(&config)
            .arg("-u")
            .arg(dir.path().join("urls"))
            .arg("-c")
            .arg(&cache)
            .arg("-x")
            .arg("reload")
            .env("HOME", dir.path()),
    );
    let calls = freshrss.requests().len() - before;
    let stored: i64 = rusqlite::Connection::open(&cache)
        .and_then(|c| c.query_row("SELECT count(*) FROM rss_item", [], |r| r.get(0)))
        .unwrap_or(0);
    println!(
        "  newsboat (urls-source freshrss): {:.2} s, {calls} calls, stored {stored} of {total} items",
        measured.wall.as_secs_f64()
    );
}
