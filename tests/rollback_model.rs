//! Model test of rollback: random frames of writes, spawns, despawns, inserts, removes,
//! reparenting, sibling reorders and resource writes, with rollbacks to random kept
//! frames (with changes made since the newest checkpoint, too). After each rollback
//! the registered state equals a full copy the test took at that frame, handles
//! included; change queries and removal streams report exactly what differs; handles
//! of entities spawned after the frame stay dead; checksums match a fresh rollback's.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ripple::hierarchy::ChildOf;
use ripple::query::{Changed, QueryState};
use ripple::rollback::{Rollback, RollbackError};
use ripple::{Entity, RemovedReader, Storage, World};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Hp(i32);

/// Sparse storage: its values live outside the tables.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Tag(u8);

/// Not registered: the rollback leaves it alone.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Scratch(u32);

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Score(i64);

/// A tiny deterministic generator (xorshift64*), so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick(&mut self, entities: &[Entity]) -> Option<Entity> {
        (!entities.is_empty()).then(|| entities[self.below(entities.len())])
    }
}

/// One entity's registered state: its values (the runtime component's bytes last),
/// parent and children in order.
type EntityCopy = (Option<Hp>, Option<Tag>, Option<Entity>, Vec<Entity>, Option<Vec<u8>>);

/// The runtime component's id in `world`.
fn heat(world: &World) -> ripple::ComponentId {
    world.component_id_named("Heat").expect("registered")
}

/// Everything registered, as the test sees it through the public API.
#[derive(Clone, PartialEq, Debug)]
struct Copy {
    entities: BTreeMap<Entity, EntityCopy>,
    score: Option<Score>,
}

fn copy(world: &mut World) -> Copy {
    let mut all = world.query::<Entity>();
    let mut entities = BTreeMap::new();
    let alive: Vec<Entity> = all.iter(world).collect();
    for e in alive {
        let children = world.children(e).map(<[Entity]>::to_vec).unwrap_or_default();
        let heat = world.get_by_id(e, heat(world)).ok().map(<[u8]>::to_vec);
        let state =
            (world.get::<Hp>(e).ok().copied(), world.get::<Tag>(e).ok().copied(), world.parent(e), children, heat);
        entities.insert(e, state);
    }
    Copy { entities, score: world.get_resource::<Score>().copied() }
}

fn alive(world: &mut World) -> Vec<Entity> {
    let mut all = world.query::<Entity>();
    all.iter(world).collect()
}

/// One random edit.
fn edit(world: &mut World, rng: &mut Rng) {
    let entities = alive(world);
    let any = rng.pick(&entities);
    match rng.below(13) {
        0 | 1 => {
            if let Some(e) = any
                && let Ok(mut hp) = world.get_mut::<Hp>(e)
            {
                hp.0 = rng.below(5) as i32;
            }
        }
        2 => {
            if let Some(e) = any {
                let _ = world.insert(e, (Hp(rng.below(5) as i32),));
            }
        }
        3 => {
            if let Some(e) = any {
                let _ = world.remove::<(Hp,)>(e);
            }
        }
        4 => {
            if let Some(e) = any {
                if rng.below(2) == 0 {
                    let _ = world.insert(e, (Tag(rng.below(3) as u8), Scratch(1)));
                } else {
                    let _ = world.remove::<(Tag,)>(e);
                }
            }
        }
        5 | 6 => {
            let e = world.spawn((Hp(rng.below(5) as i32),));
            if rng.below(2) == 0
                && let Some(parent) = any
            {
                let _ = world.set_parent(e, parent);
            }
        }
        7 => {
            if let Some(e) = any {
                world.despawn(e).unwrap();
            }
        }
        8 => {
            if let (Some(child), Some(parent)) = (any, rng.pick(&entities)) {
                let _ = world.set_parent(child, parent);
            }
        }
        9 => {
            if let Some(e) = any {
                let _ = world.remove_parent(e);
            }
        }
        11 => {
            if let Some(e) = any {
                let heat = heat(world);
                match rng.below(3) {
                    0 => drop(world.remove_by_id(e, heat)),
                    _ => drop(world.insert_by_id(e, heat, &(rng.below(4) as u16).to_le_bytes())),
                }
            }
        }
        10 => {
            // Moves a child to the front of its parent's list: a reorder in place.
            if let Some(child) = any
                && let Some(parent) = world.parent(child)
            {
                let _ = world.insert_children(parent, 0, &[child]);
            }
        }
        _ => match rng.below(3) {
            0 => {
                world.remove_resource::<Score>().ok();
            }
            _ => {
                world.insert_resource(Score(rng.below(4) as i64));
            }
        },
    }
}

