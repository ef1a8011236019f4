//! The query language: one small language for saved views, kill rules, `tidings list --query` and the search
//! prompt. Text in, a typed tree out ([`parse`]), with errors that point at the column; the store compiles the
//! tree to one SQL statement (FTS5 for `text`), and [`Query::matches`] reads it against an entry in memory (a
//! kill rule at ingest, before the entry is stored and indexed). Both readings agree: the tests of the store
//! check one against the other.
//!
//! ```text
//! title ~ "sponsored"                      contains, ignoring case and diacritics
//! author = "Jane Doe" and feed ~ "hn"      feed: its name or its address
//! age < 7d and unread                      7d, 12h, 30m, 2w; a bare number is days
//! published > 2026-01-01                   whole days (UTC); 2026-01-01T08:00 for an instant
//! text ~ "open source" or tag = rust       text: title and body, words as the search finds them
//! not (folder = Tech or starred)           folder: that folder and the folders inside it
//! rust async                               bare words search like the search prompt (title, author, feed, text)
//! ```
//!
//! Fields: `title`, `author`, `text`, `feed`, `folder`, `url` (the entry's link), `tag` (its categories),
//! `feedtag` (its feed's tags), `enclosure` (its media's type; alone: has media), `age`, `published`, `unread`, `starred`. Operators: `=`,
//! `!=`, `~` (contains), `!~`, `<`, `>`, `<=`, `>=`; `and` (or nothing: words side by side), `or`, `not` (or a
//! `-` before a word), parentheses; `not` binds tightest, then `and`, then `or`. Values are words or quoted
//! strings (`"…"` with `\"` and `\\`, or `'…'` as written).

use crate::search::{Phrase, Words, contains_folded, equals_folded, fold};
use crate::text::closest;
use std::cell::OnceCell;
use std::fmt;

/// The longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 4000;
/// The most conditions one query may have.
pub const MAX_CONDITIONS: usize = 256;
/// How deep parentheses and `not`s may nest.
pub const MAX_DEPTH: usize = 64;

/// What is wrong with a query, and where: the column (from 1, in characters) of the place to look at.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at column {column}")]
pub struct QueryError {
    pub column: usize,
    pub message: String,
}

impl QueryError {
    fn at(column: usize, message: impl Into<String>) -> QueryError {
        QueryError { column, message: message.into() }
    }
}

/// A parsed query.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Query {
    And(Vec<Query>),
    Or(Vec<Query>),
    Not(Box<Query>),
    Cond(Condition),
}

/// One comparison: a field, an operator and a value, checked against each other when parsed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Condition {
    pub field: Field,
    pub op: Op,
    pub value: Value,
}

/// What a condition looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Title,
    Author,
    /// The title and the body, word by word, through the search index.
    Text,
    /// The feed's name or its address.
    Feed,
    /// The feed's folder (a path, "Tech/Rust"); `=` also takes the folders inside it.
    Folder,
    /// The entry's link.
    Url,
    /// One of the entry's categories.
    Tag,
    /// One of its feed's tags (newsboat's tags, OPML categories, the feed info's `tags`).
    FeedTag,
    /// The type of one of the entry's media (`audio/mpeg`); alone, whether it has any.
    Enclosure,
    /// How long ago it was published (its date: published, else updated, else first seen).
    Age,
    /// Its date.
    Published,
    Unread,
    Starred,
    /// A bare word or phrase: searched like the search prompt searches (title, author, feed name, text).
    Any,
}

impl Field {
    pub const ALL: [Field; 13] = [
        Field::Title,
        Field::Author,
        Field::Text,
        Field::Feed,
        Field::Folder,
        Field::Url,
        Field::Tag,
        Field::FeedTag,
        Field::Enclosure,
        Field::Age,
        Field::Published,
        Field::Unread,
        Field::Starred,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Author => "author",
            Field::Text => "text",
            Field::Feed => "feed",
            Field::Folder => "folder",
            Field::Url => "url",
            Field::Tag => "tag",
            Field::FeedTag => "feedtag",
            Field::Enclosure => "enclosure",
            Field::Age => "age",
            Field::Published => "published",
            Field::Unread => "unread",
            Field::Starred => "starred",
            Field::Any => "",
        }
    }

    /// The field a name stands for: its own name, or the name newsboat's filter language gives it.
    fn from_name(name: &str) -> Option<Field> {
        let lower = name.to_ascii_lowercase();
        if let Some(field) = Field::ALL.into_iter().find(|f| f.name() == lower) {
            return Some(field);
        }
        Some(match lower.as_str() {
            "tags" | "category" | "categories" => Field::Tag,
            "link" => Field::Url,
            "content" | "description" | "body" => Field::Text,
            "feedtitle" | "feedurl" | "rssurl" | "feedlink" => Field::Feed,
            "date" | "pubdate" => Field::Published,
            "enclosure_type" | "enclosures" => Field::Enclosure,
            _ => return None,
        })
    }

    fn kind(self) -> Kind {
        match self {
            Field::Age => Kind::Duration,
            Field::Published => Kind::Date,
            Field::Unread | Field::Starred => Kind::Flag,
            _ => Kind::Text,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Duration,
    Date,
    Flag,
}

/// How a condition compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Eq,
    Ne,
    /// Contains (text fields: a substring; `text` and bare words: words, as the search finds them).
    Contains,
    NotContains,
    Lt,
    Gt,
    Le,
    Ge,
}

impl Op {
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Contains => "~",
            Op::NotContains => "!~",
            Op::Lt => "<",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Ge => ">=",
        }
    }

    /// The operator that holds when this one does not.
    fn negated(self) -> Op {
        match self {
            Op::Eq => Op::Ne,
            Op::Ne => Op::Eq,
            Op::Contains => Op::NotContains,
            Op::NotContains => Op::Contains,
            Op::Lt => Op::Ge,
            Op::Gt => Op::Le,
            Op::Le => Op::Gt,
            Op::Ge => Op::Lt,
        }
    }
}

