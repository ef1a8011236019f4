//! Cleaning of hostile text before it reaches a terminal or a one-line field.
//!
//! Feed content is untrusted: a title can carry an ESC sequence that recolours or clears the terminal, a C1
//! control that some terminals treat as CSI, a right-to-left override that makes `moc.elgoog` read as
//! `google.com` and reorders the rest of its row, or a megabyte of text. Everything drawn or printed goes
//! through [`strip_controls`] (multi-line text) or [`one_line`] (titles, names, authors, URLs). This module owns
//! no I/O.
//!
//! Bidirectional text: the explicit formatting characters (embeddings, overrides, isolates) are removed
//! everywhere. Nothing in a feed needs them to be read, and a terminal row is one paragraph, so one left open
//! reorders everything after it on the row; they are not added either (a row cut to its column's width would
//! lose the closing one). Right-to-left letters themselves are kept in logical order, for the terminal's own
//! bidi support to show. The implicit marks (LRM, RLM, ALM) have no scope and place punctuation in
//! right-to-left text: [`one_line`] keeps them in fields that hold right-to-left letters and drops them
//! elsewhere, where they could only move neutral characters around.

use std::borrow::Cow;

/// True for the characters that must never reach a terminal: C0 controls except tab and newline, DEL, C1
/// controls (which include the 8-bit CSI), the BOM/ZWNBSP that shows as garbage in some terminals, and the
/// explicit bidirectional formatting characters ([`is_bidi_control`]).
pub fn is_forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{feff}') || is_bidi_control(c)
}

/// True for the explicit bidirectional formatting characters: the embeddings and overrides LRE, RLE, PDF, LRO,
/// RLO (U+202A–U+202E) and the isolates LRI, RLI, FSI, PDI (U+2066–U+2069).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// True for the implicit bidirectional marks: LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK and ARABIC LETTER MARK.
pub fn is_bidi_mark(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// True for letters of the right-to-left scripts: Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic and
/// their presentation forms, and the right-to-left blocks of the supplementary planes.
pub fn is_right_to_left(c: char) -> bool {
    matches!(c,
        '\u{590}'..='\u{8ff}' | '\u{fb1d}'..='\u{fdff}' | '\u{fe70}'..='\u{fefe}'
        | '\u{10800}'..='\u{10fff}' | '\u{1e800}'..='\u{1efff}')
        && c.is_alphabetic()
}

/// An address with the characters that must never reach a terminal ([`is_forbidden`]) percent-encoded, as a
/// URL writes them, and tabs and line breaks taken out, as browsers do (WHATWG URL): the address still leads
/// where it did, and no output that prints it (JSON included, which escapes only C0) carries an 8-bit CSI or a
/// right-to-left override. Borrowed when nothing had to change; the byte test first, as addresses are many and
/// nearly always clean.
pub fn address(url: &str) -> Cow<'_, str> {
    // Every such character is a byte below 0x20, 0x7f, or starts with 0xc2 (C1), 0xe2 (bidi) or 0xef (BOM).
    let suspect = url.bytes().any(|b| b < 0x20 || matches!(b, 0x7f | 0xc2 | 0xe2 | 0xef));
    if !suspect || !url.chars().any(|c| is_forbidden(c) || c == '\t' || c == '\n') {
        return Cow::Borrowed(url);
    }
    let mut out = String::with_capacity(url.len() + 8);
    for c in url.chars() {
        if matches!(c, '\t' | '\n' | '\r') {
            continue;
        }
        if is_forbidden(c) {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// An address as tidings prints it whole, in JSON as in text: its password masked ([`without_password`]) and
/// its controls percent-encoded ([`address`]).
pub fn shown_address(url: &str) -> String {
    address(&without_password(url)).into_owned()
}

/// Removes control characters (keeping newline and tab), and the terminal escape sequences an ESC starts (see
/// [`escape_sequence_end`]) whole: `ESC[31mred` reads `red`, not `[31mred`. Borrowed when nothing had to go.
pub fn strip_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_forbidden) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(outside_escapes(s).filter(|c| !is_forbidden(*c)).collect())
}

/// The characters of `s` outside the escape sequences in it (see [`escape_sequence_end`]).
fn outside_escapes(s: &str) -> impl Iterator<Item = char> + '_ {
    let mut skip_to = 0;
    s.char_indices().filter_map(move |(at, c)| {
        if at < skip_to {
            return None;
        }
        if c == '\u{1b}'
            && let Some(end) = escape_sequence_end(s.as_bytes(), at)
        {
            skip_to = end;
            return None;
        }
        Some(c)
    })
}

