//! `tidings export`: every subscription as OPML 2.0, folders kept, to a file or standard output.

use crate::store::{self, feeds};
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
