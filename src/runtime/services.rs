//! The workers effects are handed to: the store's reader and writer threads, the refresh pipeline, the renderer
//! and discovery. Each effect starts at once and its result comes back through the inbox; a worker that dies is
//! reported as a failed event, so the reader never waits for an answer that will not come.

use super::opener::{Launch, Launcher};
use crate::app::{Effect, Event, ListKey, WriteFailure, WriteId};
use crate::fetch::Fetcher;
use crate::model::{EntryId, EntryRef, EntryRow, FeedId, ListQuery, ListSource, RefreshEvent, Sort, UserWrite};
use crate::panics::{join_message, panic_message};
use crate::refresh::{Observer, Pipeline};
use crate::store::{self, DbThread, StoreError, entries, feeds, folders, lists};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc;

/// Orders the reader's connection after the user's writes: a read asked for after a write sees it.
///
/// The writer and the reader are separate threads with separate connections, so without this a list read
/// could run before a "mark read" that was asked for earlier, and undo it on screen. Writes carry their number
/// ([`WriteId`]); a read waits for the last one handed to the writer before it, and says which it saw.
#[derive(Default)]
pub(super) struct WriteBarrier {
    /// The last write handed to the writer (they go in the order the state machine numbered them).
    submitted: std::sync::Mutex<WriteId>,
    /// The last write the writer has finished (applied, or refused).
    applied: std::sync::Mutex<WriteId>,
    changed: std::sync::Condvar,
    /// Told each time a read starts waiting for a write (for the barrier's own test).
    #[cfg(test)]
    pub(super) read_waits: tokio::sync::Notify,
}

impl WriteBarrier {
    fn submit(&self, id: WriteId) {
        let mut submitted = self.submitted.lock().unwrap_or_else(|e| e.into_inner());
        *submitted = (*submitted).max(id);
    }

    fn applied(&self, id: WriteId) {
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        *applied = (*applied).max(id);
        self.changed.notify_all();
    }

