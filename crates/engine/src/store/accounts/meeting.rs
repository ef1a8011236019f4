//! Where an account's feeds and the local feeds meet, so that no entry shows twice and none is lost:
//! - a feed the server lists that is also a local feed (the same address, in canonical form) takes the local feed
//!   over ([`LocalFeeds`], [`take_over`]): its entries wait under keys of their own ([`LOCAL_KEY`]) until the
//!   server's item for each comes down, which each then becomes ([`Unclaimed::claim`]), keeping what was read
//!   and starred here — what the server lacks of it goes up with the sync;
//! - a feed the server no longer lists keeps its starred entries, as a local feed nothing fetches, in a folder
//!   that says its feed is gone from the server ([`keep_starred`]);
//! - a subscription the server refused stays a local feed ([`refused`]).

use super::AccountRow;
use crate::greader::{RemoteFeed, RemoteItem};
use crate::model::{FeedId, FolderId};
use crate::store::changes::{self, Flag};
use crate::store::{MAX_TITLE_BYTES, RowIds, StoreError, places};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;

/// What the keys of a taken-over feed's entries start with until the server's item for each comes down (a
/// server's keys are its item ids, which never do).
pub const LOCAL_KEY: &str = "local:";
/// The key just past every [`LOCAL_KEY`] one, for a range the index answers.
const PAST_LOCAL_KEY: &str = "local;";

/// An address in the form two spellings of one feed share.
fn canonical(url: &str) -> String {
    crate::canonical::canonical_url(url).unwrap_or_else(|| url.to_string())
}

/// The local feeds by canonical address, read once per list of subscriptions, when a new one comes.
#[derive(Default)]
pub(super) struct LocalFeeds(Option<HashMap<String, FeedId>>);

