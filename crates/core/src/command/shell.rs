//! Placeholders inside a script that a shell will read (`sh -c 'xdg-open %u > /dev/null'`): a value pasted into
//! the script would be read as code — a link holding `;rm -rf ~;#` or `$(…)` would run. So a placeholder in a
//! script is written as a *reference* to the value (`"${1}"` for a positional parameter), or as the value quoted
//! for the shell, chosen by where the placeholder stands: outside quotes, inside `"…"`, inside `'…'`, inside
//! bash's `$'…'`, inside a command substitution or backquotes. The value itself then reaches the shell as data,
//! whatever it holds.
//!
//! This is a lexer of the shells' quoting, not a parser of their grammar: it follows quotes, escapes and
//! substitutions, which is all that decides how a placeholder's replacement is read.

/// Which shell reads the script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// sh, bash, dash, zsh, ksh and the others of the POSIX family.
    Posix,
    /// fish: no backquotes, `$argv[N]` for the arguments, `\'` inside single quotes.
    Fish,
}

/// Where in the script a placeholder stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quoting {
    /// Outside quotes, or in a command substitution `$(…)` / `(…)`, which starts afresh.
    Plain,
    /// Inside backquotes (POSIX): backslashes are read once before the command is.
    Backquoted,
    /// Inside `"…"`.
    Double,
    /// Inside `'…'`.
    Single,
    /// Inside bash's `$'…'`.
    AnsiC,
}

/// A frame of the quoting stack: `Sub(n)` is a command substitution with `n` parentheses open inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    Plain,
    Sub(u32),
    Backquoted,
    Double,
    Single,
    AnsiC,
}

/// What goes where a placeholder stood: a reference to an argument of the script, or a literal value.
pub(crate) enum Replacement<'a> {
    /// The script's argument `n` (`$n` in POSIX shells, `$argv[n]` in fish).
    Argument(usize),
    /// The value itself, quoted for the shell.
    Literal(&'a str),
}

