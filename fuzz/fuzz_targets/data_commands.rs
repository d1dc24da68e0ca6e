//! Feeds arbitrary bytes to the data-command dispatcher, as one command and as a
//! batch: it must never panic, and when it refuses the input the world must be
//! exactly as before.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ripple::{DataCommands, Entity, World};

#[derive(Clone, Debug, Default, PartialEq)]
struct HealthApi {
    requests: Vec<(Entity, u32)>,
}

impl HealthApi {
    fn apply_damage(&mut self, entity: Entity, amount: u32) {
        self.requests.push((entity, amount));
    }
    fn heal(&mut self, entity: Option<Entity>, amounts: Vec<i16>, label: String) {
        let total: i64 = amounts.iter().map(|&a| i64::from(a)).sum();
        if let Some(entity) = entity {
            self.requests.push((entity, total.unsigned_abs() as u32 + label.len() as u32));
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Gui {
    level_complete: bool,
    scores: Vec<(f64, char)>,
}

impl Gui {
    fn set_level_complete(&mut self, complete: bool) {
        self.level_complete = complete;
    }
    fn add_score(&mut self, score: f64, grade: char, _extra: (u8, bool)) {
        self.scores.push((score, grade));
    }
    fn reset(&mut self) {
        *self = Gui::default();
    }
}

fn snapshot(world: &World) -> (usize, HealthApi, Gui) {
    (world.len(), world.api::<HealthApi>().unwrap().clone(), world.api::<Gui>().unwrap().clone())
}

fuzz_target!(|data: &[u8]| {
    let mut registry = DataCommands::new();
    registry.target::<HealthApi>("health").method("apply_damage", HealthApi::apply_damage).method("heal", HealthApi::heal);
    registry
        .target::<Gui>("gui")
        .method("set_level_complete", Gui::set_level_complete)
        .method("add_score", Gui::add_score)
        .method("reset", Gui::reset);
    let mut world = World::new();
    for i in 0..4u32 {
        let e = world.spawn((i,));
        if i % 2 == 0 {
            world.despawn(e).unwrap();
        }
    }
    world.publish_api(HealthApi::default());
    world.publish_api(Gui::default());

    let before = snapshot(&world);
    let checked = registry.check(&world, data);
    let single = registry.run(&mut world, data);
    assert_eq!(checked.is_ok(), single.is_ok(), "check and run disagree");
    if single.is_err() {
        assert_eq!(snapshot(&world), before, "a refused command changed the world");
    }
    let before = snapshot(&world);
    if registry.run_batch(&mut world, data).is_err() {
        assert_eq!(snapshot(&world), before, "a refused batch changed the world");
    }
});
