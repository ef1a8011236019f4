//! Sync with the servers people already run: two-way, offline-first. An account (`[[accounts]]` in the config)
//! is a server that holds subscriptions and their read and starred state; its feeds sit under a folder named
//! after it and are fetched by the server, never by tidings.
//!
//! One sync of one account:
//! 1. **Up**: what the change log holds for it (every read, unread, star, unstar and subscription change made
//!    here, recorded by `store::apply` in the same transaction as the change) is sent — subscription changes in
//!    the order they were made, flags batched — and taken off the log once the server said OK. A server that
//!    cannot be reached leaves it all waiting for the next sync; nothing local is lost.
//! 2. **Down**: the subscriptions (labels become folders under the account's), the items stored since the last
//!    sync (paged), then the unread and starred sets — which set the flags of every entry the account holds,
//!    except where a change made here is still waiting (it is newer than the server's state). An entry the
//!    server should have starred and does not is asked about before it loses its star: gone from the server,
//!    it stays starred here.
//!
//! The protocol is a [`Remote`]: the Google Reader API ([`greader`]) first; Fever, Miniflux's own API or
//! Nextcloud News would each be one more implementation.

mod account;
mod greader;

use crate::fetch::Fetcher;
use crate::greader::{AnswerError, IdsPage, ItemsPage, RemoteFeed, RemoteItem};
use crate::store::accounts::{self, AccountRow, ItemsMark, SubscriptionsReport};
use crate::store::changes::{self, FeedChange, Flag, Pending};
use crate::store::{DbThread, StoreError};
pub use account::{ACCOUNT_KINDS, AccountConfig, PasswordSource};
use std::collections::HashSet;

/// The sets of item ids a server keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Set {
    Unread,
    Starred,
}

/// What went wrong talking to a server.
#[derive(Debug)]
pub(crate) enum RemoteError {
    /// The login (or its token) was refused.
    Unauthorized,
    /// The password could not be had (the command failed, the file is missing).
    Password(String),
    /// No answer: the server is down, or the network.
    Unreachable(String),
    /// An answer with an error status.
    Status(u16, String),
    /// An answer that is not the protocol's.
    Answer(AnswerError),
}

/// A server's protocol: what a sync asks of it.
pub(crate) trait Remote {
    async fn login(&mut self) -> Result<(), RemoteError>;
    async fn subscriptions(&mut self) -> Result<Vec<RemoteFeed>, RemoteError>;
    /// Items the server stored at or after `since_secs`, a page at a time.
    async fn items_since(&mut self, since_secs: i64, continuation: Option<&str>) -> Result<ItemsPage, RemoteError>;
    /// The ids (decimal keys) of a set, a page at a time.
    async fn ids(&mut self, set: Set, continuation: Option<&str>) -> Result<IdsPage, RemoteError>;
    /// Items by key; those the server no longer has are missing from the answer.
    async fn items(&mut self, keys: &[String]) -> Result<Vec<RemoteItem>, RemoteError>;
    async fn set_flag(&mut self, flag: Flag, value: bool, keys: &[String]) -> Result<(), RemoteError>;
    async fn edit_subscription(&mut self, change: &FeedChange) -> Result<(), RemoteError>;
    /// Requests made so far.
    fn requests(&self) -> usize;
}

/// What one sync of one account did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub account: String,
    /// Changes made here that the server took.
    pub sent: usize,
    /// Entries new here.
    pub new: usize,
    pub subscriptions_added: usize,
    pub subscriptions_changed: usize,
    pub subscriptions_removed: usize,
    /// Entries whose read or starred state changed here because it changed on the server.
    pub read_changed: usize,
    pub starred_changed: usize,
    /// Starred entries the server no longer has: kept starred here.
    pub kept_starred: usize,
    /// Entries of the account stored here after the sync.
    pub entries: i64,
    pub requests: usize,
}

impl Report {
    /// One line for people: "FreshRSS: 120 new, 14 changes sent".
    pub fn line(&self) -> String {
        let mut parts = vec![format!("{} new", self.new)];
        if self.sent > 0 {
            parts.push(format!("{} {} sent", self.sent, if self.sent == 1 { "change" } else { "changes" }));
        }
        let changed = self.read_changed + self.starred_changed;
        if changed > 0 {
            parts.push(format!("{changed} marked on the server"));
        }
        let subs = self.subscriptions_added + self.subscriptions_removed;
        if subs > 0 {
            parts.push(format!("{} feeds added, {} removed", self.subscriptions_added, self.subscriptions_removed));
        }
        if self.kept_starred > 0 {
            parts.push(format!("{} starred entries the server no longer has kept here", self.kept_starred));
        }
        format!("{}: {}", self.account, parts.join(", "))
    }
}

