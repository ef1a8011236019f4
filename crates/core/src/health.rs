//! Feed health: which state a feed is in (ok, failing, dead, gone, moved, quiet, throttled), since when, and why,
//! judged from the facts the store keeps of its fetches ([`HealthFacts`]). Pure: the store reads the facts, the
//! front ends show the answer; the rules live here once, so `tidings health` and the reader never disagree.

use crate::model::{ErrorKind, FeedId};
use serde::Serialize;

/// How many refreshes in a row make a permanent error `dead`, or the same permanent redirect a proposed move.
pub const STREAK: i64 = 3;

/// A feed's health, declared worst first: the order of `tidings health`'s table and of the reader's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HealthState {
    /// A permanent error (404, 401/403, a host that does not resolve) on [`STREAK`] refreshes in a row, or failing
    /// for `dead_after_days`.
    Dead,
    /// The server said 410: gone for good.
    Gone,
    /// The same permanent redirect (301/308) on [`STREAK`] refreshes in a row: the new address is proposed.
    Moved,
    /// The last refresh failed, and the feed is not dead yet.
    Failing,
    /// A 429 or 503 whose Retry-After is still in force.
    Throttled,
    /// Nothing new for longer than both `quiet_after_days` and four times the feed's own median gap.
    Quiet,
    Ok,
}

impl HealthState {
    pub const ALL: [HealthState; 7] = [
        HealthState::Dead,
        HealthState::Gone,
        HealthState::Moved,
        HealthState::Failing,
        HealthState::Throttled,
        HealthState::Quiet,
        HealthState::Ok,
    ];

    /// Its name in `tidings health --json`, the table and the view.
    pub fn as_str(self) -> &'static str {
        match self {
            HealthState::Dead => "dead",
            HealthState::Gone => "gone",
            HealthState::Moved => "moved",
            HealthState::Failing => "failing",
            HealthState::Throttled => "throttled",
            HealthState::Quiet => "quiet",
            HealthState::Ok => "ok",
        }
    }
}

/// The thresholds people can set (`dead_after_days`, `quiet_after_days` in the config).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HealthRules {
    pub dead_after_days: i64,
    pub quiet_after_days: i64,
}

impl Default for HealthRules {
    fn default() -> HealthRules {
        HealthRules { dead_after_days: 7, quiet_after_days: 90 }
    }
}

/// What the store knows of one feed's fetches: the raw material of its health. Instants are seconds since the
/// epoch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HealthFacts {
    pub feed_id: FeedId,
    pub url: String,
    pub title: String,
    pub site_url: Option<String>,
    pub paused: bool,
    pub last_status: Option<i64>,
    pub error_kind: Option<ErrorKind>,
    pub last_error: Option<String>,
    /// Failed refreshes in a row.
    pub failures: i64,
    /// Of those, the last ones in a row that failed for good (see [`is_permanent`]).
    pub permanent_failures: i64,
    /// When the current run of failures began.
    pub failing_since: Option<i64>,
    /// When the feed last came (back) to work.
    pub healthy_since: Option<i64>,
    /// The server said 410.
    pub gone: bool,
    /// Not fetched automatically before this time: backoff, or the server's Retry-After.
    pub retry_at: Option<i64>,
    /// Where the last refreshes were sent for good, and on how many in a row.
    pub moved_to: Option<String>,
    pub moves_in_a_row: i64,
    pub moved_since: Option<i64>,
    pub newest_entry_at: Option<i64>,
    pub median_gap_secs: Option<i64>,
    pub added_at: i64,
    /// A refresh ever stored what it fetched (an outage's failures, forgiven, leave a new feed unfetched).
    pub fetched: bool,
}

/// A feed's health: its state, since when, and why in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Health {
    pub state: HealthState,
    pub since: Option<i64>,
    pub why: String,
}

/// Whether a failure is one that waiting will not fix: the address is not there (404), not for us (401, 403),
/// or its host has no address at all.
pub fn is_permanent(status: Option<i64>, kind: Option<ErrorKind>) -> bool {
    matches!(status, Some(401 | 403 | 404)) || kind == Some(ErrorKind::Dns)
}

/// The median gap between consecutive entry dates (any order), when there are at least two.
pub fn median_gap_secs(dates: &[i64]) -> Option<i64> {
    let mut sorted = dates.to_vec();
    sorted.sort_unstable();
    let mut gaps: Vec<i64> = sorted.windows(2).map(|w| w[1] - w[0]).collect();
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_unstable();
    Some(gaps[gaps.len() / 2])
}

