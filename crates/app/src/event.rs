//! The reader's protocol: every [`Event`] that can reach the state machine, and every [`Effect`] it can ask
//! the runtime to perform. Results of effects come back as events; nothing else crosses the line.

use super::ListKey;
use crate::model::{
    Applied, Discovery, EntryDetail, EntryId, EntryRef, EntryRow, FeedId, FeedInfo, FeedRow, FolderRow, ListSource,
    RefreshEvent, Sort, UserWrite, ViewCounts,
};
use crate::render;
use crossterm::event::{KeyEvent, MouseEvent};

/// What is being opened outside tidings: a page goes to the browser, media (podcasts, videos) to the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenKind {
    Page,
    Media,
}

/// Where exported entries go (see [`Effect::Export`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportTo {
    /// A Markdown file each (front matter, links as references) under the folder `dir` (`~` is the home
    /// folder), at the path `template` makes of each entry (`{feed}/{date}-{title}.md`).
    Files { dir: String, template: String },
    /// One text of them all on the standard input of a command (`words`: the program and its arguments, never a
    /// shell): their Markdown, or with `addresses` their addresses, one a line. The text comes back as
    /// [`Event::ExportedText`] to be piped.
    Pipe { words: Vec<String>, in_terminal: bool, addresses: bool },
    /// Sorted by where their save goes (their account's server, or the `save_command` with their addresses and
    /// titles): they come back as [`Event::ToSave`].
    SaveForLater,
}

/// Identifies one discovery the add dialog started, so that its answer finds its way back.
pub type RequestId = u64;

/// The number of one of the user's writes, given by [`crate::update`] as the write leaves it: writes are numbered
/// in the order they are asked for, the store applies them in that order, and a read says which write it saw —
/// so "was this list read after my change?" is one comparison, across threads and processes alike.
/// `WriteId::NONE` comes before every write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WriteId(pub u64);

impl WriteId {
    pub const NONE: WriteId = WriteId(0);

    /// The write after this one.
    pub fn next(self) -> WriteId {
        WriteId(self.0 + 1)
    }
}

/// Why the store could not apply a user's write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteFailure {
    /// For people: what went wrong and what to do.
    pub message: String,
    /// The same write may work later (the database was busy, the disk full, a file not writable for now):
    /// it is kept and tried again, rather than dropped.
    pub retry: bool,
}

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
    /// The feed list, read after the user's writes up to `seen` were applied.
    FeedsLoaded {
        feeds: Vec<FeedRow>,
        folders: Vec<FolderRow>,
        views: ViewCounts,
        seen: WriteId,
    },
    /// A discovery the add dialog started finished.
    Discovered {
        request: RequestId,
        discovery: Box<Discovery>,
    },
    /// The store performed the user's write `id` (or could not: why, and whether it may work later).
    Written {
        id: WriteId,
        outcome: Result<Applied, WriteFailure>,
    },
    /// The processes holding the database (for people: "sqlite3 (pid 4242)"), asked for while quitting waits
    /// for the user's changes.
    DatabaseHolders(Vec<String>),
    /// A list's entries: all of them as refs, and the rows around `keep` (or the top).
    EntriesLoaded {
        list: ListKey,
        refs: Vec<EntryRef>,
        rows: Vec<EntryRow>,
        /// The order they are in, and whether only unread ones are listed.
        order: (Sort, bool),
        keep: Option<EntryId>,
        /// The last of the user's writes applied before the list was read.
        seen: WriteId,
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
    /// A refresh ended where not one feed answered, on several hosts: the network is down, and the feeds'
    /// failures were forgiven (none counts against its feed).
    NetworkDown,
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
    /// A refresh brought entries whose enclosures are downloaded as they come (`auto_download`).
    NewEpisodes(Vec<EntryId>),
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
    /// Every local feed's health facts, and how many feeds of accounts were left out.
    HealthLoaded {
        facts: Vec<tidings_core::health::HealthFacts>,
        left_out: usize,
    },
    /// Refresh `batch` of `ids` was made by the daemon, which the reader asked: what it brought in all (its
    /// entries reach the lists as the daemon's other writes do, through [`Event::ChangedOutside`]).
    RefreshedByDaemon {
        batch: u64,
        ids: Vec<FeedId>,
        new: usize,
        feeds_with_new: usize,
        failed: usize,
    },
    FeedInfoLoaded {
        feed_id: FeedId,
        info: Option<Box<FeedInfo>>,
    },
    /// A sync of an account ended: what it did (a line for people), or why it could not; `changed` when it
    /// brought or changed anything (the lists are read again).
    Synced {
        account: String,
        said: Result<String, String>,
        changed: bool,
    },
    /// The saved views' unread counts (by their place among the views), or why one could not be counted.
    ViewsCounted(Vec<(usize, Result<i64, String>)>),
    /// A feed's setting was saved in the config and taken into use (or why not).
    FeedSettingSaved {
        feed_id: FeedId,
        setting: String,
        outcome: Result<(), String>,
    },
    /// A view was saved in the config (or why not).
    ViewSaved {
        name: String,
        query: String,
        outcome: Result<(), String>,
    },
    /// A picture was fetched and decoded (its size in pixels), or why it is not shown.
    PictureLoaded {
        url: String,
        result: Result<(u32, u32), String>,
    },
    /// A picture was prepared for the terminal at `size` (columns, rows), or could not be.
    PicturePrepared {
        url: String,
        size: (u16, u16),
        result: Result<(), String>,
    },
    /// The terminal lost the pictures it was given (after Ctrl-Z and `fg`): prepare them again.
    PicturesReset,
    /// The download queue, as the store has it.
    DownloadsLoaded(Vec<crate::model::Download>),
    /// Enclosures were queued: how many, how many were already, and those refused with why.
    DownloadsQueued {
        added: usize,
        already: usize,
        refused: Vec<String>,
    },
    /// A download got this far, at `at_ms` (milliseconds on the runtime's clock, for its rate).
    DownloadProgress {
        id: i64,
        done: u64,
        total: Option<u64>,
        at_ms: u64,
    },
    /// A download ended: done, failed or paused, and why.
    DownloadEnded {
        id: i64,
        state: crate::model::DownloadState,
        reason: Option<String>,
    },
    /// The entries of `list` a `:mark` query matches, or why the query means nothing.
    Matched {
        list: ListKey,
        query: String,
        found: Result<Vec<EntryId>, String>,
    },
    /// The text of entries to be piped ([`ExportTo::Pipe`]), ready.
    ExportedText {
        words: Vec<String>,
        in_terminal: bool,
        text: String,
    },
    /// The entries to save for later ([`ExportTo::SaveForLater`]), sorted: `server` are of accounts whose
    /// server saves; `command` the addresses and titles of the others, for the `save_command`.
    ToSave {
        server: Vec<EntryId>,
        command: Vec<(String, String)>,
    },
    /// Something to tell the user (an import report, …).
    Notice(String),
    /// Something went wrong outside a feed (the database, …).
    Error(String),
}

