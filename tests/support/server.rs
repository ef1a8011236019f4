//! A small HTTP/1.1 server on 127.0.0.1 for tests and benchmarks: fixed routes, conditional GET, keep-alive,
//! a request log, and the misbehaviours real servers show (slow answers, resets, truncated or endless bodies).
//! Threads, not async, so it runs the same under any test harness.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server does for a path.
#[derive(Clone, Debug)]
pub(crate) enum Reply {
    /// A normal response. With an `ETag` header, a matching `If-None-Match` gets 304.
    Ok { status: u16, headers: Vec<(String, String)>, body: Vec<u8> },
    /// Waits, then sends the inner reply.
    Delay(Duration, Box<Reply>),
    /// Closes the connection without answering.
    Reset,
    /// Sends headers announcing `announced` bytes, sends `body`, then closes.
    Truncated { announced: usize, body: Vec<u8> },
    /// Streams `total` bytes of filler with no Content-Length, in chunks.
    Endless { content_type: String, total: u64 },
    /// Holds the answer until the test opens the gate, then sends the inner reply.
    Held(Gate, Box<Reply>),
    /// Sends headers announcing `announced` bytes and the first of them, `body`; then sends nothing more until the
    /// test opens the gate, and closes.
    Stalled { announced: usize, body: Vec<u8>, gate: Gate },
}

/// A gate a test holds a reply behind: the server waits until the test opens it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Gate(Arc<(Mutex<bool>, std::sync::Condvar)>);

impl Gate {
    pub(crate) fn open(&self) {
        *self.0.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0.1.notify_all();
    }

    fn wait(&self) {
        let mut open = self.0.0.lock().unwrap_or_else(|e| e.into_inner());
        while !*open {
            open = self.0.1.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Reply {
    pub(crate) fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Ok { status: 200, headers: vec![("Content-Type".into(), content_type.into())], body: body.into() }
    }

    pub(crate) fn status(status: u16) -> Reply {
        Reply::Ok {
            status,
            headers: vec![("Content-Type".into(), "text/plain".into())],
            body: format!("status {status}").into(),
        }
    }

    pub(crate) fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Ok { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    pub(crate) path: String,
    pub(crate) headers: HashMap<String, String>,
    /// What came after the headers, as long as `Content-Length` said (a webhook's POST).
    pub(crate) body: Vec<u8>,
}

impl Request {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(&name.to_ascii_lowercase()).map(String::as_str)
    }
}

pub(crate) struct Server {
    addr: SocketAddr,
    routes: Arc<Mutex<HashMap<String, Reply>>>,
    log: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    connections: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
}

impl Server {
    pub(crate) fn start() -> Server {
        Server::start_with(false)
    }

    /// A server that answers one request per connection and never says so (no `Connection: close`): a second
    /// request on a connection, as a client reusing it from its pool sends one, is met with the connection
    /// closing before any byte of an answer. That is the race a client loses, every time, against a server that
    /// closes a kept-alive connection just after answering. Half of those closes are resets (RST), the others
    /// orderly (FIN), so both errors a client sees ("connection reset by peer", "connection closed before
    /// message completed") come up. Those requests are not in the log; [`Server::dropped`] counts them.
    pub(crate) fn start_closing_after_each_answer() -> Server {
        Server::start_with(true)
    }

    fn start_with(closing: bool) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let routes: Arc<Mutex<HashMap<String, Reply>>> = Arc::default();
        let log: Arc<Mutex<Vec<Request>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let connections = Arc::new(AtomicUsize::new(0));
        let dropped = Arc::new(AtomicUsize::new(0));
        let (r, l, s, c, d) = (routes.clone(), log.clone(), stop.clone(), connections.clone(), dropped.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let n = c.fetch_add(1, Ordering::Relaxed);
                let (r, l, d) = (r.clone(), l.clone(), d.clone());
                std::thread::spawn(move || {
                    if closing {
                        serve_one_then_close(stream, &r, &l, &d, n % 2 == 0);
                    } else {
                        serve_connection(stream, &r, &l);
                    }
                });
            }
        });
        Server { addr, routes, log, stop, connections, dropped }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub(crate) fn route(&self, path: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(path.to_string(), reply);
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// How many connections clients opened so far.
    pub(crate) fn connections(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }

    /// How many requests a closing server met by closing their connection (see
    /// [`Server::start_closing_after_each_answer`]).
    pub(crate) fn dropped(&self) -> usize {
        self.dropped.load(Ordering::Relaxed)
    }

    pub(crate) fn requests_for(&self, path: &str) -> Vec<Request> {
        self.requests().into_iter().filter(|r| r.path == path).collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve_connection(stream: TcpStream, routes: &Mutex<HashMap<String, Reply>>, log: &Mutex<Vec<Request>>) {
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream.try_clone().expect("clone the stream"));
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        log.lock().unwrap().push(request.clone());
        let reply = routes.lock().unwrap().get(&request.path).cloned().unwrap_or_else(|| Reply::status(404));
        if !send(&mut writer, &request, reply) {
            return;
        }
    }
}

/// Answers the first request of a connection, then meets the next one (if the client sends one) by closing:
/// with a reset when `reset`, else in order.
fn serve_one_then_close(
    stream: TcpStream,
    routes: &Mutex<HashMap<String, Reply>>,
    log: &Mutex<Vec<Request>>,
    dropped: &AtomicUsize,
    reset: bool,
) {
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream.try_clone().expect("clone the stream"));
    let mut writer = stream;
    let Some(request) = read_request(&mut reader) else { return };
    log.lock().unwrap().push(request.clone());
    let reply = routes.lock().unwrap().get(&request.path).cloned().unwrap_or_else(|| Reply::status(404));
    if !send(&mut writer, &request, reply) {
        return;
    }
    if read_request(&mut reader).is_some() {
        dropped.fetch_add(1, Ordering::Relaxed);
        if reset {
            // Closed (when both handles drop) with a reset, and no orderly shutdown first.
            set_linger_zero(&writer);
            return;
        }
    }
    let _ = writer.shutdown(Shutdown::Both);
}

