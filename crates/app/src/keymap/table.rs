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
    /// The health view: every feed's state, and what to do about those in trouble.
    Health,
    /// The downloads view: every file downloading or downloaded, and what to do with it.
    Downloads,
}

impl Context {
    pub const ALL: [Context; 12] = [
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
        Context::Health,
        Context::Downloads,
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
            Context::Health => "health_view",
            Context::Downloads => "downloads_view",
        }
    }

    /// Its heading in the help overlay and docs/keys.md.
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
            Context::Health => "Feed health",
            Context::Downloads => "Downloads",
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

/// Declares the actions once: the enum, the list of them all, and each one's name in the config file. An action
/// declared here is configurable by that name and listed in help (its bindings are in [`DEFAULTS`]; a test checks
/// that each has one).
macro_rules! actions {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, )+) => {
        /// Everything a key can do.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Action {
            $( $(#[doc = $doc])* $variant, )+
        }

        impl Action {
            /// Every action, in the order declared.
            pub const ALL: &'static [Action] = &[$( Action::$variant, )+];

            /// Its name in the config file (`next_unread = "n"`).
            pub fn name(self) -> &'static str {
                match self {
                    $( Action::$variant => $name, )+
                }
            }
        }
    };
}

actions! {
    Quit = "quit",
    Back = "back",
    Help = "help",
    Suspend = "suspend",
    Down = "down",
    Up = "up",
    PageDown = "page_down",
    PageUp = "page_up",
    HalfPageDown = "half_page_down",
    HalfPageUp = "half_page_up",
    Top = "top",
    Bottom = "bottom",
    PaneLeft = "pane_left",
    PaneRight = "pane_right",
    NextPane = "next_pane",
    PrevPane = "prev_pane",
    Open = "open",
    NextUnread = "next_unread",
    PrevUnread = "prev_unread",
    ToggleRead = "toggle_read",
    Star = "star",
    Undo = "undo",
    Sort = "sort",
    UnreadOnly = "unread_only",
    Search = "search",
    /// Save the search (or query) on screen as a view, in the config.
    SaveView = "save_view",
    /// In the search prompt: every feed, or only the selected feed or folder.
    ToggleScope = "toggle_scope",
    MarkAllRead = "mark_all_read",
    /// Mark read every entry above the cursor (newer, in the newest-first order), or below it (older).
    MarkAboveRead = "mark_above_read",
    MarkBelowRead = "mark_below_read",
    /// Mark every entry from the last one marked to the cursor (then act on them all).
    MarkRange = "mark_range",
    /// Save the entry (or each marked one) for later: on its account's server (a label, Miniflux's save), else
    /// with the `save_command`.
    SaveForLater = "save_for_later",
    /// Export the marked entries (or the entry, or in the feed list the whole list) as Markdown files.
    Export = "export",
    OpenInBrowser = "open_in_browser",
    FollowLink = "follow_link",
    Refresh = "refresh",
    RefreshAll = "refresh_all",
    AddFeed = "add_feed",
    Rename = "rename",
    Move = "move",
    NewFolder = "new_folder",
    Delete = "delete",
    FeedInfo = "feed_info",
    ForceEncoding = "force_encoding",
    /// In the feed info: set one of the feed's settings (`[feeds."URL"]` in the config).
    FeedSettings = "feed_settings",
    /// Show the focused pane alone, full screen (again: back to the panes).
    Zoom = "zoom",
    /// Play the entry's media (podcast, video) with the player.
    OpenMedia = "open_media",
    /// The full article from the entry's page (fetched the first time), or the feed's text again.
    FullText = "full_text",
    /// Fetch a feed's new entries in full on refresh, or stop.
    FeedFullText = "feed_full_text",
    /// Media, comments and tags in the article's header: folded into one line, or listed.
    ToggleDetails = "toggle_details",
    /// The last messages and errors, in full.
    MessageLog = "message_log",
    /// The command line: any action by its name (`:star`), and commands (`:save FILE`, `:set …`).
    CommandLine = "command_line",
    /// The macro key: the key pressed after it runs that macro's actions (`[macros]` in the config).
    Macro = "macro",
    /// Pipe the article's text (or its address) to a command.
    Pipe = "pipe",
    /// Save the article's text to a file.
    Save = "save",
    /// Copy the entry's address (or link N's) to the clipboard.
    CopyUrl = "copy_url",
    CopyLink = "copy_link",
    /// The next or previous feed of the feed list; the next or previous one with unread entries.
    NextFeed = "next_feed",
    PrevFeed = "prev_feed",
    NextUnreadFeed = "next_unread_feed",
    PrevUnreadFeed = "prev_unread_feed",
    /// Leave feeds with nothing unread out of the feed list, or show them again (remembered).
    HideReadFeeds = "hide_read_feeds",
    /// Hand the entry's address and title to the `bookmark_command`.
    Bookmark = "bookmark",
    /// Close a dialog without doing anything.
    Close = "close",
    /// Accept a dialog: submit the prompt, subscribe to the chosen feed.
    Accept = "accept",
    Yes = "yes",
    No = "no",
    /// Deleting a folder: its feeds and folders too.
    DeleteAll = "delete_all",
    /// Editing a prompt's line: the cursor one character left or right, to the start or the end.
    CursorLeft = "cursor_left",
    CursorRight = "cursor_right",
    LineStart = "line_start",
    LineEnd = "line_end",
    /// Editing a prompt's line: delete the character before or under the cursor, everything before or after it,
    /// or the word before it.
    DeleteBack = "delete_back",
    DeleteForward = "delete_forward",
    DeleteToStart = "delete_to_start",
    DeleteToEnd = "delete_to_end",
    DeleteWord = "delete_word",
    /// In a prompt: the line typed before, or after (the command line's history).
    HistoryPrev = "history_prev",
    HistoryNext = "history_next",
    /// Choosing a feed: the one with this number.
    Choose1 = "choose_1",
    Choose2 = "choose_2",
    Choose3 = "choose_3",
    Choose4 = "choose_4",
    Choose5 = "choose_5",
    Choose6 = "choose_6",
    Choose7 = "choose_7",
    Choose8 = "choose_8",
    Choose9 = "choose_9",
    /// Feed health: every feed that is dead, gone, moved, failing, throttled or quiet, and what to do.
    Health = "health",
    /// Mark the entry (or, in the health view, the feed), or unmark it, for what comes next.
    Mark = "mark",
    /// In the health view: mark every feed in the state of the one under the cursor (again: unmark them).
    MarkState = "mark_state",
    /// In the health view: pause the feeds (never fetched until resumed), or resume them.
    Pause = "pause",
    /// In the health view: accept the new address a feed's permanent redirects propose.
    AcceptMove = "accept_move",
    /// Download every enclosure of the entry (podcasts, videos, any file), in the background.
    Download = "download",
    /// The downloads: every file downloading or downloaded, its progress, state and why.
    Downloads = "downloads",
}

