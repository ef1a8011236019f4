//! A test server for Miniflux's Google Reader API, which cannot run here (its Go toolchain and modules are out of
//! reach). It follows Miniflux's own description of what it implements, `internal/googlereader/README.md` in
//! github.com/miniflux/v2 (commit 106cdd09), not what tidings asks: each answer below cites the lines of that
//! document it follows ("README n-m"). Feeds and entries are kept in memory; every request is logged.

use super::greader::{Request, Seen, field, serve_with_headers};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) const USER: &str = "demo";
pub(crate) const PASSWORD: &str = "miniflux-reader-pass";
/// README 70-75: `<googlereader_username>/<hex_digest>`; README 110: the edit token is the same value.
const TOKEN: &str = "demo/5f2b0c8e9a";

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) id: u64,
    pub(crate) feed: u64,
    pub(crate) published: i64,
    pub(crate) read: bool,
    pub(crate) starred: bool,
}

#[derive(Default)]
pub(crate) struct State {
    /// (id, url, title, category)
    pub(crate) feeds: Vec<(u64, String, String, String)>,
    pub(crate) entries: Vec<Entry>,
    /// The REST API's categories by title, the id of each its place from 1 (the feeds' are added at start).
    pub(crate) categories: Vec<String>,
    /// The REST API as it was before 2.3.2: no `GET /v1/entries/ids`, no `starred` in `PUT /v1/entries`.
    pub(crate) before_2_3_2: bool,
    /// Feed URLs (parts of) the REST API cannot subscribe to.
    pub(crate) refuse_urls: Vec<String>,
    /// Every request answered 429 with `Retry-After` of so many seconds, as a proxy in front would.
    pub(crate) busy_for: Option<u64>,
    /// A third-party integration that saves is set up (`Storage.HasSaveEntry`): `POST /v1/entries/{id}/save`
    /// hands the entry to it.
    pub(crate) save_integration: bool,
    /// The entries handed to the integrations (`integration.SendEntry`), in order.
    pub(crate) saved: Vec<u64>,
}

pub(crate) struct Miniflux {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    log: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
}

impl Miniflux {
    pub(crate) fn start(mut state: State) -> Miniflux {
        for (_, _, _, category) in &state.feeds {
            if !state.categories.contains(category) {
                state.categories.push(category.clone());
            }
        }
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(Mutex::new(state));
        let log: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (s, l, halt) = (state.clone(), log.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if halt.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (s, l) = (s.clone(), l.clone());
                std::thread::spawn(move || {
                    serve_with_headers(stream, &l, |request| {
                        let state = &mut s.lock().unwrap_or_else(|e| e.into_inner());
                        if let Some(secs) = state.busy_for {
                            // A reverse proxy's rate limit in front of Miniflux (Miniflux has none of its own).
                            return (429, vec![("Retry-After", secs.to_string())], b"Too Many Requests".to_vec());
                        }
                        let (status, body) = if request.path().starts_with("/v1/") {
                            super::miniflux_api::answer(state, request)
                        } else {
                            reader_answer(state, request)
                        };
                        (status, Vec::new(), body)
                    });
                });
            }
        });
        Miniflux { addr, state, log, stop }
    }

    /// README 9-11: the base URL, under which `accounts/ClientLogin` and `reader/api/0` are.
    pub(crate) fn config(&self) -> String {
        format!(
            "refresh_on_startup = false\n[[accounts]]\nname = \"Miniflux\"\nkind = \"greader\"\n\
             url = \"http://{}\"\nuser = \"{USER}\"\npassword = \"{PASSWORD}\"\n",
            self.addr
        )
    }

    /// `kind = "miniflux"`: its own REST API, the server's address and an API key.
    pub(crate) fn api_config(&self) -> String {
        format!(
            "refresh_on_startup = false\n[[accounts]]\nname = \"Miniflux\"\nkind = \"miniflux\"\n\
             url = \"http://{}\"\nuser = \"{USER}\"\npassword = \"{}\"\n",
            self.addr,
            super::miniflux_api::API_KEY
        )
    }

    pub(crate) fn port(&self) -> u16 {
        self.addr.port()
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn requests(&self) -> Vec<Seen> {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Miniflux {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(self.addr);
    }
}

fn text(status: u16, body: &str) -> (u16, Vec<u8>) {
    (status, body.as_bytes().to_vec())
}

fn json(value: serde_json::Value) -> (u16, Vec<u8>) {
    (200, value.to_string().into_bytes())
}

/// README 155-160: an item id in any of its four forms, as the entry id.
fn entry_id(id: &str) -> Option<u64> {
    if let Some(hex) = id.strip_prefix("tag:google.com,2005:reader/item/") {
        return u64::from_str_radix(hex, 16).ok();
    }
    if id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return u64::from_str_radix(id, 16).ok();
    }
    id.parse().ok()
}

