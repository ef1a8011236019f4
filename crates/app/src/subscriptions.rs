//! Managing subscriptions from the keyboard: adding a feed by its address or its site's (discovery, then a
//! picker when a site offers several), rename, move, folders (a tree: paths are typed "Tech/Rust"), and delete
//! after a yes.

use super::dialogs::{Confirm, Confirmed, Dialog, Picker, Prompt, PromptPurpose, Report};
use super::event::RequestId;
use super::keymap::{Action, Context};
use super::{Effect, FeedListRow, ListKey, Pane, State, progress};
use crate::model::{Discovery, FeedId, Found, NewFeed, UserWrite};
use crate::sanitize::one_line;
use std::collections::BTreeMap;

/// Discoveries on their way, each with the folder its feed goes into.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subscriptions {
    next_request: RequestId,
    pub pending: BTreeMap<RequestId, Pending>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    pub url: String,
    /// The path of the folder the feed goes into; empty: the top level.
    pub folder: Vec<String>,
}

/// A folder path as typed: names separated by `/`, blanks around them dropped.
fn typed_path(text: &str) -> Vec<String> {
    text.split('/').map(|s| one_line(s, 200)).filter(|s| !s.is_empty()).collect()
}

pub fn open_add(state: &mut State) -> Vec<Effect> {
    let folder = state.feeds.folder_under_cursor();
    let title = match folder {
        Some(f) => format!("Add a feed to the folder {}", one_line(&state.feeds.folder_path(f), 60)),
        None => "Add a feed at the top level".to_string(),
    };
    let hint = match folder {
        Some(_) => "a feed's address, or a site's (its feed is found for you)",
        None => "a feed's address, or a site's (its feed is found for you); a on a folder adds it there",
    };
    state.dialog = Some(Dialog::Prompt(Prompt::new(&title, hint, "", PromptPurpose::AddFeed { folder })));
    Vec::new()
}

pub fn open_rename(state: &mut State) -> Vec<Effect> {
    let prompt = match state.feeds.selected_row().cloned() {
        Some(FeedListRow::Feed { index, .. }) => {
            let feed = &state.feeds.feeds[index];
            Prompt::new(
                "Rename the feed",
                "its name in tidings; empty for the feed's own title",
                &feed.title,
                PromptPurpose::RenameFeed(feed.id),
            )
        }
        Some(FeedListRow::Folder { id, name, .. }) => Prompt::new(
            "Rename the folder",
            "a name no folder beside it has; what is inside goes with it",
            &name,
            PromptPurpose::RenameFolder(id),
        ),
        Some(FeedListRow::View(_)) | None => {
            let now = state.clock.now;
            state.status.info("Select a feed or a folder to rename it (views keep their names)", now);
            return Vec::new();
        }
    };
    state.dialog = Some(Dialog::Prompt(prompt));
    Vec::new()
}

/// `M`: moves the selected feed into a folder, or the selected folder (with what is inside it) under another.
pub fn open_move(state: &mut State) -> Vec<Effect> {
    let paths: Vec<String> = state.feeds.folders.iter().map(|f| state.feeds.folder_path(f.id)).collect();
    let known = if paths.is_empty() { String::new() } else { format!(" ({})", paths.join(", ")) };
    let prompt = match state.feeds.selected_row().cloned() {
        Some(FeedListRow::Feed { index, .. }) => {
            let feed = &state.feeds.feeds[index];
            Prompt::new(
                &format!("Move {} to a folder", one_line(&feed.title, 40)),
                &format!("a folder{known}, or a new one; Tech/Rust nests; empty for the top level"),
                feed.folder.as_deref().unwrap_or_default(),
                PromptPurpose::MoveFeed(feed.id),
            )
        }
        Some(FeedListRow::Folder { id, name, .. }) => {
            let parent = state.feeds.folder(id).and_then(|f| f.parent).map(|p| state.feeds.folder_path(p));
            Prompt::new(
                &format!("Move the folder {} into", one_line(&name, 40)),
                &format!("a folder{known}, or a new one; empty for the top level; what is inside goes with it"),
                parent.as_deref().unwrap_or_default(),
                PromptPurpose::MoveFolder(id),
            )
        }
        _ => {
            let now = state.clock.now;
            state.status.info("Select a feed or a folder to move it", now);
            return Vec::new();
        }
    };
    state.dialog = Some(Dialog::Prompt(prompt));
    Vec::new()
}

