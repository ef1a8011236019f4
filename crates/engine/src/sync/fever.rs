//! The Fever API over HTTP, as FreshRSS (`…/api/fever.php`), Coldsweat (`…/fever/`), Miniflux and Tiny Tiny
//! RSS's plug-in serve it: every call a `POST URL?api&…` with the `api_key`. Items are paged by id (`since_id`,
//! as many a call as the server gives: 50 on most; by `with_ids` on a server found not to send them in order of
//! id, see [`Fever::window`]), the unread and saved sets come whole in one answer each, and
//! marks go one item a call (the protocol has no batch), except a whole feed, folder or account read here
//! (`mark=feed|group`, see [`Remote::mark_list_read`]). Fever cannot subscribe, unsubscribe, rename or move a
//! feed: such a change is refused at once, with that reason. Reading the answers is the core's `fever`.

use super::http::read_page;
use super::{Remote, RemoteError, Set};
use crate::fever;
use crate::greader::{IdsPage, ItemsPage, RemoteFeed, RemoteItem};
use crate::store::accounts::Scope;
use crate::store::changes::{FeedChange, Flag};
use std::collections::HashSet;

/// Items asked for by id per call (`with_ids`): the API's own limit.
const WITH_IDS: usize = 50;

/// A Fever API server, for one account.
pub(super) struct Fever {
    http: reqwest::Client,
    /// The API's address (FreshRSS: …/api/fever.php; Coldsweat: …/fever/).
    base: String,
    user: String,
    password: super::http::Password,
    key: Option<String>,
    /// The newest item id an earlier sync stored: the items after it are new.
    seen: i64,
    /// The ids of the items this sync was given, and the most a page held (see [`next_since`]).
    given: std::collections::BTreeSet<i64>,
    page_size: usize,
    /// The server does not send the items after `since_id` lowest first (Coldsweat sends them feed by feed), so
    /// paging by `since_id` skips some: its items are asked for by id instead (see [`Fever::window`]). Learnt
    /// when a first sync was given fewer items than the server says it holds, and kept with the account.
    unordered: bool,
    /// A send's list marks under way (see [`Remote::mark_list_read`]); any other call ends it.
    marking: Option<Marking>,
    /// The largest answer read, after decompression (a page holds what the server sends: 50 items of at most a
    /// megabyte each, as the core cuts them, fit in the default).
    answer_limit: usize,
    requests: usize,
}

/// What a send's list marks need to know of the server, asked once before the first.
struct Marking {
    groups: Vec<fever::Group>,
    /// The unread set before the first mark, and after the last (where the server sent it with the mark).
    before: HashSet<String>,
    after: Option<HashSet<String>>,
}

/// What the account keeps of a server found not to send its items in order of id.
const UNORDERED: &str = "fever:unordered";

impl Fever {
    pub(super) fn new(
        http: reqwest::Client,
        base: &str,
        user: &str,
        seen: i64,
        password: super::http::Password,
        answer_limit: usize,
    ) -> Fever {
        let (base, user, given) = (base.to_string(), user.to_string(), Default::default());
        let (page_size, unordered, marking, requests) = (0, false, None, 0);
        let key = None;
        Fever { http, base, user, password, key, seen, given, page_size, unordered, marking, answer_limit, requests }
    }

    /// What the account keeps of what the server was found to do (see [`Fever::learnt`]).
    pub(super) fn traits(&self) -> Option<String> {
        self.unordered.then(|| UNORDERED.to_string())
    }

    /// Takes what an earlier sync learnt of the server.
    pub(super) fn learnt(&mut self, traits: Option<&str>) {
        self.unordered = traits == Some(UNORDERED);
    }

