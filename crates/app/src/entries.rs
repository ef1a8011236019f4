//! The entry list: every entry of the list selected in the feed list, as refs (id, feed, read, starred — a
//! 400,000-entry view is a few megabytes), with the rows on screen read on demand; the cursor over it; and what
//! the keys do there (open, sort, unread only). Reading it again when a refresh changes it is paced here too.

use super::list::{ListCursor, Step};
use super::{Effect, ListKey, Pane, State};
use crate::model::{EntryId, EntryRef, EntryRow, Sort, UserWrite};
use std::collections::{HashMap, HashSet};

/// Rows read beyond the ones on screen, each way, so scrolling rarely waits.
const WINDOW_MARGIN: usize = 60;
/// Rows kept in memory before those far from the cursor are dropped.
const ROWS_KEPT: usize = 1_500;

/// What to do when a list arrives: `n`/`p` crossed into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnLoad {
    OpenFirstUnread,
    OpenLastUnread,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntryList {
    /// The list shown (its entries may still be on their way).
    pub of: Option<ListKey>,
    /// Whether the entries of `of` have arrived.
    pub loaded: bool,
    /// Why the list could not be read (a search that means nothing), when it could not.
    pub error: Option<String>,
    /// Every entry of the list, in order.
    pub refs: Vec<EntryRef>,
    /// The rows read so far (those on screen and around them), by id.
    pub rows: HashMap<EntryId, EntryRow>,
    /// Rows asked for and not arrived.
    requested: HashSet<EntryId>,
    pub cursor: ListCursor,
    pub sort: Sort,
    pub unread_only: bool,
    pub on_load: Option<OnLoad>,
    /// Reads of this list on their way. They are answered in the order they were asked, so only the last
    /// one's answer is shown: an older one (the order before `S`, say) would flash on screen and go.
    reads_in_flight: u32,
    /// Entries of this list changed (a refresh brought some) since the read on its way, or the last, was asked.
    stale: bool,
    /// When (clock seconds) the list was last read again because it changed.
    reloaded_at: Option<i64>,
    /// The user moved in this list or opened one of its entries: reading it again keeps the cursor on the same
    /// entry. A list nobody touched stays at its top while a refresh fills it.
    pub touched: bool,
    /// The next arrival puts the cursor on the first entry (a new search, a new order).
    pub to_top: bool,
    /// The marked set (see [`crate::marked`]): entries of this list chosen for what comes next.
    pub marked: HashSet<EntryId>,
    /// The entry marked last: where `X` marks from.
    pub anchor: Option<EntryId>,
}

impl EntryList {
    pub fn len(&self) -> usize {
        self.refs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.refs.is_empty()
    }

    pub fn selected_ref(&self) -> Option<&EntryRef> {
        self.refs.get(self.cursor.index)
    }

    /// The selected entry's row, when it has been read.
    pub fn selected(&self) -> Option<&EntryRow> {
        self.selected_ref().and_then(|r| self.rows.get(&r.id))
    }

    /// The row at `index`, when it has been read.
    pub fn row(&self, index: usize) -> Option<&EntryRow> {
        self.refs.get(index).and_then(|r| self.rows.get(&r.id))
    }

    /// The row of entry `id`, when it has been read.
    pub fn row_by_id(&self, id: EntryId) -> Option<&EntryRow> {
        self.rows.get(&id)
    }

    pub fn position(&self, id: EntryId) -> Option<usize> {
        self.refs.iter().position(|r| r.id == id)
    }

    /// Records an entry's new read state in its ref and row; returns its feed when it changed.
    pub fn set_read(&mut self, id: EntryId, read: bool) -> Option<crate::model::FeedId> {
        let r = self.refs.iter_mut().find(|r| r.id == id && r.read != read)?;
        r.read = read;
        if let Some(row) = self.rows.get_mut(&id) {
            row.read = read;
        }
        Some(r.feed_id)
    }

    /// Records many entries' new read state in one pass over the list: those of `ids` it changed, in the list's
    /// order, with their feeds (a whole list marked at once costs one pass, not one per entry).
    pub fn set_read_many(&mut self, ids: &HashSet<EntryId>, read: bool) -> Vec<(EntryId, crate::model::FeedId)> {
        let mut changed = Vec::new();
        for r in self.refs.iter_mut().filter(|r| r.read != read && ids.contains(&r.id)) {
            r.read = read;
            if let Some(row) = self.rows.get_mut(&r.id) {
                row.read = read;
            }
            changed.push((r.id, r.feed_id));
        }
        changed
    }

