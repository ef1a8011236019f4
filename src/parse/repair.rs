//! Repairing real-world breakage so a strict XML parser can read the feed: HTML named entities turned into
//! characters, bare `&` and stray `<` escaped, characters XML forbids dropped, unquoted attributes quoted,
//! unclosed elements closed where their parent ends, junk before the root and after its end dropped, a
//! truncated document closed so the entries before the cut survive, `<rss>` given a version feed-rs knows,
//! and Atom 0.3 renamed to Atom 1.0.
//!
//! Pure: one pass over the text, a new text out, with the list of what was repaired.

use crate::text::entity_at;

/// The repaired text and what was done to it (each repair named once).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Repaired {
    pub text: String,
    pub fixes: Vec<&'static str>,
}

const ATOM_03: &str = "http://purl.org/atom/ns#";
const ATOM_10: &str = "http://www.w3.org/2005/Atom";
const RSS_090: &str = "http://my.netscape.com/rdf/simple/0.9/";
const RSS_10: &str = "http://purl.org/rss/1.0/";
/// Atom elements whose `type` must be text, html or xhtml.
const TEXT_CONSTRUCTS: &[&str] = &["title", "subtitle", "summary", "rights", "tagline", "copyright"];

/// True when the document is Atom 0.3, which feed-rs reads only after [`repair`] renames it.
pub fn is_atom_03(text: &str) -> bool {
    crate::sanitize::truncate_bytes(text, 4096).contains(ATOM_03)
}

struct Repairer<'a> {
    src: &'a str,
    out: String,
    fixes: Vec<&'static str>,
    stack: Vec<String>,
    root_seen: bool,
    root_closed: bool,
    atom03: bool,
    /// `</channel>` was seen and held back (see [`Repairer::end_tag`]).
    channel_end_deferred: bool,
}

