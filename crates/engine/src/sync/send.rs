//! Up: the change log sent to the server — subscription changes one by one in their order, then flags batched by
//! what they set — and taken off the log once the server took them. A change the server cannot take now (it is
//! busy, failing or not there) stops the sending and waits, with everything after it, for the next sync: it is
//! never counted as sent, and a subscription made here keeps its local feed meanwhile.

use super::{Remote, RemoteError, Report, Step, Sync};
use crate::greader::AnswerError;
use crate::store::StoreError;
use crate::store::accounts::{self, Scope};
use crate::store::changes::{self, FeedChange, Flag, Pending};

/// The fewest entries of a list read here that go up as one "mark this list read" (fewer go by id, in one
/// request anyway).
const WHOLE_LIST_LEAST: usize = 100;

impl Sync<'_> {
    /// Sends the change log. Returns what the server took (already off the log). A subscription the server
    /// refuses stays a local feed, and the report says why.
    pub(super) async fn send(&self, remote: &mut impl Remote, report: &mut Report) -> Result<Vec<Pending>, Step> {
        let id = self.row.id;
        let pending = self.writer.call(move |c| changes::pending(c, id)).await?;
        if pending.is_empty() {
            return Ok(pending);
        }
        let mut sent = Vec::with_capacity(pending.len());
        let mut refused = Vec::new();
        for change in pending.iter().filter(|c| matches!(c, Pending::Feed { .. })) {
            let Pending::Feed { change: feed, .. } = change else { continue };
            match remote.edit_subscription(feed).await {
                Ok(()) => {
                    if let FeedChange::Subscribe { url, title, .. } = feed {
                        report.subscribed.push(title.clone().unwrap_or_else(|| url.clone()));
                    }
                    sent.push(change.clone());
                }
                // A server that will not do it (a feed it cannot subscribe to) says so once, and the change goes.
                Err(e) if is_refusal(&e) => {
                    tracing::warn!(account = %self.account.name, "the server refused {feed:?}: {e:?}");
                    refused.push(change.clone());
                    report.refusals.push(self.refusal(feed, &e).await?);
                }
                Err(e) => {
                    self.forget(sent.iter().chain(&refused).cloned().collect()).await?;
                    return Err(e.into());
                }
            }
        }
        report.refused += refused.len();
        for flag in [Flag::Read, Flag::Starred] {
            for value in [true, false] {
                let batch: Vec<&Pending> = pending
                    .iter()
                    .filter(|c| matches!(c, Pending::Flag { flag: f, value: v, .. } if *f == flag && *v == value))
                    .collect();
                if batch.is_empty() {
                    continue;
                }
                let keys: Vec<String> = batch
                    .iter()
                    .filter_map(|c| match c {
                        Pending::Flag { key, .. } => Some(key.clone()),
                        Pending::Feed { .. } | Pending::Save { .. } => None,
                    })
                    .collect();
                let keys = if (flag, value) == (Flag::Read, true) {
                    match self.send_whole_lists(remote, keys).await {
                        Ok(keys) => keys,
                        Err(e) => {
                            self.forget(sent.iter().chain(&refused).cloned().collect()).await?;
                            return Err(e);
                        }
                    }
                } else {
                    keys
                };
                if let Err(e) = remote.set_flag(flag, value, &keys).await {
                    self.forget(sent.iter().chain(&refused).cloned().collect()).await?;
                    return Err(e.into());
                }
                sent.extend(batch.into_iter().cloned());
            }
        }
        let saves: Vec<&Pending> = pending.iter().filter(|c| matches!(c, Pending::Save { .. })).collect();
        if !saves.is_empty() {
            let keys: Vec<String> = saves
                .iter()
                .filter_map(|c| match c {
                    Pending::Save { key, .. } => Some(key.clone()),
                    _ => None,
                })
                .collect();
            match remote.save(&keys, &self.account.save_label).await {
                Ok(()) => {
                    report.saved += keys.len();
                    sent.extend(saves.into_iter().cloned());
                }
                // Refused for good (no save on this server, or none set up there): said once, with the server's
                // reason, and forgotten.
                Err(e) if is_refusal(&e) => {
                    tracing::warn!(account = %self.account.name, "the server refused to save {} entries: {e:?}", keys.len());
                    let n = keys.len();
                    let entries = if n == 1 { "1 entry".to_string() } else { format!("{n} entries") };
                    report.refusals.push(crate::sanitize::one_line(
                        &format!("saving {entries} for later refused: {}", why(&e)),
                        400,
                    ));
                    report.refused += n;
                    refused.extend(saves.into_iter().cloned());
                }
                Err(e) => {
                    self.forget(sent.iter().chain(&refused).cloned().collect()).await?;
                    return Err(e.into());
                }
            }
        }
        self.forget(sent.iter().chain(&refused).cloned().collect()).await?;
        report.sent += sent.len();
        Ok(sent)
    }

    /// Sends the entries marked read that make up whole lists (a feed, a label, the account: nothing in it unread
    /// here) as one "mark this list read" each, where the server can; returns the keys left to send by id. Only
    /// when the items are all here (no earlier sync stopped short of them), so the list is what was seen.
    async fn send_whole_lists(&self, remote: &mut impl Remote, keys: Vec<String>) -> Result<Vec<String>, Step> {
        if keys.len() < WHOLE_LIST_LEAST || self.row.items.resume.is_some() {
            return Ok(keys);
        }
        let (id, asked) = (self.row.id, keys.clone());
        let lists = self.writer.call(move |c| accounts::whole_lists(c, id, &asked, WHOLE_LIST_LEAST)).await?;
        let (seen, synced) = (self.row.items.seen_usec, self.row.synced_at.unwrap_or(0));
        let mut done: std::collections::HashSet<String> = std::collections::HashSet::new();
        for list in lists {
            if remote.mark_list_read(&list.scope, seen, synced).await? {
                done.extend(list.keys().cloned());
                continue;
            }
            // The server cannot mark a label or the account at once: feed by feed, then.
            if !matches!(list.scope, Scope::Feed(_)) {
                for (stream, feed_keys) in &list.feeds {
                    if feed_keys.len() >= WHOLE_LIST_LEAST
                        && remote.mark_list_read(&Scope::Feed(stream.clone()), seen, synced).await?
                    {
                        done.extend(feed_keys.iter().cloned());
                    }
                }
            }
        }
        if !done.is_empty() {
            let listed: Vec<String> = done.iter().cloned().collect();
            if let Some(still) = remote.still_unread(&listed).await? {
                for key in still {
                    done.remove(&key);
                }
            }
        }
        Ok(keys.into_iter().filter(|k| !done.contains(k)).collect())
    }

    /// What a refused change did here, for people: a subscription stays a local feed.
    async fn refusal(&self, change: &FeedChange, e: &RemoteError) -> Result<String, StoreError> {
        let why = why(e);
        let FeedChange::Subscribe { url, .. } = change else {
            return Ok(crate::sanitize::one_line(&format!("{} refused: {why}", change.what()), 300));
        };
        let (row, url) = (self.row.clone(), url.clone());
        let shown = crate::sanitize::one_line(&url, 200);
        let name = self.writer.call(move |c| accounts::refused(c, &row, &url)).await?;
        let name = name.map(|n| crate::sanitize::one_line(&n, 100)).unwrap_or_else(|| shown.clone());
        Ok(format!("{name} ({shown}): the server refused to subscribe ({why}); it stays a local feed here"))
    }

    /// Takes what the server took (or refused for good) off the change log.
    async fn forget(&self, done: Vec<Pending>) -> Result<(), StoreError> {
        if done.is_empty() {
            return Ok(());
        }
        let account = self.row.id;
        self.writer.call(move |c| changes::sent(c, account, &done)).await
    }
}

/// What the server said, for people.
fn why(e: &RemoteError) -> String {
    match e {
        RemoteError::Status(status, body) if body.is_empty() => format!("HTTP {status}"),
        RemoteError::Status(status, body) => format!("HTTP {status}: {body}"),
        RemoteError::Answer(e) => e.to_string(),
        RemoteError::TooLarge(mb) => format!("an answer larger than {mb} MB"),
        RemoteError::Refused(why) => why.clone(),
        other => format!("{other:?}"),
    }
}

/// Whether a failed write is the server's refusal of that change (a 4xx other than 408 and 429, or an answer
/// other than OK), not a passing state of the server.
fn is_refusal(e: &RemoteError) -> bool {
    match e {
        RemoteError::Status(400..=499, _) => !e.is_passing(),
        RemoteError::Answer(AnswerError::Malformed(_)) | RemoteError::Refused(_) => true,
        _ => false,
    }
}
