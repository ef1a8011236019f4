//! The real terminal: raw mode and the alternate screen (restored on exit and on panic), the task that turns
//! terminal input into events, the clock's ticks, and giving the terminal back to the shell on Ctrl-Z.

use super::{Host, Options, Reader};
use crate::app::Event;
use futures::StreamExt;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Runs the reader on the real terminal until the user quits. Returns the changes the user quit without
/// waiting for (for people), which were not saved.
pub async fn run(options: Options) -> anyhow::Result<Vec<String>> {
    use std::io::IsTerminal;
    const NO_TERMINAL: &str = "the reader needs a terminal to draw in, and its output is not one: run tidings in a \
        terminal, or give it a command for scripts (tidings refresh, tidings unread…; tidings --help lists them)";
    if !std::io::stdout().is_terminal() {
        anyhow::bail!(NO_TERMINAL);
    }
    let mouse = options.config.mouse;
    let images = options.config.images;
    let picture_cache = options.config.picture_cache();
    let mut reader = Reader::new(options)?;
    // Input comes from standard input, else from the process's terminal (none, for a process of its own session).
    let mut terminal = ratatui::try_init().map_err(|e| anyhow::anyhow!("{NO_TERMINAL} ({e})"))?;
    // Asked once, before the input task reads the terminal: afterwards its answers would arrive as keys.
    let (picker, typed, said) = crate::pictures::detect::detect(images);
    if let Some(said) = said {
        tracing::warn!("{said}");
        let _ = reader.sender().send(Event::Notice(said));
    }
    if let Some(picker) = picker {
        let (cache_dir, cache_max_bytes) = picture_cache;
        reader.set_pictures(crate::pictures::Setup { picker, cache_dir, cache_max_bytes });
    }
    // Keys typed while the terminal was being asked are the reader's.
    for key in typed.iter().filter_map(|b| typed_key(*b)) {
        let _ = reader.sender().send(Event::Key(key));
    }
    // ratatui's hook restores the terminal on any panic; a panic on a worker thread (caught there, and reported
    // as that feed's error) must neither restore the terminal under the running reader nor print over it.
    let restore_and_report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some("main") {
            let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
            restore_and_report(info);
        } else {
            tracing::error!("panic on thread {:?}: {info}", std::thread::current().name());
        }
    }));
    if mouse {
        crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture)?;
    }
    tracing::info!("reader started");
    let size = terminal.size()?;
    reader.dispatch(Event::Resize { width: size.width, height: size.height });
    let mut host = TerminalHost { inbox: reader.sender(), input: Some(spawn_input(reader.sender())), mouse };
    let ticks = spawn_ticks(reader.sender());
    let result = reader.run(&mut terminal, &mut host).await;
    host.stop_input();
    ticks.abort();
    if mouse {
        let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
    }
    ratatui::restore();
    result?;
    let unsaved = reader.unsaved();
    if unsaved.is_empty() {
        tracing::info!("reader quit");
    } else {
        tracing::warn!("reader quit without saving {} changes: {}", unsaved.len(), unsaved.join(", "));
    }
    Ok(unsaved)
}

struct TerminalHost {
    inbox: mpsc::UnboundedSender<Event>,
    /// The task reading terminal input; stopped while the shell has the terminal.
    input: Option<JoinHandle<()>>,
    mouse: bool,
}

impl TerminalHost {
    fn stop_input(&mut self) {
        if let Some(task) = self.input.take() {
            task.abort();
        }
    }

    /// Leaves raw mode and the alternate screen, as the shell expects the terminal.
    fn release(&mut self) -> std::io::Result<()> {
        self.stop_input();
        if self.mouse {
            crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture)?;
        }
        ratatui::restore();
        Ok(())
    }

    /// Takes the terminal again after [`TerminalHost::release`].
    fn reclaim(&mut self) -> std::io::Result<()> {
        crossterm::terminal::enable_raw_mode()?;
        crossterm::execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
        if self.mouse {
            crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture)?;
        }
        self.input = Some(spawn_input(self.inbox.clone()));
        if let Ok((width, height)) = crossterm::terminal::size() {
            let _ = self.inbox.send(Event::Resize { width, height });
        }
        Ok(())
    }
}

impl Host for TerminalHost {
    fn set_title(&mut self, title: &str) -> std::io::Result<()> {
        crossterm::execute!(std::io::stdout(), crossterm::terminal::SetTitle(crate::sanitize::one_line(title, 200)))
    }

    #[cfg(unix)]
    fn suspend(&mut self) -> std::io::Result<()> {
        self.release()?;
        // Stop as a shell's Ctrl-Z would; `fg` continues the process right here.
        crate::os::suspend_this_process();
        self.reclaim()
    }

    #[cfg(not(unix))]
    fn suspend(&mut self) -> std::io::Result<()> {
        let _ = self.inbox.send(Event::Notice("suspending needs a Unix shell".into()));
        Ok(())
    }

    fn run_foreground(&mut self, mut command: std::process::Command) -> std::io::Result<std::process::ExitStatus> {
        self.release()?;
        let status = command.status();
        self.reclaim()?;
        status
    }

    fn run_foreground_with(
        &mut self,
        command: std::process::Command,
        input: &str,
    ) -> std::io::Result<std::process::ExitStatus> {
        self.release()?;
        let status = super::run_with_input(command, input);
        self.reclaim()?;
        status
    }

    fn copy_to_clipboard(&mut self, text: &str) -> std::io::Result<()> {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(super::osc52(text).as_bytes())?;
        out.flush()
    }
}

/// A byte typed while the terminal was being asked, as the key it is (plain characters, Enter, Tab, Backspace).
fn typed_key(byte: u8) -> Option<crossterm::event::KeyEvent> {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let code = match byte {
        b'\r' | b'\n' => KeyCode::Enter,
        b'\t' => KeyCode::Tab,
        0x7f => KeyCode::Backspace,
        b' '..=b'~' => KeyCode::Char(char::from(byte)),
        _ => return None,
    };
    Some(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Forwards terminal input (keys, mouse, resizes) into the inbox.
fn spawn_input(inbox: mpsc::UnboundedSender<Event>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut stream = crossterm::event::EventStream::new();
        while let Some(Ok(event)) = stream.next().await {
            let forwarded = match event {
                crossterm::event::Event::Key(key) => Event::Key(key),
                crossterm::event::Event::Mouse(mouse) => Event::Mouse(mouse),
                crossterm::event::Event::Resize(width, height) => Event::Resize { width, height },
                _ => continue,
            };
            if inbox.send(forwarded).is_err() {
                break;
            }
        }
    })
}

/// The clock: one tick now, then one a second.
fn spawn_ticks(inbox: mpsc::UnboundedSender<Event>) -> JoinHandle<()> {
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
