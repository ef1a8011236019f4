//! Who holds the database: the other processes with a write lock on its files, read from the kernel's table of
//! file locks (Linux's `/proc/locks`), named for people ("sqlite3 (pid 4242)"). Nothing elsewhere: an empty
//! list means "not known", not "nobody".

use std::path::{Path, PathBuf};

/// The other processes holding a write lock on the database at `db` (or its WAL index), as "name (pid N)".
pub fn holders(db: &Path) -> Vec<String> {
    let Ok(table) = std::fs::read_to_string("/proc/locks") else { return Vec::new() };
    let files = lock_files(db);
    let me = std::process::id();
    let mut pids: Vec<u32> = parse_locks(&table)
        .into_iter()
        .filter(|lock| lock.write && lock.pid != me && files.contains(&(lock.major, lock.minor, lock.inode)))
        .map(|lock| lock.pid)
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids.into_iter().map(describe).collect()
}

/// The device and inode of the database's files that SQLite locks.
#[cfg(target_os = "linux")]
fn lock_files(db: &Path) -> Vec<(u32, u32, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut names = vec![db.to_path_buf()];
    for suffix in ["-shm", "-wal"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        names.push(PathBuf::from(name));
    }
    names
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| {
            let (major, minor) = crate::os::device_numbers(m.dev());
            (major, minor, m.ino())
        })
        .collect()
}

#[cfg(not(target_os = "linux"))]
fn lock_files(_: &Path) -> Vec<(u32, u32, u64)> {
    Vec::new()
}

/// "sqlite3 (pid 4242)", or "pid 4242" when the process's name cannot be read.
fn describe(pid: u32) -> String {
    match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        Ok(name) => {
            let name = crate::sanitize::one_line(name.trim(), 64);
            format!("{name} (pid {pid})")
        }
        Err(_) => format!("pid {pid}"),
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Lock {
    pid: u32,
    write: bool,
    major: u32,
    minor: u32,
    inode: u64,
}

/// The locks held (not those waited for: `->` lines) in a `/proc/locks` table:
/// `1: POSIX  ADVISORY  WRITE 4242 fe:00:6046242 120 120`.
fn parse_locks(table: &str) -> Vec<Lock> {
    table
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace().skip(1);
            let kind = words.next()?;
            if kind == "->" {
                return None;
            }
            let _mode = words.next()?;
            let access = words.next()?;
            let pid = words.next()?.parse().ok()?;
            let mut place = words.next()?.split(':');
            let major = u32::from_str_radix(place.next()?, 16).ok()?;
            let minor = u32::from_str_radix(place.next()?, 16).ok()?;
            let inode = place.next()?.parse().ok()?;
            Some(Lock { pid, write: access == "WRITE", major, minor, inode })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_table_gives_the_holders_and_skips_the_waiters() {
        let table = "1: POSIX  ADVISORY  WRITE 4242 fe:00:6046242 120 120\n\
                     1: -> POSIX  ADVISORY  WRITE 777 fe:00:6046242 120 120\n\
                     2: POSIX  ADVISORY  READ 4243 103:0a:99 128 128\n\
                     3: OFDLCK ADVISORY  WRITE -1 fe:00:5 0 EOF\n";
        assert_eq!(
            parse_locks(table),
            vec![
                Lock { pid: 4242, write: true, major: 0xfe, minor: 0, inode: 6_046_242 },
                Lock { pid: 4243, write: false, major: 0x103, minor: 0x0a, inode: 99 },
            ]
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_transaction_held_by_another_connection_is_found_on_the_database_files() {
        // Another connection in this process stands in for another process: the table names pids, so the
        // filter on this process is left out here and the lock looked for directly.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("held.db");
        let mut holder = super::super::open_write(&path).unwrap();
        let files = lock_files(&path);
        let held = |table: &str| {
            parse_locks(table)
                .into_iter()
                .any(|l| l.write && l.pid == std::process::id() && files.contains(&(l.major, l.minor, l.inode)))
        };
        let before = std::fs::read_to_string("/proc/locks").unwrap();
        assert!(!held(&before), "no write lock before the transaction");
        let tx = holder.transaction().unwrap();
        tx.execute("CREATE TABLE t (x)", []).unwrap();
        let during = std::fs::read_to_string("/proc/locks").unwrap();
        assert!(held(&during), "the transaction's write lock is in the table:\n{during}");
        tx.commit().unwrap();
        assert!(holders(&path).is_empty(), "this process itself is never named");
    }
}
