//! Managing subscriptions from the keyboard: the add dialog and its picker, rename, move, delete with
//! confirmation, and folders. Part of the pure state machine: keys in, effects out.

use super::input::TextInput;
use super::{
    Confirmed, Effect, FeedListRow, ListKey, Overlay, Prompt, PromptPurpose, State, request_refresh, user_write,
};
use crate::fetch::discovery::{Discovery, Found};
use crate::model::{FeedId, FolderId};
use crate::sanitize::one_line;
use crossterm::event::{KeyCode, KeyEvent};

/// The folder the cursor is in: a folder row, or a feed inside a folder.
fn folder_under_cursor(state: &State) -> Option<FolderId> {
    match state.rows.get(state.feed_cursor)? {
        FeedListRow::Folder { id, .. } => Some(*id),
        FeedListRow::Feed(i) => state.feeds.get(*i)?.folder_id,
    }
}

fn folder_name(state: &State, id: FolderId) -> Option<String> {
    state.folders.iter().find(|f| f.id == id).map(|f| f.name.clone())
}

fn prompt(state: &mut State, title: String, hint: &str, initial: &str, purpose: PromptPurpose) {
    state.overlay = Some(Overlay::Prompt(Prompt {
        title,
        hint: hint.to_string(),
        input: TextInput::new(initial),
        error: None,
        purpose,
    }));
}

pub fn open_add(state: &mut State) -> Vec<Effect> {
    let folder = folder_under_cursor(state);
    let title = match folder.and_then(|f| folder_name(state, f)) {
        Some(name) => format!("Add a feed to {}", one_line(&name, 40)),
        None => "Add a feed".to_string(),
    };
    prompt(
        state,
        title,
        "a feed's address, or a site's (its feed is found for you)",
        "",
        PromptPurpose::AddFeed { folder },
    );
    Vec::new()
}

pub fn open_rename(state: &mut State) -> Vec<Effect> {
    match state.rows.get(state.feed_cursor).cloned() {
        Some(FeedListRow::Feed(i)) => {
            let feed = &state.feeds[i];
            let (id, current) = (feed.id, feed.title.clone());
            prompt(
                state,
                "Rename the feed".into(),
                "its name in tidings; empty for the feed's own title",
                &current,
                PromptPurpose::RenameFeed(id),
            );
        }
        Some(FeedListRow::Folder { id, name, .. }) => {
            prompt(
                state,
                "Rename the folder".into(),
                "a name no other folder has",
                &name,
                PromptPurpose::RenameFolder(id),
            );
        }
        None => {}
    }
    Vec::new()
}

pub fn open_move(state: &mut State) -> Vec<Effect> {
    if let Some(FeedListRow::Feed(i)) = state.rows.get(state.feed_cursor) {
        let feed = &state.feeds[*i];
        let (id, current) = (feed.id, feed.folder.clone().unwrap_or_default());
        let names: Vec<String> = state.folders.iter().map(|f| f.name.clone()).collect();
        let hint = if names.is_empty() {
            "a folder name (a new one is created); empty for the top level".to_string()
        } else {
            format!("a folder ({}), or a new name; empty for the top level", names.join(", "))
        };
        prompt(
            state,
            format!("Move {} to a folder", one_line(&feed.title, 40)),
            &hint,
            &current,
            PromptPurpose::MoveFeed(id),
        );
    }
    Vec::new()
}

pub fn open_new_folder(state: &mut State) -> Vec<Effect> {
    prompt(state, "Create a folder".into(), "its name; then move feeds into it with M", "", PromptPurpose::NewFolder);
    Vec::new()
}

pub fn ask_delete(state: &mut State) -> Vec<Effect> {
    let (question, action) = match state.rows.get(state.feed_cursor).cloned() {
        Some(FeedListRow::Feed(i)) => {
            let feed = &state.feeds[i];
            (
                format!("Unsubscribe from {}? Its stored entries are deleted too. (y/n)", one_line(&feed.title, 80)),
                Confirmed::DeleteFeed(feed.id),
            )
        }
        Some(FeedListRow::Folder { id, name, .. }) => (
            format!("Delete the folder {}? Its feeds move to the top level. (y/n)", one_line(&name, 80)),
            Confirmed::DeleteFolder(id),
        ),
        None => return Vec::new(),
    };
    state.overlay = Some(Overlay::Confirm { question, action });
    Vec::new()
}

