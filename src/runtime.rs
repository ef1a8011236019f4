//! The reader's runtime: owns the state, the event inbox and the workers (store threads, refresher, renderer),
//! runs the effects [`crate::app::update`] asks for, and drives the terminal loop `draw → next event → update`.
//!
//! The loop never waits on the network or the disk: every effect is handed to a worker and its result comes
//! back through the inbox.

use crate::app::{self, Effect, Event, ListKey, State};
use crate::config::Config;
use crate::fetch::{FetchConfig, Fetcher};
use crate::refresh::Refresher;
use crate::store::{self, DbThread, StoreError, read, write};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::Backend;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::mpsc;

/// How to start the reader.
#[derive(Clone, Debug)]
pub struct Options {
    pub db: PathBuf,
    pub config: Config,
    /// Shown in the status bar once the reader opens (an import's summary, …).
    pub notice: Option<String>,
    /// Shown in a window over the panes when the reader opens (a full import report), when not empty.
    pub report: Vec<String>,
    /// The terminal size to start with.
    pub size: (u16, u16),
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Http(String),
}

/// Orders the reader's connection after the user's writes: a read asked for after a write sees it.
///
/// The writer and the reader are separate threads with separate connections, so without this a list read
/// could run before a "mark read" that was asked for earlier, and undo it on screen.
#[derive(Default)]
struct WriteBarrier {
    /// User writes handed to the writer (in the order [`crate::app::update`] asked for them).
    submitted: std::sync::atomic::AtomicU64,
    /// User writes the writer has finished.
    applied: std::sync::Mutex<u64>,
    changed: std::sync::Condvar,
}

