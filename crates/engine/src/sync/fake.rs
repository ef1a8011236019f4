//! A server for the sync's tests, in memory: a [`Remote`] that holds subscriptions (with their labels) and items
//! (with their read and starred state), and answers as FreshRSS's Google Reader API does (`p/api/greader.php`)
//! — not as the client expects:
//! - an item's id is the microsecond the server stored it (so its ids go up with time); items since a time are
//!   those stored from that second on, newest first; a page is full at what was asked (or the server's own page
//!   size, if smaller), and only a full page gives a continuation: the id of its last item, the next page being
//!   the items older than that one (a continuation that is no number starts again from the newest);
//! - the unread and starred sets are pages of ids the same way;
//! - items asked by id that it no longer has are missing from the answer; flags are set on the items it has,
//!   other ids left alone;
//! - `subscription/edit`: subscribing an address it has, or editing a stream it does not have, is refused
//!   (400); an unsubscribed feed's items go with it; a relabel without a label takes the feed out of every label.
//!
//! It records every call, and fails on demand: one call, or every call from one on, as a server that cannot be
//! reached, answers a status, or refuses the login. Someone may also act at a chosen call, while the sync waits.

use super::{Remote, RemoteError, Set};
use crate::greader::{IdsPage, ItemsPage, RemoteFeed, RemoteItem};
use crate::store::accounts::Scope;
use crate::store::changes::{FeedChange, Flag};
use std::collections::HashMap;

/// How a call fails.
#[derive(Clone, Debug)]
pub(super) enum Failure {
    /// No answer: the server is down, or the network.
    Unreachable,
    /// An answer with this status (429, 503…).
    Status(u16),
    /// The login refused.
    Unauthorized,
}

impl Failure {
    fn error(&self) -> RemoteError {
        match self {
            Failure::Unreachable => RemoteError::Unreachable("connection refused".into()),
            Failure::Status(status) => RemoteError::Status(*status, String::new()),
            Failure::Unauthorized => RemoteError::Unauthorized,
        }
    }
}

/// A call as the server saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Call {
    Login,
    Subscriptions,
    ItemsSince { since_secs: i64, continuation: Option<String> },
    Ids { set: Set, continuation: Option<String> },
    Items { keys: Vec<String> },
    SetFlag { flag: Flag, value: bool, keys: Vec<String> },
    EditSubscription(FeedChange),
    MarkListRead { scope: Scope, seen_usec: i64 },
    Save { keys: Vec<String>, label: String },
}

/// A call, and whether the server answered it (and did what it asked).
#[derive(Debug)]
pub(super) struct Logged {
    pub(super) call: Call,
    pub(super) answered: bool,
}

#[derive(Debug)]
struct Item {
    /// The microsecond it was stored at, as FreshRSS's ids are.
    id: u64,
    stream: String,
    read: bool,
    starred: bool,
}

/// Someone acting while a sync is under way.
type Meanwhile = Box<dyn FnOnce()>;

pub(super) struct FakeRemote {
    subscriptions: Vec<RemoteFeed>,
    /// Oldest first.
    items: Vec<Item>,
    /// The most a page holds, whatever was asked: small, so that every listing is paged.
    page: usize,
    /// When the next item is stored, in microseconds (1 ms after the one before: many in a second).
    clock_usec: u64,
    streams_made: usize,
    log: Vec<Logged>,
    /// The call (by number, from 0) that fails, and how.
    fail_once: HashMap<usize, Failure>,
    /// Every call from this one on fails, and how.
    down_from: Option<(usize, Failure)>,
    meanwhile: HashMap<usize, Meanwhile>,
}

impl FakeRemote {
    /// A server holding nothing, answering at most `page` items or ids a page.
    pub(super) fn new(page: usize) -> FakeRemote {
        FakeRemote {
            subscriptions: Vec::new(),
            items: Vec::new(),
            page,
            clock_usec: 1_750_000_000_000_000,
            streams_made: 0,
            log: Vec::new(),
            fail_once: HashMap::new(),
            down_from: None,
            meanwhile: HashMap::new(),
        }
    }

    /// Subscribes to `url` under `label`, as another client would; returns its stream id. An address it has
    /// already is refused.
    pub(super) fn subscribe(&mut self, url: &str, title: &str, label: Option<&str>) -> Result<String, RemoteError> {
        if self.subscriptions.iter().any(|s| s.url == url) {
            return Err(bad_request());
        }
        self.streams_made += 1;
        let stream = format!("feed/{}", self.streams_made);
        self.subscriptions.push(RemoteFeed {
            stream: stream.clone(),
            url: url.into(),
            title: title.into(),
            site_url: None,
            label: label.map(str::to_string),
        });
        Ok(stream)
    }

