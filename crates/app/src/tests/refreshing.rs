//! Refreshing: progress, errors, backoff, workers that die, automatic refresh.

use super::*;
use crate::dialogs::PromptPurpose;
use crate::model::AccountId;

#[test]
fn r_refreshes_the_selected_feed_and_capital_r_all_without_duplicates() {
    let mut s = loaded();
    assert_eq!(update(&mut s, key('r')), vec![refresh(0, vec![1], true)]);
    assert_eq!(update(&mut s, key('R')), vec![refresh(1, vec![2, 3], false)]);
    assert!(update(&mut s, key('R')).is_empty());
    assert_eq!(s.progress.total, 3);
}

#[test]
fn refresh_events_count_progress_record_errors_and_reload_at_the_end() {
    let mut s = loaded();
    update(&mut s, key('R'));
    update(&mut s, Event::Refresh(RefreshEvent::Started { feed_id: FeedId(1) }));
    assert!(s.progress.active.contains(&FeedId(1)));
    let done = RefreshEvent::Done {
        feed_id: FeedId(1),
        new: 3,
        updated: 0,
        unread: 5,
        title: "One!".into(),
        moved_to: None,
        cut_from: None,
    };
    let reload = Effect::LoadEntries {
        list: ListKey::Feed(FeedId(1)),
        source: ListSource::Feed(FeedId(1)),
        order: Some((Sort::Newest, false)),
        keep: Some(EntryId(10)),
    };
    assert_eq!(update(&mut s, Event::Refresh(done)), vec![reload], "the list shown is read again, keeping the cursor");
    assert_eq!((s.progress.done, s.progress.total), (1, 3));
    assert_eq!(s.feeds.feeds[0].unread, 5);
    update(
        &mut s,
        Event::Refresh(RefreshEvent::Failed {
            feed_id: FeedId(2),
            title: "Two".into(),
            url: "http://example.com/2".into(),
            kind: ErrorKind::Http,
            message: "HTTP 404".into(),
            retry_at: None,
            dead: false,
        }),
    );
    assert_eq!(s.feeds.feeds[1].last_error.as_deref(), Some("HTTP 404"));
    assert_eq!(s.status.current(s.clock.now).unwrap().text, "Two: HTTP 404");
    let effects = update(
        &mut s,
        Event::Refresh(RefreshEvent::NotModified { feed_id: FeedId(3), title: "F3".into(), moved_to: None }),
    );
    assert_eq!(effects, vec![Effect::LoadFeeds]);
    assert!(s.progress.is_idle());
    assert_eq!(
        s.status.current(s.clock.now).unwrap().text,
        "3 new entries in 1 feed (3 feeds refreshed), 1 failed; 1 feed needs a look (! shows them)"
    );
}

#[test]
fn an_error_stays_while_its_feed_fails_and_goes_when_it_recovers() {
    let mut s = loaded();
    let failed = RefreshEvent::Failed {
        feed_id: FeedId(1),
        title: "One".into(),
        url: "u".into(),
        kind: ErrorKind::Http,
        message: "HTTP 500".into(),
        retry_at: None,
        dead: false,
    };
    update(&mut s, key('r'));
    update(&mut s, Event::Refresh(failed));
    let now = s.clock.now;
    assert_eq!(s.status.current(now).unwrap().text, "One: HTTP 500", "one failed feed keeps its own error");
    update(&mut s, key('R'));
    update(
        &mut s,
        Event::Refresh(RefreshEvent::NotModified { feed_id: FeedId(1), title: "F1".into(), moved_to: None }),
    );
    assert!(s.status.current(now).is_none(), "the feed recovered: its error is no longer news");
    assert!(s.feeds.feeds[0].last_error.is_none());
    update(
        &mut s,
        Event::Refresh(RefreshEvent::NotModified { feed_id: FeedId(2), title: "F2".into(), moved_to: None }),
    );
    update(
        &mut s,
        Event::Refresh(RefreshEvent::NotModified { feed_id: FeedId(3), title: "F3".into(), moved_to: None }),
    );
    assert_eq!(s.status.current(now).unwrap().text, "Refreshed 3 feeds, nothing new");
    assert!(!s.status.current(now).unwrap().error);
}

