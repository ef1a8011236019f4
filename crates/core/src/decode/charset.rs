//! Character sets tidings can decode: every WHATWG encoding (through encoding_rs), strict US-ASCII, UTF-32 in
//! both byte orders (our own code: encoding_rs has none), and the single-byte code pages of `codepages`
//! (DOS, EBCDIC and Mac pages that browsers dropped but feeds still use).

use encoding_rs::Encoding;
use std::borrow::Cow;

/// A single-byte code page given as a table.
pub struct CodePage {
    pub name: &'static str,
    /// EBCDIC pages do not share ASCII's bytes for markup.
    pub ebcdic: bool,
    /// Labels, normalized (lowercase, anything not alphanumeric turned into `_`).
    pub labels: &'static [&'static str],
    /// Unicode scalar for each byte; U+FFFD for a byte the page leaves undefined.
    pub table: [u16; 256],
}

impl std::fmt::Debug for CodePage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// One way to turn bytes into text.
#[derive(Clone, Copy, Debug)]
pub enum Charset {
    Web(&'static Encoding),
    /// US-ASCII: any byte above 0x7F is invalid.
    Ascii,
    Utf32Be,
    Utf32Le,
    CodePage(&'static CodePage),
}

impl PartialEq for Charset {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Charset::Web(a), Charset::Web(b)) => a == b,
            (Charset::Ascii, Charset::Ascii)
            | (Charset::Utf32Be, Charset::Utf32Be)
            | (Charset::Utf32Le, Charset::Utf32Le) => true,
            (Charset::CodePage(a), Charset::CodePage(b)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}

impl Eq for Charset {}

/// How the characters of XML markup (`<?xml`, `<`, `>`) are laid out in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// One byte per markup character, ASCII values (UTF-8, windows-*, ISO-8859-*, EUC, Shift_JIS…).
    Ascii,
    Utf16Be,
    Utf16Le,
    Utf32Be,
    Utf32Le,
    Ebcdic,
}

impl Family {
    pub fn describe(self) -> &'static str {
        match self {
            Family::Ascii => "ASCII-compatible",
            Family::Utf16Be => "UTF-16BE",
            Family::Utf16Le => "UTF-16LE",
            Family::Utf32Be => "UTF-32BE",
            Family::Utf32Le => "UTF-32LE",
            Family::Ebcdic => "EBCDIC",
        }
    }
}

impl Charset {
    pub const UTF_8: Charset = Charset::Web(encoding_rs::UTF_8);
    pub const WINDOWS_1252: Charset = Charset::Web(encoding_rs::WINDOWS_1252);
    pub const UTF_16BE: Charset = Charset::Web(encoding_rs::UTF_16BE);
    pub const UTF_16LE: Charset = Charset::Web(encoding_rs::UTF_16LE);
    pub const WINDOWS_1250: Charset = Charset::Web(encoding_rs::WINDOWS_1250);
    pub const ISO_2022_JP: Charset = Charset::Web(encoding_rs::ISO_2022_JP);

    /// The name people and the store see ("UTF-8", "windows-1251", "IBM437", "UTF-32BE").
    pub fn name(&self) -> &'static str {
        match self {
            Charset::Web(e) => e.name(),
            Charset::Ascii => "US-ASCII",
            Charset::Utf32Be => "UTF-32BE",
            Charset::Utf32Le => "UTF-32LE",
            Charset::CodePage(p) => p.name,
        }
    }

    pub fn family(&self) -> Family {
        match self {
            Charset::Web(e) if *e == encoding_rs::UTF_16BE => Family::Utf16Be,
            Charset::Web(e) if *e == encoding_rs::UTF_16LE => Family::Utf16Le,
            Charset::Utf32Be => Family::Utf32Be,
            Charset::Utf32Le => Family::Utf32Le,
            Charset::CodePage(p) if p.ebcdic => Family::Ebcdic,
            _ => Family::Ascii,
        }
    }

    /// Decodes all of `bytes`, or `None` if any byte sequence is invalid in this charset.
    pub fn decode_clean<'a>(&self, bytes: &'a [u8]) -> Option<Cow<'a, str>> {
        match self {
            Charset::Web(e) => e.decode_without_bom_handling_and_without_replacement(bytes),
            Charset::Ascii => bytes.is_ascii().then(|| Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default())),
            Charset::Utf32Be | Charset::Utf32Le => match decode_utf32(bytes, *self == Charset::Utf32Be) {
                (text, 0) => Some(Cow::Owned(text)),
                _ => None,
            },
            Charset::CodePage(p) => match decode_table(bytes, p) {
                (text, 0) => Some(Cow::Owned(text)),
                _ => None,
            },
        }
    }

    /// Decodes all of `bytes`, replacing invalid sequences with U+FFFD; also returns how many were replaced.
    pub fn decode_lossy<'a>(&self, bytes: &'a [u8]) -> (Cow<'a, str>, usize) {
        match self {
            Charset::Web(e) => {
                let (text, had_errors) = e.decode_without_bom_handling(bytes);
                let errors = if had_errors { text.matches('\u{FFFD}').count().max(1) } else { 0 };
                (text, errors)
            }
            Charset::Ascii => {
                let errors = bytes.iter().filter(|b| !b.is_ascii()).count();
                let text: String = bytes.iter().map(|&b| if b.is_ascii() { b as char } else { '\u{FFFD}' }).collect();
                (Cow::Owned(text), errors)
            }
            Charset::Utf32Be | Charset::Utf32Le => {
                let (text, errors) = decode_utf32(bytes, *self == Charset::Utf32Be);
                (Cow::Owned(text), errors)
            }
            Charset::CodePage(p) => {
                let (text, errors) = decode_table(bytes, p);
                (Cow::Owned(text), errors)
            }
        }
    }
}

