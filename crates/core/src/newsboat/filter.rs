//! newsboat's filter language (query feeds, `ignore-article`, `define-filter`) read into a tree, and turned
//! into tidings's query language where it has an equivalent: fields `title`, `author`, `text`, `feed`,
//! `folder`, `url`, `tag`, `enclosure`, `age`, `unread`, `starred`; operators `=`, `!=`, `~` (contains, case- and
//! accent-insensitive), `!~`, `<`, `>`, `and`, `or`, `not`, parentheses.
//!
//! newsboat's grammar: `attribute OP value` with `=`/`==`, `!=`, `=~` (regex), `!~`, `<`, `>`, `<=`, `>=`,
//! `between`, `#` (one of the space-separated words), `!#`; values are `"strings"`, numbers or `a:b` ranges;
//! `and`/`or` join comparisons with no precedence between them (each groups to the right), parentheses group.
//! A regular expression becomes a contains test when it is plain words (`=~ "rust"`, `"rust|go"`,
//! `".*rust.*"`); anything else (anchors, classes, repetition) has no equivalent and is said so.
//!
//! A filter is bounded as tidings's queries are, since it becomes one: at most [`MAX_CONDITIONS`] comparisons
//! and parentheses [`MAX_DEPTH`] deep. More is an error at its column, never a stack overflow: a chain of `and`s
//! is read in a loop, and the tree it makes, which is as deep as the chain is long, is walked (converted,
//! dropped) only when it is within those bounds.

use crate::query::{MAX_CONDITIONS, MAX_DEPTH};
use std::fmt::Write as _;

/// A parsed newsboat filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Compare { attribute: String, op: Op, value: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Equals,
    NotEquals,
    Regex,
    NotRegex,
    Less,
    Greater,
    LessOrEqual,
    GreaterOrEqual,
    Between,
    Contains,
    NotContains,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Equals => "=",
            Op::NotEquals => "!=",
            Op::Regex => "=~",
            Op::NotRegex => "!~",
            Op::Less => "<",
            Op::Greater => ">",
            Op::LessOrEqual => "<=",
            Op::GreaterOrEqual => ">=",
            Op::Between => "between",
            Op::Contains => "#",
            Op::NotContains => "!#",
        }
    }
}

/// A filter newsboat itself would refuse, with the column (from 1) where it went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

