//! tidings's own model of a parsed feed and of what the store holds. The UI and the store see only these types.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// Declares a row id: a number the store hands out, typed so that one kind of id cannot stand for another
/// (`LoadArticle(feed_id)` does not compile). The store converts at its edge (`id.0`, `FeedId(row.get(0)?)`).
macro_rules! row_id {
    ($(#[$doc:meta] $name:ident),+ $(,)?) => {$(
        #[$doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl From<i64> for $name {
            fn from(id: i64) -> $name {
                $name(id)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    )+};
}

row_id! {
    /// Row id of a subscription in the store.
    FeedId,
    /// Row id of an entry in the store.
    EntryId,
    /// Row id of a folder in the store.
    FolderId,
    /// Row id of an account (a sync server) in the store.
    AccountId,
}

/// The syndication format a document was parsed as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeedKind {
    Rss0,
    Rss1,
    Rss2,
    Atom,
    Json,
}

impl FeedKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FeedKind::Rss0 => "rss0",
            FeedKind::Rss1 => "rss1",
            FeedKind::Rss2 => "rss2",
            FeedKind::Atom => "atom",
            FeedKind::Json => "json",
        }
    }
}

/// A feed document after decoding and parsing: plain-text titles, absolute links, UTC dates.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedFeed {
    pub kind: FeedKind,
    pub title: Option<String>,
    /// The site the feed belongs to (its `<link>` / alternate link).
    pub link: Option<String>,
    pub description: Option<String>,
    /// Who writes the feed (Atom's feed-level authors, RSS's `managingEditor`, `dc:creator`, `itunes:author`).
    pub authors: Vec<String>,
    pub entries: Vec<ParsedEntry>,
    /// Things that were repaired or looked wrong but did not stop the parse.
    pub warnings: Vec<String>,
    /// How often the feed asks to be fetched at most (`<ttl>`, `sy:updatePeriod`), in seconds.
    pub min_interval_secs: Option<u64>,
    /// Entries the document listed past the first [`MAX_ENTRIES_PER_REFRESH`], counted and never read: what a
    /// feed lists beyond them is not kept, so a document of millions of empty items stands in memory as no more
    /// than the entries kept.
    pub unkept: usize,
}

/// One entry of a parsed feed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParsedEntry {
    /// Identity within its feed: the GUID/id, else the link, else a hash of title and date.
    pub key: String,
    /// The entry's own title (`None` when the feed gives it none; see [`ParsedEntry::display_title`]).
    pub title: Option<String>,
    pub link: Option<String>,
    /// Every author's name (never an address), in document order.
    pub authors: Vec<String>,
    pub published: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    /// The richest body the entry has, as HTML.
    pub content_html: Option<String>,
    /// The short summary, as HTML, when the entry has one besides its content.
    pub summary_html: Option<String>,
    /// Categories and tags, plain text.
    pub categories: Vec<String>,
    /// Attached media: podcast episodes, videos, images.
    pub enclosures: Vec<Enclosure>,
    /// Where the entry's comments are.
    pub comments: Option<String>,
    /// An image that stands for the entry.
    pub thumbnail: Option<String>,
}

impl ParsedEntry {
    /// What to call the entry: its title, else the first line of its text.
    pub fn display_title(&self) -> Option<String> {
        self.title.clone().or_else(|| crate::text::first_line(self.content_html.as_deref()))
    }
}

/// A file attached to an entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Enclosure {
    pub url: String,
    pub media_type: Option<String>,
    pub length: Option<u64>,
}

impl Enclosure {
    /// Its media type as the feed gave it, or else as its address's extension says (`.mp3`: `audio/mpeg`):
    /// what `enclosure ~ audio` matches. Many podcasts leave out `type`.
    pub fn kind(&self) -> Option<&str> {
        // Blank as SQLite's trim() sees it (spaces), so that a query reads the same in SQL and in memory.
        self.media_type.as_deref().filter(|t| !t.trim_matches(' ').is_empty()).or_else(|| media_type_of(&self.url))
    }
}

