//! The reader's state machine: [`update`] takes the state and one [`Event`] (a key, a resize, a tick, or a
//! worker's result) and returns the [`Effect`]s to run. No I/O happens here; every result of work comes back as
//! another event. The UI draws from [`State`] and never changes it.

pub mod input;
mod subscriptions;

use crate::fetch::discovery::{Discovery, Found};
use crate::model::{EntryId, FeedId, FolderId};
use crate::refresh::RefreshEvent;
use crate::render::{self, Line, Span};
use crate::store::read::{EntryDetail, EntryRow, FeedInfo, FeedRow, FolderRow};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use input::TextInput;
use std::collections::HashSet;

/// Everything that can happen to the reader.
#[derive(Debug)]
pub enum Event {
    Key(KeyEvent),
    Resize(u16, u16),
    /// A second passed; the current time (seconds since the epoch).
    Tick(i64),
    /// Feeds due for an automatic refresh.
    DueFeeds(Vec<FeedId>),
    /// The feed list, read after the first `seen_writes` user writes were applied.
    FeedsLoaded {
        feeds: Vec<FeedRow>,
        folders: Vec<FolderRow>,
        seen_writes: u64,
    },
    /// Discovery for the add dialog finished.
    Discovered(Box<Discovery>),
    /// A subscription was added (`added` is false when it already existed).
    FeedAdded {
        feed_id: FeedId,
        added: bool,
        title: String,
    },
    EntriesLoaded {
        list: ListKey,
        entries: Vec<EntryRow>,
        seen_writes: u64,
    },
    ArticleLoaded {
        entry_id: EntryId,
        detail: Option<Box<EntryDetail>>,
    },
    ArticleRendered {
        entry_id: EntryId,
        width: u16,
        body: render::Rendered,
    },
    Refresh(RefreshEvent),
    FeedInfoLoaded {
        feed_id: FeedId,
        info: Option<Box<FeedInfo>>,
    },
    /// Something to tell the user (an import report, …).
    Notice(String),
    /// Something went wrong outside a feed (the database, …).
    Error(String),
}

/// Work for the runtime to do; results come back as events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    LoadFeeds,
    LoadEntries(ListKey),
    LoadArticle(EntryId),
    RenderArticle {
        entry_id: EntryId,
        html: String,
        width: u16,
        /// The entry's address, against which relative links resolve.
        base: Option<String>,
    },
    /// Hand an address to the system's browser (never through a shell).
    OpenUrl(String),
    SetRead {
        ids: Vec<EntryId>,
        read: bool,
    },
    MarkAllRead(ListKey),
    /// Refresh these feeds; `force` ignores backoff and tries feeds that are gone.
    Refresh {
        ids: Vec<FeedId>,
        force: bool,
    },
    /// Find the feeds due for an automatic refresh (not fetched for `interval_secs`).
    LoadDue {
        interval_secs: i64,
    },
    LoadFeedInfo(FeedId),
    /// Force (or, with `None`, stop forcing) a feed's encoding.
    SetEncodingOverride {
        feed_id: FeedId,
        label: Option<String>,
    },
    /// Find the feeds an address offers (the add dialog).
    Discover(String),
    AddFeed {
        url: String,
        title: Option<String>,
        folder: Option<String>,
    },
    DeleteFeed(FeedId),
    /// Give a feed the user's name; `None` goes back to the feed's own title.
    RenameFeed {
        feed_id: FeedId,
        title: Option<String>,
    },
    MoveFeed {
        feed_id: FeedId,
        folder: Option<String>,
    },
    CreateFolder(String),
    RenameFolder {
        folder_id: FolderId,
        name: String,
    },
    DeleteFolder(FolderId),
    SetCollapsed {
        folder_id: FolderId,
        collapsed: bool,
    },
}

/// What covers the panes, if anything.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    Help,
    /// The feed-info view; `info` is `None` while it loads.
    FeedInfo {
        feed_id: FeedId,
        info: Option<Box<FeedInfo>>,
        scroll: usize,
    },
    Prompt(Prompt),
    /// Feeds discovery found, to choose from.
    Picker {
        candidates: Vec<Found>,
        cursor: usize,
        folder: Option<String>,
    },
    /// A yes/no question before something that cannot be undone.
    Confirm {
        question: String,
        action: Confirmed,
    },
    /// Lines to read (an import report, what discovery tried), scrollable.
    Report {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
}

/// What a confirmation goes on to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirmed {
    DeleteFeed(FeedId),
    DeleteFolder(FolderId),
}

/// A question that wants a line of text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub title: String,
    pub hint: String,
    pub input: TextInput,
    /// Why the last answer was refused.
    pub error: Option<String>,
    pub purpose: PromptPurpose,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptPurpose {
    ForceEncoding(FeedId),
    /// Open link N of the article being read.
    FollowLink,
    /// The address of a feed or site to subscribe to (into the folder named, if any).
    AddFeed {
        folder: Option<FolderId>,
    },
    RenameFeed(FeedId),
    RenameFolder(FolderId),
    MoveFeed(FeedId),
    NewFolder,
}

/// What the entry list shows: one feed, or every feed of a folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListKey {
    Feed(FeedId),
    Folder(FolderId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Feeds,
    Entries,
    Article,
}

/// A row of the feed list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedListRow {
    Folder {
        id: FolderId,
        name: String,
        unread: i64,
        collapsed: bool,
    },
    /// Index into [`State::feeds`].
    Feed(usize),
}

/// The article being read: its entry, and its lines (header and body) rendered for the pane's width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArticleView {
    pub detail: EntryDetail,
    pub lines: Vec<Line>,
    /// The body's links by number (link 1 first).
    pub links: Vec<render::Link>,
    /// The width the body was rendered for; `None` while rendering.
    pub rendered_width: Option<u16>,
    pub scroll: usize,
}

/// Refresh progress of the current batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Feeds asked for and not finished.
    pub pending: HashSet<FeedId>,
    /// Feeds being fetched right now.
    pub active: HashSet<FeedId>,
    pub done: usize,
    pub total: usize,
    pub failed: usize,
    /// Left alone: gone, or asked to wait.
    pub skipped: usize,
    /// Feeds that moved for good during the batch, as sentences.
    pub moved: Vec<String>,
}

