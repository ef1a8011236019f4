//! Sync with the servers people already run: two-way, offline-first. An account (`[[accounts]]` in the config)
//! is a server that holds subscriptions and their read and starred state; its feeds sit under a folder named
//! after it and are fetched by the server, never by tidings.
//!
//! One sync of one account:
//! 1. **Up** ([`send`]): what the change log holds for it (every read, unread, star, unstar and subscription
//!    change made here, and every entry saved for later, recorded by `store::apply` in the same transaction as the
//!    change) is sent — subscription changes in the order they were made, flags and saves batched — and taken off
//!    the log once the server said OK; a save the server refuses for good (no save there) is said and dropped. A
//!    server that cannot be reached, is busy or fails (408, 429, 5xx) leaves it all waiting for the next sync;
//!    nothing local is lost.
//! 2. **Down**: the subscriptions (labels become folders under the account's), the items stored since the last
//!    sync ([`items`], paged), then the unread and starred sets ([`flags`]) — which set the flags of every entry
//!    the account holds, except where a change made here is still waiting (it is newer than the server's
//!    state). An entry the server should have starred and does not is asked about before it loses its star:
//!    gone from the server, it stays starred here.
//!
//! Whatever a server sends, one sync is bounded ([`Limits`]): so many items stored, so many ids read of each
//! set, so many pages asked; a continuation given twice stops it. What is past a cap waits for the next sync,
//! which goes on where this one stopped.
//!
//! The protocol is a [`Remote`]: the Google Reader API ([`greader`]), Fever ([`fever`]) and Miniflux's own API
//! ([`miniflux`]); Nextcloud News would be one more implementation. The tests sync with one in memory (`fake`).

mod account;
mod explain;
#[cfg(test)]
mod fake;
mod fever;
mod flags;
mod greader;
mod http;
mod items;
mod limits;
mod miniflux;
mod report;
mod send;
#[cfg(test)]
mod tests;

use crate::fetch::Fetcher;
use crate::greader::{AnswerError, IdsPage, ItemsPage, RemoteFeed, RemoteItem};
use crate::store::accounts::{self, AccountRow, SubscriptionsReport};
use crate::store::changes::{self, FeedChange, Flag};
use crate::store::{DbThread, StoreError};
pub use account::{ACCOUNT_KINDS, AccountConfig, PasswordSource};
use explain::{explain, waiting_line};
use limits::{Budget, PageSize};
pub use limits::{
    Limits, MAX_ANSWER_BYTES, MAX_BYTES_PER_SYNC, MAX_BYTES_WAITING, MAX_IDS_PER_SET, MAX_ITEMS_PER_SYNC, MAX_PAGES,
};
pub use report::Report;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

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
    /// An answer larger than the bytes read of it (in MB): a page of items is asked again smaller; anything
    /// else is tried again at the next sync.
    TooLarge(usize),
    /// The server gave a continuation it had given before while listing these: paging on would never end.
    Repeated(&'static str),
    /// The protocol cannot do what was asked (Fever cannot subscribe): refused at once, with why.
    Refused(String),
    /// The server says the API is elsewhere now (a redirect), and where.
    Moved(u16, Option<String>),
    /// Busy (429, or 503), and asked not to be asked again for so many seconds (`Retry-After`).
    Wait(u16, u64, String),
}

impl RemoteError {
    /// Whether it says the server cannot take requests now, but may later: busy (408, 429), failing (5xx), or
    /// not there. What was to be sent waits for the next sync.
    fn is_passing(&self) -> bool {
        match self {
            // (An answer too large to a write says nothing of whether the server took it: sent again later.)
            RemoteError::Unreachable(_) | RemoteError::Wait(..) | RemoteError::TooLarge(_) => true,
            RemoteError::Status(status, _) => matches!(status, 408 | 429 | 500..),
            _ => false,
        }
    }
}