/// The media type an address's extension names, for the kinds feeds attach (sound, video, documents, pictures).
pub fn media_type_of(url: &str) -> Option<&'static str> {
    // The last segment of the path: never the host (`https://cdn.example.mp3`), nor the query.
    let parsed = url::Url::parse(url).ok()?;
    let name = parsed.path_segments()?.next_back()?;
    let (_, extension) = name.rsplit_once('.')?;
    Some(match extension.to_ascii_lowercase().as_str() {
        "mp3" => "audio/mpeg",
        "m4a" | "m4b" => "audio/mp4",
        "aac" => "audio/aac",
        "ogg" | "oga" => "audio/ogg",
        "opus" => "audio/opus",
        "flac" => "audio/flac",
        "wav" => "audio/wav",
        "mp4" | "m4v" => "video/mp4",
        "webm" => "video/webm",
        "mkv" => "video/x-matroska",
        "mov" => "video/quicktime",
        "pdf" => "application/pdf",
        "epub" => "application/epub+zip",
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

/// A subscription to add: what OPML import and `tidings add` produce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewFeed {
    pub url: String,
    /// The feed's own title, when it is known before the first fetch (discovery read it).
    pub title: Option<String>,
    /// The name the user gave the feed (an OPML file's `text`): it stays the feed's name, whatever the feed
    /// calls itself, until the user renames it.
    pub name: Option<String>,
    pub site_url: Option<String>,
    /// The folder's path of names from the top (`["Tech", "Rust"]` for nested outlines); empty for the top.
    pub folder: Vec<String>,
}

/// Why a feed's refresh failed, as a stable kind: stored with the feed, shown in brackets, printed by
/// `tidings refresh`. The message beside it says the details.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The address is not a usable URL.
    Url,
    Dns,
    Connect,
    Timeout,
    Tls,
    /// The server answered with an error status.
    Http,
    TooLarge,
    Redirect,
    /// The download broke off.
    Body,
    Empty,
    Decode,
    /// An HTML page or some other document that is not a feed.
    NotAFeed,
    Parse,
    /// The database could not save the result.
    Store,
    /// tidings itself failed (a panic while reading the feed, a refresh task that died).
    Internal,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 15] = [
        ErrorKind::Url,
        ErrorKind::Dns,
        ErrorKind::Connect,
        ErrorKind::Timeout,
        ErrorKind::Tls,
        ErrorKind::Http,
        ErrorKind::TooLarge,
        ErrorKind::Redirect,
        ErrorKind::Body,
        ErrorKind::Empty,
        ErrorKind::Decode,
        ErrorKind::NotAFeed,
        ErrorKind::Parse,
        ErrorKind::Store,
        ErrorKind::Internal,
    ];

    /// The name stored in the database and printed by the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Url => "url",
            ErrorKind::Dns => "dns",
            ErrorKind::Connect => "connect",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Tls => "tls",
            ErrorKind::Http => "http",
            ErrorKind::TooLarge => "too-large",
            ErrorKind::Redirect => "redirect",
            ErrorKind::Body => "body",
            ErrorKind::Empty => "empty",
            ErrorKind::Decode => "decode",
            ErrorKind::NotAFeed => "not-a-feed",
            ErrorKind::Parse => "parse",
            ErrorKind::Store => "store",
            ErrorKind::Internal => "internal",
        }
    }

    /// The kind a stored name stands for; `None` for a name this build does not know.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A folder of the feed list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolderRow {
    pub id: FolderId,
    /// Its own name, not a path ("Rust", not "Tech/Rust").
    pub name: String,
    /// The folder it is in; `None` at the top level.
    pub parent: Option<FolderId>,
    pub collapsed: bool,
}

