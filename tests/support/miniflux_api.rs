//! Miniflux's own REST API (`/v1/…`) for the test server of `support::miniflux`, over the same feeds and entries
//! as its Google Reader subset. Written from Miniflux's sources at github.com/miniflux/v2 (commit 106cdd09), not
//! from what tidings asks: the routes of `internal/api/api.go` (`NewHandler`), the handlers they name in
//! `internal/api/*_handlers.go`, the JSON of `client/model.go`, and the older API before 2.3.2 (commits 7d8ffd2e
//! and bcb2cf2a added `GET /v1/entries/ids` and `starred` in `PUT /v1/entries`) when [`State::before_2_3_2`] is
//! set. Each answer names the function it follows.

use super::greader::Request;
use super::miniflux::{Entry, State, USER};
use serde_json::{Value, json};

/// An API key of the user (`POST /v1/api-keys` makes them; `middleware.validateAPIKeyAuth` looks them up).
pub(crate) const API_KEY: &str = "mf-api-key-4b1d7e";
/// The user's own password (for basic auth), not the Google Reader API's (`googlereader_password`).
pub(crate) const LOGIN_PASSWORD: &str = "demo-login-pass";

/// `model.MaxEntryLimit` and `model.MaxEntryIDsLimit`.
const MAX_ENTRY_LIMIT: usize = 1000;
const MAX_ENTRY_IDS_LIMIT: usize = 10_000;

fn status(code: u16, message: &str) -> (u16, Vec<u8>) {
    // `response.JSONBadRequest` and the others: `{"error_message": …}`.
    (code, json!({ "error_message": message }).to_string().into_bytes())
}

fn ok(code: u16, value: Value) -> (u16, Vec<u8>) {
    (code, value.to_string().into_bytes())
}

/// `response.NoContent`.
fn no_content() -> (u16, Vec<u8>) {
    (204, Vec::new())
}

/// The API's answer to `request` (its path under `/v1/`).
pub(crate) fn answer(state: &mut State, request: &Request) -> (u16, Vec<u8>) {
    // `middleware.validateAPIKeyAuth`: a key given must be one; none given goes on to `validateBasicAuth`, which
    // wants the user's password.
    let authorized = match request.headers.get("x-auth-token") {
        Some(token) => token == API_KEY,
        None => request.headers.get("authorization").is_some_and(|a| *a == basic(USER, LOGIN_PASSWORD)),
    };
    if !authorized {
        return status(401, "Access Unauthorized");
    }
    let path = request.path().trim_end_matches('/');
    let parts: Vec<&str> = path.trim_start_matches("/v1/").split('/').collect();
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let query = request.query();
    match (request.method.as_str(), parts.as_slice()) {
        ("GET", ["feeds"]) => ok(200, Value::Array(state.feeds.iter().map(|f| feed_json(state, f)).collect())),
        ("GET", ["categories"]) => ok(
            200,
            Value::Array(categories(state).map(|(id, t)| json!({"id": id, "title": t, "user_id": 1})).collect()),
        ),
        ("POST", ["categories"]) => create_category(state, &body),
        ("POST", ["feeds"]) => create_feed(state, &body),
        ("PUT", ["feeds", id]) => update_feed(state, id, &body),
        ("DELETE", ["feeds", id]) => remove_feed(state, id),
        ("GET", ["entries"]) => find_entries(state, &query),
        // Before 2.3.2 there was no `GET /v1/entries/ids`: the path is `GET /v1/entries/{entryID}`, whose
        // `request.RouteInt64Param` reads "ids" as 0, and `getEntryHandler` says so.
        ("GET", ["entries", "ids"]) if state.before_2_3_2 => status(400, "invalid entry ID"),
        ("GET", ["entries", "ids"]) => entry_ids(state, &query),
        ("GET", ["entries", id]) => {
            match id.parse::<u64>().ok().and_then(|id| state.entries.iter().find(|e| e.id == id)) {
                // `getEntryHandler` → `getEntryFromBuilder`: the entry, or `JSONNotFound`.
                Some(entry) => ok(200, entry_json(entry)),
                None if id.parse::<u64>().is_err() => status(400, "invalid entry ID"),
                None => status(404, "Resource Not Found"),
            }
        }
        ("PUT", ["entries"]) => set_status_and_starred(state, &body),
        // `toggleStarredHandler` → `Storage.ToggleStarred`: `starred = NOT starred`; nothing updated is an error.
        ("PUT", ["entries", id, "bookmark" | "star"]) => {
            match id.parse::<u64>().ok().and_then(|id| state.entries.iter_mut().find(|e| e.id == id)) {
                Some(entry) => {
                    entry.starred = !entry.starred;
                    no_content()
                }
                None => status(500, "store: nothing has been updated"),
            }
        }
        // `saveEntryHandler` (internal/api/entry_handlers.go): an id of 0 or none is `JSONBadRequest("invalid
        // entry ID")`; without an integration that saves (`Storage.HasSaveEntry`), `JSONBadRequest("no
        // third-party integration enabled")`; an entry not the user's is `JSONNotFound`; else the entry goes to
        // `integration.SendEntry` (in a goroutine) and the answer is `JSONAccepted` (internal/http/response/json.go):
        // 202, a JSON content type and no body.
        ("POST", ["entries", id, "save"]) => {
            let id = id.parse::<u64>().unwrap_or(0);
            if id == 0 {
                status(400, "invalid entry ID")
            } else if !state.save_integration {
                status(400, "no third-party integration enabled")
            } else if !state.entries.iter().any(|e| e.id == id) {
                status(404, "Resource Not Found")
            } else {
                state.saved.push(id);
                (202, Vec::new())
            }
        }
        _ => status(404, "Resource Not Found"),
    }
}

