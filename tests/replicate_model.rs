//! Model test of replication over a bad link: random edits on the server (spawns,
//! despawns, values, references, parents, children reordered in place, view changes,
//! a resource that filters read) and deltas to six peers (both acknowledgement modes;
//! all entities, a marker, a filter on the entity, a filter that reads a resource and
//! is refreshed when it changes) over a link that loses, duplicates, delays and
//! reorders deltas, acknowledgements and loss reports.
//!
//! Once the link heals, every client equals the server on every replicated component
//! of the entities in its view, entity references and children order included, and
//! holds nothing of the others. Throughout, nothing a client received names an entity
//! outside its view: every record with values is of an entity the peer saw when the
//! delta was written, every hidden or despawned one of an entity it saw before, and
//! every children order lists only children it saw.

use std::collections::HashSet;

use proptest::prelude::*;
use ripple::hierarchy::ChildOf;
use ripple::replicate::{
    AckMode, Applied, DeltaReceiver, PeerConfig, PeerId, Replicated, Replicator, Visibility, delta_to_json,
};
use ripple::{Entity, World};

#[path = "support/replicated.rs"]
mod replicated;

use replicated::{Health, Near, Position, Radius, Target, registry};

#[derive(Clone, Debug)]
enum Edit {
    Spawn {
        replicated: bool,
        health: Option<u32>,
        near: bool,
    },
    Despawn(usize),
    DespawnMany(usize, usize),
    Move(usize, i32),
    SetHealth(usize, u32),
    RemoveHealth(usize),
    Aim(usize, usize),
    Parent(usize, usize),
    Unparent(usize),
    /// A child of the entity's moves to the front of its children, in place.
    ReorderFirst(usize, usize),
    /// The entity's children, reversed (the same set).
    ReverseChildren(usize),
    ToggleReplicated(usize),
    ToggleNear(usize),
    /// The resource the radius filters read changes (and they are refreshed).
    SetRadius(i32),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<bool>(), proptest::option::of(0u32..10), any::<bool>())
            .prop_map(|(replicated, health, near)| Edit::Spawn { replicated: replicated || health.is_some(), health, near }),
        1 => any::<usize>().prop_map(Edit::Despawn),
        1 => (any::<usize>(), 1usize..6).prop_map(|(e, n)| Edit::DespawnMany(e, n)),
        4 => (any::<usize>(), -50i32..50).prop_map(|(e, x)| Edit::Move(e, x)),
        2 => (any::<usize>(), 0u32..10).prop_map(|(e, h)| Edit::SetHealth(e, h)),
        1 => any::<usize>().prop_map(Edit::RemoveHealth),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(e, t)| Edit::Aim(e, t)),
        4 => (any::<usize>(), any::<usize>()).prop_map(|(c, p)| Edit::Parent(c, p)),
        1 => any::<usize>().prop_map(Edit::Unparent),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(p, c)| Edit::ReorderFirst(p, c)),
        1 => any::<usize>().prop_map(Edit::ReverseChildren),
        1 => any::<usize>().prop_map(Edit::ToggleReplicated),
        1 => any::<usize>().prop_map(Edit::ToggleNear),
        2 => (0i32..50).prop_map(Edit::SetRadius),
    ]
}

/// What the link does to one message.
#[derive(Clone, Copy, Debug)]
enum Fate {
    Deliver,
    Lose,
    Duplicate,
    /// Arrives a frame later (after the next frame's messages: reordered).
    Delay,
}

fn fate() -> impl Strategy<Value = Fate> {
    prop_oneof![6 => Just(Fate::Deliver), 2 => Just(Fate::Lose), 1 => Just(Fate::Duplicate), 2 => Just(Fate::Delay)]
}

fn pick(alive: &[Entity], k: usize) -> Option<Entity> {
    (!alive.is_empty()).then(|| alive[k % alive.len()])
}

/// The entities with children.
fn parents(world: &World, alive: &[Entity]) -> Vec<Entity> {
    alive.iter().copied().filter(|&e| world.children(e).is_ok_and(|c| !c.is_empty())).collect()
}

