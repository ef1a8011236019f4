//! The reader's protocol: every [`Event`] that can reach the state machine, and every [`Effect`] it can ask
//! the runtime to perform. Results of effects come back as events; nothing else crosses the line.

use super::ListKey;
use crate::model::{
    Discovery, EntryDetail, EntryId, EntryRef, EntryRow, FeedId, FeedInfo, FeedRow, FolderId, FolderRow, ListSource,
    RefreshEvent, Sort, ViewCounts,
};
use crate::render;
use crossterm::event::{KeyEvent, MouseEvent};

/// What is being opened outside tidings: a page goes to the browser, media (podcasts, videos) to the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenKind {
    Page,
    Media,
}

/// Identifies one discovery the add dialog started, so that its answer finds its way back.
pub type RequestId = u64;

/// Everything that can happen to the reader.
#[derive(Debug)]
pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    /// The terminal's size, in cells.
    Resize {
        width: u16,
        height: u16,
    },
    /// The clock: the current time (seconds since the epoch). The runtime sends one at start and one a second.
    Tick(i64),
    /// Feeds due for an automatic refresh.
    DueFeeds(Vec<FeedId>),
    /// The feed list, read after the first `seen_writes` user writes were applied.
    FeedsLoaded {
        feeds: Vec<FeedRow>,
        folders: Vec<FolderRow>,
        views: ViewCounts,
        seen_writes: u64,
    },
    /// A discovery the add dialog started finished.
    Discovered {
        request: RequestId,
        discovery: Box<Discovery>,
    },
    /// A subscription was added (`added` is false when it already existed).
    FeedAdded {
        feed_id: FeedId,
        added: bool,
        title: String,
    },
    /// A list's entries: all of them as refs, and the rows around `keep` (or the top).
    EntriesLoaded {
        list: ListKey,
        refs: Vec<EntryRef>,
        rows: Vec<EntryRow>,
        /// The order they are in, and whether only unread ones are listed.
        order: (Sort, bool),
        keep: Option<EntryId>,
        seen_writes: u64,
    },
    /// A list could not be read; `message` says why (a search that means nothing, …).
    EntriesFailed {
        list: ListKey,
        message: String,
    },
    /// Rows of the list on screen, as asked for.
    RowsLoaded {
        list: ListKey,
        rows: Vec<EntryRow>,
    },
    /// A whole list was marked read; these are the entries that changed (for undo).
    ListMarkedRead {
        list: ListKey,
        ids: Vec<EntryId>,
    },
    ArticleLoaded {
        entry_id: EntryId,
        detail: Option<Box<EntryDetail>>,
    },
    /// An article body was rendered for `width` columns, or rendering failed (the reason).
    ArticleRendered {
        entry_id: EntryId,
        width: u16,
        body: Result<render::Rendered, String>,
    },
    Refresh(RefreshEvent),
    /// Retention purged old entries from the store.
    Purged {
        entries: usize,
    },
    /// An entry's article could not be read from the store.
    ArticleFailed {
        entry_id: EntryId,
        message: String,
    },
    /// Another process wrote to the database (`tidings refresh`, `add`, `import`): read what is shown again.
    ChangedOutside,
    /// An entry's full article was fetched and stored (its sanitized HTML), or why there is none.
    FullTextFetched {
        entry_id: EntryId,
        result: Result<String, String>,
    },
    /// Refresh `batch` ended; those of `ids` it did not report on failed (its task died), `reason` says why.
    RefreshStopped {
        batch: u64,
        ids: Vec<FeedId>,
        reason: String,
    },
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
    /// Read a list: every entry as a ref, in `order` (or the one remembered for it), with the rows around `keep`.
    LoadEntries {
        list: ListKey,
        source: ListSource,
        order: Option<(Sort, bool)>,
        keep: Option<EntryId>,
    },
    /// Read these rows of the list on screen.
    LoadRows {
        list: ListKey,
        ids: Vec<EntryId>,
    },
    LoadArticle(EntryId),
    RenderArticle {
        entry_id: EntryId,
        html: String,
        width: u16,
        /// The entry's address, against which relative links resolve.
        base: Option<String>,
    },
    /// Hand an address to the browser or the player (as one argument, never through a shell).
    Open {
        url: String,
        kind: OpenKind,
    },
    SetRead {
        ids: Vec<EntryId>,
        read: bool,
    },
    SetStarred {
        ids: Vec<EntryId>,
        starred: bool,
    },
    /// Mark every unread entry of a list read (the answer lists them, for undo).
    MarkListRead {
        list: ListKey,
        source: ListSource,
    },
    /// Remember a list's order and unread-only setting.
    SetListOrder {
        source: ListSource,
        sort: Sort,
        unread_only: bool,
    },
    /// Refresh these feeds as one batch; `force` ignores backoff and tries feeds that are gone.
    Refresh {
        batch: u64,
        ids: Vec<FeedId>,
        force: bool,
    },
    /// Find the feeds due for an automatic refresh at `now` (not fetched for `interval_secs`).
    LoadDue {
        now: i64,
        interval_secs: i64,
    },
    LoadFeedInfo(FeedId),
    /// Force (or, with `None`, stop forcing) a feed's encoding.
    SetEncodingOverride {
        feed_id: FeedId,
        label: Option<String>,
    },
    /// Find the feeds an address offers (the add dialog).
    Discover {
        request: RequestId,
        url: String,
    },
    /// Subscribe (into the folder at this path of names; empty: the top level).
    AddFeed {
        url: String,
        title: Option<String>,
        folder: Vec<String>,
    },
    DeleteFeed(FeedId),
    /// Give a feed the user's name; `None` goes back to the feed's own title.
    RenameFeed {
        feed_id: FeedId,
        title: Option<String>,
    },
    /// Move a feed into the folder at this path (created if needed); empty: the top level.
    MoveFeed {
        feed_id: FeedId,
        folder: Vec<String>,
    },
    /// Create the folder at this path (and its missing ancestors).
    CreateFolder(Vec<String>),
    /// Move a folder, with what is inside it, under the folder at this path; empty: the top level.
    MoveFolder {
        folder_id: FolderId,
        parent: Vec<String>,
    },
    RenameFolder {
        folder_id: FolderId,
        name: String,
    },
    DeleteFolder {
        folder_id: FolderId,
        /// Delete its feeds and folders too, instead of moving them up to its parent.
        with_contents: bool,
    },
    SetCollapsed {
        folder_id: FolderId,
        collapsed: bool,
    },
    /// Fetch an entry's page, extract its article, and store it with the entry.
    FetchFullText {
        entry_id: EntryId,
        url: String,
    },
    /// Fetch the new entries of a feed in full on refresh (a feed of snippets), or stop.
    SetFeedFullText {
        feed_id: FeedId,
        on: bool,
    },
    /// Give the terminal back to the shell (Ctrl-Z) until the user resumes tidings.
    Suspend,
}