/// Makes closing `stream` send a reset (RST) instead of an orderly close.
#[cfg(unix)]
fn set_linger_zero(stream: &TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: a valid socket we own, and a pointer to a linger struct of the size given.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}

#[cfg(not(unix))]
fn set_linger_zero(_stream: &TcpStream) {}

/// Reads one request's line and headers; `None` when the client closed the connection.
fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).ok()? == 0 {
        return None;
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
    }
    let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length.min(1 << 20)];
    reader.read_exact(&mut body).ok()?;
    Some(Request { path, headers, body })
}

/// Writes one reply; false when the connection must close.
/// What a [`Reply::Ok`] sends to `request`: a 304 without a body or a type when the request names the reply's
/// ETag (or, when it has none, its Last-Modified).
fn conditional(
    request: &Request,
    status: u16,
    mut headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let etag = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("etag")).map(|(_, v)| v.clone());
    let last_modified = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("last-modified")).map(|(_, v)| v.clone());
    let not_modified = status == 200
        && ((etag.is_some() && request.header("if-none-match") == etag.as_deref())
            || (etag.is_none()
                && last_modified.is_some()
                && request.header("if-modified-since") == last_modified.as_deref()));
    if !not_modified {
        return (status, headers, body);
    }
    headers.retain(|(name, _)| !name.eq_ignore_ascii_case("content-type"));
    (304, headers, Vec::new())
}

