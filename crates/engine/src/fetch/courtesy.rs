//! Courtesy toward servers, shared by everything that fetches on the user's behalf — feeds, full articles and
//! pictures: at most so many requests in flight at once, and never more than `per_host` to one host. Both limits
//! are shared by every clone, so two refreshes at once (a key press during an automatic refresh) and a full-text
//! fetch beside them are still polite together.
//!
//! - A request that revalidates what is stored (it sends validators) counts for a quarter of a slot: most are
//!   answered 304, a few hundred bytes, and cost only their connection — a quarter of what a request bringing a
//!   document costs, with its buffers, the document and what it parses into. So a refresh of feeds that did
//!   not change has four times as many requests in flight, and waits on fewer round trips. Each request still
//!   counts as one against its host's limit.
//! - A request joins its host's queue at once ([`Courtesy::queue`], in the order its caller lists the work) and
//!   waits there for its [`Turn`]; its turn ends when the [`Turn`] is dropped.
//! - A host's queue drains on the connections it has: when a request ends and another waits on its host, that
//!   one takes over the ending one's slot at once, and with it the connection the ending one leaves open. Hosts
//!   take the other free slots in turn, first in line first served: a document first in line waits for a whole
//!   slot, and nothing behind it goes ahead meanwhile. A request the user waits on ([`Courtesy::turn`]: a
//!   picture, a full article) goes to the head of the line.
//! - [`Turn::keep_alive`] says whether a waiting request is left to take the connection over (it then waits for
//!   that connection rather than take another slot); a request whose connection would only sit idle asks the
//!   server to close it, so no idle connection (and the buffers the HTTP client keeps with it) outlives its
//!   host's work.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// The limits, and the hosts with a request in flight or waiting. Cheap to clone; clones share the limits.
#[derive(Clone)]
pub struct Courtesy(Arc<Shared>);

struct Shared {
    per_host: usize,
    state: Mutex<State>,
}

struct State {
    /// Quarters of a global slot free (see [`Weight`]).
    free: usize,
    /// Connections the open-files limit still allows.
    sockets: usize,
    /// The hosts with a request in flight or waiting; forgotten when they have neither.
    hosts: HashMap<String, Host>,
    /// Hosts with a request waiting and room under their own limit, in the order they take free slots.
    ready: VecDeque<String>,
}

/// What a request costs of the global limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// A request that brings a document: a whole slot.
    Document,
    /// A conditional request, mostly answered 304: a quarter of a slot.
    Revalidation,
}

impl Weight {
    fn quarters(self) -> usize {
        match self {
            Weight::Document => 4,
            Weight::Revalidation => 1,
        }
    }
}

#[derive(Default)]
struct Host {
    running: usize,
    /// Requests in flight that keep their connection for a waiting one ([`Turn::keep_alive`]).
    keeping: usize,
    waiting: VecDeque<(Weight, oneshot::Sender<Turn>)>,
    /// In `ready`.
    queued: bool,
}

impl Host {
    /// Requests waiting that no request in flight keeps its connection for ([`Turn::keep_alive`]): those may take
    /// a slot of their own; the others wait for the connection kept for them.
    fn unreserved(&self) -> usize {
        self.waiting.len().saturating_sub(self.keeping)
    }

    fn wants_slot(&self, per_host: usize) -> bool {
        self.unreserved() > 0 && self.running < per_host
    }

    /// Drops the requests that left the queue.
    fn forget_left(&mut self) {
        self.waiting.retain(|(_, w)| !w.is_closed());
    }
}

/// A place in a host's queue ([`Courtesy::queue`]); leaving it (dropping it) gives up the place.
pub struct Ticket {
    turn: oneshot::Receiver<Turn>,
    /// Keeps the senders alive while this waits.
    _courtesy: Courtesy,
}

/// One request's turn: a global slot and a place under its host's limit, until dropped.
pub struct Turn {
    shared: Arc<Shared>,
    host: String,
    weight: Weight,
    /// Keeps its connection for a request waiting on the host.
    keeping: bool,
    /// False for a turn that was never handed over (its requester had left): dropping it gives nothing back.
    held: bool,
}

