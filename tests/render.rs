//! Snapshots of a rendered article at two widths: what the article pane draws, styles included. A change in
//! rendering shows up as a diff of these files (tests/snapshots); review it with `cargo insta review` or by
//! reading the `.snap.new` files.

use tidings::render::{Rendered, Style, render_article};

/// A line-by-line text form of a rendered article: styled spans are written ⟨tags|text⟩.
fn describe(rendered: &Rendered) -> String {
    let tags = |s: &Style| {
        let mut t = Vec::new();
        for (on, name) in [
            (s.heading, "h"),
            (s.bold, "b"),
            (s.italic, "i"),
            (s.code, "code"),
            (s.link, "link"),
            (s.strike, "s"),
            (s.image, "img"),
            (s.quote, "q"),
            (s.dim, "dim"),
        ] {
            if on {
                t.push(name);
            }
        }
        t.join(" ")
    };
    let mut out = String::new();
    for line in &rendered.lines {
        for span in line {
            let t = tags(&span.style);
            if t.is_empty() {
                out.push_str(&span.text);
            } else {
                out.push_str(&format!("⟨{t}|{}⟩", span.text));
            }
        }
        out.push('\n');
    }
    out.push_str("--- links\n");
    for (i, link) in rendered.links.iter().enumerate() {
        out.push_str(&format!("{} {} {}\n", i + 1, if link.openable { "open" } else { "never" }, link.url));
    }
    out
}

fn article() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/article.html")).unwrap()
}

#[test]
fn article_at_40_columns() {
    let rendered = render_article(&article(), 40, Some("https://tidings.example.com/blog/post"));
    // Every line fits the pane, the link list included.
    for line in &rendered.lines {
        let text = tidings::render::line_text(line);
        assert!(unicode_width::UnicodeWidthStr::width(text.as_str()) <= 40, "line wider than 40 columns: {text:?}");
    }
    insta::assert_snapshot!(describe(&rendered));
}

#[test]
fn article_at_80_columns() {
    let rendered = render_article(&article(), 80, Some("https://tidings.example.com/blog/post"));
    insta::assert_snapshot!(describe(&rendered));
}
