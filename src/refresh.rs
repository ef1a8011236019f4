//! Refreshing feeds: a work queue with a global concurrency limit and a per-host limit (one host is never
//! hammered), fetch, decode + parse off the async threads, and one write transaction per feed. Politeness: a
//! feed that failed waits out its backoff, a server's `Retry-After` is honoured, a feed that is gone (410) is
//! left alone — unless the refresh is forced (the user asked for that very feed). Reports progress as
//! [`RefreshEvent`]s to whoever asked (the reader's inbox, or the `refresh` command).

use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::model::FeedId;
use crate::store::read::RefreshTarget;
use crate::store::write::{self, FetchRecord};
use crate::store::{DbThread, StoreError, read};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
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
        moved_to: Option<String>,
    },
    /// The server said nothing changed (304).
    NotModified {
        feed_id: FeedId,
        moved_to: Option<String>,
    },
    /// The refresh failed; stored entries are untouched.
    Failed {
        feed_id: FeedId,
        title: String,
        url: String,
        kind: String,
        message: String,
        /// Not before this time (seconds since the epoch) will it be tried again automatically.
        retry_at: Option<i64>,
        /// Gone for good (410): no more automatic refreshes.
        dead: bool,
    },
    /// Left alone: gone, or asked to wait (backoff, Retry-After).
    Skipped {
        feed_id: FeedId,
        title: String,
        reason: String,
    },
}

impl RefreshEvent {
    pub fn feed_id(&self) -> FeedId {
        match self {
            RefreshEvent::Started { feed_id }
            | RefreshEvent::Done { feed_id, .. }
            | RefreshEvent::NotModified { feed_id, .. }
            | RefreshEvent::Failed { feed_id, .. }
            | RefreshEvent::Skipped { feed_id, .. } => *feed_id,
        }
    }

    /// True for the event that ends a feed's refresh.
    pub fn is_final(&self) -> bool {
        !matches!(self, RefreshEvent::Started { .. })
    }
}

/// Which feeds a refresh run covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Which {
    All,
    Feeds(Vec<FeedId>),
    /// Those due for an automatic refresh: not fetched for this many seconds (or for longer, when they ask).
    Due {
        interval_secs: i64,
    },
}

/// Totals of a refresh run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub feeds: usize,
    pub updated_feeds: usize,
    pub not_modified: usize,
    pub new_entries: usize,
    pub failed: Vec<RefreshEvent>,
    pub skipped: Vec<RefreshEvent>,
    /// Feeds whose address a permanent redirect changed: (title, new address).
    pub moved: Vec<(String, String)>,
}

/// Runs refreshes with a shared global limit and per-host limits. Cheap to clone.
#[derive(Clone)]
pub struct Refresher {
    fetcher: Fetcher,
    writer: DbThread,
    limit: Arc<Semaphore>,
    per_host: usize,
    hosts: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
    /// Encodings forced in the config, by feed URL (one forced from the reader, stored with the feed, wins).
    forced: Arc<std::collections::BTreeMap<String, String>>,
}

impl Refresher {
    pub fn new(fetcher: Fetcher, writer: DbThread, concurrency: usize) -> Refresher {
        Refresher {
            fetcher,
            writer,
            limit: Arc::new(Semaphore::new(concurrency.max(1))),
            per_host: concurrency.max(1),
            hosts: Arc::default(),
            forced: Arc::default(),
        }
    }

    /// At most `per_host` fetches to one host at a time.
    pub fn with_per_host_limit(mut self, per_host: usize) -> Refresher {
        self.per_host = per_host.max(1);
        self
    }

    /// Decodes the feeds named here with the encodings given (the config's `[encoding]` table).
    pub fn with_forced_encodings(mut self, forced: std::collections::BTreeMap<String, String>) -> Refresher {
        self.forced = Arc::new(forced);
        self
    }

