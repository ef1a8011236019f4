//! A newsboat home, read and turned into tidings's terms: the `urls` file ([`urls`]: feeds, tags → folders,
//! `~Name`, `!` hidden, `query:` feeds), the filter language of query feeds and `ignore-article` rules
//! ([`filter`]: newsboat's expressions → tidings's query language), the `config` file ([`config`]: browser,
//! keys, colours, reload time, rules, macros), and the cache's items ([`items`]: which key a later refresh gives
//! each item, so nothing comes back twice), and podboat's download queue ([`queue`]).
//!
//! Pure: every function takes the files' text (or the cache's rows, read by the caller) and returns values.
//! The command (`tidings import newsboat`) reads the files, opens the cache and writes through the store.

pub mod config;
pub mod filter;
pub mod items;
pub mod queue;
pub mod urls;

/// Splits a line of a newsboat file into tokens as newsboat does (`utils::tokenize_quoted`): tokens are
/// separated by blanks; a token in double quotes may hold blanks and `\"`, `\\`, `\n`, `\t` escapes; a `#` that
/// starts a token starts a comment.
pub fn tokenize(line: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| matches!(c, ' ' | '\t' | '\r' | '\n')) {
            chars.next();
        }
        match chars.peek() {
            None | Some('#') => break,
            Some('"') => {
                chars.next();
                let mut token = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n') => token.push('\n'),
                            Some('r') => token.push('\r'),
                            Some('t') => token.push('\t'),
                            // newsboat keeps an escaped backtick escaped (for its own backtick evaluation).
                            Some('`') => token.push_str("\\`"),
                            Some(other) => token.push(other),
                            None => break,
                        },
                        c => token.push(c),
                    }
                }
                tokens.push(token);
            }
            Some(_) => {
                let mut token = String::new();
                while let Some(&c) = chars.peek() {
                    if matches!(c, ' ' | '\t' | '\r' | '\n') {
                        break;
                    }
                    token.push(c);
                    chars.next();
                }
                tokens.push(token);
            }
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_like_newsboat_with_quotes_escapes_and_comments() {
        assert_eq!(tokenize(r#"http://a/rss "Tech" "~My name" "!""#), ["http://a/rss", "Tech", "~My name", "!"]);
        assert_eq!(tokenize(r#"  x   "a \"b\" c"  # a comment"#), ["x", "a \"b\" c"]);
        assert_eq!(tokenize("# only a comment"), Vec::<String>::new());
        assert_eq!(tokenize(r#""query:Unread:unread = \"yes\"" tag"#), ["query:Unread:unread = \"yes\"", "tag"]);
        assert_eq!(tokenize(r#"a#b "c"#), ["a#b", "c"], "a # inside a token is not a comment; an open quote ends");
    }
}
