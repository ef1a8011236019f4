//! Fetching over HTTP: one shared client, conditional GET, timeouts, a body cap on decompressed bytes, and
//! errors classified so a person can act on them; and [`discovery`], which fetches pages and verifies the feeds
//! they offer. One of the two modules that do I/O (with `store`).

pub mod discovery;

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
    pub content_type: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Every `Link:` header, joined with commas (discovery reads feeds announced there).
    pub link_header: Option<String>,
    pub body: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchOutcome {
    Fetched(Fetched),
    /// 304: the feed has not changed since the validators sent.
    NotModified {
        etag: Option<String>,
        last_modified: Option<String>,
    },
}

/// Why a fetch failed, in the words a person needs. Messages leave out the URL: whoever shows them names the
/// feed.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum FetchError {
    #[error("invalid URL {url}: {reason}")]
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
    Status { url: String, status: u16 },
    #[error("the feed is larger than {limit_mb} MB; raise max_feed_size_mb if it really is that big")]
    TooLarge { url: String, limit_mb: u64 },
    #[error("too many redirects")]
    Redirects { url: String },
    #[error("the download broke off: {reason}")]
    Body { url: String, reason: String },
    #[error("the server sent an empty response")]
    Empty { url: String },
}

fn http_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (access denied; the feed may need a login)",
        404 => " (not found; the feed may have moved: check the site for its new address)",
        410 => " (gone; the feed was removed for good)",
        429 => " (too many requests; tidings will try again later)",
        500..=599 => " (a server error; try again later)",
        _ => "",
    }
}

impl FetchError {
    /// A short, stable name for the kind of failure, stored with the feed.
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::InvalidUrl { .. } => "url",
            FetchError::Dns { .. } => "dns",
            FetchError::Connect { .. } => "connect",
            FetchError::Timeout { .. } => "timeout",
            FetchError::Tls { .. } => "tls",
            FetchError::Status { .. } => "http",
            FetchError::TooLarge { .. } => "too-large",
            FetchError::Redirects { .. } => "redirect",
            FetchError::Body { .. } => "body",
            FetchError::Empty { .. } => "empty",
        }
    }

    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { status, .. } => Some(*status),
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

impl From<&crate::config::Config> for FetchConfig {
    fn from(c: &crate::config::Config) -> Self {
        FetchConfig { connect_timeout: c.connect_timeout(), timeout: c.timeout(), max_body_bytes: c.max_feed_bytes() }
    }
}

/// One HTTP client shared by every fetch (connections are pooled and reused).
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    config: FetchConfig,
}

/// The User-Agent tidings sends.
pub const USER_AGENT: &str = concat!("tidings/", env!("CARGO_PKG_VERSION"));

impl Fetcher {
    pub fn new(config: FetchConfig) -> Result<Fetcher, String> {
        // reqwest is built without a bundled crypto provider; ring is installed once, here.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .gzip(true)
            .brotli(true)
            .deflate(true)
            .redirect(reqwest::redirect::Policy::limited(10))
            .pool_idle_timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        Ok(Fetcher { client, config })
    }

    /// GETs `url`, sending `validators` as conditional headers. The body is read in chunks and refused past
    /// the cap, which counts decompressed bytes (so a gzip bomb stops at the cap too).
    pub async fn get(&self, url: &str, validators: &Validators) -> Result<FetchOutcome, FetchError> {
        let parsed =
            url::Url::parse(url).map_err(|e| FetchError::InvalidUrl { url: url.into(), reason: e.to_string() })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(FetchError::InvalidUrl { url: url.into(), reason: "only http and https are supported".into() });
        }
        let mut request = self.client.get(parsed).header(
            reqwest::header::ACCEPT,
            "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8",
        );
        if let Some(etag) = &validators.etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        if let Some(lm) = &validators.last_modified {
            request = request.header(reqwest::header::IF_MODIFIED_SINCE, lm);
        }
        let mut response = request.send().await.map_err(|e| self.classify(url, e))?;
        let status = response.status().as_u16();
        let header = |name: reqwest::header::HeaderName| {
            response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
        };
        let etag = header(reqwest::header::ETAG);
        let last_modified = header(reqwest::header::LAST_MODIFIED);
        if status == 304 {
            return Ok(FetchOutcome::NotModified { etag, last_modified });
        }
        if !response.status().is_success() {
            return Err(FetchError::Status { url: url.into(), status });
        }
        let content_type = header(reqwest::header::CONTENT_TYPE);
        let links: Vec<&str> =
            response.headers().get_all(reqwest::header::LINK).iter().filter_map(|v| v.to_str().ok()).collect();
        let link_header = (!links.is_empty()).then(|| links.join(", "));
        let final_url = response.url().to_string();
        let limit = self.config.max_body_bytes;
        if response.content_length().is_some_and(|n| n > limit) {
            return Err(FetchError::TooLarge { url: url.into(), limit_mb: limit / (1024 * 1024) });
        }
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() as u64 + chunk.len() as u64 > limit {
                        return Err(FetchError::TooLarge { url: url.into(), limit_mb: limit / (1024 * 1024) });
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
        Ok(FetchOutcome::Fetched(Fetched { status, final_url, content_type, etag, last_modified, link_header, body }))
    }

    fn classify(&self, url: &str, e: reqwest::Error) -> FetchError {
        let chain = error_chain(&e);
        let url = url.to_string();
        if e.is_timeout() || chain.contains("timed out") {
            let secs = if e.is_connect() { self.config.connect_timeout } else { self.config.timeout }.as_secs();
            return FetchError::Timeout { url, secs };
        }
        if e.is_redirect() {
            return FetchError::Redirects { url };
        }
        if e.is_dns() || chain.contains("dns error") || chain.contains("failed to lookup address") {
            return FetchError::Dns { url };
        }
        let lower = chain.to_ascii_lowercase();
        if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
            return FetchError::Tls { url, reason: last_cause(&e) };
        }
        if e.is_connect() {
            return FetchError::Connect { url, reason: last_cause(&e) };
        }
        FetchError::Body { url, reason: last_cause(&e) }
    }
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
    last
}
