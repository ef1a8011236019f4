//! Search, lists and retention benchmarks, run with `cargo bench --bench search -- [MODE…] [--feeds N]
//! [--entries M]`. Modes: `search` (word, phrase, prefix and CJK queries), `lists` (every entry of All, Unread,
//! Starred, a folder tree and a feed, in each order; the smart views' counts; marking a folder read and undoing
//! it), `retention` (the file size over two simulated years of daily refreshes, with and without purging) and
//! `tokenizers` (recall, index size and speed of CJK tokenizations over the corpus's Chinese, Japanese and
//! Korean feeds), `query` (saved views and kill rules of the query language, `text ~` among them: each listed
//! and counted, and the kill rules judged over every stored entry), `export` (1,000 entries of the farm written
//! as Markdown files, the reader's `O` and `tidings export --markdown`; the goal is under a second). Without a
//! mode: `search lists`. The farm (4000 feeds × 100 entries by default, see `tests/support/farm.rs`) is built once
//! and kept under the target directory.
//!
//! They print figures and assert nothing: a shared two-core machine is too noisy for timed tests.

// A benchmark or a harness of its own: what it measured goes to standard output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../support/mod.rs"]
mod support;

use rusqlite::Connection;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::farm::{self, FarmSpec, Rng};
use tidings::model::{Applied, EntryId, FeedId, ListQuery, ListSource, Sort, UserWrite};
use tidings::search::SearchQuery;
use tidings::store::{self, entries, fetches, lists, purge, search};

/// Marks the list read through the one write path; the ids it changed.
fn mark_read(conn: &mut Connection, query: &ListQuery) -> Vec<EntryId> {
    match store::apply(conn, &UserWrite::MarkListRead { source: query.source.clone() }, 0).expect("mark read") {
        Applied::Marked(ids) => ids,
        other => panic!("marking read answered {other:?}"),
    }
}

fn arg_value(args: &[String], name: &str) -> Option<usize> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok())
}

