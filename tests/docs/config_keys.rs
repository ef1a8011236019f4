//! Every key of the config, read from its own definition, is in config.example.toml (commented out, at its
//! default) and in docs/config.md; the example sets nothing and keeps one wrap width.

use serde::de::{Deserializer, Visitor};
use tidings::config::{Config, FeedConfig, IgnoreConfig, ViewConfig};
use tidings::sync::AccountConfig;

const EXAMPLE: &str = "config.example.toml";
const DOCS: &str = "docs/config.md";

/// The names `T`'s `Deserialize` asks for: the keys the config file may hold, as it writes them.
fn keys_of<'de, T: serde::Deserialize<'de>>() -> &'static [&'static str] {
    let mut fields = None;
    let _ = T::deserialize(FieldNames(&mut fields));
    fields.expect("a struct deserialized from a table asks for its fields")
}

/// A deserializer that answers nothing and only notes the fields a struct asks for.
struct FieldNames<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("only the field names were asked for"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(serde::de::Error::custom("only the field names were asked for"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The tables of the config whose keys are another struct's.
fn nested_tables() -> [(&'static str, &'static [&'static str]); 4] {
    [
        ("feeds", keys_of::<FeedConfig>()),
        ("accounts", keys_of::<AccountConfig>()),
        ("views", keys_of::<ViewConfig>()),
        ("ignore", keys_of::<IgnoreConfig>()),
    ]
}

/// One `# key = value    # note` line of the example, and the table it is in (None: the top level).
#[derive(Debug)]
struct Commented {
    line: usize,
    table: Option<String>,
    key: String,
    value: String,
    note: String,
}

/// What the example says: its commented assignments, and each line's text with the table it is in.
struct Example {
    text: String,
    assignments: Vec<Commented>,
    lines: Vec<(Option<String>, String)>,
}

/// `[feeds."URL"]` → `feeds`, `[[accounts]]` → `accounts`, `[keys.article]` → `keys.article`.
fn header(line: &str) -> Option<String> {
    let inner = line.trim_start_matches("# ").split("    #").next()?.trim();
    let name = inner.strip_prefix('[')?.strip_suffix(']')?.trim_matches(|c| c == '[' || c == ']');
    Some(name.split(".\"").next().unwrap_or(name).to_string())
}

/// `# key = value    # note` → (key, value, note); prose and indented examples are not assignments.
fn assignment(line: &str) -> Option<(String, String, String)> {
    let rest = line.strip_prefix("# ")?;
    let (key, rest) = rest.split_once(" = ")?;
    let bare = key.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    let quoted = key.len() > 1 && key.starts_with('"') && key.ends_with('"');
    if !(bare || quoted) || key.is_empty() {
        return None;
    }
    let (value, note) = rest.split_once("    # ").unwrap_or((rest, ""));
    Some((key.to_string(), value.trim().to_string(), note.to_string()))
}

fn example() -> Example {
    let text = std::fs::read_to_string(EXAMPLE).unwrap();
    let (mut table, mut assignments, mut lines) = (None, Vec::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            table = None;
        } else if let Some(name) = header(line) {
            table = Some(name);
        } else if let Some((key, value, note)) = assignment(line) {
            assignments.push(Commented { line: n + 1, table: table.clone(), key, value, note });
        }
        lines.push((table.clone(), line.to_string()));
    }
    Example { text, assignments, lines }
}

/// The example with every commented table header and assignment taken in: what a person who uncommented every
/// line would have.
fn uncommented(example: &Example) -> String {
    let mut out = String::new();
    for (_, line) in &example.lines {
        if header(line).is_some() {
            out.push_str(line.trim_start_matches("# ").split("    #").next().unwrap_or(""));
        } else if let Some((key, value, _)) = assignment(line) {
            out.push_str(&format!("{key} = {value}"));
        }
        out.push('\n');
    }
    out
}

#[test]
fn the_config_example_sets_nothing() {
    let example = example();
    for (n, (_, line)) in example.lines.iter().enumerate() {
        let allowed = line.is_empty() || line.starts_with('#') || header(line).is_some();
        assert!(allowed, "{EXAMPLE}:{}: `{line}` is not commented out; a copy would pin it", n + 1);
    }
    let parsed = Config::parse(&example.text).unwrap_or_else(|e| panic!("{EXAMPLE} is refused: {e}"));
    // The `[keys.CONTEXT]` headers stand uncommented, empty: they bind nothing.
    let parsed = Config { keys: toml::Table::new(), ..parsed };
    assert!(parsed == Config::default(), "{EXAMPLE}, as it is, changes the defaults: {parsed:?}");
}

#[test]
fn the_config_examples_values_are_the_defaults() {
    let example = example();
    let debug = format!("{:?}", Config::default());
    for a in example.assignments.iter().filter(|a| a.table.is_none()) {
        let line = format!("{} = {}", a.key, a.value);
        let parsed = Config::parse(&line).unwrap_or_else(|e| panic!("{EXAMPLE}:{}: `{line}` is refused: {e}", a.line));
        if a.note.starts_with("unset") {
            assert!(
                debug.contains(&format!(" {}: None", a.key)),
                "{EXAMPLE}:{}: `{}` is marked unset, but the code gives it a default",
                a.line,
                a.key
            );
        } else {
            assert!(
                parsed == Config::default(),
                "{EXAMPLE}:{}: `{line}` is not the default the code has (Config's Default impl)",
                a.line
            );
        }
    }
    // Every table uncommented is a valid config, and the [keys] and [colors] it lists are the defaults.
    let whole = Config::parse(&uncommented(&example)).unwrap_or_else(|e| panic!("{EXAMPLE}, uncommented: {e}"));
    assert!(whole.keymap == Config::default().keymap, "{EXAMPLE}'s [keys] are not the default keys");
    let (theme, default) = (format!("{:?}", whole.theme), format!("{:?}", Config::default().theme));
    assert!(theme == default, "{EXAMPLE}'s [colors] are not the default colours:\n{theme}\n{default}");
}

#[test]
fn every_config_key_is_in_the_example_and_in_docs_config_md() {
    let example = example();
    let docs = std::fs::read_to_string(DOCS).unwrap();
    for key in keys_of::<Config>() {
        let set = example.assignments.iter().any(|a| a.table.is_none() && a.key == *key);
        let table = example.lines.iter().any(|(t, _)| t.as_deref() == Some(*key));
        assert!(set || table, "`{key}` (a key of the config) is missing from {EXAMPLE}: add it, commented out");
        let described = [format!("`{key}`"), format!("`[{key}"), format!("`[[{key}]]`")];
        assert!(described.iter().any(|d| docs.contains(d)), "`{key}` (a key of the config) is not described in {DOCS}");
    }
    for (table, keys) in nested_tables() {
        let text: Vec<&str> =
            example.lines.iter().filter(|(t, _)| t.as_deref() == Some(table)).map(|(_, l)| l.as_str()).collect();
        let section = docs_section(&docs, table);
        for key in keys {
            let written = text.iter().any(|l| l.contains(&format!(" {key} = ")));
            assert!(written, "`{key}` of [{table}] is missing from {EXAMPLE}'s [{table}] example");
            assert!(section.contains(&format!("`{key}`")), "`{key}` of [{table}] is not described in {DOCS}");
        }
    }
}

/// The part of docs/config.md under the heading that names `[table`.
fn docs_section<'a>(docs: &'a str, table: &str) -> &'a str {
    let heading = docs
        .lines()
        .find(|l| l.starts_with("## ") && l.contains(&format!("[{table}")))
        .unwrap_or_else(|| panic!("{DOCS} has no `## ` heading naming [{table}]"));
    let start = docs.find(heading).unwrap_or(0) + heading.len();
    let end = docs[start..].find("\n## ").map_or(docs.len(), |end| start + end);
    &docs[start..end]
}

#[test]
fn the_config_example_keeps_one_wrap_width() {
    let width = tidings::app::keymap::EXAMPLE_WIDTH;
    for (n, line) in std::fs::read_to_string(EXAMPLE).unwrap().lines().enumerate() {
        let columns = line.chars().count();
        assert!(columns <= width, "{EXAMPLE}:{}: {columns} columns, wider than the file's {width}", n + 1);
    }
}

#[test]
fn the_defaults_docs_config_md_gives_are_the_codes() {
    let docs = std::fs::read_to_string(DOCS).unwrap();
    let mut checked = 0;
    for row in docs.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (Some(key), Some(value)) = (cells.get(1), cells.get(2)) else { continue };
        let (Some(key), Some(value)) = (key.strip_prefix('`'), value.strip_prefix('`')) else { continue };
        let (Some(key), Some(value)) = (key.strip_suffix('`'), value.strip_suffix('`')) else { continue };
        let line = format!("{key} = {value}");
        let parsed = Config::parse(&line).unwrap_or_else(|e| panic!("{DOCS}: `{line}` is refused: {e}"));
        assert!(parsed == Config::default(), "{DOCS} gives `{line}` as the default; the code's is another");
        checked += 1;
    }
    assert!(checked >= 15, "{DOCS}'s tables give only {checked} defaults");
}