impl WriteBarrier {
    fn submit(&self) {
        self.submitted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    fn applied_one(&self) {
        *self.applied.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.changed.notify_all();
    }

    /// The number of user writes a read asked for now must see.
    fn mark(&self) -> u64 {
        self.submitted.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Blocks (on the reader's thread) until `mark` writes are applied.
    fn wait_for(&self, mark: u64) {
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        while *applied < mark {
            applied = self.changed.wait(applied).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The workers that effects are handed to.
#[derive(Clone)]
pub struct Services {
    writer: DbThread,
    reader: DbThread,
    refresher: Refresher,
    inbox: mpsc::UnboundedSender<Event>,
    barrier: std::sync::Arc<WriteBarrier>,
    opener: Opener,
    fetcher: Fetcher,
}

/// What opens an address in the browser: the platform's opener, or what a test puts in its place.
pub type Opener = std::sync::Arc<dyn Fn(&str) -> std::io::Result<()> + Send + Sync>;

/// The platform's opener (`xdg-open`, `open`, `start`), detached, with the URL as an argument.
pub fn system_opener() -> Opener {
    std::sync::Arc::new(|url: &str| open::that_detached(url))
}

impl Services {
    /// Runs a read on the reader's thread once every user write asked for before it has been applied.
    fn read<F>(&self, f: F)
    where
        F: FnOnce(&mut rusqlite::Connection, u64) + Send + 'static,
    {
        let barrier = self.barrier.clone();
        let mark = barrier.mark();
        self.reader.submit(move |c| {
            barrier.wait_for(mark);
            f(c, mark);
        });
    }

    /// Runs a user write on the writer's thread, counted by the barrier.
    fn write<F>(&self, f: F)
    where
        F: FnOnce(&mut rusqlite::Connection) + Send + 'static,
    {
        let barrier = self.barrier.clone();
        barrier.submit();
        self.writer.submit(move |c| {
            f(c);
            barrier.applied_one();
        });
    }

    /// A user write whose only result is an error to report.
    fn store_write<F>(&self, f: F, what: &'static str)
    where
        F: FnOnce(&mut rusqlite::Connection) -> Result<(), StoreError> + Send + 'static,
    {
        let inbox = self.inbox.clone();
        self.write(move |c| {
            if let Err(e) = f(c) {
                let _ = inbox.send(Event::Error(format!("{what}: {e}")));
            }
        });
    }

    /// Hands one effect to its worker. Returns at once.
    pub fn run(&self, effect: Effect) {
        let inbox = self.inbox.clone();
        match effect {
            Effect::LoadFeeds => self.read(move |c, seen_writes| {
                let _ = inbox.send(match read::feeds(c).and_then(|feeds| Ok((feeds, read::folders(c)?))) {
                    Ok((feeds, folders)) => Event::FeedsLoaded { feeds, folders, seen_writes },
                    Err(e) => Event::Error(format!("cannot read the feed list: {e}")),
                });
            }),
            Effect::LoadEntries(list) => self.read(move |c, seen_writes| {
                let result = match list {
                    ListKey::Feed(id) => read::entries(c, id),
                    ListKey::Folder(id) => read::folder_entries(c, id),
                };
                let _ = inbox.send(match result {
                    Ok(entries) => Event::EntriesLoaded { list, entries, seen_writes },
                    Err(e) => Event::Error(format!("cannot read entries: {e}")),
                });
            }),
            Effect::LoadArticle(entry_id) => self.read(move |c, _| {
                let _ = inbox.send(match read::entry(c, entry_id) {
                    Ok(detail) => Event::ArticleLoaded { entry_id, detail: detail.map(Box::new) },
                    Err(e) => Event::Error(format!("cannot read the entry: {e}")),
                });
            }),
            Effect::RenderArticle { entry_id, html, width, base } => {
                tokio::task::spawn_blocking(move || {
                    let body = crate::render::render_article(&html, usize::from(width), base.as_deref());
                    let _ = inbox.send(Event::ArticleRendered { entry_id, width, body });
                });
            }
            Effect::OpenUrl(url) => {
                // The URL goes to the platform's opener as an argument, never through a shell; only web and
                // mail addresses get here (see app::open_url).
                if let Err(e) = (self.opener)(&url) {
                    let _ = inbox.send(Event::Error(format!("cannot open the browser: {e}")));
                }
            }
            Effect::SetRead { ids, read } => self.write(move |c| {
                if let Err(e) = write::set_read(c, &ids, read) {
                    let _ = inbox.send(Event::Error(format!("cannot save the read state: {e}")));
                }
            }),
            Effect::MarkAllRead(list) => self.write(move |c| {
                let result = match list {
                    ListKey::Feed(id) => write::mark_feed_read(c, id),
                    ListKey::Folder(id) => write::mark_folder_read(c, id),
                };
                if let Err(e) = result {
                    let _ = inbox.send(Event::Error(format!("cannot mark entries read: {e}")));
                }
            }),
            Effect::LoadFeedInfo(feed_id) => self.read(move |c, _| {
                let _ = inbox.send(match read::feed_info(c, feed_id) {
                    Ok(info) => Event::FeedInfoLoaded { feed_id, info: info.map(Box::new) },
                    Err(e) => Event::Error(format!("cannot read the feed's details: {e}")),
                });
            }),
            Effect::SetEncodingOverride { feed_id, label } => self.write(move |c| {
                if let Err(e) = write::set_encoding_override(c, feed_id, label.as_deref()) {
                    let _ = inbox.send(Event::Error(format!("cannot save the forced encoding: {e}")));
                }
            }),
            Effect::Discover(url) => {
                let fetcher = self.fetcher.clone();
                tokio::spawn(async move {
                    let found = crate::fetch::discovery::discover(&fetcher, &url).await;
                    let _ = inbox.send(Event::Discovered(Box::new(found)));
                });
            }
            Effect::AddFeed { url, title, folder } => self.write(move |c| {
                let shown = title.clone().unwrap_or_else(|| url.clone());
                let new = crate::model::NewFeed { url, title, site_url: None, folder };
                let _ = inbox.send(match write::add_feed(c, &new, chrono::Utc::now().timestamp()) {
                    Ok((feed_id, added)) => Event::FeedAdded { feed_id, added, title: shown },
                    Err(e) => Event::Error(format!("cannot add the feed: {e}")),
                });
            }),
            Effect::DeleteFeed(id) => self.store_write(move |c| write::delete_feed(c, id), "cannot delete the feed"),
            Effect::RenameFeed { feed_id, title } => {
                self.store_write(move |c| write::rename_feed(c, feed_id, title.as_deref()), "cannot rename the feed")
            }
            Effect::MoveFeed { feed_id, folder } => {
                self.store_write(move |c| write::move_feed(c, feed_id, folder.as_deref()), "cannot move the feed")
            }
            Effect::CreateFolder(name) => {
                self.store_write(move |c| write::create_folder(c, &name).map(|_| ()), "cannot create the folder")
            }
            Effect::RenameFolder { folder_id, name } => {
                self.store_write(move |c| write::rename_folder(c, folder_id, &name), "cannot rename the folder")
            }
            Effect::DeleteFolder(id) => {
                self.store_write(move |c| write::delete_folder(c, id), "cannot delete the folder")
            }
            Effect::SetCollapsed { folder_id, collapsed } => self.store_write(
                move |c| write::set_folder_collapsed(c, folder_id, collapsed),
                "cannot save the folder's state",
            ),
            Effect::LoadDue { interval_secs } => self.read(move |c, _| {
                let now = chrono::Utc::now().timestamp();
                let _ = inbox.send(match read::due_feeds(c, now, interval_secs) {
                    Ok(ids) => Event::DueFeeds(ids),
                    Err(e) => Event::Error(format!("cannot read which feeds are due: {e}")),
                });
            }),
            Effect::Refresh { ids, force } => {
                let refresher = self.refresher.clone();
                tokio::spawn(async move {
                    let report_to = inbox.clone();
                    let result = refresher.run(crate::refresh::Which::Feeds(ids), force, move |ev| {
                        let _ = report_to.send(Event::Refresh(ev));
                    });
                    if let Err(e) = result.await {
                        let _ = inbox.send(Event::Error(format!("refresh stopped: {e}")));
                    }
                });
            }
        }
    }
}

/// The reader: its state, its inbox and its workers. Generic over nothing; the terminal is passed to
/// [`App::run`], so tests drive the same code on ratatui's `TestBackend`.
pub struct App {
    pub state: State,
    services: Services,
    inbox: mpsc::UnboundedReceiver<Event>,
}

impl App {
    /// Opens the store and starts the workers. Must be called inside a tokio runtime.
    pub fn new(options: Options) -> Result<App, StartError> {
        let writer = DbThread::spawn("tidings-writer", store::open_write(&options.db)?);
        let reader = DbThread::spawn("tidings-reader", store::open_read(&options.db)?);
        let fetcher = Fetcher::new(FetchConfig::from(&options.config)).map_err(StartError::Http)?;
        let refresher = Refresher::new(fetcher.clone(), writer.clone(), options.config.concurrency)
            .with_per_host_limit(options.config.per_host_concurrency)
            .with_forced_encodings(options.config.encoding.clone());
        let (tx, rx) = mpsc::unbounded_channel();
        let mut state = State::new(options.size);
        state.message = options.notice;
        if !options.report.is_empty() {
            state.overlay =
                Some(crate::app::Overlay::Report { title: "Import".into(), lines: options.report, scroll: 0 });
        }
        state.refresh_when_loaded = options.config.refresh_on_startup;
        state.auto_refresh_secs = options.config.refresh_interval_secs();
        let services = Services {
            writer,
            reader,
            refresher,
            inbox: tx,
            barrier: Default::default(),
            opener: system_opener(),
            fetcher,
        };
        Ok(App { state, services, inbox: rx })
    }

    /// Replaces what opens addresses in the browser.
    pub fn with_opener(mut self, opener: Opener) -> App {
        self.services.opener = opener;
        self
    }

    /// A handle for sending events into the inbox (terminal input, ticks, tests).
    pub fn sender(&self) -> mpsc::UnboundedSender<Event> {
        self.services.inbox.clone()
    }

    /// Asks for the first feed list; everything else follows from the events.
    pub fn start(&mut self) {
        self.services.run(Effect::LoadFeeds);
    }

    /// Applies one event and starts the work it calls for.
    pub fn dispatch(&mut self, event: Event) {
        for effect in app::update(&mut self.state, event) {
            self.services.run(effect);
        }
    }

    /// Waits until every write asked for so far has been applied (the writer runs jobs in order).
    pub async fn flush_writes(&self) -> Result<(), StoreError> {
        self.services.writer.call(|_| Ok(())).await
    }

    /// Waits for the next event in the inbox.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.inbox.recv().await
    }

    /// Dispatches events until `done` holds for the state, or `limit` passes (an error naming what was awaited).
    pub async fn run_until(&mut self, limit: Duration, mut done: impl FnMut(&State) -> bool) -> Result<(), String> {
        let wait = async {
            while !done(&self.state) {
                match self.inbox.recv().await {
                    Some(ev) => self.dispatch(ev),
                    None => return Err("the inbox closed".to_string()),
                }
            }
            Ok(())
        };
        tokio::time::timeout(limit, wait).await.map_err(|_| format!("the state did not settle within {limit:?}"))?
    }

    /// The terminal loop: draw, wait for an event, apply it (and whatever else is already waiting), repeat
    /// until the user quits.
    pub async fn run<B: Backend>(&mut self, terminal: &mut Terminal<B>) -> std::io::Result<()>
    where
        B::Error: Into<std::io::Error>,
    {
        self.start();
        loop {
            terminal.draw(|frame| crate::ui::draw(frame, &self.state)).map_err(Into::into)?;
            let Some(event) = self.next_event().await else {
                break;
            };
            self.dispatch(event);
            // Apply what has piled up before drawing again, so a burst of worker events costs one frame.
            for _ in 0..512 {
                match self.inbox.try_recv() {
                    Ok(event) => self.dispatch(event),
                    Err(_) => break,
                }
            }
            if self.state.quit {
                break;
            }
        }
        Ok(())
    }
}

/// Runs the reader on the real terminal: raw mode and the alternate screen, restored on exit and on panic.
pub async fn run_in_terminal(options: Options) -> anyhow::Result<()> {
    let mut app = App::new(options)?;
    let mut terminal = ratatui::try_init()?;
    // ratatui's hook restores the terminal on any panic; a panic on a worker thread (caught there, and reported
    // as that feed's error) must neither restore the terminal under the running reader nor print over it.
    let restore_and_report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some("main") {
            restore_and_report(info);
        } else {
            tracing::error!("panic on thread {:?}: {info}", std::thread::current().name());
        }
    }));
    tracing::info!("reader started");
    let size = terminal.size()?;
    app.dispatch(Event::Resize(size.width, size.height));
    let input = spawn_terminal_input(app.sender());
    let ticks = spawn_ticks(app.sender());
    let result = app.run(&mut terminal).await;
    input.abort();
    ticks.abort();
    ratatui::restore();
    result?;
    Ok(())
}

/// Forwards terminal input (keys, resizes) into the inbox.
fn spawn_terminal_input(inbox: mpsc::UnboundedSender<Event>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut stream = crossterm::event::EventStream::new();
        while let Some(Ok(event)) = stream.next().await {
            let forwarded = match event {
                crossterm::event::Event::Key(key) => Event::Key(key),
                crossterm::event::Event::Resize(w, h) => Event::Resize(w, h),
                _ => continue,
            };
            if inbox.send(forwarded).is_err() {
                break;
            }
        }
    })
}

fn spawn_ticks(inbox: mpsc::UnboundedSender<Event>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut interval = tokio::time::interval(Duration::from_secs(1));
        loop {
            interval.tick().await;
            if inbox.send(Event::Tick(chrono::Utc::now().timestamp())).is_err() {
                break;
            }
        }
    })
}
