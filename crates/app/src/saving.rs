//! The user's changes on their way to the database, until it has them: the writes asked for and not yet
//! applied, the ones the store could not take for now (another process held the database, the disk was full)
//! and that are tried again, and quitting, which waits for all of them — or, asked twice, leaves them and says
//! which were lost.

use crate::keymap::{Action, Context};
use crate::model::UserWrite;
use crate::{Effect, State, WriteFailure, WriteId};
use std::collections::BTreeMap;

/// Seconds before a write the store could not take is tried again.
pub const RETRY_SECS: i64 = 5;
/// Seconds quitting waits for the writes before it looks for who holds the database.
pub const ASK_HOLDERS_AFTER_SECS: i64 = 1;

/// Writes asked for and not yet saved.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Saving {
    /// Asked of the store and not yet answered, by their numbers.
    in_flight: BTreeMap<WriteId, UserWrite>,
    /// The number of the last write asked for.
    last: WriteId,
    /// Refused for now (see [`WriteFailure::retry`]); asked again at `retry_at`.
    refused: Vec<UserWrite>,
    retry_at: i64,
    /// Why the last refused write was refused.
    pub last_failure: Option<String>,
    /// When the user asked to quit while writes were unsaved.
    pub quitting_since: Option<i64>,
    /// The processes holding the database while quitting waits (names and pids, for people).
    pub holders: Vec<String>,
    /// The user quit without waiting for these; the runtime says so once the terminal is restored.
    pub abandoned: Vec<UserWrite>,
}

impl Saving {
    /// Changes not in the database yet.
    pub fn pending(&self) -> usize {
        self.in_flight.len() + self.refused.len()
    }

    /// The number of the last write asked for ([`WriteId::NONE`] before any).
    pub fn last_issued(&self) -> WriteId {
        self.last
    }

    /// Numbers the writes among `effects` in their order (the runtime hands them to the store in this order),
    /// and keeps each until the store answers.
    pub(crate) fn issue(&mut self, effects: &mut [Effect]) {
        for effect in effects {
            if let Effect::Write { id, write } = effect {
                self.last = self.last.next();
                *id = self.last;
                self.in_flight.insert(self.last, write.clone());
            }
        }
    }

    /// The store answered write `id`: the write it was, unless it was answered already.
    pub(crate) fn answered(&mut self, id: WriteId) -> Option<UserWrite> {
        self.in_flight.remove(&id)
    }
}

/// The store applied a write (`failure` is `None`) or could not. A write that may work later is kept and tried
/// again; quitting ends when nothing is left.
pub(crate) fn on_written(state: &mut State, write: &UserWrite, failure: Option<&WriteFailure>) -> Vec<Effect> {
    let now = state.clock.now;
    let saving = &mut state.saving;
    let mut effects = Vec::new();
    if let Some(failure) = failure.filter(|f| f.retry) {
        saving.refused.push(write.clone());
        saving.retry_at = now + if saving.quitting_since.is_some() { 1 } else { RETRY_SECS };
        saving.last_failure = Some(failure.message.clone());
        let n = saving.refused.len();
        let changes = if n == 1 { "1 change".to_string() } else { format!("{n} changes") };
        state.status.error(
            format!("{}: {}; {changes} kept, to be saved again in a moment", write.describe(), failure.message),
            now,
        );
    } else if saving.pending() == 0 {
        saving.last_failure = None;
    }
    if state.saving.quitting_since.is_some() {
        effects.extend(quit_when_saved(state));
    }
    effects
}

/// The clock: refused writes are asked again when their time comes; quitting that has waited a while looks for
/// who holds the database.
pub(crate) fn on_tick(state: &mut State, now: i64) -> Vec<Effect> {
    let saving = &mut state.saving;
    let mut effects = Vec::new();
    if !saving.refused.is_empty() && now >= saving.retry_at {
        effects.extend(saving.refused.drain(..).map(Effect::write));
    }
    if let Some(since) = saving.quitting_since
        && saving.pending() > 0
        && now - since >= ASK_HOLDERS_AFTER_SECS
    {
        effects.push(Effect::FindDatabaseHolders);
    }
    effects
}

/// Quit, asked by the user: at once when every change is saved; else wait for them, saying so; asked again
/// while waiting, quit and leave them (the runtime tells which).
pub(crate) fn quit(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    if state.saving.pending() == 0 {
        state.quit = true;
        return Vec::new();
    }
    if state.saving.quitting_since.is_some() {
        let saving = &mut state.saving;
        saving.abandoned = saving.in_flight.values().chain(&saving.refused).cloned().collect();
        state.quit = true;
        return Vec::new();
    }
    state.saving.quitting_since = Some(now);
    say_waiting(state);
    // What was refused is tried again now, not in a few seconds.
    state.saving.refused.drain(..).map(Effect::write).collect()
}

/// The processes that hold the database, found while quitting waits.
pub(crate) fn on_holders(state: &mut State, holders: Vec<String>) -> Vec<Effect> {
    if state.saving.quitting_since.is_some() && state.saving.pending() > 0 && holders != state.saving.holders {
        state.saving.holders = holders;
        say_waiting(state);
    }
    Vec::new()
}

fn quit_when_saved(state: &mut State) -> Vec<Effect> {
    if state.saving.pending() == 0 {
        state.quit = true;
    } else {
        say_waiting(state);
    }
    Vec::new()
}

/// "Saving 2 changes before quitting: …; q again quits without them."
fn say_waiting(state: &mut State) {
    let saving = &state.saving;
    let n = saving.pending();
    let changes = if n == 1 { "1 change".to_string() } else { format!("{n} changes") };
    let why = if !saving.holders.is_empty() {
        format!("waiting for {}, which holds the database", saving.holders.join(", "))
    } else if let Some(failure) = &saving.last_failure {
        format!("trying again ({failure})")
    } else {
        "waiting for the database".to_string()
    };
    let again = state.keymap.say(Context::General, Action::Quit, "; {} again quits without saving them");
    state.status.error(format!("Saving {changes} before quitting: {why}{again}"), state.clock.now);
}
