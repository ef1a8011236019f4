//! Walking the unread entries: `n` and `p` open the next and previous unread entry of the list shown and, at
//! its end, cross into the next feed (or folded folder) that has some, wrapping round the feed list, in one
//! key press; the selection follows. A smart view wraps within itself.

use super::entries::{OnLoad, open_unread_from};
use super::{Effect, ListKey, Pane, State};

/// `n` (forward) and `p`: opens the next (previous) unread entry of this list; at its end, crosses to the next
/// feed or folder with unread entries, wrapping around, and opens its first (last) one — one key press.
pub fn next_unread(state: &mut State, forward: bool) -> Vec<Effect> {
    let opened = state.article.entry_id();
    let here = state.entries.cursor.index;
    // From the entry after the open one; from the selected one itself when nothing is open there.
    let start = match (forward, opened.is_some_and(|id| state.entries.selected_ref().is_some_and(|r| r.id == id))) {
        (true, true) => here + 1,
        (true, false) => here,
        (false, _) => here,
    };
    let effects = open_unread_from(state, start, forward);
    if !effects.is_empty() {
        return effects;
    }
    cross(state, forward)
}

/// Moves to the next feed (or folded folder) with unread entries after the current one, wrapping; a smart view
/// wraps within itself.
fn cross(state: &mut State, forward: bool) -> Vec<Effect> {
    let now = state.clock.now;
    let on_load = if forward { OnLoad::OpenFirstUnread } else { OnLoad::OpenLastUnread };
    let current = state.entries.of;
    if matches!(current, Some(ListKey::All | ListKey::Unread | ListKey::Starred | ListKey::Search | ListKey::View(_))) {
        let from = if forward { 0 } else { state.entries.len() };
        let effects = open_unread_from(state, from, forward);
        if effects.is_empty() {
            state.status.info("No unread entries here", now);
        }
        return effects;
    }
    let rows = &state.feeds.rows;
    let len = rows.len();
    let here = state.feeds.cursor.index;
    let has_unread = |row: &super::FeedListRow| match row {
        super::FeedListRow::Feed { index, .. } => state.feeds.feeds[*index].unread > 0,
        super::FeedListRow::Folder { unread, collapsed, .. } => *collapsed && *unread > 0,
        super::FeedListRow::View(_) => false,
    };
    let target = (1..=len)
        .map(|step| if forward { (here + step) % len } else { (here + len - step % len) % len })
        .find(|i| has_unread(&rows[*i]));
    match target {
        Some(row) if row == here => {
            // Around and back: this list's own unread entries before (after) the cursor.
            let from = if forward { 0 } else { state.entries.len() };
            open_unread_from(state, from, forward)
        }
        Some(row) => {
            let height = state.list_height(Pane::Feeds);
            state.feeds.cursor.select(row, len, height);
            let effects = super::entries::show_selected_list(state);
            state.entries.on_load = Some(on_load);
            state.focus = Pane::Entries;
            effects
        }
        None => {
            state.status.info("No unread entries", now);
            Vec::new()
        }
    }
}
