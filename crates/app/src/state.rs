//! The reader's whole state — one field per noun, each owned by its module — and what every module asks of it:
//! the screen's geometry for the current viewport, the names and sources of lists, the dialog queue.

use super::article::pictures;
use super::dialogs::Dialog;
use super::keymap::{Action, Context, Keymap};
use super::{article, entries, feeds, layout, progress, status, subscriptions, sync};
use crate::clock::Zone;
use crate::model::{FeedId, FolderId, ListSource};
use std::collections::VecDeque;

/// What the entry list shows: one feed, every feed of a folder, or a smart view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListKey {
    Feed(FeedId),
    Folder(FolderId),
    All,
    Unread,
    Starred,
    /// The last search.
    Search,
    /// A saved view (`[[views]]` in the config), by its place among them.
    View(usize),
}

impl ListKey {
    /// The list whose entries come from `source`.
    pub fn of(source: &ListSource) -> ListKey {
        match source {
            ListSource::Feed(id) => ListKey::Feed(*id),
            ListSource::Folder(id) => ListKey::Folder(*id),
            ListSource::All => ListKey::All,
            ListSource::Unread => ListKey::Unread,
            ListSource::Starred => ListKey::Starred,
            ListSource::Search { .. } | ListSource::Query { .. } => ListKey::Search,
            ListSource::Ignored { .. } => ListKey::All,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Feeds,
    Entries,
    Article,
}

/// The time as the reader knows it: the last tick, and the zone dates are shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Seconds since the epoch, from the last [`super::Event::Tick`].
    pub now: i64,
    pub zone: Zone,
}

/// How the reader starts: settings that come from the configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub keymap: Keymap,
    pub zone: Zone,
    pub text_column: layout::TextColumn,
    /// Refresh every feed once the feed list first arrives.
    pub refresh_on_startup: bool,
    /// Seconds between automatic refreshes; `None` when they are off.
    pub auto_refresh_secs: Option<i64>,
    /// The accounts to sync (by name), synced when the feed list first arrives and with every refresh.
    pub accounts: Vec<String>,
    /// Macros: a key pressed after the macro key, and its actions.
    pub macros: Vec<(super::keymap::Key, Vec<super::commands::MacroStep>)>,
    /// The config has a `bookmark_command`.
    pub bookmark_command: bool,
    /// Where each exported entry goes in the folder (`export_path`); empty: the default.
    pub export_path: String,
    /// The config has a `save_command`.
    pub save_command: bool,
    /// Quitting asks first (`confirm_quit`).
    pub confirm_quit: bool,
    /// Feeds with nothing unread start out of the feed list.
    pub hide_read_feeds: bool,
    /// The last search, shown as the Search view again.
    pub last_search: Option<String>,
    /// The saved views (`[[views]]`): name and query.
    pub views: Vec<(String, String)>,
    /// What feed health judges by (`dead_after_days`, `quiet_after_days`).
    pub health_rules: tidings_core::health::HealthRules,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            keymap: Keymap::default(),
            zone: Zone::utc(),
            text_column: layout::TextColumn::default(),
            refresh_on_startup: false,
            auto_refresh_secs: None,
            accounts: Vec::new(),
            macros: Vec::new(),
            bookmark_command: false,
            export_path: String::new(),
            save_command: false,
            confirm_quit: false,
            hide_read_feeds: false,
            last_search: None,
            views: Vec::new(),
            health_rules: Default::default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub keymap: Keymap,
    pub clock: Clock,
    /// The terminal's size, in cells.
    pub viewport: (u16, u16),
    pub text_column: layout::TextColumn,
    pub focus: Pane,
    /// The focused pane alone, full screen.
    pub zoom: bool,
    pub feeds: feeds::FeedList,
    pub entries: entries::EntryList,
    pub article: article::Article,
    pub progress: progress::Progress,
    pub refresh: progress::AutoRefresh,
    pub sync: sync::Syncing,
    pub subscriptions: subscriptions::Subscriptions,
    /// The health view's rows, cursor and marks.
    pub health: super::health::HealthView,
    /// The downloads view's rows and cursor, what is downloading now, and which entries have a file on disk.
    pub downloads: super::downloads::DownloadsView,
    pub commands: super::commands::Commands,
    /// Pictures in the article: on or off, and what is known of each.
    pub pictures: pictures::Pictures,
    pub status: status::Status,
    /// The window over the panes that takes the keys.
    pub dialog: Option<Dialog>,
    /// Dialogs that arrived while another was open; each opens when the one before it closes.
    pub queued_dialogs: VecDeque<Dialog>,
    /// The entries the last marking changed, and how, for `u` to put back.
    pub undo: Option<crate::marks::Undo>,
    /// The last change, when it is one `u` cannot undo (it ended what `u` could): said when `u` finds nothing.
    pub undo_closed: Option<&'static str>,
    /// The user's changes until the database has them (quitting waits for them), and the number of the last
    /// one asked for: a list read before it was applied would undo the change on screen, so it is asked for again
    /// instead.
    pub saving: crate::saving::Saving,
    pub quit: bool,
}

