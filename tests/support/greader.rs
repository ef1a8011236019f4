//! A Google Reader API server of our own on 127.0.0.1, for the sync cases a real FreshRSS cannot play: it keeps
//! subscriptions and items in memory, answers what tidings asks (login, token, the subscription list, items
//! newest first paged by continuation, the unread and starred ids, items by id, `edit-tag`, `subscription/edit`)
//! the way FreshRSS does, and misbehaves as a test sets it to ([`Mischief`]): the same continuation again and
//! again, new pages or ids for ever, unread ids of items it never lists, a status for a write, a login token of
//! any length. Every request is logged with its Authorization header. Threads, like `server::Server`.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) const PASSWORD: &str = "secret";
/// The ids of the unread items the stream never lists ([`Mischief::unknown_unread`]) start here.
const UNKNOWN_BASE: u64 = 1 << 40;

#[derive(Clone, Debug)]
pub(crate) struct Item {
    pub(crate) id: u64,
    pub(crate) stream: String,
    pub(crate) crawl_usec: i64,
    pub(crate) read: bool,
    pub(crate) starred: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Subscription {
    pub(crate) stream: String,
    pub(crate) url: String,
    pub(crate) title: String,
    pub(crate) label: Option<String>,
}

/// How the server misbehaves (nothing, by default).
#[derive(Clone, Debug, Default)]
pub(crate) struct Mischief {
    /// Every page of items says to go on with the same continuation (and is the first page again).
    pub(crate) repeat_continuation: bool,
    /// Every page of items is new items, with a new continuation: no end.
    pub(crate) endless_items: bool,
    /// Every page of ids is new ids, with a new continuation: no end.
    pub(crate) endless_ids: bool,
    /// The unread set also holds this many ids of items the stream never lists (asked by id, they come, in the
    /// first subscription).
    pub(crate) unknown_unread: u64,
    /// What `subscription/edit` answers, and `edit-tag`: a status instead of doing it.
    pub(crate) subscription_edit: Option<u16>,
    pub(crate) edit_tag: Option<u16>,
    /// The token a login gives; none: one of the server's own (`{name}-{user}-{n}`).
    pub(crate) token: Option<String>,
    /// Bytes of padding in every item's body (items of a megabyte each).
    pub(crate) item_padding: usize,
}

/// What the server holds.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) subscriptions: Vec<Subscription>,
    pub(crate) items: Vec<Item>,
    pub(crate) mischief: Mischief,
    /// Tokens given by a login, still good.
    tokens: HashSet<String>,
    next_new: u64,
}

impl State {
    /// Adds `count` items to `stream`, one a millisecond after `first_usec`, all unread; returns their ids.
    pub(crate) fn add_items(&mut self, stream: &str, count: usize, first_usec: i64) -> Vec<u64> {
        let base = self.items.iter().map(|i| i.id).max().unwrap_or(1_000_000) + 1;
        let ids: Vec<u64> = (0..count as u64).map(|i| base + i).collect();
        for (i, id) in ids.iter().enumerate() {
            let crawl_usec = first_usec + i as i64 * 1000;
            self.items.push(Item { id: *id, stream: stream.into(), crawl_usec, read: false, starred: false });
        }
        ids
    }

    pub(crate) fn subscribe(&mut self, stream: &str, url: &str, title: &str, label: Option<&str>) {
        self.subscriptions.push(Subscription {
            stream: stream.into(),
            url: url.into(),
            title: title.into(),
            label: label.map(str::to_string),
        });
    }
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) authorization: Option<String>,
}

pub(crate) struct GReader {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    log: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
}

