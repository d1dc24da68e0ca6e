//! Deltas and replication through the public API: what a peer receives, how it is
//! acknowledged, what it sees, and what a receiver refuses.

use ripple::hierarchy::ChildOf;
use ripple::replicate::{
    AckMode, Applied, DeltaError, DeltaReceiver, PeerConfig, PeerId, Replicated, Replicator, Visibility, delta_to_json,
};
use ripple::scene::SceneRegistry;
use ripple::{Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct Position(f32, f32);

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct Health(u32);

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct Target(Entity);

/// Not replicated.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Secret(u32);

/// Marks what the second peer sees.
struct Near;

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Position>("position")
        .unwrap()
        .component::<Health>("health")
        .unwrap()
        .component::<Target>("target")
        .unwrap()
        .component::<ChildOf>("child_of")
        .unwrap();
    registry
}

struct Link {
    server: World,
    replicator: Replicator,
    peer: PeerId,
    client: World,
    receiver: DeltaReceiver,
}

impl Link {
    fn new(config: PeerConfig) -> Link {
        let mut server = World::new();
        let mut replicator = Replicator::new(&mut server, registry()).unwrap();
        let peer = replicator.add_peer(&mut server, config);
        Link { server, replicator, peer, client: World::new(), receiver: DeltaReceiver::new(registry()).unwrap() }
    }

    /// One frame: update, write, and (if `deliver`) apply and acknowledge.
    fn frame(&mut self, deliver: bool) -> (Vec<u8>, Option<Applied>) {
        self.replicator.update(&self.server);
        let mut bytes = Vec::new();
        let info = self.replicator.write_delta(&self.server, self.peer, &mut bytes).unwrap();
        assert_eq!(info.bytes, bytes.len());
        if !deliver {
            return (bytes, None);
        }
        let applied = self.receiver.apply_delta(&mut self.client, &bytes).unwrap();
        if let Applied::Applied { seq, .. } = applied {
            self.replicator.ack(self.peer, seq).unwrap();
        }
        (bytes, Some(applied))
    }

    /// The client's entity for `server`: the peer knows it by a handle of its own.
    fn local(&self, server: Entity) -> Option<Entity> {
        let handle = self.replicator.peer_handle(self.peer, server).unwrap()?;
        self.receiver.entity_map().get(handle).filter(|&local| self.client.contains(local))
    }

    /// Every replicated server entity that `sees` accepts has a local twin with
    /// equal components (references mapped), and the client holds nothing else from
    /// the server but empty stand-ins.
    fn assert_mirrored(&mut self, sees: impl Fn(&World, Entity) -> bool) {
        let mut twins = 0;
        for (handle, local) in self.receiver.entity_map().iter() {
            if !self.client.contains(local) {
                continue;
            }
            // A handle the replicator released names an entity gone on the server.
            let server = self.replicator.entity_of(self.peer, handle).unwrap();
            let Some(server) = server else {
                let names = self.client.entity(local).unwrap().component_names().count();
                assert_eq!(names, 0, "{handle} names nothing on the server but is on the client");
                continue;
            };
            let visible = self.server.contains(server)
                && self.server.get::<Replicated>(server).is_ok()
                && sees(&self.server, server);
            if !visible {
                let names = self.client.entity(local).unwrap().component_names().count();
                assert_eq!(names, 0, "{server} is on the client but not visible on the server");
                continue;
            }
            twins += 1;
            assert_eq!(self.client.get::<Position>(local).ok(), self.server.get::<Position>(server).ok());
            assert_eq!(self.client.get::<Health>(local).ok(), self.server.get::<Health>(server).ok());
            match self.server.get::<Target>(server) {
                // A reference to a despawned entity names a dead local one.
                Ok(t) if !self.server.contains(t.0) => {
                    assert!(!self.client.contains(self.client.get::<Target>(local).unwrap().0));
                }
                target => {
                    let target = target.ok().map(|t| self.local(t.0));
                    assert_eq!(self.client.get::<Target>(local).ok().map(|t| Some(t.0)), target);
                }
            }
            let parent = self.server.get::<ChildOf>(server).ok().map(|c| self.local(c.0));
            assert_eq!(self.client.get::<ChildOf>(local).ok().map(|c| Some(c.0)), parent);
            assert!(self.client.get::<Secret>(local).is_err());
        }
        let mut replicated = self.server.query_filtered::<Entity, ripple::query::With<Replicated>>();
        let expected = replicated.iter(&self.server).filter(|&e| sees(&self.server, e)).count();
        assert_eq!(twins, expected, "every visible replicated entity has a twin");
    }
}

