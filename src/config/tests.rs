//! The config file's tests: keys read, values checked, errors that name the line and the key.

use super::*;

#[test]
fn empty_file_gives_defaults() {
    assert_eq!(Config::parse("").unwrap(), Config::default());
}

#[test]
fn keys_are_read() {
    let c = Config::parse("refresh_on_startup = false\nconcurrency = 4\nimport_opml = \"subs.opml\"\n").unwrap();
    assert!(!c.refresh_on_startup);
    assert_eq!(c.concurrency, 4);
    assert_eq!(c.import_opml, Some(PathBuf::from("subs.opml")));
}

#[test]
fn unknown_key_is_an_error_naming_it() {
    let err = Config::parse("refresh_on_start = true\n").unwrap_err();
    assert!(err.contains("refresh_on_start"), "{err}");
    assert!(err.contains("line 1"), "{err}");
}

#[test]
fn wrong_type_is_an_error_naming_the_key() {
    let err = Config::parse("\nconcurrency = \"many\"\n").unwrap_err();
    assert!(err.contains("line 2"), "{err}");
    assert!(err.contains("concurrency"), "{err}");
}

#[test]
fn out_of_range_value_is_an_error_naming_the_key() {
    let err = Config::parse("concurrency = 0").unwrap_err();
    assert!(err.contains("`concurrency`"), "{err}");
    let err = Config::parse("concurrency = 4097").unwrap_err();
    assert!(err.contains("`concurrency`") && err.contains("4096"), "{err}");
}

#[test]
fn an_out_of_range_value_names_its_line() {
    let err = Config::parse("mouse = false\n\nconcurrency = 0\n").unwrap_err();
    assert!(err.starts_with("line 3, key `concurrency`: must be between 1 and 4096"), "{err}");
    let err = Config::parse("[feeds.\"http://x.example/rss\"]\nkeep_days = 40000\n").unwrap_err();
    assert!(err.starts_with("line 2, key `feeds.\"http://x.example/rss\".keep_days`"), "{err}");
    let err = Config::parse("[encoding]\n\"http://x.example/rss\" = \"klingon\"\n").unwrap_err();
    assert!(err.starts_with("line 2, key `encoding.\"http://x.example/rss\"`"), "{err}");
}

