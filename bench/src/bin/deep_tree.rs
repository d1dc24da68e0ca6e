//! Deep trees at scale: loading a 100,000-deep chain listed root first against the
//! same chain listed leaf first (JSON and binary), and `spawn_child` under the leaf of
//! a 100,000-deep chain against under its root. Before ripple's cycle checks stopped
//! walking ancestors for new entities and loads, root first loaded in 12.6 s against
//! 0.1 s leaf first, and 2,000 spawns under the leaf took 0.97 s against 2.5 ms.
//!
//! Each round times both sides of a pair, alternating which goes first; the figures
//! are medians over the rounds, and each ratio is the median of the per-round ratios.
//!
//! Usage: `cargo run -p bench --release --bin deep_tree [depth]` (default 100,000;
//! at the default it writes bench/DEEP_TREE.md, whose figures the report's standing
//! bars read).

use std::hint::black_box;
use std::time::Instant;

use ripple::hierarchy::ChildOf;
use ripple::scene::SceneRegistry;
use ripple::{Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Copy)]
struct Depth(u32);

const ROUNDS: usize = 7;
/// Children spawned per timed step.
const SPAWNS: usize = 2_000;

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry.component::<Depth>("depth").unwrap();
    registry.component::<ChildOf>("child_of").unwrap();
    registry
}

/// A world holding one chain of `depth` entities; returns it with the chain, root first.
fn chain(depth: usize) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut chain = vec![world.spawn((Depth(0),))];
    for d in 1..depth {
        let child = world.spawn_child(chain[d - 1], (Depth(d as u32),)).unwrap();
        chain.push(child);
    }
    (world, chain)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Times `a` and `b` alternately for `ROUNDS` rounds: their median seconds and the
/// median of the per-round ratios a / b.
fn pair(mut a: impl FnMut() -> f64, mut b: impl FnMut() -> f64) -> (f64, f64, f64) {
    let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (x, y) = if round % 2 == 0 {
            let x = a();
            (x, b())
        } else {
            let y = b();
            (a(), y)
        };
        ta.push(x);
        tb.push(y);
        ratios.push(x / y);
    }
    (median(&mut ta), median(&mut tb), median(&mut ratios))
}

fn main() {
    let depth: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let registry = registry();
    let (source, entities) = chain(depth);
    // The same chain's records in both orders, in both formats: saved root first (the
    // save keeps the world's index order), then the records reversed.
    let root_first: Vec<Entity> = entities.clone();
    let leaf_first: Vec<Entity> = entities.iter().rev().copied().collect();
    let save = |order: &[Entity], json: bool| {
        let mut out = Vec::new();
        let saver = registry.save(&source).entities(order.iter().copied());
        if json { saver.to_json(&mut out).map(drop) } else { saver.to_binary(&mut out).map(drop) }.unwrap();
        out
    };
    let load = |input: &[u8], json: bool| {
        let mut world = World::new();
        let start = Instant::now();
        let loaded = if json { registry.load_json(&mut world, input) } else { registry.load_binary(&mut world, input) };
        let seconds = start.elapsed().as_secs_f64();
        assert_eq!(loaded.unwrap().entities().len(), depth);
        assert!(world.failed_commands().is_empty());
        black_box(world);
        seconds
    };
    let mut lines = String::new();
    bench::figure!(lines, "depth {depth}");
    bench::figure!(lines, "rounds {ROUNDS}");
    for (format, json) in [("json", true), ("binary", false)] {
        let (root, leaf) = (save(&root_first, json), save(&leaf_first, json));
        let (t_root, t_leaf, ratio) = pair(|| load(&root, json), || load(&leaf, json));
        bench::figure!(lines, "{format}_load_root_first_ms {:.3}", t_root * 1e3);
        bench::figure!(lines, "{format}_load_leaf_first_ms {:.3}", t_leaf * 1e3);
        bench::figure!(lines, "{format}_load_root_first_over_leaf_first {ratio:.3}");
    }
    // spawn_child under the leaf and under the root of the chain; the spawned children
    // are despawned, untimed, after each step.
    let (mut world, entities) = chain(depth);
    let (root, leaf) = (entities[0], entities[depth - 1]);
    let mut spawned = Vec::with_capacity(SPAWNS);
    let mut spawn_under = |parent: Entity| {
        let start = Instant::now();
        for _ in 0..SPAWNS {
            spawned.push(world.spawn_child(parent, (Depth(0),)).unwrap());
        }
        let seconds = start.elapsed().as_secs_f64();
        for child in spawned.drain(..) {
            world.despawn(child).unwrap();
        }
        seconds
    };
    let mut times = Vec::new();
    let (mut under_leaf, mut under_root, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let order = if round % 2 == 0 { [leaf, root] } else { [root, leaf] };
        times.clear();
        times.extend(order.iter().map(|&parent| (parent, spawn_under(parent))));
        let leaf_time = times.iter().find(|(p, _)| *p == leaf).unwrap().1;
        let root_time = times.iter().find(|(p, _)| *p == root).unwrap().1;
        under_leaf.push(leaf_time);
        under_root.push(root_time);
        ratios.push(leaf_time / root_time);
    }
    bench::figure!(lines, "spawns {SPAWNS}");
    bench::figure!(lines, "spawn_child_under_leaf_us {:.1}", median(&mut under_leaf) * 1e6);
    bench::figure!(lines, "spawn_child_under_root_us {:.1}", median(&mut under_root) * 1e6);
    bench::figure!(lines, "spawn_child_under_leaf_over_under_root {:.3}", median(&mut ratios));
    print!("{lines}");
    if depth == 100_000 {
        bench::keep_figures(
            "DEEP_TREE.md",
            "deep_tree",
            &format!("a chain 100,000 deep; medians of {ROUNDS} rounds, the two sides of each pair alternating"),
            &lines,
        );
    }
}
