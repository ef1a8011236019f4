//! Fetching over HTTP: one shared client (connections kept alive and reused, HTTP/2 when offered, DNS answers
//! cached), conditional GET, timeouts, a body cap on decompressed bytes, redirects followed by hand (so a
//! permanent move can update the stored address, and a loop is an error), a GET sent again once on a fresh
//! connection when its connection closed before any byte of the answer (as curl and browsers do), the server's
//! requests to slow down (`Retry-After`, `Cache-Control: max-age`), errors classified so a person can act on
//! them, and how many sockets the process can afford ([`socket_budget`]); plus [`discovery`], which fetches
//! pages and verifies the feeds they offer, and [`reach`], which keeps what a feed's content points at (pictures,
//! full articles) off the local network. One of the two modules that do I/O (with `store`).

pub mod article;
mod courtesy;
pub mod discovery;
pub mod reach;

pub use courtesy::{Courtesy, Ticket, Turn, Weight, host_key};

use crate::model::ErrorKind;
use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The validators a previous fetch left, sent back as `If-None-Match` / `If-Modified-Since`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// A successful response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    pub status: u16,
    /// The URL after redirects.
    pub final_url: String,
    /// Where the feed now lives, when every redirect on the way was permanent (301/308).
    pub moved_permanently: Option<String>,
    pub content_type: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Every `Link:` header, joined with commas (discovery reads feeds announced there).
    pub link_header: Option<String>,
    /// `Cache-Control: max-age`, in seconds: the server asks not to be asked again sooner.
    pub max_age: Option<u64>,
    pub body: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchOutcome {
    Fetched(Fetched),
    /// 304: the feed has not changed since the validators sent.
    NotModified {
        etag: Option<String>,
        last_modified: Option<String>,
        moved_permanently: Option<String>,
    },
}

/// An address as a message shows it: on one line, and cut (a `data:` address can be megabytes long).
fn shown(url: &str) -> String {
    crate::sanitize::one_line(url, 160)
}

/// Why a fetch failed, in the words a person needs. Messages leave out the URL: whoever shows them names the
/// feed.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum FetchError {
    #[error("invalid URL {}: {reason}", shown(url))]
    InvalidUrl { url: String, reason: String },
    #[error("cannot resolve the host name; check the address and your network")]
    Dns { url: String },
    #[error("cannot connect: {reason}")]
    Connect { url: String, reason: String },
    #[error("no answer within {secs} s; the site may be down or slow, try again later")]
    Timeout { url: String, secs: u64 },
    #[error("secure connection failed: {reason}")]
    Tls { url: String, reason: String },
    #[error("HTTP {status}{}", http_hint(*status))]
    Status {
        url: String,
        status: u16,
        /// For 429 and 503: how long the server asks us to wait, in seconds.
        retry_after_secs: Option<u64>,
    },
    #[error("the feed is larger than {limit_mb} MB; raise max_feed_size_mb if it really is that big")]
    TooLarge { url: String, limit_mb: u64 },
    /// The response head passed what the HTTP engine reads (400 KB, or 100 header lines).
    #[error(
        "the server's answer starts with headers too large to read (over 400 KB or 100 lines); the server is \
         misconfigured or hostile: tell the site's owner"
    )]
    HeadTooLarge { url: String },
    #[error("more than {max} redirects")]
    Redirects { url: String, max: usize },
    #[error("the redirects go round in a loop (back to {})", shown(to))]
    RedirectLoop { url: String, to: String },
    #[error("the server redirected without saying where to")]
    RedirectWithoutLocation { url: String },
    #[error("the download broke off: {reason}")]
    Body { url: String, reason: String },
    #[error("the server sent an empty response")]
    Empty { url: String },
    /// A fetch for a feed's content would have gone to the local network (see [`reach`]).
    #[error("{refusal}")]
    LocalNetwork { url: String, refusal: reach::Refusal },
}

fn http_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (access denied; the feed may need a login)",
        404 => " (not found; the feed may have moved: check the site for its new address)",
        410 => " (gone: the feed was removed for good; tidings stops checking it unless asked to refresh it)",
        429 => " (too many requests; tidings waits as long as the server asks)",
        503 => " (the service is unavailable; tidings waits as long as the server asks)",
        500..=599 => " (a server error; try again later)",
        _ => "",
    }
}

