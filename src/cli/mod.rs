//! The command line: argument parsing, the dispatch to each command (one file each), and how their failures
//! reach people: each cause said once, with what to do. The binary is a thin shell around [`main`].
//!
//! Processes sharing a database: the reader takes the store's [`ReaderLock`] (a second reader says which
//! process has the database and exits, rather than open a read-only reader that would silently drop the
//! marks made in it); headless commands write next to a running reader, each transaction waiting its turn.
//! `export` and `unread` open the database read-only. A closed standard output (`tidings export | head`) ends
//! a command quietly with status 0. Panics go to the log, not over the terminal (the parser survives its own);
//! one that ends the command is said in one line.

use crate::config::{Config, Paths};
use crate::import::ImportReport;
use crate::sanitize::one_line;
use crate::store::ReaderLock;
use anyhow::Context;
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A line on standard error. Never fails: a closed stderr (`2>&1 | head`) must not turn a finished command
/// into a crash, as `eprintln!` would.
macro_rules! note {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// [`note!`] without the newline (progress that rewrites its line).
macro_rules! note_part {
    ($($arg:tt)*) => {{
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod add;
mod daemon;
mod discover;
mod export;
mod import;
mod inspect;
mod keys;
mod list;
mod refresh;
mod search;
mod sync;
mod unread;

/// Exit status when the command finished but some feeds (or outlines) failed.
pub const EXIT_SOME_FAILED: u8 = 3;
/// Exit status for a fatal error (bad config, unreadable file, database trouble).
pub const EXIT_ERROR: u8 = 1;
/// Exit status for a command that needs another choice (also clap's status for bad arguments).
pub const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(name = "tidings", version, about = "A terminal feed reader", propagate_version = true)]
pub struct Cli {
    /// Config file (default: config.toml in the platform's config directory).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Database file (default: tidings.db in the platform's data directory).
    #[arg(long, global = true, value_name = "FILE")]
    pub db: Option<PathBuf>,
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
    /// Write every subscription as OPML 2.0, folders kept.
    Export {
        /// Write to this file instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
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
        #[arg(long, value_name = "DURATION", value_parser = daemon::parse_interval)]
        interval: Option<std::time::Duration>,
    },
    /// Print the unread count of every feed, and the total.
    Unread,
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
    },
    /// Print the keys in effect (the defaults with the config's `[keys]`), one table per context.
    Keys {
        /// Print Markdown tables (README's key section is this output).
        #[arg(long)]
        markdown: bool,
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

/// Parses the arguments, runs the command, and turns the outcome into an exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse_from(newsboat_flags(std::env::args_os().collect()));
    let paths = match Paths::resolve(cli.config.as_deref(), cli.db.as_deref()) {
        Ok(paths) => paths,
        Err(err) => return fail(&anyhow::Error::new(err), None),
    };
    log_panics();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli, &paths))) {
        Ok(Ok(code)) => code,
        Ok(Err(err)) => fail(&err, Some(&paths.db)),
        Err(_) => {
            let what = LAST_PANIC.lock().ok().and_then(|p| p.clone()).unwrap_or_else(|| "a panic".into());
            let _ = writeln!(
                std::io::stderr(),
                "tidings: internal error: {}; this is a bug, please report it (the log has details: {})",
                one_line(&what, 1000),
                paths.log.display()
            );
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// `tidings import newsboat --config FILE` names newsboat's config (as the issue and newsboat's users write it),
/// while `--config` elsewhere is tidings's own: after `import newsboat`, it is read as `--newsboat-config`.
fn newsboat_flags(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
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

/// The last panic's message and place, for the line [`main`] prints when a panic ends the command.
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Sends panics to the log instead of the terminal: one caught where it happened (a document that crashes the
/// XML parser is that feed's error) must not print over the output, and one that ends the command is said
/// once by [`main`]. The reader adds its own hook on top, which restores the terminal first.
fn log_panics() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        tracing::error!("panic on thread {:?}: {message}{place}", std::thread::current().name());
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{message}{place}"));
        }
    }));
}

