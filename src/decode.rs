//! Decoding: the bytes of a feed and the HTTP Content-Type it came with → UTF-8 text and a [`Decision`] that
//! says which encoding was used and why.
//!
//! Pure: no I/O. The text handed on has its XML declaration rewritten to say `utf-8`, so the parser never
//! decodes a second time.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};
use serde::Serialize;
use std::borrow::Cow;

/// Which signal decided the encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The user forced an encoding for this feed.
    Override,
    /// A byte order mark.
    Bom,
    /// The `charset` parameter of the HTTP Content-Type.
    HttpCharset,
    /// The `encoding` pseudo-attribute of the XML declaration.
    XmlDeclaration,
    /// Nothing declared; the bytes were valid UTF-8, the XML default.
    Default,
    /// The last resort: windows-1252, which decodes any byte.
    Fallback,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Source::Override => "the encoding forced for this feed",
            Source::Bom => "the byte order mark",
            Source::HttpCharset => "the HTTP charset",
            Source::XmlDeclaration => "the XML declaration",
            Source::Default => "the XML default (UTF-8)",
            Source::Fallback => "the last-resort fallback",
        }
    }
}

/// Every encoding signal found in the response, as written (labels are not normalized here).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Signals {
    pub http_charset: Option<String>,
    pub bom: Option<String>,
    pub xml_declaration: Option<String>,
}

/// What `decode` decided, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The encoding used, by its WHATWG name ("UTF-8", "windows-1251", …).
    pub encoding: String,
    pub source: Source,
    pub signals: Signals,
    /// Signals that named a different encoding and lost: "http_charset", "xml_declaration", …
    pub overridden: Vec<String>,
    /// Things worth telling the user: invalid bytes replaced, unknown labels, …
    pub notes: Vec<String>,
}

impl Decision {
    /// One sentence for people: "windows-1251 from the HTTP charset; the XML declaration (utf-8) was overridden".
    pub fn summary(&self) -> String {
        let mut s = format!("{} from {}", self.encoding, self.source.describe());
        for o in &self.overridden {
            let said = match o.as_str() {
                "http_charset" => self.signals.http_charset.as_deref().map(|l| ("the HTTP charset", l)),
                "xml_declaration" => self.signals.xml_declaration.as_deref().map(|l| ("the XML declaration", l)),
                "bom" => self.signals.bom.as_deref().map(|l| ("the byte order mark", l)),
                _ => None,
            };
            if let Some((what, label)) = said {
                s.push_str(&format!("; {what} said {label} and was overridden"));
            }
        }
        s
    }
}

/// Decoded text plus the decision that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub decision: Decision,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error("the document is empty")]
    Empty,
}

/// Decodes `bytes` that arrived with `content_type` (`None` for a file, which follows the raw-XML rules).
/// `forced` is a user-chosen encoding label that beats every signal.
pub fn decode(bytes: &[u8], content_type: Option<&str>, forced: Option<&str>) -> Result<Decoded, DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::Empty);
    }
    let mut signals = Signals::default();
    let mut notes = Vec::new();

    let bom = Encoding::for_bom(bytes);
    signals.bom = bom.map(|(e, _)| e.name().to_string());
    let http = content_type.and_then(charset_param);
    signals.http_charset = http.clone();
    let body = &bytes[bom.map_or(0, |(_, n)| n)..];
    let declared = xml_declared_encoding(body);
    signals.xml_declaration = declared.clone();

    let label_encoding = |label: &Option<String>, what: &str, notes: &mut Vec<String>| {
        let label = label.as_deref()?;
        let found = encoding_for_label(label);
        if found.is_none() {
            notes.push(format!("{what} names an unknown encoding '{label}'; ignored"));
        }
        found
    };

    let forced_encoding = forced.and_then(encoding_for_label);
    let http_encoding = label_encoding(&http, "the HTTP charset", &mut notes);
    let decl_encoding = label_encoding(&declared, "the XML declaration", &mut notes);

    let (encoding, source) = if let Some(e) = forced_encoding {
        (e, Source::Override)
    } else if let Some((e, _)) = bom {
        (e, Source::Bom)
    } else if let Some(e) = http_encoding {
        (e, Source::HttpCharset)
    } else if let Some(e) = decl_encoding {
        (e, Source::XmlDeclaration)
    } else if std::str::from_utf8(body).is_ok() {
        (UTF_8, Source::Default)
    } else {
        (WINDOWS_1252, Source::Fallback)
    };

    let mut overridden = Vec::new();
    for (name, candidate) in
        [("bom", bom.map(|(e, _)| e)), ("http_charset", http_encoding), ("xml_declaration", decl_encoding)]
    {
        if candidate.is_some_and(|c| c != encoding) {
            overridden.push(name.to_string());
        }
    }

    let (text, had_errors) = encoding.decode_without_bom_handling(body);
    if had_errors {
        notes.push(format!("bytes invalid in {} were replaced with U+FFFD", encoding.name()));
    }
    let text = rewrite_declaration(text).into_owned();
    Ok(Decoded {
        text,
        decision: Decision { encoding: encoding.name().to_string(), source, signals, overridden, notes },
    })
}

/// The `charset` parameter of a Content-Type value, unquoted and trimmed.
pub fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'').trim();
        (!value.is_empty()).then(|| value.to_string())
    })
}

/// Resolves an encoding label the way browsers do (WHATWG), so `iso-8859-1` reads as windows-1252.
pub fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label_no_replacement(label.trim().as_bytes())
}

