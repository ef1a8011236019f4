use super::*;

const DOC: Weight = Weight::Document;
const REVAL: Weight = Weight::Revalidation;

fn now(ticket: &mut Ticket) -> Option<Turn> {
    ticket.turn.as_mut()?.try_recv().ok()
}

/// The turns of `tickets` that are granted now.
fn granted(tickets: &mut [Ticket]) -> Vec<Turn> {
    tickets.iter_mut().filter_map(now).collect()
}

/// Limits whose revalidations were all answered 304 lately: each takes a quarter of a slot.
fn after_304s(in_flight: usize, per_host: usize) -> Courtesy {
    let courtesy = Courtesy::new(in_flight, per_host);
    let mut state = courtesy.0.lock();
    (0..64).for_each(|_| state.answers.note(false));
    drop(state);
    courtesy
}

/// `n` requests queued to `base` (a scheme, host and port): `{base}/0`, `{base}/1`, …
fn queued(courtesy: &Courtesy, base: &str, n: usize, weight: Weight) -> Vec<Ticket> {
    (0..n).map(|i| courtesy.queue(&format!("{base}/{i}"), weight)).collect()
}

/// `n` requests queued to `host`, on plain HTTP.
fn on(courtesy: &Courtesy, host: &str, n: usize, weight: Weight) -> Vec<Ticket> {
    queued(courtesy, &format!("http://{host}"), n, weight)
}

/// `n` requests queued to `host`, over TLS.
fn on_tls(courtesy: &Courtesy, host: &str, n: usize, weight: Weight) -> Vec<Ticket> {
    queued(courtesy, &format!("https://{host}"), n, weight)
}

/// `n` requests queued, one to each of `n` hosts.
fn one_each(courtesy: &Courtesy, n: usize, weight: Weight) -> Vec<Ticket> {
    (0..n).map(|i| courtesy.queue(&format!("http://{i}.test/"), weight)).collect()
}

#[test]
fn a_host_never_has_more_than_its_limit_nor_the_whole_more_than_the_global_one() {
    let courtesy = Courtesy::new(3, 2);
    let mut a: Vec<Ticket> = on(&courtesy, "a.test", 3, DOC);
    let mut b: Vec<Ticket> = on(&courtesy, "b.test", 2, DOC);
    let a_turns = granted(&mut a);
    let b_turns = granted(&mut b);
    assert_eq!((a_turns.len(), b_turns.len()), (2, 1), "a's limit is 2, and the third slot goes to b");
    assert_eq!(courtesy.host_load("http://a.test/"), (2, 1));
    drop(b_turns);
    assert!(now(&mut a[2]).is_none(), "a is at its limit: b's slot goes to b's next");
    assert!(now(&mut b[1]).is_some());
}

#[test]
fn an_ending_request_hands_its_slot_to_its_hosts_next_before_other_hosts() {
    let courtesy = Courtesy::new(2, 4);
    let mut a: Vec<Ticket> = on(&courtesy, "a.test", 3, DOC);
    let mut b = courtesy.queue("http://b.test/", DOC);
    let first = now(&mut a[0]).unwrap();
    let _second = now(&mut a[1]).unwrap();
    assert!(now(&mut b).is_none() && now(&mut a[2]).is_none(), "two slots, both taken");
    drop(first);
    let _next = now(&mut a[2]).expect("a's next took over the slot a's request left");
    assert!(now(&mut b).is_none());
}

#[test]
fn hosts_in_line_take_free_slots_in_turn() {
    let courtesy = Courtesy::new(2, 2);
    let mut blockers: Vec<Ticket> = on(&courtesy, "x.test", 2, DOC);
    let mut held = granted(&mut blockers);
    let mut a: Vec<Ticket> = on(&courtesy, "a.test", 2, DOC);
    let mut b = courtesy.queue("http://b.test/", DOC);
    drop(held.pop());
    let _a0 = now(&mut a[0]).expect("a queued first");
    drop(held.pop());
    assert!(now(&mut a[1]).is_none(), "a had its turn: b's comes before a's second");
    assert!(now(&mut b).is_some());
}

#[test]
fn the_first_in_line_waiting_for_a_whole_slot_is_not_overtaken_by_revalidations() {
    let courtesy = after_304s(1, 8);
    let mut light: Vec<Ticket> = one_each(&courtesy, 4, REVAL);
    let mut running = granted(&mut light);
    let mut document = courtesy.queue("http://big.test/", DOC);
    let mut later: Vec<Ticket> = (0..3).map(|i| courtesy.queue(&format!("http://later{i}.test/"), REVAL)).collect();
    for _ in 0..3 {
        drop(running.pop());
        assert!(later.iter_mut().all(|t| now(t).is_none()), "a quarter free goes to nobody behind the document");
    }
    drop(running.pop());
    assert!(now(&mut document).is_some(), "a whole slot: the document goes first");
}

