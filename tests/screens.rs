//! Whole-screen snapshots of every pane and dialog, drawn by the real `ui::draw` on ratatui's TestBackend from
//! states built by the real `app::update`, at several terminal sizes, with a fixed clock and time zone (UTC).
//! A change to any screen shows up here as a snapshot diff (`tests/snapshots/screens__*.snap`).
//!
//! A snapshot holds what a person sees: the characters (a wide character once, as wide as it is drawn), then
//! the styles — one letter per cell, each letter a distinct style named in a legend (colours, bold, reversed…),
//! `.` for the terminal's default — so a swapped selection colour or a lost bold is a diff too.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tidings::app::{Event, ListKey, Setup, State, update};
use tidings::model::{
    Discovery, EntryDetail, EntryId, EntryRef, EntryRow, ErrorKind, FeedId, FeedInfo, FeedKind, FeedRow, FolderId,
    FolderRow, Found, RefreshEvent, Sort, ViewCounts,
};
use tidings::ui::Theme;

/// 2025-06-15 14:13:20 UTC.
const NOW: i64 = 1_750_000_400;

/// The sizes every main screen is drawn at: three panes, two panes, one pane.
const SIZES: [(u16, u16); 3] = [(160, 40), (80, 24), (50, 20)];

fn key(s: &mut State, c: char) {
    update(s, Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)));
}

