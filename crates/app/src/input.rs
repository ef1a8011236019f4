//! A one-line text input with the editing keys people expect of a terminal prompt. Pure state: keys in, text
//! out.

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

    /// Applies an editing key; returns false for keys it does not use (Enter, Esc, Tab…).
    pub fn handle(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if self.selected {
            match key.code {
                // Typing replaces the selection; deleting or cutting clears it.
                KeyCode::Char(c) if !ctrl && !c.is_control() => self.clear(),
                KeyCode::Backspace | KeyCode::Delete => {
                    self.clear();
                    return true;
                }
                KeyCode::Char('u' | 'w' | 'k') if ctrl => {
                    self.clear();
                    return true;
                }
                // Moving starts editing the text as it is.
                KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End => self.selected = false,
                KeyCode::Char('a' | 'e') if ctrl => self.selected = false,
                // Keys it does not use leave the selection as it is.
                _ => return false,
            }
        }
        match key.code {
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = self.text.len(),
            KeyCode::Char('u') if ctrl => {
                self.text.drain(..self.cursor);
                self.cursor = 0;
            }
            KeyCode::Char('k') if ctrl => self.text.truncate(self.cursor),
            KeyCode::Char('w') if ctrl => {
                let before = &self.text[..self.cursor];
                let start = before.trim_end().rfind(char::is_whitespace).map_or(0, |i| i + 1);
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            KeyCode::Char(_) if ctrl => return false,
            KeyCode::Char(c) if !c.is_control() => {
                if self.text.len() + c.len_utf8() <= MAX_LEN {
                    self.text.insert(self.cursor, c);
                    self.cursor += c.len_utf8();
                }
            }
            KeyCode::Backspace => {
                let start = self.prev_boundary();
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            KeyCode::Delete => {
                let end = self.next_boundary();
                self.text.drain(self.cursor..end);
            }
            KeyCode::Left => self.cursor = self.prev_boundary(),
            KeyCode::Right => self.cursor = self.next_boundary(),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.text.len(),
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn typed(s: &str) -> TextInput {
        let mut input = TextInput::default();
        for c in s.chars() {
            input.handle(key(KeyCode::Char(c)));
        }
        input
    }

    #[test]
    fn typing_and_moving_edit_at_the_cursor() {
        let mut input = typed("héllo");
        input.handle(key(KeyCode::Left));
        input.handle(key(KeyCode::Left));
        input.handle(key(KeyCode::Backspace));
        assert_eq!(input.text(), "hélo");
        input.handle(key(KeyCode::Char('L')));
        assert_eq!(input.text(), "héLlo");
        assert_eq!(input.cursor_chars(), 3);
        input.handle(key(KeyCode::Delete));
        assert_eq!(input.text(), "héLo");
        input.handle(key(KeyCode::Home));
        input.handle(key(KeyCode::Char('>')));
        assert_eq!(input.text(), ">héLo");
        input.handle(key(KeyCode::End));
        assert_eq!(input.cursor_chars(), 5);
    }

    #[test]
    fn readline_keys_cut_words_and_lines() {
        let mut input = typed("http://example.com/ feed");
        input.handle(ctrl('w'));
        assert_eq!(input.text(), "http://example.com/ ");
        input.handle(ctrl('a'));
        input.handle(ctrl('k'));
        assert_eq!(input.text(), "");
        let mut input = typed("abc");
        input.handle(key(KeyCode::Left));
        input.handle(ctrl('u'));
        assert_eq!((input.text(), input.cursor_chars()), ("c", 0));
    }

    #[test]
    fn a_selected_answer_is_replaced_by_typing_cleared_by_backspace_and_kept_by_a_movement() {
        let mut input = TextInput::selected("rust");
        assert!(input.is_selected());
        input.handle(key(KeyCode::Char('g')));
        input.handle(key(KeyCode::Char('o')));
        assert_eq!((input.text(), input.is_selected()), ("go", false));

        let mut input = TextInput::selected("rust");
        input.handle(key(KeyCode::Backspace));
        assert_eq!(input.text(), "");

        let mut input = TextInput::selected("rust");
        assert!(!input.handle(key(KeyCode::Tab)));
        assert!(!input.handle(key(KeyCode::Up)));
        assert!(!input.handle(ctrl('x')));
        assert!(input.is_selected(), "keys it does not use leave the selection");
        let mut cut = TextInput::selected("two words");
        cut.handle(ctrl('w'));
        assert_eq!(cut.text(), "", "Ctrl-w cuts the whole selection, not a word");
        input.handle(key(KeyCode::Left));
        input.handle(key(KeyCode::Char('y')));
        assert_eq!((input.text(), input.is_selected()), ("rusyt", false));
        assert!(!TextInput::selected("").is_selected());
    }

    #[test]
    fn enter_and_escape_are_left_to_the_caller() {
        let mut input = typed("x");
        assert!(!input.handle(key(KeyCode::Enter)));
        assert!(!input.handle(key(KeyCode::Esc)));
        assert_eq!(input.text(), "x");
    }
}
