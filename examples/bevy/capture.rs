//! What the examples print, kept for the tests: `say!` prints a line and, while
//! [`captured`] runs an example on this thread, keeps it too.
//!
//! The buffer is thread-local so that tests running side by side keep their own
//! lines; the examples therefore print from the thread that runs them (their
//! schedules run single-threaded, see each example's `// bevy:` notes).

use std::cell::RefCell;

thread_local! {
    /// The lines printed on this thread since [`captured`] began, if it is running.
    static LINES: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Prints `text` and keeps it if this thread is capturing.
pub fn line(text: String) {
    println!("{text}");
    LINES.with(|lines| {
        if let Some(lines) = lines.borrow_mut().as_mut() {
            lines.push(text);
        }
    });
}

/// Runs `run` and returns the lines it printed through `say!` on this thread.
pub fn captured(run: impl FnOnce()) -> Vec<String> {
    // Put back whatever an enclosing capture had, so captures nest.
    let outer = LINES.with(|lines| lines.borrow_mut().replace(Vec::new()));
    run();
    LINES.with(|lines| std::mem::replace(&mut *lines.borrow_mut(), outer)).unwrap_or_default()
}
