//! Replication under the cases that broke it: losses and late acknowledgements around
//! view refreshes, children reordered in place, local despawns, what filtered peers
//! may learn, registries whose types differ in shape, stale peer ids, hostile
//! streams, and a receiver that lost track of its sender.

use ripple::replicate::{
    AckMode, Applied, DeltaError, DeltaReceiver, PeerConfig, PeerId, ReceiverLimit, ReceiverLimits, ReplicateError,
    Replicated, Replicator, Visibility, delta_to_json,
};
use ripple::scene::SceneRegistry;
use ripple::{Entity, World};
use serde::{Deserialize, Serialize};

#[path = "support/replicated.rs"]
mod replicated;

use replicated::{Health, Near, Position, Radius, registry};

fn within(world: &World, e: Entity) -> bool {
    let radius = world.resource::<Radius>().map_or(0, |r| r.0);
    world.get::<Position>(e).is_ok_and(|p| p.0.abs() <= radius)
}

struct Link {
    server: World,
    replicator: Replicator,
    peer: PeerId,
    client: World,
    receiver: DeltaReceiver,
}

impl Link {
    fn new(mode: AckMode, visibility: Visibility) -> Link {
        let mut server = World::new();
        server.insert_resource(Radius(1));
        let mut replicator = Replicator::new(&mut server, registry()).unwrap();
        let peer = replicator.add_peer(&mut server, PeerConfig { mode, visibility });
        Link { server, replicator, peer, client: World::new(), receiver: DeltaReceiver::new(registry()).unwrap() }
    }

    /// Updates and writes the next delta.
    fn write(&mut self) -> (u64, Vec<u8>) {
        self.replicator.update(&self.server);
        let mut bytes = Vec::new();
        let info = self.replicator.write_delta(&self.server, self.peer, &mut bytes).unwrap();
        (info.seq, bytes)
    }

    /// Applies `bytes`; returns the sequence number applied.
    fn apply(&mut self, bytes: &[u8]) -> Option<u64> {
        match self.receiver.apply_delta(&mut self.client, bytes).unwrap() {
            Applied::Applied { seq, .. } => Some(seq),
            _ => None,
        }
    }

    /// A frame delivered and acknowledged.
    fn clean(&mut self) {
        let (_, bytes) = self.write();
        if let Some(seq) = self.apply(&bytes) {
            self.replicator.ack(self.peer, seq).unwrap();
        }
    }

    fn local(&self, server: Entity) -> Option<Entity> {
        let handle = self.replicator.peer_handle(self.peer, server).unwrap()?;
        self.receiver.entity_map().get(handle).filter(|&local| self.client.contains(local))
    }

    /// The client's replica of `server`, if it holds one (not an empty stand-in).
    fn replica(&self, server: Entity) -> Option<Position> {
        self.local(server).and_then(|local| self.client.get::<Position>(local).ok().copied())
    }
}

/// A lost delta that showed an entity after a refresh is repaired once reported.
/// Failed before the fix: the view as sent counted the entity shown, and nothing
/// sent it again until it changed.
#[test]
fn a_lost_refresh_delta_is_repaired_in_nack_mode() {
    let mut link = Link::new(AckMode::SinceLastSendWithNack, Visibility::filter(within));
    let e = link.server.spawn((Position(5), Replicated));
    link.clean();
    assert_eq!(link.replica(e), None);
    link.server.insert_resource(Radius(10));
    link.replicator.refresh_visibility(link.peer).unwrap();
    let (lost, _) = link.write();
    link.replicator.nack(link.peer, lost).unwrap();
    for _ in 0..3 {
        link.clean();
    }
    assert_eq!(link.replica(e), Some(Position(5)), "e reaches the client without being written");
}

