//! Colours: one [`Style`] per element the reader draws, a default that reads on dark and light terminals (it
//! never paints with white, black or light gray on the terminal's own background), a monochrome theme for
//! `NO_COLOR`, and `[colors]` from the config file on top.

use ratatui::style::{Color, Modifier, Style};

/// Every element the UI draws with its own style: (config name, what it colours).
pub const ELEMENTS: &[(&str, &str)] = &[
    ("border", "pane borders"),
    ("border_focused", "the border of the pane with the focus"),
    ("title", "pane titles"),
    ("selection", "the cursor row in the pane with the focus"),
    ("selection_unfocused", "the cursor row in the other panes"),
    ("unread", "unread entries, and feeds with unread entries"),
    ("read", "read entries"),
    ("unread_marker", "the ● before an unread entry"),
    ("date", "dates in the entry list"),
    ("folder", "folder rows"),
    ("count", "unread counts"),
    ("error", "the ! of a feed whose last refresh failed, and error text"),
    ("dead", "the ✗ of a feed that is gone"),
    ("refreshing", "the ↻ of a feed being fetched"),
    ("overridden", "the ~ of a feed whose declared encoding was overridden"),
    ("status", "the status bar"),
    ("status_progress", "refresh progress in the status bar"),
    ("status_error", "errors in the status bar"),
    ("hint", "key hints and quiet text (Loading…)"),
    ("dialog_border", "the border of dialogs"),
    ("dialog_title", "dialog titles"),
    ("key", "keys in the help"),
    ("label", "field names in feed info, and help headings"),
    ("input", "text typed into a prompt"),
    ("heading", "the article's title and headings"),
    ("meta", "the article's byline, tags and media"),
    ("link", "links"),
    ("code", "code"),
    ("quote", "quotations"),
    ("image", "images' alternative text"),
    ("matched", "words a search matched, in the article"),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    pub border: Style,
    pub border_focused: Style,
    pub title: Style,
    pub selection: Style,
    pub selection_unfocused: Style,
    pub unread: Style,
    pub read: Style,
    pub unread_marker: Style,
    pub date: Style,
    pub folder: Style,
    pub count: Style,
    pub error: Style,
    pub dead: Style,
    pub refreshing: Style,
    pub overridden: Style,
    pub status: Style,
    pub status_progress: Style,
    pub status_error: Style,
    pub hint: Style,
    pub dialog_border: Style,
    pub dialog_title: Style,
    pub key: Style,
    pub label: Style,
    pub input: Style,
    pub heading: Style,
    pub meta: Style,
    pub link: Style,
    pub code: Style,
    pub quote: Style,
    pub image: Style,
    pub matched: Style,
}

fn fg(c: Color) -> Style {
    Style::default().fg(c)
}

fn m(modifier: Modifier) -> Style {
    Style::default().add_modifier(modifier)
}

impl Default for Theme {
    fn default() -> Theme {
        let bold = m(Modifier::BOLD);
        Theme {
            border: fg(Color::DarkGray),
            border_focused: fg(Color::Cyan),
            title: bold,
            selection: Style::default().fg(Color::Black).bg(Color::Cyan),
            selection_unfocused: m(Modifier::REVERSED),
            unread: bold,
            read: Style::default(),
            unread_marker: fg(Color::Cyan),
            date: m(Modifier::DIM),
            folder: bold,
            count: Style::default(),
            error: fg(Color::Red).add_modifier(Modifier::BOLD),
            dead: fg(Color::Red),
            refreshing: fg(Color::Magenta),
            overridden: fg(Color::Blue),
            status: Style::default(),
            status_progress: Style::default().fg(Color::Black).bg(Color::Cyan),
            status_error: fg(Color::Red).add_modifier(Modifier::BOLD),
            hint: m(Modifier::DIM),
            dialog_border: fg(Color::Cyan),
            dialog_title: bold,
            key: fg(Color::Cyan).add_modifier(Modifier::BOLD),
            label: fg(Color::Cyan).add_modifier(Modifier::BOLD),
            input: bold,
            heading: fg(Color::Cyan).add_modifier(Modifier::BOLD),
            meta: m(Modifier::ITALIC),
            link: fg(Color::Blue).add_modifier(Modifier::UNDERLINED),
            code: fg(Color::Green),
            quote: fg(Color::Green),
            image: fg(Color::Magenta),
            matched: Style::default().fg(Color::Black).bg(Color::Yellow),
        }
    }
}

