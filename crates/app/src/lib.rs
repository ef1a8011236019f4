//! The reader's state machine. [`update`] takes the [`State`] and one [`Event`] (a key, a resize, a tick, a
//! worker's result) and returns the [`Effect`]s to run; no I/O happens here, and nothing here reads the clock
//! or asks the drawing code anything: time arrives in [`Event::Tick`], the terminal's size in
//! [`Event::Resize`], and [`layout`] does the geometry for both this module and `ui`.
//!
//! Keys become [`keymap::Action`]s through the keymap; each noun owns its state and what the actions do to it:
//! [`feeds`] (the feed list), [`entries`] (the entry list), [`marks`] (read, starred, undo), [`navigate`]
//! (next and previous unread), [`article`] (the article pane), [`pictures`] (the article's pictures), [`search`], [`progress`] (refreshing),
//! [`subscriptions`] (adding, renaming, moving, deleting), [`dialogs`] (every window over the panes),
//! [`status`] (messages and their log). The [`State`] that holds them is in `state.rs`; `update` only routes.

// The core's modules, under the names the rest of tidings gives them.
pub(crate) use tidings_core::{clock, decode, model, render, sanitize};

mod answers;
pub mod article;
pub mod commands;
pub mod dialogs;
pub mod downloads;
pub mod entries;
pub mod event;
pub mod exporting;
pub mod feeds;
pub mod health;
pub mod input;
pub mod keeping;
pub mod keymap;
pub mod layout;
pub mod list;
pub mod marked;
pub mod marks;
pub mod navigate;
mod pointer;
pub mod progress;
pub mod saving;
pub mod search;
mod state;
pub mod status;
pub mod subscriptions;
pub mod sync;

pub use event::{Effect, Event, ExportTo, OpenKind, RequestId, WriteFailure, WriteId};
pub use feeds::FeedListRow;
pub use state::{Clock, ListKey, Pane, Setup, State};

use crate::model::{Applied, UserWrite};
use crossterm::event::{KeyEvent, KeyEventKind};
use dialogs::Dialog;
use keymap::{Action, Context};
use list::Step;

/// Applies one event to the state and says what work to start. The user's writes among the effects are numbered
/// here, the one place every effect passes, and kept until the store answers (see [`WriteId`]).
pub fn update(state: &mut State, event: Event) -> Vec<Effect> {
    let mut effects = route(state, event);
    marks::after(state, &effects);
    state.saving.issue(&mut effects);
    effects
}