/// A subscription as the feed list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedRow {
    pub id: FeedId,
    pub url: String,
    /// What to call it: the user's name for it, else the feed's title, else its URL.
    pub title: String,
    pub site_url: Option<String>,
    pub folder_id: Option<FolderId>,
    pub folder: Option<String>,
    pub unread: i64,
    pub last_status: Option<i64>,
    pub last_error: Option<String>,
    pub error_kind: Option<ErrorKind>,
    /// When it was last fetched (seconds since the epoch).
    pub last_fetched_at: Option<i64>,
    /// The last decoding overrode an encoding the feed declared (see [`crate::decode::Decision::overridden`]).
    pub encoding_overridden: bool,
    /// The encoding the user forced for this feed, if any.
    pub encoding_forced: Option<String>,
    /// Not to be fetched automatically before this time (seconds since the epoch): backoff, or the server's
    /// Retry-After.
    pub retry_at: Option<i64>,
    /// The server said the feed is gone for good; only an explicit refresh tries it again.
    pub dead: bool,
    /// New entries are fetched in full (the page behind their link) on refresh: a feed of snippets.
    pub full_text: bool,
    /// The account whose server holds it (and fetches it), when it is not a local subscription.
    pub account: Option<AccountId>,
    /// The address whose networks what the feed's entries point at (pictures, pages, files) may reach: the
    /// feed's own, or for a feed of an account its server's — there the feed's address is only what the server
    /// says, and a server saying `http://169.254.169.254/` must not open the local network to its entries.
    pub content_of: String,
    /// Left out of the feed list (newsboat's `!`); its entries are still in the views.
    pub hidden: bool,
    /// The user paused it: no refresh fetches it until it is resumed.
    pub paused: bool,
    /// The new address its permanent redirects propose (see `health::HealthState::Moved`), not yet accepted.
    pub moved_to: Option<String>,
}

impl FeedRow {
    /// Whether it needs a look (see the health view): its last refresh failed, it is gone, a move waits to be
    /// accepted, or it is paused. The feed list shows such a feed whatever `hide_read_feeds` says.
    pub fn in_trouble(&self) -> bool {
        self.last_error.is_some() || self.dead || self.moved_to.is_some() || self.paused
    }
}

/// An entry as the entry list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryRow {
    pub id: EntryId,
    pub feed_id: FeedId,
    pub title: Option<String>,
    /// The entry's own page.
    pub link: Option<String>,
    /// Published, else updated, else first seen (seconds since the epoch, UTC).
    pub date: i64,
    pub read: bool,
    pub starred: bool,
}

/// Everything the article pane shows about one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryDetail {
    pub id: EntryId,
    pub feed_id: FeedId,
    pub feed_title: String,
    pub title: Option<String>,
    pub link: Option<String>,
    pub author: Option<String>,
    pub published_at: Option<i64>,
    pub updated_at: Option<i64>,
    pub content_html: Option<String>,
    pub summary_html: Option<String>,
    pub read: bool,
    pub starred: bool,
    pub categories: Vec<String>,
    pub enclosures: Vec<Enclosure>,
    pub comments: Option<String>,
    pub thumbnail: Option<String>,
    /// The full article extracted from the entry's page, when it was fetched.
    pub full_html: Option<String>,
    /// Why the page gave no article, when fetching it failed.
    pub full_error: Option<String>,
}

/// Everything the feed-info view shows about one subscription.
#[derive(Clone, Debug, PartialEq)]
pub struct FeedInfo {
    pub row: FeedRow,
    /// What the feed calls itself (the row's title is the name the user gave it, when there is one).
    pub own_title: Option<String>,
    pub entries: i64,
    pub failures: i64,
    pub last_success_at: Option<i64>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub added_at: i64,
    /// The last decoding decision, when the feed was ever read.
    pub decision: Option<crate::decode::Decision>,
    /// What the last successful read had to repair or assume.
    pub warnings: Vec<String>,
    /// Entries known again by their link and title under a new id (a feed that changes its ids on every fetch).
    pub id_rotations: i64,
    /// Its settings in the config (`[feeds."URL"]`, their source of truth), as `key = value` lines.
    pub settings: Vec<String>,
    /// Its last attempts (at most 50), newest first.
    pub attempts: Vec<FetchAttempt>,
}

/// One attempt to fetch a feed, as its history keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FetchAttempt {
    pub at: i64,
    /// The HTTP status, when the server answered.
    pub status: Option<i64>,
    /// `fetched`, `not-modified`, `unchanged` (the whole document again, the same as the last one read), an
    /// error's kind (`dns`, `http`, `timeout`…), or `outage` (failed while the whole network was down, counted
    /// against nothing).
    pub outcome: String,
    pub bytes: Option<i64>,
    pub duration_ms: i64,
}

