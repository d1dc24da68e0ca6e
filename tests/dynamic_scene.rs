//! Runtime components in scenes: saved and loaded through a user's codec, in JSON and
//! binary, in table and sparse storage; refused values leave the world as it was.

use ripple::dynamic::ComponentDescriptor;
use ripple::scene::{LoadError, RuntimeCodec, SceneRegistry};
use ripple::{Storage, World};
use serde_json::Value;

/// A value of two little-endian i32s, written as `[a, b]`; `b` must not be negative.
struct PairCodec;

impl RuntimeCodec for PairCodec {
    fn write_json(&self, bytes: &[u8]) -> Value {
        let a = i32::from_le_bytes(bytes[..4].try_into().unwrap());
        let b = i32::from_le_bytes(bytes[4..].try_into().unwrap());
        Value::from(vec![a, b])
    }

    fn read_json(&self, json: &Value, out: &mut [u8]) -> Result<(), String> {
        let pair = json.as_array().filter(|pair| pair.len() == 2).ok_or("expected [a, b]")?;
        let number = |v: &Value| v.as_i64().and_then(|n| i32::try_from(n).ok()).ok_or("expected an i32");
        let (a, b) = (number(&pair[0])?, number(&pair[1])?);
        out[..4].copy_from_slice(&a.to_le_bytes());
        out[4..].copy_from_slice(&b.to_le_bytes());
        self.check(out)
    }

    fn check(&self, bytes: &[u8]) -> Result<(), String> {
        if i32::from_le_bytes(bytes[4..].try_into().unwrap()) < 0 { Err("b is negative".into()) } else { Ok(()) }
    }
}

fn pair(a: i32, b: i32) -> Vec<u8> {
    [a.to_le_bytes(), b.to_le_bytes()].concat()
}

fn setup(storage: Storage) -> (SceneRegistry, ComponentDescriptor) {
    let descriptor = ComponentDescriptor::new("pair", 8, 4).unwrap().with_storage(storage);
    let mut registry = SceneRegistry::new();
    registry.component::<String>("label").unwrap();
    registry.runtime_component("pair", descriptor.clone(), PairCodec).unwrap();
    (registry, descriptor)
}

#[test]
fn runtime_values_round_trip_in_json_and_binary() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let (registry, descriptor) = setup(storage);
        let mut world = World::new();
        let id = world.register_component(descriptor);
        for i in 0..3 {
            let e = world.spawn((format!("e{i}"),));
            world.insert_by_id(e, id, &pair(i, i * 10)).unwrap();
        }
        world.spawn(("no pair".to_string(),));
        let mut json = Vec::new();
        registry.save(&world).to_json(&mut json).unwrap();
        assert!(String::from_utf8_lossy(&json).contains("[\n"), "the codec's JSON is in the scene");
        let mut binary = Vec::new();
        registry.save(&world).to_binary(&mut binary).unwrap();
        for (format, bytes) in [("json", &json), ("binary", &binary)] {
            let mut copy = World::new();
            let loaded = if format == "json" {
                registry.load_json(&mut copy, bytes).unwrap()
            } else {
                registry.load_binary(&mut copy, bytes).unwrap()
            };
            let id = copy.component_id_named("pair").expect("registered by the load");
            let mut found: Vec<(String, Vec<u8>)> = loaded
                .entities()
                .iter()
                .filter_map(|&e| Some((copy.get::<String>(e).ok()?.clone(), copy.get_by_id(e, id).ok()?.to_vec())))
                .collect();
            found.sort();
            let expected: Vec<(String, Vec<u8>)> = (0..3).map(|i| (format!("e{i}"), pair(i, i * 10))).collect();
            assert_eq!(found, expected, "{format}, {storage:?}");
            assert_eq!(loaded.entities().len(), 4);
        }
    }
}

