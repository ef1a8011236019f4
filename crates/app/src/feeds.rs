//! The feed list: the smart views (All, Unread, Starred, the last search), then folders as a tree and the
//! subscriptions in them, the cursor over the rows, and what the keys do there (fold a folder, read a feed in
//! full, force its encoding). Knows feeds by id; the store's rows arrive in events. Marking a whole list read
//! is in [`super::marks`].

use super::dialogs::Dialog;
use super::keymap::{Action, Context};
use super::list::{ListCursor, Step};
use super::{Effect, ListKey, Pane, State};
use crate::model::{FeedId, FeedRow, FolderId, FolderRow, UserWrite, ViewCounts};
use std::collections::{HashMap, HashSet};

/// A row of the feed list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedListRow {
    /// A smart view: All, Unread, Starred, or the last search.
    View(ListKey),
    Folder {
        id: FolderId,
        name: String,
        /// How deep in the tree (0 at the top level).
        depth: usize,
        /// Unread entries of every feed in the folder and the folders inside it.
        unread: i64,
        collapsed: bool,
    },
    /// Index into [`FeedList::feeds`].
    Feed { index: usize, depth: usize },
}

/// A saved view (`[[views]]` in the config): a query, listed under the smart views with its unread count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedView {
    pub name: String,
    pub query: String,
    /// Its unread entries, once counted (the counts are read off the loop's thread, after the feed list).
    pub unread: Option<i64>,
}

/// The last search, shown as a view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchView {
    pub query: String,
    /// Written in the query language (`title ~ rust and unread`) rather than as plain search words.
    pub is_query: bool,
    /// The feed or folder searched in; `None` for every feed.
    pub within: Option<ListKey>,
    /// How many entries matched, once known.
    pub count: Option<usize>,
    /// The status bar has said how many matched.
    pub announced: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedList {
    pub feeds: Vec<FeedRow>,
    pub folders: Vec<FolderRow>,
    pub views: ViewCounts,
    pub search: Option<SearchView>,
    /// The saved views, in the config's order.
    pub saved: Vec<SavedView>,
    /// The saved views' counts are being read; `recount` when they must be read again after that.
    pub counting: bool,
    pub recount: bool,
    /// The query the save-view prompt saves.
    pub saving: Option<String>,
    pub rows: Vec<FeedListRow>,
    pub collapsed: HashSet<FolderId>,
    pub cursor: ListCursor,
    /// Whether the list has been read from the store at least once.
    pub loaded: bool,
    /// The list to put the cursor on when the feed list next arrives (a feed just added or moved).
    pub select_when_loaded: Option<ListKey>,
    /// The next list to arrive was read because another process wrote (a headless refresh): feeds it saw fail
    /// are said, as the reader's own refresh says them.
    pub changed_outside: bool,
    /// Feeds (and folders) with nothing unread are left out of the list (the one selected stays).
    pub hide_read: bool,
    /// Hidden feeds (newsboat's `!`) are listed too.
    pub show_hidden: bool,
}

impl FeedList {
    pub fn feed(&self, id: FeedId) -> Option<&FeedRow> {
        self.feeds.iter().find(|f| f.id == id)
    }

    pub fn feed_mut(&mut self, id: FeedId) -> Option<&mut FeedRow> {
        self.feeds.iter_mut().find(|f| f.id == id)
    }

    pub fn folder(&self, id: FolderId) -> Option<&FolderRow> {
        self.folders.iter().find(|f| f.id == id)
    }

    pub fn folder_name(&self, id: FolderId) -> Option<&str> {
        self.folder(id).map(|f| f.name.as_str())
    }

    /// A folder's path of names from the top.
    pub fn folder_names(&self, id: FolderId) -> Vec<String> {
        let mut names = Vec::new();
        let mut next = Some(id);
        while let Some(folder) = next.and_then(|id| self.folder(id)) {
            names.push(folder.name.clone());
            next = folder.parent.filter(|_| names.len() < 64);
        }
        names.reverse();
        names
    }

    /// A folder's path from the top, as people read it: "Tech/Rust".
    pub fn folder_path(&self, id: FolderId) -> String {
        self.folder_names(id).join("/")
    }

