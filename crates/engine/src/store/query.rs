//! The query language in SQL: a parsed [`Query`] (the core's `query` module) becomes one condition on
//! `entries e` with its parameters. `text ~` and bare words go through the FTS5 index; titles, authors and links
//! are compared folded (case, diacritics, widths) by two functions registered on every connection
//! ([`register_functions`]); a feed or a folder is resolved to the ids of the feeds it names, once per query,
//! from the feed list (a few thousand rows), so that the entries are read by the feed index.
//!
//! The same conditions read in memory ([`Query::matches`], a kill rule at ingest) give the same answers: the
//! tests below check one against the other over generated entries.

use super::StoreError;
use crate::query::{Condition, Entry, Field, Matcher, Op, Query, Value as QValue, date_range};
use crate::search::{Phrase, contains_folded, equals_folded};
use rusqlite::Connection;
use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value;

/// A query as SQL: a condition on `entries e`, and its parameters in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    pub sql: String,
    pub params: Vec<Value>,
}

/// Registers `tidings_contains(text, folded)` and `tidings_equals(text, folded)` on a connection: whether the
/// text, folded, contains (is) the folded value. NULL reads as the empty text.
pub(super) fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("tidings_contains", 2, flags, |ctx| {
        let text = ctx.get_raw(0).as_str_or_null().ok().flatten().unwrap_or("");
        let needle = ctx.get_raw(1).as_str_or_null().ok().flatten().unwrap_or("");
        Ok(contains_folded(text, needle))
    })?;
    conn.create_scalar_function("tidings_equals", 2, flags, |ctx| {
        let text = ctx.get_raw(0).as_str_or_null().ok().flatten().unwrap_or("");
        let value = ctx.get_raw(1).as_str_or_null().ok().flatten().unwrap_or("");
        Ok(equals_folded(text, value))
    })?;
    Ok(())
}

/// A feed as `feed` and `folder` conditions see it.
struct CatalogFeed {
    id: i64,
    title: String,
    url: String,
    folder: Option<String>,
}

/// Compiles `query` for the entries as they are at `now` (seconds since the epoch: `age`).
pub fn compile(conn: &Connection, query: &Query, now: i64) -> Result<Compiled, StoreError> {
    let mut compiler = Compiler { conn, now, catalog: None, params: Vec::new() };
    let sql = compiler.query(query)?;
    Ok(Compiled { sql, params: compiler.params })
}

struct Compiler<'c> {
    conn: &'c Connection,
    now: i64,
    catalog: Option<Vec<CatalogFeed>>,
    params: Vec<Value>,
}

