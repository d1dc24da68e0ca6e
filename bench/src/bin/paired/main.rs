//! Paired ratios for the workloads where ripple and the best peers meet the same floor:
//! simple_iter, frag_iter, heavy_compute and add_remove, of ripple's tracked
//! simple_iter pass to its untracked one, and of ripple's propagation to a full
//! recomputation when every local transform changed (`propagate/K=100000`, whose frames
//! write untimed before the timed step), and of ripple's saves and loads to hecs's
//! (`serialize_text`, `serialize_binary`, `deserialize_text`, `deserialize_binary`, one save or load per
//! step, as `benches/serialize.rs` times them).
//!
//! criterion measures one library after another, each for a couple of seconds. On a
//! shared machine the load drifts between those windows, which moves a ratio of two
//! libraries that run the same machine code by ±10–20 % from run to run. This tool runs
//! ripple and each peer alternately instead, pass for pass (ripple first in even rounds,
//! the peer first in odd ones), and reports the median of the per-round ratios: both
//! sides of a ratio saw the same machine. The rounds are spread over several processes
//! whose stacks start at different offsets (see [`PLACEMENTS`]): where a process's stack
//! lies moves these tight loops by more than the libraries differ. It complements
//! criterion's tables (`bench/RESULTS.md`); it does not replace them.
//!
//! Usage: `cargo run -p bench --release --bin paired [rounds] [workload ...]` (default
//! 400 rounds, every workload); prints a markdown table and writes it to
//! `bench/PAIRED.md` (or to the file under bench/ that `RIPPLE_PAIRED_OUT` names).

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use bench::scenes::{Format, HecsRowScene, HecsScene, IdealScene, RippleScene, Scene, prepared};
use bench::*;
use legion::IntoQuery;

mod peers;

/// A workload: ripple's pass and the peers' (or reference lines'), by name.
struct Workload {
    name: &'static str,
    ripple: Pass,
    others: Vec<(&'static str, Pass)>,
}

/// The shortest timed sample: passes are repeated until a sample takes about this long,
/// so that the clock's resolution does not matter.
const MIN_SAMPLE: Duration = Duration::from_micros(50);

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(400);
    let only: Vec<String> = std::env::args().skip(2).collect();
    if std::env::var_os(CHILD).is_some() {
        run_child(rounds, &only);
        return;
    }
    // Every placement runs its share of the rounds in a process of its own.
    let per_process = rounds.div_ceil(PLACEMENTS).max(1);
    let mut pairs: Vec<Pair> = Vec::new();
    for placement in 0..PLACEMENTS {
        let output = std::process::Command::new(std::env::current_exe().expect("the tool's own path"))
            .arg(per_process.to_string())
            .args(&only)
            .env(CHILD, "1")
            .env("RIPPLE_PAIRED_PAD", "x".repeat(placement * 4096 / PLACEMENTS))
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("could not start a measuring process");
        assert!(output.status.success(), "a measuring process failed: {}", output.status);
        let mut in_process: Vec<(String, String, Vec<f64>)> = Vec::new();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            let [workload, other, ours, theirs] = fields[..] else { continue };
            let (ours, theirs): (f64, f64) = (ours.parse().unwrap(), theirs.parse().unwrap());
            let index = match pairs.iter().position(|p| p.workload == workload && p.other == other) {
                Some(index) => index,
                None => {
                    pairs.push(Pair { workload: workload.into(), other: other.into(), ..Pair::default() });
                    pairs.len() - 1
                }
            };
            let pair = &mut pairs[index];
            pair.ours.push(ours);
            pair.theirs.push(theirs);
            pair.ratios.push(ours / theirs);
            match in_process.iter_mut().find(|(w, o, _)| w == workload && o == other) {
                Some((_, _, ratios)) => ratios.push(ours / theirs),
                None => in_process.push((workload.into(), other.into(), vec![ours / theirs])),
            }
        }
        for (workload, other, mut ratios) in in_process {
            let pair = pairs.iter_mut().find(|p| p.workload == workload && p.other == other).unwrap();
            pair.process_medians.push(median(&mut ratios));
        }
    }
    let mut table = String::new();
    writeln!(
        table,
        "| workload | other | ripple median | other median | median of paired ratios ripple / other | rounds ripple was faster | per-process medians (min – max) |"
    )
    .unwrap();
    writeln!(table, "|---|---|---:|---:|---:|---:|---:|").unwrap();
    for pair in &mut pairs {
        let faster = pair.ratios.iter().filter(|&&r| r < 1.0).count();
        let lowest = pair.process_medians.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = pair.process_medians.iter().copied().fold(0.0, f64::max);
        writeln!(
            table,
            "| {} | {} | {} | {} | **{:.3}** | {faster} / {} | {lowest:.3} – {highest:.3} |",
            pair.workload,
            pair.other,
            fmt_ns(median(&mut pair.ours) * 1e9),
            fmt_ns(median(&mut pair.theirs) * 1e9),
            median(&mut pair.ratios),
            pair.ratios.len(),
        )
        .unwrap();
    }
    print!("{table}");
    let report = format!(
        "# ripple paired ratios\n\nGenerated by `cargo run -p bench --release --bin paired {rounds}{}`: \
         ripple and each other line run alternately, pass for pass, in {PLACEMENTS} processes whose \
         stacks start at different offsets; the ratio is the median of all per-round ratios (see the \
         tool's docs). Per-pass medians beside it, and the spread of the processes' own medians.\n\n{table}",
        only.iter().map(|name| format!(" {name}")).collect::<String>()
    );
    // `RIPPLE_PAIRED_OUT` names another file under bench/ (the report reads
    // PAIRED_NATIVE.md for a build with `-C target-cpu=native`).
    let name = std::env::var("RIPPLE_PAIRED_OUT").unwrap_or_else(|_| "PAIRED.md".to_owned());
    let path = format!("{}/{name}", env!("CARGO_MANIFEST_DIR"));
    if let Err(error) = std::fs::write(&path, report) {
        eprintln!("could not write {path}: {error}");
    }
}

