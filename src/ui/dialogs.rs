//! Dialogs over the panes: help, feed info, prompts, the feed picker, questions and reports. Every window shares
//! one frame ([`super::dialog_block`]) and takes its size from [`crate::app::dialogs::areas`], the same numbers
//! the state machine scrolls by.

use super::{Theme, dialog_block, fit, hints, selection};
use crate::app::State;
use crate::app::dialogs::{Confirm, Confirmed, Dialog, HelpLine, Info, Picker, Prompt, Report, areas, help_lines};
use crate::app::keymap::{Action, Context};
use crate::app::layout;
use crate::sanitize::one_line;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

pub(super) fn draw(frame: &mut Frame<'_>, state: &State, theme: &Theme, dialog: &Dialog) {
    match dialog {
        Dialog::Help { scroll } => help(frame, state, theme, *scroll),
        Dialog::Info(info) => feed_info(frame, state, theme, info),
        Dialog::Prompt(prompt) => self::prompt(frame, state, theme, prompt),
        Dialog::Picker(picker) => self::picker(frame, state, theme, picker),
        Dialog::Confirm(confirm) => self::confirm(frame, state, theme, confirm),
        Dialog::Report(report) => self::report(frame, state, theme, report),
        Dialog::Health => super::health::draw(frame, state, theme, window),
        Dialog::Downloads => super::downloads::draw(frame, state, theme, window),
    }
}

/// Clears `area`, draws the frame, and returns the inside.
fn window(frame: &mut Frame<'_>, area: Rect, title: &str, hints: String, theme: &Theme) -> Rect {
    frame.render_widget(Clear, area);
    // A wide character (CJK) just left of the window spans its left border's cell: the terminal would draw its
    // second half there and skip the border. It goes, the border stays.
    if area.x > 0 {
        let buffer = frame.buffer_mut();
        for y in area.top()..area.bottom() {
            if let Some(cell) = buffer.cell_mut((area.x - 1, y))
                && cell.symbol().width() > 1
            {
                cell.set_symbol(" ");
            }
        }
    }
    let block = dialog_block(title, hints, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

/// "42%" at the bottom right of a window whose text does not fit.
fn position(frame: &mut Frame<'_>, area: Rect, scroll: usize, rows: usize, total: usize, theme: &Theme) {
    if total <= rows || area.width < 12 {
        return;
    }
    let text = format!(" {}% ", ((scroll + rows).min(total) * 100) / total.max(1));
    let x = area.x + area.width.saturating_sub(text.width() as u16 + 1);
    frame.render_widget(Span::styled(text, theme.hint), Rect::new(x, area.y + area.height - 1, 6, 1));
}

fn scroll_hints(state: &State, context: Context, close: Action) -> String {
    hints(&state.keymap, context, &[(Action::Down, "scroll"), (close, "close")])
}

fn help(frame: &mut Frame<'_>, state: &State, theme: &Theme, scroll: usize) {
    let (width, height) = state.viewport;
    let area = areas::help(&state.keymap, width, height);
    let inner = window(frame, area, "Keys", scroll_hints(state, Context::Help, Action::Close), theme);
    let lines = help_lines(&state.keymap, inner.width);
    let keys_width = areas::help_keys_column(&state.keymap);
    let rows = usize::from(inner.height);
    let scroll = scroll.min(lines.len().saturating_sub(rows));
    let shown: Vec<Line<'_>> = lines
        .iter()
        .skip(scroll)
        .take(rows)
        .map(|line| match line {
            HelpLine::Heading(title) => Line::from(Span::styled(format!(" {title}"), theme.label)),
            HelpLine::Row { keys, help } => Line::from(vec![
                Span::styled(format!(" {}", pad(keys, keys_width)), theme.key),
                Span::raw("  "),
                Span::raw(help.clone()),
            ]),
            HelpLine::Blank => Line::default(),
        })
        .collect();
    frame.render_widget(Paragraph::new(shown), inner);
    position(frame, area, scroll, rows, lines.len(), theme);
}

fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(text.width())))
}

