//! `tidings import newsboat`: a newsboat home carried over in one command. Finds the home (`~/.newsboat`, or
//! `$XDG_CONFIG_HOME/newsboat` with the cache in `$XDG_DATA_HOME/newsboat`, or the files named), reads the
//! `urls` file, the cache (`cache.db`, SQLite, opened read-only) and the `config`, turns them into tidings's
//! terms (`crate::newsboat`, pure), writes the subscriptions and entries through the store's one write path
//! ([`UserWrite::CarryOver`]) and the settings into tidings's config file (keys it already sets are left
//! alone), and says item by item what came over and what did not, and why. Running it twice changes nothing the
//! second time.

use crate::model::{Applied, CarriedEntry, CarriedFeed, CarryOutcome, NewFeed, UserWrite};
use crate::sanitize::one_line;
use crate::store::{self, StoreError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tidings_core::newsboat::config::{Migrated, Value};
use tidings_core::newsboat::filter::{Context, FeedFacts};
use tidings_core::newsboat::items::{self, CachedItem};
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
        Ok(Home { urls, cache, config })
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
    /// Query feeds: name, newsboat's expression, tidings's query (or why none).
    pub views: Vec<(String, String, Result<String, String>)>,
    pub migrated: Migrated,
    /// Config settings written, and those the config file already set (left as they were).
    pub config_written: Vec<String>,
    pub config_kept: Vec<String>,
    pub config_file: Option<PathBuf>,
    /// Why the settings could not be written, when they could not.
    pub config_error: Option<String>,
    /// Query feeds written to the config file as saved views (`[[views]]`), by name; `ignore-article` lines
    /// written as kill rules (`[[ignore]]`); how many of either the file already had (left as they were).
    pub views_written: Vec<String>,
    pub rules_written: usize,
    pub rules_present: usize,
    /// Views and kill rules that were not written, with why.
    pub rules_refused: Vec<String>,
}

