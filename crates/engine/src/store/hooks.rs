//! Hooks in the database (the schema's steps 18 and 22): the events triggers record, each hook's cursor over
//! them (and, for new entries, over the entries' ids: every entry stored is one), and the deliveries — what a
//! hook is to be given, with its body, and whether it took it. Everything that must not be
//! lost across a crash is written here in a transaction; `crate::hooks` runs the deliveries.

use super::{StoreError, json_list};
use crate::model::Enclosure;
use crate::query::Query;
use crate::sanitize::one_line;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// The kinds of event a hook can listen to.
pub const KINDS: &[&str] = &["new_entries", "starred", "unstarred", "feed_failing", "feed_recovered", "downloaded"];

/// The kind heard from the entries' ids rather than from events.
const NEW_ENTRIES: &str = "new_entries";

/// Most items one delivery carries; more events make more deliveries.
pub const MAX_ITEMS: usize = 100;

/// A hook as the store knows it: its key (what it is, so an edited hook is a new one), the kind it listens to,
/// and its query.
pub struct Listener<'a> {
    pub key: &'a str,
    pub on: &'a str,
    pub query: Option<&'a Query>,
}

/// What one event names: an entry (new, starred, unstarred) or a feed (failing, recovered).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Item {
    Entry(EntryItem),
    Feed(FeedItem),
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EntryItem {
    pub id: i64,
    pub title: Option<String>,
    pub link: Option<String>,
    pub author: Option<String>,
    /// RFC 3339.
    pub published: Option<String>,
    pub feed_id: i64,
    pub feed: String,
    pub feed_url: String,
    pub folder: Option<String>,
    pub enclosures: Vec<String>,
    pub read: bool,
    pub starred: bool,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FeedItem {
    pub feed_id: i64,
    pub feed: String,
    pub feed_url: String,
    pub folder: Option<String>,
    pub failures: i64,
    pub error: Option<String>,
}

/// A delivery to make: its id (the event's stable id), its hook, its kind and its body.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub id: i64,
    pub hook: String,
    pub kind: String,
    pub body: String,
    pub attempts: i64,
}

/// Makes the triggers record the kinds `listeners` listen to (and only those), and starts each hook that has no
/// cursor yet at the newest event and the newest entry: a hook added to the config hears what happens from now
/// on.
pub fn arm(conn: &mut Connection, listeners: &[Listener<'_>]) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let kinds: Vec<&str> = KINDS.iter().copied().filter(|k| listeners.iter().any(|l| l.on == *k)).collect();
    let on = (!kinds.is_empty()).then(|| format!("|{}|", kinds.join("|")));
    super::preferences::set(&tx, "hooks.on", on.as_deref())?;
    for listener in listeners {
        tx.prepare_cached(concat!(
            "INSERT OR IGNORE INTO hook_cursors (hook, upto, entry_upto)
                 SELECT ?1, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'hook_events'), 0), ",
            newest_entry_id!()
        ))?
        .execute([listener.key])?;
    }
    tx.commit()?;
    Ok(())
}

/// Takes the events past each hook's cursor (of the kinds in `kinds`, or all) into deliveries, [`MAX_ITEMS`]
/// items each, their bodies made by `body` from the delivery's id, its kind and its items; moves the cursors
/// and forgets the events every hook has taken — all in one transaction. Returns how many deliveries it made.
pub fn gather(
    conn: &mut Connection,
    listeners: &[Listener<'_>],
    kinds: Option<&[&str]>,
    now: i64,
    body: &dyn Fn(i64, &str, &[Item]) -> String,
) -> Result<usize, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // The table may be empty (its events taken and forgotten): its sequence still knows the last id given.
    let newest: i64 = tx.query_row(
        "SELECT max(coalesce((SELECT max(id) FROM hook_events), 0),
                    coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'hook_events'), 0))",
        [],
        |r| r.get(0),
    )?;
    let newest_entry: i64 = tx.query_row(concat!("SELECT ", newest_entry_id!()), [], |r| r.get(0))?;
    let mut made = 0;
    for listener in listeners.iter().filter(|l| kinds.is_none_or(|k| k.contains(&l.on))) {
        let upto: Option<(i64, Option<i64>)> = tx
            .prepare_cached("SELECT upto, entry_upto FROM hook_cursors WHERE hook = ?1")?
            .query_row([listener.key], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((upto, entry_upto)) = upto else { continue };
        let items = if listener.on == NEW_ENTRIES {
            // A cursor from before it was kept starts at the newest entry.
            new_entries_between(&tx, listener, entry_upto.unwrap_or(newest_entry), newest_entry, now)?
        } else {
            items_between(&tx, listener, upto, newest, now)?
        };
        for chunk in items.chunks(MAX_ITEMS) {
            let id = tx
                .prepare_cached(
                    "INSERT INTO hook_deliveries (hook, kind, body, created_at, next_at) VALUES (?1, ?2, '', ?3, ?3)
                     RETURNING id",
                )?
                .query_row(params![listener.key, listener.on, now], |r| r.get::<_, i64>(0))?;
            tx.prepare_cached("UPDATE hook_deliveries SET body = ?2 WHERE id = ?1")?
                .execute(params![id, body(id, listener.on, chunk)])?;
            made += 1;
        }
        tx.prepare_cached("UPDATE hook_cursors SET upto = ?2, entry_upto = ?3 WHERE hook = ?1")?.execute(params![
            listener.key,
            newest,
            newest_entry
        ])?;
    }
    forget_taken(&tx, listeners)?;
    tx.commit()?;
    Ok(made)
}

