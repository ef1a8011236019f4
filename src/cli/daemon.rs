//! `tidings daemon`: the engine's third front door — no terminal, no output but the log. It refreshes the feeds
//! as they come due (each feed's interval, `refresh_minutes`, TTL and backoff, as the reader honours them; or
//! every `--interval`) and syncs every account, until SIGTERM or SIGINT, which it answers by letting the work in
//! flight end (each feed is stored in a transaction of its own: what is cut short is rolled back, never half
//! written). One daemon per database: a second one says which process runs the first. A reader started beside it
//! leaves the refreshing and the syncing to it, and asks it on its socket ([`crate::daemon_socket`]) to refresh
//! or sync now.

use crate::config::Config;
use crate::refresh::{Observer, RefreshEvent, Which};
use crate::session::{Role, Session, SyncObserver};
use crate::store::{ReaderLock, StoreError};
use crate::sync::{AccountConfig, Report, SyncError};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// How often the daemon looks for feeds come due (the look is one query).
const LOOK_EVERY: Duration = Duration::from_secs(60);

/// `--interval` as a number and a unit: `30s`, `5m`, `2h` (a bare number is seconds).
pub(super) fn parse_interval(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 = number.parse().map_err(|_| format!("'{text}' is not a duration: write it like 30s, 5m or 2h"))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(format!("'{unit}' is not a unit tidings knows: use s, m or h")),
    };
    if secs == 0 {
        return Err("the interval must be at least a second".into());
    }
    Ok(Duration::from_secs(secs))
}

pub(super) async fn run(db: &Path, config: &Config, interval: Option<Duration>) -> anyhow::Result<ExitCode> {
    let _lock = match ReaderLock::acquire(&daemon_lock(db)) {
        Err(StoreError::ReaderRunning { pid, .. }) => anyhow::bail!(
            "another tidings daemon{} keeps {} fresh already",
            pid.map(|p| format!(" (pid {p})")).unwrap_or_default(),
            db.display()
        ),
        lock => lock?,
    };
    let session = Session::open(db, config.session_settings(), Role::Daemon)?;
    #[cfg(unix)]
    let _socket = listen(db, session.clone())?;
    // Due: not fetched for this long (or longer, when a feed asks); the accounts are synced as often.
    let every = interval.map(|d| d.as_secs() as i64).or(config.refresh_interval_secs());
    tracing::info!("daemon started (pid {}), refreshing {}", std::process::id(), describe(every));
    let mut stop = Box::pin(stop_signal());
    let mut last_sync: Option<std::time::Instant> = None;
    loop {
        let due = Which::Due { interval_secs: every.unwrap_or(100 * 365 * 86_400) };
        let work = async {
            let outcome = session.refresh(due, false, Arc::new(Logged)).await;
            download_new_episodes(&session, outcome.episodes).await;
            if let Err(e) = outcome.refreshed {
                tracing::warn!("daemon: {e}");
            }
            let sync_due = every.is_some_and(|secs| last_sync.is_none_or(|at| at.elapsed().as_secs() as i64 >= secs));
            if sync_due && !session.accounts().is_empty() {
                session.sync(None, &Logged).await;
                last_sync = Some(std::time::Instant::now());
            }
        };
        tokio::select! {
            () = work => {}
            () = &mut stop => break,
        }
        let pause = interval.unwrap_or(LOOK_EVERY).min(LOOK_EVERY);
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = &mut stop => break,
        }
    }
    // What the writer was given is done before the daemon goes.
    let _ = session.writer().call(|_| Ok(())).await;
    tracing::info!("daemon stopped");
    Ok(ExitCode::SUCCESS)
}

