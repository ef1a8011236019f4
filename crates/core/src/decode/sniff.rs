//! Reading the signals a document carries about its encoding: the byte order mark, the first bytes (XML 1.0
//! Appendix F), the XML declaration, and the HTTP Content-Type. Also rewriting the declaration of decoded text.

use super::charset::{Charset, Family};
use super::codepages::CODE_PAGES;

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

/// The escape-based encoding a document is written in, told by its escape sequences: only for bytes that are
/// all 7-bit (these encodings never set the high bit) and that switch to a multi-byte character set at least
/// once. Escape sequences of no known encoding (a stray terminal colour code) say nothing.
pub fn escape_encoding(body: &[u8]) -> Option<Escapes> {
    if !body.is_ascii() || body.contains(&0) {
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
                chinese = true
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
/// encoding, or the NULs of UTF-16 read a byte at a time.
pub fn xml_forbidden(text: &str) -> Option<char> {
    let bytes = text.as_bytes();
    let control = bytes.iter().position(|b| *b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'));
    let nonchar = text.find(['\u{FFFE}', '\u{FFFF}']);
    match (control, nonchar) {
        (Some(c), Some(n)) if n < c => Some(text[n..].chars().next().unwrap_or('\u{FFFE}')),
        (Some(c), _) => Some(char::from(bytes[c])),
        (None, Some(n)) => text[n..].chars().next(),
        (None, None) => None,
    }
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
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let trimmed = text.trim_start();
    let mut warnings = Vec::new();
    let (mut out, body_at) =
        match trimmed.strip_prefix("<?xml").filter(|r| r.starts_with(|c: char| c.is_whitespace() || c == '?')) {
            None => (text.to_string(), 0),
            Some(rest) => {
                let head = &rest[..floor_char_boundary(rest, 1024)];
                match head.find("?>") {
                    Some(end) => {
                        let version = pseudo_attribute(&rest[..end], "version")
                            .filter(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
                        let version = version.filter(|v| !v.is_empty()).unwrap_or("1.0");
                        let mut out = String::with_capacity(text.len());
                        out.push_str("<?xml version=\"");
                        out.push_str(version);
                        out.push_str("\" encoding=\"utf-8\"?>");
                        let body_at = out.len();
                        out.push_str(&rest[end + 2..]);
                        (out, body_at)
                    }
                    None => {
                        // Drop the broken declaration up to where the markup resumes.
                        warnings.push("the XML declaration never closes; it was ignored".to_string());
                        let resume = rest.find('<').unwrap_or(rest.len());
                        (rest[resume..].to_string(), 0)
                    }
                }
            }
        };
    let stray = drop_stray_declarations(&mut out, body_at);
    if stray > 0 {
        warnings.push(format!("{stray} XML declaration(s) inside the document were removed"));
    }
    (out, (!warnings.is_empty()).then(|| warnings.join("; ")))
}

/// Removes the XML declarations at or after `from` that are outside CDATA sections, comments and other
/// processing instructions; returns how many there were. Costs one search when there are none.
fn drop_stray_declarations(text: &mut String, from: usize) -> usize {
    let is_declaration =
        |s: &str| s.strip_prefix("<?xml").is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == '?'));
    if !text[from..].match_indices("<?xml").any(|(at, _)| is_declaration(&text[from + at..])) {
        return 0;
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
    *text = out;
    dropped
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