/// Parses a newsboat filter expression.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    let mut p = Parser { text, at: 0, depth: 0, conditions: 0 };
    p.spaces();
    let expr = p.expression()?;
    p.spaces();
    if p.at < text.len() {
        return Err(p.error("unexpected text after the expression"));
    }
    Ok(expr)
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    /// How many parentheses are open.
    depth: usize,
    /// How many comparisons have been read.
    conditions: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn error(&self, message: &str) -> ParseError {
        ParseError { column: self.text[..self.at].chars().count() + 1, message: message.into() }
    }

    fn spaces(&mut self) {
        while self.rest().starts_with(' ') {
            self.at += 1;
        }
    }

    /// `primary (and|or) primary (and|or) …`, grouped to the right without precedence, as newsboat does.
    fn expression(&mut self) -> Result<Expr, ParseError> {
        // Each operand with the word after it, then the last one.
        let mut chain: Vec<(Expr, bool)> = Vec::new();
        let mut last = self.primary()?;
        loop {
            let before = self.at;
            self.spaces();
            let join = [("and", true), ("or", false)].into_iter().find(|(word, _)| {
                self.rest()
                    .strip_prefix(word)
                    .is_some_and(|after| after.starts_with(' ') || after.trim_start_matches(' ').starts_with('('))
            });
            let Some((word, and)) = join else {
                self.at = before;
                break;
            };
            self.at += word.len();
            self.spaces();
            chain.push((last, and));
            last = self.primary()?;
        }
        let mut expr = last;
        while let Some((left, and)) = chain.pop() {
            let (left, right) = (Box::new(left), Box::new(expr));
            expr = if and { Expr::And(left, right) } else { Expr::Or(left, right) };
        }
        Ok(expr)
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        if self.rest().starts_with('(') {
            if self.depth == MAX_DEPTH {
                return Err(self.error(&format!("parentheses nest deeper than {MAX_DEPTH}")));
            }
            self.depth += 1;
            self.at += 1;
            self.spaces();
            let inner = self.expression()?;
            self.spaces();
            if !self.rest().starts_with(')') {
                return Err(self.error("expected )"));
            }
            self.at += 1;
            self.depth -= 1;
            return Ok(inner);
        }
        if self.conditions == MAX_CONDITIONS {
            return Err(self.error(&format!("more than {MAX_CONDITIONS} comparisons")));
        }
        self.conditions += 1;
        let name_len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .unwrap_or(self.rest().len());
        if name_len == 0 {
            return Err(self.error("expected an attribute name"));
        }
        let attribute = self.rest()[..name_len].to_string();
        self.at += name_len;
        self.spaces();
        const OPS: [(&str, Op); 12] = [
            ("=~", Op::Regex),
            ("==", Op::Equals),
            ("=", Op::Equals),
            ("!~", Op::NotRegex),
            ("!=", Op::NotEquals),
            ("<=", Op::LessOrEqual),
            (">=", Op::GreaterOrEqual),
            ("<", Op::Less),
            (">", Op::Greater),
            ("between", Op::Between),
            ("#", Op::Contains),
            ("!#", Op::NotContains),
        ];
        let Some((text, op)) = OPS.iter().find(|(t, _)| self.rest().starts_with(t)) else {
            return Err(self.error("expected one of =~ == = !~ != <= >= < > between # !#"));
        };
        self.at += text.len();
        self.spaces();
        let value = self.value()?;
        Ok(Expr::Compare { attribute, op: *op, value })
    }

    fn value(&mut self) -> Result<String, ParseError> {
        if self.rest().starts_with('"') {
            let mut out = String::new();
            let mut chars = self.rest().char_indices().skip(1);
            while let Some((i, c)) = chars.next() {
                match c {
                    '"' => {
                        self.at += i + 1;
                        return Ok(out);
                    }
                    // newsboat keeps the escape as written (a regex's `\.` stays `\.`), except for `\"`.
                    '\\' => match chars.next() {
                        Some((_, '"')) => out.push('"'),
                        Some((_, other)) => {
                            out.push('\\');
                            out.push(other);
                        }
                        None => break,
                    },
                    c => out.push(c),
                }
            }
            return Err(self.error("a quoted value has no closing \""));
        }
        let number = |s: &str| {
            let digits = s.strip_prefix('-').unwrap_or(s);
            let n = digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len());
            (n > 0).then_some(s.len() - digits.len() + n)
        };
        let Some(first) = number(self.rest()) else {
            return Err(self.error("expected a value: a \"quoted string\", a number or a range a:b"));
        };
        let mut len = first;
        if self.rest()[len..].starts_with(':')
            && let Some(second) = number(&self.rest()[len + 1..])
        {
            len += 1 + second;
        }
        let value = self.rest()[..len].to_string();
        self.at += len;
        Ok(value)
    }
}

/// What the conversion knows of the subscriptions: each feed's address, its name in tidings, its folder path
/// and all its newsboat tags (the folder's first).
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub feeds: Vec<FeedFacts>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedFacts {
    pub url: String,
    pub name: String,
    pub folder: String,
    pub tags: Vec<String>,
}

/// Turns a newsboat filter into a tidings query, or says why it has none.
pub fn convert(text: &str, context: &Context) -> Result<String, String> {
    let expr = parse(text).map_err(|e| format!("newsboat's filter does not read: {e}"))?;
    let mut out = String::new();
    write_expr(&expr, context, &mut out, false)?;
    Ok(out)
}

fn write_expr(expr: &Expr, context: &Context, out: &mut String, nested: bool) -> Result<(), String> {
    match expr {
        Expr::And(a, b) | Expr::Or(a, b) => {
            let word = if matches!(expr, Expr::And(..)) { "and" } else { "or" };
            if nested {
                out.push('(');
            }
            write_expr(a, context, out, true)?;
            let _ = write!(out, " {word} ");
            write_expr(b, context, out, true)?;
            if nested {
                out.push(')');
            }
            Ok(())
        }
        Expr::Compare { attribute, op, value } => {
            let converted = comparison(attribute, *op, value, context)?;
            // A comparison that became several joined ones is grouped unless it stands alone.
            if nested && (converted.contains(" and ") || converted.contains(" or ")) {
                if converted.starts_with('(') && converted.ends_with(')') {
                    out.push_str(&converted);
                } else {
                    let _ = write!(out, "({converted})");
                }
            } else {
                out.push_str(&converted);
            }
            Ok(())
        }
    }
}

