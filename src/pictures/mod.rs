//! Pictures of the article, on the terminal's side: prepared in the terminal's protocol by ratatui-image
//! (kitty, sixel, iTerm2 or half-blocks, chosen once by [`detect`]) from the pixels the engine's picture
//! [`Library`] fetched and decoded, and kept bounded on the [`Shelf`] the drawing code takes them from.
//!
//! The state machine asks with [`crate::app::Effect::LoadPicture`] and [`crate::app::Effect::PreparePicture`] and
//! hears back through the inbox. Escape sequences are built by ratatui-image from decoded pixels, never from a
//! feed's bytes.

pub mod detect;

pub use tidings_engine::pictures::{Library, MAX_PICTURE_BYTES, decode, disk};

use crate::app::Event;
use crate::fetch::{Courtesy, Fetcher};
use ratatui::layout::Size;
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::sliced::SlicedProtocol;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tidings_engine::pictures::Lru;
use tokio::sync::mpsc;

/// Memory kept for pictures prepared for the terminal (estimated from their size in pixels).
const PREPARED_BYTES: usize = 24 * 1024 * 1024;

/// How the reader shows pictures: the protocol and cell size detected (or forced), and where they are kept.
#[derive(Clone)]
pub struct Setup {
    pub picker: Picker,
    /// The disk cache's directory; `None` keeps pictures in memory only.
    pub cache_dir: Option<PathBuf>,
    pub cache_max_bytes: u64,
}

/// The key of a prepared picture: its address and the cells it fills.
type Place = (String, u16, u16);

/// A picture prepared for the terminal, and the number kitty knows it by (kitty keeps a picture it was sent
/// until told to delete it).
#[derive(Clone)]
struct Shelved {
    protocol: Arc<SlicedProtocol>,
    kitty_id: Option<u32>,
}

/// Pictures prepared for the terminal, by address and size: what the drawing code draws. Bounded. A kitty
/// picture that leaves it (let go to make room, scrolled off the screen, or after Ctrl-Z) is deleted from the
/// terminal's memory by the next frame ([`Shelf::take_deletes`]).
pub struct Shelf {
    prepared: Mutex<Lru<Place, Shelved>>,
    protocol: ProtocolType,
    /// Whether escape sequences go through tmux's passthrough.
    tmux: bool,
    /// Whether kitty said it inflates zlib data (`o=z`).
    kitty_compress: bool,
    /// The next number given to a kitty picture.
    next_kitty_id: std::sync::atomic::AtomicU32,
    /// Kitty pictures to delete from the terminal with the next frame.
    deletes: Mutex<Vec<u32>>,
}

impl Shelf {
    fn new(picker: &Picker) -> Shelf {
        // Numbers apart from another tidings's in the same terminal (kitty's are per terminal, not per program);
        // never 0, which kitty reads as "no number".
        let first = (std::process::id() & 0xffff) << 12 | 1;
        Shelf {
            prepared: Mutex::new(Lru::new(PREPARED_BYTES)),
            protocol: picker.protocol_type(),
            tmux: picker.tmux_detected(),
            kitty_compress: picker.capabilities().contains(&ratatui_image::picker::Capability::KittyCompression),
            next_kitty_id: std::sync::atomic::AtomicU32::new(first),
            deletes: Mutex::new(Vec::new()),
        }
    }

    /// The picture at `url` prepared for `size` (columns, rows), if it is.
    pub fn get(&self, url: &str, size: (u16, u16)) -> Option<Arc<SlicedProtocol>> {
        let prepared = self.prepared.lock().unwrap_or_else(|e| e.into_inner());
        prepared.peek(&(url.to_string(), size.0, size.1)).map(|s| s.protocol.clone())
    }

    /// Puts a prepared picture on the shelf; what goes out to make room is deleted from kitty's memory.
    fn put(&self, place: Place, shelved: Shelved, bytes: usize) {
        let out = self.prepared.lock().unwrap_or_else(|e| e.into_inner()).insert(place, shelved, bytes);
        self.delete(out);
    }

    /// Takes the picture at `url` and `size` off the shelf (it left the screen): kitty is told to forget it, and
    /// it is sent again if it comes back. Whether it was there.
    pub fn retire(&self, url: &str, size: (u16, u16)) -> bool {
        let out = self.prepared.lock().unwrap_or_else(|e| e.into_inner()).remove(&(url.to_string(), size.0, size.1));
        let was = out.is_some();
        self.delete(out);
        was
    }

