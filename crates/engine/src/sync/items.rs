//! Down, the items: those the server stored since the last sync, newest first, a page at a time (the next pages
//! are asked for while the writer stores those before: see [`Storer`]). A sync goes down to the first page an earlier one had whole; when an
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
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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

/// The fewest items stored in one transaction while more are coming (a Fever page holds 50): a transaction
/// costs its own statements and commit besides its items'.
const STORE_BATCH: usize = 500;
/// The most pages held waiting for the writer before the way down waits for it (and the most bytes of them:
/// [`MAX_BYTES_WAITING`](super::MAX_BYTES_WAITING)).
const PAGES_WAITING: usize = 8;

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
        let mut storer = Some(Storer::start(self, feeds));
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
            // A server that sends more than asked gets no more than that stored, nor more bytes than are left.
            let mut items: Vec<RemoteItem> = page.items;
            items.truncate(most);
            let mut items = super::cleaned(items);
            pass.newest_usec = items.iter().map(|i| i.crawled_usec).fold(pass.newest_usec, i64::max);
            // The server sends the newest first, so past a page the last sync had whole, every item is older
            // still: a server that stores a refresh within one second would otherwise send all of it again.
            let had_whole =
                known > 0 && !items.is_empty() && items.iter().all(|i| i.crawled_usec > 0 && i.crawled_usec <= known);
            if !budget.holds(&items) {
                // A page past the bytes left: what is here already (an earlier sync stopped in this page) costs
                // nothing, or it would fill this sync's bytes again, and the next's.
                let pairs: Vec<(FeedId, String)> = items
                    .iter()
                    .filter_map(|i| feeds.get(&i.stream).map(|feed| (*feed, i.entry.key.clone())))
                    .collect();
                let here = self.writer.call(move |c| accounts::stored_keys(c, pairs)).await?;
                items.retain(|i| !here.contains(&i.entry.key));
            }
            let cut = budget.fit_bytes(&mut items);
            let taken = items.len();
            if had_whole && !items.is_empty() {
                // That page says where to stop (and ends the way down): only what it held that is new here
                // costs the cap, which is left for the rest an earlier sync left. (What came before it first.)
                if let Some(before) = storer.take() {
                    counted(report, before.finish().await?);
                }
                let (writer, row, now, feeds) = (self.writer.clone(), self.row.clone(), self.now, feeds.clone());
                let done = writer.call(move |c| accounts::store_items(c, &row, &feeds, &items, now)).await?;
                budget.took(counted(report, done));
            } else if !items.is_empty() {
                budget.took(taken);
                // The storer stopped: its failure comes with `finish`, below.
                if storer.as_ref().is_some_and(|s| s.pages.is_closed()) {
                    break;
                }
                if let Some(storer) = &storer {
                    storer.send(items).await;
                }
            }
            if cut {
                // The rest of this page, and what follows, come with the next sync: it asks for this page again
                // (what this one stored of it is stored once).
                report.more = true;
                pass.end = End::Stopped(continuation);
                break;
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
        if let Some(storer) = storer {
            counted(report, storer.finish().await?);
        }
        Ok(pass)
    }
}

/// The writer's side of a way down: the pages sent to it are stored in their order, beside the way down. As
/// soon as it is free it takes every page that came meanwhile and stores them together, in one transaction (of
/// at least [`STORE_BATCH`] items while more are coming), so the way down never waits on the writer until
/// [`PAGES_WAITING`] pages, or [`MAX_BYTES_WAITING`](super::MAX_BYTES_WAITING) of them, are waiting, and the
/// writer never waits while items are.
struct Storer {
    pages: tokio::sync::mpsc::Sender<(Vec<RemoteItem>, OwnedSemaphorePermit)>,
    /// Kilobytes of items' text that may wait ([`Limits::waiting`](super::Limits::waiting)): a page takes its
    /// share until it is stored.
    room: Arc<Semaphore>,
    room_kb: u32,
    task: tokio::task::JoinHandle<Result<ItemsReport, StoreError>>,
}

impl Storer {
    /// Hands a page to the writer, once there is room for it. A page takes half the room at most: the writer
    /// stores what it holds once that is half the room, so a page waiting for room never waits for ever. Nothing
    /// happens when the writer stopped: its failure comes with [`Storer::finish`].
    async fn send(&self, items: Vec<RemoteItem>) {
        let kb = items.iter().map(|i| super::limits::stored_bytes(&i.entry)).sum::<usize>() / 1024;
        let kb = u32::try_from(kb).unwrap_or(u32::MAX).clamp(1, (self.room_kb / 2).max(1));
        let Ok(permit) = self.room.clone().acquire_many_owned(kb).await else { return };
        let _ = self.pages.send((items, permit)).await;
    }

    fn start(sync: &Sync<'_>, feeds: &Arc<HashMap<String, FeedId>>) -> Storer {
        let (pages, mut coming) = tokio::sync::mpsc::channel::<(Vec<RemoteItem>, OwnedSemaphorePermit)>(PAGES_WAITING);
        let room_kb = u32::try_from(sync.limits.waiting / 1024).unwrap_or(u32::MAX).max(2);
        let (writer, row, now, feeds) = (sync.writer.clone(), sync.row.clone(), sync.now, feeds.clone());
        let store = move |items: Vec<RemoteItem>| {
            let (writer, row, feeds) = (writer.clone(), row.clone(), feeds.clone());
            async move { writer.call(move |c| accounts::store_items(c, &row, &feeds, &items, now)).await }
        };
        let task = tokio::spawn(async move {
            let mut total = ItemsReport::default();
            let mut batch: Vec<RemoteItem> = Vec::new();
            let mut add = |done: ItemsReport| {
                total.new += done.new;
                total.updated += done.updated;
                total.orphans += done.orphans;
            };
            // The room the pages in the batch take, given back once they are stored.
            let mut taken: Vec<OwnedSemaphorePermit> = Vec::new();
            while let Some((items, permit)) = coming.recv().await {
                batch.extend(items);
                taken.push(permit);
                while let Ok((more, permit)) = coming.try_recv() {
                    batch.extend(more);
                    taken.push(permit);
                }
                if batch.len() >= STORE_BATCH
                    || taken.iter().map(|p| p.num_permits()).sum::<usize>() >= room_kb as usize / 2
                {
                    add(store(std::mem::take(&mut batch)).await?);
                    taken.clear();
                }
            }
            if !batch.is_empty() {
                add(store(batch).await?);
            }
            Ok(total)
        });
        Storer { pages, room: Arc::new(Semaphore::new(room_kb as usize)), room_kb, task }
    }

    /// Stores what is left, and says what storing it all did.
    async fn finish(self) -> Result<ItemsReport, StoreError> {
        drop(self.pages);
        self.task.await.map_err(|e| StoreError::Conflict(crate::panics::join_message(e)))?
    }
}

/// Counts what storing did; returns how many of the items were new here.
fn counted(report: &mut Report, done: ItemsReport) -> usize {
    report.new += done.new;
    report.orphans += done.orphans;
    done.new
}