/// Most entries one fetch of a feed stores, so a hostile feed cannot fill the disk; the rest of a longer feed is
/// dropped, and the feed info and the refresh's summary say so.
pub const MAX_ENTRIES_PER_REFRESH: usize = 5_000;

/// Most enclosures kept per entry: a podcast episode has one, a Media RSS gallery a few dozen. A feed (or a
/// sync server) listing hundreds of thousands would otherwise cost minutes of comparisons, and megabytes an entry
/// to store, and as many downloads queued by one key.
pub const MAX_ENCLOSURES: usize = 64;

impl ParsedEntry {
    /// The entry with its addresses fit to print ([`crate::sanitize::address`]) and at most [`MAX_ENCLOSURES`]
    /// enclosures: for what a sync server sends, which no parser of tidings's read.
    pub fn with_clean_addresses(mut self) -> ParsedEntry {
        let clean = |url: &mut String| {
            if let std::borrow::Cow::Owned(clean) = crate::sanitize::address(url) {
                *url = clean;
            }
        };
        for url in [&mut self.link, &mut self.comments, &mut self.thumbnail].into_iter().flatten() {
            clean(url);
        }
        self.enclosures.truncate(MAX_ENCLOSURES);
        for enclosure in &mut self.enclosures {
            clean(&mut enclosure.url);
        }
        self
    }
}

/// Progress of one feed's refresh, as the refresher reports it to the reader and to `tidings refresh`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefreshEvent {
    Started {
        feed_id: FeedId,
    },
    /// New content was stored.
    Done {
        feed_id: FeedId,
        new: usize,
        updated: usize,
        unread: i64,
        title: String,
        moved_to: Option<String>,
        /// The feed listed more entries than a refresh keeps: how many it listed (the first
        /// `MAX_ENTRIES_PER_REFRESH` were kept, the rest dropped).
        cut_from: Option<usize>,
    },
    /// Nothing changed: the server said so (304), or sent the document last read again.
    NotModified {
        feed_id: FeedId,
        /// Its name as the refresh began (nothing it brought could change it).
        title: String,
        moved_to: Option<String>,
    },
    /// The refresh failed; stored entries are untouched.
    Failed {
        feed_id: FeedId,
        title: String,
        url: String,
        kind: ErrorKind,
        message: String,
        /// Not before this time (seconds since the epoch) will it be tried again automatically.
        retry_at: Option<i64>,
        /// Gone for good (410): no more automatic refreshes.
        dead: bool,
    },
    /// Left alone: gone, or asked to wait (backoff, Retry-After).
    Skipped {
        feed_id: FeedId,
        title: String,
        reason: Skip,
    },
}

/// Why an unforced refresh left a feed alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// The server said it is gone for good (HTTP 410); it is tried again once a day.
    Gone,
    /// The user paused it: no refresh fetches it until it is resumed.
    Paused,
    /// It failed lately, or its server asked to wait (Retry-After): not before this time (seconds since the epoch).
    Waiting { until: i64 },
}

impl RefreshEvent {
    pub fn feed_id(&self) -> FeedId {
        match self {
            RefreshEvent::Started { feed_id }
            | RefreshEvent::Done { feed_id, .. }
            | RefreshEvent::NotModified { feed_id, .. }
            | RefreshEvent::Failed { feed_id, .. }
            | RefreshEvent::Skipped { feed_id, .. } => *feed_id,
        }
    }

