//! The store's upkeep while the reader runs: after each refresh (and once at start) entries retention lets go
//! are purged and new ones indexed for search, one bounded transaction per writer job, so a mark-read or a
//! star the user asks for meanwhile waits for one slice at most, never for the whole upkeep.

use crate::app::Event;
use crate::store::purge::{Policy, Upkeep};
use crate::store::{DbThread, StoreError};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Runs `job` to the end, each step a job of its own on the writer.
async fn in_slices(writer: &DbThread, mut job: Upkeep) -> Result<Upkeep, StoreError> {
    loop {
        let (done, more) = writer
            .call(move |c| {
                let more = job.step(c)?;
                Ok((job, more))
            })
            .await?;
        job = done;
        if !more {
            return Ok(job);
        }
    }
}

/// Purges by `policy`, then indexes what is new; says how many entries went (the lists are read again).
pub(super) async fn purge_and_index(writer: &DbThread, policy: Arc<Policy>, inbox: &mpsc::UnboundedSender<Event>) {
    let job = Upkeep::new(policy, chrono::Utc::now().timestamp(), true);
    match in_slices(writer, job).await {
        Ok(done) if done.purged > 0 => {
            let _ = inbox.send(Event::Purged { entries: done.purged });
        }
        Ok(_) => {}
        Err(e) => {
            let _ = inbox.send(Event::Error(format!(
                "cannot purge old entries or index new ones for search: {e}; the next refresh tries again"
            )));
        }
    }
}

/// Indexes what is not indexed yet (before a search looks, and after full articles arrive).
pub(super) async fn index(writer: &DbThread) -> Result<usize, StoreError> {
    in_slices(writer, Upkeep::index_only()).await.map(|done| done.indexed)
}

/// How often the reader looks for writes by other processes (`tidings refresh`, `add` or `import` beside it).
pub(super) const WATCH_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// Says [`Event::ChangedOutside`] whenever another process commits to the database, so the reader's counts,
/// feed list and lists follow a headless refresh or a feed added from the command line.
///
/// SQLite's `data_version` on the writer's connection moves only for commits made through *other* connections;
/// the reader's own connection never writes, so what moves it is another process. Ends when the reader does.
pub(super) async fn watch_outside(writer: DbThread, inbox: mpsc::UnboundedSender<Event>, every: std::time::Duration) {
    let version =
        || writer.call(|c| c.query_row("PRAGMA data_version", [], |r| r.get::<_, i64>(0)).map_err(StoreError::from));
    let Ok(mut seen) = version().await else { return };
    let mut clock = tokio::time::interval(every);
    clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        clock.tick().await;
        let Ok(now) = version().await else { return };
        if now != seen {
            seen = now;
            if inbox.send(Event::ChangedOutside).is_err() {
                return;
            }
        }
    }
}
