//! Plain-text helpers shared by the parser, OPML and discovery: HTML entity decoding and tag stripping.
//! Pure functions over strings.

use std::borrow::Cow;

/// Decodes HTML character references (`&amp;`, `&eacute;`, `&#233;`, `&#xE9;`, and every HTML5 named
/// entity). Unknown references are left as written.
/// "1 feed", "3 feeds": `n` and the word in the number it takes.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {many}") }
}

pub fn decode_entities(s: &str) -> Cow<'_, str> {
    if !has_byte(s, b'&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    decode_entities_into(s, &mut out);
    Cow::Owned(out)
}

/// [`decode_entities`], appending to `out`.
pub fn decode_entities_into(s: &str, out: &mut String) {
    let mut rest = s;
    while let Some(at) = memchr::memchr(b'&', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match entity_chars_at(rest) {
            Some((chars, len)) => {
                out.extend(chars.into_iter().flatten());
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
}

/// The character reference at the start of `s` (which starts with `&`): its text and its length in bytes.
pub fn entity_at(s: &str) -> Option<(String, usize)> {
    entity_chars_at(s).map(|(chars, len)| (chars.into_iter().flatten().collect(), len))
}

/// [`entity_at`] without a string: the (at most two) characters the reference stands for.
pub fn entity_chars_at(s: &str) -> Option<([Option<char>; 2], usize)> {
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
        return Some(([Some(c), None], skip + len + semi));
    }
    let name_len = body.bytes().take_while(|b| b.is_ascii_alphanumeric()).count();
    if name_len == 0 || name_len > 32 {
        return None;
    }
    let with_semi = body[name_len..].starts_with(';');
    let key = &body[..name_len + usize::from(with_semi)];
    // The table also holds every prefix of every name (for incremental tokenizing), mapped to (0, 0).
    let (a, b) = markup5ever::data::NAMED_ENTITIES.get(key).copied().filter(|(a, _)| *a != 0)?;
    let second = if b != 0 { char::from_u32(b) } else { None };
    Some(([char::from_u32(a), second], 1 + key.len()))
}

/// Longest title kept, in characters.
pub const MAX_TITLE_CHARS: usize = 1000;

/// A title for an entry that has none: the first line of its text, cut near 80 characters on a word boundary.
pub fn first_line(html: Option<&str>) -> Option<String> {
    let text = html_to_plain(crate::sanitize::truncate_bytes(html?, 4096));
    let first = text.split(['\n', '.', '!', '?']).map(str::trim).find(|l| !l.is_empty())?;
    if first.chars().count() <= 80 {
        return Some(crate::sanitize::one_line(first, MAX_TITLE_CHARS));
    }
    let cut: String = first.chars().take(80).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    Some(format!("{}…", crate::sanitize::one_line(cut, MAX_TITLE_CHARS)))
}

/// Turns a fragment of HTML into one line of plain text: tags removed (`<br>` and block ends become spaces),
/// elements that are not content (`<script>`, `<style>`, `<head>`, `<template>`…) removed with what they hold,
/// comments dropped, entities decoded, whitespace folded and trimmed. Only HTML's own elements are markup: a `<`
/// that starts no known tag (`Nice <gorilla>`, `A<B`) is text and stays. For titles, names and summaries, not for
/// article bodies.
pub fn html_to_plain(s: &str) -> String {
    to_plain(s, false)
}

/// An article body's text, on one line, for indexing: as [`html_to_plain`], except that every tag is markup,
/// whatever its name (a body is HTML for sure, and unknown elements are shown by their content, as browsers do).
pub fn html_body_to_plain(s: &str) -> String {
    to_plain(s, true)
}

fn to_plain(s: &str, every_tag_is_markup: bool) -> String {
    let mut stripped = String::with_capacity(s.len());
    strip_tags(s, every_tag_is_markup, false, &mut stripped);
    fold_whitespace(&decode_entities(&stripped))
}

/// [`html_to_plain`] cut to one line of at most `max_chars` characters, controls removed: what
/// `sanitize::one_line(&html_to_plain(s), max_chars)` gives, in one pass over the text and with no string but
/// the line's own (the text is stripped of tags into a buffer each thread reuses).
pub fn html_to_line(s: &str, max_chars: usize) -> String {
    with_text_of(s, false, |text| crate::sanitize::one_line(text, max_chars))
}

/// Whether [`html_to_plain`] gives any text, without making it: the tags are stripped only up to the first text
/// (a refresh asks this of every entry's content and summary).
pub fn html_has_text(s: &str) -> bool {
    // Text before any tag or reference shows, whatever follows it (stripping keeps it, decoding leaves it).
    let s = s.trim_start();
    match s.bytes().next() {
        None => return false,
        Some(b'<' | b'&') => {}
        Some(_) => return true,
    }
    opens_with_text_in_a_plain_tag(s) || with_text_of(s, true, |text| text.chars().any(|c| !c.is_whitespace()))
}

/// True when `s` opens with a plain start tag (`<p>`, `<div>`: an element's name alone, no attributes) of an
/// element that hides nothing, right before a character of text: the first text [`strip_tags`] would find. Most
/// bodies open so (a paragraph), and this answers without setting the stripping up.
fn opens_with_text_in_a_plain_tag(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('<') else { return false };
    let name_len = rest.bytes().take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit()).count();
    let (name, after) = rest.split_at(name_len);
    let mut after = after.bytes();
    after.next() == Some(b'>')
        // An ASCII character that is neither whitespace nor the start of a tag or a reference.
        && after.next().is_some_and(|b| b.is_ascii_graphic() && b != b'<' && b != b'&')
        && is_html_element(name)
        && !is_not_content(name)
        && !matches!(name, "svg" | "math")
}

/// Buffers reused for the text of HTML fragments (titles, names, the heads of bodies): hundreds of thousands
/// of small strings per refresh otherwise. Given back at most this large.
const KEPT_BUFFER_BYTES: usize = 128 * 1024;

thread_local! {
    static BUFFERS: std::cell::RefCell<(String, String)> = const { std::cell::RefCell::new((String::new(), String::new())) };
}

/// Runs `f` on the text of an HTML fragment as [`html_to_plain`] reads it, before whitespace is folded: tags
/// stripped, entities decoded. With `until_text`, only up to its first text (see [`strip_tags`]).
fn with_text_of<R>(s: &str, until_text: bool, f: impl FnOnce(&str) -> R) -> R {
    let run = |stripped: &mut String, decoded: &mut String| {
        stripped.clear();
        strip_tags(s, false, until_text, stripped);
        if !has_byte(stripped, b'&') {
            return f(stripped);
        }
        decoded.clear();
        decode_entities_into(stripped, decoded);
        f(decoded)
    };
    BUFFERS.with(|buffers| match buffers.try_borrow_mut() {
        Ok(mut buffers) => {
            let (stripped, decoded) = &mut *buffers;
            let result = run(stripped, decoded);
            for buffer in [stripped, decoded] {
                if buffer.capacity() > KEPT_BUFFER_BYTES {
                    *buffer = String::new();
                }
            }
            result
        }
        Err(_) => run(&mut String::new(), &mut String::new()),
    })
}

/// Whether `s` holds the ASCII byte `b` (a byte search: `str::contains` with a `char` costs more to set up than
/// the short texts here are long).
pub(crate) fn has_byte(s: &str, b: u8) -> bool {
    memchr::memchr(b, s.as_bytes()).is_some()
}

/// Appends the text of `s` to `stripped`: tags and comments removed (see [`html_to_plain`]), entities left.
/// With `until_text`, it stops at the first text that shows (not only whitespace) while nothing it appended
/// holds a `&`: a reference may stand for whitespace, and one cut by a tag (`&<b>nbsp;</b>`) joins the text
/// after it once decoded, so after the first `&` it strips to the end. What it appended then shows text exactly
/// when the whole would.
fn strip_tags(s: &str, every_tag_is_markup: bool, until_text: bool, stripped: &mut String) {
    let mut may_stop = until_text;
    let mut shows = |text: &str| {
        may_stop &= !has_byte(text, b'&');
        may_stop && text.chars().any(|c| !c.is_whitespace())
    };
    let mut rest = s;
    // Inside `<svg>` or `<math>` every tag is markup, whatever its name.
    let mut foreign = 0usize;
    while let Some(at) = memchr::memchr(b'<', rest.as_bytes()) {
        stripped.push_str(&rest[..at]);
        if shows(&rest[..at]) {
            return;
        }
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("<!--") {
            // A comment never closed ends at the first `>`, rather than swallowing the text after it.
            rest = match after.find("-->") {
                Some(end) => &after[end + 3..],
                None => after.find('>').map_or("", |end| &after[end + 1..]),
            };
            continue;
        }
        if let Some(after) = rest.strip_prefix("<![CDATA[") {
            let end = after.find("]]>").unwrap_or(after.len());
            stripped.push_str(&after[..end]);
            if shows(&after[..end]) {
                return;
            }
            rest = after.get(end + 3..).unwrap_or("");
            continue;
        }
        let declaration = rest.starts_with("<?")
            || rest[1..].strip_prefix('!').is_some_and(|d| d.starts_with(|c: char| c.is_ascii_alphabetic()));
        if declaration && let Some(end) = rest.find('>') {
            rest = &rest[end + 1..];
            continue;
        }
        let closing = rest.starts_with("</");
        let after_open = &rest[if closing { 2 } else { 1 }..];
        let name_len =
            after_open.bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b':' | b'_')).count();
        let name = &after_open[..name_len];
        let name: Cow<'_, str> = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(name.to_ascii_lowercase())
        } else {
            name.into()
        };
        if name.is_empty() || (foreign == 0 && !every_tag_is_markup && !is_html_element(&name)) {
            // Not markup: the `<` is text (which no reference before it can take in).
            stripped.push('<');
            if until_text {
                return;
            }
            rest = &rest[1..];
            continue;
        }
        // A `>` inside a quoted attribute value does not end the tag, unless the quoting is broken (a `<` inside
        // the "value" says so) and the first `>` is the better guess.
        let first_gt = memchr::memchr(b'>', rest.as_bytes()).map(|e| e + 1);
        let end = match (crate::markup::tag_end(rest), first_gt) {
            (Some(quoted), Some(first)) if quoted > first && rest[first..quoted].contains('<') => Some(first),
            (quoted, first) => quoted.or(first),
        };
        let Some(end) = end else {
            // A tag cut off at the end of the text: drop it when it had begun its attributes ("<img src=x"),
            // keep it as text when it is only a word ("A<B").
            let tail = &rest[1..];
            if tail.trim_end().contains(char::is_whitespace) {
                rest = "";
            } else {
                stripped.push('<');
                rest = tail;
            }
            continue;
        };
        let self_closing = rest[..end].ends_with("/>");
        rest = &rest[end..];
        if name == "svg" || name == "math" {
            if closing {
                foreign = foreign.saturating_sub(1);
            } else if !self_closing {
                foreign += 1;
            }
        }
        if is_breaking_tag(&name) {
            stripped.push(' ');
        }
        if !closing && !self_closing && foreign == 0 && is_not_content(&name) && !rest.is_empty() {
            rest = after_end_tag(rest, &name);
        }
    }
    stripped.push_str(rest);
}

