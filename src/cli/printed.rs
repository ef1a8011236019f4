//! Entries as `list` and `search` print them, and the time zone dates are shown in.

use crate::sanitize::{one_line, shown_address};

/// The entries `list` and `search` print, each with its feed (looked up in `feeds`): as JSON objects for
/// `--json`, or as lines of text. Feed text goes through `one_line` either way.
pub(super) struct Printed<'a> {
    feeds: std::collections::HashMap<crate::model::FeedId, &'a crate::model::FeedRow>,
}

impl<'a> Printed<'a> {
    pub(super) fn new(feeds: &'a [crate::model::FeedRow]) -> Printed<'a> {
        Printed { feeds: feeds.iter().map(|f| (f.id, f)).collect() }
    }

    pub(super) fn json(&self, rows: &[crate::model::EntryRow]) -> Vec<serde_json::Value> {
        rows.iter()
            .map(|r| {
                let feed = self.feeds.get(&r.feed_id);
                serde_json::json!({
                    "id": r.id, "feed_id": r.feed_id, "feed": feed.map(|f| one_line(&f.title, 300)),
                    "feed_url": feed.map(|f| shown_address(&f.url)), "title": r.title.as_deref().map(|t| one_line(t, 1000)),
                    "link": r.link.as_deref().map(shown_address), "date": chrono::DateTime::from_timestamp(r.date, 0).map(|d| d.to_rfc3339()),
                    "read": r.read, "starred": r.starred,
                })
            })
            .collect()
    }

    /// One entry as a line: its date (in the local zone), feed, title and link.
    pub(super) fn line(&self, r: &crate::model::EntryRow) -> String {
        let feed = self.feeds.get(&r.feed_id).map_or(String::new(), |f| one_line(&f.title, 60));
        let title = one_line(r.title.as_deref().unwrap_or("(untitled)"), 200);
        let link = r.link.as_deref().map_or(String::new(), |l| format!("  {}", one_line(l, 500)));
        format!("{}  {feed}  {title}{link}", local_zone().date(r.date))
    }
}

/// The system's time zone, with its daylight-saving rules (from `TZ` or the system's tables), for dates shown
/// to the person at this terminal. Looked up here, at the program's edge: the core only applies it.
pub fn local_zone() -> crate::clock::Zone {
    fn offset_at(ts: i64) -> i32 {
        use chrono::{Offset, TimeZone};
        chrono::Local.timestamp_opt(ts, 0).single().map_or(0, |t| t.offset().fix().local_minus_utc())
    }
    crate::clock::Zone::Rules(offset_at)
}
