//! Decoding a picture's bytes, refusing what would hurt: a format the decoder does not know (named, so a person
//! knows why the alt text shows), SVG (tidings draws no vector images; one with a script is named as such), and
//! any image whose header claims more pixels than [`MAX_PIXELS`] — checked before a single pixel is decoded, and
//! held to by the decoder's own [`image::Limits`]. What comes out is never larger than [`MAX_KEPT_SIDE`] on a
//! side: the reader keeps it in memory to draw it at any width, and no text column needs more.

use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use std::io::Cursor;

/// Most pixels a picture may have (a 5000 × 3200 photo; a tiny file claiming 50,000 × 50,000 is refused).
pub const MAX_PIXELS: u64 = 16_000_000;
/// Longest side accepted, whatever the other.
pub const MAX_SIDE: u32 = 16_384;
/// Most memory the decoder may allocate for one picture.
pub const MAX_ALLOC_BYTES: u64 = 96 * 1024 * 1024;
/// The longest side a decoded picture is kept at.
pub const MAX_KEPT_SIDE: u32 = 1200;

/// A decoded picture: its pixels (shrunk to [`MAX_KEPT_SIDE`]) and the size it has in the file.
pub struct Decoded {
    pub image: DynamicImage,
    pub width: u32,
    pub height: u32,
}

/// Why a picture is not shown, in words for a person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("an SVG drawing with a script; not shown")]
    SvgWithScript,
    #[error("an SVG drawing; tidings shows PNG, JPEG, GIF, WebP and BMP pictures")]
    Svg,
    #[error("not a picture tidings can show (PNG, JPEG, GIF, WebP or BMP)")]
    UnknownFormat,
    #[error("the picture claims {width} × {height} pixels, more than tidings decodes")]
    TooManyPixels { width: u32, height: u32 },
    #[error("the picture is damaged: {0}")]
    Broken(String),
}

/// The formats decoded; everything else is refused unread.
fn known(format: ImageFormat) -> bool {
    matches!(format, ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP | ImageFormat::Bmp)
}

/// Decodes `bytes`, within the limits above.
pub fn decode(bytes: &[u8]) -> Result<Decoded, Refusal> {
    if let Some(refusal) = svg(bytes) {
        return Err(refusal);
    }
    let format = image::guess_format(bytes).ok().filter(|f| known(*f)).ok_or(Refusal::UnknownFormat)?;
    let reader = || {
        let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_SIDE);
        limits.max_image_height = Some(MAX_SIDE);
        limits.max_alloc = Some(MAX_ALLOC_BYTES);
        reader.limits(limits);
        reader
    };
    // The header alone first: what it claims decides whether a pixel is decoded at all.
    let (width, height) =
        ImageReader::with_format(Cursor::new(bytes), format).into_dimensions().map_err(|e| refusal(e, None))?;
    if u64::from(width) * u64::from(height) > MAX_PIXELS || width > MAX_SIDE || height > MAX_SIDE {
        return Err(Refusal::TooManyPixels { width, height });
    }
    let image = reader().decode().map_err(|e| refusal(e, Some((width, height))))?;
    let image = if image.width() > MAX_KEPT_SIDE || image.height() > MAX_KEPT_SIDE {
        shrink(&image, MAX_KEPT_SIDE, MAX_KEPT_SIDE)
    } else {
        image
    };
    Ok(Decoded { image, width, height })
}

/// `image` made smaller to fit in `width` × `height`, its proportions kept: each new pixel the average of those
/// it covers, in integers (a filter's resize holds the picture again in 32-bit floats, 16 bytes a pixel, for
/// a moment — the reader's largest allocation).
pub fn shrink(image: &DynamicImage, width: u32, height: u32) -> DynamicImage {
    image.thumbnail(width.max(1), height.max(1))
}

fn refusal(error: image::ImageError, size: Option<(u32, u32)>) -> Refusal {
    match (error, size) {
        (image::ImageError::Limits(_), Some((width, height))) => Refusal::TooManyPixels { width, height },
        (image::ImageError::Limits(e), None) => Refusal::Broken(e.to_string()),
        (image::ImageError::Unsupported(_), _) => Refusal::UnknownFormat,
        (e, _) => Refusal::Broken(crate::sanitize::one_line(&e.to_string(), 200)),
    }
}

