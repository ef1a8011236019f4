//! The command line: argument parsing and the headless commands (`import`, `export`, `refresh`, `unread`,
//! `inspect`, `search`), and how their failures reach people: each cause said once, with what to do. The binary is a
//! thin shell around [`main`].
//!
//! Processes sharing a database: the reader takes the store's [`ReaderLock`] (a second reader says which
//! process has the database and exits, rather than open a read-only reader that would silently drop the
//! marks made in it); headless commands write next to a running reader, each transaction waiting its turn.
//! `export` and `unread` open the database read-only. A closed standard output (`tidings export | head`) ends
//! a command quietly with status 0. Panics go to the log, not over the terminal (the parser survives its own);
//! one that ends the command is said in one line.

use crate::config::{Config, Paths};
use crate::fetch::discovery::{Discovery, discover};
use crate::fetch::{FetchConfig, FetchOutcome, Fetcher, Validators};
use crate::import::{ImportProgress, ImportReport, discover_sites, import_file_with_progress};
use crate::inspect::{Http, Report};
use crate::opml;
use crate::refresh::{RefreshEvent, Refresher, Which};
use crate::sanitize::one_line;
use crate::store::{self, DbThread, ReaderLock, read, write};
use anyhow::Context;
use clap::{Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

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
    /// Import subscriptions from an OPML file and print a report.
    Import {
        /// The OPML file.
        file: PathBuf,
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
    /// Refresh every feed without the reader; progress on stderr, a summary on stdout.
    Refresh {
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
        /// Also fetch feeds that are gone or asked to wait (backoff, Retry-After).
        #[arg(long)]
        force: bool,
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

/// `tidings keys`: the keymap in effect, as help shows it or as README's Markdown.
fn print_keys(config: &Config, markdown: bool) -> std::io::Result<()> {
    let keymap = &config.keymap;
    let mut out = std::io::stdout().lock();
    if markdown {
        write!(out, "{}", keymap.markdown())?;
        return out.flush();
    }
    let rows = keymap.help_rows();
    let width = rows.iter().map(|(_, k, _)| unicode_width::UnicodeWidthStr::width(k.as_str())).max().unwrap_or(8);
    let mut context = None;
    for (ctx, keys, help) in rows {
        if context != Some(ctx) {
            if context.is_some() {
                writeln!(out)?;
            }
            writeln!(out, "{}", ctx.title())?;
            context = Some(ctx);
        }
        let pad = width.saturating_sub(unicode_width::UnicodeWidthStr::width(keys.as_str()));
        writeln!(out, "  {keys}{}  {help}", " ".repeat(pad))?;
    }
    out.flush()
}

/// Parses the arguments, runs the command, and turns the outcome into an exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
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
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")?;

    if let Some(Command::Keys { markdown }) = &cli.command {
        print_keys(&config, *markdown)?;
        return Ok(ExitCode::SUCCESS);
    }

    // Inspect writes nothing, so it never touches the database.
    if let Some(Command::Inspect { target, content_type, json, full_text }) = &cli.command {
        if *full_text {
            return runtime.block_on(inspect_full_text(&config, target, *json));
        }
        return runtime.block_on(inspect(&config, target, content_type.as_deref(), *json));
    }

    if let Some(Command::Discover { url, json }) = &cli.command {
        return runtime.block_on(discover_command(&config, url, *json));
    }

    // One reader per database; checked before anything else happens.
    let _reader_lock = match cli.command {
        None => Some(ReaderLock::acquire(&paths.db)?),
        Some(_) => None,
    };

    // Imports asked for by flag or config come first, whatever the command.
    let mut reports = Vec::new();
    for file in cli.opml.iter().chain(config.import_opml.iter()) {
        reports.push(runtime.block_on(import_with_discovery(&paths.db, &config, file))?);
    }
    let import_failed = reports.iter().any(ImportReport::has_failures);

    match cli.command {
        None => {
            let size = crossterm::terminal::size().unwrap_or((100, 30));
            let options = crate::runtime::Options {
                db: paths.db.clone(),
                config: config.clone(),
                notice: (!reports.is_empty())
                    .then(|| reports.iter().map(ImportReport::one_line).collect::<Vec<_>>().join("; ")),
                report: reports
                    .iter()
                    .filter(|r| r.has_failures() || !r.discovered.is_empty())
                    .flat_map(|r| std::iter::once(format!("Imported {}", r.file)).chain(r.lines()))
                    .collect(),
                size,
                zone: crate::clock::Zone::Local,
            };
            runtime.block_on(crate::runtime::terminal::run(options))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Add { url, folder, pick }) => {
            runtime.block_on(add_command(&paths.db, &config, &url, folder, pick))
        }
        Some(Command::Import { file }) => {
            let report = runtime.block_on(import_with_discovery(&paths.db, &config, &file))?;
            std::io::stdout().lock().write_all(report.render().as_bytes())?;
            Ok(if report.has_failures() || import_failed {
                ExitCode::from(EXIT_SOME_FAILED)
            } else {
                ExitCode::SUCCESS
            })
        }
        Some(Command::Export { output }) => {
            let conn = store::open_existing_read_only(&paths.db)?;
            let doc = read::export_doc(&conn)?;
            let xml = opml::write("tidings subscriptions", &doc, chrono::Utc::now());
            match output {
                Some(path) => std::fs::write(&path, xml).with_context(|| format!("cannot write {}", path.display()))?,
                None => {
                    let mut out = std::io::stdout().lock();
                    out.write_all(xml.as_bytes())?;
                    out.flush()?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Refresh { json, force }) => runtime.block_on(refresh(&paths.db, &config, json, force)),
        Some(Command::Unread) => {
            let conn = store::open_existing_read_only(&paths.db)?;
            let feeds = read::feeds(&conn)?;
            let total: i64 = feeds.iter().map(|f| f.unread).sum();
            let width = total.to_string().len().max(3);
            let mut out = std::io::stdout().lock();
            for feed in &feeds {
                writeln!(out, "{:>width$}  {}", feed.unread, one_line(&feed.title, 200))?;
            }
            writeln!(out, "{total:>width$}  total")?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Search { query, json, feed, unread }) => {
            search_command(&paths.db, &query.join(" "), json, feed.as_deref(), unread)
        }
        Some(Command::Inspect { .. } | Command::Discover { .. } | Command::Keys { .. }) => {
            unreachable!("handled above")
        }
    }
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

/// Subscriptions an OPML file must hold before its import shows progress.
const IMPORT_PROGRESS_FROM: usize = 10_000;

/// Imports an OPML file, then runs discovery for outlines that name only a site. A long file shows its
/// progress on standard error: one line kept up to date on a terminal, a line every quarter elsewhere.
async fn import_with_discovery(db: &Path, config: &Config, file: &Path) -> anyhow::Result<ImportReport> {
    let terminal = std::io::stderr().is_terminal();
    let mut quarters_told = 0;
    let mut report = import_file_with_progress(db, file, |ImportProgress { done, total }| {
        if total < IMPORT_PROGRESS_FROM {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = if terminal {
            write!(err, "\rImporting {done}/{total} subscriptions{}", if done == total { "\n" } else { "" })
        } else if done * 4 >= (quarters_told + 1) * total {
            quarters_told = done * 4 / total;
            writeln!(err, "Importing {done}/{total} subscriptions")
        } else {
            Ok(())
        };
    })?;
    if !report.sites.is_empty() {
        let fetcher = Fetcher::new(FetchConfig::from(config)).map_err(anyhow::Error::msg)?;
        discover_sites(db, &fetcher, &mut report).await?;
    }
    Ok(report)
}

async fn discover_command(config: &Config, url: &str, json: bool) -> anyhow::Result<ExitCode> {
    let fetcher = Fetcher::new(FetchConfig::from(config)).map_err(anyhow::Error::msg)?;
    let found = discover(&fetcher, url).await;
    if json {
        let value = serde_json::json!({
            "url": found.url,
            "candidates": found.feeds,
            "tried": found.tried,
            "error": found.error,
        });
        writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        std::io::stdout().lock().write_all(describe_discovery(&found).as_bytes())?;
    }
    Ok(if found.feeds.is_empty() { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

/// A discovery for people: the numbered feeds, or what was tried.
fn describe_discovery(found: &Discovery) -> String {
    let mut out = String::new();
    if let Some(error) = &found.error {
        out.push_str(&format!("Cannot read {}: {}\n", one_line(&found.url, 500), one_line(error, 500)));
        return out;
    }
    match found.feeds.len() {
        0 => {
            out.push_str(&format!("No feed found at {}. Looked at:\n", one_line(&found.url, 500)));
            for t in &found.tried {
                out.push_str(&format!("  - {}\n", one_line(t, 500)));
            }
        }
        n => {
            out.push_str(&format!("{} offers {n} feed{}:\n", one_line(&found.url, 500), if n == 1 { "" } else { "s" }));
            for (i, f) in found.feeds.iter().enumerate() {
                out.push_str(&format!(
                    "  {}. {} ({})  {}  [{}]\n",
                    i + 1,
                    one_line(f.title.as_deref().unwrap_or("(untitled)"), 200),
                    f.kind.as_str(),
                    one_line(&f.url, 500),
                    f.found_by.describe()
                ));
            }
        }
    }
    out
}

async fn add_command(
    db: &Path,
    config: &Config,
    url: &str,
    folder: Option<String>,
    pick: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let fetcher = Fetcher::new(FetchConfig::from(config)).map_err(anyhow::Error::msg)?;
    let found = discover(&fetcher, url).await;
    let chosen = match (found.feeds.len(), pick) {
        (0, _) => {
            note_part!("{}", describe_discovery(&found));
            return Ok(ExitCode::from(EXIT_SOME_FAILED));
        }
        (n, Some(p)) if p == 0 || p > n => {
            note_part!("{}", describe_discovery(&found));
            note!("--pick {p}: choose a number from 1 to {n}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        (_, Some(p)) => &found.feeds[p - 1],
        (1, None) => &found.feeds[0],
        (n, None) => {
            note_part!("{}", describe_discovery(&found));
            note!("{n} feeds found: run again with --pick N to choose one");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    // A path ("Tech/Rust") names a folder inside another.
    let folder = folder.as_deref().map(store::folders::split_path).unwrap_or_default();
    let new = crate::model::NewFeed {
        url: chosen.url.clone(),
        title: chosen.title.clone(),
        name: None,
        site_url: None,
        folder,
    };
    let writer = DbThread::spawn("tidings-writer", store::open_write(db)?);
    let (feed_id, added) = writer.call(move |c| write::add_feed(c, &new, chrono::Utc::now().timestamp())).await?;
    let title = one_line(chosen.title.as_deref().unwrap_or(&chosen.url), 200);
    if !added {
        writeln!(std::io::stdout().lock(), "Already subscribed to {title} ({})", one_line(&chosen.url, 500))?;
        return Ok(ExitCode::SUCCESS);
    }
    let refresher = Refresher::new(fetcher, writer, 1).with_forced_encodings(config.encoding.clone());
    let summary = refresher.run(Which::Feeds(vec![feed_id]), true, |_| {}).await?;
    writeln!(
        std::io::stdout().lock(),
        "Subscribed to {title} ({}): {} entries",
        one_line(&chosen.url, 500),
        summary.new_entries
    )?;
    Ok(if summary.failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

async fn refresh(db: &Path, config: &Config, json: bool, force: bool) -> anyhow::Result<ExitCode> {
    let writer = DbThread::spawn("tidings-writer", store::open_write(db)?);
    let fetcher = Fetcher::new(FetchConfig::from(config)).map_err(anyhow::Error::msg)?;
    let refresher = Refresher::new(fetcher, writer.clone(), config.concurrency)
        .with_per_host_limit(config.per_host_concurrency)
        .with_forced_encodings(config.encoding.clone());
    let total = writer.call(|c| Ok(read::refresh_targets(c, None)?.len())).await?;
    let progress = std::io::stderr().is_terminal();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let summary = refresher
        .run(Which::All, force, move |ev: RefreshEvent| {
            if ev.is_final() && progress {
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                note_part!("\rRefreshing {n}/{total}");
                if n == total {
                    note!("");
                }
            }
        })
        .await?;
    // Feeds read in full (`T` in the reader): their new entries' pages, fetched and extracted as the reader
    // would. The feeds' refresh stands whatever happens here; each page that gave no article is listed.
    let refused = Arc::new(std::sync::Mutex::new(Vec::new()));
    let full_text = {
        let refused = refused.clone();
        refresher
            .fetch_full_texts(chrono::Utc::now().timestamp(), move |entry_id, result| {
                if let Err(why) = result {
                    refused.lock().unwrap_or_else(|e| e.into_inner()).push((entry_id, why));
                }
            })
            .await
    };
    let refused = std::mem::take(&mut *refused.lock().unwrap_or_else(|e| e.into_inner()));
    let full_tried = full_text.as_ref().map_or(0, |tried| *tried);
    let refused = describe_pages(&writer, refused).await;
    // Upkeep on the writer: what retention no longer keeps goes. New entries are not indexed for search here:
    // `tidings search` indexes them before it looks, and the reader in the background, so a first refresh of
    // thousands of feeds does not wait on indexing hundreds of thousands of entries.
    let job = store::purge::Upkeep::new(Arc::new(config.retention()), chrono::Utc::now().timestamp(), false);
    let purged = writer.call(move |c| job.run(c)).await?.purged;
    let not_indexed = writer.call(|c| store::search::pending_count(c)).await?;
    let failures: Vec<(&str, &str, &str, &str)> = summary
        .failed
        .iter()
        .filter_map(|ev| match ev {
            RefreshEvent::Failed { title, url, kind, message, .. } => {
                Some((title.as_str(), url.as_str(), kind.as_str(), message.as_str()))
            }
            _ => None,
        })
        .collect();
    let skipped: Vec<(&str, &str)> = summary
        .skipped
        .iter()
        .filter_map(|ev| match ev {
            RefreshEvent::Skipped { title, reason, .. } => Some((title.as_str(), reason.as_str())),
            _ => None,
        })
        .collect();
    let mut out = std::io::stdout().lock();
    if json {
        let value = serde_json::json!({
            "feeds": summary.feeds,
            "updated": summary.updated_feeds,
            "not_modified": summary.not_modified,
            "new_entries": summary.new_entries,
            "failed": failures.iter().map(|(title, url, kind, message)| serde_json::json!({
                "title": one_line(title, 300), "url": url, "kind": kind, "message": one_line(message, 1000),
            })).collect::<Vec<_>>(),
            "skipped": skipped.iter().map(|(title, reason)| serde_json::json!({"title": one_line(title, 300), "reason": reason})).collect::<Vec<_>>(),
            "moved": summary.moved.iter().map(|(title, url)| serde_json::json!({"title": one_line(title, 300), "url": url})).collect::<Vec<_>>(),
            "purged": purged,
            "not_indexed": not_indexed,
            "full_text": {
                "fetched": full_tried - refused.len(),
                "failed": refused.iter().map(|(title, url, why)| serde_json::json!({
                    "title": one_line(title, 300), "url": url, "message": one_line(why, 1000),
                })).collect::<Vec<_>>(),
                "error": full_text.as_ref().err().map(|e| e.to_string()),
            },
        });
        writeln!(out, "{value}")?;
    } else {
        writeln!(
            out,
            "Refreshed {} feeds: {} updated ({} new entries), {} not modified, {} failed{}.",
            summary.feeds,
            summary.updated_feeds,
            summary.new_entries,
            summary.not_modified,
            failures.len(),
            if skipped.is_empty() { String::new() } else { format!(", {} left alone", skipped.len()) }
        )?;
        if full_tried > 0 {
            let fetched = full_tried - refused.len();
            let failed = match refused.len() {
                0 => String::new(),
                1 => "; 1 page gave no article and keeps its feed's text".to_owned(),
                n => format!("; {n} pages gave no article and keep their feed's text"),
            };
            let noun = if fetched == 1 { "article" } else { "articles" };
            writeln!(out, "Fetched {fetched} {noun} in full{failed}.")?;
        }
        if purged > 0 {
            writeln!(out, "Purged {purged} old entries (keep_days, max_entries_per_feed).")?;
        }
        for (title, url, kind, message) in &failures {
            let at = if title == url { String::new() } else { format!(" <{}>", one_line(url, 500)) };
            writeln!(out, "FAILED  {}{at} [{kind}]: {}", one_line(title, 200), one_line(message, 1000))?;
        }
        for (title, reason) in &skipped {
            writeln!(out, "SKIPPED {}: {reason} (refresh --force tries it anyway)", one_line(title, 200))?;
        }
        for (title, url) in &summary.moved {
            writeln!(out, "MOVED   {}: its address is now {}", one_line(title, 200), one_line(url, 500))?;
        }
        for (title, url, why) in &refused {
            writeln!(
                out,
                "NO TEXT {} <{}>: {} (t on the entry in the reader tries again)",
                one_line(title, 200),
                one_line(url, 500),
                one_line(why, 1000)
            )?;
        }
        if let Err(e) = &full_text {
            writeln!(out, "The full articles of T feeds were not fetched: {e}; the next refresh tries again.")?;
        }
    }
    out.flush()?;
    Ok(if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

/// The entries whose page gave no article, as (title, link, why) for a report.
async fn describe_pages(
    writer: &DbThread,
    pages: Vec<(crate::model::EntryId, String)>,
) -> Vec<(String, String, String)> {
    let unnamed: Vec<_> = pages.iter().map(|(id, why)| (format!("entry {id}"), String::new(), why.clone())).collect();
    let described = writer
        .call(move |c| {
            let mut out = Vec::with_capacity(pages.len());
            for (entry_id, why) in pages {
                let detail = read::entry(c, entry_id)?;
                let title = detail.as_ref().and_then(|d| d.title.clone()).unwrap_or_else(|| "(untitled)".into());
                let link = detail.and_then(|d| d.link).unwrap_or_default();
                out.push((title, link, why));
            }
            Ok(out)
        })
        .await;
    described.unwrap_or(unnamed)
}

/// `tidings search`: indexes what the last refreshes added, then prints the matches, newest first. Exit 0 with
/// matches, 3 with none, 2 when the query (or `--feed`) means nothing.
fn search_command(db: &Path, query: &str, json: bool, feed: Option<&str>, unread: bool) -> anyhow::Result<ExitCode> {
    use crate::store::search::{SearchError, index_pending, pending_count, search};
    let mut conn = store::open_write(db)?;
    let pending = pending_count(&conn)?;
    if pending > 5_000 && std::io::stderr().is_terminal() {
        note!("Indexing {pending} new entries for search…");
    }
    index_pending(&mut conn, usize::MAX)?;
    let feeds = read::feeds(&conn)?;
    let within = match feed {
        None => None,
        Some(wanted) => {
            let by_url = feeds.iter().find(|f| f.url == wanted);
            let by_title = || feeds.iter().find(|f| f.title.to_lowercase() == wanted.to_lowercase());
            match by_url.or_else(by_title) {
                Some(f) => Some(crate::model::ListSource::Feed(f.id)),
                None => {
                    note!(
                        "tidings: no feed has the address or name '{}'; `tidings unread` lists them",
                        one_line(wanted, 200)
                    );
                    return Ok(ExitCode::from(EXIT_USAGE));
                }
            }
        }
    };
    let refs = match search(&conn, query, within.as_ref(), unread, crate::model::Sort::Newest) {
        Ok(refs) => refs,
        Err(SearchError::Query(e)) => {
            note!("tidings: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        Err(SearchError::Store(e)) => return Err(e.into()),
    };
    let ids: Vec<_> = refs.iter().map(|r| r.id).collect();
    let rows = crate::store::lists::entry_rows(&conn, &ids)?;
    let feed_titles: std::collections::HashMap<_, _> = feeds.iter().map(|f| (f.id, f)).collect();
    let mut out = std::io::stdout().lock();
    if json {
        let entries: Vec<_> = rows
            .iter()
            .map(|r| {
                let feed = feed_titles.get(&r.feed_id);
                serde_json::json!({
                    "id": r.id, "feed_id": r.feed_id, "feed": feed.map(|f| one_line(&f.title, 300)),
                    "feed_url": feed.map(|f| &f.url), "title": r.title.as_deref().map(|t| one_line(t, 1000)),
                    "link": r.link, "date": chrono::DateTime::from_timestamp(r.date, 0).map(|d| d.to_rfc3339()),
                    "read": r.read, "starred": r.starred,
                })
            })
            .collect();
        writeln!(out, "{}", serde_json::json!({"query": query, "matches": rows.len(), "entries": entries}))?;
    } else {
        for r in &rows {
            let feed = feed_titles.get(&r.feed_id).map_or(String::new(), |f| one_line(&f.title, 60));
            let title = one_line(r.title.as_deref().unwrap_or("(untitled)"), 200);
            let link = r.link.as_deref().map_or(String::new(), |l| format!("  {}", one_line(l, 500)));
            writeln!(out, "{}  {feed}  {title}{link}", crate::clock::Zone::Local.date(r.date))?;
        }
        note!("{} {} found", rows.len(), if rows.len() == 1 { "entry" } else { "entries" });
    }
    Ok(if rows.is_empty() { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

async fn inspect(config: &Config, target: &str, content_type: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let is_url = target.starts_with("http://") || target.starts_with("https://");
    let report = if is_url {
        let fetcher = Fetcher::new(FetchConfig::from(config)).map_err(anyhow::Error::msg)?;
        match fetcher.get(target, &Validators::default()).await {
            Ok(FetchOutcome::Fetched(f)) => {
                let http =
                    Http { status: f.status, content_type: f.content_type.clone(), final_url: f.final_url.clone() };
                Report::build(target, Some(http), &f.body, f.content_type.as_deref())
            }
            Ok(FetchOutcome::NotModified { .. }) => Report {
                source: target.to_string(),
                http: None,
                decision: None,
                feed: None,
                error: Some("answered 304 Not Modified to a request without validators".into()),
            },
            Err(e) => Report {
                source: target.to_string(),
                http: None,
                decision: None,
                feed: None,
                error: Some(e.to_string()),
            },
        }
    } else {
        let bytes = std::fs::read(target).with_context(|| format!("cannot read {target}"))?;
        Report::build(target, None, &bytes, content_type)
    };
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report.to_json())?)?;
    } else {
        out.write_all(report.to_text().as_bytes())?;
    }
    out.flush()?;
    Ok(if report.error.is_some() { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

async fn inspect_full_text(config: &Config, url: &str, json: bool) -> anyhow::Result<ExitCode> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        note!("tidings: --full-text needs the http(s) address of a web page, not {}", one_line(url, 500));
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let fetcher = Fetcher::new(FetchConfig::from(config)).map_err(anyhow::Error::msg)?;
    match crate::fetch::article::fetch_article(&fetcher, url).await {
        Ok(article) if json => writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(&article.to_json())?)?,
        Ok(article) => write!(std::io::stdout(), "{}", article.to_text(80))?,
        Err(e) => {
            if json {
                let answer = serde_json::json!({"url": url, "error": e.to_string()});
                writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(&answer)?)?;
            }
            note!("tidings: no article from {}: {}", one_line(url, 500), one_line(&e.to_string(), 1000));
            return Ok(ExitCode::from(EXIT_SOME_FAILED));
        }
    }
    Ok(ExitCode::SUCCESS)
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
        let err = anyhow::Error::new(store::StoreError::Sqlite(failure));
        let said = describe_error(&err, Some(Path::new("/data/tidings.db")));
        assert_eq!(said.matches("malformed").count(), 1, "{said}");
        assert!(said.ends_with("the file /data/tidings.db is damaged: restore it from a backup, or move it aside and import your subscriptions again (tidings starts a new database)"), "{said}");
    }
}
