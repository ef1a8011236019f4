//! Full articles: an entry's page fetched through the shared client and [`Courtesy`] (never from the local network
//! unless the entry's feed is there too: [`crate::fetch::reach`]), its main content extracted, and stored with the
//! entry (or why there is none) — on demand (`t` in the reader), and for the new entries of feeds read in full
//! after each refresh (see [`super::Pipeline`]).

use crate::fetch::{Courtesy, Fetcher};
use crate::model::EntryId;
use crate::store::{DbThread, StoreError, articles};
use futures::StreamExt;
use std::sync::Arc;

/// New entries older than this are not fetched in full on refresh (a feed just switched to full text does not
/// fetch its whole history).
const MAX_AGE_SECS: i64 = 7 * 24 * 3600;
/// Most pages one pass fetches in full, and how many at once.
const PER_PASS: usize = 100;
const AT_ONCE: usize = 4;

/// Fetches and stores full articles. Cheap to clone; clones share the pass lock.
#[derive(Clone)]
pub struct FullText {
    fetcher: Fetcher,
    courtesy: Courtesy,
    writer: DbThread,
    /// Held by the pass that runs: passes after overlapping refreshes take turns, so no page is fetched twice.
    pass: Arc<tokio::sync::Mutex<()>>,
}

impl FullText {
    pub fn new(fetcher: Fetcher, courtesy: Courtesy, writer: DbThread) -> FullText {
        FullText { fetcher, courtesy, writer, pass: Arc::default() }
    }

    /// The limits these fetches share with the refresh (and with whatever else fetches for the user: pictures).
    pub fn courtesy(&self) -> &Courtesy {
        &self.courtesy
    }

    /// Fetches the full article of one entry (its page, extracted), within the host's limit, and stores it — or
    /// why there is none — with the entry. Returns the article's HTML or the reason.
    pub async fn fetch(&self, entry_id: EntryId, url: &str) -> Result<String, String> {
        // An entry whose feed cannot be read is taken for one of a feed on the internet.
        let feed_url = self.writer.call(move |c| articles::feed_url(c, entry_id)).await;
        let feed_url = feed_url.ok().flatten().unwrap_or_default();
        let fetched = match self.fetcher.for_content_of(&feed_url).await {
            Ok(fetcher) => {
                let _turn = self.courtesy.turn(url).await;
                crate::fetch::article::fetch_article(&fetcher, url).await
            }
            Err(e) => Err(crate::fetch::article::ArticleError::Fetch(e)),
        };
        let result = fetched.map(|article| article.extracted.html).map_err(|e| e.to_string());
        let stored = result.clone();
        let now = chrono::Utc::now().timestamp();
        self.writer
            .call(move |c| articles::set_full_text(c, entry_id, stored.as_deref().map_err(String::as_str), now))
            .await
            .map_err(|e| format!("could not save the article: {e}"))?;
        result
    }

    /// Fetches in full the recent new entries of the feeds that ask for it (see [`articles::pending`]), a few at
    /// a time, calling `report` as each is stored. Returns how many were tried.
    pub async fn fetch_pending(
        &self,
        now: i64,
        report: &(dyn Fn(EntryId, &Result<String, String>) + Send + Sync),
    ) -> Result<usize, StoreError> {
        let _turn = self.pass.lock().await;
        let pending = self.writer.call(move |c| articles::pending(c, now, MAX_AGE_SECS, PER_PASS)).await?;
        let tried = pending.len();
        futures::stream::iter(pending)
            .for_each_concurrent(AT_ONCE, |(entry_id, url)| async move {
                let result = self.fetch(entry_id, &url).await;
                report(entry_id, &result);
            })
            .await;
        Ok(tried)
    }
}