/// Set in the measuring processes the tool starts.
const CHILD: &str = "RIPPLE_PAIRED_CHILD";

/// Processes the rounds are spread over. The same machine code runs up to 1.8× slower
/// or faster depending on where its process's stack starts (measured on frag_iter:
/// 99 – 182 ns for ripple over 16 environment sizes, with address randomization off,
/// and a different shift for each library); one process draws one placement, so a
/// ratio from one process is partly a lottery. The tool pads the environment (which
/// the stack starts below) by a different eighth of a page in each process.
const PLACEMENTS: usize = 8;

/// The samples of ripple against one other line, over all processes.
#[derive(Default)]
struct Pair {
    workload: String,
    other: String,
    ours: Vec<f64>,
    theirs: Vec<f64>,
    ratios: Vec<f64>,
    /// Each process's median ratio.
    process_medians: Vec<f64>,
}

/// One measuring process: runs the rounds and prints each as
/// `workload, other, ripple seconds, other seconds`, tab-separated.
fn run_child(rounds: usize, only: &[String]) {
    /// Builds a workload's prepared worlds.
    type Make = fn() -> Workload;
    let workloads: [(&str, Make); 25] = [
        ("empty_systems", empty_systems),
        ("empty_systems_with_conditions", empty_systems_with_conditions),
        ("schedule", schedule),
        ("simple_iter", simple_iter),
        ("simple_iter_tracked", simple_iter_tracked),
        ("simple_iter_dynamic", simple_iter_dynamic),
        ("relations", relations),
        ("frag_iter", frag_iter),
        ("frag_iter_sparse", peers::frag_iter_sparse),
        ("heavy_compute", heavy_compute),
        ("add_remove", add_remove),
        ("add_remove_sparse", peers::add_remove_sparse),
        ("toggle", peers::toggle),
        ("events", peers::events),
        ("events_merged", peers::events_merged),
        ("events_direct", peers::events_direct),
        ("get_mut", peers::get_mut),
        ("world_get_mut", peers::world_get_mut),
        ("observe_lifecycle", peers::observe_lifecycle),
        ("observe_lifecycle_unobserved", peers::observe_lifecycle_unobserved),
        ("observe_trigger", peers::observe_trigger),
        (peers::OBSERVE_MUTATION_100, peers::observe_mutation_100),
        (peers::OBSERVE_MUTATION_10000, peers::observe_mutation_10000),
        (peers::REPLICATE, peers::replicate),
        (peers::APPLY_DELTA, peers::apply_delta),
    ];
    let chosen = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    for (_, make) in workloads.iter().filter(|(name, _)| chosen(name)) {
        let mut workload = make();
        let reps = repetitions(&mut workload.ripple);
        for (other, pass) in &mut workload.others {
            for round in 0..rounds {
                let (ours, theirs) = if round % 2 == 0 {
                    let ours = time(&mut workload.ripple, reps);
                    (ours, time(pass, reps))
                } else {
                    let theirs = time(pass, reps);
                    (time(&mut workload.ripple, reps), theirs)
                };
                println!("{}\t{other}\t{ours}\t{theirs}", workload.name);
            }
        }
    }
    /// Builds a stepped workload's prepared worlds.
    type MakeStepped = fn() -> Stepped;
    let stepped: [(&str, MakeStepped); 6] = [
        ("simple_insert", peers::simple_insert),
        (PROPAGATE, propagate),
        (SERIALIZE_TEXT, serialize_text),
        (SERIALIZE_BINARY, serialize_binary),
        (DESERIALIZE_TEXT, deserialize_text),
        (DESERIALIZE_BINARY, deserialize_binary),
    ];
    // Crate-topia's steps (one workload per part and K, named as its criterion group),
    // built only when asked for by name or prefix, or when every workload runs.
    let made = stepped.iter().filter(|(name, _)| chosen(name)).map(|(_, make)| make());
    let topia = peers::crate_topia_steps()
        .into_iter()
        .filter(|(name, _)| only.is_empty() || only.iter().any(|o| name.starts_with(o.as_str())))
        .map(|(_, make)| make());
    // The crossover's twelve points (minutes at N = 1,000,000) and the rollback's eight,
    // only when asked for by name or prefix (`crossover`, `rollback`).
    let crossover = peers::crossover_steps()
        .into_iter()
        .filter(|(name, _)| only.iter().any(|o| name.starts_with(o.as_str())))
        .map(|(_, make)| make());
    let rollback = peers::rollback_steps()
        .into_iter()
        .filter(|(name, _)| only.iter().any(|o| name.starts_with(o.as_str())))
        .map(|(_, make)| make());
    let topia = topia.chain(crossover).chain(rollback);
    for mut workload in made.chain(topia) {
        let ripple = &mut workload.ripple;
        for (other, line) in &mut workload.others {
            for round in 0..rounds {
                let (ours, theirs) = if round % 2 == 0 {
                    let ours = (ripple.step)();
                    (ours, (line.step)())
                } else {
                    let theirs = (line.step)();
                    ((ripple.step)(), theirs)
                };
                let (ours, theirs) = (ours.as_secs_f64(), theirs.as_secs_f64());
                println!("{}\t{other}\t{ours}\t{theirs}", workload.name);
                if ripple.bytes > 0 && line.bytes > 0 {
                    let (ours, theirs) = (ours / ripple.bytes as f64, theirs / line.bytes as f64);
                    println!("{} per byte\t{other}\t{ours}\t{theirs}", workload.name);
                }
            }
        }
    }
}

