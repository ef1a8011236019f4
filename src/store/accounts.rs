//! Accounts: servers that hold some of the subscriptions and their read and starred state (FreshRSS, Miniflux,
//! Inoreader… over the Google Reader API; see `crate::sync`). An account's feeds sit under a folder named after
//! it, its labels as folders inside that one (a label is a folder's path, `News/Tech`); they are fetched by the
//! server, never by tidings' refresh, and their entries are keyed by the server's item ids.
//!
//! Here: finding an account's row and folder, where a folder sits (local, or which account and label), the
//! account's subscriptions as the change log must tell them, and what a sync stores — the server's
//! subscriptions, its items, its unread and starred sets — without undoing a change still waiting to be sent.

use super::changes::{self, Flag};
use super::{RowIds, StoreError};
use crate::greader::{RemoteFeed, RemoteItem};
use crate::model::{AccountId, FeedId, FolderId};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::{HashMap, HashSet};

/// An account as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    pub id: AccountId,
    pub name: String,
    /// The folder its feeds are under.
    pub folder_id: FolderId,
    /// The server's login token, kept between syncs (the API password is not stored).
    pub auth: Option<String>,
    pub synced_at: Option<i64>,
    /// Items the server stored before this time (seconds) are in the store already.
    pub items_since: i64,
    /// So is every item the server stored at or before this time (microseconds; 0: none known to be).
    pub items_seen_usec: i64,
}

/// Finds the account called `name`, or creates it, with its folder at the top level (named after it); a
/// folder of that name that holds local feeds is not taken over: the account's gets a name of its own.
pub fn ensure(conn: &mut Connection, name: &str, kind: &str, url: &str, login: &str) -> Result<AccountRow, StoreError> {
    let tx = conn.transaction()?;
    let found: Option<(AccountId, Option<FolderId>)> = tx
        .prepare_cached("SELECT id, folder_id FROM accounts WHERE name = ?1")?
        .query_row([name], |r| Ok((r.id(0)?, r.optional_id(1)?)))
        .optional()?;
    let id = match found {
        Some((id, _)) => {
            tx.prepare_cached("UPDATE accounts SET kind = ?2, url = ?3, login = ?4 WHERE id = ?1")?
                .execute(params![id.0, kind, url, login])?;
            id
        }
        None => {
            tx.prepare_cached("INSERT INTO accounts (name, kind, url, login) VALUES (?1, ?2, ?3, ?4)")?
                .execute(params![name, kind, url, login])?;
            AccountId(tx.last_insert_rowid())
        }
    };
    let folder = match found.and_then(|(_, folder)| folder) {
        Some(folder) => folder,
        None => {
            let folder = own_folder(&tx, name)?;
            tx.prepare_cached("UPDATE accounts SET folder_id = ?2 WHERE id = ?1")?.execute(params![id.0, folder.0])?;
            folder
        }
    };
    let row = tx
        .prepare_cached("SELECT name, auth, synced_at, items_since, items_seen_usec FROM accounts WHERE id = ?1")?
        .query_row([id.0], |r| {
            Ok(AccountRow {
                id,
                name: r.get(0)?,
                folder_id: folder,
                auth: r.get(1)?,
                synced_at: r.get(2)?,
                items_since: r.get(3)?,
                items_seen_usec: r.get(4)?,
            })
        })?;
    tx.commit()?;
    Ok(row)
}

