//! Where a key is in the config's text, so that an error names its line (and a query's error its column).

/// "line L, column C" of a byte offset in the file.
pub(super) fn place(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("line {line}, column {column}")
}

/// Parses a query of the file; an error names the line and column in the file, and the column in the query.
pub(super) fn check_query(text: &str, query: &toml::Spanned<String>, what: &str) -> Result<(), String> {
    let Err(e) = crate::query::parse(query.get_ref()) else { return Ok(()) };
    // In a one-line string without escapes, the query's column is the file's, one quote on.
    let span = query.span();
    let raw = text.get(span.clone()).unwrap_or("");
    let plain = !raw.starts_with("\"\"\"") && !raw.starts_with("'''") && !raw.contains('\\') && !raw.contains('\n');
    let at = if plain {
        let skip: usize = raw.chars().take(e.column).map(char::len_utf8).sum();
        span.start + skip.min(raw.len())
    } else {
        span.start
    };
    Err(format!("{}: {what} query: {} (column {} of the query)", place(text, at), e.message, e.column))
}

/// The line (from 1) where a dotted key such as `keys.entries.open` is set: under its table's header, or as a
/// dotted key under a parent's.
pub(super) fn line_of(text: &str, dotted: &str) -> Option<usize> {
    line_of_parts(text, &split_dotted(dotted))
}

/// [`line_of`] for a key given by its parts (a part may hold dots, as a feed's address does).
pub(super) fn line_of_parts(text: &str, parts: &[String]) -> Option<usize> {
    let mut table: Vec<String> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(header) = line.strip_prefix('[') {
            table = split_dotted(outside_quotes(header, ']').map_or(header, |at| &header[..at]).trim_matches('['));
            if table == parts {
                // The key is a table of its own (`[keys.bogus]`): its header.
                return Some(i + 1);
            }
            continue;
        }
        let Some(equals) = outside_quotes(line, '=') else { continue };
        let mut path = table.clone();
        path.extend(split_dotted(&line[..equals]));
        if path == parts {
            return Some(i + 1);
        }
    }
    None
}

/// Where `c` first appears in `s` outside double quotes.
fn outside_quotes(s: &str, c: char) -> Option<usize> {
    let mut quoted = false;
    for (at, found) in s.char_indices() {
        match found {
            '"' => quoted = !quoted,
            _ if found == c && !quoted => return Some(at),
            _ => {}
        }
    }
    None
}

/// The parts of a dotted key, quotes removed: `feeds."http://x.example/rss".keep_days` is three.
pub(super) fn split_dotted(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = key;
    while let Some(at) = outside_quotes(rest, '.') {
        parts.push(rest[..at].trim().trim_matches('"').to_string());
        rest = &rest[at + 1..];
    }
    parts.push(rest.trim().trim_matches('"').to_string());
    parts
}

/// A key's parts written as TOML writes them, a part that is not a bare key in quotes.
pub(super) fn dotted(parts: &[String]) -> String {
    let bare = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    parts.iter().map(|p| if bare(p) { p.clone() } else { format!("\"{p}\"") }).collect::<Vec<_>>().join(".")
}