#[test]
fn a_request_the_user_waits_on_goes_ahead_of_a_refreshs_queue() {
    let courtesy = Courtesy::new(1, 4);
    let mut refresh: Vec<Ticket> = one_each(&courtesy, 3, DOC);
    let first = now(&mut refresh[0]).unwrap();
    let mut picture = courtesy.join("http://pictures.test/a.png", DOC, true);
    drop(first);
    let _picture = now(&mut picture).expect("the user's request takes the next slot");
    assert!(now(&mut refresh[1]).is_none());
}

#[test]
fn a_ticket_given_up_while_waiting_loses_its_place_and_no_slot() {
    let courtesy = Courtesy::new(1, 4);
    let mut first = courtesy.queue("http://a.test/1", DOC);
    let held = now(&mut first).unwrap();
    let gone = courtesy.queue("http://a.test/2", DOC);
    let mut next = courtesy.queue("http://a.test/3", DOC);
    drop(gone);
    drop(held);
    let turn = now(&mut next).expect("the slot skipped the ticket given up");
    drop(turn);
    assert_eq!(courtesy.host_load("http://a.test/"), (0, 0));
    let mut again = courtesy.queue("http://a.test/4", DOC);
    assert!(now(&mut again).is_some(), "the slot came back");
}

#[test]
fn revalidations_go_four_to_a_slot_and_documents_wait_for_a_whole_one() {
    let courtesy = after_304s(1, 8);
    let mut light: Vec<Ticket> = one_each(&courtesy, 5, REVAL);
    let mut heavy = courtesy.queue("http://big.test/", DOC);
    let turns = granted(&mut light);
    assert_eq!(turns.len(), 4, "one slot holds four revalidations");
    assert!(now(&mut heavy).is_none());
    let mut turns = turns.into_iter();
    drop(turns.next());
    let fifth = now(&mut light[4]).expect("a quarter given back takes the next revalidation in line");
    drop(turns);
    assert!(now(&mut heavy).is_none(), "the fifth revalidation still holds a quarter");
    let mut behind = courtesy.queue("http://big.test/2", DOC);
    drop(fifth);
    let _document = now(&mut heavy).expect("a whole slot free: the document goes");
    assert!(now(&mut behind).is_none(), "and the one queued behind it waits for the next");
}

#[test]
fn a_connection_is_kept_only_for_a_request_waiting_to_take_it_over() {
    let courtesy = Courtesy::new(8, 2);
    let mut tickets: Vec<Ticket> = on(&courtesy, "a.test", 4, DOC);
    let mut t0 = now(&mut tickets[0]).unwrap();
    let mut t1 = now(&mut tickets[1]).unwrap();
    assert!(t0.keep_alive() && t1.keep_alive(), "two in flight, two waiting: one each");
    drop(t0);
    let mut t2 = now(&mut tickets[2]).unwrap();
    assert!(!t2.keep_alive(), "t1 keeps its connection for the one request left waiting: t2 closes its own");
    drop(t1);
    let mut t3 = now(&mut tickets[3]).unwrap();
    assert!(!t3.keep_alive(), "nothing waits: the last request closes its connection");
    drop((t2, t3));
    assert_eq!(courtesy.host_load("http://a.test/"), (0, 0), "a host with nothing to do is forgotten");
}

#[test]
fn a_request_kept_a_connection_for_waits_for_that_connection() {
    let courtesy = Courtesy::new(8, 2);
    let mut a: Vec<Ticket> = on(&courtesy, "a.test", 3, DOC);
    let mut keeper = now(&mut a[0]).unwrap();
    let mut closer = now(&mut a[1]).unwrap();
    assert!(keeper.keep_alive() && !closer.keep_alive());
    drop(closer);
    assert!(now(&mut a[2]).is_none(), "its connection is closed: a[2] waits for the one kept for it");
    // Another host's request ending gives it no fresh slot either.
    let mut other = courtesy.queue("http://b.test/", DOC);
    drop(now(&mut other));
    assert!(now(&mut a[2]).is_none());
    drop(keeper);
    assert!(now(&mut a[2]).is_some(), "the kept connection's request ended: a[2] takes it over");
}

