//! An account as the config gives it (`[[accounts]]`), and where its password comes from.

use crate::process::Limits;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `[[accounts]]`: one server to sync with.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    /// What to call it; its feeds sit under a folder of this name.
    pub name: String,
    /// The protocol: `greader` (the Google Reader API: FreshRSS, Miniflux, Inoreader, The Old Reader, BazQux), or
    /// `fever` (the Fever API: FreshRSS, Coldsweat, Miniflux, Tiny Tiny RSS's plug-in), or `miniflux` (Miniflux's
    /// own REST API; the password is an API key, or the user's password).
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
    /// The label `W` puts on an entry to save it for later (Google Reader API accounts; FreshRSS shows it as a
    /// label). Miniflux's own API saves through the server's integrations instead; Fever has no save.
    #[serde(default = "default_save_label")]
    pub save_label: String,
}

fn default_save_label() -> String {
    "Saved".to_string()
}

fn default_account_kind() -> String {
    "greader".to_string()
}

/// Protocols tidings speaks.
pub const ACCOUNT_KINDS: &[&str] = &["greader", "fever", "miniflux"];

/// Where an account's password comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PasswordSource {
    Given(String),
    Command(String),
    File(PathBuf),
}

/// How long a `password_command` may take: a password manager may ask for its own passphrase first.
const PASSWORD_DEADLINE: Duration = Duration::from_secs(60);
/// The most read of a command's output or of a `password_file`: the password is its first line.
const PASSWORD_READ: usize = 64 * 1024;
/// The longest password taken (real ones are tens of bytes).
const PASSWORD_MAX: usize = 4096;

impl PasswordSource {
    /// The password (its first line, for a command's output or a file). Runs the command, or reads the file,
    /// bounded: a command that hangs is stopped after a minute, a file that never ends (a device, a pipe nobody
    /// writes to) is read only so far, and either way only this account's sync fails. Blocks its thread: call it
    /// off the event loop.
    pub fn read(&self) -> Result<String, String> {
        self.read_within(PASSWORD_DEADLINE)
    }

    fn read_within(&self, deadline: Duration) -> Result<String, String> {
        let text = match self {
            PasswordSource::Given(password) => return Ok(password.clone()),
            PasswordSource::Command(command) => {
                let shell = std::env::var_os("SHELL").filter(|s| !s.is_empty()).unwrap_or_else(|| "/bin/sh".into());
                let mut run = std::process::Command::new(&shell);
                run.arg("-c").arg(command);
                let limits = Limits { deadline, output: PASSWORD_READ };
                let output =
                    crate::process::run(run, Vec::new(), limits).map_err(|e| format!("`password_command`: {e}"))?;
                if !output.status.success() {
                    let said = output.said();
                    return Err(format!(
                        "`password_command` ended with {}{}",
                        output.status,
                        if said.is_empty() { String::new() } else { format!(": {said}") }
                    ));
                }
                output.stdout
            }
            PasswordSource::File(path) => read_start(path, deadline)
                .map_err(|e| format!("cannot read `password_file` {}: {e}", path.display()))?,
        };
        first_line(&text).map_err(|e| match self {
            PasswordSource::File(path) => format!("`password_file` {}: {e}", path.display()),
            _ => format!("`password_command`: {e}"),
        })
    }
}

/// The password in what a command printed or a file holds: its first line, of a sane length.
fn first_line(text: &[u8]) -> Result<String, String> {
    let end = text.iter().position(|&b| b == b'\n').unwrap_or(text.len());
    let line = text[..end].strip_suffix(b"\r").unwrap_or(&text[..end]);
    if line.len() > PASSWORD_MAX {
        return Err(format!("its first line is over {PASSWORD_MAX} bytes long: that is not a password"));
    }
    let password = std::str::from_utf8(line).map_err(|_| "the password it gives is not UTF-8 text".to_string())?;
    if password.contains('\0') {
        return Err("the password it gives holds a NUL byte".into());
    }
    if password.is_empty() { Err("the password it gives is empty".into()) } else { Ok(password.to_string()) }
}

/// The first [`PASSWORD_READ`] bytes of `path`, within `deadline`: a named pipe is opened without waiting for a
/// writer and read only while one gives something.
fn read_start(path: &Path, deadline: Duration) -> std::io::Result<Vec<u8>> {
    use std::io::{ErrorKind, Read};
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let mut file = options.open(path)?.take(PASSWORD_READ as u64);
    let started = std::time::Instant::now();
    let mut text = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return Ok(text),
            Ok(n) => text.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if started.elapsed() > deadline {
                    return Err(std::io::Error::new(
                        ErrorKind::TimedOut,
                        format!("nothing more came within {} s", deadline.as_secs()),
                    ));
                }
                // A pipe whose writer has not written yet: look again shortly.
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
        if text.contains(&b'\n') {
            return Ok(text);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_the_first_line_of_a_sane_length() {
        assert_eq!(first_line(b"secret\r\nsecond line").unwrap(), "secret");
        assert!(first_line(b"").unwrap_err().contains("empty"));
        assert!(first_line(&vec![b'x'; PASSWORD_MAX + 1]).unwrap_err().contains("not a password"));
        assert!(first_line(b"a\0b\n").unwrap_err().contains("NUL"));
    }

    #[test]
    fn an_endless_password_file_is_read_only_so_far() {
        let started = std::time::Instant::now();
        let e = PasswordSource::File("/dev/zero".into()).read().unwrap_err();
        assert!(e.contains("/dev/zero") && e.contains("not a password"), "{e}");
        assert!(started.elapsed() < PASSWORD_DEADLINE);
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_nobody_writes_to_does_not_hang() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("password");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let e = PasswordSource::File(fifo).read().unwrap_err();
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn a_password_command_that_hangs_is_stopped_and_one_that_floods_is_read_only_so_far() {
        let quick = Duration::from_millis(300);
        let e = PasswordSource::Command("sleep 30".into()).read_within(quick).unwrap_err();
        assert!(e.contains("did not finish within"), "{e}");
        let e = PasswordSource::Command("head -c 1000000 /dev/zero".into()).read_within(PASSWORD_DEADLINE).unwrap_err();
        assert!(e.contains("not a password"), "{e}");
        let e = PasswordSource::Command("yes".into()).read_within(PASSWORD_DEADLINE).unwrap_err();
        assert!(e.contains("printed more than") && e.contains("stopped"), "{e}");
        let given = PasswordSource::Command("printf 'pw\\nsecond\\n'".into()).read_within(PASSWORD_DEADLINE);
        assert_eq!(given.unwrap(), "pw");
    }
}
