//! podboat's download queue carried over into tidings's (`crate::store::downloads`): every line, in each of its
//! states. A file podboat downloaded and that is still on disk is `done`; a `.part` file beside it is queued again
//! (tidings resumes it when it can prove the file unchanged, else starts it over); a file podboat had and that is
//! gone is `failed` with why, so a retry downloads it again; a line with no mark is queued. Each is tied to its
//! entry when one of the carried-over entries has that enclosure. Running it twice adds nothing.

use super::NewsboatError;
use crate::store::downloads::{self as rows, State};
use std::path::{Path, PathBuf};
use tidings_core::newsboat::queue::{PodboatState, QueueLine, parse};

/// What the queue brought.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct QueueReport {
    pub lines: usize,
    pub imported: usize,
    /// Downloads queued before (the same address): left as they were.
    pub already: usize,
    /// Lines that are not a download, or could not be taken: (line, why).
    pub skipped: Vec<(usize, String)>,
}

/// Carries the queue file at `path` into the database `db`; a line without a file name gets one in
/// `download_dir`, as podboat would (the address's last part).
pub(super) fn import(db: &Path, path: &Path, download_dir: &Path) -> Result<QueueReport, NewsboatError> {
    let file = super::files::read(path)?;
    let (lines, skipped) = parse(&file.text);
    let mut report = QueueReport { lines: lines.len() + skipped.len(), ..QueueReport::default() };
    report.skipped.extend(file.skipped.into_iter().map(|(line, _, why)| (line, why)));
    report.skipped.extend(skipped.into_iter().map(|(line, _, why)| (line, why)));
    let mut conn = crate::store::open_write(db)?;
    let tx = conn.transaction().map_err(crate::store::StoreError::from)?;
    let now = chrono::Utc::now().timestamp();
    for line in &lines {
        match carry(&tx, line, download_dir, now) {
            Ok(true) => report.imported += 1,
            Ok(false) => report.already += 1,
            Err(why) => report.skipped.push((line.line, why)),
        }
    }
    tx.commit().map_err(crate::store::StoreError::from)?;
    report.skipped.sort();
    Ok(report)
}

/// One line into the queue: `Ok(false)` when its address was queued already.
fn carry(conn: &rusqlite::Connection, line: &QueueLine, download_dir: &Path, now: i64) -> Result<bool, String> {
    let url = &line.url;
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err("only http and https addresses are downloaded".into());
    }
    let path = match &line.file {
        Some(file) => PathBuf::from(file),
        None => {
            let last = url.split(['?', '#']).next().unwrap_or("").rsplit('/').next().unwrap_or("");
            let fields = tidings_core::filename::Fields { title: last, ..Default::default() };
            let name = tidings_core::filename::render("{title}", &fields).pop().unwrap_or_default();
            download_dir.join(name)
        }
    };
    let on_disk = std::fs::metadata(&path).ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
    let part = crate::downloads::part_of(&path).exists();
    let shown = path.display();
    let (state, reason) = match (line.state, on_disk) {
        (_, Some(_)) => (State::Done, None),
        (_, None) if part => (State::Queued, None),
        (PodboatState::Queued, None) => (State::Queued, None),
        (PodboatState::Missing, None) => {
            (State::Failed, Some(format!("podboat had lost the file ({shown}); retry to download it again")))
        }
        (PodboatState::Downloaded | PodboatState::Played | PodboatState::Finished, None) => {
            (State::Failed, Some(format!("podboat had downloaded it, but {shown} is gone; retry to download it again")))
        }
    };
    let found = rows::entry_with_enclosure(conn, url).map_err(|e| e.to_string())?;
    let (entry, feed, title, feed_title) = match found {
        Some((entry, feed, title, feed_title)) => (Some(entry), Some(feed), title, feed_title),
        None => {
            (None, None, path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), String::new())
        }
    };
    let title = crate::sanitize::one_line(&title, 300);
    let stored = path.to_string_lossy();
    let id = rows::insert(conn, entry, feed, url, None, &stored, state, &title, &feed_title, now)
        .map_err(|e| e.to_string())?;
    let Some(id) = id else { return Ok(false) };
    if let Some(size) = on_disk {
        rows::set_progress(conn, id, size, Some(size)).map_err(|e| e.to_string())?;
    }
    if reason.is_some() {
        rows::set_state(conn, id, state, reason.as_deref(), now).map_err(|e| e.to_string())?;
    }
    Ok(true)
}