    /// Stores `count` new items in `stream`, unread, one a millisecond; returns their keys, oldest first.
    pub(super) fn add_items(&mut self, stream: &str, count: usize) -> Vec<String> {
        (0..count)
            .map(|_| {
                let id = self.clock_usec;
                self.clock_usec += 1000;
                self.items.push(Item { id, stream: stream.into(), read: false, starred: false });
                id.to_string()
            })
            .collect()
    }

    /// Sets a flag of the item `key`, as another device would.
    pub(super) fn mark(&mut self, key: &str, flag: Flag, value: bool) {
        let item = self.items.iter_mut().find(|i| i.id.to_string() == key).expect("an item the server has");
        match flag {
            Flag::Read => item.read = value,
            Flag::Starred => item.starred = value,
        }
    }

    /// Whether the item `key` has `flag` on (`None`: the server does not have it).
    pub(super) fn flag(&self, key: &str, flag: Flag) -> Option<bool> {
        let item = self.items.iter().find(|i| i.id.to_string() == key)?;
        Some(match flag {
            Flag::Read => item.read,
            Flag::Starred => item.starred,
        })
    }

    /// Deletes the item `key`, as a server purging old items does (starred ones too, on some).
    pub(super) fn forget(&mut self, key: &str) {
        self.items.retain(|i| i.id.to_string() != key);
    }

    /// The subscription to `url`, if the server has one.
    pub(super) fn subscription(&self, url: &str) -> Option<&RemoteFeed> {
        self.subscriptions.iter().find(|s| s.url == url)
    }

    /// Files `stream` under `label` (none: under no label), as another client would.
    pub(super) fn relabel(&mut self, stream: &str, label: Option<&str>) {
        let feed = self.subscriptions.iter_mut().find(|s| s.stream == stream).expect("a stream the server has");
        feed.label = label.map(str::to_string);
    }

    /// Every call so far.
    pub(super) fn log(&self) -> &[Logged] {
        &self.log
    }

