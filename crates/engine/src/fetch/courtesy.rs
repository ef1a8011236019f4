//! Courtesy toward servers, shared by everything that fetches on the user's behalf — feeds, full articles and
//! pictures: at most so many requests in flight at once, and never more than `per_host` to one host. Both limits
//! are shared by every clone, so two refreshes at once (a key press during an automatic refresh) and a full-text
//! fetch beside them are still polite together.
//!
//! - A request that revalidates what is stored (it sends validators) counts for what revalidations have lately
//!   cost ([`Weight`]): a quarter of a slot when they are answered 304 — a few hundred bytes, only their
//!   connection, a quarter of what a request bringing a document costs with its buffers, the document and what
//!   it parses into — and a whole slot when their feeds changed; three quarters before any answer. So a refresh
//!   of feeds that did not change has four times as many requests in flight once the first answers show it, and
//!   waits on fewer round trips, while one of feeds that all changed has no more than a cold refresh once its
//!   first documents show it. Each request still counts as one against its host's limit.
//! - A request joins its host's queue at once ([`Courtesy::queue`], in the order its caller lists the work) and
//!   waits there for its [`Turn`]; its turn ends when the [`Turn`] is dropped.
//! - A host's queue drains on the connections it has: when a request ends and another waits on its host, that
//!   one takes over the ending one's slot at once, and with it the connection the ending one leaves open. Hosts
//!   take the other free slots in turn, first in line first served: a document first in line waits for a whole
//!   slot, and nothing behind it goes ahead meanwhile. A request the user waits on ([`Courtesy::turn`]: a
//!   picture, a full article) goes to the head of the line.
//! - Revalidations open few connections: when a host's next request is a revalidation, it takes a slot of its
//!   own only while the host's revalidations in flight are fewer than one for every few of its requests in flight
//!   or waiting ([`revalidations_per_connection`]; and the host is under `per_host`); the others wait to take over
//!   the connections those leave open. A 304 on an open connection costs one round trip; a new connection costs
//!   what its handshake does. Over TLS that is two or three round trips before the request and a handshake's
//!   processor time at both ends, so a connection there carries three revalidations: five feeds of one host
//!   cost two round trips more than on five connections, and two handshakes instead of five. On plain HTTP it is
//!   one round trip and less processor time than the answer it carries (about 50 µs of tidings's against 70 µs
//!   for reading a 304 and sending the next request, on loopback), so a connection there carries two: a refresh
//!   of 1000 unchanged feeds on 200 plain-HTTP hosts 100 ms away opens about 570 connections (400 with three
//!   each, 1000 with one) and took 0.33 s instead of 0.35 for 8 ms more processor time. A server that answered
//!   over HTTP/2 is exempt while its host's revalidations last: its connection serves every request at once, and
//!   holding them back would only spread them over more round trips (see [`http2`]: that server alone, a scheme
//!   and port of the host).
//! - A revalidation answered with a whole document (its feed changed) counts as a document from then on
//!   ([`Promotion`](promotion::Promotion)): a whole slot, the quarters it lacks taken from those free or owed by
//!   the next given back. So when feeds change after a run of 304s, no more requests go out while their
//!   documents are read. A connection kept for the host's next request may then wait, while quarters are owed
//!   or when the next request costs more than the ending one was granted (revalidations' cost rose meanwhile).
//! - [`Turn::keep_alive`] says whether a request to the same server is left waiting to take the connection over
//!   (it then waits for that connection rather than take another slot); a request whose connection would only
//!   sit idle asks the server to close it, so no idle HTTP/1 connection (and the buffers the HTTP client keeps
//!   with it) outlives its host's work. On HTTP/2 the connection is every request's, kept for no one in
//!   particular, and the client closes it once idle for 90 s.

use http2::{Origin, host_and_origin};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;
pub use weight::Weight;
use weight::{Answers, WHOLE};

