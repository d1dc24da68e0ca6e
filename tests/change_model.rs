//! Model test for change tracking: random interleavings of structural changes,
//! writes (through `Mut`, `set_if_neq`, a bypass, `mark_changed`, a writing query) and
//! several observers with different queries and dirty sets that run at random
//! moments, against a naive model that logs every change and, per observer, replays
//! the log since that observer's last run.
//!
//! Besides single steps, a case runs bursts of frames in which every observer has
//! its own rate (some run every frame, some every few, some not at all), each frame
//! writes and may spawn: enough ticks and writes to overflow each column's record of
//! recent block changes, while its table grows across 64-row blocks under observers
//! that last ran before the growth.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use ripple::query::{Added, Changed, Dirty, Or, QueryState, With, Without};
use ripple::{Entity, RemovedReader, Storage, World};

#[derive(Clone, Copy, Debug, PartialEq)]
struct A(u8);
#[derive(Clone, Copy, Debug, PartialEq)]
struct B(u8);
#[derive(Clone, Copy, Debug, PartialEq)]
struct C;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    A,
    B,
    C,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Added,
    /// Written (also implied by `Added`).
    Changed,
    Removed,
}

/// One logged change.
#[derive(Clone, Copy, Debug)]
struct Change {
    entity: Entity,
    kind: Kind,
    what: What,
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(u8, u8),
    Despawn(usize),
    Insert(usize, u8, u8),
    Remove(usize, u8),
    Write(usize, u8),
    SetIfNeq(usize, u8),
    Bypass(usize, u8),
    Mark(usize),
    QueryWrite(u8),
    Observe(usize),
    Frames(Frames),
}

/// A burst of frames: each writes `A` on one entity (stepping through the issued
/// entities), spawns every `spawn_every`-th frame (never if 0), and runs observer `i`
/// every `rates[i]`-th frame (never if 0).
#[derive(Clone, Debug)]
struct Frames {
    count: u8,
    first: usize,
    stride: usize,
    spawn_every: u8,
    spawn_mask: u8,
    rates: [u8; OBSERVERS],
}

const OBSERVERS: usize = 8;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<u8>(), any::<u8>()).prop_map(|(m, v)| Op::Spawn(m, v)),
        2 => any::<usize>().prop_map(Op::Despawn),
        3 => (any::<usize>(), any::<u8>(), any::<u8>()).prop_map(|(e, m, v)| Op::Insert(e, m, v)),
        3 => (any::<usize>(), any::<u8>()).prop_map(|(e, m)| Op::Remove(e, m)),
        3 => (any::<usize>(), any::<u8>()).prop_map(|(e, v)| Op::Write(e, v)),
        2 => (any::<usize>(), 0u8..3).prop_map(|(e, v)| Op::SetIfNeq(e, v)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(e, v)| Op::Bypass(e, v)),
        1 => any::<usize>().prop_map(Op::Mark),
        1 => any::<u8>().prop_map(Op::QueryWrite),
        6 => (0usize..OBSERVERS).prop_map(Op::Observe),
        1 => frames().prop_map(Op::Frames),
    ]
}

fn frames() -> impl Strategy<Value = Frames> {
    let rate = || prop_oneof![3 => Just(1u8), 3 => 2u8..12, 1 => Just(0u8)];
    let rates = prop::array::uniform8(rate());
    (1u8..120, any::<usize>(), 1usize..40, prop_oneof![Just(0u8), 1u8..4], any::<u8>(), rates).prop_map(
        |(count, first, stride, spawn_every, spawn_mask, rates)| Frames {
            count,
            first,
            stride,
            spawn_every,
            spawn_mask,
            rates,
        },
    )
}

#[derive(Clone, Debug, Default)]
struct Model {
    alive: BTreeMap<Entity, (Option<u8>, Option<u8>, bool)>,
    log: Vec<Change>,
}

