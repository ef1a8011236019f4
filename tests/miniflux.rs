//! Sync with a Miniflux over its Google Reader API, which implements a subset of it: no `stream/contents` (any
//! call it does not implement answers `[]` with 200), a POST's login in `T` only, decimal ids from
//! `stream/items/ids` and long ones from `stream/items/contents`, a numeric offset to page by. Miniflux cannot run
//! here; `support::miniflux` is a test server written from Miniflux's own description of that subset.

mod support;

use support::accounts::{keys, mark_here};

use std::collections::BTreeSet;
use support::miniflux::{Entry, Miniflux, State};
use support::{Sandbox, stderr, stdout};
use tidings::model::UserWrite;

/// 1,500 entries in two feeds (more than a page of a thousand ids): a third read, one in 75 starred.
fn miniflux() -> Miniflux {
    let feeds = vec![
        (1, "http://example.org/a.xml".to_string(), "Alpha".to_string(), "Tech".to_string()),
        (2, "http://example.org/b.xml".to_string(), "Beta".to_string(), "All".to_string()),
    ];
    let entries = (1..=1500u64)
        .map(|id| Entry {
            id,
            feed: 1 + id % 2,
            published: 1_700_000_000 + id as i64,
            read: id % 3 == 0,
            starred: id % 75 == 0,
        })
        .collect();
    Miniflux::start(State { feeds, entries })
}

fn there(server: &Miniflux, keep: impl Fn(&Entry) -> bool) -> BTreeSet<String> {
    server.state().entries.iter().filter(|e| keep(e)).map(|e| e.id.to_string()).collect()
}

fn sync(sandbox: &Sandbox, config: &std::path::Path) -> std::process::Output {
    sandbox.tidings().arg("--config").arg(config).arg("sync").output().expect("run tidings sync")
}

#[test]
fn a_miniflux_without_stream_contents_brings_every_item_and_flag_read_ones_too() {
    let server = miniflux();
    let sandbox = Sandbox::new();
    let cfg = sandbox.write("config.toml", server.config());
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Miniflux: 1500 new, 2 feeds added"), "{}", stdout(&out));
    assert_eq!(keys(&sandbox, "1"), there(&server, |_| true), "every item, the read ones too");
    assert_eq!(keys(&sandbox, "e.read = 0"), there(&server, |e| !e.read), "every unread flag");
    assert_eq!(keys(&sandbox, "e.starred = 1"), there(&server, |e| e.starred), "every starred flag");
    let asked = server.requests();
    assert!(asked.iter().any(|r| r.path.contains("stream/items/ids") && r.path.contains("c=1000")), "paged by offset");

    // Marks both ways in one sync: two read and one starred here, one read on the phone.
    let unread: Vec<String> = keys(&sandbox, "e.read = 0").into_iter().collect();
    mark_here(&sandbox, &unread[..2], |ids| UserWrite::SetRead { ids, read: true });
    mark_here(&sandbox, &unread[2..3], |ids| UserWrite::SetStarred { ids, starred: true });
    let phone: u64 = unread[3].parse().unwrap();
    server.state().entries.iter_mut().find(|e| e.id == phone).unwrap().read = true;
    let out = sync(&sandbox, &cfg);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("3 changes sent") && stdout(&out).contains("1 marked on the server"),
        "{}",
        stdout(&out)
    );
    assert_eq!(keys(&sandbox, "e.read = 0"), there(&server, |e| !e.read), "both sides agree on what is read");
    assert_eq!(keys(&sandbox, "e.starred = 1"), there(&server, |e| e.starred), "and on what is starred");
}
