//! The reader inside a real tmux (3.3, which has no sixel, with passthrough off): `images = "sixel"` would print
//! `Ptmux;` and tear the screen, so the reader falls back to half-blocks and says why in the message log; and an
//! article's photo written `alt=""` (as CMSs write photos) is drawn there, in its colours. The screen is read
//! with `tmux capture-pane`, colours included. And `tidings refresh` on that terminal: its progress line counts
//! up to all the feeds.
//!
//! It runs where tmux is (Debian: `apt-get install tmux`) and says it skipped, and why, where it is not.

// A test that says why it skipped writes to standard error.
#![allow(clippy::print_stderr)]

mod support;

use std::process::Command;
use std::time::{Duration, Instant};
use support::server::{Reply, Server};
use support::{Sandbox, opml};

/// A tmux server of its own (its own socket), killed when dropped.
struct Tmux(String);

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.0).args(args).output().expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane's text (with `-e`: its colours as escape sequences too).
    fn screen(&self, colours: bool) -> String {
        if colours { self.run(&["capture-pane", "-p", "-e"]) } else { self.run(&["capture-pane", "-p"]) }
    }

    /// Polls the screen until `done` holds, or the deadline passes; the last screen either way.
    fn until(&self, colours: bool, within: Duration, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + within;
        loop {
            let screen = self.screen(colours);
            if done(&screen) || Instant::now() > deadline {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-L").arg(&self.0).arg("kill-server").output();
    }
}

fn squares() -> Vec<u8> {
    let image =
        image::RgbImage::from_fn(
            240,
            120,
            |x, _| {
                if x < 120 { image::Rgb([255, 0, 0]) } else { image::Rgb([0, 0, 255]) }
            },
        );
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// `s` as one word for the shell tmux runs the command with.
fn quoted(s: &std::ffi::OsStr) -> String {
    format!("'{}'", s.to_string_lossy().replace('\'', "'\\''"))
}

/// Whether tmux is here; says the test skipped when it is not.
fn have_tmux(test: &str) -> bool {
    let have = Command::new("sh").arg("-c").arg("command -v tmux").output().is_ok_and(|o| o.status.success());
    if !have {
        support::skip(test, "tmux not installed (apt-get install tmux)");
    }
    have
}

/// `command` as words for the shell tmux runs it with: its environment, program and arguments.
fn shell_words(command: &Command) -> String {
    let mut line = String::from("env");
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            line.push_str(&format!(" {}={}", key.to_string_lossy(), quoted(value)));
        }
    }
    line.push_str(&format!(" {}", quoted(command.get_program())));
    for arg in command.get_args() {
        line.push_str(&format!(" {}", quoted(arg)));
    }
    line
}