impl FetchError {
    /// A short, stable name for the kind of failure, stored with the feed.
    pub fn kind(&self) -> ErrorKind {
        match self {
            FetchError::InvalidUrl { .. } => ErrorKind::Url,
            FetchError::Dns { .. } => ErrorKind::Dns,
            FetchError::Connect { .. } | FetchError::LocalNetwork { .. } => ErrorKind::Connect,
            FetchError::Timeout { .. } => ErrorKind::Timeout,
            FetchError::Tls { .. } => ErrorKind::Tls,
            FetchError::Status { .. } => ErrorKind::Http,
            FetchError::TooLarge { .. } | FetchError::HeadTooLarge { .. } => ErrorKind::TooLarge,
            FetchError::Redirects { .. }
            | FetchError::RedirectLoop { .. }
            | FetchError::RedirectWithoutLocation { .. } => ErrorKind::Redirect,
            FetchError::Body { .. } => ErrorKind::Body,
            FetchError::Empty { .. } => ErrorKind::Empty,
        }
    }

    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// How long the server asked us to wait before trying again, in seconds.
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            FetchError::Status { retry_after_secs, .. } => *retry_after_secs,
            _ => None,
        }
    }
}

/// Fetcher settings.
#[derive(Clone, Debug)]
pub struct FetchConfig {
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub max_body_bytes: u64,
}

impl Default for FetchConfig {
    /// The defaults of the config's `connect_timeout_secs`, `timeout_secs` and `max_feed_size_mb`.
    fn default() -> Self {
        FetchConfig {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_body_bytes: 20 * 1024 * 1024,
        }
    }
}

/// One HTTP client shared by every fetch (connections are pooled and reused, DNS answers cached).
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    /// The same client without a pool: each request on a connection of its own, for the GET sent again when
    /// its pooled connection had been closed.
    fresh: reqwest::Client,
    config: FetchConfig,
    dns: DnsCache,
    retries: Arc<AtomicUsize>,
    /// For a fetch of a feed's content: where it may go (see [`Fetcher::for_content_of`]).
    reach: Option<reach::Reach>,
    /// The clients (pooled, fresh) of the fetches for feeds' content, by reach: made when first needed.
    guarded: Arc<Mutex<HashMap<reach::Reach, (reqwest::Client, reqwest::Client)>>>,
}

/// The User-Agent tidings sends.
pub const USER_AGENT: &str = concat!("tidings/", env!("CARGO_PKG_VERSION"));

/// Most redirects followed for one fetch.
pub const MAX_REDIRECTS: usize = 10;

impl Fetcher {
    pub fn new(config: FetchConfig) -> Result<Fetcher, String> {
        // reqwest is built without a bundled crypto provider; ring is installed once, here.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let dns = DnsCache::default();
        // A connection is kept while its host's queue has a request to take it over (the refresh closes the others:
        // see `Turn::keep_alive`), so the pool need not be small: it only has to hold what a host's requests in
        // flight hand over to the next.
        let resolver: Arc<dyn reqwest::dns::Resolve> = Arc::new(dns.clone());
        Ok(Fetcher {
            client: build_client(&config, resolver.clone(), 32, false)?,
            fresh: build_client(&config, resolver, 0, false)?,
            config,
            dns,
            retries: Arc::default(),
            reach: None,
            guarded: Arc::default(),
        })
    }

    /// The HTTP client under this fetcher (its pool, DNS cache, timeouts and User-Agent), for the requests that
    /// are not a feed's GET: a sync server's API.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// How many host names this fetcher looked up in the DNS (the others came from its cache).
    pub fn dns_lookups(&self) -> usize {
        self.dns.0.lookups.load(Ordering::Relaxed)
    }

    /// How many GETs this fetcher sent again on a fresh connection because the connection they went out on
    /// closed before any byte of the answer came (a server closing kept-alive connections without saying so).
    pub fn retries(&self) -> usize {
        self.retries.load(Ordering::Relaxed)
    }