impl Action {
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
        Action::ALL.iter().copied().find(|a| a.name() == name)
    }

    /// Whether it does something in the panes (the command line runs only those).
    pub fn works_in_panes(self) -> bool {
        self.works_in(Context::General)
            && !matches!(self, Action::Close | Action::Accept | Action::Yes | Action::No | Action::DeleteAll)
    }

    /// The action called `name` in the config (`next_unread`, or `next-unread` as typed on the command line).
    pub fn named(name: &str) -> Option<Action> {
        Action::from_name(name)
    }

    /// For `choose_N`: N (the number of the feed it chooses).
    pub fn chosen_number(self) -> Option<usize> {
        const CHOOSE: [Action; 9] = [
            Action::Choose1,
            Action::Choose2,
            Action::Choose3,
            Action::Choose4,
            Action::Choose5,
            Action::Choose6,
            Action::Choose7,
            Action::Choose8,
            Action::Choose9,
        ];
        CHOOSE.iter().position(|a| *a == self).map(|i| i + 1)
    }
}

/// The default bindings: (context, action, keys, help line). Today's keys stay as docs/keys.md documents them;
/// habits and scripts rely on them. A help line names another action's key as `{context.action}`, filled in
/// with the key in effect (see `Keymap::help_text`).
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
    (Context::General, Action::MarkAllRead, &["A"], "mark the list read (asks first when many or of several feeds)"),
    (Context::General, Action::MarkAboveRead, &["["], "mark every entry above the cursor read (as the list is sorted)"),
    (Context::General, Action::MarkBelowRead, &["]"], "mark every entry below the cursor read (as the list is sorted)"),
    (
        Context::General,
        Action::Mark,
        &["x"],
        "mark the entry or unmark it; then {general.toggle_read}, {general.star}, {general.export} act on all marked",
    ),
    (Context::General, Action::MarkRange, &["X"], "mark every entry from the last one marked to the cursor"),
    (Context::General, Action::Undo, &["u"], "undo the last marking (read, unread, starred), one entry or many"),
    (Context::General, Action::Star, &["s"], "star or unstar the entry (starred entries are never purged)"),
    (
        Context::General,
        Action::Search,
        &["/"],
        "search every feed ({prompt.toggle_scope} in the prompt: only this feed or folder)",
    ),
    (Context::General, Action::SaveView, &["V"], "save the search or query on screen as a view (in the config)"),
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
    (Context::General, Action::CommandLine, &[":"], "the command line: any action by its name, and commands"),
    (Context::General, Action::Macro, &[","], "then a key: run that macro's actions ([macros] in the config)"),
    (Context::General, Action::Pipe, &["|"], "pipe the article's text (or its address) to a command"),
    (Context::General, Action::Save, &["w"], "save the article's text to a file"),
    (
        Context::General,
        Action::Export,
        &["O"],
        "export the marked entries (or this one; in the feed list, the list) as Markdown",
    ),
    (Context::General, Action::CopyUrl, &["y"], "copy the entry's address to the clipboard"),
    (Context::General, Action::CopyLink, &["Y"], "copy link N of the article to the clipboard"),
    (Context::General, Action::NextFeed, &["J"], "the next feed"),
    (Context::General, Action::PrevFeed, &["K"], "the previous feed"),
    (Context::General, Action::NextUnreadFeed, &["Ctrl-n"], "the next feed with unread entries"),
    (Context::General, Action::PrevUnreadFeed, &["Ctrl-p"], "the previous feed with unread entries"),
    (Context::General, Action::HideReadFeeds, &["H"], "hide feeds with nothing unread, or show them again"),
    (Context::General, Action::Health, &["!"], "feed health: feeds dead, gone, moved, failing, throttled or quiet"),
    (Context::General, Action::Download, &["E"], "download the entry's media (every enclosure) in the background"),
    (Context::General, Action::Downloads, &["P"], "the downloads: progress, rate, time left, state and why"),
    (Context::General, Action::Bookmark, &["Ctrl-b"], "bookmark the entry with the config's bookmark command"),
    (
        Context::General,
        Action::SaveForLater,
        &["W"],
        "save the entry (or the marked ones) for later: on its server, else with the save command",
    ),
    (Context::General, Action::Help, &["?"], "show or hide the help"),
    (Context::General, Action::Suspend, &["Ctrl-z"], "suspend tidings (fg in the shell brings it back)"),
    (Context::General, Action::Quit, &["q", "Ctrl-c"], "quit"),
    (
        Context::General,
        Action::Back,
        &["Backspace"],
        "back one level (the article to its list, the list to the feeds); quit at the feeds, as newsboat's q",
    ),
    (Context::Article, Action::PageDown, &["Space", "PgDn"], "scroll a page down"),
    (Context::Article, Action::PageUp, &["b", "PgUp"], "scroll a page up"),
    (Context::Help, Action::Close, &["?", "q", "Esc", "Enter"], "close the help"),
    (Context::Info, Action::Close, &["i", "q", "Esc", "Enter"], "close the feed info"),
    (Context::Info, Action::ForceEncoding, &["e"], "force the feed's encoding"),
    (Context::Info, Action::FeedSettings, &["s"], "set one of the feed's settings (refresh, keep, notify, browser…)"),
    (Context::Prompt, Action::Accept, &["Enter"], "accept"),
    (Context::Prompt, Action::Close, &["Esc", "Ctrl-c"], "cancel"),
    (Context::Prompt, Action::Suspend, &["Ctrl-z"], "suspend tidings"),
    (
        Context::Prompt,
        Action::ToggleScope,
        &["Tab"],
        "complete a command; in the search prompt: every feed or the selected one; piping: text or address",
    ),
    (Context::Prompt, Action::HistoryPrev, &["Up"], "the line typed before (command line)"),
    (Context::Prompt, Action::HistoryNext, &["Down"], "the line typed after (command line)"),
    (Context::Prompt, Action::CursorLeft, &["Left"], "the cursor one character left"),
    (Context::Prompt, Action::CursorRight, &["Right"], "the cursor one character right"),
    (Context::Prompt, Action::LineStart, &["Home", "Ctrl-a"], "to the start of the line"),
    (Context::Prompt, Action::LineEnd, &["End", "Ctrl-e"], "to the end of the line"),
    (Context::Prompt, Action::DeleteBack, &["Backspace"], "delete the character before the cursor"),
    (Context::Prompt, Action::DeleteForward, &["Del"], "delete the character under the cursor"),
    (Context::Prompt, Action::DeleteToStart, &["Ctrl-u"], "delete everything before the cursor"),
    (Context::Prompt, Action::DeleteToEnd, &["Ctrl-k"], "delete everything from the cursor on"),
    (Context::Prompt, Action::DeleteWord, &["Ctrl-w"], "delete the word before the cursor"),
    (Context::Picker, Action::Accept, &["Enter"], "subscribe to the feed under the cursor"),
    (Context::Picker, Action::Choose1, &["1"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Choose2, &["2"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Choose3, &["3"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Choose4, &["4"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Choose5, &["5"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Choose6, &["6"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Choose7, &["7"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Choose8, &["8"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Choose9, &["9"], "subscribe to the feed with that number"),
    (Context::Picker, Action::Close, &["Esc", "q"], "cancel"),
    (Context::Confirm, Action::Yes, &["y", "Y"], "yes"),
    (Context::Confirm, Action::No, &["n", "N", "q", "Esc"], "no"),
    (Context::Confirm, Action::DeleteAll, &["D"], "deleting a folder: its feeds and folders too"),
    (Context::Report, Action::Close, &["q", "Esc", "Enter"], "close"),
    (Context::Health, Action::Close, &["!", "q", "Esc"], "close the health view"),
    (Context::Health, Action::Mark, &["Space"], "mark the feed, or unmark it (then act on every marked feed)"),
    (Context::Health, Action::MarkState, &["*"], "mark every feed in this feed's state (again: unmark them)"),
    (Context::Health, Action::Delete, &["D"], "unsubscribe from the marked feeds (or this one), after a yes"),
    (Context::Health, Action::Pause, &["p"], "pause the marked feeds (never fetched), or resume them"),
    (Context::Health, Action::Refresh, &["r"], "retry the marked feeds (or this one) now, backoff or not"),
    (Context::Health, Action::AcceptMove, &["m"], "accept the proposed new address (the entries stay)"),
    (Context::Health, Action::OpenInBrowser, &["o"], "open the feed's site in the browser"),
    (Context::Health, Action::FeedInfo, &["i", "Enter"], "the feed's info: its last 50 attempts, errors"),
    (Context::Downloads, Action::Close, &["P", "q", "Esc"], "close the downloads"),
    (Context::Downloads, Action::Pause, &["p"], "pause the download, or resume it"),
    (Context::Downloads, Action::Refresh, &["r"], "retry a failed download (from where it stopped)"),
    (Context::Downloads, Action::Delete, &["D"], "delete the download and its file, after a yes"),
    (Context::Downloads, Action::OpenMedia, &["v", "Enter"], "play the file with the player"),
    (Context::Downloads, Action::OpenInBrowser, &["o"], "open the file's folder"),
];
