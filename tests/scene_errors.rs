//! Every way a scene load is refused: the message it gives, a world left exactly as
//! it was, and no value leaked or dropped twice on the way out.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

use ripple::data::DataCommands;
use ripple::prelude::*;
use ripple::scene::SceneRegistry;
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Target(Entity);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Flag(Option<bool>);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Score(u32);

/// Values whose every creation and drop is recorded by serial number.
#[derive(Serialize, Debug, PartialEq)]
struct Tracked(u64);

static LIVE: Mutex<Option<HashSet<u64>>> = Mutex::new(None);
static NEXT: Mutex<u64> = Mutex::new(1 << 32);

/// Held by each test: the live-value count is global.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn serial() -> u64 {
    let mut next = NEXT.lock().unwrap();
    *next += 1;
    *next
}

impl Tracked {
    fn fresh() -> Tracked {
        Tracked::new(serial())
    }

    fn new(value: u64) -> Tracked {
        let mut live = LIVE.lock().unwrap();
        assert!(live.get_or_insert_with(HashSet::new).insert(value), "serial {value} made twice");
        Tracked(value)
    }
}

impl<'de> Deserialize<'de> for Tracked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tracked, D::Error> {
        let saved = u64::deserialize(deserializer)?;
        assert_ne!(saved, 666, "a Deserialize impl that panics");
        // A fresh serial per value made, whatever the input says.
        Ok(Tracked::fresh())
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let removed = LIVE.lock().unwrap().as_mut().is_some_and(|live| live.remove(&self.0));
        assert!(removed, "serial {} dropped twice", self.0);
    }
}

fn live_tracked() -> usize {
    LIVE.lock().unwrap().as_ref().map_or(0, HashSet::len)
}

#[derive(Default)]
struct Gui {
    complete: bool,
    focus: Option<Entity>,
}

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Position>("position")
        .unwrap()
        .component::<Target>("target")
        .unwrap()
        .component::<Flag>("flag")
        .unwrap()
        .component::<Tracked>("tracked")
        .unwrap()
        .resource::<Score>("score")
        .unwrap();
    registry
}

fn commands() -> DataCommands {
    let mut commands = DataCommands::new();
    commands
        .target::<Gui>("gui")
        .method("set_level_complete", |gui: &mut Gui, complete: bool| gui.complete = complete)
        .method("focus", |gui: &mut Gui, entity: Entity| gui.focus = Some(entity));
    commands
}

/// A world with entities, gaps, tracked and observed state, a removal stream and a
/// published API: what a failed load must leave untouched.
struct Fixture {
    world: World,
    added: QueryState<Entity, Added<Position>>,
    changed: QueryState<Entity, Changed<Position>>,
    dirty: QueryState<Entity, Dirty<(Position, Target)>>,
    removed: ripple::RemovedReader<Position>,
}

impl Fixture {
    fn new() -> Fixture {
        let mut world = World::new();
        world.track::<Position>();
        world.publish_api(Gui::default());
        let a = world.spawn((Position { x: 1.0, y: 1.0 }, Tracked::fresh()));
        let b = world.spawn((Position { x: 2.0, y: 2.0 }, Target(a)));
        world.despawn(a).unwrap();
        world.spawn((Flag(Some(true)), Target(b)));
        world.insert_resource(Score(3));
        let mut added = world.query_filtered::<Entity, Added<Position>>();
        let mut changed = world.query_filtered::<Entity, Changed<Position>>();
        let mut dirty = world.query_filtered::<Entity, Dirty<(Position, Target)>>();
        let mut removed = world.removal_reader::<Position>();
        added.iter(&world).count();
        changed.iter(&world).count();
        dirty.iter(&world).count();
        removed.read(&world).count();
        Fixture { world, added, changed, dirty, removed }
    }

