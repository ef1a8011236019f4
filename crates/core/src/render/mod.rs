//! Rendering an article's HTML into styled lines for a given width: headings, emphasis, code, quotes, list
//! bullets and links styled; images shown as `[alt]`; links numbered in the text and listed at the end with
//! their exact addresses, resolved against the entry's address. `script`, `style`, `iframe` and other embeds
//! never show.
//!
//! Three steps: `prepare` cleans the parsed HTML (drops embeds, strips control characters, spaces images
//! from the next word); html2text lays it out with our own `decorator`, which makes link numbers and image
//! brackets part of the text html2text wraps, so that no line comes out wider than the width; then the laid-out
//! lines become styled spans and the link list is written from the addresses the decorator collected, wrapped
//! under their numbers but never cut. A last pass splits any line still wider than the width (html2text lets a
//! line overflow rather than fail when nesting leaves no room), so nothing is ever clipped by the pane.
//!
//! Pure: HTML in, lines out. No ratatui types here; the UI maps [`Style`] onto its own. Every string that comes
//! out has had control characters removed.

mod decorator;
mod pictures;
mod prepare;

pub use pictures::{ICON_PIXELS, Picture, fit};

use crate::sanitize::strip_controls;
use decorator::{Decorator, Mark, link_marker};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Largest HTML body rendered; beyond it the article is cut (with a note) so a huge entry cannot stall rendering.
pub const MAX_RENDER_BYTES: usize = 512 * 1024;

/// Narrowest width rendered; a narrower request is laid out at this width.
pub const MIN_WIDTH: usize = 8;

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

/// A rendered article body: its lines, its links by number (link 1 is `links[0]`), and its pictures in the
/// order they come.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub lines: Vec<Line>,
    pub links: Vec<Link>,
    pub pictures: Vec<Picture>,
}

/// A link of the article, as it can be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The whole address, made absolute when a base allowed it; never cut, whatever the width.
    pub url: String,
    /// False for `javascript:` and other schemes tidings never hands to a browser.
    pub openable: bool,
}

/// The text of a line, without styles (for tests and searching).
pub fn line_text(line: &Line) -> String {
    line.iter().map(|s| s.text.as_str()).collect()
}

/// The display width of a line, in terminal columns.
pub fn line_width(line: &Line) -> usize {
    line.iter().map(|s| UnicodeWidthStr::width(s.text.as_str())).sum()
}

/// True for the addresses tidings hands to a browser: web pages and mail.
pub fn openable(url: &str) -> bool {
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https" | "mailto") && url.contains(':')
}

/// Renders `html` wrapped to `width` columns (at least [`MIN_WIDTH`]); relative links resolve against `base`
/// (the entry's address). Never fails, and no line is wider than the width.
pub fn render_article(html: &str, width: usize, base: Option<&str>) -> Rendered {
    let width = width.max(MIN_WIDTH);
    let cut = html.len() > MAX_RENDER_BYTES;
    let mut images = Vec::new();
    let html = prepare::prepare_into(crate::sanitize::truncate_bytes(html, MAX_RENDER_BYTES), &mut images);
    let decorator = Decorator::default();
    let collected = decorator.links();
    let laid_out = html2text::config::with_decorator(decorator)
        .link_footnotes(false)
        .unicode_strikeout(false)
        .empty_img_mode(html2text::config::ImageRenderMode::Replace("image"))
        .allow_width_overflow()
        .lines_from_read(html.as_bytes(), width);
    // The images html2text met, in the order their `[alt]`s come in the lines.
    let mut anchored = Vec::new();
    let (mut lines, links) = match laid_out {
        Ok(tagged) => {
            let targets = std::mem::take(&mut collected.borrow_mut().targets);
            (body_lines(tagged, &mut anchored), targets.iter().map(|href| link_to(href, base)).collect())
        }
        Err(_) => (wrap_text(&crate::text::html_to_plain(&html), width, Style::default()), Vec::new()),
    };
    while lines.last().is_some_and(|l| line_text(l).trim().is_empty()) {
        lines.pop();
    }
    if !links.is_empty() {
        lines.push(Vec::new());
        lines.push(vec![Span { text: "Links".into(), style: Style { bold: true, heading: true, ..Style::default() } }]);
        lines.extend(link_list(&links, width));
    }
    if cut {
        lines.push(Vec::new());
        lines.push(vec![Span {
            text: format!("[article cut at {} KB; open the link to read the rest]", MAX_RENDER_BYTES / 1024),
            style: Style { italic: true, dim: true, ..Style::default() },
        }]);
    }
    let mut lines = fit_to_width(lines, width);
    let met = std::mem::take(&mut collected.borrow_mut().images);
    let pictures = pictures::place(&mut lines, &anchored, &met, &images, base);
    Rendered { lines, links, pictures }
}