impl Progress {
    pub fn is_idle(&self) -> bool {
        self.pending.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub feeds: Vec<FeedRow>,
    pub folders: Vec<FolderRow>,
    pub rows: Vec<FeedListRow>,
    pub collapsed: HashSet<FolderId>,
    pub feed_cursor: usize,
    pub feed_offset: usize,
    /// Whether the feed list has been read from the store at least once.
    pub feeds_loaded: bool,
    pub entries: Vec<EntryRow>,
    pub entries_of: Option<ListKey>,
    pub entry_cursor: usize,
    pub entry_offset: usize,
    pub article: Option<ArticleView>,
    /// The entry whose article was asked for and has not arrived yet.
    pub wanted_article: Option<EntryId>,
    pub focus: Pane,
    pub overlay: Option<Overlay>,
    pub progress: Progress,
    pub last_error: Option<String>,
    pub message: Option<String>,
    pub size: (u16, u16),
    pub quit: bool,
    /// Refresh every feed once the feed list first arrives (the `refresh_on_startup` setting).
    pub refresh_when_loaded: bool,
    /// The address discovery is looking at for the add dialog.
    pub discovering: Option<String>,
    /// The list to put the cursor on when the feed list next arrives (a feed just added).
    pub select_when_loaded: Option<ListKey>,
    /// The folder a feed being added goes into.
    pub pending_add_folder: Option<String>,
    /// The current time, from the last tick (seconds since the epoch).
    pub now: i64,
    /// Seconds between automatic refreshes; `None` when they are off.
    pub auto_refresh_secs: Option<i64>,
    /// When to next look for feeds due for an automatic refresh.
    pub next_auto_check: Option<i64>,
    /// User writes (read flags) asked of the store so far. A list read before the latest of them was applied
    /// would undo the user's change on screen, so it is asked for again instead.
    pub writes_issued: u64,
}

/// How often the reader looks for feeds due for an automatic refresh, in seconds.
pub const AUTO_CHECK_SECS: i64 = 60;

/// The keys, as the help overlay lists them.
pub const KEYS: &[(&str, &str)] = &[
    ("j / k, ↓ / ↑", "move down / up (scroll in the article)"),
    ("h / l, ← / →", "previous / next pane"),
    ("Tab / Shift-Tab", "next / previous pane"),
    ("Enter", "open the entry; on a folder, fold or unfold it"),
    ("Space, PgDn", "scroll the article down a page"),
    ("b, PgUp", "scroll the article up a page"),
    ("g / G", "first / last item"),
    ("n", "open the next unread entry"),
    ("m", "toggle read / unread"),
    ("A", "mark every entry of the feed read"),
    ("o", "open the entry in the browser"),
    ("f", "follow link N of the article"),
    ("r", "refresh the selected feed (or folder)"),
    ("R", "refresh every feed"),
    ("a", "add a feed (a site's address finds its feed)"),
    ("c", "rename the selected feed or folder"),
    ("M", "move the selected feed to a folder"),
    ("F", "create a folder"),
    ("D", "delete the selected feed or folder"),
    ("i", "feed info: status, errors, how it was decoded"),
    ("e", "force the encoding of the selected feed"),
    ("?", "show or hide this help"),
    ("q", "quit (or close this help)"),
];

impl State {
    pub fn new(size: (u16, u16)) -> State {
        State {
            feeds: Vec::new(),
            folders: Vec::new(),
            rows: Vec::new(),
            collapsed: HashSet::new(),
            feed_cursor: 0,
            feed_offset: 0,
            feeds_loaded: false,
            entries: Vec::new(),
            entries_of: None,
            entry_cursor: 0,
            entry_offset: 0,
            article: None,
            wanted_article: None,
            focus: Pane::Feeds,
            overlay: None,
            progress: Progress::default(),
            last_error: None,
            message: None,
            size,
            quit: false,
            refresh_when_loaded: false,
            writes_issued: 0,
            discovering: None,
            select_when_loaded: None,
            pending_add_folder: None,
            now: chrono::Utc::now().timestamp(),
            auto_refresh_secs: None,
            next_auto_check: None,
        }
    }

    /// The list (feed or folder) under the cursor of the feed pane.
    pub fn selected_list(&self) -> Option<ListKey> {
        match self.rows.get(self.feed_cursor)? {
            FeedListRow::Folder { id, .. } => Some(ListKey::Folder(*id)),
            FeedListRow::Feed(i) => self.feeds.get(*i).map(|f| ListKey::Feed(f.id)),
        }
    }

    pub fn selected_feed(&self) -> Option<&FeedRow> {
        match self.rows.get(self.feed_cursor)? {
            FeedListRow::Feed(i) => self.feeds.get(*i),
            FeedListRow::Folder { .. } => None,
        }
    }

    pub fn selected_entry(&self) -> Option<&EntryRow> {
        self.entries.get(self.entry_cursor)
    }

    fn feed_ids_of(&self, list: ListKey) -> Vec<FeedId> {
        match list {
            ListKey::Feed(id) => vec![id],
            ListKey::Folder(folder) => {
                self.feeds.iter().filter(|f| f.folder_id == Some(folder)).map(|f| f.id).collect()
            }
        }
    }

    /// Rebuilds the feed list rows: top-level feeds, then each folder (empty ones too) followed by its feeds
    /// unless collapsed.
    fn rebuild_rows(&mut self) {
        let mut rows = Vec::with_capacity(self.feeds.len() + self.folders.len());
        rows.extend(
            self.feeds.iter().enumerate().filter(|(_, f)| f.folder_id.is_none()).map(|(i, _)| FeedListRow::Feed(i)),
        );
        for folder in &self.folders {
            let members: Vec<usize> =
                self.feeds.iter().enumerate().filter(|(_, f)| f.folder_id == Some(folder.id)).map(|(i, _)| i).collect();
            let collapsed = self.collapsed.contains(&folder.id);
            rows.push(FeedListRow::Folder {
                id: folder.id,
                name: folder.name.clone(),
                unread: members.iter().map(|i| self.feeds[*i].unread).sum(),
                collapsed,
            });
            if !collapsed {
                rows.extend(members.into_iter().map(FeedListRow::Feed));
            }
        }
        self.rows = rows;
    }

    fn list_height(&self) -> usize {
        usize::from(crate::ui::list_height(self.size))
    }

    fn article_height(&self) -> usize {
        usize::from(crate::ui::list_height(self.size))
    }

    /// Keeps the cursor of a list on screen.
    fn scroll_into_view(cursor: usize, offset: usize, height: usize) -> usize {
        let height = height.max(1);
        if cursor < offset {
            cursor
        } else if cursor >= offset + height {
            cursor + 1 - height
        } else {
            offset
        }
    }

