//! Marks going up: what is marked here reaches the server, once, and leaves the change log — except a mark made
//! again while the sync was sending the one before, which waits for the next sync.

use super::{Here, flags_there, marking, server};
use crate::model::{ListSource, UserWrite};
use crate::store::{self, changes::Flag};

#[tokio::test]
async fn read_unread_star_and_unstar_made_here_reach_the_server_once() {
    let (mut fake, news, plain) = server();
    fake.mark(&news[0], Flag::Read, true);
    fake.mark(&news[1], Flag::Starred, true);
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");

    here.mark(&[&news[0]], Flag::Read, false).await;
    here.mark(&[&news[2]], Flag::Read, true).await;
    here.mark(&[&news[1]], Flag::Starred, false).await;
    here.mark(&[&news[3]], Flag::Starred, true).await;
    assert_eq!(here.waiting().await, 4);
    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!(report.sent, 4);
    let taken = vec![
        (news[2].clone(), Flag::Read, true),
        (news[0].clone(), Flag::Read, false),
        (news[3].clone(), Flag::Starred, true),
        (news[1].clone(), Flag::Starred, false),
    ];
    assert_eq!(fake.flags_taken(), taken, "each batched by what it sets");
    assert_eq!((report.read_changed, report.starred_changed), (0, 0), "the server's sets say what was sent");
    assert_eq!(here.flags().await, flags_there(&fake, &[news, plain].concat()));
    assert_eq!(here.waiting().await, 0);

    let again = here.sync(&mut fake).await.expect("the third sync");
    assert_eq!((again.sent, fake.flags_taken()), (0, taken), "nothing is sent twice");
}

#[tokio::test]
async fn a_list_marked_read_here_goes_up_as_each_entry_it_marked() {
    let (mut fake, news, plain) = server();
    fake.mark(&news[0], Flag::Read, true);
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");

    here.apply(UserWrite::MarkListRead { source: ListSource::All }).await;
    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!(report.sent, 7, "the seven entries the list had unread");
    let all = [news, plain].concat();
    assert!(all.iter().all(|k| fake.flag(k, Flag::Read) == Some(true)), "every item is read on the server");
    assert!(here.flags().await.values().all(|(read, _)| *read));
}

#[tokio::test]
async fn a_mark_made_again_while_the_sync_sends_the_first_waits_for_the_next_sync() {
    let (mut fake, news, _) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    here.mark(&[&news[0]], Flag::Read, true).await;
    // While the server takes "read", the reader marks the entry unread again.
    let (mut beside, unread, at) =
        (here.beside(), marking(here.entries(&[&news[0]]).await, Flag::Read, false), here.now + 61);
    fake.meanwhile(0, move || {
        store::apply(&mut beside, &unread, at).expect("a mark made beside the sync");
    });

    let report = here.sync(&mut fake).await.expect("the second sync");
    assert_eq!(report.sent, 1);
    assert_eq!(fake.flag(&news[0], Flag::Read), Some(true), "the server took the first mark");
    assert_eq!(here.flags().await[&news[0]], (false, false), "the later mark stands here");
    assert_eq!(here.waiting().await, 1, "and waits");

    here.sync(&mut fake).await.expect("the third sync");
    assert_eq!(fake.flag(&news[0], Flag::Read), Some(false), "the later mark reached the server");
    assert_eq!((here.flags().await[&news[0]], here.waiting().await), ((false, false), 0));
}

#[tokio::test]
async fn a_whole_label_read_here_goes_up_as_one_mark_all_as_read_and_nothing_newer_is_marked() {
    use super::super::fake::{Call, FakeRemote};
    use super::{NEWS, PLAIN};
    use crate::store::accounts::Scope;
    let mut fake = FakeRemote::new(100);
    let news = fake.subscribe(NEWS, "News feed", Some("News")).expect("a new address");
    let plain = fake.subscribe(PLAIN, "Plain feed", None).expect("a new address");
    let news_keys = fake.add_items(&news, 150);
    let plain_keys = fake.add_items(&plain, 3);
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");

    let keys: Vec<&str> = news_keys.iter().map(String::as_str).collect();
    here.mark(&keys, Flag::Read, true).await;
    here.mark(&[&plain_keys[0]], Flag::Read, true).await;
    // Stored on the server after this sync saw the list: not read by anyone.
    let newer = fake.add_items(&news, 1);
    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!(report.sent, 151);
    let lists: Vec<Scope> = fake
        .log()
        .iter()
        .filter_map(|l| match &l.call {
            Call::MarkListRead { scope, .. } => Some(scope.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(lists, vec![Scope::Label("News".into())], "the label, at once");
    assert_eq!(fake.flags_taken(), vec![(plain_keys[0].clone(), Flag::Read, true)], "the rest by id");
    assert!(news_keys.iter().all(|k| fake.flag(k, Flag::Read) == Some(true)));
    assert_eq!(fake.flag(&newer[0], Flag::Read), Some(false), "what came after stays unread there");
    assert_eq!(here.flags().await.get(&newer[0]), Some(&(false, false)), "and here");
}