/// The Google Reader subset's answer: the query's and the form's fields, the Authorization header.
fn reader_answer(state: &mut State, request: &Request) -> (u16, Vec<u8>) {
    let mut fields = request.query();
    fields.extend(super::greader::form(&request.body));
    let (method, path, fields) = (request.method.as_str(), request.path(), fields.as_slice());
    let auth = request.headers.get("authorization").map(String::as_str);
    let all = |name: &str| fields.iter().filter(|(k, _)| k == name).map(|(_, v)| v.clone()).collect::<Vec<_>>();
    // README 29-68: ClientLogin; a failure is a JSON 401.
    if path.ends_with("/accounts/ClientLogin") {
        if field(fields, "Email") == Some(USER) && field(fields, "Passwd") == Some(PASSWORD) {
            return text(200, &format!("SID={TOKEN}\nLSID={TOKEN}\nAuth={TOKEN}\n"));
        }
        return json_status(401, serde_json::json!({"error_message": "access unauthorized"}));
    }
    let Some(call) = path.split_once("/reader/api/0/").map(|(_, call)| call) else { return text(404, "Not Found") };
    // README 93-104: GET by the Authorization header only, POST by `T` only; README 112-119: the failure.
    let authorized = match method {
        "GET" => auth == Some(&format!("GoogleLogin auth={TOKEN}")),
        _ => field(fields, "T") == Some(TOKEN),
    };
    if !authorized {
        return text(401, "Unauthorized");
    }
    match (method, call) {
        // README 106-110.
        ("GET", "token") => text(200, TOKEN),
        // README 244-275 (`output=json` required: README 250).
        ("GET", "subscription/list") if field(fields, "output") == Some("json") => {
            let subscriptions: Vec<serde_json::Value> = state
                .feeds
                .iter()
                .map(|(id, url, title, category)| {
                    serde_json::json!({"id": format!("feed/{id}"), "title": title, "url": url,
                        "htmlUrl": "http://example.com/",
                        "categories": [{"id": format!("user/1/label/{category}"), "label": category, "type": "folder"}]})
                })
                .collect();
            json(serde_json::json!({ "subscriptions": subscriptions }))
        }
        // README 409-458.
        ("GET", "stream/items/ids") if field(fields, "output") == Some("json") => ids(state, fields, &all("xt")),
        // README 460-536 (`T`, `output`, `i` from merged form values: README 477).
        ("POST", "stream/items/contents") if field(fields, "output") == Some("json") => {
            let wanted: Vec<u64> = all("i").iter().filter_map(|i| entry_id(i)).collect();
            let items: Vec<serde_json::Value> =
                state.entries.iter().filter(|e| wanted.contains(&e.id)).map(item_json).collect();
            json(serde_json::json!({"direction": "ltr", "id": "user/-/state/com.google/reading-list",
                "title": "Reading List", "items": items}))
        }
        // README 380-407.
        ("POST", "edit-tag") => {
            let ids: Vec<u64> = all("i").iter().filter_map(|i| entry_id(i)).collect();
            for (tags, on) in [(all("a"), true), (all("r"), false)] {
                for tag in tags {
                    for entry in state.entries.iter_mut().filter(|e| ids.contains(&e.id)) {
                        if tag.ends_with("/state/com.google/read") {
                            entry.read = on;
                        } else if tag.ends_with("/state/com.google/starred") {
                            entry.starred = on;
                        }
                    }
                }
            }
            text(200, "OK")
        }
        // README 571-579: any other path under /reader/api/0/ is `[]` with 200 (stream/contents among them).
        _ => text(200, "[]"),
    }
}

