//! The jobs effects are handed to, each owning its state: [`Reads`] (the store's reads behind the write barrier,
//! and the user's writes), [`Work`] (refreshes, syncs, full articles, discovery — through the session),
//! [`Processes`] (programs started beside the reader), [`Settings`] (the config file's edits), [`Render`] (the
//! article's render) and the pictures. Each effect starts at once and its result comes back through the inbox;
//! a worker that dies is reported as a failed event, so the reader never waits for an answer that will not come.

use super::processes::Processes;
use super::reads::Reads;
use super::render::Render;
use super::settings::Settings;
use super::work::Work;
use crate::app::{Effect, Event};
use tokio::sync::mpsc;

/// The jobs that effects are handed to.
#[derive(Clone)]
pub(super) struct Services {
    pub reads: Reads,
    pub work: Work,
    pub processes: Processes,
    pub settings: Settings,
    pub render: Render,
    pub downloads: super::downloads::Downloads,
    /// The article's pictures; `None` while they are off.
    pub pictures: Option<crate::pictures::Pictures>,
    pub inbox: mpsc::UnboundedSender<Event>,
}

impl Services {
    /// Hands one effect to its job. Returns at once. [`Effect::Suspend`] belongs to the terminal loop.
    pub(super) fn run(&self, effect: Effect) {
        match effect {
            Effect::LoadFeeds => self.reads.feeds(),
            Effect::LoadEntries { list, source, order, keep } => self.reads.entries(list, source, order, keep),
            Effect::LoadRows { list, ids } => self.reads.rows(list, ids),
            Effect::LoadArticle(entry_id) => self.reads.article(entry_id),
            Effect::LoadFeedInfo(feed_id) => self.reads.feed_info(feed_id, self.settings.lines_of()),
            Effect::LoadHealth => self.reads.health(),
            Effect::QueueDownloads(ids) => self.downloads.queue(ids),
            Effect::LoadDownloads => self.downloads.load(),
            Effect::ControlDownload { id, op } => self.downloads.control(id, op),
            Effect::LoadDue { now, interval_secs } => self.reads.due(now, interval_secs),
            Effect::CountViews(views) => self.reads.count_views(views),
            Effect::FindDatabaseHolders => self.reads.holders(),
            Effect::Write { id, write } => self.reads.write(id, write),
            Effect::MatchEntries { list, source, query } => self.reads.matching(list, source, query),
            Effect::Export { ids, to } => self.reads.export(ids, to),
            Effect::RenderArticle { entry_id, html, width, base } => self.render.render(entry_id, html, width, base),
            Effect::Open { url, kind } => self.processes.open(&self.processes.launcher.clone(), &url, kind),
            Effect::Pipe { words, input, .. } => self.processes.pipe(&words, input),
            Effect::Save { path, text, overwrite } => self.processes.save(path, text, overwrite),
            Effect::Copy(text) => {
                // Without a copy_command, the terminal loop copies (OSC 52).
                self.processes.copy(text);
            }
            Effect::Bookmark { url, title, description, feed } => {
                self.processes.bookmark(&url, &title, &description, &feed);
            }
            Effect::SaveForLater { entries } => self.processes.save_for_later(entries),
            Effect::SaveView { name, query } => self.settings.save_view(name, query),
            Effect::SetFeedSetting { feed_id, url, setting } => self.settings.set_feed_setting(feed_id, url, setting),
            Effect::Refresh { batch, ids, force } => self.work.refresh(batch, ids, force),
            Effect::Sync(names) => self.work.sync(names),
            Effect::FetchFullText { entry_id, url } => self.work.full_text(entry_id, url),
            Effect::Discover { request, url } => self.work.discover(request, url),
            Effect::LoadPicture { url, feed_url } => match &self.pictures {
                Some(pictures) => pictures.load(url, feed_url, self.inbox.clone()),
                None => {
                    let _ = self.inbox.send(Event::PictureLoaded { url, result: Err("pictures are off".into()) });
                }
            },
            Effect::PreparePicture { url, cols, rows } => match &self.pictures {
                Some(pictures) => pictures.prepare(url, (cols, rows), self.inbox.clone()),
                None => {
                    let result = Err("pictures are off".into());
                    let _ = self.inbox.send(Event::PicturePrepared { url, size: (cols, rows), result });
                }
            },
            Effect::Suspend => {}
        }
    }
}
