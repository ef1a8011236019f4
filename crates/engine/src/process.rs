//! The user's commands that run beside tidings without the terminal — `notify_command`, `password_command`, a
//! `:pipe` into a program, the clipboard's `copy_command` — started bounded: the input written from a thread of
//! its own (a program that never reads it cannot block tidings), each output kept up to a limit (the rest read and
//! dropped, so the program never blocks on a full pipe either, until it has printed far more than anyone reads:
//! then it is stopped), and a deadline after which the program and whatever it started are killed. Nothing here waits on the event loop: callers run [`run`] on a blocking thread.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

/// How long a program may take and how much of what it prints is kept.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub deadline: Duration,
    /// Bytes kept of each of standard output and standard error.
    pub output: usize,
}

/// A program that finished.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    /// Its standard output, up to the limit.
    pub stdout: Vec<u8>,
    /// Its standard error, up to the limit.
    pub stderr: Vec<u8>,
    /// Whether it printed more than the limit on its standard output.
    pub cut: bool,
}

impl Finished {
    /// The first line of its standard error, one line with no control characters: what to show of a failure.
    pub fn said(&self) -> String {
        crate::sanitize::one_line(String::from_utf8_lossy(&self.stderr).lines().next().unwrap_or(""), 200)
    }
}

/// How many times the kept output a program may print before it is stopped.
const FLOOD: u64 = 256;

#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("{program} printed more than {} MB and was stopped", .bytes / 1_000_000)]
    Flooded { program: String, bytes: u64 },
    #[error("cannot start {program}: {source}")]
    Start { program: String, source: std::io::Error },
    #[error("{program} did not finish within {} s and was stopped", .after.as_secs())]
    TimedOut { program: String, after: Duration },
    #[error("{program}: {source}")]
    Wait { program: String, source: std::io::Error },
}

/// The process groups of the programs running now, for [`stop_all`].
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Stops every program [`run`] started that is still running, and what each started: a process that is about to
/// exit (the daemon told to stop) leaves none behind. Their callers see them killed.
pub fn stop_all() {
    for group in RUNNING.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        crate::os::kill_process_group(group);
    }
}

/// Forgets the group at the end of the run that started it.
struct Registered(u32);

impl Drop for Registered {
    fn drop(&mut self) {
        RUNNING.lock().unwrap_or_else(|e| e.into_inner()).retain(|g| *g != self.0);
    }
}

/// Runs `command` with `input` on its standard input (none when empty), in a process group of its own, within
/// `limits`. Blocks its thread until the program ends or is stopped.
pub fn run(mut command: Command, input: Vec<u8>, limits: Limits) -> Result<Finished, ProcessError> {
    let program = command.get_program().to_string_lossy().into_owned();
    command
        .stdin(if input.is_empty() { Stdio::null() } else { Stdio::piped() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| ProcessError::Start { program: program.clone(), source })?;
    let group = child.id();
    RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push(group);
    let _registered = Registered(group);
    if let Some(mut stdin) = child.stdin.take() {
        // A program that does not read its input (or stops early) closes the pipe: not an error.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let (done, outputs) = mpsc::channel();
    let stdout = child.stdout.take().map(|pipe| read_bounded(pipe, limits.output, group, 0, done.clone()));
    let stderr = child.stderr.take().map(|pipe| read_bounded(pipe, limits.output, group, 1, done.clone()));
    let (exited, status) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = exited.send(child.wait());
    });
    let left = |now: Instant| limits.deadline.saturating_sub(now.duration_since(started));
    let stop = |why: ProcessError| {
        crate::os::kill_process_group(group);
        why
    };
    let timed_out = || ProcessError::TimedOut { program: program.clone(), after: limits.deadline };
    let status = match status.recv_timeout(left(Instant::now())) {
        Ok(Ok(status)) => status,
        Ok(Err(source)) => return Err(stop(ProcessError::Wait { program: program.clone(), source })),
        Err(_) => return Err(stop(timed_out())),
    };
    // Its output ends when every process that holds the pipes has ended: what it started in the background too.
    let mut kept = [Vec::new(), Vec::new()];
    let mut cut = false;
    for _ in stdout.iter().chain(stderr.iter()) {
        match outputs.recv_timeout(left(Instant::now())) {
            Ok(Output { total, flooded: true, .. }) => return Err(ProcessError::Flooded { program, bytes: total }),
            Ok(Output { which, bytes, total, .. }) => {
                cut |= which == 0 && total > bytes.len() as u64;
                kept[which] = bytes;
            }
            Err(_) => return Err(stop(timed_out())),
        }
    }
    let [stdout, stderr] = kept;
    Ok(Finished { status, stdout, stderr, cut })
}

