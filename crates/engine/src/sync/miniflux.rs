//! Miniflux's own REST API over HTTP (`kind = "miniflux"`, `url` the server's address), as its official client
//! (`client/client.go`) and its handlers (`internal/api/`) have it. The login is an API key in `X-Auth-Token`
//! (`middleware.validateAPIKeyAuth`), or else the user's password by basic auth (`validateBasicAuth`): no request
//! of its own. New entries come by id (`GET /v1/entries?after_entry_id=…&order=id&direction=asc`, a thousand a
//! page: `model.MaxEntryLimit`), every status, so read ones come too; the unread and starred sets as ids
//! (`GET /v1/entries/ids`, ten thousand a page). Marks go up batched (`PUT /v1/entries` with `status`, or with
//! `starred`). A server older than 2.3.2 has neither the ids nor `starred` in the batch: the sets then come as
//! entries, and a star is set by reading the entry and toggling it (`PUT /v1/entries/{id}/bookmark`) only where
//! it differs, so a wish is met and never inverted. What the server lacks is learnt once and kept with the
//! account. Reading the answers is the core's `miniflux`.

use super::http::read_page;
use super::{PageSize, Remote, RemoteError, Set};
use crate::greader::{IdsPage, ItemsPage, RemoteFeed, RemoteItem};
use crate::miniflux;
use crate::store::changes::{FeedChange, Flag};
use reqwest::Method;

/// Entries a page of `GET /v1/entries` may hold (`model.MaxEntryLimit`); fewer when they are large (see
/// [`PageSize`]).
const ENTRIES_PAGE: usize = 1000;
/// Ids a page of `GET /v1/entries/ids` may hold (`model.MaxEntryIDsLimit`).
const IDS_PAGE: usize = 10_000;
/// Entries marked per `PUT /v1/entries` (`Storage.SetEntriesStatus` takes any number, as one `id = ANY(…)`).
const MARK_BATCH: usize = 5000;

/// What a server was found to lack (or to want), kept with the account between syncs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Learnt {
    /// It took the user's password by basic auth, not as an API key.
    basic: bool,
    /// No `GET /v1/entries/ids` (before 2.3.2).
    no_ids: bool,
    /// No `starred` in `PUT /v1/entries` (before 2.3.2).
    toggle_star: bool,
    /// Entries a page may ask for, when answers of a thousand were too large (see [`PageSize`]).
    page: Option<usize>,
}

impl Learnt {
    /// From what the account keeps (`miniflux:basic,no-ids,toggle-star`); anything else is nothing learnt.
    pub(super) fn read(kept: Option<&str>) -> Learnt {
        let words: Vec<&str> = kept.and_then(|k| k.strip_prefix("miniflux:")).unwrap_or("").split(',').collect();
        let page = PageSize::read(&words, "page", ENTRIES_PAGE);
        Learnt {
            basic: words.contains(&"basic"),
            no_ids: words.contains(&"no-ids"),
            toggle_star: words.contains(&"toggle-star"),
            page: page.kept("page", ENTRIES_PAGE).map(|_| page.of(ENTRIES_PAGE)),
        }
    }

    /// What the account keeps.
    pub(super) fn kept(&self) -> String {
        let mut words: Vec<String> =
            [(self.basic, "basic"), (self.no_ids, "no-ids"), (self.toggle_star, "toggle-star")]
                .into_iter()
                .filter(|(on, _)| *on)
                .map(|(_, word)| word.to_string())
                .collect();
        words.extend(self.page.map(|n| format!("page={n}")));
        format!("miniflux:{}", words.join(","))
    }
}

/// A Miniflux server, for one account.
pub(super) struct Miniflux {
    http: reqwest::Client,
    /// The server's address, without a trailing `/` (the API is under `/v1/`).
    base: String,
    user: String,
    password: super::http::Password,
    secret: Option<String>,
    pub(super) learnt: Learnt,
    /// The newest entry id an earlier sync stored: the entries after it are new.
    seen: i64,
    /// The categories (id, title), once asked for.
    categories: Option<Vec<(i64, String)>>,
    /// The largest answer read, after decompression, and the entries asked for a page.
    answer_limit: usize,
    page: PageSize,
    requests: usize,
}

