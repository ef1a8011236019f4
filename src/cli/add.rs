//! `tidings add URL`: subscribe to a feed — a page's address goes through discovery — and fetch it at once, with
//! its `[feeds."URL"]` settings from the first fetch.

use super::{EXIT_SOME_FAILED, EXIT_USAGE};
use crate::config::Config;
use crate::fetch::discovery::discover;
use crate::model::{Applied, NewFeed, UserWrite};
use crate::refresh::{Observer, RefreshEvent, Which};
use crate::sanitize::{one_line, without_password};
use crate::session::{Role, Session};
use crate::store;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// The new feed's refresh says nothing as it goes: its result is the one line printed.
struct Quiet;

impl Observer for Quiet {
    fn feed(&self, _: RefreshEvent) {}
}

pub(super) async fn run(
    db: &Path,
    config: &Config,
    url: &str,
    folder: Option<String>,
    pick: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let session = Session::open(db, config.session_settings(), Role::Command)?;
    let found = discover(session.fetcher(), url).await;
    // Which of the feeds found are subscribed already, as the reader's picker says.
    let urls: Vec<String> = found.feeds.iter().map(|f| f.url.clone()).collect();
    let subscribed = session
        .writer()
        .call(move |c| urls.iter().map(|u| Ok(store::feeds::local_id(c, u)?.is_some())).collect::<Result<Vec<_>, _>>())
        .await?;
    let chosen = match (found.feeds.len(), pick) {
        (0, _) => {
            note_part!("{}", super::discover::describe(&found, &subscribed));
            return Ok(ExitCode::from(EXIT_SOME_FAILED));
        }
        (n, Some(p)) if p == 0 || p > n => {
            note_part!("{}", super::discover::describe(&found, &subscribed));
            note!("--pick {p}: choose a number from 1 to {n}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        (_, Some(p)) => &found.feeds[p - 1],
        (1, None) => &found.feeds[0],
        (n, None) => {
            note_part!("{}", super::discover::describe(&found, &subscribed));
            note!("{n} feeds found: run again with --pick N to choose one");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    // A feed found elsewhere than at the address given: say where, and how (a common address guessed on the same
    // site may be one already subscribed).
    if chosen.found_by != crate::feedlinks::FoundBy::SelfFeed {
        let how = chosen.found_by.describe();
        note!(
            "{} is not a feed; found {} ({how})",
            one_line(&without_password(&found.url), 500),
            one_line(&without_password(&chosen.url), 500)
        );
    }
    // A path ("Tech/Rust") names a folder inside another.
    let folder = folder.as_deref().map(store::folders::split_path).unwrap_or_default();
    let new_folder = folder.clone();
    let new = NewFeed { url: chosen.url.clone(), title: chosen.title.clone(), name: None, site_url: None, folder };
    let applied = session.apply(UserWrite::AddFeed(new)).await?;
    let Applied::Subscribed { feed_id, added } = applied else {
        anyhow::bail!("adding the feed was answered with {applied:?}; please report this");
    };
    let title = one_line(&without_password(chosen.title.as_deref().unwrap_or(&chosen.url)), 200);
    if !added {
        // Where it is (an account's feed is in the account's folder), not a second copy.
        let reader = session.reader("tidings-add")?;
        let info = reader.call(move |c| store::feeds::feed_info(c, feed_id)).await?;
        let place = info.and_then(|i| i.row.folder).map(|f| format!(", in {}", one_line(&f, 200))).unwrap_or_default();
        writeln!(
            std::io::stdout().lock(),
            "Already subscribed to {title} ({}){place}",
            one_line(&without_password(&chosen.url), 500)
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    // In an account's folder: the account syncs now, which subscribes it on the server and brings its entries.
    let account = new_folder.first().and_then(|top| {
        config.accounts.iter().find(|a| *top == a.name || top.starts_with(&format!("{} (account", a.name)))
    });
    if let Some(account) = account {
        let names = [account.name.clone()];
        let synced = session.sync(Some(&names), &super::sync::Told).await;
        super::sync::say_accounts(&mut std::io::stdout().lock(), &synced)?;
        return Ok(if super::sync::any_failed(&synced) { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS });
    }
    let summary = session
        .refresh(Which::Feeds(vec![feed_id]), true, Arc::new(Quiet))
        .await
        .refreshed
        .map_err(anyhow::Error::msg)?;
    writeln!(
        std::io::stdout().lock(),
        "Subscribed to {title} ({}): {}",
        one_line(&without_password(&chosen.url), 500),
        crate::text::counted(summary.new_entries, "entry", "entries")
    )?;
    Ok(if summary.failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}
