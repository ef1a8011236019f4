//! A GET for a file that may be far larger than any feed: the answer's head, then its body a chunk at a time for
//! the caller to write where it wants (the download queue writes it to disk). Redirects are followed by hand and
//! checked like every fetch (only http and https; for a feed's content, only where [`Fetcher::for_content_of`]
//! may go); the body has no cap and no overall time limit, only a limit on the wait for each chunk. A resume asks
//! for a `Range` with `If-Range`, and the body comes as the server sent it (`Accept-Encoding: identity`), so the
//! offsets of a range are offsets in the file.

use super::{FetchError, Fetcher, MAX_REDIRECTS};
use hyper::body::Bytes;
use std::time::Duration;

/// The longest a download may take in all (a week): the wait for each chunk is what is limited.
const WHOLE_DOWNLOAD: Duration = Duration::from_secs(7 * 24 * 3600);

/// What a resume asks for: the bytes from `from` on, if the file is still the one `validator` names (its ETag,
/// else its Last-Modified date).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resume {
    pub from: u64,
    pub validator: String,
}

/// The answer to a file's GET, its body not read yet.
pub struct FileAnswer {
    response: reqwest::Response,
    fetcher: Fetcher,
    url: String,
    pub status: u16,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub content_length: Option<u64>,
    /// `Content-Range` of a 206: the first byte, and the file's whole length when the server says it.
    pub content_range: Option<(u64, Option<u64>)>,
}

impl Fetcher {
    /// GETs `url` for a file (see the module's notes), from `resume` on when given. An answer other than 2xx is
    /// an error, except 416 (the range asked for is past the end), which the caller handles.
    pub async fn get_file(&self, url: &str, resume: Option<&Resume>) -> Result<FileAnswer, FetchError> {
        let mut current =
            url::Url::parse(url).map_err(|e| FetchError::InvalidUrl { url: url.into(), reason: e.to_string() })?;
        let mut seen = vec![current.to_string()];
        for _ in 0..=MAX_REDIRECTS {
            self.may_fetch(url, &current)?;
            let mut request = self
                .client
                .get(current.clone())
                .timeout(WHOLE_DOWNLOAD)
                .header(reqwest::header::ACCEPT_ENCODING, "identity");
            if let Some(resume) = resume {
                request = request
                    .header(reqwest::header::RANGE, format!("bytes={}-", resume.from))
                    .header(reqwest::header::IF_RANGE, resume.validator.as_str());
            }
            let response = tokio::time::timeout(self.config.timeout, request.send())
                .await
                .map_err(|_| self.timed_out(url))?
                .map_err(|e| self.classify(url, e))?;
            let status = response.status().as_u16();
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let next = super::request::redirect_target(url, &current, &response)?;
                if seen.contains(&next.to_string()) {
                    return Err(FetchError::RedirectLoop { url: url.into(), to: next.to_string() });
                }
                seen.push(next.to_string());
                current = next;
                continue;
            }
            if !response.status().is_success() && status != 416 {
                return Err(FetchError::Status { url: url.into(), status, retry_after_secs: None });
            }
            let header = |name| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
            let content_range = header(reqwest::header::CONTENT_RANGE).and_then(|v| parse_content_range(&v));
            return Ok(FileAnswer {
                status,
                etag: header(reqwest::header::ETAG),
                last_modified: header(reqwest::header::LAST_MODIFIED),
                content_length: response.content_length(),
                content_range,
                fetcher: self.clone(),
                url: url.into(),
                response,
            });
        }
        Err(FetchError::Redirects { url: url.into(), max: MAX_REDIRECTS })
    }
}

impl FileAnswer {
    /// The next piece of the body; `None` at its end. A wait longer than the fetch timeout for one piece is an
    /// error, and so is a connection that broke.
    pub async fn chunk(&mut self) -> Result<Option<Bytes>, FetchError> {
        match tokio::time::timeout(self.fetcher.config.timeout, self.response.chunk()).await {
            Err(_) => Err(self.fetcher.timed_out_reading(&self.url, self.status)),
            Ok(Ok(chunk)) => Ok(chunk),
            Ok(Err(e)) => Err(FetchError::Body { url: self.url.clone(), reason: super::failure::last_cause(&e) }),
        }
    }
}

/// `bytes 100-199/1000` → (100, Some(1000)); `bytes 100-199/*` → (100, None).
pub fn parse_content_range(value: &str) -> Option<(u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let (first, _) = range.split_once('-')?;
    let total = match total.trim() {
        "*" => None,
        n => Some(n.parse().ok()?),
    };
    Some((first.trim().parse().ok()?, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_are_read() {
        assert_eq!(parse_content_range("bytes 100-199/1000"), Some((100, Some(1000))));
        assert_eq!(parse_content_range("bytes 0-0/*"), Some((0, None)));
        assert_eq!(parse_content_range("items 1-2/3"), None);
        assert_eq!(parse_content_range("bytes x-1/2"), None);
    }
}
