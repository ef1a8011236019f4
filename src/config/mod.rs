//! Configuration: the TOML file (every key optional), and where tidings keeps its files.
//!
//! Errors name the file and the key, and say what a good value looks like.

use crate::app::keymap::Keymap;
use crate::ui::Theme;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub mod edit;
mod hooks;
mod lines;
mod paths;
mod resolved;
mod suggest;
#[cfg(test)]
mod tests;
mod validate;

pub use hooks::HookConfig;
use lines::{dotted, line_of, line_of_parts};
pub use paths::Paths;
pub use resolved::Sorts;

/// Everything the config file can say. Unknown keys are an error (a typo must not be silently ignored).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Refresh every feed in the background when the reader starts.
    pub refresh_on_startup: bool,
    /// An OPML file imported (duplicates skipped) every time the reader starts.
    pub import_opml: Option<PathBuf>,
    /// How many feeds are refreshed at the same time (fetched, read or waiting to be stored); fewer when the
    /// open-files limit allows no more (see [`crate::fetch::socket_budget`]).
    pub concurrency: usize,
    /// How many requests may go to one host at the same time.
    pub per_host_concurrency: usize,
    /// Minutes between automatic refreshes while the reader runs; 0 turns them off.
    pub refresh_interval_minutes: u64,
    /// Seconds to wait for a connection to be established.
    pub connect_timeout_secs: u64,
    /// Seconds a whole request (connect, headers and body) may take.
    pub timeout_secs: u64,
    /// Largest feed accepted, in megabytes (after decompression).
    pub max_feed_size_mb: u64,
    /// Encodings forced for particular feeds, by feed URL (the `e` key does the same from the reader).
    pub encoding: BTreeMap<String, String>,
    /// The command line that opens pages (`%u` is the address); unset: `$BROWSER`, else the platform's opener.
    pub browser: Option<String>,
    /// Whether the browser runs in the terminal (w3m, lynx); unset: known terminal browsers do.
    pub browser_in_terminal: Option<bool>,
    /// The command line that plays media (podcasts, videos); unset: the browser.
    pub player: Option<String>,
    /// Whether the player runs in the terminal; unset: known terminal players (mpv, mplayer…) do.
    pub player_in_terminal: Option<bool>,
    /// Where enclosures are downloaded; unset: the platform's download folder, `tidings` inside.
    pub download_dir: Option<PathBuf>,
    /// The downloaded file's name: `{feed}`, `{title}`, `{date}`, `{ext}`; a `/` makes a folder.
    pub download_name: String,
    /// Downloads at once.
    pub max_downloads: usize,
    /// Kilobytes per second for all downloads together; 0 is no limit.
    pub download_rate_limit_kb: u64,
    /// New entries' enclosures are downloaded as a refresh brings them (podboat's automatic download), for
    /// every feed; a feed's own `auto_download` says otherwise for it.
    pub auto_download: bool,
    /// The mouse: the wheel scrolls the pane under the pointer, a click selects. Off leaves the mouse to the
    /// terminal (selecting text to copy).
    pub mouse: bool,
    /// The widest the article's text gets, in columns.
    pub text_width: u16,
    /// Centre the article's text in a wider pane (false: keep it at the left).
    pub text_centered: bool,
    /// Pictures in the article: the terminal's best protocol (`auto`), one forced, or `off`.
    pub images: crate::pictures::detect::Images,
    /// Megabytes of pictures kept on disk between sessions (the oldest go first); 0 keeps none.
    pub image_cache_mb: u64,
    /// Read entries are deleted this many days after they arrived; 0 keeps them for ever.
    pub keep_days: u32,
    /// At most this many entries per feed (its newest); 0 is no limit.
    pub max_entries_per_feed: u32,
    /// Unread entries are purged too (by `keep_days` and `max_entries_per_feed`); starred ones never are.
    pub purge_unread: bool,
    /// Feed health: a feed failing this many days in a row is `dead` (whatever the error).
    pub dead_after_days: u32,
    /// Feed health: a feed with no new entry for longer than this many days (and four times its usual gap
    /// between entries) is `quiet`.
    pub quiet_after_days: u32,
    /// `[feeds."URL"]`: retention of particular feeds, by feed URL.
    pub feeds: BTreeMap<String, FeedConfig>,
    /// `[keys]`: rebinds actions (every action and its keys: docs/keys.md).
    pub keys: toml::Table,
    /// `[colors]`: a style per element the reader draws.
    pub colors: toml::Table,
    /// `[[accounts]]`: servers that hold subscriptions and read state (FreshRSS, Miniflux…), synced both ways.
    pub accounts: Vec<crate::sync::AccountConfig>,
    /// Start with feeds that have nothing unread left out of the feed list (the `hide_read_feeds` action
    /// toggles it, and the reader remembers the last choice).
    pub hide_read_feeds: bool,
    /// The order of a list the reader has not been told another for (`S`, `:set sort`): `newest`, `oldest`,
    /// `feed` or `title`; `[feeds."URL"]` and `[[views]]` take a `sort` of their own.
    pub sort: String,
    /// `q` asks before quitting (newsboat's `confirm-exit`).
    pub confirm_quit: bool,
    /// The command line a bookmark is handed to: `%u` is the entry's address, `%t` its title, `%d` a description
    /// (empty), `%f` the feed's title (each one whole argument; all four last when none appears, as newsboat's
    /// `bookmark-cmd` gets them; no shell unless the line is `sh -c '…'`).
    pub bookmark_command: Option<String>,
    /// The command line that copies an address: it reads the address on its standard input (`wl-copy`,
    /// `xclip -selection clipboard`); unset: the terminal's clipboard (OSC 52).
    pub copy_command: Option<String>,
    /// The command line an entry is handed to by `save_for_later` (`W`): `%u` its address, `%t` its title (each
    /// one whole argument; no shell unless the line is `sh -c '…'`).
    pub save_command: Option<String>,
    /// Where each entry exported as Markdown goes in the folder exported to (`E` in the reader, `tidings export
    /// --markdown`): `{feed}`, `{date}`, `{title}`, `{year}`, `{month}`, `{author}`, `{id}`.
    pub export_path: String,
    /// `[macros]`: a key pressed after the macro key, and the actions it runs in order (`v = ["open",
    /// "open_in_browser"]`).
    pub macros: BTreeMap<String, Vec<String>>,
    /// `[[views]]`: saved views, queries listed under the smart views.
    pub views: Vec<ViewConfig>,
    /// `[[ignore]]`: kill rules; the entries they match are kept but never shown, counted or notified.
    pub ignore: Vec<IgnoreConfig>,
    /// How new entries of feeds that notify are told: `"desktop"` (notify-send) or `"off"`.
    pub notify: String,
    /// A command run (no shell) when a refresh or sync brings entries of feeds that notify: the entries as JSON
    /// on its standard input, `%n` (how many), `%f` (the feed, or "N feeds") and `%t` (the first title) in its
    /// arguments.
    pub notify_command: Option<String>,
    /// Every feed notifies (else those with `notify = true` in their `[feeds."URL"]`).
    pub notify_every_feed: bool,
    /// The terminal window's title shows the unread count.
    pub window_title: bool,
    /// `[[hooks]]`: programs and addresses told of new entries, stars, feeds failing (see `docs/daemon.md`).
    pub hooks: Vec<HookConfig>,
    /// How long a hook may take before it is stopped and the delivery tried again.
    pub hook_timeout_seconds: u64,
    /// How many times a delivery a hook did not take is tried again before it is given up on (and said).
    pub hook_retries: u32,
    /// The first wait before trying again, doubled each time (an hour at most).
    pub hook_retry_seconds: u64,
    /// Where the file was read from (the reader edits it in place: saving a view, a feed's settings).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// What the file says that is allowed but unwise (a password others may read): said at start.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// The keymap in effect: the defaults with `[keys]` applied.
    #[serde(skip)]
    pub keymap: Keymap,
    /// The colours in effect: the default theme (monochrome under `NO_COLOR`) with `[colors]` applied.
    #[serde(skip)]
    pub theme: Theme,
}

