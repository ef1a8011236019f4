//! Rendering an article's HTML into styled lines for a given width, through html2text's rich output.
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
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub style: Style,
}

/// One rendered line: spans left to right.
pub type Line = Vec<Span>;

/// The text of a line, without styles (for tests and searching).
pub fn line_text(line: &Line) -> String {
    line.iter().map(|s| s.text.as_str()).collect()
}

/// Renders `html` wrapped to `width` columns. Never fails: what html2text cannot render comes back as plain
/// wrapped text.
pub fn render_html(html: &str, width: usize) -> Vec<Line> {
    let width = width.max(8);
    let mut cut = false;
    let html = if html.len() > MAX_RENDER_BYTES {
        cut = true;
        crate::sanitize::truncate_bytes(html, MAX_RENDER_BYTES)
    } else {
        html
    };
    let rendered = html2text::config::rich().link_footnotes(true).lines_from_read(html.as_bytes(), width);
    let mut lines: Vec<Line> = match rendered {
        Ok(lines) => lines
            .into_iter()
            .map(|line| {
                let mut spans: Line = Vec::new();
                for ts in line.tagged_strings() {
                    let text = strip_controls(&ts.s).replace('\t', "    ");
                    if text.is_empty() {
                        continue;
                    }
                    spans.push(Span { text, style: style_of(&ts.tag) });
                }
                mark_block_styles(&mut spans);
                spans
            })
            .collect(),
        Err(_) => wrap_text(&crate::text::html_to_plain(html), width, Style::default()),
    };
    if cut {
        lines.push(Vec::new());
        lines.push(vec![Span {
            text: format!("[article cut at {} KB; open the link to read the rest]", MAX_RENDER_BYTES / 1024),
            style: Style { italic: true, ..Style::default() },
        }]);
    }
    lines
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
        assert!(texts(&lines).iter().any(|l| l.contains("http://x.example/")), "footnotes list the link");
    }

    #[test]
    fn control_characters_never_come_out() {
        let lines = render_html("<p>a\u{1b}[31mred\u{9b}x</p>", 40);
        assert!(lines.iter().flatten().all(|s| !s.text.chars().any(crate::sanitize::is_forbidden)));
    }

    #[test]
    fn scripts_and_styles_are_not_shown() {
        let text =
            texts(&render_html("<style>p{color:red}</style><script>alert(1)</script><p>visible</p>", 40)).join("\n");
        assert!(text.contains("visible"));
        assert!(!text.contains("alert") && !text.contains("color"), "{text}");
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