/// The most bytes an escape sequence's string (`ESC ]` … BEL) is looked through for its end.
const MAX_ESCAPE_STRING: usize = 4096;

/// Where a terminal escape sequence that starts with the ESC at `at` ends (exclusive): a control sequence (`ESC [`,
/// its parameter and intermediate bytes, its final byte: colours, cursor moves, clearing the screen), or a string
/// (`ESC ]`, `P`, `X`, `^` or `_`, up to BEL or `ESC \`: a window title, a clipboard write). `None` for anything
/// else, and for a sequence left unfinished: the ESC goes alone, and the text after it stays (a stray ESC before
/// a word must not take the word).
fn escape_sequence_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at + 1)? {
        b'[' => {
            let mut j = at + 2;
            while bytes.get(j).is_some_and(|b| (0x30..=0x3f).contains(b)) {
                j += 1;
            }
            while bytes.get(j).is_some_and(|b| (0x20..=0x2f).contains(b)) {
                j += 1;
            }
            bytes.get(j).filter(|b| (0x40..=0x7e).contains(*b)).map(|_| j + 1)
        }
        b']' | b'P' | b'X' | b'^' | b'_' => {
            let body = &bytes[at + 2..bytes.len().min(at + 2 + MAX_ESCAPE_STRING)];
            let end = body.iter().enumerate().find_map(|(k, b)| match b {
                0x07 => Some(k + 1),
                0x1b if body.get(k + 1) == Some(&b'\\') => Some(k + 2),
                _ => None,
            })?;
            Some(at + 2 + end)
        }
        _ => None,
    }
}

/// An address as shown to people: a password in it (`https://me:secret@host/feed`, as some private feeds are
/// subscribed) written `***`, so that it never stands on a screen or in a report. The address is
/// unchanged otherwise; one without a password is borrowed as it is.
pub fn without_password(url: &str) -> Cow<'_, str> {
    masked(url, |c| matches!(c, '/' | '?' | '#'))
}

/// Text with the password of every address in it written `***` (as [`without_password`]): for what is written
/// whole, such as a log line or an error's words, where the addresses are not apart. An address's authority
/// ends at its path, query or fragment, and in text also at what an address always escapes (white space, `"`,
/// `<`, `>`): a password may hold `(`, `)` or `'` as they are.
pub fn without_passwords(text: &str) -> Cow<'_, str> {
    masked(text, |c| matches!(c, '/' | '?' | '#' | '"' | '<' | '>') || c.is_whitespace())
}

