//! Reading a fetched document: decoding and parsing it, and judging its new entries by the kill rules, one feed per
//! core at a time, on the blocking pool. A refresh with no terminal to answer (`tidings refresh`, the daemon) reads
//! a small document where its task stands instead, on the runtime's thread that fetched it (see
//! [`Refresher::reading_in_place`]; `tidings refresh` has one, whose requests wait meanwhile).

use super::{MAX_REFRESH_EVERY_SECS, Refresher, digest};
use crate::model::ErrorKind;
use crate::store::feeds::RefreshTarget;
use crate::store::fetches::{FetchRecord, MAX_ENTRIES_PER_REFRESH};

/// The largest document read on the thread that fetched it, when the refresh reads in place. Reading runs at about
/// 70 MB/s here, so a thread is held for at most about two milliseconds; handing a document to the blocking pool
/// and its result back wakes two threads. Read in place, a cold refresh of 4000 × 100 (documents of 27 KB) switched
/// threads 13,700 times instead of 31,400, took 5.6 s of processor time instead of 5.9, and peaked at 49.5 MB
/// instead of 51.1 (medians of three rounds each, alternating in one run). Not in the reader: its terminal loop's
/// keys and frames go through the same workers, and workers reading documents back to back held them up (a key to
/// its frame during a 4000-feed refresh: mean 14.0 ms, p99 95 ms, against 3.7 ms and 15 ms).
pub const READ_IN_PLACE_BYTES: usize = 128 * 1024;

impl Refresher {
    /// Reads small documents ([`READ_IN_PLACE_BYTES`]) on the thread that fetched them, not on the blocking pool:
    /// for a refresh that no terminal waits on.
    pub fn reading_in_place(mut self) -> Refresher {
        self.in_place = true;
        self
    }

    /// Decodes and parses a fetched feed, one feed per core at a time: in place when the refresh reads in place and
    /// the document is small, else on the blocking pool. A panic while reading fails this feed alone.
    pub(super) async fn read(&self, target: &RefreshTarget, fetched: crate::fetch::Fetched) -> FetchRecord {
        let forced = target.encoding_override.clone().or_else(|| self.forced.get(&target.url).cloned());
        let _core = self.reading.acquire().await.expect("the reading semaphore is never closed");
        let (rules, feed, known, hook) = (
            self.rules.clone(),
            (target.title.clone(), target.url.clone(), target.folder.clone(), target.tags.clone()),
            target.document_digest.clone(),
            self.reading_hook.clone(),
        );
        let in_place = self.in_place && fetched.body.len() <= READ_IN_PLACE_BYTES;
        let work = move || {
            // Parsing is bulk work: the reader's terminal loop comes first (see the writer's thread).
            crate::store::lower_this_threads_priority();
            if let Some(hook) = hook {
                hook(&feed.1);
            }
            // The document its last refresh read, read the same way: nothing in it is new.
            let digest = digest::of(&fetched, forced.as_deref());
            if known.as_deref() == Some(digest.as_str()) {
                return Err(Box::new(fetched));
            }
            let url = fetched.final_url.as_str();
            let result =
                crate::ingest::ingest(&fetched.body, fetched.content_type.as_deref(), Some(url), forced.as_deref());
            // Kill rules read each entry here, on the reading threads, rather than on the one writer.
            let ignored = match (&result, &rules) {
                (Ok(ingested), Some(rules)) => ignored_entries(rules, &ingested.feed.entries, &feed),
                _ => Vec::new(),
            };
            Ok((fetched, result, ignored, digest))
        };
        let read = if in_place {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .map_err(|panic| crate::panics::panic_message(&*panic))
        } else {
            tokio::task::spawn_blocking(work).await.map_err(crate::panics::join_message)
        };
        match read {
            Ok(Err(same)) => FetchRecord::Unchanged {
                status: same.status,
                etag: same.etag,
                last_modified: same.last_modified,
                moved_to: same.moved_permanently,
            },
            Ok(Ok((fetched, Ok(mut ingested), ignored, digest))) => {
                // The store takes no more than this many: the parser read no more (it counted the rest).
                let entries = &mut ingested.feed.entries;
                let listed = entries.len() + ingested.feed.unkept;
                let cut_from = (listed > MAX_ENTRIES_PER_REFRESH).then_some(listed);
                entries.truncate(MAX_ENTRIES_PER_REFRESH);
                // Decoding that had to replace bytes or override a declaration is worth a note.
                ingested.feed.warnings.extend(
                    ingested.decision.notes.iter().filter(|n| n.contains("replaced")).map(|n| format!("decoding: {n}")),
                );
                let asked = ingested.feed.min_interval_secs.max(fetched.max_age);
                FetchRecord::Fetched {
                    status: fetched.status,
                    etag: fetched.etag,
                    last_modified: fetched.last_modified,
                    decision: serde_json::to_string(&ingested.decision).ok(),
                    feed: Box::new(ingested.feed),
                    moved_to: fetched.moved_permanently,
                    min_interval_secs: asked.map(|secs| secs.min(MAX_REFRESH_EVERY_SECS as u64)),
                    ignored,
                    cut_from,
                    digest: Some(digest),
                }
            }
            Ok(Ok((_, Err(e), _, _))) => {
                FetchRecord::Failed { status: None, kind: e.kind(), message: e.to_string(), retry_after_secs: None }
            }
            Err(panic) => {
                tracing::error!(feed = %target.url, "reading the feed panicked: {panic}");
                FetchRecord::Failed {
                    status: None,
                    kind: ErrorKind::Internal,
                    message: format!(
                        "reading the feed crashed ({}); please report this feed",
                        crate::sanitize::one_line(&panic, 300)
                    ),
                    retry_after_secs: None,
                }
            }
        }
    }
}

/// The places (in `entries`) of the entries a kill rule matches, read as they will be stored: unread, not
/// starred, dated as the store dates them.
pub fn ignored_entries(
    rules: &crate::query::Matcher,
    entries: &[crate::model::ParsedEntry],
    (feed_title, feed_url, folder, feed_tags): &(String, String, Option<String>, Vec<String>),
) -> Vec<usize> {
    let now = chrono::Utc::now().timestamp();
    let mut ignored = Vec::new();
    for (i, e) in entries.iter().enumerate().take(MAX_ENTRIES_PER_REFRESH) {
        let title = e.display_title();
        let author = (!e.authors.is_empty()).then(|| e.authors.join(", "));
        let date = e.published.or(e.updated).map_or(now, |d| d.timestamp());
        let mut entry = crate::query::Entry::new(feed_title, feed_url, folder.as_deref(), date);
        entry.title = title.as_deref();
        entry.author = author.as_deref();
        entry.link = e.link.as_deref();
        entry.tags = &e.categories;
        entry.feed_tags = feed_tags;
        entry.enclosure_types = e.enclosures.iter().map(|x| x.kind().unwrap_or("")).collect();
        entry.body_html = e.content_html.as_deref().or(e.summary_html.as_deref());
        if rules.matches(&entry, now) {
            ignored.push(i);
        }
    }
    ignored
}