/// Ends a command that failed: quietly with status 0 when standard output was closed under it (the reader of
/// the pipe has all it wanted), else with the error on standard error and [`EXIT_ERROR`].
fn fail(err: &anyhow::Error, db: Option<&Path>) -> ExitCode {
    if err
        .chain()
        .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
    {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(std::io::stderr(), "tidings: {}", one_line(&describe_error(err, db), 4000));
    ExitCode::from(EXIT_ERROR)
}

/// An error for people: the message and its causes, each said once, then what to do when the cause is one
/// people can act on. Our own errors already say their cause in their message; the chain stops at the first
/// cause whose message was already said (the deeper ones only restate it: "Error code 11: …").
fn describe_error(err: &anyhow::Error, db: Option<&Path>) -> String {
    let mut message = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if message.contains(text) {
            break;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(text);
    }
    if let Some(advice) = advice(err, db) {
        message.push_str("; ");
        message.push_str(&advice);
    }
    message
}

/// What to do about an SQLite failure, when the error itself does not say.
fn advice(err: &anyhow::Error, db: Option<&Path>) -> Option<String> {
    use rusqlite::ErrorCode;
    let code = err.chain().find_map(|e| match e.downcast_ref::<rusqlite::Error>() {
        Some(rusqlite::Error::SqliteFailure(f, _)) => Some(f.code),
        _ => None,
    })?;
    let db = db.map_or_else(|| "the database".to_string(), |p| p.display().to_string());
    Some(match code {
        ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => format!(
            "the file {db} is damaged: restore it from a backup, or move it aside and import your \
             subscriptions again (tidings starts a new database)"
        ),
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
            format!("another process kept {db} busy for too long; try again when it has finished")
        }
        ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen => {
            format!("check that you may write to {db} and its folder, or use another database with --db FILE")
        }
        ErrorCode::DiskFull => format!("the disk holding {db} is full; free some space and try again"),
        _ => return None,
    })
}

fn run(cli: Cli, paths: &Paths) -> anyhow::Result<ExitCode> {
    let config = Config::load(&paths.config, paths.config_explicit)?;
    init_logging(&paths.log);
    if cli.command.is_some() {
        for warning in &config.warnings {
            note!("tidings: warning: {warning}");
        }
    }
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")?;

    if let Some(Command::Keys { markdown }) = &cli.command {
        keys::run(&config, *markdown)?;
        return Ok(ExitCode::SUCCESS);
    }

    // Inspect writes nothing, so it never touches the database.
    if let Some(Command::Inspect { target, content_type, json, full_text }) = &cli.command {
        if *full_text {
            return runtime.block_on(inspect::full_text(&config, target, *json));
        }
        return runtime.block_on(inspect::run(&config, target, content_type.as_deref(), *json));
    }

    if let Some(Command::Discover { url, json }) = &cli.command {
        return runtime.block_on(discover::run(&config, url, *json));
    }

    // One reader per database; checked before anything else happens.
    let _reader_lock = match cli.command {
        None => Some(ReaderLock::acquire(&paths.db)?),
        Some(_) => None,
    };

    // Imports asked for by flag or config come first, whatever the command.
    let mut reports = Vec::new();
    for file in cli.opml.iter().chain(config.import_opml.iter()) {
        reports.push(runtime.block_on(import::import_with_discovery(&paths.db, &config, file))?);
    }
    let import_failed = reports.iter().any(ImportReport::has_failures);

    match cli.command {
        None => {
            let size = crossterm::terminal::size().unwrap_or((100, 30));
            let options = crate::runtime::Options {
                db: paths.db.clone(),
                config,
                notice: (!reports.is_empty())
                    .then(|| reports.iter().map(ImportReport::one_line).collect::<Vec<_>>().join("; ")),
                report: reports
                    .iter()
                    .filter(|r| r.has_failures() || !r.discovered.is_empty())
                    .flat_map(|r| std::iter::once(format!("Imported {}", r.file)).chain(r.lines()))
                    .collect(),
                size,
                zone: local_zone(),
            };
            let unsaved = runtime.block_on(crate::runtime::terminal::run(options));
            // Nothing left to wait for: a render or a download still running is dropped, not waited for, so
            // the shell gets its prompt back at once.
            runtime.shutdown_background();
            let unsaved = unsaved?;
            if unsaved.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            note!(
                "tidings: quit before the database had {} of your changes, which were not saved: {}. Make them \
                 again (the log has details: {})",
                unsaved.len(),
                unsaved.join(", "),
                paths.log.display()
            );
            Ok(ExitCode::from(EXIT_ERROR))
        }
        Some(Command::Add { url, folder, pick }) => runtime.block_on(add::run(&paths.db, &config, &url, folder, pick)),
        Some(Command::Import { file, urls, cache, newsboat_config }) if file.as_os_str() == "newsboat" => {
            let home = crate::from_newsboat::Home::find(urls.as_deref(), cache.as_deref(), newsboat_config.as_deref())?;
            let report = crate::from_newsboat::import(&paths.db, &paths.config, home)?;
            let mut out = String::from("Imported newsboat\n");
            for line in report.lines() {
                out.push_str(&format!("  {line}\n"));
            }
            std::io::stdout().lock().write_all(out.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Import { urls: Some(_), .. } | Command::Import { cache: Some(_), .. }) => {
            anyhow::bail!("--urls and --cache are for `tidings import newsboat`")
        }
        Some(Command::Import { file, .. }) => {
            let report = runtime.block_on(import::import_with_discovery(&paths.db, &config, &file))?;
            std::io::stdout().lock().write_all(report.render().as_bytes())?;
            Ok(if report.has_failures() || import_failed {
                ExitCode::from(EXIT_SOME_FAILED)
            } else {
                ExitCode::SUCCESS
            })
        }
        Some(Command::Export { output }) => export::run(&paths.db, output.as_deref()),
        Some(Command::Refresh { json, force, no_sync }) => {
            runtime.block_on(refresh::run(&paths.db, &config, json, force, !no_sync))
        }
        Some(Command::Sync { json }) => runtime.block_on(sync::run(&paths.db, &config, json)),
        Some(Command::Daemon { interval }) => runtime.block_on(daemon::run(&paths.db, &config, interval)),
        Some(Command::Unread) => unread::run(&paths.db),
        Some(Command::Search { query, json, feed, unread }) => {
            search::run(&paths.db, &query.join(" "), json, feed.as_deref(), unread)
        }
        Some(Command::List { query, view, unread, starred, feed, ignored, json }) => {
            let asked = list::Asked {
                query: query.as_deref(),
                view: view.as_deref(),
                unread,
                starred,
                feed: feed.as_deref(),
                ignored,
                json,
            };
            list::run(&paths.db, &config, &asked)
        }
        Some(Command::Inspect { .. } | Command::Discover { .. } | Command::Keys { .. }) => {
            unreachable!("handled above")
        }
    }
}

/// The entries `list` and `search` print, each with its feed (looked up in `feeds`): as JSON objects for
/// `--json`, or as lines of text. Feed text goes through `one_line` either way.
struct Printed<'a> {
    feeds: std::collections::HashMap<crate::model::FeedId, &'a crate::model::FeedRow>,
}