    fn max_scroll(&self) -> usize {
        self.article.as_ref().map_or(0, |a| a.lines.len().saturating_sub(self.article_height()))
    }
}

/// Applies one event to the state and says what work to start.
pub fn update(state: &mut State, event: Event) -> Vec<Effect> {
    match event {
        Event::Key(key) => on_key(state, key),
        Event::Resize(w, h) => {
            state.size = (w, h);
            state.feed_offset = State::scroll_into_view(state.feed_cursor, state.feed_offset, state.list_height());
            state.entry_offset = State::scroll_into_view(state.entry_cursor, state.entry_offset, state.list_height());
            rerender_if_needed(state)
        }
        Event::Tick(now) => {
            state.now = now;
            let Some(interval_secs) = state.auto_refresh_secs else { return Vec::new() };
            match state.next_auto_check {
                None => {
                    state.next_auto_check = Some(now + AUTO_CHECK_SECS);
                    Vec::new()
                }
                Some(at) if at <= now && state.progress.is_idle() => {
                    state.next_auto_check = Some(now + AUTO_CHECK_SECS);
                    vec![Effect::LoadDue { interval_secs }]
                }
                Some(_) => Vec::new(),
            }
        }
        Event::DueFeeds(ids) => request_refresh(state, ids, false),
        Event::FeedsLoaded { feeds, folders, seen_writes } => {
            if seen_writes < state.writes_issued {
                return vec![Effect::LoadFeeds];
            }
            on_feeds_loaded(state, feeds, folders)
        }
        Event::Discovered(discovery) => subscriptions::on_discovered(state, *discovery),
        Event::FeedAdded { feed_id, added, title } => subscriptions::on_feed_added(state, feed_id, added, title),
        Event::EntriesLoaded { list, entries, seen_writes } => {
            if state.selected_list() != Some(list) {
                return Vec::new();
            }
            if seen_writes < state.writes_issued {
                return vec![Effect::LoadEntries(list)];
            }
            let keep = if state.entries_of == Some(list) { state.selected_entry().map(|e| e.id) } else { None };
            state.entries = entries;
            state.entries_of = Some(list);
            state.entry_cursor = keep.and_then(|id| state.entries.iter().position(|e| e.id == id)).unwrap_or(0);
            state.entry_offset = State::scroll_into_view(state.entry_cursor, 0, state.list_height());
            Vec::new()
        }
        Event::ArticleLoaded { entry_id, detail } => {
            if state.wanted_article != Some(entry_id) {
                return Vec::new();
            }
            state.wanted_article = None;
            let Some(detail) = detail else {
                state.last_error = Some("that entry is no longer in the database".into());
                return Vec::new();
            };
            let width = crate::ui::article_width(state.size);
            let html = article_html(&detail);
            let mut lines = article_header(&detail, usize::from(width));
            lines.push(vec![Span {
                text: "Rendering…".into(),
                style: render::Style { italic: true, ..Default::default() },
            }]);
            let base = detail.link.clone();
            state.article =
                Some(ArticleView { detail: *detail, lines, links: Vec::new(), rendered_width: None, scroll: 0 });
            vec![Effect::RenderArticle { entry_id, html, width, base }]
        }
        Event::ArticleRendered { entry_id, width, body } => {
            let current_width = crate::ui::article_width(state.size);
            let Some(article) = state.article.as_mut().filter(|a| a.detail.id == entry_id) else {
                return Vec::new();
            };
            if width != current_width {
                return Vec::new();
            }
            let mut all = article_header(&article.detail, usize::from(width));
            all.extend(body.lines);
            article.lines = all;
            article.links = body.links;
            article.rendered_width = Some(width);
            let max = state.max_scroll();
            if let Some(a) = state.article.as_mut() {
                a.scroll = a.scroll.min(max);
            }
            Vec::new()
        }
        Event::Refresh(ev) => on_refresh(state, ev),
        Event::FeedInfoLoaded { feed_id, info } => {
            if let Some(Overlay::FeedInfo { feed_id: shown, info: slot, .. }) = state.overlay.as_mut()
                && *shown == feed_id
            {
                match info {
                    Some(info) => *slot = Some(info),
                    None => state.overlay = None,
                }
            }
            Vec::new()
        }
        Event::Notice(text) => {
            state.message = Some(text);
            Vec::new()
        }
        Event::Error(text) => {
            state.last_error = Some(text);
            Vec::new()
        }
    }
}

fn on_feeds_loaded(state: &mut State, feeds: Vec<FeedRow>, folders: Vec<FolderRow>) -> Vec<Effect> {
    let keep = state.select_when_loaded.take().or(state.selected_list());
    state.feeds = feeds;
    state.collapsed = folders.iter().filter(|f| f.collapsed).map(|f| f.id).collect();
    state.folders = folders;
    state.feeds_loaded = true;
    state.rebuild_rows();
    let find = |key: ListKey| {
        state.rows.iter().position(|r| match (r, key) {
            (FeedListRow::Feed(i), ListKey::Feed(id)) => state.feeds[*i].id == id,
            (FeedListRow::Folder { id, .. }, ListKey::Folder(f)) => *id == f,
            _ => false,
        })
    };
    state.feed_cursor = keep.and_then(find).unwrap_or(0).min(state.rows.len().saturating_sub(1));
    state.feed_offset = State::scroll_into_view(state.feed_cursor, state.feed_offset, state.list_height());
    let mut effects = match state.selected_list() {
        Some(list) => vec![Effect::LoadEntries(list)],
        None => {
            state.entries.clear();
            state.entries_of = None;
            Vec::new()
        }
    };
    if std::mem::take(&mut state.refresh_when_loaded) {
        effects.extend(refresh_all(state));
    }
    effects
}

fn on_refresh(state: &mut State, ev: RefreshEvent) -> Vec<Effect> {
    let feed_id = ev.feed_id();
    if !ev.is_final() {
        state.progress.active.insert(feed_id);
        return Vec::new();
    }
    state.progress.active.remove(&feed_id);
    if state.progress.pending.remove(&feed_id) {
        state.progress.done += 1;
    }
    let mut effects = Vec::new();
    let feed = state.feeds.iter_mut().find(|f| f.id == feed_id);
    let succeeded = |feed: &mut FeedRow| {
        feed.last_error = None;
        feed.error_kind = None;
        feed.retry_after = None;
        feed.dead = false;
    };
    match ev {
        RefreshEvent::Done { unread, title, new, updated, moved_to, .. } => {
            if let Some(feed) = feed {
                succeeded(feed);
                feed.unread = unread;
                feed.title = title.clone();
                if let Some(url) = &moved_to {
                    feed.url = url.clone();
                }
            }
            if let Some(url) = moved_to {
                state.progress.moved.push(format!("{} moved for good to {url}", crate::sanitize::one_line(&title, 80)));
            }
            if new + updated > 0 && state.entries_of.is_some_and(|l| state.feed_ids_of(l).contains(&feed_id)) {
                effects.extend(state.entries_of.map(Effect::LoadEntries));
            }
        }
        RefreshEvent::NotModified { moved_to, .. } => {
            if let Some(feed) = feed {
                succeeded(feed);
                if let Some(url) = moved_to {
                    feed.url = url;
                }
            }
        }
        RefreshEvent::Failed { title, kind, message, retry_at, dead, .. } => {
            state.progress.failed += 1;
            state.last_error = Some(format!("{title}: {message}"));
            if let Some(feed) = feed {
                feed.last_error = Some(message);
                feed.error_kind = Some(kind);
                feed.retry_after = retry_at;
                feed.dead = dead;
            }
        }
        RefreshEvent::Skipped { .. } => state.progress.skipped += 1,
        RefreshEvent::Started { .. } => {}
    }
    state.rebuild_rows();
    if state.progress.is_idle() && state.progress.total > 0 {
        let p = std::mem::take(&mut state.progress);
        let fetched = p.done - p.skipped;
        let mut text = if fetched == 1 { "Refreshed 1 feed".to_string() } else { format!("Refreshed {fetched} feeds") };
        if p.failed > 0 {
            text.push_str(&format!(", {} failed", p.failed));
        }
        if p.skipped > 0 {
            text.push_str(&format!(", {} left alone (waiting or gone)", p.skipped));
        }
        for moved in &p.moved {
            text.push_str(&format!("; {moved}"));
        }
        state.message = Some(text);
        // Titles may have changed, and with them the order.
        effects.push(Effect::LoadFeeds);
    }
    effects
}

/// Queues a refresh of `ids`, leaving out those already on their way. A `force`d refresh ignores backoff and
/// tries feeds that are gone (the user asked for them by name).
fn request_refresh(state: &mut State, ids: Vec<FeedId>, force: bool) -> Vec<Effect> {
    let fresh: Vec<FeedId> = ids.into_iter().filter(|id| state.progress.pending.insert(*id)).collect();
    if fresh.is_empty() {
        return Vec::new();
    }
    state.progress.total += fresh.len();
    vec![Effect::Refresh { ids: fresh, force }]
}

/// Starts refreshing every feed (used at startup and by `R`).
pub fn refresh_all(state: &mut State) -> Vec<Effect> {
    let ids = state.feeds.iter().map(|f| f.id).collect();
    request_refresh(state, ids, false)
}

fn on_key(state: &mut State, key: KeyEvent) -> Vec<Effect> {
    if key.kind != KeyEventKind::Press {
        return Vec::new();
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        state.quit = true;
        return Vec::new();
    }
    if let Some(overlay) = state.overlay.take() {
        return on_overlay_key(state, overlay, key);
    }
    match key.code {
        KeyCode::Char('q') => {
            state.quit = true;
            Vec::new()
        }
        KeyCode::Char('?') => {
            state.overlay = Some(Overlay::Help);
            Vec::new()
        }
        KeyCode::Char('i') => match info_feed(state) {
            Some(feed_id) => {
                state.overlay = Some(Overlay::FeedInfo { feed_id, info: None, scroll: 0 });
                vec![Effect::LoadFeedInfo(feed_id)]
            }
            None => Vec::new(),
        },
        KeyCode::Char('e') => {
            if let Some(feed_id) = info_feed(state) {
                open_encoding_prompt(state, feed_id);
            }
            Vec::new()
        }
        KeyCode::Char('o') => match state.article.as_ref().and_then(|a| a.detail.link.clone()) {
            Some(url) => open_url(state, url),
            None => {
                state.message = Some("Open an entry first; o opens its page in the browser".into());
                Vec::new()
            }
        },
        KeyCode::Char('f') => {
            match state.article.as_ref().map(|a| a.links.len()) {
                Some(n) if n > 0 => {
                    state.overlay = Some(Overlay::Prompt(Prompt {
                        title: "Follow a link".into(),
                        hint: format!(
                            "the number of the link to open, 1 to {n} (they are listed at the end of the article)"
                        ),
                        input: TextInput::default(),
                        error: None,
                        purpose: PromptPurpose::FollowLink,
                    }));
                }
                _ => state.message = Some("This article has no links".into()),
            }
            Vec::new()
        }
        KeyCode::Tab => {
            state.focus = next_pane(state, true);
            Vec::new()
        }
        KeyCode::BackTab => {
            state.focus = next_pane(state, false);
            Vec::new()
        }
        KeyCode::Char('l') | KeyCode::Right => {
            if state.focus != Pane::Article {
                state.focus = next_pane(state, true);
            }
            Vec::new()
        }
        KeyCode::Char('h') | KeyCode::Left | KeyCode::Esc => {
            state.focus = match state.focus {
                Pane::Article => Pane::Entries,
                _ => Pane::Feeds,
            };
            Vec::new()
        }
        KeyCode::Char('j') | KeyCode::Down => move_cursor(state, 1),
        KeyCode::Char('k') | KeyCode::Up => move_cursor(state, -1),
        KeyCode::Char('g') | KeyCode::Home => move_cursor(state, isize::MIN),
        KeyCode::Char('G') | KeyCode::End => move_cursor(state, isize::MAX),
        KeyCode::Enter => match state.focus {
            Pane::Feeds => {
                if let Some(FeedListRow::Folder { id, .. }) = state.rows.get(state.feed_cursor).cloned() {
                    let collapsed = !state.collapsed.remove(&id);
                    if collapsed {
                        state.collapsed.insert(id);
                    }
                    state.rebuild_rows();
                    return vec![user_write(state, Effect::SetCollapsed { folder_id: id, collapsed })];
                }
                if !state.entries.is_empty() {
                    state.focus = Pane::Entries;
                }
                Vec::new()
            }
            Pane::Entries => open_entry(state),
            Pane::Article => Vec::new(),
        },
        KeyCode::Char(' ') | KeyCode::PageDown => scroll_article(state, page(state) as isize),
        KeyCode::Char('b') | KeyCode::PageUp => scroll_article(state, -(page(state) as isize)),
        KeyCode::Char('n') => next_unread(state),
        KeyCode::Char('m') => toggle_read(state),
        KeyCode::Char('A') => mark_all_read(state),
        KeyCode::Char('r') => match state.selected_list() {
            Some(list) => {
                let ids = state.feed_ids_of(list);
                request_refresh(state, ids, true)
            }
            None => Vec::new(),
        },
        KeyCode::Char('R') => refresh_all(state),
        KeyCode::Char('a') => subscriptions::open_add(state),
        KeyCode::Char('D') => subscriptions::ask_delete(state),
        KeyCode::Char('c') => subscriptions::open_rename(state),
        KeyCode::Char('M') => subscriptions::open_move(state),
        KeyCode::Char('F') => subscriptions::open_new_folder(state),
        _ => Vec::new(),
    }
}

/// The feed that `i` and `e` act on: the selected feed, or the feed of the open article.
fn info_feed(state: &State) -> Option<FeedId> {
    match state.focus {
        Pane::Article => state.article.as_ref().map(|a| a.detail.feed_id),
        Pane::Entries => state.selected_entry().map(|e| e.feed_id).or(state.selected_feed().map(|f| f.id)),
        Pane::Feeds => state.selected_feed().map(|f| f.id),
    }
}

fn open_encoding_prompt(state: &mut State, feed_id: FeedId) {
    let feed = state.feeds.iter().find(|f| f.id == feed_id);
    let title = feed.map(|f| crate::sanitize::one_line(&f.title, 60)).unwrap_or_default();
    let current = feed.and_then(|f| f.encoding_forced.clone()).unwrap_or_default();
    state.overlay = Some(Overlay::Prompt(Prompt {
        title: format!("Force the encoding of {title}"),
        hint: "an encoding label (windows-1251, koi8-r, shift_jis, iso-8859-2…); empty to decode by the feed's own signals".into(),
        input: TextInput::new(&current),
        error: None,
        purpose: PromptPurpose::ForceEncoding(feed_id),
    }));
}

/// A key while an overlay is open; the overlay was taken out of the state and is put back unless it closes.
fn on_overlay_key(state: &mut State, overlay: Overlay, key: KeyEvent) -> Vec<Effect> {
    match overlay {
        Overlay::Help => {
            if !matches!(key.code, KeyCode::Char('?' | 'q') | KeyCode::Esc | KeyCode::Enter) {
                state.overlay = Some(Overlay::Help);
            }
            Vec::new()
        }
        Overlay::FeedInfo { feed_id, info, scroll } => match key.code {
            KeyCode::Char('q' | 'i') | KeyCode::Esc | KeyCode::Enter => Vec::new(),
            KeyCode::Char('e') => {
                open_encoding_prompt(state, feed_id);
                Vec::new()
            }
            KeyCode::Char('j') | KeyCode::Down => {
                state.overlay = Some(Overlay::FeedInfo { feed_id, info, scroll: scroll + 1 });
                Vec::new()
            }
            KeyCode::Char('k') | KeyCode::Up => {
                state.overlay = Some(Overlay::FeedInfo { feed_id, info, scroll: scroll.saturating_sub(1) });
                Vec::new()
            }
            _ => {
                state.overlay = Some(Overlay::FeedInfo { feed_id, info, scroll });
                Vec::new()
            }
        },
        Overlay::Picker { candidates, cursor, folder } => {
            subscriptions::on_picker_key(state, candidates, cursor, folder, key)
        }
        Overlay::Confirm { question, action } => subscriptions::on_confirm_key(state, question, action, key),
        Overlay::Report { title, lines, scroll } => {
            match key.code {
                KeyCode::Char('j') | KeyCode::Down => {
                    state.overlay = Some(Overlay::Report { title, lines, scroll: scroll + 1 });
                }
                KeyCode::Char('k') | KeyCode::Up => {
                    state.overlay = Some(Overlay::Report { title, lines, scroll: scroll.saturating_sub(1) });
                }
                KeyCode::Char('q') | KeyCode::Esc | KeyCode::Enter => {}
                _ => state.overlay = Some(Overlay::Report { title, lines, scroll }),
            }
            Vec::new()
        }
        Overlay::Prompt(mut prompt) => match key.code {
            KeyCode::Esc => Vec::new(),
            KeyCode::Enter => submit_prompt(state, prompt),
            _ => {
                if prompt.input.handle(key) {
                    prompt.error = None;
                }
                state.overlay = Some(Overlay::Prompt(prompt));
                Vec::new()
            }
        },
    }
}

/// Asks the runtime to open `url`, unless it is of a kind tidings never hands to a browser.
fn open_url(state: &mut State, url: String) -> Vec<Effect> {
    if render::openable(&url) {
        state.message = Some(format!("Opening {}", crate::sanitize::one_line(&url, 200)));
        vec![Effect::OpenUrl(url)]
    } else {
        state.last_error = Some(format!(
            "not opening {}: only web and mail addresses are opened",
            crate::sanitize::one_line(&url, 200)
        ));
        Vec::new()
    }
}

fn submit_prompt(state: &mut State, mut prompt: Prompt) -> Vec<Effect> {
    match prompt.purpose {
        PromptPurpose::AddFeed { .. }
        | PromptPurpose::RenameFeed(_)
        | PromptPurpose::RenameFolder(_)
        | PromptPurpose::MoveFeed(_)
        | PromptPurpose::NewFolder => subscriptions::submit(state, prompt),
        PromptPurpose::FollowLink => {
            let links = state.article.as_ref().map(|a| a.links.clone()).unwrap_or_default();
            let chosen = prompt
                .input
                .text()
                .trim()
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| links.get(i));
            match chosen {
                Some(link) if link.openable => open_url(state, link.url.clone()),
                Some(_) => {
                    prompt.error = Some("that link is a script, not an address; tidings never opens those".into());
                    state.overlay = Some(Overlay::Prompt(prompt));
                    Vec::new()
                }
                None => {
                    prompt.error = Some(format!("type a number from 1 to {}", links.len()));
                    state.overlay = Some(Overlay::Prompt(prompt));
                    Vec::new()
                }
            }
        }
        PromptPurpose::ForceEncoding(feed_id) => {
            let label = prompt.input.text().trim().to_string();
            if !label.is_empty() {
                use crate::decode::labels::{Label, resolve};
                let refusal = match resolve(&label) {
                    Label::Unsupported(name) => Some(format!("{name} cannot be decoded by tidings")),
                    Label::Unknown => Some(format!("'{label}' is not an encoding tidings knows")),
                    _ => None,
                };
                if let Some(error) = refusal {
                    prompt.error = Some(error);
                    state.overlay = Some(Overlay::Prompt(prompt));
                    return Vec::new();
                }
            }
            let label = (!label.is_empty()).then_some(label);
            let title = match state.feeds.iter_mut().find(|f| f.id == feed_id) {
                Some(feed) => {
                    feed.encoding_forced = label.clone();
                    crate::sanitize::one_line(&feed.title, 80)
                }
                None => String::new(),
            };
            state.message = Some(match &label {
                Some(l) => format!("{title}: decoding as {l} from now on; refreshing"),
                None => format!("{title}: decoding by the feed's own signals again; refreshing"),
            });
            let mut effects = vec![user_write(state, Effect::SetEncodingOverride { feed_id, label })];
            effects.extend(request_refresh(state, vec![feed_id], true));
            effects
        }
    }
}