/// Starts the shell line `line` in a tmux of its own, 100 × 40.
fn start(line: &str) -> Tmux {
    // Tests run at once in one process: each tmux server has a socket of its own.
    static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmux = Tmux(format!("tidings-test-{}-{n}", std::process::id()));
    let started = Command::new("tmux")
        .args(["-L", &tmux.0, "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "40", line])
        .status()
        .expect("start tmux");
    assert!(started.success());
    tmux
}

#[test]
fn sixel_forced_inside_tmux_falls_back_to_half_blocks_and_draws_an_empty_alt_photo() {
    if !have_tmux("sixel_forced_inside_tmux_falls_back_to_half_blocks") {
        return;
    }
    let server = Server::start();
    let body = format!("<p>Squares:</p><p><img src=\"{}\" alt=\"\"></p><p>End.</p>", server.url("/sq.png"));
    let feed = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Pictures</title><item><guid>1</guid>\
         <title>Squares</title><description><![CDATA[{body}]]></description></item></channel></rss>"
    );
    server.route("/feed.xml", Reply::ok("application/rss+xml", feed));
    server.route("/sq.png", Reply::ok("image/png", squares()));
    let sandbox = Sandbox::new();
    let subs = sandbox.write("subs.opml", opml(&[(None, "Pictures", &server.url("/feed.xml"))]));
    tidings::import::import_file(&sandbox.db(), &subs).unwrap();
    let config = sandbox.write("config.toml", "images = \"sixel\"\nrefresh_interval_minutes = 0\nimage_cache_mb = 0\n");

    let mut reader = sandbox.tidings();
    reader.arg("--config").arg(&config);
    let tmux = start(&format!("exec {}", shell_words(&reader)));

    // The reader opens on the Unread view once its refresh has brought the entry: into it, and open it.
    let screen = tmux.until(false, Duration::from_secs(30), |s| s.contains("Squares"));
    assert!(screen.contains("Squares"), "{screen}");
    tmux.run(&["send-keys", "l"]);
    let screen = tmux.until(false, Duration::from_secs(10), |s| s.contains("Squares:") && s.contains("End."));
    if !screen.contains("Squares:") {
        tmux.run(&["send-keys", "Enter"]);
    }
    let red = "38;2;255;0;0";
    let blue = "38;2;0;0;255";
    let coloured = tmux.until(true, Duration::from_secs(30), |s| s.contains(red) && s.contains(blue));
    assert!(coloured.contains(red) && coloured.contains(blue), "the photo in half-blocks:\n{coloured}");
    let text = tmux.screen(false);
    assert!(!text.contains("Ptmux") && !text.contains("\u{1b}P"), "no sixel sequence printed:\n{text}");
    assert!(!text.contains("[image]"), "no [image] line under the drawn photo:\n{text}");
    // Why: in the message log.
    tmux.run(&["send-keys", "L"]);
    let log = tmux.until(false, Duration::from_secs(10), |s| s.contains("allow-passthrough"));
    assert!(log.contains("does not reach the terminal inside tmux"), "{log}");
    tmux.run(&["send-keys", "Escape", "q"]);
}

#[test]
fn a_refresh_on_a_terminal_counts_its_feeds_up_to_all_of_them() {
    if !have_tmux("a_refresh_on_a_terminal_counts_its_feeds_up_to_all_of_them") {
        return;
    }
    let server = Server::start();
    let feed = |title: &str| {
        format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>{title}</title><item><guid>1</guid>\
             <title>{title} news</title></item></channel></rss>"
        )
    };
    for (path, title) in [("/a.xml", "Alpha"), ("/b.xml", "Beta"), ("/c.xml", "Gamma")] {
        server.route(path, Reply::ok("application/rss+xml", feed(title)));
    }
    let sandbox = Sandbox::new();
    let (a, b, c) = (server.url("/a.xml"), server.url("/b.xml"), server.url("/c.xml"));
    let subs = sandbox.write("subs.opml", opml(&[(None, "Alpha", &a), (None, "Beta", &b), (None, "Gamma", &c)]));
    tidings::import::import_file(&sandbox.db(), &subs).unwrap();
    let mut refresh = sandbox.tidings();
    refresh.arg("refresh");
    // The shell says how the refresh exited, and the pane stays open (on `cat`, reading the terminal) for its
    // last screen to be read.
    let tmux = start(&format!("{}; echo \"refresh exited $?\"; exec cat", shell_words(&refresh)));
    let screen = tmux.until(false, Duration::from_secs(30), |s| s.contains("refresh exited"));
    assert!(screen.contains("refresh exited 0"), "the refresh ended well:\n{screen}");
    // Its progress line, on standard error, counted the three feeds (a carriage return between counts: the
    // last one is what the terminal shows). Read from the pane's history on: tmux may have scrolled the first
    // line out of the screen as it sized the pane.
    let whole = tmux.run(&["capture-pane", "-p", "-S", "-"]);
    let progress = whole.lines().next().unwrap_or_default();
    assert_eq!(progress.trim_end(), "Refreshing 3/3", "{whole}");
    assert!(whole.contains("Refreshed 3 feeds: 3 updated"), "{whole}");
}