/// Feeds refreshed at once by default: enough that a refresh waits on round trips to the slowest hosts, not on
/// a queue (a thousand feeds on two hundred hosts 100 ms away take four round trips, one when they only ask whether
/// the feed changed: see [`crate::fetch::Weight`]), while the feeds in flight
/// stay a few tens of megabytes and the sockets well inside the usual open-files limit.
pub const DEFAULT_CONCURRENCY: usize = 256;

impl Default for Config {
    fn default() -> Self {
        let fetch = crate::fetch::FetchConfig::default();
        Config {
            refresh_on_startup: true,
            import_opml: None,
            concurrency: DEFAULT_CONCURRENCY,
            per_host_concurrency: 6,
            refresh_interval_minutes: 60,
            connect_timeout_secs: fetch.connect_timeout.as_secs(),
            timeout_secs: fetch.timeout.as_secs(),
            max_feed_size_mb: fetch.max_body_bytes / (1024 * 1024),
            encoding: BTreeMap::new(),
            browser: None,
            browser_in_terminal: None,
            player: None,
            player_in_terminal: None,
            download_dir: None,
            download_name: crate::filename::DEFAULT_TEMPLATE.into(),
            max_downloads: 2,
            download_rate_limit_kb: 0,
            auto_download: false,
            mouse: true,
            text_width: 100,
            text_centered: true,
            images: crate::pictures::detect::Images::Auto,
            image_cache_mb: 100,
            keep_days: 90,
            max_entries_per_feed: 0,
            purge_unread: false,
            dead_after_days: 7,
            quiet_after_days: 90,
            feeds: BTreeMap::new(),
            keys: toml::Table::new(),
            colors: toml::Table::new(),
            accounts: Vec::new(),
            hide_read_feeds: false,
            sort: "newest".into(),
            confirm_quit: false,
            bookmark_command: None,
            copy_command: None,
            save_command: None,
            export_path: crate::markdown::DEFAULT_TEMPLATE.to_string(),
            macros: BTreeMap::new(),
            views: Vec::new(),
            ignore: Vec::new(),
            notify: "off".into(),
            notify_command: None,
            notify_every_feed: false,
            window_title: true,
            hooks: Vec::new(),
            hook_timeout_seconds: 10,
            hook_retries: 6,
            hook_retry_seconds: 10,
            path: None,
            warnings: Vec::new(),
            keymap: Keymap::default(),
            theme: Theme::default(),
        }
    }
}

