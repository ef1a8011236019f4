//! Drawing: a pure function of the [`State`] and a [`Theme`] onto a ratatui frame. The panes the layout shows
//! ([`crate::app::layout`]), the status bar, and the dialog on top, if any. Nothing here changes state, reads
//! the clock or does I/O.

mod dialogs;
mod downloads;
mod health;
mod panes;
pub mod pictures;
mod status;
pub mod theme;

use crate::app::State;
use crate::app::keymap::{Action, Context, Keymap};
use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType};
pub use theme::Theme;

pub fn draw(frame: &mut Frame<'_>, state: &State, theme: &Theme) {
    draw_with(frame, state, theme, &pictures::Canvas::default());
}

/// [`draw`], with the article's pictures from `canvas` (and the rows of pictures that are gone erased).
pub fn draw_with(frame: &mut Frame<'_>, state: &State, theme: &Theme, canvas: &pictures::Canvas<'_>) {
    let screen = state.screen();
    if let Some(area) = screen.feeds {
        panes::feeds(frame, state, theme, area);
    }
    if let Some(area) = screen.entries {
        panes::entries(frame, state, theme, area);
    }
    if let Some(area) = screen.article {
        panes::article(frame, state, theme, area);
        pictures::draw(frame, state, theme, canvas);
    }
    status::bar(frame, state, theme, screen.status);
    if let Some(dialog) = &state.dialog {
        dialogs::draw(frame, state, theme, dialog);
    }
    if !canvas.stale.is_empty() {
        let now = pictures::placements(state, canvas.shelf);
        pictures::erase(frame.buffer_mut(), canvas.stale, &now);
    }
    if !canvas.deletes.is_empty() {
        pictures::send(frame.buffer_mut(), canvas.deletes);
    }
}

/// The frame of a pane, its title in bold, thicker and coloured when it has the focus.
fn pane_block(title: String, focused: bool, theme: &Theme) -> Block<'static> {
    Block::bordered()
        .border_type(if focused { BorderType::Thick } else { BorderType::Plain })
        .border_style(if focused { theme.border_focused } else { theme.border })
        .title(Span::styled(title, theme.title))
}

/// Where the cursor is in a list longer than its pane (` 12/4031 `, on the pane's bottom border), so that a
/// long list says how long it is and how far down one is; a list that fits says nothing.
fn with_position(block: Block<'static>, index: usize, len: usize, rows: u16, theme: &Theme) -> Block<'static> {
    if len <= usize::from(rows) {
        return block;
    }
    let shown = format!(" {}/{len} ", (index + 1).min(len));
    block.title_bottom(Line::from(Span::styled(shown, theme.hint)).right_aligned())
}

/// The frame of a dialog: a title, and key hints along the bottom.
fn dialog_block(title: &str, hints: String, theme: &Theme) -> Block<'static> {
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.dialog_border)
        .title(Span::styled(format!(" {} ", crate::sanitize::one_line(title, 80)), theme.dialog_title));
    if hints.is_empty() { block } else { block.title_bottom(Span::styled(format!(" {hints} "), theme.hint)) }
}

/// Key hints for the bottom of a dialog or the status bar: "j move · Enter subscribe", from the keymap, leaving
/// out actions that have no key.
fn hints(keymap: &Keymap, context: Context, items: &[(Action, &str)]) -> String {
    items
        .iter()
        .filter_map(|(action, what)| {
            let key = keymap.hint(context, *action);
            (!key.is_empty()).then(|| format!("{key} {what}"))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

fn selection(focused: bool, theme: &Theme) -> Style {
    if focused { theme.selection } else { theme.selection_unfocused }
}

/// `text` cut to `width` columns (with an ellipsis) and padded to exactly `width`. It is cut between whole
/// characters as the terminal draws them (grapheme clusters, each as wide as ratatui counts it): never inside an
/// emoji sequence (`👩‍💻` is three code points joined), nor between a letter and its accent.
fn fit(text: &str, width: usize) -> String {
    use unicode_segmentation::UnicodeSegmentation;
    use unicode_width::UnicodeWidthStr;
    let mut out = String::new();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut used = 0;
    for grapheme in text.graphemes(true) {
        let w = grapheme.width();
        if used + w > width {
            if width > 0 {
                while used + 1 > width {
                    let Some((at, w)) = kept.pop() else { break };
                    out.truncate(at);
                    used -= w;
                }
                out.push('…');
                used += 1;
            }
            break;
        }
        kept.push((out.len(), w));
        out.push_str(grapheme);
        used += w;
    }
    out.push_str(&" ".repeat(width.saturating_sub(used)));
    out
}

/// A feed's name that is its address (it has no title) as [`fit`] gives it, but without the scheme and, when it
/// is too long, cut in the middle: the end of an address (`…/missing.xml`) is what tells one feed from the
/// next on the same host.
fn fit_name(name: &str, width: usize) -> String {
    use unicode_segmentation::UnicodeSegmentation;
    use unicode_width::UnicodeWidthStr;
    let Some(address) = name.strip_prefix("https://").or_else(|| name.strip_prefix("http://")) else {
        return fit(name, width);
    };
    if address.width() <= width || width < 8 {
        return fit(address, width);
    }
    let graphemes: Vec<&str> = address.graphemes(true).collect();
    let (head_room, mut used) = (width / 3, 0);
    let head: String = graphemes
        .iter()
        .take_while(|g| {
            used += g.width();
            used <= head_room
        })
        .copied()
        .collect();
    let tail_room = width - head.width() - 1;
    used = 0;
    let mut tail: Vec<&str> = graphemes
        .iter()
        .rev()
        .take_while(|g| {
            used += g.width();
            used <= tail_room
        })
        .copied()
        .collect();
    tail.reverse();
    fit(&format!("{head}…{}", tail.concat()), width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_is_an_address_keeps_its_end() {
        use unicode_width::UnicodeWidthStr;
        assert_eq!(fit_name("http://127.0.0.1:8733/missing404.xml", 20), "127.0.…issing404.xml");
        assert_eq!(fit_name("https://example.org/a.xml", 20), "example.org/a.xml   ");
        assert_eq!(fit_name("A title, not an address at all", 20), fit("A title, not an address at all", 20));
        assert_eq!(fit_name("http://例え.jp/フィード/とても長い名前.xml", 20).width(), 20);
    }

    #[test]
    fn fit_pads_and_cuts_by_display_width() {
        assert_eq!(fit("abc", 5), "abc  ");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("日本語", 4), "日… ");
        // A cut never splits what the terminal draws as one character.
        assert_eq!(fit("ZWJ 👩\u{200d}💻 end", 6), "ZWJ … ");
        assert_eq!(fit("ZWJ 👩\u{200d}💻 end", 7), "ZWJ 👩\u{200d}💻…");
        assert_eq!(fit("cafe\u{301} au lait", 5), "cafe\u{301}…");
    }
}