/// A server's protocol: what a sync asks of it.
pub(crate) trait Remote {
    async fn login(&mut self) -> Result<(), RemoteError>;
    async fn subscriptions(&mut self) -> Result<Vec<RemoteFeed>, RemoteError>;
    /// Items the server stored at or after `since_secs`, newest first, a page of at most `most` at a time.
    async fn items_since(
        &mut self,
        since_secs: i64,
        continuation: Option<&str>,
        most: usize,
    ) -> Result<ItemsPage, RemoteError>;
    /// The ids (decimal keys) of a set, a page of (asked for) at most `most` at a time.
    async fn ids(&mut self, set: Set, continuation: Option<&str>, most: usize) -> Result<IdsPage, RemoteError>;
    /// Items by key; those the server no longer has are missing from the answer.
    async fn items(&mut self, keys: &[String]) -> Result<Vec<RemoteItem>, RemoteError>;
    async fn set_flag(&mut self, flag: Flag, value: bool, keys: &[String]) -> Result<(), RemoteError>;
    async fn edit_subscription(&mut self, change: &FeedChange) -> Result<(), RemoteError>;
    /// Marks a whole list read on the server: every item of it the sync has seen (stored up to `seen_usec`, the
    /// account's mark; or before `synced_at`, the last sync). `Ok(false)`: the protocol (or the server) cannot,
    /// and the items go up by id.
    async fn mark_list_read(&mut self, _: &accounts::Scope, _: i64, _: i64) -> Result<bool, RemoteError> {
        Ok(false)
    }
    /// After lists were marked read: those of `keys` the server still has unread, where its list marks are not
    /// exact (Fever's `before` is compared with the items' own dates, which feeds set as they like); `None` where
    /// they are (the list mark took every item the sync had seen).
    async fn still_unread(&mut self, _keys: &[String]) -> Result<Option<Vec<String>>, RemoteError> {
        Ok(None)
    }
    /// Saves items for later on the server: `label` is the account's `save_label`, for the protocols that save
    /// as a label. A protocol without a save refuses, and the report says so.
    async fn save(&mut self, _keys: &[String], _label: &str) -> Result<(), RemoteError> {
        Err(RemoteError::Refused("this protocol cannot save for later; set save_command instead".into()))
    }
    /// Requests made so far.
    fn requests(&self) -> usize;
}

/// The continuations a listing was given: one given twice would page for ever.
#[derive(Default)]
struct Continuations(HashSet<u64>);

impl Continuations {
    /// Whether `continuation` is new (and remembers it: as a hash, whatever its length).
    fn first(&mut self, continuation: &str) -> bool {
        let mut hasher = std::hash::DefaultHasher::new();
        continuation.hash(&mut hasher);
        self.0.insert(hasher.finish())
    }
}

/// Why a sync of one account did not happen, or stopped. Changes made here are kept for the next one.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(
        "{account} refused {user}'s API password: set it in the server's settings (FreshRSS: the profile page, \
         \"API password\"; Miniflux's own API: an API key from Settings, \"API Keys\", or the login password) and \
         in {from}"
    )]
    Refused { account: String, user: String, from: String },
    #[error("{account}: cannot get the password: {message}")]
    Password { account: String, message: String },
    #[error("{account} offline ({reason}): {}", waiting_line(*.waiting))]
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

/// Syncs one account both ways, within the default [`Limits`]. `now` is the time (seconds since the epoch) the
/// sync records.
pub async fn sync(
    account: &AccountConfig,
    fetcher: &Fetcher,
    writer: &DbThread,
    now: i64,
) -> Result<Report, SyncError> {
    sync_within(account, fetcher, writer, now, Limits::default()).await
}

/// Syncs one account both ways, taking at most what `limits` allow.
pub async fn sync_within(
    account: &AccountConfig,
    fetcher: &Fetcher,
    writer: &DbThread,
    now: i64,
    limits: Limits,
) -> Result<Report, SyncError> {
    let row = account_row(account, writer).await?;
    if let Some(until) = row.busy_until.filter(|until| *until > now) {
        // The server asked to wait: it is not asked before then.
        let id = row.id;
        let waiting = writer.call(move |c| changes::waiting(c, id)).await.unwrap_or(0);
        return Err(explain::paused(account, until, waiting));
    }
    let source = account.password_source();
    if account.kind == "fever" {
        let password = std::sync::Arc::new(move || source.read());
        let seen = row.items.seen_usec;
        let mut remote =
            fever::Fever::new(fetcher.client().clone(), &account.url, &account.user, seen, password, limits.answer);
        remote.learnt(row.traits.as_deref());
        let result = sync_over(&mut remote, account, writer, &row, now, limits).await;
        // A server found not to page in order of id is asked by id from then on.
        let traits = remote.traits();
        if traits != row.traits {
            let id = row.id;
            writer.call(move |c| accounts::set_traits(c, id, traits.as_deref())).await.map_err(store_error(account))?;
        }
        return result;
    }
    if account.kind == "miniflux" {
        let password = std::sync::Arc::new(move || source.read());
        let (seen, learnt) = (row.items.seen_usec, miniflux::Learnt::read(row.traits.as_deref()));
        let mut remote = miniflux::Miniflux::new(
            fetcher.client().clone(),
            &account.url,
            &account.user,
            seen,
            learnt,
            password,
            limits.answer,
        );
        let result = sync_over(&mut remote, account, writer, &row, now, limits).await;
        // What the server was found to lack is kept with the account.
        let kept = Some(remote.learnt.kept());
        if kept != row.traits {
            let id = row.id;
            writer.call(move |c| accounts::set_traits(c, id, kept.as_deref())).await.map_err(store_error(account))?;
        }
        return result;
    }
    let mut remote = greader::GReader::new(
        fetcher.client().clone(),
        &account.url,
        &account.user,
        row.auth.clone(),
        std::sync::Arc::new(move || source.read()),
        limits.answer,
    );
    remote.learnt(row.traits.as_deref());
    let result = sync_over(&mut remote, account, writer, &row, now, limits).await;
    // A token the server gave (or refused) is kept (or forgotten) for the next sync, whatever else happened, and
    // what the server was found to lack.
    let (auth, traits) = (remote.auth().map(str::to_string), remote.traits());
    if auth != row.auth || traits != row.traits {
        let id = row.id;
        writer
            .call(move |c| {
                accounts::set_auth(c, id, auth.as_deref())?;
                accounts::set_traits(c, id, traits.as_deref())
            })
            .await
            .map_err(store_error(account))?;
    }
    result
}

