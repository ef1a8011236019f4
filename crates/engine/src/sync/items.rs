//! Down, the items: those the server stored since the last sync, newest first, a page at a time (the next pages
//! are asked for while the writer stores those before, together, in one transaction once it is free). A sync goes down to the first page an earlier one had whole; when an
//! earlier sync stopped going down (at its cap, or cut short), this one then goes on from where it stopped, by
//! the continuation it kept. Whatever the server sends, a sync stops at its [`Budget`], and at a continuation
//! given twice; what came is kept, and the mark it leaves says where the next sync goes on — so nothing is
//! skipped for good, and an item the sync cannot place never holds the mark back.

use super::{Budget, Continuations, Remote, RemoteError, Report, Step, Sync};
use crate::greader::RemoteItem;
use crate::model::FeedId;
use crate::store::StoreError;
use crate::store::accounts::{self, ItemsMark, ItemsReport};
use std::collections::HashMap;
use std::sync::Arc;

/// How one way down the server's items ended.
enum End {
    /// At the end of what the server has, or at a page an earlier sync had whole.
    Done,
    /// At the sync's cap or a failure; the server's continuation for the rest (none when it stopped before its
    /// first page).
    Stopped(Option<String>),
}

/// One way down the items: how it ended, the newest item seen, and the failure that stopped it.
struct Pass {
    end: End,
    newest_usec: i64,
    failed: Option<RemoteError>,
}

type Storing = tokio::task::JoinHandle<Result<ItemsReport, StoreError>>;

/// The fewest items stored in one transaction while more are coming (a Fever page holds 50): a transaction
/// costs its own statements and commit besides its items'.
const STORE_BATCH: usize = 500;
/// The most items held waiting for the writer before the way down waits for it.
const MOST_WAITING: usize = 5000;