/// Lines of just the body (for callers that do not need the links).
pub fn render_html(html: &str, width: usize) -> Vec<Line> {
    render_article(html, width, None).lines
}

/// The link behind `href`: resolved against `base` when it is relative, and free of control characters (a
/// browser would percent-encode them; an address that cannot be parsed keeps its text without them).
fn link_to(href: &str, base: Option<&str>) -> Link {
    let url = crate::canonical::resolve(href, &[base]).unwrap_or_else(|| strip_controls(href.trim()).into_owned());
    Link { openable: openable(&url), url }
}

/// A piece of laid-out text, before pieces of one style are merged into spans.
struct Piece {
    text: String,
    style: Style,
    /// The number of the link this text belongs to.
    link: Option<usize>,
}

/// html2text's lines as styled lines, each link's closing `[n]` styled as its number, and each image's `[alt]`
/// started by [`pictures::ANCHOR`] (its number pushed on `anchored`, in the order of the lines).
fn body_lines(tagged: Vec<html2text::render::TaggedLine<Vec<Mark>>>, anchored: &mut Vec<usize>) -> Vec<Line> {
    let mut rows: Vec<Vec<Piece>> = tagged
        .iter()
        .map(|line| {
            line.tagged_strings()
                .filter_map(|ts| {
                    let mut text = strip_controls(&ts.s).into_owned();
                    if text.contains(pictures::ANCHOR) {
                        text.retain(|c| c != pictures::ANCHOR);
                    }
                    let link = ts.tag.iter().find_map(|m| if let Mark::Link(n) = m { Some(*n) } else { None });
                    let image = ts.tag.iter().find_map(|m| if let Mark::Picture(n) = m { Some(*n) } else { None });
                    if let Some(n) = image.filter(|n| !text.is_empty() && !anchored.contains(n)) {
                        anchored.push(n);
                        text.insert(0, pictures::ANCHOR);
                    }
                    (!text.is_empty()).then(|| Piece { text, style: style_of(&ts.tag), link })
                })
                .collect()
        })
        .collect();
    split_link_markers(&mut rows);
    rows.into_iter()
        .map(|row| {
            let mut line: Line = Vec::with_capacity(row.len());
            for piece in row {
                match line.last_mut() {
                    Some(last) if last.style == piece.style => last.text.push_str(&piece.text),
                    _ => line.push(Span { text: piece.text, style: piece.style }),
                }
            }
            mark_block_styles(&mut line);
            line
        })
        .collect()
}

/// Finds each link's number marker — the last characters of the link's text, trailing whitespace aside, which
/// the decorator put there — and gives it the number style. Works backwards, so a marker that wrapping split
/// over two pieces (or two lines) is still found whole.
fn split_link_markers(rows: &mut [Vec<Piece>]) {
    // Per link: how many marker characters are still to be found (None: not met yet).
    let mut remaining: Vec<Option<usize>> = Vec::new();
    let number_style = Style { dim: true, ..Style::default() };
    for row in rows.iter_mut().rev() {
        let mut rebuilt: Vec<Piece> = Vec::with_capacity(row.len() + 1);
        for piece in std::mem::take(row).into_iter().rev() {
            let Some(number) = piece.link else {
                rebuilt.push(piece);
                continue;
            };
            if remaining.len() <= number {
                remaining.resize(number + 1, None);
            }
            let marker: Vec<char> = link_marker(number).chars().collect();
            let left = *remaining[number].get_or_insert(marker.len());
            if left == 0 {
                rebuilt.push(piece);
                continue;
            }
            let chars: Vec<char> = piece.text.chars().collect();
            let mut end = chars.len();
            if left == marker.len() {
                while end > 0 && chars[end - 1].is_whitespace() {
                    end -= 1;
                }
            }
            let start = end.saturating_sub(left);
            let wanted = &marker[marker.len() - left..][left - (end - start)..];
            if chars[start..end] != *wanted {
                // Not the marker after all (cannot happen with our decorator): leave the text as it is.
                remaining[number] = Some(0);
                rebuilt.push(piece);
                continue;
            }
            remaining[number] = Some(left - (end - start));
            let part = |range: std::ops::Range<usize>| chars[range].iter().collect::<String>();
            for (text, style, link) in [
                (part(end..chars.len()), piece.style, Some(number)),
                (part(start..end), number_style, None),
                (part(0..start), piece.style, Some(number)),
            ] {
                if !text.is_empty() {
                    rebuilt.push(Piece { text, style, link });
                }
            }
        }
        rebuilt.reverse();
        *row = rebuilt;
    }
}

