//! The reader's reads and the user's writes, in order. The user's writes go to the session's one writer through
//! the store's one write path, numbered ([`WriteId`]); every read runs on a connection of its own behind the
//! [`WriteBarrier`], so a list read asked for after a write sees it, and says which write it saw.

use crate::app::{Event, ExportTo, ListKey, WriteFailure, WriteId};
use crate::config::Sorts;
use crate::model::{EntryId, EntryRef, EntryRow, FeedId, ListQuery, ListSource, Sort, UserWrite};
use crate::session::Session;
use crate::store::{self, DbThread, StoreError, entries, feeds, folders, lists};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Orders the reader's connection after the user's writes: a read asked for after a write sees it.
///
/// The writer and the reader are separate threads with separate connections, so without this a list read
/// could run before a "mark read" that was asked for earlier, and undo it on screen. Writes carry their number
/// ([`WriteId`]); a read waits for the last one handed to the writer before it, and says which it saw.
#[derive(Default)]
pub(super) struct WriteBarrier {
    /// The last write handed to the writer (they go in the order the state machine numbered them).
    submitted: std::sync::Mutex<WriteId>,
    /// The last write the writer has finished (applied, or refused).
    applied: std::sync::Mutex<WriteId>,
    changed: std::sync::Condvar,
    /// Told each time a read starts waiting for a write (for the barrier's own test).
    #[cfg(test)]
    pub(super) read_waits: tokio::sync::Notify,
}

impl WriteBarrier {
    fn submit(&self, id: WriteId) {
        let mut submitted = self.submitted.lock().unwrap_or_else(|e| e.into_inner());
        *submitted = (*submitted).max(id);
    }

    fn applied(&self, id: WriteId) {
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        *applied = (*applied).max(id);
        self.changed.notify_all();
    }