/// The script with every occurrence of `marks` replaced as `replace(i)` says for `marks[i]`, each written so that
/// the shell reads it as one piece of data where it stands.
pub(crate) fn substitute<'a>(
    script: &str,
    dialect: Dialect,
    marks: &[&str],
    mut replace: impl FnMut(usize) -> Replacement<'a>,
) -> String {
    let mut out = String::with_capacity(script.len() + 16);
    let mut stack = vec![Frame::Plain];
    let mut rest = script;
    let mut word_starts = true;
    while let Some(c) = rest.chars().next() {
        let top = *stack.last().unwrap_or(&Frame::Plain);
        if c == '#' && word_starts && matches!(top, Frame::Plain | Frame::Sub(_)) {
            // A comment, to the end of its line: nothing in it is read.
            let end = rest.find('\n').unwrap_or(rest.len());
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        word_starts = c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(');
        if let Some(i) = marks.iter().position(|m| !m.is_empty() && rest.starts_with(m)) {
            let quoting = match top {
                Frame::Plain | Frame::Sub(_) => Quoting::Plain,
                Frame::Backquoted => Quoting::Backquoted,
                Frame::Double => Quoting::Double,
                Frame::Single => Quoting::Single,
                Frame::AnsiC => Quoting::AnsiC,
            };
            out.push_str(&written(replace(i), quoting, dialect));
            rest = &rest[marks[i].len()..];
            continue;
        }
        let next = rest[c.len_utf8()..].chars().next();
        let mut taken = c.len_utf8();
        match (top, c) {
            // An escaped character stands for itself: it opens nothing and is no placeholder.
            (Frame::Plain | Frame::Sub(_) | Frame::Backquoted | Frame::Double | Frame::AnsiC, '\\') => {
                taken += next.map_or(0, char::len_utf8);
            }
            (Frame::Single, '\\') if dialect == Dialect::Fish && matches!(next, Some('\'' | '\\')) => taken += 1,
            (Frame::Single | Frame::AnsiC, '\'') | (Frame::Double, '"') => {
                stack.pop();
            }
            (Frame::Plain | Frame::Sub(_) | Frame::Backquoted, '\'') => stack.push(Frame::Single),
            (Frame::Plain | Frame::Sub(_) | Frame::Backquoted, '"') => stack.push(Frame::Double),
            (Frame::Plain | Frame::Sub(_) | Frame::Backquoted, '$') if next == Some('\'') => {
                stack.push(Frame::AnsiC);
                taken += 1;
            }
            (Frame::Plain | Frame::Sub(_) | Frame::Backquoted | Frame::Double, '$') if next == Some('(') => {
                stack.push(Frame::Sub(0));
                taken += 1;
            }
            (Frame::Plain | Frame::Sub(_), '(') if dialect == Dialect::Fish => stack.push(Frame::Sub(0)),
            (Frame::Sub(n), '(') => *stack.last_mut().expect("a frame") = Frame::Sub(n + 1),
            (Frame::Sub(0), ')') => {
                stack.pop();
            }
            (Frame::Sub(n), ')') => *stack.last_mut().expect("a frame") = Frame::Sub(n - 1),
            (Frame::Backquoted, '`') => {
                stack.pop();
            }
            (Frame::Plain | Frame::Sub(_) | Frame::Double, '`') if dialect == Dialect::Posix => {
                stack.push(Frame::Backquoted);
            }
            _ => {}
        }
        out.push_str(&rest[..taken]);
        rest = &rest[taken..];
        if stack.is_empty() {
            // More closing than opening: the shell will say so; read on as plain text.
            stack.push(Frame::Plain);
        }
    }
    out
}

/// The text that stands for `replacement` at a place quoted as `quoting`.
fn written(replacement: Replacement<'_>, quoting: Quoting, dialect: Dialect) -> String {
    match replacement {
        Replacement::Argument(n) => {
            let reference = match dialect {
                Dialect::Posix => format!("${{{n}}}"),
                Dialect::Fish => format!("$argv[{n}]"),
            };
            match quoting {
                Quoting::Plain | Quoting::Backquoted => format!("\"{reference}\""),
                Quoting::Double => reference,
                // Close the quotes, refer in double quotes (no splitting, no globbing), open them again.
                Quoting::Single => format!("'\"{reference}\"'"),
                Quoting::AnsiC => format!("'\"{reference}\"$'"),
            }
        }
        Replacement::Literal(value) => match (quoting, dialect) {
            (Quoting::Plain, Dialect::Posix) => format!("'{}'", value.replace('\'', r"'\''")),
            (Quoting::Plain, Dialect::Fish) => format!("'{}'", escape(value, &['\\', '\''])),
            // Inside backquotes the shell first takes `\\`, `\`` and `\$` as the characters they escape.
            (Quoting::Backquoted, _) => {
                format!("'{}'", escape(value, &['\\', '`', '$']).replace('\'', r"'\''"))
            }
            (Quoting::Double, Dialect::Posix) => escape(value, &['\\', '"', '$', '`']),
            (Quoting::Double, Dialect::Fish) => escape(value, &['\\', '"', '$']),
            (Quoting::Single, Dialect::Posix) => value.replace('\'', r"'\''"),
            (Quoting::Single, Dialect::Fish) | (Quoting::AnsiC, _) => escape(value, &['\\', '\'']),
        },
    }
}

/// `value` with a backslash before each of `special`.
fn escape(value: &str, special: &[char]) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    for c in value.chars() {
        if special.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arguments(script: &str, dialect: Dialect) -> String {
        substitute(script, dialect, &["%u", "%t"], |i| Replacement::Argument(i + 1))
    }

    fn literals(script: &str) -> String {
        substitute(script, Dialect::Posix, &["%u"], |_| Replacement::Literal("it's $(x) `y` \\ \"z\""))
    }

    #[test]
    fn a_placeholder_becomes_a_quoted_reference_wherever_it_stands() {
        assert_eq!(arguments("xdg-open %u > /dev/null", Dialect::Posix), r#"xdg-open "${1}" > /dev/null"#);
        assert_eq!(arguments(r#"echo "read: %t" >> f"#, Dialect::Posix), r#"echo "read: ${2}" >> f"#);
        assert_eq!(arguments("echo '%t' >> f", Dialect::Posix), r#"echo ''"${2}"'' >> f"#);
        assert_eq!(arguments("echo 'a %u b'", Dialect::Posix), r#"echo 'a '"${1}"' b'"#);
        assert_eq!(arguments(r"echo $'x %u'", Dialect::Posix), r#"echo $'x '"${1}"$''"#);
        assert_eq!(arguments(r#"echo "$(basename %u)""#, Dialect::Posix), r#"echo "$(basename "${1}")""#);
        assert_eq!(arguments("echo `basename %u`", Dialect::Posix), r#"echo `basename "${1}"`"#);
        assert_eq!(arguments(r"echo \%u", Dialect::Posix), r"echo \%u", "an escaped mark is no placeholder");
        assert_eq!(
            arguments("echo %u # don't\necho '%t'", Dialect::Posix),
            "echo \"${1}\" # don't\necho ''\"${2}\"''",
            "a quote in a comment opens nothing"
        );
        assert_eq!(arguments("echo '%u' (%t)", Dialect::Fish), r#"echo ''"$argv[1]"'' ("$argv[2]")"#);
    }

    #[test]
    fn quotes_inside_substitutions_do_not_end_the_outer_ones() {
        assert_eq!(arguments(r#"echo "$(printf '%s' ")")" %u"#, Dialect::Posix), r#"echo "$(printf '%s' ")")" "${1}""#);
        assert_eq!(arguments("echo $( (cd /; ls) ) %u", Dialect::Posix), r#"echo $( (cd /; ls) ) "${1}""#);
    }

    #[test]
    fn a_literal_value_is_quoted_for_where_it_stands() {
        assert_eq!(literals("w3m %u"), r#"w3m 'it'\''s $(x) `y` \ "z"'"#);
        assert_eq!(literals(r#"w3m "%u""#), r#"w3m "it's \$(x) \`y\` \\ \"z\"""#);
        assert_eq!(literals("w3m '%u'"), r#"w3m 'it'\''s $(x) `y` \ "z"'"#);
    }
}
