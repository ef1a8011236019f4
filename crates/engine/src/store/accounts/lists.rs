//! Whole lists read at once: of the entries marked read here and waiting to be sent, those that make up every
//! entry of a feed, of a label (every feed filed under it) or of the whole account — nothing in it left unread
//! here — so that the server can be told "mark this list read" in one request instead of item by item.

use super::{AccountId, RowIds, StoreError};
use crate::model::FeedId;
use rusqlite::Connection;
use std::collections::{HashMap, HashSet};

/// One of the account's feeds: its stream on the server, and its label.
type Member = (FeedId, String, Option<String>);

/// What a list read here is, on the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every feed of the account.
    All,
    /// Every feed filed under this label (not those of labels inside it).
    Label(String),
    /// One feed (its stream: `feed/123`).
    Feed(String),
}

/// A list read here: what it is, and its feeds with the keys marked read in each (what it stands for).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WholeList {
    pub scope: Scope,
    pub feeds: Vec<(String, Vec<String>)>,
}

impl WholeList {
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.feeds.iter().flat_map(|(_, keys)| keys)
    }
}

/// The widest whole lists `keys` (marked read here) make up, each holding at least `least` of them: the account
/// (every feed of it read here), else labels, else feeds. Keys of no such list are left out.
pub fn whole_lists(
    conn: &Connection,
    account: AccountId,
    keys: &[String],
    least: usize,
) -> Result<Vec<WholeList>, StoreError> {
    let wanted: HashSet<&str> = keys.iter().map(String::as_str).collect();
    // Every feed of the account on the server: its stream, label, and whether anything in it is unread here.
    let subscriptions = super::subscriptions(conn)?;
    // A feed subscribed here and not sent yet is in no list the server knows whole.
    let all_streamed = subscriptions.values().all(|s| s.account != account || s.stream.is_some());
    let mut unread: HashMap<FeedId, i64> = HashMap::new();
    let mut marked: HashMap<FeedId, Vec<String>> = HashMap::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT e.feed_id, e.key, e.read FROM entries e JOIN feeds f ON f.id = e.feed_id WHERE f.account_id = ?1",
        )?;
        let mut rows = stmt.query([account.0])?;
        while let Some(row) = rows.next()? {
            let (feed, key, read): (FeedId, String, bool) = (row.id(0)?, row.get(1)?, row.get(2)?);
            if !read {
                *unread.entry(feed).or_default() += 1;
            } else if wanted.contains(key.as_str()) {
                marked.entry(feed).or_default().push(key);
            }
        }
    }
    let feeds: Vec<Member> = subscriptions
        .into_iter()
        .filter(|(_, s)| s.account == account)
        .map(|(id, s)| (id, s.stream, s.label))
        .filter_map(|(id, stream, label)| Some((id, stream?, label)))
        .collect();
    let whole = |id: &FeedId| !unread.contains_key(id);
    let list = |scope: Scope, members: &[&Member]| WholeList {
        scope,
        feeds: members
            .iter()
            .filter_map(|(id, stream, _)| Some((stream.clone(), marked.get(id)?.clone())))
            .collect::<Vec<_>>(),
    };
    let size = |l: &WholeList| l.keys().count();
    let everything: Vec<&Member> = feeds.iter().collect();
    // Every feed the account has read here.
    if !feeds.is_empty() && all_streamed && feeds.iter().all(|(id, ..)| whole(id)) {
        let all = list(Scope::All, &everything);
        return Ok(if size(&all) >= least { vec![all] } else { Vec::new() });
    }
    let mut out = Vec::new();
    let mut labels: HashMap<&str, Vec<&Member>> = HashMap::new();
    for feed in &feeds {
        if let Some(label) = &feed.2 {
            labels.entry(label).or_default().push(feed);
        }
    }
    let mut whole_labels: HashSet<&str> = HashSet::new();
    let mut names: Vec<&&str> = labels.keys().collect();
    names.sort();
    for name in names {
        let members = &labels[*name];
        if members.iter().all(|(id, ..)| whole(id)) {
            let label = list(Scope::Label(name.to_string()), members);
            if size(&label) >= least {
                whole_labels.insert(name);
                out.push(label);
            }
        }
    }
    for feed in &feeds {
        let in_whole_label = feed.2.as_deref().is_some_and(|l| whole_labels.contains(l));
        if !in_whole_label && whole(&feed.0) {
            let one = list(Scope::Feed(feed.1.clone()), &[feed]);
            if size(&one) >= least {
                out.push(one);
            }
        }
    }
    Ok(out)
}