    /// The flags the server took, in the order it took them: (key, flag, value).
    pub(super) fn flags_taken(&self) -> Vec<(String, Flag, bool)> {
        self.log
            .iter()
            .filter(|l| l.answered)
            .filter_map(|l| match &l.call {
                Call::SetFlag { flag, value, keys } => Some(keys.iter().map(|k| (k.clone(), *flag, *value))),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// After `after` more calls, the next one fails with `failure`; those after it are answered.
    pub(super) fn fail_once_after(&mut self, after: usize, failure: Failure) {
        self.fail_once.insert(self.log.len() + after, failure);
    }

    /// After `after` more calls, every call fails with `failure`, until [`FakeRemote::back`].
    pub(super) fn down_after(&mut self, after: usize, failure: Failure) {
        self.down_from = Some((self.log.len() + after, failure));
    }

    /// Answers again.
    pub(super) fn back(&mut self) {
        self.down_from = None;
    }

    /// After `after` more calls, runs `act` before the server answers the next one: someone acting while the
    /// sync waits for the server.
    pub(super) fn meanwhile(&mut self, after: usize, act: impl FnOnce() + 'static) {
        self.meanwhile.insert(self.log.len() + after, Box::new(act));
    }

    /// Logs `call` (after what someone does meanwhile); the failure set for it, if any.
    fn record(&mut self, call: Call) -> Result<(), RemoteError> {
        let number = self.log.len();
        if let Some(act) = self.meanwhile.remove(&number) {
            act();
        }
        let failure = self.fail_once.remove(&number).or_else(|| match &self.down_from {
            Some((from, failure)) if number >= *from => Some(failure.clone()),
            _ => None,
        });
        self.log.push(Logged { call, answered: failure.is_none() });
        failure.map_or(Ok(()), |f| Err(f.error()))
    }

    fn stream_mut(&mut self, stream: &str) -> Result<&mut RemoteFeed, RemoteError> {
        self.subscriptions.iter_mut().find(|s| s.stream == stream).ok_or_else(bad_request)
    }

    /// A page of `ids` (newest first) after the continuation, and the continuation of the next.
    fn page_of(
        &self,
        ids: impl Iterator<Item = u64>,
        continuation: Option<&str>,
        most: usize,
    ) -> (Vec<u64>, Option<String>) {
        let before = continuation.and_then(|c| c.parse::<u64>().ok()).unwrap_or(u64::MAX);
        let n = self.page.min(most);
        let page: Vec<u64> = ids.filter(|id| *id < before).take(n).collect();
        let next = page.last().filter(|_| page.len() == n).map(u64::to_string);
        (page, next)
    }
}

/// FreshRSS's answer to an edit it will not make.
fn bad_request() -> RemoteError {
    RemoteError::Status(400, "Bad Request!".into())
}

fn remote_item(item: &Item) -> RemoteItem {
    let key = item.id.to_string();
    let stored_secs = i64::try_from(item.id / 1_000_000).unwrap_or(i64::MAX);
    let entry =
        crate::store::fixtures::entry(&key, &format!("Item {key}"), &format!("<p>Body of {key}</p>"), stored_secs);
    RemoteItem {
        entry,
        stream: item.stream.clone(),
        read: item.read,
        starred: item.starred,
        crawled_usec: i64::try_from(item.id).unwrap_or(i64::MAX),
    }
}

impl Remote for FakeRemote {
    /// Any login is taken (a refused one is [`Failure::Unauthorized`]).
    async fn login(&mut self) -> Result<(), RemoteError> {
        self.record(Call::Login)
    }

    async fn subscriptions(&mut self) -> Result<Vec<RemoteFeed>, RemoteError> {
        self.record(Call::Subscriptions)?;
        Ok(self.subscriptions.clone())
    }

    async fn items_since(
        &mut self,
        since_secs: i64,
        continuation: Option<&str>,
        most: usize,
    ) -> Result<ItemsPage, RemoteError> {
        self.record(Call::ItemsSince { since_secs, continuation: continuation.map(str::to_string) })?;
        let from = u64::try_from(since_secs).unwrap_or(0).saturating_mul(1_000_000);
        let (ids, continuation) =
            self.page_of(self.items.iter().rev().map(|i| i.id).filter(|id| *id >= from), continuation, most);
        let items = ids.iter().filter_map(|id| self.items.iter().find(|i| i.id == *id)).map(remote_item).collect();
        Ok(ItemsPage { items, continuation })
    }

    async fn ids(&mut self, set: Set, continuation: Option<&str>, most: usize) -> Result<IdsPage, RemoteError> {
        self.record(Call::Ids { set, continuation: continuation.map(str::to_string) })?;
        let in_set = |i: &&Item| match set {
            Set::Unread => !i.read,
            Set::Starred => i.starred,
        };
        let (ids, continuation) =
            self.page_of(self.items.iter().rev().filter(in_set).map(|i| i.id), continuation, most);
        Ok(IdsPage { ids: ids.iter().map(u64::to_string).collect(), continuation })
    }

    async fn items(&mut self, keys: &[String]) -> Result<Vec<RemoteItem>, RemoteError> {
        self.record(Call::Items { keys: keys.to_vec() })?;
        Ok(self.items.iter().filter(|i| keys.contains(&i.id.to_string())).map(remote_item).collect())
    }

    async fn set_flag(&mut self, flag: Flag, value: bool, keys: &[String]) -> Result<(), RemoteError> {
        self.record(Call::SetFlag { flag, value, keys: keys.to_vec() })?;
        for item in self.items.iter_mut().filter(|i| keys.contains(&i.id.to_string())) {
            match flag {
                Flag::Read => item.read = value,
                Flag::Starred => item.starred = value,
            }
        }
        Ok(())
    }

    /// A label on items, as `edit-tag` puts one (the fake keeps only the call).
    async fn save(&mut self, keys: &[String], label: &str) -> Result<(), RemoteError> {
        self.record(Call::Save { keys: keys.to_vec(), label: label.to_string() })
    }

    /// `mark-all-as-read` as FreshRSS does it: the items of the list whose id (the microsecond they were stored)
    /// is at most `seen_usec`.
    async fn mark_list_read(&mut self, scope: &Scope, seen_usec: i64, _: i64) -> Result<bool, RemoteError> {
        self.record(Call::MarkListRead { scope: scope.clone(), seen_usec })?;
        let streams: Vec<String> = match scope {
            Scope::All => self.subscriptions.iter().map(|s| s.stream.clone()).collect(),
            Scope::Label(label) => self
                .subscriptions
                .iter()
                .filter(|s| s.label.as_deref() == Some(label))
                .map(|s| s.stream.clone())
                .collect(),
            Scope::Feed(stream) => vec![stream.clone()],
        };
        for item in self.items.iter_mut().filter(|i| streams.contains(&i.stream) && i.id as i64 <= seen_usec) {
            item.read = true;
        }
        Ok(true)
    }

    async fn edit_subscription(&mut self, change: &FeedChange) -> Result<(), RemoteError> {
        self.record(Call::EditSubscription(change.clone()))?;
        match change {
            FeedChange::Subscribe { url, title, label } => {
                self.subscribe(url, title.as_deref().unwrap_or(url), label.as_deref()).map(drop)
            }
            FeedChange::Unsubscribe { stream } => {
                self.stream_mut(stream)?;
                self.subscriptions.retain(|s| s.stream != *stream);
                self.items.retain(|i| i.stream != *stream);
                Ok(())
            }
            FeedChange::Rename { stream, title } => {
                self.stream_mut(stream)?.title = title.clone();
                Ok(())
            }
            FeedChange::Relabel { stream, label } => {
                self.stream_mut(stream)?.label = label.clone();
                Ok(())
            }
        }
    }

    fn requests(&self) -> usize {
        self.log.len()
    }
}