/// Why a sync of one account did not happen, or stopped. Changes made here are kept for the next one.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(
        "{account} refused {user}'s API password: set it in the server's settings (FreshRSS: the profile page, \
         \"API password\") and in the config's `password`"
    )]
    Refused { account: String, user: String },
    #[error("{account}: cannot get the password: {message}")]
    Password { account: String, message: String },
    #[error("{account} offline ({reason}): {waiting} {} waiting", if *.waiting == 1 { "change" } else { "changes" })]
    Offline { account: String, reason: String, waiting: i64 },
    #[error("{account}: {message}")]
    Server { account: String, message: String },
    #[error("{account}: {source}")]
    Store { account: String, source: StoreError },
}

impl SyncError {
    /// The server could not be reached (or refused us): its account is left for the next sync.
    pub fn is_offline(&self) -> bool {
        matches!(self, SyncError::Offline { .. })
    }
}

/// Syncs one account both ways. `now` is the time (seconds since the epoch) the sync records.
pub async fn sync(
    account: &AccountConfig,
    fetcher: &Fetcher,
    writer: &DbThread,
    now: i64,
) -> Result<Report, SyncError> {
    let name = account.name.clone();
    let store_err = |source| SyncError::Store { account: name.clone(), source };
    let (row_name, kind, url, user) =
        (account.name.clone(), account.kind.clone(), account.url.clone(), account.user.clone());
    let row = writer.call(move |c| accounts::ensure(c, &row_name, &kind, &url, &user)).await.map_err(store_err)?;
    let source = account.password_source();
    let mut remote = greader::GReader::new(
        fetcher.client().clone(),
        &account.url,
        &account.user,
        row.auth.clone(),
        std::sync::Arc::new(move || source.read()),
    );
    let result = Sync { account, writer, row: &row, now }.run(&mut remote).await;
    // A token the server gave (or refused) is kept (or forgotten) for the next sync, whatever else happened.
    let auth = remote.auth().map(str::to_string);
    if auth != row.auth {
        let id = row.id;
        writer.call(move |c| accounts::set_auth(c, id, auth.as_deref())).await.map_err(store_err)?;
    }
    match result {
        Ok(mut report) => {
            report.requests = remote.requests();
            Ok(report)
        }
        Err(Step::Remote(e)) => {
            let id = row.id;
            let waiting = writer.call(move |c| changes::waiting(c, id)).await.unwrap_or(0);
            Err(explain(account, e, waiting))
        }
        Err(Step::Store(source)) => Err(store_err(source)),
    }
}

/// How a step of a sync failed.
enum Step {
    Remote(RemoteError),
    Store(StoreError),
}

impl From<RemoteError> for Step {
    fn from(e: RemoteError) -> Step {
        Step::Remote(e)
    }
}

impl From<StoreError> for Step {
    fn from(e: StoreError) -> Step {
        Step::Store(e)
    }
}

fn explain(account: &AccountConfig, e: RemoteError, waiting: i64) -> SyncError {
    let name = account.name.clone();
    match e {
        RemoteError::Unauthorized => SyncError::Refused { account: name, user: account.user.clone() },
        RemoteError::Password(message) => SyncError::Password { account: name, message },
        RemoteError::Unreachable(reason) => SyncError::Offline { account: name, reason, waiting },
        RemoteError::Status(status, body) if status >= 500 => SyncError::Server {
            account: name,
            message: format!(
                "the server failed (HTTP {status}{}); it is tried again at the next sync, and nothing here is lost",
                if body.is_empty() { String::new() } else { format!(": {body}") }
            ),
        },
        RemoteError::Status(status, body) => SyncError::Server {
            account: name,
            message: format!(
                "the server refused a request (HTTP {status}{}): check `url` (FreshRSS: …/api/greader.php)",
                if body.is_empty() { String::new() } else { format!(": {body}") }
            ),
        },
        RemoteError::Answer(AnswerError::Html) => SyncError::Server {
            account: name,
            message: format!(
                "{} answered with a web page, not the Google Reader API: check `url` (FreshRSS: \
                 https://your.server/api/greader.php) and that the API is enabled in its settings",
                crate::sanitize::one_line(&account.url, 300)
            ),
        },
        RemoteError::Answer(e) => SyncError::Server { account: name, message: format!("{e}") },
    }
}

/// One sync in progress.
struct Sync<'a> {
    account: &'a AccountConfig,
    writer: &'a DbThread,
    row: &'a AccountRow,
    now: i64,
}

