//! What a revalidation's answer turned out to be, told to its [`Turn`] while it lasts: a whole document (its
//! feed changed: [`Promotion::promote`], and it counts as a document from then on), or an answer without one
//! ([`Turn::answered`]: a 304, or an error status). Either is noted when the turn ends, for what the next
//! revalidations cost ([`super::weight::Answers`]); a turn that ended without an answer (its refresh was
//! cancelled, its connection failed) tells nothing. [`Turn::heard`] tells a turn both this and the protocol the
//! answer came over.

use super::{Shared, Turn, WHOLE, Weight};
use crate::fetch::{FetchError, FetchOutcome};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// No answer yet.
pub(super) const AS_IS: u8 = 0;
/// Answered without a document.
pub(super) const ANSWERED: u8 = 1;
/// Answered with a whole document: the turn gives back a whole slot.
pub(super) const PROMOTED: u8 = 2;
/// Dropped: too late to promote.
pub(super) const ENDED: u8 = 3;

/// What makes a revalidation's turn count as a document's, once its answer turns out to be one (see
/// [`Turn::promotion`]). Sent where the answer is read.
pub struct Promotion {
    shared: Arc<Shared>,
    host: String,
    /// For a turn that is a revalidation, and held: what its answer is now (see [`Turn`]'s `answer`).
    answer: Option<Arc<AtomicU8>>,
    /// The quarters it takes to count as a document's.
    lacking: usize,
}

impl Turn {
    /// What makes this turn count as a document's should a revalidation's answer be one.
    pub fn promotion(&self) -> Promotion {
        let revalidation = self.held && self.weight == Weight::Revalidation;
        Promotion {
            shared: self.shared.clone(),
            host: self.host.clone(),
            answer: revalidation.then(|| self.answer.clone()),
            lacking: WHOLE - self.quarters,
        }
    }

    /// The server answered without a document (a 304, or an error status): for a revalidation, one that cost
    /// only its connection. Nothing once promoted.
    pub fn answered(&self) {
        let _ = self.answer.compare_exchange(AS_IS, ANSWERED, Ordering::AcqRel, Ordering::Acquire);
    }

    /// What the fetch's answer tells: a 304 or an error status is an answer without a document
    /// ([`Turn::answered`]); a 304 or a document from the server asked came over HTTP/2 or not
    /// ([`Turn::answered_over`]). A fetch that failed without an answer tells nothing.
    pub fn heard(&self, answer: Result<&FetchOutcome, &FetchError>) {
        let multiplexed = match answer {
            Ok(FetchOutcome::NotModified { multiplexed, .. }) => {
                self.answered();
                *multiplexed
            }
            Ok(FetchOutcome::Fetched(document)) => document.multiplexed,
            Err(e) if e.status().is_some() => {
                self.answered();
                None
            }
            Err(_) => None,
        };
        if let Some(multiplexed) = multiplexed {
            self.answered_over(multiplexed);
        }
    }
}

impl Promotion {
    /// The revalidation was answered with a whole document: from now on it counts as one, a whole slot (the
    /// quarters it lacks taken from those free, the rest owed: nothing waits here, so no two promotions wait on
    /// each other), and no longer as one of its host's revalidations. Once, and only while the turn lasts;
    /// nothing for a document's turn.
    pub fn promote(&self) {
        let Some(answer) = &self.answer else { return };
        let mut state = self.shared.lock();
        if answer.compare_exchange(AS_IS, PROMOTED, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return;
        }
        let taken = self.lacking.min(state.free);
        state.free -= taken;
        state.owed += self.lacking - taken;
        if let Some(host) = state.hosts.get_mut(&self.host) {
            host.revalidating -= 1;
            host.forget_multiplexing_when_done();
        }
        // The host's revalidations may open a connection again.
        state.settle(&self.host, self.shared.per_host);
        state.hand_out(&self.shared);
    }
}
