//! `tidings sync`: every account of the config synced both ways, headless. One line per account on standard
//! output ("FreshRSS: 120 new, 14 changes sent"), or JSON; an account that could not be synced is said on
//! standard error with what to do, and its changes wait for the next sync. `tidings refresh` says its accounts
//! the same way.

use super::EXIT_SOME_FAILED;
use crate::config::Config;
use crate::sanitize::one_line;
use crate::session::{Role, Session, SyncObserver, Synced};
use crate::sync::{AccountConfig, Report, SyncError};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub(super) async fn run(db: &Path, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    if config.accounts.is_empty() {
        note!("tidings: no accounts to sync: add an [[accounts]] table to the config (config.example.toml shows one)");
        return Ok(ExitCode::from(super::EXIT_USAGE));
    }
    let session = Session::open(db, config.session_settings(), Role::Command)?;
    let synced = session.sync(None, &Told).await;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::json!({ "accounts": accounts_json(&synced) }))?;
    } else {
        say_accounts(&mut out, &synced)?;
    }
    out.flush()?;
    Ok(if any_failed(&synced) { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

/// What follows a sync and fails (the notification command, the index) is said on standard error; the accounts
/// are said at the end.
pub(super) struct Told;

impl SyncObserver for Told {
    fn account(&self, _: &AccountConfig, _: &Result<Report, SyncError>) {}

    fn trouble(&self, message: &str) {
        note!("tidings: {}", one_line(message, 1000));
    }
}

/// Whether an account could not be synced.
pub(super) fn any_failed(synced: &Synced) -> bool {
    synced.iter().any(|(_, outcome)| outcome.is_err())
}

/// Each account's sync as a JSON object: `{"account", "ok", "report"}`, or `{"account", "ok": false, "offline",
/// "error"}`.
pub(super) fn accounts_json(synced: &Synced) -> Vec<serde_json::Value> {
    synced
        .iter()
        .map(|(account, outcome)| match outcome {
            Ok(report) => serde_json::json!({"account": account.name, "ok": true, "report": report}),
            Err(e) => serde_json::json!({
                "account": account.name, "ok": false, "offline": e.is_offline(),
                "error": one_line(&e.to_string(), 2000),
            }),
        })
        .collect()
}

/// A line per account: what a sync did on standard output, why one could not be on standard error.
pub(super) fn say_accounts(out: &mut impl Write, synced: &Synced) -> std::io::Result<()> {
    for (_, outcome) in synced {
        match outcome {
            Ok(report) => writeln!(out, "{}", one_line(&report.line(), 2000))?,
            Err(e) => note!("tidings: {}", one_line(&e.to_string(), 2000)),
        }
    }
    Ok(())
}
