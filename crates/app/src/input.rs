//! A one-line text input with the editing keys people expect of a terminal prompt (which the keymap binds to
//! its editing actions). Pure state: actions and typed characters in, text out.

use crate::keymap::Action;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextInput {
    text: String,
    /// Byte offset of the cursor, always on a character boundary.
    cursor: usize,
    /// The whole text is selected (a prompt opened with an earlier answer): typing replaces it, deleting
    /// clears it, a movement keeps it and starts editing.
    selected: bool,
}

/// Longest text a prompt accepts.
const MAX_LEN: usize = 4096;

impl TextInput {
    pub fn new(initial: &str) -> TextInput {
        TextInput { text: initial.to_string(), cursor: initial.len(), selected: false }
    }

    /// `initial`, selected: the first character typed replaces it.
    pub fn selected(initial: &str) -> TextInput {
        TextInput { selected: !initial.is_empty(), ..TextInput::new(initial) }
    }

    /// Whether the whole text is selected (drawn highlighted).
    pub fn is_selected(&self) -> bool {
        self.selected
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor as a count of characters from the start (for drawing).
    pub fn cursor_chars(&self) -> usize {
        self.text[..self.cursor].chars().count()
    }

    fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.selected = false;
    }

    fn prev_boundary(&self) -> usize {
        self.text[..self.cursor].char_indices().next_back().map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self) -> usize {
        self.text[self.cursor..].chars().next().map_or(self.cursor, |c| self.cursor + c.len_utf8())
    }

    /// Applies an editing action (from the prompt's keys in the keymap); returns false for actions that do not
    /// edit text.
    pub fn edit(&mut self, action: Action) -> bool {
        if self.selected {
            match action {
                // Deleting or cutting clears the selection; moving starts editing the text as it is.
                Action::DeleteBack
                | Action::DeleteForward
                | Action::DeleteToStart
                | Action::DeleteToEnd
                | Action::DeleteWord => {
                    self.clear();
                    return true;
                }
                Action::CursorLeft | Action::CursorRight | Action::LineStart | Action::LineEnd => self.selected = false,
                // Actions it does not use leave the selection as it is.
                _ => return false,
            }
        }
        match action {
            Action::LineStart => self.cursor = 0,
            Action::LineEnd => self.cursor = self.text.len(),
            Action::DeleteToStart => {
                self.text.drain(..self.cursor);
                self.cursor = 0;
            }
            Action::DeleteToEnd => self.text.truncate(self.cursor),
            Action::DeleteWord => {
                let before = &self.text[..self.cursor];
                let start = before.trim_end().rfind(char::is_whitespace).map_or(0, |i| i + 1);
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            Action::DeleteBack => {
                let start = self.prev_boundary();
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            Action::DeleteForward => {
                let end = self.next_boundary();
                self.text.drain(self.cursor..end);
            }
            Action::CursorLeft => self.cursor = self.prev_boundary(),
            Action::CursorRight => self.cursor = self.next_boundary(),
            _ => return false,
        }
        true
    }

    /// Types a character (a key no action claims); returns false for what cannot be typed (control characters,
    /// Ctrl and Alt combinations). Typing replaces a selection.
    pub fn type_key(&mut self, key: KeyEvent) -> bool {
        let KeyCode::Char(c) = key.code else { return false };
        if key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) || c.is_control() {
            return false;
        }
        if self.selected {
            self.clear();
        }
        if self.text.len() + c.len_utf8() <= MAX_LEN {
            self.text.insert(self.cursor, c);
            self.cursor += c.len_utf8();
        }
        true
    }

    /// A key in a prompt: its editing action if the keymap gives it one, else the character typed.
    pub fn handle(&mut self, action: Option<Action>, key: KeyEvent) -> bool {
        match action {
            Some(action) => self.edit(action),
            None => self.type_key(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::{Context, Keymap};

    /// A key pressed in a prompt, through the default keymap as the prompt sees it.
    trait Press {
        fn press(&mut self, key: KeyEvent) -> bool;
    }

    impl Press for TextInput {
        fn press(&mut self, key: KeyEvent) -> bool {
            let action = Keymap::default().action(Context::Prompt, &key);
            self.handle(action, key)
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn typed(s: &str) -> TextInput {
        let mut input = TextInput::default();
        for c in s.chars() {
            input.press(key(KeyCode::Char(c)));
        }
        input
    }

    #[test]
    fn typing_and_moving_edit_at_the_cursor() {
        let mut input = typed("héllo");
        input.press(key(KeyCode::Left));
        input.press(key(KeyCode::Left));
        input.press(key(KeyCode::Backspace));
        assert_eq!(input.text(), "hélo");
        input.press(key(KeyCode::Char('L')));
        assert_eq!(input.text(), "héLlo");
        assert_eq!(input.cursor_chars(), 3);
        input.press(key(KeyCode::Delete));
        assert_eq!(input.text(), "héLo");
        input.press(key(KeyCode::Home));
        input.press(key(KeyCode::Char('>')));
        assert_eq!(input.text(), ">héLo");
        input.press(key(KeyCode::End));
        assert_eq!(input.cursor_chars(), 5);
    }

    #[test]
    fn readline_keys_cut_words_and_lines() {
        let mut input = typed("http://example.com/ feed");
        input.press(ctrl('w'));
        assert_eq!(input.text(), "http://example.com/ ");
        input.press(ctrl('a'));
        input.press(ctrl('k'));
        assert_eq!(input.text(), "");
        let mut input = typed("abc");
        input.press(key(KeyCode::Left));
        input.press(ctrl('u'));
        assert_eq!((input.text(), input.cursor_chars()), ("c", 0));
    }

    #[test]
    fn a_selected_answer_is_replaced_by_typing_cleared_by_backspace_and_kept_by_a_movement() {
        let mut input = TextInput::selected("rust");
        assert!(input.is_selected());
        input.press(key(KeyCode::Char('g')));
        input.press(key(KeyCode::Char('o')));
        assert_eq!((input.text(), input.is_selected()), ("go", false));

        let mut input = TextInput::selected("rust");
        input.press(key(KeyCode::Backspace));
        assert_eq!(input.text(), "");

        let mut input = TextInput::selected("rust");
        assert!(!input.press(key(KeyCode::Tab)));
        assert!(!input.press(key(KeyCode::Up)));
        assert!(!input.press(ctrl('x')));
        assert!(input.is_selected(), "keys it does not use leave the selection");
        let mut cut = TextInput::selected("two words");
        cut.press(ctrl('w'));
        assert_eq!(cut.text(), "", "Ctrl-w cuts the whole selection, not a word");
        input.press(key(KeyCode::Left));
        input.press(key(KeyCode::Char('y')));
        assert_eq!((input.text(), input.is_selected()), ("rusyt", false));
        assert!(!TextInput::selected("").is_selected());
    }

    #[test]
    fn enter_and_escape_are_left_to_the_caller() {
        let mut input = typed("x");
        assert!(!input.press(key(KeyCode::Enter)));
        assert!(!input.press(key(KeyCode::Esc)));
        assert_eq!(input.text(), "x");
    }
}
