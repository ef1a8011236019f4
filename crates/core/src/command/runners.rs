//! Programs that hand one of their arguments to a shell of their choosing, refused a placeholder there: `flock
//! FILE -c COMMAND`, `script -c COMMAND`, `su -c COMMAND` (each the user's `$SHELL`, or the target user's), `watch
//! COMMAND…` (joined, to `sh -c`), `sudo -s`/`-i` (its shell), `env -S STRING` (split into a new command line),
//! and the C shells, nushell, elvish and xonsh (`-c`), whose quoting the module's shell lexer does not know. A value
//! pasted there would be read as code; no quoting can be trusted for a shell that is not known. The same command
//! through `sh -c` (`flock FILE sh -c 'echo %t'`) gets its values as data.

use super::{base_name, first_placeholder};

/// A program that may hand an argument to a shell.
struct Runner {
    name: &'static str,
    /// The options that take a shell command (a cluster of one-letter options counts when it holds the letter of
    /// a one-letter one: `flock -nc COMMAND`).
    command: &'static [&'static str],
    /// Its other options that take a value (`flock -w 5`).
    valued: &'static [&'static str],
    /// Where the options end: `Some(n)`, at the word after `n` operands, where a command of its own starts (`flock
    /// FILE COMMAND…`, whose words are that command's, not flock's); `None`, never (the options may come anywhere).
    operands: Option<usize>,
}

const RUNNERS: &[Runner] = &[
    Runner {
        name: "flock",
        command: &["-c", "--command"],
        valued: &["-w", "--timeout", "--wait", "-E", "--conflict-exit-code"],
        operands: Some(1),
    },
    Runner {
        name: "script",
        command: &["-c", "--command"],
        valued: &[
            "-E",
            "--echo",
            "-I",
            "--log-in",
            "-O",
            "--log-out",
            "-B",
            "--log-io",
            "-T",
            "--log-timing",
            "-m",
            "--logging-format",
            "-o",
            "--output-limit",
            "-t",
        ],
        operands: None,
    },
    Runner {
        name: "su",
        command: &["-c", "--command", "--session-command"],
        valued: &["-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"],
        operands: None,
    },
    Runner {
        name: "runuser",
        command: &["-c", "--command", "--session-command"],
        valued: &[
            "-g",
            "--group",
            "-G",
            "--supp-group",
            "-s",
            "--shell",
            "-u",
            "--user",
            "-w",
            "--whitelist-environment",
        ],
        operands: None,
    },
    Runner { name: "csh", command: &["-c"], valued: &[], operands: Some(0) },
    Runner { name: "tcsh", command: &["-c"], valued: &[], operands: Some(0) },
    Runner {
        name: "nu",
        command: &["-c", "--commands"],
        valued: &["--config", "--env-config", "--log-level", "-I", "--include-path"],
        operands: Some(0),
    },
    Runner { name: "elvish", command: &["-c"], valued: &["-rc", "-sock", "-db"], operands: Some(0) },
    Runner { name: "xonsh", command: &["-c"], valued: &["--rc", "-D"], operands: Some(0) },
    Runner {
        name: "env",
        command: &["-S", "--split-string"],
        valued: &["-u", "--unset", "-C", "--chdir", "-a", "--argv0"],
        operands: Some(0),
    },
];

/// A placeholder where one of these programs would read it as code, refused.
pub(super) fn refuse_placeholders_in_shell_commands(words: &[String]) -> Result<(), String> {
    for (i, word) in words.iter().enumerate() {
        let name = base_name(word);
        let after = &words[i + 1..];
        let code: Vec<&String> = match name {
            // Every word after watch's options is its command, joined and run by `sh -c` (unless `-x`).
            "watch" if !after.iter().any(|w| w == "-x" || w == "--exec") => after.iter().collect(),
            // sudo's shell runs the command line it is given after `-s` or `-i`.
            "sudo" if sudo_runs_a_shell(after) => after.iter().collect(),
            _ => match RUNNERS.iter().find(|r| r.name == name) {
                Some(runner) => command_arguments(after, runner),
                None => continue,
            },
        };
        if let Some(mark) = code.iter().find_map(|w| first_placeholder(w)) {
            return Err(format!(
                "{mark} in the command {name} hands to a shell would be read as code, not as data: run that command \
                 through sh -c, where tidings passes {mark} as data ({name} … sh -c '… {mark} …'), or give {mark} a \
                 word of its own for a program that reads it as data"
            ));
        }
    }
    Ok(())
}

