//! Encoding labels → charsets: WHATWG labels through encoding_rs (so `iso-8859-1` reads as windows-1252, as
//! browsers do), an alias table for labels feeds use that WHATWG lacks (`cp932`, `maccyrillic`, `utf8`…),
//! the UTF-16/UTF-32 spellings whose byte order comes from the document, our code-page tables, and the
//! encodings nobody here can decode, which are reported as such instead of being guessed at.

use super::charset::Charset;
use super::codepages::CODE_PAGES;
use encoding_rs::Encoding;

/// What a label names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    Charset(Charset),
    /// "UTF-16", "UCS-2", "unicode": byte order from the BOM or the first bytes.
    Utf16,
    /// "UTF-32", "UCS-4": byte order from the BOM or the first bytes.
    Utf32,
    /// A real encoding that tidings cannot decode.
    Unsupported(&'static str),
    /// Not an encoding name anyone knows.
    Unknown,
}

/// Labels feeds use that WHATWG does not know, and what they mean.
const ALIASES: &[(&str, &str)] = &[
    ("utf8", "utf-8"),
    ("utf_8", "utf-8"),
    ("utf-8n", "utf-8"),
    ("cp65001", "utf-8"),
    ("cp932", "shift_jis"),
    ("ms932", "shift_jis"),
    ("mskanji", "shift_jis"),
    ("ibm-943", "shift_jis"),
    ("x-ms-cp932", "shift_jis"),
    ("shift-jis", "shift_jis"),
    ("sjis", "shift_jis"),
    ("cp936", "gbk"),
    ("ms936", "gbk"),
    ("euc-cn", "gbk"),
    ("euccn", "gbk"),
    ("gb_2312", "gbk"),
    ("cp949", "euc-kr"),
    ("ms949", "euc-kr"),
    ("uhc", "euc-kr"),
    ("ks_c_5601", "euc-kr"),
    ("euckr", "euc-kr"),
    ("cp950", "big5"),
    ("ms950", "big5"),
    ("big5hkscs", "big5"),
    ("eucjp", "euc-jp"),
    ("ujis", "euc-jp"),
    ("maccyrillic", "x-mac-cyrillic"),
    ("mac-cyrillic", "x-mac-cyrillic"),
    ("mac_cyrillic", "x-mac-cyrillic"),
    ("cp10007", "x-mac-cyrillic"),
    ("macroman", "macintosh"),
    ("mac-roman", "macintosh"),
    ("mac_roman", "macintosh"),
    ("cp10000", "macintosh"),
    ("cp874", "windows-874"),
    ("ms874", "windows-874"),
    ("tis620", "windows-874"),
    ("win-1251", "windows-1251"),
    ("win1251", "windows-1251"),
    ("windows1251", "windows-1251"),
    ("win-1252", "windows-1252"),
    ("windows1252", "windows-1252"),
    ("latin-1", "windows-1252"),
    ("iso8859_1", "windows-1252"),
    ("iso-8859-8i", "iso-8859-8-i"),
    ("koi8r", "koi8-r"),
    ("koi8u", "koi8-u"),
    ("cp20866", "koi8-r"),
    ("cp21866", "koi8-u"),
];

/// Encodings that exist but that tidings cannot decode.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("utf-7", "UTF-7"),
    ("utf7", "UTF-7"),
    ("iso-2022-kr", "ISO-2022-KR"),
    ("csiso2022kr", "ISO-2022-KR"),
    ("iso-2022-cn", "ISO-2022-CN"),
    ("iso-2022-cn-ext", "ISO-2022-CN-EXT"),
    ("hz-gb-2312", "HZ-GB-2312"),
    ("utf-ebcdic", "UTF-EBCDIC"),
    ("scsu", "SCSU"),
    ("bocu-1", "BOCU-1"),
    ("ucs-4-2143", "UCS-4 (2143 order)"),
    ("ucs-4-3412", "UCS-4 (3412 order)"),
];

/// Trims spaces and quotes, and lowercases, so `" 'KOI8-R' "` reads as `koi8-r`.
pub fn clean(label: &str) -> String {
    label.trim().trim_matches(|c| c == '"' || c == '\'').trim().to_ascii_lowercase()
}

