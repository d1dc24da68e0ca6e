//! Parallel runs: conflicting systems never overlap, independent ones do, and random
//! system sets give the same world in parallel and single-threaded mode. No assertion
//! here reads a clock: systems that must not overlap record who is inside at once, and
//! systems that must overlap meet at a rendezvous (a barrier, no deadline), so a
//! loaded machine slows the tests down but cannot fail them.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};

use ripple::prelude::*;
use ripple::schedule::{SystemConfig, SystemId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct A(u64);
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct B(u64);
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct C(u64);
#[derive(Default)]
struct Sum(u64);

/// What each system shape touches, by kind (see [`shape`]).
const TOUCHES: [Touches; 8] = [
    (&["B"], &["A"]),
    (&["C"], &["B"]),
    (&["A"], &["C"]),
    (&["A"], &["Sum"]),
    (&[], &["A"]),
    (&["B"], &[]),
    (&["Sum"], &["C"]),
    (&["world"], &["world"]),
];

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// What a system shape touches: (reads, writes) over "A", "B", "C", "Sum", "world".
type Touches = (&'static [&'static str], &'static [&'static str]);
/// A world's contents, order-free: every entity's components, sorted, and the sum.
type Contents = (Vec<(Option<A>, Option<B>, Option<C>)>, u64);

/// Who is running now, for systems that check on entry that nothing they conflict
/// with is inside: the systems inside (id, access), and the conflicting pairs met.
#[derive(Default)]
struct Occupancy {
    inside: Mutex<Vec<(usize, Touches)>>,
    clashes: Mutex<Vec<(usize, usize)>>,
    runs: AtomicUsize,
}

type Watch = Arc<Occupancy>;

impl Occupancy {
    /// Runs `work` as system `id` with access `touches`, noting every system inside at
    /// the same time whose access conflicts. It stays inside a while (yielding its
    /// thread, not watching a clock) to give a wrong overlap the chance to show.
    fn inside(&self, id: usize, touches: Touches, work: impl FnOnce()) {
        {
            let mut inside = self.inside.lock().unwrap();
            for &(other, theirs) in inside.iter() {
                if conflict(touches, theirs) {
                    self.clashes.lock().unwrap().push((id, other));
                }
            }
            inside.push((id, touches));
        }
        self.runs.fetch_add(1, Ordering::SeqCst);
        work();
        for _ in 0..50 {
            std::thread::yield_now();
        }
        let mut inside = self.inside.lock().unwrap();
        let at = inside.iter().position(|&(other, _)| other == id).expect("entered");
        inside.swap_remove(at);
    }
}

/// One of a few system shapes, each touching different components and resources;
/// `k` varies its arithmetic. Returns the system and a description of its access:
/// (reads, writes) over "A", "B", "C", "Sum", "world".
fn shape(
    kind: u64,
    k: u64,
    watch: Option<(Watch, usize)>,
) -> (SystemConfig, &'static [&'static str], &'static [&'static str]) {
    let (reads, writes) = TOUCHES[kind.min(7) as usize];
    let guard = move |work: &mut dyn FnMut()| match &watch {
        Some((watch, id)) => watch.inside(*id, (reads, writes), work),
        None => work(),
    };
    let config = match kind {
        0 => (move |mut q: Query<(&mut A, &B)>| {
            guard(&mut || q.for_each_mut(|(mut a, b)| a.0 = a.0.wrapping_mul(31).wrapping_add(b.0 + k)));
        })
        .into_config(),
        1 => (move |mut q: Query<(&mut B, &C)>| guard(&mut || q.for_each_mut(|(mut b, c)| b.0 ^= c.0.wrapping_add(k))))
            .into_config(),
        2 => (move |mut q: Query<(&mut C, &A)>| {
            guard(&mut || q.for_each_mut(|(mut c, a)| c.0 = c.0.wrapping_add(a.0.wrapping_mul(k))));
        })
        .into_config(),
        3 => (move |mut q: Query<&A>, mut sum: ResMut<Sum>| {
            guard(&mut || q.for_each(|a| sum.0 = sum.0.wrapping_add(a.0)));
        })
        .into_config(),
        4 => (move |mut q: Query<&mut A, With<C>>| guard(&mut || q.for_each_mut(|mut a| a.0 = a.0.wrapping_add(k))))
            .into_config(),
        5 => (move |mut commands: Commands, mut q: Query<(Entity, &B)>| {
            guard(&mut || {
                q.for_each(|(e, b)| {
                    if b.0 % 5 == k % 5 {
                        commands.despawn(e);
                    }
                });
                commands.spawn((A(k), B(k * 3), C(k * 7)));
                commands.spawn((A(k + 1), B(k)));
            });
        })
        .into_config(),
        6 => (move |sum: Res<Sum>, mut q: Query<&mut C>| {
            guard(&mut || q.for_each_mut(|mut c| c.0 = c.0.wrapping_add(sum.0 % 7)));
        })
        .into_config(),
        _ => (move |world: &mut World| {
            guard(&mut || {
                world.spawn((A(k), C(k)));
            });
        })
        .into_config(),
    };
    (config, reads, writes)
}

