//! The lock that keeps one reader (the TUI) per database, and says which process holds it. It locks a file beside
//! the database and never opens the database itself.

use super::StoreError;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The lock that keeps one reader per database: `tidings.db.lock` beside `tidings.db`, locked (an OS file
/// lock, released when the process ends however it ends) for as long as the reader runs, holding its pid so a
/// second reader can say which process has the database. Headless commands do not take it.
#[derive(Debug)]
pub struct ReaderLock {
    _file: std::fs::File,
}

impl ReaderLock {
    /// Takes the lock, or says which process holds it.
    pub fn acquire(db: &Path) -> Result<ReaderLock, StoreError> {
        let mut name = db.as_os_str().to_owned();
        name.push(".lock");
        let path = PathBuf::from(name);
        let lock_err = |source| StoreError::Lock { path: path.clone(), source };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir { path: db.to_path_buf(), source })?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        // Others may read the holder's pid but never write the file, whatever the umask (under 000: 0666).
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
        let mut file = options.open(&path).map_err(lock_err)?;
        match file.try_lock() {
            Ok(()) => {
                // The file is never removed: a process that opened it before a removal would lock a file
                // nobody else sees. Its content is only the holder's pid.
                file.set_len(0).map_err(lock_err)?;
                file.rewind().map_err(lock_err)?;
                write!(file, "{}", std::process::id()).and_then(|()| file.flush()).map_err(lock_err)?;
                Ok(ReaderLock { _file: file })
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                // A holder that has just taken the lock may not have written its pid yet: give it a moment.
                let mut pid = None;
                for _ in 0..50 {
                    let mut holder = String::new();
                    pid = file
                        .rewind()
                        .and_then(|()| file.read_to_string(&mut holder))
                        .ok()
                        .and_then(|_| holder.trim().parse().ok());
                    if pid.is_some() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(4));
                }
                Err(StoreError::ReaderRunning { path: db.to_path_buf(), pid })
            }
            Err(std::fs::TryLockError::Error(source)) => Err(lock_err(source)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_reader_lock_names_the_holder_and_the_lock_frees_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.db");
        let first = ReaderLock::acquire(&db).unwrap();
        let err = ReaderLock::acquire(&db).unwrap_err();
        let pid = std::process::id();
        assert!(matches!(err, StoreError::ReaderRunning { pid: Some(p), .. } if p == pid), "{err}");
        assert!(err.to_string().contains(&format!("(pid {pid})")), "{err}");
        drop(first);
        ReaderLock::acquire(&db).unwrap();
    }
}
