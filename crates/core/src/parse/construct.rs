//! Text constructs: what the text of a title, summary or content element *is*, plain text or HTML, read the way
//! its format defines it.
//!
//! - Atom (RFC 4287 §3.1): `type="text"` (the default) is literal text; `type="html"` is HTML, escaped once in
//!   the XML (and unescaped once by reading it); `type="xhtml"` is the content of its `<div>`. Atom 0.3's media
//!   types (`text/plain`, `text/html`, `application/xhtml+xml`, even `plain`) and its `mode="escaped"` /
//!   `mode="base64"` read the same way.
//! - RSS and the modules (no type): descriptions and encoded content are HTML; titles are HTML only when the
//!   evidence says so ([`crate::text::looks_like_html`]), as feedparser decides.
//! - Markup written straight into the element ("naked" child elements) is HTML wherever it appears (it is Atom
//!   0.3's default, `mode="xml"`), and keeps its text.
//!
//! Pure: an element in, a [`Text`] out.

use super::tree::{Element, Ns};
use crate::sanitize::{one_line, truncate_bytes};
use crate::text::{fold_whitespace, html_to_line, html_to_plain, looks_like_html};
use base64::Engine;
use std::borrow::Cow;

/// How much of a text is read to make one line of it.
const MAX_LINE_SOURCE_BYTES: usize = 64 * 1024;

/// The value of a text construct: borrowed from the document where it is one piece of its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Text<'a> {
    Plain(Cow<'a, str>),
    Html(Cow<'a, str>),
}

impl Text<'_> {
    /// As one line of plain text: markup removed from HTML, whitespace folded. Only the first 64 KiB are read:
    /// more is never shown on one line.
    pub fn to_plain(&self) -> String {
        match self {
            Text::Plain(s) => fold_whitespace(truncate_bytes(s, MAX_LINE_SOURCE_BYTES)),
            Text::Html(s) => html_to_plain(truncate_bytes(s, MAX_LINE_SOURCE_BYTES)),
        }
    }

    /// [`Text::to_plain`] as a display line of at most `max_chars` characters (see `sanitize::one_line`), in
    /// one pass and one string.
    pub fn to_line(&self, max_chars: usize) -> String {
        match self {
            Text::Plain(s) => one_line(truncate_bytes(s, MAX_LINE_SOURCE_BYTES), max_chars),
            Text::Html(s) => html_to_line(truncate_bytes(s, MAX_LINE_SOURCE_BYTES), max_chars),
        }
    }

    /// As HTML: plain text escaped so that it renders as written.
    pub fn into_html(self) -> String {
        match self {
            Text::Plain(s) => super::escape_html(&s),
            Text::Html(s) => s.into_owned(),
        }
    }

    /// The same text, owning its string.
    pub fn into_owned(self) -> Text<'static> {
        match self {
            Text::Plain(s) => Text::Plain(Cow::Owned(s.into_owned())),
            Text::Html(s) => Text::Html(Cow::Owned(s.into_owned())),
        }
    }

    fn is_blank(&self) -> bool {
        match self {
            Text::Plain(s) | Text::Html(s) => s.trim().is_empty(),
        }
    }
}

/// How an untyped element (RSS, Dublin Core, iTunes…) is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Untyped {
    /// Text unless it carries evidence of HTML: titles, names.
    Guess,
    /// HTML: RSS descriptions, `content:encoded`.
    Html,
}

/// Reads an element as a text construct. `atom` says the element is Atom's (its namespace, or no namespace in
/// an Atom document). `None` when it holds nothing (or only binary data).
pub fn read<'e>(el: &'e Element<'_>, atom: bool, untyped: Untyped) -> Option<Text<'e>> {
    let declared = el.attr("type").map(|t| t.trim().to_ascii_lowercase());
    let text = match (atom, declared) {
        (true, declared) => typed(el, declared.as_deref().unwrap_or("text"))?,
        // An untyped element that declares an Atom-like type anyway is read by it.
        (false, Some(t)) if kind_of(&t) != Kind::Binary => typed(el, &t)?,
        (false, _) if el.has_elements() => Text::Html(Cow::Owned(el.inner_markup())),
        (false, _) => {
            let s = el.text();
            match untyped {
                Untyped::Html => Text::Html(s),
                Untyped::Guess if looks_like_html(&s) => Text::Html(s),
                Untyped::Guess => Text::Plain(s),
            }
        }
    };
    (!text.is_blank()).then_some(text)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    Html,
    Xhtml,
    /// Some other XML vocabulary, inline.
    Xml,
    /// Anything else: base64-encoded bytes.
    Binary,
}

fn kind_of(declared: &str) -> Kind {
    match declared {
        "" | "text" | "plain" | "text/plain" => Kind::Text,
        "html" | "text/html" | "escaped" => Kind::Html,
        "xhtml" | "application/xhtml+xml" => Kind::Xhtml,
        t if t.starts_with("text/") => Kind::Text,
        t if t.ends_with("+xml") || t.ends_with("/xml") => Kind::Xml,
        _ => Kind::Binary,
    }
}

