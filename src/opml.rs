//! OPML: subscription lists in and out. Lenient on input (real exports from newsboat, Feedly, Inoreader,
//! Thunderbird break the spec in many small ways), strict OPML 2.0 on output.
//!
//! Pure: takes and returns strings. The store applies an import; this module only reads and writes documents.

use crate::model::NewFeed;
use crate::text::{decode_entities, fold_whitespace};
use quick_xml::events::{BytesStart, Event};

/// What an OPML document offers, sorted out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpmlDocument {
    pub title: Option<String>,
    /// Subscriptions with a usable feed URL, in document order, duplicates within the file removed.
    pub feeds: Vec<NewFeed>,
    /// Outlines that name only a site (`htmlUrl`), whose feed must be found by discovery.
    pub sites: Vec<NewFeed>,
    /// URLs that appeared more than once in the file (kept once).
    pub duplicates: Vec<String>,
    /// Outlines that could not be used, with the reason.
    pub rejected: Vec<Rejected>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// What identifies the outline to a person: its URL, or its text.
    pub outline: String,
    pub reason: String,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OpmlError {
    #[error("not an OPML file: it is not XML ({0})")]
    NotXml(String),
    #[error("not an OPML file: its root element is <{0}>, expected <opml>")]
    WrongRoot(String),
    #[error("not an OPML file: it has no root element")]
    Empty,
}

/// One folder or subscription on the way out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFeed {
    pub url: String,
    pub title: String,
    pub site_url: Option<String>,
    /// Folder path, segments separated by `/`.
    pub folder: Option<String>,
}

const MAX_DEPTH: usize = 64;

