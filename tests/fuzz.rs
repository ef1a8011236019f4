//! Deterministic mutation fuzzing of the pure core: decoding, ingesting (decode + parse with repair), finding
//! feed links in pages (discovery), OPML, rendering, article extraction, and the `inspect` report. The seeds are
//! the documents in `tests/fixtures`, a few written here for the formats that folder lacks, and small versions
//! of the hostile documents of `support::hostile`; mutations come from a fixed-seed generator, so every run tries
//! the same inputs. Every input must not panic, must finish within a time bound, and must give output of a size
//! bounded by its own. The hostile documents also run whole (up to a megabyte) through rendering and extraction,
//! against the same bounds; their times and memory at full size are the `hostile` benchmark's.
//!
//! `cargo test --test fuzz` runs a bounded number of mutations per target (well under a minute in debug on two
//! cores). Longer runs: `TIDINGS_FUZZ_ITERATIONS=100000 cargo test --release --test fuzz`; another sequence:
//! `TIDINGS_FUZZ_SEED=N`. An input that fails is written to `target/fuzz-failures/`; keep it in
//! `tests/fixtures/fuzz/`, where every target runs it on every run from then on. A kept input whose fix is
//! owed by another part of the code is listed in [`PENDING`]: it still runs, its failure is printed rather
//! than fatal, and the run says when it passes so the entry can go.

// What a run saw or skipped goes to standard error, beside the test harness's own lines.
#![allow(clippy::print_stderr)]

mod support;

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, Instant};
use tidings::{decode, extract, feedlinks, ingest, inspect, opml, render, sanitize};

/// Mutations per target in a plain `cargo test`.
const DEFAULT_ITERATIONS: usize = 1_000;
/// The largest input a mutation may grow to.
const MAX_INPUT: usize = 64 * 1024;
/// The longest one input may take in one target (generous: debug builds on a shared machine).
const TIME_LIMIT: Duration = Duration::from_secs(10);

/// Kept failures that the parser (`parse/`) still fails: the file, the targets it fails, and what goes wrong.
/// Printed, not fatal, and not mutated further. Remove an entry once the run says it passes.
const PENDING: &[(&str, &[&str], &str)] = &[];
/// Each seed runs as it is in this many variants (Content-Types, widths), every mutation in one.
const SEED_VARIANTS: usize = 10;
/// The variants of the targets that read HTML: three widths, or three Content-Types.
const HTML_VARIANTS: usize = 3;
/// The size of the hostile documents among the seeds (the ones larger, like the 100,000 nested `<div>`s, are
/// left to [`hostile_documents_render_and_extract_within_bounds_whole`]).
const HOSTILE_SEED_BYTES: usize = 8 * 1024;
/// The size of the hostile documents run whole (the 100,000 nested `<div>`s are always 1.1 MB): at a megabyte,
/// each is the `hostile` benchmark's, timed in a release build.
const HOSTILE_BYTES: usize = 64 * 1024;

/// Content-Types the decoding targets are served with, in turn.
const CONTENT_TYPES: &[Option<&str>] = &[
    None,
    Some("application/rss+xml"),
    Some("text/xml"),
    Some("text/html"),
    Some("application/octet-stream"),
    Some("application/feed+json"),
    Some("text/xml; charset=utf-16"),
    Some("application/xml; charset=iso-2022-jp"),
    Some("text/html; charset=windows-1251"),
    Some("application/atom+xml; charset=\"x-unknown\""),
];

