//! The decoding conformance driver: runs every case of the shared corpus (`../shared/corpus/cases.jsonl`, or
//! `$TIDINGS_CORPUS`) through tidings's decode + parse, prints pass counts per profile, and fails when a profile
//! drops below its floor. The `generated-http` cases are served from a loopback server with their Content-Types
//! and fetched through tidings's real fetcher. Without the corpus it says so and passes.
//!
//! `cargo test --release --test conformance -- --verbose` lists every failing case; `--profile NAME` runs one.

// A benchmark or a harness of its own: what it measured goes to standard output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::server::{Reply, Server};
use tidings::decode;
use unicode_normalization::UnicodeNormalization;

/// The floors: a profile passing fewer cases than this fails the run. They are what tidings reaches today; raise
/// them when it does better.
const FLOORS: &[(&str, usize)] = &[
    ("generated-http", 194),
    ("feedparser", 129),
    ("real-world", 548),
    ("real-world-undeclared", 296),
    ("rome-strict", 61),
    ("rome-lenient", 17),
    ("xml-spec", 42),
    ("xml-only", 42),
];

/// Share of real-world entries carrying a date field that must get a date, in percent.
const DATE_FLOOR: f64 = 99.8;

/// Cases where tidings reads the document differently on purpose, and why. They are reported, not hidden.
const DELIBERATE: &[(&str, &str)] = &[
    ("rome:rome-044", "RFC 7303: a BOM beats charset=UTF-16BE (ROME, after RFC 3023, calls it an error)"),
    ("rome:rome-045", "RFC 7303: a BOM beats charset=UTF-16BE (ROME, after RFC 3023, calls it an error)"),
    ("rome:rome-046", "RFC 7303: a BOM beats charset=UTF-16BE (ROME, after RFC 3023, calls it an error)"),
    ("rome:rome-063", "RFC 7303: a BOM beats charset=UTF-16BE (ROME, after RFC 3023, calls it an error)"),
    ("rome:rome-064", "RFC 7303: a BOM beats charset=UTF-16BE (ROME, after RFC 3023, calls it an error)"),
    ("rome:rome-065", "RFC 7303: a BOM beats charset=UTF-16BE (ROME, after RFC 3023, calls it an error)"),
    (
        "fv:invalid_UTF-16BE_BOM_declaration.xml",
        "ROME's raw rule 1.7 accepts a UTF-16BE BOM with a UTF-16BE declaration",
    ),
    (
        "fp:generated/test_doctype_replacement.xml",
        "an internal DTD's entities expand one level, never into each other (entity bombs); feedparser drops the DTD",
    ),
    (
        "chardet:SHIFT_JIS/ooganemochi.com.xml",
        "WHATWG's Shift_JIS reads 0x8160 as U+FF5E (as browsers do); Python's as U+301C",
    ),
    (
        "undeclared:SHIFT_JIS/ooganemochi.com.xml",
        "WHATWG's Shift_JIS reads 0x8160 as U+FF5E (as browsers do); Python's as U+301C",
    ),
];

#[derive(serde::Deserialize)]
struct Case {
    id: String,
    file: String,
    content_type: Option<String>,
    profile: String,
    expect: serde_json::Map<String, serde_json::Value>,
}

impl Case {
    fn expect(&self, key: &str) -> Option<&str> {
        self.expect.get(key).and_then(|v| v.as_str())
    }

    /// The title to compare: the first entry's, else the feed's.
    fn expected_title(&self) -> Option<(&'static str, &str)> {
        self.expect("entry0_title")
            .map(|t| ("entry0_title", t))
            .or_else(|| self.expect("feed_title").map(|t| ("feed_title", t)))
    }
}