pub fn open_new_folder(state: &mut State) -> Vec<Effect> {
    let prompt = Prompt::new(
        "Create a folder",
        "its name (Tech/Rust makes Rust inside Tech); then move feeds into it with M",
        "",
        PromptPurpose::NewFolder,
    );
    state.dialog = Some(Dialog::Prompt(prompt));
    Vec::new()
}

pub fn ask_delete(state: &mut State) -> Vec<Effect> {
    let (question, action) = match state.feeds.selected_row().cloned() {
        Some(FeedListRow::Feed { index, .. }) => {
            let feed = &state.feeds.feeds[index];
            (
                format!(
                    "Unsubscribe from {}? Its stored entries are deleted too.{}",
                    one_line(&feed.title, 80),
                    state.yes_or_no()
                ),
                Confirmed::DeleteFeed(feed.id),
            )
        }
        Some(FeedListRow::Folder { id, name, .. }) => {
            let up = match state.feeds.folder(id).and_then(|f| f.parent) {
                Some(parent) => format!("move up into {}", one_line(&state.feeds.folder_path(parent), 60)),
                None => "move up to the top level".to_string(),
            };
            let inside =
                tidings_core::text::counted(state.feeds.feed_ids_of(ListKey::Folder(id)).len(), "feed", "feeds");
            let key = |action| state.keymap.hint(Context::Confirm, action);
            (
                format!(
                    "Delete the folder {}? {}: its {inside} and its folders {up} · {}: delete them too, \
                     with their entries · {}: keep it",
                    one_line(&name, 80),
                    key(Action::Yes),
                    key(Action::DeleteAll),
                    key(Action::No),
                ),
                Confirmed::DeleteFolder(id),
            )
        }
        Some(FeedListRow::View(_)) | None => {
            let now = state.clock.now;
            state.status.info("Select a feed or a folder to delete it (views cannot be deleted)", now);
            return Vec::new();
        }
    };
    state.dialog = Some(Dialog::Confirm(Confirm { question, action }));
    Vec::new()
}

/// The user said yes (`with_contents`: deleting a folder, take what is inside it too).
pub fn confirmed(state: &mut State, action: Confirmed, with_contents: bool) -> Vec<Effect> {
    let now = state.clock.now;
    match action {
        Confirmed::DeleteFeed(id) => {
            let title = state.feeds.feed(id).map(|f| one_line(&f.title, 80)).unwrap_or_default();
            state.feeds.feeds.retain(|f| f.id != id);
            if state.entries.of == Some(ListKey::Feed(id)) {
                state.entries = Default::default();
            }
            if state.article.view.as_ref().is_some_and(|a| a.detail.feed_id == id) {
                state.article = Default::default();
            }
            state.progress.pending.remove(&id);
            state.feeds.rebuild_rows();
            // What `u` would mark unread again may have gone with the feed: it undoes nothing now.
            state.undo = None;
            let again = state.keymap.say(Context::General, Action::AddFeed, "; {} with its address subscribes again");
            state.status.info(format!("Unsubscribed from {title} (no undo{again})"), now);
            let mut effects = vec![Effect::write(UserWrite::DeleteFeed(id)), Effect::LoadFeeds];
            // It may have been the last feed of a refresh.
            effects.extend(progress::end_of_batch(state));
            effects
        }
        Confirmed::DeleteFolder(id) => {
            let name = state.feeds.folder_name(id).map(|n| one_line(n, 80)).unwrap_or_default();
            state.status.info(
                if with_contents {
                    format!("Deleted the folder {name} and everything in it")
                } else {
                    format!("Deleted the folder {name}; what was inside moved up")
                },
                now,
            );
            vec![Effect::write(UserWrite::DeleteFolder { folder_id: id, with_contents }), Effect::LoadFeeds]
        }
        Confirmed::MarkRead(_) | Confirmed::UnsubscribeMarked | Confirmed::DeleteDownload(_) | Confirmed::Quit => {
            unreachable!("answered by their own features")
        }
    }
}

