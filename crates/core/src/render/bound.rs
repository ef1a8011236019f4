//! Bounding HTML before any tree is built from it. html5ever's tree builder — which every HTML reader here uses:
//! dom_query for `prepare` and for extraction, html2text for the layout — scans the stack of open elements at
//! nearly every start tag, so its time grows with the square of the nesting: 100,000 nested `<div>`s took a
//! minute, once per reader. This pass reads the markup with html5ever's tokenizer alone (linear time) and writes
//! it back well-formed — every element closed, in order — with:
//!
//! - at most [`Limits::max_depth`] elements open at once: deeper elements are flattened (their tags go, their text
//!   stays, and a block among them still starts a new line);
//! - at most [`Limits::max_elements`] elements in all: later ones are flattened the same way;
//! - for articles, at most [`Limits::max_indent`] indenting elements open at once (quotes, list items, table
//!   cells, each taking columns from the text inside it): deeper ones become plain blocks, so the layout never
//!   runs out of width and never copies a line through hundreds of levels;
//! - for articles, comments, scripts, styles and embeds gone, only the attributes the renderer reads kept, the
//!   numbers it would overflow on (`colspan`, `rowspan`, `start`) clamped, runs of blank lines in preformatted
//!   text shortened to two; and the article cut into chunks between blocks (see [`Purpose::Article`]), so that
//!   its layout can stop between two of them.
//!
//! All text is kept. Pure: HTML in, HTML out.

use crate::sanitize::is_forbidden;
use html5ever::LocalName;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use std::cell::RefCell;
use std::collections::HashMap;

/// What the bounded HTML is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// An article body for the renderer: what it never shows goes, and the HTML comes in chunks of about
    /// `chunk_bytes`, cut only before a block that html2text separates from what precedes it by one empty line
    /// (a paragraph, a heading, a quote, a `pre`, a table, a definition list) and that shows text, and only where
    /// every open element around it is a plain block (`div` and the like, which html2text draws as nothing but
    /// line ends): laid out one by one and joined with that empty line, the chunks read as the whole would.
    /// A chunk that grows past `forced_cut_bytes` with no such place is cut before any block inside it, every
    /// element open there opened again in the next chunk (which [`Chunk::continues`] says): a quote goes on as a
    /// quote, a list with a new bullet, a table as a second table.
    Article { chunk_bytes: usize, forced_cut_bytes: usize },
    /// A whole web page for the extractor: everything kept (scripts and metadata included), only bounded.
    Page,
}

/// The bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub max_depth: usize,
    pub max_indent: usize,
    pub max_elements: usize,
}

/// A piece of bounded HTML, well-formed on its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub html: String,
    /// It goes on with the elements the previous chunk left open (a forced cut), rather than starting a block
    /// that html2text sets off by an empty line.
    pub continues: bool,
}

/// How much input the tokenizer reads between two looks at `stop`.
const PIECE_BYTES: usize = 64 * 1024;

/// Most blank lines in a row kept in preformatted text.
const MAX_BLANK_LINES: usize = 2;

/// Bounds `html`, in one chunk (a page) or more (an article); `None` when `stop` said to stop (it is asked
/// between pieces of the input).
pub(crate) fn bound(html: &str, purpose: Purpose, limits: Limits, stop: &dyn Fn() -> bool) -> Option<Vec<Chunk>> {
    let tokenizer = Tokenizer::new(Sink(RefCell::new(Writer::new(purpose, limits))), TokenizerOpts::default());
    let queue = BufferQueue::default();
    let mut rest = html;
    while !rest.is_empty() {
        if stop() {
            return None;
        }
        let mut end = rest.len().min(PIECE_BYTES);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        queue.push_back(StrTendril::from_slice(&rest[..end]));
        rest = &rest[end..];
        let _ = tokenizer.feed(&queue);
    }
    tokenizer.end();
    Some(tokenizer.sink.0.into_inner().finish())
}

// Which elements are which, by name. Kept as tables, one line of names after another.

/// Elements that hold nothing and are never closed.
#[rustfmt::skip]
fn void(name: &str) -> bool {
    matches!(name, "area" | "base" | "basefont" | "bgsound" | "br" | "col" | "embed" | "frame" | "hr" | "img"
        | "image" | "input" | "keygen" | "link" | "meta" | "param" | "source" | "track" | "wbr")
}