/// Byte strings that mean something to one of the targets, spliced into inputs.
const TOKENS: &[&[u8]] = &[
    b"<![CDATA[",
    b"]]>",
    b"&#x1F600;",
    b"&#0;",
    b"&#xD800;",
    b"&amp;",
    b"&nbsp;",
    b"&",
    b"<?xml version=\"1.0\" encoding=\"utf-16\"?>",
    b"<?xml version=\"1.0\" encoding=\"shift_jis\" ",
    b"\xEF\xBB\xBF",
    b"\xFF\xFE",
    b"\xFE\xFF\x00<",
    b"<!DOCTYPE rss [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]>",
    b"&b;",
    b"<item><title>",
    b"</title></item>",
    b"<entry><title type=\"html\">",
    b"</channel>",
    b"<rss version=\"2.0\">",
    b"<feed xmlns=\"http://www.w3.org/2005/Atom\">",
    b"\x1b$B",
    b"\x1b(B",
    b"\x1b]52;c;",
    b"\xE2\x80\xAE",
    b"<a href=\"javascript:alert(1)\">",
    b"<link rel=\"alternate\" type=\"application/rss+xml\" href=\"",
    b"<base href=\"//evil.example/\">",
    b"<outline text=\"x\" xmlUrl=\"",
    b"<outline text=\"folder\">",
    b"</outline>",
    b"<table><tr><td>",
    b"<pre>\t\t",
    b"<img src=\"data:,",
    b"{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[",
    b"\"title\":",
    b"\xF0\x9F\x98",
    b"\xC0\xAF",
    b"\x00",
];

/// A small, fixed-seed generator (xorshift64*): the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// One to four mutations of `input`, some splicing in pieces of `other`.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..=rng.below(4) {
        let len = data.len();
        let at = rng.below(len + 1);
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = [0x00, 0x1B, 0x80, 0x9B, 0xFF, 0xEF, 0xBF, b'<', b'>', b'&', b'"', b';', b']'][rng.below(13)];
            }
            2 => {
                let end = (at + 1 + rng.below(64)).min(len);
                data.drain(at..end);
            }
            3 => {
                let end = (at + 1 + rng.below(256)).min(len);
                let copy = data[at..end].to_vec();
                let to = rng.below(len + 1);
                data.splice(to..to, copy);
            }
            4 | 5 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                data.splice(at..at, token.iter().copied());
            }
            6 => data.truncate(at),
            7 if !other.is_empty() => {
                let from = rng.below(other.len());
                let piece = &other[from..(from + 1 + rng.below(512)).min(other.len())];
                let end = (at + rng.below(64)).min(len);
                data.splice(at..end, piece.iter().copied());
            }
            _ => {
                // Deep nesting at a bounded size.
                let token: &[u8] = [&b"<div>"[..], b"<outline>", b"<item>", b"<b><i>", b"["][rng.below(5)];
                let repeat: Vec<u8> = token.iter().copied().cycle().take(token.len() * (1 + rng.below(2000))).collect();
                data.splice(at..at, repeat);
            }
        }
        data.truncate(MAX_INPUT);
    }
    data
}

/// The seeds of the targets that read HTML: [`seeds`], and the hostile documents, small.
fn html_seeds() -> Vec<(String, Vec<u8>)> {
    let mut seeds = seeds();
    for case in support::hostile::cases() {
        seeds.push((format!("hostile {}", case.name), case.html(HOSTILE_SEED_BYTES).into_bytes()));
    }
    seeds.retain(|(_, bytes)| bytes.len() <= MAX_INPUT);
    seeds
}

/// The seed documents: every fixture (small enough to mutate), and the kept failures.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut seeds = files_in(&root);
    seeds.extend(files_in(&root.join("fuzz")));
    seeds.push(("generated opml".into(), opml_seed().into_bytes()));
    seeds.push(("generated page".into(), page_seed().into_bytes()));
    seeds.push(("generated atom".into(), support::atom("Atom ☃", &[("a", "Ä & b", "<p>x</p>")]).into_bytes()));
    seeds.retain(|(_, bytes)| bytes.len() <= MAX_INPUT);
    seeds.sort();
    seeds
}

fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    read.flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), std::fs::read(&p).ok()?)))
        .collect()
}

