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
    /// Every folder outline's path, in document order, empty folders included (so they survive a round trip).
    pub folders: Vec<Vec<String>>,
    /// The feeds' tags: every path of an outline's OPML 2.0 `category` ("/Tech/Rust,/News": Tech/Rust, News), by
    /// feed URL.
    pub tags: Vec<(String, Vec<String>)>,
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
    #[error("not an OPML file: its root element is <{0}>, expected <opml>{hint}", hint = feed_hint(.0))]
    WrongRoot(String),
    #[error("not an OPML file: it has no root element")]
    Empty,
}

/// What to do with a feed document given where a list of subscriptions was expected.
fn feed_hint(root: &str) -> &'static str {
    match root {
        "rss" | "feed" | "rdf:RDF" | "RDF" | "channel" => {
            " (this is a feed: subscribe to its address with `tidings add URL`)"
        }
        _ => "",
    }
}

/// One subscription on the way out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFeed {
    pub url: String,
    pub title: String,
    pub site_url: Option<String>,
    /// Its folder's path of names from the top; empty at the top level.
    pub folder: Vec<String>,
    /// Its tags, written as its OPML 2.0 `category` (see [`write_category`]).
    pub tags: Vec<String>,
}

/// What an export writes: the subscriptions, and every folder (empty ones too), each as its path of names, in
/// the order to write them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportDoc {
    pub feeds: Vec<ExportFeed>,
    pub folders: Vec<Vec<String>>,
}

const MAX_DEPTH: usize = 64;

