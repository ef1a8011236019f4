//! Search, the pure half: what the full-text index reads for an entry, what a person's query becomes for it,
//! and where the words of a query are in an article (to highlight them). The store runs the index (SQLite FTS5,
//! `unicode61 remove_diacritics 2`); everything here is strings in, values out.
//!
//! **CJK text.** unicode61 splits words at spaces and punctuation, so a run of Chinese or Japanese (which has no
//! spaces) would be one token and 東京 could not be found inside 東京都庁. Every run of CJK characters is
//! therefore indexed as overlapping bigrams, plus its last character alone (東京都庁 → `東京 京都 都庁 庁`), and a
//! query's CJK run becomes the phrase of its bigrams (東京都 → `"東京 京都"`); a single character is a prefix
//! (`"京"*` finds 京都 and the 京 that ends 東京). Korean words carry their particles (서울에서), so Hangul is
//! treated the same way and 서울 is found inside them. The choice was measured against the trigram tokenizer and
//! plain unicode61 on the Chinese, Japanese and Korean feeds of the corpus: see docs/benchmarks.md.
//!
//! **Folding.** FTS5 folds case and Latin diacritics (`cafe` finds `café`) on both sides. Before it, this module
//! folds what unicode61 leaves alone and readers type interchangeably: full-width and half-width forms
//! (ＴＯＫＹＯ, ｶﾀｶﾅ) to their ordinary forms, and Russian ё to е.
//!
//! **Queries.** Words are ANDed; `"a phrase"`; `word*` for a prefix; `-word` or `NOT word` leaves entries out;
//! `a OR b`. Every word reaches FTS5 as a quoted string, so no input can make a query FTS5 would reject: what
//! is not syntax is a literal word, an unclosed quote runs to the end, and words without a letter or digit are
//! dropped. A query with nothing left to look for is a [`QueryError`] a person can act on.

use std::ops::Range;
use unicode_normalization::UnicodeNormalization;

/// The most plain-text bytes of one entry's body that go into the index: enough for any article, and a cap on
/// what a hostile feed can make the index hold.
pub const MAX_INDEXED_BODY_BYTES: usize = 256 * 1024;
/// The most words (and phrases) one query may have.
pub const MAX_QUERY_TERMS: usize = 32;
/// The longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;

/// Why a query cannot be run, in words for the person who typed it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("nothing to search for: type a word (letters or digits), a \"phrase\" or a prefix*")]
    Empty,
    #[error("every word is left out (-word, NOT word): add a word to look for")]
    OnlyExcluded,
    #[error("the search is too long: at most {MAX_QUERY_TERMS} words and {MAX_QUERY_CHARS} characters")]
    TooLong,
}

/// A query ready for the index: the FTS5 `MATCH` expression, and the terms to highlight in what it finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    expression: String,
    highlights: Vec<Highlight>,
}

/// One word or phrase of a query, as highlighting looks for it: folded units (words, or single CJK characters)
/// that must follow each other, the last one possibly a prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Highlight {
    units: Vec<String>,
    prefix: bool,
}

impl SearchQuery {
    /// Reads what a person typed. See the module's documentation for the syntax.
    pub fn parse(input: &str) -> Result<SearchQuery, QueryError> {
        if input.chars().count() > MAX_QUERY_CHARS {
            return Err(QueryError::TooLong);
        }
        let lexemes = lex(input);
        if lexemes.len() > MAX_QUERY_TERMS {
            return Err(QueryError::TooLong);
        }
        let (groups, excluded) = arrange(&lexemes, |l| term_expression(&l.text, l.prefix));
        // Highlighted: every term wanted, in the order typed.
        let mut highlights = Vec::new();
        let groups: Vec<Vec<String>> = groups
            .into_iter()
            .map(|group| {
                group
                    .into_iter()
                    .map(|(expression, highlight)| {
                        highlights.push(highlight);
                        expression
                    })
                    .collect()
            })
            .collect();
        let excluded: Vec<String> = excluded.into_iter().map(|(e, _)| e).collect();
        if groups.is_empty() {
            return Err(if excluded.is_empty() { QueryError::Empty } else { QueryError::OnlyExcluded });
        }
        let positive = groups
            .iter()
            .map(|g| if g.len() == 1 { g[0].clone() } else { format!("({})", g.join(" OR ")) })
            .collect::<Vec<_>>()
            .join(" AND ");
        let expression = if excluded.is_empty() {
            positive
        } else {
            format!("({positive}){}", excluded.iter().map(|e| format!(" NOT {e}")).collect::<String>())
        };
        Ok(SearchQuery { expression, highlights })
    }

