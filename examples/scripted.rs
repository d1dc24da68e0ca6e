//! Components and rules defined by a data file, run beside Rust systems.
//!
//! `examples/scripts/skirmish.json` defines components (names and fields, no Rust
//! types), rules over them ("each turn, subtract `poison.damage` from `hp.value`";
//! "when `hp` changes below 1, add `dead`") and entities. This example registers the
//! components at run time, runs the rules with queries over component ids beside a
//! Rust medic (which heals the living through the same ids) and a Rust observer that
//! reports deaths, then saves the world as a scene and loads it into a new world.
//!
//! The "when changed" rule visits only the entities whose `hp` changed since it last
//! ran: change tracking works for runtime components as for typed ones.
//!
//! Run with `cargo run --example scripted` (or give another script's path).

use std::collections::HashMap;

use ripple::dynamic::{ComponentDescriptor, DynamicQuery, Moment, OnComponent};
use ripple::observer::Trigger;
use ripple::scene::{RuntimeCodec, SceneRegistry};
use ripple::system::{Query, Res, ResMut};
use ripple::{ComponentId, Storage, World};
use serde_json::{Map, Value};

/// The script the example runs unless given another.
pub const SKIRMISH: &str = include_str!("scripts/skirmish.json");

/// A typed component beside the runtime ones: each entity's name from the script.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Name(pub String);

/// What happened, line by line (a resource the observer writes too).
#[derive(Default)]
pub struct Log(pub Vec<String>);

/// The turn being played.
#[derive(Default)]
pub struct Turn(pub u32);

/// A runtime component's fields: each a 4-byte `i32` or `f32`, packed in order.
#[derive(Clone)]
pub struct Fields(Vec<(String, FieldKind)>);

/// The kinds of field a script may declare.
#[derive(Clone, Copy, PartialEq)]
enum FieldKind {
    I32,
    F32,
}

impl Fields {
    fn offset(&self, field: &str) -> Result<(usize, FieldKind), String> {
        let at = self.0.iter().position(|(name, _)| name == field).ok_or(format!("no field `{field}`"))?;
        Ok((at * 4, self.0[at].1))
    }

    /// Field `field` of a value, as a number.
    fn get(&self, bytes: &[u8], field: &str) -> Result<f64, String> {
        let (at, kind) = self.offset(field)?;
        let raw: [u8; 4] = bytes[at..at + 4].try_into().expect("4 bytes");
        Ok(match kind {
            FieldKind::I32 => f64::from(i32::from_le_bytes(raw)),
            FieldKind::F32 => f64::from(f32::from_le_bytes(raw)),
        })
    }

    /// Sets field `field` of a value.
    fn set(&self, bytes: &mut [u8], field: &str, value: f64) -> Result<(), String> {
        let (at, kind) = self.offset(field)?;
        let raw = match kind {
            FieldKind::I32 => (value as i32).to_le_bytes(),
            FieldKind::F32 => (value as f32).to_le_bytes(),
        };
        bytes[at..at + 4].copy_from_slice(&raw);
        Ok(())
    }
}

/// Scenes write a runtime value as an object of its fields.
impl RuntimeCodec for Fields {
    fn write_json(&self, bytes: &[u8]) -> Value {
        let number = |name: &str, kind| {
            let value = self.get(bytes, name).unwrap_or(0.0);
            if kind == FieldKind::I32 { Value::from(value as i64) } else { Value::from(value) }
        };
        Value::Object(self.0.iter().map(|(name, kind)| (name.clone(), number(name, *kind))).collect())
    }

    fn read_json(&self, json: &Value, out: &mut [u8]) -> Result<(), String> {
        let object = json.as_object().ok_or("expected an object of fields")?;
        for (name, _) in &self.0 {
            let value = object.get(name).and_then(Value::as_f64).ok_or(format!("field `{name}` missing"))?;
            self.set(out, name, value)?;
        }
        Ok(())
    }
}

/// A rule of the script, ready to run.
enum Rule {
    /// Each turn, subtract field `by` of `source` from `field` of `target`.
    EachTurn { source: ComponentId, by: String, target: ComponentId, field: String, query: DynamicQuery },
    /// When `component` changes and its `field` is below `limit`, add `add`.
    WhenChanged {
        component: ComponentId,
        field: String,
        limit: f64,
        add: ComponentId,
        name: String,
        query: DynamicQuery,
    },
}

/// The script loaded into a world: its components by name, their fields, its rules.
pub struct Script {
    /// The components by name.
    pub ids: HashMap<String, ComponentId>,
    fields: HashMap<ComponentId, Fields>,
    rules: Vec<Rule>,
    registry: SceneRegistry,
}

