//! Folders as a tree: each has a name and a parent (none at the top level); a name is unique among its siblings,
//! not everywhere ("Tech/News" and "World/News" are two folders). A folder is found or created by its path of
//! names (`places`), renamed in place (its subtree goes with it), moved under another folder (never under
//! itself, nor across an account's boundary), and deleted either with its contents moving up to its parent or with
//! everything inside it.

use super::places::{self, FolderIds, Place, find};
use super::{RowIds, StoreError};
use crate::model::{FeedId, FolderId, FolderRow};
use rusqlite::{Connection, OptionalExtension, params};

/// Every folder, in the order the feed list shows them.
pub fn folders(conn: &Connection) -> Result<Vec<FolderRow>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT id, name, parent_id, collapsed FROM folders ORDER BY position, lower(name)")?;
    let rows = stmt
        .query_map([], |r| {
            Ok(FolderRow { id: r.id(0)?, name: r.get(1)?, parent: r.optional_id(2)?, collapsed: r.get(3)? })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// A path as people type it: names separated by `/` ("Tech/Rust"), blanks around them ignored.
pub fn split_path(typed: &str) -> Vec<String> {
    typed.split('/').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// Renames a folder in place; its feeds and the folders inside it go with it. Fails with a message for people
/// when a sibling has that name.
pub(super) fn rename(tx: &Connection, id: FolderId, name: &str) -> Result<(), StoreError> {
    let name = name.trim();
    let parent = parent_of(tx, id)?;
    if find(tx, parent, name)?.is_some_and(|other| other != id) {
        return Err(StoreError::Conflict(format!("there is already a folder called '{name}' there")));
    }
    tx.prepare_cached("UPDATE folders SET name = ?2 WHERE id = ?1")?.execute(params![id.0, name])?;
    Ok(())
}

/// The folder a folder is in (`None` at the top level).
fn parent_of(tx: &Connection, id: FolderId) -> Result<Option<FolderId>, StoreError> {
    Ok(tx.prepare_cached("SELECT parent_id FROM folders WHERE id = ?1")?.query_row([id.0], |r| r.optional_id(0))?)
}

/// Moves a folder, with everything inside it, under the folder at `path` (created if needed), or to the top
/// level. A folder cannot go inside itself.
pub(super) fn move_to(tx: &Connection, id: FolderId, path: &[String]) -> Result<(), StoreError> {
    if places::is_account_folder(tx, id)? {
        return Err(StoreError::Conflict(ACCOUNT_FOLDER_STAYS.into()));
    }
    let from = places::place(tx, parent_of(tx, id)?)?;
    let parent = FolderIds::default().path(tx, path)?;
    same_side(&from, &places::place(tx, parent)?, "a folder")?;
    if let Some(parent) = parent
        && subtree(tx, id)?.contains(&parent)
    {
        return Err(StoreError::Conflict("a folder cannot go inside itself".into()));
    }
    let name: String = tx.prepare_cached("SELECT name FROM folders WHERE id = ?1")?.query_row([id.0], |r| r.get(0))?;
    if find(tx, parent, &name)?.is_some_and(|other| other != id) {
        return Err(StoreError::Conflict(format!("there is already a folder called '{name}' there")));
    }
    tx.prepare_cached("UPDATE folders SET parent_id = ?2 WHERE id = ?1")?
        .execute(params![id.0, parent.map(|p| p.0)])?;
    Ok(())
}

/// Moves a feed into the folder at `path` (created if needed); an empty path is the top level.
pub(super) fn move_feed(tx: &Connection, feed_id: FeedId, path: &[String]) -> Result<(), StoreError> {
    let now_in: Option<FolderId> =
        tx.prepare_cached("SELECT folder_id FROM feeds WHERE id = ?1")?.query_row([feed_id.0], |r| r.optional_id(0))?;
    let from = places::place(tx, now_in)?;
    let folder = FolderIds::default().path(tx, path)?;
    same_side(&from, &places::place(tx, folder)?, "a feed")?;
    tx.prepare_cached("UPDATE feeds SET folder_id = ?2 WHERE id = ?1")?
        .execute(params![feed_id.0, folder.map(|f| f.0)])?;
    Ok(())
}

/// What deleting a folder does with what is inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contents {
    /// Its feeds and folders move up to its parent (the top level, for a top-level folder).
    MoveUp,
    /// Its feeds (with their entries) and the folders inside it are deleted too.
    Delete,
}

/// Deletes a folder. Returns how many feeds were unsubscribed.
pub(super) fn delete(tx: &Connection, id: FolderId, contents: Contents) -> Result<usize, StoreError> {
    if places::is_account_folder(tx, id)? {
        // An account the config no longer has: its folder goes with its feeds, entries and waiting changes
        // (they cascade with the account), and no server hears of it.
        let retired: Option<i64> = tx
            .prepare_cached("SELECT id FROM accounts WHERE folder_id = ?1 AND retired = 1")?
            .query_row([id.0], |r| r.get(0))
            .optional()?;
        let Some(account) = retired else { return Err(StoreError::Conflict(ACCOUNT_FOLDER_STAYS.into())) };
        let feeds = tx
            .prepare_cached("SELECT count(*) FROM feeds WHERE account_id = ?1")?
            .query_row([account], |r| r.get::<_, i64>(0))?;
        tx.prepare_cached("DELETE FROM accounts WHERE id = ?1")?.execute([account])?;
        tx.prepare_cached("DELETE FROM folders WHERE id = ?1")?.execute([id.0])?;
        return Ok(usize::try_from(feeds).unwrap_or(0));
    }
    let mut unsubscribed = 0;
    match contents {
        Contents::MoveUp => {
            let parent = parent_of(tx, id)?;
            tx.prepare_cached("UPDATE feeds SET folder_id = ?2 WHERE folder_id = ?1")?
                .execute(params![id.0, parent.map(|p| p.0)])?;
            // A child whose name its new siblings already use is merged into that sibling.
            let children: Vec<(FolderId, String)> = tx
                .prepare_cached("SELECT id, name FROM folders WHERE parent_id = ?1")?
                .query_map([id.0], |r| Ok((r.id(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            for (child, name) in children {
                match find(tx, parent, &name)? {
                    Some(sibling) if sibling != child => merge(tx, child, sibling)?,
                    _ => {
                        tx.prepare_cached("UPDATE folders SET parent_id = ?2 WHERE id = ?1")?
                            .execute(params![child.0, parent.map(|p| p.0)])?;
                    }
                }
            }
        }
        Contents::Delete => {
            let inside = subtree(tx, id)?;
            for folder in &inside {
                unsubscribed += tx.prepare_cached("DELETE FROM feeds WHERE folder_id = ?1")?.execute([folder.0])?;
            }
        }
    }
    // The folders inside (when deleting everything) go with it: parent_id cascades.
    tx.prepare_cached("DELETE FROM folders WHERE id = ?1")?.execute([id.0])?;
    Ok(unsubscribed)
}

/// Moves everything in folder `from` into folder `into` (merging children of the same name), then deletes
/// `from`.
fn merge(conn: &Connection, from: FolderId, into: FolderId) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE feeds SET folder_id = ?2 WHERE folder_id = ?1")?.execute(params![from.0, into.0])?;
    let children: Vec<(FolderId, String)> = conn
        .prepare_cached("SELECT id, name FROM folders WHERE parent_id = ?1")?
        .query_map([from.0], |r| Ok((r.id(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (child, name) in children {
        match find(conn, Some(into), &name)? {
            Some(existing) if existing != child => merge(conn, child, existing)?,
            _ => {
                conn.prepare_cached("UPDATE folders SET parent_id = ?2 WHERE id = ?1")?
                    .execute(params![child.0, into.0])?;
            }
        }
    }
    conn.prepare_cached("DELETE FROM folders WHERE id = ?1")?.execute([from.0])?;
    Ok(())
}

/// Deletes each of `folders` that holds no feed and no folder, then its parent if that is empty now, up to (not
/// including) `keep`.
pub(super) fn remove_if_empty(tx: &Connection, folders: &[FolderId], keep: FolderId) -> Result<(), StoreError> {
    for &start in folders {
        let mut next = Some(start);
        while let Some(folder) = next.filter(|f| *f != keep) {
            let holds = tx
                .prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM feeds WHERE folder_id = ?1)
                         OR EXISTS (SELECT 1 FROM folders WHERE parent_id = ?1)",
                )?
                .query_row([folder.0], |r| r.get::<_, bool>(0))?;
            if holds {
                break;
            }
            next = parent_of(tx, folder).ok().flatten();
            tx.prepare_cached("DELETE FROM folders WHERE id = ?1")?.execute([folder.0])?;
        }
    }
    Ok(())
}

/// Why an account's own folder cannot be moved or deleted.
const ACCOUNT_FOLDER_STAYS: &str = "this folder holds an account's feeds: it stays at the top level as long as the \
     account is in the config (remove its [[accounts]] entry to let it go)";

/// Refuses a move across an account's boundary: a server's feeds stay in its folder, and local feeds outside.
fn same_side(from: &Place, to: &Place, what: &str) -> Result<(), StoreError> {
    if from.account() == to.account() {
        return Ok(());
    }
    Err(StoreError::Conflict(match to.account() {
        Some(_) => format!(
            "{what} cannot move into an account's folder; add the feed there instead (it is then subscribed on the \
             server), and delete it here"
        ),
        None => format!("{what} of an account cannot leave the account's folder; move it within it"),
    }))
}

/// A folder and every folder inside it.
pub fn subtree(conn: &Connection, id: FolderId) -> Result<Vec<FolderId>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE inside(id) AS (SELECT ?1 UNION SELECT f.id FROM folders f JOIN inside i ON f.parent_id = i.id)
         SELECT id FROM inside",
    )?;
    Ok(stmt.query_map([id.0], |r| r.id(0))?.collect::<Result<_, _>>()?)
}

/// Remembers whether a folder is collapsed in the feed list.
pub(super) fn set_collapsed(tx: &Connection, id: FolderId, collapsed: bool) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE folders SET collapsed = ?2 WHERE id = ?1")?.execute(params![id.0, collapsed])?;
    Ok(())
}

/// Migration step: folders used to be flat, with paths in their names ("Tech/Rust"). Each becomes a folder
/// inside its parent (created when missing); one whose place is taken is merged into the one there.
pub(super) fn migrate_paths_to_tree(conn: &Connection) -> rusqlite::Result<()> {
    let flat: Vec<(FolderId, String)> = conn
        .prepare("SELECT id, name FROM folders WHERE instr(name, '/') > 0 ORDER BY length(name), id")?
        .query_map([], |r| Ok((r.id(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let sql_err = |e: StoreError| match e {
        StoreError::Sqlite(e) => e,
        other => rusqlite::Error::ToSqlConversionFailure(other.to_string().into()),
    };
    let mut ids = FolderIds::default();
    for (id, name) in flat {
        let path = split_path(&name);
        let Some((last, parents)) = path.split_last() else { continue };
        let parent = ids.path(conn, parents).map_err(sql_err)?;
        match find(conn, parent, last).map_err(sql_err)? {
            Some(existing) if existing != id => merge(conn, id, existing).map_err(sql_err)?,
            _ => {
                conn.execute(
                    "UPDATE folders SET name = ?2, parent_id = ?3 WHERE id = ?1",
                    params![id.0, last, parent.map(|p| p.0)],
                )?;
            }
        }
    }
    conn.execute_batch("CREATE UNIQUE INDEX folders_by_name ON folders(coalesce(parent_id, 0), name);")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NewFeed, UserWrite};
    use crate::store::places::{create, paths};
    use crate::store::{apply, feeds::feeds, open_write};

    fn import(conn: &mut Connection, new: &[NewFeed]) {
        apply(conn, &UserWrite::Import { feeds: new.to_vec(), folders: vec![] }, 0).unwrap();
    }

    fn path(p: &str) -> Vec<String> {
        split_path(p)
    }

    fn feed(url: &str, folder: &str) -> NewFeed {
        NewFeed { url: url.into(), title: None, name: None, site_url: None, folder: path(folder) }
    }

    #[test]
    fn folders_nest_by_path_and_names_repeat_in_other_places() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = open_write(&dir.path().join("t.db")).unwrap();
        let new = [
            feed("http://a.example/", "Tech/News"),
            feed("http://b.example/", "World/News"),
            feed("http://c.example/", "Tech"),
        ];
        import(&mut conn, &new);
        let folders = folders(&conn).unwrap();
        assert_eq!(folders.len(), 4, "Tech, Tech/News, World, World/News: {folders:?}");
        let paths = paths(&conn).unwrap();
        let mut all: Vec<String> = paths.values().map(|p| p.join("/")).collect();
        all.sort();
        assert_eq!(all, ["Tech", "Tech/News", "World", "World/News"]);
        let rows = feeds(&conn).unwrap();
        let folder_of = |url: &str| rows.iter().find(|f| f.url == url).unwrap().folder.clone();
        assert_eq!(folder_of("http://a.example/").as_deref(), Some("Tech/News"));
    }

    #[test]
    fn rename_and_move_carry_the_subtree_and_never_loop() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = open_write(&dir.path().join("t.db")).unwrap();
        import(&mut conn, &[feed("http://a.example/", "Tech/Deep")]);
        let tech = create(&conn, &path("Tech")).unwrap().unwrap();
        let deep = create(&conn, &path("Tech/Deep")).unwrap().unwrap();
        rename(&conn, tech, "Computing").unwrap();
        assert_eq!(paths(&conn).unwrap()[&deep], ["Computing", "Deep"], "renaming Tech renames what is inside");
        assert!(matches!(move_to(&conn, tech, &path("Computing/Deep")), Err(StoreError::Conflict(_))));
        move_to(&conn, deep, &[]).unwrap();
        assert_eq!(paths(&conn).unwrap()[&deep], ["Deep"]);
        assert!(
            create(&conn, &path("Computing/Deep")).unwrap().is_some_and(|id| id != deep),
            "cousins may share a name"
        );
        assert!(matches!(rename(&conn, tech, "Deep"), Err(StoreError::Conflict(_))), "siblings may not");
    }

    #[test]
    fn delete_moves_contents_up_or_takes_them_along() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = open_write(&dir.path().join("t.db")).unwrap();
        let new = [
            feed("http://a.example/", "Tech"),
            feed("http://b.example/", "Tech/Deep"),
            feed("http://c.example/", "Old/Gone"),
        ];
        import(&mut conn, &new);
        let tech = create(&conn, &path("Tech")).unwrap().unwrap();
        assert_eq!(delete(&conn, tech, Contents::MoveUp).unwrap(), 0);
        let rows = feeds(&conn).unwrap();
        let folder_of = |url: &str| rows.iter().find(|f| f.url == url).unwrap().folder.clone();
        assert_eq!(folder_of("http://a.example/"), None, "its feed moved up to the top");
        assert_eq!(folder_of("http://b.example/").as_deref(), Some("Deep"), "its folder too");
        let old = create(&conn, &path("Old")).unwrap().unwrap();
        assert_eq!(delete(&conn, old, Contents::Delete).unwrap(), 1);
        assert_eq!(feeds(&conn).unwrap().len(), 2);
        let names: Vec<String> = folders(&conn).unwrap().into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["Deep"], "Old and Old/Gone are gone");
    }

    #[test]
    fn flat_path_names_of_old_databases_become_a_tree() {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("old.db")).unwrap();
        conn.execute_batch(
            "CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL, parent_id INTEGER, position INTEGER,
                 collapsed INTEGER);
             CREATE TABLE feeds (id INTEGER PRIMARY KEY, folder_id INTEGER);
             INSERT INTO folders (id, name) VALUES (1, 'Tech'), (2, 'Tech/Rust'), (3, 'News/World'), (4, 'News/World/Europe');
             INSERT INTO feeds (id, folder_id) VALUES (10, 2), (11, 4);",
        )
        .unwrap();
        migrate_paths_to_tree(&conn).unwrap();
        let paths = paths(&conn).unwrap();
        assert_eq!(paths[&FolderId(2)], ["Tech", "Rust"]);
        assert_eq!(paths[&FolderId(4)], ["News", "World", "Europe"]);
        assert_eq!(paths[&FolderId(3)], ["News", "World"]);
        let folder_of: i64 = conn.query_row("SELECT folder_id FROM feeds WHERE id = 11", [], |r| r.get(0)).unwrap();
        assert_eq!(folder_of, 4, "feeds stay in their folder");
    }
}