    /// The items of a server that does not page in order of id, by id: `w:START` asks `since_id=START` what lies
    /// above (an empty answer ends the sync's items) and goes on with `w:START-TOP`, which asks by `with_ids` for
    /// the ids after START, up to TOP, not given yet, 50 a call. Its ids count up one at a time (Coldsweat's
    /// rows), so what is not there was deleted, and nothing is skipped.
    async fn window(&mut self, mut start: i64, mut top: Option<i64>) -> Result<ItemsPage, RemoteError> {
        // A page with no item would end the sync's items: windows of ids all deleted are passed over here.
        loop {
            let Some(upto) = top.filter(|&top| top > start) else {
                let answer = self.call(&format!("&items&since_id={start}"), &[]).await?;
                let page = read_page(answer, fever::items).await?;
                let Some(highest) = page.iter().map(|i| i.crawled_usec).max() else {
                    return Ok(ItemsPage { items: Vec::new(), continuation: None });
                };
                let items = self.take(page);
                if items.is_empty() {
                    top = Some(highest);
                    continue;
                }
                return Ok(ItemsPage { items, continuation: Some(format!("w:{start}-{highest}")) });
            };
            let wanted: Vec<i64> = (start + 1..=upto).filter(|id| !self.given.contains(id)).take(WITH_IDS).collect();
            let end = wanted.last().copied().unwrap_or(upto);
            let items = if wanted.is_empty() {
                Vec::new()
            } else {
                let ids: Vec<String> = wanted.iter().map(i64::to_string).collect();
                let answer = self.call(&format!("&items&with_ids={}", ids.join(",")), &[]).await?;
                self.take(read_page(answer, fever::items).await?)
            };
            let (next, next_top) = if end >= upto { (upto, None) } else { (end, Some(upto)) };
            if items.is_empty() {
                (start, top) = (next, next_top);
                continue;
            }
            let continuation = match next_top {
                Some(upto) => format!("w:{next}-{upto}"),
                None => format!("w:{next}"),
            };
            return Ok(ItemsPage { items, continuation: Some(continuation) });
        }
    }

    /// Notes the items given, and keeps only those not given before in this sync.
    fn take(&mut self, items: Vec<RemoteItem>) -> Vec<RemoteItem> {
        items.into_iter().filter(|i| self.given.insert(i.crawled_usec)).collect()
    }

    /// Calls the API: `what` after `?api`, `form` beside the key. A refused key is [`RemoteError::Unauthorized`].
    async fn call(&mut self, what: &str, form: &[(&str, String)]) -> Result<Vec<u8>, RemoteError> {
        self.marking = None;
        if self.key.is_none() {
            self.login().await?;
        }
        let url = format!("{}?api{what}", self.base);
        let mut form = form.to_vec();
        form.push(("api_key", self.key.clone().unwrap_or_default()));
        let answer =
            super::http::exchange(self.http.post(&url).form(&form), self.answer_limit, &mut self.requests).await?;
        match fever::authorized(&answer) {
            Ok(true) => Ok(answer),
            Ok(false) => Err(RemoteError::Unauthorized),
            Err(e) => Err(RemoteError::Answer(e)),
        }
    }
}

/// Where the page after one asked `since_id={since}` starts (none: this was the last). The API says to ask
/// from the highest id held, which is right where a server sends its items in order of id (FreshRSS) or sent
/// fewer than a page (all it had). One that sends a full page in another order (Coldsweat, by feed) may have
/// left out lower ids: the next page starts at the end of the run of ids given without a gap from `since` on —
/// ids count up one at a time there — or, where there is none, past the page's lowest, so that paging always
/// moves on.
fn next_since(since: i64, page: &[i64], page_size: usize, given: &std::collections::BTreeSet<i64>) -> Option<i64> {
    let newest = page.iter().copied().filter(|&id| id > since).max()?;
    let in_order = page.windows(2).all(|w| w[0] < w[1]);
    if in_order || page.len() < page_size {
        return Some(newest);
    }
    let mut end = since;
    while given.contains(&(end + 1)) {
        end += 1;
    }
    let lowest = page.iter().copied().filter(|&id| id > since).min().unwrap_or(newest);
    Some(if end > since { end } else { lowest })
}

impl Remote for Fever {
    /// Makes the key (no request: the first call says whether the server takes it).
    async fn login(&mut self) -> Result<(), RemoteError> {
        let password = super::http::read_password(&self.password).await?;
        self.key = Some(fever::api_key(&self.user, &password));
        Ok(())
    }

    async fn subscriptions(&mut self) -> Result<Vec<RemoteFeed>, RemoteError> {
        let answer = self.call("&groups&feeds", &[]).await?;
        fever::subscriptions(&answer).map_err(RemoteError::Answer)
    }

