//! The change log: what people change here that a server must hear of — read and starred flags of the entries
//! an account holds, and changes to its subscriptions — recorded by [`super::apply`] in the same transaction as
//! the change itself, so that nothing marked while offline, or just before a crash, is lost. Sync drains it
//! (see `crate::sync`): it sends what is waiting, in order and batched, and deletes what the server took.
//!
//! A flag keeps one row per entry: marking an entry read, then unread, before a sync leaves one change (the
//! later), which is what the server should end up with. Changes to entries of local feeds are not recorded:
//! nothing would ever drain them.

use super::StoreError;
use crate::model::EntryId;
use rusqlite::types::Value;
use rusqlite::{Connection, params, params_from_iter};

/// Records that `flag` of an entry is now `value`, when its feed belongs to an account.
pub(super) fn record_flag(
    tx: &Connection,
    entry: EntryId,
    flag: Flag,
    value: bool,
    now: i64,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO changes (account_id, at, kind, target, flag, value)
         SELECT f.account_id, ?2, 'flag', e.key, ?3, ?4 FROM entries e JOIN feeds f ON f.id = e.feed_id
         WHERE e.id = ?1 AND f.account_id IS NOT NULL
         ON CONFLICT (account_id, target, flag) WHERE kind = 'flag'
         DO UPDATE SET value = excluded.value, at = excluded.at",
    )?
    .execute(params![entry.0, now, flag.name(), value])?;
    Ok(())
}

/// Records `flag` = `value` for every entry of an account's feeds that matches `condition` (a condition on
/// `entries e`, with its `?` parameters), before a change of a whole list.
pub(super) fn record_flags_where(
    tx: &Connection,
    condition: &str,
    condition_params: &[Value],
    flag: Flag,
    value: bool,
    now: i64,
) -> Result<(), StoreError> {
    let sql = format!(
        "INSERT INTO changes (account_id, at, kind, target, flag, value)
         SELECT f.account_id, ?, 'flag', e.key, ?, ? FROM entries e JOIN feeds f ON f.id = e.feed_id
         WHERE f.account_id IS NOT NULL AND ({condition})
         ON CONFLICT (account_id, target, flag) WHERE kind = 'flag'
         DO UPDATE SET value = excluded.value, at = excluded.at"
    );
    let head = [Value::Integer(now), Value::Text(flag.name().into()), Value::Integer(i64::from(value))];
    tx.prepare(&sql)?.execute(params_from_iter(head.iter().chain(condition_params)))?;
    Ok(())
}

/// A flag people set on entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
}
