//! The reader's runtime: owns the [`State`], the event inbox and the workers (`services`), runs the effects
//! [`crate::app::update`] asks for, and drives the terminal loop `draw → next event → update`. The loop never
//! waits on the network or the disk: every effect is handed to a worker and its result comes back through the
//! inbox. [`terminal`] is the real terminal: raw mode, input, ticks, and giving the terminal back on Ctrl-Z.

pub mod opener;
mod outside;
mod services;
pub mod terminal;

use crate::app::{self, Effect, Event, State};
use crate::config::Config;
use crate::fetch::Fetcher;
use crate::refresh::Upkeep;
use crate::store::{self, DbThread, StoreError};
use crate::ui::Theme;
use ratatui::Terminal;
use ratatui::backend::Backend;
use services::Services;
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
    /// The zone dates are shown in: the system's for a person, a fixed one for tests.
    pub zone: crate::clock::Zone,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Http(String),
}

/// What the terminal loop needs from the terminal besides drawing.
pub trait Host {
    /// Gives the terminal back to the shell until the user resumes tidings (Ctrl-Z), then takes it again.
    fn suspend(&mut self) -> std::io::Result<()>;

    /// Runs a terminal program (w3m, mpv…) with the terminal to itself until it exits.
    fn run_foreground(&mut self, command: std::process::Command) -> std::io::Result<std::process::ExitStatus>;

    /// Runs a terminal program (a pager) with `input` on its standard input and the terminal to itself.
    fn run_piped(
        &mut self,
        mut command: std::process::Command,
        input: &str,
    ) -> std::io::Result<std::process::ExitStatus> {
        command.stdin(std::process::Stdio::piped());
        self.run_foreground_with(command, input)
    }

    /// [`Host::run_foreground`] with `input` written to the program's standard input.
    fn run_foreground_with(
        &mut self,
        command: std::process::Command,
        input: &str,
    ) -> std::io::Result<std::process::ExitStatus>;

    /// Puts `text` on the clipboard through the terminal (OSC 52).
    fn copy_to_clipboard(&mut self, text: &str) -> std::io::Result<()>;

    /// Sets the terminal window's title (one line, no control characters).
    fn set_title(&mut self, _title: &str) -> std::io::Result<()> {
        Ok(())
    }
}

/// Starts `command` with `input` on its standard input and waits for it.
pub fn run_with_input(mut command: std::process::Command, input: &str) -> std::io::Result<std::process::ExitStatus> {
    use std::io::Write;
    command.stdin(std::process::Stdio::piped());
    let mut child = command.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // From a thread of its own: a program that reads nothing until it is done (or never) cannot hold the
        // reader; one that stops reading early (a pager quit at once) closes the pipe, which is not an error.
        let input = input.to_string();
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    child.wait()
}

/// The OSC 52 sequence that asks the terminal to put `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    format!("\x1b]52;c;{}\x07", base64::engine::general_purpose::STANDARD.encode(text))
}

/// A host with no terminal to hand over (tests): suspending only counts, programs run with no terminal.
#[derive(Debug, Default)]
pub struct NoHost {
    /// How many times the reader asked to suspend.
    pub suspended: usize,
    /// The programs run in the foreground, as program and arguments.
    pub ran: Vec<Vec<String>>,
    /// What was put on the clipboard through the terminal.
    pub copied: Vec<String>,
    /// The window titles set, in order.
    pub titles: Vec<String>,
}

impl Host for NoHost {
    fn suspend(&mut self) -> std::io::Result<()> {
        self.suspended += 1;
        Ok(())
    }

    fn run_foreground(&mut self, mut command: std::process::Command) -> std::io::Result<std::process::ExitStatus> {
        let words = std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        self.ran.push(words);
        command.stdin(std::process::Stdio::null()).status()
    }

    fn run_foreground_with(
        &mut self,
        command: std::process::Command,
        input: &str,
    ) -> std::io::Result<std::process::ExitStatus> {
        let words = std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        self.ran.push(words);
        run_with_input(command, input)
    }

    fn copy_to_clipboard(&mut self, text: &str) -> std::io::Result<()> {
        self.copied.push(text.to_string());
        Ok(())
    }

    fn set_title(&mut self, title: &str) -> std::io::Result<()> {
        self.titles.push(title.to_string());
        Ok(())
    }
}

