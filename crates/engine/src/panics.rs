//! What a panic said, for the messages that report a worker that died: one place for the downcasting.

/// The text a panic carried, when it carried one.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// Why a task ended without its result: cancelled, or what its panic said.
pub fn join_message(e: tokio::task::JoinError) -> String {
    if e.is_cancelled() { "it was cancelled".to_string() } else { panic_message(&*e.into_panic()) }
}