    /// True for the event that ends a feed's refresh.
    pub fn is_final(&self) -> bool {
        !matches!(self, RefreshEvent::Started { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_entry_gets_its_addresses_fit_to_print_and_its_enclosures_bounded() {
        let enclosure =
            |i: usize| Enclosure { url: format!("http://e.com/{i}\u{202e}.mp3"), media_type: None, length: None };
        let entry = ParsedEntry {
            key: "k".into(),
            link: Some("http://e.com/a\u{9b}2J".into()),
            comments: Some("http://e.com/c".into()),
            enclosures: (0..100).map(enclosure).collect(),
            title: None,
            authors: vec![],
            published: None,
            updated: None,
            content_html: None,
            summary_html: None,
            categories: vec![],
            thumbnail: None,
        }
        .with_clean_addresses();
        assert_eq!(entry.link.as_deref(), Some("http://e.com/a%C2%9B2J"));
        assert_eq!(entry.comments.as_deref(), Some("http://e.com/c"));
        assert_eq!(entry.enclosures.len(), MAX_ENCLOSURES);
        assert_eq!(entry.enclosures[1].url, "http://e.com/1%E2%80%AE.mp3");
    }

    #[test]
    fn error_kinds_round_trip_through_their_stored_names() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(kind.as_str()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        assert_eq!(ErrorKind::from_name("martian"), None);
    }

    #[test]
    fn an_enclosure_without_a_type_goes_by_its_addresss_extension() {
        let of = |url: &str, media_type: Option<&str>| {
            Enclosure { url: url.into(), media_type: media_type.map(str::to_string), length: None }
                .kind()
                .map(str::to_string)
        };
        assert_eq!(of("https://cdn.example/atp/309.mp3", None).as_deref(), Some("audio/mpeg"));
        assert_eq!(of("https://cdn.example/ep.M4A?dl=1#t=3", Some(" ")).as_deref(), Some("audio/mp4"));
        assert_eq!(
            of("https://cdn.example/ep.mp3", Some("audio/x-mpeg")).as_deref(),
            Some("audio/x-mpeg"),
            "the feed's word first"
        );
        assert_eq!(of("https://cdn.example/episode", None), None);
        assert_eq!(of("https://cdn.example.mp3/", None), None, "a host is no file name");
        assert_eq!(of("https://cdn.example.mp3", None), None);
        assert_eq!(of("https://cdn.example/get?file=a.mp3", None), None, "nor is a query");
    }
}

/// A feed that discovery found and verified (fetched and parsed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// Its address (after redirects).
    pub url: String,
    pub title: Option<String>,
    pub kind: FeedKind,
    pub found_by: crate::feedlinks::FoundBy,
}

/// What discovery found at an address, and what it tried.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    /// The address as asked for, with a scheme added when it had none.
    pub url: String,
    pub feeds: Vec<Found>,
    /// What was looked at, for a person reading why nothing was found.
    pub tried: Vec<String>,
    /// Why the page itself could not be read, if it could not.
    pub error: Option<String>,
}

/// An entry as a list knows it before its row is read: enough to count, filter and walk unread entries in
/// lists of any size (a 400,000-entry view holds these, and reads titles only for the rows on screen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryRef {
    pub id: EntryId,
    pub feed_id: FeedId,
    pub read: bool,
    pub starred: bool,
}

/// Where a list's entries come from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ListSource {
    Feed(FeedId),
    /// Every feed of a folder and of the folders inside it.
    Folder(FolderId),
    /// Every entry of every feed.
    All,
    /// Every unread entry.
    Unread,
    Starred,
    /// Entries matching a search (see `search`), within a feed or folder when `within` is set.
    Search {
        query: String,
        within: Option<Box<ListSource>>,
    },
    /// Entries matching a query of the query language (see `query`): a saved view, `tidings list --query`, the
    /// search prompt given a query; within a feed, folder or view when `within` is set.
    Query {
        query: String,
        within: Option<Box<ListSource>>,
    },
    /// The entries kill rules caught (hidden everywhere else), within a list when `within` is set.
    Ignored {
        within: Option<Box<ListSource>>,
    },
}

/// The order of a list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Sort {
    #[default]
    Newest,
    Oldest,
    /// By feed title, newest first within a feed.
    ByFeed,
    /// By entry title, A to Z.
    ByTitle,
}

impl Sort {
    pub const ALL: [Sort; 4] = [Sort::Newest, Sort::Oldest, Sort::ByFeed, Sort::ByTitle];

    pub fn name(self) -> &'static str {
        match self {
            Sort::Newest => "newest",
            Sort::Oldest => "oldest",
            Sort::ByFeed => "feed",
            Sort::ByTitle => "title",
        }
    }

    pub fn from_name(name: &str) -> Option<Sort> {
        Sort::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The next order in the cycle.
    pub fn next(self) -> Sort {
        let i = Sort::ALL.iter().position(|s| *s == self).unwrap_or(0);
        Sort::ALL[(i + 1) % Sort::ALL.len()]
    }
}