/// An SVG document (XML whose root is `svg`), and whether it carries a script (a `script` element, an event
/// handler attribute, or a `javascript:` address).
fn svg(bytes: &[u8]) -> Option<Refusal> {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if !(start.starts_with("<svg") || (start.starts_with('<') && text.contains("<svg"))) {
        return None;
    }
    let all = String::from_utf8_lossy(bytes).to_ascii_lowercase();
    let handler = all.match_indices(" on").any(|(at, _)| {
        let rest = &all[at + 3..];
        let name_len = rest.chars().take_while(char::is_ascii_alphabetic).count();
        name_len > 0 && rest[name_len..].trim_start().starts_with('=')
    });
    if all.contains("<script") || all.contains("javascript:") || handler {
        Some(Refusal::SvgWithScript)
    } else {
        Some(Refusal::Svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = image::RgbImage::from_pixel(width, height, image::Rgb([255, 0, 0]));
        let mut out = Cursor::new(Vec::new());
        image.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn a_png_decodes_with_its_size() {
        let decoded = decode(&png(30, 20)).unwrap();
        assert_eq!((decoded.width, decoded.height), (30, 20));
        assert_eq!(decoded.image.to_rgb8().get_pixel(5, 5), &image::Rgb([255, 0, 0]));
    }

    /// A PNG of a few dozen bytes whose header claims `side` × `side` pixels (a valid header, a checksum that
    /// matches, and one empty data chunk behind it).
    pub(crate) fn png_claiming(side: u32) -> Vec<u8> {
        fn crc32(bytes: &[u8]) -> u32 {
            let mut crc = 0xffff_ffffu32;
            for b in bytes {
                crc ^= u32::from(*b);
                for _ in 0..8 {
                    crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
                }
            }
            !crc
        }
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend(side.to_be_bytes());
        ihdr.extend(side.to_be_bytes());
        ihdr.extend([8, 2, 0, 0, 0]);
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.extend(13u32.to_be_bytes());
        bytes.extend(&ihdr);
        bytes.extend(crc32(&ihdr).to_be_bytes());
        bytes.extend(0u32.to_be_bytes());
        bytes.extend(b"IDAT");
        bytes.extend(crc32(b"IDAT").to_be_bytes());
        bytes
    }

    #[test]
    fn a_tiny_file_claiming_fifty_thousand_pixels_square_is_refused_before_decoding() {
        let bytes = png_claiming(50_000);
        assert!(bytes.len() < 100);
        assert!(matches!(decode(&bytes), Err(Refusal::TooManyPixels { .. })), "{:?}", decode(&bytes).err());
    }

    #[test]
    fn svg_is_refused_and_one_with_a_script_is_named() {
        let plain = b"<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>";
        assert_eq!(decode(plain).err(), Some(Refusal::Svg));
        let scripted = b"<svg onload =\"alert(1)\"><rect/></svg>";
        assert_eq!(decode(scripted).err(), Some(Refusal::SvgWithScript));
        let script = b"  <svg><script>alert(1)</script></svg>";
        assert_eq!(decode(script).err(), Some(Refusal::SvgWithScript));
    }

    #[test]
    fn unknown_and_broken_bytes_are_refused_with_a_reason() {
        assert_eq!(decode(b"<html>not a picture</html>").err(), Some(Refusal::UnknownFormat));
        let mut cut = png(50, 50);
        cut.truncate(60);
        assert!(matches!(decode(&cut), Err(Refusal::Broken(_))), "{:?}", decode(&cut).err());
    }

    #[test]
    fn a_big_picture_is_kept_at_a_bounded_size() {
        let decoded = decode(&png(3200, 100)).unwrap();
        assert_eq!((decoded.width, decoded.height), (3200, 100));
        assert_eq!(decoded.image.width(), MAX_KEPT_SIDE);
    }
}
