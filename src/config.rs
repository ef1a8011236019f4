//! Configuration: the TOML file (every key optional), and where tidings keeps its files.
//!
//! Errors name the file and the key, and say what a good value looks like.

use crate::app::keymap::Keymap;
use crate::command::CommandLine;
use crate::ui::Theme;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod edit;

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
    /// `[feeds."URL"]`: retention of particular feeds, by feed URL.
    pub feeds: BTreeMap<String, FeedConfig>,
    /// `[keys]`: rebinds actions (see the keymap in README).
    pub keys: toml::Table,
    /// `[colors]`: a style per element the reader draws.
    pub colors: toml::Table,
    /// `[[accounts]]`: servers that hold subscriptions and read state (FreshRSS, Miniflux…), synced both ways.
    pub accounts: Vec<crate::sync::AccountConfig>,
    /// Start with feeds that have nothing unread left out of the feed list (the `hide_read_feeds` action
    /// toggles it, and the reader remembers the last choice).
    pub hide_read_feeds: bool,
    /// The command line a bookmark is handed to: `%u` is the entry's address, `%t` its title (each one whole
    /// argument; no shell unless the line is `sh -c '…'`).
    pub bookmark_command: Option<String>,
    /// The command line that copies an address: it reads the address on its standard input (`wl-copy`,
    /// `xclip -selection clipboard`); unset: the terminal's clipboard (OSC 52).
    pub copy_command: Option<String>,
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
            mouse: true,
            text_width: 100,
            text_centered: true,
            images: crate::pictures::detect::Images::Auto,
            image_cache_mb: 100,
            keep_days: 90,
            max_entries_per_feed: 0,
            purge_unread: false,
            feeds: BTreeMap::new(),
            keys: toml::Table::new(),
            colors: toml::Table::new(),
            accounts: Vec::new(),
            hide_read_feeds: false,
            bookmark_command: None,
            copy_command: None,
            macros: BTreeMap::new(),
            views: Vec::new(),
            ignore: Vec::new(),
            notify: "off".into(),
            notify_command: None,
            notify_every_feed: false,
            window_title: true,
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
}