/// Applies `edit`; returns whether the radius changed.
fn apply(world: &mut World, alive: &mut Vec<Entity>, edit: &Edit) -> bool {
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
        Edit::DespawnMany(k, n) => {
            for i in 0..n {
                if let Some(e) = pick(alive, k + i).filter(|&e| world.contains(e)) {
                    world.despawn(e).unwrap();
                }
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
        Edit::ReorderFirst(p, c) => {
            if let Some(p) = pick(&parents(world, alive), p) {
                let children = world.children(p).map(<[Entity]>::to_vec).unwrap_or_default();
                if let Some(c) = pick(&children, c) {
                    world.insert_children(p, 0, &[c]).unwrap();
                }
            }
        }
        Edit::ReverseChildren(p) => {
            if let Some(p) = pick(&parents(world, alive), p) {
                let mut children = world.children(p).map(<[Entity]>::to_vec).unwrap_or_default();
                children.reverse();
                world.replace_children(p, &children).unwrap();
            }
        }
        Edit::ToggleReplicated(k) => {
            if let Some(e) = pick(alive, k)
                && world.remove::<(Replicated,)>(e).is_err()
            {
                world.insert(e, (Replicated,)).unwrap();
            }
        }
        Edit::ToggleNear(k) => {
            if let Some(e) = pick(alive, k)
                && world.remove::<(Near,)>(e).is_err()
            {
                world.insert(e, (Near,)).unwrap();
            }
        }
        Edit::SetRadius(r) => {
            world.insert_resource(Radius(r));
            alive.retain(|&e| world.contains(e));
            return true;
        }
    }
    alive.retain(|&e| world.contains(e));
    false
}

/// A message on its way to the client: a delta, and its sequence number.
type Message = (u64, Vec<u8>);

/// A message on its way back: an acknowledgement or a loss report.
#[derive(Clone, Copy, Debug)]
enum Report {
    Ack(u64),
    Nack(u64),
}

struct Client {
    peer: PeerId,
    mode: AckMode,
    world: World,
    receiver: DeltaReceiver,
    inbox: Vec<Message>,
    /// Reports on their way back, delayed ones first.
    reports: Vec<Report>,
    sees: fn(&World, Entity) -> bool,
    /// Whether the view depends on the radius (refreshed when it changes).
    radius: bool,
    /// Server entities the peer saw at some delta's writing.
    ever_seen: HashSet<Entity>,
    /// Server entities values it was sent referred to.
    referenced: HashSet<Entity>,
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

fn sees_within(world: &World, e: Entity) -> bool {
    let radius = world.resource::<Radius>().map_or(0, |r| r.0);
    world.get::<Position>(e).is_ok_and(|p| p.0.abs() <= radius)
}

fn in_view(world: &World, client: &Client, e: Entity) -> bool {
    world.contains(e) && world.get::<Replicated>(e).is_ok() && (client.sees)(world, e)
}

fn parse_handle(text: &str) -> Entity {
    let (index, generation) = text.split_once('v').unwrap();
    let bits = (generation.parse::<u64>().unwrap() << 32) | index.parse::<u64>().unwrap();
    Entity::from_bits(bits).unwrap()
}

/// Checks what a delta just written for `client` names: nothing outside its view.
fn check_names(
    server: &World,
    replicator: &Replicator,
    client: &mut Client,
    bytes: &[u8],
) -> Result<(), TestCaseError> {
    let json = delta_to_json(replicator.registry(), bytes).unwrap();
    let entity = |text: &str| replicator.entity_of(client.peer, parse_handle(text)).unwrap();
    for record in json["records"].as_array().unwrap() {
        let named = entity(record["entity"].as_str().unwrap());
        prop_assert!(named.is_some(), "a record names a handle the peer was never given: {}", record);
        let named = named.unwrap();
        let values =
            !record["set"].as_object().unwrap().is_empty() || !record["removed"].as_array().unwrap().is_empty();
        if values || record["full"].as_bool().unwrap() {
            prop_assert!(in_view(server, client, named), "{:?} gets values of {} outside its view", client.peer, named);
            client.ever_seen.insert(named);
            for value in record["set"].as_object().unwrap().values() {
                // Entity fields: a target, a parent (the peer's handles as text).
                if let Some(text) = value.as_str().or_else(|| value.get(0).and_then(|v| v.as_str())) {
                    client.referenced.extend(entity(text));
                }
            }
        } else {
            // Hidden: only what it saw. Despawned: what it saw or holds a stand-in of.
            let hidden = record["hidden"].as_bool().unwrap();
            prop_assert!(
                client.ever_seen.contains(&named) || (!hidden && client.referenced.contains(&named)),
                "{:?} hears that {} left, which it never saw: {}",
                client.peer,
                named,
                record
            );
        }
    }
    for order in json["orders"].as_array().unwrap() {
        for child in order["children"].as_array().unwrap() {
            let child = entity(child.as_str().unwrap());
            prop_assert!(
                child.is_some_and(|c| in_view(server, client, c)),
                "{:?} gets a children order naming {:?} outside its view",
                client.peer,
                child
            );
        }
    }
    Ok(())
}

/// Delivers `client`'s inbox (what `fates` lets through, all of it when `None`), and
/// queues its reports back: acknowledgements of what applied, and (for peers that
/// report losses) the sequence numbers it found missing.
fn deliver(client: &mut Client, fates: Option<&mut dyn Iterator<Item = Fate>>) {
    let inbox = std::mem::take(&mut client.inbox);
    let mut later = Vec::new();
    let mut arriving = Vec::new();
    match fates {
        None => arriving = inbox,
        Some(fates) => {
            for message in inbox {
                match fates.next().unwrap_or(Fate::Deliver) {
                    Fate::Deliver => arriving.push(message),
                    Fate::Lose => {
                        if client.mode == AckMode::SinceLastSendWithNack {
                            client.reports.push(Report::Nack(message.0));
                        }
                    }
                    Fate::Duplicate => {
                        arriving.push(message.clone());
                        later.push(message);
                    }
                    Fate::Delay => later.push(message),
                }
            }
        }
    }
    for (_, bytes) in arriving {
        match client.receiver.apply_delta(&mut client.world, &bytes).expect("a delta from the replicator") {
            Applied::Applied { seq, .. } => client.reports.push(Report::Ack(seq)),
            Applied::Stale { .. } | Applied::AwaitingSnapshot { .. } => {}
        }
    }
    client.inbox = later;
}

/// Sends `client`'s reports through `fates` (all when `None`); delayed ones wait for
/// the next frame, behind that frame's.
fn report(replicator: &mut Replicator, client: &mut Client, fates: Option<&mut dyn Iterator<Item = Fate>>) {
    let reports = std::mem::take(&mut client.reports);
    let mut later = Vec::new();
    let mut fates = fates;
    for message in reports {
        let fate = fates.as_mut().map_or(Fate::Deliver, |f| f.next().unwrap_or(Fate::Deliver));
        let send = |replicator: &mut Replicator| match message {
            Report::Ack(seq) => replicator.ack(client.peer, seq).unwrap(),
            Report::Nack(seq) => replicator.nack(client.peer, seq).unwrap(),
        };
        match fate {
            Fate::Deliver => send(replicator),
            Fate::Lose => {}
            Fate::Duplicate => {
                send(replicator);
                send(replicator);
            }
            Fate::Delay => later.push(message),
        }
    }
    client.reports = later;
}

fn check(server: &World, replicator: &Replicator, alive: &[Entity], client: &Client) -> Result<(), TestCaseError> {
    let map = client.receiver.entity_map();
    let local = |e: Entity| {
        let handle = replicator.peer_handle(client.peer, e).unwrap()?;
        map.get(handle).filter(|&l| client.world.contains(l))
    };
    let mut twins = 0;
    for (handle, here) in map.iter() {
        if !client.world.contains(here) {
            continue;
        }
        let remote = replicator.entity_of(client.peer, handle).unwrap();
        let Some(remote) = remote.filter(|&remote| in_view(server, client, remote)) else {
            let w = &client.world;
            let replicated = w.get::<Position>(here).is_ok()
                || w.get::<Health>(here).is_ok()
                || w.get::<Target>(here).is_ok()
                || w.get::<ChildOf>(here).is_ok();
            prop_assert!(
                !replicated,
                "{} ({:?}) lingers on {:?} with {:?}",
                handle,
                remote,
                client.peer,
                w.entity(here).unwrap().component_names().collect::<Vec<_>>()
            );
            continue;
        };
        twins += 1;
        let at = format!("{remote} for {:?}", client.peer);
        prop_assert_eq!(client.world.get::<Position>(here).ok(), server.get::<Position>(remote).ok(), "{}", at);
        prop_assert_eq!(client.world.get::<Health>(here).ok(), server.get::<Health>(remote).ok(), "{}", at);
        // A reference to a despawned entity names a dead local entity or an empty
        // stand-in; any other names the local entity that stands for it.
        match server.get::<Target>(remote) {
            Ok(t) if !server.contains(t.0) => {
                let here_t = client.world.get::<Target>(here).unwrap().0;
                let empty = !client.world.contains(here_t)
                    || client.world.entity(here_t).unwrap().component_names().count()
                        == usize::from(client.world.get::<ripple::hierarchy::Children>(here_t).is_ok());
                prop_assert!(empty, "a reference to despawned {} names a live replica", t.0);
            }
            target => prop_assert_eq!(
                client.world.get::<Target>(here).ok().map(|t| Some(t.0)),
                target.ok().map(|t| local(t.0)),
                "target of {} for {:?}",
                remote,
                client.peer
            ),
        }
        let parent = server.get::<ChildOf>(remote).ok().map(|c| local(c.0));
        prop_assert_eq!(client.world.get::<ChildOf>(here).ok().map(|c| Some(c.0)), parent, "parent of {}", remote);
        // Children in the server's order, among those the client holds.
        let expected: Vec<Entity> = server
            .children(remote)
            .unwrap_or(&[])
            .iter()
            .filter(|&&c| in_view(server, client, c))
            .filter_map(|&c| local(c))
            .collect();
        let actual: Vec<Entity> = client.world.children(here).unwrap_or(&[]).to_vec();
        let actual: Vec<Entity> = actual.into_iter().filter(|l| expected.contains(l)).collect();
        prop_assert_eq!(actual, expected, "children of {} for {:?}", remote, client.peer);
    }
    let visible = alive.iter().filter(|&&e| in_view(server, client, e)).count();
    prop_assert_eq!(twins, visible, "twins for {:?}", client.peer);
    Ok(())
}

type Frame = (Vec<Edit>, Vec<Fate>, Vec<Fate>);

/// A peer's mode, its visibility, what the checks take it to see, and whether its
/// view reads the radius.
type PeerSetup = (AckMode, fn() -> Visibility, fn(&World, Entity) -> bool, bool);

fn frame() -> impl Strategy<Value = Frame> {
    (
        proptest::collection::vec(edit(), 0..6),
        proptest::collection::vec(fate(), 4),
        proptest::collection::vec(fate(), 4),
    )
}

/// Writes `client`'s next delta, checks what it names, and puts it on the link.
fn send(server: &World, replicator: &mut Replicator, client: &mut Client) -> Result<(), TestCaseError> {
    let mut bytes = Vec::new();
    let info = replicator.write_delta(server, client.peer, &mut bytes).unwrap();
    check_names(server, replicator, client, &bytes)?;
    client.inbox.push((info.seq, bytes));
    Ok(())
}

fn run(frames: &[Frame]) -> Result<(), TestCaseError> {
    let mut server = World::new();
    server.insert_resource(Radius(10));
    let mut replicator = Replicator::new(&mut server, registry()).unwrap();
    let configs: [PeerSetup; 6] = [
        (AckMode::SinceLastAck, Visibility::all, sees_all, false),
        (AckMode::SinceLastSendWithNack, Visibility::all, sees_all, false),
        (AckMode::SinceLastAck, Visibility::with::<Near>, sees_near, false),
        (AckMode::SinceLastSendWithNack, || Visibility::filter(sees_healthy), sees_healthy, false),
        (AckMode::SinceLastAck, || Visibility::filter(sees_within), sees_within, true),
        (AckMode::SinceLastSendWithNack, || Visibility::filter(sees_within), sees_within, true),
    ];
    let mut clients: Vec<Client> = configs
        .iter()
        .map(|&(mode, visibility, sees, radius)| Client {
            peer: replicator.add_peer(&mut server, PeerConfig { mode, visibility: visibility() }),
            mode,
            world: World::new(),
            receiver: DeltaReceiver::new(registry()).unwrap(),
            inbox: Vec::new(),
            reports: Vec::new(),
            sees,
            radius,
            ever_seen: HashSet::new(),
            referenced: HashSet::new(),
        })
        .collect();
    let mut alive = Vec::new();
    for (edits, deltas, acks) in frames {
        let mut radius_changed = false;
        for edit in edits {
            radius_changed |= apply(&mut server, &mut alive, edit);
        }
        replicator.update(&server);
        for client in &mut clients {
            if radius_changed && client.radius {
                replicator.refresh_visibility(client.peer).unwrap();
            }
            send(&server, &mut replicator, client)?;
            deliver(client, Some(&mut deltas.iter().copied()));
            report(&mut replicator, client, Some(&mut acks.iter().copied()));
        }
    }
    // The link heals: what was delayed arrives, then a few frames are delivered in
    // order with every report back.
    for client in &mut clients {
        deliver(client, None);
        report(&mut replicator, client, None);
    }
    for _ in 0..3 {
        replicator.update(&server);
        for client in &mut clients {
            client.inbox.clear();
            send(&server, &mut replicator, client)?;
            deliver(client, None);
            report(&mut replicator, client, None);
        }
    }
    for client in &clients {
        check(&server, &replicator, &alive, client)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn clients_equal_the_server_once_the_link_heals(frames in proptest::collection::vec(frame(), 1..25)) {
        run(&frames)?;
    }
}

/// The plain case of a reorder in place, beside the random ones.
#[test]
fn a_reorder_in_place_reaches_every_peer() {
    let spawn = Edit::Spawn { replicated: true, health: None, near: true };
    let d = vec![Fate::Deliver; 4];
    let frames: Vec<Frame> = vec![
        (vec![spawn.clone(), spawn.clone(), spawn.clone(), spawn.clone()], d.clone(), d.clone()),
        (vec![Edit::Parent(1, 0), Edit::Parent(2, 0), Edit::Parent(3, 0)], d.clone(), d.clone()),
        (vec![], d.clone(), d.clone()),
        (vec![Edit::ReorderFirst(0, 2)], d.clone(), d.clone()),
    ];
    run(&frames).unwrap();
}
