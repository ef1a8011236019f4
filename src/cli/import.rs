//! `tidings import FILE.opml` (and `--opml`, and the config's `import_opml`): the subscriptions of an OPML file,
//! then discovery for outlines that name only a site; long files show their progress.

use crate::config::Config;
use crate::fetch::Fetcher;
use crate::import::{ImportProgress, ImportReport, discover_sites, import_file_with_progress};
use std::io::{IsTerminal, Write};
use std::path::Path;

/// Subscriptions an OPML file must hold before its import shows progress.
const IMPORT_PROGRESS_FROM: usize = 10_000;

/// Imports an OPML file, then runs discovery for outlines that name only a site. A long file shows its
/// progress on standard error: one line kept up to date on a terminal, a line every quarter elsewhere.
pub(super) async fn import_with_discovery(db: &Path, config: &Config, file: &Path) -> anyhow::Result<ImportReport> {
    let terminal = std::io::stderr().is_terminal();
    let mut quarters_told = 0;
    let mut report = import_file_with_progress(db, file, |ImportProgress { done, total }| {
        if total < IMPORT_PROGRESS_FROM {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = if terminal {
            write!(err, "\rImporting {done}/{total} subscriptions{}", if done == total { "\n" } else { "" })
        } else if done * 4 >= (quarters_told + 1) * total {
            quarters_told = done * 4 / total;
            writeln!(err, "Importing {done}/{total} subscriptions")
        } else {
            Ok(())
        };
    })?;
    if !report.sites.is_empty() {
        let fetcher = Fetcher::new(config.fetch_config()).map_err(anyhow::Error::msg)?;
        discover_sites(db, &fetcher, &mut report).await?;
    }
    Ok(report)
}
