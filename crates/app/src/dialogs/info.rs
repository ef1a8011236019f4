//! The feed-info window: status, errors, validators, and how the feed was decoded — everything tidings knows
//! about one subscription. Its lines are laid out by [`Info::lines`] for both scrolling and drawing.

use super::{Dialog, Next, text_step};
use crate::clock::Zone;
use crate::keymap::{Action, Context, Keymap};
use crate::list::scroll;
use crate::model::{FeedId, FeedInfo};
use crate::sanitize::one_line;
use crate::{Effect, State, layout};

#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub feed_id: FeedId,
    /// `None` while it loads.
    pub info: Option<Box<FeedInfo>>,
    pub scroll: usize,
}

/// Width of the label column.
pub const LABEL_WIDTH: usize = 14;

impl Info {
    /// The window's lines for a text column `width` wide: (label, text), the label on a field's first line only.
    pub fn lines(&self, width: usize, zone: Zone, now: i64, keymap: &Keymap) -> Vec<(&'static str, String)> {
        let Some(info) = &self.info else { return vec![("", "Loading…".to_string())] };
        let key = |context, action, with| keymap.say(context, action, with);
        let mut lines = Vec::new();
        let mut field = |name: &'static str, value: String| {
            let wrapped = crate::render::wrap_text(&one_line(&value, 4000), width.max(10), Default::default());
            for (i, chunk) in wrapped.into_iter().enumerate() {
                let text: String = chunk.into_iter().map(|s| s.text).collect();
                lines.push((if i == 0 { name } else { "" }, text));
            }
        };
        let row = &info.row;
        let when = |ts: Option<i64>| ts.map(|t| zone.datetime(t)).unwrap_or_else(|| "never".into());
        field("Feed", row.title.clone());
        if let Some(own) = info.own_title.as_deref().filter(|own| *own != row.title) {
            let rename = key(Context::General, Action::Rename, " ({} renames; an empty name goes back to it)");
            field("Its own title", format!("{own}{rename}"));
        }
        field("URL", crate::sanitize::without_password(&row.url).into_owned());
        field("Site", row.site_url.clone().unwrap_or_else(|| "—".into()));
        field("Folder", row.folder.clone().unwrap_or_else(|| "—".into()));
        field("Entries", format!("{} ({} unread)", info.entries, row.unread));
        field(
            "Full text",
            if row.full_text {
                format!(
                    "new entries' pages are fetched on refresh{}",
                    key(Context::General, Action::FeedFullText, " ({} stops it)")
                )
            } else {
                format!(
                    "no: the feed's own content{}",
                    key(Context::General, Action::FeedFullText, " ({} fetches each new entry's page)")
                )
            },
        );
        let status = row.last_status.map(|s| format!(" (HTTP {s})")).unwrap_or_default();
        field("Last fetched", format!("{}{status}", when(row.last_fetched_at)));
        field("Last success", when(info.last_success_at));
        if let Some(error) = &row.last_error {
            field("Last error", format!("[{}] {error}", row.error_kind.map_or("error", |k| k.as_str())));
            field("Failures", format!("{} in a row", info.failures));
        }
        if row.dead {
            field(
                "Status",
                format!(
                    "gone (HTTP 410): no automatic refreshes{}",
                    key(Context::General, Action::Refresh, "; {} tries again")
                ),
            );
        } else if let Some(at) = row.retry_at.filter(|at| *at > now) {
            field(
                "Status",
                format!("retry after {}, not before (backoff or the server's request)", zone.moment(at, now)),
            );
        }
        field(
            "Validators",
            format!(
                "ETag {} · Last-Modified {}",
                info.etag.as_deref().unwrap_or("—"),
                info.last_modified.as_deref().unwrap_or("—")
            ),
        );
        match &info.decision {
            Some(d) => {
                field("Encoding", d.summary());
                field("Media type", d.signals.media_type.clone().unwrap_or_else(|| "none".into()));
                field("Signals", d.signals_line());
                field("Strict rules", d.strict_line());
                for note in &d.notes {
                    field("Note", note.clone());
                }
            }
            None => field("Encoding", "not read yet".into()),
        }
        field(
            "Forced",
            row.encoding_forced.clone().unwrap_or_else(|| {
                format!("no{}", key(Context::Info, Action::ForceEncoding, " (press {} to force one)"))
            }),
        );
        let set = key(Context::Info, Action::FeedSettings, " ({} sets one)");
        match info.settings.as_slice() {
            [] => field("Settings", format!("the config's defaults{set}")),
            settings => {
                for (i, setting) in settings.iter().enumerate() {
                    let with = if i + 1 == settings.len() { set.as_str() } else { "" };
                    field(if i == 0 { "Settings" } else { "" }, format!("{setting}{with}"));
                }
            }
        }
        for warning in &info.warnings {
            field("Reading", warning.clone());
        }
        if info.id_rotations > 0 {
            let times =
                if info.id_rotations == 1 { "once".to_string() } else { format!("{} times", info.id_rotations) };
            field(
                "Entry ids",
                format!(
                    "this feed gives its entries new ids; an entry was known again by its link and title {times}, \
                     its read and starred marks kept"
                ),
            );
        }
        if !info.attempts.is_empty() {
            let attempts = match info.attempts.len() {
                1 => "the last attempt".to_string(),
                n => format!("the last {n} attempts, newest first"),
            };
            field("History", attempts);
            for attempt in &info.attempts {
                field("", attempt_line(attempt, zone));
            }
        }
        lines
    }
}