fn code(s: &mut State, code: KeyCode) {
    update(s, Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn feed(id: i64, title: &str, unread: i64, folder: Option<(i64, &str)>) -> FeedRow {
    FeedRow {
        id: FeedId(id),
        url: format!("https://example.com/{id}/feed.xml"),
        title: title.into(),
        site_url: Some(format!("https://example.com/{id}/")),
        folder_id: folder.map(|f| FolderId(f.0)),
        folder: folder.map(|f| f.1.to_string()),
        unread,
        last_status: Some(200),
        last_error: None,
        error_kind: None,
        last_fetched_at: Some(NOW - 600),
        encoding_overridden: false,
        encoding_forced: None,
        retry_at: None,
        dead: false,
        full_text: false,
        account: None,
        hidden: false,
        paused: false,
        moved_to: None,
        content_of: format!("https://example.com/{id}/feed.xml"),
    }
}

fn entries() -> Vec<EntryRow> {
    let titles = [
        "Rust 2026 roadmap: what the compiler team is planning next",
        "A terminal feed reader that decodes every encoding",
        "東京の天気: 晴れ時々曇り",
        "Why HTTP caching still matters in 2026",
        "Short one",
    ];
    titles
        .iter()
        .enumerate()
        .map(|(i, t)| EntryRow {
            id: EntryId(100 + i as i64),
            feed_id: FeedId(1),
            title: Some(t.to_string()),
            link: Some(format!("https://example.com/1/post-{i}.html")),
            date: NOW - 86_400 * i as i64,
            read: i >= 3,
            starred: i == 1,
        })
        .collect()
}

/// A reader with feeds in a folder, an erroring feed, a waiting feed and the first feed's entries.
fn reader(size: (u16, u16)) -> State {
    let mut s = State::new(Setup::default(), size);
    update(&mut s, Event::Tick(NOW));
    let mut failing = feed(3, "Broken Feed", 0, None);
    failing.last_error = Some("HTTP 404 (not found; the feed may have moved)".into());
    failing.error_kind = Some(ErrorKind::Http);
    let mut waiting = feed(5, "Busy Server", 0, Some((7, "News")));
    waiting.retry_at = Some(NOW + 1800);
    let mut cyrillic = feed(6, "Новости дня", 4, Some((7, "News")));
    cyrillic.encoding_overridden = true;
    update(
        &mut s,
        Event::FeedsLoaded {
            feeds: vec![
                feed(1, "Planet Rust", 3, None),
                FeedRow { full_text: true, ..feed(2, "A feed with a rather long title that will not fit", 12, None) },
                failing,
                feed(4, "World News", 25, Some((7, "News"))),
                waiting,
                cyrillic,
            ],
            folders: vec![FolderRow { id: FolderId(7), name: "News".into(), parent: None, collapsed: false }],
            views: ViewCounts { all: 120, unread: 44, starred: 2 },
            seen: tidings::app::WriteId::NONE,
        },
    );
    // Feed 1 selected, its entries shown.
    while s.feeds.selected_list() != Some(ListKey::Feed(FeedId(1))) {
        key(&mut s, 'j');
    }
    let rows = entries();
    let refs =
        rows.iter().map(|e| EntryRef { id: e.id, feed_id: e.feed_id, read: e.read, starred: e.starred }).collect();
    let order = (Sort::Newest, false);
    update(
        &mut s,
        Event::EntriesLoaded {
            list: ListKey::Feed(FeedId(1)),
            refs,
            rows,
            order,
            keep: None,
            seen: tidings::app::WriteId::NONE,
        },
    );
    s
}

fn detail() -> EntryDetail {
    EntryDetail {
        id: EntryId(100),
        feed_id: FeedId(1),
        feed_title: "Planet Rust".into(),
        title: Some("Rust 2026 roadmap: what the compiler team is planning next".into()),
        link: Some("https://example.com/1/post-0.html".into()),
        author: Some("Ann Author".into()),
        published_at: Some(NOW - 3600),
        updated_at: None,
        content_html: Some(
            "<p>The <b>compiler team</b> met in <a href=\"https://example.com/meeting-notes/2026/06/compiler-team-planning-session.html\">June</a> \
             to plan the year.</p><h2>Highlights</h2><ul><li>Faster builds</li><li>Better errors</li></ul>\
             <pre>fn main() {\n    println!(\"hello\");\n}</pre><blockquote>We ship when it is ready.</blockquote>"
                .into(),
        ),
        summary_html: None,
        read: true,
        starred: false,
        categories: vec!["rust".into(), "compilers".into()],
        enclosures: vec![],
        comments: None,
        thumbnail: None,
        full_html: None,
        full_error: None,
    }
}

fn with_article(mut s: State) -> State {
    key(&mut s, 'l');
    code(&mut s, KeyCode::Enter);
    update(&mut s, Event::ArticleLoaded { entry_id: EntryId(100), detail: Some(Box::new(detail())) });
    let width = s.article_width();
    let html = detail().content_html.unwrap();
    let body = tidings::render::render_article(&html, usize::from(width), detail().link.as_deref());
    update(&mut s, Event::ArticleRendered { entry_id: EntryId(100), width, body: Ok(body) });
    s
}

fn draw(s: &State) -> String {
    let (width, height) = s.viewport;
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| tidings::ui::draw(f, s, &Theme::default())).unwrap();
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    let mut styles = String::new();
    let mut legend: Vec<(String, char)> = Vec::new();
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for y in 0..height {
        let (mut line, mut marks) = (String::new(), String::new());
        let mut x = 0;
        while x < width {
            let cell = &buffer[(x, y)];
            let symbol = cell.symbol();
            line.push_str(symbol);
            let style = describe(cell.style());
            let mark = if style == "default" {
                '.'
            } else {
                match legend.iter().find(|(known, _)| *known == style) {
                    Some((_, letter)) => *letter,
                    None => {
                        let letter = LETTERS.chars().nth(legend.len()).unwrap_or('?');
                        legend.push((style, letter));
                        letter
                    }
                }
            };
            // A wide character covers the next cell too: it is written once, and its style once per cell.
            let cells = unicode_width::UnicodeWidthStr::width(symbol).max(1) as u16;
            for _ in 0..cells.min(width - x) {
                marks.push(mark);
            }
            x += cells;
        }
        text.push_str(line.trim_end());
        text.push('\n');
        styles.push_str(marks.trim_end_matches('.'));
        styles.push('\n');
    }
    let mut out = text;
    out.push_str("── styles ──\n");
    out.push_str(&styles);
    for (style, letter) in legend {
        out.push_str(&format!("{letter} = {style}\n"));
    }
    out
}

/// A style as a snapshot names it: `fg Yellow · bg Blue · bold reversed`.
fn describe(style: ratatui::style::Style) -> String {
    let mut parts = Vec::new();
    if let Some(fg) = style.fg.filter(|c| *c != ratatui::style::Color::Reset) {
        parts.push(format!("fg {fg:?}"));
    }
    if let Some(bg) = style.bg.filter(|c| *c != ratatui::style::Color::Reset) {
        parts.push(format!("bg {bg:?}"));
    }
    let modifiers = style.add_modifier - style.sub_modifier;
    if !modifiers.is_empty() {
        parts.push(format!("{modifiers:?}").to_lowercase());
    }
    if parts.is_empty() { "default".to_string() } else { parts.join(" · ") }
}

/// Snapshots a screen built by `build` at each size.
fn at_sizes(name: &str, sizes: &[(u16, u16)], build: impl Fn((u16, u16)) -> State) {
    for &(w, h) in sizes {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), draw(&build((w, h))));
    }
}