impl Miniflux {
    pub(super) fn new(
        http: reqwest::Client,
        base: &str,
        user: &str,
        seen: i64,
        learnt: Learnt,
        password: super::http::Password,
        answer_limit: usize,
    ) -> Miniflux {
        let base = base.trim_end_matches('/').trim_end_matches("/v1").to_string();
        let (user, categories, page) = (user.to_string(), None, PageSize::new(learnt.page.unwrap_or(ENTRIES_PAGE)));
        Miniflux { http, base, user, password, secret: None, learnt, seen, categories, answer_limit, page, requests: 0 }
    }

    /// A page of entries: `path` with `limit={n}` after it, asked again smaller while its answer is too large.
    async fn entries(&mut self, path: &str, most: usize) -> Result<(Vec<RemoteItem>, usize), RemoteError> {
        loop {
            let n = self.page.of(most);
            match self.call(Method::GET, &format!("{path}&limit={n}"), None).await {
                Ok(answer) => return read_page(answer, miniflux::entries).await,
                Err(RemoteError::TooLarge(_)) if self.page.shrink(n) => {
                    self.learnt.page = Some(self.page.of(ENTRIES_PAGE));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// One call: `path` under the server's address, with a JSON body if any. A secret refused as an API key is
    /// tried once as the user's password, and the other way round; what worked is remembered.
    async fn call(
        &mut self,
        method: Method,
        path: &str,
        body: Option<serde_json::Value>,
    ) -> Result<Vec<u8>, RemoteError> {
        if self.secret.is_none() {
            self.login().await?;
        }
        match self.send(method.clone(), path, body.as_ref()).await {
            Err(RemoteError::Unauthorized) => {
                self.learnt.basic = !self.learnt.basic;
                let again = self.send(method, path, body.as_ref()).await;
                if matches!(again, Err(RemoteError::Unauthorized)) {
                    self.learnt.basic = !self.learnt.basic;
                }
                again
            }
            other => other,
        }
    }

    async fn send(
        &mut self,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<Vec<u8>, RemoteError> {
        let secret = self.secret.clone().unwrap_or_default();
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        request = if self.learnt.basic {
            request.basic_auth(&self.user, Some(secret))
        } else {
            request.header("X-Auth-Token", secret)
        };
        if let Some(body) = body {
            request = request.header(reqwest::header::CONTENT_TYPE, "application/json").body(body.to_string());
        }
        match super::http::exchange(request, self.answer_limit, &mut self.requests).await {
            // `response.JSONBadRequest` and friends: `{"error_message": "…"}`, said plainly.
            Err(RemoteError::Status(status, said)) => Err(RemoteError::Status(status, error_text(&said))),
            other => other,
        }
    }

    /// The id of the category called `label` (made if there is none; none: the user's first, as
    /// `createFeedHandler` takes for a feed given none).
    async fn category(&mut self, label: Option<&str>) -> Result<i64, RemoteError> {
        if self.categories.is_none() {
            let answer = self.call(Method::GET, "/v1/categories", None).await?;
            self.categories = Some(miniflux::categories(&answer).map_err(RemoteError::Answer)?);
        }
        let known = self.categories.clone().unwrap_or_default();
        let Some(label) = label else {
            // `Storage.FirstCategory`: the first by title.
            return known
                .iter()
                .min_by(|a, b| a.1.cmp(&b.1))
                .map(|c| c.0)
                .ok_or_else(|| RemoteError::Refused("the server has no category to put the feed in".into()));
        };
        if let Some((id, _)) = known.iter().find(|(_, title)| title.eq_ignore_ascii_case(label)) {
            return Ok(*id);
        }
        let answer = self.call(Method::POST, "/v1/categories", Some(serde_json::json!({ "title": label }))).await?;
        let id = miniflux::made_id(&answer, "id").map_err(RemoteError::Answer)?;
        self.categories.get_or_insert_with(Vec::new).push((id, label.to_string()));
        Ok(id)
    }
}

/// A server's `{"error_message": …}` as its words; anything else as it was said.
fn error_text(said: &str) -> String {
    miniflux::error_message(said.as_bytes()).unwrap_or_else(|| said.to_string())
}

/// The feed id of a stream (`feed/ID`).
fn feed_id(stream: &str) -> Result<i64, RemoteError> {
    stream
        .strip_prefix("feed/")
        .and_then(|id| id.parse().ok())
        .ok_or_else(|| RemoteError::Refused(format!("{stream} is not a Miniflux feed")))
}

/// Whether an answer says the server has no such call: an older Miniflux reads `/v1/entries/ids` as the entry
/// `ids` ("invalid entry ID", 400), and one without `starred` in the batch wants a `status` (400).
fn lacks_it(e: &RemoteError) -> bool {
    matches!(e, RemoteError::Status(400 | 404 | 405, _))
}

impl Remote for Miniflux {
    /// Reads the password (or API key): no request, as every call carries it.
    async fn login(&mut self) -> Result<(), RemoteError> {
        self.secret = Some(super::http::read_password(&self.password).await?);
        Ok(())
    }

    async fn subscriptions(&mut self) -> Result<Vec<RemoteFeed>, RemoteError> {
        let answer = self.call(Method::GET, "/v1/feeds", None).await?;
        miniflux::subscriptions(&answer).map_err(RemoteError::Answer)
    }

    /// The entries after the newest one stored (or after `continuation`, an id), oldest first: every status.
    async fn items_since(&mut self, _: i64, continuation: Option<&str>, most: usize) -> Result<ItemsPage, RemoteError> {
        let after = continuation.and_then(|c| c.parse().ok()).unwrap_or(self.seen);
        let path = format!("/v1/entries?after_entry_id={after}&order=id&direction=asc");
        let (items, total) = self.entries(&path, most).await?;
        let newest = items.iter().map(|i| i.crawled_usec).filter(|&id| id > after).max();
        let continuation = newest.filter(|_| total > items.len()).map(|id| id.to_string());
        Ok(ItemsPage { items, continuation })
    }

    async fn ids(&mut self, set: Set, continuation: Option<&str>, most: usize) -> Result<IdsPage, RemoteError> {
        let filter = match set {
            Set::Unread => "status=unread",
            Set::Starred => "starred=true",
        };
        let offset: usize = continuation.and_then(|c| c.parse().ok()).unwrap_or(0);
        if !self.learnt.no_ids {
            let path = format!("/v1/entries/ids?{filter}&limit={}&offset={offset}", most.clamp(1, IDS_PAGE));
            match self.call(Method::GET, &path, None).await {
                Ok(answer) => {
                    let (ids, total) = miniflux::entry_ids(&answer).map_err(RemoteError::Answer)?;
                    let next = offset + ids.len();
                    let continuation = (!ids.is_empty() && next < total).then(|| next.to_string());
                    return Ok(IdsPage { ids, continuation });
                }
                Err(e) if lacks_it(&e) => self.learnt.no_ids = true,
                Err(e) => return Err(e),
            }
        }
        // Before 2.3.2: the set's entries, whole, a thousand a page.
        let path = format!("/v1/entries?{filter}&order=id&direction=desc&offset={offset}");
        let (items, total) = self.entries(&path, ENTRIES_PAGE).await?;
        let next = offset + items.len();
        let continuation = (!items.is_empty() && next < total).then(|| next.to_string());
        Ok(IdsPage { ids: items.into_iter().map(|i| i.entry.key).collect(), continuation })
    }

    /// Entries by id, one `GET /v1/entries/{id}` each (the API filters no list by id); a 404 is one gone.
    async fn items(&mut self, keys: &[String]) -> Result<Vec<RemoteItem>, RemoteError> {
        let mut out = Vec::new();
        for key in keys.iter().filter(|k| k.parse::<i64>().is_ok()) {
            match self.call(Method::GET, &format!("/v1/entries/{key}"), None).await {
                Ok(answer) => out.extend(miniflux::entry(&answer).map_err(RemoteError::Answer)?),
                Err(RemoteError::Status(404, _)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    async fn set_flag(&mut self, flag: Flag, value: bool, keys: &[String]) -> Result<(), RemoteError> {
        let ids: Vec<i64> = keys.iter().filter_map(|k| k.parse().ok()).collect();
        for batch in ids.chunks(MARK_BATCH) {
            let body = match flag {
                Flag::Read => serde_json::json!({"entry_ids": batch, "status": if value { "read" } else { "unread" }}),
                Flag::Starred if !self.learnt.toggle_star => serde_json::json!({"entry_ids": batch, "starred": value}),
                Flag::Starred => break,
            };
            match self.call(Method::PUT, "/v1/entries", Some(body)).await {
                Ok(_) => {}
                Err(e) if flag == Flag::Starred && lacks_it(&e) => {
                    self.learnt.toggle_star = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if flag == Flag::Starred && self.learnt.toggle_star {
            // `PUT /v1/entries/{id}/bookmark` toggles (`Storage.ToggleStarred`): only where the entry differs.
            for item in self.items(keys).await? {
                if item.starred != value {
                    self.call(Method::PUT, &format!("/v1/entries/{}/bookmark", item.entry.key), None).await?;
                }
            }
        }
        Ok(())
    }

    /// Miniflux's save (`POST /v1/entries/{entryID}/save`, `saveEntryHandler` in `internal/api/entry_handlers.go`)
    /// hands the entry to the third-party integrations set up on the server (Wallabag, Pocket, Linkding…); with
    /// none set up it answers 400 "no third-party integration enabled", which becomes what to do about it.
    async fn save(&mut self, keys: &[String], _label: &str) -> Result<(), RemoteError> {
        for key in keys {
            let Ok(id) = key.parse::<i64>() else { continue };
            match self.call(Method::POST, &format!("/v1/entries/{id}/save"), None).await {
                Ok(_) => {}
                Err(RemoteError::Status(400, said)) if said.contains("integration") => {
                    return Err(RemoteError::Refused(format!(
                        "Miniflux said \"{said}\": enable a third-party integration that saves (Wallabag, \
                         Pocket, Linkding, …) in Miniflux's Settings, Integrations, or set save_command here"
                    )));
                }
                // The entry is gone from the server: nothing left to save.
                Err(RemoteError::Status(404, _)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    async fn edit_subscription(&mut self, change: &FeedChange) -> Result<(), RemoteError> {
        match change {
            FeedChange::Subscribe { url, title, label } => {
                let category = match label {
                    Some(label) => self.category(Some(label)).await?,
                    // `createFeedHandler`: none is the user's first category.
                    None => 0,
                };
                let body = serde_json::json!({ "feed_url": url, "category_id": category });
                let answer = match self.call(Method::POST, "/v1/feeds", Some(body)).await {
                    // `createFeedHandler` answers a feed it cannot fetch or read with `JSONServerError` and why:
                    // a refusal of this feed, not a failing server.
                    Err(RemoteError::Status(500, why)) if !why.is_empty() && !why.starts_with("a web page") => {
                        return Err(RemoteError::Refused(why));
                    }
                    other => other?,
                };
                let id = miniflux::made_id(&answer, "feed_id").map_err(RemoteError::Answer)?;
                if let Some(title) = title {
                    let body = serde_json::json!({ "title": title });
                    self.call(Method::PUT, &format!("/v1/feeds/{id}"), Some(body)).await?;
                }
            }
            FeedChange::Unsubscribe { stream } => {
                match self.call(Method::DELETE, &format!("/v1/feeds/{}", feed_id(stream)?), None).await {
                    // Gone already: what was asked is so.
                    Ok(_) | Err(RemoteError::Status(404, _)) => {}
                    Err(e) => return Err(e),
                }
            }
            FeedChange::Rename { stream, title } => {
                let body = serde_json::json!({ "title": title });
                self.call(Method::PUT, &format!("/v1/feeds/{}", feed_id(stream)?), Some(body)).await?;
            }
            FeedChange::Relabel { stream, label } => {
                let category = self.category(label.as_deref()).await?;
                let body = serde_json::json!({ "category_id": category });
                self.call(Method::PUT, &format!("/v1/feeds/{}", feed_id(stream)?), Some(body)).await?;
            }
        }
        Ok(())
    }

    fn requests(&self) -> usize {
        self.requests
    }
}

#[cfg(test)]
mod tests {
    use super::Learnt;

    #[test]
    fn what_a_server_lacks_is_kept_and_read_back() {
        let learnt = Learnt { basic: true, no_ids: false, toggle_star: true, page: None };
        assert_eq!(learnt.kept(), "miniflux:basic,toggle-star");
        assert_eq!(Learnt::read(Some(&learnt.kept())), learnt);
        let smaller = Learnt { page: Some(250), ..learnt };
        assert_eq!(smaller.kept(), "miniflux:basic,toggle-star,page=250");
        assert_eq!(Learnt::read(Some(&smaller.kept())), smaller, "the page size found is kept");
        assert_eq!(Learnt::read(Some("miniflux:page=5000")).page, None, "never more than the API's most");
        assert_eq!(Learnt::read(Some("a token")), Learnt::default());
        assert_eq!(Learnt::read(None), Learnt::default());
    }
}