/// A condition's value, of the field's type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Text as written; [`Value::folded`] is what is compared.
    Text {
        text: String,
        /// Ends in `*` (`text` and bare words: a prefix of a word).
        prefix: bool,
    },
    /// A duration in seconds (`age`).
    Secs(i64),
    /// An instant (seconds since the epoch, UTC), or a whole day when `day` is set (its first second).
    Time {
        at: i64,
        day: bool,
    },
    Flag(bool),
}

impl Value {
    /// The text, folded as comparisons fold it (empty for other values).
    pub fn folded(&self) -> String {
        match self {
            Value::Text { text, .. } => fold(text),
            _ => String::new(),
        }
    }
}

/// For a query that matched nothing: when it is one bare word — searched as a word — that is close to a field
/// or a flag (`stared`, `unraed`, `enclosures`), what was likely meant: `starred`. `None` otherwise.
pub fn word_hint(text: &str) -> Option<String> {
    let word = text.trim();
    if word.is_empty() || !word.chars().all(|c| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let mut names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
    names.push("read");
    let lower = word.to_ascii_lowercase();
    if names.contains(&lower.as_str()) {
        return None;
    }
    closest(&lower, &names).map(|n| format!("`{word}` was searched as a word: did you mean `{n}`?"))
}

/// Reads a query. See the module's documentation for the language.
pub fn parse(text: &str) -> Result<Query, QueryError> {
    if text.chars().count() > MAX_QUERY_CHARS {
        return Err(QueryError::at(
            MAX_QUERY_CHARS + 1,
            format!("the query is too long (at most {MAX_QUERY_CHARS} characters)"),
        ));
    }
    let tokens = lex(text)?;
    if tokens.is_empty() {
        return Err(QueryError::at(1, "the query is empty: write a condition such as `title ~ \"rust\"` or `unread`"));
    }
    let mut parser = Parser { tokens: &tokens, at: 0, end: text.chars().count() + 1, conditions: 0 };
    let query = parser.or(0)?;
    if let Some(token) = parser.peek() {
        let message = match &token.kind {
            Tok::Close => "a `)` without its `(`".to_string(),
            _ => format!("expected `and`, `or` or the end of the query, found {}", token.describe()),
        };
        return Err(QueryError::at(token.column, message));
    }
    Ok(query)
}

/// Whether a text reads as the query language rather than as plain search words: it has a comparison
/// (`=`, `~`, `<`…) or a parenthesis. The search prompt uses it to decide whose error to show.
pub fn looks_like_query(text: &str) -> bool {
    lex(text).is_ok_and(|tokens| tokens.iter().any(|t| matches!(t.kind, Tok::Op(_) | Tok::Open | Tok::Close)))
        || text.contains(['=', '~', '<', '>'])
}

/// A value written so that [`parse`] reads it back as the same text (see [`crate::search::quote`]).
pub use crate::search::quote;

impl Query {
    /// Both queries.
    pub fn and(self, other: Query) -> Query {
        match (self, other) {
            (Query::And(mut a), Query::And(b)) => {
                a.extend(b);
                Query::And(a)
            }
            (Query::And(mut a), b) => {
                a.push(b);
                Query::And(a)
            }
            (a, b) => Query::And(vec![a, b]),
        }
    }

    /// Any of these queries; `None` for none.
    pub fn any(queries: Vec<Query>) -> Option<Query> {
        match queries.len() {
            0 => None,
            1 => queries.into_iter().next(),
            _ => Some(Query::Or(queries)),
        }
    }

    /// Whether any condition looks at a field other than bare words (a query, not plain search words).
    pub fn has_fields(&self) -> bool {
        self.any_condition(&|c| c.field != Field::Any)
    }

    /// Whether any condition needs the entry's text (title and body, or bare words).
    pub fn reads_text(&self) -> bool {
        self.any_condition(&|c| matches!(c.field, Field::Text | Field::Any))
    }

    /// Whether any condition depends on the time (`age`).
    pub fn reads_time(&self) -> bool {
        self.any_condition(&|c| c.field == Field::Age)
    }

    fn any_condition(&self, test: &dyn Fn(&Condition) -> bool) -> bool {
        match self {
            Query::And(qs) | Query::Or(qs) => qs.iter().any(|q| q.any_condition(test)),
            Query::Not(q) => q.any_condition(test),
            Query::Cond(c) => test(c),
        }
    }

    /// Whether `entry` matches, at `now` (seconds since the epoch). To judge many entries by one query, make
    /// a [`Matcher`] once: this reads the query's values again on each call.
    pub fn matches(&self, entry: &Entry<'_>, now: i64) -> bool {
        Matcher::new(self).matches(entry, now)
    }
}

/// A query ready to judge many entries (kill rules at ingest): each value folded once and each phrase read once,
/// when it is made, rather than for every entry. It answers as [`Query::matches`] does (which is made of it).
#[derive(Clone, Debug)]
pub struct Matcher(Node);

#[derive(Clone, Debug)]
enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
    Cond(Prepared),
    /// A condition that never holds (a `text ~` with nothing to look for).
    Never,
}

/// A condition with its value made ready: the positive operator (`!=` and `!~` are the negation of `=` and
/// `~`), the folded text, the phrase.
#[derive(Clone, Debug)]
struct Prepared {
    field: Field,
    op: Op,
    value: Value,
    folded: String,
    /// `folded` + "/": the start of the folders inside a folder.
    folder_prefix: String,
    phrase: Option<Phrase>,
}

impl Matcher {
    pub fn new(query: &Query) -> Matcher {
        Matcher(Node::of(query))
    }

    /// Any of these queries (kill rules: an entry any of them matches is ignored).
    pub fn any(queries: &[Query]) -> Matcher {
        Matcher(Node::Or(queries.iter().map(Node::of).collect()))
    }