fn register(rollback: &mut Rollback, world: &mut World) {
    let heat = heat(world);
    rollback.register_by_id(world, heat, true).unwrap();
    rollback
        .register_hashed::<Hp>(world)
        .register_hashed::<Tag>(world)
        .register_relation::<ChildOf>(world)
        .register_resource_with_checksum::<Score>(world, ripple::rollback::stable_hash);
}

fn run(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut world = World::new();
    world.set_storage::<Tag>(Storage::SparseSet).unwrap();
    world.register_component(ripple::dynamic::ComponentDescriptor::new("Heat", 2, 2).unwrap());
    for _ in 0..6 {
        world.spawn((Hp(1),));
    }
    world.insert_resource(Score(0));
    let mut rollback = Rollback::new(&mut world, 8);
    register(&mut rollback, &mut world);
    let mut copies: HashMap<u64, Copy> = HashMap::new();
    copies.insert(rollback.frame(), copy(&mut world));
    let mut changed: QueryState<Entity, Changed<Hp>> = world.query_filtered();
    let mut removed: RemovedReader<Hp> = world.removal_reader();
    let mut spawned_since: BTreeMap<u64, BTreeSet<Entity>> = BTreeMap::new();
    let mut dead_for_good: BTreeSet<Entity> = BTreeSet::new();

    for step in 0..60 {
        let before: BTreeSet<Entity> = alive(&mut world).into_iter().collect();
        for _ in 0..rng.below(6) {
            edit(&mut world, &mut rng);
        }
        let after: BTreeSet<Entity> = alive(&mut world).into_iter().collect();
        let frame_new: BTreeSet<Entity> = after.difference(&before).copied().collect();
        if rng.below(4) != 0 {
            let frame = rollback.checkpoint(&world);
            copies.insert(frame, copy(&mut world));
            spawned_since.insert(frame, frame_new);
            assert_eq!(rollback.checksum(frame), Some(checksum_from_scratch(&mut world)), "seed {seed} step {step}");
            continue;
        }
        // Roll back, with whatever was edited since the newest checkpoint.
        spawned_since.entry(rollback.frame() + 1).or_default().extend(frame_new);
        let target =
            rollback.oldest_frame() + rng.below((rollback.frame() - rollback.oldest_frame()) as usize + 1) as u64;
        let pre = copy(&mut world);
        changed.iter(&world).for_each(drop);
        removed.read(&world).for_each(drop);
        rollback.rollback_to(&mut world, target).unwrap();
        let want = &copies[&target];
        let got = copy(&mut world);
        assert_eq!(&got, want, "seed {seed} step {step}: rollback to {target} differs");

        // Change detection: exactly the entities whose Hp differs from before.
        let reported: BTreeSet<Entity> = changed.iter(&world).collect();
        let differs: BTreeSet<Entity> = want
            .entities
            .iter()
            .filter(|(e, s)| s.0.is_some() && pre.entities.get(e).map(|p| p.0) != Some(s.0))
            .map(|(e, _)| *e)
            .collect();
        assert_eq!(reported, differs, "seed {seed} step {step}: Changed<Hp> after rollback to {target}");
        let removals: BTreeSet<Entity> = removed.read(&world).map(|(e, _)| e).collect();
        let lost: BTreeSet<Entity> = pre
            .entities
            .iter()
            .filter(|(e, s)| s.0.is_some() && want.entities.get(e).is_none_or(|w| w.0.is_none()))
            .map(|(e, _)| *e)
            .collect();
        assert_eq!(removals, lost, "seed {seed} step {step}: removals of Hp after rollback to {target}");

        // Handles spawned after the frame are dead, now and later.
        for (_, spawned) in spawned_since.split_off(&(target + 1)) {
            dead_for_good.extend(spawned);
        }
        copies.retain(|&frame, _| frame <= target);
        assert_eq!(rollback.checksum(target), Some(checksum_from_scratch(&mut world)), "seed {seed} step {step}");
        for &e in &dead_for_good {
            assert!(
                !world.contains(e),
                "seed {seed} step {step}: {e:?}, spawned after a frame rolled back to, is alive"
            );
        }
    }
    for &e in &dead_for_good {
        assert!(!world.contains(e), "seed {seed}: {e:?} came back");
    }
}