pub fn on_confirm_key(state: &mut State, question: String, action: Confirmed, key: KeyEvent) -> Vec<Effect> {
    match key.code {
        KeyCode::Char('y' | 'Y') => match action {
            Confirmed::DeleteFeed(id) => {
                let title = state.feeds.iter().find(|f| f.id == id).map(|f| one_line(&f.title, 80)).unwrap_or_default();
                state.feeds.retain(|f| f.id != id);
                if state.entries_of == Some(ListKey::Feed(id)) {
                    state.entries.clear();
                    state.entries_of = None;
                }
                if state.article.as_ref().is_some_and(|a| a.detail.feed_id == id) {
                    state.article = None;
                }
                state.progress.pending.remove(&id);
                state.rebuild_rows();
                state.feed_cursor = state.feed_cursor.min(state.rows.len().saturating_sub(1));
                state.message = Some(format!("Unsubscribed from {title}"));
                vec![user_write(state, Effect::DeleteFeed(id)), Effect::LoadFeeds]
            }
            Confirmed::DeleteFolder(id) => {
                let name = folder_name(state, id).unwrap_or_default();
                state.message = Some(format!("Deleted the folder {}", one_line(&name, 80)));
                vec![user_write(state, Effect::DeleteFolder(id)), Effect::LoadFeeds]
            }
        },
        KeyCode::Char('n' | 'N' | 'q') | KeyCode::Esc => Vec::new(),
        _ => {
            state.overlay = Some(Overlay::Confirm { question, action });
            Vec::new()
        }
    }
}

/// Submits one of this module's prompts.
pub fn submit(state: &mut State, mut prompt: Prompt) -> Vec<Effect> {
    let text = prompt.input.text().trim().to_string();
    let refuse = |state: &mut State, mut prompt: Prompt, why: &str| {
        prompt.error = Some(why.to_string());
        state.overlay = Some(Overlay::Prompt(prompt));
        Vec::new()
    };
    match prompt.purpose {
        PromptPurpose::AddFeed { .. } if text.is_empty() => refuse(state, prompt, "type an address, or press Esc"),
        PromptPurpose::AddFeed { .. } if text.contains(char::is_whitespace) => {
            refuse(state, prompt, "an address has no spaces")
        }
        PromptPurpose::AddFeed { folder } => {
            state.discovering = Some(text.clone());
            state.message = Some(format!("Looking for feeds at {}…", one_line(&text, 200)));
            state.pending_add_folder = folder.and_then(|f| folder_name(state, f));
            vec![Effect::Discover(text)]
        }
        PromptPurpose::RenameFeed(feed_id) => {
            let title = (!text.is_empty()).then(|| one_line(&text, 300));
            if let Some(feed) = state.feeds.iter_mut().find(|f| f.id == feed_id)
                && let Some(t) = &title
            {
                feed.title = t.clone();
            }
            state.rebuild_rows();
            vec![user_write(state, Effect::RenameFeed { feed_id, title }), Effect::LoadFeeds]
        }
        PromptPurpose::RenameFolder(_) | PromptPurpose::NewFolder if text.is_empty() => {
            refuse(state, prompt, "a folder needs a name")
        }
        PromptPurpose::RenameFolder(folder_id) => {
            let name = one_line(&text, 200);
            if state.folders.iter().any(|f| f.name == name && f.id != folder_id) {
                prompt.error = Some(format!("there is already a folder called {name}"));
                state.overlay = Some(Overlay::Prompt(prompt));
                return Vec::new();
            }
            vec![user_write(state, Effect::RenameFolder { folder_id, name }), Effect::LoadFeeds]
        }
        PromptPurpose::NewFolder => {
            let name = one_line(&text, 200);
            if state.folders.iter().any(|f| f.name == name) {
                return refuse(state, prompt, "there is already a folder with that name");
            }
            state.message = Some(format!("Created the folder {name}; move feeds into it with M"));
            vec![user_write(state, Effect::CreateFolder(name)), Effect::LoadFeeds]
        }
        PromptPurpose::MoveFeed(feed_id) => {
            let folder = (!text.is_empty()).then(|| one_line(&text, 200));
            state.select_when_loaded = Some(ListKey::Feed(feed_id));
            vec![user_write(state, Effect::MoveFeed { feed_id, folder }), Effect::LoadFeeds]
        }
        PromptPurpose::ForceEncoding(_) | PromptPurpose::FollowLink => unreachable!("handled in app"),
    }
}