impl Repairer<'_> {
    fn fix(&mut self, what: &'static str) {
        if !self.fixes.contains(&what) {
            self.fixes.push(what);
        }
    }

    /// Whether the document is Atom (its root is `<feed>`).
    fn in_atom(&self) -> bool {
        self.stack.first().is_some_and(|root| root == "feed")
    }

    /// Copies character data, dropping what XML forbids and escaping what it misreads.
    fn text(&mut self, s: &str) {
        let outside = !self.root_seen || self.root_closed;
        if outside {
            if s.trim().is_empty() {
                self.out.push_str(s);
            } else {
                self.fix("dropped text outside the root element");
            }
            return;
        }
        let mut rest = s;
        while let Some(at) = rest.find(['&', '<', '>']) {
            self.plain(&rest[..at]);
            let c = rest.as_bytes()[at];
            rest = &rest[at..];
            if c == b'&' {
                rest = self.reference(rest);
            } else {
                self.out.push_str(if c == b'<' { "&lt;" } else { "&gt;" });
                rest = &rest[1..];
            }
        }
        self.plain(rest);
    }

    /// Copies text without markup characters, dropping characters XML 1.0 forbids.
    fn plain(&mut self, s: &str) {
        if s.chars().any(forbidden) {
            self.fix("dropped control characters XML does not allow");
            self.out.extend(s.chars().filter(|c| !forbidden(*c)));
        } else {
            self.out.push_str(s);
        }
    }

    /// Handles the `&` at the start of `s`; returns the rest after it.
    fn reference<'s>(&mut self, s: &'s str) -> &'s str {
        let name_len = s[1..].bytes().take_while(|b| b.is_ascii_alphanumeric()).count();
        let name = &s[1..1 + name_len];
        let closed = s[1 + name_len..].starts_with(';');
        if closed && matches!(name, "amp" | "lt" | "gt" | "quot" | "apos") {
            self.out.push_str(&s[..name_len + 2]);
            return &s[name_len + 2..];
        }
        if s[1..].starts_with('#') {
            if let Some((decoded, len)) = entity_at(s)
                && s[..len].ends_with(';')
            {
                let c = decoded.chars().next().unwrap_or('\u{FFFD}');
                if forbidden(c) || c == '\u{FFFD}' {
                    self.fix("dropped references to characters XML does not allow");
                } else {
                    self.out.push_str(&s[..len]);
                }
                return &s[len..];
            }
        } else if closed && let Some((decoded, len)) = entity_at(s) {
            self.fix("turned HTML entities into characters");
            for c in decoded.chars() {
                match c {
                    '&' => self.out.push_str("&amp;"),
                    '<' => self.out.push_str("&lt;"),
                    c if forbidden(c) => {}
                    c => self.out.push(c),
                }
            }
            return &s[len..];
        }
        self.fix("escaped bare & characters");
        self.out.push_str("&amp;");
        &s[1..]
    }

    /// A start tag `<…>` (the whole of it, brackets included).
    fn start_tag(&mut self, tag: &str) {
        let inner = tag[1..tag.len() - 1].trim_end();
        let self_closing = inner.ends_with('/');
        let inner = inner.trim_end_matches('/');
        let name_end = inner.find(|c: char| c.is_whitespace()).unwrap_or(inner.len());
        let mut name = inner[..name_end].to_string();
        let attributes = crate::markup::attributes(&inner[name_end..]);
        if self.root_closed {
            self.fix("dropped content after the end of the root element");
            return;
        }
        let is_root = !self.root_seen;
        self.root_seen = true;
        // An item (entry) belongs right under its channel (feed); close what was left open in between.
        let parent = match name.as_str() {
            "item" => self.stack.iter().rposition(|open| open == "channel" || open.ends_with("RDF")),
            "entry" => self.stack.iter().rposition(|open| open == "feed"),
            _ => None,
        };
        if let Some(parent) = parent
            && parent + 1 < self.stack.len()
        {
            self.fix("closed elements left open before an item");
            while self.stack.len() > parent + 1 {
                let open = self.stack.pop().unwrap_or_default();
                self.out.push_str(&format!("</{open}>"));
            }
        }
        if self.channel_end_deferred && self.stack.len() == 2 {
            self.fix("moved items that follow </channel> into the channel");
        }
        if is_root && name == "feed" && attributes.iter().any(|(_, v)| v.as_deref() == Some(ATOM_03)) {
            self.atom03 = true;
            self.fix("read Atom 0.3 as Atom 1.0");
        }
        if self.atom03 {
            name = atom03_name(&name).unwrap_or(&name).to_string();
        }
        let attributes_mode_is_xml = attributes.iter().any(|(k, v)| k == "mode" && v.as_deref() == Some("xml"));
        let mut out = format!("<{name}");
        let mut seen: Vec<String> = Vec::new();
        let mut has_version = false;
        for (key, value) in attributes {
            if seen.contains(&key) {
                self.fix("dropped duplicate attributes");
                continue;
            }
            seen.push(key.clone());
            if self.atom03 && key == "mode" {
                continue;
            }
            let mut value = match value {
                Some(v) => v,
                None => {
                    self.fix("gave values to bare attributes");
                    key.clone()
                }
            };
            if self.atom03 && value == ATOM_03 {
                value = ATOM_10.to_string();
            }
            if is_root && key == "xmlns" && name == "rss" {
                // RSS has no namespace; feeds that declare one (Userland's rss2) hide every element from the parser.
                self.fix("removed the default namespace of <rss>");
                continue;
            }
            if is_root && key == "xmlns" && value == RSS_090 {
                self.fix("read RSS 0.90 as RSS 1.0");
                value = RSS_10.to_string();
            }
            let text_construct = TEXT_CONSTRUCTS.contains(&name.as_str()) || name == "content";
            if key == "type" && !self.atom03 && text_construct && self.in_atom() {
                // Content may also carry a media type; text constructs only these three words.
                let known =
                    matches!(value.as_str(), "text" | "html" | "xhtml") || (name == "content" && value.contains('/'));
                if !known {
                    self.fix("replaced unknown Atom text types");
                    value = if value.contains("xhtml") {
                        "xhtml"
                    } else if value.contains("html") {
                        "html"
                    } else {
                        "text"
                    }
                    .into();
                }
            }
            if self.atom03 && key == "type" {
                // Atom 0.3 types are media types; Atom 1.0 has three words for them.
                let inline_xml = attributes_mode_is_xml;
                value = match value.as_str() {
                    "text/plain" | "text" => "text".into(),
                    "text/html" if inline_xml => "xhtml".into(),
                    "text/html" | "html" => "html".into(),
                    "application/xhtml+xml" | "xhtml" => "xhtml".into(),
                    _ if TEXT_CONSTRUCTS.contains(&name.as_str()) || !value.contains('/') => "text".into(),
                    _ => value,
                };
            }
            if is_root && name == "rss" && key == "version" {
                has_version = true;
                if !matches!(value.as_str(), "2.0" | "0.91" | "0.92" | "") {
                    self.fix("gave <rss> a version the parser knows");
                    value = if value.starts_with("0.9") { "0.92".into() } else { "2.0".into() };
                }
            }
            out.push(' ');
            out.push_str(&key);
            out.push_str("=\"");
            let saved = std::mem::take(&mut self.out);
            self.text(&value);
            let escaped = std::mem::replace(&mut self.out, saved);
            out.push_str(&escaped.replace('"', "&quot;"));
            out.push('"');
        }
        if is_root && name == "rss" && !has_version {
            self.fix("gave <rss> a version the parser knows");
            out.push_str(" version=\"2.0\"");
        }
        if self_closing {
            out.push_str("/>");
            if is_root {
                self.root_closed = true;
            }
        } else {
            out.push('>');
            self.stack.push(name);
        }
        self.out.push_str(&out);
    }

    /// An end tag `</…>`.
    fn end_tag(&mut self, tag: &str) {
        let mut name = tag[2..tag.len() - 1].trim().to_string();
        if self.atom03 {
            name = atom03_name(&name).unwrap_or(&name).to_string();
        }
        // RSS 0.9x feeds put items and images after </channel>; keep the channel open until </rss>.
        if name == "channel" && self.stack.len() == 2 && self.stack[0] == "rss" {
            self.channel_end_deferred = true;
            return;
        }
        if name == "rss" && self.channel_end_deferred && self.stack.len() == 2 {
            self.stack.pop();
            self.out.push_str("</channel>");
        }
        match self.stack.iter().rposition(|open| *open == name) {
            Some(at) => {
                if at + 1 < self.stack.len() {
                    self.fix("closed elements that were left open");
                }
                while self.stack.len() > at {
                    let open = self.stack.pop().unwrap_or_default();
                    self.out.push_str(&format!("</{open}>"));
                }
                if self.stack.is_empty() {
                    self.root_closed = true;
                }
            }
            None => self.fix("dropped end tags that closed nothing"),
        }
    }
}

