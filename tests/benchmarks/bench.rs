//! Benchmarks, run with `cargo bench --bench bench -- [decode|parse|render]` (all of them without an argument). They print
//! figures; they assert nothing, since a shared two-core machine is too noisy for timed tests.

use std::time::{Duration, Instant};

/// Runs `f` repeatedly for about `budget`, returning the number of runs and the time they took.
fn repeat(budget: Duration, mut f: impl FnMut()) -> (u32, Duration) {
    f(); // warm up
    let start = Instant::now();
    let mut runs = 0;
    while start.elapsed() < budget {
        f();
        runs += 1;
    }
    (runs, start.elapsed())
}

fn mb_per_s(bytes: usize, runs: u32, elapsed: Duration) -> f64 {
    (bytes as f64 * f64::from(runs)) / elapsed.as_secs_f64() / 1e6
}

/// A typical RSS 2.0 feed of `items` items: mostly ASCII markup, titles and bodies with some non-ASCII text.
fn typical_rss(items: usize) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><channel><title>Bench — a typical feed</title>\
         <link>https://example.com/</link><description>Numbers for tidings</description>\n",
    );
    for i in 0..items {
        xml.push_str(&format!(
            "<item><title>Entry {i}: café, naïve, Grüße, Привет, 日本語</title><link>https://example.com/posts/{i}</link>\
             <guid isPermaLink=\"false\">urn:bench:{i}</guid><pubDate>Tue, 10 Jun 2025 04:{:02}:00 GMT</pubDate>\
             <dc:creator>Ann Author</dc:creator><description>&lt;p&gt;Summary of entry {i} with &amp;amp; entities.&lt;/p&gt;</description>\
             <content:encoded><![CDATA[<p>Paragraph one of entry {i}. Lorem ipsum dolor sit amet, consectetur adipiscing \
             elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.</p>\
             <p>Paragraph two — with <a href=\"https://example.com/{i}\">a link</a> and <b>bold</b> text, \
             «quotes» and emoji 🎉.</p>]]></content:encoded></item>\n",
            i % 60
        ));
    }
    xml.push_str("</channel></rss>\n");
    xml
}

fn decode() {
    use tidings::decode::{Options, decode_with};
    let feed = typical_rss(2000);
    let bytes = feed.as_bytes();
    let labelled = Options { content_type: Some("application/rss+xml; charset=utf-8"), ..Options::default() };
    let (runs, elapsed) = repeat(Duration::from_secs(2), || {
        let (len, _) = decode_with::<_, ()>(bytes, &labelled, |text| Ok(text.len())).expect("decodes");
        std::hint::black_box(len);
    });
    println!(
        "decode: well-labelled UTF-8, {:.1} MB document: {:.0} MB/s ({runs} runs)",
        bytes.len() as f64 / 1e6,
        mb_per_s(bytes.len(), runs, elapsed)
    );

    // The fallback path for comparison: KOI8-R served as text/html with a declaration saying utf-8.
    let koi8 =
        encoding_rs::KOI8_R.encode(&feed.replace("café, naïve, Grüße, ", "").replace("日本語", "")).0.into_owned();
    let mislabelled = Options { content_type: Some("text/html"), ..Options::default() };
    let (runs, elapsed) = repeat(Duration::from_secs(2), || {
        let (len, d) = decode_with::<_, ()>(&koi8, &mislabelled, |text| Ok(text.len())).expect("decodes");
        assert_eq!(d.encoding, "KOI8-R");
        std::hint::black_box(len);
    });
    println!(
        "decode: KOI8-R served as text/html (lenient chain and detector), {:.1} MB: {:.0} MB/s ({runs} runs)",
        koi8.len() as f64 / 1e6,
        mb_per_s(koi8.len(), runs, elapsed)
    );
}

fn parse() {
    let feed = typical_rss(2000);
    let bytes = feed.as_bytes();
    let (runs, elapsed) = repeat(Duration::from_secs(3), || {
        let parsed = tidings::ingest::ingest(
            bytes,
            Some("application/rss+xml; charset=utf-8"),
            Some("https://example.com/feed"),
            None,
        )
        .expect("parses");
        assert_eq!(parsed.feed.entries.len(), 2000);
        std::hint::black_box(parsed);
    });
    println!(
        "parse: typical RSS 2.0, {:.1} MB, 2000 items, decode + parse + map on one core: {:.0} MB/s ({:.1} ms a run, {runs} runs)",
        bytes.len() as f64 / 1e6,
        mb_per_s(bytes.len(), runs, elapsed),
        elapsed.as_secs_f64() * 1e3 / f64::from(runs)
    );
}

/// An article of about `bytes` bytes of typical HTML: paragraphs with links and emphasis, headings, a list.
fn article_html(bytes: usize) -> String {
    let mut html = String::new();
    let mut i = 0;
    while html.len() < bytes {
        i += 1;
        if i % 10 == 1 {
            html.push_str(&format!("<h2>Section {i}</h2>"));
        }
        html.push_str(&format!(
            "<p>Paragraph {i}: a reader wants <b>clean</b> text, <i>proper</i> wrapping and <a href=\"/link/{i}\">links</a> \
             that can be followed. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>"
        ));
        if i % 7 == 0 {
            html.push_str("<ul><li>one point</li><li>another point</li></ul>");
        }
    }
    html
}

fn render() {
    let html = article_html(100 * 1024);
    let (runs, elapsed) = repeat(Duration::from_secs(3), || {
        let rendered = tidings::render::render_article(&html, 80, Some("https://example.com/post"));
        std::hint::black_box(rendered);
    });
    println!(
        "render: {} KB article at 80 columns: {:.1} ms a render ({runs} runs)",
        html.len() / 1024,
        elapsed.as_secs_f64() * 1e3 / f64::from(runs)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let all = args.is_empty();
    let wants = |name: &str| all || args.iter().any(|a| a == name);
    if wants("decode") {
        decode();
    }
    if wants("parse") {
        parse();
    }
    if wants("render") {
        render();
    }
}
