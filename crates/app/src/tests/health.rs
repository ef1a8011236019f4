//! The health view: opened by its key, judged at the reader's time worst first, read and acted on with the keyboard
//! alone — marks, unsubscribing, pausing, retrying, accepting a move, opening the site — each change a write.

use super::*;
use tidings_core::health::{HealthFacts, HealthState};

const NOW: i64 = 1_000_000_000;

fn facts(id: i64, title: &str) -> HealthFacts {
    HealthFacts {
        feed_id: FeedId(id),
        url: format!("http://example.com/{id}"),
        title: title.into(),
        site_url: Some(format!("http://example.com/site{id}")),
        added_at: NOW - 1000,
        fetched: true,
        ..Default::default()
    }
}

/// The reader with the view open on: One (ok), Two (dead: 404 three times), Three (moved), Four (dead too).
fn opened() -> State {
    let mut s = loaded();
    update(&mut s, Event::Tick(NOW));
    assert_eq!(update(&mut s, key('!')), vec![Effect::LoadHealth]);
    assert_eq!(s.dialog, Some(Dialog::Health));
    let dead = |id, title| HealthFacts {
        failures: 3,
        permanent_failures: 3,
        last_status: Some(404),
        failing_since: Some(NOW - 500),
        ..facts(id, title)
    };
    let moved = HealthFacts { moved_to: Some("http://new.example/3".into()), moves_in_a_row: 3, ..facts(3, "Three") };
    let all = vec![facts(1, "One"), dead(2, "Two"), moved, dead(4, "Four")];
    update(&mut s, Event::HealthLoaded { facts: all, left_out: 0 });
    s
}

fn order(s: &State) -> Vec<(i64, HealthState)> {
    s.health.rows.iter().flatten().map(|r| (r.facts.feed_id.0, r.health.state)).collect()
}

#[test]
fn the_view_lists_every_feed_worst_first_and_closes_with_its_key() {
    let mut s = opened();
    let want = vec![(4, HealthState::Dead), (2, HealthState::Dead), (3, HealthState::Moved), (1, HealthState::Ok)];
    assert_eq!(order(&s), want);
    assert_eq!(s.health.in_trouble(), 3);
    assert_eq!(update(&mut s, key('i')), vec![Effect::LoadFeedInfo(FeedId(4))]);
    assert!(matches!(s.dialog, Some(Dialog::Info(_))));
    update(&mut s, code(KeyCode::Esc));
    assert_eq!(s.dialog, Some(Dialog::Health), "closing the info comes back to the view");
    update(&mut s, code(KeyCode::Esc));
    assert_eq!(s.dialog, None);
}

#[test]
fn marks_one_by_one_or_all_of_a_state_then_pause_them_together() {
    let mut s = opened();
    update(&mut s, key(' '));
    assert_eq!(s.health.marked.iter().map(|id| id.0).collect::<Vec<_>>(), vec![4]);
    assert_eq!(s.health.cursor.index, 1, "marking moves on");
    update(&mut s, key('*'));
    assert_eq!(s.health.marked.len(), 2, "both dead feeds, and no other");
    update(&mut s, key('*'));
    assert!(s.health.marked.is_empty(), "again: unmarked");
    update(&mut s, key('*'));
    let effects = update(&mut s, key('p'));
    assert_eq!(
        effects,
        vec![
            Effect::write(UserWrite::SetFeedsPaused { feed_ids: vec![FeedId(2), FeedId(4)], paused: true }),
            Effect::LoadHealth
        ]
    );
}

#[test]
fn unsubscribing_the_marked_feeds_asks_first_then_writes_each_and_comes_back() {
    let mut s = opened();
    update(&mut s, key('*'));
    update(&mut s, key('D'));
    assert!(matches!(&s.dialog, Some(Dialog::Confirm(c)) if c.action == Confirmed::UnsubscribeMarked));
    let effects = update(&mut s, key('y'));
    assert_eq!(
        effects,
        vec![
            Effect::write(UserWrite::DeleteFeed(FeedId(2))),
            Effect::write(UserWrite::DeleteFeed(FeedId(4))),
            Effect::LoadFeeds,
            Effect::LoadHealth
        ]
    );
    assert_eq!(s.dialog, Some(Dialog::Health), "the view is back under the question");
    assert!(s.feeds.feeds.iter().all(|f| f.id != FeedId(2)));
}

#[test]
fn retry_accept_a_move_and_open_the_site_act_on_the_feed_under_the_cursor() {
    let mut s = opened();
    assert_eq!(update(&mut s, key('r')), vec![refresh(0, vec![4], true)]);
    update(&mut s, key('m'));
    assert!(s.status.current(NOW).is_some_and(|m| m.text.contains("No move to accept")));
    update(&mut s, key('j'));
    update(&mut s, key('j'));
    assert_eq!(
        update(&mut s, key('m')),
        vec![Effect::write(UserWrite::AcceptMove(FeedId(3))), Effect::LoadFeeds, Effect::LoadHealth]
    );
    assert_eq!(
        update(&mut s, key('o')),
        vec![Effect::Open { url: "http://example.com/site3".into(), kind: OpenKind::Page }]
    );
}

#[test]
fn a_feed_in_trouble_stays_in_the_feed_list_when_feeds_with_nothing_unread_are_hidden() {
    let mut s = loaded();
    let failing = FeedRow { last_error: Some("HTTP 404".into()), ..feed(2, "Two", 0, Some((7, "News"))) };
    feeds_loaded(&mut s, vec![feed(1, "One", 2, None), failing, feed(3, "Three", 0, None)], vec![news()]);
    update(&mut s, key('H'));
    let shown: Vec<FeedId> = s
        .feeds
        .rows
        .iter()
        .filter_map(|r| match r {
            FeedListRow::Feed { index, .. } => Some(s.feeds.feeds[*index].id),
            _ => None,
        })
        .collect();
    assert!(shown.contains(&FeedId(2)) && !shown.contains(&FeedId(3)), "{shown:?}");
}