mod http2;
mod promotion;
mod weight;

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
    /// How revalidations were answered lately: what the next one is taken to cost.
    answers: Answers,
    /// Quarters promoted revalidations took beyond those free ([`Promotion`](promotion::Promotion)), paid first from
    /// those given back.
    owed: usize,
    /// Connections the open-files limit still allows.
    sockets: usize,
    /// The hosts with a request in flight or waiting; forgotten when they have neither.
    hosts: HashMap<String, Host>,
    /// Hosts with a request waiting and room under their own limit, in the order they take free slots.
    ready: VecDeque<String>,
}

/// Revalidations a host's connection to `origin` is given in turn before its queue opens another: three over TLS,
/// whose handshake costs round trips and processor time at both ends; two on plain HTTP, where a connection
/// costs one round trip and less processor time than the 304 it carries (see the module's notes).
fn revalidations_per_connection(origin: Origin) -> usize {
    if origin.secure { 3 } else { 2 }
}

#[derive(Default)]
struct Host {
    running: usize,
    /// Of those, revalidations: they alone count against the connections a host's revalidations may open (a
    /// download in flight on the host holds its own connection to the end and hands it to no one).
    revalidating: usize,
    /// Requests in flight that keep their connection for a waiting one ([`Turn::keep_alive`]).
    keeping: usize,
    waiting: VecDeque<(Weight, Origin, oneshot::Sender<Turn>)>,
    /// In `ready`.
    queued: bool,
    /// Its server that answered over HTTP/2 (see the module's notes): requests to it open no connection.
    multiplexing: Option<Origin>,
}

impl Host {
    /// Requests waiting that no request in flight keeps its connection for ([`Turn::keep_alive`]): those may take
    /// a slot of their own; the others wait for the connection kept for them. When the first goes to a server
    /// on HTTP/2, it shares the connection open, and waits for none.
    fn unreserved(&self) -> usize {
        let shared = self.waiting.front().is_some_and(|&(_, origin, _)| self.shares_connection(origin));
        if shared { self.waiting.len() } else { self.waiting.len().saturating_sub(self.keeping) }
    }

    /// Whether the first request waiting may take a free slot, and so open a connection: while the host is under
    /// its limit, and for a revalidation (but to a server on HTTP/2) while the revalidations in flight are fewer
    /// than one for every [`revalidations_per_connection`] of those in flight and waiting.
    fn wants_slot(&self, per_host: usize) -> bool {
        let connections_left = match self.waiting.front() {
            Some(&(Weight::Revalidation, origin, _)) if !self.shares_connection(origin) => {
                let wanted = (self.revalidating + self.waiting.len()).div_ceil(revalidations_per_connection(origin));
                self.revalidating < wanted
            }
            _ => true,
        };
        self.unreserved() > 0 && self.running < per_host && connections_left
    }

    /// Whether the first request waiting may take over the connection a request of this host leaves open for it
    /// ([`Turn::keep_alive`]): under the host's limit, whatever it is.
    fn may_take_over(&self, per_host: usize) -> bool {
        self.unreserved() > 0 && self.running < per_host
    }

    /// Drops the requests that left the queue: a ticket given up does it as it goes (see [`Ticket`]'s drop), so
    /// a queue of thousands is not read through at every turn.
    fn forget_left(&mut self) {
        self.waiting.retain(|(_, _, w)| !w.is_closed());
    }
}

/// A place in a host's queue ([`Courtesy::queue`]); leaving it (dropping it, or the future waiting on it) gives
/// up the place.
pub struct Ticket {
    /// Until the turn is taken.
    turn: Option<oneshot::Receiver<Turn>>,
    host: String,
    /// Keeps the senders alive while this waits.
    courtesy: Courtesy,
}

/// One request's turn: a global slot and a place under its host's limit, until dropped.
pub struct Turn {
    shared: Arc<Shared>,
    host: String,
    origin: Origin,
    weight: Weight,
    /// Of the global limit, as granted.
    quarters: usize,
    /// Keeps its connection for a request waiting on the host.
    keeping: bool,
    /// False for a turn that was never handed over (its requester had left): dropping it gives nothing back.
    held: bool,
    /// What its answer was, for a revalidation ([`promotion`]'s `AS_IS`, `ANSWERED`, `PROMOTED`), and then
    /// `ENDED`; changed under the state's lock, but for `ANSWERED`.
    answer: Arc<AtomicU8>,
}