fn conflict(a: (&[&str], &[&str]), b: (&[&str], &[&str])) -> bool {
    let touches = |side: (&[&str], &[&str]), x: &str| side.0.contains(&x) || side.1.contains(&x);
    a.0.contains(&"world")
        || b.0.contains(&"world")
        || a.1.iter().any(|x| touches(b, x))
        || b.1.iter().any(|x| touches(a, x))
}

fn start_world(rng: &mut Rng) -> World {
    let mut world = World::new();
    world.insert_resource(Sum::default());
    for i in 0..200 {
        match rng.below(3) {
            0 => world.spawn((A(i), B(i * 2))),
            1 => world.spawn((A(i), B(i), C(i * 5))),
            _ => world.spawn((B(i), C(i))),
        };
    }
    world
}

/// Adds a random set of systems: shapes, some ordered after an earlier one.
fn random_systems(
    rng: &mut Rng,
    world: &mut World,
    schedule: &mut Schedule,
    watch: Option<Watch>,
) -> Vec<(SystemId, Touches)> {
    let count = 3 + rng.below(8) as usize;
    let mut ids: Vec<(SystemId, Touches)> = Vec::new();
    for i in 0..count {
        let kind = rng.below(8);
        let (mut config, reads, writes) = shape(kind, i as u64 + 1, watch.clone().map(|watch| (watch, i)));
        if !ids.is_empty() && rng.below(3) == 0 {
            let earlier = ids[rng.below(ids.len() as u64) as usize].0;
            config = config.after(earlier);
        }
        let id = schedule.add_system(world, config.named(format!("s{i}"))).unwrap();
        ids.push((id, (reads, writes)));
    }
    ids
}

fn contents(world: &mut World) -> Contents {
    let mut all: Vec<_> = world
        .query::<(Option<&A>, Option<&B>, Option<&C>)>()
        .iter(world)
        .map(|(a, b, c)| (a.copied(), b.copied(), c.copied()))
        .collect();
    all.sort();
    (all, world.resource::<Sum>().unwrap().0)
}

#[test]
fn parallel_and_single_threaded_runs_give_identical_worlds() {
    for seed in 1..=40u64 {
        let mut results = Vec::new();
        for single in [false, true] {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut world = start_world(&mut rng);
            let mut schedule = Schedule::new();
            schedule.set_single_threaded(single);
            random_systems(&mut rng, &mut world, &mut schedule, None);
            for _ in 0..6 {
                schedule.run(&mut world);
            }
            results.push(contents(&mut world));
        }
        assert_eq!(results[0], results[1], "seed {seed}");
    }
}

#[test]
fn conflicting_systems_never_overlap() {
    // Two threads whatever the machine, and no profiling, so every stage of several
    // systems runs in parallel (a profiled schedule keeps stages whose work is tiny
    // on the calling thread).
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for seed in 1..=12u64 {
        let watch: Watch = Arc::default();
        let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let mut world = start_world(&mut rng);
        let mut schedule = Schedule::new();
        schedule.set_profiling(false);
        let systems = random_systems(&mut rng, &mut world, &mut schedule, Some(watch.clone()));
        for _ in 0..5 {
            pool.install(|| schedule.run(&mut world));
        }
        assert_eq!(watch.runs.load(Ordering::SeqCst), systems.len() * 5, "seed {seed}: every system ran");
        let clashes = watch.clashes.lock().unwrap();
        assert!(clashes.is_empty(), "seed {seed}: conflicting systems ran at the same time: {clashes:?}");
    }
}

