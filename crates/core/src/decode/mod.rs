//! Decoding: the bytes of a feed and the HTTP Content-Type it came with → UTF-8 text, and a [`Decision`] that
//! says which encoding was used, which signal won, every signal seen, and which were overridden.
//!
//! First the strict algorithm of ROME's XmlReader (RFC 3023: raw rules 1.x for files and `application/*xml`
//! without a charset, HTTP rules 2.x otherwise; XML 1.0 Appendix F for the first bytes), updated by RFC 7303
//! where a byte order mark beats the charset parameter. When the strict result fails — it is an error, the bytes
//! are invalid in the encoding it names, or the caller rejects the text (the XML does not parse) — the lenient
//! chain tries, in order: the BOM, the media type read as `text/xml`, the XML declaration, the HTTP charset,
//! the first bytes, UTF-8 with a few broken bytes, the statistical detector (chardetng), UTF-8 and
//! windows-1252. The first candidate that decodes cleanly and that the caller accepts wins, and the decision
//! records which declared encodings lost (feedparser's CharacterEncodingOverride).
//!
//! Pure: no I/O. The text handed on has its XML declaration rewritten to say `utf-8`, so the parser never
//! decodes a second time.

pub mod charset;
#[rustfmt::skip]
mod codepages;
mod detect;
pub mod labels;
pub mod sniff;

use charset::{Charset, Family};
use labels::Label;
use serde::{Deserialize, Serialize};
use sniff::{Bom, ContentType, MediaKind};
use std::borrow::Cow;

/// Which signal decided the encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The user forced an encoding for this feed.
    Override,
    /// A byte order mark.
    Bom,
    /// The `charset` parameter of the HTTP Content-Type.
    HttpCharset,
    /// The default of the media type (`text/xml` without a charset is US-ASCII by RFC 3023).
    MediaTypeDefault,
    /// The layout of the first bytes (XML 1.0 Appendix F).
    FirstBytes,
    /// The `encoding` of the XML declaration.
    XmlDeclaration,
    /// The escape sequences of a 7-bit document (ISO-2022-JP's `ESC $ B`…), which every ASCII reading would
    /// leave in the text as ESC characters, which XML forbids.
    EscapeSequences,
    /// The statistical detector (chardetng).
    Detector,
    /// Nothing said otherwise: UTF-8, the XML (and JSON) default.
    Default,
    /// The last resort, windows-1252, which decodes any byte.
    Fallback,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Source::Override => "the encoding forced for this feed",
            Source::Bom => "the byte order mark",
            Source::HttpCharset => "the HTTP charset",
            Source::MediaTypeDefault => "the media type's default",
            Source::FirstBytes => "the first bytes",
            Source::XmlDeclaration => "the XML declaration",
            Source::EscapeSequences => "its escape sequences",
            Source::Detector => "statistical detection",
            Source::Default => "the default (UTF-8)",
            Source::Fallback => "the last-resort fallback",
        }
    }
}

/// Every encoding signal found, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signals {
    pub media_type: Option<String>,
    pub http_charset: Option<String>,
    pub bom: Option<String>,
    pub first_bytes: Option<String>,
    pub xml_declaration: Option<String>,
    /// What the detector guessed, when it was asked.
    pub detected: Option<String>,
    /// The escape-based encoding whose escape sequences a 7-bit document holds ("ISO-2022-JP").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escape_sequences: Option<String>,
}

/// What the strict algorithm said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strict {
    /// The encoding, when the strict algorithm chose one.
    pub encoding: Option<String>,
    /// The rule that applied, or why the strict reading failed.
    pub rule: String,
}

/// What decoding decided, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// The encoding used ("UTF-8", "windows-1251", "IBM437", "UTF-32LE"…).
    pub encoding: String,
    pub source: Source,
    pub signals: Signals,
    pub strict: Strict,
    /// Signals that named another encoding and lost: "bom", "http_charset", "xml_declaration".
    pub overridden: Vec<String>,
    /// True when the strict result did not hold and a lenient fallback decided.
    pub lenient: bool,
    /// Things worth telling: invalid bytes replaced, unknown labels, why the strict reading failed.
    pub notes: Vec<String>,
}

