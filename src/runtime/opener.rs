//! Opening addresses outside tidings: the `browser` command line (or `$BROWSER`, or the platform's opener) for
//! pages, the `player` for media. A command line is split into arguments here — never handed to a shell — and
//! the address replaces `%u` (`%s` in `$BROWSER`'s convention) as one whole argument. A terminal program (w3m,
//! lynx, mpv…) gets the terminal while the reader waits; a graphical one runs on its own.

use crate::app::OpenKind;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Programs that draw in the terminal, and so need it to themselves.
const TERMINAL_PROGRAMS: &[&str] = &[
    "w3m", "lynx", "links", "links2", "elinks", "browsh", "cha", "chawan", "carbonyl", "mpv", "mplayer", "mpg123",
    "mpg321", "ffplay", "cvlc",
];

/// A command line to open something with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The program and its arguments; `%u` (or `%s`) marks where the address goes.
    pub words: Vec<String>,
    /// Whether it needs the terminal.
    pub in_terminal: bool,
}

impl CommandLine {
    /// A command line as configured; `in_terminal` unset means "if it is a program known to draw in the
    /// terminal".
    pub fn parse(line: &str, in_terminal: Option<bool>) -> Result<CommandLine, String> {
        let words = split_words(line)?;
        let Some(program) = words.first() else { return Err("the command is empty".into()) };
        let in_terminal = in_terminal.unwrap_or_else(|| is_terminal_program(program));
        Ok(CommandLine { words, in_terminal })
    }

    /// The command for `url`: the address replaces `%u`/`%s`, or goes last when neither appears.
    pub fn command(&self, url: &str) -> Command {
        let mut args: Vec<String> = Vec::with_capacity(self.words.len() + 1);
        let mut placed = false;
        for word in &self.words[1..] {
            if word.contains("%u") || word.contains("%s") {
                args.push(word.replace("%u", url).replace("%s", url));
                placed = true;
            } else {
                args.push(word.clone());
            }
        }
        if !placed {
            args.push(url.to_string());
        }
        let mut command = Command::new(&self.words[0]);
        command.args(args);
        command
    }

    pub fn program(&self) -> &str {
        &self.words[0]
    }
}

fn is_terminal_program(program: &str) -> bool {
    let name = Path::new(program).file_name().and_then(|n| n.to_str()).unwrap_or(program);
    TERMINAL_PROGRAMS.contains(&name)
}

/// Splits a command line into words as a shell would for plain words and quotes ('…', "…", and \ escapes),
/// without expanding anything: no variables, globs, pipes or redirections.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed ' in {line:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unclosed \" in {line:?}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed \" in {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(format!("a \\ ends {line:?}")),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

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
            Some(c) if c.in_terminal => Launch::Foreground(c.command(url)),
            Some(c) => Launch::Detached(c.command(url)),
            None => Launch::Platform(url.to_string()),
        }
    }

    /// Whether opening this kind takes the terminal.
    pub fn takes_terminal(&self, kind: OpenKind) -> bool {
        matches!(self.launch("x", kind), Launch::Foreground(_))
    }
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
    fn words_split_like_a_shell_without_expanding_anything() {
        assert_eq!(split_words("firefox --new-tab %u").unwrap(), ["firefox", "--new-tab", "%u"]);
        assert_eq!(
            split_words(r#"'my browser' "a b" c\ d $HOME *"#).unwrap(),
            ["my browser", "a b", "c d", "$HOME", "*"]
        );
        assert_eq!(split_words(r#"x "say \"hi\"""#).unwrap(), ["x", "say \"hi\""]);
        assert_eq!(split_words("x ''").unwrap(), ["x", ""]);
        assert!(split_words("x 'open").is_err());
    }

    #[test]
    fn the_address_is_one_whole_argument_wherever_it_goes() {
        let url = "https://example.com/a b;rm -rf ~&x=$(id)";
        let c = CommandLine::parse("w3m -T text/html %u", None).unwrap();
        assert!(c.in_terminal, "w3m draws in the terminal");
        assert_eq!(args(&c.command(url)), ["w3m", "-T", "text/html", url]);
        let c = CommandLine::parse("firefox", None).unwrap();
        assert!(!c.in_terminal);
        assert_eq!(args(&c.command(url)), ["firefox", url]);
        let c = CommandLine::parse("open --url=%s", Some(true)).unwrap();
        assert!(c.in_terminal, "the setting wins");
        assert_eq!(args(&c.command(url)), ["open", format!("--url={url}").as_str()]);
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