/// A system body that waits at `barrier` until every system sharing it is inside at
/// once, then counts itself in `met`. No clock bounds the wait: a schedule that ran
/// the systems one after the other would leave the first waiting for ever (the test
/// hangs, it cannot pass), and a correct one passes however loaded the machine.
fn rendezvous(barrier: &Arc<Barrier>, met: &Arc<AtomicUsize>) -> impl Fn() + Send + Sync + 'static {
    let (barrier, met) = (Arc::clone(barrier), Arc::clone(met));
    move || {
        barrier.wait();
        met.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn independent_systems_of_one_stage_run_at_the_same_time() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut rng = Rng(7);
    let mut world = start_world(&mut rng);
    let (barrier, met) = (Arc::new(Barrier::new(2)), Arc::new(AtomicUsize::new(0)));
    let mut schedule = Schedule::new();
    schedule.set_profiling(false);
    // Shapes 0 (writes A, reads B) and 6 (writes C, reads Sum) share nothing.
    let first = rendezvous(&barrier, &met);
    schedule
        .add_system(&mut world, move |mut q: Query<(&mut A, &B)>| {
            q.for_each_mut(|(mut a, b)| a.0 = a.0.wrapping_add(b.0));
            first();
        })
        .unwrap();
    let second = rendezvous(&barrier, &met);
    schedule
        .add_system(&mut world, move |sum: Res<Sum>, mut q: Query<&mut C>| {
            q.for_each_mut(|mut c| c.0 = c.0.wrapping_add(sum.0));
            second();
        })
        .unwrap();
    pool.install(|| schedule.run(&mut world));
    // Reached only if both were inside at once (each passed the barrier); a slow
    // machine only makes the first one wait longer.
    assert_eq!(met.load(Ordering::SeqCst), 2, "the two independent systems were running at the same time");
}

/// Whether the systems of the stage-estimate tests meet.
struct Both(bool);

/// A schedule of two systems of one stage that meet at a rendezvous while [`Both`]
/// holds: the first always enabled, the second (returned) behind `Both` and enabled
/// or not as `enabled` says. The profiler is on (the default), so a stage whose last
/// run was measured as too little work for other threads runs on the calling thread.
fn joining_schedule(world: &mut World, met: &Arc<AtomicUsize>, enabled: bool) -> (Schedule, SystemId) {
    world.insert_resource(Both(false));
    let barrier = Arc::new(Barrier::new(2));
    let mut schedule = Schedule::new();
    let first = rendezvous(&barrier, met);
    schedule
        .add_system(world, move |both: Res<Both>, mut q: Query<&mut A>| {
            q.for_each_mut(|mut a| a.0 = a.0.wrapping_add(1));
            if both.0 {
                first();
            }
        })
        .unwrap();
    let second = rendezvous(&barrier, met);
    let joining = (move |mut q: Query<&mut C>| {
        q.for_each_mut(|mut c| c.0 = c.0.wrapping_add(1));
        second();
    })
    .run_if(|both: Res<Both>| both.0);
    let joining = schedule.add_system(world, if enabled { joining } else { joining.disabled() }).unwrap();
    (schedule, joining)
}

#[test]
fn a_stage_measured_alone_runs_in_parallel_again_when_a_system_is_enabled() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut world = start_world(&mut Rng(11));
    let met = Arc::new(AtomicUsize::new(0));
    let (mut schedule, joining) = joining_schedule(&mut world, &met, false);
    for _ in 0..3 {
        pool.install(|| schedule.run(&mut world));
    }
    // The stage was measured with one system; the one enabled now never ran, so the
    // stage's work is unknown again and its next run is in parallel.
    schedule.set_enabled(joining, true).unwrap();
    world.insert_resource(Both(true));
    pool.install(|| schedule.run(&mut world));
    assert_eq!(met.load(Ordering::SeqCst), 2, "the enabled system ran beside the other one");
}

#[test]
fn a_system_held_back_by_its_condition_first_runs_beside_its_stage() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut world = start_world(&mut Rng(12));
    let met = Arc::new(AtomicUsize::new(0));
    let (mut schedule, _) = joining_schedule(&mut world, &met, true);
    for _ in 0..3 {
        pool.install(|| schedule.run(&mut world));
    }
    assert_eq!(met.load(Ordering::SeqCst), 0);
    // Enabled all along but never run: its duration is unknown, so its first run is
    // in parallel with the measured one.
    world.insert_resource(Both(true));
    pool.install(|| schedule.run(&mut world));
    assert_eq!(met.load(Ordering::SeqCst), 2, "the held-back system ran beside the other one");
}