    /// Whether `entry` matches, at `now` (seconds since the epoch).
    pub fn matches(&self, entry: &Entry<'_>, now: i64) -> bool {
        self.0.matches(entry, now)
    }
}

impl Node {
    fn of(query: &Query) -> Node {
        match query {
            Query::And(qs) => Node::And(qs.iter().map(Node::of).collect()),
            Query::Or(qs) => Node::Or(qs.iter().map(Node::of).collect()),
            Query::Not(q) => Node::Not(Box::new(Node::of(q))),
            Query::Cond(c) => {
                let (op, negated) = match c.op {
                    Op::Ne | Op::NotContains => (c.op.negated(), true),
                    op => (op, false),
                };
                let phrase = match (&c.field, &c.value) {
                    (Field::Text | Field::Any, Value::Text { text, prefix }) => match Phrase::new(text, *prefix) {
                        Some(phrase) => Some(phrase),
                        None => return if negated { Node::Not(Box::new(Node::Never)) } else { Node::Never },
                    },
                    _ => None,
                };
                let folded = c.value.folded();
                let folder_prefix = format!("{folded}/");
                let node =
                    Node::Cond(Prepared { field: c.field, op, value: c.value.clone(), folded, folder_prefix, phrase });
                if negated { Node::Not(Box::new(node)) } else { node }
            }
        }
    }

    fn matches(&self, entry: &Entry<'_>, now: i64) -> bool {
        match self {
            Node::And(ns) => ns.iter().all(|n| n.matches(entry, now)),
            Node::Or(ns) => ns.iter().any(|n| n.matches(entry, now)),
            Node::Not(n) => !n.matches(entry, now),
            Node::Cond(c) => c.matches(entry, now),
            Node::Never => false,
        }
    }
}

impl Prepared {
    fn matches(&self, entry: &Entry<'_>, now: i64) -> bool {
        let text = |value: Option<&str>, folded: &OnceCell<String>| {
            let value = value.unwrap_or("");
            // ASCII is compared in place; anything else is folded once per entry, whatever the number of rules.
            if value.is_ascii() {
                return if self.op == Op::Eq {
                    equals_folded(value, &self.folded)
                } else {
                    contains_folded(value, &self.folded)
                };
            }
            let value = folded.get_or_init(|| fold(value));
            if self.op == Op::Eq { *value == self.folded } else { value.contains(self.folded.as_str()) }
        };
        let found = |words: &Words| self.phrase.as_ref().is_some_and(|p| p.found_in(words));
        match (self.field, &self.value) {
            (Field::Title, _) => text(entry.title, &entry.folded.title),
            (Field::Author, _) => text(entry.author, &entry.folded.author),
            (Field::Url, _) => text(entry.link, &entry.folded.link),
            (Field::Feed, _) => {
                text(Some(entry.feed_title), &entry.folded.feed_title)
                    || text(Some(entry.feed_url), &entry.folded.feed_url)
            }
            (Field::Folder, _) => {
                let path = entry.folder.unwrap_or("");
                let folded = if path.is_ascii() {
                    std::borrow::Cow::Owned(path.to_ascii_lowercase())
                } else {
                    std::borrow::Cow::Borrowed(entry.folded.folder.get_or_init(|| fold(path)).as_str())
                };
                if self.op == Op::Eq {
                    *folded == self.folded || (!self.folded.is_empty() && folded.starts_with(&self.folder_prefix))
                } else {
                    folded.contains(&self.folded)
                }
            }
            (Field::Tag, _) => entry.tags.iter().any(|t| text(Some(t), &OnceCell::new())),
            (Field::FeedTag, _) => entry.feed_tags.iter().any(|t| text(Some(t), &OnceCell::new())),
            (Field::Enclosure, Value::Flag(has)) => entry.enclosure_types.is_empty() != *has,
            (Field::Enclosure, _) => entry.enclosure_types.iter().any(|t| text(Some(t), &OnceCell::new())),
            (Field::Age, Value::Secs(secs)) => compare(now - entry.date, self.op, *secs),
            (Field::Published, Value::Time { at, day }) => compare_date(entry.date, self.op, *at, *day),
            (Field::Unread, Value::Flag(want)) => entry.unread == *want,
            (Field::Starred, Value::Flag(want)) => entry.starred == *want,
            (Field::Text, _) => found(entry.title_words()) || found(entry.body_words()),
            (Field::Any, _) => {
                found(entry.title_words())
                    || found(entry.body_words())
                    || found(entry.author_words())
                    || found(entry.feed_words())
            }
            _ => false,
        }
    }
}

/// `value op wanted` for numbers.
fn compare(value: i64, op: Op, wanted: i64) -> bool {
    match op {
        Op::Eq => value == wanted,
        Op::Ne => value != wanted,
        Op::Lt => value < wanted,
        Op::Gt => value > wanted,
        Op::Le => value <= wanted,
        Op::Ge => value >= wanted,
        Op::Contains | Op::NotContains => false,
    }
}

/// The range of instants `op` a date selects: `[from, to)`, either end open. A day is its 86,400 seconds:
/// `> 2026-01-01` starts the day after, `< 2026-01-01` ends the day before, `= 2026-01-01` is the day itself.
pub fn date_range(op: Op, at: i64, day: bool) -> (Option<i64>, Option<i64>) {
    let end = if day { at + 86_400 } else { at + 1 };
    match op {
        Op::Eq => (Some(at), Some(end)),
        Op::Lt => (None, Some(at)),
        Op::Le => (None, Some(end)),
        Op::Gt => (Some(end), None),
        Op::Ge => (Some(at), None),
        // Not a range: the caller negates `=`.
        Op::Ne | Op::Contains | Op::NotContains => (None, None),
    }
}

fn compare_date(date: i64, op: Op, at: i64, day: bool) -> bool {
    let (from, to) = date_range(op, at, day);
    from.is_none_or(|f| date >= f) && to.is_none_or(|t| date < t)
}