/// What follows the end tag `</name>` in `s` (nothing, when the element is never closed).
fn after_end_tag<'s>(s: &'s str, name: &str) -> &'s str {
    let mut from = 0;
    while let Some(at) = s[from..].find("</").map(|i| i + from) {
        let after = &s.as_bytes()[at + 2..];
        let named = after.len() >= name.len() && after[..name.len()].eq_ignore_ascii_case(name.as_bytes());
        if named && after.get(name.len()).is_none_or(|c| *c == b'>' || *c == b'/' || c.is_ascii_whitespace()) {
            return s[at..].find('>').map_or("", |end| &s[at + end + 1..]);
        }
        from = at + 2;
    }
    ""
}

/// Tags that separate words when stripped; inline tags (`b`, `a`, `span`…) do not.
fn is_breaking_tag(name: &str) -> bool {
    matches!(
        name,
        "br" | "p"
            | "div"
            | "li"
            | "ul"
            | "ol"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "tr"
            | "td"
            | "th"
            | "table"
            | "hr"
            | "blockquote"
            | "pre"
            | "section"
            | "article"
            | "header"
            | "footer"
            | "dd"
            | "dt"
            | "img"
            | "figure"
            | "figcaption"
            | "main"
            | "nav"
            | "aside"
            | "address"
            | "details"
            | "summary"
            | "dl"
            | "caption"
            | "option"
            | "textarea"
    )
}