    /// The same search written in the query language (`"rust" or "go"` …), so that it can be saved as a view:
    /// its terms are the query language's bare words, which search exactly as these do.
    pub fn as_query(input: &str) -> Result<String, QueryError> {
        SearchQuery::parse(input)?;
        let (groups, excluded) = arrange(&lex(input), |l| {
            (!units(&l.text).is_empty()).then(|| format!("{}{}", quote(&l.text), if l.prefix { "*" } else { "" }))
        });
        let excluded = excluded.into_iter().map(|term| format!("not {term}"));
        let mut parts: Vec<String> =
            groups.iter().map(|g| if g.len() == 1 { g[0].clone() } else { format!("({})", g.join(" or ")) }).collect();
        parts.extend(excluded);
        Ok(parts.join(" and "))
    }

    /// The FTS5 `MATCH` expression.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// Where the query's words and phrases are in `text` (an article's plain text, a title, one rendered
    /// line): byte ranges, in order, not overlapping. A phrase is found when its words follow each other in
    /// `text`, so call this on whole paragraphs rather than on wrapped pieces of them where you can.
    pub fn highlight_ranges(&self, text: &str) -> Vec<Range<usize>> {
        let units = units(text);
        let mut ranges: Vec<Range<usize>> = Vec::new();
        for start in 0..units.len() {
            let end = self.highlights.iter().filter_map(|h| h.matches_at(&units, start)).max();
            if let Some(end) = end {
                let range = units[start].range.start..end;
                match ranges.last_mut() {
                    Some(last) if last.end >= range.start => last.end = last.end.max(range.end),
                    _ => ranges.push(range),
                }
            }
        }
        ranges
    }
}

impl Highlight {
    /// The byte where a match starting at unit `start` ends, if there is one.
    fn matches_at(&self, units: &[Unit], start: usize) -> Option<usize> {
        let found = units.get(start..start + self.units.len())?;
        for (i, (unit, want)) in found.iter().zip(&self.units).enumerate() {
            let last = i + 1 == self.units.len();
            let ok = if last && self.prefix { unit.folded.starts_with(want.as_str()) } else { unit.folded == *want };
            // Characters of one CJK word are written together: nothing may come between them.
            let joined = i == 0 || !unit.cjk || !found[i - 1].cjk || found[i - 1].range.end == unit.range.start;
            if !ok || !joined {
                return None;
            }
        }
        found.last().map(|u| u.range.end)
    }
}

/// A word or phrase as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lexeme {
    text: String,
    /// Written in quotes: a phrase, never an operator.
    quoted: bool,
    /// Ends in `*`.
    prefix: bool,
    /// Starts with `-`.
    negated: bool,
}

impl Lexeme {
    /// A word that could be an operator (`OR`, `AND`, `NOT`).
    fn is_bare_word(&self) -> bool {
        !self.quoted && !self.prefix && !self.negated
    }
}

/// Splits a query into words and quoted phrases. Never fails: an unclosed quote runs to the end.
fn lex(input: &str) -> Vec<Lexeme> {
    let mut out = Vec::new();
    let mut chars = input.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        let mut negated = false;
        if first == '-' {
            chars.next();
            match chars.peek() {
                Some(c) if !c.is_whitespace() => negated = true,
                _ => continue,
            }
        }
        let quoted = chars.next_if_eq(&'"').is_some();
        let mut text = String::new();
        if quoted {
            text.extend(chars.by_ref().take_while(|c| *c != '"'));
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '"') {
                text.push(c);
            }
        }
        let mut prefix = false;
        if quoted {
            while chars.next_if_eq(&'*').is_some() {
                prefix = true;
            }
        } else {
            let stars = text.len() - text.trim_end_matches('*').len();
            text.truncate(text.len() - stars);
            prefix = stars > 0;
        }
        out.push(Lexeme { text, quoted, prefix, negated });
    }
    out
}

