//! The mouse: the wheel scrolls the pane under the pointer, a click focuses a pane and selects the row under
//! it (a click on the selected entry opens it). The runtime sends mouse events only when `mouse` is on.

use super::list::Step;
use super::{Effect, Pane, State, article, entries, feeds, layout};
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

/// Rows one turn of the wheel scrolls.
const WHEEL_ROWS: isize = 3;

pub(crate) fn on_mouse(state: &mut State, mouse: MouseEvent) -> Vec<Effect> {
    if state.dialog.is_some() {
        return Vec::new();
    }
    let screen = state.screen();
    let Some(pane) = screen.pane_at(mouse.column, mouse.row) else { return Vec::new() };
    match mouse.kind {
        MouseEventKind::ScrollDown => wheel(state, pane, WHEEL_ROWS),
        MouseEventKind::ScrollUp => wheel(state, pane, -WHEEL_ROWS),
        MouseEventKind::Down(MouseButton::Left) => {
            let was_focused = state.focus == pane;
            state.focus = pane;
            let Some(rect) = screen.pane(pane) else { return Vec::new() };
            // The first row inside the border is row 0 of what is shown.
            let Some(row) = mouse.row.checked_sub(rect.y + 1).filter(|r| usize::from(*r) < layout::rows_inside(rect))
            else {
                return Vec::new();
            };
            click_row(state, pane, usize::from(row), was_focused)
        }
        _ => Vec::new(),
    }
}

/// The wheel moves what a pane shows, not its cursor.
fn wheel(state: &mut State, pane: Pane, rows: isize) -> Vec<Effect> {
    let height = state.list_height(pane);
    match pane {
        Pane::Feeds => {
            let len = state.feeds.rows.len();
            state.feeds.cursor.offset = super::list::scroll(state.feeds.cursor.offset, Step::By(rows), len, height);
            Vec::new()
        }
        Pane::Entries => {
            let len = state.entries.len();
            state.entries.cursor.offset = super::list::scroll(state.entries.cursor.offset, Step::By(rows), len, height);
            entries::window(state)
        }
        Pane::Article => article::scroll_by(state, Step::By(rows)),
    }
}

fn click_row(state: &mut State, pane: Pane, row: usize, was_focused: bool) -> Vec<Effect> {
    match pane {
        Pane::Feeds => {
            let index = state.feeds.cursor.offset + row;
            if index >= state.feeds.rows.len() {
                return Vec::new();
            }
            let height = state.list_height(Pane::Feeds);
            state.feeds.cursor.select(index, state.feeds.rows.len(), height);
            feeds::step(state, Step::By(0))
        }
        Pane::Entries => {
            let index = state.entries.cursor.offset + row;
            if index >= state.entries.len() {
                return Vec::new();
            }
            let again = was_focused && index == state.entries.cursor.index;
            let height = state.list_height(Pane::Entries);
            state.entries.cursor.select(index, state.entries.len(), height);
            if again { entries::open(state) } else { Vec::new() }
        }
        Pane::Article => Vec::new(),
    }
}