/// Runs `f` `runs` times after one warm-up run; returns the median time and the warm-up's result.
fn timed<R>(runs: usize, mut f: impl FnMut() -> R) -> (Duration, Duration, R) {
    let start = Instant::now();
    let first = f();
    let cold = start.elapsed();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    (cold, times[times.len() / 2], first)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn farm_for(args: &[String]) -> farm::Farm {
    let spec = FarmSpec {
        feeds: arg_value(args, "--feeds").unwrap_or(FarmSpec::BENCH.feeds),
        entries_per_feed: arg_value(args, "--entries").unwrap_or(FarmSpec::BENCH.entries_per_feed),
        ..FarmSpec::BENCH
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("search-bench");
    let start = Instant::now();
    let (farm, built) = farm::cached(&dir, &spec);
    let size = std::fs::metadata(&farm.path).map(|m| m.len()).unwrap_or(0);
    println!(
        "farm: {} feeds × {} entries = {} entries, {:.0} MB{}",
        spec.feeds,
        spec.entries_per_feed,
        farm.entries,
        mb(size),
        if built { format!(", built in {:.1} s", start.elapsed().as_secs_f64()) } else { ", cached".into() }
    );
    farm
}

fn search_mode(farm: &farm::Farm) {
    let conn = store::open_read(&farm.path).expect("open the farm");
    println!("search over {} entries (median of 9 runs after a first, cold one):", farm.entries);
    let folder = farm.folders.iter().find(|(name, _)| name == "Tech").map(|(_, id)| *id).expect("Tech folder");
    let english = |rank| farm::Language::English.vocabulary_word(rank);
    let queries: Vec<(&str, String)> = vec![
        ("a rare word", english(20_000)),
        ("a word", english(2_000)),
        ("a frequent word", english(200)),
        ("a common word", english(20)),
        ("a function word", "the".into()),
        ("diacritics folded", "cafe".into()),
        ("Cyrillic", "москва".into()),
        ("CJK two characters", "東京".into()),
        ("Korean in a word", "서울".into()),
        ("two words", "open source".into()),
        ("a phrase", "\"open source\"".into()),
        ("a CJK phrase", "東京都".into()),
        ("a prefix", "compil*".into()),
        ("a word in a folder", english(200)),
    ];
    for (i, (what, query)) in queries.iter().enumerate() {
        let within = (i == queries.len() - 1).then_some(ListSource::Folder(folder));
        let (cold, median, found) =
            timed(9, || lists::search(&conn, query, within.as_ref(), false, Sort::Newest).expect("search").len());
        println!("  {what:<22} {:<16} {found:>7} found   {:>7.1} ms  (cold {:.1} ms)", query, ms(median), ms(cold));
    }
}

fn lists_mode(farm: &farm::Farm) {
    let mut conn = store::open_write(&farm.path).expect("open the farm");
    let folder = farm.folders.iter().find(|(name, _)| name == "Tech").map(|(_, id)| *id).expect("Tech folder");
    println!("lists (every entry of the list, as refs; median of 5 runs after a first, cold one):");
    let sources = [
        ("All", ListSource::All),
        ("Unread", ListSource::Unread),
        ("Starred", ListSource::Starred),
        ("folder Tech (nested)", ListSource::Folder(folder)),
        ("one feed", ListSource::Feed(farm.feeds[0])),
    ];
    for (name, source) in &sources {
        for sort in Sort::ALL {
            for unread_only in [false, true] {
                if unread_only && (sort != Sort::Newest || matches!(source, ListSource::Unread)) {
                    continue;
                }
                let query = ListQuery { source: source.clone(), sort, unread_only };
                let (cold, median, n) = timed(5, || lists::entry_refs(&conn, &query).expect("entry refs").len());
                println!(
                    "  {name:<21} {:<7}{:<12} {n:>7} refs  {:>7.1} ms  (cold {:.1} ms)",
                    sort.name(),
                    if unread_only { " unread" } else { "" },
                    ms(median),
                    ms(cold)
                );
            }
        }
    }
    // As most databases are: nearly everything read (every tenth unread entry left unread), with the statistics
    // the writer's `PRAGMA optimize` keeps; then undone.
    let unread = ListQuery { source: ListSource::Unread, sort: Sort::Newest, unread_only: false };
    let unread_ids = lists::entry_refs(&conn, &unread).expect("unread");
    let marked: Vec<EntryId> = unread_ids.iter().enumerate().filter(|(i, _)| i % 10 != 0).map(|(_, r)| r.id).collect();
    store::apply(&mut conn, &UserWrite::SetRead { ids: marked.clone(), read: true }, 0).expect("mark read");
    conn.execute_batch("PRAGMA optimize").expect("optimize");
    let stored = lists::view_counts(&conn).expect("counts").all;
    println!("  with {} of {stored} entries unread:", unread_ids.len() - marked.len());
    for (name, query) in [
        ("Unread", unread),
        ("All, unread only", ListQuery { source: ListSource::All, sort: Sort::Newest, unread_only: true }),
        (
            "folder Tech, unread only",
            ListQuery { source: ListSource::Folder(folder), sort: Sort::Newest, unread_only: true },
        ),
        ("Unread by title", ListQuery { source: ListSource::Unread, sort: Sort::ByTitle, unread_only: false }),
    ] {
        let (cold, median, n) = timed(5, || lists::entry_refs(&conn, &query).expect("entry refs").len());
        println!("    {name:<28} {n:>7} refs  {:>7.1} ms  (cold {:.1} ms)", ms(median), ms(cold));
    }
    let (_, median, counts) = timed(9, || lists::view_counts(&conn).expect("counts"));
    println!("    view counts (unread {})         {:>7.1} ms", counts.unread, ms(median));
    store::apply(&mut conn, &UserWrite::SetRead { ids: marked, read: false }, 0).expect("undo");
    let all = lists::entry_refs(&conn, &ListQuery { source: ListSource::All, sort: Sort::Newest, unread_only: false })
        .expect("all");
    let screen: Vec<_> = all[all.len() - 50..].iter().map(|r| r.id).collect();
    let (_, median, _) = timed(9, || entries::entry_rows(&conn, &screen).expect("rows").len());
    println!("  rows of one screen (50, at the end of All)  {:>7.2} ms", ms(median));
    let (_, median, counts) = timed(9, || lists::view_counts(&conn).expect("counts"));
    println!(
        "  view counts (all {}, unread {}, starred {})  {:>7.1} ms",
        counts.all,
        counts.unread,
        counts.starred,
        ms(median)
    );
    let query = ListQuery { source: ListSource::Folder(folder), sort: Sort::Newest, unread_only: false };
    let start = Instant::now();
    let changed = mark_read(&mut conn, &query);
    let marked = start.elapsed();
    let start = Instant::now();
    store::apply(&mut conn, &UserWrite::SetRead { ids: changed.clone(), read: false }, 0).expect("undo");
    println!(
        "  mark folder Tech read: {} entries in {:.0} ms; undo in {:.0} ms",
        changed.len(),
        ms(marked),
        ms(start.elapsed())
    );
    let query = ListQuery { source: ListSource::Unread, sort: Sort::Newest, unread_only: false };
    let start = Instant::now();
    let changed = mark_read(&mut conn, &query);
    let marked = start.elapsed();
    let start = Instant::now();
    store::apply(&mut conn, &UserWrite::SetRead { ids: changed.clone(), read: false }, 0).expect("undo");
    println!(
        "  mark Unread read: {} entries in {:.0} ms; undo in {:.0} ms",
        changed.len(),
        ms(marked),
        ms(start.elapsed())
    );
}

/// The database file's size (with its WAL) after a checkpoint.
fn db_size(conn: &Connection, path: &Path) -> u64 {
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").expect("checkpoint");
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) + std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0)
}

