//! `tidings import newsboat`: a newsboat home carried over in one command. Finds the home (`~/.newsboat`, or
//! `$XDG_CONFIG_HOME/newsboat` with the cache in `$XDG_DATA_HOME/newsboat`, or the files named), reads the
//! `urls` file and the `config` a line at a time (`files`) and the cache (`cache.db`, SQLite, opened read-only:
//! `cache`), each within bounds, turns them into tidings's terms (`crate::newsboat`, pure), writes the
//! subscriptions and entries through the store's one write path ([`UserWrite::CarryOver`]) and the settings into
//! tidings's config file (`settings`: keys it already sets are left alone), and says item by item what came over
//! and what did not, and why (`report`): what a bound left out too. Running it twice changes nothing the second
//! time.

mod cache;
mod files;
mod keys;
mod queue;
mod report;
mod settings;

use crate::model::{Applied, CarriedEntry, CarriedFeed, CarryOutcome, NewFeed, UserWrite};
use crate::store::{self, StoreError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tidings_core::newsboat::config::Migrated;
use tidings_core::newsboat::filter::{Context, FeedFacts};
use tidings_core::newsboat::items;
use tidings_core::newsboat::urls;

#[derive(Debug, thiserror::Error)]
pub enum NewsboatError {
    #[error(
        "no newsboat home found (looked for {looked}); name its files with --urls FILE (and --cache FILE, \
         --config FILE)"
    )]
    NoHome { looked: String },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("newsboat's cache {path}: {message}; check it is newsboat's cache.db, or leave --cache out")]
    Cache { path: PathBuf, message: String },
    #[error("cannot write the config file {path}: {source}")]
    WriteConfig { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where newsboat's files are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Home {
    pub urls: PathBuf,
    pub cache: Option<PathBuf>,
    pub config: Option<PathBuf>,
    /// podboat's download queue (`queue`, beside the cache).
    pub queue: Option<PathBuf>,
}

impl Home {
    /// The files named on the command line, the others found where newsboat keeps them: `~/.newsboat`, else
    /// `$XDG_CONFIG_HOME/newsboat` (urls, config) and `$XDG_DATA_HOME/newsboat` (cache.db).
    pub fn find(urls: Option<&Path>, cache: Option<&Path>, config: Option<&Path>) -> Result<Home, NewsboatError> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let xdg = |var: &str, fallback: &str| {
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(fallback)))
                .map(|d| d.join("newsboat"))
        };
        let dot = home.as_ref().map(|h| h.join(".newsboat")).filter(|d| d.is_dir());
        let (config_dir, data_dir) = match dot {
            Some(dir) => (Some(dir.clone()), Some(dir)),
            None => (xdg("XDG_CONFIG_HOME", ".config"), xdg("XDG_DATA_HOME", ".local/share")),
        };
        let existing = |p: Option<PathBuf>| p.filter(|p| p.is_file());
        let urls = match urls {
            Some(u) => u.to_path_buf(),
            None => existing(config_dir.as_ref().map(|d| d.join("urls"))).ok_or_else(|| NewsboatError::NoHome {
                looked: [
                    home.as_ref().map(|h| h.join(".newsboat/urls")),
                    xdg("XDG_CONFIG_HOME", ".config").map(|d| d.join("urls")),
                ]
                .into_iter()
                .flatten()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            })?,
        };
        let near_urls = |name: &str| urls.parent().map(|d| d.join(name));
        let cache = match cache {
            Some(c) => Some(c.to_path_buf()),
            None => existing(data_dir.as_ref().map(|d| d.join("cache.db"))).or_else(|| existing(near_urls("cache.db"))),
        };
        let config = match config {
            Some(c) => Some(c.to_path_buf()),
            None => existing(config_dir.as_ref().map(|d| d.join("config"))).or_else(|| existing(near_urls("config"))),
        };
        let queue = existing(data_dir.as_ref().map(|d| d.join("queue"))).or_else(|| existing(near_urls("queue")));
        Ok(Home { urls, cache, config, queue })
    }
}

