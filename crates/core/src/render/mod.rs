//! Rendering an article's HTML into styled lines for a given width: headings, emphasis, code, quotes, list
//! bullets and links styled; images shown as `[alt]`; links numbered in the text and listed at the end with
//! their exact addresses, resolved against the entry's address. `script`, `style`, `iframe` and other embeds
//! never show.
//!
//! Four steps: `bound` reads the HTML once with html5ever's tokenizer and writes it back well-formed, nested no
//! deeper than [`MAX_DEPTH`] and with no more than [`MAX_ELEMENTS`] elements (deeper ones flattened, their text
//! kept), cut into chunks between blocks; `prepare` cleans each chunk's parsed HTML (drops embeds, strips control
//! characters, spaces images from the next word); html2text lays it out with our own `decorator`, which makes
//! link numbers and image brackets part of the text html2text wraps, so that no line comes out wider than the
//! width; then the laid-out lines become styled spans and the link list is written from the addresses the
//! decorator collected, wrapped under their numbers but never cut. A last pass splits any line still wider than
//! the width (html2text lets a line overflow rather than fail when nesting leaves no room), so nothing is ever
//! clipped by the pane.
//!
//! A render has a [`Budget`]: between two chunks it stops when its cancel flag is set (the entry left the screen,
//! the reader quits), and past its deadline it shows the chunks not laid out yet as plain wrapped text, every
//! word kept. Without the bound, html5ever's tree builder took time quadratic in the nesting (100,000 nested
//! `<div>`s: a minute of a core per open).
//!
//! Pure: HTML in, lines out. No ratatui types here; the UI maps [`Style`] onto its own. Every string that comes
//! out has had control characters removed.

pub(crate) mod bound;
mod decorator;
mod pictures;
mod prepare;

pub use pictures::{ICON_PIXELS, PIXEL_SIZE, Picture, fit};

use crate::sanitize::strip_controls;
use decorator::{Decorator, Mark, link_marker};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Largest HTML body rendered; beyond it the article is cut (with a note) so a huge entry cannot stall rendering.
pub const MAX_RENDER_BYTES: usize = 512 * 1024;

/// Narrowest width rendered; a narrower request is laid out at this width.
pub const MIN_WIDTH: usize = 8;

/// Most elements open at once in the HTML laid out; deeper ones are flattened (their text kept). Real articles
/// nest a dozen or two deep.
pub const MAX_DEPTH: usize = 48;

/// Most quotes, list items and table cells open at once; deeper ones are laid out as plain blocks (each takes
/// columns from the text inside it, and html2text copies every line through every level).
pub const MAX_INDENT: usize = 12;

/// Most elements laid out; later ones are flattened (their text kept). A long real article has a few thousand.
pub const MAX_ELEMENTS: usize = 40_000;

/// About how much HTML is laid out at once: the budget is looked at between two chunks of this size.
const CHUNK_BYTES: usize = 16 * 1024;

/// The most HTML laid out at once, cut wherever a block starts if no better place came (inside one huge quote,
/// list or table, which then goes on in the next chunk).
const FORCED_CUT_BYTES: usize = 64 * 1024;

/// How long [`render_article`] lays out an article before it shows the rest as plain text.
pub const LAYOUT_BUDGET: Duration = Duration::from_millis(600);

/// How far a render may go: it stops when `cancel` is set, and lays out no more after `deadline`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget<'a> {
    /// Set by the caller when the render is no longer wanted; the render then returns [`Cancelled`] within a
    /// chunk's layout (a few milliseconds).
    pub cancel: Option<&'a AtomicBool>,
    /// Past it, the chunks not laid out yet are shown as plain wrapped text, every word kept.
    pub deadline: Option<Instant>,
}

