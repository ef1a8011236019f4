//! Drawing: a pure function of [`State`] onto a ratatui frame. Three panes side by side (feeds, entries,
//! article), a status bar, and the help overlay. Nothing here changes state or does I/O.

use crate::app::{FeedListRow, KEYS, Overlay, Pane, Prompt, State};
use crate::render;
use crate::sanitize::one_line;
use crate::store::read::FeedInfo;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

/// The rectangles of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub feeds: Rect,
    pub entries: Rect,
    pub article: Rect,
    pub status: Rect,
}

/// Splits the screen: three panes over a one-line status bar.
pub fn layout(area: Rect) -> Areas {
    let [main, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    let w = main.width;
    let feeds_w = (w * 22 / 100).clamp(12.min(w), 36);
    let entries_w = (w * 32 / 100).clamp(16.min(w.saturating_sub(feeds_w)), 60);
    let [feeds, entries, article] =
        Layout::horizontal([Constraint::Length(feeds_w), Constraint::Length(entries_w), Constraint::Min(0)])
            .areas(main);
    Areas { feeds, entries, article, status }
}

/// Rows visible inside a list pane (or the article pane) for a terminal of `size`.
pub fn list_height(size: (u16, u16)) -> u16 {
    size.1.saturating_sub(3)
}

/// Columns the article body is rendered to (inside the borders and a one-column margin each side).
pub fn article_width(size: (u16, u16)) -> u16 {
    layout(Rect::new(0, 0, size.0, size.1)).article.width.saturating_sub(4).max(8)
}

pub use crate::text::{format_date, format_datetime, format_time};

pub fn draw(frame: &mut Frame<'_>, state: &State) {
    let areas = layout(frame.area());
    feeds_pane(frame, state, areas.feeds);
    entries_pane(frame, state, areas.entries);
    article_pane(frame, state, areas.article);
    status_bar(frame, state, areas.status);
    match &state.overlay {
        Some(Overlay::Help) => help_overlay(frame),
        Some(Overlay::FeedInfo { info, scroll, .. }) => feed_info_overlay(frame, info.as_deref(), *scroll, state.now),
        Some(Overlay::Prompt(prompt)) => prompt_overlay(frame, prompt),
        Some(Overlay::Picker { candidates, cursor, .. }) => picker_overlay(frame, candidates, *cursor),
        Some(Overlay::Confirm { question, .. }) => confirm_overlay(frame, question),
        Some(Overlay::Report { title, lines, scroll }) => report_overlay(frame, title, lines, *scroll),
        None => {}
    }
}

fn picker_overlay(frame: &mut Frame<'_>, candidates: &[crate::fetch::discovery::Found], cursor: usize) {
    let area = frame.area();
    let height = (candidates.len() * 2 + 2) as u16;
    let popup = centered(area, area.width.saturating_sub(8).max(40), height.min(area.height));
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(" Several feeds: choose one ")
        .title_bottom(" j/k move · Enter or 1–9 subscribe · Esc cancel ");
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let width = usize::from(inner.width);
    let mut lines: Vec<Line<'_>> = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        let style = if i == cursor { cursor_style(true) } else { Style::default().add_modifier(Modifier::BOLD) };
        let title =
            format!(" {}. {} ({})", i + 1, one_line(c.title.as_deref().unwrap_or("(untitled)"), 200), c.kind.as_str());
        lines.push(Line::from(Span::styled(fit(&title, width), style)));
        let detail = format!("    {}  · {}", one_line(&c.url, 500), c.found_by.describe());
        lines.push(Line::from(Span::styled(fit(&detail, width), Style::default().fg(Color::Gray))));
    }
    let visible = usize::from(inner.height);
    let skip = (cursor * 2 + 2).saturating_sub(visible);
    frame.render_widget(Paragraph::new(lines.into_iter().skip(skip).collect::<Vec<_>>()), inner);
}