fn everything(_: &World, _: Entity) -> bool {
    true
}

#[test]
fn spawns_changes_removals_and_despawns_reach_the_client() {
    let mut link = Link::new(PeerConfig::default());
    let a = link.server.spawn((Position(1.0, 2.0), Health(10), Replicated, Secret(7)));
    let b = link.server.spawn((Position(3.0, 4.0), Target(a), Replicated));
    link.server.spawn((Position(9.0, 9.0),)); // not replicated
    let (_, applied) = link.frame(true);
    assert!(matches!(applied, Some(Applied::Applied { records: 2, spawned: 2, .. })), "{applied:?}");
    link.assert_mirrored(everything);

    link.server.get_mut::<Position>(a).unwrap().0 = 5.0;
    link.server.remove::<(Health,)>(a).unwrap();
    link.server.insert(b, (Health(3),)).unwrap();
    let (bytes, _) = link.frame(true);
    link.assert_mirrored(everything);
    let json = delta_to_json(link.replicator.registry(), &bytes).unwrap();
    assert_eq!(json["records"].as_array().unwrap().len(), 2, "{json}");

    link.server.despawn(a).unwrap();
    link.server.remove::<(Replicated,)>(b).unwrap();
    let (bytes, _) = link.frame(true);
    let json = delta_to_json(link.replicator.registry(), &bytes).unwrap();
    assert!(link.local(a).is_none(), "a despawned: {json}");
    let b_here = link.local(b).unwrap();
    assert_eq!(link.client.len(), 1);
    assert_eq!(link.client.entity(b_here).unwrap().component_names().count(), 0, "b left the set: a stand-in");
    link.assert_mirrored(everything);
}

#[test]
fn a_reference_to_an_entity_despawned_before_it_was_sent_gets_a_stand_in_until_the_sender_finds_it_gone() {
    let mut link = Link::new(PeerConfig::default());
    let a = link.server.spawn((Position(0.0, 0.0), Health(0), Replicated));
    let b = link.server.spawn((Position(0.0, 0.0), Replicated));
    link.server.insert(a, (Target(b),)).unwrap();
    link.server.despawn(b).unwrap();
    link.frame(true);
    let stand_in = link.client.get::<Target>(link.local(a).unwrap()).unwrap().0;
    assert!(link.client.contains(stand_in));
    assert_eq!(link.client.entity(stand_in).unwrap().component_names().count(), 0);
    assert_eq!(link.local(b), Some(stand_in));
    assert_eq!(link.receiver.stand_ins(), 1);
    // The next delta looks at the peer's handles, finds b gone, and says so.
    link.frame(true);
    assert!(!link.client.contains(stand_in), "the stand-in goes with the entity");
    assert_eq!(link.receiver.stand_ins(), 0);
    assert_eq!(link.client.get::<Target>(link.local(a).unwrap()).unwrap().0, stand_in, "a names a dead entity");
    link.frame(true);
    assert_eq!(link.replicator.peer_handle(link.peer, b).unwrap(), None, "the acknowledged handle is free");
    link.assert_mirrored(everything);
}