impl Courtesy {
    /// At most `in_flight` requests bringing documents at once (up to four times as many revalidations: see
    /// [`Weight`]) — fewer when the process may not open enough files for that many connections (see
    /// [`super::socket_budget`]) — and `per_host` to one host.
    pub fn new(in_flight: usize, per_host: usize) -> Courtesy {
        let in_flight = in_flight.max(1);
        let sockets = super::socket_budget();
        if sockets < in_flight.saturating_mul(WHOLE) {
            tracing::info!("at most {sockets} requests at once: the open-files limit allows no more");
        }
        Courtesy(Arc::new(Shared {
            per_host: per_host.max(1),
            state: Mutex::new(State {
                free: in_flight.saturating_mul(WHOLE),
                answers: Answers::default(),
                owed: 0,
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
        let (name, origin) = host_and_origin(url);
        let mut state = self.0.lock();
        let per_host = self.0.per_host;
        let State { hosts, ready, .. } = &mut *state;
        let host = hosts.entry(name.clone()).or_default();
        if first {
            // Head of its host's queue, and its host at the head of the line.
            host.waiting.push_front((weight, origin, sender));
            if host.queued {
                ready.retain(|h| *h != name);
            }
            host.queued = host.wants_slot(per_host);
            if host.queued {
                ready.push_front(name.clone());
            }
            state.hand_out(&self.0);
        } else {
            host.waiting.push_back((weight, origin, sender));
            // Nobody in line: it may go at once. Otherwise it waits behind them.
            if ready.is_empty() {
                state.grant(&self.0, &name, None);
            }
        }
        state.settle(&name, per_host);
        Ticket { turn: Some(turn), host: name, courtesy: self.clone() }
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
    pub async fn turn(mut self) -> Turn {
        let waiting = self.turn.as_mut().expect("a ticket waits for its turn once");
        let turn = waiting.await.expect("a waiting ticket's sender is kept until its turn is handed over");
        self.turn = None;
        turn
    }
}

impl Drop for Ticket {
    /// Leaving the queue: the place goes at once, and a turn handed over meanwhile is given back.
    fn drop(&mut self) {
        let Some(mut waiting) = self.turn.take() else { return };
        let handed = {
            // Under the lock, so no turn is handed over between looking and leaving.
            let mut state = self.courtesy.0.lock();
            match waiting.try_recv() {
                Ok(turn) => Some(turn),
                Err(_) => {
                    waiting.close();
                    if let Some(host) = state.hosts.get_mut(&self.host) {
                        host.forget_left();
                        host.forget_multiplexing_when_done();
                    }
                    state.settle(&self.host, self.courtesy.0.per_host);
                    None
                }
            }
        };
        // Given back once the lock is free (dropping a turn takes it).
        drop(handed);
    }
}

impl Turn {
    /// Whether a request waiting on this turn's host is left to take this one's connection over: one for each
    /// request in flight that keeps its own. When none is, this request's connection would only sit idle once
    /// it is done: better closed. Asked as the request goes out.
    pub fn keep_alive(&mut self) -> bool {
        let mut state = self.shared.lock();
        let Some(host) = state.hosts.get_mut(&self.host) else { return false };
        // On HTTP/2 the connection is every request's: kept, and for no one in particular. On HTTP/1, for a
        // request to the same server (another's could not use it).
        let shared = host.shares_connection(self.origin);
        if !self.keeping && !shared {
            self.keeping = host.keeping < host.waiting.len() && host.waiting.iter().any(|w| w.1 == self.origin);
            host.keeping += usize::from(self.keeping);
        }
        self.keeping || shared
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if !self.held {
            return;
        }
        let mut state = self.shared.lock();
        // What it is now: a document once promoted. A revalidation the server answered (not one cancelled, or that
        // failed before any answer) tells what the next ones cost.
        let answer = self.answer.swap(promotion::ENDED, Ordering::AcqRel);
        let (promoted, revalidation) = (answer == promotion::PROMOTED, self.weight == Weight::Revalidation);
        if revalidation && answer != promotion::AS_IS {
            state.answers.note(promoted);
        }
        state.give_back(if promoted { WHOLE } else { self.quarters });
        state.sockets += 1;
        if let Some(host) = state.hosts.get_mut(&self.host) {
            host.running -= 1;
            host.revalidating -= usize::from(revalidation && !promoted);
            host.keeping -= usize::from(self.keeping);
        }
        // The host's next request takes over the slot (and the connection this one leaves), then the others'.
        state.grant(&self.shared, &self.host, self.keeping.then_some(self.origin));
        state.settle(&self.host, self.shared.per_host);
        state.hand_out(&self.shared);
        if let Some(host) = state.hosts.get_mut(&self.host) {
            host.forget_multiplexing_when_done();
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// Quarters of a slot given back: what promotions owe first, then free.
    fn give_back(&mut self, quarters: usize) {
        let paid = self.owed.min(quarters);
        self.owed -= paid;
        self.free += quarters - paid;
    }

    /// Hands a free slot to `name`'s first waiting request, if the host is under its limit, the request is not
    /// kept for a connection, and the slot is big enough for it. `taking_over`: the slot comes with a connection
    /// to this server left open for it, so for a request to that server the host's limit on new connections for
    /// revalidations does not hold it back. True if one got it.
    fn grant(&mut self, shared: &Arc<Shared>, name: &str, taking_over: Option<Origin>) -> bool {
        let Some(host) = self.hosts.get_mut(name) else { return false };
        loop {
            let to_it = host.waiting.front().is_some_and(|&(_, origin, _)| Some(origin) == taking_over);
            let may = if to_it { host.may_take_over(shared.per_host) } else { host.wants_slot(shared.per_host) };
            // A requester that left without its ticket's drop (none does) is passed over below.
            if !may || self.sockets == 0 {
                return false;
            }
            let Some(&(weight, origin, _)) = host.waiting.front() else { return false };
            let quarters = self.answers.quarters(weight);
            if self.free < quarters {
                return false;
            }
            let (_, _, waiting) = host.waiting.pop_front().expect("looked at just above");
            self.free -= quarters;
            self.sockets -= 1;
            host.running += 1;
            host.revalidating += usize::from(weight == Weight::Revalidation);
            let turn = Turn {
                shared: shared.clone(),
                host: name.to_string(),
                origin,
                weight,
                quarters,
                keeping: false,
                held: true,
                answer: Arc::default(),
            };
            match waiting.send(turn) {
                Ok(()) => return true,
                Err(mut unclaimed) => {
                    // Its requester left the queue just now: the slot stays here (nothing to give back on drop).
                    unclaimed.held = false;
                    self.free += quarters;
                    self.sockets += 1;
                    host.running -= 1;
                    host.revalidating -= usize::from(weight == Weight::Revalidation);
                }
            }
        }
    }

    /// Puts `name` in line for free slots when it has a request waiting for one and room under its limit; forgets
    /// it when it has nothing in flight or waiting.
    fn settle(&mut self, name: &str, per_host: usize) {
        let Some(host) = self.hosts.get_mut(name) else { return };
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
            if host.wants_slot(shared.per_host) {
                let need = host.waiting.front().map_or(0, |&(weight, ..)| self.answers.quarters(weight));
                if self.free < need {
                    break;
                }
            }
            // Its turn (or, for a host that no longer wants a slot, its leaving the line).
            self.ready.pop_front();
            host.queued = false;
            self.grant(shared, &name, None);
            // Back in line, at the end, if it has more waiting.
            self.settle(&name, shared.per_host);
        }
    }
}

/// The host a URL names, lowercased; per-host limits count by it.
pub fn host_key(url: &str) -> String {
    host_and_origin(url).0
}

#[cfg(test)]
mod tests;
