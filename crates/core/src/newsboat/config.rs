//! newsboat's `config` file in tidings's terms: `browser`, `player`, `bind-key`, `macro`, `color`, `reload-time`
//! and `auto-reload`, `refresh-on-startup`, `keep-articles-days`, `max-items`, `show-read-feeds`,
//! `bookmark-cmd`, `text-width`; `ignore-article` and `define-filter` become query-language rules. Every line
//! that has no equivalent is listed with why, so the import's report can say it.

use super::filter;
use super::tokenize;

/// A setting's value, as the config file writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Text(String),
    Number(i64),
    Flag(bool),
    List(Vec<String>),
}

/// What a newsboat config says that tidings can say too.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Migrated {
    /// Top-level settings: `browser`, `refresh_interval_minutes`, … with where they came from (line).
    pub settings: Vec<(String, Value, usize)>,
    /// `[keys]`: an action and its keys.
    pub keys: Vec<(String, Vec<String>, usize)>,
    /// `unbind-key`: keys that do nothing any more (in tidings's names), with their lines.
    pub unbound: Vec<(String, usize)>,
    /// `bind-key` in one of newsboat's dialogs (`articlelist`…): an action and its key, with its line. Not
    /// carried (tidings binds for every pane, or one), and said unless the key already does that.
    pub dialog_keys: Vec<(String, String, usize)>,
    /// `[colors]`: an element and its style.
    pub colors: Vec<(String, String, usize)>,
    /// `[macros]`: a key (pressed after the macro prefix) and the actions it runs.
    pub macros: Vec<(String, Vec<String>, usize)>,
    /// `ignore-article`: the feed it is for (`None`: every feed) and the query, or why it has none.
    pub ignore: Vec<Rule>,
    /// `define-filter`: a named query (a saved view in tidings).
    pub filters: Vec<Rule>,
    /// Lines with no equivalent, with why.
    pub skipped: Vec<(usize, String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub line: usize,
    /// The feed's address (`ignore-article`), or the filter's name (`define-filter`).
    pub target: Option<String>,
    pub expression: String,
    pub query: Result<String, String>,
}

/// newsboat's key operations and the tidings actions that do the same.
const OPERATIONS: &[(&str, &str)] = &[
    ("open", "open"),
    ("quit", "back"),
    ("hard-quit", "quit"),
    ("reload", "refresh"),
    ("reload-all", "refresh_all"),
    ("next-unread", "next_unread"),
    ("prev-unread", "prev_unread"),
    ("next", "down"),
    ("prev", "up"),
    ("down", "down"),
    ("up", "up"),
    ("pagedown", "page_down"),
    ("pageup", "page_up"),
    ("home", "top"),
    ("end", "bottom"),
    ("toggle-article-read", "toggle_read"),
    ("mark-feed-read", "mark_all_read"),
    ("open-in-browser", "open_in_browser"),
    ("open-in-browser-and-mark-read", "open_in_browser"),
    ("help", "help"),
    ("save", "save"),
    ("toggle-show-read-feeds", "hide_read_feeds"),
    ("search", "search"),
    ("next-feed", "next_feed"),
    ("prev-feed", "prev_feed"),
    ("next-unread-feed", "next_unread_feed"),
    ("prev-unread-feed", "prev_unread_feed"),
    ("edit-flags", "star"),
    ("pipe-to", "pipe"),
    ("bookmark", "bookmark"),
    ("sort", "sort"),
    ("cmdline", "command_line"),
    ("goto-url", "follow_link"),
    ("show-urls", "follow_link"),
    ("view-dialogs", "message_log"),
    ("edit-urls", "add_feed"),
];

/// The tidings action a newsboat operation is, if it has one.
pub fn action_for(operation: &str) -> Option<&'static str> {
    OPERATIONS.iter().find(|(op, _)| *op == operation).map(|(_, action)| *action)
}

/// A newsboat key name as tidings writes it: `^D` → `Ctrl-d`, `ENTER` → `Enter`, `PPAGE` → `PgUp`.
pub fn key_name(key: &str) -> Option<String> {
    if let Some(c) = key.strip_prefix('^').filter(|r| r.chars().count() == 1) {
        return Some(format!("Ctrl-{}", c.to_ascii_lowercase()));
    }
    if key.chars().count() == 1 {
        return Some(key.to_string());
    }
    let named = match key {
        "ENTER" => "Enter",
        "SPACE" => "Space",
        "TAB" => "Tab",
        "ESC" => "Esc",
        "BACKSPACE" => "Backspace",
        "UP" => "Up",
        "DOWN" => "Down",
        "LEFT" => "Left",
        "RIGHT" => "Right",
        "PPAGE" => "PgUp",
        "NPAGE" => "PgDn",
        "HOME" => "Home",
        "END" => "End",
        "DEL" => "Del",
        "INS" => "Ins",
        f if f.starts_with('F') && f[1..].parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) => f,
        _ => return None,
    };
    Some(named.to_string())
}

