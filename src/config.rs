//! Configuration: the TOML file (every key optional), and where tidings keeps its files.
//!
//! Errors name the file and the key, and say what a good value looks like.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything the config file can say. Unknown keys are an error (a typo must not be silently ignored).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Refresh every feed in the background when the reader starts.
    pub refresh_on_startup: bool,
    /// An OPML file imported (duplicates skipped) every time the reader starts.
    pub import_opml: Option<PathBuf>,
    /// How many feeds are fetched at the same time.
    pub concurrency: usize,
    /// How many of them may come from one host at the same time.
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            refresh_on_startup: true,
            import_opml: None,
            concurrency: 16,
            per_host_concurrency: 6,
            refresh_interval_minutes: 60,
            connect_timeout_secs: 10,
            timeout_secs: 30,
            max_feed_size_mb: 20,
            encoding: BTreeMap::new(),
        }
    }
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
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && !required => {
                return Ok(Config::default());
            }
            Err(source) => {
                return Err(ConfigError::Read { path: path.to_path_buf(), source });
            }
        };
        let mut config =
            Config::parse(&text).map_err(|message| ConfigError::Invalid { path: path.to_path_buf(), message })?;
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
        let config: Config = toml::from_str(text).map_err(|e| {
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
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), String> {
        let check = |ok: bool, key: &str, want: &str| {
            if ok { Ok(()) } else { Err(format!("key `{key}`: {want}")) }
        };
        check((1..=256).contains(&self.concurrency), "concurrency", "must be between 1 and 256")?;
        check((1..=256).contains(&self.per_host_concurrency), "per_host_concurrency", "must be between 1 and 256")?;
        check(
            self.refresh_interval_minutes <= 7 * 24 * 60,
            "refresh_interval_minutes",
            "must be at most a week (10080)",
        )?;
        check((1..=600).contains(&self.connect_timeout_secs), "connect_timeout_secs", "must be between 1 and 600")?;
        check((1..=3600).contains(&self.timeout_secs), "timeout_secs", "must be between 1 and 3600")?;
        check((1..=1024).contains(&self.max_feed_size_mb), "max_feed_size_mb", "must be between 1 and 1024")?;
        for (url, label) in &self.encoding {
            use crate::decode::labels::{Label, resolve};
            let key = format!("encoding.\"{url}\"");
            match resolve(label) {
                Label::Unknown => return Err(format!("key `{key}`: '{label}' is not an encoding tidings knows")),
                Label::Unsupported(name) => return Err(format!("key `{key}`: {name} cannot be decoded by tidings")),
                _ => {}
            }
        }
        Ok(())
    }

    pub fn connect_timeout(&self) -> Duration {
        Duration::from_secs(self.connect_timeout_secs)
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs)
    }

    /// The automatic refresh interval in seconds, or `None` when automatic refreshes are off.
    pub fn refresh_interval_secs(&self) -> Option<i64> {
        (self.refresh_interval_minutes > 0).then(|| self.refresh_interval_minutes as i64 * 60)
    }

    pub fn max_feed_bytes(&self) -> u64 {
        self.max_feed_size_mb * 1024 * 1024
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
    }

    #[test]
    fn forced_encodings_are_read_and_bad_labels_named() {
        let c = Config::parse("[encoding]\n\"http://x.ru/rss\" = \"koi8-r\"\n").unwrap();
        assert_eq!(c.encoding.get("http://x.ru/rss").map(String::as_str), Some("koi8-r"));
        let err = Config::parse("[encoding]\n\"http://x.ru/rss\" = \"klingon\"\n").unwrap_err();
        assert!(err.contains("encoding.\"http://x.ru/rss\"") && err.contains("klingon"), "{err}");
    }

    #[test]
    fn config_example_parses_and_documents_every_key() {
        let example = include_str!("../config.example.toml");
        let uncommented: String = example
            .lines()
            .map(|l| l.strip_prefix("# ").filter(|r| r.contains(" = ")).unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n");
        Config::parse(&uncommented).unwrap();
        for key in [
            "refresh_on_startup",
            "import_opml",
            "concurrency",
            "connect_timeout_secs",
            "timeout_secs",
            "max_feed_size_mb",
        ] {
            assert!(
                example.contains(&format!("{key} =")) || example.contains(key),
                "config.example.toml does not document {key}"
            );
        }
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
        assert_eq!(Config::load(&path, false).unwrap(), Config::default());
        assert!(matches!(Config::load(&path, true), Err(ConfigError::Read { .. })));
    }
}
