//! Preparing article HTML for layout, on the parsed document rather than on the text of the markup: elements
//! that must never show or load are dropped, block elements html2text does not know become `div`s, control
//! characters leave text and alt text (html5ever has already decoded references such as `&#27;`, so none slips
//! through), tracking pixels (an image 1 pixel wide or high) go, and an image that touches the next word gets a
//! space after it, so `<a><img alt="Cover"></a>Text` reads `[Cover][1] Text`. The images that stay are listed
//! with what their pictures need (address, width and height).
//!
//! Pure: HTML in, HTML out.

use super::pictures::{ICON_PIXELS, ImageAttrs, address, dimension, tracking_pixel};
use crate::sanitize::{is_forbidden, strip_controls};
use dom_query::{Document, NodeRef};

/// Elements dropped with everything inside them: scripts and styles, embedded documents and plugins, and
/// document metadata that has no place in an article body.
const DROPPED: &str = "script, style, template, iframe, frame, frameset, noframes, object, embed, applet, \
                       noembed, title, meta, link, base";

/// Inline elements an image may end without ending the run of text it sits in.
const INLINE: [&str; 28] = [
    "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd",
    "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "u",
];

/// Block elements html2text does not know: it would run their text into the line before (a figure's caption
/// after its image, one section's last words before the next's first). They become `div`s, which it knows.
const BLOCKS_AS_DIV: &str = "address, article, aside, center, details, dialog, fieldset, figcaption, figure, \
                             footer, form, header, hgroup, legend, main, menu, nav, section, summary";

/// Elements html2text starts a new line at, so an image before them needs no space.
const BREAKS_LINE: &str = "br p div blockquote pre ul ol li dl dt dd table tr td th h1 h2 h3 h4 h5 h6 hr";

/// The HTML, ready for html2text.
#[cfg(test)]
pub(super) fn prepare(html: &str) -> String {
    prepare_into(html, &mut Vec::new())
}

/// The HTML, ready for html2text, and each image it still shows, in document order (for its picture).
pub(super) fn prepare_into(html: &str, images: &mut Vec<ImageAttrs>) -> String {
    let doc = Document::fragment(html);
    doc.select(DROPPED).remove();
    // An image in a figure is content whatever its alt says (a CMS writes alt="" for photos by default): it
    // shows as an image with no alt, before figures become divs.
    for image in doc.select("figure img[alt]").nodes() {
        if image.attr("alt").is_some_and(|alt| alt.trim().is_empty()) {
            image.remove_attr("alt");
        }
    }
    for block in doc.select(BLOCKS_AS_DIV).nodes() {
        block.rename("div");
    }
    for table in doc.select("table").nodes() {
        bound_spans(table);
    }
    // html2text writes a superscript `^{…}` (a footnote's `^{1[2]}`): digits and signs become the superscript
    // (subscript) characters, and what has none stays as plain text.
    for node in doc.select("sup, sub").nodes() {
        let up = node.node_name().is_some_and(|n| &*n == "sup");
        let texts: Vec<NodeRef> = node.descendants().into_iter().filter(|n| n.is_text()).collect();
        let shifted: Option<Vec<String>> =
            texts.iter().map(|t| t.text().chars().map(|c| shift(c, up)).collect::<Option<String>>()).collect();
        if let Some(shifted) = shifted {
            for (text, to) in texts.iter().zip(shifted) {
                text.set_text(to.as_str());
            }
        }
        node.rename("span");
    }
    // The node where the last image ends (the image itself, or the inline elements it closes), while no text
    // has followed it yet.
    let mut after_image: Option<NodeRef> = None;
    for node in doc.root().descendants() {
        if node.is_text() {
            let text = node.text();
            if text.chars().any(is_forbidden) {
                node.set_text(strip_controls(&text).as_ref());
            }
            if let Some(marked) = mark_breaks(&node.text())
                && ancestor(&node, "pre").is_none()
            {
                node.set_text(marked.as_str());
            }
            let Some(first) = node.text().chars().next() else { continue };
            if let Some(end) = after_image.take()
                && !first.is_whitespace()
            {
                end.insert_after(&doc.tree.new_text(" "));
            }
            continue;
        }
        let Some(name) = node.node_name() else { continue };
        if &*name == "img" {
            let (width, height) = (dimension(node.attr("width").as_deref()), dimension(node.attr("height").as_deref()));
            let address = address(|name| node.attr(name).map(|v| v.to_string()));
            if tracking_pixel(width, height) || !give_source(&node) || decorative(&node, width, height) {
                node.remove_from_parent();
                continue;
            }
            let src = node.attr("src").map(|v| v.to_string()).unwrap_or_default();
            let untitled = node.attr("alt").is_none_or(|alt| alt.trim().is_empty());
            images.push(ImageAttrs { src, address, width, height, untitled });
            if let Some(end) = after_image.take() {
                end.insert_after(&doc.tree.new_text(" "));
            }
            match node.attr("alt") {
                Some(alt) if alt.chars().any(is_forbidden) => node.set_attr("alt", &strip_controls(&alt)),
                // Named, so html2text shows it: an image it sees as untitled empties the link around it, which
                // it then drops (a thumbnail linking to its photo lost its link).
                Some(alt) if !alt.trim().is_empty() => {}
                _ => node.set_attr("alt", "image"),
            }
            after_image = Some(image_end(node));
        } else if BREAKS_LINE.split(' ').any(|tag| tag == &*name) {
            after_image = None;
        }
    }
    doc.html().to_string()
}