fn feed_info(frame: &mut Frame<'_>, state: &State, theme: &Theme, info: &Info) {
    let (width, height) = state.viewport;
    let area = areas::info(width, height);
    let hint = hints(
        &state.keymap,
        Context::Info,
        &[(Action::ForceEncoding, "force an encoding"), (Action::Down, "scroll"), (Action::Close, "close")],
    );
    let inner = window(frame, area, "Feed info", hint, theme);
    let lines = info.lines(areas::info_text_width(area), state.clock.zone, state.clock.now, &state.keymap);
    let rows = usize::from(inner.height);
    let scroll = info.scroll.min(lines.len().saturating_sub(rows));
    let shown: Vec<Line<'_>> = lines
        .iter()
        .skip(scroll)
        .take(rows)
        .map(|(label, text)| {
            Line::from(vec![
                Span::styled(format!(" {label:<width$} ", width = areas::INFO_LABEL_WIDTH), theme.label),
                Span::raw(text.clone()),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(shown), inner);
    position(frame, area, scroll, rows, lines.len(), theme);
}

fn prompt(frame: &mut Frame<'_>, state: &State, theme: &Theme, prompt: &Prompt) {
    let area = frame.area();
    let popup = layout::centered(area, area.width.saturating_sub(10).clamp(30, 90), 7);
    let hint = hints(&state.keymap, Context::Prompt, &[(Action::Accept, "accept"), (Action::Close, "cancel")]);
    let inner = window(frame, popup, &prompt.title, hint, theme);
    let width = usize::from(inner.width.saturating_sub(3)).max(1);
    // The text exactly as typed (a prompt accepts no control characters), scrolled so the cursor stays in view.
    let chars: Vec<char> = prompt.input.text().chars().collect();
    let cursor = prompt.input.cursor_chars().min(chars.len());
    let width_of = |cs: &[char]| cs.iter().map(|c| c.width().unwrap_or(0)).sum::<usize>();
    let mut start = 0;
    while width_of(&chars[start..cursor]) >= width {
        start += 1;
    }
    let mut visible = String::new();
    let mut used = 0;
    for c in &chars[start..] {
        let w = c.width().unwrap_or(0);
        if used + w > width {
            break;
        }
        visible.push(*c);
        used += w;
    }
    let mut lines = vec![
        Line::from(Span::styled(one_line(&prompt.hint, 300), theme.hint)),
        Line::from(vec![
            Span::raw("> "),
            // A selected earlier answer, highlighted: typing replaces it.
            Span::styled(visible, if prompt.input.is_selected() { theme.input.reversed() } else { theme.input }),
        ]),
    ];
    if let Some(error) = &prompt.error {
        lines.push(Line::from(Span::styled(one_line(error, 300), theme.error)));
    }
    // The hint may wrap; the input line is wherever it lands.
    let hint_rows = one_line(&prompt.hint, 300).width().div_ceil(usize::from(inner.width).max(1)).max(1) as u16;
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    let x = inner.x + 2 + width_of(&chars[start..cursor]) as u16;
    let y = (inner.y + hint_rows).min(inner.y + inner.height.saturating_sub(1));
    frame.set_cursor_position((x.min(inner.x + inner.width.saturating_sub(1)), y));
}

fn picker(frame: &mut Frame<'_>, state: &State, theme: &Theme, picker: &Picker) {
    let area = frame.area();
    let height = (picker.candidates.len() * 2 + 2) as u16;
    let popup = layout::centered(area, area.width.saturating_sub(8).max(40), height.min(area.height));
    let hint = hints(
        &state.keymap,
        Context::Picker,
        &[(Action::Down, "move"), (Action::Accept, "or 1–9 subscribe"), (Action::Close, "cancel")],
    );
    let inner = window(frame, popup, "Several feeds: choose one", hint, theme);
    let width = usize::from(inner.width);
    let mut lines: Vec<Line<'_>> = Vec::new();
    for (i, c) in picker.candidates.iter().enumerate() {
        let style = if i == picker.cursor.index { selection(true, theme) } else { theme.unread };
        // Say which of them is already a subscription (choosing it again adds nothing).
        let have = if state.feeds.feeds.iter().any(|f| f.url == c.url) { " · already subscribed" } else { "" };
        let name = one_line(c.title.as_deref().unwrap_or("(untitled)"), 200);
        let title = format!(" {}. {name} ({}){have}", i + 1, c.kind.as_str());
        lines.push(Line::from(Span::styled(fit(&title, width), style)));
        let detail = format!("    {}  · {}", one_line(&c.url, 500), c.found_by.describe());
        lines.push(Line::from(Span::styled(fit(&detail, width), theme.hint)));
    }
    let visible = usize::from(inner.height);
    let skip = (picker.cursor.index * 2 + 2).saturating_sub(visible);
    frame.render_widget(Paragraph::new(lines.into_iter().skip(skip).collect::<Vec<_>>()), inner);
}

fn confirm(frame: &mut Frame<'_>, state: &State, theme: &Theme, confirm: &Confirm) {
    let area = frame.area();
    let popup = layout::centered(area, area.width.saturating_sub(10).clamp(30, 80), 6);
    let choices: &[(Action, &str)] = match confirm.action {
        Confirmed::DeleteFolder(_) => {
            &[(Action::Yes, "move up"), (Action::DeleteAll, "delete all"), (Action::No, "no")]
        }
        _ => &[(Action::Yes, "yes"), (Action::No, "no")],
    };
    let hint = hints(&state.keymap, Context::Confirm, choices);
    let inner = window(frame, popup, "Are you sure?", hint, theme);
    frame.render_widget(Paragraph::new(one_line(&confirm.question, 500)).wrap(Wrap { trim: true }), inner);
}

fn report(frame: &mut Frame<'_>, state: &State, theme: &Theme, report: &Report) {
    let (width, height) = state.viewport;
    let area = areas::report(width, height, report.lines.len());
    let inner = window(frame, area, &report.title, scroll_hints(state, Context::Report, Action::Close), theme);
    let lines = report.wrapped(inner.width);
    let rows = usize::from(inner.height);
    let scroll = report.scroll.min(lines.len().saturating_sub(rows));
    let shown: Vec<Line<'_>> = lines.into_iter().skip(scroll).take(rows).map(Line::from).collect();
    let total = report.wrapped(inner.width).len();
    frame.render_widget(Paragraph::new(shown), inner);
    position(frame, area, scroll, rows, total, theme);
}
