//! feed-rs's model → tidings's: plain-text titles, the richest content, authors without email addresses,
//! categories, enclosures, dates by priority, absolute links, and the entry's identity key.

use super::scan::ItemExtras;
use crate::canonical::{canonical_url, resolve};
use crate::model::{Enclosure, FeedKind, ParsedEntry, ParsedFeed};
use crate::sanitize::one_line;
use crate::text::{html_to_plain, looks_like_html};
use feed_rs::model::{Entry, Feed, FeedType, Link, LinkTarget, Text};

/// Longest title kept, in characters.
pub const MAX_TITLE_CHARS: usize = 1000;
/// Most categories kept per entry.
const MAX_CATEGORIES: usize = 20;

/// Maps a parsed document. `extras` (one per item, from [`super::scan`]) fills what feed-rs did not keep.
pub fn map_feed(
    feed: Feed,
    base_url: Option<&str>,
    extras: &[ItemExtras],
    dates: &dyn Fn(&str) -> Option<chrono::DateTime<chrono::Utc>>,
) -> ParsedFeed {
    let kind = match feed.feed_type {
        FeedType::Atom => FeedKind::Atom,
        FeedType::JSON => FeedKind::Json,
        FeedType::RSS0 => FeedKind::Rss0,
        FeedType::RSS1 => FeedKind::Rss1,
        FeedType::RSS2 => FeedKind::Rss2,
    };
    let link = site_link(&feed.links).and_then(|l| resolve(&l, &[base_url])).filter(|l| Some(l.as_str()) != base_url);
    let extras_fit = extras.len() == feed.entries.len();
    let entries = feed
        .entries
        .into_iter()
        .enumerate()
        .map(|(i, entry)| {
            let extra = if extras_fit { extras.get(i) } else { None };
            map_entry(entry, kind, &[link.as_deref(), base_url], extra, dates)
        })
        .collect();
    ParsedFeed {
        kind,
        title: feed.title.as_ref().and_then(plain_title),
        link,
        description: feed.description.as_ref().and_then(plain_title),
        entries,
        warnings: Vec::new(),
        min_interval_secs: feed.ttl.filter(|t| *t > 0).map(|minutes| u64::from(minutes) * 60),
    }
}

/// The feed's site: its alternate link, not the `self` link that points back at the feed.
fn site_link(links: &[Link]) -> Option<String> {
    links
        .iter()
        .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate") && l.target.is_none())
        .map(|l| l.href.trim().to_string())
        .filter(|href| !href.is_empty())
}

fn map_entry(
    entry: Entry,
    kind: FeedKind,
    bases: &[Option<&str>],
    extra: Option<&ItemExtras>,
    dates: &dyn Fn(&str) -> Option<chrono::DateTime<chrono::Utc>>,
) -> ParsedEntry {
    let entry_bases: Vec<Option<&str>> = std::iter::once(entry.base.as_deref()).chain(bases.iter().copied()).collect();
    let absolute = |href: &str| resolve(href, &entry_bases);

    let content_html = entry.content.as_ref().and_then(|c| {
        let body = c.body.as_deref()?.trim();
        if body.is_empty() {
            return None;
        }
        Some(if c.content_type.subty() == "plain" { crate::parse::escape_html(body) } else { body.to_string() })
    });
    let summary_html = entry.summary.as_ref().map(text_as_html).filter(|b| !b.trim().is_empty());
    let (content_html, summary_html) = match content_html {
        Some(c) => (Some(c), summary_html),
        None => (summary_html, None),
    };

    // Attachments: Atom's rel="enclosure" links, JSON Feed's attachments (links with a media type).
    let is_attachment =
        |l: &Link| l.rel.as_deref() == Some("enclosure") || (kind == FeedKind::Json && l.media_type.is_some());
    let link = entry
        .links
        .iter()
        .filter(|l| l.target.is_none() && !is_attachment(l))
        .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate"))
        .or(entry.links.iter().find(|l| l.target.is_none() && !is_attachment(l)))
        .and_then(|l| absolute(&l.href));
    let comments = entry.links.iter().find(|l| l.target == Some(LinkTarget::Comments)).and_then(|l| absolute(&l.href));

    let title = entry
        .title
        .as_ref()
        .and_then(plain_title)
        .or_else(|| entry.media.iter().find_map(|m| m.title.as_ref().and_then(plain_title)))
        .or_else(|| {
            extra
                .and_then(|x| x.title.as_deref())
                .map(|t| one_line(&html_to_plain(t), MAX_TITLE_CHARS))
                .filter(|t| !t.is_empty())
        })
        .or_else(|| first_line(content_html.as_deref()));

    let author = entry.authors.iter().find_map(|p| person_name(p.name.as_deref(), p.email.as_deref()));

    // Dates: dc:date, Atom's published, updated, then RSS's pubDate.
    let dc_date = extra.and_then(|x| x.dc_date.as_deref()).and_then(dates);
    let published = match kind {
        FeedKind::Rss0 | FeedKind::Rss1 | FeedKind::Rss2 => dc_date.or(entry.updated).or(entry.published),
        FeedKind::Atom | FeedKind::Json => entry.published.or(entry.updated),
    };

    let mut categories: Vec<String> = Vec::new();
    let subjects = extra.map(|x| x.subjects.iter().map(String::as_str).collect::<Vec<_>>()).unwrap_or_default();
    for name in entry.categories.iter().map(|c| c.label.as_deref().unwrap_or(&c.term)).chain(subjects) {
        let name = one_line(&html_to_plain(name), 100);
        if !name.is_empty() && !categories.contains(&name) && categories.len() < MAX_CATEGORIES {
            categories.push(name);
        }
    }

    let mut enclosures: Vec<Enclosure> = entry
        .links
        .iter()
        .filter(|l| is_attachment(l))
        .filter_map(|l| Some(Enclosure { url: absolute(&l.href)?, media_type: l.media_type.clone(), length: l.length }))
        .collect();
    let mut thumbnail = extra.and_then(|x| x.thumbnail.as_deref()).and_then(absolute);
    for media in &entry.media {
        for c in &media.content {
            let Some(url) = c.url.as_ref().map(|u| u.to_string()) else { continue };
            if !enclosures.iter().any(|e| e.url == url) {
                enclosures.push(Enclosure {
                    url,
                    media_type: c.content_type.as_ref().map(|t| t.to_string()),
                    length: c.size,
                });
            }
        }
        if thumbnail.is_none() {
            thumbnail = media.thumbnails.first().and_then(|t| absolute(&t.image.uri));
        }
    }

    let key = entry_key(&entry.id, link.as_deref(), title.as_deref(), published);
    ParsedEntry {
        key,
        title,
        link,
        author,
        published,
        updated: entry.updated,
        content_html,
        summary_html,
        categories,
        enclosures,
        comments,
        thumbnail,
    }
}

