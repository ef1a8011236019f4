//! A real FreshRSS for the sync tests: the kit next to the repository (`../shared/servers/freshrss`, or
//! `$TIDINGS_FRESHRSS`) set up in a temporary folder and served by PHP's built-in web server on 127.0.0.1 — one
//! per test, on a port of its own. Where PHP or the kit is missing, [`FreshRss::start`] says why and the test
//! says it skipped (on the terminal, past the test harness's capture), never a silent pass.
//!
//! [`Api`] plays the other device (a phone): it talks to the same server through the Google Reader API.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const USER: &str = "alice";
pub(crate) const PASSWORD: &str = "alice-api-pass";

/// The kit's script.
fn kit() -> Result<PathBuf, String> {
    let script = match std::env::var_os("TIDINGS_FRESHRSS") {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/servers/freshrss/freshrss"),
    };
    if !script.is_file() {
        return Err(format!("no FreshRSS kit at {} (set TIDINGS_FRESHRSS)", script.display()));
    }
    let check =
        Command::new("bash").arg(&script).arg("check").output().map_err(|e| format!("cannot run the kit: {e}"))?;
    if !check.status.success() {
        return Err(String::from_utf8_lossy(&check.stderr).trim().to_string());
    }
    Ok(script)
}

/// Says that a test skipped for want of FreshRSS, and why; fails it where every kit is required (see
/// [`super::skip`]).
pub(crate) fn skipped(test: &str, why: &str) {
    super::skip(test, &format!("no FreshRSS here: {why}"));
}

/// A FreshRSS server; stopped when dropped.
pub(crate) struct FreshRss {
    script: PathBuf,
    dir: tempfile::TempDir,
    pub(crate) port: u16,
    child: Option<Child>,
}

impl FreshRss {
    /// A new FreshRSS (user alice, API password alice-api-pass), serving; or why there can be none here.
    pub(crate) fn start() -> Result<FreshRss, String> {
        let script = kit()?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let root = dir.path().join("freshrss");
        let setup = Command::new("bash")
            .arg(&script)
            .arg("setup")
            .arg(&root)
            .output()
            .map_err(|e| format!("cannot run the kit: {e}"))?;
        if !setup.status.success() {
            return Err(format!("setup failed: {}", String::from_utf8_lossy(&setup.stderr)));
        }
        let port =
            std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
        let mut server = FreshRss { script, dir, port, child: None };
        server.serve();
        Ok(server)
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("freshrss")
    }

    /// Serves (again) on the same port; returns once it answers.
    pub(crate) fn serve(&mut self) {
        let child = Command::new("bash")
            .arg(&self.script)
            .arg("serve")
            .arg(self.root())
            .arg(self.port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start FreshRSS");
        self.child = Some(child);
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(20), "FreshRSS did not start");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Stops serving (the data stays).
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_ok() && started.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The Google Reader API's address.
    pub(crate) fn api_url(&self) -> String {
        format!("http://127.0.0.1:{}/api/greader.php", self.port)
    }

    /// A config with this server as the account `FreshRSS`.
    pub(crate) fn config(&self, password: &str) -> String {
        format!(
            "refresh_on_startup = false\n[[accounts]]\nname = \"FreshRSS\"\nkind = \"greader\"\nurl = \"{}\"\n\
             user = \"{USER}\"\npassword = \"{password}\"\n",
            self.api_url()
        )
    }

    /// Requests the server answered so far (its own log).
    pub(crate) fn requests(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.root().join("data/server.log")).unwrap_or_default();
        log.lines().filter(|l| l.contains("]: GET ") || l.contains("]: POST ")).map(str::to_string).collect()
    }

    /// FreshRSS forgets items, as its own cleaning does (straight in its database).
    pub(crate) fn forget(&self, ids: &[String]) {
        let conn = rusqlite::Connection::open(self.root().join(format!("data/users/{USER}/db.sqlite"))).unwrap();
        for id in ids {
            conn.execute("DELETE FROM entry WHERE id = ?1", [id.parse::<i64>().unwrap()]).unwrap();
        }
    }

