//! The article's header, as lines for the pane's width: the title; feed, author, date and time; the link; then
//! the media, comments and tags, folded into one line or listed (`d`).

use crate::keymap::{Action, Context, Keymap};
use crate::model::EntryDetail;
use crate::render::{self, Line, Span};
use crate::sanitize::one_line;

/// The article's header: the title; feed, author, date and time; the link (elided in the middle when long —
/// `o` opens it whole); then media, comments and tags folded into one line, or listed in full when `details`.
pub(super) fn lines(
    detail: &EntryDetail,
    width: usize,
    zone: crate::clock::Zone,
    details: bool,
    full: bool,
    keymap: &Keymap,
) -> Vec<Line> {
    let key = |action, with| keymap.say(Context::General, action, with);
    let heading = render::Style { bold: true, heading: true, ..Default::default() };
    let meta = render::Style { italic: true, ..Default::default() };
    let link = render::Style { link: true, ..Default::default() };
    let title = detail.title.as_deref().map(|t| one_line(t, 500)).unwrap_or_else(|| "(untitled)".into());
    let mut lines = render::wrap_text(&title, width, heading);
    let mut byline = one_line(&detail.feed_title, 200);
    if let Some(author) = &detail.author {
        byline.push_str(" · ");
        byline.push_str(&one_line(author, 200));
    }
    if let Some(date) = detail.published_at.or(detail.updated_at) {
        byline.push_str(" · ");
        byline.push_str(&zone.datetime(date));
    }
    lines.extend(render::wrap_text(&byline, width, meta));
    if let Some(url) = &detail.link {
        // Whole, wrapped at the pane's width: an address cut in the middle cannot be read or copied.
        for piece in chunks(&one_line(url, 4000), width) {
            lines.push(vec![Span { text: piece, style: link }]);
        }
    }
    if full {
        lines.push(vec![Span {
            text: elide_end(
                &format!("▸ the full article, from the page{}", key(Action::FullText, " · {}: the feed's text")),
                width,
            ),
            style: meta,
        }]);
    } else if let Some(why) = &detail.full_error {
        let text = format!("▸ no full article: {}", one_line(why, 300));
        lines.push(vec![Span { text: elide_end(&text, width), style: meta }]);
    }
    let media = detail.enclosures.len();
    let has_details = media > 0 || detail.comments.is_some() || !detail.categories.is_empty();
    if has_details && !details {
        let mut parts = Vec::new();
        match media {
            0 => {}
            1 => parts.push(format!("1 media file{}", key(Action::OpenMedia, " ({} plays it)"))),
            n => parts.push(format!("{n} media files{}", key(Action::OpenMedia, " ({} plays one)"))),
        }
        if detail.comments.is_some() {
            parts.push("comments".into());
        }
        if !detail.categories.is_empty() {
            parts.push(format!("tags: {}", one_line(&detail.categories.join(", "), 200)));
        }
        let folded = format!("▸ {}{}", parts.join(" · "), key(Action::ToggleDetails, " · {} for details"));
        lines.push(vec![Span { text: elide_end(&folded, width), style: meta }]);
    } else if has_details {
        for (i, enclosure) in detail.enclosures.iter().enumerate() {
            let mut about = Vec::new();
            about.extend(enclosure.media_type.clone());
            about.extend(enclosure.length.filter(|l| *l > 0).map(human_size));
            let about = if about.is_empty() { String::new() } else { format!(" ({})", about.join(", ")) };
            let text = one_line(&format!("▾ Media {}: {}{about}", i + 1, enclosure.url), 4000);
            lines.extend(render::wrap_text(&text, width, meta));
        }
        if let Some(comments) = &detail.comments {
            lines.extend(render::wrap_text(&one_line(&format!("▾ Comments: {comments}"), 4000), width, meta));
        }
        if !detail.categories.is_empty() {
            let tags = format!("▾ Tags: {}", one_line(&detail.categories.join(", "), 2000));
            lines.extend(render::wrap_text(&tags, width, meta));
        }
    }
    lines.push(Vec::new());
    lines
}

/// `text` in pieces of at most `width` columns, nothing left out.
fn chunks(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = vec![String::new()];
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width && used > 0 {
            out.push(String::new());
            used = 0;
        }
        out.last_mut().expect("one piece at least").push(c);
        used += w;
    }
    out
}

fn elide_end(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    if text.width() <= width || width < 2 {
        return text.to_string();
    }
    format!("{}…", take_width(text.chars(), width - 1))
}

/// The leading characters of `chars` that fit in `width` columns.
fn take_width(chars: impl Iterator<Item = char>, width: usize) -> String {
    let mut used = 0;
    chars
        .take_while(|c| {
            used += unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0);
            used <= width
        })
        .collect()
}

/// A byte count for people: "12.3 MB".
fn human_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GB", b as f64 / f64::from(1u32 << 30)),
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1u32 << 20)),
        b if b >= 1 << 10 => format!("{:.0} KB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_link_is_shown_whole_over_several_lines() {
        let url = format!("https://example.com/{}/end", "segment".repeat(20));
        let detail = EntryDetail { link: Some(url.clone()), ..crate::tests::detail_of_entry_10() };
        let lines = lines(&detail, 40, crate::clock::Zone::utc(), false, false, &Keymap::default());
        let shown: String = lines
            .iter()
            .filter(|l| l.first().is_some_and(|s| s.style.link))
            .map(|l| l.iter().map(|s| s.text.as_str()).collect::<String>())
            .collect();
        assert_eq!(shown, url);
        assert!(lines.iter().all(|l| unicode_width::UnicodeWidthStr::width(render::line_text(l).as_str()) <= 40));
    }
}