    /// GETs `url`, sending `validators` as conditional headers and following redirects. The body is read in
    /// chunks and refused past the cap, which counts decompressed bytes (so a gzip bomb stops at the cap too).
    pub async fn get(&self, url: &str, validators: &Validators) -> Result<FetchOutcome, FetchError> {
        self.get_admitted(url, validators, true, |_, _| std::future::ready(())).await.map(|(outcome, _)| outcome)
    }

    /// [`Fetcher::get`], asking `admit` before a document's body is read, with its announced length (`None`: not
    /// announced) and whether the body waits in the socket meanwhile (HTTP/1; an HTTP/2 body flows into the
    /// client's buffers whatever happens, and a stream that is not read holds up the others of its connection).
    /// What `admit` gives is handed back with the document. The caller's memory budget waits there: a request in
    /// flight holds a connection, a document holds its bytes. `admit` may take up to [`Fetcher::admit_wait`];
    /// that wait does not count against the request's timeout. Unless `keep_alive`, the request asks the server to
    /// close the connection after its answer (nothing else will use it: see [`Turn::keep_alive`]).
    pub async fn get_admitted<T, F, Fut>(
        &self,
        url: &str,
        validators: &Validators,
        keep_alive: bool,
        admit: F,
    ) -> Result<(FetchOutcome, Option<T>), FetchError>
    where
        F: FnOnce(Option<u64>, bool) -> Fut,
        Fut: Future<Output = T>,
    {
        let deadline = tokio::time::Instant::now() + self.config.timeout;
        let mut current =
            url::Url::parse(url).map_err(|e| FetchError::InvalidUrl { url: url.into(), reason: e.to_string() })?;
        let mut all_permanent = true;
        let mut seen = vec![current.to_string()];
        for hop in 0..=MAX_REDIRECTS {
            if !matches!(current.scheme(), "http" | "https") {
                return Err(FetchError::InvalidUrl {
                    url: current.to_string(),
                    reason: "only http and https are supported".into(),
                });
            }
            // An address written in the URL (the first one's or a redirect's) is connected to without a lookup:
            // checked here. A name is checked by the guarded clients' resolver, on the addresses connected to.
            if let Some(reach) = self.reach {
                reach.check_url(&current).map_err(|refusal| FetchError::LocalNetwork { url: url.into(), refusal })?;
            }
            let response = tokio::time::timeout_at(deadline, self.send(&current, validators, keep_alive))
                .await
                .map_err(|_| self.timed_out(url))??;
            let status = response.status().as_u16();
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let location = response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
                let Some(next) = location.and_then(|l| current.join(l).ok()) else {
                    return Err(FetchError::RedirectWithoutLocation { url: url.into() });
                };
                all_permanent &= matches!(status, 301 | 308);
                if seen.contains(&next.to_string()) {
                    return Err(FetchError::RedirectLoop { url: url.into(), to: next.to_string() });
                }
                if hop == MAX_REDIRECTS {
                    break;
                }
                seen.push(next.to_string());
                current = next;
                continue;
            }
            let moved_permanently = (hop > 0 && all_permanent).then(|| current.to_string());
            return self.finish(url, response, moved_permanently, admit, deadline).await;
        }
        Err(FetchError::Redirects { url: url.into(), max: MAX_REDIRECTS })
    }

    /// GETs `url` like [`Fetcher::get`] (no validators), with the body capped at `max_body_bytes` instead of
    /// the feeds' cap (pictures have their own).
    pub async fn get_limited(&self, url: &str, max_body_bytes: u64) -> Result<FetchOutcome, FetchError> {
        let mut limited = self.clone();
        limited.config.max_body_bytes = max_body_bytes;
        limited.get(url, &Validators::default()).await
    }

    /// Sends one GET; when its connection closes before any byte of the answer, sends it once more on a
    /// fresh connection. An HTTP/1.1 server may close a kept-alive connection after any answer without saying
    /// so; a GET that went out on it just then is lost before the server read it. hyper resends such a request
    /// only when it noticed the close before writing it; reqwest's own retries cover HTTP/2 only.
    async fn send(
        &self,
        url: &url::Url,
        validators: &Validators,
        keep_alive: bool,
    ) -> Result<reqwest::Response, FetchError> {
        match self.request(&self.client, url, validators, keep_alive).send().await {
            Ok(response) => Ok(response),
            Err(e) if closed_before_answering(&e) => {
                self.retries.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(
                    "{url}: the connection closed before the answer ({}); sending it again",
                    last_cause(&e)
                );
                let again = self.request(&self.fresh, url, validators, keep_alive).send().await;
                again.map_err(|e| self.classify(url.as_str(), e))
            }
            Err(e) => Err(self.classify(url.as_str(), e)),
        }
    }

    fn request(
        &self,
        client: &reqwest::Client,
        url: &url::Url,
        validators: &Validators,
        keep_alive: bool,
    ) -> reqwest::RequestBuilder {
        // `get_admitted` keeps the timeout itself, without the time its caller kept the body waiting: the client's
        // own is only a backstop past both.
        let mut request = client.get(url.clone()).timeout(self.config.timeout + self.admit_wait()).header(
            reqwest::header::ACCEPT,
            "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8",
        );
        if let Some(etag) = &validators.etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        if let Some(lm) = &validators.last_modified {
            request = request.header(reqwest::header::IF_MODIFIED_SINCE, lm);
        }
        if !keep_alive {
            // HTTP/1 only: the HTTP/2 client leaves connection headers out (its connection serves every stream).
            request = request.header(reqwest::header::CONNECTION, "close");
        }
        request
    }

    /// Reads a final (non-redirect) response.
    async fn finish<T, Fut: Future<Output = T>>(
        &self,
        url: &str,
        mut response: reqwest::Response,
        moved_permanently: Option<String>,
        admit: impl FnOnce(Option<u64>, bool) -> Fut,
        deadline: tokio::time::Instant,
    ) -> Result<(FetchOutcome, Option<T>), FetchError> {
        let status = response.status().as_u16();
        let header = |name: reqwest::header::HeaderName| {
            response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
        };
        let etag = header(reqwest::header::ETAG);
        let last_modified = header(reqwest::header::LAST_MODIFIED);
        if status == 304 {
            return Ok((FetchOutcome::NotModified { etag, last_modified, moved_permanently }, None));
        }
        if !response.status().is_success() {
            let retry_after_secs = matches!(status, 429 | 503)
                .then(|| header(reqwest::header::RETRY_AFTER))
                .flatten()
                .and_then(|v| parse_retry_after(&v, chrono::Utc::now().timestamp()));
            return Err(FetchError::Status { url: url.into(), status, retry_after_secs });
        }
        let content_type = header(reqwest::header::CONTENT_TYPE);
        let max_age = header(reqwest::header::CACHE_CONTROL).and_then(|v| parse_max_age(&v));
        let links: Vec<&str> =
            response.headers().get_all(reqwest::header::LINK).iter().filter_map(|v| v.to_str().ok()).collect();
        let link_header = (!links.is_empty()).then(|| links.join(", "));
        let final_url = response.url().to_string();
        let limit = self.config.max_body_bytes;
        let too_large = || FetchError::TooLarge { url: url.into(), limit_mb: (limit / (1024 * 1024)).max(1) };
        if response.content_length().is_some_and(|n| n > limit) {
            return Err(too_large());
        }
        let asked = tokio::time::Instant::now();
        let admitted = admit(response.content_length(), response.version() < reqwest::Version::HTTP_2).await;
        // The time the caller kept the body waiting is not the server's.
        let deadline = deadline + asked.elapsed();
        let mut body = Vec::with_capacity(response.content_length().unwrap_or(64 * 1024).min(limit) as usize);
        loop {
            match tokio::time::timeout_at(deadline, response.chunk()).await.map_err(|_| self.timed_out(url))? {
                Ok(Some(chunk)) => {
                    if body.len() as u64 + chunk.len() as u64 > limit {
                        return Err(too_large());
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return Err(self.classify(url, e)),
            }
        }
        if body.is_empty() {
            return Err(FetchError::Empty { url: url.into() });
        }
        let fetched = Fetched {
            status,
            final_url,
            moved_permanently,
            content_type,
            etag,
            last_modified,
            link_header,
            max_age,
            body,
        };
        Ok((FetchOutcome::Fetched(fetched), Some(admitted)))
    }

    /// The longest a caller of [`Fetcher::get_admitted`] may keep a body waiting: a third of the timeout (a server
    /// does not keep an answer open for ever).
    pub fn admit_wait(&self) -> Duration {
        self.config.timeout / 3
    }

    /// A request that took longer than the timeout (the time its caller kept the body waiting aside).
    fn timed_out(&self, url: &str) -> FetchError {
        FetchError::Timeout { url: url.into(), secs: self.config.timeout.as_secs() }
    }

    fn classify(&self, url: &str, e: reqwest::Error) -> FetchError {
        let chain = error_chain(&e);
        let url = url.to_string();
        if let Some(refusal) = cause::<reach::Refusal>(&e) {
            return FetchError::LocalNetwork { url, refusal: refusal.clone() };
        }
        if e.is_timeout() || chain.contains("timed out") {
            let secs = if e.is_connect() { self.config.connect_timeout } else { self.config.timeout }.as_secs();
            return FetchError::Timeout { url, secs };
        }
        if e.is_dns() || chain.contains("dns error") || chain.contains("failed to lookup address") {
            return FetchError::Dns { url };
        }
        let lower = chain.to_ascii_lowercase();
        if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
            return FetchError::Tls { url, reason: last_cause(&e) };
        }
        if e.is_connect() {
            return FetchError::Connect { url, reason: connect_reason(&e) };
        }
        // hyper's own test for it needs its server half; its parse error says "message head is too large".
        if cause::<hyper::Error>(&e).is_some_and(|hyper| hyper.is_parse() && hyper.to_string().contains("too large")) {
            return FetchError::HeadTooLarge { url };
        }
        FetchError::Body { url, reason: last_cause(&e) }
    }
}