impl LocalFeeds {
    /// The local feed of `url`, if any (each is found once).
    pub(super) fn take(&mut self, tx: &Connection, url: &str) -> Result<Option<FeedId>, StoreError> {
        if self.0.is_none() {
            let rows: Vec<(FeedId, String)> = tx
                .prepare_cached("SELECT id, url FROM feeds WHERE account_id IS NULL")?
                .query_map([], |r| Ok((r.id(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            self.0 = Some(rows.into_iter().map(|(id, url)| (canonical(&url), id)).collect());
        }
        Ok(self.0.as_mut().and_then(|m| m.remove(&canonical(url))))
    }
}

/// Makes the local feed `local` the account's feed of `remote`: where the account has it, named and filed as the
/// server has it (a name given here stays); its entries wait for the server's items under [`LOCAL_KEY`] keys.
pub(super) fn take_over(
    tx: &Connection,
    account: &AccountRow,
    local: FeedId,
    remote: &RemoteFeed,
    title: &str,
    folder: Option<FolderId>,
) -> Result<(), StoreError> {
    let left: Option<i64> =
        tx.prepare_cached("SELECT folder_id FROM feeds WHERE id = ?1")?.query_row([local.0], |r| r.get(0))?;
    tx.prepare_cached(
        "UPDATE feeds SET account_id = ?2, remote_id = ?3, url = ?4, title = ?5, site_url = coalesce(?6, site_url),
            folder_id = ?7, etag = NULL, last_modified = NULL, document_digest = NULL, retry_at = NULL, dead = 0
         WHERE id = ?1",
    )?
    .execute(params![
        local.0,
        account.id.0,
        remote.stream,
        remote.url,
        title,
        remote.site_url,
        folder.map(|f| f.0)
    ])?;
    tx.prepare_cached("UPDATE entries SET key = ?2 || key WHERE feed_id = ?1")?.execute(params![local.0, LOCAL_KEY])?;
    tx.prepare_cached("DELETE FROM entry_aliases WHERE feed_id = ?1")?.execute([local.0])?;
    if let Some(left) = left.filter(|id| folder.is_none_or(|f| f.0 != *id)) {
        // The folder it leaves, when nothing is left in it (a newsboat tag of this one feed): it goes too.
        tx.prepare_cached(
            "DELETE FROM folders WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM feeds WHERE folder_id = ?1)
                AND NOT EXISTS (SELECT 1 FROM folders WHERE parent_id = ?1)",
        )?
        .execute([left])?;
    }
    Ok(())
}

/// An entry of a taken-over feed that no item of the server has claimed yet.
struct Waiting {
    id: i64,
    read: bool,
    starred: bool,
}

/// The entries of the account's taken-over feeds still waiting for their items, by feed and by what finds them:
/// the link in canonical form, or the title of an entry without one.
pub(super) struct Unclaimed(HashMap<FeedId, HashMap<String, Waiting>>);

/// What finds an entry's twin among the waiting ones.
fn finder(link: Option<&str>, title: Option<&str>) -> Option<String> {
    match (link, title) {
        (Some(link), _) => Some(format!("link {}", canonical(link))),
        (None, Some(title)) => Some(format!("title {title}")),
        (None, None) => None,
    }
}

impl Unclaimed {
    pub(super) fn of(tx: &Connection, account: &AccountRow) -> Result<Unclaimed, StoreError> {
        let mut by_feed: HashMap<FeedId, HashMap<String, Waiting>> = HashMap::new();
        let mut stmt = tx.prepare_cached(
            "SELECT e.id, e.feed_id, e.link, e.title, e.read, e.starred FROM feeds f JOIN entries e ON e.feed_id = f.id
             WHERE f.account_id = ?1 AND e.key >= ?2 AND e.key < ?3",
        )?;
        let mut rows = stmt.query(params![account.id.0, LOCAL_KEY, PAST_LOCAL_KEY])?;
        while let Some(r) = rows.next()? {
            let (link, title): (Option<String>, Option<String>) = (r.get(2)?, r.get(3)?);
            let Some(found_by) = finder(link.as_deref(), title.as_deref()) else { continue };
            let waiting = Waiting { id: r.get(0)?, read: r.get(4)?, starred: r.get(5)? };
            by_feed.entry(r.id(1)?).or_default().insert(found_by, waiting);
        }
        Ok(Unclaimed(by_feed))
    }

    /// Gives the entry waiting for `item` in `feed`, if any, the item's key (storing the item then updates it),
    /// and the flags read or starred on either side; what only this side had is recorded to go up. Returns
    /// whether one was waiting.
    pub(super) fn claim(
        &mut self,
        tx: &Connection,
        account: &AccountRow,
        feed: FeedId,
        item: &RemoteItem,
        now: i64,
    ) -> Result<bool, StoreError> {
        let Some(found_by) = finder(item.entry.link.as_deref(), item.entry.title.as_deref()) else { return Ok(false) };
        let Some(entries) = self.0.get_mut(&feed).filter(|m| m.contains_key(&found_by)) else { return Ok(false) };
        let key = crate::sanitize::truncate_bytes(&item.entry.key, MAX_TITLE_BYTES);
        // An item stored already (under its key) claims nothing.
        if tx.prepare_cached("SELECT 1 FROM entries WHERE feed_id = ?1 AND key = ?2")?.exists(params![feed.0, key])? {
            return Ok(false);
        }
        let Some(waiting) = entries.remove(&found_by) else { return Ok(false) };
        tx.prepare_cached("UPDATE entries SET key = ?2, read = ?3, starred = ?4 WHERE id = ?1")?.execute(params![
            waiting.id,
            key,
            waiting.read || item.read,
            waiting.starred || item.starred
        ])?;
        for (flag, here, there) in
            [(Flag::Read, waiting.read, item.read), (Flag::Starred, waiting.starred, item.starred)]
        {
            if here && !there {
                changes::record_key_flag(tx, account.id, key, flag, true, now)?;
            }
        }
        Ok(true)
    }
}

/// Keeps the starred entries of the account's feed `feed`, which the server no longer lists: its other entries
/// go, and it becomes a local feed nothing fetches, in the folder "`account` (gone from the server)" — or its
/// starred entries join the local feed of the same address. Returns how many were kept (none: the caller
/// removes the feed).
pub(super) fn keep_starred(tx: &Connection, account: &AccountRow, feed: FeedId) -> Result<usize, StoreError> {
    let starred: i64 = tx
        .prepare_cached("SELECT count(*) FROM entries WHERE feed_id = ?1 AND starred = 1")?
        .query_row([feed.0], |r| r.get(0))?;
    if starred == 0 {
        return Ok(0);
    }
    tx.prepare_cached("DELETE FROM entries WHERE feed_id = ?1 AND starred = 0")?.execute([feed.0])?;
    let local: Option<i64> = tx
        .prepare_cached(
            "SELECT l.id FROM feeds l JOIN feeds f ON f.url = l.url WHERE f.id = ?1 AND l.account_id IS NULL",
        )?
        .query_row([feed.0], |r| r.get(0))
        .optional()?;
    match local {
        Some(local) => {
            tx.prepare_cached("UPDATE OR IGNORE entries SET feed_id = ?2 WHERE feed_id = ?1")?
                .execute(params![feed.0, local])?;
            tx.prepare_cached("DELETE FROM feeds WHERE id = ?1")?.execute([feed.0])?;
        }
        None => {
            let folder = places::create(tx, &[format!("{} (gone from the server)", account.name)])?;
            tx.prepare_cached(
                "UPDATE feeds SET account_id = NULL, remote_id = NULL, folder_id = ?2, dead = 1 WHERE id = ?1",
            )?
            .execute(params![feed.0, folder.map(|f| f.0)])?;
        }
    }
    Ok(starred as usize)
}

/// The server refused to subscribe to `url`: the account's feed of it, not on the server, stays a local feed
/// (fetched by tidings, at the top level), or goes where a local feed of that address is already. Returns its
/// name.
pub fn refused(conn: &mut Connection, account: &AccountRow, url: &str) -> Result<Option<String>, StoreError> {
    let tx = conn.transaction()?;
    let found: Option<(i64, String)> = tx
        .prepare_cached(
            "SELECT id, coalesce(custom_title, title, tidings_shown_url(url)) FROM feeds
             WHERE account_id = ?1 AND url = ?2 AND remote_id IS NULL",
        )?
        .query_row(params![account.id.0, url], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((id, name)) = found else { return Ok(None) };
    let local_too = tx.prepare_cached("SELECT 1 FROM feeds WHERE account_id IS NULL AND url = ?1")?.exists([url])?;
    if local_too {
        tx.prepare_cached("DELETE FROM feeds WHERE id = ?1")?.execute([id])?;
    } else {
        tx.prepare_cached("UPDATE feeds SET account_id = NULL, folder_id = NULL WHERE id = ?1")?.execute([id])?;
    }
    tx.commit()?;
    Ok(Some(name))
}
