//! The keymap: one table of (context, action, keys, help line). Every key the reader answers is an [`Action`]
//! bound here; `update` matches on actions, never on key codes. The help overlay, the hints on screen,
//! docs/keys.md's key table, the man page's KEYS and `tidings keys` are all drawn from this table, and `[keys]`
//! in the config rebinds it.
//!
//! Lookup goes from the most specific context to [`Context::General`]: a key bound in the entry list wins there
//! over the same key in general. Prompts (text input) never fall back: typing `j` types a `j`.

mod key;
mod table;

pub use key::Key;
pub use table::{Action, Context};

use crossterm::event::KeyEvent;
use std::collections::BTreeMap;
use table::DEFAULTS;

/// One line of the table: what an action does in a context, and the keys that do it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub context: Context,
    pub action: Action,
    pub keys: Vec<Key>,
    pub help: &'static str,
}

/// A bad `[keys]` entry: which one, and why. The config loader adds the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeymapError {
    /// The dotted key in the config (`keys.entries.open`).
    pub key: String,
    pub message: String,
}

/// The bindings in effect: the defaults with the user's changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keymap {
    bindings: Vec<Binding>,
    lookup: BTreeMap<(Context, Key), Action>,
}

impl Default for Keymap {
    fn default() -> Keymap {
        let bindings = DEFAULTS
            .iter()
            .map(|(context, action, keys, help)| Binding {
                context: *context,
                action: *action,
                keys: keys.iter().map(|k| Key::parse(k).expect("default keys parse")).collect(),
                help,
            })
            .collect();
        Keymap::from_bindings(bindings).expect("the default keymap has no conflicts")
    }
}

impl Keymap {
    fn from_bindings(bindings: Vec<Binding>) -> Result<Keymap, KeymapError> {
        let mut lookup = BTreeMap::new();
        for b in &bindings {
            for key in &b.keys {
                if let Some(other) = lookup.insert((b.context, *key), b.action)
                    && other != b.action
                {
                    return Err(KeymapError {
                        key: config_key(b.context, b.action),
                        message: format!(
                            "{key} is bound to both {} and {} in {}; give one of them another key",
                            other.name(),
                            b.action.name(),
                            b.context.title().to_lowercase(),
                        ),
                    });
                }
            }
        }
        Ok(Keymap { bindings, lookup })
    }

    /// The defaults changed by a `[keys]` table: `action = "key"` or `action = ["key", …]` rebinds an action in
    /// general (which every pane and dialog falls back to); `[keys.CONTEXT]` rebinds it in one context only; an
    /// empty list unbinds it. A user's key taken from another action's defaults moves to the user's action.
    pub fn with_config(table: &toml::Table) -> Result<Keymap, KeymapError> {
        Keymap::with_config_told(table).map(|(keymap, _)| keymap)
    }

    /// [`Keymap::with_config`], with a warning for each default key the user's bindings took from another
    /// action, naming both (`` `J` now does next_feed, no longer next_entry ``) and saying when the other action
    /// is left with no key at all: a rebinding must not unbind an action silently.
    /// Each warning is (the config key of the user's binding, what it did).
    pub fn with_config_told(table: &toml::Table) -> Result<(Keymap, Vec<(String, String)>), KeymapError> {
        let mut warnings = Vec::new();
        let mut bindings = Keymap::default().bindings;
        let mut user: Vec<(Context, Action, Vec<Key>)> = Vec::new();
        for (name, value) in table {
            if let Some(context) = Context::from_name(name)
                && let toml::Value::Table(inner) = value
            {
                for (action_name, keys) in inner {
                    user.push(user_binding(context, action_name, keys)?);
                }
                continue;
            }
            if let toml::Value::Table(_) = value {
                return Err(KeymapError {
                    key: format!("keys.{name}"),
                    message: format!(
                        "'{name}' is not a context; contexts are {}",
                        Context::ALL.map(Context::name).join(", ")
                    ),
                });
            }
            user.push(user_binding(Context::General, name, value)?);
        }
        // Two user bindings of one key in one context are a mistake the user must settle.
        for (i, (context, action, keys)) in user.iter().enumerate() {
            for (other_context, other_action, other_keys) in &user[..i] {
                if context == other_context
                    && action != other_action
                    && let Some(key) = keys.iter().find(|k| other_keys.contains(k))
                {
                    return Err(KeymapError {
                        key: config_key(*context, *action),
                        message: format!(
                            "{key} is also bound to {} (keys.{}{}); a key can do one thing",
                            other_action.name(),
                            if *other_context == Context::General {
                                String::new()
                            } else {
                                format!("{}.", other_context.name())
                            },
                            other_action.name()
                        ),
                    });
                }
            }
        }
        for (context, action, keys) in &user {
            match bindings.iter_mut().find(|b| b.context == *context && b.action == *action) {
                Some(b) => b.keys = keys.clone(),
                None => {
                    // An action bound where it has no default: it keeps its help line from elsewhere.
                    let help = bindings.iter().find(|b| b.action == *action).map_or("", |b| b.help);
                    bindings.push(Binding { context: *context, action: *action, keys: keys.clone(), help });
                }
            }
            // The user's keys leave the other actions of the same context.
            for b in bindings.iter_mut().filter(|b| b.context == *context && b.action != *action) {
                let taken: Vec<Key> = b.keys.iter().copied().filter(|k| keys.contains(k)).collect();
                if taken.is_empty() {
                    continue;
                }
                b.keys.retain(|k| !keys.contains(k));
                // The other action's own binding by the user took its keys knowingly: no warning for that.
                if user.iter().any(|(c, a, _)| c == context && *a == b.action) {
                    continue;
                }
                let named = taken.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
                let left = match b.keys.first() {
                    Some(k) => format!("{} keeps `{k}`", b.action.name()),
                    None => format!(
                        "{} has no key left; give it one in {}",
                        b.action.name(),
                        config_key(b.context, b.action)
                    ),
                };
                warnings.push((
                    config_key(*context, *action),
                    format!("{named} now does {}, no longer {} ({left})", action.name(), b.action.name()),
                ));
            }
        }
        Ok((Keymap::from_bindings(bindings)?, warnings))
    }