/// The answer to one of this module's prompts; an error keeps the prompt open with the reason.
pub fn submit(state: &mut State, purpose: PromptPurpose, answer: &str) -> Result<Vec<Effect>, String> {
    let text = answer.trim();
    let now = state.clock.now;
    match purpose {
        PromptPurpose::AddFeed { .. } if text.is_empty() => {
            Err(format!("type an address{}", state.keymap.say(Context::Prompt, Action::Close, ", or press {}")))
        }
        PromptPurpose::AddFeed { .. } if text.contains(char::is_whitespace) => Err("an address has no spaces".into()),
        PromptPurpose::AddFeed { folder } => {
            let request = state.subscriptions.next_request;
            state.subscriptions.next_request += 1;
            let folder = folder.map(|f| state.feeds.folder_names(f)).unwrap_or_default();
            state.subscriptions.pending.insert(request, Pending { url: text.to_string(), folder });
            state.status.info(format!("Looking for feeds at {}…", one_line(text, 200)), now);
            Ok(vec![Effect::Discover { request, url: text.to_string() }])
        }
        PromptPurpose::RenameFeed(feed_id) => {
            let title = (!text.is_empty()).then(|| one_line(text, 300));
            if let (Some(feed), Some(t)) = (state.feeds.feed_mut(feed_id), &title) {
                feed.title = t.clone();
            }
            state.feeds.rebuild_rows();
            state.status.info(
                match &title {
                    Some(t) => format!("Renamed to {t}"),
                    None => "Back to the feed's own title".to_string(),
                },
                now,
            );
            Ok(vec![Effect::write(UserWrite::RenameFeed { feed_id, title }), Effect::LoadFeeds])
        }
        PromptPurpose::RenameFolder(_) | PromptPurpose::NewFolder if text.is_empty() => {
            Err("a folder needs a name".into())
        }
        PromptPurpose::RenameFolder(_) if text.contains('/') => Err(format!(
            "a name cannot hold '/' (it separates folders in a path){}",
            state.keymap.say(Context::General, Action::Move, "; move the folder with {} instead")
        )),
        PromptPurpose::RenameFolder(folder_id) => {
            let name = one_line(text, 200);
            let parent = state.feeds.folder(folder_id).and_then(|f| f.parent);
            if state.feeds.folders.iter().any(|f| f.name == name && f.parent == parent && f.id != folder_id) {
                return Err(format!("there is already a folder called {name} beside it"));
            }
            state.status.info(format!("Renamed the folder to {name}"), now);
            Ok(vec![Effect::write(UserWrite::RenameFolder { folder_id, name }), Effect::LoadFeeds])
        }
        PromptPurpose::NewFolder => {
            let path = typed_path(text);
            let existing = state.feeds.folders.iter().any(|f| state.feeds.folder_names(f.id) == path);
            if existing {
                return Err("there is already a folder there with that name".into());
            }
            state.status.info(format!("Created the folder {}; move feeds into it with M", path.join("/")), now);
            Ok(vec![Effect::write(UserWrite::CreateFolder(path)), Effect::LoadFeeds])
        }
        PromptPurpose::MoveFeed(feed_id) => {
            let folder = typed_path(text);
            state.feeds.select_when_loaded = Some(ListKey::Feed(feed_id));
            state.status.info(
                if folder.is_empty() {
                    "Moved to the top level".to_string()
                } else {
                    format!("Moved to {}", folder.join("/"))
                },
                now,
            );
            Ok(vec![Effect::write(UserWrite::MoveFeed { feed_id, folder }), Effect::LoadFeeds])
        }
        PromptPurpose::MoveFolder(folder_id) => {
            let parent = typed_path(text);
            // Not into itself, nor into a folder inside it.
            let own = state.feeds.folder_names(folder_id);
            if parent.starts_with(&own) {
                return Err("a folder cannot go inside itself".into());
            }
            state.feeds.select_when_loaded = Some(ListKey::Folder(folder_id));
            state.status.info(
                if parent.is_empty() {
                    "Moved to the top level".to_string()
                } else {
                    format!("Moved into {}", parent.join("/"))
                },
                now,
            );
            Ok(vec![Effect::write(UserWrite::MoveFolder { folder_id, parent }), Effect::LoadFeeds])
        }
        PromptPurpose::ForceEncoding(_)
        | PromptPurpose::FeedSetting(_)
        | PromptPurpose::FollowLink
        | PromptPurpose::PlayMedia
        | PromptPurpose::Search { .. }
        | PromptPurpose::Command
        | PromptPurpose::Pipe { .. }
        | PromptPurpose::Save
        | PromptPurpose::Export
        | PromptPurpose::CopyLink
        | PromptPurpose::SaveView => {
            unreachable!("answered by the modules that ask them")
        }
    }
}