/// An entry as [`Query::matches`] reads it. The words of its title and body, and its fields folded, are read
/// once, when a condition first needs them, whatever the number of rules.
pub struct Entry<'a> {
    pub title: Option<&'a str>,
    pub author: Option<&'a str>,
    pub link: Option<&'a str>,
    pub feed_title: &'a str,
    pub feed_url: &'a str,
    /// The feed's folder as a path ("Tech/Rust").
    pub folder: Option<&'a str>,
    pub tags: &'a [String],
    /// Its feed's tags.
    pub feed_tags: &'a [String],
    pub enclosure_types: Vec<&'a str>,
    /// Its date (published, else updated, else first seen), seconds since the epoch.
    pub date: i64,
    pub unread: bool,
    pub starred: bool,
    /// The body's HTML, as the index would read it (content, else summary).
    pub body_html: Option<&'a str>,
    title_words: OnceCell<Words>,
    body_words: OnceCell<Words>,
    author_words: OnceCell<Words>,
    feed_words: OnceCell<Words>,
    folded: Folded,
}

/// The fields of an entry folded (see [`fold`]), each when a condition first needs it: only text that is not
/// ASCII is (ASCII is compared in place).
#[derive(Default)]
struct Folded {
    title: OnceCell<String>,
    author: OnceCell<String>,
    link: OnceCell<String>,
    feed_title: OnceCell<String>,
    feed_url: OnceCell<String>,
    folder: OnceCell<String>,
}

impl<'a> Entry<'a> {
    /// An entry of `feed_title` (at `feed_url`, in `folder`), unread and not starred, with nothing else known.
    pub fn new(feed_title: &'a str, feed_url: &'a str, folder: Option<&'a str>, date: i64) -> Entry<'a> {
        Entry {
            title: None,
            author: None,
            link: None,
            feed_title,
            feed_url,
            folder,
            tags: &[],
            feed_tags: &[],
            enclosure_types: Vec::new(),
            date,
            unread: true,
            starred: false,
            body_html: None,
            title_words: OnceCell::new(),
            body_words: OnceCell::new(),
            author_words: OnceCell::new(),
            feed_words: OnceCell::new(),
            folded: Folded::default(),
        }
    }

    fn title_words(&self) -> &Words {
        self.title_words.get_or_init(|| Words::of(self.title.unwrap_or("")))
    }

    fn body_words(&self) -> &Words {
        self.body_words.get_or_init(|| Words::of_string(crate::search::body_text(self.body_html.unwrap_or(""))))
    }

    fn author_words(&self) -> &Words {
        self.author_words.get_or_init(|| Words::of(self.author.unwrap_or("")))
    }

    fn feed_words(&self) -> &Words {
        self.feed_words.get_or_init(|| Words::of(self.feed_title))
    }
}

impl fmt::Display for Query {
    /// The query written out again: [`parse`] reads it back as the same tree.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, qs: &[Query], word: &str| -> fmt::Result {
            for (i, q) in qs.iter().enumerate() {
                if i > 0 {
                    write!(f, " {word} ")?;
                }
                match q {
                    Query::Or(_) | Query::And(_) => write!(f, "({q})")?,
                    _ => write!(f, "{q}")?,
                }
            }
            Ok(())
        };
        match self {
            Query::And(qs) => join(f, qs, "and"),
            Query::Or(qs) => join(f, qs, "or"),
            Query::Not(q) => match **q {
                Query::Cond(_) | Query::Not(_) => write!(f, "not {q}"),
                _ => write!(f, "not ({q})"),
            },
            Query::Cond(c) => write!(f, "{c}"),
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = match &self.value {
            Value::Text { text, prefix } => format!("{}{}", quote(text), if *prefix { "*" } else { "" }),
            Value::Secs(secs) => format!("{secs}s"),
            Value::Time { at, day } => {
                let time = chrono::DateTime::from_timestamp(*at, 0).unwrap_or_default();
                if *day { time.format("%Y-%m-%d").to_string() } else { time.format("%Y-%m-%dT%H:%M:%S").to_string() }
            }
            Value::Flag(b) => if *b { "yes" } else { "no" }.to_string(),
        };
        if let Value::Flag(b) = self.value {
            let on = b != (self.op == Op::Ne);
            return write!(f, "{}{}", if on { "" } else { "not " }, self.field.name());
        }
        match (self.field, self.op) {
            (Field::Any, Op::Contains) => f.write_str(&value),
            (Field::Any, _) => write!(f, "not {value}"),
            (field, op) => write!(f, "{} {} {value}", field.name(), op.symbol()),
        }
    }
}

// ----- the lexer -----

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    /// A quoted string; `prefix` when a `*` follows the closing quote.
    Quoted {
        text: String,
        prefix: bool,
    },
    Op(Op),
    Open,
    Close,
    And,
    Or,
    Not,
    /// `-` right before a word or string: leaves it out, as in the search prompt.
    Minus,
}

#[derive(Clone, Debug)]
struct Token {
    kind: Tok,
    /// From 1, in characters.
    column: usize,
}

impl Token {
    fn describe(&self) -> String {
        match &self.kind {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Quoted { text, .. } => quote(text),
            Tok::Op(op) => format!("`{}`", op.symbol()),
            Tok::Open => "`(`".into(),
            Tok::Close => "`)`".into(),
            Tok::And => "`and`".into(),
            Tok::Or => "`or`".into(),
            Tok::Not => "`not`".into(),
            Tok::Minus => "`-`".into(),
        }
    }
}

