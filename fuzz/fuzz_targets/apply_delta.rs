//! Feeds arbitrary bytes to a replication receiver as a delta: it never panics, and a
//! refused delta leaves the receiving world and the receiver exactly as they were.
//! Half the inputs get a valid header (so that the fuzzer spends its time on records
//! and values), the other half are taken as they are. The receiver has small limits,
//! and nothing it holds grows past them.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use ripple::{Entity, World};
use ripple::hierarchy::ChildOf;
use ripple::replicate::{DeltaReceiver, PeerConfig, ReceiverLimits, Replicated, Replicator};
use ripple::scene::SceneRegistry;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Name(String);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Links {
    all: Vec<Entity>,
    best: Option<Entity>,
}

/// A recursive value: each `Node` is one more level of nesting.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Tree {
    Leaf,
    Node(Box<Tree>),
}

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Position>("position")
        .and_then(|r| r.component::<Name>("name"))
        .and_then(|r| r.component::<Links>("links"))
        .and_then(|r| r.component::<Tree>("tree"))
        .and_then(|r| r.component::<ChildOf>("child_of"))
        .expect("valid names");
    registry
}

/// A client that applied a server's first two deltas (a snapshot, then changes), and
/// the header bytes (magic, version, registry fingerprint) deltas start with.
fn client() -> (World, DeltaReceiver, Vec<u8>) {
    let mut server = World::new();
    let mut replicator = Replicator::new(&mut server, registry()).expect("five components");
    let peer = replicator.add_peer(&mut server, PeerConfig::default());
    let root = server.spawn((Position { x: 0.0, y: 0.0 }, Name("root".into()), Replicated));
    let mut kids = Vec::new();
    for i in 0..4 {
        let kid = server.spawn((Position { x: i as f32, y: 1.0 }, Tree::Node(Box::new(Tree::Leaf)), Replicated));
        server.set_parent(kid, root).expect("no cycle");
        kids.push(kid);
    }
    server.insert(root, (Links { all: kids.clone(), best: Some(kids[1]) },)).expect("alive");
    let mut client = World::new();
    let mut receiver = DeltaReceiver::new(registry()).expect("five components");
    let mut bytes = Vec::new();
    for step in 0..2 {
        if step == 1 {
            server.get_mut::<Position>(kids[0]).expect("alive").x = 9.0;
            server.despawn(kids[3]).expect("alive");
        }
        replicator.update(&server);
        bytes.clear();
        let info = replicator.write_delta(&server, peer, &mut bytes).expect("values serialise");
        receiver.apply_delta(&mut client, &bytes).expect("the replicator's delta");
        replicator.ack(peer, info.seq).expect("a peer");
    }
    receiver.set_limits(LIMITS);
    (client, receiver, bytes[..6].to_vec())
}

/// Small limits, for the fuzzer to reach.
const LIMITS: ReceiverLimits = ReceiverLimits { entities: 64, stand_ins: 16, pending_parents: 4, parent_retries: 3 };

/// Everything a refused delta must leave alone: the world's entities and replicated
/// values (as a binary save, which keeps NaNs), and the receiver's map and last sequence number.
fn state(world: &World, receiver: &DeltaReceiver) -> (usize, Vec<u8>, Vec<(Entity, Entity)>, Option<u64>) {
    static REGISTRY: OnceLock<SceneRegistry> = OnceLock::new();
    let mut json = Vec::new();
    REGISTRY.get_or_init(registry).save(world).to_binary(&mut json).expect("saves");
    let mut map: Vec<_> = receiver.entity_map().iter().collect();
    map.sort();
    (world.len(), json, map, receiver.last_applied())
}

fuzz_target!(|data: &[u8]| {
    let (mut world, mut receiver, header) = client();
    let input = match data.split_first() {
        // A valid header, a sequence number past the applied ones, then the fuzzer's.
        Some((&flag, rest)) if flag & 1 == 0 => {
            let mut input = header.clone();
            input.push(100);
            input.extend_from_slice(rest);
            input
        }
        _ => data.to_vec(),
    };
    let before = state(&world, &receiver);
    match receiver.apply_delta(&mut world, &input) {
        Err(error) => {
            assert!(!error.to_string().is_empty());
            assert!(before == state(&world, &receiver), "a refused delta changed the world: {error}");
        }
        Ok(_) => {
            // Applied: the receiver goes on working, within its limits.
            let _ = state(&world, &receiver);
            assert!(receiver.entity_map().len() <= LIMITS.entities, "past the entity limit");
            assert!(receiver.stand_ins() <= LIMITS.stand_ins, "past the stand-in limit");
            assert!(receiver.drain_refused_parents().count() <= 256);
        }
    }
});
