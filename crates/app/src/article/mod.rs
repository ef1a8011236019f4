//! The article pane: the entry being read, its header and body rendered for the pane's width (off the UI
//! thread), scrolling, and the links it offers (`o` opens the entry, `f N` follows link N).

mod header;
pub mod pictures;

use super::dialogs::{Dialog, Prompt, PromptPurpose};
use super::keymap::{Action, Context, Keymap};
use super::list::{Step, scroll};
use super::{Effect, OpenKind, Pane, State};
use crate::model::{DownloadState, EntryDetail, EntryId};
use crate::render::{self, Line, Span};
use crate::sanitize::one_line;
use pictures::{Pictures, Placed};

/// The article being read: its entry, and its lines (header and body) rendered for the pane's width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArticleView {
    pub detail: EntryDetail,
    /// Header and body, as shown.
    pub lines: Vec<Line>,
    /// The body alone (while it renders, a placeholder).
    pub body: Vec<Line>,
    /// The header lists media, comments and tags in full.
    pub details: bool,
    /// The full article from the entry's page is shown, not the feed's text.
    pub full: bool,
    /// The body's links by number (link 1 first).
    pub links: Vec<render::Link>,
    /// The width the body was rendered for; `None` while rendering.
    pub rendered_width: Option<u16>,
    pub scroll: usize,
    /// What the search that found this entry matches in it: byte ranges of each line's text (empty when the
    /// entry was not opened from search results).
    pub marks: Vec<Vec<std::ops::Range<usize>>>,
    /// The search whose matches are marked.
    pub search: Option<tidings_core::search::SearchQuery>,
    /// The body's pictures (or the entry's own picture), each with the rows it takes among `lines`.
    pub pictures: Vec<Placed>,
}

impl ArticleView {
    /// Puts the header (for `width` columns) and the body together again, with the rows each picture takes in a
    /// pane `height` rows high reserved above its line, and marks the search's matches.
    fn relayout(&mut self, (width, height): (u16, u16), zone: crate::clock::Zone, keymap: &Keymap, known: &Pictures) {
        let mut lines = header::lines(&self.detail, usize::from(width), zone, self.details, self.full, keymap);
        let mut placed = std::mem::take(&mut self.pictures);
        placed.sort_by_key(|p| p.picture.line);
        let mut next = 0;
        for (i, line) in self.body.iter().enumerate() {
            // The `[image]` of untitled pictures drawn above it says nothing: a line of only those goes.
            let mut alone = None;
            while let Some(p) = placed.get_mut(next).filter(|p| p.picture.line <= i) {
                p.size = known.size_of(&p.picture, width, height);
                p.row = lines.len();
                lines.extend(std::iter::repeat_n(Vec::new(), p.size.map_or(0, |(_, rows)| usize::from(rows))));
                if p.picture.line == i {
                    alone = Some(alone.unwrap_or(true) && known.stands_alone(&p.picture, p.size));
                }
                next += 1;
            }
            if alone == Some(true) && render::line_text(line).replace("[image]", "").trim().is_empty() {
                continue;
            }
            lines.push(line.clone());
        }
        for p in placed.iter_mut().skip(next) {
            (p.row, p.size) = (lines.len(), None);
        }
        self.pictures = placed;
        self.marks = match &self.search {
            Some(query) => lines.iter().map(|l| query.highlight_ranges(&render::line_text(l))).collect(),
            None => Vec::new(),
        };
        self.lines = lines;
    }

    /// The article as text, for a pipe or a file: the header with its details listed (no hint of the reader's
    /// keys, no folded "▸" line) and the body, without the rows kept for pictures.
    pub fn text_lines(&self, zone: crate::clock::Zone, keymap: &Keymap) -> Vec<Line> {
        let width = usize::from(self.rendered_width.unwrap_or(80));
        let mut lines = header::lines(&self.detail, width, zone, true, false, keymap);
        lines.extend(self.body.iter().cloned());
        lines
    }