#[test]
fn empty_reader() {
    at_sizes("empty", &SIZES[..2], |size| {
        let mut s = State::new(Setup::default(), size);
        update(&mut s, Event::Tick(NOW));
        update(
            &mut s,
            Event::FeedsLoaded {
                feeds: vec![],
                folders: vec![],
                views: ViewCounts::default(),
                seen: tidings::app::WriteId::NONE,
            },
        );
        s
    });
}

#[test]
fn feed_list_with_markers_folders_and_counts() {
    at_sizes("feeds", &SIZES, reader);
}

#[test]
fn entry_list_focused() {
    at_sizes("entries", &SIZES, |size| {
        let mut s = reader(size);
        key(&mut s, 'l');
        key(&mut s, 'j');
        s
    });
}

#[test]
fn unread_view_across_feeds_names_each_entrys_feed() {
    at_sizes("unread_view", &SIZES[..2], |size| {
        let mut s = reader(size);
        while s.feeds.selected_list() != Some(ListKey::Unread) {
            key(&mut s, 'k');
        }
        let rows: Vec<EntryRow> = entries()
            .into_iter()
            .zip([1, 2, 4, 6, 2])
            .map(|(e, feed_id)| EntryRow { feed_id: FeedId(feed_id), read: false, ..e })
            .collect();
        let refs =
            rows.iter().map(|e| EntryRef { id: e.id, feed_id: e.feed_id, read: e.read, starred: e.starred }).collect();
        let order = (Sort::Newest, false);
        update(
            &mut s,
            Event::EntriesLoaded {
                list: ListKey::Unread,
                refs,
                rows,
                order,
                keep: None,
                seen: tidings::app::WriteId::NONE,
            },
        );
        key(&mut s, 'l');
        s
    });
}

/// A folder whose entries are all one feed's (News, where only World News has any here) says the feed on no row;
/// once another feed's entry is among them, each row names its feed.
#[test]
fn a_folder_of_one_feeds_entries_names_no_feed_on_its_rows() {
    let shown = |feeds: [i64; 5]| {
        let mut s = reader((160, 40));
        while s.feeds.selected_list() != Some(ListKey::Folder(FolderId(7))) {
            key(&mut s, 'j');
        }
        let rows: Vec<EntryRow> =
            entries().into_iter().zip(feeds).map(|(e, feed_id)| EntryRow { feed_id: FeedId(feed_id), ..e }).collect();
        let refs =
            rows.iter().map(|e| EntryRef { id: e.id, feed_id: e.feed_id, read: e.read, starred: e.starred }).collect();
        let (order, seen) = ((Sort::Newest, false), tidings::app::WriteId::NONE);
        update(
            &mut s,
            Event::EntriesLoaded { list: ListKey::Folder(FolderId(7)), refs, rows, order, keep: None, seen },
        );
        let text = draw(&s);
        text.lines().find(|l| l.contains("Short one")).expect("the last entry's row").to_string()
    };
    let one = shown([4, 4, 4, 4, 4]);
    assert!(!one.contains("World News"), "{one}");
    let two = shown([4, 4, 4, 4, 6]);
    assert!(two.contains("Новости дня"), "{two}");
}

