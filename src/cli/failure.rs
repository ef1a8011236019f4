//! How a command's failures reach people: each cause said once, with what to do; panics to the log (one that
//! ends the command said in one line); the log file itself.

use super::EXIT_ERROR;
use crate::sanitize::one_line;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The last panic's message and place, for the line [`main`] prints when a panic ends the command.
pub(super) static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Sends panics to the log instead of the terminal: one caught where it happened (a document that crashes the
/// XML parser is that feed's error) must not print over the output, and one that ends the command is said
/// once by [`main`]. The reader adds its own hook on top, which restores the terminal first.
pub(super) fn log_panics() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        tracing::error!("panic on thread {:?}: {message}{place}", std::thread::current().name());
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{message}{place}"));
        }
    }));
}

/// Ends a command that failed: quietly with status 0 when standard output was closed under it (the reader of
/// the pipe has all it wanted), else with the error on standard error and [`EXIT_ERROR`].
pub(super) fn fail(err: &anyhow::Error, db: Option<&Path>) -> ExitCode {
    if err
        .chain()
        .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
    {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(std::io::stderr(), "tidings: {}", one_line(&describe_error(err, db), 4000));
    ExitCode::from(EXIT_ERROR)
}

/// An error for people: the message and its causes, each said once, then what to do when the cause is one
/// people can act on. Our own errors already say their cause in their message; the chain stops at the first
/// cause whose message was already said (the deeper ones only restate it: "Error code 11: …").
fn describe_error(err: &anyhow::Error, db: Option<&Path>) -> String {
    let mut message = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if message.contains(text) {
            break;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(text);
    }
    if let Some(advice) = advice(err, db) {
        message.push_str("; ");
        message.push_str(&advice);
    }
    message
}

/// What to do about an SQLite failure, when the error itself does not say.
fn advice(err: &anyhow::Error, db: Option<&Path>) -> Option<String> {
    use rusqlite::ErrorCode;
    let code = err.chain().find_map(|e| match e.downcast_ref::<rusqlite::Error>() {
        Some(rusqlite::Error::SqliteFailure(f, _)) => Some(f.code),
        _ => None,
    })?;
    let db = db.map_or_else(|| "the database".to_string(), |p| p.display().to_string());
    Some(match code {
        ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => format!(
            "the file {db} is damaged: restore it from a backup, or move it aside and import your \
             subscriptions again (tidings starts a new database)"
        ),
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
            format!("another process kept {db} busy for too long; try again when it has finished")
        }
        ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen => {
            format!("check that you may write to {db} and its folder, or use another database with --db FILE")
        }
        ErrorCode::DiskFull => format!("the disk holding {db} is full; free some space and try again"),
        _ => return None,
    })
}

/// Sends the log to `path` (its owner's only): `TIDINGS_LOG` sets what is written (`info` by default). A log
/// that cannot be written is not a reason to stop: the error says why, for whoever named the file.
pub(super) fn init_logging(path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    // The log names feeds and addresses: its owner's only, whatever the umask (under 000 it came out 0666).
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path)?;
    let filter = tracing_subscriber::EnvFilter::try_from_env("TIDINGS_LOG").unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(Masked(file)))
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
    Ok(())
}

/// The log's file, written with the password of every address in a line hidden: lines name feeds by their
/// addresses, and errors quote them, private feeds' passwords with them.
struct Masked<W>(W);

impl<W: Write> Write for Masked<W> {
    /// Takes the whole of `buf` (the formatter hands over a line at a time), so that an address is never cut.
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.write_all(crate::sanitize::without_passwords(text).as_bytes())?,
            Err(_) => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_said_ends_the_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)");
        let own = crate::import::ImportError::Read { file: "subs.opml".into(), source: io };
        let err = anyhow::Error::new(own);
        assert_eq!(
            describe_error(&err, None),
            "cannot read OPML file subs.opml: No such file or directory (os error 2)"
        );
        // A context that does not say its cause gets it appended, once.
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "Permission denied (os error 13)");
        let err = anyhow::Error::new(io).context("cannot write out.opml");
        assert_eq!(describe_error(&err, None), "cannot write out.opml: Permission denied (os error 13)");
    }

    #[test]
    fn sqlite_failures_come_with_what_to_do() {
        let failure = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            Some("database disk image is malformed".into()),
        );
        let err = anyhow::Error::new(crate::store::StoreError::Sqlite(failure));
        let said = describe_error(&err, Some(Path::new("/data/tidings.db")));
        assert_eq!(said.matches("malformed").count(), 1, "{said}");
        assert!(said.ends_with("the file /data/tidings.db is damaged: restore it from a backup, or move it aside and import your subscriptions again (tidings starts a new database)"), "{said}");
    }
}
