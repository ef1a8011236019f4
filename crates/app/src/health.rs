//! The health view: every feed with its state (dead, gone, moved, failing, throttled, quiet, ok) and why, worst
//! first, judged by `tidings_core::health` from the facts the store keeps. Feeds are marked one by one or all of
//! one state, then unsubscribed, paused or retried together; a proposed move is accepted; a feed's site opened.
//! Every change is a [`UserWrite`] through the one write path; the view is read again once it is made.

use crate::dialogs::{Confirm, Confirmed, Dialog};
use crate::keymap::{Action, Context};
use crate::list::{ListCursor, Step};
use crate::model::{FeedId, UserWrite};
use crate::{Effect, OpenKind, State, layout, progress};
use std::collections::BTreeSet;
use tidings_core::health::{HealthFacts, HealthRules, HealthState, Judged, judge_all};

/// The view's state: kept while the reader runs, so marks survive a question asked over it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HealthView {
    /// `None` until the first judgement arrives.
    pub rows: Option<Vec<Judged>>,
    /// Feeds of accounts, left out: their servers fetch them.
    pub left_out: usize,
    pub cursor: ListCursor,
    pub marked: BTreeSet<FeedId>,
    pub rules: HealthRules,
}

impl HealthView {
    /// How many feeds are not ok.
    pub fn in_trouble(&self) -> usize {
        self.rows.as_ref().map_or(0, |rows| rows.iter().filter(|r| r.health.state != HealthState::Ok).count())
    }

    fn current(&self) -> Option<&Judged> {
        self.rows.as_ref()?.get(self.cursor.index)
    }

    /// The feeds an action applies to: the marked ones, else the one under the cursor.
    fn chosen(&self) -> Vec<FeedId> {
        if self.marked.is_empty() {
            self.current().map(|j| vec![j.facts.feed_id]).unwrap_or_default()
        } else {
            self.marked.iter().copied().collect()
        }
    }
}

/// Where the view goes on a terminal of `width` × `height`: nearly all of it.
pub fn area(width: u16, height: u16) -> ratatui::layout::Rect {
    layout::text_dialog(width, height, width.saturating_sub(4).max(40), height.saturating_sub(2).max(10))
}

/// Rows of feeds the view shows at once (the frame and the header line take three, the detail of the feed under
/// the cursor [`detail_lines`]).
pub fn visible_rows(state: &State) -> usize {
    let (width, height) = state.viewport;
    let rows = area(width, height).height.saturating_sub(3);
    usize::from(rows - detail_lines(rows)).max(1)
}

/// Lines at the bottom of the view for the feed under the cursor — its state, failures in a row and address, and
/// why in full (a row cuts it) — when `rows` leave room for them beside ten rows of feeds.
pub fn detail_lines(rows: u16) -> u16 {
    if rows >= 14 { 4 } else { 0 }
}

/// Opens the view; the judgement arrives with [`on_loaded`].
pub fn open(state: &mut State) -> Vec<Effect> {
    state.dialog = Some(Dialog::Health);
    vec![Effect::LoadHealth]
}

/// The facts arrived: judge them at the reader's time, worst first, keeping the cursor on its feed.
pub fn on_loaded(state: &mut State, facts: Vec<HealthFacts>, left_out: usize) -> Vec<Effect> {
    let view = &mut state.health;
    let at = view.current().map(|j| j.facts.feed_id);
    let rows = judge_all(facts, state.clock.now, view.rules);
    view.marked.retain(|id| rows.iter().any(|r| r.facts.feed_id == *id));
    let index = at.and_then(|id| rows.iter().position(|r| r.facts.feed_id == id)).unwrap_or(0);
    let len = rows.len();
    view.rows = Some(rows);
    view.left_out = left_out;
    let visible = visible_rows(state);
    state.health.cursor.select(index, len, visible);
    Vec::new()
}

/// A key while the view is open.
pub fn on_key(state: &mut State, action: Option<Action>) -> Vec<Effect> {
    let now = state.clock.now;
    let visible = visible_rows(state);
    let len = state.health.rows.as_ref().map_or(0, Vec::len);
    let view = &mut state.health;
    match action {
        Some(Action::Close | Action::Health) => {
            crate::dialogs::close(state);
            Vec::new()
        }
        Some(Action::Mark) => {
            if let Some(id) = view.current().map(|j| j.facts.feed_id)
                && !view.marked.remove(&id)
            {
                view.marked.insert(id);
            }
            view.cursor.step(Step::By(1), len, visible);
            Vec::new()
        }
        Some(Action::MarkState) => {
            mark_state(view);
            Vec::new()
        }
        Some(Action::Delete) => ask_unsubscribe(state),
        Some(Action::Pause) => pause(state),
        Some(Action::Refresh) => retry(state),
        Some(Action::AcceptMove) => accept_move(state),
        Some(Action::OpenInBrowser) => match view.current() {
            Some(j) => {
                let url = j.facts.site_url.clone().unwrap_or_else(|| j.facts.url.clone());
                vec![Effect::Open { url, kind: OpenKind::Page }]
            }
            None => Vec::new(),
        },
        Some(Action::FeedInfo) => match view.current().map(|j| j.facts.feed_id) {
            Some(id) => {
                // The info opens over the view, which comes back when it closes.
                state.queued_dialogs.push_front(Dialog::Health);
                crate::dialogs::open_info(state, id)
            }
            None => Vec::new(),
        },
        Some(action) => {
            if let Some(step) = crate::dialogs::text_step(action) {
                view.cursor.step(step, len, visible);
            } else if action == Action::Help {
                state.queued_dialogs.push_front(Dialog::Health);
                state.dialog = Some(Dialog::Help { scroll: 0 });
            } else {
                let help = state.keymap.say(Context::Health, Action::Close, "{} closes the health view");
                state.status.info(help, now);
            }
            Vec::new()
        }
        None => Vec::new(),
    }
}

