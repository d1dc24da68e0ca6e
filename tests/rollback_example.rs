//! The rollback example: two peers with late, reordered inputs roll back and simulate
//! again, and agree on every settled frame's checksum.

#[path = "../examples/rollback.rs"]
#[allow(dead_code, reason = "the example's `main` is not used here")]
mod rollback_example;

use rollback_example::play;

#[test]
fn peers_with_late_inputs_agree_on_every_settled_frame() {
    for seed in 1..=6 {
        let session = play(seed, 240);
        // Every frame settles on both peers (all inputs arrive within 8 frames).
        assert_eq!(session.compared, 240, "seed {seed}");
        for peer in &session.peers {
            assert!(peer.rollbacks > 0, "seed {seed}: late inputs that differ force rollbacks");
            assert!(peer.deepest >= 2 && peer.deepest <= 8, "seed {seed}: deepest rollback {}", peer.deepest);
        }
        assert_eq!(session.peers[0].score(), session.peers[1].score(), "seed {seed}");
    }
}
