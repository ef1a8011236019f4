//! The change log: what people change here that a server must hear of — read and starred flags of the entries
//! an account holds, entries saved for later there, and changes to its subscriptions — recorded by [`super::apply`] in the same transaction as
//! the change itself, so that nothing marked while offline, or just before a crash, is lost. Sync drains it
//! (see `crate::sync`): it sends what is waiting, in order and batched, and deletes what the server took.
//!
//! A flag keeps one row per entry, and only while it differs from what the server last showed: marking an
//! entry read, then unread again, before a sync leaves no change at all (see [`record_flags_where`]). Changes to entries of local feeds are not recorded:
//! nothing would ever drain them.

use super::{RowIds, StoreError};
use crate::model::{AccountId, EntryId};
use rusqlite::types::Value;
use rusqlite::{Connection, params, params_from_iter};
use std::collections::HashSet;

/// Records that `flag` of an entry is about to become `value`, when its feed belongs to an account: call it
/// before the entry changes.
pub(super) fn record_flag(
    tx: &Connection,
    entry: EntryId,
    flag: Flag,
    value: bool,
    now: i64,
) -> Result<(), StoreError> {
    record_flags_where(tx, "e.id = ?", &[Value::Integer(entry.0)], flag, value, now)
}

/// Records `flag` = `value` for every entry of an account's feeds that matches `condition` (a condition on
/// `entries e`, with its `?` parameters), before the entries change.
///
/// A waiting change holds what the server last showed, flipped: an entry's flag differs from the server's only
/// while a change for it waits (a sync sets every other flag from the server's sets). So a change that sets the
/// flag back to what it was before the one waiting nets to nothing, and the waiting one goes instead of being
/// sent — sent, it would undo whatever another device did meanwhile. An entry whose flag already is `value` is
/// no change at all.
pub(super) fn record_flags_where(
    tx: &Connection,
    condition: &str,
    condition_params: &[Value],
    flag: Flag,
    value: bool,
    now: i64,
) -> Result<(), StoreError> {
    let column = flag.name();
    let value = Value::Integer(i64::from(value));
    // The new: entries whose flag changes and that have no change waiting.
    let new = format!(
        "INSERT INTO changes (account_id, at, kind, target, flag, value)
         SELECT f.account_id, ?, 'flag', e.key, ?, ? FROM entries e JOIN feeds f ON f.id = e.feed_id
         WHERE f.account_id IS NOT NULL AND e.{column} <> ? AND ({condition})
         ON CONFLICT (account_id, target, flag) WHERE kind = 'flag' DO NOTHING"
    );
    let head = [Value::Integer(now), Value::Text(column.into()), value.clone(), value.clone()];
    tx.prepare_cached(&new)?.execute(params_from_iter(head.iter().chain(condition_params)))?;
    // The undone: changes waiting with the other value.
    let undone = format!(
        "DELETE FROM changes WHERE kind = 'flag' AND flag = ? AND value <> ? AND (account_id, target) IN
            (SELECT f.account_id, e.key FROM entries e JOIN feeds f ON f.id = e.feed_id
             WHERE f.account_id IS NOT NULL AND ({condition}))"
    );
    let head = [Value::Text(column.into()), value];
    tx.prepare_cached(&undone)?.execute(params_from_iter(head.iter().chain(condition_params)))?;
    Ok(())
}

/// A flag people set on entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    Read,
    Starred,
}

impl Flag {
    /// Its name in the change log (and its column in `entries`).
    pub fn name(self) -> &'static str {
        match self {
            Flag::Read => "read",
            Flag::Starred => "starred",
        }
    }

    pub(super) fn from_name(name: &str) -> Option<Flag> {
        [Flag::Read, Flag::Starred].into_iter().find(|f| f.name() == name)
    }
}

/// A change to one of an account's subscriptions, for its server.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "change", rename_all = "kebab-case")]
pub enum FeedChange {
    /// Subscribed here, in the account's folder `label` (none: the account's folder itself).
    Subscribe {
        url: String,
        title: Option<String>,
        label: Option<String>,
    },
    Unsubscribe {
        stream: String,
    },
    /// Renamed here (the user's name, or the feed's own title again).
    Rename {
        stream: String,
        title: String,
    },
    /// Moved to another of the account's folders.
    Relabel {
        stream: String,
        label: Option<String>,
    },
}