#[test]
fn article_open() {
    at_sizes("article", &SIZES, |size| with_article(reader(size)));
}

#[test]
fn article_zoomed() {
    at_sizes("article_zoomed", &SIZES[..1], |size| {
        let mut s = with_article(reader(size));
        key(&mut s, 'z');
        let width = s.article_width();
        let body = tidings::render::render_article(&detail().content_html.unwrap(), usize::from(width), None);
        update(&mut s, Event::ArticleRendered { entry_id: EntryId(100), width, body: Ok(body) });
        s
    });
}

#[test]
fn refresh_in_progress_with_an_error() {
    at_sizes("refreshing", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, 'R');
        update(&mut s, Event::Refresh(RefreshEvent::Started { feed_id: FeedId(4) }));
        update(
            &mut s,
            Event::Refresh(RefreshEvent::Failed {
                feed_id: FeedId(2),
                title: "A feed with a rather long title that will not fit".into(),
                url: "https://example.com/2/feed.xml".into(),
                kind: ErrorKind::Timeout,
                message: "no answer within 30 s; the site may be down or slow, try again later".into(),
                retry_at: None,
                dead: false,
            }),
        );
        s
    });
}

#[test]
fn help() {
    at_sizes("help", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, '?');
        s
    });
    at_sizes("help_end", &SIZES[2..], |size| {
        let mut s = reader(size);
        key(&mut s, '?');
        key(&mut s, 'G');
        s
    });
}

#[test]
fn feed_info() {
    at_sizes("info", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, 'i');
        let row = s.feeds.feeds[0].clone();
        let info = FeedInfo {
            row,
            entries: 5,
            failures: 0,
            last_success_at: Some(NOW - 600),
            etag: Some("\"abc\"".into()),
            last_modified: Some("Sun, 15 Jun 2025 13:00:00 GMT".into()),
            added_at: NOW - 86_400 * 30,
            decision: None,
            warnings: vec!["an unescaped & was read as &amp;".into()],
            own_title: Some("Planet Rust: news from the Rust community".into()),
            id_rotations: 20,
            settings: vec!["refresh_minutes = 15".into(), "notify = true".into()],
            attempts: vec![
                tidings::model::FetchAttempt {
                    at: NOW - 600,
                    status: Some(200),
                    outcome: "fetched".into(),
                    bytes: Some(48_213),
                    duration_ms: 182,
                },
                tidings::model::FetchAttempt {
                    at: NOW - 4200,
                    status: None,
                    outcome: "timeout".into(),
                    bytes: None,
                    duration_ms: 30_000,
                },
            ],
        };
        update(&mut s, Event::FeedInfoLoaded { feed_id: FeedId(1), info: Some(Box::new(info)) });
        s
    });
}

