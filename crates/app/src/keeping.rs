//! Saving for later: `W` hands the entry (or each marked one) to the `save_command`, with its address and title
//! as data; the runtime runs it ([`Effect::SaveForLater`]). The marked entries' addresses are read by the
//! runtime first ([`ExportTo::SaveForLater`]). Saving to an account's own server is not here yet.

use super::{Effect, ExportTo, State};
use crate::sanitize::one_line;

/// Entries at most handed to the `save_command` at once (each runs the command once).
pub const MAX_SAVED_AT_ONCE: usize = 200;

/// `W`: hands the entry (or each marked one) to the `save_command`, to read later elsewhere (a read-it-later
/// service, a notes folder). The marks go once used.
pub fn save_for_later(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    if !state.commands.save_command {
        state
            .status
            .info("Set save_command in the config to save entries for later (%u: the address, %t: the title)", now);
        return Vec::new();
    }
    let marked = super::marked::ids(state);
    if !marked.is_empty() {
        if marked.len() > MAX_SAVED_AT_ONCE {
            state.status.info(format!("Mark at most {MAX_SAVED_AT_ONCE} entries to save for later at once"), now);
            return Vec::new();
        }
        state.status.info(format!("Saving {} marked entries for later…", marked.len()), now);
        state.entries.marked.clear();
        return vec![Effect::Export { ids: marked, to: ExportTo::SaveForLater }];
    }
    match super::commands::entry_address(state) {
        Some((Some(url), title)) => {
            state.status.info(format!("Saving {} for later", one_line(&url, 2000)), now);
            on_to_save(state, vec![(url, title)])
        }
        Some((None, _)) => {
            state.status.info("The entry has no address", now);
            Vec::new()
        }
        None => {
            state.status.info("Select an entry first", now);
            Vec::new()
        }
    }
}

/// The addresses and titles of the entries to save are known: the `save_command` gets each (control
/// characters out, the title on one line).
pub fn on_to_save(state: &mut State, entries: Vec<(String, String)>) -> Vec<Effect> {
    if entries.is_empty() {
        let now = state.clock.now;
        state.status.info("None of them has an address to save", now);
        return Vec::new();
    }
    let entries = entries
        .into_iter()
        .map(|(url, title)| (crate::sanitize::strip_controls(&url).into_owned(), one_line(&title, 500)))
        .collect();
    vec![Effect::SaveForLater { entries }]
}
