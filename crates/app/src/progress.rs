//! Refreshing, as the reader sees it: which feeds are on their way, counting their results as they arrive,
//! the summary at the end, and the automatic refresh that the clock drives.

use super::keymap::{Action, Context};
use super::{Effect, ListKey, State};
use crate::model::{FeedId, RefreshEvent};
use crate::sanitize::one_line;
use std::collections::{HashMap, HashSet};

/// How often the reader looks for feeds due for an automatic refresh, in seconds.
pub const AUTO_CHECK_SECS: i64 = 60;

/// Refresh progress of the current batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Feeds asked for and not finished, with the batch that asked.
    pub pending: HashMap<FeedId, u64>,
    /// Feeds being fetched right now.
    pub active: HashSet<FeedId>,
    pub done: usize,
    pub total: usize,
    pub failed: usize,
    /// Left alone: gone, or asked to wait.
    pub skipped: usize,
    /// Entries new to the store, and the feeds they came in.
    pub new_entries: usize,
    pub feeds_with_new: usize,
    /// Feeds that moved for good during the batch, as sentences.
    pub moved: Vec<String>,
}

impl Progress {
    pub fn is_idle(&self) -> bool {
        self.pending.is_empty()
    }
}

/// When refreshes start without a key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AutoRefresh {
    /// The number of the next batch of refreshes.
    pub next_batch: u64,
    /// Refresh every feed once the feed list first arrives (the `refresh_on_startup` setting).
    pub when_loaded: bool,
    /// Seconds between automatic refreshes; `None` when they are off.
    pub interval_secs: Option<i64>,
    /// When to next look for feeds due.
    pub next_check: Option<i64>,
}

/// The clock ticked: time to look for feeds due for an automatic refresh?
pub fn on_tick(state: &mut State, now: i64) -> Vec<Effect> {
    let Some(interval_secs) = state.refresh.interval_secs else { return Vec::new() };
    match state.refresh.next_check {
        None => {
            state.refresh.next_check = Some(now + AUTO_CHECK_SECS);
            Vec::new()
        }
        Some(at) if at <= now && state.progress.is_idle() => {
            state.refresh.next_check = Some(now + AUTO_CHECK_SECS);
            vec![Effect::LoadDue { now, interval_secs }]
        }
        Some(_) => Vec::new(),
    }
}

/// Queues a refresh of `ids`, leaving out those already on their way. A `force`d refresh ignores backoff and
/// tries feeds that are gone (the user asked for them by name).
pub fn request(state: &mut State, ids: Vec<FeedId>, force: bool) -> Vec<Effect> {
    let batch = state.refresh.next_batch;
    let mut fresh = Vec::new();
    // An account's feeds are fetched by its server: asking for one syncs the accounts.
    let (on_servers, ids): (Vec<FeedId>, Vec<FeedId>) =
        ids.into_iter().partition(|id| state.feeds.feed(*id).is_some_and(|f| f.account.is_some()));
    let mut effects = if on_servers.is_empty() { Vec::new() } else { super::sync::all(state) };
    for id in ids {
        if let std::collections::hash_map::Entry::Vacant(slot) = state.progress.pending.entry(id) {
            slot.insert(batch);
            fresh.push(id);
        }
    }
    if fresh.is_empty() {
        return effects;
    }
    state.refresh.next_batch += 1;
    state.progress.total += fresh.len();
    effects.push(Effect::Refresh { batch, ids: fresh, force });
    effects
}

/// Starts refreshing every local feed and syncing every account (at startup, and `R`).
pub fn refresh_all(state: &mut State) -> Vec<Effect> {
    let ids = state.feeds.feeds.iter().filter(|f| f.account.is_none()).map(|f| f.id).collect();
    let mut effects = super::sync::all(state);
    effects.extend(request(state, ids, false));
    effects
}

