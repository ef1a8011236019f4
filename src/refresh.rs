//! Refreshing feeds: fetch, decode + parse off the async threads, and one write transaction per feed, with
//! bounded concurrency. Reports progress as [`RefreshEvent`]s to whoever asked (the reader's inbox, or the
//! `refresh` command's progress line).

use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::model::FeedId;
use crate::store::read::RefreshTarget;
use crate::store::write::{self, FetchRecord};
use crate::store::{DbThread, StoreError, read};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Progress of one feed's refresh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefreshEvent {
    Started {
        feed_id: FeedId,
    },
    /// New content was stored.
    Done {
        feed_id: FeedId,
        new: usize,
        updated: usize,
        unread: i64,
        title: String,
    },
    /// The server said nothing changed (304).
    NotModified {
        feed_id: FeedId,
    },
    /// The refresh failed; stored entries are untouched.
    Failed {
        feed_id: FeedId,
        title: String,
        url: String,
        kind: String,
        message: String,
    },
}

impl RefreshEvent {
    pub fn feed_id(&self) -> FeedId {
        match self {
            RefreshEvent::Started { feed_id }
            | RefreshEvent::Done { feed_id, .. }
            | RefreshEvent::NotModified { feed_id }
            | RefreshEvent::Failed { feed_id, .. } => *feed_id,
        }
    }

    /// True for the event that ends a feed's refresh.
    pub fn is_final(&self) -> bool {
        !matches!(self, RefreshEvent::Started { .. })
    }
}

/// Totals of a refresh run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub feeds: usize,
    pub updated_feeds: usize,
    pub not_modified: usize,
    pub new_entries: usize,
    pub failed: Vec<RefreshEvent>,
}

/// Runs refreshes with a shared concurrency limit. Cheap to clone.
#[derive(Clone)]
pub struct Refresher {
    fetcher: Fetcher,
    writer: DbThread,
    limit: Arc<Semaphore>,
    /// Encodings forced in the config, by feed URL (one forced from the reader, stored with the feed, wins).
    forced: Arc<std::collections::BTreeMap<String, String>>,
}

impl Refresher {
    pub fn new(fetcher: Fetcher, writer: DbThread, concurrency: usize) -> Refresher {
        Refresher { fetcher, writer, limit: Arc::new(Semaphore::new(concurrency.max(1))), forced: Arc::default() }
    }

    /// Decodes the feeds named here with the encodings given (the config's `[encoding]` table).
    pub fn with_forced_encodings(mut self, forced: std::collections::BTreeMap<String, String>) -> Refresher {
        self.forced = Arc::new(forced);
        self
    }

    /// Refreshes the feeds `ids` (every feed for `None`), calling `report` for each step, and returns the
    /// totals when all are done.
    pub async fn run<F>(&self, ids: Option<Vec<FeedId>>, report: F) -> Result<Summary, StoreError>
    where
        F: Fn(RefreshEvent) + Send + Sync + 'static,
    {
        let targets = self.writer.call(move |c| read::refresh_targets(c, ids.as_deref())).await?;
        let report = Arc::new(report);
        let mut tasks = tokio::task::JoinSet::new();
        for target in targets {
            let this = self.clone();
            let report = report.clone();
            tasks.spawn(async move {
                let _permit = this.limit.acquire().await.expect("the refresh semaphore is never closed");
                let event = this.refresh_one(target, &*report).await;
                report(event.clone());
                event
            });
        }
        let mut summary = Summary::default();
        while let Some(joined) = tasks.join_next().await {
            let Ok(event) = joined else { continue };
            summary.feeds += 1;
            match event {
                RefreshEvent::Done { new, .. } => {
                    summary.updated_feeds += 1;
                    summary.new_entries += new;
                }
                RefreshEvent::NotModified { .. } => summary.not_modified += 1,
                failed @ RefreshEvent::Failed { .. } => summary.failed.push(failed),
                RefreshEvent::Started { .. } => {}
            }
        }
        summary.failed.sort_by_key(|ev| match ev {
            RefreshEvent::Failed { title, .. } => title.to_lowercase(),
            _ => String::new(),
        });
        Ok(summary)
    }

    /// Fetches, reads and stores one feed; returns the final event (which the caller reports).
    async fn refresh_one(&self, target: RefreshTarget, report: &(dyn Fn(RefreshEvent) + Send + Sync)) -> RefreshEvent {
        let feed_id = target.id;
        report(RefreshEvent::Started { feed_id });
        let validators = Validators { etag: target.etag.clone(), last_modified: target.last_modified.clone() };
        let record = match self.fetcher.get(&target.url, &validators).await {
            Ok(FetchOutcome::NotModified { etag, last_modified }) => FetchRecord::NotModified { etag, last_modified },
            Ok(FetchOutcome::Fetched(fetched)) => {
                let forced = target.encoding_override.clone().or_else(|| self.forced.get(&target.url).cloned());
                let url = fetched.final_url.clone();
                let read = tokio::task::spawn_blocking(move || {
                    let result = crate::ingest::ingest(
                        &fetched.body,
                        fetched.content_type.as_deref(),
                        Some(&url),
                        forced.as_deref(),
                    );
                    (fetched, result)
                })
                .await;
                match read {
                    Ok((fetched, Ok(ingested))) => FetchRecord::Fetched {
                        status: fetched.status,
                        etag: fetched.etag,
                        last_modified: fetched.last_modified,
                        decision: serde_json::to_string(&ingested.decision).ok(),
                        feed: ingested.feed,
                    },
                    Ok((_, Err(e))) => {
                        FetchRecord::Failed { status: None, kind: e.kind().into(), message: e.to_string() }
                    }
                    Err(panic) => FetchRecord::Failed {
                        status: None,
                        kind: "internal".into(),
                        message: format!("reading the feed crashed ({panic}); please report this feed"),
                    },
                }
            }
            Err(e) => FetchRecord::Failed { status: e.status(), kind: e.kind().into(), message: e.to_string() },
        };
        let failure = match &record {
            FetchRecord::Failed { kind, message, .. } => Some((kind.clone(), message.clone())),
            _ => None,
        };
        let not_modified = matches!(record, FetchRecord::NotModified { .. });
        let now = chrono::Utc::now().timestamp();
        let stored = self.writer.call(move |c| write::apply_fetch(c, feed_id, &record, now)).await;
        match (stored, failure) {
            (Err(e), _) => RefreshEvent::Failed {
                feed_id,
                title: target.url.clone(),
                url: target.url,
                kind: "store".into(),
                message: format!("could not save the feed: {e}"),
            },
            (Ok(outcome), Some((kind, message))) => {
                RefreshEvent::Failed { feed_id, title: outcome.title, url: target.url, kind, message }
            }
            (Ok(_), None) if not_modified => RefreshEvent::NotModified { feed_id },
            (Ok(outcome), None) => RefreshEvent::Done {
                feed_id,
                new: outcome.new,
                updated: outcome.updated,
                unread: outcome.unread,
                title: outcome.title,
            },
        }
    }
}