impl Compiler<'_> {
    fn query(&mut self, query: &Query) -> Result<String, StoreError> {
        Ok(match query {
            Query::And(parts) => self.join(parts, " AND ")?,
            Query::Or(parts) => self.join(parts, " OR ")?,
            Query::Not(inner) => format!("NOT ({})", self.query(inner)?),
            Query::Cond(c) => self.condition(c)?,
        })
    }

    fn join(&mut self, parts: &[Query], with: &str) -> Result<String, StoreError> {
        let sql = parts.iter().map(|p| self.query(p).map(|s| format!("({s})"))).collect::<Result<Vec<_>, _>>()?;
        Ok(sql.join(with))
    }

    fn param(&mut self, value: Value) -> &'static str {
        self.params.push(value);
        "?"
    }

    fn condition(&mut self, c: &Condition) -> Result<String, StoreError> {
        if matches!(c.op, Op::Ne | Op::NotContains) && !matches!(c.value, QValue::Flag(_)) {
            let positive = Condition { op: if c.op == Op::Ne { Op::Eq } else { Op::Contains }, ..c.clone() };
            return Ok(format!("NOT ({})", self.condition(&positive)?));
        }
        let function = if c.op == Op::Eq { "tidings_equals" } else { "tidings_contains" };
        Ok(match (c.field, &c.value) {
            (Field::Title | Field::Author | Field::Url, QValue::Text { .. }) => {
                let column = match c.field {
                    Field::Title => "e.title",
                    Field::Author => "e.author",
                    _ => "e.link",
                };
                let p = self.param(Value::Text(c.value.folded()));
                format!("{function}({column}, {p})")
            }
            (Field::Tag, QValue::Text { .. }) => {
                let p = self.param(Value::Text(c.value.folded()));
                format!("EXISTS (SELECT 1 FROM json_each(e.categories) j WHERE {function}(j.value, {p}))")
            }
            (Field::Enclosure, QValue::Text { .. }) => {
                let p = self.param(Value::Text(c.value.folded()));
                format!(
                    "EXISTS (SELECT 1 FROM json_each(e.enclosures) j \
                     WHERE {function}(json_extract(j.value, '$.media_type'), {p}))"
                )
            }
            (Field::Enclosure, QValue::Flag(has)) => {
                let has = *has != (c.op == Op::Ne);
                format!("e.enclosures IS {}NULL", if has { "NOT " } else { "" })
            }
            (Field::Feed | Field::Folder, QValue::Text { .. }) => {
                let ids = self.feeds_matching(c)?;
                let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
                if ids.is_empty() { "0".to_string() } else { format!("e.feed_id IN ({list})") }
            }
            (Field::Age, QValue::Secs(secs)) => {
                // age < S: the date is after now - S.
                let at = self.now - secs;
                let op = match c.op {
                    Op::Lt => ">",
                    Op::Gt => "<",
                    Op::Le => ">=",
                    Op::Ge => "<=",
                    Op::Ne => "!=",
                    _ => "=",
                };
                format!("e.sort_at {op} {at}")
            }
            (Field::Published, QValue::Time { at, day }) => match date_range(c.op, *at, *day) {
                (Some(from), Some(to)) => format!("(e.sort_at >= {from} AND e.sort_at < {to})"),
                (Some(from), None) => format!("e.sort_at >= {from}"),
                (None, Some(to)) => format!("e.sort_at < {to}"),
                (None, None) => "1".into(),
            },
            (Field::Unread, QValue::Flag(want)) => {
                let unread = *want != (c.op == Op::Ne);
                format!("e.read = {}", if unread { 0 } else { 1 })
            }
            (Field::Starred, QValue::Flag(want)) => {
                let starred = *want != (c.op == Op::Ne);
                format!("e.starred = {}", if starred { 1 } else { 0 })
            }
            (Field::Text | Field::Any, QValue::Text { text, prefix }) => {
                let Some(phrase) = Phrase::expression(text, *prefix) else { return Ok("0".into()) };
                let expression = if c.field == Field::Text { format!("{{title body}} : {phrase}") } else { phrase };
                let p = self.param(Value::Text(expression));
                format!("e.id IN (SELECT rowid FROM entry_search WHERE entry_search MATCH {p})")
            }
            // The parser gives each field values of its type only.
            _ => "0".into(),
        })
    }

    /// The feeds a `feed` or `folder` condition selects, by the same reading as [`Query::matches`].
    fn feeds_matching(&mut self, c: &Condition) -> Result<Vec<i64>, StoreError> {
        if self.catalog.is_none() {
            self.catalog = Some(catalog(self.conn)?);
        }
        let matcher = Matcher::new(&Query::Cond(c.clone()));
        let now = self.now;
        Ok(self
            .catalog
            .iter()
            .flatten()
            .filter(|f| matcher.matches(&Entry::new(&f.title, &f.url, f.folder.as_deref(), now), now))
            .map(|f| f.id)
            .collect())
    }
}

/// Where the kill rules' last judgement is remembered (the `preferences` table): the fingerprint of the rules
/// it judged by, the time it judged at, and the newest entry it saw.
const FINGERPRINT: &str = "kill_rules.fingerprint";
const JUDGED_AT: &str = "kill_rules.judged_at";
const JUDGED_TO: &str = "kill_rules.judged_to";
/// What the rules of the last judgement read besides an entry's fields (`fields`, and `text`, `flags`); absent
/// with no rules. Schema step 14's triggers note changes only for rules that read them.
const READ: &str = "kill_rules.read";

