//! The workers effects are handed to: the store's reader and writer threads, the refresher, the renderer and
//! discovery. Each effect starts at once and its result comes back through the inbox; a worker that dies is
//! reported as a failed event, so the reader never waits for an answer that will not come.

use super::opener::{Launch, Launcher};
use crate::app::{Effect, Event, ListKey};
use crate::fetch::Fetcher;
use crate::model::{EntryId, EntryRef, EntryRow, ListQuery, ListSource, Sort};
use crate::refresh::Refresher;
use crate::store::{DbThread, StoreError, read, write};
use crate::store::{folders, lists, search};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Orders the reader's connection after the user's writes: a read asked for after a write sees it.
///
/// The writer and the reader are separate threads with separate connections, so without this a list read
/// could run before a "mark read" that was asked for earlier, and undo it on screen.
#[derive(Default)]
pub(super) struct WriteBarrier {
    /// User writes handed to the writer (in the order the state machine asked for them).
    submitted: std::sync::atomic::AtomicU64,
    /// User writes the writer has finished.
    applied: std::sync::Mutex<u64>,
    changed: std::sync::Condvar,
}

impl WriteBarrier {
    fn submit(&self) {
        self.submitted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    fn applied_one(&self) {
        *self.applied.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.changed.notify_all();
    }

    /// The number of user writes a read asked for now must see.
    fn mark(&self) -> u64 {
        self.submitted.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Blocks (on the reader's thread) until `mark` writes are applied.
    fn wait_for(&self, mark: u64) {
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        while *applied < mark {
            applied = self.changed.wait(applied).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The workers that effects are handed to.
#[derive(Clone)]
pub(super) struct Services {
    pub writer: DbThread,
    pub reader: DbThread,
    pub refresher: Refresher,
    pub inbox: mpsc::UnboundedSender<Event>,
    pub barrier: Arc<WriteBarrier>,
    pub launcher: Arc<Launcher>,
    pub fetcher: Fetcher,
    /// What retention keeps (keep_days, max_entries_per_feed, per feed).
    pub retention: Arc<crate::store::purge::Policy>,
}

impl Services {
    /// Runs a read on the reader's thread once every user write asked for before it has been applied.
    fn read<F>(&self, f: F)
    where
        F: FnOnce(&mut rusqlite::Connection, u64) + Send + 'static,
    {
        let barrier = self.barrier.clone();
        let mark = barrier.mark();
        self.reader.submit(move |c| {
            barrier.wait_for(mark);
            f(c, mark);
        });
    }

    /// Runs a user write on the writer's thread, counted by the barrier; an error is reported as `what` failed.
    fn write<F>(&self, what: &'static str, f: F)
    where
        F: FnOnce(&mut rusqlite::Connection) -> Result<Option<Event>, StoreError> + Send + 'static,
    {
        let barrier = self.barrier.clone();
        let inbox = self.inbox.clone();
        barrier.submit();
        self.writer.submit(move |c| {
            match f(c) {
                Ok(Some(event)) => {
                    let _ = inbox.send(event);
                }
                Ok(None) => {}
                Err(e) => {
                    let _ = inbox.send(Event::Error(format!("{what}: {e}")));
                }
            }
            barrier.applied_one();
        });
    }

    /// Reads a list on the reader's thread and sends it (or why it could not be read) to the inbox.
    fn load_entries(&self, list: ListKey, source: ListSource, order: Option<(Sort, bool)>, keep: Option<EntryId>) {
        let inbox = self.inbox.clone();
        self.read(move |c, seen_writes| {
            let _ = inbox.send(match load_list(c, source, order, keep) {
                Ok((refs, rows, order)) => Event::EntriesLoaded { list, refs, rows, order, keep, seen_writes },
                Err(message) => Event::EntriesFailed { list, message },
            });
        });
    }

    /// Hands one effect to its worker. Returns at once. [`Effect::Suspend`] belongs to the terminal loop.
    pub fn run(&self, effect: Effect) {
        let inbox = self.inbox.clone();
        match effect {
            Effect::LoadFeeds => self.read(move |c, seen_writes| {
                let result = (|| Ok::<_, StoreError>((read::feeds(c)?, read::folders(c)?, lists::view_counts(c)?)))();
                let _ = inbox.send(match result {
                    Ok((feeds, folders, views)) => Event::FeedsLoaded { feeds, folders, views, seen_writes },
                    Err(e) => Event::Error(format!("cannot read the feed list: {e}")),
                });
            }),
            Effect::LoadEntries { list, source: source @ ListSource::Search { .. }, order, keep } => {
                // A search sees every entry stored so far: what is not indexed yet is indexed first.
                let this = self.clone();
                tokio::spawn(async move {
                    if let Err(e) = super::upkeep::index(&this.writer).await {
                        let message = format!("cannot index new entries, so the results may miss some: {e}");
                        let _ = this.inbox.send(Event::Error(message));
                    }
                    this.load_entries(list, source, order, keep);
                });
            }
            Effect::LoadEntries { list, source, order, keep } => self.load_entries(list, source, order, keep),
            Effect::LoadRows { list, ids } => self.read(move |c, _| {
                let _ = inbox.send(match lists::entry_rows(c, &ids) {
                    Ok(rows) => Event::RowsLoaded { list, rows },
                    Err(e) => Event::Error(format!("cannot read entries: {e}")),
                });
            }),
            Effect::LoadArticle(entry_id) => self.read(move |c, _| {
                let _ = inbox.send(match read::entry(c, entry_id) {
                    Ok(detail) => Event::ArticleLoaded { entry_id, detail: detail.map(Box::new) },
                    Err(e) => Event::ArticleFailed { entry_id, message: format!("cannot read the entry: {e}") },
                });
            }),
            Effect::RenderArticle { entry_id, html, width, base } => {
                tokio::task::spawn_blocking(move || {
                    // A renderer that panics on some document must not leave "Rendering…" on screen forever.
                    let rendered = std::panic::catch_unwind(|| {
                        crate::render::render_article(&html, usize::from(width), base.as_deref())
                    })
                    .map_err(|panic| format!("the renderer failed: {}", panic_message(&panic)));
                    let _ = inbox.send(Event::ArticleRendered { entry_id, width, body: rendered });
                });
            }
            Effect::Open { url, kind } => {
                // The URL goes to the program as one argument, never through a shell; only web and mail
                // addresses get here (see app::article::open_url). Terminal programs are the loop's to run.
                match self.launcher.launch(&url, kind) {
                    Launch::Detached(command) | Launch::Foreground(command) => start_detached(command, inbox),
                    Launch::Platform(url) => {
                        if let Err(e) = open::that_detached(&url) {
                            let _ = inbox.send(Event::Error(format!(
                                "cannot open the browser: {e}; set `browser` in the config (for example \"firefox %u\")"
                            )));
                        }
                    }
                }
            }
            Effect::SetRead { ids, read } => self.write("cannot save the read state", move |c| {
                Ok(gone_meanwhile(write::set_read(c, &ids, read)?, if read { "marked read" } else { "marked unread" }))
            }),
            Effect::SetStarred { ids, starred } => self.write("cannot save the star", move |c| {
                Ok(gone_meanwhile(lists::set_starred(c, &ids, starred)?, if starred { "starred" } else { "unstarred" }))
            }),
            Effect::MarkListRead { list, source } => self.write("cannot mark entries read", move |c| {
                let query = ListQuery { source, sort: Sort::Newest, unread_only: true };
                let ids = lists::mark_read(c, &query).map_err(|e| match e {
                    search::SearchError::Store(e) => e,
                    other => StoreError::Conflict(other.to_string()),
                })?;
                Ok(Some(Event::ListMarkedRead { list, ids }))
            }),
            Effect::SetListOrder { source, sort, unread_only } => {
                self.write("cannot remember the list's order", move |c| {
                    let setting = lists::ListSetting { sort, unread_only };
                    lists::set_list_setting(c, &lists::list_key(&source), setting).map(|_| None)
                })
            }
            Effect::LoadFeedInfo(feed_id) => self.read(move |c, _| {
                let _ = inbox.send(match read::feed_info(c, feed_id) {
                    Ok(info) => Event::FeedInfoLoaded { feed_id, info: info.map(Box::new) },
                    Err(e) => Event::Error(format!("cannot read the feed's details: {e}")),
                });
            }),
            Effect::SetEncodingOverride { feed_id, label } => self.write("cannot save the forced encoding", move |c| {
                write::set_encoding_override(c, feed_id, label.as_deref()).map(|_| None)
            }),
            Effect::Discover { request, url } => {
                let fetcher = self.fetcher.clone();
                let task = tokio::spawn(async move { crate::fetch::discovery::discover(&fetcher, &url).await });
                tokio::spawn(async move {
                    let discovery = match task.await {
                        Ok(found) => found,
                        Err(e) => crate::model::Discovery {
                            error: Some(format!("discovery failed ({}); please report this address", join_message(e))),
                            ..Default::default()
                        },
                    };
                    let _ = inbox.send(Event::Discovered { request, discovery: Box::new(discovery) });
                });
            }
            Effect::AddFeed { url, title, folder } => self.write("cannot add the feed", move |c| {
                let shown = title.clone().unwrap_or_else(|| url.clone());
                let new = crate::model::NewFeed { url, title, name: None, site_url: None, folder };
                let (feed_id, added) = write::add_feed(c, &new, chrono::Utc::now().timestamp())?;
                Ok(Some(Event::FeedAdded { feed_id, added, title: shown }))
            }),
            Effect::DeleteFeed(id) => {
                self.write("cannot delete the feed", move |c| write::delete_feed(c, id).map(|_| None))
            }
            Effect::RenameFeed { feed_id, title } => self.write("cannot rename the feed", move |c| {
                write::rename_feed(c, feed_id, title.as_deref()).map(|_| None)
            }),
            Effect::MoveFeed { feed_id, folder } => {
                self.write("cannot move the feed", move |c| folders::move_feed(c, feed_id, &folder).map(|_| None))
            }
            Effect::CreateFolder(path) => {
                self.write("cannot create the folder", move |c| folders::create(c, &path).map(|_| None))
            }
            Effect::MoveFolder { folder_id, parent } => {
                self.write("cannot move the folder", move |c| folders::move_to(c, folder_id, &parent).map(|_| None))
            }
            Effect::RenameFolder { folder_id, name } => {
                self.write("cannot rename the folder", move |c| folders::rename(c, folder_id, &name).map(|_| None))
            }
            Effect::DeleteFolder { folder_id, with_contents } => self.write("cannot delete the folder", move |c| {
                let contents = if with_contents { folders::Contents::Delete } else { folders::Contents::MoveUp };
                folders::delete(c, folder_id, contents).map(|_| None)
            }),
            Effect::SetCollapsed { folder_id, collapsed } => self.write("cannot save the folder's state", move |c| {
                folders::set_collapsed(c, folder_id, collapsed).map(|_| None)
            }),
            Effect::LoadDue { now, interval_secs } => self.read(move |c, _| {
                let _ = inbox.send(match read::due_feeds(c, now, interval_secs) {
                    Ok(ids) => Event::DueFeeds(ids),
                    Err(e) => Event::Error(format!("cannot read which feeds are due: {e}")),
                });
            }),
            Effect::Refresh { batch, ids, force } => {
                let refresher = self.refresher.clone();
                let report_to = inbox.clone();
                let asked = ids.clone();
                let task = tokio::spawn(async move {
                    refresher
                        .run(crate::refresh::Which::Feeds(ids), force, move |ev| {
                            let _ = report_to.send(Event::Refresh(ev));
                        })
                        .await
                });
                // Whatever happens to the task, the feeds it did not report on are released: the state machine
                // counts those still waiting as failed, so "Refreshing n/m" always ends.
                let after = self.refresher.clone();
                let (writer, retention) = (self.writer.clone(), self.retention.clone());
                tokio::spawn(async move {
                    let reason = match task.await {
                        Ok(Ok(_)) => "the refresh ended without a result for it".to_string(),
                        Ok(Err(e)) => format!("the refresh stopped: {e}"),
                        Err(e) => format!("the refresh failed ({}); please report this", join_message(e)),
                    };
                    let _ = inbox.send(Event::RefreshStopped { batch, ids: asked, reason });
                    // Then, in the background: old entries purged and new ones indexed, in slices the user's
                    // writes go between; the new entries of full-text feeds fetched in full (and indexed).
                    super::upkeep::purge_and_index(&writer, retention, &inbox).await;
                    let report_to = inbox.clone();
                    let now = chrono::Utc::now().timestamp();
                    let fetched = after
                        .fetch_full_texts(now, move |entry_id, result| {
                            let _ = report_to.send(Event::FullTextFetched { entry_id, result });
                        })
                        .await;
                    match fetched {
                        Ok(0) => {}
                        Ok(_) => {
                            if let Err(e) = super::upkeep::index(&writer).await {
                                let _ = inbox.send(Event::Error(format!("cannot index the full articles: {e}")));
                            }
                        }
                        Err(e) => {
                            let _ = inbox.send(Event::Error(format!("cannot fetch full articles: {e}")));
                        }
                    }
                });
            }
            Effect::FetchFullText { entry_id, url } => {
                let refresher = self.refresher.clone();
                tokio::spawn(async move {
                    let result = refresher.fetch_full_text(entry_id, &url).await;
                    let _ = inbox.send(Event::FullTextFetched { entry_id, result });
                });
            }
            Effect::SetFeedFullText { feed_id, on } => self
                .write("cannot save the feed's full-text setting", move |c| {
                    crate::store::articles::set_feed_full_text(c, feed_id, on).map(|_| None)
                }),
            Effect::Suspend => {}
        }
    }
}

/// Entries the user acted on that the store no longer has: retention purged them after they were shown (an
/// old entry read, then a refresh). Said, so that a star or an undo that could not happen does not look done.
fn gone_meanwhile(missing: usize, done: &str) -> Option<Event> {
    (missing > 0).then(|| {
        let what = if missing == 1 { "1 entry was".to_string() } else { format!("{missing} entries were") };
        Event::Error(format!("{what} not {done}: purged meanwhile as older than keep_days (star entries to keep them)"))
    })
}

/// Starts a graphical program on its own (no terminal), and reports it if it cannot start or fails.
fn start_detached(mut command: std::process::Command, inbox: mpsc::UnboundedSender<Event>) {
    use std::process::Stdio;
    let program = command.get_program().to_string_lossy().into_owned();
    match command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn() {
        Ok(mut child) => {
            // Reaped on a thread of its own, so no zombie is left and a failure is still heard of.
            std::thread::spawn(move || {
                if let Ok(status) = child.wait()
                    && !status.success()
                {
                    let _ = inbox.send(Event::Error(format!("{program} ended with {status}")));
                }
            });
        }
        Err(e) => {
            let _ = inbox
                .send(Event::Error(format!("cannot start {program}: {e}; check `browser` and `player` in the config")));
        }
    }
}

/// Rows read with a list: this many before the kept entry, and in all.
const FIRST_ROWS_BEFORE: usize = 100;
const FIRST_ROWS: usize = 300;

/// A list as read: its refs, the rows around the kept entry, and the order they are in.
type LoadedList = (Vec<EntryRef>, Vec<EntryRow>, (Sort, bool));

/// A list's refs in its order (the one given, or the one remembered for it), and the rows around `keep`.
fn load_list(
    c: &mut rusqlite::Connection,
    source: ListSource,
    order: Option<(Sort, bool)>,
    keep: Option<EntryId>,
) -> Result<LoadedList, String> {
    let fail = |e: StoreError| format!("cannot read entries: {e}");
    let (sort, unread_only) = match order {
        Some(order) => order,
        None => {
            let setting = lists::list_setting(c, &lists::list_key(&source)).map_err(fail)?.unwrap_or_default();
            (setting.sort, setting.unread_only)
        }
    };
    // A search's query may mean nothing: its message says what to type instead.
    let refs = lists::entry_refs(c, &ListQuery { source, sort, unread_only }).map_err(|e| match e {
        search::SearchError::Query(q) => format!("search: {q}"),
        search::SearchError::Store(e) => fail(e),
    })?;
    let at = keep.and_then(|id| refs.iter().position(|r| r.id == id)).unwrap_or(0);
    let ids: Vec<EntryId> =
        refs.iter().skip(at.saturating_sub(FIRST_ROWS_BEFORE)).take(FIRST_ROWS).map(|r| r.id).collect();
    let rows = lists::entry_rows(c, &ids).map_err(fail)?;
    Ok((refs, rows, (sort, unread_only)))
}

fn join_message(e: tokio::task::JoinError) -> String {
    if e.is_cancelled() { "it was cancelled".to_string() } else { panic_message(&e.into_panic()) }
}

/// The text a panic carried, when it carried one.
pub(super) fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}
