//! A yes/no question before something that cannot be undone.

use super::{Answer, Next};
use crate::keymap::Action;
use crate::model::{FeedId, FolderId};

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
    /// Unsubscribe from the feeds chosen in the health view.
    UnsubscribeMarked,
    /// Forget a download and delete its file.
    DeleteDownload(i64),
    /// Quit (`confirm_quit`).
    Quit,
}

pub(super) fn on_key(confirm: &Confirm, action: Option<Action>) -> (Next, Option<Answer>) {
    match action {
        Some(Action::Yes) => (Next::Close, Some(Answer::Confirmed { action: confirm.action, all: false })),
        Some(Action::DeleteAll) if matches!(confirm.action, Confirmed::DeleteFolder(_)) => {
            (Next::Close, Some(Answer::Confirmed { action: confirm.action, all: true }))
        }
        Some(Action::No | Action::Close) => (Next::Close, None),
        _ => (Next::Keep, None),
    }
}