/// Carries a newsboat home over into the database `db` and the config file `config_file`.
pub fn import(db: &Path, config_file: &Path, home: Home) -> Result<Report, NewsboatError> {
    let read = |path: &Path| {
        std::fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|source| NewsboatError::Read { path: path.to_path_buf(), source })
    };
    let file = urls::parse(&read(&home.urls)?);
    let cache = match &home.cache {
        Some(path) => read_cache(path)?,
        None => Cache::default(),
    };
    let mut report = Report { feeds_in_urls: file.feeds.len(), ..Report::default() };

    // Subscriptions: the cache knows their titles and sites.
    let carried: Vec<CarriedFeed> = file
        .feeds
        .iter()
        .map(|s| {
            let known = cache.feeds.get(&s.url);
            CarriedFeed {
                feed: NewFeed {
                    url: s.url.clone(),
                    title: known.map(|f| f.1.clone()).filter(|t| !t.is_empty()),
                    name: s.name.clone(),
                    site_url: known.map(|f| f.0.clone()).filter(|u| u.starts_with("http")),
                    folder: s.folder(),
                },
                hidden: s.hidden,
                tags: s.other_tags().to_vec(),
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

    // Entries, with their state; deleted ones are remembered so a refresh does not bring them back.
    let subscribed: std::collections::HashSet<&str> = file.feeds.iter().map(|f| f.url.as_str()).collect();
    let mut entries = Vec::new();
    let mut gone = Vec::new();
    let mut flags: HashMap<char, usize> = HashMap::new();
    report.items_in_cache = cache.items.len();
    for item in &cache.items {
        if !subscribed.contains(item.feed_url.as_str()) {
            report.items_unsubscribed += 1;
            continue;
        }
        let identity = items::identity(item);
        if item.deleted {
            gone.push((item.feed_url.clone(), identity.key));
            continue;
        }
        for c in item.flags.chars().filter(|c| c.is_ascii_alphabetic() && *c != 's') {
            *flags.entry(c).or_default() += 1;
        }
        report.enqueued += usize::from(cache.enqueued.contains(&(item.feed_url.clone(), item.guid.clone())));
        entries.push(CarriedEntry {
            feed_url: item.feed_url.clone(),
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
    report.skipped_urls = file.skipped;
    if let Some(path) = &home.config {
        report.migrated = tidings_core::newsboat::config::migrate(&read(path)?, &context);
        write_settings(config_file, &mut report)?;
    }
    write_rules(config_file, &mut report)?;
    report.home = Some(home);
    Ok(report)
}

/// newsboat's cache, as the import needs it.
#[derive(Debug, Default)]
struct Cache {
    /// Feed URL → (site, title).
    feeds: HashMap<String, (String, String)>,
    items: Vec<CachedItem>,
    /// Items in the podcast queue: (feed URL, GUID).
    enqueued: std::collections::HashSet<(String, String)>,
}

/// Reads newsboat's cache read-only; columns later versions added are read when they are there.
fn read_cache(path: &Path) -> Result<Cache, NewsboatError> {
    let fail = |e: rusqlite::Error| NewsboatError::Cache { path: path.to_path_buf(), message: e.to_string() };
    if !path.is_file() {
        return Err(NewsboatError::Cache { path: path.to_path_buf(), message: "there is no such file".into() });
    }
    let conn = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(fail)?;
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info('rss_item')")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(fail)?;
    if columns.is_empty() {
        return Err(NewsboatError::Cache { path: path.to_path_buf(), message: "it has no rss_item table".into() });
    }
    let has = |c: &str| columns.iter().any(|n| n == c);
    let optional = |c: &str| if has(c) { c.to_string() } else { "NULL".to_string() };
    let mut cache = Cache::default();
    let mut feeds = conn.prepare("SELECT rssurl, url, title FROM rss_feed").map_err(fail)?;
    for row in feeds
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            ))
        })
        .map_err(fail)?
    {
        let (url, site, title) = row.map_err(fail)?;
        cache.feeds.insert(url, (site, title));
    }
    let sql = format!(
        "SELECT guid, title, author, url, feedurl, pubDate, content, unread, {}, {}, {}, {}, {}, {} FROM rss_item ORDER BY id",
        optional("enclosure_url"),
        optional("enclosure_type"),
        optional("flags"),
        optional("deleted"),
        optional("content_mime_type"),
        optional("enqueued"),
    );
    let mut stmt = conn.prepare(&sql).map_err(fail)?;
    let text = |r: &rusqlite::Row<'_>, i: usize| -> rusqlite::Result<String> {
        // newsboat stores text; an odd row may hold another type: read what can be read.
        Ok(match r.get_ref(i)? {
            rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                String::from_utf8_lossy(t).into_owned()
            }
            rusqlite::types::ValueRef::Integer(n) => n.to_string(),
            rusqlite::types::ValueRef::Real(x) => x.to_string(),
            rusqlite::types::ValueRef::Null => String::new(),
        })
    };
    let rows = stmt
        .query_map([], |r| {
            let item = CachedItem {
                guid: text(r, 0)?,
                title: text(r, 1)?,
                author: text(r, 2)?,
                url: text(r, 3)?,
                feed_url: text(r, 4)?,
                pub_date: text(r, 5)?.parse().unwrap_or(0),
                content: text(r, 6)?,
                unread: text(r, 7)? != "0",
                enclosure_url: Some(text(r, 8)?).filter(|s| !s.is_empty()),
                enclosure_type: Some(text(r, 9)?).filter(|s| !s.is_empty()),
                flags: text(r, 10)?,
                deleted: text(r, 11)? == "1",
                content_type: Some(text(r, 12)?).filter(|s| !s.is_empty()),
            };
            Ok((item, text(r, 13)? == "1"))
        })
        .map_err(fail)?;
    for row in rows {
        let (item, enqueued) = row.map_err(fail)?;
        if enqueued {
            cache.enqueued.insert((item.feed_url.clone(), item.guid.clone()));
        }
        cache.items.push(item);
    }
    Ok(cache)
}

/// A value as TOML writes it.
fn toml_value(value: &Value) -> String {
    match value {
        Value::Text(t) => toml::Value::String(t.clone()).to_string(),
        Value::Number(n) => n.to_string(),
        Value::Flag(b) => b.to_string(),
        Value::List(items) => {
            toml::Value::Array(items.iter().map(|i| toml::Value::String(i.clone())).collect()).to_string()
        }
    }
}