    /// FreshRSS fetches its feeds now.
    pub(crate) fn fetch_feeds(&self) {
        let out = Command::new("bash").arg(&self.script).arg("refresh").arg(self.root()).output().expect("refresh");
        assert!(
            out.status.success() || String::from_utf8_lossy(&out.stderr).contains("actualized"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// FreshRSS fetches its feeds until it has fetched `path` of `feeds_server` once more (it leaves a feed alone
    /// for a second after fetching it).
    pub(crate) fn fetched_again(&self, feeds_server: &super::server::Server, path: &str) {
        let before = feeds_server.requests_for(path).len();
        let started = Instant::now();
        while feeds_server.requests_for(path).len() == before {
            assert!(started.elapsed() < Duration::from_secs(30), "FreshRSS did not fetch {path} again");
            self.fetch_feeds();
        }
    }

    /// The other device.
    pub(crate) fn api(&self) -> Api {
        let mut api = Api { port: self.port, auth: String::new(), token: String::new() };
        let (_, body) =
            api.request("POST", "/api/greader.php/accounts/ClientLogin", &[("Email", USER), ("Passwd", PASSWORD)]);
        api.auth = body.lines().find_map(|l| l.strip_prefix("Auth=")).expect("a login").to_string();
        api.token = api.get("/reader/api/0/token").trim().to_string();
        api
    }
}

impl Drop for FreshRss {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A client of the API, as another device would be.
pub(crate) struct Api {
    port: u16,
    auth: String,
    token: String,
}

pub(crate) fn form_encode(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            let enc = |s: &str| {
                s.bytes()
                    .map(|b| match b {
                        b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
                        _ => format!("%{b:02X}"),
                    })
                    .collect::<String>()
            };
            format!("{}={}", enc(k), enc(v))
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// One request with a form over plain HTTP/1.0 to the server on `port`, as another device makes it, with
/// `headers` (each ending in CRLF) beside the form's: its status and body.
pub(crate) fn form_request(port: u16, method: &str, path: &str, headers: &str, form: &[(&str, &str)]) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the server");
    let body = form_encode(form);
    let request = format!(
        "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n{headers}Content-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("read");
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, body.to_string())
}

impl Api {
    fn request(&self, method: &str, path: &str, form: &[(&str, &str)]) -> (u16, String) {
        let auth = if self.auth.is_empty() {
            String::new()
        } else {
            format!("Authorization: GoogleLogin auth={}\r\n", self.auth)
        };
        form_request(self.port, method, path, &auth, form)
    }

    pub(crate) fn get(&self, path: &str) -> String {
        let (status, body) = self.request("GET", &format!("/api/greader.php{path}"), &[]);
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    pub(crate) fn post(&self, path: &str, form: &[(&str, &str)]) -> String {
        let mut form = form.to_vec();
        form.push(("T", &self.token));
        let (status, body) = self.request("POST", &format!("/api/greader.php{path}"), &form);
        assert_eq!(status, 200, "POST {path}: {body}");
        body
    }

    /// Subscribes to `url` in the label `label` (FreshRSS fetches it at once).
    pub(crate) fn subscribe(&self, url: &str, label: Option<&str>) {
        let url = format!("feed/{url}");
        let label = label.map(|l| format!("user/-/label/{l}"));
        let mut form = vec![("ac", "subscribe"), ("s", url.as_str())];
        if let Some(l) = &label {
            form.push(("a", l));
        }
        assert_eq!(self.post("/reader/api/0/subscription/edit", &form).trim(), "OK");
    }

    /// The subscriptions, as (stream id, title, url, label).
    pub(crate) fn subscriptions(&self) -> Vec<(String, String, String, Option<String>)> {
        let answer: serde_json::Value =
            serde_json::from_str(&self.get("/reader/api/0/subscription/list?output=json")).unwrap();
        answer["subscriptions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["id"].as_str().unwrap().to_string(),
                    s["title"].as_str().unwrap_or("").to_string(),
                    s["url"].as_str().unwrap_or("").to_string(),
                    s["categories"][0]["label"].as_str().map(str::to_string),
                )
            })
            .collect()
    }

    /// The ids (decimal) of a set: `unread`, `starred` or `all`.
    pub(crate) fn ids(&self, set: &str) -> std::collections::BTreeSet<String> {
        let query = match set {
            "unread" => "s=user/-/state/com.google/reading-list&xt=user/-/state/com.google/read",
            "starred" => "s=user/-/state/com.google/starred",
            _ => "s=user/-/state/com.google/reading-list",
        };
        let answer: serde_json::Value =
            serde_json::from_str(&self.get(&format!("/reader/api/0/stream/items/ids?n=100000&{query}"))).unwrap();
        answer["itemRefs"]
            .as_array()
            .map(|refs| refs.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    }

    /// Marks items (decimal ids) read or starred, or the opposite.
    pub(crate) fn mark(&self, ids: &[String], state: &str, on: bool) {
        let long: Vec<String> =
            ids.iter().map(|i| format!("tag:google.com,2005:reader/item/{:016x}", i.parse::<u64>().unwrap())).collect();
        let tag = format!("user/-/state/com.google/{state}");
        let mut form: Vec<(&str, &str)> = long.iter().map(|i| ("i", i.as_str())).collect();
        form.push((if on { "a" } else { "r" }, &tag));
        assert_eq!(self.post("/reader/api/0/edit-tag", &form).trim(), "OK");
    }
}

/// A way in to the server that goes down after a chosen request: every connection after the first request whose
/// line contains `after` is closed unanswered, as a server that stopped would leave it. The server itself keeps
/// its data; [`Cutoff::reopen`] lets requests through again.
pub(crate) struct Cutoff {
    pub(crate) port: u16,
    down: std::sync::Arc<std::sync::atomic::AtomicBool>,
    armed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Cutoff {
    pub(crate) fn new(server: &FreshRss, after: &'static str) -> Cutoff {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the cutoff");
        let port = listener.local_addr().unwrap().port();
        let down = Arc::new(AtomicBool::new(false));
        let armed = Arc::new(AtomicBool::new(true));
        let (target, flag, trigger) = (server.port, down.clone(), armed.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(mut client) = client else { continue };
                let (flag, trigger) = (flag.clone(), trigger.clone());
                std::thread::spawn(move || {
                    // The request's head (and what came with it) first, to see which request it is.
                    let mut head = Vec::new();
                    let mut buf = [0u8; 8192];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match client.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    if flag.load(Ordering::SeqCst) {
                        return; // closed unanswered
                    }
                    let line = String::from_utf8_lossy(&head).lines().next().unwrap_or("").to_string();
                    let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", target)) else { return };
                    if upstream.write_all(&head).is_err() {
                        return;
                    }
                    let (mut from_client, mut to_upstream) =
                        (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from_client, &mut to_upstream);
                    });
                    let _ = std::io::copy(&mut upstream, &mut client);
                    // One request per connection, as the server itself does: closed for both directions.
                    let _ = client.shutdown(std::net::Shutdown::Both);
                    let _ = upstream.shutdown(std::net::Shutdown::Both);
                    if line.contains(after) && trigger.load(Ordering::SeqCst) {
                        flag.store(true, Ordering::SeqCst);
                    }
                });
            }
        });
        Cutoff { port, down, armed }
    }

    /// Lets every request through from now on.
    pub(crate) fn reopen(&self) {
        self.armed.store(false, std::sync::atomic::Ordering::SeqCst);
        self.down.store(false, std::sync::atomic::Ordering::SeqCst);
    }

    /// A config whose account goes through this cutoff.
    pub(crate) fn config(&self, server: &FreshRss) -> String {
        server.config(PASSWORD).replace(&format!("127.0.0.1:{}", server.port), &format!("127.0.0.1:{}", self.port))
    }
}

impl Api {
    /// Imports an OPML document (FreshRSS fetches what it lists).
    pub(crate) fn import(&self, opml: &str) {
        let (status, body) = self.raw_post("/api/greader.php/reader/api/0/subscription/import", opml.as_bytes());
        assert_eq!(status, 200, "import: {body}");
    }

