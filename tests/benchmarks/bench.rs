//! Benchmarks, run with `cargo bench --bench bench -- [decode|parse|render|hostile|ingest|refresh|sync]` (all of
//! them but `sync` without an argument). `hostile` renders and extracts every case of `support::hostile`, each in a
//! process of its own, and prints its time and peak memory, with an `OVER BUDGET` line for each that exceeds
//! [`HOSTILE_SECS`] or [`HOSTILE_MB`]; `--bytes N` sizes the cases (1 MiB, the most a stored entry holds),
//! `--timeout S` stops a case after S seconds (60) and `--max-mb M` when it asks for more than M MB of memory
//! (4096), `--case NAME` runs the cases whose name contains NAME. `refresh` takes `--feeds N --items M` (1000 × 50),
//! `--item-bytes B` (each item padded to about B bytes: `--feeds 1 --items 20000 --item-bytes 950` is one 19 MB
//! feed), `--hosts H --latency-ms L` (one host, no delay:
//! H > 1 serves the feeds from 127.0.1.1 … 127.0.1.H, L ms added to every answer), `--https` (the farm over HTTPS
//! and HTTP/2, trusted through `tests/fixtures/tls`; no newsboat or sfeed then), `--concurrency N --per-host N`
//! (tidings's defaults), `--tidings-only` (no curl, newsboat or sfeed), `--runs N` (rounds, medians after; curl's
//! whole fetch is run in each round too, and the second refresh's median is compared with curl's) and
//! `--compare REV` (another commit built and run beside this build, in turn; see `compare.rs`); after the whole
//! refresh it measures the refresh's phases apart (see `phases.rs`). `rules` (only by name) refreshes the same farm
//! cold without kill rules and with twenty, in turn (`--runs N`, 3), and prints what the rules cost. They print
//! figures and assert nothing: a
//! shared two-core machine is too noisy for timed tests. `TIDINGS_BENCH_WRAP="perf record -g -o FILE --"` runs
//! the second refresh under that command (a profiler: `perf`, `valgrind --tool=callgrind`, `strace -c`).

// A benchmark or a harness of its own: what it measured goes to standard output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "compare.rs"]
mod compare;
#[path = "phases.rs"]
mod phases;
#[path = "../support/mod.rs"]
mod support;

/// Counts the heap for the phases (see `phases.rs`); passes everything on to the system allocator.
#[global_allocator]
static ALLOCATOR: phases::Counting = phases::Counting;

use support::{Measured, measure, server};

mod sync;

use std::time::{Duration, Instant};

/// Runs `f` repeatedly for about `budget`, returning the number of runs and the time they took.
fn repeat(budget: Duration, mut f: impl FnMut()) -> (u32, Duration) {
    f(); // warm up
    let start = Instant::now();
    let mut runs = 0;
    while start.elapsed() < budget {
        f();
        runs += 1;
    }
    (runs, start.elapsed())
}

fn mb_per_s(bytes: usize, runs: u32, elapsed: Duration) -> f64 {
    (bytes as f64 * f64::from(runs)) / elapsed.as_secs_f64() / 1e6
}

/// A typical RSS 2.0 feed of `items` items: mostly ASCII markup, titles and bodies with some non-ASCII text.
fn typical_rss(items: usize) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><channel><title>Bench — a typical feed</title>\
         <link>https://example.com/</link><description>Numbers for tidings</description>\n",
    );
    for i in 0..items {
        xml.push_str(&format!(
            "<item><title>Entry {i}: café, naïve, Grüße, Привет, 日本語</title><link>https://example.com/posts/{i}</link>\
             <guid isPermaLink=\"false\">urn:bench:{i}</guid><pubDate>Tue, 10 Jun 2025 04:{:02}:00 GMT</pubDate>\
             <dc:creator>Ann Author</dc:creator><description>&lt;p&gt;Summary of entry {i} with &amp;amp; entities.&lt;/p&gt;</description>\
             <content:encoded><![CDATA[<p>Paragraph one of entry {i}. Lorem ipsum dolor sit amet, consectetur adipiscing \
             elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.</p>\
             <p>Paragraph two — with <a href=\"https://example.com/{i}\">a link</a> and <b>bold</b> text, \
             «quotes» and emoji 🎉.</p>]]></content:encoded></item>\n",
            i % 60
        ));
    }
    xml.push_str("</channel></rss>\n");
    xml
}

/// A typical JSON Feed of `items` items, the same entries as [`typical_rss`] with tags, and an attachment on
/// every tenth.
fn typical_json_feed(items: usize) -> String {
    let entries: Vec<serde_json::Value> = (0..items)
        .map(|i| {
            let mut item = serde_json::json!({
                "id": format!("urn:bench:{i}"),
                "url": format!("https://example.com/posts/{i}"),
                "title": format!("Entry {i}: café, naïve, Grüße, Привет, 日本語"),
                "summary": format!("Summary of entry {i} with & entities."),
                "content_html": format!(
                    "<p>Paragraph one of entry {i}. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do \
                     eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.</p>\
                     <p>Paragraph two — with <a href=\"https://example.com/{i}\">a link</a> and <b>bold</b> text, \
                     «quotes» and emoji 🎉.</p>"
                ),
                "date_published": format!("2025-06-10T04:{:02}:00Z", i % 60),
                "authors": [{"name": "Ann Author"}],
                "tags": ["bench", "feeds"],
            });
            if i % 10 == 0 {
                item["attachments"] = serde_json::json!([
                    {"url": format!("https://example.com/{i}.mp3"), "mime_type": "audio/mpeg", "size_in_bytes": 1000}
                ]);
            }
            item
        })
        .collect();
    serde_json::json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Bench — a typical feed",
        "home_page_url": "https://example.com/",
        "items": entries,
    })
    .to_string()
}

fn decode() {
    use tidings::decode::{Options, decode_with};
    let feed = typical_rss(2000);
    let bytes = feed.as_bytes();
    let labelled = Options { content_type: Some("application/rss+xml; charset=utf-8"), ..Options::default() };
    let (runs, elapsed) = repeat(Duration::from_secs(2), || {
        let (len, _) = decode_with::<_, ()>(bytes, &labelled, |text| Ok(text.len())).expect("decodes");
        std::hint::black_box(len);
    });
    println!(
        "decode: well-labelled UTF-8, {:.1} MB document: {:.0} MB/s ({runs} runs)",
        bytes.len() as f64 / 1e6,
        mb_per_s(bytes.len(), runs, elapsed)
    );

    // The fallback path for comparison: KOI8-R served as text/html with a declaration saying utf-8.
    let koi8 =
        encoding_rs::KOI8_R.encode(&feed.replace("café, naïve, Grüße, ", "").replace("日本語", "")).0.into_owned();
    let mislabelled = Options { content_type: Some("text/html"), ..Options::default() };
    let (runs, elapsed) = repeat(Duration::from_secs(2), || {
        let (len, d) = decode_with::<_, ()>(&koi8, &mislabelled, |text| Ok(text.len())).expect("decodes");
        assert_eq!(d.encoding, "KOI8-R");
        std::hint::black_box(len);
    });
    println!(
        "decode: KOI8-R served as text/html (lenient chain and detector), {:.1} MB: {:.0} MB/s ({runs} runs)",
        koi8.len() as f64 / 1e6,
        mb_per_s(koi8.len(), runs, elapsed)
    );
}

