//! Lenient reading of markup tags, shared by the XML repair pass and the HTML reading of discovery: where a tag
//! ends, and its attributes — quoted with `"` or `'`, unquoted, or bare. Pure.

/// Where the tag starting at `s[0] == '<'` ends (the index after its `>`), honouring quoted attribute values.
pub fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (i, b) in s.bytes().enumerate().skip(1) {
        match (quote, b) {
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return Some(i + 1),
            // A new tag starts before this one closed: the attribute quoting is broken; end here.
            (None, b'<') => return None,
            _ => {}
        }
    }
    None
}

/// Attributes of a start tag, leniently: quoted with " or ', unquoted, or bare names.
pub fn attributes(s: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        let key_len = rest.find(|c: char| c.is_whitespace() || c == '=').unwrap_or(rest.len());
        let key = rest[..key_len].to_string();
        rest = rest[key_len..].trim_start();
        let valid_key = key.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == ':');
        let value = if let Some(after) = rest.strip_prefix('=') {
            let after = after.trim_start();
            match after.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let close = after[1..].find(q).map_or(after.len(), |i| i + 1);
                    let value = after[1..close].to_string();
                    rest = after.get(close + 1..).unwrap_or("").trim_start();
                    Some(value)
                }
                _ => {
                    let end = after.find(char::is_whitespace).unwrap_or(after.len());
                    let value = after[..end].to_string();
                    rest = after[end..].trim_start();
                    Some(value)
                }
            }
        } else {
            None
        };
        if valid_key {
            out.push((key, value));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_end_after_quoted_greater_than_signs_but_not_past_a_new_tag() {
        assert_eq!(tag_end("<a title='x>y' href=z>rest"), Some(22));
        assert_eq!(tag_end("<a title=\"broken><b>"), None);
        assert_eq!(tag_end("<a href=x <b>"), None);
    }

    #[test]
    fn attributes_quoted_unquoted_and_bare() {
        let attrs = attributes(" href=/a.png alt='x \"y\"' hidden data-x = \"1\" /");
        assert_eq!(
            attrs,
            vec![
                ("href".to_string(), Some("/a.png".to_string())),
                ("alt".to_string(), Some("x \"y\"".to_string())),
                ("hidden".to_string(), None),
                ("data-x".to_string(), Some("1".to_string())),
            ]
        );
    }
}
