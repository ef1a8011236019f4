//! The reader's line to a running daemon: a Unix socket beside the database (`tidings.db.daemon.sock`, mode 0600:
//! only its owner may ask), on which the reader asks the daemon, one request a connection:
//! - to refresh now — `refresh [force] [FEED_ID…]`, one line — and the daemon answers, once the refresh is done,
//!   `done NEW FEEDS_WITH_NEW FAILED`;
//! - to sync accounts now — `sync` and the accounts' names, tab-separated — and the daemon answers a line for each
//!   account as its sync ends, `synced NAME ok|failed CHANGED SAID` (tab-separated), the accounts it does not
//!   have unanswered.
//!
//! Nothing else is said on it: what the daemon stores reaches the reader through the database (its watcher of
//! outside writes).

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

/// A request to sync these accounts (by name) now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncRequest {
    pub accounts: Vec<String>,
}

/// How one account's sync went, as the daemon tells it: its report's line, or why it could not sync; and whether
/// it changed anything (the reader reads its lists again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountSynced {
    pub account: String,
    pub said: Result<String, String>,
    pub changed: bool,
}

/// One field of a tab-separated line: no tab, newline or other control character can cut it in two.
fn field(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

impl SyncRequest {
    pub fn line(&self) -> String {
        let mut line = "sync".to_string();
        for account in &self.accounts {
            line.push('\t');
            line.push_str(&field(account));
        }
        line + "\n"
    }

    pub fn parse(line: &str) -> Option<SyncRequest> {
        let mut fields = line.trim_end_matches(['\n', '\r']).split('\t');
        (fields.next()? == "sync").then_some(())?;
        Some(SyncRequest { accounts: fields.filter(|f| !f.is_empty()).map(str::to_string).collect() })
    }
}

impl AccountSynced {
    pub fn line(&self) -> String {
        let (how, said) = match &self.said {
            Ok(line) => ("ok", line),
            Err(why) => ("failed", why),
        };
        let changed = if self.changed { "1" } else { "0" };
        format!("synced\t{}\t{how}\t{changed}\t{}\n", field(&self.account), field(said))
    }

    pub fn parse(line: &str) -> Option<AccountSynced> {
        let fields: Vec<&str> = line.trim_end_matches(['\n', '\r']).splitn(5, '\t').collect();
        let ["synced", account, how, changed, said] = fields.as_slice() else { return None };
        let said = match *how {
            "ok" => Ok(said.to_string()),
            "failed" => Err(said.to_string()),
            _ => return None,
        };
        let changed = match *changed {
            "1" => true,
            "0" => false,
            _ => return None,
        };
        Some(AccountSynced { account: account.to_string(), said, changed })
    }
}

/// Asks the daemon on `db`'s socket to sync the accounts `request` names, and hands `each` every account's answer
/// as it comes. The accounts the daemon does not answer for (it does not have them, or it stopped) are those
/// `each` never heard of.
#[cfg(unix)]
pub async fn ask_sync(db: &Path, request: &SyncRequest, mut each: impl FnMut(AccountSynced)) -> std::io::Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let mut stream = tokio::net::UnixStream::connect(path(db)).await?;
    stream.write_all(request.line().as_bytes()).await?;
    let mut answers = BufReader::new(stream);
    for _ in 0..request.accounts.len() {
        let mut line = String::new();
        if (&mut answers).take(MAX_ANSWER).read_line(&mut line).await? == 0 {
            break;
        }
        let synced = AccountSynced::parse(&line)
            .ok_or_else(|| std::io::Error::other(format!("the daemon answered {line:?}")))?;
        each(synced);
    }
    Ok(())
}

/// The longest line of an answer read: a sync's report, or why it failed.
const MAX_ANSWER: u64 = 64 * 1024;

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

    #[test]
    fn sync_requests_and_answers_read_back_and_no_name_or_message_cuts_a_line() {
        let request = SyncRequest { accounts: vec!["FreshRSS".into(), "Home server".into()] };
        assert_eq!(request.line(), "sync\tFreshRSS\tHome server\n");
        assert_eq!(SyncRequest::parse(&request.line()), Some(request));
        assert_eq!(SyncRequest::parse("sync\n"), Some(SyncRequest::default()));
        assert_eq!(SyncRequest::parse("refresh\n"), None);
        assert_eq!(Refresh::parse("sync\tFreshRSS\n"), None);
        let sneaky = SyncRequest { accounts: vec!["a\tb\nrefresh".into()] };
        assert_eq!(SyncRequest::parse(&sneaky.line()).unwrap().accounts, vec!["a b refresh"]);

        let ok = AccountSynced { account: "FreshRSS".into(), said: Ok("FreshRSS: 3 new".into()), changed: true };
        assert_eq!(ok.line(), "synced\tFreshRSS\tok\t1\tFreshRSS: 3 new\n");
        assert_eq!(AccountSynced::parse(&ok.line()), Some(ok));
        let failed =
            AccountSynced { account: "Home".into(), said: Err("wrong\npassword\tagain".into()), changed: false };
        assert_eq!(failed.line().lines().count(), 1, "{:?}", failed.line());
        let read = AccountSynced::parse(&failed.line()).unwrap();
        assert_eq!((read.said, read.changed), (Err("wrong password again".to_string()), false));
        assert_eq!(AccountSynced::parse("synced\tHome\tmaybe\t0\tx\n"), None);
    }
}