#[test]
fn invalid_utf8_names_its_line_and_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, b"mouse = false\n# caf\xe9 in Latin-1\nconcurrency = 8\n").unwrap();
    let err = Config::load(&path, true).unwrap_err();
    assert!(matches!(err, ConfigError::Invalid { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("config.toml") && text.contains("line 2") && text.contains("UTF-8"), "{text}");
}

#[test]
fn concurrency_defaults_to_hundreds_of_feeds_and_a_few_per_host() {
    let c = Config::default();
    assert_eq!((c.concurrency, c.per_host_concurrency), (DEFAULT_CONCURRENCY, 6));
    const { assert!(DEFAULT_CONCURRENCY >= 200, "a refresh must not queue on a small constant") };
    assert_eq!(Config::parse("concurrency = 1024").unwrap().concurrency, 1024);
}

#[test]
fn forced_encodings_are_read_and_bad_labels_named() {
    let c = Config::parse("[encoding]\n\"http://x.example/rss\" = \"koi8-r\"\n").unwrap();
    assert_eq!(c.encoding.get("http://x.example/rss").map(String::as_str), Some("koi8-r"));
    let err = Config::parse("[encoding]\n\"http://x.example/rss\" = \"klingon\"\n").unwrap_err();
    assert!(err.contains("encoding.\"http://x.example/rss\"") && err.contains("klingon"), "{err}");
}

#[test]
fn config_example_parses_and_documents_every_key() {
    let example = include_str!("../../config.example.toml");
    let uncommented: String = example
        .lines()
        // A commented-out setting is `# key = value`; prose and indented examples stay comments.
        .map(|l| {
            l.strip_prefix("# ")
                .filter(|r| {
                    r.split_once(" = ").is_some_and(|(key, _)| {
                        key.starts_with(|c: char| c.is_ascii_lowercase() || c == '"') && !key.contains(' ')
                    })
                })
                .unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("\n");
    Config::parse(&uncommented).unwrap();
    for key in [
        "refresh_on_startup",
        "import_opml",
        "concurrency",
        "per_host_concurrency",
        "refresh_interval_minutes",
        "connect_timeout_secs",
        "timeout_secs",
        "max_feed_size_mb",
        "browser",
        "browser_in_terminal",
        "player",
        "player_in_terminal",
        "mouse",
        "text_width",
        "text_centered",
        "images",
        "image_cache_mb",
        "keep_days",
        "max_entries_per_feed",
        "purge_unread",
        "dead_after_days",
        "quiet_after_days",
        "notify",
        "notify_command",
        "notify_every_feed",
        "window_title",
        "refresh_minutes",
        "honour_ttl",
        "hide_from_unread",
        "[[views]]",
        "[[ignore]]",
    ] {
        assert!(
            example.contains(&format!("{key} =")) || example.contains(key),
            "config.example.toml does not document {key}"
        );
    }
}

#[test]
fn browser_and_player_are_command_lines_checked_when_read() {
    let c = Config::parse("browser = \"w3m -T text/html %u\"\nplayer = \"mpv\"\nplayer_in_terminal = false\n").unwrap();
    let browser = c.browser_command().unwrap();
    assert_eq!(browser.words, ["w3m", "-T", "text/html", "%u"]);
    assert!(browser.in_terminal);
    assert!(!c.player_command().unwrap().in_terminal);
    let err = Config::parse("browser = \"firefox 'unclosed\"").unwrap_err();
    assert!(err.contains("key `browser`") && err.contains("unclosed"), "{err}");
}

#[test]
fn vim_and_emacs_style_key_sets_are_read() {
    let vim =
        "[keys]\nhalf_page_down = \"Ctrl-d\"\npage_down = [\"PgDn\", \"Ctrl-f\"]\npage_up = [\"PgUp\", \"Ctrl-b\"]\n";
    let c = Config::parse(vim).unwrap();
    let ctrl_f =
        crossterm::event::KeyEvent::new(crossterm::event::KeyCode::Char('f'), crossterm::event::KeyModifiers::CONTROL);
    use crate::app::keymap::{Action, Context};
    assert_eq!(c.keymap.action(Context::Entries, &ctrl_f), Some(Action::PageDown));
    let emacs = "[keys]\ndown = [\"Ctrl-n\", \"Down\"]\nup = [\"Ctrl-p\", \"Up\"]\n\
                 page_down = [\"PgDn\", \"Ctrl-v\"]\npage_up = [\"PgUp\", \"Alt-v\"]\n\
                 [keys.prompt]\nclose = [\"Esc\", \"Ctrl-g\"]\n";
    let c = Config::parse(emacs).unwrap();
    let alt_v =
        crossterm::event::KeyEvent::new(crossterm::event::KeyCode::Char('v'), crossterm::event::KeyModifiers::ALT);
    assert_eq!(c.keymap.action(Context::Feeds, &alt_v), Some(Action::PageUp));
}

#[test]
fn a_bad_binding_is_an_error_naming_the_line_and_the_key() {
    let err = Config::parse("refresh_on_startup = true\n[keys]\ndown = \"x\"\nup = \"x\"\n").unwrap_err();
    assert!(err.contains("line 4, key `keys.up`") && err.contains("x is also bound"), "{err}");
    let err = Config::parse("[keys]\nfrobnicate = \"x\"\n").unwrap_err();
    assert!(err.contains("line 2, key `keys.frobnicate`") && err.contains("not an action"), "{err}");
    let err = Config::parse("[keys.entries]\nopen = \"Ctrl-Banana\"\n").unwrap_err();
    assert!(err.contains("line 2, key `keys.entries.open`") && err.contains("Ctrl-Banana"), "{err}");
    let err = Config::parse("text_width = 80\n[keys.bogus]\nopen = \"x\"\n").unwrap_err();
    assert!(err.contains("line 2, key `keys.bogus`") && err.contains("not a context"), "{err}");
    let err = Config::parse("[keys.prompt]\nstar = \"x\"\n").unwrap_err();
    assert!(err.contains("line 2, key `keys.prompt.star`") && err.contains("does nothing in prompt"), "{err}");
    assert!(err.contains("general, feeds, entries, article"), "{err}");
    let works = "[keys.info]\ndown = \"x\"\nfeed_info = \"y\"\n[keys.picker]\nopen = \"o\"\n[keys.entries]\nrefresh = \"x\"\n\
                 [keys.prompt]\nquit = \"Ctrl-q\"\n";
    Config::parse(works).expect("each of these does something where it is bound");
}

#[test]
fn colours_are_read_and_a_bad_one_is_named() {
    let c = Config::parse("[colors]\nlink = \"#ff8800 underlined\"\n").unwrap();
    assert_eq!(c.theme.link.fg, Some(ratatui::style::Color::Rgb(255, 136, 0)));
    let err = Config::parse("\n[colors]\nlink = \"purplish\"\n").unwrap_err();
    assert!(err.contains("line 3, key `colors.link`") && err.contains("purplish"), "{err}");
}

#[test]
fn no_color_starts_from_the_monochrome_theme_and_colours_set_still_apply() {
    assert_eq!(Config::parse_with("", true).unwrap().theme, Theme::monochrome());
    let c = Config::parse_with("[colors]\nlink = \"red\"\n", true).unwrap();
    assert_eq!(c.theme.link.fg, Some(ratatui::style::Color::Red));
    assert_eq!(c.theme.selection, Theme::monochrome().selection);
}

#[test]
fn retention_is_read_per_feed_over_the_top_level() {
    let c = Config::parse(
        "keep_days = 30\nmax_entries_per_feed = 500\n\
         [feeds.\"http://example.com/podcast\"]\nkeep_days = 0\npurge_unread = true\n",
    )
    .unwrap();
    let policy = c.retention();
    let podcast = policy.for_feed("http://example.com/podcast");
    assert_eq!((podcast.keep_days, podcast.max_entries, podcast.purge_unread), (0, 500, true));
    let other = policy.for_feed("http://example.com/other");
    assert_eq!((other.keep_days, other.max_entries, other.purge_unread), (30, 500, false));
    let defaults = Config::default().retention().default;
    assert_eq!((defaults.keep_days, defaults.max_entries, defaults.purge_unread), (90, 0, false));
}

#[test]
fn a_bad_retention_key_is_named() {
    let err = Config::parse("[feeds.\"http://x\"]\nkeep_dayz = 3\n").unwrap_err();
    assert!(err.contains("keep_dayz"), "{err}");
    let err = Config::parse("[feeds.\"http://x\"]\nkeep_days = 99999\n").unwrap_err();
    assert!(err.contains("key `feeds.\"http://x\".keep_days`"), "{err}");
    let err = Config::parse("keep_days = -1\n").unwrap_err();
    assert!(err.contains("keep_days"), "{err}");
}

#[test]
fn relative_opml_path_is_relative_to_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "import_opml = \"subs.opml\"").unwrap();
    let c = Config::load(&path, true).unwrap();
    assert_eq!(c.import_opml, Some(dir.path().join("subs.opml")));
}

#[test]
fn missing_default_config_is_fine_but_a_named_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.toml");
    assert_eq!(Config::load(&path, false).unwrap(), Config { path: Some(path.clone()), ..Config::default() });
    assert!(matches!(Config::load(&path, true), Err(ConfigError::Read { .. })));
}