fn opml_seed() -> String {
    r#"<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0"><head><title>Subscriptions &amp; more</title></head><body>
  <outline text="Top" xmlUrl="http://a.example/feed" htmlUrl="http://a.example/"/>
  <outline text="Tech"><outline text="Rust" title="Rust">
    <outline title="Only title" xmlUrl="https://b.example/rss?x=1&amp;y=2"/></outline>
    <outline xmlUrl="feed://c.example/atom.xml" category="/News/World,/Other"/></outline>
  <outline text="Site only" htmlUrl="http://d.example/"/>
  <outline text="Tagged" xmlUrl="http://f.example/f" category="/Long Reads,/a%2Cb,/x / y,/50%25,Caf&#233;"/>
  <outline text="Bad" xmlUrl="ftp://e.example/x"/>
</body></opml>"#
        .to_string()
}

fn page_seed() -> String {
    r#"<!DOCTYPE html><html><head><meta charset="windows-1251"><base href="/blog/">
<title>Home</title>
<link rel="alternate" type="application/rss+xml" title="Posts" href="feed.xml">
<link rel="alternate" type="application/atom+xml" href="https://example.com/atom.xml">
<link rel="alternate feed" type="application/feed+json" title="JSON" href="/feed.json">
</head><body><a href="/rss">RSS</a> <a href="comments/feed/">Comments feed</a></body></html>"#
        .to_string()
}

/// What one target does with one input: `Err` says which bound it broke.
type Target = fn(&[u8], usize) -> Result<(), String>;

/// Decoding alone: the text is no larger than the bytes can make it.
fn decode_target(bytes: &[u8], variant: usize) -> Result<(), String> {
    let content_type = CONTENT_TYPES[variant % CONTENT_TYPES.len()];
    if let Ok(decoded) = decode::decode(bytes, content_type, None) {
        bounded("decoded text", decoded.text.len(), 4 * bytes.len() + 1024)?;
        bounded("decision", serde_json::to_string(&decoded.decision).map_or(0, |s| s.len()), 16 * 1024)?;
    }
    Ok(())
}

/// Decode + parse with repair: what comes out is bounded by what came in (no entity expansion).
fn ingest_target(bytes: &[u8], variant: usize) -> Result<(), String> {
    let content_type = CONTENT_TYPES[variant % CONTENT_TYPES.len()];
    if let Ok(ingested) = ingest::ingest(bytes, content_type, Some("http://example.com/feed"), None) {
        let feed = &ingested.feed;
        let mut size =
            [&feed.title, &feed.link, &feed.description].iter().map(|s| s.as_ref().map_or(0, String::len)).sum();
        for e in &feed.entries {
            size += e.key.len();
            for s in [&e.title, &e.link, &e.content_html, &e.summary_html, &e.comments, &e.thumbnail] {
                size += s.as_ref().map_or(0, String::len);
            }
            size += e.authors.iter().map(String::len).sum::<usize>();
            size += e.categories.iter().map(String::len).sum::<usize>();
        }
        bounded("entries", feed.entries.len(), bytes.len() / 4 + 1)?;
        bounded("parsed text", size, 8 * bytes.len() + 64 * 1024)?;
        for title in feed.entries.iter().filter_map(|e| e.title.as_deref()).chain(feed.title.as_deref()) {
            if let Some(c) = title.chars().find(|c| sanitize::is_forbidden(*c) || *c == '\n') {
                return Err(format!("a title holds U+{:04X}: {title:?}", u32::from(c)));
            }
        }
    }
    Ok(())
}

/// Feed links of a page: a bounded number of bounded addresses.
fn feedlinks_target(bytes: &[u8], variant: usize) -> Result<(), String> {
    let page = feedlinks::decode_page(bytes, CONTENT_TYPES[variant % CONTENT_TYPES.len()], Some("ru"));
    bounded("decoded page", page.len(), 4 * bytes.len() + 1024)?;
    let header = (variant % 2 == 1).then(|| String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned());
    let leads = feedlinks::leads(&page, "http://example.com/blog/post", header.as_deref());
    bounded("leads", leads.len(), bytes.len() / 8 + 64)?;
    for lead in &leads {
        bounded("lead address", lead.url.len(), 3 * bytes.len() + 256)?;
    }
    let _ = feedlinks::meta_charset(bytes);
    Ok(())
}