fn text<'a>(value: &'a Value, key: &str) -> Result<&'a str, String> {
    value.get(key).and_then(Value::as_str).ok_or(format!("expected a string `{key}` in {value}"))
}

impl Script {
    /// Registers the script's components in `world`, spawns its entities and builds
    /// its rules.
    ///
    /// # Errors
    /// What is wrong with the script (bad JSON, unknown names, bad values).
    pub fn load(world: &mut World, source: &str) -> Result<Script, String> {
        let script: Value = serde_json::from_str(source).map_err(|e| format!("the script is not JSON: {e}"))?;
        let mut ids = HashMap::new();
        let mut fields = HashMap::new();
        let mut registry = SceneRegistry::new();
        registry.component::<Name>("name").map_err(|e| e.to_string())?;
        for component in script["components"].as_array().ok_or("expected a `components` list")? {
            let name = text(component, "name")?;
            let mut list = Vec::new();
            for field in component["fields"].as_array().ok_or("expected `fields`")? {
                let kind = match field[1].as_str() {
                    Some("i32") => FieldKind::I32,
                    Some("f32") => FieldKind::F32,
                    _ => return Err(format!("component `{name}`: field kinds are i32 or f32, not {}", field[1])),
                };
                list.push((field[0].as_str().ok_or("expected a field name")?.to_owned(), kind));
            }
            let storage = if component["storage"] == "sparse" { Storage::SparseSet } else { Storage::Table };
            let descriptor =
                ComponentDescriptor::new(name, list.len() * 4, 4).map_err(|e| e.to_string())?.with_storage(storage);
            let fields_of = Fields(list);
            registry.runtime_component(name, descriptor.clone(), fields_of.clone()).map_err(|e| e.to_string())?;
            let id = world.register_component(descriptor);
            ids.insert(name.to_owned(), id);
            fields.insert(id, fields_of);
        }
        let id_of = |name: &str| ids.get(name).copied().ok_or(format!("no component `{name}`"));
        let mut rules = Vec::new();
        for rule in script["rules"].as_array().ok_or("expected a `rules` list")? {
            if let Some(source) = rule["each_turn"].as_str() {
                let (target, field) = text(rule, "target")?.split_once('.').ok_or("a target is `component.field`")?;
                let (source, target) = (id_of(source)?, id_of(target)?);
                let query = world.dynamic_query().read(source).write(target).build().map_err(|e| e.to_string())?;
                let by = text(rule, "subtract")?.to_owned();
                rules.push(Rule::EachTurn { source, by, target, field: field.to_owned(), query });
            } else if let Some(watched) = rule["when_changed"].as_str() {
                let (component, add) = (id_of(watched)?, id_of(text(rule, "add")?)?);
                let field = text(rule, "field")?.to_owned();
                let limit = rule["below"].as_f64().ok_or("`below` takes a number")?;
                let name = format!("{watched}.{field} below {limit}");
                let query = world
                    .dynamic_query()
                    .read(component)
                    .changed(component)
                    .without(add)
                    .build()
                    .map_err(|e| e.to_string())?;
                rules.push(Rule::WhenChanged { component, field, limit, add, name, query });
            } else {
                return Err(format!("unknown rule {rule}"));
            }
        }
        for entity in script["entities"].as_array().ok_or("expected an `entities` list")? {
            let spawned = world.spawn((Name(text(entity, "name")?.to_owned()),));
            for (key, value) in entity.as_object().ok_or("an entity is an object")? {
                if key == "name" {
                    continue;
                }
                let id = id_of(key)?;
                let mut bytes = vec![0; fields[&id].0.len() * 4];
                fields[&id].read_json(value, &mut bytes)?;
                world.insert_by_id(spawned, id, &bytes).map_err(|e| e.to_string())?;
            }
        }
        Ok(Script { ids, fields, rules, registry })
    }

    /// Runs every rule once, in order.
    pub fn run_rules(&mut self, world: &mut World) {
        for rule in &mut self.rules {
            match rule {
                Rule::EachTurn { source, by, target, field, query } => {
                    let (source, target) = (&self.fields[source], &self.fields[target]);
                    query.for_each_mut(world, |mut item| {
                        let amount = source.get(item.get(0), by).expect("checked field");
                        let mut value = item.get_mut(1);
                        let now = target.get(&value, field).expect("checked field") - amount;
                        target.set(&mut value, field, now).expect("checked field");
                    });
                }
                Rule::WhenChanged { component, field, limit, add, name, query } => {
                    let fields = &self.fields[component];
                    let (mut visited, mut hits) = (0, Vec::new());
                    query.for_each(world, |item| {
                        visited += 1;
                        if fields.get(item.get(0), field).expect("checked field") < *limit {
                            hits.push(item.entity());
                        }
                    });
                    let turn = world.resource::<Turn>().map_or(0, |t| t.0);
                    let line = format!("turn {turn}: rule `{name}` visited {visited} of {} entities", world.len());
                    world.resource_mut::<Log>().expect("a log").0.push(line);
                    for entity in hits {
                        world.insert_by_id(entity, *add, &[]).expect("a live entity");
                    }
                }
            }
        }
    }