/// newsboat's colour elements and tidings's.
const ELEMENTS: &[(&str, &str)] = &[
    ("listnormal", "read"),
    ("listnormal_unread", "unread"),
    ("listfocus", "selection"),
    ("info", "status"),
    ("title", "title"),
    ("hint-key", "key"),
    ("hint-description", "hint"),
];

/// A newsboat colour spec (`color listfocus black yellow bold`) as a tidings style (`black on yellow bold`).
fn style(fg: &str, bg: &str, attributes: &[String]) -> Option<String> {
    let colour = |c: &str| -> Option<String> {
        match c {
            "black" | "red" | "green" | "yellow" | "blue" | "magenta" | "cyan" | "white" | "default" => {
                Some(c.to_string())
            }
            c => c.strip_prefix("color").and_then(|n| n.parse::<u8>().ok()).map(|n| n.to_string()),
        }
    };
    let mut words = vec![colour(fg)?];
    if bg != "default" {
        words.push(format!("on {}", colour(bg)?));
    }
    for attribute in attributes {
        match attribute.as_str() {
            "bold" => words.push("bold".into()),
            "underline" => words.push("underlined".into()),
            "reverse" | "standout" => words.push("reversed".into()),
            "dim" => words.push("dim".into()),
            _ => {}
        }
    }
    Some(words.join(" "))
}

/// Whether a command line needs a shell to mean what it says (pipes, redirections, `$(…)`, `;`, a `~` for the
/// home folder, which newsboat's shell expands and tidings does not).
fn needs_shell(line: &str) -> bool {
    line.contains(['|', '>', '<', ';', '`', '$', '*']) || line.starts_with('~') || line.contains(" ~")
}

/// A newsboat command line (run by a shell there, with the address and the other values appended when it names
/// none) as a tidings command line (split into arguments, no shell): a trailing `&` goes (tidings starts
/// graphical programs in the background anyway); one that needs a shell is written as `sh -c '…' sh %u…`, its
/// placeholders turned into the script's positional parameters (`"${1}"`), so that what a feed puts in a link or a
/// title reaches the script as data, never as code. `marks` are the placeholders the setting takes, in the order
/// newsboat appends their values.
fn command(line: &str, marks: &[&str]) -> String {
    let line = line.trim().trim_end_matches('&').trim_end();
    if !needs_shell(line) {
        return line.to_string();
    }
    shell_command(line, marks)
}

/// A command line that names none of `marks` with them after it, as newsboat appends their values; one that
/// needs a shell as [`command`] writes it.
fn command_with_values(line: &str, marks: &[&str]) -> String {
    let line = line.trim().trim_end_matches('&').trim_end();
    if needs_shell(line) {
        return shell_command(line, marks);
    }
    if marks.iter().any(|m| line.contains(m)) {
        return line.to_string();
    }
    format!("{line} {}", marks.join(" "))
}

/// `line` as `sh -c '…' sh MARKS…` (see [`command`]).
fn shell_command(line: &str, marks: &[&str]) -> String {
    let mut script = line.to_string();
    if !marks.iter().any(|m| line.contains(m)) {
        for mark in marks {
            script.push(' ');
            script.push_str(mark);
        }
    }
    let script = crate::command::shell_script(&script, marks);
    format!("sh -c '{}' sh {}", script.replace('\'', r"'\''"), marks.join(" "))
}

/// newsboat's `article-sort-order` as tidings's `sort`: by date newest first unless `-asc`, by title A to Z.
fn sort(order: &str) -> Option<&'static str> {
    let (field, direction) = order.split_once('-').unwrap_or((order, ""));
    match (field, direction) {
        ("date", "" | "desc") => Some("newest"),
        ("date", "asc") => Some("oldest"),
        ("title", "" | "asc") => Some("title"),
        _ => None,
    }
}

fn yes(value: &str) -> Option<bool> {
    match value {
        "yes" | "true" => Some(true),
        "no" | "false" => Some(false),
        _ => None,
    }
}

