//! `cargo bench --bench bench -- sync [--feeds N] [--items M]`: tidings's sync against a real FreshRSS (the kit
//! next to the repository) holding N feeds × M items (200 × 50 by default) in three labels, one nested, with a
//! third of the items read and one in fifty starred: the cold sync's wall time, requests (counted in the
//! server's own log) and peak memory, and the same for a sync with nothing new — beside a plain paged client
//! (login, then `stream/contents` 1000 at a time, then the unread and starred ids) pulling the same server, and
//! newsboat's FreshRSS backend when it is installed. Then the same items over the Fever API (FreshRSS's
//! `api/fever.php`, and Coldsweat when its kit starts) and on the Miniflux test server over Miniflux's own API,
//! each beside a plain client making the same calls. Prints figures; asserts nothing.

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

    fever_on_freshrss(&freshrss, all.len());
    coldsweat(&server, feeds);
    miniflux(feeds, items);
}

/// `tidings sync --json` into a fresh database with `config`, cold then with nothing new: wall time, requests
/// (tidings's own count) and peak memory; returns the cold sync's wall time.
fn tidings_twice(what: &str, config: &str) -> Duration {
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", config);
    let mut cold = Duration::ZERO;
    for label in ["cold", "nothing new"] {
        let measured = measure(sandbox.tidings().arg("--config").arg(&cfg).args(["sync", "--json"]));
        let said: serde_json::Value = serde_json::from_slice(&measured.output.stdout).unwrap_or_default();
        let report = &said["accounts"][0]["report"];
        println!(
            "  {what}: tidings sync, {label}: {:.2} s, {} requests, peak {:.0} MB, {} new",
            measured.wall.as_secs_f64(),
            report["requests"],
            measured.peak_rss as f64 / 1e6,
            report["new"]
        );
        if label == "cold" {
            cold = measured.wall;
        }
    }
    cold
}

/// A plain Fever client: every item by `since_id` (as many a call as the server gives), then, where that gave
/// fewer than the server holds (`total_items`: Coldsweat pages feed by feed), the ids skipped by `with_ids`, 50 a
/// call, as tidings does; then the two sets.
fn plain_fever(port: u16, path: &str, key: &str) -> (usize, usize) {
    use crate::support::coldsweat::fever_call;
    let ids_of = |page: &serde_json::Value| -> Vec<i64> {
        page["items"]
            .as_array()
            .map(|l| l.iter().filter_map(|i| i["id"].as_i64().or_else(|| i["id"].as_str()?.parse().ok())).collect())
            .unwrap_or_default()
    };
    let (mut since, mut calls, mut held) = (0i64, 0usize, 0i64);
    let mut given = std::collections::BTreeSet::new();
    loop {
        let page = fever_call(port, &format!("{path}?api&items&since_id={since}"), key, &[]);
        calls += 1;
        held = held.max(page["total_items"].as_i64().unwrap_or(0));
        let ids = ids_of(&page);
        if ids.is_empty() {
            break;
        }
        given.extend(ids.iter().copied());
        since = ids.iter().copied().max().unwrap_or(since);
    }
    if held > given.len() as i64 {
        let missing: Vec<i64> = (1..=since).filter(|id| !given.contains(id)).collect();
        for chunk in missing.chunks(50) {
            let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
            let page = fever_call(port, &format!("{path}?api&items&with_ids={}", list.join(",")), key, &[]);
            calls += 1;
            given.extend(ids_of(&page));
        }
    }
    for set in ["unread_item_ids", "saved_item_ids"] {
        fever_call(port, &format!("{path}?api&{set}"), key, &[]);
        calls += 1;
    }
    (given.len(), calls)
}

fn compare(what: &str, plain: Duration, plain_items: usize, plain_calls: usize, cold: Duration) {
    println!(
        "  {what}: plain client {plain_items} items in {plain_calls} calls, {:.2} s; tidings's cold sync {:.1}× its time          (target ≤ 2×)",
        plain.as_secs_f64(),
        cold.as_secs_f64() / plain.as_secs_f64().max(1e-6)
    );
}

/// The same FreshRSS over its Fever API.
fn fever_on_freshrss(freshrss: &FreshRss, total: usize) {
    let key = tidings::fever::api_key(USER, PASSWORD);
    let start = Instant::now();
    let (items, calls) = plain_fever(freshrss.port, "/api/fever.php", &key);
    let plain = start.elapsed();
    let config = format!(
        "refresh_on_startup = false\n[[accounts]]\nname = \"FreshRSS\"\nkind = \"fever\"\n\
         url = \"http://127.0.0.1:{}/api/fever.php\"\nuser = \"{USER}\"\npassword = \"{PASSWORD}\"\n",
        freshrss.port
    );
    let cold = tidings_twice(&format!("FreshRSS-Fever ({total} items)"), &config);
    compare("FreshRSS-Fever", plain, items, calls, cold);
}