    /// Stars or unstars many entries in one pass over the list.
    pub(super) fn set_starred_many(&mut self, ids: &HashSet<EntryId>, starred: bool) {
        for r in self.refs.iter_mut().filter(|r| ids.contains(&r.id)) {
            r.starred = starred;
            if let Some(row) = self.rows.get_mut(&r.id) {
                row.starred = starred;
            }
        }
    }

    /// Every entry read and gone from the list (the Unread view after marking all read).
    pub fn clear_read(&mut self) {
        self.refs.clear();
        self.rows.clear();
        self.cursor = ListCursor::default();
    }

    pub fn mark_all_read(&mut self) {
        for r in &mut self.refs {
            r.read = true;
        }
        for row in self.rows.values_mut() {
            row.read = true;
        }
    }

    /// Rows to read so the window around `offset` is complete; drops rows far from the cursor.
    fn missing_rows(&mut self, offset: usize, height: usize) -> Vec<EntryId> {
        if self.rows.len() > ROWS_KEPT {
            let keep_from = self.cursor.index.saturating_sub(ROWS_KEPT / 3);
            let keep: HashSet<EntryId> =
                self.refs.iter().skip(keep_from).take(ROWS_KEPT * 2 / 3).map(|r| r.id).collect();
            let window: HashSet<EntryId> = self
                .refs
                .iter()
                .skip(offset.saturating_sub(WINDOW_MARGIN))
                .take(height + 2 * WINDOW_MARGIN)
                .map(|r| r.id)
                .collect();
            self.rows.retain(|id, _| keep.contains(id) || window.contains(id));
        }
        let from = offset.saturating_sub(WINDOW_MARGIN);
        let wanted: Vec<EntryId> = self
            .refs
            .iter()
            .skip(from)
            .take(height + 2 * WINDOW_MARGIN)
            .map(|r| r.id)
            .filter(|id| !self.rows.contains_key(id) && !self.requested.contains(id))
            .collect();
        self.requested.extend(wanted.iter().copied());
        wanted
    }
}

/// Shows the list under the feed cursor in the entry pane: a different list empties the pane, drops an article
/// that belongs elsewhere, and asks for the new entries.
pub fn show_selected_list(state: &mut State) -> Vec<Effect> {
    let selected = state.feeds.selected_list();
    if selected.is_some() && selected == state.entries.of {
        return Vec::new();
    }
    // The feed of the article shown, or of the one asked for (its row is in the list being left).
    let article_feed = match (&state.article.view, state.article.wanted) {
        (_, Some(id)) => state.entries.row_by_id(id).map(|r| r.feed_id),
        (Some(view), None) => Some(view.detail.feed_id),
        (None, None) => None,
    };
    state.entries = EntryList { of: selected, ..EntryList::default() };
    let kept = article_feed.is_some_and(|feed| selected.is_some_and(|list| state.feeds.covers(list, feed)));
    if !kept {
        state.article = Default::default();
    }
    // An article kept on screen keeps the cursor on its entry in the new list (or goes, when it is not there).
    let keep = state.article.entry_id();
    state.entries.touched = keep.is_some();
    match selected {
        Some(list) => vec![load(state, list, None, keep)],
        None => Vec::new(),
    }
}

/// Asks for `list`'s entries (in `order`, or its remembered one), keeping the cursor on `keep` when it is
/// still there.
fn load(state: &mut State, list: ListKey, order: Option<(Sort, bool)>, keep: Option<EntryId>) -> Effect {
    if state.entries.of == Some(list) {
        state.entries.reads_in_flight += 1;
    }
    Effect::LoadEntries { list, source: state.source_of(list), order, keep }
}

/// Asks for the shown list again, keeping the cursor on the selected entry.
pub fn reload(state: &mut State) -> Vec<Effect> {
    let Some(list) = state.entries.of else { return Vec::new() };
    let keep = state.entries.selected_ref().map(|r| r.id);
    state.entries.stale = false;
    let order = Some((state.entries.sort, state.entries.unread_only));
    vec![load(state, list, order, keep)]
}

/// Entries of the list on screen changed behind it (a refresh or a purge): it is read again, but not twice in
/// one second of the clock and never while a read of it is on its way. A refresh of thousands of feeds into a
/// 200,000-entry view would otherwise queue thousands of reads of tens of milliseconds each, taking a core
/// from the refresh. What is held back is read at the next tick (they come a second apart), or when the
/// refresh ends. A list that could not be read (a search that means nothing) is not asked again.
pub fn changed(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let list = &mut state.entries;
    if list.of.is_none() || list.error.is_some() {
        return Vec::new();
    }
    if list.reads_in_flight > 0 || list.reloaded_at.is_some_and(|at| at >= now) {
        list.stale = true;
        return Vec::new();
    }
    list.reloaded_at = Some(now);
    reload(state)
}

