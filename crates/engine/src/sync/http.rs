//! One request to a server, whatever its protocol: sent (once more on a new connection when a kept-alive one was
//! closed meanwhile), its answer read up to a limit, its status said in the terms sync acts on.

use super::RemoteError;
use crate::greader;
use futures::StreamExt;

/// Reads a page of an answer (items, entries) off the async threads, at a lower priority, like a refresh's parsing:
/// a page of a thousand items is bulk work. The reader's terminal loop comes first, and the other accounts' requests
/// go on meanwhile (`tidings refresh` runs them all on one thread).
pub(super) async fn read_page<T: Send + 'static>(
    answer: Vec<u8>,
    read: fn(&[u8]) -> Result<T, greader::AnswerError>,
) -> Result<T, RemoteError> {
    tokio::task::spawn_blocking(move || {
        crate::store::lower_this_threads_priority();
        read(&answer)
    })
    .await
    .map_err(|e| RemoteError::Status(0, format!("reading the answer failed: {}", crate::panics::join_message(e))))?
    .map_err(RemoteError::Answer)
}

/// Where a remote's password comes from, asked only when a login is needed (a `password_command` may prompt).
pub(super) type Password = std::sync::Arc<dyn Fn() -> Result<String, String> + Send + Sync>;

/// Reads the password off the async threads: a `password_command` may take its time (bounded: see
/// `PasswordSource::read`), and holds up nothing else meanwhile.
pub(super) async fn read_password(password: &Password) -> Result<String, RemoteError> {
    let read = password.clone();
    tokio::task::spawn_blocking(move || read())
        .await
        .map_err(|e| RemoteError::Password(crate::panics::join_message(e)))?
        .map_err(RemoteError::Password)
}

/// The most read of an answer with an error status (its words, or its page's title, are said).
const ERROR_BYTES: usize = 64 * 1024;

/// Sends a request and reads its answer, up to `limit` bytes, counting the requests made.
pub(super) async fn exchange(
    request: reqwest::RequestBuilder,
    limit: usize,
    requests: &mut usize,
) -> Result<Vec<u8>, RemoteError> {
    *requests += 1;
    // A kept-alive connection the server closed meanwhile fails before any answer: the request goes once
    // more, on a new connection (every request here can be repeated safely: reads, and writes that set
    // what they set).
    let retry = request.try_clone();
    let response = match request.send().await {
        Ok(response) => response,
        Err(e) if !e.is_timeout() && retry.is_some() => {
            tracing::debug!("retrying a request on a new connection: {}", describe(&e));
            *requests += 1;
            let retry = retry.expect("checked");
            retry.send().await.map_err(|e| RemoteError::Unreachable(describe(&e)))?
        }
        Err(e) => return Err(RemoteError::Unreachable(describe(&e))),
    };
    let status = response.status().as_u16();
    let header = |name| response.headers().get(name).and_then(|l: &reqwest::header::HeaderValue| l.to_str().ok());
    let location = header(reqwest::header::LOCATION).map(str::to_string);
    let now = chrono::Utc::now().timestamp();
    let wait = header(reqwest::header::RETRY_AFTER).and_then(|r| crate::fetch::parse_retry_after(r, now));
    let too_large = || RemoteError::TooLarge((limit / (1024 * 1024)).max(1));
    let success = (200..300).contains(&status);
    // An answer that says it is too large is not read at all (a page of items is asked again smaller).
    if success && response.content_length().is_some_and(|length| length > limit as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        // Cut short while it came: said so, and asked again at the next sync.
        let chunk =
            chunk.map_err(|e| RemoteError::Unreachable(format!("the answer was cut short: {}", describe(&e))))?;
        if !success && body.len() + chunk.len() > ERROR_BYTES {
            // An error's page is read only for its words: its status is what counts.
            body.extend_from_slice(&chunk[..ERROR_BYTES.saturating_sub(body.len())]);
            break;
        }
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    match status {
        200..=299 => Ok(body),
        401 | 403 => Err(RemoteError::Unauthorized),
        300..=399 => Err(RemoteError::Moved(status, location.map(|l| crate::sanitize::one_line(&l, 300)))),
        429 | 503 if wait.is_some_and(|w| w > 0) => Err(RemoteError::Wait(status, wait.unwrap_or(0), said(&body))),
        _ => Err(RemoteError::Status(status, said(&body))),
    }
}

/// What an error answer says, for people: its text on one line, or a web page's title (never its markup, its
/// styles or its scripts).
fn said(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if !text.trim_start().starts_with('<') {
        return crate::sanitize::one_line(&text, 200);
    }
    let lower = text.to_ascii_lowercase();
    let title = lower
        .find("<title>")
        .and_then(|start| Some((start + 7, start + 7 + lower[start + 7..].find("</title>")?)))
        .map(|(from, to)| crate::sanitize::one_line(&text[from..to], 120))
        .filter(|t| !t.is_empty());
    match title {
        Some(title) => format!("a web page: {title}"),
        None => "a web page".into(),
    }
}

/// An HTTP failure for people: the last cause (what the network said), not reqwest's wrapping.
fn describe(e: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    let text = cause.to_string();
    if e.is_timeout() {
        "no answer in time".to_string()
    } else if e.is_connect() {
        format!("cannot connect: {text}")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_error_page_is_said_by_its_title_never_its_styles() {
        let page =
            b"<!DOCTYPE html><html><head><title>404 Not Found</title><style>body{color:red}</style></head></html>";
        assert_eq!(super::said(page), "a web page: 404 Not Found");
        assert_eq!(super::said(b"<html><style>p{}</style></html>"), "a web page");
        assert_eq!(super::said(b"Bad Request!\n"), "Bad Request!");
    }
}