/// What `label` names.
pub fn resolve(label: &str) -> Label {
    let label = clean(label);
    if label.is_empty() || label.len() > 64 {
        return Label::Unknown;
    }
    match label.as_str() {
        "utf-16" | "utf16" | "utf_16" | "ucs-2" | "ucs2" | "iso-10646-ucs-2" | "csunicode" | "unicode" => {
            return Label::Utf16;
        }
        "utf-32" | "utf32" | "utf_32" | "ucs-4" | "ucs4" | "iso-10646-ucs-4" | "csucs4" => return Label::Utf32,
        "utf-32be" | "utf_32_be" | "utf32be" | "ucs-4be" => return Label::Charset(Charset::Utf32Be),
        "utf-32le" | "utf_32_le" | "utf32le" | "ucs-4le" => return Label::Charset(Charset::Utf32Le),
        "us-ascii" | "ascii" | "us_ascii" | "ansi_x3.4-1968" | "iso646-us" | "646" | "csascii" => {
            return Label::Charset(Charset::Ascii);
        }
        _ => {}
    }
    if let Some((_, name)) = UNSUPPORTED.iter().find(|(l, _)| *l == label) {
        return Label::Unsupported(name);
    }
    let target = ALIASES.iter().find(|(l, _)| *l == label).map_or(label.as_str(), |(_, t)| t);
    // "windows_1251", "iso8859_5": underscores where WHATWG has hyphens.
    let hyphenated = target.replace('_', "-");
    for candidate in [target, hyphenated.as_str()] {
        if let Some(encoding) = Encoding::for_label_no_replacement(candidate.as_bytes()) {
            return Label::Charset(Charset::Web(encoding));
        }
    }
    // WHATWG's "replacement" labels name real encodings that are unsafe to decode on the web.
    if Encoding::for_label(target.as_bytes()).is_some() {
        return Label::Unsupported("an ISO-2022 or HZ encoding");
    }
    let normalized: String = label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if let Some(page) = CODE_PAGES.iter().find(|p| p.labels.contains(&normalized.as_str())) {
        return Label::Charset(Charset::CodePage(page));
    }
    // A label that still spells an EBCDIC or DOS page we have no table for.
    if normalized.starts_with("ebcdic") || normalized.starts_with("ibm") || normalized.starts_with("cp") {
        return Label::Unsupported("an IBM code page without a table in tidings");
    }
    Label::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(label: &str) -> &'static str {
        match resolve(label) {
            Label::Charset(c) => c.name(),
            other => panic!("{label}: {other:?}"),
        }
    }

    #[test]
    fn whatwg_labels_follow_the_browsers() {
        assert_eq!(name("ISO-8859-1"), "windows-1252");
        assert_eq!(name("latin1"), "windows-1252");
        assert_eq!(name("gb2312"), "GBK");
        assert_eq!(name("x-sjis"), "Shift_JIS");
    }

    #[test]
    fn aliases_outside_whatwg() {
        assert_eq!(name("cp932"), "Shift_JIS");
        assert_eq!(name("CP949"), "EUC-KR");
        assert_eq!(name("MacCyrillic"), "x-mac-cyrillic");
        assert_eq!(name("utf8"), "UTF-8");
        assert_eq!(name(" 'KOI8-R' "), "KOI8-R");
        assert_eq!(name("\"windows-1251\""), "windows-1251");
    }

    #[test]
    fn utf16_and_utf32_spellings() {
        assert_eq!(resolve("UTF-16"), Label::Utf16);
        assert_eq!(resolve("ISO-10646-UCS-2"), Label::Utf16);
        assert_eq!(name("UTF-16BE"), "UTF-16BE");
        assert_eq!(resolve("ucs-4"), Label::Utf32);
        assert_eq!(resolve("csUCS4"), Label::Utf32);
        assert_eq!(name("UTF-32LE"), "UTF-32LE");
    }

    #[test]
    fn code_pages_outside_whatwg_have_tables() {
        assert_eq!(name("cp437"), "IBM437");
        assert_eq!(name("IBM855"), "IBM855");
        assert_eq!(name("ebcdic-cp-us"), "IBM037");
        assert_eq!(name("maccentraleurope"), "x-mac-centraleurroman");
        assert_eq!(name("windows_1250"), "windows-1250");
    }

    #[test]
    fn ascii_is_its_own_strict_charset() {
        assert_eq!(resolve("us-ascii"), Label::Charset(Charset::Ascii));
    }

    #[test]
    fn undecodable_and_unknown_labels_are_told_apart() {
        assert_eq!(resolve("UTF-7"), Label::Unsupported("UTF-7"));
        assert!(matches!(resolve("iso-2022-kr"), Label::Unsupported(_)));
        assert!(matches!(resolve("ibm-9999"), Label::Unsupported(_)));
        assert_eq!(resolve("klingon"), Label::Unknown);
        assert_eq!(resolve(""), Label::Unknown);
    }
}
