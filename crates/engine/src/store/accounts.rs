//! Accounts: servers that hold some of the subscriptions and their read and starred state (FreshRSS, Miniflux,
//! Inoreader… over the Google Reader API; see `crate::sync`). An account's feeds sit under a folder named after
//! it, its labels as folders inside that one (a label is a folder's path, `News/Tech`); they are fetched by the
//! server, never by tidings' refresh, and their entries are keyed by the server's item ids.
//!
//! Here: finding an account's row and folder (its login token bound to the server and user it was given by),
//! and the account's subscriptions as the change log must tell them; where a folder sits is `places`'s. What a
//! sync stores — the server's subscriptions, its items, its unread and starred sets — is [`pulled`]'s.

mod lists;
mod meeting;
mod pulled;

use super::changes;
use super::places::{self, Place};
use super::{RowIds, StoreError};
use crate::model::{AccountId, FeedId, FolderId};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;

pub use lists::{Scope, WholeList, whole_lists};
pub use meeting::{LOCAL_KEY, refused};
pub use pulled::{
    ItemsReport, MAX_LABEL_DEPTH, SubscriptionsReport, apply_set, keys_with, store_items, store_subscriptions,
    stored_keys, unknown_keys,
};

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
    /// How far the server's items are here.
    pub items: ItemsMark,
    /// The server asked not to be asked again before this time (429 with `Retry-After`).
    pub busy_until: Option<i64>,
    /// What a sync learnt the server lacks or wants (see `sync`'s remotes).
    pub traits: Option<String>,
}

