//! Observers against a hand-written log: random sequences of spawns, inserts, removes,
//! despawns, writes, commands, custom triggers and sync points, with an observer of
//! every kind logging what it saw; after each step the log must equal what the model
//! says happened (change deliveries compared as sets per sync point, their order being
//! the query's). Hp in tables and in a sparse set.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use ripple::{
    CommandQueue, Entity, ObserverEvent, OnAdd, OnChange, OnDespawn, OnInsert, OnRemove, OnReplace, Storage, Trigger,
    World,
};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Hp(u32);
struct Tag;

struct Ping;
impl ObserverEvent for Ping {}

#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn { hp: bool },
    Insert(usize),
    Remove(usize),
    Despawn(usize),
    Write(usize),
    CommandInsert(usize),
    CommandDespawn(usize),
    Ping(usize),
    Flush,
}

fn op() -> impl Strategy<Value = Op> {
    let i = || 0usize..16;
    prop_oneof![
        3 => any::<bool>().prop_map(|hp| Op::Spawn { hp }),
        3 => i().prop_map(Op::Insert),
        2 => i().prop_map(Op::Remove),
        1 => i().prop_map(Op::Despawn),
        4 => i().prop_map(Op::Write),
        1 => i().prop_map(Op::CommandInsert),
        1 => i().prop_map(Op::CommandDespawn),
        1 => i().prop_map(Op::Ping),
        2 => Just(Op::Flush),
    ]
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Seen {
    Add(Entity),
    Insert(Entity),
    Replace(Entity),
    Remove(Entity),
    Despawn(Entity),
    Change(Entity),
    Ping(Entity),
    /// The targeted observer of the first entity.
    Mine(Entity),
}

type Log = Arc<Mutex<Vec<Seen>>>;

fn install(world: &mut World, log: &Log) {
    macro_rules! logger {
        ($event:ty, $seen:ident) => {{
            let log = log.clone();
            world.observe(move |t: Trigger<'_, $event>| log.lock().unwrap().push(Seen::$seen(t.entity()))).unwrap();
        }};
    }
    logger!(OnAdd<Hp>, Add);
    logger!(OnInsert<Hp>, Insert);
    logger!(OnReplace<Hp>, Replace);
    logger!(OnRemove<Hp>, Remove);
    logger!(OnDespawn, Despawn);
    logger!(OnChange<Hp>, Change);
    logger!(Ping, Ping);
}

/// What the model knows: the live entities, which have Hp, and which Hp changed since
/// the last sync point.
#[derive(Default)]
struct Model {
    alive: Vec<Entity>,
    hp: HashMap<Entity, bool>,
    changed: BTreeSet<Entity>,
    first: Option<Entity>,
}

impl Model {
    fn pick(&self, i: usize) -> Option<Entity> {
        (!self.alive.is_empty()).then(|| self.alive[i % self.alive.len()])
    }

    /// The log of inserting Hp on `e`.
    fn insert(&mut self, e: Entity, out: &mut Vec<Seen>) {
        let had = self.hp.insert(e, true) == Some(true);
        if had {
            out.push(Seen::Replace(e));
        } else {
            out.push(Seen::Add(e));
            if self.first == Some(e) {
                out.push(Seen::Mine(e));
            }
        }
        out.push(Seen::Insert(e));
        self.changed.insert(e);
    }

    fn remove(&mut self, e: Entity, out: &mut Vec<Seen>) -> bool {
        if self.hp.get(&e) != Some(&true) {
            return false;
        }
        self.hp.insert(e, false);
        out.extend([Seen::Replace(e), Seen::Remove(e)]);
        self.changed.remove(&e);
        true
    }

    fn despawn(&mut self, e: Entity, out: &mut Vec<Seen>) {
        out.push(Seen::Despawn(e));
        self.remove(e, out);
        self.hp.remove(&e);
        self.alive.retain(|&a| a != e);
        if self.first == Some(e) {
            self.first = None;
        }
    }
}

fn run(ops: &[Op], storage: Storage) -> Result<(), TestCaseError> {
    let mut world = World::new();
    world.set_storage::<Hp>(storage).unwrap();
    let log: Log = Arc::default();
    install(&mut world, &log);
    let mut model = Model::default();
    for (step, &op) in ops.iter().enumerate() {
        let mut expected = Vec::new();
        let mut changes_expected = None;
        match op {
            Op::Spawn { hp } => {
                let e = if hp { world.spawn((Hp(0), Tag)) } else { world.spawn((Tag,)) };
                model.alive.push(e);
                model.hp.insert(e, false);
                if hp {
                    // Before the targeted observer below exists.
                    model.insert(e, &mut expected);
                }
                if model.first.is_none() {
                    model.first = Some(e);
                    let log = log.clone();
                    world
                        .observe_entity(e, move |t: Trigger<'_, OnAdd<Hp>>| {
                            log.lock().unwrap().push(Seen::Mine(t.entity()))
                        })
                        .unwrap();
                }
            }
            Op::Insert(i) | Op::CommandInsert(i) => {
                let Some(e) = model.pick(i) else { continue };
                if matches!(op, Op::Insert(_)) {
                    world.insert(e, (Hp(1),)).unwrap();
                } else {
                    let mut queue = CommandQueue::default();
                    queue.commands(&world).insert(e, (Hp(1),));
                    queue.apply(&mut world);
                }
                model.insert(e, &mut expected);
            }
            Op::Remove(i) => {
                let Some(e) = model.pick(i) else { continue };
                let removed = world.remove::<(Hp,)>(e).is_ok();
                prop_assert_eq!(removed, model.remove(e, &mut expected));
            }
            Op::Despawn(i) | Op::CommandDespawn(i) => {
                let Some(e) = model.pick(i) else { continue };
                if matches!(op, Op::Despawn(_)) {
                    world.despawn(e).unwrap();
                } else {
                    let mut queue = CommandQueue::default();
                    queue.commands(&world).despawn(e);
                    queue.apply(&mut world);
                }
                model.despawn(e, &mut expected);
            }
            Op::Write(i) => {
                let Some(e) = model.pick(i) else { continue };
                if let Ok(mut hp) = world.get_mut::<Hp>(e) {
                    hp.0 += 1;
                    model.changed.insert(e);
                }
            }
            Op::Ping(i) => {
                let Some(e) = model.pick(i) else { continue };
                world.trigger_targets(Ping, [e]);
                expected.push(Seen::Ping(e));
            }
            Op::Flush => {
                world.flush();
                changes_expected = Some(std::mem::take(&mut model.changed));
            }
        }
        let mut got = std::mem::take(&mut *log.lock().unwrap());
        if let Some(changes) = changes_expected {
            // Each changed entity once; the order is the query's, so compare sets.
            let seen: Vec<Entity> =
                got.iter().filter_map(|s| if let Seen::Change(e) = s { Some(*e) } else { None }).collect();
            let unique: BTreeSet<Entity> = seen.iter().copied().collect();
            prop_assert_eq!(seen.len(), unique.len(), "step {}: a change reported twice", step);
            prop_assert_eq!(unique, changes, "step {}: {:?}", step, op);
            got.retain(|s| !matches!(s, Seen::Change(_)));
        }
        prop_assert_eq!(got, expected, "step {}: {:?}", step, op);
    }
    prop_assert!(world.take_observer_errors().is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn observers_log_what_happened_in_tables(ops in prop::collection::vec(op(), 1..80)) {
        run(&ops, Storage::Table)?;
    }

    #[test]
    fn observers_log_what_happened_in_sparse_sets(ops in prop::collection::vec(op(), 1..80)) {
        run(&ops, Storage::SparseSet)?;
    }
}