    /// Each entity's name and runtime values, as `name: component {field: value}...`,
    /// sorted.
    pub fn describe(&self, world: &mut World) -> Vec<String> {
        let mut names = world.query::<(ripple::Entity, &Name)>();
        let mut lines: Vec<String> = names
            .iter(world)
            .map(|(entity, name)| {
                let mut parts: Vec<String> = self
                    .ids
                    .iter()
                    .filter_map(|(component, &id)| {
                        let bytes = world.get_by_id(entity, id).ok()?;
                        Some(format!("{component} {}", self.fields[&id].write_json(bytes)))
                    })
                    .collect();
                parts.sort();
                format!("{}: {}", name.0, parts.join(", "))
            })
            .collect();
        lines.sort();
        lines
    }
}

/// Plays `turns` turns of `source` and returns the log: deaths, what the change rule
/// visited, and the world after a scene round trip.
///
/// # Errors
/// What is wrong with the script.
pub fn run(source: &str, turns: u32) -> Result<Vec<String>, String> {
    let mut world = World::new();
    world.insert_resource(Log::default());
    world.insert_resource(Turn::default());
    let mut script = Script::load(&mut world, source)?;
    let hp = *script.ids.get("hp").ok_or("the medic needs an `hp` component")?;
    let hp_fields = script.fields[&hp].clone();
    // Rust beside the script: an observer of a runtime component...
    if let Some(&dead) = script.ids.get("dead") {
        world
            .observe_by_id(
                dead,
                Moment::Add,
                |t: Trigger<'_, OnComponent>,
                 names: Query<'_, '_, &Name>,
                 turn: Res<'_, Turn>,
                 mut log: ResMut<'_, Log>| {
                    let name = names.get(t.entity()).map_or("?".to_owned(), |n| n.0.clone());
                    log.0.push(format!("turn {}: {name} dies", turn.0));
                },
            )
            .map_err(|e| e.to_string())?;
    }
    // ...and a Rust system over runtime components: a medic who heals the living
    // (those without `dead`) by 1, up to their maximum.
    let mut medic = world.dynamic_query().write(hp);
    if let Some(&dead) = script.ids.get("dead") {
        medic = medic.without(dead);
    }
    let mut medic = medic.build().map_err(|e| e.to_string())?;
    for turn in 1..=turns {
        world.resource_mut::<Turn>().expect("a turn").0 = turn;
        script.run_rules(&mut world);
        medic.for_each_mut(&mut world, |mut item| {
            let (value, max) = (hp_fields.get(item.get(0), "value"), hp_fields.get(item.get(0), "max"));
            if let (Ok(value), Ok(max)) = (value, max)
                && value < max
            {
                hp_fields.set(&mut item.get_mut(0), "value", value + 1.0).expect("checked field");
            }
        });
    }
    let mut log = std::mem::take(&mut world.resource_mut::<Log>().expect("a log").0);
    let before = script.describe(&mut world);
    let mut json = Vec::new();
    script.registry.save(&world).to_json(&mut json).map_err(|e| e.to_string())?;
    let mut loaded = World::new();
    let mut again = Script::load(&mut loaded, &empty_entities(source)?)?;
    script.registry.load_json(&mut loaded, &json).map_err(|e| e.to_string())?;
    let after = again.describe(&mut loaded);
    log.push(format!("saved {} bytes of scene; loaded back equal: {}", json.len(), before == after));
    log.extend(after);
    again.rules.clear();
    Ok(log)
}

/// `source` without its entities: the components and rules alone, for the world a
/// scene is loaded into.
fn empty_entities(source: &str) -> Result<String, String> {
    let mut script: Map<String, Value> = serde_json::from_str(source).map_err(|e| e.to_string())?;
    script.insert("entities".into(), Value::Array(Vec::new()));
    Ok(Value::Object(script).to_string())
}

#[allow(dead_code, reason = "the test harness includes this file for `run` only")]
fn main() {
    let source = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}")),
        None => SKIRMISH.to_owned(),
    };
    match run(&source, 8) {
        Ok(log) => log.iter().for_each(|line| println!("{line}")),
        Err(error) => eprintln!("the script failed: {error}"),
    }
}
