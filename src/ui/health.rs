//! The health view: a line per feed, worst first — a mark, its state, its failures in a row, the feed and why —
//! under a header that counts the feeds in trouble, with its keys along the bottom. It draws only the rows in
//! sight, so ten thousand feeds cost what a screenful does.

use super::{Theme, fit, hints, selection};
use crate::app::State;
use crate::app::health::area;
use crate::app::keymap::{Action, Context};
use crate::health::HealthState;
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
        Context::Health,
        &[
            (Action::Mark, "mark"),
            (Action::MarkState, "all of a state"),
            (Action::Delete, "unsubscribe"),
            (Action::Pause, "pause"),
            (Action::Refresh, "retry"),
            (Action::AcceptMove, "accept move"),
            (Action::OpenInBrowser, "site"),
            (Action::Close, "close"),
        ],
    );
    let inner = window(frame, area, "Feed health", hint, theme);
    let view = &state.health;
    let Some(rows) = &view.rows else {
        frame.render_widget(Paragraph::new(" Judging every feed…"), inner);
        return;
    };
    let width = usize::from(inner.width);
    let mut header = format!(" {} of {} feeds need a look", view.in_trouble(), rows.len());
    if !view.marked.is_empty() {
        header.push_str(&format!(" · {} marked", view.marked.len()));
    }
    if view.left_out > 0 {
        header.push_str(&format!(" · {} feeds of accounts left out (their servers fetch them)", view.left_out));
    }
    let mut lines = vec![Line::from(Span::styled(fit(&header, width), theme.label))];
    let detail = crate::app::health::detail_lines(inner.height.saturating_sub(1));
    let shown = usize::from(inner.height.saturating_sub(1 + detail));
    for (i, judged) in rows.iter().enumerate().skip(view.cursor.offset).take(shown) {
        let facts = &judged.facts;
        let mark = if view.marked.contains(&facts.feed_id) { "●" } else { " " };
        let paused = if facts.paused { " (paused)" } else { "" };
        let state_name = format!("{:<9}", judged.health.state.as_str());
        let text = format!(
            " {:>3} {}{paused} — {}",
            facts.failures,
            one_line(&facts.title, 200),
            one_line(&judged.health.why, 400)
        );
        let rest = fit(&text, width.saturating_sub(12));
        let line = if i == view.cursor.index {
            let style = selection(true, theme);
            Line::from(Span::styled(fit(&format!(" {mark} {state_name}{rest}"), width), style))
        } else {
            Line::from(vec![
                Span::styled(format!(" {mark} "), theme.unread_marker),
                Span::styled(state_name, state_style(judged.health.state, theme)),
                Span::raw(rest),
            ])
        };
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), inner);
    if let Some(judged) = rows.get(view.cursor.index).filter(|_| detail > 0) {
        let at = Rect { y: inner.y + inner.height - detail, height: detail, ..inner };
        let facts = &judged.facts;
        let failures = match facts.failures {
            0 => String::new(),
            1 => " · failed once".into(),
            n => format!(" · failed {n} times in a row"),
        };
        let head = format!(
            "{}{failures} · {}",
            judged.health.state.as_str(),
            one_line(&crate::sanitize::without_password(&facts.url), 400)
        );
        let text = vec![
            Line::from(Span::styled("─".repeat(width), theme.border)),
            Line::from(Span::styled(fit(&head, width), state_style(judged.health.state, theme))),
            Line::from(one_line(&judged.health.why, 1000)),
        ];
        frame.render_widget(Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: true }), at);
    }
}

/// How a state is drawn: trouble in the error colour, waiting and quiet as hints, ok plainly.
fn state_style(state: HealthState, theme: &Theme) -> Style {
    match state {
        HealthState::Dead | HealthState::Failing => theme.error,
        HealthState::Gone => theme.dead,
        HealthState::Moved => theme.overridden,
        HealthState::Throttled | HealthState::Quiet => theme.hint,
        HealthState::Ok => theme.read,
    }
}
