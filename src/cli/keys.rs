//! `tidings keys`: the keys in effect (the defaults with the config's `[keys]`), one table per context.

use crate::config::Config;
use std::io::Write;

/// `tidings keys`: the keymap in effect, as help shows it or as docs/keys.md's Markdown.
pub(super) fn run(config: &Config, markdown: bool) -> std::io::Result<()> {
    let keymap = &config.keymap;
    let mut out = std::io::stdout().lock();
    if markdown {
        write!(out, "{}", keymap.markdown())?;
        return out.flush();
    }
    let rows = keymap.help_rows();
    let width = rows.iter().map(|(_, k, _)| unicode_width::UnicodeWidthStr::width(k.as_str())).max().unwrap_or(8);
    let mut context = None;
    for (ctx, keys, help) in rows {
        if context != Some(ctx) {
            if context.is_some() {
                writeln!(out)?;
            }
            writeln!(out, "{}", ctx.title())?;
            context = Some(ctx);
        }
        let pad = width.saturating_sub(unicode_width::UnicodeWidthStr::width(keys.as_str()));
        writeln!(out, "  {keys}{}  {help}", " ".repeat(pad))?;
    }
    out.flush()
}
