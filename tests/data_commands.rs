//! Data commands: every error says what was expected and changes nothing; a batch
//! applies entirely or not at all; system APIs are called from systems and from data.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::data::{BatchError, DataCommandError, DataCommands};
use ripple::prelude::*;

/// Hit points.
#[derive(Debug, PartialEq)]
struct Health(u32);

/// The health plugin's API: damage requests, applied by its system each frame.
#[derive(Debug, Default, PartialEq)]
struct HealthApi {
    requests: Vec<(Entity, u32)>,
}

impl HealthApi {
    fn apply_damage(&mut self, entity: Entity, amount: u32) {
        self.requests.push((entity, amount));
    }
    fn heal_all(&mut self) {}
}

#[derive(Debug, Default, PartialEq)]
struct Gui {
    level_complete: bool,
    title: String,
}

impl Gui {
    fn set_level_complete(&mut self, complete: bool) {
        self.level_complete = complete;
    }
    fn set_title(&mut self, title: String, _size: u8) {
        self.title = title;
    }
}

fn registry() -> DataCommands {
    let mut registry = DataCommands::new();
    registry
        .target::<HealthApi>("health")
        .method("apply_damage", HealthApi::apply_damage)
        .method("heal_all", HealthApi::heal_all);
    registry
        .target::<Gui>("gui")
        .method("set_level_complete", Gui::set_level_complete)
        .method("set_title", Gui::set_title);
    registry
}

fn world() -> (World, Entity) {
    let mut world = World::new();
    let enemy = world.spawn((Health(100),));
    world.publish_api(HealthApi::default());
    world.publish_api(Gui::default());
    (world, enemy)
}

fn unchanged(world: &World) {
    assert_eq!(world.api::<HealthApi>().unwrap(), &HealthApi::default());
    assert_eq!(world.api::<Gui>().unwrap(), &Gui::default());
}