    /// The action `key` does in `context`, if any.
    pub fn action(&self, context: Context, key: &KeyEvent) -> Option<Action> {
        let key = Key::from_event(key);
        self.lookup
            .get(&(context, key))
            .copied()
            .or_else(|| context.falls_back().then(|| self.lookup.get(&(Context::General, key)).copied()).flatten())
    }

    /// The keys that do `action` in `context` (falling back to general), for hints on screen.
    pub fn keys_for(&self, context: Context, action: Action) -> Vec<Key> {
        let own = self.bindings.iter().find(|b| b.context == context && b.action == action);
        match own {
            Some(b) => b.keys.clone(),
            None if context.falls_back() => self.keys_for(Context::General, action),
            None => Vec::new(),
        }
    }

    /// A short hint: the first key of `action` (`"?"`), or an empty string when it has none.
    pub fn hint(&self, context: Context, action: Action) -> String {
        self.keys_for(context, action).first().map(Key::to_string).unwrap_or_default()
    }

    /// A hint naming the key in effect for `action` in `context`: `with` is the phrase around it, `{}` where the
    /// key goes (`" ({} undoes it)"`). Empty when the action has no key there, so no message names a key that
    /// does not do what it says.
    pub fn say(&self, context: Context, action: Action, with: &str) -> String {
        match self.keys_for(context, action).first() {
            Some(key) => with.replacen("{}", &key.to_string(), 1),
            None => String::new(),
        }
    }

