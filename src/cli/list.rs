//! `tidings list`: the lists the reader shows, for scripts — a saved view, a query, the unread or starred
//! entries of everything or of one feed, and what kill rules caught (`--ignored`). With `--after CURSOR`, only
//! what was stored after the cursor, oldest first, and the next cursor: a script that keeps the cursor between
//! runs consumes every new entry exactly once, whatever runs beside it (the daemon storing as it reads).

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
    pub after: Option<&'a str>,
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
    let after = match asked.after.map(str::trim).map(str::parse::<i64>) {
        None => None,
        Some(Ok(cursor)) if cursor >= 0 => Some(cursor),
        Some(_) => {
            note!(
                "tidings: --after takes the `cursor` a previous `tidings list --after` or `--json` printed (a number)"
            );
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
    // One snapshot for the list and the cursor: what is stored while it is read is after both.
    let snapshot = conn.transaction()?;
    let cursor = crate::refresh::notify::newest_entry(&snapshot)?;
    let refs = store::lists::entry_refs(&snapshot, &ListQuery { source, sort: Sort::Newest, unread_only: false })?;
    let mut ids: Vec<_> = refs.iter().map(|r| r.id).collect();
    if let Some(after) = after {
        // Ids grow in the order entries are stored: those past the cursor are new, and go oldest first.
        ids.retain(|id| id.0 > after && id.0 <= cursor);
        ids.sort_unstable();
    }
    let rows = store::entries::entry_rows(&snapshot, &ids)?;
    let feeds = store::feeds::feeds(&snapshot)?;
    snapshot.commit()?;
    let printed = super::Printed::new(&feeds);
    let mut out = std::io::stdout().lock();
    if asked.json {
        let entries = printed.json(&rows);
        let json = serde_json::json!({
            "query": query, "ignored": asked.ignored, "count": rows.len(), "entries": entries,
            "cursor": cursor.to_string(),
        });
        writeln!(out, "{json}")?;
    } else {
        for r in &rows {
            let flag = if r.read { ' ' } else { '●' };
            writeln!(out, "{flag} {}", printed.line(r))?;
        }
        note!("{} {}", rows.len(), if rows.len() == 1 { "entry" } else { "entries" });
        if let Some(hint) = asked.query.filter(|_| rows.is_empty()).and_then(crate::query::word_hint) {
            note!("{hint}");
        }
        if asked.after.is_some() {
            note!("next cursor: {cursor} (tidings list --after {cursor})");
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