/// One frame of a stepped workload: prepares the frame untimed, times one step and
/// returns its duration.
type Step = Box<dyn FnMut() -> Duration>;

/// A workload whose timed part follows an untimed preparation in every frame.
struct Stepped {
    name: &'static str,
    ripple: StepLine,
    others: Vec<(&'static str, StepLine)>,
}

/// A line's step and the bytes it writes or reads (0 where no bytes are involved):
/// with bytes, the tool also reports the ratio per byte (`<workload> per byte`), which
/// sets apart how much data a format has from how fast it is read or written.
struct StepLine {
    step: Step,
    bytes: usize,
}

const PROPAGATE: &str = "propagate/K=100000";

/// propagate at K = 100,000, as in `benches/propagate.rs`: every frame writes 100,000
/// random local transforms (untimed), then ripple's `Propagation` (its defaults), BRUTE
/// (the linear full recomputation), the depth-first walk it replaced, and bevy_transform's
/// systems each bring the globals up to date.
fn propagate() -> Stepped {
    use bench::forest::{Brute, BruteWalk, Frames, bevy_world, forest, ripple_world};
    use bevy_transform::components::{GlobalTransform, Transform};
    const K: usize = 100_000;
    let nodes = forest();
    let line = |form: &str| -> Step {
        let (mut world, ids) = ripple_world(&nodes);
        let mut frames = Frames::new(ids.len());
        let mut step: Box<dyn FnMut(&mut ripple::World)> = match form {
            "brute" => {
                let mut brute = Brute::new(&mut world, &nodes, &ids);
                Box::new(move |world| brute.run(world))
            }
            "brute_walk" => {
                let mut walk = BruteWalk::new(&mut world);
                Box::new(move |world| walk.run(world))
            }
            _ => {
                let mut propagation =
                    ripple::hierarchy::Propagation::new(&mut world, GlobalTransform::IDENTITY, |parent, local| {
                        GlobalTransform::mul_transform(parent, *local)
                    });
                Box::new(move |world| {
                    propagation.run(world);
                })
            }
        };
        step(&mut world);
        Box::new(move || {
            frames.next(K, |i, d| world.get_mut::<Transform>(ids[i]).unwrap().translation += d);
            let start = Instant::now();
            step(&mut world);
            start.elapsed()
        })
    };
    let bevy: Step = {
        let (mut world, mut schedule, ids) = bevy_world(&nodes);
        let mut frames = Frames::new(ids.len());
        Box::new(move || {
            frames.next(K, |i, d| world.get_mut::<Transform>(ids[i]).unwrap().translation += d);
            let start = Instant::now();
            schedule.run(&mut world);
            start.elapsed()
        })
    };
    let bytesless = |step| StepLine { step, bytes: 0 };
    Stepped {
        name: PROPAGATE,
        ripple: bytesless(line("ripple")),
        others: vec![
            ("brute", bytesless(line("brute"))),
            ("brute_walk", bytesless(line("brute_walk"))),
            ("bevy", bytesless(bevy)),
        ],
    }
}

const SERIALIZE_TEXT: &str = "serialize_text";
const SERIALIZE_BINARY: &str = "serialize_binary";
const DESERIALIZE_TEXT: &str = "deserialize_text";
const DESERIALIZE_BINARY: &str = "deserialize_binary";

/// A save of `benches/serialize.rs` as a step: clears the output buffer (untimed), then
/// times one save of the world into it.
fn save_step<S: Scene + 'static>(format: Format) -> StepLine {
    let (mut scene, mut out) = prepared::<S>(format);
    let bytes = out.len();
    let step = Box::new(move || {
        out.clear();
        let start = Instant::now();
        scene.save(format, &mut out);
        let elapsed = start.elapsed();
        black_box(&out);
        elapsed
    });
    StepLine { step, bytes }
}