#[test]
fn of_two_requests_in_flight_and_one_waiting_only_one_keeps_its_connection() {
    let courtesy = Courtesy::new(8, 2);
    let mut tickets: Vec<Ticket> = on(&courtesy, "a.test", 3, DOC);
    let mut t0 = now(&mut tickets[0]).unwrap();
    let mut t1 = now(&mut tickets[1]).unwrap();
    assert!(t0.keep_alive(), "one request waits: the first to ask keeps its connection for it");
    assert!(!t1.keep_alive(), "and the other closes its own");
    assert!(t0.keep_alive(), "asking again does not change the answer");
    drop(t0);
    let mut t2 = now(&mut tickets[2]).unwrap();
    assert!(!t2.keep_alive());
}

#[test]
fn a_ticket_given_up_leaves_its_hosts_queue_at_once_and_so_does_one_whose_wait_was_dropped() {
    let courtesy = Courtesy::new(1, 1);
    let mut first = courtesy.queue("http://a.test/1", DOC);
    let _held = now(&mut first).unwrap();
    let mut waiting = on(&courtesy, "a.test", 3, DOC);
    assert_eq!(courtesy.host_load("http://a.test/"), (1, 3));
    drop(waiting.pop());
    assert_eq!(courtesy.host_load("http://a.test/"), (1, 2), "gone from the queue, not only when its turn comes");
    // A refresh cancelled while it waits drops the future waiting on the ticket.
    let wait = Box::pin(waiting.pop().unwrap().turn());
    drop(wait);
    assert_eq!(courtesy.host_load("http://a.test/"), (1, 1));
}

/// A host's revalidations, queued: how many connections they open before any ends, how many of those are kept
/// for the requests left waiting, and the order in which those take the connections over (none ever opening
/// another).
fn taken_in_turn(courtesy: &Courtesy, mut tickets: Vec<Ticket>, host: &str) -> (usize, usize, Vec<usize>) {
    let mut first = granted(&mut tickets);
    let opened = first.len();
    let kept = first.iter_mut().map(Turn::keep_alive).filter(|&kept| kept).count();
    let mut order = Vec::new();
    let mut in_flight: VecDeque<Turn> = first.into_iter().collect();
    while let Some(ending) = in_flight.pop_front() {
        drop(ending);
        for (i, ticket) in tickets.iter_mut().enumerate() {
            if let Some(mut turn) = now(ticket) {
                turn.keep_alive();
                order.push(i);
                in_flight.push_back(turn);
            }
        }
        assert!(courtesy.host_load(host).0 <= opened, "never more at once than the connections first opened");
    }
    assert_eq!(courtesy.host_load(host), (0, 0));
    (opened, kept, order)
}

#[test]
fn a_hosts_revalidations_open_a_connection_for_every_three_over_tls_and_every_two_on_plain_http() {
    let courtesy = Courtesy::new(64, 6);
    // Over TLS a connection costs a handshake: five revalidations take two, and each ending request hands its
    // connection to the next in line.
    let tls = taken_in_turn(&courtesy, on_tls(&courtesy, "a.test", 5, REVAL), "https://a.test/");
    assert_eq!(tls, (2, 2, vec![2, 3, 4]), "five revalidations over TLS: two connections, not five");
    // On plain HTTP a connection costs a round trip: three connections, two of them kept for the two waiting.
    let plain = taken_in_turn(&courtesy, on(&courtesy, "p.test", 5, REVAL), "http://p.test/");
    assert_eq!(plain, (3, 2, vec![3, 4]), "five revalidations on plain HTTP: three connections");

    // A long queue of them uses the host's whole limit; documents always may.
    let mut many: Vec<Ticket> = on_tls(&courtesy, "b.test", 30, REVAL);
    let running = granted(&mut many);
    assert_eq!(running.len(), 6);
    let mut documents: Vec<Ticket> = on(&courtesy, "c.test", 5, DOC);
    let running = granted(&mut documents);
    assert_eq!(running.len(), 5);
    let mut lone = courtesy.queue("http://d.test/", REVAL);
    assert!(now(&mut lone).is_some(), "one revalidation goes at once");
}

#[test]
fn a_download_in_flight_on_the_host_holds_no_revalidation_back() {
    let courtesy = Courtesy::new(64, 6);
    let mut download = on(&courtesy, "a.test", 1, DOC);
    let _downloading = now(&mut download[0]).expect("the download goes");
    let mut checks: Vec<Ticket> = on(&courtesy, "a.test", 2, REVAL);
    let going = granted(&mut checks);
    assert_eq!(going.len(), 1, "two revalidations: one connection of their own, beside the download's");
}

