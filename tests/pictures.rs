//! Pictures in the article, end to end: a feed and its pictures served by a loopback server, the real reader
//! (runtime, workers, picture service, disk cache in a temporary folder) and the real UI on ratatui's
//! TestBackend. Half-blocks are checked cell by cell against the pixels' colours; sixel and kitty by the escape
//! sequences in the cells (their size and place); pictures cut at the pane's edges; hostile pictures; the
//! entry's own picture; no stale picture after a scroll or under a dialog.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui_image::picker::ProtocolType;
use std::time::Duration;
use support::server::{Gate, Reply, Server};
use support::{Sandbox, opml};
use tidings::app::article::pictures::Known;
use tidings::app::{Event, Pane, State};
use tidings::config::Config;
use tidings::runtime::{Options, Reader};

const WAIT: Duration = Duration::from_secs(30);
const RED: Color = Color::Rgb(255, 0, 0);
const BLUE: Color = Color::Rgb(0, 0, 255);
/// Cells of 10 × 20 pixels, as a common terminal font has.
const CELL: (u16, u16) = (10, 20);

/// A PNG `width` × `height`: its left half red, its right half blue (a red and a blue square side by side).
fn squares(width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(width, height, |x, _| {
        if x < width / 2 { image::Rgb([255, 0, 0]) } else { image::Rgb([0, 0, 255]) }
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// An RSS feed of one entry whose body is `body` (and `extra` inside the item: media elements).
fn feed(body: &str, extra: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:media=\"http://search.yahoo.com/mrss/\"><channel>\
         <title>Pictures</title><link>http://example.com/</link><item><guid>p1</guid><title>With pictures</title>\
         <link>http://example.com/p1</link><pubDate>Tue, 10 Jun 2025 10:00:00 GMT</pubDate>{extra}\
         <description><![CDATA[{body}]]></description></item></channel></rss>"
    )
}

struct World {
    server: Server,
    sandbox: Sandbox,
}

/// A server with the feed at /feed.xml (its body and media elements built from the server's address), subscribed.
fn world(body: impl Fn(&Server) -> String, extra: impl Fn(&Server) -> String) -> World {
    let server = Server::start();
    server.route("/feed.xml", Reply::ok("application/rss+xml", feed(&body(&server), &extra(&server))));
    let sandbox = Sandbox::new();
    let file = sandbox.write("subs.opml", opml(&[(None, "Pictures", &server.url("/feed.xml"))]));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    World { server, sandbox }
}

/// The reader on `size`, pictures drawn with `protocol`, kept on disk in the sandbox.
fn reader(w: &World, size: (u16, u16), protocol: ProtocolType) -> Reader {
    let options = Options {
        db: w.sandbox.db(),
        config: Config { refresh_on_startup: true, refresh_interval_minutes: 0, ..Config::default() },
        notice: None,
        report: vec![],
        size,
        zone: tidings::clock::Zone::utc(),
    };
    let mut app = Reader::new(options).unwrap();
    app.set_pictures(tidings::pictures::Setup {
        picker: tidings::pictures::detect::fixed(protocol, CELL),
        cache_dir: Some(w.sandbox.path("cache")),
        cache_max_bytes: 10 * 1024 * 1024,
    });
    app
}

fn key(app: &mut Reader, code: KeyCode) {
    app.dispatch(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// Refreshes, opens the feed's entry, and waits until its body is rendered.
async fn open_entry(app: &mut Reader) {
    app.start();
    let fetched = |s: &State| {
        s.feeds.loaded
            && !s.feeds.feeds.is_empty()
            && s.feeds.feeds.iter().all(|f| f.last_fetched_at.is_some())
            && s.progress.is_idle()
    };
    app.run_until(WAIT, fetched).await.unwrap();
    for _ in 0..10 {
        if app.state.feeds.selected_feed().is_some() {
            break;
        }
        key(app, KeyCode::Char('j'));
    }
    app.run_until(WAIT, |s| s.entries.len() == 1).await.unwrap();
    key(app, KeyCode::Char('l'));
    key(app, KeyCode::Enter);
    app.run_until(WAIT, |s| s.article.view.as_ref().is_some_and(|a| a.rendered_width.is_some())).await.unwrap();
}

/// Every picture of the open article is prepared at the size it takes, or refused.
fn pictures_settled(s: &State) -> bool {
    let Some(view) = s.article.view.as_ref() else { return false };
    view.pictures.iter().all(|p| match s.pictures.known.get(&p.picture.url) {
        Some(Known::Refused(_)) => true,
        Some(Known::Ready { prepared, .. }) => p.size.is_some() && *prepared == p.size,
        _ => false,
    })
}

/// The article's text area on this screen.
fn text_area(s: &State) -> Rect {
    tidings::app::layout::article_text(s.screen().article.unwrap(), s.text_column)
}

fn row_text(buffer: &Buffer, y: u16, area: Rect) -> String {
    (area.x..area.right()).map(|x| buffer[(x, y)].symbol()).collect::<String>().trim_end().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_blocks_show_the_red_and_the_blue_square_cell_by_cell_with_the_alt_text_under_them() {
    let w = world(
        |s| {
            format!(
                "<p>Before the picture.</p><p><a href=\"{}\"><img src=\"{}\" alt=\"Two squares\" width=\"200\" \
                 height=\"100\"></a></p><p>After the picture.</p>",
                s.url("/full.png"),
                s.url("/squares.png")
            )
        },
        |_| String::new(),
    );
    w.server.route("/squares.png", Reply::ok("image/png", squares(200, 100)));
    let mut app = reader(&w, (100, 30), ProtocolType::Halfblocks);
    open_entry(&mut app).await;
    app.run_until(WAIT, pictures_settled).await.unwrap();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    app.draw(&mut terminal).unwrap();

    let view = app.state.article.view.as_ref().unwrap();
    let placed = &view.pictures[0];
    // 200 × 100 pixels in cells of 10 × 20: 20 columns, 5 rows, never wider than the picture itself.
    assert_eq!(placed.size, Some((20, 5)));
    let text = text_area(&app.state);
    let top = text.y + (placed.row - view.scroll) as u16;
    let buffer = terminal.backend().buffer();
    for y in top..top + 5 {
        for x in 0..20u16 {
            let cell = &buffer[(text.x + x, y)];
            // Each cell is two pixels tall: foreground the upper, background the lower; one colour, a space.
            let expected = match x {
                0..=8 => Some(RED),
                11..=19 => Some(BLUE),
                _ => None, // where the squares meet, the smoothing filter mixes them
            };
            if let Some(colour) = expected {
                assert_eq!((cell.fg, cell.bg), (colour, colour), "cell {x},{} of the picture", y - top);
            }
        }
        assert_eq!(buffer[(text.x + 20, y)].bg, Color::Reset, "nothing right of the picture");
    }
    assert_eq!(row_text(buffer, top - 2, text), "Before the picture.");
    assert_eq!(row_text(buffer, top + 5, text), "[Two squares][1]", "its alt text and link number under it");
    // `f 1` follows the link around the picture.
    assert_eq!(view.links[0].url, w.server.url("/full.png"));
    assert_eq!(placed.picture.link, Some(1));
    // It was fetched once, and is kept on disk for the next session.
    assert_eq!(w.server.requests_for("/squares.png").len(), 1);
    assert!(std::fs::read_dir(w.sandbox.path("cache")).unwrap().count() >= 1);
}

/// The symbol of the first cell of the picture at the top of the text area, with every cell the picture covers.
fn picture_cells(buffer: &Buffer, area: Rect) -> Vec<(u16, u16, String)> {
    let mut out = Vec::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let symbol = buffer[(x, y)].symbol();
            if symbol.contains('\u{1b}') || symbol.contains('\u{10EEEE}') {
                out.push((x, y, symbol.to_string()));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixel_and_kitty_sequences_have_the_pictures_size_and_place() {
    for protocol in [ProtocolType::Sixel, ProtocolType::Kitty] {
        let w = world(
            |s| format!("<p>Text.</p><p><img src=\"{}\" alt=\"Squares\"></p>", s.url("/squares.png")),
            |_| String::new(),
        );
        w.server.route("/squares.png", Reply::ok("image/png", squares(200, 100)));
        let mut app = reader(&w, (100, 30), protocol);
        open_entry(&mut app).await;
        app.run_until(WAIT, pictures_settled).await.unwrap();
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        app.draw(&mut terminal).unwrap();
        let view = app.state.article.view.as_ref().unwrap();
        let text = text_area(&app.state);
        let top = text.y + (view.pictures[0].row - view.scroll) as u16;
        let cells = picture_cells(terminal.backend().buffer(), terminal.backend().buffer().area);
        match protocol {
            ProtocolType::Sixel => {
                // One sequence, in the picture's top-left cell: the cells it covers erased (20 columns, 5 rows),
                // then a sixel image of 200 × 100 pixels.
                assert_eq!(cells.len(), 1, "{:?}", cells.iter().map(|c| (c.0, c.1)).collect::<Vec<_>>());
                let (x, y, sequence) = &cells[0];
                assert_eq!((*x, *y), (text.x, top));
                assert!(sequence.starts_with("\u{1b}[20X\u{1b}[1B"), "{:?}", &sequence[..40]);
                assert_eq!(sequence.matches("\u{1b}[20X").count(), 5, "five rows erased");
                assert!(
                    sequence.contains("\u{1b}Pq") || sequence.contains("\u{1b}P0;1q") || sequence.contains("\u{1b}P")
                );
                // Raster attributes: 200 pixels wide, as high as the whole bands of six pixels in 5 rows of 20.
                let raster = sequence.split('"').nth(1).and_then(|r| r.split('#').next()).unwrap_or("");
                let sizes: Vec<u32> = raster.split(';').filter_map(|n| n.parse().ok()).collect();
                assert_eq!(sizes[..3], [1, 1, 200], "{raster}");
                assert!((90..=100).contains(&sizes[3]), "{raster}");
                // Its palette: the squares' red and blue, in sixel's percentages.
                assert!(sequence.contains(";2;100;0;0") && sequence.contains(";2;0;0;100"));
                assert!(sequence.ends_with("\u{1b}\\"));
            }
            _ => {
                // The picture goes to the terminal once, in its first cell; every cell of its 20 × 5 is a
                // placeholder, the first of each row naming the row.
                let first = &cells[0];
                assert_eq!((first.0, first.1), (text.x, top));
                assert!(first.2.contains("a=T,U=1,f=32"), "a virtual placement of the pixels");
                assert!(first.2.contains("s=200,v=100"), "of 200 × 100 pixels");
                assert_eq!(cells.len(), 100, "one placeholder per cell");
                assert!(cells.iter().all(|(x, y, _)| (text.x..text.x + 20).contains(x) && (top..top + 5).contains(y)));
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_picture_partly_scrolled_out_is_cut_at_the_top_and_at_the_bottom_edge() {
    let filler: String = (0..40).map(|i| format!("<p>Line {i}.</p>")).collect();
    let w = world(
        |s| {
            format!(
                "{filler}<p><img src=\"{}\" alt=\"Squares\" width=\"200\" height=\"200\"></p>{filler}",
                s.url("/sq.png")
            )
        },
        |_| String::new(),
    );
    w.server.route("/sq.png", Reply::ok("image/png", squares(200, 200)));
    let mut app = reader(&w, (100, 30), ProtocolType::Halfblocks);
    open_entry(&mut app).await;
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let text = text_area(&app.state);
    // Scroll until the picture's top row is the pane's last row: only that row shows, above the border.
    let row = app.state.article.view.as_ref().unwrap().pictures[0].row;
    for _ in 0..(row + 1 - usize::from(text.height)) {
        key(&mut app, KeyCode::Char('j'));
    }
    app.run_until(WAIT, pictures_settled).await.unwrap();
    assert_eq!(app.state.article.view.as_ref().unwrap().pictures[0].size, Some((20, 10)));
    app.draw(&mut terminal).unwrap();
    let buffer = terminal.backend().buffer().clone();
    let bottom = text.bottom() - 1;
    assert_eq!((buffer[(text.x, bottom)].fg, buffer[(text.x + 15, bottom)].bg), (RED, BLUE), "the top row shows");
    for x in text.x..text.x + 20 {
        assert_eq!(buffer[(x, text.bottom())].bg, Color::Reset, "the pane's border below is untouched at {x}");
    }

    // Scroll on until only its last two rows show, at the top of the pane.
    for _ in 0..8 + usize::from(text.height) - 1 {
        key(&mut app, KeyCode::Char('j'));
    }
    app.draw(&mut terminal).unwrap();
    let buffer = terminal.backend().buffer().clone();
    let view = app.state.article.view.as_ref().unwrap();
    assert_eq!(view.scroll, row + 8, "two rows of ten are left");
    for y in [text.y, text.y + 1] {
        assert_eq!(buffer[(text.x + 2, y)].bg, RED, "row {y}");
        assert_eq!(buffer[(text.x + 17, y)].bg, BLUE, "row {y}");
    }
    assert_eq!(row_text(&buffer, text.y + 2, text), "[Squares]", "the alt text follows at once");
    for x in text.x..text.x + 20 {
        assert_eq!(buffer[(x, text.y - 1)].bg, Color::Reset, "nothing is drawn over the border above at {x}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_pictures_show_their_alt_text_and_the_reader_carries_on() {
    let w = world(
        |s| {
            let image = |path: &str, alt: &str| format!("<p><img src=\"{}\" alt=\"{alt}\"></p>", s.url(path));
            [
                image("/huge.png", "Huge"),
                image("/bomb.png", "Bomb"),
                image("/page.png", "Page"),
                image("/drawing.svg", "Drawing"),
                image("/gone.png", "Gone"),
                format!("<p>Tracked<img src=\"{}\" width=\"1\" height=\"1\"></p>", s.url("/pixel.gif")),
                format!("<p><img src=\"{}\" alt=\"Wide\" width=\"1\"></p>", s.url("/pixel2.gif")),
                image("/good.png", "Good"),
            ]
            .concat()
        },
        |_| String::new(),
    );
    // Over the size limit (9 MB of a PNG-looking body); a few bytes claiming 50,000 × 50,000; an HTML page; an
    // SVG with a script; a 404.
    let mut huge = squares(10, 10);
    huge.resize(9 * 1024 * 1024, 0);
    w.server.route("/huge.png", Reply::ok("image/png", huge));
    w.server.route("/bomb.png", Reply::ok("image/png", bomb_png()));
    w.server.route("/page.png", Reply::ok("image/png", "<html><body>not a picture</body></html>"));
    w.server.route(
        "/drawing.svg",
        Reply::ok("image/svg+xml", "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>"),
    );
    w.server.route("/good.png", Reply::ok("image/png", squares(100, 40)));
    let mut app = reader(&w, (100, 40), ProtocolType::Halfblocks);
    open_entry(&mut app).await;
    // Scroll through the article so that every picture is asked for.
    for _ in 0..60 {
        key(&mut app, KeyCode::Char('j'));
    }
    app.run_until(WAIT, |s| pictures_settled(s) && s.pictures.known.len() == 6).await.unwrap();
    let why = |path: &str| match app.state.pictures.known.get(&w.server.url(path)) {
        Some(Known::Refused(why)) => why.clone(),
        other => panic!("{path}: {other:?}"),
    };
    assert!(why("/huge.png").contains("larger than 8 MB"), "{}", why("/huge.png"));
    assert!(why("/bomb.png").contains("50000 × 50000"), "{}", why("/bomb.png"));
    assert!(why("/page.png").contains("not a picture"), "{}", why("/page.png"));
    assert!(why("/drawing.svg").contains("SVG drawing with a script"), "{}", why("/drawing.svg"));
    assert!(why("/gone.png").contains("HTTP 404"), "{}", why("/gone.png"));
    assert!(matches!(app.state.pictures.known.get(&w.server.url("/good.png")), Some(Known::Ready { .. })));
    // Tracking pixels are neither fetched nor shown.
    assert!(w.server.requests_for("/pixel.gif").is_empty() && w.server.requests_for("/pixel2.gif").is_empty());
    // The refused ones take no room: their alt text shows, each on the line after the one before.
    key(&mut app, KeyCode::Char('g'));
    let mut terminal = Terminal::new(TestBackend::new(100, 40)).unwrap();
    app.draw(&mut terminal).unwrap();
    let screen = support::screen(terminal.backend());
    for alt in ["[Huge]", "[Bomb]", "[Page]", "[Drawing]", "[Gone]", "[Good]"] {
        assert!(screen.contains(alt), "{alt} in\n{screen}");
    }
    assert!(screen.contains("Tracked") && !screen.contains("Tracked [image]"), "{screen}");
    let view = app.state.article.view.as_ref().unwrap();
    assert_eq!(view.pictures.iter().filter(|p| p.size.is_some()).count(), 1, "only the good one takes rows");
    // And the reader carries on.
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.state.focus, Pane::Entries);
}

/// A PNG of a few dozen bytes whose valid header claims 50,000 × 50,000 pixels.
fn bomb_png() -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for b in bytes {
            crc ^= u32::from(*b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend(50_000u32.to_be_bytes());
    ihdr.extend(50_000u32.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]);
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend(13u32.to_be_bytes());
    bytes.extend(&ihdr);
    bytes.extend(crc32(&ihdr).to_be_bytes());
    bytes.extend(0u32.to_be_bytes());
    bytes.extend(b"IDAT");
    bytes.extend(crc32(b"IDAT").to_be_bytes());
    bytes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_entrys_own_picture_shows_at_the_top_when_the_body_has_none() {
    let w =
        world(|_| "<p>Just words.</p>".to_string(), |s| format!("<media:thumbnail url=\"{}\"/>", s.url("/thumb.png")));
    w.server.route("/thumb.png", Reply::ok("image/png", squares(120, 60)));
    let mut app = reader(&w, (100, 30), ProtocolType::Halfblocks);
    open_entry(&mut app).await;
    app.run_until(WAIT, pictures_settled).await.unwrap();
    let view = app.state.article.view.as_ref().unwrap();
    assert_eq!(view.pictures.len(), 1);
    assert_eq!(view.pictures[0].picture.url, w.server.url("/thumb.png"));
    assert_eq!(view.pictures[0].size, Some((12, 3)));
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    app.draw(&mut terminal).unwrap();
    let text = text_area(&app.state);
    let top = text.y + view.pictures[0].row as u16;
    assert_eq!(terminal.backend().buffer()[(text.x, top)].bg, RED, "above the body's first line");
    assert_eq!(row_text(terminal.backend().buffer(), top + 3, text), "Just words.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_picture_that_arrives_above_the_view_does_not_move_what_the_reader_looks_at() {
    let filler: String = (0..60).map(|i| format!("<p>Line {i}.</p>")).collect();
    let w = world(|s| format!("<p><img src=\"{}\" alt=\"Late\"></p>{filler}", s.url("/late.png")), |_| String::new());
    let gate = Gate::default();
    w.server.route("/late.png", Reply::Held(gate.clone(), Box::new(Reply::ok("image/png", squares(200, 100)))));
    let mut app = reader(&w, (100, 30), ProtocolType::Halfblocks);
    open_entry(&mut app).await;
    // The text is there at once; the picture has no size yet, so no rows.
    assert!(matches!(app.state.pictures.known.get(&w.server.url("/late.png")), Some(Known::Loading)));
    for _ in 0..20 {
        key(&mut app, KeyCode::Char('j'));
    }
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let text = text_area(&app.state);
    app.draw(&mut terminal).unwrap();
    let before = row_text(terminal.backend().buffer(), text.y, text);
    gate.open();
    let url = w.server.url("/late.png");
    app.run_until(WAIT, |s| matches!(s.pictures.known.get(&url), Some(Known::Ready { .. }))).await.unwrap();
    app.draw(&mut terminal).unwrap();
    assert_eq!(row_text(terminal.backend().buffer(), text.y, text), before, "the same line at the top");
    assert_eq!(app.state.article.view.as_ref().unwrap().pictures[0].size, Some((20, 5)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_sixel_picture_is_left_behind_after_a_scroll_a_dialog_or_ctrl_z() {
    let filler: String = (0..30).map(|i| format!("<p>Line {i}.</p>")).collect();
    let w = world(
        |s| format!("<p>Top.</p><p><img src=\"{}\" alt=\"Sq\"></p>{filler}", s.url("/sq.png")),
        |_| String::new(),
    );
    w.server.route("/sq.png", Reply::ok("image/png", squares(200, 100)));
    let mut app = reader(&w, (100, 30), ProtocolType::Sixel);
    open_entry(&mut app).await;
    app.run_until(WAIT, pictures_settled).await.unwrap();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    app.draw(&mut terminal).unwrap();
    let text = text_area(&app.state);
    let top = {
        let view = app.state.article.view.as_ref().unwrap();
        text.y + (view.pictures[0].row - view.scroll) as u16
    };
    // One line down: the picture is drawn a row higher, and its old last row is erased (ECH over its width)
    // before the text there is written again.
    key(&mut app, KeyCode::Char('j'));
    app.draw(&mut terminal).unwrap();
    let buffer = terminal.backend().buffer();
    assert!(buffer[(text.x, top - 1)].symbol().contains("\u{1b}P"), "the picture a row higher");
    assert!(buffer[(text.x, top + 4)].symbol().starts_with("\u{1b}[20X"), "its old last row erased");

    // A dialog on top: no picture under it, and its rows erased.
    key(&mut app, KeyCode::Char('?'));
    app.draw(&mut terminal).unwrap();
    let cells = picture_cells(terminal.backend().buffer(), text);
    assert!(cells.iter().all(|(_, _, s)| !s.contains("\u{1b}P")), "no picture under the dialog");
    assert_eq!(cells.iter().filter(|(_, _, s)| s.starts_with("\u{1b}[20X")).count(), 5, "its five rows erased");
    key(&mut app, KeyCode::Char('?'));
    app.draw(&mut terminal).unwrap();
    assert!(picture_cells(terminal.backend().buffer(), text).iter().any(|(_, _, s)| s.contains("\u{1b}P")));

    // Ctrl-Z and fg: the pictures are prepared again, then drawn again.
    let mut host = tidings::runtime::NoHost::default();
    let inbox = app.sender();
    inbox.send(Event::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL))).unwrap();
    inbox.send(Event::Key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE))).unwrap();
    app.run(&mut terminal, &mut host).await.unwrap();
    assert_eq!(host.suspended, 1);
    assert!(app.state.pictures.known.values().all(|k| !matches!(k, Known::Ready { prepared: Some(_), .. })));
    app.run_until(WAIT, pictures_settled).await.unwrap();
    app.draw(&mut terminal).unwrap();
    assert!(picture_cells(terminal.backend().buffer(), text).iter().any(|(_, _, s)| s.contains("\u{1b}P")));
}

/// The number kitty was given for the picture sent in `buffer` (from its `a=T` command), if one was sent.
fn kitty_sent(buffer: &Buffer) -> Option<u32> {
    let sent = picture_cells(buffer, buffer.area).into_iter().find(|(_, _, s)| s.contains("a=T,"))?.2;
    let id = sent.split("_Gq=2,i=").nth(1)?.split(',').next()?;
    id.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kitty_picture_off_the_screen_is_deleted_from_the_terminal_and_sent_again_when_it_comes_back() {
    let filler: String = (0..60).map(|i| format!("<p>Line {i}.</p>")).collect();
    let w = world(
        |s| format!("<p>Top.</p><p><img src=\"{}\" alt=\"Sq\"></p>{filler}", s.url("/sq.png")),
        |_| String::new(),
    );
    w.server.route("/sq.png", Reply::ok("image/png", squares(200, 100)));
    let url = w.server.url("/sq.png");
    let mut app = reader(&w, (100, 30), ProtocolType::Kitty);
    open_entry(&mut app).await;
    app.run_until(WAIT, pictures_settled).await.unwrap();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    app.draw(&mut terminal).unwrap();
    let id = kitty_sent(terminal.backend().buffer()).expect("the picture sent to kitty");
    let delete = format!("\u{1b}_Ga=d,d=I,i={id},q=2\u{1b}\\");
    let first_cell = |t: &Terminal<TestBackend>| t.backend().buffer()[(0, 0)].symbol().to_string();
    assert!(!first_cell(&terminal).contains("_Ga=d"), "nothing deleted while it is on screen");

    // Scrolled until it is off the screen: the frame that no longer shows it deletes it (data and placement),
    // once.
    let (row, size) = {
        let view = app.state.article.view.as_ref().unwrap();
        (view.pictures[0].row, view.pictures[0].size.unwrap())
    };
    while app.state.article.view.as_ref().unwrap().scroll < row + usize::from(size.1) {
        key(&mut app, KeyCode::Char('j'));
    }
    app.draw(&mut terminal).unwrap();
    assert!(first_cell(&terminal).starts_with(&delete), "{:?}", first_cell(&terminal));
    assert_eq!(first_cell(&terminal).matches("_Ga=d").count(), 1);
    assert!(kitty_sent(terminal.backend().buffer()).is_none());
    key(&mut app, KeyCode::Char('j'));
    app.draw(&mut terminal).unwrap();
    assert!(!first_cell(&terminal).contains("_Ga=d"), "deleted once");

    // Back on screen: prepared again meanwhile, and sent again under a new number.
    let shelf = app.pictures().unwrap().shelf();
    while shelf.get(&url, size).is_none() {
        let event = tokio::time::timeout(WAIT, app.next_event()).await.expect("prepared again").unwrap();
        app.dispatch(event);
    }
    key(&mut app, KeyCode::Char('g'));
    app.draw(&mut terminal).unwrap();
    let again = kitty_sent(terminal.backend().buffer()).expect("sent again");
    assert_ne!(again, id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pictures_arriving_inside_and_above_the_view_leave_its_top_lines_where_they_are() {
    let lines = |from: usize, to: usize| -> String { (from..to).map(|i| format!("<p>Line {i}.</p>")).collect() };
    let w = world(
        |s| {
            format!(
                "{}<p><img src=\"{}\" alt=\"Above\"></p>{}<p><img src=\"{}\" alt=\"Inside\"></p>{}",
                lines(0, 20),
                s.url("/above.png"),
                lines(20, 40),
                s.url("/inside.png"),
                lines(40, 80)
            )
        },
        |_| String::new(),
    );
    let (above, inside) = (Gate::default(), Gate::default());
    w.server.route("/above.png", Reply::Held(above.clone(), Box::new(Reply::ok("image/png", squares(200, 100)))));
    w.server.route("/inside.png", Reply::Held(inside.clone(), Box::new(Reply::ok("image/png", squares(200, 200)))));
    let mut app = reader(&w, (100, 30), ProtocolType::Halfblocks);
    open_entry(&mut app).await;
    // Scrolled so that "Line 35." is at the top: the first picture's place is above, the second's inside.
    let top_is = |s: &State, text: &str| {
        let view = s.article.view.as_ref().unwrap();
        view.lines[view.scroll].iter().any(|span| span.text.contains(text))
    };
    while !top_is(&app.state, "Line 35.") {
        key(&mut app, KeyCode::Char('j'));
    }
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let text = text_area(&app.state);
    app.draw(&mut terminal).unwrap();
    let screen = |t: &Terminal<TestBackend>| -> Vec<String> {
        (text.y..text.bottom()).map(|y| row_text(t.backend().buffer(), y, text)).collect()
    };
    let before = screen(&terminal);
    assert_eq!(before[0], "Line 35.");
    let inside_at = before.iter().position(|l| l.contains("[Inside]")).expect("the second picture's place on screen");

    // The picture inside the view arrives: the lines above it stay, it takes the rows from its place.
    inside.open();
    let url = w.server.url("/inside.png");
    app.run_until(WAIT, |s| matches!(s.pictures.known.get(&url), Some(Known::Ready { prepared: Some(_), .. })))
        .await
        .unwrap();
    app.draw(&mut terminal).unwrap();
    let now = screen(&terminal);
    assert_eq!(now[..inside_at], before[..inside_at], "every line above the picture where it was");
    assert_eq!(terminal.backend().buffer()[(text.x, text.y + inside_at as u16)].fg, RED, "the picture in its place");

    // The one above arrives: nothing on screen moves.
    above.open();
    let url = w.server.url("/above.png");
    app.run_until(WAIT, |s| matches!(s.pictures.known.get(&url), Some(Known::Ready { .. }))).await.unwrap();
    app.draw(&mut terminal).unwrap();
    assert_eq!(screen(&terminal)[..inside_at], before[..inside_at], "the view did not move");
    assert_eq!(screen(&terminal)[0], "Line 35.");
}

/// A PNG of `width` × `height` grey pixels.
fn grey(width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_pixel(width, height, image::Rgb([128, 128, 128]));
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_photo_written_with_an_empty_alt_is_drawn_with_no_image_line_and_a_pixel_is_not() {
    // As WordPress and Ghost write them: no figure, alt="", no size declared; a 1 × 1 pixel with no size
    // declared either; and a photo that is gone.
    let w = world(
        |s| {
            format!(
                "<p>Before the photo.</p><p><img src=\"{}\" alt=\"\"></p><p>After the photo.</p>\
                 <p><img src=\"{}\" alt=\"\"></p><p>After the pixel.</p><p><img src=\"{}\" alt=\"\"></p>",
                s.url("/photo.png"),
                s.url("/pixel.png"),
                s.url("/gone.png")
            )
        },
        |_| String::new(),
    );
    w.server.route("/photo.png", Reply::ok("image/png", squares(200, 100)));
    w.server.route("/pixel.png", Reply::ok("image/png", grey(1, 1)));
    let mut app = reader(&w, (100, 40), ProtocolType::Halfblocks);
    open_entry(&mut app).await;
    // Every picture answered (the pixel takes no rows, so it is never prepared), the photo prepared.
    let settled = |s: &State| {
        let photo = s.article.view.as_ref().and_then(|v| v.pictures.first());
        s.pictures.known.len() == 3
            && s.pictures.known.values().all(|k| !matches!(k, Known::Loading))
            && photo.is_some_and(|p| {
                matches!(s.pictures.known.get(&p.picture.url), Some(Known::Ready { prepared: Some(_), .. }))
            })
    };
    app.run_until(WAIT, settled).await.unwrap();
    let mut terminal = Terminal::new(TestBackend::new(100, 40)).unwrap();
    app.draw(&mut terminal).unwrap();

    let view = app.state.article.view.as_ref().unwrap();
    let sizes: Vec<Option<(u16, u16)>> = view.pictures.iter().map(|p| p.size).collect();
    assert_eq!(sizes, [Some((20, 5)), None, None], "the photo is drawn; the pixel and the gone one are not");
    // The photo is drawn in half-blocks, in red and blue, right under the text before it.
    let text = text_area(&app.state);
    let top = text.y + (view.pictures[0].row - view.scroll) as u16;
    let buffer = terminal.backend().buffer();
    assert_eq!(row_text(buffer, top - 2, text), "Before the photo.");
    assert_eq!((buffer[(text.x, top)].fg, buffer[(text.x + 19, top + 4)].bg), (RED, BLUE));
    // No `[image]` line under the drawn photo, none for the pixel; the gone photo's stands in for it.
    assert_eq!(row_text(buffer, top + 5, text), "", "the paragraph's gap, then the text after it");
    assert_eq!(row_text(buffer, top + 6, text), "After the photo.");
    let screen = support::screen(terminal.backend());
    assert_eq!(screen.matches("[image]").count(), 1, "{screen}");
    assert!(screen.contains("After the pixel."), "{screen}");
    assert_eq!(w.server.requests_for("/pixel.png").len(), 1, "fetched: only its real size could tell");
    // Why the gone one is not shown is in the message log (L), not only in the log file.
    let gone = w.server.url("/gone.png");
    let logged = app.state.status.log.iter().map(|m| m.text.clone()).collect::<Vec<_>>();
    assert!(
        logged.iter().any(|m| m.contains(&gone) && m.contains("not shown") && m.contains("HTTP 404")),
        "{logged:?}"
    );
}
