//! The reader's line to a running daemon: a Unix socket beside the database (`tidings.db.daemon.sock`, mode 0600:
//! only its owner may ask), on which the reader asks the daemon to refresh now — `refresh [force] [FEED_ID…]`, one
//! line — and the daemon answers, once the refresh is done, `done NEW FEEDS_WITH_NEW FAILED`. Nothing else is
//! said on it: what the daemon stores reaches the reader through the database (its watcher of outside writes).

use std::path::{Path, PathBuf};

/// The longest request the daemon reads: a refresh of every feed of a big list is a few hundred kilobytes.
pub const MAX_REQUEST: u64 = 1 << 20;

/// The socket beside the database.
pub fn path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".daemon.sock");
    PathBuf::from(name)
}

/// Whether a daemon answers on `db`'s socket now.
pub fn daemon_listens(db: &Path) -> bool {
    #[cfg(unix)]
    return std::os::unix::net::UnixStream::connect(path(db)).is_ok();
    #[cfg(not(unix))]
    return false;
}

/// A request to refresh: those feeds (all of them when none), forced or not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refresh {
    pub force: bool,
    pub feeds: Vec<i64>,
}

/// What a refresh asked of the daemon brought.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refreshed {
    pub new: usize,
    pub feeds_with_new: usize,
    pub failed: usize,
}

impl Refresh {
    pub fn line(&self) -> String {
        let mut words = vec!["refresh".to_string()];
        if self.force {
            words.push("force".into());
        }
        words.extend(self.feeds.iter().map(i64::to_string));
        words.join(" ") + "\n"
    }

    /// The request a line says, or `None` for anything else.
    pub fn parse(line: &str) -> Option<Refresh> {
        let mut words = line.split_whitespace();
        (words.next()? == "refresh").then_some(())?;
        let mut request = Refresh::default();
        for word in words {
            match word {
                "force" => request.force = true,
                id => request.feeds.push(id.parse().ok()?),
            }
        }
        Some(request)
    }
}

impl Refreshed {
    pub fn line(&self) -> String {
        format!("done {} {} {}\n", self.new, self.feeds_with_new, self.failed)
    }

    pub fn parse(line: &str) -> Option<Refreshed> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["done", new, feeds, failed] => Some(Refreshed {
                new: new.parse().ok()?,
                feeds_with_new: feeds.parse().ok()?,
                failed: failed.parse().ok()?,
            }),
            _ => None,
        }
    }
}

/// Asks the daemon on `db`'s socket to refresh, and waits for its answer.
#[cfg(unix)]
pub async fn ask_refresh(db: &Path, request: &Refresh) -> std::io::Result<Refreshed> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let mut stream = tokio::net::UnixStream::connect(path(db)).await?;
    stream.write_all(request.line().as_bytes()).await?;
    let mut answer = String::new();
    BufReader::new(stream).take(4096).read_line(&mut answer).await?;
    Refreshed::parse(&answer).ok_or_else(|| std::io::Error::other(format!("the daemon answered {answer:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_read_back_as_written() {
        let request = Refresh { force: true, feeds: vec![3, 14] };
        assert_eq!(request.line(), "refresh force 3 14\n");
        assert_eq!(Refresh::parse(&request.line()), Some(request));
        assert_eq!(Refresh::parse("refresh\n"), Some(Refresh::default()));
        assert_eq!(Refresh::parse("refresh 1; rm -rf ~"), None);
        assert_eq!(Refresh::parse("quit"), None);
        let answer = Refreshed { new: 5, feeds_with_new: 2, failed: 1 };
        assert_eq!(Refreshed::parse(&answer.line()), Some(answer));
    }
}
