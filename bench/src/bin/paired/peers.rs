//! The paired tool's workloads added for the peers' fastest forms and for every standing
//! bar that compares two lines: the sparse-set lines (frag_iter, add_remove) against
//! shipyard and specs, toggle, Crate-topia's renderer, mover and frame steps, and
//! simple_insert and schedule against each peer's fastest form.

use std::hint::black_box;
use std::time::Instant;

use bench::*;

use super::{Step, StepLine, Stepped, Workload};

/// frag_iter with the letters in sparse sets (one table of Data), against shipyard.
pub fn frag_iter_sparse() -> Workload {
    use shipyard::{IntoIter, ViewMut};
    let mut world = ripple::World::new();
    macro_rules! sparse {
        ($l:ident) => {
            world.set_storage::<$l>(ripple::Storage::SparseSet).unwrap();
            world.spawn_batch((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
        };
    }
    for_each_letter!(sparse);
    let mut query = world.query::<&mut Data>();
    let ripple: Pass = Box::new(move || query.for_each_mut(&mut world, |mut data| data.0 *= 2.0));

    let mut world = shipyard::World::new();
    macro_rules! spawn_shipyard {
        ($l:ident) => {
            world.bulk_add_entity((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
        };
    }
    for_each_letter!(spawn_shipyard);
    let shipyard: Pass = Box::new(move || {
        world.run(|mut datas: ViewMut<'_, Data>| (&mut datas).iter().for_each(|data| data.0 *= 2.0));
    });
    Workload { name: "frag_iter_sparse", ripple, others: vec![("shipyard", shipyard)] }
}

/// add_remove with B in a sparse set, added and removed through the set's view, against
/// shipyard's and specs' storages (as `benches/add_remove.rs`).
pub fn add_remove_sparse() -> Workload {
    let mut world = ripple::World::new();
    world.set_storage::<B>(ripple::Storage::SparseSet).unwrap();
    let entities: Vec<ripple::Entity> = world.spawn_batch((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
    let ripple: Pass = Box::new(move || {
        let mut bs = world.sparse_mut::<B>().unwrap();
        for &e in &entities {
            bs.insert(e, B(0.0)).unwrap();
        }
        for &e in &entities {
            black_box(bs.remove(e).unwrap());
        }
    });

    let mut world = shipyard::World::new();
    let entities: Vec<_> = world.bulk_add_entity((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
    let shipyard: Pass = Box::new(move || {
        use shipyard::{Delete, EntitiesView, ViewMut};
        world.run(|ents: EntitiesView<'_>, mut bs: ViewMut<'_, B>| {
            for &e in &entities {
                ents.add_component(e, &mut bs, B(0.0));
            }
            for &e in &entities {
                black_box(bs.delete(e));
            }
        })
    });

    let specs: Pass = {
        use specs::{Builder, WorldExt};
        let mut world = specs::World::new();
        world.register::<A>();
        world.register::<B>();
        let entities: Vec<_> = (0..N_ADD_REMOVE).map(|_| world.create_entity().with(A(0.0)).build()).collect();
        Box::new(move || {
            let mut bs = world.write_storage::<B>();
            for &e in &entities {
                bs.insert(e, B(0.0)).unwrap();
            }
            for &e in &entities {
                black_box(bs.remove(e));
            }
        })
    };
    Workload { name: "add_remove_sparse", ripple, others: vec![("shipyard", shipyard), ("specs", specs)] }
}

/// toggle: one frame of `bench::toggle` per pass, ripple (sparse marker) against every
/// other line.
pub fn toggle() -> Workload {
    let mut lines = bench::toggle::lines();
    for (name, line) in &mut lines {
        bench::toggle::check(name, line.as_mut());
    }
    let passes = lines.into_iter().map(|(name, mut line)| {
        let mut f = 0;
        let pass: Pass = Box::new(move || {
            black_box(bench::toggle::frame(line.as_mut(), f % bench::toggle::GROUPS));
            f += 1;
        });
        (name, pass)
    });
    from_lines("toggle", passes.collect())
}

/// Which step of a Crate-topia frame a paired workload times.
#[derive(Clone, Copy)]
enum Part {
    Render,
    Frame,
    Mover,
}

/// A Crate-topia step at (N, K) for ripple and the named lines (`ripple_untracked` is
/// ripple's mover with Position untracked): the lines are built and their checksums
/// checked as in `benches/crate_topia.rs`; each step runs one frame, timing `part`.
fn crate_topia(name: &'static str, n: usize, k: usize, part: Part, others: &[&'static str]) -> Stepped {
    use bench::crate_topia::{RippleUntracked, Step as Half, build_lines, check_checksums, time_step};
    let mut lines = build_lines(n, k);
    check_checksums(&mut lines, n, k);
    let mut take = |wanted: &str| -> Box<dyn bench::crate_topia::Line> {
        if wanted == "ripple_untracked" {
            return Box::new(RippleUntracked::new(n, &crate_topia::mover_indices(n, k)));
        }
        let at = lines.iter().position(|(name, _)| *name == wanted).expect("a crate_topia line");
        lines.swap_remove(at).1
    };
    let step = |mut line: Box<dyn bench::crate_topia::Line>| -> StepLine {
        let step: Step = match part {
            Part::Render => Box::new(move || time_step(line.as_mut(), 1, Half::Render)),
            Part::Mover => Box::new(move || time_step(line.as_mut(), 1, Half::Mover)),
            Part::Frame => Box::new(move || {
                let start = Instant::now();
                black_box(crate_topia::frame(line.as_mut()));
                start.elapsed()
            }),
        };
        StepLine { step, bytes: 0 }
    };
    let ripple = step(take("ripple"));
    let others = others.iter().map(|&other| (other, step(take(other)))).collect();
    Stepped { name, ripple, others }
}

/// A crossover frame at (N, K): ripple's README form against `ripple_of` and the
/// peers' fastest forms (the lines of `bench::crossover`, checksums checked).
fn crossover(name: &'static str, n: usize, k: usize) -> Stepped {
    let mut lines = bench::crossover::build_lines(n, k);
    let step = |mut line: Box<dyn bench::crate_topia::Line>| -> StepLine {
        let step: Step = Box::new(move || {
            let start = Instant::now();
            black_box(crate_topia::frame(line.as_mut()));
            start.elapsed()
        });
        StepLine { step, bytes: 0 }
    };
    let ripple = step(lines.remove(0).1);
    let others = lines.into_iter().map(|(other, line)| (other, step(line))).collect();
    Stepped { name, ripple, others }
}

/// The crossover's points, each built only when run: `crossover/N=..,K=..`.
pub fn crossover_steps() -> Vec<MakeTopia> {
    let mut steps: Vec<MakeTopia> = Vec::new();
    for n in bench::crossover::SIZES {
        for per_mille in bench::crossover::PER_MILLE {
            let k = bench::crossover::k_of(n, per_mille);
            // A workload's name lives as long as the tool.
            let name: &'static str = Box::leak(bench::crossover::group_name(n, k).into_boxed_str());
            steps.push((name, Box::new(move || crossover(name, n, k))));
        }
    }
    steps
}

/// A rollback point: ripple's checkpoint (or rollback of 8 frames) against the
/// `snapshot` and `floor` lines of `bench::rollback` (states checked equal).
fn rollback(name: &'static str, n: usize, k: usize, restore: bool, disjoint: bool) -> Stepped {
    let lines = bench::rollback::build_lines(n, k, disjoint);
    let step = |mut line: Box<dyn bench::rollback::Line>| -> StepLine {
        let mut frame = 1_000;
        let step: Step = Box::new(move || {
            if restore {
                bench::rollback::rollback_step(line.as_mut(), &mut frame)
            } else {
                bench::rollback::checkpoint_step(line.as_mut(), &mut frame)
            }
        });
        StepLine { step, bytes: 0 }
    };
    let mut lines = lines.into_iter();
    let ripple = step(lines.next().expect("ripple's line").1);
    let others = lines.map(|(other, line)| (other, step(line))).collect();
    Stepped { name, ripple, others }
}

/// The rollback points, each built only when run: `rollback_checkpoint/N=..,K=..`,
/// `rollback_restore/N=..,K=..` and both with `_disjoint`.
pub fn rollback_steps() -> Vec<MakeTopia> {
    let mut steps: Vec<MakeTopia> = Vec::new();
    for n in bench::rollback::SIZES {
        for k in bench::rollback::CHANGED {
            for (part, restore, disjoint) in [
                ("checkpoint", false, false),
                ("restore", true, false),
                ("checkpoint_disjoint", false, true),
                ("restore_disjoint", true, true),
            ] {
                let name: &'static str = Box::leak(bench::rollback::group_name(part, n, k).into_boxed_str());
                steps.push((name, Box::new(move || rollback(name, n, k, restore, disjoint))));
            }
        }
    }
    steps
}

/// A Crate-topia workload's name and how to build it.
pub type MakeTopia = (&'static str, Box<dyn Fn() -> Stepped>);

/// The Crate-topia comparisons the standing bars make, at N = 1,000,000, each built
/// only when run.
pub fn crate_topia_steps() -> Vec<MakeTopia> {
    const N: usize = 1_000_000;
    let make = |name: &'static str, k: usize, part: Part, others: &'static [&'static str]| -> MakeTopia {
        (name, Box::new(move || crate_topia(name, N, k, part, others)))
    };
    vec![
        make("crate_topia_render/N=1000000,K=0", 0, Part::Render, &["specs", "specs_events"]),
        make(
            "crate_topia_render/N=1000000,K=100",
            100,
            Part::Render,
            &["specs", "specs_events", "bevy_ecs", "bevy_ecs_contiguous"],
        ),
        make("crate_topia_render/N=1000000,K=10000", 10_000, Part::Render, &["ideal", "specs", "specs_events"]),
        make("crate_topia_frame/N=1000000,K=0", 0, Part::Frame, &["specs", "specs_events"]),
        make("crate_topia_frame/N=1000000,K=100", 100, Part::Frame, &["specs", "specs_events"]),
        make("crate_topia_frame/N=1000000,K=10000", 10_000, Part::Frame, &["specs", "specs_events"]),
        make(
            "crate_topia_mover/N=1000000,K=10000",
            10_000,
            Part::Mover,
            &["specs", "specs_events", "ripple_untracked"],
        ),
    ]
}

/// simple_insert: one step builds a fresh world of 10,000 (Transform, Position, Rotation,
/// Velocity) and drops it, as `benches/simple_insert.rs` times them, for ripple and the
/// peers that come near it.
pub fn simple_insert() -> Stepped {
    fn step<W: 'static>(mut build: impl FnMut() -> W + 'static) -> StepLine {
        let step: Step = Box::new(move || {
            let start = Instant::now();
            drop(black_box(build()));
            start.elapsed()
        });
        StepLine { step, bytes: 0 }
    }
    let ripple = step(|| {
        let mut world = ripple::World::new();
        world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
        world
    });
    let shipyard = step(|| {
        let mut world = shipyard::World::new();
        world.bulk_add_entity((0..N_ENTITIES).map(|_| tprv()));
        world
    });
    let bevy = step(|| {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
        world
    });
    let hecs = step(|| {
        let mut world = hecs::World::new();
        world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
        world
    });
    Stepped { name: "simple_insert", ripple, others: vec![("shipyard", shipyard), ("bevy_ecs", bevy), ("hecs", hecs)] }
}

/// Paired form of a list of (name, pass) lines whose first is ripple's.
pub fn from_lines(name: &'static str, lines: Vec<(&'static str, Pass)>) -> Workload {
    let mut lines = lines.into_iter();
    let (_, ripple) = lines.next().expect("ripple's line comes first");
    Workload { name, ripple, others: lines.collect() }
}

/// observe_lifecycle: inserting and removing an observed component (`bench::observers`).
pub fn observe_lifecycle() -> Workload {
    from_lines("observe_lifecycle", bench::observers::lifecycle_lines())
}

/// observe_lifecycle_unobserved: the same passes with no observer, to subtract
/// (`bench::observers`).
pub fn observe_lifecycle_unobserved() -> Workload {
    from_lines("observe_lifecycle_unobserved", bench::observers::lifecycle_unobserved_lines())
}

/// observe_trigger: bubbling custom triggers (`bench::observers`).
pub fn observe_trigger() -> Workload {
    from_lines("observe_trigger", bench::observers::trigger_lines())
}

/// The name of observe_mutation at K = 100.
pub const OBSERVE_MUTATION_100: &str = "observe_mutation/N=1000000,K=100";
/// The name of observe_mutation at K = 10,000.
pub const OBSERVE_MUTATION_10000: &str = "observe_mutation/N=1000000,K=10000";

/// observe_mutation at N = 1,000,000, K = 100 (`bench::observers`).
pub fn observe_mutation_100() -> Workload {
    from_lines(OBSERVE_MUTATION_100, bench::observers::mutation_lines(1_000_000, 100))
}

/// observe_mutation at N = 1,000,000, K = 10,000 (`bench::observers`).
pub fn observe_mutation_10000() -> Workload {
    from_lines(OBSERVE_MUTATION_10000, bench::observers::mutation_lines(1_000_000, 10_000))
}

/// The name of replicate at N = 1,000,000, K = 100, 16 peers.
pub const REPLICATE: &str = "replicate/N=1000000,K=100,peers=16";
/// The name of apply_delta at K = 10,000.
pub const APPLY_DELTA: &str = "apply_delta/K=10000";

/// replicate: sixteen peers' deltas after K writes (`bench::replicate`).
pub fn replicate() -> Workload {
    from_lines(REPLICATE, bench::replicate::replicate_lines(1_000_000, 100, 16))
}

/// apply_delta: a delta of K changes applied (`bench::replicate`).
pub fn apply_delta() -> Workload {
    from_lines(APPLY_DELTA, bench::replicate::apply_lines(10_000))
}

/// events: one frame of a writer and four readers through each scheduler
/// (`bench::events`).
pub fn events() -> Workload {
    from_lines("events", bench::events::lines(false))
}

/// events_merged: the hits merged by target (ripple) or folded by every reader, or
/// totalled by the writer (bevy's lines).
pub fn events_merged() -> Workload {
    from_lines("events_merged", bench::events::lines(true))
}

/// events_direct: the bus alone.
pub fn events_direct() -> Workload {
    from_lines("events_direct", bench::events::direct_lines())
}

/// get_mut and world_get_mut: a tracked write of each of K = 10,000 known entities among
/// N = 100,000 (Crate-topia's crates and movers), one `get_mut` call per entity:
/// ripple's `QueryState::get_mut` (or, with `through_world`, `World::get_mut`; Position
/// tracked) against bevy_ecs's (bevy always tracks).
fn get_mut_of(name: &'static str, through_world: bool) -> Workload {
    use bench::crate_topia::{Position, mover_indices, ripple_tracked_movers, spawn_item};
    const N: usize = 100_000;
    const K: usize = 10_000;
    let (mut world, movers) = ripple_tracked_movers(N, K);
    let mut query = world.query::<&mut Position>();
    let ripple: Pass = Box::new(move || {
        for &e in &movers {
            // A branch the predictor always gets right, on both sides alike.
            if through_world {
                world.get_mut::<Position>(e).unwrap().x += 1.0;
            } else {
                query.get_mut(&mut world, e).unwrap().x += 1.0;
            }
        }
    });
    let mut world = bevy_ecs::world::World::new();
    let ids: Vec<bevy_ecs::entity::Entity> = world.spawn_batch((0..N).map(spawn_item)).collect();
    let movers: Vec<bevy_ecs::entity::Entity> = mover_indices(N, K).into_iter().map(|i| ids[i]).collect();
    let mut query = world.query::<&mut Position>();
    let bevy: Pass = Box::new(move || {
        for &e in &movers {
            if through_world {
                world.get_mut::<Position>(e).unwrap().x += 1.0;
            } else {
                query.get_mut(&mut world, e).unwrap().x += 1.0;
            }
        }
    });
    Workload { name, ripple, others: vec![("bevy_ecs", bevy)] }
}

/// get_mut: through `QueryState::get_mut` (see [`get_mut_of`]).
pub fn get_mut() -> Workload {
    get_mut_of("get_mut", false)
}

/// world_get_mut: through `World::get_mut` (see [`get_mut_of`]).
pub fn world_get_mut() -> Workload {
    get_mut_of("world_get_mut", true)
}