fn send(w: &mut TcpStream, request: &Request, reply: Reply) -> bool {
    match reply {
        Reply::Ok { status, headers, body } => {
            let (status, headers, body) = conditional(request, status, headers, body);
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (name, value) in &headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            if status != 304 {
                head.push_str(&format!("Content-Length: {}\r\n", body.len()));
            }
            head.push_str("\r\n");
            w.write_all(head.as_bytes()).is_ok() && w.write_all(&body).is_ok() && w.flush().is_ok()
        }
        Reply::Delay(wait, inner) => {
            std::thread::sleep(wait);
            send(w, request, *inner)
        }
        Reply::Held(gate, inner) => {
            gate.wait();
            send(w, request, *inner)
        }
        Reply::Reset => {
            let _ = w.shutdown(Shutdown::Both);
            false
        }
        Reply::Truncated { announced, body } => {
            let head =
                format!("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: {announced}\r\n\r\n");
            let _ = w.write_all(head.as_bytes());
            let _ = w.write_all(&body);
            let _ = w.flush();
            let _ = w.shutdown(Shutdown::Both);
            false
        }
        Reply::Stalled { announced, body, gate } => {
            let head =
                format!("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: {announced}\r\n\r\n");
            let _ = w.write_all(head.as_bytes());
            let _ = w.write_all(&body);
            let _ = w.flush();
            gate.wait();
            let _ = w.shutdown(Shutdown::Both);
            false
        }
        Reply::Endless { content_type, total } => {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n");
            if w.write_all(head.as_bytes()).is_err() {
                return false;
            }
            let chunk = vec![b' '; 64 * 1024];
            let mut sent = 0u64;
            while sent < total {
                if w.write_all(&chunk).is_err() {
                    break;
                }
                sent += chunk.len() as u64;
            }
            let _ = w.shutdown(Shutdown::Both);
            false
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        404 => "Not Found",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// A farm of hosts for the refresh benchmark and tests: one listener on each of `hosts` loopback addresses
/// (127.0.1.1, 127.0.1.2, …; Linux routes all of 127/8 to the loopback device), every path served by every host,
/// each answer held back by a fixed latency (as the real web's round trips are), and for each host the most
/// requests it was answering at the same time (and all hosts together); a host can also hold its answers until told
/// to release them. A request counts from its arrival until its answer is about to be written: the client cannot
/// have it yet, so a count is never more than the client really had in flight.
/// Threads, like [`Server`]: a connection is a thread, so a held-back answer holds only its own connection.
pub(crate) struct Farm {
    hosts: Vec<FarmHost>,
    /// Requests all hosts together are answering.
    all: Arc<HostLoad>,
    routes: Arc<Mutex<HashMap<String, Reply>>>,
    connections: Arc<FarmConnections>,
    /// Over HTTPS ([`Farm::start_tls`]): the runtime its hosts are served on.
    tls: Option<tokio::runtime::Runtime>,
}

/// Connections to any host of a farm: opened since the last count, open now, and the most open at once.
#[derive(Default)]
struct FarmConnections {
    opened: AtomicUsize,
    open: AtomicUsize,
    peak: AtomicUsize,
}

impl FarmConnections {
    /// A connection accepted: counted, and open now.
    fn accepted(&self) {
        self.opened.fetch_add(1, Ordering::Relaxed);
        let now = self.open.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
    }
}

struct FarmHost {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    load: Arc<HostLoad>,
}

/// Requests one host is answering now, and the most it answered at once; and whether it holds its answers.
#[derive(Default)]
struct HostLoad {
    now: AtomicUsize,
    peak: AtomicUsize,
    requests: AtomicUsize,
    held: Mutex<bool>,
    released: std::sync::Condvar,
}

impl HostLoad {
    fn begin(&self) {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        self.requests.fetch_add(1, Ordering::Relaxed);
    }

    fn end(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }

    /// Returns once the host is not holding its answers.
    fn wait_until_released(&self) {
        let mut held = self.held.lock().unwrap();
        while *held {
            held = self.released.wait(held).unwrap();
        }
    }

    fn set_held(&self, hold: bool) {
        *self.held.lock().unwrap() = hold;
        self.released.notify_all();
    }
}

/// The loopback address of farm host `index` (0-based): 127.0.1.1 … 127.0.1.254, then 127.0.2.1, …
pub(crate) fn farm_address(index: usize) -> std::net::Ipv4Addr {
    std::net::Ipv4Addr::new(127, 0, 1 + (index / 254) as u8, 1 + (index % 254) as u8)
}

impl Farm {
    /// Starts `hosts` listeners (at most 254 × 254), each answering after `latency`.
    pub(crate) fn start(hosts: usize, latency: Duration) -> std::io::Result<Farm> {
        let routes: Arc<Mutex<HashMap<String, Reply>>> = Arc::default();
        let connections: Arc<FarmConnections> = Arc::default();
        let all: Arc<HostLoad> = Arc::default();
        let mut started = Vec::with_capacity(hosts);
        for index in 0..hosts {
            let listener = TcpListener::bind((farm_address(index), 0))?;
            let addr = listener.local_addr()?;
            let stop = Arc::new(AtomicBool::new(false));
            let load = Arc::new(HostLoad::default());
            let (routes, stop_flag, host_load, connections, all) =
                (routes.clone(), stop.clone(), load.clone(), connections.clone(), all.clone());
            std::thread::Builder::new().stack_size(128 * 1024).spawn(move || {
                for stream in listener.incoming() {
                    if stop_flag.load(Ordering::Relaxed) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    connections.accepted();
                    let (routes, loads, connections) =
                        (routes.clone(), [host_load.clone(), all.clone()], connections.clone());
                    let spawned = std::thread::Builder::new().stack_size(256 * 1024).spawn(move || {
                        serve_farm_connection(stream, &routes, &loads, latency);
                        connections.open.fetch_sub(1, Ordering::SeqCst);
                    });
                    if spawned.is_err() {
                        let _ = writeln!(std::io::stderr(), "farm host {addr}: cannot start a thread for a connection");
                    }
                }
            })?;
            started.push(FarmHost { addr, stop, load });
        }
        Ok(Farm { hosts: started, all, routes, connections, tls: None })
    }

    /// [`Farm::start`] over HTTPS and HTTP/2 alone, as most of the web's big hosts answer, with the test
    /// authority's certificate for every farm address (`tests/fixtures/tls/README.md`; a client trusts it through
    /// `SSL_CERT_FILE`). Serves [`Reply::Ok`] replies only, and holds none ([`Farm::hold`]).
    pub(crate) fn start_tls(hosts: usize, latency: Duration) -> std::io::Result<Farm> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(super::h2::tls_config()));
        let routes: Arc<Mutex<HashMap<String, Reply>>> = Arc::default();
        let connections: Arc<FarmConnections> = Arc::default();
        let all: Arc<HostLoad> = Arc::default();
        let mut started = Vec::with_capacity(hosts);
        for index in 0..hosts {
            let listener = TcpListener::bind((farm_address(index), 0))?;
            listener.set_nonblocking(true)?;
            let addr = listener.local_addr()?;
            let listener = {
                let _entered = runtime.enter();
                tokio::net::TcpListener::from_std(listener)?
            };
            let (stop, load) = (Arc::new(AtomicBool::new(false)), Arc::new(HostLoad::default()));
            let (routes, host_load, connections, all, acceptor) =
                (routes.clone(), load.clone(), connections.clone(), all.clone(), acceptor.clone());
            runtime.spawn(async move {
                while let Ok((socket, _)) = listener.accept().await {
                    connections.accepted();
                    let (routes, loads, connections, acceptor) =
                        (routes.clone(), [host_load.clone(), all.clone()], connections.clone(), acceptor.clone());
                    tokio::spawn(async move {
                        let _ = socket.set_nodelay(true);
                        super::h2::serve(&acceptor, socket, move |request| {
                            answer_tls(request, routes.clone(), loads.clone(), latency)
                        })
                        .await;
                        connections.open.fetch_sub(1, Ordering::SeqCst);
                    });
                }
            });
            started.push(FarmHost { addr, stop, load });
        }
        Ok(Farm { hosts: started, all, routes, connections, tls: Some(runtime) })
    }

    pub(crate) fn hosts(&self) -> usize {
        self.hosts.len()
    }

    /// The address of `path` on host `index`.
    pub(crate) fn url(&self, index: usize, path: &str) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://{}{}", self.hosts[index].addr, path)
    }

    /// Every host serves `path` with `reply`.
    pub(crate) fn route(&self, path: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(path.to_string(), reply);
    }

    /// The most requests any one host answered at the same time since the last [`Farm::reset_counts`].
    pub(crate) fn peak_per_host(&self) -> usize {
        self.hosts.iter().map(|h| h.load.peak.load(Ordering::SeqCst)).max().unwrap_or(0)
    }

    /// The most requests all hosts together answered at the same time since the last [`Farm::reset_counts`].
    pub(crate) fn peak_all_hosts(&self) -> usize {
        self.all.peak.load(Ordering::SeqCst)
    }

    /// Requests answered by all hosts since the last [`Farm::reset_counts`].
    pub(crate) fn requests(&self) -> usize {
        self.hosts.iter().map(|h| h.load.requests.load(Ordering::Relaxed)).sum()
    }

    /// Connections opened to all hosts since the last [`Farm::reset_counts`], and the most open at once.
    pub(crate) fn connections(&self) -> (usize, usize) {
        (self.connections.opened.load(Ordering::Relaxed), self.connections.peak.load(Ordering::SeqCst))
    }

    /// Host `index` keeps every request it receives waiting, unanswered, until [`Farm::release`].
    pub(crate) fn hold(&self, index: usize) {
        self.hosts[index].load.set_held(true);
    }

    /// Host `index` answers the requests it held, and the next ones as usual.
    pub(crate) fn release(&self, index: usize) {
        self.hosts[index].load.set_held(false);
    }

    /// The most requests host `index` answered at the same time since the last [`Farm::reset_counts`].
    pub(crate) fn peak_of(&self, index: usize) -> usize {
        self.hosts[index].load.peak.load(Ordering::SeqCst)
    }

    /// Starts counting afresh (between two measured runs).
    pub(crate) fn reset_counts(&self) {
        for host in &self.hosts {
            host.load.peak.store(host.load.now.load(Ordering::SeqCst), Ordering::SeqCst);
            host.load.requests.store(0, Ordering::Relaxed);
        }
        self.all.peak.store(self.all.now.load(Ordering::SeqCst), Ordering::SeqCst);
        self.connections.opened.store(0, Ordering::Relaxed);
        self.connections.peak.store(self.connections.open.load(Ordering::SeqCst), Ordering::SeqCst);
    }
}

