//! Searching: `/` asks for words (Tab narrows the search to the selected feed or folder), the answer becomes
//! the Search view at the top of the feed list, and its entries are a list like any other. The store does the
//! matching; this module keeps the question.

use super::dialogs::{Dialog, Prompt, PromptPurpose};
use super::feeds::SearchView;
use super::keymap::{Action, Context};
use super::{Effect, ListKey, Pane, State};

const HINT: &str = "words (all must match), \"a phrase\", or a prefix* — Tab: every feed or only the selected one";

/// `/`: opens the search prompt, with the last search to edit.
pub fn open(state: &mut State) {
    let last = state.feeds.search.as_ref().map(|s| s.query.clone()).unwrap_or_default();
    let prompt = Prompt::new(&title(state, None), HINT, &last, PromptPurpose::Search { within: None });
    state.dialog = Some(Dialog::Prompt(prompt));
}

/// The feed or folder a search can be narrowed to: the selected one (a smart view narrows nothing).
fn narrowable(state: &State) -> Option<ListKey> {
    state.feeds.selected_list().filter(|l| matches!(l, ListKey::Feed(_) | ListKey::Folder(_)))
}

fn title(state: &State, within: Option<ListKey>) -> String {
    match within {
        Some(list) => format!("Search in {}", state.list_name(list)),
        None => "Search every feed".to_string(),
    }
}

/// Tab in the search prompt: every feed, or only the selected feed or folder.
pub fn toggle_scope(state: &State, prompt: &mut Prompt) {
    if let PromptPurpose::Search { within } = prompt.purpose {
        let within = match within {
            Some(_) => None,
            None => narrowable(state),
        };
        prompt.purpose = PromptPurpose::Search { within };
        prompt.title = title(state, within);
    }
}

/// The answer: the Search view shows what matches.
pub fn submit(state: &mut State, within: Option<ListKey>, answer: &str) -> Result<Vec<Effect>, String> {
    let query = answer.trim();
    if query.is_empty() {
        return Err(format!(
            "type the words to search for{}",
            state.keymap.say(Context::Prompt, Action::Close, ", or press {}")
        ));
    }
    state.feeds.search = Some(SearchView { query: query.to_string(), within, count: None, announced: false });
    state.feeds.rebuild_rows();
    // A new search is a new list, even when the Search view was already selected; it opens at its top.
    state.entries.of = None;
    let mut effects = super::feeds::select(state, ListKey::Search);
    state.entries.to_top = true;
    // The Search view is there again after a restart.
    effects.push(Effect::Write(crate::model::UserWrite::SetPreference {
        name: "last_search".into(),
        value: Some(query.to_string()),
    }));
    state.focus = Pane::Entries;
    let now = state.clock.now;
    state.status.info(format!("Searching for {}…", crate::sanitize::one_line(query, 100)), now);
    Ok(effects)
}

/// The query whose words an article opened from the search results marks.
pub fn highlights(state: &State) -> Option<tidings_core::search::SearchQuery> {
    match (&state.feeds.search, state.entries.of) {
        (Some(search), Some(ListKey::Search)) => tidings_core::search::SearchQuery::parse(&search.query).ok(),
        _ => None,
    }
}