    fn delete(&self, out: impl IntoIterator<Item = Shelved>) {
        let ids = out.into_iter().filter_map(|s| s.kitty_id);
        self.deletes.lock().unwrap_or_else(|e| e.into_inner()).extend(ids);
    }

    /// The escape sequences deleting from kitty's memory the pictures that left the shelf since the last call
    /// (empty when none did): `a=d,d=I` deletes the picture's data with its placements.
    pub fn take_deletes(&self) -> String {
        let ids = std::mem::take(&mut *self.deletes.lock().unwrap_or_else(|e| e.into_inner()));
        ids.into_iter().map(|id| kitty_delete(id, self.tmux)).collect()
    }

    /// The protocol pictures are drawn with.
    pub fn protocol(&self) -> ProtocolType {
        self.protocol
    }

    /// Whether a picture stays on the terminal until erased (sixel and iTerm2 draw pixels over the cells; kitty's
    /// placeholders and half-blocks are text, replaced like any other).
    pub fn leaves_pixels(&self) -> bool {
        matches!(self.protocol, ProtocolType::Sixel | ProtocolType::Iterm2)
    }
}

/// The picture service: the engine's library, and the pictures prepared for this terminal. Cheap to clone,
/// clones share everything.
#[derive(Clone)]
pub struct Pictures(Arc<Inner>);

struct Inner {
    picker: Picker,
    library: Library,
    shelf: Arc<Shelf>,
}

impl Pictures {
    pub fn new(setup: Setup, fetcher: Fetcher, courtesy: Courtesy) -> Pictures {
        let shelf = Arc::new(Shelf::new(&setup.picker));
        let library = Library::new(fetcher, courtesy, setup.cache_dir, setup.cache_max_bytes);
        Pictures(Arc::new(Inner { picker: setup.picker, library, shelf }))
    }

    /// Pixels of one terminal cell (width, height).
    pub fn cell(&self) -> (u16, u16) {
        let font = self.0.picker.font_size();
        (font.width.max(1), font.height.max(1))
    }

    pub fn shelf(&self) -> Arc<Shelf> {
        self.0.shelf.clone()
    }

    /// Forgets every prepared picture (the terminal lost them: Ctrl-Z, a program that had the terminal).
    pub fn forget_prepared(&self) {
        let out = self.0.shelf.prepared.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.0.shelf.delete(out);
    }

    /// Fetches (or reads from the disk cache) and decodes `url`, a picture of the feed at `feed_url` (`None`:
    /// not known, taken for a feed on the internet), in the background; [`Event::PictureLoaded`] says its size or
    /// why it is not shown.
    pub fn load(&self, url: String, feed_url: Option<String>, inbox: mpsc::UnboundedSender<Event>) {
        let library = self.0.library.clone();
        tokio::spawn(async move {
            let result = library.load(&url, feed_url.as_deref().unwrap_or_default()).await;
            if let Err(why) = &result {
                tracing::info!("picture {} not shown: {why}", crate::sanitize::one_line(&url, 300));
            }
            let _ = inbox.send(Event::PictureLoaded { url, result });
        });
    }

