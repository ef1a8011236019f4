//! Marks on entries: read and unread (opening an entry, `m`, whole lists through `A`, everything above or below
//! the cursor), stars (`s`), and undoing the last marking (`u`), one entry's or many at once (the marked set,
//! see [`super::marked`]). Each changes the lists and counts on screen at once and asks the store to do the same.

use super::dialogs::{Confirm, Confirmed, Dialog};
use super::keymap::{Action, Context};
use super::{Effect, ListKey, Pane, State};
use crate::model::{EntryId, EntryRef, FeedId, ListSource, UserWrite};
use std::collections::{HashMap, HashSet};

/// What `u` puts back: the entries the last marking changed, and the change it made to them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undo {
    pub ids: Vec<EntryId>,
    pub change: Change,
}

/// A change made to entries' flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Marked read (`true`) or unread.
    Read(bool),
    /// Starred (`true`) or unstarred.
    Starred(bool),
}

impl Undo {
    pub fn read(ids: Vec<EntryId>) -> Undo {
        Undo { ids, change: Change::Read(true) }
    }
}

/// After an update: a change `u` cannot undo (a feed renamed, moved or deleted…) ends what `u` could undo, so
/// that `u` never reaches past it to an older marking, perhaps on another list; a marking starts it again.
pub fn after(state: &mut State, effects: &[Effect]) {
    // The last change of the update decides (a macro may pause feeds, then mark a list read: that stays undoable).
    for effect in effects.iter().rev() {
        let Effect::Write { write, .. } = effect else { continue };
        match beyond_undo(write) {
            Some(what) => {
                state.undo = None;
                state.undo_closed = Some(what);
                return;
            }
            None if matches!(
                write,
                UserWrite::SetRead { .. } | UserWrite::SetStarred { .. } | UserWrite::MarkListRead { .. }
            ) =>
            {
                state.undo_closed = None;
                return;
            }
            None => {}
        }
    }
}

/// The change `write` makes, in words, when it is one `u` cannot undo and that changes what is shown (not a
/// setting remembered, a list's order, a folder folded).
fn beyond_undo(write: &UserWrite) -> Option<&'static str> {
    Some(match write {
        UserWrite::AddFeed(_) => "subscribing",
        UserWrite::Import { .. } | UserWrite::CarryOver { .. } => "importing",
        UserWrite::DeleteFeed(_) => "unsubscribing",
        UserWrite::RenameFeed { .. } => "renaming a feed",
        UserWrite::MoveFeed { .. } => "moving a feed",
        UserWrite::CreateFolder(_) => "making a folder",
        UserWrite::MoveFolder { .. } => "moving a folder",
        UserWrite::RenameFolder { .. } => "renaming a folder",
        UserWrite::DeleteFolder { .. } => "deleting a folder",
        UserWrite::SetFeedHidden { .. } => "hiding a feed",
        UserWrite::SetFeedTags { .. } => "tagging a feed",
        UserWrite::SetFeedsPaused { .. } => "pausing or resuming feeds",
        UserWrite::AcceptMove(_) => "accepting a feed's new address",
        UserWrite::SetEncodingOverride { .. } => "forcing an encoding",
        UserWrite::SetFeedFullText { .. } => "changing a feed's full-text setting",
        UserWrite::SetRead { .. }
        | UserWrite::SetStarred { .. }
        | UserWrite::MarkListRead { .. }
        | UserWrite::SetListOrder { .. }
        | UserWrite::SetCollapsed { .. }
        | UserWrite::SetPreference { .. }
        | UserWrite::SaveOnServer { .. } => return None,
    })
}