impl FeedChange {
    /// What it asks of the server, for people.
    pub fn what(&self) -> String {
        match self {
            FeedChange::Subscribe { url, .. } => format!("subscribing to {url}"),
            FeedChange::Unsubscribe { stream } => format!("unsubscribing {stream}"),
            FeedChange::Rename { stream, title } => format!("renaming {stream} to {title}"),
            FeedChange::Relabel { stream, .. } => format!("moving {stream} to another folder"),
        }
    }
}

/// Records a change to one of an account's subscriptions, after the changes before it.
pub(super) fn record_feed(
    tx: &Connection,
    account: AccountId,
    change: &FeedChange,
    now: i64,
) -> Result<(), StoreError> {
    let value = serde_json::to_string(change).map_err(|e| StoreError::Conflict(e.to_string()))?;
    let target = match change {
        FeedChange::Subscribe { url, .. } => url.as_str(),
        FeedChange::Unsubscribe { stream } | FeedChange::Rename { stream, .. } | FeedChange::Relabel { stream, .. } => {
            stream.as_str()
        }
    };
    tx.prepare_cached("INSERT INTO changes (account_id, at, kind, target, value) VALUES (?1, ?2, 'feed', ?3, ?4)")?
        .execute(params![account.0, now, target, value])?;
    Ok(())
}

/// Forgets a subscription to `url` not sent yet (the feed went before the server heard of it), with what was
/// waiting for it.
pub(super) fn forget_subscribe(tx: &Connection, account: AccountId, url: &str) -> Result<(), StoreError> {
    tx.prepare_cached("DELETE FROM changes WHERE account_id = ?1 AND kind = 'feed' AND target = ?2")?
        .execute(params![account.0, url])?;
    Ok(())
}

/// Addresses subscribed here and not sent yet.
pub(super) fn waiting_subscribes(tx: &Connection, account: AccountId) -> Result<HashSet<String>, StoreError> {
    let values: Vec<String> = tx
        .prepare_cached("SELECT value FROM changes WHERE account_id = ?1 AND kind = 'feed'")?
        .query_map([account.0], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(values
        .iter()
        .filter_map(|v| match serde_json::from_str(v) {
            Ok(FeedChange::Subscribe { url, .. }) => Some(url),
            _ => None,
        })
        .collect())
}

/// (item key, flag) of every flag change waiting to be sent.
pub(super) fn waiting_flags(tx: &Connection, account: AccountId) -> Result<HashSet<(String, Flag)>, StoreError> {
    let rows: Vec<(String, String)> = tx
        .prepare_cached("SELECT target, flag FROM changes WHERE account_id = ?1 AND kind = 'flag'")?
        .query_map([account.0], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(rows.into_iter().filter_map(|(key, flag)| Some((key, Flag::from_name(&flag)?))).collect())
}

/// One change waiting for the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// An entry's flag (by the item's key), and its value as it was when read.
    Flag {
        id: i64,
        at: i64,
        key: String,
        flag: Flag,
        value: bool,
    },
    Feed {
        id: i64,
        change: FeedChange,
    },
    /// An entry saved for later on the server (a label in the Google Reader API, Miniflux's save), by the item's
    /// key.
    Save {
        id: i64,
        key: String,
    },
}

/// Every change waiting for an account's server, in the order they were made.
pub fn pending(conn: &Connection, account: AccountId) -> Result<Vec<Pending>, StoreError> {
    type Row = (i64, i64, String, String, Option<String>, Option<String>);
    let rows: Vec<Row> = conn
        .prepare_cached("SELECT id, at, kind, target, flag, value FROM changes WHERE account_id = ?1 ORDER BY id")?
        .query_map([account.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, at, kind, target, flag, value) in rows {
        match (kind.as_str(), flag.as_deref().and_then(Flag::from_name)) {
            ("flag", Some(flag)) => {
                out.push(Pending::Flag { id, at, key: target, flag, value: value.as_deref() == Some("1") });
            }
            ("feed", _) => {
                if let Some(change) = value.as_deref().and_then(|v| serde_json::from_str(v).ok()) {
                    out.push(Pending::Feed { id, change });
                }
            }
            ("save", _) => out.push(Pending::Save { id, key: target }),
            _ => {}
        }
    }
    Ok(out)
}

/// How many changes wait for an account's server.
pub fn waiting(conn: &Connection, account: AccountId) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM changes WHERE account_id = ?1")?
        .query_row([account.0], |r| r.get(0))?)
}

