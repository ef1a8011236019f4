//! Reading the signals a document carries about its encoding: the byte order mark, the first bytes (XML 1.0
//! Appendix F), the XML declaration, and the HTTP Content-Type. Also rewriting the declaration of decoded text.

use super::charset::{Charset, Family};
use super::codepages::CODE_PAGES;
use std::borrow::Cow;

/// A byte order mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bom {
    Utf8,
    Utf16Be,
    Utf16Le,
    Utf32Be,
    Utf32Le,
}

impl Bom {
    pub fn byte_len(self) -> usize {
        match self {
            Bom::Utf8 => 3,
            Bom::Utf16Be | Bom::Utf16Le => 2,
            Bom::Utf32Be | Bom::Utf32Le => 4,
        }
    }

    pub fn charset(self) -> Charset {
        match self {
            Bom::Utf8 => Charset::UTF_8,
            Bom::Utf16Be => Charset::UTF_16BE,
            Bom::Utf16Le => Charset::UTF_16LE,
            Bom::Utf32Be => Charset::Utf32Be,
            Bom::Utf32Le => Charset::Utf32Le,
        }
    }
}

/// The byte order mark at the start of `bytes`, if any. UTF-32 LE (`FF FE 00 00`) is told from UTF-16 LE.
pub fn bom(bytes: &[u8]) -> Option<Bom> {
    match bytes {
        [0x00, 0x00, 0xFE, 0xFF, ..] => Some(Bom::Utf32Be),
        [0xFF, 0xFE, 0x00, 0x00, ..] => Some(Bom::Utf32Le),
        [0xEF, 0xBB, 0xBF, ..] => Some(Bom::Utf8),
        [0xFE, 0xFF, ..] => Some(Bom::Utf16Be),
        [0xFF, 0xFE, ..] => Some(Bom::Utf16Le),
        _ => None,
    }
}

/// XML 1.0 Appendix F: the encoding family told by the first four bytes of a document without a BOM.
/// Beyond the `<?xml` patterns of the appendix, any markup character laid out in UTF-16 or UTF-32 counts
/// (a feed may start with `<rss` or with whitespace and no declaration).
pub fn first_bytes(bytes: &[u8]) -> Option<Family> {
    let [a, b, c, d] = *bytes.get(..4)? else { return None };
    match [a, b, c, d] {
        [0x4C, 0x6F, 0xA7, 0x94] => Some(Family::Ebcdic),
        [0x3C, 0x3F, 0x78, 0x6D] => Some(Family::Ascii),
        [0, 0, 0, x] if x != 0 => Some(Family::Utf32Be),
        [x, 0, 0, 0] if x != 0 => Some(Family::Utf32Le),
        [0, x, 0, y] if x != 0 && y != 0 => Some(Family::Utf16Be),
        [x, 0, y, 0] if x != 0 && y != 0 => Some(Family::Utf16Le),
        _ => None,
    }
}

/// True for the two UCS-4 byte orders nobody uses (2143 and 3412), which Appendix F names but we cannot decode.
pub fn unusual_ucs4(bytes: &[u8]) -> bool {
    matches!(bytes, [0x00, 0x00, 0x3C, 0x00, ..] | [0x00, 0x3C, 0x00, 0x00, ..])
}

/// What the escape sequences of a 7-bit document say about its encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escapes {
    /// ISO-2022-JP: `ESC $ @` or `ESC $ B` switch to JIS X 0208, `ESC ( I` to half-width katakana, and `ESC ( B`
    /// or `ESC ( J` back. encoding_rs decodes it.
    Iso2022Jp,
    /// An escape-based encoding nobody here can decode (ISO-2022-KR, ISO-2022-CN, ISO-2022-JP-2), by name.
    Unsupported(&'static str),
}

impl Escapes {
    pub fn name(self) -> &'static str {
        match self {
            Escapes::Iso2022Jp => "ISO-2022-JP",
            Escapes::Unsupported(name) => name,
        }
    }
}

/// What one pass over a document's bytes finds, for the signals that need every byte: whether they are all
/// ASCII, whether they hold NUL or ESC bytes, and the first character XML forbids when they are read as UTF-8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByteScan {
    pub ascii: bool,
    pub nul: bool,
    pub esc: bool,
    /// The first character XML 1.0 forbids in the bytes read as UTF-8 (see [`xml_forbidden`]).
    pub forbidden_as_utf8: Option<char>,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Reads every byte once, eight at a time where they are plain ASCII text (no control character, no high bit).