/// `[feeds."URL"]`: settings of one feed; what is not set comes from the top level. The config is these
/// settings' source of truth: the reader's feed-info window edits this table in the file, and what queries
/// need of it (notify, hidden from Unread, the refresh interval) is copied onto the feed in the cache at every
/// start and edit.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct FeedConfig {
    pub keep_days: Option<u32>,
    pub max_entries_per_feed: Option<u32>,
    pub purge_unread: Option<bool>,
    /// Refresh this feed every N minutes (instead of `refresh_interval_minutes`).
    pub refresh_minutes: Option<u32>,
    /// Honour the feed's own `<ttl>` / `sy:updatePeriod` (on by default; a day at most).
    pub honour_ttl: Option<bool>,
    /// Fetch new entries in full (the page behind their link) on refresh.
    pub full_text: Option<bool>,
    /// Say when a refresh brings new entries (see `notify` and `notify_command`).
    pub notify: Option<bool>,
    /// The command line that opens this feed's pages (`%u`), instead of `browser`.
    pub browser: Option<String>,
    /// Leave this feed's entries out of the Unread view (they still count in its own row).
    pub hide_from_unread: Option<bool>,
    /// Where this feed's enclosures are downloaded, instead of `download_dir`.
    pub download_dir: Option<PathBuf>,
    /// This feed's file names, instead of `download_name`.
    pub download_name: Option<String>,
    /// A program its enclosures are handed to instead of downloading them (`yt-dlp -o {path} {url}`).
    pub download_command: Option<String>,
    /// Its new entries' enclosures are downloaded as a refresh brings them (instead of `auto_download`).
    pub auto_download: Option<bool>,
    /// The order of this feed's list until the reader is told another (see `sort`).
    pub sort: Option<String>,
}

/// `[[views]]`: a saved view.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ViewConfig {
    pub name: String,
    pub query: toml::Spanned<String>,
    /// The view's order until the reader is told another (see `sort`).
    #[serde(default)]
    pub sort: Option<String>,
}

/// `[[ignore]]`: a kill rule, for every feed or for one feed (its address or name) or folder.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IgnoreConfig {
    pub query: toml::Spanned<String>,
    pub feed: Option<String>,
    pub folder: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}{}", if source.kind() == std::io::ErrorKind::NotFound {
        " (a file named with --config must exist: create it, an empty one will do, or leave --config out)"
    } else {
        ""
    })]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config file {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot find a home directory for tidings's files; pass --config and --db explicitly")]
    NoHome,
}