/// The health view over the reader: a feed in each state, worst first.
fn health_view(size: (u16, u16)) -> State {
    use tidings::health::HealthFacts;
    let mut s = reader(size);
    key(&mut s, '!');
    let base = |id: i64, title: &str| HealthFacts {
        feed_id: FeedId(id),
        url: format!("https://example.com/{id}/feed.xml"),
        title: title.into(),
        added_at: NOW - 400 * 86_400,
        healthy_since: Some(NOW - 30 * 86_400),
        newest_entry_at: Some(NOW - 86_400),
        median_gap_secs: Some(86_400),
        fetched: true,
        ..Default::default()
    };
    let facts = vec![
        base(1, "Planet Rust"),
        HealthFacts {
            failures: 3,
            permanent_failures: 3,
            last_status: Some(404),
            error_kind: Some(ErrorKind::Http),
            last_error: Some("HTTP 404 (not found; the feed may have moved)".into()),
            failing_since: Some(NOW - 3 * 3600),
            ..base(3, "Broken Feed")
        },
        HealthFacts {
            failures: 1,
            gone: true,
            last_status: Some(410),
            failing_since: Some(NOW - 7200),
            ..base(8, "Old Blog")
        },
        HealthFacts {
            moved_to: Some("https://new.example.com/feed.xml".into()),
            moves_in_a_row: 3,
            moved_since: Some(NOW - 7200),
            ..base(2, "A feed with a rather long title that will not fit")
        },
        HealthFacts {
            failures: 2,
            last_status: Some(429),
            retry_at: Some(NOW + 20 * 3600),
            failing_since: Some(NOW - 3600),
            paused: true,
            ..base(5, "Busy Server")
        },
        HealthFacts {
            newest_entry_at: Some(NOW - 210 * 86_400),
            median_gap_secs: Some(7 * 86_400),
            ..base(6, "Новости дня")
        },
    ];
    update(&mut s, Event::HealthLoaded { facts, left_out: 2 });
    s
}

#[test]
fn marked_entries_show_their_mark_and_the_status_says_what_acts_on_them() {
    let build = |size| {
        let mut s = reader(size);
        key(&mut s, 'l');
        key(&mut s, 'x'); // the first entry, and down
        key(&mut s, 'j');
        key(&mut s, 'x'); // the third
        s
    };
    let s = build((160, 40));
    let screen = draw(&s);
    let marked: Vec<&str> = screen.lines().filter(|l| l.contains('▶')).collect();
    assert_eq!(marked.len(), 2, "{screen}");
    assert!(marked[0].contains("Rust 2026 roadmap") && marked[1].contains("東京の天気"), "{marked:?}");
    assert!(screen.contains("2 entries marked · m read, s star, O export, E download, | pipe, u undo"), "{screen}");
    at_sizes("entries_marked", &SIZES[..2], build);
}

#[test]
fn health_view_lists_every_feed_worst_first() {
    at_sizes("health", &SIZES, health_view);
}

#[test]
fn health_view_with_marks_and_the_cursor_moved() {
    at_sizes("health_marked", &SIZES[..1], |size| {
        let mut s = health_view(size);
        key(&mut s, ' ');
        key(&mut s, '*');
        key(&mut s, 'j');
        s
    });
}

#[test]
fn prompt_shows_exactly_what_was_typed() {
    at_sizes("prompt", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, 'a');
        for c in "a  b".chars() {
            key(&mut s, c);
        }
        code(&mut s, KeyCode::Left);
        s
    });
}

#[test]
fn picker_confirm_and_report() {
    let found = |url: &str, title: &str, kind| Found {
        url: url.into(),
        title: Some(title.into()),
        kind,
        found_by: tidings::feedlinks::FoundBy::LinkTag,
    };
    at_sizes("picker", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, 'a');
        for c in "example.com".chars() {
            key(&mut s, c);
        }
        code(&mut s, KeyCode::Enter);
        let feeds = vec![
            found("https://example.com/posts.xml", "Posts", FeedKind::Rss2),
            found("https://example.com/comments.atom", "Comments", FeedKind::Atom),
            // Planet Rust's own address: already a subscription.
            found("https://example.com/1/feed.xml", "Planet Rust", FeedKind::Rss2),
        ];
        update(
            &mut s,
            Event::Discovered { request: 0, discovery: Box::new(Discovery { feeds, ..Default::default() }) },
        );
        s
    });
    at_sizes("confirm", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, 'D');
        s
    });
    at_sizes("report", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, 'a');
        for c in "nothing.example".chars() {
            key(&mut s, c);
        }
        code(&mut s, KeyCode::Enter);
        let tried =
            vec!["<link> tags in the page: none".into(), "common feed addresses: /feed, /rss, /atom.xml".into()];
        let discovery = Discovery { url: "https://nothing.example".into(), tried, ..Default::default() };
        update(&mut s, Event::Discovered { request: 0, discovery: Box::new(discovery) });
        s
    });
    at_sizes("message_log", &SIZES[1..2], |size| {
        let mut s = reader(size);
        update(&mut s, Event::Error(format!("cannot save the read state: database is busy {}", "x".repeat(120))));
        key(&mut s, 'L');
        s
    });
}

