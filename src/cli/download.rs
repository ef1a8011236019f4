//! `tidings download`: queues the enclosures of the entries asked for (a query, a feed, ids) and runs the
//! download queue to its end, progress on standard error; `tidings downloads`: the queue as it stands.

use super::{EXIT_SOME_FAILED, EXIT_USAGE};
use crate::config::Config;
use crate::downloads::{DownloadEvent, DownloadObserver, bytes};
use crate::model::{EntryId, ListQuery, ListSource, Sort};
use crate::sanitize::one_line;
use crate::session::{Role, Session};
use crate::store::downloads::{Download, State};
use crate::store::{self, lists};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What `tidings download` was asked for.
pub(super) struct Asked {
    pub query: Option<String>,
    pub feed: Option<String>,
    pub ids: Vec<i64>,
    /// Failed and paused downloads go back in the queue first.
    pub retry: bool,
    pub json: bool,
}

/// How far each running download is (done, total), and when the progress line was last written.
type Running = (HashMap<i64, (u64, Option<u64>)>, Instant);

/// Progress on standard error: a line when a file starts and when it ends; on a terminal, how far the files
/// running are, on one line rewritten at most a few times a second.
struct Progress {
    on_terminal: bool,
    names: HashMap<i64, String>,
    state: Mutex<Running>,
}

impl DownloadObserver for Progress {
    fn event(&self, event: DownloadEvent) {
        let name = |id: i64| self.names.get(&id).cloned().unwrap_or_else(|| format!("download {id}"));
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let clear = if self.on_terminal { "\r\x1b[K" } else { "" };
        match event {
            DownloadEvent::Started { id } => note!("{clear}downloading {}", name(id)),
            DownloadEvent::Progress { id, done, total } => {
                state.0.insert(id, (done, total));
                if self.on_terminal && state.1.elapsed().as_millis() >= 250 {
                    state.1 = Instant::now();
                    let line: Vec<String> = state
                        .0
                        .values()
                        .map(|(done, total)| match total {
                            Some(total) => format!("{} of {}", bytes(*done), bytes(*total)),
                            None => bytes(*done),
                        })
                        .collect();
                    note_part!("{clear}{}", line.join(" · "));
                }
            }
            DownloadEvent::Ended { id, state: ended, reason } => {
                state.0.remove(&id);
                match reason {
                    Some(why) => note!("{clear}{} {}: {why}", ended.as_str(), name(id)),
                    None => note!("{clear}{} {}", ended.as_str(), name(id)),
                }
            }
        }
    }
}

pub(super) async fn run(db: &Path, config: &Config, asked: Asked) -> anyhow::Result<ExitCode> {
    if let Some(query) = &asked.query
        && let Err(e) = crate::query::parse(query)
    {
        note!("tidings: --query: {e}");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let session = Session::open(db, config.session_settings(), Role::Command)?;
    let query = match (&asked.query, &asked.feed) {
        (Some(query), _) => Some(query.clone()),
        (None, Some(feed)) => Some(format!("feed = {}", crate::query::quote(feed))),
        (None, None) => None,
    };
    let ids: Vec<EntryId> = match query {
        Some(query) => {
            let source = ListSource::Query { query, within: None };
            let list = ListQuery { source, sort: Sort::Oldest, unread_only: false };
            let refs = session.writer().call(move |c| lists::entry_refs(c, &list)).await?;
            refs.into_iter().map(|r| r.id).collect()
        }
        None => asked.ids.iter().map(|id| EntryId(*id)).collect(),
    };
    let asked_for_some = asked.query.is_some() || asked.feed.is_some() || !asked.ids.is_empty();
    let queued = session.downloads().queue(ids).await?;
    let waiting = |d: &Download| matches!(d.state, State::Failed | State::Paused);
    if asked.retry {
        for download in session.downloads().list().await?.iter().filter(|d| waiting(d)) {
            session.downloads().resume(download.id).await?;
        }
    }
    for (url, why) in &queued.refused {
        note!("tidings: not queued: {url}: {why}");
    }
    if asked_for_some && queued.added.is_empty() && queued.already == 0 && queued.refused.is_empty() {
        note!("tidings: those entries have no enclosure to download");
    }
    let ended = run_queue(&session).await?;
    let failed = ended.iter().filter(|d| d.state != State::Done).count() + queued.refused.len();
    if asked.json {
        let json = serde_json::json!({
            "queued": queued.added.len(), "already_queued": queued.already,
            "refused": queued.refused.iter().map(|(url, why)| serde_json::json!({"url": url, "why": why}))
                .collect::<Vec<_>>(),
            "downloads": ended,
        });
        let mut out = std::io::stdout().lock();
        writeln!(out, "{json}")?;
        out.flush()?;
    } else if ended.is_empty() && queued.refused.is_empty() {
        // Nothing ran: say what is left, and how to take it up again.
        let left = session.downloads().list().await?;
        let count = |state: State| left.iter().filter(|d| d.state == state).count();
        let (failed, paused) = (count(State::Failed), count(State::Paused));
        if failed + paused == 0 {
            note!("nothing queued to download");
        } else {
            note!(
                "nothing queued to download; {failed} failed and {paused} paused earlier (`tidings downloads` says \
                 why; `tidings download --retry` tries them again)"
            );
        }
    } else {
        let done = ended.len() - ended.iter().filter(|d| d.state != State::Done).count();
        note!("{done} downloaded, {failed} not");
    }
    Ok(if failed > 0 { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

/// Runs the queue to its end with progress on standard error (see [`Progress`]): the rows of the downloads that
/// ran, as they ended.
pub(super) async fn run_queue(session: &Session) -> anyhow::Result<Vec<Download>> {
    let names = session
        .downloads()
        .list()
        .await?
        .into_iter()
        .map(|d| (d.id, format!("\"{}\" ({})", one_line(&d.title, 80), one_line(&d.feed_title, 40))))
        .collect();
    let progress = Arc::new(Progress {
        on_terminal: std::io::stderr().is_terminal(),
        names,
        state: Mutex::new((HashMap::new(), Instant::now())),
    });
    Ok(session.download(progress).await?)
}

/// `tidings downloads`: every download, oldest first (read-only).
pub(super) fn list(db: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let conn = store::open_existing_read_only(db)?;
    let rows = store::downloads::all(&conn)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(&rows)?)?;
    } else {
        for row in &rows {
            writeln!(out, "{}", line(row))?;
        }
        note!("{} {}", rows.len(), if rows.len() == 1 { "download" } else { "downloads" });
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// One download on a line: its state, how far it got, its feed and title, its file, and why.
fn line(row: &Download) -> String {
    let size = match (row.state, row.bytes_total) {
        (State::Done, _) => bytes(row.bytes_done),
        (_, Some(total)) => format!("{} of {}", bytes(row.bytes_done), bytes(total)),
        (_, None) => bytes(row.bytes_done),
    };
    let why = row.reason.as_deref().map(|r| format!(" ({})", one_line(r, 200))).unwrap_or_default();
    format!(
        "{:<11} {:>20}  {}: {}  {}{why}",
        row.state.as_str(),
        size,
        one_line(&row.feed_title, 40),
        one_line(&row.title, 80),
        one_line(&row.path, 300)
    )
}