/// The encoding named by an XML declaration at the start of ASCII-compatible bytes.
pub fn xml_declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(1024)];
    let rest = head.strip_prefix(b"<?xml")?;
    let end = rest.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&rest[..end]).ok()?;
    pseudo_attribute(decl, "encoding").map(str::to_string)
}

/// The value of `name="…"` (or `'…'`) inside an XML declaration's text.
fn pseudo_attribute<'a>(decl: &'a str, name: &str) -> Option<&'a str> {
    let at = decl.find(name)?;
    let after = decl[at + name.len()..].trim_start().strip_prefix('=')?.trim_start();
    let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &after[1..];
    let close = value.find(quote)?;
    Some(&value[..close])
}

/// Replaces the XML declaration of decoded text with one that says utf-8 (the text now is UTF-8), keeping
/// the version. Text without a declaration is returned as is.
pub fn rewrite_declaration(text: Cow<'_, str>) -> Cow<'_, str> {
    let Some(rest) = text.strip_prefix("<?xml") else {
        return text;
    };
    let Some(end) = rest.find("?>") else {
        return text;
    };
    let version = pseudo_attribute(&rest[..end], "version").unwrap_or("1.0");
    let version = if version.chars().all(|c| c.is_ascii_digit() || c == '.') { version } else { "1.0" };
    let mut out = String::with_capacity(text.len());
    out.push_str(&format!("<?xml version=\"{version}\" encoding=\"utf-8\"?>"));
    out.push_str(&rest[end + 2..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn koi8r(s: &str) -> Vec<u8> {
        encoding_rs::KOI8_R.encode(s).0.into_owned()
    }

    #[test]
    fn http_charset_beats_a_wrong_declaration_and_says_so() {
        let mut bytes = b"<?xml version=\"1.0\" encoding=\"utf-8\"?><rss><title>".to_vec();
        bytes.extend(koi8r("Новости"));
        bytes.extend(b"</title></rss>");
        let d = decode(&bytes, Some("application/rss+xml; charset=koi8-r"), None).unwrap();
        assert!(d.text.contains("Новости"), "{}", d.text);
        assert_eq!(d.decision.encoding, "KOI8-R");
        assert_eq!(d.decision.source, Source::HttpCharset);
        assert_eq!(d.decision.overridden, vec!["xml_declaration"]);
        assert!(d.text.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>"));
        assert!(d.decision.summary().contains("the XML declaration said utf-8 and was overridden"));
    }

    #[test]
    fn bom_beats_the_http_charset() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend("<rss>é</rss>".as_bytes());
        let d = decode(&bytes, Some("text/xml; charset=windows-1252"), None).unwrap();
        assert_eq!(d.text, "<rss>é</rss>");
        assert_eq!(d.decision.source, Source::Bom);
        assert_eq!(d.decision.overridden, vec!["http_charset"]);
    }

    #[test]
    fn utf16_with_bom_is_decoded_and_its_declaration_rewritten() {
        let text = "<?xml version=\"1.0\" encoding=\"utf-16\"?><rss>日本</rss>";
        let mut bytes = vec![0xFF, 0xFE];
        for unit in text.encode_utf16() {
            bytes.extend(unit.to_le_bytes());
        }
        let d = decode(&bytes, None, None).unwrap();
        assert_eq!(d.decision.encoding, "UTF-16LE");
        assert_eq!(d.text, "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss>日本</rss>");
    }

    #[test]
    fn declaration_decides_for_a_file() {
        let mut bytes = b"<?xml version='1.0' encoding='KOI8-R'?><rss>".to_vec();
        bytes.extend(koi8r("Привет"));
        let d = decode(&bytes, None, None).unwrap();
        assert_eq!(d.decision.source, Source::XmlDeclaration);
        assert!(d.text.ends_with("<rss>Привет"));
    }

    #[test]
    fn iso_8859_1_reads_as_windows_1252() {
        let d = decode(b"<rss>\x93quoted\x94</rss>", Some("text/xml; charset=\"ISO-8859-1\""), None).unwrap();
        assert_eq!(d.text, "<rss>\u{201c}quoted\u{201d}</rss>");
        assert_eq!(d.decision.encoding, "windows-1252");
    }

    #[test]
    fn forced_encoding_beats_everything() {
        let mut bytes = b"<?xml version=\"1.0\" encoding=\"utf-8\"?><rss>".to_vec();
        bytes.extend(koi8r("Да"));
        let d = decode(&bytes, Some("text/xml; charset=utf-8"), Some("koi8-r")).unwrap();
        assert_eq!(d.decision.source, Source::Override);
        assert!(d.text.ends_with("Да"));
    }

    #[test]
    fn undeclared_invalid_utf8_falls_back_to_windows_1252() {
        let d = decode(b"<rss>caf\xe9</rss>", None, None).unwrap();
        assert_eq!(d.decision.source, Source::Fallback);
        assert_eq!(d.text, "<rss>café</rss>");
    }

    #[test]
    fn unknown_label_is_noted_and_ignored() {
        let d = decode(b"<rss>x</rss>", Some("text/xml; charset=x-no-such"), None).unwrap();
        assert_eq!(d.decision.encoding, "UTF-8");
        assert!(d.decision.notes[0].contains("x-no-such"));
    }

    #[test]
    fn empty_input_is_an_error() {
        assert_eq!(decode(b"", None, None), Err(DecodeError::Empty));
    }

    #[test]
    fn charset_param_handles_quotes_spaces_and_case() {
        assert_eq!(charset_param("text/xml;CHARSET = \"koi8-r\" ").as_deref(), Some("koi8-r"));
        assert_eq!(charset_param("text/xml; boundary=x"), None);
        assert_eq!(charset_param("text/xml"), None);
    }
}