/// `c` raised (`up`) or lowered, when Unicode has it so; blanks stay.
fn shift(c: char, up: bool) -> Option<char> {
    const DIGITS_UP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    const DIGITS_DOWN: [char; 10] = ['₀', '₁', '₂', '₃', '₄', '₅', '₆', '₇', '₈', '₉'];
    if let Some(d) = c.to_digit(10) {
        return Some(if up { DIGITS_UP } else { DIGITS_DOWN }[d as usize]);
    }
    Some(match (c, up) {
        (c, _) if c.is_whitespace() => c,
        ('+', true) => '⁺',
        ('-' | '−', true) => '⁻',
        ('=', true) => '⁼',
        ('(', true) => '⁽',
        (')', true) => '⁾',
        ('n', true) => 'ⁿ',
        ('i', true) => 'ⁱ',
        ('+', false) => '₊',
        ('-' | '−', false) => '₋',
        ('=', false) => '₌',
        ('(', false) => '₍',
        (')', false) => '₎',
        _ => return None,
    })
}

/// How many grid places a table's spans may add to its cells before they are dropped: html2text lays out every
/// place (a few thousand rows of cells spanning 64 columns and 64 rows drew half a million lines).
const MAX_SPANNED_PLACES: usize = 10_000;

/// Shortens every `rowspan` of `table` that reaches past its last row to end there, as a browser draws it
/// (html2text panics on a cell that hangs below the last row of a table with a `colspan` in it); and drops its
/// spans when they would add more than [`MAX_SPANNED_PLACES`] places to its grid.
fn bound_spans(table: &NodeRef) {
    let named = |node: &NodeRef, names: &[&str]| node.node_name().is_some_and(|n| names.contains(&&*n));
    let mut rows = Vec::new();
    for child in table.children() {
        if named(&child, &["tr"]) {
            rows.push(child);
        } else if named(&child, &["thead", "tbody", "tfoot"]) {
            rows.extend(child.children().into_iter().filter(|row| named(row, &["tr"])));
        }
    }
    let count = rows.len();
    let span = |cell: &NodeRef, name: &str| cell.attr(name).and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(1);
    let (mut cells, mut places) = (Vec::new(), 0usize);
    for (at, row) in rows.iter().enumerate() {
        for cell in row.children().into_iter().filter(|cell| named(cell, &["td", "th"])) {
            let left = count - at;
            if span(&cell, "rowspan") > left {
                cell.set_attr("rowspan", &left.to_string());
            }
            places = places.saturating_add(span(&cell, "rowspan").max(1).saturating_mul(span(&cell, "colspan").max(1)));
            cells.push(cell);
        }
    }
    if places > cells.len().saturating_add(MAX_SPANNED_PLACES) {
        for cell in cells {
            cell.remove_attr("rowspan");
            cell.remove_attr("colspan");
        }
    }
}

