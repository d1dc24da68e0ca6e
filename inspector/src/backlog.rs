//! A deeper queue of connections waiting to be accepted than the standard library's
//! 128. Another local process that opens connections in a burst (a few thousand at
//! once) fills a queue of 128 faster than the inspector accepts; the kernel then drops
//! new connection attempts, the page's among them, and their clients retry only after
//! 1, 3 and 7 seconds.

use std::net::TcpListener;

/// Connections the kernel queues for accepting (it caps this at its own limit,
/// `net.core.somaxconn` on Linux).
const BACKLOG: std::ffi::c_int = 4096;

/// Deepens `listener`'s accept queue to [`BACKLOG`], where the platform allows; a
/// refusal leaves it as it was.
#[cfg(unix)]
pub(crate) fn deepen(listener: &TcpListener) {
    use std::os::fd::AsRawFd;

    unsafe extern "C" {
        /// POSIX `listen(2)`, from the C library the standard library links.
        fn listen(socket: std::ffi::c_int, backlog: std::ffi::c_int) -> std::ffi::c_int;
    }
    // SAFETY: `listen` reads its two integer arguments and touches no memory of ours;
    // the descriptor is the listener's, open for the whole call. On a socket that
    // already listens it only sets the queue's length (POSIX; Linux, the BSDs, macOS).
    let _ = unsafe { listen(listener.as_raw_fd(), BACKLOG) };
}

/// Elsewhere the standard library's queue stays.
#[cfg(not(unix))]
pub(crate) fn deepen(_listener: &TcpListener) {}
