//! `tidings refresh`: the reader's refresh, headless — every local feed, the new entries of full-text feeds in
//! full, retention's purge, then a sync of every account (unless `--no-sync`) — with progress on standard error
//! and a summary (or JSON) on standard output, a line per account among it.

use super::sync::{Told, accounts_json, any_failed, say_accounts};
use super::{EXIT_ERROR, EXIT_SOME_FAILED};
use crate::config::Config;
use crate::model::{EntryId, ErrorKind, Skip};
use crate::refresh::{Observer, RefreshEvent};
use crate::sanitize::{one_line, shown_address, without_password};
use crate::session::{Role, Session};
use crate::store::{self, DbThread, entries, feeds};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Progress on standard error, and the pages that gave no article, for the report.
struct Progress {
    total: usize,
    done: AtomicUsize,
    on_terminal: bool,
    refused: Mutex<Vec<(EntryId, String)>>,
}

impl Observer for Progress {
    fn feed(&self, event: RefreshEvent) {
        if event.is_final() && self.on_terminal {
            let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            note_part!("\rRefreshing {n}/{}", self.total);
            if n == self.total {
                note!("");
            }
        }
    }

    fn full_text(&self, entry_id: EntryId, result: &Result<String, String>) {
        if let Err(why) = result {
            self.refused.lock().unwrap_or_else(|e| e.into_inner()).push((entry_id, why.clone()));
        }
    }
}

/// Why a feed was left alone, for this report (the reader says it with its own keys).
fn skip_reason(skip: Skip, now: i64) -> String {
    match skip {
        Skip::Gone => {
            "the feed is gone (HTTP 410); it is tried once a day (refresh --force tries it anyway)".to_string()
        }
        Skip::Paused => "paused (`tidings health` or the reader's health view resumes it)".to_string(),
        Skip::Waiting { until } => {
            format!(
                "waiting until {} before trying again (refresh --force tries it anyway)",
                super::local_zone().moment(until, now)
            )
        }
    }
}

