//! What the terminal loop needs from the terminal besides drawing ([`Host`]): suspending, handing the terminal
//! to a program, the clipboard, the window title — and a host with no terminal for tests ([`NoHost`]).

/// What the terminal loop needs from the terminal besides drawing.
pub trait Host {
    /// Gives the terminal back to the shell until the user resumes tidings (Ctrl-Z), then takes it again.
    fn suspend(&mut self) -> std::io::Result<()>;

    /// Runs a terminal program (w3m, mpv…) with the terminal to itself until it exits.
    fn run_foreground(&mut self, command: std::process::Command) -> std::io::Result<std::process::ExitStatus>;

    /// Runs a terminal program (a pager) with `input` on its standard input and the terminal to itself.
    fn run_piped(
        &mut self,
        mut command: std::process::Command,
        input: &str,
    ) -> std::io::Result<std::process::ExitStatus> {
        command.stdin(std::process::Stdio::piped());
        self.run_foreground_with(command, input)
    }

    /// [`Host::run_foreground`] with `input` written to the program's standard input.
    fn run_foreground_with(
        &mut self,
        command: std::process::Command,
        input: &str,
    ) -> std::io::Result<std::process::ExitStatus>;

    /// Puts `text` on the clipboard through the terminal (OSC 52).
    fn copy_to_clipboard(&mut self, text: &str) -> std::io::Result<()>;

    /// Sets the terminal window's title (one line, no control characters).
    fn set_title(&mut self, _title: &str) -> std::io::Result<()> {
        Ok(())
    }
}

/// Starts `command` with `input` on its standard input and waits for it.
pub fn run_with_input(mut command: std::process::Command, input: &str) -> std::io::Result<std::process::ExitStatus> {
    use std::io::Write;
    command.stdin(std::process::Stdio::piped());
    let mut child = command.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // From a thread of its own: a program that reads nothing until it is done (or never) cannot hold the
        // reader; one that stops reading early (a pager quit at once) closes the pipe, which is not an error.
        let input = input.to_string();
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    child.wait()
}

/// The OSC 52 sequence that asks the terminal to put `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    format!("\x1b]52;c;{}\x07", base64::engine::general_purpose::STANDARD.encode(text))
}

/// A host with no terminal to hand over (tests): suspending only counts, programs run with no terminal.
#[derive(Debug, Default)]
pub struct NoHost {
    /// How many times the reader asked to suspend.
    pub suspended: usize,
    /// The programs run in the foreground, as program and arguments.
    pub ran: Vec<Vec<String>>,
    /// What was put on the clipboard through the terminal.
    pub copied: Vec<String>,
    /// The window titles set, in order.
    pub titles: Vec<String>,
}

impl Host for NoHost {
    fn suspend(&mut self) -> std::io::Result<()> {
        self.suspended += 1;
        Ok(())
    }

    fn run_foreground(&mut self, mut command: std::process::Command) -> std::io::Result<std::process::ExitStatus> {
        let words = std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        self.ran.push(words);
        command.stdin(std::process::Stdio::null()).status()
    }

    fn run_foreground_with(
        &mut self,
        command: std::process::Command,
        input: &str,
    ) -> std::io::Result<std::process::ExitStatus> {
        let words = std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        self.ran.push(words);
        run_with_input(command, input)
    }

    fn copy_to_clipboard(&mut self, text: &str) -> std::io::Result<()> {
        self.copied.push(text.to_string());
        Ok(())
    }

    fn set_title(&mut self, title: &str) -> std::io::Result<()> {
        self.titles.push(title.to_string());
        Ok(())
    }
}
