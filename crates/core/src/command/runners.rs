//! Programs that hand one of their arguments to a shell of their choosing, refused a placeholder there: `flock
//! FILE -c COMMAND`, `script -c COMMAND`, `su -c COMMAND` (each the user's `$SHELL`, or the target user's), `watch
//! COMMAND…` (joined, to `sh -c`), `sudo -s`/`-i` (its shell), `env -S STRING` (split into a new command line),
//! and the C shells, rc, es, nushell, elvish and xonsh (`-c`), whose quoting the module's shell lexer does not
//! know. A value pasted there would be read as code; no quoting can be trusted for a shell that is not known. The
//! same command through `sh -c` (`flock FILE sh -c 'echo %t'`) gets its values as data.
//!
//! Options are read as getopt reads them: one-letter ones clustered (`-nc`), a value attached (`-c'echo %t'`,
//! `-S"sh -c …"`) or in the next word, long ones by any prefix that names them (`--comm`), their value after `=` or
//! in the next word. A word read wrongly errs on the side of refusing.

use super::{base_name, first_placeholder};

/// A program that may hand an argument to a shell.
struct Runner {
    name: &'static str,
    /// The options that take a shell command.
    command: &'static [&'static str],
    /// Its other options that take a value in the next word when none is attached (`flock -w 5`).
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
    // `-t[FILE]` takes its value attached only.
    Runner {
        name: "script",
        command: &["-c", "--command"],
        valued: &["-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-m"],
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
        valued: &["-g", "--group", "-G", "--supp-group", "-s", "--shell", "-u", "--user", "-w"],
        operands: None,
    },
    Runner { name: "csh", command: &["-c"], valued: &[], operands: Some(0) },
    Runner { name: "tcsh", command: &["-c"], valued: &[], operands: Some(0) },
    Runner { name: "rc", command: &["-c"], valued: &[], operands: Some(0) },
    Runner { name: "es", command: &["-c"], valued: &[], operands: Some(0) },
    Runner { name: "nu", command: &["-c", "--commands"], valued: &["--config", "--env-config"], operands: Some(0) },
    Runner { name: "elvish", command: &["-c"], valued: &[], operands: Some(0) },
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
        let code: Vec<&str> = match name {
            "watch" => watch_command(after),
            "sudo" => sudo_shell_command(after),
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

/// What an option word is to a program whose options are `command` (taking a shell command) and `valued`
/// (taking another value).
enum Read<'w> {
    /// A command option: its command attached (`-c'…'`, `--command=…`), or in the next word (`None`).
    Command(Option<&'w str>),
    /// Another option with its value in the next word.
    Valued,
    /// Options with nothing to take (or their value attached).
    Flags,
}

/// Reads an option word as getopt would (see the module's notes); `word` starts with `-` and is not `--`.
fn read_option<'w>(word: &'w str, command: &[&str], valued: &[&str]) -> Read<'w> {
    if let Some(long) = word.strip_prefix("--") {
        let (name, value) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        let names =
            |options: &[&str]| options.iter().any(|o| o.strip_prefix("--").is_some_and(|o| o.starts_with(name)));
        if name.is_empty() {
            return Read::Flags;
        }
        if names(command) {
            return Read::Command(value);
        }
        return if value.is_none() && names(valued) { Read::Valued } else { Read::Flags };
    }
    let letter =
        |options: &[&str], c: char| options.iter().any(|o| o.len() == 2 && o.ends_with(c) && !o.starts_with("--"));
    for (at, c) in word.char_indices().skip(1) {
        let rest = &word[at + c.len_utf8()..];
        if letter(command, c) {
            return Read::Command((!rest.is_empty()).then_some(rest));
        }
        if letter(valued, c) {
            return if rest.is_empty() { Read::Valued } else { Read::Flags };
        }
    }
    Read::Flags
}