impl<'a> Printed<'a> {
    fn new(feeds: &'a [crate::model::FeedRow]) -> Printed<'a> {
        Printed { feeds: feeds.iter().map(|f| (f.id, f)).collect() }
    }

    fn json(&self, rows: &[crate::model::EntryRow]) -> Vec<serde_json::Value> {
        rows.iter()
            .map(|r| {
                let feed = self.feeds.get(&r.feed_id);
                serde_json::json!({
                    "id": r.id, "feed_id": r.feed_id, "feed": feed.map(|f| one_line(&f.title, 300)),
                    "feed_url": feed.map(|f| &f.url), "title": r.title.as_deref().map(|t| one_line(t, 1000)),
                    "link": r.link, "date": chrono::DateTime::from_timestamp(r.date, 0).map(|d| d.to_rfc3339()),
                    "read": r.read, "starred": r.starred,
                })
            })
            .collect()
    }

    /// One entry as a line: its date (in the local zone), feed, title and link.
    fn line(&self, r: &crate::model::EntryRow) -> String {
        let feed = self.feeds.get(&r.feed_id).map_or(String::new(), |f| one_line(&f.title, 60));
        let title = one_line(r.title.as_deref().unwrap_or("(untitled)"), 200);
        let link = r.link.as_deref().map_or(String::new(), |l| format!("  {}", one_line(l, 500)));
        format!("{}  {feed}  {title}{link}", local_zone().date(r.date))
    }
}

/// The system's time zone, with its daylight-saving rules (from `TZ` or the system's tables), for dates shown
/// to the person at this terminal. Looked up here, at the program's edge: the core only applies it.
pub fn local_zone() -> crate::clock::Zone {
    fn offset_at(ts: i64) -> i32 {
        use chrono::{Offset, TimeZone};
        chrono::Local.timestamp_opt(ts, 0).single().map_or(0, |t| t.offset().fix().local_minus_utc())
    }
    crate::clock::Zone::Rules(offset_at)
}

fn init_logging(path: &Path) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    // The log names feeds and addresses: its owner's only, whatever the umask (under 000 it came out 0666).
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let Ok(file) = options.open(path) else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("TIDINGS_LOG").unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_said_ends_the_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)");
        let own = crate::import::ImportError::Read { file: "subs.opml".into(), source: io };
        let err = anyhow::Error::new(own);
        assert_eq!(
            describe_error(&err, None),
            "cannot read OPML file subs.opml: No such file or directory (os error 2)"
        );
        // A context that does not say its cause gets it appended, once.
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "Permission denied (os error 13)");
        let err = anyhow::Error::new(io).context("cannot write out.opml");
        assert_eq!(describe_error(&err, None), "cannot write out.opml: Permission denied (os error 13)");
    }

    #[test]
    fn sqlite_failures_come_with_what_to_do() {
        let failure = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            Some("database disk image is malformed".into()),
        );
        let err = anyhow::Error::new(crate::store::StoreError::Sqlite(failure));
        let said = describe_error(&err, Some(Path::new("/data/tidings.db")));
        assert_eq!(said.matches("malformed").count(), 1, "{said}");
        assert!(said.ends_with("the file /data/tidings.db is damaged: restore it from a backup, or move it aside and import your subscriptions again (tidings starts a new database)"), "{said}");
    }
}
