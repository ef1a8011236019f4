//! README's screenshot, `docs/screenshot.svg`, is the real reader: `ui::draw` on ratatui's TestBackend, from a
//! state built by the real `app::update` with the sample subscriptions (`assets/sample.opml`, read by the real
//! OPML parser) and an article laid out by the real renderer; only the entries are made up (no test reaches
//! the internet). Each cell becomes SVG text with its colours. The test fails when the committed picture is not
//! what the reader draws; `TIDINGS_BLESS=1 cargo test --test screenshot` writes it again.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use tidings::app::{Event, ListKey, Setup, State, WriteId, update};
use tidings::model::{
    EntryDetail, EntryId, EntryRef, EntryRow, FeedId, FeedRow, FolderId, FolderRow, Sort, ViewCounts,
};
use tidings::ui::Theme;

const FILE: &str = "docs/screenshot.svg";
/// 2026-03-02 09:30 UTC: the clock the picture is drawn at.
const NOW: i64 = 1_772_443_800;
const SIZE: (u16, u16) = (120, 30);
/// A cell, in pixels, at the picture's 14-pixel monospace font.
const CELL: (f32, u16) = (8.4, 18);
/// The terminal's own colours, where a style says "default".
const FOREGROUND: &str = "#d0d0d0";
const BACKGROUND: &str = "#1c1c1c";

const TITLES: [&str; 7] = [
    "Announcing a faster compiler for the new year",
    "What the 2026 survey told us",
    "Async closures are stable",
    "Inside the new trait solver",
    "Call for testing: the new lint levels",
    "Security advisory for the standard library",
    "A retrospective on the 2025 edition",
];

const ARTICLE: &str = "<p>Every year the <b>compiler team</b> looks at where the time of a build goes. This year \
    most of it went to <a href=\"https://blog.rust-lang.org/\">code generation</a>, so that is where the work \
    went.</p><h2>What changed</h2><ul><li>Parallel front end by default</li><li>Fewer copies of generic \
    code</li><li>Incremental builds that skip unchanged crates</li></ul><pre>cargo build --timings</pre>\
    <blockquote>Measure first, then make it fast.</blockquote><p>Try it on your own crates and tell us how it \
    went.</p>";

#[test]
fn the_screenshot_is_what_the_reader_draws() {
    let svg = svg(&draw(&reader()));
    assert!(svg.len() < 60_000, "the screenshot grew to {} bytes; keep it small", svg.len());
    let committed = std::fs::read_to_string(FILE).unwrap_or_default();
    if std::env::var_os("TIDINGS_BLESS").is_some() && committed != svg {
        std::fs::write(FILE, &svg).unwrap();
        return;
    }
    assert!(
        committed == svg,
        "{FILE} is not what the reader draws: run `TIDINGS_BLESS=1 cargo test --test screenshot` and commit it"
    );
}

/// The sample subscriptions in the feed list, the first feed's entries, the first entry open.
fn reader() -> State {
    let opml = std::fs::read_to_string("assets/sample.opml").unwrap();
    let doc = tidings::opml::parse(&opml).unwrap();
    let folders: Vec<FolderRow> = doc
        .folders
        .iter()
        .enumerate()
        .map(|(i, path)| FolderRow {
            id: FolderId(100 + i as i64),
            name: path.last().cloned().unwrap_or_default(),
            parent: None,
            collapsed: false,
        })
        .collect();
    let feeds: Vec<FeedRow> = doc
        .feeds
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let folder = folders.iter().find(|d| f.folder.last() == Some(&d.name));
            feed_row(FeedId(i as i64 + 1), f.name.clone().unwrap_or_default(), &f.url, folder)
        })
        .collect();
    let unread = feeds.iter().map(|f| f.unread).sum();
    let mut s = State::new(Setup::default(), SIZE);
    update(&mut s, Event::Tick(NOW));
    let views = ViewCounts { all: 214, unread, starred: 3 };
    update(&mut s, Event::FeedsLoaded { feeds, folders, views, seen: WriteId::NONE });
    while s.feeds.selected_list() != Some(ListKey::Feed(FeedId(1))) {
        press(&mut s, KeyCode::Char('j'));
    }
    let rows = entries();
    let refs = rows.iter().map(|e| EntryRef { id: e.id, feed_id: e.feed_id, read: e.read, starred: e.starred });
    let list = ListKey::Feed(FeedId(1));
    let order = (Sort::Newest, false);
    let (seen, keep) = (WriteId::NONE, None);
    update(&mut s, Event::EntriesLoaded { list, refs: refs.collect(), rows, order, keep, seen });
    press(&mut s, KeyCode::Char('l'));
    press(&mut s, KeyCode::Enter);
    update(&mut s, Event::ArticleLoaded { entry_id: EntryId(1000), detail: Some(Box::new(detail())) });
    let width = s.article_width();
    let body = tidings::render::render_article(ARTICLE, usize::from(width), Some("https://blog.rust-lang.org/"));
    update(&mut s, Event::ArticleRendered { entry_id: EntryId(1000), width, body: Ok(body) });
    s
}