/// A load of `benches/serialize.rs` as a step: times one load of the saved bytes into a
/// fresh world, then drops that world untimed (as criterion's `iter_with_large_drop`).
fn load_step<S: Scene + 'static>(format: Format) -> StepLine {
    let (mut scene, input) = prepared::<S>(format);
    let bytes = input.len();
    let step = Box::new(move || {
        let start = Instant::now();
        let loaded = scene.load(format, &input);
        let elapsed = start.elapsed();
        drop(black_box(loaded));
        elapsed
    });
    StepLine { step, bytes }
}

/// serialize_text: ripple's compact JSON save against hecs's column save.
fn serialize_text() -> Stepped {
    Stepped {
        name: SERIALIZE_TEXT,
        ripple: save_step::<RippleScene>(Format::Text),
        others: vec![
            ("hecs", save_step::<HecsScene>(Format::Text)),
            ("hecs_row", save_step::<HecsRowScene>(Format::Text)),
        ],
    }
}

/// serialize_binary: ripple's postcard save against hecs's column save, and against
/// ideal (serde of a plain `Vec` of rows).
fn serialize_binary() -> Stepped {
    Stepped {
        name: SERIALIZE_BINARY,
        ripple: save_step::<RippleScene>(Format::Binary),
        others: vec![
            ("hecs", save_step::<HecsScene>(Format::Binary)),
            ("ideal", save_step::<IdealScene>(Format::Binary)),
        ],
    }
}