/// Reads an OPML document (already decoded to UTF-8).
pub fn parse(text: &str) -> Result<OpmlDocument, OpmlError> {
    let mut reader = quick_xml::Reader::from_str(text);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    config.trim_text(true);

    let mut doc = OpmlDocument::default();
    let mut seen = std::collections::HashSet::new();
    // Folder names of the open outlines; `None` for an open outline that is a feed (its children are ignored).
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut root_seen = false;
    let mut in_head_title = false;
    let mut depth = 0usize;

    loop {
        let event = match reader.read_event() {
            Ok(ev) => ev,
            Err(err) if !root_seen => {
                return Err(OpmlError::NotXml(format!("at byte {}: {err}", reader.error_position())));
            }
            // Past the root, a broken tail loses only what follows it.
            Err(_) => break,
        };
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let is_empty = matches!(event, Event::Empty(_));
                let name = local_name(e);
                if !root_seen {
                    if !name.eq_ignore_ascii_case("opml") {
                        return Err(OpmlError::WrongRoot(name));
                    }
                    root_seen = true;
                    if !is_empty {
                        depth += 1;
                    }
                    continue;
                }
                if name.eq_ignore_ascii_case("outline") {
                    let folder = handle_outline(e, &stack, &mut doc, &mut seen);
                    if !is_empty && stack.len() < MAX_DEPTH {
                        stack.push(folder);
                    } else if !is_empty {
                        stack.push(None);
                    }
                } else if name.eq_ignore_ascii_case("title") && stack.is_empty() {
                    in_head_title = !is_empty;
                }
                if !is_empty {
                    depth += 1;
                }
            }
            Event::End(ref e) => {
                let name = e.local_name().as_ref().to_string();
                if name.eq_ignore_ascii_case("outline") {
                    stack.pop();
                }
                in_head_title = false;
                depth = depth.saturating_sub(1);
            }
            Event::Text(ref t) if in_head_title => {
                let title = fold_whitespace(&decode_entities(&t.clone().into_inner()));
                if !title.is_empty() {
                    doc.title = Some(crate::sanitize::one_line(&title, 200));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !root_seen {
        return Err(OpmlError::Empty);
    }
    Ok(doc)
}

fn local_name(e: &BytesStart<'_>) -> String {
    e.local_name().as_ref().to_string()
}

/// Reads an attribute by name, case-insensitively, with entities decoded leniently (HTML entities too).
fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.html_attributes().with_checks(false).flatten().find_map(|a| {
        let key = a.key.local_name().as_ref().to_string();
        if !key.eq_ignore_ascii_case(name) {
            return None;
        }
        let value = fold_whitespace(&decode_entities(&a.value));
        (!value.is_empty()).then_some(value)
    })
}

/// Files one `<outline>`; returns the folder name it opens when it is a folder.
fn handle_outline(
    e: &BytesStart<'_>,
    stack: &[Option<String>],
    doc: &mut OpmlDocument,
    seen: &mut std::collections::HashSet<String>,
) -> Option<String> {
    let text = attr(e, "text").or_else(|| attr(e, "title")).map(|t| crate::sanitize::one_line(&t, 200));
    let xml_url = attr(e, "xmlUrl").or_else(|| attr(e, "url").filter(|_| attr(e, "type").is_some()));
    let html_url = attr(e, "htmlUrl");
    // A feed inside a feed outline is not a thing; treat it like the top level of the enclosing folder.
    let folder_path: Vec<&str> = stack.iter().flatten().map(String::as_str).collect();
    let folder = if folder_path.is_empty() {
        attr(e, "category").and_then(|c| category_folder(&c))
    } else {
        Some(folder_path.join("/"))
    };

    match (xml_url, html_url) {
        (Some(raw), html_url) => {
            match normalize_feed_url(&raw) {
                Ok(url) => {
                    if seen.insert(url.clone()) {
                        doc.feeds.push(NewFeed {
                            url,
                            title: text,
                            site_url: html_url.and_then(|h| normalize_feed_url(&h).ok()),
                            folder,
                        });
                    } else {
                        doc.duplicates.push(url);
                    }
                }
                Err(reason) => doc.rejected.push(Rejected { outline: raw, reason }),
            }
            None
        }
        (None, Some(site)) if !has_children_hint(e) => {
            match normalize_feed_url(&site) {
                Ok(url) => {
                    if seen.insert(url.clone()) {
                        doc.sites.push(NewFeed { url, title: text, site_url: None, folder });
                    } else {
                        doc.duplicates.push(url);
                    }
                }
                Err(reason) => doc.rejected.push(Rejected { outline: site, reason }),
            }
            None
        }
        _ => Some(text.map(|t| t.replace('/', "∕")).unwrap_or_else(|| "Untitled".to_string())),
    }
}

/// An outline with `htmlUrl` only could also be a folder that links its site; folders are told apart by
/// their children, which we do not know yet, so only outlines explicitly typed as folders count.
fn has_children_hint(e: &BytesStart<'_>) -> bool {
    attr(e, "type").is_some_and(|t| t.eq_ignore_ascii_case("folder"))
}

/// The first path of an OPML 2.0 `category` attribute ("/Tech/Rust,/News" gives "Tech/Rust").
fn category_folder(category: &str) -> Option<String> {
    let first = category.split(',').next()?.trim().trim_matches('/');
    let path: Vec<&str> = first.split('/').map(str::trim).filter(|s| !s.is_empty()).collect();
    (!path.is_empty()).then(|| path.join("/"))
}

/// Checks a subscription URL: absolute http(s) only (`feed:` URLs are rewritten to http); returns the URL as
/// written otherwise unchanged except for surrounding whitespace.
pub fn normalize_feed_url(raw: &str) -> Result<String, String> {
    let raw = raw.trim();
    let rewritten = if let Some(rest) = raw.strip_prefix("feed://") {
        format!("http://{rest}")
    } else if let Some(rest) = raw.strip_prefix("feed:") {
        rest.to_string()
    } else {
        raw.to_string()
    };
    let url = url::Url::parse(&rewritten).map_err(|e| format!("not a valid URL ({e})"))?;
    match url.scheme() {
        "http" | "https" => Ok(url.to_string()),
        other => Err(format!("unsupported URL scheme '{other}' (only http and https feeds can be fetched)")),
    }
}

/// Writes OPML 2.0: folders as outlines containing their feeds; paths ("A/B") as nested outlines.
pub fn write(title: &str, feeds: &[ExportFeed], created: chrono::DateTime<chrono::Utc>) -> String {
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  <head>\n");
    out.push_str(&format!("    <title>{}</title>\n", escape_xml(title)));
    out.push_str(&format!("    <dateCreated>{}</dateCreated>\n", created.to_rfc2822()));
    out.push_str("  </head>\n  <body>\n");

    // Top-level feeds first, then folders in order of first appearance.
    let mut open: Vec<&str> = Vec::new();
    let mut sorted: Vec<&ExportFeed> = feeds.iter().filter(|f| f.folder.is_none()).collect();
    let mut folders: Vec<&str> = Vec::new();
    for f in feeds {
        if let Some(folder) = f.folder.as_deref()
            && !folders.contains(&folder)
        {
            folders.push(folder);
        }
    }
    folders.sort_by(|a, b| a.split('/').cmp(b.split('/')));
    for folder in &folders {
        sorted.extend(feeds.iter().filter(|f| f.folder.as_deref() == Some(*folder)));
    }
    for feed in sorted {
        let path: Vec<&str> = feed.folder.as_deref().map(|f| f.split('/').collect()).unwrap_or_default();
        let common = open.iter().zip(&path).take_while(|(a, b)| a == b).count();
        while open.len() > common {
            open.pop();
            out.push_str(&format!("{}</outline>\n", indent(open.len())));
        }
        for segment in &path[common..] {
            let s = escape_xml(segment);
            out.push_str(&format!("{}<outline text=\"{s}\" title=\"{s}\">\n", indent(open.len())));
            open.push(segment);
        }
        let t = escape_xml(&feed.title);
        out.push_str(&format!(
            "{}<outline type=\"rss\" text=\"{t}\" title=\"{t}\" xmlUrl=\"{}\"",
            indent(open.len()),
            escape_xml(&feed.url)
        ));
        if let Some(site) = &feed.site_url {
            out.push_str(&format!(" htmlUrl=\"{}\"", escape_xml(site)));
        }
        out.push_str("/>\n");
    }
    while !open.is_empty() {
        open.pop();
        out.push_str(&format!("{}</outline>\n", indent(open.len())));
    }
    out.push_str("  </body>\n</opml>\n");
    out
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth + 2)
}