/// Runs `command` as [`run`] does, for a program whose success is all that counts (exit status 0): otherwise what
/// went wrong in words — the program, its exit status and the first line it printed on standard error.
pub fn run_to_success(command: Command, input: Vec<u8>, limits: Limits) -> Result<(), String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let finished = run(command, input, limits).map_err(|e| e.to_string())?;
    if finished.status.success() {
        return Ok(());
    }
    let said = finished.said();
    Err(format!(
        "{program} ended with {}{}",
        finished.status,
        if said.is_empty() { String::new() } else { format!(": {said}") }
    ))
}

/// What a program printed on one of its outputs.
struct Output {
    /// 0 for standard output, 1 for standard error.
    which: usize,
    /// The first bytes, up to the limit.
    bytes: Vec<u8>,
    /// How many it printed in all.
    total: u64,
    /// Whether it printed so much that it was stopped.
    flooded: bool,
}

/// Reads `pipe` to its end on a thread of its own, keeping the first `limit` bytes, and stops the process group
/// `group` when it has printed [`FLOOD`] times that; sends what it read as `which`.
fn read_bounded(
    mut pipe: impl Read + Send + 'static,
    limit: usize,
    group: u32,
    which: usize,
    done: mpsc::Sender<Output>,
) {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buffer = [0u8; 8192];
        let mut total = 0u64;
        let mut flooded = false;
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    let room = limit.saturating_sub(bytes.len());
                    bytes.extend_from_slice(&buffer[..n.min(room)]);
                    total += n as u64;
                    if total > FLOOD * limit.max(1) as u64 {
                        crate::os::kill_process_group(group);
                        flooded = true;
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = done.send(Output { which, bytes, total, flooded });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        command
    }

    const SHORT: Limits = Limits { deadline: Duration::from_secs(10), output: 1000 };

    #[test]
    fn a_program_that_never_reads_its_input_does_not_block() {
        let started = Instant::now();
        let finished = run(sh("echo done"), vec![b'x'; 4 << 20], SHORT).unwrap();
        assert!(finished.status.success());
        assert_eq!(finished.stdout, b"done\n");
        assert!(started.elapsed() < SHORT.deadline, "it did not wait for the deadline");
    }

    #[test]
    fn input_larger_than_a_pipe_goes_through_a_program_that_echoes_it() {
        let input: Vec<u8> = (0..330_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let finished = run(Command::new("cat"), input.clone(), Limits { output: 1 << 20, ..SHORT }).unwrap();
        assert_eq!(finished.stdout, input, "no deadlock at the pipe's 64 KiB");
        assert!(!finished.cut);
    }

    #[test]
    fn output_is_kept_up_to_the_limit_and_the_rest_dropped() {
        let finished = run(sh("head -c 200000 /dev/zero"), Vec::new(), SHORT).unwrap();
        assert_eq!(finished.stdout.len(), SHORT.output);
        assert!(finished.cut);
    }

    #[test]
    fn a_program_that_prints_without_end_is_stopped() {
        let started = Instant::now();
        let e = run(Command::new("yes"), Vec::new(), SHORT).unwrap_err();
        assert!(matches!(e, ProcessError::Flooded { bytes, .. } if bytes > FLOOD * 1000), "{e}");
        assert!(started.elapsed() < SHORT.deadline, "stopped at once, not at the deadline");
    }

    #[test]
    fn a_program_past_its_deadline_is_stopped_with_what_it_started() {
        let limits = Limits { deadline: Duration::from_millis(300), output: 100 };
        let started = Instant::now();
        // The background sleep holds the output pipe: it must be killed too, or the reading would wait for it.
        let e = run(sh("sleep 30 & sleep 30"), Vec::new(), limits).unwrap_err();
        assert!(matches!(e, ProcessError::TimedOut { .. }), "{e}");
        assert!(e.to_string().contains("did not finish within"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let e = run(sh("sleep 30 >/dev/null 2>&1 & echo started"), Vec::new(), limits);
        assert!(e.is_ok(), "a program left running without our pipes does not hold us: {e:?}");
    }
}