/// UTF-32 in either byte order. Surrogates, values past U+10FFFF and a trailing partial unit are errors.
fn decode_utf32(bytes: &[u8], big_endian: bool) -> (String, usize) {
    let mut out = String::with_capacity(bytes.len() / 4);
    let mut errors = 0;
    let chunks = bytes.chunks_exact(4);
    let partial = !chunks.remainder().is_empty();
    for unit in chunks {
        let unit = [unit[0], unit[1], unit[2], unit[3]];
        let value = if big_endian { u32::from_be_bytes(unit) } else { u32::from_le_bytes(unit) };
        out.push(char::from_u32(value).unwrap_or_else(|| {
            errors += 1;
            '\u{FFFD}'
        }));
    }
    if partial {
        out.push('\u{FFFD}');
        errors += 1;
    }
    (out, errors)
}

fn decode_table(bytes: &[u8], page: &CodePage) -> (String, usize) {
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
    let mut errors = 0;
    for &b in bytes {
        let scalar = page.table[usize::from(b)];
        if scalar == 0xFFFD {
            errors += 1;
        }
        out.push(char::from_u32(u32::from(scalar)).unwrap_or('\u{FFFD}'));
    }
    (out, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf32_both_orders_decode_and_reject_surrogates() {
        let text = "<a>é😀</a>";
        let be: Vec<u8> = text.chars().flat_map(|c| (c as u32).to_be_bytes()).collect();
        let le: Vec<u8> = text.chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
        assert_eq!(Charset::Utf32Be.decode_clean(&be).unwrap(), text);
        assert_eq!(Charset::Utf32Le.decode_clean(&le).unwrap(), text);
        let surrogate = 0xD800u32.to_be_bytes();
        assert!(Charset::Utf32Be.decode_clean(&surrogate).is_none());
        let (lossy, errors) = Charset::Utf32Be.decode_lossy(&[0, 0, 0, 0x41, 0, 0]);
        assert_eq!((lossy.as_ref(), errors), ("A\u{FFFD}", 1));
    }

    #[test]
    fn ascii_is_strict() {
        assert_eq!(Charset::Ascii.decode_clean(b"plain").unwrap(), "plain");
        assert!(Charset::Ascii.decode_clean(b"caf\xe9").is_none());
    }

    #[test]
    fn code_page_tables_decode_dos_and_ebcdic() {
        let cp437 = super::super::codepages::CODE_PAGES.iter().find(|p| p.name == "IBM437").unwrap();
        assert_eq!(Charset::CodePage(cp437).decode_clean(b"\x80\xb0A").unwrap(), "Ç░A");
        let cp037 = super::super::codepages::CODE_PAGES.iter().find(|p| p.name == "IBM037").unwrap();
        assert_eq!(Charset::CodePage(cp037).decode_clean(b"\x4c\x6f\xa7\x94\x93").unwrap(), "<?xml");
        assert_eq!(Charset::CodePage(cp037).family(), Family::Ebcdic);
    }

    #[test]
    fn families() {
        assert_eq!(Charset::UTF_16LE.family(), Family::Utf16Le);
        assert_eq!(Charset::Web(encoding_rs::SHIFT_JIS).family(), Family::Ascii);
    }
}
