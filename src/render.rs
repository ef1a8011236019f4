//! Rendering an article's HTML into styled lines for a given width, through html2text's rich output: headings,
//! emphasis, code, quotes, list bullets and links styled; images shown as `[alt]`; links numbered in the text
//! and listed at the end, resolved against the entry's address. `script`, `style`, `iframe` and other embeds
//! never show.
//!
//! Pure: HTML in, lines out. No ratatui types here; the UI maps [`Style`] onto its own. Every string that comes
//! out has had control characters removed.

use crate::sanitize::strip_controls;
use html2text::render::RichAnnotation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Largest HTML body rendered; beyond it the article is cut (with a note) so a huge entry cannot stall rendering.
pub const MAX_RENDER_BYTES: usize = 512 * 1024;

/// How a piece of text should look.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    pub bold: bool,
    pub italic: bool,
    pub code: bool,
    pub link: bool,
    pub strike: bool,
    pub image: bool,
    pub heading: bool,
    pub quote: bool,
    /// Secondary text: bylines, notes, link numbers.
    pub dim: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub style: Style,
}

/// One rendered line: spans left to right.
pub type Line = Vec<Span>;

/// A rendered article body: its lines, and its links by number (link 1 is `links[0]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub lines: Vec<Line>,
    pub links: Vec<Link>,
}

/// A link of the article, as it can be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The address, made absolute when a base allowed it.
    pub url: String,
    /// False for `javascript:` and other schemes tidings never hands to a browser.
    pub openable: bool,
}

/// The text of a line, without styles (for tests and searching).
pub fn line_text(line: &Line) -> String {
    line.iter().map(|s| s.text.as_str()).collect()
}

/// True for the addresses tidings hands to a browser: web pages and mail.
pub fn openable(url: &str) -> bool {
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https" | "mailto") && url.contains(':')
}

/// Renders `html` wrapped to `width` columns; relative links resolve against `base` (the entry's address).
/// Never fails: what html2text cannot render comes back as plain wrapped text.
pub fn render_article(html: &str, width: usize, base: Option<&str>) -> Rendered {
    let width = width.max(8);
    let cut = html.len() > MAX_RENDER_BYTES;
    let html = strip_embeds(crate::sanitize::truncate_bytes(html, MAX_RENDER_BYTES));
    let rendered = html2text::config::rich()
        .link_footnotes(true)
        .unicode_strikeout(false)
        .empty_img_mode(html2text::config::ImageRenderMode::Replace("image"))
        .lines_from_read(html.as_bytes(), width);
    let mut out = match rendered {
        Ok(tagged) => from_tagged(tagged, width, base),
        Err(_) => Rendered {
            lines: wrap_text(&crate::text::html_to_plain(&html), width, Style::default()),
            links: Vec::new(),
        },
    };
    if cut {
        out.lines.push(Vec::new());
        out.lines.push(vec![Span {
            text: format!("[article cut at {} KB; open the link to read the rest]", MAX_RENDER_BYTES / 1024),
            style: Style { italic: true, dim: true, ..Style::default() },
        }]);
    }
    out
}

/// Lines of just the body (for callers that do not need the links).
pub fn render_html(html: &str, width: usize) -> Vec<Line> {
    render_article(html, width, None).lines
}

fn from_tagged(
    tagged: Vec<html2text::render::TaggedLine<Vec<RichAnnotation>>>,
    width: usize,
    base: Option<&str>,
) -> Rendered {
    let mut lines: Vec<Line> = Vec::with_capacity(tagged.len());
    let mut links: Vec<Link> = Vec::new();
    for line in tagged {
        let spans: Vec<(String, Vec<RichAnnotation>)> =
            line.tagged_strings().map(|ts| (ts.s.clone(), ts.tag.clone())).collect();
        // html2text ends the document with its footnotes, "[n]: url": collect them as the link list.
        if let [(text, _)] = spans.as_slice()
            && let Some(url) = footnote(text, links.len() + 1)
        {
            let url = crate::canonical::resolve(url, &[base]).unwrap_or_else(|| url.to_string());
            links.push(Link { openable: openable(&url), url });
            continue;
        }
        let mut out: Line = Vec::new();
        for (text, tags) in spans {
            let text = strip_controls(&text).replace('\t', "    ");
            if text.is_empty() {
                continue;
            }
            let style = style_of(&tags);
            if style.image {
                out.push(Span { text: format!("[{text}]"), style });
            } else {
                push_with_link_numbers(&mut out, &text, style);
            }
        }
        mark_block_styles(&mut out);
        lines.push(out);
    }
    while lines.last().is_some_and(|l| line_text(l).trim().is_empty()) {
        lines.pop();
    }
    if !links.is_empty() {
        lines.push(Vec::new());
        lines.push(vec![Span { text: "Links".into(), style: Style { bold: true, heading: true, ..Style::default() } }]);
        for (i, link) in links.iter().enumerate() {
            let number = format!("[{}] ", i + 1);
            let indent = number.len();
            let (text, style) = if link.openable {
                (strip_controls(&link.url).into_owned(), Style { link: true, ..Style::default() })
            } else {
                (
                    format!("{} (never opened)", strip_controls(&link.url)),
                    Style { dim: true, strike: true, ..Style::default() },
                )
            };
            // Long addresses wrap under themselves, so the list never runs past the pane.
            for (j, mut part) in wrap_text(&text, width.saturating_sub(indent), style).into_iter().enumerate() {
                let lead = if j == 0 { number.clone() } else { " ".repeat(indent) };
                part.insert(0, Span { text: lead, style: Style { dim: true, ..Style::default() } });
                lines.push(part);
            }
        }
    }
    Rendered { lines, links }
}

