//! Plain-text helpers shared by the parser, OPML and discovery: HTML entity decoding and tag stripping.
//! Pure functions over strings.

use std::borrow::Cow;

/// Decodes HTML character references (`&amp;`, `&eacute;`, `&#233;`, `&#xE9;`, and every HTML5 named
/// entity). Unknown references are left as written.
pub fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match entity_at(rest) {
            Some((decoded, len)) => {
                out.push_str(&decoded);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The character reference at the start of `s` (which starts with `&`): its text and its length in bytes.
pub fn entity_at(s: &str) -> Option<(String, usize)> {
    let body = &s[1..];
    if let Some(num) = body.strip_prefix('#') {
        let (digits, radix, skip) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16, 3),
            None => (num, 10, 2),
        };
        let len = digits.bytes().take_while(|b| (*b as char).is_digit(radix)).count();
        if len == 0 || len > 8 {
            return None;
        }
        let value = u32::from_str_radix(&digits[..len], radix).ok()?;
        let c = char::from_u32(value).filter(|c| *c != '\0').unwrap_or('\u{FFFD}');
        let semi = usize::from(digits[len..].starts_with(';'));
        return Some((c.to_string(), skip + len + semi));
    }
    let name_len = body.bytes().take_while(|b| b.is_ascii_alphanumeric()).count();
    if name_len == 0 || name_len > 32 {
        return None;
    }
    let with_semi = body[name_len..].starts_with(';');
    let key = &body[..name_len + usize::from(with_semi)];
    // The table also holds every prefix of every name (for incremental tokenizing), mapped to (0, 0).
    let (a, b) = markup5ever::data::NAMED_ENTITIES.get(key).copied().filter(|(a, _)| *a != 0)?;
    let mut text = String::new();
    text.extend(char::from_u32(a));
    if b != 0 {
        text.extend(char::from_u32(b));
    }
    Some((text, 1 + key.len()))
}

/// Turns a fragment of HTML into one line of plain text: tags removed (`<br>` and block ends become spaces),
/// entities decoded, whitespace folded and trimmed. For titles and names, not for article bodies.
pub fn html_to_plain(s: &str) -> String {
    let mut stripped = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('<') {
        stripped.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let looks_like_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!' || c == '?');
        if !looks_like_tag {
            stripped.push('<');
            rest = after;
            continue;
        }
        match after.find('>') {
            Some(end) => {
                let name: String =
                    after.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
                if BREAKING_TAGS.contains(&name.to_ascii_lowercase().as_str()) {
                    stripped.push(' ');
                }
                rest = &after[end + 1..];
            }
            None => {
                rest = "";
            }
        }
    }
    stripped.push_str(rest);
    fold_whitespace(&decode_entities(&stripped))
}

/// Tags that separate words when stripped; inline tags (`b`, `a`, `span`…) do not.
const BREAKING_TAGS: &[&str] = &[
    "br",
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "td",
    "th",
    "table",
    "hr",
    "blockquote",
    "pre",
    "section",
    "article",
    "header",
    "footer",
    "dd",
    "dt",
    "img",
];

/// Collapses every run of whitespace into one space and trims the ends.
pub fn fold_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// True when a string looks like it carries markup or character references, so that it should be read as HTML.
pub fn looks_like_html(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes.windows(2).any(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || w[1] == b'/' || w[1] == b'!'))
        || (s.contains('&') && s.contains(';'))
}

/// A date for lists, in local time.
pub fn format_date(ts: i64) -> String {
    local(ts).map(|d| d.format("%Y-%m-%d").to_string()).unwrap_or_default()
}

/// A date and time, in local time.
pub fn format_datetime(ts: i64) -> String {
    local(ts).map(|d| d.format("%Y-%m-%d %H:%M").to_string()).unwrap_or_default()
}

/// A moment in the next hours: the time alone when it is today, else the date too.
pub fn format_time(ts: i64) -> String {
    let Some(at) = local(ts) else { return String::new() };
    if Some(at.date_naive()) == local(chrono::Utc::now().timestamp()).map(|n| n.date_naive()) {
        at.format("%H:%M").to_string()
    } else {
        at.format("%Y-%m-%d %H:%M").to_string()
    }
}

fn local(ts: i64) -> Option<chrono::DateTime<chrono::Local>> {
    chrono::DateTime::from_timestamp(ts, 0).map(|d| d.with_timezone(&chrono::Local))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_named_numeric_and_hex_references() {
        assert_eq!(decode_entities("caf&eacute; &amp; &#233;&#xE9; &nbsp;&hellip;"), "café & éé \u{a0}…");
    }

    #[test]
    fn leaves_unknown_and_bare_ampersands_alone() {
        assert_eq!(decode_entities("AT&T &bogus; & more"), "AT&T &bogus; & more");
    }

    #[test]
    fn numeric_reference_to_nul_becomes_replacement_character() {
        assert_eq!(decode_entities("a&#0;b"), "a\u{FFFD}b");
    }

    #[test]
    fn html_to_plain_strips_tags_and_folds_whitespace() {
        assert_eq!(html_to_plain("<b>Hello</b>,\n  <i>world</i> &amp; 1 < 2"), "Hello, world & 1 < 2");
    }

    #[test]
    fn html_to_plain_drops_an_unclosed_tag() {
        assert_eq!(html_to_plain("Title <img src=x"), "Title");
        assert_eq!(html_to_plain("one<br/>two<p>three</p>"), "one two three");
    }

    #[test]
    fn looks_like_html_spots_tags_and_references() {
        assert!(looks_like_html("a <b>b</b>"));
        assert!(looks_like_html("Tom &amp; Jerry"));
        assert!(!looks_like_html("1 < 2 & 3"));
    }
}
