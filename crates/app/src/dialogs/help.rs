//! The help window: the keymap's table, context by context, wrapped to the window's width. The state machine
//! and the drawing both lay it out with [`help_lines`], so scrolling reaches exactly the last line.

use crate::keymap::Keymap;
use crate::layout;
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

/// One line of the help window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelpLine {
    Heading(&'static str),
    /// Keys (on the first line of a binding only) and a piece of its description.
    Row {
        keys: String,
        help: String,
    },
    Blank,
}

/// What the marks in the feed and entry lists mean: help's last section and docs/keys.md's legend are this table.
pub const LEGEND: &[(&str, &str)] = &[
    ("!", "the feed's last refresh failed (feed info says why)"),
    ("~", "the feed's encoding was overridden or forced"),
    ("✗", "the feed is gone for good (HTTP 410); it is tried once a day"),
    ("→", "the feed's redirects propose a new address (the health view accepts it)"),
    ("‖", "the feed is paused: no refresh fetches it (the health view resumes it)"),
    ("↻", "the feed is being fetched"),
    ("¶", "the feed's new entries are fetched in full on refresh"),
    ("⌕", "the last search"),
    ("★", "starred (the Starred view; a starred entry)"),
    ("↓", "the entry's media is downloaded (the downloads view lists the files)"),
    ("●", "unread (the Unread view; an unread entry)"),
    ("≡", "every entry (the All view)"),
    ("▸ ▾", "a folded and an unfolded folder"),
];

/// The legend as Markdown, for docs/keys.md.
pub fn legend_markdown() -> String {
    let mut out = String::from("| mark | means |\n|---|---|\n");
    for (mark, means) in LEGEND {
        out.push_str(&format!("| `{mark}` | {means} |\n"));
    }
    out
}

/// Widest the keys column gets; longer key lists wrap onto their own line.
const KEYS_COLUMN_MAX: usize = 20;

/// The help text laid out for a window `width` columns wide (inside its border).
pub fn help_lines(keymap: &Keymap, width: u16) -> Vec<HelpLine> {
    let rows = keymap.help_rows();
    let keys_width = rows.iter().map(|(_, k, _)| k.width()).filter(|w| *w <= KEYS_COLUMN_MAX).max().unwrap_or(8);
    let text_width = usize::from(width).saturating_sub(keys_width + 3).max(10);
    let mut out = Vec::new();
    let mut context = None;
    for (ctx, keys, help) in rows {
        if context != Some(ctx) {
            if context.is_some() {
                out.push(HelpLine::Blank);
            }
            out.push(HelpLine::Heading(ctx.title()));
            context = Some(ctx);
        }
        let mut pieces = wrap(&help, text_width).into_iter();
        if keys.width() > keys_width {
            out.push(HelpLine::Row { keys, help: String::new() });
            out.extend(pieces.map(|p| HelpLine::Row { keys: String::new(), help: p }));
            continue;
        }
        out.push(HelpLine::Row { keys, help: pieces.next().unwrap_or_default() });
        out.extend(pieces.map(|p| HelpLine::Row { keys: String::new(), help: p }));
    }
    out.push(HelpLine::Blank);
    out.push(HelpLine::Heading("Marks in the lists"));
    for (mark, means) in LEGEND {
        let mut pieces = wrap(means, text_width).into_iter();
        out.push(HelpLine::Row { keys: mark.to_string(), help: pieces.next().unwrap_or_default() });
        out.extend(pieces.map(|p| HelpLine::Row { keys: String::new(), help: p }));
    }
    out
}

/// The width of the keys column, for drawing rows that line up.
pub fn keys_column(keymap: &Keymap) -> usize {
    keymap.help_rows().iter().map(|(_, k, _)| k.width()).filter(|w| *w <= KEYS_COLUMN_MAX).max().unwrap_or(8)
}

/// The help window on a terminal of `width` × `height`.
pub fn area(keymap: &Keymap, width: u16, height: u16) -> Rect {
    let widest = keymap.help_rows().iter().map(|(_, _, h)| h.width()).max().unwrap_or(40);
    let wanted = (keys_column(keymap) + widest + 5) as u16;
    layout::text_dialog(width, height, wanted, u16::MAX)
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    crate::render::wrap_text(text, width, crate::render::Style::default())
        .into_iter()
        .map(|spans| spans.into_iter().map(|s| s.text).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binding_appears_at_any_width() {
        let keymap = Keymap::default();
        for width in [30, 48, 78, 140] {
            let lines = help_lines(&keymap, width);
            let text: String = lines
                .iter()
                .map(|l| match l {
                    HelpLine::Row { keys, help } => format!("{keys} {help} "),
                    HelpLine::Heading(h) => format!("{h} "),
                    HelpLine::Blank => String::new(),
                })
                .collect();
            let words: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            for (mark, means) in LEGEND {
                assert!(
                    words.contains(mark) && words.contains(&means.split_whitespace().collect::<Vec<_>>().join(" "))
                );
            }
            for (_, keys, help) in keymap.help_rows() {
                assert!(words.contains(&keys), "{keys} at width {width}");
                let help_words = help.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(words.contains(&help_words), "'{help}' at width {width}");
            }
        }
    }
}
