//! A real Coldsweat for the Fever tests: the kit next to the repository (`../shared/servers/coldsweat`), a second
//! Fever API server independent of FreshRSS. Its virtualenv (Coldsweat from PyPI, ~20 s to make) is made once
//! under the build's own scratch folder (`target/tmp`, never the repository's files) and shared; each test gets
//! a fresh database of its own and a port, served by Coldsweat on 127.0.0.1. Where it cannot start, the test
//! says it skipped — or fails, where every kit is required (see [`super::skip`]).
//!
//! [`Coldsweat::fever`] plays the other device, over the same Fever API.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const EMAIL: &str = "alice@example.com";
pub(crate) const PASSWORD: &str = "alice-pass-1234";

fn kit() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/servers/coldsweat/coldsweat")
}

/// The shared set-up (a virtualenv and a database with the user), made once.
fn shared() -> Result<PathBuf, String> {
    static MADE: std::sync::Mutex<Option<Result<PathBuf, String>>> = std::sync::Mutex::new(None);
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(done) = made.as_ref() {
        return done.clone();
    }
    let result = make_shared();
    *made = Some(result.clone());
    result
}

fn make_shared() -> Result<PathBuf, String> {
    let script = kit();
    if !script.is_file() {
        return Err(format!("no Coldsweat kit at {}", script.display()));
    }
    let run = |args: &[&std::ffi::OsStr]| -> Result<(), String> {
        let out =
            Command::new("bash").arg(&script).args(args).output().map_err(|e| format!("cannot run the kit: {e}"))?;
        if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).trim().to_string()) }
    };
    run(&["check".as_ref()])?;
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("coldsweat");
    // Marked ready once whole: a run stopped midway leaves no half-made kit to be taken as whole.
    if root.join("ready").is_file() {
        return Ok(root);
    }
    let _ = std::fs::remove_dir_all(&root);
    run(&["setup".as_ref(), root.as_os_str()])?;
    std::fs::write(root.join("ready"), "").map_err(|e| e.to_string())?;
    Ok(root)
}

/// A Coldsweat server with a database of its own; stopped when dropped.
pub(crate) struct Coldsweat {
    dir: tempfile::TempDir,
    pub(crate) port: u16,
    child: Child,
}

impl Coldsweat {
    /// A new Coldsweat subscribed to the feeds of `opml` (fetched at once), serving; or why there can be none.
    pub(crate) fn start(opml: &str) -> Result<Coldsweat, String> {
        let shared = shared()?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        std::os::unix::fs::symlink(shared.join("venv"), dir.path().join("venv")).map_err(|e| e.to_string())?;
        std::fs::copy(shared.join("coldsweat.db"), dir.path().join("coldsweat.db")).map_err(|e| e.to_string())?;
        let file = dir.path().join("subs.opml");
        std::fs::write(&file, opml).map_err(|e| e.to_string())?;
        let out = Command::new("bash")
            .arg(kit())
            .arg("import")
            .arg(dir.path())
            .arg(&file)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("import failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let port =
            std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
        let child = Command::new("bash")
            .arg(kit())
            .arg("serve")
            .arg(dir.path())
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let server = Coldsweat { dir, port, child };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if started.elapsed() > Duration::from_secs(30) {
                return Err("Coldsweat did not start within 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }

    /// Coldsweat fetches its feeds now, though it fetched them less than its three minutes ago (the times it
    /// goes by are cleared in its database first).
    pub(crate) fn fetch_feeds(&self) {
        let db = rusqlite::Connection::open(self.dir.path().join("coldsweat.db")).expect("Coldsweat's database");
        db.execute("UPDATE feeds SET last_checked_on = NULL, last_updated_on = NULL", []).expect("its feeds");
        let out = Command::new("bash").arg(kit()).arg("fetch").arg(self.dir.path()).output().expect("run the kit");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }

    /// The requests of the Fever API the server answered so far, in order (its own log: method, path, query).
    pub(crate) fn requests(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default();
        log.lines().filter(|l| l.contains("\"POST /fever/")).map(str::to_string).collect()
    }

    /// The Fever API's address.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/fever/", self.port)
    }

    /// A config with this server as the Fever account `Coldsweat`.
    pub(crate) fn config(&self) -> String {
        format!(
            "refresh_on_startup = false\n[[accounts]]\nname = \"Coldsweat\"\nkind = \"fever\"\nurl = \"{}\"\n\
             user = \"{EMAIL}\"\npassword = \"{PASSWORD}\"\n",
            self.url()
        )
    }

    /// The other device: a call of the Fever API (`what` after `?api`, `form` beside the key).
    pub(crate) fn fever(&self, what: &str, form: &[(&str, &str)]) -> serde_json::Value {
        fever_call(self.port, &format!("/fever/?api{what}"), &tidings::fever::api_key(EMAIL, PASSWORD), form)
    }
}

impl Drop for Coldsweat {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One Fever call over plain HTTP/1.0, as another device makes it: its JSON answer.
pub(crate) fn fever_call(port: u16, path: &str, key: &str, form: &[(&str, &str)]) -> serde_json::Value {
    let mut pairs = vec![("api_key", key)];
    pairs.extend_from_slice(form);
    let (_, body) = super::freshrss::form_request(port, "POST", path, "", &pairs);
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// The ids of a Fever set (`unread_item_ids`, `saved_item_ids`) in an answer.
pub(crate) fn id_set(answer: &serde_json::Value, name: &str) -> std::collections::BTreeSet<String> {
    answer[name].as_str().unwrap_or_default().split(',').filter(|s| !s.is_empty()).map(str::to_string).collect()
}