/// A late acknowledgement of one refresh delta does not lose a later one's view
/// changes, whether the later one answered a request of its own or not. Failed before
/// the fix: the late ack cleared the pending refresh, and the later delta's view change
/// was forgotten when its own ack was lost: the client kept a ghost (or never got the
/// entity back).
#[test]
fn a_late_ack_does_not_lose_a_later_refresh() {
    for second_request in [false, true] {
        // The entity is shown by the second refresh delta, then must be hidden.
        let mut link = Link::new(AckMode::SinceLastAck, Visibility::filter(within));
        let e = link.server.spawn((Position(5), Replicated));
        link.clean();
        link.replicator.refresh_visibility(link.peer).unwrap();
        let (d2, bytes) = link.write();
        link.apply(&bytes).unwrap(); // its ack is late
        link.server.insert_resource(Radius(10));
        if second_request {
            link.replicator.refresh_visibility(link.peer).unwrap();
        }
        let (_, bytes) = link.write();
        link.apply(&bytes).unwrap(); // shows e; its ack is lost
        assert_eq!(link.replica(e), Some(Position(5)));
        link.replicator.ack(link.peer, d2).unwrap(); // the late ack
        link.clean(); // acknowledged: the delta that showed e counts as lost
        link.server.insert_resource(Radius(1));
        link.replicator.refresh_visibility(link.peer).unwrap();
        link.clean();
        link.clean();
        assert_eq!(link.replica(e), None, "no ghost (second request: {second_request})");

        // The mirror case: hidden by the second refresh delta, then shown again.
        let mut link = Link::new(AckMode::SinceLastAck, Visibility::filter(within));
        link.server.insert_resource(Radius(10));
        let e = link.server.spawn((Position(5), Replicated));
        link.clean();
        assert_eq!(link.replica(e), Some(Position(5)));
        link.replicator.refresh_visibility(link.peer).unwrap();
        let (d2, bytes) = link.write();
        link.apply(&bytes).unwrap();
        link.server.insert_resource(Radius(1));
        if second_request {
            link.replicator.refresh_visibility(link.peer).unwrap();
        }
        let (_, bytes) = link.write();
        link.apply(&bytes).unwrap(); // hides e; its ack is lost
        assert_eq!(link.replica(e), None);
        link.replicator.ack(link.peer, d2).unwrap();
        link.clean();
        link.server.insert_resource(Radius(10));
        link.replicator.refresh_visibility(link.peer).unwrap();
        link.clean();
        link.clean();
        assert_eq!(link.replica(e), Some(Position(5)), "e comes back (second request: {second_request})");
    }
}

/// Children reordered in place reach the client. Failed before the fix: orders were
/// sent only for parents whose children's `ChildOf` changed.
#[test]
fn children_reordered_in_place_reach_the_client() {
    let mut link = Link::new(AckMode::SinceLastAck, Visibility::all());
    let parent = link.server.spawn((Position(0), Replicated));
    let kids: Vec<Entity> = (1..=3).map(|i| link.server.spawn((Position(i), Replicated))).collect();
    link.server.add_children(parent, &kids).unwrap();
    link.clean();
    let order = |link: &Link| -> Vec<Entity> {
        let here = link.local(parent).unwrap();
        link.client.children(here).unwrap().to_vec()
    };
    let expected = |link: &Link| -> Vec<Entity> {
        link.server.children(parent).unwrap().iter().map(|&k| link.local(k).unwrap()).collect()
    };
    assert_eq!(order(&link), expected(&link));
    link.server.insert_children(parent, 0, &[kids[2]]).unwrap();
    link.clean();
    assert_eq!(order(&link), expected(&link), "insert_children in place");
    let reversed: Vec<Entity> = kids.iter().rev().copied().collect();
    link.server.replace_children(parent, &reversed).unwrap();
    link.clean();
    assert_eq!(order(&link), expected(&link), "replace_children with the same set");
}