/// OPML: a bounded document, and what it offers survives writing and reading back.
fn opml_target(bytes: &[u8], _variant: usize) -> Result<(), String> {
    let text = String::from_utf8_lossy(bytes);
    let Ok(doc) = opml::parse(&text) else { return Ok(()) };
    bounded("outlines", doc.feeds.len() + doc.sites.len() + doc.rejected.len(), bytes.len() / 8 + 1)?;
    let feeds = doc
        .feeds
        .iter()
        .map(|f| opml::ExportFeed {
            url: f.url.clone(),
            title: f.name.clone().unwrap_or_else(|| f.url.clone()),
            site_url: f.site_url.clone(),
            folder: f.folder.clone(),
            tags: doc.tags.iter().find(|(url, _)| *url == f.url).map(|(_, t)| t.clone()).unwrap_or_default(),
        })
        .collect();
    let export = opml::ExportDoc { feeds, folders: doc.folders.clone() };
    let written = opml::write("fuzz", &export, chrono::DateTime::from_timestamp(0, 0).unwrap_or_default());
    let back = opml::parse(&written).map_err(|e| format!("written OPML does not read back: {e}"))?;
    let urls = |d: &opml::OpmlDocument| {
        let mut v: Vec<(String, Vec<String>)> = d.feeds.iter().map(|f| (f.url.clone(), f.folder.clone())).collect();
        v.sort();
        v
    };
    let folders = |d: &opml::OpmlDocument| {
        let mut v = d.folders.clone();
        v.sort();
        v
    };
    if folders(&back) != folders(&doc) {
        return Err(format!("export then import changed the folders: {:?} → {:?}", folders(&doc), folders(&back)));
    }
    if urls(&back) != urls(&doc) {
        return Err(format!("export then import changed the subscriptions: {:?} → {:?}", urls(&doc), urls(&back)));
    }
    let tags = |d: &opml::OpmlDocument| {
        let mut v = d.tags.clone();
        v.sort();
        v
    };
    if tags(&back) != tags(&doc) {
        return Err(format!("export then import changed the tags: {:?} → {:?}", tags(&doc), tags(&back)));
    }
    Ok(())
}

/// Rendering: a bounded number of lines, none wider than asked, no control character.
fn render_target(bytes: &[u8], variant: usize) -> Result<(), String> {
    let html = String::from_utf8_lossy(bytes);
    let width = [1, 24, 80][variant % 3];
    let rendered = render::render_article(&html, width, Some("http://example.com/post"));
    bounded("lines", rendered.lines.len(), 4 * bytes.len() + 64)?;
    bounded("links", rendered.links.len(), bytes.len() / 4 + 1)?;
    for line in &rendered.lines {
        let text = render::line_text(line);
        if let Some(c) = text.chars().find(|c| sanitize::is_forbidden(*c)) {
            return Err(format!("a line holds U+{:04X}: {text:?}", u32::from(c)));
        }
    }
    Ok(())
}

/// Article extraction of a page: a bounded article, with its title free of control characters.
fn extract_target(bytes: &[u8], variant: usize) -> Result<(), String> {
    let content_type = [Some("text/html"), None, Some("text/html; charset=windows-1251")][variant % 3];
    if let Ok(article) = extract::extract_page(bytes, content_type, "http://example.com/post") {
        bounded("article", article.html.len(), 8 * bytes.len() + 64 * 1024)?;
        for text in [&article.title, &article.byline, &article.excerpt].into_iter().flatten() {
            if let Some(c) = text.chars().find(|c| sanitize::is_forbidden(*c)) {
                return Err(format!("extracted metadata holds U+{:04X}: {text:?}", u32::from(c)));
            }
        }
    }
    Ok(())
}

