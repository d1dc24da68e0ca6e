//! Steady replication frames allocate nothing, on either side: the server's update
//! and deltas for peers of both modes and views, the client's apply and the
//! acknowledgements, with values written and components added and removed.

use ripple::replicate::{AckMode, DeltaReceiver, PeerConfig, PeerId, Replicated, Replicator, Visibility};
use ripple::scene::SceneRegistry;
use ripple::{Entity, World};
use serde::{Deserialize, Serialize};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_on_this_thread as allocations_in;

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct Position(f32, f32);

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct Stunned(u8);

struct Near;

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry.component::<Position>("position").unwrap().component::<Stunned>("stunned").unwrap();
    registry
}

#[test]
fn steady_replication_frames_allocate_nothing() {
    let mut server = World::new();
    let entities: Vec<Entity> = (0..2_000).map(|i| server.spawn((Position(i as f32, 0.0), Replicated, Near))).collect();
    let mut replicator = Replicator::new(&mut server, registry()).unwrap();
    let configs = [
        PeerConfig::default(),
        PeerConfig::default(),
        PeerConfig { mode: AckMode::SinceLastSendWithNack, ..PeerConfig::default() },
        PeerConfig { visibility: Visibility::with::<Near>(), ..PeerConfig::default() },
    ];
    let mut clients: Vec<(PeerId, World, DeltaReceiver, Vec<u8>)> = configs
        .into_iter()
        .map(|config| {
            let peer = replicator.add_peer(&mut server, config);
            (peer, World::new(), DeltaReceiver::new(registry()).unwrap(), Vec::with_capacity(1 << 16))
        })
        .collect();
    server.insert(entities[0], (Stunned(3),)).unwrap();
    let mut tick = 0usize;
    let mut frame = |server: &mut World,
                     replicator: &mut Replicator,
                     clients: &mut Vec<(PeerId, World, DeltaReceiver, Vec<u8>)>| {
        tick += 1;
        for &e in entities.iter().skip(tick % 10).step_by(10) {
            server.get_mut::<Position>(e).unwrap().0 += 1.0;
        }
        // A component comes and goes (a table move each way).
        server.insert(entities[tick % entities.len()], (Stunned(3),)).unwrap();
        server.remove::<(Stunned,)>(entities[(tick - 1) % entities.len()]).unwrap();
        replicator.update(server);
        for (peer, client, receiver, bytes) in clients.iter_mut() {
            bytes.clear();
            let info = replicator.write_delta(server, *peer, bytes).unwrap();
            receiver.apply_delta(client, bytes).unwrap();
            replicator.ack(*peer, info.seq).unwrap();
        }
    };
    for _ in 0..20 {
        frame(&mut server, &mut replicator, &mut clients);
    }
    let allocations = allocations_in(|| {
        for _ in 0..20 {
            frame(&mut server, &mut replicator, &mut clients);
        }
    });
    assert_eq!(allocations, 0, "steady replication frames allocated {allocations} times");
    for (peer, client, receiver, _) in &clients {
        let handle = replicator.peer_handle(*peer, entities[7]).unwrap().unwrap();
        let here = receiver.entity_map().get(handle).unwrap();
        assert_eq!(client.get::<Position>(here).unwrap(), server.get::<Position>(entities[7]).unwrap());
    }
}