/// NFC and whitespace folding, as the corpus README asks.
fn norm(s: &str) -> String {
    s.nfc().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An encoding name from the corpus, as a charset (names outside WHATWG end in a remark in parentheses).
fn expected_charset(name: &str) -> Option<decode::charset::Charset> {
    let name = name.split(" (").next().unwrap_or(name);
    let name = match name {
        "utf16be" | "utf16be-bom" => "UTF-16BE",
        "utf16le" | "utf16le-bom" => "UTF-16LE",
        "utf8-bom" => "UTF-8",
        other => other,
    };
    match decode::labels::resolve(name) {
        decode::labels::Label::Charset(c) => Some(c),
        _ => None,
    }
}

/// The text of the document body (after any BOM) in a charset.
fn text_in(bytes: &[u8], charset: decode::charset::Charset) -> String {
    let body = &bytes[decode::sniff::bom(bytes).map_or(0, |b| b.byte_len())..];
    charset.decode_lossy(body).0.into_owned()
}

/// The corpus names encodings as WHATWG does, and WHATWG calls every "UTF-16" UTF-16LE, losing the byte order
/// that the document's BOM or first bytes give. A UTF-16 expectation is met by either order, when that reading
/// of the document is XML.
fn utf16_either_order(got: decode::charset::Charset, want: decode::charset::Charset, bytes: &[u8]) -> bool {
    use decode::charset::Charset;
    let utf16 = |c: Charset| c == Charset::UTF_16BE || c == Charset::UTF_16LE;
    utf16(got) && utf16(want) && text_in(bytes, got).trim_start().starts_with('<')
}

struct Outcome {
    pass: bool,
    /// Cases that do not count toward the score (no expectation to compare).
    scored: bool,
    detail: String,
}

fn outcome(pass: bool, detail: impl Into<String>) -> Outcome {
    Outcome { pass, scored: true, detail: detail.into() }
}

fn unscored(detail: impl Into<String>) -> Outcome {
    Outcome { pass: true, scored: false, detail: detail.into() }
}

/// A feed case: decode + parse, then compare the title.
fn feed_case(case: &Case, bytes: &[u8], content_type: Option<&str>, url: Option<&str>) -> Outcome {
    let Some((which, want)) = case.expected_title() else {
        return unscored("no title to compare");
    };
    match tidings::ingest::ingest(bytes, content_type, url, None) {
        Ok(ingested) => {
            let got = match which {
                "entry0_title" => ingested.feed.entries.first().and_then(|e| e.title.clone()),
                _ => ingested.feed.title.clone(),
            }
            .unwrap_or_default();
            // Titles are plain text in tidings: an expectation that kept markup matches its plain reading.
            let pass = norm(&got) == norm(want) || norm(&got) == norm(&tidings::text::html_to_plain(want));
            outcome(pass, format!("{which}: got {got:?}, want {want:?}; {}", ingested.decision.summary()))
        }
        Err(e) => outcome(false, format!("error: {e}")),
    }
}

/// A strict case: the strict algorithm's outcome and, when it holds, the text its encoding gives.
fn strict_case(case: &Case, bytes: &[u8]) -> Outcome {
    let want_ok = case.expect("outcome") == Some("ok");
    let decision = match decode::decode(bytes, case.content_type.as_deref(), None) {
        Ok(d) => d.decision,
        Err(e) => return outcome(!want_ok, format!("decode error: {e}")),
    };
    let strict = &decision.strict;
    let got_ok = strict.encoding.is_some();
    if got_ok != want_ok {
        return outcome(
            false,
            format!(
                "strict {} ({}), want {}",
                if got_ok { "ok" } else { "error" },
                strict.rule,
                if want_ok { "ok" } else { "error" }
            ),
        );
    }
    let (Some(got), Some(want)) = (strict.encoding.as_deref(), case.expect("encoding")) else {
        return outcome(true, format!("strict {}: {}", if got_ok { "ok" } else { "error" }, strict.rule));
    };
    let (Some(got_c), Some(want_c)) = (expected_charset(got), expected_charset(want)) else {
        return outcome(false, format!("cannot compare {got} with {want}"));
    };
    let same = text_in(bytes, got_c) == text_in(bytes, want_c) || utf16_either_order(got_c, want_c, bytes);
    outcome(same, format!("strict {got} ({}), want {want}", strict.rule))
}

/// A lenient or encoding-only case: the text tidings decodes against the text of the expected encoding.
fn text_case(case: &Case, bytes: &[u8]) -> Outcome {
    let Some(want) = case.expect("encoding") else {
        return match decode::decode(bytes, case.content_type.as_deref(), None) {
            Ok(d) => unscored(format!("no expected encoding; decoded as {}", d.decision.encoding)),
            Err(e) => unscored(format!("no expected encoding; {e}")),
        };
    };
    let Some(want_c) = expected_charset(want) else {
        return outcome(false, format!("unknown expected encoding {want}"));
    };
    match decode::decode(bytes, case.content_type.as_deref(), None) {
        Ok(d) => {
            let body_text = d.text;
            let expected = decode::sniff::rewrite_declaration(&text_in(bytes, want_c)).0;
            let got_c = expected_charset(&d.decision.encoding);
            let same = body_text == expected || got_c.is_some_and(|g| utf16_either_order(g, want_c, bytes));
            outcome(same, format!("decoded as {}, want {want}", d.decision.summary()))
        }
        Err(e) => outcome(false, format!("error: {e}")),
    }
}

/// For each `<item>`/`<entry>` of an XML feed, whether it carries a date field with text.
fn items_with_dates(text: &str) -> Vec<bool> {
    use quick_xml::events::Event;
    const DATES: &[&str] = &["pubDate", "date", "published", "updated", "issued", "modified", "created"];
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = false;
    let mut items = Vec::new();
    let (mut depth, mut item_depth, mut in_date) = (0usize, None::<usize>, false);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                depth += 1;
                let local = e.local_name().as_ref().to_string();
                match item_depth {
                    None if local == "item" || local == "entry" => {
                        item_depth = Some(depth);
                        items.push(false);
                    }
                    Some(d) if depth == d + 1 && DATES.contains(&local.as_str()) => in_date = true,
                    _ => {}
                }
            }
            Ok(Event::Text(t)) if in_date && !t.clone().into_inner().trim().is_empty() => {
                if let Some(last) = items.last_mut() {
                    *last = true;
                }
            }
            Ok(Event::End(_)) => {
                in_date = false;
                if item_depth == Some(depth) {
                    item_depth = None;
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    items
}

/// Date coverage over real-world feeds: of the entries whose item carries a date field, how many got a date.
/// Also whether every feed-rs fixture parses. Returns (dated, with a date field, fixtures parsed, fixtures).
fn dates_and_fixtures(dir: &Path, cases: &[Case]) -> (usize, usize, usize, usize, Vec<String>) {
    let (mut dated, mut carrying) = (0, 0);
    let mut problems = Vec::new();
    for case in cases.iter().filter(|c| c.profile == "real-world") {
        let Ok(bytes) = std::fs::read(dir.join(&case.file)) else { continue };
        let Ok(ingested) = tidings::ingest::ingest(&bytes, case.content_type.as_deref(), None, None) else { continue };
        let Ok(decoded) = decode::decode(&bytes, case.content_type.as_deref(), None) else { continue };
        let has = items_with_dates(&decoded.text);
        if has.len() != ingested.feed.entries.len() {
            continue;
        }
        for (has_date, entry) in has.iter().zip(&ingested.feed.entries) {
            if *has_date {
                carrying += 1;
                if entry.published.is_some() {
                    dated += 1;
                } else if problems.len() < 40 {
                    problems.push(format!("NO DATE {}: entry {:?}", case.id, entry.title));
                }
            }
        }
    }
    let (mut parsed, mut fixtures) = (0, 0);
    let mut stack = vec![dir.join("files/feed-rs")];
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else { continue };
        for entry in read.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "xml" || e == "json") {
                fixtures += 1;
                let bytes = std::fs::read(&path).unwrap_or_default();
                match tidings::ingest::ingest(&bytes, None, None, None) {
                    Ok(_) => parsed += 1,
                    Err(e) => problems.push(format!("FIXTURE {}: {e}", path.display())),
                }
            }
        }
    }
    (dated, carrying, parsed, fixtures, problems)
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TIDINGS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    dir.join("cases.jsonl").exists().then_some(dir)
}