#[test]
fn refused_values_leave_the_world_as_it_was() {
    let (registry, descriptor) = setup(Storage::Table);
    let mut world = World::new();
    let id = world.register_component(descriptor);
    let e = world.spawn(("a".to_string(),));
    world.insert_by_id(e, id, &pair(1, 2)).unwrap();
    let mut json = Vec::new();
    registry.save(&world).to_json(&mut json).unwrap();
    let mut binary = Vec::new();
    registry.save(&world).to_binary(&mut binary).unwrap();

    let text = String::from_utf8(json).unwrap();
    let value = "[\n          1,\n          2\n        ]";
    assert!(text.contains(value), "{text}");
    let negative = text.replace(value, "[1, -2]");
    let not_a_pair = text.replace(value, "[\"one\", 2]");
    for bad in [negative, not_a_pair] {
        let mut target = World::new();
        target.spawn(("keep".to_string(),));
        let error = registry.load_json(&mut target, bad.as_bytes()).unwrap_err();
        assert!(error.to_string().contains("pair"), "{error}");
        assert_eq!(target.len(), 1, "nothing loaded");
    }
    // A binary value whose `b` is negative: the codec's check refuses it.
    let at = binary.windows(8).position(|w| w == pair(1, 2).as_slice()).expect("the bytes are in the scene");
    let mut bad = binary.clone();
    bad[at + 4..at + 8].copy_from_slice(&(-2i32).to_le_bytes());
    let mut target = World::new();
    let error = registry.load_binary(&mut target, &bad).unwrap_err();
    assert!(matches!(error, LoadError::MalformedValue { .. }), "{error}");
    assert!(error.to_string().contains("b is negative"), "{error}");
    assert!(target.is_empty());
}

#[test]
fn a_world_component_of_the_same_name_but_another_layout_is_not_saved_as_it() {
    let (registry, _) = setup(Storage::Table);
    let mut world = World::new();
    let other = world.register_component(ComponentDescriptor::new("pair", 4, 4).unwrap());
    let e = world.spawn(());
    world.insert_by_id(e, other, &[0; 4]).unwrap();
    let mut json = Vec::new();
    let report = registry.save(&world).to_json(&mut json).unwrap();
    assert_eq!(report.skipped.len(), 1, "reported as skipped: {report:?}");
}

#[test]
fn runtime_values_replicate_changes_and_removals() {
    use ripple::replicate::{Applied, DeltaReceiver, PeerConfig, Replicated, Replicator};
    let (registry, descriptor) = setup(Storage::Table);
    let (client_registry, _) = setup(Storage::Table);
    let mut server = World::new();
    let id = server.register_component(descriptor);
    let mut replicator = Replicator::new(&mut server, registry).unwrap();
    let peer = replicator.add_peer(&mut server, PeerConfig::default());
    let mut client = World::new();
    let mut receiver = DeltaReceiver::new(client_registry).unwrap();
    let mut frame = |server: &mut World, client: &mut World| {
        replicator.update(server);
        let mut bytes = Vec::new();
        replicator.write_delta(server, peer, &mut bytes).unwrap();
        if let Applied::Applied { seq, .. } = receiver.apply_delta(client, &bytes).unwrap() {
            replicator.ack(peer, seq).unwrap();
        }
        let handle = replicator.peer_handle(peer, server_entity(server)).unwrap().unwrap();
        receiver.entity_map().get(handle).unwrap()
    };
    fn server_entity(world: &mut World) -> ripple::Entity {
        let mut replicated = world.query_filtered::<ripple::Entity, ripple::query::With<Replicated>>();
        replicated.iter(world).next().unwrap()
    }
    let e = server.spawn(("a".to_string(), Replicated));
    server.insert_by_id(e, id, &pair(1, 2)).unwrap();
    let local = frame(&mut server, &mut client);
    let here = client.component_id_named("pair").expect("registered by the first delta");
    assert_eq!(client.get_by_id(local, here).unwrap(), pair(1, 2));
    server.get_mut_by_id(e, id).unwrap().copy_from_slice(&pair(5, 6));
    frame(&mut server, &mut client);
    assert_eq!(client.get_by_id(local, here).unwrap(), pair(5, 6));
    server.remove_by_id(e, id).unwrap();
    frame(&mut server, &mut client);
    assert!(client.get_by_id(local, here).is_err(), "the removal reached the client");
}
