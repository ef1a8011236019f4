//! Hostile HTML for the renderer and the article extractor: documents built to find what grows faster than the
//! input — deep nesting of every kind, huge and nested tables, thousands of inline styles, long unbroken words,
//! a `<pre>` of a million columns, floods of links, entities, line breaks and misnested formatting. Each case is
//! generated at about the size asked for (the deep `<div>`s at the 100,000 levels the attack used), so the fuzz
//! tests run them small and often and the `hostile` benchmark runs them at full size, timed and measured.
#![allow(dead_code)]

/// One hostile document, generated on demand (each is about a megabyte).
pub(crate) struct Case {
    pub name: &'static str,
    make: fn(usize) -> String,
}

impl Case {
    /// The document, about `bytes` long.
    pub(crate) fn html(&self, bytes: usize) -> String {
        let html = (self.make)(bytes);
        if html.is_empty() { "x".to_string() } else { html }
    }
}

/// `unit` repeated until the text is about `bytes` long (at least once).
fn fill(unit: &str, bytes: usize) -> String {
    unit.repeat((bytes / unit.len().max(1)).max(1))
}

/// `open` nested `levels` deep around `inner`, each level closed by `close`.
fn nest(open: &str, inner: &str, close: &str, levels: usize) -> String {
    let mut html = String::with_capacity(levels * (open.len() + close.len()) + inner.len());
    for _ in 0..levels {
        html.push_str(open);
    }
    html.push_str(inner);
    for _ in 0..levels {
        html.push_str(close);
    }
    html
}

/// How many levels of `open` + `close` make about `bytes`.
fn levels(open: &str, close: &str, bytes: usize) -> usize {
    (bytes / (open.len() + close.len())).max(1)
}

/// The last words of [`deep_divs`]: a test asserts they survive rendering.
pub(crate) const DEEP_LAST_WORDS: &str = "the deepest words";

/// The attack's document: 100,000 nested `<div>`s around a few words (1.1 MB; the words sit in its first
/// 512 KB, so they are within what the renderer reads).
pub(crate) fn deep_divs() -> String {
    nest("<div>", DEEP_LAST_WORDS, "</div>", 100_000)
}