/// Makes `ignored` say exactly which stored entries the kill rules match now: those newly matched are hidden,
/// those no longer matched (a rule changed or went) are shown again. With rules that read the text, only
/// entries the index has read are judged (the others keep what ingest decided). Returns how many were hidden
/// and how many shown again.
///
/// Only what can have changed is judged. Every entry, when the rules differ from those of the last judgement
/// (their fingerprint: the rules as SQL, with the feeds a `feed` or `folder` condition names, and this build's
/// version); otherwise the entries stored since, those whose text, flags or fields changed since (the
/// `entries_unjudged` table, kept by triggers: see schema step 14), and, for rules with an `age`, the entries
/// whose age crossed one of its limits since.
pub fn apply_rules(conn: &mut Connection, rules: &[Query], now: i64) -> Result<(usize, usize), StoreError> {
    use std::collections::HashSet;
    let tx = conn.transaction()?;
    let rule = Query::any(rules.to_vec());
    let read = rule.as_ref().map(what_it_reads);
    let fingerprint = match &rule {
        None => "none".to_string(),
        Some(rule) => fingerprint(&tx, rule)?,
    };
    let remembered = |name| super::preferences::get(&tx, name);
    let judged_at: Option<i64> = remembered(JUDGED_AT)?.and_then(|v| v.parse().ok());
    let judged_to: Option<i64> = remembered(JUDGED_TO)?.and_then(|v| v.parse().ok());
    let same = remembered(FINGERPRINT)?.as_deref() == Some(fingerprint.as_str());
    let newest: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM entries", [], |r| r.get(0))?;
    let changed = match (rule, same.then_some(()).and(judged_at.zip(judged_to))) {
        (None, _) => (0, tx.execute("UPDATE entries SET ignored = 0 WHERE ignored = 1", [])?),
        (Some(rule), last) => {
            let compiled = compile(&tx, &rule, now)?;
            // Cheap tests first: SQLite reads a WHERE clause's terms in their order.
            let judged = if rule.reads_text() { "e.search_indexed = 1 AND " } else { "" };
            // Which entries: all of them, or (same rules) those that can have changed since.
            let within = match last {
                None => "",
                Some((at, to)) => {
                    tx.prepare_cached(
                        "INSERT OR IGNORE INTO entries_unjudged (entry_id) SELECT id FROM entries WHERE id > ?1",
                    )?
                    .execute([to])?;
                    for secs in ages(&rule) {
                        let (from, until) = (at.min(now) - secs, at.max(now) - secs);
                        tx.prepare_cached(
                            "INSERT OR IGNORE INTO entries_unjudged (entry_id)
                             SELECT id FROM entries WHERE sort_at BETWEEN ?1 AND ?2",
                        )?
                        .execute([from - 1, until + 1])?;
                    }
                    "e.id IN (SELECT entry_id FROM entries_unjudged) AND "
                }
            };
            let ids = |sql: &str, params: &[Value]| -> Result<HashSet<i64>, StoreError> {
                let mut stmt = tx.prepare(sql)?;
                let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| r.get(0))?;
                Ok(rows.collect::<Result<_, _>>()?)
            };
            let matching =
                ids(&format!("SELECT e.id FROM entries e WHERE {within}{judged}({})", compiled.sql), &compiled.params)?;
            let current = ids(&format!("SELECT e.id FROM entries e WHERE {within}{judged}e.ignored = 1"), &[])?;
            let mut set = tx.prepare_cached("UPDATE entries SET ignored = ?2 WHERE id = ?1")?;
            let (mut hidden, mut shown) = (0, 0);
            for id in matching.difference(&current) {
                hidden += set.execute(rusqlite::params![id, true])?;
            }
            for id in current.difference(&matching) {
                shown += set.execute(rusqlite::params![id, false])?;
            }
            (hidden, shown)
        }
    };
    tx.execute("DELETE FROM entries_unjudged", [])?;
    super::preferences::set(&tx, FINGERPRINT, Some(&fingerprint))?;
    super::preferences::set(&tx, JUDGED_AT, Some(&now.to_string()))?;
    super::preferences::set(&tx, JUDGED_TO, Some(&newest.to_string()))?;
    super::preferences::set(&tx, READ, read.as_deref())?;
    tx.commit()?;
    Ok(changed)
}

