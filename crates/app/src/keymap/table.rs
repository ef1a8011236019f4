//! The table's rows: where keys are pressed ([`Context`]), what they do ([`Action`]), and the defaults that bind
//! one to the other, each with its line of help.

/// Where a key is pressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Context {
    /// Any of the three panes, when no dialog is open.
    General,
    Feeds,
    Entries,
    Article,
    /// The help overlay.
    Help,
    /// The feed-info view.
    Info,
    /// A question that wants a line of text.
    Prompt,
    /// The list of feeds discovery found.
    Picker,
    /// A yes/no question.
    Confirm,
    /// A window of text to read: an import report, what discovery tried, the message log.
    Report,
}

impl Context {
    pub const ALL: [Context; 10] = [
        Context::General,
        Context::Feeds,
        Context::Entries,
        Context::Article,
        Context::Help,
        Context::Info,
        Context::Prompt,
        Context::Picker,
        Context::Confirm,
        Context::Report,
    ];

    /// Its name in the config file (`[keys.entries]`).
    pub fn name(self) -> &'static str {
        match self {
            Context::General => "general",
            Context::Feeds => "feeds",
            Context::Entries => "entries",
            Context::Article => "article",
            Context::Help => "help_window",
            Context::Info => "info",
            Context::Prompt => "prompt",
            Context::Picker => "picker",
            Context::Confirm => "confirm",
            Context::Report => "report",
        }
    }

    /// Its heading in the help overlay and README.
    pub fn title(self) -> &'static str {
        match self {
            Context::General => "Everywhere",
            Context::Feeds => "Feed list",
            Context::Entries => "Entry list",
            Context::Article => "Article",
            Context::Help => "Help",
            Context::Info => "Feed info",
            Context::Prompt => "Prompts",
            Context::Picker => "Choosing a feed",
            Context::Confirm => "Questions",
            Context::Report => "Reports and the message log",
        }
    }

    pub(super) fn from_name(name: &str) -> Option<Context> {
        Context::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether keys not bound here are looked up in [`Context::General`].
    pub(super) fn falls_back(self) -> bool {
        !matches!(self, Context::General | Context::Prompt)
    }
}

/// Everything a key can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    Quit,
    Help,
    Suspend,
    Down,
    Up,
    PageDown,
    PageUp,
    HalfPageDown,
    HalfPageUp,
    Top,
    Bottom,
    PaneLeft,
    PaneRight,
    NextPane,
    PrevPane,
    Open,
    NextUnread,
    PrevUnread,
    ToggleRead,
    Star,
    Undo,
    Sort,
    UnreadOnly,
    Search,
    /// In the search prompt: every feed, or only the selected feed or folder.
    ToggleScope,
    MarkAllRead,
    OpenInBrowser,
    FollowLink,
    Refresh,
    RefreshAll,
    AddFeed,
    Rename,
    Move,
    NewFolder,
    Delete,
    FeedInfo,
    ForceEncoding,
    /// Show the focused pane alone, full screen (again: back to the panes).
    Zoom,
    /// Play the entry's media (podcast, video) with the player.
    OpenMedia,
    /// The full article from the entry's page (fetched the first time), or the feed's text again.
    FullText,
    /// Fetch a feed's new entries in full on refresh, or stop.
    FeedFullText,
    /// Media, comments and tags in the article's header: folded into one line, or listed.
    ToggleDetails,
    /// The last messages and errors, in full.
    MessageLog,
    /// Close a dialog without doing anything.
    Close,
    /// Accept a dialog: submit the prompt, subscribe to the chosen feed.
    Accept,
    Yes,
    No,
    /// Deleting a folder: its feeds and folders too.
    DeleteAll,
}

impl Action {
    pub const ALL: [Action; 48] = [
        Action::Quit,
        Action::Help,
        Action::Suspend,
        Action::Down,
        Action::Up,
        Action::PageDown,
        Action::PageUp,
        Action::HalfPageDown,
        Action::HalfPageUp,
        Action::Top,
        Action::Bottom,
        Action::PaneLeft,
        Action::PaneRight,
        Action::NextPane,
        Action::PrevPane,
        Action::Open,
        Action::NextUnread,
        Action::PrevUnread,
        Action::ToggleRead,
        Action::Star,
        Action::Undo,
        Action::Sort,
        Action::UnreadOnly,
        Action::Search,
        Action::ToggleScope,
        Action::MarkAllRead,
        Action::OpenInBrowser,
        Action::FollowLink,
        Action::Refresh,
        Action::RefreshAll,
        Action::AddFeed,
        Action::Rename,
        Action::Move,
        Action::NewFolder,
        Action::Delete,
        Action::FeedInfo,
        Action::ForceEncoding,
        Action::Zoom,
        Action::OpenMedia,
        Action::FullText,
        Action::FeedFullText,
        Action::ToggleDetails,
        Action::MessageLog,
        Action::Close,
        Action::Accept,
        Action::Yes,
        Action::No,
        Action::DeleteAll,
    ];

