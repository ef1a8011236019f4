//! Drawing the article's pictures: each one prepared for the terminal is drawn in the rows the article reserved
//! for it, cut at the pane's top and bottom edges when it is partly scrolled out (never over the pane's border,
//! the status bar or another pane); one on its way shows a note in its place. No picture is drawn under a
//! dialog. Where a picture was drawn in the last frame and is not any more, a protocol that leaves pixels on
//! the terminal (sixel, iTerm2) has its old rows erased, so no stale picture stays after a scroll, a resize, a
//! new entry or a dialog.
//!
//! Pure: the state, the shelf of prepared pictures and the last frame's places in; cells out.

use super::Theme;
use crate::app::State;
use crate::app::article::pictures::Known;
use crate::app::layout;
use crate::pictures::Shelf;
use ratatui::Frame;
use ratatui::buffer::{Buffer, CellDiffOption};
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Paragraph, Widget};
use ratatui_image::sliced::{SignedPosition, SlicedImage};
use std::num::NonZeroU16;
use unicode_width::UnicodeWidthStr;

/// What drawing needs besides the state: the prepared pictures, and where pictures were that are gone.
#[derive(Clone, Copy, Default)]
pub struct Canvas<'a> {
    pub shelf: Option<&'a Shelf>,
    /// Screen areas a picture covered in the last frame that no picture covers now, to erase.
    pub stale: &'a [Rect],
    /// Escape sequences deleting pictures from kitty's memory, written with this frame.
    pub deletes: &'a str,
}

/// A picture on screen: the visible part of it, and which picture at which size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub area: Rect,
    pub url: String,
    pub size: (u16, u16),
    /// Rows of it scrolled above the pane.
    pub cut_top: u16,
}

/// The article's text area on screen, when the article is shown and no dialog covers it.
fn text_area(state: &State) -> Option<Rect> {
    if state.dialog.is_some() {
        return None;
    }
    let area = state.screen().article?;
    Some(layout::article_text(area, state.text_column))
}

/// The pictures the state shows now, in the pane's rows, each as far as it is visible, with the row of its top
/// relative to the pane (negative when cut at the top).
fn visible(state: &State) -> Vec<(Placement, i32)> {
    let Some(text) = text_area(state) else { return Vec::new() };
    let Some(view) = state.article.view.as_ref() else { return Vec::new() };
    let mut out = Vec::new();
    for placed in &view.pictures {
        let Some((cols, rows)) = placed.size else { continue };
        let top = placed.row as i64 - view.scroll as i64;
        let bottom = top + i64::from(rows);
        if bottom <= 0 || top >= i64::from(text.height) {
            continue;
        }
        let (from, to) = (top.max(0) as u16, bottom.min(i64::from(text.height)) as u16);
        let area = Rect { x: text.x, y: text.y + from, width: cols.min(text.width), height: to - from };
        let cut_top = (-top).max(0) as u16;
        out.push((Placement { area, url: placed.picture.url.clone(), size: (cols, rows), cut_top }, top as i32));
    }
    out
}

/// The pictures drawn for this state: those shown and on the shelf.
pub fn placements(state: &State, shelf: Option<&Shelf>) -> Vec<Placement> {
    let Some(shelf) = shelf else { return Vec::new() };
    visible(state).into_iter().map(|(p, _)| p).filter(|p| shelf.get(&p.url, p.size).is_some()).collect()
}

/// Draws the article's pictures (after its text), or a note where one is on its way.
pub(super) fn draw(frame: &mut Frame<'_>, state: &State, theme: &Theme, canvas: &Canvas<'_>) {
    let Some(text) = text_area(state) else { return };
    for (placement, top) in visible(state) {
        let prepared = canvas.shelf.and_then(|s| s.get(&placement.url, placement.size));
        match prepared {
            Some(protocol) => {
                let position = SignedPosition { x: 0, y: top.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16 };
                SlicedImage::new(&protocol, position).render(text, frame.buffer_mut());
            }
            None if placement.cut_top == 0 => {
                let note = match state.pictures.known.get(&placement.url) {
                    Some(Known::Refused(_)) => continue,
                    _ => "◌ picture on its way…",
                };
                let row = Rect { height: 1, ..placement.area };
                let note = if note.width() > usize::from(row.width) { "◌" } else { note };
                frame.render_widget(Paragraph::new(Span::styled(note, theme.hint)), row);
            }
            None => {}
        }
    }
}

/// Writes `deletes` (escape sequences that draw nothing) with the frame: in front of the screen's first cell,
/// which is then written again whatever the last frame had there.
pub(super) fn send(buf: &mut Buffer, deletes: &str) {
    let at = (buf.area.x, buf.area.y);
    let Some(cell) = buf.cell_mut(at) else { return };
    let width = cell.symbol().width().clamp(1, usize::from(u16::MAX)) as u16;
    let symbol = format!("{deletes}{}", cell.symbol());
    cell.set_symbol(&symbol);
    cell.set_diff_option(CellDiffOption::ForcedWidth(NonZeroU16::new(width).unwrap_or(NonZeroU16::MIN)));
}

/// Erases, on a terminal that keeps a picture's pixels until told (sixel, iTerm2), the rows of `stale` areas that
/// no picture drawn now covers: the first cell of each such row starts with ECH (erase that many characters),
/// and ratatui writes every cell of the row again after it (they were covered by a picture, so they differ from
/// the last frame). Rows a picture covers now are cleared by that picture's own sequence.
pub(super) fn erase(buf: &mut Buffer, stale: &[Rect], now: &[Placement]) {
    for area in stale {
        let area = area.intersection(buf.area);
        for y in area.top()..area.bottom() {
            if now.iter().any(|p| p.area.top() <= y && y < p.area.bottom()) {
                continue;
            }
            let Some(cell) = buf.cell_mut((area.x, y)) else { continue };
            let width = cell.symbol().width().clamp(1, usize::from(u16::MAX)) as u16;
            let symbol = format!("\u{1b}[{}X{}", area.width, cell.symbol());
            cell.set_symbol(&symbol);
            cell.set_diff_option(CellDiffOption::ForcedWidth(NonZeroU16::new(width).unwrap_or(NonZeroU16::MIN)));
        }
    }
}