/// Two readings that must agree, of every XML document of the corpus among `cases`, decoded: how many read
/// alike, of how many, and which did not (`what` names the difference).
fn read_alike<'c>(
    dir: &Path,
    cases: impl Iterator<Item = &'c Case>,
    what: &str,
    readings: impl Fn(&str) -> [String; 2],
) -> (usize, usize, Vec<String>) {
    let (mut alike, mut compared, mut unlike) = (0, 0, Vec::new());
    for case in cases {
        let Ok(bytes) = std::fs::read(dir.join(&case.file)) else { continue };
        let Ok(decoded) = decode::decode(&bytes, case.content_type.as_deref(), None) else { continue };
        if decoded.text.trim_start_matches('\u{feff}').trim_start().starts_with('{') {
            continue;
        }
        let [one, other] = readings(&decoded.text);
        compared += 1;
        if one == other {
            alike += 1;
        } else {
            unlike.push(format!("{what} {} ({}):\n  {one}\n  {other}", case.id, case.file));
        }
    }
    (alike, compared, unlike)
}

/// Items read into entries as they close, against the tree kept whole (the feeds the profiles expect to parse).
fn streamed_as_whole(dir: &Path, cases: &[Case]) -> (usize, usize, Vec<String>) {
    let feeds = cases.iter().filter(|c| !matches!(c.profile.as_str(), "rome-strict" | "xml-spec"));
    read_alike(dir, feeds, "STREAMED UNLIKE WHOLE", |text| {
        let text = text.trim_start_matches('\u{feff}').trim_start();
        let url = Some("http://example.com/feed/index.xml");
        [format!("{:?}", tidings::parse::parse(text, url)), format!("{:?}", tidings::parse::parse_whole(text, url))]
    })
}

