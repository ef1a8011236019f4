//! `--compare REV`: another commit's build, to run beside this one on the same farm in the same run. The commit
//! is checked out in a temporary git worktree in the system's temporary folder (outside this workspace, so a
//! commit from before it builds too), built there in release mode (its own target directory,
//! `target/compare/target`, shared by every commit compared, so dependencies build once), and its binaries are
//! kept in `target/compare/<commit>/` for the next run; the worktree is removed again.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A build to measure: its name, its `tidings` binary, and its benchmark binary when it has one (the phases).
pub(crate) struct Build {
    pub(crate) label: String,
    pub(crate) tidings: PathBuf,
    pub(crate) bench: Option<PathBuf>,
}

/// This build: the binary cargo built for the benchmark, and the benchmark itself.
pub(crate) fn this_build() -> Build {
    Build {
        label: "this build".into(),
        tidings: PathBuf::from(env!("CARGO_BIN_EXE_tidings")),
        bench: std::env::current_exe().ok(),
    }
}

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn git(args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repository())
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A cargo command for another checkout: none of the variables the cargo running this benchmark set for it
/// (they name this package and its target directory).
fn cargo(dir: &Path, target: &Path) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_") && name != "CARGO_HOME" {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd.current_dir(dir).env("CARGO_TARGET_DIR", target);
    cmd
}

/// The executables a cargo build with `--message-format=json` produced: (target name, kind, path).
fn executables(json: &str) -> Vec<(String, String, PathBuf)> {
    json.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|v| v["reason"] == "compiler-artifact")
        .filter_map(|v| {
            let path = v["executable"].as_str()?;
            let name = v["target"]["name"].as_str()?.to_string();
            let kind = v["target"]["kind"][0].as_str()?.to_string();
            Some((name, kind, PathBuf::from(path)))
        })
        .collect()
}

/// Builds `rev` (any name git knows: a hash, `HEAD~3`, a branch), or takes the binaries an earlier run built.
pub(crate) fn build(rev: &str) -> Result<Build, String> {
    let commit = git(&["rev-parse", "--verify", &format!("{rev}^{{commit}}")])?;
    let short = &commit[..12];
    let root = repository().join("target").join("compare");
    let kept = root.join(short);
    let label = format!("{rev} ({})", &commit[..9]);
    let (tidings, bench) = (kept.join("tidings"), kept.join("bench"));
    if tidings.is_file() {
        return Ok(Build { label, tidings, bench: bench.is_file().then_some(bench) });
    }
    // Outside the repository: a commit from before the workspace (the build before the reader wave) is a package
    // of its own, and cargo refuses to build one inside another's workspace.
    let worktree = std::env::temp_dir().join(format!("tidings-compare-{short}"));
    if worktree.exists() {
        let _ = git(&["worktree", "remove", "--force", &worktree.to_string_lossy()]);
    }
    let _ = git(&["worktree", "prune"]);
    eprintln!("compare: building {label} in {} (once; kept for later runs)", worktree.display());
    git(&["worktree", "add", "--detach", &worktree.to_string_lossy(), &commit])?;
    let target = root.join("target");
    let built = (|| {
        // The benchmark binary when the commit has one (it brings the tidings binary with it), else the binary.
        let out = cargo(&worktree, &target)
            .args(["bench", "--bench", "bench", "--no-run", "--message-format=json-render-diagnostics"])
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        let mut found = executables(&String::from_utf8_lossy(&out.stdout));
        if !out.status.success() || !found.iter().any(|(name, kind, _)| name == "tidings" && kind == "bin") {
            let out = cargo(&worktree, &target)
                .args(["build", "--release", "--bin", "tidings", "--message-format=json-render-diagnostics"])
                .stderr(std::process::Stdio::inherit())
                .output()
                .map_err(|e| format!("cannot run cargo: {e}"))?;
            if !out.status.success() {
                return Err(format!("{label} does not build"));
            }
            found = executables(&String::from_utf8_lossy(&out.stdout));
        }
        std::fs::create_dir_all(&kept).map_err(|e| e.to_string())?;
        for (name, kind, path) in found {
            let keep = match (name.as_str(), kind.as_str()) {
                ("tidings", "bin") => &tidings,
                ("bench", "bench") => &bench,
                _ => continue,
            };
            std::fs::copy(&path, keep).map_err(|e| format!("cannot keep {}: {e}", path.display()))?;
        }
        Ok(())
    })();
    let _ = git(&["worktree", "remove", "--force", &worktree.to_string_lossy()]);
    built?;
    if !tidings.is_file() {
        return Err(format!("building {label} gave no tidings binary"));
    }
    Ok(Build { label, tidings, bench: bench.is_file().then_some(bench) })
}