/// Text that runs without spaces (Chinese, Japanese, a Latin name inside Japanese), with a zero-width space
/// wherever UAX #14 lets a line break next to such a script and no space does: html2text breaks only at spaces
/// and zero-width spaces (which it drops), so without them it cut such runs anywhere, "Andr" on one line and
/// "ew" on the next. Breaks between Latin letters (after a hyphen) are left alone. `None` when the text has
/// none of those scripts.
fn mark_breaks(text: &str) -> Option<String> {
    if !text.chars().any(unspaced) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut from = 0;
    for (at, _) in unicode_linebreak::linebreaks(text) {
        if at == 0 || at >= text.len() {
            continue;
        }
        let (before, after) = (text[..at].chars().next_back(), text[at..].chars().next());
        out.push_str(&text[from..at]);
        if !before.is_some_and(char::is_whitespace) && (before.is_some_and(unspaced) || after.is_some_and(unspaced)) {
            out.push('\u{200B}');
        }
        from = at;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// Characters of the scripts written without spaces between words: CJK ideographs, kana, their punctuation and
/// full-width forms (Hangul is written with spaces, and wraps at them).
fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{2E80}'..='\u{31FF}'   // CJK radicals, punctuation, kana, bopomofo
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF00}'..='\u{FFEF}' // full-width and half-width forms
        | '\u{20000}'..='\u{3FFFF}') // supplementary ideographs
}

/// Makes sure html2text shows an image that a browser would show — one with an address to load (lazy loaders
/// keep theirs in `data-src` or `srcset`) or, broken, its alt text — by giving it a placeholder `src` where it
/// has none (html2text skips an image without one). False for an image that shows nothing.
fn give_source(image: &NodeRef) -> bool {
    let filled = |name: &str| image.attr(name).is_some_and(|v| !v.trim().is_empty());
    if filled("src") {
        return true;
    }
    let lazy = ["data-src", "data-lazy-src", "data-original", "srcset", "data-srcset"].into_iter().any(filled);
    if lazy || filled("alt") {
        image.set_attr("src", "about:blank");
        return true;
    }
    false
}

/// An image with an empty `alt` that is declared icon-sized ([`ICON_PIXELS`] or less on both sides: a spacer,
/// an icon beside its own words) is decoration, and goes — unless it is all a link holds, where it is the only
/// way to the link. An empty `alt` alone decides nothing: WordPress, Ghost and most CMSs write `alt=""` for
/// every photo. An image whose size is not declared is fetched, and its real size decides (the reader draws no
/// picture of a pixel or an icon).
fn decorative(image: &NodeRef, width: Option<u32>, height: Option<u32>) -> bool {
    if !image.attr("alt").is_some_and(|alt| alt.trim().is_empty()) {
        return false;
    }
    let small = |side: Option<u32>| side.is_some_and(|s| s <= ICON_PIXELS);
    let icon = small(width) && small(height);
    icon && ancestor(image, "a").is_none_or(|link| !link.text().trim().is_empty())
}

/// The nearest ancestor of `node` named `name`.
fn ancestor<'a>(node: &NodeRef<'a>, name: &str) -> Option<NodeRef<'a>> {
    let mut up = node.parent();
    while let Some(n) = up {
        if n.node_name().is_some_and(|found| &*found == name) {
            return Some(n);
        }
        up = n.parent();
    }
    None
}

