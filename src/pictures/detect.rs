//! Which protocol pictures are drawn with, decided once before the reader reads its first key: the `images`
//! setting, and for `auto` what the terminal answers when asked (kitty graphics, sixel, iTerm2's inline images;
//! half-blocks, which every terminal draws, otherwise). Inside tmux only what passes through counts: tmux answers
//! the sixel question itself (Debian's tmux 3.3 has no sixel), and kitty's graphics reach the outer terminal
//! when `allow-passthrough` is on. The question also tells the size of a cell in pixels.

use ratatui_image::picker::cap_parser::{Parser, QueryStdioOptions, Response};
use ratatui_image::picker::{Picker, ProtocolType};
use serde::Deserialize;
use std::time::{Duration, Instant};

/// The `images` setting.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Images {
    /// The best the terminal answers to.
    #[default]
    Auto,
    Kitty,
    Sixel,
    Iterm2,
    Halfblocks,
    /// No pictures: the alt text, as without them.
    Off,
}

impl Images {
    /// The protocol this setting forces, if it forces one.
    fn forced(self) -> Option<ProtocolType> {
        match self {
            Images::Kitty => Some(ProtocolType::Kitty),
            Images::Sixel => Some(ProtocolType::Sixel),
            Images::Iterm2 => Some(ProtocolType::Iterm2),
            Images::Halfblocks => Some(ProtocolType::Halfblocks),
            Images::Auto | Images::Off => None,
        }
    }
}

/// How long the terminal has to answer. Every terminal answers the last question (a status report) at once; one
/// that does not answer at all (a pipe, `script`) costs this wait once, at start.
const ANSWER_WITHIN: Duration = Duration::from_millis(500);

/// Asks the terminal (standard input and output, which must be in raw mode and read by nobody else yet) and
/// returns how pictures are drawn (`None` when they are off), and the keys typed meanwhile, which belong to the
/// reader, and what to tell the user when the setting could not be followed. Unlike ratatui-image's own query,
/// nothing is left reading standard input when the terminal does not answer (a blocked read would take the
/// reader's first key).
pub fn detect(setting: Images) -> (Option<Picker>, Vec<u8>, Option<String>) {
    detect_with(setting, ask)
}

/// [`detect`], asking the terminal through `ask` (the query, how long to wait). Half-blocks need no answer: the
/// terminal is not asked (inside tmux, whose answers may never come, that cost every start its wait), and the
/// cell's size comes from the window's size in pixels, or a usual one.
fn detect_with(
    setting: Images,
    ask: impl FnOnce(&str, Duration) -> (Vec<Response>, Vec<u8>),
) -> (Option<Picker>, Vec<u8>, Option<String>) {
    if setting == Images::Off {
        return (None, Vec::new(), None);
    }
    if setting == Images::Halfblocks {
        return (Some(fixed(ProtocolType::Halfblocks, window_cell().unwrap_or((10, 20)))), Vec::new(), None);
    }
    let wezterm_or_konsole =
        ["WEZTERM_EXECUTABLE", "KONSOLE_VERSION"].iter().any(|v| std::env::var(v).is_ok_and(|s| !s.is_empty()));
    // Their kitty placeholders and sixel fall short (ratatui-image's own findings); iTerm2's images work.
    let blacklist = if wezterm_or_konsole { vec![ProtocolType::Kitty, ProtocolType::Sixel] } else { Vec::new() };
    let tmux = std::env::var("TERM").is_ok_and(|t| t.starts_with("tmux"))
        || std::env::var("TERM_PROGRAM").is_ok_and(|t| t == "tmux");
    let options = QueryStdioOptions { timeout: ANSWER_WITHIN, blacklist_protocols: blacklist, ..Default::default() };
    let (answers, typed) = ask(&Parser::query(tmux, options), ANSWER_WITHIN);
    let cell = answers
        .iter()
        .find_map(|a| if let Response::CellSize(Some((w, h))) = a { Some((*w, *h)) } else { None })
        .filter(|(w, h)| *w > 0 && *h > 0)
        .or_else(window_cell)
        .unwrap_or((10, 20));
    let answered = if answers.contains(&Response::Kitty) {
        Some(ProtocolType::Kitty)
    } else if answers.contains(&Response::Sixel) {
        Some(ProtocolType::Sixel)
    } else {
        None
    };
    // Without an answer, what the environment says (iTerm2 and its kin, tmux) or half-blocks.
    let mut picker = fixed(ProtocolType::Halfblocks, cell);
    let (forced, said) = honoured(setting, answered, tmux);
    if let Some(protocol) = forced.or(answered) {
        picker.set_protocol_type(protocol);
    } else if !matches!(fixed_guess(cell), ProtocolType::Halfblocks) {
        picker.set_protocol_type(fixed_guess(cell));
    }
    tracing::info!(
        "pictures: {:?}, cells of {}×{} pixels{}{}",
        picker.protocol_type(),
        cell.0,
        cell.1,
        if picker.tmux_detected() { ", inside tmux" } else { "" },
        if answers.is_empty() { "; the terminal did not answer" } else { "" }
    );
    (Some(picker), typed, said)
}