/// The inspect report, as text and as JSON: bounded, and the text free of control characters.
fn inspect_target(bytes: &[u8], variant: usize) -> Result<(), String> {
    let content_type = CONTENT_TYPES[variant % CONTENT_TYPES.len()];
    let report = inspect::Report::build("fuzz.xml", None, bytes, content_type);
    let text = report.to_text();
    bounded("inspect text", text.len(), 8 * bytes.len() + 64 * 1024)?;
    if let Some(c) = text.chars().find(|c| sanitize::is_forbidden(*c) && *c != '\n') {
        return Err(format!("the report holds U+{:04X}", u32::from(c)));
    }
    let json = serde_json::to_string(&report.to_json()).map_err(|e| e.to_string())?;
    bounded("inspect JSON", json.len(), 16 * bytes.len() + 64 * 1024)?;
    Ok(())
}

thread_local! {
    /// Where the panics of this thread happened while it ran a target on an input, caught or not (a panic the
    /// code under test catches itself, as the parser does around feed-rs, still loses the feed). `None` when
    /// the thread is not running a target: its panics are printed as usual.
    static PANICS: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Records the panics of targets in [`PANICS`] instead of printing them.
fn record_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let print = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map_or_else(|| "somewhere".to_string(), |l| format!("{}:{}", l.file(), l.line()));
            let recorded = PANICS.try_with(|p| p.borrow_mut().as_mut().map(|list| list.push(at))).ok().flatten();
            if recorded.is_none() {
                print(info);
            }
        }));
    });
}

fn bounded(what: &str, got: usize, limit: usize) -> Result<(), String> {
    if got > limit { Err(format!("{what}: {got} exceeds the bound {limit}")) } else { Ok(()) }
}

fn iterations() -> usize {
    std::env::var("TIDINGS_FUZZ_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_ITERATIONS)
}

fn base_seed() -> u64 {
    std::env::var("TIDINGS_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x7469_6469_6e67_7321)
}

/// Runs `target` on every seed as it is, then on `iterations()` mutations; fails listing every input that
/// panicked, took too long or broke a bound (each one written to `target/fuzz-failures/`).
fn fuzz(name: &str, target: Target) {
    fuzz_from(name, target, seeds(), SEED_VARIANTS);
}

/// [`fuzz`] from the seeds given, each run as it is in `variants` variants.
fn fuzz_from(name: &str, target: Target, seeds: Vec<(String, Vec<u8>)>, variants: usize) {
    record_panics();
    assert!(seeds.len() >= 10, "the fixtures are the seeds: {}", seeds.len());
    let mut rng = Rng::new(base_seed() ^ name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b.into())));
    let mut failures = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    let pending = |seed: &str| {
        PENDING.iter().find(|(file, targets, _)| *file == seed && targets.contains(&name)).map(|(_, _, why)| *why)
    };
    let parents: Vec<&(String, Vec<u8>)> = seeds.iter().filter(|(seed, _)| pending(seed).is_none()).collect();
    let as_they_are = seeds
        .iter()
        .flat_map(|(seed, bytes)| (0..variants).map(move |v| (seed.clone(), v, format!("seed {seed}"), bytes.clone())));
    let mutations = (0..iterations()).map(|i| {
        let (seed, bytes) = parents[rng.below(parents.len())];
        let other = &parents[rng.below(parents.len())].1;
        (String::new(), i, format!("mutation {i} of {seed}"), mutate(&mut rng, bytes, other))
    });
    let mut pending_failed: Vec<String> = Vec::new();
    for (seed, variant, label, input) in as_they_are.chain(mutations) {
        PANICS.with(|p| *p.borrow_mut() = Some(Vec::new()));
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| target(&input, variant)));
        let took = started.elapsed();
        let panicked_at = PANICS.with(|p| p.borrow_mut().take().unwrap_or_default().join(", "));
        if took > slowest.0 {
            slowest = (took, label.clone());
        }
        let problem = match outcome {
            Err(_) => Some(format!("panicked at {panicked_at}")),
            Ok(_) if !panicked_at.is_empty() => Some(format!("panicked (caught) at {panicked_at}")),
            Ok(Err(bound)) => Some(bound),
            Ok(Ok(())) if took > TIME_LIMIT => Some(format!("took {took:?}")),
            Ok(Ok(())) => None,
        };
        match (problem, pending(&seed)) {
            (Some(problem), Some(why)) => {
                if !pending_failed.contains(&seed) {
                    eprintln!("fuzz {name}: pending {seed} ({why}): {problem}");
                    pending_failed.push(seed);
                }
            }
            (Some(problem), None) => {
                let kept = keep_failure(name, &input);
                failures.push(format!("{label} (variant {variant}): {problem}; input kept in {}", kept.display()));
            }
            (None, _) => {}
        }
    }
    for (seed, _) in seeds.iter().filter(|(seed, _)| pending(seed).is_some() && !pending_failed.contains(seed)) {
        eprintln!("fuzz {name}: pending {seed} passes now; remove it from PENDING");
    }
    eprintln!("fuzz {name}: slowest input {:?} ({})", slowest.0, slowest.1);
    assert!(failures.is_empty(), "fuzz {name}: {} failing input(s):\n{}", failures.len(), failures.join("\n"));
}

