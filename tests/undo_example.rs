//! The undo example: every undo and redo of an editor session leaves the scene equal
//! to a fresh world that ran the session's first edits (the session asserts it).

#[path = "../examples/undo.rs"]
#[allow(dead_code, reason = "the example's `main` is not used here")]
mod undo_example;

#[test]
fn every_undo_and_redo_equals_a_fresh_world_at_that_step() {
    let lines = undo_example::session();
    assert_eq!(lines.first().map(String::as_str), Some("9 edits, 4 entities"));
    assert!(lines.iter().any(|l| l.starts_with("undo \"delete the shelf\": ") && l.ends_with("3 back")), "{lines:#?}");
    assert_eq!(lines.last().map(String::as_str), Some("after a new edit: [] can be redone"));
}