/// An Atom text construct (or an element that declares an Atom type).
fn typed<'e>(el: &'e Element<'_>, declared: &str) -> Option<Text<'e>> {
    let kind = kind_of(declared);
    let mode = el.attr("mode").map(|m| m.trim().to_ascii_lowercase());
    match mode.as_deref() {
        Some("base64") => {
            let compact: String = el.text().chars().filter(|c| !c.is_whitespace()).collect();
            let bytes = base64::engine::general_purpose::STANDARD.decode(compact.as_bytes()).ok()?;
            let s = Cow::Owned(String::from_utf8(bytes).ok()?);
            Some(match kind {
                Kind::Text => Text::Plain(s),
                Kind::Html | Kind::Xhtml | Kind::Xml => Text::Html(s),
                Kind::Binary => return None,
            })
        }
        // Atom 0.3: the markup was escaped into text.
        Some("escaped") => Some(match kind {
            Kind::Text => Text::Plain(el.text()),
            _ => Text::Html(el.text()),
        }),
        _ => Some(match kind {
            // Child elements in a text construct are markup written inline (Atom 0.3's default mode="xml").
            Kind::Text | Kind::Html if el.has_elements() => Text::Html(Cow::Owned(el.inner_markup())),
            Kind::Text => Text::Plain(el.text()),
            Kind::Html => Text::Html(el.text()),
            Kind::Xhtml => Text::Html(Cow::Owned(xhtml_content(el))),
            Kind::Xml => Text::Html(Cow::Owned(el.inner_markup())),
            // Atom's rule for other media types is base64; a feed that did not encode them is read as text.
            Kind::Binary => {
                let compact: String = el.text().chars().filter(|c| !c.is_whitespace()).collect();
                let decoded = base64::engine::general_purpose::STANDARD.decode(compact.as_bytes()).ok();
                decoded.and_then(|b| String::from_utf8(b).ok()).map(|s| Text::Plain(Cow::Owned(s)))?
            }
        }),
    }
}

/// The content of an XHTML construct: the markup inside its wrapping `<div>`, or everything when the content
/// is not wrapped in exactly one.
fn xhtml_content(el: &Element<'_>) -> String {
    let mut elements = el.elements();
    let only = elements.next().filter(|_| elements.next().is_none());
    let text_outside = el.own_texts().any(|t| !t.trim().is_empty());
    match only {
        Some(div) if div.name == "div" && matches!(div.ns, Ns::Xhtml | Ns::None) && !text_outside => div.inner_markup(),
        _ => el.inner_markup(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tree;

    fn first(xml: &str) -> Element<'_> {
        let root = tree::read(xml, None).unwrap().root;
        root.elements().next().unwrap().clone()
    }

    fn atom(inner: &str) -> Option<Text<'static>> {
        let xml = format!("<feed xmlns=\"http://www.w3.org/2005/Atom\">{inner}</feed>");
        read(&first(&xml), true, Untyped::Guess).map(Text::into_owned)
    }

    fn rss(inner: &str, untyped: Untyped) -> Option<Text<'static>> {
        read(&first(&format!("<channel>{inner}</channel>")), false, untyped).map(Text::into_owned)
    }

    #[test]
    fn atom_text_is_literal() {
        let t = atom("<title>History of the &lt;blink&gt; tag</title>").unwrap();
        assert_eq!(t.to_plain(), "History of the <blink> tag");
        assert_eq!(atom("<title type='text'>&lt;title></title>").unwrap().to_plain(), "<title>");
        assert_eq!(
            atom("<title>The &lt;details&gt; element &amp;amp; more</title>").unwrap().to_plain(),
            "The <details> element &amp; more"
        );
    }

    #[test]
    fn atom_html_is_unescaped_once_then_stripped() {
        assert_eq!(
            atom("<title type='html'>A &lt;b&gt;bold&lt;/b&gt; &amp;amp; more</title>").unwrap().to_plain(),
            "A bold & more"
        );
        let naked = atom("<content type='html'>Example <a href='test.html'>test</a></content>").unwrap();
        assert_eq!(naked, Text::Html("Example <a href=\"test.html\">test</a>".into()));
    }

    #[test]
    fn atom_xhtml_is_the_content_of_its_div() {
        let t = atom("<title type='xhtml'><div xmlns='http://www.w3.org/1999/xhtml'>Example <b>Atom</b></div></title>");
        assert_eq!(t, Some(Text::Html("Example <b>Atom</b>".into())));
    }

    #[test]
    fn atom_03_modes_and_media_types() {
        let escaped = atom("<title type='text/html' mode='escaped'>&lt;b&gt;x&lt;/b&gt;</title>").unwrap();
        assert_eq!(escaped.to_plain(), "x");
        let b64 = atom("<title type='text/plain' mode='base64'>RXhhbXBsZSA8Yj5BdG9tPC9iPg==</title>").unwrap();
        assert_eq!(b64, Text::Plain("Example <b>Atom</b>".into()));
        assert_eq!(atom("<title type='plain'>a &lt;b&gt;</title>").unwrap().to_plain(), "a <b>");
        let inline = atom("<content type='text/html'>Example <b>Atom</b></content>").unwrap();
        assert_eq!(inline.to_plain(), "Example Atom");
    }

    #[test]
    fn untyped_titles_are_html_only_on_evidence() {
        let plain = |s: &str| rss(&format!("<title>{s}</title>"), Untyped::Guess).unwrap().to_plain();
        assert_eq!(plain("Nice &lt;gorilla&gt; what's he weigh?"), "Nice <gorilla> what's he weigh?");
        assert_eq!(plain("A&lt;B"), "A<B");
        assert_eq!(plain("The &amp;amp; entity"), "The & entity");
        assert_eq!(plain("AT&amp;T"), "AT&T");
        assert_eq!(plain("&lt;b&gt;Bold&lt;/b&gt; title"), "Bold title");
        assert_eq!(plain("<p>Feed Title</p>"), "Feed Title", "naked markup keeps its text");
    }

    #[test]
    fn untyped_descriptions_are_html() {
        let t = rss("<description>a &lt;i&gt;b</description>", Untyped::Html).unwrap();
        assert_eq!(t, Text::Html("a <i>b".into()));
        assert_eq!(rss("<description>  </description>", Untyped::Html), None);
    }
}
