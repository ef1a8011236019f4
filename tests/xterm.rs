//! The real-terminal check: the reader in xterm started as a VT340 (which draws sixel) under Xvfb, detecting
//! the protocol itself (`images = "auto"`), an article with a red and a blue square (written `alt=""`, as CMSs
//! write photos) opened by keys typed with
//! xdotool, and a screenshot of the screen (ImageMagick's `import`) in which both squares' colours are found.
//!
//! It runs where the tools are (Debian: `apt-get install xvfb xterm imagemagick xdotool`) and says it skipped,
//! and why, where they are not. Run it alone with `cargo test --test xterm -- --nocapture`.

// A test that says why it skipped writes to standard error.
#![allow(clippy::print_stderr)]

mod support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::server::{Reply, Server};
use support::{Sandbox, opml};

/// Kills a child process (started by this test) when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn have(program: &str) -> bool {
    Command::new("sh").arg("-c").arg(format!("command -v {program}")).output().is_ok_and(|o| o.status.success())
}

fn squares() -> Vec<u8> {
    let image =
        image::RgbImage::from_fn(
            240,
            120,
            |x, _| if x < 120 { image::Rgb([255, 0, 0]) } else { image::Rgb([0, 0, 255]) },
        );
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// Pixels of the screenshot at `path` that are pure red and pure blue.
fn colours(path: &std::path::Path) -> (usize, usize) {
    let Ok(shot) = image::open(path) else { return (0, 0) };
    let shot = shot.to_rgb8();
    let red = shot.pixels().filter(|p| p.0[0] > 230 && p.0[1] < 30 && p.0[2] < 30).count();
    let blue = shot.pixels().filter(|p| p.0[2] > 230 && p.0[0] < 30 && p.0[1] < 30).count();
    (red, blue)
}

#[test]
fn xterm_as_a_vt340_shows_the_squares_colours_in_a_screenshot() {
    let missing: Vec<&str> = ["Xvfb", "xterm", "import", "xdotool"].into_iter().filter(|p| !have(p)).collect();
    if !missing.is_empty() {
        let why = format!("{} not installed (apt-get install xvfb xterm imagemagick xdotool)", missing.join(", "));
        support::skip("xterm_as_a_vt340_shows_the_squares_colours_in_a_screenshot", &why);
        return;
    }
    let server = Server::start();
    // Written as WordPress and Ghost write photos: alt="", no size declared. It is content, and drawn.
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
    let config = sandbox.write("config.toml", "images = \"auto\"\nrefresh_interval_minutes = 0\nimage_cache_mb = 0\n");

    let display = format!(":{}", 90 + std::process::id() % 100);
    let _xvfb = Running(
        Command::new("Xvfb")
            .args([display.as_str(), "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Xvfb"),
    );
    let mut reader = sandbox.tidings();
    reader.arg("--config").arg(&config);
    let mut xterm = Command::new("xterm");
    xterm.env("DISPLAY", &display).args(["-ti", "vt340", "-geometry", "100x40+0+0", "-bg", "white", "-e"]);
    xterm.arg(reader.get_program()).args(reader.get_args());
    for (key, value) in reader.get_envs() {
        match value {
            Some(v) => xterm.env(key, v),
            None => xterm.env_remove(key),
        };
    }
    // Let Xvfb come up before xterm connects to it.
    let deadline = Instant::now() + Duration::from_secs(30);
    let xterm = loop {
        let up = Command::new("xdotool").env("DISPLAY", &display).arg("getmouselocation").output();
        if up.is_ok_and(|o| o.status.success()) || Instant::now() > deadline {
            break Running(xterm.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("start xterm"));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let shot = sandbox.path("screen.png");
    let mut found = (0, 0);
    let key = |name: &str| {
        let _ = Command::new("xdotool").env("DISPLAY", &display).args(["key", name]).status();
    };
    let mut into_entries = false;
    // Polled, not slept on: each round looks at the screen, and until the squares are there the reader is
    // asked again to open the first entry (the Unread list may still be loading; Enter again does no harm).
    while Instant::now() < deadline + Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(500));
        if sandbox.db().with_extension("db.lock").exists() {
            // The reader opens on the Unread view: into its entries (keys typed before its first frame wait in
            // the terminal for it), then open the first.
            if !into_entries {
                key("l");
                into_entries = true;
            }
            key("Return");
        }
        let _ = Command::new("import").env("DISPLAY", &display).args(["-window", "root"]).arg(&shot).status();
        found = colours(&shot);
        if found.0 > 2000 && found.1 > 2000 {
            break;
        }
    }
    drop(xterm);
    assert!(
        found.0 > 2000 && found.1 > 2000,
        "the screenshot shows {} red and {} blue pixels; expected the two squares (see {})",
        found.0,
        found.1,
        shot.display()
    );
}
