//! Entries as Markdown files: front matter (title, author, feed, date, address, tags), then the article with its
//! links kept as references (`[text][1]` … `[1]: URL`), and the path each file goes to, made from a template
//! (`{feed}/{date}-{title}.md`) by names safe for any file system. Pure: the engine writes the files.
//!
//! Feed content is hostile: a title never brings a `/`, a leading `.`, a control character or an endless name
//! into a path, and no template can lead out of the folder exported to.

use crate::model::EntryDetail;
use crate::sanitize::is_forbidden;
use html2text::render::{TaggedLine, TextDecorator};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

/// Where each entry goes in the folder, unless the config says otherwise.
pub const DEFAULT_TEMPLATE: &str = "{feed}/{date}-{title}.md";

/// The placeholders a template may use.
pub const PLACEHOLDERS: &[&str] = &["feed", "date", "title", "year", "month", "author", "id"];

/// Longest name a placeholder fills in (in characters), and longest file or folder name (in bytes).
const MAX_PART_CHARS: usize = 80;
const MAX_NAME_BYTES: usize = 160;

/// Checks a path template: relative, no `..`, only known placeholders, a file name at the end.
pub fn check_template(template: &str) -> Result<(), String> {
    if template.trim().is_empty() {
        return Err("the export path is empty; write one such as {feed}/{date}-{title}.md".into());
    }
    if template.starts_with('/') || template.starts_with('\\') || template.contains(':') {
        return Err(format!("the export path {template} must be relative to the folder exported to"));
    }
    if template.split(['/', '\\']).any(|part| part.trim() == ".." || part.trim() == ".") {
        return Err(format!("the export path {template} must not contain . or .. (it stays in the folder)"));
    }
    if template.ends_with('/') {
        return Err(format!("the export path {template} must end with a file name"));
    }
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            return Err(format!("the export path {template} has a {{ without its }}"));
        };
        let name = &rest[start + 1..start + len];
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!("the export path has no placeholder {{{name}}} (it knows {})", known()));
        }
        rest = &rest[start + len + 1..];
    }
    Ok(())
}

fn known() -> String {
    PLACEHOLDERS.iter().map(|p| format!("{{{p}}}")).collect::<Vec<_>>().join(", ")
}

/// The entry's date: published, else updated.
fn date_of(entry: &EntryDetail) -> Option<chrono::DateTime<chrono::Utc>> {
    entry.published_at.or(entry.updated_at).and_then(|t| chrono::DateTime::from_timestamp(t, 0))
}

/// Text made safe as (part of) one file or folder name: no separators, no control or invisible characters,
/// no leading dot or space, no trailing dot or space, at most `max` characters.
pub fn safe_part(text: &str, max: usize) -> String {
    let mut out = String::new();
    // A run of dots, dashes and spaces is one character: a dash when it holds a dash or mixes dots and spaces
    // (`../../x` is `-x`), else one space or one dot.
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.is_empty() {
            return;
        }
        let one = if run.contains('-') || (run.contains('.') && run.contains(' ')) {
            '-'
        } else if run.contains(' ') {
            ' '
        } else {
            '.'
        };
        out.push(one);
        run.clear();
    };
    for c in text.chars() {
        let c = if c.is_control() || is_forbidden(c) || c.is_whitespace() { ' ' } else { c };
        let c = if matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') { '-' } else { c };
        if matches!(c, '.' | '-' | ' ') {
            run.push(c);
            continue;
        }
        flush(&mut run, &mut out);
        if out.chars().count() >= max {
            break;
        }
        out.push(c);
    }
    flush(&mut run, &mut out);
    let out: String = out.chars().take(max).collect();
    out.trim_start_matches([' ', '.', '-']).trim_end_matches([' ', '.']).to_string()
}

/// Cuts a name to `max` bytes at a character boundary, keeping its extension.
fn cap_name(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let (stem, ext) = match name.rfind('.') {
        Some(i) if name.len() - i <= 10 && i > 0 => (&name[..i], &name[i..]),
        _ => (name, ""),
    };
    let keep = crate::sanitize::truncate_bytes(stem, max.saturating_sub(ext.len()));
    format!("{}{ext}", keep.trim_end_matches([' ', '.']))
}

