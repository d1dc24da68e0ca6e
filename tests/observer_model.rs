//! Observers against a hand-written log: random sequences of spawns, inserts, removes,
//! despawns, writes, commands, custom triggers and sync points, with an observer of
//! every kind logging what it saw; after each step the log must equal what the model
//! says happened (change deliveries compared as sets per sync point, their order being
//! the query's). Change observers registered late, beside the first (of every entity or
//! aimed at one), must hear only the changes made after they were registered. Hp in
//! tables and in a sparse set.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use ripple::observer::{ObserverEvent, OnAdd, OnChange, OnDespawn, OnInsert, OnRemove, OnReplace, Trigger};
use ripple::{CommandQueue, Entity, Storage, World};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Hp(u32);
struct Tag;

struct Ping;
impl ObserverEvent for Ping {}

#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn {
        hp: bool,
    },
    Insert(usize),
    Remove(usize),
    Despawn(usize),
    Write(usize),
    CommandInsert(usize),
    CommandDespawn(usize),
    Ping(usize),
    /// A change observer registered now: of every entity, or aimed at one.
    ObserveLate {
        aimed: bool,
        at: usize,
    },
    Flush,
}

/// The most late change observers one run registers.
const MAX_LATE: usize = 4;

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
        1 => (any::<bool>(), i()).prop_map(|(aimed, at)| Op::ObserveLate { aimed, at }),
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
    /// Late change observer number `.0` heard a change.
    Late(usize, Entity),
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
    late: Vec<Late>,
}

/// A late change observer: its number, the entity it is aimed at (if any), and the
/// changes it is to hear at the next sync point.
struct Late {
    number: usize,
    aimed: Option<Entity>,
    changed: BTreeSet<Entity>,
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
        self.change(e);
    }

    /// `e`'s Hp changed.
    fn change(&mut self, e: Entity) {
        self.changed.insert(e);
        for late in &mut self.late {
            if late.aimed.is_none_or(|aimed| aimed == e) {
                late.changed.insert(e);
            }
        }
    }

    fn remove(&mut self, e: Entity, out: &mut Vec<Seen>) -> bool {
        if self.hp.get(&e) != Some(&true) {
            return false;
        }
        self.hp.insert(e, false);
        out.extend([Seen::Replace(e), Seen::Remove(e)]);
        self.changed.remove(&e);
        for late in &mut self.late {
            late.changed.remove(&e);
        }
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
        // Observers aimed at it go with it.
        self.late.retain(|late| late.aimed != Some(e));
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
                    model.change(e);
                }
            }
            Op::Ping(i) => {
                let Some(e) = model.pick(i) else { continue };
                world.trigger_targets(Ping, [e]);
                expected.push(Seen::Ping(e));
            }
            Op::ObserveLate { aimed, at } => {
                let Some(e) = model.pick(at) else { continue };
                if model.late.len() == MAX_LATE {
                    continue;
                }
                let number = step;
                let log = log.clone();
                let heard =
                    move |t: Trigger<'_, OnChange<Hp>>| log.lock().unwrap().push(Seen::Late(number, t.entity()));
                if aimed {
                    world.observe_entity(e, heard).unwrap();
                } else {
                    world.observe(heard).unwrap();
                }
                model.late.push(Late { number, aimed: aimed.then_some(e), changed: BTreeSet::new() });
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
            // Each late observer hears what changed since it was registered, once.
            let late: Vec<Seen> = got.iter().filter(|s| matches!(s, Seen::Late(..))).cloned().collect();
            let unique: BTreeSet<Seen> = late.iter().cloned().collect();
            prop_assert_eq!(late.len(), unique.len(), "step {}: a change reported twice to a late observer", step);
            let expected_late: BTreeSet<Seen> = model
                .late
                .iter_mut()
                .flat_map(|late| {
                    let number = late.number;
                    std::mem::take(&mut late.changed).into_iter().map(move |e| Seen::Late(number, e))
                })
                .collect();
            prop_assert_eq!(unique, expected_late, "step {}: late observers", step);
            got.retain(|s| !matches!(s, Seen::Late(..)));
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