/// A list to read: where its entries come from, their order, and whether read ones are left out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ListQuery {
    pub source: ListSource,
    pub sort: Sort,
    pub unread_only: bool,
}

/// The counts the smart views show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewCounts {
    pub all: i64,
    pub unread: i64,
    pub starred: i64,
}

/// A change a person makes to what is stored — from a key, a dialog or the command line. Every one goes through
/// the store's one write path (`store::apply`), which performs it in one transaction, records it in the change
/// log when a server must hear of it, and is what the reader's write barrier counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserWrite {
    /// Mark entries read or unread (opening one, `m`, undo).
    SetRead {
        ids: Vec<EntryId>,
        read: bool,
    },
    SetStarred {
        ids: Vec<EntryId>,
        starred: bool,
    },
    /// Mark every unread entry of a list read; the answer lists the entries it changed (for undo).
    MarkListRead {
        source: ListSource,
    },
    /// Remember a list's order and unread-only setting.
    SetListOrder {
        source: ListSource,
        sort: Sort,
        unread_only: bool,
    },
    /// Subscribe; the answer says the feed's id and whether it is new.
    AddFeed(NewFeed),
    /// Subscribe to many (an OPML file), creating `folders` too (its empty folders); those already subscribed
    /// are skipped.
    Import {
        feeds: Vec<NewFeed>,
        folders: Vec<Vec<String>>,
    },
    /// Unsubscribe; the feed's entries go with it.
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
    /// Delete a folder; its feeds and folders too with `with_contents`, else they move up to its parent.
    DeleteFolder {
        folder_id: FolderId,
        with_contents: bool,
    },
    /// Fold or unfold a folder in the feed list.
    SetCollapsed {
        folder_id: FolderId,
        collapsed: bool,
    },
    /// Force (or, with `None`, stop forcing) a feed's encoding.
    SetEncodingOverride {
        feed_id: FeedId,
        label: Option<String>,
    },
    /// Fetch the new entries of a feed in full on refresh (a feed of snippets), or stop.
    SetFeedFullText {
        feed_id: FeedId,
        on: bool,
    },
    /// Leave a feed out of the feed list (its entries stay in the views), or show it again.
    SetFeedHidden {
        feed_id: FeedId,
        hidden: bool,
    },
    /// A feed's tags, all of them (the feed info's `tags = "a, b"`): `feedtag` in queries.
    SetFeedTags {
        feed_id: FeedId,
        tags: Vec<String>,
    },
    /// Pause feeds (no refresh fetches them, forced or not) or resume them: the health view's `p`.
    SetFeedsPaused {
        feed_ids: Vec<FeedId>,
        paused: bool,
    },
    /// Accept the move a feed's permanent redirects proposed: its address changes, its entries stay.
    AcceptMove(FeedId),
    /// Remember one of the reader's settings across restarts (`hide_read_feeds`, the last search); `None`
    /// forgets it.
    SetPreference {
        name: String,
        value: Option<String>,
    },
    /// Save entries for later on their account's server (a label in the Google Reader API, Miniflux's save):
    /// recorded in the change log and sent by the next sync. Entries of local feeds or of Fever accounts are not
    /// for this (they go to the `save_command`).
    SaveOnServer {
        ids: Vec<EntryId>,
    },
    /// Subscriptions and entries carried over from another reader (newsboat), with their folders, tags, read
    /// state and stars. What is already here is left as it is, so carrying the same things over twice changes
    /// nothing the second time. `gone` are entries the other reader deleted: (feed URL, key) that a refresh must
    /// not bring back.
    CarryOver {
        feeds: Vec<CarriedFeed>,
        entries: Vec<CarriedEntry>,
        gone: Vec<(String, String)>,
    },
}

/// A subscription carried over from another reader, with what that reader knew of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CarriedFeed {
    pub feed: NewFeed,
    /// Left out of the feed list.
    pub hidden: bool,
    /// Tags besides the one that became its folder.
    pub tags: Vec<String>,
}

