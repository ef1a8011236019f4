//! The command line (`:`) and what a newsboat user's habits need besides keys: any action by its name
//! (`:star`, `:open-in-browser`), commands (`:set hide_read_feeds on`, `:save FILE`, `:pipe CMD`, `:copy [N]`,
//! `:bookmark`, `:hide`, `:unhide`, `:show-hidden`), with completion (Tab) and a history (Up, Down); macros (the
//! macro key, then a key: a list of actions from `[macros]`); piping the article's text or address to a
//! command (split into arguments, no shell unless the user writes `sh -c`), saving it to a file, copying an
//! address, and the bookmark command. The runtime does the I/O these ask for ([`Effect::Pipe`] and the others).

use super::dialogs::{Dialog, Prompt, PromptPurpose};
use super::keymap::{Action, Context, Key};
use super::{Effect, Pane, State};
use crate::model::UserWrite;
use crate::sanitize::one_line;
use crossterm::event::KeyEvent;

/// Lines the command line's history keeps.
const HISTORY_LEN: usize = 100;

/// Commands besides the actions, with what they take.
const COMMANDS: &[(&str, &str)] = &[
    ("set", "NAME VALUE: hide_read_feeds, show_hidden_feeds, unread_only (on/off), sort (newest, oldest, feed, title)"),
    ("save", "FILE: the article's text"),
    ("pipe", "COMMAND: the article's text on its standard input"),
    ("pipe-url", "COMMAND: the entry's address on its standard input"),
    ("copy", "[N]: the entry's address, or link N's"),
    ("mark", "[QUERY]: the entry, or every entry of the list the query matches, for what comes next"),
    ("unmark", "every marked entry"),
    ("export", "FOLDER: the marked entries (or the entry) as Markdown files"),
    ("hide", "the selected feed, out of the feed list"),
    ("unhide", "the selected feed, back in the feed list"),
    ("show-hidden-feeds", "hidden feeds in the feed list, or not"),
    ("macro", "KEY: run that macro"),
    ("q", "quit"),
];

/// One step of a macro: an action, or a line of the command line with its arguments (`:pipe urlview`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacroStep {
    Action(Action),
    Command(String),
}

impl MacroStep {
    /// A step as the config writes it: an action's name, or `:` and a command line.
    pub fn named(text: &str) -> Option<MacroStep> {
        match text.strip_prefix(':') {
            Some(line) if !line.trim().is_empty() => Some(MacroStep::Command(line.trim().to_string())),
            Some(_) => None,
            None => Action::named(text).map(MacroStep::Action),
        }
    }
}

/// The command line's own state: what was typed before, and where Up has got to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Commands {
    pub history: Vec<String>,
    /// The history line shown (Up, Down), counted from the newest.
    pub browsing: Option<usize>,
    /// Macros: a key and its steps.
    pub macros: Vec<(Key, Vec<MacroStep>)>,
    /// The key after the macro key is a macro's.
    pub awaiting_macro: bool,
    /// The config has a `bookmark_command`.
    pub bookmark_command: bool,
    /// The config has a `save_command`.
    pub save_command: bool,
    /// The folder the last export went to, offered again.
    pub export_dir: Option<String>,
    /// Where in the folder each exported entry goes (`export_path` in the config); empty: the default.
    pub export_template: String,
    /// `q` asks first (`confirm_quit`).
    pub confirm_quit: bool,
}

const HINT: &str = "an action (star, open-in-browser…) or a command (set, save, pipe, copy…); Tab completes";

/// `:`: opens the command line.
pub fn open(state: &mut State) {
    state.commands.browsing = None;
    state.dialog = Some(Dialog::Prompt(Prompt::new(":", HINT, "", PromptPurpose::Command)));
}

