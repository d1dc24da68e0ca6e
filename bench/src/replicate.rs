//! Replication: the workloads of `benches/replicate.rs` and the paired tool.
//!
//! * `replicate/N=..,K=..,peers=..`: N replicated entities with a position; a pass
//!   writes K of them (a different K each pass, through `get_mut` in every line) and
//!   then produces every peer's bytes for the pass:
//!   * `ripple`: `Replicator::update`, then `write_delta` and `ack` for each peer
//!     (every peer sees everything and acknowledges every delta, so they share one
//!     encoding);
//!   * `scan`: bevy_ecs 0.20.1 as bevy_replicon finds changes: every replicated
//!     entity's change tick compared with each peer's last acknowledged tick, the
//!     changed ones serialised (entity bits and postcard value) into that peer's buffer;
//!   * `snapshot`: the whole world saved once per pass (ripple's binary scene save),
//!     what a server without change tracking sends;
//!   * `floor`: the K changed values serialised once per peer, the changed entities
//!     known in advance (entity bits and postcard value, read through `get`).
//! * `apply_delta/K=..`: a delta of K position changes applied to a client world of
//!   100,000 replicas (`ripple`: `DeltaReceiver::apply_delta`; `get_mut`: the same
//!   values written through `get_mut` to the same local entities).
//!
//! Every line checks its result on the first passes.

use std::hint::black_box;

use serde::{Deserialize, Serialize};

use crate::Pass;
use crate::observers::written;

/// The replicated component, for both libraries.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, bevy_ecs::component::Component)]
pub struct Pos {
    /// Across.
    pub x: f32,
    /// Up.
    pub y: f32,
}

/// bevy's replication marker (bevy_replicon's `Replicated`).
#[derive(bevy_ecs::component::Component)]
pub struct BevyReplicated;

/// The registry both ends use.
pub fn registry() -> ripple::scene::SceneRegistry {
    let mut registry = ripple::scene::SceneRegistry::new();
    registry.component::<Pos>("pos").expect("a valid name");
    registry
}

fn pos(i: usize) -> Pos {
    Pos { x: i as f32, y: 0.5 }
}

/// Appends the floor's encoding of one changed value: the entity's bits as a varint,
/// then the value in postcard.
fn put_floor(out: &mut Vec<u8>, bits: u64, value: &Pos) {
    let mut bits = bits;
    while bits >= 0x80 {
        out.push(bits as u8 | 0x80);
        bits >>= 7;
    }
    out.push(bits as u8);
    postcard::to_io(value, &mut *out).expect("a Vec takes any value");
}

/// A server world of `n` replicated entities with a replicator of `peers` peers whose
/// first deltas (snapshots) were sent and acknowledged.
pub fn ripple_server(
    n: usize,
    peers: usize,
) -> (ripple::World, Vec<ripple::Entity>, ripple::replicate::Replicator, Vec<ripple::replicate::PeerId>) {
    use ripple::World;
    use ripple::replicate::{PeerConfig, Replicated, Replicator};
    let mut world = World::new();
    let entities: Vec<ripple::Entity> = world.spawn_batch((0..n).map(|i| (pos(i), Replicated))).collect();
    let mut replicator = Replicator::new(&mut world, registry()).expect("one component");
    let ids: Vec<ripple::replicate::PeerId> =
        (0..peers).map(|_| replicator.add_peer(&mut world, PeerConfig::default())).collect();
    replicator.update(&world);
    let mut bytes = Vec::new();
    for &peer in &ids {
        bytes.clear();
        let info = replicator.write_delta(&world, peer, &mut bytes).expect("a peer");
        assert!(info.snapshot && info.records == n);
        replicator.ack(peer, info.seq).expect("a peer");
    }
    (world, entities, replicator, ids)
}

/// `replicate`'s lines at `n` entities, `k` written per pass and `peers` peers, ripple
/// first.
pub fn replicate_lines(n: usize, k: usize, peers: usize) -> Vec<(&'static str, Pass)> {
    vec![
        ("ripple", ripple_replicate(n, k, peers)),
        ("scan", bevy_scan(n, k, peers)),
        ("snapshot", ripple_snapshot(n, k)),
        ("floor", floor(n, k, peers)),
    ]
}