/// Writes what newsboat's config says into tidings's config file, leaving every key the file already sets as
/// it is (its comments too); the result must read as a valid config, or nothing is written.
fn write_settings(path: &Path, report: &mut Report) -> Result<(), NewsboatError> {
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(NewsboatError::Read { path: path.to_path_buf(), source }),
    };
    report.config_file = Some(path.to_path_buf());
    let m = &report.migrated;
    // The last line that says a setting wins, as in newsboat.
    let mut top: Vec<(String, String)> = Vec::new();
    for (key, value, _) in &m.settings {
        top.retain(|(k, _)| k != key);
        top.push((key.clone(), toml_value(value)));
    }
    let tables: Vec<(&str, Vec<(String, String)>)> = vec![
        ("keys", m.keys.iter().map(|(a, keys, _)| (a.clone(), toml_value(&Value::List(keys.clone())))).collect()),
        ("colors", m.colors.iter().map(|(e, s, _)| (e.clone(), toml_value(&Value::Text(s.clone())))).collect()),
        ("macros", m.macros.iter().map(|(k, a, _)| (format!("{k:?}"), toml_value(&Value::List(a.clone())))).collect()),
    ];
    let merged = merge(&existing, &top, &tables);
    report.config_written = merged.written.clone();
    report.config_kept = merged.kept;
    if merged.written.is_empty() {
        return Ok(());
    }
    if let Err(e) = crate::config::Config::parse(&merged.text) {
        report.config_written.clear();
        report.config_error = Some(format!("the settings were not written, as the file would not read: {e}"));
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|source| NewsboatError::WriteConfig { path: path.to_path_buf(), source })?;
    }
    std::fs::write(path, merged.text).map_err(|source| NewsboatError::WriteConfig { path: path.to_path_buf(), source })
}

/// Query feeds become saved views (`[[views]]`) and `ignore-article` lines kill rules (`[[ignore]]`) in the
/// config file, its comments and layout kept. One the file already has (a view of the same name and query, a
/// rule of the same query for the same feed) is left as it is, so a second import changes nothing; a view whose
/// name another view of the file has is not written, and the report says so.
fn write_rules(path: &Path, report: &mut Report) -> Result<(), NewsboatError> {
    use crate::config::{Config, edit};
    let views: Vec<(String, String)> =
        report.views.iter().filter_map(|(name, _, query)| Some((name.clone(), query.as_ref().ok()?.clone()))).collect();
    let rules: Vec<(Option<String>, String)> = report
        .migrated
        .ignore
        .iter()
        .filter_map(|rule| Some((rule.target.clone(), rule.query.as_ref().ok()?.clone())))
        .collect();
    if views.is_empty() && rules.is_empty() {
        return Ok(());
    }
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(NewsboatError::Read { path: path.to_path_buf(), source }),
    };
    report.config_file = Some(path.to_path_buf());
    let as_view = |name: &str, query: &str| {
        format!(
            "as a view: [[views]] name = {} query = {}",
            toml::Value::String(name.to_string()),
            toml::Value::String(query.to_string())
        )
    };
    let as_rule = |query: &str| format!("as a rule: [[ignore]] query = {}", toml::Value::String(query.to_string()));
    let have = match Config::parse(&existing) {
        Ok(config) => config,
        Err(e) => {
            report.rules_refused.push(format!(
                "query feeds and ignore-article: not written, as {} does not read ({e}); fix it and import again",
                path.display()
            ));
            return Ok(());
        }
    };
    let mut have_views = have.saved_views();
    let mut have_rules: Vec<(Option<String>, String)> = have
        .ignore
        .iter()
        .filter(|rule| rule.folder.is_none())
        .map(|rule| (rule.feed.clone(), rule.query.get_ref().clone()))
        .collect();
    let mut text = existing.clone();
    let (mut written_views, mut written_rules) = (Vec::new(), 0);
    for (name, query) in &views {
        if let Err(e) = crate::query::parse(query) {
            report.rules_refused.push(format!("query feed \"{name}\": no equivalent: {e}"));
            continue;
        }
        match have_views.iter().find(|(n, _)| n.to_lowercase() == name.to_lowercase()) {
            Some((_, q)) if q == query => report.rules_present += 1,
            Some(_) => report.rules_refused.push(format!(
                "query feed \"{name}\": {} has another view of this name, left as it is; {}",
                path.display(),
                as_view(name, query)
            )),
            None => match edit::with_view(&text, name, query) {
                Ok(new) => {
                    text = new;
                    have_views.push((name.clone(), query.clone()));
                    written_views.push(name.clone());
                }
                Err(why) => {
                    report.rules_refused.push(format!("query feed \"{name}\": {why}; {}", as_view(name, query)));
                }
            },
        }
    }
    for (feed, query) in &rules {
        let what = feed.as_deref().map(|f| format!("ignore-article for {f}")).unwrap_or("ignore-article".into());
        if let Err(e) = crate::query::parse(query) {
            report.rules_refused.push(format!("{what}: no equivalent: {e}"));
            continue;
        }
        let rule = (feed.clone(), query.clone());
        if have_rules.contains(&rule) {
            report.rules_present += 1;
            continue;
        }
        match edit::with_ignore(&text, query, feed.as_deref()) {
            Ok(new) => {
                text = new;
                have_rules.push(rule);
                written_rules += 1;
            }
            Err(why) => report.rules_refused.push(format!("{what}: {why}; {}", as_rule(query))),
        }
    }
    if text == existing {
        return Ok(());
    }
    match edit::replace(path, &text) {
        Ok(()) => {
            report.views_written = written_views;
            report.rules_written = written_rules;
        }
        Err(e) => report.rules_refused.push(format!("query feeds and ignore-article: not written: {e}")),
    }
    Ok(())
}

