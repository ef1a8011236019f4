//! Editing the config file in place, comments and layout kept (`toml_edit`): the reader saves a search as a
//! view (`[[views]]`) and a feed's settings (`[feeds."URL"]`) here. The config is the source of truth for both;
//! an edit is checked by reading the new text as a config before the file is replaced (atomically: a new file
//! beside it, renamed over it), so a bad edit never lands. The config may hold passwords: the new file has the
//! old one's permissions from its creation on, and a config that is a symbolic link (to a dotfiles repository)
//! is edited where it leads, the link left as it is.

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
/// replaces the file with it — the file a symbolic link at `path` leads to, if it is one.
fn edit_file(path: &Path, change: impl Fn(&str) -> Result<String, String>) -> Result<(), EditError> {
    let path = &followed(path).map_err(|source| EditError::Read { path: path.to_path_buf(), source })?;
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
    replace_file(path, &new).map_err(write_err)
}

/// `path` with its symbolic links followed to the file they lead to (which may not exist yet).
fn followed(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // As many links in a row as Linux follows.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = std::fs::read_link(&path)?;
                // A relative link leads from the folder it is in; `join` keeps an absolute one as it is.
                path = path.parent().map_or_else(|| to.clone(), |dir| dir.join(&to));
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other("too many symbolic links in a row"))
}

/// Replaces the file at `path` with `text`: written to a new file beside it, then renamed over it. The new file
/// is created with the old one's permissions (a 0600 config holding a password is never readable by others,
/// not even while it is written), and is new: one an interrupted edit left is removed first, not written into
/// (whoever had it open would read the new text). Left behind on failure, never.
fn replace_file(path: &Path, text: &str) -> std::io::Result<()> {
    let mut temp = path.as_os_str().to_owned();
    temp.push(".tidings-edit");
    let temp = PathBuf::from(temp);
    let permissions = std::fs::metadata(path).ok().map(|meta| meta.permissions());
    match std::fs::remove_file(&temp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(permissions) = &permissions {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(permissions.mode() & 0o777);
    }
    let mut file = options.open(&temp)?;
    let written = (|| {
        use std::io::Write;
        // The umask may have taken bits off the old mode (never added one): given back before the first byte.
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
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

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn a_config_holding_a_password_is_written_only_into_a_new_file_with_its_mode() {
        use std::io::Read;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let account = "[[accounts]]\nname = \"Home\"\nkind = \"greader\"\nurl = \"https://rss.example.net/\"\n";
        std::fs::write(&path, format!("{account}user = \"alice\"\npassword = \"hunter2\"\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        // A file left where the edit writes, readable by others, and held open by one of them.
        let left = dir.path().join("config.toml.tidings-edit");
        std::fs::write(&left, "").unwrap();
        std::fs::set_permissions(&left, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut other = std::fs::File::open(&left).unwrap();

        append_view(&path, "Starred", "starred").unwrap();
        let mut seen = String::new();
        other.read_to_string(&mut seen).unwrap();
        assert_eq!(seen, "", "the password went into a file another user had open");
        assert_eq!(mode(&path), 0o600);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("hunter2") && text.contains("Starred"), "{text}");
        assert!(!left.exists(), "nothing is left beside it");

        // A mode the umask would cut (group write) is kept exactly.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o660)).unwrap();
        append_view(&path, "Unread", "unread").unwrap();
        assert_eq!(mode(&path), 0o660);
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_config_is_edited_where_the_link_leads_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let dotfiles = dir.path().join("dotfiles");
        std::fs::create_dir(&dotfiles).unwrap();
        std::fs::write(dotfiles.join("tidings.toml"), CONFIG).unwrap();
        let config = dir.path().join("config");
        std::fs::create_dir(&config).unwrap();
        // config/config.toml → config/linked.toml → ../dotfiles/tidings.toml: relative links, one after another.
        std::os::unix::fs::symlink("../dotfiles/tidings.toml", config.join("linked.toml")).unwrap();
        std::os::unix::fs::symlink("linked.toml", config.join("config.toml")).unwrap();

        append_view(&config.join("config.toml"), "Starred", "starred").unwrap();
        for (link, to) in [("config.toml", "linked.toml"), ("linked.toml", "../dotfiles/tidings.toml")] {
            assert_eq!(std::fs::read_link(config.join(link)).unwrap(), Path::new(to), "{link} is still a link");
        }
        let text = std::fs::read_to_string(dotfiles.join("tidings.toml")).unwrap();
        assert!(text.starts_with(CONFIG) && text.contains("Starred"), "{text}");
        let beside: Vec<_> = std::fs::read_dir(&dotfiles).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(beside, ["tidings.toml"], "edited in place, nothing left beside it");
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
