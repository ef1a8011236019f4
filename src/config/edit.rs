//! Editing the config file in place, comments and layout kept (`toml_edit`): the reader saves a search as a
//! view (`[[views]]`) and a feed's settings (`[feeds."URL"]`) here. The config is the source of truth for both;
//! an edit is checked by reading the new text as a config before the file is replaced (atomically: a new file
//! beside it, renamed over it), so a bad edit never lands.

use super::Config;
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, Item, Table, value};

/// Why the config file could not be edited.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path} is not valid TOML, so it was left as it is: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("{0}")]
    Refused(String),
}

/// Appends a saved view (`[[views]] name = … query = …`) to the config at `path` (created when missing).
pub fn append_view(path: &Path, name: &str, query: &str) -> Result<(), EditError> {
    edit_file(path, |text| with_view(text, name, query))
}

/// Sets (`Some`) or removes (`None`) one key of a feed's `[feeds."URL"]` table in the config at `path`.
pub fn set_feed_setting(path: &Path, url: &str, key: &str, setting: Option<toml_edit::Value>) -> Result<(), EditError> {
    edit_file(path, |text| with_feed_setting(text, url, key, setting.clone()))
}

/// Appends a kill rule (`[[ignore]] query = … feed = …`) to the config at `path` (created when missing).
pub fn append_ignore(path: &Path, query: &str, feed: Option<&str>) -> Result<(), EditError> {
    edit_file(path, |text| with_ignore(text, query, feed))
}

/// Replaces the config at `path` with `text`, checked and written as every edit is (nothing lands when it would
/// not read as a config).
pub fn replace(path: &Path, text: &str) -> Result<(), EditError> {
    edit_file(path, |_| Ok(text.to_string()))
}

/// `text` with a view appended to its `[[views]]`. A name already taken is refused.
pub fn with_view(text: &str, name: &str, query: &str) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| e.message().to_string())?;
    let taken = Config::parse(text)
        .map(|c| c.views.iter().any(|v| v.name.to_lowercase() == name.to_lowercase()))
        .unwrap_or(false);
    if taken {
        return Err(format!("a view is already named \"{}\"", crate::sanitize::one_line(name, 80)));
    }
    let mut view = Table::new();
    view.insert("name", value(name));
    view.insert("query", Item::Value(readable_string(query)));
    push_table(&mut doc, "views", view)?;
    Ok(doc.to_string())
}

/// `text` with a kill rule appended to its `[[ignore]]`, for every feed or for `feed` (its address or name).
pub fn with_ignore(text: &str, query: &str, feed: Option<&str>) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| e.message().to_string())?;
    let mut rule = Table::new();
    rule.insert("query", Item::Value(readable_string(query)));
    if let Some(feed) = feed {
        rule.insert("feed", value(feed));
    }
    push_table(&mut doc, "ignore", rule)?;
    Ok(doc.to_string())
}

/// Appends `table` to the list of tables `key` (`[[key]]`), made when the document has none.
fn push_table(doc: &mut DocumentMut, key: &str, table: Table) -> Result<(), String> {
    match doc.get_mut(key) {
        None => {
            let mut tables = toml_edit::ArrayOfTables::new();
            tables.push(table);
            doc.insert(key, Item::ArrayOfTables(tables));
        }
        Some(Item::ArrayOfTables(tables)) => tables.push(table),
        Some(Item::Value(toml_edit::Value::Array(tables))) => tables.push(table.into_inline_table()),
        Some(_) => return Err(format!("`{key}` in the config is not a list of [[{key}]] tables")),
    }
    Ok(())
}

/// `text` with one key of `[feeds."URL"]` set or removed (the table is created, or removed when left empty).
pub fn with_feed_setting(
    text: &str,
    url: &str,
    key: &str,
    setting: Option<toml_edit::Value>,
) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| e.message().to_string())?;
    if !doc.contains_key("feeds") {
        let mut feeds = Table::new();
        feeds.set_implicit(true);
        doc.insert("feeds", Item::Table(feeds));
    }
    let Some(feeds) = doc.get_mut("feeds").and_then(Item::as_table_like_mut) else {
        return Err("`feeds` in the config is not a table".into());
    };
    if feeds.get(url).is_none() {
        feeds.insert(url, Item::Table(Table::new()));
    }
    let Some(feed) = feeds.get_mut(url).and_then(Item::as_table_like_mut) else {
        return Err(format!("`feeds.\"{url}\"` in the config is not a table"));
    };
    match setting {
        Some(v) => {
            feed.insert(key, Item::Value(v));
        }
        None => {
            feed.remove(key);
        }
    }
    if feed.is_empty() {
        feeds.remove(url);
    }
    Ok(doc.to_string())
}

