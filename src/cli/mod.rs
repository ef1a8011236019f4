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
use args::newsboat_flags;
pub use args::{Cli, Command};
use clap::Parser;
use failure::{LAST_PANIC, fail, init_logging, log_panics};
pub use manual::{completions, man_page};
use printed::Printed;
pub use printed::local_zone;
use std::io::Write;
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
mod args;
mod daemon;
mod discover;
mod download;
mod export;
mod failure;
mod health;
mod import;
mod inspect;
mod keys;
mod list;
mod manual;
mod printed;
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

/// Parses the arguments, runs the command, and turns the outcome into an exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse_from(newsboat_flags(std::env::args_os().collect()));
    let paths = match Paths::resolve(cli.config.as_deref(), cli.db.as_deref(), cli.log.as_deref()) {
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

/// Writes `text` to standard output: the whole of a command's answer.
fn print_whole(text: &str) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn run(cli: Cli, paths: &Paths) -> anyhow::Result<ExitCode> {
    // The manual and the completions describe the program, not a config: a broken config must not hide them.
    match &cli.command {
        Some(Command::Man) => return print_whole(&man_page()),
        Some(Command::Completions { shell }) => return print_whole(&completions(*shell)),
        _ => {}
    }
    // `import newsboat` writes the config file it is given: one that does not exist yet is made.
    let writes_config = matches!(&cli.command, Some(Command::Import { file, .. }) if file.as_os_str() == "newsboat");
    let config = Config::load(&paths.config, paths.config_explicit && !writes_config)?;
    if let Err(e) = init_logging(&paths.log)
        && cli.log.is_some()
    {
        note!("tidings: warning: cannot write the log to {}: {e}; going on without it", paths.log.display());
    }
    if cli.command.is_some() {
        for warning in &config.warnings {
            note!("tidings: warning: {warning}");
        }
    }
    let refreshing = matches!(cli.command, Some(Command::Refresh { .. }));
    if refreshing {
        crate::os::arena_per_thread();
    }
    // `tidings refresh` runs its requests on one thread (its writer, its checkpointer and the blocking pool, for long
    // documents, are threads of their own): its workers, one a core, woke each other every few answers. Alternating
    // with them on two cores, five rounds each: 200 hosts × 100 ms, an all-304 refresh took 201 ms of processor time
    // instead of 234 and 0.40 s instead of 0.43, a cold one 760 ms instead of 856 and 0.75 s instead of 0.80; one
    // host, a cold refresh 477 ms instead of 574 and 0.31 s instead of 0.38; a cold 4000 × 100 `--spread` on 200 hosts
    // (three rounds each) 3.1 s instead of 3.2, peaking 2 MB lower. The reader keeps its workers (its terminal loop
    // shares them), and so does the daemon, which answers the reader's socket while it refreshes (on one thread it
    // spent as much: 1000 feeds revalidated again and again for 20 s, three rounds each). A document up to
    // `READ_IN_PLACE_BYTES` is read on that one thread, pausing the requests for a millisecond or two.
    let runtime = if refreshing {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    }
    .context("starting the async runtime")?;

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
    // A command says what its imports did on standard error (the reader shows it in its own report): whole when
    // an outline failed, in a line when one was added, and nothing when every outline was there already (a config's
    // `import_opml`, read at every start, says nothing once it is in).
    if cli.command.is_some() {
        for report in &reports {
            if report.has_failures() {
                note_part!("{}", report.render());
            } else if !report.added.is_empty() || !report.discovered.is_empty() {
                note!("{}", report.one_line());
            }
        }
    }

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
            let download_dir = config.download_settings().dir;
            let report = crate::from_newsboat::import(&paths.db, &paths.config, home, &download_dir)?;
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
        Some(Command::Export { markdown: Some(dir), query, path, .. }) => {
            let template = path.unwrap_or_else(|| config.export_path.clone());
            export::markdown(&paths.db, &dir, query.as_deref(), &template)
        }
        Some(Command::Export { output, .. }) => export::run(&paths.db, output.as_deref()),
        Some(Command::Refresh { json, force, no_sync }) => {
            runtime.block_on(refresh::run(&paths.db, &config, json, force, !no_sync))
        }
        Some(Command::Sync { json }) => runtime.block_on(sync::run(&paths.db, &config, json)),
        Some(Command::Daemon { interval }) => {
            let ran = runtime.block_on(daemon::run(&paths.db, &config, interval));
            // A hook still running is stopped, not waited for (its delivery is not recorded done: the next run
            // makes it again).
            crate::process::stop_all();
            runtime.shutdown_timeout(std::time::Duration::from_secs(1));
            ran
        }
        Some(Command::Download { query, feed, ids, retry, json }) => {
            let asked = download::Asked { query, feed, ids, retry, json };
            runtime.block_on(download::run(&paths.db, &config, asked))
        }
        Some(Command::Downloads { json }) => download::list(&paths.db, json),
        Some(Command::Unread) => unread::run(&paths.db),
        Some(Command::Health { json }) => health::run(&paths.db, &config, json),
        Some(Command::Search { query, json, feed, unread }) => {
            search::run(&paths.db, &query.join(" "), json, feed.as_deref(), unread)
        }
        Some(Command::List { query, view, unread, starred, feed, ignored, json, after }) => {
            let asked = list::Asked {
                query: query.as_deref(),
                view: view.as_deref(),
                unread,
                starred,
                feed: feed.as_deref(),
                ignored,
                json,
                after: after.as_deref(),
            };
            list::run(&paths.db, &config, &asked)
        }
        Some(
            Command::Inspect { .. }
            | Command::Discover { .. }
            | Command::Keys { .. }
            | Command::Man
            | Command::Completions { .. },
        ) => {
            unreachable!("handled above")
        }
    }
}