/// A tick, or the end of a refresh: a list left stale is read now, unless a read is already on its way (its
/// arrival asks again once the refresh has ended; during one, the next tick does).
pub fn catch_up(state: &mut State) -> Vec<Effect> {
    if !state.entries.stale || state.entries.reads_in_flight > 0 {
        return Vec::new();
    }
    state.entries.reloaded_at = Some(state.clock.now);
    reload(state)
}

/// The list's entries arrived; those of a list no longer selected are dropped, and a list read before the user's
/// latest write is asked for again (it would undo the change on screen).
#[allow(clippy::too_many_arguments)]
pub fn on_loaded(
    state: &mut State,
    list: ListKey,
    refs: Vec<EntryRef>,
    rows: Vec<EntryRow>,
    order: (Sort, bool),
    keep: Option<EntryId>,
    seen: crate::WriteId,
) -> Vec<Effect> {
    if state.entries.of != Some(list) {
        return Vec::new();
    }
    state.entries.reads_in_flight = state.entries.reads_in_flight.saturating_sub(1);
    if seen < state.saving.last_issued() {
        return vec![load(state, list, Some(order), keep)];
    }
    if state.entries.reads_in_flight > 0 {
        // A newer read of this list is on its way; its answer is the one to show.
        return Vec::new();
    }
    // A list the user has not touched stays at its top (newer entries arrive above); a new search or order
    // starts there.
    let keep = if std::mem::take(&mut state.entries.to_top) || !state.entries.touched {
        None
    } else {
        keep.or_else(|| state.entries.selected_ref().map(|r| r.id))
    };
    let first = !state.entries.loaded;
    if first
        && let Some(open) = state.article.entry_id()
        && !refs.iter().any(|r| r.id == open)
    {
        // A new list (a new search, a view) that does not hold the open article: it would read as one of its.
        state.article = Default::default();
    }
    let list_state = &mut state.entries;
    list_state.refs = refs;
    list_state.rows = rows.into_iter().map(|r| (r.id, r)).collect();
    list_state.requested.clear();
    list_state.loaded = true;
    list_state.error = None;
    (list_state.sort, list_state.unread_only) = order;
    let scope = match state.feeds.search.as_ref().and_then(|s| s.within) {
        Some(within) => format!(" in {}", state.list_name(within)),
        None => String::new(),
    };
    if let (ListKey::Search, Some(search)) = (list, state.feeds.search.as_mut()) {
        search.count = Some(state.entries.refs.len());
        // Said once per search, not each time its list is read again.
        if first && !std::mem::replace(&mut search.announced, true) {
            let (n, query) = (state.entries.refs.len(), crate::sanitize::one_line(&search.query, 100));
            let text = match n {
                0 => format!("Nothing matches {query}{scope}"),
                1 => format!("1 entry matches {query}{scope}"),
                n => format!("{n} entries match {query}{scope}"),
            };
            state.status.info(text, state.clock.now);
        }
    }
    let index = keep.and_then(|id| state.entries.position(id)).unwrap_or(0);
    let height = state.list_height(Pane::Entries);
    let len = state.entries.len();
    state.entries.cursor.select(index, len, height);
    let mut effects = window(state);
    if state.progress.is_idle() {
        // The refresh ended while this read was on its way: what it held back is read now.
        effects.extend(catch_up(state));
    }
    match state.entries.on_load.take() {
        Some(OnLoad::OpenFirstUnread) => effects.extend(open_unread_from(state, 0, true)),
        Some(OnLoad::OpenLastUnread) => effects.extend(open_unread_from(state, state.entries.len(), false)),
        None => {}
    }
    effects
}

/// Opens the first unread entry at or after `start` (forward), or before `start` (backward).
pub(super) fn open_unread_from(state: &mut State, start: usize, forward: bool) -> Vec<Effect> {
    let refs = &state.entries.refs;
    let found = if forward {
        refs.iter().skip(start).position(|r| !r.read).map(|i| start + i)
    } else {
        refs[..start.min(refs.len())].iter().rposition(|r| !r.read)
    };
    match found {
        Some(index) => open_at(state, index),
        None => Vec::new(),
    }
}

/// The list could not be read (a search that means nothing): say why, in the pane and the status bar.
pub fn on_failed(state: &mut State, list: ListKey, message: String) -> Vec<Effect> {
    if state.entries.of == Some(list) {
        state.entries.loaded = true;
        state.entries.reads_in_flight = state.entries.reads_in_flight.saturating_sub(1);
        state.entries.error = Some(message.clone());
        state.entries.on_load = None;
    }
    if let (ListKey::Search, Some(search)) = (list, state.feeds.search.as_mut()) {
        search.count = Some(0);
    }
    let now = state.clock.now;
    state.status.error(message, now);
    Vec::new()
}

