//! Pictures in the article, as the state machine knows them: whether they are shown at all (and how many pixels
//! a terminal cell has), what is known of each picture address this session — on its way, decoded (its size),
//! prepared for the terminal at some size, or why it is not shown — and which to ask for: only those of the
//! article on screen and of the rows just below it, never the rest.
//!
//! The pictures themselves (bytes, pixels, escape sequences) never enter the state: the runtime keeps them and
//! the drawing code asks it for the one prepared for a place. Here are only addresses, sizes and decisions.

use super::ArticleView;
use crate::render::{self, Picture};
use crate::sanitize::one_line;
use crate::{Effect, State};
use std::collections::HashMap;

/// Most picture addresses remembered (what is known of older ones is forgotten, and asked again if needed).
const MAX_KNOWN: usize = 4096;

/// What the reader knows of pictures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pictures {
    /// Pixels of one terminal cell (width, height) when pictures are shown; `None`: they are off (the alt text
    /// shows, as without them).
    pub cell: Option<(u16, u16)>,
    /// By address.
    pub known: HashMap<String, Known>,
}

/// What is known of one picture address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Known {
    /// Asked for; not here yet.
    Loading,
    /// Fetched and decoded: its size in pixels; `asked` is the size (columns, rows) last asked to be prepared for
    /// the terminal, `prepared` the one that is.
    Ready { width: u32, height: u32, asked: Option<(u16, u16)>, prepared: Option<(u16, u16)> },
    /// Not shown (its alt text stands in), and why.
    Refused(String),
}

/// A picture of the open article, placed among its lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub picture: Picture,
    /// The first of the article's lines (header included) it takes.
    pub row: usize,
    /// The cells (columns, rows) it takes; `None` while nothing is reserved for it (its size unknown) or when it
    /// is not shown.
    pub size: Option<(u16, u16)>,
}

impl Pictures {
    /// The cells a picture takes in a text column `width` wide and a pane `height` high: from its decoded size,
    /// else from its `width` and `height` attributes; none for icons, refused pictures, or with pictures off.
    pub fn size_of(&self, picture: &Picture, width: u16, height: u16) -> Option<(u16, u16)> {
        let cell = self.cell?;
        let pixels = match self.known.get(&picture.url) {
            Some(Known::Refused(_)) => return None,
            Some(Known::Ready { width, height, .. }) => (*width, *height),
            _ => (picture.width?, picture.height?),
        };
        if pixels.0 <= render::ICON_PIXELS && pixels.1 <= render::ICON_PIXELS {
            return None;
        }
        // A tracking pixel or a spacer whose size was not declared: its real size says so.
        if pixels.0 <= render::PIXEL_SIZE || pixels.1 <= render::PIXEL_SIZE {
            return None;
        }
        render::fit(pixels, cell, width, height)
    }

    /// Whether the `[image]` line of an untitled picture says nothing: the picture is drawn in its place (rows
    /// are given to it), or it turned out to be decoration (a pixel, a spacer, an icon by its real size).
    pub fn stands_alone(&self, picture: &Picture, size: Option<(u16, u16)>) -> bool {
        if !picture.untitled || self.cell.is_none() {
            return false;
        }
        match self.known.get(&picture.url) {
            Some(Known::Refused(_)) => false,
            Some(Known::Ready { width, height, .. }) if size.is_none() => {
                let icon = *width <= render::ICON_PIXELS && *height <= render::ICON_PIXELS;
                icon || *width <= render::PIXEL_SIZE || *height <= render::PIXEL_SIZE
            }
            _ => size.is_some(),
        }
    }

    /// Whether the picture at `url` is prepared for the terminal at `size` (so it is drawn, not its place).
    pub fn prepared(&self, url: &str, size: (u16, u16)) -> bool {
        matches!(self.known.get(url), Some(Known::Ready { prepared: Some(p), .. }) if *p == size)
    }

    fn remember(&mut self, url: String, known: Known) {
        if self.known.len() >= MAX_KNOWN && !self.known.contains_key(&url) {
            self.known.retain(|_, k| matches!(k, Known::Loading));
        }
        self.known.insert(url, known);
    }
}

/// The entry's own picture (`media:thumbnail`, iTunes art, JSON Feed's `image`, else an image enclosure), shown
/// at the top of an article whose body has none.
pub fn entry_picture(detail: &crate::model::EntryDetail) -> Option<Picture> {
    let image_enclosure = detail.enclosures.iter().find(|e| match &e.media_type {
        Some(t) => t.trim().to_ascii_lowercase().starts_with("image/"),
        None => {
            let path = e.url.split(['?', '#']).next().unwrap_or("").to_ascii_lowercase();
            [".jpg", ".jpeg", ".png", ".gif", ".webp"].iter().any(|x| path.ends_with(x))
        }
    });
    let url = detail.thumbnail.clone().or_else(|| image_enclosure.map(|e| e.url.clone()))?;
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https").then(|| Picture {
        url,
        alt: String::new(),
        width: None,
        height: None,
        line: 0,
        link: None,
        untitled: true,
    })
}

/// Rows below the pane whose pictures are fetched ahead, so they are there when scrolled to: a pane's worth.
fn ahead(height: usize) -> usize {
    height.max(1)
}

