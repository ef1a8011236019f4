//! The Google Reader API over HTTP, as FreshRSS, Miniflux, Inoreader, The Old Reader and BazQux serve it: login,
//! the subscriptions, items since a time (paged by continuation), the unread and starred id sets, items by id,
//! and the writes (flags by `edit-tag`, subscriptions by `subscription/edit`). Reading the answers is the core's
//! `greader`; this module only asks, counts its requests, and says what went wrong in a way sync can act on.

use super::http::read_page;
use super::{PageSize, Remote, RemoteError, Set};
use crate::greader::{self, IdsPage, ItemsPage, RemoteFeed, RemoteItem};
use crate::store::accounts::Scope;
use crate::store::changes::{FeedChange, Flag};

/// Items per page of `stream/contents`: few requests, each a few megabytes at most (fewer when they are larger:
/// see [`PageSize`]).
const PAGE: usize = 1000;
/// Ids per page of `stream/items/ids`.
const IDS_PAGE: usize = 10_000;
/// Item ids per write (`edit-tag`) or per `stream/items/contents`.
const BATCH: usize = 250;
/// The largest answer read other than a page of items (a login, the subscriptions, a write's OK), after
/// decompression.
const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;
/// The largest page of ids read: a page of 10,000 is about 300 KB, and each id read costs memory until the sync
/// ends (a server sending one page of millions would otherwise fill it).
const MAX_IDS_ANSWER_BYTES: usize = 8 * 1024 * 1024;

/// A Google Reader API server, for one account.
pub(super) struct GReader {
    http: reqwest::Client,
    /// The API's base address (…/api/greader.php).
    base: String,
    user: String,
    /// Where the password comes from, asked only when a login is needed (a `password_command` may prompt).
    password: super::http::Password,
    auth: Option<String>,
    /// The action token writes need, fetched once per sync.
    token: Option<String>,
    /// The server has no `stream/contents` (Miniflux): items come as ids, then by id. Kept with the account.
    pub(super) no_stream_contents: bool,
    /// The largest answer read of a page of items, and the items asked for a page and by id at once.
    answer_limit: usize,
    page: PageSize,
    batch: PageSize,
    pub requests: usize,
}

impl GReader {
    pub(super) fn new(
        http: reqwest::Client,
        base: &str,
        user: &str,
        auth: Option<String>,
        password: super::http::Password,
        answer_limit: usize,
    ) -> GReader {
        GReader {
            http,
            base: base.trim_end_matches('/').to_string(),
            user: user.to_string(),
            password,
            // One an older build kept without looking (megabytes long) would fail every request: a login is asked.
            auth: auth.filter(|a| greader::is_token(a)),
            token: None,
            no_stream_contents: false,
            answer_limit,
            page: PageSize::new(PAGE),
            batch: PageSize::new(BATCH),
            requests: 0,
        }
    }

    /// What the account keeps of what the server lacks (see [`GReader::learnt`]).
    /// (`greader:no-stream-contents,page=250,batch=125`: the words of what was found, none when nothing was.)
    pub(super) fn traits(&self) -> Option<String> {
        let words: Vec<String> = [
            self.no_stream_contents.then(|| "no-stream-contents".to_string()),
            self.page.kept("page", PAGE),
            self.batch.kept("batch", BATCH),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!words.is_empty()).then(|| format!("greader:{}", words.join(",")))
    }

    /// Takes what an earlier sync learnt the server lacks, and the page sizes its answers allow.
    pub(super) fn learnt(&mut self, traits: Option<&str>) {
        let words: Vec<&str> = traits.and_then(|t| t.strip_prefix("greader:")).unwrap_or("").split(',').collect();
        self.no_stream_contents = words.contains(&"no-stream-contents");
        self.page = PageSize::read(&words, "page", PAGE);
        self.batch = PageSize::read(&words, "batch", BATCH);
    }

    pub(super) fn auth(&self) -> Option<&str> {
        self.auth.as_deref()
    }

    /// Sends a request and reads its answer, up to `limit` bytes.
    async fn send(&mut self, request: reqwest::RequestBuilder, limit: usize) -> Result<Vec<u8>, RemoteError> {
        super::http::exchange(request, limit, &mut self.requests).await
    }

    /// A request with the login token, logging in first (again, when the server refused the token).
    async fn authorized(
        &mut self,
        build: impl Fn(&reqwest::Client, &str) -> reqwest::RequestBuilder,
        limit: usize,
    ) -> Result<Vec<u8>, RemoteError> {
        if self.auth.is_none() {
            self.login().await?;
        }
        let auth = format!("GoogleLogin auth={}", self.auth.as_deref().unwrap_or_default());
        match self.send(build(&self.http, &auth).header(reqwest::header::AUTHORIZATION, auth.clone()), limit).await {
            Err(RemoteError::Unauthorized) => {
                self.auth = None;
                self.token = None;
                self.login().await?;
                let auth = format!("GoogleLogin auth={}", self.auth.as_deref().unwrap_or_default());
                self.send(build(&self.http, &auth).header(reqwest::header::AUTHORIZATION, auth), limit).await
            }
            other => other,
        }
    }