/// Two years of daily refreshes of feeds that publish ten entries a day and list their latest thirty, every
/// entry read the day it arrives: the file size with the default retention (90 days) and without any, and the
/// time the upkeep after each refresh (the steps of `purge::Upkeep`) took in all.
fn retention_mode(args: &[String]) {
    let feeds = arg_value(args, "--feeds").unwrap_or(20);
    let days = arg_value(args, "--days").unwrap_or(730) as i64;
    println!("retention: {feeds} feeds × 10 new entries a day (each lists its latest 30), all read, {days} days");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut sizes: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for (label, policy) in [
        (
            "keep_days = 90",
            purge::Policy { default: purge::Retention { keep_days: 90, ..Default::default() }, ..Default::default() },
        ),
        ("no purge", purge::Policy::default()),
    ] {
        let path = dir.path().join(format!("{}.db", label.replace(' ', "")));
        let mut conn = store::open_write(&path).expect("open");
        let new: Vec<_> = (0..feeds)
            .map(|f| tidings::model::NewFeed {
                url: format!("http://127.0.0.1/rotating/{f}.xml"),
                title: None,
                name: None,
                site_url: None,
                folder: vec![],
            })
            .collect();
        store::apply(&mut conn, &UserWrite::Import { feeds: new, folders: vec![] }, 0).expect("import");
        let mut rng = Rng(7);
        let start = Instant::now();
        let (mut purge_time, mut index_time, mut optimize_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
        for day in 1..=days {
            let now = 1_700_000_000 + day * 86_400;
            for f in 0..feeds {
                let entries = (0..30)
                    .map(|k| {
                        let n = day * 10 - k;
                        tidings::model::ParsedEntry {
                            key: format!("r{f}-{n}"),
                            title: Some(format!("Entry {n} of feed {f}")),
                            link: Some(format!("http://127.0.0.1/rotating/{f}/{n}")),
                            authors: vec![],
                            published: chrono::DateTime::from_timestamp(now - k * 8640, 0),
                            updated: None,
                            content_html: Some(format!(
                                "<p>{}</p>",
                                (0..150).map(|_| format!("w{}", rng.zipf(5000))).collect::<Vec<_>>().join(" ")
                            )),
                            summary_html: None,
                            categories: vec![],
                            enclosures: vec![],
                            comments: None,
                            thumbnail: None,
                        }
                    })
                    .collect();
                let record = fetches::FetchRecord::Fetched {
                    status: 200,
                    etag: None,
                    last_modified: None,
                    feed: Box::new(tidings::model::ParsedFeed {
                        authors: vec![],
                        kind: tidings::model::FeedKind::Rss2,
                        title: Some(format!("Rotating {f}")),
                        link: None,
                        description: None,
                        entries,
                        warnings: vec![],
                        min_interval_secs: None,
                        unkept: 0,
                    }),
                    decision: None,
                    moved_to: None,
                    min_interval_secs: None,
                    ignored: vec![],
                    cut_from: None,
                    digest: None,
                };
                fetches::save(&mut conn, FeedId((f + 1) as i64), &record, now).expect("apply");
            }
            conn.execute("UPDATE entries SET read = 1 WHERE read = 0", []).expect("read");
            let t = Instant::now();
            purge::purge(&mut conn, &policy, now, usize::MAX, FeedId(0)).expect("purge");
            purge_time += t.elapsed();
            let t = Instant::now();
            search::index_pending(&mut conn, usize::MAX).expect("index");
            index_time += t.elapsed();
            let t = Instant::now();
            conn.execute_batch("PRAGMA optimize").expect("optimize");
            optimize_time += t.elapsed();
            if [30, 90, 180, 365, 540, 730].contains(&day) || day == days {
                let entries: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).expect("count");
                sizes.entry(day).or_default().push(format!(
                    "{:>7.1} MB {:>7} entries",
                    mb(db_size(&conn, &path)),
                    entries
                ));
            }
        }
        println!(
            "  {label}: simulated in {:.1} s (purge {:.1} s, index {:.1} s, optimize {:.1} s)",
            start.elapsed().as_secs_f64(),
            purge_time.as_secs_f64(),
            index_time.as_secs_f64(),
            optimize_time.as_secs_f64()
        );
    }
    println!("  {:>5}  {:>26}  {:>26}", "day", "keep_days = 90", "no purge");
    for (day, row) in sizes {
        println!("  {day:>5}  {}", row.iter().map(|s| format!("{s:>26}")).collect::<Vec<_>>().join("  "));
    }
}