#[test]
fn a_refresh_that_dies_ends_the_progress_and_automatic_refresh_goes_on() {
    let mut s = loaded();
    s.refresh.interval_secs = Some(3600);
    update(&mut s, key('R'));
    update(
        &mut s,
        Event::Refresh(RefreshEvent::Done {
            feed_id: FeedId(2),
            new: 0,
            updated: 0,
            unread: 0,
            title: "Two".into(),
            moved_to: None,
            cut_from: None,
        }),
    );
    let effects = update(
        &mut s,
        Event::RefreshStopped { batch: 0, ids: vec![FeedId(1), FeedId(2), FeedId(3)], reason: "it panicked".into() },
    );
    assert_eq!(effects, vec![Effect::LoadFeeds]);
    assert!(s.progress.is_idle(), "no feed stays pending");
    assert!(s.status.log.iter().any(|m| m.error && m.text.contains("it panicked")), "{:?}", s.status.log);
    let now = s.clock.now;
    update(&mut s, Event::Tick(now + 1));
    assert_eq!(
        update(&mut s, Event::Tick(now + 1 + progress::AUTO_CHECK_SECS)),
        vec![Effect::LoadDue { now: now + 1 + progress::AUTO_CHECK_SECS, interval_secs: 3600 }]
    );
}

#[test]
fn the_end_of_an_older_batch_does_not_fail_a_feed_asked_for_again() {
    let mut s = loaded();
    update(&mut s, key('r')); // batch 0: feed 1
    update(
        &mut s,
        Event::Refresh(RefreshEvent::NotModified { feed_id: FeedId(1), title: "F1".into(), moved_to: None }),
    );
    update(&mut s, key('r')); // batch 1: feed 1 again
    update(&mut s, Event::RefreshStopped { batch: 0, ids: vec![FeedId(1)], reason: "ended".into() });
    assert!(s.progress.pending.contains_key(&FeedId(1)), "batch 1 still waits for feed 1");
}

#[test]
fn the_first_feed_list_starts_the_startup_refresh_once() {
    let mut s = State::new(Setup { refresh_on_startup: true, ..Setup::default() }, (100, 30));
    let feeds = || vec![feed(1, "One", 0, None), feed(2, "Two", 0, None)];
    assert_eq!(
        feeds_loaded(&mut s, feeds(), vec![]),
        vec![load(ListKey::Unread, ListSource::Unread), refresh(0, vec![1, 2], false)]
    );
    assert_eq!(feeds_loaded(&mut s, feeds(), vec![]), vec![]);
}

#[test]
fn forcing_an_encoding_validates_the_label_stores_it_and_refreshes() {
    let mut s = loaded();
    update(&mut s, key('e'));
    typed(&mut s, "klingon");
    assert!(update(&mut s, code(KeyCode::Enter)).is_empty());
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the prompt stays open") };
    assert!(prompt.error.as_deref().unwrap().contains("klingon"));
    update(&mut s, ctrl('u'));
    typed(&mut s, "koi8-r");
    assert_eq!(
        update(&mut s, code(KeyCode::Enter)),
        vec![
            Effect::write(UserWrite::SetEncodingOverride { feed_id: FeedId(1), label: Some("koi8-r".into()) }),
            refresh(0, vec![1], true)
        ]
    );
    assert!(s.dialog.is_none());
    assert_eq!(s.feeds.feeds[0].encoding_forced.as_deref(), Some("koi8-r"));
    update(&mut s, key('e'));
    update(&mut s, ctrl('u'));
    let effects = update(&mut s, code(KeyCode::Enter));
    assert_eq!(
        effects[0],
        Effect::write(UserWrite::SetEncodingOverride { feed_id: FeedId(1), label: None }),
        "an empty answer stops forcing"
    );
}