fn route(state: &mut State, event: Event) -> Vec<Effect> {
    match event {
        Event::Key(key) => on_key(state, key),
        Event::Mouse(mouse) => pointer::on_mouse(state, mouse),
        Event::Resize { width, height } => {
            state.viewport = (width, height);
            let (feeds_height, entries_height) = (state.list_height(Pane::Feeds), state.list_height(Pane::Entries));
            state.feeds.cursor.show(feeds_height);
            state.entries.cursor.show(entries_height);
            article::rerender_if_needed(state)
        }
        Event::Tick(now) => {
            state.clock.now = now;
            let mut effects = progress::on_tick(state, now);
            effects.extend(sync::on_tick(state, now));
            effects.extend(entries::catch_up(state));
            effects.extend(saving::on_tick(state, now));
            effects
        }
        Event::DueFeeds(ids) => progress::request(state, ids, false),
        Event::FeedsLoaded { feeds, folders, views, seen } => {
            if seen < state.saving.last_issued() {
                return vec![Effect::LoadFeeds];
            }
            feeds::on_loaded(state, feeds, folders, views)
        }
        Event::Discovered { request, discovery } => subscriptions::on_discovered(state, request, *discovery),
        Event::Written { id, outcome } => match state.saving.answered(id) {
            Some(write) => written(state, write, outcome),
            None => Vec::new(),
        },
        Event::EntriesLoaded { list, refs, rows, order, keep, seen } => {
            entries::on_loaded(state, list, refs, rows, order, keep, seen)
        }
        Event::EntriesFailed { list, message } => entries::on_failed(state, list, message),
        Event::RowsLoaded { list, rows } => entries::on_rows(state, list, rows),
        Event::ArticleLoaded { entry_id, detail } => article::on_loaded(state, entry_id, detail),
        Event::ArticleFailed { entry_id, message } => article::on_failed(state, entry_id, message),
        Event::ArticleRendered { entry_id, width, body } => article::on_rendered(state, entry_id, width, body),
        Event::Refresh(ev) => progress::on_event(state, ev),
        Event::NetworkDown => progress::on_network_down(state),
        Event::FullTextFetched { entry_id, result } => article::on_full_text(state, entry_id, result),
        Event::PictureLoaded { url, result } => article::pictures::on_loaded(state, url, result),
        Event::PicturePrepared { url, size, result } => article::pictures::on_prepared(state, url, size, result),
        Event::PicturesReset => article::pictures::on_reset(state),
        Event::Purged { entries } => {
            // Not news worth the status bar: the log keeps it, and the lists are read again without them.
            let now = state.clock.now;
            state.status.note(format!("Purged {entries} old entries (keep_days, max_entries_per_feed)"), now);
            let mut effects = vec![Effect::LoadFeeds];
            effects.extend(entries::changed(state));
            effects
        }
        Event::ChangedOutside => {
            state.feeds.changed_outside = true;
            // Downloads too: a file another process finished shows as on disk (`↓`) here.
            let mut effects = vec![Effect::LoadFeeds, Effect::LoadDownloads];
            effects.extend(entries::changed(state));
            effects
        }
        Event::NewEpisodes(ids) => vec![Effect::QueueDownloads(ids)],
        Event::RefreshStopped { batch, ids, reason } => progress::on_stopped(state, batch, ids, reason),
        Event::RefreshedByDaemon { batch, ids, new, feeds_with_new, failed } => {
            progress::on_refreshed_by_daemon(state, batch, ids, (new, feeds_with_new, failed))
        }
        Event::FeedInfoLoaded { feed_id, info } => dialogs::on_info_loaded(state, feed_id, info),
        Event::HealthLoaded { facts, left_out } => health::on_loaded(state, facts, left_out),
        Event::DownloadsLoaded(rows) => downloads::on_loaded(state, rows),
        Event::DownloadsQueued { added, already, refused } => downloads::on_queued(state, added, already, refused),
        Event::DownloadProgress { id, done, total, at_ms } => downloads::on_progress(state, id, done, total, at_ms),
        Event::DownloadEnded { id, state: ended, reason } => downloads::on_ended(state, id, ended, reason),
        Event::Synced { account, said, changed } => sync::on_synced(state, account, said, changed),
        Event::ViewsCounted(counts) => feeds::on_views_counted(state, counts),
        Event::FeedSettingSaved { feed_id, setting, outcome } => {
            feeds::on_setting_saved(state, feed_id, setting, outcome)
        }
        Event::ViewSaved { name, query, outcome } => search::on_view_saved(state, name, query, outcome),
        Event::DatabaseHolders(holders) => saving::on_holders(state, holders),
        Event::Matched { list, query, found } => marked::on_matched(state, list, &query, found),
        Event::ExportedText { words, in_terminal, text } => {
            vec![Effect::Pipe { words, input: text, in_terminal }]
        }
        Event::ToSave { server, command } => keeping::on_to_save(state, server, command),
        Event::Notice(text) => {
            state.status.info(text, state.clock.now);
            Vec::new()
        }
        Event::Error(text) => {
            state.status.error(text, state.clock.now);
            Vec::new()
        }
    }
}

