//! RSS (0.90 to 2.0, and RSS 1.0's RDF), Atom (1.0 and 0.3) and CDF, from the element tree to tidings's model.
//!
//! Every field is looked up by namespace, in the document's own vocabulary first and then in the modules feeds
//! mix in, whatever the format: an RSS item's link may be its `<link>`, an `atom:link rel="alternate"`, or its
//! `<guid>` when that is a permalink; its authors are every `<author>`, `dc:creator`, `itunes:author` and
//! `atom:author`; its date the first of `dc:date`, `pubDate`, `dcterms:*` and `atom:*` that parses. Atom entries
//! without an author inherit their source's, then their feed's (RFC 4287 §4.2.1).
//!
//! Items are read as they close ([`Items`], a [`Sink`] of the tree's reader): each becomes an entry and its
//! elements are dropped at once, so a document never stands as a tree of all its items.
//!
//! Pure: a tree in, a [`ParsedFeed`] out.

use super::ParseError;
use super::construct::{self, Text, Untyped};
use super::fields::{self, DateReader, absolute, add_author, add_category, person_name, title_of};
use super::tree::{ATOM_03, Document, Element, Node, Ns, Open, RSS_090, Sink};
use crate::model::{Enclosure, FeedKind, MAX_ENTRIES_PER_REFRESH, ParsedEntry, ParsedFeed};
use chrono::{DateTime, Utc};
use std::borrow::Cow;

/// Which vocabulary the document's own elements are in.
#[derive(Clone, Copy)]
struct Format {
    atom: bool,
    /// The namespace of the document's own elements; no-namespace elements count as its own too.
    home: Ns,
}

impl Format {
    fn own(self, el: &Element<'_>, name: &str) -> bool {
        el.name == name && (el.ns == self.home || el.ns == Ns::None)
    }

    /// The first own child named `name`.
    fn child<'e, 'a>(self, parent: &'e Element<'a>, name: &str) -> Option<&'e Element<'a>> {
        parent.elements().find(|e| self.own(e, name))
    }

    /// Reads an element as a text construct, Atom's rules for Atom's elements.
    fn text<'e>(self, el: &'e Element<'_>, untyped: Untyped) -> Option<Text<'e>> {
        construct::read(el, el.ns == Ns::Atom || (self.atom && el.ns == Ns::None), untyped)
    }

    /// The first of several text fields that holds something. Each field is one or more names (of which the
    /// first in document order counts), either the document's own or in a namespace.
    fn first_text<'e>(self, parent: &'e Element<'_>, fields: &[(Option<Ns>, &[&str], Untyped)]) -> Option<Text<'e>> {
        fields.iter().find_map(|(ns, names, untyped)| {
            let mut found = parent.elements().filter(|e| match ns {
                None => names.iter().any(|name| self.own(e, name)),
                Some(ns) => e.ns == *ns && names.contains(&e.name.as_ref()),
            });
            found.find_map(|e| self.text(e, *untyped))
        })
    }
}

/// Where a document keeps its items, by its root element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// An Atom Entry Document (RFC 4287 §4.1.2): the root is the one entry.
    AtomEntry,
    /// `<feed>`: entries under the root.
    Atom,
    /// `<rss>`: items in the (first) channel, and any under the root.
    Rss,
    /// `<rdf:RDF>`: items under the root, and any in the (first) channel.
    Rdf,
    /// A `<channel>` with no `<rss>` around it.
    Channel,
}

/// The shape of a document and the vocabulary of its own elements, by its root; `None` for a root no feed has.
fn shape_of(root: &Element) -> Option<(Shape, Format)> {
    Some(match root.name.as_ref() {
        "entry" if matches!(root.ns, Ns::Atom | Ns::None) => (Shape::AtomEntry, Format { atom: true, home: root.ns }),
        "feed" if matches!(root.ns, Ns::Atom | Ns::None | Ns::Other) => {
            (Shape::Atom, Format { atom: true, home: root.ns })
        }
        "rss" => (Shape::Rss, Format { atom: false, home: root.ns }),
        "RDF" | "rdf" => (Shape::Rdf, Format { atom: false, home: Ns::None }),
        "channel" => (Shape::Channel, Format { atom: false, home: root.ns }),
        _ => return None,
    })
}

/// A document's items, read into entries as they close (see [`Sink`]) by the feed's link as it stood at the
/// first of them. [`read`] checks that link against the whole channel's and asks for the document again, kept
/// whole, in the rare feed whose link comes after its items and changes what they read ([`Items::holding`]).
///
/// Of the items right under the root, and of those in the channel, the first [`MAX_ENTRIES_PER_REFRESH`] each are
/// read (or held); the others are counted and dropped as they close, unread: a document of millions of empty
/// items never stands in memory as millions of entries, or of elements.
pub(super) struct Items<'u> {
    base_url: Option<&'u str>,
    dates: DateReader,
    /// The feed's link the items were read by (`None` until the first; always, when holding).
    link: Option<Option<String>>,
    /// Entries of the items right under the root, and of those in the channel, each in document order.
    outer: Vec<ParsedEntry>,
    inner: Vec<ParsedEntry>,
    /// Items are kept in the tree, to be read from the whole document, rather than read as they close.
    holding: bool,
    /// Items seen right under the root, and in the channel.
    seen: [usize; 2],
    /// Items dropped unread, past the first [`MAX_ENTRIES_PER_REFRESH`] of their place.
    beyond: usize,
    /// Elements the tree keeps; and by the depth they closed at, those kept since the element around them opened,
    /// each counting the elements under it (so an element closing at depth `k` holds those of the levels past `k`:
    /// an item taken lets them go with it).
    kept: usize,
    levels: Vec<usize>,
    /// Elements dropped past [`MAX_KEPT_ELEMENTS`].
    dropped: usize,
}

/// The most elements the tree keeps besides the items read as they close: a channel's own (a few dozen), and the
/// items it holds when it is read whole (a few dozen elements each). A document of millions of other elements (a
/// second channel's items, `<x/>` repeated) stands as no more; the rest are dropped, and the feed warned of.
const MAX_KEPT_ELEMENTS: usize = 300_000;

