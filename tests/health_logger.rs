//! The health logger demo, exactly: the dirty-only logger prints 10/10, nothing, 8/10,
//! nothing; the all-entities logger prints every update.

#[path = "../examples/health_logger.rs"]
mod health_logger;

#[test]
fn dirty_logger_prints_only_changes() {
    assert_eq!(health_logger::run(true), ["10/10", "8/10"]);
}

#[test]
fn all_entities_logger_prints_every_update() {
    assert_eq!(health_logger::run(false), ["10/10", "10/10", "8/10", "8/10"]);
}
