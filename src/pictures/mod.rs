//! Pictures of the article, on the I/O side: fetched in the background through the shared client and its
//! [`Courtesy`] (the same global and per-host limits as feeds and full articles), kept on disk between sessions
//! ([`disk`], bounded) and in memory (decoded pixels and pictures prepared for the terminal, both bounded),
//! decoded within limits off the async workers ([`decode`]), and prepared in the terminal's protocol by
//! ratatui-image (kitty, sixel, iTerm2 or half-blocks, chosen once by [`detect`]).
//!
//! The state machine asks with [`crate::app::Effect::LoadPicture`] and [`crate::app::Effect::PreparePicture`] and
//! hears back through the inbox; the drawing code takes prepared pictures from the [`Shelf`]. Escape sequences
//! are built by ratatui-image from decoded pixels, never from a feed's bytes.

pub mod decode;
pub mod detect;
pub mod disk;

use crate::app::Event;
use crate::fetch::{Courtesy, Fetcher};
use image::DynamicImage;
use ratatui::layout::Size;
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::sliced::SlicedProtocol;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// Largest picture fetched, in bytes (counted after decompression).
pub const MAX_PICTURE_BYTES: u64 = 8 * 1024 * 1024;
/// Memory kept for decoded pictures, so that a resize or a zoom prepares them again without a fetch.
const DECODED_BYTES: usize = 24 * 1024 * 1024;
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

/// A least-recently-used map bounded by the bytes of what it holds (few entries: a linear scan is enough).
struct Lru<K, V> {
    entries: Vec<(K, V, usize)>,
    held: usize,
    max: usize,
}

impl<K: PartialEq, V: Clone> Lru<K, V> {
    fn new(max: usize) -> Self {
        Lru { entries: Vec::new(), held: 0, max }
    }

    fn get(&mut self, key: &K) -> Option<V> {
        let at = self.entries.iter().position(|(k, _, _)| k == key)?;
        let entry = self.entries.remove(at);
        let value = entry.1.clone();
        self.entries.push(entry);
        Some(value)
    }

    fn peek(&self, key: &K) -> Option<&V> {
        self.entries.iter().find(|(k, _, _)| k == key).map(|(_, v, _)| v)
    }