#[test]
fn an_article_opened_from_a_search_marks_what_matched() {
    let mut s = reader((160, 40));
    key(&mut s, '/');
    for c in "compiler team".chars() {
        key(&mut s, c);
    }
    code(&mut s, KeyCode::Enter);
    let rows = entries();
    let refs = rows
        .iter()
        .take(1)
        .map(|e| EntryRef { id: e.id, feed_id: e.feed_id, read: e.read, starred: e.starred })
        .collect();
    let order = (Sort::Newest, false);
    let found = rows.into_iter().take(1).collect();
    let seen = s.saving.last_issued();
    update(
        &mut s,
        // Searching wrote the last search down: the list read after it has seen that write.
        Event::EntriesLoaded { list: ListKey::Search, refs, rows: found, order, keep: None, seen },
    );
    let s = with_article_from_list(s);
    let (width, height) = s.viewport;
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| tidings::ui::draw(f, &s, &Theme::default())).unwrap();
    let buffer = terminal.backend().buffer();
    let theme = Theme::default();
    let marked: String = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| buffer[(x, y)].bg == theme.matched.bg.unwrap())
        .map(|(x, y)| buffer[(x, y)].symbol().to_string())
        .collect();
    assert!(marked.contains("compiler") && marked.contains("team"), "marked: {marked:?}");
    assert!(!marked.contains("roadmap"), "only the matches: {marked:?}");
}

/// Opens the selected entry of whatever list is shown, with its article rendered.
fn with_article_from_list(mut s: State) -> State {
    s.focus = tidings::app::Pane::Entries;
    code(&mut s, KeyCode::Enter);
    update(&mut s, Event::ArticleLoaded { entry_id: EntryId(100), detail: Some(Box::new(detail())) });
    let width = s.article_width();
    let body = tidings::render::render_article(&detail().content_html.unwrap(), usize::from(width), None);
    update(&mut s, Event::ArticleRendered { entry_id: EntryId(100), width, body: Ok(body) });
    s
}

/// Entries `count` long, for lists that scroll.
fn many_entries(count: usize) -> Vec<EntryRow> {
    (0..count)
        .map(|i| EntryRow {
            id: EntryId(1000 + i as i64),
            feed_id: FeedId(4),
            title: Some(format!("World story number {i}")),
            link: None,
            date: NOW - 3600 * i as i64,
            read: i % 3 == 0,
            starred: i % 7 == 0,
        })
        .collect()
}

fn refs_of(rows: &[EntryRow]) -> Vec<EntryRef> {
    rows.iter().map(|e| EntryRef { id: e.id, feed_id: e.feed_id, read: e.read, starred: e.starred }).collect()
}

fn select_list(s: &mut State, list: ListKey) {
    while s.feeds.selected_list() != Some(list) {
        key(s, 'j');
    }
}

