//! Command lines from the config (`browser = "w3m -T text/html %u"`): split into words as a shell would split
//! plain words and quotes — but never handed to a shell, and nothing expanded — with each placeholder's value
//! (`%u`, the address; `%t`, a title…) put in as data:
//!
//! - in a plain word, the value replaces its mark inside that one argument (`--url=%u`);
//! - in a script a shell will read (`sh -c 'xdg-open %u >/dev/null'`, `bash -c`, `fish -c`…), the mark becomes a
//!   reference to a positional parameter (`"${1}"`) and the value goes after the script as that parameter, so a
//!   link holding `;`, `$(…)` or backquotes is never read as code;
//! - in a command string another program hands to a shell (a `tmux new-window 'w3m %u'` command, the remote
//!   command of `ssh host …`), the value is quoted for the shell where it stands;
//! - a mark inside the code of another interpreter (`python3 -c`, `perl -e`, `awk '{…}'`) is refused when the
//!   line is read: there is no way to make a value data inside it; the values go as arguments after it instead.
//!   So is a mark in a command another program hands to a shell of its choosing (`flock FILE -c`, `su -c`,
//!   `watch`…: see [`runners`]).

mod runners;
mod shell;

use shell::{Dialect, Replacement};
use std::path::Path;

/// Programs that draw in the terminal, and so need it to themselves.
const TERMINAL_PROGRAMS: &[&str] = &[
    "w3m", "lynx", "links", "links2", "elinks", "browsh", "cha", "chawan", "carbonyl", "mpv", "mplayer", "mpg123",
    "mpg321", "ffplay", "cvlc",
];

/// Shells of the POSIX family: `NAME -c SCRIPT [NAME0 [ARGUMENT…]]`.
const POSIX_SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh", "loksh", "ash", "hush", "yash",
    "posh", "rbash", "osh", "bosh",
];