#[test]
fn since_last_ack_a_lost_delta_is_carried_by_the_next() {
    let mut link = Link::new(PeerConfig::default());
    let a = link.server.spawn((Position(0.0, 0.0), Replicated));
    link.frame(true);
    link.server.get_mut::<Position>(a).unwrap().0 = 1.0;
    let b = link.server.spawn((Position(5.0, 5.0), Health(1), Replicated));
    link.frame(false); // lost
    link.server.get_mut::<Position>(a).unwrap().1 = 2.0;
    link.frame(false); // lost
    let (bytes, _) = link.frame(true);
    let json = delta_to_json(link.replicator.registry(), &bytes).unwrap();
    assert_eq!(json["records"].as_array().unwrap().len(), 2, "a and b, each once: {json}");
    link.assert_mirrored(everything);
    assert_eq!(link.client.get::<Position>(link.local(b).unwrap()).unwrap(), &Position(5.0, 5.0));
    // Acknowledged: the next delta is empty.
    let (bytes, _) = link.frame(true);
    assert_eq!(delta_to_json(link.replicator.registry(), &bytes).unwrap()["records"].as_array().unwrap().len(), 0);
}

#[test]
fn since_last_send_a_lost_delta_is_sent_again_once_reported() {
    let config = PeerConfig { mode: AckMode::SinceLastSendWithNack, ..PeerConfig::default() };
    let mut link = Link::new(config);
    let a = link.server.spawn((Position(0.0, 0.0), Replicated));
    link.frame(true);
    link.server.get_mut::<Position>(a).unwrap().0 = 1.0;
    link.replicator.update(&link.server);
    let mut lost = Vec::new();
    let info = link.replicator.write_delta(&link.server, link.peer, &mut lost).unwrap();
    // The next delta does not carry what the lost one did...
    let (bytes, _) = link.frame(true);
    assert_eq!(delta_to_json(link.replicator.registry(), &bytes).unwrap()["records"].as_array().unwrap().len(), 0);
    assert_eq!(link.client.get::<Position>(link.local(a).unwrap()).unwrap().0, 0.0);
    // ...but once the loss is known (a later delta was acknowledged), it is re-sent.
    link.replicator.nack(link.peer, info.seq).unwrap(); // already counted lost: no effect
    let (bytes, _) = link.frame(true);
    assert_eq!(delta_to_json(link.replicator.registry(), &bytes).unwrap()["records"].as_array().unwrap().len(), 1);
    link.assert_mirrored(everything);
    // The lost delta arriving now is stale and changes nothing.
    assert_eq!(link.receiver.apply_delta(&mut link.client, &lost).unwrap(), Applied::Stale { seq: info.seq });
    link.assert_mirrored(everything);
}

#[test]
fn duplicated_and_reordered_deltas_are_ignored() {
    let mut link = Link::new(PeerConfig::default());
    let a = link.server.spawn((Position(0.0, 0.0), Replicated));
    link.frame(true);
    let mut deltas = Vec::new();
    for x in 1..=3 {
        link.server.get_mut::<Position>(a).unwrap().0 = x as f32;
        deltas.push(link.frame(false).0);
    }
    let local = |link: &Link| link.client.get::<Position>(link.local(a).unwrap()).unwrap().0;
    assert!(matches!(link.receiver.apply_delta(&mut link.client, &deltas[2]).unwrap(), Applied::Applied { .. }));
    assert_eq!(local(&link), 3.0);
    for old in [&deltas[0], &deltas[1], &deltas[2]] {
        assert!(matches!(link.receiver.apply_delta(&mut link.client, old).unwrap(), Applied::Stale { .. }));
    }
    assert_eq!(local(&link), 3.0, "an older delta does not roll the value back");
}