fn page(state: &State) -> usize {
    state.article_height().saturating_sub(2).max(1)
}

fn next_pane(state: &State, forward: bool) -> Pane {
    let has_article = state.article.is_some();
    match (state.focus, forward) {
        (Pane::Feeds, true) => Pane::Entries,
        (Pane::Entries, true) if has_article => Pane::Article,
        (Pane::Entries, true) => Pane::Feeds,
        (Pane::Article, true) => Pane::Feeds,
        (Pane::Feeds, false) if has_article => Pane::Article,
        (Pane::Feeds, false) => Pane::Entries,
        (Pane::Entries, false) => Pane::Feeds,
        (Pane::Article, false) => Pane::Entries,
    }
}

fn step(cursor: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    match delta {
        isize::MIN => 0,
        isize::MAX => len - 1,
        d if d < 0 => cursor.saturating_sub(d.unsigned_abs()),
        d => (cursor + d as usize).min(len - 1),
    }
}

fn move_cursor(state: &mut State, delta: isize) -> Vec<Effect> {
    match state.focus {
        Pane::Feeds => {
            let before = state.selected_list();
            state.feed_cursor = step(state.feed_cursor, delta, state.rows.len());
            state.feed_offset = State::scroll_into_view(state.feed_cursor, state.feed_offset, state.list_height());
            match state.selected_list() {
                Some(list) if Some(list) != before => {
                    state.entries.clear();
                    state.entry_cursor = 0;
                    state.entry_offset = 0;
                    vec![Effect::LoadEntries(list)]
                }
                _ => Vec::new(),
            }
        }
        Pane::Entries => {
            state.entry_cursor = step(state.entry_cursor, delta, state.entries.len());
            state.entry_offset = State::scroll_into_view(state.entry_cursor, state.entry_offset, state.list_height());
            Vec::new()
        }
        Pane::Article => {
            let delta = match delta {
                isize::MIN => -(state.max_scroll() as isize),
                isize::MAX => state.max_scroll() as isize,
                d => d,
            };
            scroll_article(state, delta)
        }
    }
}

