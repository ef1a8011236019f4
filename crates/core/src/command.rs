//! Command lines from the config (`browser = "w3m -T text/html %u"`): split into words as a shell would split
//! plain words and quotes — but never handed to a shell, and nothing expanded — with the address put in as one
//! whole argument where `%u` (or `%s`, `$BROWSER`'s convention) stands.

use std::path::Path;

/// Programs that draw in the terminal, and so need it to themselves.
const TERMINAL_PROGRAMS: &[&str] = &[
    "w3m", "lynx", "links", "links2", "elinks", "browsh", "cha", "chawan", "carbonyl", "mpv", "mplayer", "mpg123",
    "mpg321", "ffplay", "cvlc",
];

/// A command line to open something with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The program and its arguments; `%u` (or `%s`) marks where the address goes.
    pub words: Vec<String>,
    /// Whether it needs the terminal.
    pub in_terminal: bool,
}

impl CommandLine {
    /// A command line as configured; `in_terminal` unset means "if it is a program known to draw in the
    /// terminal".
    pub fn parse(line: &str, in_terminal: Option<bool>) -> Result<CommandLine, String> {
        let words = split_words(line)?;
        let Some(program) = words.first() else { return Err("the command is empty".into()) };
        let in_terminal = in_terminal.unwrap_or_else(|| is_terminal_program(program));
        Ok(CommandLine { words, in_terminal })
    }

    /// The arguments (after the program) for `url`: the address replaces `%u`/`%s` as one whole argument, or
    /// goes last when neither appears.
    pub fn arguments(&self, url: &str) -> Vec<String> {
        let mut args: Vec<String> = Vec::with_capacity(self.words.len() + 1);
        let mut placed = false;
        for word in &self.words[1..] {
            if word.contains("%u") || word.contains("%s") {
                args.push(word.replace("%u", url).replace("%s", url));
                placed = true;
            } else {
                args.push(word.clone());
            }
        }
        if !placed {
            args.push(url.to_string());
        }
        args
    }

    pub fn program(&self) -> &str {
        &self.words[0]
    }
}

fn is_terminal_program(program: &str) -> bool {
    let name = Path::new(program).file_name().and_then(|n| n.to_str()).unwrap_or(program);
    TERMINAL_PROGRAMS.contains(&name)
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
}