/// The new entries, stored after entry `after` and up to entry `upto`, that `listener`'s query matches (kill rules'
/// catches left out).
fn new_entries_between(
    conn: &Connection,
    listener: &Listener<'_>,
    after: i64,
    upto: i64,
    now: i64,
) -> Result<Vec<Item>, StoreError> {
    let mut values: Vec<rusqlite::types::Value> = vec![after.into(), upto.into()];
    let filter = query_filter(conn, listener.query, now, &mut values)?;
    // The bounds are ?1 and ?2; a query's own parameters (plain `?`) are numbered after them.
    let sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM entries e JOIN feeds f ON f.id = e.feed_id
         WHERE e.id > ?1 AND e.id <= ?2 AND e.ignored = 0 {filter} ORDER BY e.id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(values), entry_item)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What `listener` hears among the events after `after` and up to `upto`: entries its query matches, or feeds.
fn items_between(
    conn: &Connection,
    listener: &Listener<'_>,
    after: i64,
    upto: i64,
    now: i64,
) -> Result<Vec<Item>, StoreError> {
    let feeds = listener.on.starts_with("feed_");
    // The event's bounds are ?1 to ?3; a query's own parameters (plain `?`) are numbered after them.
    let mut values: Vec<rusqlite::types::Value> = vec![after.into(), upto.into(), listener.on.to_string().into()];
    // Feeds are not entries: a query names entries, so it does not narrow feed events.
    let filter = query_filter(conn, listener.query.filter(|_| !feeds), now, &mut values)?;
    let folder = "(SELECT name FROM folders WHERE id = f.folder_id)";
    let sql = if feeds {
        format!(
            "SELECT f.id, coalesce(f.custom_title, f.title, tidings_shown_url(f.url)), f.url, {folder}, f.failures, f.last_error
             FROM hook_events h JOIN feeds f ON f.id = h.feed_id
             WHERE h.id > ?1 AND h.id <= ?2 AND h.kind = ?3 ORDER BY h.id"
        )
    } else {
        format!(
            "SELECT {ENTRY_COLUMNS} FROM hook_events h JOIN entries e ON e.id = h.entry_id JOIN feeds f ON f.id = e.feed_id
             WHERE h.id > ?1 AND h.id <= ?2 AND h.kind = ?3 {filter} ORDER BY h.id"
        )
    };
    let mut stmt = conn.prepare(&sql)?;
    let rows =
        stmt.query_map(rusqlite::params_from_iter(values), |r| if feeds { feed_item(r) } else { entry_item(r) })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// `AND (…)` for the entries `query` matches, its parameters added to `values` (numbered after those there);
/// nothing without a query.
fn query_filter(
    conn: &Connection,
    query: Option<&Query>,
    now: i64,
    values: &mut Vec<rusqlite::types::Value>,
) -> Result<String, StoreError> {
    let Some(query) = query else { return Ok(String::new()) };
    let compiled = super::query::compile(conn, query, now)?;
    values.extend(compiled.params);
    Ok(format!("AND ({})", compiled.sql))
}

/// What an entry's item is made of (`entry_item`), from `entries e` and its feed `f`.
const ENTRY_COLUMNS: &str =
    "e.id, e.title, e.link, e.author, e.sort_at, f.id, coalesce(f.custom_title, f.title, tidings_shown_url(f.url)),
    f.url, (SELECT name FROM folders WHERE id = f.folder_id), e.enclosures, e.read, e.starred";

fn entry_item(r: &rusqlite::Row<'_>) -> rusqlite::Result<Item> {
    let enclosures: Vec<Enclosure> = json_list(r.get(9)?);
    Ok(Item::Entry(EntryItem {
        id: r.get(0)?,
        title: r.get::<_, Option<String>>(1)?.map(|t| one_line(&t, 1000)),
        link: r.get::<_, Option<String>>(2)?.map(|l| one_line(&l, 2000)),
        author: r.get::<_, Option<String>>(3)?.map(|a| one_line(&a, 300)),
        published: chrono::DateTime::from_timestamp(r.get(4)?, 0).map(|d| d.to_rfc3339()),
        feed_id: r.get(5)?,
        feed: one_line(&r.get::<_, String>(6)?, 300),
        feed_url: r.get(7)?,
        folder: r.get::<_, Option<String>>(8)?.map(|f| one_line(&f, 300)),
        enclosures: enclosures.into_iter().map(|e| one_line(&e.url, 2000)).collect(),
        read: r.get(10)?,
        starred: r.get(11)?,
    }))
}

fn feed_item(r: &rusqlite::Row<'_>) -> rusqlite::Result<Item> {
    Ok(Item::Feed(FeedItem {
        feed_id: r.get(0)?,
        feed: one_line(&r.get::<_, String>(1)?, 300),
        feed_url: r.get(2)?,
        folder: r.get::<_, Option<String>>(3)?.map(|f| one_line(&f, 300)),
        failures: r.get(4)?,
        error: r.get::<_, Option<String>>(5)?.map(|e| one_line(&e, 500)),
    }))
}

/// Forgets the events every listening hook has taken, those of kinds no hook listens to, and the cursors of
/// hooks no longer in the config.
fn forget_taken(tx: &Connection, listeners: &[Listener<'_>]) -> Result<(), StoreError> {
    let keys: Vec<String> = listeners.iter().map(|l| l.key.to_string()).collect();
    let keys = serde_json::to_string(&keys).unwrap_or_else(|_| "[]".into());
    tx.prepare_cached("DELETE FROM hook_cursors WHERE hook NOT IN (SELECT value FROM json_each(?1))")?
        .execute([&keys])?;
    tx.prepare_cached(
        "DELETE FROM hook_events WHERE id <= (SELECT coalesce(min(upto), (SELECT max(id) FROM hook_events))
                                              FROM hook_cursors)",
    )?
    .execute([])?;
    Ok(())
}

/// Takes up to `limit` deliveries that are due and that no process is making, for `lease` seconds: another
/// process (the reader beside the daemon) leaves them alone that long; one that dies holding them lets them go.
pub fn claim_due(conn: &mut Connection, now: i64, lease: i64, limit: usize) -> Result<Vec<Delivery>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "UPDATE hook_deliveries SET leased_until = ?1 + ?2, attempts = attempts + 1
         WHERE id IN (SELECT id FROM hook_deliveries
                      WHERE done_at IS NULL AND gave_up_at IS NULL AND next_at <= ?1 AND leased_until <= ?1
                      ORDER BY id LIMIT ?3)
         RETURNING id, hook, kind, body, attempts",
    )?;
    let rows = stmt.query_map(params![now, lease, limit as i64], |r| {
        Ok(Delivery { id: r.get(0)?, hook: r.get(1)?, kind: r.get(2)?, body: r.get(3)?, attempts: r.get(4)? })
    })?;
    let mut due: Vec<Delivery> = rows.collect::<Result<_, _>>()?;
    due.sort_by_key(|d| d.id);
    Ok(due)
}