/// The server took these changes: they go from the log — unless one was changed again meanwhile (a flag marked
/// again since it was read), which then waits for the next sync. A flag set back meanwhile lost its change
/// (see [`record_flags_where`]), but the server now holds what was sent: the flag as it is here goes up next.
pub fn sent(conn: &mut Connection, account: AccountId, changes: &[Pending]) -> Result<(), StoreError> {
    let tx = conn.transaction()?;
    {
        let mut flag = tx.prepare_cached("DELETE FROM changes WHERE id = ?1 AND at = ?2 AND value = ?3")?;
        let mut feed = tx.prepare_cached("DELETE FROM changes WHERE id = ?1")?;
        for change in changes {
            match change {
                Pending::Flag { id, at, key, flag: which, value } => {
                    if flag.execute(params![id, at, if *value { "1" } else { "0" }])? == 0 {
                        set_back(&tx, account, key, *which, *value, *at)?;
                    }
                }
                Pending::Feed { id, .. } | Pending::Save { id, .. } => {
                    feed.execute([id])?;
                }
            }
        }
    }
    tx.commit()?;
    Ok(())
}

/// Records the flag of the entry `key` as it is here, when it differs from `sent` and no change waits for it.
fn set_back(tx: &Connection, account: AccountId, key: &str, flag: Flag, sent: bool, at: i64) -> Result<(), StoreError> {
    let column = flag.name();
    tx.prepare_cached(&format!(
        "INSERT INTO changes (account_id, at, kind, target, flag, value)
         SELECT f.account_id, ?4, 'flag', e.key, ?3, e.{column} FROM entries e JOIN feeds f ON f.id = e.feed_id
         WHERE f.account_id = ?1 AND e.key = ?2 AND e.{column} <> ?5
         ON CONFLICT (account_id, target, flag) WHERE kind = 'flag' DO NOTHING"
    ))?
    .execute(params![account.0, key, column, at, sent])?;
    Ok(())
}

/// Records that `flag` of the account's entry `key` differs here from what the server holds: `value` goes up.
pub(super) fn record_key_flag(
    tx: &Connection,
    account: AccountId,
    key: &str,
    flag: Flag,
    value: bool,
    now: i64,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO changes (account_id, at, kind, target, flag, value) VALUES (?1, ?2, 'flag', ?3, ?4, ?5)
         ON CONFLICT (account_id, target, flag) WHERE kind = 'flag' DO UPDATE SET value = excluded.value, at = excluded.at",
    )?
    .execute(params![account.0, now, key, flag.name(), value])?;
    Ok(())
}

/// Account kinds whose servers keep entries saved for later: the Google Reader API (as a label on the item) and
/// Miniflux's own API (its save, which hands the entry to the integrations set up there). Fever has no save.
pub const SAVING_KINDS: &[&str] = &["greader", "miniflux"];

/// Records that the entries `ids` are to be saved on their account's server, for those whose feed belongs to an
/// account that can save ([`SAVING_KINDS`]); an entry already waiting to be saved is not recorded twice, and the
/// others (local feeds, Fever accounts) are not recorded at all.
pub(super) fn record_saves(tx: &Connection, ids: &[EntryId], now: i64) -> Result<(), StoreError> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO changes (account_id, at, kind, target)
         SELECT f.account_id, ?2, 'save', e.key FROM entries e JOIN feeds f ON f.id = e.feed_id
         JOIN accounts a ON a.id = f.account_id
         WHERE e.id = ?1 AND a.kind IN ('greader', 'miniflux') AND NOT EXISTS
            (SELECT 1 FROM changes c WHERE c.account_id = f.account_id AND c.kind = 'save' AND c.target = e.key)",
    )?;
    for id in ids {
        insert.execute(params![id.0, now])?;
    }
    Ok(())
}

/// Every account that has changes waiting, with how many.
pub fn waiting_by_account(conn: &Connection) -> Result<Vec<(AccountId, i64)>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT account_id, count(*) FROM changes GROUP BY account_id")?
        .query_map([], |r| Ok((r.id(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?)
}