/// The tree with its plain stretches read directly, against the tree of the XML reader's events alone.
fn plain_as_events(dir: &Path, cases: &[Case]) -> (usize, usize, Vec<String>) {
    read_alike(dir, cases.iter(), "PLAIN UNLIKE EVENTS", |text| {
        let url = Some("http://example.com/feed/index.xml");
        let tree = tidings::parse::tree::read(text, url);
        [format!("{tree:?}"), format!("{:?}", tidings::parse::tree::read_by_events(text, url))]
    })
}

/// Prints how many of `compared` documents read `alike` (`what` says it), the ones that did not with
/// `--verbose`; any unlike is below the floor.
fn report_alike(
    (alike, compared, unlike): (usize, usize, Vec<String>),
    what: &str,
    verbose: bool,
    below: &mut Vec<String>,
) {
    if verbose {
        for u in &unlike {
            println!("{u}");
        }
    }
    println!("{what}: {alike}/{compared}");
    if alike < compared {
        below.push(format!("{what}: {} documents read otherwise", compared - alike));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    let only = args.iter().position(|a| a == "--profile").and_then(|i| args.get(i + 1)).cloned();
    let Some(dir) = corpus_dir() else {
        println!("conformance: no corpus at ../shared/corpus (or $TIDINGS_CORPUS); skipped");
        return;
    };
    let cases: Vec<Case> = std::fs::read_to_string(dir.join("cases.jsonl"))
        .expect("read cases.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a case"))
        .filter(|c: &Case| only.as_deref().is_none_or(|p| c.profile == p))
        .collect();

    // Serve the generated-http cases with their Content-Types, and fetch them the way the reader does.
    let server = Server::start();
    for (i, case) in cases.iter().enumerate().filter(|(_, c)| c.profile == "generated-http") {
        let body = std::fs::read(dir.join(&case.file)).expect("read a generated case");
        let headers = match case.content_type.as_deref() {
            Some("") | None => vec![],
            Some(ct) => vec![("Content-Type".to_string(), ct.to_string())],
        };
        server.route(&format!("/{i}.xml"), Reply::Ok { status: 200, headers, body });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let fetcher = tidings::fetch::Fetcher::new(tidings::fetch::FetchConfig {
        connect_timeout: std::time::Duration::from_secs(5),
        timeout: std::time::Duration::from_secs(30),
        max_body_bytes: 64 << 20,
    })
    .unwrap();

    // Per profile: passed, scored, and differing on purpose.
    let mut scores: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let path = dir.join(&case.file);
        let result = match case.profile.as_str() {
            "generated-http" => {
                let url = server.url(&format!("/{i}.xml"));
                match runtime.block_on(fetcher.get(&url, &Default::default())) {
                    Ok(tidings::fetch::FetchOutcome::Fetched(f)) => {
                        feed_case(case, &f.body, f.content_type.as_deref(), Some(&url))
                    }
                    other => outcome(false, format!("fetch failed: {other:?}")),
                }
            }
            profile => match std::fs::read(&path) {
                Err(e) => outcome(false, format!("cannot read {}: {e}", path.display())),
                Ok(bytes) => match profile {
                    "rome-strict" | "xml-spec" => strict_case(case, &bytes),
                    "rome-lenient" | "xml-only" => text_case(case, &bytes),
                    _ => feed_case(case, &bytes, case.content_type.as_deref(), None),
                },
            },
        };
        if !result.scored {
            continue;
        }
        let entry = scores.entry(case.profile.clone()).or_default();
        entry.1 += 1;
        if result.pass {
            entry.0 += 1;
        } else if let Some((_, why)) = DELIBERATE.iter().find(|(id, _)| *id == case.id) {
            entry.2 += 1;
            failures.push(format!("DIFFERS ON PURPOSE [{}] {}: {why}; {}", case.profile, case.id, result.detail));
        } else {
            failures.push(format!("FAIL [{}] {} ({}): {}", case.profile, case.id, case.file, result.detail));
        }
    }

    if verbose {
        for f in &failures {
            println!("{f}");
        }
    }
    println!("{:<24} {:>9} {:>9} {:>7}", "profile", "passed", "on purpose", "floor");
    let mut below = Vec::new();
    for (profile, (pass, total, deliberate)) in &scores {
        let floor = FLOORS.iter().find(|(p, _)| p == profile).map_or(0, |(_, f)| *f);
        println!("{profile:<24} {:>9} {deliberate:>9} {floor:>7}", format!("{pass}/{total}"));
        if *pass < floor {
            below.push(format!("{profile}: {pass} < floor {floor}"));
        }
    }
    if only.is_none() {
        // Items are read into entries as they close; the reading must be the one a whole tree gives.
        let streamed = streamed_as_whole(&dir, &cases);
        report_alike(streamed, "streamed reading, documents read as their whole tree reads", verbose, &mut below);
        // Plain stretches are read directly; the tree must be the one the reader's events give.
        let plain = plain_as_events(&dir, &cases);
        report_alike(plain, "plain stretches read directly, documents read as by events", verbose, &mut below);
        let (dated, carrying, parsed, fixtures, problems) = dates_and_fixtures(&dir, &cases);
        if verbose {
            for p in &problems {
                println!("{p}");
            }
        }
        let share = if carrying == 0 { 100.0 } else { dated as f64 * 100.0 / carrying as f64 };
        println!(
            "dates: {dated}/{carrying} real-world entries with a date field got a date ({share:.2} %, floor {DATE_FLOOR} %)"
        );
        println!("feed-rs fixtures: {parsed}/{fixtures} parse");
        if share < DATE_FLOOR {
            below.push(format!("dates: {share:.2} % < {DATE_FLOOR} %"));
        }
        if parsed < fixtures {
            below.push(format!("feed-rs fixtures: {parsed}/{fixtures} parse"));
        }
    }
    if !below.is_empty() {
        eprintln!("conformance: below the floor: {}", below.join(", "));
        if !verbose {
            eprintln!("run `cargo test --release --test conformance -- --verbose` for the failing cases");
        }
        std::process::exit(1);
    }
}