/// A top-level folder for a new account: `name`, or `name (account)` when a folder of that name holds local
/// feeds already.
fn own_folder(tx: &Connection, name: &str) -> Result<FolderId, StoreError> {
    for candidate in [name.to_string(), format!("{name} (account)"), format!("{name} (account 2)")] {
        let existing: Option<FolderId> = tx
            .prepare_cached("SELECT id FROM folders WHERE parent_id IS NULL AND name = ?1")?
            .query_row([&candidate], |r| r.id(0))
            .optional()?;
        match existing {
            None => return Ok(super::folders::create(tx, &[candidate])?.expect("a folder with a name")),
            Some(folder) => {
                let taken = tx.prepare_cached("SELECT 1 FROM accounts WHERE folder_id = ?1")?.exists([folder.0])?;
                let holds_local = tx.prepare_cached("SELECT 1 FROM feeds WHERE folder_id = ?1")?.exists([folder.0])?;
                if !taken && !holds_local {
                    return Ok(folder);
                }
            }
        }
    }
    Err(StoreError::Conflict(format!("no folder can be made for the account {name}: rename the folders called {name}")))
}

/// Keeps the server's login token (or forgets it, refused).
pub fn set_auth(conn: &Connection, account: AccountId, auth: Option<&str>) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE accounts SET auth = ?2 WHERE id = ?1")?.execute(params![account.0, auth])?;
    Ok(())
}

/// A sync ended well: when, and up to when the server's items are stored.
pub fn synced(conn: &Connection, account: AccountId, now: i64, items: ItemsMark) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE accounts SET synced_at = ?2, items_since = ?3, items_seen_usec = ?4 WHERE id = ?1")?
        .execute(params![account.0, now, items.since, items.seen_usec])?;
    Ok(())
}

/// How far a sync has the server's items: what the next one asks from, and where it may stop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItemsMark {
    /// Seconds: the next sync asks for the items stored from this second on.
    pub since: i64,
    /// Microseconds: every item stored at or before this is here (0: not known).
    pub seen_usec: i64,
}

/// Where a folder sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Among the local subscriptions (or the top level).
    Local,
    /// In an account's tree; `label` is the folder's path below the account's folder (`None`: the account's
    /// folder itself).
    Account { account: AccountId, label: Option<String> },
}