/// Marks every feed in the state of the one under the cursor; when they all are already, unmarks them.
fn mark_state(view: &mut HealthView) {
    let Some(state) = view.current().map(|j| j.health.state) else { return };
    let ids: Vec<FeedId> =
        view.rows.iter().flatten().filter(|r| r.health.state == state).map(|r| r.facts.feed_id).collect();
    if ids.iter().all(|id| view.marked.contains(id)) {
        for id in &ids {
            view.marked.remove(id);
        }
    } else {
        view.marked.extend(ids);
    }
}

fn ask_unsubscribe(state: &mut State) -> Vec<Effect> {
    let chosen = state.health.chosen();
    let question = match chosen.as_slice() {
        [] => return Vec::new(),
        [one] => format!("Unsubscribe from {}? Its entries go with it.", title_of(state, *one)),
        many => format!("Unsubscribe from these {} feeds? Their entries go with them.", many.len()),
    };
    state.queued_dialogs.push_front(Dialog::Health);
    state.dialog = Some(Dialog::Confirm(Confirm { question, action: Confirmed::UnsubscribeMarked }));
    Vec::new()
}

/// The yes to [`ask_unsubscribe`]: each chosen feed goes, through the one write path.
pub fn unsubscribe(state: &mut State) -> Vec<Effect> {
    let chosen = state.health.chosen();
    let now = state.clock.now;
    state.health.marked.clear();
    state.feeds.feeds.retain(|f| !chosen.contains(&f.id));
    state.feeds.rebuild_rows();
    state.undo = None;
    state.status.info(
        format!("Unsubscribed from {} (no undo)", tidings_core::text::counted(chosen.len(), "feed", "feeds")),
        now,
    );
    let mut effects: Vec<Effect> = chosen.into_iter().map(|id| Effect::write(UserWrite::DeleteFeed(id))).collect();
    effects.extend([Effect::LoadFeeds, Effect::LoadHealth]);
    effects
}

/// Pauses the chosen feeds, or resumes them when every one is paused already.
fn pause(state: &mut State) -> Vec<Effect> {
    let chosen = state.health.chosen();
    if chosen.is_empty() {
        return Vec::new();
    }
    let all_paused = chosen.iter().all(|id| facts_of(state, *id).is_some_and(|f| f.paused));
    let now = state.clock.now;
    let verb = if all_paused { "Resumed" } else { "Paused" };
    state.status.info(format!("{verb} {}", tidings_core::text::counted(chosen.len(), "feed", "feeds")), now);
    state.health.marked.clear();
    vec![Effect::write(UserWrite::SetFeedsPaused { feed_ids: chosen, paused: !all_paused }), Effect::LoadHealth]
}

/// Refreshes the chosen feeds now, backoff or not (paused ones are resumed first: retrying is asking for them).
fn retry(state: &mut State) -> Vec<Effect> {
    let chosen = state.health.chosen();
    let paused: Vec<FeedId> =
        chosen.iter().copied().filter(|id| facts_of(state, *id).is_some_and(|f| f.paused)).collect();
    state.health.marked.clear();
    let mut effects = Vec::new();
    if !paused.is_empty() {
        effects.push(Effect::write(UserWrite::SetFeedsPaused { feed_ids: paused, paused: false }));
    }
    let now = state.clock.now;
    state.status.info(format!("Retrying {}…", tidings_core::text::counted(chosen.len(), "feed", "feeds")), now);
    effects.extend(progress::request(state, chosen, true));
    effects
}

/// Accepts the move proposed for the feed under the cursor (or each marked feed with one).
fn accept_move(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let moves: Vec<FeedId> = state
        .health
        .chosen()
        .into_iter()
        .filter(|id| state.health.rows.iter().flatten().any(|r| r.facts.feed_id == *id && r.proposed_move().is_some()))
        .collect();
    if moves.is_empty() {
        state.status.info("No move to accept: only a feed in the state `moved` proposes one", now);
        return Vec::new();
    }
    state.status.info(format!("Accepted {} move(s): the feeds keep their entries", moves.len()), now);
    state.health.marked.clear();
    let mut effects: Vec<Effect> = moves.into_iter().map(|id| Effect::write(UserWrite::AcceptMove(id))).collect();
    effects.extend([Effect::LoadFeeds, Effect::LoadHealth]);
    effects
}

fn facts_of(state: &State, id: FeedId) -> Option<&HealthFacts> {
    state.health.rows.iter().flatten().find(|r| r.facts.feed_id == id).map(|r| &r.facts)
}

fn title_of(state: &State, id: FeedId) -> String {
    facts_of(state, id).map(|f| crate::sanitize::one_line(&f.title, 80)).unwrap_or_default()
}
