//! What a sync stores: the server's subscriptions (each stream to one local feed, however the server lists
//! them), its items (in those feeds), and its unread and starred sets (the flags of the account's entries) —
//! without undoing a change still waiting to be sent. A server's answers are taken as they come: a subscription
//! listed twice is one feed, a label nested past [`MAX_LABEL_DEPTH`] stops there, an item of a feed the server
//! does not list is counted and left out, and a set cut short at the sync's cap only adds flags.

use super::AccountRow;
use super::meeting::{self, LocalFeeds, Unclaimed};
use crate::greader::{RemoteFeed, RemoteItem};
use crate::model::{AccountId, FeedId, FolderId};
use crate::store::changes::{self, Flag};
use crate::store::{MAX_TITLE_BYTES, RowIds, StoreError, folders, identity, places};
use rusqlite::{Connection, params};
use std::collections::{HashMap, HashSet};

/// The deepest a label's folders go below the account's folder: a feed under `a/b/c/d/e/…` sits in `a/b/c/d`,
/// so that it is still shown, indented, in the narrowest feed list (a label nested a thousand deep would put it
/// two thousand columns to the right).
pub const MAX_LABEL_DEPTH: usize = 4;

/// What storing the server's subscriptions did, and which local feed each of its streams is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionsReport {
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    /// Local feeds the server also lists, now the account's (their names).
    pub taken_over: Vec<String>,
    /// Starred entries of feeds the server no longer lists, kept here.
    pub kept_starred: usize,
    /// The local feed of every stream the server listed: two subscriptions of one address are one feed.
    pub feeds: HashMap<String, FeedId>,
    /// Feeds renamed on the server ("old → new"), and moved to another label ("name to label").
    pub renamed: Vec<String>,
    pub moved: Vec<String>,
}

/// One of the account's feeds as it was before the server's list.
struct Local {
    stream: Option<String>,
    url: String,
    title: Option<String>,
    folder: Option<FolderId>,
}