pub fn scan(bytes: &[u8]) -> ByteScan {
    let mut found = ByteScan { ascii: true, ..ByteScan::default() };
    let mut at = 0;
    while at < bytes.len() {
        if let Some(word) = bytes.get(at..at + 8) {
            let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            // A byte below 0x20 leaves its high bit set in `word - 0x20…` and clear in `word` (the classic
            // "has a byte less than n" test, exact for n ≤ 128).
            if (word & HIGH_BITS) | (word.wrapping_sub(ONES * 0x20) & !word & HIGH_BITS) == 0 {
                at += 8;
                continue;
            }
        }
        let byte = bytes[at];
        match byte {
            b'\t' | b'\n' | b'\r' | 0x20..=0x7F => {}
            0x00..=0x1F => {
                found.nul |= byte == 0;
                found.esc |= byte == 0x1B;
                found.forbidden_as_utf8.get_or_insert(char::from(byte));
            }
            0x80.. => {
                found.ascii = false;
                if found.forbidden_as_utf8.is_none() {
                    found.forbidden_as_utf8 = noncharacter_at(bytes, at);
                }
            }
        }
        at += 1;
    }
    found
}

/// U+FFFE or U+FFFF when their UTF-8 encoding (`EF BF BE`, `EF BF BF`) starts at `at`.
fn noncharacter_at(bytes: &[u8], at: usize) -> Option<char> {
    match bytes.get(at..at + 3)? {
        [0xEF, 0xBF, 0xBE] => Some('\u{FFFE}'),
        [0xEF, 0xBF, 0xBF] => Some('\u{FFFF}'),
        _ => None,
    }
}

/// The escape-based encoding a document is written in, told by its escape sequences: only for bytes that are
/// all 7-bit (these encodings never set the high bit) and that switch to a multi-byte character set at least
/// once. Escape sequences of no known encoding (a stray terminal colour code) say nothing.
pub fn escape_encoding(body: &[u8]) -> Option<Escapes> {
    escape_encoding_scanned(body, &scan(body))
}

/// [`escape_encoding`] for bytes already [`scan`]ned.
pub fn escape_encoding_scanned(body: &[u8], scanned: &ByteScan) -> Option<Escapes> {
    if !scanned.ascii || scanned.nul || !scanned.esc {
        return None;
    }
    let (mut japanese, mut japanese_2, mut korean, mut chinese) = (false, false, false, false);
    let mut at = 0;
    while let Some(offset) = body[at..].iter().position(|b| *b == 0x1B) {
        let sequence = &body[at + offset + 1..];
        match sequence {
            [b'$', b'@' | b'B', ..] | [b'(', b'I', ..] => japanese = true,
            [b'$', b')', b'C', ..] => korean = true,
            [b'$', b')', b'A' | b'G' | b'E', ..] | [b'$', b'*', b'H', ..] | [b'$', b'+', b'I'..=b'M', ..] => {
                chinese = true;
            }
            [b'$', b'A', ..] | [b'$', b'(', b'C' | b'D', ..] | [b'.', b'A' | b'F', ..] => japanese_2 = true,
            _ => {}
        }
        at += offset + 1;
    }
    match (japanese, japanese_2, korean, chinese) {
        (_, _, true, _) => Some(Escapes::Unsupported("ISO-2022-KR")),
        (_, _, _, true) => Some(Escapes::Unsupported("ISO-2022-CN")),
        (_, true, _, _) => Some(Escapes::Unsupported("ISO-2022-JP-2")),
        (true, ..) => Some(Escapes::Iso2022Jp),
        _ => None,
    }
}

/// The first character of `text` that XML 1.0 forbids (§2.2 `Char`): a C0 control other than tab, line feed
/// and carriage return, or U+FFFE/U+FFFF. A reading that yields one is suspect: ESC bytes of an escape-based
/// encoding, or the NULs of UTF-16 read a byte at a time. One pass over the bytes (see [`scan`]).
pub fn xml_forbidden(text: &str) -> Option<char> {
    scan(text.as_bytes()).forbidden_as_utf8
}

