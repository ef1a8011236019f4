//! Full-article extraction: the main text of a web page, as a reader view shows it, for feeds that send only a
//! title or a snippet. [`extract`] runs `dom_smoothie` (a close port of Mozilla's Readability.js, kept in step
//! with it and tested on its pages) and then sanitizes what it kept with `ammonia`'s allow list: no scripts,
//! styles, forms, frames, embeds or event attributes survive, and relative links and images are made absolute.
//!
//! [`extract_page`] takes a fetched page as it arrived — bytes, `Content-Type`, address — refuses what is not
//! a web page (a PDF, an image, a feed), and decodes it the way discovery decodes pages before extracting.
//!
//! Pure: a page in, the article out. Fetching the page is the reader's `fetch::article`.

use crate::sanitize::{one_line, truncate_bytes};
use std::collections::HashSet;

/// Largest page read; the rest is cut (articles come before the comments and the scripts that end most pages).
pub const MAX_PAGE_BYTES: usize = 5 * 1024 * 1024;

/// Most elements a page may have before extraction refuses it (a real article page has a few thousand), so a
/// hostile page cannot keep the scoring busy.
pub const MAX_ELEMENTS: usize = 150_000;

/// Most elements open at once in a page read for its article; deeper ones are flattened, their text kept. The
/// tree builder takes time quadratic in the nesting (100,000 nested `<div>`s kept a core busy for minutes, and
/// the extractor overflowed its stack on deep pages); real pages nest a few dozen deep.
pub const MAX_PAGE_DEPTH: usize = 128;

/// Most elements of a page read for its article; later ones are flattened, their text kept (an article comes
/// before the comments and footers that make the rest of a long page, and scoring takes time by the element).
pub const MAX_PAGE_ELEMENTS: usize = 60_000;

/// Fewest characters of text an article has; below it the page is a stub, a login wall or a script shell.
pub const MIN_ARTICLE_CHARS: usize = 250;

/// Below this many characters, a page that declares itself not free to read is taken to show only a teaser.
const PAYWALL_TEASER_CHARS: usize = 2_000;

/// An extracted article.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extracted {
    /// The article's title, plain text.
    pub title: Option<String>,
    /// Who wrote it, as the page says, plain text.
    pub byline: Option<String>,
    pub site_name: Option<String>,
    /// When it was published, as the page's metadata says (usually ISO 8601).
    pub published: Option<String>,
    /// A short summary, plain text.
    pub excerpt: Option<String>,
    /// The article, sanitized HTML with absolute links.
    pub html: String,
    /// How many characters of text the article holds.
    pub text_chars: usize,
    /// True when the page was longer than [`MAX_PAGE_BYTES`] and only its start was read.
    pub truncated: bool,
}

/// Why a page gave no article. The messages say what a person can do; whoever shows them names the page.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    #[error("{url} is not an absolute http(s) address, so its links cannot be resolved")]
    BadUrl { url: String },
    #[error("the link leads to {what} ({media_type}), not a web page; open it in the browser instead")]
    NotHtml {
        /// The media type the server sent, or "no Content-Type".
        media_type: String,
        /// What that is, in words ("a PDF document").
        what: String,
    },
    #[error(
        "the page shows only {chars} characters of its article and says it is not free to read (a paywall); \
         open it in the browser to read it there"
    )]
    Paywalled { chars: usize },
    #[error(
        "no article found on the page (only {chars} characters of main text): it may be a login or consent \
         wall, or a page built by JavaScript; open it in the browser instead"
    )]
    NoArticle { chars: usize },
    #[error("the page has {elements} elements, more than the {limit} tidings reads; open it in the browser instead")]
    TooComplex { elements: usize, limit: usize },
    #[error("extraction failed on this page ({reason}); open it in the browser instead")]
    Failed { reason: String },
}

/// Extracts the article of a page as it was fetched: `body` served with `content_type` from `url` (the address
/// after redirects). A page is HTML by its `Content-Type`, or, without a useful one, by its first bytes.
pub fn extract_page(body: &[u8], content_type: Option<&str>, url: &str) -> Result<Extracted, ExtractError> {
    let media_type = content_type.map(|ct| crate::decode::sniff::ContentType::parse(ct).media_type).unwrap_or_default();
    let html = match media_type.as_str() {
        "text/html" | "application/xhtml+xml" => true,
        "" | "application/octet-stream" | "binary/octet-stream" | "application/unknown" => sniffs_as_html(body),
        _ => false,
    };
    if !html {
        let what = describe_media_type(&media_type).to_string();
        return Err(ExtractError::NotHtml { media_type: media_type_or_none(media_type), what });
    }
    let cut = body.len() > MAX_PAGE_BYTES;
    let body = &body[..body.len().min(MAX_PAGE_BYTES)];
    let page = crate::feedlinks::decode_page(body, content_type, crate::decode::tld_of(url).as_deref());
    let mut extracted = extract(&page, url)?;
    extracted.truncated |= cut;
    Ok(extracted)
}

