//! Every feed format and every kind of breakage tidings recovers from, read from fixtures written for the
//! project (tests/fixtures), through the same decode + parse path the reader uses.

use tidings::ingest::{Ingested, ingest};
use tidings::model::{FeedKind, ParsedEntry};

fn read(name: &str, url: Option<&str>) -> Ingested {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    ingest(&bytes, None, url, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn titles(entries: &[ParsedEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.title.as_deref().unwrap_or("")).collect()
}

fn date(e: &ParsedEntry) -> String {
    e.published.map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_default()
}

#[test]
fn rss_090() {
    let f = read("rss090.xml", None).feed;
    assert_eq!(f.kind, FeedKind::Rss1);
    assert_eq!(f.title.as_deref(), Some("Old Netscape News"));
    assert_eq!(titles(&f.entries), vec!["First headline", "Second headline"]);
    assert_eq!(f.entries[1].link.as_deref(), Some("http://news.example.com/2"));
}

#[test]
fn rss_091_with_items_after_the_channel() {
    let r = read("rss091.xml", None);
    assert_eq!(r.decision.encoding, "windows-1252");
    assert_eq!(r.feed.kind, FeedKind::Rss0);
    assert_eq!(titles(&r.feed.entries), vec!["Café opens"]);
    assert!(r.feed.warnings.iter().any(|w| w.contains("follow </channel>")), "{:?}", r.feed.warnings);
}

#[test]
fn rss_092_with_an_enclosure_and_no_title() {
    let f = read("rss092.xml", None).feed;
    assert_eq!(f.kind, FeedKind::Rss0);
    let e = &f.entries[0];
    assert_eq!(e.display_title().as_deref(), Some("This week: an hour of field recordings from the harbour"));
    assert_eq!(e.title, None);
    assert_eq!(e.enclosures.len(), 1);
    assert_eq!(e.enclosures[0].url, "http://radio.example.com/show1.mp3");
    assert_eq!(e.enclosures[0].media_type.as_deref(), Some("audio/mpeg"));
    assert_eq!(e.enclosures[0].length, Some(12_345_678));
}

#[test]
fn rss_20_with_everything_an_item_carries() {
    let f = read("rss20.xml", Some("https://blog.example.com/feed.xml")).feed;
    assert_eq!(f.kind, FeedKind::Rss2);
    let e = &f.entries[0];
    assert_eq!(e.title.as_deref(), Some("Release 1.0 is out"), "tags are stripped from titles");
    assert_eq!(e.key, "urn:uuid:7c9e6679");
    assert_eq!(e.authors, ["Ann Author"]);
    assert_eq!(e.categories, vec!["releases", "rust"]);
    assert_eq!(e.comments.as_deref(), Some("https://blog.example.com/posts/release-1-0/#comments"));
    assert_eq!(e.thumbnail.as_deref(), Some("https://blog.example.com/media/demo.jpg"));
    assert_eq!(e.enclosures[0].url, "https://blog.example.com/media/demo.mp4");
    assert!(e.content_html.as_deref().unwrap().contains("<h2>What is new</h2>"), "content:encoded beats description");
    assert_eq!(e.summary_html.as_deref(), Some("Short summary."));
    assert_eq!(date(e), "2025-06-10T04:00:00Z");

    let e = &f.entries[1];
    assert_eq!(e.key, "https://blog.example.com/posts/no-guid", "no guid: the canonical link is the identity");
    assert_eq!(date(e), "2025-06-09T06:30:00Z", "dc:date beats pubDate");
    assert_eq!(e.authors, ["Bob Builder"], "the address is never shown");
}

#[test]
fn rss_10_with_dublin_core() {
    let f = read("rss10.xml", None).feed;
    assert_eq!(f.kind, FeedKind::Rss1);
    let e = &f.entries[0];
    assert_eq!(e.title.as_deref(), Some("A comet returns"));
    assert_eq!(date(e), "2025-03-01T22:15:00Z");
    assert_eq!(e.authors, ["Carla Sagan"]);
    assert_eq!(e.categories, vec!["astronomy", "comets"]);
}

#[test]
fn atom_10_content_kinds_and_relative_links() {
    let f = read("atom10.xml", Some("https://atom.example.com/blog/feed.atom")).feed;
    assert_eq!(f.kind, FeedKind::Atom);
    assert_eq!(f.title.as_deref(), Some("Atom & Friends"), "an html title is read as HTML, then as text");
    assert_eq!(f.link.as_deref(), Some("https://atom.example.com/blog/"));
    assert_eq!(titles(&f.entries), vec!["HTML content", "XHTML content", "Text content"]);
    let html = &f.entries[0];
    assert_eq!(html.link.as_deref(), Some("https://atom.example.com/blog/posts/one"));
    assert_eq!(html.content_html.as_deref(), Some("<p>An <em>HTML</em> body.</p>"));
    assert_eq!(html.summary_html.as_deref(), Some("The summary loses to the content."));
    assert_eq!(date(html), "2025-06-10T09:00:00Z", "published beats updated");
    assert_eq!(html.categories, vec!["The Web"]);
    assert_eq!(html.authors, ["Dana"]);
    let xhtml = &f.entries[1];
    assert!(xhtml.content_html.as_deref().unwrap().contains("<strong>XHTML</strong>"));
    assert_eq!(xhtml.authors, ["erin"], "only an address: its name part");
    assert_eq!(date(xhtml), "2025-06-09T10:00:00Z");
    let text = &f.entries[2];
    assert_eq!(text.content_html.as_deref(), Some("Plain text with &lt;angle brackets&gt; &amp; ampersands."));
}

#[test]
fn atom_03() {
    let r = read("atom03.xml", None);
    assert_eq!(r.feed.kind, FeedKind::Atom);
    assert_eq!(r.feed.title.as_deref(), Some("Old Atom"));
    let e = &r.feed.entries[0];
    assert_eq!(e.title.as_deref(), Some("An old entry"));
    assert_eq!(date(e), "2005-07-29T09:05:33Z");
    assert_eq!(e.content_html.as_deref(), Some("<p>Escaped <b>HTML</b>.</p>"));
    assert!(r.feed.warnings.iter().any(|w| w.contains("Atom 0.3")));
}

#[test]
fn json_feed_10_and_11() {
    let f = read("jsonfeed10.json", None).feed;
    assert_eq!(f.kind, FeedKind::Json);
    let e = &f.entries[0];
    assert_eq!(e.title.as_deref(), Some("Hello JSON"));
    assert_eq!(e.link.as_deref(), Some("https://json.example.com/hello"));
    assert_eq!(date(e), "2025-05-01T16:00:00Z");
    assert_eq!(e.authors, ["Jay Son"]);
    assert_eq!(e.categories, vec!["json", "feeds"]);

    let f = read("jsonfeed11.json", None).feed;
    let e = &f.entries[0];
    assert_eq!(e.title, None);
    assert_eq!(e.display_title().as_deref(), Some("Only text here, and no title"));
    assert_eq!(date(e), "2025-05-02T10:00:00Z");
    assert_eq!(e.authors, ["Ada"]);
    assert_eq!(e.enclosures[0].url, "https://json11.example.com/a.mp3");
}

#[test]
fn json_feed_as_loosely_written_as_the_wild_writes_it_is_read_whole() {
    let r = read("jsonfeed-loose.json", Some("https://loose.example/blog/feed.json"));
    let f = &r.feed;
    assert_eq!(f.kind, FeedKind::Json);
    assert_eq!(f.title.as_deref(), Some("Loose & relative"));
    assert_eq!(f.link.as_deref(), Some("https://loose.example/blog/"));
    assert!(f.warnings.iter().any(|w| w.contains("states no version")), "{:?}", f.warnings);
    assert!(f.warnings.iter().any(|w| w.starts_with("1 date(s) had no time zone")), "{:?}", f.warnings);
    assert_eq!(f.entries.len(), 3, "the item that is not an object is skipped");

    let e = &f.entries[0];
    assert_eq!(e.key, "101", "a numeric id");
    assert_eq!(e.link.as_deref(), Some("https://loose.example/blog/posts/101"));
    assert_eq!(e.thumbnail.as_deref(), Some("https://loose.example/img/101.png"));
    assert_eq!(e.authors, ["Feed Keeper"], "an author given as a string, inherited");
    assert_eq!(e.categories, ["loose", "2025"]);
    assert_eq!(
        (date(e).as_str(), e.updated.map(|d| d.to_rfc3339())),
        ("2025-07-01T07:00:00Z", Some("2025-07-02T09:00:00+00:00".into()))
    );
    assert_eq!((e.content_html.as_deref(), e.summary_html.as_deref()), (Some("<p>Body</p>"), Some("Short")));
    assert_eq!(e.enclosures.len(), 1, "an attachment without an address is skipped");
    assert_eq!(e.enclosures[0].url, "https://loose.example/blog/media/101.mp3");
    assert_eq!((e.enclosures[0].media_type.as_deref(), e.enclosures[0].length), (None, Some(4096)));

    let e = &f.entries[1];
    assert_eq!(e.link.as_deref(), Some("https://elsewhere.example/story"));
    assert_eq!(e.content_html.as_deref(), Some("<p>Plain &lt;text&gt; here.</p>"), "content_text becomes paragraphs");
    assert_eq!(e.authors, ["Guest Writer"]);

    let e = &f.entries[2];
    assert!(e.key.starts_with("hash:"), "{}", e.key);
    assert_eq!(date(e), "2025-07-03T08:00:00Z");
}

#[test]
fn html_entities_become_characters() {
    let r = read("quirk-entities.xml", None);
    assert_eq!(r.feed.title.as_deref(), Some("Café Society"));
    assert_eq!(titles(&r.feed.entries), vec!["Fish & Chips — “classic”"]);
}

#[test]
fn bare_ampersands_are_escaped() {
    let r = read("quirk-bare-ampersand.xml", None);
    assert_eq!(r.feed.title.as_deref(), Some("AT&T Bulletins"));
    assert_eq!(r.feed.entries[0].title.as_deref(), Some("R&D spending up"));
    assert_eq!(r.feed.entries[0].link.as_deref(), Some("http://q.example.com/rd?x=1&y=2"));
}

#[test]
fn rss_without_a_version() {
    let r = read("quirk-no-version.xml", None);
    assert_eq!(titles(&r.feed.entries), vec!["Still read"]);
    assert!(r.feed.warnings.iter().any(|w| w.contains("version")));
}

#[test]
fn control_characters_are_dropped() {
    let r = read("quirk-control-chars.xml", None);
    assert_eq!(r.feed.title.as_deref(), Some("Control chars"));
    assert_eq!(titles(&r.feed.entries), vec!["Bell and escape here"], "an escape sequence goes whole");
}

#[test]
fn junk_before_and_after_the_root_is_ignored() {
    let r = read("quirk-junk-around.xml", None);
    assert_eq!(r.feed.title.as_deref(), Some("Noisy PHP"));
    assert_eq!(titles(&r.feed.entries), vec!["Behind the warning"]);
}

#[test]
fn a_truncated_feed_keeps_the_entries_before_the_cut() {
    let r = read("quirk-truncated.xml", None);
    assert_eq!(&titles(&r.feed.entries)[..2], ["Complete one", "Complete two"]);
    assert!(r.feed.warnings.iter().any(|w| w.contains("truncated")), "{:?}", r.feed.warnings);
}

#[test]
fn dates_in_every_shape_feeds_use() {
    let r = read("quirk-dates.xml", None);
    let dates: Vec<String> = r.feed.entries.iter().map(date).collect();
    assert_eq!(
        dates,
        vec![
            "2025-06-10T09:00:00Z",
            "2025-06-10T04:00:00Z",
            "2025-06-10T04:00:00Z",
            "2025-06-10T04:00:00Z",
            "2024-01-15T00:00:00Z",
            "2024-01-15T00:00:00Z",
            "2024-01-15T00:00:00Z",
            "2024-06-10T06:13:20Z",
            "",
        ]
    );
    assert!(r.feed.warnings.iter().any(|w| w.contains("no time zone")), "{:?}", r.feed.warnings);
}

#[test]
fn relative_links_resolve_against_xml_base_then_the_site() {
    let f = read("quirk-relative-links.xml", Some("https://feeds.example.com/rel.atom")).feed;
    assert_eq!(f.entries[0].link.as_deref(), Some("https://base.example.com/dir/page.html"));
    assert_eq!(f.entries[1].link.as_deref(), Some("https://rel.example.com/site/other.html"));
}

#[test]
fn missing_titles_fall_back_to_media_and_dublin_core_and_are_shown_by_their_text() {
    let f = read("quirk-no-titles.xml", None).feed;
    assert_eq!(titles(&f.entries), vec!["", "From media:title", "From dc:title"]);
    assert_eq!(f.entries[0].title, None, "the feed gives no title: none is made up");
    assert_eq!(f.entries[0].display_title().as_deref(), Some("The first line becomes the title"));
}

fn plain(html: Option<&str>) -> String {
    tidings::text::html_to_plain(html.unwrap_or(""))
}

#[test]
fn atom_text_constructs_are_read_by_rfc_4287() {
    let f = read("atom-text-constructs.xml", None).feed;
    assert_eq!(f.title.as_deref(), Some("Markup <tags> &amp; their names"), "type=text is literal");
    assert_eq!(
        titles(&f.entries),
        vec!["History of the <blink> tag", "Escaped HTML & an entity", "Inline XHTML", "<title>"]
    );
    let e = &f.entries;
    assert_eq!(e[0].content_html.as_deref(), Some("The &lt;details&gt; element &amp;amp; more"));
    assert_eq!(plain(e[1].content_html.as_deref()), "Example test left unescaped", "naked markup keeps its text");
    assert_eq!(plain(e[2].content_html.as_deref()), "Styled text", "style and script go with their content");
    assert_eq!(plain(e[3].content_html.as_deref()), "Shown as the summary");
}

#[test]
fn atom_entries_without_authors_inherit_the_feeds() {
    let f = read("atom-text-constructs.xml", None).feed;
    assert!(f.entries.iter().all(|e| e.authors == ["Feed Author"]), "{:?}", f.entries);
}

#[test]
fn untyped_rss_titles_are_html_only_on_evidence() {
    let f = read("rss-untyped-text.xml", None).feed;
    assert_eq!(f.title.as_deref(), Some("Naked markup title"));
    assert_eq!(
        titles(&f.entries),
        vec!["Nice <gorilla> what's he weigh?", "A<B", "The & entity", "Bold news", "Fish & chips <3", "Linked title",]
    );
}

#[test]
fn rss_metadata_falls_back_through_dublin_core_atom_and_itunes() {
    let f = read("rss-fallbacks.xml", Some("https://fallback.example.com/feed.xml")).feed;
    assert_eq!(f.title.as_deref(), Some("Fallback Weekly"), "dc:title");
    assert_eq!(f.link.as_deref(), Some("https://fallback.example.com/"), "atom:link rel=alternate, not self");
    assert_eq!(f.authors, ["Eda Editor"], "managingEditor");
    let [first, second, third] = &f.entries[..] else { panic!("three entries: {:?}", f.entries) };
    assert_eq!(first.link.as_deref(), Some("https://fallback.example.com/posts/1"), "a guid is a permalink");
    assert_eq!(first.authors, ["First Writer", "Second Writer"], "every dc:creator");
    assert_eq!(date(first), "2025-06-01T06:00:00Z", "dcterms:issued");
    assert_eq!(first.content_html.as_deref(), Some("Summary from iTunes"));
    assert_eq!(second.link.as_deref(), Some("https://fallback.example.com/posts/2"), "atom:link");
    assert_eq!(second.key, "urn:fallback:2", "atom:id");
    assert_eq!(second.authors, ["Pod Host"], "itunes:author");
    assert_eq!(date(second), "2025-06-02T08:00:00Z", "atom:published");
    assert_eq!(second.content_html.as_deref(), Some("Summary from Dublin Core"));
    assert_eq!(third.link, None, "isPermaLink=false");
    assert_eq!(third.key, "fallback-3");
    assert_eq!(third.authors, ["Atom Author"], "atom:author");
    assert_eq!(date(third), "2025-06-03T00:00:00Z", "dc:date");
}

#[test]
fn rss_items_without_a_channel_are_read_with_a_warning() {
    let r = read("rss-no-channel.xml", None);
    assert_eq!(titles(&r.feed.entries), vec!["An item with no channel", "Another"]);
    assert!(r.feed.warnings.iter().any(|w| w.contains("no <channel>")), "{:?}", r.feed.warnings);
}

#[test]
fn atom_03_plain_escaped_base64_and_inline_constructs() {
    let r = read("atom03-modes.xml", None);
    let f = &r.feed;
    assert_eq!(f.title.as_deref(), Some("Plain <typed> title"), "type=\"plain\" is text");
    assert_eq!(titles(&f.entries), vec!["Escaped title", "Encoded & plain"]);
    assert_eq!(f.entries[0].content_html.as_deref(), Some("<p>Base <b>64</b></p>"), "mode=base64");
    assert_eq!(plain(f.entries[1].content_html.as_deref()), "Inline markup (mode=\"xml\")");
    assert_eq!(date(&f.entries[1]), "2005-07-30T09:05:33Z", "modified when nothing was issued");
    assert!(f.entries.iter().all(|e| e.authors == ["Zero Three"]));
    assert!(r.feed.warnings.iter().any(|w| w.contains("Atom 0.3")), "{:?}", r.feed.warnings);
}

#[test]
fn json_feed_whose_version_is_a_number_is_read_by_its_structure() {
    let r = read("jsonfeed-versions.json", None);
    let f = &r.feed;
    assert_eq!(f.title.as_deref(), Some("Versioned & loose"));
    assert_eq!(f.entries[0].key, "1", "a numeric id");
    assert_eq!(f.entries[0].authors, ["Site Author"], "items inherit the feed's authors");
    assert_eq!(date(&f.entries[0]), "2025-06-10T06:00:00Z");
    assert_eq!(f.entries[1].title, None);
    assert_eq!(f.entries[1].authors, ["Old Style", "New Style"], "author (1.0) and authors (1.1)");
    assert!(f.warnings.iter().any(|w| w.contains("\"1.1\"")), "{:?}", f.warnings);
}