impl Effect {
    /// A write of the user's, numbered by [`crate::update`] as it leaves.
    pub fn write(write: UserWrite) -> Effect {
        Effect::Write { id: WriteId::NONE, write }
    }
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
    /// A change the user made, for the store's one write path; `id` is its number (see [`WriteId`]), which the
    /// runtime's reads wait for and report, and [`Event::Written`] answers.
    Write {
        id: WriteId,
        write: UserWrite,
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
    /// Read every local feed's health facts (the health view).
    LoadHealth,
    /// Queue every enclosure of these entries for download, and run the queue.
    QueueDownloads(Vec<EntryId>),
    /// Read the download queue (the downloads view, the marks of entries on disk).
    LoadDownloads,
    /// Pause, resume or delete one download.
    ControlDownload {
        id: i64,
        op: crate::downloads::DownloadOp,
    },
    /// Find the feeds an address offers (the add dialog).
    Discover {
        request: RequestId,
        url: String,
    },
    /// Sync these accounts (by name) both ways with their servers.
    Sync(Vec<String>),
    /// Fetch an entry's page, extract its article, and store it with the entry.
    FetchFullText {
        entry_id: EntryId,
        url: String,
    },
    /// Give the terminal back to the shell (Ctrl-Z) until the user resumes tidings.
    Suspend,
    /// Run a command (`words`: the program and its arguments, never a shell) with `input` on its standard
    /// input; `in_terminal`: it gets the terminal until it exits (a pager).
    Pipe {
        words: Vec<String>,
        input: String,
        in_terminal: bool,
    },
    /// Write `text` to the file at `path` (`~` is the home folder); an existing file only with `overwrite`.
    Save {
        path: String,
        text: String,
        overwrite: bool,
    },
    /// Put `text` on the clipboard (the `copy_command`, else the terminal's, OSC 52).
    Copy(String),
    /// Run the `save_command` with each entry's address and title, one after the other.
    SaveForLater {
        entries: Vec<(String, String)>,
    },
    /// Run the `bookmark_command` with the entry's address, title, description and feed's title (newsboat's
    /// four values of `bookmark-cmd`, in its order).
    Bookmark {
        url: String,
        title: String,
        description: String,
        feed: String,
    },
    /// Set (`key = value`) or remove (`key`) one of a feed's settings in its `[feeds."URL"]` table of the config
    /// file (in place, comments kept), and take it into use.
    SetFeedSetting {
        feed_id: FeedId,
        url: String,
        setting: String,
    },
    /// Append a saved view to the config file (in place, comments kept).
    SaveView {
        name: String,
        query: String,
    },
    /// Count the unread entries of these saved views (place among the views, query), off the loop's thread.
    CountViews(Vec<(usize, String)>),
    /// Find which other processes hold the database (quitting waits for it).
    FindDatabaseHolders,
    /// Find which entries of the list a query matches (`:mark QUERY`); the answer is [`Event::Matched`].
    MatchEntries {
        list: ListKey,
        source: ListSource,
        query: String,
    },
    /// Write these entries as Markdown (see [`ExportTo`]); what was written, or why not, comes back as a notice
    /// or an error.
    Export {
        ids: Vec<EntryId>,
        to: ExportTo,
    },
    /// Fetch a picture of the article (through the shared client and its courtesy, or the picture cache) and
    /// decode it; the answer is [`Event::PictureLoaded`]. `feed_url`: the address of the article's feed (its
    /// pictures come from the local network only when it is there too); `None` when not known.
    LoadPicture {
        url: String,
        feed_url: Option<String>,
    },
    /// Prepare a decoded picture for the terminal at `cols` × `rows` cells; the answer is
    /// [`Event::PicturePrepared`].
    PreparePicture {
        url: String,
        cols: u16,
        rows: u16,
    },
}