impl Decision {
    /// One sentence: "windows-1251 from the HTTP charset; the XML declaration said utf-8 and was overridden".
    pub fn summary(&self) -> String {
        let mut s = format!("{} from {}", self.encoding, self.source.describe());
        if let Some(detected) = self.signals.detected.as_deref().filter(|_| self.source == Source::Detector) {
            s = format!("{} from {} (it guessed {detected})", self.encoding, self.source.describe());
        }
        for name in &self.overridden {
            let (what, label) = match name.as_str() {
                "http_charset" => ("the HTTP charset", self.signals.http_charset.as_deref()),
                "xml_declaration" => ("the XML declaration", self.signals.xml_declaration.as_deref()),
                "bom" => ("the byte order mark", self.signals.bom.as_deref()),
                _ => continue,
            };
            s.push_str(&format!("; {what} said {} and was overridden", label.unwrap_or("?")));
        }
        s
    }

    /// Every signal on one line: "HTTP charset koi8-r · BOM none · first bytes ASCII-compatible · …".
    pub fn signals_line(&self) -> String {
        let s = &self.signals;
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
        let mut line = format!(
            "HTTP charset {} · BOM {} · first bytes {} · declaration {} · detector {}",
            show(&s.http_charset),
            show(&s.bom),
            show(&s.first_bytes),
            show(&s.xml_declaration),
            s.detected.clone().unwrap_or_else(|| "not asked".into())
        );
        if let Some(escapes) = &s.escape_sequences {
            line.push_str(&format!(" · escape sequences of {escapes}"));
        }
        line
    }

    /// What the strict rules said: "windows-1251 (HTTP 2.6: the HTTP charset)", or why they had no answer.
    pub fn strict_line(&self) -> String {
        match &self.strict.encoding {
            Some(e) => format!("{e} ({})", self.strict.rule),
            None => format!("no answer: {}", self.strict.rule),
        }
    }

    /// True when a declared encoding lost (the feed list marks such feeds).
    pub fn was_overridden(&self) -> bool {
        !self.overridden.is_empty()
    }
}

/// Decoded text and the decision that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub decision: Decision,
}

#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error("the document is empty")]
    Empty,
    #[error("the document holds only a byte order mark")]
    OnlyBom,
    #[error("the document is in {0}, which tidings cannot decode")]
    Unsupported(String),
    #[error("the document is binary data (it holds NUL bytes), not text")]
    Binary,
}

/// How decoding is asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// The HTTP Content-Type header; `None` for a file (the raw rules apply).
    pub content_type: Option<&'a str>,
    /// An encoding label the user chose for this feed; it beats every signal.
    pub forced: Option<&'a str>,
    /// The top-level domain the document came from ("ru", "jp"), a hint for the detector.
    pub tld: Option<&'a str>,
}

/// The caller's verdict on one decoded text: `retry` says whether another encoding could do better.
#[derive(Debug)]
pub struct Rejection<E> {
    pub error: E,
    pub retry: bool,
}

/// Why no text came out.
#[derive(Debug)]
pub enum Failure<E> {
    /// Nothing to decode, or an encoding nobody here can decode.
    Decode(DecodeError),
    /// Every candidate decoded text was rejected; `error` is what the first one got.
    Rejected { error: E, decision: Box<Decision> },
}

/// Decodes `bytes` with no check of the text beyond clean decoding (for OPML and other non-feed documents).
pub fn decode(bytes: &[u8], content_type: Option<&str>, forced: Option<&str>) -> Result<Decoded, DecodeError> {
    let options = Options { content_type, forced, tld: None };
    match decode_with::<_, ()>(bytes, &options, |text| Ok(text.to_owned())) {
        Ok((text, decision)) => Ok(Decoded { text, decision }),
        Err(Failure::Decode(e)) => Err(e),
        Err(Failure::Rejected { .. }) => unreachable!("decode accepts every text"),
    }
}