/// The checksum a new rollback computes from the whole world.
fn checksum_from_scratch(world: &mut World) -> u64 {
    // Registration order decides how the sums combine: the same as `run`'s.
    let mut fresh = Rollback::new(world, 1);
    register(&mut fresh, world);
    fresh.checksum(fresh.frame()).unwrap()
}

#[test]
fn rollbacks_restore_exactly_what_each_frame_held() {
    // Under a memory checker (about 50 times slower) fewer seeds, each as hard.
    let seeds = if std::env::var_os("RIPPLE_MEMCHECK").is_some() { 40 } else { 300 };
    for seed in 0..seeds {
        run(seed);
    }
}

#[test]
fn a_frame_not_kept_is_refused_and_changes_nothing() {
    let mut world = World::new();
    let e = world.spawn((Hp(1),));
    let mut rollback = Rollback::new(&mut world, 2);
    rollback.register::<Hp>(&mut world);
    for i in 0..5 {
        world.get_mut::<Hp>(e).unwrap().0 = i;
        rollback.checkpoint(&world);
    }
    assert_eq!(rollback.oldest_frame(), 3);
    let refused = rollback.rollback_to(&mut world, 2);
    assert_eq!(refused, Err(RollbackError::FrameNotKept { frame: 2, oldest: 3, newest: 5 }));
    assert_eq!(
        rollback.rollback_to(&mut world, 6).unwrap_err().to_string(),
        "frame 6 is not kept: the rollback keeps frames 3 to 5"
    );
    assert_eq!(world.get::<Hp>(e), Ok(&Hp(4)));
    rollback.rollback_to(&mut world, 3).unwrap();
    assert_eq!(world.get::<Hp>(e), Ok(&Hp(2)));
}

#[test]
fn a_revived_slot_never_issues_a_handle_it_gave_before() {
    let mut world = World::new();
    let a = world.spawn((Hp(1),));
    let mut rollback = Rollback::new(&mut world, 4);
    rollback.register::<Hp>(&mut world);
    let start = rollback.checkpoint(&world);
    world.despawn(a).unwrap();
    let b = world.spawn((Hp(2),)); // reuses a's slot
    assert_eq!(b.index(), a.index());
    rollback.checkpoint(&world);
    rollback.rollback_to(&mut world, start).unwrap();
    assert_eq!(world.get::<Hp>(a), Ok(&Hp(1)));
    assert!(!world.contains(b));
    // Despawning a again and spawning must not hand b's handle out again.
    world.despawn(a).unwrap();
    for _ in 0..4 {
        let c = world.spawn((Hp(3),));
        assert_ne!(c, b);
        assert!(!world.contains(b));
        world.despawn(c).unwrap();
    }
}