/// A term's FTS5 expression (a quoted string, maybe with `*`) and its highlight; `None` when it has nothing
/// the index could hold (no letter or digit).
/// A search's terms as the words between them arrange them: groups of alternatives (joined by `OR`), every
/// group wanted (`AND`, or a space), and the terms left out (`NOT`, or `-`). `term` makes each term; `None` (a
/// word with no letters or digits) counts for nothing. `OR` and `AND` at the start, or with no term after them,
/// are words like any other.
fn arrange<T>(lexemes: &[Lexeme], mut term: impl FnMut(&Lexeme) -> Option<T>) -> (Vec<Vec<T>>, Vec<T>) {
    let mut groups: Vec<Vec<T>> = Vec::new();
    let mut excluded: Vec<T> = Vec::new();
    let (mut join_next, mut negate_next) = (false, false);
    for (i, lexeme) in lexemes.iter().enumerate() {
        if lexeme.is_bare_word() {
            let terms_follow = lexemes[i + 1..].iter().any(|l| !l.negated);
            match lexeme.text.as_str() {
                "OR" if !groups.is_empty() && !negate_next && terms_follow => {
                    join_next = true;
                    continue;
                }
                "AND" if !groups.is_empty() && terms_follow => continue,
                "NOT" if terms_follow => {
                    negate_next = true;
                    continue;
                }
                _ => {}
            }
        }
        let negated = lexeme.negated || std::mem::take(&mut negate_next);
        let join = std::mem::take(&mut join_next);
        let Some(term) = term(lexeme) else { continue };
        if negated {
            excluded.push(term);
            continue;
        }
        match groups.last_mut() {
            Some(group) if join => group.push(term),
            _ => groups.push(vec![term]),
        }
    }
    (groups, excluded)
}

fn term_expression(text: &str, prefix: bool) -> Option<(String, Highlight)> {
    let units = units(text);
    if units.is_empty() {
        return None;
    }
    let form = forms(text, false);
    // A lone CJK character at the end is only ever the start of an indexed bigram, or the last character of a
    // run: a prefix finds both.
    let mut last = form.split_whitespace().last().unwrap_or("").chars();
    let lone_cjk = last.next().is_some_and(is_cjk) && last.next().is_none();
    let prefix = prefix || lone_cjk;
    let expression = format!("\"{}\"{}", form.replace('"', "\"\""), if prefix { "*" } else { "" });
    let highlight = Highlight { units: units.into_iter().map(|u| u.folded).collect(), prefix };
    Some((expression, highlight))
}

/// What the index reads for a piece of text: the text with full-width forms and ё folded, and every run of CJK
/// characters written as its overlapping bigrams and its last character.
pub fn indexed_form(text: &str) -> String {
    forms(text, true)
}

/// The plain text of an entry's HTML content, for the index: scripts, styles and other non-text elements
/// removed, tags stripped, entities decoded, whitespace folded; at most [`MAX_INDEXED_BODY_BYTES`].
pub fn body_text(html: &str) -> String {
    let capped = crate::sanitize::truncate_bytes(html, MAX_INDEXED_BODY_BYTES * 4);
    let visible = strip_elements(capped, &["script", "style", "noscript", "template", "svg", "math", "head"]);
    // The one place search turns HTML into text; `text::html_body_to_plain` is the project's reading of a body.
    let plain = crate::text::html_body_to_plain(&visible);
    crate::sanitize::truncate_bytes(&plain, MAX_INDEXED_BODY_BYTES).to_string()
}

