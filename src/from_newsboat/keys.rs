//! newsboat's `bind-key` adds a key to an operation; the operation keeps its other keys. So an imported binding
//! is written as the action's keys in effect plus the new one (tidings's `[keys]` replaces an action's keys),
//! and a key that another action had is written out of that action's list too, and said. What an import added
//! is remembered in the database, so a second import does not put back a key the user has removed since.

use crate::app::keymap::{Action, Context, Key, Keymap};
use std::collections::{BTreeMap, BTreeSet};

/// The name of the preference that holds what imports added: `action key` lines.
pub(super) const RECORD: &str = "newsboat_keys_added";

/// What the import writes into `[keys]`, and what it says.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct KeyPlan {
    /// Actions and their whole lists of keys, to write.
    pub entries: Vec<(String, Vec<String>)>,
    /// Bindings not written, with why.
    pub notes: Vec<String>,
    /// Keys written that another action had, said with what it keeps.
    pub told: Vec<String>,
    /// (action, key) this import added, for the record.
    pub added: Vec<(String, String)>,
    /// `q` goes back a level once the keys are written, as newsboat's does (by this import, an earlier one, or
    /// the user's own `[keys]`).
    pub q_is_back: bool,
}

/// newsboat's own keys where tidings's differ, as (action, key): `q` goes back a level and quits at the feed
/// list, `Q` quits, and `e` queues an episode (podboat's `enqueue`; tidings downloads it at once). Written as
/// the user's bindings are, before them; left to a `bind-key` or `unbind-key` of that key.
const NEWSBOAT_DEFAULTS: &[(&str, &str)] = &[("back", "q"), ("quit", "Q"), ("download", "e")];

/// [`NEWSBOAT_DEFAULTS`] that the config does not bind or unbind (line 0), then the config's `bindings`.
pub(super) fn with_newsboat_defaults(
    bindings: &[(String, Vec<String>, usize)],
    unbound: &[(String, usize)],
) -> Vec<(String, Vec<String>, usize)> {
    let mentioned = |key: &str| {
        bindings.iter().any(|(_, keys, _)| keys.iter().any(|k| k == key)) || unbound.iter().any(|(k, _)| k == key)
    };
    let defaults = NEWSBOAT_DEFAULTS.iter().filter(|(_, key)| !mentioned(key));
    defaults
        .map(|(action, key)| (action.to_string(), vec![key.to_string()], 0))
        .chain(bindings.iter().cloned())
        .collect()
}

/// The record's (action, key) pairs.
pub(super) fn read_record(text: Option<&str>) -> BTreeSet<(String, String)> {
    text.unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(a, k)| (a.to_string(), k.to_string())))
        .collect()
}

pub(super) fn write_record(pairs: &BTreeSet<(String, String)>) -> String {
    pairs.iter().map(|(a, k)| format!("{a} {k}\n")).collect()
}