impl Drop for Farm {
    fn drop(&mut self) {
        if let Some(runtime) = self.tls.take() {
            runtime.shutdown_background();
            return;
        }
        for host in &self.hosts {
            host.stop.store(true, Ordering::Relaxed);
            host.load.set_held(false);
            let _ = TcpStream::connect(host.addr);
        }
    }
}

/// A request to a farm host over HTTP/2 ([`Farm::start_tls`]), answered after `latency`.
async fn answer_tls(
    request: hyper::Request<hyper::body::Incoming>,
    routes: Arc<Mutex<HashMap<String, Reply>>>,
    [load, all]: [Arc<HostLoad>; 2],
    latency: Duration,
) -> Result<hyper::Response<http_body_util::Full<bytes::Bytes>>, std::convert::Infallible> {
    load.begin();
    all.begin();
    tokio::time::sleep(latency).await;
    let reply = routes.lock().unwrap().get(request.uri().path()).cloned();
    all.end();
    load.end();
    Ok(h2_response(&request, reply))
}

/// What an HTTP/2 server of the tests sends `request` for `reply` (`None`: no route, 404): a [`Reply::Ok`] as
/// [`conditional`] says; no other kind of reply.
pub(crate) fn h2_response(
    request: &hyper::Request<hyper::body::Incoming>,
    reply: Option<Reply>,
) -> hyper::Response<http_body_util::Full<bytes::Bytes>> {
    let headers = request.headers().iter().filter_map(|(n, v)| Some((n.to_string(), v.to_str().ok()?.to_string())));
    let request = Request { path: request.uri().path().to_string(), headers: headers.collect(), body: Vec::new() };
    let Reply::Ok { status, headers, body } = reply.unwrap_or_else(|| Reply::status(404)) else {
        panic!("the HTTP/2 servers of the tests send plain replies only")
    };
    let (status, headers, body) = conditional(&request, status, headers, body);
    let mut response = hyper::Response::builder().status(status);
    for (name, value) in headers {
        response = response.header(name, value);
    }
    response.body(http_body_util::Full::new(bytes::Bytes::from(body))).expect("a response of fixed parts")
}

fn serve_farm_connection(
    stream: TcpStream,
    routes: &Mutex<HashMap<String, Reply>>,
    [load, all]: &[Arc<HostLoad>; 2],
    latency: Duration,
) {
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream.try_clone().expect("clone the stream"));
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        load.begin();
        all.begin();
        load.wait_until_released();
        std::thread::sleep(latency);
        let reply = routes.lock().unwrap().get(&request.path).cloned().unwrap_or_else(|| Reply::status(404));
        // Before the answer goes out: once the client has it, its next request may arrive before this thread
        // would have counted this one done.
        all.end();
        load.end();
        let open = send(&mut writer, &request, reply);
        if !open {
            return;
        }
    }
}
