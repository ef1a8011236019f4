//! Syncing accounts, as the reader sees it: which are on their way, when the next automatic sync is, and what
//! each one said. A sync starts with the reader, with `R` (and `r` on a view or on an account's feed), and with
//! the automatic refresh; an account's feed is never refreshed by tidings itself, its server fetches it.

use super::{Effect, State};
use std::collections::BTreeSet;

/// The accounts and their syncs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Syncing {
    /// Every account of the config, by name.
    pub accounts: Vec<String>,
    /// Those whose sync is on its way.
    pub in_flight: BTreeSet<String>,
    /// Sync once the feed list first arrives.
    pub when_loaded: bool,
    /// When the next automatic sync is due (seconds since the epoch).
    pub next_at: Option<i64>,
}

/// Starts a sync of every account not syncing already.
pub fn all(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let names: Vec<String> =
        state.sync.accounts.iter().filter(|a| !state.sync.in_flight.contains(*a)).cloned().collect();
    if names.is_empty() {
        return Vec::new();
    }
    state.sync.in_flight.extend(names.iter().cloned());
    if let Some(interval) = state.refresh.interval_secs {
        state.sync.next_at = Some(now + interval);
    }
    state.status.info(format!("Syncing {}…", names.join(", ")), now);
    vec![Effect::Sync(names)]
}

/// The clock ticked: an automatic sync due?
pub fn on_tick(state: &mut State, now: i64) -> Vec<Effect> {
    if state.sync.accounts.is_empty() {
        return Vec::new();
    }
    let Some(interval) = state.refresh.interval_secs else { return Vec::new() };
    match state.sync.next_at {
        None => {
            state.sync.next_at = Some(now + interval);
            Vec::new()
        }
        Some(at) if at <= now => all(state),
        Some(_) => Vec::new(),
    }
}

/// A sync ended: say what it did (or why it could not), and read what it changed.
pub fn on_synced(state: &mut State, account: String, said: Result<String, String>, changed: bool) -> Vec<Effect> {
    let now = state.clock.now;
    state.sync.in_flight.remove(&account);
    match said {
        Ok(line) => state.status.info(line, now),
        Err(why) => state.status.error(why, now),
    }
    if !changed {
        return Vec::new();
    }
    let mut effects = vec![Effect::LoadFeeds];
    effects.extend(super::entries::changed(state));
    effects
}