/// `r`: the selected feed, or every feed of the selected folder, forced; on a view, every feed (as `R`).
pub fn refresh_selected(state: &mut State) -> Vec<Effect> {
    let Some(list) = state.feeds.selected_list() else { return Vec::new() };
    if matches!(list, ListKey::All | ListKey::Unread | ListKey::Starred | ListKey::Search | ListKey::View(_)) {
        // A view holds every feed's entries: `r` on it is `R`.
        return refresh_all(state);
    }
    let ids = state.feeds.feed_ids_of(list);
    request(state, ids, true)
}

/// Says that a feed's redirects propose a new address, and how to accept it.
fn moved(state: &mut State, title: &str, url: &str) {
    let accept = state.keymap.say(Context::General, Action::Health, " ({} to accept the move)");
    state.progress.moved.push(format!("{} moved for good to {url}{accept}", one_line(title, 80)));
}

/// One feed's refresh reported.
pub fn on_event(state: &mut State, ev: RefreshEvent) -> Vec<Effect> {
    let feed_id = ev.feed_id();
    if !ev.is_final() {
        state.progress.active.insert(feed_id);
        return Vec::new();
    }
    let now = state.clock.now;
    finish(state, feed_id);
    let mut effects = Vec::new();
    match ev {
        RefreshEvent::Done { unread, title, new, updated, moved_to, cut_from, .. } => {
            if let Some(feed) = state.feeds.feed_mut(feed_id) {
                recovered(feed);
                feed.unread = unread;
                feed.title = title.clone();
                feed.last_fetched_at = Some(now);
                if let Some(url) = &moved_to {
                    feed.moved_to = Some(url.clone());
                }
            }
            state.status.feed_recovered(feed_id);
            if new > 0 {
                state.feeds.views.all += new as i64;
                state.progress.new_entries += new;
                state.progress.feeds_with_new += 1;
            }
            if let Some(url) = moved_to {
                moved(state, &title, &url);
            }
            if let Some(listed) = cut_from {
                let info = state.keymap.say(Context::General, Action::FeedInfo, " ({} on it says so)");
                state.progress.moved.push(format!(
                    "{} lists {listed} entries: only the first {} were kept{info}",
                    one_line(&title, 80),
                    crate::model::MAX_ENTRIES_PER_REFRESH
                ));
            }
            let shown = state.entries.of.is_some_and(|l| state.feeds.covers(l, feed_id));
            if new + updated > 0 && shown {
                effects.extend(super::entries::changed(state));
            }
        }
        RefreshEvent::NotModified { title, moved_to, .. } => {
            if let Some(feed) = state.feeds.feed_mut(feed_id) {
                recovered(feed);
                feed.last_fetched_at = Some(now);
                if let Some(url) = &moved_to {
                    feed.moved_to = Some(url.clone());
                }
            }
            state.status.feed_recovered(feed_id);
            if let Some(url) = moved_to {
                moved(state, &title, &url);
            }
        }
        RefreshEvent::Failed { title, kind, message, retry_at, dead, .. } => {
            state.progress.failed += 1;
            let message = super::status::in_reader_words(&state.keymap, &message);
            state.status.feed_error(feed_id, format!("{}: {message}", one_line(&title, 200)), now);
            if let Some(feed) = state.feeds.feed_mut(feed_id) {
                feed.last_error = Some(message);
                feed.error_kind = Some(kind);
                feed.retry_at = retry_at;
                feed.dead = dead;
                feed.last_fetched_at = Some(now);
            }
        }
        RefreshEvent::Skipped { .. } => state.progress.skipped += 1,
        RefreshEvent::Started { .. } => {}
    }
    state.feeds.recount();
    effects.extend(end_of_batch(state));
    effects
}

/// Refresh `batch` ended: those of its feeds it did not report on (its task died) count as failed, and the
/// progress still ends.
pub fn on_stopped(state: &mut State, batch: u64, ids: Vec<FeedId>, reason: String) -> Vec<Effect> {
    let now = state.clock.now;
    let mut stopped = 0;
    for id in ids {
        if state.progress.pending.get(&id) == Some(&batch) {
            finish(state, id);
            state.progress.failed += 1;
            stopped += 1;
        }
    }
    if stopped > 0 {
        state.status.error(
            format!("the refresh of {} stopped: {reason}", tidings_core::text::counted(stopped, "feed", "feeds")),
            now,
        );
    }
    end_of_batch(state)
}

