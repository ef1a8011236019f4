//! The status bar: refresh progress, else the current message (it expires; the message log keeps it), and key
//! hints at the right, drawn from the keymap.

use super::{Theme, hints};
use crate::app::State;
use crate::app::keymap::{Action, Context};
use crate::sanitize::one_line;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

/// The fewest columns a message keeps beside the key hints; with less, the hints make way for it.
const ROOM_BESIDE_HINTS: usize = 30;

pub(super) fn bar(frame: &mut Frame<'_>, state: &State, theme: &Theme, area: Rect) {
    let width = usize::from(area.width);
    let right =
        format!(" {} ", hints(&state.keymap, Context::General, &[(Action::Help, "help"), (Action::Quit, "quit")]));
    let mut spans = Vec::new();
    let p = &state.progress;
    if !p.is_idle() {
        let failed = if p.failed > 0 { format!(", {} failed", p.failed) } else { String::new() };
        spans.push(Span::styled(format!(" Refreshing {}/{}{failed} ", p.done, p.total), theme.status_progress));
    }
    if let Some(message) = state.status.current(state.clock.now) {
        let used: usize = spans.iter().map(|s| s.content.width()).sum();
        let text = one_line(&message.text, 2000);
        let text = if message.warning { format!("warning: {text}") } else { text };
        // The message before the key hints: in a narrow terminal they give it their room.
        let beside_hints = width.saturating_sub(used + right.width() + 2);
        let room = if text.width() > beside_hints && beside_hints < ROOM_BESIDE_HINTS {
            width.saturating_sub(used + 2)
        } else {
            beside_hints
        };
        let shown = if text.width() > room {
            // Cut (`fit` ends it with one "…"), and say where the rest is, when that leaves room for the message.
            let log = state.keymap.hint(Context::General, Action::MessageLog);
            let tail = if log.is_empty() { String::new() } else { format!(" ({log}: all of it)") };
            let tail = if room >= tail.width() + ROOM_BESIDE_HINTS / 2 { tail } else { String::new() };
            let keep = room.saturating_sub(tail.width());
            let cut = super::fit(&text, keep);
            let cut = match cut.strip_suffix('…') {
                Some(kept) => format!("{}…", kept.trim_end()),
                None => cut,
            };
            format!("{cut}{tail}")
        } else {
            text
        };
        let style = if message.error { theme.status_error } else { theme.status };
        spans.push(Span::styled(format!(" {shown} "), style));
    }
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    if used + right.width() <= width {
        spans.push(Span::raw(" ".repeat(width - used - right.width())));
        spans.push(Span::styled(right, theme.hint));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(theme.status), area);
}
