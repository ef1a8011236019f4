//! A feed document as a tree of elements whose names are resolved to namespaces, read leniently from decoded
//! text: end tags that close nothing are dropped, elements left open are closed where their parent ends (or at
//! the end of a truncated document), HTML named entities become characters, undeclared prefixes that feeds use
//! (`dc:`, `itunes:`, `media:`…) get their usual namespace, and `xml:base` is resolved on every element.
//!
//! The tree borrows from the document: names, attribute values and text are slices of it, and only what had to
//! change (text that runs across entity references, values with references in them, case-folded names) is
//! owned. A feed of 50 items builds a tree of about 400 elements; one allocation per element (its list of
//! children) rather than five.
//!
//! Pure: text in, a tree out. Documents that the XML reader refuses outright go through [`super::repair`] first.

use crate::canonical::resolve;
use quick_xml::events::{BytesStart, Event};
use std::borrow::Cow;
use std::rc::Rc;

/// Deepest element kept; deeper ones give their text to their ancestor (feeds never nest this deep, and the tree
/// is walked recursively).
const MAX_DEPTH: usize = 128;
/// Most attributes (namespace declarations included) read on one element; hostile documents carry thousands.
const MAX_ATTRIBUTES: usize = 256;
/// Most namespace declarations in scope at once (feeds declare a few dozen at most): each element's prefix is
/// looked up among them, and a document declaring hundreds on each of 128 nested elements would make that
/// search cost 30,000 comparisons an element (9 s for 2 MB). Past it, a declaration is left out, and its prefix
/// reads as an undeclared one (the well-known prefixes still mean their vocabularies).
const MAX_BINDINGS: usize = 128;

/// The vocabularies feed fields are looked up in. Namespace URIs that mean the same thing share one value: the
/// RSS 0.90 and 1.0 namespaces read as plain RSS (`None`), Atom 0.3 as Atom, Dublin Core 1.0 as 1.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns {
    /// No namespace, or one of the RSS namespaces.
    None,
    Atom,
    Rdf,
    Dc,
    Dcterms,
    Content,
    /// Podcast directories: iTunes, and Google Play, whose elements mirror iTunes's.
    Itunes,
    Media,
    Xhtml,
    Syndication,
    Other,
}

pub const ATOM_10: &str = "http://www.w3.org/2005/Atom";
pub const ATOM_03: &str = "http://purl.org/atom/ns#";
pub const RSS_090: &str = "http://my.netscape.com/rdf/simple/0.9/";
pub const RSS_10: &str = "http://purl.org/rss/1.0/";
const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const DC_11: &str = "http://purl.org/dc/elements/1.1/";
const DC_10: &str = "http://purl.org/dc/elements/1.0/";
const DCTERMS: &str = "http://purl.org/dc/terms/";
const CONTENT: &str = "http://purl.org/rss/1.0/modules/content/";
const ITUNES: &str = "http://www.itunes.com/dtds/podcast-1.0.dtd";
const GOOGLE_PLAY: &str = "http://www.google.com/schemas/play-podcasts/1.0";
const MEDIA: &str = "http://search.yahoo.com/mrss/";
const XHTML: &str = "http://www.w3.org/1999/xhtml";
const SYNDICATION: &str = "http://purl.org/rss/1.0/modules/syndication/";
const XML: &str = "http://www.w3.org/XML/1998/namespace";

/// The vocabulary a namespace URI names.
pub fn ns_of(uri: &str) -> Ns {
    let uri = uri.trim();
    let lower = uri.to_ascii_lowercase();
    let lower = lower.strip_prefix("https://").map_or(lower.clone(), |rest| format!("http://{rest}"));
    match lower.as_str() {
        "" | RSS_10 | RSS_090 | "http://purl.org/net/rss1.1#" | "http://purl.org/rss/1.0/modules/rss091#" => Ns::None,
        u if u.starts_with("http://backend.userland.com/rss")
            || u.starts_with("http://blogs.law.harvard.edu/tech/rss") =>
        {
            Ns::None
        }
        // Atom 1.0, 0.3, and the drafts before it (feedparser's list).
        "http://www.w3.org/2005/atom"
        | ATOM_03
        | "http://purl.org/echo/"
        | "http://purl.org/pie/"
        | "http://example.com/newformat#"
        | "http://example.com/necho"
        | "uri/of/echo/namespace#" => Ns::Atom,
        RDF => Ns::Rdf,
        DC_11 | DC_10 => Ns::Dc,
        DCTERMS => Ns::Dcterms,
        CONTENT => Ns::Content,
        ITUNES | GOOGLE_PLAY | "http://example.com/dtds/podcast-1.0.dtd" => Ns::Itunes,
        MEDIA | "http://search.yahoo.com/mrss" => Ns::Media,
        XHTML => Ns::Xhtml,
        SYNDICATION => Ns::Syndication,
        _ => Ns::Other,
    }
}

/// The vocabulary of a prefix used without being declared: [`ns_of`] of [`well_known_prefix`], without reading
/// a URI (this runs for every `dc:creator` of a feed that forgot to declare `dc`).
fn undeclared_ns(prefix: &str) -> Ns {
    match prefix {
        "dc" => Ns::Dc,
        "dcterms" => Ns::Dcterms,
        "content" => Ns::Content,
        "atom" | "atom10" => Ns::Atom,
        "itunes" | "googleplay" => Ns::Itunes,
        "media" => Ns::Media,
        "rdf" => Ns::Rdf,
        "xhtml" => Ns::Xhtml,
        "sy" => Ns::Syndication,
        _ => Ns::Other,
    }
}