impl Courtesy {
    /// At most `in_flight` requests bringing documents at once (four times as many revalidations: see
    /// [`Weight`]) — fewer when the process may not open enough files for that many connections (see
    /// [`super::socket_budget`]) — and `per_host` to one host.
    pub fn new(in_flight: usize, per_host: usize) -> Courtesy {
        let in_flight = in_flight.max(1);
        let sockets = super::socket_budget();
        if sockets < in_flight.saturating_mul(Weight::Document.quarters()) {
            tracing::info!("at most {sockets} requests at once: the open-files limit allows no more");
        }
        Courtesy(Arc::new(Shared {
            per_host: per_host.max(1),
            state: Mutex::new(State {
                free: in_flight.saturating_mul(Weight::Document.quarters()),
                sockets,
                hosts: HashMap::new(),
                ready: VecDeque::new(),
            }),
        }))
    }

    /// Joins the queue of `url`'s host now, without waiting: turns come in the order requests queued (a host's
    /// own first when one of its requests ends). Queue all the work first, then wait on each ticket, and each
    /// request knows how many others wait behind it.
    pub fn queue(&self, url: &str, weight: Weight) -> Ticket {
        self.join(url, weight, false)
    }

    /// Waits for a turn for a request the user is waiting on (a picture, a full article), one bringing a document
    /// from `url`: first in line — ahead of a refresh's queue, still within the host's limit.
    pub async fn turn(&self, url: &str) -> Turn {
        self.join(url, Weight::Document, true).turn().await
    }

    fn join(&self, url: &str, weight: Weight, first: bool) -> Ticket {
        let (sender, turn) = oneshot::channel();
        let name = host_key(url);
        let mut state = self.0.lock();
        let per_host = self.0.per_host;
        let State { hosts, ready, .. } = &mut *state;
        let host = hosts.entry(name.clone()).or_default();
        if first {
            // Head of its host's queue, and its host at the head of the line.
            host.waiting.push_front((weight, sender));
            if host.queued {
                ready.retain(|h| *h != name);
            }
            host.queued = host.wants_slot(per_host);
            if host.queued {
                ready.push_front(name.clone());
            }
            state.hand_out(&self.0);
        } else {
            host.waiting.push_back((weight, sender));
            // Nobody in line: it may go at once. Otherwise it waits behind them.
            if ready.is_empty() {
                state.grant(&self.0, &name);
            }
        }
        state.settle(&name, per_host);
        Ticket { turn, _courtesy: self.clone() }
    }

    /// Requests in flight to `url`'s host and waiting on it.
    #[cfg(test)]
    fn host_load(&self, url: &str) -> (usize, usize) {
        let state = self.0.lock();
        state.hosts.get(&host_key(url)).map_or((0, 0), |h| (h.running, h.waiting.len()))
    }
}

impl Ticket {
    /// Waits for this place's turn.
    pub async fn turn(self) -> Turn {
        self.turn.await.expect("a waiting ticket's sender is kept until its turn is handed over")
    }
}

