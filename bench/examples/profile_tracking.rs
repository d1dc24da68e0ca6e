//! The change-tracking paths in isolation, for callgrind (instruction counts, stable on a
//! loaded machine) and for quick wall-clock medians. See bench/README.md, "Profiling".
//!
//! - `crate-topia [N K FRAMES] [untracked [touch]]`: crate_topia's ripple line (`mover`,
//!   then `render`), or with `untracked` the mover alone on an untracked Position (with
//!   `touch`, the movers' Position and Sprite read untimed after it, as a renderer
//!   would); beside it,
//!   the IDEAL line (`ideal_mover`, `ideal_render`). The first frame, in which every row
//!   is new to the renderer, is not profiled. Prints each step's median per frame.
//! - `simple-iter [untracked|tracked|observed] [PASSES]`: simple_iter's pass (`pass`),
//!   with Position untracked, tracked, or tracked with an observer. Prints the median.

use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
struct Position {
    x: f32,
    #[expect(dead_code, reason = "two floats, as large as the bench's Position")]
    y: f32,
}

#[derive(Clone, Copy)]
struct Sprite {
    index: u32,
}

#[derive(Clone, Copy)]
struct Vec3(f32, f32, f32);

#[derive(Clone, Copy)]
struct Velocity(Vec3);

#[derive(Clone, Copy)]
struct Place(Vec3);

type Mover = ripple::query::QueryState<&'static mut Position>;
type Renderer = ripple::query::QueryState<(&'static Position, &'static Sprite), ripple::query::Changed<Position>>;

#[inline(never)]
fn mover(query: &mut Mover, world: &mut ripple::World, movers: &[ripple::Entity]) {
    query.for_each_of_mut(world, movers, |mut p| p.x += 1.0);
}

#[inline(never)]
fn render(query: &mut Renderer, world: &ripple::World) -> u64 {
    let mut sum = 0u64;
    query.for_each(world, |(p, s)| sum = sum.wrapping_add(u64::from(p.x.to_bits()) ^ u64::from(s.index)));
    sum
}

#[inline(never)]
fn ideal_mover(positions: &mut [Position], changed: &mut Vec<u32>, movers: &[u32]) {
    for &i in movers {
        positions[i as usize].x += 1.0;
        changed.push(i);
    }
}

#[inline(never)]
fn ideal_render(positions: &[Position], sprites: &[Sprite], changed: &mut Vec<u32>) -> u64 {
    let mut sum = 0u64;
    for &i in changed.iter() {
        let i = i as usize;
        sum = sum.wrapping_add(u64::from(positions[i].x.to_bits()) ^ u64::from(sprites[i].index));
    }
    changed.clear();
    sum
}

#[inline(never)]
fn pass(query: &mut ripple::query::QueryState<(&'static Velocity, &'static mut Place)>, world: &mut ripple::World) {
    query.for_each_mut(world, |(v, mut p)| {
        p.0.0 += v.0.0;
        p.0.1 += v.0.1;
        p.0.2 += v.0.2;
    });
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times.get(times.len() / 2).map_or(0.0, |t| t.as_secs_f64() * 1e6)
}

fn timed(times: &mut Vec<Duration>, f: impl FnOnce()) {
    let start = Instant::now();
    f();
    times.push(start.elapsed());
}

fn crate_topia(args: &[String]) {
    let number = |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (n, k, frames) = (number(0, 1_000_000), number(1, 10_000), number(2, 20));
    let untracked = args.iter().any(|a| a == "untracked");
    let indices: Vec<usize> = (0..k).map(|i| i * (n / k.max(1))).collect();

    let mut world = ripple::World::new();
    if !untracked {
        world.track::<Position>();
    }
    let ids: Vec<ripple::Entity> = world
        .spawn_batch((0..n).map(|i| (Position { x: (i % 1024) as f32, y: 0.0 }, Sprite { index: i as u32 })))
        .collect();
    let movers: Vec<ripple::Entity> = indices.iter().map(|&i| ids[i]).collect();
    let mut mover_query = world.query::<&mut Position>();
    let mut renderer =
        (!untracked).then(|| world.query_filtered::<(&Position, &Sprite), ripple::query::Changed<Position>>());
    // With `untracked touch`, each frame also reads the movers' Position and Sprite,
    // untimed, as the tracked line's renderer does: the untracked mover then meets the
    // caches the tracked one meets.
    let touch = untracked && args.iter().any(|a| a == "touch");
    let mut toucher = world.query::<(&Position, &Sprite)>();

    let mut positions: Vec<Position> = (0..n).map(|i| Position { x: (i % 1024) as f32, y: 0.0 }).collect();
    let sprites: Vec<Sprite> = (0..n).map(|i| Sprite { index: i as u32 }).collect();
    let ideal_movers: Vec<u32> = indices.iter().map(|&i| i as u32).collect();
    let mut changed: Vec<u32> = (0..n as u32).collect();

    // The first frame, whose renderer sees every row, is not profiled.
    mover_query.for_each_of_mut(&mut world, &movers, |mut p| p.x += 1.0);
    if let Some(renderer) = &mut renderer {
        renderer.for_each(&world, |(p, _)| {
            black_box(p);
        });
    }
    ideal_mover(&mut positions, &mut changed, &ideal_movers);
    changed.clear();

    let mut times: [Vec<Duration>; 4] = Default::default();
    let mut sink = 0u64;
    for _ in 0..frames {
        timed(&mut times[0], || mover(&mut mover_query, &mut world, &movers));
        if let Some(renderer) = &mut renderer {
            timed(&mut times[1], || sink ^= render(renderer, &world));
        }
        if touch {
            toucher.for_each_of(&world, &movers, |(p, s)| {
                sink = sink.wrapping_add(u64::from(p.x.to_bits()) ^ u64::from(s.index));
            });
        }
        timed(&mut times[2], || ideal_mover(&mut positions, &mut changed, &ideal_movers));
        timed(&mut times[3], || sink ^= ideal_render(&positions, &sprites, &mut changed));
    }
    let [m, r, im, ir] = times.map(median);
    println!("N = {n}, K = {k}, {frames} frames: mover {m:.1} us (ideal {im:.1}), renderer {r:.1} us (ideal {ir:.1})");
    black_box(sink);
}

fn simple_iter(args: &[String]) {
    let mode = args.first().map_or("tracked", String::as_str);
    let passes = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let mut world = ripple::World::new();
    if mode != "untracked" {
        world.track::<Place>();
    }
    world.spawn_batch((0..10_000).map(|_| (Place(Vec3(0.0, 0.0, 0.0)), Velocity(Vec3(1.0, 1.0, 1.0)))));
    let _observer =
        (mode == "observed").then(|| world.query_filtered::<ripple::Entity, ripple::query::Changed<Place>>());
    let mut query = world.query::<(&Velocity, &mut Place)>();
    let mut times = Vec::new();
    for _ in 0..passes {
        timed(&mut times, || pass(&mut query, &mut world));
    }
    println!("simple_iter, Place {mode}: {:.2} us per pass", median(times));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("crate-topia") => crate_topia(&args[1..]),
        Some("simple-iter") => simple_iter(&args[1..]),
        _ => {
            eprintln!("usage: profile_tracking crate-topia [N K FRAMES] [untracked [touch]]");
            eprintln!("       profile_tracking simple-iter [untracked|tracked|observed] [PASSES]");
            std::process::exit(2);
        }
    }
}