impl<'a> Budget<'a> {
    /// [`LAYOUT_BUDGET`] from now, and cancelled by `cancel` when one is given.
    pub fn standard(cancel: Option<&'a AtomicBool>) -> Budget<'a> {
        Budget { cancel, deadline: Some(Instant::now() + LAYOUT_BUDGET) }
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A render stopped by its cancel flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the render was cancelled")]
pub struct Cancelled;

/// How the HTML is bounded before layout (an article's, or the Markdown export's).
pub(crate) const LIMITS: bound::Limits =
    bound::Limits { max_depth: MAX_DEPTH, max_indent: MAX_INDENT, max_elements: MAX_ELEMENTS };

/// A line that says something about the article rather than from it (dim, italic).
fn note(text: String) -> Line {
    vec![Span { text, style: Style { italic: true, dim: true, ..Style::default() } }]
}

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
/// (the entry's address). Never fails, and no line is wider than the width. Lays out for [`LAYOUT_BUDGET`] at
/// most (the rest as plain text); cannot be cancelled: the reader uses [`render_article_cancellable`].
pub fn render_article(html: &str, width: usize, base: Option<&str>) -> Rendered {
    render_article_within(html, width, base, &Budget::standard(None)).unwrap_or_default()
}

/// [`render_article`] for a render that may stop being wanted: it returns [`Cancelled`] soon after `cancel` is
/// set (checked between chunks of a few kilobytes), whoever sets it and from whichever thread.
pub fn render_article_cancellable(
    html: &str,
    width: usize,
    base: Option<&str>,
    cancel: &AtomicBool,
) -> Result<Rendered, Cancelled> {
    render_article_within(html, width, base, &Budget::standard(Some(cancel)))
}

/// [`render_article`] within `budget`.
pub fn render_article_within(
    html: &str,
    width: usize,
    base: Option<&str>,
    budget: &Budget,
) -> Result<Rendered, Cancelled> {
    let purpose = bound::Purpose::Article { chunk_bytes: CHUNK_BYTES, forced_cut_bytes: FORCED_CUT_BYTES };
    render_chunked(html, width, base, budget, purpose)
}

fn render_chunked(
    html: &str,
    width: usize,
    base: Option<&str>,
    budget: &Budget,
    purpose: bound::Purpose,
) -> Result<Rendered, Cancelled> {
    let width = width.max(MIN_WIDTH);
    let cut = html.len() > MAX_RENDER_BYTES;
    let mut html = crate::sanitize::truncate_bytes(html, MAX_RENDER_BYTES);
    // Cut before a tag the cap cut in two, which would read as text.
    if cut && let Some(open) = html.rfind('<').filter(|at| !html[*at..].contains('>')) {
        html = &html[..open];
    }
    let chunks = bound::bound(html, purpose, LIMITS, &|| budget.cancelled()).ok_or(Cancelled)?;
    // The images met: their attributes (as prepared, in document order), and the numbers of those html2text
    // showed, in the order their `[alt]`s come in the lines.
    let mut images = Vec::new();
    let mut anchored = Vec::new();
    let decorator = Decorator::default();
    let collected = decorator.links();
    let mut lines: Vec<Line> = Vec::new();
    let mut shown = false;
    let mut chunks = chunks.iter();
    for chunk in chunks.by_ref() {
        if budget.cancelled() {
            return Err(Cancelled);
        }
        if budget.expired() {
            // Not laid out: this chunk and the rest follow as plain text.
            let rest: Vec<&bound::Chunk> = std::iter::once(chunk).chain(chunks.by_ref()).collect();
            if shown {
                lines.push(Vec::new());
            }
            lines.push(note("[the rest of the article is shown as plain text: it took too long to lay out]".into()));
            for chunk in rest {
                if budget.cancelled() {
                    return Err(Cancelled);
                }
                lines.push(Vec::new());
                lines.extend(wrap_text(&crate::text::html_body_to_plain(&chunk.html), width, Style::default()));
            }
            break;
        }
        let prepared = prepare::prepare_into(&chunk.html, &mut images);
        let links_before = collected.borrow().targets.len();
        let laid_out = html2text::config::with_decorator(decorator.clone())
            .link_footnotes(false)
            .unicode_strikeout(false)
            .empty_img_mode(html2text::config::ImageRenderMode::Replace("image"))
            .allow_width_overflow()
            .lines_from_read(prepared.as_bytes(), width);
        let chunk_lines = match laid_out {
            Ok(tagged) => body_lines(tagged, &mut anchored),
            Err(_) => {
                // Shown as plain text: the links it started are not numbered.
                collected.borrow_mut().targets.truncate(links_before);
                wrap_text(&crate::text::html_body_to_plain(&prepared), width, Style::default())
            }
        };
        // A chunk after the first starts with a block that html2text would have set off by one empty line, or
        // goes on with the block the last one was cut in.
        if chunk_lines.iter().any(|l| !line_text(l).trim().is_empty()) {
            if shown && !chunk.continues {
                lines.push(Vec::new());
            }
            shown = true;
        }
        lines.extend(chunk_lines);
    }
    let links: Vec<Link> = collected.borrow().targets.iter().map(|href| link_to(href, base)).collect();
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
        lines.push(note(format!("[article cut at {} KB; open the link to read the rest]", MAX_RENDER_BYTES / 1024)));
    }
    let mut lines = fit_to_width(lines, width);
    let met = std::mem::take(&mut collected.borrow_mut().images);
    let pictures = pictures::place(&mut lines, &anchored, &met, &images, base);
    Ok(Rendered { lines, links, pictures })
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

/// The decorator starts headings with `#`s and a space, and quotes with `> `; give the whole line that look. A
/// heading's `#`s go: its style says it is one (a literal `##` read as markup left in the text).
fn mark_block_styles(spans: &mut Line) {
    let Some(first) = spans.first_mut() else { return };
    let hashes = first.text.len() - first.text.trim_start_matches('#').len();
    let heading = hashes > 0 && first.text[hashes..].starts_with(' ') && !first.style.code;
    let quote = first.text.starts_with("> ") && !first.style.code;
    if heading {
        first.text.drain(..=hashes);
        if first.text.is_empty() && spans.len() > 1 {
            spans.remove(0);
        }
    }
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

    /// Defect 17 of issue 21: superscripts and subscripts read as such, not `^{1[2]}`.
    #[test]
    fn superscripts_and_subscripts_use_their_characters() {
        let r = render_article(
            "<p>E = mc<sup>2</sup> and x<sub>1</sub>, note<sup><a href=\"#fn1\">1</a></sup> and y<sup>th</sup></p>",
            60,
            Some("https://a.example/"),
        );
        assert_eq!(texts(&r.lines)[0], "E = mc² and x₁, note¹[1] and yth");
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
    fn scripts_styles_and_what_iframes_hold_are_not_shown() {
        let html = "<style>p{color:red}</style><script>alert(1)</script><p>visible</p>\
                    <iframe src=\"http://evil.example/\">fallback</iframe><object data=\"x\">obj</object>\
                    <iframe src=\"https://t.example/px\" width=\"1\" height=\"1\"></iframe>";
        let text = texts(&render_html(html, 40)).join("\n");
        assert!(text.contains("visible"));
        for hidden in ["alert", "color", "fallback", "obj", "t.example"] {
            assert!(!text.contains(hidden), "{hidden} shown in {text}");
        }
        // The frame itself is a link to open, never a document shown.
        assert!(text.contains("[embedded: evil.example]"), "{text}");
    }

    #[test]
    fn an_embedded_player_or_a_video_leaves_a_link_in_its_place() {
        let html = "<p>Watch:</p><iframe src=\"//www.youtube.com/embed/xyz\" width=\"560\" height=\"315\"></iframe>\
                    <video controls><source src=\"https://cdn.example/clip.mp4\" type=\"video/mp4\">no video</video>\
                    <p>Listen: <audio src=\"https://cdn.example/ep.mp3\"></audio> end</p>";
        let rendered = render_article(html, 60, Some("https://blog.example/post"));
        let text = texts(&rendered.lines).join("\n");
        for shown in [
            "[embedded: www.youtube.com]",
            "[video]",
            "[audio]",
            "https://www.youtube.com/embed/xyz",
            "https://cdn.example/clip.mp4",
        ] {
            assert!(text.contains(shown), "{shown} missing from {text}");
        }
        assert!(!text.contains("no video"), "{text}");
        // Written closed, as XHTML content comes back: what follows stays.
        let closed = render_article("<p>a</p><video src=\"https://x.example/v.mp4\"/><p>the rest</p>", 60, None);
        let text = texts(&closed.lines).join("\n");
        assert!(text.contains("[video]") && text.contains("the rest"), "{text}");
    }

    #[test]
    fn headings_and_quotes_are_marked() {
        let lines = render_html("<h2>Title</h2><blockquote>said</blockquote>", 40);
        assert!(lines.iter().flatten().any(|s| s.text.contains("Title") && s.style.heading));
        assert!(lines.iter().flatten().any(|s| s.text.contains("said") && s.style.quote));
        // The style says it is a heading: no literal `##` (issue 36); a `#` of the text stays.
        assert!(lines.iter().flatten().all(|s| !s.text.contains('#')), "{lines:?}");
        let hash = render_html("<h3># of issues</h3>", 40);
        assert!(hash.iter().flatten().any(|s| s.text == "# of issues" && s.style.heading), "{hash:?}");
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

    /// Laid out whole, and cut wherever a chunk may start.
    const WHOLE: bound::Purpose = bound::Purpose::Article { chunk_bytes: usize::MAX, forced_cut_bytes: usize::MAX };
    const EVERY_BLOCK: bound::Purpose = bound::Purpose::Article { chunk_bytes: 1, forced_cut_bytes: usize::MAX };

    /// Documents that exercise every way two blocks meet: after text, after a block, after line breaks, empty
    /// blocks, lists, quotes, tables, preformatted text, links and images on both sides.
    const JOINS: &[&str] = &[
        include_str!("../../../../tests/fixtures/article.html"),
        include_str!("../../../../tests/fixtures/article-page.html"),
        "<div>text before<p>a paragraph</p>text after<div>in a div</div><p>after a div</p></div>",
        "<section><p>one</p><br><br><p>after breaks</p><p></p><p> </p><h2>A heading</h2><h3></h3><p>x</p></section>",
        "<p>a <a href=\"/1\">link</a></p><ul><li>item</li></ul><p>b <a href=\"/2\">second</a></p>\
         <blockquote><p>quoted</p></blockquote><pre>  pre\n  formatted</pre><table><tr><td>cell</td><td>two</td></tr></table>\
         <dl><dt>term</dt><dd>definition</dd></dl><p><img src=\"i.png\" alt=\"Pic\">caption</p><hr><p>end</p>",
        "<figure><img src=\"a.png\" alt=\"\"><figcaption>Caption</figcaption></figure><p>after the figure</p>\
         <div><div><p>deep</p></div><p>less deep</p></div>text<p>last</p>",
    ];

    #[test]
    fn an_article_laid_out_in_chunks_reads_as_laid_out_whole() {
        for (i, html) in JOINS.iter().enumerate() {
            let chunks = bound::bound(html, EVERY_BLOCK, LIMITS, &|| false).unwrap();
            assert!(chunks.len() >= 3, "document {i} is cut: {chunks:?}");
            for width in [12, 30, 80, 160] {
                let whole = render_chunked(html, width, Some("https://x.example/a/"), &Budget::default(), WHOLE);
                let chunked =
                    render_chunked(html, width, Some("https://x.example/a/"), &Budget::default(), EVERY_BLOCK);
                assert_eq!(texts(&chunked.unwrap().lines), texts(&whole.unwrap().lines), "document {i} at {width}");
            }
        }
    }

    #[test]
    fn a_render_past_its_deadline_shows_the_rest_as_plain_text_with_every_word() {
        let html: String = (0..200).map(|i| format!("<p>paragraph {i} <b>bold{i}</b></p>")).collect();
        let budget = Budget { cancel: None, deadline: Some(Instant::now()) };
        let lines = texts(&render_chunked(&html, 60, None, &budget, EVERY_BLOCK).unwrap().lines).join("\n");
        assert!(lines.contains("shown as plain text"), "{lines}");
        for i in 0..200 {
            assert!(lines.contains(&format!("bold{i}")), "bold{i} lost: {lines}");
        }
    }

    #[test]
    fn a_cancelled_render_stops() {
        let cancel = AtomicBool::new(true);
        assert_eq!(render_article_cancellable("<p>x</p>", 40, None, &cancel), Err(Cancelled));
        cancel.store(false, Ordering::Relaxed);
        assert!(render_article_cancellable("<p>x</p>", 40, None, &cancel).is_ok());
    }

    #[test]
    fn links_are_numbered_across_chunks_and_a_deep_document_keeps_its_words() {
        let html: String = (1..=50).map(|i| format!("<p><a href=\"/{i}\">link {i}</a></p>")).collect();
        let r = render_chunked(&html, 40, Some("https://x.example/"), &Budget::default(), EVERY_BLOCK).unwrap();
        assert_eq!(r.links.len(), 50);
        let all = texts(&r.lines).join("\n");
        assert!(all.contains("link 50[50]") && all.contains("[50] https://x.example/50"), "{all}");
        let deep = format!("{}the deepest words{}", "<div>".repeat(100_000), "</div>".repeat(100_000));
        let all = texts(&render_article_within(&deep, 40, None, &Budget::default()).unwrap().lines).join("\n");
        assert!(all.contains("the deepest words"), "{all}");
    }

    #[test]
    fn huge_input_is_cut_with_a_note() {
        let html = "<p>word </p>".repeat(MAX_RENDER_BYTES / 8);
        let lines = render_html(&html, 80);
        assert!(line_text(lines.last().unwrap()).contains("article cut"));
    }
}
