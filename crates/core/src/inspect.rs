//! `tidings inspect`: what one feed document is, and why it reads the way it does — as a story for people and
//! as JSON for tools. Pure: the command fetches or reads the bytes and hands them here.

use crate::decode::Decision;
use crate::ingest::{IngestError, ingest};
use crate::model::ParsedFeed;
use crate::sanitize::one_line;
use serde_json::{Value, json};

/// What the HTTP exchange said, for a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Http {
    pub status: u16,
    pub content_type: Option<String>,
    pub final_url: String,
}

/// Everything inspect knows about one document.
#[derive(Debug)]
pub struct Report {
    pub source: String,
    pub http: Option<Http>,
    pub decision: Option<Decision>,
    pub feed: Option<ParsedFeed>,
    pub error: Option<String>,
}

impl Report {
    /// Decodes and parses `bytes` (served with `content_type`, or read from a file when `http` is `None`).
    pub fn build(source: &str, http: Option<Http>, bytes: &[u8], content_type: Option<&str>) -> Report {
        let base = http.as_ref().map(|h| h.final_url.clone());
        match ingest(bytes, content_type, base.as_deref(), None) {
            Ok(ingested) => Report {
                source: source.to_string(),
                http,
                decision: Some(ingested.decision),
                feed: Some(ingested.feed),
                error: None,
            },
            Err(e) => {
                let decision = match &e {
                    IngestError::Parse { decision, .. } => Some((**decision).clone()),
                    IngestError::Decode(_) => None,
                };
                Report { source: source.to_string(), http, decision, feed: None, error: Some(e.to_string()) }
            }
        }
    }