/// Elements whose content is not text a reader shows: code, styles, document metadata, templates, applets.
fn is_not_content(name: &str) -> bool {
    matches!(name, "script" | "style" | "template" | "head" | "title" | "applet")
}

/// True for the names HTML (with its obsolete elements, SVG and MathML roots) defines, for custom elements
/// (`my-widget`) and for prefixed ones (`o:p`, written by word processors).
pub fn is_html_element(name: &str) -> bool {
    !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && (name.bytes().any(|b| b == b'-' || b == b':')
            || HTML_ELEMENTS.binary_search(&name).is_ok()
            || FEED_HTML_ELEMENTS.contains(&name))
}

/// HTML's elements, current and obsolete, sorted.
#[rustfmt::skip]
const HTML_ELEMENTS: &[&str] = &[
    "a", "abbr", "acronym", "address", "applet", "area", "article", "aside", "audio", "b", "base", "basefont",
    "bdi", "bdo", "bgsound", "big", "blink", "blockquote", "body", "br", "button", "canvas", "caption", "center",
    "cite", "code", "col", "colgroup", "command", "content", "data", "datagrid", "datalist", "dd", "del",
    "details", "dfn", "dialog", "dir", "div", "dl", "dt", "em", "embed", "fieldset", "figcaption", "figure",
    "font", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup",
    "hr", "html", "i", "iframe", "image", "img", "input", "ins", "isindex", "kbd", "keygen", "label", "legend",
    "li", "link", "listing", "main", "map", "mark", "marquee", "math", "menu", "menuitem", "meta", "meter",
    "multicol", "nav", "nextid", "nobr", "noembed", "noframes", "noscript", "object", "ol", "optgroup", "option",
    "output", "p", "param", "picture", "plaintext", "pre", "progress", "q", "rb", "rp", "rt", "rtc", "ruby", "s",
    "samp", "script", "search", "section", "select", "slot", "small", "source", "spacer", "span", "strike",
    "strong", "style", "sub", "summary", "sup", "svg", "table", "tbody", "td", "template", "textarea", "tfoot",
    "th", "thead", "time", "title", "tr", "track", "tt", "u", "ul", "var", "video", "wbr", "xmp",
];