fn media_type_or_none(media_type: String) -> String {
    if media_type.is_empty() { "no Content-Type".to_string() } else { media_type }
}

/// What a media type is, in words, for the message that refuses it.
fn describe_media_type(media_type: &str) -> &'static str {
    match media_type {
        "application/pdf" => "a PDF document",
        "application/json" => "JSON data",
        "text/plain" => "plain text",
        "application/rss+xml" | "application/atom+xml" | "application/feed+json" | "application/rdf+xml" => "a feed",
        t if t.ends_with("/xml") || t.ends_with("+xml") => "an XML document",
        t if t.starts_with("image/") => "an image",
        t if t.starts_with("audio/") => "an audio file",
        t if t.starts_with("video/") => "a video",
        "" | "application/octet-stream" | "binary/octet-stream" | "application/unknown" => "a file that is not HTML",
        _ => "a file",
    }
}

/// Whether bytes served without a useful type start like HTML: after a BOM and whitespace, one of the tags the
/// WHATWG MIME sniffing algorithm looks for, followed by a space or `>`.
fn sniffs_as_html(body: &[u8]) -> bool {
    const TAGS: [&[u8]; 17] = [
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<script",
        b"<iframe",
        b"<h1",
        b"<div",
        b"<font",
        b"<table",
        b"<a",
        b"<style",
        b"<title",
        b"<b",
        b"<body",
        b"<br",
        b"<p",
        b"<!--",
    ];
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(body.len());
    let head: Vec<u8> = body[start..body.len().min(start + 32)].to_ascii_lowercase();
    TAGS.iter().any(|tag| {
        head.starts_with(tag)
            && (tag == b"<!--" || head.get(tag.len()).is_some_and(|b| *b == b'>' || b.is_ascii_whitespace()))
    })
}

/// Extracts the article of the page `html`, which was fetched from `url` (the address after redirects, which
/// relative links resolve against, unless the page names a `<base>`).
pub fn extract(html: &str, url: &str) -> Result<Extracted, ExtractError> {
    let base = url::Url::parse(url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| ExtractError::BadUrl { url: one_line(url, 500) })?;
    let truncated = html.len() > MAX_PAGE_BYTES;
    let html = truncate_bytes(html, MAX_PAGE_BYTES);
    let limits = crate::render::bound::Limits {
        max_depth: MAX_PAGE_DEPTH,
        max_indent: usize::MAX,
        max_elements: MAX_PAGE_ELEMENTS,
    };
    let bounded = crate::render::bound::bound(html, crate::render::bound::Purpose::Page, limits, &|| false)
        .map(|chunks| chunks.into_iter().map(|c| c.html).collect::<String>())
        .unwrap_or_default();
    let config = dom_smoothie::Config { max_elements_to_parse: MAX_ELEMENTS, ..dom_smoothie::Config::default() };
    // The page is hostile input to a third-party parser: a panic in it is this page's error, not the reader's.
    let parsed = std::panic::catch_unwind(|| {
        let page = dom_query::Document::from(bounded.as_str());
        page.select(&ad_selector()).remove();
        dom_smoothie::Readability::with_document(page, Some(base.as_str()), Some(config)).and_then(|mut r| r.parse())
    })
    .map_err(|_| ExtractError::Failed { reason: "the extractor stopped on malformed markup".into() })?;
    let article = match parsed {
        Ok(article) => article,
        Err(dom_smoothie::ReadabilityError::TooManyElements(elements, limit)) => {
            return Err(ExtractError::TooComplex { elements, limit });
        }
        Err(dom_smoothie::ReadabilityError::GrabFailed) => return Err(ExtractError::NoArticle { chars: 0 }),
        Err(e) => return Err(ExtractError::Failed { reason: e.to_string() }),
    };
    let clean = sanitize(&article.content, &base);
    let text_chars = crate::text::fold_whitespace(&crate::text::html_to_plain(&clean)).chars().count();
    let paywalled = declares_paywall(html);
    if paywalled && text_chars < PAYWALL_TEASER_CHARS {
        return Err(ExtractError::Paywalled { chars: text_chars });
    }
    if text_chars < MIN_ARTICLE_CHARS {
        return Err(ExtractError::NoArticle { chars: text_chars });
    }
    let plain = |s: &str, max: usize| Some(one_line(s, max)).filter(|s| !s.is_empty());
    Ok(Extracted {
        title: plain(&article.title, 500),
        byline: article.byline.as_deref().and_then(|b| plain(b, 300)),
        site_name: article.site_name.as_deref().and_then(|s| plain(s, 200)),
        published: article.published_time.as_deref().and_then(|p| plain(p, 100)),
        excerpt: article.excerpt.as_deref().and_then(|e| plain(e, 1000)),
        html: clean,
        text_chars,
        truncated,
    })
}

