//! The documentation that is drawn from the code must say what the code does: README's key table and
//! config.example.toml's [keys] and [colors] sections are generated from the keymap and the theme, and these
//! tests fail, showing the text to paste, when they drift apart. `TIDINGS_BLESS=1 cargo test --test docs`
//! writes the generated text into the files instead.

use tidings::app::keymap::Keymap;

/// The text between `start` and `end` in `doc`.
fn section<'a>(doc: &'a str, start: &str, end: &str, file: &str) -> &'a str {
    let from = doc.find(start).unwrap_or_else(|| panic!("{file} has no {start} marker")) + start.len();
    let to = doc[from..].find(end).unwrap_or_else(|| panic!("{file} has no {end} marker")) + from;
    doc[from..to].trim_matches('\n')
}

fn check(file: &str, start: &str, end: &str, expected: &str, how: &str) {
    let doc = std::fs::read_to_string(file).unwrap();
    let found = section(&doc, start, end, file);
    if std::env::var_os("TIDINGS_BLESS").is_some() && found != expected.trim_matches('\n') {
        let updated = doc.replacen(found, expected.trim_matches('\n'), 1);
        std::fs::write(file, updated).unwrap();
        return;
    }
    assert!(
        found == expected.trim_matches('\n'),
        "{file} does not match the code; replace the text between {start} and {end} with ({how}):\n\n{expected}"
    );
}

#[test]
fn readme_key_table_is_the_keymap() {
    let markdown = Keymap::default().markdown();
    check("README.md", "<!-- keys:start -->", "<!-- keys:end -->", &markdown, "`cargo run -- keys --markdown`");
}

#[test]
fn config_example_documents_every_binding() {
    let toml = Keymap::default().toml_example();
    check("config.example.toml", "# keys:start", "# keys:end", &toml, "Keymap::toml_example");
}

#[test]
fn config_example_documents_every_colour() {
    let toml = tidings::ui::theme::toml_example();
    check("config.example.toml", "# colors:start", "# colors:end", &toml, "theme::toml_example");
}

#[test]
fn readme_legend_is_the_help_windows() {
    let markdown = tidings::app::dialogs::legend_markdown();
    check("README.md", "<!-- legend:start -->", "<!-- legend:end -->", &markdown, "dialogs::legend_markdown");
}