const DAY: i64 = 86_400;

/// Judges one feed at `now`.
pub fn classify(f: &HealthFacts, now: i64, rules: HealthRules) -> Health {
    let error = || f.last_error.clone().unwrap_or_else(|| "it failed".into());
    // The status, unless the error already says it.
    let status = f
        .last_status
        .filter(|_| !f.last_error.as_deref().is_some_and(|e| e.starts_with("HTTP")))
        .map(|s| format!("HTTP {s}: "))
        .unwrap_or_default();
    let health = |state, since, why: String| Health { state, since, why };
    if f.failures > 0 {
        if f.gone {
            return health(HealthState::Gone, f.failing_since, "the server says it is gone for good (HTTP 410)".into());
        }
        let throttling = matches!(f.last_status, Some(429 | 503));
        if let Some(until) = f.retry_at.filter(|at| throttling && *at > now) {
            let hours = (until - now + 3599) / 3600;
            return health(
                HealthState::Throttled,
                f.failing_since,
                format!("{status}the server asks to wait another {hours} h"),
            );
        }
        if f.permanent_failures >= STREAK {
            let why = format!("{}{} on {} refreshes in a row", status, error(), f.permanent_failures);
            return health(HealthState::Dead, f.failing_since, why);
        }
        if let Some(since) = f.failing_since.filter(|s| now - s >= rules.dead_after_days * DAY) {
            let days = (now - since) / DAY;
            return health(HealthState::Dead, Some(since), format!("failing for {days} days: {}", error()));
        }
        let times = if f.failures == 1 { "once".to_string() } else { format!("{} times in a row", f.failures) };
        return health(HealthState::Failing, f.failing_since, format!("{status}{} ({times})", error()));
    }
    if let Some(to) = f.moved_to.as_deref().filter(|_| f.moves_in_a_row >= STREAK) {
        let why = format!("redirected for good to {to} on {} refreshes in a row", f.moves_in_a_row);
        return health(HealthState::Moved, f.moved_since, why);
    }
    if !f.fetched {
        return health(HealthState::Ok, Some(f.added_at), "not fetched yet".into());
    }
    if let Some(newest) = f.newest_entry_at {
        let quiet_after = quiet_after_secs(f.median_gap_secs, rules);
        if now - newest > quiet_after {
            let days = (now - newest) / DAY;
            let usual = f.median_gap_secs.map(|g| format!(" (it used to post every {})", days_or_hours(g)));
            let why = format!("no new entry for {days} days{}", usual.unwrap_or_default());
            return health(HealthState::Quiet, Some(newest + quiet_after), why);
        }
    }
    health(HealthState::Ok, f.healthy_since.or(Some(f.added_at)), "works".into())
}

/// One feed and its health, as the health report and the reader's view list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    pub facts: HealthFacts,
    pub health: Health,
}

impl Judged {
    /// The address its redirects propose, once it is a proposal (see [`HealthState::Moved`]).
    pub fn proposed_move(&self) -> Option<&str> {
        self.facts.moved_to.as_deref().filter(|_| self.facts.moves_in_a_row >= STREAK)
    }
}

/// Judges every feed at `now`, worst first (then by title).
pub fn judge_all(facts: Vec<HealthFacts>, now: i64, rules: HealthRules) -> Vec<Judged> {
    let mut judged: Vec<Judged> =
        facts.into_iter().map(|facts| Judged { health: classify(&facts, now, rules), facts }).collect();
    judged.sort_by_cached_key(|j| (j.health.state, j.facts.title.to_lowercase(), j.facts.feed_id));
    judged
}

/// How long a feed may go without a new entry before it is quiet: the longer of `quiet_after_days` and four
/// times its own median gap (a monthly podcast is not quiet after a month).
pub fn quiet_after_secs(median_gap_secs: Option<i64>, rules: HealthRules) -> i64 {
    (rules.quiet_after_days * DAY).max(median_gap_secs.unwrap_or(0).saturating_mul(4))
}