/// deserialize_text: ripple's JSON load against hecs's column load, and against ideal.
fn deserialize_text() -> Stepped {
    Stepped {
        name: DESERIALIZE_TEXT,
        ripple: load_step::<RippleScene>(Format::Text),
        others: vec![
            ("hecs", load_step::<HecsScene>(Format::Text)),
            ("hecs_row", load_step::<HecsRowScene>(Format::Text)),
            ("ideal", load_step::<IdealScene>(Format::Text)),
        ],
    }
}

/// deserialize_binary: ripple's postcard load against hecs's column load, and against
/// ideal (serde of a plain `Vec` of rows).
fn deserialize_binary() -> Stepped {
    Stepped {
        name: DESERIALIZE_BINARY,
        ripple: load_step::<RippleScene>(Format::Binary),
        others: vec![
            ("hecs", load_step::<HecsScene>(Format::Binary)),
            ("ideal", load_step::<IdealScene>(Format::Binary)),
        ],
    }
}

/// How many passes make one sample of at least [`MIN_SAMPLE`] (after a warm-up).
fn repetitions(pass: &mut Pass) -> usize {
    for _ in 0..10 {
        pass();
    }
    let start = Instant::now();
    pass();
    let once = start.elapsed().max(Duration::from_nanos(1));
    (MIN_SAMPLE.as_nanos() / once.as_nanos()).max(1) as usize
}

