//! Marks and items coming down: a cold sync brings every item and flag page by page, later syncs bring what
//! changed on the server; a starred entry the server forgot stays starred here; and where a mark made here
//! meets one made on the server, the one made here wins — also one made while the sync is coming down.

use super::{Here, NEWS, PLAIN, flags_there, marking, server};
use crate::store::{self, changes::Flag};
use crate::sync::fake::Call;
use std::collections::BTreeMap;

#[tokio::test]
async fn a_cold_sync_brings_every_feed_item_and_flag_page_by_page() {
    let (mut fake, news, plain) = server();
    fake.mark(&news[0], Flag::Read, true);
    fake.mark(&news[4], Flag::Starred, true);
    fake.mark(&plain[1], Flag::Read, true);
    fake.mark(&plain[1], Flag::Starred, true);
    let mut here = Here::new();

    let report = here.sync(&mut fake).await.expect("the sync");

    let all = [news, plain].concat();
    assert_eq!((report.new, report.entries, report.subscriptions_added), (8, 8, 2));
    assert_eq!(here.flags().await, flags_there(&fake, &all));
    assert_eq!(here.folder_of(NEWS).await.as_deref(), Some("Fake/News"));
    assert_eq!(here.folder_of(PLAIN).await.as_deref(), Some("Fake"));
    let pages = fake.log().iter().filter(|l| matches!(l.call, Call::ItemsSince { .. })).count();
    assert_eq!(pages, 5, "8 items, 2 a page, and the empty page after the last full one");
    assert_eq!(report.requests, fake.log().len());
}

#[tokio::test]
async fn marks_made_on_the_server_come_down_to_the_entries_here() {
    let (mut fake, news, plain) = server();
    fake.mark(&news[0], Flag::Read, true);
    fake.mark(&news[1], Flag::Starred, true);
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");

    fake.mark(&news[0], Flag::Read, false);
    fake.mark(&news[2], Flag::Read, true);
    fake.mark(&plain[0], Flag::Read, true);
    fake.mark(&news[1], Flag::Starred, false);
    fake.mark(&plain[2], Flag::Starred, true);
    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!((report.read_changed, report.starred_changed, report.new, report.sent), (3, 2, 0, 0));
    assert_eq!(here.flags().await, flags_there(&fake, &[news, plain].concat()));
}

#[tokio::test]
async fn new_items_come_down_with_the_next_sync_from_where_the_last_one_was() {
    let (mut fake, _, plain) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    let stream = fake.subscription(NEWS).expect("the feed").stream.clone();
    let new = fake.add_items(&stream, 3);
    fake.mark(&new[1], Flag::Starred, true);
    let before = fake.log().len();

    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!((report.new, report.entries), (3, 11));
    assert_eq!(here.flags().await[&new[1]], (false, true));
    // The server stored all eleven within one second: asked from that second on, it sends every one again,
    // newest first, and the sync stops at the first page it had whole (the third).
    let seen_secs = plain[2].parse::<i64>().expect("a number") / 1_000_000;
    let asked: Vec<i64> = fake.log()[before..]
        .iter()
        .filter_map(|l| match l.call {
            Call::ItemsSince { since_secs, .. } => Some(since_secs),
            _ => None,
        })
        .collect();
    assert_eq!(asked, [seen_secs; 3], "from the second of the newest item the last sync had, three pages");
}

#[tokio::test]
async fn a_starred_entry_the_server_forgot_stays_starred_here_and_one_unstarred_there_goes() {
    let (mut fake, news, _) = server();
    fake.mark(&news[0], Flag::Starred, true);
    fake.mark(&news[1], Flag::Starred, true);
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");

    fake.forget(&news[0]);
    fake.mark(&news[1], Flag::Starred, false);
    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!((report.kept_starred, report.starred_changed), (1, 1));
    let starred = |flags: &BTreeMap<String, (bool, bool)>, key: &String| flags[key].1;
    let flags = here.flags().await;
    assert_eq!((starred(&flags, &news[0]), starred(&flags, &news[1])), (true, false));
    let again = here.sync(&mut fake).await.expect("the third sync");
    assert_eq!((again.kept_starred, again.starred_changed), (1, 0), "it stays, sync after sync");
    assert!(starred(&here.flags().await, &news[0]));
}

#[tokio::test]
async fn a_mark_set_back_here_is_not_sent_and_a_mark_made_here_wins_over_the_servers() {
    let (mut fake, news, plain) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    // Read here, then unread again (where the server was last seen: nothing waits) while the phone marks it read:
    // the phone's mark stands. A star here and a read there are a flag each; a read both sides is one mark.
    here.mark(&[&news[0]], Flag::Read, true).await;
    here.mark(&[&news[0]], Flag::Read, false).await;
    fake.mark(&news[0], Flag::Read, true);
    here.mark(&[&news[1]], Flag::Starred, true).await;
    fake.mark(&news[1], Flag::Read, true);
    here.mark(&[&news[2]], Flag::Read, true).await;
    fake.mark(&news[2], Flag::Read, true);

    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!(report.sent, 2);
    assert_eq!(fake.flag(&news[0], Flag::Read), Some(true), "the phone's mark stands");
    let flags = here.flags().await;
    assert_eq!(flags[&news[0]], (true, false));
    assert_eq!(flags[&news[1]], (true, true), "marks of different flags both stand");
    assert_eq!(flags[&news[2]], (true, false));
    assert_eq!(flags_there(&fake, &[news, plain].concat()), flags, "the server and here agree");
}

#[tokio::test]
async fn a_mark_made_here_while_the_sync_comes_down_is_not_undone_by_the_servers_sets() {
    let (mut fake, news, _) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    // Nothing to send: the second call of the sync is its first page of items, before it reads the sets.
    let (mut beside, read, at) =
        (here.beside(), marking(here.entries(&[&news[3]]).await, Flag::Read, true), here.now + 61);
    fake.meanwhile(1, move || {
        store::apply(&mut beside, &read, at).expect("a mark made beside the sync");
    });

    here.sync(&mut fake).await.expect("the second sync");
    assert_eq!(fake.flag(&news[3], Flag::Read), Some(false), "the server's unread set still holds it");
    assert_eq!((here.flags().await[&news[3]], here.waiting().await), ((true, false), 1), "read here, waiting");

    here.sync(&mut fake).await.expect("the third sync");
    assert_eq!(fake.flag(&news[3], Flag::Read), Some(true));
    assert_eq!((here.flags().await[&news[3]], here.waiting().await), ((true, false), 0));
}