impl Config {
    /// Reads `path`; a missing file is the default configuration only when `required` is false (the default
    /// location), while a file named with `--config` must exist.
    pub fn load(path: &Path, required: bool) -> Result<Config, ConfigError> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && !required => {
                // Still the file the reader creates when it saves a view or a feed's setting.
                return Ok(Config { path: Some(path.to_path_buf()), ..Config::default() });
            }
            Err(source) => {
                return Err(ConfigError::Read { path: path.to_path_buf(), source });
            }
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
            let column = at - bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |nl| nl + 1) + 1;
            let message = format!(
                "line {line}, byte {column}: 0x{:02X} is not UTF-8; save the file as UTF-8 (a config file is UTF-8 text)",
                bytes[at]
            );
            ConfigError::Invalid { path: path.to_path_buf(), message }
        })?;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let mut config = Config::parse_with(&text, no_color)
            .map_err(|message| ConfigError::Invalid { path: path.to_path_buf(), message })?;
        config.path = Some(path.to_path_buf());
        // A password in a file others may read is said (the file is the user's to fix).
        if config.accounts.iter().any(|a| a.password.is_some()) && readable_by_others(path) {
            config.warnings.push(format!(
                "{} holds an account's password and others may read it: `chmod 600 {}`, or use \
                 password_command or password_file",
                path.display(),
                path.display()
            ));
        }
        for account in &mut config.accounts {
            if let Some(file) = &account.password_file {
                let expanded = expand_home(file);
                account.password_file = Some(match path.parent() {
                    Some(dir) if expanded.is_relative() => dir.join(expanded),
                    _ => expanded,
                });
            }
        }
        // A relative OPML path is relative to the config file, not to wherever tidings was started.
        if let Some(opml) = &config.import_opml {
            let expanded = expand_home(opml);
            config.import_opml = Some(match path.parent() {
                Some(dir) if expanded.is_relative() => dir.join(expanded),
                _ => expanded,
            });
        }
        Ok(config)
    }

    /// Parses and validates config text; the error message names the key.
    pub fn parse(text: &str) -> Result<Config, String> {
        Config::parse_with(text, false)
    }

    /// Parses and validates config text; `no_color` starts from the monochrome theme (`NO_COLOR`), which
    /// `[colors]` may still change. The error message names the line and the key.
    pub fn parse_with(text: &str, no_color: bool) -> Result<Config, String> {
        let mut config: Config = toml::from_str(text).map_err(|e| {
            let msg = suggest::unknown_key(e.message()).unwrap_or_else(|| e.message().to_string());
            let Some(span) = e.span() else { return msg };
            let start = span.start.min(text.len());
            let line_no = text[..start].matches('\n').count() + 1;
            let line = text.lines().nth(line_no - 1).unwrap_or("");
            // Type and value errors point at the value; name the key they belong to.
            match line.split_once('=').map(|(k, _)| k.trim()).filter(|k| !k.is_empty() && !msg.contains(k)) {
                Some(key) => format!("line {line_no}, key `{key}`: {msg}"),
                None => format!("line {line_no}: {msg}"),
            }
        })?;
        config.validate().map_err(|(key, want)| match line_of_parts(text, &key) {
            Some(line) => format!("line {line}, key `{}`: {want}", dotted(&key)),
            None => format!("key `{}`: {want}", dotted(&key)),
        })?;
        config.validate_accounts(text)?;
        config.validate_rules(text)?;
        config.validate_hooks(text)?;
        let at = |key: &str| match line_of(text, key) {
            Some(line) => format!("line {line}, key `{key}`"),
            None => format!("key `{key}`"),
        };
        let (keymap, moved) =
            Keymap::with_config_told(&config.keys).map_err(|e| format!("{}: {}", at(&e.key), e.message))?;
        config.keymap = keymap;
        config.warnings.extend(moved.into_iter().map(|(key, message)| format!("{}: {message}", at(&key))));
        for (key, actions) in &config.macros {
            let name = format!("macros.{key}");
            crate::app::keymap::Key::parse(key).map_err(|e| format!("{}: {e}", at(&name)))?;
            if actions.is_empty() {
                return Err(format!("{}: a macro runs at least one action", at(&name)));
            }
            for action in actions {
                if crate::app::commands::MacroStep::named(action).is_none() {
                    return Err(format!(
                        "{}: '{action}' is not an action (the names are those of [keys], `tidings keys` lists them) \
                         nor a command line (':pipe urlview')",
                        at(&name)
                    ));
                }
            }
        }
        let base = if no_color { Theme::monochrome() } else { Theme::default() };
        config.theme = base.with_config(&config.colors).map_err(|(key, message)| format!("{}: {message}", at(&key)))?;
        Ok(config)
    }
}

/// Whether people other than the file's owner may read it.
fn readable_by_others(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o044 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

fn expand_home(path: &Path) -> PathBuf {
    match path.strip_prefix("~") {
        Ok(rest) => match directories::BaseDirs::new() {
            Some(base) => base.home_dir().join(rest),
            None => path.to_path_buf(),
        },
        Err(_) => path.to_path_buf(),
    }
}