/// Decodes `bytes`, handing each candidate text to `accept` until one is accepted (the parser, for feeds).
///
/// A reading that yields characters XML forbids (ESC from an escape-based encoding read as ASCII, NULs of
/// UTF-16 read a byte at a time) has failed: it is set aside, and tried only after every other candidate.
///
/// What it costs a well-labelled UTF-8 feed: one pass over the bytes for the signals that need every byte (the
/// characters XML forbids among them, see [`sniff::scan`]) and one UTF-8 validation; the text handed to
/// `accept` is the bytes themselves, not a copy, unless the declaration has to be rewritten.
pub fn decode_with<T, E>(
    bytes: &[u8],
    options: &Options<'_>,
    mut accept: impl FnMut(&str) -> Result<T, Rejection<E>>,
) -> Result<(T, Decision), Failure<E>> {
    if bytes.is_empty() {
        return Err(Failure::Decode(DecodeError::Empty));
    }
    let a = Analysis::new(bytes, options.content_type);
    if a.body.is_empty() {
        return Err(Failure::Decode(DecodeError::OnlyBom));
    }
    if a.bom.is_none() && a.first.is_none() && a.body[..a.body.len().min(1024)].contains(&0) {
        return Err(Failure::Decode(DecodeError::Binary));
    }
    let mut notes = Vec::new();
    let strict = a.strict();
    let strict_record = match &strict {
        Ok((c, rule)) => Strict { encoding: Some(c.name().to_string()), rule: rule.clone() },
        Err(e) => Strict { encoding: None, rule: e.to_string() },
    };

    let mut attempts: Vec<Attempt> = Vec::new();
    if let Some(label) = options.forced {
        match a.resolve(label) {
            Ok(c) => attempts.push(Attempt::Clean(c, Source::Override)),
            Err(e) => notes.push(format!("the encoding forced for this feed ({label}) cannot be used: {e}; ignored")),
        }
    }
    let mut unsupported = match &strict {
        Ok((c, _)) if a.strict_is_latin1_mislabel(*c) => {
            notes.push("the declared ISO-8859-1 would turn this UTF-8 into control characters".into());
            None
        }
        Ok((c, _)) => {
            attempts.push(Attempt::Clean(*c, a.strict_source(*c)));
            None
        }
        Err(StrictError::Unsupported(name)) => Some(name.clone()),
        Err(StrictError::Rule(_)) => None,
    };
    if let Some(sniff::Escapes::Unsupported(name)) = a.escapes {
        unsupported.get_or_insert_with(|| format!("{name} (told by its escape sequences)"));
    }
    // The lenient chain is worked out only when the strict reading did not hold: a well-labelled feed costs one
    // validation pass.
    let only_evidence = unsupported.is_some();
    let lenient = std::iter::once_with(|| a.lenient_chain(only_evidence)).flatten();

    let mut first_rejection: Option<(E, Charset, Source)> = None;
    let mut detected: Option<Charset> = None;
    let mut tried: Vec<Charset> = Vec::new();
    // Readings that hold a character XML forbids: (charset, source, lossy, the character).
    let mut set_aside: Vec<(Charset, Source, bool, char)> = Vec::new();
    let mut stopped = false;
    // Hands a text to the caller; a rejection is remembered (the first one is what the caller hears) and
    // answers whether to go on.
    let mut offer = |text: &str, charset: Charset, source: Source| match judge(text, &mut accept) {
        Ok(accepted) => Ok(accepted),
        Err(rejection) => {
            if first_rejection.is_none() {
                first_rejection = Some((rejection.error, charset, source));
            }
            Err(rejection.retry)
        }
    };
    for attempt in attempts.into_iter().chain(lenient) {
        let (charset, source, lossy) = match attempt {
            Attempt::Clean(c, s) => (c, s, false),
            Attempt::MostlyUtf8 => (Charset::UTF_8, Source::Default, true),
            Attempt::Detect => {
                let (raw, refined) = detect::detect(a.body, options.tld);
                detected = Some(raw);
                (refined, Source::Detector, false)
            }
        };
        if tried.contains(&charset) && !lossy {
            continue;
        }
        tried.push(charset);
        // Bytes after a byte order mark are in the mark's encoding, whatever escape sequences they hold.
        if a.bom.is_some() && charset == Charset::ISO_2022_JP && source != Source::Override {
            continue;
        }
        let Some((text, lossy_note)) = read(a.body, charset, lossy) else { continue };
        // Text that is the bytes themselves was scanned with them.
        let forbidden = match charset {
            _ if source == Source::Override => None,
            Charset::Ascii if !lossy => a.scanned.forbidden_as_utf8,
            c if c == Charset::UTF_8 && !lossy => a.scanned.forbidden_as_utf8,
            _ => sniff::xml_forbidden(&text),
        };
        if let Some(c) = forbidden {
            set_aside.push((charset, source, lossy, c));
            continue;
        }
        match offer(&text, charset, source) {
            Ok((value, warning)) => {
                if let Some((charset, source, _, c)) = set_aside.first() {
                    notes.push(format!(
                        "{} (from {}) gives characters XML forbids (U+{:04X}), so that reading was set aside",
                        charset.name(),
                        source.describe(),
                        u32::from(*c)
                    ));
                }
                notes.extend(lossy_note);
                notes.extend(warning);
                let lenient = went_lenient(&strict, charset, source, lossy);
                let decision = a.decision(charset, source, lenient, strict_record, detected, notes);
                return Ok((value, decision));
            }
            Err(false) => {
                stopped = true;
                break;
            }
            Err(true) => {}
        }
    }
    // No clean reading was accepted: the readings with forbidden characters, in the order they came (the parser
    // removes those characters). Not when the document is in an encoding nobody here can decode: that would be
    // showing it garbled.
    if unsupported.is_none() && !stopped {
        for (charset, source, lossy, _) in set_aside {
            let Some((text, lossy_note)) = read(a.body, charset, lossy) else { continue };
            match offer(&text, charset, source) {
                Ok((value, warning)) => {
                    notes.extend(lossy_note);
                    notes.extend(warning);
                    let lenient = went_lenient(&strict, charset, source, lossy);
                    let decision = a.decision(charset, source, lenient, strict_record, detected, notes);
                    return Ok((value, decision));
                }
                Err(false) => break,
                Err(true) => {}
            }
        }
    }
    if let Some(name) = unsupported {
        return Err(Failure::Decode(DecodeError::Unsupported(name)));
    }
    match first_rejection {
        Some((error, charset, source)) => {
            let decision = a.decision(charset, source, strict.is_err(), strict_record, detected, notes);
            Err(Failure::Rejected { error, decision: Box::new(decision) })
        }
        // windows-1252 decodes anything, so only binary junk gets here.
        None => Err(Failure::Decode(DecodeError::Binary)),
    }
}