/// Where `folder` sits.
pub(super) fn place(tx: &Connection, folder: Option<FolderId>) -> Result<Place, StoreError> {
    let Some(folder) = folder else { return Ok(Place::Local) };
    let path: Vec<(FolderId, String)> = tx
        .prepare_cached(
            "WITH RECURSIVE up(id, parent, name, depth) AS (
                SELECT id, parent_id, name, 0 FROM folders WHERE id = ?1
                UNION ALL SELECT f.id, f.parent_id, f.name, up.depth + 1 FROM folders f JOIN up ON f.id = up.parent
                WHERE up.depth < 64)
             SELECT id, name FROM up ORDER BY depth DESC",
        )?
        .query_map([folder.0], |r| Ok((r.id(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let Some((root, _)) = path.first() else { return Ok(Place::Local) };
    let account: Option<AccountId> = tx
        .prepare_cached("SELECT id FROM accounts WHERE folder_id = ?1")?
        .query_row([root.0], |r| r.id(0))
        .optional()?;
    Ok(match account {
        None => Place::Local,
        Some(account) => {
            let names: Vec<&str> = path[1..].iter().map(|(_, n)| n.as_str()).collect();
            Place::Account { account, label: (!names.is_empty()).then(|| names.join("/")) }
        }
    })
}

/// Whether `folder` is an account's own folder.
pub(super) fn is_account_folder(tx: &Connection, folder: FolderId) -> Result<bool, StoreError> {
    Ok(tx.prepare_cached("SELECT 1 FROM accounts WHERE folder_id = ?1")?.exists([folder.0])?)
}

/// An account's subscription as the change log tells it: its stream id on the server (none until the server
/// has listed it), its address, and its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Subscription {
    pub account: AccountId,
    pub stream: Option<String>,
    pub url: String,
    pub label: Option<String>,
}

/// Every account's subscriptions, by feed: before and after a change to the folders, the difference is what the
/// servers must hear.
pub(super) fn subscriptions(tx: &Connection) -> Result<HashMap<FeedId, Subscription>, StoreError> {
    struct Row {
        feed: FeedId,
        account: AccountId,
        stream: Option<String>,
        url: String,
        folder: Option<FolderId>,
    }
    let rows: Vec<Row> = tx
        .prepare_cached("SELECT id, account_id, remote_id, url, folder_id FROM feeds WHERE account_id IS NOT NULL")?
        .query_map([], |r| {
            Ok(Row { feed: r.id(0)?, account: r.id(1)?, stream: r.get(2)?, url: r.get(3)?, folder: r.optional_id(4)? })
        })?
        .collect::<Result<_, _>>()?;
    let mut places: HashMap<Option<FolderId>, Place> = HashMap::new();
    let mut out = HashMap::with_capacity(rows.len());
    for Row { feed, account, stream, url, folder } in rows {
        if let std::collections::hash_map::Entry::Vacant(slot) = places.entry(folder) {
            slot.insert(place(tx, folder)?);
        }
        let label = match &places[&folder] {
            Place::Account { account: a, label } if *a == account => label.clone(),
            _ => None,
        };
        out.insert(feed, Subscription { account, stream, url, label });
    }
    Ok(out)
}

/// Records for the servers what a change to folders or feeds did to their subscriptions: a feed gone is
/// unsubscribed (or its subscription, not sent yet, forgotten), a feed whose label changed is relabelled.
pub(super) fn record_differences(
    tx: &Connection,
    before: &HashMap<FeedId, Subscription>,
    after: &HashMap<FeedId, Subscription>,
    now: i64,
) -> Result<(), StoreError> {
    let mut gone: Vec<&Subscription> =
        before.iter().filter(|(id, _)| !after.contains_key(id)).map(|(_, s)| s).collect();
    gone.sort_by(|a, b| a.url.cmp(&b.url));
    for sub in gone {
        match &sub.stream {
            Some(stream) => changes::record_feed(
                tx,
                sub.account,
                &changes::FeedChange::Unsubscribe { stream: stream.clone() },
                now,
            )?,
            None => changes::forget_subscribe(tx, sub.account, &sub.url)?,
        }
    }
    let mut moved: Vec<(&FeedId, &Subscription)> =
        after.iter().filter(|(id, s)| before.get(id).is_some_and(|b| b.label != s.label)).collect();
    moved.sort_by_key(|(id, _)| **id);
    for (_, sub) in moved {
        let change = match &sub.stream {
            Some(stream) => changes::FeedChange::Relabel { stream: stream.clone(), label: sub.label.clone() },
            // Not on the server yet: it is subscribed into its new label instead.
            None => {
                changes::forget_subscribe(tx, sub.account, &sub.url)?;
                changes::FeedChange::Subscribe { url: sub.url.clone(), title: None, label: sub.label.clone() }
            }
        };
        changes::record_feed(tx, sub.account, &change, now)?;
    }
    Ok(())
}

/// What storing the server's subscriptions did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionsReport {
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
}

/// Stores the server's subscriptions: new ones added under the account's folder (in their label's folder),
/// titles, addresses and labels followed, and those the server no longer lists removed with their entries.
/// A subscription made here and still waiting to be sent is kept.
pub fn store_subscriptions(
    conn: &mut Connection,
    account: &AccountRow,
    remote: &[RemoteFeed],
    now: i64,
) -> Result<SubscriptionsReport, StoreError> {
    let tx = conn.transaction()?;
    let mut report = SubscriptionsReport::default();
    type Local = (FeedId, Option<String>, String, Option<String>, Option<FolderId>);
    let local: Vec<Local> = tx
        .prepare_cached("SELECT id, remote_id, url, title, folder_id FROM feeds WHERE account_id = ?1")?
        .query_map([account.id.0], |r| Ok((r.id(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.optional_id(4)?)))?
        .collect::<Result<_, _>>()?;
    let by_stream: HashMap<&str, usize> =
        local.iter().enumerate().filter_map(|(i, f)| f.1.as_deref().map(|s| (s, i))).collect();
    let by_url: HashMap<&str, usize> = local.iter().enumerate().map(|(i, f)| (f.2.as_str(), i)).collect();
    let mut seen: HashSet<FeedId> = HashSet::new();
    let mut left: Vec<FolderId> = Vec::new();
    let mut folders = super::folders::FolderIds::default();
    let root_path =
        super::folders::paths(&tx)?.remove(&account.folder_id).unwrap_or_else(|| vec![account.name.clone()]);
    let mut position: i64 = tx.query_row("SELECT coalesce(max(position), 0) FROM feeds", [], |r| r.get(0))?;
    for feed in remote {
        let mut path = root_path.clone();
        path.extend(feed.label.iter().flat_map(|l| super::folders::split_path(l)));
        let folder = folders.path(&tx, &path)?;
        let title = crate::sanitize::truncate_bytes(&feed.title, super::MAX_TITLE_BYTES);
        match by_stream.get(feed.stream.as_str()).or_else(|| by_url.get(feed.url.as_str())).map(|i| &local[*i]) {
            Some((id, stream, url, own_title, folder_id)) => {
                seen.insert(*id);
                let same = stream.as_deref() == Some(feed.stream.as_str())
                    && *url == feed.url
                    && own_title.as_deref() == Some(title)
                    && *folder_id == folder;
                if !same {
                    left.extend(folder_id.filter(|f| Some(*f) != folder));
                    tx.prepare_cached(
                        "UPDATE feeds SET remote_id = ?2, url = ?3, title = ?4, site_url = coalesce(?5, site_url),
                            folder_id = ?6 WHERE id = ?1",
                    )?
                    .execute(params![
                        id.0,
                        feed.stream,
                        feed.url,
                        title,
                        feed.site_url,
                        folder.map(|f| f.0)
                    ])?;
                    report.changed += 1;
                }
            }
            None => {
                position += 1;
                tx.prepare_cached(
                    "INSERT INTO feeds (url, title, site_url, folder_id, position, added_at, account_id, remote_id,
                        last_fetched_at, last_success_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?6, ?6)",
                )?
                .execute(params![
                    feed.url,
                    title,
                    feed.site_url,
                    folder.map(|f| f.0),
                    position,
                    now,
                    account.id.0,
                    feed.stream
                ])?;
                report.added += 1;
            }
        }
    }
    let waiting = changes::waiting_subscribes(&tx, account.id)?;
    for (id, stream, url, _, folder_id) in &local {
        if seen.contains(id) || (stream.is_none() && waiting.contains(url)) {
            continue;
        }
        tx.prepare_cached("DELETE FROM feeds WHERE id = ?1")?.execute([id.0])?;
        left.extend(*folder_id);
        report.removed += 1;
    }
    // Folders of the account's tree that the server's changes left empty go too (labels hold feeds).
    super::folders::remove_if_empty(&tx, &left, account.folder_id)?;
    tx.commit()?;
    Ok(report)
}

/// What storing a page of items did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItemsReport {
    pub new: usize,
    pub updated: usize,
    /// Items of feeds the account does not list (yet): left for the next sync, which asks again from the
    /// second the first of them was stored in (seconds since the epoch).
    pub orphans_since: Option<i64>,
}

