use super::*;
use crate::model::{EntryId, FeedId};

fn entry(title: &str, html: &str) -> EntryDetail {
    EntryDetail {
        id: EntryId(7),
        feed_id: FeedId(1),
        feed_title: "Long Reads".into(),
        title: Some(title.into()),
        link: Some("https://example.com/posts/one".into()),
        author: Some("Ann \"A\" Author".into()),
        published_at: Some(1_767_323_045), // 2026-01-02T03:04:05Z
        updated_at: None,
        content_html: Some(html.into()),
        summary_html: None,
        read: false,
        starred: false,
        categories: vec!["news".into(), "tech\u{1b}[31m".into()],
        enclosures: vec![],
        comments: None,
        thumbnail: None,
        full_html: None,
        full_error: None,
    }
}

#[test]
fn the_front_matter_holds_title_author_feed_date_url_and_tags_quoted_and_without_controls() {
    let doc = document(&entry("Hello: \"world\"", "<p>Hi</p>"));
    let front = doc.split("---\n").nth(1).unwrap();
    assert_eq!(
        front,
        "title: \"Hello: \\\"world\\\"\"\nauthor: \"Ann \\\"A\\\" Author\"\nfeed: \"Long Reads\"\n\
         date: 2026-01-02T03:04:05Z\nurl: \"https://example.com/posts/one\"\ntags: [\"news\", \"tech[31m\"]\n"
    );
    assert!(doc.contains("\n# Hello: \"world\"\n\nHi\n"), "{doc}");
}

#[test]
fn links_and_pictures_are_references_resolved_against_the_entry() {
    let html = r#"<p>See <a href="/about">the page</a> and <a href="https://other.example/x?a=1">that</a>.</p>
        <p><img src="pic.jpg" alt="A cat"></p>"#;
    let md = body(html, Some("https://example.com/posts/one"));
    assert!(md.contains("See [the page][1] and [that][2]."), "{md}");
    assert!(md.contains("![A cat][3]"), "{md}");
    assert!(md.ends_with(
        "[1]: <https://example.com/about>\n[2]: <https://other.example/x?a=1>\n[3]: <https://example.com/posts/pic.jpg>\n"
    ), "{md}");
}

/// A link a Markdown viewer would run is left out of the export, as the reader never opens one.
#[test]
fn a_script_link_is_left_out_of_the_references() {
    let html = r#"<p><a href="javascript:alert(1)">click</a> <a href="JavaScript:x">again</a> <a href="/ok">ok</a>
        <a href="mailto:a@example.com">mail</a></p>"#;
    let md = body(html, Some("https://example.com/posts/one"));
    assert!(
        md.contains("[1]: <> \"a javascript: link, left out\"\n[2]: <> \"a javascript: link, left out\"\n"),
        "{md}"
    );
    assert!(md.contains("[3]: <https://example.com/ok>\n[4]: <mailto:a@example.com>\n"), "{md}");
    assert!(!md.contains("alert"), "{md}");
}

#[test]
fn emphasis_code_and_lists_read_as_markdown() {
    let md = body("<p><em>a</em> <strong>b</strong> <code>c()</code></p><ul><li>one</li><li>two</li></ul>", None);
    assert!(md.contains("*a* **b** `c()`"), "{md}");
    assert!(md.contains("- one\n- two"), "{md}");
}

#[test]
fn a_hostile_title_makes_a_safe_name_inside_the_folder() {
    let e = entry("../../etc/passwd\u{7}\u{202e}..", "");
    let parts = relative_path(DEFAULT_TEMPLATE, &e);
    assert_eq!(parts, vec!["Long Reads".to_string(), "2026-01-02-etc-passwd.md".to_string()]);
    let e = entry(".hidden", "");
    assert_eq!(relative_path("{title}.md", &e), vec!["hidden.md"]);
    let e = entry("", "");
    assert_eq!(relative_path("{title}.md", &e), vec!["untitled.md"]);
    let long = "word ".repeat(200);
    let name = &relative_path("{title}-{title}-{title}.md", &entry(&long, ""))[0];
    assert!(name.len() <= 160 && name.ends_with(".md"), "{name}");
}

#[test]
fn a_template_that_would_leave_the_folder_or_names_nothing_known_is_refused() {
    assert!(check_template(DEFAULT_TEMPLATE).is_ok());
    assert!(check_template("{year}/{month}/{id}.md").is_ok());
    for bad in ["/abs/{title}.md", "../{title}.md", "a/./{title}.md", "{nope}.md", "{title", "dir/", "C:{title}"] {
        assert!(check_template(bad).is_err(), "{bad}");
    }
}

#[test]
fn names_are_unique_without_regard_to_case() {
    let mut taken = HashSet::new();
    let parts = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    assert_eq!(unique_path(&parts("f/a.md"), &mut taken), "f/a.md");
    assert_eq!(unique_path(&parts("f/A.md"), &mut taken), "f/A-2.md");
    assert_eq!(unique_path(&parts("f/a.md"), &mut taken), "f/a-3.md");
    assert_eq!(unique_path(&parts("f.d/noext"), &mut taken), "f.d/noext");
    assert_eq!(unique_path(&parts("f.d/noext"), &mut taken), "f.d/noext-2");
}

#[test]
fn deeply_nested_markup_is_bounded_and_its_text_kept() {
    let deep = format!("{}deep text{}", "<div>".repeat(100_000), "</div>".repeat(100_000));
    assert_eq!(body(&deep, None), "deep text\n");
    let list = format!("{}last item{}", "<ul><li>".repeat(50_000), "</li></ul>".repeat(50_000));
    let md = body(&list, None);
    assert!(md.contains("last item"), "{}", &md[md.len().saturating_sub(200)..]);
    assert!(md.lines().count() < 200, "the lists past the depth bound are flattened: {} lines", md.lines().count());
    // Shallow markup reads as before.
    assert_eq!(body("<ul><li>one<ul><li>two</li></ul></li></ul>", None), "- one\n  - two\n");
}
