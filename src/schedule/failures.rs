//! The errors systems returned (systems returning `Result`), handed to the schedule's
//! error handler or kept for the caller to read.

use crate::system::SystemError;

/// The most system errors a schedule keeps until they are taken (older ones are
/// counted, not kept).
pub const MAX_SYSTEM_ERRORS: usize = 256;

/// What the schedule does with an error a system returned.
pub type ErrorHandler = Box<dyn FnMut(SystemError) + Send>;

/// The errors not yet taken, and the handler, if the caller set one.
#[derive(Default)]
pub(crate) struct SystemErrors {
    pub(crate) kept: Vec<SystemError>,
    pub(crate) count: u64,
    pub(crate) handler: Option<ErrorHandler>,
    /// A panic the handler raised, passed on once the sync point is complete.
    pub(crate) panic: Option<Box<dyn std::any::Any + Send>>,
}

impl SystemErrors {
    /// Hands `error` to the handler, or keeps it.
    #[cold]
    pub(crate) fn record(&mut self, error: SystemError) {
        self.count += 1;
        if let Some(handler) = &mut self.handler {
            // The sync point applies every system's commands first; the panic goes on
            // after that (the first, if several).
            let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(error)));
            if let Err(panic) = handled {
                self.panic.get_or_insert(panic);
            }
            return;
        }
        if self.kept.len() == MAX_SYSTEM_ERRORS {
            // Forget the older half at once: each record costs O(1) amortized.
            self.kept.drain(..MAX_SYSTEM_ERRORS / 2);
        }
        self.kept.push(error);
    }
}
