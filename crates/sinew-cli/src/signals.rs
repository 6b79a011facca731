//! SIGPIPE: the default action for a command whose output is piped (`sinew … | head` ends
//! quietly like other command-line tools instead of panicking on the closed pipe; Rust ignores
//! SIGPIPE by default), ignored while a child process reads our frames (a video encoder that
//! stops early is then an error naming it, not a silent death).

#[cfg(unix)]
fn set_sigpipe(handler: usize) {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    // SAFETY: `signal` is the C library's; SIG_DFL and SIG_IGN dispositions for SIGPIPE have
    // no preconditions (no handler function runs).
    unsafe {
        signal(SIGPIPE, handler);
    }
}

/// Restores the default action for SIGPIPE (at start-up, before any thread exists).
pub fn default_sigpipe() {
    #[cfg(unix)]
    set_sigpipe(0);
}

/// Ignores SIGPIPE: a write to a closed pipe returns an error instead.
pub fn ignore_sigpipe() {
    #[cfg(unix)]
    set_sigpipe(1);
}