/// The namespace feeds mean by a prefix they use without declaring it.
fn well_known_prefix(prefix: &str) -> Option<&'static str> {
    Some(match prefix {
        "dc" => DC_11,
        "dcterms" => DCTERMS,
        "content" => CONTENT,
        "atom" | "atom10" => ATOM_10,
        "itunes" => ITUNES,
        "googleplay" => GOOGLE_PLAY,
        "media" => MEDIA,
        "rdf" => RDF,
        "xhtml" => XHTML,
        "sy" => SYNDICATION,
        "xml" => XML,
        _ => return None,
    })
}

/// One element: its vocabulary, its local name, its name as written, attributes, children, and the base URI that
/// `xml:base` puts in force on it (resolved against its ancestors' and the document's address; `None` where no
/// `xml:base` applies). Names and text borrow from the document where they can.
#[derive(Clone, Debug, PartialEq)]
pub struct Element<'a> {
    pub ns: Ns,
    pub name: Cow<'a, str>,
    pub qname: Cow<'a, str>,
    pub attrs: Vec<Attr<'a>>,
    /// The children, unless the element holds one text and nothing else: most of a feed's elements (a title, a
    /// link, a date) hold their text in `only_text` instead, without a list of their own to allocate and free.
    children: Vec<Node<'a>>,
    only_text: Option<Cow<'a, str>>,
    pub base: Option<Rc<str>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Attr<'a> {
    /// The local name (`about` for `rdf:about`).
    pub name: Cow<'a, str>,
    pub qname: Cow<'a, str>,
    pub value: Cow<'a, str>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node<'a> {
    Element(Element<'a>),
    Text(Cow<'a, str>),
}

impl<'a> Element<'a> {
    /// An element with no attributes and nothing inside.
    pub fn bare(ns: Ns, name: &'static str, base: Option<Rc<str>>) -> Element<'a> {
        let name = Cow::Borrowed(name);
        Element { ns, qname: name.clone(), name, attrs: Vec::new(), children: Vec::new(), only_text: None, base }
    }

    /// True when the element is `name` in `ns`.
    pub fn is(&self, ns: Ns, name: &str) -> bool {
        self.ns == ns && self.name == name
    }

    /// Child elements, in document order.
    pub fn elements(&self) -> impl Iterator<Item = &Element<'a>> {
        self.children.iter().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// Child elements named `name` in `ns`.
    pub fn all<'s>(&'s self, ns: Ns, name: &'s str) -> impl Iterator<Item = &'s Element<'a>> + 's {
        self.elements().filter(move |e| e.is(ns, name))
    }

    /// The first child element named `name` in `ns`.
    pub fn child(&self, ns: Ns, name: &str) -> Option<&Element<'a>> {
        self.elements().find(|e| e.is(ns, name))
    }

    /// An attribute by local name, ignoring case (`isPermaLink`, `ispermalink`), whatever its prefix.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|a| a.name.eq_ignore_ascii_case(name)).map(|a| a.value.as_ref())
    }

    /// True when the element holds child elements (markup) and not only text.
    pub fn has_elements(&self) -> bool {
        self.children.iter().any(|n| matches!(n, Node::Element(_)))
    }

    /// The pieces of text right inside the element (not inside its child elements), in document order.
    pub fn own_texts(&self) -> impl Iterator<Item = &str> {
        let listed = self.children.iter().filter_map(|n| match n {
            Node::Text(t) => Some(t.as_ref()),
            Node::Element(_) => None,
        });
        self.only_text.as_deref().into_iter().chain(listed)
    }

    /// All the text inside, markup dropped. Borrowed when the element holds one piece of text (or none).
    pub fn text(&self) -> Cow<'_, str> {
        if let Some(t) = &self.only_text {
            return Cow::Borrowed(t.as_ref());
        }
        match self.children.as_slice() {
            [] => Cow::Borrowed(""),
            _ => {
                let mut out = String::new();
                self.collect_text(&mut out);
                Cow::Owned(out)
            }
        }
    }

    fn collect_text(&self, out: &mut String) {
        if let Some(t) = &self.only_text {
            out.push_str(t);
        }
        for node in &self.children {
            match node {
                Node::Text(t) => out.push_str(t),
                Node::Element(e) => e.collect_text(out),
            }
        }
    }

    /// The content as markup: text escaped, child elements written back as tags. XHTML elements lose their
    /// prefix, so `<xhtml:b>` reads as HTML's `<b>`.
    pub fn inner_markup(&self) -> String {
        let mut out = String::new();
        self.write_content(&mut out);
        out
    }

    fn write_content(&self, out: &mut String) {
        if let Some(t) = &self.only_text {
            escape_into(t, false, out);
        }
        for node in &self.children {
            match node {
                Node::Text(t) => escape_into(t, false, out),
                Node::Element(e) => e.write(out),
            }
        }
    }

    fn write(&self, out: &mut String) {
        let name = if self.ns == Ns::Xhtml { self.name.as_ref() } else { self.qname.as_ref() };
        out.push('<');
        out.push_str(name);
        for a in &self.attrs {
            out.push(' ');
            out.push_str(&a.qname);
            out.push_str("=\"");
            escape_into(&a.value, true, out);
            out.push('"');
        }
        if self.children.is_empty() && self.only_text.is_none() {
            out.push_str(" />");
            return;
        }
        out.push('>');
        self.write_content(out);
        out.push_str("</");
        out.push_str(name);
        out.push('>');
    }
}