/// True when the reading chosen is not the strict one (a forced encoding is not leniency).
fn went_lenient(strict: &Result<(Charset, String), StrictError>, chosen: Charset, source: Source, lossy: bool) -> bool {
    match strict {
        _ if source == Source::Override => false,
        Ok((strict_charset, _)) => lossy || *strict_charset != chosen,
        Err(_) => true,
    }
}

/// `bytes` read in `charset` (with replacements when `lossy`) and a note on what was replaced; `None` when the
/// bytes are invalid in it or the text is binary. Borrowed when the bytes are already the text (UTF-8, ASCII).
fn read(bytes: &[u8], charset: Charset, lossy: bool) -> Option<(Cow<'_, str>, Option<String>)> {
    let (text, note) = if lossy {
        let (text, errors) = charset.decode_lossy(bytes);
        (text, Some(format!("{errors} invalid UTF-8 sequence(s) replaced with U+FFFD")))
    } else {
        (charset.decode_clean(bytes)?, None)
    };
    (!looks_binary(&text)).then_some((text, note))
}

/// Hands one decoded text, its declaration rewritten to say utf-8, to the caller's judge; on acceptance, also
/// returns the warning the rewrite gave.
fn judge<T, E>(
    text: &str,
    accept: &mut impl FnMut(&str) -> Result<T, Rejection<E>>,
) -> Result<(T, Option<String>), Rejection<E>> {
    let (text, warning) = sniff::with_utf8_declaration(text);
    accept(&text).map(|value| (value, warning))
}

/// One thing to try.
#[derive(Clone, Copy, Debug)]
enum Attempt {
    Clean(Charset, Source),
    /// UTF-8 with its few invalid sequences replaced (a cut-off last character, a stray byte).
    MostlyUtf8,
    /// Ask the detector.
    Detect,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum StrictError {
    /// A rule of the algorithm failed.
    Rule(String),
    /// The encoding the rules choose exists but cannot be decoded here.
    Unsupported(String),
}

impl std::fmt::Display for StrictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StrictError::Rule(r) => f.write_str(r),
            StrictError::Unsupported(name) => write!(f, "{name} cannot be decoded"),
        }
    }
}