impl State {
    /// A reader with nothing loaded yet, for a terminal of `viewport` cells.
    pub fn new(setup: Setup, viewport: (u16, u16)) -> State {
        State {
            keymap: setup.keymap,
            clock: Clock { now: 0, zone: setup.zone },
            viewport,
            text_column: setup.text_column,
            focus: Pane::Feeds,
            zoom: false,
            feeds: feeds::FeedList {
                hide_read: setup.hide_read_feeds,
                search: setup.last_search.map(|query| feeds::SearchView {
                    // Written down as it was typed: a query of the query language is one again.
                    is_query: tidings_core::query::parse(&query).is_ok_and(|parsed| parsed.has_fields()),
                    query,
                    within: None,
                    count: None,
                    announced: false,
                }),
                saved: setup
                    .views
                    .into_iter()
                    .map(|(name, query)| feeds::SavedView { name, query, unread: None })
                    .collect(),
                ..Default::default()
            },
            entries: Default::default(),
            article: Default::default(),
            progress: Default::default(),
            refresh: progress::AutoRefresh {
                next_batch: 0,
                when_loaded: setup.refresh_on_startup,
                interval_secs: setup.auto_refresh_secs,
                next_check: None,
            },
            sync: sync::Syncing {
                when_loaded: !setup.accounts.is_empty(),
                accounts: setup.accounts,
                ..Default::default()
            },
            subscriptions: Default::default(),
            health: super::health::HealthView { rules: setup.health_rules, ..Default::default() },
            downloads: Default::default(),
            commands: super::commands::Commands {
                macros: setup.macros,
                bookmark_command: setup.bookmark_command,
                export_template: setup.export_path,
                save_command: setup.save_command,
                confirm_quit: setup.confirm_quit,
                ..Default::default()
            },
            pictures: Default::default(),
            status: Default::default(),
            dialog: None,
            queued_dialogs: VecDeque::new(),
            undo: None,
            undo_closed: None,
            saving: Default::default(),
            quit: false,
        }
    }

    /// The rectangles of the screen as it is now.
    pub fn screen(&self) -> layout::Screen {
        layout::screen(self.viewport.0, self.viewport.1, self.focus, self.zoom, self.article.entry_id().is_some())
    }

    /// Rows a list pane shows (the same in every layout).
    pub fn list_height(&self, pane: Pane) -> usize {
        let screen = layout::screen(self.viewport.0, self.viewport.1, pane, self.zoom, true);
        screen.pane(pane).map_or(1, layout::rows_inside).max(1)
    }

    /// Where the article's text goes whenever the article is shown (it is shown when it has the focus).
    pub fn article_text_area(&self) -> ratatui::layout::Rect {
        let screen = layout::screen(self.viewport.0, self.viewport.1, Pane::Article, self.zoom, true);
        layout::article_text(screen.article.unwrap_or_default(), self.text_column)
    }

    /// Columns the article is rendered to.
    pub fn article_width(&self) -> u16 {
        self.article_text_area().width.max(8)
    }

    pub fn article_height(&self) -> usize {
        usize::from(self.article_text_area().height).max(1)
    }

    /// Rows of the article's text area, as cells (pictures are never taller).
    pub fn article_height_cells(&self) -> u16 {
        self.article_text_area().height.max(1)
    }

    /// Where a list's entries come from, for the store.
    pub fn source_of(&self, list: ListKey) -> ListSource {
        match list {
            ListKey::Feed(id) => ListSource::Feed(id),
            ListKey::Folder(id) => ListSource::Folder(id),
            ListKey::All => ListSource::All,
            ListKey::Unread => ListSource::Unread,
            ListKey::Starred => ListSource::Starred,
            ListKey::Search => {
                let search = self.feeds.search.as_ref();
                let query = search.map(|s| s.query.clone()).unwrap_or_default();
                let within = search
                    .and_then(|s| s.within)
                    .filter(|w| !matches!(w, ListKey::Search | ListKey::View(_)))
                    .map(|w| Box::new(self.source_of(w)));
                if search.is_some_and(|s| s.is_query) {
                    ListSource::Query { query, within }
                } else {
                    ListSource::Search { query, within }
                }
            }
            ListKey::View(i) => ListSource::Query {
                query: self.feeds.saved.get(i).map(|v| v.query.clone()).unwrap_or_default(),
                within: None,
            },
        }
    }

    /// What to call a list in titles and questions.
    pub fn list_name(&self, list: ListKey) -> String {
        match list {
            ListKey::Feed(id) => {
                self.feeds.feed(id).map(|f| crate::sanitize::one_line(&f.title, 80)).unwrap_or_default()
            }
            ListKey::Folder(id) => crate::sanitize::one_line(&self.feeds.folder_path(id), 80),
            ListKey::All => "All".into(),
            ListKey::Unread => "Unread".into(),
            ListKey::Starred => "Starred".into(),
            ListKey::Search => match &self.feeds.search {
                Some(feeds::SearchView { query, within: Some(within), .. }) if *within != ListKey::Search => {
                    format!("Search in {}: {}", self.list_name(*within), crate::sanitize::one_line(query, 60))
                }
                Some(s) => format!("Search: {}", crate::sanitize::one_line(&s.query, 60)),
                None => "Search".into(),
            },
            ListKey::View(i) => {
                self.feeds.saved.get(i).map(|v| crate::sanitize::one_line(&v.name, 80)).unwrap_or_default()
            }
        }
    }

    /// Opens a dialog, or queues it behind the one that is open.
    pub fn show_dialog(&mut self, dialog: Dialog) {
        if self.dialog.is_none() {
            self.dialog = Some(dialog);
        } else {
            self.queued_dialogs.push_back(dialog);
        }
    }

    /// How a question says which keys answer it: `" (y/n)"` with the keys in effect.
    pub fn yes_or_no(&self) -> String {
        let (yes, no) =
            (self.keymap.hint(Context::Confirm, Action::Yes), self.keymap.hint(Context::Confirm, Action::No));
        if yes.is_empty() || no.is_empty() { String::new() } else { format!(" ({yes}/{no})") }
    }

    /// The keymap context of the pane with the focus.
    pub(super) fn pane_context(&self) -> Context {
        match self.focus {
            Pane::Feeds => Context::Feeds,
            Pane::Entries => Context::Entries,
            Pane::Article => Context::Article,
        }
    }
}
