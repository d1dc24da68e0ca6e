//! The Changing pattern: a marker a moving entity carries while it moves and loses
//! after a few frames at rest, so that "the things in motion" is a plain query.
//!
//! A level of 1,000,000 crates; each frame 1,000 of them are pushed, and every 30
//! frames a different 1,000 take over (the others come to rest). Three steps keep and
//! use the marker:
//!
//! 1. **mark**: an observer of `Changed<Position>` visits only the crates whose
//!    position changed since its last run and gives each a `Changing` marker (or
//!    resets its rest count);
//! 2. **rest**: a query over `Changing` counts the frames each marked crate has been
//!    still and removes the marker after `REST_FRAMES`;
//! 3. **render**: `(&Position, With<Changing>)` draws what moves.
//!
//! `Changing` is stored in a sparse set (`World::set_storage`): adding or removing it
//! moves no table row, and the two queries that require it visit the marked crates
//! only, not the million. Every frame the example checks the render count against
//! what it pushed, and exits non-zero on a mismatch. At the end it prints what each
//! step cost per frame, beside a scan of all positions.
//!
//! Why a recipe and not a built-in: how long "at rest" lasts, what counts as moving
//! (one component or several) and what a marker carries differ per game; the three
//! steps are a dozen lines over public API, and each stays visible to the profiler.
//!
//! Run with `cargo run --release --example changing`.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use ripple::query::{Changed, With};
use ripple::{Entity, Storage, World};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

/// Carried while a crate moves: the frames since it last moved.
struct Changing {
    still_for: u32,
}

const CRATES: usize = 1_000_000;
const MOVERS: usize = 1_000;
/// Frames a group of movers keeps moving before the next group takes over.
const SHIFT: usize = 30;
const GROUPS: usize = 10;
/// Frames at rest after which a crate loses its marker.
const REST_FRAMES: u32 = 10;
const FRAMES: usize = 240;

fn main() -> ExitCode {
    let mut world = World::new();
    world.set_storage::<Changing>(Storage::SparseSet).expect("chosen before first use");
    let crates: Vec<Entity> = world.spawn_batch((0..CRATES).map(|i| (Position { x: i as f32, y: 0.0 },))).collect();
    // Group `g` is every `CRATES / MOVERS`-th crate from `g` on.
    let stride = CRATES / MOVERS;
    let group = |g: usize| crates[g..].iter().step_by(stride).copied();

    let mut moved = world.query_filtered::<Entity, Changed<Position>>();
    // A new observer sees everything as changed: run it once when the level is loaded.
    assert_eq!(moved.iter(&world).count(), CRATES);
    let mut changing = world.query::<(Entity, &mut Changing)>();
    let mut render = world.query_filtered::<&Position, With<Changing>>();
    let mut all = world.query::<&Position>();

    let (mut newly_moved, mut rested) = (Vec::with_capacity(MOVERS), Vec::with_capacity(MOVERS));
    let mut last_moved: [Option<usize>; GROUPS] = [None; GROUPS];
    let mut cost = [Duration::ZERO; 4];
    for frame in 0..FRAMES {
        let pushed = (frame / SHIFT) % GROUPS;
        for crate_ in group(pushed) {
            world.get_mut::<Position>(crate_).expect("crates live").y += 1.0;
        }
        last_moved[pushed] = Some(frame);

        // 1. mark
        let start = Instant::now();
        newly_moved.clear();
        newly_moved.extend(moved.iter(&world));
        // The set's view resolves the marker type once for the whole loop.
        let mut markers = world.sparse_mut::<Changing>().expect("stored in a sparse set");
        for &e in &newly_moved {
            // A new marker, or a reset one for a crate that kept moving.
            markers.insert(e, Changing { still_for: 0 }).expect("alive");
        }
        cost[0] += start.elapsed();

        // 2. rest
        let start = Instant::now();
        rested.clear();
        changing.for_each_mut(&mut world, |(e, mut marker)| {
            marker.still_for += 1;
            if marker.still_for > REST_FRAMES {
                rested.push(e);
            }
        });
        let mut markers = world.sparse_mut::<Changing>().expect("stored in a sparse set");
        for &e in &rested {
            markers.remove(e).expect("marked");
        }
        cost[1] += start.elapsed();

        // 3. render
        let start = Instant::now();
        let mut drawn = 0;
        render.for_each(&world, |_| drawn += 1);
        cost[2] += start.elapsed();

        let start = Instant::now();
        let mut scanned = 0;
        all.for_each(&world, |p| scanned += usize::from(p.x >= 0.0));
        cost[3] += start.elapsed();
        assert_eq!(scanned, CRATES);

        // Marked: the groups that moved in the last `REST_FRAMES` frames.
        let expected = MOVERS * last_moved.iter().flatten().filter(|&&at| frame - at < REST_FRAMES as usize).count();
        if drawn != expected {
            eprintln!("frame {frame}: rendered {drawn} moving crates, expected {expected}");
            return ExitCode::FAILURE;
        }
    }
    let per_frame = |d: Duration| d.as_secs_f64() * 1e6 / FRAMES as f64;
    println!("{CRATES} crates, {MOVERS} pushed per frame, {FRAMES} frames; per frame:");
    println!("  mark   (Changed<Position> -> Changing)     {:8.1} µs", per_frame(cost[0]));
    println!("  rest   (&mut Changing, remove when still)  {:8.1} µs", per_frame(cost[1]));
    println!("  render (&Position, With<Changing>)         {:8.1} µs", per_frame(cost[2]));
    println!("  for scale: a scan of every Position        {:8.1} µs", per_frame(cost[3]));
    println!("render counts matched the pushed crates on every frame");
    ExitCode::SUCCESS
}