impl<'u> Items<'u> {
    /// Items read into entries as they close.
    pub(super) fn new(base_url: Option<&'u str>) -> Items<'u> {
        Items {
            base_url,
            dates: DateReader::default(),
            link: None,
            outer: Vec::new(),
            inner: Vec::new(),
            holding: false,
            seen: [0; 2],
            beyond: 0,
            kept: 0,
            levels: Vec::new(),
            dropped: 0,
        }
    }

    /// Items kept in the tree as they close, to be read from the whole document by [`read`].
    pub(super) fn holding(base_url: Option<&'u str>) -> Items<'u> {
        Items { holding: true, ..Items::new(base_url) }
    }
}

impl Items<'_> {
    /// An element the tree keeps, or drops past [`MAX_KEPT_ELEMENTS`].
    fn keep<'a>(&mut self, depth: usize, element: Element<'a>) -> Option<Element<'a>> {
        let under = self.under(depth);
        // Never the root's children: the channel, or what stands for it.
        if self.kept >= MAX_KEPT_ELEMENTS && depth > 1 {
            self.dropped += 1;
            self.kept -= under;
            return None;
        }
        self.count(depth, under);
        Some(element)
    }

    /// One more element kept, closed at `depth` over `under` others.
    fn count(&mut self, depth: usize, under: usize) {
        self.kept += 1;
        self.levels.resize(self.levels.len().max(depth + 1), 0);
        self.levels[depth] += under + 1;
    }

    /// The elements kept under the one closing at `depth` (each level is summed once, then gone: no more work
    /// than elements, however deep the document nests).
    fn under(&mut self, depth: usize) -> usize {
        let under = self.levels.get(depth + 1..).map_or(0, |below| below.iter().sum());
        self.levels.truncate(depth + 1);
        under
    }
}

impl<'a> Sink<'a> for Items<'_> {
    fn closed(&mut self, open: &Open<'_, 'a>, item: Element<'a>) -> Option<Element<'a>> {
        let Some((shape, format)) = shape_of(open.element(0)) else { return Some(item) };
        // The first own channel under the root so far (`format.child(root, "channel")` once it is whole).
        let first_channel = |open: &Open<'_, 'a>| {
            open.children(0).iter().find_map(|n| match n {
                Node::Element(c) if format.own(c, "channel") => Some(c.clone()),
                _ => None,
            })
        };
        let in_channel = match (shape, open.depth()) {
            (Shape::Atom, 1) if format.own(&item, "entry") => false,
            (Shape::Rss | Shape::Rdf | Shape::Channel, 1) if format.own(&item, "item") => false,
            (Shape::Rss | Shape::Rdf, 2)
                if format.own(&item, "item")
                    && format.own(open.element(1), "channel")
                    && first_channel(open).is_none() =>
            {
                true
            }
            _ => return self.keep(open.depth(), item),
        };
        // The item's elements, counted as they closed, go with it unless it is held.
        let children = self.under(open.depth());
        let seen = &mut self.seen[usize::from(in_channel)];
        *seen += 1;
        if *seen > MAX_ENTRIES_PER_REFRESH {
            self.beyond += 1;
            self.kept -= children;
            return None;
        }
        if self.holding {
            // Kept with its elements (the cap is not asked: the items are what the tree is held for).
            self.count(open.depth(), children);
            return Some(item);
        }
        self.kept -= children;
        let base_url = self.base_url;
        let link = self.link.get_or_insert_with(|| {
            let channel = match shape {
                Shape::Rss | Shape::Rdf if in_channel => open.so_far(1),
                Shape::Rss | Shape::Rdf => first_channel(open).unwrap_or_else(|| open.so_far(0)),
                _ => open.so_far(0),
            };
            feed_link(format, &channel, base_url)
        });
        let entry = read_entry(format, &item, [link.as_deref(), base_url], &mut self.dates);
        if in_channel { &mut self.inner } else { &mut self.outer }.push(entry);
        None
    }
}

/// Reads a feed document whose items `streamed` took as they closed (see [`Items`]). `None`: they were read
/// by a link that is not the feed's; read the document again, its items held in the tree ([`Items::holding`]).
pub(super) fn read(
    doc: &Document,
    base_url: Option<&str>,
    streamed: Items<'_>,
) -> Option<Result<ParsedFeed, ParseError>> {
    let root = &doc.root;
    let mut warnings: Vec<String> = doc.fixes.iter().map(|f| format!("repaired: {f}")).collect();
    // An Atom Entry Document (RFC 4287 §4.1.2) has an entry and no feed around it.
    let no_feed = Element::bare(root.ns, "feed", root.base.clone());
    let Some((shape, format)) = shape_of(root) else {
        return Some(Err(match root.name.as_ref() {
            "html" | "HTML" => ParseError::Html,
            other => ParseError::NotAFeed(format!("the root element is <{other}>, not <rss>, <feed> or <rdf:RDF>")),
        }));
    };
    let (kind, channel, items) = match shape {
        Shape::AtomEntry => (FeedKind::Atom, &no_feed, vec![root]),
        Shape::Atom => {
            if doc.root_ns_uri.trim().eq_ignore_ascii_case(ATOM_03) || root.attr("version") == Some("0.3") {
                warnings.push("read Atom 0.3 (the draft Atom 1.0 replaced) by Atom 1.0's rules".into());
            }
            let entries: Vec<&Element> = root.elements().filter(|e| format.own(e, "entry")).collect();
            (FeedKind::Atom, root, entries)
        }
        Shape::Rss => {
            let version = root.attr("version").map(str::trim).unwrap_or("");
            let kind = if version.starts_with("0.9") { FeedKind::Rss0 } else { FeedKind::Rss2 };
            if !matches!(version, "0.91" | "0.92" | "0.93" | "0.94" | "2.0" | "2.0.1") {
                warnings.push(match version {
                    "" => "the <rss> element has no version; read as RSS 2.0".to_string(),
                    v => format!("read RSS of unknown version {v:?} as RSS 2.0"),
                });
            }
            let channel = format.child(root, "channel");
            let outside: Vec<&Element> = root.elements().filter(|e| format.own(e, "item")).collect();
            let mut items: Vec<&Element> =
                channel.map(|c| c.elements().filter(|e| format.own(e, "item")).collect()).unwrap_or_default();
            if !outside.is_empty() || !streamed.outer.is_empty() {
                warnings.push(match channel {
                    Some(_) => "moved items that follow </channel> into the channel".to_string(),
                    None => "read items that have no <channel> around them".to_string(),
                });
                items.extend(outside);
            }
            (kind, channel.unwrap_or(root), items)
        }
        Shape::Rdf => {
            if doc.root_namespaces.iter().any(|uri| uri.trim() == RSS_090) {
                warnings.push("read RSS 0.90 as RSS 1.0".into());
            }
            let channel = format.child(root, "channel");
            let mut items: Vec<&Element> = root.elements().filter(|e| format.own(e, "item")).collect();
            if let Some(c) = channel {
                items.extend(c.elements().filter(|e| format.own(e, "item")));
            }
            (FeedKind::Rss1, channel.unwrap_or(root), items)
        }
        Shape::Channel => {
            warnings.push("read a <channel> that has no <rss> around it".into());
            let items = root.elements().filter(|e| format.own(e, "item")).collect();
            (FeedKind::Rss2, root, items)
        }
    };

    let link = feed_link(format, channel, base_url);
    let Items { mut dates, link: read_by, outer, inner, beyond, dropped, .. } = streamed;
    if dropped > 0 {
        warnings.push(format!(
            "the document holds more elements than a feed needs: {dropped} past the first {MAX_KEPT_ELEMENTS} were not read"
        ));
    }
    let mut entries: Vec<ParsedEntry> = match read_by {
        // Every item was taken as it closed, by the link the whole channel gives.
        Some(read_by) if items.is_empty() && read_by == link => match shape {
            Shape::Rss => inner.into_iter().chain(outer).collect(),
            _ => outer.into_iter().chain(inner).collect(),
        },
        Some(_) => return None,
        None => {
            let bases = [link.as_deref(), base_url];
            items.into_iter().map(|item| read_entry(format, item, bases, &mut dates)).collect()
        }
    };
    // Each place's first items are kept; of both, the first of the feed's order.
    let unkept = beyond + entries.len().saturating_sub(MAX_ENTRIES_PER_REFRESH);
    entries.truncate(MAX_ENTRIES_PER_REFRESH);
    let feed_authors = authors(format, channel, None);
    // RFC 4287 §4.2.1: an Atom entry without authors has its source's, else its feed's.
    if format.atom {
        for entry in entries.iter_mut().filter(|e| e.authors.is_empty()) {
            entry.authors = feed_authors.clone();
        }
    }
    warnings.extend(dates.warning());

    let title = title_of(format.first_text(
        channel,
        &[
            (None, &["title"], Untyped::Guess),
            (Some(Ns::Atom), &["title"], Untyped::Guess),
            (Some(Ns::Dc), &["title"], Untyped::Guess),
            (Some(Ns::Dcterms), &["title"], Untyped::Guess),
            (Some(Ns::Itunes), &["title"], Untyped::Guess),
        ],
    ));
    let description = title_of(format.first_text(
        channel,
        &[
            (None, &["subtitle"], Untyped::Guess),
            (None, &["tagline"], Untyped::Guess),
            (None, &["description"], Untyped::Html),
            (None, &["abstract"], Untyped::Guess),
            (Some(Ns::Atom), &["subtitle"], Untyped::Guess),
            (Some(Ns::Itunes), &["summary"], Untyped::Guess),
            (Some(Ns::Itunes), &["subtitle"], Untyped::Guess),
            (Some(Ns::Dc), &["description"], Untyped::Html),
        ],
    ));
    let ttl = format.child(channel, "ttl").and_then(|t| t.text().trim().parse::<u64>().ok()).filter(|t| *t > 0);
    let mut min_interval_secs = ttl.map(|minutes| minutes * 60);
    if let Some(period) = update_period(channel) {
        min_interval_secs = Some(min_interval_secs.unwrap_or(0).max(period));
    }
    Some(Ok(ParsedFeed {
        kind,
        title,
        link,
        description,
        authors: feed_authors,
        entries,
        warnings,
        min_interval_secs,
        unkept,
    }))
}

