//! The reader's changes to the config file: a feed's setting set or removed in its `[feeds."URL"]` table, a view
//! saved — each edited in place (comments kept), read again, and taken into use: the browsers of feeds, the
//! per-feed settings and retention (the session's), what retention no longer keeps purged.

use super::opener::Launcher;
use crate::app::Event;
use crate::config::FeedConfig;
use crate::model::FeedId;
use crate::panics::join_message;
use crate::session::Session;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use tokio::sync::mpsc;

/// The config file and its feeds' settings as last read. Cheap to clone.
#[derive(Clone)]
pub(super) struct Settings {
    /// The config file, which saving a view and a feed's setting edit.
    path: Option<PathBuf>,
    /// The feeds' settings in the config (`[feeds."URL"]`), as last read, for the feed info.
    feeds: Arc<RwLock<BTreeMap<String, FeedConfig>>>,
    session: Session,
    launcher: Arc<Launcher>,
    inbox: mpsc::UnboundedSender<Event>,
}

impl Settings {
    pub(super) fn new(
        config: &crate::config::Config,
        session: Session,
        launcher: Arc<Launcher>,
        inbox: mpsc::UnboundedSender<Event>,
    ) -> Settings {
        let feeds = Arc::new(RwLock::new(config.feeds.clone()));
        Settings { path: config.path.clone(), feeds, session, launcher, inbox }
    }

    /// What the feed info shows of the feed at `url`'s settings: its `key = value` lines of the config. For a
    /// reading thread.
    pub(super) fn lines_of(&self) -> impl Fn(&str) -> Vec<String> + Send + 'static {
        let feeds = self.feeds.clone();
        move |url| feeds.read().unwrap_or_else(|e| e.into_inner()).get(url).map(setting_lines).unwrap_or_default()
    }

    /// Sets (`key = value`) or removes (`key`) one of a feed's settings in the config file, then takes the config
    /// as it now reads into use; [`Event::FeedSettingSaved`] says how it went.
    pub(super) fn set_feed_setting(&self, feed_id: FeedId, url: String, setting: String) {
        let this = self.clone();
        tokio::spawn(async move {
            let line = setting.clone();
            let path = this.path.clone();
            let edited = tokio::task::spawn_blocking(move || edit_setting(path, &url, &line)).await;
            let outcome = match edited.map_err(join_message).and_then(|r| r) {
                Ok(config) => {
                    this.launcher.set_feeds(config.feed_browsers());
                    let (feeds, retention) = (config.feed_settings(), config.retention());
                    *this.feeds.write().unwrap_or_else(|e| e.into_inner()) = config.feeds;
                    // Retention holds at once: what it no longer keeps goes now, not at the next start.
                    match this.session.settings_changed(feeds, retention).await {
                        Ok((purged, indexed)) => {
                            let _ = this.inbox.send(Event::FeedSettingSaved { feed_id, setting, outcome: Ok(()) });
                            super::work::report_upkeep(&this.inbox, Ok(0), purged, indexed);
                            return;
                        }
                        Err(e) => Err(format!("saved in the config, but not taken into use: {e}")),
                    }
                }
                Err(why) => Err(why),
            };
            let _ = this.inbox.send(Event::FeedSettingSaved { feed_id, setting, outcome });
        });
    }

    /// Appends a saved view to the config file; [`Event::ViewSaved`] says how it went.
    pub(super) fn save_view(&self, name: String, query: String) {
        let (path, inbox) = (self.path.clone(), self.inbox.clone());
        tokio::task::spawn_blocking(move || {
            let outcome = match path {
                Some(path) => crate::config::edit::append_view(&path, &name, &query).map_err(|e| e.to_string()),
                None => Err("there is no config file to save it in".to_string()),
            };
            let _ = inbox.send(Event::ViewSaved { name, query, outcome });
        });
    }
}

/// A feed's settings as the feed info shows them: `key = value` lines.
fn setting_lines(config: &FeedConfig) -> Vec<String> {
    toml::to_string(config).unwrap_or_default().lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
}

/// Sets (`key = value`, a TOML value) or removes (`key` alone, or `key =`) one setting of the feed at `url` in
/// the config file, and reads the config again: what it now says.
fn edit_setting(path: Option<PathBuf>, url: &str, setting: &str) -> Result<crate::config::Config, String> {
    let Some(path) = path else { return Err("there is no config file to save it in".into()) };
    let (key, value) = match setting.split_once('=') {
        Some((key, value)) => (key.trim(), value.trim()),
        None => (setting.trim(), ""),
    };
    let value = if value.is_empty() {
        None
    } else {
        let doc: toml_edit::DocumentMut = format!("v = {value}").parse().map_err(|_| {
            format!("{value} is not a value: a number (15), true or false, or text in quotes (\"w3m %u\")")
        })?;
        doc.get("v").and_then(|v| v.as_value()).cloned()
    };
    crate::config::edit::set_feed_setting(&path, url, key, value).map_err(|e| e.to_string())?;
    crate::config::Config::load(&path, true).map_err(|e| e.to_string())
}