/// An entry carried over from another reader: the entry, its state there, and the other keys a refresh may give
/// it (when the other reader's identity for it is ambiguous).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CarriedEntry {
    pub feed_url: String,
    pub entry: ParsedEntry,
    pub aliases: Vec<String>,
    pub read: bool,
    pub starred: bool,
}

/// What carrying subscriptions and entries over did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CarryOutcome {
    pub feeds_added: Vec<String>,
    /// Subscribed before: left as they were (their entries are still carried over).
    pub feeds_present: Vec<String>,
    pub entries_added: usize,
    /// Stored before (the same key): left as they were.
    pub entries_present: usize,
    /// Entries whose feed is not subscribed here (an account's, or refused).
    pub entries_orphaned: usize,
    /// Of the entries added, how many were read and how many starred.
    pub read: usize,
    pub starred: usize,
    pub hidden: usize,
    pub tags: usize,
    /// Deleted entries remembered so that a refresh does not bring them back.
    pub gone: usize,
}

impl UserWrite {
    /// The change itself, for a list of changes that were not saved ("starred 1 entry").
    pub fn what(&self) -> String {
        fn entries(n: usize) -> String {
            if n == 1 { "1 entry".to_string() } else { format!("{n} entries") }
        }
        match self {
            UserWrite::SetRead { ids, read: true } => format!("marked {} read", entries(ids.len())),
            UserWrite::SetRead { ids, read: false } => format!("marked {} unread", entries(ids.len())),
            UserWrite::SetStarred { ids, starred: true } => format!("starred {}", entries(ids.len())),
            UserWrite::SetStarred { ids, starred: false } => format!("unstarred {}", entries(ids.len())),
            UserWrite::MarkListRead { .. } => "marked a list read".to_string(),
            UserWrite::SetListOrder { .. } => "a list's order".to_string(),
            UserWrite::AddFeed(feed) => format!("subscribed to {}", feed.url),
            UserWrite::Import { feeds, .. } => format!("imported {} subscriptions", feeds.len()),
            UserWrite::DeleteFeed(_) => "unsubscribed from a feed".to_string(),
            UserWrite::RenameFeed { .. } => "renamed a feed".to_string(),
            UserWrite::MoveFeed { .. } => "moved a feed".to_string(),
            UserWrite::CreateFolder(path) => format!("created the folder {}", path.join("/")),
            UserWrite::MoveFolder { .. } => "moved a folder".to_string(),
            UserWrite::RenameFolder { name, .. } => format!("renamed a folder to {name}"),
            UserWrite::DeleteFolder { .. } => "deleted a folder".to_string(),
            UserWrite::SetCollapsed { .. } => "folded or unfolded a folder".to_string(),
            UserWrite::SetEncodingOverride { .. } => "forced a feed's encoding".to_string(),
            UserWrite::SetFeedFullText { .. } => "a feed's full-text setting".to_string(),
            UserWrite::SetFeedHidden { hidden: true, .. } => "hid a feed".to_string(),
            UserWrite::SetFeedHidden { hidden: false, .. } => "showed a hidden feed".to_string(),
            UserWrite::SetFeedTags { .. } => "a feed's tags".to_string(),
            UserWrite::SetFeedsPaused { feed_ids, paused } => {
                let feeds =
                    if feed_ids.len() == 1 { "1 feed".to_string() } else { format!("{} feeds", feed_ids.len()) };
                format!("{} {feeds}", if *paused { "paused" } else { "resumed" })
            }
            UserWrite::AcceptMove(_) => "accepted a feed's new address".to_string(),
            UserWrite::SetPreference { name, .. } => format!("the setting {name}"),
            UserWrite::SaveOnServer { ids } => format!("saved {} for later on the server", entries(ids.len())),
            UserWrite::CarryOver { feeds, entries: carried, .. } => {
                format!("carried over {} feeds and {}", feeds.len(), entries(carried.len()))
            }
        }
    }