/// The numbered link list: each address whole, wrapped under its number when it is longer than the width.
fn link_list(links: &[Link], width: usize) -> Vec<Line> {
    let number_style = Style { dim: true, ..Style::default() };
    let mut lines = Vec::new();
    for (i, link) in links.iter().enumerate() {
        let number = format!("[{}] ", i + 1);
        let (text, style) = if link.openable {
            (link.url.clone(), Style { link: true, ..Style::default() })
        } else {
            (format!("{} (never opened)", link.url), Style { dim: true, strike: true, ..Style::default() })
        };
        let mut indent = UnicodeWidthStr::width(number.as_str());
        // With too little room beside the number, the address goes under it at the full width.
        if width < indent + MIN_WIDTH {
            lines.push(vec![Span { text: number.trim_end().to_string(), style: number_style }]);
            indent = 0;
        }
        for (j, chunk) in split_at_width(&text, width - indent).into_iter().enumerate() {
            let lead = if j == 0 && indent > 0 { number.clone() } else { " ".repeat(indent) };
            let mut line = Vec::with_capacity(2);
            if !lead.is_empty() {
                line.push(Span { text: lead, style: number_style });
            }
            line.push(Span { text: chunk, style });
            lines.push(line);
        }
    }
    lines
}

/// `text` in pieces of at most `width` columns, cut between grapheme clusters.
fn split_at_width(text: &str, width: usize) -> Vec<String> {
    let width = width.max(2);
    let mut pieces = vec![String::new()];
    let mut used = 0;
    for grapheme in text.graphemes(true) {
        let w = UnicodeWidthStr::width(grapheme);
        if used + w > width && used > 0 {
            pieces.push(String::new());
            used = 0;
        }
        if let Some(piece) = pieces.last_mut() {
            piece.push_str(grapheme);
        }
        used += w;
    }
    pieces
}

/// Splits every line wider than `width` into lines that fit, keeping the styles: the last guard that the pane
/// never has to clip a line. html2text lets a line overflow, rather than fail, when nesting leaves no room, and
/// it measures character by character, so an emoji with its variation selector (two columns as a terminal
/// draws it) counts one column short.
fn fit_to_width(lines: Vec<Line>, width: usize) -> Vec<Line> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line_width(&line) <= width {
            out.push(line);
            continue;
        }
        let mut current: Line = Vec::new();
        let mut used = 0;
        for span in line {
            for grapheme in span.text.graphemes(true) {
                let w = UnicodeWidthStr::width(grapheme);
                if used + w > width && used > 0 {
                    out.push(std::mem::take(&mut current));
                    used = 0;
                }
                match current.last_mut() {
                    Some(last) if last.style == span.style => last.text.push_str(grapheme),
                    _ => current.push(Span { text: grapheme.to_string(), style: span.style }),
                }
                used += w;
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
    out
}

fn style_of(marks: &[Mark]) -> Style {
    let mut style = Style::default();
    for mark in marks {
        match mark {
            Mark::Strong => style.bold = true,
            Mark::Emphasis => style.italic = true,
            Mark::Code | Mark::Preformat => style.code = true,
            Mark::Link(_) => style.link = true,
            Mark::Picture(_) => style.image = true,
            Mark::Strikeout => style.strike = true,
            Mark::Plain => {}
        }
    }
    style
}

/// The decorator starts headings with `#`s and a space, and quotes with `> `; give the whole line that look.
fn mark_block_styles(spans: &mut Line) {
    let Some(first) = spans.first() else { return };
    let hashes = first.text.len() - first.text.trim_start_matches('#').len();
    let heading = hashes > 0 && first.text[hashes..].starts_with(' ') && !first.style.code;
    let quote = first.text.starts_with("> ") && !first.style.code;
    if heading || quote {
        for span in spans.iter_mut() {
            span.style.heading |= heading;
            span.style.quote |= quote;
        }
    }
}

/// Greedy word wrap of plain text in one style (long words are split between grapheme clusters).
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
        for grapheme in word.graphemes(true) {
            let w = UnicodeWidthStr::width(grapheme);
            if current_width + w > width && current_width > 0 {
                lines.push(vec![Span { text: std::mem::take(&mut current), style }]);
                current_width = 0;
            }
            current.push_str(grapheme);
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
    fn an_emoji_with_its_variation_selector_counts_two_columns_and_the_line_still_fits() {
        // html2text counts "❤\u{fe0f}" as one column; terminals (and ratatui) draw two.
        for width in 8..30 {
            let lines = render_html("<pre>return \"❤\u{fe0f}\".localized // long enough to wrap</pre>", width);
            assert!(lines.iter().all(|l| line_width(l) <= width), "{:?}", texts(&lines));
            assert!(texts(&lines).concat().contains("❤\u{fe0f}"));
        }
    }

    #[test]
    fn huge_input_is_cut_with_a_note() {
        let html = "<p>word </p>".repeat(MAX_RENDER_BYTES / 8);
        let lines = render_html(&html, 80);
        assert!(line_text(lines.last().unwrap()).contains("article cut"));
    }
}