    /// Its name in the config file (`next_unread = "n"`).
    pub fn name(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "help",
            Action::Suspend => "suspend",
            Action::Down => "down",
            Action::Up => "up",
            Action::PageDown => "page_down",
            Action::PageUp => "page_up",
            Action::HalfPageDown => "half_page_down",
            Action::HalfPageUp => "half_page_up",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::PaneLeft => "pane_left",
            Action::PaneRight => "pane_right",
            Action::NextPane => "next_pane",
            Action::PrevPane => "prev_pane",
            Action::Open => "open",
            Action::NextUnread => "next_unread",
            Action::PrevUnread => "prev_unread",
            Action::ToggleRead => "toggle_read",
            Action::Star => "star",
            Action::Undo => "undo",
            Action::Sort => "sort",
            Action::UnreadOnly => "unread_only",
            Action::Search => "search",
            Action::ToggleScope => "toggle_scope",
            Action::MarkAllRead => "mark_all_read",
            Action::OpenInBrowser => "open_in_browser",
            Action::FollowLink => "follow_link",
            Action::Refresh => "refresh",
            Action::RefreshAll => "refresh_all",
            Action::AddFeed => "add_feed",
            Action::Rename => "rename",
            Action::Move => "move",
            Action::NewFolder => "new_folder",
            Action::Delete => "delete",
            Action::FeedInfo => "feed_info",
            Action::ForceEncoding => "force_encoding",
            Action::Zoom => "zoom",
            Action::OpenMedia => "open_media",
            Action::FullText => "full_text",
            Action::FeedFullText => "feed_full_text",
            Action::ToggleDetails => "toggle_details",
            Action::MessageLog => "message_log",
            Action::Close => "close",
            Action::Accept => "accept",
            Action::Yes => "yes",
            Action::No => "no",
            Action::DeleteAll => "delete_all",
        }
    }

    /// Whether a key bound to this action in `context` can ever do it: the panes take every pane action; a
    /// window takes its own actions and those every window answers (moving, opening, closing, help, the log,
    /// quitting, suspending), which general also takes since windows fall back to it; the prompt only its own
    /// and quitting. What it refuses is a binding that could only be a mistake (`star` in the prompt).
    pub(super) fn works_in(self, context: Context) -> bool {
        const PANES: [Context; 4] = [Context::General, Context::Feeds, Context::Entries, Context::Article];
        const IN_WINDOWS: &[Action] = &[
            Action::Down,
            Action::Up,
            Action::PageDown,
            Action::PageUp,
            Action::HalfPageDown,
            Action::HalfPageUp,
            Action::Top,
            Action::Bottom,
            Action::Open,
            Action::Close,
            Action::FeedInfo,
            Action::Help,
            Action::MessageLog,
            Action::Quit,
            Action::Suspend,
        ];
        let defaults_in = |c: Context| DEFAULTS.iter().any(|(dc, a, _, _)| *dc == c && *a == self);
        if defaults_in(context) || (context != Context::Prompt && IN_WINDOWS.contains(&self)) {
            return true;
        }
        match context {
            Context::Prompt => self == Action::Quit,
            c if PANES.contains(&c) => PANES.into_iter().any(defaults_in),
            _ => false,
        }
    }

    pub(super) fn from_name(name: &str) -> Option<Action> {
        let name = name.replace('-', "_");
        Action::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// The default bindings: (context, action, keys, help line). Today's keys stay as README documented them;
/// habits and scripts rely on them.
pub(super) const DEFAULTS: &[(Context, Action, &[&str], &str)] = &[
    (Context::General, Action::Down, &["j", "Down"], "move down (scroll, in the article)"),
    (Context::General, Action::Up, &["k", "Up"], "move up"),
    (Context::General, Action::PageDown, &["PgDn"], "a page down"),
    (Context::General, Action::PageUp, &["PgUp"], "a page up"),
    (Context::General, Action::HalfPageDown, &["Ctrl-d"], "half a page down"),
    (Context::General, Action::HalfPageUp, &["Ctrl-u"], "half a page up"),
    (Context::General, Action::Top, &["g", "Home"], "first item (top of the article)"),
    (Context::General, Action::Bottom, &["G", "End"], "last item (end of the article)"),
    (Context::General, Action::PaneLeft, &["h", "Left", "Esc"], "previous pane"),
    (Context::General, Action::PaneRight, &["l", "Right"], "next pane"),
    (Context::General, Action::NextPane, &["Tab"], "next pane, round"),
    (Context::General, Action::PrevPane, &["Shift-Tab"], "previous pane, round"),
    (Context::General, Action::Open, &["Enter"], "open the entry; on a folder, fold or unfold it"),
    (Context::General, Action::NextUnread, &["n"], "open the next unread entry, crossing feeds, wrapping round"),
    (Context::General, Action::PrevUnread, &["p"], "open the previous unread entry"),
    (Context::General, Action::ToggleRead, &["m"], "toggle read / unread"),
    (Context::General, Action::MarkAllRead, &["A"], "mark every entry of the list read (asks first when many)"),
    (Context::General, Action::Undo, &["u"], "undo the last marking read"),
    (Context::General, Action::Star, &["s"], "star or unstar the entry (starred entries are never purged)"),
    (Context::General, Action::Search, &["/"], "search every feed (Tab in the prompt: only this feed or folder)"),
    (Context::General, Action::Sort, &["S"], "sort the list: newest, oldest, by feed, by title"),
    (Context::General, Action::UnreadOnly, &["U"], "show only the list's unread entries, or all again"),
    (Context::General, Action::OpenInBrowser, &["o"], "open the entry's page in the browser"),
    (Context::General, Action::FollowLink, &["f"], "follow link N of the article (listed at its end)"),
    (Context::General, Action::OpenMedia, &["v"], "play the entry's media (podcast, video) with the player"),
    (Context::General, Action::FullText, &["t"], "the full article from the entry's page, or the feed's text again"),
    (Context::General, Action::FeedFullText, &["T"], "fetch this feed's new entries in full on refresh (or stop)"),
    (Context::General, Action::ToggleDetails, &["d"], "the article's media, comments and tags: folded or listed"),
    (Context::General, Action::Refresh, &["r"], "refresh the selected feed or folder (on a view, every feed)"),
    (Context::General, Action::RefreshAll, &["R"], "refresh every feed"),
    (Context::General, Action::AddFeed, &["a"], "add a feed: its address, or a site's (its feed is found)"),
    (Context::General, Action::Rename, &["c"], "rename the selected feed or folder"),
    (Context::General, Action::Move, &["M"], "move the selected feed to a folder (a new name creates it)"),
    (Context::General, Action::NewFolder, &["F"], "create a folder"),
    (Context::General, Action::Delete, &["D"], "delete the selected feed or folder, after a yes"),
    (Context::General, Action::FeedInfo, &["i"], "feed info: status, errors, how it was decoded"),
    (Context::General, Action::ForceEncoding, &["e"], "force the encoding of the selected feed"),
    (Context::General, Action::Zoom, &["z"], "zoom: the focused pane alone, full screen (again to go back)"),
    (Context::General, Action::MessageLog, &["L"], "the message log: recent messages and errors in full"),
    (Context::General, Action::Help, &["?"], "show or hide the help"),
    (Context::General, Action::Suspend, &["Ctrl-z"], "suspend tidings (fg in the shell brings it back)"),
    (Context::General, Action::Quit, &["q", "Ctrl-c"], "quit"),
    (Context::Article, Action::PageDown, &["Space", "PgDn"], "scroll a page down"),
    (Context::Article, Action::PageUp, &["b", "PgUp"], "scroll a page up"),
    (Context::Help, Action::Close, &["?", "q", "Esc", "Enter"], "close the help"),
    (Context::Info, Action::Close, &["i", "q", "Esc", "Enter"], "close the feed info"),
    (Context::Info, Action::ForceEncoding, &["e"], "force the feed's encoding"),
    (Context::Prompt, Action::Accept, &["Enter"], "accept"),
    (Context::Prompt, Action::Close, &["Esc", "Ctrl-c"], "cancel"),
    (Context::Prompt, Action::Suspend, &["Ctrl-z"], "suspend tidings"),
    (Context::Prompt, Action::ToggleScope, &["Tab"], "in the search prompt: every feed, or the selected one"),
    (Context::Picker, Action::Accept, &["Enter"], "subscribe to the feed under the cursor (or press its number)"),
    (Context::Picker, Action::Close, &["Esc", "q"], "cancel"),
    (Context::Confirm, Action::Yes, &["y", "Y"], "yes"),
    (Context::Confirm, Action::No, &["n", "N", "q", "Esc"], "no"),
    (Context::Confirm, Action::DeleteAll, &["D"], "deleting a folder: its feeds and folders too"),
    (Context::Report, Action::Close, &["q", "Esc", "Enter"], "close"),
];
