//! Geometry: how a terminal of a given size is split into panes, for the state machine (which needs list
//! heights and the article's width) and for drawing (which needs the rectangles). Pure arithmetic.
//!
//! Wide terminals show three panes side by side once an article is open (before, the entry list takes the
//! article's room); medium ones the two lists, or the article alone while it has the focus; narrow ones only the
//! pane with the focus. Zoom shows the focused pane alone at any size.

use super::Pane;
use ratatui::layout::Rect;

/// At least this many columns show all three panes.
pub const THREE_PANES_MIN_WIDTH: u16 = 120;
/// At least this many columns show the two lists side by side.
pub const TWO_PANES_MIN_WIDTH: u16 = 70;

/// How the article's text is placed in its pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextColumn {
    /// The widest a line of text gets, in columns (lines of 150 characters are hard to read).
    pub max_width: u16,
    /// Centre the column in a wider pane, instead of keeping it at the left.
    pub centered: bool,
}

impl Default for TextColumn {
    fn default() -> TextColumn {
        TextColumn { max_width: 100, centered: true }
    }
}

/// The rectangles of the screen; a pane that is not shown is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Screen {
    pub feeds: Option<Rect>,
    pub entries: Option<Rect>,
    pub article: Option<Rect>,
    pub status: Rect,
}

impl Screen {
    /// The pane at a cell, if any.
    pub fn pane_at(&self, column: u16, row: u16) -> Option<Pane> {
        let hit = |r: Option<Rect>| r.is_some_and(|r| r.contains(ratatui::layout::Position { x: column, y: row }));
        if hit(self.feeds) {
            Some(Pane::Feeds)
        } else if hit(self.entries) {
            Some(Pane::Entries)
        } else if hit(self.article) {
            Some(Pane::Article)
        } else {
            None
        }
    }

    pub fn pane(&self, pane: Pane) -> Option<Rect> {
        match pane {
            Pane::Feeds => self.feeds,
            Pane::Entries => self.entries,
            Pane::Article => self.article,
        }
    }
}

/// Splits a terminal of `width` × `height` for the pane that has the focus; `article`: an article is open (or
/// being opened), so a wide terminal has something for its third pane.
pub fn screen(width: u16, height: u16, focus: Pane, zoom: bool, article: bool) -> Screen {
    let main = Rect::new(0, 0, width, height.saturating_sub(1));
    let status = Rect::new(0, height.saturating_sub(1), width, height.min(1));
    let alone = |pane: Pane| {
        let mut s = Screen { feeds: None, entries: None, article: None, status };
        match pane {
            Pane::Feeds => s.feeds = Some(main),
            Pane::Entries => s.entries = Some(main),
            Pane::Article => s.article = Some(main),
        }
        s
    };
    if zoom || width < TWO_PANES_MIN_WIDTH {
        return alone(focus);
    }
    if width < THREE_PANES_MIN_WIDTH || !(article || focus == Pane::Article) {
        if focus == Pane::Article {
            return alone(Pane::Article);
        }
        let feeds_w = if width < THREE_PANES_MIN_WIDTH {
            (width * 30 / 100).clamp(20, 34)
        } else {
            (width * 20 / 100).clamp(20, 34)
        };
        let (feeds, entries) = split(main, feeds_w);
        return Screen { feeds: Some(feeds), entries: Some(entries), article: None, status };
    }
    let feeds_w = (width * 20 / 100).clamp(20, 34);
    let entries_w = (width * 34 / 100).clamp(36, 72);
    let (feeds, rest) = split(main, feeds_w);
    let (entries, article) = split(rest, entries_w);
    Screen { feeds: Some(feeds), entries: Some(entries), article: Some(article), status }
}

fn split(area: Rect, left: u16) -> (Rect, Rect) {
    let left = left.min(area.width);
    (Rect { width: left, ..area }, Rect { x: area.x + left, width: area.width - left, ..area })
}

/// Rows of items inside a pane (within its borders).
pub fn rows_inside(pane: Rect) -> usize {
    usize::from(pane.height.saturating_sub(2))
}

