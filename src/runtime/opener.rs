//! Opening addresses outside tidings: the `browser` command line (or `$BROWSER`, or the platform's opener) for
//! pages, the `player` for media. A command line is split into arguments here — never handed to a shell of ours
//! — and the address stands where `%u` (`%s` in `$BROWSER`'s convention) does, as data (see [`crate::command`]).
//! A terminal program (w3m, lynx, mpv…) gets the terminal while the reader waits; a graphical one runs on its own.

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
#[derive(Clone, Debug, Default)]
pub struct Launcher {
    pub browser: Option<CommandLine>,
    pub player: Option<CommandLine>,
    /// Feeds with a browser of their own (`[feeds."URL"] browser`), by the feed's URL.
    /// Shared: the feed-info window changes them while the reader runs.
    pub feeds: std::sync::Arc<std::sync::RwLock<std::collections::HashMap<String, CommandLine>>>,
}

impl Launcher {
    /// The configured commands; without a `browser`, the first usable command of `browser_env` (`$BROWSER`: a
    /// list separated by colons, as its convention has it).
    pub fn new(browser: Option<CommandLine>, player: Option<CommandLine>, browser_env: Option<&str>) -> Launcher {
        let browser = browser.or_else(|| {
            browser_env?
                .split(':')
                // `%s` is the address in `$BROWSER`'s convention; in a line of the config it is only text
                // (`printf '%s'` in a script).
                .filter_map(|entry| CommandLine::parse(&entry.replace("%s", "%u"), None).ok())
                .find(|c| on_path(c.program()).is_some())
        });
        Launcher { browser, player, feeds: Default::default() }
    }

    /// With the browsers of feeds that have their own, by the feed's URL.
    pub fn with_feeds(self, feeds: std::collections::HashMap<String, CommandLine>) -> Launcher {
        self.set_feeds(feeds);
        self
    }

    /// Replaces the browsers of feeds that have their own (a setting changed).
    pub fn set_feeds(&self, feeds: std::collections::HashMap<String, CommandLine>) {
        *self.feeds.write().unwrap_or_else(|e| e.into_inner()) = feeds;
    }

    /// The launcher for what a feed (by its URL) opens: its own browser, when it has one, opens its pages and
    /// (without a player) its media.
    pub fn for_feed(&self, feed_url: Option<&str>) -> std::borrow::Cow<'_, Launcher> {
        let own = feed_url.and_then(|url| self.feeds.read().unwrap_or_else(|e| e.into_inner()).get(url).cloned());
        match own {
            Some(own) => std::borrow::Cow::Owned(Launcher {
                browser: Some(own),
                player: self.player.clone(),
                feeds: Default::default(),
            }),
            None => std::borrow::Cow::Borrowed(self),
        }
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
        let c = CommandLine::parse("open --url=%u", Some(true)).unwrap();
        assert!(c.in_terminal, "the setting wins");
        assert_eq!(args(&command(&c, url)), ["open", format!("--url={url}").as_str()]);
        let from_env = Launcher::new(None, None, Some("sh -c x --url=%s")).browser.unwrap();
        assert_eq!(
            args(&command(&from_env, url)),
            ["sh", "-c", "x", format!("--url={url}").as_str()],
            "$BROWSER's %s is the address"
        );
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
        let both = Launcher { browser: Some(browser.clone()), player: Some(player), ..Default::default() };
        assert!(matches!(both.launch("u", OpenKind::Media), Launch::Foreground(c) if c.get_program() == "mpv"));
        assert!(matches!(both.launch("u", OpenKind::Page), Launch::Detached(c) if c.get_program() == "firefox"));
        let browser_only = Launcher { browser: Some(browser), player: None, ..Default::default() };
        assert!(
            matches!(browser_only.launch("u", OpenKind::Media), Launch::Detached(c) if c.get_program() == "firefox")
        );
    }

    #[test]
    fn a_feed_with_a_browser_of_its_own_opens_its_pages_with_it() {
        let own = CommandLine::parse("w3m %u", None).unwrap();
        let player = CommandLine::parse("mpv", None).unwrap();
        let launcher = Launcher::new(Some(CommandLine::parse("firefox", None).unwrap()), Some(player), None)
            .with_feeds([("http://a.example/feed".to_string(), own)].into_iter().collect());
        let page = |feed: Option<&str>| match launcher.for_feed(feed).launch("http://x/", OpenKind::Page) {
            Launch::Foreground(c) | Launch::Detached(c) => c.get_program().to_string_lossy().into_owned(),
            Launch::Platform(_) => "platform".into(),
        };
        assert_eq!(page(Some("http://a.example/feed")), "w3m");
        assert_eq!(page(Some("http://b.example/feed")), "firefox", "another feed: the reader's browser");
        assert_eq!(page(None), "firefox");
        let media = launcher.for_feed(Some("http://a.example/feed")).launch("http://x/a.mp3", OpenKind::Media);
        assert!(matches!(media, Launch::Foreground(c) if c.get_program() == "mpv"), "media still go to the player");
        launcher.set_feeds(Default::default());
        assert_eq!(page(Some("http://a.example/feed")), "firefox", "a setting removed while the reader runs");
    }
}