    fn insert(&mut self, key: K, value: V, bytes: usize) {
        if let Some(at) = self.entries.iter().position(|(k, _, _)| *k == key) {
            self.held -= self.entries.remove(at).2;
        }
        self.entries.push((key, value, bytes));
        self.held += bytes;
        while self.held > self.max && self.entries.len() > 1 {
            self.held -= self.entries.remove(0).2;
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.held = 0;
    }
}

/// A decoded picture kept in memory: its pixels (bounded) and its size in the file.
#[derive(Clone)]
struct Kept {
    image: Arc<DynamicImage>,
    width: u32,
    height: u32,
}

/// The key of a prepared picture: its address and the cells it fills.
type Place = (String, u16, u16);

/// Pictures prepared for the terminal, by address and size: what the drawing code draws. Bounded.
pub struct Shelf {
    prepared: Mutex<Lru<Place, Arc<SlicedProtocol>>>,
    protocol: ProtocolType,
}

impl Shelf {
    /// The picture at `url` prepared for `size` (columns, rows), if it is.
    pub fn get(&self, url: &str, size: (u16, u16)) -> Option<Arc<SlicedProtocol>> {
        let prepared = self.prepared.lock().unwrap_or_else(|e| e.into_inner());
        prepared.peek(&(url.to_string(), size.0, size.1)).cloned()
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

/// The picture service: cheap to clone, clones share everything.
#[derive(Clone)]
pub struct Pictures(Arc<Inner>);

struct Inner {
    picker: Picker,
    fetcher: Fetcher,
    courtesy: Courtesy,
    disk: Option<disk::DiskCache>,
    decoded: Mutex<Lru<String, Kept>>,
    decoding: tokio::sync::Semaphore,
    shelf: Arc<Shelf>,
}

impl Pictures {
    pub fn new(setup: Setup, fetcher: Fetcher, courtesy: Courtesy) -> Pictures {
        let shelf =
            Arc::new(Shelf { prepared: Mutex::new(Lru::new(PREPARED_BYTES)), protocol: setup.picker.protocol_type() });
        let disk = setup.cache_dir.map(|dir| disk::DiskCache::new(dir, setup.cache_max_bytes));
        Pictures(Arc::new(Inner {
            picker: setup.picker,
            fetcher,
            courtesy,
            disk: disk.filter(|_| setup.cache_max_bytes > 0),
            decoded: Mutex::new(Lru::new(DECODED_BYTES)),
            decoding: tokio::sync::Semaphore::new(2),
            shelf,
        }))
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
        self.0.shelf.prepared.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Fetches (or reads from the disk cache) and decodes `url` in the background; [`Event::PictureLoaded`]
    /// says its size or why it is not shown.
    pub fn load(&self, url: String, inbox: mpsc::UnboundedSender<Event>) {
        let this = self.clone();
        tokio::spawn(async move {
            let result = this.fetch_and_decode(&url).await;
            if let Err(why) = &result {
                tracing::info!("picture {} not shown: {why}", crate::sanitize::one_line(&url, 300));
            }
            let _ = inbox.send(Event::PictureLoaded { url, result });
        });
    }

    async fn fetch_and_decode(&self, url: &str) -> Result<(u32, u32), String> {
        if let Some(kept) = self.kept(url) {
            return Ok((kept.width, kept.height));
        }
        let this = self.clone();
        let key = url.to_string();
        let cached = tokio::task::spawn_blocking(move || this.0.disk.as_ref().and_then(|d| d.get(&key)))
            .await
            .map_err(|e| format!("the picture cache failed: {e}"))?;
        let (bytes, fresh) = match cached {
            Some(bytes) => (bytes, false),
            None => (self.fetch(url).await?, true),
        };
        // Two decodes at a time: each holds a whole picture's pixels while it runs.
        let _decoding = self.0.decoding.acquire().await.map_err(|e| e.to_string())?;
        let this = self.clone();
        let key = url.to_string();
        tokio::task::spawn_blocking(move || {
            let decoded = decode::decode(&bytes).map_err(|e| e.to_string())?;
            if fresh && let Some(disk) = &this.0.disk {
                disk.put(&key, &bytes);
            }
            let size = (decoded.width, decoded.height);
            this.keep(key, decoded);
            Ok(size)
        })
        .await
        .map_err(|e| format!("decoding failed: {e}"))?
    }

    /// The bytes at `url`, through the shared client, within the host's turn and a global slot.
    async fn fetch(&self, url: &str) -> Result<Vec<u8>, String> {
        let _turn = self.0.courtesy.host_turn(url).await;
        let _slot = self.0.courtesy.slot().await;
        match self.0.fetcher.get_limited(url, MAX_PICTURE_BYTES).await {
            Ok(crate::fetch::FetchOutcome::Fetched(page)) => Ok(page.body),
            Ok(crate::fetch::FetchOutcome::NotModified { .. }) => {
                Err("the server answered 304 to a plain request".into())
            }
            Err(crate::fetch::FetchError::Status { status, .. }) => {
                Err(format!("cannot fetch the picture: HTTP {status}"))
            }
            Err(crate::fetch::FetchError::TooLarge { .. }) => {
                Err(format!("the picture is larger than {} MB", MAX_PICTURE_BYTES / (1024 * 1024)))
            }
            Err(e) => Err(format!("cannot fetch the picture: {e}")),
        }
    }

    fn kept(&self, url: &str) -> Option<Kept> {
        self.0.decoded.lock().unwrap_or_else(|e| e.into_inner()).get(&url.to_string())
    }

    fn keep(&self, url: String, decoded: decode::Decoded) {
        let bytes = decoded.image.as_bytes().len();
        let kept = Kept { image: Arc::new(decoded.image), width: decoded.width, height: decoded.height };
        self.0.decoded.lock().unwrap_or_else(|e| e.into_inner()).insert(url, kept, bytes);
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
        let Some(kept) = self.kept(url) else {
            return Err("the picture is no longer in memory".into());
        };
        let (cell_w, cell_h) = self.cell();
        let (width, height) = (u32::from(cols) * u32::from(cell_w), u32::from(rows) * u32::from(cell_h));
        let image = if kept.image.width() > width || kept.image.height() > height {
            kept.image.resize(width, height, image::imageops::FilterType::Triangle)
        } else {
            (*kept.image).clone()
        };
        let protocol = SlicedProtocol::new(&self.0.picker, image, Some(Size::new(cols, rows)))
            .map_err(|e| format!("cannot prepare the picture for the terminal: {e}"))?;
        let bytes = estimate(self.0.shelf.protocol, usize::from(cols) * usize::from(rows), (cell_w, cell_h));
        let mut prepared = self.0.shelf.prepared.lock().unwrap_or_else(|e| e.into_inner());
        prepared.insert((url.to_string(), cols, rows), Arc::new(protocol), bytes);
        Ok(())
    }
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