    fn raw_post(&self, path: &str, body: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to FreshRSS");
        let head = format!(
            "POST {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: GoogleLogin auth={}\r\n\
             Content-Type: text/xml\r\nContent-Length: {}\r\n\r\n",
            self.auth,
            body.len()
        );
        stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body)).expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("read");
        let text = String::from_utf8_lossy(&answer).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        (head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0), body.to_string())
    }

    /// What a plain paged client does: log in, every item 1000 at a time, then the unread and starred ids.
    /// Returns how many items it got.
    pub(crate) fn plain_pull(&self) -> usize {
        let fresh = Api { port: self.port, auth: String::new(), token: String::new() };
        let (_, body) =
            fresh.request("POST", "/api/greader.php/accounts/ClientLogin", &[("Email", USER), ("Passwd", PASSWORD)]);
        let auth = body.lines().find_map(|l| l.strip_prefix("Auth=")).expect("a login").to_string();
        let client = Api { port: self.port, auth, token: String::new() };
        let mut items = 0;
        let mut continuation = String::new();
        loop {
            let path = format!(
                "/reader/api/0/stream/contents/user/-/state/com.google/reading-list?n=1000{}",
                if continuation.is_empty() { String::new() } else { format!("&c={continuation}") }
            );
            let page: serde_json::Value = serde_json::from_str(&client.get(&path)).unwrap();
            items += page["items"].as_array().map_or(0, Vec::len);
            match page["continuation"].as_str() {
                Some(c) if !c.is_empty() => continuation = c.to_string(),
                _ => break,
            }
        }
        let _ = client.ids("unread");
        let _ = client.ids("starred");
        items
    }
}