fn escape_xml(s: &str) -> String {
    crate::parse::escape_html(&s.chars().filter(|c| !crate::sanitize::is_forbidden(*c)).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NESTED: &str = r#"<?xml version="1.0"?>
<opml version="1.0"><head><title>My feeds</title></head><body>
  <outline text="Top" xmlUrl="http://a.example/feed" htmlUrl="http://a.example/"/>
  <outline text="Tech">
    <outline text="Rust" title="Rust">
      <outline title="Only title" xmlUrl="https://b.example/rss"/>
    </outline>
    <outline xmlUrl="http://c.example/atom.xml"/>
    <outline text="Again" xmlUrl="http://a.example/feed"/>
  </outline>
  <outline text="Site only" htmlUrl="http://d.example/"/>
  <outline text="Bad" xmlUrl="ftp://e.example/x"/>
  <outline text="Cat" xmlUrl="http://f.example/" category="/News/World,/Other"/>
</body></opml>"#;

    #[test]
    fn nested_outlines_become_folder_paths() {
        let doc = parse(NESTED).unwrap();
        assert_eq!(doc.title.as_deref(), Some("My feeds"));
        let got: Vec<(&str, Option<&str>, Option<&str>)> =
            doc.feeds.iter().map(|f| (f.url.as_str(), f.title.as_deref(), f.folder.as_deref())).collect();
        assert_eq!(
            got,
            vec![
                ("http://a.example/feed", Some("Top"), None),
                ("https://b.example/rss", Some("Only title"), Some("Tech/Rust")),
                ("http://c.example/atom.xml", None, Some("Tech")),
                ("http://f.example/", Some("Cat"), Some("News/World")),
            ]
        );
    }

    #[test]
    fn duplicates_sites_and_bad_urls_are_reported() {
        let doc = parse(NESTED).unwrap();
        assert_eq!(doc.duplicates, vec!["http://a.example/feed"]);
        assert_eq!(doc.sites.len(), 1);
        assert_eq!(doc.sites[0].url, "http://d.example/");
        assert_eq!(doc.rejected.len(), 1);
        assert!(doc.rejected[0].reason.contains("ftp"), "{:?}", doc.rejected);
    }

    #[test]
    fn a_feed_is_not_opml() {
        assert_eq!(parse("<rss version=\"2.0\"><channel/></rss>"), Err(OpmlError::WrongRoot("rss".into())));
    }

    #[test]
    fn text_is_not_opml() {
        assert!(matches!(parse("just some words"), Err(OpmlError::Empty)));
        // A truncated file keeps the outlines before the cut.
        let cut = parse("<opml><body><outline text=\"x\" xmlUrl=\"http://a/\"/><outline text=\"y\" xmlU");
        assert_eq!(cut.map(|d| d.feeds.len()), Ok(1));
    }

    #[test]
    fn html_entities_in_attributes_are_decoded() {
        let doc = parse(r#"<opml><body><outline text="Caf&eacute; &amp; Bar" xmlUrl="http://x.example/?a=1&amp;b=2"/></body></opml>"#)
            .unwrap();
        assert_eq!(doc.feeds[0].title.as_deref(), Some("Café & Bar"));
        assert_eq!(doc.feeds[0].url, "http://x.example/?a=1&b=2");
    }

    #[test]
    fn feed_scheme_is_rewritten_to_http() {
        assert_eq!(normalize_feed_url("feed://x.example/rss").unwrap(), "http://x.example/rss");
        assert_eq!(normalize_feed_url("feed:https://x.example/rss").unwrap(), "https://x.example/rss");
    }

    #[test]
    fn written_opml_reads_back_the_same() {
        let feeds = vec![
            ExportFeed { url: "http://a.example/feed".into(), title: "A & B".into(), site_url: None, folder: None },
            ExportFeed {
                url: "http://b.example/rss".into(),
                title: "B".into(),
                site_url: Some("http://b.example/".into()),
                folder: Some("Tech/Rust".into()),
            },
            ExportFeed {
                url: "http://c.example/rss".into(),
                title: "C".into(),
                site_url: None,
                folder: Some("Tech".into()),
            },
        ];
        let xml = write("tidings", &feeds, chrono::DateTime::from_timestamp(0, 0).unwrap());
        let doc = parse(&xml).unwrap();
        let got: Vec<(String, Option<String>, Option<String>)> =
            doc.feeds.into_iter().map(|f| (f.url, f.title, f.folder)).collect();
        assert_eq!(
            got,
            vec![
                ("http://a.example/feed".into(), Some("A & B".into()), None),
                ("http://c.example/rss".into(), Some("C".into()), Some("Tech".into())),
                ("http://b.example/rss".into(), Some("B".into()), Some("Tech/Rust".into())),
            ]
        );
    }
}
