//! The refresh split into its phases — fetch, decode, parse, store — each measured on its own, in a process of
//! its own (the benchmark binary run as `__phases`), over the same farm the whole refresh ran on.
//!
//! How, and why this way: the refresh overlaps its phases (hundreds of fetches in flight while a few feeds are
//! parsed and one thread stores), so its own wall time cannot be cut into them. Here they run one after the
//! other, through the same library functions the refresher calls:
//!
//! - **fetch**: tidings's [`Fetcher`] (the refresher's client, with its settings) gets every feed, at most
//!   `concurrency` at once and `per_host` per host, and keeps the bodies. Wall time, and the processor time of
//!   the whole process (the runtime's threads included).
//! - **decode**, **parse**, **store**: then, one feed at a time on one thread, as one of the refresher's
//!   reading tasks and its writer do it: `decode::decode`, `parse::parse`, and `store::write::record_fetch`
//!   into a database the same build imported the feeds into, 16 feeds to a transaction (as the
//!   refresher's writer groups the feeds that arrive together). Processor time of this
//!   thread, summed per phase.
//!
//! Memory: the heap is counted by a global allocator that adds up what is allocated and freed (exact, and
//! independent of how malloc returns memory to the system). For fetch, the most held at once; for the other
//! phases, the most one step (one feed; for store, one batch) held at once beyond what was held when the step
//! began — what a refresh pays per feed in flight. SQLite allocates outside Rust's allocator, so the store's
//! figure leaves its page cache out. The process's peak RSS is printed beside them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The marker of the lines this mode prints for the benchmark that runs it: `__phase NAME key=value …`.
pub(crate) const LINE: &str = "__phase";

/// The global allocator of the benchmark: the system's, counting live and peak bytes while [`COUNTING`] is on.
pub(crate) struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}

fn grew(bytes: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
}

fn shrank(bytes: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        // Blocks allocated before counting began may be freed after: the count never goes below zero.
        let _ = LIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |live| Some(live.saturating_sub(bytes)));
    }
}

/// Starts a window of the heap: the bytes live now, with the peak brought down to them.
fn heap_window() -> usize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

fn heap_peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Processor time (user + system) of this thread.
pub(crate) fn thread_cpu_time() -> Duration {
    cpu_time(false)
}

/// Processor time (user + system) of this thread, or of the whole process.
fn cpu_time(of_process: bool) -> Duration {
    let clock = if of_process { libc::CLOCK_PROCESS_CPUTIME_ID } else { libc::CLOCK_THREAD_CPUTIME_ID };
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid clock id and a pointer to a timespec we own.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// One phase's figures, summed over the feeds.
#[derive(Default)]
struct Phase {
    wall: Duration,
    cpu: Duration,
    /// The most the heap held beyond the start of one step (for fetch: beyond the start of the phase).
    heap: usize,
    /// Bytes in (bodies for decode, text for parse) or out (bodies for fetch, entries for store).
    bytes: usize,
    count: usize,
}

impl Phase {
    /// Runs one step of the phase on this thread and adds its figures.
    fn step<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let start = heap_window();
        let (wall, cpu) = (Instant::now(), cpu_time(false));
        let value = f();
        self.cpu += cpu_time(false) - cpu;
        self.wall += wall.elapsed();
        self.heap = self.heap.max(heap_peak().saturating_sub(start));
        self.count += 1;
        value
    }

    fn print(&self, name: &str) {
        println!(
            "{LINE} {name} wall_ns={} cpu_ns={} heap={} bytes={} count={}",
            self.wall.as_nanos(),
            self.cpu.as_nanos(),
            self.heap,
            self.bytes,
            self.count
        );
    }
}

fn arg<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}

