//! `tidings inspect URL|FILE`: one feed fetched (or read), decoded and parsed, and what was decided, explained;
//! with `--full-text`, what article extraction finds in a page. Writes nothing.

use super::{EXIT_SOME_FAILED, EXIT_USAGE};
use crate::config::Config;
use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::inspect::{Http, Report};
use crate::sanitize::one_line;
use anyhow::Context;
use std::io::Write;
use std::process::ExitCode;

pub(super) async fn run(
    config: &Config,
    target: &str,
    content_type: Option<&str>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let is_url = target.starts_with("http://") || target.starts_with("https://");
    let report = if is_url {
        let fetcher = Fetcher::new(config.fetch_config()).map_err(anyhow::Error::msg)?;
        match fetcher.get(target, &Validators::default()).await {
            Ok(FetchOutcome::Fetched(f)) => {
                let http =
                    Http { status: f.status, content_type: f.content_type.clone(), final_url: f.final_url.clone() };
                Report::build(target, Some(http), &f.body, f.content_type.as_deref())
            }
            Ok(FetchOutcome::NotModified { .. }) => Report {
                source: target.to_string(),
                http: None,
                decision: None,
                feed: None,
                error: Some("answered 304 Not Modified to a request without validators".into()),
            },
            Err(e) => Report {
                source: target.to_string(),
                http: None,
                decision: None,
                feed: None,
                error: Some(e.to_string()),
            },
        }
    } else {
        let bytes = std::fs::read(target).with_context(|| format!("cannot read {target}"))?;
        Report::build(target, None, &bytes, content_type)
    };
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report.to_json())?)?;
    } else {
        out.write_all(report.to_text().as_bytes())?;
    }
    out.flush()?;
    Ok(if report.error.is_some() { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

pub(super) async fn full_text(config: &Config, url: &str, json: bool) -> anyhow::Result<ExitCode> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        note!("tidings: --full-text needs the http(s) address of a web page, not {}", one_line(url, 500));
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let fetcher = Fetcher::new(config.fetch_config()).map_err(anyhow::Error::msg)?;
    match crate::fetch::article::fetch_article(&fetcher, url).await {
        Ok(article) if json => writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(&article.to_json())?)?,
        Ok(article) => write!(std::io::stdout(), "{}", article.to_text(80))?,
        Err(e) => {
            if json {
                let answer = serde_json::json!({"url": url, "error": e.to_string()});
                writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(&answer)?)?;
            }
            note!("tidings: no article from {}: {}", one_line(url, 500), one_line(&e.to_string(), 1000));
            return Ok(ExitCode::from(EXIT_SOME_FAILED));
        }
    }
    Ok(ExitCode::SUCCESS)
}
