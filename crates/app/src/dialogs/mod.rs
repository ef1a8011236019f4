//! Dialogs: windows over the panes that take the keys while they are open. Each owns its state and answers a
//! key with what happens next ([`Next`]): stay open, close, or give way to another dialog. What a dialog was
//! opened for — the text typed, the yes, the feed chosen — comes back as an [`Answer`] that `crate::answers`
//! routes to the feature that asked: dialogs know nothing of the features, so they sit below all of them.
//! [`on_key`] is the one place a dialog is taken out of the state and put back.

mod confirm;
mod help;
mod info;
mod picker;
mod prompt;

pub use confirm::{Confirm, Confirmed};
pub use help::{HelpLine, LEGEND, help_lines, legend_markdown};
pub use info::{Info, on_loaded as on_info_loaded, open as open_info};
pub use picker::Picker;
pub use prompt::{Prompt, PromptPurpose, encoding_prompt, setting_prompt};

/// Layout of the windows that scroll, shared with drawing.
pub mod areas {
    pub use super::help::{area as help, keys_column as help_keys_column};
    pub use super::info::{LABEL_WIDTH as INFO_LABEL_WIDTH, area as info, text_width as info_text_width};
    pub use super::report_area as report;
}

use super::keymap::{Action, Context};
use super::list::{Step, scroll};
use super::{Effect, State, layout};
use crossterm::event::KeyEvent;

#[derive(Clone, Debug, PartialEq)]
pub enum Dialog {
    /// The key table; `scroll` is its first line shown.
    Help {
        scroll: usize,
    },
    Info(Info),
    Prompt(Prompt),
    Picker(Picker),
    Confirm(Confirm),
    /// Lines to read (an import report, what discovery tried, the message log), scrollable.
    Report(Report),
    /// The health view; its state is `State::health`, its keys `crate::health`'s.
    Health,
    /// The downloads view; its state is `State::downloads`, its keys `crate::downloads`'s.
    Downloads,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub title: String,
    pub lines: Vec<String>,
    pub scroll: usize,
}

impl Report {
    pub fn new(title: impl Into<String>, lines: Vec<String>) -> Report {
        Report { title: title.into(), lines, scroll: 0 }
    }

    /// Its lines wrapped to `width` columns, control characters removed: what the window shows.
    pub fn wrapped(&self, width: u16) -> Vec<String> {
        let width = usize::from(width.max(10));
        let mut out = Vec::new();
        for line in &self.lines {
            let clean = crate::sanitize::strip_controls(line);
            if clean.trim().is_empty() {
                out.push(String::new());
                continue;
            }
            // Indentation carries structure ("  - tried this"): wrapped lines keep it.
            let indent = clean.len() - clean.trim_start_matches(' ').len();
            let indent = " ".repeat(indent.min(width / 2));
            out.extend(
                crate::render::wrap_text(&clean, width - indent.len(), crate::render::Style::default())
                    .into_iter()
                    .map(|spans| format!("{indent}{}", spans.into_iter().map(|s| s.text).collect::<String>())),
            );
        }
        out
    }
}

/// What happens to a dialog after a key.
pub enum Next {
    Keep,
    Close,
    /// Close, and open this one instead.
    Open(Dialog),
}

/// What a dialog was opened for, once the user has given it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A prompt's text, for the purpose it was asked with. The prompt stays open until the answer is taken: a
    /// refused one is shown under it.
    Submitted { purpose: PromptPurpose, text: String },
    /// A yes; `all` when deleting a folder with everything in it.
    Confirmed { action: Confirmed, all: bool },
    /// A feed chosen from what discovery found, and the folder it goes into.
    Chosen { feed: crate::model::Found, folder: Vec<String> },
    /// In the search prompt: search every feed, or only the selected feed or folder; on the command line:
    /// complete; piping: the text or the address.
    ToggleScope,
    /// In a prompt: the line typed before (`back`) or after.
    History { back: bool },
    /// Quit, asked by a key the dialog does not claim (Ctrl-C); the dialog stays open while the reader saves.
    Quit,
}

impl Dialog {
    /// The keymap context its keys are looked up in.
    pub fn context(&self) -> Context {
        match self {
            Dialog::Help { .. } => Context::Help,
            Dialog::Info(_) => Context::Info,
            Dialog::Prompt(_) => Context::Prompt,
            Dialog::Picker(_) => Context::Picker,
            Dialog::Confirm(_) => Context::Confirm,
            Dialog::Report(_) => Context::Report,
            Dialog::Health => Context::Health,
            Dialog::Downloads => Context::Downloads,
        }
    }
}