fn parse() {
    let rss = typical_rss(2000);
    parse_one("typical RSS 2.0", &rss, "application/rss+xml; charset=utf-8", "https://example.com/feed");
    let json = typical_json_feed(2000);
    parse_one("typical JSON Feed 1.1", &json, "application/feed+json", "https://example.com/feed.json");
}

/// Times decode + parse + map of a 2000-item feed served with `content_type` from `url`.
fn parse_one(name: &str, feed: &str, content_type: &str, url: &str) {
    let bytes = feed.as_bytes();
    let (runs, elapsed) = repeat(Duration::from_secs(3), || {
        let parsed = tidings::ingest::ingest(bytes, Some(content_type), Some(url), None).expect("parses");
        assert_eq!(parsed.feed.entries.len(), 2000);
        std::hint::black_box(parsed);
    });
    println!(
        "parse: {name}, {:.1} MB, 2000 items, decode + parse + map on one core: {:.0} MB/s ({:.1} ms a run, {runs} runs)",
        bytes.len() as f64 / 1e6,
        mb_per_s(bytes.len(), runs, elapsed),
        elapsed.as_secs_f64() * 1e3 / f64::from(runs)
    );
}

/// Decode + parse of the refresh benchmark's documents (`--feeds N --items M`, 1000 × 50), in this process, as
/// the refresher's reading tasks call it ([`tidings::ingest::ingest`]), one feed after the other on one thread:
/// the pure core's share of a cold refresh. `--passes N` (3) passes over them; each is timed in processor time
/// of this thread. Run it under `valgrind --tool=callgrind` with `--passes 1` for counts that a busy machine
/// does not blur.
fn ingest_farm(args: &[String]) {
    let (feeds, items) = (arg_value(args, "--feeds", 1000), arg_value(args, "--items", 50));
    let passes = arg_value(args, "--passes", 3).max(1);
    let host = server::farm_address(0).to_string();
    let docs: Vec<(String, String)> =
        (0..feeds).map(|f| (bench_feed(f, items, &host), format!("http://{host}/feed/{f}.xml"))).collect();
    let bytes: usize = docs.iter().map(|(d, _)| d.len()).sum();
    let mut times = Vec::with_capacity(passes);
    for _ in 0..passes {
        let start = phases::thread_cpu_time();
        let mut entries = 0;
        for (doc, url) in &docs {
            let ingested =
                tidings::ingest::ingest(doc.as_bytes(), Some("application/rss+xml; charset=utf-8"), Some(url), None)
                    .expect("the benchmark's feeds parse");
            entries += ingested.feed.entries.len();
            std::hint::black_box(ingested);
        }
        assert_eq!(entries, feeds * items);
        times.push((phases::thread_cpu_time() - start).as_secs_f64());
    }
    println!(
        "ingest: the refresh farm's {feeds} feeds × {items} items ({:.1} MB), decode + parse on one thread: cpu {:.3} s \
         a pass (best of {passes}; median {:.3} s), {:.0} MB/s",
        bytes as f64 / 1e6,
        times.iter().copied().fold(f64::INFINITY, f64::min),
        median(times.clone()),
        bytes as f64 / times.iter().copied().fold(f64::INFINITY, f64::min) / 1e6
    );
}

/// An article of about `bytes` bytes of typical HTML: paragraphs with links and emphasis, headings, a list.
fn article_html(bytes: usize) -> String {
    let mut html = String::new();
    let mut i = 0;
    while html.len() < bytes {
        i += 1;
        if i % 10 == 1 {
            html.push_str(&format!("<h2>Section {i}</h2>"));
        }
        html.push_str(&format!(
            "<p>Paragraph {i}: a reader wants <b>clean</b> text, <i>proper</i> wrapping and <a href=\"/link/{i}\">links</a> \
             that can be followed. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>"
        ));
        if i % 7 == 0 {
            html.push_str("<ul><li>one point</li><li>another point</li></ul>");
        }
    }
    html
}

fn render() {
    let html = article_html(100 * 1024);
    let (runs, elapsed) = repeat(Duration::from_secs(3), || {
        let rendered = tidings::render::render_article(&html, 80, Some("https://example.com/post"));
        std::hint::black_box(rendered);
    });
    println!(
        "render: {} KB article at 80 columns: {:.1} ms a render ({runs} runs)",
        html.len() / 1024,
        elapsed.as_secs_f64() * 1e3 / f64::from(runs)
    );
}

/// The most one hostile document may take to render (or to extract, as a page), in seconds of wall time.
const HOSTILE_SECS: f64 = 1.0;
/// The most memory a process rendering (or extracting) one hostile document may reach, in MB (its input and
/// the program included).
const HOSTILE_MB: f64 = 200.0;

/// The argument that makes this benchmark run one hostile case (see [`hostile_case`]).
const HOSTILE_MODE: &str = "__hostile";

