//! The replication example at a small size: Crate-topia played on a server thread and
//! mirrored on a client thread through a loopback TCP socket over a link that drops,
//! duplicates and reorders messages; the two worlds are equal at the end.

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/replicate.rs"]
mod example;

#[test]
fn the_client_equals_the_server_after_a_bad_link_heals() {
    let report = example::run(2_000, 300).unwrap_or_else(|difference| panic!("{difference}"));
    assert!(report.contains("equal: the client's"), "{report}");
    // The link did lose messages: the run exercised recovery.
    assert!(!report.contains("link: 0 of"), "{report}");
}
