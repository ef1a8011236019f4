//! What the sync tests read and do in the database of an account's entries, whichever server they sync with.

use super::Sandbox;
use std::collections::BTreeSet;
use tidings::model::{EntryId, UserWrite};
use tidings::store;

/// Keys of the accounts' entries matching `condition` (`"1"` for all, `"e.read = 0"`, `"e.starred = 1"`…).
pub(crate) fn keys(sandbox: &Sandbox, condition: &str) -> BTreeSet<String> {
    let sql = format!(
        "SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id IS NOT NULL AND {condition}"
    );
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let mut stmt = db.prepare(&sql).unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// The names of the folders in the sandbox's database.
pub(crate) fn folder_names(sandbox: &Sandbox) -> Vec<String> {
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    let mut stmt = db.prepare("SELECT name FROM folders").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// Marks entries here by key, through the one write path (as the reader's keys do).
pub(crate) fn mark_here(sandbox: &Sandbox, keys: &[String], write: impl Fn(Vec<EntryId>) -> UserWrite) {
    let mut conn = store::open_write(&sandbox.db()).unwrap();
    let ids: Vec<EntryId> = keys
        .iter()
        .map(|k| EntryId(conn.query_row("SELECT id FROM entries WHERE key = ?1", [k], |r| r.get(0)).unwrap()))
        .collect();
    store::apply(&mut conn, &write(ids), 0).unwrap();
}