fn ripple_replicate(n: usize, k: usize, peers: usize) -> Pass {
    let (mut world, entities, mut replicator, ids) = ripple_server(n, peers);
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); peers];
    let mut pass = 0;
    Box::new(move || {
        for i in written(n, k, pass) {
            world.get_mut::<Pos>(entities[i]).expect("alive").x += 1.0;
        }
        replicator.update(&world);
        for (&peer, bytes) in ids.iter().zip(&mut out) {
            bytes.clear();
            let info = replicator.write_delta(&world, peer, bytes).expect("a peer");
            replicator.ack(peer, info.seq).expect("a peer");
            if pass < 2 {
                assert_eq!(info.records, k, "one record per changed entity");
            }
        }
        black_box(&out);
        pass += 1;
    })
}

fn bevy_scan(n: usize, k: usize, peers: usize) -> Pass {
    use bevy_ecs::change_detection::Tick;
    use bevy_ecs::prelude::*;
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..n).map(|i| (pos(i), BevyReplicated))).collect();
    let mut query = world.query_filtered::<(Entity, Ref<Pos>), With<BevyReplicated>>();
    let mut acks = vec![world.change_tick(); peers];
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); peers];
    let mut pass = 0;
    Box::new(move || {
        world.increment_change_tick();
        for i in written(n, k, pass) {
            world.get_mut::<Pos>(entities[i]).expect("alive").x += 1.0;
        }
        let this_run: Tick = world.change_tick();
        out.iter_mut().for_each(Vec::clear);
        for (entity, value) in query.iter(&world) {
            let changed = value.last_changed();
            for (ack, bytes) in acks.iter().zip(&mut out) {
                if changed.is_newer_than(*ack, this_run) {
                    put_floor(bytes, entity.to_bits(), &value);
                }
            }
        }
        acks.iter_mut().for_each(|ack| *ack = this_run);
        if pass < 2 {
            let mut expected = Vec::new();
            for i in written(n, k, pass) {
                put_floor(&mut expected, entities[i].to_bits(), world.get::<Pos>(entities[i]).expect("alive"));
            }
            assert_eq!(out[0], expected, "the K changed values");
        }
        black_box(&out);
        pass += 1;
    })
}

fn ripple_snapshot(n: usize, k: usize) -> Pass {
    use ripple::World;
    use ripple::replicate::Replicated;
    let mut world = World::new();
    let entities: Vec<ripple::Entity> = world.spawn_batch((0..n).map(|i| (pos(i), Replicated))).collect();
    let registry = registry();
    let mut out = Vec::new();
    let mut pass = 0;
    Box::new(move || {
        for i in written(n, k, pass) {
            world.get_mut::<Pos>(entities[i]).expect("alive").x += 1.0;
        }
        out.clear();
        let report = registry.save(&world).to_binary(&mut out).expect("saved");
        if pass < 2 {
            assert_eq!(report.entities, n);
        }
        black_box(&out);
        pass += 1;
    })
}

fn floor(n: usize, k: usize, peers: usize) -> Pass {
    use ripple::World;
    use ripple::replicate::Replicated;
    let mut world = World::new();
    let entities: Vec<ripple::Entity> = world.spawn_batch((0..n).map(|i| (pos(i), Replicated))).collect();
    let mut changed = Vec::with_capacity(k);
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); peers];
    let mut pass = 0;
    Box::new(move || {
        changed.clear();
        for i in written(n, k, pass) {
            world.get_mut::<Pos>(entities[i]).expect("alive").x += 1.0;
            changed.push(entities[i]);
        }
        for bytes in &mut out {
            bytes.clear();
            for &entity in &changed {
                put_floor(bytes, entity.to_bits(), world.get::<Pos>(entity).expect("alive"));
            }
        }
        black_box(&out);
        pass += 1;
    })
}

/// Replicas on the client of `apply_delta`.
pub const APPLY_N: usize = 100_000;