fn scroll_article(state: &mut State, delta: isize) -> Vec<Effect> {
    let max = state.max_scroll();
    if let Some(article) = state.article.as_mut() {
        article.scroll = if delta < 0 {
            article.scroll.saturating_sub(delta.unsigned_abs())
        } else {
            (article.scroll + delta as usize).min(max)
        };
    }
    Vec::new()
}

/// Opens the entry under the cursor: asks for its article and marks it read.
fn open_entry(state: &mut State) -> Vec<Effect> {
    let Some(entry) = state.entries.get_mut(state.entry_cursor) else {
        return Vec::new();
    };
    let id = entry.id;
    let feed_id = entry.feed_id;
    let mut effects = vec![Effect::LoadArticle(id)];
    if !entry.read {
        entry.read = true;
        if let Some(feed) = state.feeds.iter_mut().find(|f| f.id == feed_id) {
            feed.unread = (feed.unread - 1).max(0);
        }
        state.rebuild_rows();
        effects.push(user_write(state, Effect::SetRead { ids: vec![id], read: true }));
    }
    state.wanted_article = Some(id);
    state.focus = Pane::Article;
    effects
}

/// Opens the next unread entry of the current list, else moves to the next feed that has unread entries.
fn next_unread(state: &mut State) -> Vec<Effect> {
    let start = if state.article.is_some() { state.entry_cursor + 1 } else { state.entry_cursor };
    if let Some(offset) = state.entries.iter().skip(start).position(|e| !e.read) {
        state.entry_cursor = start + offset;
        state.entry_offset = State::scroll_into_view(state.entry_cursor, state.entry_offset, state.list_height());
        return open_entry(state);
    }
    let next_feed = state
        .rows
        .iter()
        .enumerate()
        .skip(state.feed_cursor + 1)
        .find(|(_, r)| matches!(r, FeedListRow::Feed(i) if state.feeds[*i].unread > 0))
        .map(|(i, _)| i);
    match next_feed {
        Some(row) => {
            state.feed_cursor = row;
            state.feed_offset = State::scroll_into_view(row, state.feed_offset, state.list_height());
            state.entries.clear();
            state.entry_cursor = 0;
            state.focus = Pane::Entries;
            state.message = Some("Next feed with unread entries; press n again to open one".into());
            state.selected_list().map(Effect::LoadEntries).into_iter().collect()
        }
        None => {
            state.message = Some("No unread entries".into());
            Vec::new()
        }
    }
}

fn toggle_read(state: &mut State) -> Vec<Effect> {
    let target = match state.focus {
        Pane::Article => state.article.as_ref().map(|a| a.detail.id),
        _ => state.selected_entry().map(|e| e.id),
    };
    let Some(id) = target else { return Vec::new() };
    let Some(entry) = state.entries.iter_mut().find(|e| e.id == id) else {
        return Vec::new();
    };
    entry.read = !entry.read;
    let read = entry.read;
    let feed_id = entry.feed_id;
    if let Some(feed) = state.feeds.iter_mut().find(|f| f.id == feed_id) {
        feed.unread = (feed.unread + if read { -1 } else { 1 }).max(0);
    }
    state.rebuild_rows();
    vec![user_write(state, Effect::SetRead { ids: vec![id], read })]
}

fn mark_all_read(state: &mut State) -> Vec<Effect> {
    let Some(list) = state.selected_list() else {
        return Vec::new();
    };
    let ids = state.feed_ids_of(list);
    for feed in state.feeds.iter_mut().filter(|f| ids.contains(&f.id)) {
        feed.unread = 0;
    }
    if state.entries_of == Some(list) {
        for e in &mut state.entries {
            e.read = true;
        }
    }
    state.rebuild_rows();
    vec![user_write(state, Effect::MarkAllRead(list))]
}

