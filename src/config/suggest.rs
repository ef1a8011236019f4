//! A key the config does not know, answered with the nearest one it does: serde says "unknown field
//! `refresh_intervall_minutes`, expected one of" and lists all fifty.

/// serde's message for an unknown key, rewritten to name the nearest known key when one is close (a typo, as the
/// query language judges one), and where the keys are listed otherwise; `None` for any other message.
pub(super) fn unknown_key(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, rest) = rest.split_once('`')?;
    let known: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    // A key cut short as well as mistyped (`refresh_intervl` for `refresh_interval_minutes`) is near the start
    // of the key meant.
    let shortened = || {
        let starts: Vec<&str> = known.iter().map(|k| k.get(..unknown.len().min(k.len())).unwrap_or(k)).collect();
        let near = crate::text::closest(unknown, &starts)?;
        let mut meant = known.iter().filter(|k| k.starts_with(near));
        meant.next().filter(|_| meant.next().is_none() && unknown.len() >= 6)
    };
    Some(match crate::text::closest(unknown, &known).or_else(|| shortened().copied()) {
        Some(key) => format!("unknown key `{unknown}`: did you mean `{key}`?"),
        None => format!("unknown key `{unknown}` (docs/config.md and config.example.toml list the keys)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_in_a_key_names_the_nearest_key_and_anything_else_where_the_keys_are() {
        let serde =
            "unknown field `refresh_intervall_minutes`, expected one of `browser`, `refresh_interval_minutes`, `theme`";
        assert_eq!(
            unknown_key(serde).unwrap(),
            "unknown key `refresh_intervall_minutes`: did you mean `refresh_interval_minutes`?"
        );
        let short = "unknown field `refresh_intervl`, expected one of `browser`, `refresh_interval_minutes`, `theme`";
        assert_eq!(
            unknown_key(short).unwrap(),
            "unknown key `refresh_intervl`: did you mean `refresh_interval_minutes`?"
        );
        let far = "unknown field `colour_scheme`, expected one of `browser`, `theme`";
        assert!(unknown_key(far).unwrap().contains("docs/config.md"), "{:?}", unknown_key(far));
        assert_eq!(unknown_key("invalid type: string \"x\", expected u16"), None);
    }
}