/// A client with the settings every fetch shares, resolving names with `resolver` and keeping up to
/// `idle_per_host` connections per host in its pool; `direct`: never through a proxy named in the environment
/// (a proxy resolves names and connects out of the resolver's sight, so the guard of a feed's content could not
/// hold).
fn build_client(
    config: &FetchConfig,
    resolver: Arc<dyn reqwest::dns::Resolve>,
    idle_per_host: usize,
    direct: bool,
) -> Result<reqwest::Client, String> {
    let builder = reqwest::Client::builder()
        .dns_resolver(resolver)
        .user_agent(USER_AGENT)
        .connect_timeout(config.connect_timeout)
        .timeout(config.timeout)
        .gzip(true)
        .brotli(true)
        .deflate(true)
        // Redirects are followed by hand: see `get`.
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(Duration::from_secs(90))
        .pool_max_idle_per_host(idle_per_host)
        .tcp_nodelay(true);
    let builder = if direct { builder.no_proxy() } else { builder };
    builder.build().map_err(|e| format!("cannot set up the HTTP client: {e}"))
}

/// How long a DNS answer is reused: long enough to cover a refresh, short enough to follow a host that moves.
const DNS_TTL: Duration = Duration::from_secs(300);

/// The system resolver (getaddrinfo, on tokio's blocking pool) with its answers kept for [`DNS_TTL`]: a refresh
/// opening several connections to one host looks it up once, and lookups of one name at the same time share
/// one query. Failures are not kept (the next connection asks again); expired answers are dropped when many
/// hosts have been seen.
#[derive(Clone, Default)]
struct DnsCache(Arc<DnsCacheInner>);

