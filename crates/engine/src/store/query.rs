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
/// text, folded, contains (is) the folded value. NULL reads as the empty text. `tidings_media_type(url)` is the
/// media type an enclosure's address names (`model::media_type_of`), for enclosures without one. Also `tidings_shown_url(url)`,
/// the address with its password hidden (`sanitize::without_password`): what a feed with no title is called,
/// on screen, in reports, hooks and exports, so that a private feed's password is never its name.
pub(super) fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("tidings_media_type", 1, flags, |ctx| {
        Ok(ctx.get_raw(0).as_str_or_null().ok().flatten().and_then(crate::model::media_type_of))
    })?;
    conn.create_scalar_function("tidings_shown_url", 1, flags, |ctx| {
        Ok(ctx
            .get_raw(0)
            .as_str_or_null()
            .ok()
            .flatten()
            .map(|url| crate::sanitize::without_password(url).into_owned()))
    })?;
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
            (Field::FeedTag, QValue::Text { .. }) => {
                let p = self.param(Value::Text(c.value.folded()));
                format!("EXISTS (SELECT 1 FROM feed_tags t WHERE t.feed_id = e.feed_id AND {function}(t.tag, {p}))")
            }
            (Field::Enclosure, QValue::Text { .. }) => {
                let p = self.param(Value::Text(c.value.folded()));
                format!(
                    "EXISTS (SELECT 1 FROM json_each(e.enclosures) j WHERE {function}(coalesce(\
                     CASE WHEN trim(json_extract(j.value, '$.media_type')) != '' \
                     THEN json_extract(j.value, '$.media_type') END, \
                     tidings_media_type(json_extract(j.value, '$.url'))), {p}))"
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
                if op == "!=" { format!("e.sort_at != {at}") } else { by_date(&format!("e.sort_at {op} {at}")) }
            }
            (Field::Published, QValue::Time { at, day }) => match date_range(c.op, *at, *day) {
                (Some(from), Some(to)) => by_date(&format!("e.sort_at >= {from} AND e.sort_at < {to}")),
                (Some(from), None) => by_date(&format!("e.sort_at >= {from}")),
                (None, Some(to)) => by_date(&format!("e.sort_at < {to}")),
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
                        let near = by_date("e.sort_at BETWEEN ?1 AND ?2");
                        tx.prepare_cached(&format!(
                            "INSERT OR IGNORE INTO entries_unjudged (entry_id) SELECT e.id FROM entries e WHERE {near}"
                        ))?
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
        "{} SELECT f.id, coalesce(f.custom_title, f.title, tidings_shown_url(f.url)), f.url,
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

/// A condition on entries' dates that SQLite answers from the index by feed and date, a range of dates per feed,
/// rather than by reading every row: there is no index of every entry by date (see
/// `schema::later::NO_INDEX_BY_DATE`), and without statistics, or with few entries per feed, SQLite would not
/// think of skipping through that index on its own. Every entry's feed is in `feeds`: the condition on the feed
/// only names the index's first column.
fn by_date(condition: &str) -> String {
    format!("(e.feed_id IN (SELECT id FROM feeds) AND {condition})")
}

#[cfg(test)]
mod tests;
