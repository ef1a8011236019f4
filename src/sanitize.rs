//! Cleaning of hostile text before it reaches a terminal or a one-line field.
//!
//! Feed content is untrusted: a title can carry an ESC sequence that recolours or clears the terminal, a C1
//! control that some terminals treat as CSI, or a megabyte of text. Everything drawn or printed goes through
//! [`strip_controls`] (multi-line text) or [`one_line`] (titles, names, URLs). This module owns no I/O.

use std::borrow::Cow;

/// True for the characters that must never reach a terminal: C0 controls except tab and newline, DEL, C1
/// controls (which include the 8-bit CSI), and the BOM/ZWNBSP that shows as garbage in some terminals.
pub fn is_forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{feff}')
}

/// Removes control characters (keeping newline and tab). Borrowed when nothing had to go.
pub fn strip_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_forbidden) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().filter(|c| !is_forbidden(*c)).collect())
}

/// A single display line: control characters removed, every run of whitespace (newlines and tabs included)
/// folded to one space, trimmed, and cut to `max_chars` characters with an ellipsis.
pub fn one_line(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars.saturating_mul(4)));
    let mut count = 0;
    for word in s.split(|c: char| c.is_whitespace()) {
        let mut chars = word.chars().filter(|c| !is_forbidden(*c)).peekable();
        if chars.peek().is_none() {
            continue;
        }
        if count > 0 {
            out.push(' ');
            count += 1;
        }
        for c in chars {
            out.push(c);
            count += 1;
        }
        if count > max_chars {
            break;
        }
    }
    if count > max_chars {
        let cut = out.char_indices().nth(max_chars.saturating_sub(1)).map_or(out.len(), |(i, _)| i);
        out.truncate(cut);
        out.truncate(out.trim_end().len());
        out.push('…');
    }
    out
}

/// Cuts `s` to at most `max_bytes` bytes on a character boundary.
pub fn truncate_bytes(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_controls_removes_escape_sequences_c1_and_del_but_keeps_newline_and_tab() {
        let hostile = "a\u{1b}[2Jb\u{9b}31mc\u{7f}d\u{0}e\tf\ng\r";
        assert_eq!(strip_controls(hostile), "a[2Jb31mcde\tf\ng");
    }

    #[test]
    fn strip_controls_borrows_clean_text() {
        assert!(matches!(strip_controls("plain ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn one_line_folds_whitespace_and_drops_controls() {
        assert_eq!(one_line("  Hello,\n\t\u{1b}world \r\n ", 100), "Hello, world");
    }

    #[test]
    fn one_line_cuts_long_text_with_an_ellipsis() {
        assert_eq!(one_line("abcdefghij", 5), "abcd…");
        assert_eq!(one_line("abcde", 5), "abcde");
        assert_eq!(one_line("ab cd ef", 4), "ab…");
    }

    #[test]
    fn truncate_bytes_respects_char_boundaries() {
        assert_eq!(truncate_bytes("жжж", 3), "ж");
        assert_eq!(truncate_bytes("abc", 10), "abc");
    }
}