/// Collapses every run of whitespace into one space and trims the ends.
pub fn fold_whitespace(s: &str) -> String {
    // One pass and one allocation: every entry's text goes through here on each refresh.
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Whether text that has no declared type is HTML, judged by evidence the way feedparser judges it: it must hold
/// an end tag (`</b>`) or a character reference (`&amp;`, `&#39;`), every tag must be an element HTML feeds
/// use (or `<script>` / `<style>`, which are never words), and every named reference must be one HTML defines.
/// False positives would delete words, so doubt reads as text: `Nice <gorilla> what's he weigh?` and `A<B` are
/// text.
pub fn looks_like_html(s: &str) -> bool {
    // Most titles hold neither: two byte searches answer them.
    if !has_byte(s, b'<') && !has_byte(s, b'&') {
        return false;
    }
    // `<` then `/`, rather than a search for "</": the string searcher's set-up costs more than most titles are long.
    let has_end_tag = s.match_indices('<').any(|(i, _)| {
        if s.as_bytes().get(i + 1) != Some(&b'/') {
            return false;
        }
        let name = word_at(&s[i + 2..]);
        !name.is_empty() && s[i + 2 + name.len()..].starts_with('>')
    });
    let has_reference = s.match_indices('&').any(|(i, _)| {
        let after = &s[i + 1..];
        let after = after.strip_prefix('#').unwrap_or(after);
        let name = word_at(after);
        !name.is_empty() && after[name.len()..].starts_with(';')
    });
    if !has_end_tag && !has_reference {
        return false;
    }
    let tags_known = s.match_indices('<').all(|(i, _)| {
        let after = &s[i + 1..];
        let name = word_at(after.strip_prefix('/').unwrap_or(after));
        let name = name.to_ascii_lowercase();
        name.is_empty() || FEED_HTML_ELEMENTS.contains(&name.as_str()) || name == "script" || name == "style"
    });
    let references_known = s.match_indices('&').all(|(i, _)| {
        let after = &s[i + 1..];
        let name = word_at(after);
        name.is_empty() || !after[name.len()..].starts_with(';') || entity_at(&s[i..]).is_some()
    });
    tags_known && references_known
}

/// The run of word characters (letters, digits, `_`) at the start of `s`.
fn word_at(s: &str) -> &str {
    let len = s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..len]
}

