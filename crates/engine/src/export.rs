//! Entries written out as Markdown: a file each under a folder (the reader's `E`, `tidings export --markdown`),
//! or one text of them all for a command (the reader's `|` with entries marked). The Markdown and the file names
//! are [`crate::markdown`]'s; here the entries are read and the files written, never outside the folder and
//! never through a link planted in it. An entry that cannot be written is said, and the rest carry on.

use crate::markdown;
use crate::model::EntryId;
use crate::store::{StoreError, entries};
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What an export to files did.
#[derive(Debug, Default)]
pub struct Exported {
    /// The files written, relative to the folder, in the order of the entries.
    pub written: Vec<String>,
    /// The entries that could not be written, each with why (the title, or the id, first).
    pub failed: Vec<String>,
    /// Entries asked for that the store no longer has (purged meanwhile).
    pub missing: usize,
}

/// Why an export could not start at all.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Template(String),
    #[error("cannot create the folder {0}: {1}")]
    Folder(String, std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// `~/…` as the home folder's.
pub fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/").or(if path == "~" { Some("") } else { None }) {
        Some(rest) => match directories_home() {
            Some(home) => home.join(rest),
            None => PathBuf::from(path),
        },
        None => PathBuf::from(path),
    }
}

fn directories_home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// Writes each entry of `ids` as a Markdown file under `dir`, at the path `template` makes of it (checked
/// first). Names are unique within the export; a file left by an earlier export of the same name is replaced.
pub fn to_files(conn: &Connection, ids: &[EntryId], dir: &Path, template: &str) -> Result<Exported, ExportError> {
    markdown::check_template(template).map_err(ExportError::Template)?;
    std::fs::create_dir_all(dir).map_err(|e| ExportError::Folder(dir.display().to_string(), e))?;
    let root = dir.canonicalize().map_err(|e| ExportError::Folder(dir.display().to_string(), e))?;
    let mut taken = HashSet::new();
    let mut done = Exported::default();
    for &id in ids {
        let Some(entry) = entries::entry(conn, id)? else {
            done.missing += 1;
            continue;
        };
        let parts = markdown::relative_path(template, &entry);
        let relative = markdown::unique_path(&parts, &mut taken);
        match write_inside(&root, &relative, &markdown::document(&entry)) {
            Ok(()) => done.written.push(relative),
            Err(why) => {
                let title = entry.title.as_deref().map(|t| crate::sanitize::one_line(t, 80));
                let name = title.filter(|t| !t.is_empty()).unwrap_or_else(|| format!("entry {}", id.0));
                done.failed.push(format!("{name} ({relative}): {why}"));
            }
        }
    }
    Ok(done)
}

/// Writes `text` at `relative` (safe names joined by `/`) under `root`, refusing a folder or file that is a
/// link leading elsewhere.
fn write_inside(root: &Path, relative: &str, text: &str) -> Result<(), String> {
    let path = relative.split('/').fold(root.to_path_buf(), |p, part| p.join(part));
    let parent = path.parent().unwrap_or(root);
    std::fs::create_dir_all(parent).map_err(|e| format!("cannot create its folder: {e}"))?;
    let real_parent = parent.canonicalize().map_err(|e| format!("cannot reach its folder: {e}"))?;
    if !real_parent.starts_with(root) {
        return Err("its folder is a link that leads out of the export folder; not written".into());
    }
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink() || m.is_dir()) {
        return Err("a link or folder of that name is in the way; not written".into());
    }
    std::fs::write(&path, text).map_err(|e| e.to_string())
}

/// One text of the entries for a command: their Markdown documents one after the other, or their addresses
/// one a line (entries without one are left out).
pub fn to_text(conn: &Connection, ids: &[EntryId], addresses: bool) -> Result<String, StoreError> {
    let mut out = String::new();
    for &id in ids {
        let Some(entry) = entries::entry(conn, id)? else { continue };
        if addresses {
            if let Some(link) = entry.link.as_deref() {
                out.push_str(&crate::sanitize::strip_controls(link));
                out.push('\n');
            }
        } else {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&markdown::document(&entry));
        }
    }
    Ok(out)
}

/// Where the entries to save for later go: `server` are of an account whose server saves (see
/// `store::changes::SAVING_KINDS`), `command` (address, title) of a local feed or a Fever account, for the
/// `save_command` (entries without an address are left out of it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToSave {
    pub server: Vec<EntryId>,
    pub command: Vec<(String, String)>,
}

/// Sorts the entries `ids` by where their save goes (see [`ToSave`]).
pub fn to_save(conn: &Connection, ids: &[EntryId]) -> Result<ToSave, StoreError> {
    let mut out = ToSave::default();
    let mut kind = conn.prepare_cached(
        "SELECT a.kind FROM entries e JOIN feeds f ON f.id = e.feed_id JOIN accounts a ON a.id = f.account_id
         WHERE e.id = ?1",
    )?;
    for &id in ids {
        let account: Option<String> = kind.query_row([id.0], |r| r.get(0)).optional()?;
        if account.is_some_and(|k| crate::store::changes::SAVING_KINDS.contains(&k.as_str())) {
            out.server.push(id);
        } else if let Some(entry) = entries::entry(conn, id)?
            && let Some(link) = entry.link
        {
            out.command.push((link, entry.title.unwrap_or_default()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
