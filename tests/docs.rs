//! The documentation that is drawn from the code must say what the code does: docs/keys.md's tables and
//! config.example.toml's [keys] and [colors] sections are generated from the keymap and the theme, docs/tidings.1
//! is `tidings man`, and these tests fail, showing the text to paste or the command to run, when they drift
//! apart. `TIDINGS_BLESS=1 cargo test --test docs` writes the generated text into the files instead.
//!
//! The config's keys are read from its own definition (the names its `Deserialize` asks for), never from a list
//! kept by hand: each must be in config.example.toml, commented out at its default, and in docs/config.md.

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
fn docs_key_table_is_the_keymap() {
    let markdown = Keymap::default().markdown();
    check("docs/keys.md", "<!-- keys:start -->", "<!-- keys:end -->", &markdown, "`cargo run -- keys --markdown`");
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
fn docs_legend_is_the_help_windows() {
    let markdown = tidings::app::dialogs::legend_markdown();
    check("docs/keys.md", "<!-- legend:start -->", "<!-- legend:end -->", &markdown, "dialogs::legend_markdown");
}

#[test]
fn docs_config_lists_every_colour() {
    let toml = format!("```toml\n{}```", tidings::ui::theme::toml_example());
    check("docs/config.md", "<!-- colors:start -->", "<!-- colors:end -->", &toml, "theme::toml_example");
}

#[test]
fn man_page_is_what_tidings_man_prints() {
    let generated = tidings::cli::man_page();
    let file = "docs/tidings.1";
    let committed = std::fs::read_to_string(file).unwrap_or_default();
    if std::env::var_os("TIDINGS_BLESS").is_some() && committed != generated {
        std::fs::write(file, &generated).unwrap();
        return;
    }
    assert!(
        committed == generated,
        "{file} is not what `tidings man` prints: run `cargo run -- man > {file}` (or \
         `TIDINGS_BLESS=1 cargo test --test docs`) and commit it"
    );
}

#[test]
fn bash_takes_the_completions_and_completes_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("tidings.bash");
    std::fs::write(&script, tidings::cli::completions(clap_complete::Shell::Bash)).unwrap();
    // What bash does on `tidings re<Tab>`: the completion function fills COMPREPLY.
    let probe = format!(
        "source '{}' && complete -p tidings && COMP_WORDS=(tidings re) && COMP_CWORD=1 && COMP_LINE='tidings re' \
         && COMP_POINT=10 && _tidings tidings re tidings && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let out = std::process::Command::new("bash").arg("-c").arg(&probe).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "bash refused the completions: {}", String::from_utf8_lossy(&out.stderr));
    let registered = said.lines().next().is_some_and(|l| l.contains("-F _tidings") && l.ends_with(" tidings"));
    assert!(registered, "no completion registered for tidings: {said}");
    assert!(said.lines().any(|l| l == "refresh"), "`tidings re<Tab>` does not offer refresh: {said}");
}

#[path = "docs/config_keys.rs"]
mod config_keys;
