//! The three panes: the feed list, the entry list and the article.

use super::{Theme, fit, pane_block, selection};
use crate::app::keymap::{Action, Context};
use crate::app::{FeedListRow, ListKey, Pane, State, layout};
use crate::render;
use crate::sanitize::one_line;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

/// The fewest columns a feed's name keeps beside its retry time; with less, the time goes (the feed info and the
/// health view say it).
const MIN_NAME_BESIDE_RETRY: usize = 12;

pub(super) fn feeds(frame: &mut Frame<'_>, state: &State, theme: &Theme, area: Rect) {
    let focused = state.focus == Pane::Feeds;
    let list = &state.feeds;
    let total_unread = list.total_unread();
    let title = if total_unread > 0 { format!(" Feeds · {total_unread} unread ") } else { " Feeds ".to_string() };
    let block = pane_block(title, focused, theme);
    let inner = block.inner(area);
    let block = super::with_position(block, list.cursor.index, list.rows.len(), inner.height, theme);
    frame.render_widget(block, area);
    if !list.loaded {
        frame.render_widget(Paragraph::new(Span::styled("Loading…", theme.hint)), inner);
        return;
    }
    if list.feeds.is_empty() && list.folders.is_empty() {
        let add = state.keymap.hint(Context::Feeds, Action::AddFeed);
        let hint =
            format!("No feeds yet.\n\nPress {add} to add one, start with --opml FILE, or run `tidings import FILE`.");
        frame.render_widget(Paragraph::new(hint).style(theme.hint).wrap(Wrap { trim: true }), inner);
        return;
    }
    let width = usize::from(inner.width);
    let lines: Vec<Line<'_>> = list
        .rows
        .iter()
        .enumerate()
        .skip(list.cursor.offset)
        .take(usize::from(inner.height))
        .map(|(i, row)| {
            let (marker, marker_style, name, count, indent, mut style) = match row {
                FeedListRow::View(view) => {
                    let (icon, count) = match view {
                        ListKey::All => ("≡", list.views.all),
                        ListKey::Unread => ("●", list.views.unread),
                        ListKey::Starred => ("★", list.views.starred),
                        // A saved view shows its unread entries, once counted (off the loop's thread).
                        ListKey::View(i) => ("◆", list.saved.get(*i).and_then(|v| v.unread).unwrap_or(-1)),
                        _ => ("⌕", list.search.as_ref().and_then(|s| s.count).map_or(-1, |c| c as i64)),
                    };
                    (icon, theme.unread_marker, state.list_name(*view), count, 0, theme.folder)
                }
                FeedListRow::Folder { name, unread, collapsed, depth, .. } => {
                    let arrow = if *collapsed { "▸" } else { "▾" };
                    (arrow, Style::default(), one_line(name, 200), *unread, depth * 2, theme.folder)
                }
                FeedListRow::Feed { index, depth } => {
                    let feed = &list.feeds[*index];
                    let (marker, style) = if state.progress.active.contains(&feed.id) {
                        ("↻", theme.refreshing)
                    } else if feed.dead {
                        ("✗", theme.dead)
                    } else if feed.last_error.is_some() {
                        ("!", theme.error)
                    } else if feed.moved_to.is_some() {
                        // A move its redirects propose, waiting to be accepted in the health view.
                        ("→", theme.error)
                    } else if feed.paused {
                        ("‖", theme.hint)
                    } else if feed.encoding_overridden || feed.encoding_forced.is_some() {
                        ("~", theme.overridden)
                    } else if feed.full_text {
                        // `T`: new entries are read in full from their pages.
                        ("¶", theme.hint)
                    } else {
                        (" ", Style::default())
                    };
                    let text_style = if feed.unread > 0 { theme.unread } else { theme.read };
                    (marker, style, one_line(&feed.title, 300), feed.unread, depth * 2, text_style)
                }
            };
            // A feed that waits (backoff, Retry-After) says until when.
            let waiting = match row {
                FeedListRow::Feed { index, .. } => list.feeds[*index].retry_at.filter(|at| *at > state.clock.now),
                _ => None,
            };
            // Until when a feed waits, only where its name keeps room to be read (its `!` says it is in trouble).
            let room_for_retry = |text: &str| width.saturating_sub(2 + indent + text.width()) >= MIN_NAME_BESIDE_RETRY;
            let retry = waiting.map(|at| format!(" retry {}", state.clock.zone.moment(at, state.clock.now)));
            let count_text = match (retry.filter(|r| room_for_retry(r)), row, count) {
                (Some(retry), _, _) => retry,
                // Views show their count even when it is 0; a search still running shows nothing yet.
                (None, FeedListRow::View(_), c) if c >= 0 => format!(" {c}"),
                (None, _, c) if c > 0 => format!(" {c}"),
                _ => String::new(),
            };
            let name_width = width.saturating_sub(2 + indent + count_text.width());
            let mut count_style = theme.count;
            if i == list.cursor.index {
                style = style.patch(selection(focused, theme));
                count_style = count_style.patch(selection(focused, theme));
            }
            Line::from(vec![
                Span::styled(format!("{marker} "), marker_style),
                Span::styled(format!("{}{}", " ".repeat(indent), super::fit_name(&name, name_width)), style),
                Span::styled(count_text, count_style),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The entry list's date column for a pane `width` wide: the full date, then month and day (with the year's
/// last two digits when the list shows entries of another year than `now`'s: `17-11-23`), then nothing, so the
/// titles keep most of a narrow pane.
fn date_column(zone: crate::clock::Zone, ts: i64, width: usize, other_years: bool) -> String {
    match width {
        w if w >= 44 => format!("{} ", zone.date(ts)),
        w if w >= 28 && other_years => format!("{} ", zone.format(ts, "%y-%m-%d")),
        w if w >= 28 => format!("{} ", zone.format(ts, "%m-%d")),
        _ => String::new(),
    }
}

pub(super) fn entries(frame: &mut Frame<'_>, state: &State, theme: &Theme, area: Rect) {
    let focused = state.focus == Pane::Entries;
    let list = &state.entries;
    let name = list.of.or(state.feeds.selected_list()).map(|l| state.list_name(l)).unwrap_or_default();
    let mut title = match (list.loaded, list.len()) {
        (false, _) => format!(" {name} "),
        (true, 1) => format!(" {name} · 1 entry "),
        (true, n) => format!(" {name} · {n} entries "),
    };
    if list.loaded && (list.unread_only || list.sort != crate::model::Sort::Newest) {
        let mut how = Vec::new();
        if list.unread_only {
            how.push("unread only");
        }
        if list.sort != crate::model::Sort::Newest {
            how.push(crate::app::entries::sort_words(list.sort));
        }
        title.push_str(&format!("· {} ", how.join(", ")));
    }
    let block = pane_block(title, focused, theme);
    let inner = block.inner(area);
    let block = super::with_position(block, list.cursor.index, list.len(), inner.height, theme);
    frame.render_widget(block, area);
    if list.is_empty() {
        let text = match state.feeds.selected_feed() {
            _ if list.error.is_some() => list.error.clone().unwrap_or_default(),
            Some(feed) if feed.last_error.is_some() => format!(
                "Nothing stored yet.\n\nLast refresh failed:\n{}",
                one_line(feed.last_error.as_deref().unwrap_or(""), 500)
            ),
            _ if state.feeds.selected_list().is_none() => String::new(),
            _ if !list.loaded => "Loading…".to_string(),
            Some(feed) if feed.last_fetched_at.is_none() => {
                format!(
                    "Not fetched yet{}.",
                    state.keymap.say(Context::General, Action::Refresh, "; press {} to refresh")
                )
            }
            _ if list.unread_only => format!(
                "Nothing unread here{}.",
                state.keymap.say(Context::General, Action::UnreadOnly, " ({} shows every entry)")
            ),
            _ => "No entries.".to_string(),
        };
        frame.render_widget(Paragraph::new(text).style(theme.hint).wrap(Wrap { trim: false }), inner);
        return;
    }
    let width = usize::from(inner.width);
    // The year is shown when the rows on screen are not all of this year.
    let year = |ts: i64| state.clock.zone.format(ts, "%Y");
    let this_year = year(state.clock.now);
    let other_years = (list.cursor.offset..list.len())
        .take(usize::from(inner.height))
        .filter_map(|i| list.row(i))
        .any(|row| year(row.date) != this_year);
    let show_feed = matches!(
        list.of,
        Some(
            ListKey::Folder(_) | ListKey::All | ListKey::Unread | ListKey::Starred | ListKey::Search | ListKey::View(_)
        )
    );
    // Across feeds, a column says whose entry it is (newsboat's query feeds do the same) — unless every entry of
    // a folder is one feed's (a folder of one podcast), where it would say the same on every row. (A search or a
    // view says it even then: which feed matched is news there.)
    let one_feed =
        || matches!(list.of, Some(ListKey::Folder(_))) && list.refs.windows(2).all(|w| w[0].feed_id == w[1].feed_id);
    let feed_column = if show_feed && width >= 36 && !one_feed() { (width / 4).clamp(8, 20) } else { 0 };
    let lines: Vec<Line<'_>> = (list.cursor.offset..list.len())
        .take(usize::from(inner.height))
        .map(|i| {
            let r = list.refs[i];
            // Read state and star are separate columns: a starred entry still says whether it is read.
            // The third column says the entry is marked for what comes next (`x`), else that its file is on disk.
            let third = if list.marked.contains(&r.id) {
                '▶'
            } else if state.downloads.on_disk.contains(&r.id) {
                '↓'
            } else {
                ' '
            };
            let marker = format!("{}{}{third} ", if r.read { ' ' } else { '●' }, if r.starred { '★' } else { ' ' });
            let (date, title) = match list.row(i) {
                Some(row) => (
                    date_column(state.clock.zone, row.date, width, other_years),
                    row.title.as_deref().map(|t| one_line(t, 400)).unwrap_or_else(|| "(untitled)".into()),
                ),
                None => (" ".repeat(date_column(state.clock.zone, 0, width, other_years).width()), "…".to_string()),
            };
            let feed = if feed_column > 0 {
                let name = state.feeds.feed(r.feed_id).map(|f| one_line(&f.title, 200)).unwrap_or_default();
                let name = fit(&name, feed_column - 1);
                format!("{name}{} ", " ".repeat((feed_column - 1).saturating_sub(name.width())))
            } else {
                String::new()
            };
            let rest = width.saturating_sub(marker.width() + date.width() + feed.width());
            let mut style = if r.read { theme.read } else { theme.unread };
            let mut date_style = theme.date;
            if i == list.cursor.index {
                style = style.patch(selection(focused, theme));
                date_style = date_style.patch(selection(focused, theme));
            }
            Line::from(vec![
                Span::styled(marker, theme.unread_marker),
                Span::styled(date, date_style),
                Span::styled(feed, date_style),
                Span::styled(fit(&title, rest), style),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn span_style(s: render::Style, theme: &Theme) -> Style {
    use ratatui::style::Modifier;
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
        style = style.patch(theme.code);
    }
    if s.link {
        style = style.patch(theme.link);
    }
    if s.image {
        style = style.patch(theme.image);
    }
    if s.heading {
        style = style.patch(theme.heading);
    }
    if s.quote {
        style = style.patch(theme.quote);
    }
    if s.dim {
        style = style.patch(theme.hint);
    }
    style
}

/// A rendered line as styled spans, the byte ranges in `marks` (of the line's text) in the theme's match style.
fn marked_spans<'a>(spans: &'a [render::Span], marks: &[std::ops::Range<usize>], theme: &Theme) -> Vec<Span<'a>> {
    let mut out = Vec::with_capacity(spans.len());
    let mut start = 0;
    for span in spans {
        let style = span_style(span.style, theme);
        let end = start + span.text.len();
        let mut at = 0;
        for mark in marks.iter().filter(|m| m.start < end && m.end > start) {
            let from = (mark.start.max(start) - start).max(at);
            let to = mark.end.min(end) - start;
            if from >= to || !span.text.is_char_boundary(from) || !span.text.is_char_boundary(to) {
                continue;
            }
            if from > at {
                out.push(Span::styled(&span.text[at..from], style));
            }
            out.push(Span::styled(&span.text[from..to], style.patch(theme.matched)));
            at = to;
        }
        if at < span.text.len() {
            out.push(Span::styled(&span.text[at..], style));
        }
        start = end;
    }
    out
}

pub(super) fn article(frame: &mut Frame<'_>, state: &State, theme: &Theme, area: Rect) {
    let focused = state.focus == Pane::Article;
    let Some(view) = &state.article.view else {
        let block = pane_block(" Article ".into(), focused, theme);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let hint = if state.article.wanted.is_some() {
            "Loading…".to_string()
        } else {
            let open = state.keymap.hint(Context::Entries, Action::Open);
            format!("Select an entry and press {open} to read it.")
        };
        frame.render_widget(Paragraph::new(hint).style(theme.hint).wrap(Wrap { trim: true }), inner);
        return;
    };
    let text = layout::article_text(area, state.text_column);
    let total = view.lines.len();
    let height = usize::from(text.height);
    let position = if total > height {
        format!(" {}% ", ((view.scroll + height).min(total) * 100) / total.max(1))
    } else {
        String::new()
    };
    let block = pane_block(" Article ".into(), focused, theme).title_bottom(Line::from(position).right_aligned());
    frame.render_widget(block, area);
    let lines: Vec<Line<'_>> = view
        .lines
        .iter()
        .enumerate()
        .skip(view.scroll)
        .take(height)
        .map(|(i, spans)| {
            let marks = view.marks.get(i).map_or(&[][..], Vec::as_slice);
            Line::from(marked_spans(spans, marks, theme))
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_year_is_kept_when_the_list_spans_years() {
        let zone = crate::clock::Zone::utc();
        let nov_2017 = 1_511_395_200; // 2017-11-23
        assert_eq!(date_column(zone, nov_2017, 30, false), "11-23 ");
        assert_eq!(date_column(zone, nov_2017, 30, true), "17-11-23 ");
        assert_eq!(date_column(zone, nov_2017, 50, true), "2017-11-23 ");
    }
}
