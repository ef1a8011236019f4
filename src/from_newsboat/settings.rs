//! The settings, saved views and kill rules the import writes into tidings's config file: settings merged in
//! with the keys the file already sets left alone ([`write_settings`]), query feeds and `ignore-article` lines
//! added as `[[views]]` and `[[ignore]]` ([`write_rules`]).

use super::{NewsboatError, Report};
use std::path::Path;
use tidings_core::newsboat::config::Value;

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
pub(super) fn write_settings(path: &Path, report: &mut Report) -> Result<(), NewsboatError> {
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
    let have_keys = existing
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("keys").and_then(|k| k.as_table()).cloned())
        .unwrap_or_default();
    let bindings = super::keys::with_newsboat_defaults(&m.keys, &m.unbound);
    let keys = super::keys::plan(&bindings, &m.unbound, &m.dialog_keys, &have_keys, &report.keys_before);
    let tables: Vec<(&str, Vec<(String, String)>)> = vec![
        ("keys", keys.entries.iter().map(|(a, k)| (a.clone(), toml_value(&Value::List(k.clone())))).collect()),
        ("colors", m.colors.iter().map(|(e, s, _)| (e.clone(), toml_value(&Value::Text(s.clone())))).collect()),
        ("macros", m.macros.iter().map(|(k, a, _)| (format!("{k:?}"), toml_value(&Value::List(a.clone())))).collect()),
    ];
    let merged = merge(&existing, &top, &tables);
    report.config_written = merged.written.clone();
    report.config_kept = merged.kept;
    report.key_notes = keys.notes;
    report.key_told = keys.told;
    report.q_is_back = keys.q_is_back;
    if merged.written.is_empty() {
        return Ok(());
    }
    if let Err(e) = crate::config::Config::parse(&merged.text) {
        report.config_written.clear();
        report.config_error = Some(format!("the settings were not written, as the file would not read: {e}"));
        return Ok(());
    }
    report.keys_added = keys.added;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|source| NewsboatError::WriteConfig { path: path.to_path_buf(), source })?;
    }
    std::fs::write(path, merged.text).map_err(|source| NewsboatError::WriteConfig { path: path.to_path_buf(), source })
}

/// The most saved views, and the most kill rules, one import writes: each is added through the config file's
/// editor, which reads the whole file again each time (2,000 of each took seven minutes).
const MAX_WRITTEN: usize = 200;

/// Query feeds become saved views (`[[views]]`) and `ignore-article` lines kill rules (`[[ignore]]`) in the
/// config file, its comments and layout kept. One the file already has (a view of the same name and query, a
/// rule of the same query for the same feed) is left as it is, so a second import changes nothing; a view whose
/// name another view of the file has is not written, and the report says so. Past [`MAX_WRITTEN`] of either,
/// the rest wait for the next import, and the report says how many.
pub(super) fn write_rules(path: &Path, report: &mut Report) -> Result<(), NewsboatError> {
    use crate::config::{Config, edit};
    // Query feeds and `define-filter`s alike become saved views.
    let filters = report.migrated.filters.iter().map(|f| (f.target.clone().unwrap_or_default(), &f.query));
    let views: Vec<(String, String)> = report
        .views
        .iter()
        .map(|(name, _, query)| (name.clone(), query))
        .chain(filters)
        .filter_map(|(name, query)| Some((name, query.as_ref().ok()?.clone())))
        .collect();
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
    let (mut left_views, mut left_rules) = (0, 0);
    for (name, query) in &views {
        if let Err(e) = crate::query::parse(query) {
            report.rules_refused.push(format!("query feed \"{name}\": no equivalent: {e}"));
            continue;
        }
        if let Some(smart) = smart_view(query) {
            report.rules_refused.push(format!(
                "query feed \"{}\": the same as the smart view {smart}, which tidings always lists; not written",
                crate::sanitize::one_line(name, 80)
            ));
            continue;
        }
        match have_views.iter().find(|(n, _)| n.to_lowercase() == name.to_lowercase()) {
            Some((_, q)) if q == query => report.rules_present += 1,
            Some(_) => report.rules_refused.push(format!(
                "query feed \"{name}\": {} has another view of this name, left as it is; {}",
                path.display(),
                as_view(name, query)
            )),
            None if written_views.len() == MAX_WRITTEN => left_views += 1,
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
        if written_rules == MAX_WRITTEN {
            left_rules += 1;
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
    for (left, what) in [(left_views, "query feeds"), (left_rules, "ignore-article lines")] {
        if left > 0 {
            report.rules_refused.push(format!(
                "{left} more {what}: not written, as one import writes at most {MAX_WRITTEN} of them; import again \
                 to write the next ones"
            ));
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

/// The smart view a query is, when it is one (`starred`: Starred): a saved view of it would be a second row.
fn smart_view(query: &str) -> Option<&'static str> {
    match query.trim().trim_start_matches('(').trim_end_matches(')').trim() {
        "starred" => Some("Starred"),
        "unread" => Some("Unread"),
        _ => None,
    }
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
    // What a file already sets as the import would (an earlier import's) is neither written again nor said.
    let same = |have: Option<&toml::Value>, value: &str| {
        let value = format!("v = {value}").parse::<toml::Table>().ok().and_then(|mut t| t.remove("v"));
        have.is_some() && have == value.as_ref()
    };
    let mut new_top = Vec::new();
    for (key, value) in top {
        if same(parsed.get(key), value) {
            continue;
        }
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
            if same(have.and_then(|t| t.get(bare)), value) {
                continue;
            }
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

    #[test]
    fn one_import_writes_at_most_200_kill_rules_and_says_how_many_wait_for_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let rule = |i: usize| tidings_core::newsboat::config::Rule {
            line: i + 1,
            target: None,
            expression: String::new(),
            query: Ok(format!("title ~ \"x{i}\"")),
        };
        let mut report = Report::default();
        report.migrated.ignore = (0..MAX_WRITTEN + 5).map(rule).collect();
        write_rules(&path, &mut report).unwrap();
        assert_eq!(report.rules_written, MAX_WRITTEN);
        assert_eq!(
            report.rules_refused,
            ["5 more ignore-article lines: not written, as one import writes at most 200 of them; import again to \
              write the next ones"]
        );
        let config = crate::config::Config::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(config.ignore.len(), MAX_WRITTEN);
        let mut again = Report { migrated: report.migrated.clone(), ..Report::default() };
        write_rules(&path, &mut again).unwrap();
        assert_eq!((again.rules_present, again.rules_written, again.rules_refused.len()), (MAX_WRITTEN, 5, 0));
    }
}
