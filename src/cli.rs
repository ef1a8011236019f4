//! The command line: argument parsing and the headless commands (`import`, `export`, `refresh`, `unread`,
//! `inspect`). The binary is a thin shell around [`main`].

use crate::config::{Config, Paths};
use crate::fetch::{FetchConfig, FetchOutcome, Fetcher, Validators};
use crate::inspect::{Http, Report};
use crate::opml;
use crate::refresh::{RefreshEvent, Refresher};
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

    // Imports asked for by flag or config come first, whatever the command.
    let mut notices = Vec::new();
    let mut import_failed = false;
    for file in cli.opml.iter().chain(config.import_opml.iter()) {
        let report = import_file(&paths.db, file)?;
        import_failed |= report.has_failures();
        notices.push(report.one_line(file));
    }

    match cli.command {
        None => {
            let size = crossterm::terminal::size().unwrap_or((100, 30));
            let options = crate::runtime::Options {
                db: paths.db.clone(),
                config: config.clone(),
                notice: (!notices.is_empty()).then(|| notices.join("; ")),
                size,
            };
            runtime.block_on(crate::runtime::run_in_terminal(options))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Import { file }) => {
            let report = import_file(&paths.db, &file)?;
            print!("{}", report.render(&file));
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
        Some(Command::Refresh { json }) => runtime.block_on(refresh(&paths.db, &config, json)),
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
        Some(Command::Inspect { .. }) => unreachable!("handled above"),
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

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    pub added: Vec<String>,
    pub duplicates: Vec<String>,
    pub sites: Vec<String>,
    pub failed: Vec<opml::Rejected>,
}

impl ImportReport {
    pub fn has_failures(&self) -> bool {
        !self.failed.is_empty() || !self.sites.is_empty()
    }

    pub fn one_line(&self, file: &Path) -> String {
        let mut s = format!(
            "Imported {}: {} added, {} duplicates",
            file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            self.added.len(),
            self.duplicates.len()
        );
        if !self.failed.is_empty() || !self.sites.is_empty() {
            s.push_str(&format!(", {} failed (see `tidings import`)", self.failed.len() + self.sites.len()));
        }
        s
    }

    pub fn render(&self, file: &Path) -> String {
        let mut out = format!("Imported {}\n", file.display());
        out.push_str(&format!("  added       {}\n", self.added.len()));
        out.push_str(&format!("  duplicates  {}\n", self.duplicates.len()));
        out.push_str(&format!("  failed      {}\n", self.failed.len() + self.sites.len()));
        for r in &self.failed {
            out.push_str(&format!("    {}: {}\n", one_line(&r.outline, 300), one_line(&r.reason, 300)));
        }
        for site in &self.sites {
            out.push_str(&format!(
                "    {}: names a web site, not a feed; add it with `tidings add URL`\n",
                one_line(site, 300)
            ));
        }
        out
    }
}

/// Reads an OPML file and adds its subscriptions in one transaction. A file that is not OPML is an error
/// naming it; nothing is imported then.
pub fn import_file(db: &Path, file: &Path) -> anyhow::Result<ImportReport> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read OPML file {}", file.display()))?;
    let text = crate::decode::decode(&bytes, None, None)
        .map(|d| d.text)
        .map_err(|e| anyhow::anyhow!("{}: not an OPML file: {e}", file.display()))?;
    let doc = opml::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let mut conn = store::open_write(db)?;
    let outcome = write::import_feeds(&mut conn, &doc.feeds, chrono::Utc::now().timestamp())?;
    let mut duplicates = outcome.duplicates;
    duplicates.extend(doc.duplicates);
    Ok(ImportReport {
        added: outcome.added,
        duplicates,
        sites: doc.sites.into_iter().map(|s| s.url).collect(),
        failed: doc.rejected,
    })
}

async fn refresh(db: &Path, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let writer = DbThread::spawn("tidings-writer", store::open_write(db)?);
    let fetcher = Fetcher::new(FetchConfig::from(config)).map_err(anyhow::Error::msg)?;
    let refresher =
        Refresher::new(fetcher, writer.clone(), config.concurrency).with_forced_encodings(config.encoding.clone());
    let total = writer.call(|c| Ok(read::refresh_targets(c, None)?.len())).await?;
    let progress = std::io::stderr().is_terminal();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let summary = refresher
        .run(None, move |ev: RefreshEvent| {
            if ev.is_final() && progress {
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                eprint!("\rRefreshing {n}/{total}");
                if n == total {
                    eprintln!();
                }
            }
        })
        .await?;
    let failures: Vec<(String, String, String, String)> = summary
        .failed
        .iter()
        .filter_map(|ev| match ev {
            RefreshEvent::Failed { title, url, kind, message, .. } => {
                Some((title.clone(), url.clone(), kind.clone(), message.clone()))
            }
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
        });
        println!("{value}");
    } else {
        println!(
            "Refreshed {} feeds: {} updated ({} new entries), {} not modified, {} failed.",
            summary.feeds,
            summary.updated_feeds,
            summary.new_entries,
            summary.not_modified,
            failures.len()
        );
        for (title, url, kind, message) in &failures {
            let at = if title == url { String::new() } else { format!(" <{}>", one_line(url, 500)) };
            println!("FAILED  {}{at} [{kind}]: {}", one_line(title, 200), one_line(message, 1000));
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
