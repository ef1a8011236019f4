//! An account as the config gives it (`[[accounts]]`), and where its password comes from.

use serde::Deserialize;
use std::path::PathBuf;

/// `[[accounts]]`: one server to sync with.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    /// What to call it; its feeds sit under a folder of this name.
    pub name: String,
    /// The protocol: `greader` (the Google Reader API: FreshRSS, Miniflux, Inoreader, The Old Reader, BazQux).
    #[serde(default = "default_account_kind")]
    pub kind: String,
    /// The API's address (FreshRSS: `https://your.server/api/greader.php`).
    pub url: String,
    pub user: String,
    /// The API password (FreshRSS: set in its profile page), or one of the two below.
    pub password: Option<String>,
    /// A command whose output is the password (`pass show rss`), run by the user's shell when a login is needed.
    pub password_command: Option<String>,
    /// A file whose first line is the password.
    pub password_file: Option<PathBuf>,
}

fn default_account_kind() -> String {
    "greader".to_string()
}

/// Protocols tidings speaks.
pub const ACCOUNT_KINDS: &[&str] = &["greader"];

/// Where an account's password comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PasswordSource {
    Given(String),
    Command(String),
    File(PathBuf),
}

impl PasswordSource {
    /// The password (its first line, for a command's output or a file). Runs the command, or reads the file.
    pub fn read(&self) -> Result<String, String> {
        let text = match self {
            PasswordSource::Given(password) => return Ok(password.clone()),
            PasswordSource::Command(command) => {
                let shell = std::env::var_os("SHELL").filter(|s| !s.is_empty()).unwrap_or_else(|| "/bin/sh".into());
                let output = std::process::Command::new(&shell)
                    .arg("-c")
                    .arg(command)
                    .stdin(std::process::Stdio::null())
                    .output()
                    .map_err(|e| format!("cannot run `password_command` ({e})"))?;
                if !output.status.success() {
                    let said = String::from_utf8_lossy(&output.stderr);
                    return Err(format!(
                        "`password_command` ended with {}{}",
                        output.status,
                        if said.trim().is_empty() {
                            String::new()
                        } else {
                            format!(": {}", crate::sanitize::one_line(&said, 300))
                        }
                    ));
                }
                String::from_utf8_lossy(&output.stdout).into_owned()
            }
            PasswordSource::File(path) => std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read `password_file` {}: {e}", path.display()))?,
        };
        let password = text.lines().next().unwrap_or("").trim_end_matches('\r').to_string();
        if password.is_empty() { Err("the password it gives is empty".into()) } else { Ok(password) }
    }
}

impl AccountConfig {
    /// Where its password comes from (validation made sure there is exactly one).
    pub fn password_source(&self) -> PasswordSource {
        match (&self.password, &self.password_command, &self.password_file) {
            (Some(p), _, _) => PasswordSource::Given(p.clone()),
            (_, Some(c), _) => PasswordSource::Command(c.clone()),
            (_, _, Some(f)) => PasswordSource::File(f.clone()),
            (None, None, None) => PasswordSource::Given(String::new()),
        }
    }
}