impl Theme {
    /// No colours at all (`NO_COLOR`): weight, underline and reverse video still tell things apart.
    pub fn monochrome() -> Theme {
        let plain = Style::default();
        let bold = m(Modifier::BOLD);
        Theme {
            border: plain,
            border_focused: bold,
            title: bold,
            selection: m(Modifier::REVERSED),
            selection_unfocused: m(Modifier::REVERSED | Modifier::DIM),
            unread: bold,
            read: plain,
            unread_marker: bold,
            date: plain,
            folder: bold,
            count: plain,
            error: bold,
            dead: bold,
            refreshing: bold,
            overridden: plain,
            status: plain,
            status_progress: m(Modifier::REVERSED),
            status_error: bold,
            hint: plain,
            dialog_border: plain,
            dialog_title: bold,
            key: bold,
            label: bold,
            input: bold,
            heading: bold,
            meta: m(Modifier::ITALIC),
            link: m(Modifier::UNDERLINED),
            code: plain,
            quote: m(Modifier::ITALIC),
            image: m(Modifier::ITALIC),
            matched: m(Modifier::REVERSED | Modifier::BOLD),
        }
    }

    fn element_mut(&mut self, name: &str) -> Option<&mut Style> {
        Some(match name {
            "border" => &mut self.border,
            "border_focused" => &mut self.border_focused,
            "title" => &mut self.title,
            "selection" => &mut self.selection,
            "selection_unfocused" => &mut self.selection_unfocused,
            "unread" => &mut self.unread,
            "read" => &mut self.read,
            "unread_marker" => &mut self.unread_marker,
            "date" => &mut self.date,
            "folder" => &mut self.folder,
            "count" => &mut self.count,
            "error" => &mut self.error,
            "dead" => &mut self.dead,
            "refreshing" => &mut self.refreshing,
            "overridden" => &mut self.overridden,
            "status" => &mut self.status,
            "status_progress" => &mut self.status_progress,
            "status_error" => &mut self.status_error,
            "hint" => &mut self.hint,
            "dialog_border" => &mut self.dialog_border,
            "dialog_title" => &mut self.dialog_title,
            "key" => &mut self.key,
            "label" => &mut self.label,
            "input" => &mut self.input,
            "heading" => &mut self.heading,
            "meta" => &mut self.meta,
            "link" => &mut self.link,
            "code" => &mut self.code,
            "quote" => &mut self.quote,
            "image" => &mut self.image,
            "matched" => &mut self.matched,
            _ => return None,
        })
    }

    /// This theme with the `[colors]` table's elements replaced. An error names the element and says what a
    /// good value looks like.
    pub fn with_config(mut self, table: &toml::Table) -> Result<Theme, (String, String)> {
        for (name, value) in table {
            let key = format!("colors.{name}");
            let Some(slot) = self.element_mut(name) else {
                let known: Vec<&str> = ELEMENTS.iter().map(|(n, _)| *n).collect();
                return Err((
                    key,
                    format!("'{name}' is not an element tidings draws; elements are {}", known.join(", ")),
                ));
            };
            let Some(text) = value.as_str() else {
                return Err((key, "write a style as a string, like \"cyan\" or \"black on yellow bold\"".into()));
            };
            *slot = parse_style(text).map_err(|e| (key, e))?;
        }
        Ok(self)
    }
}

/// The `[colors]` section of a config file, every element commented out with what it colours:
/// config.example.toml's colour section is this text.
pub fn toml_example() -> String {
    let mut theme = Theme::default();
    let mut out = String::from("[colors]\n");
    for (name, what) in ELEMENTS {
        // A style of nothing is written "": uncommented, "default" would pin the terminal's colour where the
        // element now lets what is under it show.
        let style = match theme.element_mut(name) {
            Some(style) if *style != Style::default() => describe_style(*style),
            _ => String::new(),
        };
        out.push_str(&format!("# {name} = \"{style}\"    # {what}\n"));
    }
    out
}

