//! OPML import: read the file (naming it in every error), add its subscriptions in one transaction (linear in
//! their number, with progress for long files), and find the feeds of outlines that name only a web site.
//! Orchestrates `opml` (pure), `store` and `fetch`.

use crate::fetch::Fetcher;
use crate::fetch::discovery::discover;
use crate::model::{Applied, NewFeed, UserWrite};
use crate::opml::{self, Rejected};
use crate::sanitize::one_line;
use crate::store::{self, StoreError};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read OPML file {file}: {source}")]
    Read { file: String, source: std::io::Error },
    #[error("{file}: {reason}")]
    NotOpml { file: String, reason: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an import did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// The file's name, for messages.
    pub file: String,
    pub added: Vec<String>,
    /// Already subscribed, or repeated in the file.
    pub duplicates: Vec<String>,
    /// Outlines that name only a site, waiting for [`discover_sites`].
    pub sites: Vec<NewFeed>,
    /// Sites whose feed discovery found and subscribed: (site, feed).
    pub discovered: Vec<(String, String)>,
    pub failed: Vec<Rejected>,
}

impl ImportReport {
    pub fn has_failures(&self) -> bool {
        !self.failed.is_empty() || !self.sites.is_empty()
    }

    /// One line for the status bar.
    pub fn one_line(&self) -> String {
        let mut s = format!(
            "Imported {}: {} added, {} duplicates",
            self.file,
            self.added.len() + self.discovered.len(),
            self.duplicates.len()
        );
        if !self.discovered.is_empty() {
            s.push_str(&format!(" ({} found by discovery)", self.discovered.len()));
        }
        if !self.sites.is_empty() {
            s.push_str(&format!(", {} need discovery", self.sites.len()));
        }
        if !self.failed.is_empty() {
            s.push_str(&format!(", {} failed", self.failed.len()));
        }
        s
    }

    /// The whole report, a line each.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!("added       {}", self.added.len()),
            format!("duplicates  {}", self.duplicates.len()),
            format!("discovered  {}", self.discovered.len()),
        ];
        for (site, feed) in &self.discovered {
            out.push(format!("  {} → {}", one_line(site, 300), one_line(feed, 300)));
        }
        if !self.sites.is_empty() {
            out.push(format!("need discovery  {}", self.sites.len()));
            for site in &self.sites {
                out.push(format!("  {}: names a web site, not a feed", one_line(&site.url, 300)));
            }
        }
        out.push(format!("failed      {}", self.failed.len()));
        for r in &self.failed {
            out.push(format!("  {}: {}", one_line(&r.outline, 300), one_line(&r.reason, 300)));
        }
        out
    }

    pub fn render(&self) -> String {
        let mut out = format!("Imported {}\n", self.file);
        for line in self.lines() {
            out.push_str(&format!("  {line}\n"));
        }
        out
    }
}

/// Reads and parses an OPML file. A file that is not OPML is an error naming it.
pub fn read_opml(file: &Path) -> Result<opml::OpmlDocument, ImportError> {
    let name = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|source| ImportError::Read { file: name.clone(), source })?;
    let text = crate::decode::decode(&bytes, None, None)
        .map(|d| d.text)
        .map_err(|e| ImportError::NotOpml { file: name.clone(), reason: format!("not an OPML file: {e}") })?;
    opml::parse(&text).map_err(|e| ImportError::NotOpml { file: name, reason: e.to_string() })
}

/// Reads an OPML file and adds its subscriptions in one transaction; nothing is added when the file is not
/// OPML. Site-only outlines are left in [`ImportReport::sites`] for [`discover_sites`].
pub fn import_file(db: &Path, file: &Path) -> Result<ImportReport, ImportError> {
    import_file_with_progress(db, file, |_| {})
}

/// How far an import has got: the subscriptions it has handled, of how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportProgress {
    pub done: usize,
    pub total: usize,
}

/// [`import_file`], telling `progress` how far it has got while it adds subscriptions.
pub fn import_file_with_progress(
    db: &Path,
    file: &Path,
    mut progress: impl FnMut(ImportProgress),
) -> Result<ImportReport, ImportError> {
    let doc = read_opml(file)?;
    let mut conn = store::open_write(db)?;
    let total = doc.feeds.len();
    let now = chrono::Utc::now().timestamp();
    let write = UserWrite::Import { feeds: doc.feeds, folders: doc.folders };
    let outcome =
        match store::apply_with_progress(&mut conn, &write, now, &mut |done| progress(ImportProgress { done, total }))?
        {
            Applied::Imported(outcome) => outcome,
            other => return Err(StoreError::Conflict(format!("an import was answered with {other:?}")).into()),
        };
    // The OPML categories of the feeds it added are their tags (`feedtag` in queries).
    for (url, tags) in doc.tags.into_iter().filter(|(url, _)| outcome.added.contains(url)) {
        if let Some(feed_id) = store::feeds::local_id(&conn, &url)? {
            store::apply(&mut conn, &UserWrite::SetFeedTags { feed_id, tags }, now)?;
        }
    }
    let mut duplicates = outcome.duplicates;
    duplicates.extend(doc.duplicates);
    Ok(ImportReport {
        file: file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| file.display().to_string()),
        added: outcome.added,
        duplicates,
        sites: doc.sites,
        discovered: Vec::new(),
        failed: doc.rejected,
    })
}

/// Runs discovery for the report's site-only outlines, subscribing to the first feed each site offers (in the
/// outline's folder); sites with none become failures that say what was tried.
pub async fn discover_sites(db: &Path, fetcher: &Fetcher, report: &mut ImportReport) -> Result<(), ImportError> {
    let sites = std::mem::take(&mut report.sites);
    let mut found = Vec::new();
    for site in sites {
        let discovery = discover(fetcher, &site.url).await;
        match discovery.feeds.into_iter().next() {
            Some(feed) => found.push((site, feed)),
            None => report.failed.push(Rejected {
                outline: site.url,
                reason: match discovery.error {
                    Some(e) => format!("names a web site, and it could not be read: {e}"),
                    None => format!("names a web site that offers no feed (looked at: {})", discovery.tried.join("; ")),
                },
            }),
        }
    }
    let mut conn = store::open_write(db)?;
    let now = chrono::Utc::now().timestamp();
    for (site, feed) in found {
        let new = NewFeed {
            url: feed.url.clone(),
            title: feed.title,
            name: site.name,
            site_url: Some(site.url.clone()),
            folder: site.folder,
        };
        let added =
            matches!(store::apply(&mut conn, &UserWrite::AddFeed(new), now)?, Applied::Subscribed { added: true, .. });
        if added {
            report.discovered.push((site.url, feed.url));
        } else {
            report.duplicates.push(feed.url);
        }
    }
    Ok(())
}
