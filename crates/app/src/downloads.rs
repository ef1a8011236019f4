//! Downloads in the reader: one key queues every enclosure of the entry (`:download` too), and the downloads
//! view lists the queue — each file's feed, title, size, progress with its rate and the time left, its state and
//! why — with keys to pause or resume, retry, delete the file, play it and open its folder. The queue and the
//! files are the runtime's; progress arrives as events, so nothing here waits on the disk or the network.

use crate::dialogs::{Confirm, Confirmed, Dialog};
use crate::keymap::{Action, Context};
use crate::list::ListCursor;
use crate::model::{Download, DownloadState, EntryId};
use crate::{Effect, OpenKind, State, layout};
use std::collections::{HashMap, HashSet};

/// What the runtime is asked to do to one download.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DownloadOp {
    Pause,
    /// Back into the queue: a paused one resumes, a failed one is tried again (from its `.part` file).
    Resume,
    /// Forgotten, its file deleted.
    Delete,
}

/// A download running now: how far, and how fast.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Live {
    pub done: u64,
    pub total: Option<u64>,
    /// Bytes per second, smoothed.
    pub rate: f64,
    /// When `done` was last told, in milliseconds.
    at_ms: u64,
}

impl Live {
    /// Seconds left at the present rate, when the size is known and the rate is not nothing.
    pub fn seconds_left(&self) -> Option<u64> {
        let total = self.total?;
        (self.rate >= 1.0).then(|| (total.saturating_sub(self.done) as f64 / self.rate).ceil() as u64)
    }
}

/// The view's state, and what the lists need to know of downloads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DownloadsView {
    /// `None` until the queue is first read.
    pub rows: Option<Vec<Download>>,
    pub cursor: ListCursor,
    pub live: HashMap<i64, Live>,
    /// The entries whose file is on disk (the entry list marks them).
    pub on_disk: HashSet<EntryId>,
}

impl DownloadsView {
    fn current(&self) -> Option<&Download> {
        self.rows.as_ref()?.get(self.cursor.index)
    }
}

/// Where the view goes on a terminal of `width` × `height`: nearly all of it.
pub fn area(width: u16, height: u16) -> ratatui::layout::Rect {
    layout::text_dialog(width, height, width.saturating_sub(4).max(40), height.saturating_sub(2).max(10))
}

/// Rows of downloads the view shows at once (the frame and the header line take three; two lines each).
pub fn visible_rows(state: &State) -> usize {
    let (width, height) = state.viewport;
    usize::from(area(width, height).height.saturating_sub(3) / 2).max(1)
}

/// Queues every enclosure of the marked entries, or of the selected one.
pub fn queue_selected(state: &mut State) -> Vec<Effect> {
    let now = state.clock.now;
    // Entries marked (`x`): every one's media, and the marks go, as with the other keys that act on them.
    let marked = super::marked::ids(state);
    if !marked.is_empty() {
        state.entries.marked.clear();
        return vec![Effect::QueueDownloads(marked)];
    }
    let Some(entry) = state.entries.selected_ref().map(|r| r.id) else {
        state.status.info("Select an entry to download its media", now);
        return Vec::new();
    };
    let has_media = match &state.article.view {
        Some(view) if view.detail.id == entry => !view.detail.enclosures.is_empty(),
        // Not open: the runtime finds out, and says so when there is none.
        _ => true,
    };
    if !has_media {
        state.status.info("This entry has no media to download", now);
        return Vec::new();
    }
    vec![Effect::QueueDownloads(vec![entry])]
}

/// The runtime queued them: what it did, said.
pub fn on_queued(state: &mut State, added: usize, already: usize, refused: Vec<String>) -> Vec<Effect> {
    let now = state.clock.now;
    let view = state.keymap.say(Context::General, Action::Downloads, " · {} shows the downloads");
    let mut said = match (added, already) {
        (0, 0) if refused.is_empty() => "This entry has no media to download".to_string(),
        (0, 0) => String::new(),
        (0, n) => format!("Already in the downloads ({n}){view}"),
        (n, 0) => format!("Downloading {n} file(s){view}"),
        (n, m) => format!("Downloading {n} file(s), {m} already in the downloads{view}"),
    };
    for why in refused {
        if !said.is_empty() {
            said.push_str(" · ");
        }
        said.push_str(&format!("not downloaded: {why}"));
    }
    state.status.info(said, now);
    vec![Effect::LoadDownloads]
}

/// Opens the view; the queue arrives with [`on_loaded`].
pub fn open(state: &mut State) -> Vec<Effect> {
    state.dialog = Some(Dialog::Downloads);
    vec![Effect::LoadDownloads]
}

/// The queue as the store has it, keeping the cursor on its download.
pub fn on_loaded(state: &mut State, rows: Vec<Download>) -> Vec<Effect> {
    let visible = visible_rows(state);
    let view = &mut state.downloads;
    let at = view.current().map(|d| d.id);
    view.on_disk =
        rows.iter().filter(|d| d.state == DownloadState::Done).filter_map(|d| d.entry_id.map(EntryId)).collect();
    view.live.retain(|id, _| rows.iter().any(|d| d.id == *id && d.state == DownloadState::Downloading));
    let index = at.and_then(|id| rows.iter().position(|d| d.id == id)).unwrap_or(view.cursor.index);
    let len = rows.len();
    view.rows = Some(rows);
    view.cursor.select(index, len, visible);
    Vec::new()
}