#[derive(Default)]
struct DnsCacheInner {
    answers: Mutex<HashMap<String, Arc<DnsAnswer>>>,
    lookups: AtomicUsize,
}

struct DnsAnswer {
    asked_at: Instant,
    addrs: tokio::sync::OnceCell<Result<Vec<SocketAddr>, String>>,
}

impl reqwest::dns::Resolve for DnsCache {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let answer = {
            let mut answers = self.0.answers.lock().unwrap_or_else(|e| e.into_inner());
            match answers.get(&host) {
                Some(answer) if answer.asked_at.elapsed() < DNS_TTL => answer.clone(),
                _ => {
                    if answers.len() >= 4096 {
                        answers.retain(|_, answer| answer.asked_at.elapsed() < DNS_TTL);
                    }
                    let answer = Arc::new(DnsAnswer { asked_at: Instant::now(), addrs: Default::default() });
                    answers.insert(host.clone(), answer.clone());
                    answer
                }
            }
        };
        let cache = self.0.clone();
        Box::pin(async move {
            let addrs = answer
                .addrs
                .get_or_init(|| async {
                    cache.lookups.fetch_add(1, Ordering::Relaxed);
                    match tokio::net::lookup_host((host.as_str(), 0)).await {
                        Ok(found) => {
                            let addrs: Vec<SocketAddr> = found.collect();
                            if addrs.is_empty() { Err("the name has no addresses".to_string()) } else { Ok(addrs) }
                        }
                        Err(e) => Err(e.to_string()),
                    }
                })
                .await;
            match addrs {
                Ok(addrs) => Ok(Box::new(addrs.clone().into_iter()) as reqwest::dns::Addrs),
                Err(e) => {
                    let mut answers = cache.answers.lock().unwrap_or_else(|e| e.into_inner());
                    if answers.get(&host).is_some_and(|a| Arc::ptr_eq(a, &answer)) {
                        answers.remove(&host);
                    }
                    Err(Box::new(std::io::Error::other(format!("failed to lookup address: {e}"))) as _)
                }
            }
        })
    }
}