/// Renders at 80 columns, and extracts as a page, every hostile case, each in its own process (so that its peak
/// memory is its own), and reports which exceed the budget.
fn hostile(args: &[String]) {
    let bytes = arg_value(args, "--bytes", 1024 * 1024);
    let timeout = arg_value(args, "--timeout", 60);
    let max_mb = arg_value(args, "--max-mb", 4096);
    let only = args.iter().position(|a| a == "--case").and_then(|i| args.get(i + 1));
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    println!(
        "hostile: each case rendered at 80 columns, then extracted as a web page, in a process of its own \
         ({} KB cases; budget {HOSTILE_SECS} s and {HOSTILE_MB} MB each)",
        bytes / 1024
    );
    println!(
        "  {:<36}{:>9}  {:>10}{:>10}{:>9}  {:>10}{:>10}",
        "case", "input", "render", "peak RSS", "lines", "extract", "peak RSS"
    );
    let mut over = Vec::new();
    for case in support::hostile::cases() {
        if only.is_some_and(|o| !case.name.contains(o.as_str())) {
            continue;
        }
        let mut row = format!("  {:<36}{:>7.0} KB", case.name, case.html(bytes).len() as f64 / 1024.0);
        for what in ["render", "extract"] {
            let mut cmd = std::process::Command::new(std::env::current_exe().expect("the benchmark's own path"));
            cmd.args([HOSTILE_MODE, what, case.name, &bytes.to_string(), &timeout.to_string(), &max_mb.to_string()]);
            let m = measure(&mut cmd);
            let out = support::stdout(&m.output);
            let mut figures = out.split_whitespace();
            let secs: Option<f64> = figures.next().and_then(|s| s.parse().ok());
            let size = figures.next().unwrap_or("?").to_string();
            let time = match secs {
                Some(s) => format!("{s:.3} s"),
                None if out.contains("timeout") => format!("> {timeout} s"),
                None if support::stderr(&m.output).contains("memory allocation") => format!("> {max_mb} MB"),
                None => "failed".to_string(),
            };
            row.push_str(&format!("  {time:>10}{:>7.1} MB", mb(m.peak_rss)));
            if what == "render" {
                row.push_str(&format!("{size:>9}"));
            }
            if secs.is_none_or(|s| s > HOSTILE_SECS) || mb(m.peak_rss) > HOSTILE_MB {
                over.push(format!(
                    "OVER BUDGET: {} {what}: {time}, {:.1} MB (budget {HOSTILE_SECS} s, {HOSTILE_MB} MB){}",
                    case.name,
                    mb(m.peak_rss),
                    match support::stderr(&m.output).lines().find(|l| !l.trim().is_empty()) {
                        Some(why) if !m.output.status.success() => format!("; {}", why.trim()),
                        _ => String::new(),
                    }
                ));
            }
        }
        println!("{row}");
    }
    for line in &over {
        println!("{line}");
    }
    if over.is_empty() {
        println!("  every case within budget");
    }
}

/// One hostile case in this process: `render|extract NAME BYTES TIMEOUT MAX_MB`. Prints the seconds the call
/// took and the size of what it gave (lines rendered, or characters extracted), or `timeout` when it ran out of
/// time; past MAX_MB of address space, an allocation fails and the process aborts.
fn hostile_case(args: &[String]) -> std::process::ExitCode {
    let (what, name) = (args[0].as_str(), args[1].as_str());
    let bytes: usize = args[2].parse().expect("a size");
    let timeout: u64 = args[3].parse().expect("a timeout");
    let max_bytes = args[4].parse::<u64>().expect("a memory limit") * 1024 * 1024;
    let limit = libc::rlimit { rlim_cur: max_bytes as libc::rlim_t, rlim_max: max_bytes as libc::rlim_t };
    // SAFETY: setrlimit reads the struct we own; lowering this process's own limit is always allowed.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    let html = support::hostile::cases().into_iter().find(|c| c.name == name).expect("a known case").html(bytes);
    // A watchdog, not a synchronisation: a case still running after the timeout is reported as such.
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(timeout));
        println!("timeout");
        std::process::exit(2);
    });
    let started = Instant::now();
    let size = match what {
        "render" => tidings::render::render_article(&html, 80, Some("https://example.com/post")).lines.len(),
        _ => {
            let page = support::hostile::page(&html);
            match tidings::extract::extract_page(page.as_bytes(), Some("text/html"), "https://example.com/post") {
                Ok(article) => article.text_chars,
                Err(e) => {
                    eprintln!("{e}");
                    0
                }
            }
        }
    };
    println!("{:.6} {size}", started.elapsed().as_secs_f64());
    std::process::ExitCode::SUCCESS
}

fn arg_value(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The shape of a refresh benchmark, from its arguments.
struct RefreshShape {
    feeds: usize,
    items: usize,
    hosts: usize,
    latency: Duration,
    /// tidings's settings for the run: the defaults unless `--concurrency` / `--per-host` say otherwise.
    concurrency: usize,
    per_host: usize,
    /// `--tidings-only`: leave out curl, newsboat and sfeed (quicker while working on tidings).
    tidings_only: bool,
    /// `--item-bytes N`: each item's description padded with text to about N bytes (a long feed's weight).
    item_bytes: usize,
    /// `--spread`: items dated and titled as the real web's are (see [`Items::Spread`]).
    items_like: Items,
    /// Unless `--no-validators`, every feed has an ETag and the second refresh is answered 304 throughout; without,
    /// the second refresh brings every document whole again, unchanged, as feeds without validators do.
    validators: bool,
    /// `--changed`: the second refresh finds every feed a day later, one item newer (the last listed gone), as most
    /// feeds that changed have: documents whole again (a new ETag), of which one entry is new and the others
    /// stored already.
    changed: bool,
    /// `--https`: the farm answers over HTTPS and HTTP/2 alone, as most of the web's big hosts do, with the test
    /// authority's certificate (`tests/fixtures/tls`), which tidings and curl are told to trust.
    https: bool,
}

impl RefreshShape {
    fn from_args(args: &[String]) -> RefreshShape {
        let defaults = tidings::config::Config::default();
        RefreshShape {
            feeds: arg_value(args, "--feeds", 1000),
            items: arg_value(args, "--items", 50),
            hosts: arg_value(args, "--hosts", 1).clamp(1, 254 * 254),
            latency: Duration::from_millis(arg_value(args, "--latency-ms", 0) as u64),
            concurrency: arg_value(args, "--concurrency", defaults.concurrency),
            per_host: arg_value(args, "--per-host", defaults.per_host_concurrency),
            tidings_only: args.iter().any(|a| a == "--tidings-only"),
            item_bytes: arg_value(args, "--item-bytes", 0),
            items_like: if args.iter().any(|a| a == "--spread") { Items::Spread } else { Items::Alike },
            validators: !args.iter().any(|a| a == "--no-validators"),
            changed: args.iter().any(|a| a == "--changed"),
            https: args.iter().any(|a| a == "--https"),
        }
    }

    /// The network's floor: every host answers its feeds in batches of `per_host`, one round trip each, all hosts
    /// at once (and no more than the global limit in flight).
    fn floor(&self) -> Duration {
        let per_host = self.feeds.div_ceil(self.hosts).div_ceil(self.per_host);
        let global = self.feeds.div_ceil(self.concurrency.min(self.per_host * self.hosts));
        self.latency * per_host.max(global) as u32
    }
}

/// How the benchmark's items are dated and titled.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Items {
    /// Every feed's items dated within the same hour (minute `i % 60`) and titled `Feed F item I`: a cold refresh
    /// stores each feed's entries next to each other in every index.
    Alike,
    /// As the real web's feeds are: each feed's newest item somewhere in the last five years and the others
    /// before it, one to three days apart; titles of words in no particular order. A cold refresh stores
    /// entries at random places in any index by date or by title.
    Spread,
}

/// Feed `f` of the benchmark: `items` ordinary items, links on its own host.
fn bench_feed(f: usize, items: usize, host: &str) -> String {
    padded_feed(f, items, host, 0, Items::Alike, 0)
}