/// Marks entries read or unread, on screen and in the counts, and asks the store to do the same: those of the
/// list on screen whose state changes, in its order.
pub fn set_read(state: &mut State, ids: Vec<EntryId>, read: bool) -> Vec<Effect> {
    let wanted: HashSet<EntryId> = ids.into_iter().collect();
    let changed = state.entries.set_read_many(&wanted, read);
    if changed.is_empty() {
        return Vec::new();
    }
    let mut per_feed: HashMap<FeedId, i64> = HashMap::new();
    for (_, feed) in &changed {
        *per_feed.entry(*feed).or_default() += 1;
    }
    state.feeds.count_read_many(&per_feed, read);
    let changed: Vec<EntryId> = changed.into_iter().map(|(id, _)| id).collect();
    if read {
        state.undo = Some(Undo::read(changed.clone()));
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
    let now = state.clock.now;
    state.status.info(if starred { "Starred: kept for good" } else { "Unstarred" }, now);
    set_starred(state, vec![entry.id], starred)
}

/// Stars or unstars entries on screen and in the Starred view's count, and asks the store to do the same.
/// Returns nothing when none of them changes.
pub fn set_starred(state: &mut State, ids: Vec<EntryId>, starred: bool) -> Vec<Effect> {
    let listed: HashMap<EntryId, bool> = state.entries.refs.iter().map(|r| (r.id, r.starred)).collect();
    let changed: Vec<EntryId> = ids.into_iter().filter(|id| listed.get(id).is_none_or(|was| *was != starred)).collect();
    if changed.is_empty() {
        return Vec::new();
    }
    state.entries.set_starred_many(&changed.iter().copied().collect(), starred);
    if let Some(view) = state.article.view.as_mut().filter(|v| changed.contains(&v.detail.id)) {
        view.detail.starred = starred;
    }
    let n = changed.len() as i64;
    state.feeds.views.starred = (state.feeds.views.starred + if starred { n } else { -n }).max(0);
    vec![Effect::write(UserWrite::SetStarred { ids: changed, starred })]
}

/// `u`: undoes the last marking (an entry opened or toggled, a whole list, everything above or below the
/// cursor, or what was done to the marked set).
pub fn undo(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let Some(Undo { ids, change }) = state.undo.take() else {
        let why = match state.undo_closed {
            Some(last) => format!(
                "Nothing to undo: the last change, {last}, cannot be undone ({} undoes read, unread and stars)",
                state.keymap.hint(Context::General, Action::Undo)
            ),
            None => "Nothing to undo".into(),
        };
        state.status.info(why, now);
        return Vec::new();
    };
    let entries = |n: usize| if n == 1 { "1 entry".to_string() } else { format!("{n} entries") };
    let n = ids.len();
    let write = match change {
        Change::Read(read) => {
            state.entries.set_read_many(&ids.iter().copied().collect(), !read);
            let again = if read { "unread" } else { "read" };
            state.status.info(format!("Marked {} {again} again", entries(n)), now);
            UserWrite::SetRead { ids, read: !read }
        }
        Change::Starred(starred) => {
            state.entries.set_starred_many(&ids.iter().copied().collect(), !starred);
            if let Some(view) = state.article.view.as_mut().filter(|v| ids.contains(&v.detail.id)) {
                view.detail.starred = !starred;
            }
            let again = if starred { "unstarred" } else { "starred" };
            state.status.info(format!("{} {again} again", entries(n)), now);
            UserWrite::SetStarred { ids, starred: !starred }
        }
    };
    // The counts of every feed involved (and of the Starred view) are read again from the store.
    vec![Effect::write(write), Effect::LoadFeeds]
}

/// Marks read every unread entry above the cursor (`above`), or below it, in the list as it is shown: in the
/// newest-first order, those newer or older than the entry under the cursor. `u` undoes it.
pub fn mark_beside_read(state: &mut State, above: bool) -> Vec<Effect> {
    let now = state.clock.now;
    if state.entries.is_empty() {
        state.status.info("No entries here", now);
        return Vec::new();
    }
    let index = state.entries.cursor.index.min(state.entries.len() - 1);
    let refs = if above { &state.entries.refs[..index] } else { &state.entries.refs[index + 1..] };
    let ids: Vec<EntryId> = refs.iter().filter(|r| !r.read).map(|r| r.id).collect();
    let place = if above { "above" } else { "below" };
    if ids.is_empty() {
        state.status.info(format!("Nothing unread {place} the cursor"), now);
        return Vec::new();
    }
    let n = ids.len();
    let effects = set_read(state, ids, true);
    let undo = state.keymap.say(Context::General, Action::Undo, " ({} undoes it)");
    let what = if n == 1 { "1 entry".to_string() } else { format!("{n} entries") };
    state.status.info(format!("Marked {what} {place} the cursor read{undo}"), now);
    effects
}

/// `A`: marks every entry of the selected list read; asks first when that is more than a screenful, or entries of
/// more than one feed (the Unread list, where the reader opens, is every feed's: newsboat's `A` is one feed's).
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
    let across_feeds = !matches!(list, ListKey::Feed(_));
    if unread as usize > state.list_height(Pane::Entries) || (across_feeds && unread > 1) {
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
        state.undo = Some(Undo::read(ids));
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