/// Stores the server's subscriptions: new ones added under the account's folder (in their label's folder) —
/// a local feed of the same address taken over —, titles, addresses and labels followed, and those the server
/// no longer lists removed with their entries, except the starred ones. A subscription made here and still
/// waiting to be sent is kept.
pub fn store_subscriptions(
    conn: &mut Connection,
    account: &AccountRow,
    remote: &[RemoteFeed],
    now: i64,
) -> Result<SubscriptionsReport, StoreError> {
    let tx = conn.transaction()?;
    let mut report = SubscriptionsReport::default();
    let local: HashMap<FeedId, Local> = tx
        .prepare_cached("SELECT id, remote_id, url, title, folder_id FROM feeds WHERE account_id = ?1")?
        .query_map([account.id.0], |r| {
            Ok((r.id(0)?, Local { stream: r.get(1)?, url: r.get(2)?, title: r.get(3)?, folder: r.optional_id(4)? }))
        })?
        .collect::<Result<_, _>>()?;
    let by_stream: HashMap<&str, FeedId> =
        local.iter().filter_map(|(id, f)| f.stream.as_deref().map(|s| (s, *id))).collect();
    // Every address the account's feeds have, as this list changes them: an address is one feed.
    let mut by_url: HashMap<String, FeedId> = local.iter().map(|(id, f)| (f.url.clone(), *id)).collect();
    let mut placed: HashSet<FeedId> = HashSet::new();
    let mut left: Vec<FolderId> = Vec::new();
    let mut folders = places::FolderIds::default();
    let root_path = places::paths(&tx)?.remove(&account.folder_id).unwrap_or_else(|| vec![account.name.clone()]);
    let mut position: i64 = tx.query_row("SELECT coalesce(max(position), 0) FROM feeds", [], |r| r.get(0))?;
    let mut local_feeds = LocalFeeds::default();
    for feed in remote {
        let found = by_stream.get(feed.stream.as_str()).or_else(|| by_url.get(&feed.url)).copied();
        if let Some(id) = found
            && placed.contains(&id)
        {
            // Listed again (another subscription of the same address, or the same stream twice): the first
            // listing placed it, and this stream's items go to it too.
            report.feeds.entry(feed.stream.clone()).or_insert(id);
            continue;
        }
        let mut path = root_path.clone();
        path.extend(feed.label.iter().flat_map(|l| folders::split_path(l)).take(MAX_LABEL_DEPTH));
        let folder = folders.path(&tx, &path)?;
        let title = crate::sanitize::truncate_bytes(&feed.title, MAX_TITLE_BYTES);
        let id = match found.and_then(|id| Some((id, local.get(&id)?))) {
            Some((id, was)) => {
                // An address another of the account's feeds has stays that feed's.
                let url = if by_url.get(&feed.url).is_some_and(|other| *other != id) { &was.url } else { &feed.url };
                let same = was.stream.as_deref() == Some(feed.stream.as_str())
                    && was.url == *url
                    && was.title.as_deref() == Some(title)
                    && was.folder == folder;
                if !same && was.stream.is_some() {
                    // Changed on the server (a subscription made here is placed by its first listing: no news).
                    if was.title.as_deref().is_some_and(|t| t != title) {
                        let old = was.title.as_deref().unwrap_or_default();
                        report.renamed.push(format!("{} → {}", short(old), short(title)));
                    }
                    if was.folder != folder {
                        let to = feed.label.as_deref().unwrap_or(account.name.as_str());
                        report.moved.push(format!("{} to {}", short(title), short(to)));
                    }
                }
                if !same {
                    left.extend(was.folder.filter(|f| Some(*f) != folder));
                    tx.prepare_cached(
                        "UPDATE feeds SET remote_id = ?2, url = ?3, title = ?4, site_url = coalesce(?5, site_url),
                            folder_id = ?6 WHERE id = ?1",
                    )?
                    .execute(params![
                        id.0,
                        feed.stream,
                        url,
                        title,
                        feed.site_url,
                        folder.map(|f| f.0)
                    ])?;
                    by_url.remove(&was.url);
                    by_url.insert(url.clone(), id);
                    report.changed += 1;
                }
                id
            }
            None if let Some(local) = local_feeds.take(&tx, &feed.url)? => {
                meeting::take_over(&tx, account, local, feed, title, folder)?;
                report.taken_over.push(title.to_string());
                by_url.insert(feed.url.clone(), local);
                local
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
                let id = FeedId(tx.last_insert_rowid());
                by_url.insert(feed.url.clone(), id);
                id
            }
        };
        placed.insert(id);
        report.feeds.insert(feed.stream.clone(), id);
    }
    let waiting = changes::waiting_subscribes(&tx, account.id)?;
    for (id, feed) in &local {
        if placed.contains(id) || (feed.stream.is_none() && waiting.contains(&feed.url)) {
            continue;
        }
        let kept = meeting::keep_starred(&tx, account, *id)?;
        if kept == 0 {
            tx.prepare_cached("DELETE FROM feeds WHERE id = ?1")?.execute([id.0])?;
        }
        report.kept_starred += kept;
        left.extend(feed.folder);
        report.removed += 1;
    }
    // Folders of the account's tree that the server's changes left empty go too (labels hold feeds).
    folders::remove_if_empty(&tx, &left, account.folder_id)?;
    tx.commit()?;
    Ok(report)
}

/// A name in a message: one line, not too long.
fn short(name: &str) -> String {
    crate::sanitize::one_line(name, 80)
}

/// What storing a page of items did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItemsReport {
    pub new: usize,
    pub updated: usize,
    /// Items of feeds the server does not list: left out. Each sync counts them again; they never hold back
    /// where the next one starts (an item of a feed the server stopped listing would otherwise bring every page
    /// down again at every sync).
    pub orphans: usize,
}

