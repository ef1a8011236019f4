//! `tidings unread`: the unread count of every feed, and the total (read-only).

use crate::sanitize::one_line;
use crate::store::{self, feeds};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub(super) fn run(db: &Path) -> anyhow::Result<ExitCode> {
    let conn = store::open_existing_read_only(db)?;
    let feeds = feeds::feeds(&conn)?;
    let total: i64 = feeds.iter().map(|f| f.unread).sum();
    let width = total.to_string().len().max(3);
    let mut out = std::io::stdout().lock();
    for feed in &feeds {
        writeln!(out, "{:>width$}  {}", feed.unread, one_line(&feed.title, 200))?;
    }
    writeln!(out, "{total:>width$}  total")?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