/// Interpreters and the options that take their code; for awk, the first word that is not an option.
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("python2", &["-c"]),
    ("python3", &["-c"]),
    ("pypy", &["-c"]),
    ("pypy3", &["-c"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("node", &["-e", "-p", "--eval", "--print"]),
    ("nodejs", &["-e", "-p", "--eval", "--print"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("luajit", &["-e"]),
    ("osascript", &["-e"]),
    ("Rscript", &["-e"]),
    ("pwsh", &["-c", "-Command", "-command"]),
    ("powershell", &["-c", "-Command", "-command"]),
    ("awk", &[]),
    ("gawk", &[]),
    ("mawk", &[]),
    ("nawk", &[]),
];

/// A command line to open something with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The program and its arguments, placeholders (`%u`…) still in them.
    pub words: Vec<String>,
    /// Whether it needs the terminal.
    pub in_terminal: bool,
}

impl CommandLine {
    /// A command line as configured; `in_terminal` unset means "if it is a program known to draw in the
    /// terminal". A placeholder inside an interpreter's code is refused (see the module's notes).
    pub fn parse(line: &str, in_terminal: Option<bool>) -> Result<CommandLine, String> {
        let words = split_words(line)?;
        let Some(program) = words.first() else { return Err("the command is empty".into()) };
        let in_terminal = in_terminal.unwrap_or_else(|| is_terminal_program(program));
        refuse_placeholders_in_code(&words)?;
        runners::refuse_placeholders_in_shell_commands(&words)?;
        refuse_placeholders_handed_on_by_a_script(&words)?;
        Ok(CommandLine { words, in_terminal })
    }

    /// The arguments (after the program) for `url`: the address stands where `%u` does, or goes last when it
    /// does not appear.
    pub fn arguments(&self, url: &str) -> Vec<String> {
        let mut argv = self.argv(&[("%u", url)], &[url]);
        argv.remove(0);
        argv
    }

    /// The program and its arguments with each placeholder (`values`: the mark and its value) in place as data,
    /// as the module's notes say; when no mark appears anywhere, `unplaced` go last (as the script's positional
    /// parameters, for a shell's script).
    pub fn argv(&self, values: &[(&str, &str)], unplaced: &[&str]) -> Vec<String> {
        let marks: Vec<&str> = values.iter().map(|(mark, _)| *mark).collect();
        let values: Vec<String> = values.iter().map(|(_, value)| value.replace('\0', "")).collect();
        let script = find_script(&self.words);
        let commands = command_strings(&self.words);
        let mut argv = Vec::with_capacity(self.words.len() + values.len() + 1);
        // The values a script refers to, in the order of their parameters.
        let mut parameters: Vec<usize> = Vec::new();
        let mut placed = false;
        for (i, word) in self.words.iter().enumerate() {
            placed |= marks.iter().any(|m| word.contains(m));
            let written = match script {
                Some(s) if s.index == i => {
                    let first = s.first_parameter(self.words.len());
                    shell::substitute(word, s.dialect, &marks, |m| {
                        let at = parameters.iter().position(|&p| p == m).unwrap_or_else(|| {
                            parameters.push(m);
                            parameters.len() - 1
                        });
                        Replacement::Argument(first + at)
                    })
                }
                _ if commands.contains(&i) => {
                    shell::substitute(word, Dialect::Posix, &marks, |m| Replacement::Literal(&values[m]))
                }
                _ => replace_marks(word, &marks, &values),
            };
            argv.push(written);
        }
        let mut tail: Vec<String> = parameters.iter().map(|&m| values[m].clone()).collect();
        if !placed {
            tail.extend(unplaced.iter().map(|v| v.replace('\0', "")));
        }
        if let Some(s) = script
            && !tail.is_empty()
            && s.dialect == Dialect::Posix
            && s.index + 1 == self.words.len()
        {
            // The first word after a script is its `$0`, its name: the values start at `$1`.
            let name = Path::new(&self.words[s.shell]).file_name().and_then(|n| n.to_str()).unwrap_or("sh");
            argv.push(name.to_string());
        }
        argv.extend(tail);
        argv
    }

    pub fn program(&self) -> &str {
        &self.words[0]
    }
}

/// `script` (for a POSIX shell) with each of `marks` replaced by a reference to the positional parameter of its
/// place in `marks` (`"${1}"` for the first), as [`CommandLine::argv`] would: for writing a command line whose
/// values follow the script (`sh -c SCRIPT sh %u`).
pub fn shell_script(script: &str, marks: &[&str]) -> String {
    shell::substitute(script, Dialect::Posix, marks, |m| Replacement::Argument(m + 1))
}

/// A script handed to a shell: the word that holds it, the shell's word, and which shell.
#[derive(Clone, Copy, Debug)]
struct Script {
    index: usize,
    shell: usize,
    dialect: Dialect,
}

impl Script {
    /// The number of the first positional parameter a placeholder may take: after the words already following the
    /// script (the first of which is `$0` in a POSIX shell).
    fn first_parameter(&self, words: usize) -> usize {
        let after = words - self.index - 1;
        match self.dialect {
            Dialect::Posix => after.max(1),
            Dialect::Fish => after + 1,
        }
    }
}

/// The first word that is a script for a shell (`sh -c SCRIPT`, `bash -ec SCRIPT`, `fish -c SCRIPT`), wherever the
/// shell stands (after `env`, `setsid`, `xterm -e`…).
fn find_script(words: &[String]) -> Option<Script> {
    for (shell, word) in words.iter().enumerate() {
        let name = base_name(word);
        let dialect = if POSIX_SHELLS.contains(&name) {
            Dialect::Posix
        } else if name == "fish" {
            Dialect::Fish
        } else {
            continue;
        };
        let mut saw_c = false;
        let mut j = shell + 1;
        while let Some(option) = words.get(j) {
            if option == "--" {
                j += 1;
                break;
            }
            // Options that take a value: `-o errexit`, bash's `-O extglob` and `--rcfile FILE`.
            let valued = ["-o", "+o", "-O", "+O", "--rcfile", "--init-file"];
            if valued.contains(&option.as_str()) || (dialect == Dialect::Fish && option == "--command") {
                saw_c |= option == "--command";
                j += 2;
                continue;
            }
            if option.starts_with("--") {
                j += 1;
                continue;
            }
            if (option.starts_with('-') || option.starts_with('+')) && option.len() > 1 {
                saw_c |= option.starts_with('-') && option[1..].contains('c');
                // Each `o` or `O` in a cluster takes the next word as its value (`-co pipefail SCRIPT`).
                let values = if dialect == Dialect::Posix { option.matches(['o', 'O']).count() } else { 0 };
                j += 1 + values;
                continue;
            }
            break;
        }
        if saw_c && j < words.len() {
            return Some(Script { index: j, shell, dialect });
        }
        // An option not known here may have taken a value, and hidden a `-c` after it: the word after a later
        // `-c` (or a cluster holding it) is taken for the script, whose placeholders are then data. Taken wrongly
        // (`sh prog.sh -c %t`), the value reaches the program as an argument after a reference to it.
        let later = words[j.min(words.len())..].iter().position(|w| {
            w.starts_with('-')
                && !w.starts_with("--")
                && w[1..].chars().all(|c| c.is_ascii_alphabetic())
                && w.contains('c')
        });
        if let Some(at) = later.map(|p| j + p + 1).filter(|&index| index < words.len()) {
            return Some(Script { index: at, shell, dialect });
        }
    }
    None
}

/// Words another program hands to a shell as they are: a `tmux` command's shell command when it is one word with
/// spaces in it (tmux runs a single word through `sh -c`), and the remote command of `ssh` (joined and read by the
/// remote shell).
fn command_strings(words: &[String]) -> Vec<usize> {
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        match base_name(word) {
            "tmux" => {
                found.extend((i + 1..words.len()).filter(|&j| words[j].contains(char::is_whitespace)));
                break;
            }
            "ssh" => {
                // Options that take a value (ssh(1)); the first other word is the host.
                const VALUED: &str = "BbcDEeFIiJLlmOoPpQRSWw";
                let mut j = i + 1;
                while let Some(option) = words.get(j).filter(|w| w.starts_with('-') && w.len() > 1) {
                    let takes_value = option.len() == 2 && VALUED.contains(&option[1..]);
                    j += if takes_value { 2 } else { 1 };
                }
                found.extend(j + 1..words.len());
                break;
            }
            _ => {}
        }
    }
    found
}

/// A placeholder in a shell script that hands it on as code — to a program that gives it to a shell of its own
/// (`sh -c 'watch notify-send %t'`: the script passes `"${1}"` as data, watch joins it into a command line), to
/// another interpreter, or to a shell's script inside the script — refused: the value stays data only one level
/// down. The script's words are split as a shell would, its operators (`;`, `|`, `&`, parentheses) parting them.
fn refuse_placeholders_handed_on_by_a_script(words: &[String]) -> Result<(), String> {
    let Some(script) = find_script(words) else { return Ok(()) };
    let Some(mark) = first_placeholder(&words[script.index]) else { return Ok(()) };
    let Ok(inner) = split_words(&words[script.index].replace([';', '|', '&', '(', ')', '`', '\n'], " ")) else {
        return Ok(());
    };
    refuse_placeholders_in_code(&inner)?;
    runners::refuse_placeholders_in_shell_commands(&inner)?;
    match find_script(&inner) {
        Some(nested) if inner[nested.index..].iter().any(|w| first_placeholder(w).is_some()) => Err(format!(
            "{mark} inside a shell's script within the script would be read as code, not as data: give it to the \
             outer script only, as an argument of its own"
        )),
        _ => Ok(()),
    }
}

/// A placeholder inside an interpreter's code, refused: the value would be read as code, and no quoting of
/// another language can be trusted to stop it.
fn refuse_placeholders_in_code(words: &[String]) -> Result<(), String> {
    for (i, word) in words.iter().enumerate() {
        let name = base_name(word);
        let Some((_, code_options)) = INTERPRETERS.iter().find(|(n, _)| *n == name) else { continue };
        let code = if code_options.is_empty() {
            // awk: the program is the first word that is not an option (or an option's value).
            let mut j = i + 1;
            while let Some(w) = words.get(j).filter(|w| w.starts_with('-') && w.len() > 1) {
                if w == "-f" || w.starts_with("--file") {
                    j = words.len();
                    break;
                }
                j += if matches!(w.as_str(), "-F" | "-v") { 2 } else { 1 };
            }
            words.get(j)
        } else {
            words[i + 1..].iter().position(|w| code_options.contains(&w.as_str())).and_then(|p| words.get(i + p + 2))
        };
        if let Some(mark) = code.and_then(|c| first_placeholder(c)) {
            return Err(format!(
                "{mark} inside {name}'s code would be read as code, not as data: put {mark} after the code as an \
                 argument of its own and read it there"
            ));
        }
    }
    Ok(())
}

/// The first placeholder in `word`: a `%` and a letter (`%u`, `%t`…), or a download's `{url}` or `{path}`.
fn first_placeholder(word: &str) -> Option<&str> {
    word.char_indices().find_map(|(i, c)| match c {
        '%' if word[i + 1..].starts_with(|n: char| n.is_ascii_alphabetic()) => Some(&word[i..i + 2]),
        '{' => ["{url}", "{path}"].into_iter().find(|m| word[i..].starts_with(m)),
        _ => None,
    })
}

/// `word` with each mark replaced by its value, in one pass (a value is never read for marks again).
fn replace_marks(word: &str, marks: &[&str], values: &[String]) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(c) = rest.chars().next() {
        if let Some(i) = marks.iter().position(|m| !m.is_empty() && rest.starts_with(m)) {
            out.push_str(&values[i]);
            rest = &rest[marks[i].len()..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The file name of a program (`/usr/bin/sh` → `sh`).
fn base_name(word: &str) -> &str {
    Path::new(word).file_name().and_then(|n| n.to_str()).unwrap_or(word)
}

fn is_terminal_program(program: &str) -> bool {
    TERMINAL_PROGRAMS.contains(&base_name(program))
}

/// Splits a command line into words as a shell would for plain words and quotes ('…', "…", and \ escapes),
/// without expanding anything: no variables, globs, pipes or redirections.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed ' in {line:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unclosed \" in {line:?}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed \" in {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(format!("a \\ ends {line:?}")),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell_without_expanding_anything() {
        assert_eq!(split_words("firefox --new-tab %u").unwrap(), ["firefox", "--new-tab", "%u"]);
        assert_eq!(
            split_words(r#"'my browser' "a b" c\ d $HOME *"#).unwrap(),
            ["my browser", "a b", "c d", "$HOME", "*"]
        );
        assert_eq!(split_words(r#"x "say \"hi\"""#).unwrap(), ["x", "say \"hi\""]);
        assert_eq!(split_words("x ''").unwrap(), ["x", ""]);
        assert!(split_words("x 'open").is_err());
    }

    fn argv(line: &str, values: &[(&str, &str)], unplaced: &[&str]) -> Vec<String> {
        CommandLine::parse(line, None).unwrap().argv(values, unplaced)
    }

    const LINK: &str = "http://x.example/;touch$IFS/tmp/p;#$(id)`id`'\"\n";

    #[test]
    fn a_value_is_one_whole_argument_in_a_plain_word() {
        assert_eq!(argv("w3m -T text/html %u", &[("%u", LINK)], &[LINK]), ["w3m", "-T", "text/html", LINK]);
        assert_eq!(argv("open --url=%u", &[("%u", LINK)], &[]), ["open".to_string(), format!("--url={LINK}")]);
        assert_eq!(argv("firefox", &[("%u", LINK)], &[LINK]), ["firefox", LINK], "no mark: the value goes last");
        assert_eq!(
            argv("notify %t %n", &[("%n", "2"), ("%t", "a %n b")], &[]),
            ["notify", "a %n b", "2"],
            "a value is never read for marks again"
        );
        assert_eq!(argv("x %u", &[("%u", "a\0b")], &[]), ["x", "ab"], "no NUL reaches an argument");
    }

    #[test]
    fn a_shell_script_refers_to_its_values_as_positional_parameters() {
        assert_eq!(
            argv("sh -c 'xdg-open %u > /dev/null 2>&1'", &[("%u", LINK)], &[LINK]),
            ["sh", "-c", r#"xdg-open "${1}" > /dev/null 2>&1"#, "sh", LINK]
        );
        assert_eq!(
            argv(r#"bash -ec "echo '%t' %u >> f; echo %t""#, &[("%u", "U"), ("%t", "T")], &[]),
            ["bash", "-ec", r#"echo ''"${1}"'' "${2}" >> f; echo "${1}""#, "bash", "T", "U"]
        );
        assert_eq!(
            argv("env -i /bin/sh -c 'cat %u' name extra", &[("%u", LINK)], &[]),
            ["env", "-i", "/bin/sh", "-c", r#"cat "${2}""#, "name", "extra", LINK],
            "after the words that already follow the script"
        );
        assert_eq!(
            argv(r#"sh -c 'xdg-open "$1"'"#, &[("%u", LINK)], &[LINK]),
            ["sh", "-c", r#"xdg-open "$1""#, "sh", LINK],
            "a script without the mark gets the value as $1"
        );
        assert_eq!(argv("fish -c 'open %u'", &[("%u", LINK)], &[LINK]), ["fish", "-c", r#"open "$argv[1]""#, LINK]);
        // Options that take a value, known or not, before the script.
        for line in [
            "bash -O extglob -c 'echo %t'",
            "bash --rcfile /dev/null -c 'echo %t'",
            "zsh --emulate sh -c 'echo %t'",
            "bash -co pipefail 'echo %t'",
            "dash -eo nounset -c 'echo %t'",
        ] {
            let words = argv(line, &[("%t", LINK)], &[]);
            assert_eq!(words[words.len() - 3..], ["echo \"${1}\"", words[0].as_str(), LINK], "{line}");
        }
    }

    #[test]
    fn a_command_string_another_program_gives_a_shell_gets_the_value_quoted() {
        assert_eq!(
            argv("tmux new-window 'w3m %u'", &[("%u", "a'b;c")], &[]),
            ["tmux", "new-window", r"w3m 'a'\''b;c'"]
        );
        assert_eq!(argv("tmux new-window w3m %u", &[("%u", "a b")], &[]), ["tmux", "new-window", "w3m", "a b"]);
        assert_eq!(
            argv("ssh -p 22 box firefox %u", &[("%u", "$(id)")], &[]),
            ["ssh", "-p", "22", "box", "firefox", "'$(id)'"]
        );
    }

    #[test]
    fn a_placeholder_inside_another_interpreters_code_is_refused() {
        for line in [
            "python3 -c 'import webbrowser; webbrowser.open(\"%u\")'",
            "perl -e 'print \"%t\"'",
            "awk -F: '{print \"%t\"}'",
        ] {
            let e = CommandLine::parse(line, None).unwrap_err();
            assert!(e.contains("would be read as code"), "{line}: {e}");
        }
        assert!(CommandLine::parse("python3 -c 'import sys; print(sys.argv[1])' %u", None).is_ok());
        assert!(CommandLine::parse("awk -f prog.awk %t", None).is_ok());
    }
}
