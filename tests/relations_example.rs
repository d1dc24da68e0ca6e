//! The relations example, exactly: an inventory with nesting, a refused cycle and a
//! cascading despawn; a targeting relation whose sources are detached.

#[path = "../examples/relations.rs"]
mod relations;

#[test]
fn the_relations_example_prints_what_it_promises() {
    assert_eq!(
        relations::run(),
        [
            "backpack holds [\"potion\", \"pouch\", \"sword\"]",
            "backpack into pouch refused (a cycle): true",
            "after moving the coins: backpack holds [\"potion\", \"pouch\", \"sword\", \"coins\"]",
            "hero is targeted by [\"grim\", \"snag\"]",
            "grim dies: hero targets nothing, hero is targeted by [\"snag\"]",
            "backpack despawned: 0 of its 4 items left; snag lives: true, and targets nothing",
            "hero has 0 attacker(s)",
        ]
    );
}