/// Elements an article loses with all they hold (as `prepare` drops them, and never shown by the renderer).
#[rustfmt::skip]
fn dropped_with_content(name: &str) -> bool {
    matches!(name, "script" | "style" | "template" | "iframe" | "frameset" | "noframes" | "object" | "applet"
        | "noembed" | "title")
}

/// Empty elements that show nothing in an article.
#[rustfmt::skip]
fn dropped_void(name: &str) -> bool {
    matches!(name, "area" | "base" | "basefont" | "bgsound" | "col" | "embed" | "frame" | "input" | "keygen" | "link"
        | "meta" | "param" | "source" | "track")
}

fn heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Elements that cost an article columns: html2text lays out what they hold in a narrower sub-block.
fn indenting(name: &str) -> bool {
    matches!(name, "blockquote" | "li" | "dd" | "td" | "th" | "caption")
}

/// List and table elements that become plain blocks, with the indenting ones, past the indent limit.
#[rustfmt::skip]
fn structure(name: &str) -> bool {
    matches!(name, "ul" | "ol" | "menu" | "dir" | "dl" | "dt" | "table" | "thead" | "tbody" | "tfoot" | "tr"
        | "colgroup")
}

/// Blocks that html2text draws as line ends only (`prepare` makes the others of them `div`s).
#[rustfmt::skip]
fn plain_block(name: &str) -> bool {
    matches!(name, "div" | "address" | "article" | "aside" | "center" | "details" | "dialog" | "fieldset"
        | "figcaption" | "figure" | "footer" | "form" | "header" | "hgroup" | "legend" | "main" | "nav" | "section"
        | "summary")
}