fn lex(text: &str) -> Result<Vec<Token>, QueryError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        let next = chars.get(i + 1).copied();
        let after_op = out.last().is_some_and(|t: &Token| matches!(t.kind, Tok::Op(_)));
        let mut push = |kind, len: usize, i: &mut usize| {
            out.push(Token { kind, column });
            *i += len;
        };
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => push(Tok::Open, 1, &mut i),
            ')' => push(Tok::Close, 1, &mut i),
            '=' if next == Some('~') => {
                return Err(QueryError::at(
                    column,
                    "`=~` is newsboat's regular-expression match; tidings writes `~` (contains, ignoring case)",
                ));
            }
            '=' if next == Some('=') => push(Tok::Op(Op::Eq), 2, &mut i),
            '=' => push(Tok::Op(Op::Eq), 1, &mut i),
            '!' if next == Some('=') => push(Tok::Op(Op::Ne), 2, &mut i),
            '!' if next == Some('~') => push(Tok::Op(Op::NotContains), 2, &mut i),
            '!' => push(Tok::Not, 1, &mut i),
            '~' => push(Tok::Op(Op::Contains), 1, &mut i),
            '#' => push(Tok::Op(Op::Contains), 1, &mut i),
            '<' if next == Some('=') => push(Tok::Op(Op::Le), 2, &mut i),
            '<' => push(Tok::Op(Op::Lt), 1, &mut i),
            '>' if next == Some('=') => push(Tok::Op(Op::Ge), 2, &mut i),
            '>' => push(Tok::Op(Op::Gt), 1, &mut i),
            '&' if next == Some('&') => push(Tok::And, 2, &mut i),
            '|' if next == Some('|') => push(Tok::Or, 2, &mut i),
            '-' if next.is_some_and(|n| !n.is_whitespace() && n != '-') && !after_op => push(Tok::Minus, 1, &mut i),
            '"' | '\'' => {
                let quote = c;
                let mut text = String::new();
                let mut j = i + 1;
                loop {
                    match chars.get(j) {
                        None => {
                            return Err(QueryError::at(column, format!("the quote {quote} here is never closed")));
                        }
                        Some('\\') if quote == '"' && matches!(chars.get(j + 1), Some('"' | '\\')) => {
                            text.push(chars[j + 1]);
                            j += 2;
                        }
                        Some(&q) if q == quote => break,
                        Some(&other) => {
                            text.push(other);
                            j += 1;
                        }
                    }
                }
                j += 1;
                let mut prefix = false;
                while chars.get(j) == Some(&'*') {
                    prefix = true;
                    j += 1;
                }
                out.push(Token { kind: Tok::Quoted { text, prefix }, column });
                i = j;
            }
            _ => {
                let mut j = i;
                while j < chars.len() && word_char(&chars, j) {
                    j += 1;
                }
                let word: String = chars[i..j].iter().collect();
                let kind = match word.to_ascii_lowercase().as_str() {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    _ => Tok::Word(word),
                };
                out.push(Token { kind, column });
                i = j;
            }
        }
    }
    Ok(out)
}

/// Whether the character at `j` continues a bare word: not a space, a quote, a parenthesis or an operator.
fn word_char(chars: &[char], j: usize) -> bool {
    let (c, next) = (chars[j], chars.get(j + 1).copied());
    let operator = matches!(c, '(' | ')' | '"' | '\'' | '=' | '~' | '<' | '>' | '#')
        || (c == '!' && matches!(next, Some('=' | '~')))
        || (c == '&' && next == Some('&'))
        || (c == '|' && next == Some('|'));
    !c.is_whitespace() && !operator
}

// ----- the parser -----

