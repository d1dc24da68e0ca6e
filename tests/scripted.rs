//! The scripted example: components and rules from a data file, run beside Rust
//! systems, with change tracking and a scene round trip of the runtime components.

#[path = "../examples/scripted.rs"]
mod scripted;

#[test]
fn the_skirmish_plays_out_as_scripted() {
    let log = scripted::run(scripted::SKIRMISH, 8).unwrap();
    // Poison takes 3 a turn and the medic gives 1 back: the orc (7 hp) drops below 1
    // on turn 3; the troll (20 hp, poison 4) on turn 7; the goblin is never hurt.
    assert!(log.contains(&"turn 3: orc dies".to_owned()), "{log:#?}");
    assert!(log.contains(&"turn 7: troll dies".to_owned()), "{log:#?}");
    assert_eq!(log.iter().filter(|line| line.ends_with("dies")).count(), 2);
    // The change rule visits only the living whose hp changed since its last run:
    // everything on its first run, then the two poisoned, then the troll alone.
    let visits: Vec<&str> = log.iter().filter(|l| l.contains("visited")).map(|l| l.as_str()).collect();
    assert_eq!(visits[0], "turn 1: rule `hp.value below 1` visited 3 of 3 entities");
    assert_eq!(visits[1], "turn 2: rule `hp.value below 1` visited 2 of 3 entities");
    assert_eq!(visits[4], "turn 5: rule `hp.value below 1` visited 1 of 3 entities");
    assert_eq!(visits[7], "turn 8: rule `hp.value below 1` visited 0 of 3 entities");
    // The scene round trip keeps every runtime value.
    assert!(log.iter().any(|l| l.ends_with("loaded back equal: true")), "{log:#?}");
    assert!(log.contains(&"goblin: hp {\"max\":5,\"value\":5}".to_owned()), "{log:#?}");
    assert!(log.contains(&"orc: dead {}, hp {\"max\":12,\"value\":-15}, poison {\"damage\":3}".to_owned()), "{log:#?}");
}

#[test]
fn a_bad_script_is_an_error_not_a_panic() {
    for bad in [
        "not json",
        r#"{"components": [], "rules": [], "entities": []}"#,
        r#"{"components": [{"name": "hp", "fields": [["value", "u8"]]}], "rules": [], "entities": []}"#,
        r#"{"components": [{"name": "hp", "fields": [["value", "i32"]]}], "rules": [{"each_turn": "mana"}], "entities": []}"#,
        r#"{"components": [{"name": "hp", "fields": [["value", "i32"]]}], "rules": [], "entities": [{"name": "x", "hp": {"value": "lots"}}]}"#,
    ] {
        assert!(scripted::run(bad, 1).is_err(), "{bad}");
    }
}