    /// The write a read asked for now must see.
    fn mark(&self) -> WriteId {
        *self.submitted.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Blocks (on the reader's thread) until write `id` is applied.
    fn wait_for(&self, id: WriteId) {
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        #[cfg(test)]
        if *applied < id {
            self.read_waits.notify_one();
        }
        while *applied < id {
            applied = self.changed.wait(applied).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The workers that effects are handed to.
#[derive(Clone)]
pub(super) struct Services {
    pub writer: DbThread,
    pub reader: DbThread,
    pub pipeline: Pipeline,
    pub inbox: mpsc::UnboundedSender<Event>,
    pub barrier: Arc<WriteBarrier>,
    pub launcher: Arc<Launcher>,
    pub fetcher: Fetcher,
    /// The accounts of the config, to sync.
    pub accounts: Arc<Vec<crate::sync::AccountConfig>>,
    /// The `bookmark_command`, and the `copy_command`.
    pub bookmark: Option<crate::command::CommandLine>,
    pub copy: Option<crate::command::CommandLine>,
    /// A read connection of its own for the saved views' counts.
    pub counter: DbThread,
    /// The config file, which saving a view and a feed's setting edit.
    pub config_path: Option<std::path::PathBuf>,
    /// The feeds' settings in the config (`[feeds."URL"]`), as last read, for the feed info.
    pub feed_configs: Arc<std::sync::RwLock<std::collections::BTreeMap<String, crate::config::FeedConfig>>>,
    /// The database's file (to name who holds it when a write waits).
    pub db: Arc<std::path::PathBuf>,
    /// Set to cancel the render of the article on screen (see [`Effect::RenderArticle`]).
    pub render: Arc<std::sync::Mutex<Option<Arc<AtomicBool>>>>,
    /// The article's pictures; `None` while they are off.
    pub pictures: Option<crate::pictures::Pictures>,
}

impl Services {
    /// Stops the article render still running, if one is (the reader quits).
    pub(super) fn cancel_render(&self) {
        if let Some(cancel) = self.render.lock().unwrap_or_else(|e| e.into_inner()).take() {
            cancel.store(true, Ordering::Relaxed);
        }
    }
}

impl Services {
    /// Runs a read on the reader's thread once every user write asked for before it has been applied.
    fn read<F>(&self, f: F)
    where
        F: FnOnce(&mut rusqlite::Connection, WriteId) + Send + 'static,
    {
        let barrier = self.barrier.clone();
        let mark = barrier.mark();
        self.reader.submit(move |c| {
            barrier.wait_for(mark);
            f(c, mark);
        });
    }

    /// Performs the user's write `id` on the writer's thread through the store's one write path; its outcome
    /// comes back as [`Event::Written`].
    fn write(&self, id: WriteId, write: UserWrite) {
        let barrier = self.barrier.clone();
        let inbox = self.inbox.clone();
        let db = self.db.clone();
        barrier.submit(id);
        self.writer.submit(move |c| {
            let outcome = store::apply(c, &write, chrono::Utc::now().timestamp()).map_err(|e| {
                let retry = e.may_work_later();
                let holders = if retry { store::holders(&db) } else { Vec::new() };
                let message =
                    if holders.is_empty() { e.to_string() } else { format!("{e}: {} holds it", holders.join(", ")) };
                tracing::warn!("{}: {message}", write.describe());
                WriteFailure { message, retry }
            });
            let _ = inbox.send(Event::Written { id, outcome });
            barrier.applied(id);
        });
    }

    /// Reads a list on the reader's thread and sends it (or why it could not be read) to the inbox.
    fn load_entries(&self, list: ListKey, source: ListSource, order: Option<(Sort, bool)>, keep: Option<EntryId>) {
        let inbox = self.inbox.clone();
        self.read(move |c, seen| {
            let _ = inbox.send(match load_list(c, source, order, keep) {
                Ok((refs, rows, order)) => Event::EntriesLoaded { list, refs, rows, order, keep, seen },
                Err(message) => Event::EntriesFailed { list, message },
            });
        });
    }

    /// Opens `url` with `launcher` (the reader's, or the browser of the feed on screen): the URL goes to the
    /// program as one argument, never through a shell; only web and mail addresses get here (see
    /// app::article::open_url). Terminal programs are the loop's to run.
    pub(super) fn open(&self, launcher: &Launcher, url: &str, kind: crate::app::OpenKind) {
        let inbox = self.inbox.clone();
        match launcher.launch(url, kind) {
            Launch::Detached(command) | Launch::Foreground(command) => start_detached(command, inbox),
            Launch::Platform(url) => {
                if let Err(e) = open::that_detached(&url) {
                    let _ = inbox.send(Event::Error(format!(
                        "cannot open the browser: {e}; set `browser` in the config (for example \"firefox %u\")"
                    )));
                }
            }
        }
    }

    /// Hands one effect to its worker. Returns at once. [`Effect::Suspend`] belongs to the terminal loop.
    pub(super) fn run(&self, effect: Effect) {
        let inbox = self.inbox.clone();
        match effect {
            Effect::LoadFeeds => self.read(move |c, seen| {
                let result =
                    (|| Ok::<_, StoreError>((feeds::feeds(c)?, folders::folders(c)?, lists::view_counts(c)?)))();
                let _ = inbox.send(match result {
                    Ok((feeds, folders, views)) => Event::FeedsLoaded { feeds, folders, views, seen },
                    Err(e) => Event::Error(format!("cannot read the feed list: {e}")),
                });
            }),
            Effect::LoadEntries {
                list,
                source: source @ (ListSource::Search { .. } | ListSource::Query { .. }),
                order,
                keep,
            } => {
                // A search sees every entry stored so far: what is not indexed yet is indexed first.
                let this = self.clone();
                tokio::spawn(async move {
                    if let Err(e) = this.pipeline.index().await {
                        let message = format!("cannot index new entries, so the results may miss some: {e}");
                        let _ = this.inbox.send(Event::Error(message));
                    }
                    this.load_entries(list, source, order, keep);
                });
            }
            Effect::LoadEntries { list, source, order, keep } => self.load_entries(list, source, order, keep),
            Effect::LoadRows { list, ids } => self.read(move |c, _| {
                let _ = inbox.send(match entries::entry_rows(c, &ids) {
                    Ok(rows) => Event::RowsLoaded { list, rows },
                    Err(e) => Event::Error(format!("cannot read entries: {e}")),
                });
            }),
            Effect::LoadArticle(entry_id) => self.read(move |c, _| {
                let _ = inbox.send(match entries::entry(c, entry_id) {
                    Ok(detail) => Event::ArticleLoaded { entry_id, detail: detail.map(Box::new) },
                    Err(e) => Event::ArticleFailed { entry_id, message: format!("cannot read the entry: {e}") },
                });
            }),
            Effect::RenderArticle { entry_id, html, width, base } => {
                // The article on screen is the only one wanted: a render still running for another entry or
                // width is cancelled, so opening and leaving a heavy article never stacks renders.
                let cancel = Arc::new(AtomicBool::new(false));
                if let Some(before) = self.render.lock().unwrap_or_else(|e| e.into_inner()).replace(cancel.clone()) {
                    before.store(true, Ordering::Relaxed);
                }
                tokio::task::spawn_blocking(move || {
                    // A renderer that panics on some document must not leave "Rendering…" on screen forever.
                    let rendered = std::panic::catch_unwind(|| {
                        crate::render::render_article_cancellable(&html, usize::from(width), base.as_deref(), &cancel)
                    });
                    let body = match rendered {
                        Ok(Ok(body)) => Ok(body),
                        // Not wanted any more: the render asked for after it answers instead.
                        Ok(Err(crate::render::Cancelled)) => return,
                        Err(panic) => Err(format!("the renderer failed: {}", panic_message(&*panic))),
                    };
                    let _ = inbox.send(Event::ArticleRendered { entry_id, width, body });
                });
            }
            Effect::Open { url, kind } => self.open(&self.launcher.clone(), &url, kind),
            Effect::Write { id, write } => self.write(id, write),
            Effect::SaveView { name, query } => {
                let path = self.config_path.clone();
                tokio::task::spawn_blocking(move || {
                    let outcome = match path {
                        Some(path) => crate::config::edit::append_view(&path, &name, &query).map_err(|e| e.to_string()),
                        None => Err("there is no config file to save it in".to_string()),
                    };
                    let _ = inbox.send(Event::ViewSaved { name, query, outcome });
                });
            }
            Effect::CountViews(views) => {
                // On a connection and thread of their own: counting views never delays a list or a key.
                let counter = self.counter.clone();
                let barrier = self.barrier.clone();
                let mark = barrier.mark();
                counter.submit(move |c| {
                    barrier.wait_for(mark);
                    let counts = views
                        .into_iter()
                        .map(|(index, query)| (index, lists::query_unread_count(c, &query).map_err(|e| e.to_string())))
                        .collect();
                    let _ = inbox.send(Event::ViewsCounted(counts));
                });
            }
            Effect::LoadFeedInfo(feed_id) => {
                let configs = self.feed_configs.clone();
                self.read(move |c, _| {
                    let _ = inbox.send(match feeds::feed_info(c, feed_id) {
                        Ok(info) => {
                            let info = info.map(|mut info| {
                                let configs = configs.read().unwrap_or_else(|e| e.into_inner());
                                info.settings = configs.get(&info.row.url).map(setting_lines).unwrap_or_default();
                                Box::new(info)
                            });
                            Event::FeedInfoLoaded { feed_id, info }
                        }
                        Err(e) => Event::Error(format!("cannot read the feed's details: {e}")),
                    });
                });
            }
            Effect::SetFeedSetting { feed_id, url, setting } => {
                let (path, writer, launcher, configs, pipeline) = (
                    self.config_path.clone(),
                    self.writer.clone(),
                    self.launcher.clone(),
                    self.feed_configs.clone(),
                    self.pipeline.clone(),
                );
                tokio::spawn(async move {
                    let line = setting.clone();
                    let edited = tokio::task::spawn_blocking(move || edit_setting(path, &url, &line)).await;
                    let outcome = match edited.map_err(join_message).and_then(|r| r) {
                        Ok(config) => {
                            let (default, settings) = config.feed_settings();
                            launcher.set_feeds(config.feed_browsers());
                            // Retention holds at once: what it no longer keeps goes now, not at the next start.
                            pipeline.set_retention(config.retention());
                            *configs.write().unwrap_or_else(|e| e.into_inner()) = config.feeds;
                            writer
                                .call(move |c| feeds::apply_settings(c, &default, &settings))
                                .await
                                .map_err(|e| format!("saved in the config, but not taken into use: {e}"))
                        }
                        Err(why) => Err(why),
                    };
                    let purge = outcome.is_ok();
                    let _ = inbox.send(Event::FeedSettingSaved { feed_id, setting, outcome });
                    if purge {
                        let (purged, indexed) = pipeline.upkeep().await;
                        report_upkeep(&inbox, Ok(0), purged, indexed);
                    }
                });
            }
            Effect::Discover { request, url } => {
                let fetcher = self.fetcher.clone();
                let task = tokio::spawn(async move { crate::fetch::discovery::discover(&fetcher, &url).await });
                tokio::spawn(async move {
                    let discovery = match task.await {
                        Ok(found) => found,
                        Err(e) => crate::model::Discovery {
                            error: Some(format!("discovery failed ({}); please report this address", join_message(e))),
                            ..Default::default()
                        },
                    };
                    let _ = inbox.send(Event::Discovered { request, discovery: Box::new(discovery) });
                });
            }
            Effect::LoadDue { now, interval_secs } => self.read(move |c, _| {
                let _ = inbox.send(match feeds::due_feeds(c, now, interval_secs) {
                    Ok(ids) => Event::DueFeeds(ids),
                    Err(e) => Event::Error(format!("cannot read which feeds are due: {e}")),
                });
            }),
            Effect::Refresh { batch, ids, force } => {
                let pipeline = self.pipeline.clone();
                let observer = Arc::new(ToInbox { inbox: inbox.clone(), batch, asked: ids.clone() });
                tokio::spawn(async move {
                    let outcome = pipeline.run(crate::refresh::Which::Feeds(ids), force, observer).await;
                    report_upkeep(&inbox, outcome.full_texts, outcome.purged, outcome.indexed);
                    if let Err(e) = outcome.notified {
                        let _ = inbox.send(Event::Error(e));
                    }
                });
            }
            Effect::Sync(names) => {
                for name in names {
                    let Some(account) = self.accounts.iter().find(|a| a.name == name).cloned() else { continue };
                    let (fetcher, writer, pipeline, inbox) =
                        (self.fetcher.clone(), self.writer.clone(), self.pipeline.clone(), inbox.clone());
                    tokio::spawn(async move {
                        let now = chrono::Utc::now().timestamp();
                        let newest = pipeline.newest_entry().await;
                        let synced = crate::sync::sync(&account, &fetcher, &writer, now).await;
                        if synced.as_ref().is_ok_and(|r| r.new > 0) {
                            // What arrived is judged by the kill rules, then told of.
                            let _ = pipeline.index().await;
                            let _ = pipeline.apply_rules().await;
                            if let Err(e) = pipeline.notify_since(newest).await {
                                let _ = inbox.send(Event::Error(e));
                            }
                        }
                        let (said, changed) = match synced {
                            Ok(report) => {
                                let changed = report.new
                                    + report.read_changed
                                    + report.starred_changed
                                    + report.sent
                                    + report.subscriptions_added
                                    + report.subscriptions_changed
                                    + report.subscriptions_removed
                                    > 0;
                                if report.new > 0 {
                                    // What arrived is found by a search at once.
                                    let _ = pipeline.index().await;
                                }
                                (Ok(report.line()), changed)
                            }
                            Err(e) => (Err(e.to_string()), false),
                        };
                        let _ = inbox.send(Event::Synced { account: account.name, said, changed });
                    });
                }
            }
            Effect::FetchFullText { entry_id, url } => {
                let pipeline = self.pipeline.clone();
                tokio::spawn(async move {
                    let result = pipeline.full_text().fetch(entry_id, &url).await;
                    let _ = inbox.send(Event::FullTextFetched { entry_id, result });
                });
            }
            Effect::Pipe { words, input, .. } => {
                let mut command = std::process::Command::new(&words[0]);
                command.args(&words[1..]);
                run_piped(command, input, PIPE_LIMITS, inbox);
            }
            Effect::Save { path, text, overwrite } => {
                tokio::task::spawn_blocking(move || {
                    let _ = inbox.send(match save(&path, &text, overwrite) {
                        Ok(shown) => Event::Notice(format!("Saved the article to {shown}")),
                        Err(e) => Event::Error(e),
                    });
                });
            }
            Effect::Copy(text) => {
                // Without a copy_command, the terminal loop copies (OSC 52).
                if let Some(line) = &self.copy {
                    let mut command = std::process::Command::new(line.program());
                    command.args(&line.words[1..]);
                    run_piped(command, text, COPY_LIMITS, inbox);
                }
            }
            Effect::Bookmark { url, title } => {
                let Some(line) = &self.bookmark else { return };
                // The address and the title are data wherever their marks stand (see `command`); a command without
                // either gets both, in that order.
                let argv = line.argv(&[("%u", &url), ("%t", &title)], &[&url, &title]);
                let mut command = std::process::Command::new(&argv[0]);
                command.args(&argv[1..]);
                start_detached(command, inbox);
            }
            Effect::FindDatabaseHolders => {
                let db = self.db.clone();
                tokio::task::spawn_blocking(move || {
                    let holders = store::holders(&db);
                    if !holders.is_empty() {
                        tracing::info!("quitting waits for the database, held by {}", holders.join(", "));
                    }
                    let _ = inbox.send(Event::DatabaseHolders(holders));
                });
            }
            Effect::LoadPicture { url, feed_url } => match &self.pictures {
                Some(pictures) => pictures.load(url, feed_url, inbox),
                None => {
                    let _ = inbox.send(Event::PictureLoaded { url, result: Err("pictures are off".into()) });
                }
            },
            Effect::PreparePicture { url, cols, rows } => match &self.pictures {
                Some(pictures) => pictures.prepare(url, (cols, rows), inbox),
                None => {
                    let result = Err("pictures are off".into());
                    let _ = inbox.send(Event::PicturePrepared { url, size: (cols, rows), result });
                }
            },
            Effect::Suspend => {}
        }
    }
}

/// Runs a command with `input` on its standard input, off the terminal and bounded (see [`crate::process`]);
/// says how it ended (its first line of output, or its error).
fn run_piped(
    command: std::process::Command,
    input: String,
    limits: crate::process::Limits,
    inbox: mpsc::UnboundedSender<Event>,
) {
    let program = command.get_program().to_string_lossy().into_owned();
    tokio::task::spawn_blocking(move || {
        let said = match crate::process::run(command, input.into_bytes(), limits) {
            Ok(out) if out.status.success() => {
                let first = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").to_string();
                let first = crate::sanitize::one_line(&first, 200);
                Event::Notice(if first.is_empty() {
                    format!("{program} is done")
                } else {
                    format!("{program}: {first}")
                })
            }
            Ok(out) => {
                let err = out.said();
                Event::Error(format!(
                    "{program} ended with {}{}",
                    out.status,
                    if err.is_empty() { String::new() } else { format!(": {err}") }
                ))
            }
            Err(e) => Event::Error(e.to_string()),
        };
        let _ = inbox.send(said);
    });
}

/// A `:pipe` into a program: it may take a while (mail, a converter), and what it prints is only shown as a line.
const PIPE_LIMITS: crate::process::Limits =
    crate::process::Limits { deadline: std::time::Duration::from_secs(300), output: 64 * 1024 };
/// The clipboard's `copy_command`.
const COPY_LIMITS: crate::process::Limits =
    crate::process::Limits { deadline: std::time::Duration::from_secs(10), output: 4 * 1024 };

/// Writes the article's text to `path` (`~` is the home folder); an existing file only with `overwrite`.
fn save(path: &str, text: &str, overwrite: bool) -> Result<String, String> {
    let path = match path.strip_prefix("~/") {
        Some(rest) => match directories::BaseDirs::new() {
            Some(base) => base.home_dir().join(rest),
            None => std::path::PathBuf::from(path),
        },
        None => std::path::PathBuf::from(path),
    };
    let shown = path.display().to_string();
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if overwrite {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    use std::io::Write;
    match options.open(&path) {
        Ok(mut file) => file.write_all(text.as_bytes()).map_err(|e| format!("cannot write {shown}: {e}"))?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(format!("{shown} exists: :save! {shown} replaces it"));
        }
        Err(e) => return Err(format!("cannot write {shown}: {e}")),
    }
    Ok(shown)
}

/// Tells the reader how a refresh goes: each feed's events, then the feeds it did not report on (when its task
/// died), then each page fetched in full.
struct ToInbox {
    inbox: mpsc::UnboundedSender<Event>,
    batch: u64,
    asked: Vec<FeedId>,
}

impl Observer for ToInbox {
    fn feed(&self, event: RefreshEvent) {
        let _ = self.inbox.send(Event::Refresh(event));
    }

    fn feeds_done(&self, reason: &str) {
        // Whatever happened to the refresh, the feeds it did not report on are released: the state machine
        // counts those still waiting as failed, so "Refreshing n/m" always ends.
        let (batch, ids, reason) = (self.batch, self.asked.clone(), reason.to_string());
        let _ = self.inbox.send(Event::RefreshStopped { batch, ids, reason });
    }

    fn full_text(&self, entry_id: EntryId, result: &Result<String, String>) {
        let _ = self.inbox.send(Event::FullTextFetched { entry_id, result: result.clone() });
    }
}

/// Says what the refresh's last steps did: entries purged (the lists are read again), or why a step stopped.
pub(super) fn report_upkeep(
    inbox: &mpsc::UnboundedSender<Event>,
    full_texts: Result<usize, StoreError>,
    purged: Result<usize, StoreError>,
    indexed: Result<usize, StoreError>,
) {
    if let Err(e) = full_texts {
        let _ = inbox.send(Event::Error(format!("cannot fetch full articles: {e}")));
    }
    match (purged, indexed) {
        (Ok(0), Ok(_)) => {}
        (Ok(entries), Ok(_)) => {
            let _ = inbox.send(Event::Purged { entries });
        }
        (Err(e), _) | (_, Err(e)) => {
            let _ = inbox.send(Event::Error(format!(
                "cannot purge old entries or index new ones for search: {e}; the next refresh tries again"
            )));
        }
    }
}

/// Starts a graphical program on its own (no terminal), and reports it if it cannot start or fails.
/// A feed's settings as the feed info shows them: `key = value` lines.
fn setting_lines(config: &crate::config::FeedConfig) -> Vec<String> {
    toml::to_string(config).unwrap_or_default().lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
}

/// Sets (`key = value`, a TOML value) or removes (`key` alone, or `key =`) one setting of the feed at `url` in
/// the config file, and reads the config again: what it now says.
fn edit_setting(path: Option<std::path::PathBuf>, url: &str, setting: &str) -> Result<crate::config::Config, String> {
    let Some(path) = path else { return Err("there is no config file to save it in".into()) };
    let (key, value) = match setting.split_once('=') {
        Some((key, value)) => (key.trim(), value.trim()),
        None => (setting.trim(), ""),
    };
    let value = if value.is_empty() {
        None
    } else {
        let doc: toml_edit::DocumentMut = format!("v = {value}").parse().map_err(|_| {
            format!("{value} is not a value: a number (15), true or false, or text in quotes (\"w3m %u\")")
        })?;
        doc.get("v").and_then(|v| v.as_value()).cloned()
    };
    crate::config::edit::set_feed_setting(&path, url, key, value).map_err(|e| e.to_string())?;
    crate::config::Config::load(&path, true).map_err(|e| e.to_string())
}

fn start_detached(mut command: std::process::Command, inbox: mpsc::UnboundedSender<Event>) {
    use std::process::Stdio;
    let program = command.get_program().to_string_lossy().into_owned();
    match command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn() {
        Ok(mut child) => {
            // Reaped on a thread of its own, so no zombie is left and a failure is still heard of.
            std::thread::spawn(move || {
                if let Ok(status) = child.wait()
                    && !status.success()
                {
                    let _ = inbox.send(Event::Error(format!("{program} ended with {status}")));
                }
            });
        }
        Err(e) => {
            let _ = inbox
                .send(Event::Error(format!("cannot start {program}: {e}; check `browser` and `player` in the config")));
        }
    }
}

/// Rows read with a list: this many before the kept entry, and in all.
const FIRST_ROWS_BEFORE: usize = 100;
const FIRST_ROWS: usize = 300;

/// A list as read: its refs, the rows around the kept entry, and the order they are in.
type LoadedList = (Vec<EntryRef>, Vec<EntryRow>, (Sort, bool));

/// A list's refs in its order (the one given, or the one remembered for it), and the rows around `keep`.
fn load_list(
    c: &mut rusqlite::Connection,
    source: ListSource,
    order: Option<(Sort, bool)>,
    keep: Option<EntryId>,
) -> Result<LoadedList, String> {
    let fail = |e: StoreError| format!("cannot read entries: {e}");
    let (sort, unread_only) = match order {
        Some(order) => order,
        None => {
            let setting = lists::list_setting(c, &lists::list_key(&source)).map_err(fail)?.unwrap_or_default();
            (setting.sort, setting.unread_only)
        }
    };
    // A search's query may mean nothing: its message says what to type instead.
    let refs = lists::entry_refs(c, &ListQuery { source, sort, unread_only }).map_err(|e| match e {
        StoreError::Query(q) => format!("search: {q}"),
        e => fail(e),
    })?;
    let at = keep.and_then(|id| refs.iter().position(|r| r.id == id)).unwrap_or(0);
    let ids: Vec<EntryId> =
        refs.iter().skip(at.saturating_sub(FIRST_ROWS_BEFORE)).take(FIRST_ROWS).map(|r| r.id).collect();
    let rows = entries::entry_rows(c, &ids).map_err(fail)?;
    Ok((refs, rows, (sort, unread_only)))
}