/// Every case (the deep `<div>`s always at the attack's 100,000 levels, whatever the size asked). A case made of
/// two parts puts both in its first quarter and half, so that both are within what the renderer reads.
pub(crate) fn cases() -> Vec<Case> {
    vec![
        Case { name: "deep-divs-100k", make: |_| deep_divs() },
        Case {
            name: "deep-divs-with-text",
            make: |bytes| nest("<div>level ", "last", "</div>", levels("<div>level ", "</div>", bytes)),
        },
        Case { name: "deep-unclosed-spans", make: |bytes| fill("<span>w ", bytes) },
        Case {
            name: "deep-inline-links",
            make: |bytes| {
                nest(
                    "<a href=\"/x\"><b><i>",
                    "last",
                    "</i></b></a>",
                    levels("<a href=\"/x\"><b><i>", "</i></b></a>", bytes),
                )
            },
        },
        Case {
            name: "deep-blockquotes",
            make: |bytes| {
                nest(
                    "<blockquote>quoted ",
                    "last",
                    "</blockquote>",
                    levels("<blockquote>quoted ", "</blockquote>", bytes),
                )
            },
        },
        Case {
            name: "deep-lists",
            make: |bytes| nest("<ul><li>item ", "last", "</li></ul>", levels("<ul><li>item ", "</li></ul>", bytes)),
        },
        Case {
            name: "deep-ordered-lists",
            make: |bytes| {
                nest(
                    "<ol start=\"999999\"><li>",
                    "last",
                    "</li></ol>",
                    levels("<ol start=\"999999\"><li>", "</li></ol>", bytes),
                )
            },
        },
        Case {
            name: "deep-definition-lists",
            make: |bytes| {
                nest(
                    "<dl><dt>term</dt><dd>",
                    "last",
                    "</dd></dl>",
                    levels("<dl><dt>term</dt><dd>", "</dd></dl>", bytes),
                )
            },
        },
        Case {
            name: "deep-tables",
            make: |bytes| {
                nest(
                    "<table><tr><td>cell ",
                    "last",
                    "</td></tr></table>",
                    levels("<table><tr><td>cell ", "</td></tr></table>", bytes),
                )
            },
        },
        Case {
            name: "deep-headings-in-quotes",
            make: |bytes| {
                nest(
                    "<blockquote><h2>",
                    "last",
                    "</h2></blockquote>",
                    levels("<blockquote><h2>", "</h2></blockquote>", bytes),
                )
            },
        },
        Case {
            name: "deep-svg",
            make: |bytes| {
                format!(
                    "<p>before</p>{}",
                    nest("<svg><g>", "<text>last</text>", "</g></svg>", levels("<svg><g>", "</g></svg>", bytes))
                )
            },
        },
        Case { name: "deep-formatting-misnested", make: |bytes| fill("<b><i>x</b></i>", bytes) },
        Case {
            name: "formatting-reopened-per-paragraph",
            make: |bytes| {
                // Unclosed formatting elements, each different, reopened by the parser in every paragraph.
                let open: String = (0..2000).map(|i| format!("<b class=\"c{i}\">")).collect();
                format!("{open}{}", fill("<p>paragraph</p>", bytes.saturating_sub(open.len())))
            },
        },
        Case {
            name: "huge-table",
            make: |bytes| {
                let row = format!("<tr>{}</tr>", "<td>cell text</td>".repeat(20));
                format!("<table>{}</table>", fill(&row, bytes))
            },
        },
        Case { name: "wide-table", make: |bytes| format!("<table><tr>{}</tr></table>", fill("<td>c</td>", bytes)) },
        Case {
            name: "colspan-rowspan-bomb",
            make: |bytes| {
                format!(
                    "<table>{}</table>",
                    fill("<tr><td colspan=\"100000000\" rowspan=\"65534\">x</td><td>y</td></tr>", bytes)
                )
            },
        },
        Case {
            name: "inline-styles",
            make: |bytes| {
                fill(
                    "<span style=\"color:#123456;background:#fff;font-weight:bold;margin:0 1px;display:inline\">styled</span> ",
                    bytes,
                )
            },
        },
        Case {
            name: "attributes-galore",
            make: |bytes| {
                let attrs: String = (0..200).map(|i| format!(" data-a{i}=\"v{i}\"")).collect();
                fill(&format!("<p{attrs}>text</p>"), bytes)
            },
        },
        Case { name: "long-word", make: |bytes| format!("<p>{}</p>", "a".repeat(bytes)) },
        Case { name: "long-word-in-link", make: |bytes| format!("<p><a href=\"/x\">{}</a></p>", "b".repeat(bytes)) },
        Case { name: "wide-pre", make: |bytes| format!("<pre>{}</pre>", "x".repeat(bytes)) },
        Case {
            name: "pre-of-blank-lines-then-blocks",
            make: |bytes| {
                format!("<blockquote><pre>{}</pre>{}</blockquote>", "\n".repeat(bytes / 4), fill("<p>x</p>", bytes / 4))
            },
        },
        Case {
            name: "line-breaks-then-blocks",
            make: |bytes| {
                format!("<blockquote>{}{}</blockquote>", "<br>".repeat(bytes / 16), fill("<p>x</p>", bytes / 4))
            },
        },
        Case { name: "line-breaks", make: |bytes| fill("<br>", bytes) },
        Case {
            name: "many-links",
            make: |bytes| {
                fill("<a href=\"https://example.com/a/long/path?with=query&amp;and=more\">a link</a> ", bytes)
            },
        },
        Case { name: "many-images", make: |bytes| fill("<img src=\"/i.png\" alt=\"a picture\">", bytes) },
        Case {
            name: "entities",
            make: |bytes| format!("<p>{}</p>", fill("&amp;&lt;&#x1F600;&nbsp;&eacute;&#0;&#xD800;", bytes)),
        },
        Case { name: "comments", make: |bytes| fill("<!-- a comment -->x", bytes) },
        Case { name: "many-paragraphs", make: |bytes| fill(&format!("<p>{}</p>", "lorem ".repeat(12)), bytes) },
        Case {
            name: "cjk-without-spaces",
            make: |bytes| format!("<p>{}</p>", fill("東京の天気は晴れ時々曇りでした記者Andrewが伝えました", bytes)),
        },
        Case { name: "unclosed-block-soup", make: |bytes| fill("<p>a<li>b<dd>c<dt>d<td>e<tr>f<option>g", bytes) },
        Case { name: "table-soup", make: |bytes| fill("<table>text<tr>row<table>inner", bytes) },
        Case {
            name: "ordered-list-number-overflow",
            make: |bytes| format!("<ol start=\"9223372036854775807\">{}</ol>", fill("<li>item</li>", bytes)),
        },
        Case {
            name: "scripts-and-styles",
            make: |bytes| fill("<script>if (a < b) { x = '</div>'; }</script><style>p{}</style>t ", bytes),
        },
        Case {
            name: "plaintext",
            make: |bytes| format!("<p>a</p><plaintext>{}", fill("<div>not markup</div>", bytes)),
        },
    ]
}

/// A hostile body served as a whole web page (for the article extractor), with a title and a real article
/// after it, so that extraction has something to find.
pub(crate) fn page(body: &str) -> String {
    let article = "<p>Terminal feed readers have a long history, from the mail-like interfaces of the nineties to \
                   today's keyboard-driven tools. What they share is a focus on text: the article as its author wrote \
                   it, without the trackers, the autoplaying video and the newsletter pop-up.</p>"
        .repeat(3);
    format!(
        "<!doctype html><html><head><title>A hostile page</title></head><body><article><h1>A hostile page</h1>\
         {article}</article><div class=\"content\">{body}</div></body></html>"
    )
}