impl Model {
    fn has(&self, e: Entity, kind: Kind) -> bool {
        self.alive.get(&e).is_some_and(|c| match kind {
            Kind::A => c.0.is_some(),
            Kind::B => c.1.is_some(),
            Kind::C => c.2,
        })
    }
    fn add(&mut self, entity: Entity, kind: Kind, present_before: bool) {
        let what = if present_before { What::Changed } else { What::Added };
        self.log.push(Change { entity, kind, what });
    }
}

type DirtyOnC = QueryState<Entity, (With<C>, Dirty<(A, B)>)>;
type DirtyOnBOrC = QueryState<Entity, (Or<(With<B>, With<C>)>, Dirty<(A,)>)>;
type ChangedAOrAddedB = Or<(Changed<A>, Added<B>)>;

/// The observers under test, and how the model predicts each one's report.
struct Observers {
    changed_a: QueryState<(Entity, &'static A), Changed<A>>,
    added_b: QueryState<Entity, Added<B>>,
    changed_a_without_c: QueryState<Entity, (Changed<A>, Without<C>)>,
    dirty_ab_on_c: DirtyOnC,
    dirty_c_on_a: QueryState<(Entity, &'static A), Dirty<(C,)>>,
    removed_a: RemovedReader<A>,
    /// Whether it matches is decided by B or C, each maybe sparse: a run replays
    /// entities' moves to find who started matching.
    dirty_a_on_b_or_c: DirtyOnBOrC,
    changed_a_or_added_b: QueryState<Entity, ChangedAOrAddedB>,
    /// Position in the model's log of each observer's last run (`None`: never ran).
    seen: [Option<usize>; OBSERVERS],
}

/// `sparse[i]`: whether A, B, C (in that order) are stored in sparse sets.
fn run(prefill: u16, ops: Vec<Op>, sparse: [bool; 3]) {
    let mut world = World::new();
    let storage = |sparse: bool| if sparse { Storage::SparseSet } else { Storage::Table };
    world.set_storage::<A>(storage(sparse[0])).unwrap();
    world.set_storage::<B>(storage(sparse[1])).unwrap();
    world.set_storage::<C>(storage(sparse[2])).unwrap();
    let mut model = Model::default();
    // Large tables, so the change summaries have several levels.
    let mut issued: Vec<Entity> = world.spawn_batch((0..prefill).map(|i| (A(i as u8), B(i as u8)))).collect();
    for (i, &e) in issued.iter().enumerate() {
        model.alive.insert(e, (Some(i as u8), Some(i as u8), false));
        model.add(e, Kind::A, false);
        model.add(e, Kind::B, false);
    }
    let mut writer = world.query_filtered::<&mut A, With<B>>();
    let mut obs = Observers {
        changed_a: world.query_filtered(),
        added_b: world.query_filtered(),
        changed_a_without_c: world.query_filtered(),
        dirty_ab_on_c: world.query_filtered(),
        dirty_c_on_a: world.query_filtered(),
        removed_a: world.removal_reader::<A>(),
        dirty_a_on_b_or_c: world.query_filtered(),
        changed_a_or_added_b: world.query_filtered(),
        seen: [None, None, None, None, None, Some(0), None, None],
    };
    let pick = |issued: &[Entity], i: usize| issued.get(i % issued.len().max(1)).copied();
    for op in ops {
        match op {
            Op::Spawn(mask, v) => spawn(&mut world, &mut model, &mut issued, mask, v),
            Op::Despawn(i) => {
                let Some(e) = pick(&issued, i) else { continue };
                assert_eq!(world.despawn(e).is_ok(), model.alive.contains_key(&e));
                if let Some(c) = model.alive.remove(&e) {
                    for (kind, present) in [(Kind::A, c.0.is_some()), (Kind::B, c.1.is_some()), (Kind::C, c.2)] {
                        if present {
                            model.log.push(Change { entity: e, kind, what: What::Removed });
                        }
                    }
                }
            }
            Op::Insert(i, mask, v) => {
                let Some(e) = pick(&issued, i) else { continue };
                let result = match mask % 4 {
                    0 => world.insert(e, (A(v),)),
                    1 => world.insert(e, (B(v),)),
                    2 => world.insert(e, (C,)),
                    _ => world.insert(e, (B(v), A(v))),
                };
                assert_eq!(result.is_ok(), model.alive.contains_key(&e));
                if result.is_ok() {
                    let kinds: &[Kind] = match mask % 4 {
                        0 => &[Kind::A],
                        1 => &[Kind::B],
                        2 => &[Kind::C],
                        _ => &[Kind::A, Kind::B],
                    };
                    for &kind in kinds {
                        let before = model.has(e, kind);
                        model.add(e, kind, before);
                        let c = model.alive.get_mut(&e).unwrap();
                        match kind {
                            Kind::A => c.0 = Some(v),
                            Kind::B => c.1 = Some(v),
                            Kind::C => c.2 = true,
                        }
                    }
                }
            }
            Op::Remove(i, which) => {
                let Some(e) = pick(&issued, i) else { continue };
                let (kind, ok) = match which % 3 {
                    0 => (Kind::A, world.remove::<(A,)>(e).is_ok()),
                    1 => (Kind::B, world.remove::<(B,)>(e).is_ok()),
                    _ => (Kind::C, world.remove::<(C,)>(e).is_ok()),
                };
                assert_eq!(ok, model.has(e, kind));
                if ok {
                    let c = model.alive.get_mut(&e).unwrap();
                    match kind {
                        Kind::A => c.0 = None,
                        Kind::B => c.1 = None,
                        Kind::C => c.2 = false,
                    }
                    model.log.push(Change { entity: e, kind, what: What::Removed });
                }
            }
            Op::Write(i, v) => {
                let Some(e) = pick(&issued, i) else { continue };
                write(&mut world, &mut model, e, v);
            }
            Op::SetIfNeq(i, v) => {
                let Some(e) = pick(&issued, i) else { continue };
                if let Ok(mut a) = world.get_mut::<A>(e) {
                    let differs = a.0 != v;
                    assert_eq!(a.set_if_neq(A(v)), differs);
                    model.alive.get_mut(&e).unwrap().0 = Some(v);
                    if differs {
                        model.log.push(Change { entity: e, kind: Kind::A, what: What::Changed });
                    }
                }
            }
            Op::Bypass(i, v) => {
                let Some(e) = pick(&issued, i) else { continue };
                if let Ok(mut a) = world.get_mut::<A>(e) {
                    a.bypass_change_detection().0 = v;
                    model.alive.get_mut(&e).unwrap().0 = Some(v);
                }
            }
            Op::Mark(i) => {
                let Some(e) = pick(&issued, i) else { continue };
                if world.mark_changed::<A>(e).is_ok() {
                    model.log.push(Change { entity: e, kind: Kind::A, what: What::Changed });
                }
            }
            Op::QueryWrite(v) => {
                // Writes A on entities with B whose A is odd.
                writer.for_each_mut(&mut world, |mut a| {
                    if a.0 % 2 == 1 {
                        a.0 = v;
                    }
                });
                let written: Vec<Entity> = model
                    .alive
                    .iter()
                    .filter(|(_, c)| c.1.is_some() && c.0.is_some_and(|a| a % 2 == 1))
                    .map(|(e, _)| *e)
                    .collect();
                for e in written {
                    model.alive.get_mut(&e).unwrap().0 = Some(v);
                    model.log.push(Change { entity: e, kind: Kind::A, what: What::Changed });
                }
            }
            Op::Observe(which) => observe(&mut world, &model, &mut obs, which),
            Op::Frames(frames) => {
                for frame in 0..usize::from(frames.count) {
                    let every = |rate: u8| rate != 0 && frame % usize::from(rate) == 0;
                    if every(frames.spawn_every) {
                        spawn(&mut world, &mut model, &mut issued, frames.spawn_mask, frame as u8);
                    }
                    if let Some(e) = pick(&issued, frames.first.wrapping_add(frame * frames.stride)) {
                        write(&mut world, &mut model, e, frame as u8);
                    }
                    for which in 0..OBSERVERS {
                        if every(frames.rates[which]) {
                            observe(&mut world, &model, &mut obs, which);
                        }
                    }
                }
            }
        }
        assert_eq!(world.len(), model.alive.len());
    }
    for which in 0..OBSERVERS {
        observe(&mut world, &model, &mut obs, which);
    }
}

/// Spawns one of six component sets, chosen by `mask`.
fn spawn(world: &mut World, model: &mut Model, issued: &mut Vec<Entity>, mask: u8, v: u8) {
    let e = match mask % 6 {
        0 => world.spawn((A(v),)),
        1 => world.spawn((B(v),)),
        2 => world.spawn((C,)),
        3 => world.spawn((A(v), B(v))),
        4 => world.spawn((C, A(v))),
        _ => world.spawn((A(v), B(v), C)),
    };
    let c = match mask % 6 {
        0 => (Some(v), None, false),
        1 => (None, Some(v), false),
        2 => (None, None, true),
        3 => (Some(v), Some(v), false),
        4 => (Some(v), None, true),
        _ => (Some(v), Some(v), true),
    };
    model.alive.insert(e, c);
    for (kind, present) in [(Kind::A, c.0.is_some()), (Kind::B, c.1.is_some()), (Kind::C, c.2)] {
        if present {
            model.add(e, kind, false);
        }
    }
    issued.push(e);
}

/// Writes `A(v)` on `e` through `Mut`, if it has an `A`.
fn write(world: &mut World, model: &mut Model, e: Entity, v: u8) {
    if let Ok(mut a) = world.get_mut::<A>(e) {
        a.0 = v;
        model.alive.get_mut(&e).unwrap().0 = Some(v);
        model.log.push(Change { entity: e, kind: Kind::A, what: What::Changed });
    } else {
        assert!(!model.has(e, Kind::A));
    }
}

/// The live entities that, at some point in `recent`, went from not matching to
/// matching a query decided by `matches(has B, has C)`: each one's state before its
/// changes is found by undoing them from its state now (no operation changes B and C
/// together, other than a spawn or despawn, so change by change is operation by
/// operation for this purpose).
fn started_matching(model: &Model, recent: &[Change], matches: &dyn Fn(bool, bool) -> bool) -> BTreeSet<Entity> {
    let mut changes: BTreeMap<Entity, Vec<Change>> = BTreeMap::new();
    for change in recent.iter().filter(|c| c.kind != Kind::A && c.what != What::Changed) {
        changes.entry(change.entity).or_default().push(*change);
    }
    let mut started = BTreeSet::new();
    for (e, changes) in changes {
        let Some(&(_, b, c)) = model.alive.get(&e) else { continue };
        let (mut b, mut c) = (b.is_some(), c);
        let mut after = matches(b, c);
        for change in changes.iter().rev() {
            let had = change.what == What::Removed;
            match change.kind {
                Kind::B => b = had,
                _ => c = had,
            }
            let before = matches(b, c);
            if after && !before {
                started.insert(e);
            }
            after = before;
        }
    }
    started
}

/// Runs observer `which` and checks its report against the model's log.
fn observe(world: &mut World, model: &Model, obs: &mut Observers, which: usize) {
    let since = obs.seen[which];
    let recent: &[Change] = match since {
        Some(position) => &model.log[position..],
        None => &[],
    };
    let all = since.is_none();
    let with = |e: Entity, kind| model.has(e, kind);
    let touched = |kinds: &[Kind], whats: &[What]| -> BTreeSet<Entity> {
        recent.iter().filter(|c| kinds.contains(&c.kind) && whats.contains(&c.what)).map(|c| c.entity).collect()
    };
    // A first run reports every match; later runs the dirty entities that match.
    let want = |pred: &dyn Fn(Entity) -> bool, dirty: BTreeSet<Entity>| -> BTreeSet<Entity> {
        if all {
            model.alive.keys().copied().filter(|&e| pred(e)).collect()
        } else {
            dirty.into_iter().filter(|&e| pred(e)).collect()
        }
    };
    let written = [What::Added, What::Changed];
    match which {
        0 => {
            let want = want(&|e| with(e, Kind::A), touched(&[Kind::A], &written));
            let got: BTreeSet<Entity> = obs.changed_a.iter(world).map(|(e, _)| e).collect();
            assert_eq!(got, want, "Changed<A>");
        }
        1 => {
            let want = want(&|e| with(e, Kind::B), touched(&[Kind::B], &[What::Added]));
            let got: BTreeSet<Entity> = obs.added_b.iter(world).collect();
            assert_eq!(got, want, "Added<B>");
        }
        2 => {
            let want = want(&|e| with(e, Kind::A) && !with(e, Kind::C), touched(&[Kind::A], &written));
            let got: BTreeSet<Entity> = obs.changed_a_without_c.iter(world).collect();
            assert_eq!(got, want, "(Changed<A>, Without<C>)");
        }
        3 => {
            // Query: With<C>; dirty: A or B changed/added/removed, or started matching
            // (C added).
            let mut dirty = touched(&[Kind::A, Kind::B], &[What::Added, What::Changed, What::Removed]);
            dirty.extend(touched(&[Kind::C], &[What::Added]));
            let want = want(&|e| with(e, Kind::C), dirty);
            let got: BTreeSet<Entity> = obs.dirty_ab_on_c.iter(world).collect();
            assert_eq!(got, want, "(With<C>, Dirty<(A, B)>)");
        }
        4 => {
            // Query: &A; dirty: C added/removed (a tag never changes otherwise) or
            // started matching (A added).
            let mut dirty = touched(&[Kind::C], &[What::Added, What::Changed, What::Removed]);
            dirty.extend(touched(&[Kind::A], &[What::Added]));
            let want = want(&|e| with(e, Kind::A), dirty);
            let got: BTreeSet<Entity> = obs.dirty_c_on_a.iter(world).map(|(e, _)| e).collect();
            assert_eq!(got, want, "Dirty<(C,)> on &A");
        }
        5 => {
            let want: Vec<Entity> =
                recent.iter().filter(|c| c.kind == Kind::A && c.what == What::Removed).map(|c| c.entity).collect();
            let got: Vec<Entity> = obs.removed_a.read(world).map(|(e, _)| e).collect();
            assert_eq!(got, want, "removals of A");
        }
        6 => {
            // Query: Or<(With<B>, With<C>)>; dirty: A added/changed/removed, or started
            // matching (gained B or C while having neither, maybe after losing them).
            let mut dirty = touched(&[Kind::A], &[What::Added, What::Changed, What::Removed]);
            dirty.extend(started_matching(model, recent, &|b, c| b || c));
            let want = want(&|e| with(e, Kind::B) || with(e, Kind::C), dirty);
            let got: BTreeSet<Entity> = obs.dirty_a_on_b_or_c.iter(world).collect();
            assert_eq!(got, want, "(Or<(With<B>, With<C>)>, Dirty<(A,)>)");
        }
        _ => {
            // Each alternative holds only for an entity that has its component.
            let (changed_a, added_b) = (touched(&[Kind::A], &written), touched(&[Kind::B], &[What::Added]));
            let want: BTreeSet<Entity> = model
                .alive
                .keys()
                .copied()
                .filter(|&e| {
                    (with(e, Kind::A) && (all || changed_a.contains(&e)))
                        || (with(e, Kind::B) && (all || added_b.contains(&e)))
                })
                .collect();
            let got: BTreeSet<Entity> = obs.changed_a_or_added_b.iter(world).collect();
            assert_eq!(got, want, "Or<(Changed<A>, Added<B>)>");
        }
    }
    obs.seen[which] = Some(model.log.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn change_tracking_matches_model(
        prefill in 0u16..600,
        ops in prop::collection::vec(op(), 1..200),
        sparse in prop::array::uniform3(any::<bool>()),
    ) {
        run(prefill, ops, sparse);
    }
}
