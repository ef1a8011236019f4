//! What a request costs of the global limit, in quarters of a slot: a document a whole slot; a revalidation what
//! revalidations have lately turned out to cost ([`Answers`]).

/// Quarters in a whole slot: what a request bringing a document costs.
pub(super) const WHOLE: usize = 4;

/// What a request is, for what it costs of the global limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// A request that brings a document: a whole slot.
    Document,
    /// A conditional request: a quarter of a slot when it is answered 304, a whole one when it brings a document;
    /// what it is taken for, before its answer, follows what revalidations' answers have been lately.
    Revalidation,
}

/// Revalidations answered in the window [`Answers`] keeps, before it halves its counts.
const WINDOW: u32 = 64;

/// How the revalidations that ended lately were answered: how many, and how many of them with a whole document
/// (their feeds had changed). The counts are halved whenever they reach [`WINDOW`] answers, so the last few
/// dozen weigh the most, and a process that refreshes all day follows what its feeds do now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Answers {
    pub(super) all: u32,
    pub(super) documents: u32,
}

impl Answers {
    /// One more revalidation was answered: with a document or without (a 304, or an error status).
    pub(super) fn note(&mut self, document: bool) {
        if self.all >= WINDOW {
            self.all /= 2;
            self.documents /= 2;
        }
        self.all += 1;
        self.documents += u32::from(document);
    }

    /// The quarters `weight` is granted now. A revalidation's is what it is expected to cost: a quarter, and the
    /// three more that a document takes as often as revalidations bring one (`1 + 3p`, rounded). Before any
    /// answer, `p` counts one document and one 304 — nothing known, either is as likely — so a revalidation takes
    /// three quarters: the first wave of a refresh has a third more requests in flight than a cold one, and as
    /// soon as the answers show which it is, they set the cost. An all-304 refresh of 1000 feeds on 200 hosts 100
    /// ms away then opened 141 of its hosts' second connections in that first wave, not a round trip later, and
    /// took 0.37 s instead of 0.39 s for the same processor time; in one where every feed changed, the fourth
    /// document brings it to a whole slot. One 304 brings it to two quarters, five to one.
    pub(super) fn quarters(self, weight: Weight) -> usize {
        match weight {
            Weight::Document => WHOLE,
            Weight::Revalidation => {
                let (all, documents) = (self.all as usize + 2, self.documents.min(self.all) as usize + 1);
                // round(1 + 3·documents/all), in integers.
                ((3 * all + 6 * documents) / (2 * all)).clamp(1, WHOLE)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(unchanged: u32, documents: u32) -> usize {
        let mut answers = Answers::default();
        (0..documents).for_each(|_| answers.note(true));
        (0..unchanged).for_each(|_| answers.note(false));
        answers.quarters(Weight::Revalidation)
    }

    #[test]
    fn a_revalidation_costs_three_quarters_until_answers_show_what_it_costs() {
        assert_eq!(Answers::default().quarters(Weight::Revalidation), 3, "nothing known: either answer as likely");
        assert_eq!(Answers::default().quarters(Weight::Document), WHOLE);
        assert_eq!(after(1, 0), 2, "one 304: half a slot");
        assert_eq!(after(4, 0), 2);
        assert_eq!(after(5, 0), 1, "five 304s in a row: a quarter");
        assert_eq!(after(200, 0), 1);
        assert_eq!(after(0, 3), 3, "three documents: still three quarters");
        assert_eq!(after(0, 4), WHOLE, "four documents in a row: a whole slot");
        assert_eq!(after(0, 200), WHOLE, "every feed changed: each a whole slot");
    }

    #[test]
    fn a_revalidation_costs_what_its_kind_have_lately_been_answered_with() {
        // A quarter, and three more as often as a document came.
        assert_eq!(after(48, 16), 2, "a quarter of them changed: 1.75 quarters");
        assert_eq!(after(32, 32), 3, "half of them changed: 2.5 quarters");
        assert_eq!(after(60, 4), 1, "one in sixteen changed: 1.2 quarters");
        // The last answers count most: a refresh of unchanged feeds after one of changed ones.
        let mut answers = Answers::default();
        (0..1000).for_each(|_| answers.note(true));
        assert_eq!(answers.quarters(Weight::Revalidation), WHOLE);
        (0..WINDOW).for_each(|_| answers.note(false));
        assert!(answers.quarters(Weight::Revalidation) <= 2, "64 304s after many documents: {answers:?}");
        (0..WINDOW).for_each(|_| answers.note(false));
        assert_eq!(answers.quarters(Weight::Revalidation), 1, "{answers:?}");
        assert!(answers.all <= WINDOW && answers.documents <= answers.all);
    }
}
