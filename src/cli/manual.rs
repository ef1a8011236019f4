//! `tidings man` and `tidings completions SHELL`: the manual page and the shells' completions, both made from the
//! same clap definitions as `--help` (by clap_mangen and clap_complete), and the man page's KEYS section from the
//! keymap table, so none of them can say something the program does not do. `docs/tidings.1` is this page,
//! held to it by `tests/docs.rs`.

use super::args::Cli;
use super::{EXIT_ERROR, EXIT_SOME_FAILED, EXIT_USAGE};
use crate::app::keymap::Keymap;
use clap::CommandFactory;
use clap_mangen::roff::{Roff, bold, italic, roman};

/// The files tidings keeps, where they are on Linux, and the flag or variable that moves them.
const FILES: [(&str, &str); 4] = [
    ("~/.config/tidings/config.toml", "The config file (--config FILE); every key is optional."),
    ("~/.local/share/tidings/tidings.db", "The cache: one SQLite file in WAL mode, its owner's only (--db FILE)."),
    (
        "~/.local/state/tidings/tidings.log",
        "The log (--log FILE puts it elsewhere); TIDINGS_LOG sets how much goes into it.",
    ),
    ("~/.cache/tidings/pictures", "Pictures kept between sessions (image_cache_mb)."),
];

/// The environment variables tidings reads, and what each changes.
const ENVIRONMENT: [(&str, &str); 6] = [
    ("XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME", "Where the files above live."),
    ("TIDINGS_LOG", "What the log keeps: error, warn, info (the default), debug, trace."),
    ("BROWSER", "Opens pages when the config sets no browser."),
    ("NO_COLOR", "Starts from a theme without colours; [colors] still applies over it."),
    ("TERM, TERM_PROGRAM", "Which terminal draws the pictures, with its answers to tidings's queries."),
    ("HOME", "Where a newsboat home is looked for (tidings import newsboat)."),
];

/// `tidings(1)`: the commands and options of the clap definitions, then the keys, files, environment and exit
/// statuses. No date in it, so the page changes only when what it says does.
pub fn man_page() -> String {
    let command = Cli::command();
    let man = clap_mangen::Man::new(command.clone()).manual("tidings manual");
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = man.render_title(&mut out);
    let _ = man.render_name_section(&mut out);
    let _ = man.render_synopsis_section(&mut out);
    let _ = man.render_description_section(&mut out);
    let _ = man.render_options_section(&mut out);
    let mut roff = Roff::new();
    commands(&mut roff, &command);
    keys(&mut roff, &Keymap::default());
    described(&mut roff, "FILES", &FILES);
    described(&mut roff, "ENVIRONMENT", &ENVIRONMENT);
    exit_status(&mut roff);
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman("The documents beside the source, README.md and docs/: the keys, the config, queries, sync.")]);
    let _ = roff.to_writer(&mut out);
    let _ = man.render_version_section(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Every command with its usage, what it does, and its own options.
fn commands(roff: &mut Roff, command: &clap::Command) {
    roff.control("SH", ["COMMANDS"]);
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let mut sub = sub.clone().bin_name(format!("tidings {}", sub.get_name()));
        let usage = sub.render_usage().to_string();
        roff.control("TP", []);
        roff.text([bold(usage.trim_start_matches("Usage: ").to_string())]);
        let about = sub.get_long_about().or(sub.get_about()).map(ToString::to_string).unwrap_or_default();
        roff.text([roman(about)]);
        let options: Vec<&clap::Arg> = sub
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !a.is_global_set() && a.get_long().is_some_and(|long| long != "help"))
            .collect();
        if options.is_empty() {
            continue;
        }
        roff.control("RS", []);
        for arg in options {
            roff.control("TP", []);
            roff.text([bold(flags(arg)), italic(value_names(arg))]);
            roff.text([roman(arg.get_help().map(ToString::to_string).unwrap_or_default())]);
        }
        roff.control("RE", []);
    }
}

/// `-o, --output`, or `--json`.
fn flags(arg: &clap::Arg) -> String {
    let long = arg.get_long().map(|long| format!("--{long}")).unwrap_or_default();
    match arg.get_short() {
        Some(short) => format!("-{short}, {long}"),
        None => long,
    }
}

/// ` FILE` after an option that takes a value; nothing after a switch.
fn value_names(arg: &clap::Arg) -> String {
    if !arg.get_action().takes_values() {
        return String::new();
    }
    arg.get_value_names().map(|names| format!(" {}", names.join(" "))).unwrap_or_default()
}

/// The default keys, one subsection per context, as the help window lists them.
fn keys(roff: &mut Roff, keymap: &Keymap) {
    roff.control("SH", ["KEYS"]);
    roff.text([roman(
        "Every key is an action of one table; [keys] in the config rebinds any of them and `tidings keys` prints \
         the keys in effect. ? shows the same table in the reader.",
    )]);
    let mut context = None;
    for (ctx, keys, help) in keymap.help_rows() {
        if context != Some(ctx) {
            roff.control("SS", [ctx.title()]);
            context = Some(ctx);
        }
        roff.control("TP", []);
        roff.text([bold(keys)]);
        roff.text([roman(help)]);
    }
}

fn described(roff: &mut Roff, section: &str, rows: &[(&str, &str)]) {
    roff.control("SH", [section]);
    for (name, what) in rows {
        roff.control("TP", []);
        roff.text([bold(*name)]);
        roff.text([roman(*what)]);
    }
}

fn exit_status(roff: &mut Roff) {
    let statuses = [
        ("0".to_string(), "Everything asked for succeeded."),
        (
            EXIT_ERROR.to_string(),
            "A fatal error: a bad config, an unreadable file, trouble with the database; or the reader quit \
             before the database took every change (they are named).",
        ),
        (EXIT_USAGE.to_string(), "A usage error, and `add` when a page offers several feeds and --pick is needed."),
        (
            EXIT_SOME_FAILED.to_string(),
            "The command finished but some feeds or outlines failed, an account could not be synced, or nothing \
             was found; each is listed.",
        ),
    ];
    roff.control("SH", ["EXIT STATUS"]);
    for (status, what) in statuses {
        roff.control("TP", []);
        roff.text([bold(status)]);
        roff.text([roman(what)]);
    }
}

/// `tidings completions SHELL`: the shell's completion script for every command and option.
pub fn completions(shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "tidings", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}
