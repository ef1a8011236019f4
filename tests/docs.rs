//! The documentation that is drawn from the code must say what the code does: docs/keys.md's tables and
//! config.example.toml's [keys] and [colors] sections are generated from the keymap and the theme, docs/tidings.1
//! is `tidings man`, and these tests fail, showing the text to paste or the command to run, when they drift
//! apart. `TIDINGS_BLESS=1 cargo test --test docs` writes the generated text into the files instead.
//!
//! The config's keys are read from its own definition (the names its `Deserialize` asks for), never from a list
//! kept by hand: each must be in config.example.toml, commented out at its default, and in docs/config.md.

use tidings::app::keymap::Keymap;

/// Where the text between `start` and `end` in `doc` is, blank lines around it left out.
fn section(doc: &str, start: &str, end: &str, file: &str) -> std::ops::Range<usize> {
    let from = doc.find(start).unwrap_or_else(|| panic!("{file} has no {start} marker")) + start.len();
    let to = doc[from..].find(end).unwrap_or_else(|| panic!("{file} has no {end} marker")) + from;
    let inner = &doc[from..to];
    let lead = inner.len() - inner.trim_start_matches('\n').len();
    from + lead..from + lead + inner.trim_matches('\n').len()
}

fn check(file: &str, start: &str, end: &str, expected: &str, how: &str) {
    let doc = std::fs::read_to_string(file).unwrap();
    let at = section(&doc, start, end, file);
    let found = &doc[at.clone()];
    if std::env::var_os("TIDINGS_BLESS").is_some() && found != expected.trim_matches('\n') {
        // Written in place, by position: an empty section must not be taken for the start of the file.
        let mut updated = doc.clone();
        updated.replace_range(at, expected.trim_matches('\n'));
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

#[test]
fn ci_runs_the_test_command_the_readme_gives() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let after = readme.find("Run the tests").expect("README.md says how to run the tests");
    let block = readme[after..].split("```sh\n").nth(1).expect("README.md gives the test command in a sh block");
    let command = block.lines().next().unwrap_or_default();
    let ci = std::fs::read_to_string(".ci/run").unwrap();
    assert!(
        ci.lines().any(|line| line.trim() == command),
        "README.md's test command `{command}` is not what .ci/run runs: keep the two in step"
    );
    let lines = readme.lines().count();
    assert!(lines <= 150, "README.md is {lines} lines: it is the front door; the rest belongs under docs/");
}

#[test]
fn readmes_ten_keys_are_bound_to_what_it_says() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let from = readme.find("## The ten keys you need").expect("README.md has its ten keys");
    let rows: Vec<&str> = readme[from..].lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 10, "README.md's table of the keys you need has {} rows", rows.len());
    let keymap = Keymap::default();
    let bound = keymap.help_rows();
    for row in rows {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (keys, does) = (cells[1], cells[2]);
        for key in keys.split('`').skip(1).step_by(2) {
            // The help line of the action the key is bound to everywhere shares a word with README's words.
            let help = bound.iter().find(|(_, shown, _)| shown.split(", ").any(|k| k == key));
            let Some((_, _, help)) = help else { panic!("README.md names `{key}`, which no action is bound to") };
            let shared = does.split_whitespace().filter(|w| w.len() > 3).any(|w| help.contains(w));
            assert!(shared, "README.md says `{key}` does \"{does}\", but it is bound to \"{help}\"");
        }
    }
}
