//! Subscriptions and their labels both ways: a feed the server files under another label moves to that folder
//! here, a feed moved here is relabelled on the server, and feeds subscribed and unsubscribed here are so there.

use super::{Here, NEWS, PLAIN, server};
use crate::model::{NewFeed, UserWrite};
use crate::store::changes::{FeedChange, Flag};
use crate::sync::fake::Call;
use std::collections::BTreeSet;

#[tokio::test]
async fn a_feed_the_server_files_under_another_label_moves_to_that_folder_here() {
    let (mut fake, _, _) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    let news = fake.subscription(NEWS).expect("news").stream.clone();
    let plain = fake.subscription(PLAIN).expect("plain").stream.clone();

    fake.relabel(&news, Some("Tech"));
    fake.relabel(&plain, Some("Sport/Cycling"));
    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!(report.subscriptions_changed, 2);
    assert_eq!(here.folder_of(NEWS).await.as_deref(), Some("Fake/Tech"));
    assert_eq!(here.folder_of(PLAIN).await.as_deref(), Some("Fake/Sport/Cycling"));
    let folders: BTreeSet<String> = ["Fake", "Fake/Sport", "Fake/Sport/Cycling", "Fake/Tech"].map(String::from).into();
    assert_eq!(here.folders().await, folders, "the label no feed is under any more is gone");
    assert_eq!(here.flags().await.len(), 8, "the entries moved with their feeds");

    fake.relabel(&news, None);
    here.sync(&mut fake).await.expect("the third sync");
    assert_eq!(here.folder_of(NEWS).await.as_deref(), Some("Fake"), "under no label: the account's own folder");
    assert_eq!(here.waiting().await, 0, "a move that came down is not sent back up");
}

#[tokio::test]
async fn a_feed_moved_here_is_filed_under_its_new_label_on_the_server() {
    let (mut fake, _, _) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    let feed_id = here.feed(NEWS).await.expect("the feed").id;
    let stream = fake.subscription(NEWS).expect("news").stream.clone();

    here.apply(UserWrite::MoveFeed { feed_id, folder: vec!["Fake".into(), "Tech".into()] }).await;
    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!((report.sent, report.subscriptions_changed), (1, 0));
    let relabel = Call::EditSubscription(FeedChange::Relabel { stream: stream.clone(), label: Some("Tech".into()) });
    assert!(fake.log().iter().any(|l| l.call == relabel && l.answered), "{:?}", fake.log());
    assert_eq!(fake.subscription(NEWS).and_then(|s| s.label.as_deref()), Some("Tech"));
    assert_eq!(here.folder_of(NEWS).await.as_deref(), Some("Fake/Tech"));

    here.apply(UserWrite::MoveFeed { feed_id, folder: vec!["Fake".into()] }).await;
    here.sync(&mut fake).await.expect("the third sync");
    assert_eq!(fake.subscription(NEWS).map(|s| s.label.clone()), Some(None), "out of every label");
    assert_eq!(here.folder_of(NEWS).await.as_deref(), Some("Fake"));
}

#[tokio::test]
async fn feeds_subscribed_and_unsubscribed_here_are_so_on_the_server() {
    let (mut fake, _, plain_keys) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    let url = "http://example.com/new.xml";
    let folder = vec!["Fake".to_string(), "News".to_string()];
    let feed = NewFeed { url: url.into(), title: None, name: None, site_url: None, folder };
    here.apply(UserWrite::AddFeed(feed)).await;
    let new = here.feed(url).await.expect("the new feed here").id;
    let plain = here.feed(PLAIN).await.expect("the plain feed").id;
    here.apply(UserWrite::DeleteFeed(plain)).await;
    assert_eq!(here.waiting().await, 2);

    let report = here.sync(&mut fake).await.expect("the second sync");

    assert_eq!((report.sent, report.subscriptions_added, report.subscriptions_removed), (2, 0, 0));
    assert_eq!(fake.subscription(url).and_then(|s| s.label.as_deref()), Some("News"));
    assert!(fake.subscription(PLAIN).is_none());
    assert!(plain_keys.iter().all(|k| fake.flag(k, Flag::Read).is_none()), "its items went with it");
    let kept = here.feed(url).await.expect("the new feed, still here");
    assert_eq!((kept.id, kept.folder.as_deref()), (new, Some("Fake/News")), "the server's listing is the same feed");
    assert_eq!((here.feed(PLAIN).await, here.flags().await.len()), (None, 5));
    assert_eq!(here.waiting().await, 0);
}