/// A discovery came back: subscribe to its one feed, offer a choice among several, or say what was tried. An
/// answer nobody waits for any more is dropped.
pub fn on_discovered(state: &mut State, request: RequestId, discovery: Discovery) -> Vec<Effect> {
    let Some(pending) = state.subscriptions.pending.remove(&request) else { return Vec::new() };
    let now = state.clock.now;
    // The address could not be read: said as a feed not found is, in a report that stays until it is closed.
    if let Some(error) = &discovery.error {
        state.status.error(format!("cannot read {}: {error}", one_line(&discovery.url, 200)), now);
        let mut lines = vec![format!("Cannot read {}:", one_line(&discovery.url, 300)), one_line(error, 500)];
        if !discovery.tried.is_empty() {
            lines.extend([String::new(), "Tried:".into()]);
            lines.extend(discovery.tried.iter().map(|t| format!("  - {t}")));
        }
        state.show_dialog(Dialog::Report(Report::new("Cannot read the address", lines)));
        return Vec::new();
    }
    match discovery.feeds.len() {
        0 => {
            state.status.info(format!("No feed found at {}", one_line(&discovery.url, 200)), now);
            let mut lines = vec![
                format!("No feed found at {}.", one_line(&discovery.url, 300)),
                String::new(),
                "Looked at:".into(),
            ];
            lines.extend(discovery.tried.iter().map(|t| format!("  - {t}")));
            state.show_dialog(Dialog::Report(Report::new("No feed found", lines)));
            Vec::new()
        }
        1 => {
            let feed = discovery.feeds.into_iter().next().expect("one feed");
            subscribe(state, feed, pending.folder)
        }
        n => {
            state.status.info(format!("{n} feeds found at {}; choose one", one_line(&pending.url, 200)), now);
            let picker = Picker { candidates: discovery.feeds, cursor: Default::default(), folder: pending.folder };
            state.show_dialog(Dialog::Picker(picker));
            Vec::new()
        }
    }
}

pub fn subscribe(state: &mut State, feed: Found, folder: Vec<String>) -> Vec<Effect> {
    let now = state.clock.now;
    let name = feed.title.as_deref().map_or_else(|| crate::sanitize::without_password(&feed.url), Into::into);
    state.status.info(format!("Subscribing to {}…", one_line(&name, 200)), now);
    let new = NewFeed { url: feed.url, title: feed.title, name: None, site_url: None, folder };
    vec![Effect::write(UserWrite::AddFeed(new))]
}

/// The store added (or already had) the feed: show it, and fetch it — or, in an account's folder, sync that
/// account now, which subscribes it on the server and brings its entries.
pub fn on_feed_added(state: &mut State, feed_id: FeedId, added: bool, title: String, folder: &[String]) -> Vec<Effect> {
    let now = state.clock.now;
    state.feeds.select_when_loaded = Some(ListKey::Feed(feed_id));
    state.focus = Pane::Feeds;
    if !added {
        // Where it is: an account's feed is in the account's folder.
        let place = state.feeds.feed(feed_id).and_then(|f| f.folder_id).map(|f| state.feeds.folder_path(f));
        let place = place.map(|p| format!(", in {}", one_line(&p, 200))).unwrap_or_default();
        state.status.info(format!("Already subscribed to {}{place}", one_line(&title, 200)), now);
        return vec![Effect::LoadFeeds];
    }
    let account = folder.first().and_then(|top| {
        // The account's folder is named after it (or "name (account)" where a local folder had the name).
        state.sync.accounts.iter().find(|a| *top == **a || top.starts_with(&format!("{a} (account"))).cloned()
    });
    if let Some(account) = account {
        state.status.info(format!("Subscribing to {} on {account}…", one_line(&title, 200)), now);
        let mut effects = vec![Effect::LoadFeeds];
        if state.sync.in_flight.insert(account.clone()) {
            effects.push(Effect::Sync(vec![account]));
        } else {
            // A sync of it on its way may have sent its changes already: the next one takes this.
            state.status.info(format!("{} waits for {account}'s next sync", one_line(&title, 200)), now);
        }
        return effects;
    }
    state.status.info(format!("Subscribed to {}", one_line(&title, 200)), now);
    let mut effects = vec![Effect::LoadFeeds];
    effects.extend(progress::request(state, vec![feed_id], true));
    effects
}
