//! The names downloaded files get: a template (`{feed}/{title}.{ext}`) filled with what a feed says, made safe
//! for the file system. Feed content is hostile, so every field is cleaned before it becomes part of a name: no
//! `/` or `\` (a title cannot make a folder), no control or bidirectional formatting characters, no leading dot
//! (a title cannot hide a file or name `..`), cut to a length in bytes on a character boundary, never empty. A
//! `/` written in the template itself makes folders, but each of its parts is cleaned the same way, so the
//! result is always a relative path of plain names: it cannot leave the download folder. Pure: strings in,
//! names out; the engine checks which names are taken.

use crate::sanitize::{is_bidi_mark, is_forbidden, truncate_bytes};

/// The longest a name (one component) may be, in bytes: file systems allow 255, and the engine adds ` (99)` and
/// `.part` to it.
pub const MAX_NAME_BYTES: usize = 200;

/// The longest a field (`{title}`, `{feed}`) may be inside a name, in bytes.
const MAX_FIELD_BYTES: usize = 120;

/// The template used when none is set: a folder per feed, the entry's date and title.
pub const DEFAULT_TEMPLATE: &str = "{feed}/{date} {title}.{ext}";

/// What a template's fields stand for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields<'a> {
    pub feed: &'a str,
    pub title: &'a str,
    /// `YYYY-MM-DD`, or empty when the entry has no date.
    pub date: &'a str,
    /// Without its dot.
    pub ext: &'a str,
}

/// Whether a template is usable: its fields known and its braces closed. Says what is wrong.
pub fn check_template(template: &str) -> Result<(), String> {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("`{template}` has a `{{` that is never closed"));
        };
        let field = &rest[open + 1..open + close];
        if !matches!(field, "feed" | "title" | "date" | "ext") {
            return Err(format!(
                "`{{{field}}}` is not a field of a file name: use {{feed}}, {{title}}, {{date}}, {{ext}}"
            ));
        }
        rest = &rest[open + close + 1..];
    }
    if template.split('/').all(|part| part.trim().is_empty()) {
        return Err("the file name template is empty".into());
    }
    Ok(())
}

/// The relative path `template` gives for `fields`: one or more plain names (never empty, `.` or `..`, never
/// starting with a dot), so joined to the download folder it stays inside it.
pub fn render(template: &str, fields: &Fields<'_>) -> Vec<String> {
    let parts: Vec<&str> = template.split(['/', '\\']).filter(|p| !p.trim().is_empty()).collect();
    let count = parts.len();
    let mut names: Vec<String> = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let filled = fill(part, fields);
            let fallback = if i + 1 == count { "download" } else { "files" };
            clean(&filled, fallback)
        })
        .collect();
    if names.is_empty() {
        names.push(clean(&format!("{}.{}", fields.title, fields.ext), "download"));
    }
    names
}

/// `part` with its fields filled in, each cleaned and cut first.
fn fill(part: &str, fields: &Fields<'_>) -> String {
    let mut out = String::new();
    let mut rest = part;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let Some(close) = after.find('}') else {
            out.push_str(after);
            return out;
        };
        let value = match &after[1..close] {
            "feed" => fields.feed,
            "title" => fields.title,
            "date" => fields.date,
            "ext" => fields.ext,
            _ => &after[..=close],
        };
        out.push_str(truncate_bytes(&field(value), MAX_FIELD_BYTES));
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A field's text on one line, with nothing that could split or hide a name.
fn field(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '/' | '\\' => out.push('-'),
            c if c.is_whitespace() => out.push(' '),
            c if is_forbidden(c) || is_bidi_mark(c) || c.is_control() => {}
            c => out.push(c),
        }
    }
    collapse_spaces(&out)
}

fn collapse_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// One name, safe: no separators or controls, no leading dot or space, no trailing dot or space, at most
/// [`MAX_NAME_BYTES`] (its extension kept when it is cut), `fallback` when nothing is left.
fn clean(name: &str, fallback: &str) -> String {
    let name = field(name);
    let name = name.trim_start_matches(['.', ' ']).trim_end_matches(['.', ' ']);
    let name = fit(name, MAX_NAME_BYTES);
    if name.is_empty() || name.starts_with('.') { fallback.to_string() } else { name }
}

/// `name` cut to `max` bytes on a character boundary, keeping a short extension.
pub fn fit(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    match name.rfind('.') {
        Some(dot) if name.len() - dot <= 16 && dot > 0 => {
            let ext = &name[dot..];
            let stem = truncate_bytes(&name[..dot], max - ext.len()).trim_end_matches(['.', ' ']);
            format!("{stem}{ext}")
        }
        _ => truncate_bytes(name, max).trim_end_matches(['.', ' ']).to_string(),
    }
}

/// `name`, or the first of `name (2)`, `name (3)`… (before the extension) that `taken` says is free.
pub fn unique(name: &str, taken: impl FnMut(&str) -> bool) -> String {
    unique_after(name, 0, taken).0
}

/// As [`unique`], trying only numbers past `after` (1 stands for `name` itself, 0 tries it first), and says
/// the number it took (1: `name`): many files of one name take their numbers in one pass, not one each from 2.
pub fn unique_after(name: &str, after: u32, mut taken: impl FnMut(&str) -> bool) -> (String, u32) {
    if after == 0 && !taken(name) {
        return (name.to_string(), 1);
    }
    let (stem, ext) = match name.rfind('.') {
        Some(dot) if dot > 0 => name.split_at(dot),
        _ => (name, ""),
    };
    (after.max(1) + 1..)
        .map(|n| (format!("{stem} ({n}){ext}"), n))
        .find(|(candidate, _)| !taken(candidate))
        .expect("some number is free")
}