    /// The items after the last one stored (or after `continuation`, an id), oldest first: Fever pages by id,
    /// not by time, and gives as many a call as it will.
    async fn items_since(&mut self, _: i64, continuation: Option<&str>, _: usize) -> Result<ItemsPage, RemoteError> {
        let window = match continuation {
            Some(c) => c.strip_prefix("w:").map(str::to_string),
            None => self.unordered.then(|| self.seen.to_string()),
        };
        if let Some(window) = window {
            let (start, top) = window.split_once('-').map_or((window.as_str(), None), |(s, t)| (s, Some(t)));
            let start = start.parse().unwrap_or(self.seen);
            return self.window(start, top.and_then(|t| t.parse().ok())).await;
        }
        let since = continuation.and_then(|c| c.parse().ok()).unwrap_or(self.seen);
        let answer = self.call(&format!("&items&since_id={since}"), &[]).await?;
        // What a first sync may need below, read before the page goes to be read.
        let held = if self.seen == 0 { fever::total_items(&answer) } else { None };
        let items = read_page(answer, fever::items).await?;
        let ids: Vec<i64> = items.iter().map(|i| i.crawled_usec).collect();
        self.given.extend(ids.iter().copied());
        self.page_size = self.page_size.max(ids.len());
        let mut continuation = next_since(since, &ids, self.page_size, &self.given).map(|id| id.to_string());
        // A first sync given fewer items than the server holds: it does not page in order of id. The ids it
        // skipped are asked for by id, from the start, now and in every later sync — where ids are counted one
        // at a time (not where they are times, as FreshRSS's, which nothing could scan).
        if continuation.is_none() && self.seen == 0 {
            let held = held.unwrap_or(0);
            let top = self.given.last().copied().unwrap_or(0);
            if held > self.given.len() as i64 && top <= 100 * held + 10_000 {
                tracing::info!("fever: {held} items held, {} given by since_id: asking by id", self.given.len());
                self.unordered = true;
                continuation = Some(format!("w:0-{top}"));
            }
        }
        Ok(ItemsPage { items, continuation })
    }

    async fn ids(&mut self, set: Set, _: Option<&str>, _: usize) -> Result<IdsPage, RemoteError> {
        let name = match set {
            Set::Unread => "unread_item_ids",
            Set::Starred => "saved_item_ids",
        };
        let answer = self.call(&format!("&{name}"), &[]).await?;
        Ok(IdsPage { ids: fever::item_ids(&answer, name).map_err(RemoteError::Answer)?, continuation: None })
    }

