//! `tidings sync`: every account of the config synced both ways, headless. One line per account on standard
//! output ("FreshRSS: 120 new, 14 changes sent"), or JSON; an account that could not be synced is said on
//! standard error with what to do, and its changes wait for the next sync.

use super::EXIT_SOME_FAILED;
use crate::config::Config;
use crate::fetch::Fetcher;
use crate::refresh::notify;
use crate::sanitize::one_line;
use crate::store::{self, DbThread};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub(super) async fn run(db: &Path, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    if config.accounts.is_empty() {
        note!("tidings: no accounts to sync: add an [[accounts]] table to the config (config.example.toml shows one)");
        return Ok(ExitCode::SUCCESS);
    }
    let mut conn = store::open_write(db)?;
    let (default, settings) = config.feed_settings();
    store::feeds::apply_settings(&mut conn, &default, &settings)?;
    let writer = DbThread::spawn_writer(conn);
    let fetcher = Fetcher::new(config.fetch_config()).map_err(anyhow::Error::msg)?;
    let newest = writer.call(|c| notify::newest_entry(c)).await?;
    let mut failed = false;
    let mut results = Vec::new();
    for account in &config.accounts {
        let outcome = crate::sync::sync(account, &fetcher, &writer, chrono::Utc::now().timestamp()).await;
        failed |= outcome.is_err();
        results.push((account, outcome));
    }
    if results.iter().any(|(_, outcome)| outcome.as_ref().is_ok_and(|r| r.new > 0)) {
        // What arrived is judged by the kill rules (those that read the text, once it is indexed), then told of.
        let rules = config.kill_rules();
        if !rules.is_empty() {
            writer.call(|c| store::search::index_pending(c, usize::MAX).map(|_| ())).await?;
            let now = chrono::Utc::now().timestamp();
            writer.call(move |c| store::query::apply_rules(c, &rules, now)).await?;
        }
        if let Some(notifier) = config.notifier()
            && let Err(e) = notifier.tell_since(&writer, newest).await
        {
            note!("tidings: cannot tell of new entries: {}", one_line(&e.to_string(), 1000));
        }
    }
    let mut out = std::io::stdout().lock();
    if json {
        let accounts: Vec<serde_json::Value> = results
            .iter()
            .map(|(account, outcome)| match outcome {
                Ok(report) => serde_json::json!({"account": account.name, "ok": true, "report": report}),
                Err(e) => serde_json::json!({
                    "account": account.name, "ok": false, "offline": e.is_offline(),
                    "error": one_line(&e.to_string(), 2000),
                }),
            })
            .collect();
        writeln!(out, "{}", serde_json::json!({ "accounts": accounts }))?;
    } else {
        for (_, outcome) in &results {
            match outcome {
                Ok(report) => writeln!(out, "{}", one_line(&report.line(), 2000))?,
                Err(e) => note!("tidings: {}", one_line(&e.to_string(), 2000)),
            }
        }
    }
    out.flush()?;
    Ok(if failed { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}
