//! What the reader tells the user: the current message in the status bar (it expires, or a newer one replaces
//! it) and a log of the recent ones, in full, for the message-log window.

use crate::keymap::{Action, Context, Keymap};
use crate::model::FeedId;
use std::collections::VecDeque;

/// Seconds a confirmation stays in the status bar.
pub const INFO_SECS: i64 = 8;
/// Seconds an error stays (unless its feed recovers first, or something newer is said).
pub const ERROR_SECS: i64 = 60;
/// Messages the log keeps.
pub const LOG_LEN: usize = 200;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub error: bool,
    /// When it was said (seconds since the epoch).
    pub at: i64,
    /// The feed an error is about: it goes away when that feed refreshes fine.
    pub feed: Option<FeedId>,
    /// A warning (shown as an error is, said as a warning in the log).
    pub warning: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    current: Option<Message>,
    /// The last messages, oldest first.
    pub log: VecDeque<Message>,
}

impl Status {
    /// Says something: it shows until it expires or something newer is said.
    pub fn info(&mut self, text: impl Into<String>, now: i64) {
        self.say(Message { text: text.into(), error: false, at: now, feed: None, warning: false });
    }

    pub fn error(&mut self, text: impl Into<String>, now: i64) {
        self.say(Message { text: text.into(), error: true, at: now, feed: None, warning: false });
    }

    /// Something allowed but unwise (the config's warnings at start): shown as an error is.
    pub fn warning(&mut self, text: impl Into<String>, now: i64) {
        self.say(Message { text: text.into(), error: true, at: now, feed: None, warning: true });
    }

    /// An error about one feed.
    pub fn feed_error(&mut self, feed: FeedId, text: impl Into<String>, now: i64) {
        self.say(Message { text: text.into(), error: true, at: now, feed: Some(feed), warning: false });
    }

    fn say(&mut self, message: Message) {
        self.log(message.clone());
        self.current = Some(message);
    }

    /// Records something in the log without showing it.
    pub fn note(&mut self, text: impl Into<String>, now: i64) {
        self.log(Message { text: text.into(), error: false, at: now, feed: None, warning: false });
    }

    /// Keeps a message in the log, the oldest going when it is full.
    fn log(&mut self, message: Message) {
        if self.log.len() == LOG_LEN {
            self.log.pop_front();
        }
        self.log.push_back(message);
    }

    /// Forgets the message on screen (the log keeps it).
    pub fn clear(&mut self) {
        self.current = None;
    }

    /// A feed refreshed fine: an error about it is no longer news.
    pub fn feed_recovered(&mut self, feed: FeedId) {
        if self.current.as_ref().is_some_and(|m| m.feed == Some(feed)) {
            self.current = None;
        }
    }

    /// The message to show at `now`, if it has not expired.
    pub fn current(&self, now: i64) -> Option<&Message> {
        self.current.as_ref().filter(|m| now - m.at < if m.error { ERROR_SECS } else { INFO_SECS })
    }

    /// The last error said, whether or not it still shows.
    pub fn last_error(&self) -> Option<&Message> {
        self.log.iter().rev().find(|m| m.error)
    }
}

/// A feed's error as the reader says it: a hint that names a command of the command line (a web page in place
/// of a feed: "try `tidings discover URL`") names the reader's key that does it instead.
pub fn in_reader_words(keymap: &Keymap, message: &str) -> String {
    const DISCOVER: &str = "try `tidings discover URL` to find its feed";
    if !message.contains(DISCOVER) {
        return message.to_string();
    }
    let instead =
        keymap.say(Context::General, Action::AddFeed, "press {} and give the page's address: its feed is found");
    let instead =
        if instead.is_empty() { "add the page's address as a feed: its feed is found".into() } else { instead };
    message.replace(DISCOVER, &instead)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_expire_and_newer_ones_replace_older_ones() {
        let mut s = Status::default();
        s.info("Renamed", 100);
        assert_eq!(s.current(100).unwrap().text, "Renamed");
        assert!(s.current(100 + INFO_SECS).is_none(), "a confirmation expires");
        s.error("cannot save", 200);
        assert!(s.current(200 + INFO_SECS).is_some(), "an error stays longer");
        s.info("Marked 3 entries read", 201);
        assert_eq!(s.current(201).unwrap().text, "Marked 3 entries read");
        assert_eq!(s.log.len(), 3);
        assert_eq!(s.last_error().unwrap().text, "cannot save");
    }

    #[test]
    fn a_feed_error_goes_when_the_feed_recovers() {
        let mut s = Status::default();
        s.feed_error(FeedId(7), "Seven: HTTP 500", 10);
        s.feed_recovered(FeedId(8));
        assert!(s.current(11).is_some());
        s.feed_recovered(FeedId(7));
        assert!(s.current(11).is_none());
        assert_eq!(s.log.len(), 1, "the log keeps it");
    }

    #[test]
    fn the_log_keeps_the_last_messages() {
        let mut s = Status::default();
        for i in 0..LOG_LEN + 5 {
            s.info(format!("m{i}"), 0);
        }
        assert_eq!(s.log.len(), LOG_LEN);
        assert_eq!(s.log.front().unwrap().text, "m5");
    }
}
