//! The config file through the real binary: `[keys]` and `[colors]` change what tidings does, and a bad entry
//! stops it with an error naming the file, the line and the key.

mod support;

use support::{Sandbox, stderr, stdout};

#[test]
fn a_keys_section_changes_the_keys_in_effect() {
    let sandbox = Sandbox::new();
    let config = sandbox.write(
        "config.toml",
        "[keys]\ndown = [\"Ctrl-n\", \"Down\"]\nup = [\"Ctrl-p\", \"Up\"]\n[keys.article]\npage_down = [\"Space\", \"Ctrl-v\"]\n",
    );
    let out = sandbox.run(&["--config", config.to_str().unwrap(), "keys"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let line =
        |what: &str| text.lines().find(|l| l.contains(what)).unwrap_or_else(|| panic!("{what}:\n{text}")).to_string();
    assert!(line("move down").contains("Ctrl-n") && !line("move down").contains(" j,"), "{}", line("move down"));
    assert!(line("scroll a page down").contains("Ctrl-v"));
    let defaults = stdout(&sandbox.run(&["keys"]));
    assert!(defaults.lines().any(|l| l.contains("j, ↓") && l.contains("move down")), "{defaults}");
}

#[test]
fn a_bad_binding_stops_tidings_naming_the_file_the_line_and_the_key() {
    let sandbox = Sandbox::new();
    let config = sandbox.write("config.toml", "mouse = false\n\n[keys]\nnext_unread = \"n\"\nrefresh = \"n\"\n");
    let out = sandbox.run(&["--config", config.to_str().unwrap(), "keys"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("config.toml") && err.contains("line 5, key `keys.refresh`"), "{err}");
    assert!(err.contains("n is also bound to next_unread"), "{err}");
    let config = sandbox.write("bad-colour.toml", "[colors]\nselection = \"sky on fire\"\n");
    let err = stderr(&sandbox.run(&["--config", config.to_str().unwrap(), "keys"]));
    assert!(err.contains("line 2, key `colors.selection`") && err.contains("'sky' is not a colour"), "{err}");
}
