//! The downloads view: two lines per file — its state, the feed and the title; then its size, progress, rate and
//! time left, or why it failed or was paused, and where the file is — under a header that counts them, with its
//! keys along the bottom. It draws only the rows in sight.

use super::{Theme, fit, hints, selection};
use crate::app::State;
use crate::app::downloads::{Live, area};
use crate::app::keymap::{Action, Context};
use crate::downloads::bytes;
use crate::model::{Download, DownloadState};
use crate::sanitize::one_line;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// `window` clears an area, draws the frame and returns the inside (the dialogs' own).
pub(super) fn draw(
    frame: &mut Frame<'_>,
    state: &State,
    theme: &Theme,
    window: fn(&mut Frame<'_>, Rect, &str, String, &Theme) -> Rect,
) {
    let (width, height) = state.viewport;
    let area = area(width, height);
    let hint = hints(
        &state.keymap,
        Context::Downloads,
        &[
            (Action::Pause, "pause/resume"),
            (Action::Refresh, "retry"),
            (Action::Delete, "delete"),
            (Action::OpenMedia, "play"),
            (Action::OpenInBrowser, "folder"),
            (Action::Close, "close"),
        ],
    );
    let inner = window(frame, area, "Downloads", hint, theme);
    let view = &state.downloads;
    let Some(rows) = &view.rows else {
        frame.render_widget(Paragraph::new(" Reading the downloads…"), inner);
        return;
    };
    let width = usize::from(inner.width);
    let count = |s: DownloadState| rows.iter().filter(|d| d.state == s).count();
    let header = if rows.is_empty() {
        let key = state.keymap.say(Context::General, Action::Download, " ({} on an entry)");
        format!(" Nothing downloaded yet: download an entry's media{key}")
    } else {
        format!(
            " {} downloading · {} queued · {} done · {} paused · {} failed",
            count(DownloadState::Downloading),
            count(DownloadState::Queued),
            count(DownloadState::Done),
            count(DownloadState::Paused),
            count(DownloadState::Failed)
        )
    };
    let mut lines = vec![Line::from(Span::styled(fit(&header, width), theme.label))];
    let shown = usize::from(inner.height.saturating_sub(1) / 2);
    for (i, d) in rows.iter().enumerate().skip(view.cursor.offset).take(shown) {
        let name = format!("{:<11}", d.state.as_str());
        let feed = if d.feed_title.is_empty() { String::new() } else { format!("{}: ", one_line(&d.feed_title, 60)) };
        let title = fit(&format!("{feed}{}", one_line(&d.title, 300)), width.saturating_sub(13));
        let second = fit(&format!("   {}", about(d, view.live.get(&d.id))), width);
        if i == view.cursor.index {
            let style = selection(true, theme);
            lines.push(Line::from(Span::styled(fit(&format!(" {name} {title}"), width), style)));
            lines.push(Line::from(Span::styled(second, style)));
        } else {
            lines.push(Line::from(vec![
                Span::raw(" "),
                Span::styled(name, state_style(d.state, theme)),
                Span::raw(format!(" {title}")),
            ]));
            lines.push(Line::from(Span::styled(second, theme.hint)));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The second line of a download: how far, how fast and how long still; or why not; and where.
fn about(d: &Download, live: Option<&Live>) -> String {
    let size = match (d.state, d.bytes_total) {
        (DownloadState::Done, _) => bytes(d.bytes_done),
        (_, Some(total)) if total > 0 => {
            let percent = d.bytes_done.saturating_mul(100) / total;
            format!("{} of {} ({percent}%)", bytes(d.bytes_done), bytes(total))
        }
        _ if d.bytes_done > 0 => bytes(d.bytes_done),
        _ => String::new(),
    };
    let mut parts: Vec<String> = vec![size].into_iter().filter(|s| !s.is_empty()).collect();
    if let Some(live) = live.filter(|_| d.state == DownloadState::Downloading) {
        if live.rate >= 1.0 {
            parts.push(format!("{}/s", bytes(live.rate as u64)));
        }
        if let Some(left) = live.seconds_left() {
            parts.push(format!("{} left", duration(left)));
        }
    }
    if let Some(why) = &d.reason {
        parts.push(one_line(why, 300));
    }
    parts.push(one_line(&d.path, 400));
    parts.join(" · ")
}

/// `75` → `1:15`, `3700` → `1:01:40`.
fn duration(secs: u64) -> String {
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 { format!("{h}:{m:02}:{s:02}") } else { format!("{m}:{s:02}") }
}

/// How a state is drawn: failures in the error colour, running ones as progress, the rest plainly.
fn state_style(state: DownloadState, theme: &Theme) -> Style {
    match state {
        DownloadState::Failed => theme.error,
        DownloadState::Downloading => theme.refreshing,
        DownloadState::Paused => theme.hint,
        DownloadState::Queued | DownloadState::Done => theme.read,
    }
}