/// The account's row (made at its first sync), as the store has it now.
async fn account_row(account: &AccountConfig, writer: &DbThread) -> Result<AccountRow, SyncError> {
    let (name, kind, url, user) =
        (account.name.clone(), account.kind.clone(), account.url.clone(), account.user.clone());
    writer.call(move |c| accounts::ensure(c, &name, &kind, &url, &user)).await.map_err(store_error(account))
}

fn store_error(account: &AccountConfig) -> impl Fn(StoreError) -> SyncError + '_ {
    |source| SyncError::Store { account: account.name.clone(), source }
}

/// Syncs the account of `row` both ways over `remote`, whatever protocol it speaks: what the server said
/// becomes a [`SyncError`] a person can act on, with the number of changes still waiting.
async fn sync_over(
    remote: &mut impl Remote,
    account: &AccountConfig,
    writer: &DbThread,
    row: &AccountRow,
    now: i64,
    limits: Limits,
) -> Result<Report, SyncError> {
    match (Sync { account, writer, row, now, limits }).run(remote).await {
        Ok(mut report) => {
            report.requests = remote.requests();
            Ok(report)
        }
        Err(Step::Remote(e)) => {
            let id = row.id;
            if let RemoteError::Wait(_, secs, _) = &e {
                // Not asked again before then, whoever syncs (the reader, the daemon, a command) and across
                // restarts.
                let until = now.saturating_add(i64::try_from(*secs).unwrap_or(i64::MAX));
                writer.call(move |c| accounts::set_busy_until(c, id, until)).await.map_err(store_error(account))?;
            }
            let waiting = writer.call(move |c| changes::waiting(c, id)).await.unwrap_or(0);
            Err(explain(account, e, waiting, now))
        }
        Err(Step::Store(source)) => Err(store_error(account)(source)),
    }
}

/// How a step of a sync failed.
enum Step {
    Remote(RemoteError),
    Store(StoreError),
}

/// Items as a server sent them, with their addresses fit to print and their enclosures bounded (see
/// [`crate::model::ParsedEntry::with_clean_addresses`]): no parser of tidings's read them.
fn cleaned(items: Vec<RemoteItem>) -> Vec<RemoteItem> {
    items.into_iter().map(|i| RemoteItem { entry: i.entry.with_clean_addresses(), ..i }).collect()
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

/// One sync in progress.
struct Sync<'a> {
    account: &'a AccountConfig,
    writer: &'a DbThread,
    row: &'a AccountRow,
    now: i64,
    limits: Limits,
}

impl Sync<'_> {
    async fn run(&self, remote: &mut impl Remote) -> Result<Report, Step> {
        let mut report = Report { account: self.account.name.clone(), ..Report::default() };
        let sent = self.send(remote, &mut report).await?;
        let subscriptions: Vec<RemoteFeed> =
            remote.subscriptions().await?.into_iter().map(RemoteFeed::with_clean_addresses).collect();
        let subs = self.store(move |c, row, now| accounts::store_subscriptions(c, row, &subscriptions, now)).await?;
        let SubscriptionsReport { added, changed, removed, taken_over, kept_starred, feeds, renamed, moved } = subs;
        (report.renamed, report.moved) = (renamed, moved);
        (report.subscriptions_added, report.subscriptions_changed, report.subscriptions_removed) =
            (added, changed, removed);
        report.kept_starred = kept_starred;
        report.taken_over = taken_over;
        let feeds = std::sync::Arc::new(feeds);
        let mut budget = Budget::of(&self.limits);
        let mark = self.pull_items(remote, &feeds, &mut budget, &mut report).await?;
        // Items a set names that are not here come with the rest of the items, when the sync stopped short of it.
        let unknown = mark.resume.is_none().then_some(&mut budget);
        self.pull_flags(remote, &feeds, &sent, unknown, &mut report).await?;
        if !report.taken_over.is_empty() {
            // What was read or starred on a feed taken over and not on the server goes up now.
            self.send(remote, &mut report).await?;
        }
        let (id, now) = (self.row.id, self.now);
        report.entries = self
            .writer
            .call(move |c| {
                accounts::synced(c, id, now)?;
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
}
