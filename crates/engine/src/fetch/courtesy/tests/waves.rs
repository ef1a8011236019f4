//! A whole refresh of unchanged feeds, wave by wave: the connections a host's revalidations open and the round trips
//! they take, as the refresher's client would send them.

use super::*;

/// A turn's request going out to host `h`: on a connection its host's last request left open, else a new one.
fn go_out(h: usize, mut turn: Turn, idle: &mut [usize], opened: &mut usize, to: &mut Vec<(usize, Turn)>) {
    if idle[h] > 0 {
        idle[h] -= 1;
    } else {
        *opened += 1;
    }
    turn.keep_alive();
    to.push((h, turn));
}

/// Five revalidations queued to each of `hosts` hosts by `scheme`, as a refresh lists them (every host's first
/// feed, then every host's second, …), each with its host's number.
fn five_revalidations_each(courtesy: &Courtesy, scheme: &str, hosts: usize) -> Vec<(usize, Ticket)> {
    (0..5)
        .flat_map(|f| (0..hosts).map(move |h| (h, f)))
        .map(|(h, f)| (h, courtesy.queue(&format!("{scheme}://{h}.test/{f}"), REVAL)))
        .collect()
}

/// A refresh of five unchanged feeds on each of 200 hosts by `scheme`, every request answered 304 one round trip
/// after it went out, over HTTP/2 or HTTP/1, as the refresher's client would send them (a connection kept for the
/// host's next request is reused): the connections opened (on HTTP/1), and the round trips taken.
pub(super) fn unchanged_refresh(courtesy: &Courtesy, scheme: &str, over_http2: bool) -> (usize, usize) {
    let hosts = 200;
    let mut tickets = five_revalidations_each(courtesy, scheme, hosts);
    let mut idle = vec![0usize; hosts];
    let mut opened = 0;
    let mut running: Vec<(usize, Turn)> = Vec::new();
    for (h, t) in &mut tickets {
        if let Some(turn) = now(t) {
            go_out(*h, turn, &mut idle, &mut opened, &mut running);
        }
    }
    let mut rounds = 0;
    while !running.is_empty() {
        rounds += 1;
        let mut next = Vec::new();
        for (h, turn) in running.drain(..) {
            turn.answered();
            turn.answered_over(over_http2);
            if turn.keeping {
                idle[h] += 1;
            }
            drop(turn);
            for (hh, t) in &mut tickets {
                if let Some(turn) = now(t) {
                    go_out(*hh, turn, &mut idle, &mut opened, &mut next);
                }
            }
        }
        running = next;
    }
    (opened, rounds)
}

#[test]
fn unchanged_feeds_of_200_hosts_over_tls_take_400_connections_and_three_round_trips_even_before_any_answer() {
    // Before any answer, a revalidation takes three quarters of a slot: 341 go first, a connection to every host
    // and a second to 141 of them, where whole slots would have sent 256.
    let courtesy = Courtesy::new(256, 6);
    let mut tickets = five_revalidations_each(&courtesy, "https", 200);
    let first: Vec<(usize, Turn)> = tickets.iter_mut().filter_map(|(h, t)| now(t).map(|turn| (*h, turn))).collect();
    let mut turns = vec![0; 200];
    first.iter().for_each(|&(h, _)| turns[h] += 1);
    let twice = turns.iter().filter(|&&n| n == 2).count();
    assert!(turns.iter().all(|&n| n == 1 || n == 2), "{turns:?}");
    assert_eq!((first.len(), twice), (341, 141), "the first wave: every host, and a second connection to 141");
    drop((first, tickets));
    assert_eq!(unchanged_refresh(&Courtesy::new(256, 6), "https", false), (400, 3), "a process started afresh");
    assert_eq!(unchanged_refresh(&after_304s(256, 6), "https", false), (400, 3), "after a run of 304s");
}

#[test]
fn unchanged_feeds_of_200_plain_http_hosts_take_up_to_three_connections_each_and_two_round_trips_once_304s_are_known() {
    // About three connections a host (three for five revalidations); before any answer only 341 revalidations go
    // at once, so some hosts' next ones wait for the first answers and take a third round trip.
    assert_eq!(unchanged_refresh(&Courtesy::new(256, 6), "http", false), (567, 3), "a process started afresh");
    // Once revalidations are known to be answered 304, a refresh opens all 600 at once: two round trips.
    assert_eq!(unchanged_refresh(&after_304s(256, 6), "http", false), (600, 2), "after a run of 304s");
}
