//! A question that wants a line of text. The answer goes to the module that asked ([`PromptPurpose`], through
//! `crate::answers`); a refused answer keeps the prompt open with the reason under it.

use super::{Answer, Next};
use crate::State;
use crate::input::TextInput;
use crate::keymap::Action;
use crate::model::{FeedId, FolderId};
use crate::sanitize::one_line;
use crossterm::event::KeyEvent;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub title: String,
    pub hint: String,
    pub input: TextInput,
    /// Why the last answer was refused.
    pub error: Option<String>,
    pub purpose: PromptPurpose,
}

/// What the answer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptPurpose {
    ForceEncoding(FeedId),
    /// One of a feed's settings, as `key = value` (its `[feeds."URL"]` table in the config).
    FeedSetting(FeedId),
    /// Open link N of the article being read.
    FollowLink,
    /// Play media file N of the entry being read.
    PlayMedia,
    /// Words to search for, in every feed or within one feed or folder.
    Search {
        within: Option<crate::ListKey>,
    },
    /// The address of a feed or site to subscribe to (into the folder named, if any).
    AddFeed {
        folder: Option<FolderId>,
    },
    /// The name to save a search or query as a view under.
    SaveView,
    RenameFeed(FeedId),
    RenameFolder(FolderId),
    MoveFeed(FeedId),
    MoveFolder(FolderId),
    NewFolder,
    /// The command line (`:`).
    Command,
    /// A command to pipe the article's text (or, `address`, the entry's address) to; or, when `marked` entries
    /// are, their Markdown (or their addresses).
    Pipe {
        address: bool,
        marked: usize,
    },
    /// A file to save the article's text to.
    Save,
    /// A folder to export entries to, as Markdown.
    Export,
    /// The number of a link to copy.
    CopyLink,
}

impl Prompt {
    /// A prompt with `initial` as its answer, selected: typing replaces it, a movement key edits it.
    pub fn new(title: &str, hint: &str, initial: &str, purpose: PromptPurpose) -> Prompt {
        Prompt { title: title.into(), hint: hint.into(), input: TextInput::selected(initial), error: None, purpose }
    }
}

pub(super) fn on_key(
    state: &mut State,
    prompt: &mut Prompt,
    action: Option<Action>,
    key: KeyEvent,
) -> (Next, Option<Answer>) {
    match action {
        Some(Action::Close) => (Next::Close, None),
        Some(Action::ToggleScope) => (Next::Keep, Some(Answer::ToggleScope)),
        Some(action @ (Action::HistoryPrev | Action::HistoryNext)) => {
            (Next::Keep, Some(Answer::History { back: action == Action::HistoryPrev }))
        }
        Some(Action::Accept) => answer(prompt, prompt.input.text().to_string()),
        _ => {
            if let Some(count) = numbered(state, prompt.purpose) {
                return on_number_key(prompt, action, key, count);
            }
            if prompt.input.handle(action, key) {
                prompt.error = None;
            }
            (Next::Keep, None)
        }
    }
}

/// The prompt's answer, for the module that asked; the prompt stays open until it is taken.
fn answer(prompt: &Prompt, text: String) -> (Next, Option<Answer>) {
    (Next::Keep, Some(Answer::Submitted { purpose: prompt.purpose, text }))
}

/// How many things a prompt that asks for a number chooses from (links, media files), if it is one.
fn numbered(state: &State, purpose: PromptPurpose) -> Option<usize> {
    let view = state.article.ready();
    match purpose {
        PromptPurpose::FollowLink | PromptPurpose::CopyLink => Some(view.map_or(0, |a| a.links.len())),
        PromptPurpose::PlayMedia => Some(view.map_or(0, |a| a.detail.enclosures.len())),
        _ => None,
    }
}

/// A key in a prompt for a number: only digits go in, and as soon as the number can only mean one thing (`f 3`
/// with fewer than 30 links) it is taken without Enter.
fn on_number_key(prompt: &mut Prompt, action: Option<Action>, key: KeyEvent, count: usize) -> (Next, Option<Answer>) {
    use crossterm::event::KeyCode;
    let refuse = |prompt: &mut Prompt| prompt.error = Some(format!("type a number from 1 to {count}"));
    // Only digits are typed in (the editing keys still edit).
    let typed_digit = action.is_none() && matches!(key.code, KeyCode::Char(c) if c.is_ascii_digit());
    if action.is_none() && !typed_digit && matches!(key.code, KeyCode::Char(_)) {
        refuse(prompt);
        return (Next::Keep, None);
    }
    let before = prompt.input.clone();
    if !prompt.input.handle(action, key) {
        return (Next::Keep, None);
    }
    prompt.error = None;
    let typed = prompt.input.text().trim();
    let Ok(n) = typed.parse::<usize>() else { return (Next::Keep, None) };
    if n > count || n == 0 {
        // The digit that made it no number of a link does not go in.
        prompt.input = before;
        refuse(prompt);
        return (Next::Keep, None);
    }
    if n.saturating_mul(10) > count && typed_digit {
        let typed = typed.to_string();
        return answer(prompt, typed);
    }
    (Next::Keep, None)
}

/// The prompt that forces a feed's encoding, filled with the one forced now.
pub fn setting_prompt(state: &State, feed_id: FeedId) -> Prompt {
    let title = state.feeds.feed(feed_id).map(|f| one_line(&f.title, 60)).unwrap_or_default();
    Prompt::new(
        &format!("A setting of {title}"),
        "key = value: refresh_minutes = 15, honour_ttl = false, full_text = true, keep_days = 30, \
         max_entries_per_feed = 200, notify = true, browser = \"w3m %u\", hide_from_unread = true, \
         tags = \"Long Reads, news/science\"; \
         a key alone removes it",
        "",
        PromptPurpose::FeedSetting(feed_id),
    )
}

pub fn encoding_prompt(state: &State, feed_id: FeedId) -> Prompt {
    let feed = state.feeds.feed(feed_id);
    let title = feed.map(|f| one_line(&f.title, 60)).unwrap_or_default();
    let current = feed.and_then(|f| f.encoding_forced.clone()).unwrap_or_default();
    Prompt::new(
        &format!("Force the encoding of {title}"),
        "an encoding label (windows-1251, koi8-r, shift_jis, iso-8859-2…); empty to decode by the feed's own signals",
        &current,
        PromptPurpose::ForceEncoding(feed_id),
    )
}