/// A style written the way [`parse_style`] reads it.
pub fn describe_style(style: Style) -> String {
    let mut words = Vec::new();
    let color = |c: Color| match c {
        Color::Reset => "default".to_string(),
        Color::Indexed(n) => n.to_string(),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        named => format!("{named:?}").to_ascii_lowercase(),
    };
    if let Some(fg) = style.fg {
        words.push(color(fg));
    }
    if let Some(bg) = style.bg {
        if style.fg.is_none() {
            words.push("default".into());
        }
        words.push(format!("on {}", color(bg)));
    }
    for (modifier, name) in [
        (Modifier::BOLD, "bold"),
        (Modifier::ITALIC, "italic"),
        (Modifier::UNDERLINED, "underlined"),
        (Modifier::DIM, "dim"),
        (Modifier::REVERSED, "reversed"),
        (Modifier::CROSSED_OUT, "crossed"),
    ] {
        if style.add_modifier.contains(modifier) {
            words.push(name.into());
        }
    }
    if words.is_empty() { "default".into() } else { words.join(" ") }
}

/// Parses a style: `[fg] [on bg] [bold] [italic] [underlined] [dim] [reversed] [crossed]`, where colours are
/// names (`cyan`, `darkgray`, `default`), 256-colour numbers (`208`) or `#rrggbb`.
pub fn parse_style(text: &str) -> Result<Style, String> {
    let mut style = Style::default();
    let mut words = text.split_whitespace().peekable();
    let mut fg_set = false;
    while let Some(word) = words.next() {
        let lower = word.to_ascii_lowercase();
        let modifier = match lower.as_str() {
            "bold" => Some(Modifier::BOLD),
            "italic" => Some(Modifier::ITALIC),
            "underlined" | "underline" => Some(Modifier::UNDERLINED),
            "dim" => Some(Modifier::DIM),
            "reversed" | "reverse" => Some(Modifier::REVERSED),
            "crossed" | "strikethrough" => Some(Modifier::CROSSED_OUT),
            _ => None,
        };
        if let Some(modifier) = modifier {
            style = style.add_modifier(modifier);
        } else if lower == "on" {
            let bg = words.next().ok_or_else(|| format!("'{text}': 'on' needs a colour after it"))?;
            style = style.bg(parse_color(bg)?);
        } else if !fg_set {
            style = style.fg(parse_color(word)?);
            fg_set = true;
        } else {
            return Err(format!(
                "'{text}': '{word}' is neither a colour nor bold, italic, underlined, dim, reversed or crossed"
            ));
        }
    }
    Ok(style)
}