/// How far a download got, at `at_ms`: the rate follows, smoothed over the last few seconds.
pub fn on_progress(state: &mut State, id: i64, done: u64, total: Option<u64>, at_ms: u64) -> Vec<Effect> {
    let live = state.downloads.live.entry(id).or_default();
    if live.at_ms > 0 && at_ms > live.at_ms && done >= live.done {
        let now_rate = (done - live.done) as f64 * 1000.0 / (at_ms - live.at_ms) as f64;
        live.rate = if live.rate == 0.0 { now_rate } else { 0.7 * live.rate + 0.3 * now_rate };
    }
    live.done = done;
    live.total = total;
    live.at_ms = at_ms;
    if let Some(row) = state.downloads.rows.iter_mut().flatten().find(|d| d.id == id) {
        row.state = DownloadState::Downloading;
        row.bytes_done = done;
        row.bytes_total = total;
    }
    Vec::new()
}

/// A download ended: said when it failed or stopped, and the queue read again.
pub fn on_ended(state: &mut State, id: i64, ended: DownloadState, reason: Option<String>) -> Vec<Effect> {
    let now = state.clock.now;
    state.downloads.live.remove(&id);
    let title = state.downloads.rows.iter().flatten().find(|d| d.id == id).map(|d| d.title.clone());
    let title = crate::sanitize::one_line(&title.unwrap_or_else(|| format!("download {id}")), 80);
    match (ended, reason) {
        // Said, not only logged: "Downloading 1 file(s)" must not stay on the status line after it is done.
        (DownloadState::Done, _) => state.status.info(format!("Downloaded \"{title}\""), now),
        (DownloadState::Failed, Some(why)) => state.status.error(format!("Download of \"{title}\" failed: {why}"), now),
        (state_now, Some(why)) => {
            state.status.info(format!("Download of \"{title}\" {}: {why}", state_now.as_str()), now);
        }
        _ => {}
    }
    vec![Effect::LoadDownloads]
}

/// A key while the view is open.
pub fn on_key(state: &mut State, action: Option<Action>) -> Vec<Effect> {
    let now = state.clock.now;
    let visible = visible_rows(state);
    let len = state.downloads.rows.as_ref().map_or(0, Vec::len);
    let current = state.downloads.current().cloned();
    match action {
        Some(Action::Close | Action::Downloads) => {
            crate::dialogs::close(state);
            Vec::new()
        }
        Some(Action::Pause) => match current {
            Some(d) if matches!(d.state, DownloadState::Queued | DownloadState::Downloading) => {
                control(d.id, DownloadOp::Pause)
            }
            Some(d) if d.state == DownloadState::Paused => control(d.id, DownloadOp::Resume),
            Some(_) => {
                state.status.info("Only a queued or running download pauses", now);
                Vec::new()
            }
            None => Vec::new(),
        },
        Some(Action::Refresh) => match current {
            Some(d) if matches!(d.state, DownloadState::Failed | DownloadState::Paused) => {
                control(d.id, DownloadOp::Resume)
            }
            Some(_) => {
                state.status.info("Only a failed or paused download is retried", now);
                Vec::new()
            }
            None => Vec::new(),
        },
        Some(Action::Delete) => match current {
            Some(d) => {
                let question = format!(
                    "Delete \"{}\" and its file? It cannot be undone.",
                    crate::sanitize::one_line(&d.title, 60)
                );
                state.queued_dialogs.push_front(Dialog::Downloads);
                state.dialog = Some(Dialog::Confirm(Confirm { question, action: Confirmed::DeleteDownload(d.id) }));
                Vec::new()
            }
            None => Vec::new(),
        },
        Some(Action::OpenMedia | Action::Open) => match current {
            Some(d) if d.state == DownloadState::Done => vec![Effect::Open { url: d.path, kind: OpenKind::Media }],
            Some(_) => {
                state.status.info("The file is not whole yet: it plays once it is downloaded", now);
                Vec::new()
            }
            None => Vec::new(),
        },
        Some(Action::OpenInBrowser) => match current {
            Some(d) => {
                let folder = std::path::Path::new(&d.path).parent().map(|p| p.to_string_lossy().into_owned());
                folder.map(|url| vec![Effect::Open { url, kind: OpenKind::Page }]).unwrap_or_default()
            }
            None => Vec::new(),
        },
        Some(action) => {
            if let Some(step) = crate::dialogs::text_step(action) {
                state.downloads.cursor.step(step, len, visible);
            } else if action == Action::Help {
                state.queued_dialogs.push_front(Dialog::Downloads);
                state.dialog = Some(Dialog::Help { scroll: 0 });
            } else {
                let help = state.keymap.say(Context::Downloads, Action::Close, "{} closes the downloads");
                state.status.info(help, now);
            }
            Vec::new()
        }
        None => Vec::new(),
    }
}

fn control(id: i64, op: DownloadOp) -> Vec<Effect> {
    vec![Effect::ControlDownload { id, op }, Effect::LoadDownloads]
}

/// The yes to deleting a download and its file.
pub fn delete_confirmed(state: &mut State, id: i64) -> Vec<Effect> {
    let now = state.clock.now;
    state.status.info("Deleted the download and its file", now);
    control(id, DownloadOp::Delete)
}
