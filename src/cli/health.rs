//! `tidings health [--json]`: every local feed with its state (ok, failing, dead, gone, moved, quiet,
//! throttled), since when and why, worst first (read-only). Exit 0 when every feed is ok, 1 when any is not, so
//! a script can alert. The states' rules are `tidings_core::health`'s.

use crate::config::Config;
use crate::health::{HealthState, Judged, judge_all};
use crate::sanitize::one_line;
use crate::store::{self, health};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The exit status when some feed is not ok.
const EXIT_NOT_ALL_OK: u8 = 1;

pub(super) fn run(db: &Path, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let conn = store::open_existing_read_only(db)?;
    let (facts, left_out) = health::facts(&conn)?;
    let now = chrono::Utc::now().timestamp();
    let judged = judge_all(facts, now, config.health_rules());
    let mut out = std::io::stdout().lock();
    if json {
        let rows: Vec<serde_json::Value> = judged.iter().map(json_row).collect();
        writeln!(out, "{}", serde_json::Value::Array(rows))?;
    } else {
        print_table(&mut out, &judged, left_out, now)?;
    }
    out.flush()?;
    let all_ok = judged.iter().all(|j| j.health.state == HealthState::Ok);
    Ok(if all_ok { ExitCode::SUCCESS } else { ExitCode::from(EXIT_NOT_ALL_OK) })
}

fn rfc3339(at: Option<i64>) -> Option<String> {
    at.and_then(|t| chrono::DateTime::from_timestamp(t, 0))
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn json_row(j: &Judged) -> serde_json::Value {
    let f = &j.facts;
    serde_json::json!({
        "url": crate::sanitize::shown_address(&f.url),
        "title": one_line(&f.title, 300),
        "state": j.health.state.as_str(),
        "since": rfc3339(j.health.since),
        "failures": f.failures,
        "status": f.last_status,
        "error": f.last_error.as_deref().filter(|_| f.failures > 0).map(|e| one_line(e, 1000)),
        "moved_to": j.proposed_move().map(crate::sanitize::shown_address),
        "last_entry": rfc3339(f.newest_entry_at),
        "median_gap_days": f.median_gap_secs.map(|s| (s as f64 / 8640.0).round() / 10.0),
        "paused": f.paused,
        "why": one_line(&j.health.why, 1000),
    })
}

/// The table: a line per feed, worst first, and what to do about them.
fn print_table(out: &mut impl Write, judged: &[Judged], left_out: usize, now: i64) -> std::io::Result<()> {
    let zone = super::local_zone();
    writeln!(out, "{:<9} {:>5} {:>6}  {:<16}  FEED — WHY", "STATE", "FAILS", "STATUS", "SINCE")?;
    for j in judged {
        let f = &j.facts;
        let status = f.last_status.map_or("—".to_string(), |s| s.to_string());
        let since = j.health.since.map_or("—".to_string(), |at| zone.moment(at, now));
        let paused = if f.paused { " (paused)" } else { "" };
        writeln!(
            out,
            "{:<9} {:>5} {:>6}  {:<16}  {}{paused} — {}",
            j.health.state.as_str(),
            f.failures,
            status,
            one_line(&since, 16),
            one_line(&f.title, 120),
            one_line(&j.health.why, 300)
        )?;
    }
    let trouble = judged.iter().filter(|j| j.health.state != HealthState::Ok).count();
    writeln!(out, "{trouble} of {} feeds need a look.", judged.len())?;
    if trouble > 0 {
        writeln!(
            out,
            "In the reader, the health view (! by default) marks them and unsubscribes, pauses, retries them or \
             accepts a move; see docs/health.md."
        )?;
    }
    if left_out > 0 {
        writeln!(out, "{left_out} feeds of accounts are left out: their servers fetch them (see their own reports).")?;
    }
    Ok(())
}