struct Parser<'t> {
    tokens: &'t [Token],
    at: usize,
    /// The column just past the end of the text.
    end: usize,
    conditions: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn column(&self) -> usize {
        self.peek().map_or(self.end, |t| t.column)
    }

    fn or(&mut self, depth: usize) -> Result<Query, QueryError> {
        let mut parts = vec![self.and(depth)?];
        while self.peek().is_some_and(|t| t.kind == Tok::Or) {
            let or = self.next().map_or(self.end, |t| t.column);
            if self.peek().is_none_or(|t| matches!(t.kind, Tok::Close | Tok::Or | Tok::And)) {
                return Err(QueryError::at(self.column(), format!("expected a condition after `or` (column {or})")));
            }
            parts.push(self.and(depth)?);
        }
        Ok(if parts.len() == 1 { parts.remove(0) } else { Query::Or(parts) })
    }

    fn and(&mut self, depth: usize) -> Result<Query, QueryError> {
        let mut parts = vec![self.unary(depth)?];
        loop {
            match self.peek().map(|t| &t.kind) {
                Some(Tok::And) => {
                    let and = self.next().map_or(self.end, |t| t.column);
                    if self.peek().is_none_or(|t| matches!(t.kind, Tok::Close | Tok::Or | Tok::And)) {
                        return Err(QueryError::at(
                            self.column(),
                            format!("expected a condition after `and` (column {and})"),
                        ));
                    }
                    parts.push(self.unary(depth)?);
                }
                // Side by side: both.
                Some(Tok::Word(_) | Tok::Quoted { .. } | Tok::Open | Tok::Not | Tok::Minus) => {
                    parts.push(self.unary(depth)?);
                }
                _ => break,
            }
        }
        Ok(if parts.len() == 1 { parts.remove(0) } else { Query::And(parts) })
    }

    fn unary(&mut self, depth: usize) -> Result<Query, QueryError> {
        if depth > MAX_DEPTH {
            return Err(QueryError::at(self.column(), format!("parentheses and `not` nest deeper than {MAX_DEPTH}")));
        }
        let Some(token) = self.peek().cloned() else {
            return Err(QueryError::at(self.end, "expected a condition at the end of the query"));
        };
        match token.kind {
            Tok::Not => {
                self.next();
                if self.peek().is_none() {
                    return Err(QueryError::at(
                        self.end,
                        format!("expected a condition after `not` (column {})", token.column),
                    ));
                }
                Ok(Query::Not(Box::new(self.unary(depth + 1)?)))
            }
            Tok::Minus => {
                self.next();
                Ok(Query::Not(Box::new(self.primary(depth + 1)?)))
            }
            _ => self.primary(depth),
        }
    }

    fn primary(&mut self, depth: usize) -> Result<Query, QueryError> {
        let Some(token) = self.next() else {
            return Err(QueryError::at(self.end, "expected a condition at the end of the query"));
        };
        self.conditions += 1;
        if self.conditions > MAX_CONDITIONS {
            return Err(QueryError::at(token.column, format!("too many conditions (at most {MAX_CONDITIONS})")));
        }
        match token.kind {
            Tok::Open => {
                if self.peek().is_some_and(|t| t.kind == Tok::Close) {
                    return Err(QueryError::at(token.column, "empty parentheses"));
                }
                let inner = self.or(depth + 1)?;
                match self.next() {
                    Some(Token { kind: Tok::Close, .. }) => Ok(inner),
                    Some(other) => Err(QueryError::at(
                        other.column,
                        format!("expected `)` to close the `(` of column {}, found {}", token.column, other.describe()),
                    )),
                    None => Err(QueryError::at(
                        self.end,
                        format!("expected `)` to close the `(` of column {}", token.column),
                    )),
                }
            }
            Tok::Quoted { text, prefix } => Ok(bare(text, prefix)),
            Tok::Word(word) => self.condition(word, token.column),
            Tok::Op(op) => Err(QueryError::at(
                token.column,
                format!("expected a field before `{}` (title, author, text, feed, folder, url, tag, …)", op.symbol()),
            )),
            Tok::Close => Err(QueryError::at(token.column, "a `)` without its `(`")),
            Tok::And | Tok::Or => {
                Err(QueryError::at(token.column, format!("expected a condition before {}", token.describe())))
            }
            Tok::Not | Tok::Minus => Err(QueryError::at(token.column, "expected a condition")),
        }
    }

    /// A word: a field and its comparison, a flag (`unread`), or a bare word to search for.
    fn condition(&mut self, word: String, column: usize) -> Result<Query, QueryError> {
        let op = match self.peek() {
            Some(Token { kind: Tok::Op(op), column }) => Some((*op, *column)),
            _ => None,
        };
        let field = Field::from_name(&word);
        let Some((op, op_column)) = op else {
            return Ok(match field {
                Some(field @ (Field::Unread | Field::Starred)) => {
                    Query::Cond(Condition { field, op: Op::Eq, value: Value::Flag(true) })
                }
                Some(Field::Enclosure) => {
                    Query::Cond(Condition { field: Field::Enclosure, op: Op::Eq, value: Value::Flag(true) })
                }
                _ if word.eq_ignore_ascii_case("read") => {
                    Query::Cond(Condition { field: Field::Unread, op: Op::Eq, value: Value::Flag(false) })
                }
                _ => {
                    let prefix = word.ends_with('*');
                    bare(word.trim_end_matches('*').to_string(), prefix)
                }
            });
        };
        self.next();
        let field = match field {
            Some(field) => field,
            None if word.eq_ignore_ascii_case("read") => {
                let value = self.flag(op, op_column)?;
                return Ok(Query::Cond(Condition { field: Field::Unread, op, value: Value::Flag(!value) }));
            }
            None => {
                let names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
                let hint = closest(&word, &names).map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
                return Err(QueryError::at(
                    column,
                    format!("`{word}` is not a field{hint}; the fields are {}", names.join(", ")),
                ));
            }
        };
        let allowed: &[Op] = match field.kind() {
            Kind::Text => &[Op::Eq, Op::Ne, Op::Contains, Op::NotContains],
            Kind::Duration | Kind::Date => &[Op::Lt, Op::Gt, Op::Le, Op::Ge, Op::Eq, Op::Ne],
            Kind::Flag => &[Op::Eq, Op::Ne],
        };
        if !allowed.contains(&op) {
            let list: Vec<String> = allowed.iter().map(|o| format!("`{}`", o.symbol())).collect();
            let mut message = format!("`{}` does not take `{}`: use {}", field.name(), op.symbol(), list.join(", "));
            if field == Field::Age {
                message.push_str(" (age < 7d: newer than a week)");
            }
            return Err(QueryError::at(op_column, message));
        }
        let value = match field.kind() {
            Kind::Flag => Value::Flag(self.flag(op, op_column)?),
            Kind::Text => {
                let (text, prefix, at) = self.value(op, op_column)?;
                if field == Field::Text && Phrase::new(&text, prefix).is_none() {
                    return Err(QueryError::at(at, "`text ~` needs a word (letters or digits) to look for"));
                }
                if field == Field::Enclosure && text.is_empty() {
                    return Err(QueryError::at(at, "expected a media type, such as \"audio\""));
                }
                Value::Text { text, prefix }
            }
            Kind::Duration => {
                let (text, _, at) = self.value(op, op_column)?;
                Value::Secs(duration(&text).ok_or_else(|| {
                    QueryError::at(at, format!("`{text}` is not an age: write 7d, 12h, 30m, 2w or a number of days"))
                })?)
            }
            Kind::Date => {
                let (text, _, at) = self.value(op, op_column)?;
                let (at_secs, day) = date(&text).ok_or_else(|| {
                    QueryError::at(at, format!("`{text}` is not a date: write 2026-01-31 or 2026-01-31T08:00"))
                })?;
                Value::Time { at: at_secs, day }
            }
        };
        if field == Field::Text && !matches!(op, Op::Contains | Op::NotContains) {
            return Err(QueryError::at(op_column, "`text` is searched by words: use `~` or `!~`"));
        }
        Ok(Query::Cond(Condition { field, op, value }))
    }

    /// The value after `op`: its text, whether it ends in `*`, and its column.
    fn value(&mut self, op: Op, op_column: usize) -> Result<(String, bool, usize), QueryError> {
        let missing = |at| QueryError::at(at, format!("expected a value after `{}`", op.symbol()));
        let value_column = op_column + op.symbol().chars().count();
        match self.peek().cloned() {
            Some(Token { kind: Tok::Quoted { text, prefix }, column }) => {
                self.next();
                Ok((text, prefix, column))
            }
            Some(Token { kind: Tok::Word(word), column }) => {
                self.next();
                let prefix = word.ends_with('*') && word.len() > 1;
                let text = if prefix { word.trim_end_matches('*').to_string() } else { word };
                Ok((text, prefix, column))
            }
            // `and`, `or`, `not` as values are words when quoted; bare, they are almost always a forgotten value.
            Some(token) => Err(QueryError::at(
                token.column,
                format!(
                    "expected a value after `{}`, found {} (quote it to look for that word)",
                    op.symbol(),
                    token.describe()
                ),
            )),
            None => Err(missing(value_column.min(self.end))),
        }
    }

    /// The value of a flag after `op`: yes/no, true/false, 1/0.
    fn flag(&mut self, op: Op, op_column: usize) -> Result<bool, QueryError> {
        let (text, _, at) = self.value(op, op_column)?;
        let value = match text.to_ascii_lowercase().as_str() {
            "yes" | "true" | "1" | "y" => true,
            "no" | "false" | "0" | "n" => false,
            _ => return Err(QueryError::at(at, format!("`{text}` is not yes or no"))),
        };
        // The value as written: `!=` stays the operator (it is what negates), so `starred != yes` is unstarred.
        Ok(value)
    }
}

