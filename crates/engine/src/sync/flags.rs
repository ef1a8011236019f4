//! Down, the flags: the server's unread and starred sets, read page after page up to the sync's cap of ids (a
//! continuation given twice stops the sync), set the read and starred flags of the account's entries. Entries a
//! set names that are not stored here are fetched by id, a batch at a time, within what is left of the sync's
//! budget of items; entries starred here that the server's set lacks are asked about before they lose their star.

use super::{Budget, Continuations, Remote, RemoteError, Report, Set, Step, Sync};
use crate::model::FeedId;
use crate::store::accounts;
use crate::store::changes::{Flag, Pending};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Items asked for by id per request of the sync (the protocol may split it further), each batch stored before
/// the next is asked for.
const BY_ID: usize = 1000;

/// The ids of one of the server's sets, as far as the sync read them.
struct IdSet {
    ids: Arc<HashSet<String>>,
    /// All of it: the sync did not stop at its cap.
    complete: bool,
}

impl Sync<'_> {
    /// Sets the account's entries' flags from the server's unread and starred sets. With `unknown` (the budget
    /// left), entries in a set that are not stored here (read here and purged, then marked unread on the phone)
    /// are fetched first; without, the items are still coming (the sync stopped short of them), and they come
    /// with them.
    pub(super) async fn pull_flags(
        &self,
        remote: &mut impl Remote,
        feeds: &Arc<HashMap<String, FeedId>>,
        sent: &[Pending],
        unknown: Option<&mut Budget>,
        report: &mut Report,
    ) -> Result<(), Step> {
        let unread = self.id_set(remote, Set::Unread, report).await?;
        let starred = self.id_set(remote, Set::Starred, report).await?;
        if let Some(budget) = unknown {
            self.fetch_unknown(remote, feeds, &unread, &starred, budget, report).await?;
        }
        let id = self.row.id;
        // Entries starred here that the server's set lacks: unstarred on another device, or gone from the server.
        // Those the server still has lose their star; the others keep it. (A set cut short lacks nothing.)
        let mut spare: HashSet<String> = HashSet::new();
        if starred.complete {
            let starred_here = self.writer.call(move |c| accounts::keys_with(c, id, Flag::Starred)).await?;
            let lacking: Vec<String> = starred_here.difference(&starred.ids).cloned().collect();
            let mut still_there: HashSet<String> = HashSet::new();
            for batch in lacking.chunks(BY_ID) {
                still_there.extend(remote.items(batch).await?.into_iter().map(|i| i.entry.key));
            }
            spare = lacking.into_iter().filter(|k| !still_there.contains(k)).collect();
            report.kept_starred += spare.len();
        }
        // What was just sent is the truth even if the server's sets do not show it yet.
        let just_sent = |wanted: Flag| -> HashSet<String> {
            sent.iter()
                .filter_map(|c| match c {
                    Pending::Flag { key, flag, .. } if *flag == wanted => Some(key.clone()),
                    _ => None,
                })
                .collect()
        };
        let sent_read = just_sent(Flag::Read);
        let spare_starred: HashSet<String> = spare.union(&just_sent(Flag::Starred)).cloned().collect();
        let (set, complete) = (unread.ids, unread.complete);
        report.read_changed =
            self.store(move |c, row, _| accounts::apply_set(c, row, Flag::Read, &set, complete, &sent_read)).await?;
        let (set, complete) = (starred.ids, starred.complete);
        report.starred_changed = self
            .store(move |c, row, _| accounts::apply_set(c, row, Flag::Starred, &set, complete, &spare_starred))
            .await?;
        Ok(())
    }

    /// The ids of a set, page after page, up to the sync's cap of ids and of pages.
    async fn id_set(&self, remote: &mut impl Remote, set: Set, report: &mut Report) -> Result<IdSet, RemoteError> {
        let mut ids = HashSet::new();
        let mut given = Continuations::default();
        let mut continuation: Option<String> = None;
        for _ in 0..self.limits.pages {
            let room = self.limits.ids.saturating_sub(ids.len());
            if room == 0 {
                break;
            }
            let page = remote.ids(set, continuation.as_deref(), room).await?;
            let before = ids.len();
            let past_cap = page.ids.len() > room;
            ids.extend(page.ids.into_iter().take(room));
            match page.continuation {
                // A server that repeats its last page has no more to give.
                Some(next) if !past_cap && ids.len() > before => {
                    if !given.first(&next) {
                        return Err(RemoteError::Repeated(match set {
                            Set::Unread => "unread ids",
                            Set::Starred => "starred ids",
                        }));
                    }
                    continuation = Some(next);
                }
                _ if past_cap => break,
                _ => return Ok(IdSet { ids: Arc::new(ids), complete: true }),
            }
        }
        report.sets_cut = true;
        Ok(IdSet { ids: Arc::new(ids), complete: false })
    }

    /// Fetches the items of the sets that are not stored here, a batch at a time, each stored before the next is
    /// asked for, until the budget is spent.
    async fn fetch_unknown(
        &self,
        remote: &mut impl Remote,
        feeds: &Arc<HashMap<String, FeedId>>,
        unread: &IdSet,
        starred: &IdSet,
        budget: &mut Budget,
        report: &mut Report,
    ) -> Result<(), Step> {
        let (id, unread, starred) = (self.row.id, unread.ids.clone(), starred.ids.clone());
        let missing: Vec<String> = self
            .writer
            .call(move |c| accounts::unknown_keys(c, id, unread.union(&starred).cloned().collect()))
            .await?
            .into_iter()
            .collect();
        for batch in missing.chunks(BY_ID) {
            let Some(most) = budget.page() else {
                report.more = true;
                break;
            };
            let batch = &batch[..batch.len().min(most)];
            budget.took(batch.len());
            let mut items = super::cleaned(remote.items(batch).await?);
            items.truncate(batch.len());
            if budget.fit_bytes(&mut items) {
                report.more = true;
            }
            let feeds = feeds.clone();
            let stored = self.store(move |c, row, now| accounts::store_items(c, row, &feeds, &items, now)).await?;
            // (Items of feeds the server does not list were counted as they came down the stream.)
            report.new += stored.new;
        }
        Ok(())
    }
}
