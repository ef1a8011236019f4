//! The query language in SQL: a parsed [`Query`] (the core's `query` module) becomes one condition on
//! `entries e` with its parameters. `text ~` and bare words go through the FTS5 index; titles, authors and links
//! are compared folded (case, diacritics, widths) by two functions registered on every connection
//! ([`register_functions`]); a feed or a folder is resolved to the ids of the feeds it names, once per query,
//! from the feed list (a few thousand rows), so that the entries are read by the feed index.
//!
//! The same conditions read in memory ([`Query::matches`], a kill rule at ingest) give the same answers: the
//! tests below check one against the other over generated entries.

use super::StoreError;
use crate::query::{Condition, Entry, Field, Op, Query, Value as QValue, date_range};
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
        let query = Query::Cond(c.clone());
        let now = self.now;
        Ok(self
            .catalog
            .iter()
            .flatten()
            .filter(|f| query.matches(&Entry::new(&f.title, &f.url, f.folder.as_deref(), now), now))
            .map(|f| f.id)
            .collect())
    }
}

/// Makes `ignored` say exactly which stored entries the kill rules match now: those newly matched are hidden,
/// those no longer matched (a rule changed or went) are shown again. With rules that read the text, only
/// entries the index has read are judged (the others keep what ingest decided). Returns how many were hidden
/// and how many shown again.
pub fn apply_rules(conn: &mut Connection, rules: &[Query], now: i64) -> Result<(usize, usize), StoreError> {
    use std::collections::HashSet;
    let tx = conn.transaction()?;
    let changed = match Query::any(rules.to_vec()) {
        None => (0, tx.execute("UPDATE entries SET ignored = 0 WHERE ignored = 1", [])?),
        Some(rule) => {
            let compiled = compile(&tx, &rule, now)?;
            let judged = if rule.reads_text() { " AND e.search_indexed = 1" } else { "" };
            let ids = |sql: &str, params: &[Value]| -> Result<HashSet<i64>, StoreError> {
                let mut stmt = tx.prepare(sql)?;
                let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| r.get(0))?;
                Ok(rows.collect::<Result<_, _>>()?)
            };
            let matching =
                ids(&format!("SELECT e.id FROM entries e WHERE ({}){judged}", compiled.sql), &compiled.params)?;
            let current = ids(&format!("SELECT e.id FROM entries e WHERE e.ignored = 1{judged}"), &[])?;
            let mut set = tx.prepare("UPDATE entries SET ignored = ?2 WHERE id = ?1")?;
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
    tx.commit()?;
    Ok(changed)
}

fn catalog(conn: &Connection) -> Result<Vec<CatalogFeed>, StoreError> {
    let sql = format!(
        "{} SELECT f.id, coalesce(f.custom_title, f.title, f.url), f.url,
                (SELECT path FROM folder_paths p WHERE p.id = f.folder_id)
         FROM feeds f",
        super::feeds::FOLDER_PATHS
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
        ];
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
            let mut in_memory = Vec::new();
            for (id, e, feed_title, feed_url, folder) in &all {
                let (read, starred): (bool, bool) = conn
                    .query_row("SELECT read, starred FROM entries WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap();
                let title = e.display_title();
                let author = (!e.authors.is_empty()).then(|| e.authors.join(", "));
                let mut entry = Entry::new(feed_title, feed_url, folder.as_deref(), e.published.unwrap().timestamp());
                entry.title = title.as_deref();
                entry.author = author.as_deref();
                entry.link = e.link.as_deref();
                entry.tags = &e.categories;
                entry.enclosure_types = e.enclosures.iter().map(|x| x.media_type.as_deref().unwrap_or("")).collect();
                entry.unread = !read;
                entry.starred = starred;
                entry.body_html = e.content_html.as_deref();
                if query.matches(&entry, NOW) {
                    in_memory.push(*id);
                }
            }
            in_memory.sort_unstable();
            assert_eq!(by_sql, in_memory, "{rule}: SQL and memory disagree ({})", compiled.sql);
            assert!(
                !by_sql.is_empty() && by_sql.len() < all.len(),
                "{rule} should split the entries: {}",
                by_sql.len()
            );
        }
    }
}