/// `Basic base64(user:password)`, as `r.BasicAuth()` reads it.
fn basic(user: &str, password: &str) -> String {
    use base64::Engine;
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")))
}

/// The categories, (id, title): every feed's, and those made by `POST /v1/categories`.
fn categories(state: &State) -> impl Iterator<Item = (u64, &str)> {
    state.categories.iter().enumerate().map(|(i, t)| (i as u64 + 1, t.as_str()))
}

fn category_id(state: &State, title: &str) -> Option<u64> {
    categories(state).find(|(_, t)| *t == title).map(|(id, _)| id)
}

/// `client/model.go` `Feed`, with its `Category`.
fn feed_json(state: &State, (id, url, title, category): &(u64, String, String, String)) -> Value {
    json!({"id": id, "user_id": 1, "feed_url": url, "site_url": "http://example.com/", "title": title,
        "checked_at": "2026-01-01T00:00:00Z", "disabled": false,
        "category": {"id": category_id(state, category), "title": category, "user_id": 1}})
}

/// `client/model.go` `Entry`: the entry as `item_json` of the Google Reader subset has it.
pub(crate) fn entry_json(e: &Entry) -> Value {
    let date = chrono::DateTime::from_timestamp(e.published, 0).unwrap_or_default().to_rfc3339();
    json!({"id": e.id, "user_id": 1, "feed_id": e.feed, "status": if e.read { "read" } else { "unread" },
        "hash": format!("h{}", e.id), "title": format!("Entry {}", e.id), "url": format!("https://example.org/{}", e.id),
        "comments_url": "", "published_at": date, "created_at": date, "changed_at": date,
        "content": format!("<p>Entry {}</p>", e.id), "author": "Author", "share_code": "", "starred": e.starred,
        "reading_time": 1, "enclosures": [], "tags": []})
}

/// `createCategoryHandler`: `validator.ValidateCategoryCreation` refuses a title already there; 201 and the
/// category.
fn create_category(state: &mut State, body: &Value) -> (u16, Vec<u8>) {
    let Some(title) = body.get("title").and_then(Value::as_str).filter(|t| !t.is_empty()) else {
        return status(400, "The title is mandatory");
    };
    if category_id(state, title).is_some() {
        return status(400, "This category already exists");
    }
    state.categories.push(title.to_string());
    ok(201, json!({"id": state.categories.len(), "title": title, "user_id": 1}))
}