fn escape_into(s: &str, attribute: bool, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// A parsed document: its root element, the namespace URI the root declared, and what had to be forgiven.
#[derive(Debug)]
pub struct Document<'a> {
    pub root: Element<'a>,
    /// The root's namespace URI as written (tells Atom 0.3 from 1.0).
    pub root_ns_uri: String,
    /// Every namespace URI the root declares, as written (tells RSS 0.90 from 1.0).
    pub root_namespaces: Vec<String>,
    pub fixes: Vec<&'static str>,
}

/// Why the XML reader gave up on a document.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("the document has no root element")]
    NoRoot,
    #[error("{0}")]
    Syntax(String),
}

/// Reads a document. `base_url` is where it came from, for `xml:base` and relative links. Names are
/// case-folded when the root element is upper case (CDF, Microsoft's Channel Definition Format).
pub fn read<'a>(text: &'a str, base_url: Option<&str>) -> Result<Document<'a>, TreeError> {
    read_with(text, base_url, &mut Keep)
}

/// Who sees each element as it closes, before it joins its parent: a feed's reader takes its items there and
/// turns each into an entry at once, so a document of 20,000 items never stands as one tree of them all.
pub trait Sink<'a> {
    /// `element` has closed inside the elements still `open`. Give it back to keep it in the tree; `None` when
    /// it was taken.
    fn closed(&mut self, open: &Open<'_, 'a>, element: Element<'a>) -> Option<Element<'a>>;
}

/// Keeps every element.
struct Keep;

impl<'a> Sink<'a> for Keep {
    fn closed(&mut self, _open: &Open<'_, 'a>, element: Element<'a>) -> Option<Element<'a>> {
        Some(element)
    }
}

/// The elements still open around one that closed, the root first, each with the children it has so far.
pub struct Open<'b, 'a> {
    stack: &'b [Element<'a>],
    nodes: &'b [Node<'a>],
    child_starts: &'b [usize],
}

impl<'a> Open<'_, 'a> {
    /// How many elements are open (1: the element that closed is a child of the root).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The `i`th open element (0: the root), without its children.
    pub fn element(&self, i: usize) -> &Element<'a> {
        &self.stack[i]
    }

    /// The children the `i`th open element has so far.
    pub fn children(&self, i: usize) -> &[Node<'a>] {
        let end = self.child_starts.get(i + 1).copied().unwrap_or(self.nodes.len());
        &self.nodes[self.child_starts[i]..end]
    }

    /// The `i`th open element as it stands, with a copy of the children it has so far (one text alone held as a
    /// closed element holds it).
    pub fn so_far(&self, i: usize) -> Element<'a> {
        let mut element = self.stack[i].clone();
        match self.children(i) {
            [Node::Text(text)] => element.only_text = Some(text.clone()),
            nodes => element.children = nodes.to_vec(),
        }
        element
    }
}

/// [`read`] with every piece of the document taken from the XML reader's events, none read by
/// `Builder::read_simple`: what [`read`] must always equal (the conformance driver checks it on every document
/// of the corpus).
#[doc(hidden)]
pub fn read_by_events<'a>(text: &'a str, base_url: Option<&str>) -> Result<Document<'a>, TreeError> {
    read_reading(text, base_url, &mut Keep, false)
}

/// [`read`], showing each element to `sink` as it closes.
pub fn read_with<'a>(
    text: &'a str,
    base_url: Option<&str>,
    sink: &mut dyn Sink<'a>,
) -> Result<Document<'a>, TreeError> {
    read_reading(text, base_url, sink, true)
}

/// [`read_with`]; with `simple`, the plain stretches of the document are read by `Builder::read_simple`.
fn read_reading<'a>(
    text: &'a str,
    base_url: Option<&str>,
    sink: &mut dyn Sink<'a>,
    simple: bool,
) -> Result<Document<'a>, TreeError> {
    // A place in `text` is `base` + the reader's position: what `Builder::read_simple` reads, the reader skips.
    let (mut reader, mut base) = (reader_of(text), 0);
    let document_base: Option<Rc<str>> = base_url.map(Rc::from);
    let mut builder = Builder {
        doc: text,
        stack: Vec::new(),
        nodes: Vec::new(),
        child_starts: Vec::new(),
        scopes: Vec::new(),
        bound: 0,
        root: None,
        root_ns_uri: String::new(),
        root_namespaces: Vec::new(),
        fixes: Vec::new(),
        skipped: 0,
        fold_case: false,
        document_base,
        entities: Vec::new(),
        expanded_bytes: 0,
        scratch: String::new(),
        sink,
    };
    loop {
        let event = reader.read_event();
        // The reader stands between markup and what follows (its state when a tag has just been read).
        let after_tag = matches!(event, Ok(Event::Start(_) | Event::Empty(_) | Event::End(_)));
        match event {
            Ok(Event::Start(e)) => builder.start(&e, false),
            Ok(Event::Empty(e)) => builder.start(&e, true),
            Ok(Event::End(e)) => builder.end(e.name().as_ref()),
            Ok(Event::Text(t)) => builder.text(t.xml10_content()),
            Ok(Event::CData(t)) => builder.text(t.into_inner()),
            Ok(Event::GeneralRef(r)) => builder.general_reference(&r.into_inner()),
            Ok(Event::DocType(d)) => builder.entities = internal_entities(&d.into_inner()),
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => {
                let at = base + usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                return Err(TreeError::Syntax(format!("{e} (at byte {at})")));
            }
        }
        if builder.root.is_some() {
            break;
        }
        if simple && after_tag {
            let here = base + usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let there = builder.read_simple(here);
            if builder.root.is_some() {
                break;
            }
            if there > here {
                // The reader goes on from there; its positions (for errors) stay counted from where it began.
                *reader.get_mut() = &text.as_bytes()[there..];
                base += there - here;
            }
        }
    }
    if builder.root.is_none() && !builder.stack.is_empty() {
        builder.fix("closed a truncated document (entries before the cut were kept)");
        while !builder.stack.is_empty() {
            builder.close_top();
        }
    }
    let root = builder.root.ok_or(TreeError::NoRoot)?;
    Ok(Document {
        root,
        root_ns_uri: builder.root_ns_uri,
        root_namespaces: builder.root_namespaces,
        fixes: builder.fixes,
    })
}