/// Reads a newsboat config file's text; `context` says what the subscriptions are, for rules that name tags and
/// feeds.
pub fn migrate(text: &str, context: &filter::Context) -> Migrated {
    let mut out = Migrated::default();
    let mut auto_reload: Option<bool> = None;
    let mut reload_minutes: Option<(i64, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let tokens = tokenize(raw);
        let Some((name, args)) = tokens.split_first() else { continue };
        let arg = |n: usize| args.get(n).map(String::as_str).unwrap_or("");
        let mut skip = |why: &str| out.skipped.push((line, raw.trim().to_string(), why.to_string()));
        match name.as_str() {
            "browser" | "player" if !arg(0).is_empty() => {
                out.settings.push((name.to_string(), Value::Text(command(arg(0), &["%u"])), line));
            }
            "download-path" if !arg(0).is_empty() => {
                // podboat's %n (the feed's name) and %h (its host) make folders: tidings's download_name makes a
                // folder per feed by default ({feed}), so the path stops before the first of them.
                let fixed: Vec<&str> = arg(0).split('/').take_while(|part| !part.contains('%')).collect();
                let dir = if fixed.len() == 1 && fixed[0].is_empty() { "/".to_string() } else { fixed.join("/") };
                if dir.len() < arg(0).trim_end_matches('/').len() {
                    skip("podboat's %n and %h folders: tidings makes a folder per feed with {feed} in download_name");
                }
                if !dir.is_empty() {
                    out.settings.push(("download_dir".into(), Value::Text(dir), line));
                }
            }
            "max-downloads" => match arg(0).parse::<i64>() {
                Ok(n) if (1..=64).contains(&n) => out.settings.push(("max_downloads".into(), Value::Number(n), line)),
                _ => skip("max-downloads must be a number, 1 to 64"),
            },
            // newsboat hands the bookmark command the address, the title, the description and the feed's title
            // as its arguments (`FormAction::bookmark`): tidings's placeholders for the four, in that order.
            "bookmark-cmd" if !arg(0).is_empty() => {
                let text = command_with_values(arg(0), &["%u", "%t", "%d", "%f"]);
                out.settings.push(("bookmark_command".into(), Value::Text(text), line));
            }
            // newsboat's notifier gets its message as the first argument, for new entries of any feed (tidings
            // tells of the feeds that ask, unless every feed does).
            "notify-program" if !arg(0).is_empty() => {
                let text = command_with_values(arg(0), &["%m"]).replace("%m", "'%n new entries in %f'");
                out.settings.push(("notify_command".into(), Value::Text(text), line));
                out.settings.push(("notify_every_feed".into(), Value::Flag(true), line));
            }
            "article-sort-order" => match sort(arg(0)) {
                Some(order) => out.settings.push(("sort".into(), Value::Text(order.into()), line)),
                None => skip(
                    "tidings sorts by date (newest or oldest first), by feed or by title; by flags, author, link, \
                     GUID or at random it does not",
                ),
            },
            // podboat's queue filled as entries arrive; tidings downloads them as a refresh brings them.
            "podcast-auto-enqueue" => match yes(arg(0)) {
                Some(on) => out.settings.push(("auto_download".into(), Value::Flag(on), line)),
                None => skip("podcast-auto-enqueue is yes or no"),
            },
            "confirm-exit" => match yes(arg(0)) {
                Some(on) => out.settings.push(("confirm_quit".into(), Value::Flag(on), line)),
                None => skip("confirm-exit is yes or no"),
            },
            "reload-time" => match arg(0).parse::<i64>() {
                Ok(n) if (1..=10_080).contains(&n) => reload_minutes = Some((n, line)),
                _ => skip("reload-time must be minutes, 1 to 10080"),
            },
            "auto-reload" => match yes(arg(0)) {
                Some(on) => auto_reload = Some(on),
                None => skip("auto-reload is yes or no"),
            },
            "refresh-on-startup" => match yes(arg(0)) {
                Some(on) => out.settings.push(("refresh_on_startup".into(), Value::Flag(on), line)),
                None => skip("refresh-on-startup is yes or no"),
            },
            "keep-articles-days" => match arg(0).parse::<i64>() {
                Ok(n) if (0..=36_500).contains(&n) => out.settings.push(("keep_days".into(), Value::Number(n), line)),
                _ => skip("keep-articles-days must be a number of days"),
            },
            "max-items" => match arg(0).parse::<i64>() {
                Ok(n) if (0..=10_000_000).contains(&n) => {
                    out.settings.push(("max_entries_per_feed".into(), Value::Number(n), line));
                }
                _ => skip("max-items must be a number"),
            },
            "text-width" => match arg(0).parse::<i64>() {
                Ok(0) => skip("text-width 0 is the window's width, as tidings does by default"),
                Ok(n) if (20..=1000).contains(&n) => out.settings.push(("text_width".into(), Value::Number(n), line)),
                _ => skip("tidings's text width is 20 to 1000 columns"),
            },
            "show-read-feeds" => match yes(arg(0)) {
                Some(show) => out.settings.push(("hide_read_feeds".into(), Value::Flag(!show), line)),
                None => skip("show-read-feeds is yes or no"),
            },
            "bind-key" => {
                let (Some(key), Some(action)) = (key_name(arg(0)), action_for(arg(1))) else {
                    let why = if key_name(arg(0)).is_none() {
                        format!("tidings has no name for the key {}", arg(0))
                    } else {
                        format!("newsboat's {} has no equivalent in tidings", arg(1))
                    };
                    skip(&why);
                    continue;
                };
                if !arg(2).is_empty() && arg(2) != "all" {
                    // A binding for one of newsboat's dialogs: tidings has one keymap for the panes (said by the
                    // import when the key does not do that already).
                    out.dialog_keys.push((action.to_string(), key, line));
                    continue;
                }
                match out.keys.iter_mut().find(|(a, _, _)| a == action) {
                    Some((_, keys, _)) if !keys.contains(&key) => keys.push(key),
                    Some(_) => {}
                    None => out.keys.push((action.to_string(), vec![key], line)),
                }
            }
            "unbind-key" => match key_name(arg(0)) {
                // `unbind-key -a`: every key; tidings keeps its defaults rather than leave nothing to press.
                _ if arg(0) == "-a" => skip("unbinding every key would leave the reader with none"),
                _ if !arg(1).is_empty() && arg(1) != "all" => {
                    skip("an unbinding in one of newsboat's dialogs; tidings binds keys for all panes ([keys])");
                }
                Some(key) => out.unbound.push((key, line)),
                None => skip(&format!("tidings has no name for the key {}", arg(0))),
            },
            "macro" => {
                let Some(key) = key_name(arg(0)) else {
                    skip(&format!("tidings has no name for the key {}", arg(0)));
                    continue;
                };
                // `macro x open ; next -- "description"`: operations separated by `;`.
                let mut actions = Vec::new();
                let mut failed = None;
                for part in args[1..].split(|t| t == ";") {
                    let part: Vec<&String> = part.iter().take_while(|t| t.as_str() != "--").collect();
                    let Some(op) = part.first() else { continue };
                    match action_for(op) {
                        // `pipe-to "cmd"`: the command line's `:pipe`, given the command (through a shell when
                        // it needs one, as newsboat runs it).
                        Some("pipe") if part.len() == 2 => {
                            actions.push(format!(":pipe {}", command(part[1], &[]).trim_end()));
                        }
                        Some(action) if part.len() > 1 => {
                            let with: Vec<&str> = part[1..].iter().map(|a| a.as_str()).collect();
                            failed = Some(format!(
                                "{op} \"{}\" takes an argument, which a tidings macro cannot carry (its steps are \
                                 actions); type :{action} {} in the reader instead",
                                with.join("\" \""),
                                with.join(" ")
                            ));
                        }
                        Some(action) => actions.push(action.to_string()),
                        None => failed = Some(format!("{op} has no equivalent in tidings")),
                    }
                }
                match failed {
                    Some(why) => skip(&format!("its step {why}")),
                    None if actions.is_empty() => skip("a macro with no steps"),
                    None => out.macros.push((key, actions, line)),
                }
            }
            "color" => {
                let Some(element) = ELEMENTS.iter().find(|(e, _)| *e == arg(0)).map(|(_, t)| *t) else {
                    skip(&format!("tidings draws no element like newsboat's {}", arg(0)));
                    continue;
                };
                match style(arg(1), arg(2), &args[3.min(args.len())..]) {
                    Some(s) if !out.colors.iter().any(|(e, _, _)| e == element) => {
                        out.colors.push((element.to_string(), s, line));
                    }
                    Some(_) => {}
                    None => skip("a colour tidings cannot read"),
                }
            }
            "ignore-article" => {
                let target = (arg(0) != "*").then(|| arg(0).to_string());
                out.ignore.push(Rule {
                    line,
                    target,
                    expression: arg(1).to_string(),
                    query: filter::convert(arg(1), context),
                });
            }
            "define-filter" => out.filters.push(Rule {
                line,
                target: Some(arg(0).to_string()),
                expression: arg(1).to_string(),
                query: filter::convert(arg(1), context),
            }),
            "urls-source" if arg(0) != "local" => skip(
                "subscriptions from a server: tidings syncs servers as [[accounts]] (FreshRSS, Miniflux, Inoreader…) — see docs/sync.md",
            ),
            "include" => skip("tidings reads one config file; import the included file's lines by hand"),
            _ => skip("no equivalent in tidings"),
        }
    }
    match (auto_reload, reload_minutes) {
        (Some(true), Some((minutes, line))) => {
            out.settings.push(("refresh_interval_minutes".into(), Value::Number(minutes), line));
        }
        (Some(true), None) => {
            out.settings.push(("refresh_interval_minutes".into(), Value::Number(60), 0));
        }
        (Some(false), _) | (None, Some(_)) => {
            // newsboat refreshes on its own only with auto-reload yes.
            out.settings.push(("refresh_interval_minutes".into(), Value::Number(0), reload_minutes.map_or(0, |r| r.1)));
        }
        (None, None) => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_keys_colours_and_macros_come_over() {
        let m = migrate(
            "browser \"w3m %u\"\n\
             auto-reload yes\nreload-time 15\n\
             bind-key J next-feed\nbind-key ^D pagedown\nbind-key x toggle-source-view\n\
             macro v set browser \"mpv %u\" ; open-in-browser\n\
             macro s open ; toggle-article-read -- \"read it\"\n\
             color listfocus black yellow bold\n\
             show-read-feeds no\n\
             highlight article \"rust\" red default\n\
             ignore-article \"*\" \"title =~ \\\"sponsored\\\"\"\n\
             browser \"firefox %u | tee /dev/null &\"\n",
            &filter::Context::default(),
        );
        assert!(m.settings.contains(&("browser".into(), Value::Text("w3m %u".into()), 1)));
        assert!(m.settings.contains(&("refresh_interval_minutes".into(), Value::Number(15), 3)));
        assert!(m.settings.contains(&("hide_read_feeds".into(), Value::Flag(true), 10)));
        assert!(m.settings.contains(&(
            "browser".into(),
            Value::Text(r#"sh -c 'firefox "${1}" | tee /dev/null' sh %u"#.into()),
            13
        )));
        assert_eq!(
            m.keys,
            vec![("next_feed".into(), vec!["J".into()], 4), ("page_down".into(), vec!["Ctrl-d".into()], 5)]
        );
        assert_eq!(m.macros, vec![("s".into(), vec!["open".into(), "toggle_read".into()], 8)]);
        assert_eq!(m.colors, vec![("selection".into(), "black on yellow bold".into(), 9)]);
        assert_eq!(m.ignore[0].query.as_deref(), Ok("title ~ \"sponsored\""));
        let skipped: Vec<usize> = m.skipped.iter().map(|s| s.0).collect();
        assert_eq!(skipped, [6, 7, 11], "{:?}", m.skipped);
        assert!(m.skipped[1].2.contains("set"), "{:?}", m.skipped[1]);
    }

    #[test]
    fn unbind_key_comes_over_for_the_panes_and_is_said_elsewhere() {
        let m = migrate(
            "unbind-key A\nunbind-key -a\nunbind-key ^D article\nunbind-key ENTER all\n",
            &filter::Context::default(),
        );
        assert_eq!(m.unbound, vec![("A".to_string(), 1), ("Enter".to_string(), 4)]);
        let skipped: Vec<usize> = m.skipped.iter().map(|s| s.0).collect();
        assert_eq!(skipped, [2, 3], "{:?}", m.skipped);
    }

    #[test]
    fn a_command_that_needs_a_shell_gets_its_values_as_parameters_never_in_its_script() {
        let m = migrate(
            "browser \"xdg-open %u > /dev/null 2>&1 &\"\n\
             bookmark-cmd \"~/bin/mark.sh >> ~/marks\"\n\
             player \"mpv '%u' | cat\"\n",
            &filter::Context::default(),
        );
        let text = |key: &str| match &m.settings.iter().find(|s| s.0 == key).unwrap().1 {
            Value::Text(t) => t.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text("browser"), r#"sh -c 'xdg-open "${1}" > /dev/null 2>&1' sh %u"#);
        assert_eq!(
            text("bookmark_command"),
            r#"sh -c '~/bin/mark.sh >> ~/marks "${1}" "${2}" "${3}" "${4}"' sh %u %t %d %f"#
        );
        assert_eq!(text("player"), r#"sh -c 'mpv '\'''\''"${1}"'\'''\'' | cat' sh %u"#);
        for key in ["browser", "bookmark_command", "player"] {
            let line = crate::command::CommandLine::parse(&text(key), None).unwrap();
            let script = &line.words[2];
            assert!(!script.contains('%'), "no placeholder is left in the script: {script}");
        }
    }

    #[test]
    fn the_bookmark_command_gets_newsboats_four_values_and_the_notifier_its_message() {
        let m = migrate(
            "bookmark-cmd \"~/bin/bookmark.sh\"\n\
             notify-program \"notify-me\"\n\
             article-sort-order date-asc\n\
             confirm-exit yes\n\
             macro c pipe-to \"urlview -x\"\n\
             macro d pipe-to \"grep x | less\"\n\
             macro e open-in-browser \"x\"\n\
             article-sort-order author\n",
            &filter::Context::default(),
        );
        let text = |key: &str| match &m.settings.iter().find(|s| s.0 == key).unwrap().1 {
            Value::Text(t) => t.clone(),
            other => panic!("{other:?}"),
        };
        let bookmark = crate::command::CommandLine::parse(&text("bookmark_command"), None).unwrap();
        let values = [("%u", "http://x/1"), ("%t", "A title"), ("%d", ""), ("%f", "The feed")];
        let argv = bookmark.argv(&values, &[]);
        assert_eq!(
            argv,
            [
                "sh",
                "-c",
                "~/bin/bookmark.sh \"${1}\" \"${2}\" \"${3}\" \"${4}\"",
                "sh",
                "http://x/1",
                "A title",
                "",
                "The feed"
            ]
        );
        assert_eq!(
            migrate("bookmark-cmd \"bm --quiet\"\n", &filter::Context::default()).settings[0].1,
            Value::Text("bm --quiet %u %t %d %f".into())
        );
        assert_eq!(text("notify_command"), "notify-me '%n new entries in %f'");
        assert!(m.settings.contains(&("notify_every_feed".into(), Value::Flag(true), 2)), "of any feed, as newsboat's");
        let notifier = crate::command::CommandLine::parse(&text("notify_command"), None).unwrap();
        assert_eq!(notifier.argv(&[("%n", "3"), ("%f", "2 feeds")], &[]), ["notify-me", "3 new entries in 2 feeds"]);
        assert_eq!(text("sort"), "oldest");
        assert!(m.settings.contains(&("confirm_quit".into(), Value::Flag(true), 4)));
        assert_eq!((action_for("quit"), action_for("hard-quit")), (Some("back"), Some("quit")), "newsboat's q is back");
        assert_eq!(
            m.macros,
            [
                ("c".to_string(), vec![":pipe urlview -x".to_string()], 5),
                ("d".to_string(), vec![":pipe sh -c 'grep x | less' sh".to_string()], 6)
            ],
            "pipe-to carries its command"
        );
        let why: Vec<&str> = m.skipped.iter().map(|s| s.2.as_str()).collect();
        assert_eq!(why.len(), 2, "{why:?}");
        assert!(why[0].contains("open-in-browser \"x\" takes an argument"), "{why:?}");
        assert!(why[1].contains("by flags, author"), "{why:?}");
    }

    #[test]
    fn without_auto_reload_newsboat_never_refreshes_on_its_own() {
        let m = migrate("reload-time 30\n", &filter::Context::default());
        assert_eq!(m.settings, vec![("refresh_interval_minutes".into(), Value::Number(0), 1)]);
    }

    #[test]
    fn podboats_download_path_max_downloads_and_auto_enqueue_come_over() {
        let m = migrate(
            "download-path \"~/Podcasts/%n\"\nmax-downloads 3\nmax-downloads 900\npodcast-auto-enqueue yes\n",
            &filter::Context::default(),
        );
        assert!(m.settings.contains(&("download_dir".into(), Value::Text("~/Podcasts".into()), 1)));
        assert!(m.settings.contains(&("max_downloads".into(), Value::Number(3), 2)));
        assert!(m.settings.contains(&("auto_download".into(), Value::Flag(true), 4)));
        let why: Vec<usize> = m.skipped.iter().map(|s| s.0).collect();
        assert_eq!(why, [1, 3], "the %n folder is said, and 900 at once refused: {:?}", m.skipped);
    }
}