/// `auto_download`: queues the new episodes a refresh brought and downloads them in the background (the next
/// refresh does not wait for them; a run under way takes them at once).
async fn download_new_episodes(session: &Session, episodes: Vec<crate::model::EntryId>) {
    if episodes.is_empty() {
        return;
    }
    match session.downloads().queue(episodes).await {
        Ok(queued) if !queued.added.is_empty() => {
            tracing::info!("daemon: {} new episode file(s) queued for download", queued.added.len());
            let session = session.clone();
            tokio::spawn(async move {
                if let Err(e) = session.download(Arc::new(LoggedDownloads)).await {
                    tracing::warn!("daemon: downloads stopped: {e}");
                }
            });
        }
        Ok(_) => {}
        Err(e) => tracing::warn!("daemon: cannot queue the new episodes: {e}"),
    }
}

/// A download's end, in the daemon's log.
struct LoggedDownloads;

impl crate::downloads::DownloadObserver for LoggedDownloads {
    fn event(&self, event: crate::downloads::DownloadEvent) {
        if let crate::downloads::DownloadEvent::Ended { id, state, reason } = event {
            match reason {
                Some(why) => tracing::info!("daemon: download {id} {}: {why}", state.as_str()),
                None => tracing::info!("daemon: download {id} {}", state.as_str()),
            }
        }
    }
}

/// Listens on the socket beside the database for readers asking to refresh now, until the guard is dropped (the
/// socket's file goes with it). Any file there is a dead daemon's: the lock says no other runs.
#[cfg(unix)]
fn listen(db: &Path, session: Session) -> anyhow::Result<SocketGuard> {
    use std::os::unix::fs::PermissionsExt;
    let path = crate::daemon_socket::path(db);
    let _ = std::fs::remove_file(&path);
    let listener = tokio::net::UnixListener::bind(&path)
        .map_err(|e| anyhow::anyhow!("cannot listen on {} for readers: {e}", path.display()))?;
    // Only the database's owner may ask (the folder is usually the user's own already). The mode is set just
    // after the socket is made, so each connection's own user is checked too: one that connected in between, or
    // through a folder open to others, is not answered.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    let owner = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&path)?);
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            match stream.peer_cred() {
                Ok(peer) if peer.uid() == owner => {
                    tokio::spawn(answer(stream, session.clone()));
                }
                Ok(peer) => tracing::warn!("daemon: user {} asked on the socket and was not answered", peer.uid()),
                Err(e) => tracing::warn!("daemon: cannot tell who asked on the socket ({e}); not answered"),
            }
        }
    });
    Ok(SocketGuard { path, task })
}

/// Reads one request (bounded: a line of at most [`crate::daemon_socket::MAX_REQUEST`] bytes, within ten
/// seconds), refreshes or syncs as asked, and answers what it brought.
#[cfg(unix)]
async fn answer(stream: tokio::net::UnixStream, session: Session) {
    use crate::daemon_socket::{MAX_REQUEST, Refresh, Refreshed, SyncRequest};
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    let mut reader = BufReader::new(read).take(MAX_REQUEST);
    let Ok(Ok(read)) = tokio::time::timeout(Duration::from_secs(10), reader.read_line(&mut line)).await else { return };
    if read == 0 {
        // Closed without a word: a reader or a command looking whether the daemon is there.
        return;
    }
    if let Some(request) = SyncRequest::parse(&line) {
        return answer_sync(request, write, session).await;
    }
    let Some(request) = Refresh::parse(&line) else {
        tracing::warn!("daemon: a request it does not know on its socket");
        return;
    };
    let which = if request.feeds.is_empty() {
        Which::All
    } else {
        Which::Feeds(request.feeds.iter().map(|id| crate::model::FeedId(*id)).collect())
    };
    tracing::info!(
        "daemon: a reader asked to refresh {} feed(s)",
        if request.feeds.is_empty() { "every".to_string() } else { request.feeds.len().to_string() }
    );
    let outcome = session.refresh(which, request.force, Arc::new(Logged)).await;
    download_new_episodes(&session, outcome.episodes).await;
    let refreshed = match outcome.refreshed {
        Ok(summary) => {
            Refreshed { new: summary.new_entries, feeds_with_new: summary.updated_feeds, failed: summary.failed.len() }
        }
        Err(e) => {
            tracing::warn!("daemon: {e}");
            Refreshed { failed: request.feeds.len().max(1), ..Refreshed::default() }
        }
    };
    let _ = write.write_all(refreshed.line().as_bytes()).await;
}