/// The XML reader, as lenient as feeds need it, on `text`.
fn reader_of(text: &str) -> quick_xml::Reader<&[u8]> {
    let mut reader = quick_xml::Reader::from_str(text);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    config.check_comments = false;
    reader
}

/// `part` as a slice of `doc`, with `doc`'s lifetime, when it is one (the reader hands out slices of the
/// document that borrow from its events); else a copy.
fn rebase<'a>(doc: &'a str, part: &str) -> Cow<'a, str> {
    let start = (part.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize);
    match start.checked_add(part.len()).and_then(|end| doc.get(start..end)) {
        Some(slice) if std::ptr::eq(slice.as_ptr(), part.as_ptr()) => Cow::Borrowed(slice),
        _ => Cow::Owned(part.to_string()),
    }
}

/// A name as the tree keeps it: borrowed, or folded to lower case.
fn fold<'a>(doc: &'a str, name: &str, fold_case: bool) -> Cow<'a, str> {
    if fold_case { Cow::Owned(name.to_ascii_lowercase()) } else { rebase(doc, name) }
}

/// The local part of a qualified name, borrowed or owned as the name is: for an element, what follows its first
/// colon (`b:c` of `a:b:c`); for an attribute, what follows its last (`about` of `rdf:about`).
fn local_part<'a>(qname: &Cow<'a, str>, of_attribute: bool) -> Cow<'a, str> {
    fn local(q: &str, of_attribute: bool) -> &str {
        // Names are short: a byte loop beats a searcher.
        let colon = if of_attribute { q.bytes().rposition(|b| b == b':') } else { q.bytes().position(|b| b == b':') };
        colon.map_or(q, |at| &q[at + 1..])
    }
    match qname {
        Cow::Borrowed(q) => Cow::Borrowed(local(q, of_attribute)),
        Cow::Owned(q) => Cow::Owned(local(q, of_attribute).to_string()),
    }
}

/// Most entities an internal DTD subset may declare, the longest value one may have, and how much text their
/// expansions may add to a document: enough for the feeds that use them, too little for an entity bomb (and an
/// entity's value is never expanded again).
const MAX_ENTITIES: usize = 64;
const MAX_ENTITY_CHARS: usize = 1024;
const MAX_EXPANSION_BYTES: usize = 1 << 20;

/// The general entities an internal DTD subset declares with a literal value: `<!ENTITY name "value">`.
/// Parameter entities and external ones are not read.
fn internal_entities(doctype: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = doctype;
    while let Some(at) = rest.find("<!ENTITY") {
        rest = &rest[at + 8..];
        let decl = rest.trim_start();
        if decl.starts_with('%') {
            continue;
        }
        let name_len = decl.find(|c: char| c.is_whitespace()).unwrap_or(decl.len());
        let (name, after) = decl.split_at(name_len);
        let after = after.trim_start();
        let Some(quote) = after.chars().next().filter(|q| *q == '"' || *q == '\'') else { continue };
        let Some(end) = after[1..].find(quote) else { break };
        let value = crate::text::decode_entities(&after[1..1 + end]).into_owned();
        if !name.is_empty() && value.chars().count() <= MAX_ENTITY_CHARS && out.len() < MAX_ENTITIES {
            out.push((name.to_string(), value));
        }
    }
    out
}

/// A namespace declaration in force: its prefix ("" for the default namespace), its URI as written, and the
/// vocabulary the URI names (worked out once, where it is declared).
struct Binding<'a> {
    prefix: Cow<'a, str>,
    uri: Cow<'a, str>,
    ns: Ns,
}

struct Builder<'a, 's> {
    doc: &'a str,
    /// The open elements, innermost last; their children are not in them yet but in `nodes`.
    stack: Vec<Element<'a>>,
    /// The children of the open elements, in document order: those of `stack[i]` start at `child_starts[i]`.
    /// An element takes its children when it closes, in a list of their exact number.
    nodes: Vec<Node<'a>>,
    child_starts: Vec<usize>,
    /// Namespace bindings per open element, and how many they are in all (at most [`MAX_BINDINGS`]).
    scopes: Vec<Vec<Binding<'a>>>,
    bound: usize,
    root: Option<Element<'a>>,
    root_ns_uri: String,
    root_namespaces: Vec<String>,
    fixes: Vec<&'static str>,
    /// Start tags past [`MAX_DEPTH`] still open.
    skipped: usize,
    fold_case: bool,
    document_base: Option<Rc<str>>,
    /// Entities the document's internal DTD subset declares, and how many bytes their expansions added.
    entities: Vec<(String, String)>,
    expanded_bytes: usize,
    /// Reused to spell out a reference (`&name;`) for the entity table.
    scratch: String,
    /// Sees each element as it closes.
    sink: &'s mut dyn Sink<'a>,
}