/// Rows arrived for the list on screen.
pub fn on_rows(state: &mut State, list: ListKey, rows: Vec<EntryRow>) -> Vec<Effect> {
    if state.entries.of != Some(list) {
        return Vec::new();
    }
    for row in rows {
        state.entries.requested.remove(&row.id);
        // The ref knows better: a read or star toggled since the row was asked for.
        let mut row = row;
        if let Some(r) = state.entries.refs.iter().find(|r| r.id == row.id) {
            row.read = r.read;
            row.starred = r.starred;
        }
        state.entries.rows.insert(row.id, row);
    }
    Vec::new()
}

/// Asks for the rows around what the pane shows that have not been read yet.
pub fn window(state: &mut State) -> Vec<Effect> {
    let Some(list) = state.entries.of else { return Vec::new() };
    let height = state.list_height(Pane::Entries);
    let offset = state.entries.cursor.offset;
    let ids = state.entries.missing_rows(offset, height);
    if ids.is_empty() { Vec::new() } else { vec![Effect::LoadRows { list, ids }] }
}

pub fn step(state: &mut State, step: Step) -> Vec<Effect> {
    state.entries.touched = true;
    let height = state.list_height(Pane::Entries);
    let len = state.entries.len();
    state.entries.cursor.step(step, len, height);
    window(state)
}

/// Puts the cursor on `index` and opens that entry.
pub(super) fn open_at(state: &mut State, index: usize) -> Vec<Effect> {
    state.entries.touched = true;
    let height = state.list_height(Pane::Entries);
    let len = state.entries.len();
    state.entries.cursor.select(index, len, height);
    let mut effects = window(state);
    effects.extend(open(state));
    effects
}

/// Opens the entry under the cursor: asks for its article and marks it read.
pub fn open(state: &mut State) -> Vec<Effect> {
    let Some(id) = state.entries.selected_ref().map(|r| r.id) else {
        return Vec::new();
    };
    let mut effects = vec![Effect::LoadArticle(id)];
    effects.extend(super::marks::mark_selected_read(state));
    state.article.wanted = Some(id);
    state.focus = Pane::Article;
    effects
}

/// `S`: the next order for this list (newest, oldest, by feed, by title), remembered for it.
pub fn cycle_sort(state: &mut State) -> Vec<Effect> {
    let Some(list) = state.entries.of else { return Vec::new() };
    let sort = state.entries.sort.next();
    let unread_only = state.entries.unread_only;
    let now = state.clock.now;
    state.status.info(format!("Sorted by {}", sort_words(sort)), now);
    reorder(state, list, sort, unread_only)
}

/// `:set sort NAME`: this order for the list, remembered for it.
pub fn sort_by(state: &mut State, sort: Sort) -> Vec<Effect> {
    let Some(list) = state.entries.of else { return Vec::new() };
    let unread_only = state.entries.unread_only;
    let now = state.clock.now;
    state.status.info(format!("Sorted by {}", sort_words(sort)), now);
    reorder(state, list, sort, unread_only)
}

/// `U`: only the unread entries of this list, or all of them again; remembered for it.
pub fn toggle_unread_only(state: &mut State) -> Vec<Effect> {
    let Some(list) = state.entries.of else { return Vec::new() };
    let unread_only = !state.entries.unread_only;
    let now = state.clock.now;
    state.status.info(if unread_only { "Showing unread entries only" } else { "Showing every entry" }, now);
    let sort = state.entries.sort;
    reorder(state, list, sort, unread_only)
}

fn reorder(state: &mut State, list: ListKey, sort: Sort, unread_only: bool) -> Vec<Effect> {
    let keep = state.entries.selected_ref().map(|r| r.id);
    // A new order starts at the top; showing only the unread ones keeps the entry under the cursor.
    state.entries.to_top = sort != state.entries.sort;
    state.entries.sort = sort;
    state.entries.unread_only = unread_only;
    let source = state.source_of(list);
    vec![
        Effect::write(UserWrite::SetListOrder { source, sort, unread_only }),
        load(state, list, Some((sort, unread_only)), keep),
    ]
}

pub fn sort_words(sort: Sort) -> &'static str {
    match sort {
        Sort::Newest => "date, newest first",
        Sort::Oldest => "date, oldest first",
        Sort::ByFeed => "feed",
        Sort::ByTitle => "title",
    }
}