impl Sync<'_> {
    /// Stores the items the server stored since the last sync, and keeps the mark the next sync starts from —
    /// also when the server failed midway, after what came before it is stored. Returns the mark.
    pub(super) async fn pull_items(
        &self,
        remote: &mut impl Remote,
        feeds: &Arc<HashMap<String, FeedId>>,
        budget: &mut Budget,
        report: &mut Report,
    ) -> Result<ItemsMark, Step> {
        let old = &self.row.items;
        // Without crawl times the new items have no end to stop at: the rest an earlier sync left comes first.
        let top = if old.resume.is_some() && old.seen_usec == 0 {
            Pass { end: End::Done, newest_usec: 0, failed: None }
        } else {
            self.pass(remote, feeds, None, old.seen_usec, budget, report).await?
        };
        let seen = old.seen_usec.max(top.newest_usec);
        let caught_up = |seen: i64| ItemsMark { since: old.since.max(seen / 1_000_000), seen_usec: seen, resume: None };
        let (mark, failed) = match (top.end, &old.resume) {
            // Stopped before it got to what it had: the rest goes on from there (and takes in what an earlier
            // sync left, further down).
            (End::Stopped(Some(rest)), _) => {
                (ItemsMark { since: old.since, seen_usec: seen, resume: Some(rest) }, top.failed)
            }
            (End::Stopped(None), _) => (old.clone(), top.failed),
            (End::Done, None) => (caught_up(seen), None),
            (End::Done, Some(resume)) => {
                let rest = self.pass(remote, feeds, Some(resume.clone()), 0, budget, report).await?;
                let seen = seen.max(rest.newest_usec);
                match rest.end {
                    End::Done => (caught_up(seen), None),
                    End::Stopped(at) => (
                        ItemsMark { since: old.since, seen_usec: seen, resume: at.or_else(|| old.resume.clone()) },
                        rest.failed,
                    ),
                }
            }
        };
        if mark != *old {
            let (id, kept) = (self.row.id, mark.clone());
            self.writer.call(move |c| accounts::set_items_mark(c, id, &kept)).await?;
        }
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(mark),
        }
    }

    /// One way down the items, from `start` (a continuation; none: the newest) until their end, a page all of
    /// whose items are at or before `known` (microseconds; 0: none known), the budget's end, or a failure.
    async fn pass(
        &self,
        remote: &mut impl Remote,
        feeds: &Arc<HashMap<String, FeedId>>,
        start: Option<String>,
        known: i64,
        budget: &mut Budget,
        report: &mut Report,
    ) -> Result<Pass, StoreError> {
        let mut pass = Pass { end: End::Done, newest_usec: 0, failed: None };
        let mut given = Continuations::default();
        if let Some(start) = &start {
            given.first(start);
        }
        let mut continuation = start;
        let mut storing: Option<Storing> = None;
        // Items come while the writer stores those before: what came meanwhile is stored together, in one
        // transaction, once the writer is free (and at least a batch has come), so that the way down never waits
        // on the writer until a lot is waiting.
        let mut waiting: Vec<RemoteItem> = Vec::new();
        loop {
            let Some(most) = budget.page() else {
                report.more = true;
                pass.end = End::Stopped(continuation);
                break;
            };
            let page = match remote.items_since(self.row.items.since, continuation.as_deref(), most).await {
                Ok(page) => page,
                Err(e) => {
                    pass.end = End::Stopped(continuation);
                    pass.failed = Some(e);
                    break;
                }
            };
            // A server that sends more than asked gets no more than that stored.
            let mut items: Vec<RemoteItem> = page.items;
            items.truncate(most);
            let taken = items.len();
            pass.newest_usec = items.iter().map(|i| i.crawled_usec).fold(pass.newest_usec, i64::max);
            // The server sends the newest first, so past a page the last sync had whole, every item is older
            // still: a server that stores a refresh within one second would otherwise send all of it again.
            let had_whole = known > 0 && items.iter().all(|i| i.crawled_usec > 0 && i.crawled_usec <= known);
            if items.is_empty() {
            } else if had_whole {
                // That page says where to stop (and ends the way down): only what it held that is new here
                // costs the cap, which is left for the rest an earlier sync left. (What came before it first.)
                self.store_now(&mut storing, &mut waiting, feeds, report).await?;
                if let Some(task) = storing.take() {
                    stored(report, task).await?;
                }
                budget.took(stored(report, self.store_items(feeds, items)).await?);
            } else {
                budget.took(taken);
                waiting.extend(items);
                let free = storing.as_ref().is_none_or(|task| task.is_finished());
                if (free && waiting.len() >= STORE_BATCH) || waiting.len() >= MOST_WAITING {
                    self.store_now(&mut storing, &mut waiting, feeds, report).await?;
                }
            }
            match page.continuation {
                Some(next) if !had_whole => {
                    if !given.first(&next) {
                        pass.end = End::Stopped(Some(next));
                        pass.failed = Some(RemoteError::Repeated("items"));
                        break;
                    }
                    continuation = Some(next);
                }
                _ => break,
            }
        }
        self.store_now(&mut storing, &mut waiting, feeds, report).await?;
        if let Some(task) = storing {
            stored(report, task).await?;
        }
        Ok(pass)
    }

    /// Stores what is `waiting` (once what is being stored is), beside the way down.
    async fn store_now(
        &self,
        storing: &mut Option<Storing>,
        waiting: &mut Vec<RemoteItem>,
        feeds: &Arc<HashMap<String, FeedId>>,
        report: &mut Report,
    ) -> Result<(), StoreError> {
        if let Some(task) = storing.take() {
            stored(report, task).await?;
        }
        if !waiting.is_empty() {
            *storing = Some(self.store_items(feeds, std::mem::take(waiting)));
        }
        Ok(())
    }

    /// Stores `items` on the writer, beside the way down.
    fn store_items(&self, feeds: &Arc<HashMap<String, FeedId>>, items: Vec<RemoteItem>) -> Storing {
        let (writer, row, now, feeds) = (self.writer.clone(), self.row.clone(), self.now, feeds.clone());
        tokio::spawn(async move { writer.call(move |c| accounts::store_items(c, &row, &feeds, &items, now)).await })
    }
}

/// Counts what a page's storing did, once it is done; returns how many of its items were new here.
async fn stored(report: &mut Report, task: Storing) -> Result<usize, StoreError> {
    let done = task.await.map_err(|e| StoreError::Conflict(crate::panics::join_message(e)))??;
    report.new += done.new;
    report.orphans += done.orphans;
    Ok(done.new)
}