/// A key while a dialog is open: what it does to the dialog, and the answer it gave, if it gave one.
pub fn on_key(state: &mut State, key: KeyEvent) -> (Vec<Effect>, Option<Answer>) {
    let Some(mut dialog) = state.dialog.take() else { return (Vec::new(), None) };
    let action = state.keymap.action(dialog.context(), &key);
    match action {
        // Quit's keys that a dialog does not claim for itself (Ctrl-C) still quit; Ctrl-Z still suspends.
        Some(Action::Quit) => {
            state.dialog = Some(dialog);
            return (Vec::new(), Some(Answer::Quit));
        }
        Some(Action::Suspend) => {
            state.dialog = Some(dialog);
            return (vec![Effect::Suspend], None);
        }
        _ => {}
    }
    let (next, answer) = match &mut dialog {
        Dialog::Help { scroll } => {
            let (width, height) = state.viewport;
            let area = help::area(&state.keymap, width, height);
            let len = help_lines(&state.keymap, area.width.saturating_sub(2)).len();
            on_text_key(action, scroll, len, usize::from(area.height.saturating_sub(2)))
        }
        Dialog::Report(report) => {
            let (width, height) = state.viewport;
            let area = report_area(width, height, report.lines.len());
            let len = report.wrapped(area.width.saturating_sub(2)).len();
            on_text_key(action, &mut report.scroll, len, usize::from(area.height.saturating_sub(2)))
        }
        Dialog::Info(info) => {
            let next = info::on_key(state, info, action);
            (next, None)
        }
        Dialog::Prompt(prompt) => prompt::on_key(state, prompt, action, key),
        Dialog::Picker(picker) => picker::on_key(state, picker, action),
        Dialog::Confirm(confirm) => confirm::on_key(confirm, action),
        // Its keys go to `crate::health` before they reach here.
        Dialog::Health | Dialog::Downloads => (Next::Keep, None),
    };
    match next {
        Next::Keep => state.dialog = Some(dialog),
        Next::Close => close(state),
        Next::Open(other) => state.dialog = Some(other),
    }
    (Vec::new(), answer)
}

/// Closes the dialog that is open: the next queued one, if any, opens.
pub fn close(state: &mut State) {
    state.dialog = state.queued_dialogs.pop_front();
}

/// Opens the message log: every recent message and error, in full, newest last.
pub fn open_log(state: &mut State) {
    let zone = state.clock.zone;
    let lines: Vec<String> = if state.status.log.is_empty() {
        vec!["Nothing has been said yet.".to_string()]
    } else {
        state
            .status
            .log
            .iter()
            .map(|m| {
                let kind = match (m.error, m.warning) {
                    (_, true) => "warning: ",
                    (true, false) => "error: ",
                    (false, false) => "",
                };
                format!("{} {kind}{}", zone.format(m.at, "%H:%M:%S"), m.text)
            })
            .collect()
    };
    let mut report = Report::new("Messages", lines);
    // The newest are at the end: start there.
    let (width, height) = state.viewport;
    let area = report_area(width, height, report.lines.len());
    report.scroll = scroll(
        0,
        Step::Last,
        report.wrapped(area.width.saturating_sub(2)).len(),
        usize::from(area.height.saturating_sub(2)),
    );
    state.dialog = Some(Dialog::Report(report));
}

/// Keys in a window of text: scroll, or close.
fn on_text_key(action: Option<Action>, offset: &mut usize, len: usize, rows: usize) -> (Next, Option<Answer>) {
    let step = match action {
        Some(Action::Close | Action::Help | Action::MessageLog) => return (Next::Close, None),
        Some(action) => text_step(action),
        None => None,
    };
    if let Some(step) = step {
        *offset = scroll(*offset, step, len, rows);
    }
    (Next::Keep, None)
}

/// The scroll a movement action means in a window of text.
pub fn text_step(action: Action) -> Option<Step> {
    Some(match action {
        Action::Down => Step::By(1),
        Action::Up => Step::By(-1),
        Action::PageDown => Step::Pages(1),
        Action::PageUp => Step::Pages(-1),
        Action::HalfPageDown => Step::HalfPages(1),
        Action::HalfPageUp => Step::HalfPages(-1),
        Action::Top => Step::First,
        Action::Bottom => Step::Last,
        _ => return None,
    })
}

/// Where a report of `lines` lines goes on a terminal of `width` × `height`.
pub fn report_area(width: u16, height: u16, lines: usize) -> ratatui::layout::Rect {
    layout::text_dialog(width, height, width.saturating_sub(8).max(40), (lines + 2).max(5) as u16)
}