#[test]
fn commands_call_the_typed_methods() {
    let registry = registry();
    let (mut world, enemy) = world();
    registry.run(&mut world, format!(r#"["health", "apply_damage", "{enemy}", 10]"#)).unwrap();
    registry.run(&mut world, format!(r#"["health", "apply_damage", {}, 5]"#, enemy.to_bits())).unwrap();
    registry.run(&mut world, r#"["gui", "set_level_complete", true]"#).unwrap();
    registry.run(&mut world, r#"["gui", "set_title", "Level \"2\"", 12]"#).unwrap();
    registry.run(&mut world, r#"["health", "heal_all"]"#).unwrap();
    assert_eq!(world.api::<HealthApi>().unwrap().requests, [(enemy, 10), (enemy, 5)]);
    let gui = world.api::<Gui>().unwrap();
    assert!(gui.level_complete);
    assert_eq!(gui.title, "Level \"2\"");
}

#[test]
fn every_error_says_what_was_expected_and_changes_nothing() {
    let registry = registry();
    let (mut world, enemy) = world();
    let cases: Vec<(String, &str)> = vec![
        ("[\"physics\", \"push\"]".into(), "unknown target `physics`; known targets: gui, health"),
        (
            "[\"gui\", \"close\"]".into(),
            "target `gui` has no method `close`; its methods: set_level_complete, set_title",
        ),
        (
            format!("[\"health\", \"apply_damage\", \"{enemy}\"]"),
            "`health.apply_damage` takes 2 arguments (Entity, u32), got 1",
        ),
        (
            "[\"gui\", \"set_level_complete\", true, false]".into(),
            "`gui.set_level_complete` takes 1 argument (bool), got 2",
        ),
        (
            format!("[\"health\", \"apply_damage\", \"{enemy}\", -3]"),
            "argument 1 of `health.apply_damage` should be u32: invalid value: integer `-3`, expected u32",
        ),
        (
            "[\"health\", \"apply_damage\", \"9v1\", 3]".into(),
            "argument 0 of `health.apply_damage` should be Entity: entity 9v1 is not alive",
        ),
        ("[\"gui\", \"set_title\", \"t\", 300]".into(), "argument 1 of `gui.set_title` should be u8"),
        ("{\"gui\": 1}".into(), "malformed command: invalid type: map, expected a command is a JSON array"),
        ("[\"gui\"]".into(), "malformed command: the command has no method"),
        ("[\"gui\", \"set_level_complete\", tru]".into(), "malformed command: expected ident"),
        ("".into(), "malformed command: EOF while parsing"),
    ];
    for (json, expected) in cases {
        let error = registry.run(&mut world, &json).expect_err(&json).to_string();
        assert!(error.starts_with(expected), "{json}\n  gave: {error}\n  want: {expected}");
        assert_eq!(registry.check(&world, &json).unwrap_err().to_string(), error, "check agrees with run");
        unchanged(&world);
    }
    let error = registry.run(&mut world, "[\"physics\", \"push\"]").unwrap_err();
    assert_eq!(
        error,
        DataCommandError::UnknownTarget { target: "physics".into(), known: vec!["gui".into(), "health".into()] }
    );
}

#[test]
fn a_target_whose_api_is_not_published_is_reported() {
    let registry = registry();
    let mut world = World::new();
    world.publish_api(Gui::default());
    let error = registry.run(&mut world, "[\"health\", \"heal_all\"]").unwrap_err();
    assert_eq!(
        error.to_string(),
        "target `health` needs the API `data_commands::HealthApi`, which is not published on this world"
    );
}

#[test]
fn a_batch_applies_entirely_or_reports_its_first_bad_command_before_anything_changes() {
    let registry = registry();
    let (mut world, enemy) = world();
    let bad = format!(
        r#"[["gui", "set_level_complete", true], ["health", "apply_damage", "{enemy}", 1], ["health", "apply_damage", "{enemy}", "x"], ["gui", "nope"]]"#
    );
    let error = registry.run_batch(&mut world, &bad).unwrap_err();
    assert_eq!(error.index, Some(2));
    assert!(matches!(error.error, DataCommandError::BadArgument { index: 1, expected: "u32", .. }));
    assert!(error.to_string().starts_with("command 2 of the batch: argument 1 of `health.apply_damage` should be u32"));
    unchanged(&world);
    for malformed in ["{}", "[[\"gui\", \"set_level_complete\", true], 7]", "[[\"gui\", \"set_level_complete\", true]"]
    {
        let error: BatchError = registry.run_batch(&mut world, malformed).unwrap_err();
        assert!(matches!(error.error, DataCommandError::Malformed { .. }), "{malformed}: {error}");
        unchanged(&world);
    }
    let good = format!(
        r#"[["gui", "set_level_complete", true], ["health", "apply_damage", "{enemy}", 1], ["health", "apply_damage", "{enemy}", 2]]"#
    );
    assert_eq!(registry.run_batch(&mut world, &good), Ok(3));
    assert_eq!(world.api::<HealthApi>().unwrap().requests, [(enemy, 1), (enemy, 2)]);
    assert!(world.api::<Gui>().unwrap().level_complete);
}

/// The health system: owns the API, applies its requests to `Health` each frame.
fn health_system(mut api: ApiMut<HealthApi>, mut health: Query<&mut Health>) {
    for (entity, amount) in api.requests.drain(..) {
        if let Ok(mut hp) = health.get_mut(entity) {
            hp.0 = hp.0.saturating_sub(amount);
        }
    }
}

#[test]
fn systems_call_the_api_directly_and_level_data_through_the_registry() {
    let registry = registry();
    let mut world = World::new();
    let enemy = world.spawn((Health(100),));
    let mut schedule = Schedule::new();
    schedule
        .add_system(
            &mut world,
            health_system
                .named("health")
                .on_added(|world| {
                    world.publish_api(HealthApi::default());
                })
                .on_removed(|world| {
                    world.withdraw_api::<HealthApi>().unwrap();
                }),
        )
        .unwrap();
    let turret = schedule
        .add_system(&mut world, (move |mut health: ApiMut<HealthApi>| health.apply_damage(enemy, 7)).before("health"))
        .unwrap();
    schedule.run(&mut world);
    registry.run(&mut world, format!(r#"["health", "apply_damage", "{enemy}", 3]"#)).unwrap();
    schedule.set_enabled(turret, false).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.get::<Health>(enemy), Ok(&Health(90)));
    let id = schedule.system_id("health").unwrap();
    schedule.remove_system(&mut world, id).unwrap();
    assert!(matches!(
        registry.run(&mut world, "[\"health\", \"heal_all\"]"),
        Err(DataCommandError::NotPublished { .. })
    ));
}

/// A sound setting whose volume is an `f32`.
#[derive(Debug, Default, PartialEq)]
struct Audio {
    volume: f32,
}

impl Audio {
    fn set_volume(&mut self, volume: f32) {
        self.volume = volume;
    }
}

#[test]
fn an_f32_argument_out_of_range_is_refused() {
    let mut registry = DataCommands::new();
    registry.target::<Audio>("audio").method("set_volume", Audio::set_volume);
    let mut world = World::new();
    world.publish_api(Audio::default());
    registry.run(&mut world, r#"["audio", "set_volume", 0.5]"#).unwrap();
    registry.run(&mut world, r#"["audio", "set_volume", 3.4e38]"#).unwrap();
    for huge in ["1e39", "-1e39"] {
        let error = registry.run(&mut world, format!(r#"["audio", "set_volume", {huge}]"#)).unwrap_err();
        assert!(
            matches!(&error, DataCommandError::BadArgument { index: 0, expected: "f32", message, .. }
                if message.contains("out of range")),
            "{error}"
        );
    }
    assert_eq!(world.api::<Audio>().unwrap().volume, 3.4e38, "the refused commands changed nothing");
    let batch = r#"[["audio", "set_volume", 0.25], ["audio", "set_volume", 1e39]]"#;
    let error = registry.run_batch(&mut world, batch).unwrap_err();
    assert_eq!(error.index, Some(1));
    assert_eq!(world.api::<Audio>().unwrap().volume, 3.4e38);
}

/// Reads as its number the first time it is deserialized and fails every time after:
/// an argument that does not read the same way twice.
struct ReadOnce(u32);

static READS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl<'de> serde::Deserialize<'de> for ReadOnce {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = u32::deserialize(deserializer)?;
        if READS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
            return Err(serde::de::Error::custom("read a second time"));
        }
        Ok(ReadOnce(value))
    }
}

#[derive(Default)]
struct Tally(Vec<u32>);

impl Tally {
    fn add(&mut self, n: u32) {
        self.0.push(n);
    }
    fn add_once(&mut self, n: ReadOnce) {
        self.0.push(n.0);
    }
}

#[test]
fn a_batch_reads_each_argument_once_and_runs_what_it_checked() {
    let mut registry = DataCommands::new();
    registry.target::<Tally>("tally").method("add", Tally::add).method("add_once", Tally::add_once);
    let mut world = World::new();
    world.publish_api(Tally::default());
    let batch = r#"[["tally", "add", 1], ["tally", "add_once", 2], ["tally", "add", 3]]"#;
    assert_eq!(registry.run_batch(&mut world, batch), Ok(3));
    assert_eq!(READS.load(std::sync::atomic::Ordering::SeqCst), 1, "read once");
    assert_eq!(world.api::<Tally>().unwrap().0, vec![1, 2, 3]);
}

fn tally_registry() -> DataCommands {
    fn boom(_: &mut Tally, code: u32) {
        if code == 13 {
            panic!("a data method failed");
        }
    }
    let mut registry = DataCommands::new();
    registry.target::<Tally>("tally").method("add", Tally::add).method("boom", boom);
    registry
}

#[test]
fn a_refused_or_panicking_batch_leaves_nothing_for_the_next() {
    let registry = tally_registry();
    let mut world = World::new();
    world.publish_api(Tally::default());
    let refused = r#"[["tally", "add", 1], ["tally", "add", 2], ["tally", "add", "three"]]"#;
    assert_eq!(registry.run_batch(&mut world, refused).unwrap_err().index, Some(2));
    let panicking = r#"[["tally", "add", 4], ["tally", "boom", 13], ["tally", "add", 5]]"#;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| registry.run_batch(&mut world, panicking)));
    assert!(result.is_err());
    assert_eq!(world.api::<Tally>().unwrap().0, vec![4], "commands before the panic applied (documented)");
    assert_eq!(registry.run_batch(&mut world, r#"[["tally", "add", 6], ["tally", "add", 7]]"#), Ok(2));
    assert_eq!(world.api::<Tally>().unwrap().0, vec![4, 6, 7], "no values left over from earlier batches");
}

#[test]
fn batches_on_several_threads_share_one_registry() {
    let registry = tally_registry();
    std::thread::scope(|scope| {
        for thread in 0..2u32 {
            let registry = &registry;
            scope.spawn(move || {
                let mut world = World::new();
                world.publish_api(Tally::default());
                let mut expected = Vec::new();
                for i in 0..500u32 {
                    let (a, b) = (thread * 10_000 + i, thread * 10_000 + i + 5_000);
                    let batch = format!(r#"[["tally", "add", {a}], ["tally", "boom", 0], ["tally", "add", {b}]]"#);
                    assert_eq!(registry.run_batch(&mut world, batch), Ok(3));
                    expected.extend([a, b]);
                }
                assert_eq!(world.api::<Tally>().unwrap().0, expected, "thread {thread}");
            });
        }
    });
}