#[test]
fn due_feeds_are_refreshed_automatically_every_interval() {
    let mut s = loaded();
    s.refresh.interval_secs = Some(3600);
    assert!(update(&mut s, Event::Tick(1000)).is_empty(), "the first tick only sets the clock");
    assert!(update(&mut s, Event::Tick(1000 + progress::AUTO_CHECK_SECS - 1)).is_empty());
    let at = 1000 + progress::AUTO_CHECK_SECS;
    assert_eq!(update(&mut s, Event::Tick(at)), vec![Effect::LoadDue { now: at, interval_secs: 3600 }]);
    assert_eq!(update(&mut s, Event::DueFeeds(vec![FeedId(2), FeedId(3)])), vec![refresh(0, vec![2, 3], false)]);
    assert!(update(&mut s, Event::Tick(1000 + 2 * progress::AUTO_CHECK_SECS)).is_empty(), "not while a refresh runs");
    let mut off = loaded();
    update(&mut off, Event::Tick(1));
    assert!(update(&mut off, Event::Tick(1 + 10 * progress::AUTO_CHECK_SECS)).is_empty(), "off when the interval is 0");
}

#[test]
fn skipped_and_backing_off_feeds_are_told_apart() {
    let mut s = loaded();
    update(&mut s, key('R'));
    update(
        &mut s,
        Event::Refresh(RefreshEvent::Skipped {
            feed_id: FeedId(1),
            title: "One".into(),
            reason: model::Skip::Waiting { until: 2_000_000 },
        }),
    );
    let failed = |feed_id, message: &str, retry_at, dead| RefreshEvent::Failed {
        feed_id: FeedId(feed_id),
        title: "x".into(),
        url: "u".into(),
        kind: ErrorKind::Http,
        message: message.into(),
        retry_at,
        dead,
    };
    update(&mut s, Event::Refresh(failed(2, "HTTP 503", Some(99_999_999), false)));
    assert_eq!(s.feeds.feeds[1].retry_at, Some(99_999_999));
    update(&mut s, Event::Refresh(failed(3, "HTTP 410", None, true)));
    assert!(s.feeds.feeds[2].dead);
    assert_eq!(
        s.status.current(s.clock.now).unwrap().text,
        "Refreshed 2 feeds, nothing new, 2 failed, 1 left alone (waiting or gone); 2 feeds need a look (! shows them)"
    );
}

/// A refresh no feed answered (the machine's network is down) ends saying so, not counting the feeds as failing,
/// and reads the list again (the store forgave their failures).
#[test]
fn a_refresh_that_met_a_network_outage_says_the_network_is_down_not_that_feeds_need_a_look() {
    let mut s = loaded();
    update(&mut s, key('R'));
    for id in 1..=3 {
        update(
            &mut s,
            Event::Refresh(RefreshEvent::Failed {
                feed_id: FeedId(id),
                title: "x".into(),
                url: format!("http://host{id}.example/feed"),
                kind: ErrorKind::Dns,
                message: "cannot find the host".into(),
                retry_at: None,
                dead: false,
            }),
        );
    }
    assert_eq!(update(&mut s, Event::NetworkDown), vec![Effect::LoadFeeds]);
    let said = s.status.current(s.clock.now).unwrap().text.clone();
    assert!(said.contains("the network seems down, so no feed counts as failing"), "{said}");
    assert!(said.contains("then refresh (R)") && !said.contains("need a look"), "{said}");
}

