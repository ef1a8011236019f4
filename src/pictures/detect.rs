//! Which protocol pictures are drawn with, decided once before the reader reads its first key: the `images`
//! setting, and for `auto` what the terminal answers when asked (kitty graphics, sixel, iTerm2's inline images;
//! half-blocks, which every terminal draws, otherwise). Inside tmux only what passes through counts: tmux answers
//! the sixel question itself (Debian's tmux 3.3 has no sixel), and kitty's graphics reach the outer terminal
//! when `allow-passthrough` is on. The question also tells the size of a cell in pixels.

use ratatui_image::picker::{Picker, ProtocolType};
use serde::Deserialize;

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

/// Asks the terminal (on standard input and output, which must be in raw mode and not yet read by anyone
/// else) and returns how pictures are drawn; `None` when they are off. A terminal that does not answer gets
/// half-blocks (or the protocol forced) with a usual cell size.
pub fn detect(setting: Images) -> Option<Picker> {
    if setting == Images::Off {
        return None;
    }
    let mut picker = match Picker::from_query_stdio() {
        Ok(picker) => picker,
        Err(e) => {
            tracing::info!("the terminal did not say how it draws pictures ({e}); half-blocks");
            Picker::halfblocks()
        }
    };
    if let Some(protocol) = setting.forced() {
        picker.set_protocol_type(protocol);
    }
    tracing::info!(
        "pictures: {:?}, cells of {}×{} pixels{}",
        picker.protocol_type(),
        picker.font_size().width,
        picker.font_size().height,
        if picker.tmux_detected() { ", inside tmux" } else { "" }
    );
    Some(picker)
}

/// A picker that asks the terminal nothing: `protocol` with cells of `cell` pixels (tests, benchmarks).
pub fn fixed(protocol: ProtocolType, cell: (u16, u16)) -> Picker {
    #[allow(deprecated)] // the documented way to give a cell size without asking the terminal
    let mut picker = Picker::from_fontsize(ratatui_image::FontSize::new(cell.0, cell.1));
    picker.set_protocol_type(protocol);
    picker
}