fn confirm_overlay(frame: &mut Frame<'_>, question: &str) {
    let area = frame.area();
    let popup = centered(area, area.width.saturating_sub(10).clamp(30, 80), 5);
    frame.render_widget(Clear, popup);
    let block =
        Block::bordered().border_type(BorderType::Rounded).title(" Are you sure? ").title_bottom(" y yes · n no ");
    frame.render_widget(
        Paragraph::new(one_line(question, 500)).block(block).wrap(ratatui::widgets::Wrap { trim: true }),
        popup,
    );
}

fn report_overlay(frame: &mut Frame<'_>, title: &str, lines: &[String], scroll: usize) {
    let area = frame.area();
    let height = (lines.len() + 2) as u16;
    let popup = centered(area, area.width.saturating_sub(8).max(40), height.min(area.height.saturating_sub(2)).max(5));
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", one_line(title, 80)))
        .title_bottom(" j/k scroll · Esc close ");
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let scroll = scroll.min(lines.len().saturating_sub(usize::from(inner.height)));
    let shown: Vec<Line<'_>> =
        lines.iter().skip(scroll).map(|l| Line::from(crate::sanitize::strip_controls(l).into_owned())).collect();
    frame.render_widget(Paragraph::new(shown).wrap(ratatui::widgets::Wrap { trim: false }), inner);
}

/// A centered rectangle of at most `w` × `h` cells.
fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

fn feed_info_overlay(frame: &mut Frame<'_>, info: Option<&FeedInfo>, scroll: usize, now: i64) {
    let area = frame.area();
    let popup = centered(area, area.width.saturating_sub(8).max(40), area.height.saturating_sub(4).max(10));
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(" Feed info ")
        .title_bottom(" e force an encoding · j/k scroll · Esc close ");
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let Some(info) = info else {
        frame.render_widget(Paragraph::new("Loading…"), inner);
        return;
    };
    let width = usize::from(inner.width.saturating_sub(16)).max(10);
    let label = Style::default().fg(Color::Cyan).add_modifier(Modifier::BOLD);
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut field = |name: &str, value: String| {
        for (i, chunk) in
            render::wrap_text(&one_line(&value, 4000), width, render::Style::default()).into_iter().enumerate()
        {
            let text: String = chunk.into_iter().map(|s| s.text).collect();
            let name = if i == 0 { name } else { "" };
            lines.push(Line::from(vec![Span::styled(format!(" {name:<14} "), label), Span::raw(text)]));
        }
    };
    let row = &info.row;
    let when = |ts: Option<i64>| ts.map(format_datetime).unwrap_or_else(|| "never".into());
    field("Feed", row.title.clone());
    field("URL", row.url.clone());
    field("Site", row.site_url.clone().unwrap_or_else(|| "—".into()));
    field("Folder", row.folder.clone().unwrap_or_else(|| "—".into()));
    field("Entries", format!("{} ({} unread)", info.entries, row.unread));
    let status = row.last_status.map(|s| format!(" (HTTP {s})")).unwrap_or_default();
    field("Last fetched", format!("{}{status}", when(row.last_fetched_at)));
    field("Last success", when(info.last_success_at));
    if let Some(error) = &row.last_error {
        field("Last error", format!("[{}] {error}", row.error_kind.as_deref().unwrap_or("error")));
        field("Failures", format!("{} in a row", info.failures));
    }
    if row.dead {
        field("Status", "gone (HTTP 410): no automatic refreshes; r tries again".into());
    } else if let Some(at) = row.retry_after.filter(|at| *at > now) {
        field("Status", format!("retry after {}, not before (backoff or the server's request)", format_time(at)));
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
    field("Forced", row.encoding_forced.clone().unwrap_or_else(|| "no (press e to force one)".into()));
    for warning in &info.warnings {
        field("Reading", warning.clone());
    }
    let scroll = scroll.min(lines.len().saturating_sub(usize::from(inner.height)));
    frame.render_widget(Paragraph::new(lines.into_iter().skip(scroll).collect::<Vec<_>>()), inner);
}

fn prompt_overlay(frame: &mut Frame<'_>, prompt: &Prompt) {
    let area = frame.area();
    let popup = centered(area, area.width.saturating_sub(10).clamp(30, 90), 7);
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", one_line(&prompt.title, 80)))
        .title_bottom(" Enter accept · Esc cancel ");
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let width = usize::from(inner.width.saturating_sub(2)).max(1);
    // Scroll the text so the cursor stays in view.
    let chars: Vec<char> = one_line(prompt.input.text(), 4096).chars().collect();
    let cursor = prompt.input.cursor_chars().min(chars.len());
    let start = cursor.saturating_sub(width.saturating_sub(1));
    let visible: String = chars[start..].iter().take(width).collect();
    let mut lines = vec![
        Line::from(Span::styled(one_line(&prompt.hint, 300), Style::default().fg(Color::Gray))),
        Line::from(vec![Span::raw("> "), Span::styled(visible, Style::default().add_modifier(Modifier::BOLD))]),
    ];
    if let Some(error) = &prompt.error {
        lines.push(Line::from(Span::styled(one_line(error, 300), Style::default().fg(Color::Red))));
    }
    frame.render_widget(Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: true }), inner);
    let x = inner.x + 2 + u16::try_from(cursor - start).unwrap_or(0);
    frame.set_cursor_position((x.min(inner.x + inner.width.saturating_sub(1)), inner.y + 1));
}