#[test]
fn a_refresh_into_the_list_on_screen_reads_it_again_once_at_a_time_and_catches_up_at_the_end() {
    let mut s = loaded();
    go_to(&mut s, ListKey::All);
    entries_loaded(&mut s, ListKey::All, vec![entry(10, 1, false)]);
    update(&mut s, key('R'));
    let done = |feed_id| {
        Event::Refresh(RefreshEvent::Done {
            feed_id: FeedId(feed_id),
            new: 5,
            updated: 0,
            unread: 5,
            title: "T".into(),
            moved_to: None,
            cut_from: None,
        })
    };
    let reads = |effects: &[Effect]| effects.iter().filter(|e| matches!(e, Effect::LoadEntries { .. })).count();
    assert_eq!(reads(&update(&mut s, done(1))), 1, "the first feed's entries are shown at once");
    assert_eq!(reads(&update(&mut s, done(2))), 0, "not while that read is on its way");
    // The read arrives within the same second: the next waits for a tick.
    assert_eq!(reads(&entries_loaded(&mut s, ListKey::All, vec![entry(10, 1, false), entry(20, 2, false)])), 0);
    let now = s.clock.now;
    assert_eq!(reads(&update(&mut s, Event::Tick(now + 1))), 1, "a tick reads what was held back");
    assert_eq!(reads(&update(&mut s, Event::Tick(now + 2))), 0, "one read at a time");
    assert_eq!(reads(&update(&mut s, done(3))), 0);
    // The refresh ended while a read was on its way: its arrival asks for the rest.
    assert!(s.progress.is_idle());
    assert_eq!(reads(&entries_loaded(&mut s, ListKey::All, vec![entry(10, 1, false)])), 1);
    assert_eq!(reads(&entries_loaded(&mut s, ListKey::All, vec![entry(10, 1, false)])), 0, "and then it rests");
    assert_eq!(reads(&update(&mut s, Event::Tick(now + 3))), 0);
}

#[test]
fn a_feed_that_failed_in_another_processs_refresh_is_said_like_our_own() {
    let mut s = loaded();
    let effects = update(&mut s, Event::ChangedOutside);
    assert_eq!(effects[0], Effect::LoadFeeds, "the feed list is read again");
    let mut one = feed(1, "One", 2, None);
    one.last_error = Some("HTTP 404 (not found)".into());
    one.last_fetched_at = Some(s.clock.now);
    let feeds = vec![one, feed(2, "Two", 0, Some((7, "News"))), feed(3, "Three", 1, Some((7, "News")))];
    feeds_loaded(&mut s, feeds.clone(), vec![news()]);
    let said = s.status.current(s.clock.now).expect("a message");
    assert!(said.error && said.text == "One: HTTP 404 (not found)", "{said:?}");
    // The same list read again for another reason says nothing new.
    s.status.clear();
    feeds_loaded(&mut s, feeds, vec![news()]);
    assert!(s.status.current(s.clock.now).is_none());
    // A feed added from the command line whose first refresh there failed is said too.
    update(&mut s, Event::ChangedOutside);
    let mut five = feed(5, "Five", 0, None);
    five.last_error = Some("no answer within 30 s".into());
    five.last_fetched_at = Some(s.clock.now);
    let mut with_five = s.feeds.feeds.clone();
    with_five.push(five);
    feeds_loaded(&mut s, with_five, vec![news()]);
    assert_eq!(s.status.current(s.clock.now).map(|m| m.text.as_str()), Some("Five: no answer within 30 s"));
    // It recovers in the next headless refresh: the message goes.
    update(&mut s, Event::ChangedOutside);
    s.status.feed_error(FeedId(1), "One: HTTP 404 (not found)", s.clock.now);
    let feeds =
        vec![feed(1, "One", 2, None), feed(2, "Two", 0, Some((7, "News"))), feed(3, "Three", 1, Some((7, "News")))];
    feeds_loaded(&mut s, feeds, vec![news()]);
    assert!(s.status.current(s.clock.now).is_none());
}

#[test]
fn on_a_view_r_refreshes_every_feed_and_c_and_d_say_why_they_do_nothing() {
    let mut s = loaded();
    go_to(&mut s, ListKey::All);
    let effects = update(&mut s, key('r'));
    assert!(matches!(&effects[..], [Effect::Refresh { ids, .. }] if ids.len() == 3), "{effects:?}");
    for (k, says) in [('c', "to rename it"), ('D', "to delete it")] {
        assert!(update(&mut s, key(k)).is_empty());
        assert!(s.dialog.is_none());
        assert!(s.status.current(s.clock.now).is_some_and(|m| m.text.contains(says)), "{k}");
    }
}