/// The signals of one document.
struct Analysis<'a> {
    /// The bytes after any BOM.
    body: &'a [u8],
    bom: Option<Bom>,
    first: Option<Family>,
    declared: Option<String>,
    content_type: Option<ContentType>,
    json: bool,
    unusual_ucs4: bool,
    /// The escape-based encoding the escape sequences of a 7-bit document without a BOM belong to.
    escapes: Option<sniff::Escapes>,
    /// What one pass over the body found.
    scanned: sniff::ByteScan,
}

impl<'a> Analysis<'a> {
    fn new(bytes: &'a [u8], content_type: Option<&str>) -> Analysis<'a> {
        let bom = sniff::bom(bytes);
        let body = &bytes[bom.map_or(0, Bom::byte_len)..];
        let first = sniff::first_bytes(body);
        let family = bom.map(|b| b.charset().family()).or(first).unwrap_or(Family::Ascii);
        let declared = sniff::declared_encoding(body, family);
        let content_type = content_type.map(ContentType::parse);
        let starts_with_brace = match family {
            Family::Ascii => body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'),
            _ => false,
        };
        let json = content_type.as_ref().is_some_and(|ct| ct.kind() == MediaKind::Json) || starts_with_brace;
        let scanned = sniff::scan(body);
        Analysis {
            body,
            bom,
            first,
            declared,
            content_type,
            json,
            unusual_ucs4: bom.is_none() && sniff::unusual_ucs4(body),
            escapes: if bom.is_none() { sniff::escape_encoding_scanned(body, &scanned) } else { None },
            scanned,
        }
    }

    /// A label resolved against this document (UTF-16/32 without byte order take it from the BOM or first bytes).
    fn resolve(&self, label: &str) -> Result<Charset, StrictError> {
        match labels::resolve(label) {
            Label::Charset(c) => Ok(c),
            Label::Utf16 => match (self.bom, self.first) {
                (Some(Bom::Utf16Be), _) | (None, Some(Family::Utf16Be)) => Ok(Charset::UTF_16BE),
                (Some(Bom::Utf16Le), _) | (None, Some(Family::Utf16Le)) => Ok(Charset::UTF_16LE),
                _ => Err(StrictError::Rule(format!("'{label}' needs a byte order mark to tell its byte order"))),
            },
            Label::Utf32 => match (self.bom, self.first) {
                (Some(Bom::Utf32Be), _) | (None, Some(Family::Utf32Be)) => Ok(Charset::Utf32Be),
                (Some(Bom::Utf32Le), _) | (None, Some(Family::Utf32Le)) => Ok(Charset::Utf32Le),
                _ => Err(StrictError::Rule(format!("'{label}' needs a byte order mark to tell its byte order"))),
            },
            Label::Unsupported(name) => Err(StrictError::Unsupported(format!("{name} ('{}')", labels::clean(label)))),
            Label::Unknown => Err(StrictError::Rule(format!("'{label}' is not an encoding tidings knows"))),
        }
    }

    /// True when `label` says ISO-8859-1 but the bytes are UTF-8 that would be C1 control characters in
    /// ISO-8859-1: a server or template default, not what the author wrote. (A label that says windows-1252
    /// is believed: there those bytes are letters and punctuation.)
    fn latin1_mislabel(&self, label: &str) -> bool {
        let latin1 = matches!(
            labels::clean(label).as_str(),
            "iso-8859-1"
                | "iso8859-1"
                | "iso_8859-1"
                | "iso88591"
                | "latin1"
                | "latin-1"
                | "l1"
                | "iso-ir-100"
                | "csisolatin1"
                | "iso_8859-1:1987"
                | "ibm819"
                | "cp819"
        );
        latin1 && self.body.iter().any(|b| (0x80..=0x9F).contains(b)) && std::str::from_utf8(self.body).is_ok()
    }

    /// The strict algorithm: ROME's XmlReader (RFC 3023), with RFC 7303's rule that a BOM beats the charset.
    fn strict(&self) -> Result<(Charset, String), StrictError> {
        if self.unusual_ucs4 {
            return Err(StrictError::Unsupported("UCS-4 in an unusual byte order (2143 or 3412)".into()));
        }
        let Some(ct) = &self.content_type else {
            return if self.json { self.json_rules(None) } else { self.raw_rules() };
        };
        let http = |c: Charset, rule: &str| Ok((c, rule.to_string()));
        match ct.kind() {
            MediaKind::Json => self.json_rules(ct.charset.as_deref()),
            _ if self.json => self.json_rules(ct.charset.as_deref()),
            MediaKind::Other => Err(StrictError::Rule(format!(
                "HTTP 2.5: '{}' is not an XML media type",
                if ct.media_type.is_empty() { "(none)" } else { &ct.media_type }
            ))),
            kind => match (&ct.charset, self.bom) {
                (None, _) if kind == MediaKind::AppXml => {
                    self.raw_rules().map(|(c, rule)| (c, format!("HTTP 2.1 → {rule}")))
                }
                (None, _) => http(Charset::Ascii, "HTTP 2.2: text/xml without a charset is US-ASCII (RFC 3023)"),
                (Some(_), Some(bom)) => {
                    http(bom.charset(), "HTTP 2.3 (RFC 7303): the byte order mark beats the charset")
                }
                (Some(label), None) => match labels::resolve(label) {
                    Label::Utf16 | Label::Utf32 => {
                        Err(StrictError::Rule(format!("HTTP 2.4: charset '{label}' without a byte order mark")))
                    }
                    _ => self.resolve(label).map(|c| (c, "HTTP 2.6: the HTTP charset".to_string())),
                },
            },
        }
    }

    /// JSON (RFC 8259): a BOM, else the charset parameter, else UTF-8.
    fn json_rules(&self, charset: Option<&str>) -> Result<(Charset, String), StrictError> {
        match (self.bom, charset) {
            (Some(bom), _) => Ok((bom.charset(), "JSON: the byte order mark".into())),
            (None, Some(label)) => self.resolve(label).map(|c| (c, "JSON: the HTTP charset".into())),
            (None, None) => Ok((Charset::UTF_8, "JSON: UTF-8 by default (RFC 8259)".into())),
        }
    }

    /// ROME's raw rules (a file, or `application/*xml` without a charset).
    fn raw_rules(&self) -> Result<(Charset, String), StrictError> {
        let declared = self.declared.as_deref();
        let rule = |c: Charset, text: &str| Ok((c, text.to_string()));
        let error = |text: String| Err(StrictError::Rule(text));
        match self.bom {
            None => match declared {
                None => rule(Charset::UTF_8, "raw 1.0: no BOM and no declaration, so UTF-8"),
                Some(label) => match labels::resolve(label) {
                    Label::Utf16 | Label::Utf32 if matches!(self.first, Some(f) if f != Family::Ascii && f != Family::Ebcdic) =>
                    {
                        let c = self.resolve(label)?;
                        rule(c, "raw 1.1: the declaration says UTF-16/32; the first bytes tell the byte order")
                    }
                    _ => self.resolve(label).map(|c| (c, "raw 1.2: the XML declaration".to_string())),
                },
            },
            Some(Bom::Utf8) => {
                if self.first.is_some_and(|f| f != Family::Ascii) {
                    return error("raw 1.3: a UTF-8 BOM before bytes that are not UTF-8".into());
                }
                if let Some(label) = declared
                    && self.resolve(label).ok() != Some(Charset::UTF_8)
                {
                    return error(format!("raw 1.4: a UTF-8 BOM but the XML declaration says {label}"));
                }
                rule(Charset::UTF_8, "raw 1.5: the UTF-8 byte order mark")
            }
            Some(bom) => {
                let charset = bom.charset();
                if self.first.is_some_and(|f| f != charset.family()) {
                    return error(format!("raw 1.6: a {} BOM before bytes laid out otherwise", charset.name()));
                }
                let unmarked = matches!(bom, Bom::Utf16Be | Bom::Utf16Le);
                match declared.map(labels::resolve) {
                    None if !unmarked => error("XML 4.3.3: a UTF-32 document must declare its encoding".into()),
                    None => rule(charset, "raw 1.7: the byte order mark"),
                    Some(Label::Utf16) if unmarked => rule(charset, "raw 1.7: the byte order mark"),
                    Some(Label::Utf32) if !unmarked => rule(charset, "raw 1.7: the byte order mark"),
                    Some(Label::Charset(c)) if c == charset => rule(charset, "raw 1.7: the byte order mark"),
                    Some(_) => error(format!(
                        "raw 1.7: a {} BOM but the XML declaration says {}",
                        charset.name(),
                        declared.unwrap_or_default()
                    )),
                }
            }
        }
    }

    /// True when the strict choice came from an ISO-8859-1 label that [`Analysis::latin1_mislabel`] disbelieves.
    fn strict_is_latin1_mislabel(&self, chosen: Charset) -> bool {
        chosen == Charset::WINDOWS_1252
            && match self.strict_source(chosen) {
                Source::HttpCharset => self
                    .content_type
                    .as_ref()
                    .and_then(|ct| ct.charset.as_deref())
                    .is_some_and(|l| self.latin1_mislabel(l)),
                Source::XmlDeclaration => self.declared.as_deref().is_some_and(|l| self.latin1_mislabel(l)),
                _ => false,
            }
    }

    /// Which signal the strict result came from.
    fn strict_source(&self, chosen: Charset) -> Source {
        if self.bom.is_some_and(|b| b.charset() == chosen) {
            return Source::Bom;
        }
        if let Some(ct) = &self.content_type {
            if ct.charset.as_deref().and_then(|l| self.resolve(l).ok()) == Some(chosen) {
                return Source::HttpCharset;
            }
            if chosen == Charset::Ascii && ct.kind() == MediaKind::TextXml {
                return Source::MediaTypeDefault;
            }
        }
        match self.declared.as_deref().map(labels::resolve) {
            Some(Label::Utf16 | Label::Utf32) if self.bom.is_none() => Source::FirstBytes,
            Some(_) if self.declared.as_deref().and_then(|l| self.resolve(l).ok()) == Some(chosen) => {
                Source::XmlDeclaration
            }
            _ => Source::Default,
        }
    }

    /// The lenient chain, in order. With `only_evidence`, blind guesses (the detector, windows-1252) are left
    /// out: a document that names an encoding nobody can decode must not be shown garbled.
    fn lenient_chain(&self, only_evidence: bool) -> Vec<Attempt> {
        let mut chain = Vec::new();
        if let Some(bom) = self.bom {
            chain.push(Attempt::Clean(bom.charset(), Source::Bom));
        }
        // A 7-bit document that switches to JIS X 0208 with ISO-2022-JP's escape sequences is in ISO-2022-JP,
        // whatever its labels say: every other reading leaves ESC characters in the text.
        if self.escapes == Some(sniff::Escapes::Iso2022Jp) {
            chain.push(Attempt::Clean(Charset::ISO_2022_JP, Source::EscapeSequences));
        }
        let charset = self.content_type.as_ref().and_then(|ct| ct.charset.as_deref());
        if let Some(ct) = &self.content_type
            && ct.kind() == MediaKind::Other
            && !self.json
            && charset.is_none()
        {
            // The wrong media type read as text/xml, which without a charset means US-ASCII.
            chain.push(Attempt::Clean(Charset::Ascii, Source::MediaTypeDefault));
        }
        if let Some(c) =
            self.declared.as_deref().filter(|l| !self.latin1_mislabel(l)).and_then(|l| self.resolve(l).ok())
        {
            chain.push(Attempt::Clean(c, Source::XmlDeclaration));
        }
        if let Some(c) = charset.filter(|l| !self.latin1_mislabel(l)).and_then(|l| self.resolve(l).ok()) {
            chain.push(Attempt::Clean(c, Source::HttpCharset));
        }
        if let Some(family @ (Family::Utf16Be | Family::Utf16Le | Family::Utf32Be | Family::Utf32Le | Family::Ebcdic)) =
            self.first
        {
            chain.push(Attempt::Clean(sniff::family_charset(family), Source::FirstBytes));
        }
        if mostly_utf8(self.body) {
            chain.push(Attempt::MostlyUtf8);
        }
        if only_evidence {
            if !self.body.is_ascii() {
                chain.push(Attempt::Clean(Charset::UTF_8, Source::Default));
            }
            return chain;
        }
        chain.push(Attempt::Detect);
        chain.push(Attempt::Clean(Charset::UTF_8, Source::Default));
        chain.push(Attempt::Clean(Charset::WINDOWS_1252, Source::Fallback));
        chain
    }

    /// The decision for `chosen`, with every declared encoding that would have read the bytes differently.
    fn decision(
        &self,
        chosen: Charset,
        source: Source,
        lenient: bool,
        strict: Strict,
        detected: Option<Charset>,
        mut notes: Vec<String>,
    ) -> Decision {
        let content_type = self.content_type.as_ref();
        let signals = Signals {
            media_type: content_type.map(|ct| ct.media_type.clone()).filter(|m| !m.is_empty()),
            http_charset: content_type.and_then(|ct| ct.charset.clone()),
            bom: self.bom.map(|b| b.charset().name().to_string()),
            first_bytes: self.first.map(|f| f.describe().to_string()),
            xml_declaration: self.declared.clone(),
            detected: detected.map(|c| c.name().to_string()),
            escape_sequences: self.escapes.map(|e| e.name().to_string()),
        };
        let mut overridden = Vec::new();
        let named: [(&str, Option<Result<Charset, StrictError>>); 3] = [
            ("bom", self.bom.map(|b| Ok(b.charset()))),
            ("http_charset", signals.http_charset.as_deref().map(|l| self.resolve(l))),
            ("xml_declaration", signals.xml_declaration.as_deref().map(|l| self.resolve(l))),
        ];
        for (name, resolved) in named {
            match resolved {
                Some(Ok(c)) if !reads_the_same(c, chosen, self.body) => overridden.push(name.to_string()),
                Some(Err(e)) => {
                    notes.push(format!("{}: {e}", name.replace('_', " ")));
                    overridden.push(name.to_string());
                }
                _ => {}
            }
        }
        // (When the strict rules gave no answer, `strict.rule` already says why.)
        if lenient && strict.encoding.is_some() {
            notes.insert(
                0,
                format!(
                    "{} (the strict choice) did not give a readable feed",
                    strict.encoding.as_deref().unwrap_or("?")
                ),
            );
        }
        Decision { encoding: chosen.name().to_string(), source, signals, strict, overridden, lenient, notes }
    }
}

/// Whether two charsets give the same text for these bytes (any two ASCII-compatible ones do on ASCII bytes,
/// unless the bytes hold escape sequences that one of them reads as a switch of character set).
fn reads_the_same(a: Charset, b: Charset, body: &[u8]) -> bool {
    let switches = |c: Charset| c == Charset::ISO_2022_JP && body.contains(&0x1B);
    a == b
        || (a.family() == Family::Ascii
            && b.family() == Family::Ascii
            && body.is_ascii()
            && !switches(a)
            && !switches(b))
}

/// True when the bytes are UTF-8 but for a few broken sequences: a cut-off last character, a stray byte among
/// many well-formed multi-byte characters. Then UTF-8 with replacements beats any legacy guess.
fn mostly_utf8(bytes: &[u8]) -> bool {
    if std::str::from_utf8(bytes).is_ok() {
        return false;
    }
    let mut rest = bytes;
    let mut invalid = 0usize;
    let mut multibyte = 0usize;
    let mut cut_at_end = false;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                multibyte += valid.chars().filter(|c| !c.is_ascii()).count();
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                multibyte += std::str::from_utf8(valid).map_or(0, |v| v.chars().filter(|c| !c.is_ascii()).count());
                invalid += 1;
                match e.error_len() {
                    Some(n) => rest = &after[n..],
                    None => {
                        cut_at_end = true;
                        break;
                    }
                }
            }
        }
        if invalid > 64 {
            return false;
        }
    }
    invalid > 0 && ((invalid == 1 && cut_at_end) || multibyte >= 20 * invalid)
}

/// Text that holds NUL characters near its start is binary, or text read in the wrong byte width.
fn looks_binary(text: &str) -> bool {
    text.chars().take(1024).any(|c| c == '\0')
}

/// The top-level domain of a URL's host, as the detector wants it ("ru" for `https://lenta.ru/rss`).
pub fn tld_of(url: &str) -> Option<String> {
    let host = url::Url::parse(url).ok()?.host_str()?.to_ascii_lowercase();
    let tld = host.rsplit('.').next()?;
    (tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic())).then(|| tld.to_string())
}

#[cfg(test)]
mod tests;
