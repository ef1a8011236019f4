fn main() -> std::process::ExitCode {
    fewer_malloc_arenas();
    tidings::cli::main()
}

/// glibc gives each thread that allocates at once an arena of its own, up to eight per core, and memory freed in
/// one is not reused by another: a refresh's network, parsing and writer threads each grew their own, and its
/// peak memory with them (40 MB against 34 with two). Two arenas are enough for two busy threads at a time.
fn fewer_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a plain setting of the C allocator, made before any other thread exists; a failure leaves the
    // default.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