/// Syncs the accounts a reader asked for, and answers a line for each as its sync ends (those this daemon's
/// config does not have go unanswered: the reader syncs them itself). A sync of an account already on its way
/// waits for it ([`Session::sync`] gives each account one turn at a time).
#[cfg(unix)]
async fn answer_sync(
    request: crate::daemon_socket::SyncRequest,
    mut write: tokio::net::unix::OwnedWriteHalf,
    session: Session,
) {
    use tokio::io::AsyncWriteExt;
    tracing::info!("daemon: a reader asked to sync {}", request.accounts.join(", "));
    let (told, mut answers) = tokio::sync::mpsc::unbounded_channel();
    let syncing = async move {
        let observer = ToReader(told);
        session.sync(Some(&request.accounts), &observer).await;
    };
    let answering = async move {
        while let Some(answer) = answers.recv().await {
            if write.write_all(answer.line().as_bytes()).await.is_err() {
                // The reader went away: the syncs go on all the same.
                while answers.recv().await.is_some() {}
            }
        }
    };
    tokio::join!(syncing, answering);
}

/// Tells the reader that asked how each account's sync went, and logs it as the daemon's own syncs are.
#[cfg(unix)]
struct ToReader(tokio::sync::mpsc::UnboundedSender<crate::daemon_socket::AccountSynced>);

#[cfg(unix)]
impl SyncObserver for ToReader {
    fn account(&self, account: &AccountConfig, outcome: &Result<Report, SyncError>) {
        Logged.account(account, outcome);
        let (said, changed) = match outcome {
            Ok(report) => (Ok(report.line()), report.changed_anything()),
            Err(e) => (Err(e.to_string()), false),
        };
        let _ = self.0.send(crate::daemon_socket::AccountSynced { account: account.name.clone(), said, changed });
    }

    fn trouble(&self, message: &str) {
        Logged.trouble(message);
    }
}

/// The socket's listener; dropping it stops listening and removes the file.
#[cfg(unix)]
struct SocketGuard {
    path: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

#[cfg(unix)]
impl Drop for SocketGuard {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The daemon's lock beside the database: `tidings.db.daemon.lock`.
fn daemon_lock(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".daemon");
    PathBuf::from(name)
}

fn describe(every: Option<i64>) -> String {
    match every {
        Some(secs) => format!("feeds not fetched for {secs} s and syncing every {secs} s"),
        None => "only feeds with refresh_minutes (refresh_interval_minutes is 0)".to_string(),
    }
}

/// SIGTERM or SIGINT (Ctrl-C).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            },
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

/// What the daemon does goes to the log: failures as warnings, the rest as information.
struct Logged;

impl Observer for Logged {
    fn feed(&self, event: RefreshEvent) {
        match &event {
            RefreshEvent::Failed { url, message, .. } => tracing::warn!("daemon: {url}: {message}"),
            RefreshEvent::Done { title, new, .. } if *new > 0 => tracing::info!("daemon: {title}: {new} new"),
            _ => {}
        }
    }
}

impl SyncObserver for Logged {
    fn account(&self, _: &AccountConfig, outcome: &Result<Report, SyncError>) {
        match outcome {
            Ok(report) => tracing::info!("daemon: {}", report.line()),
            Err(e) => tracing::warn!("daemon: {e}"),
        }
    }

    fn trouble(&self, message: &str) {
        tracing::warn!("daemon: {message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_is_a_number_and_a_unit() {
        assert_eq!(parse_interval("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_interval("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_interval("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_interval("45"), Ok(Duration::from_secs(45)));
        assert!(parse_interval("0s").is_err());
        assert!(parse_interval("5d").unwrap_err().contains("unit"));
        assert!(parse_interval("soon").unwrap_err().contains("duration"));
    }
}
