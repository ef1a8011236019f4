//! `tidings export`: every subscription as OPML 2.0, folders kept, to a file or standard output; or, with
//! `--markdown DIR`, entries as Markdown files (every entry, or those `--query` matches).

use super::{EXIT_SOME_FAILED, EXIT_USAGE};
use crate::store::{self, StoreError, feeds};
use anyhow::Context;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub(super) fn run(db: &Path, output: Option<&Path>) -> anyhow::Result<ExitCode> {
    let conn = store::open_existing_read_only(db)?;
    let doc = feeds::export_doc(&conn)?;
    let xml = crate::opml::write("tidings subscriptions", &doc, chrono::Utc::now());
    match output {
        Some(path) => std::fs::write(path, xml).with_context(|| format!("cannot write {}", path.display()))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(xml.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `tidings export --markdown DIR [--query Q] [--path TEMPLATE]`: a Markdown file per entry under DIR; prints
/// each file written, says the ones that could not be. Exit 0 when all were written, 3 when some were not, 2
/// when the query or the template means nothing.
pub(super) fn markdown(db: &Path, dir: &Path, query: Option<&str>, template: &str) -> anyhow::Result<ExitCode> {
    // A missing database is said (and not created) before anything else.
    let conn = store::open_existing_read_only(db)?;
    if let Err(e) = crate::markdown::check_template(template) {
        note!("tidings: {e}");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let (conn, ids): (_, Vec<_>) = match query {
        // What the last refreshes added is indexed first, as `tidings search` does.
        // The query language of `list --query` and `:mark` (bare words search, as the search prompt does).
        Some(q) => {
            if let Err(e) = crate::query::parse(q) {
                note!("tidings: --query: {e}");
                return Ok(ExitCode::from(EXIT_USAGE));
            }
            let conn = super::search::indexed(db)?;
            let source = crate::model::ListSource::Query { query: q.to_string(), within: None };
            let matching = crate::model::ListQuery { source, sort: crate::model::Sort::Newest, unread_only: false };
            match store::lists::entry_refs(&conn, &matching) {
                Ok(refs) => (conn, refs.into_iter().map(|r| r.id).collect()),
                Err(StoreError::Query(e)) => {
                    note!("tidings: --query: {e}");
                    return Ok(ExitCode::from(EXIT_USAGE));
                }
                Err(e) => return Err(e.into()),
            }
        }
        None => {
            use crate::model::{ListQuery, ListSource, Sort};
            let every = ListQuery { source: ListSource::All, sort: Sort::Newest, unread_only: false };
            let ids = store::lists::entry_refs(&conn, &every)?.into_iter().map(|r| r.id).collect();
            (conn, ids)
        }
    };
    let done = crate::export::to_files(&conn, &ids, dir, template)?;
    let mut out = std::io::stdout().lock();
    for file in &done.written {
        writeln!(out, "{}", dir.join(file).display())?;
    }
    for why in &done.failed {
        note!("tidings: not written: {why}");
    }
    let n = done.written.len();
    note!("{n} {} exported as Markdown to {}", if n == 1 { "entry" } else { "entries" }, dir.display());
    if let Some(hint) = query.filter(|_| ids.is_empty()).and_then(crate::query::word_hint) {
        note!("{hint}");
    }
    Ok(if done.failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}
