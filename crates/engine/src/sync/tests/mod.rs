//! A sync over [`FakeRemote`] and a real database in a temporary folder, through the function the real sync runs
//! ([`sync_over`]): marks going up ([`up`]) and coming down ([`down`]), the offline queue and a sync cut midway
//! ([`offline`]), and subscriptions and labels both ways ([`labels`]).

mod down;
mod labels;
mod offline;
mod up;

use super::fake::FakeRemote;
use super::{AccountConfig, Limits, Report, SyncError, account_row, sync_over};
use crate::model::{EntryId, FeedRow, UserWrite};
use crate::store::changes::{self, Flag};
use crate::store::{self, DbThread, StoreError};
use rusqlite::Connection;
use std::collections::{BTreeMap, BTreeSet};

/// What the account is called here: its feeds are under the folder of this name.
const ACCOUNT: &str = "Fake";
/// The server's feeds: one filed under the label `News`, one under none.
const NEWS: &str = "http://example.com/news.xml";
const PLAIN: &str = "http://example.com/plain.xml";

/// A server holding [`NEWS`] with 5 items and [`PLAIN`] with 3, answering 2 items or ids a page; the keys of
/// each feed's items, oldest first.
fn server() -> (FakeRemote, Vec<String>, Vec<String>) {
    let mut fake = FakeRemote::new(2);
    let news = fake.subscribe(NEWS, "News feed", Some("News")).expect("a new address");
    let plain = fake.subscribe(PLAIN, "Plain feed", None).expect("a new address");
    let news_keys = fake.add_items(&news, 5);
    let plain_keys = fake.add_items(&plain, 3);
    (fake, news_keys, plain_keys)
}

/// The database here, with one account that syncs with the fake, and the time.
struct Here {
    dir: tempfile::TempDir,
    writer: DbThread,
    account: AccountConfig,
    /// Seconds since the epoch: each sync is a minute after the one before.
    now: i64,
}

impl Here {
    fn new() -> Here {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let conn = store::open_write(&dir.path().join("tidings.db")).expect("a new database");
        let account = AccountConfig {
            name: ACCOUNT.into(),
            kind: "greader".into(),
            url: "http://fake.invalid/api/greader.php".into(),
            user: "alice".into(),
            password: Some("secret".into()),
            password_command: None,
            password_file: None,
            save_label: "Saved".into(),
        };
        Here { writer: DbThread::spawn_writer(conn), dir, account, now: 1_750_000_000 }
    }

    /// One sync over `fake`, a minute after the last, as `sync_within` runs one over the Google Reader API.
    async fn sync(&mut self, fake: &mut FakeRemote) -> Result<Report, SyncError> {
        self.now += 60;
        let row = account_row(&self.account, &self.writer).await?;
        sync_over(fake, &self.account, &self.writer, &row, self.now, Limits::default()).await
    }

    /// Runs `f` on the writer.
    async fn with<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    ) -> R {
        self.writer.call(f).await.expect("the database")
    }

    /// A change made here, through the one write path.
    async fn apply(&self, write: UserWrite) {
        let now = self.now;
        self.with(move |c| store::apply(c, &write, now)).await;
    }

    /// `flag` set to `value` here on the entries of these items.
    async fn mark(&self, keys: &[&str], flag: Flag, value: bool) {
        let write = marking(self.entries(keys).await, flag, value);
        self.apply(write).await;
    }

    /// The entries of these items.
    async fn entries(&self, keys: &[&str]) -> Vec<EntryId> {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        self.with(move |c| {
            let mut stmt = c.prepare("SELECT id FROM entries WHERE key = ?1")?;
            Ok(keys.iter().map(|k| stmt.query_row([k], |r| r.get(0)).map(EntryId)).collect::<Result<_, _>>()?)
        })
        .await
    }

    /// Every entry here, by its item's key: (read, starred).
    async fn flags(&self) -> BTreeMap<String, (bool, bool)> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT key, read, starred FROM entries")?;
            Ok(stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?.collect::<Result<_, _>>()?)
        })
        .await
    }

    /// How many changes wait for the server.
    async fn waiting(&self) -> i64 {
        let id = account_row(&self.account, &self.writer).await.expect("the account").id;
        self.with(move |c| changes::waiting(c, id)).await
    }

    /// The feed of `url` here.
    async fn feed(&self, url: &str) -> Option<FeedRow> {
        let url = url.to_string();
        self.with(move |c| Ok(store::feeds::feeds(c)?.into_iter().find(|f| f.url == url))).await
    }

    /// The folder the feed of `url` is in here ("Fake/News"); `None` when there is no such feed.
    async fn folder_of(&self, url: &str) -> Option<String> {
        self.feed(url).await.and_then(|f| f.folder)
    }

    /// Every folder's path here.
    async fn folders(&self) -> BTreeSet<String> {
        self.with(|c| Ok(store::places::paths(c)?.into_values().map(|p| p.join("/")).collect())).await
    }

    /// A connection of its own to the database, as the reader has beside a sync.
    fn beside(&self) -> Connection {
        store::open_write(&self.dir.path().join("tidings.db")).expect("the database")
    }
}

/// The change that sets `flag` to `value` on `ids`.
fn marking(ids: Vec<EntryId>, flag: Flag, value: bool) -> UserWrite {
    match flag {
        Flag::Read => UserWrite::SetRead { ids, read: value },
        Flag::Starred => UserWrite::SetStarred { ids, starred: value },
    }
}

/// The server's flags of these items, as [`Here::flags`] gives them (an item it lacks: neither).
fn flags_there(fake: &FakeRemote, keys: &[String]) -> BTreeMap<String, (bool, bool)> {
    let flag = |key: &str, flag| fake.flag(key, flag).unwrap_or(false);
    keys.iter().map(|k| (k.clone(), (flag(k, Flag::Read), flag(k, Flag::Starred)))).collect()
}