/// `text` with the password of each `scheme://user:password@` in it written `***`, an authority ending at the
/// first character `ends` says ends it.
fn masked(text: &str, ends: impl Fn(char) -> bool) -> Cow<'_, str> {
    let mut out = String::new();
    // Text up to `copied` is in `out`; `from` is where the next `://` is looked for.
    let (mut copied, mut from) = (0, 0);
    while let Some(found) = text[from..].find("://") {
        let start = from + found + 3;
        let rest = &text[start..];
        let end = rest.find(&ends).unwrap_or(rest.len());
        let authority = &rest[..end];
        from = start + end;
        let Some(at) = authority.rfind('@') else { continue };
        let Some(colon) = authority[..at].find(':') else { continue };
        out.push_str(&text[copied..start + colon + 1]);
        out.push_str("***");
        copied = start + at;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// A single display line: control characters and explicit bidirectional formatting removed (and the
/// bidirectional marks too, unless the text holds right-to-left letters), every run of whitespace (newlines,
/// tabs and the Unicode line and paragraph separators included) folded to one space, trimmed, and cut to
/// `max_chars` characters with an ellipsis.
pub fn one_line(s: &str, max_chars: usize) -> String {
    if s.is_ascii() { one_line_ascii(s, max_chars) } else { one_line_of_chars(s, max_chars) }
}

/// [`one_line`] of ASCII text (most titles, names and links), a byte at a time and runs copied whole: a
/// character is a byte, and the only ones to drop are the controls. Gives what [`one_line_of_chars`] gives.
fn one_line_ascii(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars.saturating_add(1)));
    let bytes = s.as_bytes();
    // The run of kept bytes not yet copied starts at `run`; a space is owed before the next kept byte.
    let mut run = 0;
    let mut space = false;
    // An escape sequence is dropped whole: its bytes up to here are skipped.
    let mut skip_to = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // `char::is_whitespace`'s ASCII characters: the vertical tab besides `is_ascii_whitespace`'s.
        let white = b.is_ascii_whitespace() || b == b'\x0b';
        // Kept bytes are copied by runs; and those of a sequence dropped lie before the next run's start.
        if !(white || b.is_ascii_control()) || i < skip_to {
            continue;
        }
        if run < i && !push_run(&mut out, &s[run..i], &mut space, max_chars) {
            return cut(out, max_chars);
        }
        run = i + 1;
        if b == 0x1b
            && let Some(end) = escape_sequence_end(bytes, i)
        {
            (run, skip_to) = (end, end);
            continue;
        }
        space |= white && !out.is_empty();
    }
    if run < bytes.len() {
        push_run(&mut out, &s[run..], &mut space, max_chars);
    }
    cut(out, max_chars)
}

/// Appends a run of kept ASCII characters to a line, after the space owed, up to one character past `max_chars`;
/// false once the line is past it.
fn push_run(out: &mut String, run: &str, space: &mut bool, max_chars: usize) -> bool {
    if out.len() > max_chars {
        return false;
    }
    if std::mem::take(space) {
        out.push(' ');
    }
    let room = max_chars.saturating_add(1).saturating_sub(out.len());
    out.push_str(&run[..run.len().min(room)]);
    out.len() <= max_chars
}

/// A line past `max_chars` ASCII characters cut to fit, with an ellipsis.
fn cut(mut out: String, max_chars: usize) -> String {
    if out.len() > max_chars {
        out.truncate(max_chars.saturating_sub(1));
        out.truncate(out.trim_end().len());
        out.push('…');
    }
    out
}