fn json_status(status: u16, value: serde_json::Value) -> (u16, Vec<u8>) {
    (status, value.to_string().into_bytes())
}

/// README 409-458: one stream's ids, newest first (README 422), `n` capped at 10000 (README 420, 440), `c` a
/// numeric offset (README 421, 442), `ot` published after (README 423), `xt` read: unread only (README 439).
fn ids(state: &State, fields: &[(String, String)], excluded: &[String]) -> (u16, Vec<u8>) {
    let stream = field(fields, "s").unwrap_or_default();
    let unread_only = excluded.iter().any(|x| x.ends_with("/state/com.google/read"));
    let n =
        field(fields, "n").and_then(|n| n.parse::<usize>().ok()).filter(|n| *n > 0 && *n <= 10_000).unwrap_or(10_000);
    let offset: usize = field(fields, "c").and_then(|c| c.parse().ok()).unwrap_or(0);
    let after: i64 = field(fields, "ot").and_then(|t| t.parse().ok()).unwrap_or(0);
    let mut chosen: Vec<&Entry> = state
        .entries
        .iter()
        .filter(|e| match stream {
            s if s.ends_with("/state/com.google/reading-list") => true,
            s if s.ends_with("/state/com.google/starred") => e.starred,
            s if s.ends_with("/state/com.google/read") => e.read,
            s => s.strip_prefix("feed/").and_then(|f| f.parse().ok()) == Some(e.feed),
        })
        .filter(|e| !(unread_only && e.read) && e.published > after)
        .collect();
    chosen.sort_by_key(|e| (std::cmp::Reverse(e.published), std::cmp::Reverse(e.id)));
    let page: Vec<serde_json::Value> =
        chosen.iter().skip(offset).take(n).map(|e| serde_json::json!({"id": e.id.to_string()})).collect();
    let mut answer = serde_json::json!({ "itemRefs": page });
    if offset + n < chosen.len() {
        answer["continuation"] = serde_json::Value::String((offset + n).to_string());
    }
    json(answer)
}

/// README 494-533: an item, its id in the long form (README 164-165).
fn item_json(e: &Entry) -> serde_json::Value {
    let mut categories = vec!["user/1/state/com.google/reading-list".to_string()];
    if e.read {
        categories.push("user/1/state/com.google/read".into());
    }
    if e.starred {
        categories.push("user/1/state/com.google/starred".into());
    }
    serde_json::json!({
        "id": format!("tag:google.com,2005:reader/item/{:016x}", e.id),
        "categories": categories,
        "title": format!("Entry {}", e.id),
        "crawlTimeMsec": (e.published * 1000).to_string(),
        "timestampUsec": (e.published * 1_000_000).to_string(),
        "published": e.published,
        "updated": e.published,
        "author": "Author",
        "alternate": [{"href": format!("https://example.org/{}", e.id), "type": "text/html"}],
        "summary": {"direction": "ltr", "content": format!("<p>Entry {}</p>", e.id)},
        "content": {"direction": "ltr", "content": format!("<p>Entry {}</p>", e.id)},
        "origin": {"streamId": format!("feed/{}", e.feed), "title": "Feed", "htmlUrl": "https://example.org/"},
        "enclosure": [],
        "canonical": [{"href": format!("https://example.org/{}", e.id)}],
    })
}
