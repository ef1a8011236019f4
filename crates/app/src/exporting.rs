//! Export to Markdown from the reader: `E` (or `:export DIR`) writes the marked entries, else the entry the keys
//! act on, else — from the feed list — every entry of the list shown, a Markdown file each under a folder; `|`
//! with entries marked pipes their Markdown (or their addresses) to a command. The runtime reads the entries and
//! writes the files ([`Effect::Export`]); the Markdown itself is `tidings_core::markdown`.

use super::dialogs::{Dialog, Prompt, PromptPurpose};
use super::{Effect, ExportTo, Pane, State};
use crate::model::EntryId;
use crate::sanitize::one_line;

/// The entries an export takes, and what they are called in messages.
fn chosen(state: &State) -> Option<(Vec<EntryId>, String)> {
    let marked = super::marked::ids(state);
    let n = |n: usize| if n == 1 { "1 entry".to_string() } else { format!("{n} entries") };
    if !marked.is_empty() {
        return Some((marked.clone(), format!("{} marked", n(marked.len()))));
    }
    let list = &state.entries;
    if state.focus == Pane::Feeds && list.loaded && list.of.is_some() && list.of == state.feeds.selected_list() {
        let name = list.of.map(|l| state.list_name(l)).unwrap_or_default();
        let ids: Vec<EntryId> = list.refs.iter().map(|r| r.id).collect();
        return (!ids.is_empty()).then(|| (ids.clone(), format!("{} of {}", n(ids.len()), one_line(&name, 60))));
    }
    let open = state.article.entry_id().filter(|_| state.focus == Pane::Article);
    let id = open.or_else(|| list.selected_ref().map(|r| r.id))?;
    Some((vec![id], "the entry".to_string()))
}

/// `E`: asks for the folder to export to (the last one used is offered).
pub fn ask(state: &mut State) -> Vec<Effect> {
    let Some((_, what)) = chosen(state) else {
        let now = state.clock.now;
        state.status.info("Select an entry (or mark some) to export", now);
        return Vec::new();
    };
    let last = state.commands.export_dir.clone().unwrap_or_default();
    let hint =
        format!("a folder (~ is your home); each entry becomes a Markdown file in it, named by {}", template(state));
    state.dialog = Some(Dialog::Prompt(Prompt::new(
        &format!("Export {what} as Markdown to"),
        &hint,
        &last,
        PromptPurpose::Export,
    )));
    Vec::new()
}

fn template(state: &State) -> String {
    match state.commands.export_template.as_str() {
        "" => tidings_core::markdown::DEFAULT_TEMPLATE.to_string(),
        t => t.to_string(),
    }
}

/// Exports the chosen entries to the folder `dir`; the marks go once used.
pub fn export(state: &mut State, dir: &str) -> Result<Vec<Effect>, String> {
    let dir = dir.trim();
    if dir.is_empty() {
        return Err("export to which folder? :export FOLDER".into());
    }
    let (ids, what) = chosen(state).ok_or("select an entry (or mark some) to export")?;
    state.commands.export_dir = Some(dir.to_string());
    state.entries.marked.clear();
    let now = state.clock.now;
    state.status.info(format!("Exporting {what} to {}…", one_line(dir, 200)), now);
    let to = ExportTo::Files { dir: dir.to_string(), template: template(state) };
    Ok(vec![Effect::Export { ids, to }])
}

/// `|` with entries marked: their Markdown (or their addresses) on the command's standard input.
pub fn pipe_marked(state: &mut State, line: &str, addresses: bool) -> Result<Vec<Effect>, String> {
    let ids = super::marked::ids(state);
    let command = tidings_core::command::CommandLine::parse(line, None)?;
    // `%u` and `%t` are one entry's: with many, they are empty.
    let words = command.argv(&[("%u", ""), ("%t", "")], &[]);
    let now = state.clock.now;
    let n = ids.len();
    state.status.info(format!("Piping {n} marked entries to {}…", one_line(line, 100)), now);
    state.entries.marked.clear();
    Ok(vec![Effect::Export { ids, to: ExportTo::Pipe { words, in_terminal: command.in_terminal, addresses } }])
}