/// One attempt of the feed's history: when, the HTTP status, how it ended, the bytes it brought, how long.
fn attempt_line(attempt: &crate::model::FetchAttempt, zone: Zone) -> String {
    let status = attempt.status.map_or("—".to_string(), |s| s.to_string());
    let bytes = match attempt.bytes {
        Some(b) if b >= 1024 * 1024 => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
        Some(b) if b >= 1024 => format!("{:.1} kB", b as f64 / 1024.0),
        Some(b) => format!("{b} B"),
        None => "—".to_string(),
    };
    format!("{} · {status} · {} · {bytes} · {} ms", zone.datetime(attempt.at), attempt.outcome, attempt.duration_ms)
}

/// Where the window goes on a terminal of `width` × `height`.
pub fn area(width: u16, height: u16) -> ratatui::layout::Rect {
    layout::text_dialog(width, height, width.saturating_sub(8).max(40), height.saturating_sub(4).max(10))
}

/// The width of the text column inside the window.
pub fn text_width(area: ratatui::layout::Rect) -> usize {
    usize::from(area.width.saturating_sub(2)).saturating_sub(LABEL_WIDTH + 2).max(10)
}

/// Opens the window for a feed; its details arrive later.
pub fn open(state: &mut State, feed_id: FeedId) -> Vec<Effect> {
    state.dialog = Some(Dialog::Info(Info { feed_id, info: None, scroll: 0 }));
    vec![Effect::LoadFeedInfo(feed_id)]
}

/// The feed's details arrived; details of a feed no longer shown are dropped.
pub fn on_loaded(state: &mut State, feed_id: FeedId, info: Option<Box<FeedInfo>>) -> Vec<Effect> {
    if let Some(Dialog::Info(shown)) = state.dialog.as_mut()
        && shown.feed_id == feed_id
    {
        match info {
            Some(info) => shown.info = Some(info),
            None => state.dialog = None,
        }
    }
    Vec::new()
}

pub(super) fn on_key(state: &mut State, info: &mut Info, action: Option<Action>) -> Next {
    match action {
        Some(Action::Close | Action::FeedInfo) => Next::Close,
        Some(Action::ForceEncoding) => Next::Open(Dialog::Prompt(super::prompt::encoding_prompt(state, info.feed_id))),
        Some(Action::FeedSettings) => Next::Open(Dialog::Prompt(super::prompt::setting_prompt(state, info.feed_id))),
        Some(action) => {
            if let Some(step) = text_step(action) {
                let (width, height) = state.viewport;
                let area = area(width, height);
                let len = info.lines(text_width(area), state.clock.zone, state.clock.now, &state.keymap).len();
                info.scroll = scroll(info.scroll, step, len, usize::from(area.height.saturating_sub(2)));
            }
            Next::Keep
        }
        None => Next::Keep,
    }
}