/// `[[views]]`: a saved view.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ViewConfig {
    pub name: String,
    pub query: toml::Spanned<String>,
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
    #[error("cannot read config file {path}: {source}")]
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
            let msg = e.message().to_string();
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
                if crate::app::keymap::Action::named(action).is_none() {
                    return Err(format!(
                        "{}: '{action}' is not an action (the names are those of [keys], `tidings keys` lists them)",
                        at(&name)
                    ));
                }
            }
        }
        let base = if no_color { Theme::monochrome() } else { Theme::default() };
        config.theme = base.with_config(&config.colors).map_err(|(key, message)| format!("{}: {message}", at(&key)))?;
        Ok(config)
    }

    /// Checks every value's range; an error is the key (its parts, as `line_of_parts` finds them) and what a
    /// good value looks like.
    fn validate(&self) -> Result<(), (Vec<String>, String)> {
        let check = |ok: bool, key: &str, want: &str| {
            if ok { Ok(()) } else { Err((vec![key.to_string()], want.to_string())) }
        };
        check((1..=4096).contains(&self.concurrency), "concurrency", "must be between 1 and 4096")?;
        check((1..=256).contains(&self.per_host_concurrency), "per_host_concurrency", "must be between 1 and 256")?;
        check(
            self.refresh_interval_minutes <= 7 * 24 * 60,
            "refresh_interval_minutes",
            "must be at most a week (10080)",
        )?;
        check((1..=600).contains(&self.connect_timeout_secs), "connect_timeout_secs", "must be between 1 and 600")?;
        check((1..=3600).contains(&self.timeout_secs), "timeout_secs", "must be between 1 and 3600")?;
        check((1..=1024).contains(&self.max_feed_size_mb), "max_feed_size_mb", "must be between 1 and 1024")?;
        check((20..=1000).contains(&self.text_width), "text_width", "must be between 20 and 1000 columns")?;
        check(
            self.image_cache_mb <= 100_000,
            "image_cache_mb",
            "must be at most 100000 (0 keeps no pictures on disk)",
        )?;
        let retention_keys = std::iter::once((Vec::new(), Some(self.keep_days), Some(self.max_entries_per_feed)))
            .chain(
                self.feeds
                    .iter()
                    .map(|(url, f)| (vec!["feeds".to_string(), url.clone()], f.keep_days, f.max_entries_per_feed)),
            );
        for (table, keep_days, max_entries) in retention_keys {
            let key = |name: &str| table.iter().cloned().chain([name.to_string()]).collect::<Vec<_>>();
            if keep_days.is_some_and(|d| d > 36_500) {
                return Err((key("keep_days"), "must be at most 36500 days (0 keeps entries for ever)".into()));
            }
            if max_entries.is_some_and(|m| m > 10_000_000) {
                return Err((key("max_entries_per_feed"), "must be at most 10000000 (0 is no limit)".into()));
            }
        }
        check(
            matches!(self.notify.as_str(), "off" | "desktop"),
            "notify",
            "must be \"off\" or \"desktop\" (a desktop notification through notify-send)",
        )?;
        if let Some(line) = &self.notify_command {
            CommandLine::parse(line, None).map_err(|e| {
                (vec!["notify_command".to_string()], format!("{e} (write it like \"notify-me %n %f\")"))
            })?;
        }
        for (url, feed) in &self.feeds {
            let key = |name: &str| vec!["feeds".to_string(), url.clone(), name.to_string()];
            if let Some(line) = &feed.browser {
                CommandLine::parse(line, None)
                    .map_err(|e| (key("browser"), format!("{e} (write it like \"w3m %u\")")))?;
            }
            if feed.refresh_minutes.is_some_and(|m| !(1..=7 * 24 * 60).contains(&m)) {
                return Err((key("refresh_minutes"), "must be between 1 and 10080 (a week)".into()));
            }
        }
        for (key, line) in [
            ("browser", &self.browser),
            ("player", &self.player),
            ("bookmark_command", &self.bookmark_command),
            ("copy_command", &self.copy_command),
        ] {
            if let Some(line) = line {
                CommandLine::parse(line, None)
                    .map_err(|e| (vec![key.to_string()], format!("{e} (write it like \"w3m %u\")")))?;
            }
        }
        for (url, label) in &self.encoding {
            use crate::decode::labels::{Label, resolve};
            let key = vec!["encoding".to_string(), url.clone()];
            match resolve(label) {
                Label::Unknown => return Err((key, format!("'{label}' is not an encoding tidings knows"))),
                Label::Unsupported(name) => return Err((key, format!("{name} cannot be decoded by tidings"))),
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks `[[accounts]]`: a name each (unique), a protocol tidings speaks, an http(s) address, a user, and
    /// exactly one place for the password. Errors name the account's line.
    fn validate_accounts(&self, text: &str) -> Result<(), String> {
        let lines: Vec<usize> =
            text.lines().enumerate().filter(|(_, l)| l.trim() == "[[accounts]]").map(|(i, _)| i + 1).collect();
        let mut names = std::collections::HashSet::new();
        for (i, account) in self.accounts.iter().enumerate() {
            let at = match lines.get(i) {
                Some(line) => format!("line {line}, [[accounts]] {}", account.name),
                None => format!("[[accounts]] {}", account.name),
            };
            let fail = |message: String| Err(format!("{at}: {message}"));
            if account.name.trim().is_empty() || account.name.contains('/') {
                return fail("`name` must be a name (no '/'): the folder its feeds go in".into());
            }
            if !names.insert(account.name.to_lowercase()) {
                return fail("another account has this `name`; give each its own".into());
            }
            if !crate::sync::ACCOUNT_KINDS.contains(&account.kind.as_str()) {
                return fail(format!(
                    "`kind` '{}' is not a protocol tidings speaks; write \"greader\" (the Google Reader API: FreshRSS, \
                     Miniflux, Inoreader, The Old Reader, BazQux)",
                    account.kind
                ));
            }
            if !(account.url.starts_with("http://") || account.url.starts_with("https://")) {
                return fail(
                    "`url` must be the API's http(s) address (FreshRSS: https://your.server/api/greader.php)".into(),
                );
            }
            if account.user.trim().is_empty() {
                return fail("`user` is empty".into());
            }
            let sources =
                [account.password.is_some(), account.password_command.is_some(), account.password_file.is_some()];
            match sources.iter().filter(|s| **s).count() {
                1 => {}
                0 => return fail("give `password`, `password_command` or `password_file`".into()),
                _ => return fail("give only one of `password`, `password_command` and `password_file`".into()),
            }
        }
        Ok(())
    }

    /// Checks the queries of `[[views]]` and `[[ignore]]`: each parses, and a view has a name of its own. An
    /// error names the line and the column in the file, and the column in the query.
    fn validate_rules(&self, text: &str) -> Result<(), String> {
        let mut names = std::collections::HashSet::new();
        for view in &self.views {
            let what = format!("[[views]] \"{}\"", crate::sanitize::one_line(&view.name, 80));
            if view.name.trim().is_empty() {
                return Err(format!(
                    "{}: [[views]]: `name` is empty; give the view a name",
                    place(text, view.query.span().start)
                ));
            }
            if !names.insert(view.name.to_lowercase()) {
                return Err(format!("{}: {what}: another view has this name", place(text, view.query.span().start)));
            }
            check_query(text, &view.query, &what)?;
        }
        for rule in &self.ignore {
            check_query(text, &rule.query, "[[ignore]]")?;
            if rule.feed.is_some() && rule.folder.is_some() {
                return Err(format!(
                    "{}: [[ignore]]: give `feed` or `folder`, not both",
                    place(text, rule.query.span().start)
                ));
            }
        }
        Ok(())
    }

    /// The kill rules as queries: each `[[ignore]]`'s query, narrowed to its feed or folder.
    pub fn kill_rules(&self) -> Vec<crate::query::Query> {
        use crate::query::{Condition, Field, Op, Query, Value, parse};
        self.ignore
            .iter()
            .filter_map(|rule| {
                let query = parse(rule.query.get_ref()).ok()?;
                let scope = match (&rule.feed, &rule.folder) {
                    (Some(feed), _) => Some((Field::Feed, feed)),
                    (None, Some(folder)) => Some((Field::Folder, folder)),
                    (None, None) => None,
                };
                Some(match scope {
                    Some((field, name)) => {
                        let value = Value::Text { text: name.clone(), prefix: false };
                        query.and(Query::Cond(Condition { field, op: Op::Eq, value }))
                    }
                    None => query,
                })
            })
            .collect()
    }

    /// The saved views: name and query.
    pub fn saved_views(&self) -> Vec<(String, String)> {
        self.views.iter().map(|v| (v.name.clone(), v.query.get_ref().clone())).collect()
    }

    /// The `browser` setting, when there is one.
    pub fn browser_command(&self) -> Option<CommandLine> {
        CommandLine::parse(self.browser.as_deref()?, self.browser_in_terminal).ok()
    }

    /// The feeds with a browser of their own (`[feeds."URL"] browser`), by URL; `browser_in_terminal` says
    /// how they run, as for `browser`.
    pub fn feed_browsers(&self) -> std::collections::HashMap<String, CommandLine> {
        self.feeds
            .iter()
            .filter_map(|(url, f)| {
                Some((url.clone(), CommandLine::parse(f.browser.as_deref()?, self.browser_in_terminal).ok()?))
            })
            .collect()
    }

    /// The `player` setting, when there is one.
    pub fn player_command(&self) -> Option<CommandLine> {
        CommandLine::parse(self.player.as_deref()?, self.player_in_terminal).ok()
    }

    /// Where pictures are kept between sessions (the cache directory, XDG's on Linux), and how much.
    pub fn picture_cache(&self) -> (Option<PathBuf>, u64) {
        let dir = directories::ProjectDirs::from("", "", "tidings").map(|d| d.cache_dir().join("pictures"));
        (dir, self.image_cache_mb * 1024 * 1024)
    }

    /// The fetcher's settings.
    pub fn fetch_config(&self) -> crate::fetch::FetchConfig {
        crate::fetch::FetchConfig {
            connect_timeout: self.connect_timeout(),
            timeout: self.timeout(),
            max_body_bytes: self.max_feed_bytes(),
        }
    }

    /// What the engine needs of this config, per subsystem: what every front end opens its
    /// [`Session`](crate::session::Session) with.
    pub fn session_settings(&self) -> crate::session::Settings {
        crate::session::Settings {
            fetch: self.fetch_config(),
            concurrency: self.concurrency,
            per_host_concurrency: self.per_host_concurrency,
            forced_encodings: self.encoding.clone(),
            feeds: self.feed_settings(),
            retention: self.retention(),
            kill_rules: self.kill_rules(),
            notifier: crate::refresh::notify::Notifier::new(self.notify_command.as_deref(), &self.notify),
            accounts: self.accounts.clone(),
        }
    }

    pub fn connect_timeout(&self) -> Duration {
        Duration::from_secs(self.connect_timeout_secs)
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs)
    }

    /// The per-feed settings the cache keeps (see [`crate::store::feeds::apply_settings`]): the default for
    /// every feed, and each `[feeds."URL"]`'s.
    pub fn feed_settings(&self) -> crate::session::FeedSettingsTable {
        use crate::store::feeds::FeedSettings;
        let default = FeedSettings {
            notify: self.notify_every_feed,
            hide_from_unread: false,
            refresh_minutes: None,
            honour_ttl: true,
            full_text: None,
        };
        let feeds = self
            .feeds
            .iter()
            .map(|(url, f)| {
                let settings = FeedSettings {
                    notify: f.notify.unwrap_or(default.notify),
                    hide_from_unread: f.hide_from_unread.unwrap_or(false),
                    refresh_minutes: f.refresh_minutes,
                    honour_ttl: f.honour_ttl.unwrap_or(true),
                    full_text: f.full_text,
                };
                (url.clone(), settings)
            })
            .collect();
        crate::session::FeedSettingsTable { default, feeds }
    }

    /// How often the reader looks for feeds due: the automatic refresh interval in seconds; when that is off
    /// but some feeds have their own `refresh_minutes`, a century (only those feeds are ever due).
    pub fn auto_refresh_secs(&self) -> Option<i64> {
        self.refresh_interval_secs()
            .or_else(|| self.feeds.values().any(|f| f.refresh_minutes.is_some()).then_some(100 * 365 * 86_400))
    }

    /// The automatic refresh interval in seconds, or `None` when automatic refreshes are off.
    pub fn refresh_interval_secs(&self) -> Option<i64> {
        (self.refresh_interval_minutes > 0).then(|| self.refresh_interval_minutes as i64 * 60)
    }

    pub fn max_feed_bytes(&self) -> u64 {
        self.max_feed_size_mb * 1024 * 1024
    }

    /// What is kept and for how long: the top-level keys, and each `[feeds."URL"]` over them.
    pub fn retention(&self) -> crate::store::purge::Policy {
        use crate::store::purge::{Policy, Retention};
        let default = Retention {
            keep_days: self.keep_days,
            max_entries: self.max_entries_per_feed,
            purge_unread: self.purge_unread,
        };
        let feeds = self
            .feeds
            .iter()
            .map(|(url, f)| {
                let retention = Retention {
                    keep_days: f.keep_days.unwrap_or(default.keep_days),
                    max_entries: f.max_entries_per_feed.unwrap_or(default.max_entries),
                    purge_unread: f.purge_unread.unwrap_or(default.purge_unread),
                };
                (url.clone(), retention)
            })
            .collect();
        Policy { default, feeds }
    }
}

/// "line L, column C" of a byte offset in the file.
fn place(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("line {line}, column {column}")
}

/// Parses a query of the file; an error names the line and column in the file, and the column in the query.
fn check_query(text: &str, query: &toml::Spanned<String>, what: &str) -> Result<(), String> {
    let Err(e) = crate::query::parse(query.get_ref()) else { return Ok(()) };
    // In a one-line string without escapes, the query's column is the file's, one quote on.
    let span = query.span();
    let raw = text.get(span.clone()).unwrap_or("");
    let plain = !raw.starts_with("\"\"\"") && !raw.starts_with("'''") && !raw.contains('\\') && !raw.contains('\n');
    let at = if plain {
        let skip: usize = raw.chars().take(e.column).map(char::len_utf8).sum();
        span.start + skip.min(raw.len())
    } else {
        span.start
    };
    Err(format!("{}: {what} query: {} (column {} of the query)", place(text, at), e.message, e.column))
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

/// The line (from 1) where a dotted key such as `keys.entries.open` is set: under its table's header, or as a
/// dotted key under a parent's.
fn line_of(text: &str, dotted: &str) -> Option<usize> {
    line_of_parts(text, &split_dotted(dotted))
}

/// [`line_of`] for a key given by its parts (a part may hold dots, as a feed's address does).
fn line_of_parts(text: &str, parts: &[String]) -> Option<usize> {
    let mut table: Vec<String> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(header) = line.strip_prefix('[') {
            table = split_dotted(outside_quotes(header, ']').map_or(header, |at| &header[..at]).trim_matches('['));
            if table == parts {
                // The key is a table of its own (`[keys.bogus]`): its header.
                return Some(i + 1);
            }
            continue;
        }
        let Some(equals) = outside_quotes(line, '=') else { continue };
        let mut path = table.clone();
        path.extend(split_dotted(&line[..equals]));
        if path == parts {
            return Some(i + 1);
        }
    }
    None
}

/// Where `c` first appears in `s` outside double quotes.
fn outside_quotes(s: &str, c: char) -> Option<usize> {
    let mut quoted = false;
    for (at, found) in s.char_indices() {
        match found {
            '"' => quoted = !quoted,
            _ if found == c && !quoted => return Some(at),
            _ => {}
        }
    }
    None
}

/// The parts of a dotted key, quotes removed: `feeds."http://x.example/rss".keep_days` is three.
fn split_dotted(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = key;
    while let Some(at) = outside_quotes(rest, '.') {
        parts.push(rest[..at].trim().trim_matches('"').to_string());
        rest = &rest[at + 1..];
    }
    parts.push(rest.trim().trim_matches('"').to_string());
    parts
}

/// A key's parts written as TOML writes them, a part that is not a bare key in quotes.
fn dotted(parts: &[String]) -> String {
    let bare = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    parts.iter().map(|p| if bare(p) { p.clone() } else { format!("\"{p}\"") }).collect::<Vec<_>>().join(".")
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

/// Where tidings's files live: flags first, then the platform's directories (XDG on Linux).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paths {
    pub config: PathBuf,
    /// Whether the config file was named explicitly (then it must exist).
    pub config_explicit: bool,
    pub db: PathBuf,
    pub log: PathBuf,
}

impl Paths {
    pub fn resolve(config: Option<&Path>, db: Option<&Path>) -> Result<Paths, ConfigError> {
        let dirs = directories::ProjectDirs::from("", "", "tidings");
        let from_dirs = |pick: fn(&directories::ProjectDirs) -> PathBuf, file: &str| {
            dirs.as_ref().map(|d| pick(d).join(file)).ok_or(ConfigError::NoHome)
        };
        let config_path = match config {
            Some(p) => p.to_path_buf(),
            None => from_dirs(|d| d.config_dir().to_path_buf(), "config.toml")?,
        };
        let db_path = match db {
            Some(p) => p.to_path_buf(),
            None => from_dirs(|d| d.data_dir().to_path_buf(), "tidings.db")?,
        };
        let log = match &dirs {
            Some(d) => d.state_dir().unwrap_or(d.cache_dir()).join("tidings.log"),
            None => std::env::temp_dir().join("tidings.log"),
        };
        Ok(Paths { config: config_path, config_explicit: config.is_some(), db: db_path, log })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_gives_defaults() {
        assert_eq!(Config::parse("").unwrap(), Config::default());
    }

    #[test]
    fn keys_are_read() {
        let c = Config::parse("refresh_on_startup = false\nconcurrency = 4\nimport_opml = \"subs.opml\"\n").unwrap();
        assert!(!c.refresh_on_startup);
        assert_eq!(c.concurrency, 4);
        assert_eq!(c.import_opml, Some(PathBuf::from("subs.opml")));
    }

    #[test]
    fn unknown_key_is_an_error_naming_it() {
        let err = Config::parse("refresh_on_start = true\n").unwrap_err();
        assert!(err.contains("refresh_on_start"), "{err}");
        assert!(err.contains("line 1"), "{err}");
    }

    #[test]
    fn wrong_type_is_an_error_naming_the_key() {
        let err = Config::parse("\nconcurrency = \"many\"\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("concurrency"), "{err}");
    }

    #[test]
    fn out_of_range_value_is_an_error_naming_the_key() {
        let err = Config::parse("concurrency = 0").unwrap_err();
        assert!(err.contains("`concurrency`"), "{err}");
        let err = Config::parse("concurrency = 4097").unwrap_err();
        assert!(err.contains("`concurrency`") && err.contains("4096"), "{err}");
    }

    #[test]
    fn an_out_of_range_value_names_its_line() {
        let err = Config::parse("mouse = false\n\nconcurrency = 0\n").unwrap_err();
        assert!(err.starts_with("line 3, key `concurrency`: must be between 1 and 4096"), "{err}");
        let err = Config::parse("[feeds.\"http://x.example/rss\"]\nkeep_days = 40000\n").unwrap_err();
        assert!(err.starts_with("line 2, key `feeds.\"http://x.example/rss\".keep_days`"), "{err}");
        let err = Config::parse("[encoding]\n\"http://x.example/rss\" = \"klingon\"\n").unwrap_err();
        assert!(err.starts_with("line 2, key `encoding.\"http://x.example/rss\"`"), "{err}");
    }

    #[test]
    fn invalid_utf8_names_its_line_and_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, b"mouse = false\n# caf\xe9 in Latin-1\nconcurrency = 8\n").unwrap();
        let err = Config::load(&path, true).unwrap_err();
        assert!(matches!(err, ConfigError::Invalid { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains("config.toml") && text.contains("line 2") && text.contains("UTF-8"), "{text}");
    }

    #[test]
    fn concurrency_defaults_to_hundreds_of_feeds_and_a_few_per_host() {
        let c = Config::default();
        assert_eq!((c.concurrency, c.per_host_concurrency), (DEFAULT_CONCURRENCY, 6));
        const { assert!(DEFAULT_CONCURRENCY >= 200, "a refresh must not queue on a small constant") };
        assert_eq!(Config::parse("concurrency = 1024").unwrap().concurrency, 1024);
    }

    #[test]
    fn forced_encodings_are_read_and_bad_labels_named() {
        let c = Config::parse("[encoding]\n\"http://x.example/rss\" = \"koi8-r\"\n").unwrap();
        assert_eq!(c.encoding.get("http://x.example/rss").map(String::as_str), Some("koi8-r"));
        let err = Config::parse("[encoding]\n\"http://x.example/rss\" = \"klingon\"\n").unwrap_err();
        assert!(err.contains("encoding.\"http://x.example/rss\"") && err.contains("klingon"), "{err}");
    }

    #[test]
    fn config_example_parses_and_documents_every_key() {
        let example = include_str!("../config.example.toml");
        let uncommented: String = example
            .lines()
            // A commented-out setting is `# key = value`; prose and indented examples stay comments.
            .map(|l| {
                l.strip_prefix("# ")
                    .filter(|r| {
                        r.split_once(" = ").is_some_and(|(key, _)| {
                            key.starts_with(|c: char| c.is_ascii_lowercase() || c == '"') && !key.contains(' ')
                        })
                    })
                    .unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n");
        Config::parse(&uncommented).unwrap();
        for key in [
            "refresh_on_startup",
            "import_opml",
            "concurrency",
            "per_host_concurrency",
            "refresh_interval_minutes",
            "connect_timeout_secs",
            "timeout_secs",
            "max_feed_size_mb",
            "browser",
            "browser_in_terminal",
            "player",
            "player_in_terminal",
            "mouse",
            "text_width",
            "text_centered",
            "images",
            "image_cache_mb",
            "keep_days",
            "max_entries_per_feed",
            "purge_unread",
            "notify",
            "notify_command",
            "notify_every_feed",
            "window_title",
            "refresh_minutes",
            "honour_ttl",
            "hide_from_unread",
            "[[views]]",
            "[[ignore]]",
        ] {
            assert!(
                example.contains(&format!("{key} =")) || example.contains(key),
                "config.example.toml does not document {key}"
            );
        }
    }

    #[test]
    fn browser_and_player_are_command_lines_checked_when_read() {
        let c =
            Config::parse("browser = \"w3m -T text/html %u\"\nplayer = \"mpv\"\nplayer_in_terminal = false\n").unwrap();
        let browser = c.browser_command().unwrap();
        assert_eq!(browser.words, ["w3m", "-T", "text/html", "%u"]);
        assert!(browser.in_terminal);
        assert!(!c.player_command().unwrap().in_terminal);
        let err = Config::parse("browser = \"firefox 'unclosed\"").unwrap_err();
        assert!(err.contains("key `browser`") && err.contains("unclosed"), "{err}");
    }

    #[test]
    fn vim_and_emacs_style_key_sets_are_read() {
        let vim = "[keys]\nhalf_page_down = \"Ctrl-d\"\npage_down = [\"PgDn\", \"Ctrl-f\"]\npage_up = [\"PgUp\", \"Ctrl-b\"]\n";
        let c = Config::parse(vim).unwrap();
        let ctrl_f = crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('f'),
            crossterm::event::KeyModifiers::CONTROL,
        );
        use crate::app::keymap::{Action, Context};
        assert_eq!(c.keymap.action(Context::Entries, &ctrl_f), Some(Action::PageDown));
        let emacs = "[keys]\ndown = [\"Ctrl-n\", \"Down\"]\nup = [\"Ctrl-p\", \"Up\"]\n\
                     page_down = [\"PgDn\", \"Ctrl-v\"]\npage_up = [\"PgUp\", \"Alt-v\"]\n\
                     [keys.prompt]\nclose = [\"Esc\", \"Ctrl-g\"]\n";
        let c = Config::parse(emacs).unwrap();
        let alt_v =
            crossterm::event::KeyEvent::new(crossterm::event::KeyCode::Char('v'), crossterm::event::KeyModifiers::ALT);
        assert_eq!(c.keymap.action(Context::Feeds, &alt_v), Some(Action::PageUp));
    }

    #[test]
    fn a_bad_binding_is_an_error_naming_the_line_and_the_key() {
        let err = Config::parse("refresh_on_startup = true\n[keys]\ndown = \"x\"\nup = \"x\"\n").unwrap_err();
        assert!(err.contains("line 4, key `keys.up`") && err.contains("x is also bound"), "{err}");
        let err = Config::parse("[keys]\nfrobnicate = \"x\"\n").unwrap_err();
        assert!(err.contains("line 2, key `keys.frobnicate`") && err.contains("not an action"), "{err}");
        let err = Config::parse("[keys.entries]\nopen = \"Ctrl-Banana\"\n").unwrap_err();
        assert!(err.contains("line 2, key `keys.entries.open`") && err.contains("Ctrl-Banana"), "{err}");
        let err = Config::parse("text_width = 80\n[keys.bogus]\nopen = \"x\"\n").unwrap_err();
        assert!(err.contains("line 2, key `keys.bogus`") && err.contains("not a context"), "{err}");
        let err = Config::parse("[keys.prompt]\nstar = \"x\"\n").unwrap_err();
        assert!(err.contains("line 2, key `keys.prompt.star`") && err.contains("does nothing in prompt"), "{err}");
        assert!(err.contains("general, feeds, entries, article"), "{err}");
        let works = "[keys.info]\ndown = \"x\"\nfeed_info = \"y\"\n[keys.picker]\nopen = \"o\"\n[keys.entries]\nrefresh = \"x\"\n\
                     [keys.prompt]\nquit = \"Ctrl-q\"\n";
        Config::parse(works).expect("each of these does something where it is bound");
    }

    #[test]
    fn colours_are_read_and_a_bad_one_is_named() {
        let c = Config::parse("[colors]\nlink = \"#ff8800 underlined\"\n").unwrap();
        assert_eq!(c.theme.link.fg, Some(ratatui::style::Color::Rgb(255, 136, 0)));
        let err = Config::parse("\n[colors]\nlink = \"purplish\"\n").unwrap_err();
        assert!(err.contains("line 3, key `colors.link`") && err.contains("purplish"), "{err}");
    }

    #[test]
    fn no_color_starts_from_the_monochrome_theme_and_colours_set_still_apply() {
        assert_eq!(Config::parse_with("", true).unwrap().theme, Theme::monochrome());
        let c = Config::parse_with("[colors]\nlink = \"red\"\n", true).unwrap();
        assert_eq!(c.theme.link.fg, Some(ratatui::style::Color::Red));
        assert_eq!(c.theme.selection, Theme::monochrome().selection);
    }

    #[test]
    fn retention_is_read_per_feed_over_the_top_level() {
        let c = Config::parse(
            "keep_days = 30\nmax_entries_per_feed = 500\n\
             [feeds.\"http://example.com/podcast\"]\nkeep_days = 0\npurge_unread = true\n",
        )
        .unwrap();
        let policy = c.retention();
        let podcast = policy.for_feed("http://example.com/podcast");
        assert_eq!((podcast.keep_days, podcast.max_entries, podcast.purge_unread), (0, 500, true));
        let other = policy.for_feed("http://example.com/other");
        assert_eq!((other.keep_days, other.max_entries, other.purge_unread), (30, 500, false));
        let defaults = Config::default().retention().default;
        assert_eq!((defaults.keep_days, defaults.max_entries, defaults.purge_unread), (90, 0, false));
    }

    #[test]
    fn a_bad_retention_key_is_named() {
        let err = Config::parse("[feeds.\"http://x\"]\nkeep_dayz = 3\n").unwrap_err();
        assert!(err.contains("keep_dayz"), "{err}");
        let err = Config::parse("[feeds.\"http://x\"]\nkeep_days = 99999\n").unwrap_err();
        assert!(err.contains("key `feeds.\"http://x\".keep_days`"), "{err}");
        let err = Config::parse("keep_days = -1\n").unwrap_err();
        assert!(err.contains("keep_days"), "{err}");
    }

    #[test]
    fn relative_opml_path_is_relative_to_the_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "import_opml = \"subs.opml\"").unwrap();
        let c = Config::load(&path, true).unwrap();
        assert_eq!(c.import_opml, Some(dir.path().join("subs.opml")));
    }

    #[test]
    fn missing_default_config_is_fine_but_a_named_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nope.toml");
        assert_eq!(Config::load(&path, false).unwrap(), Config { path: Some(path.clone()), ..Config::default() });
        assert!(matches!(Config::load(&path, true), Err(ConfigError::Read { .. })));
    }
}