/// The ETag the refresh farm gives feed `f` as it reads `newer` items later.
fn feed_etag(f: usize, newer: usize) -> String {
    format!("\"v{f}-{newer}\"")
}

/// [`bench_feed`] with each item's description padded with ordinary words to about `item_bytes` bytes; with
/// `newer` items published since on top (numbered after the others, dated after them) and as many of the last
/// listed gone (with `--spread`, the oldest), as the same feed reads later.
fn padded_feed(f: usize, items: usize, host: &str, item_bytes: usize, like: Items, newer: usize) -> String {
    const WORDS: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ";
    const TITLE_WORDS: [&str; 16] = [
        "Release",
        "notes",
        "why",
        "river",
        "Budget",
        "council",
        "a",
        "new",
        "garden",
        "Linux",
        "week",
        "review",
        "storm",
        "the",
        "Market",
        "interview",
    ];
    // A fixed stream of numbers from (feed, item): the same farm every run.
    let mix = |a: usize, b: usize| {
        let mut x = (a as u64) << 32 ^ b as u64 ^ 0x9E37_79B9_7F4A_7C15;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    };
    // Spread: the feed's newest item somewhere in the five years before late 2025, the others before it.
    let newest = 1_764_000_000 - (mix(f, usize::MAX) % (5 * 365 * 86_400)) as i64;
    let mut at = newest;
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>Feed {f}</title>\
         <link>http://{host}/{f}/</link><description>bench</description>"
    );
    let spread_title = |h: u64| {
        let words = (0..4).map(|k| TITLE_WORDS[(h >> (k * 4)) as usize % 16]).collect::<Vec<_>>().join(" ");
        format!("{words} {}", h >> 48)
    };
    let rfc2822 = |at: i64| chrono::DateTime::from_timestamp(at, 0).expect("a date in range").to_rfc2822();
    let mut listed = Vec::with_capacity(items + newer);
    for j in (0..newer).rev() {
        let i = items + j;
        listed.push(match like {
            Items::Alike => (i, format!("Feed {f} item {i}"), format!("Tue, 10 Jun 2025 05:{:02}:00 GMT", j % 60)),
            Items::Spread => (i, spread_title(mix(f, i)), rfc2822(newest + 3600 * (j as i64 + 1))),
        });
    }
    for i in 0..items {
        listed.push(match like {
            Items::Alike => (i, format!("Feed {f} item {i}"), format!("Tue, 10 Jun 2025 04:{:02}:00 GMT", i % 60)),
            Items::Spread => {
                let h = mix(f, i);
                at -= 86_400 + (h >> 16) as i64 % (2 * 86_400);
                (i, spread_title(h), rfc2822(at))
            }
        });
    }
    listed.truncate(items);
    for (i, title, date) in listed {
        xml.push_str(&format!(
            "<item><title>{title}</title><link>http://{host}/{f}/{i}</link><guid>f{f}-i{i}</guid>\
             <pubDate>{date}</pubDate><description>&lt;p&gt;Item {i} of feed {f}: \
             a paragraph of ordinary text, as feeds carry.{}&lt;/p&gt;</description></item>",
            WORDS.repeat(item_bytes.saturating_sub(300) / WORDS.len())
        ));
    }
    xml.push_str("</channel></rss>");
    xml
}

/// The argument that makes this benchmark a measuring helper (see [`measure_alone`]).
const MEASURE_MODE: &str = "__measure";
/// The argument that makes this benchmark measure the refresh's phases (see `phases.rs`).
const PHASES_MODE: &str = "__phases";

/// Runs `cmd` through a fresh copy of this benchmark, which measures it; returns it measured, with the processor
/// time it used (user and system, all its threads and children: steadier than wall time on a busy machine).
/// Measuring it directly would report the benchmark's own peak memory whenever that is larger: a child spawned by
/// vfork (as `Command` does) starts its peak at the parent's, and this process holds every feed of the farm.
fn measure_alone(cmd: &std::process::Command) -> (Measured, Duration) {
    let mut helper = std::process::Command::new(std::env::current_exe().expect("the benchmark's own path"));
    helper.arg(MEASURE_MODE).arg(cmd.get_program()).args(cmd.get_args());
    for (name, value) in cmd.get_envs() {
        match value {
            Some(value) => helper.env(name, value),
            None => helper.env_remove(name),
        };
    }
    let mut measured = measure(&mut helper);
    let stderr = String::from_utf8_lossy(&measured.output.stderr).into_owned();
    let (rest, figures) = stderr.rsplit_once(MEASURE_MODE).expect("the measuring helper reports its figures");
    let mut numbers = figures.split_whitespace().map(|n| n.parse::<u64>().expect("a figure"));
    measured.peak_rss = numbers.next().expect("peak memory");
    measured.wall = Duration::from_nanos(numbers.next().expect("wall time"));
    let cpu = Duration::from_nanos(numbers.next().expect("processor time"));
    measured.output.stderr = rest.as_bytes().to_vec();
    (measured, cpu)
}

/// The measuring helper: runs the command in `args`, passes its output on, and reports its peak memory, wall time
/// and processor time last on stderr; exits as it did.
fn measure_for_parent(args: &[String]) -> std::process::ExitCode {
    use std::io::Write;
    let measured = measure(std::process::Command::new(&args[0]).args(&args[1..]));
    // SAFETY: an all-zero rusage is a valid value of this plain C struct, which getrusage then fills.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a struct we own; the only child this process waited for is the command.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    let cpu_nanos = (micros(usage.ru_utime) + micros(usage.ru_stime)) * 1000;
    let _ = std::io::stdout().write_all(&measured.output.stdout);
    let _ = std::io::stderr().write_all(&measured.output.stderr);
    eprintln!("{MEASURE_MODE} {} {} {cpu_nanos}", measured.peak_rss, measured.wall.as_nanos());
    std::process::ExitCode::from(measured.output.status.code().unwrap_or(1).clamp(0, 255) as u8)
}

/// Whether `program` is installed (an executable file of that name on `PATH`).
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// A database file and the journal files beside it.
fn db_files(db: &std::path::Path) -> [std::path::PathBuf; 3] {
    let with = |suffix: &str| {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        std::path::PathBuf::from(name)
    };
    [db.to_path_buf(), with("-wal"), with("-shm")]
}