fn keep_failure(target: &str, input: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3));
    let path = dir.join(format!("{target}-{hash:016x}.bin"));
    let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, input));
    path
}

#[test]
fn the_mutator_is_deterministic_and_changes_its_input() {
    let seed = b"<rss version=\"2.0\"><channel><title>t</title></channel></rss>";
    let run = || {
        let mut rng = Rng::new(42);
        (0..50).map(|_| mutate(&mut rng, seed, b"<item/>")).collect::<Vec<_>>()
    };
    let first = run();
    assert_eq!(first, run(), "the same seed gives the same inputs");
    assert!(first.iter().filter(|m| m.as_slice() != seed).count() >= 45, "mutations change the input");
    assert!(first.iter().all(|m| m.len() <= MAX_INPUT));
}

#[test]
fn decoding_survives_mutated_feeds() {
    fuzz("decode", decode_target);
}

#[test]
fn ingesting_survives_mutated_feeds() {
    fuzz("ingest", ingest_target);
}

#[test]
fn finding_feed_links_survives_mutated_pages() {
    fuzz("feedlinks", feedlinks_target);
}

#[test]
fn opml_survives_mutated_documents_and_round_trips() {
    fuzz("opml", opml_target);
}

#[test]
fn rendering_survives_mutated_articles() {
    fuzz_from("render", render_target, html_seeds(), HTML_VARIANTS);
}

#[test]
fn extraction_survives_mutated_pages() {
    fuzz_from("extract", extract_target, html_seeds(), HTML_VARIANTS);
}

/// Every hostile document whole (the 100,000 nested `<div>`s among them), rendered at three widths and
/// extracted as a page: no panic, bounded output, and within the time limit.
#[test]
fn hostile_documents_render_and_extract_within_bounds_whole() {
    record_panics();
    let mut failures = Vec::new();
    for case in support::hostile::cases() {
        let html = case.html(HOSTILE_BYTES);
        let page = support::hostile::page(&html);
        let runs: [(&str, Target, &[u8], usize); 4] = [
            ("render", render_target, html.as_bytes(), 0),
            ("render", render_target, html.as_bytes(), 1),
            ("render", render_target, html.as_bytes(), 2),
            ("extract", extract_target, page.as_bytes(), 0),
        ];
        for (what, target, input, variant) in runs {
            PANICS.with(|p| *p.borrow_mut() = Some(Vec::new()));
            let started = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| target(input, variant)));
            let took = started.elapsed();
            let panicked_at = PANICS.with(|p| p.borrow_mut().take().unwrap_or_default().join(", "));
            let problem = match outcome {
                Err(_) => Some(format!("panicked at {panicked_at}")),
                Ok(_) if !panicked_at.is_empty() => Some(format!("panicked (caught) at {panicked_at}")),
                Ok(Err(bound)) => Some(bound),
                Ok(Ok(())) if took > TIME_LIMIT => Some(format!("took {took:?}")),
                Ok(Ok(())) => None,
            };
            if let Some(problem) = problem {
                failures.push(format!("{} ({what}, variant {variant}): {problem}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{} hostile document(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn inspect_survives_mutated_feeds() {
    fuzz("inspect", inspect_target);
}