/// What one carrying-over did, for the report.
#[derive(Debug, Default)]
pub struct Report {
    pub home: Option<Home>,
    pub outcome: CarryOutcome,
    pub feeds_in_urls: usize,
    pub items_in_cache: usize,
    /// Items of feeds the urls file no longer lists.
    pub items_unsubscribed: usize,
    pub enqueued: usize,
    /// Flags besides the star, by letter: (letter, entries).
    pub other_flags: Vec<(char, usize)>,
    pub skipped_urls: Vec<urls::Skipped>,
    /// `filter:` feeds, subscribed at their URL without the script: (line, script, URL).
    pub filtered: Vec<(usize, String, String)>,
    /// Query feeds: name, newsboat's expression, tidings's query (or why none).
    pub views: Vec<(String, String, Result<String, String>)>,
    pub migrated: Migrated,
    /// Config settings written, and those the config file already set (left as they were).
    pub config_written: Vec<String>,
    pub config_kept: Vec<String>,
    pub config_file: Option<PathBuf>,
    /// Keys earlier imports added (from the database's record), keys this one added, and what it says of keys.
    pub keys_before: std::collections::BTreeSet<(String, String)>,
    pub keys_added: Vec<(String, String)>,
    pub key_notes: Vec<String>,
    /// Keys written that another action had, with what it keeps.
    pub key_told: Vec<String>,
    /// `q` goes back a level once the keys are written (see `keys::KeyPlan::q_is_back`).
    pub q_is_back: bool,
    /// Why the settings could not be written, when they could not.
    pub config_error: Option<String>,
    /// Query feeds written to the config file as saved views (`[[views]]`), by name; `ignore-article` lines
    /// written as kill rules (`[[ignore]]`); how many of either the file already had (left as they were).
    pub views_written: Vec<String>,
    pub rules_written: usize,
    /// Entries the kill rules hide, judged at the import.
    pub killed: usize,
    pub rules_present: usize,
    /// Views and kill rules that were not written, with why.
    pub rules_refused: Vec<String>,
    /// Titles and other texts of the cache that were not UTF-8 (read with replacement characters).
    pub titles_not_utf8: usize,
    pub texts_not_utf8: usize,
    /// Why reading the cache stopped before its end, when a bound stopped it.
    pub cache_cut: Option<String>,
    /// podboat's download queue, when there was one.
    pub queue: Option<queue::QueueReport>,
}