/// Class names that mark an advertisement, a consent banner or a sign-up box, matched as whole words (so `ad`
/// removes `class="ad ad-top"` and not `class="header"`). Readability.js leaves these to its scoring, which
/// keeps a short ad that sits beside the article and reads like a sentence.
const AD_CLASSES: &str = "ad ads adslot ad-slot ad-unit ad-container ad-wrapper advert adverts advertisement \
                          advertisements advertising sponsored sponsored-content promo cookie-banner cookie-notice \
                          cookie-consent consent-banner newsletter-signup";

/// One selector for [`AD_CLASSES`], and the element ids Google's ad tags use.
fn ad_selector() -> String {
    let mut selectors: Vec<String> = AD_CLASSES.split_whitespace().map(|c| format!("[class~=\"{c}\"]")).collect();
    selectors.push("[id^=\"div-gpt-ad\"]".into());
    selectors.join(", ")
}

/// Elements removed with everything inside them: code, styling, forms and their controls, frames, plugins and
/// media players (nothing a terminal can show, and their fallback text is noise).
const DROPPED_WITH_CONTENT: [&str; 20] = [
    "script", "style", "template", "noscript", "form", "button", "select", "textarea", "input", "iframe", "frame",
    "frameset", "noframes", "object", "embed", "applet", "canvas", "svg", "video", "audio",
];

/// The article HTML through ammonia's allow list: only text-level and structural elements and their harmless
/// attributes stay (no `on*` handler, no `style`, no `javascript:` address), relative addresses become absolute.
fn sanitize(html: &str, base: &url::Url) -> String {
    ammonia::Builder::default()
        .clean_content_tags(DROPPED_WITH_CONTENT.into_iter().collect::<HashSet<_>>())
        .url_relative(ammonia::UrlRelative::RewriteWithBase(base.clone()))
        .link_rel(None)
        .clean(html)
        .to_string()
}

