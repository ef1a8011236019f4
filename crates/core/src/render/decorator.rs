//! The html2text decorator of the article renderer: it decides every piece of text that html2text lays out
//! besides the article's own words — link numbers, image brackets, list bullets, heading and quote prefixes —
//! so that html2text counts their width when it wraps, and it keeps each link's exact address.
//!
//! html2text's own rich decorator leaves images bare (the caller adds brackets after the layout, and every image
//! then overflows its line by two columns) and writes link addresses as footnote lines that it hard-wraps at the
//! width (a long address comes back cut into pieces). Here the brackets are part of the laid-out text, and the
//! addresses are collected in [`Links`] as they are met, never laid out by html2text at all. Images are collected
//! there too, each `[alt]` marked with its number, so the renderer can put the picture above it.

use html2text::render::{TaggedLine, TextDecorator};
use std::cell::RefCell;
use std::rc::Rc;

/// What a piece of laid-out text is, as far as styling goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum Mark {
    #[default]
    Plain,
    /// Text of link number `n` (1-based); the link's number marker `[n]` ends it.
    Link(usize),
    /// The `[alt]` of the image html2text met `n`-th (0-based; see [`Links::images`]).
    Picture(usize),
    Emphasis,
    Strong,
    Strikeout,
    Code,
    Preformat,
}

/// The links of one article, numbered in the order they start.
#[derive(Debug, Default)]
pub(super) struct Links {
    /// The `href` of link `n` at index `n - 1`, as written in the HTML.
    pub(super) targets: Vec<String>,
    /// Numbers of the links started and not yet ended (HTML parsing never nests them, but a stack is exact).
    open: Vec<usize>,
    /// Every image html2text laid out, in the order it met them: its `src` as prepared, its alt text, and the
    /// number of the link around it.
    pub(super) images: Vec<(String, String, Option<usize>)>,
}

/// The number marker that ends the text of link `number`.
pub(super) fn link_marker(number: usize) -> String {
    format!("[{number}]")
}

/// The decorator; sub-blocks (table cells, list items) share one [`Links`], so numbering is document-wide.
#[derive(Clone, Debug, Default)]
pub(super) struct Decorator {
    links: Rc<RefCell<Links>>,
}

impl Decorator {
    /// The links collected so far (all of them once rendering is done).
    pub(super) fn links(&self) -> Rc<RefCell<Links>> {
        Rc::clone(&self.links)
    }
}

impl TextDecorator for Decorator {
    type Annotation = Mark;

    fn decorate_link_start(&mut self, url: &str) -> (String, Mark) {
        let mut links = self.links.borrow_mut();
        links.targets.push(url.to_string());
        let number = links.targets.len();
        links.open.push(number);
        (String::new(), Mark::Link(number))
    }

    /// The marker is laid out inside the link (it still carries the link's mark), as the last text of the link:
    /// that is how it is told apart from article text that happens to read `[3]`.
    fn decorate_link_end(&mut self) -> String {
        self.links.borrow_mut().open.pop().map(link_marker).unwrap_or_default()
    }

    fn decorate_em_start(&self) -> (String, Mark) {
        (String::new(), Mark::Emphasis)
    }

    fn decorate_em_end(&self) -> String {
        String::new()
    }

    fn decorate_strong_start(&self) -> (String, Mark) {
        (String::new(), Mark::Strong)
    }

    fn decorate_strong_end(&self) -> String {
        String::new()
    }

    fn decorate_strikeout_start(&self) -> (String, Mark) {
        (String::new(), Mark::Strikeout)
    }

    fn decorate_strikeout_end(&self) -> String {
        String::new()
    }

    fn decorate_code_start(&self) -> (String, Mark) {
        (String::new(), Mark::Code)
    }

    fn decorate_code_end(&self) -> String {
        String::new()
    }

    fn decorate_preformat_first(&self) -> Mark {
        Mark::Preformat
    }

    fn decorate_preformat_cont(&self) -> Mark {
        Mark::Preformat
    }

    /// `[alt]`, brackets included, so that the layout gives the image its whole width (html2text's size
    /// estimate for table columns also counts the alt text plus two).
    fn decorate_image(&mut self, src: &str, title: &str) -> (String, Mark) {
        let mut links = self.links.borrow_mut();
        let link = links.open.last().copied();
        links.images.push((src.to_string(), title.to_string(), link));
        (format!("[{title}]"), Mark::Picture(links.images.len() - 1))
    }

    fn header_prefix(&self, level: usize) -> String {
        "#".repeat(level) + " "
    }

    fn quote_prefix(&self) -> String {
        "> ".to_string()
    }

    fn unordered_item_prefix(&self) -> String {
        "* ".to_string()
    }

    fn ordered_item_prefix(&self, i: i64) -> String {
        format!("{i}. ")
    }

    fn make_subblock_decorator(&self) -> Self {
        self.clone()
    }

    /// No footnote lines: the renderer writes the link list itself from [`Links`], wrapped its own way.
    fn finalise(&mut self, _urls: Vec<String>) -> Vec<TaggedLine<Mark>> {
        Vec::new()
    }
}