/// Counts a write the user asked for (see [`State::writes_issued`]).
pub(crate) fn user_write(state: &mut State, effect: Effect) -> Effect {
    state.writes_issued += 1;
    effect
}

fn rerender_if_needed(state: &mut State) -> Vec<Effect> {
    let width = crate::ui::article_width(state.size);
    let Some(article) = state.article.as_ref() else {
        return Vec::new();
    };
    if article.rendered_width == Some(width) {
        return Vec::new();
    }
    vec![Effect::RenderArticle {
        entry_id: article.detail.id,
        html: article_html(&article.detail),
        width,
        base: article.detail.link.clone(),
    }]
}

/// The HTML body to render for an entry: its content, else its summary.
fn article_html(detail: &EntryDetail) -> String {
    detail
        .content_html
        .clone()
        .or_else(|| detail.summary_html.clone())
        .unwrap_or_else(|| "<p><i>This entry has no text; open its link to read it.</i></p>".into())
}

/// The article's header lines: title, feed, author and date, link.
pub fn article_header(detail: &EntryDetail, width: usize) -> Vec<Line> {
    let bold = render::Style { bold: true, heading: true, ..Default::default() };
    let dim = render::Style { italic: true, ..Default::default() };
    let link = render::Style { link: true, ..Default::default() };
    let title =
        detail.title.as_deref().map(|t| crate::sanitize::one_line(t, 500)).unwrap_or_else(|| "(untitled)".into());
    let mut lines = render::wrap_text(&title, width, bold);
    let mut byline = crate::sanitize::one_line(&detail.feed_title, 200);
    if let Some(author) = &detail.author {
        byline.push_str(" · ");
        byline.push_str(&crate::sanitize::one_line(author, 200));
    }
    if let Some(date) = detail.published_at.or(detail.updated_at) {
        byline.push_str(" · ");
        byline.push_str(&crate::ui::format_datetime(date));
    }
    lines.extend(render::wrap_text(&byline, width, dim));
    if let Some(url) = &detail.link {
        lines.extend(render::wrap_text(&crate::sanitize::one_line(url, 2000), width, link));
    }
    if !detail.categories.is_empty() {
        lines.extend(render::wrap_text(
            &format!("Tags: {}", crate::sanitize::one_line(&detail.categories.join(", "), 500)),
            width,
            dim,
        ));
    }
    for enclosure in &detail.enclosures {
        let mut about = Vec::new();
        about.extend(enclosure.media_type.clone());
        about.extend(enclosure.length.filter(|l| *l > 0).map(human_size));
        let about = if about.is_empty() { String::new() } else { format!(" ({})", about.join(", ")) };
        lines.extend(render::wrap_text(
            &crate::sanitize::one_line(&format!("Media: {}{about}", enclosure.url), 2000),
            width,
            dim,
        ));
    }
    if let Some(comments) = &detail.comments {
        lines.extend(render::wrap_text(&crate::sanitize::one_line(&format!("Comments: {comments}"), 2000), width, dim));
    }
    lines.push(Vec::new());
    lines
}