fn comparison(attribute: &str, op: Op, value: &str, context: &Context) -> Result<String, String> {
    let said = format!("{attribute} {} {}", op.text(), crate::query::quote(value));
    let no = |why: &str| Err(format!("`{said}`: {why}"));
    let text_field = match attribute {
        "title" => Some("title"),
        "author" => Some("author"),
        "content" => Some("text"),
        "link" => Some("url"),
        "feedtitle" => Some("feed"),
        "enclosure_type" => Some("enclosure"),
        _ => None,
    };
    if let Some(field) = text_field {
        return match op {
            Op::Equals | Op::NotEquals if field == "text" => {
                no("tidings compares the text by what it contains: use =~")
            }
            Op::Equals => Ok(format!("{field} = {}", crate::query::quote(value))),
            Op::NotEquals => Ok(format!("{field} != {}", crate::query::quote(value))),
            Op::Regex | Op::NotRegex => {
                let words = plain_words(value).map_err(|why| format!("`{said}`: {why}"))?;
                let (test, join) = if op == Op::Regex { ("~", " or ") } else { ("!~", " and ") };
                let parts: Vec<String> =
                    words.iter().map(|w| format!("{field} {test} {}", crate::query::quote(w))).collect();
                Ok(if parts.len() == 1 { parts[0].clone() } else { format!("({})", parts.join(join)) })
            }
            _ => no("tidings compares text with = != ~ !~ only"),
        };
    }
    match attribute {
        "unread" => {
            let yes = match value {
                "yes" => true,
                "no" => false,
                _ => return no("unread is \"yes\" or \"no\""),
            };
            match op {
                Op::Equals => Ok(if yes { "unread".into() } else { "not unread".into() }),
                Op::NotEquals => Ok(if yes { "not unread".into() } else { "unread".into() }),
                _ => no("unread is compared with = or !="),
            }
        }
        "flags" => {
            // tidings has one flag, the star; newsboat users flag with `s` for it.
            let only_s = |v: &str| v.chars().all(|c| c == 's') && !v.is_empty();
            match op {
                Op::Contains | Op::Regex if only_s(value) => Ok("starred".into()),
                Op::NotContains | Op::NotRegex if only_s(value) => Ok("not starred".into()),
                Op::Equals if value.is_empty() => Ok("not starred".into()),
                Op::NotEquals if value.is_empty() => Ok("starred".into()),
                _ => no("tidings has one flag, the star (newsboat's flag s); other flags have no equivalent"),
            }
        }
        "age" => age(op, value).ok_or_else(|| format!("`{said}`: age is compared with a number of days")),
        "enclosure_url" => match (op, value) {
            (Op::Equals, "") => Ok("not enclosure".into()),
            (Op::NotEquals, "") => Ok("enclosure".into()),
            _ => no("tidings knows whether an entry has media and its type, not its address"),
        },
        "rssurl" => {
            let names = |pick: &dyn Fn(&FeedFacts) -> bool| -> Vec<String> {
                context
                    .feeds
                    .iter()
                    .filter(|f| pick(f))
                    .map(|f| format!("feed = {}", crate::query::quote(&f.name)))
                    .collect()
            };
            let matched = match op {
                Op::Equals | Op::NotEquals => names(&|f: &FeedFacts| f.url == value),
                _ => return no("a feed's address is compared with = or != (tidings names feeds by their name)"),
            };
            if matched.is_empty() {
                return no("no subscription has that address");
            }
            let any = matched.join(" or ");
            Ok(if op == Op::Equals { any } else { format!("not ({any})") })
        }
        // A feed keeps every newsboat tag (see `feed_tags`): the query follows the tag itself, exactly, not the
        // feeds that have it today nor the folders inside a folder of that name.
        "tags" => match op {
            Op::Contains => Ok(format!("feedtag = {}", crate::query::quote(value))),
            Op::NotContains => Ok(format!("not feedtag = {}", crate::query::quote(value))),
            _ => no("tags are tested with # (has the tag) or !# (has not)"),
        },
        "date" | "pubDate" | "feeddate" => no("newsboat compares dates as text; write it with age (in days) instead"),
        "guid" | "articleindex" | "feedindex" | "unread_count" | "total_count" | "description" | "feedlink"
        | "latest_article_age" => no("tidings's queries have no such field"),
        _ => no("newsboat has no such attribute"),
    }
}