    /// The first line with a match, to scroll to it.
    fn first_mark(&self) -> Option<usize> {
        self.marks.iter().position(|m| !m.is_empty())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Article {
    pub view: Option<ArticleView>,
    /// The entry whose article was asked for and has not arrived yet.
    pub wanted: Option<EntryId>,
}

impl Article {
    /// The article the keys act on: the one shown, unless another has been asked for and has not arrived —
    /// keys typed ahead of it (Enter then `o` in one read, over a slow link) must not act on the one before.
    pub fn ready(&self) -> Option<&ArticleView> {
        self.view.as_ref().filter(|_| self.wanted.is_none())
    }

    fn ready_mut(&mut self) -> Option<&mut ArticleView> {
        self.view.as_mut().filter(|_| self.wanted.is_none())
    }

    /// The entry open in the pane, or being opened.
    pub fn entry_id(&self) -> Option<EntryId> {
        self.wanted.or(self.view.as_ref().map(|v| v.detail.id))
    }
}

/// What a key that came ahead of its article says (until the article is on screen).
const STILL_LOADING: &str = "The article is still loading; press the key again in a moment";

/// Says why a key that needs the article's text did nothing: it is still on its way, or none is open.
fn not_ready(state: &mut State, otherwise: &str) {
    let now = state.clock.now;
    if state.article.wanted.is_some() {
        state.status.info(STILL_LOADING, now);
    } else {
        state.status.info(otherwise.to_string(), now);
    }
}

/// The entry arrived from the store: show its header at once and render its body.
pub fn on_loaded(state: &mut State, entry_id: EntryId, detail: Option<Box<EntryDetail>>) -> Vec<Effect> {
    if state.article.wanted != Some(entry_id) {
        return Vec::new();
    }
    state.article.wanted = None;
    let Some(detail) = detail else {
        let now = state.clock.now;
        state.status.error("that entry is no longer in the database", now);
        return Vec::new();
    };
    let width = state.article_width();
    let placeholder = render::Style { italic: true, ..Default::default() };
    let body = vec![vec![Span { text: "Rendering…".into(), style: placeholder }]];
    // A feed of snippets whose articles are fetched in full shows the full article first.
    let full = detail.full_html.is_some() && state.feeds.feed(detail.feed_id).is_some_and(|f| f.full_text);
    let mut view = ArticleView {
        detail: *detail,
        lines: Vec::new(),
        body,
        details: false,
        full,
        links: Vec::new(),
        rendered_width: None,
        scroll: 0,
        marks: Vec::new(),
        search: super::search::highlights(state),
        pictures: Vec::new(),
    };
    view.relayout((width, state.article_height_cells()), state.clock.zone, &state.keymap, &state.pictures);
    let effect = render_effect(&view, width);
    state.article.view = Some(view);
    vec![effect]
}

/// The article is here: "still loading" is no longer true.
fn clear_still_loading(state: &mut State) {
    if state.status.current(state.clock.now).is_some_and(|m| m.text == STILL_LOADING) {
        state.status.clear();
    }
}

/// The entry asked for could not be read: say why, and let the keys act on the article on screen again.
pub fn on_failed(state: &mut State, entry_id: EntryId, message: String) -> Vec<Effect> {
    if state.article.wanted == Some(entry_id) {
        state.article.wanted = None;
    }
    let now = state.clock.now;
    state.status.error(message, now);
    Vec::new()
}

/// A body came back from the renderer; one rendered for another entry or another width is dropped.
pub fn on_rendered(
    state: &mut State,
    entry_id: EntryId,
    width: u16,
    body: Result<render::Rendered, String>,
) -> Vec<Effect> {
    let zone = state.clock.zone;
    let height = state.article_height();
    let cells = state.article_height_cells();
    if width != state.article_width() {
        return Vec::new();
    }
    let Some(view) = state.article.view.as_mut().filter(|a| a.detail.id == entry_id) else {
        return Vec::new();
    };
    match body {
        Ok(body) => {
            view.body = body.lines;
            view.links = body.links;
            let mut pictures = body.pictures;
            if pictures.is_empty() {
                pictures.extend(pictures::entry_picture(&view.detail));
            }
            view.pictures = pictures.into_iter().map(|picture| Placed { picture, row: 0, size: None }).collect();
        }
        Err(reason) => {
            let notice = format!(
                "This entry could not be shown ({reason}){}.",
                state.keymap.say(Context::General, Action::OpenInBrowser, "; {} opens it in the browser")
            );
            let style = render::Style { italic: true, ..Default::default() };
            view.body = render::wrap_text(&notice, usize::from(width), style);
            view.links = Vec::new();
            view.pictures = Vec::new();
        }
    }
    let first_render = view.rendered_width.is_none() && view.scroll == 0;
    view.relayout((width, cells), zone, &state.keymap, &state.pictures);
    if first_render && let Some(line) = view.first_mark() {
        // Opened from a search: start where the body first matches, with a line of context.
        if line >= height {
            view.scroll = line.saturating_sub(1);
        }
    }
    view.rendered_width = Some(width);
    view.scroll = view.scroll.min(view.lines.len().saturating_sub(height));
    clear_still_loading(state);
    pictures::wanted(state)
}

/// Lays the open article out again where it is (its pictures' sizes, or the pane's height, changed), keeping
/// at the top of the pane what the reader was looking at.
pub(crate) fn relayout_in_place(state: &mut State) {
    let (width, height) = (state.article_width(), state.article_height_cells());
    let (zone, rows) = (state.clock.zone, state.article_height());
    let Some(view) = state.article.view.as_mut().filter(|v| v.rendered_width == Some(width)) else { return };
    let place = pictures::place_of(view, view.scroll);
    view.relayout((width, height), zone, &state.keymap, &state.pictures);
    view.scroll = pictures::row_of(view, place).min(view.lines.len().saturating_sub(rows));
}

/// The article's width changed (a resize, zoom): render it again for the new width. Its height alone changed:
/// its pictures may take other sizes.
pub fn rerender_if_needed(state: &mut State) -> Vec<Effect> {
    let width = state.article_width();
    match &state.article.view {
        Some(view) if view.rendered_width != Some(width) => vec![render_effect(view, width)],
        Some(view) if !view.pictures.is_empty() => {
            relayout_in_place(state);
            pictures::wanted(state)
        }
        _ => Vec::new(),
    }
}

fn render_effect(view: &ArticleView, width: u16) -> Effect {
    let detail = &view.detail;
    Effect::RenderArticle { entry_id: detail.id, html: body_html(detail, view.full), width, base: detail.link.clone() }
}

/// `t`: the full article from the entry's page, fetched the first time (the feed's own text stays one key away).
pub fn full_text(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let width = state.article_width();
    let Some(view) = state.article.ready_mut() else {
        let otherwise = format!(
            "Open an entry first{}",
            state.keymap.say(Context::General, Action::FullText, "; {} fetches its full article from its page")
        );
        not_ready(state, &otherwise);
        return Vec::new();
    };
    if view.detail.full_html.is_some() {
        view.full = !view.full;
        view.scroll = 0;
        view.rendered_width = None;
        let shown = if view.full {
            format!(
                "the full article{}",
                state.keymap.say(Context::General, Action::FullText, " ({}: the feed's text)")
            )
        } else {
            format!(
                "the feed's text{}",
                state.keymap.say(Context::General, Action::FullText, " ({}: the full article)")
            )
        };
        let effect = render_effect(view, width);
        state.status.info(format!("Showing {shown}"), now);
        return vec![effect];
    }
    let Some(url) = view.detail.link.clone().filter(|u| render::openable(u) && !u.starts_with("mailto:")) else {
        state.status.info("This entry has no page to fetch", now);
        return Vec::new();
    };
    let entry_id = view.detail.id;
    state.status.info(format!("Fetching the article from {}…", one_line(&url, 2000)), now);
    vec![Effect::FetchFullText { entry_id, url }]
}

/// The full article (or why there is none) arrived for an entry; the open one shows it at once.
pub fn on_full_text(state: &mut State, entry_id: EntryId, result: Result<String, String>) -> Vec<Effect> {
    let now = state.clock.now;
    let width = state.article_width();
    let Some(view) = state.article.view.as_mut().filter(|v| v.detail.id == entry_id) else { return Vec::new() };
    match result {
        Ok(html) => {
            view.detail.full_html = Some(html);
            view.full = true;
            view.scroll = 0;
            view.rendered_width = None;
            let back = state.keymap.say(Context::General, Action::FullText, " ({}: the feed's text)");
            state.status.info(format!("Showing the full article{back}"), now);
            let effect = render_effect(view, width);
            vec![effect]
        }
        Err(why) => {
            view.detail.full_error = Some(why.clone());
            state.status.error(format!("No full article: {why}; the feed's text stays"), now);
            Vec::new()
        }
    }
}

/// `d`: media, comments and tags folded into one line of the header, or listed in full.
pub fn toggle_details(state: &mut State) -> Vec<Effect> {
    let (width, zone) = (state.article_width(), state.clock.zone);
    let height = state.article_height_cells();
    match state.article.ready_mut() {
        Some(view) => {
            view.details = !view.details;
            view.relayout((width, height), zone, &state.keymap, &state.pictures);
            return pictures::wanted(state);
        }
        None => {
            let says = "; {} lists its media, comments and tags";
            let otherwise =
                format!("Open an entry first{}", state.keymap.say(Context::General, Action::ToggleDetails, says));
            not_ready(state, &otherwise);
        }
    }
    Vec::new()
}

/// `v`: plays the entry's media file with the player; with several, asks which.
pub fn open_media(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let Some(view) = state.article.ready() else {
        let otherwise = format!(
            "Open an entry first{}",
            state.keymap.say(Context::General, Action::OpenMedia, "; {} plays its media")
        );
        not_ready(state, &otherwise);
        return Vec::new();
    };
    match view.detail.enclosures.len() {
        0 => {
            state.status.info("This entry has no media", now);
            Vec::new()
        }
        1 => {
            let url = view.detail.enclosures[0].url.clone();
            play(state, url)
        }
        n => {
            state.dialog = Some(Dialog::Prompt(Prompt::new(
                "Play a media file",
                &format!(
                    "the number of the file to play, 1 to {n}{}",
                    state.keymap.say(Context::General, Action::ToggleDetails, " ({} lists them in the header)")
                ),
                "",
                PromptPurpose::PlayMedia,
            )));
            Vec::new()
        }
    }
}

/// Plays the enclosure at `url`: its downloaded file when it is on disk (not streamed again, as the downloads
/// view plays it), else the address.
fn play(state: &mut State, url: String) -> Vec<Effect> {
    let done = state.downloads.rows.iter().flatten().find(|d| d.url == url && d.state == DownloadState::Done);
    match done.map(|d| d.path.clone()) {
        Some(path) => {
            let now = state.clock.now;
            state.status.info(format!("Playing {}", one_line(&path, 2000)), now);
            vec![Effect::Open { url: path, kind: OpenKind::Media }]
        }
        None => open(state, url, OpenKind::Media),
    }
}

/// The answer to the media prompt.
pub fn play_media(state: &mut State, answer: &str) -> Result<Vec<Effect>, String> {
    let media = state.article.ready().map(|a| a.detail.enclosures.as_slice()).unwrap_or_default();
    match answer.trim().parse::<usize>().ok().and_then(|n| n.checked_sub(1)).and_then(|i| media.get(i)) {
        Some(enclosure) => {
            let url = enclosure.url.clone();
            Ok(play(state, url))
        }
        None => Err(format!("type a number from 1 to {}", media.len())),
    }
}

/// Scrolls the article by `step`.
pub fn scroll_by(state: &mut State, step: Step) -> Vec<Effect> {
    let height = state.article_height();
    if let Some(view) = state.article.view.as_mut() {
        view.scroll = scroll(view.scroll, step, view.lines.len(), height);
    }
    pictures::wanted(state)
}

/// `o`: the open article's page in the article pane; the selected entry's in the entry list (it is then
/// read, as in newsboat); the feed's site in the feed list.
pub fn open_in_browser(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    let link = match state.focus {
        // The entry being opened, when keys came ahead of its article (its row has the link).
        Pane::Article => match state.article.wanted {
            Some(id) => state.entries.row_by_id(id).map(|e| e.link.clone()),
            None => state.article.view.as_ref().map(|a| a.detail.link.clone()),
        },
        Pane::Entries => state.entries.selected().map(|e| e.link.clone()),
        Pane::Feeds => state.feeds.selected_feed().map(|f| f.site_url.clone()),
    };
    match link {
        Some(Some(url)) => {
            let mut effects = open_url(state, url);
            if state.focus == Pane::Entries && !effects.is_empty() {
                effects.extend(super::marks::mark_selected_read(state));
            }
            effects
        }
        Some(None) => {
            state.status.info("It has no address to open", now);
            Vec::new()
        }
        None => {
            let says = state.keymap.say(Context::General, Action::OpenInBrowser, "; {} opens its page in the browser");
            state.status.info(format!("Select an entry first{says}"), now);
            Vec::new()
        }
    }
}

/// Asks the runtime to open `url` in the browser, unless it is of a kind tidings never hands to one.
pub fn open_url(state: &mut State, url: String) -> Vec<Effect> {
    open(state, url, OpenKind::Page)
}

fn open(state: &mut State, url: String, kind: OpenKind) -> Vec<Effect> {
    let now = state.clock.now;
    if render::openable(&url) {
        state.status.info(format!("Opening {}", one_line(&url, 2000)), now);
        vec![Effect::Open { url, kind }]
    } else {
        state.status.error(format!("not opening {}: only web and mail addresses are opened", one_line(&url, 200)), now);
        Vec::new()
    }
}

/// `f`: asks for the number of the link to follow.
pub fn ask_link(state: &mut State) -> Vec<Effect> {
    if state.article.ready().is_none_or(|a| a.rendered_width.is_none()) && state.article.entry_id().is_some() {
        // Links are numbered as the body renders: until then there are none to offer.
        let now = state.clock.now;
        state.status.info(STILL_LOADING, now);
        return Vec::new();
    }
    match state.article.ready().map(|a| a.links.len()) {
        Some(n) if n > 0 => {
            state.dialog = Some(Dialog::Prompt(Prompt::new(
                "Follow a link",
                &format!("the number of the link to open, 1 to {n} (they are listed at the end of the article)"),
                "",
                PromptPurpose::FollowLink,
            )));
        }
        _ => {
            let now = state.clock.now;
            state.status.info("This article has no links", now);
        }
    }
    Vec::new()
}

/// The answer to the link prompt: open that link, or say why not (the prompt stays open).
pub fn follow_link(state: &mut State, answer: &str) -> Result<Vec<Effect>, String> {
    let links = state.article.ready().map(|a| a.links.as_slice()).unwrap_or_default();
    let chosen = answer.trim().parse::<usize>().ok().and_then(|n| n.checked_sub(1)).and_then(|i| links.get(i));
    match chosen {
        Some(link) if link.openable => {
            let url = link.url.clone();
            Ok(open_url(state, url))
        }
        Some(link) => Err(not_opened(&link.url)),
        None => Err(format!("type a number from 1 to {}", links.len())),
    }
}

/// Why a link of the article is not opened, by its kind.
fn not_opened(url: &str) -> String {
    let scheme = url.split_once(':').map(|(s, _)| s.trim().to_ascii_lowercase()).unwrap_or_default();
    match scheme.as_str() {
        "javascript" | "vbscript" => "that link is a script, not an address; tidings never opens those".into(),
        "data" => "that link holds its content in the address itself (data:), which tidings does not open".into(),
        "file" => "that link is a file on this computer (file:); a feed may not open those".into(),
        "" => "that link has no address to open".into(),
        other => {
            let shown: String =
                other.chars().filter(|c| c.is_ascii_alphanumeric() || "+-.".contains(*c)).take(20).collect();
            format!("tidings does not open {shown}: links from a feed, only web and mail addresses")
        }
    }
}

/// The HTML body to render for an entry: its content, else its summary.
fn body_html(detail: &EntryDetail, full: bool) -> String {
    if full && let Some(html) = &detail.full_html {
        return html.clone();
    }
    detail
        .content_html
        .clone()
        .or_else(|| detail.summary_html.clone())
        .unwrap_or_else(|| "<p><i>This entry has no text; open its link to read it.</i></p>".into())
}