/// `html` without the elements named (their content included), matched case-insensitively; an element that is
/// never closed runs to the end.
fn strip_elements(html: &str, names: &[&str]) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    while let Some(found) = lower[at..].find('<').map(|i| at + i) {
        let after = &lower[found + 1..];
        let name = names.iter().find(|n| {
            after.starts_with(**n) && after[n.len()..].starts_with(|c: char| c == '>' || c == '/' || c.is_whitespace())
        });
        let Some(name) = name else {
            out.push_str(&html[at..found + 1]);
            at = found + 1;
            continue;
        };
        out.push_str(&html[at..found]);
        out.push(' ');
        let close = format!("</{name}");
        at = match lower[found..].find(&close) {
            Some(i) => {
                let close_at = found + i;
                lower[close_at..].find('>').map_or(html.len(), |j| close_at + j + 1)
            }
            None => html.len(),
        };
    }
    out.push_str(&html[at..]);
    out
}

/// The text as the index sees it; `final_unigram` adds the last character of the final CJK run alone (the
/// index does; a query leaves it out so that its last bigram may be followed by more in the text).
fn forms(text: &str, final_unigram: bool) -> String {
    let text = fold_widths(text);
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut run: Vec<char> = Vec::new();
    for c in text.chars() {
        if is_cjk(c) {
            if run.is_empty() {
                separate(&mut out);
            }
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            write_run(&mut out, &run, true);
            run.clear();
            separate(&mut out);
        }
        if !(c.is_whitespace() && out.ends_with(char::is_whitespace)) {
            out.push(c);
        }
    }
    write_run(&mut out, &run, final_unigram);
    out.trim().to_string()
}

/// Ends the token being written, unless a separator already did.
fn separate(out: &mut String) {
    if !out.is_empty() && !out.ends_with(char::is_whitespace) {
        out.push(' ');
    }
}

/// Writes a CJK run as its bigrams (`東京 京都`), then its last character when `unigram` (or when the run is
/// one character).
fn write_run(out: &mut String, run: &[char], unigram: bool) {
    if let [only] = run {
        out.push(*only);
        return;
    }
    for (i, pair) in run.windows(2).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push(pair[0]);
        out.push(pair[1]);
    }
    if let (true, Some(last)) = (unigram, run.last()) {
        out.push(' ');
        out.push(*last);
    }
}

/// Folds what unicode61 keeps apart but readers do not: full-width and half-width forms (by NFKC; a
/// half-width voiced mark joins the kana before it), Russian ё, and Greek accents (tonos, dialytika: `ελλαδα`
/// finds `ελλάδα`, as Latin letters are found without theirs).
fn fold_widths(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| matches!(c, '\u{FF00}'..='\u{FFEF}' | 'ё' | 'Ё' | '\u{0386}'..='\u{03CE}' | '\u{1F00}'..='\u{1FFF}'))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut voiced = false;
    for c in text.chars() {
        fold_width(c, |c| out.push(c));
        voiced |= matches!(c, '\u{FF9E}' | '\u{FF9F}');
    }
    if voiced {
        out = out.nfc().collect();
    }
    std::borrow::Cow::Owned(out)
}

/// A text folded for comparing as a person reads it: lower case, Latin letters without their diacritics,
/// full-width and half-width forms as their ordinary forms, ё as е — the folding the index applies, on a whole
/// string (the query language's `=` and `~` on titles, authors, feeds… compare folded strings).
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    if text.is_ascii() {
        out.extend(text.chars().map(|c| c.to_ascii_lowercase()));
        return out;
    }
    for c in text.chars() {
        fold_width(c, |c| fold_case_and_marks(c, &mut out));
    }
    out
}

/// Whether `text`, folded (see [`fold`]), contains `folded_needle` (already folded). Text and needle in ASCII
/// are compared in place, without folding a copy: the query language calls this on every title of a list.
pub fn contains_folded(text: &str, folded_needle: &str) -> bool {
    if folded_needle.is_empty() {
        return true;
    }
    if text.is_ascii() && folded_needle.is_ascii() {
        let (hay, needle) = (text.as_bytes(), folded_needle.as_bytes());
        return hay.len() >= needle.len() && hay.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle));
    }
    fold(text).contains(folded_needle)
}

/// Whether `text`, folded, is `folded_value` (already folded).
pub fn equals_folded(text: &str, folded_value: &str) -> bool {
    if text.is_ascii() && folded_value.is_ascii() {
        return text.eq_ignore_ascii_case(folded_value);
    }
    fold(text) == folded_value
}