/// The path of the entry's file under the folder exported to, as its parts (folders, then the file name), made
/// from a template that [`check_template`] accepted. Every part is a safe, non-empty name.
pub fn relative_path(template: &str, entry: &EntryDetail) -> Vec<String> {
    let date = date_of(entry);
    let value = |name: &str| -> String {
        let raw = match name {
            "feed" => entry.feed_title.clone(),
            "title" => entry.title.clone().unwrap_or_default(),
            "author" => entry.author.clone().unwrap_or_default(),
            "date" => date.map(|d| d.format("%Y-%m-%d").to_string()).unwrap_or_else(|| "undated".into()),
            "year" => date.map(|d| d.format("%Y").to_string()).unwrap_or_else(|| "undated".into()),
            "month" => date.map(|d| d.format("%m").to_string()).unwrap_or_else(|| "undated".into()),
            "id" => entry.id.0.to_string(),
            _ => String::new(),
        };
        let raw = if name == "title" { crate::text::html_to_line(&raw, 400) } else { raw };
        match safe_part(&raw, MAX_PART_CHARS) {
            s if s.is_empty() && name == "title" => "untitled".into(),
            s if s.is_empty() => "unknown".into(),
            s => s,
        }
    };
    template
        .split(['/', '\\'])
        .map(|part| {
            let mut name = String::new();
            let mut rest = part;
            while let Some(start) = rest.find('{') {
                name.push_str(&rest[..start]);
                let len = rest[start..].find('}').unwrap_or(rest.len() - start);
                name.push_str(&value(&rest[start + 1..(start + len).min(rest.len())]));
                rest = rest.get(start + len + 1..).unwrap_or("");
            }
            name.push_str(rest);
            let safe = safe_part(&name, usize::MAX);
            let safe = cap_name(&safe, MAX_NAME_BYTES);
            if safe.is_empty() { "unknown".to_string() } else { safe }
        })
        .collect()
}

/// `parts` joined with `/`, made unique among `taken` (compared without case, as some file systems do) by a
/// number before the extension: `a.md`, `a-2.md`, `a-3.md`. The result is added to `taken`.
pub fn unique_path(parts: &[String], taken: &mut HashSet<String>) -> String {
    let joined = parts.join("/");
    let (stem, ext) = match joined.rfind('.') {
        Some(i) if !joined[i..].contains('/') && i > joined.rfind('/').map_or(0, |s| s + 1) => {
            (&joined[..i], &joined[i..])
        }
        _ => (joined.as_str(), ""),
    };
    let mut candidate = joined.clone();
    let mut n = 1;
    while !taken.insert(candidate.to_lowercase()) {
        n += 1;
        candidate = format!("{stem}-{n}{ext}");
    }
    candidate
}

/// A YAML string: JSON's quoting (a JSON string is a YAML scalar), with control characters gone.
fn yaml_string(s: &str) -> String {
    let clean: String = s.chars().filter(|c| !c.is_control() && !is_forbidden(*c)).collect();
    serde_json::to_string(&clean).unwrap_or_else(|_| "\"\"".into())
}

/// The whole Markdown file of an entry: front matter, a heading, the article (its full text when it was
/// fetched), and its links and pictures as numbered references.
pub fn document(entry: &EntryDetail) -> String {
    let mut out = String::from("---\n");
    let title = entry.title.as_deref().map(|t| crate::text::html_to_line(t, 1000)).unwrap_or_default();
    out.push_str(&format!("title: {}\n", yaml_string(&title)));
    if let Some(author) = entry.author.as_deref().filter(|a| !a.trim().is_empty()) {
        out.push_str(&format!("author: {}\n", yaml_string(author)));
    }
    out.push_str(&format!("feed: {}\n", yaml_string(&entry.feed_title)));
    if let Some(date) = date_of(entry) {
        out.push_str(&format!("date: {}\n", date.format("%Y-%m-%dT%H:%M:%SZ")));
    }
    if let Some(link) = entry.link.as_deref() {
        out.push_str(&format!("url: {}\n", yaml_string(link)));
    }
    let tags: Vec<String> = entry.categories.iter().map(|t| yaml_string(t)).collect();
    out.push_str(&format!("tags: [{}]\n", tags.join(", ")));
    out.push_str("---\n\n");
    let heading = crate::sanitize::one_line(&title, 1000);
    if !heading.is_empty() {
        out.push_str(&format!("# {heading}\n\n"));
    }
    let html = entry.full_html.as_deref().or(entry.content_html.as_deref()).or(entry.summary_html.as_deref());
    if let Some(html) = html {
        out.push_str(&body(html, entry.link.as_deref()));
    }
    out
}

