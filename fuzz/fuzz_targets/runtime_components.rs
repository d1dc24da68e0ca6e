//! Drives the runtime-component path from data: the input is a script of operations
//! (register a component from a size and an alignment, insert a value of any length,
//! remove, despawn, query, save and load a scene), run against a world and a model of
//! what it must hold. Every call either succeeds and does what the model says, or
//! fails with a typed error and leaves the world exactly as it was; nothing panics.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use ripple::{ComponentId, Entity, Storage, World};
use ripple::dynamic::{ComponentDescriptor, DynamicError};
use ripple::scene::{RuntimeCodec, SceneRegistry};

/// Writes values as arrays of bytes, reads them back checking the length.
struct Bytes;

impl RuntimeCodec for Bytes {
    fn write_json(&self, bytes: &[u8]) -> serde_json::Value {
        serde_json::Value::from(bytes.to_vec())
    }

    fn read_json(&self, json: &serde_json::Value, out: &mut [u8]) -> Result<(), String> {
        let items = json.as_array().ok_or("expected an array")?;
        if items.len() != out.len() {
            return Err(format!("expected {} bytes", out.len()));
        }
        for (slot, item) in out.iter_mut().zip(items) {
            *slot = item.as_u64().and_then(|n| u8::try_from(n).ok()).ok_or("expected a byte")?;
        }
        Ok(())
    }
}

/// Reads the script: each step takes what it needs from the front.
struct Script<'a>(&'a [u8]);

impl Script<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }

    fn bytes(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.0.len());
        let (taken, rest) = self.0.split_at(n);
        self.0 = rest;
        taken
    }
}

/// What the world must hold: per live entity, its runtime values by component.
type Model = BTreeMap<Entity, BTreeMap<ComponentId, Vec<u8>>>;

fn check(world: &World, model: &Model, components: &[(ComponentId, usize)]) {
    assert_eq!(world.len(), model.len());
    for (&entity, values) in model {
        for &(id, _) in components {
            assert_eq!(world.get_by_id(entity, id).ok(), values.get(&id).map(Vec::as_slice), "{entity} {id:?}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut script = Script(data);
    let mut world = World::new();
    let mut model = Model::new();
    let mut components: Vec<(ComponentId, usize)> = Vec::new();
    let mut registry = SceneRegistry::new();
    let mut entities: Vec<Entity> = Vec::new();
    while let Some(op) = script.byte() {
        let pick = |n: usize, b: Option<u8>| (n > 0).then(|| usize::from(b.unwrap_or(0)) % n);
        match op % 8 {
            0 => {
                let (size, align) = (usize::from(script.byte().unwrap_or(0)), usize::from(script.byte().unwrap_or(1)));
                let storage = if align & 0x80 != 0 { Storage::SparseSet } else { Storage::Table };
                match ComponentDescriptor::new(&format!("c{}", components.len()), size, align & 0x7f) {
                    Ok(descriptor) => {
                        let descriptor = descriptor.with_storage(storage);
                        let size = descriptor.layout().size();
                        let name = format!("c{}", components.len());
                        registry.runtime_component(&name, descriptor.clone(), Bytes).expect("fresh names");
                        components.push((world.register_component(descriptor), size));
                    }
                    Err(error) => assert!(matches!(error, DynamicError::BadLayout { .. })),
                }
            }
            1 => {
                let e = world.spawn(());
                entities.push(e);
                model.insert(e, BTreeMap::new());
            }
            2 | 3 => {
                let (Some(e), Some(c)) = (pick(entities.len(), script.byte()), pick(components.len(), script.byte())) else {
                    continue;
                };
                let (entity, (id, size)) = (entities[e], components[c]);
                let len = usize::from(script.byte().unwrap_or(0));
                let value = script.bytes(len).to_vec();
                let result = world.insert_by_id(entity, id, &value);
                match model.get_mut(&entity) {
                    Some(values) if value.len() == size => {
                        result.expect("a live entity and a value of the right size");
                        values.insert(id, value);
                    }
                    Some(_) => assert!(matches!(result, Err(DynamicError::WrongSize { .. }))),
                    None => assert_eq!(result, Err(DynamicError::NoSuchEntity(entity))),
                }
            }
            4 => {
                let (Some(e), Some(c)) = (pick(entities.len(), script.byte()), pick(components.len(), script.byte())) else {
                    continue;
                };
                let (entity, (id, _)) = (entities[e], components[c]);
                let result = world.remove_by_id(entity, id);
                match model.get_mut(&entity).map(|values| values.remove(&id)) {
                    Some(Some(_)) => result.expect("present"),
                    Some(None) => assert!(matches!(result, Err(DynamicError::MissingComponent { .. }))),
                    None => assert_eq!(result, Err(DynamicError::NoSuchEntity(entity))),
                }
            }
            5 => {
                let Some(e) = pick(entities.len(), script.byte()) else { continue };
                let entity = entities[e];
                assert_eq!(world.despawn(entity).is_ok(), model.remove(&entity).is_some());
            }
            6 => {
                let Some(c) = pick(components.len(), script.byte()) else { continue };
                let (id, _) = components[c];
                let mut query = world.dynamic_query().read(id).build().expect("a runtime component");
                let mut seen = 0;
                query.for_each(&world, |item| {
                    assert_eq!(Some(item.get(0)), model[&item.entity()].get(&id).map(Vec::as_slice));
                    seen += 1;
                });
                assert_eq!(seen, model.values().filter(|values| values.contains_key(&id)).count());
            }
            _ => {
                // A scene round trip, then a load of the scene with one byte changed:
                // it loads whole or not at all.
                let mut json = Vec::new();
                registry.save(&world).to_json(&mut json).expect("saves");
                let mut copy = World::new();
                let loaded = registry.load_json(&mut copy, &json).expect("its own scene loads");
                assert_eq!(loaded.entities().len(), world.len());
                if let (Some(at), Some(byte)) = (script.byte(), script.byte()) {
                    let at = usize::from(at) * json.len() / 256;
                    json[at] = byte;
                    let before = copy.len();
                    if registry.load_json(&mut copy, &json).is_err() {
                        assert_eq!(copy.len(), before, "a refused load changes nothing");
                    }
                }
            }
        }
        check(&world, &model, &components);
    }
});