/// What the judgement of `rule` depends on besides the entries and the time: the rule as SQL at a fixed time
/// (with the ids of the feeds its `feed` and `folder` conditions name, which a renamed or moved feed changes),
/// and this build's version (whose reading of a rule may differ). FNV-1a, in hex.
fn fingerprint(conn: &Connection, rule: &Query) -> Result<String, StoreError> {
    let compiled = compile(conn, rule, 0)?;
    let text =
        format!("{} {}\n{}\n{:?}", env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"), compiled.sql, compiled.params);
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    Ok(format!("{hash:016x}"))
}

/// What `rule` reads that can change after an entry is stored, for [`READ`]: always its fields, `text` when it
/// reads the indexed text, `flags` when it reads the read or starred flag.
fn what_it_reads(rule: &Query) -> String {
    fn flags(rule: &Query) -> bool {
        match rule {
            Query::And(qs) | Query::Or(qs) => qs.iter().any(flags),
            Query::Not(q) => flags(q),
            Query::Cond(c) => matches!(c.field, Field::Unread | Field::Starred),
        }
    }
    let mut read = String::from("fields");
    if rule.reads_text() {
        read.push_str(" text");
    }
    if flags(rule) {
        read.push_str(" flags");
    }
    read
}

/// The durations of the `age` conditions of `rule`: where an entry's answer can change with time alone.
fn ages(rule: &Query) -> Vec<i64> {
    match rule {
        Query::And(qs) | Query::Or(qs) => qs.iter().flat_map(ages).collect(),
        Query::Not(q) => ages(q),
        Query::Cond(Condition { field: Field::Age, value: QValue::Secs(secs), .. }) => vec![*secs],
        Query::Cond(_) => Vec::new(),
    }
}

fn catalog(conn: &Connection) -> Result<Vec<CatalogFeed>, StoreError> {
    let sql = format!(
        "{} SELECT f.id, coalesce(f.custom_title, f.title, f.url), f.url,
                (SELECT path FROM folder_paths p WHERE p.id = f.folder_id)
         FROM feeds f",
        super::places::FOLDER_PATHS
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let feeds = stmt
        .query_map([], |r| Ok(CatalogFeed { id: r.get(0)?, title: r.get(1)?, url: r.get(2)?, folder: r.get(3)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(feeds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Enclosure, NewFeed, ParsedEntry, UserWrite};
    use crate::query::parse;
    use crate::store::fixtures::fetched;
    use crate::store::{apply, fetches, search};
    use rusqlite::params_from_iter;

    const NOW: i64 = 1_767_225_600;

    /// Entries whose titles, authors, tags, media, dates and bodies vary over what rules look at.
    fn generated(feed: usize, n: usize) -> Vec<ParsedEntry> {
        let titles = ["Sponsored: café deals", "Rust 1.90 released", "Ünïcode über alles", "Weekly news", ""];
        let authors = ["Jane Doe", "JANE DOE", "Zoë", "", "X"];
        let bodies = [
            "<p>Open source software in Rust</p>",
            "<p>Ads and <b>sponsored</b> links</p><script>rust</script>",
            "<p>東京都庁 news</p>",
            "<p>nothing to see</p>",
        ];
        (0..n)
            .map(|i| ParsedEntry {
                key: format!("{feed}-{i}"),
                title: Some(titles[i % titles.len()].to_string()).filter(|t| !t.is_empty()),
                link: Some(format!("https://site{}.example/post/{i}", i % 3)),
                authors: Some(authors[(i / 2) % authors.len()].to_string())
                    .filter(|a| !a.is_empty())
                    .into_iter()
                    .collect(),
                published: chrono::DateTime::from_timestamp(NOW - (i as i64 % 20) * 86_400 - 3600, 0),
                updated: None,
                content_html: Some(bodies[(i / 3) % bodies.len()].to_string()),
                summary_html: None,
                categories: match i % 4 {
                    0 => vec!["Rust".into(), "news".into()],
                    1 => vec!["Podcast".into()],
                    _ => vec![],
                },
                enclosures: match i % 5 {
                    0 => vec![Enclosure {
                        url: "http://x/a.mp3".into(),
                        media_type: Some("audio/mpeg".into()),
                        length: None,
                    }],
                    1 => vec![Enclosure { url: "http://x/v".into(), media_type: None, length: None }],
                    _ => vec![],
                },
                comments: None,
                thumbnail: None,
            })
            .collect()
    }

    #[test]
    fn sql_and_memory_agree_on_every_rule() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = crate::store::open_write(&dir.path().join("t.db")).unwrap();
        let feeds = [
            ("Hacker News", "https://hnrss.org/frontpage", vec!["Tech", "News"]),
            ("Le Café", "http://cafe.example/rss", vec![]),
            ("Rust Blog", "https://blog.rust-lang.org/feed.xml", vec!["Tech"]),
        ];
        let mut all: Vec<(i64, ParsedEntry, &str, &str, Option<String>)> = Vec::new();
        for (f, (title, url, folder)) in feeds.iter().enumerate() {
            let new = NewFeed {
                url: url.to_string(),
                title: None,
                name: None,
                site_url: None,
                folder: folder.iter().map(|s| s.to_string()).collect(),
            };
            let crate::model::Applied::Subscribed { feed_id, .. } =
                apply(&mut conn, &UserWrite::AddFeed(new), 0).unwrap()
            else {
                panic!()
            };
            let entries = generated(f, 40);
            fetches::save(&mut conn, feed_id, &fetched(title, entries.clone()), NOW).unwrap();
            for e in entries {
                let id: i64 = conn.query_row("SELECT id FROM entries WHERE key = ?1", [&e.key], |r| r.get(0)).unwrap();
                let path = (!folder.is_empty()).then(|| folder.join("/"));
                all.push((id, e, title, url, path));
            }
        }
        conn.execute("UPDATE entries SET read = id % 3 = 0, starred = id % 7 = 0", []).unwrap();
        search::index_pending(&mut conn, usize::MAX).unwrap();
        let rules = [
            "title ~ \"sponsored\"",
            "title ~ cafe",
            "title = \"weekly news\"",
            "title != \"weekly news\"",
            "title !~ rust",
            "author = \"jane doe\"",
            "author = \"X\" and feed ~ \"hn\"",
            "author ~ zoe or author = \"\"",
            "age < 7d and unread",
            "age > 10d or starred",
            "published > 2025-12-25",
            "published = 2025-12-29",
            "published <= 2025-12-20",
            "text ~ \"open source\"",
            "text ~ rust",
            "text ~ 東京",
            "text ~ sponsor*",
            "text !~ rust and not starred",
            "rust",
            "\"jane doe\"",
            "feed = \"Le Cafe\"",
            "feed ~ rust-lang",
            "folder = tech",
            "folder = \"Tech/News\"",
            "folder ~ news or folder = \"\"",
            "folder != tech",
            "url ~ site1",
            "tag = rust",
            "tag ~ pod",
            "tag != rust",
            "enclosure",
            "not enclosure",
            "enclosure ~ audio",
            "enclosure = \"audio/mpeg\" or read",
            "unread = no",
            "starred != yes",
            "(title ~ rust or tag = podcast) and not (unread or age < 3d)",
            "title ~ ÜBER or author = \"zoe\"",
            "author ~ ZOË and not title ~ \"café\"",
            "feed ~ \"LE CAFÉ\" or folder ~ NEWS",
            "tag != RUST and title !~ über",
        ];
        // Each entry read once, as ingest reads it, and judged by every rule in turn: what one rule folds or
        // splits into words is what the next reads (and must not change its answer).
        // Per entry: read, starred, its title and its author.
        type Fields = (bool, bool, Option<String>, Option<String>);
        let fields: Vec<Fields> = all
            .iter()
            .map(|(id, e, ..)| {
                let (read, starred): (bool, bool) = conn
                    .query_row("SELECT read, starred FROM entries WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap();
                (read, starred, e.display_title(), (!e.authors.is_empty()).then(|| e.authors.join(", ")))
            })
            .collect();
        let entries: Vec<(i64, Entry<'_>)> = all
            .iter()
            .zip(&fields)
            .map(|((id, e, feed_title, feed_url, folder), (read, starred, title, author))| {
                let mut entry = Entry::new(feed_title, feed_url, folder.as_deref(), e.published.unwrap().timestamp());
                entry.title = title.as_deref();
                entry.author = author.as_deref();
                entry.link = e.link.as_deref();
                entry.tags = &e.categories;
                entry.enclosure_types = e.enclosures.iter().map(|x| x.media_type.as_deref().unwrap_or("")).collect();
                entry.unread = !read;
                entry.starred = *starred;
                entry.body_html = e.content_html.as_deref();
                (*id, entry)
            })
            .collect();
        for rule in rules {
            let query = parse(rule).unwrap();
            let compiled = compile(&conn, &query, NOW).unwrap();
            let sql = format!("SELECT e.id FROM entries e WHERE {} ORDER BY e.id", compiled.sql);
            let by_sql: Vec<i64> = conn
                .prepare(&sql)
                .unwrap()
                .query_map(params_from_iter(&compiled.params), |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let matcher = Matcher::new(&query);
            let mut in_memory: Vec<i64> =
                entries.iter().filter(|(_, entry)| matcher.matches(entry, NOW)).map(|(id, _)| *id).collect();
            in_memory.sort_unstable();
            assert_eq!(by_sql, in_memory, "{rule}: SQL and memory disagree ({})", compiled.sql);
            assert!(
                !by_sql.is_empty() && by_sql.len() < all.len(),
                "{rule} should split the entries: {}",
                by_sql.len()
            );
        }
        // All the rules as one (kill rules at ingest): an entry any of them matches.
        let queries: Vec<Query> = rules.iter().map(|r| parse(r).unwrap()).collect();
        let any = Matcher::any(&queries);
        for (id, entry) in &entries {
            let each = queries.iter().any(|q| q.matches(entry, NOW));
            assert_eq!(any.matches(entry, NOW), each, "entry {id}");
        }
    }

    /// The ids of the entries stored ignored.
    fn ignored_ids(conn: &Connection) -> Vec<i64> {
        let mut stmt = conn.prepare("SELECT id FROM entries WHERE ignored = 1 ORDER BY id").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    }

    fn id_of(conn: &Connection, key: &str) -> i64 {
        conn.query_row("SELECT id FROM entries WHERE key = ?1", [key], |r| r.get(0)).unwrap()
    }

    /// Stores entries as a sync does: not judged at ingest.
    fn store(conn: &mut Connection, feed: crate::model::FeedId, entries: Vec<ParsedEntry>) {
        fetches::save(conn, feed, &fetched("Feed", entries), NOW).unwrap();
    }

    /// A refresh or a sync that updates a stored entry sets its `ignored` flag from a guess (unread, unstarred; a
    /// sync: not ignored): the next judgement reads it again, so a hidden entry whose body changed stays hidden
    /// and a starred one a rule spares stays shown.
    #[test]
    fn an_entry_whose_ignored_flag_an_update_guessed_is_judged_again() {
        let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
        let entry = |key: &str, title: &str, body: &str| crate::store::fixtures::entry(key, title, body, NOW);
        store(&mut conn, feed, vec![entry("a", "Sponsored", "<p>1</p>"), entry("b", "Sponsored too", "<p>1</p>")]);
        let (a, b) = (id_of(&conn, "a"), id_of(&conn, "b"));
        let rules = [parse("title ~ sponsored and not starred").unwrap()];
        apply(&mut conn, &UserWrite::SetStarred { ids: vec![crate::model::EntryId(b)], starred: true }, NOW).unwrap();
        assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (1, 0));
        // The bodies change: stored as a sync stores (not ignored) for `a`, as ingest guessed (ignored) for `b`.
        store(&mut conn, feed, vec![entry("a", "Sponsored", "<p>2</p>")]);
        conn.execute("UPDATE entries SET ignored = 1 WHERE id = ?1", [b]).unwrap();
        assert_eq!(ignored_ids(&conn), vec![b]);
        assert_eq!(apply_rules(&mut conn, &rules, NOW + 60).unwrap(), (1, 1));
        assert_eq!(ignored_ids(&conn), vec![a]);
    }

    /// Ids come back: once the newest entries are deleted, SQLite gives their ids to the next ones stored, and
    /// those are judged as new all the same.
    #[test]
    fn entries_stored_under_ids_freed_by_a_delete_are_judged() {
        let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
        let entry = |key: &str, title: &str| crate::store::fixtures::entry(key, title, "<p>b</p>", NOW);
        store(&mut conn, feed, vec![entry("a", "News"), entry("b", "More news"), entry("c", "Other")]);
        let rules = [parse("title ~ sponsored").unwrap()];
        assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (0, 0));
        let freed = id_of(&conn, "c");
        conn.execute("DELETE FROM entries WHERE id >= ?1", [id_of(&conn, "b")]).unwrap();
        store(&mut conn, feed, vec![entry("a", "News"), entry("d", "Sponsored"), entry("e", "Sponsored too")]);
        assert!(id_of(&conn, "e") <= freed, "the ids were given again");
        assert_eq!(apply_rules(&mut conn, &rules, NOW + 60).unwrap(), (2, 0));
        assert_eq!(ignored_ids(&conn), vec![id_of(&conn, "d"), id_of(&conn, "e")]);
    }

    #[test]
    fn unchanged_rules_do_not_judge_old_entries_again_but_changed_rules_judge_them_all() {
        let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
        let entry = |key: &str, title: &str| crate::store::fixtures::entry(key, title, "<p>b</p>", NOW - 86_400);
        store(&mut conn, feed, vec![entry("a", "Sponsored: VPN"), entry("b", "News"), entry("c", "A sponsored post")]);
        let rules = [parse("title ~ sponsored").unwrap()];
        assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (2, 0));
        // Behind the store's back, an old entry loses its judgement: only a judgement of every entry would see it.
        let a = id_of(&conn, "a");
        conn.execute("UPDATE entries SET ignored = 0 WHERE id = ?1", [a]).unwrap();
        conn.execute("DELETE FROM entries_unjudged", []).unwrap();
        assert_eq!(apply_rules(&mut conn, &rules, NOW + 60).unwrap(), (0, 0), "the same rules judged old entries");
        assert_eq!(ignored_ids(&conn), vec![id_of(&conn, "c")]);
        // New entries are judged (stored here unjudged, as a sync stores them), old ones still are not.
        store(&mut conn, feed, vec![entry("d", "SPONSORED again")]);
        assert_eq!(apply_rules(&mut conn, &rules, NOW + 120).unwrap(), (1, 0));
        assert_eq!(ignored_ids(&conn), vec![id_of(&conn, "c"), id_of(&conn, "d")]);
        // A rule changed: every entry is judged again.
        let changed = [parse("title ~ sponsored").unwrap(), parse("title = news").unwrap()];
        assert_eq!(apply_rules(&mut conn, &changed, NOW + 180).unwrap(), (2, 0));
        assert_eq!(ignored_ids(&conn), vec![a, id_of(&conn, "b"), id_of(&conn, "c"), id_of(&conn, "d")]);
        // No rules: everything shows again; the same rules as before: judged again, all of them.
        assert_eq!(apply_rules(&mut conn, &[], NOW + 240).unwrap(), (0, 4));
        assert_eq!(apply_rules(&mut conn, &rules, NOW + 300).unwrap(), (3, 0));
    }

    /// Marking entries read and indexing them note nothing for the next judgement unless the rules read flags or
    /// text: with no kill rules (most people), or rules on titles only, they cost what they cost before.
    #[test]
    fn marks_and_indexing_are_noted_only_for_rules_that_read_them() {
        let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
        let entry = |key: &str| crate::store::fixtures::entry(key, "Post", "<p>b</p>", NOW);
        store(&mut conn, feed, vec![entry("a"), entry("b")]);
        let ids = vec![crate::model::EntryId(id_of(&conn, "a")), crate::model::EntryId(id_of(&conn, "b"))];
        let noted =
            |conn: &Connection| conn.query_row("SELECT count(*) FROM entries_unjudged", [], |r| r.get::<_, i64>(0));
        let mark = |conn: &mut Connection, read: bool| {
            apply(conn, &UserWrite::SetRead { ids: ids.clone(), read }, NOW).unwrap();
            search::index_pending(conn, usize::MAX).unwrap();
            noted(conn).unwrap()
        };
        for (rules, reads_marks) in [
            (vec![], false),
            (vec![parse("title ~ sponsored").unwrap()], false),
            (vec![parse("title ~ sponsored and unread").unwrap()], true),
        ] {
            apply_rules(&mut conn, &rules, NOW).unwrap();
            conn.execute("UPDATE entries SET search_indexed = 0", []).unwrap();
            assert_eq!(mark(&mut conn, true) > 0, reads_marks, "{rules:?}");
            apply_rules(&mut conn, &rules, NOW).unwrap();
            assert_eq!(mark(&mut conn, false) > 0, reads_marks, "{rules:?}");
        }
        // Rules that read the text note what the index reads.
        apply_rules(&mut conn, &[parse("text ~ giveaway").unwrap()], NOW).unwrap();
        conn.execute("UPDATE entries SET search_indexed = 0", []).unwrap();
        search::index_pending(&mut conn, usize::MAX).unwrap();
        assert_eq!(noted(&conn).unwrap(), 2);
    }

    #[test]
    fn a_feed_renamed_changes_what_a_feed_rule_catches_among_old_entries() {
        let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
        store(&mut conn, feed, vec![crate::store::fixtures::entry("a", "Post", "<p>b</p>", NOW)]);
        let rules = [parse("feed = \"Noise\"").unwrap()];
        assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (0, 0));
        conn.execute("UPDATE feeds SET custom_title = 'Noise' WHERE id = ?1", [feed.0]).unwrap();
        assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (1, 0), "the rule now names this feed");
    }

    #[test]
    fn entries_whose_flags_fields_or_indexed_text_changed_are_judged_again() {
        let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
        let entry = |key: &str, title: &str, body: &str| crate::store::fixtures::entry(key, title, body, NOW);
        store(&mut conn, feed, vec![entry("a", "Sponsored", "<p>x</p>"), entry("b", "Plain", "<p>a giveaway</p>")]);
        let (a, b) = (id_of(&conn, "a"), id_of(&conn, "b"));
        let rules = [parse("title ~ sponsored and not starred").unwrap()];
        assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (1, 0));
        apply(&mut conn, &UserWrite::SetStarred { ids: vec![crate::model::EntryId(a)], starred: true }, NOW).unwrap();
        assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (0, 1), "a starred entry is shown again");
        // A refresh that changes an entry's title: judged again.
        let changed = crate::store::fixtures::entry("b", "Sponsored now", "<p>a giveaway</p>", NOW);
        conn.execute("UPDATE entries SET ignored = 0", []).unwrap();
        store(&mut conn, feed, vec![entry("a", "Sponsored", "<p>x</p>"), changed]);
        assert_eq!(apply_rules(&mut conn, &rules, NOW).unwrap(), (1, 0));
        assert_eq!(ignored_ids(&conn), vec![b]);
        // Rules that read the text judge an entry once the index has read it.
        let text = [parse("text ~ giveaway").unwrap()];
        assert_eq!(apply_rules(&mut conn, &text, NOW).unwrap(), (0, 0), "not indexed: each kept as it was");
        assert_eq!(ignored_ids(&conn), vec![b]);
        store(&mut conn, feed, vec![entry("c", "Plain", "<p>another giveaway</p>")]);
        assert_eq!(apply_rules(&mut conn, &text, NOW).unwrap(), (0, 0), "not indexed yet");
        search::index_pending(&mut conn, usize::MAX).unwrap();
        assert_eq!(apply_rules(&mut conn, &text, NOW).unwrap(), (1, 0), "indexed since");
        assert_eq!(ignored_ids(&conn), vec![b, id_of(&conn, "c")]);
    }

    #[test]
    fn entries_that_age_past_a_rules_limit_are_judged_again_and_only_they_are_read() {
        let (_dir, mut conn, feed) = crate::store::fixtures::one_feed();
        let days = [1, 5, 9, 13, 29, 31, 40];
        let entries = days
            .iter()
            .map(|d| crate::store::fixtures::entry(&format!("d{d}"), "Post", "<p>b</p>", NOW - d * 86_400))
            .collect();
        store(&mut conn, feed, entries);
        let rules = [parse("age > 10d and age <= 30d").unwrap()];
        let caught = |conn: &Connection| -> Vec<i64> {
            let mut keys: Vec<i64> = ignored_ids(conn)
                .into_iter()
                .map(|id| {
                    let key: String =
                        conn.query_row("SELECT key FROM entries WHERE id = ?1", [id], |r| r.get(0)).unwrap();
                    key[1..].parse().unwrap()
                })
                .collect();
            keys.sort_unstable();
            keys
        };
        apply_rules(&mut conn, &rules, NOW).unwrap();
        assert_eq!(caught(&conn), vec![13, 29]);
        // Two days later: 9 days old became 11 (caught), 29 became 31 (shown again), as judging all would say.
        assert_eq!(apply_rules(&mut conn, &rules, NOW + 2 * 86_400).unwrap(), (1, 1));
        assert_eq!(caught(&conn), vec![9, 13]);
        // Only the entries near a limit were read: one far from both, unjudged behind the store's back, stays.
        let far = id_of(&conn, "d13");
        conn.execute("UPDATE entries SET ignored = 0 WHERE id = ?1", [far]).unwrap();
        conn.execute("DELETE FROM entries_unjudged", []).unwrap();
        assert_eq!(apply_rules(&mut conn, &rules, NOW + 2 * 86_400 + 3600).unwrap(), (0, 0));
        assert_eq!(caught(&conn), vec![9]);
    }
}