/// Seconds per pass, over `reps` passes.
fn time(pass: &mut Pass, reps: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..reps {
        pass();
    }
    start.elapsed().as_secs_f64() / reps as f64
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// empty_systems: one run of a schedule of 50 empty systems, ripple's defaults against
/// bevy_ecs's defaults and its single-threaded executor (`bench::empty_systems`), and
/// against ripple's own schedule measuring every run or with a run condition on every
/// system.
fn empty_systems() -> Workload {
    use bench::empty_systems as fifty;
    let (mut world, mut schedule) = fifty::ripple();
    let ripple: Pass = Box::new(move || schedule.run(&mut world));
    let (mut world, mut schedule) = fifty::bevy_single_threaded();
    let single: Pass = Box::new(move || schedule.run(&mut world));
    let (mut world, mut schedule) = fifty::bevy();
    let multi: Pass = Box::new(move || schedule.run(&mut world));
    // What the profiler's sampling saves: the same schedule measuring every run.
    let (mut world, mut schedule) = fifty::ripple();
    schedule.set_profile_every(1);
    let every_run: Pass = Box::new(move || schedule.run(&mut world));
    // What run conditions cost: the same systems, each behind a true condition reading
    // a resource (issue 23's line asks conditions / without ≤ 1.2: the inverse of this
    // ratio).
    let (mut world, mut schedule) = fifty::ripple_conditions();
    let conditions: Pass = Box::new(move || schedule.run(&mut world));
    Workload {
        name: "empty_systems",
        ripple,
        others: vec![
            ("bevy_ecs_single_threaded", single),
            ("bevy_ecs", multi),
            ("ripple measuring every run", every_run),
            ("ripple with run conditions", conditions),
        ],
    }
}

/// empty_systems_with_conditions: the same 50 systems, each behind a true run condition
/// reading a resource, against themselves without conditions and against bevy_ecs's
/// single-threaded executor running them without conditions (its fastest form).
fn empty_systems_with_conditions() -> Workload {
    use bench::empty_systems as fifty;
    let (mut world, mut schedule) = fifty::ripple_conditions();
    let ripple: Pass = Box::new(move || schedule.run(&mut world));
    let (mut world, mut schedule) = fifty::ripple();
    let without: Pass = Box::new(move || schedule.run(&mut world));
    let (mut world, mut schedule) = fifty::bevy_single_threaded();
    let single: Pass = Box::new(move || schedule.run(&mut world));
    Workload {
        name: "empty_systems_with_conditions",
        ripple,
        others: vec![("ripple without conditions", without), ("bevy_ecs_single_threaded", single)],
    }
}

/// schedule: one run of three swapping systems through each library's scheduler
/// (`bench::schedule`), ripple against each peer's lines.
fn schedule() -> Workload {
    peers::from_lines("schedule", bench::schedule::lines())
}

/// simple_iter: `pos += vel` over 10,000 entities of (Transform, Position, Rotation,
/// Velocity), as in `benches/simple_iter.rs`.
fn simple_iter() -> Workload {
    let mut world = ripple::World::new();
    world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
    let mut query = world.query::<(&Velocity, &mut Position)>();
    let ripple: Pass = Box::new(move || query.for_each_mut(&mut world, |(vel, mut pos)| pos.0 += vel.0));

    let mut world = hecs::World::new();
    world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
    let hecs: Pass = Box::new(move || {
        world.query_mut::<(&Velocity, &mut Position)>().into_iter().for_each(|(vel, pos)| pos.0 += vel.0)
    });

    let mut world = legion::World::default();
    world.extend((0..N_ENTITIES).map(|_| tprv()));
    world.pack(legion::storage::PackOptions::force());
    let mut query = <(legion::Read<Velocity>, legion::Write<Position>)>::query();
    let legion: Pass = Box::new(move || query.for_each_mut(&mut world, |(vel, pos)| pos.0 += vel.0));

    let mut world = legion::World::default();
    world.extend((0..N_ENTITIES).map(|_| tprv()));
    world.pack(legion::storage::PackOptions::force());
    let mut query = <(legion::Read<Velocity>, legion::Write<Position>)>::query();
    let legion_chunks: Pass = Box::new(move || {
        query.for_each_chunk_mut(&mut world, |chunk| {
            let (vels, poss) = chunk.into_components();
            for (vel, pos) in vels.iter().zip(poss.iter_mut()) {
                pos.0 += vel.0;
            }
        })
    });

    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
    let mut query = world.query::<(&Velocity, &mut Position)>();
    let bevy: Pass = Box::new(move || {
        for (vels, mut poss) in query.contiguous_iter_mut(&mut world).unwrap() {
            for (vel, pos) in vels.iter().zip(poss.bypass_change_detection().iter_mut()) {
                pos.0 += vel.0;
            }
        }
    });

    let mut world = shipyard::World::new();
    world.bulk_add_entity((0..N_ENTITIES).map(|_| tprv()));
    let shipyard: Pass = Box::new(move || {
        use shipyard::{IntoIter, View, ViewMut};
        world.run(|vels: View<'_, Velocity>, mut poss: ViewMut<'_, Position>| {
            (&vels, &mut poss).iter().for_each(|(vel, pos)| pos.0 += vel.0);
        })
    });

    let (vels, mut poss) = flat_rows(N_ENTITIES);
    let ideal: Pass = Box::new(move || {
        add_flat(&mut poss, &vels);
        black_box(&mut poss);
    });
    let vels: Vec<Velocity> = (0..N_ENTITIES).map(|_| tprv().3).collect();
    let mut poss: Vec<Position> = (0..N_ENTITIES).map(|_| tprv().1).collect();
    let ideal_rows: Pass = Box::new(move || {
        for (pos, vel) in poss.iter_mut().zip(&vels) {
            pos.0 += vel.0;
        }
        black_box(&mut poss);
    });
    Workload {
        name: "simple_iter",
        ripple,
        others: vec![
            ("bevy_ecs_contiguous_no_detection", bevy),
            ("hecs", hecs),
            ("legion", legion),
            ("legion_chunks", legion_chunks),
            ("shipyard", shipyard),
            ("ideal", ideal),
            ("ideal_rows", ideal_rows),
        ],
    }
}

/// simple_iter with Position tracked (every write marks its row), against ripple's own
/// untracked pass: the cost of change tracking (BENCHMARKS.md §C), as a paired ratio.
fn simple_iter_tracked() -> Workload {
    let pass = |tracked: bool| -> Pass {
        let mut world = ripple::World::new();
        if tracked {
            world.track::<Position>();
        }
        world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
        let mut query = world.query::<(&Velocity, &mut Position)>();
        Box::new(move || query.for_each_mut(&mut world, |(vel, mut pos)| pos.0 += vel.0))
    };
    // bevy always tracks: its contiguous form marks every row it writes, the same work.
    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
    let mut query = world.query::<(&Velocity, &mut Position)>();
    let bevy: Pass = Box::new(move || {
        for (vels, mut poss) in query.contiguous_iter_mut(&mut world).unwrap() {
            for (vel, pos) in vels.iter().zip(poss.iter_mut()) {
                pos.0 += vel.0;
            }
        }
    });
    Workload {
        name: "simple_iter_tracked",
        ripple: pass(true),
        others: vec![("ripple untracked", pass(false)), ("bevy_ecs_contiguous", bevy)],
    }
}

/// relations: a relation's upkeep through inserts, removals and despawns
/// (`bench::relations`), ripple's user relation against its `ChildOf` (the bar: ≤ 1.1×)
/// and bevy's relationships (≤ 1.0×).
fn relations() -> Workload {
    peers::from_lines("relations", bench::relations::lines())
}

/// simple_iter over runtime components (`bench::dynamic_iter`): the same bytes and
/// pass reached by id, table by table, against ripple's typed pass (the bar: ≤ 1.2×),
/// with the per-entity form beside it.
fn simple_iter_dynamic() -> Workload {
    let (mut world, mut query) = bench::dynamic_iter::world(N_ENTITIES);
    let dynamic: Pass = Box::new(move || bench::dynamic_iter::pass_tables(&mut world, &mut query));
    let (mut world, mut query) = bench::dynamic_iter::world(N_ENTITIES);
    let items: Pass = Box::new(move || bench::dynamic_iter::pass_items(&mut world, &mut query));
    let mut world = ripple::World::new();
    world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
    let mut query = world.query::<(&Velocity, &mut Position)>();
    let typed: Pass = Box::new(move || query.for_each_mut(&mut world, |(vel, mut pos)| pos.0 += vel.0));
    Workload {
        name: "simple_iter_dynamic",
        ripple: dynamic,
        others: vec![("ripple typed", typed), ("ripple dynamic per entity", items)],
    }
}

/// frag_iter: `data *= 2` over 26 tables of 20 entities, as in `benches/frag_iter.rs`.
fn frag_iter() -> Workload {
    let mut world = ripple::World::new();
    macro_rules! spawn_ripple {
        ($l:ident) => {
            world.spawn_batch((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
        };
    }
    for_each_letter!(spawn_ripple);
    let mut query = world.query::<&mut Data>();
    let ripple: Pass = Box::new(move || query.for_each_mut(&mut world, |mut data| data.0 *= 2.0));

    let mut world = hecs::World::new();
    macro_rules! spawn_hecs {
        ($l:ident) => {
            world.spawn_batch((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
        };
    }
    for_each_letter!(spawn_hecs);
    let hecs: Pass = Box::new(move || world.query_mut::<&mut Data>().into_iter().for_each(|data| data.0 *= 2.0));

    let mut world = legion::World::default();
    macro_rules! spawn_legion {
        ($l:ident) => {
            world.extend((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
        };
    }
    for_each_letter!(spawn_legion);
    world.pack(legion::storage::PackOptions::force());
    let mut query = legion::Write::<Data>::query();
    let legion: Pass = Box::new(move || query.for_each_mut(&mut world, |data| data.0 *= 2.0));
    let mut world = bevy_ecs::world::World::new();
    macro_rules! spawn_bevy {
        ($l:ident) => {
            world.spawn_batch((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
        };
    }
    for_each_letter!(spawn_bevy);
    let mut query = world.query::<&mut Data>();
    let bevy: Pass = Box::new(move || query.iter_mut(&mut world).for_each(|mut data| data.0 *= 2.0));
    Workload { name: "frag_iter", ripple, others: vec![("bevy_ecs", bevy), ("hecs", hecs), ("legion", legion)] }
}

/// heavy_compute: 100 inversions of each of 1,000 transforms, in parallel, as in
/// `benches/heavy_compute.rs`.
fn heavy_compute() -> Workload {
    use rayon::prelude::*;
    use shipyard::{IntoIter, ViewMut};
    const N: usize = 1_000;
    let mut world = ripple::World::new();
    world.spawn_batch((0..N).map(|_| tprv()));
    let mut query = world.query::<(&mut Position, &mut Transform)>();
    let ripple: Pass =
        Box::new(move || query.par_for_each_mut(&mut world, |(mut pos, mut mat)| heavy_work(&mut mat, &mut pos)));

    let mut world = shipyard::World::new();
    world.bulk_add_entity((0..N).map(|_| tprv()));
    let shipyard: Pass = Box::new(move || {
        world.run(|mut pos: ViewMut<'_, Position>, mut mat: ViewMut<'_, Transform>| {
            (&mut pos, &mut mat).par_iter().for_each(|(pos, mat)| heavy_work(mat, pos));
        })
    });

    let mut world = legion::World::default();
    world.extend((0..N).map(|_| tprv()));
    let mut query = <(legion::Write<Position>, legion::Write<Transform>)>::query();
    let legion: Pass = Box::new(move || query.par_for_each_mut(&mut world, |(pos, mat)| heavy_work(mat, pos)));

    bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
    let bevy_line = |batch: Option<usize>| -> Pass {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N).map(|_| tprv()));
        let mut query = world.query::<(&mut Position, &mut Transform)>();
        Box::new(move || {
            let mut iter = query.par_iter_mut(&mut world);
            if let Some(batch) = batch {
                iter = iter.batching_strategy(bevy_ecs::batching::BatchingStrategy::fixed(batch));
            }
            iter.for_each(|(mut pos, mut mat)| heavy_work(&mut mat, &mut pos))
        })
    };
    let (bevy, bevy_batch64) = (bevy_line(None), bevy_line(Some(64)));

    let mut rows: Vec<(Position, Transform)> = (0..N).map(|_| tprv()).map(|(t, p, _, _)| (p, t)).collect();
    let ideal: Pass = Box::new(move || rows.par_iter_mut().for_each(|(pos, mat)| heavy_work(mat, pos)));
    Workload {
        name: "heavy_compute",
        ripple,
        others: vec![
            ("shipyard", shipyard),
            ("legion", legion),
            ("bevy_ecs", bevy),
            ("bevy_ecs_batch64", bevy_batch64),
            ("ideal", ideal),
        ],
    }
}

/// add_remove: add B to each of 10,000 entities of (A,), then remove it again, as in
/// `benches/add_remove.rs`, against the fastest archetype peers.
fn add_remove() -> Workload {
    let mut world = ripple::World::new();
    let entities: Vec<ripple::Entity> = world.spawn_batch((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
    let ripple: Pass = Box::new(move || {
        for &e in &entities {
            world.insert(e, (B(0.0),)).unwrap();
        }
        for &e in &entities {
            let (removed,): (B,) = world.remove::<(B,)>(e).unwrap();
            black_box(removed);
        }
    });

    let mut world = hecs::World::new();
    let entities: Vec<hecs::Entity> = world.spawn_batch((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
    let hecs: Pass = Box::new(move || {
        for &e in &entities {
            world.insert_one(e, B(0.0)).unwrap();
        }
        for &e in &entities {
            black_box(world.remove_one::<B>(e).unwrap());
        }
    });

    let mut world = bevy_ecs::world::World::new();
    let entities: Vec<bevy_ecs::entity::Entity> = world.spawn_batch((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
    let bevy: Pass = Box::new(move || {
        for &e in &entities {
            world.entity_mut(e).insert(B(0.0));
        }
        for &e in &entities {
            world.entity_mut(e).remove::<B>();
        }
    });
    let mut world = legion::World::default();
    let entities: Vec<legion::Entity> = world.extend((0..N_ADD_REMOVE).map(|_| (A(0.0),))).to_vec();
    let legion: Pass = Box::new(move || {
        for &e in &entities {
            world.entry(e).unwrap().add_component(B(0.0));
        }
        for &e in &entities {
            world.entry(e).unwrap().remove_component::<B>();
        }
    });
    Workload { name: "add_remove", ripple, others: vec![("hecs", hecs), ("bevy_ecs", bevy), ("legion", legion)] }
}