/// The URL of a footnote line "[n]: url" numbered `expected`.
fn footnote(text: &str, expected: usize) -> Option<&str> {
    let rest = text.strip_prefix('[')?;
    let (number, url) = rest.split_once("]: ")?;
    (number.parse::<usize>().ok()? == expected).then_some(url.trim())
}

/// Pushes text, giving html2text's inline link markers ("[3]") their own dim style.
fn push_with_link_numbers(out: &mut Line, text: &str, style: Style) {
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else { break };
        let inner = &rest[open + 1..open + close];
        if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_digit()) {
            push(out, &rest[..open + close + 1], style);
            rest = &rest[open + close + 1..];
            continue;
        }
        push(out, &rest[..open], style);
        push(out, &rest[open..open + close + 1], Style { dim: true, ..Style::default() });
        rest = &rest[open + close + 1..];
    }
    push(out, rest, style);
}

fn push(out: &mut Line, text: &str, style: Style) {
    if text.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.style == style => last.text.push_str(text),
        _ => out.push(Span { text: text.to_string(), style }),
    }
}

/// Removes elements that must never show or load: iframes, frames, objects and embeds (html2text already
/// drops scripts and styles).
fn strip_embeds(html: &str) -> String {
    const DROPPED: [&str; 5] = ["iframe", "frameset", "frame", "object", "embed"];
    let lower = html.to_ascii_lowercase();
    if !DROPPED.iter().any(|t| lower.contains(&format!("<{t}"))) {
        return html.to_string();
    }
    let mut out = String::with_capacity(html.len());
    let mut i = 0;
    'scan: while i < html.len() {
        let Some(next) = lower[i..].find('<') else { break };
        out.push_str(&html[i..i + next]);
        i += next;
        for tag in DROPPED {
            let open = format!("<{tag}");
            if !lower[i..].starts_with(&open) {
                continue;
            }
            let after = lower[i + open.len()..].chars().next();
            if after.is_none_or(|c| c == '>' || c == '/' || c.is_whitespace()) {
                let close = format!("</{tag}>");
                let end = match lower[i..].find(&close) {
                    Some(e) => i + e + close.len(),
                    None => lower[i..].find('>').map_or(html.len(), |e| i + e + 1),
                };
                i = end;
                continue 'scan;
            }
        }
        out.push('<');
        i += 1;
    }
    out.push_str(&html[i.min(html.len())..]);
    out
}

fn style_of(tags: &[RichAnnotation]) -> Style {
    let mut style = Style::default();
    for tag in tags {
        match tag {
            RichAnnotation::Strong => style.bold = true,
            RichAnnotation::Emphasis => style.italic = true,
            RichAnnotation::Code | RichAnnotation::Preformat(_) => style.code = true,
            RichAnnotation::Link(_) => style.link = true,
            RichAnnotation::Image(_) => style.image = true,
            RichAnnotation::Strikeout => style.strike = true,
            _ => {}
        }
    }
    style
}

/// html2text marks headings with a leading `#` and quotes with `> `; give the whole line that look.
fn mark_block_styles(spans: &mut Line) {
    let Some(first) = spans.first() else { return };
    let heading = first.text.starts_with('#') && !first.style.code;
    let quote = first.text.starts_with("> ") && !first.style.code;
    if heading || quote {
        for span in spans.iter_mut() {
            span.style.heading |= heading;
            span.style.quote |= quote;
        }
    }
}