/// Discovery came back: subscribe to the one feed, offer a choice among several, or say what was tried.
pub fn on_discovered(state: &mut State, discovery: Discovery) -> Vec<Effect> {
    // Discovery that nobody waits for any more (the dialog was answered again since) is dropped.
    if state.discovering.take().is_none() {
        return Vec::new();
    }
    let folder = state.pending_add_folder.take();
    if let Some(error) = &discovery.error {
        state.message = None;
        state.last_error = Some(format!("cannot read {}: {error}", one_line(&discovery.url, 200)));
        return Vec::new();
    }
    match discovery.feeds.len() {
        0 => {
            state.message = None;
            let mut lines = vec![
                format!("No feed found at {}.", one_line(&discovery.url, 300)),
                String::new(),
                "Looked at:".into(),
            ];
            lines.extend(discovery.tried.iter().map(|t| format!("  - {t}")));
            state.overlay = Some(Overlay::Report { title: "No feed found".into(), lines, scroll: 0 });
            Vec::new()
        }
        1 => {
            let feed = discovery.feeds.into_iter().next().expect("one feed");
            subscribe(state, feed, folder)
        }
        _ => {
            state.message = Some(format!("{} feeds found; choose one", discovery.feeds.len()));
            state.overlay = Some(Overlay::Picker { candidates: discovery.feeds, cursor: 0, folder });
            Vec::new()
        }
    }
}

fn subscribe(state: &mut State, feed: Found, folder: Option<String>) -> Vec<Effect> {
    state.message = Some(format!("Subscribing to {}…", one_line(feed.title.as_deref().unwrap_or(&feed.url), 200)));
    vec![user_write(state, Effect::AddFeed { url: feed.url, title: feed.title, folder })]
}

pub fn on_picker_key(
    state: &mut State,
    candidates: Vec<Found>,
    cursor: usize,
    folder: Option<String>,
    key: KeyEvent,
) -> Vec<Effect> {
    let last = candidates.len().saturating_sub(1);
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => {
            state.overlay = Some(Overlay::Picker { candidates, cursor: (cursor + 1).min(last), folder });
            Vec::new()
        }
        KeyCode::Char('k') | KeyCode::Up => {
            state.overlay = Some(Overlay::Picker { candidates, cursor: cursor.saturating_sub(1), folder });
            Vec::new()
        }
        KeyCode::Char(c @ '1'..='9') if (c as usize - '1' as usize) <= last => {
            let chosen = candidates.into_iter().nth(c as usize - '1' as usize).expect("in range");
            subscribe(state, chosen, folder)
        }
        KeyCode::Enter => {
            let chosen = candidates.into_iter().nth(cursor).expect("cursor in range");
            subscribe(state, chosen, folder)
        }
        KeyCode::Esc | KeyCode::Char('q') => {
            state.message = None;
            Vec::new()
        }
        _ => {
            state.overlay = Some(Overlay::Picker { candidates, cursor, folder });
            Vec::new()
        }
    }
}

/// The store added (or already had) the feed: show it, and fetch it.
pub fn on_feed_added(state: &mut State, feed_id: FeedId, added: bool, title: String) -> Vec<Effect> {
    state.select_when_loaded = Some(ListKey::Feed(feed_id));
    state.focus = super::Pane::Feeds;
    if !added {
        state.message = Some(format!("Already subscribed to {}", one_line(&title, 200)));
        return vec![Effect::LoadFeeds];
    }
    state.message = Some(format!("Subscribed to {}", one_line(&title, 200)));
    let mut effects = vec![Effect::LoadFeeds];
    effects.extend(request_refresh(state, vec![feed_id], true));
    effects
}

#[cfg(test)]
mod tests {
    use super::super::tests::{code, key, loaded};
    use super::super::{Event, Overlay, update};
    use super::*;
    use crate::discover::FoundBy;
    use crate::model::FeedKind;

    fn typed(s: &mut State, text: &str) {
        for c in text.chars() {
            update(s, key(c));
        }
    }

    fn found(url: &str, title: &str) -> Found {
        Found { url: url.into(), title: Some(title.into()), kind: FeedKind::Rss2, found_by: FoundBy::LinkTag }
    }

    #[test]
    fn adding_a_site_with_one_feed_subscribes_into_the_folder_under_the_cursor() {
        let mut s = loaded();
        update(&mut s, key('j')); // the News folder
        update(&mut s, key('a'));
        typed(&mut s, "site.example");
        assert_eq!(update(&mut s, code(KeyCode::Enter)), vec![Effect::Discover("site.example".into())]);
        assert!(s.message.as_deref().unwrap().starts_with("Looking for feeds"));
        let discovery = Discovery {
            url: "https://site.example".into(),
            feeds: vec![found("https://site.example/feed", "Site")],
            ..Default::default()
        };
        let effects = update(&mut s, Event::Discovered(Box::new(discovery)));
        assert_eq!(
            effects,
            vec![Effect::AddFeed {
                url: "https://site.example/feed".into(),
                title: Some("Site".into()),
                folder: Some("News".into())
            }]
        );
        let effects = update(&mut s, Event::FeedAdded { feed_id: 9, added: true, title: "Site".into() });
        assert_eq!(effects, vec![Effect::LoadFeeds, Effect::Refresh { ids: vec![9], force: true }]);
        assert_eq!(s.select_when_loaded, Some(ListKey::Feed(9)));
    }

