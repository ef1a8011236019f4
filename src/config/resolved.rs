//! What the config says, resolved for those who use it: the engine's [`Settings`](crate::session::Settings)
//! (composed once, per subsystem), the kill rules and views as queries, the browser and player as command lines,
//! retention per feed, the picture cache.

use super::Config;
use crate::command::CommandLine;
use crate::model::Sort;
use std::path::PathBuf;
use std::time::Duration;

impl Config {
    /// The thresholds feed health judges by (`dead_after_days`, `quiet_after_days`).
    pub fn health_rules(&self) -> crate::health::HealthRules {
        crate::health::HealthRules {
            dead_after_days: i64::from(self.dead_after_days),
            quiet_after_days: i64::from(self.quiet_after_days),
        }
    }

    /// The kill rules as queries: each `[[ignore]]`'s query, narrowed to its feed or folder.
    pub fn kill_rules(&self) -> Vec<crate::query::Query> {
        use crate::query::{Condition, Field, Op, Query, Value, parse};
        self.ignore
            .iter()
            .filter_map(|rule| {
                let query = parse(rule.query.get_ref()).ok()?;
                let scope = match (&rule.feed, &rule.folder) {
                    (Some(feed), _) => Some((Field::Feed, feed)),
                    (None, Some(folder)) => Some((Field::Folder, folder)),
                    (None, None) => None,
                };
                Some(match scope {
                    Some((field, name)) => {
                        let value = Value::Text { text: name.clone(), prefix: false };
                        query.and(Query::Cond(Condition { field, op: Op::Eq, value }))
                    }
                    None => query,
                })
            })
            .collect()
    }

    /// The saved views: name and query.
    pub fn saved_views(&self) -> Vec<(String, String)> {
        self.views.iter().map(|v| (v.name.clone(), v.query.get_ref().clone())).collect()
    }

    /// The orders of lists the reader has not been told another for: `sort`, and the `sort` of feeds (by URL)
    /// and views (by query).
    pub fn sorts(&self) -> Sorts {
        let named = |s: &Option<String>| s.as_deref().and_then(Sort::from_name);
        Sorts {
            default: Sort::from_name(&self.sort).unwrap_or_default(),
            feeds: self.feeds.iter().filter_map(|(url, f)| Some((url.clone(), named(&f.sort)?))).collect(),
            views: self.views.iter().filter_map(|v| Some((v.query.get_ref().clone(), named(&v.sort)?))).collect(),
        }
    }

    /// The `browser` setting, when there is one.
    pub fn browser_command(&self) -> Option<CommandLine> {
        CommandLine::parse(self.browser.as_deref()?, self.browser_in_terminal).ok()
    }

    /// The feeds with a browser of their own (`[feeds."URL"] browser`), by URL; `browser_in_terminal` says
    /// how they run, as for `browser`.
    pub fn feed_browsers(&self) -> std::collections::HashMap<String, CommandLine> {
        self.feeds
            .iter()
            .filter_map(|(url, f)| {
                Some((url.clone(), CommandLine::parse(f.browser.as_deref()?, self.browser_in_terminal).ok()?))
            })
            .collect()
    }

    /// The `player` setting, when there is one.
    pub fn player_command(&self) -> Option<CommandLine> {
        CommandLine::parse(self.player.as_deref()?, self.player_in_terminal).ok()
    }

    /// Where pictures are kept between sessions (the cache directory, XDG's on Linux), and how much.
    pub fn picture_cache(&self) -> (Option<PathBuf>, u64) {
        let dir = directories::ProjectDirs::from("", "", "tidings").map(|d| d.cache_dir().join("pictures"));
        (dir, self.image_cache_mb * 1024 * 1024)
    }

    /// The fetcher's settings.
    pub fn fetch_config(&self) -> crate::fetch::FetchConfig {
        crate::fetch::FetchConfig {
            connect_timeout: self.connect_timeout(),
            timeout: self.timeout(),
            max_body_bytes: self.max_feed_bytes(),
        }
    }

    /// What the engine needs of this config, per subsystem: what every front end opens its
    /// [`Session`](crate::session::Session) with.
    pub fn session_settings(&self) -> crate::session::Settings {
        crate::session::Settings {
            fetch: self.fetch_config(),
            concurrency: self.concurrency,
            per_host_concurrency: self.per_host_concurrency,
            forced_encodings: self.encoding.clone(),
            feeds: self.feed_settings(),
            retention: self.retention(),
            kill_rules: self.kill_rules(),
            notifier: crate::refresh::notify::Notifier::new(self.notify_command.as_deref(), &self.notify),
            accounts: self.accounts.clone(),
            hooks: self.hook_settings(),
            downloads: self.download_settings(),
        }
    }

