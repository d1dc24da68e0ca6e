//! Model test of replication over a bad link: random edits on the server, deltas to
//! four peers (both acknowledgement modes, all entities or a filtered view) over a
//! link that loses, duplicates and reorders messages and acknowledgements. Once the
//! link heals, every client equals the server on every replicated component, entity
//! references and children order included.

use proptest::prelude::*;
use ripple::{
    AckMode, Applied, ChildOf, DeltaReceiver, Entity, PeerConfig, PeerId, Replicated, Replicator, SceneRegistry,
    Visibility, World,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct Position(i32);

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct Health(u32);

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
struct Target(Entity);

struct Near;

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry.component::<Position>("position").unwrap();
    registry.component::<Health>("health").unwrap();
    registry.component::<Target>("target").unwrap();
    registry.component::<ChildOf>("child_of").unwrap();
    registry
}

#[derive(Clone, Debug)]
enum Edit {
    Spawn { replicated: bool, health: Option<u32>, near: bool },
    Despawn(usize),
    Move(usize, i32),
    SetHealth(usize, u32),
    RemoveHealth(usize),
    Aim(usize, usize),
    Parent(usize, usize),
    Unparent(usize),
    ToggleReplicated(usize),
    ToggleNear(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<bool>(), proptest::option::of(0u32..10), any::<bool>())
            .prop_map(|(replicated, health, near)| Edit::Spawn { replicated: replicated || health.is_some(), health, near }),
        1 => any::<usize>().prop_map(Edit::Despawn),
        4 => (any::<usize>(), -50i32..50).prop_map(|(e, x)| Edit::Move(e, x)),
        2 => (any::<usize>(), 0u32..10).prop_map(|(e, h)| Edit::SetHealth(e, h)),
        1 => any::<usize>().prop_map(Edit::RemoveHealth),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(e, t)| Edit::Aim(e, t)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(c, p)| Edit::Parent(c, p)),
        1 => any::<usize>().prop_map(Edit::Unparent),
        1 => any::<usize>().prop_map(Edit::ToggleReplicated),
        1 => any::<usize>().prop_map(Edit::ToggleNear),
    ]
}

/// What the link does to one message.
#[derive(Clone, Copy, Debug)]
enum Fate {
    Deliver,
    Lose,
    Duplicate,
    Delay,
}

fn fate() -> impl Strategy<Value = Fate> {
    prop_oneof![6 => Just(Fate::Deliver), 2 => Just(Fate::Lose), 1 => Just(Fate::Duplicate), 1 => Just(Fate::Delay)]
}

fn pick(alive: &[Entity], k: usize) -> Option<Entity> {
    (!alive.is_empty()).then(|| alive[k % alive.len()])
}

fn apply(world: &mut World, alive: &mut Vec<Entity>, edit: &Edit) {
    match *edit {
        Edit::Spawn { replicated, health, near } => {
            let e = world.spawn((Position(0),));
            if replicated {
                world.insert(e, (Replicated,)).unwrap();
            }
            if let Some(h) = health {
                world.insert(e, (Health(h),)).unwrap();
            }
            if near {
                world.insert(e, (Near,)).unwrap();
            }
            alive.push(e);
        }
        Edit::Despawn(k) => {
            if let Some(e) = pick(alive, k) {
                world.despawn(e).unwrap();
            }
        }
        Edit::Move(k, x) => {
            if let Some(e) = pick(alive, k) {
                world.get_mut::<Position>(e).unwrap().0 = x;
            }
        }
        Edit::SetHealth(k, h) => {
            if let Some(e) = pick(alive, k) {
                world.insert(e, (Health(h),)).unwrap();
            }
        }
        Edit::RemoveHealth(k) => {
            if let Some(e) = pick(alive, k) {
                let _ = world.remove::<(Health,)>(e);
            }
        }
        Edit::Aim(k, t) => {
            if let (Some(e), Some(t)) = (pick(alive, k), pick(alive, t)) {
                world.insert(e, (Target(t),)).unwrap();
            }
        }
        Edit::Parent(c, p) => {
            if let (Some(c), Some(p)) = (pick(alive, c), pick(alive, p)) {
                let _ = world.set_parent(c, p); // a cycle is refused
            }
        }
        Edit::Unparent(c) => {
            if let Some(c) = pick(alive, c) {
                world.remove_parent(c).unwrap();
            }
        }
        Edit::ToggleReplicated(k) => {
            if let Some(e) = pick(alive, k) {
                if world.remove::<(Replicated,)>(e).is_err() {
                    world.insert(e, (Replicated,)).unwrap();
                }
            }
        }
        Edit::ToggleNear(k) => {
            if let Some(e) = pick(alive, k) {
                if world.remove::<(Near,)>(e).is_err() {
                    world.insert(e, (Near,)).unwrap();
                }
            }
        }
    }
    alive.retain(|&e| world.contains(e));
}