#[test]
fn a_revalidation_answered_with_a_document_counts_as_one_from_then_on() {
    // One slot: four revalidations at once, on four hosts.
    let courtesy = after_304s(1, 6);
    let mut revalidations = one_each(&courtesy, 4, REVAL);
    let mut turns = granted(&mut revalidations);
    assert_eq!(turns.len(), 4);
    // One brings a document: it now holds the whole slot, three quarters of it owed.
    let promoted = turns.pop().unwrap();
    promoted.promotion().promote();
    promoted.promotion().promote(); // Once.
    let mut next = courtesy.queue("http://late.test/", REVAL);
    for _ in 0..3 {
        drop(turns.pop());
        assert!(now(&mut next).is_none(), "the quarters given back pay what the promotion owes");
    }
    drop(promoted);
    assert!(now(&mut next).is_some(), "the document given back is a whole slot");
    // A document's turn has nothing to promote, nor has a revalidation's once it ended.
    let courtesy = after_304s(1, 6);
    let mut document = courtesy.queue("http://doc.test/", DOC);
    let document = now(&mut document).unwrap();
    document.promotion().promote();
    drop(document);
    let mut ended = courtesy.queue("http://ended.test/", REVAL);
    let ended = now(&mut ended).unwrap();
    let late = ended.promotion();
    drop(ended);
    late.promote();
    let mut five = one_each(&courtesy, 5, REVAL);
    let held = granted(&mut five);
    assert_eq!(held.len(), 4, "the slot whole again, and no more");
}

#[test]
fn before_any_answer_a_revalidation_takes_three_quarters_and_each_304_makes_the_next_cheaper() {
    let courtesy = Courtesy::new(3, 8);
    let mut queue = one_each(&courtesy, 300, REVAL);
    let mut at_once = Vec::new();
    let mut running: Vec<Turn> = Vec::new();
    for _ in 0..12 {
        running.extend(granted(&mut queue));
        at_once.push(running.len());
        // All answered 304.
        running.drain(..).for_each(|turn| turn.answered());
    }
    assert_eq!(at_once[0], 4, "nothing known yet: three quarters each, four where three documents go ({at_once:?})");
    assert!(at_once.windows(2).all(|w| w[0] <= w[1]), "never fewer at once as 304s come: {at_once:?}");
    assert_eq!(at_once.last(), Some(&12), "304s after 304s: four to a slot ({at_once:?})");
}

#[test]
fn a_revalidation_that_ended_without_an_answer_tells_nothing_of_what_the_next_cost() {
    let courtesy = Courtesy::new(3, 8);
    let mut queue = one_each(&courtesy, 200, REVAL);
    for round in 0..20 {
        let running = granted(&mut queue);
        // Cancelled, or its connection failed: no answer came.
        assert_eq!(running.len(), 4, "round {round}: still three quarters each");
    }
    // Of the next four, one is answered 304; the others end without an answer.
    let mut next = granted(&mut queue);
    assert_eq!(next.len(), 4);
    let answered = next.remove(0);
    answered.answered();
    answered.answered(); // Once.
    drop(answered);
    drop(next);
    let running = granted(&mut queue);
    assert_eq!(running.len(), 6, "one 304: half a slot each");
    // A promoted one was answered with a document, whatever it is told after.
    running.iter().for_each(|turn| {
        turn.promotion().promote();
        turn.answered();
    });
    drop(running);
    assert_eq!(courtesy.0.lock().answers, Answers { all: 7, documents: 6 });
}

#[test]
fn revalidations_that_bring_documents_keep_taking_whole_slots() {
    let courtesy = Courtesy::new(2, 8);
    let mut queue = one_each(&courtesy, 30, REVAL);
    for round in 0..10 {
        let running = granted(&mut queue);
        assert_eq!(running.len(), 2, "round {round}: every feed changed, so two at once as documents would");
        running.iter().for_each(|turn| turn.promotion().promote());
    }
    // Then their feeds stop changing: the next revalidations go four to a slot again.
    drop(queue);
    let mut later = one_each(&courtesy, 1000, REVAL);
    let mut running: Vec<Turn> = Vec::new();
    for _ in 0..64 {
        running.drain(..).for_each(|turn| turn.answered());
        running.extend(granted(&mut later));
    }
    assert_eq!(running.len(), 8, "after a run of 304s, two slots hold eight revalidations");
}

#[test]
fn a_promoted_revalidation_holds_no_other_revalidation_of_its_host_back() {
    let courtesy = Courtesy::new(8, 6);
    let mut queue = on_tls(&courtesy, "a.test", 3, REVAL);
    let first = now(&mut queue[0]).expect("one connection for three revalidations over TLS");
    assert!(now(&mut queue[1]).is_none());
    first.promotion().promote();
    assert!(now(&mut queue[1]).is_some(), "the document being read is no revalidation: another may go");
}

mod http2;
mod waves;