/// What to ask for now: every picture of the article on screen that overlaps the pane or the rows just below
/// it and is not known yet is fetched; every one decoded but not prepared at the size it takes is prepared.
pub fn wanted(state: &mut State) -> Vec<Effect> {
    if state.pictures.cell.is_none() || state.screen().article.is_none() {
        return Vec::new();
    }
    let height = state.article_height();
    let Some(view) = state.article.ready() else { return Vec::new() };
    if view.rendered_width.is_none() {
        return Vec::new();
    }
    // Where the article came from decides whether its pictures may come from the local network.
    let feed_url = state.feeds.feed(view.detail.feed_id).map(|f| f.content_of.clone());
    let (from, to) = (view.scroll, view.scroll + height + ahead(height));
    let mut effects = Vec::new();
    let mut fetch = Vec::new();
    for placed in &view.pictures {
        let rows = placed.size.map_or(1, |(_, r)| usize::from(r));
        if placed.row + rows <= from || placed.row >= to {
            continue;
        }
        match (state.pictures.known.get(&placed.picture.url), placed.size) {
            (None, _) => fetch.push(placed.picture.url.clone()),
            (Some(Known::Ready { asked, .. }), Some((cols, rows))) if *asked != Some((cols, rows)) => {
                effects.push(Effect::PreparePicture { url: placed.picture.url.clone(), cols, rows });
            }
            _ => {}
        }
    }
    for effect in &effects {
        if let Effect::PreparePicture { url, cols, rows } = effect
            && let Some(Known::Ready { asked, .. }) = state.pictures.known.get_mut(url)
        {
            *asked = Some((*cols, *rows));
        }
    }
    fetch.dedup();
    for url in fetch {
        if !state.pictures.known.contains_key(&url) {
            state.pictures.remember(url.clone(), Known::Loading);
            effects.push(Effect::LoadPicture { url, feed_url: feed_url.clone() });
        }
    }
    effects
}

/// A picture was fetched and decoded (its size in pixels), or why it is not shown (its alt text stands in, and
/// the message log says why): the open article makes room for it — without moving the lines the reader is
/// looking at — and asks for what it now needs.
pub fn on_loaded(state: &mut State, url: String, result: Result<(u32, u32), String>) -> Vec<Effect> {
    let known = match result {
        Ok((width, height)) => Known::Ready { width, height, asked: None, prepared: None },
        Err(why) => {
            state.status.note(format!("Picture {} not shown: {why}", one_line(&url, 200)), state.clock.now);
            Known::Refused(why)
        }
    };
    state.pictures.remember(url.clone(), known);
    relayout_for(state, &url);
    wanted(state)
}

/// A picture was prepared for the terminal at `size` (or could not be: its pixels were let go meanwhile, and it
/// is fetched again when needed).
pub fn on_prepared(state: &mut State, url: String, size: (u16, u16), result: Result<(), String>) -> Vec<Effect> {
    match (state.pictures.known.get_mut(&url), result) {
        (Some(Known::Ready { prepared, asked, .. }), Ok(())) if *asked == Some(size) => *prepared = Some(size),
        (Some(_), Err(_)) => {
            state.pictures.known.remove(&url);
        }
        _ => {}
    }
    wanted(state)
}

/// The terminal lost what it was given (after Ctrl-Z and `fg`, or a program that had the terminal): every
/// picture is prepared again before it is drawn.
pub fn on_reset(state: &mut State) -> Vec<Effect> {
    for known in state.pictures.known.values_mut() {
        if let Known::Ready { asked, prepared, .. } = known {
            (*asked, *prepared) = (None, None);
        }
    }
    wanted(state)
}

/// Lays the open article out again if it shows `url`, keeping the reader's place.
fn relayout_for(state: &mut State, url: &str) {
    let shows = state.article.view.as_ref().is_some_and(|v| v.pictures.iter().any(|p| p.picture.url == url));
    if shows {
        crate::article::relayout_in_place(state);
    }
}

/// Where a row of the article is, in terms that survive a new layout: a line of text (header and body counted
/// together), or a row inside a picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Text(usize),
    Picture { index: usize, row: usize },
}

/// The place of `row` in the laid-out `view`.
pub(crate) fn place_of(view: &ArticleView, row: usize) -> Place {
    let mut picture_rows = 0;
    for (index, placed) in view.pictures.iter().enumerate() {
        let rows = placed.size.map_or(0, |(_, r)| usize::from(r));
        if placed.row > row {
            break;
        }
        if row < placed.row + rows {
            return Place::Picture { index, row: row - placed.row };
        }
        picture_rows += rows;
    }
    Place::Text(row - picture_rows)
}

/// The row of `place` in the laid-out `view` (the picture's last row when it has become shorter).
pub(crate) fn row_of(view: &ArticleView, place: Place) -> usize {
    match place {
        Place::Picture { index, row } => view.pictures.get(index).map_or(0, |p| {
            let rows = p.size.map_or(0, |(_, r)| usize::from(r));
            p.row + row.min(rows.saturating_sub(1))
        }),
        Place::Text(line) => {
            let mut picture_rows = 0;
            for placed in &view.pictures {
                // A picture above line `line` of text sits at a row below `line + picture_rows` lines.
                if placed.row > line + picture_rows {
                    break;
                }
                picture_rows += placed.size.map_or(0, |(_, r)| usize::from(r));
            }
            line + picture_rows
        }
    }
}
