//! `tidings list`: the lists the reader shows, for scripts — a saved view, a query, the unread or starred
//! entries of everything or of one feed, and what kill rules caught (`--ignored`).

use super::EXIT_USAGE;
use crate::config::Config;
use crate::model::{ListQuery, ListSource, Sort};
use crate::sanitize::one_line;
use crate::store;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// What `tidings list` was asked for.
#[derive(Debug, Default)]
pub(super) struct Asked<'a> {
    pub query: Option<&'a str>,
    pub view: Option<&'a str>,
    pub unread: bool,
    pub starred: bool,
    pub feed: Option<&'a str>,
    pub ignored: bool,
    pub json: bool,
}

/// The query `asked` stands for (its parts joined by `and`), or a message for a usage error.
fn query_of(config: &Config, asked: &Asked<'_>) -> Result<Option<String>, String> {
    let mut parts = Vec::new();
    if let Some(name) = asked.view {
        let view = config.views.iter().find(|v| v.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
            let names: Vec<String> = config.views.iter().map(|v| format!("\"{}\"", one_line(&v.name, 80))).collect();
            if names.is_empty() {
                format!("no view is named \"{}\": the config has no [[views]]", one_line(name, 80))
            } else {
                format!("no view is named \"{}\"; the views are {}", one_line(name, 80), names.join(", "))
            }
        })?;
        parts.push(view.query.get_ref().clone());
    }
    if let Some(query) = asked.query {
        crate::query::parse(query).map_err(|e| format!("--query: {e}"))?;
        parts.push(query.to_string());
    }
    if asked.unread {
        parts.push("unread".into());
    }
    if asked.starred {
        parts.push("starred".into());
    }
    if let Some(feed) = asked.feed {
        parts.push(format!("feed = {}", crate::query::quote(feed)));
    }
    Ok(match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ => Some(parts.iter().map(|p| format!("({p})")).collect::<Vec<_>>().join(" and ")),
    })
}

pub(super) fn run(db: &Path, config: &Config, asked: &Asked<'_>) -> anyhow::Result<ExitCode> {
    let query = match query_of(config, asked) {
        Ok(query) => query,
        Err(message) => {
            note!("tidings: {message}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let mut conn = store::open_write(db)?;
    // What the index has not read yet, and kill rules changed since the last refresh, count too.
    store::search::index_pending(&mut conn, usize::MAX)?;
    store::query::apply_rules(&mut conn, &config.kill_rules(), chrono::Utc::now().timestamp())?;
    let within = query.clone().map(|query| ListSource::Query { query, within: None });
    let source = match (asked.ignored, within) {
        (true, within) => ListSource::Ignored { within: within.map(Box::new) },
        (false, Some(source)) => source,
        (false, None) => ListSource::All,
    };
    let refs = store::lists::entry_refs(&conn, &ListQuery { source, sort: Sort::Newest, unread_only: false })?;
    let ids: Vec<_> = refs.iter().map(|r| r.id).collect();
    let rows = store::entries::entry_rows(&conn, &ids)?;
    let feeds = store::feeds::feeds(&conn)?;
    let by_id: std::collections::HashMap<_, _> = feeds.iter().map(|f| (f.id, f)).collect();
    let mut out = std::io::stdout().lock();
    if asked.json {
        let entries: Vec<_> = rows
            .iter()
            .map(|r| {
                let feed = by_id.get(&r.feed_id);
                serde_json::json!({
                    "id": r.id, "feed_id": r.feed_id, "feed": feed.map(|f| one_line(&f.title, 300)),
                    "feed_url": feed.map(|f| &f.url), "title": r.title.as_deref().map(|t| one_line(t, 1000)),
                    "link": r.link, "date": chrono::DateTime::from_timestamp(r.date, 0).map(|d| d.to_rfc3339()),
                    "read": r.read, "starred": r.starred,
                })
            })
            .collect();
        let json =
            serde_json::json!({"query": query, "ignored": asked.ignored, "count": rows.len(), "entries": entries});
        writeln!(out, "{json}")?;
    } else {
        for r in &rows {
            let feed = by_id.get(&r.feed_id).map_or(String::new(), |f| one_line(&f.title, 60));
            let title = one_line(r.title.as_deref().unwrap_or("(untitled)"), 200);
            let link = r.link.as_deref().map_or(String::new(), |l| format!("  {}", one_line(l, 500)));
            let flag = if r.read { ' ' } else { '●' };
            writeln!(out, "{flag} {}  {feed}  {title}{link}", super::local_zone().date(r.date))?;
        }
        note!("{} {}", rows.len(), if rows.len() == 1 { "entry" } else { "entries" });
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