    async fn get(&mut self, path: &str, query: &[(&str, String)], limit: usize) -> Result<Vec<u8>, RemoteError> {
        let url = format!("{}/reader/api/0/{path}", self.base);
        let query = query.to_vec();
        self.authorized(|http, _| http.get(&url).query(&query), limit).await
    }

    /// A POST, with the action token `T` in its form: some servers (Miniflux) take a POST's login from `T`
    /// alone, never from the Authorization header.
    async fn post(
        &mut self,
        path: &str,
        mut form: Vec<(&'static str, String)>,
        limit: usize,
    ) -> Result<Vec<u8>, RemoteError> {
        if self.token.is_none() {
            let answer = self.get("token", &[], MAX_ANSWER_BYTES).await?;
            self.token = Some(greader::action_token(&answer).map_err(RemoteError::Answer)?);
        }
        form.push(("T", self.token.clone().unwrap_or_default()));
        let url = format!("{}/reader/api/0/{path}", self.base);
        self.authorized(|http, _| http.post(&url).form(&form), limit).await
    }

    async fn write(&mut self, path: &str, form: Vec<(&'static str, String)>) -> Result<(), RemoteError> {
        let answer = self.post(path, form, MAX_ANSWER_BYTES).await?;
        greader::is_ok(&answer).map_err(RemoteError::Answer)
    }

    /// Items since a time where the server has no `stream/contents`: a page of the reading list's ids (paged by
    /// whatever continuation the server gives: Miniflux's is an offset), then those items by id.
    async fn items_by_ids(
        &mut self,
        since_secs: i64,
        continuation: Option<&str>,
        most: usize,
    ) -> Result<ItemsPage, RemoteError> {
        let mut query = vec![
            ("s", greader::READING_LIST.to_string()),
            ("n", PAGE.min(most).to_string()),
            ("ot", since_secs.to_string()),
            ("output", "json".to_string()),
        ];
        query.extend(continuation.map(|c| ("c", c.to_string())));
        let answer = self.get("stream/items/ids", &query, MAX_IDS_ANSWER_BYTES).await?;
        let ids = greader::item_ids(&answer).map_err(RemoteError::Answer)?;
        let mut items = self.items(&ids.ids).await?;
        items.sort_by_key(|i| std::cmp::Reverse(i.crawled_usec));
        Ok(ItemsPage { items, continuation: ids.continuation })
    }
}

impl Remote for GReader {
    async fn login(&mut self) -> Result<(), RemoteError> {
        let password = super::http::read_password(&self.password).await?;
        let url = format!("{}/accounts/ClientLogin", self.base);
        let form = [("Email", self.user.clone()), ("Passwd", password)];
        let answer = self.send(self.http.post(&url).form(&form), MAX_ANSWER_BYTES).await?;
        self.auth = Some(greader::auth_token(&answer).map_err(RemoteError::Answer)?);
        Ok(())
    }

    async fn subscriptions(&mut self) -> Result<Vec<RemoteFeed>, RemoteError> {
        let answer = self.get("subscription/list", &[("output", "json".into())], MAX_ANSWER_BYTES).await?;
        greader::subscriptions(&answer).map_err(RemoteError::Answer)
    }

    async fn items_since(
        &mut self,
        since_secs: i64,
        continuation: Option<&str>,
        most: usize,
    ) -> Result<ItemsPage, RemoteError> {
        if self.no_stream_contents {
            return self.items_by_ids(since_secs, continuation, most).await;
        }
        let read = loop {
            let n = self.page.of(most);
            let mut query = vec![("n", n.to_string()), ("ot", since_secs.to_string())];
            query.extend(continuation.map(|c| ("c", c.to_string())));
            let path = "stream/contents/user/-/state/com.google/reading-list";
            match self.get(path, &query, self.answer_limit).await {
                Ok(answer) => break read_page(answer, greader::items).await,
                // Items of a megabyte each: the same page again, smaller (the continuation says where it starts).
                Err(RemoteError::TooLarge(_)) if self.page.shrink(n) => {}
                Err(e) => break Err(e),
            }
        };
        match read {
            // No such call here (a list where the object belongs, or 404): the items come by id instead.
            Err(RemoteError::Answer(greader::AnswerError::Unsupported) | RemoteError::Status(404, _)) => {
                tracing::info!("{}: no stream/contents; items come by id", self.base);
                self.no_stream_contents = true;
                self.items_by_ids(since_secs, continuation, most).await
            }
            other => other,
        }
    }

    async fn ids(&mut self, set: Set, continuation: Option<&str>, most: usize) -> Result<IdsPage, RemoteError> {
        let mut query = vec![("n", IDS_PAGE.min(most).to_string()), ("output", "json".to_string())];
        match set {
            Set::Unread => {
                query.push(("s", greader::READING_LIST.into()));
                query.push(("xt", greader::READ.into()));
            }
            Set::Starred => query.push(("s", greader::STARRED.into())),
        }
        query.extend(continuation.map(|c| ("c", c.to_string())));
        let answer = self.get("stream/items/ids", &query, MAX_IDS_ANSWER_BYTES).await?;
        greader::item_ids(&answer).map_err(RemoteError::Answer)
    }

    async fn items(&mut self, keys: &[String]) -> Result<Vec<RemoteItem>, RemoteError> {
        let mut out = Vec::new();
        let mut rest = keys;
        while !rest.is_empty() {
            let n = self.batch.of(rest.len());
            let mut form: Vec<(&'static str, String)> =
                rest[..n].iter().filter_map(|k| greader::long_item_id(k)).map(|id| ("i", id)).collect();
            form.push(("output", "json".into()));
            match self.post("stream/items/contents", form, self.answer_limit).await {
                Ok(answer) => out.extend(read_page(answer, greader::items).await?.items),
                Err(RemoteError::TooLarge(_)) if self.batch.shrink(n) => continue,
                Err(e) => return Err(e),
            }
            rest = &rest[n..];
        }
        Ok(out)
    }

    async fn set_flag(&mut self, flag: Flag, value: bool, keys: &[String]) -> Result<(), RemoteError> {
        let state = match flag {
            Flag::Read => greader::READ,
            Flag::Starred => greader::STARRED,
        };
        for batch in keys.chunks(BATCH) {
            let mut form: Vec<(&'static str, String)> =
                batch.iter().filter_map(|k| greader::long_item_id(k)).map(|id| ("i", id)).collect();
            form.push((if value { "a" } else { "r" }, state.to_string()));
            self.write("edit-tag", form).await?;
        }
        Ok(())
    }

    /// A label on the items (`edit-tag` with `a=user/-/label/NAME`): FreshRSS's `greader.php` (`editTag`) makes
    /// it a tag of the entry, created when missing, and lists it among the item's `categories` from then on.
    async fn save(&mut self, keys: &[String], label: &str) -> Result<(), RemoteError> {
        for batch in keys.chunks(BATCH) {
            let mut form: Vec<(&'static str, String)> =
                batch.iter().filter_map(|k| greader::long_item_id(k)).map(|id| ("i", id)).collect();
            form.push(("a", format!("{}{label}", greader::LABEL_PREFIX)));
            self.write("edit-tag", form).await?;
        }
        Ok(())
    }

    async fn edit_subscription(&mut self, change: &FeedChange) -> Result<(), RemoteError> {
        let label = |l: &Option<String>| l.as_ref().map(|l| format!("{}{l}", greader::LABEL_PREFIX));
        let form: Vec<(&'static str, String)> = match change {
            FeedChange::Subscribe { url, title, label: l } => {
                let mut form = vec![("ac", "subscribe".to_string()), ("s", format!("feed/{url}"))];
                form.extend(title.clone().map(|t| ("t", t)));
                form.extend(label(l).map(|l| ("a", l)));
                form
            }
            FeedChange::Unsubscribe { stream } => vec![("ac", "unsubscribe".into()), ("s", stream.clone())],
            FeedChange::Rename { stream, title } => {
                vec![("ac", "edit".into()), ("s", stream.clone()), ("t", title.clone())]
            }
            FeedChange::Relabel { stream, label: l } => {
                let mut form = vec![("ac", "edit".to_string()), ("s", stream.clone())];
                match label(l) {
                    Some(l) => form.push(("a", l)),
                    // The account's own folder: out of every label (FreshRSS: into its default category).
                    None => form.push(("r", format!("{}{}", greader::LABEL_PREFIX, "-"))),
                }
                form
            }
        };
        self.write("subscription/edit", form).await
    }

    /// `mark-all-as-read` of a feed, a label or the reading list, for what was stored up to `seen_usec` (`ts`, in
    /// microseconds as the API has it: FreshRSS compares it with its item ids, Miniflux with publication times).
    async fn mark_list_read(&mut self, scope: &Scope, seen_usec: i64, _: i64) -> Result<bool, RemoteError> {
        if seen_usec <= 0 {
            return Ok(false);
        }
        let stream = match scope {
            Scope::All => greader::READING_LIST.to_string(),
            Scope::Label(label) => format!("{}{label}", greader::LABEL_PREFIX),
            Scope::Feed(stream) => stream.clone(),
        };
        match self.write("mark-all-as-read", vec![("s", stream), ("ts", seen_usec.to_string())]).await {
            Ok(()) => Ok(true),
            // No such call here, or not for this list (or an answer no OK fits in): the items go up by id.
            Err(RemoteError::Answer(_) | RemoteError::TooLarge(_) | RemoteError::Status(400 | 404 | 405, _)) => {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    fn requests(&self) -> usize {
        self.requests
    }
}
