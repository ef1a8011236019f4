//! Downloads in the reader: one key queues the entry's media, the view lists the queue with progress, rate and
//! time left from the events, and its keys pause, retry, delete (after a yes), play and open the folder.

use super::*;
use crate::downloads::DownloadOp;
use crate::model::{Download, DownloadState, Enclosure};

fn download(id: i64, entry: i64, state: DownloadState) -> Download {
    Download {
        id,
        entry_id: Some(entry),
        feed_id: Some(1),
        url: format!("http://example.com/{id}.mp3"),
        media_type: Some("audio/mpeg".into()),
        path: format!("/music/One/episode {id}.mp3"),
        state,
        reason: (state == DownloadState::Failed).then(|| "HTTP 404".to_string()),
        bytes_done: 0,
        bytes_total: None,
        etag: None,
        last_modified: None,
        title: format!("Episode {id}"),
        feed_title: "One".into(),
        created_at: 0,
        finished_at: None,
        feed_url: Some("http://example.com/feed".into()),
        content_of: Some("http://example.com/feed".into()),
    }
}

/// What the status bar says now.
fn said(s: &State) -> String {
    s.status.current(s.clock.now).map(|m| m.text.clone()).unwrap_or_default()
}

fn opened(rows: Vec<Download>) -> State {
    let mut s = loaded();
    assert_eq!(update(&mut s, key('P')), vec![Effect::LoadDownloads]);
    assert_eq!(s.dialog, Some(Dialog::Downloads));
    update(&mut s, Event::DownloadsLoaded(rows));
    s
}

#[test]
fn the_download_key_queues_every_enclosure_of_the_selected_entry() {
    let mut s = loaded();
    update(&mut s, key('l'));
    assert_eq!(update(&mut s, key('E')), vec![Effect::QueueDownloads(vec![EntryId(10)])]);
    let effects = update(&mut s, Event::DownloadsQueued { added: 2, already: 0, refused: vec![] });
    assert_eq!(effects, vec![Effect::LoadDownloads]);
    assert!(said(&s).contains("Downloading 2 file(s)"), "{}", said(&s));
    assert!(said(&s).contains("P shows the downloads"), "{}", said(&s));
}

#[test]
fn the_command_line_queues_them_too() {
    let mut s = loaded();
    update(&mut s, key('l'));
    update(&mut s, key(':'));
    typed(&mut s, "download");
    assert_eq!(update(&mut s, code(KeyCode::Enter)), vec![Effect::QueueDownloads(vec![EntryId(10)])]);
}

#[test]
fn an_open_entry_without_media_says_so_and_queues_nothing() {
    let mut s = loaded();
    open_article(&mut s, None, "<p>text</p>");
    assert_eq!(update(&mut s, key('E')), vec![]);
    assert!(said(&s).contains("no media"), "{}", said(&s));
}

#[test]
fn progress_events_give_the_rate_and_the_time_left() {
    let mut s = opened(vec![download(1, 10, DownloadState::Downloading)]);
    update(&mut s, Event::DownloadProgress { id: 1, done: 0, total: Some(10_000_000), at_ms: 1_000 });
    update(&mut s, Event::DownloadProgress { id: 1, done: 1_000_000, total: Some(10_000_000), at_ms: 2_000 });
    let live = s.downloads.live[&1];
    assert_eq!(live.rate as u64, 1_000_000, "a million bytes in a second");
    assert_eq!(live.seconds_left(), Some(9), "nine million left at that rate");
    assert_eq!(s.downloads.rows.as_ref().unwrap()[0].bytes_done, 1_000_000);
}

#[test]
fn a_finished_download_marks_its_entry_as_on_disk() {
    let mut s = opened(vec![download(1, 10, DownloadState::Downloading)]);
    assert!(s.downloads.on_disk.is_empty());
    let effects = update(&mut s, Event::DownloadEnded { id: 1, state: DownloadState::Done, reason: None });
    assert_eq!(effects, vec![Effect::LoadDownloads]);
    update(&mut s, Event::DownloadsLoaded(vec![download(1, 10, DownloadState::Done)]));
    assert!(s.downloads.on_disk.contains(&EntryId(10)));
    assert_eq!(said(&s), "Downloaded \"Episode 1\"", "the status line says it is done");
}