/// The daemon refreshed `ids` for batch `batch`: `new` entries in `feeds_with_new` feeds, `failed` feeds failed
/// (their errors are in the feed list, read again at the end of the batch).
pub fn on_refreshed_by_daemon(
    state: &mut State,
    batch: u64,
    ids: Vec<FeedId>,
    (new, feeds_with_new, failed): (usize, usize, usize),
) -> Vec<Effect> {
    for id in ids {
        if state.progress.pending.get(&id) == Some(&batch) {
            finish(state, id);
        }
    }
    state.progress.new_entries += new;
    state.progress.feeds_with_new += feeds_with_new;
    state.progress.failed += failed;
    end_of_batch(state)
}

fn finish(state: &mut State, feed_id: FeedId) {
    state.progress.active.remove(&feed_id);
    if state.progress.pending.remove(&feed_id).is_some() {
        state.progress.done += 1;
    }
}

fn recovered(feed: &mut crate::model::FeedRow) {
    feed.last_error = None;
    feed.error_kind = None;
    feed.retry_at = None;
    feed.dead = false;
}

/// A refresh that no feed answered, on several hosts: the network is down, not the feeds (whose failures the
/// store forgave). Said instead of the batch's count of failures, and the list read again without them.
pub fn on_network_down(state: &mut State) -> Vec<Effect> {
    let again = state.keymap.say(Context::General, Action::RefreshAll, ", then refresh ({})");
    let text = format!(
        "Not one feed answered, on several hosts: the network seems down, so no feed counts as failing. Check \
         the connection{again}"
    );
    state.status.error(text, state.clock.now);
    let mut effects = vec![Effect::LoadFeeds];
    if state.dialog == Some(super::dialogs::Dialog::Health) {
        effects.push(Effect::LoadHealth);
    }
    effects
}

/// When the last feed of a batch is in: say what it brought, and read the feed list again (titles and order
/// may have changed).
pub fn end_of_batch(state: &mut State) -> Vec<Effect> {
    if !state.progress.is_idle() || state.progress.total == 0 {
        return Vec::new();
    }
    let p = std::mem::take(&mut state.progress);
    let fetched = p.done - p.skipped;
    let mut text = match (p.new_entries, p.feeds_with_new) {
        (0, _) if fetched == 1 => "Refreshed 1 feed, nothing new".to_string(),
        (0, _) => format!("Refreshed {fetched} feeds, nothing new"),
        (1, _) => "1 new entry".to_string(),
        (n, 1) => format!("{n} new entries in 1 feed"),
        (n, f) => format!("{n} new entries in {f} feeds"),
    };
    if p.new_entries > 0 {
        text.push_str(&if fetched == 1 {
            " (1 feed refreshed)".to_string()
        } else {
            format!(" ({fetched} feeds refreshed)")
        });
    }
    if p.failed > 0 {
        text.push_str(&format!(", {} failed", p.failed));
    }
    if p.skipped > 0 {
        text.push_str(&format!(", {} left alone (waiting or gone)", p.skipped));
    }
    for moved in &p.moved {
        text.push_str(&format!("; {moved}"));
    }
    let trouble = state.feeds.feeds.iter().filter(|f| f.account.is_none() && f.in_trouble()).count();
    if trouble > 0 {
        let shows = state.keymap.say(Context::General, Action::Health, " ({} shows them)");
        let feeds = if trouble == 1 { "1 feed needs".to_string() } else { format!("{trouble} feeds need") };
        text.push_str(&format!("; {feeds} a look{shows}"));
    }
    let now = state.clock.now;
    // One feed that failed: its own error says more than a summary would.
    if !(p.failed > 0 && fetched == 1) {
        state.status.info(text, now);
    }
    let mut effects = vec![Effect::LoadFeeds];
    if state.dialog == Some(super::dialogs::Dialog::Health) {
        effects.push(Effect::LoadHealth);
    }
    effects.extend(super::entries::catch_up(state));
    effects
}