/// Finds the account called `name`, or creates it, with its folder at the top level (named after it); a
/// folder of that name that holds local feeds is not taken over: the account's gets a name of its own.
///
/// A login token is the server's answer to one user's password: when the config points the account at another
/// server, user or protocol, the token is forgotten before any request could carry it there, and so is how far
/// the old server's items came (the new one's are all new).
pub fn ensure(conn: &mut Connection, name: &str, kind: &str, url: &str, login: &str) -> Result<AccountRow, StoreError> {
    let tx = conn.transaction()?;
    type Found = (AccountId, Option<FolderId>, String, String, String);
    let found: Option<Found> = tx
        .prepare_cached("SELECT id, folder_id, kind, url, login FROM accounts WHERE name = ?1")?
        .query_row([name], |r| Ok((r.id(0)?, r.optional_id(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .optional()?;
    let id = match &found {
        Some((id, _, was_kind, was_url, was_login)) => {
            if (was_kind.as_str(), was_url.as_str(), was_login.as_str()) != (kind, url, login) {
                tx.prepare_cached(
                    "UPDATE accounts SET kind = ?2, url = ?3, login = ?4, auth = NULL, items_since = 0,
                        items_seen_usec = 0, items_resume = NULL, busy_until = NULL, server_traits = NULL
                        WHERE id = ?1",
                )?
                .execute(params![id.0, kind, url, login])?;
            }
            *id
        }
        None => {
            tx.prepare_cached("INSERT INTO accounts (name, kind, url, login) VALUES (?1, ?2, ?3, ?4)")?
                .execute(params![name, kind, url, login])?;
            AccountId(tx.last_insert_rowid())
        }
    };
    tx.prepare_cached("UPDATE accounts SET retired = 0 WHERE id = ?1 AND retired <> 0")?.execute([id.0])?;
    let folder = match found.and_then(|(_, folder, ..)| folder) {
        Some(folder) => folder,
        None => {
            let folder = own_folder(&tx, name)?;
            tx.prepare_cached("UPDATE accounts SET folder_id = ?2 WHERE id = ?1")?.execute(params![id.0, folder.0])?;
            folder
        }
    };
    let row = tx
        .prepare_cached(
            "SELECT name, auth, synced_at, items_since, items_seen_usec, items_resume, busy_until, server_traits
             FROM accounts WHERE id = ?1",
        )?
        .query_row([id.0], |r| {
            Ok(AccountRow {
                id,
                name: r.get(0)?,
                folder_id: folder,
                auth: r.get(1)?,
                synced_at: r.get(2)?,
                items: ItemsMark { since: r.get(3)?, seen_usec: r.get(4)?, resume: r.get(5)? },
                busy_until: r.get(6)?,
                traits: r.get(7)?,
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
            None => return Ok(places::create(tx, &[candidate])?.expect("a folder with a name")),
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

/// A sync ended well, at `now` (a wait the server asked for is over).
pub fn synced(conn: &Connection, account: AccountId, now: i64) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE accounts SET synced_at = ?2, busy_until = NULL WHERE id = ?1")?
        .execute(params![account.0, now])?;
    Ok(())
}

/// Marks the accounts the config no longer has as retired (their folders may then be deleted here, sending
/// nothing), and those it has as not.
pub fn mark_in_config(conn: &Connection, names: &[String]) -> Result<(), StoreError> {
    let held: Vec<(AccountId, String, bool)> = conn
        .prepare_cached("SELECT id, name, retired FROM accounts")?
        .query_map([], |r| Ok((r.id(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    for (id, name, retired) in held {
        let gone = !names.contains(&name);
        if gone != retired {
            conn.prepare_cached("UPDATE accounts SET retired = ?2 WHERE id = ?1")?.execute(params![id.0, gone])?;
        }
    }
    Ok(())
}

/// The server asked not to be asked again before `until` (seconds since the epoch).
pub fn set_busy_until(conn: &Connection, account: AccountId, until: i64) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE accounts SET busy_until = ?2 WHERE id = ?1")?.execute(params![account.0, until])?;
    Ok(())
}

/// Keeps what a sync learnt of the server.
pub fn set_traits(conn: &Connection, account: AccountId, traits: Option<&str>) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE accounts SET server_traits = ?2 WHERE id = ?1")?.execute(params![account.0, traits])?;
    Ok(())
}

/// Keeps how far the server's items are here, as soon as a sync has them (before the rest of it can fail).
pub fn set_items_mark(conn: &Connection, account: AccountId, items: &ItemsMark) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE accounts SET items_since = ?2, items_seen_usec = ?3, items_resume = ?4 WHERE id = ?1")?
        .execute(params![account.0, items.since, items.seen_usec, items.resume])?;
    Ok(())
}

/// How far a sync has the server's items: what the next one asks from, where it may stop, and where it goes on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemsMark {
    /// Seconds: the next sync asks for the items stored from this second on.
    pub since: i64,
    /// Microseconds: every item stored after the resume point (all of them, without one) up to this is here
    /// (0: not known).
    pub seen_usec: i64,
    /// Where an earlier sync stopped going down the items (at its cap, or cut short): the continuation the
    /// server gave for the rest, older than what it stored. The next sync goes on from there once it has the
    /// new items; until the rest is here, `since` stays where it was.
    pub resume: Option<String>,
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
            slot.insert(places::place(tx, folder)?);
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
    // An account deleted with its folder (retired from the config) is told nothing.
    let mut held = tx.prepare_cached("SELECT 1 FROM accounts WHERE id = ?1")?;
    let mut exists: HashMap<AccountId, bool> = HashMap::new();
    for sub in before.values() {
        if let std::collections::hash_map::Entry::Vacant(slot) = exists.entry(sub.account) {
            slot.insert(held.exists([sub.account.0])?);
        }
    }
    drop(held);
    let mut gone: Vec<&Subscription> = before
        .iter()
        .filter(|(id, s)| !after.contains_key(id) && exists.get(&s.account).copied().unwrap_or(true))
        .map(|(_, s)| s)
        .collect();
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

/// How many of the account's entries are stored.
pub fn entry_count(conn: &Connection, account: AccountId) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id = ?1")?
        .query_row([account.0], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_forgotten_with_how_far_the_items_came_when_the_server_or_user_changes() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = super::super::open_write(&dir.path().join("t.db")).unwrap();
        let row = ensure(&mut conn, "Acc", "greader", "http://a/api", "alice").unwrap();
        let mark = ItemsMark { since: 10, seen_usec: 10_000_000, resume: Some("c".into()) };
        let keep = |conn: &mut Connection| {
            set_auth(conn, row.id, Some("alice-token")).unwrap();
            set_items_mark(conn, row.id, &mark).unwrap();
        };
        keep(&mut conn);
        let same = ensure(&mut conn, "Acc", "greader", "http://a/api", "alice").unwrap();
        assert_eq!((same.auth.as_deref(), &same.items), (Some("alice-token"), &mark), "the same account keeps them");
        for (url, user) in [("http://b/api", "alice"), ("http://b/api", "bob")] {
            keep(&mut conn);
            let moved = ensure(&mut conn, "Acc", "greader", url, user).unwrap();
            assert_eq!((moved.auth, moved.items), (None, ItemsMark::default()), "{url} {user}");
            assert_eq!(moved.folder_id, row.folder_id, "its feeds stay where they are");
        }
    }
}