/// The extension a downloaded file gets: the address's own (`episode.mp3`), else the media type's, else `bin`.
pub fn extension(url: &str, media_type: Option<&str>) -> String {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    if let Some((_, ext)) = last.rsplit_once('.')
        && (1..=5).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return ext.to_ascii_lowercase();
    }
    let media = media_type.unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match media.as_str() {
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/mp4" | "audio/x-m4a" | "audio/aac" => "m4a",
        "audio/ogg" | "application/ogg" => "ogg",
        "audio/opus" => "opus",
        "audio/flac" | "audio/x-flac" => "flac",
        "audio/wav" | "audio/x-wav" => "wav",
        "video/mp4" => "mp4",
        "video/webm" | "audio/webm" => "webm",
        "video/quicktime" => "mov",
        "video/x-matroska" => "mkv",
        "application/pdf" => "pdf",
        "application/epub+zip" => "epub",
        "image/jpeg" => "jpg",
        "image/png" => "png",
        _ => "bin",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(title: &str) -> Vec<String> {
        render("{feed}/{title}.{ext}", &Fields { feed: "Show", title, date: "2025-06-10", ext: "mp3" })
    }

    #[test]
    fn the_fields_fill_the_template() {
        let fields = Fields { feed: "My Show", title: "Episode 1", date: "2025-06-10", ext: "mp3" };
        assert_eq!(render(DEFAULT_TEMPLATE, &fields), ["My Show", "2025-06-10 Episode 1.mp3"]);
        assert_eq!(render("{title}.{ext}", &fields), ["Episode 1.mp3"]);
    }

    #[test]
    fn a_title_cannot_climb_out_of_the_folder() {
        for hostile in ["../../etc/passwd", "..", "/etc/passwd", "..\\..\\boot.ini", "a/../../b", "./.", "/"] {
            let parts = name(hostile);
            assert_eq!(parts.len(), 2, "{hostile}: only the feed's folder and a name: {parts:?}");
            for part in &parts {
                assert!(!part.contains('/') && !part.contains('\\'), "{hostile}: {part}");
                assert!(!part.starts_with('.'), "{hostile}: {part}");
                assert!(part != ".." && part != "." && !part.is_empty(), "{hostile}: {part}");
            }
        }
        assert_eq!(name("../../etc/passwd")[1], "-..-etc-passwd.mp3");
    }

    #[test]
    fn a_template_that_climbs_is_cut_to_plain_names() {
        let fields = Fields { feed: "..", title: "x", date: "", ext: "mp3" };
        let parts = render("../{feed}/./../{title}.{ext}", &fields);
        assert!(parts.iter().all(|p| p != ".." && p != "." && !p.starts_with('.')), "{parts:?}");
    }

    #[test]
    fn control_and_bidi_characters_never_reach_a_name() {
        let parts = name("Bad\u{1b}[31m\u{0}title\u{202e}gpj.exe\u{7}\n\tend");
        assert_eq!(parts[1], "Bad[31mtitlegpj.exe end.mp3");
        assert!(parts[1].chars().all(|c| !c.is_control() && !is_forbidden(c)));
    }

    #[test]
    fn a_hidden_file_cannot_be_made() {
        assert_eq!(name(".bashrc")[1], "bashrc.mp3");
        let parts = render("{title}", &Fields { title: "...", ..Fields::default() });
        assert_eq!(parts, ["download"]);
    }

    #[test]
    fn long_names_are_cut_on_a_character_boundary_keeping_the_extension() {
        let title = "é".repeat(500);
        let parts = name(&title);
        let last = &parts[1];
        assert!(last.len() <= MAX_NAME_BYTES, "{} bytes", last.len());
        assert!(last.ends_with(".mp3"), "{last}");
        assert!(last.trim_end_matches(".mp3").chars().all(|c| c == 'é'));
        let long = fit(&format!("{}.opus", "a".repeat(300)), 100);
        assert_eq!(long.len(), 100);
        assert!(long.ends_with(".opus"));
    }

    #[test]
    fn an_empty_title_gets_a_name() {
        assert_eq!(render("{title}", &Fields::default()), ["download"]);
        assert_eq!(name("")[1], "mp3", "the extension alone is a visible name");
    }

    #[test]
    fn taken_names_get_a_number_before_the_extension() {
        let taken = ["a.mp3", "a (2).mp3"];
        assert_eq!(unique("a.mp3", |n| taken.contains(&n)), "a (3).mp3");
        assert_eq!(unique("b.mp3", |n| taken.contains(&n)), "b.mp3");
        assert_eq!(unique("noext", |n| n == "noext"), "noext (2)");
        assert_eq!(unique_after("a.mp3", 0, |n| taken.contains(&n)), ("a (3).mp3".to_string(), 3));
        assert_eq!(unique_after("a.mp3", 3, |_| false), ("a (4).mp3".to_string(), 4), "past the last one taken");
        assert_eq!(unique_after("b.mp3", 0, |_| false), ("b.mp3".to_string(), 1));
    }

    #[test]
    fn the_extension_comes_from_the_address_else_the_media_type() {
        assert_eq!(extension("http://x/ep1.MP3?token=1", None), "mp3");
        assert_eq!(extension("http://x/download?id=5", Some("audio/mpeg")), "mp3");
        assert_eq!(extension("http://x/ep.verylongext", Some("video/mp4; codecs=x")), "mp4");
        assert_eq!(extension("http://x/", None), "bin");
    }

    #[test]
    fn templates_are_checked() {
        assert!(check_template(DEFAULT_TEMPLATE).is_ok());
        assert!(check_template("{feed}/{titel}").unwrap_err().contains("{titel}"));
        assert!(check_template("{title").is_err());
        assert!(check_template(" / ").is_err());
    }
}
