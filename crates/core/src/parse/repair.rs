//! Repairing real-world breakage so that the XML reader can read the feed: HTML named entities turned into
//! characters, bare `&` and stray `<` escaped, characters XML forbids dropped, unquoted and bare attributes
//! quoted, duplicate attributes dropped, unclosed elements closed where their parent ends, junk before the root
//! and after its end dropped, and a truncated document closed so the entries before the cut survive.
//!
//! Pure: one pass over the text, a new text out, with the list of what was repaired.

use crate::text::entity_at;

/// The repaired text and what was done to it (each repair named once).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Repaired {
    pub text: String,
    pub fixes: Vec<&'static str>,
}

struct Repairer<'a> {
    src: &'a str,
    out: String,
    fixes: Vec<&'static str>,
    stack: Vec<String>,
    root_seen: bool,
    root_closed: bool,
}

impl Repairer<'_> {
    fn fix(&mut self, what: &'static str) {
        if !self.fixes.contains(&what) {
            self.fixes.push(what);
        }
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
        let name = inner[..name_end].to_string();
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
        let mut out = format!("<{name}");
        let mut seen: Vec<String> = Vec::new();
        for (key, value) in attributes {
            if seen.contains(&key) {
                self.fix("dropped duplicate attributes");
                continue;
            }
            seen.push(key.clone());
            let value = match value {
                Some(v) => v,
                None => {
                    self.fix("gave values to bare attributes");
                    key.clone()
                }
            };
            out.push(' ');
            out.push_str(&key);
            out.push_str("=\"");
            let saved = std::mem::take(&mut self.out);
            self.text(&value);
            let escaped = std::mem::replace(&mut self.out, saved);
            out.push_str(&escaped.replace('"', "&quot;"));
            out.push('"');
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
        let name = tag[2..tag.len() - 1].trim().to_string();
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