impl Turn {
    /// Whether a request waiting on this turn's host is left to take this one's connection over: one for each
    /// request in flight that keeps its own. When none is, this request's connection would only sit idle once
    /// it is done: better closed. Asked as the request goes out.
    pub fn keep_alive(&mut self) -> bool {
        let mut state = self.shared.lock();
        let Some(host) = state.hosts.get_mut(&self.host) else { return false };
        if !self.keeping {
            host.forget_left();
            self.keeping = host.keeping < host.waiting.len();
            host.keeping += usize::from(self.keeping);
        }
        self.keeping
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if !self.held {
            return;
        }
        let mut state = self.shared.lock();
        state.free += self.weight.quarters();
        state.sockets += 1;
        if let Some(host) = state.hosts.get_mut(&self.host) {
            host.running -= 1;
            host.keeping -= usize::from(self.keeping);
        }
        // The host's next request takes over the slot (and the connection this one leaves), then the others'.
        state.grant(&self.shared, &self.host);
        state.settle(&self.host, self.shared.per_host);
        state.hand_out(&self.shared);
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// Hands a free slot to `name`'s first waiting request, if the host is under its limit, the request is not
    /// kept for a connection, and the slot is big enough for it. True if one got it.
    fn grant(&mut self, shared: &Arc<Shared>, name: &str) -> bool {
        let Some(host) = self.hosts.get_mut(name) else { return false };
        loop {
            host.forget_left();
            if !host.wants_slot(shared.per_host) || self.sockets == 0 {
                return false;
            }
            let Some(&(weight, _)) = host.waiting.front() else { return false };
            if self.free < weight.quarters() {
                return false;
            }
            let (_, waiting) = host.waiting.pop_front().expect("looked at just above");
            self.free -= weight.quarters();
            self.sockets -= 1;
            host.running += 1;
            let turn = Turn { shared: shared.clone(), host: name.to_string(), weight, keeping: false, held: true };
            match waiting.send(turn) {
                Ok(()) => return true,
                Err(mut unclaimed) => {
                    // Its requester left the queue just now: the slot stays here (nothing to give back on drop).
                    unclaimed.held = false;
                    self.free += weight.quarters();
                    self.sockets += 1;
                    host.running -= 1;
                }
            }
        }
    }

    /// Puts `name` in line for free slots when it has a request waiting for one and room under its limit; forgets
    /// it when it has nothing in flight or waiting.
    fn settle(&mut self, name: &str, per_host: usize) {
        let Some(host) = self.hosts.get_mut(name) else { return };
        host.forget_left();
        if host.wants_slot(per_host) {
            if !host.queued {
                host.queued = true;
                self.ready.push_back(name.to_string());
            }
        } else if host.running == 0 && host.waiting.is_empty() && !host.queued {
            self.hosts.remove(name);
        }
    }

    /// Hands the free slots out to the hosts in line, one request each in turn. First in line, first served: when
    /// the first one's next request is a document and less than a whole slot is free, it waits for one, and no
    /// request behind it goes ahead meanwhile.
    fn hand_out(&mut self, shared: &Arc<Shared>) {
        while self.free > 0 && self.sockets > 0 {
            let Some(name) = self.ready.front().cloned() else { break };
            let Some(host) = self.hosts.get_mut(&name) else {
                self.ready.pop_front();
                continue;
            };
            host.forget_left();
            if host.wants_slot(shared.per_host) {
                let need = host.waiting.front().map_or(0, |(weight, _)| weight.quarters());
                if self.free < need {
                    break;
                }
            }
            // Its turn (or, for a host that no longer wants a slot, its leaving the line).
            self.ready.pop_front();
            host.queued = false;
            self.grant(shared, &name);
            // Back in line, at the end, if it has more waiting.
            self.settle(&name, shared.per_host);
        }
    }
}

/// The host a URL names, lowercased; per-host limits count by it.
pub fn host_key(url: &str) -> String {
    url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: Weight = Weight::Document;
    const REVAL: Weight = Weight::Revalidation;

    fn now(ticket: &mut Ticket) -> Option<Turn> {
        ticket.turn.try_recv().ok()
    }

    /// `n` requests queued to `host`.
    fn on(courtesy: &Courtesy, host: &str, n: usize, weight: Weight) -> Vec<Ticket> {
        (0..n).map(|i| courtesy.queue(&format!("http://{host}/{i}"), weight)).collect()
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
        let a_turns: Vec<Turn> = a.iter_mut().filter_map(now).collect();
        let b_turns: Vec<Turn> = b.iter_mut().filter_map(now).collect();
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
        let mut held: Vec<Turn> = blockers.iter_mut().filter_map(now).collect();
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
        let courtesy = Courtesy::new(1, 8);
        let mut light: Vec<Ticket> = one_each(&courtesy, 4, REVAL);
        let mut running: Vec<Turn> = light.iter_mut().filter_map(now).collect();
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
        let courtesy = Courtesy::new(1, 8);
        let mut light: Vec<Ticket> = one_each(&courtesy, 5, REVAL);
        let mut heavy = courtesy.queue("http://big.test/", DOC);
        let turns: Vec<Turn> = light.iter_mut().filter_map(now).collect();
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
}
