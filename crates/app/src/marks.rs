//! Marks on entries: read and unread (opening an entry, `m`, and whole lists through `A`), stars (`s`), and
//! undoing the last marking read (`u`). Each changes the lists and counts on screen at once and asks the store
//! to do the same.

use super::dialogs::{Confirm, Confirmed, Dialog};
use super::keymap::{Action, Context};
use super::{Effect, ListKey, Pane, State};
use crate::model::{EntryId, EntryRef, ListSource, UserWrite};

/// Marks entries read or unread, on screen and in the counts, and asks the store to do the same.
pub fn set_read(state: &mut State, ids: Vec<EntryId>, read: bool) -> Vec<Effect> {
    let mut changed = Vec::new();
    for id in ids {
        if let Some(feed_id) = state.entries.set_read(id, read) {
            state.feeds.count_read(feed_id, read);
            changed.push(id);
        }
    }
    if changed.is_empty() {
        return Vec::new();
    }
    if read {
        state.undo = Some(changed.clone());
    }
    vec![Effect::write(UserWrite::SetRead { ids: changed, read })]
}

/// Marks the selected entry read, if it is not.
pub fn mark_selected_read(state: &mut State) -> Vec<Effect> {
    match state.entries.selected_ref().filter(|r| !r.read).map(|r| r.id) {
        Some(id) => set_read(state, vec![id], true),
        None => Vec::new(),
    }
}

/// The entry the keys act on: the open one in the article pane, else the one under the cursor.
fn target(state: &State) -> Option<EntryRef> {
    let open = state.article.entry_id().filter(|_| state.focus == Pane::Article);
    match open {
        Some(id) => state.entries.refs.iter().find(|r| r.id == id).copied(),
        None => state.entries.selected_ref().copied(),
    }
}

/// Toggles read / unread on the selected entry (the open one, in the article pane).
pub fn toggle_read(state: &mut State) -> Vec<Effect> {
    let Some(entry) = target(state) else { return Vec::new() };
    let now = state.clock.now;
    state.status.info(if entry.read { "Marked unread" } else { "Marked read" }, now);
    set_read(state, vec![entry.id], !entry.read)
}

/// `s`: stars or unstars the selected entry (the open one, in the article pane). Starred entries are never
/// purged.
pub fn toggle_star(state: &mut State) -> Vec<Effect> {
    let Some(entry) = target(state) else { return Vec::new() };
    let starred = !entry.starred;
    state.entries.set_starred(entry.id, starred);
    if let Some(view) = state.article.view.as_mut().filter(|v| v.detail.id == entry.id) {
        view.detail.starred = starred;
    }
    state.feeds.views.starred = (state.feeds.views.starred + if starred { 1 } else { -1 }).max(0);
    let now = state.clock.now;
    state.status.info(if starred { "Starred: kept for good" } else { "Unstarred" }, now);
    vec![Effect::write(UserWrite::SetStarred { ids: vec![entry.id], starred })]
}

/// `u`: undoes the last marking read (an entry opened or toggled, or a whole list).
pub fn undo(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let Some(ids) = state.undo.take() else {
        state.status.info("Nothing to undo", now);
        return Vec::new();
    };
    for id in &ids {
        state.entries.set_read(*id, false);
    }
    state.status.info(
        match ids.len() {
            1 => "Marked 1 entry unread again".to_string(),
            n => format!("Marked {n} entries unread again"),
        },
        now,
    );
    // The counts of every feed involved are read again from the store.
    vec![Effect::write(UserWrite::SetRead { ids, read: false }), Effect::LoadFeeds]
}

/// `A`: marks every entry of the selected list read; asks first when that is more than a screenful.
pub fn mark_all_read(state: &mut State) -> Vec<Effect> {
    let list = match state.focus {
        Pane::Feeds => state.feeds.selected_list(),
        _ => state.entries.of.or(state.feeds.selected_list()),
    };
    let Some(list) = list else { return Vec::new() };
    let unread = if state.entries.of == Some(list) && state.entries.loaded {
        state.entries.refs.iter().filter(|r| !r.read).count() as i64
    } else {
        state.feeds.unread_of(list)
    };
    let now = state.clock.now;
    if unread == 0 && state.entries.of == Some(list) && state.entries.loaded {
        state.status.info("Nothing unread here", now);
        return Vec::new();
    }
    if unread as usize > state.list_height(Pane::Entries) {
        let name = state.list_name(list);
        state.dialog = Some(Dialog::Confirm(Confirm {
            question: format!(
                "Mark {unread} entries of {name} read?{}{}",
                state.keymap.say(Context::General, Action::Undo, " ({} undoes it)"),
                state.yes_or_no()
            ),
            action: Confirmed::MarkRead(list),
        }));
        return Vec::new();
    }
    mark_read_now(state, list)
}

/// Marks every entry of `list` read, at once on screen; the store says which entries it changed (for undo).
pub fn mark_read_now(state: &mut State, list: ListKey) -> Vec<Effect> {
    let ids = state.feeds.feed_ids_of(list);
    let everything = matches!(list, ListKey::All | ListKey::Unread);
    for feed in state.feeds.feeds.iter_mut().filter(|f| everything || ids.contains(&f.id)) {
        feed.unread = 0;
    }
    if state.entries.of == Some(list) {
        if list == ListKey::Unread {
            // The Unread list holds nothing once all is read: its title must not count what it no longer lists.
            state.entries.clear_read();
        } else {
            state.entries.mark_all_read();
        }
    }
    state.feeds.rebuild_rows();
    let source = state.source_of(list);
    vec![Effect::write(UserWrite::MarkListRead { source })]
}

/// The store marked a whole list read: say how many, and keep them for `u`.
pub fn on_list_marked(state: &mut State, source: &ListSource, ids: Vec<EntryId>) -> Vec<Effect> {
    let now = state.clock.now;
    let name = state.list_name(ListKey::of(source));
    let undo = state.keymap.say(Context::General, Action::Undo, " ({} undoes it)");
    state.status.info(
        match ids.len() {
            0 => format!("Nothing was unread in {name}"),
            1 => format!("Marked 1 entry of {name} read{undo}"),
            n => format!("Marked {n} entries of {name} read{undo}"),
        },
        now,
    );
    if !ids.is_empty() {
        state.undo = Some(ids);
    }
    // The store's counts are the truth now.
    vec![Effect::LoadFeeds]
}

/// Entries the user acted on that the store no longer has: retention purged them after they were shown (an old
/// entry read, then a refresh). Said, so that a star or an undo that could not happen does not look done.
pub fn gone_meanwhile(state: &mut State, missing: usize, done: &str) -> Vec<Effect> {
    let what = if missing == 1 { "1 entry was".to_string() } else { format!("{missing} entries were") };
    let now = state.clock.now;
    state
        .status
        .error(format!("{what} not {done}: purged meanwhile as older than keep_days (star entries to keep them)"), now);
    Vec::new()
}
