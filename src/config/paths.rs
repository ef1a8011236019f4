//! Where tidings's files live.

use super::ConfigError;
use std::path::{Path, PathBuf};

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
    pub fn resolve(config: Option<&Path>, db: Option<&Path>, log: Option<&Path>) -> Result<Paths, ConfigError> {
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
        let log = match (log, &dirs) {
            (Some(p), _) => p.to_path_buf(),
            (None, Some(d)) => d.state_dir().unwrap_or(d.cache_dir()).join("tidings.log"),
            (None, None) => std::env::temp_dir().join("tidings.log"),
        };
        Ok(Paths { config: config_path, config_explicit: config.is_some(), db: db_path, log })
    }
}