/// Atom 0.3 element names and their Atom 1.0 counterparts.
fn atom03_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "modified" => "updated",
        "issued" => "published",
        "tagline" => "subtitle",
        "copyright" => "rights",
        "created" => "atom03-created",
        _ => return None,
    })
}

/// XML 1.0 forbids C0 controls other than tab, newline and carriage return, and U+FFFE / U+FFFF.
fn forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
}

/// Repairs `text` (decoded, with its declaration already saying utf-8).
pub fn repair(text: &str) -> Repaired {
    let mut r = Repairer {
        src: text,
        out: String::with_capacity(text.len() + text.len() / 16),
        fixes: Vec::new(),
        stack: Vec::new(),
        root_seen: false,
        root_closed: false,
        atom03: false,
        channel_end_deferred: false,
    };
    let mut i = 0;
    let src = r.src;
    let mut truncated = false;
    while i < src.len() {
        let rest = &src[i..];
        let Some(lt) = rest.find('<') else {
            r.text(rest);
            break;
        };
        r.text(&rest[..lt]);
        i += lt;
        let rest = &src[i..];
        let (construct, keep) = if rest.starts_with("<!--") {
            (rest.find("-->").map(|e| e + 3), true)
        } else if rest.starts_with("<![CDATA[") {
            (rest.find("]]>").map(|e| e + 3), !r.root_closed && r.root_seen)
        } else if rest.starts_with("<?") {
            (rest.find("?>").map(|e| e + 2), true)
        } else if rest.starts_with("<!") {
            (doctype_end(rest), !r.root_seen)
        } else if rest.starts_with("</") || rest[1..].starts_with(|c: char| c.is_alphabetic() || c == '_' || c == ':') {
            match crate::markup::tag_end(rest) {
                Some(end) if rest.starts_with("</") => {
                    r.end_tag(&rest[..end]);
                    i += end;
                    continue;
                }
                Some(end) => {
                    r.start_tag(&rest[..end]);
                    i += end;
                    continue;
                }
                None if rest.find('>').is_none() => (None, false),
                None => {
                    // `<` that starts no tag before the next one: text.
                    r.text("<");
                    i += 1;
                    continue;
                }
            }
        } else {
            r.text("<");
            i += 1;
            continue;
        };
        match construct {
            Some(end) => {
                let piece = &rest[..end];
                if keep {
                    if piece.starts_with("<![CDATA[") && piece.chars().any(forbidden) {
                        r.fix("dropped control characters XML does not allow");
                        r.out.extend(piece.chars().filter(|c| !forbidden(*c)));
                    } else {
                        r.out.push_str(piece);
                    }
                }
                i += end;
            }
            None => {
                truncated = true;
                break;
            }
        }
    }
    if !r.stack.is_empty() {
        truncated = true;
        while let Some(open) = r.stack.pop() {
            r.out.push_str(&format!("</{open}>"));
        }
    }
    if truncated && r.root_seen {
        r.fix("closed a truncated document (entries before the cut were kept)");
    }
    Repaired { text: r.out, fixes: r.fixes }
}