/// A charset that reads markup of `family` well enough to find the declaration.
pub fn family_charset(family: Family) -> Charset {
    match family {
        Family::Ascii => Charset::WINDOWS_1252,
        Family::Utf16Be => Charset::UTF_16BE,
        Family::Utf16Le => Charset::UTF_16LE,
        Family::Utf32Be => Charset::Utf32Be,
        Family::Utf32Le => Charset::Utf32Le,
        Family::Ebcdic => Charset::CodePage(CODE_PAGES.iter().find(|p| p.name == "IBM037").expect("IBM037 table")),
    }
}

/// The `encoding` of the XML declaration, read in the given family (bytes after any BOM). Whitespace before the
/// declaration is tolerated; a declaration that does not close within the first kilobyte is ignored.
pub fn declared_encoding(bytes: &[u8], family: Family) -> Option<String> {
    let unit = match family {
        Family::Utf16Be | Family::Utf16Le => 2,
        Family::Utf32Be | Family::Utf32Le => 4,
        Family::Ascii | Family::Ebcdic => 1,
    };
    let head = &bytes[..bytes.len().min(1024 * unit)];
    let head = &head[..head.len() - head.len() % unit];
    let (text, _) = family_charset(family).decode_lossy(head);
    let text = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
    let decl = declaration(text)?;
    pseudo_attribute(decl, "encoding").map(|e| e.trim().to_string()).filter(|e| !e.is_empty())
}

/// The inside of a leading `<?xml … ?>`, if the text starts with a closed declaration.
fn declaration(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("<?xml")?;
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let end = rest[..floor_char_boundary(rest, 1024)].find("?>")?;
    Some(&rest[..end])
}

/// The value of `name="…"` (or `'…'`) inside an XML declaration.
pub fn pseudo_attribute<'a>(decl: &'a str, name: &str) -> Option<&'a str> {
    let mut search = decl;
    loop {
        let at = search.find(name)?;
        let before_ok = at == 0 || search[..at].ends_with(|c: char| c.is_whitespace());
        let after = search[at + name.len()..].trim_start();
        if before_ok && let Some(value) = after.strip_prefix('=') {
            let value = value.trim_start();
            let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let inner = &value[1..];
            return inner.find(quote).map(|close| &inner[..close]);
        }
        search = &search[at + name.len()..];
    }
}

/// Prepares decoded text for the parser: drops a leading BOM character, and replaces the XML declaration
/// with one that says utf-8 (the text now is UTF-8). A declaration that never closes is removed, so no parser
/// reads the document as one endless declaration; so are declarations anywhere but at the start (a fatal error
/// in XML, and one that makes quick-xml switch decoders in mid-document). Returns the text and a warning when
/// something was removed.
pub fn rewrite_declaration(text: &str) -> (String, Option<String>) {
    let (text, warning) = with_utf8_declaration(text);
    (text.into_owned(), warning)
}

