//! A file server on 127.0.0.1 for the download tests: files with an ETag, `Range` and `If-Range` honoured (or
//! ignored, on demand), a connection cut part-way once, a file that changes between two tries, a pace for the
//! body, and what a test needs to check: the body bytes sent in all, each request's range headers, and the most
//! answers that were being sent at once. Threads, one connection per answer (`Connection: close`).
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One file the server has.
#[derive(Clone, Debug)]
pub(crate) struct File {
    pub(crate) body: Arc<Vec<u8>>,
    pub(crate) etag: String,
    pub(crate) content_type: String,
}

/// What a request asked for, as the server saw it.
#[derive(Clone, Debug)]
pub(crate) struct Asked {
    pub(crate) path: String,
    pub(crate) range: Option<String>,
    pub(crate) if_range: Option<String>,
    /// The status of the answer.
    pub(crate) status: u16,
}

#[derive(Default)]
struct Shared {
    files: Mutex<HashMap<String, File>>,
    /// Documents served whole (feeds).
    pages: Mutex<HashMap<String, (String, Vec<u8>)>>,
    /// Cut the next answer for this path after this many body bytes, then serve this version of it instead.
    cut_once: Mutex<HashMap<String, (u64, Option<File>)>>,
    ignore_range: std::sync::atomic::AtomicBool,
    /// Pause after each piece of a body (so answers overlap, or a test can catch one mid-file).
    pace: Mutex<Option<(usize, Duration)>>,
    sent: AtomicU64,
    now: AtomicUsize,
    most: AtomicUsize,
    log: Mutex<Vec<Asked>>,
    huge: Mutex<HashMap<String, u64>>,
    /// Files whose answer says `Content-Encoding: gzip` (their bytes are sent as they are).
    gzipped: Mutex<Vec<String>>,
}

pub(crate) struct FileServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl FileServer {
    pub(crate) fn start() -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared::default());
        let serving = shared.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = serving.clone();
                std::thread::spawn(move || {
                    let _ = answer(stream, &shared);
                });
            }
        });
        FileServer { addr, shared }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Serves `body` at `path` with this ETag.
    pub(crate) fn file(&self, path: &str, body: Vec<u8>, etag: &str) {
        let file = File { body: Arc::new(body), etag: format!("\"{etag}\""), content_type: "audio/mpeg".into() };
        self.shared.files.lock().unwrap().insert(path.into(), file);
    }

    /// Answers for the file at `path` say `Content-Encoding: gzip`, as some servers say of a `.gz` file.
    pub(crate) fn gzipped(&self, path: &str) {
        self.shared.gzipped.lock().unwrap().push(path.to_string());
    }

    /// Serves a document whole at `path` (a feed).
    pub(crate) fn page(&self, path: &str, content_type: &str, body: impl Into<Vec<u8>>) {
        self.shared.pages.lock().unwrap().insert(path.into(), (content_type.into(), body.into()));
    }

    /// The next answer for `path` stops after `after` body bytes and the connection closes; with `then`, the
    /// file is that one from the next request on (a new version, a new ETag).
    pub(crate) fn cut_once(&self, path: &str, after: u64, then: Option<(Vec<u8>, &str)>) {
        let then = then.map(|(body, etag)| File {
            body: Arc::new(body),
            etag: format!("\"{etag}\""),
            content_type: "audio/mpeg".into(),
        });
        self.shared.cut_once.lock().unwrap().insert(path.into(), (after, then));
    }

    /// Answers every request with the whole file (200), whatever range it asks for.
    pub(crate) fn ignore_range(&self) {
        self.shared.ignore_range.store(true, Ordering::SeqCst);
    }

    /// Sends bodies `piece` bytes at a time, pausing `pause` after each.
    pub(crate) fn pace(&self, piece: usize, pause: Duration) {
        *self.shared.pace.lock().unwrap() = Some((piece, pause));
    }

    /// Sends bodies as fast as it can again.
    pub(crate) fn no_pace(&self) {
        *self.shared.pace.lock().unwrap() = None;
    }

    /// Answers `path` with a head that announces `announced` bytes, and no body.
    pub(crate) fn huge(&self, path: &str, announced: u64) {
        self.shared.huge.lock().unwrap().insert(path.into(), announced);
    }

    /// Body bytes of files sent in all.
    pub(crate) fn sent(&self) -> u64 {
        self.shared.sent.load(Ordering::SeqCst)
    }

    /// The most file answers that were being sent at the same time.
    pub(crate) fn most_at_once(&self) -> usize {
        self.shared.most.load(Ordering::SeqCst)
    }

    /// The requests for files, in order.
    pub(crate) fn asked(&self) -> Vec<Asked> {
        self.shared.log.lock().unwrap().clone()
    }
}