/// The end of a `<!DOCTYPE …>` declaration, with its internal subset in brackets.
fn doctype_end(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b'>' if depth <= 0 => return Some(i + 1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_entities_become_characters_and_xml_ones_stay() {
        let r = repair("<rss version=\"2.0\"><t>caf&eacute;&nbsp;&amp; &lt;b&gt; &#233; &#x26;</t></rss>");
        assert_eq!(r.text, "<rss version=\"2.0\"><t>café\u{a0}&amp; &lt;b&gt; &#233; &#x26;</t></rss>");
        assert_eq!(r.fixes, vec!["turned HTML entities into characters"]);
    }

    #[test]
    fn bare_ampersands_and_stray_brackets_are_escaped() {
        let r = repair("<rss version=\"2.0\"><t>AT&T & 1 < 2 &bogus;</t></rss>");
        assert_eq!(r.text, "<rss version=\"2.0\"><t>AT&amp;T &amp; 1 &lt; 2 &amp;bogus;</t></rss>");
    }

    #[test]
    fn forbidden_control_characters_are_dropped() {
        let r = repair("<rss version=\"2.0\"><t>a\u{1}b\u{1b}c&#1;d</t></rss>");
        assert_eq!(r.text, "<rss version=\"2.0\"><t>abcd</t></rss>");
    }

    #[test]
    fn rss_without_a_known_version_gets_one() {
        assert_eq!(repair("<rss><channel/></rss>").text, "<rss version=\"2.0\"><channel/></rss>");
        assert_eq!(repair("<rss version=\"2.00\"><channel/></rss>").text, "<rss version=\"2.0\"><channel/></rss>");
        assert_eq!(repair("<rss version='0.94'><channel/></rss>").text, "<rss version=\"0.92\"><channel/></rss>");
    }

    #[test]
    fn a_truncated_document_is_closed_after_the_last_complete_piece() {
        let r = repair("<rss version=\"2.0\"><channel><item><title>One</title></item><item><title>Tw");
        assert_eq!(
            r.text,
            "<rss version=\"2.0\"><channel><item><title>One</title></item><item><title>Tw</title></item></channel></rss>"
        );
        let r = repair("<rss version=\"2.0\"><channel><item><title>One</title></item><item><descr");
        assert_eq!(
            r.text,
            "<rss version=\"2.0\"><channel><item><title>One</title></item><item></item></channel></rss>"
        );
        let r = repair("<rss version=\"2.0\"><channel><item><description><![CDATA[cut");
        assert!(r.text.ends_with("<description></description></item></channel></rss>"), "{}", r.text);
        assert!(r.fixes.iter().any(|f| f.contains("truncated")));
    }

    #[test]
    fn unclosed_elements_are_closed_where_their_parent_ends() {
        let r = repair("<rss version=\"2.0\"><channel><itunes:category text='A'><title>x</title></channel></rss>");
        assert_eq!(
            r.text,
            "<rss version=\"2.0\"><channel><itunes:category text=\"A\"><title>x</title></itunes:category></channel></rss>"
        );
        let r = repair("<a><b>x</c></b></a>");
        assert_eq!(r.text, "<a><b>x</b></a>");
    }

    #[test]
    fn junk_around_the_root_is_dropped() {
        let r = repair(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\nWarning: PHP notice\n<rss version=\"2.0\"/>\n<br>trailing",
        );
        assert_eq!(r.text, "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"/>\n");
        assert_eq!(
            r.fixes,
            vec!["dropped text outside the root element", "dropped content after the end of the root element"]
        );
    }

    #[test]
    fn unquoted_and_bare_attributes_are_quoted() {
        let r = repair("<rss version=\"2.0\"><img src=a.png alt='x \"y\"' hidden></img></rss>");
        assert_eq!(
            r.text,
            "<rss version=\"2.0\"><img src=\"a.png\" alt=\"x &quot;y&quot;\" hidden=\"hidden\"></img></rss>"
        );
    }

    #[test]
    fn atom_03_is_renamed_to_atom_10() {
        let r = repair(
            "<feed version=\"0.3\" xmlns=\"http://purl.org/atom/ns#\"><title>T</title><modified>2004-01-01T00:00:00Z</modified>\
             <entry><issued>2004-01-01T00:00:00Z</issued><content mode=\"escaped\" type=\"text/html\">x</content></entry></feed>",
        );
        assert!(r.text.contains("xmlns=\"http://www.w3.org/2005/Atom\""));
        assert!(r.text.contains("<updated>2004-01-01T00:00:00Z</updated>"));
        assert!(r.text.contains("<published>2004-01-01T00:00:00Z</published>"));
        assert!(r.text.contains("<content type=\"html\">x</content>"), "{}", r.text);
    }

    #[test]
    fn items_after_the_channel_are_moved_into_it() {
        let r = repair("<rss version=\"0.91\"><channel><title>T</title></channel><item><title>I</title></item></rss>");
        assert_eq!(
            r.text,
            "<rss version=\"0.91\"><channel><title>T</title><item><title>I</title></item></channel></rss>"
        );
        assert_eq!(r.fixes, vec!["moved items that follow </channel> into the channel"]);
        let plain = "<rss version=\"2.0\"><channel><title>T</title></channel></rss>";
        assert_eq!(repair(plain).text, plain);
    }

    #[test]
    fn atom_03_types_become_atom_10_words() {
        let r = repair(
            "<feed xmlns=\"http://purl.org/atom/ns#\"><summary type=\"text/plain\">s</summary>\
            <content type=\"application/xhtml+xml\" mode=\"xml\"><div/></content></feed>",
        );
        assert!(r.text.contains("<summary type=\"text\">s</summary>"), "{}", r.text);
        assert!(r.text.contains("<content type=\"xhtml\"><div/></content>"), "{}", r.text);
    }

    #[test]
    fn namespaces_that_hide_rss_elements_are_fixed() {
        let r = repair("<rss xmlns=\"http://backend.userland.com/rss2\" version=\"2.0\"><channel/></rss>");
        assert_eq!(r.text, "<rss version=\"2.0\"><channel/></rss>");
        let r =
            repair("<rdf:RDF xmlns:rdf=\"x\" xmlns=\"http://my.netscape.com/rdf/simple/0.9/\"><channel/></rdf:RDF>");
        assert_eq!(r.text, "<rdf:RDF xmlns:rdf=\"x\" xmlns=\"http://purl.org/rss/1.0/\"><channel/></rdf:RDF>");
    }

    #[test]
    fn unknown_atom_text_types_are_replaced() {
        let r = repair(
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title type=\"text/plain\">t</title><subtitle type=\"weird\">s</subtitle></feed>",
        );
        assert!(r.text.contains("<title type=\"text\">t</title><subtitle type=\"text\">s</subtitle>"), "{}", r.text);
    }

    #[test]
    fn an_item_closes_what_was_left_open_in_the_channel() {
        let r = repair(
            "<rss version=\"2.0\"><channel><itunes:category text='A'><item><title>I</title></item></channel></rss>",
        );
        assert_eq!(
            r.text,
            "<rss version=\"2.0\"><channel><itunes:category text=\"A\"></itunes:category><item><title>I</title></item></channel></rss>"
        );
    }

    #[test]
    fn comments_cdata_and_doctype_are_kept() {
        let src =
            "<!DOCTYPE rss [<!ENTITY x \"y\">]><rss version=\"2.0\"><!-- c & d --><t><![CDATA[a & <b>]]></t></rss>";
        assert_eq!(repair(src).text, src);
    }
}