/// The words of a text as the index reads them (see [`Phrase`]): read once, matched against many phrases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Words(Read);

/// How a text's words are kept: an ASCII text (most of most feeds) as itself and where its words are (a word is a
/// run of letters and digits, compared without its case: no copy of each word); any other as its units.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Read {
    Ascii { text: String, words: Vec<Range<usize>> },
    Units(Vec<Unit>),
}

impl Default for Words {
    fn default() -> Words {
        Words(Read::Units(Vec::new()))
    }
}

impl Words {
    pub fn of(text: &str) -> Words {
        Words::of_string(text.to_string())
    }

    /// The words of `text`, kept without a copy.
    pub fn of_string(text: String) -> Words {
        if !text.is_ascii() {
            return Words(Read::Units(units(&text)));
        }
        let mut words = Vec::new();
        let mut start = None;
        for (at, b) in text.bytes().enumerate() {
            match (b.is_ascii_alphanumeric(), start) {
                (true, None) => start = Some(at),
                (false, Some(from)) => {
                    words.push(from..at);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(from) = start {
            words.push(from..text.len());
        }
        Words(Read::Ascii { text, words })
    }
}

/// Words that must follow each other in a text (the last one maybe a prefix), found as the index finds them:
/// the query language's `text ~ "…"` on an entry that is not indexed yet (a kill rule, at ingest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phrase(Highlight);

impl Phrase {
    /// The phrase of `text`; `None` when it has nothing the index could hold (no letter or digit).
    pub fn new(text: &str, prefix: bool) -> Option<Phrase> {
        term_expression(text, prefix).map(|(_, highlight)| Phrase(highlight))
    }

    /// The FTS5 expression for it (a quoted string, `*` after a prefix).
    pub fn expression(text: &str, prefix: bool) -> Option<String> {
        term_expression(text, prefix).map(|(expression, _)| expression)
    }

    pub fn found_in(&self, words: &Words) -> bool {
        let (text, words) = match &words.0 {
            Read::Units(units) => return (0..units.len()).any(|start| self.0.matches_at(units, start).is_some()),
            Read::Ascii { text, words } => (text.as_bytes(), words),
        };
        // What `matches_at` does on the units of an ASCII text (lower-case words, none CJK): a unit that is not
        // ASCII is in none of them.
        let want = &self.0.units;
        if want.is_empty() || want.iter().any(|w| !w.is_ascii()) {
            return false;
        }
        words.windows(want.len()).any(|found| {
            found.iter().zip(want).enumerate().all(|(i, (word, want))| {
                let (word, want) = (&text[word.clone()], want.as_bytes());
                if i + 1 == self.0.units.len() && self.0.prefix {
                    word.len() >= want.len() && word[..want.len()].eq_ignore_ascii_case(want)
                } else {
                    word.eq_ignore_ascii_case(want)
                }
            })
        })
    }
}

/// One character with its width folded (NFKC of full-width and half-width forms) and ё as е.
fn fold_width(c: char, mut emit: impl FnMut(char)) {
    match c {
        '\u{FF00}'..='\u{FFEF}' => std::iter::once(c).nfkc().for_each(emit),
        'ё' => emit('е'),
        'Ё' => emit('Е'),
        // Greek with tonos or dialytika (and polytonic letters): the letter alone.
        '\u{0386}'..='\u{03CE}' | '\u{1F00}'..='\u{1FFF}' => {
            std::iter::once(c).nfd().filter(|m| !unicode_normalization::char::is_combining_mark(*m)).for_each(emit);
        }
        _ => emit(c),
    }
}

/// True for the characters written without spaces between words: Han ideographs, kana, Hangul, Bopomofo.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11FF}'     // Hangul Jamo
        | '\u{3005}'..='\u{3007}'   // 々 〆 〇
        | '\u{3041}'..='\u{3096}'   // Hiragana
        | '\u{309D}'..='\u{309F}'
        | '\u{30A1}'..='\u{30FA}'   // Katakana
        | '\u{30FC}'..='\u{30FF}'
        | '\u{3105}'..='\u{312F}'   // Bopomofo
        | '\u{3131}'..='\u{318E}'   // Hangul compatibility Jamo
        | '\u{31A0}'..='\u{31BF}'
        | '\u{31F0}'..='\u{31FF}'   // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'   // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK unified ideographs
        | '\u{A960}'..='\u{A97F}'   // Hangul Jamo extended A
        | '\u{AC00}'..='\u{D7A3}'   // Hangul syllables
        | '\u{D7B0}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FAFF}'   // CJK compatibility ideographs
        | '\u{20000}'..='\u{3134F}' // CJK extensions B–G
    )
}

/// A word, or one CJK character, of a text: where it is and its folded form.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Unit {
    folded: String,
    range: Range<usize>,
    cjk: bool,
}

