//! The reactive UI example: after every frame of a random match, the UI its observers
//! keep equals one rebuilt from the world, over 256 seeds.

#[path = "../examples/reactive_ui.rs"]
mod reactive_ui;

#[test]
fn observers_keep_the_ui_equal_to_a_full_rebuild() {
    for seed in 0..256 {
        let redraws = reactive_ui::run(seed, 40).unwrap_or_else(|error| panic!("seed {seed}: {error}"));
        assert!(!redraws.is_empty(), "seed {seed} drew nothing");
    }
}

#[test]
fn hits_in_one_frame_redraw_once() {
    use reactive_ui::{Health, Name, Ui};
    let mut world = ripple::World::new();
    reactive_ui::install(&mut world);
    let p = world.spawn((Name("ann".into()), Health(10)));
    world.flush();
    for _ in 0..5 {
        world.get_mut::<Health>(p).unwrap().0 -= 1;
    }
    world.flush();
    let redraws = &world.resource::<Ui>().unwrap().redraws;
    assert_eq!(redraws.len(), 2, "{redraws:?}");
    assert!(redraws[1].ends_with("[ann: 5 hp]"), "{redraws:?}");
}