#[test]
fn search_results_and_the_starred_view() {
    at_sizes("search_results", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, '/');
        for c in "terminal".chars() {
            key(&mut s, c);
        }
        code(&mut s, KeyCode::Enter);
        let rows: Vec<EntryRow> = entries().into_iter().skip(1).take(2).collect();
        let refs = refs_of(&rows);
        let order = (Sort::Newest, false);
        let seen = s.saving.last_issued();
        update(&mut s, Event::EntriesLoaded { list: ListKey::Search, refs, rows, order, keep: None, seen });
        s
    });
    at_sizes("starred", &SIZES[..2], |size| {
        let mut s = reader(size);
        while s.feeds.selected_list() != Some(ListKey::Starred) {
            key(&mut s, 'k');
        }
        let rows: Vec<EntryRow> = entries().into_iter().filter(|e| e.starred).collect();
        let refs = refs_of(&rows);
        let order = (Sort::Newest, false);
        update(
            &mut s,
            Event::EntriesLoaded {
                list: ListKey::Starred,
                refs,
                rows,
                order,
                keep: None,
                seen: tidings::app::WriteId::NONE,
            },
        );
        key(&mut s, 'l');
        s
    });
}

#[test]
fn an_article_loading_rendering_and_failing() {
    at_sizes("article_loading", &SIZES[..1], |size| {
        let mut s = reader(size);
        key(&mut s, 'l');
        code(&mut s, KeyCode::Enter);
        s
    });
    at_sizes("article_rendering", &SIZES[..1], |size| {
        let mut s = reader(size);
        key(&mut s, 'l');
        code(&mut s, KeyCode::Enter);
        update(&mut s, Event::ArticleLoaded { entry_id: EntryId(100), detail: Some(Box::new(detail())) });
        s
    });
    at_sizes("article_failed", &SIZES[..1], |size| {
        let mut s = reader(size);
        key(&mut s, 'l');
        code(&mut s, KeyCode::Enter);
        let message = "cannot read the entry: database disk image is malformed".to_string();
        update(&mut s, Event::ArticleFailed { entry_id: EntryId(100), message });
        s
    });
    at_sizes("article_render_failed", &SIZES[..1], |size| {
        let mut s = reader(size);
        key(&mut s, 'l');
        code(&mut s, KeyCode::Enter);
        update(&mut s, Event::ArticleLoaded { entry_id: EntryId(100), detail: Some(Box::new(detail())) });
        let width = s.article_width();
        let body = Err("the renderer failed: a panic".to_string());
        update(&mut s, Event::ArticleRendered { entry_id: EntryId(100), width, body });
        s
    });
}

#[test]
fn the_expanded_header_lists_media_comments_and_tags() {
    at_sizes("article_details", &SIZES[..2], |size| {
        let mut s = reader(size);
        key(&mut s, 'l');
        code(&mut s, KeyCode::Enter);
        let with_media = EntryDetail {
            enclosures: vec![tidings::model::Enclosure {
                url: "https://example.com/1/episode-12.mp3".into(),
                media_type: Some("audio/mpeg".into()),
                length: Some(31_457_280),
            }],
            comments: Some("https://example.com/1/post-0.html#comments".into()),
            ..detail()
        };
        update(&mut s, Event::ArticleLoaded { entry_id: EntryId(100), detail: Some(Box::new(with_media)) });
        let width = s.article_width();
        let body = tidings::render::render_article(&detail().content_html.unwrap(), usize::from(width), None);
        update(&mut s, Event::ArticleRendered { entry_id: EntryId(100), width, body: Ok(body) });
        key(&mut s, 'd');
        s
    });
}

#[test]
fn an_error_in_the_status_bar() {
    at_sizes("status_error", &SIZES[..2], |size| {
        let mut s = reader(size);
        update(&mut s, Event::Error("cannot save the read state: database or disk is full".into()));
        s
    });
}

#[test]
fn a_collapsed_folder_and_lists_scrolled_down() {
    at_sizes("collapsed_folder", &SIZES[..2], |size| {
        let mut s = reader(size);
        select_list(&mut s, ListKey::Folder(FolderId(7)));
        code(&mut s, KeyCode::Enter);
        s
    });
    at_sizes("scrolled", &SIZES[..2], |size| {
        let mut s = reader(size);
        select_list(&mut s, ListKey::Feed(FeedId(4)));
        let rows = many_entries(60);
        let refs = refs_of(&rows);
        let order = (Sort::Newest, false);
        update(
            &mut s,
            Event::EntriesLoaded {
                list: ListKey::Feed(FeedId(4)),
                refs,
                rows,
                order,
                keep: None,
                seen: tidings::app::WriteId::NONE,
            },
        );
        key(&mut s, 'l');
        for _ in 0..40 {
            key(&mut s, 'j');
        }
        s
    });
}