/// The site the feed belongs to: its `<link>` (text, or an `href`), else its alternate Atom link, else the
/// `href` of a CDF channel. Never the feed's own address.
fn feed_link(format: Format, channel: &Element, base_url: Option<&str>) -> Option<String> {
    let bases = [channel.base.as_deref(), base_url];
    let link = if format.atom {
        alternate_link(channel.elements().filter(|e| format.own(e, "link")), &bases, false)
    } else {
        rss_link(format, channel, &bases)
            .or_else(|| alternate_link(channel.all(Ns::Atom, "link"), &bases, false))
            .or_else(|| channel.attr("href").and_then(|h| absolute(h, &bases)))
    };
    link.filter(|l| Some(l.as_str()) != base_url)
}

/// An RSS `<link>`: its text, or its `href` when written Atom's way without Atom's namespace.
fn rss_link(format: Format, parent: &Element, bases: &[Option<&str>]) -> Option<String> {
    parent.elements().filter(|e| format.own(e, "link")).find_map(|l| {
        let rel = l.attr("rel").map(|r| r.trim().to_ascii_lowercase());
        if rel.as_deref().is_some_and(|r| r != "alternate") {
            return None;
        }
        let href = l.attr("href").map(Cow::Borrowed).unwrap_or_else(|| l.text());
        match l.base.as_deref() {
            None => absolute(&href, bases),
            own => absolute(&href, &[own].iter().chain(bases).copied().collect::<Vec<_>>()),
        }
    })
}

/// The `rel="alternate"` link among Atom-style links (no `rel` means alternate), an HTML one first. With
/// `any`, other page-like links (`related`, `via`) do when there is no alternate.
fn alternate_link<'e, 'a: 'e>(
    links: impl Iterator<Item = &'e Element<'a>>,
    bases: &[Option<&str>],
    any: bool,
) -> Option<String> {
    let links: Vec<&Element<'_>> = links.filter(|l| l.attr("href").is_some_and(|h| !h.trim().is_empty())).collect();
    let rel = |l: &Element| {
        let rel = l.attr("rel").map(|r| r.trim().to_ascii_lowercase()).unwrap_or_else(|| "alternate".into());
        rel.strip_prefix("http://www.iana.org/assignments/relation/").map(str::to_string).unwrap_or(rel)
    };
    let html = |l: &Element| {
        l.attr("type").is_none_or(|t| {
            let t = t.trim().to_ascii_lowercase();
            t.is_empty() || t.starts_with("text/html") || t.starts_with("application/xhtml+xml")
        })
    };
    let chosen = links
        .iter()
        .find(|l| rel(l) == "alternate" && html(l))
        .or_else(|| links.iter().find(|l| rel(l) == "alternate"))
        .or_else(|| if any { links.iter().find(|l| matches!(rel(l).as_str(), "related" | "via")) } else { None })?;
    let own_bases: Vec<Option<&str>> = std::iter::once(chosen.base.as_deref()).chain(bases.iter().copied()).collect();
    absolute(chosen.attr("href")?, &own_bases)
}

/// Every author of an element (a channel, a feed, an item, an entry), by every name feeds give them. For an
/// Atom entry that names none, its `source`'s.
fn authors(format: Format, el: &Element, source: Option<&Element>) -> Vec<String> {
    let mut out = Vec::new();
    // A person given only by an address (RSS's `<author>jo@x.org</author>`) is the same person as a name given
    // beside it (`dc:creator`): the address counts only when no name is given.
    let mut addresses = Vec::new();
    for child in el.elements() {
        let is_person = format.own(child, "author")
            || (!format.atom && format.own(child, "managingEditor"))
            || child.is(Ns::Atom, "author")
            || child.is(Ns::Dc, "creator")
            || child.is(Ns::Dc, "author")
            || child.is(Ns::Itunes, "author");
        if is_person {
            if address_only(child) {
                addresses.push(person(child));
            } else {
                add_author(&mut out, person(child));
            }
        }
    }
    if out.is_empty() {
        for name in addresses {
            add_author(&mut out, name);
        }
    }
    match source {
        Some(source) if out.is_empty() => authors(format, source, None),
        _ => out,
    }
}

/// Whether a person element gives only an e-mail address, no name.
fn address_only(el: &Element) -> bool {
    if el.has_elements() {
        return !el.elements().any(|e| e.name == "name" && !e.text().trim().is_empty());
    }
    let text = el.text();
    let words: Vec<&str> = text.split_whitespace().collect();
    !words.is_empty() && words.iter().all(|w| w.contains('@'))
}

