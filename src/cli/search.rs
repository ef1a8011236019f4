//! `tidings search QUERY`: the cache's full-text search, for scripts and people.

use super::{EXIT_SOME_FAILED, EXIT_USAGE};
use crate::sanitize::one_line;
use crate::store::{self, StoreError};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

/// `tidings search`: indexes what the last refreshes added, then prints the matches, newest first. Exit 0 with
/// matches, 3 with none, 2 when the query (or `--feed`) means nothing.
pub(super) fn run(db: &Path, query: &str, json: bool, feed: Option<&str>, unread: bool) -> anyhow::Result<ExitCode> {
    let conn = indexed(db)?;
    let feeds = store::feeds::feeds(&conn)?;
    let within = match feed {
        None => None,
        Some(wanted) => {
            let by_url = feeds.iter().find(|f| f.url == wanted);
            let by_title = || feeds.iter().find(|f| f.title.to_lowercase() == wanted.to_lowercase());
            match by_url.or_else(by_title) {
                Some(f) => Some(crate::model::ListSource::Feed(f.id)),
                None => {
                    note!(
                        "tidings: no feed has the address or name '{}'; `tidings unread` lists them",
                        one_line(wanted, 200)
                    );
                    return Ok(ExitCode::from(EXIT_USAGE));
                }
            }
        }
    };
    let refs = match store::lists::search(&conn, query, within.as_ref(), unread, crate::model::Sort::Newest) {
        Ok(refs) => refs,
        Err(StoreError::Query(e)) => {
            note!("tidings: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        Err(e) => return Err(e.into()),
    };
    let ids: Vec<_> = refs.iter().map(|r| r.id).collect();
    let rows = store::entries::entry_rows(&conn, &ids)?;
    let printed = super::Printed::new(&feeds);
    let mut out = std::io::stdout().lock();
    if json {
        let entries = printed.json(&rows);
        writeln!(out, "{}", serde_json::json!({"query": query, "matches": rows.len(), "entries": entries}))?;
    } else {
        for r in &rows {
            writeln!(out, "{}", printed.line(r))?;
        }
        note!("{} {} found", rows.len(), if rows.len() == 1 { "entry" } else { "entries" });
        if let Some(hint) = Some(query).filter(|_| rows.is_empty()).and_then(crate::query::word_hint) {
            note!("{hint}");
        }
    }
    Ok(if rows.is_empty() { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

/// The database with what the last refreshes added indexed for search first; one this user may only read (or
/// on a full disk) is searched as it is, and what is not indexed is said.
pub(super) fn indexed(db: &Path) -> anyhow::Result<rusqlite::Connection> {
    use crate::store::search::{index_pending, pending_count};
    let indexed = store::open_write(db).and_then(|mut conn| {
        let pending = pending_count(&conn)?;
        if pending > 5_000 && std::io::stderr().is_terminal() {
            note!("Indexing {pending} new entries for search…");
        }
        index_pending(&mut conn, usize::MAX)?;
        Ok(conn)
    });
    let conn = match indexed {
        Ok(conn) => conn,
        // A database this user may only read (or on a full disk) is searched as it is: what the last refreshes
        // added is not indexed yet, and cannot be, so it is not found (said, with how many).
        Err(e) if e.cannot_write() => {
            let conn = store::open_existing_read_only(db)?;
            let pending = pending_count(&conn)?;
            if pending > 0 {
                note!(
                    "tidings: {} cannot be written ({e}), so the {pending} entries added since the last search \
                     are not indexed and not searched",
                    db.display()
                );
            }
            conn
        }
        Err(e) => return Err(e.into()),
    };
    Ok(conn)
}
