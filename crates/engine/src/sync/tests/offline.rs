//! The offline queue and a sync cut short: while the server cannot be reached, is busy, fails or refuses the
//! login, marks made here wait in the change log and stand here, and the next sync sends them; a sync cut while
//! sending takes off the log only what the server took; one cut going down keeps what it stored, and the next
//! one finishes — nothing sent twice, nothing lost.

use super::{Here, NEWS, flags_there, server};
use crate::store::changes::Flag;
use crate::sync::fake::Failure;

#[tokio::test]
async fn marks_made_while_the_server_cannot_take_them_wait_and_the_next_sync_sends_them() {
    let (mut fake, news, plain) = server();
    fake.mark(&news[1], Flag::Starred, true);
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    here.mark(&[&news[0], &plain[0]], Flag::Read, true).await;
    here.mark(&[&news[1]], Flag::Starred, false).await;
    let marked = here.flags().await;

    for failure in [Failure::Unreachable, Failure::Status(429), Failure::Status(503), Failure::Unauthorized] {
        fake.down_after(0, failure.clone());
        let e = here.sync(&mut fake).await.expect_err("a server that cannot take them");
        let said = e.to_string();
        let says = match failure {
            Failure::Unreachable => "offline (connection refused): 3 changes waiting",
            Failure::Status(429) => "is busy (HTTP 429)",
            Failure::Status(_) => "failed (HTTP 503)",
            Failure::Unauthorized => "refused alice's API password",
        };
        assert!(said.contains(says), "{said}");
        assert_eq!(e.is_offline(), matches!(failure, Failure::Unreachable), "{said}");
        if let Failure::Status(_) = failure {
            assert!(said.contains("nothing here is lost: 3 changes waiting"), "{said}");
        }
        assert_eq!(here.waiting().await, 3, "after {failure:?}");
        assert_eq!(here.flags().await, marked, "the marks stand here after {failure:?}");
        assert!(fake.flags_taken().is_empty());
        fake.back();
    }

    let report = here.sync(&mut fake).await.expect("the server back");
    assert_eq!((report.sent, here.waiting().await), (3, 0));
    assert_eq!(fake.flags_taken().len(), 3);
    assert_eq!(here.flags().await, marked);
    assert_eq!(flags_there(&fake, &[news, plain].concat()), marked, "the server has every mark made here");
}

#[tokio::test]
async fn a_sync_cut_while_sending_takes_off_the_log_only_what_the_server_took() {
    let (mut fake, news, plain) = server();
    fake.mark(&news[2], Flag::Read, true);
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    here.mark(&[&news[0], &news[1]], Flag::Read, true).await;
    here.mark(&[&news[2]], Flag::Read, false).await;
    here.mark(&[&news[3]], Flag::Starred, true).await;
    // The server takes the first batch (read), then fails.
    fake.fail_once_after(1, Failure::Status(503));

    let e = here.sync(&mut fake).await.expect_err("the server failed");
    assert!(e.to_string().contains("2 changes waiting"), "{e}");
    assert_eq!(here.waiting().await, 2);

    let report = here.sync(&mut fake).await.expect("the next sync");
    assert_eq!(report.sent, 2);
    let taken = vec![
        (news[0].clone(), Flag::Read, true),
        (news[1].clone(), Flag::Read, true),
        (news[2].clone(), Flag::Read, false),
        (news[3].clone(), Flag::Starred, true),
    ];
    assert_eq!(fake.flags_taken(), taken, "each once");
    assert_eq!(here.flags().await, flags_there(&fake, &[news, plain].concat()));
}

#[tokio::test]
async fn a_sync_cut_going_down_keeps_what_it_stored_and_the_next_one_finishes() {
    let (mut fake, news, plain) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    let stream = fake.subscription(NEWS).expect("the feed").stream.clone();
    // Read on another device: in neither set, they can come only down the items.
    let new = fake.add_items(&stream, 10);
    for key in &new {
        fake.mark(key, Flag::Read, true);
    }
    here.mark(&[&plain[0]], Flag::Read, true).await;
    // Answered: the mark, the subscriptions, two pages of items; then the server is gone.
    fake.down_after(4, Failure::Unreachable);

    let e = here.sync(&mut fake).await.expect_err("the server went away");
    assert!(e.is_offline() && e.to_string().ends_with("0 changes waiting"), "{e}");
    assert_eq!(here.flags().await.len(), 12, "the two pages that came are kept");
    assert_eq!(fake.flag(&plain[0], Flag::Read), Some(true), "the mark it took is off the log");

    fake.back();
    let report = here.sync(&mut fake).await.expect("the next sync");
    assert_eq!((report.new, report.entries, report.sent), (6, 18, 0));
    assert_eq!(fake.flags_taken(), [(plain[0].clone(), Flag::Read, true)], "sent once");
    assert_eq!(here.flags().await, flags_there(&fake, &[news, plain, new].concat()));
}

#[tokio::test]
async fn entries_saved_while_the_server_cannot_take_them_wait_and_go_as_one_label_once_it_can() {
    use crate::model::UserWrite;
    use crate::sync::fake::Call;
    let (mut fake, news, plain) = server();
    let mut here = Here::new();
    here.sync(&mut fake).await.expect("the first sync");
    let ids = here.entries(&[&news[0], &plain[1]]).await;
    here.apply(UserWrite::SaveOnServer { ids: ids.clone() }).await;
    here.apply(UserWrite::SaveOnServer { ids: ids[..1].to_vec() }).await;
    assert_eq!(here.waiting().await, 2, "one change per entry, however often it is saved");

    // The save call itself fails (503): nothing is taken off the log.
    fake.down_after(0, Failure::Status(503));
    let said = here.sync(&mut fake).await.expect_err("a failing server").to_string();
    assert!(said.contains("2 changes waiting"), "{said}");
    fake.back();
    let report = here.sync(&mut fake).await.expect("the server back");
    assert_eq!((report.saved, report.sent, here.waiting().await), (2, 2, 0));
    let saves: Vec<(Vec<String>, String)> = fake
        .log()
        .iter()
        .filter(|l| l.answered)
        .filter_map(|l| match &l.call {
            Call::Save { keys, label } => Some((keys.clone(), label.clone())),
            _ => None,
        })
        .collect();
    let mut keys = vec![news[0].clone(), plain[1].clone()];
    keys.sort();
    let sent: Vec<(Vec<String>, String)> = saves
        .into_iter()
        .map(|(mut k, l)| {
            k.sort();
            (k, l)
        })
        .collect();
    assert_eq!(sent, [(keys, "Saved".to_string())], "one call, both items, the account's label");
    let again = here.sync(&mut fake).await.expect("a sync with nothing to send");
    assert_eq!(again.saved, 0, "sent once");
}