    /// A help line with the keys it names filled in: `{prompt.toggle_scope}` becomes the key in effect for that
    /// action there (or "its key", when it has none).
    pub fn help_text(&self, help: &str) -> String {
        let mut out = String::with_capacity(help.len());
        let mut rest = help;
        while let Some(start) = rest.find('{') {
            let Some(len) = rest[start..].find('}') else { break };
            out.push_str(&rest[..start]);
            let name = &rest[start + 1..start + len];
            let named = name.split_once('.').and_then(|(c, a)| Some((Context::from_name(c)?, Action::from_name(a)?)));
            match named.and_then(|(context, action)| self.keys_for(context, action).first().copied()) {
                Some(key) => out.push_str(&key.to_string()),
                None => out.push_str("its key"),
            }
            rest = &rest[start + len + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The bindings of one context that have keys, in table order.
    pub fn bindings(&self, context: Context) -> impl Iterator<Item = &Binding> {
        self.bindings.iter().filter(move |b| b.context == context && !b.keys.is_empty())
    }

    /// The whole table as help lines: (context heading, keys, what they do), contexts in order. An action the
    /// config unbound stays, as "unbound": it exists, and the config can bind it again.
    /// Actions of one context that say the same thing (`choose_1` … `choose_9`) share one line.
    pub fn help_rows(&self) -> Vec<(Context, String, String)> {
        let mut rows: Vec<(Context, String, String)> = Vec::new();
        for context in Context::ALL {
            for b in self.bindings.iter().filter(|b| b.context == context) {
                let keys = if b.keys.is_empty() { "unbound".to_string() } else { join_keys(&b.keys) };
                let help = self.help_text(b.help);
                match rows.last_mut() {
                    Some((c, shown, said)) if *c == context && *said == help && !b.keys.is_empty() => {
                        shown.push_str(", ");
                        shown.push_str(&keys);
                    }
                    _ => rows.push((context, keys, help)),
                }
            }
        }
        for row in &mut rows {
            row.1 = digit_run(&row.1);
        }
        rows
    }

    /// The table as Markdown, one table per context: docs/keys.md's key section is this text.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for context in Context::ALL {
            let rows: Vec<&Binding> = self.bindings(context).collect();
            if rows.is_empty() {
                continue;
            }
            out.push_str(&format!("**{}**\n\n| key | does | config name |\n|---|---|---|\n", context.title()));
            for b in rows {
                let keys: Vec<String> =
                    b.keys.iter().map(|k| format!("`{}`", k.to_string().replace('|', "\\|"))).collect();
                out.push_str(&format!(
                    "| {} | {} | `{}` |\n",
                    keys.join(", "),
                    self.help_text(b.help),
                    config_key(context, b.action)
                ));
            }
            out.push('\n');
        }
        out
    }
}

impl Keymap {
    /// The table as the `[keys]` section of a config file, every binding commented out with its help line:
    /// config.example.toml's key section is this text.
    pub fn toml_example(&self) -> String {
        let mut out = String::new();
        for context in Context::ALL {
            let rows: Vec<&Binding> = self.bindings(context).collect();
            if rows.is_empty() {
                continue;
            }
            match context {
                Context::General => out.push_str("[keys]\n"),
                other => out.push_str(&format!("\n[keys.{}]\n", other.name())),
            }
            for b in rows {
                let keys: Vec<String> = b.keys.iter().map(|k| format!("{:?}", config_name(k))).collect();
                let binding = format!("# {} = [{}]", b.action.name(), keys.join(", "));
                let help = self.help_text(b.help);
                // One wrap width for the whole example file: a help line too long to follow goes above.
                if binding.chars().count() + help.chars().count() + 6 > EXAMPLE_WIDTH {
                    out.push_str(&format!("# ({help}):\n{binding}\n"));
                } else {
                    out.push_str(&format!("{binding}    # {help}\n"));
                }
            }
        }
        out
    }
}

/// The widest line of config.example.toml, whose `[keys]` section [`Keymap::toml_example`] writes.
pub const EXAMPLE_WIDTH: usize = 110;

/// A key as the config file writes it (arrows by name, not as glyphs).
fn config_name(key: &Key) -> String {
    let shown = key.to_string();
    match shown.as_str() {
        "↑" => "Up".into(),
        "↓" => "Down".into(),
        "←" => "Left".into(),
        "→" => "Right".into(),
        _ => shown,
    }
}

/// A run of three or more digit keys, `1, 2, 3, 4`, as `1–4`; other key lists as they are.
fn digit_run(keys: &str) -> String {
    let digits: Vec<u32> = keys.split(", ").filter_map(|k| k.parse().ok().filter(|d: &u32| *d < 10)).collect();
    let consecutive = digits.windows(2).all(|w| w[1] == w[0] + 1);
    if digits.len() >= 3 && digits.len() == keys.split(", ").count() && consecutive {
        format!("{}–{}", digits[0], digits[digits.len() - 1])
    } else {
        keys.to_string()
    }
}

/// Keys as help shows them: `j, ↓`.
pub fn join_keys(keys: &[Key]) -> String {
    keys.iter().map(Key::to_string).collect::<Vec<_>>().join(", ")
}

fn config_key(context: Context, action: Action) -> String {
    match context {
        Context::General => format!("keys.{}", action.name()),
        other => format!("keys.{}.{}", other.name(), action.name()),
    }
}

fn user_binding(context: Context, name: &str, value: &toml::Value) -> Result<(Context, Action, Vec<Key>), KeymapError> {
    let Some(action) = Action::from_name(name) else {
        let mut known: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
        known.sort_unstable();
        return Err(KeymapError {
            key: if context == Context::General {
                format!("keys.{name}")
            } else {
                format!("keys.{}.{name}", context.name())
            },
            message: format!("'{name}' is not an action; actions are {}", known.join(", ")),
        });
    };
    let err = |message: String| KeymapError { key: config_key(context, action), message };
    if !action.works_in(context) {
        let places: Vec<&str> = Context::ALL.into_iter().filter(|c| action.works_in(*c)).map(Context::name).collect();
        return Err(err(format!(
            "'{}' does nothing in {}; bind it in {}",
            action.name(),
            context.name(),
            places.join(", ")
        )));
    }
    let texts: Vec<&str> = match value {
        toml::Value::String(s) => vec![s.as_str()],
        toml::Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().ok_or_else(|| err("write keys as strings: [\"j\", \"Down\"]".into())))
            .collect::<Result<_, _>>()?,
        _ => return Err(err("write a key as a string (\"j\") or a list of them ([\"j\", \"Down\"])".into())),
    };
    let keys = texts.iter().map(|t| Key::parse(t).map_err(&err)).collect::<Result<Vec<_>, _>>()?;
    Ok((context, action, keys))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn press(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    fn keys(text: &str) -> Keymap {
        Keymap::with_config(&text.parse::<toml::Table>().unwrap()).unwrap()
    }

    fn err(text: &str) -> KeymapError {
        Keymap::with_config(&text.parse::<toml::Table>().unwrap()).unwrap_err()
    }

    #[test]
    fn ctrl_and_alt_are_distinct_from_plain_keys() {
        let map = Keymap::default();
        assert_eq!(
            map.action(Context::Feeds, &press(KeyCode::Char('f'), KeyModifiers::NONE)),
            Some(Action::FollowLink)
        );
        assert_eq!(map.action(Context::Feeds, &press(KeyCode::Char('f'), KeyModifiers::CONTROL)), None);
        assert_eq!(
            map.action(Context::Feeds, &press(KeyCode::Char('z'), KeyModifiers::CONTROL)),
            Some(Action::Suspend)
        );
        assert_eq!(map.action(Context::Feeds, &press(KeyCode::Char('n'), KeyModifiers::ALT)), None);
        assert_eq!(map.action(Context::Feeds, &press(KeyCode::Char('G'), KeyModifiers::SHIFT)), Some(Action::Bottom));
        assert_eq!(map.action(Context::Feeds, &press(KeyCode::BackTab, KeyModifiers::SHIFT)), Some(Action::PrevPane));
    }

    #[test]
    fn a_context_binding_wins_over_general_and_prompts_never_fall_back() {
        let map = Keymap::default();
        let space = press(KeyCode::Char(' '), KeyModifiers::NONE);
        assert_eq!(map.action(Context::Article, &space), Some(Action::PageDown));
        assert_eq!(map.action(Context::Entries, &space), None);
        let q = press(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(map.action(Context::Help, &q), Some(Action::Close));
        assert_eq!(map.action(Context::Prompt, &q), None, "q is typed into a prompt");
        assert_eq!(map.action(Context::Picker, &press(KeyCode::Char('j'), KeyModifiers::NONE)), Some(Action::Down));
    }

    #[test]
    fn a_rebinding_replaces_the_defaults_of_that_action() {
        let map = keys("down = [\"Ctrl-n\", \"Down\"]\nup = [\"Ctrl-p\", \"Up\"]\n");
        let ctrl_n = press(KeyCode::Char('n'), KeyModifiers::CONTROL);
        assert_eq!(map.action(Context::Entries, &ctrl_n), Some(Action::Down));
        assert_eq!(map.action(Context::Picker, &ctrl_n), Some(Action::Down), "dialogs follow general");
        assert_eq!(map.action(Context::Entries, &press(KeyCode::Char('j'), KeyModifiers::NONE)), None);
        assert_eq!(
            map.keys_for(Context::General, Action::Up),
            vec![Key::parse("Ctrl-p").unwrap(), Key::parse("Up").unwrap()]
        );
    }

    #[test]
    fn a_default_key_taken_by_another_action_is_warned_about_naming_both() {
        let told = |text: &str| Keymap::with_config_told(&text.parse::<toml::Table>().unwrap()).unwrap().1;
        assert_eq!(
            told("next_feed = \"j\"\n"),
            [("keys.next_feed".to_string(), "`j` now does next_feed, no longer down (down keeps `↓`)".to_string())]
        );
        assert_eq!(
            told("next_feed = [\"J\", \"s\"]\n"),
            [(
                "keys.next_feed".to_string(),
                "`s` now does next_feed, no longer star (star has no key left; give it one in keys.star)".to_string()
            )]
        );
        assert!(told("down = [\"F9\"]\n").is_empty(), "keys no other action had: nothing to say");
        assert!(told("next_feed = \"s\"\nstar = \"F8\"\n").is_empty(), "the other action was rebound too");
    }

    #[test]
    fn a_context_table_rebinds_in_that_context_only() {
        let map = keys("[article]\npage_down = [\"Space\", \"Ctrl-f\"]\n");
        let ctrl_f = press(KeyCode::Char('f'), KeyModifiers::CONTROL);
        assert_eq!(map.action(Context::Article, &ctrl_f), Some(Action::PageDown));
        assert_eq!(map.action(Context::Entries, &ctrl_f), None);
    }

    #[test]
    fn a_user_key_taken_from_a_default_moves_to_the_users_action() {
        let map = keys("refresh_all = \"r\"\nrefresh = \"Ctrl-r\"\n");
        assert_eq!(
            map.action(Context::Feeds, &press(KeyCode::Char('r'), KeyModifiers::NONE)),
            Some(Action::RefreshAll)
        );
        assert_eq!(
            map.action(Context::Feeds, &press(KeyCode::Char('r'), KeyModifiers::CONTROL)),
            Some(Action::Refresh)
        );
    }

    #[test]
    fn bad_bindings_are_errors_naming_the_key() {
        let e = err("frobnicate = \"x\"");
        assert_eq!(e.key, "keys.frobnicate");
        assert!(e.message.contains("not an action"), "{e:?}");
        let e = err("down = \"Ctrl-Banana\"");
        assert_eq!(e.key, "keys.down");
        assert!(e.message.contains("Ctrl-Banana"), "{e:?}");
        let e = err("down = \"x\"\nup = \"x\"");
        assert!(e.message.contains("x is also bound"), "{e:?}");
        let e = err("[pane]\ndown = \"x\"");
        assert!(e.message.contains("not a context"), "{e:?}");
        let e = err("down = 3");
        assert!(e.message.contains("as a string"), "{e:?}");
    }

    #[test]
    fn an_empty_list_unbinds_and_help_says_so() {
        let map = keys("mark_all_read = []");
        assert_eq!(map.action(Context::Feeds, &press(KeyCode::Char('A'), KeyModifiers::NONE)), None);
        let rows = map.help_rows();
        let row = rows.iter().find(|(_, _, help)| help.contains("mark the list read")).expect("still listed");
        assert_eq!(row.1, "unbound");
    }

    #[test]
    fn no_context_shares_a_name_with_an_action() {
        // `[keys.X]` and `X = …` under [keys] would be the same TOML key.
        for context in Context::ALL {
            assert!(Action::from_name(context.name()).is_none(), "{} is both", context.name());
        }
    }

    /// Every action the table declares can be bound by its name where it works, and help lists it there: one
    /// declared but left out of the defaults or the contexts would be silently unconfigurable.
    #[test]
    fn every_action_is_configurable_by_its_name_and_shown_in_help() {
        let f12 = press(KeyCode::F(12), KeyModifiers::NONE);
        for &action in Action::ALL {
            let context = Context::ALL
                .into_iter()
                .find(|c| action.works_in(*c))
                .unwrap_or_else(|| panic!("{} can be bound nowhere", action.name()));
            let config = match context {
                Context::General => format!("{} = \"F12\"", action.name()),
                other => format!("[{}]\n{} = \"F12\"", other.name(), action.name()),
            };
            let map = keys(&config);
            assert_eq!(map.action(context, &f12), Some(action), "{config}");
            let shown = map.help_rows();
            assert!(
                shown.iter().any(|(c, keys, help)| *c == context && keys.contains("F12") && !help.is_empty()),
                "{} bound to F12 is not in help",
                action.name()
            );
        }
    }

    #[test]
    fn a_help_line_names_other_keys_as_they_are_bound() {
        let search = |map: &Keymap| {
            map.help_rows().into_iter().find(|(_, keys, _)| keys == "/").map(|(_, _, help)| help).unwrap()
        };
        assert!(search(&Keymap::default()).contains("(Tab in the prompt"), "{}", search(&Keymap::default()));
        let map = keys("[prompt]\ntoggle_scope = \"Ctrl-t\"");
        assert!(search(&map).contains("(Ctrl-t in the prompt"), "{}", search(&map));
    }

    #[test]
    fn every_action_has_a_default_key_somewhere_and_a_name_that_reads_back() {
        let map = Keymap::default();
        for &action in Action::ALL {
            assert_eq!(Action::from_name(action.name()), Some(action));
            assert!(
                Context::ALL.into_iter().any(|c| !map.keys_for(c, action).is_empty()),
                "{} has no key",
                action.name()
            );
        }
    }
}