    /// Where and how enclosures are downloaded (`download_dir`, `download_name`, `max_downloads`,
    /// `download_rate_limit_kb`, `auto_download`, and each feed's own).
    pub fn download_settings(&self) -> crate::downloads::DownloadSettings {
        let feeds = self
            .feeds
            .iter()
            .filter(|(_, f)| {
                f.download_dir.is_some()
                    || f.download_name.is_some()
                    || f.download_command.is_some()
                    || f.auto_download.is_some()
            })
            .map(|(url, f)| {
                let own = crate::downloads::FeedDownloads {
                    dir: f.download_dir.as_deref().map(expand_home),
                    template: f.download_name.clone(),
                    command: f.download_command.as_deref().and_then(|l| CommandLine::parse(l, Some(false)).ok()),
                    auto: f.auto_download,
                };
                (url.clone(), own)
            })
            .collect();
        crate::downloads::DownloadSettings {
            dir: self.download_dir.as_deref().map_or_else(default_download_dir, expand_home),
            template: self.download_name.clone(),
            max_at_once: self.max_downloads,
            rate_limit: (self.download_rate_limit_kb > 0).then(|| self.download_rate_limit_kb * 1024),
            auto: self.auto_download,
            feeds,
            ..Default::default()
        }
    }

    pub fn connect_timeout(&self) -> Duration {
        Duration::from_secs(self.connect_timeout_secs)
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs)
    }

    /// The per-feed settings the cache keeps (see [`crate::store::feeds::apply_settings`]): the default for
    /// every feed, and each `[feeds."URL"]`'s.
    pub fn feed_settings(&self) -> crate::session::FeedSettingsTable {
        use crate::store::feeds::FeedSettings;
        let default = FeedSettings {
            notify: self.notify_every_feed,
            hide_from_unread: false,
            refresh_minutes: None,
            honour_ttl: true,
            full_text: None,
        };
        let feeds = self
            .feeds
            .iter()
            .map(|(url, f)| {
                let settings = FeedSettings {
                    notify: f.notify.unwrap_or(default.notify),
                    hide_from_unread: f.hide_from_unread.unwrap_or(false),
                    refresh_minutes: f.refresh_minutes,
                    honour_ttl: f.honour_ttl.unwrap_or(true),
                    full_text: f.full_text,
                };
                (url.clone(), settings)
            })
            .collect();
        crate::session::FeedSettingsTable { default, feeds }
    }

    /// How often the reader looks for feeds due: the automatic refresh interval in seconds; when that is off
    /// but some feeds have their own `refresh_minutes`, a century (only those feeds are ever due).
    pub fn auto_refresh_secs(&self) -> Option<i64> {
        self.refresh_interval_secs()
            .or_else(|| self.feeds.values().any(|f| f.refresh_minutes.is_some()).then_some(100 * 365 * 86_400))
    }

    /// The automatic refresh interval in seconds, or `None` when automatic refreshes are off.
    pub fn refresh_interval_secs(&self) -> Option<i64> {
        (self.refresh_interval_minutes > 0).then(|| self.refresh_interval_minutes as i64 * 60)
    }

    pub fn max_feed_bytes(&self) -> u64 {
        self.max_feed_size_mb * 1024 * 1024
    }

    /// What is kept and for how long: the top-level keys, and each `[feeds."URL"]` over them.
    pub fn retention(&self) -> crate::store::purge::Policy {
        use crate::store::purge::{Policy, Retention};
        let default = Retention {
            keep_days: self.keep_days,
            max_entries: self.max_entries_per_feed,
            purge_unread: self.purge_unread,
        };
        let feeds = self
            .feeds
            .iter()
            .map(|(url, f)| {
                let retention = Retention {
                    keep_days: f.keep_days.unwrap_or(default.keep_days),
                    max_entries: f.max_entries_per_feed.unwrap_or(default.max_entries),
                    purge_unread: f.purge_unread.unwrap_or(default.purge_unread),
                };
                (url.clone(), retention)
            })
            .collect();
        Policy { default, feeds }
    }
}

/// The platform's download folder, `tidings` inside; without one, `Downloads/tidings` in the home folder.
fn default_download_dir() -> PathBuf {
    let dirs = directories::UserDirs::new();
    let base = dirs.as_ref().and_then(|d| d.download_dir().map(PathBuf::from));
    let base = base.or_else(|| dirs.as_ref().map(|d| d.home_dir().join("Downloads")));
    base.unwrap_or_else(|| PathBuf::from("Downloads")).join("tidings")
}

/// `~/x` as the home folder's `x`.
fn expand_home(path: &std::path::Path) -> PathBuf {
    match (path.strip_prefix("~"), directories::UserDirs::new()) {
        (Ok(rest), Some(dirs)) => dirs.home_dir().join(rest),
        _ => path.to_path_buf(),
    }
}

/// The orders of lists the reader has not been told another for (see [`Config::sorts`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sorts {
    pub default: Sort,
    /// By the feed's address.
    pub feeds: std::collections::HashMap<String, Sort>,
    /// By the view's query.
    pub views: std::collections::HashMap<String, Sort>,
}