/// A bare word or phrase: searched like the search prompt searches.
fn bare(text: String, prefix: bool) -> Query {
    Query::Cond(Condition { field: Field::Any, op: Op::Contains, value: Value::Text { text, prefix } })
}

/// `7d`, `12h`, `30m`, `2w`, `90s`, `3mo`, `1y`; a bare number is days (as in newsboat).
fn duration(text: &str) -> Option<i64> {
    let text = text.trim().to_ascii_lowercase();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: i64 = number.parse().ok()?;
    let secs = match unit.trim() {
        "" | "d" | "day" | "days" => 86_400,
        "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hour" | "hours" => 3_600,
        "w" | "week" | "weeks" => 7 * 86_400,
        "mo" | "month" | "months" => 30 * 86_400,
        "y" | "year" | "years" => 365 * 86_400,
        _ => return None,
    };
    number.checked_mul(secs)
}

/// `2026-01-31` (a whole day, UTC) or `2026-01-31T08:00[:00]` / `2026-01-31 08:00` (an instant, UTC).
fn date(text: &str) -> Option<(i64, bool)> {
    use chrono::NaiveDate;
    let text = text.trim();
    if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Some((day.and_hms_opt(0, 0, 0)?.and_utc().timestamp(), true));
    }
    for format in ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"] {
        if let Ok(time) = chrono::NaiveDateTime::parse_from_str(text.trim_end_matches('Z'), format) {
            return Some((time.and_utc().timestamp(), false));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(field: Field, op: Op, value: Value) -> Query {
        Query::Cond(Condition { field, op, value })
    }

    fn text(t: &str) -> Value {
        Value::Text { text: t.into(), prefix: false }
    }

    fn err(q: &str) -> QueryError {
        parse(q).unwrap_err()
    }

    #[test]
    fn newsboat_style_rules_parse_into_typed_trees() {
        assert_eq!(parse("title ~ \"sponsored\"").unwrap(), cond(Field::Title, Op::Contains, text("sponsored")));
        assert_eq!(
            parse("author = \"X\" and feed ~ \"hn\"").unwrap(),
            Query::And(vec![cond(Field::Author, Op::Eq, text("X")), cond(Field::Feed, Op::Contains, text("hn"))])
        );
        assert_eq!(
            parse("age < 7d and unread").unwrap(),
            Query::And(vec![
                cond(Field::Age, Op::Lt, Value::Secs(7 * 86_400)),
                cond(Field::Unread, Op::Eq, Value::Flag(true))
            ])
        );
        assert_eq!(
            parse("published > 2026-01-01").unwrap(),
            cond(Field::Published, Op::Gt, Value::Time { at: 1_767_225_600, day: true })
        );
        assert_eq!(parse("unread = \"yes\"").unwrap(), cond(Field::Unread, Op::Eq, Value::Flag(true)));
        assert_eq!(parse("tags # \"rust\"").unwrap(), cond(Field::Tag, Op::Contains, text("rust")));
        assert_eq!(parse("feedtitle = 'Hacker News'").unwrap(), cond(Field::Feed, Op::Eq, text("Hacker News")));
    }

    #[test]
    fn not_binds_tighter_than_and_which_binds_tighter_than_or() {
        let q = parse("unread or starred and not title ~ x").unwrap();
        assert_eq!(
            q,
            Query::Or(vec![
                cond(Field::Unread, Op::Eq, Value::Flag(true)),
                Query::And(vec![
                    cond(Field::Starred, Op::Eq, Value::Flag(true)),
                    Query::Not(Box::new(cond(Field::Title, Op::Contains, text("x"))))
                ])
            ])
        );
        let q = parse("(unread or starred) and -rust").unwrap();
        assert!(
            matches!(&q, Query::And(parts) if matches!(parts[0], Query::Or(_)) && matches!(parts[1], Query::Not(_)))
        );
    }

    #[test]
    fn bare_words_side_by_side_are_all_searched_for() {
        assert_eq!(
            parse("rust async*").unwrap(),
            Query::And(vec![
                cond(Field::Any, Op::Contains, text("rust")),
                cond(Field::Any, Op::Contains, Value::Text { text: "async".into(), prefix: true })
            ])
        );
        assert!(!parse("rust \"open source\"").unwrap().has_fields());
        assert!(parse("rust unread").unwrap().has_fields());
    }

    #[test]
    fn errors_point_at_the_column() {
        let e = err("title ~ \"a\" and author ~");
        assert_eq!(e.to_string(), "expected a value after `~` at column 25");
        assert_eq!(err("titel ~ rust").column, 1);
        assert!(err("titel ~ rust").message.contains("did you mean `title`"), "{}", err("titel ~ rust"));
        assert_eq!(err("age ~ 7d").column, 5);
        assert!(err("age ~ 7d").message.contains("`age` does not take `~`"));
        assert_eq!(err("age < soon").column, 7);
        assert_eq!(err("published > 2026-13-01").column, 13);
        assert_eq!(err("(unread or starred").column, 19);
        assert!(err("(unread or starred").message.contains("`(` of column 1"));
        assert_eq!(err("unread)").column, 7);
        assert_eq!(err("title =~ \"x\"").column, 7);
        assert!(err("title =~ \"x\"").message.contains("newsboat"));
        assert_eq!(err("title ~ \"never closed").column, 9);
        assert_eq!(err("unread and").column, 11);
        assert_eq!(err("= x").column, 1);
        assert_eq!(err("").column, 1);
        assert_eq!(err("unread = maybe").column, 10);
    }

    /// The attack's sizes (100,000 parentheses, 100,000 `and`s) and the deepest a query can be within its length,
    /// on a thread with the stack a test thread has (2 MB): each an error at its column. The deepest query that
    /// reads is written out, judged and dropped on that stack too.
    #[test]
    fn deep_and_long_queries_are_errors_at_their_column_not_a_stack_overflow() {
        let run = || {
            let deep = format!("{}unread{}", "(".repeat(100_000), ")".repeat(100_000));
            assert_eq!(err(&deep).column, MAX_QUERY_CHARS + 1);
            assert_eq!(err(&vec!["unread"; 100_001].join(" and ")).column, MAX_QUERY_CHARS + 1);
            let nested = format!("{}unread{}", "(".repeat(1_990), ")".repeat(1_990));
            assert_eq!(err(&nested).to_string(), "parentheses and `not` nest deeper than 64 at column 66");
            assert_eq!(err(&"not ".repeat(999)).to_string(), "parentheses and `not` nest deeper than 64 at column 261");
            assert_eq!(
                err(&vec!["unread"; 257].join(" and ")).to_string(),
                "too many conditions (at most 256) at column 2817"
            );
            let deepest = format!("{}unread{}", "(not ".repeat(32), ")".repeat(32));
            let q = parse(&deepest).unwrap();
            assert_eq!(parse(&q.to_string()).unwrap(), q);
            assert!(q.matches(&entry("t", "b"), 0), "an even number of `not`s");
        };
        std::thread::Builder::new().stack_size(2 << 20).spawn(run).unwrap().join().unwrap();
    }

    #[test]
    fn quoting_round_trips() {
        for value in ["plain", "with \"quotes\"", "back\\slash", "it's", ""] {
            let q = format!("title = {}", quote(value));
            assert_eq!(parse(&q).unwrap(), cond(Field::Title, Op::Eq, text(value)), "{q}");
        }
    }

    #[test]
    fn a_query_written_out_reads_back_the_same() {
        for q in [
            "title ~ \"sponsored\" or (author = X and not feed ~ hn)",
            "age <= 12h and published >= 2025-06-01T08:30 and -rust",
            "not (unread or starred) enclosure and tag != news",
            "\"open source\"* text !~ java",
        ] {
            let parsed = parse(q).unwrap();
            let written = parsed.to_string();
            assert_eq!(parse(&written).unwrap(), parsed, "{q} → {written}");
        }
    }

    fn entry<'a>(title: &'a str, body: &'a str) -> Entry<'a> {
        Entry {
            title: Some(title),
            author: Some("Zoë Smith"),
            link: Some("https://example.com/post/1"),
            body_html: Some(body),
            ..Entry::new("Hacker News", "https://hnrss.org/frontpage", Some("Tech/News"), 1_000_000)
        }
    }

    #[test]
    fn entries_match_in_memory() {
        let e = entry("Sponsored: the BEST café", "<p>Open source <b>software</b> in Rust</p>");
        let now = 1_000_000 + 3 * 86_400;
        let yes = |q: &str| assert!(parse(q).unwrap().matches(&e, now), "{q} should match");
        let no = |q: &str| assert!(!parse(q).unwrap().matches(&e, now), "{q} should not match");
        yes("title ~ sponsor");
        yes("title ~ \"CAFE\"");
        no("title = sponsored");
        yes("author = \"zoe smith\"");
        yes("feed ~ hn and feed ~ \"hacker\"");
        yes("folder = tech and folder = \"Tech/News\" and folder ~ news");
        no("folder = te");
        yes("age < 7d and age > 2d and unread and not starred");
        no("age < 2d");
        yes("text ~ \"open source\" and text ~ rus* and text !~ java");
        no("text ~ \"source open\"");
        yes("url ~ example.com");
        yes("rust smith");
        no("enclosure");
        yes("published = 1970-01-12");
        no("published > 1970-01-12");
        // `!=` on a flag negates once: the entry is unread and not starred.
        yes("starred != yes and starred = no and unread != no and read != yes and read = no");
        no("starred != no");
        no("unread != yes");
        no("read != no");
        assert_eq!(parse("starred != yes").unwrap().to_string(), "not starred");
    }

    #[test]
    fn ages_and_dates_read_their_units() {
        assert_eq!(duration("7"), Some(7 * 86_400));
        assert_eq!(duration("12h"), Some(12 * 3600));
        assert_eq!(duration("2w"), Some(14 * 86_400));
        assert_eq!(duration("30m"), Some(1800));
        assert_eq!(duration("soon"), None);
        assert_eq!(date("2026-01-01T08:00"), Some((1_767_254_400, false)));
    }

    #[test]
    fn a_lone_word_near_a_field_or_flag_is_said_when_nothing_matched() {
        assert_eq!(word_hint("stared").as_deref(), Some("`stared` was searched as a word: did you mean `starred`?"));
        assert_eq!(word_hint(" Unraed ").as_deref(), Some("`Unraed` was searched as a word: did you mean `unread`?"));
        for fine in ["starred", "read", "rust", "title ~ x", "stared and unread", "", "2024"] {
            assert_eq!(word_hint(fine), None, "{fine}");
        }
    }
}