#[test]
fn a_feeds_new_entries_raise_its_folders_count_as_the_refresh_reports_it() {
    let mut s = loaded();
    let news = |s: &State| {
        s.feeds.rows.iter().find_map(|r| match r {
            FeedListRow::Folder { id: FolderId(7), unread, .. } => Some(*unread),
            _ => None,
        })
    };
    assert_eq!(news(&s), Some(1), "Three's one unread entry");
    update(&mut s, key('R'));
    let done = RefreshEvent::Done {
        feed_id: FeedId(2),
        new: 4,
        updated: 0,
        unread: 4,
        title: "Two".into(),
        moved_to: None,
        cut_from: None,
    };
    update(&mut s, Event::Refresh(done));
    assert_eq!(news(&s), Some(5), "Two's four new ones count in News at once");
}

/// A reader with the account FreshRSS: feed 1 local, feeds 2 and 3 the account's.
fn with_an_account() -> State {
    let setup = Setup { accounts: vec!["FreshRSS".into()], ..Setup::default() };
    let mut s = State::new(setup, (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    let account = Some(AccountId(1));
    let feeds = vec![
        feed(1, "Local", 1, None),
        FeedRow { account, ..feed(2, "Two", 2, Some((7, "FreshRSS"))) },
        FeedRow { account, ..feed(3, "Three", 0, Some((7, "FreshRSS"))) },
    ];
    let effects = feeds_loaded(&mut s, feeds, vec![FolderRow { name: "FreshRSS".into(), ..news() }]);
    assert!(effects.contains(&Effect::Sync(vec!["FreshRSS".into()])), "the reader syncs at start: {effects:?}");
    s
}

#[test]
fn r_refreshes_local_feeds_and_syncs_accounts_and_an_accounts_feed_is_only_synced() {
    let mut s = with_an_account();
    update(&mut s, Event::Synced { account: "FreshRSS".into(), said: Ok("FreshRSS: 0 new".into()), changed: false });
    let effects = update(&mut s, key('R'));
    assert!(effects.contains(&Effect::Sync(vec!["FreshRSS".into()])), "{effects:?}");
    assert!(effects.contains(&refresh(0, vec![1], false)), "only the local feed is fetched: {effects:?}");
    assert!(update(&mut s, key('R')).iter().all(|e| !matches!(e, Effect::Sync(_))), "one sync at a time");
    update(&mut s, Event::Synced { account: "FreshRSS".into(), said: Ok("FreshRSS: 1 new".into()), changed: true });
    go_to(&mut s, ListKey::Feed(FeedId(2)));
    let effects = update(&mut s, key('r'));
    assert_eq!(effects, vec![Effect::Sync(vec!["FreshRSS".into()])], "its server fetches it");
}

#[test]
fn what_a_sync_said_is_in_the_status_bar_and_what_it_changed_is_read_again() {
    let mut s = with_an_account();
    let effects = update(
        &mut s,
        Event::Synced {
            account: "FreshRSS".into(),
            said: Ok("FreshRSS: 120 new, 14 changes sent".into()),
            changed: true,
        },
    );
    assert!(effects.contains(&Effect::LoadFeeds));
    assert_eq!(s.status.current(s.clock.now).unwrap().text, "FreshRSS: 120 new, 14 changes sent");
    update(&mut s, key('R'));
    let offline = "FreshRSS offline (cannot connect: Connection refused): 6 changes waiting".to_string();
    let effects =
        update(&mut s, Event::Synced { account: "FreshRSS".into(), said: Err(offline.clone()), changed: false });
    assert!(effects.is_empty());
    let shown = s.status.current(s.clock.now).unwrap();
    assert!(shown.error && shown.text == offline, "{shown:?}");
    assert!(s.sync.in_flight.is_empty(), "the next R syncs again");
}

#[test]
fn the_automatic_refresh_syncs_the_accounts_each_interval() {
    let setup = Setup { accounts: vec!["FreshRSS".into()], auto_refresh_secs: Some(600), ..Setup::default() };
    let mut s = State::new(setup, (160, 40));
    update(&mut s, Event::Tick(1_000_000));
    feeds_loaded(&mut s, vec![feed(1, "Local", 1, None)], vec![]);
    update(&mut s, Event::Synced { account: "FreshRSS".into(), said: Ok("FreshRSS: 0 new".into()), changed: false });
    assert!(!update(&mut s, Event::Tick(1_000_300)).contains(&Effect::Sync(vec!["FreshRSS".into()])));
    assert!(update(&mut s, Event::Tick(1_000_601)).contains(&Effect::Sync(vec!["FreshRSS".into()])));
}

#[test]
fn a_setting_typed_in_the_feed_info_is_handed_to_the_runtime_and_the_info_read_again() {
    let mut s = loaded();
    assert_eq!(update(&mut s, key('i')), vec![Effect::LoadFeedInfo(FeedId(1))]);
    assert!(update(&mut s, key('s')).is_empty());
    assert!(matches!(&s.dialog, Some(Dialog::Prompt(p)) if p.purpose == PromptPurpose::FeedSetting(FeedId(1))));
    typed(&mut s, " = 15");
    assert!(update(&mut s, code(KeyCode::Enter)).is_empty(), "no key: refused");
    let Some(Dialog::Prompt(prompt)) = &s.dialog else { panic!("the prompt stays open") };
    assert!(prompt.error.as_deref().unwrap().contains("key = value"));
    update(&mut s, ctrl('u'));
    typed(&mut s, "refresh_minutes = 15");
    let url = s.feeds.feeds[0].url.clone();
    assert_eq!(
        update(&mut s, code(KeyCode::Enter)),
        vec![
            Effect::SetFeedSetting { feed_id: FeedId(1), url, setting: "refresh_minutes = 15".into() },
            Effect::LoadFeedInfo(FeedId(1))
        ]
    );
    assert!(matches!(&s.dialog, Some(Dialog::Info(i)) if i.feed_id == FeedId(1)), "back to the feed info");
    let saved =
        |outcome| Event::FeedSettingSaved { feed_id: FeedId(1), setting: "refresh_minutes = 15".into(), outcome };
    assert_eq!(update(&mut s, saved(Ok(()))), vec![Effect::LoadFeeds, Effect::LoadFeedInfo(FeedId(1))]);
    assert!(update(&mut s, saved(Err("line 3: must be between 1 and 10080".into()))).is_empty());
    assert!(s.status.last_error().unwrap().text.contains("must be between 1 and 10080"));
}

/// A feed redirected for good whose server says nothing changed (a 304, or the same document again) has moved
/// all the same: the feed remembers where, and the refresh's summary says it.
#[test]
fn a_move_proposed_by_a_feed_that_did_not_change_is_told_as_a_move() {
    let mut s = loaded();
    update(&mut s, key('R'));
    let moved = Some("http://example.com/new".to_string());
    update(
        &mut s,
        Event::Refresh(RefreshEvent::NotModified { feed_id: FeedId(1), title: "One".into(), moved_to: moved }),
    );
    for id in [2, 3] {
        let same = RefreshEvent::NotModified { feed_id: FeedId(id), title: format!("F{id}"), moved_to: None };
        update(&mut s, Event::Refresh(same));
    }
    assert_eq!(s.feeds.feeds[0].moved_to.as_deref(), Some("http://example.com/new"));
    let said = s.status.current(s.clock.now).unwrap().text.clone();
    assert!(said.contains("One moved for good to http://example.com/new"), "{said}");
}