/// A string as TOML writes it most readably: between single quotes when it holds none (a query's double
/// quotes need no escaping there), else a basic string.
fn readable_string(text: &str) -> toml_edit::Value {
    let literal = !text.contains(['\'', '\n', '\r']) && !text.chars().any(char::is_control);
    if literal && let Ok(v) = format!("'{text}'").parse::<toml_edit::Value>() {
        return v;
    }
    toml_edit::Value::from(text)
}

/// Reads the file (a missing one is empty), applies `change`, checks the result reads as a config, and
/// replaces the file with it.
fn edit_file(path: &Path, change: impl Fn(&str) -> Result<String, String>) -> Result<(), EditError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(EditError::Read { path: path.to_path_buf(), source }),
    };
    let new = change(&text).map_err(|message| EditError::Syntax { path: path.to_path_buf(), message })?;
    Config::parse(&new).map_err(|e| EditError::Refused(format!("the edit would make the config invalid: {e}")))?;
    let write_err = |source| EditError::Write { path: path.to_path_buf(), source };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write_err)?;
    }
    let mut temp = path.as_os_str().to_owned();
    temp.push(".tidings-edit");
    let temp = PathBuf::from(temp);
    std::fs::write(&temp, new.as_bytes()).map_err(write_err)?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&temp, meta.permissions());
    }
    std::fs::rename(&temp, path).map_err(write_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "# my settings\nkeep_days = 30 # a month\n\n[keys]\n# vim habits\ndown = \"j\"\n";

    #[test]
    fn a_view_is_appended_with_comments_kept_and_reads_back() {
        let new = with_view(CONFIG, "Rust this week", "text ~ \"rust\" and age < 7d").unwrap();
        assert!(new.starts_with(CONFIG), "{new}");
        assert!(new.contains("query = 'text ~ \"rust\" and age < 7d'"), "{new}");
        let again = with_view(&new, "Podcasts", "enclosure ~ audio").unwrap();
        let config = Config::parse(&again).unwrap();
        assert_eq!(
            config.saved_views(),
            vec![
                ("Rust this week".to_string(), "text ~ \"rust\" and age < 7d".to_string()),
                ("Podcasts".to_string(), "enclosure ~ audio".to_string())
            ]
        );
        assert!(with_view(&again, "podcasts", "unread").unwrap_err().contains("already named"));
        let quoted = with_view("", "It's", "title ~ 'it''s'").unwrap();
        assert_eq!(Config::parse(&quoted).unwrap().saved_views()[0].1, "title ~ 'it''s'");
    }

    #[test]
    fn a_feed_setting_is_set_and_removed_in_its_table() {
        let url = "http://example.com/feed.xml";
        let new = with_feed_setting(CONFIG, url, "notify", Some(true.into())).unwrap();
        assert!(new.contains("[feeds.\"http://example.com/feed.xml\"]\nnotify = true"), "{new}");
        assert!(new.contains("# vim habits"));
        let more = with_feed_setting(&new, url, "refresh_minutes", Some(15.into())).unwrap();
        let config = Config::parse(&more).unwrap();
        assert_eq!(config.feeds[url].notify, Some(true));
        assert_eq!(config.feeds[url].refresh_minutes, Some(15));
        let gone = with_feed_setting(&more, url, "notify", None).unwrap();
        let gone = with_feed_setting(&gone, url, "refresh_minutes", None).unwrap();
        assert!(!gone.contains("feeds"), "{gone}");
    }

    #[test]
    fn the_file_is_edited_in_place_and_a_bad_edit_never_lands() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/config.toml");
        append_view(&path, "Unread Rust", "title ~ rust and unread").unwrap();
        append_view(&path, "Starred", "starred").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Config::parse(&text).unwrap().views.len(), 2);
        let err = set_feed_setting(&path, "http://x", "refresh_minutes", Some(0.into())).unwrap_err();
        assert!(err.to_string().contains("refresh_minutes"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "the file is as it was");
    }
}