/// Whether sudo's options (up to its command) include `-s` or `-i`.
fn sudo_runs_a_shell(words: &[String]) -> bool {
    // sudo(8)'s one-letter options that take a value.
    const VALUED: &str = "CDghpRrTtUu";
    let mut j = 0;
    while let Some(word) = words.get(j).filter(|w| w.starts_with('-') && w.len() > 1) {
        if word == "--" {
            return false;
        }
        if is_option(word, &["-s", "--shell", "-i", "--login"]) {
            return true;
        }
        j += if word.len() == 2 && VALUED.contains(&word[1..]) { 2 } else { 1 };
    }
    false
}

/// The runner's shell commands among `words` (those after it): the words that follow its command options (`-c
/// COMMAND`), or that carry the command (`--command=COMMAND`), up to where its own options end.
fn command_arguments<'w>(words: &'w [String], runner: &Runner) -> Vec<&'w String> {
    let with_value = |word: &str, options: &[&str]| {
        options.iter().any(|o| o.starts_with("--") && word.strip_prefix(o).is_some_and(|v| v.starts_with('=')))
    };
    let mut found = Vec::new();
    let mut operands = runner.operands;
    let mut j = 0;
    while let Some(word) = words.get(j) {
        j += 1;
        if word == "--" {
            break;
        }
        if with_value(word, runner.command) {
            found.push(word);
        } else if is_option(word, runner.command) {
            found.extend(words.get(j));
            j += 1;
        } else if runner.valued.contains(&word.as_str()) {
            j += 1;
        } else {
            let option = word.starts_with('-') && word.len() > 1;
            // An operand: not an option, nor a variable's assignment before env's command.
            if option || (runner.name == "env" && word.contains('=')) {
                continue;
            }
            match &mut operands {
                Some(0) => break,
                Some(left) => *left -= 1,
                None => {}
            }
        }
    }
    found
}

/// Whether `word` is one of `options`, or a cluster of one-letter options holding one of them (`-lc` for `-c`).
fn is_option(word: &str, options: &[&str]) -> bool {
    options.contains(&word)
        || (word.starts_with('-')
            && !word.starts_with("--")
            && word.len() > 2
            && word[1..].chars().all(|c| c.is_ascii_alphabetic())
            && options.iter().filter(|o| o.len() == 2 && !o.starts_with("--")).any(|o| word[1..].contains(&o[1..])))
}

#[cfg(test)]
mod tests {
    use super::super::CommandLine;

    #[test]
    fn a_placeholder_in_a_command_another_program_hands_its_shell_is_refused() {
        for line in [
            "flock /tmp/lk -c 'echo %t'",
            "flock /tmp/lk -nc %t",
            "flock /tmp/lk --command=%t",
            "script -qc 'echo %t' /dev/null",
            "su - me -c 'notify %f'",
            "watch -n 1 -g 'echo %t'",
            "watch echo %t",
            "sudo -s echo %t",
            "sudo -u me -i 'echo %t'",
            "tcsh -c 'echo %t'",
            "env -S 'sh -c %u'",
            "timeout 5 flock /tmp/lk -c 'echo {url}'",
            "flock -w 5 /tmp/lk -c 'echo %t'",
            "nice -n 5 script -E never -c %t",
        ] {
            let e = CommandLine::parse(line, None).expect_err(line);
            assert!(e.contains("would be read as code"), "{line}: {e}");
        }
        for line in [
            "flock /tmp/lk sh -c 'echo %t'",
            "flock -w 5 /tmp/lk sh -c 'echo %t'",
            "tcsh -c 'echo \"$argv[1]\"' %t",
            "flock /tmp/lk notify-send %t",
            "watch -x notify-send %t",
            "sudo -u me notify-send %t",
            "script -q /dev/null",
            "env LANG=C notify-send %t",
        ] {
            assert!(CommandLine::parse(line, None).is_ok(), "{line}");
        }
    }
}