/// The elements feeds put in text (feedparser's list of acceptable elements): tags of any other name are not
/// evidence of HTML.
#[rustfmt::skip]
const FEED_HTML_ELEMENTS: &[&str] = &[
    "a", "abbr", "acronym", "address", "area", "article", "aside", "audio", "b", "big", "blockquote", "br",
    "button", "canvas", "caption", "center", "cite", "code", "col", "colgroup", "command", "datagrid", "datalist",
    "dd", "del", "details", "dfn", "dialog", "dir", "div", "dl", "dt", "em", "event-source", "fieldset",
    "figcaption", "figure", "font", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i",
    "img", "input", "ins", "kbd", "keygen", "label", "legend", "li", "m", "map", "menu", "meter", "multicol",
    "nav", "nextid", "noscript", "ol", "optgroup", "option", "output", "p", "pre", "progress", "q", "s", "samp",
    "section", "select", "small", "sound", "source", "spacer", "span", "strike", "strong", "sub", "sup", "table",
    "tbody", "td", "textarea", "tfoot", "th", "thead", "time", "tr", "tt", "u", "ul", "var", "video",
];

/// The name in `names` closest to `word` (by edit distance), when it is close enough to be a typo.
pub fn closest<'n>(word: &str, names: &[&'n str]) -> Option<&'n str> {
    let word = word.to_ascii_lowercase();
    names
        .iter()
        .map(|n| (edit_distance(&word, n), *n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(row[j + 1] + 1);
            prev = current;
        }
    }
    row[b.len()]
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
    fn a_body_is_markup_through_and_through_but_a_title_keeps_what_is_not_html() {
        assert_eq!(html_to_plain("Nice <gorilla>kept</gorilla>"), "Nice <gorilla>kept</gorilla>");
        assert_eq!(html_body_to_plain("Nice <gorilla>kept</gorilla>"), "Nice kept");
        assert_eq!(html_body_to_plain("1 < 2 <script>x()</script>"), "1 < 2");
    }

    #[test]
    fn html_to_plain_strips_tags_and_folds_whitespace() {
        assert_eq!(html_to_plain("<b>Hello</b>,\n  <i>world</i> &amp; 1 < 2"), "Hello, world & 1 < 2");
    }

    #[test]
    fn html_to_plain_keeps_what_is_not_markup() {
        assert_eq!(html_to_plain("Nice <gorilla> what's he weigh?"), "Nice <gorilla> what's he weigh?");
        assert_eq!(html_to_plain("A<B"), "A<B");
        assert_eq!(html_to_plain("<!DOCTYPE"), "<!DOCTYPE");
        assert_eq!(html_to_plain("<!' <a href=\"foo\">"), "<!'");
        assert_eq!(html_to_plain("1 < 2 <3 &lt;4"), "1 < 2 <3 <4");
    }

    #[test]
    fn html_to_plain_drops_scripts_styles_and_comments_with_their_content() {
        let html = "<style>p{color:red}</style><p>safe<script>location.href='http:/'+'/example.com/'</script> \
                    description<!-- note --></p><SCRIPT type=x>a<b</SCRIPT>!";
        assert_eq!(html_to_plain(html), "safe description !");
        assert_eq!(html_to_plain("<a title='x > y'>link</a>"), "link", "> inside an attribute value");
        assert_eq!(html_to_plain("<a href=\"'f(\"\"x\");'\">spec</a><b>tator</b>"), "spectator", "broken quoting");
        assert_eq!(html_to_plain("<blink>safe</blink> text"), "safe text");
        assert_eq!(html_to_plain("sa<!-- -- never closed >fe"), "safe");
    }

    #[test]
    fn html_to_plain_reads_svg_and_mathml_as_markup() {
        assert_eq!(html_to_plain("<math><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow></math>"), "a+b");
        assert_eq!(html_to_plain("<svg><title>foo</title><circle r=\"1\"/></svg> after"), "foo after");
    }

    #[test]
    fn html_to_plain_drops_an_unclosed_tag() {
        assert_eq!(html_to_plain("Title <img src=x"), "Title");
        assert_eq!(html_to_plain("one<br/>two<p>three</p>"), "one two three");
    }

    #[test]
    fn a_line_of_html_is_its_plain_text_on_one_line() {
        let samples = [
            "<b>Hello</b>,\n  <i>world</i> &amp; 1 < 2",
            "  a&nbsp;b &#x2028; c\u{1b}[2J <script>x()</script> d ",
            "שלום <b>עולם</b>\u{200f}!",
            "paypal\u{200f}.com",
            "",
            "<p></p>&nbsp;",
            "Nice <gorilla> what's he weigh?",
            // Text only after references to whitespace, an empty CDATA section, a comment or a script.
            "&nbsp;<p>x</p>",
            "<p>&#160;</p><![CDATA[ ]]>\n<!-- c --><script>x()</script><b>y</b>",
            "<p>&nbsp;</p><![CDATA[ ]]><br/>&#32;",
            "<![CDATA[z]]>",
            " <p> </p> a<b",
            // References cut by tags or CDATA sections, which join the text after them once decoded.
            "&<b>nbsp;</b>x",
            "&n<i>bsp;</i>x",
            "&<![CDATA[nbsp;]]>x",
            "&#<b>3</b>2",
        ];
        for html in samples {
            for max in [1, 3, 10, 1000] {
                assert_eq!(html_to_line(html, max), crate::sanitize::one_line(&html_to_plain(html), max), "{html:?}");
            }
            assert_eq!(html_has_text(html), !html_to_plain(html).is_empty(), "{html:?}");
        }
        // And 20,000 fragments of references, tags, sections and text that cut one another (the same every run):
        // whether one shows text is answered as its whole plain text would answer it.
        let pieces = [
            "&",
            "nbsp;",
            "#32;",
            "#3",
            "2",
            "#x2028;",
            "amp;",
            ";",
            "<b>",
            "</b>",
            "<![CDATA[",
            "]]>",
            "<!-- c -->",
            "<script>",
            "</script>",
            "<svg>",
            "</svg>",
            "<p>",
            "<title>",
            "<math>",
            "<b1>",
            "<br/>",
            "<",
            "x",
            " ",
            "\n",
        ];
        let mut next = crate::testing::numbers(0x2545_f491_4f6c_dd1d_u64);
        for _ in 0..20_000 {
            let html: String = (0..next() % 8).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect();
            assert_eq!(html_has_text(&html), !html_to_plain(&html).is_empty(), "{html:?}");
        }
        let long = format!("<p>{}</p>", "word ".repeat(100_000));
        assert_eq!(html_to_line(&long, 9), crate::sanitize::one_line(&html_to_plain(&long), 9));
        BUFFERS.with(|b| assert!(b.borrow().0.capacity() <= KEPT_BUFFER_BYTES, "a big buffer is given back"));
    }

    #[test]
    fn looks_like_html_spots_tags_and_references() {
        assert!(looks_like_html("a <b>b</b>"));
        assert!(looks_like_html("Tom &amp; Jerry"));
        assert!(!looks_like_html("1 < 2 & 3"));
    }
}
