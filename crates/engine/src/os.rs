//! The operating system's corner: calls into the C library that the standard library does not offer, each in a
//! safe function with the reason it is sound.

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
/// against 34 with two). Two arenas are enough for two busy threads at a time.
pub fn settle_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters; it is safe to call at any time.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
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
