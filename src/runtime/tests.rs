//! The runtime's own tests: the window title, the write barrier's promise, render cancelling.

use super::*;
use crate::model::{EntryId, FeedId, ListSource, NewFeed, UserWrite};
use crate::store::{self, fetches};
use std::sync::atomic::Ordering;

/// A database with one feed and one unread entry, and a reader over it.
fn reader_with_one_unread_entry(dir: &std::path::Path) -> (Reader, FeedId, EntryId) {
    let db = dir.join("t.db");
    let mut conn = store::open_write(&db).unwrap();
    let feed = NewFeed { url: "http://example.com/f".into(), title: None, name: None, site_url: None, folder: vec![] };
    let Ok(crate::model::Applied::Subscribed { feed_id, .. }) = store::apply(&mut conn, &UserWrite::AddFeed(feed), 0)
    else {
        panic!("subscribing")
    };
    let entry = crate::model::ParsedEntry {
        key: "a".into(),
        title: Some("A".into()),
        link: None,
        authors: vec![],
        published: None,
        updated: None,
        content_html: None,
        summary_html: None,
        categories: vec![],
        enclosures: vec![],
        comments: None,
        thumbnail: None,
    };
    let record = fetches::FetchRecord::Fetched {
        status: 200,
        etag: None,
        last_modified: None,
        feed: Box::new(crate::model::ParsedFeed {
            kind: crate::model::FeedKind::Rss2,
            title: None,
            link: None,
            description: None,
            authors: vec![],
            entries: vec![entry],
            warnings: vec![],
            min_interval_secs: None,
            unkept: 0,
        }),
        decision: None,
        moved_to: None,
        min_interval_secs: None,
        ignored: vec![],
        cut_from: None,
        digest: None,
    };
    fetches::save(&mut conn, feed_id, &record, 1).unwrap();
    let entry_id = store::entries::of_feed(&conn, feed_id).unwrap()[0].id;
    drop(conn);
    let options = Options {
        db,
        config: Config::default(),
        notice: None,
        report: Vec::new(),
        size: (80, 24),
        zone: crate::clock::Zone::utc(),
    };
    (Reader::new(options).unwrap(), feed_id, entry_id)
}

/// The window title: nothing before the feed list is known, then the Unread view's count, and a bare name
/// when nothing is unread; none at all when `window_title = false`.
#[test]
fn the_window_title_shows_the_unread_count_once_the_feeds_are_known() {
    let dir = tempfile::tempdir().unwrap();
    let (mut reader, _, _) = reader_with_one_unread_entry(dir.path());
    assert_eq!(reader.window_title(), None, "not before the feed list is known");
    reader.state.feeds.loaded = true;
    reader.state.feeds.views.unread = 1;
    assert_eq!(reader.window_title().as_deref(), Some("tidings (1 unread)"));
    reader.state.feeds.views.unread = 0;
    assert_eq!(reader.window_title().as_deref(), Some("tidings"));
    reader.window_title = false;
    assert_eq!(reader.window_title(), None);
}

/// The barrier's promise: a list read asked for after a write never shows the state from before the write,
/// however the two threads are scheduled. The writer is held up on purpose, so that without the barrier the
/// read would certainly run first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_read_asked_after_a_write_never_shows_the_state_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut reader, feed_id, entry_id) = reader_with_one_unread_entry(dir.path());
    let (open_gate, gate) = std::sync::mpsc::channel::<()>();
    reader.session.writer().submit(move |_| {
        let _ = gate.recv();
    });
    reader
        .services
        .run(Effect::Write { id: app::WriteId(1), write: UserWrite::SetRead { ids: vec![entry_id], read: true } });
    let list = app::ListKey::Feed(feed_id);
    reader.services.run(Effect::LoadEntries { list, source: ListSource::Feed(feed_id), order: None, keep: None });
    let barrier = reader.services.reads.barrier.clone();
    tokio::select! {
        // The read waits for the write: let the writer go.
        () = barrier.read_waits.notified() => open_gate.send(()).unwrap(),
        // The read ran first (no barrier): what it read must still show the write, which it cannot.
        event = reader.next_event() => check_list(event, entry_id),
    }
    loop {
        match reader.next_event().await {
            Some(event @ Event::EntriesLoaded { .. }) => return check_list(Some(event), entry_id),
            Some(_) => continue,
            None => panic!("the inbox closed"),
        }
    }
}

/// Opening another article (or the same at another width) cancels the render still running, and quitting
/// cancels the last: renders of articles left behind never stack up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_render_cancels_the_one_still_running_and_quitting_cancels_the_last() {
    let dir = tempfile::tempdir().unwrap();
    let (reader, _, entry_id) = reader_with_one_unread_entry(dir.path());
    let current = || reader.services.render.running.lock().unwrap().clone().expect("a render is running");
    let render = |html: &str| Effect::RenderArticle { entry_id, html: html.into(), width: 60, base: None };
    reader.services.run(render(&"<div>".repeat(100_000)));
    let first = current();
    reader.services.run(render("<p>the second</p>"));
    let second = current();
    assert!(first.load(Ordering::Relaxed), "the first render was told to stop");
    assert!(!second.load(Ordering::Relaxed), "the render on screen goes on");
    reader.services.render.cancel();
    assert!(second.load(Ordering::Relaxed), "quitting stops it too");
}

fn check_list(event: Option<Event>, entry_id: EntryId) {
    let Some(Event::EntriesLoaded { refs, .. }) = event else { panic!("expected the list, got {event:?}") };
    let entry = refs.iter().find(|r| r.id == entry_id).expect("the entry is listed");
    assert!(entry.read, "the list was read before the write it was asked after");
}