    pub fn to_json(&self) -> Value {
        let encoding = self.decision.as_ref().map_or(json!({"name": null, "source": null}), |d| {
            json!({
                "name": d.encoding,
                "source": d.source,
                "summary": d.summary(),
                "signals": d.signals,
                "strict": d.strict,
                "lenient": d.lenient,
                "overridden": d.overridden,
                "notes": d.notes,
            })
        });
        let feed = self.feed.as_ref();
        let entries: Vec<Value> = feed
            .map(|f| {
                f.entries
                    .iter()
                    .map(|e| {
                        json!({
                            "id": crate::sanitize::address(&e.key),
                            "title": e.title,
                            "link": e.link.as_deref().map(crate::sanitize::shown_address),
                            "published": e.published.map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                            "authors": e.authors,
                            "summary": summary_text(e.summary_html.as_deref().or(e.content_html.as_deref())),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        json!({
            "source": self.source,
            "http": self.http.as_ref().map(|h| json!({"status": h.status, "content_type": h.content_type, "final_url": crate::sanitize::shown_address(&h.final_url)})),
            "encoding": encoding,
            "feed": {
                "kind": feed.map(|f| f.kind.as_str()),
                "title": feed.and_then(|f| f.title.clone()),
                "link": feed.and_then(|f| f.link.as_deref()).map(crate::sanitize::shown_address),
                "authors": feed.map(|f| f.authors.clone()).unwrap_or_default(),
            },
            "entries": entries,
            "warnings": feed.map(|f| f.warnings.clone()).unwrap_or_default(),
            "error": self.error,
        })
    }

    /// The story for people: every line free of control characters.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n", one_line(&crate::sanitize::without_password(&self.source), 2000));
        let mut line = |label: &str, text: &str| out.push_str(&format!("  {label:<9} {}\n", one_line(text, 2000)));
        if let Some(h) = &self.http {
            let ct = h.content_type.as_deref().unwrap_or("no Content-Type");
            line("HTTP", &format!("{} · {ct} · {}", h.status, crate::sanitize::without_password(&h.final_url)));
        }
        if let Some(d) = &self.decision {
            line("encoding", &d.summary());
            line("signals", &d.signals_line());
            line("strict", &d.strict_line());
            for note in &d.notes {
                line("note", note);
            }
        }
        if let Some(f) = &self.feed {
            let title = f.title.clone().unwrap_or_else(|| "(no title)".into());
            line(
                "feed",
                &format!(
                    "{} · {title}{}",
                    f.kind.as_str(),
                    f.link.as_ref().map(|l| format!(" · {l}")).unwrap_or_default()
                ),
            );
            line(
                "entries",
                &match f.unkept {
                    0 => f.entries.len().to_string(),
                    unkept => format!(
                        "{} of the {} it lists (a refresh keeps no more)",
                        f.entries.len(),
                        f.entries.len() + unkept
                    ),
                },
            );
            for e in f.entries.iter().take(20) {
                let date = e.published.map(|d| d.format("%Y-%m-%d").to_string()).unwrap_or_else(|| "          ".into());
                out.push_str(&format!(
                    "    {date}  {}\n",
                    one_line(e.display_title().as_deref().unwrap_or("(untitled)"), 200)
                ));
            }
            if f.entries.len() > 20 {
                out.push_str(&format!("    … and {} more\n", f.entries.len() - 20));
            }
            for w in &f.warnings {
                out.push_str(&format!("  {:<9} {}\n", "warning", one_line(w, 1000)));
            }
        }
        if let Some(e) = &self.error {
            out.push_str(&format!("  {:<9} {}\n", "error", one_line(e, 2000)));
        }
        out
    }
}

/// A short plain-text summary of an entry's HTML.
fn summary_text(html: Option<&str>) -> Option<String> {
    let text = crate::text::html_to_plain(crate::sanitize::truncate_bytes(html?, 64 * 1024));
    (!text.is_empty()).then(|| one_line(&text, 300))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn koi8_feed_with_utf8_declaration() -> Vec<u8> {
        let xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>Новости</title>\
                   <item><title>Как пережить новогоднюю ночь</title><description>&lt;p&gt;Текст&lt;/p&gt;</description></item></channel></rss>";
        encoding_rs::KOI8_R.encode(xml).0.into_owned()
    }

    #[test]
    fn the_story_says_which_signal_won_and_which_lost() {
        let http = Http {
            status: 200,
            content_type: Some("text/xml; charset=koi8-r".into()),
            final_url: "http://x.ru/rss".into(),
        };
        let report = Report::build(
            "http://x.ru/rss",
            Some(http),
            &koi8_feed_with_utf8_declaration(),
            Some("text/xml; charset=koi8-r"),
        );
        let text = report.to_text();
        assert!(
            text.contains("KOI8-R from the HTTP charset; the XML declaration said utf-8 and was overridden"),
            "{text}"
        );
        assert!(text.contains("Как пережить новогоднюю ночь"), "{text}");
    }

    #[test]
    fn json_has_the_contracted_fields() {
        let report = Report::build("feed.xml", None, &koi8_feed_with_utf8_declaration(), Some("text/html"));
        let v = report.to_json();
        assert_eq!(v["http"], Value::Null);
        assert_eq!(v["encoding"]["name"], "KOI8-R");
        assert_eq!(v["encoding"]["source"], "detector");
        assert_eq!(v["encoding"]["overridden"][0], "xml_declaration");
        assert_eq!(v["feed"]["title"], "Новости");
        assert_eq!(v["feed"]["kind"], "rss2");
        assert_eq!(v["entries"][0]["title"], "Как пережить новогоднюю ночь");
        assert_eq!(v["entries"][0]["summary"], "Текст");
    }

    #[test]
    fn json_lists_every_author_and_keeps_titles_the_feed_does_not_give_null() {
        let xml = "<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><channel><title>T</title>\
                   <managingEditor>ed@example.com (Ed)</managingEditor><item><dc:creator>A</dc:creator>\
                   <dc:creator>B</dc:creator><description>&lt;p&gt;Only &lt;b&gt;text&lt;/b&gt;&lt;/p&gt;</description>\
                   </item></channel></rss>";
        let v = Report::build("f.xml", None, xml.as_bytes(), None).to_json();
        assert_eq!(v["feed"]["authors"], json!(["Ed"]));
        assert_eq!(v["entries"][0]["authors"], json!(["A", "B"]));
        assert_eq!(v["entries"][0]["title"], Value::Null);
        assert_eq!(v["entries"][0]["summary"], "Only text");
    }

    #[test]
    fn a_failure_still_reports_what_decoding_decided() {
        let report = Report::build("page.html", None, b"<!DOCTYPE html><html><body>hi</body></html>", None);
        let v = report.to_json();
        assert!(v["error"].as_str().unwrap().contains("tidings discover"));
        assert_eq!(v["encoding"]["name"], "UTF-8");
        assert_eq!(v["feed"]["title"], Value::Null);
    }

    #[test]
    fn control_characters_never_reach_the_story() {
        let xml = "<rss version=\"2.0\"><channel><title>a&#x1b;[2Jb</title><item><title>x\u{9b}y</title></item></channel></rss>";
        let text = Report::build("f.xml", None, xml.as_bytes(), None).to_text();
        assert!(!text.chars().any(|c| crate::sanitize::is_forbidden(c) && c != '\n'), "{text:?}");
    }
}
