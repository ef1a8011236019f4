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