/// Coldsweat (the kit, when it starts) with the same feeds, a third of the items read and one in fifty saved.
fn coldsweat(server: &Server, feeds: usize) {
    use crate::support::coldsweat::{Coldsweat, id_set};
    let outlines: Vec<(Option<&str>, String, String)> = (0..feeds)
        .map(|f| (Some(LABELS[f % LABELS.len()]), format!("Feed {f}"), server.url(&format!("/f{f}.xml"))))
        .collect();
    let refs: Vec<(Option<&str>, &str, &str)> = outlines.iter().map(|(l, t, u)| (*l, t.as_str(), u.as_str())).collect();
    let started = Instant::now();
    let coldsweat = match Coldsweat::start(&crate::support::opml(&refs)) {
        Ok(server) => server,
        Err(why) => {
            println!("  Coldsweat: skipped, its kit does not start here: {why}");
            return;
        }
    };
    let all: Vec<String> = id_set(&coldsweat.fever("&unread_item_ids", &[]), "unread_item_ids").into_iter().collect();
    for id in all.iter().step_by(3) {
        coldsweat.fever("", &[("mark", "item"), ("as", "read"), ("id", id)]);
    }
    for id in all.iter().step_by(50) {
        coldsweat.fever("", &[("mark", "item"), ("as", "saved"), ("id", id)]);
    }
    println!("  Coldsweat holds {} items; set up in {:.1} s", all.len(), started.elapsed().as_secs_f64());
    let key = tidings::fever::api_key(crate::support::coldsweat::EMAIL, crate::support::coldsweat::PASSWORD);
    let port = coldsweat.port;
    let start = Instant::now();
    let (got, calls) = plain_fever(port, "/fever/", &key);
    let plain = start.elapsed();
    let cold = tidings_twice(&format!("Coldsweat-Fever ({} items)", all.len()), &coldsweat.config());
    compare("Coldsweat-Fever", plain, got, calls, cold);
}

/// The Miniflux test server (Miniflux itself cannot run here) over Miniflux's own API, with `feeds` × `items`
/// entries, a third read and 200 starred.
fn miniflux(feeds: usize, items: usize) {
    use crate::support::miniflux::{Entry, Miniflux, State};
    let total = (feeds * items) as u64;
    let state = State {
        feeds: (1..=feeds as u64)
            .map(|f| {
                (f, format!("http://example.org/{f}.xml"), format!("Feed {f}"), LABELS[f as usize % 3].to_string())
            })
            .collect(),
        entries: (1..=total)
            .map(|id| Entry {
                id,
                feed: 1 + id % feeds as u64,
                published: 1_700_000_000 + id as i64,
                read: id % 3 == 0,
                starred: id % (total / 200).max(1) == 0,
            })
            .collect(),
        ..State::default()
    };
    let server = Miniflux::start(state);
    let port = server.port();
    let key = format!("X-Auth-Token: {}\r\n", crate::support::miniflux_api::API_KEY);
    let get = |path: &str| -> serde_json::Value {
        let (_, body) = crate::support::freshrss::form_request(port, "GET", path, &key, &[]);
        serde_json::from_str(&body).unwrap_or_default()
    };
    // A plain client: the feeds, every entry by id a thousand at a time, the two sets of ids.
    let start = Instant::now();
    get("/v1/feeds");
    let (mut after, mut got, mut calls) = (0i64, 0usize, 1usize);
    loop {
        let page = get(&format!("/v1/entries?after_entry_id={after}&order=id&direction=asc&limit=1000"));
        calls += 1;
        let ids: Vec<i64> =
            page["entries"].as_array().map(|l| l.iter().filter_map(|e| e["id"].as_i64()).collect()).unwrap_or_default();
        if ids.is_empty() {
            break;
        }
        got += ids.len();
        after = ids.iter().copied().max().unwrap_or(after);
    }
    get("/v1/entries/ids?status=unread");
    get("/v1/entries/ids?starred=true");
    calls += 2;
    let plain = start.elapsed();
    let cold = tidings_twice(&format!("Miniflux API ({total} entries)"), &server.api_config());
    compare("Miniflux API", plain, got, calls, cold);
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