/// A client of [`APPLY_N`] replicas and a delta of `k` changes to them, with the
/// delta's sequence number written in nine bytes so that a pass can give each
/// application a new one in place; and the changed replicas with their new values.
fn apply_setup(
    k: usize,
) -> (ripple::World, ripple::replicate::DeltaReceiver, Vec<u8>, usize, Vec<(ripple::Entity, Pos)>) {
    use ripple::World;
    use ripple::replicate::{Applied, DeltaReceiver, PeerConfig, Replicated, Replicator};
    let mut server = World::new();
    let entities: Vec<ripple::Entity> = server.spawn_batch((0..APPLY_N).map(|i| (pos(i), Replicated))).collect();
    let mut replicator = Replicator::new(&mut server, registry()).expect("one component");
    let peer = replicator.add_peer(&mut server, PeerConfig::default());
    let mut client = World::new();
    let mut receiver = DeltaReceiver::new(registry()).expect("one component");
    let mut bytes = Vec::new();
    replicator.update(&server);
    let info = replicator.write_delta(&server, peer, &mut bytes).expect("a peer");
    receiver.apply_delta(&mut client, &bytes).expect("a snapshot");
    replicator.ack(peer, info.seq).expect("a peer");
    let mut changes = Vec::with_capacity(k);
    for i in written(APPLY_N, k, 0) {
        let mut value = server.get_mut::<Pos>(entities[i]).expect("alive");
        value.x += 1.0;
        let handle = replicator.peer_handle(peer, entities[i]).expect("a peer").expect("replicated");
        changes.push((receiver.entity_map().get(handle).expect("replicated"), *value));
    }
    replicator.update(&server);
    bytes.clear();
    let info = replicator.write_delta(&server, peer, &mut bytes).expect("a peer");
    assert_eq!(info.records, k);
    // Header: magic, version, four bytes of fingerprint, then the sequence number.
    let at = 6;
    let mut reader = at;
    while bytes[reader] & 0x80 != 0 {
        reader += 1;
    }
    let mut padded = bytes[..at].to_vec();
    padded.extend_from_slice(&[0x80; 8]);
    padded.push(0);
    padded.extend_from_slice(&bytes[reader + 1..]);
    let applied = receiver.apply_delta(&mut client, &padded);
    assert!(matches!(applied, Ok(Applied::Stale { .. })), "sequence 0 is older: {applied:?}");
    (client, receiver, padded, at, changes)
}

/// Writes `seq` over the nine bytes at `at` (a varint padded with continuation bytes).
fn patch_seq(bytes: &mut [u8], at: usize, seq: u64) {
    for i in 0..8 {
        bytes[at + i] = ((seq >> (7 * i)) as u8 & 0x7F) | 0x80;
    }
    bytes[at + 8] = (seq >> 56) as u8 & 0x7F;
}

/// `apply_delta`'s lines at `k` changes, ripple first.
pub fn apply_lines(k: usize) -> Vec<(&'static str, Pass)> {
    vec![("ripple", ripple_apply(k)), ("get_mut", get_mut_apply(k))]
}

fn ripple_apply(k: usize) -> Pass {
    let (mut client, mut receiver, mut bytes, at, changes) = apply_setup(k);
    let mut seq = 1u64 << 20;
    Box::new(move || {
        seq += 1;
        patch_seq(&mut bytes, at, seq);
        let applied = receiver.apply_delta(&mut client, &bytes).expect("a delta");
        if seq < (1 << 20) + 3 {
            assert!(matches!(applied, ripple::replicate::Applied::Applied { records, .. } if records == changes.len()));
            for &(local, value) in &changes {
                assert_eq!(client.get::<Pos>(local).expect("alive"), &value);
            }
        }
        black_box(applied);
    })
}

fn get_mut_apply(k: usize) -> Pass {
    let (mut client, _, _, _, changes) = apply_setup(k);
    Box::new(move || {
        for &(local, value) in &changes {
            *client.get_mut::<Pos>(local).expect("alive") = value;
        }
        black_box(&client);
    })
}

/// Bytes of one peer's delta at `k` changes of `n` entities, and the floor's bytes
/// (entity bits and postcard value per changed entity).
pub fn delta_bytes(n: usize, k: usize) -> (usize, usize) {
    let (mut world, entities, mut replicator, ids) = ripple_server(n, 1);
    let mut floor = Vec::new();
    for i in written(n, k, 0) {
        let mut value = world.get_mut::<Pos>(entities[i]).expect("alive");
        value.x += 1.0;
        put_floor(&mut floor, entities[i].to_bits(), &value);
    }
    replicator.update(&world);
    let mut bytes = Vec::new();
    let info = replicator.write_delta(&world, ids[0], &mut bytes).expect("a peer");
    assert_eq!(info.records, k);
    (bytes.len(), floor.len())
}