/// A document of the corpus in one of the CJK languages: its entries' plain texts.
struct CjkDocument {
    language: &'static str,
    text: String,
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TIDINGS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    dir.join("cases.jsonl").exists().then_some(dir)
}

/// The language of a text by its script: Hangul is Korean, kana Japanese, Han alone Chinese.
fn cjk_language(text: &str) -> Option<&'static str> {
    let (mut hangul, mut kana, mut han) = (0, 0, 0);
    for c in text.chars() {
        match c {
            '\u{AC00}'..='\u{D7A3}' => hangul += 1,
            '\u{3041}'..='\u{30FF}' => kana += 1,
            '\u{4E00}'..='\u{9FFF}' => han += 1,
            _ => {}
        }
    }
    if hangul > 20 {
        Some("ko")
    } else if kana > 20 {
        Some("ja")
    } else if han > 20 {
        Some("zh")
    } else {
        None
    }
}

/// Every entry of the corpus written in Chinese, Japanese or Korean (each distinct text once).
fn cjk_documents(dir: &Path) -> Vec<CjkDocument> {
    let cases = std::fs::read_to_string(dir.join("cases.jsonl")).expect("read cases.jsonl");
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for line in cases.lines() {
        let Ok(case) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let Some(file) = case["file"].as_str() else { continue };
        let Ok(bytes) = std::fs::read(dir.join(file)) else { continue };
        let Ok(ingested) = tidings::ingest::ingest(&bytes, case["content_type"].as_str(), None, None) else {
            continue;
        };
        for entry in ingested.feed.entries {
            let body = entry.content_html.or(entry.summary_html).map(|h| tidings::search::body_text(&h));
            let text = format!("{} {}", entry.title.unwrap_or_default(), body.unwrap_or_default());
            if let Some(language) = cjk_language(&text)
                && seen.insert(text.clone())
            {
                out.push(CjkDocument { language, text });
            }
        }
    }
    out
}