fn press(s: &mut State, code: KeyCode) {
    update(s, Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn feed_row(id: FeedId, title: String, url: &str, folder: Option<&FolderRow>) -> FeedRow {
    FeedRow {
        id,
        url: url.to_string(),
        title,
        site_url: None,
        folder_id: folder.map(|f| f.id),
        folder: folder.map(|f| f.name.clone()),
        unread: [7, 12, 30, 4, 18, 2][(id.0 as usize - 1) % 6],
        last_status: Some(200),
        last_error: None,
        error_kind: None,
        last_fetched_at: Some(NOW - 600),
        encoding_overridden: false,
        encoding_forced: None,
        retry_at: None,
        dead: false,
        paused: false,
        moved_to: None,
        full_text: false,
        account: None,
        hidden: false,
        content_of: url.to_string(),
    }
}

fn entries() -> Vec<EntryRow> {
    let entry = |(i, title): (usize, &&str)| EntryRow {
        id: EntryId(1000 + i as i64),
        feed_id: FeedId(1),
        title: Some(title.to_string()),
        link: Some(format!("https://blog.rust-lang.org/2026/post-{i}.html")),
        date: NOW - 3600 - 86_400 * 3 * i as i64,
        read: i >= 5,
        starred: i == 2,
    };
    TITLES.iter().enumerate().map(entry).collect()
}

fn detail() -> EntryDetail {
    EntryDetail {
        id: EntryId(1000),
        feed_id: FeedId(1),
        feed_title: "Rust Blog".into(),
        title: Some(TITLES[0].into()),
        link: Some("https://blog.rust-lang.org/2026/post-0.html".into()),
        author: Some("The Compiler Team".into()),
        published_at: Some(NOW - 3600),
        updated_at: None,
        content_html: Some(ARTICLE.into()),
        summary_html: None,
        read: true,
        starred: false,
        categories: vec!["compiler".into()],
        enclosures: vec![],
        comments: None,
        thumbnail: None,
        full_html: None,
        full_error: None,
    }
}

fn draw(s: &State) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).unwrap();
    terminal.draw(|f| tidings::ui::draw(f, s, &Theme::default())).unwrap();
    terminal.backend().buffer().clone()
}

/// One row's cells of one style: where they start, how many columns, and their text.
struct Run {
    x: u16,
    columns: u16,
    text: String,
    fg: String,
    bg: Option<String>,
    modifier: Modifier,
}

