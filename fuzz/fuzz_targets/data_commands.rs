//! Feeds arbitrary bytes to the data-command dispatcher, as one command and as a
//! batch: it must never panic (but for the one method that panics on purpose), when
//! it refuses the input the world must be exactly as before, an `f32` argument is
//! never out of range, and a method's panic leaves a world that still answers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ripple::{Entity, World};
use ripple::data::DataCommands;

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
    volume: f32,
}

/// What `explode` panics with; the panic hook lets only this one through.
const ON_PURPOSE: &str = "a data method panicked on purpose";

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
    fn set_volume(&mut self, volume: f32) {
        assert!(volume.is_finite(), "an out-of-range f32 reached a method: {volume}");
        self.volume = volume;
    }
    fn explode(&mut self, code: u8) {
        if code == 13 {
            std::panic::panic_any(ON_PURPOSE);
        }
    }
}

/// Lets the on-purpose panic unwind quietly; any other panic still aborts the run
/// through the fuzzer's hook.
fn allow_panics_on_purpose() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let fuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() != Some(&ON_PURPOSE) {
                fuzzer_hook(info);
            }
        }));
    });
}

/// Runs `f`, catching only the on-purpose panic.
fn tolerating_explode<R>(f: impl FnOnce() -> R) -> Option<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

fn snapshot(world: &World) -> (usize, HealthApi, Gui) {
    (world.len(), world.api::<HealthApi>().unwrap().clone(), world.api::<Gui>().unwrap().clone())
}

fuzz_target!(|data: &[u8]| {
    let mut registry = DataCommands::new();
    registry
        .target::<HealthApi>("health")
        .method("apply_damage", HealthApi::apply_damage)
        .method("heal", HealthApi::heal);
    registry
        .target::<Gui>("gui")
        .method("set_level_complete", Gui::set_level_complete)
        .method("add_score", Gui::add_score)
        .method("reset", Gui::reset)
        .method("set_volume", Gui::set_volume)
        .method("explode", Gui::explode);
    allow_panics_on_purpose();
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
    if let Some(single) = tolerating_explode(|| registry.run(&mut world, data)) {
        assert_eq!(checked.is_ok(), single.is_ok(), "check and run disagree");
        if single.is_err() {
            assert_eq!(snapshot(&world), before, "a refused command changed the world");
        }
    }
    let before = snapshot(&world);
    match tolerating_explode(|| registry.run_batch(&mut world, data)) {
        Some(Err(_)) => assert_eq!(snapshot(&world), before, "a refused batch changed the world"),
        Some(Ok(_)) => {}
        // Commands before the panicking one applied (documented); the world answers.
        None => assert!(registry.check(&world, r#"["gui", "reset"]"#).is_ok()),
    }
});