/// [`rewrite_declaration`], borrowing the text when nothing had to change (a feed that already declares
/// `<?xml version="1.0" encoding="utf-8"?>`, or none): what decoding hands the parser, with no copy.
pub fn with_utf8_declaration(text: &str) -> (Cow<'_, str>, Option<String>) {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let trimmed = text.trim_start();
    let mut warnings = Vec::new();
    let (out, body_at): (Cow<'_, str>, usize) =
        match trimmed.strip_prefix("<?xml").filter(|r| r.starts_with(|c: char| c.is_whitespace() || c == '?')) {
            None => (Cow::Borrowed(text), 0),
            Some(rest) => {
                let head = &rest[..floor_char_boundary(rest, 1024)];
                match head.find("?>") {
                    Some(end) => {
                        let version = pseudo_attribute(&rest[..end], "version")
                            .filter(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
                        let version = version.filter(|v| !v.is_empty()).unwrap_or("1.0");
                        let after = &rest[end + 2..];
                        let [a, b, c] = ["<?xml version=\"", version, "\" encoding=\"utf-8\"?>"];
                        let declaration_len = a.len() + b.len() + c.len();
                        // Already the declaration we would write, at the very start: nothing to copy.
                        let same = text.len() == declaration_len + after.len()
                            && text.starts_with(a)
                            && text[a.len()..].starts_with(b)
                            && text[a.len() + b.len()..].starts_with(c);
                        if same {
                            (Cow::Borrowed(text), declaration_len)
                        } else {
                            let mut out = String::with_capacity(declaration_len + after.len());
                            out.push_str(a);
                            out.push_str(b);
                            out.push_str(c);
                            out.push_str(after);
                            (Cow::Owned(out), declaration_len)
                        }
                    }
                    None => {
                        // Drop the broken declaration up to where the markup resumes.
                        warnings.push("the XML declaration never closes; it was ignored".to_string());
                        let resume = rest.find('<').unwrap_or(rest.len());
                        (Cow::Borrowed(&rest[resume..]), 0)
                    }
                }
            }
        };
    let (out, stray) = match drop_stray_declarations(&out, body_at) {
        Some((cleaned, stray)) => (Cow::Owned(cleaned), stray),
        None => (out, 0),
    };
    if stray > 0 {
        warnings.push(format!("{stray} XML declaration(s) inside the document were removed"));
    }
    (out, (!warnings.is_empty()).then(|| warnings.join("; ")))
}

/// The text without the XML declarations at or after `from` that are outside CDATA sections, comments and
/// other processing instructions, and how many there were; `None` when there are none (one search).
fn drop_stray_declarations(text: &str, from: usize) -> Option<(String, usize)> {
    let is_declaration =
        |s: &str| s.strip_prefix("<?xml").is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == '?'));
    if !memchr::memmem::find_iter(&text.as_bytes()[from..], b"<?xml").any(|at| is_declaration(&text[from + at..])) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..from]);
    let mut rest = &text[from..];
    let mut dropped = 0;
    // The length of `tail` up to the end of `close` searched from `open`, or all of it.
    let through =
        |tail: &str, open: usize, close: &str| tail[open..].find(close).map_or(tail.len(), |e| open + e + close.len());
    while let Some(lt) = rest.find('<') {
        let (before, tail) = rest.split_at(lt);
        out.push_str(before);
        // The constructs inside which `<?xml` is not markup, read as the parser reads them.
        let kept = if tail.starts_with("<![CDATA[") {
            through(tail, 9, "]]>")
        } else if tail.starts_with("<!--") {
            through(tail, 4, "-->")
        } else if is_declaration(tail) {
            dropped += 1;
            let end = tail[5..].find("?>").map(|e| 5 + e + 2).or_else(|| tail[1..].find('<').map(|e| e + 1));
            rest = &tail[end.unwrap_or(tail.len())..];
            continue;
        } else if tail.starts_with("<?") {
            through(tail, 2, "?>")
        } else {
            1
        };
        out.push_str(&tail[..kept]);
        rest = &tail[kept..];
    }
    out.push_str(rest);
    Some((out, dropped))
}

fn floor_char_boundary(s: &str, mut at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// What kind of document a media type announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediaKind {
    /// `application/xml`, `application/*+xml`, `application/xml-dtd`, `application/xml-external-parsed-entity`.
    AppXml,
    /// `text/xml`, `text/*+xml`, `text/xml-external-parsed-entity`.
    TextXml,
    /// `application/json`, `application/feed+json`, `*/*+json`.
    Json,
    /// Anything else: `text/html`, `text/plain`, `application/octet-stream`, or no type at all.
    Other,
}

/// A parsed Content-Type header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContentType {
    /// The media type, lowercase ("application/rss+xml"); empty when the header had none.
    pub media_type: String,
    /// The `charset` parameter as written (unquoted, trimmed), if any.
    pub charset: Option<String>,
}