    fn host_limit(&self, url: &str) -> Arc<Semaphore> {
        let host =
            url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).unwrap_or_default();
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        hosts.entry(host).or_insert_with(|| Arc::new(Semaphore::new(self.per_host))).clone()
    }

    /// Refreshes the feeds `which` names, calling `report` for each step, and returns the totals when all are
    /// done. Unless `force`d, feeds that are gone or asked to wait are skipped (and reported as such).
    pub async fn run<F>(&self, which: Which, force: bool, report: F) -> Result<Summary, StoreError>
    where
        F: Fn(RefreshEvent) + Send + Sync + 'static,
    {
        let now = chrono::Utc::now().timestamp();
        let targets = self
            .writer
            .call(move |c| match which {
                Which::All => read::refresh_targets(c, None),
                Which::Feeds(ids) => read::refresh_targets(c, Some(&ids)),
                Which::Due { interval_secs } => {
                    read::refresh_targets(c, Some(&read::due_feeds(c, now, interval_secs)?))
                }
            })
            .await?;
        let report = Arc::new(report);
        let mut summary = Summary::default();
        let mut tasks = tokio::task::JoinSet::new();
        for target in targets {
            if !force && let Some(reason) = skip_reason(&target, now) {
                let event = RefreshEvent::Skipped { feed_id: target.id, title: target.title.clone(), reason };
                report(event.clone());
                summary.feeds += 1;
                summary.skipped.push(event);
                continue;
            }
            let this = self.clone();
            let report = report.clone();
            tasks.spawn(async move {
                let host = this.host_limit(&target.url);
                let _host = host.acquire_owned().await.expect("host semaphores are never closed");
                let _permit = this.limit.acquire().await.expect("the refresh semaphore is never closed");
                let event = this.refresh_one(target, &*report).await;
                report(event.clone());
                event
            });
        }
        while let Some(joined) = tasks.join_next().await {
            let Ok(event) = joined else { continue };
            summary.feeds += 1;
            match event {
                RefreshEvent::Done { new, ref title, ref moved_to, .. } => {
                    summary.updated_feeds += 1;
                    summary.new_entries += new;
                    if let Some(to) = moved_to {
                        summary.moved.push((title.clone(), to.clone()));
                    }
                }
                RefreshEvent::NotModified { .. } => summary.not_modified += 1,
                failed @ RefreshEvent::Failed { .. } => summary.failed.push(failed),
                RefreshEvent::Started { .. } | RefreshEvent::Skipped { .. } => {}
            }
        }
        summary.failed.sort_by_key(|ev| match ev {
            RefreshEvent::Failed { title, .. } => title.to_lowercase(),
            _ => String::new(),
        });
        if summary.feeds >= 10 {
            // A big batch changed the tables' statistics; let SQLite refresh what its planner relies on.
            self.writer.submit(|c| {
                let _ = c.execute_batch("PRAGMA optimize;");
            });
        }
        Ok(summary)
    }

    /// Fetches, reads and stores one feed; returns the final event (which the caller reports).
    async fn refresh_one(&self, target: RefreshTarget, report: &(dyn Fn(RefreshEvent) + Send + Sync)) -> RefreshEvent {
        let feed_id = target.id;
        report(RefreshEvent::Started { feed_id });
        let validators = Validators { etag: target.etag.clone(), last_modified: target.last_modified.clone() };
        let record = match self.fetcher.get(&target.url, &validators).await {
            Ok(FetchOutcome::NotModified { etag, last_modified, moved_permanently }) => {
                FetchRecord::NotModified { etag, last_modified, moved_to: moved_permanently }
            }
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
                    Ok((fetched, Ok(mut ingested))) => {
                        // Decoding that had to replace bytes or override a declaration is worth a note.
                        ingested.feed.warnings.extend(
                            ingested
                                .decision
                                .notes
                                .iter()
                                .filter(|n| n.contains("replaced"))
                                .map(|n| format!("decoding: {n}")),
                        );
                        let interval = ingested.feed.min_interval_secs.max(fetched.max_age);
                        FetchRecord::Fetched {
                            status: fetched.status,
                            etag: fetched.etag,
                            last_modified: fetched.last_modified,
                            decision: serde_json::to_string(&ingested.decision).ok(),
                            feed: ingested.feed,
                            moved_to: fetched.moved_permanently,
                            min_interval_secs: interval,
                        }
                    }
                    Ok((_, Err(e))) => FetchRecord::Failed {
                        status: None,
                        kind: e.kind().into(),
                        message: e.to_string(),
                        retry_after: None,
                    },
                    Err(panic) => FetchRecord::Failed {
                        status: None,
                        kind: "internal".into(),
                        message: format!("reading the feed crashed ({panic}); please report this feed"),
                        retry_after: None,
                    },
                }
            }
            Err(e) => FetchRecord::Failed {
                status: e.status(),
                kind: e.kind().into(),
                message: e.to_string(),
                retry_after: e.retry_after(),
            },
        };
        let failure = match &record {
            FetchRecord::Failed { kind, message, .. } => Some((kind.clone(), message.clone())),
            _ => None,
        };
        if let Some((kind, message)) = &failure {
            tracing::warn!(feed = %target.url, %kind, "refresh failed: {message}");
        }
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
                retry_at: None,
                dead: false,
            },
            (Ok(outcome), Some((kind, message))) => RefreshEvent::Failed {
                feed_id,
                title: outcome.title,
                url: target.url,
                kind,
                message,
                retry_at: outcome.retry_at,
                dead: outcome.dead,
            },
            (Ok(outcome), None) if not_modified => RefreshEvent::NotModified { feed_id, moved_to: outcome.moved_to },
            (Ok(outcome), None) => RefreshEvent::Done {
                feed_id,
                new: outcome.new,
                updated: outcome.updated,
                unread: outcome.unread,
                title: outcome.title,
                moved_to: outcome.moved_to,
            },
        }
    }
}

/// Why a feed is left alone by an unforced refresh, if it is.
fn skip_reason(target: &RefreshTarget, now: i64) -> Option<String> {
    if target.dead {
        return Some("the feed is gone (HTTP 410); press r on it to try anyway".into());
    }
    let until = target.retry_after.filter(|at| *at > now)?;
    Some(format!("waiting until {} before trying again", crate::text::format_time(until)))
}