/// The `__phases` mode: `--urls FILE` (one feed address a line), `--db FILE` (a database this build imported
/// those feeds into; it is written to), `--concurrency N`, `--per-host N`. Prints one [`LINE`] per phase.
pub(crate) fn run(args: &[String]) -> std::process::ExitCode {
    use tidings::fetch::{FetchOutcome, Fetcher, Validators};
    let (Some(urls), Some(db)) = (arg(args, "--urls"), arg(args, "--db")) else {
        eprintln!("__phases needs --urls FILE and --db FILE");
        return std::process::ExitCode::from(2);
    };
    let number = |name: &str, default: usize| arg(args, name).and_then(|v| v.parse().ok()).unwrap_or(default);
    let (concurrency, per_host) = (number("--concurrency", 256).max(1), number("--per-host", 6).max(1));
    let urls: Vec<String> =
        std::fs::read_to_string(urls).expect("read the list of feeds").lines().map(str::to_string).collect();
    COUNTING.store(true, Ordering::Relaxed);

    // Fetch: every feed, as the refresher's client fetches them, bodies kept.
    let config = tidings::config::Config::default();
    let fetcher = Fetcher::new(config.fetch_config()).expect("an HTTP client");
    // On one thread, as `tidings refresh` runs its requests.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let mut fetch = Phase::default();
    let start = heap_window();
    let (wall, cpu) = (Instant::now(), cpu_time(true));
    let fetched = runtime.block_on(async {
        use futures::StreamExt;
        let hosts: std::collections::HashMap<String, Arc<tokio::sync::Semaphore>> = urls
            .iter()
            .filter_map(|u| url::Url::parse(u).ok()?.host_str().map(str::to_string))
            .map(|h| (h, Arc::new(tokio::sync::Semaphore::new(per_host))))
            .collect();
        let hosts = &hosts;
        let fetcher = &fetcher;
        futures::stream::iter(&urls)
            .map(|u| async move {
                let host = url::Url::parse(u).ok().and_then(|p| p.host_str().and_then(|h| hosts.get(h)).cloned());
                let _turn = match &host {
                    Some(limit) => Some(limit.acquire().await.expect("never closed")),
                    None => None,
                };
                match fetcher.get(u, &Validators::default()).await {
                    Ok(FetchOutcome::Fetched(f)) => Some(f),
                    _ => None,
                }
            })
            .buffer_unordered(concurrency)
            .filter_map(|f| async move { f })
            .collect::<Vec<_>>()
            .await
    });
    fetch.wall = wall.elapsed();
    fetch.cpu = cpu_time(true) - cpu;
    fetch.heap = heap_peak().saturating_sub(start);
    fetch.bytes = fetched.iter().map(|f| f.body.len()).sum();
    fetch.count = fetched.len();
    drop(runtime);
    fetch.print("fetch");

    // Decode, parse, store: one feed at a time, as a reading task and the writer take them.
    let mut conn = tidings::store::open_write(std::path::Path::new(db)).expect("open the database");
    let ids: std::collections::HashMap<String, tidings::model::FeedId> =
        tidings::store::feeds::refresh_targets(&conn, None)
            .expect("the feeds")
            .into_iter()
            .map(|t| (t.url, t.id))
            .collect();
    let (mut decode, mut parse, mut store) = (Phase::default(), Phase::default(), Phase::default());
    let now = chrono::Utc::now().timestamp();
    let mut batch = Vec::with_capacity(BATCH);
    let mut fetched = fetched.into_iter().peekable();
    while let Some(f) = fetched.next() {
        if let Some(id) = ids.get(&f.final_url).copied() {
            decode.bytes += f.body.len();
            let decoded = decode.step(|| tidings::decode::decode(&f.body, f.content_type.as_deref(), None));
            if let Ok(decoded) = decoded {
                parse.bytes += decoded.text.len();
                if let Ok(feed) = parse.step(|| tidings::parse::parse(&decoded.text, Some(&f.final_url))) {
                    store.bytes += feed.entries.len();
                    let record = tidings::store::fetches::FetchRecord::Fetched {
                        status: f.status,
                        etag: f.etag,
                        last_modified: f.last_modified,
                        decision: serde_json::to_string(&decoded.decision).ok(),
                        feed: Box::new(feed),
                        moved_to: None,
                        min_interval_secs: None,
                        ignored: vec![],
                        cut_from: None,
                        digest: None,
                    };
                    batch.push((id, record));
                }
            }
        }
        if batch.len() == BATCH || (fetched.peek().is_none() && !batch.is_empty()) {
            store.step(|| write_batch(&mut conn, std::mem::take(&mut batch), now));
        }
    }
    decode.print("decode");
    parse.print("parse");
    store.print("store");
    std::process::ExitCode::SUCCESS
}

/// Feeds stored in one transaction, as the refresher's writer groups them when they arrive together.
const BATCH: usize = 16;

/// Stores a batch of feeds as the refresher's writer does when every feed can be stored: one transaction.
fn write_batch(
    conn: &mut rusqlite::Connection,
    batch: Vec<(tidings::model::FeedId, tidings::store::fetches::FetchRecord)>,
    now: i64,
) {
    let tx = conn.transaction().expect("a transaction");
    for (id, record) in batch {
        tidings::store::fetches::record_fetch(&tx, id, &record, now).expect("the store takes the feed");
    }
    tx.commit().expect("the transaction commits");
}

/// One phase as a `__phases` process printed it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Figures {
    pub(crate) name: String,
    pub(crate) wall: Duration,
    pub(crate) cpu: Duration,
    pub(crate) heap: u64,
    pub(crate) bytes: u64,
    pub(crate) count: u64,
}

/// The phases in the output of a `__phases` process (none when the binary that ran does not know the mode).
pub(crate) fn read(output: &str) -> Vec<Figures> {
    output
        .lines()
        .filter_map(|line| {
            let mut words = line.strip_prefix(LINE)?.split_whitespace();
            let mut figures = Figures { name: words.next()?.to_string(), ..Figures::default() };
            for word in words {
                let (key, value) = word.split_once('=')?;
                let value: u64 = value.parse().ok()?;
                match key {
                    "wall_ns" => figures.wall = Duration::from_nanos(value),
                    "cpu_ns" => figures.cpu = Duration::from_nanos(value),
                    "heap" => figures.heap = value,
                    "bytes" => figures.bytes = value,
                    "count" => figures.count = value,
                    _ => {}
                }
            }
            Some(figures)
        })
        .collect()
}

/// The line a phase is printed as, beside the whole refresh's.
pub(crate) fn describe(f: &Figures) -> String {
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    let size =
        |b: u64| if b < 1024 * 1024 { format!("{:>6.1} KB", b as f64 / 1024.0) } else { format!("{:>6.2} MB", mb(b)) };
    let (what, heap) = match f.name.as_str() {
        "fetch" => (format!("{} feeds, {:.1} MB of bodies", f.count, mb(f.bytes)), "heap held at most"),
        "decode" => (format!("{:.1} MB in", mb(f.bytes)), "heap per feed at most"),
        "parse" => (format!("{:.1} MB of text in", mb(f.bytes)), "heap per feed at most"),
        "store" => (format!("{} entries, {} transactions", f.bytes, f.count), "heap per batch at most"),
        _ => (String::new(), "heap"),
    };
    format!("{:>8.3} s   cpu {:>6.3} s   {heap} {}   ({what})", f.wall.as_secs_f64(), f.cpu.as_secs_f64(), size(f.heap))
}