impl ContentType {
    pub fn parse(header: &str) -> ContentType {
        let mut parts = header.split(';');
        let media_type = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let charset = parts.find_map(|param| {
            let (name, value) = param.split_once('=')?;
            if !name.trim().eq_ignore_ascii_case("charset") {
                return None;
            }
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'').trim();
            (!value.is_empty()).then(|| value.to_string())
        });
        ContentType { media_type, charset }
    }

    pub fn kind(&self) -> MediaKind {
        let Some((top, sub)) = self.media_type.split_once('/') else { return MediaKind::Other };
        let xml_sub = sub == "xml" || sub.ends_with("+xml") || sub == "xml-external-parsed-entity" || sub == "xml-dtd";
        match top {
            "application" if xml_sub => MediaKind::AppXml,
            "text" if xml_sub => MediaKind::TextXml,
            _ if sub == "json" || sub.ends_with("+json") => MediaKind::Json,
            _ => MediaKind::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        text.encode_utf16().flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() }).collect()
    }

    #[test]
    fn boms_are_recognized_longest_first() {
        assert_eq!(bom(&[0xFF, 0xFE, 0, 0, 0x3C, 0, 0, 0]), Some(Bom::Utf32Le));
        assert_eq!(bom(&[0xFF, 0xFE, 0x3C, 0]), Some(Bom::Utf16Le));
        assert_eq!(bom(b"\xEF\xBB\xBF<"), Some(Bom::Utf8));
        assert_eq!(bom(b"<rss"), None);
    }

    #[test]
    fn appendix_f_first_bytes() {
        assert_eq!(first_bytes(&[0, 0, 0, 0x3C]), Some(Family::Utf32Be));
        assert_eq!(first_bytes(&[0x3C, 0, 0, 0]), Some(Family::Utf32Le));
        assert_eq!(first_bytes(&utf16("<?xml", true)), Some(Family::Utf16Be));
        assert_eq!(first_bytes(&utf16("<rss", false)), Some(Family::Utf16Le));
        assert_eq!(first_bytes(b"<?xml"), Some(Family::Ascii));
        assert_eq!(first_bytes(&[0x4C, 0x6F, 0xA7, 0x94]), Some(Family::Ebcdic));
        assert_eq!(first_bytes(b"<rss"), None);
        assert_eq!(first_bytes(&[0, 0, 0, 0, 0]), None);
        assert!(unusual_ucs4(&[0, 0, 0x3C, 0]));
    }

    #[test]
    fn declared_encoding_in_every_family() {
        let decl = "<?xml version=\"1.0\" encoding=\"koi8-r\"?><rss/>";
        assert_eq!(declared_encoding(decl.as_bytes(), Family::Ascii).as_deref(), Some("koi8-r"));
        assert_eq!(declared_encoding(&utf16(decl, true), Family::Utf16Be).as_deref(), Some("koi8-r"));
        assert_eq!(declared_encoding(&utf16(decl, false), Family::Utf16Le).as_deref(), Some("koi8-r"));
        let utf32: Vec<u8> = decl.chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
        assert_eq!(declared_encoding(&utf32, Family::Utf32Le).as_deref(), Some("koi8-r"));
        assert_eq!(
            declared_encoding(b"  \n<?xml version='1.0' encoding = 'Big5' ?>", Family::Ascii).as_deref(),
            Some("Big5")
        );
        assert_eq!(declared_encoding(b"<?xml version=\"1.0\"?>", Family::Ascii), None);
        assert_eq!(declared_encoding(b"<?xml version=\"1.0\" encoding=\"utf-8\"", Family::Ascii), None);
        assert_eq!(declared_encoding(b"<?xml-stylesheet href='x'?>", Family::Ascii), None);
    }

    #[test]
    fn rewrite_says_utf8_and_keeps_the_rest() {
        let (text, warning) =
            rewrite_declaration("\u{FEFF}<?xml version='1.1' encoding='koi8-r' standalone='yes'?>\n<rss/>");
        assert_eq!(text, "<?xml version=\"1.1\" encoding=\"utf-8\"?>\n<rss/>");
        assert_eq!(warning, None);
        assert_eq!(rewrite_declaration("<rss/>").0, "<rss/>");
    }

    #[test]
    fn a_long_declaration_is_replaced_by_a_short_one() {
        let long = format!("<?xml version=\"1.0\" encoding=\"windows-1251\" {}?><rss/>", " ".repeat(200));
        assert_eq!(rewrite_declaration(&long).0, "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss/>");
    }

    #[test]
    fn a_declaration_that_never_closes_is_dropped() {
        let (text, warning) =
            rewrite_declaration("<?xml version=\"1.0\" encoding=\"windows-1251\"\n<rss><channel/></rss>");
        assert_eq!(text, "<rss><channel/></rss>");
        assert!(warning.unwrap().contains("never closes"));
    }

    #[test]
    fn declarations_inside_the_document_are_removed_but_not_from_cdata_or_comments() {
        let text = "<?xml version=\"1.0\" encoding=\"koi8-r\"?><rss><!-- <?xml version=\"1.0\"?> -->\
                    <a><?xml version=\"1.0\" encoding=\"utf-16\"?>x</a><![CDATA[<?xml version='1.0'?>]]>\
                    <?xml-stylesheet href=\"s.xsl\"?><?x<![CDATA[ ?><b><?xml encoding=\"shift_jis\"</b></rss>";
        let (out, warning) = rewrite_declaration(text);
        assert_eq!(
            out,
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss><!-- <?xml version=\"1.0\"?> -->\
             <a>x</a><![CDATA[<?xml version='1.0'?>]]><?xml-stylesheet href=\"s.xsl\"?><?x<![CDATA[ ?><b></b></rss>"
        );
        assert_eq!(warning.as_deref(), Some("2 XML declaration(s) inside the document were removed"));
        let plain = "<rss><channel><title>&lt;?xml</title></channel></rss>";
        assert_eq!(rewrite_declaration(plain), (plain.to_string(), None));
    }

    /// What [`scan`] finds, read a byte and a character at a time.
    fn scan_plainly(bytes: &[u8]) -> ByteScan {
        let forbidden = std::str::from_utf8(bytes).ok().and_then(|text| {
            text.chars()
                .find(|c| (*c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        });
        ByteScan {
            ascii: bytes.is_ascii(),
            nul: bytes.contains(&0),
            esc: bytes.contains(&0x1B),
            forbidden_as_utf8: forbidden,
        }
    }

    #[test]
    fn one_scan_finds_what_reading_byte_by_byte_finds() {
        let specials = [
            "\0", "\u{1b}", "\t", "\n", "\r", "\u{1f}", " ", "\u{7f}", "é", "\u{FFFE}", "\u{FFFF}", "\u{FFFD}", "日本",
        ];
        for len in 0..24 {
            for at in 0..=len {
                for first in specials {
                    for second in specials {
                        let text = format!("{}{first}{}{second}x", "a".repeat(at), "b".repeat(len - at));
                        assert_eq!(scan(text.as_bytes()), scan_plainly(text.as_bytes()), "{text:?}");
                        assert_eq!(xml_forbidden(&text), scan_plainly(text.as_bytes()).forbidden_as_utf8);
                    }
                }
            }
        }
        assert_eq!(scan(b""), ByteScan { ascii: true, ..ByteScan::default() });
    }

    #[test]
    fn a_declaration_that_already_says_utf8_is_not_copied() {
        let feed = "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss/>";
        assert!(matches!(with_utf8_declaration(feed), (Cow::Borrowed(t), None) if t == feed));
        let bom = format!("\u{FEFF}{feed}");
        assert!(matches!(with_utf8_declaration(&bom), (Cow::Borrowed(t), None) if t == feed));
        for other in
            ["<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss/>", " <?xml version=\"1.0\" encoding=\"utf-8\"?><rss/>"]
        {
            let (text, warning) = with_utf8_declaration(other);
            assert!(matches!(text, Cow::Owned(_)) && warning.is_none());
            assert_eq!(text, feed);
        }
    }

    #[test]
    fn content_types() {
        let ct = ContentType::parse("Application/RSS+XML ; Charset = \"KOI8-R\"");
        assert_eq!(ct.media_type, "application/rss+xml");
        assert_eq!(ct.charset.as_deref(), Some("KOI8-R"));
        assert_eq!(ct.kind(), MediaKind::AppXml);
        assert_eq!(ContentType::parse("text/xml; charset:iso-8859-1").charset, None);
        assert_eq!(ContentType::parse("text/atom+xml").kind(), MediaKind::TextXml);
        assert_eq!(ContentType::parse("application/xml-external-parsed-entity").kind(), MediaKind::AppXml);
        assert_eq!(ContentType::parse("application/feed+json").kind(), MediaKind::Json);
        assert_eq!(ContentType::parse("text/html; charset=utf-8").kind(), MediaKind::Other);
        assert_eq!(ContentType::parse("").kind(), MediaKind::Other);
    }
}