/// The reader: its state, its inbox and its workers. The terminal is passed to [`Reader::run`], so tests drive
/// the same code on ratatui's `TestBackend`.
pub struct Reader {
    pub state: State,
    pub theme: Theme,
    services: Services,
    inbox: mpsc::UnboundedReceiver<Event>,
    /// Effects only the terminal loop can carry out (suspending, running a terminal program), in order.
    for_terminal: Vec<Effect>,
    launcher: std::sync::Arc<opener::Launcher>,
    /// The window title shows the unread count (`window_title`); the title last set.
    window_title: bool,
    title_shown: Option<String>,
    /// The article's pictures, once [`Reader::set_pictures`] turned them on.
    pictures: Option<crate::pictures::Pictures>,
    /// Where pictures were drawn in the last frame (to erase those that went, on terminals that keep pixels).
    drawn: std::sync::Mutex<Vec<crate::ui::pictures::Placement>>,
}

impl Reader {
    /// Opens the store and starts the workers. Must be called inside a tokio runtime.
    pub fn new(options: Options) -> Result<Reader, StartError> {
        let mut conn = store::open_write(&options.db)?;
        // What the reader remembers from the last time: feeds with nothing unread hidden, the last search.
        let preferences =
            (store::preferences::get(&conn, "hide_read_feeds")?, store::preferences::get(&conn, "last_search")?);
        let (default, settings) = options.config.feed_settings();
        store::feeds::apply_settings(&mut conn, &default, &settings)?;
        let writer = DbThread::spawn_background_writer(conn);
        let reader = DbThread::spawn("tidings-reader", store::open_read(&options.db)?);
        let counter = DbThread::spawn("tidings-counter", store::open_read(&options.db)?);
        let config = &options.config;
        let fetcher = Fetcher::new(config.fetch_config()).map_err(StartError::Http)?;
        let pipeline = config.pipeline(&fetcher, &writer, Upkeep::PurgeAndIndex);
        let (tx, rx) = mpsc::unbounded_channel();
        let setup = app::Setup {
            keymap: config.keymap.clone(),
            zone: options.zone,
            text_column: app::layout::TextColumn { max_width: config.text_width, centered: config.text_centered },
            refresh_on_startup: config.refresh_on_startup,
            auto_refresh_secs: config.auto_refresh_secs(),
            accounts: config.accounts.iter().map(|a| a.name.clone()).collect(),
            macros: config
                .macros
                .iter()
                .filter_map(|(key, actions)| {
                    let key = app::keymap::Key::parse(key).ok()?;
                    Some((key, actions.iter().filter_map(|a| app::keymap::Action::named(a)).collect()))
                })
                .collect(),
            bookmark_command: config.bookmark_command.is_some(),
            hide_read_feeds: match preferences.0.as_deref() {
                Some(value) => value == "on",
                None => config.hide_read_feeds,
            },
            last_search: preferences.1,
            views: config.saved_views(),
        };
        let mut state = State::new(setup, options.size);
        // What is said at start is stamped with the time it is said (the first tick comes later).
        let now = chrono::Utc::now().timestamp();
        state.clock.now = now;
        if let Some(notice) = options.notice {
            state.status.info(notice, now);
        }
        for warning in &config.warnings {
            state.status.error(format!("warning: {warning}"), now);
        }
        if !options.report.is_empty() {
            state.show_dialog(app::dialogs::Dialog::Report(app::dialogs::Report::new("Import", options.report)));
        }
        let launcher = std::sync::Arc::new(
            opener::Launcher::new(
                config.browser_command(),
                config.player_command(),
                std::env::var("BROWSER").ok().as_deref(),
            )
            .with_feeds(config.feed_browsers()),
        );
        let services = Services {
            writer,
            db: std::sync::Arc::new(options.db.clone()),
            render: Default::default(),
            reader,
            pipeline,
            inbox: tx,
            barrier: Default::default(),
            launcher: launcher.clone(),
            fetcher,
            accounts: std::sync::Arc::new(config.accounts.clone()),
            bookmark: config.bookmark_command.as_deref().and_then(|l| crate::command::CommandLine::parse(l, None).ok()),
            copy: config.copy_command.as_deref().and_then(|l| crate::command::CommandLine::parse(l, None).ok()),
            counter,
            config_path: config.path.clone(),
            feed_configs: std::sync::Arc::new(std::sync::RwLock::new(config.feeds.clone())),
            pictures: None,
        };
        Ok(Reader {
            state,
            theme: config.theme.clone(),
            services,
            inbox: rx,
            for_terminal: Vec::new(),
            launcher,
            window_title: config.window_title,
            title_shown: None,
            pictures: None,
            drawn: Default::default(),
        })
    }