    /// What the change is, for an error message ("cannot save the star: …").
    pub fn describe(&self) -> &'static str {
        match self {
            UserWrite::SetRead { read: true, .. } => "cannot save the read state",
            UserWrite::SetRead { read: false, .. } => "cannot mark unread",
            UserWrite::SetStarred { .. } => "cannot save the star",
            UserWrite::MarkListRead { .. } => "cannot mark entries read",
            UserWrite::SetListOrder { .. } => "cannot remember the list's order",
            UserWrite::AddFeed(_) => "cannot add the feed",
            UserWrite::Import { .. } => "cannot import the subscriptions",
            UserWrite::DeleteFeed(_) => "cannot delete the feed",
            UserWrite::RenameFeed { .. } => "cannot rename the feed",
            UserWrite::MoveFeed { .. } => "cannot move the feed",
            UserWrite::CreateFolder(_) => "cannot create the folder",
            UserWrite::MoveFolder { .. } => "cannot move the folder",
            UserWrite::RenameFolder { .. } => "cannot rename the folder",
            UserWrite::DeleteFolder { .. } => "cannot delete the folder",
            UserWrite::SetCollapsed { .. } => "cannot save the folder's state",
            UserWrite::SetEncodingOverride { .. } => "cannot save the forced encoding",
            UserWrite::SetFeedFullText { .. } => "cannot save the feed's full-text setting",
            UserWrite::SetFeedHidden { .. } => "cannot hide or show the feed",
            UserWrite::SetFeedTags { .. } => "cannot save the feed's tags",
            UserWrite::SetFeedsPaused { .. } => "cannot pause or resume the feeds",
            UserWrite::AcceptMove(_) => "cannot accept the feed's new address",
            UserWrite::SetPreference { .. } => "cannot remember the setting",
            UserWrite::SaveOnServer { .. } => "cannot keep the entries to save on the server",
            UserWrite::CarryOver { .. } => "cannot carry the subscriptions and entries over",
        }
    }
}

/// What the store did with a [`UserWrite`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    Done,
    /// Flags were set; `missing` of the entries named are no longer stored (purged meanwhile).
    Flags {
        missing: usize,
    },
    /// The entries a [`UserWrite::MarkListRead`] changed.
    Marked(Vec<EntryId>),
    /// The feed a [`UserWrite::AddFeed`] names, and whether it is new.
    Subscribed {
        feed_id: FeedId,
        added: bool,
    },
    /// What a [`UserWrite::Import`] added.
    Imported(ImportOutcome),
    /// What a [`UserWrite::CarryOver`] did.
    CarriedOver(CarryOutcome),
}

/// What an import of subscriptions added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportOutcome {
    pub added: Vec<String>,
    /// Already subscribed before this import.
    pub duplicates: Vec<String>,
}

/// Where a download is (the download queue: `tidings_engine::downloads`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DownloadState {
    Queued,
    Downloading,
    Paused,
    Done,
    Failed,
}

impl DownloadState {
    pub fn as_str(self) -> &'static str {
        match self {
            DownloadState::Queued => "queued",
            DownloadState::Downloading => "downloading",
            DownloadState::Paused => "paused",
            DownloadState::Done => "done",
            DownloadState::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<DownloadState> {
        Some(match s {
            "queued" => DownloadState::Queued,
            "downloading" => DownloadState::Downloading,
            "paused" => DownloadState::Paused,
            "done" => DownloadState::Done,
            "failed" => DownloadState::Failed,
            _ => return None,
        })
    }
}

/// One download of the queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Download {
    pub id: i64,
    pub entry_id: Option<i64>,
    pub feed_id: Option<i64>,
    pub url: String,
    pub media_type: Option<String>,
    /// The finished file; `path` + `.part` while it downloads.
    pub path: String,
    pub state: DownloadState,
    /// Why it failed or was paused.
    pub reason: Option<String>,
    pub bytes_done: u64,
    pub bytes_total: Option<u64>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub title: String,
    pub feed_title: String,
    pub created_at: i64,
    pub finished_at: Option<i64>,
    /// The feed's address, while the feed is there.
    pub feed_url: Option<String>,
    /// Whose networks the download may reach ([`FeedRow::content_of`]): the feed's address, or its account
    /// server's.
    #[serde(skip)]
    pub content_of: Option<String>,
}