impl Sync<'_> {
    async fn run(&self, remote: &mut impl Remote) -> Result<Report, Step> {
        let mut report = Report { account: self.account.name.clone(), ..Report::default() };
        let sent = self.send(remote).await?;
        report.sent = sent.len();
        let subscriptions = remote.subscriptions().await?;
        let subs = self.store(move |c, row, now| accounts::store_subscriptions(c, row, &subscriptions, now)).await?;
        let SubscriptionsReport { added, changed, removed } = subs;
        (report.subscriptions_added, report.subscriptions_changed, report.subscriptions_removed) =
            (added, changed, removed);
        let since = self.pull_items(remote, &mut report).await?;
        self.pull_flags(remote, &sent, &mut report).await?;
        let (id, now) = (self.row.id, self.now);
        report.entries = self
            .writer
            .call(move |c| {
                accounts::synced(c, id, now, since)?;
                accounts::entry_count(c, id)
            })
            .await?;
        Ok(report)
    }

    /// Runs `f` on the writer with the account's row and the sync's time.
    async fn store<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut rusqlite::Connection, &AccountRow, i64) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let (row, now) = (self.row.clone(), self.now);
        self.writer.call(move |c| f(c, &row, now)).await
    }

    /// Sends the change log: subscription changes one by one in their order, then flags batched by what they
    /// set. Returns what the server took (already off the log).
    async fn send(&self, remote: &mut impl Remote) -> Result<Vec<Pending>, Step> {
        let id = self.row.id;
        let pending = self.writer.call(move |c| changes::pending(c, id)).await?;
        if pending.is_empty() {
            return Ok(pending);
        }
        let mut sent = Vec::with_capacity(pending.len());
        for change in pending.iter().filter(|c| matches!(c, Pending::Feed { .. })) {
            let Pending::Feed { change: feed, .. } = change else { continue };
            match remote.edit_subscription(feed).await {
                Ok(()) => sent.push(change.clone()),
                // A server that cannot do it (a feed it cannot subscribe to) says so once, and the change goes.
                Err(RemoteError::Status(400..=499, _) | RemoteError::Answer(AnswerError::Malformed(_))) => {
                    tracing::warn!(account = %self.account.name, "the server refused {feed:?}");
                    sent.push(change.clone());
                }
                Err(e) => {
                    self.forget(sent).await?;
                    return Err(e.into());
                }
            }
        }
        for flag in [Flag::Read, Flag::Starred] {
            for value in [true, false] {
                let batch: Vec<&Pending> = pending
                    .iter()
                    .filter(|c| matches!(c, Pending::Flag { flag: f, value: v, .. } if *f == flag && *v == value))
                    .collect();
                if batch.is_empty() {
                    continue;
                }
                let keys: Vec<String> = batch
                    .iter()
                    .filter_map(|c| match c {
                        Pending::Flag { key, .. } => Some(key.clone()),
                        Pending::Feed { .. } => None,
                    })
                    .collect();
                if let Err(e) = remote.set_flag(flag, value, &keys).await {
                    self.forget(sent).await?;
                    return Err(e.into());
                }
                sent.extend(batch.into_iter().cloned());
            }
        }
        self.forget(sent.clone()).await?;
        Ok(sent)
    }

    /// Takes what the server took off the change log.
    async fn forget(&self, sent: Vec<Pending>) -> Result<(), StoreError> {
        if sent.is_empty() {
            return Ok(());
        }
        self.writer.call(move |c| changes::sent(c, &sent)).await
    }

    /// Stores the items the server stored since the last sync, a page at a time (the next page is asked for
    /// while this one is stored), newest first, down to the first page that an earlier sync stored whole.
    /// Returns where the next sync starts from.
    async fn pull_items(&self, remote: &mut impl Remote, report: &mut Report) -> Result<ItemsMark, Step> {
        let mut since = self.row.items_since;
        let known = self.row.items_seen_usec;
        let mut seen = known;
        let mut continuation: Option<String> = None;
        let mut orphans_since: Option<i64> = None;
        let mut storing: Option<tokio::task::JoinHandle<Result<accounts::ItemsReport, StoreError>>> = None;
        let mut stored = |done: accounts::ItemsReport| {
            report.new += done.new;
            if let Some(at) = done.orphans_since {
                orphans_since = Some(orphans_since.map_or(at, |s: i64| s.min(at)));
            }
        };
        loop {
            let page = match remote.items_since(self.row.items_since, continuation.as_deref()).await {
                Ok(page) => page,
                Err(e) => {
                    // What arrived before the failure is kept.
                    if let Some(task) = storing.take() {
                        stored(task.await.map_err(|e| StoreError::Conflict(crate::panics::join_message(e)))??);
                    }
                    return Err(e.into());
                }
            };
            if let Some(task) = storing.take() {
                stored(task.await.map_err(|e| StoreError::Conflict(crate::panics::join_message(e)))??);
            }
            // The next sync asks from the second the newest item was stored in: items stored in that same
            // second after this sync come too (they are stored once, by their keys).
            since = page.items.iter().map(|i| i.crawled_usec / 1_000_000).fold(since, i64::max);
            seen = page.items.iter().map(|i| i.crawled_usec).fold(seen, i64::max);
            // The server sends the newest first, so past a page the last sync had whole, every item is older
            // still: a server that stores a refresh within one second would otherwise send all of it again.
            let had_whole = known > 0 && page.items.iter().all(|i| i.crawled_usec > 0 && i.crawled_usec <= known);
            continuation = if had_whole { None } else { page.continuation };
            if !page.items.is_empty() {
                let (writer, row, now, items) = (self.writer.clone(), self.row.clone(), self.now, page.items);
                storing = Some(tokio::spawn(async move {
                    writer.call(move |c| accounts::store_items(c, &row, &items, now)).await
                }));
            }
            if continuation.is_none() {
                break;
            }
        }
        if let Some(task) = storing {
            stored(task.await.map_err(|e| StoreError::Conflict(crate::panics::join_message(e)))??);
        }
        // Items of a feed not listed yet are asked for again next time, every page of them.
        Ok(match orphans_since {
            Some(at) => ItemsMark { since: since.min(at), seen_usec: 0 },
            None => ItemsMark { since, seen_usec: seen },
        })
    }

    /// Every id of a set, page after page.
    async fn all_ids(remote: &mut impl Remote, set: Set) -> Result<HashSet<String>, RemoteError> {
        let mut ids = HashSet::new();
        let mut continuation: Option<String> = None;
        loop {
            let page = remote.ids(set, continuation.as_deref()).await?;
            let before = ids.len();
            ids.extend(page.ids);
            continuation = page.continuation;
            // A server that repeats its last page would loop for ever.
            if continuation.is_none() || ids.len() == before {
                return Ok(ids);
            }
        }
    }

    /// Sets the account's entries' flags from the server's unread and starred sets. Entries in a set that are
    /// not stored here (read here and purged, then marked unread on the phone) are fetched first.
    async fn pull_flags(&self, remote: &mut impl Remote, sent: &[Pending], report: &mut Report) -> Result<(), Step> {
        let unread = Self::all_ids(remote, Set::Unread).await?;
        let starred = Self::all_ids(remote, Set::Starred).await?;
        let id = self.row.id;
        let (unread_keys, starred_keys) = (unread.clone(), starred.clone());
        let missing: Vec<String> = self
            .writer
            .call(move |c| {
                let known = accounts::keys(c, id)?;
                Ok(unread_keys.union(&starred_keys).filter(|k| !known.contains(*k)).cloned().collect())
            })
            .await?;
        if !missing.is_empty() {
            let items = remote.items(&missing).await?;
            let stored = self.store(move |c, row, now| accounts::store_items(c, row, &items, now)).await?;
            report.new += stored.new;
        }
        // Entries starred here that the server's set lacks: unstarred on another device, or gone from the server.
        // Those the server still has lose their star; the others keep it.
        let starred_here = self.writer.call(move |c| accounts::keys_with(c, id, Flag::Starred)).await?;
        let lacking: Vec<String> = starred_here.difference(&starred).cloned().collect();
        let mut spare: HashSet<String> = HashSet::new();
        if !lacking.is_empty() {
            let still_there: HashSet<String> = remote.items(&lacking).await?.into_iter().map(|i| i.entry.key).collect();
            spare = lacking.into_iter().filter(|k| !still_there.contains(k)).collect();
            report.kept_starred = spare.len();
        }
        // What was just sent is the truth even if the server's sets do not show it yet.
        let just_sent: HashSet<(String, Flag)> = sent
            .iter()
            .filter_map(|c| match c {
                Pending::Flag { key, flag, .. } => Some((key.clone(), *flag)),
                Pending::Feed { .. } => None,
            })
            .collect();
        let sent_read: HashSet<String> =
            just_sent.iter().filter(|(_, f)| *f == Flag::Read).map(|(k, _)| k.clone()).collect();
        let sent_starred: HashSet<String> =
            just_sent.iter().filter(|(_, f)| *f == Flag::Starred).map(|(k, _)| k.clone()).collect();
        report.read_changed =
            self.store(move |c, row, _| accounts::apply_set(c, row, Flag::Read, &unread, &sent_read)).await?;
        let spare_starred: HashSet<String> = spare.union(&sent_starred).cloned().collect();
        report.starred_changed =
            self.store(move |c, row, _| accounts::apply_set(c, row, Flag::Starred, &starred, &spare_starred)).await?;
        Ok(())
    }
}

/// An HTTP failure for people: the last cause (what the network said), not reqwest's wrapping.
fn describe(e: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    let text = cause.to_string();
    if e.is_timeout() {
        "no answer in time".to_string()
    } else if e.is_connect() {
        format!("cannot connect: {text}")
    } else {
        text
    }
}
