//! Files only their owner may read, whatever the umask: the database (it holds the sync accounts' login tokens in
//! clear) with its write-ahead log and shared-memory index, and the picture cache (what the user reads). Created
//! with the owner's bits only, from the start; one left readable by others (by an older tidings, or a umask of
//! 022) is tightened, with a line in the log.

use std::path::{Path, PathBuf};

/// Makes the database at `path` its owner's only before SQLite opens it for writing: the file is created 0600
/// when missing (SQLite would create it 0644 under the usual umask), tightened when open to others, and so are
/// the companions an older tidings left beside it. SQLite creates the write-ahead log, its shared-memory index
/// and the rollback journal with the database file's own permissions, which it sets itself whatever the umask,
/// so from then on they follow the file. The umask is not touched: it is the whole process's, and other threads
/// create files meanwhile (the log, the picture cache, a second database's companions).
///
/// Best effort: a database that cannot be made private (a shared one owned by another user) is opened all the
/// same, and the log says why it was not; a path SQLite cannot open gets SQLite's own error.
pub fn database(path: &Path) {
    let companions = ["-wal", "-shm", "-journal"].map(|suffix| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    });
    let made = create_file(path).and_then(|()| companions.iter().try_for_each(|c| tighten(c)));
    if let Err(e) = made {
        tracing::info!("cannot make the database {} readable by you only: {e}", path.display());
    }
}

/// Options that create a file readable and writable by its owner only (0600), whatever the umask.
pub fn options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Creates the file at `path` readable and writable by its owner only, unless it exists; an existing one is
/// tightened (see [`tighten`]).
pub fn create_file(path: &Path) -> std::io::Result<()> {
    options().write(true).create(true).truncate(false).open(path)?;
    tighten(path)
}

/// Creates the folder at `path` (and those above it that are missing) for its owner only (0700); an existing one
/// is tightened (see [`tighten`]).
pub fn create_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)?;
    tighten(path)
}

/// Takes every permission of the group and of others off the file or folder at `path` (a missing one is left
/// missing), and says so in the log when there were any.
pub fn tighten(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match std::fs::metadata(path) {
            Ok(meta) => meta.permissions().mode() & 0o7777,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & !0o077))?;
            tracing::info!(
                "{} was open to other users (mode {mode:o}); it holds what only you should read: now {:o}",
                path.display(),
                mode & !0o077
            );
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn files_and_folders_are_made_for_their_owner_only_and_open_ones_are_tightened() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("a/b");
        create_dir(&folder).unwrap();
        assert_eq!((mode(&dir.path().join("a")), mode(&folder)), (0o700, 0o700));
        let file = folder.join("f");
        create_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);

        std::fs::write(&file, "kept").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o664)).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        create_file(&file).unwrap();
        create_dir(&folder).unwrap();
        assert_eq!((mode(&file), mode(&folder)), (0o600, 0o700));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept", "an existing file is not emptied");
        tighten(&folder.join("missing")).unwrap();
        assert!(!folder.join("missing").exists());
    }
}
