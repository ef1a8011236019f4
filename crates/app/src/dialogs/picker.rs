//! The feeds discovery found at a site, to choose one from: move and press Enter, or press its number (the
//! `choose_N` keys).

use super::{Answer, Next, text_step};
use crate::State;
use crate::keymap::Action;
use crate::list::ListCursor;
use crate::model::Found;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picker {
    pub candidates: Vec<Found>,
    pub cursor: ListCursor,
    /// The path of the folder the chosen feed goes into (empty: the top level).
    pub folder: Vec<String>,
}

pub(super) fn on_key(state: &mut State, picker: &mut Picker, action: Option<Action>) -> (Next, Option<Answer>) {
    let len = picker.candidates.len();
    if let Some(n) = action.and_then(Action::chosen_number).filter(|n| (1..=len).contains(n)) {
        return (Next::Close, choose(picker, n - 1));
    }
    match action {
        Some(Action::Accept | Action::Open) => (Next::Close, choose(picker, picker.cursor.index)),
        Some(Action::Close) => {
            state.status.clear();
            (Next::Close, None)
        }
        Some(action) => {
            if let Some(step) = text_step(action) {
                picker.cursor.step(step, len, len);
            }
            (Next::Keep, None)
        }
        None => (Next::Keep, None),
    }
}

fn choose(picker: &Picker, index: usize) -> Option<Answer> {
    let feed = picker.candidates.get(index).cloned()?;
    Some(Answer::Chosen { feed, folder: picker.folder.clone() })
}
