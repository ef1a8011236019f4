//! Benchmarks, run with `cargo bench --bench bench -- [decode|parse|render|refresh]` (all of them without an
//! argument; `refresh --feeds N --items M` sizes the refresh one). They print figures and assert nothing: a shared
//! two-core machine is too noisy for timed tests.

#[path = "../support/mod.rs"]
mod support;

use support::{Measured, measure, server};

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

fn arg_value(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn refresh(args: &[String]) {
    let feeds = arg_value(args, "--feeds", 1000);
    let items = arg_value(args, "--items", 50);
    let server = server::Server::start();
    let mut urls = Vec::with_capacity(feeds);
    for f in 0..feeds {
        let mut xml = format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>Feed {f}</title>\
             <link>http://127.0.0.1/{f}/</link><description>bench</description>"
        );
        for i in 0..items {
            xml.push_str(&format!(
                "<item><title>Feed {f} item {i}</title><link>http://127.0.0.1/{f}/{i}</link><guid>f{f}-i{i}</guid>\
                 <pubDate>Tue, 10 Jun 2025 04:{:02}:00 GMT</pubDate><description>&lt;p&gt;Item {i} of feed {f}: \
                 a paragraph of ordinary text, as feeds carry.&lt;/p&gt;</description></item>",
                i % 60
            ));
        }
        xml.push_str("</channel></rss>");
        let path = format!("/feed/{f}.xml");
        server.route(
            &path,
            server::Reply::ok("application/rss+xml; charset=utf-8", xml).with_header("ETag", &format!("\"v{f}\"")),
        );
        urls.push(server.url(&path));
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("bench.db");
    let opml: String = urls.iter().map(|u| format!("<outline type=\"rss\" text=\"{u}\" xmlUrl=\"{u}\"/>")).collect();
    let opml_path = dir.path().join("feeds.opml");
    std::fs::write(&opml_path, format!("<opml version=\"2.0\"><body>{opml}</body></opml>")).expect("write opml");
    // All feeds share one host here, so the per-host limit is the global one (as newsboat's threads are).
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "concurrency = 16\nper_host_concurrency = 16\n").expect("write config");
    let tidings = |sub: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tidings"));
        cmd.env("HOME", dir.path()).arg("--config").arg(&config).arg("--db").arg(&db).args(sub);
        cmd
    };
    let import = measure(&mut tidings(&["import", opml_path.to_str().expect("utf-8 path")]));
    assert!(import.output.status.success(), "import failed");
    let cold = measure(&mut tidings(&["refresh"]));
    let warm = measure(&mut tidings(&["refresh"]));
    let unread = measure(&mut tidings(&["unread"]));
    let ok = |m: &Measured| m.output.status.success();
    assert!(ok(&cold) && ok(&warm) && ok(&unread), "a tidings run failed:\n{}", support::stdout(&cold.output));
    let total_line = support::stdout(&unread.output).lines().last().unwrap_or("").trim().to_string();
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    println!("refresh: {feeds} feeds × {items} items from 127.0.0.1 ({})", total_line);
    println!("  tidings cold refresh     {:>8.3} s   peak RSS {:>6.1} MB", cold.wall.as_secs_f64(), mb(cold.peak_rss));
    println!("  tidings all-304 refresh  {:>8.3} s   peak RSS {:>6.1} MB", warm.wall.as_secs_f64(), mb(warm.peak_rss));
    println!(
        "  tidings unread           {:>8.3} s   peak RSS {:>6.1} MB",
        unread.wall.as_secs_f64(),
        mb(unread.peak_rss)
    );

    let has_newsboat =
        std::process::Command::new("newsboat").arg("--version").output().is_ok_and(|o| o.status.success());
    if !has_newsboat {
        println!("  newsboat: not installed (apt-get install newsboat), no comparison");
        return;
    }
    let urls_file = dir.path().join("urls");
    std::fs::write(&urls_file, urls.join("\n") + "\n").expect("write urls");
    let nb_config = dir.path().join("newsboat.conf");
    std::fs::write(&nb_config, "reload-threads 10\nshow-read-feeds yes\n").expect("write newsboat config");
    let cache = dir.path().join("newsboat.db");
    let newsboat = |sub: &[&str]| {
        let mut cmd = std::process::Command::new("newsboat");
        cmd.env("HOME", dir.path()).arg("-u").arg(&urls_file).arg("-c").arg(&cache).arg("-C").arg(&nb_config).args(sub);
        cmd
    };
    let nb_cold = measure(&mut newsboat(&["-x", "reload"]));
    let nb_warm = measure(&mut newsboat(&["-x", "reload"]));
    let nb_unread = measure(&mut newsboat(&["-x", "print-unread"]));
    let ratio = |a: &Measured, b: &Measured| b.wall.as_secs_f64() / a.wall.as_secs_f64().max(1e-9);
    println!(
        "  newsboat cold reload     {:>8.3} s   peak RSS {:>6.1} MB   tidings is {:.1}× faster",
        nb_cold.wall.as_secs_f64(),
        mb(nb_cold.peak_rss),
        ratio(&cold, &nb_cold)
    );
    println!(
        "  newsboat second reload   {:>8.3} s   peak RSS {:>6.1} MB   tidings is {:.1}× faster",
        nb_warm.wall.as_secs_f64(),
        mb(nb_warm.peak_rss),
        ratio(&warm, &nb_warm)
    );
    println!(
        "  newsboat print-unread    {:>8.3} s   peak RSS {:>6.1} MB   tidings is {:.1}× faster ({})",
        nb_unread.wall.as_secs_f64(),
        mb(nb_unread.peak_rss),
        ratio(&unread, &nb_unread),
        support::stdout(&nb_unread.output).trim()
    );
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let modes: Vec<&String> = raw
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !raw[i - 1].starts_with("--")))
        .map(|(_, a)| a)
        .collect();
    let all = modes.is_empty();
    let wants = |name: &str| all || modes.iter().any(|a| *a == name);
    if wants("decode") {
        decode();
    }
    if wants("parse") {
        parse();
    }
    if wants("render") {
        render();
    }
    if wants("refresh") {
        refresh(&raw);
    }
}