/// Where the article's text goes inside the article pane: within the borders, a column of margin each side,
/// at most `column.max_width` wide.
pub fn article_text(pane: Rect, column: TextColumn) -> Rect {
    let inner_x = pane.x + 2;
    let inner_w = pane.width.saturating_sub(4).max(1);
    let width = inner_w.min(column.max_width.max(20));
    let x = if column.centered { inner_x + (inner_w - width) / 2 } else { inner_x };
    Rect { x, y: pane.y + 1, width, height: pane.height.saturating_sub(2) }
}

/// A rectangle of at most `width` × `height`, centred in `area` (dialogs).
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

/// The window of a dialog that shows scrolling text (help, feed info, reports): nearly the whole screen.
pub fn text_dialog(width: u16, height: u16, wanted_width: u16, wanted_height: u16) -> Rect {
    let area = Rect::new(0, 0, width, height.saturating_sub(1));
    centered(area, wanted_width.min(width.saturating_sub(2).max(20)), wanted_height.min(area.height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_terminals_show_three_panes_that_fill_the_width() {
        let s = screen(160, 45, Pane::Feeds, false, true);
        let (f, e, a) = (s.feeds.unwrap(), s.entries.unwrap(), s.article.unwrap());
        assert_eq!(f.width + e.width + a.width, 160);
        assert!(f.x < e.x && e.x < a.x);
        assert_eq!(s.status, Rect::new(0, 44, 160, 1));
        assert!(e.width >= 50, "entry titles stay readable at 160 columns: {}", e.width);
    }

    /// Before an article is open the third pane would stand empty: the entry list has its room, and the feed
    /// list keeps its width (the panes do not jump when the article comes).
    #[test]
    fn wide_terminals_give_the_entry_list_the_room_of_an_article_not_open_yet() {
        let open = screen(140, 40, Pane::Entries, false, true);
        let none = screen(140, 40, Pane::Entries, false, false);
        assert!(none.article.is_none());
        assert_eq!(none.feeds, open.feeds);
        assert_eq!(none.entries.unwrap().width, 140 - open.feeds.unwrap().width);
        assert!(none.entries.unwrap().width > open.entries.unwrap().width + 50);
    }

    #[test]
    fn medium_terminals_show_the_lists_or_the_article_alone() {
        let s = screen(80, 24, Pane::Entries, false, true);
        assert!(s.feeds.is_some() && s.article.is_none());
        assert!(s.entries.unwrap().width >= 50, "titles get most of 80 columns");
        let s = screen(80, 24, Pane::Article, false, true);
        assert_eq!(s.article, Some(Rect::new(0, 0, 80, 23)));
        assert!(s.feeds.is_none() && s.entries.is_none());
    }

    #[test]
    fn narrow_terminals_and_zoom_show_the_focused_pane_alone() {
        let s = screen(50, 20, Pane::Entries, false, true);
        assert_eq!(s.entries, Some(Rect::new(0, 0, 50, 19)));
        assert!(s.feeds.is_none() && s.article.is_none());
        let s = screen(200, 50, Pane::Article, true, true);
        assert_eq!(s.article, Some(Rect::new(0, 0, 200, 49)));
    }

    #[test]
    fn the_article_text_is_capped_and_centred() {
        let pane = Rect::new(60, 0, 190, 40);
        let text = article_text(pane, TextColumn::default());
        assert_eq!(text.width, 100);
        assert_eq!(text.x, 62 + (186 - 100) / 2);
        let left = article_text(pane, TextColumn { max_width: 100, centered: false });
        assert_eq!(left.x, 62);
        let narrow = article_text(Rect::new(0, 0, 50, 20), TextColumn::default());
        assert_eq!(narrow.width, 46);
    }

    #[test]
    fn the_pane_under_a_cell_is_found() {
        let s = screen(160, 45, Pane::Feeds, false, true);
        let e = s.entries.unwrap();
        assert_eq!(s.pane_at(e.x + 1, 3), Some(Pane::Entries));
        assert_eq!(s.pane_at(0, 44), None, "the status bar is no pane");
    }
}