/// The identity of an entry within its feed: its id, else its canonical link, else a hash of title and date.
fn entry_key(id: &str, link: Option<&str>, title: Option<&str>, date: Option<chrono::DateTime<chrono::Utc>>) -> String {
    let id = id.trim();
    if !id.is_empty() {
        return id.to_string();
    }
    if let Some(link) = link {
        return canonical_url(link).unwrap_or_else(|| link.to_string());
    }
    let material = format!("{}\u{1f}{}", title.unwrap_or(""), date.map(|d| d.timestamp()).unwrap_or(0));
    format!("hash:{:016x}", fnv1a(material.as_bytes()))
}

/// FNV-1a: a small hash whose value never changes between Rust releases, so stored keys stay valid.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// A title as one line of plain text: tags stripped and entities decoded when it is (or looks like) HTML.
pub fn plain_title(t: &Text) -> Option<String> {
    let is_html = t.content_type.subty() == "html" || t.content_type.subty() == "xhtml+xml";
    let s = if is_html || looks_like_html(&t.content) { html_to_plain(&t.content) } else { t.content.clone() };
    let s = one_line(&s, MAX_TITLE_CHARS);
    (!s.is_empty()).then_some(s)
}

/// A title for an entry that has none: the first line of its text, cut near 80 characters on a word boundary.
fn first_line(html: Option<&str>) -> Option<String> {
    let text = html_to_plain(crate::sanitize::truncate_bytes(html?, 4096));
    let first = text.split(['\n', '.', '!', '?']).map(str::trim).find(|l| !l.is_empty())?;
    if first.chars().count() <= 80 {
        return Some(first.to_string());
    }
    let cut: String = first.chars().take(80).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    Some(format!("{}…", cut.trim_end()))
}

/// A `Text` as HTML: plain text is escaped so it renders as written.
fn text_as_html(t: &Text) -> String {
    if t.content_type.subty() == "plain" && !looks_like_html(&t.content) {
        crate::parse::escape_html(&t.content)
    } else {
        t.content.clone()
    }
}

/// A person's display name. Emails are never shown: "jo@x.org (Jo Doe)" gives "Jo Doe", and a bare address
/// gives its name part ("jo").
fn person_name(name: Option<&str>, email: Option<&str>) -> Option<String> {
    let clean = |s: &str| Some(one_line(&html_to_plain(s), 200)).filter(|s| !s.is_empty());
    for raw in [name, email].into_iter().flatten() {
        let raw = raw.trim();
        if let (Some(open), Some(close)) = (raw.find('('), raw.rfind(')'))
            && open < close
        {
            let inner = raw[open + 1..close].trim();
            if !inner.is_empty() && !inner.contains('@') {
                return clean(inner);
            }
        }
        if !raw.is_empty() && !raw.contains('@') {
            return clean(raw);
        }
    }
    // Only an address: its name part.
    [name, email].into_iter().flatten().find_map(|raw| {
        let address = raw.split_whitespace().find(|w| w.contains('@'))?;
        let local = address.trim_matches(|c| c == '<' || c == '>' || c == '(' || c == ')').split('@').next()?;
        clean(local)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn person_names_never_show_addresses() {
        assert_eq!(person_name(Some("jo@example.com (Jo Doe)"), None).as_deref(), Some("Jo Doe"));
        assert_eq!(person_name(Some("Ann"), Some("ann@example.com")).as_deref(), Some("Ann"));
        assert_eq!(person_name(None, Some("jo.doe@example.com")).as_deref(), Some("jo.doe"));
        assert_eq!(person_name(Some("<jo@example.com>"), None).as_deref(), Some("jo"));
        assert_eq!(person_name(None, None), None);
    }

    #[test]
    fn first_line_makes_a_short_title() {
        assert_eq!(first_line(Some("<p>Hello there. More text</p>")).as_deref(), Some("Hello there"));
        let long = format!("<p>{}</p>", "word ".repeat(40));
        let t = first_line(Some(&long)).unwrap();
        assert!(t.ends_with('…') && t.chars().count() <= 81, "{t}");
    }

    #[test]
    fn keys_prefer_the_id_then_the_canonical_link() {
        assert_eq!(entry_key(" id-1 ", Some("http://e.com/a"), None, None), "id-1");
        assert_eq!(entry_key("", Some("HTTP://E.com/a/?utm_source=rss"), None, None), "http://e.com/a");
        let a = entry_key("", None, Some("T"), None);
        assert!(a.starts_with("hash:"));
        assert_eq!(a, entry_key("", None, Some("T"), None));
        assert_ne!(a, entry_key("", None, Some("U"), None));
    }
}
