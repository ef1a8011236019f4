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
mod dns;
mod failure;
pub use failure::Subject;
pub mod reach;
mod recent;
mod request;
mod stream;
mod tls;

pub use courtesy::{Courtesy, Ticket, Turn, Weight, host_key};
pub use request::{parse_max_age, parse_retry_after};
pub use stream::{FileAnswer, Resume, parse_content_range};

use crate::model::ErrorKind;
use dns::DnsCache;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    /// Whether the server asked answered over HTTP/2, where its requests share one connection (see
    /// [`Turn::answered_over`]); `None` when the answer came from another server, after a redirect.
    pub multiplexed: Option<bool>,
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
        /// As [`Fetched::multiplexed`].
        multiplexed: Option<bool>,
    },
}

/// An address as a message shows it: on one line, and cut (a `data:` address can be megabytes long).
fn shown(url: &str) -> String {
    crate::sanitize::one_line(&crate::sanitize::without_password(url), 160)
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
    /// The answer began, and its body did not end in time (a server sending it a byte at a time).
    #[error("the answer began but did not finish within {secs} s: the site sends it too slowly; try again later")]
    TimeoutReading { url: String, secs: u64, status: u16 },
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
    #[error("the server redirected to {}, which is no address ({reason}); tell the site's owner", shown(location))]
    RedirectNowhere { url: String, location: String, reason: String },
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
            FetchError::Timeout { .. } | FetchError::TimeoutReading { .. } => ErrorKind::Timeout,
            FetchError::Tls { .. } => ErrorKind::Tls,
            FetchError::Status { .. } => ErrorKind::Http,
            FetchError::TooLarge { .. } | FetchError::HeadTooLarge { .. } => ErrorKind::TooLarge,
            FetchError::Redirects { .. }
            | FetchError::RedirectLoop { .. }
            | FetchError::RedirectWithoutLocation { .. }
            | FetchError::RedirectNowhere { .. } => ErrorKind::Redirect,
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

    /// The status of the answer the server gave, when it gave one: an error status, or that of a document whose
    /// body then stopped coming (the server answered: the network is up).
    pub fn answer_status(&self) -> Option<u16> {
        match self {
            FetchError::TimeoutReading { status, .. } => Some(*status),
            other => other.status(),
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
    /// The clients (pooled, fresh) of the fetches for feeds' content, by reach and whether they decompress what
    /// they read: made when first needed.
    guarded: Arc<Mutex<HashMap<(reach::Reach, bool), Clients>>>,
    /// What discovery read, for the first refresh of a feed subscribed from it (see [`recent`]).
    recent: Arc<recent::Recent>,
}

/// A pooled client and the same without a pool.
type Clients = (reqwest::Client, reqwest::Client);

/// The User-Agent tidings sends.
pub const USER_AGENT: &str = concat!("tidings/", env!("CARGO_PKG_VERSION"));

/// Most redirects followed for one fetch.
pub const MAX_REDIRECTS: usize = 10;

impl Fetcher {
    /// Whether a hop, the address asked for (`url`) or a redirect's (`current`), may be fetched: http or https
    /// only, and an address written in the URL is checked against the local-network rules here, as it is
    /// connected to without a lookup (a name is checked by the guarded clients' resolver, on the addresses
    /// connected to).
    pub(crate) fn may_fetch(&self, url: &str, current: &url::Url) -> Result<(), FetchError> {
        if !matches!(current.scheme(), "http" | "https") {
            return Err(FetchError::InvalidUrl {
                url: current.to_string(),
                reason: "only http and https are supported".into(),
            });
        }
        if let Some(reach) = self.reach {
            reach.check_url(current).map_err(|refusal| FetchError::LocalNetwork { url: url.into(), refusal })?;
        }
        Ok(())
    }

    pub fn new(config: FetchConfig) -> Result<Fetcher, String> {
        // reqwest is built without a bundled crypto provider; ring is installed once, here.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let dns = DnsCache::default();
        // A connection is kept while its host's queue has a request to take it over (the refresh closes the others:
        // see `Turn::keep_alive`), so the pool need not be small: it only has to hold what a host's requests in
        // flight hand over to the next.
        let resolver: Arc<dyn reqwest::dns::Resolve> = Arc::new(dns.clone());
        Ok(Fetcher {
            client: build_client(&config, resolver.clone(), 32, false, true)?,
            fresh: build_client(&config, resolver, 0, false, true)?,
            config,
            dns,
            retries: Arc::default(),
            reach: None,
            guarded: Arc::default(),
            recent: Arc::default(),
        })
    }

    /// The HTTP client under this fetcher (its pool, DNS cache, timeouts and User-Agent), for the requests that
    /// are not a feed's GET: a sync server's API.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// How many host names this fetcher looked up in the DNS (the others came from its cache).
    pub fn dns_lookups(&self) -> usize {
        self.dns.lookups()
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
        if let Some(read) = self.just_read(url, validators) {
            let admitted = admit(Some(read.body.len() as u64), false).await;
            return Ok((FetchOutcome::Fetched(read), Some(admitted)));
        }
        let deadline = tokio::time::Instant::now() + self.config.timeout;
        let mut current =
            url::Url::parse(url).map_err(|e| FetchError::InvalidUrl { url: url.into(), reason: e.to_string() })?;
        let asked = current.origin();
        let mut all_permanent = true;
        let mut seen = vec![current.to_string()];
        for hop in 0..=MAX_REDIRECTS {
            self.may_fetch(url, &current)?;
            let response = tokio::time::timeout_at(deadline, self.send(&current, validators, keep_alive))
                .await
                .map_err(|_| self.timed_out(url))??;
            let status = response.status().as_u16();
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let next = request::redirect_target(url, &current, &response)?;
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
            let own = current.origin() == asked;
            return self.finish(url, response, (moved_permanently, own), admit, deadline).await;
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

    /// The longest a caller of [`Fetcher::get_admitted`] may keep a body waiting: a third of the timeout (a server
    /// does not keep an answer open for ever).
    pub fn admit_wait(&self) -> Duration {
        self.config.timeout / 3
    }

    /// A request that took longer than the timeout (the time its caller kept the body waiting aside).
    fn timed_out(&self, url: &str) -> FetchError {
        FetchError::Timeout { url: url.into(), secs: self.config.timeout.as_secs() }
    }

    /// A body that took longer than the timeout to arrive, its answer begun.
    fn timed_out_reading(&self, url: &str, status: u16) -> FetchError {
        FetchError::TimeoutReading { url: url.into(), secs: self.config.timeout.as_secs(), status }
    }
}

/// A client with the settings every fetch shares, resolving names with `resolver` and keeping up to
/// `idle_per_host` connections per host in its pool; `direct`: never through a proxy named in the environment
/// (a proxy resolves names and connects out of the resolver's sight, so the guard of a feed's content could not
/// hold); `decompress`: asks for and undoes gzip, brotli and deflate (not for files kept as they come).
fn build_client(
    config: &FetchConfig,
    resolver: Arc<dyn reqwest::dns::Resolve>,
    idle_per_host: usize,
    direct: bool,
    decompress: bool,
) -> Result<reqwest::Client, String> {
    let builder = reqwest::Client::builder()
        .dns_resolver(resolver)
        .user_agent(USER_AGENT)
        .connect_timeout(config.connect_timeout)
        .timeout(config.timeout)
        .gzip(decompress)
        .brotli(decompress)
        .deflate(decompress)
        // Redirects are followed by hand: see `get`.
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(Duration::from_secs(90))
        .pool_max_idle_per_host(idle_per_host)
        .tcp_nodelay(true)
        .use_preconfigured_tls(tls::client_config());
    let builder = if direct { builder.no_proxy() } else { builder };
    builder.build().map_err(|e| format!("cannot set up the HTTP client: {e}"))
}

/// How many feeds the process can afford to fetch at once, by its open-files limit: half of what the limit
/// leaves after a reserve (for the database, the log, the terminal), the other half for connections kept alive
/// in the pool. The soft limit is first raised to the hard one (as Go programs do), once per process: on Linux
/// the soft limit is often 1024 while the hard one is far higher.
pub fn socket_budget() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        const RESERVE: u64 = 64;
        let files = crate::os::raise_open_files_limit();
        usize::try_from(files.saturating_sub(RESERVE) / 2).unwrap_or(usize::MAX).max(1)
    })
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

    #[cfg(target_os = "linux")]
    #[test]
    fn the_socket_budget_fits_the_open_files_limit() {
        let budget = socket_budget();
        let (soft, hard) = crate::os::open_files_limit().expect("the open-files limit");
        assert!(budget >= 1 && budget as u128 * 2 <= soft as u128, "{budget} of {soft}");
        assert_eq!(soft, hard, "the soft limit was raised to the hard one");
    }
}