fn days_or_hours(secs: i64) -> String {
    match secs {
        s if s >= 2 * DAY => format!("{} days", (s + DAY / 2) / DAY),
        s if s >= DAY => "day".to_string(),
        s => format!("{} h", (s / 3600).max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000;

    fn facts() -> HealthFacts {
        HealthFacts {
            added_at: NOW - 400 * DAY,
            healthy_since: Some(NOW - 300 * DAY),
            fetched: true,
            ..Default::default()
        }
    }

    fn state(f: &HealthFacts) -> HealthState {
        classify(f, NOW, HealthRules::default()).state
    }

    #[test]
    fn a_feed_no_refresh_ever_stored_is_not_fetched_yet_rather_than_working() {
        // A new feed whose first refreshes met an outage (forgiven: no failure counted), or none yet.
        let new = HealthFacts { fetched: false, healthy_since: None, ..facts() };
        let judged = classify(&new, NOW, HealthRules::default());
        assert_eq!(
            (judged.state, judged.why.as_str(), judged.since),
            (HealthState::Ok, "not fetched yet", Some(new.added_at))
        );
        assert_eq!(classify(&facts(), NOW, HealthRules::default()).why, "works");
        let failing = HealthFacts { fetched: false, failures: 1, ..facts() };
        assert_eq!(state(&failing), HealthState::Failing, "a failure counted still says so");
    }

    #[test]
    fn a_permanent_error_is_dead_on_the_third_refresh_in_a_row_and_failing_before() {
        let mut f = HealthFacts { failures: 2, permanent_failures: 2, last_status: Some(404), ..facts() };
        f.failing_since = Some(NOW - 3600);
        assert_eq!(state(&f), HealthState::Failing);
        f.failures = 3;
        f.permanent_failures = 3;
        assert_eq!(state(&f), HealthState::Dead);
    }

    #[test]
    fn a_feed_failing_for_dead_after_days_is_dead_whatever_the_error() {
        let f = HealthFacts { failures: 5, failing_since: Some(NOW - 8 * DAY), ..facts() };
        assert_eq!(state(&f), HealthState::Dead);
        let f = HealthFacts { failing_since: Some(NOW - 6 * DAY), ..f };
        assert_eq!(state(&f), HealthState::Failing);
    }

    #[test]
    fn gone_throttled_and_moved_come_from_their_own_facts() {
        let gone = HealthFacts { failures: 1, gone: true, last_status: Some(410), ..facts() };
        assert_eq!(state(&gone), HealthState::Gone);
        let throttled = HealthFacts { failures: 3, last_status: Some(429), retry_at: Some(NOW + DAY), ..facts() };
        assert_eq!(state(&throttled), HealthState::Throttled);
        let waited = HealthFacts { retry_at: Some(NOW - 1), ..throttled };
        assert_eq!(state(&waited), HealthState::Failing);
        let mut moved = HealthFacts { moved_to: Some("http://new/".into()), moves_in_a_row: 2, ..facts() };
        assert_eq!(state(&moved), HealthState::Ok, "two redirects are not yet a move");
        moved.moves_in_a_row = 3;
        assert_eq!(state(&moved), HealthState::Moved);
    }

    #[test]
    fn quiet_needs_both_quiet_after_days_and_four_times_the_usual_gap() {
        let weekly = HealthFacts { newest_entry_at: Some(NOW - 200 * DAY), median_gap_secs: Some(7 * DAY), ..facts() };
        assert_eq!(state(&weekly), HealthState::Quiet);
        let recent = HealthFacts { newest_entry_at: Some(NOW - 80 * DAY), ..weekly.clone() };
        assert_eq!(state(&recent), HealthState::Ok);
        let yearly = HealthFacts { median_gap_secs: Some(365 * DAY), ..weekly };
        assert_eq!(state(&yearly), HealthState::Ok, "a feed that posts once a year is not quiet after 200 days");
    }

    #[test]
    fn dns_failures_and_404s_are_permanent_timeouts_are_not() {
        assert!(is_permanent(None, Some(ErrorKind::Dns)));
        assert!(is_permanent(Some(404), Some(ErrorKind::Http)));
        assert!(!is_permanent(Some(500), Some(ErrorKind::Http)));
        assert!(!is_permanent(None, Some(ErrorKind::Timeout)));
    }

    #[test]
    fn the_median_gap_is_taken_between_sorted_dates() {
        assert_eq!(median_gap_secs(&[30, 0, 10, 20, 100]), Some(10));
        assert_eq!(median_gap_secs(&[5]), None);
    }

    #[test]
    fn states_sort_worst_first() {
        let mut all = HealthState::ALL.to_vec();
        all.sort();
        assert_eq!(all, HealthState::ALL.to_vec());
        assert_eq!(all.first(), Some(&HealthState::Dead));
    }
}
