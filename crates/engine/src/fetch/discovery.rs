//! Finding the feeds of a web address: fetch the page, read what it offers ([`crate::feedlinks`]), and verify each
//! candidate by fetching and parsing it. Common feed addresses are probed only when the page names none.

use super::{FetchError, FetchOutcome, Fetcher, Validators};
use crate::canonical::canonical_url;
use crate::feedlinks::{FoundBy, Lead, common_paths, decode_page, leads};
pub use crate::model::{Discovery, Found};
use futures::StreamExt;

/// Most candidates verified from one page, and how many at a time.
const MAX_LEADS: usize = 30;
const VERIFY_CONCURRENCY: usize = 4;

/// An address as typed: `example.com/blog` gets `https://`.
pub fn normalize_input(input: &str) -> String {
    let input = input.trim();
    if let Some(rest) = input.strip_prefix("feed://") {
        format!("http://{rest}")
    } else if let Some(rest) = input.strip_prefix("feed:") {
        rest.to_string()
    } else if input.contains("://") {
        input.to_string()
    } else {
        format!("https://{input}")
    }
}

/// Finds the feeds `input` offers. Never fails: what went wrong is in [`Discovery::error`] and `tried`.
pub async fn discover(fetcher: &Fetcher, input: &str) -> Discovery {
    let mut url = normalize_input(input);
    let mut report = Discovery { url: url.clone(), ..Discovery::default() };
    let mut got = fetcher.get(&url, &Validators::default()).await;
    // An address typed without a scheme is tried as https, then as http when https cannot even connect (a site
    // with no TLS, a server on the local network).
    let typed_bare = !input.trim().contains("://") && !input.trim().starts_with("feed:");
    if typed_bare && let Err(e @ (FetchError::Connect { .. } | FetchError::Tls { .. })) = &got {
        let plain = format!("http://{}", input.trim());
        report.tried.push(format!("{url}: {e}; then {plain}"));
        url = plain;
        report.url = url.clone();
        got = fetcher.get(&url, &Validators::default()).await;
    }
    let page = match got {
        Ok(FetchOutcome::Fetched(page)) => page,
        Ok(FetchOutcome::NotModified { .. }) => {
            report.error = Some("the server answered 304 Not Modified to a plain request".into());
            return report;
        }
        Err(e) => {
            report.error = Some(e.about(super::Subject::Address));
            return report;
        }
    };
    let tld = crate::decode::tld_of(&page.final_url);
    // The address may be a feed already.
    if let Ok(ingested) = crate::ingest::ingest(&page.body, page.content_type.as_deref(), Some(&page.final_url), None) {
        fetcher.keep_for_first_refresh(&page);
        report.tried.push("the address itself: it is a feed".into());
        report.feeds.push(Found {
            url: page.final_url.clone(),
            title: ingested.feed.title,
            kind: ingested.feed.kind,
            found_by: FoundBy::SelfFeed,
        });
        return report;
    }
    let html = decode_page(&page.body, page.content_type.as_deref(), tld.as_deref());
    let offered = leads(&html, &page.final_url, page.link_header.as_deref());
    let count = |by: FoundBy| offered.iter().filter(|l| l.found_by == by).count();
    report.tried.push(format!("<link> tags in the page: {} feed link(s)", count(FoundBy::LinkTag)));
    report.tried.push(format!("the HTTP Link header: {} feed link(s)", count(FoundBy::LinkHeader)));
    report.tried.push(format!("links in the page that look like feeds: {}", count(FoundBy::BodyLink)));
    let mut found = verify(fetcher, offered.into_iter().take(MAX_LEADS).collect()).await;
    if found.is_empty() {
        let paths = common_paths(&page.final_url);
        report.tried.push(format!(
            "common feed addresses: {}",
            paths
                .iter()
                .map(|p| p.strip_prefix(url_root(&page.final_url).as_str()).unwrap_or(p))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let probes = paths.into_iter().map(|url| Lead { url, title: None, found_by: FoundBy::CommonPath }).collect();
        found = verify(fetcher, probes).await;
    }
    // One entry per feed, by canonical address (two leads may redirect to the same feed).
    let mut seen = Vec::new();
    found.retain(|f| {
        let key = canonical_url(&f.url).unwrap_or_else(|| f.url.clone());
        !seen.contains(&key) && {
            seen.push(key);
            true
        }
    });
    report.feeds = found;
    report
}

fn url_root(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.join("/").ok())
        .map(|u| u.to_string().trim_end_matches('/').to_string())
        .unwrap_or_default()
}

/// Fetches and parses each lead, keeping those that are feeds, in the order given.
async fn verify(fetcher: &Fetcher, leads: Vec<Lead>) -> Vec<Found> {
    let checks = leads.into_iter().map(|lead| async move {
        let Ok(FetchOutcome::Fetched(f)) = fetcher.get(&lead.url, &Validators::default()).await else { return None };
        let ingested = crate::ingest::ingest(&f.body, f.content_type.as_deref(), Some(&f.final_url), None).ok()?;
        fetcher.keep_for_first_refresh(&f);
        Some(Found {
            url: f.final_url,
            title: ingested.feed.title.or(lead.title),
            kind: ingested.feed.kind,
            found_by: lead.found_by,
        })
    });
    futures::stream::iter(checks).buffered(VERIFY_CONCURRENCY).filter_map(|f| async { f }).collect().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_addresses_get_a_scheme() {
        assert_eq!(normalize_input(" example.com/blog "), "https://example.com/blog");
        assert_eq!(normalize_input("http://example.com"), "http://example.com");
        assert_eq!(normalize_input("feed://example.com/rss"), "http://example.com/rss");
        assert_eq!(normalize_input("feed:https://example.com/rss"), "https://example.com/rss");
    }
}