    pub fn selected_row(&self) -> Option<&FeedListRow> {
        self.rows.get(self.cursor.index)
    }

    /// The list under the cursor.
    pub fn selected_list(&self) -> Option<ListKey> {
        self.rows.get(self.cursor.index).and_then(|r| self.list_of(r))
    }

    pub fn list_of(&self, row: &FeedListRow) -> Option<ListKey> {
        match row {
            FeedListRow::View(list) => Some(*list),
            FeedListRow::Folder { id, .. } => Some(ListKey::Folder(*id)),
            FeedListRow::Feed { index, .. } => self.feeds.get(*index).map(|f| ListKey::Feed(f.id)),
        }
    }

    pub fn selected_feed(&self) -> Option<&FeedRow> {
        match self.selected_row()? {
            FeedListRow::Feed { index, .. } => self.feeds.get(*index),
            _ => None,
        }
    }

    /// The folder the cursor is in: a folder row, or a feed inside a folder.
    pub fn folder_under_cursor(&self) -> Option<FolderId> {
        match self.selected_row()? {
            FeedListRow::Folder { id, .. } => Some(*id),
            FeedListRow::Feed { index, .. } => self.feeds.get(*index)?.folder_id,
            FeedListRow::View(_) => None,
        }
    }

    /// A folder and every folder inside it.
    pub fn subtree(&self, root: FolderId) -> HashSet<FolderId> {
        let mut inside = HashSet::from([root]);
        loop {
            let before = inside.len();
            for f in &self.folders {
                if f.parent.is_some_and(|p| inside.contains(&p)) {
                    inside.insert(f.id);
                }
            }
            if inside.len() == before {
                return inside;
            }
        }
    }

    /// The feeds a feed or folder list covers (none for the smart views: they cover everything).
    pub fn feed_ids_of(&self, list: ListKey) -> Vec<FeedId> {
        match list {
            ListKey::Feed(id) => vec![id],
            ListKey::Folder(folder) => {
                let inside = self.subtree(folder);
                self.feeds.iter().filter(|f| f.folder_id.is_some_and(|id| inside.contains(&id))).map(|f| f.id).collect()
            }
            ListKey::All | ListKey::Unread | ListKey::Starred | ListKey::Search | ListKey::View(_) => Vec::new(),
        }
    }

    /// Whether an entry of `feed_id` belongs in `list`, as far as the feed list can tell.
    pub fn covers(&self, list: ListKey, feed_id: FeedId) -> bool {
        match list {
            ListKey::Feed(_) | ListKey::Folder(_) => self.feed_ids_of(list).contains(&feed_id),
            ListKey::All | ListKey::Unread | ListKey::Starred | ListKey::Search | ListKey::View(_) => true,
        }
    }

    pub fn total_unread(&self) -> i64 {
        self.feeds.iter().map(|f| f.unread).sum()
    }

    /// The unread entries a list holds, as the counts know them.
    pub fn unread_of(&self, list: ListKey) -> i64 {
        match list {
            ListKey::Feed(_) | ListKey::Folder(_) => {
                let ids = self.feed_ids_of(list);
                self.feeds.iter().filter(|f| ids.contains(&f.id)).map(|f| f.unread).sum()
            }
            ListKey::All | ListKey::Unread => self.total_unread(),
            // Unknown without the list: the caller counts its refs when it has them.
            ListKey::Starred | ListKey::Search => 0,
            ListKey::View(i) => self.saved.get(i).and_then(|v| v.unread).unwrap_or(0),
        }
    }