    /// Shows pictures in the article, drawn as `setup` says (the protocol detected for the terminal, or one
    /// given by a test), fetched through the reader's client and courtesy.
    pub fn set_pictures(&mut self, setup: crate::pictures::Setup) {
        let courtesy = self.services.pipeline.full_text().courtesy().clone();
        let pictures = crate::pictures::Pictures::new(setup, self.services.fetcher.clone(), courtesy);
        self.state.pictures.cell = Some(pictures.cell());
        self.services.pictures = Some(pictures.clone());
        self.pictures = Some(pictures);
    }

    /// The picture service, when pictures are on.
    pub fn pictures(&self) -> Option<&crate::pictures::Pictures> {
        self.pictures.as_ref()
    }

    /// A handle for sending events into the inbox (terminal input, ticks, tests).
    pub fn sender(&self) -> mpsc::UnboundedSender<Event> {
        self.services.inbox.clone()
    }

    /// Asks for the first feed list (everything else follows from the events), and in the background purges
    /// what retention lets go (a [`Event::Purged`] when it did) and brings the search index up to date (a
    /// headless refresh leaves its entries to index), then watches for other processes' writes
    /// ([`Event::ChangedOutside`]).
    pub fn start(&mut self) {
        self.services.run(Effect::LoadFeeds);
        let (pipeline, inbox) = (self.services.pipeline.clone(), self.services.inbox.clone());
        tokio::spawn(async move {
            let (purged, indexed) = pipeline.upkeep().await;
            services::report_upkeep(&inbox, Ok(0), purged, indexed);
        });
        let (writer, inbox) = (self.services.writer.clone(), self.services.inbox.clone());
        tokio::spawn(outside::watch_outside(writer, inbox, outside::WATCH_EVERY));
    }