/// Greedy word wrap of plain text in one style (long words are split).
pub fn wrap_text(text: &str, width: usize, style: Style) -> Vec<Line> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut current_width = 0;
    for word in text.split_whitespace() {
        let word = strip_controls(word);
        let word_width = UnicodeWidthStr::width(word.as_ref());
        if current_width > 0 && current_width + 1 + word_width > width {
            lines.push(vec![Span { text: std::mem::take(&mut current), style }]);
            current_width = 0;
        }
        if current_width > 0 {
            current.push(' ');
            current_width += 1;
        }
        for c in word.chars() {
            let w = UnicodeWidthChar::width(c).unwrap_or(0);
            if current_width + w > width && current_width > 0 {
                lines.push(vec![Span { text: std::mem::take(&mut current), style }]);
                current_width = 0;
            }
            current.push(c);
            current_width += w;
        }
    }
    if !current.is_empty() {
        lines.push(vec![Span { text: current, style }]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(line_text).collect()
    }

    #[test]
    fn paragraphs_wrap_to_the_width() {
        let lines = render_html("<p>one two three four five six seven eight nine ten</p>", 20);
        assert!(lines.len() > 1);
        assert!(texts(&lines).iter().all(|l| l.chars().count() <= 20), "{:?}", texts(&lines));
    }

    #[test]
    fn strong_emphasis_and_links_are_styled() {
        let lines = render_html("<p><b>bold</b> <i>it</i> <a href=\"http://x.example/\">link</a></p>", 60);
        let spans: Vec<&Span> = lines.iter().flatten().collect();
        assert!(spans.iter().any(|s| s.text.contains("bold") && s.style.bold));
        assert!(spans.iter().any(|s| s.text.contains("it") && s.style.italic));
        assert!(spans.iter().any(|s| s.text.contains("link") && s.style.link));
    }

    #[test]
    fn links_are_numbered_resolved_and_listed_at_the_end() {
        let r = render_article(
            "<p><a href=\"http://x.example/a\">one</a> <a href=\"/rel\">two</a> <a href=\"javascript:alert(1)\">js</a></p>",
            60,
            Some("https://site.example/post/1"),
        );
        let urls: Vec<(&str, bool)> = r.links.iter().map(|l| (l.url.as_str(), l.openable)).collect();
        assert_eq!(
            urls,
            vec![("http://x.example/a", true), ("https://site.example/rel", true), ("javascript:alert(1)", false)]
        );
        let all = texts(&r.lines).join("\n");
        assert!(all.contains("one[1] two[2] js[3]"), "{all}");
        assert!(
            all.contains(
                "Links\n[1] http://x.example/a\n[2] https://site.example/rel\n[3] javascript:alert(1) (never opened)"
            ),
            "{all}"
        );
    }

    #[test]
    fn images_show_as_their_alt_text_in_brackets() {
        let all = texts(&render_html("<p><img src=\"a.png\" alt=\"A cat\"> <img src=\"b.png\"></p>", 60)).join("\n");
        assert!(all.contains("[A cat]") && all.contains("[image]"), "{all}");
    }

    #[test]
    fn control_characters_never_come_out() {
        let lines = render_html("<p>a\u{1b}[31mred\u{9b}x</p>", 40);
        assert!(lines.iter().flatten().all(|s| !s.text.chars().any(crate::sanitize::is_forbidden)));
    }

    #[test]
    fn scripts_styles_and_iframes_are_not_shown() {
        let html = "<style>p{color:red}</style><script>alert(1)</script><p>visible</p>\
                    <iframe src=\"http://evil.example/\">fallback</iframe><object data=\"x\">obj</object>";
        let text = texts(&render_html(html, 40)).join("\n");
        assert!(text.contains("visible"));
        for hidden in ["alert", "color", "fallback", "obj", "evil"] {
            assert!(!text.contains(hidden), "{hidden} shown in {text}");
        }
    }

    #[test]
    fn headings_and_quotes_are_marked() {
        let lines = render_html("<h2>Title</h2><blockquote>said</blockquote>", 40);
        assert!(lines.iter().flatten().any(|s| s.text.contains("Title") && s.style.heading));
        assert!(lines.iter().flatten().any(|s| s.text.contains("said") && s.style.quote));
    }

    #[test]
    fn wrap_text_breaks_at_words_and_splits_long_ones() {
        let lines = wrap_text("aaa bbb cccccccc", 5, Style::default());
        assert_eq!(texts(&lines), vec!["aaa", "bbb", "ccccc", "ccc"]);
    }

    #[test]
    fn huge_input_is_cut_with_a_note() {
        let html = "<p>word </p>".repeat(MAX_RENDER_BYTES / 8);
        let lines = render_html(&html, 80);
        assert!(line_text(lines.last().unwrap()).contains("article cut"));
    }
}
