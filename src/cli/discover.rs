//! `tidings discover URL`: the feeds a page offers, each verified by fetching it.

use super::EXIT_SOME_FAILED;
use crate::config::Config;
use crate::fetch::Fetcher;
use crate::fetch::discovery::{Discovery, discover};
use crate::sanitize::one_line;
use std::io::Write;
use std::process::ExitCode;

pub(super) async fn run(config: &Config, url: &str, json: bool) -> anyhow::Result<ExitCode> {
    let fetcher = Fetcher::new(config.fetch_config()).map_err(anyhow::Error::msg)?;
    let found = discover(&fetcher, url).await;
    if json {
        let value = serde_json::json!({
            "url": found.url,
            "candidates": found.feeds,
            "tried": found.tried,
            "error": found.error,
        });
        writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        std::io::stdout().lock().write_all(describe(&found, &[]).as_bytes())?;
    }
    Ok(if found.feeds.is_empty() { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

/// A discovery for people: the numbered feeds (those `subscribed` says are, already subscribed), or what was
/// tried.
pub(super) fn describe(found: &Discovery, subscribed: &[bool]) -> String {
    let mut out = String::new();
    if let Some(error) = &found.error {
        out.push_str(&format!("Cannot read {}: {}\n", one_line(&found.url, 500), one_line(error, 500)));
        return out;
    }
    match found.feeds.len() {
        0 => {
            out.push_str(&format!("No feed found at {}. Looked at:\n", one_line(&found.url, 500)));
            for t in &found.tried {
                out.push_str(&format!("  - {}\n", one_line(t, 500)));
            }
        }
        n => {
            out.push_str(&format!("{} offers {n} feed{}:\n", one_line(&found.url, 500), if n == 1 { "" } else { "s" }));
            for (i, f) in found.feeds.iter().enumerate() {
                let have = if subscribed.get(i) == Some(&true) { " · already subscribed" } else { "" };
                out.push_str(&format!(
                    "  {}. {} ({})  {}  [{}]{have}\n",
                    i + 1,
                    one_line(f.title.as_deref().unwrap_or("(untitled)"), 200),
                    f.kind.as_str(),
                    one_line(&f.url, 500),
                    f.found_by.describe()
                ));
            }
        }
    }
    out
}