#[test]
fn a_refused_delta_changes_nothing() {
    let mut link = Link::new(PeerConfig::default());
    let a = link.server.spawn((Position(1.0, 1.0), Replicated));
    link.frame(true);
    link.server.get_mut::<Position>(a).unwrap().0 = 2.0;
    link.server.spawn((Position(3.0, 3.0), Health(4), Replicated));
    let (bytes, _) = link.frame(false);
    let before = (link.client.len(), link.receiver.entity_map().len(), link.receiver.last_applied());
    let snapshot = |link: &Link| link.client.get::<Position>(link.local(a).unwrap()).copied().unwrap();
    // Every truncation is refused, and leaves the client as it was.
    for cut in 0..bytes.len() {
        let error = link.receiver.apply_delta(&mut link.client, &bytes[..cut]).unwrap_err();
        assert!(!error.to_string().is_empty());
        assert_eq!((link.client.len(), link.receiver.entity_map().len(), link.receiver.last_applied()), before);
        assert_eq!(snapshot(&link), Position(1.0, 1.0));
    }
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(matches!(link.receiver.apply_delta(&mut link.client, &extra), Err(DeltaError::Malformed { .. })));
    assert_eq!(link.receiver.apply_delta(&mut link.client, b"hello"), Err(DeltaError::NotADelta));
    // Another registry's receiver refuses it.
    let mut other = SceneRegistry::new();
    other.component::<Position>("position").unwrap();
    let mut stranger = DeltaReceiver::new(other).unwrap();
    assert!(matches!(stranger.apply_delta(&mut World::new(), &bytes), Err(DeltaError::Schema { .. })));
    // The intact delta still applies.
    link.receiver.apply_delta(&mut link.client, &bytes).unwrap();
    link.assert_mirrored(everything);
}

#[test]
fn a_peer_sees_only_its_view_and_what_leaves_it_is_hidden() {
    let config = PeerConfig { visibility: Visibility::with::<Near>(), ..PeerConfig::default() };
    let mut link = Link::new(config);
    let near = link.server.spawn((Position(1.0, 0.0), Replicated, Near));
    let far = link.server.spawn((Position(9.0, 0.0), Replicated));
    link.frame(true);
    let sees = |world: &World, e: Entity| world.get::<Near>(e).is_ok();
    link.assert_mirrored(sees);
    assert!(link.local(far).is_none());
    link.server.remove::<(Near,)>(near).unwrap();
    link.server.insert(far, (Near,)).unwrap();
    link.frame(true);
    link.assert_mirrored(sees);
    let hidden = link.local(near).unwrap();
    assert_eq!(link.client.entity(hidden).unwrap().component_names().count(), 0, "an empty stand-in");
    link.server.insert(near, (Near,)).unwrap();
    link.frame(true);
    link.assert_mirrored(sees);
    assert_eq!(link.local(near), Some(hidden), "it comes back as the same local entity");
}

#[test]
fn children_keep_the_senders_order() {
    let mut link = Link::new(PeerConfig::default());
    let parent = link.server.spawn((Position(0.0, 0.0), Replicated));
    let kids: Vec<Entity> = (0..4).map(|i| link.server.spawn((Position(i as f32, 0.0), Replicated))).collect();
    for &kid in kids.iter().rev() {
        link.server.set_parent(kid, parent).unwrap();
    }
    link.frame(true);
    // Detach and reattach one: it moves to the end.
    link.server.remove_parent(kids[2]).unwrap();
    link.server.set_parent(kids[2], parent).unwrap();
    link.frame(true);
    let expected: Vec<Entity> =
        link.server.children(parent).unwrap().iter().map(|&kid| link.local(kid).unwrap()).collect();
    assert_eq!(link.client.children(link.local(parent).unwrap()).unwrap(), &expected[..]);
    link.assert_mirrored(everything);
}

#[test]
fn the_sender_overrides_local_changes_and_the_receiver_sees_them_as_changes() {
    let mut link = Link::new(PeerConfig::default());
    let a = link.server.spawn((Position(0.0, 0.0), Replicated));
    link.frame(true);
    let local = link.local(a).unwrap();
    let mut changed = link.client.query_filtered::<Entity, ripple::query::Changed<Position>>();
    assert_eq!(changed.iter(&link.client).count(), 1, "added");
    link.client.get_mut::<Position>(local).unwrap().0 = 100.0;
    link.client.insert(local, (Secret(1),)).unwrap();
    assert_eq!(changed.iter(&link.client).count(), 1);
    link.server.get_mut::<Position>(a).unwrap().0 = 7.0;
    link.frame(true);
    assert_eq!(changed.iter(&link.client).collect::<Vec<_>>(), [local]);
    assert_eq!(link.client.get::<Position>(local).unwrap().0, 7.0, "server authority");
    assert_eq!(link.client.get::<Secret>(local).unwrap(), &Secret(1), "what is not replicated stays");
}