/// The name of a person: an Atom person construct (`<name>`, else `<email>`), or text ("jo@x.org (Jo Doe)").
fn person(el: &Element) -> Option<String> {
    if el.has_elements() {
        let part = |name: &str| el.elements().find(|e| e.name == name).map(|e| e.text());
        let name = part("name");
        let email = part("email");
        if name.is_some() || email.is_some() {
            return person_name(name.as_deref(), email.as_deref());
        }
    }
    person_name(Some(&el.text()), None)
}

/// Reads one `<item>` or `<entry>`. `bases` are the feed's site link and the feed's address, for relative links.
fn read_entry(format: Format, item: &Element, bases: [Option<&str>; 2], dates: &mut DateReader) -> ParsedEntry {
    let own_bases = [item.base.as_deref(), bases[0], bases[1]];
    let bases = own_bases.as_slice();

    // Content: the full text first, then the summary; what is left of the two is the summary.
    let content = format.first_text(
        item,
        &[
            (Some(Ns::Content), &["encoded"], Untyped::Html),
            (None, &["content"], Untyped::Html),
            (None, &["fullitem"], Untyped::Html),
            (None, &["body"], Untyped::Html),
            (Some(Ns::Xhtml), &["body"], Untyped::Html),
            (Some(Ns::Atom), &["content"], Untyped::Html),
        ],
    );
    let summary = format
        .first_text(
            item,
            &[
                // Whichever comes first is the summary (feedparser's reading of RSS with both).
                (None, &["description", "summary"], Untyped::Html),
                (None, &["abstract"], Untyped::Html),
                (Some(Ns::Atom), &["summary"], Untyped::Html),
                (Some(Ns::Itunes), &["summary"], Untyped::Html),
                (Some(Ns::Dc), &["description"], Untyped::Html),
                (Some(Ns::Itunes), &["subtitle"], Untyped::Guess),
            ],
        )
        .or_else(|| media_description(item));
    let (content_html, summary_html) = fields::body(content.map(Text::into_html), summary.map(Text::into_html));

    let guid = format.child(item, if format.atom { "id" } else { "guid" });
    // RSS 1.0 names each item by `rdf:about`, which "should be identical to" its link.
    let about = item.attrs.iter().find(|a| a.name == "about").map(|a| a.value.trim()).filter(|a| !a.is_empty());
    let id = guid
        .map(|g| g.text().trim().to_string())
        .filter(|g| !g.is_empty())
        .or_else(|| item.child(Ns::Atom, "id").map(|e| e.text().trim().to_string()).filter(|i| !i.is_empty()))
        .or_else(|| item.child(Ns::Dc, "identifier").map(|e| e.text().trim().to_string()))
        .filter(|i| !i.is_empty());

    let link = if format.atom {
        alternate_link(item.elements().filter(|e| format.own(e, "link")), bases, true)
    } else {
        rss_link(format, item, bases)
            .or_else(|| alternate_link(item.all(Ns::Atom, "link"), bases, true))
            .or_else(|| guid.filter(|g| is_permalink(g)).and_then(|g| http_url(&g.text())))
            .or_else(|| about.and_then(http_url))
            .or_else(|| item.attr("href").and_then(|h| absolute(h, bases)))
    };

    let comments = format.child(item, "comments").and_then(|c| absolute(&c.text(), bases)).or_else(|| {
        let replies = item.elements().filter(|e| {
            (e.ns == Ns::Atom || format.own(e, "link"))
                && e.name == "link"
                && e.attr("rel") == Some("replies")
                && e.attr("type").is_none_or(|t| t.contains("html"))
        });
        replies.filter_map(|l| absolute(l.attr("href")?, bases)).next()
    });

    let title = title_of(format.first_text(
        item,
        &[
            (None, &["title"], Untyped::Guess),
            (Some(Ns::Atom), &["title"], Untyped::Guess),
            (Some(Ns::Dc), &["title"], Untyped::Guess),
            (Some(Ns::Dcterms), &["title"], Untyped::Guess),
            (Some(Ns::Media), &["title"], Untyped::Guess),
            (Some(Ns::Itunes), &["title"], Untyped::Guess),
        ],
    ))
    .or_else(|| {
        title_of(
            item.all(Ns::Media, "group")
                .find_map(|g| g.child(Ns::Media, "title"))
                .and_then(|t| format.text(t, Untyped::Guess)),
        )
    });

    let source = if format.atom { format.child(item, "source") } else { None };
    let authors = authors(format, item, source);

    // Dates, the first that parses: RSS's dc:date before pubDate, Atom's published before updated.
    // The first of these elements whose text is a date (read in this order, each as it comes).
    let first_date = |dates: &mut DateReader, names: &[(Ns, &str)]| -> Option<DateTime<Utc>> {
        names
            .iter()
            .flat_map(|(ns, name)| {
                item.elements()
                    .filter(move |e| e.name == *name && (e.ns == *ns || (*ns == Ns::None && format.own(e, name))))
            })
            .find_map(|e| dates.read(&e.text()))
    };
    let published_names: &[(Ns, &str)] = if format.atom {
        &[
            (Ns::None, "published"),
            (Ns::None, "issued"),
            (Ns::None, "created"),
            (Ns::None, "updated"),
            (Ns::None, "modified"),
            (Ns::Dc, "date"),
            (Ns::Dcterms, "issued"),
            (Ns::Dcterms, "created"),
            (Ns::Dcterms, "modified"),
        ]
    } else {
        &[
            (Ns::Dc, "date"),
            (Ns::None, "pubDate"),
            (Ns::Dcterms, "issued"),
            (Ns::Dcterms, "created"),
            (Ns::Dcterms, "date"),
            (Ns::Dcterms, "modified"),
            (Ns::Atom, "published"),
            (Ns::Atom, "issued"),
            (Ns::Atom, "updated"),
            (Ns::Atom, "modified"),
        ]
    };
    let published = first_date(dates, published_names).or_else(|| {
        // CDF writes the date as an attribute.
        item.attr("lastmod").and_then(|d| dates.read(d))
    });
    let updated_names: &[(Ns, &str)] = if format.atom {
        &[(Ns::None, "updated"), (Ns::None, "modified"), (Ns::Dcterms, "modified")]
    } else {
        &[(Ns::Atom, "updated"), (Ns::Dcterms, "modified")]
    };
    let updated: Option<DateTime<Utc>> = first_date(dates, updated_names);

    let mut categories = Vec::new();
    for el in item.elements() {
        if format.own(el, "category") || el.is(Ns::Atom, "category") {
            let term = el.attr("label").or(el.attr("term")).map(Cow::Borrowed).unwrap_or_else(|| el.text());
            add_category(&mut categories, &term);
        } else if el.is(Ns::Dc, "subject") {
            add_category(&mut categories, &el.text());
        }
    }

    let (enclosures, thumbnail) = media(format, item, bases);
    // Keys hash the title a reader is shown, so they stay what they were before titles of text were kept apart.
    let fallback = title.clone().or_else(|| fields::first_line(content_html.as_deref()));
    // An item with no id of its own is keyed by its link (as it always was), else by its rdf:about.
    let id = id.or_else(|| if link.is_none() { about.map(str::to_string) } else { None });
    let key = fields::entry_key(id.as_deref(), link.as_deref(), fallback.as_deref(), published);
    ParsedEntry {
        key,
        title,
        link,
        authors,
        published,
        updated,
        content_html,
        summary_html,
        categories,
        enclosures,
        comments,
        thumbnail,
    }
}

