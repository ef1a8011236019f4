//! Where a feed or a folder sits, as the folders, the feeds and the accounts all need to know it: a folder found
//! or created by its path of names (with the next free position), every folder's path, and which side of an
//! account's boundary a folder is on (local, or which account and label).
//!
//! Below `folders`, `feeds` and `accounts`, which use it: it reads and creates folders and reads which folder is
//! an account's, and must not use those modules (nor move, rename or delete anything).

use super::{RowIds, StoreError};
use crate::model::{AccountId, FolderId};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;

/// Every folder's path ("Tech/Rust"), for the feed rows' `folder`.
pub(super) const FOLDER_PATHS: &str = "WITH RECURSIVE folder_paths(id, path, depth) AS (
        SELECT id, name, 0 FROM folders WHERE parent_id IS NULL
        UNION ALL SELECT c.id, p.path || '/' || c.name, p.depth + 1 FROM folders c JOIN folder_paths p ON c.parent_id = p.id
            WHERE p.depth < 64)";

/// Folder ids by (parent, name) for one transaction, with the next free position, so that many subscriptions
/// in many folders cost one lookup per folder.
#[derive(Default)]
pub(super) struct FolderIds {
    ids: HashMap<(Option<FolderId>, String), FolderId>,
    last_position: Option<i64>,
}

impl FolderIds {
    /// The folder at `path` (names from the top), created with its missing ancestors; `None` for the top level.
    pub(super) fn path(&mut self, conn: &Connection, path: &[String]) -> Result<Option<FolderId>, StoreError> {
        let mut parent = None;
        for name in path.iter().filter(|n| !n.trim().is_empty()) {
            parent = Some(self.child(conn, parent, name.trim())?);
        }
        Ok(parent)
    }

    fn child(&mut self, conn: &Connection, parent: Option<FolderId>, name: &str) -> Result<FolderId, StoreError> {
        let key = (parent, name.to_string());
        if let Some(id) = self.ids.get(&key) {
            return Ok(*id);
        }
        let id = match find(conn, parent, name)? {
            Some(id) => id,
            None => {
                let last = match self.last_position {
                    Some(p) => p,
                    None => conn.query_row("SELECT coalesce(max(position), 0) FROM folders", [], |r| r.get(0))?,
                };
                self.last_position = Some(last + 1);
                conn.prepare_cached("INSERT INTO folders (name, parent_id, position) VALUES (?1, ?2, ?3)")?
                    .execute(params![name, parent.map(|p| p.0), last + 1])?;
                FolderId(conn.last_insert_rowid())
            }
        };
        self.ids.insert(key, id);
        Ok(id)
    }
}

/// The child of `parent` called `name`.
pub(super) fn find(conn: &Connection, parent: Option<FolderId>, name: &str) -> Result<Option<FolderId>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT id FROM folders WHERE coalesce(parent_id, 0) = coalesce(?1, 0) AND name = ?2")?
        .query_row(params![parent.map(|p| p.0), name], |r| r.id(0))
        .optional()?)
}

/// Creates the folder at `path` (and its missing ancestors), or finds it.
pub(super) fn create(tx: &Connection, path: &[String]) -> Result<Option<FolderId>, StoreError> {
    FolderIds::default().path(tx, path)
}

/// Every folder's path of names from the top.
pub(crate) fn paths(conn: &Connection) -> Result<HashMap<FolderId, Vec<String>>, StoreError> {
    let rows: Vec<(FolderId, String, Option<FolderId>)> = conn
        .prepare_cached("SELECT id, name, parent_id FROM folders")?
        .query_map([], |r| Ok((r.id(0)?, r.get(1)?, r.optional_id(2)?)))?
        .collect::<Result<_, _>>()?;
    let by_id: HashMap<FolderId, (&String, Option<FolderId>)> = rows.iter().map(|(id, n, p)| (*id, (n, *p))).collect();
    let mut paths = HashMap::with_capacity(rows.len());
    for (id, _, _) in &rows {
        let mut path = Vec::new();
        let mut next = Some(*id);
        // A cycle (which the store never makes) cannot loop forever.
        while let Some((name, parent)) = next.and_then(|i| by_id.get(&i)).filter(|_| path.len() < 256) {
            path.push((*name).clone());
            next = *parent;
        }
        path.reverse();
        paths.insert(*id, path);
    }
    Ok(paths)
}

/// Where a folder sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// Among the local subscriptions (or the top level).
    Local,
    /// In an account's tree; `label` is the folder's path below the account's folder (`None`: the account's
    /// folder itself).
    Account { account: AccountId, label: Option<String> },
}

impl Place {
    /// The account whose tree it is in (`None`: local).
    pub(super) fn account(&self) -> Option<AccountId> {
        match self {
            Place::Local => None,
            Place::Account { account, .. } => Some(*account),
        }
    }
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
