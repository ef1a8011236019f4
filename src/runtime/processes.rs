//! The programs the reader starts beside itself, never through a shell of ours: the browser and the player for
//! addresses (a graphical one on its own; a terminal one is the terminal loop's to run), a `:pipe` into a
//! program and the clipboard's `copy_command` (bounded: see [`crate::process`]), the bookmark command; and saving
//! an article to a file.

use super::opener::{Launch, Launcher};
use crate::app::{Event, OpenKind};
use crate::command::CommandLine;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The programs the reader starts, as the config names them. Cheap to clone.
#[derive(Clone)]
pub(super) struct Processes {
    pub(super) launcher: Arc<Launcher>,
    /// The `bookmark_command`, and the `copy_command`.
    bookmark: Option<CommandLine>,
    pub(super) copy: Option<CommandLine>,
    /// The `save_command`.
    save_later: Option<CommandLine>,
    inbox: mpsc::UnboundedSender<Event>,
}

impl Processes {
    pub(super) fn new(
        launcher: Arc<Launcher>,
        bookmark: Option<CommandLine>,
        copy: Option<CommandLine>,
        save_later: Option<CommandLine>,
        inbox: mpsc::UnboundedSender<Event>,
    ) -> Processes {
        Processes { launcher, bookmark, copy, save_later, inbox }
    }

    /// Opens `url` with `launcher` (the reader's, or the browser of the feed on screen): the URL goes to the
    /// program as data, never through a shell of ours; only web and mail addresses get here (see
    /// app::article::open_url). Terminal programs are the loop's to run.
    pub(super) fn open(&self, launcher: &Launcher, url: &str, kind: OpenKind) {
        let inbox = self.inbox.clone();
        match launcher.launch(url, kind) {
            Launch::Detached(command) | Launch::Foreground(command) => {
                start_detached(command, "`browser` and `player`", None, inbox);
            }
            Launch::Platform(url) => {
                if let Err(e) = open::that_detached(&url) {
                    let _ = inbox.send(Event::Error(format!(
                        "cannot open the browser: {e}; set `browser` in the config (for example \"firefox %u\")"
                    )));
                }
            }
        }
    }

    /// Runs `words` (the program and its arguments) with `input` on its standard input.
    pub(super) fn pipe(&self, words: &[String], input: String) {
        let mut command = std::process::Command::new(&words[0]);
        command.args(&words[1..]);
        run_piped(command, input, PIPE_LIMITS, self.inbox.clone());
    }

    /// Hands `text` to the `copy_command`; false without one (the terminal's clipboard is the loop's).
    pub(super) fn copy(&self, text: String) -> bool {
        let Some(line) = &self.copy else { return false };
        let mut command = std::process::Command::new(line.program());
        command.args(&line.words[1..]);
        run_piped(command, text, COPY_LIMITS, self.inbox.clone());
        true
    }

    /// Runs the `bookmark_command` with the entry's address (`%u`), title (`%t`), description (`%d`) and feed's
    /// title (`%f`): data wherever their marks stand (see `command`); a command without any gets all four, in
    /// that order (newsboat's `bookmark-cmd`'s).
    pub(super) fn bookmark(&self, url: &str, title: &str, description: &str, feed: &str) {
        let Some(line) = &self.bookmark else { return };
        let values = [("%u", url), ("%t", title), ("%d", description), ("%f", feed)];
        let argv = line.argv(&values, &[url, title, description, feed]);
        let mut command = std::process::Command::new(&argv[0]);
        command.args(&argv[1..]);
        let done = format!("Bookmarked {}", crate::sanitize::one_line(title, 200));
        start_detached(command, "`bookmark_command`", Some(done), self.inbox.clone());
    }

    /// Runs the `save_command` once per entry (address, title), one after the other and bounded, off the loop's
    /// thread: the address and title are data wherever their marks stand; a command without either gets both.
    /// Says how many were saved, and the first that failed (the rest are still tried).
    pub(super) fn save_for_later(&self, entries: Vec<(String, String)>) {
        let Some(line) = self.save_later.clone() else { return };
        let inbox = self.inbox.clone();
        tokio::task::spawn_blocking(move || {
            let program = line.program().to_string();
            let (mut saved, mut failed) = (0, Vec::new());
            for (url, title) in &entries {
                let argv = line.argv(&[("%u", url), ("%t", title)], &[url, title]);
                let mut command = std::process::Command::new(&argv[0]);
                command.args(&argv[1..]);
                match crate::process::run(command, Vec::new(), SAVE_LIMITS) {
                    Ok(out) if out.status.success() => saved += 1,
                    Ok(out) => failed.push(format!("{title}: ended with {} {}", out.status, out.said())),
                    Err(e) => failed.push(format!("{title}: {e}")),
                }
            }
            let what = |n: usize| if n == 1 { "1 entry".to_string() } else { format!("{n} entries") };
            let _ = inbox.send(match failed.first() {
                None => Event::Notice(format!("Saved {} for later with {program}", what(saved))),
                Some(first) => Event::Error(format!(
                    "{program} could not save {} of {}; the first: {}",
                    failed.len(),
                    entries.len(),
                    crate::sanitize::one_line(first, 300)
                )),
            });
        });
    }

    /// Writes the article's text to `path`, off the loop's thread.
    pub(super) fn save(&self, path: String, text: String, overwrite: bool) {
        let inbox = self.inbox.clone();
        tokio::task::spawn_blocking(move || {
            let _ = inbox.send(match save(&path, &text, overwrite) {
                Ok(shown) => Event::Notice(format!("Saved the article to {shown}")),
                Err(e) => Event::Error(e),
            });
        });
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
/// The `save_command`, once per entry.
const SAVE_LIMITS: crate::process::Limits =
    crate::process::Limits { deadline: std::time::Duration::from_secs(30), output: 4 * 1024 };
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

/// Starts a graphical program on its own (no terminal), and reports it if it cannot start (naming `keys`, the
/// config's keys that name it) or fails — and says `done` when it ends well, where one is given.
fn start_detached(
    mut command: std::process::Command,
    keys: &'static str,
    done: Option<String>,
    inbox: mpsc::UnboundedSender<Event>,
) {
    use std::process::Stdio;
    let program = command.get_program().to_string_lossy().into_owned();
    match command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn() {
        Ok(mut child) => {
            // Reaped on a thread of its own, so no zombie is left and a failure is still heard of.
            std::thread::spawn(move || match child.wait() {
                Ok(status) if !status.success() => {
                    let _ = inbox.send(Event::Error(format!("{program} ended with {status}")));
                }
                Ok(_) => {
                    if let Some(done) = done {
                        let _ = inbox.send(Event::Notice(done));
                    }
                }
                Err(_) => {}
            });
        }
        Err(e) => {
            let _ = inbox.send(Event::Error(format!("cannot start {program}: {e}; check {keys} in the config")));
        }
    }
}