/// A `<guid>` is the item's permalink unless it says `isPermaLink="false"` (RSS 2.0).
fn is_permalink(guid: &Element) -> bool {
    guid.attr("isPermaLink").is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"))
}

/// The text when it is an absolute http(s) URL: a permalink that is not a web address is no link.
fn http_url(s: &str) -> Option<String> {
    let s = s.trim();
    let url = url::Url::parse(s).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| crate::sanitize::address(s).into_owned())
}

/// `media:description`, directly in the item or in its `media:group` (YouTube's feeds keep the text there).
fn media_description<'e>(item: &'e Element<'_>) -> Option<Text<'e>> {
    let groups = std::iter::once(item).chain(item.all(Ns::Media, "group"));
    groups.flat_map(|g| g.all(Ns::Media, "description")).find_map(|d| construct::read(d, false, Untyped::Guess))
}

/// Attachments (RSS enclosures, Atom `rel="enclosure"` links, Media RSS content) and the entry's picture.
fn media(format: Format, item: &Element, bases: &[Option<&str>]) -> (Vec<Enclosure>, Option<String>) {
    let mut enclosures: Vec<Enclosure> = Vec::new();
    let mut add = |url: Option<&str>, media_type: Option<&str>, length: Option<&str>| {
        let Some(url) = url else { return };
        let media_type = media_type.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
        fields::add_enclosure(&mut enclosures, url, bases, media_type, length.and_then(|l| l.trim().parse().ok()));
    };
    for el in item.elements() {
        if format.own(el, "enclosure") && !format.atom {
            add(el.attr("url").or(el.attr("href")), el.attr("type"), el.attr("length"));
        } else if (el.ns == Ns::Atom || format.own(el, "link"))
            && el.name == "link"
            && el.attr("rel") == Some("enclosure")
        {
            add(el.attr("href"), el.attr("type"), el.attr("length"));
        }
    }
    // The item and its `media:group`s, gone through again for each question rather than gathered in a list.
    let groups = || std::iter::once(item).chain(item.all(Ns::Media, "group"));
    for content in groups().flat_map(|g| g.all(Ns::Media, "content")) {
        add(content.attr("url"), content.attr("type"), content.attr("fileSize"));
    }
    let thumbnail = groups()
        .flat_map(|g| {
            g.all(Ns::Media, "thumbnail").chain(g.all(Ns::Media, "content").flat_map(|c| c.all(Ns::Media, "thumbnail")))
        })
        .find_map(|t| t.attr("url").and_then(|u| absolute(u, bases)))
        .or_else(|| item.all(Ns::Itunes, "image").find_map(|i| i.attr("href").and_then(|u| absolute(u, bases))))
        .or_else(|| {
            // A picture given as Media RSS content (`medium="image"`), whatever its address looks like.
            groups()
                .flat_map(|g| g.all(Ns::Media, "content"))
                .filter(|c| c.attr("medium").is_some_and(|m| m.trim().eq_ignore_ascii_case("image")))
                .find_map(|c| c.attr("url").and_then(|u| absolute(u, bases)))
        });
    (enclosures, thumbnail)
}

/// The Syndication module's `sy:updatePeriod` / `sy:updateFrequency` as seconds between updates.
fn update_period(channel: &Element) -> Option<u64> {
    let period: u64 = match channel.child(Ns::Syndication, "updatePeriod")?.text().trim().to_ascii_lowercase().as_str()
    {
        "hourly" => 3600,
        "daily" => 86_400,
        "weekly" => 7 * 86_400,
        "monthly" => 30 * 86_400,
        "yearly" => 365 * 86_400,
        _ => return None,
    };
    let frequency = channel
        .child(Ns::Syndication, "updateFrequency")
        .and_then(|f| f.text().trim().parse::<u64>().ok())
        .filter(|f| *f > 0)
        .unwrap_or(1);
    Some(period / frequency)
}

#[cfg(test)]
mod tests {
    use crate::model::{FeedKind, ParsedEntry, ParsedFeed};
    use crate::parse::parse;

    const NAMESPACES: &str = r#"xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"
        xmlns:atom="http://www.w3.org/2005/Atom" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
        xmlns:media="http://search.yahoo.com/mrss/""#;

    /// Items past the cap are dropped as they close, unread, whether read as they close or held in the tree; the
    /// tree keeps no more than `MAX_KEPT_ELEMENTS` other elements, and the feed says it dropped the rest.
    #[test]
    fn the_tree_holds_no_more_items_or_elements_than_a_feed_needs() {
        use super::{Items, MAX_ENTRIES_PER_REFRESH as MAX, MAX_KEPT_ELEMENTS};
        let items: String = (0..MAX + 3).map(|i| format!("<item><guid>{i}</guid></item>")).collect();
        let text = format!("<rss version=\"2.0\"><channel><title>T</title>{items}</channel></rss>");
        for holding in [false, true] {
            let mut sink = if holding { Items::holding(None) } else { Items::new(None) };
            let doc = crate::parse::tree::read_with(&text, None, &mut sink).unwrap();
            let channel = doc.root.elements().next().unwrap();
            let in_tree = channel.elements().filter(|e| e.name == "item").count();
            assert_eq!(sink.beyond, 3, "holding: {holding}");
            assert_eq!((sink.inner.len(), in_tree), if holding { (0, MAX) } else { (MAX, 0) }, "holding: {holding}");
            // The title and the channel; read as they close, an item's elements leave the count with it.
            assert_eq!(sink.kept, if holding { 2 + 2 * MAX } else { 2 }, "holding: {holding}");
        }
        let padded = format!(
            "<rss version=\"2.0\"><channel><title>T</title>{}</channel></rss>",
            "<x/>".repeat(MAX_KEPT_ELEMENTS + 10)
        );
        let feed = parse(&padded, None).unwrap();
        assert_eq!(feed.title.as_deref(), Some("T"));
        assert!(feed.warnings.iter().any(|w| w.contains("11 past the first")), "{:?}", feed.warnings);
    }