/// The delivery `id` was taken by its hook.
pub fn delivered(conn: &Connection, id: i64, now: i64) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE hook_deliveries SET done_at = ?2, leased_until = 0, last_error = NULL WHERE id = ?1")?
        .execute(params![id, now])?;
    Ok(())
}

/// The delivery `id` failed with `error`: tried again at `retry_at`, or, with `None`, given up on.
pub fn failed(conn: &Connection, id: i64, error: &str, retry_at: Option<i64>, now: i64) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE hook_deliveries SET leased_until = 0, last_error = ?2, next_at = coalesce(?3, next_at),
                gave_up_at = CASE WHEN ?3 IS NULL THEN ?4 END
         WHERE id = ?1",
    )?
    .execute(params![id, one_line(error, 500), retry_at, now])?;
    Ok(())
}

/// When the next delivery that waits is due (not one leased by a process now), if any.
pub fn next_due(conn: &Connection) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT min(max(next_at, leased_until)) FROM hook_deliveries WHERE done_at IS NULL AND gave_up_at IS NULL",
        )?
        .query_row([], |r| r.get(0))?)
}

/// Forgets deliveries done or given up on before `before` (a week of them is kept, for whoever looks).
pub fn forget_old(conn: &Connection, before: i64) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached("DELETE FROM hook_deliveries WHERE coalesce(done_at, gave_up_at) < ?1")?
        .execute([before])?)
}

#[cfg(test)]
mod tests;
