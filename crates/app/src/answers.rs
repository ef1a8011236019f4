//! Where a dialog's answer goes: the text typed into a prompt, a yes, a feed chosen. Dialogs know nothing of the
//! features that open them; this is the one place that knows both, and nothing below `update` depends on it.

use crate::dialogs::{Answer, Confirmed, Dialog, PromptPurpose};
use crate::{Effect, State, article, commands, dialogs, feeds, marks, saving, search, subscriptions};

/// Acts on a dialog's answer.
pub(crate) fn route(state: &mut State, answer: Answer) -> Vec<Effect> {
    match answer {
        Answer::Submitted { purpose, text } => submitted(state, purpose, &text),
        Answer::Confirmed { action: Confirmed::MarkRead(list), .. } => marks::mark_read_now(state, list),
        Answer::Confirmed { action: Confirmed::UnsubscribeMarked, .. } => crate::health::unsubscribe(state),
        Answer::Confirmed { action: Confirmed::DeleteDownload(id), .. } => {
            crate::downloads::delete_confirmed(state, id)
        }
        Answer::Confirmed { action: Confirmed::Quit, .. } => saving::quit(state),
        Answer::Confirmed { action, all } => subscriptions::confirmed(state, action, all),
        Answer::Chosen { feed, folder } => subscriptions::subscribe(state, feed, folder),
        Answer::ToggleScope => {
            if let Some(Dialog::Prompt(mut prompt)) = state.dialog.take() {
                match prompt.purpose {
                    PromptPurpose::Command => commands::complete(&mut prompt),
                    PromptPurpose::Pipe { .. } => commands::toggle_pipe(&mut prompt),
                    _ => search::toggle_scope(state, &mut prompt),
                }
                state.dialog = Some(Dialog::Prompt(prompt));
            }
            Vec::new()
        }
        Answer::History { back } => {
            if let Some(Dialog::Prompt(mut prompt)) = state.dialog.take() {
                if prompt.purpose == PromptPurpose::Command {
                    commands::history(state, &mut prompt, back);
                }
                state.dialog = Some(Dialog::Prompt(prompt));
            }
            Vec::new()
        }
        Answer::Quit => saving::quit(state),
    }
}

/// Hands a prompt's text to the module that asked. Taken, the prompt closes (an answer may open another dialog
/// in its place); refused, it stays open with the reason under it.
fn submitted(state: &mut State, purpose: PromptPurpose, text: &str) -> Vec<Effect> {
    let prompt = state.dialog.take();
    let result = match purpose {
        PromptPurpose::ForceEncoding(feed_id) => feeds::force_encoding(state, feed_id, text),
        PromptPurpose::FeedSetting(feed_id) => feeds::set_setting(state, feed_id, text),
        PromptPurpose::FollowLink => article::follow_link(state, text),
        PromptPurpose::PlayMedia => article::play_media(state, text),
        PromptPurpose::Search { within } => search::submit(state, within, text),
        PromptPurpose::Command => commands::submit(state, text),
        PromptPurpose::Pipe { address, .. } => commands::pipe(state, text, address),
        PromptPurpose::Save => commands::save(state, text, false),
        PromptPurpose::Export => crate::exporting::export(state, text),
        PromptPurpose::CopyLink => commands::copy_link(state, text),
        PromptPurpose::SaveView => search::save_view(state, text),
        other => subscriptions::submit(state, other, text),
    };
    match result {
        Ok(effects) => {
            if state.dialog.is_none() {
                dialogs::close(state);
            }
            effects
        }
        Err(why) => {
            if let Some(Dialog::Prompt(mut prompt)) = prompt {
                prompt.error = Some(why);
                state.dialog = Some(Dialog::Prompt(prompt));
            }
            Vec::new()
        }
    }
}