impl<'a> Builder<'a, '_> {
    /// The value of an entity the document declared, while the expansion budget lasts.
    fn expand(&mut self, name: &str) -> Option<String> {
        let value = self.entities.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())?;
        self.expanded_bytes += value.len();
        (self.expanded_bytes <= MAX_EXPANSION_BYTES).then_some(value)
    }

    /// The text an entity or character reference (`amp`, `#233`, `eacute`) stands for; unknown names stay as
    /// written.
    fn reference(&mut self, name: &str) -> Cow<'static, str> {
        // XML's own five first: most references in feeds are these (escaped HTML in descriptions).
        match name {
            "lt" => return Cow::Borrowed("<"),
            "gt" => return Cow::Borrowed(">"),
            "amp" => return Cow::Borrowed("&"),
            "quot" => return Cow::Borrowed("\""),
            "apos" => return Cow::Borrowed("'"),
            _ => {}
        }
        self.scratch.clear();
        self.scratch.push('&');
        self.scratch.push_str(name);
        self.scratch.push(';');
        match crate::text::entity_chars_at(&self.scratch) {
            Some((chars, len)) if len == self.scratch.len() => Cow::Owned(chars.into_iter().flatten().collect()),
            _ => Cow::Owned(self.scratch.clone()),
        }
    }

    fn fix(&mut self, what: &'static str) {
        if !self.fixes.contains(&what) {
            self.fixes.push(what);
        }
    }

    fn lookup(&self, prefix: &str) -> Option<&Binding<'a>> {
        self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|b| b.prefix == prefix)
    }

    fn start(&mut self, e: &BytesStart, empty: bool) {
        if self.stack.len() >= MAX_DEPTH {
            if !empty {
                self.skipped += 1;
            }
            return;
        }
        let written = e.name();
        let written: &str = written.as_ref();
        if self.stack.is_empty() {
            self.fold_case = !written.chars().any(|c| c.is_ascii_lowercase());
        }
        let qname = fold(self.doc, written, self.fold_case);
        let name = local_part(&qname, false);
        // An item (entry) belongs right under its channel (feed): close what was left open in between, as an
        // unclosed `<itunes:category>` before the first item.
        let parent = match qname.as_ref() {
            _ if empty => None,
            "item" => self.stack.iter().rposition(|open| open.name == "channel" || open.name == "RDF"),
            "entry" => self.stack.iter().rposition(|open| open.name == "feed"),
            _ => None,
        };
        if let Some(parent) = parent
            && parent + 1 < self.stack.len()
        {
            self.fix("closed elements left open before an item");
            while self.stack.len() > parent + 1 {
                self.close_top();
            }
        }
        let mut bindings = Vec::new();
        let mut raw_attrs: Vec<(Cow<'a, str>, Cow<'a, str>)> = Vec::new();
        for attr in e.html_attributes().with_checks(false).flatten().take(MAX_ATTRIBUTES) {
            let key = fold(self.doc, attr.key.as_ref(), self.fold_case);
            let value = match crate::text::decode_entities(&attr.value) {
                Cow::Borrowed(v) => rebase(self.doc, v),
                Cow::Owned(v) => Cow::Owned(v),
            };
            if key == "xmlns" {
                let ns = ns_of(&value);
                bindings.push(Binding { prefix: Cow::Borrowed(""), uri: value, ns });
            } else if let Some(prefix) = key.strip_prefix("xmlns:") {
                let prefix = match &key {
                    Cow::Borrowed(k) => Cow::Borrowed(&k["xmlns:".len()..]),
                    Cow::Owned(_) => Cow::Owned(prefix.to_string()),
                };
                let ns = ns_of(&value);
                bindings.push(Binding { prefix, uri: value, ns });
            } else if !raw_attrs.iter().any(|(k, _)| *k == key) {
                raw_attrs.push((key, value));
            }
        }
        if self.bound + bindings.len() > MAX_BINDINGS {
            self.fix("left out namespace declarations past the first 128 in scope");
            bindings.truncate(MAX_BINDINGS - self.bound);
        }
        self.bound += bindings.len();
        self.scopes.push(bindings);
        let prefix = qname.bytes().position(|b| b == b':').map_or("", |at| &qname[..at]);
        let ns = match self.lookup(prefix) {
            Some(binding) => binding.ns,
            None if prefix.is_empty() => Ns::None,
            None => undeclared_ns(prefix),
        };
        let mut base = self.stack.last().and_then(|p| p.base.clone());
        let mut attrs = Vec::with_capacity(raw_attrs.len());
        for (key, value) in raw_attrs {
            if key == "xml:base" {
                let against = base.clone().or_else(|| self.document_base.clone());
                base = resolve(value.trim(), &[against.as_deref()]).map(Rc::from).or(base);
                continue;
            }
            attrs.push(Attr { name: local_part(&key, true), qname: key, value });
        }
        if self.stack.is_empty() {
            self.root_ns_uri = match self.lookup(prefix) {
                Some(binding) => binding.uri.to_string(),
                None if prefix.is_empty() => String::new(),
                None => well_known_prefix(prefix).unwrap_or("urn:undeclared").to_string(),
            };
            self.root_namespaces =
                self.scopes.last().map(|s| s.iter().map(|b| b.uri.to_string()).collect()).unwrap_or_default();
        }
        self.stack.push(Element { ns, name, qname, attrs, children: Vec::new(), only_text: None, base });
        self.child_starts.push(self.nodes.len());
        if empty {
            self.close_top();
        }
    }

    /// Closes the innermost open element, attaching it to its parent (or making it the root).
    fn close_top(&mut self) {
        let Some(mut element) = self.stack.pop() else { return };
        let start = self.child_starts.pop().unwrap_or(self.nodes.len());
        if self.nodes.len() == start + 1 && matches!(self.nodes[start], Node::Text(_)) {
            if let Some(Node::Text(text)) = self.nodes.pop() {
                element.only_text = Some(text);
            }
        } else {
            element.children = self.nodes.split_off(start);
        }
        self.bound -= self.scopes.pop().map_or(0, |b| b.len());
        if self.stack.is_empty() {
            self.root = Some(element);
            return;
        }
        let open = Open { stack: &self.stack, nodes: &self.nodes, child_starts: &self.child_starts };
        if let Some(element) = self.sink.closed(&open, element) {
            self.nodes.push(Node::Element(element));
        }
    }

    fn end(&mut self, name: &str) {
        if self.skipped > 0 {
            self.skipped -= 1;
            return;
        }
        let name = name.trim();
        let folded;
        let name = if self.fold_case {
            folded = name.to_ascii_lowercase();
            folded.as_str()
        } else {
            name
        };
        match self.stack.iter().rposition(|open| open.qname == name) {
            Some(at) => {
                if at + 1 < self.stack.len() {
                    self.fix("closed elements that were left open");
                }
                while self.stack.len() > at {
                    self.close_top();
                }
            }
            None => self.fix("dropped end tags that closed nothing"),
        }
    }

    /// The text of a reference (`&name;`): an entity the document declared, else one of XML's or HTML's, else
    /// the reference as written.
    fn general_reference(&mut self, name: &str) {
        let text = self.expand(name).map(Cow::Owned).unwrap_or_else(|| self.reference(name));
        self.text(text);
    }

    /// Reads the document from `at` (where the reader stands after a tag) as far as it is plain — text, with its
    /// references; start tags with a name alone (`<title>`); end tags (`</title>`, space before the `>` allowed)
    /// — giving the builder what the XML reader's events would (text broken at each reference, line ends
    /// normalised), and returns where it stopped: at anything else (a tag with attributes, an empty-element
    /// tag, a CDATA section, a comment, a declaration), which the reader reads, or at the end. Most of a feed is
    /// plain (an item's title, link, date, and a description of escaped HTML): the reader would take an event
    /// for every piece between references and for every tag, each checked for UTF-8 again (a description of
    /// four escaped tags is nine events), a fifth of the instructions of reading a feed.
    fn read_simple(&mut self, at: usize) -> usize {
        let doc = self.doc;
        let bytes = doc.as_bytes();
        let mut pos = at;
        while self.root.is_none() {
            let Some(lt) = memchr::memchr(b'<', &bytes[pos..]) else {
                // Text to the end (a truncated document): all of it.
                self.text_with_references(&doc[pos..]);
                return doc.len();
            };
            let tag = &bytes[pos + lt..];
            // (A name as the reader reads one here: up to `>` or white space; these bytes keep it plain.)
            let name_len = |from: &[u8]| {
                from.iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'.' | b'-') || **b >= 0x80)
                    .count()
            };
            let (read, end) = if let Some(rest) = tag.strip_prefix(b"</") {
                let n = name_len(rest);
                let spaces = rest[n..].iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')).count();
                if n == 0 || rest.get(n + spaces) != Some(&b'>') { (false, 0) } else { (true, 2 + n + spaces + 1) }
            } else {
                let n = name_len(&tag[1..]);
                (n > 0 && tag.get(1 + n) == Some(&b'>'), 1 + n + 1)
            };
            // The text before the tag is read here either way: the reader, if it goes on, starts at the tag.
            self.text_with_references(&doc[pos..pos + lt]);
            let tag_at = pos + lt;
            if !read {
                return tag_at;
            }
            if tag[1] == b'/' {
                let name = doc[tag_at + 2..tag_at + end - 1].trim_end_matches([' ', '\t', '\r', '\n']);
                self.end(name);
            } else {
                let name = &doc[tag_at + 1..tag_at + end - 1];
                self.start(&BytesStart::from_content(name, name.len()), false);
            }
            pos = tag_at + end;
        }
        pos
    }

    /// Text as the reader splits it: a piece up to each `&`; `&name;` a reference; an `&` with no `;` before the
    /// next `&` (or the end) is text as written, up to there. Each piece's line ends are normalised.
    fn text_with_references(&mut self, mut content: &'a str) {
        while !content.is_empty() {
            let piece_end = match memchr::memchr(b'&', content.as_bytes()) {
                Some(0) => match memchr::memchr2(b';', b'&', &content.as_bytes()[1..]) {
                    Some(i) if content.as_bytes()[i + 1] == b';' => {
                        self.general_reference(&content[1..=i]);
                        content = &content[i + 2..];
                        continue;
                    }
                    Some(i) => i + 1,
                    None => content.len(),
                },
                Some(amp) => amp,
                None => content.len(),
            };
            let (piece, after) = content.split_at(piece_end);
            self.text(quick_xml::events::BytesText::from_escaped(piece).xml10_content());
            content = after;
        }
    }

    /// Adds text to the innermost open element: a slice of the document as it is, or joined to the text before
    /// it (text broken by references, comments or CDATA sections).
    fn text(&mut self, text: Cow<'a, str>) {
        let Some(&start) = self.child_starts.last() else { return };
        let has_children = self.nodes.len() > start;
        match self.nodes.last_mut().filter(|_| has_children) {
            Some(Node::Text(Cow::Owned(t))) => t.push_str(&text),
            Some(Node::Text(t)) => {
                // Text broken by references comes in many small pieces: room for more than these two at once.
                let joined = t.len() + text.len();
                let mut owned = String::with_capacity(joined.max(96) + joined / 2);
                owned.push_str(t);
                owned.push_str(&text);
                *t = Cow::Owned(owned);
            }
            _ => self.nodes.push(Node::Text(text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(xml: &str) -> Element<'_> {
        read(xml, None).unwrap().root
    }

    #[test]
    fn names_resolve_to_namespaces_declared_or_well_known() {
        let r = root(
            r#"<rss xmlns:d="http://purl.org/dc/elements/1.0/"><channel><d:creator>a</d:creator><dc:date>b</dc:date>
            <x:y>c</x:y><title>t</title></channel></rss>"#,
        );
        let channel = r.child(Ns::None, "channel").unwrap();
        assert_eq!(channel.child(Ns::Dc, "creator").unwrap().text(), "a", "Dublin Core 1.0 reads as 1.1");
        assert_eq!(channel.child(Ns::Dc, "date").unwrap().text(), "b", "an undeclared dc: prefix is Dublin Core");
        assert_eq!(channel.elements().nth(2).unwrap().ns, Ns::Other);
        assert_eq!(channel.child(Ns::None, "title").unwrap().text(), "t");
    }

    #[test]
    fn rss_namespaces_read_as_no_namespace() {
        let r = root(
            r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><item/></rdf:RDF>"#,
        );
        assert!(r.is(Ns::Rdf, "RDF"));
        assert!(r.child(Ns::None, "item").is_some());
    }

    #[test]
    fn entities_of_html_become_characters_and_unknown_ones_stay() {
        let r = root("<t>caf&eacute; &amp;amp; &#233; &bogus; &apos;</t>");
        assert_eq!(r.text(), "café &amp; é &bogus; '");
    }

    #[test]
    fn entities_of_the_internal_subset_expand_once_within_a_budget() {
        let doc = r#"<!DOCTYPE rss [<!ENTITY id "tag:example.com,"><!ENTITY a "&id;&id;"><!ENTITY % p "x">]>
            <rss><guid>&id;2006:/blog/</guid><x>&a;</x></rss>"#;
        let r = root(doc);
        assert_eq!(r.child(Ns::None, "guid").unwrap().text(), "tag:example.com,2006:/blog/");
        assert_eq!(r.child(Ns::None, "x").unwrap().text(), "&id;&id;", "an entity's value is not expanded again");
        let bomb = format!("<!DOCTYPE r [<!ENTITY big \"{}\">]><r>{}</r>", "x".repeat(1000), "&big;".repeat(2000));
        assert!(root(&bomb).text().len() <= MAX_EXPANSION_BYTES + 10_000);
    }

    #[test]
    fn markup_is_written_back_with_xhtml_prefixes_dropped() {
        let r = root(r#"<t xmlns:h="http://www.w3.org/1999/xhtml">a <h:b class="x&quot;">b &lt; c</h:b><br/></t>"#);
        assert_eq!(r.inner_markup(), r#"a <b class="x&quot;">b &lt; c</b><br />"#);
        assert!(r.has_elements());
    }

    #[test]
    fn xml_base_resolves_through_ancestors() {
        let doc = read(
            r#"<feed xml:base="http://example.com/a/"><entry xml:base="b/"><link href="c"/></entry></feed>"#,
            Some("http://feeds.example.org/feed"),
        )
        .unwrap();
        let entry = doc.root.elements().next().unwrap();
        assert_eq!(entry.elements().next().unwrap().base.as_deref(), Some("http://example.com/a/b/"));
        assert_eq!(doc.root.base.as_deref(), Some("http://example.com/a/"));
        let doc = read(r#"<feed><entry xml:base="b/"/><entry/></feed>"#, Some("http://e.org/f/feed")).unwrap();
        let bases: Vec<_> = doc.root.elements().map(|e| e.base.as_deref().map(str::to_string)).collect();
        assert_eq!(bases, [Some("http://e.org/f/b/".to_string()), None], "the document's address is no xml:base");
    }

    /// Documents with plain stretches in every form the reader splits or refuses: references of each kind, `&`
    /// left dangling, line ends to normalise, end tags with space or in another case, names of every kind,
    /// CDATA sections, comments, attributes and empty-element tags between plain tags (the reader reads those),
    /// white space between elements, a byte-order mark after an end tag (text, not a mark to drop), text before
    /// the root, a truncated document, and errors after plain stretches (their byte offsets must count from the
    /// document's start).
    const PLAIN: &[&str] = &[
        "<rss><channel><title>A &amp; B &lt;i&gt;c&lt;/i&gt; &#233;&#x41; &eacute; &bogus; &;</title>\
         <description>&lt;p&gt;one&lt;/p&gt;</description><x>a & b &c d&e;</x><y>tail &</y></channel></rss>",
        "<!DOCTYPE rss [<!ENTITY me \"Jo &amp; Co\">]><rss><title>by &me;</title><t2>&me;&me;</t2></rss>",
        "<rss><title>line\r\nbreak\rthere</title><a>x\r</a><b>\r\n</b></rss>",
        "<rss><title>spaced</title \t\r\n><link>up</LINK><guid>g</guid></rss>",
        "<rss><title>a<![CDATA[<b>]]>b</title><c>x<!-- y -->z</c><e></e><f> </f><g/></rss>",
        "<rss><title>t</title>\u{feff}<link>l</link></rss>",
        "<rss><title>t</title><link>l</link><x><![CDATA[never closed</x></rss>",
        "<rss><title>t</title><link>l</link><guid>cut",
        "<RSS><TITLE>Upper &amp; case</TITLE></RSS>",
        "<a><a>inner</a>outer</a>",
        "<rss><title>caf\u{e9} \u{65e5}\u{672c} &amp; more</title></rss>",
        "<rss>\n <t\u{ed}tulo>x</t\u{ed}tulo>\n <a:b>y</a:b><c.d-e_f>z</c.d-e_f><g h=\"1\">i</g><j/><k >l</k></rss>\n",
        "<b>Warning</b>: something\n<rss><channel><title>t</title></channel></rss>",
        "<rss><channel><item><title>1</title></item><item><title>2</title><guid isPermaLink=\"false\">g</guid>\
         <description>&lt;p&gt;x&lt;/p&gt;</description></item></channel></rss>",
        "<rss><title>t</title>tail &amp; more &",
    ];

    #[test]
    fn plain_stretches_read_directly_read_as_the_readers_events_read_them() {
        for doc in PLAIN {
            let direct = format!("{:?}", read(doc, Some("http://e.org/feed")));
            let by_events = format!("{:?}", read_by_events(doc, Some("http://e.org/feed")));
            assert_eq!(direct, by_events, "{doc}");
        }
        let r = root(PLAIN[0]);
        let channel = r.child(Ns::None, "channel").unwrap();
        assert_eq!(channel.child(Ns::None, "title").unwrap().text(), "A & B <i>c</i> \u{e9}A \u{e9} &bogus; &;");
        assert_eq!(channel.child(Ns::None, "x").unwrap().text(), "a & b &c d&e;");
        assert_eq!(root(PLAIN[2]).child(Ns::None, "title").unwrap().text(), "line\nbreak\nthere");
        // The error's offset counts from the document's start (the equality above compares it too).
        let err = read(PLAIN[6], None).unwrap_err().to_string();
        assert!(err.ends_with(&format!("(at byte {})", PLAIN[6].find("<![CDATA[").unwrap())), "{err}");
    }

    #[test]
    fn unclosed_and_stray_end_tags_are_forgiven() {
        let doc = read("<a><b>x</c><d>y</a>", None).unwrap();
        assert_eq!(doc.root.inner_markup(), "<b>x<d>y</d></b>");
        assert!(doc.fixes.contains(&"dropped end tags that closed nothing"));
        let doc = read("<a><b>cut", None).unwrap();
        assert_eq!(doc.root.text(), "cut");
        assert!(doc.fixes.iter().any(|f| f.contains("truncated")));
    }

    #[test]
    fn an_item_closes_what_was_left_open_in_the_channel() {
        let doc = read("<rss><channel><itunes:category text='A'><item><title>I</title></item></channel></rss>", None);
        let doc = doc.unwrap();
        let channel = doc.root.child(Ns::None, "channel").unwrap();
        assert_eq!(channel.all(Ns::None, "item").count(), 1);
        assert!(doc.fixes.contains(&"closed elements left open before an item"));
        let nested = read("<rss><channel><item><title>I</title><item/></item></channel></rss>", None).unwrap();
        assert_eq!(
            nested.root.elements().next().unwrap().all(Ns::None, "item").count(),
            1,
            "an empty item splits nothing"
        );
    }

    #[test]
    fn upper_case_documents_are_case_folded() {
        let r = root(r#"<CHANNEL HREF="http://x/"><TITLE>T</TITLE></CHANNEL>"#);
        assert!(r.is(Ns::None, "channel"));
        assert_eq!(r.attr("href"), Some("http://x/"));
        assert_eq!(r.child(Ns::None, "title").unwrap().text(), "T");
    }

    #[test]
    fn only_so_many_attributes_are_read_on_one_element() {
        let attrs: String = (0..1000).map(|i| format!(" a{i}=\"{i}\" xmlns:p{i}=\"urn:{i}\"")).collect();
        let xml = format!("<r{attrs}><p0:x/></r>");
        let r = root(&xml);
        assert_eq!(r.attrs.len(), MAX_ATTRIBUTES / 2);
        assert_eq!(r.attr("a127"), Some("127"));
        assert_eq!(r.attr("a999"), None);
    }

    #[test]
    fn names_and_text_borrow_from_the_document() {
        let r = root("<rss><channel><title>Plain</title><link>a &amp; b</link><x:y a='v'/></channel></rss>");
        let channel = r.child(Ns::None, "channel").unwrap();
        let title = channel.child(Ns::None, "title").unwrap();
        assert!(matches!((&title.name, &title.qname), (Cow::Borrowed(_), Cow::Borrowed(_))));
        assert!(matches!(title.text(), Cow::Borrowed("Plain")));
        assert_eq!(channel.child(Ns::None, "link").unwrap().text(), "a & b");
        let y = channel.elements().nth(2).unwrap();
        assert_eq!((y.name.as_ref(), y.qname.as_ref(), y.attr("a")), ("y", "x:y", Some("v")));
        assert!(matches!(y.attrs[0].value, Cow::Borrowed("v")));
    }

    #[test]
    fn undeclared_prefixes_read_as_their_well_known_namespaces() {
        for prefix in ["dc", "dcterms", "content", "atom", "atom10", "itunes", "googleplay", "media", "rdf"]
            .into_iter()
            .chain(["xhtml", "sy", "xml", "foo", ""])
        {
            assert_eq!(undeclared_ns(prefix), ns_of(well_known_prefix(prefix).unwrap_or("urn:undeclared")), "{prefix}");
        }
    }

    #[test]
    fn very_deep_nesting_keeps_its_text() {
        let xml = format!("<r>{}deep{}</r>", "<x>".repeat(500), "</x>".repeat(500));
        assert_eq!(root(&xml).text(), "deep");
    }
}