/// The units of a text as highlighting compares them: words (letters, digits and the marks on them) and single
/// CJK characters, folded the way the index folds them (case, Latin diacritics, widths, ё).
fn units(text: &str) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    let mut word: Option<Unit> = None;
    for (at, c) in text.char_indices() {
        // ASCII (most of most text) folds to its lower case: no copy of the character is made.
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                let lower = c.to_ascii_lowercase();
                match &mut word {
                    Some(w) => {
                        w.folded.push(lower);
                        w.range.end = at + 1;
                    }
                    None => word = Some(Unit { folded: lower.to_string(), range: at..at + 1, cjk: false }),
                }
            } else {
                out.extend(word.take());
            }
            continue;
        }
        let range = at..at + c.len_utf8();
        let mut folded = String::new();
        fold_width(c, |c| fold_case_and_marks(c, &mut folded));
        if folded.chars().next().is_some_and(is_cjk) {
            out.extend(word.take());
            out.push(Unit { folded, range, cjk: true });
            continue;
        }
        let mark = unicode_normalization::char::is_combining_mark(c) || matches!(c, '\u{FF9E}' | '\u{FF9F}');
        if mark {
            // A mark belongs to the letter before it: a word's, or a kana's (ｶﾞ is ガ).
            match (&mut word, out.last_mut()) {
                (Some(w), _) => {
                    w.folded.push_str(&folded);
                    w.range.end = range.end;
                }
                (None, Some(kana)) if kana.cjk && kana.range.end == range.start => {
                    kana.folded = format!("{}{folded}", kana.folded).nfc().collect();
                    kana.range.end = range.end;
                }
                _ => {}
            }
            continue;
        }
        if c.is_alphanumeric() {
            match &mut word {
                Some(w) => {
                    w.folded.push_str(&folded);
                    w.range.end = range.end;
                }
                None => word = Some(Unit { folded, range, cjk: false }),
            }
            continue;
        }
        out.extend(word.take());
    }
    out.extend(word);
    out
}

/// Lower case, and Latin letters without their diacritics: what unicode61's `remove_diacritics` folds. It
/// leaves other scripts' letters alone (й stays й) and drops combining diacritics.
fn fold_case_and_marks(c: char, out: &mut String) {
    for lower in c.to_lowercase() {
        match lower {
            '\u{0300}'..='\u{036F}' => {}
            '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}' => {
                out.extend(
                    std::iter::once(lower).nfd().filter(|m| !unicode_normalization::char::is_combining_mark(*m)),
                );
            }
            _ => out.push(lower),
        }
    }
}

