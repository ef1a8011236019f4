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