/// How many feeds the process can afford to fetch at once, by its open-files limit: half of what the limit
/// leaves after a reserve (for the database, the log, the terminal), the other half for connections kept alive
/// in the pool. The soft limit is first raised to the hard one (as Go programs do), once per process: on Linux
/// the soft limit is often 1024 while the hard one is far higher.
pub fn socket_budget() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        const RESERVE: u64 = 64;
        let files = raise_open_files_limit();
        usize::try_from(files.saturating_sub(RESERVE) / 2).unwrap_or(usize::MAX).max(1)
    })
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit; returns the soft limit now in force.
#[cfg(unix)]
fn raise_open_files_limit() -> u64 {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we own; it has no other effect.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1024;
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
        // SAFETY: setrlimit reads the struct we own; raising the soft limit up to the hard one is always allowed
        // (some systems refuse an unlimited value: the old limit then stays).
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    #[allow(clippy::useless_conversion)] // rlim_t is u64 on 64-bit systems only
    u64::try_from(limit.rlim_cur).unwrap_or(u64::MAX)
}

#[cfg(not(unix))]
fn raise_open_files_limit() -> u64 {
    8192
}

/// `Retry-After` as seconds to wait: either a number of seconds or an HTTP date. Capped at a week.
pub fn parse_retry_after(value: &str, now: i64) -> Option<u64> {
    let value = value.trim();
    let secs = match value.parse::<u64>() {
        Ok(secs) => secs,
        Err(_) => {
            let at = crate::parse::dates::parse_date(value)?.at.timestamp();
            u64::try_from(at - now).unwrap_or(0)
        }
    };
    Some(secs.min(7 * 24 * 3600))
}

/// `max-age` of a `Cache-Control` header, in seconds.
pub fn parse_max_age(value: &str) -> Option<u64> {
    value.split(',').find_map(|d| {
        let (name, secs) = d.trim().split_once('=')?;
        name.trim().eq_ignore_ascii_case("max-age").then(|| secs.trim().trim_matches('"').parse().ok()).flatten()
    })
}

/// Whether a request failed because its connection closed before the answer's head came: hyper's "connection
/// closed before message completed" (an end of stream where the head should be), a reset or broken pipe, or a
/// request hyper cancelled because its connection had closed. Not a timeout, nor a failure to connect (a
/// fresh connection would fail the same way). An answer whose head arrived is never retried: its failures
/// come later, while the body is read. (hyper reports a head cut halfway the same way as none at all; such a
/// GET is sent again too, which repeats nothing a GET changes.)
fn closed_before_answering(e: &reqwest::Error) -> bool {
    use std::error::Error as _;
    if e.is_timeout() || e.is_connect() || e.is_builder() || e.is_redirect() || e.is_status() {
        return false;
    }
    if cause::<hyper::Error>(e).is_some_and(|hyper| hyper.is_incomplete_message() || hyper.is_canceled()) {
        return true;
    }
    let mut source = e.source();
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::UnexpectedEof
            )
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// The first error of type `E` behind a request's (the HTTP engine's, a refusal of the guarded resolver).
fn cause<E: std::error::Error + 'static>(e: &reqwest::Error) -> Option<&E> {
    use std::error::Error as _;
    let mut source = e.source();
    while let Some(cause) = source {
        if let Some(found) = cause.downcast_ref::<E>() {
            return Some(found);
        }
        source = cause.source();
    }
    None
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// The innermost cause, which usually says the most ("connection refused").
fn last_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut last = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        last = s.to_string();
        source = s.source();
    }
    // The system's error number means nothing to a reader.
    match last.rfind(" (os error ") {
        Some(at) if last.ends_with(')') => last[..at].to_string(),
        _ => last,
    }
}