/// Stores the server's items in their feeds; a new one takes the server's read and starred state (unless a
/// change here is waiting to be sent), a known one keeps its flags (the sets say what changed).
pub fn store_items(
    conn: &mut Connection,
    account: &AccountRow,
    items: &[RemoteItem],
    now: i64,
) -> Result<ItemsReport, StoreError> {
    let tx = conn.transaction()?;
    let feeds: HashMap<String, FeedId> = tx
        .prepare_cached("SELECT remote_id, id FROM feeds WHERE account_id = ?1 AND remote_id IS NOT NULL")?
        .query_map([account.id.0], |r| Ok((r.get(0)?, r.id(1)?)))?
        .collect::<Result<_, _>>()?;
    let waiting = changes::waiting_flags(&tx, account.id)?;
    let mut report = ItemsReport::default();
    let mut touched = HashSet::new();
    for item in items {
        let Some(&feed) = feeds.get(&item.stream) else {
            let at = item.crawled_usec / 1_000_000;
            report.orphans_since = Some(report.orphans_since.map_or(at, |s| s.min(at)));
            continue;
        };
        touched.insert(feed);
        match super::fetches::store_entry(&tx, feed, &item.entry, now)? {
            Some(entry) => {
                report.new += 1;
                let key = item.entry.key.as_str();
                let read = if waiting.contains(&(key.to_string(), Flag::Read)) { None } else { Some(item.read) };
                let starred =
                    if waiting.contains(&(key.to_string(), Flag::Starred)) { None } else { Some(item.starred) };
                tx.prepare_cached(
                    "UPDATE entries SET read = coalesce(?2, read), starred = coalesce(?3, starred) WHERE id = ?1",
                )?
                .execute(params![entry.0, read, starred])?;
            }
            None => report.updated += 1,
        }
    }
    for feed in touched {
        tx.prepare_cached("UPDATE feeds SET last_fetched_at = ?2, last_success_at = ?2 WHERE id = ?1")?
            .execute(params![feed.0, now])?;
    }
    tx.commit()?;
    Ok(report)
}

