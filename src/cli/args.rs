//! The command line's arguments (clap's definitions: `--help` is made from them) and the one rewrite made before
//! they are read.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "tidings",
    version,
    about = "A terminal feed reader",
    long_about = "A terminal feed reader. Without a command, tidings opens the reader: three panes (feeds, \
                  entries, the article) driven from the keyboard, over a local SQLite cache that a background \
                  refresh keeps fresh. The commands do the same work without a terminal, for scripts.",
    propagate_version = true
)]
pub struct Cli {
    /// tidings's config file (default: config.toml in the platform's config directory), given before the
    /// command; `import newsboat` writes its settings there, making the file when it does not exist. After
    /// `import newsboat`, `--config FILE` names newsboat's config instead (`--newsboat-config`).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Database file (default: tidings.db in the platform's data directory).
    #[arg(long, global = true, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Log file (default: tidings.log in the platform's state directory); TIDINGS_LOG sets how much goes into it.
    #[arg(long, global = true, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Import the subscriptions of this OPML file first (duplicates are skipped).
    #[arg(long, global = true, value_name = "FILE")]
    pub opml: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Import subscriptions from an OPML file, or a whole newsboat home (`tidings import newsboat`: feeds,
    /// folders from tags, read and flagged entries, settings), and print a report.
    Import {
        /// The OPML file, or `newsboat`.
        file: PathBuf,
        /// newsboat: its urls file (default: ~/.newsboat/urls, else $XDG_CONFIG_HOME/newsboat/urls).
        #[arg(long, value_name = "FILE")]
        urls: Option<PathBuf>,
        /// newsboat: its cache (default: cache.db beside the urls file, or in $XDG_DATA_HOME/newsboat).
        #[arg(long, value_name = "FILE")]
        cache: Option<PathBuf>,
        /// newsboat: its config file (default: config beside the urls file). Written `--config FILE` after
        /// `import newsboat`; tidings's own config file is given before the command
        /// (`tidings --config FILE import newsboat`).
        #[arg(long = "newsboat-config", value_name = "FILE")]
        newsboat_config: Option<PathBuf>,
    },
    /// Subscribe to a feed; a web page's address goes through discovery.
    Add {
        /// A feed's or a site's address.
        url: String,
        /// Put the feed in this folder (created if needed).
        #[arg(long, value_name = "NAME")]
        folder: Option<String>,
        /// When the page offers several feeds, take number N of `tidings discover`'s list.
        #[arg(long, value_name = "N")]
        pick: Option<usize>,
    },
    /// List the feeds a web page offers, each verified by fetching it.
    Discover {
        /// A site's or a feed's address.
        url: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write every subscription as OPML 2.0, folders kept; or, with --markdown, entries as Markdown files.
    Export {
        /// Write to this file instead of standard output.
        #[arg(short, long, value_name = "FILE", conflicts_with = "markdown")]
        output: Option<PathBuf>,
        /// Write entries as Markdown files (front matter, links as references) under this folder.
        #[arg(long, value_name = "DIR")]
        markdown: Option<PathBuf>,
        /// With --markdown: only the entries this query matches (the search's language); else every entry.
        #[arg(long, value_name = "QUERY", requires = "markdown")]
        query: Option<String>,
        /// With --markdown: where each entry goes in the folder (placeholders {feed}, {date}, {title}, {year},
        /// {month}, {author}, {id}); else the config's export_path.
        #[arg(long, value_name = "TEMPLATE", requires = "markdown")]
        path: Option<String>,
    },
    /// Refresh every feed without the reader, then sync every account; progress on stderr, a summary on stdout
    /// (a line per account). Exit 3 when a feed or an account failed (the others were done).
    Refresh {
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
        /// Also fetch feeds that are gone or asked to wait (backoff, Retry-After).
        #[arg(long)]
        force: bool,
        /// Refresh the local feeds only: leave the accounts (`[[accounts]]`) for `tidings sync`.
        #[arg(long)]
        no_sync: bool,
    },
    /// Sync every account of the config (`[[accounts]]`) both ways: send what was changed here, bring what
    /// changed on the server. Exit 0 when every account synced, 3 when one could not be (its changes wait).
    Sync {
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Keep the database fresh without a terminal: refresh feeds as they come due and sync every account, until
    /// SIGTERM or SIGINT. What it does goes to the log. One daemon per database.
    Daemon {
        /// Refresh feeds not fetched for this long, and sync this often (30s, 5m, 2h), instead of
        /// `refresh_interval_minutes`.
        #[arg(long, value_name = "DURATION", value_parser = super::daemon::parse_interval)]
        interval: Option<std::time::Duration>,
    },
    /// Download the enclosures (podcasts, videos, any file) of entries: those a query matches, a feed's, or
    /// these ids; with none of them, what is queued already. Runs the queue to its end, progress on stderr.
    /// Exit 0 when every file is done, 3 when one failed (the others still finish).
    Download {
        /// Every entry this query matches (the query language of views).
        #[arg(long, value_name = "QUERY", conflicts_with_all = ["feed", "ids"])]
        query: Option<String>,
        /// Every entry of this feed: its URL or its name.
        #[arg(long, value_name = "URL|TITLE", conflicts_with = "ids")]
        feed: Option<String>,
        /// Entries by id (as `tidings list --json` gives them).
        #[arg(value_name = "ENTRY_ID")]
        ids: Vec<i64>,
        /// Put every failed and paused download back in the queue first, whatever else is asked (a `.part` file
        /// is resumed).
        #[arg(long)]
        retry: bool,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the download queue: each file, its state and why, how far it got.
    Downloads {
        /// Print one JSON array, an object per download.
        #[arg(long)]
        json: bool,
    },
    /// Print the unread count of every feed, and the total.
    Unread,
    /// Every feed's health — ok, failing, dead, gone, moved, quiet or throttled — since when and why, worst
    /// first. Exit 0 when every feed is ok, 1 when any is not.
    Health {
        /// Print one JSON array, an object per feed.
        #[arg(long)]
        json: bool,
    },
    /// Search the cache: titles, authors, feed names and text. Words are ANDed; "a phrase", prefix*,
    /// -word (or NOT word) leaves out, a OR b.
    Search {
        /// What to look for (several words are one query).
        #[arg(required = true, value_name = "QUERY")]
        query: Vec<String>,
        /// Print JSON (with entry and feed ids) instead of text.
        #[arg(long)]
        json: bool,
        /// Only in this feed: its URL or its name.
        #[arg(long, value_name = "URL|TITLE")]
        feed: Option<String>,
        /// Only unread entries.
        #[arg(long)]
        unread: bool,
    },
    /// List entries as the reader does: a saved view, a query, unread or starred ones, one feed's; newest
    /// first. `--ignored` lists what kill rules caught instead.
    List {
        /// A query of the query language, e.g. 'title ~ "rust" and age < 7d'.
        #[arg(long, value_name = "QUERY")]
        query: Option<String>,
        /// A saved view ([[views]] in the config), by name.
        #[arg(long, value_name = "NAME")]
        view: Option<String>,
        /// Only unread entries.
        #[arg(long)]
        unread: bool,
        /// Only starred entries.
        #[arg(long)]
        starred: bool,
        /// Only this feed: its URL or its name.
        #[arg(long, value_name = "URL|TITLE")]
        feed: Option<String>,
        /// The entries kill rules ([[ignore]]) caught, hidden everywhere else.
        #[arg(long)]
        ignored: bool,
        /// Print JSON (with entry and feed ids) instead of text.
        #[arg(long)]
        json: bool,
        /// Only what was stored after CURSOR (the `cursor` a previous run printed), oldest first; the run prints
        /// the next cursor, so chained runs see every entry once.
        #[arg(long, value_name = "CURSOR")]
        after: Option<String>,
    },
    /// Print the keys in effect (the defaults with the config's `[keys]`), one table per context.
    Keys {
        /// Print Markdown tables (docs/keys.md's tables are this output).
        #[arg(long)]
        markdown: bool,
    },
    /// Print the manual page, tidings(1), as roff: `tidings man | man -l -` shows it.
    Man,
    /// Print the completion script of a shell: `source <(tidings completions bash)`, or save it where the shell
    /// looks for completions.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Fetch (or read) one feed, decode and parse it, and explain what was decided. Writes nothing.
    Inspect {
        /// A feed URL, or a file (with --full-text: a web page's URL).
        target: String,
        /// For a file: the Content-Type it would have been served with.
        #[arg(long, value_name = "CT")]
        content_type: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Fetch the web page at the URL and show the article that full-text extraction finds in it.
        #[arg(long, conflicts_with = "content_type")]
        full_text: bool,
    },
}

/// `tidings import newsboat --config FILE` names newsboat's config (as the issue and newsboat's users write it),
/// while `--config` elsewhere is tidings's own: after `import newsboat`, it is read as `--newsboat-config`.
pub(super) fn newsboat_flags(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let Some(at) = args.windows(2).position(|w| w[0] == "import" && w[1] == "newsboat") else { return args };
    for arg in &mut args[at + 2..] {
        if arg == "--config" {
            *arg = "--newsboat-config".into();
        } else if let Some(value) = arg.to_str().and_then(|a| a.strip_prefix("--config=")) {
            *arg = format!("--newsboat-config={value}").into();
        }
    }
    args
}