struct Client {
    peer: PeerId,
    world: World,
    receiver: DeltaReceiver,
    /// Messages on their way: (delta bytes).
    inbox: Vec<Vec<u8>>,
    /// Acknowledgements on their way back.
    acks: Vec<u64>,
    sees: fn(&World, Entity) -> bool,
}

fn sees_all(_: &World, _: Entity) -> bool {
    true
}

fn sees_near(world: &World, e: Entity) -> bool {
    world.get::<Near>(e).is_ok()
}

fn sees_healthy(world: &World, e: Entity) -> bool {
    world.get::<Health>(e).is_ok_and(|h| h.0 >= 5)
}

/// Delivers `client`'s inbox (or, `fates` given, what the link lets through) and
/// sends back its acknowledgements.
fn deliver(client: &mut Client, fates: Option<&mut dyn Iterator<Item = Fate>>) {
    let mut inbox = std::mem::take(&mut client.inbox);
    let mut later = Vec::new();
    let mut arriving = Vec::new();
    match fates {
        None => arriving = inbox,
        Some(fates) => {
            for message in inbox.drain(..) {
                match fates.next().unwrap_or(Fate::Deliver) {
                    Fate::Deliver => arriving.push(message),
                    Fate::Lose => {}
                    Fate::Duplicate => {
                        arriving.push(message.clone());
                        later.push(message);
                    }
                    Fate::Delay => later.push(message),
                }
            }
        }
    }
    for message in arriving {
        match client.receiver.apply_delta(&mut client.world, &message).expect("a delta from the replicator") {
            Applied::Applied { seq, .. } => client.acks.push(seq),
            Applied::Stale { .. } => {}
        }
    }
    client.inbox = later;
}

fn check(server: &World, alive: &[Entity], client: &Client) -> Result<(), TestCaseError> {
    let map = client.receiver.entity_map();
    let local = |e: Entity| map.get(e).filter(|&l| client.world.contains(l));
    let mut twins = 0;
    for (remote, here) in map.iter() {
        if !client.world.contains(here) {
            continue;
        }
        let visible =
            server.contains(remote) && server.get::<Replicated>(remote).is_ok() && (client.sees)(server, remote);
        if !visible {
            let w = &client.world;
            let replicated = w.get::<Position>(here).is_ok()
                || w.get::<Health>(here).is_ok()
                || w.get::<Target>(here).is_ok()
                || w.get::<ChildOf>(here).is_ok();
            prop_assert!(
                !replicated,
                "{} lingers on {:?} with {:?}",
                remote,
                client.peer,
                w.entity(here).unwrap().component_names().collect::<Vec<_>>()
            );
            continue;
        }
        twins += 1;
        let at = format!("{remote} for {:?}", client.peer);
        prop_assert_eq!(client.world.get::<Position>(here).ok(), server.get::<Position>(remote).ok(), "{}", at);
        prop_assert_eq!(client.world.get::<Health>(here).ok(), server.get::<Health>(remote).ok(), "{}", at);
        let target = server.get::<Target>(remote).ok().map(|t| local(t.0));
        // A reference to a despawned entity names a dead local entity or an empty
        // stand-in; any other names the local entity that stands for it.
        match server.get::<Target>(remote) {
            Ok(t) if !server.contains(t.0) => {
                let here_t = client.world.get::<Target>(here).unwrap().0;
                let empty = !client.world.contains(here_t)
                    || client.world.entity(here_t).unwrap().component_names().count()
                        == usize::from(client.world.get::<ripple::Children>(here_t).is_ok());
                prop_assert!(empty, "a reference to despawned {} names a live replica", t.0);
            }
            _ => prop_assert_eq!(
                client.world.get::<Target>(here).ok().map(|t| Some(t.0)),
                target,
                "target of {} for {:?}",
                remote,
                client.peer
            ),
        }
        let parent = server.get::<ChildOf>(remote).ok().map(|c| local(c.0));
        prop_assert_eq!(client.world.get::<ChildOf>(here).ok().map(|c| Some(c.0)), parent, "parent of {}", remote);
        // Children in the server's order, among those the client holds.
        let seen = |c: Entity| server.get::<Replicated>(c).is_ok() && (client.sees)(server, c);
        let expected: Vec<Entity> =
            server.children(remote).unwrap_or(&[]).iter().filter(|&&c| seen(c)).filter_map(|&c| local(c)).collect();
        let actual: Vec<Entity> = client.world.children(here).unwrap_or(&[]).to_vec();
        let actual: Vec<Entity> = actual.into_iter().filter(|l| expected.contains(l)).collect();
        prop_assert_eq!(actual, expected, "children of {} for {:?}", remote, client.peer);
    }
    let visible =
        alive.iter().copied().filter(|&e| server.get::<Replicated>(e).is_ok() && (client.sees)(server, e)).count();
    prop_assert_eq!(twins, visible, "twins for {:?}", client.peer);
    Ok(())
}

