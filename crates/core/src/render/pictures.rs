//! The pictures of an article: which images of the HTML can be shown as pictures (an `http(s)` address that is
//! not a tracking pixel), where each one goes among the rendered lines (just above the line with its `[alt]`,
//! which stays under it as its caption, link number included), and how many terminal cells a picture takes at
//! a given width ([`fit`]): scaled to the text's width, never wider than the image itself nor taller than the
//! pane.
//!
//! Pure: attributes and sizes in, places and sizes out. Fetching, decoding and drawing belong to the reader.

/// A picture of the article, anchored to the line that shows its `[alt]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Where to fetch it: an absolute `http` or `https` address.
    pub url: String,
    /// The alt text, as shown in brackets under it (control characters removed).
    pub alt: String,
    /// Its `width` and `height` attributes, in CSS pixels, when given (space is reserved from them before the
    /// picture arrives).
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// The index, in [`super::Rendered::lines`], of the line with its `[alt]`: the picture goes just above it.
    pub line: usize,
    /// The number of the link around it, if any (`f N` follows it).
    pub link: Option<usize>,
    /// It has no alt text of its own (`alt=""`, as CMSs write for photos, or none): the `[image]` under it says
    /// nothing once the picture is drawn.
    pub untitled: bool,
}

/// An image element as the preparation pass left it: the `src` html2text will see, and what a picture needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ImageAttrs {
    /// The `src` attribute after preparation (`about:blank` for a lazy image), to match html2text's calls.
    pub(super) src: String,
    /// The address of the picture: `src`, or where a lazy loader keeps it (`data-src`, `srcset`…).
    pub(super) address: Option<String>,
    pub(super) width: Option<u32>,
    pub(super) height: Option<u32>,
    /// Its alt text was empty or missing.
    pub(super) untitled: bool,
}

/// The invisible mark (WORD JOINER: no width, a grapheme of its own) put where a picture's `[alt]` starts in the
/// laid-out lines, so its line is found again after lines too wide have been split. Feed text never keeps one.
pub(super) const ANCHOR: char = '\u{2060}';

/// A dimension attribute as pixels: `640`, `640px`, ` 640 `; `None` for percentages and nonsense.
pub(super) fn dimension(value: Option<&str>) -> Option<u32> {
    let value = value?.trim();
    let digits = value.strip_suffix("px").unwrap_or(value).trim();
    digits.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).map(|v| v.round().min(1e6) as u32)
}

/// At most this many pixels wide or high, an image is a tracking pixel or a spacer: it shows nothing to a person.
pub const PIXEL_SIZE: u32 = 2;

/// A tracking pixel: an image declared [`PIXEL_SIZE`] pixels (or fewer) wide or high. It shows nothing to a
/// person, and fetching it tells a tracker the article was read, so it is neither shown nor fetched.
pub(super) fn tracking_pixel(width: Option<u32>, height: Option<u32>) -> bool {
    width.is_some_and(|w| w <= PIXEL_SIZE) || height.is_some_and(|h| h <= PIXEL_SIZE)
}