/// Every name the command line knows: actions that work in the panes, and commands.
fn names() -> Vec<String> {
    let mut names: Vec<String> = Action::ALL
        .iter()
        .filter(|a| a.works_in_panes())
        .map(|a| a.name().replace('_', "-"))
        .chain(COMMANDS.iter().map(|(c, _)| c.to_string()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Tab on the command line: the word typed so far completed as far as the names agree; the candidates are said
/// under the prompt.
pub fn complete(prompt: &mut Prompt) {
    let typed = prompt.input.text().to_string();
    if typed.contains(' ') {
        return;
    }
    let word = typed.replace('_', "-");
    let matching: Vec<String> = names().into_iter().filter(|n| n.starts_with(&word)).collect();
    match matching.as_slice() {
        [] => prompt.error = Some(format!("no action or command starts with {}", one_line(&typed, 40))),
        [only] => {
            prompt.input = crate::input::TextInput::new(&format!("{only} "));
            prompt.error = None;
        }
        many => {
            let common = many.iter().skip(1).fold(many[0].clone(), |common, n| {
                common.chars().zip(n.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a).collect()
            });
            prompt.input = crate::input::TextInput::new(&common);
            let shown: Vec<&str> = many.iter().take(12).map(String::as_str).collect();
            let more = if many.len() > 12 { format!(" … {} more", many.len() - 12) } else { String::new() };
            prompt.error = Some(format!("{}{more}", shown.join("  ")));
        }
    }
}

/// Up and Down on the command line: the lines typed before.
pub fn history(state: &mut State, prompt: &mut Prompt, back: bool) {
    let history = &state.commands.history;
    if history.is_empty() {
        return;
    }
    let next = match (state.commands.browsing, back) {
        (None, true) => Some(0),
        (None, false) => None,
        (Some(i), true) => Some((i + 1).min(history.len() - 1)),
        (Some(0), false) => None,
        (Some(i), false) => Some(i - 1),
    };
    state.commands.browsing = next;
    let text = next.map(|i| history[history.len() - 1 - i].clone()).unwrap_or_default();
    prompt.input = crate::input::TextInput::new(&text);
    prompt.error = None;
}

/// The line typed on the command line: an action by its name, or a command.
pub fn submit(state: &mut State, text: &str) -> Result<Vec<Effect>, String> {
    let line = text.trim();
    if line.is_empty() {
        return Err(format!(
            "type an action or a command{}",
            state.keymap.say(Context::Prompt, Action::Close, ", or press {}")
        ));
    }
    let (word, rest) = line.split_once(char::is_whitespace).map_or((line, ""), |(w, r)| (w, r.trim()));
    let effects = run(state, word, rest)?;
    if state.commands.history.last().map(String::as_str) != Some(line) {
        state.commands.history.push(line.to_string());
        if state.commands.history.len() > HISTORY_LEN {
            state.commands.history.remove(0);
        }
    }
    state.commands.browsing = None;
    Ok(effects)
}

/// What `:set` changes.
const SETTINGS: &[&str] = &["hide_read_feeds", "show_hidden_feeds", "unread_only", "sort"];

fn on_off(value: &str) -> Result<bool, String> {
    match value {
        "on" | "yes" | "true" | "1" => Ok(true),
        "off" | "no" | "false" | "0" => Ok(false),
        other => Err(format!("'{}' is not on or off", one_line(other, 40))),
    }
}

fn run(state: &mut State, word: &str, rest: &str) -> Result<Vec<Effect>, String> {
    let now = state.clock.now;
    match word {
        "q" | "quit" => {
            state.quit = true;
            Ok(Vec::new())
        }
        "set" => {
            let (name, value) = rest.split_once(char::is_whitespace).map_or((rest, ""), |(n, v)| (n, v.trim()));
            match name.replace('-', "_").as_str() {
                "hide_read_feeds" => {
                    let on = on_off(value)?;
                    Ok(if on == state.feeds.hide_read { Vec::new() } else { super::feeds::toggle_hide_read(state) })
                }
                "show_hidden_feeds" => {
                    state.feeds.show_hidden = on_off(value)?;
                    state.feeds.rebuild_rows();
                    Ok(Vec::new())
                }
                "unread_only" => {
                    let on = on_off(value)?;
                    Ok(if on == state.entries.unread_only {
                        Vec::new()
                    } else {
                        super::entries::toggle_unread_only(state)
                    })
                }
                "sort" => {
                    let sort = crate::model::Sort::from_name(value)
                        .ok_or_else(|| "sort is newest, oldest, feed or title".to_string())?;
                    Ok(super::entries::sort_by(state, sort))
                }
                "" => Err(format!("set what? {}", SETTINGS.join(", "))),
                other => Err(match tidings_core::text::closest(other, SETTINGS) {
                    Some(near) => format!("tidings has no setting {}: did you mean {near}?", one_line(other, 40)),
                    None => format!(
                        "tidings has no setting {} to change here ({}); the others are in the config file",
                        one_line(other, 40),
                        SETTINGS.join(", ")
                    ),
                }),
            }
        }
        "save" | "save!" if rest.is_empty() => Err("save to which file? :save FILE".into()),
        "save" | "save!" => save(state, rest, word == "save!"),
        "pipe" | "pipe-url" if rest.is_empty() => Err("pipe to which command? :pipe COMMAND".into()),
        "pipe" | "pipe-url" => pipe(state, rest, word == "pipe-url"),
        "mark" if !rest.is_empty() => super::marked::by_query(state, rest),
        "unmark" => Ok(super::marked::clear(state)),
        "export" if !rest.is_empty() => super::exporting::export(state, rest),
        "copy" if rest.is_empty() => Ok(copy_url(state)),
        "copy" => copy_link(state, rest),
        "hide" | "unhide" => {
            let hidden = word == "hide";
            let Some(feed) = state.feeds.selected_feed().map(|f| (f.id, one_line(&f.title, 80))) else {
                return Err("select a feed in the feed list first".into());
            };
            if let Some(f) = state.feeds.feed_mut(feed.0) {
                f.hidden = hidden;
            }
            state.feeds.rebuild_rows();
            state.status.info(
                if hidden {
                    format!("{} is hidden from the feed list (:show-hidden-feeds shows it)", feed.1)
                } else {
                    format!("{} is back in the feed list", feed.1)
                },
                now,
            );
            Ok(vec![Effect::write(UserWrite::SetFeedHidden { feed_id: feed.0, hidden })])
        }
        "show-hidden-feeds" => {
            state.feeds.show_hidden = !state.feeds.show_hidden;
            state.feeds.rebuild_rows();
            Ok(Vec::new())
        }
        "macro" => {
            let key = Key::parse(rest)?;
            run_macro_key(state, key).ok_or_else(|| format!("no macro on {key}"))
        }
        name => match Action::named(name).filter(|a| a.works_in_panes()) {
            Some(action) => {
                // The dialog closes first: the action may open another.
                super::dialogs::close(state);
                Ok(super::act(state, action))
            }
            // newsboat's name for an action (`:mark-feed-read`) does it, and says tidings's name.
            None if newsboat_action(name).is_some() => {
                let action = newsboat_action(name).unwrap_or(Action::Help);
                super::dialogs::close(state);
                let effects = super::act(state, action);
                let said = state.status.current(now).map(|m| (m.error, m.text.clone()));
                let alias = format!("newsboat's {} is {} here", one_line(name, 40), action.name().replace('_', "-"));
                match said {
                    Some((true, _)) => {}
                    Some((false, text)) => state.status.info(format!("{text} · {alias}"), now),
                    None => state.status.info(alias, now),
                }
                Ok(effects)
            }
            None => {
                let known = names();
                let known: Vec<&str> = known.iter().map(String::as_str).collect();
                let near = tidings_core::text::closest(&name.replace('_', "-"), &known);
                Err(match near {
                    Some(near) => {
                        format!("{} is neither an action nor a command: did you mean {near}?", one_line(name, 40))
                    }
                    None => format!("{} is neither an action nor a command (Tab lists them)", one_line(name, 40)),
                })
            }
        },
    }
}

/// The tidings action a newsboat operation names (`mark-feed-read`: mark-all-read), when it works in the panes.
fn newsboat_action(name: &str) -> Option<Action> {
    let ours = tidings_core::newsboat::config::action_for(name)?;
    Action::named(ours).filter(|a| a.works_in_panes())
}

/// The key after the macro key: that macro's actions, in order.
pub fn on_macro_key(state: &mut State, key: KeyEvent) -> Vec<Effect> {
    state.commands.awaiting_macro = false;
    let key = Key::from_event(&key);
    match run_macro_key(state, key) {
        Some(effects) => effects,
        None => {
            let now = state.clock.now;
            state.status.info(format!("No macro on {key} ([macros] in the config)"), now);
            Vec::new()
        }
    }
}

fn run_macro_key(state: &mut State, key: Key) -> Option<Vec<Effect>> {
    let steps = state.commands.macros.iter().find(|(k, _)| *k == key)?.1.clone();
    let mut effects = Vec::new();
    for step in steps {
        match step {
            MacroStep::Action(action) => effects.extend(super::act(state, action)),
            MacroStep::Command(line) => {
                let (word, rest) =
                    line.split_once(char::is_whitespace).map_or((line.as_str(), ""), |(w, r)| (w, r.trim()));
                match run(state, word, rest) {
                    Ok(more) => effects.extend(more),
                    Err(why) => {
                        // A step that cannot run stops the macro, saying why.
                        let now = state.clock.now;
                        state.status.error(format!("macro {key}: :{line}: {why}"), now);
                        break;
                    }
                }
            }
        }
    }
    Some(effects)
}

/// The open article's text, as shown (header and body), and its entry's address and title.
fn article_text(state: &State) -> Option<String> {
    let view = state.article.ready()?;
    let text: Vec<String> = view
        .text_lines(state.clock.zone, &state.keymap)
        .iter()
        .map(|l| crate::sanitize::strip_controls(&crate::render::line_text(l)).trim_end().to_string())
        .collect();
    Some(text.join("\n") + "\n")
}

/// The entry the keys act on: the open one in the article pane, else the one under the cursor (address, title).
pub(crate) fn entry_address(state: &State) -> Option<(Option<String>, String)> {
    let view = state.article.ready().filter(|_| state.focus == Pane::Article || state.entries.selected().is_none());
    match view {
        Some(v) => Some((v.detail.link.clone(), v.detail.title.clone().unwrap_or_default())),
        None => state.entries.selected().map(|e| (e.link.clone(), e.title.clone().unwrap_or_default())),
    }
}

/// The longest address handed to a command (longer ones are cut): far past any real one.
const MAX_URL: usize = 8 * 1024;

/// The title of the feed of the entry [`entry_address`] names.
fn entry_feed_title(state: &State) -> String {
    let view = state.article.ready().filter(|_| state.focus == Pane::Article || state.entries.selected().is_none());
    match view {
        Some(v) => v.detail.feed_title.clone(),
        None => state
            .entries
            .selected()
            .and_then(|e| state.feeds.feed(e.feed_id))
            .map(|f| f.title.clone())
            .unwrap_or_default(),
    }
}

fn no_article(state: &State, what: &str) -> String {
    format!(
        "Open an entry first{}",
        state.keymap.say(Context::Entries, Action::Open, &format!(" ({{}} opens it), then {what}"))
    )
}

/// `|`: asks for the command to pipe the article (or the marked entries) to.
pub fn ask_pipe(state: &mut State) -> Vec<Effect> {
    let marked = state.entries.marked.len();
    if marked > 0 {
        let hint = format!(
            "a command that reads their Markdown on its standard input (no shell: write sh -c '…' for one){}",
            state.keymap.say(Context::Prompt, Action::ToggleScope, "; {}: their addresses instead")
        );
        state.dialog = Some(Dialog::Prompt(Prompt::new(
            &format!("Pipe the {marked} marked entries to"),
            &hint,
            "",
            PromptPurpose::Pipe { address: false, marked },
        )));
        return Vec::new();
    }
    if state.article.ready().is_none() {
        let now = state.clock.now;
        let said = no_article(state, "pipe it");
        state.status.info(said, now);
        return Vec::new();
    }
    let hint = format!(
        "a command that reads the text on its standard input (no shell: write sh -c '…' for one; %u is the \
         address, %t the title){}",
        state.keymap.say(Context::Prompt, Action::ToggleScope, "; {}: the address instead")
    );
    state.dialog = Some(Dialog::Prompt(Prompt::new(
        "Pipe the article's text to",
        &hint,
        "",
        PromptPurpose::Pipe { address: false, marked: 0 },
    )));
    Vec::new()
}

/// Tab while piping: the text, or the address.
pub fn toggle_pipe(prompt: &mut Prompt) {
    if let PromptPurpose::Pipe { address, marked } = prompt.purpose {
        prompt.purpose = PromptPurpose::Pipe { address: !address, marked };
        prompt.title = match (marked, address) {
            (0, true) => "Pipe the article's text to".into(),
            (0, false) => "Pipe the entry's address to".into(),
            (n, true) => format!("Pipe the {n} marked entries to"),
            (n, false) => format!("Pipe the addresses of the {n} marked entries to"),
        };
    }
}

/// Pipes the article's text (or the entry's address) to `line`.
pub fn pipe(state: &mut State, line: &str, address: bool) -> Result<Vec<Effect>, String> {
    if !state.entries.marked.is_empty() {
        return super::exporting::pipe_marked(state, line, address);
    }
    let command = tidings_core::command::CommandLine::parse(line, None)?;
    // `%u` and `%t` in the command are the entry's address and title, as data (see `command`).
    let (link, title) = entry_address(state).unwrap_or_default();
    let words = command.argv(&[("%u", link.as_deref().unwrap_or("")), ("%t", &one_line(&title, 1000))], &[]);
    let input = if address {
        let (Some(url), _) = entry_address(state).ok_or("select an entry first")? else {
            return Err("the entry has no address".into());
        };
        format!("{}\n", crate::sanitize::strip_controls(&url))
    } else {
        article_text(state).ok_or_else(|| no_article(state, "pipe it"))?
    };
    let now = state.clock.now;
    state.status.info(format!("Piping to {}…", one_line(line, 100)), now);
    Ok(vec![Effect::Pipe { words, input, in_terminal: command.in_terminal }])
}

/// `w`: asks for the file to save the article to.
pub fn ask_save(state: &mut State) -> Vec<Effect> {
    if state.article.ready().is_none() {
        let now = state.clock.now;
        let said = no_article(state, "save it");
        state.status.info(said, now);
        return Vec::new();
    }
    state.dialog = Some(Dialog::Prompt(Prompt::new(
        "Save the article's text to",
        "a file (~ is your home); an existing file is kept unless you save with :save! FILE",
        "",
        PromptPurpose::Save,
    )));
    Vec::new()
}

pub fn save(state: &mut State, path: &str, overwrite: bool) -> Result<Vec<Effect>, String> {
    let text = article_text(state).ok_or_else(|| no_article(state, "save it"))?;
    Ok(vec![Effect::Save { path: path.trim().to_string(), text, overwrite }])
}

/// `y`: copies the entry's address.
pub fn copy_url(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    match entry_address(state) {
        Some((Some(url), _)) => {
            state.status.info(format!("Copied {}", one_line(&url, 2000)), now);
            vec![Effect::Copy(crate::sanitize::strip_controls(&url).into_owned())]
        }
        Some((None, _)) => {
            state.status.info("The entry has no address", now);
            Vec::new()
        }
        None => {
            state.status.info("Select an entry first", now);
            Vec::new()
        }
    }
}

/// `Y`: asks for the number of the link to copy.
pub fn ask_copy_link(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    match state.article.ready().map(|a| a.links.len()) {
        Some(n) if n > 0 => {
            state.dialog = Some(Dialog::Prompt(Prompt::new(
                "Copy a link",
                &format!("the number of the link to copy, 1 to {n} (they are listed at the end of the article)"),
                "",
                PromptPurpose::CopyLink,
            )));
        }
        Some(_) => state.status.info("This article has no links", now),
        None => {
            let said = no_article(state, "copy one of its links");
            state.status.info(said, now);
        }
    }
    Vec::new()
}

pub fn copy_link(state: &mut State, answer: &str) -> Result<Vec<Effect>, String> {
    let links = state.article.ready().map(|a| a.links.as_slice()).unwrap_or_default();
    match answer.trim().parse::<usize>().ok().and_then(|n| n.checked_sub(1)).and_then(|i| links.get(i)) {
        Some(link) => {
            let url = crate::sanitize::strip_controls(&link.url).into_owned();
            let now = state.clock.now;
            state.status.info(format!("Copied {}", one_line(&url, 2000)), now);
            Ok(vec![Effect::Copy(url)])
        }
        None => Err(format!("type a number from 1 to {}", links.len())),
    }
}

/// `Ctrl-b`: hands the entry's address, title, description and feed's title to the bookmark command, as
/// newsboat's `bookmark-cmd` gets them. The description is newsboat's default one (empty: newsboat asks for it,
/// or leaves it empty with `bookmark-autopilot`).
pub fn bookmark(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    if !state.commands.bookmark_command {
        state.status.info(
            "Set bookmark_command in the config to bookmark entries (%u: the address, %t: the title, %d: the \
             description, %f: the feed's title)",
            now,
        );
        return Vec::new();
    }
    match entry_address(state) {
        Some((Some(url), title)) => {
            state.status.info(format!("Bookmarking {}", one_line(&url, 2000)), now);
            let feed = entry_feed_title(state);
            vec![Effect::Bookmark {
                url: crate::sanitize::truncate_bytes(&crate::sanitize::strip_controls(&url), MAX_URL).to_string(),
                title: one_line(&title, 500),
                description: String::new(),
                feed: one_line(&feed, 300),
            }]
        }
        Some((None, _)) => {
            state.status.info("The entry has no address", now);
            Vec::new()
        }
        None => {
            state.status.info("Select an entry first", now);
            Vec::new()
        }
    }
}
