//! Where simple_insert's time goes: ripple's and shipyard's build of 10,000 entities,
//! each alone (200 builds in a row) and interleaved (one each, alternating), against
//! collecting the same rows into a Vec.
use std::hint::black_box;
use std::time::{Duration, Instant};

use bench::{N_ENTITIES, tprv};

fn ripple_build() {
    let mut w = ripple::World::new();
    w.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
    black_box(w);
}

fn shipyard_build() {
    let mut w = shipyard::World::new();
    w.bulk_add_entity((0..N_ENTITIES).map(|_| tprv()));
    black_box(w);
}

fn time(f: fn(), n: u32) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed() / n
}

fn main() {
    for _ in 0..3 {
        let (ripple_alone, shipyard_alone) = (time(ripple_build, 200), time(shipyard_build, 200));
        let (mut r, mut s) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..200 {
            r += time(ripple_build, 1);
            s += time(shipyard_build, 1);
        }
        let rows = time(|| drop(black_box((0..N_ENTITIES).map(|_| tprv()).collect::<Vec<_>>())), 200);
        println!(
            "alone: ripple {ripple_alone:?} shipyard {shipyard_alone:?}; interleaved: ripple {:?} shipyard {:?}; Vec of rows {rows:?}",
            r / 200,
            s / 200
        );
    }
}