/// Sets `flag` on the account's entries from the server's set (for [`Flag::Read`], the unread set: in it means
/// unread): on for those in it, off for the others — but not where a change here is waiting to be sent, nor for
/// the keys in `spare` (just sent, so newer than the set; or starred here and gone from the server).
pub fn apply_set(
    conn: &mut Connection,
    account: &AccountRow,
    flag: Flag,
    set: &HashSet<String>,
    spare: &HashSet<String>,
) -> Result<usize, StoreError> {
    let tx = conn.transaction()?;
    let waiting = changes::waiting_flags(&tx, account.id)?;
    let column = match flag {
        Flag::Read => "read",
        Flag::Starred => "starred",
    };
    let rows: Vec<(i64, String, bool)> = tx
        .prepare_cached(&format!(
            "SELECT e.id, e.key, e.{column} FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id = ?1"
        ))?
        .query_map([account.id.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut changed = 0;
    let mut update = tx.prepare_cached(&format!("UPDATE entries SET {column} = ?2 WHERE id = ?1"))?;
    for (id, key, now_set) in rows {
        if waiting.contains(&(key.clone(), flag)) {
            continue;
        }
        // The read flag is set by the unread set: in it means not read.
        let in_set = set.contains(&key);
        let want = match flag {
            Flag::Read => !in_set,
            Flag::Starred => in_set,
        };
        if want == now_set || spare.contains(&key) {
            continue;
        }
        update.execute(params![id, want])?;
        changed += 1;
    }
    drop(update);
    tx.commit()?;
    Ok(changed)
}

/// Keys of the account's entries whose `flag` is on here.
pub fn keys_with(conn: &Connection, account: AccountId, flag: Flag) -> Result<HashSet<String>, StoreError> {
    let column = match flag {
        Flag::Read => "read",
        Flag::Starred => "starred",
    };
    let sql = format!(
        "SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id = ?1 AND e.{column} = 1"
    );
    Ok(conn.prepare_cached(&sql)?.query_map([account.0], |r| r.get(0))?.collect::<Result<_, _>>()?)
}

/// The keys of every entry of the account stored here.
pub fn keys(conn: &Connection, account: AccountId) -> Result<HashSet<String>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id = ?1")?
        .query_map([account.0], |r| r.get(0))?
        .collect::<Result<_, _>>()?)
}

/// How many of the account's entries are stored.
pub fn entry_count(conn: &Connection, account: AccountId) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id = ?1")?
        .query_row([account.0], |r| r.get(0))?)
}
