//! A network-wide outage: when not one feed of a refresh answered, and feeds on several hosts were tried, the
//! trouble is this machine's network, not the feeds. [`Tally`] counts what each fetch met while the run lasts;
//! at its end the failures of an outage are forgiven (`store::health::forgive_outage`), so no feed backs off,
//! turns `dead` or loses its proposed move because the cable was out.

use crate::model::{ErrorKind, FeedId};
use crate::store::fetches::FetchRecord;
use std::collections::HashSet;
use std::sync::Mutex;

/// What the fetches of one refresh run met.
#[derive(Default)]
pub(super) struct Tally(Mutex<Seen>);

#[derive(Default)]
struct Seen {
    hosts: HashSet<String>,
    answered: bool,
    unanswered: Vec<FeedId>,
}

impl Tally {
    /// Notes how one feed's fetch ended.
    pub(super) fn note(&self, feed_id: FeedId, url: &str, record: &FetchRecord) {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        seen.hosts.insert(crate::fetch::host_key(url));
        if answered(record) {
            seen.answered = true;
        } else {
            seen.unanswered.push(feed_id);
        }
    }

    /// The feeds whose failures an outage excuses: every feed tried, when none answered and they were on several
    /// hosts; none otherwise.
    pub(super) fn outage(&self) -> Vec<FeedId> {
        let seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if seen.answered || seen.hosts.len() < 2 {
            return Vec::new();
        }
        seen.unanswered.clone()
    }
}

/// Whether a server answered the fetch at all (with anything, even an error status or a broken document).
fn answered(record: &FetchRecord) -> bool {
    !matches!(
        record,
        FetchRecord::Failed { status: None, kind: ErrorKind::Dns | ErrorKind::Connect | ErrorKind::Timeout, .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(status: Option<u16>, kind: ErrorKind) -> FetchRecord {
        FetchRecord::Failed { status, kind, message: String::new(), retry_after_secs: None }
    }

    #[test]
    fn an_outage_needs_several_hosts_and_not_one_answer() {
        let tally = Tally::default();
        tally.note(FeedId(1), "http://a.example/feed", &failed(None, ErrorKind::Connect));
        assert!(tally.outage().is_empty(), "one host down is that host's trouble");
        tally.note(FeedId(2), "http://b.example/feed", &failed(None, ErrorKind::Dns));
        assert_eq!(tally.outage(), vec![FeedId(1), FeedId(2)]);
        tally.note(FeedId(3), "http://c.example/feed", &failed(Some(404), ErrorKind::Http));
        assert!(tally.outage().is_empty(), "a 404 is an answer: the network works");
        let stalled = Tally::default();
        stalled.note(FeedId(1), "http://a.example/feed", &failed(None, ErrorKind::Dns));
        stalled.note(FeedId(2), "http://b.example/feed", &failed(Some(200), ErrorKind::Timeout));
        assert!(stalled.outage().is_empty(), "a body that stopped coming had an answer begun: the network works");
    }
}
