//! What one sync takes from a server at most: items, bytes of them, ids of the unread and starred sets, and
//! requests. A server sending new pages for ever, or items of a megabyte each, stops at these; the rest comes
//! with the next sync, which goes on where this one stopped.

use crate::greader::RemoteItem;
use crate::model::ParsedEntry;

/// Items one sync stores at most (pages of new items and items fetched by id together), as a refresh stores at
/// most `model::MAX_ENTRIES_PER_REFRESH` of a feed: a server sending new pages for ever cannot fill the disk.
pub const MAX_ITEMS_PER_SYNC: usize = 50_000;
/// Bytes of items' text (titles, addresses, content…) one sync stores at most: a server sending items of a
/// megabyte each (each is cut there) would otherwise write 50 GB in one sync, and hold pages of them in memory
/// while the database takes them. 50,000 items of 5 KB fit.
pub const MAX_BYTES_PER_SYNC: usize = 256 * 1024 * 1024;
/// Ids one sync reads of each of the unread and starred sets (a few megabytes of memory each). Past it, a set
/// only adds flags: an entry missing from what was read may be in the rest.
pub const MAX_IDS_PER_SET: usize = 100_000;
/// Requests one sync makes for pages of items (and items by id), and for each set's pages of ids: a server
/// answering a few at a time — or none, with a continuation every time — stops there too.
pub const MAX_PAGES: usize = 500;
/// The largest answer read of a page of items (after decompression): a server sending items of a megabyte each
/// gets its pages asked again smaller (see [`PageSize`]), so that one sync holds about twice this at most while an
/// answer is read, besides the pages waiting for the database ([`MAX_BYTES_WAITING`]).
pub const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;
/// Bytes of items' text read and waiting for the database: past it, the way down waits for the writer. A page
/// takes half of it at most however large it is (so that the writer, which stores once it holds half, never
/// leaves a page waiting for ever): two pages as large as an answer may be can wait, about twice this.
pub const MAX_BYTES_WAITING: usize = 64 * 1024 * 1024;

/// What one sync takes from a server at most (see [`MAX_ITEMS_PER_SYNC`], [`MAX_BYTES_PER_SYNC`],
/// [`MAX_IDS_PER_SET`], [`MAX_PAGES`], [`MAX_ANSWER_BYTES`], [`MAX_BYTES_WAITING`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Items stored.
    pub items: usize,
    /// Bytes of the items stored ([`stored_bytes`]).
    pub bytes: usize,
    /// Ids read of each set.
    pub ids: usize,
    /// Requests for items, and for each set's ids.
    pub pages: usize,
    /// Bytes of an answer read at most ([`MAX_ANSWER_BYTES`]).
    pub answer: usize,
    /// Bytes of items read and waiting for the database at most ([`MAX_BYTES_WAITING`]).
    pub waiting: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            items: MAX_ITEMS_PER_SYNC,
            bytes: MAX_BYTES_PER_SYNC,
            ids: MAX_IDS_PER_SET,
            pages: MAX_PAGES,
            answer: MAX_ANSWER_BYTES,
            waiting: MAX_BYTES_WAITING,
        }
    }
}

/// What is left of a sync's [`Limits`] for items: they may be stored, and pages asked for them.
pub(super) struct Budget {
    items: usize,
    bytes: usize,
    pages: usize,
}

impl Budget {
    pub(super) fn of(limits: &Limits) -> Budget {
        Budget { items: limits.items, bytes: limits.bytes, pages: limits.pages }
    }

    /// Takes one page: the most items it may hold; `None` once the sync has had its fill.
    pub(super) fn page(&mut self) -> Option<usize> {
        if self.items == 0 || self.bytes == 0 || self.pages == 0 {
            return None;
        }
        self.pages -= 1;
        Some(self.items)
    }

    /// Counts `n` items taken.
    pub(super) fn took(&mut self, n: usize) {
        self.items = self.items.saturating_sub(n);
    }

    /// Whether the bytes left hold every one of `items`.
    pub(super) fn holds(&self, items: &[RemoteItem]) -> bool {
        items.iter().map(|i| stored_bytes(&i.entry)).sum::<usize>() <= self.bytes
    }

    /// Keeps of `items` those the bytes left hold, in order (the first always, so that a sync moves on), and
    /// counts their bytes; returns whether some were left out, for the next sync.
    pub(super) fn fit_bytes(&mut self, items: &mut Vec<RemoteItem>) -> bool {
        let mut kept = 0;
        for item in items.iter() {
            let size = stored_bytes(&item.entry);
            if kept > 0 && size > self.bytes {
                break;
            }
            self.bytes = self.bytes.saturating_sub(size);
            kept += 1;
        }
        let cut = kept < items.len();
        items.truncate(kept);
        if cut {
            self.bytes = 0;
        }
        cut
    }
}

/// How many items a page asks for: the protocol's most at first, half as many each time an answer was larger
/// than the sync reads ([`Limits::answer`]) — down to one item, whose answer too large fails the sync with that
/// said. Kept with the account ([`PageSize::kept`]), so the next sync starts at the size found.
#[derive(Clone, Copy, Debug)]
pub(super) struct PageSize(usize);

impl PageSize {
    pub(super) fn new(most: usize) -> PageSize {
        PageSize(most.max(1))
    }

    /// Items to ask for, of `wanted`.
    pub(super) fn of(&self, wanted: usize) -> usize {
        self.0.min(wanted).max(1)
    }

    /// As the account keeps it (`page=250`, under `name`), when smaller than the protocol's `most`: the next
    /// sync starts there, rather than reading answers too large again to find it.
    pub(super) fn kept(&self, name: &str, most: usize) -> Option<String> {
        (self.0 < most).then(|| format!("{name}={}", self.0))
    }

    /// The size an account kept among its `words` (`page=250`, under `name`), else the protocol's `most`.
    pub(super) fn read(words: &[&str], name: &str, most: usize) -> PageSize {
        let kept = words.iter().find_map(|w| w.strip_prefix(name)?.strip_prefix('=')?.parse::<usize>().ok());
        PageSize::new(kept.unwrap_or(most).clamp(1, most))
    }

    /// Halves the size after an answer to a page of `asked` items was too large; false when that page held one.
    pub(super) fn shrink(&mut self, asked: usize) -> bool {
        if asked <= 1 {
            return false;
        }
        self.0 = asked / 2;
        tracing::info!("an answer was too large: pages of {} items from now on", self.0);
        true
    }
}

/// About what an entry takes in the database: its text and addresses.
pub(super) fn stored_bytes(entry: &ParsedEntry) -> usize {
    let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    entry.key.len()
        + text(&entry.title)
        + text(&entry.link)
        + text(&entry.content_html)
        + text(&entry.summary_html)
        + text(&entry.comments)
        + text(&entry.thumbnail)
        + entry.authors.iter().chain(&entry.categories).map(String::len).sum::<usize>()
        + entry.enclosures.iter().map(|e| e.url.len() + e.media_type.as_ref().map_or(0, String::len)).sum::<usize>()
}