type Frame = (Vec<Edit>, Vec<Fate>, Vec<Fate>);

/// A peer's mode, its visibility, and what the checks take it to see.
type PeerSetup = (AckMode, fn() -> Visibility, fn(&World, Entity) -> bool);

fn frame() -> impl Strategy<Value = Frame> {
    (
        proptest::collection::vec(edit(), 0..6),
        proptest::collection::vec(fate(), 4),
        proptest::collection::vec(fate(), 4),
    )
}

fn run(frames: &[Frame]) -> Result<(), TestCaseError> {
    let mut server = World::new();
    let mut replicator = Replicator::new(&mut server, registry()).unwrap();
    let configs: [PeerSetup; 4] = [
        (AckMode::SinceLastAck, Visibility::all, sees_all),
        (AckMode::SinceLastSendWithNack, Visibility::all, sees_all),
        (AckMode::SinceLastAck, Visibility::with::<Near>, sees_near),
        (AckMode::SinceLastSendWithNack, || Visibility::filter(sees_healthy), sees_healthy),
    ];
    let mut clients: Vec<Client> = configs
        .iter()
        .map(|&(mode, visibility, sees)| Client {
            peer: replicator.add_peer(&mut server, PeerConfig { mode, visibility: visibility() }),
            world: World::new(),
            receiver: DeltaReceiver::new(registry()).unwrap(),
            inbox: Vec::new(),
            acks: Vec::new(),
            sees,
        })
        .collect();
    let mut alive = Vec::new();
    for (edits, deltas, acks) in frames {
        for edit in edits {
            apply(&mut server, &mut alive, edit);
        }
        replicator.update(&server);
        for client in &mut clients {
            let mut bytes = Vec::new();
            replicator.write_delta(&server, client.peer, &mut bytes).unwrap();
            client.inbox.push(bytes);
            deliver(client, Some(&mut deltas.iter().copied()));
            // Acknowledgements cross the same link back.
            let mut ack_fates = acks.iter().copied();
            for seq in std::mem::take(&mut client.acks) {
                match ack_fates.next().unwrap_or(Fate::Deliver) {
                    Fate::Lose | Fate::Delay => {}
                    Fate::Deliver | Fate::Duplicate => replicator.ack(client.peer, seq),
                }
            }
        }
    }
    // The link heals: a few frames delivered in order, every acknowledgement back.
    for _ in 0..3 {
        replicator.update(&server);
        for client in &mut clients {
            client.inbox.clear();
            let mut bytes = Vec::new();
            replicator.write_delta(&server, client.peer, &mut bytes).unwrap();
            client.inbox.push(bytes);
            deliver(client, None);
            for seq in std::mem::take(&mut client.acks) {
                replicator.ack(client.peer, seq);
            }
        }
    }
    for client in &clients {
        check(&server, &alive, client)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn clients_equal_the_server_once_the_link_heals(frames in proptest::collection::vec(frame(), 1..25)) {
        run(&frames)?;
    }
}