/// A list longer than its pane says on its bottom border where the cursor is and how long it is; one that fits
/// says nothing.
#[test]
fn a_long_feed_list_says_where_the_cursor_is() {
    let mut s = State::new(Setup::default(), (80, 24));
    update(&mut s, Event::Tick(NOW));
    let feeds: Vec<FeedRow> = (1..=40).map(|i| feed(i, &format!("Feed {i}"), 1, None)).collect();
    update(
        &mut s,
        Event::FeedsLoaded {
            feeds,
            folders: vec![],
            views: ViewCounts { all: 40, unread: 40, starred: 0 },
            seen: tidings::app::WriteId::NONE,
        },
    );
    // The focused feed pane's bottom border.
    let bottom = |s: &State| draw(s).lines().find(|l| l.starts_with('┗')).unwrap_or_default().to_string();
    // The smart views (All, Unread, Starred), then the 40 feeds.
    let rows = s.feeds.rows.len();
    assert!(rows > 40, "{rows} rows");
    let first = bottom(&s);
    assert!(first.contains(&format!(" {}/{rows} ", s.feeds.cursor.index + 1)), "{first}");
    for _ in 0..30 {
        key(&mut s, 'j');
    }
    let later = bottom(&s);
    assert!(later.contains(&format!(" {}/{rows} ", s.feeds.cursor.index + 1)) && later != first, "{later}");
    // The reader's own six feeds fit at 160x40: no position.
    let short = reader((160, 40));
    let border = draw(&short).lines().find(|l| l.starts_with('┗')).unwrap_or_default().to_string();
    assert!(border.starts_with("┗━━━━") && !border.contains('/'), "{border}");
}

/// In a narrow terminal the status bar gives a message the key hints' room, and cuts it with no pointer to the
/// log when that pointer would leave nothing of it; a wide one keeps both.
#[test]
fn a_narrow_status_bar_keeps_the_message_before_the_key_hints() {
    let status_line = |size: (u16, u16)| {
        let mut s = reader(size);
        key(&mut s, 'R');
        update(&mut s, Event::Refresh(RefreshEvent::Started { feed_id: FeedId(4) }));
        update(&mut s, Event::Error("cannot save the read state: database or disk is full".into()));
        let screen = draw(&s);
        screen.lines().nth(usize::from(size.1) - 1).unwrap().to_string()
    };
    let narrow = status_line((40, 12));
    assert!(narrow.contains("Refreshing") && narrow.contains("cannot save"), "{narrow}");
    assert!(!narrow.contains("all of it") && !narrow.contains("help"), "{narrow}");
    let wide = status_line((160, 40));
    assert!(wide.contains("cannot save the read state: database or disk is full") && wide.contains("help"), "{wide}");
}

/// A waiting feed says until when beside its name where the name keeps room to be read; in a narrow feed list
/// the name wins (the feed info and the health view say when).
#[test]
fn a_narrow_feed_list_keeps_a_waiting_feeds_name_before_its_retry_time() {
    let row = |size: (u16, u16)| {
        let screen = draw(&reader(size));
        screen.lines().find(|l| l.contains("Busy")).map(str::to_string).unwrap_or_default()
    };
    let wide = row((160, 40));
    assert!(wide.contains("Busy Server") && wide.contains("retry"), "{wide}");
    let narrow = row((70, 24));
    assert!(narrow.contains("Busy Serv") && !narrow.contains("retry"), "{narrow}");
}