/// A replica the client despawned comes back whole or not at all. Failed before the
/// fix: a change of one component brought it back holding that component alone.
#[test]
fn a_replica_despawned_by_the_client_comes_back_whole_or_not_at_all() {
    let mut link = Link::new(AckMode::SinceLastAck, Visibility::all());
    let e = link.server.spawn((Position(1), Health(7), Replicated));
    link.clean();
    let local = link.local(e).unwrap();
    link.client.despawn(local).unwrap();
    link.server.get_mut::<Position>(e).unwrap().0 = 2;
    link.clean();
    assert_eq!(link.local(e), None, "not back with the changed component alone");
    assert_eq!(link.client.len(), 0);
    // The sender starts the peer over: it comes back whole.
    link.replicator.resync(link.peer).unwrap();
    link.clean();
    let back = link.local(e).unwrap();
    assert_eq!(link.client.get::<Position>(back).unwrap(), &Position(2));
    assert_eq!(link.client.get::<Health>(back).unwrap(), &Health(7));
}

/// What a filtered peer receives names nothing outside its view. Failed before the
/// fix: despawns of entities it never saw reached it with their handles, children
/// orders listed hidden children, and handles were the server's own.
#[test]
fn a_filtered_peer_learns_nothing_outside_its_view() {
    let mut link = Link::new(AckMode::SinceLastAck, Visibility::with::<Near>());
    // Entities the peer never sees: their number shows nowhere.
    for i in 0..1000 {
        link.server.spawn((Position(i),));
    }
    let hidden: Vec<Entity> = (0..50).map(|i| link.server.spawn((Position(i), Replicated))).collect();
    let parent = link.server.spawn((Position(0), Replicated, Near));
    let kids = [
        link.server.spawn((Position(1), Replicated, Near)),
        hidden[0],
        link.server.spawn((Position(2), Replicated, Near)),
    ];
    link.server.add_children(parent, &kids).unwrap();
    let (_, bytes) = link.write();
    let json = delta_to_json(link.replicator.registry(), &bytes).unwrap();
    let handles: Vec<Entity> = [parent, kids[0], kids[2]]
        .iter()
        .map(|&e| link.replicator.peer_handle(link.peer, e).unwrap().unwrap())
        .collect();
    let mut indices: Vec<u32> = handles.iter().map(|h| h.index()).collect();
    indices.sort();
    assert_eq!(indices, [0, 1, 2], "the peer's own numbering, from 0: {json}");
    let order = json["orders"][0]["children"].as_array().unwrap();
    assert_eq!(order.len(), 2, "only the children it sees: {json}");
    assert!(hidden.iter().all(|&e| link.replicator.peer_handle(link.peer, e).unwrap().is_none()));
    let seq = link.apply(&bytes).unwrap();
    link.replicator.ack(link.peer, seq).unwrap();
    for &e in &hidden {
        link.server.despawn(e).unwrap();
    }
    let (_, bytes) = link.write();
    let json = delta_to_json(link.replicator.registry(), &bytes).unwrap();
    assert!(json["records"].as_array().unwrap().is_empty(), "nothing about the despawns: {json}");
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct HpUnsigned(u32);

mod client_side {
    /// The client's type of the same name reads other data.
    #[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
    pub struct HpUnsigned(pub i32);
}

/// A receiver whose type under a name reads other data than the sender's is refused.
/// Failed before the fix: the fingerprint covered names only, and `Hp(u32)` arrived
/// as `Hp(i32)`.
#[test]
fn a_type_of_the_same_name_but_another_shape_is_refused() {
    let mut server = World::new();
    let mut sent = SceneRegistry::new();
    sent.component::<HpUnsigned>("hp").unwrap();
    let mut replicator = Replicator::new(&mut server, sent).unwrap();
    let peer = replicator.add_peer(&mut server, PeerConfig::default());
    server.spawn((HpUnsigned(u32::MAX), Replicated));
    replicator.update(&server);
    let mut bytes = Vec::new();
    replicator.write_delta(&server, peer, &mut bytes).unwrap();
    let mut other = SceneRegistry::new();
    other.component::<client_side::HpUnsigned>("hp").unwrap();
    let mut receiver = DeltaReceiver::new(other).unwrap();
    let mut client = World::new();
    let error = receiver.apply_delta(&mut client, &bytes).unwrap_err();
    assert!(matches!(error, DeltaError::Schema { .. }), "{error}");
    assert_eq!(client.len(), 0);
    // The same shape under the same name is accepted.
    let mut same = SceneRegistry::new();
    same.component::<HpUnsigned>("hp").unwrap();
    assert!(DeltaReceiver::new(same).unwrap().apply_delta(&mut client, &bytes).is_ok());
}

/// A removed peer's id names nothing, even once its slot is taken. Failed before the
/// fix: the stale id wrote the new peer's deltas.
#[test]
fn a_removed_peers_id_names_nothing() {
    let mut server = World::new();
    let mut replicator = Replicator::new(&mut server, registry()).unwrap();
    let old = replicator.add_peer(&mut server, PeerConfig::default());
    assert!(replicator.remove_peer(old));
    let new = replicator.add_peer(&mut server, PeerConfig::default());
    assert_ne!(old, new);
    replicator.update(&server);
    let mut bytes = Vec::new();
    let stale = Err(ReplicateError::NoSuchPeer { peer: 0 });
    assert_eq!(replicator.write_delta(&server, old, &mut bytes), Err(ReplicateError::NoSuchPeer { peer: 0 }));
    assert!(bytes.is_empty());
    assert_eq!(replicator.ack(old, 1), stale);
    assert_eq!(replicator.nack(old, 1), stale);
    assert_eq!(replicator.refresh_visibility(old), stale);
    assert_eq!(replicator.resync(old), stale);
    assert!(!replicator.remove_peer(old));
    assert!(replicator.write_delta(&server, new, &mut bytes).unwrap().snapshot, "the new peer is untouched");
}

/// Appends `value` as a LEB128 varint (the wire's and postcard's).
fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A delta's header, with the fingerprint a real delta carries.
fn header(fingerprint: &[u8], seq: u64) -> Vec<u8> {
    let mut out = vec![0xD7, 2];
    out.extend_from_slice(fingerprint);
    varint(&mut out, seq);
    out.push(0);
    out
}

fn handle(index: u32) -> u64 {
    (1u64 << 32) | u64::from(index)
}

/// The fingerprint of `registry()`, read off a real delta.
fn fingerprint() -> Vec<u8> {
    let mut link = Link::new(AckMode::SinceLastAck, Visibility::all());
    let (_, bytes) = link.write();
    bytes[2..6].to_vec()
}

/// A hostile stream cannot grow the receiver past its limits. Failed before the fix:
/// 10,000 deltas naming 100 new handles each made 1,010,000 stand-ins.
#[test]
fn a_hostile_stream_is_refused_past_the_receivers_limits() {
    let fingerprint = fingerprint();
    let mut receiver = DeltaReceiver::new(registry()).unwrap();
    receiver.set_limits(ReceiverLimits { stand_ins: 1000, entities: 3000, ..ReceiverLimits::default() });
    let mut client = World::new();
    let target_bit = 1u64 << 2;
    let mut refused = 0;
    for seq in 1..=40u64 {
        // 100 records, each a new entity sent whole whose target names another new
        // handle (a stand-in).
        let mut delta = header(&fingerprint, seq);
        varint(&mut delta, 100);
        for i in 0..100u32 {
            let n = (seq as u32) * 1000 + 2 * i;
            varint(&mut delta, handle(n));
            varint(&mut delta, (target_bit << 3) | 1);
            varint(&mut delta, handle(n + 1));
        }
        varint(&mut delta, 0);
        let before = (client.len(), receiver.entity_map().len(), receiver.stand_ins());
        match receiver.apply_delta(&mut client, &delta) {
            Ok(_) => {}
            Err(DeltaError::Limit { limit, max, would_be }) => {
                refused += 1;
                assert!(would_be > max && matches!(limit, ReceiverLimit::StandIns | ReceiverLimit::Entities));
                assert_eq!((client.len(), receiver.entity_map().len(), receiver.stand_ins()), before, "unchanged");
            }
            Err(other) => panic!("{other}"),
        }
        assert!(receiver.stand_ins() <= 1000 && receiver.entity_map().len() <= 3000);
        assert!(client.len() <= 3000);
    }
    assert!(refused > 0, "the limits were reached");
}

/// A parent link the hierarchy keeps refusing is given up after its retries and
/// reported, and the links waiting stay bounded. Failed before the fix: refused
/// cycles were retried after every delta forever, and piled up.
#[test]
fn refused_parent_links_are_given_up_and_bounded() {
    let fingerprint = fingerprint();
    let mut receiver = DeltaReceiver::new(registry()).unwrap();
    let limits = ReceiverLimits { pending_parents: 8, parent_retries: 5, ..ReceiverLimits::default() };
    receiver.set_limits(limits);
    let mut client = World::new();
    let child_of_bit = 1u64 << 3;
    let mut seq = 0;
    let mut delta_of = |records: &[(u32, u32)]| {
        seq += 1;
        let mut delta = header(&fingerprint, seq);
        varint(&mut delta, records.len() as u64);
        for &(child, parent) in records {
            varint(&mut delta, handle(child));
            varint(&mut delta, (child_of_bit << 3) | 1);
            varint(&mut delta, handle(parent));
        }
        varint(&mut delta, 0);
        delta
    };
    // Cycles: a → b and b → a, in one delta each time, for 20 pairs.
    for pair in 0..20u32 {
        let (a, b) = (2 * pair, 2 * pair + 1);
        receiver.apply_delta(&mut client, &delta_of(&[(a, b), (b, a)])).unwrap();
    }
    let early: Vec<_> = receiver.drain_refused_parents().collect();
    assert!(!early.is_empty(), "links pushed out past the bound are reported");
    for _ in 0..10 {
        receiver.apply_delta(&mut client, &delta_of(&[])).unwrap();
    }
    let late: Vec<_> = receiver.drain_refused_parents().collect();
    assert!(!late.is_empty(), "links out of retries are reported");
    assert_eq!(early.len() + late.len(), 20, "every refused link is given up once");
    assert_eq!(receiver.drain_refused_parents().count(), 0);
}

/// A forged sequence number makes every later delta stale; a reset on the receiver and
/// a resync on the sender bring the client back.
#[test]
fn a_receiver_that_lost_its_sender_resets_and_resyncs() {
    let mut link = Link::new(AckMode::SinceLastAck, Visibility::all());
    let e = link.server.spawn((Position(1), Replicated));
    link.clean();
    let mut forged = header(&fingerprint(), u64::MAX);
    varint(&mut forged, 0);
    varint(&mut forged, 0);
    assert!(link.apply(&forged).is_some());
    link.server.get_mut::<Position>(e).unwrap().0 = 2;
    let (_, bytes) = link.write();
    assert!(matches!(link.receiver.apply_delta(&mut link.client, &bytes), Ok(Applied::Stale { .. })));
    assert_eq!(link.replica(e), Some(Position(1)), "stuck");
    // The way back.
    assert_eq!(link.receiver.reset(&mut link.client), 1);
    assert_eq!(link.client.len(), 0);
    let (_, old) = link.write();
    assert!(matches!(link.receiver.apply_delta(&mut link.client, &old), Ok(Applied::AwaitingSnapshot { .. })));
    link.replicator.resync(link.peer).unwrap();
    link.clean();
    link.clean();
    assert_eq!(link.replica(e), Some(Position(2)));
    assert_eq!(link.client.len(), 1);
}