/// The article's HTML as Markdown, links and pictures as references resolved against `base`.
pub fn body(html: &str, base: Option<&str>) -> String {
    // Bounded first, as an article is for the reader (in one piece): html2text's tree builder takes time with the
    // square of the nesting (100,000 nested `<div>`s took 37 s an entry), and the numbers it would overflow on
    // (`colspan`, `rowspan`, `start`) are clamped.
    let whole = crate::render::bound::Purpose::Article { chunk_bytes: usize::MAX, forced_cut_bytes: usize::MAX };
    let bounded = crate::render::bound::bound(html, whole, crate::render::LIMITS, &|| false)
        .map(|chunks| chunks.into_iter().map(|c| c.html).collect::<String>());
    let html = bounded.as_deref().unwrap_or(html);
    let decorator = Markdown::default();
    let refs = Rc::clone(&decorator.refs);
    let laid_out = html2text::config::with_decorator(decorator)
        .link_footnotes(false)
        .unicode_strikeout(false)
        .no_link_wrapping()
        .allow_width_overflow()
        .string_from_read(html.as_bytes(), 100_000);
    let Ok(text) = laid_out else {
        return crate::text::html_body_to_plain(html) + "\n";
    };
    let mut out: String = text
        .lines()
        .map(|l| l.trim_end().chars().filter(|c| *c == '\t' || (!c.is_control() && !is_forbidden(*c))).collect())
        .collect::<Vec<String>>()
        .join("\n");
    let base = base.and_then(|b| url::Url::parse(b).ok());
    let refs = refs.borrow();
    let out_trimmed = out.trim_end().len();
    out.truncate(out_trimmed);
    out.push('\n');
    if !refs.targets.is_empty() {
        out.push('\n');
        for (i, target) in refs.targets.iter().enumerate() {
            let resolved = base
                .as_ref()
                .and_then(|b| b.join(target.trim()).ok())
                .map(String::from)
                .unwrap_or_else(|| target.trim().to_string());
            let clean: String = resolved.chars().filter(|c| !c.is_control() && !c.is_whitespace()).collect();
            // A link a Markdown viewer would run (`javascript:`, `data:`, `vbscript:`), never opened by the reader
            // either, is left out: its number stays, its target says what it was.
            let scheme = clean.split_once(':').map(|(s, _)| s.to_ascii_lowercase()).filter(|s| {
                !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            });
            match scheme.as_deref() {
                Some(other) if !matches!(other, "http" | "https" | "mailto" | "ftp") => {
                    out.push_str(&format!("[{}]: <> \"a {other}: link, left out\"\n", i + 1));
                }
                _ => out.push_str(&format!("[{}]: <{}>\n", i + 1, clean.replace(['<', '>'], ""))),
            }
        }
    }
    out
}

/// Links and pictures, numbered in the order met; shared by the sub-blocks (table cells, list items).
#[derive(Debug, Default)]
struct Refs {
    targets: Vec<String>,
    open: Vec<usize>,
}

/// html2text's decorator for Markdown: `*em*`, `**strong**`, `` `code` ``, `[text][n]`, `![alt][n]`.
#[derive(Clone, Debug, Default)]
struct Markdown {
    refs: Rc<RefCell<Refs>>,
}

impl Markdown {
    fn number(&self, url: &str) -> usize {
        let mut refs = self.refs.borrow_mut();
        refs.targets.push(url.to_string());
        refs.targets.len()
    }
}

impl TextDecorator for Markdown {
    type Annotation = ();

    fn decorate_link_start(&mut self, url: &str) -> (String, ()) {
        let n = self.number(url);
        self.refs.borrow_mut().open.push(n);
        ("[".into(), ())
    }

    fn decorate_link_end(&mut self) -> String {
        match self.refs.borrow_mut().open.pop() {
            Some(n) => format!("][{n}]"),
            None => String::new(),
        }
    }

    fn decorate_em_start(&self) -> (String, ()) {
        ("*".into(), ())
    }

    fn decorate_em_end(&self) -> String {
        "*".into()
    }

    fn decorate_strong_start(&self) -> (String, ()) {
        ("**".into(), ())
    }

    fn decorate_strong_end(&self) -> String {
        "**".into()
    }

    fn decorate_strikeout_start(&self) -> (String, ()) {
        ("~~".into(), ())
    }

    fn decorate_strikeout_end(&self) -> String {
        "~~".into()
    }

    fn decorate_code_start(&self) -> (String, ()) {
        ("`".into(), ())
    }

    fn decorate_code_end(&self) -> String {
        "`".into()
    }

    fn decorate_preformat_first(&self) {}

    fn decorate_preformat_cont(&self) {}

    fn decorate_image(&mut self, src: &str, title: &str) -> (String, ()) {
        let n = self.number(src);
        let alt = title.replace(['[', ']'], "");
        (format!("![{alt}][{n}]"), ())
    }

    fn header_prefix(&self, level: usize) -> String {
        "#".repeat(level) + " "
    }

    fn quote_prefix(&self) -> String {
        "> ".into()
    }

    fn unordered_item_prefix(&self) -> String {
        "- ".into()
    }

    fn ordered_item_prefix(&self, i: i64) -> String {
        format!("{i}. ")
    }

    fn make_subblock_decorator(&self) -> Self {
        self.clone()
    }

    fn finalise(&mut self, _urls: Vec<String>) -> Vec<TaggedLine<()>> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests;
