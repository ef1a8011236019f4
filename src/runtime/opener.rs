//! Opening addresses outside tidings: the `browser` command line (or `$BROWSER`, or the platform's opener) for
//! pages, the `player` for media. A command line is split into arguments here — never handed to a shell — and
//! the address replaces `%u` (`%s` in `$BROWSER`'s convention) as one whole argument. A terminal program (w3m,
//! lynx, mpv…) gets the terminal while the reader waits; a graphical one runs on its own.

use crate::app::OpenKind;
pub use crate::command::CommandLine;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to open one address.
#[derive(Debug)]
pub enum Launch {
    /// Run it and give it the terminal until it exits.
    Foreground(Command),
    /// Start it and let it run on its own.
    Detached(Command),
    /// The platform's opener (`xdg-open`, `open`, `start`).
    Platform(String),
}

/// What opens pages and media, resolved once when the reader starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launcher {
    pub browser: Option<CommandLine>,
    pub player: Option<CommandLine>,
}

impl Launcher {
    /// The configured commands; without a `browser`, the first usable command of `browser_env` (`$BROWSER`: a
    /// list separated by colons, as its convention has it).
    pub fn new(browser: Option<CommandLine>, player: Option<CommandLine>, browser_env: Option<&str>) -> Launcher {
        let browser = browser.or_else(|| {
            browser_env?
                .split(':')
                .filter_map(|entry| CommandLine::parse(entry, None).ok())
                .find(|c| on_path(c.program()).is_some())
        });
        Launcher { browser, player }
    }

    /// How to open `url`: media with the player (else as a page), a page with the browser (else the platform's
    /// opener).
    pub fn launch(&self, url: &str, kind: OpenKind) -> Launch {
        let chosen = match kind {
            OpenKind::Media => self.player.as_ref().or(self.browser.as_ref()),
            OpenKind::Page => self.browser.as_ref(),
        };
        match chosen {
            Some(c) if c.in_terminal => Launch::Foreground(command(c, url)),
            Some(c) => Launch::Detached(command(c, url)),
            None => Launch::Platform(url.to_string()),
        }
    }

    /// Whether opening this kind takes the terminal.
    pub fn takes_terminal(&self, kind: OpenKind) -> bool {
        matches!(self.launch("x", kind), Launch::Foreground(_))
    }
}

/// The process for `url` by `line`: the program with its arguments (never a shell).
pub fn command(line: &CommandLine, url: &str) -> Command {
    let mut command = Command::new(line.program());
    command.args(line.arguments(url));
    command
}

/// Where `program` is: itself when it names a path, else the first match on `PATH`.
fn on_path(program: &str) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(c: &Command) -> Vec<String> {
        std::iter::once(c.get_program()).chain(c.get_args()).map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_address_is_one_whole_argument_wherever_it_goes() {
        let url = "https://example.com/a b;rm -rf ~&x=$(id)";
        let c = CommandLine::parse("w3m -T text/html %u", None).unwrap();
        assert!(c.in_terminal, "w3m draws in the terminal");
        assert_eq!(args(&command(&c, url)), ["w3m", "-T", "text/html", url]);
        let c = CommandLine::parse("firefox", None).unwrap();
        assert!(!c.in_terminal);
        assert_eq!(args(&command(&c, url)), ["firefox", url]);
        let c = CommandLine::parse("open --url=%s", Some(true)).unwrap();
        assert!(c.in_terminal, "the setting wins");
        assert_eq!(args(&command(&c, url)), ["open", format!("--url={url}").as_str()]);
    }

    #[test]
    fn browser_env_takes_the_first_command_that_exists() {
        let launcher = Launcher::new(None, None, Some("no-such-browser-here %s:sh -c %s"));
        assert_eq!(launcher.browser.as_ref().map(|c| c.program()), Some("sh"));
        let configured = CommandLine::parse("lynx", None).unwrap();
        let launcher = Launcher::new(Some(configured.clone()), None, Some("sh"));
        assert_eq!(launcher.browser, Some(configured), "the setting beats $BROWSER");
        assert!(matches!(Launcher::new(None, None, None).launch("u", OpenKind::Page), Launch::Platform(_)));
    }

    #[test]
    fn media_goes_to_the_player_and_else_to_the_browser() {
        let browser = CommandLine::parse("firefox", None).unwrap();
        let player = CommandLine::parse("mpv --no-video", None).unwrap();
        let both = Launcher { browser: Some(browser.clone()), player: Some(player) };
        assert!(matches!(both.launch("u", OpenKind::Media), Launch::Foreground(c) if c.get_program() == "mpv"));
        assert!(matches!(both.launch("u", OpenKind::Page), Launch::Detached(c) if c.get_program() == "firefox"));
        let browser_only = Launcher { browser: Some(browser), player: None };
        assert!(
            matches!(browser_only.launch("u", OpenKind::Media), Launch::Detached(c) if c.get_program() == "firefox")
        );
    }
}