/// `createFeedHandler`: no `category_id` is `Storage.FirstCategory` (the first by title); a feed already there is
/// refused (`validator.ValidateFeedCreation`); 201 and `{feed_id}` (`feedCreationResponse`).
fn create_feed(state: &mut State, body: &Value) -> (u16, Vec<u8>) {
    let Some(url) = body.get("feed_url").and_then(Value::as_str).filter(|u| !u.is_empty()) else {
        return status(400, "The feed URL is mandatory");
    };
    let category = match body.get("category_id").and_then(Value::as_u64).unwrap_or(0) {
        0 => categories(state).min_by_key(|(_, t)| t.to_string()).map(|(_, t)| t.to_string()),
        id => categories(state).find(|(c, _)| *c == id).map(|(_, t)| t.to_string()),
    };
    let Some(category) = category else {
        return status(400, "This category does not exist or does not belong to this user");
    };
    if state.feeds.iter().any(|f| f.1 == url) {
        return status(400, "This feed already exists");
    }
    if state.refuse_urls.iter().any(|r| url.contains(r.as_str())) {
        // `feedHandler.CreateFeed` fails fetching or parsing it: `JSONServerError` with the localized error.
        return status(500, "Unable to parse this feed: unsupported feed format");
    }
    let id = state.feeds.iter().map(|f| f.0).max().unwrap_or(0) + 1;
    state.feeds.push((id, url.to_string(), format!("Feed {id}"), category));
    ok(201, json!({ "feed_id": id }))
}

/// `updateFeedHandler`: `FeedModificationRequest.Patch` sets what is given (`title`, `category_id`); 201 and the
/// feed.
fn update_feed(state: &mut State, id: &str, body: &Value) -> (u16, Vec<u8>) {
    let id: u64 = id.parse().unwrap_or(0);
    if id == 0 {
        return status(400, "invalid feed ID");
    }
    let category = match body.get("category_id").and_then(Value::as_u64) {
        Some(c) => match categories(state).find(|(i, _)| *i == c) {
            Some((_, title)) => Some(title.to_string()),
            None => return status(400, "This category does not exist or does not belong to this user"),
        },
        None => None,
    };
    let Some(feed) = state.feeds.iter_mut().find(|f| f.0 == id) else { return status(404, "Resource Not Found") };
    if let Some(title) = body.get("title").and_then(Value::as_str) {
        feed.2 = title.to_string();
    }
    if let Some(category) = category {
        feed.3 = category;
    }
    let feed = feed.clone();
    ok(201, feed_json(state, &feed))
}

/// `removeFeedHandler`: 204; its entries go with it.
fn remove_feed(state: &mut State, id: &str) -> (u16, Vec<u8>) {
    let id: u64 = id.parse().unwrap_or(0);
    if !state.feeds.iter().any(|f| f.0 == id) {
        return status(404, "Resource Not Found");
    }
    state.feeds.retain(|f| f.0 != id);
    state.entries.retain(|e| e.feed != id);
    no_content()
}

fn param<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// `findEntries` with `configureFilters`: `status` (any of them), `starred`, `after_entry_id`,
/// `before_entry_id`, `feed_id`, `order` (`id` or `published_at`; default `published_at`) and `direction`
/// (default `desc`), `limit` (default 100, at most `model.MaxEntryLimit`) and `offset`; `{total, entries}`.
fn find_entries(state: &State, query: &[(String, String)]) -> (u16, Vec<u8>) {
    let statuses: Vec<&str> = query.iter().filter(|(k, _)| k == "status").map(|(_, v)| v.as_str()).collect();
    if statuses.iter().any(|s| *s != "read" && *s != "unread") {
        return status(400, "invalid entry status");
    }
    let limit = param(query, "limit").and_then(|l| l.parse().ok()).unwrap_or(100usize);
    if limit > MAX_ENTRY_LIMIT {
        return status(400, &format!("limit value should be <= {MAX_ENTRY_LIMIT}"));
    }
    let offset = param(query, "offset").and_then(|o| o.parse().ok()).unwrap_or(0usize);
    let number = |name: &str| param(query, name).and_then(|v| v.parse::<u64>().ok()).filter(|v| *v > 0);
    let (after, before, feed) = (number("after_entry_id"), number("before_entry_id"), number("feed_id"));
    let starred = param(query, "starred").and_then(|s| s.parse::<bool>().ok());
    let mut chosen: Vec<&Entry> = state
        .entries
        .iter()
        .filter(|e| statuses.is_empty() || statuses.contains(&if e.read { "read" } else { "unread" }))
        .filter(|e| starred.is_none_or(|s| e.starred == s))
        .filter(|e| after.is_none_or(|a| e.id > a) && before.is_none_or(|b| e.id < b))
        .filter(|e| feed.is_none_or(|f| e.feed == f))
        .collect();
    match param(query, "order").unwrap_or("published_at") {
        "id" => chosen.sort_by_key(|e| e.id),
        _ => chosen.sort_by_key(|e| (e.published, e.id)),
    }
    if param(query, "direction").unwrap_or("desc") == "desc" {
        chosen.reverse();
    }
    let total = chosen.len();
    // `WithLimit(0)` is no limit.
    let take = if limit == 0 { usize::MAX } else { limit };
    let page: Vec<Value> = chosen.into_iter().skip(offset).take(take).map(entry_json).collect();
    ok(200, json!({ "total": total, "entries": page }))
}

