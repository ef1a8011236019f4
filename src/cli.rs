//! The command line: argument parsing and the headless commands (`import`, `export`, `refresh`, `unread`,
//! `inspect`). The binary is a thin shell around [`main`].

use crate::config::{Config, Paths};
use crate::fetch::discovery::{Discovery, discover};
use crate::fetch::{FetchConfig, FetchOutcome, Fetcher, Validators};
use crate::import::{ImportReport, discover_sites, import_file};
use crate::inspect::{Http, Report};
use crate::opml;
use crate::refresh::{RefreshEvent, Refresher, Which};
use crate::sanitize::one_line;
use crate::store::{self, DbThread, read, write};
use anyhow::Context;
use clap::{Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
    /// Fetch (or read) one feed, decode and parse it, and explain what was decided. Writes nothing.
    Inspect {
        /// A feed URL, or a file.
        target: String,
        /// For a file: the Content-Type it would have been served with.
        #[arg(long, value_name = "CT")]
        content_type: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Parses the arguments, runs the command, and turns the outcome into an exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tidings: {}", one_line(&format!("{err:#}"), 2000));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let paths = Paths::resolve(cli.config.as_deref(), cli.db.as_deref())?;
    let config = Config::load(&paths.config, paths.config_explicit)?;
    init_logging(&paths.log);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")?;

    // Inspect writes nothing, so it never touches the database.
    if let Some(Command::Inspect { target, content_type, json }) = &cli.command {
        return runtime.block_on(inspect(&config, target, content_type.as_deref(), *json));
    }

    if let Some(Command::Discover { url, json }) = &cli.command {
        return runtime.block_on(discover_command(&config, url, *json));
    }

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
            };
            runtime.block_on(crate::runtime::run_in_terminal(options))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Add { url, folder, pick }) => {
            runtime.block_on(add_command(&paths.db, &config, &url, folder, pick))
        }
        Some(Command::Import { file }) => {
            let report = runtime.block_on(import_with_discovery(&paths.db, &config, &file))?;
            print!("{}", report.render());
            Ok(if report.has_failures() || import_failed {
                ExitCode::from(EXIT_SOME_FAILED)
            } else {
                ExitCode::SUCCESS
            })
        }
        Some(Command::Export { output }) => {
            let conn = store::open_write(&paths.db)?;
            let feeds = read::export_rows(&conn)?;
            let xml = opml::write("tidings subscriptions", &feeds, chrono::Utc::now());
            match output {
                Some(path) => std::fs::write(&path, xml).with_context(|| format!("cannot write {}", path.display()))?,
                None => std::io::stdout().write_all(xml.as_bytes())?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Refresh { json, force }) => runtime.block_on(refresh(&paths.db, &config, json, force)),
        Some(Command::Unread) => {
            let conn = store::open_write(&paths.db)?;
            let feeds = read::feeds(&conn)?;
            let total: i64 = feeds.iter().map(|f| f.unread).sum();
            let width = total.to_string().len().max(3);
            let mut out = std::io::stdout().lock();
            for feed in &feeds {
                writeln!(out, "{:>width$}  {}", feed.unread, one_line(&feed.title, 200))?;
            }
            writeln!(out, "{total:>width$}  total")?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Inspect { .. } | Command::Discover { .. }) => unreachable!("handled above"),
    }
}

fn init_logging(path: &Path) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok(file) = std::fs::OpenOptions::new().create(true).append(true).open(path) else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("TIDINGS_LOG").unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
}

/// Imports an OPML file, then runs discovery for outlines that name only a site.
async fn import_with_discovery(db: &Path, config: &Config, file: &Path) -> anyhow::Result<ImportReport> {
    let mut report = import_file(db, file)?;
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
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!("{}", describe_discovery(&found));
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
            eprint!("{}", describe_discovery(&found));
            return Ok(ExitCode::from(EXIT_SOME_FAILED));
        }
        (n, Some(p)) if p == 0 || p > n => {
            eprint!("{}", describe_discovery(&found));
            eprintln!("--pick {p}: choose a number from 1 to {n}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        (_, Some(p)) => &found.feeds[p - 1],
        (1, None) => &found.feeds[0],
        (n, None) => {
            eprint!("{}", describe_discovery(&found));
            eprintln!("{n} feeds found: run again with --pick N to choose one");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let folder = folder.map(|f| f.trim().to_string()).filter(|f| !f.is_empty());
    let new = crate::model::NewFeed { url: chosen.url.clone(), title: chosen.title.clone(), site_url: None, folder };
    let writer = DbThread::spawn("tidings-writer", store::open_write(db)?);
    let (feed_id, added) = writer.call(move |c| write::add_feed(c, &new, chrono::Utc::now().timestamp())).await?;
    let title = one_line(chosen.title.as_deref().unwrap_or(&chosen.url), 200);
    if !added {
        println!("Already subscribed to {title} ({})", one_line(&chosen.url, 500));
        return Ok(ExitCode::SUCCESS);
    }
    let refresher = Refresher::new(fetcher, writer, 1).with_forced_encodings(config.encoding.clone());
    let summary = refresher.run(Which::Feeds(vec![feed_id]), true, |_| {}).await?;
    println!("Subscribed to {title} ({}): {} entries", one_line(&chosen.url, 500), summary.new_entries);
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
                eprint!("\rRefreshing {n}/{total}");
                if n == total {
                    eprintln!();
                }
            }
        })
        .await?;
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
        });
        println!("{value}");
    } else {
        println!(
            "Refreshed {} feeds: {} updated ({} new entries), {} not modified, {} failed{}.",
            summary.feeds,
            summary.updated_feeds,
            summary.new_entries,
            summary.not_modified,
            failures.len(),
            if skipped.is_empty() { String::new() } else { format!(", {} left alone", skipped.len()) }
        );
        for (title, url, kind, message) in &failures {
            let at = if title == url { String::new() } else { format!(" <{}>", one_line(url, 500)) };
            println!("FAILED  {}{at} [{kind}]: {}", one_line(title, 200), one_line(message, 1000));
        }
        for (title, reason) in &skipped {
            println!("SKIPPED {}: {reason} (refresh --force tries it anyway)", one_line(title, 200));
        }
        for (title, url) in &summary.moved {
            println!("MOVED   {}: its address is now {}", one_line(title, 200), one_line(url, 500));
        }
    }
    Ok(if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
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
    if json {
        println!("{}", serde_json::to_string_pretty(&report.to_json())?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(if report.error.is_some() { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}