/// The runner's shell commands among `words` (those after it), up to where its own options end.
fn command_arguments<'w>(words: &'w [String], runner: &Runner) -> Vec<&'w str> {
    let mut found = Vec::new();
    let mut operands = runner.operands;
    let mut j = 0;
    while let Some(word) = words.get(j) {
        j += 1;
        if word == "--" {
            break;
        }
        if word.starts_with('-') && word.len() > 1 {
            match read_option(word, runner.command, runner.valued) {
                Read::Command(Some(attached)) => found.push(attached),
                Read::Command(None) => {
                    found.extend(words.get(j).map(String::as_str));
                    j += 1;
                }
                Read::Valued => j += 1,
                Read::Flags => {}
            }
            continue;
        }
        // An operand: a variable's assignment before env's command is none.
        if runner.name == "env" && word.contains('=') {
            continue;
        }
        match &mut operands {
            Some(0) => break,
            Some(left) => *left -= 1,
            None => {}
        }
    }
    found
}

/// watch's command: every word after its options, joined and run by `sh -c`, unless `-x` (`--exec`) came among
/// its options (one after the command is the command's own).
fn watch_command(words: &[String]) -> Vec<&str> {
    const VALUED: &[&str] = &["-n", "--interval", "-q", "--equexit"];
    let mut j = 0;
    while let Some(word) = words.get(j).filter(|w| w.starts_with('-') && w.len() > 1) {
        j += 1;
        if word == "--" {
            break;
        }
        match read_option(word, &["-x", "--exec"], VALUED) {
            Read::Command(_) => return Vec::new(),
            Read::Valued => j += 1,
            Read::Flags => {}
        }
    }
    words[j.min(words.len())..].iter().map(String::as_str).collect()
}

/// The command sudo's shell runs: every word after its options when they include `-s` or `-i`, else none.
fn sudo_shell_command(words: &[String]) -> Vec<&str> {
    // sudo(8)'s options that take a value.
    const VALUED: &[&str] = &[
        "-C",
        "--close-from",
        "-D",
        "--chdir",
        "-g",
        "--group",
        "-h",
        "--host",
        "-p",
        "--prompt",
        "-R",
        "--chroot",
        "-r",
        "--role",
        "-T",
        "--command-timeout",
        "-t",
        "--type",
        "-U",
        "--other-user",
        "-u",
        "--user",
    ];
    let mut shell = false;
    let mut j = 0;
    while let Some(word) = words.get(j).filter(|w| w.starts_with('-') && w.len() > 1) {
        j += 1;
        if word == "--" {
            break;
        }
        match read_option(word, &["-s", "--shell", "-i", "--login"], VALUED) {
            Read::Command(attached) => {
                shell = true;
                // A value after `-s` is a cluster's next letters (`-si`): sudo's own options, read on.
                if let Some(rest) = attached {
                    let again = format!("-{rest}");
                    if matches!(read_option(&again, &[], VALUED), Read::Valued) {
                        j += 1;
                    }
                }
            }
            Read::Valued => j += 1,
            Read::Flags => {}
        }
    }
    if shell { words[j.min(words.len())..].iter().map(String::as_str).collect() } else { Vec::new() }
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
            "flock /tmp/lk --comm %t",
            "flock /tmp/lk -c'echo %t'",
            "script -qc 'echo %t' /dev/null",
            "script -t -c 'echo %t' /dev/null",
            "script -c'echo %t' /dev/null",
            "su - me -c 'notify %f'",
            "su --comm 'notify %f'",
            "watch -n 1 -g 'echo %t'",
            "watch echo %t",
            "watch curl -x http://proxy:3128 %u",
            "sudo -s echo %t",
            "sudo -u me -i 'echo %t'",
            "sudo -Eu me -s echo %t",
            "sudo --user me -s echo %t",
            "tcsh -c 'echo %t'",
            "rc -c 'echo %t'",
            "env -S 'sh -c %u'",
            "env -S\"sh -c 'echo %t'\"",
            "env --split 'sh -c \"echo %t\"'",
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

    #[test]
    fn a_placeholder_a_script_hands_on_as_code_is_refused() {
        for line in [
            "sh -c 'watch notify-send %t'",
            "sh -c 'flock /tmp/x -c \"echo %t\"'",
            "sh -c 'sh -c \"echo %t\"'",
            "bash -c 'cd /tmp && python3 -c \"print(%t)\"'",
        ] {
            let e = CommandLine::parse(line, None).expect_err(line);
            assert!(e.contains("would be read as code"), "{line}: {e}");
        }
        assert!(CommandLine::parse("sh -c 'notify-send \"New\" %t; echo done'", None).is_ok());
    }
}