/// Makes `to` a copy of the database `from` (with its journal, if it has one left).
fn copy_db(from: &std::path::Path, to: &std::path::Path) {
    for (from, to) in db_files(from).iter().zip(db_files(to)) {
        let _ = std::fs::remove_file(&to);
        if from.exists() {
            std::fs::copy(from, &to).expect("copy a database");
        }
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Times the real binary refreshing generated feeds served by a farm of loopback hosts (one host by default),
/// beside the network's floor, curl, newsboat and sfeed on the same farm when they are installed. With
/// `--compare REV`, another commit's binary does the same on the same farm, round by round in turn with this
/// one (`--runs N` rounds, medians after). Then the refresh's phases, measured apart (see `phases.rs`).
fn refresh(args: &[String]) {
    let shape = RefreshShape::from_args(args);
    let runs = arg_value(args, "--runs", 1).max(1);
    let mut builds = vec![compare::this_build()];
    if let Some(rev) = args.iter().position(|a| a == "--compare").and_then(|i| args.get(i + 1)) {
        match compare::build(rev) {
            Ok(build) => builds.push(build),
            Err(e) => panic!("--compare {rev}: {e}"),
        }
    }
    let farm = if shape.https { server::Farm::start_tls } else { server::Farm::start };
    let farm = farm(shape.hosts, shape.latency).expect("bind the farm's loopback addresses");
    // Trusting the farm's certificate, over HTTPS: the test authority's, and only for the processes run here.
    let trusting = |cmd: &mut std::process::Command| {
        if shape.https {
            cmd.env("SSL_CERT_FILE", support::h2::authority());
        }
    };
    // Every feed as it reads `newer` items later (see `padded_feed`).
    let route_all = |newer: usize| {
        for f in 0..shape.feeds {
            let host = server::farm_address(f % shape.hosts).to_string();
            let xml = padded_feed(f, shape.items, &host, shape.item_bytes, shape.items_like, newer);
            let reply = server::Reply::ok("application/rss+xml; charset=utf-8", xml);
            let etag = feed_etag(f, newer);
            farm.route(
                &format!("/feed/{f}.xml"),
                if shape.validators { reply.with_header("ETag", &etag) } else { reply },
            );
        }
    };
    route_all(0);
    let urls: Vec<String> = (0..shape.feeds).map(|f| farm.url(f % shape.hosts, &format!("/feed/{f}.xml"))).collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let opml: String = urls.iter().map(|u| format!("<outline type=\"rss\" text=\"{u}\" xmlUrl=\"{u}\"/>")).collect();
    let opml_path = dir.path().join("feeds.opml");
    std::fs::write(&opml_path, format!("<opml version=\"2.0\"><body>{opml}</body></opml>")).expect("write opml");
    let urls_path = dir.path().join("urls.txt");
    std::fs::write(&urls_path, urls.join("\n") + "\n").expect("write the list of feeds");
    let config = dir.path().join("config.toml");
    let settings = format!("concurrency = {}\nper_host_concurrency = {}\n", shape.concurrency, shape.per_host);
    std::fs::write(&config, &settings).expect("write config");
    // Another commit runs with its own defaults, unless the settings were given.
    let explicit = args.iter().any(|a| a == "--concurrency" || a == "--per-host");
    // Each build imports the feeds into a database of its own (its own schema), kept as the cold start.
    let imported: Vec<std::path::PathBuf> = builds
        .iter()
        .enumerate()
        .map(|(i, build)| {
            let db = dir.path().join(format!("imported-{i}.db"));
            let mut import = std::process::Command::new(&build.tidings);
            import.env("HOME", dir.path());
            trusting(&mut import);
            if i == 0 || explicit {
                import.arg("--config").arg(&config);
            }
            let out = import.arg("--db").arg(&db).arg("import").arg(&opml_path).output().expect("run tidings import");
            assert!(out.status.success(), "{}: import failed: {}", build.label, support::stderr(&out));
            db
        })
        .collect();
    let tidings = |i: usize, db: &std::path::Path, sub: &[&str]| {
        let mut cmd = std::process::Command::new(&builds[i].tidings);
        cmd.env("HOME", dir.path());
        trusting(&mut cmd);
        if i == 0 || explicit {
            cmd.arg("--config").arg(&config);
        }
        cmd.arg("--db").arg(db).args(sub);
        cmd
    };

    // `TIDINGS_BENCH_WRAP="perf record -g -o FILE --"`: the second refresh runs under that command (a profiler);
    // its figures then include the profiler's.
    let profiled = |cmd: std::process::Command| match std::env::var("TIDINGS_BENCH_WRAP") {
        Ok(wrap) if !wrap.trim().is_empty() => {
            let mut words = wrap.split_whitespace();
            let mut wrapped = std::process::Command::new(words.next().expect("a command"));
            wrapped.args(words).arg(cmd.get_program()).args(cmd.get_args());
            for (name, value) in cmd.get_envs() {
                match value {
                    Some(value) => wrapped.env(name, value),
                    None => wrapped.env_remove(name),
                };
            }
            wrapped
        }
        _ => cmd,
    };
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    // Runs one measured command against the farm and prints its line, with what the farm saw.
    let run = |label: &str, cmd: &std::process::Command, versus: Option<&Measured>| -> (Measured, Duration) {
        farm.reset_counts();
        let (m, cpu) = measure_alone(cmd);
        let (opened, most_open) = farm.connections();
        let ratio = versus
            .map(|t| format!("   tidings is {:.1}× faster", m.wall.as_secs_f64() / t.wall.as_secs_f64().max(1e-9)))
            .unwrap_or_default();
        println!(
            "  {label:<26}{:>8.3} s   cpu {:>6.3} s   peak RSS {:>6.1} MB   {:>5} requests on {:>5} connections ({} \
             open at most), at most {} at once on one host{ratio}",
            m.wall.as_secs_f64(),
            cpu.as_secs_f64(),
            mb(m.peak_rss),
            farm.requests(),
            opened,
            most_open,
            farm.peak_per_host()
        );
        (m, cpu)
    };
    let first = server::farm_address(0);
    let hosts = match shape.hosts {
        1 => format!("1 host ({first})"),
        n => format!("{n} hosts ({first}–{})", server::farm_address(n - 1)),
    };
    println!(
        "refresh: {} feeds × {} items{} on {hosts}{}, {} ms added to every answer; tidings with concurrency = {}, \
         per_host_concurrency = {}",
        shape.feeds,
        shape.items,
        if shape.items_like == Items::Spread { " (dates and titles spread)" } else { "" },
        if shape.https { " over HTTPS (HTTP/2)" } else { "" },
        shape.latency.as_millis(),
        shape.concurrency,
        shape.per_host
    );
    if builds.len() > 1 {
        for (i, build) in builds.iter().enumerate().skip(1) {
            let how = if explicit { "the same settings" } else { "its own default settings" };
            println!("  [{i}] is {}, with {how}; [0] is this build; they take turns, {runs} round(s)", build.label);
        }
    }
    println!(
        "  {:<26}{:>8.3} s                                     (one round trip per host batch of {}, at most {} \
         in flight)",
        "network floor",
        shape.floor().as_secs_f64(),
        shape.per_host,
        shape.concurrency
    );
    // (wall, cpu, peak) of every cold, second (all-304, all unchanged or all changed) and unread run, per build.
    let second = match (shape.changed, shape.validators) {
        (true, _) => "changed refresh",
        (false, true) => "all-304 refresh",
        (false, false) => "unchanged refresh",
    };
    let mut figures: Vec<[Vec<(f64, f64, f64)>; 3]> = builds.iter().map(|_| Default::default()).collect();
    // With several rounds, curl fetches the same URLs whole in each round too, after the builds' runs: the targets
    // compare an all-304 refresh with that, and one curl run beside many of tidings's compared one noisy figure with
    // a median.
    let curl_list = dir.path().join("curl.conf");
    let lines: String = urls.iter().map(|u| format!("url = \"{u}\"\noutput = \"/dev/null\"\n")).collect();
    std::fs::write(&curl_list, lines).expect("write curl's list");
    let curl = |list: &std::path::Path| {
        let mut curl = std::process::Command::new("curl");
        curl.args(["--silent", "--parallel", "--parallel-max", "200", "--config"]).arg(list);
        if shape.https {
            curl.arg("--cacert").arg(support::h2::authority());
        }
        curl
    };
    let curl_each_round = (runs > 1 && !shape.tidings_only && on_path("curl")).then(|| curl(&curl_list));
    let mut curl_rounds: Vec<(f64, f64)> = Vec::new();
    let mut cold_this = None;
    let mut warm_this = None;
    let mut unread_this = None;
    for round in 0..runs {
        for (i, build) in builds.iter().enumerate() {
            let db = dir.path().join(format!("run-{i}.db"));
            copy_db(&imported[i], &db);
            let name = if builds.len() > 1 { format!("[{i}] ") } else { "tidings ".to_string() };
            let round_mark = if runs > 1 { format!(" #{}", round + 1) } else { String::new() };
            if shape.changed {
                route_all(0);
            }
            let cold = run(&format!("{name}cold refresh{round_mark}"), &tidings(i, &db, &["refresh"]), None);
            if shape.changed {
                route_all(1);
            }
            let warm = run(&format!("{name}{second}{round_mark}"), &profiled(tidings(i, &db, &["refresh"])), None);
            let unread = run(&format!("{name}unread{round_mark}"), &tidings(i, &db, &["unread"]), None);
            let ok = |m: &Measured| m.output.status.success();
            assert!(
                ok(&cold.0) && ok(&warm.0) && ok(&unread.0),
                "a run of {} failed:\n{}{}",
                build.label,
                support::stdout(&cold.0.output),
                support::stderr(&cold.0.output)
            );
            for (k, (m, cpu)) in [&cold, &warm, &unread].into_iter().enumerate() {
                figures[i][k].push((m.wall.as_secs_f64(), cpu.as_secs_f64(), mb(m.peak_rss)));
            }
            if i == 0 && round == 0 {
                let total_line = support::stdout(&unread.0.output).lines().last().unwrap_or("").trim().to_string();
                println!("  ({total_line}; {})", support::stdout(&cold.0.output).lines().next().unwrap_or("").trim());
                (cold_this, warm_this, unread_this) = (Some(cold.0), Some(warm.0), Some(unread.0));
            }
        }
        if let Some(curl) = &curl_each_round {
            let (m, cpu) = run(&format!("curl --parallel, 200 #{}", round + 1), curl, None);
            curl_rounds.push((m.wall.as_secs_f64(), cpu.as_secs_f64()));
        }
    }
    if runs > 1 {
        println!("  medians of {runs} rounds:");
        for (i, build) in builds.iter().enumerate() {
            for (k, what) in ["cold refresh", second, "unread"].iter().enumerate() {
                let column = |f: fn(&(f64, f64, f64)) -> f64| median(figures[i][k].iter().map(f).collect());
                println!(
                    "  {:<26}{:>8.3} s   cpu {:>6.3} s   peak RSS {:>6.1} MB",
                    format!("[{i}] {what}"),
                    column(|f| f.0),
                    column(|f| f.1),
                    column(|f| f.2)
                );
            }
            let _ = build;
        }
        if !curl_rounds.is_empty() {
            let curl_wall = median(curl_rounds.iter().map(|r| r.0).collect());
            let curl_cpu = median(curl_rounds.iter().map(|r| r.1).collect());
            println!("  {:<26}{curl_wall:>8.3} s   cpu {curl_cpu:>6.3} s", "curl --parallel, 200");
            for (i, _) in builds.iter().enumerate() {
                let walls: Vec<f64> = figures[i][1].iter().map(|f| f.0).collect();
                let ratios: Vec<f64> = walls.iter().zip(&curl_rounds).map(|(w, c)| w / c.0).collect();
                let (low, high) = ratios.iter().fold((f64::MAX, 0f64), |(l, h), r| (l.min(*r), h.max(*r)));
                println!(
                    "  [{i}] {second} / curl's whole fetch: {:.3}× (medians; round by round {low:.3}–{high:.3}×)",
                    median(walls) / curl_wall
                );
            }
        }
    }
    if shape.changed {
        route_all(0); // The phases measure a cold refresh.
    }
    println!(
        "  phases, apart: fetch as the refresher's client does, then decode, parse and store one feed at a time on \
         one thread"
    );
    for (i, build) in builds.iter().enumerate() {
        let name = if builds.len() > 1 { format!("[{i}] ") } else { String::new() };
        let Some(bench) = &build.bench else {
            println!("  {name}no benchmark binary: phases not measured");
            continue;
        };
        let db = dir.path().join(format!("phases-{i}.db"));
        copy_db(&imported[i], &db);
        let mut cmd = std::process::Command::new(bench);
        cmd.arg(PHASES_MODE).arg("--urls").arg(&urls_path).arg("--db").arg(&db);
        trusting(&mut cmd);
        cmd.args(["--concurrency", &shape.concurrency.to_string(), "--per-host", &shape.per_host.to_string()]);
        farm.reset_counts();
        let (m, cpu) = measure_alone(&cmd);
        let phases = phases::read(&support::stdout(&m.output));
        if phases.is_empty() {
            println!("  {name}its benchmark does not measure phases");
            continue;
        }
        for phase in &phases {
            println!("  {:<26}{}", format!("{name}{}", phase.name), phases::describe(phase));
        }
        println!(
            "  {:<26}{:>8.3} s   cpu {:>6.3} s   peak RSS {:>6.1} MB   (the whole process, with the bodies held)",
            format!("{name}phases' process"),
            m.wall.as_secs_f64(),
            cpu.as_secs_f64(),
            mb(m.peak_rss)
        );
    }
    let (cold, warm, unread) =
        (cold_this.expect("this build ran"), warm_this.expect("this build ran"), unread_this.expect("this build ran"));
    if shape.tidings_only {
        return;
    }

    if on_path("curl") {
        run("curl --parallel, 200", &curl(&curl_list), None);
        if shape.validators && !shape.changed {
            // The same URLs asked as the all-304 refresh asks them, each with its feed's ETag: the processor time
            // a lean client in C spends on the same 304s from the same farm. Each is an operation of its own (its
            // header its own), and an operation takes none of the options given before `next`.
            let list = dir.path().join("curl-304.conf");
            let trust = if shape.https {
                format!("cacert = \"{}\"\n", support::h2::authority().display())
            } else {
                String::new()
            };
            let operations: Vec<String> = urls
                .iter()
                .enumerate()
                .map(|(f, u)| {
                    let etag = feed_etag(f, 0).replace('"', "\\\"");
                    format!(
                        "url = \"{u}\"\noutput = \"/dev/null\"\nheader = \"If-None-Match: {etag}\"\n\
                         write-out = \"%{{http_code}}\\n\"\n{trust}"
                    )
                })
                .collect();
            std::fs::write(&list, operations.join("next\n")).expect("write curl's list of revalidations");
            let (revalidated, _) = run("curl --parallel, 304s", &curl(&list), Some(&warm));
            let answers = support::stdout(&revalidated.output);
            let not_modified = answers.lines().filter(|code| *code == "304").count();
            assert_eq!(not_modified, urls.len(), "curl's revalidations were not all answered 304: {answers}");
        }
    }

    if shape.https {
        println!("  newsboat, sfeed: not run over HTTPS (they cannot be told to trust the test authority alone)");
        return;
    }
    if on_path("newsboat") {
        let urls_file = dir.path().join("urls");
        std::fs::write(&urls_file, urls.join("\n") + "\n").expect("write urls");
        let nb_config = dir.path().join("newsboat.conf");
        std::fs::write(&nb_config, "reload-threads 10\nshow-read-feeds yes\n").expect("write newsboat config");
        let cache = dir.path().join("newsboat.db");
        let newsboat = |sub: &[&str]| {
            let mut cmd = std::process::Command::new("newsboat");
            cmd.env("HOME", dir.path())
                .arg("-u")
                .arg(&urls_file)
                .arg("-c")
                .arg(&cache)
                .arg("-C")
                .arg(&nb_config)
                .args(sub);
            cmd
        };
        run("newsboat cold reload", &newsboat(&["-x", "reload"]), Some(&cold));
        run("newsboat second reload", &newsboat(&["-x", "reload"]), Some(&warm));
        let nb_unread = run("newsboat print-unread", &newsboat(&["-x", "print-unread"]), Some(&unread));
        println!("  ({})", support::stdout(&nb_unread.0.output).trim());
    } else {
        println!("  newsboat: not installed (apt-get install newsboat), no comparison");
    }

    if on_path("sfeed_update") {
        let sfeedrc = dir.path().join("sfeedrc");
        let feeds: String = urls.iter().enumerate().map(|(i, u)| format!("\tfeed \"f{i}\" \"{u}\"\n")).collect();
        let sfeed_dir = dir.path().join("sfeed");
        let rc = format!("sfeedpath=\"{}\"\nmaxjobs=16\nfeeds() {{\n{feeds}}}\n", sfeed_dir.display());
        std::fs::write(&sfeedrc, rc).expect("write sfeedrc");
        let mut sfeed = std::process::Command::new("sfeed_update");
        sfeed.env("HOME", dir.path()).arg(&sfeedrc);
        run("sfeed_update, 16 jobs", &sfeed, Some(&cold));
    } else {
        println!("  sfeed: not installed (apt-get install sfeed), no comparison");
    }
}

/// Kill rules at ingest: the cold refresh of the refresh farm (1000 feeds × 50 items by default) by the real
/// binary with no rules and with twenty (titles, bodies, authors, one feed's), taking turns over `--runs`
/// rounds; the medians and what the rules cost, against the 10 %.
fn rules_at_ingest(args: &[String]) {
    let shape = RefreshShape::from_args(args);
    let runs = arg_value(args, "--runs", 3).max(1);
    let farm = server::Farm::start(shape.hosts, shape.latency).expect("bind the farm's loopback addresses");
    let mut urls = Vec::with_capacity(shape.feeds);
    for f in 0..shape.feeds {
        let host = f % shape.hosts;
        let path = format!("/feed/{f}.xml");
        let xml = bench_feed(f, shape.items, &server::farm_address(host).to_string());
        farm.route(&path, server::Reply::ok("application/rss+xml; charset=utf-8", xml));
        urls.push(farm.url(host, &path));
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let opml: String = urls.iter().map(|u| format!("<outline type=\"rss\" text=\"{u}\" xmlUrl=\"{u}\"/>")).collect();
    let opml_path = dir.path().join("feeds.opml");
    std::fs::write(&opml_path, format!("<opml version=\"2.0\"><body>{opml}</body></opml>")).expect("write opml");
    let settings = format!("concurrency = {}\nper_host_concurrency = {}\n", shape.concurrency, shape.per_host);
    let mut rules = String::new();
    for i in 0..20 {
        rules.push_str(&match i % 4 {
            0 => format!("\n[[ignore]]\nquery = 'title ~ \"sponsored {i}\"'\n"),
            1 => format!("\n[[ignore]]\nquery = 'text ~ \"promo code {i}\" or text ~ giveaway{i}'\n"),
            2 => format!("\n[[ignore]]\nquery = 'author = \"Bot {i}\" and not starred'\n"),
            // Scoped to a feed by its address (the farm's feeds are named by theirs): its items 4 and 40–49.
            _ => format!("\n[[ignore]]\nfeed = \"{}\"\nquery = 'title ~ \"item 4\"'\n", urls[i * 37 % urls.len()]),
        });
    }
    let plain = dir.path().join("plain.toml");
    std::fs::write(&plain, &settings).expect("write config");
    let ruled = dir.path().join("rules.toml");
    std::fs::write(&ruled, format!("{settings}{rules}")).expect("write config");
    // `TIDINGS_RULES_BINARY=PATH` times another build's binary on the same farm and rules (before and after).
    let binary = std::env::var_os("TIDINGS_RULES_BINARY").map_or(compare::this_build().tidings, Into::into);
    let tidings = |config: &std::path::Path, db: &std::path::Path, sub: &[&str]| {
        let mut cmd = std::process::Command::new(&binary);
        cmd.env("HOME", dir.path()).arg("--config").arg(config).arg("--db").arg(db).args(sub);
        cmd
    };
    let imported = dir.path().join("imported.db");
    let out =
        tidings(&plain, &imported, &["import", opml_path.to_str().expect("a UTF-8 path")]).output().expect("import");
    assert!(out.status.success(), "import failed: {}", support::stderr(&out));
    println!(
        "kill rules at ingest: cold refresh of {} feeds × {} items, without rules and with 20, taking turns ({runs} \
         rounds)",
        shape.feeds, shape.items
    );
    let mut times: [Vec<f64>; 2] = Default::default();
    let mut cpus: [Vec<f64>; 2] = Default::default();
    for round in 0..runs {
        for (k, (what, config)) in [("no rules", &plain), ("20 rules", &ruled)].into_iter().enumerate() {
            let db = dir.path().join(format!("rules-{k}.db"));
            copy_db(&imported, &db);
            let (m, cpu) = measure_alone(&tidings(config, &db, &["refresh"]));
            assert!(m.output.status.success(), "{what}: {}", support::stderr(&m.output));
            let caught = tidings(config, &db, &["list", "--ignored", "--json"]).output().expect("list --ignored");
            let count = serde_json::from_slice::<serde_json::Value>(&caught.stdout)
                .ok()
                .and_then(|v| v["count"].as_u64())
                .unwrap_or(0);
            println!(
                "  {what:<10} #{}  {:>7.3} s   cpu {:>6.2} s   {count} entries caught",
                round + 1,
                m.wall.as_secs_f64(),
                cpu.as_secs_f64()
            );
            times[k].push(m.wall.as_secs_f64());
            cpus[k].push(cpu.as_secs_f64());
        }
    }
    let (plain_wall, ruled_wall) = (median(times[0].clone()), median(times[1].clone()));
    let (plain_cpu, ruled_cpu) = (median(cpus[0].clone()), median(cpus[1].clone()));
    println!(
        "  medians: {plain_wall:.3} s without, {ruled_wall:.3} s with: the rules cost {:+.1} % of the refresh's time \
         (cpu {plain_cpu:.2} s → {ruled_cpu:.2} s, {:+.1} %); target ≤ 10 %",
        (ruled_wall / plain_wall - 1.0) * 100.0,
        (ruled_cpu / plain_cpu - 1.0) * 100.0
    );
}

fn main() -> std::process::ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if raw.first().is_some_and(|a| a == MEASURE_MODE) {
        return measure_for_parent(&raw[1..]);
    }
    if raw.first().is_some_and(|a| a == PHASES_MODE) {
        return phases::run(&raw[1..]);
    }
    if raw.first().is_some_and(|a| a == HOSTILE_MODE) {
        return hostile_case(&raw[1..]);
    }
    let modes: Vec<&String> = raw
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            !a.starts_with("--") && (*i == 0 || !raw[i - 1].starts_with("--") || raw[i - 1] == "--tidings-only")
        })
        .map(|(_, a)| a)
        .collect();
    let all = modes.is_empty();
    let wants = |name: &str| all || modes.iter().any(|a| *a == name);
    if wants("decode") {
        decode();
    }
    if wants("parse") {
        parse();
    }
    if wants("render") {
        render();
    }
    if wants("ingest") {
        ingest_farm(&raw);
    }
    if wants("hostile") {
        hostile(&raw);
    }
    if wants("refresh") {
        refresh(&raw);
    }
    if modes.iter().any(|a| *a == "newsboat") {
        newsboat();
    }
    // Two cold refreshes of the refresh farm per round: only when asked for by name.
    if modes.iter().any(|a| *a == "rules") {
        rules_at_ingest(&raw);
    }
    // Against a FreshRSS it sets up (minutes): only when asked for by name.
    if modes.iter().any(|a| *a == "sync") {
        sync::run(&raw);
    }
    std::process::ExitCode::SUCCESS
}