/// `getEntryIDsHandler`: `starred` ("true"/"false") and `status`, by id newest first, `limit` (at most and by
/// default `model.MaxEntryIDsLimit`) and `offset`; `{total, entry_ids}`.
fn entry_ids(state: &State, query: &[(String, String)]) -> (u16, Vec<u8>) {
    let starred = match param(query, "starred") {
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(_) => return status(400, r#"invalid starred parameter, must be "true" or "false""#),
        None => None,
    };
    let wanted = match param(query, "status") {
        Some(s @ ("read" | "unread")) => Some(s == "read"),
        Some(_) => return status(400, r#"invalid status parameter, must be "read" or "unread""#),
        None => None,
    };
    // `parseEntryIDsParams`.
    let limit = param(query, "limit").and_then(|l| l.parse().ok()).filter(|l| *l > 0 && *l <= MAX_ENTRY_IDS_LIMIT);
    let limit = limit.unwrap_or(MAX_ENTRY_IDS_LIMIT);
    let offset = param(query, "offset").and_then(|o| o.parse().ok()).unwrap_or(0usize);
    let mut ids: Vec<u64> = state
        .entries
        .iter()
        .filter(|e| starred.is_none_or(|s| e.starred == s) && wanted.is_none_or(|r| e.read == r))
        .map(|e| e.id)
        .collect();
    ids.sort_unstable_by(|a, b| b.cmp(a));
    let total = ids.len();
    let page: Vec<u64> = ids.into_iter().skip(offset).take(limit).collect();
    ok(200, json!({ "total": total, "entry_ids": page }))
}

/// `setEntryStatusAndStarredHandler` with `validator.ValidateEntriesStatusAndStarredUpdateRequest`: ids, and a
/// `status` or a `starred` or both; 204. Before 2.3.2 (`setEntryStatusHandler`,
/// `ValidateEntriesStatusUpdateRequest`) a `status` must be given and `starred` is not read.
fn set_status_and_starred(state: &mut State, body: &Value) -> (u16, Vec<u8>) {
    let ids: Vec<u64> = body
        .get("entry_ids")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    if ids.is_empty() {
        return status(400, "the list of entries cannot be empty");
    }
    let read = match body.get("status").and_then(Value::as_str).unwrap_or("") {
        "read" => Some(true),
        "unread" => Some(false),
        "" if !state.before_2_3_2 => None,
        _ => return status(400, r#"invalid entry status, valid status values are: "read" and "unread""#),
    };
    let starred = if state.before_2_3_2 { None } else { body.get("starred").and_then(Value::as_bool) };
    if read.is_none() && starred.is_none() {
        return status(400, "either the status or the starred field must be specified");
    }
    for entry in state.entries.iter_mut().filter(|e| ids.contains(&e.id)) {
        if let Some(read) = read {
            entry.read = read;
        }
        if let Some(starred) = starred {
            entry.starred = starred;
        }
    }
    no_content()
}
