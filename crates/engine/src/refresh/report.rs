//! What a refresh run reports: each feed's events passed to the caller while the run lasts, the feeds a run that
//! stopped early never finished (each reported stopped, so none is left pending), and the run's totals.

use crate::model::{ErrorKind, FeedId, RefreshEvent};
use crate::store::feeds::RefreshTarget;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Totals of a refresh run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub feeds: usize,
    pub updated_feeds: usize,
    pub not_modified: usize,
    pub new_entries: usize,
    pub failed: Vec<RefreshEvent>,
    pub skipped: Vec<RefreshEvent>,
    /// Feeds whose permanent redirects now propose a new address: (title, new address). Proposed only: the
    /// user accepts a move (`tidings health`, the reader's health view).
    pub moved: Vec<(String, String)>,
    /// The network was down: not one feed answered, on several hosts; the failures counted against none.
    pub outage: bool,
    /// Feeds that listed more entries than a refresh keeps: (title, how many they listed).
    pub cut: Vec<(String, usize)>,
}

impl Summary {
    /// Counts one feed's final event.
    pub(super) fn count(&mut self, event: RefreshEvent) {
        if !event.is_final() {
            return;
        }
        self.feeds += 1;
        match event {
            RefreshEvent::Done { new, title, moved_to, cut_from, .. } => {
                self.updated_feeds += 1;
                self.new_entries += new;
                if let Some(listed) = cut_from {
                    self.cut.push((title.clone(), listed));
                }
                self.moved.extend(moved_to.map(|to| (title, to)));
            }
            // A feed whose server redirects it for good and says nothing changed has moved all the same.
            RefreshEvent::NotModified { title, moved_to, .. } => {
                self.not_modified += 1;
                self.moved.extend(moved_to.map(|to| (title, to)));
            }
            failed @ RefreshEvent::Failed { .. } => self.failed.push(failed),
            skipped @ RefreshEvent::Skipped { .. } => self.skipped.push(skipped),
            RefreshEvent::Started { .. } => {}
        }
    }
}

/// Why a feed was reported failed without a result of its own: its refresh was cancelled.
pub(super) const STOPPED: &str = "the refresh stopped before this feed was done (tidings was closing, or the refresh was cancelled); it is \
     tried again at the next refresh";

/// Who a feed is, for its events.
pub(super) struct FeedName {
    pub(super) id: FeedId,
    pub(super) title: String,
    pub(super) url: String,
}

impl FeedName {
    pub(super) fn of(target: &RefreshTarget) -> FeedName {
        FeedName { id: target.id, title: target.title.clone(), url: target.url.clone() }
    }

    /// A failure of tidings itself, not stored.
    pub(super) fn failed(self, message: &str) -> RefreshEvent {
        RefreshEvent::Failed {
            feed_id: self.id,
            title: self.title,
            url: self.url,
            kind: ErrorKind::Internal,
            message: message.into(),
            retry_at: None,
            dead: false,
        }
    }
}

/// Passes a run's events to its caller's `report`, until the run is over: once the run is dropped, a task that
/// has not yet noticed it was cancelled cannot report a `Started` after its feed's final event.
pub(super) struct Reporter {
    pub(super) report: Box<dyn Fn(RefreshEvent) + Send + Sync>,
    pub(super) open: Mutex<bool>,
}

impl Reporter {
    pub(super) fn send(&self, event: RefreshEvent) {
        if *self.open.lock().unwrap_or_else(|e| e.into_inner()) {
            (self.report)(event);
        }
    }

    /// Reports these last events, and nothing after them.
    pub(super) fn close_with(&self, last: impl Iterator<Item = RefreshEvent>) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if *open {
            last.for_each(|event| (self.report)(event));
        }
        *open = false;
    }
}

/// The feeds of a run not done yet. When `run` is dropped before the end (its caller gave up on it),
/// this goes with it and reports each of them as stopped, so none is left pending.
pub(super) struct Unfinished {
    /// Feeds refreshing, by their task.
    pub(super) feeds: HashMap<tokio::task::Id, FeedName>,
    /// Feeds waiting for their turn (no task yet), in the order they joined their hosts' queues; a feed's place
    /// is emptied when its turn comes.
    pub(super) waiting: Vec<Option<Box<RefreshTarget>>>,
    pub(super) reporter: Arc<Reporter>,
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        let waiting = self.waiting.drain(..).flatten().map(|target| FeedName::of(&target));
        self.reporter.close_with(self.feeds.drain().map(|(_, feed)| feed).chain(waiting).map(|f| f.failed(STOPPED)));
    }
}