    /// Rebuilds the rows: the smart views, the top-level feeds, then each folder (empty ones too) followed by its
    /// feeds and the folders inside it, unless folded.
    pub fn rebuild_rows(&mut self) {
        // The feed under the cursor stays listed, and under the cursor, whatever is left out around it.
        let keep = self.selected_feed().map(|f| f.id);
        let mut rows = vec![
            FeedListRow::View(ListKey::All),
            FeedListRow::View(ListKey::Unread),
            FeedListRow::View(ListKey::Starred),
        ];
        if self.search.is_some() {
            rows.push(FeedListRow::View(ListKey::Search));
        }
        rows.extend((0..self.saved.len()).map(|i| FeedListRow::View(ListKey::View(i))));
        let known: HashSet<FolderId> = self.folders.iter().map(|f| f.id).collect();
        let mut children: HashMap<Option<FolderId>, Vec<&FolderRow>> = HashMap::new();
        for f in &self.folders {
            // A parent that is not there (or a cycle's way in) puts the folder at the top level.
            let parent = f.parent.filter(|p| known.contains(p) && *p != f.id);
            children.entry(parent).or_default().push(f);
        }
        let mut feeds_in: HashMap<Option<FolderId>, Vec<usize>> = HashMap::new();
        for (i, f) in self.feeds.iter().enumerate() {
            // A feed in trouble stays in sight whatever `hide_read_feeds` says: it needs a look.
            let left_out = (f.hidden && !self.show_hidden) || (self.hide_read && f.unread == 0 && !f.in_trouble());
            if left_out && Some(f.id) != keep {
                continue;
            }
            let folder = f.folder_id.filter(|id| known.contains(id));
            feeds_in.entry(folder).or_default().push(i);
        }
        let unread = self.folder_unread();
        let mut visited = HashSet::new();
        self.push_level(&mut rows, None, 0, &children, &feeds_in, &unread, &mut visited);
        // Folders a cycle cut off from the top are shown at the top level rather than lost.
        let orphans: Vec<FolderId> = self.folders.iter().map(|f| f.id).filter(|id| !visited.contains(id)).collect();
        for id in orphans {
            if !visited.contains(&id) {
                self.push_folder(&mut rows, id, 0, &children, &feeds_in, &unread, &mut visited);
            }
        }
        if self.hide_read {
            // A folder with nothing listed inside it goes too; one with nothing in it at all (a new one) stays.
            let full: HashSet<FolderId> = self
                .feeds
                .iter()
                .filter_map(|f| f.folder_id)
                .chain(self.folders.iter().filter_map(|f| f.parent))
                .collect();
            let mut listed = vec![false; rows.len()];
            for i in (0..rows.len()).rev() {
                listed[i] = match &rows[i] {
                    FeedListRow::Folder { id, .. } if !full.contains(id) => true,
                    FeedListRow::Folder { depth, collapsed: false, .. } => rows[i + 1..]
                        .iter()
                        .zip(&listed[i + 1..])
                        .take_while(|(r, _)| row_depth(r) > *depth)
                        .any(|(_, l)| *l),
                    FeedListRow::Folder { unread, .. } => *unread > 0,
                    _ => true,
                };
            }
            let mut i = 0;
            rows.retain(|_| {
                i += 1;
                listed[i - 1]
            });
        }
        self.rows = rows;
        let kept = keep.and_then(|id| {
            self.rows.iter().position(|r| matches!(r, FeedListRow::Feed { index, .. } if self.feeds[*index].id == id))
        });
        self.cursor.index = kept.unwrap_or(self.cursor.index).min(self.rows.len().saturating_sub(1));
    }