/// Stores the server's items in their feeds (`feeds`: the local feed of each of the server's streams, as
/// [`store_subscriptions`] found them); a new one takes the server's read and starred state (unless a change here
/// is waiting to be sent), a known one keeps its flags (the sets say what changed).
pub fn store_items(
    conn: &mut Connection,
    account: &AccountRow,
    feeds: &HashMap<String, FeedId>,
    items: &[RemoteItem],
    now: i64,
) -> Result<ItemsReport, StoreError> {
    let tx = conn.transaction()?;
    let waiting = changes::waiting_flags(&tx, account.id)?;
    let mut unclaimed = Unclaimed::of(&tx, account)?;
    let mut report = ItemsReport::default();
    // Per feed, what its items are looked for among (asked once per feed of the batch, not once per item).
    let mut touched: HashMap<FeedId, identity::Elsewhere<'_>> = HashMap::new();
    for item in items {
        let Some(&feed) = feeds.get(&item.stream) else {
            report.orphans += 1;
            continue;
        };
        // Before any claim, which gives a waiting entry of a taken-over feed (so the feed has some) a new key.
        let elsewhere = match touched.entry(feed) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(identity::Elsewhere::of_items(&tx, feed)?),
        };
        if unclaimed.claim(&tx, account, feed, item, now)? {
            report.updated += 1;
            identity::store_entry(&tx, feed, &item.entry, now, elsewhere)?;
            continue;
        }
        match identity::store_entry(&tx, feed, &item.entry, now, elsewhere)? {
            Some(entry) => {
                report.new += 1;
                let key = item.entry.key.as_str();
                let read = if waiting.contains(&(key.to_string(), Flag::Read)) { None } else { Some(item.read) };
                let starred =
                    if waiting.contains(&(key.to_string(), Flag::Starred)) { None } else { Some(item.starred) };
                // A new entry is unread and not starred: only a flag the item sets is written.
                if read == Some(true) || starred == Some(true) {
                    tx.prepare_cached(
                        "UPDATE entries SET read = coalesce(?2, read), starred = coalesce(?3, starred) WHERE id = ?1",
                    )?
                    .execute(params![entry.0, read, starred])?;
                }
            }
            None => report.updated += 1,
        }
    }
    for feed in touched.into_keys() {
        tx.prepare_cached("UPDATE feeds SET last_fetched_at = ?2, last_success_at = ?2 WHERE id = ?1")?
            .execute(params![feed.0, now])?;
    }
    tx.commit()?;
    Ok(report)
}

/// Sets `flag` on the account's entries from the server's set (for [`Flag::Read`], the unread set: in it means
/// unread): on for those in it, off for the others — but not where a change here is waiting to be sent, nor for
/// the keys in `spare` (just sent, so newer than the set; or starred here and gone from the server). A set that
/// is not `complete` (the sync stopped reading it at its cap) only sets what it holds: an entry missing from it
/// may be in the part not read.
pub fn apply_set(
    conn: &mut Connection,
    account: &AccountRow,
    flag: Flag,
    set: &HashSet<String>,
    complete: bool,
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
        // (An entry of a taken-over feed the server has no item for is not in its sets.)
        if waiting.contains(&(key.clone(), flag)) || key.starts_with(meeting::LOCAL_KEY) {
            continue;
        }
        let in_set = set.contains(&key);
        if !in_set && !complete {
            continue;
        }
        // The read flag is set by the unread set: in it means not read.
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
        "SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id = ?1 AND e.{column} = 1
         AND substr(e.key, 1, {}) <> '{}'",
        meeting::LOCAL_KEY.len(),
        meeting::LOCAL_KEY
    );
    Ok(conn.prepare_cached(&sql)?.query_map([account.0], |r| r.get(0))?.collect::<Result<_, _>>()?)
}

/// Those of the `(feed, key)` pairs stored already: each looked up by the feeds' index of keys, so that a page
/// costs its own size, whatever the store's.
pub fn stored_keys(conn: &Connection, pairs: Vec<(FeedId, String)>) -> Result<HashSet<String>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT 1 FROM entries WHERE feed_id = ?1 AND key = ?2")?;
    let mut found = HashSet::new();
    for (feed, key) in pairs {
        if stmt.exists(rusqlite::params![feed.0, key])? {
            found.insert(key);
        }
    }
    Ok(found)
}