    /// An item listing thousands of enclosures (and each twice) keeps the first `MAX_ENCLOSURES`, once each, in
    /// order; a link carrying an 8-bit CSI or a right-to-left override keeps them percent-encoded.
    #[test]
    fn an_entry_keeps_a_bounded_number_of_enclosures_and_links_fit_to_print() {
        use crate::model::MAX_ENCLOSURES;
        let enclosures: String = (0..5000)
            .map(|i| format!(r#"<enclosure url="http://e.com/{}.mp3" type="audio/mpeg"/>"#, i % 2500))
            .collect();
        let text = format!(
            "<rss version=\"2.0\"><channel><title>T</title><item><guid>g</guid>\
             <link>http://e.com/a\u{9b}2J\u{202e}b</link>{enclosures}</item></channel></rss>"
        );
        let feed = parse(&text, None).unwrap();
        let urls: Vec<&str> = feed.entries[0].enclosures.iter().map(|e| e.url.as_str()).collect();
        assert_eq!(urls.len(), MAX_ENCLOSURES);
        assert_eq!((urls[0], urls[MAX_ENCLOSURES - 1]), ("http://e.com/0.mp3", "http://e.com/63.mp3"));
        assert_eq!(feed.entries[0].link.as_deref(), Some("http://e.com/a%C2%9B2J%E2%80%AEb"));
        let permalink = "<rss version=\"2.0\"><channel><title>T</title><item>\
            <guid>http://e.com/p\u{9b}2J\u{202e}q</guid></item></channel></rss>";
        let feed = parse(permalink, None).unwrap();
        assert_eq!(feed.entries[0].link.as_deref(), Some("http://e.com/p%C2%9B2J%E2%80%AEq"), "a permalink too");
    }

    /// Hundreds of namespace declarations in scope: those past the first 128 are left out (said), and a
    /// well-known prefix among them still means its vocabulary.
    #[test]
    fn namespace_declarations_past_the_cap_are_left_out_and_well_known_prefixes_still_read() {
        let many: String = (0..300).map(|i| format!(r#" xmlns:p{i}="http://example.com/ns/{i}""#)).collect();
        let text = format!(
            r#"<rss version="2.0"{many} xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title>
               <item><guid>g</guid><dc:creator>Ann</dc:creator><p250:x>y</p250:x></item></channel></rss>"#
        );
        let feed = parse(&text, None).unwrap();
        assert_eq!(feed.entries[0].authors, ["Ann"]);
        assert!(feed.warnings.iter().any(|w| w.contains("namespace declarations")), "{:?}", feed.warnings);
    }

    /// An RSS 2.0 feed with `channel` inside its channel (before any item).
    fn rss(channel: &str) -> ParsedFeed {
        let xml = format!(r#"<rss version="2.0" {NAMESPACES}><channel>{channel}</channel></rss>"#);
        parse(&xml, Some("http://feeds.example.com/feed.xml")).unwrap()
    }

    /// The one entry of an RSS 2.0 feed whose item holds `item`.
    fn item(item: &str) -> ParsedEntry {
        rss(&format!("<title>F</title><item>{item}</item>")).entries.remove(0)
    }

    #[test]
    fn a_name_and_an_address_alone_are_one_author_the_name() {
        let e = item("<dc:creator>Jo Doe</dc:creator><author>jo@example.com</author>");
        assert_eq!(e.authors, ["Jo Doe"]);
        let e = item("<author>jo@example.com</author>");
        assert_eq!(e.authors, ["jo"], "an address alone still names someone");
        let e = item("<author>jo@example.com (Jo Doe)</author><dc:creator>Ann</dc:creator>");
        assert_eq!(e.authors, ["Jo Doe", "Ann"]);
    }

    fn atom(feed: &str) -> ParsedFeed {
        let xml = format!(r#"<feed xmlns="http://www.w3.org/2005/Atom" {NAMESPACES}>{feed}</feed>"#);
        parse(&xml.replace(r#"xmlns:atom="http://www.w3.org/2005/Atom""#, ""), None).unwrap()
    }

    fn date(e: &ParsedEntry) -> String {
        e.published.map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_default()
    }

    #[test]
    fn the_entrys_picture_from_media_thumbnail_itunes_art_or_image_content() {
        let thumbnail = |x: &str| item(x).thumbnail;
        assert_eq!(
            thumbnail(r#"<media:group><media:thumbnail url="/t.jpg"/></media:group><itunes:image href="/i.jpg"/>"#)
                .as_deref(),
            Some("http://feeds.example.com/t.jpg")
        );
        assert_eq!(
            thumbnail(r#"<itunes:image href="https://e.com/art.png"/>"#).as_deref(),
            Some("https://e.com/art.png")
        );
        assert_eq!(
            thumbnail(r#"<media:content url="https://img.e.com/abc?w=600" medium="image"/>"#).as_deref(),
            Some("https://img.e.com/abc?w=600")
        );
        assert_eq!(thumbnail(r#"<media:content url="https://e.com/a.mp3" medium="audio"/>"#), None);
    }

    #[test]
    fn feed_title_falls_back_to_dc_title() {
        assert_eq!(rss("<dc:title>From DC</dc:title>").title.as_deref(), Some("From DC"));
        assert_eq!(rss("<title>Own</title><dc:title>From DC</dc:title>").title.as_deref(), Some("Own"));
    }

    #[test]
    fn feed_title_falls_back_to_atom_title_inside_rss() {
        assert_eq!(rss("<atom:title type='html'>A &amp;amp; B</atom:title>").title.as_deref(), Some("A & B"));
    }

    #[test]
    fn feed_title_is_never_the_image_title() {
        assert_eq!(rss("<image><title>Logo</title></image><title>Feed</title>").title.as_deref(), Some("Feed"));
    }

    #[test]
    fn feed_link_falls_back_to_atom_link_alternate_and_never_self() {
        let feed = rss(r#"<atom:link rel="self" href="http://feeds.example.com/feed.xml"/>
            <atom:link rel="alternate" href="http://www.example.com/"/>"#);
        assert_eq!(feed.link.as_deref(), Some("http://www.example.com/"));
        assert_eq!(rss(r#"<atom:link rel="self" href="http://x.example.com/f"/>"#).link, None);
    }

    #[test]
    fn feed_authors_from_managing_editor_dc_creator_and_itunes_author() {
        let feed = rss("<managingEditor>ed@example.com (Ed Itor)</managingEditor><dc:creator>Dee Creator</dc:creator>\
            <itunes:author>Pod Caster</itunes:author>");
        assert_eq!(feed.authors, ["Ed Itor", "Dee Creator", "Pod Caster"]);
    }

    #[test]
    fn entry_title_falls_back_to_dc_title() {
        assert_eq!(item("<dc:title>DC title</dc:title>").title.as_deref(), Some("DC title"));
    }

    #[test]
    fn entry_title_falls_back_to_media_title_in_a_media_group() {
        let e = item("<media:group><media:title>In the group</media:title></media:group>");
        assert_eq!(e.title.as_deref(), Some("In the group"));
    }

    #[test]
    fn entry_title_keeps_the_text_of_naked_markup() {
        assert_eq!(item("<title><p>Feed <b>Title</b></p></title>").title.as_deref(), Some("Feed Title"));
    }

    #[test]
    fn entry_title_with_a_greater_than_sign_inside_an_attribute() {
        let e = item(r#"<title>&lt;a title="x &gt; y"&gt;Linked&lt;/a&gt; title</title>"#);
        assert_eq!(e.title.as_deref(), Some("Linked title"));
    }

    #[test]
    fn entry_title_and_summary_drop_scripts_and_styles() {
        let e = item(
            "<title>&lt;script&gt;location.href='x'&lt;/script&gt;Safe&lt;b&gt;!&lt;/b&gt;</title>\
            <description>&lt;style&gt;p{}&lt;/style&gt;&lt;p&gt;Text&lt;/p&gt;</description>",
        );
        assert_eq!(e.title.as_deref(), Some("Safe!"));
        assert_eq!(crate::text::html_to_plain(e.content_html.as_deref().unwrap()), "Text");
    }

    #[test]
    fn entry_link_falls_back_to_atom_link_alternate_in_rss() {
        let e = item(r#"<atom:link rel="related" href="http://e.com/rel"/><atom:link href="http://e.com/alt"/>"#);
        assert_eq!(e.link.as_deref(), Some("http://e.com/alt"));
    }

    #[test]
    fn entry_link_falls_back_to_a_permalink_guid() {
        assert_eq!(item("<guid>http://e.com/post/1</guid>").link.as_deref(), Some("http://e.com/post/1"));
        let explicit = item(r#"<guid isPermaLink="true">http://e.com/post/2</guid>"#);
        assert_eq!(explicit.link.as_deref(), Some("http://e.com/post/2"));
    }

    #[test]
    fn a_guid_that_is_not_a_permalink_is_no_link() {
        assert_eq!(item(r#"<guid isPermaLink="false">http://e.com/post/1</guid>"#).link, None);
        assert_eq!(item("<guid>post-1</guid>").link, None, "a guid that is no web address");
        let both = item("<link>http://e.com/link</link><guid>http://e.com/guid</guid>");
        assert_eq!(both.link.as_deref(), Some("http://e.com/link"), "the item's own link comes first");
    }

    #[test]
    fn entry_id_falls_back_to_atom_id_then_dc_identifier() {
        assert_eq!(item("<atom:id>urn:atom</atom:id>").key, "urn:atom");
        assert_eq!(item("<dc:identifier>urn:dc</dc:identifier>").key, "urn:dc");
        assert_eq!(item("<guid>g</guid><atom:id>urn:atom</atom:id>").key, "g");
    }

    #[test]
    fn entry_authors_are_all_kept() {
        let e =
            item("<dc:creator>One</dc:creator><dc:creator>Two</dc:creator><author>three@example.com (Three)</author>");
        assert_eq!(e.authors, ["One", "Two", "Three"]);
    }

    #[test]
    fn entry_author_falls_back_to_itunes_author() {
        assert_eq!(item("<itunes:author>Host</itunes:author>").authors, ["Host"]);
    }

    #[test]
    fn entry_author_falls_back_to_atom_author_in_rss() {
        assert_eq!(item("<atom:author><name>Ann</name><email>a@e.com</email></atom:author>").authors, ["Ann"]);
    }

    #[test]
    fn rss_entries_do_not_inherit_the_channel_author() {
        let feed = rss("<managingEditor>Ed</managingEditor><item><title>t</title></item>");
        assert!(feed.entries[0].authors.is_empty());
    }

    /// The titles of a feed's entries, in order.
    fn titles(feed: &ParsedFeed) -> Vec<&str> {
        feed.entries.iter().map(|e| e.title.as_deref().unwrap_or("")).collect()
    }

    #[test]
    fn items_are_taken_from_the_tree_as_they_close() {
        let xml = r#"<rss version="2.0"><channel><title>F</title><item><title>1</title></item>
            <item><title>2</title></item></channel><item><title>3</title></item></rss>"#;
        let mut items = super::Items::new(None);
        let doc = crate::parse::tree::read_with(xml, None, &mut items).unwrap();
        let channel = doc.root.elements().find(|e| e.name == "channel").unwrap();
        assert_eq!(channel.elements().map(|e| e.name.as_ref()).collect::<Vec<_>>(), ["title"]);
        assert_eq!(doc.root.elements().count(), 1, "the item after the channel left the tree too");
        let feed = super::read(&doc, None, items).unwrap().unwrap();
        assert_eq!(titles(&feed), ["1", "2", "3"]);
    }

    #[test]
    fn items_read_before_the_channels_link_resolve_against_it() {
        // The channel's link comes after an item: the items are read again against it.
        let xml = format!(
            r#"<rss version="2.0" {NAMESPACES}><channel><title>F</title><item><title>a</title><link>a.html</link>
            </item><link>http://site.example/blog/</link><item><title>b</title><link>b.html</link></item>
            </channel></rss>"#
        );
        let url = Some("http://feeds.example.com/feed.xml");
        let feed = parse(&xml, url).unwrap();
        let links: Vec<_> = feed.entries.iter().map(|e| e.link.as_deref().unwrap_or("")).collect();
        assert_eq!(links, ["http://site.example/blog/a.html", "http://site.example/blog/b.html"]);
        assert_eq!(feed, crate::parse::parse_whole(&xml, url).unwrap());
    }

    #[test]
    fn items_keep_the_order_of_their_format_wherever_they_stand() {
        let url = Some("http://feeds.example.com/feed.xml");
        let cases = [
            // RSS: the channel's items, then those outside it (before it and after it, in document order).
            (
                r#"<rss version="2.0"><item><title>o1</title></item><channel><title>F</title>
                <item><title>c1</title></item><item><title>c2</title></item></channel>
                <item><title>o2</title></item></rss>"#,
                vec!["c1", "c2", "o1", "o2"],
            ),
            // RSS 1.0: the items under the root, then any inside the channel.
            (
                r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
                <channel><title>F</title><item><title>c1</title></item></channel>
                <item><title>r1</title></item><item><title>r2</title></item></rdf:RDF>"#,
                vec!["r1", "r2", "c1"],
            ),
            // Only the first channel's items count.
            (
                r#"<rss version="2.0"><channel><title>F</title><item><title>1</title></item></channel>
                <channel><item><title>second channel</title></item></channel></rss>"#,
                vec!["1"],
            ),
        ];
        for (xml, want) in cases {
            let feed = parse(xml, url).unwrap();
            assert_eq!(titles(&feed), want, "{xml}");
            assert_eq!(feed, crate::parse::parse_whole(xml, url).unwrap(), "{xml}");
        }
    }

    #[test]
    fn atom_entries_inherit_a_feed_author_named_after_them() {
        let feed = atom("<entry><id>1</id></entry><author><name>Late Author</name></author>");
        assert_eq!(feed.entries[0].authors, ["Late Author"]);
    }

    #[test]
    fn atom_entries_inherit_the_feed_author() {
        let feed = atom(
            "<author><name>Feed Author</name></author><entry><id>1</id></entry>\
            <entry><id>2</id><author><name>Own</name></author></entry>",
        );
        assert_eq!(feed.entries[0].authors, ["Feed Author"]);
        assert_eq!(feed.entries[1].authors, ["Own"]);
    }

    #[test]
    fn atom_entries_inherit_their_source_author_before_the_feed_author() {
        let feed = atom(
            "<author><name>Feed</name></author>\
            <entry><id>1</id><source><author><name>Source</name></author></source></entry>",
        );
        assert_eq!(feed.entries[0].authors, ["Source"]);
    }

    #[test]
    fn entry_date_falls_back_to_dc_date() {
        assert_eq!(date(&item("<dc:date>2025-06-10T04:00:00Z</dc:date>")), "2025-06-10T04:00:00Z");
    }

    #[test]
    fn entry_date_falls_back_to_dcterms_dates() {
        assert_eq!(date(&item("<dcterms:issued>2025-06-10</dcterms:issued>")), "2025-06-10T00:00:00Z");
        assert_eq!(date(&item("<dcterms:created>2025-06-11</dcterms:created>")), "2025-06-11T00:00:00Z");
        assert_eq!(date(&item("<dcterms:modified>2025-06-12</dcterms:modified>")), "2025-06-12T00:00:00Z");
    }

    #[test]
    fn entry_date_falls_back_to_atom_published_and_updated_in_rss() {
        let both = item(
            "<atom:updated>2025-06-11T00:00:00Z</atom:updated><atom:published>2025-06-10T00:00:00Z</atom:published>",
        );
        assert_eq!(date(&both), "2025-06-10T00:00:00Z");
        assert_eq!(date(&item("<atom:updated>2025-06-11T00:00:00Z</atom:updated>")), "2025-06-11T00:00:00Z");
    }

    #[test]
    fn entry_date_skips_a_date_that_does_not_parse() {
        assert_eq!(
            date(&item("<pubDate>soon</pubDate><dcterms:created>2025-06-11</dcterms:created>")),
            "2025-06-11T00:00:00Z"
        );
    }

    #[test]
    fn atom_03_dates_issued_modified_and_created() {
        let xml = r#"<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><modified>2004-01-02T00:00:00Z</modified>
            <issued>2004-01-01T00:00:00Z</issued></entry><entry><created>2004-01-03T00:00:00Z</created></entry></feed>"#;
        let feed = parse(xml, None).unwrap();
        assert_eq!(date(&feed.entries[0]), "2004-01-01T00:00:00Z");
        assert_eq!(date(&feed.entries[1]), "2004-01-03T00:00:00Z");
    }

    #[test]
    fn entry_summary_falls_back_to_itunes_summary() {
        assert_eq!(item("<itunes:summary>Show notes</itunes:summary>").content_html.as_deref(), Some("Show notes"));
    }

    #[test]
    fn entry_summary_falls_back_to_dc_description() {
        assert_eq!(
            item("<dc:description>&lt;p&gt;DC&lt;/p&gt;</dc:description>").content_html.as_deref(),
            Some("<p>DC</p>")
        );
    }

    #[test]
    fn entry_summary_falls_back_to_media_description() {
        let e = item("<media:group><media:description>Video text</media:description></media:group>");
        assert_eq!(e.content_html.as_deref(), Some("Video text"));
    }

    #[test]
    fn rss_10_items_without_link_are_kept_keyed_by_rdf_about() {
        let xml = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
            <channel rdf:about="http://e.com/"><title>T</title></channel>
            <item rdf:about="http://e.com/1"><title>One</title></item><item rdf:about="urn:2"><title>Two</title></item>
            </rdf:RDF>"#;
        let feed = parse(xml, None).unwrap();
        assert_eq!(feed.kind, FeedKind::Rss1);
        assert_eq!(feed.entries.len(), 2);
        assert_eq!(feed.entries[0].key, "http://e.com/1");
        assert_eq!(feed.entries[0].link.as_deref(), Some("http://e.com/1"));
        assert_eq!(feed.entries[1].key, "urn:2");
        assert_eq!(feed.entries[1].link, None);
    }

    #[test]
    fn the_old_dublin_core_namespace_is_dublin_core() {
        let xml = r#"<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.0/"><channel><item>
            <dc:creator>Old DC</dc:creator><dc:date>2003-12-31</dc:date></item></channel></rss>"#;
        let e = &parse(xml, None).unwrap().entries[0];
        assert_eq!(e.authors, ["Old DC"]);
        assert_eq!(date(e), "2003-12-31T00:00:00Z");
    }

    #[test]
    fn rss_items_without_a_channel_are_read_with_a_warning() {
        let feed = parse("<rss version='2.0'><title>T</title><item><title>Loose</title></item></rss>", None).unwrap();
        assert_eq!(feed.entries[0].title.as_deref(), Some("Loose"));
        assert!(feed.warnings.iter().any(|w| w.contains("no <channel>")), "{:?}", feed.warnings);
    }

    #[test]
    fn rss_090_is_read_with_a_warning() {
        let xml = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
            xmlns="http://my.netscape.com/rdf/simple/0.9/"><channel><title>Old</title></channel>
            <item><title>I</title><link>http://e.com/i</link></item></rdf:RDF>"#;
        let feed = parse(xml, None).unwrap();
        assert_eq!(feed.title.as_deref(), Some("Old"));
        assert_eq!(feed.entries[0].link.as_deref(), Some("http://e.com/i"));
        assert!(feed.warnings.iter().any(|w| w.contains("RSS 0.90")), "{:?}", feed.warnings);
    }

    #[test]
    fn atom_03_plain_escaped_and_base64_constructs_are_read_with_a_warning() {
        let xml = r#"<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title type="plain">A &lt;b&gt;</title>
            <entry><title mode="escaped" type="text/html">&lt;i&gt;Esc&lt;/i&gt;</title>
            <summary mode="base64" type="text/html">PGI+NjQ8L2I+</summary></entry></feed>"#;
        let feed = parse(xml, None).unwrap();
        assert_eq!(feed.title.as_deref(), Some("A <b>"));
        assert_eq!(feed.entries[0].title.as_deref(), Some("Esc"));
        assert_eq!(feed.entries[0].content_html.as_deref(), Some("<b>64</b>"));
        assert!(feed.warnings.iter().any(|w| w.contains("Atom 0.3")), "{:?}", feed.warnings);
    }

    #[test]
    fn an_atom_entry_document_is_a_feed_of_one_entry() {
        let xml = r#"<entry xmlns="http://www.w3.org/2005/Atom"><id>urn:e</id><title>Alone</title></entry>"#;
        let feed = parse(xml, None).unwrap();
        assert_eq!((feed.title, feed.entries.len()), (None, 1));
        assert_eq!(feed.entries[0].title.as_deref(), Some("Alone"));
    }
}
