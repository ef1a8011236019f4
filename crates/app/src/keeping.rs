//! Saving for later: `W` saves the entry (or each marked one) where it belongs. The runtime first sorts them
//! ([`ExportTo::SaveForLater`], answered by [`Event::ToSave`]): an entry of an account whose server saves (a label
//! in the Google Reader API, Miniflux's save) is recorded in the change log ([`UserWrite::SaveOnServer`]) and
//! sent by the next sync, offline or not; an entry of a local feed or of a Fever account (Fever has no save)
//! goes to the `save_command`, with its address and title as data ([`Effect::SaveForLater`]).

use super::{Effect, ExportTo, State};
use crate::model::{EntryId, UserWrite};
use crate::sanitize::one_line;

/// Entries at most saved for later at once (the `save_command` runs once for each).
pub const MAX_SAVED_AT_ONCE: usize = 200;

/// What to say when an entry is for the `save_command` and there is none.
pub const SET_SAVE_COMMAND: &str = "Set save_command in the config to save entries of local feeds and Fever \
                                    accounts for later (%u: the address, %t: the title)";

/// `W`: saves the entry (or each marked one) for later. The marks go once used.
pub fn save_for_later(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
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
    match current(state) {
        Some(id) => vec![Effect::Export { ids: vec![id], to: ExportTo::SaveForLater }],
        None => {
            state.status.info("Select an entry first", now);
            Vec::new()
        }
    }
}

/// The entry `W` means without marks: the open article's, or the selected one.
fn current(state: &State) -> Option<EntryId> {
    let open =
        state.article.ready().filter(|_| state.focus == super::Pane::Article || state.entries.selected().is_none());
    open.map(|v| v.detail.id).or_else(|| state.entries.selected().map(|e| e.id))
}

/// The entries to save are sorted: `server` go to the change log for their account's next sync, `command`
/// (addresses and titles) to the `save_command` (control characters out, the title on one line) — or, without
/// one, the status says what to set.
pub fn on_to_save(state: &mut State, server: Vec<EntryId>, command: Vec<(String, String)>) -> Vec<Effect> {
    let now = state.clock.now;
    if server.is_empty() && command.is_empty() {
        state.status.info("None of them has an address to save", now);
        return Vec::new();
    }
    let mut effects = Vec::new();
    let mut said = Vec::new();
    if !server.is_empty() {
        let n = server.len();
        said.push(if n == 1 {
            "1 entry to be saved on its server at the next sync".to_string()
        } else {
            format!("{n} entries to be saved on their server at the next sync")
        });
        effects.push(Effect::write(UserWrite::SaveOnServer { ids: server }));
    }
    if !command.is_empty() {
        if !state.commands.save_command {
            let left = if said.is_empty() { String::new() } else { format!("{}; ", said.join("; ")) };
            state.status.error(format!("{left}{SET_SAVE_COMMAND}"), now);
            return effects;
        }
        let n = command.len();
        said.push(match command.as_slice() {
            [(url, _)] => format!("Saving {} for later", one_line(url, 2000)),
            _ => format!("{n} entries handed to the save_command"),
        });
        let entries = command
            .into_iter()
            .map(|(url, title)| (crate::sanitize::strip_controls(&url).into_owned(), one_line(&title, 500)))
            .collect();
        effects.push(Effect::SaveForLater { entries });
    }
    state.status.info(said.join("; "), now);
    effects
}