    /// Everything observable: the saved scene (every entity, every value, the
    /// resource), the entity count, tables, what each observer would see next. (The
    /// observers' runs advance the change tick, which callers compare apart.)
    fn dump(&mut self) -> String {
        let mut scene = Vec::new();
        registry().save(&self.world).to_json(&mut scene).unwrap();
        format!(
            "{}\nlen {} archetypes {} added {} changed {} dirty {} removed {} gui {}",
            String::from_utf8(scene).unwrap(),
            self.world.len(),
            self.world.archetype_count(),
            self.added.iter(&self.world).count(),
            self.changed.iter(&self.world).count(),
            self.dirty.iter(&self.world).count(),
            self.removed.read(&self.world).count(),
            self.world.api::<Gui>().unwrap().complete,
        )
    }
}

enum Format {
    Json,
    Binary,
    Level,
}

/// Loads `input` into the fixture, expecting a refusal; checks the world, the
/// tracked values and a following good load; returns the message.
fn refused(format: Format, input: &[u8]) -> String {
    let registry = registry();
    let mut fixture = Fixture::new();
    let before = fixture.dump();
    let tick = fixture.world.change_tick();
    let live = live_tracked();
    let error = match format {
        Format::Json => registry.load_json(&mut fixture.world, input),
        Format::Binary => registry.load_binary(&mut fixture.world, input),
        Format::Level => registry.load_level(&mut fixture.world, &commands(), input),
    }
    .expect_err("a bad input is refused");
    assert_eq!(fixture.world.change_tick(), tick, "{error}");
    assert_eq!(fixture.dump(), before, "a refused load changes nothing: {error}");
    assert_eq!(live_tracked(), live, "every value read was dropped once: {error}");
    // The load left no state behind.
    registry
        .load_json(&mut fixture.world, r#"{"entities": [{"id": "0v1", "components": {"target": "0v1"}}]}"#)
        .unwrap();
    error.to_string()
}

fn json(text: &str) -> String {
    refused(Format::Json, text.as_bytes())
}

#[test]
fn json_structure_errors_say_what_and_where() {
    let _serial = one_at_a_time();
    assert_eq!(json("[1, 2]"), "not a ripple scene: a JSON scene is an object with an \"entities\" array");
    assert_eq!(json(r#"{"format": "other"}"#), "not a ripple scene: the format is \"other\", not \"ripple-scene\"");
    assert_eq!(
        json(r#"{"version": 9, "entities": []}"#),
        "scene format version 9 is not supported (this build reads version 1)"
    );
    assert_eq!(
        json("{\"entities\": [\n  {\"id\": \"0v1\",}\n]}"),
        "malformed scene at line 2, column 16: expected a key in entity 0"
    );
    assert_eq!(
        json(r#"{"entities": [], "colour": 1}"#),
        "malformed scene at line 1, column 18: unexpected key \"colour\" (a scene has \"format\", \"version\", \"resources\" and \"entities\")"
    );
    assert_eq!(
        json(r#"{"entities": [], "commands": []}"#),
        "malformed scene at line 1, column 18: a scene has no \"commands\" (load it as a level)"
    );
    assert_eq!(
        json(r#"{"entities": []} x"#),
        "malformed scene at line 1, column 18: trailing characters after the scene"
    );
    assert_eq!(
        json(r#"{"entities": [{"id": "zero"}]}"#),
        "malformed scene at line 1, column 27: the id of entity 0: invalid value: string \"zero\", expected an entity: its 64 bits as a number, or \"<index>v<generation>\""
    );
    assert_eq!(
        json(r#"{"entities": [{"id": "0v1", "components": {"position": {"x": 1"#),
        "the scene ends early, while reading `position` of entity 0"
    );
    assert_eq!(json(r#"{"entities": [{"id": "0v1""#), "the scene ends early, while reading the scene's structure");
}

#[test]
fn json_content_errors_name_the_entity_and_component() {
    let _serial = one_at_a_time();
    assert_eq!(
        json(r#"{"entities": [{"id": "0v1", "components": {"postion": {}}}]}"#),
        "entity 0 has an unknown component `postion` (did you mean `position`?)"
    );
    assert_eq!(
        json(r#"{"entities": [{"id": "0v1", "components": {"mana": {}}}]}"#),
        "entity 0 has an unknown component `mana`"
    );
    assert_eq!(json(r#"{"resources": {"scor": 1}}"#), "unknown resource `scor` (did you mean `score`?)");
    assert_eq!(
        json("{\"entities\": [\n  {\"id\": \"0v1\", \"components\": {\"position\": {\"x\": \"one\", \"y\": 2}}}\n]}"),
        "cannot read `position` of entity 0 at line 2, column 54: invalid type: string \"one\", expected f32"
    );
    assert_eq!(
        json(r#"{"resources": {"score": -1}}"#),
        "cannot read resource `score` at line 1, column 26: invalid value: integer `-1`, expected u32"
    );
    assert_eq!(json(r#"{"entities": [{"components": {}}]}"#), "entity 0 has no \"id\"");
    assert_eq!(json(r#"{"entities": [{"id": "0v1"}, {"id": 4294967296}]}"#), "entity 1 has the id 0v1 of entity 0");
    assert_eq!(
        json(r#"{"entities": [{"id": "0v1", "components": {"flag": null, "flag": null}}]}"#),
        "entity 0 names `flag` twice"
    );
    assert_eq!(
        json(r#"{"entities": [{"id": "0v1", "components": {"target": "9v1"}}]}"#),
        "`target` of entity 0 refers to entity 9v1, which is neither in the scene nor alive in the world"
    );
    // A reference to an entity that was alive once but is not now dangles too.
    assert_eq!(
        json(r#"{"entities": [{"id": "5v1", "components": {"target": "0v1"}}]}"#),
        "`target` of entity 0 refers to entity 0v1, which is neither in the scene nor alive in the world"
    );
}

/// Failed before the fix: a record with two ids tripped a debug assertion (in release
/// it loaded, leaving an entity allocated that no query finds), and a resource named
/// twice loaded with the last value.
#[test]
fn a_key_or_resource_written_twice_is_refused() {
    let _serial = one_at_a_time();
    assert_eq!(
        json(r#"{"entities": [{"id": "1v1", "id": "2v1", "components": {"position": {"x": 1, "y": 2}}}]}"#),
        "entity 0 has the key \"id\" twice (at line 1, column 29)"
    );
    assert_eq!(
        json(r#"{"entities": [{"id": "1v1", "components": {"flag": null}, "components": {"score": 1}}]}"#),
        "entity 0 has the key \"components\" twice (at line 1, column 59)"
    );
    assert_eq!(
        json(r#"{"entities": [{"id": "1v1"}], "entities": [{"id": "2v1"}]}"#),
        "the scene has the key \"entities\" twice (at line 1, column 31)"
    );
    assert_eq!(
        json(r#"{"version": 1, "format": "ripple-scene", "version": 1, "entities": []}"#),
        "the scene has the key \"version\" twice (at line 1, column 42)"
    );
    assert_eq!(json(r#"{"resources": {"score": 1, "score": 2}}"#), "the scene holds resource `score` twice");
    assert_eq!(
        json(r#"{"resources": {"score": 1}, "entities": [], "resources": {}}"#),
        "the scene has the key \"resources\" twice (at line 1, column 45)"
    );
    // The binary format names resources by name too.
    let mut binary = b"RPLSCENE\x01\x00".to_vec();
    binary.extend([0, 2]); // no component names; two resources
    for value in [1, 2] {
        binary.push(5);
        binary.extend(b"score");
        binary.push(value);
    }
    binary.push(0); // no entities
    assert_eq!(refused(Format::Binary, &binary), "the scene holds resource `score` twice");
    // The same file with one resource loads.
    let once = b"RPLSCENE\x01\x00\x00\x01\x05score\x07\x00".to_vec();
    let mut world = World::new();
    registry().load_binary(&mut world, &once).unwrap();
    assert_eq!(world.resource::<Score>().unwrap().0, 7);
}

#[test]
fn binary_errors_say_what_and_where() {
    let _serial = one_at_a_time();
    let registry = registry();
    let mut world = World::new();
    let a = world.spawn((Position { x: 1.0, y: 2.0 }, Flag(Some(true)), Tracked::fresh()));
    world.spawn((Target(a),));
    let mut good = Vec::new();
    registry.save(&world).to_binary(&mut good).unwrap();
    drop(world);

    assert_eq!(
        refused(Format::Binary, b"{\"entities\": []}"),
        "not a ripple scene: the input does not start with the magic bytes \"RPLSCENE\""
    );
    let mut version = good.clone();
    version[8] = 2;
    assert_eq!(
        refused(Format::Binary, &version),
        "scene format version 2 is not supported (this build reads version 1)"
    );
    // Every prefix is refused (as truncated, or as bad data where a cut makes sense
    // of the rest), never half-loaded.
    for len in 0..good.len() {
        let message = refused(Format::Binary, &good[..len]);
        assert!(message.contains("ends early") || message.contains("does not start"), "{len}: {message}");
    }
    let mut trailing = good.clone();
    trailing.push(0);
    assert_eq!(
        refused(Format::Binary, &trailing),
        format!("malformed scene at byte {}: 1 bytes after the last entity", good.len())
    );
    // The flag's `Option` tag is the byte after the position's eight.
    let tag = good.windows(2).position(|w| w == [1, 1]).expect("Some(true)");
    let mut bad = good.clone();
    bad[tag] = 7;
    let message = refused(Format::Binary, &bad);
    assert!(message.starts_with(&format!("cannot read `flag` of entity 0 at byte {tag}: ")), "{message}");
}

#[test]
fn level_commands_are_checked_before_anything_changes() {
    let _serial = one_at_a_time();
    let level = |commands: &str| {
        format!(r#"{{"entities": [{{"id": "3v1", "components": {{"flag": null}}}}], "commands": {commands}}}"#)
    };
    assert_eq!(
        refused(
            Format::Level,
            level(r#"[["gui", "set_level_complete", true], ["gui", "set_level_complete", "yes"]]"#).as_bytes()
        ),
        "level command refused: command 1 of the batch: argument 0 of `gui.set_level_complete` should be bool: invalid type: string \"yes\", expected a boolean; nothing was applied"
    );
    assert_eq!(
        refused(Format::Level, level(r#"[["gui", "focus", "4v1"]]"#).as_bytes()),
        "level command refused: command 0 of the batch: argument 0 of `gui.focus` should be Entity: entity 4v1 is not alive; nothing was applied"
    );
    // A good level: the command names the level's entity by its id in the file.
    let mut fixture = Fixture::new();
    let loaded = registry()
        .load_level(
            &mut fixture.world,
            &commands(),
            level(r#"[["gui", "focus", "3v1"], ["gui", "set_level_complete", true]]"#),
        )
        .unwrap();
    let gui = fixture.world.api::<Gui>().unwrap();
    assert!(gui.complete);
    assert_eq!(gui.focus, Some(loaded.entities()[0]));
}

#[test]
fn a_panicking_deserialize_leaves_the_world_as_it_was() {
    let _serial = one_at_a_time();
    let registry = registry();
    let mut fixture = Fixture::new();
    let before = fixture.dump();
    let live = live_tracked();
    let input =
        r#"{"entities": [{"id": "0v1", "components": {"tracked": 1}}, {"id": "1v1", "components": {"tracked": 666}}]}"#;
    let result = catch_unwind(AssertUnwindSafe(|| registry.load_json(&mut fixture.world, input)));
    assert!(result.is_err(), "the panic propagates");
    assert_eq!(fixture.dump(), before);
    assert_eq!(live_tracked(), live, "the value read before the panic was dropped");
    // Nothing is left installed: handles read outside a load are not remapped.
    let loaded = registry
        .load_json(&mut fixture.world, r#"{"entities": [{"id": "0v1", "components": {"tracked": 1}}]}"#)
        .unwrap();
    assert_eq!(loaded.entities().len(), 1);
    let outside: Entity = serde_json::from_str("\"0v1\"").unwrap();
    assert_eq!(outside, Entity::from_bits(1 << 32).unwrap());
}