    /// The write a read asked for now must see.
    fn mark(&self) -> WriteId {
        *self.submitted.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Blocks (on the reading thread) until write `id` is applied.
    fn wait_for(&self, id: WriteId) {
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        #[cfg(test)]
        if *applied < id {
            self.read_waits.notify_one();
        }
        while *applied < id {
            applied = self.changed.wait(applied).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The reader's reads, each behind the barrier, and the user's writes. Cheap to clone.
#[derive(Clone)]
pub(super) struct Reads {
    session: Session,
    /// The connection the lists, the feed list and the articles are read on.
    reader: DbThread,
    /// A connection of its own for the saved views' counts: counting never delays a list or a key.
    counter: DbThread,
    pub(super) barrier: Arc<WriteBarrier>,
    inbox: mpsc::UnboundedSender<Event>,
    /// The orders of lists not yet told another (the config's `sort`s).
    sorts: Arc<Sorts>,
}

impl Reads {
    pub(super) fn new(
        session: Session,
        inbox: mpsc::UnboundedSender<Event>,
        sorts: Sorts,
    ) -> Result<Reads, StoreError> {
        let reader = session.reader("tidings-reader")?;
        let counter = session.reader("tidings-counter")?;
        Ok(Reads { session, reader, counter, barrier: Default::default(), inbox, sorts: Arc::new(sorts) })
    }

    /// Runs `read` on `on`'s thread once every user write asked for before it has been applied; it is told the
    /// last write it sees.
    fn behind_writes<F>(&self, on: &DbThread, read: F)
    where
        F: FnOnce(&mut rusqlite::Connection, WriteId) + Send + 'static,
    {
        let barrier = self.barrier.clone();
        let mark = barrier.mark();
        on.submit(move |c| {
            barrier.wait_for(mark);
            read(c, mark);
        });
    }

    /// Performs the user's write `id` on the session's writer, through the store's one write path (a feed it
    /// adds takes its settings from the config); its outcome comes back as [`Event::Written`].
    pub(super) fn write(&self, id: WriteId, write: UserWrite) {
        let barrier = self.barrier.clone();
        let inbox = self.inbox.clone();
        let db = self.session.db().to_path_buf();
        let feeds = self.session.feeds_settings();
        barrier.submit(id);
        self.session.writer().submit(move |c| {
            let now = chrono::Utc::now().timestamp();
            let outcome = crate::session::apply(c, &write, &feeds, now).map_err(|e| {
                let retry = e.may_work_later();
                let holders = if retry { store::holders(&db) } else { Vec::new() };
                let message =
                    if holders.is_empty() { e.to_string() } else { format!("{e}: {} holds it", holders.join(", ")) };
                tracing::warn!("{}: {message}", write.describe());
                WriteFailure { message, retry }
            });
            let _ = inbox.send(Event::Written { id, outcome });
            barrier.applied(id);
        });
        // What it starred or unstarred goes to the hooks, gathered behind it on the writer.
        self.session.user_wrote();
    }

    /// The feed list, its folders and the smart views' counts.
    pub(super) fn feeds(&self) {
        let inbox = self.inbox.clone();
        self.behind_writes(&self.reader, move |c, seen| {
            let result = (|| Ok::<_, StoreError>((feeds::feeds(c)?, folders::folders(c)?, lists::view_counts(c)?)))();
            let _ = inbox.send(match result {
                Ok((feeds, folders, views)) => Event::FeedsLoaded { feeds, folders, views, seen },
                Err(e) => Event::Error(format!("cannot read the feed list: {e}")),
            });
        });
    }

    /// A list: its refs in its order (the one given, or the one remembered for it), and the rows around `keep`.
    /// A search or a query sees every entry stored so far: what is not indexed yet is indexed first.
    pub(super) fn entries(
        &self,
        list: ListKey,
        source: ListSource,
        order: Option<(Sort, bool)>,
        keep: Option<EntryId>,
    ) {
        if matches!(source, ListSource::Search { .. } | ListSource::Query { .. }) {
            let this = self.clone();
            tokio::spawn(async move {
                if let Err(e) = this.session.pipeline().index().await {
                    let message = format!("cannot index new entries, so the results may miss some: {e}");
                    let _ = this.inbox.send(Event::Error(message));
                }
                this.read_list(list, source, order, keep);
            });
        } else {
            self.read_list(list, source, order, keep);
        }
    }

    fn read_list(&self, list: ListKey, source: ListSource, order: Option<(Sort, bool)>, keep: Option<EntryId>) {
        let inbox = self.inbox.clone();
        let sorts = self.sorts.clone();
        self.behind_writes(&self.reader, move |c, seen| {
            let _ = inbox.send(match load_list(c, source, order, keep, &sorts) {
                Ok((refs, rows, order)) => Event::EntriesLoaded { list, refs, rows, order, keep, seen },
                Err(message) => Event::EntriesFailed { list, message },
            });
        });
    }

    /// These rows of the list on screen.
    pub(super) fn rows(&self, list: ListKey, ids: Vec<EntryId>) {
        let inbox = self.inbox.clone();
        self.behind_writes(&self.reader, move |c, _| {
            let _ = inbox.send(match entries::entry_rows(c, &ids) {
                Ok(rows) => Event::RowsLoaded { list, rows },
                Err(e) => Event::Error(format!("cannot read entries: {e}")),
            });
        });
    }

    pub(super) fn article(&self, entry_id: EntryId) {
        let inbox = self.inbox.clone();
        self.behind_writes(&self.reader, move |c, _| {
            let _ = inbox.send(match entries::entry(c, entry_id) {
                Ok(detail) => Event::ArticleLoaded { entry_id, detail: detail.map(Box::new) },
                Err(e) => Event::ArticleFailed { entry_id, message: format!("cannot read the entry: {e}") },
            });
        });
    }

    /// The entries of `list` a `:mark` query matches.
    pub(super) fn matching(&self, list: ListKey, source: ListSource, query: String) {
        let inbox = self.inbox.clone();
        self.behind_writes(&self.reader, move |c, _| {
            let found = lists::search(c, &query, Some(&source), false, Sort::Newest)
                .map(|refs| refs.into_iter().map(|r| r.id).collect())
                .map_err(|e| e.to_string());
            let _ = inbox.send(Event::Matched { list, query, found });
        });
    }

    /// Writes entries as Markdown files, or reads them as one text for a command (see [`ExportTo`]). Files are
    /// written on the counting connection: a thousand of them take a second the lists must not wait for.
    pub(super) fn export(&self, ids: Vec<EntryId>, to: ExportTo) {
        let inbox = self.inbox.clone();
        let on = if matches!(to, ExportTo::Files { .. }) { &self.counter } else { &self.reader };
        self.behind_writes(on, move |c, _| {
            let _ = inbox.send(match to {
                ExportTo::Files { dir, template } => {
                    let folder = crate::export::expand_home(&dir);
                    match crate::export::to_files(c, &ids, &folder, &template) {
                        Ok(done) => exported(&done, &folder),
                        Err(e) => Event::Error(format!("Cannot export to {}: {e}", folder.display())),
                    }
                }
                ExportTo::SaveForLater => match crate::export::to_save(c, &ids) {
                    Ok(to) => Event::ToSave { server: to.server, command: to.command },
                    Err(e) => Event::Error(format!("Cannot read the marked entries to save them: {e}")),
                },
                ExportTo::Pipe { words, in_terminal, addresses } => match crate::export::to_text(c, &ids, addresses) {
                    Ok(text) => Event::ExportedText { words, in_terminal, text },
                    Err(e) => Event::Error(format!("Cannot read the marked entries to pipe them: {e}")),
                },
            });
        });
    }

    /// A feed's details, with `settings(url)`: its `key = value` lines of the config.
    pub(super) fn feed_info(&self, feed_id: FeedId, settings: impl Fn(&str) -> Vec<String> + Send + 'static) {
        let inbox = self.inbox.clone();
        self.behind_writes(&self.reader, move |c, _| {
            let _ = inbox.send(match feeds::feed_info(c, feed_id) {
                Ok(info) => {
                    let tags = feeds::tags(c, feed_id).unwrap_or_default();
                    let info = info.map(|mut info| {
                        info.settings = settings(&info.row.url);
                        if !tags.is_empty() {
                            // Tags live in the database, not the config; the info edits them the same way.
                            let tags = toml::Value::String(tags.join(", "));
                            info.settings.insert(0, format!("tags = {tags}"));
                        }
                        Box::new(info)
                    });
                    Event::FeedInfoLoaded { feed_id, info }
                }
                Err(e) => Event::Error(format!("cannot read the feed's details: {e}")),
            });
        });
    }

    /// Every local feed's health facts (the health view judges them).
    pub(super) fn health(&self) {
        let inbox = self.inbox.clone();
        self.behind_writes(&self.reader, move |c, _| {
            let _ = inbox.send(match store::health::facts(c) {
                Ok((facts, left_out)) => Event::HealthLoaded { facts, left_out },
                Err(e) => Event::Error(format!("cannot read the feeds' health: {e}")),
            });
        });
    }

    /// The feeds due for an automatic refresh at `now`.
    pub(super) fn due(&self, now: i64, interval_secs: i64) {
        let inbox = self.inbox.clone();
        self.behind_writes(&self.reader, move |c, _| {
            let _ = inbox.send(match feeds::due_feeds(c, now, interval_secs) {
                Ok(ids) => Event::DueFeeds(ids),
                Err(e) => Event::Error(format!("cannot read which feeds are due: {e}")),
            });
        });
    }

    /// The unread counts of saved views (place among the views, query), on the counting connection.
    pub(super) fn count_views(&self, views: Vec<(usize, String)>) {
        let inbox = self.inbox.clone();
        self.behind_writes(&self.counter, move |c, _| {
            let counts = views
                .into_iter()
                .map(|(index, query)| (index, lists::query_unread_count(c, &query).map_err(|e| e.to_string())))
                .collect();
            let _ = inbox.send(Event::ViewsCounted(counts));
        });
    }

    /// Which other processes hold the database (quitting waits for it).
    pub(super) fn holders(&self) {
        let (db, inbox) = (self.session.db().to_path_buf(), self.inbox.clone());
        tokio::task::spawn_blocking(move || {
            let holders = store::holders(&db);
            if !holders.is_empty() {
                tracing::info!("quitting waits for the database, held by {}", holders.join(", "));
            }
            let _ = inbox.send(Event::DatabaseHolders(holders));
        });
    }
}

/// Rows read with a list: this many before the kept entry, and in all.
const FIRST_ROWS_BEFORE: usize = 100;
const FIRST_ROWS: usize = 300;

/// A list as read: its refs, the rows around the kept entry, and the order they are in.
type LoadedList = (Vec<EntryRef>, Vec<EntryRow>, (Sort, bool));

/// A list's refs in its order (the one given, or the one remembered for it, or the config's), and the rows
/// around `keep`.
fn load_list(
    c: &mut rusqlite::Connection,
    source: ListSource,
    order: Option<(Sort, bool)>,
    keep: Option<EntryId>,
    sorts: &Sorts,
) -> Result<LoadedList, String> {
    let fail = |e: StoreError| format!("cannot read entries: {e}");
    let (sort, unread_only) = match order {
        Some(order) => order,
        None => match lists::list_setting(c, &lists::list_key(&source)).map_err(fail)? {
            Some(setting) => (setting.sort, setting.unread_only),
            None => (configured_sort(c, &source, sorts), false),
        },
    };
    // A search's query may mean nothing: its message says what to type instead.
    let refs = lists::entry_refs(c, &ListQuery { source, sort, unread_only }).map_err(|e| match e {
        StoreError::Query(q) => format!("search: {q}"),
        e => fail(e),
    })?;
    let at = keep.and_then(|id| refs.iter().position(|r| r.id == id)).unwrap_or(0);
    let ids: Vec<EntryId> =
        refs.iter().skip(at.saturating_sub(FIRST_ROWS_BEFORE)).take(FIRST_ROWS).map(|r| r.id).collect();
    let rows = entries::entry_rows(c, &ids).map_err(fail)?;
    Ok((refs, rows, (sort, unread_only)))
}

/// What an export to files says: how many went where, and each one that could not be written.
fn exported(done: &crate::export::Exported, folder: &std::path::Path) -> Event {
    let n = done.written.len();
    let files = if n == 1 { "1 entry".to_string() } else { format!("{n} entries") };
    let mut text = format!("Exported {files} as Markdown to {}", folder.display());
    if done.missing > 0 {
        text.push_str(&format!("; {} no longer stored (purged meanwhile)", done.missing));
    }
    if done.failed.is_empty() {
        return Event::Notice(text);
    }
    let failed = done.failed.len();
    let first = &done.failed[0];
    let more = if failed > 1 { format!(" (and {} more, in the log file)", failed - 1) } else { String::new() };
    for why in &done.failed {
        tracing::warn!("export: {why}");
    }
    Event::Error(format!("{text}; {failed} not written: {first}{more}"))
}

/// The order the config gives a list never sorted in the reader: its feed's or view's `sort`, else `sort`.
fn configured_sort(c: &rusqlite::Connection, source: &ListSource, sorts: &Sorts) -> Sort {
    let own = match source {
        ListSource::Feed(id) if !sorts.feeds.is_empty() => c
            .query_row("SELECT url FROM feeds WHERE id = ?1", [id.0], |r| r.get::<_, String>(0))
            .ok()
            .and_then(|url| sorts.feeds.get(&url).copied()),
        ListSource::Query { query, within: None } => sorts.views.get(query).copied(),
        _ => None,
    };
    own.unwrap_or(sorts.default)
}