/// A value written so that the query language (`crate::query::parse`) reads it back as the same text: a double-quoted string with `"` and `\`
/// escaped.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ascii_texts_words_find_what_its_units_find() {
        let texts = [
            "Open source software in Rust",
            "rust-lang's RUST 1.90, open-source! Sourcery",
            "  a b  c ",
            "",
            "x",
            "giveaway3 promo code 3",
        ];
        let phrases = [
            ("open source", false),
            ("rust", false),
            ("ru", true),
            ("source soft", true),
            ("1 90", false),
            ("café", false),
            ("東京", false),
            ("lang s", false),
            ("b c", false),
            ("OPEN", true),
            ("promo code 3", false),
            ("giveaway3", false),
            ("sourc", true),
        ];
        for text in texts {
            let ascii = Words::of(text);
            assert!(matches!(ascii.0, Read::Ascii { .. }), "{text}");
            let by_units = Words(Read::Units(units(text)));
            for (phrase, prefix) in phrases {
                let p = Phrase::new(phrase, prefix).unwrap();
                assert_eq!(p.found_in(&ascii), p.found_in(&by_units), "{phrase:?} (prefix {prefix}) in {text:?}");
            }
        }
        assert!(Phrase::new("open source", false).unwrap().found_in(&Words::of(texts[1])));
        assert!(!Phrase::new("sourc", false).unwrap().found_in(&Words::of(texts[0])));
    }

    #[test]
    fn greek_without_tonos_finds_greek_with_it() {
        assert_eq!(indexed_form("Ελλάδα ΐ"), indexed_form("Ελλαδα ι"));
        assert_eq!(indexed_form("ελλάδα"), "ελλαδα");
    }

    fn expr(q: &str) -> String {
        SearchQuery::parse(q).unwrap().expression().to_string()
    }

    #[test]
    fn cjk_runs_are_indexed_as_bigrams_and_their_last_character() {
        assert_eq!(indexed_form("東京都庁"), "東京 京都 都庁 庁");
        assert_eq!(indexed_form("在東京都庁前。"), "在東 東京 京都 都庁 庁前 前 。");
        assert_eq!(indexed_form("茶"), "茶");
        assert_eq!(indexed_form("iPhone発売"), "iPhone 発売 売");
        assert_eq!(indexed_form("서울에서 만나요"), "서울 울에 에서 서 만나 나요 요");
    }

    #[test]
    fn latin_and_cyrillic_text_is_left_to_the_tokenizer_apart_from_widths_and_yo() {
        assert_eq!(indexed_form("Café crème, naïve"), "Café crème, naïve");
        assert_eq!(indexed_form("Ёлка и ёж"), "Елка и еж");
        assert_eq!(indexed_form("ＴＯＫＹＯ ２０２５"), "TOKYO 2025");
        assert_eq!(indexed_form("ｶﾀｶﾅ"), "カタ タカ カナ ナ");
    }

    #[test]
    fn words_are_anded_as_quoted_strings() {
        assert_eq!(expr("rust  async"), "\"rust\" AND \"async\"");
        assert_eq!(expr("café"), "\"café\"");
    }

    #[test]
    fn phrases_and_prefixes() {
        assert_eq!(expr("\"tokio runtime\" sched*"), "\"tokio runtime\" AND \"sched\"*");
        assert_eq!(expr("\"open source\"*"), "\"open source\"*");
        assert_eq!(expr("\"unclosed phrase"), "\"unclosed phrase\"");
    }

    #[test]
    fn cjk_query_words_become_phrases_of_bigrams_and_single_characters_prefixes() {
        assert_eq!(expr("東京"), "\"東京\"");
        assert_eq!(expr("東京都"), "\"東京 京都\"");
        assert_eq!(expr("京"), "\"京\"*");
        assert_eq!(expr("서울"), "\"서울\"");
        assert_eq!(expr("\"東京 タワー\""), "\"東京 京 タワ ワー\"");
        assert_eq!(expr("iPhone発売"), "\"iPhone 発売\"");
    }

    #[test]
    fn a_search_written_in_the_query_language_means_the_same() {
        let as_query = |q: &str| SearchQuery::as_query(q).unwrap();
        assert_eq!(as_query("rust OR go tokio -java"), "(\"rust\" or \"go\") and \"tokio\" and not \"java\"");
        assert_eq!(as_query("\"open source\" compil*"), "\"open source\" and \"compil\"*");
        for q in ["rust OR go tokio -java", "\"open source\" compil*", "東京 NOT 大阪", "a\"b OR"] {
            let parsed = crate::query::parse(&as_query(q)).unwrap();
            assert!(!parsed.has_fields(), "{q}");
        }
    }

    #[test]
    fn or_not_and_minus() {
        assert_eq!(expr("rust OR go tokio"), "(\"rust\" OR \"go\") AND \"tokio\"");
        assert_eq!(expr("rust -java NOT python"), "(\"rust\") NOT \"java\" NOT \"python\"");
        assert_eq!(expr("rock AND roll"), "\"rock\" AND \"roll\"");
        // Operators without terms on both sides are words.
        assert_eq!(expr("OR"), "\"OR\"");
        assert_eq!(expr("fish OR"), "\"fish\" AND \"OR\"");
        assert_eq!(expr("NOT"), "\"NOT\"");
    }

    #[test]
    fn fts5_syntax_in_the_input_is_literal() {
        assert_eq!(expr("title:rust"), "\"title:rust\"");
        assert_eq!(expr("a\"b"), "\"a\" AND \"b\"");
        assert_eq!(expr("NEAR(a b)"), "\"NEAR(a\" AND \"b)\"");
        assert_eq!(expr("^start +plus"), "\"^start\" AND \"+plus\"");
        assert_eq!(expr("fo*o"), "\"fo*o\"");
        assert_eq!(expr("say \"\"hi\"\""), "\"say\" AND \"hi\"");
    }

    #[test]
    fn queries_that_mean_nothing_are_errors_a_person_can_act_on() {
        assert_eq!(SearchQuery::parse(""), Err(QueryError::Empty));
        assert_eq!(SearchQuery::parse("  *  \"\" !!! - ... "), Err(QueryError::Empty));
        assert_eq!(SearchQuery::parse("-rust NOT go"), Err(QueryError::OnlyExcluded));
        assert_eq!(SearchQuery::parse(&"word ".repeat(40)), Err(QueryError::TooLong));
        assert_eq!(SearchQuery::parse(&"x".repeat(2000)), Err(QueryError::TooLong));
        assert!(QueryError::Empty.to_string().contains("type a word"));
    }

    #[test]
    fn punctuation_only_words_are_dropped_not_sent() {
        assert_eq!(expr("rust !!! ---"), "\"rust\"");
    }

    #[test]
    fn highlights_fold_case_and_diacritics_and_respect_word_starts() {
        let q = SearchQuery::parse("cafe").unwrap();
        let text = "Un CAFÉ, des cafés, decafe";
        let found: Vec<&str> = q.highlight_ranges(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, vec!["CAFÉ"]);
        let q = SearchQuery::parse("caf*").unwrap();
        let found: Vec<&str> = q.highlight_ranges(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, vec!["CAFÉ", "cafés"]);
    }

    #[test]
    fn highlights_find_phrases_across_punctuation_but_not_scattered_words() {
        let q = SearchQuery::parse("\"open source\"").unwrap();
        let text = "Open-source code; open the source";
        let found: Vec<&str> = q.highlight_ranges(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, vec!["Open-source"]);
    }

    #[test]
    fn highlights_find_cjk_words_inside_runs_and_leave_out_excluded_terms() {
        let q = SearchQuery::parse("東京 -大阪").unwrap();
        let text = "東京都庁と大阪。東。京";
        let found: Vec<&str> = q.highlight_ranges(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, vec!["東京"]);
        let q = SearchQuery::parse("Ёлка").unwrap();
        let text = "новогодняя елка";
        assert_eq!(q.highlight_ranges(text).into_iter().map(|r| &text[r]).collect::<Vec<_>>(), vec!["елка"]);
    }

    #[test]
    fn overlapping_highlights_merge() {
        let q = SearchQuery::parse("\"big data\" data").unwrap();
        assert_eq!(q.highlight_ranges("big data"), vec![0..8]);
    }

    #[test]
    fn body_text_drops_scripts_and_styles_and_keeps_the_words() {
        let html = "<style>p{color:red}</style><p>Hello <b>world</b></p><SCRIPT type=x>alert('no')</SCRIPT>\
                    <p>café &amp; more</p><scripted>kept</scripted><script>never closed";
        assert_eq!(body_text(html), "Hello world café & more kept");
    }

    #[test]
    fn body_text_is_capped() {
        let html = "<p>word </p>".repeat(MAX_INDEXED_BODY_BYTES);
        assert!(body_text(&html).len() <= MAX_INDEXED_BODY_BYTES);
    }
}