/// Parses a colour: a name, a 256-colour number, or `#rrggbb` / `#rgb`.
pub fn parse_color(text: &str) -> Result<Color, String> {
    let lower = text.to_ascii_lowercase();
    let named = match lower.as_str() {
        "default" | "reset" | "none" => Some(Color::Reset),
        "black" => Some(Color::Black),
        "red" => Some(Color::Red),
        "green" => Some(Color::Green),
        "yellow" => Some(Color::Yellow),
        "blue" => Some(Color::Blue),
        "magenta" => Some(Color::Magenta),
        "cyan" => Some(Color::Cyan),
        "gray" | "grey" => Some(Color::Gray),
        "darkgray" | "darkgrey" | "brightblack" => Some(Color::DarkGray),
        "lightred" | "brightred" => Some(Color::LightRed),
        "lightgreen" | "brightgreen" => Some(Color::LightGreen),
        "lightyellow" | "brightyellow" => Some(Color::LightYellow),
        "lightblue" | "brightblue" => Some(Color::LightBlue),
        "lightmagenta" | "brightmagenta" => Some(Color::LightMagenta),
        "lightcyan" | "brightcyan" => Some(Color::LightCyan),
        "white" => Some(Color::White),
        _ => None,
    };
    if let Some(color) = named {
        return Ok(color);
    }
    let number = lower.strip_prefix("color").or_else(|| lower.strip_prefix("ansi")).unwrap_or(&lower);
    if let Ok(n) = number.parse::<u8>() {
        return Ok(Color::Indexed(n));
    }
    if let Some(hex) = lower.strip_prefix('#') {
        let digits: Option<Vec<u8>> = hex.chars().map(|c| c.to_digit(16).map(|d| d as u8)).collect();
        match digits.as_deref() {
            Some([r1, r2, g1, g2, b1, b2]) => return Ok(Color::Rgb(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
            Some([r, g, b]) => return Ok(Color::Rgb(r * 17, g * 17, b * 17)),
            _ => {}
        }
    }
    Err(format!("'{text}' is not a colour: use a name (cyan, darkgray, default…), a number from 0 to 255, or #rrggbb"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_parse_named_indexed_and_rgb_colours_with_modifiers() {
        assert_eq!(parse_style("cyan").unwrap(), Style::default().fg(Color::Cyan));
        assert_eq!(
            parse_style("black on #ffcc00 bold").unwrap(),
            Style::default().fg(Color::Black).bg(Color::Rgb(255, 204, 0)).add_modifier(Modifier::BOLD)
        );
        assert_eq!(
            parse_style("208 on color17").unwrap(),
            Style::default().fg(Color::Indexed(208)).bg(Color::Indexed(17))
        );
        assert_eq!(parse_style("#0af").unwrap(), Style::default().fg(Color::Rgb(0, 170, 255)));
        assert_eq!(parse_style("reversed").unwrap(), Style::default().add_modifier(Modifier::REVERSED));
        assert!(parse_style("purplish").unwrap_err().contains("not a colour"));
        assert!(parse_style("red blue").unwrap_err().contains("'blue'"));
        assert!(parse_style("red on").unwrap_err().contains("needs a colour"));
    }

    #[test]
    fn described_styles_parse_back_to_themselves() {
        let mut theme = Theme::default();
        for (name, _) in ELEMENTS {
            let style = *theme.element_mut(name).unwrap();
            let parsed = parse_style(&describe_style(style)).unwrap();
            let normal = |s: Style| (s.fg.filter(|c| *c != Color::Reset), s.bg, s.add_modifier);
            assert_eq!(normal(parsed), normal(style), "{name}: {}", describe_style(style));
        }
    }

    #[test]
    fn config_replaces_elements_and_names_bad_ones() {
        let table: toml::Table = "selection = \"white on blue\"\nlink = \"green\"".parse().unwrap();
        let theme = Theme::default().with_config(&table).unwrap();
        assert_eq!(theme.selection, Style::default().fg(Color::White).bg(Color::Blue));
        assert_eq!(theme.link, Style::default().fg(Color::Green));
        let table: toml::Table = "chrome = \"red\"".parse().unwrap();
        let (key, message) = Theme::default().with_config(&table).unwrap_err();
        assert_eq!(key, "colors.chrome");
        assert!(message.contains("not an element"));
    }

    #[test]
    fn every_element_is_configurable_and_the_monochrome_theme_has_no_colour() {
        let mut theme = Theme::monochrome();
        for (name, _) in ELEMENTS {
            let slot = theme.element_mut(name).unwrap_or_else(|| panic!("{name} is not an element"));
            assert!(slot.fg.is_none() && slot.bg.is_none(), "{name} has a colour in the monochrome theme");
        }
    }

    #[test]
    fn the_default_theme_never_paints_text_in_white_black_or_gray_on_the_terminal_background() {
        let mut theme = Theme::default();
        for (name, _) in ELEMENTS {
            let s = *theme.element_mut(name).unwrap();
            if s.bg.is_none() {
                assert!(
                    !matches!(s.fg, Some(Color::White | Color::Black | Color::Gray)),
                    "{name} would vanish on a dark or a light terminal"
                );
            }
        }
    }
}