/// What the store said of a change the user made: what it changed (for undo), the feed it added, or why it
/// could not.
fn written(state: &mut State, write: UserWrite, outcome: Result<Applied, WriteFailure>) -> Vec<Effect> {
    let now = state.clock.now;
    let mut effects = saving::on_written(state, &write, outcome.as_ref().err());
    effects.extend(match (write, outcome) {
        (_, Err(failure)) if failure.retry => Vec::new(),
        (write, Err(failure)) => {
            state.status.error(format!("{}: {}", write.describe(), failure.message), now);
            // What is on screen may show a change that was not made: read it all again.
            let mut effects = vec![Effect::LoadFeeds];
            effects.extend(entries::changed(state));
            effects
        }
        (UserWrite::MarkListRead { source }, Ok(Applied::Marked(ids))) => marks::on_list_marked(state, &source, ids),
        (UserWrite::AddFeed(feed), Ok(Applied::Subscribed { feed_id, added })) => {
            let folder = feed.folder.clone();
            subscriptions::on_feed_added(state, feed_id, added, feed.title.unwrap_or(feed.url), &folder)
        }
        (UserWrite::SetRead { read, .. }, Ok(Applied::Flags { missing })) if missing > 0 => {
            marks::gone_meanwhile(state, missing, if read { "marked read" } else { "marked unread" })
        }
        (UserWrite::SetStarred { starred, .. }, Ok(Applied::Flags { missing })) if missing > 0 => {
            marks::gone_meanwhile(state, missing, if starred { "starred" } else { "unstarred" })
        }
        _ => Vec::new(),
    });
    effects
}

fn on_key(state: &mut State, key: KeyEvent) -> Vec<Effect> {
    if key.kind != KeyEventKind::Press {
        return Vec::new();
    }
    if state.dialog == Some(Dialog::Health) {
        let action = state.keymap.action(Context::Health, &key);
        if action == Some(Action::Quit) {
            return saving::quit(state);
        }
        return health::on_key(state, action);
    }
    if state.dialog == Some(Dialog::Downloads) {
        let action = state.keymap.action(Context::Downloads, &key);
        if action == Some(Action::Quit) {
            return saving::quit(state);
        }
        return downloads::on_key(state, action);
    }
    if state.dialog.is_some() {
        let (mut effects, answer) = dialogs::on_key(state, key);
        if let Some(answer) = answer {
            effects.extend(answers::route(state, answer));
        }
        return effects;
    }
    if state.commands.awaiting_macro {
        return commands::on_macro_key(state, key);
    }
    match state.keymap.action(state.pane_context(), &key) {
        Some(action) => act(state, action),
        None => {
            // A key that does nothing says so, and where the keys are.
            if !matches!(key.code, crossterm::event::KeyCode::Modifier(_) | crossterm::event::KeyCode::Null) {
                let help = state.keymap.say(Context::General, Action::Help, " · {} for keys");
                let now = state.clock.now;
                state.status.info(format!("{} is not bound{help}", keymap::Key::from_event(&key)), now);
            }
            Vec::new()
        }
    }
}

/// Quits, asking first with `confirm_quit` (a second quit while changes wait for the database does not ask).
fn quit(state: &mut State) -> Vec<Effect> {
    if state.commands.confirm_quit && state.saving.quitting_since.is_none() {
        let question = "Quit tidings?".to_string();
        state.dialog = Some(Dialog::Confirm(dialogs::Confirm { question, action: dialogs::Confirmed::Quit }));
        return Vec::new();
    }
    saving::quit(state)
}