pub(super) async fn run(db: &Path, config: &Config, json: bool, force: bool, sync: bool) -> anyhow::Result<ExitCode> {
    // New entries are not indexed for search here: `tidings search` indexes them before it looks, and the
    // reader in the background, so a first refresh of thousands of feeds does not wait on indexing.
    let session = Session::open(db, config.session_settings(), Role::Command)?;
    let writer = session.writer();
    // The feeds are counted for the progress line, which only a terminal shows: a refresh from cron or a script
    // does not wait for the count (a query of the feeds table, 0.2–0.6 ms of 1000 feeds, before the first request).
    let on_terminal = std::io::stderr().is_terminal();
    let total = if on_terminal { writer.call(|c| feeds::refresh_target_count(c)).await? } else { 0 };
    let progress = Arc::new(Progress { total, done: AtomicUsize::new(0), on_terminal, refused: Mutex::default() });
    let (outcome, synced) = session.refresh_and_sync(force, sync, progress.clone(), &Told).await;
    // `auto_download`: the new episodes come down now, their progress on standard error.
    if !outcome.episodes.is_empty() {
        let queued = session.downloads().queue(outcome.episodes.clone()).await?;
        for (url, why) in &queued.refused {
            note!("tidings: not queued: {url}: {why}");
        }
        if !queued.added.is_empty() {
            let ended = super::download::run_queue(&session).await?;
            let done = ended.iter().filter(|d| d.state == store::downloads::State::Done).count();
            note!("{done} of {} new episodes downloaded (auto_download)", ended.len());
        }
    }
    let summary = outcome.refreshed.map_err(anyhow::Error::msg)?;
    let purged = outcome.purged?;
    let full_text = outcome.full_texts;
    if let Err(e) = &outcome.notified {
        note!("tidings: {}", one_line(e, 1000));
    }
    let refused = std::mem::take(&mut *progress.refused.lock().unwrap_or_else(|e| e.into_inner()));
    let full_tried = full_text.as_ref().map_or(0, |tried| *tried);
    let refused = describe_pages(writer, refused).await;
    let now = chrono::Utc::now().timestamp();
    let failures: Vec<(&str, &str, &str, &str)> = summary
        .failed
        .iter()
        .filter_map(|ev| match ev {
            RefreshEvent::Failed { title, url, kind, message, .. } => {
                Some((title.as_str(), url.as_str(), kind.as_str(), message.as_str()))
            }
            _ => None,
        })
        .collect();
    let skipped: Vec<(&str, String)> = summary
        .skipped
        .iter()
        .filter_map(|ev| match ev {
            RefreshEvent::Skipped { title, reason, .. } => Some((title.as_str(), skip_reason(*reason, now))),
            _ => None,
        })
        .collect();
    // Feeds the database would not take (a full disk, a file that cannot be written) fail for one reason: that is
    // database trouble (exit 1), said once, not once per feed.
    let (unsaved, failures): (Vec<_>, Vec<_>) =
        failures.into_iter().partition(|(_, _, kind, _)| *kind == ErrorKind::Store.as_str());
    // Counting the entries not indexed for search reads every one of them: only for the JSON that reports it.
    let not_indexed = if json { Some(writer.call(|c| store::search::pending_count(c)).await?) } else { None };
    let mut out = std::io::stdout().lock();
    if json {
        let value = serde_json::json!({
            "feeds": summary.feeds,
            "updated": summary.updated_feeds,
            "not_modified": summary.not_modified,
            "new_entries": summary.new_entries,
            "failed": failures.iter().map(|(title, url, kind, message)| serde_json::json!({
                "title": one_line(title, 300), "url": shown_address(url), "kind": kind, "message": one_line(message, 1000),
            })).collect::<Vec<_>>(),
            "not_saved": unsaved.iter().map(|(title, url, _, message)| serde_json::json!({
                "title": one_line(title, 300), "url": shown_address(url), "message": one_line(message, 1000),
            })).collect::<Vec<_>>(),
            "skipped": skipped.iter().map(|(title, reason)| serde_json::json!({"title": one_line(title, 300), "reason": reason})).collect::<Vec<_>>(),
            "cut": summary.cut.iter().map(|(title, listed)| serde_json::json!({"title": one_line(title, 300), "listed": listed})).collect::<Vec<_>>(),
            "outage": summary.outage,
            "moved": summary.moved.iter().map(|(title, url)| serde_json::json!({"title": one_line(title, 300), "url": shown_address(url)})).collect::<Vec<_>>(),
            "purged": purged,
            "not_indexed": not_indexed,
            "retried": session.fetcher().retries(),
            "accounts": accounts_json(&synced),
            "full_text": {
                "fetched": full_tried - refused.len(),
                "failed": refused.iter().map(|(title, url, why)| serde_json::json!({
                    "title": one_line(title, 300), "url": shown_address(url), "message": one_line(why, 1000),
                })).collect::<Vec<_>>(),
                "error": full_text.as_ref().err().map(|e| e.to_string()),
            },
        });
        writeln!(out, "{value}")?;
    } else {
        writeln!(
            out,
            "Refreshed {}: {} updated ({}), {} not modified, {} failed{}.",
            crate::text::counted(summary.feeds, "feed", "feeds"),
            summary.updated_feeds,
            crate::text::counted(summary.new_entries, "new entry", "new entries"),
            summary.not_modified,
            failures.len(),
            if skipped.is_empty() { String::new() } else { format!(", {} left alone", skipped.len()) }
        )?;
        if full_tried > 0 {
            let fetched = full_tried - refused.len();
            let failed = match refused.len() {
                0 => String::new(),
                1 => "; 1 page gave no article and keeps its feed's text".to_owned(),
                n => format!("; {n} pages gave no article and keep their feed's text"),
            };
            let noun = if fetched == 1 { "article" } else { "articles" };
            writeln!(out, "Fetched {fetched} {noun} in full{failed}.")?;
        }
        if purged > 0 {
            writeln!(out, "Purged {purged} old entries (keep_days, max_entries_per_feed).")?;
        }
        match session.fetcher().retries() {
            0 => {}
            1 => writeln!(
                out,
                "Sent 1 request again on a new connection: the server had closed the one it went out on."
            )?,
            n => writeln!(
                out,
                "Sent {n} requests again on new connections: the servers had closed the ones they went out on."
            )?,
        }
        for (title, url, kind, message) in &failures {
            // An untitled feed goes by its address (its password hidden, as the store names it).
            let url = without_password(url);
            let at = if *title == url { String::new() } else { format!(" <{}>", one_line(&url, 500)) };
            writeln!(
                out,
                "FAILED  {}{at} [{kind}]: {}",
                one_line(&without_password(title), 200),
                one_line(message, 1000)
            )?;
        }
        for (title, reason) in &skipped {
            writeln!(out, "SKIPPED {}: {reason}", one_line(title, 200))?;
        }
        for (title, url) in &summary.moved {
            writeln!(
                out,
                "MOVED   {}: redirected for good to {} (proposed: accept it in the reader's health view)",
                one_line(title, 200),
                one_line(&without_password(url), 500)
            )?;
        }
        if summary.outage {
            writeln!(
                out,
                "OUTAGE  not one feed answered, on several hosts: the network seems down, so these failures count \
                 against no feed. Check the connection and refresh again."
            )?;
        }
        for (title, listed) in &summary.cut {
            writeln!(
                out,
                "CUT     {}: it lists {listed} entries; the first {} were kept",
                one_line(title, 200),
                store::fetches::MAX_ENTRIES_PER_REFRESH
            )?;
        }
        for (title, url, why) in &refused {
            writeln!(
                out,
                "NO TEXT {} <{}>: {} (fetching the full text from the entry in the reader tries again)",
                one_line(title, 200),
                one_line(&without_password(url), 500),
                one_line(why, 1000)
            )?;
        }
        if let Err(e) = &full_text {
            writeln!(
                out,
                "The full articles of feeds read in full were not fetched: {e}; the next refresh tries again."
            )?;
        }
        say_accounts(&mut out, &synced)?;
    }
    out.flush()?;
    if let Some((_, _, _, message)) = unsaved.first() {
        note!(
            "tidings: {} of {} feeds were fetched but could not be saved to {}: {}; {}. What was stored before is \
             intact.",
            unsaved.len(),
            summary.feeds,
            db.display(),
            one_line(message, 1000),
            store_advice(message)
        );
        return Ok(ExitCode::from(EXIT_ERROR));
    }
    Ok(if failures.is_empty() && !any_failed(&synced) { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// What to do when the database would not take a refresh, from SQLite's words for it.
fn store_advice(message: &str) -> &'static str {
    if message.contains("full") {
        "free some space on its disk and run `tidings refresh` again"
    } else if message.contains("readonly") || message.contains("read-only") || message.contains("unable to open") {
        "check that you may write to the database and its folder, then run `tidings refresh` again"
    } else if message.contains("locked") || message.contains("busy") {
        "another process held the database too long; run `tidings refresh` again when it has finished"
    } else {
        "run `tidings refresh` again; if it keeps failing, the log says more"
    }
}

/// The entries whose page gave no article, as (title, link, why) for a report.
async fn describe_pages(writer: &DbThread, pages: Vec<(EntryId, String)>) -> Vec<(String, String, String)> {
    let unnamed: Vec<_> = pages.iter().map(|(id, why)| (format!("entry {id}"), String::new(), why.clone())).collect();
    let described = writer
        .call(move |c| {
            let mut out = Vec::with_capacity(pages.len());
            for (entry_id, why) in pages {
                let detail = entries::entry(c, entry_id)?;
                let title = detail.as_ref().and_then(|d| d.title.clone()).unwrap_or_else(|| "(untitled)".into());
                let link = detail.and_then(|d| d.link).unwrap_or_default();
                out.push((title, link, why));
            }
            Ok(out)
        })
        .await;
    described.unwrap_or(unnamed)
}
