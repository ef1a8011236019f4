//! A feed's `download_command` (`yt-dlp -o {path} {url}`): for enclosures that are pages rather than files. No
//! shell: the line is split into words once, and `{url}` and `{path}` are each one whole argument wherever they
//! stand (a hostile address cannot add an argument). It runs bounded ([`crate::process`]), its output goes to the
//! log, and its exit status is the result.

use crate::command::CommandLine;
use crate::process::{self, Limits};
use crate::store::downloads::{Download, State};
use std::time::Duration;

pub(super) async fn run(line: &CommandLine, row: &Download, deadline: Duration) -> (State, Option<String>) {
    let argv = line.argv(&[("{url}", &row.url), ("{path}", &row.path)], &[&row.url]);
    let Some((program, args)) = argv.split_first() else {
        return (State::Failed, Some("the download_command is empty".into()));
    };
    let mut command = std::process::Command::new(program);
    command.args(args);
    if let Some(folder) = std::path::Path::new(&row.path).parent()
        && let Err(e) = std::fs::create_dir_all(folder)
    {
        return (State::Failed, Some(format!("cannot create the folder {}: {e}", folder.display())));
    }
    let (id, program) = (row.id, program.clone());
    let limits = Limits { deadline, output: 64 * 1024 };
    let ran = tokio::task::spawn_blocking(move || process::run(command, Vec::new(), limits)).await;
    match ran {
        Ok(Ok(finished)) => {
            for (name, output) in [("output", &finished.stdout), ("errors", &finished.stderr)] {
                for text in String::from_utf8_lossy(output).lines().filter(|l| !l.trim().is_empty()) {
                    tracing::info!("download {id}: {program} {name}: {}", crate::sanitize::one_line(text, 500));
                }
            }
            if finished.status.success() {
                (State::Done, None)
            } else {
                let said = finished.said();
                let said = if said.is_empty() { String::new() } else { format!(": {said}") };
                (State::Failed, Some(format!("{program} ended with {}{said}", finished.status)))
            }
        }
        Ok(Err(e)) => (State::Failed, Some(e.to_string())),
        Err(e) => (State::Failed, Some(format!("{program} could not be run: {e}"))),
    }
}