    #[test]
    fn several_feeds_open_a_picker() {
        let mut s = loaded();
        update(&mut s, key('a'));
        typed(&mut s, "https://multi.example/");
        update(&mut s, code(KeyCode::Enter));
        let feeds = vec![
            found("https://multi.example/posts.xml", "Posts"),
            found("https://multi.example/comments.xml", "Comments"),
        ];
        update(
            &mut s,
            Event::Discovered(Box::new(Discovery {
                url: "https://multi.example/".into(),
                feeds,
                ..Default::default()
            })),
        );
        assert!(matches!(s.overlay, Some(Overlay::Picker { cursor: 0, .. })));
        update(&mut s, key('j'));
        let effects = update(&mut s, code(KeyCode::Enter));
        assert!(matches!(&effects[..], [Effect::AddFeed { url, .. }] if url == "https://multi.example/comments.xml"));
    }

    #[test]
    fn nothing_found_says_what_was_tried() {
        let mut s = loaded();
        update(&mut s, key('a'));
        typed(&mut s, "empty.example");
        update(&mut s, code(KeyCode::Enter));
        let tried = vec![
            "<link> tags in the page: 0 feed link(s)".to_string(),
            "common feed addresses: /feed, /rss".to_string(),
        ];
        update(
            &mut s,
            Event::Discovered(Box::new(Discovery { url: "https://empty.example".into(), tried, ..Default::default() })),
        );
        let Some(Overlay::Report { lines, .. }) = &s.overlay else { panic!("a report opens") };
        assert!(lines.iter().any(|l| l.contains("common feed addresses")));
    }

    #[test]
    fn deleting_asks_first_and_removes_the_feed() {
        let mut s = loaded();
        update(&mut s, key('D'));
        assert!(matches!(s.overlay, Some(Overlay::Confirm { action: Confirmed::DeleteFeed(1), .. })));
        assert!(update(&mut s, key('n')).is_empty());
        assert_eq!(s.feeds.len(), 3, "no deletes without a yes");
        update(&mut s, key('D'));
        assert_eq!(update(&mut s, key('y')), vec![Effect::DeleteFeed(1), Effect::LoadFeeds]);
        assert_eq!(s.feeds.len(), 2);
        assert!(s.entries.is_empty());
    }

    #[test]
    fn rename_move_and_folders() {
        let mut s = loaded();
        update(&mut s, key('c'));
        update(&mut s, Event::Key(KeyEvent::new(KeyCode::Char('u'), crossterm::event::KeyModifiers::CONTROL)));
        typed(&mut s, "Mine");
        assert_eq!(
            update(&mut s, code(KeyCode::Enter)),
            vec![Effect::RenameFeed { feed_id: 1, title: Some("Mine".into()) }, Effect::LoadFeeds]
        );
        update(&mut s, key('M'));
        typed(&mut s, "Later");
        assert_eq!(
            update(&mut s, code(KeyCode::Enter)),
            vec![Effect::MoveFeed { feed_id: 1, folder: Some("Later".into()) }, Effect::LoadFeeds]
        );
        update(&mut s, key('F'));
        typed(&mut s, "News");
        assert!(update(&mut s, code(KeyCode::Enter)).is_empty(), "a taken name is refused");
        update(&mut s, code(KeyCode::Esc));
        update(&mut s, key('j')); // the News folder
        update(&mut s, key('c'));
        update(&mut s, Event::Key(KeyEvent::new(KeyCode::Char('u'), crossterm::event::KeyModifiers::CONTROL)));
        typed(&mut s, "World");
        assert_eq!(
            update(&mut s, code(KeyCode::Enter)),
            vec![Effect::RenameFolder { folder_id: 7, name: "World".into() }, Effect::LoadFeeds]
        );
        update(&mut s, key('D'));
        assert_eq!(update(&mut s, key('y')), vec![Effect::DeleteFolder(7), Effect::LoadFeeds]);
    }

    #[test]
    fn folding_a_folder_is_remembered() {
        let mut s = loaded();
        update(&mut s, key('j'));
        assert_eq!(update(&mut s, code(KeyCode::Enter)), vec![Effect::SetCollapsed { folder_id: 7, collapsed: true }]);
        assert_eq!(update(&mut s, code(KeyCode::Enter)), vec![Effect::SetCollapsed { folder_id: 7, collapsed: false }]);
    }
}