/// `age OP N` (days) in tidings's words.
fn age(op: Op, value: &str) -> Option<String> {
    if op == Op::Between {
        let (a, b) = value.split_once(':')?;
        let (a, b): (i64, i64) = (a.parse().ok()?, b.parse().ok()?);
        let (low, high) = (a.min(b), a.max(b));
        return Some(format!("age > {}d and age < {}d", low - 1, high + 1));
    }
    let n: i64 = value.parse().ok()?;
    Some(match op {
        Op::Less => format!("age < {n}d"),
        Op::Greater => format!("age > {n}d"),
        Op::LessOrEqual => format!("age < {}d", n + 1),
        Op::GreaterOrEqual => format!("age > {}d", n - 1),
        Op::Equals => format!("age > {}d and age < {}d", n - 1, n + 1),
        Op::NotEquals => format!("(age < {n}d or age > {n}d)"),
        _ => return None,
    })
}

/// The words a regular expression matches when it is only plain words and alternatives (`rust|go`,
/// `.*rust.*`, `C\+\+`); an error for anything a contains test cannot say.
fn plain_words(regex: &str) -> Result<Vec<String>, String> {
    // Killfiles' habits that mean the same as words: a group around the whole alternation (`(A|B)`), and a
    // letter in either case (`[Ss]ponsored`; tidings's contains ignores case anyway).
    let regex = regex.strip_prefix("(?i)").unwrap_or(regex);
    let regex = match regex.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        Some(inner) if !inner.contains(['(', ')']) => inner,
        _ => regex,
    };
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = regex.chars().peekable();
    let mut at_start = true;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e) if !e.is_ascii_alphanumeric() => word.push(e),
                _ => return Err("the regular expression uses a class (\\w, \\d…); it has no equivalent".into()),
            },
            '|' => {
                words.push(std::mem::take(&mut word));
                at_start = true;
                continue;
            }
            '.' if chars.peek() == Some(&'*') => {
                chars.next();
                // `.*` at either end of an alternative only says "anywhere", as contains does.
                let at_end = matches!(chars.peek(), None | Some('|'));
                if !(at_start && word.is_empty() || at_end) {
                    return Err("the regular expression matches a pattern, not words; it has no equivalent".into());
                }
            }
            '[' => {
                let class: String = chars.by_ref().take_while(|c| *c != ']').collect();
                let mut letters = class.chars();
                match (letters.next(), letters.next(), letters.next()) {
                    (Some(a), Some(b), None) if a != b && a.to_lowercase().eq(b.to_lowercase()) => {
                        word.extend(a.to_lowercase());
                    }
                    _ => {
                        return Err("the regular expression matches a pattern, not words; it has no equivalent".into());
                    }
                }
            }
            '^' | '$' => return Err("the regular expression is anchored (^ or $); contains has no equivalent".into()),
            '.' | ']' | '(' | ')' | '{' | '}' | '*' | '+' | '?' => {
                return Err("the regular expression matches a pattern, not words; it has no equivalent".into());
            }
            c => word.push(c),
        }
        at_start = false;
    }
    words.push(word);
    if words.iter().any(|w| w.is_empty()) {
        return Err("the regular expression has an empty alternative".into());
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> Context {
        let feed = |url: &str, name: &str, tags: &[&str]| FeedFacts {
            url: url.into(),
            name: name.into(),
            folder: tags.first().map(|t| crate::newsboat::urls::folder_path(t).join("/")).unwrap_or_default(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
        };
        Context {
            feeds: vec![
                feed("http://a/rss", "Alpha", &["Tech", "rust"]),
                feed("http://b/rss", "Beta", &["Tech"]),
                feed("http://c/rss", "Gamma", &["News", "rust"]),
            ],
        }
    }

    fn conv(text: &str) -> Result<String, String> {
        convert(text, &context())
    }

    #[test]
    fn newsboat_groups_to_the_right_without_precedence() {
        let e = parse("unread = \"yes\" and title =~ \"x\" or age < 3").unwrap();
        assert!(matches!(e, Expr::And(_, ref right) if matches!(**right, Expr::Or(..))), "{e:?}");
        assert_eq!(
            conv("unread = \"yes\" and title =~ \"x\" or age < 3").unwrap(),
            "unread and (title ~ \"x\" or age < 3d)"
        );
        assert_eq!(conv("(unread = \"yes\" and flags # \"s\") or age>=2").unwrap(), "(unread and starred) or age > 1d");
    }

    #[test]
    fn fields_and_operators_map_onto_tidings_query_language() {
        assert_eq!(conv("title =~ \"rust\"").unwrap(), "title ~ \"rust\"");
        assert_eq!(conv("content =~ \".*async.*\"").unwrap(), "text ~ \"async\"");
        assert_eq!(conv("author != \"Bot\"").unwrap(), "author != \"Bot\"");
        assert_eq!(conv("title !~ \"sponsored|ad\"").unwrap(), "(title !~ \"sponsored\" and title !~ \"ad\")");
        assert_eq!(conv("title =~ \"C\\+\\+\"").unwrap(), "title ~ \"C++\"");
        assert_eq!(conv("unread == \"no\"").unwrap(), "not unread");
        assert_eq!(conv("age between 1:7").unwrap(), "age > 0d and age < 8d");
        assert_eq!(conv("enclosure_type =~ \"audio\"").unwrap(), "enclosure ~ \"audio\"");
        assert_eq!(conv("feedtitle = \"Beta\"").unwrap(), "feed = \"Beta\"");
        assert_eq!(conv("rssurl = \"http://c/rss\"").unwrap(), "feed = \"Gamma\"");
        assert_eq!(conv("link =~ \"github\"").unwrap(), "url ~ \"github\"");
    }

    #[test]
    fn tags_follow_the_tag_exactly_and_common_killfile_regexes_become_words() {
        assert_eq!(conv("tags # \"news\"").unwrap(), "feedtag = \"news\"");
        assert_eq!(conv("tags !# \"Long Reads\"").unwrap(), "not feedtag = \"Long Reads\"");
        assert_eq!(conv("tags # \"nobody yet\"").unwrap(), "feedtag = \"nobody yet\"", "a tag no feed has yet");
        assert_eq!(conv("enclosure_url != \"\"").unwrap(), "enclosure");
        assert_eq!(conv("enclosure_url = \"\"").unwrap(), "not enclosure");
        assert_eq!(conv("title =~ \"(Sponsored|Ad)\"").unwrap(), "(title ~ \"Sponsored\" or title ~ \"Ad\")");
        assert_eq!(conv("title =~ \"[Ss]ponsored\"").unwrap(), "title ~ \"sponsored\"");
        assert_eq!(conv("title =~ \"(?i)promo\"").unwrap(), "title ~ \"promo\"");
        for converted in ["feedtag = \"news\"", "enclosure", "not enclosure"] {
            crate::query::parse(converted).unwrap();
        }
        assert!(conv("title =~ \"[abc]x\"").is_err() && conv("title =~ \"(a|b)(c)\"").is_err());
    }

    #[test]
    fn what_has_no_equivalent_says_why() {
        for (filter, why) in [
            ("title =~ \"^Re:\"", "anchored"),
            ("title =~ \"[0-9]+\"", "pattern"),
            ("flags # \"x\"", "one flag"),
            ("date > \"2020\"", "age"),
            ("articleindex < 5", "no such field"),
            ("bogus = 1", "no such attribute"),
            ("title = ", "does not read"),
        ] {
            let err = conv(filter).unwrap_err();
            assert!(err.contains(why), "{filter}: {err}");
        }
        assert_eq!(parse("title = \"x\" )").unwrap_err().column, 13);
    }

    /// The attack's filters, at its sizes, on a thread with the stack a test thread has (2 MB): before the
    /// bounds, both overflowed the stack (SIGABRT).
    #[test]
    fn deep_parentheses_and_long_chains_are_errors_at_their_column_not_a_stack_overflow() {
        let run = || {
            let deep = format!("{}unread = \"yes\"{}", "(".repeat(100_000), ")".repeat(100_000));
            let e = parse(&deep).unwrap_err();
            assert_eq!((e.column, e.message.as_str()), (MAX_DEPTH + 1, "parentheses nest deeper than 64"));
            assert!(conv(&deep).unwrap_err().contains("column 65: parentheses nest deeper than 64"));
            let chain = vec!["title =~ \"x\""; 100_001].join(" and ");
            let e = parse(&chain).unwrap_err();
            assert_eq!(
                (e.column, e.message.as_str()),
                (256 * "title =~ \"x\" and ".len() + 1, "more than 256 comparisons")
            );
            assert!(conv(&chain).unwrap_err().contains("more than 256 comparisons"));
            // At the bounds, they read, convert and drop.
            let deepest = format!("{}unread = \"yes\"{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
            assert_eq!(conv(&deepest).unwrap(), "unread");
            let longest = vec!["age < 3 or unread = \"no\""; MAX_CONDITIONS / 2].join(" and ");
            let converted = conv(&longest).unwrap();
            assert_eq!(converted.matches("age < 3d").count(), MAX_CONDITIONS / 2, "{converted}");
        };
        std::thread::Builder::new().stack_size(2 << 20).spawn(run).unwrap().join().unwrap();
    }
}