    async fn items(&mut self, keys: &[String]) -> Result<Vec<RemoteItem>, RemoteError> {
        let mut out = Vec::new();
        let ids: Vec<&String> =
            keys.iter().filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit())).collect();
        for batch in ids.chunks(WITH_IDS) {
            let list: Vec<&str> = batch.iter().map(|k| k.as_str()).collect();
            let answer = self.call(&format!("&items&with_ids={}", list.join(",")), &[]).await?;
            out.extend(read_page(answer, fever::items).await?);
        }
        Ok(out)
    }

    async fn set_flag(&mut self, flag: Flag, value: bool, keys: &[String]) -> Result<(), RemoteError> {
        let state = match (flag, value) {
            (Flag::Read, true) => "read",
            (Flag::Read, false) => "unread",
            (Flag::Starred, true) => "saved",
            (Flag::Starred, false) => "unsaved",
        };
        for key in keys.iter().filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit())) {
            let form = [("mark", "item".to_string()), ("as", state.to_string()), ("id", key.clone())];
            self.call("", &form).await?;
        }
        Ok(())
    }

    async fn edit_subscription(&mut self, change: &FeedChange) -> Result<(), RemoteError> {
        Err(RemoteError::Refused(format!(
            "{}: the Fever API cannot subscribe, unsubscribe, rename or move feeds; do it on the server itself",
            change.what()
        )))
    }

    /// `mark=feed` for a feed, `mark=group` for a label that is one group there, and for the whole account (group
    /// 0: every feed, on FreshRSS and Coldsweat alike), each `as=read` `before` the second after the last sync
    /// began. What `before` is compared with differs: FreshRSS takes the items it stored up to then (its ids are
    /// the times it stored them, in microseconds); Coldsweat those its items' own dates put before then. So the
    /// first list mark of a send asks for the groups and the unread set before it (one request), and
    /// [`Remote::still_unread`] puts right afterwards what `before` missed or took beyond the list.
    async fn mark_list_read(&mut self, scope: &Scope, _: i64, synced_at: i64) -> Result<bool, RemoteError> {
        if synced_at <= 0 {
            return Ok(false);
        }
        let mut marking = match self.marking.take() {
            Some(marking) => marking,
            None => {
                let answer = self.call("&groups&unread_item_ids", &[]).await?;
                let groups = fever::groups(&answer).map_err(RemoteError::Answer)?;
                let unread = fever::item_ids(&answer, "unread_item_ids").map_err(RemoteError::Answer)?;
                Marking { groups, before: unread.into_iter().collect(), after: None }
            }
        };
        let (mark, id) = match scope {
            Scope::All => ("group", Some(0)),
            Scope::Label(label) => ("group", fever::group_of_label(&marking.groups, label)),
            Scope::Feed(stream) => ("feed", stream.strip_prefix("feed/").and_then(|id| id.parse().ok())),
        };
        let Some(id) = id else {
            self.marking = Some(marking);
            return Ok(false);
        };
        let form = [
            ("mark", mark.to_string()),
            ("as", "read".into()),
            ("id", id.to_string()),
            ("before", synced_at.saturating_add(1).to_string()),
        ];
        let answer = self.call("", &form).await?;
        // FreshRSS answers a mark with the unread set after it; Coldsweat does not.
        marking.after = fever::item_ids(&answer, "unread_item_ids").ok().map(|ids| ids.into_iter().collect());
        self.marking = Some(marking);
        Ok(true)
    }

    /// After the list marks: those of `keys` the server still has unread (`before` left them: Coldsweat dates an
    /// item of a feed that gives none when it fetched it, maybe in the very second of the sync), to go up by
    /// id. And what the marks read there beyond `keys` — items that arrived after the list was shown (Coldsweat
    /// compares `before` with their own dates, however old) — is made unread again, one by one.
    async fn still_unread(&mut self, keys: &[String]) -> Result<Option<Vec<String>>, RemoteError> {
        let marking = self.marking.take();
        let after = match marking.as_ref().and_then(|m| m.after.clone()) {
            Some(after) => after,
            None => self.ids(Set::Unread, None, 0).await?.ids.into_iter().collect(),
        };
        if let Some(marking) = marking {
            let ours: HashSet<&String> = keys.iter().collect();
            let beyond: Vec<&String> =
                marking.before.iter().filter(|id| !after.contains(*id) && !ours.contains(id)).collect();
            if !beyond.is_empty() {
                tracing::info!("fever: a list mark read {} items that came after the list; unread again", beyond.len());
            }
            for id in beyond {
                self.call("", &[("mark", "item".into()), ("as", "unread".into()), ("id", id.clone())]).await?;
            }
        }
        Ok(Some(keys.iter().filter(|k| after.contains(*k)).cloned().collect()))
    }

    fn requests(&self) -> usize {
        self.requests
    }
}

#[cfg(test)]
mod tests {
    use super::next_since;

    #[test]
    fn paging_by_id_moves_on_and_skips_nothing_whatever_the_order() {
        let given = |ids: &[i64]| ids.iter().copied().collect::<std::collections::BTreeSet<i64>>();
        // In order: from the newest.
        assert_eq!(next_since(0, &[1, 2, 3], 3, &given(&[1, 2, 3])), Some(3));
        // A short page is all there was.
        assert_eq!(next_since(0, &[9, 4], 50, &given(&[9, 4])), Some(9));
        // A full page by feed (41..=50, then 1..=20 of 70): from the end of the run without a gap.
        let page: Vec<i64> = (41..=50).chain(1..=20).collect();
        assert_eq!(next_since(0, &page, 30, &given(&page)), Some(20));
        // No run from `since`: past the page's lowest.
        assert_eq!(next_since(0, &[8, 5, 7], 3, &given(&[8, 5, 7])), Some(5));
        // Nothing new: the end.
        assert_eq!(next_since(5, &[], 3, &given(&[])), None);
    }
}