#[derive(Debug, PartialEq, Eq)]
struct Merged {
    text: String,
    written: Vec<String>,
    kept: Vec<String>,
}

/// Adds settings to a config file's text: top-level keys before its first table, table keys under the table's
/// header (a table it does not have is added at the end). Keys the text already sets are left as they are.
fn merge(existing: &str, top: &[(String, String)], tables: &[(&str, Vec<(String, String)>)]) -> Merged {
    let parsed: toml::Table = existing.parse().unwrap_or_default();
    let mut written = Vec::new();
    let mut kept = Vec::new();
    let mut lines: Vec<String> = existing.lines().map(str::to_string).collect();
    let header = |line: &str, name: &str| line.trim() == format!("[{name}]");
    let first_table = lines.iter().position(|l| l.trim_start().starts_with('[')).unwrap_or(lines.len());
    let mut new_top = Vec::new();
    for (key, value) in top {
        if parsed.contains_key(key) {
            kept.push(key.clone());
        } else {
            new_top.push(format!("{key} = {value}"));
            written.push(key.clone());
        }
    }
    if !new_top.is_empty() {
        let mut block = vec!["# From newsboat's config (tidings import newsboat).".to_string()];
        block.extend(new_top);
        if first_table < lines.len() {
            block.push(String::new());
        }
        lines.splice(first_table..first_table, block);
    }
    for (table, entries) in tables {
        let have = parsed.get(*table).and_then(|v| v.as_table());
        let mut new = Vec::new();
        for (key, value) in entries {
            let bare = key.trim_matches('"');
            if have.is_some_and(|t| t.contains_key(bare)) {
                kept.push(format!("{table}.{bare}"));
            } else {
                new.push(format!("{key} = {value}"));
                written.push(format!("{table}.{bare}"));
            }
        }
        if new.is_empty() {
            continue;
        }
        match lines.iter().position(|l| header(l, table)) {
            Some(at) => {
                lines.splice(at + 1..at + 1, new);
            }
            None => {
                if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                    lines.push(String::new());
                }
                lines.push(format!("[{table}]"));
                lines.extend(new);
            }
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    Merged { text, written, kept }
}

impl Report {
    /// The report, a line each: what came over, then item by item what did not and why.
    pub fn lines(&self) -> Vec<String> {
        let o = &self.outcome;
        let mut out = Vec::new();
        if let Some(home) = &self.home {
            out.push(format!("From {}", home.urls.display()));
            match &home.cache {
                Some(c) => out.push(format!("     {}", c.display())),
                None => out.push("     (no cache.db: subscriptions only, no entries or read state)".into()),
            }
            if let Some(c) = &home.config {
                out.push(format!("     {}", c.display()));
            }
        }
        out.push(format!(
            "feeds        {} added, {} already subscribed (left as they were), {} in the urls file",
            o.feeds_added.len(),
            o.feeds_present.len(),
            self.feeds_in_urls
        ));
        out.push(format!("             {} hidden (!), {} extra tags kept (shown in feed info)", o.hidden, o.tags));
        out.push(format!(
            "entries      {} added ({} read, {} starred from flags), {} already stored, {} deleted in newsboat kept out",
            o.entries_added, o.read, o.starred, o.entries_present, o.gone
        ));
        let mut not = Vec::new();
        if self.items_unsubscribed > 0 {
            not.push(format!(
                "{} cached entries of feeds the urls file no longer lists: not carried over",
                self.items_unsubscribed
            ));
        }
        if o.entries_orphaned > 0 {
            not.push(format!(
                "{} entries whose feed is an account's here: the account's sync brings them",
                o.entries_orphaned
            ));
        }
        for (letter, n) in &self.other_flags {
            not.push(format!(
                "flag {letter} on {n} entries: tidings has one flag, the star (flagged entries are starred)"
            ));
        }
        if self.enqueued > 0 {
            not.push(format!(
                "{} entries in the podcast queue: tidings has no queue (play them with the media key)",
                self.enqueued
            ));
        }
        for s in &self.skipped_urls {
            not.push(format!("urls line {}: {}: {}", s.line, one_line(&s.text, 200), s.why));
        }
        // Those with a query went into the config file (see `write_rules`), or are among `rules_refused`.
        for (name, expression, query) in &self.views {
            if let Err(why) = query {
                not.push(format!("query feed \"{name}\" ({}): no equivalent: {why}", one_line(expression, 200)));
            }
        }
        for rule in &self.migrated.ignore {
            let feed = rule.target.as_deref().map(|t| format!(" for {t}")).unwrap_or_default();
            if let Err(why) = &rule.query {
                not.push(format!("config line {}: ignore-article{feed}: no equivalent: {why}", rule.line));
            }
        }
        not.extend(self.rules_refused.iter().cloned());
        for rule in &self.migrated.filters {
            let name = rule.target.clone().unwrap_or_default();
            not.push(match &rule.query {
                Ok(q) => format!(
                    "config line {}: define-filter \"{name}\": not carried over yet (saved views arrive with the query language); as a view: query = {}",
                    rule.line,
                    toml::Value::String(q.clone())
                ),
                Err(why) => format!("config line {}: define-filter \"{name}\": no equivalent: {why}", rule.line),
            });
        }
        for (line, text, why) in &self.migrated.skipped {
            not.push(format!("config line {line}: {}: {why}", one_line(text, 200)));
        }
        if let Some(file) = &self.config_file {
            if !self.config_written.is_empty() {
                out.push(format!(
                    "settings     {} written to {}: {}",
                    self.config_written.len(),
                    file.display(),
                    self.config_written.join(", ")
                ));
            }
            if !self.views_written.is_empty() || self.rules_written > 0 {
                let names: Vec<String> =
                    self.views_written.iter().map(|n| format!("\"{}\"", one_line(n, 80))).collect();
                out.push(format!(
                    "views, rules {} saved views{}{} and {} kill rules (ignore-article) written to {}",
                    self.views_written.len(),
                    if names.is_empty() { "" } else { " " },
                    names.join(", "),
                    self.rules_written,
                    file.display()
                ));
            }
            if self.rules_present > 0 {
                out.push(format!(
                    "             {} views and kill rules {} already had, left as they were",
                    self.rules_present,
                    file.display()
                ));
            }
            for key in &self.config_kept {
                not.push(format!("setting {key}: {} already sets it; left as it is", file.display()));
            }
        }
        if let Some(e) = &self.config_error {
            not.push(e.clone());
        }
        if !not.is_empty() {
            out.push(format!("not carried over ({}):", not.len()));
            out.extend(not.into_iter().map(|n| format!("  - {n}")));
        } else {
            out.push("everything came over".into());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_go_before_the_first_table_and_under_their_tables_and_what_is_set_stays() {
        let existing = "# mine\nbrowser = \"lynx %u\"\n\n[keys]\nquit = \"Q\"\n";
        let top = vec![("browser".to_string(), "\"w3m %u\"".to_string()), ("keep_days".to_string(), "30".to_string())];
        let tables = vec![
            (
                "keys",
                vec![("quit".to_string(), "[\"q\"]".to_string()), ("next_feed".to_string(), "[\"J\"]".to_string())],
            ),
            ("colors", vec![("selection".to_string(), "\"black on yellow\"".to_string())]),
        ];
        let merged = merge(existing, &top, &tables);
        assert_eq!(
            merged.text,
            "# mine\nbrowser = \"lynx %u\"\n\n# From newsboat's config (tidings import newsboat).\nkeep_days = 30\n\n\
             [keys]\nnext_feed = [\"J\"]\nquit = \"Q\"\n\n[colors]\nselection = \"black on yellow\"\n"
        );
        assert_eq!(merged.written, ["keep_days", "keys.next_feed", "colors.selection"]);
        assert_eq!(merged.kept, ["browser", "keys.quit"]);
        let again = merge(&merged.text, &top, &tables);
        assert!(again.written.is_empty() && again.text == merged.text, "a second merge changes nothing");
    }
}