impl GReader {
    /// A server called `name` (its tokens start with it), holding nothing yet.
    pub(crate) fn start(name: &str) -> GReader {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let state: Arc<Mutex<State>> = Arc::default();
        let log: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (s, l, halt, name) = (state.clone(), log.clone(), stop.clone(), name.to_string());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if halt.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (s, l, name) = (s.clone(), l.clone(), name.clone());
                std::thread::spawn(move || serve(stream, &name, &s, &l));
            }
        });
        GReader { addr, state, log, stop }
    }

    /// The API's address, as an account's `url`.
    pub(crate) fn url(&self) -> String {
        format!("http://{}/api/greader.php", self.addr)
    }

    /// A config with this server as the account `name`, logging in as `user`.
    pub(crate) fn config(&self, name: &str, user: &str) -> String {
        format!(
            "refresh_on_startup = false\n[[accounts]]\nname = \"{name}\"\nurl = \"{}\"\nuser = \"{user}\"\n\
             password = \"{PASSWORD}\"\n",
            self.url()
        )
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn requests(&self) -> Vec<Seen> {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Requests so far whose path contains `part`.
    pub(crate) fn asked(&self, part: &str) -> usize {
        self.requests().iter().filter(|r| r.path.contains(part)).count()
    }
}

impl Drop for GReader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(stream: TcpStream, name: &str, state: &Mutex<State>, log: &Mutex<Vec<Seen>>) {
    serve_requests(stream, log, |_, path, fields, authorization| {
        let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
        answer(&mut state, name, path, fields, authorization)
    });
}

/// A request as a handler gets it: the method, the path and query, the headers (names in lowercase), the body.
pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) headers: HashMap<String, String>,
    pub(crate) body: Vec<u8>,
}

impl Request {
    /// The path, without the query.
    pub(crate) fn path(&self) -> &str {
        self.target.split_once('?').map_or(&self.target, |(path, _)| path)
    }

    /// The query's fields, decoded.
    pub(crate) fn query(&self) -> Vec<(String, String)> {
        pairs(self.target.split_once('?').map_or("", |(_, query)| query))
    }
}

/// Serves HTTP/1.1 requests on one connection, kept alive, until it closes: each logged, then answered by
/// `handle` with the query's and the form body's fields, and the Authorization header.
pub(crate) fn serve_requests(
    stream: TcpStream,
    log: &Mutex<Vec<Seen>>,
    mut handle: impl FnMut(&str, &str, &[(String, String)], Option<&str>) -> (u16, Vec<u8>),
) {
    serve_raw(stream, log, |request| {
        let mut fields = request.query();
        fields.extend(form(&request.body));
        let authorization = request.headers.get("authorization").cloned();
        handle(&request.method, request.path(), &fields, authorization.as_deref())
    });
}

/// Serves HTTP/1.1 requests on one connection, kept alive, until it closes: each logged, then answered by
/// `handle` with the whole request.
pub(crate) fn serve_raw(stream: TcpStream, log: &Mutex<Vec<Seen>>, mut handle: impl FnMut(&Request) -> (u16, Vec<u8>)) {
    serve_with_headers(stream, log, |request| {
        let (status, body) = handle(request);
        (status, Vec::new(), body)
    });
}

/// [`serve_raw`], the answer with headers of its own (`Retry-After`…).
pub(crate) fn serve_with_headers(
    stream: TcpStream,
    log: &Mutex<Vec<Seen>>,
    mut handle: impl FnMut(&Request) -> (u16, Vec<(&'static str, String)>, Vec<u8>),
) {
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream.try_clone().expect("clone the stream"));
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("/").to_string());
        let mut close = parts.next() == Some("HTTP/1.0");
        let mut headers = HashMap::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((k, v)) = header.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        close |= headers.get("connection").is_some_and(|c| c.eq_ignore_ascii_case("close"));
        let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        log.lock().unwrap_or_else(|e| e.into_inner()).push(Seen {
            method: method.clone(),
            path: target.clone(),
            authorization: headers.get("authorization").cloned(),
        });
        let (status, extra, answer) = handle(&Request { method, target, headers, body });
        let extra: String = extra.iter().map(|(name, value)| format!("{name}: {value}\r\n")).collect();
        let head = format!(
            "HTTP/1.1 {status} Status\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n",
            answer.len()
        );
        if writer.write_all(head.as_bytes()).and_then(|()| writer.write_all(&answer)).is_err() || close {
            // An HTTP/1.0 client (or one that asked) reads the answer to the connection's end.
            return;
        }
    }
}

/// A form body's fields, decoded.
pub(crate) fn form(body: &[u8]) -> Vec<(String, String)> {
    pairs(&String::from_utf8_lossy(body))
}