/// Where an image's run ends: the image, or the outermost inline element it is the last child of (a linked
/// image ends where the link does, after the link's number).
fn image_end(image: NodeRef) -> NodeRef {
    let mut end = image;
    while end.next_sibling().is_none()
        && let Some(parent) = end.parent()
        && parent.node_name().is_some_and(|n| INLINE.contains(&&*n))
    {
        end = parent;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_latin_name_inside_japanese_is_never_cut_at_any_width() {
        let html = "<p>東京の天気は晴れ時々曇りでした。記者Andrew Smithが伝えました。ÉcoleとAndrew東京Andrew。</p>";
        for width in 10..60 {
            let lines: Vec<String> = crate::render::render_article(html, width, None)
                .lines
                .iter()
                .map(|l| l.iter().map(|s| s.text.as_str()).collect())
                .collect();
            let words: usize = lines.iter().map(|l| l.matches("Andrew").count() + l.matches("École").count()).sum();
            assert_eq!(words, 4, "at {width}: {lines:?}");
            assert!(lines.iter().all(|l| !l.contains('\u{200B}')), "the break marks never show");
        }
        let pre = prepare("<pre>東京Andrew</pre>");
        assert!(!pre.contains('\u{200B}'), "a pre block is the author's: {pre}");
    }

    #[test]
    fn an_image_with_an_empty_alt_is_decoration_only_when_declared_icon_sized_and_not_all_its_link_holds() {
        let out = prepare(
            "<p><img src=\"spacer.gif\" alt=\"\" width=\"16\" height=\"16\">Words \
             <a href=\"x\"><img src=\"i.png\" alt=\" \" width=\"20\" height=\"12\">Link</a></p>",
        );
        assert_eq!(out, "<html><p>Words <a href=\"x\">Link</a></p></html>");
        let out = prepare("<p><a href=\"x\"><img src=\"icon.png\" alt=\"\" width=\"16\" height=\"16\"></a></p>");
        assert!(out.contains("icon.png"), "an icon that is all its link holds stays: {out}");
        let out = prepare("<figure><img src=\"photo.jpg\" alt=\"\"><figcaption>A photo</figcaption></figure>");
        assert!(out.contains("photo.jpg"), "an image in a figure is content: {out}");
    }

    #[test]
    fn a_photo_written_with_an_empty_alt_is_content_and_becomes_an_untitled_picture() {
        // WordPress and Ghost: no figure, alt="", a photo's size or none at all.
        let html = "<p>Before.</p><p><img src=\"/photo.jpg\" alt=\"\" width=\"800\" height=\"600\"></p>\
                    <p><img src=\"/other.jpg\" alt=\"\"></p><p>After.</p>";
        let rendered = crate::render::render_article(html, 60, Some("http://127.0.0.1/post"));
        let pictures: Vec<(&str, bool)> = rendered.pictures.iter().map(|p| (p.url.as_str(), p.untitled)).collect();
        assert_eq!(pictures, [("http://127.0.0.1/photo.jpg", true), ("http://127.0.0.1/other.jpg", true)]);
        let named = crate::render::render_article("<p><img src=\"/a.png\" alt=\"A\"></p>", 60, Some("http://h/"));
        assert!(!named.pictures[0].untitled);
    }

    #[test]
    fn a_link_that_holds_only_an_image_without_alt_keeps_its_link() {
        let html = "<p><a href=\"/big.png\"><img src=\"/thumb.png\" alt=\"\"></a> 画像。 <a href=\"/two\"><img src=\"b.png\"></a> two</p>";
        let rendered = crate::render::render_article(html, 60, Some("http://127.0.0.1/post"));
        let urls: Vec<&str> = rendered.links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(urls, ["http://127.0.0.1/big.png", "http://127.0.0.1/two"]);
        let text: String = rendered.lines.iter().flatten().map(|s| s.text.as_str()).collect();
        assert!(text.contains("[image][1]") && text.contains("[image][2]"), "{text}");
    }

    #[test]
    fn tracking_pixels_go_and_the_other_images_are_listed_with_their_sizes() {
        let mut images = Vec::new();
        let out = prepare_into(
            "<p>Text<img src=\"t.gif\" width=\"1\" height=\"1\" alt=\"\"><img src=\"w.gif\" width=\"1\" alt=\"x\">\
             <img src=\"photo.jpg\" width=\"640px\" height=\"480\" alt=\"P\"><img data-src=\"lazy.png\"></p>",
            &mut images,
        );
        assert!(!out.contains("t.gif") && !out.contains("w.gif"), "{out}");
        let expected = [
            ImageAttrs {
                src: "photo.jpg".into(),
                address: Some("photo.jpg".into()),
                width: Some(640),
                height: Some(480),
                untitled: false,
            },
            ImageAttrs {
                src: "about:blank".into(),
                address: Some("lazy.png".into()),
                width: None,
                height: None,
                untitled: true,
            },
        ];
        assert_eq!(images, expected);
    }

    #[test]
    fn a_linked_image_gets_a_space_after_the_link() {
        let out = prepare("<p><a href=\"x\"><img alt=\"Cover\"></a>Text</p>");
        assert!(out.contains("</a> Text"), "{out}");
    }

    #[test]
    fn an_image_gets_a_space_before_the_next_word_or_image_only_when_none_is_there() {
        let out = prepare("<p><img src=a><img src=b><b>bold</b> <img src=c> next</p>");
        assert_eq!(
            out,
            "<html><p><img src=\"a\" alt=\"image\"> <img src=\"b\" alt=\"image\"> <b>bold</b> <img src=\"c\" alt=\"image\"> next</p></html>"
        );
    }

    #[test]
    fn an_image_inside_a_link_with_text_gets_the_space_inside_the_link() {
        let out = prepare("<a href=\"x\"><img src=\"a\">caption</a>");
        assert!(out.contains("<img src=\"a\" alt=\"image\"> caption</a>"), "{out}");
    }

    #[test]
    fn images_without_an_address_show_by_their_alt_text_and_vanish_without_one() {
        let out = prepare("<p><img alt=\"Alt only\">x<img data-src=\"lazy.png\">y<img>z</p>");
        assert_eq!(
            out,
            "<html><p><img alt=\"Alt only\" src=\"about:blank\"> x<img data-src=\"lazy.png\" src=\"about:blank\" alt=\"image\"> yz</p></html>"
        );
    }

    #[test]
    fn a_row_span_past_the_last_row_ends_there_and_the_table_renders() {
        let out = prepare("<table><tr><td colspan=\"2\">a</td><td rowspan=\"2\">b</td></tr></table>");
        assert!(out.contains("rowspan=\"1\""), "{out}");
        let out = prepare("<table><tr><td rowspan=\"2\">a</td><td>b</td></tr><tr><td>c</td></tr></table>");
        assert!(out.contains("rowspan=\"2\""), "a span within the table stays: {out}");
        for html in
            ["<table><td colspan=\"4\"><td rowspan=\"5\">x", "<table><tr><td colspan=2>a<td rowspan=2>b</table>"]
        {
            let text: String = crate::render::render_html(html, 40).iter().map(crate::render::line_text).collect();
            assert!(text.contains('x') || text.contains('b'), "{html}: {text}");
        }
    }

    #[test]
    fn spans_that_would_fill_a_huge_grid_are_dropped() {
        let row = "<tr><td colspan=\"64\" rowspan=\"64\">x</td><td>y</td></tr>";
        let out = prepare(&format!("<table>{}</table>", row.repeat(10)));
        assert!(out.contains("colspan=\"64\""), "ten rows stay as they are: {out}");
        let out = prepare(&format!("<table>{}</table>", row.repeat(200)));
        assert!(!out.contains("colspan") && !out.contains("rowspan"), "{out}");
        assert_eq!(out.matches('x').count(), 200);
    }

    #[test]
    fn blocks_html2text_does_not_know_become_divs() {
        let out = prepare(
            "<figure><img src=\"a.png\" alt=\"A\"><figcaption>Caption</figcaption></figure><section>s</section>",
        );
        assert_eq!(out, "<html><div><img src=\"a.png\" alt=\"A\"><div>Caption</div></div><div>s</div></html>");
    }

    #[test]
    fn control_characters_leave_text_and_alt_even_as_references() {
        let out = prepare("<p>a&#27;[31mb\u{9b}c <img alt=\"x&#7;y\"></p>");
        assert!(!out.chars().any(is_forbidden), "{out:?}");
        assert!(out.contains("abc") && out.contains("alt=\"xy\""), "{out}");
    }

    #[test]
    fn embeds_scripts_and_styles_go_with_their_content() {
        let out =
            prepare("<p>keep</p><script>s()</script><style>p{}</style><iframe src=x>f</iframe><object>o</object>");
        assert!(out.contains("keep"));
        for gone in ["s()", "p{}", "<iframe", ">f<", ">o<"] {
            assert!(!out.contains(gone), "{gone} in {out}");
        }
    }
}
