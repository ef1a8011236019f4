//! Fetching an entry's web page for its full article: the link goes through the shared [`Fetcher`] — the same
//! client, timeouts, body cap (counted after decompression) and hand-followed redirects as feeds — and what
//! comes back goes to the pure [`crate::extract::extract_page`], which refuses what is not a web page and
//! extracts the article. Failures are messages about the page, never about a feed.
//!
//! Per-host limits and backoff belong to whoever schedules fetches (the refresh queue); this module fetches one
//! page when asked.

use super::{FetchError, FetchOutcome, Fetcher, Validators};
use crate::extract::{ExtractError, Extracted, MAX_PAGE_BYTES, extract_page};
use crate::render::{line_text, render_article};
use crate::sanitize::one_line;

/// An article fetched and extracted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Article {
    /// The address asked for (the entry's link).
    pub url: String,
    /// Where the page was found, after redirects; its links were resolved against it.
    pub final_url: String,
    pub status: u16,
    pub content_type: Option<String>,
    pub extracted: Extracted,
}

/// Why a page gave no article.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArticleError {
    #[error("{}", .0.about(super::failure::Subject::Page))]
    Fetch(FetchError),
    #[error("the server answered 304 Not Modified to a plain request; try again later")]
    NotModified,
    #[error(transparent)]
    Extract(#[from] ExtractError),
}

impl Article {
    /// What `tidings inspect --full-text` prints: where the page came from, what extraction found, and the
    /// article as the reader shows it, at `width` columns.
    pub fn to_text(&self, width: usize) -> String {
        let e = &self.extracted;
        let mut out = format!("Article of {}\n", one_line(&self.url, 2000));
        let content_type = self.content_type.as_deref().map_or("no Content-Type".into(), |c| one_line(c, 200));
        out.push_str(&format!("  fetched:   HTTP {}, {content_type}\n", self.status));
        if self.final_url != self.url {
            out.push_str(&format!("  found at:  {}\n", one_line(&self.final_url, 2000)));
        }
        for (name, value) in
            [("title", &e.title), ("byline", &e.byline), ("site", &e.site_name), ("published", &e.published)]
        {
            if let Some(value) = value {
                out.push_str(&format!("  {:<10} {value}\n", format!("{name}:")));
            }
        }
        let rendered = render_article(&e.html, width, Some(&self.final_url));
        out.push_str(&format!(
            "  length:    {} characters of text, {} link(s){}\n\n",
            e.text_chars,
            rendered.links.len(),
            if e.truncated {
                format!("; only the first {} MB of the page were read", MAX_PAGE_BYTES / (1024 * 1024))
            } else {
                String::new()
            }
        ));
        for line in &rendered.lines {
            out.push_str(line_text(line).trim_end());
            out.push('\n');
        }
        out
    }

    /// The same for tools: the metadata, the sanitized HTML and its plain text.
    pub fn to_json(&self) -> serde_json::Value {
        let e = &self.extracted;
        serde_json::json!({
            "url": self.url,
            "http": {"status": self.status, "content_type": self.content_type, "final_url": self.final_url},
            "title": e.title,
            "byline": e.byline,
            "site_name": e.site_name,
            "published": e.published,
            "excerpt": e.excerpt,
            "text_chars": e.text_chars,
            "truncated": e.truncated,
            "html": e.html,
            "text": crate::text::html_to_plain(&e.html),
        })
    }
}

/// Fetches `url` and extracts its article.
pub async fn fetch_article(fetcher: &Fetcher, url: &str) -> Result<Article, ArticleError> {
    let page = match fetcher.get(url, &Validators::default()).await {
        Ok(FetchOutcome::Fetched(page)) => page,
        Ok(FetchOutcome::NotModified { .. }) => return Err(ArticleError::NotModified),
        Err(e) => return Err(ArticleError::Fetch(e)),
    };
    // Extraction is CPU work (tens of milliseconds on a big page): off the async workers.
    let (body, content_type, final_url) = (page.body, page.content_type.clone(), page.final_url.clone());
    let extracted = tokio::task::spawn_blocking(move || extract_page(&body, content_type.as_deref(), &final_url))
        .await
        .map_err(|e| ExtractError::Failed { reason: e.to_string() })??;
    Ok(Article {
        url: url.to_string(),
        final_url: page.final_url,
        status: page.status,
        content_type: page.content_type,
        extracted,
    })
}