/// `a=1&b=2`, decoded.
fn pairs(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn long_id(id: u64) -> String {
    format!("tag:google.com,2005:reader/item/{id:016x}")
}

fn item_json(item: &Item, padding: usize) -> serde_json::Value {
    let mut categories = vec!["user/-/state/com.google/reading-list".to_string()];
    if item.read {
        categories.push("user/-/state/com.google/read".into());
    }
    if item.starred {
        categories.push("user/-/state/com.google/starred".into());
    }
    serde_json::json!({
        "id": long_id(item.id),
        "crawlTimeMsec": (item.crawl_usec / 1000).to_string(),
        "timestampUsec": item.crawl_usec.to_string(),
        "published": item.crawl_usec / 1_000_000,
        "title": format!("Item {}", item.id),
        "canonical": [{"href": format!("http://example.com/{}", item.id)}],
        "categories": categories,
        "origin": {"streamId": item.stream},
        "summary": {"content": format!("<p>Body of item {}</p>{}", item.id, "x".repeat(padding))},
    })
}

/// A page of `list` after the item `continuation` names (from the first without one), and the continuation for
/// the next page, when there is one.
fn page<T: Clone>(
    list: &[T],
    id_of: impl Fn(&T) -> u64,
    n: usize,
    continuation: Option<&str>,
) -> (Vec<T>, Option<String>) {
    let start = continuation
        .and_then(|c| c.parse::<u64>().ok())
        .and_then(|c| list.iter().position(|x| id_of(x) == c))
        .map_or(0, |p| p + 1);
    let page: Vec<T> = list.iter().skip(start).take(n).cloned().collect();
    let more = start + page.len() < list.len();
    let next = page.last().filter(|_| more).map(|x| id_of(x).to_string());
    (page, next)
}

fn answer(
    state: &mut State,
    name: &str,
    path: &str,
    fields: &[(String, String)],
    auth: Option<&str>,
) -> (u16, Vec<u8>) {
    let json = |v: serde_json::Value| (200, v.to_string().into_bytes());
    if path.ends_with("/accounts/ClientLogin") {
        if field(fields, "Passwd") != Some(PASSWORD) {
            return (401, b"Error=BadAuthentication\n".to_vec());
        }
        let user = field(fields, "Email").unwrap_or("");
        let token = state.mischief.token.clone().unwrap_or_else(|| format!("{name}-{user}-{}", state.tokens.len() + 1));
        state.tokens.insert(token.clone());
        return (200, format!("SID={token}\nLSID=null\nAuth={token}\n").into_bytes());
    }
    let Some(call) = path.split_once("/reader/api/0/").map(|(_, call)| call) else {
        return (404, b"no such page".to_vec());
    };
    let given = auth.and_then(|a| a.strip_prefix("GoogleLogin auth="));
    if !given.is_some_and(|t| state.tokens.contains(t)) {
        return (401, b"Unauthorized!".to_vec());
    }
    let n: usize = field(fields, "n").and_then(|n| n.parse().ok()).unwrap_or(20);
    let continuation = field(fields, "c");
    let padding = state.mischief.item_padding;
    match call {
        "token" => (200, format!("{name}-action-token\n").into_bytes()),
        "subscription/list" => json(serde_json::json!({
            "subscriptions": state.subscriptions.iter().map(|s| serde_json::json!({
                "id": s.stream, "title": s.title, "url": s.url, "htmlUrl": s.url,
                "categories": s.label.iter().map(|l| serde_json::json!({"id": format!("user/-/label/{l}"), "label": l})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>()
        })),
        c if c.starts_with("stream/contents/") => {
            if state.mischief.endless_items {
                let stream = state.subscriptions.first().map_or("feed/1".to_string(), |s| s.stream.clone());
                state.next_new += 1;
                let first = UNKNOWN_BASE * 2 + state.next_new * n as u64;
                let items: Vec<Item> = (0..n as u64)
                    .map(|i| Item {
                        id: first + i,
                        stream: stream.clone(),
                        crawl_usec: 1_750_000_000_000_000 - (first + i) as i64,
                        read: false,
                        starred: false,
                    })
                    .collect();
                return json(
                    serde_json::json!({"items": items.iter().map(|i| item_json(i, padding)).collect::<Vec<_>>(), "continuation": first.to_string()}),
                );
            }
            let since_usec = field(fields, "ot").and_then(|t| t.parse::<i64>().ok()).unwrap_or(0) * 1_000_000;
            let mut list: Vec<Item> = state.items.iter().filter(|i| i.crawl_usec >= since_usec).cloned().collect();
            list.sort_by_key(|i| std::cmp::Reverse((i.crawl_usec, i.id)));
            let (items, mut next) =
                page(&list, |i| i.id, n, if state.mischief.repeat_continuation { None } else { continuation });
            if state.mischief.repeat_continuation {
                next = Some("again".into());
            }
            let mut answer =
                serde_json::json!({"items": items.iter().map(|i| item_json(i, padding)).collect::<Vec<_>>()});
            if let Some(next) = next {
                answer["continuation"] = next.into();
            }
            json(answer)
        }
        "stream/items/ids" => {
            if state.mischief.endless_ids {
                state.next_new += 1;
                let first = UNKNOWN_BASE * 4 + state.next_new * n as u64;
                let refs: Vec<serde_json::Value> =
                    (first..first + n as u64).map(|id| serde_json::json!({"id": id.to_string()})).collect();
                return json(serde_json::json!({"itemRefs": refs, "continuation": first.to_string()}));
            }
            let starred = field(fields, "s") == Some("user/-/state/com.google/starred");
            let mut own: Vec<u64> =
                state.items.iter().filter(|i| if starred { i.starred } else { !i.read }).map(|i| i.id).collect();
            own.sort_unstable_by(|a, b| b.cmp(a));
            // Newest first: the unknown ids (above every item's own) first, in order already (a million of them
            // are not sorted again at every page).
            let unknown = if starred { 0 } else { state.mischief.unknown_unread };
            let mut ids: Vec<u64> = (UNKNOWN_BASE..UNKNOWN_BASE + unknown).rev().collect();
            ids.extend(own);
            let (ids, next) = page(&ids, |id| *id, n, continuation);
            let mut answer = serde_json::json!({"itemRefs": ids.iter().map(|id| serde_json::json!({"id": id.to_string()})).collect::<Vec<_>>()});
            if let Some(next) = next {
                answer["continuation"] = next.into();
            }
            json(answer)
        }
        "stream/items/contents" => {
            let stream = state.subscriptions.first().map_or("feed/1".to_string(), |s| s.stream.clone());
            let items: Vec<serde_json::Value> = fields
                .iter()
                .filter(|(k, _)| k == "i")
                .filter_map(|(_, v)| u64::from_str_radix(v.rsplit('/').next()?, 16).ok())
                .filter_map(|id| match state.items.iter().find(|i| i.id == id) {
                    Some(item) => Some(item_json(item, padding)),
                    None if (UNKNOWN_BASE..UNKNOWN_BASE + state.mischief.unknown_unread).contains(&id) => {
                        Some(item_json(
                            &Item {
                                id,
                                stream: stream.clone(),
                                crawl_usec: 1_700_000_000_000_000,
                                read: false,
                                starred: false,
                            },
                            padding,
                        ))
                    }
                    None => None,
                })
                .collect();
            json(serde_json::json!({"items": items}))
        }
        "edit-tag" => {
            if let Some(status) = state.mischief.edit_tag {
                return (status, b"not now".to_vec());
            }
            let ids: Vec<u64> = fields
                .iter()
                .filter(|(k, _)| k == "i")
                .filter_map(|(_, v)| u64::from_str_radix(v.rsplit('/').next()?, 16).ok())
                .collect();
            for (op, on) in [("a", true), ("r", false)] {
                let Some(tag) = field(fields, op) else { continue };
                for item in state.items.iter_mut().filter(|i| ids.contains(&i.id)) {
                    if tag.ends_with("/read") {
                        item.read = on;
                    } else if tag.ends_with("/starred") {
                        item.starred = on;
                    }
                }
            }
            (200, b"OK".to_vec())
        }
        "subscription/edit" => {
            if let Some(status) = state.mischief.subscription_edit {
                return (status, b"not now".to_vec());
            }
            let stream = field(fields, "s").unwrap_or("").to_string();
            match field(fields, "ac") {
                Some("subscribe") => {
                    let url = stream.strip_prefix("feed/").unwrap_or(&stream).to_string();
                    let id = format!("feed/{}", state.subscriptions.len() + 100);
                    let title = field(fields, "t").unwrap_or(&url).to_string();
                    let label = field(fields, "a").and_then(|a| a.strip_prefix("user/-/label/"));
                    state.subscribe(&id, &url, &title, label);
                }
                Some("unsubscribe") => state.subscriptions.retain(|s| s.stream != stream),
                _ => {}
            }
            (200, b"OK".to_vec())
        }
        _ => (404, b"no such call".to_vec()),
    }
}