/// Elements a chunk may start with: html2text separates each from what precedes it by one empty line.
#[rustfmt::skip]
fn cut_before(name: &str) -> bool {
    matches!(name, "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "blockquote" | "pre" | "table" | "dl")
}

/// Elements that start a line (a flattened one still does).
#[rustfmt::skip]
fn block(name: &str) -> bool {
    plain_block(name)
        || matches!(name, "p" | "blockquote" | "pre" | "ul" | "ol" | "li" | "dl" | "dt" | "dd" | "table" | "thead"
            | "tbody" | "tfoot" | "tr" | "td" | "th" | "caption" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "hr"
            | "menu" | "xmp" | "listing" | "plaintext")
}

/// Start tags that close an open `p` (HTML's tree construction, "in body").
#[rustfmt::skip]
fn closes_p(name: &str) -> bool {
    (plain_block(name) && name != "legend")
        || matches!(name, "blockquote" | "dir" | "dl" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "hr" | "li" | "dd"
            | "dt" | "listing" | "menu" | "ol" | "p" | "plaintext" | "pre" | "search" | "table" | "ul" | "xmp")
}

/// Elements an implied close never looks past.
#[rustfmt::skip]
fn scope(name: &str) -> bool {
    matches!(name, "applet" | "caption" | "html" | "table" | "td" | "th" | "marquee" | "object" | "template"
        | "button")
}

/// HTML start tags that end foreign content (an `<svg>` or `<math>` left open) when they appear inside it.
#[rustfmt::skip]
fn ends_foreign(name: &str) -> bool {
    matches!(name, "b" | "big" | "blockquote" | "body" | "br" | "center" | "code" | "dd" | "div" | "dl" | "dt" | "em"
        | "embed" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "head" | "hr" | "i" | "img" | "li" | "listing" | "menu"
        | "meta" | "nobr" | "ol" | "p" | "pre" | "ruby" | "s" | "small" | "span" | "strong" | "strike" | "sub" | "sup"
        | "table" | "tt" | "u" | "ul" | "var")
}

/// The attributes the renderer reads (besides `start`, `colspan` and `rowspan`); an article's others go.
#[rustfmt::skip]
fn read_by_the_renderer(attribute: &str) -> bool {
    matches!(attribute, "href" | "src" | "alt" | "title" | "width" | "height" | "data-src" | "data-lazy-src" | "data-original" | "srcset"
        | "data-srcset")
}

/// The widest `colspan` and `rowspan` an article keeps (html2text lays out every column a span names).
const MAX_SPAN: u32 = 64;

/// The largest first number of an ordered list (html2text adds the item count to it in an `i64`).
const MAX_LIST_START: i64 = 1_000_000_000;

/// An element written and not closed yet.
struct Open {
    /// Its name in the source, which end tags match.
    name: LocalName,
    /// The name written (a quote past the indent limit is written as a `div`).
    written: LocalName,
    /// Its start tag as written, to open it again at the start of the next chunk.
    start: String,
    /// Whether it counts towards the indent limit.
    indents: bool,
    /// Inside `<svg>` or `<math>`.
    foreign: bool,
}

/// A place where the current chunk may end, before a block that has not shown text yet.
struct Cut {
    /// Where the block's start tag begins in the chunk.
    at: usize,
    /// How many elements were open around it.
    depth: usize,
}

struct Writer {
    purpose: Purpose,
    limits: Limits,
    chunks: Vec<Chunk>,
    /// The chunk being written.
    out: String,
    /// Whether it goes on with what the previous one left open.
    continues: bool,
    stack: Vec<Open>,
    /// How many elements of each name are open: most implied closes find none, and need not search the stack.
    open_names: HashMap<LocalName, usize>,
    indent: usize,
    elements: usize,
    /// Flattened elements not yet closed, by name: their end tags go too.
    flat_open: HashMap<LocalName, usize>,
    /// Inside an element dropped with its content: its name and how deep it nests in itself.
    skipping: Option<(LocalName, usize)>,
    /// Inside a video or audio element with no address of its own: the label of the link its first `source`
    /// gives (see [`embedded_media`]).
    media: Option<&'static str>,
    /// Inside a script or style of a page: its text is written as it came.
    verbatim: bool,
    /// Whether text has shown since the last line end written for a flattened block.
    text_since_break: bool,
    /// Whether text has shown in the chunk being written (one that shows nothing is never cut off).
    chunk_shows: bool,
    cut: Option<Cut>,
    /// How many elements written as `pre` are open, and how many line ends its text has had since it last
    /// showed something.
    pre_depth: usize,
    line_ends: usize,
}

struct Sink(RefCell<Writer>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut writer = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => return writer.tag(tag),
            Token::CharacterTokens(text) => writer.text(&text),
            // Kept for pages: without it, the tree builder would read the page in quirks mode.
            Token::DoctypeToken(doctype)
                if writer.purpose == Purpose::Page && doctype.name.is_some() && writer.out.is_empty() =>
            {
                writer.out.push_str("<!DOCTYPE html>");
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.0.borrow().stack.last().is_some_and(|open| open.foreign)
    }
}

impl Writer {
    fn new(purpose: Purpose, limits: Limits) -> Writer {
        Writer {
            purpose,
            limits,
            chunks: Vec::new(),
            out: String::new(),
            continues: false,
            stack: Vec::new(),
            open_names: HashMap::new(),
            indent: 0,
            elements: 0,
            flat_open: HashMap::new(),
            skipping: None,
            media: None,
            verbatim: false,
            text_since_break: false,
            chunk_shows: false,
            cut: None,
            pre_depth: 0,
            line_ends: 0,
        }
    }

    fn article(&self) -> bool {
        matches!(self.purpose, Purpose::Article { .. })
    }

    fn finish(mut self) -> Vec<Chunk> {
        self.close_from(0);
        self.chunks.push(Chunk { html: self.out, continues: self.continues });
        self.chunks
    }

    fn text(&mut self, text: &str) {
        if self.skipping.is_some() {
            return;
        }
        if self.verbatim {
            self.out.push_str(text);
            return;
        }
        if self.pre_depth > 0 && self.article() {
            self.preformatted(text);
        } else {
            escape_text(&mut self.out, text);
        }
        if text.chars().any(shows) {
            self.text_since_break = true;
            self.chunk_shows = true;
            self.take_cut();
        }
    }

    /// Text inside a `pre`, with no more than [`MAX_BLANK_LINES`] blank lines in a row (each costs the layout a
    /// line, and a `pre` of a million line ends is a million lines).
    fn preformatted(&mut self, text: &str) {
        let mut kept = String::with_capacity(text.len());
        for c in text.chars() {
            if c == '\n' {
                self.line_ends += 1;
                if self.line_ends > MAX_BLANK_LINES + 1 {
                    continue;
                }
            } else if shows(c) {
                self.line_ends = 0;
            }
            kept.push(c);
        }
        escape_text(&mut self.out, &kept);
    }

    fn tag(&mut self, tag: Tag) -> TokenSinkResult<()> {
        if let Some((name, depth)) = &mut self.skipping {
            if tag.name == *name {
                match tag.kind {
                    TagKind::StartTag => *depth += 1,
                    TagKind::EndTag => {
                        *depth -= 1;
                        if *depth == 0 {
                            self.skipping = None;
                            self.media = None;
                        }
                    }
                }
            } else if &*tag.name == "source"
                && tag.kind == TagKind::StartTag
                && let Some(href) = web_address(&tag, "src")
                && let Some(label) = self.media.take()
            {
                self.media_link(&href, label);
            }
            return TokenSinkResult::Continue;
        }
        match tag.kind {
            TagKind::StartTag => self.start(tag),
            TagKind::EndTag => {
                self.end(&tag.name);
                TokenSinkResult::Continue
            }
        }
    }

    fn in_foreign(&self) -> bool {
        self.stack.last().is_some_and(|open| open.foreign)
    }

    fn start(&mut self, tag: Tag) -> TokenSinkResult<()> {
        let article = self.article();
        let source: &str = &tag.name;
        let name = if source == "image" { "img" } else { source };
        if self.in_foreign()
            && ends_foreign(name)
            && let Some(at) = self.stack.iter().position(|open| open.foreign)
        {
            self.close_from(at);
        }
        let foreign = self.in_foreign() || name == "svg" || name == "math";
        // How the tokenizer reads what follows: the tree builder switches it for these HTML elements.
        let state = match name {
            _ if foreign => TokenSinkResult::Continue,
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => TokenSinkResult::RawData(RawKind::Rawtext),
            "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        };
        if article && matches!(name, "html" | "head" | "body") {
            return state;
        }
        if article && !foreign && matches!(name, "iframe" | "video" | "audio") {
            match embedded_media(name, &tag) {
                Some((href, label)) => self.media_link(&href, &label),
                None => self.media = (name != "iframe").then_some(if name == "video" { "[video]" } else { "[audio]" }),
            }
            // What it holds goes with it; but a video or audio element written closed (`<video src="…"/>`, as
            // XHTML content is written back) holds nothing, and what follows it stays.
            if tag.self_closing && name != "iframe" {
                self.media = None;
            } else {
                self.skipping = Some((tag.name.clone(), 1));
            }
            return state;
        }
        if article && !foreign && dropped_with_content(name) {
            self.skipping = Some((tag.name.clone(), 1));
            return state;
        }
        if article && !foreign && dropped_void(name) {
            return state;
        }
        let void = if foreign { tag.self_closing } else { void(name) };
        if !foreign {
            self.close_implied(name);
        }
        if self.stack.len() >= self.limits.max_depth || self.elements >= self.limits.max_elements {
            self.flatten(&tag, name, void);
            return state;
        }
        let mut written = name;
        let mut indents = false;
        if article {
            if matches!(name, "xmp" | "plaintext" | "listing") {
                written = "pre";
            } else if self.indent >= self.limits.max_indent && (indenting(name) || structure(name)) {
                written = "div";
            } else {
                indents = indenting(name);
            }
        }
        let start = start_tag(written, name, &tag, article);
        let written = LocalName::from(written);
        self.force_cut(&written);
        if let Purpose::Article { chunk_bytes, .. } = self.purpose
            && cut_before(&written)
            && self.out.len() >= chunk_bytes
            && self.chunk_shows
            && self.cut.is_none()
            && self.stack.iter().all(|open| plain_block(&open.written))
        {
            self.cut = Some(Cut { at: self.out.len(), depth: self.stack.len() });
        }
        self.out.push_str(&start);
        self.elements += 1;
        if !void {
            self.indent += usize::from(indents);
            if &*written == "pre" {
                self.pre_depth += 1;
                self.line_ends = 0;
            }
            // A page's scripts and styles are written as they came: the tree builder reads them as raw text.
            self.verbatim = !article
                && matches!(
                    state,
                    TokenSinkResult::RawData(RawKind::Rawtext | RawKind::ScriptData) | TokenSinkResult::Plaintext
                );
            *self.open_names.entry(tag.name.clone()).or_insert(0) += 1;
            self.stack.push(Open { name: tag.name.clone(), written, start, indents, foreign });
        }
        state
    }

    /// A start tag past the limits: its tag goes, a block still ends the line, an image leaves its alt text.
    fn flatten(&mut self, tag: &Tag, name: &str, void: bool) {
        if !void {
            *self.flat_open.entry(tag.name.clone()).or_insert(0) += 1;
        }
        match name {
            "img" => {
                let alt = tag.attrs.iter().find(|a| &*a.name.local == "alt").map(|a| a.value.trim().to_string());
                if let Some(alt) = alt.filter(|alt| !alt.is_empty()) {
                    self.text(&format!(" [{alt}] "));
                }
            }
            "br" => self.flat_break(),
            "td" | "th" => self.out.push(' '),
            _ if block(name) => self.flat_break(),
            _ => {}
        }
    }

    /// Ends the line where a flattened block starts or ends, unless no text showed since the last such end.
    fn flat_break(&mut self) {
        if !self.text_since_break {
            self.out.push(' ');
            return;
        }
        self.text_since_break = false;
        self.out.push_str(if self.article() { "<br>" } else { "\n" });
    }

    fn end(&mut self, name: &LocalName) {
        if self.article() && matches!(&**name, "html" | "head" | "body") {
            return;
        }
        if let Some(open) = self.flat_open.get_mut(name)
            && *open > 0
        {
            *open -= 1;
            match &**name {
                "td" | "th" => self.out.push(' '),
                n if block(n) => self.flat_break(),
                _ => {}
            }
            return;
        }
        if self.open_names.get(name).is_some_and(|count| *count > 0)
            && let Some(at) = self.stack.iter().rposition(|open| open.name == *name)
        {
            self.close_from(at);
        } else if &**name == "br" {
            // `</br>` is read as `<br>`.
            self.out.push_str("<br>");
        }
    }

    /// Closes the open elements from `at` up, innermost first.
    fn close_from(&mut self, at: usize) {
        while self.stack.len() > at {
            let Some(open) = self.stack.pop() else { break };
            if let Some(count) = self.open_names.get_mut(&open.name) {
                *count -= 1;
            }
            self.out.push_str("</");
            self.out.push_str(&open.written);
            self.out.push('>');
            self.indent -= usize::from(open.indents);
            self.pre_depth -= usize::from(&*open.written == "pre");
        }
        self.verbatim = false;
        if self.cut.as_ref().is_some_and(|cut| cut.depth >= at) {
            self.cut = None;
        }
    }

    /// Closes what a start tag `name` closes by HTML's rules (an open `p` before a block, the last list item
    /// before a new one, …), so that the elements written nest as the tree builder will build them.
    fn close_implied(&mut self, name: &str) {
        if closes_p(name) {
            self.close_within("p", &[], scope);
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" if self.stack.last().is_some_and(|open| heading(&open.name)) => {
                self.close_from(self.stack.len() - 1);
            }
            "li" => {
                self.close_within("li", &[], |n| matches!(n, "ul" | "ol" | "menu" | "dir" | "blockquote") || scope(n));
            }
            "dd" | "dt" => self.close_within("dd", &["dt"], |n| matches!(n, "dl" | "blockquote" | "li") || scope(n)),
            "a" | "nobr" | "button" => self.close_within(name, &[], scope),
            "td" | "th" => self.close_within("td", &["th"], |n| matches!(n, "table" | "tr")),
            "tr" => self.close_within("tr", &[], |n| n == "table"),
            "thead" | "tbody" | "tfoot" => self.close_within("tbody", &["thead", "tfoot"], |n| n == "table"),
            "option" | "optgroup" if self.stack.last().is_some_and(|open| &*open.name == "option") => {
                self.close_from(self.stack.len() - 1);
            }
            "body" => self.close_within("head", &[], |_| false),
            _ => {}
        }
    }

    /// Closes the innermost open `name` (or one of `also`), unless an element that `stop`s the search comes first.
    fn close_within(&mut self, name: &str, also: &[&str], stop: fn(&str) -> bool) {
        let open = |name: &str| self.open_names.get(&LocalName::from(name)).is_some_and(|count| *count > 0);
        if !open(name) && !also.iter().any(|name| open(name)) {
            return;
        }
        for at in (0..self.stack.len()).rev() {
            let open: &str = &self.stack[at].name;
            if open == name || also.contains(&open) {
                self.close_from(at);
                return;
            }
            if stop(open) {
                return;
            }
        }
    }

    /// The block waiting at the last cut shows text: the chunk ends before it, and the next one opens the plain
    /// blocks around it again.
    fn take_cut(&mut self) {
        let Some(cut) = self.cut.take() else { return };
        self.split(cut.at, cut.depth, false);
    }

    /// Cuts a chunk that has grown past its forced-cut size before the block `written` starting in it, whatever
    /// is open around it (a link open there goes on as a second link to the same address), except inside a
    /// `pre`, whose text must stay whole, or an `<svg>` or `<math>`.
    fn force_cut(&mut self, written: &str) {
        let Purpose::Article { forced_cut_bytes, .. } = self.purpose else { return };
        let whole = || self.stack.iter().any(|open| &*open.written == "pre" || open.foreign);
        if self.out.len() >= forced_cut_bytes && self.chunk_shows && block(written) && !whole() {
            self.cut = None;
            self.split(self.out.len(), self.stack.len(), true);
        }
    }

    /// Ends the chunk at `at`, closing the `depth` elements open there; the next chunk opens them again and
    /// goes on with what was written after `at`.
    fn split(&mut self, at: usize, depth: usize, continues: bool) {
        let rest = self.out.split_off(at);
        for open in self.stack[..depth].iter().rev() {
            self.out.push_str("</");
            self.out.push_str(&open.written);
            self.out.push('>');
        }
        let html = std::mem::take(&mut self.out);
        self.chunks.push(Chunk { html, continues: std::mem::replace(&mut self.continues, continues) });
        for open in &self.stack[..depth] {
            self.out.push_str(&open.start);
        }
        self.out.push_str(&rest);
    }
}

/// A start tag as written: for an article, only the attributes the renderer reads, numbers clamped; for a page,
/// every attribute with a plain name.
fn start_tag(written: &str, name: &str, tag: &Tag, article: bool) -> String {
    let mut out = String::with_capacity(written.len() + 2);
    out.push('<');
    out.push_str(written);
    if written == name || !article {
        for attr in &tag.attrs {
            let key: &str = &attr.name.local;
            let value: std::borrow::Cow<str> = if article {
                match key {
                    "colspan" | "rowspan" => {
                        let span = attr.value.trim().parse::<u32>().unwrap_or(1).clamp(1, MAX_SPAN);
                        span.to_string().into()
                    }
                    "start" => match attr.value.trim().parse::<i64>() {
                        Ok(start) => start.clamp(-MAX_LIST_START, MAX_LIST_START).to_string().into(),
                        Err(_) => continue,
                    },
                    _ if read_by_the_renderer(key) => (&*attr.value).into(),
                    _ => continue,
                }
            } else if !key.is_empty()
                && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
            {
                (&*attr.value).into()
            } else {
                continue;
            };
            out.push(' ');
            out.push_str(key);
            out.push_str("=\"");
            for c in value.chars() {
                match c {
                    '&' => out.push_str("&amp;"),
                    '"' => out.push_str("&quot;"),
                    c => out.push(c),
                }
            }
            out.push('"');
        }
    }
    out.push('>');
    out
}

impl Writer {
    /// A link to what an embedded player or a video or audio element plays, in its place (the element and all
    /// it holds are dropped): numbered as any link is, opened only when asked.
    fn media_link(&mut self, href: &str, label: &str) {
        // Past the most elements an article keeps, the label alone.
        if self.elements >= self.limits.max_elements {
            self.out.push(' ');
            escape_text(&mut self.out, label);
            self.out.push(' ');
            self.chunk_shows = true;
            return;
        }
        self.out.push_str(" <a href=\"");
        for c in href.chars() {
            match c {
                '&' => self.out.push_str("&amp;"),
                '"' => self.out.push_str("&quot;"),
                c => self.out.push(c),
            }
        }
        self.out.push_str("\">");
        escape_text(&mut self.out, label);
        self.out.push_str("</a> ");
        self.elements += 1;
        self.chunk_shows = true;
    }
}

/// An attribute of `tag` that is a web address (`http`, `https`, or `//` for the article's own scheme).
fn web_address(tag: &Tag, attribute: &str) -> Option<String> {
    let value = tag.attrs.iter().find(|a| &*a.name.local == attribute)?.value.trim().to_string();
    ["http://", "https://", "//"].iter().any(|p| value.starts_with(p)).then_some(value)
}

/// The link an embedded player (an iframe: a video on YouTube, a podcast's episode on its host) or a video or
/// audio element with an address of its own leaves in its place, and its label (`[embedded: www.youtube.com]`,
/// `[video]`, `[audio]`). None for a frame declared a pixel or two (a tracker), nor for one without a web address;
/// an iframe's document is never shown, nor its fallback text.
fn embedded_media(name: &str, tag: &Tag) -> Option<(String, String)> {
    let href = web_address(tag, "src")?;
    let label = match name {
        "iframe" => {
            let side =
                |a: &str| super::pictures::dimension(tag.attrs.iter().find(|x| &*x.name.local == a).map(|x| &*x.value));
            if super::pictures::tracking_pixel(side("width"), side("height")) {
                return None;
            }
            let host = href.split("//").nth(1).and_then(|rest| rest.split(['/', '?', '#']).next()).unwrap_or("");
            let host: String = host.chars().filter(|c| !is_forbidden(*c)).collect();
            if host.is_empty() { "[embedded]".to_string() } else { format!("[embedded: {host}]") }
        }
        "video" => "[video]".to_string(),
        _ => "[audio]".to_string(),
    };
    Some((href, label))
}

fn escape_text(out: &mut String, text: &str) {
    let mut from = 0;
    for (at, c) in text.char_indices() {
        let escaped = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            _ => continue,
        };
        out.push_str(&text[from..at]);
        out.push_str(escaped);
        from = at + 1;
    }
    out.push_str(&text[from..]);
}