/// `tidings import newsboat` on a newsboat home of 1,000 feeds and 100,000 entries (a cache with newsboat
/// 2.21's schema, every tenth entry unread, every fiftieth flagged, feeds tagged into 20 folders), timed as a
/// user runs it: the real binary, once into a new database and once more (which must change nothing).
fn newsboat() {
    const FEEDS: usize = 1_000;
    const PER_FEED: usize = 100;
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache.db");
    {
        let mut conn = rusqlite::Connection::open(&cache).expect("cache");
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
        .expect("schema");
        let tx = conn.transaction().expect("tx");
        {
            let mut feed = tx.prepare("INSERT INTO rss_feed (rssurl, url, title) VALUES (?1, ?2, ?3)").unwrap();
            let mut item = tx
                .prepare(
                    "INSERT INTO rss_item (guid, title, author, url, feedurl, pubDate, content, unread, flags)
                     VALUES (?1, ?2, 'Author', ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .unwrap();
            for f in 0..FEEDS {
                let url = format!("http://127.0.0.1:9/feed/{f}.xml");
                feed.execute(rusqlite::params![url, format!("http://site{f}.example/"), format!("Feed {f}")]).unwrap();
                for i in 0..PER_FEED {
                    let n = f * PER_FEED + i;
                    item.execute(rusqlite::params![
                        format!("tag:site{f}.example,2025:{i}"),
                        format!("Entry {i} of feed {f}"),
                        format!("http://site{f}.example/{i}"),
                        url,
                        1_700_000_000 + n as i64 * 60,
                        format!("<p>The body of entry {i}, with a few words of text to store and index later.</p>"),
                        i64::from(n.is_multiple_of(10)),
                        if n.is_multiple_of(50) { "s" } else { "" },
                    ])
                    .unwrap();
                }
            }
        }
        tx.commit().expect("commit");
    }
    let urls: String = (0..FEEDS)
        .map(|f| format!("http://127.0.0.1:9/feed/{f}.xml \"Folder {}\" \"tag{}\"\n", f % 20, f % 7))
        .collect();
    let urls_file = dir.path().join("urls");
    std::fs::write(&urls_file, urls).expect("urls");
    let db = dir.path().join("tidings.db");
    let run = || {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tidings"));
        cmd.env("HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .arg("--db")
            .arg(&db)
            .args(["import", "newsboat", "--urls"])
            .arg(&urls_file)
            .arg("--cache")
            .arg(&cache);
        measure(&mut cmd)
    };
    let first = run();
    assert!(first.output.status.success(), "{}", String::from_utf8_lossy(&first.output.stderr));
    let said = String::from_utf8_lossy(&first.output.stdout).into_owned();
    assert!(said.contains(&format!("{} added", FEEDS * PER_FEED)), "{said}");
    let second = run();
    let again = String::from_utf8_lossy(&second.output.stdout).into_owned();
    assert!(
        again.contains(&format!("0 added (0 read, 0 starred from flags), {} already stored", FEEDS * PER_FEED)),
        "{again}"
    );
    println!(
        "newsboat import: {FEEDS} feeds, {} entries: {:.2} s, peak {} MB; again (changes nothing): {:.2} s",
        FEEDS * PER_FEED,
        first.wall.as_secs_f64(),
        first.peak_rss / (1024 * 1024),
        second.wall.as_secs_f64()
    );
}