    /// What opens what is on screen: the browser of the selected entry's feed (of the selected feed, in the
    /// feeds pane) when it has one of its own, else the reader's.
    fn launcher(&self) -> std::borrow::Cow<'_, opener::Launcher> {
        let feed = match self.state.focus {
            app::Pane::Feeds => self.state.feeds.selected_feed(),
            _ => self.state.entries.selected().and_then(|e| self.state.feeds.feed(e.feed_id)),
        };
        self.launcher.for_feed(feed.map(|f| f.url.as_str()))
    }

    /// Applies one event and starts the work it calls for.
    pub fn dispatch(&mut self, event: Event) {
        for effect in app::update(&mut self.state, event) {
            match effect {
                Effect::Suspend | Effect::Pipe { in_terminal: true, .. } => self.for_terminal.push(effect),
                Effect::Copy(_) if self.services.copy.is_none() => self.for_terminal.push(effect),
                Effect::Open { kind, .. } if self.launcher().takes_terminal(kind) => self.for_terminal.push(effect),
                Effect::Open { url, kind } => self.services.open(&self.launcher(), &url, kind),
                other => self.services.run(other),
            }
        }
    }

    /// The user's changes that were not saved because the user quit without waiting for them (see
    /// [`app::saving`]), for people: "starred 1 entry".
    pub fn unsaved(&self) -> Vec<String> {
        self.state.saving.abandoned.iter().map(|w| w.what()).collect()
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

    /// The window title for the state: the unread count, once the feed list is known.
    fn window_title(&self) -> Option<String> {
        if !self.window_title || !self.state.feeds.loaded {
            return None;
        }
        let title = match self.state.feeds.views.unread {
            0 => "tidings".to_string(),
            n => format!("tidings ({n} unread)"),
        };
        Some(crate::sanitize::one_line(&title, 200))
    }

    /// Draws the state on `terminal`.
    pub fn draw<B: Backend>(&self, terminal: &mut Terminal<B>) -> std::io::Result<()>
    where
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        let shelf = self.pictures.as_ref().map(crate::pictures::Pictures::shelf);
        let now = crate::ui::pictures::placements(&self.state, shelf.as_deref());
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        let stale: Vec<ratatui::layout::Rect> = match &shelf {
            Some(shelf) if shelf.leaves_pixels() => drawn.iter().filter(|p| !now.contains(p)).map(|p| p.area).collect(),
            _ => Vec::new(),
        };
        if let (Some(shelf), Some(pictures)) = (&shelf, &self.pictures)
            && shelf.protocol() == ratatui_image::picker::ProtocolType::Kitty
        {
            // A kitty picture off the screen now is deleted from the terminal's memory, and prepared again (to
            // be sent again) in case it comes back.
            for gone in drawn.iter().filter(|p| !now.iter().any(|n| n.url == p.url && n.size == p.size)) {
                if shelf.retire(&gone.url, gone.size) {
                    pictures.prepare(gone.url.clone(), gone.size, self.services.inbox.clone());
                }
            }
        }
        let deletes = shelf.as_ref().map(|s| s.take_deletes()).unwrap_or_default();
        let canvas = crate::ui::pictures::Canvas { shelf: shelf.as_deref(), stale: &stale, deletes: &deletes };
        terminal
            .draw(|frame| crate::ui::draw_with(frame, &self.state, &self.theme, &canvas))
            .map_err(std::io::Error::other)?;
        *drawn = now;
        Ok(())
    }

    /// The terminal loop: draw, wait for an event, apply it (and whatever else is already waiting), carry out
    /// what needs the terminal, repeat until the user quits.
    pub async fn run<B: Backend>(
        &mut self,
        terminal: &mut Terminal<B>,
        host: &mut (dyn Host + Send),
    ) -> std::io::Result<()>
    where
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        self.start();
        loop {
            self.draw(terminal)?;
            if let Some(title) = self.window_title().filter(|t| self.title_shown.as_ref() != Some(t)) {
                host.set_title(&title)?;
                self.title_shown = Some(title);
            }
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
            for effect in std::mem::take(&mut self.for_terminal) {
                match effect {
                    Effect::Suspend => host.suspend()?,
                    Effect::Copy(text) => {
                        if let Err(e) = host.copy_to_clipboard(&text) {
                            self.dispatch(Event::Error(format!("cannot copy to the clipboard: {e}")));
                        }
                        // Nothing was drawn over: no need to draw every cell again.
                        continue;
                    }
                    Effect::Pipe { words, input, .. } => {
                        let mut command = std::process::Command::new(&words[0]);
                        command.args(&words[1..]);
                        match host.run_piped(command, &input) {
                            Ok(status) if status.success() => {}
                            Ok(status) => self.dispatch(Event::Error(format!("{} ended with {status}", words[0]))),
                            Err(e) => self.dispatch(Event::Error(format!("cannot start {}: {e}", words[0]))),
                        }
                    }
                    Effect::Open { url, kind } => {
                        let opener::Launch::Foreground(command) = self.launcher().launch(&url, kind) else { continue };
                        let program = command.get_program().to_string_lossy().into_owned();
                        match host.run_foreground(command) {
                            Ok(status) if status.success() => {}
                            Ok(status) => self.dispatch(Event::Error(format!("{program} ended with {status}"))),
                            Err(e) => self.dispatch(Event::Error(format!(
                                "cannot start {program}: {e}; check `browser` and `player` in the config"
                            ))),
                        }
                    }
                    _ => {}
                }
                // The terminal may have let go of the pictures it was given: prepare them again.
                if let Some(pictures) = &self.pictures {
                    pictures.forget_prepared();
                    self.drawn.lock().unwrap_or_else(|e| e.into_inner()).clear();
                    self.dispatch(Event::PicturesReset);
                }
                // The shell or the program drew over the screen meanwhile: clear it and draw every cell again.
                // (Not `Terminal::clear`, which asks the terminal where its cursor is: the input task reads
                // the answer first, and the question times out.)
                let size = terminal.size().map_err(std::io::Error::other)?;
                terminal
                    .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
                    .map_err(std::io::Error::other)?;
            }
            if self.state.quit {
                self.services.cancel_render();
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EntryId, FeedId, ListSource, NewFeed, UserWrite};
    use crate::store::fetches;
    use std::sync::atomic::Ordering;

    /// A database with one feed and one unread entry, and a reader over it.
    fn reader_with_one_unread_entry(dir: &std::path::Path) -> (Reader, FeedId, EntryId) {
        let db = dir.join("t.db");
        let mut conn = store::open_write(&db).unwrap();
        let feed =
            NewFeed { url: "http://example.com/f".into(), title: None, name: None, site_url: None, folder: vec![] };
        let Ok(crate::model::Applied::Subscribed { feed_id, .. }) =
            store::apply(&mut conn, &UserWrite::AddFeed(feed), 0)
        else {
            panic!("subscribing")
        };
        let entry = crate::model::ParsedEntry {
            key: "a".into(),
            title: Some("A".into()),
            link: None,
            authors: vec![],
            published: None,
            updated: None,
            content_html: None,
            summary_html: None,
            categories: vec![],
            enclosures: vec![],
            comments: None,
            thumbnail: None,
        };
        let record = fetches::FetchRecord::Fetched {
            status: 200,
            etag: None,
            last_modified: None,
            feed: Box::new(crate::model::ParsedFeed {
                kind: crate::model::FeedKind::Rss2,
                title: None,
                link: None,
                description: None,
                authors: vec![],
                entries: vec![entry],
                warnings: vec![],
                min_interval_secs: None,
            }),
            decision: None,
            moved_to: None,
            min_interval_secs: None,
            ignored: vec![],
            cut_from: None,
        };
        fetches::save(&mut conn, feed_id, &record, 1).unwrap();
        let entry_id = store::entries::of_feed(&conn, feed_id).unwrap()[0].id;
        drop(conn);
        let options = Options {
            db,
            config: Config::default(),
            notice: None,
            report: Vec::new(),
            size: (80, 24),
            zone: crate::clock::Zone::utc(),
        };
        (Reader::new(options).unwrap(), feed_id, entry_id)
    }

    /// The window title: nothing before the feed list is known, then the Unread view's count, and a bare name
    /// when nothing is unread; none at all when `window_title = false`.
    #[test]
    fn the_window_title_shows_the_unread_count_once_the_feeds_are_known() {
        let dir = tempfile::tempdir().unwrap();
        let (mut reader, _, _) = reader_with_one_unread_entry(dir.path());
        assert_eq!(reader.window_title(), None, "not before the feed list is known");
        reader.state.feeds.loaded = true;
        reader.state.feeds.views.unread = 1;
        assert_eq!(reader.window_title().as_deref(), Some("tidings (1 unread)"));
        reader.state.feeds.views.unread = 0;
        assert_eq!(reader.window_title().as_deref(), Some("tidings"));
        reader.window_title = false;
        assert_eq!(reader.window_title(), None);
    }

    /// The barrier's promise: a list read asked for after a write never shows the state from before the write,
    /// however the two threads are scheduled. The writer is held up on purpose, so that without the barrier the
    /// read would certainly run first.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_list_read_asked_after_a_write_never_shows_the_state_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut reader, feed_id, entry_id) = reader_with_one_unread_entry(dir.path());
        let (open_gate, gate) = std::sync::mpsc::channel::<()>();
        reader.services.writer.submit(move |_| {
            let _ = gate.recv();
        });
        reader
            .services
            .run(Effect::Write { id: app::WriteId(1), write: UserWrite::SetRead { ids: vec![entry_id], read: true } });
        let list = app::ListKey::Feed(feed_id);
        reader.services.run(Effect::LoadEntries { list, source: ListSource::Feed(feed_id), order: None, keep: None });
        let barrier = reader.services.barrier.clone();
        tokio::select! {
            // The read waits for the write: let the writer go.
            () = barrier.read_waits.notified() => open_gate.send(()).unwrap(),
            // The read ran first (no barrier): what it read must still show the write, which it cannot.
            event = reader.next_event() => check_list(event, entry_id),
        }
        loop {
            match reader.next_event().await {
                Some(event @ Event::EntriesLoaded { .. }) => return check_list(Some(event), entry_id),
                Some(_) => continue,
                None => panic!("the inbox closed"),
            }
        }
    }

    /// Opening another article (or the same at another width) cancels the render still running, and quitting
    /// cancels the last: renders of articles left behind never stack up.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_new_render_cancels_the_one_still_running_and_quitting_cancels_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let (reader, _, entry_id) = reader_with_one_unread_entry(dir.path());
        let current = || reader.services.render.lock().unwrap().clone().expect("a render is running");
        let render = |html: &str| Effect::RenderArticle { entry_id, html: html.into(), width: 60, base: None };
        reader.services.run(render(&"<div>".repeat(100_000)));
        let first = current();
        reader.services.run(render("<p>the second</p>"));
        let second = current();
        assert!(first.load(Ordering::Relaxed), "the first render was told to stop");
        assert!(!second.load(Ordering::Relaxed), "the render on screen goes on");
        reader.services.cancel_render();
        assert!(second.load(Ordering::Relaxed), "quitting stops it too");
    }

    fn check_list(event: Option<Event>, entry_id: EntryId) {
        let Some(Event::EntriesLoaded { refs, .. }) = event else { panic!("expected the list, got {event:?}") };
        let entry = refs.iter().find(|r| r.id == entry_id).expect("the entry is listed");
        assert!(entry.read, "the list was read before the write it was asked after");
    }
}
