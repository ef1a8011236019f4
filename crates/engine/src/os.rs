//! The operating system's corner: calls into the C library that the standard library does not offer, each in a
//! safe function with the reason it is sound. Every `unsafe` block of tidings is here, and every call into `libc`;
//! the rest of the engine and the front ends call these functions.

/// Sends SIGKILL to every process of the process group `group` (a child started with
/// `CommandExt::process_group(0)` leads a group whose id is its pid): the child and whatever it started.
#[cfg(unix)]
pub fn kill_process_group(group: u32) {
    let Ok(group) = libc::pid_t::try_from(group) else { return };
    if group <= 1 {
        // 0 and 1 would name our own group, or every process we may signal.
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours; a group that is gone gives ESRCH.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
pub fn kill_process_group(_group: u32) {}

/// The allocator's policy, set once at start (before any other thread exists): glibc gives each thread that
/// allocates at once an arena of its own, up to eight per core, and memory freed in one is not reused by another:
/// a refresh's network, parsing and writer threads each grew their own, and its peak memory with them (40 MB
/// against 34 with two). Two arenas are enough for two busy threads at a time. A one-shot refresh takes more
/// (see [`arena_per_thread`]).
pub fn settle_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters; it is safe to call at any time.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// For `tidings refresh`, before its threads start: an arena for each thread that allocates, up to eight. Its
/// threads are few (the runtime's threads, which fetch and read, the writer and the checkpointer), and with two
/// arenas they took turns at them: the parsed feeds a thread allocates are freed by whichever thread stores
/// them, the writer's statement journals were allocated and freed feed after feed (its inserts keep none since
/// schema step 26), and each waited on the others' locks (8% of a cold refresh's samples in futex calls under
/// malloc and free). With an arena each, a cold
/// refresh of 1000 feeds × 50 used 12% less processor time (572 → 501 ms, medians of four rounds alternating)
/// with half the context switches, and one of 4000 × 100 on 200 hosts 11% less (5.43 → 4.85 s) and took
/// 2.9–3.1 s instead of 3.6–3.7; their peaks stayed within their ranges (20–23 MB, 49–51 MB), one feed of 19 MB
/// peaked 2.5 MB higher (67 MB). The reader and the daemon keep two: they live long, read on the blocking pool's
/// threads and decode pictures there. Called before any other thread allocates: glibc fixes its limit when the
/// first thread after the main one takes an arena, and ignores a later change.
pub fn arena_per_thread() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters; it is safe to call at any time.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 8);
    }
}

/// The same policy once pictures are decoded: their large buffers go back to the system when freed. Decoding
/// and preparing a picture allocate buffers of megabytes for a moment, on whichever blocking thread runs them;
/// glibc raises its threshold for mapping a buffer apart to the size of the last one freed, so from the first
/// picture on such buffers would be carved from the arenas, which keep them once freed (the memory held grew
/// with every picture). A fixed threshold keeps every buffer of 256 KB or more mapped apart, returned at once.
pub fn release_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: mallopt only sets the allocator's parameters; it is safe to call at any time.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
            }
        });
    }
}

/// Lowers the calling thread's scheduling priority a little (nice 5) on Linux, which applies `setpriority` to one
/// thread when given its id; elsewhere, or when refused, nothing changes.
pub fn nice_this_thread() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on this thread's own id; a failure only leaves the priority as it was.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 5);
    }
}

/// The open-files limit (`RLIMIT_NOFILE`): the soft one in force and the hard one it may be raised to.
#[cfg(unix)]
pub fn open_files_limit() -> Option<(u64, u64)> {
    let limit = nofile()?;
    Some((rlim(limit.rlim_cur), rlim(limit.rlim_max)))
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit; returns the soft limit now in force.
#[cfg(unix)]
pub fn raise_open_files_limit() -> u64 {
    let Some(mut limit) = nofile() else { return 1024 };
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
        // SAFETY: setrlimit reads the struct we own; raising the soft limit up to the hard one is always allowed
        // (some systems refuse an unlimited value: the old limit then stays).
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    rlim(limit.rlim_cur)
}

#[cfg(not(unix))]
pub fn raise_open_files_limit() -> u64 {
    8192
}

/// The open-files limit as the C library gives it.
#[cfg(unix)]
fn nofile() -> Option<libc::rlimit> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we own; it has no other effect.
    (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0).then_some(limit)
}

/// A limit's value as a number of files.
#[cfg(unix)]
#[allow(clippy::useless_conversion)] // rlim_t is u64 on 64-bit systems only
fn rlim(value: libc::rlim_t) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// Waits up to `within` for standard input to have something to read, then reads what it has into `buffer`
/// (without waiting for more). Returns how many bytes were read: 0 when nothing came in time, at the end of the
/// input, or on an error.
#[cfg(unix)]
pub fn read_stdin_within(buffer: &mut [u8], within: std::time::Duration) -> usize {
    let mut poll = libc::pollfd { fd: libc::STDIN_FILENO, events: libc::POLLIN, revents: 0 };
    // SAFETY: one pollfd we own, for standard input; poll only writes its revents.
    let ready = unsafe { libc::poll(&mut poll, 1, within.as_millis().min(i32::MAX as u128) as i32) };
    if ready <= 0 {
        return 0;
    }
    // SAFETY: reading into a buffer we own, at most its length; poll said a read will not block.
    let read = unsafe { libc::read(libc::STDIN_FILENO, buffer.as_mut_ptr().cast(), buffer.len()) };
    usize::try_from(read).unwrap_or(0)
}

/// Stops this process as a shell's Ctrl-Z would (SIGTSTP); `fg` continues it right where it stopped.
#[cfg(unix)]
pub fn suspend_this_process() {
    // SAFETY: raise() only sends a signal to this process; SIGTSTP's default action stops it.
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
}

/// The major and minor numbers of a device number (`st_dev`), as the kernel's tables (`/proc/locks`) give them.
#[cfg(target_os = "linux")]
pub fn device_numbers(dev: u64) -> (u32, u32) {
    (libc::major(dev), libc::minor(dev))
}

/// The bytes free for an unprivileged user on the file system that holds `path` (statvfs's `f_bavail` blocks of
/// `f_frsize` bytes).
#[cfg(unix)]
pub fn free_space(path: &std::path::Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
    // SAFETY: an all-zero statvfs is a valid value of this plain C struct.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path that lives through the call, and a pointer to a statvfs we own.
    let result = unsafe { libc::statvfs(c_path.as_ptr(), &mut stats) };
    if result != 0 {
        return Err(std::io::Error::last_os_error());
    }
    #[allow(clippy::unnecessary_cast)]
    Ok((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

/// Elsewhere the space is not known: as much as asked for.
#[cfg(not(unix))]
pub fn free_space(_path: &std::path::Path) -> std::io::Result<u64> {
    Ok(u64::MAX)
}
