//! A yes/no question before something that cannot be undone.

use super::Next;
use crate::keymap::Action;
use crate::model::{FeedId, FolderId};
use crate::{Effect, State, subscriptions};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirm {
    pub question: String,
    pub action: Confirmed,
}

/// What a yes goes on to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirmed {
    DeleteFeed(FeedId),
    DeleteFolder(FolderId),
    /// Mark every entry of a list read.
    MarkRead(crate::ListKey),
}

pub(super) fn on_key(state: &mut State, confirm: &mut Confirm, action: Option<Action>) -> (Next, Vec<Effect>) {
    match action {
        Some(Action::Yes) => match confirm.action {
            Confirmed::MarkRead(list) => (Next::Close, crate::marks::mark_read_now(state, list)),
            other => (Next::Close, subscriptions::confirmed(state, other, false)),
        },
        Some(Action::DeleteAll) if matches!(confirm.action, Confirmed::DeleteFolder(_)) => {
            (Next::Close, subscriptions::confirmed(state, confirm.action, true))
        }
        Some(Action::No | Action::Close) => (Next::Close, Vec::new()),
        _ => (Next::Keep, Vec::new()),
    }
}