fn pane_block(title: String, focused: bool) -> Block<'static> {
    let border = if focused { Style::default().fg(Color::Cyan) } else { Style::default().fg(Color::DarkGray) };
    Block::bordered()
        .border_type(if focused { BorderType::Thick } else { BorderType::Plain })
        .border_style(border)
        .title(Span::styled(title, Style::default().add_modifier(Modifier::BOLD)))
}

fn cursor_style(focused: bool) -> Style {
    if focused {
        Style::default().bg(Color::Cyan).fg(Color::Black)
    } else {
        Style::default().bg(Color::DarkGray).fg(Color::White)
    }
}

/// `text` cut to `width` columns (with an ellipsis) and padded to exactly `width`.
fn fit(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width {
            if width > 0 {
                while used + 1 > width {
                    let Some(last) = out.pop() else { break };
                    used -= unicode_width::UnicodeWidthChar::width(last).unwrap_or(0);
                }
                out.push('…');
                used += 1;
            }
            break;
        }
        out.push(c);
        used += w;
    }
    out.push_str(&" ".repeat(width.saturating_sub(used)));
    out
}

fn feeds_pane(frame: &mut Frame<'_>, state: &State, area: Rect) {
    let focused = state.focus == Pane::Feeds;
    let total_unread: i64 = state.feeds.iter().map(|f| f.unread).sum();
    let title = if total_unread > 0 { format!(" Feeds · {total_unread} unread ") } else { " Feeds ".to_string() };
    let block = pane_block(title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if !state.feeds_loaded {
        frame.render_widget(Paragraph::new("Loading…"), inner);
        return;
    }
    if state.rows.is_empty() {
        let hint = "No feeds yet.\nStart with --opml FILE, or run `tidings import FILE`.";
        frame.render_widget(Paragraph::new(hint).wrap(ratatui::widgets::Wrap { trim: true }), inner);
        return;
    }
    let width = usize::from(inner.width);
    let lines: Vec<Line<'_>> = state
        .rows
        .iter()
        .enumerate()
        .skip(state.feed_offset)
        .take(usize::from(inner.height))
        .map(|(i, row)| {
            let (marker, marker_style, name, count, indent, bold) = match row {
                FeedListRow::Folder { name, unread, collapsed, .. } => {
                    let arrow = if *collapsed { "▸" } else { "▾" };
                    (arrow.to_string(), Style::default(), one_line(name, 200), *unread, 0, true)
                }
                FeedListRow::Feed(index) => {
                    let feed = &state.feeds[*index];
                    let (marker, style) = if state.progress.active.contains(&feed.id) {
                        ("↻", Style::default().fg(Color::Yellow))
                    } else if feed.dead {
                        ("✗", Style::default().fg(Color::Red).add_modifier(Modifier::BOLD))
                    } else if feed.last_error.is_some() {
                        ("!", Style::default().fg(Color::Red).add_modifier(Modifier::BOLD))
                    } else if feed.encoding_overridden || feed.encoding_forced.is_some() {
                        ("~", Style::default().fg(Color::Yellow))
                    } else {
                        (" ", Style::default())
                    };
                    let indent = usize::from(feed.folder_id.is_some()) * 2;
                    (marker.to_string(), style, one_line(&feed.title, 300), feed.unread, indent, feed.unread > 0)
                }
            };
            // A feed that waits (backoff, Retry-After) says until when.
            let waiting = match row {
                FeedListRow::Feed(index) => state.feeds[*index].retry_after.filter(|at| *at > state.now),
                FeedListRow::Folder { .. } => None,
            };
            let count_text = match (waiting, count) {
                (Some(at), _) => format!(" retry {}", crate::text::format_time(at)),
                (None, c) if c > 0 => format!(" {c}"),
                _ => String::new(),
            };
            let name_width = width.saturating_sub(2 + indent + count_text.width());
            let mut style = if bold { Style::default().add_modifier(Modifier::BOLD) } else { Style::default() };
            if i == state.feed_cursor {
                style = style.patch(cursor_style(focused));
            }
            Line::from(vec![
                Span::styled(format!("{marker} "), marker_style),
                Span::styled(format!("{}{}{}", " ".repeat(indent), fit(&name, name_width), count_text), style),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn entries_pane(frame: &mut Frame<'_>, state: &State, area: Rect) {
    let focused = state.focus == Pane::Entries;
    let title = match state.selected_list() {
        Some(crate::app::ListKey::Feed(_)) => state.selected_feed().map(|f| one_line(&f.title, 80)).unwrap_or_default(),
        Some(crate::app::ListKey::Folder(_)) => match state.rows.get(state.feed_cursor) {
            Some(FeedListRow::Folder { name, .. }) => one_line(name, 80),
            _ => String::new(),
        },
        None => String::new(),
    };
    let block = pane_block(format!(" Entries · {title} "), focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if state.entries.is_empty() {
        let text = match state.selected_feed() {
            Some(feed) if feed.last_error.is_some() => {
                format!(
                    "Nothing stored yet.\n\nLast refresh failed:\n{}",
                    one_line(feed.last_error.as_deref().unwrap_or(""), 500)
                )
            }
            Some(_) if state.entries_of.is_none() => "Loading…".to_string(),
            Some(feed) if feed.last_fetched_at.is_none() => "Not fetched yet; press r to refresh.".to_string(),
            _ => "No entries.".to_string(),
        };
        frame.render_widget(Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: false }), inner);
        return;
    }
    let width = usize::from(inner.width);
    let lines: Vec<Line<'_>> = state
        .entries
        .iter()
        .enumerate()
        .skip(state.entry_offset)
        .take(usize::from(inner.height))
        .map(|(i, e)| {
            let marker = if e.read { "  " } else { "● " };
            let date =
                if width >= 36 { format_date(e.date) } else { format_date(e.date).get(5..).unwrap_or("").to_string() };
            let title = e.title.as_deref().map(|t| one_line(t, 400)).unwrap_or_else(|| "(untitled)".into());
            let rest = width.saturating_sub(marker.width() + date.width() + 1);
            let mut style =
                if e.read { Style::default().fg(Color::Gray) } else { Style::default().add_modifier(Modifier::BOLD) };
            if i == state.entry_cursor {
                style = style.patch(cursor_style(focused));
            }
            Line::from(vec![
                Span::styled(marker, Style::default().fg(Color::Cyan)),
                Span::styled(format!("{date} {}", fit(&title, rest)), style),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn to_ratatui_style(s: render::Style) -> Style {
    let mut style = Style::default();
    if s.bold {
        style = style.add_modifier(Modifier::BOLD);
    }
    if s.italic {
        style = style.add_modifier(Modifier::ITALIC);
    }
    if s.strike {
        style = style.add_modifier(Modifier::CROSSED_OUT);
    }
    if s.code {
        style = style.fg(Color::Yellow);
    }
    if s.link {
        style = style.fg(Color::Blue).add_modifier(Modifier::UNDERLINED);
    }
    if s.image {
        style = style.fg(Color::Magenta);
    }
    if s.heading {
        style = style.fg(Color::Cyan).add_modifier(Modifier::BOLD);
    }
    if s.quote {
        style = style.fg(Color::Green);
    }
    if s.dim {
        style = style.fg(Color::DarkGray);
    }
    style
}

fn article_pane(frame: &mut Frame<'_>, state: &State, area: Rect) {
    let focused = state.focus == Pane::Article;
    let Some(article) = &state.article else {
        let block = pane_block(" Article ".into(), focused);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let hint =
            if state.wanted_article.is_some() { "Loading…" } else { "Select an entry and press Enter to read it." };
        frame.render_widget(Paragraph::new(hint).wrap(ratatui::widgets::Wrap { trim: true }), inner);
        return;
    };
    let total = article.lines.len();
    let height = usize::from(area.height.saturating_sub(2));
    let position = if total > height {
        format!(" {}% ", ((article.scroll + height).min(total) * 100) / total.max(1))
    } else {
        String::new()
    };
    let block = pane_block(" Article ".into(), focused).title_bottom(Line::from(position).right_aligned());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let body = Rect { x: inner.x + 1, width: inner.width.saturating_sub(2), ..inner };
    let lines: Vec<Line<'_>> = article
        .lines
        .iter()
        .skip(article.scroll)
        .take(usize::from(body.height))
        .map(|spans| {
            Line::from(
                spans.iter().map(|s| Span::styled(s.text.as_str(), to_ratatui_style(s.style))).collect::<Vec<_>>(),
            )
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

fn status_bar(frame: &mut Frame<'_>, state: &State, area: Rect) {
    let mut spans = Vec::new();
    let p = &state.progress;
    if !p.is_idle() {
        let failed = if p.failed > 0 { format!(", {} failed", p.failed) } else { String::new() };
        spans.push(Span::styled(
            format!(" Refreshing {}/{}{failed} ", p.done, p.total),
            Style::default().fg(Color::Black).bg(Color::Yellow),
        ));
    } else if let Some(message) = &state.message {
        spans.push(Span::raw(format!(" {} ", one_line(message, 200))));
    }
    if let Some(error) = &state.last_error {
        spans.push(Span::styled(format!(" {} ", one_line(error, 300)), Style::default().fg(Color::Red)));
    }
    let help = " ? help  q quit ";
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let width = usize::from(area.width);
    if used + help.len() < width {
        spans.push(Span::raw(" ".repeat(width - used - help.len())));
        spans.push(Span::styled(help, Style::default().fg(Color::DarkGray)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(Style::default().bg(Color::Black)), area);
}

fn help_overlay(frame: &mut Frame<'_>) {
    let area = frame.area();
    let key_width = KEYS.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    let text_width = KEYS.iter().map(|(_, d)| d.width()).max().unwrap_or(0);
    let w = ((key_width + text_width + 7) as u16).min(area.width);
    let h = ((KEYS.len() + 2) as u16).min(area.height);
    let popup = Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h };
    frame.render_widget(Clear, popup);
    let block =
        Block::bordered().border_type(BorderType::Rounded).title(" Keys ").title_bottom(" press ? or q to close ");
    let lines: Vec<Line<'_>> = KEYS
        .iter()
        .map(|(k, d)| {
            Line::from(vec![
                Span::styled(
                    format!(" {k:<key_width$}  "),
                    Style::default().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                ),
                Span::raw(*d),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_pads_and_cuts_by_display_width() {
        assert_eq!(fit("abc", 5), "abc  ");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("日本語", 4), "日… ");
    }

    #[test]
    fn layout_gives_three_panes_and_a_status_line() {
        let a = layout(Rect::new(0, 0, 120, 40));
        assert_eq!(a.status.height, 1);
        assert_eq!(a.feeds.width + a.entries.width + a.article.width, 120);
        assert!(a.feeds.x < a.entries.x && a.entries.x < a.article.x);
        assert_eq!(article_width((120, 40)), a.article.width - 4);
    }
}