/// Plans `bindings` (action, keys, config line) and `unbound` keys (key, config line; taken away first) over the
/// `[keys]` table the config file has (`existing`, whose own entries are left as they are) and what earlier
/// imports added (`before`).
pub(super) fn plan(
    bindings: &[(String, Vec<String>, usize)],
    unbound: &[(String, usize)],
    dialog: &[(String, String, usize)],
    existing: &toml::Table,
    before: &BTreeSet<(String, String)>,
) -> KeyPlan {
    let mut out = KeyPlan::default();
    let keymap = Keymap::with_config(existing).unwrap_or_default();
    let general: Vec<(Action, Vec<Key>)> =
        keymap.bindings(Context::General).map(|b| (b.action, b.keys.clone())).collect();
    let keys_of = |action: Action| general.iter().find(|(a, _)| *a == action).map(|(_, k)| k.clone());
    let mut changed: BTreeMap<&'static str, Vec<Key>> = BTreeMap::new();
    for (key_name, line) in unbound {
        let Ok(key) = Key::parse(key_name) else { continue };
        let Some(holder) = general.iter().find(|(_, k)| k.contains(&key)).map(|(a, _)| *a) else { continue };
        let said = format!("config line {line}: unbind-key {key}");
        if existing.contains_key(holder.name()) {
            out.notes.push(format!("{said}: your [keys] gives {key} to {}; left as it is", holder.name()));
            continue;
        }
        let theirs = changed.entry(holder.name()).or_insert_with(|| keys_of(holder).unwrap_or_default());
        theirs.retain(|k| *k != key);
        let left = match theirs.first() {
            Some(k) => format!("it keeps {k}"),
            None => {
                format!("it has no key left; give it one in [keys], or run it as :{}", holder.name().replace('_', "-"))
            }
        };
        out.told.push(format!("{said}: {} no longer has {key} ({left})", holder.name()));
    }
    for (name, keys, line) in bindings {
        let Some(action) = Action::named(name) else { continue };
        for key_name in keys {
            let Ok(key) = Key::parse(key_name) else { continue };
            let mine = changed.entry(action.name()).or_insert_with(|| keys_of(action).unwrap_or_default());
            if mine.contains(&key) {
                continue;
            }
            let said = match line {
                0 => format!("newsboat's own {key} ({})", action.name()),
                _ => format!("config line {line}: bind-key {key} {}", action.name()),
            };
            if existing.contains_key(action.name()) {
                out.notes.push(format!("{said}: your [keys] sets {} already; left as it is", action.name()));
                continue;
            }
            if before.contains(&(action.name().to_string(), key.to_string())) {
                out.notes.push(format!("{said}: an earlier import added it and it has been removed since; left out"));
                continue;
            }
            let holder = general.iter().find(|(a, k)| *a != action && k.contains(&key)).map(|(a, _)| *a);
            if let Some(other) = holder {
                if existing.contains_key(other.name()) {
                    out.notes.push(format!("{said}: your [keys] gives {key} to {}; left as it is", other.name()));
                    continue;
                }
                let theirs = changed.entry(other.name()).or_insert_with(|| keys_of(other).unwrap_or_default());
                theirs.retain(|k| *k != key);
                let left = match theirs.first() {
                    Some(k) => format!("{} keeps {k}", other.name()),
                    None => format!("{} has no key left; give it one in [keys]", other.name()),
                };
                out.told.push(format!(
                    "{said}: {key} was {}'s key and now does {} ({left})",
                    other.name(),
                    action.name()
                ));
            }
            let keys = changed.get_mut(action.name()).expect("entered above");
            if *line == 0 {
                // newsboat's own key first: the one the footer and the help name.
                keys.insert(0, key);
            } else {
                keys.push(key);
            }
            out.added.push((action.name().to_string(), key.to_string()));
        }
    }
    // An action's keys once the plan is written.
    let keys_after =
        |action: Action| changed.get(action.name()).cloned().or_else(|| keys_of(action)).unwrap_or_default();
    // A dialog's binding: nothing to say where the key does that already (newsboat's `J` in its article list).
    for (name, key_name, line) in dialog {
        let (Some(action), Ok(key)) = (Action::named(name), Key::parse(key_name)) else { continue };
        if !keys_after(action).contains(&key) {
            out.notes.push(format!(
                "config line {line}: bind-key {key} {}: a binding for one of newsboat's dialogs; tidings binds keys \
                 for all panes ([keys]) or one ([keys.entries])",
                action.name()
            ));
        }
    }
    out.q_is_back = keys_after(Action::Back).contains(&Key::parse("q").expect("a key's name"));
    for (name, keys) in changed {
        let action = Action::named(name).expect("an action's own name");
        if keys_of(action).unwrap_or_default() != keys {
            out.entries.push((name.to_string(), keys.iter().map(Key::to_string).collect()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(action: &str, key: &str, line: usize) -> (String, Vec<String>, usize) {
        (action.to_string(), vec![key.to_string()], line)
    }

    #[test]
    fn a_bind_key_adds_to_the_defaults_and_a_key_taken_from_another_action_is_said() {
        let bindings = [binding("down", "j", 1), binding("next_unread", "n", 2), binding("open_in_browser", "x", 3)];
        let plan = plan(&bindings, &[], &[], &toml::Table::new(), &BTreeSet::new());
        // j and n already do those: nothing to write for them; x is added beside o.
        let defaults = Keymap::default();
        let o: Vec<String> =
            defaults.keys_for(Context::General, Action::OpenInBrowser).iter().map(Key::to_string).collect();
        let mut with_x = o;
        with_x.push("x".into());
        assert!(plan.entries.contains(&("open_in_browser".to_string(), with_x)), "{plan:?}");
        assert_eq!(plan.added, [("open_in_browser".to_string(), "x".to_string())]);

        let taking = plan_of(&[binding("toggle_read", "n", 4)]);
        assert!(taking.entries.iter().any(|(a, k)| a == "next_unread" && !k.contains(&"n".to_string())), "{taking:?}");
        assert!(taking.entries.iter().any(|(a, k)| a == "toggle_read" && k.contains(&"m".to_string())), "{taking:?}");
        assert!(
            taking.told.iter().any(|n| n.contains("n was next_unread's key and now does toggle_read")),
            "{taking:?}"
        );
        let mut table = toml::Table::new();
        for (action, keys) in &taking.entries {
            table.insert(action.clone(), toml::Value::Array(keys.iter().cloned().map(toml::Value::String).collect()));
        }
        let (keymap, warnings) = Keymap::with_config_told(&table).unwrap();
        assert!(warnings.is_empty(), "the written keys start without warnings: {warnings:?}");
        assert_eq!(
            keymap.keys_for(Context::General, Action::PageDown),
            defaults.keys_for(Context::General, Action::PageDown)
        );
    }

    #[test]
    fn an_unbind_key_takes_the_key_from_the_action_that_has_it_and_says_so() {
        let plan = plan(
            &[binding("mark_all_read", "x", 2)],
            &[("A".into(), 1), ("n".into(), 3)],
            &[],
            &toml::Table::new(),
            &BTreeSet::new(),
        );
        assert!(plan.entries.contains(&("mark_all_read".to_string(), vec!["x".to_string()])), "{plan:?}");
        assert!(plan.entries.iter().any(|(a, k)| a == "next_unread" && !k.contains(&"n".to_string())), "{plan:?}");
        assert!(plan.told.iter().any(|n| n == "config line 1: unbind-key A: mark_all_read no longer has A (it has no key left; give it one in [keys], or run it as :mark-all-read)"), "{plan:?}");
        // A key the user's own [keys] gives is left to it.
        let mut mine = toml::Table::new();
        mine.insert("mark_all_read".into(), toml::Value::Array(vec![toml::Value::String("A".into())]));
        let kept = super::plan(&[], &[("A".into(), 1)], &[], &mine, &BTreeSet::new());
        assert!(
            kept.entries.is_empty() && kept.notes[0].ends_with("your [keys] gives A to mark_all_read; left as it is"),
            "{kept:?}"
        );
    }

    fn plan_of(bindings: &[(String, Vec<String>, usize)]) -> KeyPlan {
        plan(bindings, &[], &[], &toml::Table::new(), &BTreeSet::new())
    }

    /// A binding in one of newsboat's dialogs is said only where the key does not do that already here.
    #[test]
    fn a_dialogs_binding_the_key_already_does_is_not_said() {
        let next_feed = |key: &str, line| ("next_feed".to_string(), key.to_string(), line);
        let plan = plan(&[], &[], &[next_feed("J", 4), next_feed("F5", 5)], &toml::Table::new(), &BTreeSet::new());
        assert_eq!(plan.notes.len(), 1, "{plan:?}");
        assert!(plan.notes[0].starts_with("config line 5: bind-key F5 next_feed: a binding for one of"), "{plan:?}");
        assert!(plan.entries.is_empty());
    }

    #[test]
    fn a_key_an_earlier_import_added_and_the_user_removed_is_not_put_back() {
        let before = read_record(Some(&write_record(&[("open_in_browser".to_string(), "x".to_string())].into())));
        let plan = plan(&[binding("open_in_browser", "x", 3)], &[], &[], &toml::Table::new(), &before);
        assert!(plan.entries.is_empty() && plan.added.is_empty(), "{plan:?}");
        assert!(plan.notes[0].contains("removed since"), "{plan:?}");
    }
}