/// The address an image's picture is fetched from, before resolving: `src` unless it is empty or a placeholder,
/// else where lazy loaders keep the real one (`data-src`, `data-lazy-src`, `data-original`, the first candidate
/// of `srcset` or `data-srcset`).
pub(super) fn address(attr: impl Fn(&str) -> Option<String>) -> Option<String> {
    let filled = |name: &str| attr(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let src = filled("src").filter(|s| !s.starts_with("data:") && s != "about:blank");
    src.or_else(|| ["data-src", "data-lazy-src", "data-original"].into_iter().find_map(filled)).or_else(|| {
        ["srcset", "data-srcset"]
            .into_iter()
            .find_map(filled)
            .and_then(|set| set.split(',').next().and_then(|c| c.split_whitespace().next()).map(str::to_string))
    })
}

/// The absolute address of a picture, when it is one tidings fetches (`http` or `https`).
pub(super) fn picture_url(address: &str, base: Option<&str>) -> Option<String> {
    let url = crate::canonical::resolve(address, &[base])?;
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https").then_some(url)
}

/// Finds each [`ANCHOR`] left in the `[alt]` of an image (they come in the order of `anchored`, the numbers of
/// the images html2text `met`), takes it out of the text, and makes the images that are pictures — an
/// `http(s)` address, not an icon — into [`Picture`]s anchored to that line. `images` are the prepared
/// elements in document order; each of html2text's images is matched to the first not yet matched with the same
/// `src`.
pub(super) fn place(
    lines: &mut [super::Line],
    anchored: &[usize],
    met: &[(String, String, Option<usize>)],
    images: &[ImageAttrs],
    base: Option<&str>,
) -> Vec<Picture> {
    let mut found = Vec::with_capacity(anchored.len());
    for (at, line) in lines.iter_mut().enumerate() {
        for span in line.iter_mut().filter(|s| s.style.image && s.text.contains(ANCHOR)) {
            found.extend(std::iter::repeat_n(at, span.text.matches(ANCHOR).count()));
            span.text.retain(|c| c != ANCHOR);
        }
        line.retain(|s| !s.text.is_empty());
    }
    let mut used = vec![false; images.len()];
    let mut matched: Vec<Option<&ImageAttrs>> = Vec::with_capacity(met.len());
    for (src, _, _) in met {
        let index = images.iter().enumerate().position(|(i, image)| !used[i] && image.src == *src);
        if let Some(i) = index {
            used[i] = true;
        }
        matched.push(index.map(|i| &images[i]));
    }
    let mut pictures: Vec<Picture> = Vec::new();
    for (&number, &line) in anchored.iter().zip(&found) {
        let (Some((_, alt, link)), Some(Some(image))) = (met.get(number), matched.get(number)) else { continue };
        let Some(url) = image.address.as_deref().and_then(|a| picture_url(a, base)) else { continue };
        let icon = matches!((image.width, image.height), (Some(w), Some(h)) if w <= ICON_PIXELS && h <= ICON_PIXELS);
        if icon {
            continue;
        }
        let alt = crate::sanitize::strip_controls(alt).into_owned();
        let (width, height, untitled) = (image.width, image.height, image.untitled);
        pictures.push(Picture { url, alt, width, height, line, link: *link, untitled });
    }
    pictures.sort_by_key(|p| p.line);
    pictures
}

/// Pictures at least this small on both sides (icons, emoji drawn as images, spacers) stay words in the text.
pub const ICON_PIXELS: u32 = 24;

/// The cells a picture of `pixels` (width, height) takes, for a terminal whose cells are `cell` pixels, at most
/// `max_cols` wide and `max_rows` high: as wide as the image at one image pixel per screen pixel, narrower when
/// the columns run out, and narrower still when it would be taller than `max_rows`; the aspect ratio kept.
/// `None` when nothing is left to show (an empty image, no room).
pub fn fit(pixels: (u32, u32), cell: (u16, u16), max_cols: u16, max_rows: u16) -> Option<(u16, u16)> {
    let (width, height) = (f64::from(pixels.0), f64::from(pixels.1));
    let (cell_w, cell_h) = (f64::from(cell.0.max(1)), f64::from(cell.1.max(1)));
    if width < 1.0 || height < 1.0 || max_cols == 0 || max_rows == 0 {
        return None;
    }
    // Never enlarged; shrunk to the columns, then to the rows.
    let mut scale = 1.0f64.min(f64::from(max_cols) * cell_w / width);
    if height * scale > f64::from(max_rows) * cell_h {
        scale = f64::from(max_rows) * cell_h / height;
    }
    let cols = ((width * scale / cell_w).ceil() as u16).clamp(1, max_cols);
    let rows = ((height * scale / cell_h).ceil() as u16).clamp(1, max_rows);
    Some((cols, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_is_scaled_to_the_columns_and_never_enlarged() {
        // 10 × 20 pixel cells: a 1000 × 800 photo in 80 columns is 800 pixels wide, so 640 high: 32 rows.
        assert_eq!(fit((1000, 800), (10, 20), 80, 100), Some((80, 32)));
        // A small one keeps its size: 200 × 100 is 20 columns, 5 rows, even with 80 to spare.
        assert_eq!(fit((200, 100), (10, 20), 80, 100), Some((20, 5)));
    }

    #[test]
    fn a_picture_is_never_taller_than_the_pane() {
        // A tall 400 × 4000 strip in a pane of 20 rows: 400 pixels high, so 40 pixels wide, 4 columns.
        assert_eq!(fit((400, 4000), (10, 20), 80, 20), Some((4, 20)));
        assert_eq!(fit((0, 10), (10, 20), 80, 20), None);
        assert_eq!(fit((10, 10), (10, 20), 0, 20), None);
    }

    #[test]
    fn dimensions_are_read_as_pixels_and_percentages_are_not() {
        assert_eq!(dimension(Some("640")), Some(640));
        assert_eq!(dimension(Some(" 640px ")), Some(640));
        assert_eq!(dimension(Some("50%")), None);
        assert_eq!(dimension(Some("-3")), None);
        assert_eq!(dimension(None), None);
        assert!(tracking_pixel(Some(1), Some(1)) && tracking_pixel(Some(1), None) && tracking_pixel(None, Some(0)));
        assert!(tracking_pixel(Some(2), Some(600)) && tracking_pixel(Some(640), Some(2)));
        assert!(!tracking_pixel(Some(3), Some(600)) && !tracking_pixel(None, None));
    }

    #[test]
    fn a_lazy_image_is_fetched_from_where_its_loader_keeps_it() {
        let attrs = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(address(attrs(&[("src", "a.png")])), Some("a.png".into()));
        assert_eq!(address(attrs(&[("src", "about:blank"), ("data-src", "lazy.png")])), Some("lazy.png".into()));
        assert_eq!(address(attrs(&[("srcset", "s.png 1x, b.png 2x")])), Some("s.png".into()));
        assert_eq!(address(attrs(&[("src", "data:image/gif;base64,R0lG")])), None);
        assert_eq!(picture_url("/i.png", Some("https://x.example/post")), Some("https://x.example/i.png".into()));
        assert_eq!(picture_url("javascript:alert(1)", None), None);
        assert_eq!(picture_url("ftp://x.example/i.png", None), None);
    }
}