/// Counts an answer being sent while it lives.
struct Sending<'a>(&'a Shared);

impl<'a> Sending<'a> {
    fn new(shared: &'a Shared) -> Sending<'a> {
        let now = shared.now.fetch_add(1, Ordering::SeqCst) + 1;
        shared.most.fetch_max(now, Ordering::SeqCst);
        Sending(shared)
    }
}

impl Drop for Sending<'_> {
    fn drop(&mut self) {
        self.0.now.fetch_sub(1, Ordering::SeqCst);
    }
}

fn answer(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut first = String::new();
    reader.read_line(&mut first)?;
    let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
    }
    let mut out = stream;
    if let Some((content_type, body)) = shared.pages.lock().unwrap().get(&path).cloned() {
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        out.write_all(head.as_bytes())?;
        return out.write_all(&body);
    }
    if let Some(announced) = shared.huge.lock().unwrap().get(&path).copied() {
        shared.log.lock().unwrap().push(Asked { path, range: None, if_range: None, status: 200 });
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nETag: \"huge\"\r\nContent-Length: {announced}\r\nConnection: close\r\n\r\n"
        );
        return out.write_all(head.as_bytes());
    }
    let Some(file) = shared.files.lock().unwrap().get(&path).cloned() else {
        return out.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    };
    let range = headers.get("range").cloned();
    let if_range = headers.get("if-range").cloned();
    let total = file.body.len() as u64;
    // A range is honoured when asked for, not ignored on purpose, and the file is still the one named.
    let start = range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|_| !shared.ignore_range.load(Ordering::SeqCst))
        .filter(|_| if_range.as_deref().is_none_or(|v| v == file.etag));
    let status = match start {
        Some(start) if start >= total => 416,
        Some(_) => 206,
        None => 200,
    };
    shared.log.lock().unwrap().push(Asked { path: path.clone(), range, if_range, status });
    if status == 416 {
        let head = format!(
            "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{total}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        return out.write_all(head.as_bytes());
    }
    let from = start.unwrap_or(0);
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {}\r\nETag: {}\r\nAccept-Ranges: bytes\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        if status == 206 { "Partial Content" } else { "OK" },
        file.content_type,
        file.etag,
        total - from
    );
    if status == 206 {
        head.push_str(&format!("Content-Range: bytes {from}-{}/{total}\r\n", total - 1));
    }
    if shared.gzipped.lock().unwrap().contains(&path) {
        head.push_str("Content-Encoding: gzip\r\n");
    }
    head.push_str("\r\n");
    // Counted until the last piece goes: a client cannot have finished an answer whose last piece is still
    // here, so the count is never more than the client really has open.
    let mut sending = Some(Sending::new(shared));
    out.write_all(head.as_bytes())?;
    let cut = shared.cut_once.lock().unwrap().remove(&path);
    let end = match &cut {
        Some((after, _)) => (from + after).min(total),
        None => total,
    };
    let pace = *shared.pace.lock().unwrap();
    let piece = pace.map_or(64 * 1024, |(piece, _)| piece.max(1));
    let mut at = from as usize;
    while at < end as usize {
        let upto = (at + piece).min(end as usize);
        if upto == end as usize {
            sending.take();
        }
        if out.write_all(&file.body[at..upto]).is_err() {
            return Ok(());
        }
        shared.sent.fetch_add((upto - at) as u64, Ordering::SeqCst);
        at = upto;
        if let Some((_, pause)) = pace.filter(|_| at < end as usize) {
            std::thread::sleep(pause);
        }
    }
    out.flush()?;
    if let Some((_, then)) = cut {
        if let Some(then) = then {
            shared.files.lock().unwrap().insert(path, then);
        }
        // Closed with the body short of its Content-Length: the client sees the connection break.
        let _ = out.shutdown(std::net::Shutdown::Both);
    }
    Ok(())
}
