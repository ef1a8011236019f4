//! Quitting keeps the user's changes: it waits for the writes on their way to the database, tries again the
//! ones the database refused for now, names who holds the database, and — asked twice — leaves them, naming
//! them for the runtime to report.

use super::*;
use crate::saving::RETRY_SECS;

/// Entry 10 starred from the entries pane: the write it asked for, numbered.
fn starred(s: &mut State) -> (WriteId, UserWrite) {
    update(s, key('l'));
    let before = s.saving.last_issued();
    let effects = crate::update(s, key('s'));
    let write = UserWrite::SetStarred { ids: ids([10]), starred: true };
    let id = before.next();
    assert_eq!(effects, vec![Effect::Write { id, write: write.clone() }], "the next number");
    (id, write)
}

fn saved(id: WriteId) -> Event {
    Event::Written { id, outcome: Ok(Applied::Flags { missing: 0 }) }
}

fn busy(id: WriteId) -> Event {
    let failure = WriteFailure { message: "database error: database is locked".into(), retry: true };
    Event::Written { id, outcome: Err(failure) }
}

/// The write asked for again among `effects`, with its new number.
fn asked_again(effects: &[Effect], write: &UserWrite) -> Option<WriteId> {
    effects.iter().find_map(|e| match e {
        Effect::Write { id, write: w } if w == write => Some(*id),
        _ => None,
    })
}

fn status(s: &State) -> String {
    s.status.current(s.clock.now).map(|m| m.text.clone()).unwrap_or_default()
}

#[test]
fn quitting_with_nothing_unsaved_quits_at_once() {
    let mut s = loaded();
    let (id, _) = starred(&mut s);
    update(&mut s, saved(id));
    assert_eq!(update(&mut s, key('q')), vec![]);
    assert!(s.quit);
    assert!(s.saving.abandoned.is_empty());
}

#[test]
fn quitting_waits_for_the_changes_on_their_way_and_ends_when_the_database_has_them() {
    let mut s = loaded();
    let (id, _) = starred(&mut s);
    assert_eq!(update(&mut s, key('q')), vec![]);
    assert!(!s.quit, "a star still on its way to the database holds the quit");
    assert!(status(&s).starts_with("Saving 1 change before quitting"), "{}", status(&s));
    assert!(status(&s).contains("q again quits without saving them"), "{}", status(&s));
    update(&mut s, saved(WriteId(id.0 + 1)));
    assert!(!s.quit, "an answer to another write is not this one's");
    update(&mut s, saved(id));
    assert!(s.quit, "the star is saved: the reader quits");
    assert!(s.saving.abandoned.is_empty());
}

#[test]
fn quit_asked_twice_leaves_the_unsaved_changes_and_names_them() {
    let mut s = loaded();
    let (_, write) = starred(&mut s);
    update(&mut s, key('q'));
    assert!(!s.quit);
    update(&mut s, key('q'));
    assert!(s.quit, "asked again, the reader quits without waiting");
    assert_eq!(s.saving.abandoned, vec![write.clone()]);
    assert_eq!(write.what(), "starred 1 entry");
}

#[test]
fn a_write_the_database_refused_for_now_is_kept_and_tried_again() {
    let mut s = loaded();
    let (id, write) = starred(&mut s);
    let effects = update(&mut s, busy(id));
    assert!(!effects.contains(&Effect::LoadFeeds), "the screen keeps the star: it is still to be saved");
    assert_eq!(s.saving.pending(), 1);
    assert!(status(&s).contains("kept, to be saved again"), "{}", status(&s));
    let now = s.clock.now;
    assert_eq!(asked_again(&crate::update(&mut s, Event::Tick(now + 1)), &write), None, "not at once");
    let effects = crate::update(&mut s, Event::Tick(now + RETRY_SECS));
    let again = asked_again(&effects, &write).expect("tried again");
    assert!(again > id, "with a number of its own, after the first: {again:?} {id:?}");
    assert_eq!(s.saving.pending(), 1, "on its way again");
    update(&mut s, saved(again));
    assert_eq!(s.saving.pending(), 0);
}

#[test]
fn quitting_tries_refused_writes_again_at_once_and_waits_for_them() {
    let mut s = loaded();
    let (id, write) = starred(&mut s);
    update(&mut s, busy(id));
    let effects = crate::update(&mut s, key('q'));
    let again = asked_again(&effects, &write);
    assert_eq!(effects.len(), 1, "quitting does not wait for the retry's time: {effects:?}");
    assert!(!s.quit);
    assert!(status(&s).contains("trying again (database error: database is locked)"), "{}", status(&s));
    update(&mut s, saved(again.expect("asked again")));
    assert!(s.quit);
}

#[test]
fn a_write_that_cannot_work_is_reported_and_does_not_hold_up_quitting() {
    let mut s = loaded();
    let (id, _) = starred(&mut s);
    let failure = WriteFailure { message: "no such entry".into(), retry: false };
    let effects = update(&mut s, Event::Written { id, outcome: Err(failure) });
    assert!(effects.contains(&Effect::LoadFeeds), "the screen is read again, without the change");
    assert_eq!(status(&s), "cannot save the star: no such entry");
    update(&mut s, key('q'));
    assert!(s.quit);
}

#[test]
fn quitting_that_waits_names_who_holds_the_database() {
    let mut s = loaded();
    let now = s.clock.now;
    starred(&mut s);
    update(&mut s, key('q'));
    assert!(!update(&mut s, Event::Tick(now)).contains(&Effect::FindDatabaseHolders), "not in the first second");
    let effects = update(&mut s, Event::Tick(now + 1));
    assert!(effects.contains(&Effect::FindDatabaseHolders), "{effects:?}");
    update(&mut s, Event::DatabaseHolders(vec!["sqlite3 (pid 4242)".into()]));
    assert!(status(&s).contains("waiting for sqlite3 (pid 4242), which holds the database"), "{}", status(&s));
    assert!(!s.quit);
}

#[test]
fn quit_from_a_dialog_waits_for_the_changes_too() {
    let mut s = loaded();
    let (id, _) = starred(&mut s);
    update(&mut s, key('?'));
    assert!(s.dialog.is_some());
    update(&mut s, ctrl('c'));
    assert!(!s.quit, "Ctrl-C in help waits for the star as q does");
    update(&mut s, saved(id));
    assert!(s.quit);
}
