//! The state machine's own tests: events in, state and effects out. Whole screens are tested in `tests/`.
//! The helpers here build states the way the events would; the tests are grouped by what they exercise.

mod dialogs;
mod downloads;
mod health;
mod lists;
mod reading;
mod refreshing;
mod saving;
mod switching;
mod triage;

use super::dialogs::{Confirmed, Dialog};
use super::*;
use crate::model::{
    Applied, Discovery, EntryDetail, EntryId, EntryRef, EntryRow, ErrorKind, FeedId, FeedRow, FolderId, FolderRow,
    Found, ListSource, NewFeed, RefreshEvent, Sort, UserWrite, ViewCounts,
};
use crate::render;
use crossterm::event::{KeyCode, KeyModifiers};

/// [`crate::update`], with the numbers of the writes among the effects taken off, so that a test says which
/// writes it expects without counting the writes before them (the numbering is tested in `saving`).
pub(crate) fn update(s: &mut State, event: Event) -> Vec<Effect> {
    let mut effects = crate::update(s, event);
    for effect in &mut effects {
        if let Effect::Write { id, .. } = effect {
            *id = WriteId::NONE;
        }
    }
    effects
}

pub(crate) fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

pub(crate) fn code(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub(crate) fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

pub(crate) fn typed(s: &mut State, text: &str) {
    for c in text.chars() {
        update(s, key(c));
    }
}

/// Feed `id`, in the folder (id, path) given.
pub(crate) fn feed(id: i64, title: &str, unread: i64, folder: Option<(i64, &str)>) -> FeedRow {
    FeedRow {
        id: FeedId(id),
        url: format!("http://example.com/{id}"),
        title: title.into(),
        site_url: None,
        folder_id: folder.map(|f| FolderId(f.0)),
        folder: folder.map(|f| f.1.to_string()),
        unread,
        last_status: None,
        last_error: None,
        error_kind: None,
        last_fetched_at: None,
        encoding_overridden: false,
        encoding_forced: None,
        retry_at: None,
        dead: false,
        full_text: false,
        account: None,
        hidden: false,
        paused: false,
        moved_to: None,
        content_of: format!("http://example.com/{id}"),
    }
}

/// Entry 10 of feed 1, read, with no text: tests override what they need.
pub(crate) fn detail_of_entry_10() -> EntryDetail {
    EntryDetail {
        id: EntryId(10),
        feed_id: FeedId(1),
        feed_title: "One".into(),
        title: None,
        link: None,
        author: None,
        published_at: None,
        updated_at: None,
        content_html: None,
        summary_html: None,
        read: true,
        starred: false,
        categories: vec![],
        enclosures: vec![],
        comments: None,
        thumbnail: None,
        full_html: None,
        full_error: None,
    }
}

/// Entry `id` of feed `feed_id`.
pub(crate) fn entry(id: i64, feed_id: i64, read: bool) -> EntryRow {
    EntryRow {
        id: EntryId(id),
        feed_id: FeedId(feed_id),
        title: Some(format!("Entry {id}")),
        link: Some(format!("https://example.com/entry/{id}")),
        date: 0,
        read,
        starred: false,
    }
}

pub(crate) fn found(url: &str, title: &str) -> Found {
    Found {
        url: url.into(),
        title: Some(title.into()),
        kind: model::FeedKind::Rss2,
        found_by: tidings_core::feedlinks::FoundBy::LinkTag,
    }
}

/// The refs of `entries`.
pub(crate) fn refs(entries: &[EntryRow]) -> Vec<EntryRef> {
    entries.iter().map(|e| EntryRef { id: e.id, feed_id: e.feed_id, read: e.read, starred: e.starred }).collect()
}

/// The entries of `list` arrive, every row with them.
pub(crate) fn entries_loaded(s: &mut State, list: ListKey, entries: Vec<EntryRow>) -> Vec<Effect> {
    let order = (s.entries.sort, s.entries.unread_only);
    let event = Event::EntriesLoaded {
        list,
        refs: refs(&entries),
        rows: entries,
        order,
        keep: None,
        seen: s.saving.last_issued(),
    };
    update(s, event)
}

pub(crate) fn load(list: ListKey, source: ListSource) -> Effect {
    Effect::LoadEntries { list, source, order: None, keep: None }
}

/// The feed list's row of `list`.
pub(crate) fn row(s: &State, list: ListKey) -> usize {
    s.feeds.row_of(list).unwrap_or_else(|| panic!("{list:?} is not shown"))
}

/// Puts the feed cursor on `list` as the keys would.
pub(crate) fn go_to(s: &mut State, list: ListKey) -> Vec<Effect> {
    s.focus = Pane::Feeds;
    update(s, key('g'));
    let mut effects = Vec::new();
    for _ in 0..row(s, list) {
        effects = update(s, key('j'));
    }
    effects
}

pub(crate) fn feeds_loaded(s: &mut State, feeds: Vec<FeedRow>, folders: Vec<FolderRow>) -> Vec<Effect> {
    let unread = feeds.iter().map(|f| f.unread).sum();
    let views = ViewCounts { all: 10, unread, starred: 1 };
    update(s, Event::FeedsLoaded { feeds, folders, views, seen: s.saving.last_issued() })
}

pub(crate) fn news() -> FolderRow {
    FolderRow { id: FolderId(7), name: "News".into(), parent: None, collapsed: false }
}

/// Feed One (2 unread, entries 10 and 11 loaded and selected), and the folder News with Two and Three.
pub(crate) fn loaded() -> State {
    let mut s = State::new(Setup::default(), (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    let feeds =
        vec![feed(1, "One", 2, None), feed(2, "Two", 0, Some((7, "News"))), feed(3, "Three", 1, Some((7, "News")))];
    let effects = feeds_loaded(&mut s, feeds, vec![news()]);
    assert_eq!(effects, vec![load(ListKey::Unread, ListSource::Unread)], "the Unread view comes first");
    assert_eq!(
        go_to(&mut s, ListKey::Feed(FeedId(1))),
        vec![load(ListKey::Feed(FeedId(1)), ListSource::Feed(FeedId(1)))]
    );
    entries_loaded(&mut s, ListKey::Feed(FeedId(1)), vec![entry(10, 1, false), entry(11, 1, false)]);
    s
}

pub(crate) fn open_article(s: &mut State, link: Option<&str>, html: &str) {
    update(s, key('l'));
    update(s, code(KeyCode::Enter));
    let detail = EntryDetail {
        title: Some("T".into()),
        link: link.map(str::to_string),
        content_html: Some(html.into()),
        ..detail_of_entry_10()
    };
    update(s, Event::ArticleLoaded { entry_id: EntryId(10), detail: Some(Box::new(detail)) });
    let width = s.article_width();
    let body = render::render_article(html, usize::from(width), link);
    update(s, Event::ArticleRendered { entry_id: EntryId(10), width, body: Ok(body) });
}

pub(crate) fn refresh(batch: u64, ids: Vec<i64>, force: bool) -> Effect {
    Effect::Refresh { batch, ids: ids.into_iter().map(FeedId).collect(), force }
}

/// The store marked these entries read: the answer to the last write asked for (a [`UserWrite::MarkListRead`]).
pub(crate) fn marked(s: &State, ids: Vec<EntryId>) -> Event {
    Event::Written { id: s.saving.last_issued(), outcome: Ok(Applied::Marked(ids)) }
}

pub(crate) fn ids(ids: impl IntoIterator<Item = i64>) -> Vec<EntryId> {
    ids.into_iter().map(EntryId).collect()
}
