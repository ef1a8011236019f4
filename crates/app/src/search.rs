//! Searching: `/` asks for words (Tab narrows the search to the selected feed or folder), the answer becomes
//! the Search view at the top of the feed list, and its entries are a list like any other. The store does the
//! matching; this module keeps the question.

use super::dialogs::{Dialog, Prompt, PromptPurpose};
use super::feeds::SearchView;
use super::keymap::{Action, Context};
use super::{Effect, ListKey, Pane, State};

const HINT: &str = "words (all must match), \"a phrase\", a prefix*, or a query: title ~ rust and age < 7d — Tab: \
                    every feed or only the selected one";

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
    // A query of the query language (`title ~ rust and unread`) is a query; plain words search as they always
    // did. A text with comparisons that does not parse is a query with a mistake: say where.
    let is_query = match tidings_core::query::parse(query) {
        Ok(parsed) => parsed.has_fields(),
        Err(e) if tidings_core::query::looks_like_query(query) => return Err(e.to_string()),
        Err(_) => false,
    };
    state.feeds.search = Some(SearchView { query: query.to_string(), is_query, within, count: None, announced: false });
    state.feeds.rebuild_rows();
    // A new search is a new list, even when the Search view was already selected; it opens at its top.
    state.entries.of = None;
    let mut effects = super::feeds::select(state, ListKey::Search);
    state.entries.to_top = true;
    // The Search view is there again after a restart.
    effects.push(Effect::write(crate::model::UserWrite::SetPreference {
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

/// `V`: asks for a name to save the search or query on screen as a view.
pub fn ask_save_view(state: &mut State) {
    let now = state.clock.now;
    let on_search = state.entries.of == Some(ListKey::Search) || state.feeds.selected_list() == Some(ListKey::Search);
    let query = match (&state.feeds.search, on_search) {
        (Some(search), true) if search.is_query => Ok(search.query.clone()),
        (Some(search), true) => tidings_core::search::SearchQuery::as_query(&search.query).map_err(|e| e.to_string()),
        _ => {
            let hint = state.keymap.say(Context::General, Action::Search, "search first ({}), then save it as a view");
            state
                .status
                .info(if hint.is_empty() { "Search first, then save it as a view".to_string() } else { hint }, now);
            return;
        }
    };
    match query {
        Ok(query) => {
            let title = format!("Save as a view: {}", crate::sanitize::one_line(&query, 60));
            let prompt = Prompt::new(&title, "the view's name", "", PromptPurpose::SaveView);
            state.feeds.saving = Some(query);
            state.dialog = Some(Dialog::Prompt(prompt));
        }
        Err(why) => state.status.error(why, now),
    }
}

/// The view's name: the config is edited (by the runtime), and the view shows once it is saved.
pub fn save_view(state: &mut State, name: &str) -> Result<Vec<Effect>, String> {
    let name = name.trim();
    let Some(query) = state.feeds.saving.clone() else { return Ok(Vec::new()) };
    if name.is_empty() {
        return Err("give the view a name".into());
    }
    if state.feeds.saved.iter().any(|v| v.name.eq_ignore_ascii_case(name)) {
        return Err(format!("a view is already named {}", crate::sanitize::one_line(name, 80)));
    }
    state.feeds.saving = None;
    Ok(vec![Effect::SaveView { name: name.to_string(), query }])
}

/// The config has the view (or could not be edited): list it and show it.
pub fn on_view_saved(state: &mut State, name: String, query: String, outcome: Result<(), String>) -> Vec<Effect> {
    let now = state.clock.now;
    if let Err(why) = outcome {
        state.status.error(format!("cannot save the view: {why}"), now);
        return Vec::new();
    }
    state.status.info(format!("Saved the view {}", crate::sanitize::one_line(&name, 80)), now);
    state.feeds.saved.push(super::feeds::SavedView { name, query, unread: None });
    state.feeds.rebuild_rows();
    let index = state.feeds.saved.len() - 1;
    let mut effects = super::feeds::select(state, ListKey::View(index));
    effects.extend(super::feeds::count_views(state));
    effects
}