/// Whether the page declares, in its schema.org metadata, that its content is not free to read
/// (`"isAccessibleForFree": false`, the markup publishers use to mark paywalled articles for search engines).
fn declares_paywall(html: &str) -> bool {
    const KEY: &str = "isaccessibleforfree";
    let lower = html.to_ascii_lowercase();
    let mut rest = lower.as_str();
    while let Some(at) = rest.find(KEY) {
        rest = &rest[at + KEY.len()..];
        let value = rest.trim_start_matches(|c: char| c == '"' || c == '\'' || c == ':' || c.is_whitespace());
        if value.starts_with("false") {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAGRAPH: &str = "Terminal feed readers have a long history, from the mail-like interfaces of the \
        nineties to today's keyboard-driven tools. What they share is a focus on text: the article as its author \
        wrote it, without the trackers, the autoplaying video and the newsletter pop-up. ";

    fn page(article: &str, extra_head: &str) -> String {
        format!(
            "<!doctype html><html><head><title>Reading feeds in a terminal, the calm way - Example News</title>{extra_head}</head><body>\
             <nav class=\"menu\"><a href=\"/\">Home</a> <a href=\"/world\">World</a> <a href=\"/tech\">Tech</a></nav>\
             <article><h1>Reading feeds in a terminal, the calm way</h1><p class=\"byline\">By Ada Lovelace</p>{article}</article>\
             <footer>Copyright Example News</footer></body></html>"
        )
    }

    #[test]
    fn the_article_is_extracted_sanitized_and_its_links_made_absolute() {
        let article = format!(
            "<p onclick=\"steal()\" style=\"color:red\">{PARAGRAPH}<a href=\"/tech/more\">More</a> \
             <a href=\"javascript:alert(1)\">bad</a> <img src=\"pics/a.png\" alt=\"A\"></p>\
             <script>track()</script><form action=\"/subscribe\"><input name=e>Subscribe now</form>\
             <iframe src=\"https://ads.example.net/\">ad</iframe><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p>"
        );
        let got = extract(&page(&article, ""), "https://news.example.com/2026/reading.html").unwrap();
        assert_eq!(got.title.as_deref(), Some("Reading feeds in a terminal, the calm way"));
        assert_eq!(got.byline.as_deref(), Some("By Ada Lovelace"));
        assert!(got.html.contains("Terminal feed readers"), "{}", got.html);
        assert!(got.html.contains("href=\"https://news.example.com/tech/more\""), "{}", got.html);
        assert!(got.html.contains("src=\"https://news.example.com/2026/pics/a.png\""), "{}", got.html);
        for gone in
            ["onclick", "style=", "javascript:", "<script", "track()", "<form", "Subscribe now", "<iframe", "ads."]
        {
            assert!(!got.html.contains(gone), "{gone} survived: {}", got.html);
        }
        assert!(!got.truncated);
        assert!(got.text_chars > 3 * 200, "{}", got.text_chars);
    }

    #[test]
    fn ads_are_removed_by_whole_class_words_only() {
        let article = format!(
            "<div class=\"ad ad-top\">Rowboat X, now with cup holders.</div><p class=\"shadowed\">{PARAGRAPH}</p>\
             <div class=\"advertisement\"><p>Sponsored: cruises.</p></div><p class=\"loaded\">{PARAGRAPH}</p>"
        );
        let got = extract(&page(&article, ""), "https://news.example.com/a").unwrap();
        assert_eq!(got.html.matches("Terminal feed readers").count(), 2, "{}", got.html);
        assert!(!got.html.contains("Rowboat") && !got.html.contains("cruises"), "{}", got.html);
    }

    #[test]
    fn a_page_with_no_main_text_is_a_clear_error() {
        let err = extract(&page("<p>Subscribe to read.</p>", ""), "https://news.example.com/a").unwrap_err();
        assert!(matches!(err, ExtractError::NoArticle { .. }), "{err:?}");
        assert!(err.to_string().contains("no article found"), "{err}");
    }

    #[test]
    fn a_paywall_teaser_is_reported_as_a_paywall() {
        let ld =
            "<script type=\"application/ld+json\">{\"@type\":\"NewsArticle\",\"isAccessibleForFree\": false}</script>";
        let err =
            extract(&page(&format!("<p>{PARAGRAPH}{PARAGRAPH}</p>"), ld), "https://news.example.com/a").unwrap_err();
        assert!(matches!(err, ExtractError::Paywalled { .. }), "{err:?}");
        assert!(err.to_string().contains("paywall"), "{err}");
    }

    #[test]
    fn a_relative_page_address_is_refused() {
        assert!(matches!(extract("<p>x</p>", "/a/b"), Err(ExtractError::BadUrl { .. })));
        assert!(matches!(extract("<p>x</p>", "file:///etc/passwd"), Err(ExtractError::BadUrl { .. })));
    }

    #[test]
    fn what_is_not_a_web_page_is_refused_by_its_type_or_its_first_bytes() {
        let refuse = |body: &[u8], ct: Option<&str>| match extract_page(body, ct, "https://x.example.com/f") {
            Err(ExtractError::NotHtml { what, .. }) => Some(what),
            _ => None,
        };
        assert_eq!(refuse(b"%PDF-1.7", Some("application/pdf")).as_deref(), Some("a PDF document"));
        assert_eq!(refuse(b"<rss version=\"2.0\"/>", Some("application/rss+xml")).as_deref(), Some("a feed"));
        assert_eq!(refuse(b"\x89PNG", None).as_deref(), Some("a file that is not HTML"));
        assert_eq!(refuse(b"GIF89a", Some("image/gif")).as_deref(), Some("an image"));
        let err = extract_page(b"%PDF", Some("application/pdf"), "https://x.example.com/f").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the link leads to a PDF document (application/pdf), not a web page; open it in the browser instead"
        );
        // HTML without a type is still read (and here has no article).
        let untyped = extract_page(b"  <!DOCTYPE html><p>short</p>", None, "https://x.example.com/f");
        assert!(matches!(untyped, Err(ExtractError::NoArticle { .. })), "{untyped:?}");
    }

    #[test]
    fn a_page_in_a_legacy_encoding_is_decoded_by_its_charset() {
        let article = format!("<p>{PARAGRAPH} Gr\u{fc}\u{df}e aus K\u{f6}ln.</p>").repeat(2);
        let html = page(&article, "");
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&html);
        let got = extract_page(&bytes, Some("text/html; charset=windows-1252"), "https://x.example.com/a").unwrap();
        assert!(got.html.contains("Grüße aus Köln"), "{}", got.html);
    }

    #[test]
    fn a_huge_page_is_read_up_to_the_cap() {
        let article = format!("<p>{PARAGRAPH}</p>").repeat(3);
        // Past the article, a page's state as inline JSON, larger than the cap.
        let filler = format!("<script type=\"application/json\">[{}]</script>", "1,".repeat(MAX_PAGE_BYTES / 2));
        let got = extract(&page(&format!("{article}{filler}"), ""), "https://news.example.com/a").unwrap();
        assert!(got.truncated);
        assert!(got.html.contains("Terminal feed readers"));
    }
}
