//! The marked set: entries of the list on screen chosen for what comes next (flag, then act). `x` marks the
//! entry under the cursor (or unmarks it), `X` every entry from the last one marked to the cursor, `:mark QUERY`
//! every entry of the list a query matches, `:unmark` none. While entries are marked, `m` (read / unread), `s`
//! (star), `O` (export to Markdown), `E` (download their media: `downloads::queue_selected`) and `|` (pipe) act
//! on all of them at once; `u` undoes a marking.
//!
//! The set belongs to the list: it goes when another list is shown.

use super::keymap::{Action, Context};
use super::marks::{self, Change, Undo};
use super::{Effect, ListKey, State};
use crate::model::EntryId;
use crate::sanitize::one_line;

/// What can be done to every marked entry at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bulk {
    /// Read, or unread when every one is read already.
    ToggleRead,
    /// Starred, or unstarred when every one is starred already.
    ToggleStar,
}

/// The marked entries, in the order of the list (empty when none).
pub fn ids(state: &State) -> Vec<EntryId> {
    let list = &state.entries;
    if list.marked.is_empty() {
        return Vec::new();
    }
    list.refs.iter().filter(|r| list.marked.contains(&r.id)).map(|r| r.id).collect()
}

fn entries(n: usize) -> String {
    if n == 1 { "1 entry".to_string() } else { format!("{n} entries") }
}

/// Says how many are marked and what the keys do with them.
fn say_marked(state: &mut State) {
    let now = state.clock.now;
    let n = state.entries.marked.len();
    if n == 0 {
        state.status.info("Nothing marked", now);
        return;
    }
    let keys = [
        (Action::ToggleRead, "read"),
        (Action::Star, "star"),
        (Action::Export, "export"),
        (Action::Download, "download"),
        (Action::Pipe, "pipe"),
        (Action::Undo, "undo"),
    ];
    let said: Vec<String> = keys
        .iter()
        .map(|(action, what)| state.keymap.say(Context::General, *action, &format!("{{}} {what}")))
        .filter(|s| !s.is_empty())
        .collect();
    let keys = if said.is_empty() { String::new() } else { format!(" · {}", said.join(", ")) };
    state.status.info(format!("{} marked{keys} · :unmark clears", entries(n)), now);
}

/// `x`: marks the entry under the cursor, or unmarks it, and moves down a row (so that a run of `x` marks a run
/// of entries).
pub fn toggle(state: &mut State) -> Vec<Effect> {
    let Some(id) = state.entries.selected_ref().map(|r| r.id) else {
        let now = state.clock.now;
        state.status.info("No entry to mark here", now);
        return Vec::new();
    };
    if !state.entries.marked.remove(&id) {
        state.entries.marked.insert(id);
        state.entries.anchor = Some(id);
    }
    say_marked(state);
    super::entries::step(state, super::list::Step::By(1))
}

/// `X`: marks every entry from the last one marked (or the top of the list) to the one under the cursor.
pub fn mark_range(state: &mut State) -> Vec<Effect> {
    let list = &mut state.entries;
    if list.is_empty() {
        return Vec::new();
    }
    let cursor = list.cursor.index.min(list.len() - 1);
    let from = list.anchor.and_then(|id| list.position(id)).unwrap_or(0);
    let (a, b) = (from.min(cursor), from.max(cursor));
    let ids: Vec<EntryId> = list.refs[a..=b].iter().map(|r| r.id).collect();
    list.marked.extend(ids);
    list.anchor = list.refs.get(cursor).map(|r| r.id);
    say_marked(state);
    Vec::new()
}

/// `:mark QUERY`: asks the store which entries of the list on screen the query (the search's language: words,
/// `feed = …`, `unread`…) matches; they are marked when the answer comes ([`on_matched`]).
pub fn by_query(state: &mut State, query: &str) -> Result<Vec<Effect>, String> {
    let Some(list) = state.entries.of else {
        return Err("select a list first: the query marks entries of the list on screen".into());
    };
    let source = state.source_of(list);
    let now = state.clock.now;
    state.status.info(format!("Marking what matches {}…", one_line(query, 100)), now);
    Ok(vec![Effect::MatchEntries { list, source, query: query.to_string() }])
}

/// The store said which entries match a `:mark` query: those in the list on screen are marked.
pub fn on_matched(state: &mut State, list: ListKey, query: &str, found: Result<Vec<EntryId>, String>) -> Vec<Effect> {
    let now = state.clock.now;
    let found = match found {
        Ok(found) => found,
        Err(why) => {
            state.status.error(format!("Cannot mark by {}: {why}", one_line(query, 100)), now);
            return Vec::new();
        }
    };
    if state.entries.of != Some(list) {
        return Vec::new();
    }
    let in_list: std::collections::HashSet<EntryId> = state.entries.refs.iter().map(|r| r.id).collect();
    let before = state.entries.marked.len();
    state.entries.marked.extend(found.into_iter().filter(|id| in_list.contains(id)));
    let added = state.entries.marked.len() - before;
    if added == 0 && state.entries.marked.is_empty() {
        state.status.info(format!("Nothing here matches {}", one_line(query, 100)), now);
        return Vec::new();
    }
    say_marked(state);
    Vec::new()
}

/// `:unmark`: nothing marked any more.
pub fn clear(state: &mut State) -> Vec<Effect> {
    let n = state.entries.marked.len();
    state.entries.marked.clear();
    state.entries.anchor = None;
    let now = state.clock.now;
    state.status.info(if n == 0 { "Nothing was marked".to_string() } else { format!("Unmarked {}", entries(n)) }, now);
    Vec::new()
}

/// Does `bulk` to every marked entry; `u` undoes it. The marks go once acted on.
pub fn act(state: &mut State, bulk: Bulk) -> Vec<Effect> {
    let ids = ids(state);
    if ids.is_empty() {
        return Vec::new();
    }
    let refs: Vec<_> = state.entries.refs.iter().filter(|r| state.entries.marked.contains(&r.id)).copied().collect();
    let now = state.clock.now;
    let undo_key = state.keymap.say(Context::General, Action::Undo, " ({} undoes it)");
    let (effects, change, changed) = match bulk {
        Bulk::ToggleRead => {
            let read = refs.iter().any(|r| !r.read);
            let changed: Vec<EntryId> = refs.iter().filter(|r| r.read != read).map(|r| r.id).collect();
            let effects = marks::set_read(state, changed.clone(), read);
            (effects, Change::Read(read), changed)
        }
        Bulk::ToggleStar => {
            let starred = refs.iter().any(|r| !r.starred);
            let changed: Vec<EntryId> = refs.iter().filter(|r| r.starred != starred).map(|r| r.id).collect();
            let effects = marks::set_starred(state, changed.clone(), starred);
            (effects, Change::Starred(starred), changed)
        }
    };
    let done = match change {
        Change::Read(true) => "marked read",
        Change::Read(false) => "marked unread",
        Change::Starred(true) => "starred",
        Change::Starred(false) => "unstarred",
    };
    let n = changed.len();
    state.undo = Some(Undo { ids: changed, change });
    state.entries.marked.clear();
    state.entries.anchor = None;
    let text = format!("{} {done}{undo_key}", entries(n));
    state.status.info(text[..1].to_uppercase() + &text[1..], now);
    effects
}