/// Carries a newsboat home over into the database `db` and the config file `config_file`; podboat's downloads
/// whose queue line names no file go to `download_dir`.
pub fn import(db: &Path, config_file: &Path, home: Home, download_dir: &Path) -> Result<Report, NewsboatError> {
    let urls_file = files::read(&home.urls)?;
    let mut file = urls::parse(&urls_file.text);
    file.skipped.extend(urls_file.skipped.into_iter().map(|(line, text, why)| urls::Skipped { line, text, why }));
    file.skipped.sort_by_key(|s| s.line);
    let cache = match &home.cache {
        Some(path) => cache::read_cache(path)?,
        None => cache::Cache::default(),
    };
    let mut report = Report {
        feeds_in_urls: file.feeds.len(),
        titles_not_utf8: cache.titles_not_utf8,
        texts_not_utf8: cache.texts_not_utf8,
        cache_cut: cache.cut.clone(),
        ..Report::default()
    };

    // Subscriptions: the cache knows their titles and sites.
    let carried: Vec<CarriedFeed> = file
        .feeds
        .iter()
        .map(|s| {
            let known = cache.feeds.get(&urls::feed_key(&s.url));
            CarriedFeed {
                feed: NewFeed {
                    url: s.url.clone(),
                    title: known.map(|f| f.1.clone()).filter(|t| !t.is_empty()),
                    name: s.name.clone(),
                    site_url: known.map(|f| f.0.clone()).filter(|u| u.starts_with("http")),
                    folder: s.folder(),
                },
                hidden: s.hidden,
                // Every tag, the folder's too: `feedtag = "…"` finds a feed by any of them.
                tags: s.tags.clone(),
            }
        })
        .collect();
    let context = Context {
        feeds: carried
            .iter()
            .zip(&file.feeds)
            .map(|(c, s)| FeedFacts {
                url: c.feed.url.clone(),
                name: c.feed.name.clone().or_else(|| c.feed.title.clone()).unwrap_or_else(|| c.feed.url.clone()),
                folder: c.feed.folder.join("/"),
                tags: s.tags.clone(),
            })
            .collect(),
    };

    // Entries, with their state; deleted ones are remembered so a refresh does not bring them back. Each goes to
    // its subscription whichever spelling of the address the cache has.
    let subscribed: HashMap<String, &str> =
        file.feeds.iter().map(|f| (urls::feed_key(&f.url), f.url.as_str())).collect();
    let mut owners: HashMap<&str, Option<&str>> = HashMap::new();
    let mut entries = Vec::new();
    let mut gone = Vec::new();
    let mut flags: HashMap<char, usize> = HashMap::new();
    report.items_in_cache = cache.items.len();
    for item in &cache.items {
        let owner = owners
            .entry(item.feed_url.as_str())
            .or_insert_with(|| subscribed.get(&urls::feed_key(urls::cached_feed_url(&item.feed_url))).copied());
        let Some(feed_url) = *owner else {
            report.items_unsubscribed += 1;
            continue;
        };
        let identity = items::identity(item);
        if item.deleted {
            gone.push((feed_url.to_string(), identity.key));
            continue;
        }
        for c in item.flags.chars().filter(|c| c.is_ascii_alphabetic() && *c != 's') {
            *flags.entry(c).or_default() += 1;
        }
        report.enqueued += usize::from(cache.enqueued.contains(&(item.feed_url.clone(), item.guid.clone())));
        entries.push(CarriedEntry {
            feed_url: feed_url.to_string(),
            entry: items::entry(item),
            aliases: identity.aliases,
            read: !item.unread,
            starred: items::is_flagged(item),
        });
    }
    report.other_flags = flags.into_iter().collect();
    report.other_flags.sort_unstable();

    let mut conn = store::open_write(db)?;
    let now = chrono::Utc::now().timestamp();
    let write = UserWrite::CarryOver { feeds: carried, entries, gone };
    report.outcome = match store::apply(&mut conn, &write, now)? {
        Applied::CarriedOver(outcome) => outcome,
        other => return Err(StoreError::Conflict(format!("carrying over was answered with {other:?}")).into()),
    };
    drop(conn);

    report.views = file
        .queries
        .iter()
        .map(|q| {
            (q.name.clone(), q.expression.clone(), tidings_core::newsboat::filter::convert(&q.expression, &context))
        })
        .collect();
    report.filtered = file.feeds.iter().filter_map(|f| Some((f.line, f.filter.clone()?, f.url.clone()))).collect();
    report.skipped_urls = file.skipped;
    if let Some(path) = &home.config {
        let config = files::read(path)?;
        report.migrated = tidings_core::newsboat::config::migrate(&config.text, &context);
        report.migrated.skipped.extend(config.skipped);
        report.migrated.skipped.sort_by_key(|s| s.0);
        let conn = store::open_write(db)?;
        report.keys_before = keys::read_record(store::preferences::get(&conn, keys::RECORD)?.as_deref());
        drop(conn);
        settings::write_settings(config_file, &mut report)?;
        if !report.keys_added.is_empty() {
            let mut record = report.keys_before.clone();
            record.extend(report.keys_added.iter().cloned());
            let write =
                UserWrite::SetPreference { name: keys::RECORD.into(), value: Some(keys::write_record(&record)) };
            store::apply(&mut store::open_write(db)?, &write, chrono::Utc::now().timestamp())?;
        }
    }
    settings::write_rules(config_file, &mut report)?;
    if let Some(path) = &home.queue {
        report.queue = Some(queue::import(db, path, download_dir)?);
    }
    // The kill rules (those imported and those the file had) hide their entries now, not at the first refresh:
    // the first start shows and counts what newsboat showed.
    if let Ok(config) = crate::config::Config::load(config_file, false) {
        let rules = config.kill_rules();
        if !rules.is_empty() {
            let mut conn = store::open_write(db)?;
            report.killed = store::query::apply_rules(&mut conn, &rules, chrono::Utc::now().timestamp())?.0;
        }
    }
    report.home = Some(home);
    Ok(report)
}