/// The protocol the setting forces, unless it cannot work: inside tmux, sixel and kitty's graphics reach the
/// terminal only when the terminal answered for them through tmux (tmux's `allow-passthrough` on, or a tmux
/// that draws sixel itself); forced without that answer they would print `Ptmux;` and tear the screen. Then
/// half-blocks draw, as with `auto`, and the message says why.
fn honoured(setting: Images, answered: Option<ProtocolType>, tmux: bool) -> (Option<ProtocolType>, Option<String>) {
    let forced = setting.forced();
    match forced {
        Some(p @ (ProtocolType::Sixel | ProtocolType::Kitty)) if tmux && answered != Some(p) => {
            let name = if p == ProtocolType::Sixel { "sixel" } else { "kitty" };
            let said = format!(
                "images = \"{name}\" does not reach the terminal inside tmux (turn on tmux's allow-passthrough, or \
                 use a tmux that draws {name}): pictures are drawn with half-blocks"
            );
            (Some(ProtocolType::Halfblocks), Some(said))
        }
        _ => (forced, None),
    }
}

/// The protocol ratatui-image guesses from the environment alone (iTerm2 and its kin).
fn fixed_guess(cell: (u16, u16)) -> ProtocolType {
    #[allow(deprecated)] // the documented way to give a cell size without asking the terminal
    Picker::from_fontsize(ratatui_image::FontSize::new(cell.0, cell.1)).protocol_type()
}

/// The cell size from the window's size in pixels, when the terminal tells it (TIOCGWINSZ).
fn window_cell() -> Option<(u16, u16)> {
    let size = crossterm::terminal::window_size().ok()?;
    (size.columns > 0 && size.rows > 0 && size.width > 0 && size.height > 0)
        .then(|| (size.width / size.columns, size.height / size.rows))
        .filter(|(w, h)| *w > 0 && *h > 0)
}

/// Writes `query` and reads the answers until the status report that ends them, or `within` passes. Bytes that
/// come outside an escape sequence are keys typed meanwhile: they are returned, not parsed.
#[cfg(unix)]
fn ask(query: &str, within: Duration) -> (Vec<Response>, Vec<u8>) {
    use std::io::Write;
    let (mut answers, mut typed) = (Vec::new(), Vec::new());
    let mut out = std::io::stdout();
    if out.write_all(query.as_bytes()).and_then(|()| out.flush()).is_err() {
        return (answers, typed);
    }
    let mut parser = Parser::new();
    let mut in_sequence = false;
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut buffer = [0u8; 256];
        let read = crate::os::read_stdin_within(&mut buffer, left);
        if read == 0 {
            return (answers, typed);
        }
        for &byte in &buffer[..read] {
            if !in_sequence && byte != 0x1b {
                typed.push(byte);
                continue;
            }
            in_sequence = true;
            for answer in parser.push(char::from(byte)) {
                in_sequence = false;
                if answer == Response::Status {
                    return (answers, typed);
                }
                answers.push(answer);
            }
        }
    }
}

#[cfg(not(unix))]
fn ask(_query: &str, _within: Duration) -> (Vec<Response>, Vec<u8>) {
    (Vec::new(), Vec::new())
}

/// A picker that asks the terminal nothing: `protocol` with cells of `cell` pixels (tests, benchmarks).
pub fn fixed(protocol: ProtocolType, cell: (u16, u16)) -> Picker {
    #[allow(deprecated)] // the documented way to give a cell size without asking the terminal
    let mut picker = Picker::from_fontsize(ratatui_image::FontSize::new(cell.0, cell.1));
    picker.set_protocol_type(protocol);
    picker
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixel_forced_inside_tmux_without_an_answer_falls_back_to_half_blocks_and_says_why() {
        let (protocol, said) = honoured(Images::Sixel, None, true);
        assert_eq!(protocol, Some(ProtocolType::Halfblocks));
        assert!(said.is_some_and(|s| s.contains("allow-passthrough") && s.contains("half-blocks")));
        let (protocol, said) = honoured(Images::Kitty, Some(ProtocolType::Sixel), true);
        assert_eq!((protocol, said.is_some()), (Some(ProtocolType::Halfblocks), true));
    }

    #[test]
    fn sixel_forced_is_honoured_outside_tmux_or_when_the_terminal_answered_through_it() {
        assert_eq!(honoured(Images::Sixel, None, false), (Some(ProtocolType::Sixel), None));
        assert_eq!(honoured(Images::Sixel, Some(ProtocolType::Sixel), true), (Some(ProtocolType::Sixel), None));
        assert_eq!(honoured(Images::Iterm2, None, true), (Some(ProtocolType::Iterm2), None));
        assert_eq!(honoured(Images::Auto, None, true), (None, None));
    }

    /// In tmux, start-up waited for the terminal's answer even with `images = "halfblocks"`, which needs none.
    #[test]
    fn half_blocks_ask_the_terminal_nothing_and_auto_asks() {
        let mut asked = false;
        let (picker, typed, said) = detect_with(Images::Halfblocks, |_, _| {
            asked = true;
            (Vec::new(), Vec::new())
        });
        assert!(!asked, "half-blocks wait for no answer");
        assert_eq!((picker.map(|p| p.protocol_type()), typed), (Some(ProtocolType::Halfblocks), Vec::new()));
        assert_eq!(said, None);
        let (picker, _, _) = detect_with(Images::Auto, |query, within| {
            asked = !query.is_empty() && within == ANSWER_WITHIN;
            (vec![Response::Sixel], Vec::new())
        });
        assert!(asked, "auto asks which protocol the terminal has");
        assert_eq!(picker.map(|p| p.protocol_type()), Some(ProtocolType::Sixel));
    }
}
