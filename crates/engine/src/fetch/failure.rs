//! Why a request failed, read from the error reqwest gives (and hyper's, the resolver's and the system's behind
//! it): a [`FetchError`] in words a person can act on, and whether the connection closed before the answer came
//! (the GET may then be sent again). It only reads errors: retrying is [`super::request`]'s.

use super::{FetchError, Fetcher, reach};

/// What was fetched, for a failure's words: the fetcher's own messages speak of feeds, and the advice differs
/// for a page, an address the user typed or a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A web page read for its article (full text).
    Page,
    /// The address given to `add` or discovery: a page or a feed, typed a moment ago.
    Address,
    /// A file downloaded (an episode).
    File,
}

impl FetchError {
    /// The failure in the words of `subject` rather than a feed's; for a page, after "cannot fetch the page".
    pub fn about(&self, subject: Subject) -> String {
        let what = match subject {
            Subject::Page | Subject::Address => "page",
            Subject::File => "file",
        };
        // Where the address or the file is named already ("Cannot read URL: …", a download's row), the words
        // start with the failure.
        let cannot = if subject == Subject::Page { "cannot fetch the page: " } else { "" };
        match self {
            // An address given to `add` is often the feed itself: its words (raise max_feed_size_mb) are the help.
            FetchError::TooLarge { limit_mb, .. } if subject == Subject::Page => {
                format!("the {what} is larger than {limit_mb} MB (max_feed_size_mb); open it in the browser instead")
            }
            FetchError::Status { status, .. } => {
                let hint = match (status, subject) {
                    (401 | 403, Subject::Page) => {
                        " (access denied: the page may need a login, or the site turns away readers like tidings)"
                    }
                    (401 | 403, _) => " (access denied: the server may need a login)",
                    (404 | 410, Subject::Page) => " (not found: the page was moved or removed)",
                    (404 | 410, Subject::Address) => " (not found: check the address)",
                    (404 | 410, Subject::File) => " (not found: the file is no longer on the server)",
                    (429 | 503, _) => " (the site asks to slow down; try again later)",
                    (500..=599, _) => " (a server error; try again later)",
                    _ => "",
                };
                format!("{cannot}HTTP {status}{hint}")
            }
            FetchError::LocalNetwork { .. } if subject == Subject::Page => format!("the page was {self}"),
            other => format!("{cannot}{other}"),
        }
    }
}

impl Fetcher {
    pub(super) fn classify(&self, url: &str, e: reqwest::Error) -> FetchError {
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

/// Whether a request failed because its connection closed before the answer's head came: hyper's "connection
/// closed before message completed" (an end of stream where the head should be), a reset or broken pipe, or a
/// request hyper cancelled because its connection had closed. Not a timeout, nor a failure to connect (a
/// fresh connection would fail the same way). An answer whose head arrived is never retried: its failures
/// come later, while the body is read. (hyper reports a head cut halfway the same way as none at all; such a
/// GET is sent again too, which repeats nothing a GET changes.)
pub(super) fn closed_before_answering(e: &reqwest::Error) -> bool {
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
pub(super) fn last_cause(e: &(dyn std::error::Error + 'static)) -> String {
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