/// What an action does in the panes.
pub fn act(state: &mut State, action: Action) -> Vec<Effect> {
    let now = state.clock.now;
    match action {
        Action::Quit => quit(state),
        Action::Back => match state.focus {
            Pane::Article => {
                state.focus = Pane::Entries;
                Vec::new()
            }
            Pane::Entries => {
                state.focus = Pane::Feeds;
                Vec::new()
            }
            _ => quit(state),
        },
        Action::Help => {
            state.dialog = Some(Dialog::Help { scroll: 0 });
            Vec::new()
        }
        Action::Suspend => vec![Effect::Suspend],
        Action::Down => move_focused(state, Step::By(1)),
        Action::Up => move_focused(state, Step::By(-1)),
        Action::PageDown => move_focused(state, Step::Pages(1)),
        Action::PageUp => move_focused(state, Step::Pages(-1)),
        Action::HalfPageDown => move_focused(state, Step::HalfPages(1)),
        Action::HalfPageUp => move_focused(state, Step::HalfPages(-1)),
        Action::Top => move_focused(state, Step::First),
        Action::Bottom => move_focused(state, Step::Last),
        Action::PaneLeft => {
            state.focus = if state.focus == Pane::Article { Pane::Entries } else { Pane::Feeds };
            Vec::new()
        }
        Action::PaneRight => {
            if state.focus != Pane::Article {
                state.focus = next_pane(state, true);
            }
            Vec::new()
        }
        Action::NextPane => {
            state.focus = next_pane(state, true);
            Vec::new()
        }
        Action::PrevPane => {
            state.focus = next_pane(state, false);
            Vec::new()
        }
        Action::Open => match state.focus {
            Pane::Feeds => feeds::open(state),
            Pane::Entries => entries::open(state),
            Pane::Article => Vec::new(),
        },
        Action::NextUnread => navigate::next_unread(state, true),
        Action::PrevUnread => navigate::next_unread(state, false),
        Action::Star if !state.entries.marked.is_empty() => marked::act(state, marked::Bulk::ToggleStar),
        Action::Star => marks::toggle_star(state),
        Action::Undo => {
            // A list that let the entries go when they were read (Unread, unread only) cannot mark them: it is
            // read again, behind the write, to show them.
            let refs = &state.entries.refs;
            let gone =
                state.undo.as_ref().is_some_and(|undo| undo.ids.iter().any(|id| !refs.iter().any(|r| r.id == *id)));
            let mut effects = marks::undo(state);
            if gone {
                effects.extend(entries::reload(state));
            }
            effects
        }
        Action::Sort => entries::cycle_sort(state),
        Action::UnreadOnly => entries::toggle_unread_only(state),
        Action::Search => {
            search::open(state);
            Vec::new()
        }
        Action::SaveView => {
            search::ask_save_view(state);
            Vec::new()
        }
        Action::ToggleRead if !state.entries.marked.is_empty() => marked::act(state, marked::Bulk::ToggleRead),
        Action::ToggleRead => marks::toggle_read(state),
        Action::MarkAllRead => marks::mark_all_read(state),
        Action::MarkAboveRead => marks::mark_beside_read(state, true),
        Action::MarkBelowRead => marks::mark_beside_read(state, false),
        Action::Mark => marked::toggle(state),
        Action::MarkRange => marked::mark_range(state),
        Action::Export => exporting::ask(state),
        Action::SaveForLater => keeping::save_for_later(state),
        Action::OpenInBrowser => article::open_in_browser(state),
        Action::FollowLink => article::ask_link(state),
        Action::Refresh => progress::refresh_selected(state),
        Action::RefreshAll => progress::refresh_all(state),
        Action::AddFeed => subscriptions::open_add(state),
        Action::Rename => subscriptions::open_rename(state),
        Action::Move => subscriptions::open_move(state),
        Action::NewFolder => subscriptions::open_new_folder(state),
        Action::Delete => subscriptions::ask_delete(state),
        Action::FeedInfo => match feeds::feed_in_focus(state) {
            Some(feed_id) => dialogs::open_info(state, feed_id),
            None => {
                state.status.info("Select a feed (or an entry) to see its details", now);
                Vec::new()
            }
        },
        Action::ForceEncoding => {
            match feeds::feed_in_focus(state) {
                Some(feed_id) => state.dialog = Some(Dialog::Prompt(dialogs::encoding_prompt(state, feed_id))),
                None => state.status.info("Select a feed to force its encoding", now),
            }
            Vec::new()
        }
        Action::FeedSettings => {
            match feeds::feed_in_focus(state) {
                Some(feed_id) => state.dialog = Some(Dialog::Prompt(dialogs::setting_prompt(state, feed_id))),
                None => state.status.info("Select a feed to change its settings", now),
            }
            Vec::new()
        }
        Action::OpenMedia => article::open_media(state),
        Action::FullText => article::full_text(state),
        Action::FeedFullText => feeds::toggle_full_text(state),
        Action::ToggleDetails => article::toggle_details(state),
        Action::Zoom => {
            state.zoom = !state.zoom;
            let mut effects = article::rerender_if_needed(state);
            effects.extend(article::pictures::wanted(state));
            effects
        }
        Action::MessageLog => {
            dialogs::open_log(state);
            Vec::new()
        }
        Action::CommandLine => {
            commands::open(state);
            Vec::new()
        }
        Action::Macro => {
            state.commands.awaiting_macro = true;
            let says = state.keymap.say(Context::General, Action::Help, "; the macros are in [macros] of the config");
            state.status.info(format!("Macro: press its key{says}"), now);
            Vec::new()
        }
        Action::Pipe => commands::ask_pipe(state),
        Action::Save => commands::ask_save(state),
        Action::CopyUrl => commands::copy_url(state),
        Action::CopyLink => commands::ask_copy_link(state),
        Action::NextFeed => feeds::next_feed(state, true, false),
        Action::PrevFeed => feeds::next_feed(state, false, false),
        Action::NextUnreadFeed => feeds::next_feed(state, true, true),
        Action::PrevUnreadFeed => feeds::next_feed(state, false, true),
        Action::HideReadFeeds => feeds::toggle_hide_read(state),
        Action::Health => health::open(state),
        Action::Download => downloads::queue_selected(state),
        Action::Downloads => downloads::open(state),
        Action::Bookmark => commands::bookmark(state),
        // A dialog's own actions do nothing in the panes.
        Action::Close
        | Action::Accept
        | Action::Yes
        | Action::No
        | Action::DeleteAll
        | Action::ToggleScope
        | Action::CursorLeft
        | Action::CursorRight
        | Action::LineStart
        | Action::LineEnd
        | Action::DeleteBack
        | Action::DeleteForward
        | Action::DeleteToStart
        | Action::DeleteToEnd
        | Action::DeleteWord
        | Action::HistoryPrev
        | Action::HistoryNext
        | Action::Choose1
        | Action::Choose2
        | Action::Choose3
        | Action::Choose4
        | Action::Choose5
        | Action::Choose6
        | Action::Choose7
        | Action::Choose8
        | Action::Choose9
        | Action::MarkState
        | Action::Pause
        | Action::AcceptMove => Vec::new(),
    }
}

/// A movement in the pane with the focus.
fn move_focused(state: &mut State, step: Step) -> Vec<Effect> {
    match state.focus {
        Pane::Feeds => feeds::step(state, step),
        Pane::Entries => entries::step(state, step),
        Pane::Article => article::scroll_by(state, step),
    }
}

fn next_pane(state: &State, forward: bool) -> Pane {
    let has_article = state.article.view.is_some() || state.article.wanted.is_some();
    match (state.focus, forward) {
        (Pane::Feeds, true) => Pane::Entries,
        (Pane::Entries, true) if has_article => Pane::Article,
        (Pane::Entries, true) => Pane::Feeds,
        (Pane::Article, true) => Pane::Feeds,
        (Pane::Feeds, false) if has_article => Pane::Article,
        (Pane::Feeds, false) => Pane::Entries,
        (Pane::Entries, false) => Pane::Feeds,
        (Pane::Article, false) => Pane::Entries,
    }
}

#[cfg(test)]
pub(crate) mod tests;