#[test]
fn peers_with_the_same_history_get_the_same_bytes_and_a_removed_peers_id_names_nothing() {
    let mut server = World::new();
    let mut replicator = Replicator::new(&mut server, registry()).unwrap();
    let peers: Vec<PeerId> = (0..3).map(|_| replicator.add_peer(&mut server, PeerConfig::default())).collect();
    let e = server.spawn((Position(0.0, 0.0), Replicated));
    let mut receivers: Vec<(World, DeltaReceiver)> =
        (0..3).map(|_| (World::new(), DeltaReceiver::new(registry()).unwrap())).collect();
    for frame in 0..4 {
        server.get_mut::<Position>(e).unwrap().0 = frame as f32;
        replicator.update(&server);
        let mut bodies = Vec::new();
        for (&peer, (world, receiver)) in peers.iter().zip(&mut receivers) {
            let mut bytes = Vec::new();
            let info = replicator.write_delta(&server, peer, &mut bytes).unwrap();
            receiver.apply_delta(world, &bytes).unwrap();
            replicator.ack(peer, info.seq).unwrap();
            bodies.push(bytes);
        }
        assert!(bodies.windows(2).all(|w| w[0] == w[1]), "same window, same handles, same bytes");
        for (&peer, (world, receiver)) in peers.iter().zip(&receivers) {
            let handle = replicator.peer_handle(peer, e).unwrap().unwrap();
            assert_eq!(world.get::<Position>(receiver.entity_map().get(handle).unwrap()).unwrap().0, frame as f32);
        }
    }
    assert!(replicator.remove_peer(peers[0]));
    assert!(!replicator.remove_peer(peers[0]), "removed once");
    let mut bytes = Vec::new();
    assert_eq!(
        replicator.write_delta(&server, peers[0], &mut bytes),
        Err(ripple::replicate::ReplicateError::NoSuchPeer { peer: 0 })
    );
    assert!(bytes.is_empty());
}

/// How far the filtered peer sees.
struct Radius(f32);

#[test]
fn a_filter_that_reads_other_state_is_asked_again_on_refresh() {
    let near = |world: &World, e: Entity| {
        let radius = world.resource::<Radius>().map_or(0.0, |r| r.0);
        world.get::<Position>(e).is_ok_and(|p| p.0 <= radius)
    };
    let config = PeerConfig { visibility: Visibility::filter(near), ..PeerConfig::default() };
    let mut link = Link::new(config);
    link.server.insert_resource(Radius(1.0));
    let a = link.server.spawn((Position(0.5, 0.0), Replicated));
    let b = link.server.spawn((Position(5.0, 0.0), Replicated));
    link.frame(true);
    link.assert_mirrored(near);
    assert!(link.local(b).is_none());
    link.server.insert_resource(Radius(10.0));
    link.frame(true);
    assert!(link.local(b).is_none(), "nothing touched b: the filter was not asked");
    link.replicator.refresh_visibility(link.peer).unwrap();
    link.frame(false); // the refresh is lost...
    let (bytes, _) = link.frame(true); // ...and asked again
    assert!(link.local(b).is_some(), "{}", delta_to_json(link.replicator.registry(), &bytes).unwrap());
    link.assert_mirrored(near);
    link.server.insert_resource(Radius(0.0));
    link.replicator.refresh_visibility(link.peer).unwrap();
    link.frame(true);
    link.assert_mirrored(near);
    assert_eq!(link.client.entity(link.local(a).unwrap()).unwrap().component_names().count(), 0, "hidden");
}