/// A byte count for people: "12.3 MB".
fn human_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GB", b as f64 / f64::from(1u32 << 30)),
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1u32 << 20)),
        b if b >= 1 << 10 => format!("{:.0} KB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn key(c: char) -> Event {
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
    }

    pub(crate) fn code(code: KeyCode) -> Event {
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn feed(id: FeedId, title: &str, unread: i64, folder: Option<(FolderId, &str)>) -> FeedRow {
        FeedRow {
            id,
            url: format!("http://example.com/{id}"),
            title: title.into(),
            site_url: None,
            folder_id: folder.map(|f| f.0),
            folder: folder.map(|f| f.1.to_string()),
            unread,
            last_status: None,
            last_error: None,
            error_kind: None,
            last_fetched_at: None,
            encoding_overridden: false,
            encoding_forced: None,
            retry_after: None,
            dead: false,
        }
    }

    /// Entry 10 of feed 1, read, with no text: tests override what they need.
    fn detail_of_entry_10() -> EntryDetail {
        EntryDetail {
            id: 10,
            feed_id: 1,
            feed_title: "One".into(),
            title: None,
            link: None,
            author: None,
            published_at: None,
            updated_at: None,
            content_html: None,
            summary_html: None,
            read: true,
            starred: false,
            categories: vec![],
            enclosures: vec![],
            comments: None,
            thumbnail: None,
        }
    }

    fn entry(id: EntryId, feed_id: FeedId, read: bool) -> EntryRow {
        EntryRow { id, feed_id, title: Some(format!("Entry {id}")), date: 0, read, starred: false }
    }

    pub(crate) fn loaded() -> State {
        let mut s = State::new((120, 40));
        let effects = update(
            &mut s,
            Event::FeedsLoaded {
                feeds: vec![
                    feed(1, "One", 2, None),
                    feed(2, "Two", 0, Some((7, "News"))),
                    feed(3, "Three", 1, Some((7, "News"))),
                ],
                folders: vec![FolderRow { id: 7, name: "News".into(), collapsed: false }],
                seen_writes: 0,
            },
        );
        assert_eq!(effects, vec![Effect::LoadEntries(ListKey::Feed(1))]);
        update(
            &mut s,
            Event::EntriesLoaded {
                list: ListKey::Feed(1),
                entries: vec![entry(10, 1, false), entry(11, 1, false)],
                seen_writes: 0,
            },
        );
        s
    }

    #[test]
    fn feeds_loaded_builds_folder_rows_with_unread_sums() {
        let s = loaded();
        assert_eq!(s.rows.len(), 4);
        assert_eq!(s.rows[1], FeedListRow::Folder { id: 7, name: "News".into(), unread: 1, collapsed: false });
    }

    #[test]
    fn j_and_k_move_the_feed_cursor_and_load_entries() {
        let mut s = loaded();
        assert_eq!(update(&mut s, key('j')), vec![Effect::LoadEntries(ListKey::Folder(7))]);
        assert_eq!(update(&mut s, code(KeyCode::Down)), vec![Effect::LoadEntries(ListKey::Feed(2))]);
        assert_eq!(update(&mut s, key('k')), vec![Effect::LoadEntries(ListKey::Folder(7))]);
        assert_eq!(s.feed_cursor, 1);
        // Moving past the ends stays put and loads nothing.
        update(&mut s, key('g'));
        assert!(update(&mut s, key('k')).is_empty());
        assert_eq!(s.feed_cursor, 0);
    }

    #[test]
    fn enter_on_an_entry_opens_it_and_marks_it_read() {
        let mut s = loaded();
        update(&mut s, key('l'));
        assert_eq!(s.focus, Pane::Entries);
        update(&mut s, key('j'));
        let effects = update(&mut s, code(KeyCode::Enter));
        assert_eq!(effects, vec![Effect::LoadArticle(11), Effect::SetRead { ids: vec![11], read: true }]);
        assert!(s.entries[1].read);
        assert_eq!(s.feeds[0].unread, 1);
        assert_eq!(s.focus, Pane::Article);
        // Opening it again does not mark it twice.
        update(&mut s, key('h'));
        assert_eq!(update(&mut s, code(KeyCode::Enter)), vec![Effect::LoadArticle(11)]);
    }

    #[test]
    fn a_loaded_article_is_rendered_for_the_pane_width_and_rerendered_on_resize() {
        let mut s = loaded();
        update(&mut s, key('l'));
        update(&mut s, code(KeyCode::Enter));
        let detail = EntryDetail {
            title: Some("Hello".into()),
            link: None,
            content_html: Some("<p>body</p>".into()),
            ..detail_of_entry_10()
        };
        let effects = update(&mut s, Event::ArticleLoaded { entry_id: 10, detail: Some(Box::new(detail)) });
        let width = crate::ui::article_width(s.size);
        assert_eq!(
            effects,
            vec![Effect::RenderArticle { entry_id: 10, html: "<p>body</p>".into(), width, base: None }]
        );
        let body = render::render_article("<p>body</p>", usize::from(width), None);
        update(&mut s, Event::ArticleRendered { entry_id: 10, width, body });
        let article = s.article.as_ref().unwrap();
        assert_eq!(article.rendered_width, Some(width));
        assert!(article.lines.iter().any(|l| render::line_text(l) == "body"));
        let effects = update(&mut s, Event::Resize(80, 30));
        assert!(matches!(effects.as_slice(), [Effect::RenderArticle { entry_id: 10, width: w, .. }] if *w != width));
    }

    #[test]
    fn a_stale_article_result_is_ignored() {
        let mut s = loaded();
        update(&mut s, key('l'));
        update(&mut s, code(KeyCode::Enter)); // wants 10
        update(&mut s, key('h'));
        update(&mut s, key('j'));
        update(&mut s, code(KeyCode::Enter)); // wants 11
        assert!(update(&mut s, Event::ArticleLoaded { entry_id: 10, detail: None }).is_empty());
        assert!(s.article.is_none());
        assert_eq!(s.wanted_article, Some(11));
    }

    #[test]
    fn r_refreshes_the_selected_feed_and_capital_r_all_without_duplicates() {
        let mut s = loaded();
        assert_eq!(update(&mut s, key('r')), vec![Effect::Refresh { ids: vec![1], force: true }]);
        assert_eq!(update(&mut s, key('R')), vec![Effect::Refresh { ids: vec![2, 3], force: false }]);
        assert!(update(&mut s, key('R')).is_empty());
        assert_eq!(s.progress.total, 3);
    }

    #[test]
    fn refresh_events_count_progress_record_errors_and_reload_at_the_end() {
        let mut s = loaded();
        update(&mut s, key('R'));
        update(&mut s, Event::Refresh(RefreshEvent::Started { feed_id: 1 }));
        assert!(s.progress.active.contains(&1));
        let effects = update(
            &mut s,
            Event::Refresh(RefreshEvent::Done {
                feed_id: 1,
                new: 3,
                updated: 0,
                unread: 5,
                title: "One!".into(),
                moved_to: None,
            }),
        );
        assert_eq!(effects, vec![Effect::LoadEntries(ListKey::Feed(1))]);
        assert_eq!((s.progress.done, s.progress.total), (1, 3));
        assert_eq!(s.feeds[0].unread, 5);
        update(
            &mut s,
            Event::Refresh(RefreshEvent::Failed {
                feed_id: 2,
                title: "Two".into(),
                url: "http://example.com/2".into(),
                kind: "http".into(),
                message: "HTTP 404".into(),
                retry_at: None,
                dead: false,
            }),
        );
        assert_eq!(s.feeds[1].last_error.as_deref(), Some("HTTP 404"));
        assert_eq!(s.last_error.as_deref(), Some("Two: HTTP 404"));
        let effects = update(&mut s, Event::Refresh(RefreshEvent::NotModified { feed_id: 3, moved_to: None }));
        assert_eq!(effects, vec![Effect::LoadFeeds]);
        assert!(s.progress.is_idle());
        assert_eq!(s.message.as_deref(), Some("Refreshed 3 feeds, 1 failed"));
    }

    #[test]
    fn the_first_feed_list_starts_the_startup_refresh_once() {
        let mut s = State::new((100, 30));
        s.refresh_when_loaded = true;
        let effects = update(
            &mut s,
            Event::FeedsLoaded {
                feeds: vec![feed(1, "One", 0, None), feed(2, "Two", 0, None)],
                folders: vec![],
                seen_writes: 0,
            },
        );
        assert_eq!(
            effects,
            vec![Effect::LoadEntries(ListKey::Feed(1)), Effect::Refresh { ids: vec![1, 2], force: false }]
        );
        let effects = update(
            &mut s,
            Event::FeedsLoaded {
                feeds: vec![feed(1, "One", 0, None), feed(2, "Two", 0, None)],
                folders: vec![],
                seen_writes: 0,
            },
        );
        assert_eq!(effects, vec![Effect::LoadEntries(ListKey::Feed(1))]);
    }

    #[test]
    fn enter_on_a_folder_collapses_it() {
        let mut s = loaded();
        update(&mut s, key('j'));
        update(&mut s, code(KeyCode::Enter));
        assert_eq!(s.rows.len(), 2);
        assert!(matches!(s.rows[1], FeedListRow::Folder { collapsed: true, unread: 1, .. }));
        update(&mut s, code(KeyCode::Enter));
        assert_eq!(s.rows.len(), 4);
    }

    #[test]
    fn help_opens_and_any_closing_key_closes_it_without_quitting() {
        let mut s = loaded();
        update(&mut s, key('?'));
        assert_eq!(s.overlay, Some(Overlay::Help));
        update(&mut s, key('j'));
        assert_eq!(s.overlay, Some(Overlay::Help), "other keys do nothing while help is open");
        update(&mut s, key('q'));
        assert!(s.overlay.is_none() && !s.quit);
        update(&mut s, key('q'));
        assert!(s.quit);
    }

    #[test]
    fn i_opens_the_feed_info_which_arrives_later() {
        let mut s = loaded();
        assert_eq!(update(&mut s, key('i')), vec![Effect::LoadFeedInfo(1)]);
        assert!(matches!(s.overlay, Some(Overlay::FeedInfo { feed_id: 1, info: None, .. })));
        update(&mut s, Event::FeedInfoLoaded { feed_id: 2, info: None });
        assert!(s.overlay.is_some(), "info for another feed is ignored");
        update(&mut s, code(KeyCode::Esc));
        assert!(s.overlay.is_none());
    }

    #[test]
    fn forcing_an_encoding_validates_the_label_stores_it_and_refreshes() {
        let mut s = loaded();
        update(&mut s, key('e'));
        for c in "klingon".chars() {
            update(&mut s, key(c));
        }
        assert!(update(&mut s, code(KeyCode::Enter)).is_empty());
        let Some(Overlay::Prompt(prompt)) = &s.overlay else { panic!("the prompt stays open") };
        assert!(prompt.error.as_deref().unwrap().contains("klingon"));
        for _ in 0..7 {
            update(&mut s, code(KeyCode::Backspace));
        }
        for c in "koi8-r".chars() {
            update(&mut s, key(c));
        }
        let effects = update(&mut s, code(KeyCode::Enter));
        assert_eq!(
            effects,
            vec![
                Effect::SetEncodingOverride { feed_id: 1, label: Some("koi8-r".into()) },
                Effect::Refresh { ids: vec![1], force: true }
            ]
        );
        assert!(s.overlay.is_none());
        assert_eq!(s.feeds[0].encoding_forced.as_deref(), Some("koi8-r"));
        // An empty answer stops forcing.
        update(&mut s, key('e'));
        update(&mut s, Event::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)));
        let effects = update(&mut s, code(KeyCode::Enter));
        assert_eq!(effects[0], Effect::SetEncodingOverride { feed_id: 1, label: None });
    }

    fn open_article_with_links(s: &mut State, link: Option<&str>, html: &str) {
        update(s, key('l'));
        update(s, code(KeyCode::Enter));
        let detail = EntryDetail {
            title: Some("T".into()),
            link: link.map(str::to_string),
            content_html: Some(html.into()),
            ..detail_of_entry_10()
        };
        update(s, Event::ArticleLoaded { entry_id: 10, detail: Some(Box::new(detail)) });
        let width = crate::ui::article_width(s.size);
        let body = render::render_article(html, usize::from(width), link);
        update(s, Event::ArticleRendered { entry_id: 10, width, body });
    }

    #[test]
    fn o_opens_the_entry_and_f_follows_a_numbered_link() {
        let mut s = loaded();
        let html = "<p><a href=\"/a\">a</a> <a href=\"javascript:x()\">js</a></p>";
        open_article_with_links(&mut s, Some("https://site.example/post"), html);
        assert_eq!(update(&mut s, key('o')), vec![Effect::OpenUrl("https://site.example/post".into())]);
        update(&mut s, key('f'));
        update(&mut s, key('1'));
        assert_eq!(update(&mut s, code(KeyCode::Enter)), vec![Effect::OpenUrl("https://site.example/a".into())]);
        // A script link is refused, and so is a number that names no link.
        update(&mut s, key('f'));
        update(&mut s, key('2'));
        assert!(update(&mut s, code(KeyCode::Enter)).is_empty());
        let Some(Overlay::Prompt(prompt)) = &s.overlay else { panic!("the prompt stays open") };
        assert!(prompt.error.as_deref().unwrap().contains("never opens"));
        update(&mut s, code(KeyCode::Backspace));
        update(&mut s, key('9'));
        assert!(update(&mut s, code(KeyCode::Enter)).is_empty());
        let Some(Overlay::Prompt(prompt)) = &s.overlay else { panic!("the prompt stays open") };
        assert!(prompt.error.as_deref().unwrap().contains("1 to 2"));
    }

    #[test]
    fn an_entry_link_that_is_not_a_web_address_is_never_opened() {
        let mut s = loaded();
        open_article_with_links(&mut s, Some("javascript:alert(1)"), "<p>x</p>");
        assert!(update(&mut s, key('o')).is_empty());
        assert!(s.last_error.as_deref().unwrap().contains("not opening"));
    }

    #[test]
    fn due_feeds_are_refreshed_automatically_every_interval() {
        let mut s = loaded();
        s.auto_refresh_secs = Some(3600);
        assert!(update(&mut s, Event::Tick(1000)).is_empty(), "the first tick only sets the clock");
        assert!(update(&mut s, Event::Tick(1000 + AUTO_CHECK_SECS - 1)).is_empty());
        assert_eq!(update(&mut s, Event::Tick(1000 + AUTO_CHECK_SECS)), vec![Effect::LoadDue { interval_secs: 3600 }]);
        assert_eq!(
            update(&mut s, Event::DueFeeds(vec![2, 3])),
            vec![Effect::Refresh { ids: vec![2, 3], force: false }]
        );
        assert!(update(&mut s, Event::Tick(1000 + 2 * AUTO_CHECK_SECS)).is_empty(), "not while a refresh runs");
        let mut off = loaded();
        update(&mut off, Event::Tick(1));
        assert!(update(&mut off, Event::Tick(1 + 10 * AUTO_CHECK_SECS)).is_empty(), "off when the interval is 0");
    }

    #[test]
    fn skipped_and_backing_off_feeds_are_told_apart() {
        let mut s = loaded();
        update(&mut s, key('R'));
        update(
            &mut s,
            Event::Refresh(RefreshEvent::Skipped { feed_id: 1, title: "One".into(), reason: "waiting".into() }),
        );
        update(
            &mut s,
            Event::Refresh(RefreshEvent::Failed {
                feed_id: 2,
                title: "Two".into(),
                url: "u".into(),
                kind: "http".into(),
                message: "HTTP 503".into(),
                retry_at: Some(99_999),
                dead: false,
            }),
        );
        assert_eq!(s.feeds[1].retry_after, Some(99_999));
        update(
            &mut s,
            Event::Refresh(RefreshEvent::Failed {
                feed_id: 3,
                title: "Three".into(),
                url: "u".into(),
                kind: "http".into(),
                message: "HTTP 410".into(),
                retry_at: None,
                dead: true,
            }),
        );
        assert!(s.feeds[2].dead);
        assert_eq!(s.message.as_deref(), Some("Refreshed 2 feeds, 2 failed, 1 left alone (waiting or gone)"));
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut s = loaded();
        let mut release = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        update(&mut s, Event::Key(release));
        assert!(!s.quit);
    }

    #[test]
    fn m_toggles_read_and_a_marks_the_feed_read() {
        let mut s = loaded();
        update(&mut s, key('l'));
        assert_eq!(update(&mut s, key('m')), vec![Effect::SetRead { ids: vec![10], read: true }]);
        assert_eq!(s.feeds[0].unread, 1);
        assert_eq!(update(&mut s, key('m')), vec![Effect::SetRead { ids: vec![10], read: false }]);
        assert_eq!(s.feeds[0].unread, 2);
        assert_eq!(update(&mut s, key('A')), vec![Effect::MarkAllRead(ListKey::Feed(1))]);
        assert_eq!(s.feeds[0].unread, 0);
        assert!(s.entries.iter().all(|e| e.read));
    }

    #[test]
    fn n_opens_the_next_unread_entry() {
        let mut s = loaded();
        s.entries[0].read = true;
        let effects = update(&mut s, key('n'));
        assert_eq!(effects, vec![Effect::LoadArticle(11), Effect::SetRead { ids: vec![11], read: true }]);
        assert_eq!(s.entry_cursor, 1);
    }

    #[test]
    fn entries_for_a_list_no_longer_selected_are_dropped() {
        let mut s = loaded();
        update(&mut s, key('j'));
        update(
            &mut s,
            Event::EntriesLoaded { list: ListKey::Feed(1), entries: vec![entry(99, 1, false)], seen_writes: 0 },
        );
        assert!(s.entries.is_empty());
    }

    #[test]
    fn a_list_read_before_the_users_last_write_is_asked_for_again() {
        let mut s = loaded();
        update(&mut s, key('l'));
        update(&mut s, code(KeyCode::Enter)); // marks 10 read: write number 1
        let stale = vec![entry(10, 1, false), entry(11, 1, false)];
        let effects = update(&mut s, Event::EntriesLoaded { list: ListKey::Feed(1), entries: stale, seen_writes: 0 });
        assert_eq!(effects, vec![Effect::LoadEntries(ListKey::Feed(1))]);
        assert!(s.entries[0].read, "the stale list did not undo the change");
        let effects = update(
            &mut s,
            Event::FeedsLoaded { feeds: vec![feed(1, "One", 2, None)], folders: vec![], seen_writes: 0 },
        );
        assert_eq!(effects, vec![Effect::LoadFeeds]);
        assert_eq!(s.feeds[0].unread, 1);
        let fresh = vec![entry(10, 1, true), entry(11, 1, false)];
        assert!(
            update(&mut s, Event::EntriesLoaded { list: ListKey::Feed(1), entries: fresh, seen_writes: 1 }).is_empty()
        );
    }

    #[test]
    fn space_scrolls_the_article_within_bounds() {
        let mut s = loaded();
        let detail = EntryDetail { title: Some("T".into()), link: None, content_html: None, ..detail_of_entry_10() };
        s.wanted_article = Some(10);
        update(&mut s, Event::ArticleLoaded { entry_id: 10, detail: Some(Box::new(detail)) });
        let width = crate::ui::article_width(s.size);
        let body: String = (0..200).map(|i| format!("<p>line {i}</p>")).collect();
        let body = render::render_article(&body, usize::from(width), None);
        update(&mut s, Event::ArticleRendered { entry_id: 10, width, body });
        update(&mut s, key(' '));
        let page = s.article.as_ref().unwrap().scroll;
        assert!(page > 10);
        for _ in 0..100 {
            update(&mut s, key(' '));
        }
        assert_eq!(s.article.as_ref().unwrap().scroll, s.max_scroll());
        update(&mut s, key('b'));
        assert_eq!(s.article.as_ref().unwrap().scroll, s.max_scroll() - page);
    }
}