/// Queries a person might type: substrings of 2, 3 and 4 characters of the CJK runs of the documents (what a
/// word is in these languages), sampled evenly.
fn cjk_queries(docs: &[CjkDocument], language: &str, per_length: usize, rng: &mut Rng) -> Vec<String> {
    let runs: Vec<Vec<char>> = docs
        .iter()
        .filter(|d| d.language == language)
        .flat_map(|d| {
            let mut runs = vec![];
            let mut run = vec![];
            for c in d.text.chars() {
                if tidings::search::is_cjk(c) {
                    run.push(c);
                } else if !run.is_empty() {
                    runs.push(std::mem::take(&mut run));
                }
            }
            runs.extend((!run.is_empty()).then_some(run));
            runs
        })
        .collect();
    let mut queries = Vec::new();
    for len in 2..=4 {
        let candidates: Vec<&Vec<char>> = runs.iter().filter(|r| r.len() >= len).collect();
        for _ in 0..per_length.min(candidates.len() * 4) {
            let run = candidates[rng.below(candidates.len() as u64) as usize];
            let at = rng.below((run.len() - len + 1) as u64) as usize;
            queries.push(run[at..at + len].iter().collect());
        }
    }
    queries
}

/// One way of indexing CJK text: how the table is made, what it is fed, and what a query becomes.
struct Tokenization {
    name: &'static str,
    create: &'static str,
    index: fn(&str) -> String,
    query: fn(&str) -> Option<String>,
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

fn tokenizers_mode() {
    let Some(dir) = corpus_dir() else {
        println!("tokenizers: no corpus at ../shared/corpus (or $TIDINGS_CORPUS); skipped");
        return;
    };
    let docs = cjk_documents(&dir);
    let bytes: usize = docs.iter().map(|d| d.text.len()).sum();
    let by_language = |l: &str| docs.iter().filter(|d| d.language == l).count();
    println!(
        "tokenizers: {} CJK entries from the corpus ({} ja, {} zh, {} ko; {:.1} MB of text)",
        docs.len(),
        by_language("ja"),
        by_language("zh"),
        by_language("ko"),
        mb(bytes as u64)
    );
    let tokenizations = [
        Tokenization {
            name: "bigrams (tidings)",
            create: "CREATE VIRTUAL TABLE t USING fts5(body, content='', contentless_delete=1, \
                     tokenize='unicode61 remove_diacritics 2')",
            index: tidings::search::indexed_form,
            query: |q| SearchQuery::parse(q).ok().map(|q| q.expression().to_string()),
        },
        Tokenization {
            name: "trigram",
            create: "CREATE VIRTUAL TABLE t USING fts5(body, content='', contentless_delete=1, \
                     tokenize='trigram remove_diacritics 1')",
            index: |t| t.to_string(),
            query: |q| Some(quoted(q)),
        },
        Tokenization {
            name: "unicode61 alone",
            create: "CREATE VIRTUAL TABLE t USING fts5(body, content='', contentless_delete=1, \
                     tokenize='unicode61 remove_diacritics 2')",
            index: |t| t.to_string(),
            query: |q| Some(quoted(q)),
        },
    ];
    let mut rng = Rng(2026);
    let languages = ["ja", "zh", "ko"];
    let queries: Vec<(&str, Vec<String>)> =
        languages.iter().map(|l| (*l, cjk_queries(&docs, l, 300, &mut rng))).collect();
    let work = tempfile::tempdir().expect("temp dir");
    println!(
        "  {:<18} {:>9} {:>9} {:>10} {:>9}   recall by query length 2 / 3 / 4 characters, per language",
        "", "index", "build", "query", "precision"
    );
    for tok in &tokenizations {
        let path = work.path().join(format!("{}.db", tok.name.split(' ').next().unwrap_or("t")));
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch("PRAGMA journal_mode = OFF;").expect("pragma");
        conn.execute_batch(tok.create).expect("create");
        let start = Instant::now();
        conn.execute_batch("BEGIN").expect("begin");
        {
            let mut insert = conn.prepare("INSERT INTO t(rowid, body) VALUES (?1, ?2)").expect("insert");
            for (i, d) in docs.iter().enumerate() {
                insert.execute(rusqlite::params![i as i64, (tok.index)(&d.text)]).expect("insert");
            }
        }
        conn.execute_batch("COMMIT; INSERT INTO t(t) VALUES ('optimize'); VACUUM;").expect("commit");
        let build = start.elapsed();
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let mut stmt = conn.prepare("SELECT rowid FROM t WHERE t MATCH ?1").expect("select");
        let (mut found_true, mut found_all, mut truth_all) = (0usize, 0usize, 0usize);
        let mut recall_cells = Vec::new();
        let mut query_time = Duration::ZERO;
        let mut query_count = 0;
        for (language, qs) in &queries {
            let mut per_length = Vec::new();
            for len in 2..=4 {
                let (mut hit, mut want) = (0usize, 0usize);
                for q in qs.iter().filter(|q| q.chars().count() == len) {
                    let truth: HashSet<i64> = docs
                        .iter()
                        .enumerate()
                        .filter(|(_, d)| d.text.contains(q.as_str()))
                        .map(|(i, _)| i as i64)
                        .collect();
                    let start = Instant::now();
                    let found: HashSet<i64> = match (tok.query)(q) {
                        Some(m) => stmt
                            .query_map([m], |r| r.get(0))
                            .map(|rows| rows.filter_map(Result::ok).collect())
                            .unwrap_or_default(),
                        None => HashSet::new(),
                    };
                    query_time += start.elapsed();
                    query_count += 1;
                    hit += found.intersection(&truth).count();
                    want += truth.len();
                    found_all += found.len();
                }
                found_true += hit;
                truth_all += want;
                per_length.push(if want == 0 {
                    "-".to_string()
                } else {
                    format!("{:.0}%", 100.0 * hit as f64 / want as f64)
                });
            }
            recall_cells.push(format!("{language} {}", per_length.join("/")));
        }
        println!(
            "  {:<18} {:>6.1} MB {:>7.0} ms {:>7.3} ms {:>8.1}%   {}   (all: {:.1}%)",
            tok.name,
            mb(size),
            ms(build),
            ms(query_time) / query_count.max(1) as f64,
            100.0 * found_true as f64 / found_all.max(1) as f64,
            recall_cells.join("  "),
            100.0 * found_true as f64 / truth_all.max(1) as f64,
        );
    }
    println!("  (recall: of the entries that contain the query, the share found; precision: of those found, the share");
    println!("   that contain it; index: the database file after VACUUM; query: mean time of one query)");
}

/// Views and kill rules of the query language over the farm: each listed (every entry, as refs) and its unread
/// entries counted (the feeds pane's count), then twenty kill rules judged over every stored entry (what
/// `tidings list --ignored` and each refresh do), and the entries they caught listed.
fn query_mode(farm: &farm::Farm) {
    let mut conn = store::open_write(&farm.path).expect("open the farm");
    let english = |rank| farm::Language::English.vocabulary_word(rank);
    println!("queries over {} entries (median of 9 runs after a first, cold one):", farm.entries);
    let views: Vec<(&str, String)> = vec![
        ("text ~ a rare word", format!("text ~ {}", english(20_000))),
        ("text ~ a word", format!("text ~ {}", english(2_000))),
        ("text ~ a frequent word", format!("text ~ {}", english(200))),
        ("text ~ a phrase", "text ~ \"open source\"".to_string()),
        ("a view of the week", format!("text ~ {} and age < 7d and unread", english(200))),
        ("folder and text", format!("folder = Tech and text ~ {}", english(200))),
        ("title ~, not author", format!("title ~ {} and not author ~ a", english(200))),
        ("a kill rule", format!("text ~ {} or title ~ sponsored", english(2_000))),
        ("either of two words", format!("text ~ {} or text ~ {}", english(500), english(600))),
    ];
    for (what, query) in &views {
        tidings::query::parse(query).unwrap_or_else(|e| panic!("{query}: {e}"));
        let source = ListSource::Query { query: query.clone(), within: None };
        let list = ListQuery { source, sort: Sort::Newest, unread_only: false };
        let (cold, median, n) = timed(9, || lists::entry_refs(&conn, &list).expect("query list").len());
        let (_, counted, unread) = timed(9, || lists::query_unread_count(&conn, query).expect("count"));
        println!(
            "  {what:<24} {n:>7} listed {:>7.1} ms (cold {:.1} ms); {unread:>7} unread counted {:>7.1} ms",
            ms(median),
            ms(cold),
            ms(counted)
        );
    }
    let rules: Vec<tidings::query::Query> = (0..20)
        .map(|i| match i % 4 {
            0 => format!("text ~ {}", english(3_000 + i * 7)),
            1 => format!("title ~ {}", english(1_000 + i * 11)),
            2 => format!("author = \"{}\"", english(5_000 + i)),
            _ => format!("text ~ \"{} {}\"", english(300 + i), english(301 + i)),
        })
        .map(|q| tidings::query::parse(&q).unwrap_or_else(|e| panic!("{q}: {e}")))
        .collect();
    let start = Instant::now();
    let (hidden, _) = store::query::apply_rules(&mut conn, &rules, farm::NEWEST).expect("apply rules");
    let judged = start.elapsed();
    let start = Instant::now();
    let (again, _) = store::query::apply_rules(&mut conn, &rules, farm::NEWEST).expect("apply rules");
    let unchanged = start.elapsed();
    let list = ListQuery { source: ListSource::Ignored { within: None }, sort: Sort::Newest, unread_only: false };
    let (_, median, n) = timed(9, || lists::entry_refs(&conn, &list).expect("ignored list").len());
    println!(
        "  20 kill rules over every entry: {hidden} caught in {:.0} ms; judged again ({again} changed) in {:.0} ms; \
         the {n} caught listed in {:.1} ms",
        ms(judged),
        ms(unchanged),
        ms(median)
    );
    store::query::apply_rules(&mut conn, &[], farm::NEWEST).expect("clear the rules");
}

/// 1,000 entries (the newest of All) written as Markdown files under a fresh folder, as `O` and `tidings export
/// --markdown` do; the goal is under a second.
fn export_mode(farm: &farm::Farm) {
    let conn = store::open_read(&farm.path).expect("open the farm");
    let every = ListQuery { source: ListSource::All, sort: Sort::Newest, unread_only: false };
    let refs = lists::entry_refs(&conn, &every).expect("entry refs");
    let ids: Vec<EntryId> = refs.into_iter().take(1_000).map(|r| r.id).collect();
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export-bench");
    let mut run = 0;
    let (cold, median, written) = timed(5, || {
        run += 1;
        let dir = root.join(format!("run-{run}"));
        let _ = std::fs::remove_dir_all(&dir);
        let done = tidings::export::to_files(&conn, &ids, &dir, tidings::markdown::DEFAULT_TEMPLATE).expect("export");
        done.written.len()
    });
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "export: {written} entries as Markdown files  {:>7.1} ms  (cold {:.1} ms; goal: under 1000 ms)",
        ms(median),
        ms(cold)
    );
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let modes: Vec<&String> = raw
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !raw[i - 1].starts_with("--")))
        .map(|(_, a)| a)
        .collect();
    let wants = |name: &str| {
        if modes.is_empty() { matches!(name, "search" | "lists") } else { modes.iter().any(|a| *a == name) }
    };
    if wants("tokenizers") {
        tokenizers_mode();
    }
    if wants("search") || wants("lists") || wants("query") || wants("export") {
        let farm = farm_for(&raw);
        if wants("export") {
            export_mode(&farm);
        }
        if wants("query") {
            query_mode(&farm);
        }
        if wants("search") {
            search_mode(&farm);
        }
        if wants("lists") {
            lists_mode(&farm);
        }
    }
    if wants("retention") {
        retention_mode(&raw);
    }
}