/// Those of `keys` that no entry of the account has. The account's keys are read one at a time, never held
/// together: what this holds is what the server sent (capped by the sync), whatever the store's size.
pub fn unknown_keys(
    conn: &Connection,
    account: AccountId,
    mut keys: HashSet<String>,
) -> Result<HashSet<String>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT e.key FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id = ?1")?;
    let mut rows = stmt.query([account.0])?;
    while !keys.is_empty()
        && let Some(row) = rows.next()?
    {
        keys.remove(&row.get::<_, String>(0)?);
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParsedEntry;
    use crate::store::{accounts::ensure, open_write, places::paths};

    fn remote(stream: &str, url: &str, label: Option<&str>) -> RemoteFeed {
        let label = label.map(str::to_string);
        RemoteFeed { stream: stream.into(), url: url.into(), title: stream.into(), site_url: None, label }
    }

    fn item(key: &str, stream: &str) -> RemoteItem {
        let entry = ParsedEntry {
            key: key.into(),
            title: Some(key.into()),
            link: None,
            authors: vec![],
            published: None,
            updated: None,
            content_html: None,
            summary_html: None,
            categories: vec![],
            enclosures: vec![],
            comments: None,
            thumbnail: None,
        };
        RemoteItem { entry, stream: stream.into(), read: false, starred: false, crawled_usec: 1 }
    }

    fn account() -> (tempfile::TempDir, Connection, AccountRow) {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = open_write(&dir.path().join("t.db")).unwrap();
        let row = ensure(&mut conn, "Acc", "greader", "http://h/api", "alice").unwrap();
        (dir, conn, row)
    }

    #[test]
    fn two_subscriptions_of_one_address_are_one_feed_that_both_streams_fill() {
        let (_dir, mut conn, row) = account();
        let listed = [remote("feed/1", "http://h/a", None), remote("feed/2", "http://h/a", None)];
        let report = store_subscriptions(&mut conn, &row, &listed, 0).unwrap();
        assert_eq!((report.added, report.feeds.len()), (1, 2));
        assert_eq!(report.feeds["feed/1"], report.feeds["feed/2"]);
        let items = [item("1", "feed/1"), item("2", "feed/2"), item("3", "feed/9")];
        let stored = store_items(&mut conn, &row, &report.feeds, &items, 0).unwrap();
        assert_eq!((stored.new, stored.orphans), (2, 1));
        let again = store_subscriptions(&mut conn, &row, &listed, 0).unwrap();
        assert_eq!((again.added, again.changed, again.removed), (0, 0, 0), "listed the same way, nothing changes");
    }

    #[test]
    fn feeds_whose_addresses_swap_keep_their_own_and_the_sync_goes_on() {
        let (_dir, mut conn, row) = account();
        let before = [remote("feed/1", "http://h/a", None), remote("feed/2", "http://h/b", None)];
        let first = store_subscriptions(&mut conn, &row, &before, 0).unwrap();
        let swapped = [remote("feed/1", "http://h/b", None), remote("feed/2", "http://h/a", None)];
        let then = store_subscriptions(&mut conn, &row, &swapped, 0).unwrap();
        assert_eq!(then.feeds, first.feeds, "each stream is still its feed");
        assert_eq!(then.removed, 0);
    }

    #[test]
    fn a_label_nested_deeper_than_shown_stops_at_the_depth_shown() {
        let (_dir, mut conn, row) = account();
        let deep = vec!["L"; 1000].join("/");
        let report = store_subscriptions(&mut conn, &row, &[remote("feed/1", "http://h/a", Some(&deep))], 0).unwrap();
        let folder: i64 = conn
            .query_row("SELECT folder_id FROM feeds WHERE id = ?1", [report.feeds["feed/1"].0], |r| r.get(0))
            .unwrap();
        let path = paths(&conn).unwrap().remove(&FolderId(folder)).unwrap();
        assert_eq!(path, ["Acc", "L", "L", "L", "L"], "the account's folder and {MAX_LABEL_DEPTH} labels");
    }

    #[test]
    fn a_set_cut_short_only_adds_flags_and_unknown_keys_are_those_not_here() {
        let (_dir, mut conn, row) = account();
        let report = store_subscriptions(&mut conn, &row, &[remote("feed/1", "http://h/a", None)], 0).unwrap();
        store_items(&mut conn, &row, &report.feeds, &[item("1", "feed/1"), item("2", "feed/1")], 0).unwrap();
        conn.execute("UPDATE entries SET read = 1 WHERE key = '1'", []).unwrap();
        // Read here, unread in what was read of the set; unread here and missing from it: it may be in the rest.
        let cut: HashSet<String> = ["1".to_string()].into();
        assert_eq!(apply_set(&mut conn, &row, Flag::Read, &cut, false, &HashSet::new()).unwrap(), 1);
        let unread: i64 = conn.query_row("SELECT count(*) FROM entries WHERE read = 0", [], |r| r.get(0)).unwrap();
        assert_eq!(unread, 2);
        // The whole set: missing from it is read.
        assert_eq!(apply_set(&mut conn, &row, Flag::Read, &cut, true, &HashSet::new()).unwrap(), 1);
        let asked: HashSet<String> = ["1", "2", "3"].map(String::from).into();
        assert_eq!(unknown_keys(&conn, row.id, asked).unwrap(), ["3".to_string()].into());
    }
}