/// Longest name (of a subscription or a folder) an OPML file gives, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// A name as an OPML file gives it, cleaned once, at import: control characters and explicit bidirectional
/// formatting removed (implicit marks too unless it holds right-to-left letters), whitespace folded, trimmed, and
/// cut to [`MAX_NAME_CHARS`] characters — cut, with no ellipsis added, so that a clean name written out reads back
/// the same (cleaning what it returns changes nothing). `None` when nothing is left.
pub fn clean_name(raw: &str) -> Option<String> {
    let mut name = crate::sanitize::one_line(raw, usize::MAX);
    if let Some((cut, _)) = name.char_indices().nth(MAX_NAME_CHARS) {
        name.truncate(cut);
        // What the cut left may have lost its right-to-left letters (then its marks go) or end in a space.
        name = crate::sanitize::one_line(&name, usize::MAX);
    }
    (!name.is_empty()).then_some(name)
}

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
    let mut seen_folders = std::collections::HashSet::new();
    // Folder names of the open outlines; `None` for an open outline that is a feed (its children are ignored).
    let mut stack: Vec<Option<String>> = Vec::new();
    // Outlines open past MAX_DEPTH: counted, not stacked, so that each outline reads at most MAX_DEPTH levels of
    // folders (200,000 nested outlines took 12 s, every outline reading every level above it).
    let mut beyond = 0usize;
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
                    if let Some(name) = folder.as_ref().filter(|_| stack.len() < MAX_DEPTH) {
                        // A folder is its path: two outlines of one name in one place are one folder.
                        let mut path: Vec<String> = stack.iter().flatten().cloned().collect();
                        path.push(name.clone());
                        if seen_folders.insert(path.clone()) {
                            doc.folders.push(path);
                        }
                    }
                    if !is_empty && stack.len() < MAX_DEPTH {
                        stack.push(folder);
                    } else if !is_empty {
                        beyond += 1;
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
                    if beyond > 0 {
                        beyond -= 1;
                    } else {
                        stack.pop();
                    }
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
    // A feed can name its folder without a folder outline (OPML 2.0's `category`): that folder and those above
    // it exist too.
    let named: Vec<Vec<String>> = doc.feeds.iter().chain(&doc.sites).map(|f| f.folder.clone()).collect();
    for path in named {
        for depth in 1..=path.len() {
            let prefix = path[..depth].to_vec();
            if seen_folders.insert(prefix.clone()) {
                doc.folders.push(prefix);
            }
        }
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
    let text = attr(e, "text").and_then(|t| clean_name(&t)).or_else(|| attr(e, "title").and_then(|t| clean_name(&t)));
    let xml_url = attr(e, "xmlUrl").or_else(|| attr(e, "url").filter(|_| attr(e, "type").is_some()));
    let html_url = attr(e, "htmlUrl");
    // A feed inside a feed outline is not a thing; treat it like the top level of the enclosing folder.
    let folder_path: Vec<String> = stack.iter().flatten().cloned().collect();
    let folder = if folder_path.is_empty() {
        attr(e, "category").map(|c| category_folder(&c)).unwrap_or_default()
    } else {
        folder_path
    };

    match (xml_url, html_url) {
        (Some(raw), html_url) => {
            match normalize_feed_url(&raw) {
                Ok(url) => {
                    if seen.insert(url.clone()) {
                        let tags = attr(e, "category").map(|c| category_tags(&c)).unwrap_or_default();
                        if !tags.is_empty() {
                            doc.tags.push((url.clone(), tags));
                        }
                        // The outline's text is the name the user knows the feed by: it stays. newsboat marks
                        // a name its user gave with a leading '~'.
                        doc.feeds.push(NewFeed {
                            url,
                            title: None,
                            name: text.map(user_name),
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
                        doc.sites.push(NewFeed { url, title: None, name: text.map(user_name), site_url: None, folder });
                    } else {
                        doc.duplicates.push(url);
                    }
                }
                Err(reason) => doc.rejected.push(Rejected { outline: site, reason }),
            }
            None
        }
        _ => Some(text.unwrap_or_else(|| "Untitled".to_string())),
    }
}

/// A feed's name as an OPML file gives it: newsboat writes a name its user chose as `~Name`.
fn user_name(text: String) -> String {
    match text.strip_prefix('~').map(str::trim) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => text,
    }
}

/// An outline with `htmlUrl` only could also be a folder that links its site; folders are told apart by
/// their children, which we do not know yet, so only outlines explicitly typed as folders count.
fn has_children_hint(e: &BytesStart<'_>) -> bool {
    attr(e, "type").is_some_and(|t| t.eq_ignore_ascii_case("folder"))
}

/// Every path of an OPML 2.0 `category` attribute ("/Tech/Rust,/News" gives Tech/Rust and News), each name
/// cleaned as an outline's is, after the three escapes [`write_category`] writes are read (`%2C`, `%2F`, `%25`).
fn category_tags(category: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for path in category.split(',') {
        let tag = path.split('/').filter_map(|name| clean_name(&unescape_category(name))).collect::<Vec<_>>().join("/");
        if !tag.is_empty() && !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    tags
}

/// A feed's tags as an OPML 2.0 `category`: each tag a slash-delimited path ("/Long Reads", "/News/World": a
/// tag's slashes are the path's, as other readers show them), the tags separated by commas. What would not read
/// back the same is escaped: a comma in a name as `%2C`, a percent sign as `%25`, and every slash of a tag whose
/// slashes do not split it into clean names (an empty one, or spaces around a slash) as `%2F`. A feed at the top
/// level gets `/` (the root) first: a file's top-level outline's first category names its folder otherwise.
pub fn write_category(tags: &[String], top_level: bool) -> Option<String> {
    let written: Vec<String> = tags
        .iter()
        .filter(|t| !t.is_empty())
        .map(|tag| {
            let escaped = tag.replace('%', "%25").replace(',', "%2C");
            let clean_parts = tag.split('/').all(|part| clean_name(part).as_deref() == Some(part));
            if clean_parts { format!("/{escaped}") } else { format!("/{}", escaped.replace('/', "%2F")) }
        })
        .collect();
    if written.is_empty() {
        return None;
    }
    let root = if top_level { "/," } else { "" };
    Some(format!("{root}{}", written.join(",")))
}

/// A name of a `category` path with [`write_category`]'s escapes read; any other `%` stays as it is.
fn unescape_category(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.contains('%') {
        return name.into();
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3).map(str::to_ascii_uppercase);
        match code.as_deref() {
            Some("2C") => out.push(','),
            Some("2F") => out.push('/'),
            Some("25") => out.push('%'),
            _ => {
                out.push('%');
                rest = &rest[at + 1..];
                continue;
            }
        }
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out.into()
}

fn category_folder(category: &str) -> Vec<String> {
    let first = category.split(',').next().unwrap_or("");
    first.split('/').filter_map(clean_name).collect()
}

/// Checks a subscription URL: absolute http(s) only (`feed:` URLs are rewritten to http); returns the URL as
/// the url crate writes it (scheme and host in lower case), without surrounding whitespace or a fragment: a
/// fragment never reaches the server, so `feed.xml#top` is `feed.xml` subscribed twice.
pub fn normalize_feed_url(raw: &str) -> Result<String, String> {
    let raw = raw.trim();
    let rewritten = if let Some(rest) = raw.strip_prefix("feed://") {
        format!("http://{rest}")
    } else if let Some(rest) = raw.strip_prefix("feed:") {
        rest.to_string()
    } else {
        raw.to_string()
    };
    let mut url = url::Url::parse(&rewritten).map_err(|e| format!("not a valid URL ({e})"))?;
    url.set_fragment(None);
    match url.scheme() {
        "http" | "https" => Ok(url.to_string()),
        other => Err(format!("unsupported URL scheme '{other}' (only http and https feeds can be fetched)")),
    }
}

/// Writes OPML 2.0: each folder an outline holding its feeds, then the folders inside it, nested as deep as
/// they are; top-level feeds first. Folders come in the order of `doc.folders` (a folder's path not listed there
/// is written after them), empty folders too, so a file written here reads back to the same tree.
pub fn write(title: &str, doc: &ExportDoc, created: chrono::DateTime<chrono::Utc>) -> String {
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  <head>\n");
    out.push_str(&format!("    <title>{}</title>\n", escape_xml(title)));
    out.push_str(&format!("    <dateCreated>{}</dateCreated>\n", created.to_rfc2822()));
    out.push_str("  </head>\n  <body>\n");

    // The tree, built in one pass over folders and feeds: a hundred thousand of each cost no more than a few.
    let mut index: std::collections::HashMap<&[String], usize> = std::collections::HashMap::new();
    let mut nodes: Vec<Node<'_>> = vec![Node::default()];
    for path in &doc.folders {
        node_of(path, &mut nodes, &mut index);
    }
    for feed in &doc.feeds {
        let i = node_of(&feed.folder, &mut nodes, &mut index);
        nodes[i].feeds.push(feed);
    }
    write_node(&mut out, &nodes, 0, 0);
    out.push_str("  </body>\n</opml>\n");
    out
}

/// The node of the folder at `path`, added with its missing ancestors.
fn node_of<'a>(
    path: &'a [String],
    nodes: &mut Vec<Node<'a>>,
    index: &mut std::collections::HashMap<&'a [String], usize>,
) -> usize {
    let mut at = 0;
    for depth in 1..=path.len() {
        let prefix = &path[..depth];
        at = match index.get(prefix) {
            Some(i) => *i,
            None => {
                nodes.push(Node { name: Some(path[depth - 1].as_str()), ..Node::default() });
                let i = nodes.len() - 1;
                nodes[at].children.push(i);
                index.insert(prefix, i);
                i
            }
        };
    }
    at
}

/// A folder of the tree being written (the root has no name).
#[derive(Default)]
struct Node<'a> {
    name: Option<&'a str>,
    feeds: Vec<&'a ExportFeed>,
    children: Vec<usize>,
}

fn write_node(out: &mut String, nodes: &[Node<'_>], at: usize, depth: usize) {
    for feed in &nodes[at].feeds {
        let t = escape_xml(&feed.title);
        out.push_str(&format!(
            "{}<outline type=\"rss\" text=\"{t}\" title=\"{t}\" xmlUrl=\"{}\"",
            indent(depth),
            escape_xml(&feed.url)
        ));
        if let Some(site) = &feed.site_url {
            out.push_str(&format!(" htmlUrl=\"{}\"", escape_xml(site)));
        }
        if let Some(category) = write_category(&feed.tags, feed.folder.is_empty()) {
            out.push_str(&format!(" category=\"{}\"", escape_xml(&category)));
        }
        out.push_str("/>\n");
    }
    for child in &nodes[at].children {
        let node = &nodes[*child];
        let name = escape_xml(node.name.unwrap_or("Untitled"));
        if node.feeds.is_empty() && node.children.is_empty() {
            out.push_str(&format!("{}<outline text=\"{name}\" title=\"{name}\"/>\n", indent(depth)));
            continue;
        }
        out.push_str(&format!("{}<outline text=\"{name}\" title=\"{name}\">\n", indent(depth)));
        write_node(out, nodes, *child, depth + 1);
        out.push_str(&format!("{}</outline>\n", indent(depth)));
    }
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
        let got: Vec<(&str, Option<&str>, String)> =
            doc.feeds.iter().map(|f| (f.url.as_str(), f.name.as_deref(), f.folder.join("/"))).collect();
        assert_eq!(
            got,
            vec![
                ("http://a.example/feed", Some("Top"), String::new()),
                ("https://b.example/rss", Some("Only title"), "Tech/Rust".into()),
                ("http://c.example/atom.xml", None, "Tech".into()),
                ("http://f.example/", Some("Cat"), "News/World".into()),
            ]
        );
        let folders: Vec<String> = doc.folders.iter().map(|p| p.join("/")).collect();
        assert_eq!(folders, ["Tech", "Tech/Rust", "News", "News/World"], "a category names folders too");
        let cat = doc.feeds.iter().find(|f| f.url == "http://f.example/").unwrap();
        assert!(doc.tags.contains(&(cat.url.clone(), vec!["News/World".into(), "Other".into()])), "{:?}", doc.tags);
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
        assert!(OpmlError::WrongRoot("feed".into()).to_string().contains("tidings add URL"));
        assert!(!OpmlError::WrongRoot("html".into()).to_string().contains("tidings add"));
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
        assert_eq!(doc.feeds[0].name.as_deref(), Some("Café & Bar"));
        assert_eq!(doc.feeds[0].url, "http://x.example/?a=1&b=2");
    }

    #[test]
    fn feed_scheme_is_rewritten_to_http() {
        assert_eq!(normalize_feed_url("feed://x.example/rss").unwrap(), "http://x.example/rss");
        assert_eq!(normalize_feed_url("feed:https://x.example/rss").unwrap(), "https://x.example/rss");
    }

    #[test]
    fn a_fragment_never_makes_another_subscription() {
        assert_eq!(normalize_feed_url(" HTTP://X.example/rss.xml#top ").unwrap(), "http://x.example/rss.xml");
        assert_eq!(normalize_feed_url("https://x.example/?a=1#f").unwrap(), "https://x.example/?a=1");
    }

    #[test]
    fn newsboats_mark_of_a_chosen_name_is_dropped() {
        let doc =
            parse(r#"<opml><body><outline text="~My Rubenerd" xmlUrl="http://rubenerd.example/feed"/></body></opml>"#)
                .unwrap();
        assert_eq!(doc.feeds[0].name.as_deref(), Some("My Rubenerd"));
    }

    fn path(p: &str) -> Vec<String> {
        p.split('/').filter(|s| !s.is_empty()).map(str::to_string).collect()
    }

    #[test]
    fn written_opml_reads_back_to_the_same_tree() {
        let feed = |url: &str, title: &str, folder: &str| ExportFeed {
            url: url.into(),
            title: title.into(),
            site_url: Some(format!("{url}/site")),
            folder: path(folder),
            tags: vec![],
        };
        let doc = ExportDoc {
            feeds: vec![
                feed("http://a.example/feed", "A & B", ""),
                feed("http://b.example/rss", "B", "Tech/Rust/Deep"),
                feed("http://c.example/rss", "C", "Tech"),
                // One folder whose name holds a slash: paths are lists of names, never split on '/'.
                ExportFeed { folder: vec!["AC/DC".into()], ..feed("http://d.example/rss", "D", "") },
            ],
            folders: vec![path("Tech"), path("Tech/Rust"), path("Tech/Rust/Deep"), path("Empty"), vec!["AC/DC".into()]],
        };
        let xml = write("tidings", &doc, chrono::DateTime::from_timestamp(0, 0).unwrap());
        let back = parse(&xml).unwrap();
        type Read = (String, Option<String>, Vec<String>, Option<String>);
        let got: Vec<Read> = back.feeds.into_iter().map(|f| (f.url, f.name, f.folder, f.site_url)).collect();
        let want: Vec<Read> = doc
            .feeds
            .iter()
            .map(|f| (f.url.clone(), Some(f.title.clone()), f.folder.clone(), f.site_url.clone()))
            .collect();
        let sorted = |mut v: Vec<_>| {
            v.sort();
            v
        };
        assert_eq!(sorted(got), sorted(want));
        let mut folders = back.folders.clone();
        folders.sort();
        let mut expected = doc.folders.clone();
        expected.sort();
        assert_eq!(folders, expected, "every folder, the empty one and the one with a slash included");
        // Writing what was read gives the same document.
        let again = ExportDoc { feeds: doc.feeds, folders: back.folders };
        assert_eq!(write("tidings", &again, chrono::DateTime::from_timestamp(0, 0).unwrap()), xml);
    }
    /// The fuzzer's find: names from a `category` kept their control characters and skipped the cap, and a name
    /// cut with an ellipsis read back otherwise. Every name is cleaned once at import, the same way wherever it
    /// comes from, and cut without an ellipsis.
    #[test]
    fn hostile_names_are_cleaned_once_at_import() {
        let long = "ü".repeat(150) + " " + &"x".repeat(150);
        let xml = format!(
            "<opml><body>\
               <outline text=\"Fe\u{1b}[31med \u{202e}evil\" xmlUrl=\"http://a.example/feed\" \
                 category=\"/Te\u{7}ch\u{9b}/ /\u{1}/{long},/Other\"/>\
               <outline text=\"{long}\"><outline text=\"\u{200f}only marks\" xmlUrl=\"http://b.example/feed\"/></outline>\
             </body></opml>"
        );
        let doc = parse(&xml).unwrap();
        let capped: String = long.chars().take(MAX_NAME_CHARS).collect();
        assert_eq!(capped.chars().count(), 200);
        assert_eq!(doc.feeds[0].name.as_deref(), Some("Feed evil"));
        assert_eq!(doc.feeds[0].folder, vec!["Tech".to_string(), capped.clone()]);
        assert_eq!(doc.feeds[1].name.as_deref(), Some("only marks"));
        assert_eq!(doc.feeds[1].folder, vec![capped.clone()]);
        assert_eq!(doc.folders, vec![vec![capped.clone()], vec!["Tech".to_string()], vec!["Tech".into(), capped]]);
    }

    /// Tags go out as the feed's `category` and come back exactly: slashes, commas, percent signs, spaces and
    /// non-ASCII in their names, at the top level (where a first category would name the folder) and in a folder.
    #[test]
    fn tags_written_as_category_read_back_exactly() {
        let tags: Vec<String> =
            ["Long Reads", "News/World", "a, b", "100% pure", "Ünïcödé/日本語", "odd / spaced", "AC/DC,live", "x%2Cy"]
                .iter()
                .map(|t| t.to_string())
                .collect();
        let feed = |url: &str, folder: Vec<String>| ExportFeed {
            url: url.into(),
            title: "T".into(),
            site_url: None,
            folder,
            tags: tags.clone(),
        };
        let doc = ExportDoc {
            feeds: vec![feed("http://a.example/feed", vec![]), feed("http://b.example/feed", vec!["News".into()])],
            folders: vec![vec!["News".into()]],
        };
        let xml = write("tidings", &doc, chrono::DateTime::from_timestamp(0, 0).unwrap());
        assert!(xml.contains("category=\"/,/Long Reads,/News/World,/a%2C b,"), "{xml}");
        let back = parse(&xml).unwrap();
        let folder_of = |url: &str| back.feeds.iter().find(|f| f.url == url).unwrap().folder.clone();
        assert_eq!(folder_of("http://a.example/feed"), Vec::<String>::new(), "the top level stays the top level");
        assert_eq!(folder_of("http://b.example/feed"), ["News"]);
        assert_eq!(back.folders, [vec!["News".to_string()]], "no folder made of a tag");
        for url in ["http://a.example/feed", "http://b.example/feed"] {
            let read = &back.tags.iter().find(|(u, _)| u == url).unwrap().1;
            assert_eq!(read, &tags, "{url}");
        }
        assert_eq!(write_category(&[], true), None, "no tags, no category");
    }

    /// Names read from a file, written out and read back are the names read: nothing is cut or cleaned twice.
    #[test]
    fn a_round_trip_keeps_every_name() {
        let long = "a ".repeat(99) + "\u{5d0}\u{200f}" + &"b".repeat(100);
        let xml = format!(
            "<opml><body>\
               <outline text=\"{long}\" category=\"/{long}/Sub\u{1}\" xmlUrl=\"http://a.example/feed\"/>\
               <outline text=\"\u{7f}\" title=\"Dir \u{85}two\"><outline text=\"{long}\"/></outline>\
               <outline text=\"\u{1}\"/>\
             </body></opml>"
        );
        let doc = parse(&xml).unwrap();
        let names = doc.folders.iter().flatten().chain(doc.feeds.iter().filter_map(|f| f.name.as_ref()));
        assert!(names.clone().any(|n| n.chars().count() == MAX_NAME_CHARS), "{:?}", doc.folders);
        for name in names {
            assert!(name.chars().count() <= MAX_NAME_CHARS && !name.contains('…'), "{name:?}");
            assert_eq!(clean_name(name).as_deref(), Some(name.as_str()), "cleaning twice changes nothing");
        }
        let export = ExportDoc {
            feeds: doc
                .feeds
                .iter()
                .map(|f| ExportFeed {
                    url: f.url.clone(),
                    title: f.name.clone().unwrap_or_default(),
                    site_url: None,
                    folder: f.folder.clone(),
                    tags: vec![],
                })
                .collect(),
            folders: doc.folders.clone(),
        };
        let back = parse(&write("t", &export, chrono::DateTime::from_timestamp(0, 0).unwrap())).unwrap();
        let sorted = |mut v: Vec<Vec<String>>| {
            v.sort();
            v
        };
        assert_eq!(sorted(back.folders.clone()), sorted(doc.folders.clone()));
        let named = |d: &OpmlDocument| d.feeds.iter().map(|f| (f.name.clone(), f.folder.clone())).collect::<Vec<_>>();
        assert_eq!(named(&back), named(&doc));
    }

    #[test]
    fn outlines_nested_past_the_folder_depth_file_their_feed_in_the_deepest_folder_and_close_in_order() {
        let n = 100_000;
        let xml = format!(
            "<opml version=\"2.0\"><body>{}<outline text=\"F\" xmlUrl=\"http://x.example/f.xml\"/>{}\
             <outline text=\"Top\" xmlUrl=\"http://x.example/top.xml\"/></body></opml>",
            "<outline text=\"d\">".repeat(n),
            "</outline>".repeat(n)
        );
        let doc = parse(&xml).unwrap();
        assert_eq!(doc.feeds.len(), 2);
        assert_eq!(doc.feeds[0].folder, vec!["d".to_string(); MAX_DEPTH]);
        assert!(doc.feeds[1].folder.is_empty(), "every outline closed: the last feed is at the top");
        assert_eq!(doc.folders.len(), MAX_DEPTH);
    }
}
