//! Queueing: every enclosure of the entries asked for, each with its file's place chosen now (the feed's folder
//! and template, a name no other file or download has), a few hundred entries a transaction; and the new
//! episodes a refresh brought, for `auto_download`.

use super::{DownloadSettings, Downloads, FeedDownloads, Queued, filename, part_of, rows};
use crate::filename::Fields;
use crate::model::EntryId;
use crate::store::StoreError;
use crate::store::downloads::{State, Wanted};
use std::collections::HashMap;
use std::path::PathBuf;

impl Downloads {
    /// Queues every enclosure of the entries `ids` (not only the first), each with its file's place chosen now:
    /// the feed's folder and template, a name no other file or download has. A few hundred entries a
    /// transaction, so that a feed's thousands never hold the database from the reader's marks meanwhile.
    pub async fn queue(&self, ids: Vec<EntryId>) -> Result<Queued, StoreError> {
        let mut queued = Queued::default();
        let mut numbers = Numbers::new();
        for chunk in ids.chunks(QUEUE_BATCH) {
            let (done, kept) = match self.queue_some(chunk.to_vec(), numbers).await {
                Ok(done) => done,
                Err(e) => {
                    // What the transactions before stored is queued: a run under way takes it.
                    if !queued.added.is_empty() {
                        self.0.queued.notify_one();
                    }
                    return Err(e);
                }
            };
            numbers = kept;
            queued.added.extend(done.added);
            queued.already += done.already;
            queued.refused.extend(done.refused);
        }
        if !queued.added.is_empty() {
            self.0.queued.notify_one();
        }
        Ok(queued)
    }

    /// [`Downloads::queue`] of some entries, in one transaction; `numbers` is handed back for the next.
    async fn queue_some(&self, ids: Vec<EntryId>, mut numbers: Numbers) -> Result<(Queued, Numbers), StoreError> {
        let settings = self.0.settings.clone();
        let now = chrono::Utc::now().timestamp();
        self.0
            .writer
            .call(move |conn| {
                let wanted = rows::wanted(conn, &ids)?;
                let tx = conn.transaction()?;
                let mut queued = Queued::default();
                for want in wanted {
                    let url = &want.enclosure.url;
                    let own = settings.feeds.get(&want.feed_url);
                    if let Err(why) = check_url(url, own.is_some_and(|o| o.command.is_some())) {
                        queued.refused.push((crate::sanitize::one_line(url, 300), why));
                        continue;
                    }
                    if rows::queued_url(&tx, url)? {
                        queued.already += 1;
                        continue;
                    }
                    let path = place(&settings, own, &want, &mut numbers, &|p| rows::path_taken(&tx, p))?;
                    let media = want.enclosure.media_type.as_deref();
                    let (entry, feed) = (Some(want.entry_id), Some(want.feed_id));
                    let (title, feed_title) = (one(&want.title), one(&want.feed_title));
                    let added =
                        rows::insert(&tx, entry, feed, url, media, &path, State::Queued, &title, &feed_title, now)?;
                    queued.added.extend(added);
                }
                tx.commit()?;
                Ok((queued, numbers))
            })
            .await
    }

    /// The entries stored after entry `after` whose enclosures are downloaded as they come (`auto_download`):
    /// for the front end that refreshed to queue (at most [`MAX_AUTO_ENTRIES`] a refresh, the newest; none of a
    /// feed just subscribed to, whose first entries are its past).
    pub async fn new_episodes(&self, after: i64) -> Result<Vec<EntryId>, StoreError> {
        if !self.0.settings.auto_anywhere() {
            return Ok(Vec::new());
        }
        // The cap counts only what is downloaded: a feed that does not download by itself takes none of it.
        let found = self.0.writer.call(move |c| rows::new_with_enclosures(c, after)).await?;
        let settings = &self.0.settings;
        Ok(found
            .into_iter()
            .filter(|(_, url)| settings.auto_for(url))
            .map(|(id, _)| id)
            .take(MAX_AUTO_ENTRIES)
            .collect())
    }
}

/// Whether `url` may be downloaded: http and https only (a `download_command` may take other addresses, still
/// never `file:` or `javascript:`).
fn check_url(url: &str, by_command: bool) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("not an address ({e})"))?;
    match parsed.scheme() {
        "http" | "https" => Ok(()),
        "file" | "javascript" | "data" => Err(format!("a {}: address is never downloaded", parsed.scheme())),
        _ if by_command => Ok(()),
        other => Err(format!("a {other}: address is not downloaded: only http and https are")),
    }
}

fn one(text: &str) -> String {
    crate::sanitize::one_line(text, 300)
}

/// Where a wanted enclosure's file goes: its feed's folder (else `download_dir`), its template's path, a last
/// name no file, `.part` file or other download has.
/// Entries queued per transaction by [`Downloads::queue`].
const QUEUE_BATCH: usize = 200;

/// Entries one refresh downloads of itself at most (`auto_download`): a feed that suddenly lists a thousand
/// episodes does not queue a thousand files at once (`tidings download --feed` takes the rest when wanted).
pub const MAX_AUTO_ENTRIES: usize = 50;

/// The number each file name of one queueing took last (1: the name itself), so the next file of that name
/// tries the numbers after it: a feed of a thousand episodes of one title takes a thousand tries, not half a
/// million.
type Numbers = HashMap<PathBuf, u32>;

fn place(
    settings: &DownloadSettings,
    own: Option<&FeedDownloads>,
    want: &Wanted,
    numbers: &mut Numbers,
    taken: &dyn Fn(&str) -> Result<bool, StoreError>,
) -> Result<String, StoreError> {
    let dir = own.and_then(|o| o.dir.clone()).unwrap_or_else(|| settings.dir.clone());
    let template = own.and_then(|o| o.template.as_deref()).unwrap_or(&settings.template);
    let date = want
        .published_at
        .and_then(|at| chrono::DateTime::from_timestamp(at, 0))
        .map(|at| at.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    let ext = filename::extension(&want.enclosure.url, want.enclosure.media_type.as_deref());
    let fields = Fields { feed: &want.feed_title, title: &want.title, date: &date, ext: &ext };
    let mut parts = filename::render(template, &fields);
    let last = parts.pop().unwrap_or_else(|| "download".into());
    let folder = parts.iter().fold(dir, |path, part| path.join(part));
    let mut failed = None;
    let base = folder.join(&last);
    let after = numbers.get(&base).copied().unwrap_or(0);
    let (name, number) = filename::unique_after(&last, after, |name| {
        let path = folder.join(name);
        let in_queue = taken(&path.to_string_lossy()).unwrap_or_else(|e| {
            failed = Some(e);
            false
        });
        in_queue || path.exists() || part_of(&path).exists()
    });
    if let Some(e) = failed {
        return Err(e);
    }
    numbers.insert(base, number);
    Ok(folder.join(name).to_string_lossy().into_owned())
}
