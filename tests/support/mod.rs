//! Shared by the integration tests: the loopback server, feed fixtures, helpers to run the binary, and the farm
//! (a big database built straight through the store).
#![allow(dead_code)]

pub(crate) mod accounts;
pub(crate) mod coldsweat;
pub(crate) mod farm;
pub(crate) mod files;
pub(crate) mod freshrss;
pub(crate) mod greader;
pub(crate) mod h2;
pub(crate) mod hostile;
pub(crate) mod miniflux;
pub(crate) mod miniflux_api;
pub(crate) mod server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// An RSS 2.0 document with one item per `(guid, title, body)`.
/// A test that cannot run here (a server kit or a tool is missing) says so on the terminal, past the harness's
/// capture, and passes — except where `TIDINGS_REQUIRE_KITS` is set (`.ci/run` sets it): there every kit must
/// be present, and a missing one fails the test with the reason, never a silent pass.
pub(crate) fn skip(test: &str, why: &str) {
    if std::env::var_os("TIDINGS_REQUIRE_KITS").is_some() {
        panic!("{test} cannot run here and TIDINGS_REQUIRE_KITS is set: {why}");
    }
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "\n{test}: SKIPPED: {why}");
}

pub(crate) fn rss(title: &str, items: &[(&str, &str, &str)]) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel><title>{title}</title>\
         <link>http://example.com/</link><description>test feed</description>\n"
    );
    for (i, (guid, item_title, body)) in items.iter().enumerate() {
        xml.push_str(&format!(
            "<item><guid>{guid}</guid><title>{item_title}</title><link>http://example.com/{guid}</link>\
             <pubDate>Tue, {:02} Jun 2025 10:00:00 GMT</pubDate><description><![CDATA[{body}]]></description></item>\n",
            10 + i
        ));
    }
    xml.push_str("</channel></rss>\n");
    xml
}

/// An Atom 1.0 document with one entry per `(id, title, body)`.
pub(crate) fn atom(title: &str, entries: &[(&str, &str, &str)]) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>{title}</title>\
         <id>urn:test:{title}</id><updated>2025-06-01T00:00:00Z</updated>\n"
    );
    for (id, entry_title, body) in entries {
        xml.push_str(&format!(
            "<entry><id>urn:test:{id}</id><title>{entry_title}</title><updated>2025-06-02T00:00:00Z</updated>\
             <author><name>Ann Author</name></author><content type=\"html\"><![CDATA[{body}]]></content></entry>\n"
        ));
    }
    xml.push_str("</feed>\n");
    xml
}

/// An OPML document: `(folder, title, url)` per feed.
pub(crate) fn opml(feeds: &[(Option<&str>, &str, &str)]) -> String {
    let mut xml =
        String::from("<?xml version=\"1.0\"?>\n<opml version=\"2.0\"><head><title>test</title></head><body>\n");
    for (folder, title, url) in feeds {
        let outline = format!("<outline type=\"rss\" text=\"{title}\" xmlUrl=\"{url}\"/>");
        match folder {
            Some(f) => xml.push_str(&format!("<outline text=\"{f}\">{outline}</outline>\n")),
            None => xml.push_str(&format!("{outline}\n")),
        }
    }
    xml.push_str("</body></opml>\n");
    xml
}

/// A scratch home for one test: its own HOME/XDG folders, database and files.
pub(crate) struct Sandbox {
    pub(crate) dir: tempfile::TempDir,
}

impl Sandbox {
    pub(crate) fn new() -> Sandbox {
        Sandbox { dir: tempfile::tempdir().expect("temp dir") }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn db(&self) -> PathBuf {
        self.path("tidings.db")
    }

    pub(crate) fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, contents).expect("write a fixture");
        path
    }

    /// The real binary, with this sandbox as its home and database.
    pub(crate) fn tidings(&self) -> Command {
        self.sandboxed(Command::new(env!("CARGO_BIN_EXE_tidings")))
    }

    /// The real binary as [`Sandbox::tidings`] runs it, started by `sh` with the file-creation mask `umask`.
    pub(crate) fn tidings_with_umask(&self, umask: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!("umask {umask} && exec \"$0\" \"$@\"")).arg(env!("CARGO_BIN_EXE_tidings"));
        self.sandboxed(cmd)
    }

    /// `cmd` with this sandbox as its home, then `--db` and its database.
    fn sandboxed(&self, mut cmd: Command) -> Command {
        let home = self.path("home");
        cmd.env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env_remove("TIDINGS_LOG")
            .arg("--db")
            .arg(self.db());
        cmd
    }

    pub(crate) fn run(&self, args: &[&str]) -> Output {
        self.tidings().args(args).output().expect("run tidings")
    }
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every cell of a TestBackend screen, row by row.
pub(crate) fn screen(backend: &ratatui::backend::TestBackend) -> String {
    let buffer = backend.buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

pub(crate) fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A finished command: its output, wall time and peak resident memory.
pub(crate) struct Measured {
    pub(crate) output: Output,
    pub(crate) wall: std::time::Duration,
    pub(crate) peak_rss: u64,
}

/// Runs a command to the end, measuring its wall time and its peak resident memory (through wait4, which also
/// reaps it).
#[cfg(target_os = "linux")]
#[allow(clippy::zombie_processes)]
pub(crate) fn measure(cmd: &mut Command) -> Measured {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let start = std::time::Instant::now();
    let mut child =
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().expect("spawn");
    let mut stderr_pipe = child.stderr.take().expect("stderr");
    let err_reader = std::thread::spawn(move || {
        let mut err = Vec::new();
        stderr_pipe.read_to_end(&mut err).ok();
        err
    });
    let mut out = Vec::new();
    child.stdout.take().expect("stdout").read_to_end(&mut out).ok();
    let err = err_reader.join().unwrap_or_default();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting on our own child, with valid pointers to a status word and a rusage struct.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert!(pid > 0, "wait4 failed");
    Measured {
        output: Output { status: std::process::ExitStatus::from_raw(status), stdout: out, stderr: err },
        wall: start.elapsed(),
        peak_rss: usage.ru_maxrss as u64 * 1024,
    }
}

/// Polls `check` every 20 ms until it gives a value, failing the test after `deadline`: the test waits for a
/// state it can see, and the deadline is a watchdog, not a synchronisation.
pub(crate) fn poll<T>(what: &str, deadline: std::time::Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let start = std::time::Instant::now();
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(start.elapsed() < deadline, "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