fn one_line_of_chars(s: &str, max_chars: usize) -> String {
    // One pass: a run of whitespace becomes one space once a kept character follows it.
    let keep_marks = !s.is_ascii() && s.chars().any(is_right_to_left);
    let mut out = String::with_capacity(s.len().min(max_chars.saturating_mul(4)));
    let mut count = 0;
    let mut space = false;
    for c in outside_escapes(s) {
        if c.is_whitespace() {
            space = count > 0;
            continue;
        }
        if is_forbidden(c) || (!keep_marks && is_bidi_mark(c)) {
            continue;
        }
        if count > max_chars {
            break;
        }
        if space {
            out.push(' ');
            count += 1;
            space = false;
        }
        out.push(c);
        count += 1;
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
        assert_eq!(strip_controls(hostile), "ab31mcde\tf\ng");
    }

    #[test]
    fn strip_controls_borrows_clean_text() {
        assert!(matches!(strip_controls("plain ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_password_in_an_address_is_never_shown() {
        assert_eq!(without_password("https://me:s3cret@host.example/f?a=b@c"), "https://me:***@host.example/f?a=b@c");
        assert_eq!(without_password("http://a:b:c@h/"), "http://a:***@h/", "the password runs to the last @");
        assert_eq!(without_password("https://me:pa(ss)'x@host/f"), "https://me:***@host/f");
        for shown in ["https://me@host/", "https://host/p:q@r", "not an address", "https://host"] {
            assert!(matches!(without_password(shown), Cow::Borrowed(s) if s == shown), "{shown}");
        }
    }

    #[test]
    fn every_password_in_a_text_is_hidden() {
        assert_eq!(
            without_passwords("refresh failed: http://a:x@h.example/f (see https://b:y@k.example?q) and ftp://c:z@m"),
            "refresh failed: http://a:***@h.example/f (see https://b:***@k.example?q) and ftp://c:***@m"
        );
        assert_eq!(without_passwords("feed=\"https://me:pw@host\" gone"), "feed=\"https://me:***@host\" gone");
        assert_eq!(without_passwords("error for url (http://u:p@h/)"), "error for url (http://u:***@h/)");
        // What an address keeps as it is in a password: `(`, `)`, `'`.
        assert_eq!(without_passwords("at https://me:it's(x)@host/f now"), "at https://me:***@host/f now");
        // An @ past the address (a mail address after it) is not its password.
        let text = "https://host/a and me:you@example.org";
        assert!(matches!(without_passwords(text), Cow::Borrowed(s) if s == text));
        assert_eq!(without_passwords("x://"), "x://");
    }

    #[test]
    fn one_line_folds_whitespace_and_drops_controls() {
        assert_eq!(one_line("  Hello,\n\t\u{1b}world \r\n ", 100), "Hello, world");
    }

    /// A terminal escape sequence goes whole, so its remnants (`[31m`) neither show nor glue themselves to the
    /// words (a search for RED finds `ESC[31mRED`); a lone ESC, or a sequence left unfinished, goes alone.
    #[test]
    fn escape_sequences_go_whole_and_a_lone_escape_alone() {
        for (text, clean) in [
            ("\u{1b}[31mRED\u{1b}[0m alert", "RED alert"),
            ("a\u{1b}]0;pwned title\u{7}b", "ab"),
            ("a\u{1b}]52;c;Y2xpcA==\u{1b}\\b", "ab"),
            ("a\u{1b}[1;31;42mb", "ab"),
            ("a\u{1b}word", "aword"),
            ("a\u{1b}[31", "a[31"),
            ("a\u{1b}]0;no end", "a]0;no end"),
            ("ünï\u{1b}[2Jcode", "ünïcode"),
        ] {
            assert_eq!(one_line(text, 100), clean, "{text:?}");
            assert_eq!(strip_controls(text), clean, "{text:?}");
        }
    }

    #[test]
    fn one_line_reads_ascii_text_a_word_at_a_time_as_it_reads_any_text_a_character_at_a_time() {
        let samples = [
            "",
            "   ",
            "word",
            "  Hello,\n\t\u{1b}world \r\n ",
            "a \u{1} b",
            "a\u{1}b\u{7f}c",
            "\u{1}\u{2} \u{3}",
            "x\u{b}y\u{c}z\u{1c}w",
            "ab cd ef",
            "abcdefghij",
            "one  two   three    four",
            " trailing ",
            "\u{1}a\u{2}b\u{3}c\u{4}d\u{5}e\u{6}f\u{7}g",
            "a long wordwithoutanyspacesatallthatrunsonandon x",
        ];
        for s in samples {
            for max in (0..=12).chain([20, 40, 100]) {
                assert_eq!(one_line_ascii(s, max), one_line_of_chars(s, max), "{s:?} cut to {max}");
            }
        }
        // And 20,000 strings made of letters, every ASCII whitespace and controls (the same ones every run).
        let alphabet = b"ab. \t\n\x0b\x0c\r\x01\x1b\x1c\x7f";
        let mut next = crate::testing::numbers(0x9e37_79b9_7f4a_7c15_u64);
        for _ in 0..20_000 {
            let len = next() % 16;
            let s: String = (0..len).map(|_| char::from(alphabet[(next() % alphabet.len() as u64) as usize])).collect();
            let max = (next() % 12) as usize;
            assert_eq!(one_line_ascii(&s, max), one_line_of_chars(&s, max), "{s:?} cut to {max}");
        }
    }

    #[test]
    fn one_line_cuts_long_text_with_an_ellipsis() {
        assert_eq!(one_line("abcdefghij", 5), "abcd…");
        assert_eq!(one_line("abcde", 5), "abcde");
        assert_eq!(one_line("ab cd ef", 4), "ab…");
    }

    const OVERRIDES_AND_ISOLATES: [char; 9] =
        ['\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}'];

    #[test]
    fn one_line_drops_every_bidi_override_embedding_and_isolate() {
        for c in OVERRIDES_AND_ISOLATES {
            let spoof = format!("Invoice {c}fdp.exe and the rest of the row");
            assert_eq!(one_line(&spoof, 100), "Invoice fdp.exe and the rest of the row", "U+{:04X}", c as u32);
        }
        // An override left open cannot reach what the row shows after the field.
        let row = format!("{}  {}", one_line("Breaking\u{202e} news", 100), "12 unread");
        assert_eq!(row, "Breaking news  12 unread");
    }

    #[test]
    fn one_line_keeps_hebrew_and_arabic_in_logical_order_with_their_marks() {
        let hebrew = "שלום עולם: חדשות היום!\u{200f}";
        assert_eq!(one_line(hebrew, 100), hebrew);
        let arabic = "مرحبا بالعالم\u{61c} 2024";
        assert_eq!(one_line(arabic, 100), arabic);
        // Mixed with English, and with an override slipped in: the override goes, the letters stay in order.
        let mixed = "Rust \u{202e}גרסה חדשה\u{202c} released";
        assert_eq!(one_line(mixed, 100), "Rust גרסה חדשה released");
    }

    #[test]
    fn one_line_drops_bidi_marks_from_left_to_right_text() {
        assert_eq!(one_line("paypal\u{200f}.com\u{200e}/login\u{61c}", 100), "paypal.com/login");
    }

    #[test]
    fn one_line_folds_unicode_line_and_paragraph_separators() {
        assert_eq!(one_line("one\u{2028}two\u{2029}three\u{85}four", 100), "one two three four");
    }

    #[test]
    fn strip_controls_drops_overrides_but_keeps_right_to_left_text() {
        let link = "[1] https://example.com/\u{202e}fdp.exe\nשלום\u{200f}";
        assert_eq!(strip_controls(link), "[1] https://example.com/fdp.exe\nשלום\u{200f}");
    }

    #[test]
    fn truncate_bytes_respects_char_boundaries() {
        assert_eq!(truncate_bytes("жжж", 3), "ж");
        assert_eq!(truncate_bytes("abc", 10), "abc");
    }

    #[test]
    fn an_address_has_its_controls_percent_encoded_and_leads_where_it_did() {
        assert!(matches!(address("http://e.com/a?b=1#c"), Cow::Borrowed(_)));
        assert!(matches!(address("http://e.com/caf\u{e9}/\u{2014}"), Cow::Borrowed(_)), "other letters stay");
        assert_eq!(address("http://e.com/a\u{9b}2J\u{202e}b\x1b[0m"), "http://e.com/a%C2%9B2J%E2%80%AEb%1B[0m");
        assert_eq!(address("http://e.com/\u{feff}x\ty\r\nz"), "http://e.com/%EF%BB%BFxyz", "as browsers read it");
    }
}
