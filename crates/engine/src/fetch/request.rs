//! One GET and its answer: the request's headers (validators; whether to keep the connection), the GET sent
//! again once on a fresh connection when its connection closed before any byte of the answer, and the final
//! answer read: its status, validators and the server's requests to slow down (`Retry-After`,
//! `Cache-Control: max-age`), its body within the cap. Redirects are followed above it, in
//! [`Fetcher::get_admitted`].

use super::failure::{closed_before_answering, last_cause};
use super::{FetchError, FetchOutcome, Fetched, Fetcher, Validators};
use std::future::Future;
use std::sync::atomic::Ordering;

impl Fetcher {
    /// Sends one GET; when its connection closes before any byte of the answer, sends it once more on a
    /// fresh connection. An HTTP/1.1 server may close a kept-alive connection after any answer without saying
    /// so; a GET that went out on it just then is lost before the server read it. hyper resends such a request
    /// only when it noticed the close before writing it; reqwest's own retries cover HTTP/2 only.
    pub(super) async fn send(
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

    /// Reads a final (non-redirect) response: from the server asked (`own`), or from another after redirects.
    pub(super) async fn finish<T, Fut: Future<Output = T>>(
        &self,
        url: &str,
        mut response: reqwest::Response,
        (moved_permanently, own): (Option<String>, bool),
        admit: impl FnOnce(Option<u64>, bool) -> Fut,
        deadline: tokio::time::Instant,
    ) -> Result<(FetchOutcome, Option<T>), FetchError> {
        let status = response.status().as_u16();
        let header = |name: reqwest::header::HeaderName| {
            response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
        };
        let etag = header(reqwest::header::ETAG);
        let last_modified = header(reqwest::header::LAST_MODIFIED);
        let http2 = response.version() >= reqwest::Version::HTTP_2;
        let multiplexed = own.then_some(http2);
        if status == 304 {
            return Ok((FetchOutcome::NotModified { etag, last_modified, moved_permanently, multiplexed }, None));
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
        let admitted = admit(response.content_length(), !http2).await;
        // The time the caller kept the body waiting is not the server's.
        let deadline = deadline + asked.elapsed();
        let mut body = Vec::with_capacity(response.content_length().unwrap_or(64 * 1024).min(limit) as usize);
        loop {
            match tokio::time::timeout_at(deadline, response.chunk())
                .await
                .map_err(|_| self.timed_out_reading(url, status))?
            {
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
            multiplexed,
            body,
        };
        Ok((FetchOutcome::Fetched(fetched), Some(admitted)))
    }
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

/// Where a redirect leads: its `Location` resolved against the address that answered (`current`; `url`, the
/// feed's, names it in an error). Bytes past ASCII in it — a server's raw UTF-8, or Latin-1 — are
/// percent-encoded, as browsers and curl send them on.
pub(super) fn redirect_target(
    url: &str,
    current: &url::Url,
    response: &reqwest::Response,
) -> Result<url::Url, FetchError> {
    let Some(location) = response.headers().get(reqwest::header::LOCATION) else {
        return Err(FetchError::RedirectWithoutLocation { url: url.into() });
    };
    let location = percent_encode_high_bytes(location.as_bytes());
    current.join(&location).map_err(|e| FetchError::RedirectNowhere {
        url: url.into(),
        location,
        reason: e.to_string(),
    })
}

/// `bytes` with each byte past ASCII written `%XX`.
fn percent_encode_high_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii() {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_past_ascii_in_a_redirect_are_percent_encoded() {
        assert_eq!(percent_encode_high_bytes("/good/café.xml?q=ü".as_bytes()), "/good/caf%C3%A9.xml?q=%C3%BC");
        assert_eq!(percent_encode_high_bytes(b"/caf\xe9"), "/caf%E9", "Latin-1 kept as its bytes");
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

    #[test]
    fn max_age_from_cache_control() {
        assert_eq!(parse_max_age("public, max-age=3600"), Some(3600));
        assert_eq!(parse_max_age("no-cache"), None);
        assert_eq!(parse_max_age("Max-Age=\"60\", s-maxage=10"), Some(60));
    }
}