/// Why a connection could not be made, in words a reader can act on.
fn connect_reason(e: &(dyn std::error::Error + 'static)) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind as K;
            let said = match io.kind() {
                K::ConnectionRefused => "the server refused the connection (nothing answers at that address and port)",
                K::ConnectionReset | K::ConnectionAborted => "the server closed the connection at once",
                K::HostUnreachable | K::NetworkUnreachable => "the host cannot be reached from this network",
                K::AddrNotAvailable => "the address is not available from this machine",
                _ => break,
            };
            return format!("{said}; check the address and its scheme (http or https)");
        }
        source = s.source();
    }
    last_cause(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refused_address_is_named_cut_to_a_line_not_echoed_whole() {
        let fetcher = Fetcher::new(FetchConfig::default()).unwrap();
        let huge = format!("data:text/html,{}", "<p>x</p>\u{1b}[31m".repeat(200_000));
        let err = fetcher.get(&huge, &Validators::default()).await.unwrap_err();
        let said = err.to_string();
        assert!(said.starts_with("invalid URL data:text/html,"), "{said}");
        assert!(said.contains("only http and https are supported"), "{said}");
        assert!(said.chars().count() < 300, "{} characters", said.chars().count());
        assert!(!said.contains('\u{1b}'), "no control character reaches the terminal");
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        assert_eq!(parse_retry_after("120", 0), Some(120));
        let now = crate::parse::dates::parse_date("Tue, 10 Jun 2025 04:00:00 GMT").unwrap().at.timestamp();
        assert_eq!(parse_retry_after("Tue, 10 Jun 2025 04:05:00 GMT", now), Some(300));
        assert_eq!(parse_retry_after("Tue, 10 Jun 2025 03:00:00 GMT", now), Some(0), "a date in the past: now");
        assert_eq!(parse_retry_after("99999999", 0), Some(7 * 24 * 3600));
        assert_eq!(parse_retry_after("soon", 0), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dns_answers_are_cached_and_shared_by_lookups_at_the_same_time() {
        use reqwest::dns::Resolve;
        let cache = DnsCache::default();
        let name = || "LocalHost".parse::<reqwest::dns::Name>().unwrap();
        let at_once: Vec<_> = (0..8).map(|_| cache.resolve(name())).collect();
        for resolving in at_once {
            let addrs: Vec<SocketAddr> = resolving.await.unwrap().collect();
            assert!(addrs.iter().all(|a| a.ip().is_loopback()) && !addrs.is_empty(), "{addrs:?}");
        }
        let later: Vec<SocketAddr> = cache.resolve(name()).await.unwrap().collect();
        assert!(!later.is_empty());
        assert_eq!(cache.0.lookups.load(Ordering::Relaxed), 1, "one lookup for nine connections");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_socket_budget_fits_the_open_files_limit() {
        let budget = socket_budget();
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes into the struct we own.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
        assert!(budget >= 1 && budget as u128 * 2 <= limit.rlim_cur as u128, "{budget} of {}", limit.rlim_cur);
        assert_eq!(limit.rlim_cur, limit.rlim_max, "the soft limit was raised to the hard one");
    }

    #[test]
    fn max_age_from_cache_control() {
        assert_eq!(parse_max_age("public, max-age=3600"), Some(3600));
        assert_eq!(parse_max_age("no-cache"), None);
        assert_eq!(parse_max_age("Max-Age=\"60\", s-maxage=10"), Some(60));
    }
}
