//! The reader's runtime: opens the engine's [`Session`], owns the [`State`], the event inbox and the jobs
//! effects are handed to (`services`), and drives the terminal loop `draw → next event → update`. The loop
//! never waits on the network or the disk: every effect is handed to a job and its result comes back through
//! the inbox. [`terminal`] is the real terminal: raw mode, input, ticks, and giving the terminal back on Ctrl-Z.

mod downloads;
mod host;
pub mod opener;
mod outside;
mod processes;
mod reads;
mod render;
mod services;
mod settings;
pub mod terminal;
mod work;

pub use host::{Host, NoHost, osc52, run_with_input};

use crate::app::{self, Effect, Event, State};
use crate::config::Config;
use crate::session::{Role, Session, SessionError};
use crate::store::StoreError;
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
    Session(#[from] SessionError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The reader: its state, its inbox and its workers. The terminal is passed to [`Reader::run`], so tests drive
/// the same code on ratatui's `TestBackend`.
pub struct Reader {
    pub state: State,
    pub theme: Theme,
    session: Session,
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
    /// Opens the session and starts the jobs. Must be called inside a tokio runtime.
    pub fn new(options: Options) -> Result<Reader, StartError> {
        let config = &options.config;
        let session = Session::open(&options.db, config.session_settings(), Role::Reader)?;
        let (tx, rx) = mpsc::unbounded_channel();
        // Beside a running daemon the reader never refreshes on its own: the daemon does, and `R`/`r` ask it to.
        let beside_daemon = crate::daemon_socket::daemon_listens(&options.db);
        let setup = app::Setup {
            keymap: config.keymap.clone(),
            zone: options.zone,
            text_column: app::layout::TextColumn { max_width: config.text_width, centered: config.text_centered },
            refresh_on_startup: config.refresh_on_startup && !beside_daemon,
            auto_refresh_secs: config.auto_refresh_secs().filter(|_| !beside_daemon),
            accounts: config.accounts.iter().map(|a| a.name.clone()).collect(),
            macros: config
                .macros
                .iter()
                .filter_map(|(key, actions)| {
                    let key = app::keymap::Key::parse(key).ok()?;
                    Some((key, actions.iter().filter_map(|a| app::commands::MacroStep::named(a)).collect()))
                })
                .collect(),
            bookmark_command: config.bookmark_command.is_some(),
            export_path: config.export_path.clone(),
            save_command: config.save_command.is_some(),
            confirm_quit: config.confirm_quit,
            // What the reader remembers from the last time: feeds with nothing unread hidden, the last search.
            hide_read_feeds: match session.preference("hide_read_feeds") {
                Some(value) => value == "on",
                None => config.hide_read_feeds,
            },
            last_search: session.preference("last_search").map(str::to_string),
            views: config.saved_views(),
            health_rules: config.health_rules(),
        };
        let mut state = State::new(setup, options.size);
        // What is said at start is stamped with the time it is said (the first tick comes later).
        let now = chrono::Utc::now().timestamp();
        state.clock.now = now;
        if beside_daemon {
            state.status.info("tidings daemon keeps this database fresh; R asks it to refresh now".to_string(), now);
        }
        if let Some(notice) = options.notice {
            state.status.info(notice, now);
        }
        for warning in &config.warnings {
            state.status.warning(warning.clone(), now);
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
        let command =
            |line: &Option<String>| line.as_deref().and_then(|l| crate::command::CommandLine::parse(l, None).ok());
        let services = Services {
            reads: reads::Reads::new(session.clone(), tx.clone(), config.sorts())?,
            work: work::Work::new(session.clone(), tx.clone(), beside_daemon),
            processes: processes::Processes::new(
                launcher.clone(),
                command(&config.bookmark_command),
                command(&config.copy_command),
                command(&config.save_command),
                tx.clone(),
            ),
            settings: settings::Settings::new(config, session.clone(), launcher.clone(), tx.clone()),
            render: render::Render::new(tx.clone()),
            downloads: downloads::Downloads::new(session.clone(), tx.clone()),
            pictures: None,
            inbox: tx,
        };
        Ok(Reader {
            state,
            theme: config.theme.clone(),
            session,
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
        let pictures =
            crate::pictures::Pictures::new(setup, self.session.fetcher().clone(), self.session.courtesy().clone());
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
        self.services.work.upkeep();
        // What was queued or half-downloaded when the last reader or command ended goes on.
        self.services.downloads.run();
        self.services.downloads.load();
        let (writer, inbox) = (self.session.writer().clone(), self.services.inbox.clone());
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
                Effect::Copy(_) if self.services.processes.copy.is_none() => self.for_terminal.push(effect),
                Effect::Open { kind, .. } if self.launcher().takes_terminal(kind) => self.for_terminal.push(effect),
                Effect::Open { url, kind } => self.services.processes.open(&self.launcher(), &url, kind),
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
        self.session.writer().call(|_| Ok(())).await
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
                self.services.render.cancel();
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
