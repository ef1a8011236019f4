//! A key as the keymap knows it: parsed from the config's spelling (`Ctrl-d`, `M-x`, `PgDn`), printed the way
//! help shows it, and matched against terminal events with Ctrl and Alt kept apart from plain keys.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::fmt;

/// A key as the keymap sees it: a key code and the Ctrl and Alt modifiers. Shift is in the character itself
/// (`G`, `?`), so it is kept only for keys that have no shifted character (`Shift-Up`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    code: KeyCodeOrd,
    ctrl: bool,
    alt: bool,
    shift: bool,
}

/// `KeyCode` with an order, so keys sort the same way everywhere they are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum KeyCodeOrd {
    Char(char),
    F(u8),
    Named(u8),
}

/// Named keys: how they are written in the config (first name) and shown, with the code each stands for.
const NAMED: &[(&[&str], &str, KeyCode)] = &[
    (&["enter", "return", "ret", "cr"], "Enter", KeyCode::Enter),
    (&["esc", "escape"], "Esc", KeyCode::Esc),
    (&["tab"], "Tab", KeyCode::Tab),
    (&["backtab"], "Shift-Tab", KeyCode::BackTab),
    (&["backspace", "bs"], "Backspace", KeyCode::Backspace),
    (&["delete", "del"], "Del", KeyCode::Delete),
    (&["insert", "ins"], "Ins", KeyCode::Insert),
    (&["home"], "Home", KeyCode::Home),
    (&["end"], "End", KeyCode::End),
    (&["pageup", "pgup"], "PgUp", KeyCode::PageUp),
    (&["pagedown", "pgdn", "pgdown"], "PgDn", KeyCode::PageDown),
    (&["up", "↑"], "↑", KeyCode::Up),
    (&["down", "↓"], "↓", KeyCode::Down),
    (&["left", "←"], "←", KeyCode::Left),
    (&["right", "→"], "→", KeyCode::Right),
    (&["space", "spc"], "Space", KeyCode::Char(' ')),
];

impl Key {
    /// The key a terminal event stands for.
    pub fn from_event(event: &KeyEvent) -> Key {
        Key::new(event.code, event.modifiers)
    }

    fn new(code: KeyCode, modifiers: KeyModifiers) -> Key {
        let ctrl = modifiers.contains(KeyModifiers::CONTROL);
        let alt = modifiers.contains(KeyModifiers::ALT);
        let mut shift = modifiers.contains(KeyModifiers::SHIFT);
        let code = match code {
            KeyCode::Char(c) => {
                // Shift lives in the character: Ctrl-Shift-a arrives as 'a' or 'A' depending on the terminal.
                let c = if shift && c.is_ascii_lowercase() { c.to_ascii_uppercase() } else { c };
                shift = false;
                KeyCodeOrd::Char(c)
            }
            KeyCode::F(n) => KeyCodeOrd::F(n),
            KeyCode::BackTab => {
                shift = false;
                KeyCodeOrd::Named(named_index(KeyCode::BackTab))
            }
            other => match NAMED.iter().position(|(_, _, c)| *c == other) {
                Some(i) => KeyCodeOrd::Named(i as u8),
                // Keys tidings never binds (media keys, …) all read as one unbindable key.
                None => KeyCodeOrd::Named(u8::MAX),
            },
        };
        Key { code, ctrl, alt, shift }
    }

    /// Parses a key as written in the config: `j`, `G`, `?`, `Ctrl-d`, `C-d`, `Alt-x`, `M-x`, `Shift-Tab`,
    /// `Enter`, `PgDn`, `F5`, `Space`.
    pub fn parse(text: &str) -> Result<Key, String> {
        // " " is the space bar; otherwise spaces around a key are not part of it.
        let trimmed = if text == " " { text } else { text.trim() };
        if trimmed.is_empty() {
            return Err("an empty key".into());
        }
        let mut rest = trimmed;
        let (mut ctrl, mut alt, mut shift) = (false, false, false);
        // Modifiers are prefixes ending in '-' or '+'; what is left is one character or a key's name.
        while rest.chars().count() > 1 {
            let Some(split) = rest.find(['-', '+']).filter(|&i| i > 0) else { break };
            let modifier = rest[..split].to_ascii_lowercase();
            match modifier.as_str() {
                "ctrl" | "control" | "c" => ctrl = true,
                "alt" | "meta" | "m" | "a" => alt = true,
                "shift" | "s" => shift = true,
                _ => break,
            }
            rest = &rest[split + 1..];
        }
        if rest.is_empty() {
            return Err(format!("'{trimmed}' has modifiers but no key"));
        }
        let mut chars = rest.chars();
        let lower = rest.to_lowercase();
        let named = NAMED.iter().find(|(names, _, _)| names.contains(&lower.as_str())).map(|(_, _, code)| *code);
        let code = match (named, chars.next(), chars.next()) {
            (Some(code), _, _) => code,
            (None, Some(c), None) => {
                if ctrl && c.is_ascii_uppercase() {
                    // Terminals cannot tell Ctrl-D from Ctrl-d.
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            _ => match lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()).filter(|n| (1..=24).contains(n)) {
                Some(n) => KeyCode::F(n),
                None => {
                    return Err(format!(
                        "'{trimmed}' is not a key tidings knows (try j, G, Ctrl-d, Alt-x, Enter, Esc, Tab, Space, \
                         PgDn, Up, F5)"
                    ));
                }
            },
        };
        let code = match code {
            KeyCode::Tab if shift => KeyCode::BackTab,
            KeyCode::Char(c) if shift && c.is_ascii_lowercase() => KeyCode::Char(c.to_ascii_uppercase()),
            other => other,
        };
        let mut modifiers = KeyModifiers::NONE;
        modifiers.set(KeyModifiers::CONTROL, ctrl);
        modifiers.set(KeyModifiers::ALT, alt);
        modifiers.set(KeyModifiers::SHIFT, shift);
        Ok(Key::new(code, modifiers))
    }
}

fn named_index(code: KeyCode) -> u8 {
    NAMED.iter().position(|(_, _, c)| *c == code).map_or(u8::MAX, |i| i as u8)
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        if self.shift {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCodeOrd::Char(' ') => f.write_str("Space"),
            KeyCodeOrd::Char(c) => write!(f, "{c}"),
            KeyCodeOrd::F(n) => write!(f, "F{n}"),
            KeyCodeOrd::Named(i) => f.write_str(NAMED.get(usize::from(i)).map_or("?", |(_, shown, _)| shown)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_and_print_back() {
        for (text, shown) in [
            ("j", "j"),
            ("G", "G"),
            ("?", "?"),
            ("Ctrl-d", "Ctrl-d"),
            ("C-d", "Ctrl-d"),
            ("ctrl+D", "Ctrl-d"),
            ("Alt-x", "Alt-x"),
            ("M-x", "Alt-x"),
            ("Shift-Tab", "Shift-Tab"),
            ("backtab", "Shift-Tab"),
            ("Enter", "Enter"),
            ("return", "Enter"),
            ("PageDown", "PgDn"),
            ("Down", "↓"),
            ("space", "Space"),
            (" ", "Space"),
            ("F5", "F5"),
            ("-", "-"),
            ("Ctrl--", "Ctrl--"),
            ("Shift-a", "A"),
        ] {
            let key = Key::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(key.to_string(), shown, "{text}");
            assert_eq!(Key::parse(&key.to_string()).unwrap(), key, "{shown} parses back");
        }
        assert!(Key::parse("Banana").unwrap_err().contains("not a key"));
        assert!(Key::parse("Ctrl-").unwrap_err().contains("no key"));
    }
}