/// What [`fill`] put on a FreshRSS: every item's id, and those marked read and starred.
pub(crate) struct Filled {
    pub(crate) all: Vec<String>,
    pub(crate) read: Vec<String>,
    pub(crate) starred: Vec<String>,
}

/// Feed `f` of [`fill`]'s farm with its first `items` items (serve more to have FreshRSS find new ones).
pub(crate) fn farm_feed(f: usize, items: usize) -> String {
    let entries: Vec<(String, String, String)> = (0..items)
        .map(|i| (format!("f{f}-{i}"), format!("Feed {f} item {i}"), format!("<p>Body of item {i} of feed {f}.</p>")))
        .collect();
    let refs: Vec<(&str, &str, &str)> = entries.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    super::rss(&format!("Feed {f}"), &refs)
}

/// The labels [`fill`] spreads feeds over (one of them nested).
pub(crate) const LABELS: [&str; 3] = ["News", "Tech/Rust", "Blogs"];

/// Fills `freshrss` with `feeds` × `items` served by `server` in three labels, as the sync benchmarks use it:
/// FreshRSS fetches them all, then a third of the items is marked read and one in fifty starred.
pub(crate) fn fill(freshrss: &FreshRss, server: &super::server::Server, feeds: usize, items: usize) -> Filled {
    let mut outlines = String::new();
    for f in 0..feeds {
        let path = format!("/f{f}.xml");
        server.route(&path, super::server::Reply::ok("application/rss+xml", farm_feed(f, items)));
        outlines.push_str(&format!(
            "<outline text=\"{}\"><outline type=\"rss\" text=\"Feed {f}\" xmlUrl=\"{}\"/></outline>\n",
            LABELS[f % LABELS.len()],
            server.url(&path)
        ));
    }
    let opml = format!(
        "<?xml version=\"1.0\"?><opml version=\"2.0\"><head><title>b</title></head><body>{outlines}</body></opml>"
    );
    let api = freshrss.api();
    api.import(&opml);
    freshrss.fetch_feeds();
    let all: Vec<String> = api.ids("all").into_iter().collect();
    let read: Vec<String> = all.iter().step_by(3).cloned().collect();
    for chunk in read.chunks(500) {
        api.mark(chunk, "read", true);
    }
    let starred: Vec<String> = all.iter().step_by(50).cloned().collect();
    api.mark(&starred, "starred", true);
    Filled { all, read, starred }
}

/// Feeds served to FreshRSS: `(path, title, items)`, each item `{name} item {i}`.
pub(crate) fn feeds(server: &super::server::Server, specs: &[(&str, &str, usize)]) {
    for (path, title, items) in specs {
        let entries: Vec<(String, String, String)> = (0..*items)
            .map(|i| (format!("{title}-{i}"), format!("{title} item {i}"), format!("<p>{title} body {i}</p>")))
            .collect();
        let refs: Vec<(&str, &str, &str)> =
            entries.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
        server.route(path, super::server::Reply::ok("application/rss+xml", super::rss(title, &refs)));
    }
}

/// A FreshRSS with three feeds in two labels (one nested), 5 + 4 + 3 items, two read and one starred there.
pub(crate) fn populated(freshrss: &FreshRss, feeds_server: &super::server::Server) -> Api {
    feeds(feeds_server, &[("/a.xml", "Alpha", 5), ("/b.xml", "Beta", 4), ("/c.xml", "Gamma", 3)]);
    let api = freshrss.api();
    api.subscribe(&feeds_server.url("/a.xml"), Some("News"));
    api.subscribe(&feeds_server.url("/b.xml"), Some("News/Tech"));
    api.subscribe(&feeds_server.url("/c.xml"), None);
    freshrss.fetch_feeds();
    let all: Vec<String> = api.ids("all").into_iter().collect();
    assert_eq!(all.len(), 12, "FreshRSS fetched every item");
    api.mark(&all[..2], "read", true);
    api.mark(&all[2..3], "starred", true);
    api
}