    #[allow(clippy::too_many_arguments)]
    fn push_level(
        &self,
        rows: &mut Vec<FeedListRow>,
        parent: Option<FolderId>,
        depth: usize,
        children: &HashMap<Option<FolderId>, Vec<&FolderRow>>,
        feeds_in: &HashMap<Option<FolderId>, Vec<usize>>,
        unread: &HashMap<FolderId, i64>,
        visited: &mut HashSet<FolderId>,
    ) {
        for index in feeds_in.get(&parent).into_iter().flatten() {
            rows.push(FeedListRow::Feed { index: *index, depth });
        }
        for folder in children.get(&parent).into_iter().flatten() {
            self.push_folder(rows, folder.id, depth, children, feeds_in, unread, visited);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push_folder(
        &self,
        rows: &mut Vec<FeedListRow>,
        id: FolderId,
        depth: usize,
        children: &HashMap<Option<FolderId>, Vec<&FolderRow>>,
        feeds_in: &HashMap<Option<FolderId>, Vec<usize>>,
        unread: &HashMap<FolderId, i64>,
        visited: &mut HashSet<FolderId>,
    ) {
        if !visited.insert(id) {
            return;
        }
        let collapsed = self.collapsed.contains(&id);
        let name = self.folder_name(id).unwrap_or_default().to_string();
        rows.push(FeedListRow::Folder { id, name, depth, unread: unread.get(&id).copied().unwrap_or(0), collapsed });
        if !collapsed {
            self.push_level(rows, Some(id), depth + 1, children, feeds_in, unread, visited);
        } else {
            // Folded: its subtree is not shown, but it is still visited (so it is not taken for an orphan).
            for inside in self.subtree(id) {
                visited.insert(inside);
            }
        }
    }

    /// Unread entries under each folder, the folders inside it included.
    /// The folder rows' unread sums again, after feeds' counts changed: the rows stay as they are (they hold
    /// feeds by index; titles and flags are read from the feeds when drawn). A refresh's thousands of results
    /// each cost this, not a rebuild of the whole tree.
    pub fn recount(&mut self) {
        // The Unread view counts what the feeds count: one source of truth while a refresh goes on.
        self.views.unread = self.total_unread();
        let unread = self.folder_unread();
        for row in &mut self.rows {
            if let FeedListRow::Folder { id, unread: count, .. } = row {
                *count = unread.get(id).copied().unwrap_or(0);
            }
        }
    }

    fn folder_unread(&self) -> HashMap<FolderId, i64> {
        let parent: HashMap<FolderId, Option<FolderId>> = self.folders.iter().map(|f| (f.id, f.parent)).collect();
        let mut sums: HashMap<FolderId, i64> = HashMap::new();
        // A hidden feed's entries are not counted where the feed is not listed.
        for feed in self.feeds.iter().filter(|f| f.unread > 0 && (!f.hidden || self.show_hidden)) {
            let mut next = feed.folder_id;
            // Each ancestor once, even if the tree has a cycle.
            let mut seen = HashSet::new();
            while let Some(id) = next.filter(|id| seen.insert(*id)) {
                *sums.entry(id).or_default() += feed.unread;
                next = parent.get(&id).copied().flatten();
            }
        }
        sums
    }

    /// The row showing `list`, if it is shown.
    pub fn row_of(&self, list: ListKey) -> Option<usize> {
        self.rows.iter().position(|r| self.list_of(r) == Some(list))
    }

    /// Counts an entry's change of read state in its feed's unread count and the views'.
    /// Counts many entries read (or unread) at once, `per_feed` of each feed, with one rebuild of the rows.
    pub fn count_read_many(&mut self, per_feed: &HashMap<FeedId, i64>, read: bool) {
        let sign = if read { -1 } else { 1 };
        let mut total = 0;
        for (feed_id, n) in per_feed {
            if let Some(feed) = self.feed_mut(*feed_id) {
                feed.unread = (feed.unread + sign * n).max(0);
            }
            total += n;
        }
        self.views.unread = (self.views.unread + sign * total).max(0);
        self.rebuild_rows();
    }

    pub fn count_read(&mut self, feed_id: FeedId, read: bool) {
        let delta = if read { -1 } else { 1 };
        if let Some(feed) = self.feed_mut(feed_id) {
            feed.unread = (feed.unread + delta).max(0);
        }
        self.views.unread = (self.views.unread + delta).max(0);
        self.rebuild_rows();
    }
}

/// The feed list arrived from the store: keep the cursor on the same list, and load its entries.
pub fn on_loaded(
    state: &mut State,
    mut feeds: Vec<FeedRow>,
    folders: Vec<FolderRow>,
    views: ViewCounts,
) -> Vec<Effect> {
    for feed in &mut feeds {
        if let Some(error) = &mut feed.last_error {
            *error = super::status::in_reader_words(&state.keymap, error);
        }
    }
    let list = &mut state.feeds;
    let keep = list.select_when_loaded.take().or(list.selected_list());
    let (was_loaded, row_before) = (list.loaded, list.cursor.index);
    // Only while the reader's own refresh is not running: its failures are said as they come.
    let outside = std::mem::take(&mut list.changed_outside) && state.progress.is_idle();
    let failed_outside: Vec<(FeedId, String)> = if outside {
        feeds
            .iter()
            .filter(|new| {
                // Fetched since the list on screen was read (or new: added from the command line), and failed.
                let old = list.feeds.iter().find(|old| old.id == new.id);
                new.last_error.is_some()
                    && new.last_fetched_at.is_some()
                    && old.is_none_or(|old| old.last_fetched_at != new.last_fetched_at)
            })
            .map(|f| {
                (
                    f.id,
                    format!(
                        "{}: {}",
                        crate::sanitize::one_line(&f.title, 200),
                        f.last_error.as_deref().unwrap_or_default()
                    ),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    list.feeds = feeds;
    list.collapsed = folders.iter().filter(|f| f.collapsed).map(|f| f.id).collect();
    list.folders = folders;
    list.views = views;
    list.loaded = true;
    list.rebuild_rows();
    // The first time, the Unread view: what is new is what a reader opens tidings for. Later the same list,
    // or, when it has gone (deleted), the row that took its place.
    let index = match keep.filter(|_| was_loaded) {
        Some(list_key) => list.row_of(list_key).unwrap_or(row_before.min(list.rows.len().saturating_sub(1))),
        None => keep.or(Some(ListKey::Unread)).and_then(|k| list.row_of(k)).unwrap_or(0),
    };
    let height = state.list_height(Pane::Feeds);
    state.feeds.cursor.select(index, state.feeds.rows.len(), height);
    let now = state.clock.now;
    for feed in state.feeds.feeds.iter().filter(|f| f.last_error.is_none()) {
        // A feed the other process refreshed fine: an error about it is no longer news.
        state.status.feed_recovered(feed.id);
    }
    for (feed, message) in failed_outside {
        state.status.feed_error(feed, message, now);
    }
    let mut effects = super::entries::show_selected_list(state);
    effects.extend(count_views(state));
    if std::mem::take(&mut state.refresh.when_loaded) {
        effects.extend(super::progress::refresh_all(state));
    } else if std::mem::take(&mut state.sync.when_loaded) {
        effects.extend(super::sync::all(state));
    }
    effects
}

/// How deep a row is in the tree (views at 0).
fn row_depth(row: &FeedListRow) -> usize {
    match row {
        FeedListRow::View(_) => 0,
        FeedListRow::Folder { depth, .. } | FeedListRow::Feed { depth, .. } => *depth,
    }
}

/// `J`, `K` (and with `unread`, `Ctrl-n`, `Ctrl-p`): the next or previous feed of the feed list (with unread
/// entries), its entries shown; the focus stays where it is.
pub fn next_feed(state: &mut State, forward: bool, unread: bool) -> Vec<Effect> {
    let rows = &state.feeds.rows;
    let len = rows.len();
    let here = state.feeds.cursor.index;
    let wanted = |i: usize| match &rows[i] {
        FeedListRow::Feed { index, .. } => !unread || state.feeds.feeds[*index].unread > 0,
        _ => false,
    };
    let found = (1..len)
        .map(|step| if forward { here + step } else { here.wrapping_sub(step) })
        .take_while(|i| *i < len)
        .find(|i| wanted(*i));
    let now = state.clock.now;
    let Some(row) = found else {
        let what = if unread { "feed with unread entries" } else { "feed" };
        state.status.info(format!("No {} {what}", if forward { "next" } else { "previous" }), now);
        return Vec::new();
    };
    let height = state.list_height(Pane::Feeds);
    state.feeds.cursor.select(row, len, height);
    let effects = super::entries::show_selected_list(state);
    if state.focus == Pane::Article {
        state.focus = Pane::Entries;
    }
    effects
}

/// `H`: feeds with nothing unread left out of the feed list, or listed again; remembered across restarts.
pub fn toggle_hide_read(state: &mut State) -> Vec<Effect> {
    state.feeds.hide_read = !state.feeds.hide_read;
    state.feeds.rebuild_rows();
    let now = state.clock.now;
    let back = state.keymap.say(Context::General, Action::HideReadFeeds, " ({} shows them)");
    state.status.info(
        if state.feeds.hide_read {
            format!("Feeds with nothing unread are hidden{back}")
        } else {
            "Every feed is shown".into()
        },
        now,
    );
    let value = if state.feeds.hide_read { "on" } else { "off" };
    vec![Effect::write(UserWrite::SetPreference { name: "hide_read_feeds".into(), value: Some(value.into()) })]
}

/// Asks for the saved views' counts, unless a count is on its way (then once more after it).
pub fn count_views(state: &mut State) -> Vec<Effect> {
    let list = &mut state.feeds;
    if list.saved.is_empty() {
        return Vec::new();
    }
    if list.counting {
        list.recount = true;
        return Vec::new();
    }
    list.counting = true;
    list.recount = false;
    vec![Effect::CountViews(list.saved.iter().enumerate().map(|(i, v)| (i, v.query.clone())).collect())]
}

/// The saved views' counts arrived.
pub fn on_views_counted(state: &mut State, counts: Vec<(usize, Result<i64, String>)>) -> Vec<Effect> {
    let now = state.clock.now;
    state.feeds.counting = false;
    for (index, count) in counts {
        match count {
            Ok(n) => {
                if let Some(view) = state.feeds.saved.get_mut(index) {
                    view.unread = Some(n);
                }
            }
            Err(why) => {
                let name = state.list_name(ListKey::View(index));
                state.status.error(format!("view {name}: {why}"), now);
            }
        }
    }
    if state.feeds.recount { count_views(state) } else { Vec::new() }
}

/// Moves the cursor; a new list under it is loaded into the entry pane.
pub fn step(state: &mut State, step: Step) -> Vec<Effect> {
    let height = state.list_height(Pane::Feeds);
    let len = state.feeds.rows.len();
    state.feeds.cursor.step(step, len, height);
    super::entries::show_selected_list(state)
}

/// Puts the cursor on `list`'s row (when it is shown) and shows its entries.
pub fn select(state: &mut State, list: ListKey) -> Vec<Effect> {
    let Some(row) = state.feeds.row_of(list) else { return Vec::new() };
    let height = state.list_height(Pane::Feeds);
    let len = state.feeds.rows.len();
    state.feeds.cursor.select(row, len, height);
    super::entries::show_selected_list(state)
}

/// Enter on the feed list: fold or unfold a folder, or go to the entries of a feed or view.
pub fn open(state: &mut State) -> Vec<Effect> {
    if let Some(FeedListRow::Folder { id, .. }) = state.feeds.selected_row().cloned() {
        let collapsed = !state.feeds.collapsed.remove(&id);
        if collapsed {
            state.feeds.collapsed.insert(id);
        }
        state.feeds.rebuild_rows();
        return vec![Effect::write(UserWrite::SetCollapsed { folder_id: id, collapsed })];
    }
    if !state.entries.refs.is_empty() {
        state.focus = Pane::Entries;
    }
    Vec::new()
}

/// `T`: the selected feed's new entries are fetched in full on refresh (a feed of snippets), or no longer.
pub fn toggle_full_text(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let Some(feed_id) = feed_in_focus(state) else {
        state.status.info("Select a feed to fetch its entries in full", now);
        return Vec::new();
    };
    let Some(feed) = state.feeds.feed_mut(feed_id) else { return Vec::new() };
    feed.full_text = !feed.full_text;
    let on = feed.full_text;
    let title = crate::sanitize::one_line(&feed.title, 80);
    state.status.info(
        if on {
            format!(
                "{title}: new entries are fetched in full on refresh{}",
                state.keymap.say(Context::General, Action::FullText, " ({} on an entry does it now)")
            )
        } else {
            format!("{title}: entries are no longer fetched in full")
        },
        now,
    );
    vec![Effect::write(UserWrite::SetFeedFullText { feed_id, on })]
}

/// The feed that feed info and forcing an encoding act on: the selected feed, or the feed of the open entry.
pub fn feed_in_focus(state: &State) -> Option<FeedId> {
    match state.focus {
        // The entry being opened when keys came ahead of it (its row has its feed), else the one shown.
        Pane::Article => match state.article.wanted {
            Some(id) => state.entries.row_by_id(id).map(|e| e.feed_id),
            None => state.article.view.as_ref().map(|a| a.detail.feed_id),
        },
        Pane::Entries => state.entries.selected_ref().map(|e| e.feed_id).or(state.feeds.selected_feed().map(|f| f.id)),
        Pane::Feeds => state.feeds.selected_feed().map(|f| f.id),
    }
}

/// The answer to the encoding prompt: force that encoding (or, empty, stop forcing one) and refresh the feed.
/// The feed-info window's `key = value` (or `key` alone, to remove it): one of the feed's settings, checked and
/// written by the runtime (the config is their source of truth).
pub fn set_setting(state: &mut State, feed_id: FeedId, answer: &str) -> Result<Vec<Effect>, String> {
    let setting = answer.trim();
    let key = setting.split('=').next().unwrap_or("").trim();
    if key.is_empty() {
        return Err("write it as key = value (refresh_minutes = 15), or a key alone to remove it".into());
    }
    let Some(feed) = state.feeds.feed(feed_id) else { return Err("the feed is gone".into()) };
    let effect = match (key, setting.split_once('=')) {
        // The feed's tags (`tags = "Long Reads, news/science"`, or `tags` alone for none) live in the database.
        ("tags", value) => {
            let value = value.map_or("", |(_, v)| v.trim());
            let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
            let tags = value.split(',').map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
            Effect::write(UserWrite::SetFeedTags { feed_id, tags })
        }
        _ => Effect::SetFeedSetting { feed_id, url: feed.url.clone(), setting: setting.to_string() },
    };
    let now = state.clock.now;
    let tags = matches!(effect, Effect::Write { .. });
    // Tags are saved with the write itself; a setting says how it went when the runtime has checked it.
    let said = if tags { "Tags saved: " } else { "Setting " };
    let tail = if tags { "" } else { "…" };
    state.status.info(format!("{said}{}{tail}", crate::sanitize::one_line(setting, 100)), now);
    // The feed info shows the feed's settings: it comes back, read again once the setting is in use.
    let mut effects = vec![effect];
    if tags {
        // Views that ask for a tag count again.
        effects.push(Effect::LoadFeeds);
    }
    effects.extend(super::dialogs::open_info(state, feed_id));
    Ok(effects)
}

/// A feed's setting was written to the config and is in use (or why not): the feed info and the lists show it.
pub fn on_setting_saved(
    state: &mut State,
    feed_id: FeedId,
    setting: String,
    outcome: Result<(), String>,
) -> Vec<Effect> {
    let now = state.clock.now;
    let title = state.feeds.feed(feed_id).map(|f| crate::sanitize::one_line(&f.title, 60)).unwrap_or_default();
    let setting = crate::sanitize::one_line(&setting, 100);
    match outcome {
        Ok(()) => state.status.info(format!("{title}: {setting}, saved in the config"), now),
        Err(why) => {
            state.status.error(format!("cannot set {setting} for {title}: {why}"), now);
            return Vec::new();
        }
    }
    let mut effects = vec![Effect::LoadFeeds];
    if matches!(&state.dialog, Some(Dialog::Info(info)) if info.feed_id == feed_id) {
        effects.push(Effect::LoadFeedInfo(feed_id));
    }
    effects
}

pub fn force_encoding(state: &mut State, feed_id: FeedId, answer: &str) -> Result<Vec<Effect>, String> {
    let label = answer.trim().to_string();
    if !label.is_empty() {
        use crate::decode::labels::{Label, resolve};
        match resolve(&label) {
            Label::Unsupported(name) => return Err(format!("{name} cannot be decoded by tidings")),
            Label::Unknown => return Err(format!("'{label}' is not an encoding tidings knows")),
            _ => {}
        }
    }
    let label = (!label.is_empty()).then_some(label);
    let title = match state.feeds.feed_mut(feed_id) {
        Some(feed) => {
            feed.encoding_forced = label.clone();
            crate::sanitize::one_line(&feed.title, 80)
        }
        None => String::new(),
    };
    let now = state.clock.now;
    state.status.info(
        match &label {
            Some(l) => format!("{title}: decoding as {l} from now on; refreshing"),
            None => format!("{title}: decoding by the feed's own signals again; refreshing"),
        },
        now,
    );
    let mut effects = vec![Effect::write(UserWrite::SetEncodingOverride { feed_id, label })];
    effects.extend(super::progress::request(state, vec![feed_id], true));
    Ok(effects)
}
