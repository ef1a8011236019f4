//! The reader's settings that outlive it (feeds with nothing unread hidden, the last search): a name and a
//! text value each, changed through [`super::apply`] and read when the reader starts.

use super::StoreError;
use rusqlite::{Connection, OptionalExtension, params};

/// The value remembered under `name`, if any.
pub fn get(conn: &Connection, name: &str) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT value FROM preferences WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?)
}

/// Everything remembered, by name.
pub fn all(conn: &Connection) -> Result<std::collections::HashMap<String, String>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT name, value FROM preferences")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Remembers `value` under `name`; `None` forgets it.
pub(super) fn set(tx: &Connection, name: &str, value: Option<&str>) -> Result<(), StoreError> {
    match value {
        Some(value) => tx
            .prepare_cached(
                "INSERT INTO preferences (name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = ?2",
            )?
            .execute(params![name, value])?,
        None => tx.prepare_cached("DELETE FROM preferences WHERE name = ?1")?.execute([name])?,
    };
    Ok(())
}