/// The buffer as SVG: a rectangle per run with a background, a `<text>` per run with letters in it.
fn svg(buffer: &Buffer) -> String {
    let (width, height) = (f32::from(SIZE.0) * CELL.0, SIZE.1 * CELL.1);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height}\" \
         font-family=\"DejaVu Sans Mono,Menlo,Consolas,monospace\" font-size=\"14\" xml:space=\"preserve\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"{BACKGROUND}\"/>\n"
    );
    for y in 0..SIZE.1 {
        let top = y * CELL.1;
        for run in runs(buffer, y) {
            let left = f32::from(run.x) * CELL.0;
            if let Some(bg) = &run.bg {
                let w = f32::from(run.columns) * CELL.0;
                out.push_str(&format!(
                    "<rect x=\"{left:.1}\" y=\"{top}\" width=\"{w:.1}\" height=\"{}\" fill=\"{bg}\"/>\n",
                    CELL.1
                ));
            }
            if run.text.trim().is_empty() {
                continue;
            }
            // Each run is held to its cells, so a font a little wider or narrower than the terminal's cannot
            // push the panes out of line.
            let text = run.text.trim_end();
            let length = unicode_width::UnicodeWidthStr::width(text) as f32 * CELL.0;
            let mut attributes = format!(
                "x=\"{left:.1}\" y=\"{}\" fill=\"{}\" textLength=\"{length:.1}\" lengthAdjust=\"spacingAndGlyphs\"",
                top + 14,
                run.fg
            );
            if run.modifier.contains(Modifier::BOLD) {
                attributes.push_str(" font-weight=\"bold\"");
            }
            if run.modifier.contains(Modifier::ITALIC) {
                attributes.push_str(" font-style=\"italic\"");
            }
            if run.modifier.contains(Modifier::UNDERLINED) {
                attributes.push_str(" text-decoration=\"underline\"");
            }
            if run.modifier.contains(Modifier::DIM) {
                attributes.push_str(" opacity=\"0.6\"");
            }
            out.push_str(&format!("<text {attributes}>{}</text>\n", escaped(text)));
        }
    }
    out.push_str("</svg>\n");
    out
}

/// A row's cells gathered into runs of one style (reversed cells with their colours swapped).
fn runs(buffer: &Buffer, y: u16) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut x = 0;
    while x < SIZE.0 {
        let cell = &buffer[(x, y)];
        let style = cell.style();
        let (mut fg, mut bg) = (colour(style.fg).unwrap_or(FOREGROUND.into()), colour(style.bg));
        let modifier = style.add_modifier - style.sub_modifier;
        if modifier.contains(Modifier::REVERSED) {
            (fg, bg) = (bg.unwrap_or(BACKGROUND.into()), Some(fg));
        }
        let modifier = modifier - Modifier::REVERSED;
        let columns = unicode_width::UnicodeWidthStr::width(cell.symbol()).max(1) as u16;
        match runs.last_mut() {
            Some(run) if run.fg == fg && run.bg == bg && run.modifier == modifier => {
                run.text.push_str(cell.symbol());
                run.columns += columns;
            }
            _ => runs.push(Run { x, columns, text: cell.symbol().to_string(), fg, bg, modifier }),
        }
        x += columns;
    }
    runs
}

/// A style's colour as the picture writes it; `None` for the terminal's default.
fn colour(colour: Option<Color>) -> Option<String> {
    let named = |hex: &str| Some(hex.to_string());
    match colour? {
        Color::Reset => None,
        Color::Black => named("#000000"),
        Color::Red => named("#cd3131"),
        Color::Green => named("#0dbc79"),
        Color::Yellow => named("#e5e510"),
        Color::Blue => named("#2472c8"),
        Color::Magenta => named("#bc3fbc"),
        Color::Cyan => named("#11a8cd"),
        Color::Gray => named("#c0c0c0"),
        Color::DarkGray => named("#666666"),
        Color::LightRed => named("#f14c4c"),
        Color::LightGreen => named("#23d18b"),
        Color::LightYellow => named("#f5f543"),
        Color::LightBlue => named("#3b8eea"),
        Color::LightMagenta => named("#d670d6"),
        Color::LightCyan => named("#29b8db"),
        Color::White => named("#ffffff"),
        Color::Rgb(r, g, b) => Some(format!("#{r:02x}{g:02x}{b:02x}")),
        Color::Indexed(n) => Some(format!("#{n:02x}{n:02x}{n:02x}")),
    }
}

fn escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