    /// Prepares the decoded picture at `url` for the terminal at `cols` × `rows` cells, on a blocking thread;
    /// [`Event::PicturePrepared`] says when it is on the shelf (or that its pixels were let go meanwhile).
    pub fn prepare(&self, url: String, (cols, rows): (u16, u16), inbox: mpsc::UnboundedSender<Event>) {
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let result = this.prepare_now(&url, cols, rows);
            let _ = inbox.send(Event::PicturePrepared { url, size: (cols, rows), result });
        });
    }

    /// Prepares a picture at once (blocking): scaled to the cells with a smooth filter, encoded for the protocol.
    pub fn prepare_now(&self, url: &str, cols: u16, rows: u16) -> Result<(), String> {
        let Some(kept) = self.0.library.kept(url) else {
            return Err("the picture is no longer in memory".into());
        };
        let (cell_w, cell_h) = self.cell();
        let (width, height) = (u32::from(cols) * u32::from(cell_w), u32::from(rows) * u32::from(cell_h));
        let image = if kept.image.width() > width || kept.image.height() > height {
            decode::shrink(&kept.image, width, height)
        } else {
            (*kept.image).clone()
        };
        drop(kept);
        let shelf = &self.0.shelf;
        let (protocol, kitty_id) = if shelf.protocol == ProtocolType::Kitty {
            // Built here rather than by the picker, so that its number is known and it can be deleted.
            let id = shelf.next_kitty_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed).max(1);
            let size = Size::new(
                image.width().div_ceil(u32::from(cell_w)).min(u32::from(cols)) as u16,
                image.height().div_ceil(u32::from(cell_h)).min(u32::from(rows)) as u16,
            );
            let kitty = ratatui_image::protocol::kitty::Kitty::new(image, size, id, shelf.tmux, shelf.kitty_compress)
                .map_err(|e| format!("cannot prepare the picture for the terminal: {e}"))?;
            (SlicedProtocol::Kitty(kitty), Some(id))
        } else {
            let protocol = SlicedProtocol::new(&self.0.picker, image, Some(Size::new(cols, rows)))
                .map_err(|e| format!("cannot prepare the picture for the terminal: {e}"))?;
            (protocol, None)
        };
        let bytes = estimate(shelf.protocol, usize::from(cols) * usize::from(rows), (cell_w, cell_h));
        shelf.put((url.to_string(), cols, rows), Shelved { protocol: Arc::new(protocol), kitty_id }, bytes);
        Ok(())
    }
}

/// The kitty graphics command deleting picture `id` and its data from the terminal's memory, quietly (`q=2`: no
/// answer, which would otherwise arrive as keys), through tmux's passthrough when inside tmux.
pub fn kitty_delete(id: u32, tmux: bool) -> String {
    let (start, escape, end) = ratatui_image::picker::cap_parser::Parser::tmux_start_escape_end(tmux);
    format!("{start}{escape}_Ga=d,d=I,i={id},q=2{escape}\\{end}")
}

/// Roughly the memory a prepared picture of `cells` cells takes: half-blocks hold two colours per cell, sixel
/// about a byte a pixel, kitty and iTerm2 the pixels in base64.
fn estimate(protocol: ProtocolType, cells: usize, (cell_w, cell_h): (u16, u16)) -> usize {
    let pixels = cells * usize::from(cell_w) * usize::from(cell_h);
    match protocol {
        ProtocolType::Halfblocks => cells * 32,
        ProtocolType::Sixel => pixels,
        ProtocolType::Kitty | ProtocolType::Iterm2 => pixels * 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shelved(kitty_id: Option<u32>) -> Shelved {
        Shelved { protocol: Arc::new(SlicedProtocol::Sliced(Vec::new())), kitty_id }
    }

    #[test]
    fn kitty_pictures_leaving_the_shelf_are_deleted_from_the_terminal_once() {
        let shelf = Shelf::new(&detect::fixed(ProtocolType::Kitty, (10, 20)));
        let place = |n: u16| ("http://p/".to_string(), n, n);
        shelf.put(place(1), shelved(Some(41)), PREPARED_BYTES / 2);
        shelf.put(place(2), shelved(Some(42)), PREPARED_BYTES / 2);
        assert_eq!(shelf.take_deletes(), "");
        // A third makes room: the oldest goes, and kitty is told.
        shelf.put(place(3), shelved(Some(43)), PREPARED_BYTES / 2);
        assert_eq!(shelf.take_deletes(), "\u{1b}_Ga=d,d=I,i=41,q=2\u{1b}\\");
        assert_eq!(shelf.take_deletes(), "", "once");
        assert!(shelf.retire("http://p/", (3, 3)));
        assert!(!shelf.retire("http://p/", (3, 3)));
        assert_eq!(shelf.take_deletes(), "\u{1b}_Ga=d,d=I,i=43,q=2\u{1b}\\");
    }

    #[test]
    fn inside_tmux_the_delete_goes_through_its_passthrough() {
        assert_eq!(kitty_delete(7, true), "\u{1b}Ptmux;\u{1b}\u{1b}_Ga=d,d=I,i=7,q=2\u{1b}\u{1b}\\\u{1b}\\");
    }
}