/// Another process (`tidings download`, the daemon) finished a file: the reader reads the queue again when it
/// sees the database change, and the entry shows as on disk.
#[test]
fn a_file_another_process_downloaded_shows_as_on_disk() {
    let mut s = loaded();
    assert!(update(&mut s, Event::ChangedOutside).contains(&Effect::LoadDownloads));
    update(&mut s, Event::DownloadsLoaded(vec![download(1, 10, DownloadState::Done)]));
    assert!(s.downloads.on_disk.contains(&EntryId(10)));
}

/// `v` on an entry whose file is on disk plays the file, not the address again; one not downloaded streams.
#[test]
fn v_plays_the_downloaded_file_when_there_is_one() {
    let mut s = loaded();
    update(&mut s, Event::DownloadsLoaded(vec![download(1, 10, DownloadState::Done)]));
    let media = |url: &str| Enclosure { url: url.into(), media_type: None, length: None };
    let mut play = |url: &str| {
        update(&mut s, key('h'));
        update(&mut s, key('h'));
        open_article(&mut s, None, "<p>x</p>");
        s.article.view.as_mut().unwrap().detail.enclosures = vec![media(url)];
        update(&mut s, key('v'))
    };
    let local = Effect::Open { url: "/music/One/episode 1.mp3".into(), kind: OpenKind::Media };
    assert_eq!(play("http://example.com/1.mp3"), vec![local]);
    let remote = Effect::Open { url: "http://example.com/2.mp3".into(), kind: OpenKind::Media };
    assert_eq!(play("http://example.com/2.mp3"), vec![remote]);
}

/// `auto_download`: the new episodes a refresh brought are queued as `E` queues them.
#[test]
fn new_episodes_from_a_refresh_are_queued_as_e_queues_them() {
    let mut s = loaded();
    let ids = vec![EntryId(10), EntryId(11)];
    assert_eq!(update(&mut s, Event::NewEpisodes(ids.clone())), vec![Effect::QueueDownloads(ids)]);
}

#[test]
fn a_failed_download_is_said_with_why() {
    let mut s = opened(vec![download(1, 10, DownloadState::Downloading)]);
    update(&mut s, Event::DownloadEnded { id: 1, state: DownloadState::Failed, reason: Some("HTTP 404".into()) });
    assert!(said(&s).contains("Episode 1") && said(&s).contains("HTTP 404"), "{}", said(&s));
}

#[test]
fn the_views_keys_pause_retry_play_open_the_folder_and_delete_after_a_yes() {
    let rows = vec![
        download(1, 10, DownloadState::Downloading),
        download(2, 11, DownloadState::Failed),
        download(3, 12, DownloadState::Done),
    ];
    let mut s = opened(rows);
    let control = |id, op| vec![Effect::ControlDownload { id, op }, Effect::LoadDownloads];
    assert_eq!(update(&mut s, key('p')), control(1, DownloadOp::Pause));
    update(&mut s, key('j'));
    assert_eq!(update(&mut s, key('r')), control(2, DownloadOp::Resume));
    assert_eq!(update(&mut s, key('v')), vec![], "a file that is not whole does not play");
    update(&mut s, key('j'));
    let play = Effect::Open { url: "/music/One/episode 3.mp3".into(), kind: OpenKind::Media };
    assert_eq!(update(&mut s, key('v')), vec![play]);
    let folder = Effect::Open { url: "/music/One".into(), kind: OpenKind::Page };
    assert_eq!(update(&mut s, key('o')), vec![folder]);
    assert_eq!(update(&mut s, key('D')), vec![], "a question first");
    assert!(matches!(s.dialog, Some(Dialog::Confirm(_))));
    assert_eq!(update(&mut s, key('y')), control(3, DownloadOp::Delete));
    assert_eq!(s.dialog, Some(Dialog::Downloads), "back to the view");
    update(&mut s, code(KeyCode::Esc));
    assert_eq!(s.dialog, None);
}