/// Whether a character shows on screen (it is not white space, a control character or an invisible one).
fn shows(c: char) -> bool {
    !c.is_whitespace() && !is_forbidden(c) && !matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{AD}')
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits { max_depth: 8, max_indent: 3, max_elements: 1000 };
    const WHOLE: Purpose = Purpose::Article { chunk_bytes: usize::MAX, forced_cut_bytes: usize::MAX };

    fn article(html: &str) -> String {
        bound(html, WHOLE, LIMITS, &|| false).unwrap().remove(0).html
    }

    #[test]
    fn nesting_past_the_depth_is_flattened_and_every_word_kept() {
        let html = format!("{}deepest{}", "<div>a ".repeat(20), "</div>".repeat(20));
        let out = article(&html);
        assert_eq!(out.matches("<div>").count(), 8, "{out}");
        assert_eq!(out.matches("</div>").count(), 8, "{out}");
        assert_eq!(out.matches("a ").count(), 20, "{out}");
        assert!(out.contains("deepest"), "{out}");
        assert!(out.contains("<br>"), "a flattened block still ends its line: {out}");
    }

    #[test]
    fn players_leave_links_up_to_the_most_elements_and_labels_past_them() {
        let out = article(&"<iframe src=\"https://p.example/v\">fallback</iframe>".repeat(1500));
        assert_eq!(out.matches("<a href=\"https://p.example/v\">").count(), 1000, "{}", &out[..200]);
        assert_eq!(out.matches("[embedded: p.example]").count(), 1500);
        assert!(!out.contains("fallback"));
        let quoted = article("<video src='https://v.example/a\"b&c'></video>");
        assert_eq!(quoted.trim(), "<a href=\"https://v.example/a&quot;b&amp;c\">[video]</a>");
    }

    #[test]
    fn unclosed_elements_are_closed_in_order() {
        assert_eq!(article("<p>one<p>two<b>bold<i>both</b>after"), "<p>one</p><p>two<b>bold<i>both</i></b>after</p>");
        assert_eq!(article("<ul><li>a<li>b</ul>"), "<ul><li>a</li><li>b</li></ul>");
        assert_eq!(
            article("<table><tr><td>a<td>b<tr><td>c</table>"),
            "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>"
        );
    }

    #[test]
    fn quotes_past_the_indent_limit_become_plain_blocks() {
        let out = article(&"<blockquote>q ".repeat(5));
        assert_eq!(out.matches("<blockquote>").count(), 3, "{out}");
        assert_eq!(out.matches("<div>").count(), 2, "{out}");
    }

    #[test]
    fn scripts_comments_and_unread_attributes_leave_an_article() {
        let out = article(
            "<!-- c --><script>if (a < b) { '</div>' }</script><p style=\"x\" class=\"y\" onclick=\"z()\">\
             <a href=\"/l\" id=\"i\">l</a><img src=\"i.png\" alt=\"A &amp; B\"></p><style>p{}</style>",
        );
        assert_eq!(out, "<p><a href=\"/l\">l</a><img src=\"i.png\" alt=\"A &amp; B\"></p>");
    }

    #[test]
    fn numbers_the_renderer_overflows_on_are_clamped() {
        let out =
            article("<ol start=\"9223372036854775807\"><li>a</ol><table><tr><td colspan=\"4294967295\">x</table>");
        assert!(out.contains("start=\"1000000000\"") && out.contains("colspan=\"64\""), "{out}");
    }

    #[test]
    fn text_is_escaped_as_it_was_read() {
        assert_eq!(article("a &lt;b&gt; &amp; c < d"), "a &lt;b&gt; &amp; c &lt; d");
        assert_eq!(article("<pre>x\n  y</pre>"), "<pre>x\n  y</pre>");
    }

    #[test]
    fn a_page_keeps_its_scripts_and_attributes_as_they_came() {
        let html = "<!doctype html><html><head><script type=\"application/ld+json\">{\"a\": \"<b>\"}</script></head>\
                    <body class=\"x\"><p id=\"p\">t</p></body></html>";
        let out = bound(html, Purpose::Page, LIMITS, &|| false).unwrap().remove(0).html;
        assert_eq!(
            out,
            "<!DOCTYPE html><html><head><script type=\"application/ld+json\">{\"a\": \"<b>\"}</script></head>\
             <body class=\"x\"><p id=\"p\">t</p></body></html>"
        );
    }

    #[test]
    fn an_article_is_cut_only_before_a_block_that_shows_text_among_plain_blocks() {
        let html = "<div><p>one</p><p></p><blockquote><p>two</p></blockquote><p>three</p></div><ul><li>x</li></ul>";
        let chunks =
            bound(html, Purpose::Article { chunk_bytes: 1, forced_cut_bytes: usize::MAX }, LIMITS, &|| false).unwrap();
        assert!(chunks.iter().all(|c| !c.continues));
        assert_eq!(
            chunks.iter().map(|c| c.html.as_str()).collect::<Vec<_>>(),
            [
                "<div><p>one</p><p></p></div>",
                "<div><blockquote><p>two</p></blockquote></div>",
                "<div><p>three</p></div><ul><li>x</li></ul>",
            ]
        );
    }

    #[test]
    fn a_block_too_big_for_a_chunk_is_cut_inside_and_goes_on_in_the_next() {
        let html = format!("<blockquote>{}</blockquote><p>after</p>", "<p>para</p>".repeat(10));
        let chunks =
            bound(&html, Purpose::Article { chunk_bytes: usize::MAX, forced_cut_bytes: 4 }, LIMITS, &|| false).unwrap();
        assert!(chunks.len() > 2, "{chunks:?}");
        assert!(chunks[1..].iter().any(|c| c.continues && c.html.starts_with("<blockquote><p>")), "{chunks:?}");
        let all: String = chunks.iter().map(|c| c.html.as_str()).collect();
        assert_eq!(all.matches("para").count(), 10);
        assert!(
            chunks.iter().all(|c| c.html.matches("<blockquote>").count() == c.html.matches("</blockquote>").count())
        );
        let forced = Purpose::Article { chunk_bytes: usize::MAX, forced_cut_bytes: 4 };
        let pre = format!("<pre>{}</pre>", "<p>line</p>".repeat(10));
        assert_eq!(bound(&pre, forced, LIMITS, &|| false).unwrap().len(), 1, "a pre is never cut");
        let link = format!("<a href=\"/x\">{}</a>", "<p>in the link</p>".repeat(10));
        let chunks = bound(&link, forced, LIMITS, &|| false).unwrap();
        assert!(chunks.len() > 2 && chunks[1..].iter().all(|c| c.html.starts_with("<a href=\"/x\"><p>")), "{chunks:?}");
    }

    #[test]
    fn blank_lines_in_a_row_are_two_at_most_in_preformatted_text() {
        assert_eq!(article("<pre>a\n\n\n\n\n \n\nb\n\nc</pre>"), "<pre>a\n\n\n b\n\nc</pre>");
    }

    #[test]
    fn a_stop_is_honoured() {
        assert_eq!(bound("<p>x</p>", Purpose::Page, LIMITS, &|| true), None);
    }
}
