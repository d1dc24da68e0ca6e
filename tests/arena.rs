//! The arena example: twenty hits a frame on one enemy arrive as one damage event
//! with the sum; the level file's commands run through the health API; a typo in a
//! level file is refused whole.

#[path = "../examples/arena.rs"]
mod arena;

#[test]
fn merged_hits_api_calls_and_level_commands_play_out() {
    let (world, log) = arena::run(6);
    let hits: Vec<&String> = log.iter().filter(|line| line.ends_with("takes 20")).collect();
    assert_eq!(hits.len(), 4, "one merged event per frame until both enemies fall: {log:?}");
    assert!(!log.iter().any(|line| line.ends_with("takes 1")), "no unmerged hit reached a reader");
    assert!(log.iter().any(|line| line.ends_with("takes 45")), "the level file's damage arrived through the API");
    assert!(log[0].starts_with("refused: command 1 of the batch: unknown target `helth`"), "{}", log[0]);
    assert!(world.api::<arena::Gui>().unwrap().level_complete);
    assert!(world.is_empty(), "both enemies died and were despawned");
}
