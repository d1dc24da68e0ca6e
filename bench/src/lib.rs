//! Shared component types and criterion settings for ripple's peer benchmarks.
//!
//! Every bench target (`benches/*.rs`) runs one workload of BENCHMARKS.md §A on ripple,
//! bevy_ecs, hecs, legion, shipyard and specs, as one criterion group named after the
//! workload with one function per library. The component types are shared so that all
//! six libraries move exactly the same bytes:
//!
//! * ripple, hecs and legion accept any `'static + Send + Sync` type;
//! * bevy_ecs needs its `Component` derive (default table storage);
//! * shipyard needs a `Component` impl (written by hand, untracked, as its derive would);
//! * specs needs a `Component` impl naming its storage (`VecStorage`, as in the
//!   community's ecs_bench_suite).
//!
//! The four (Transform, Position, Rotation, Velocity) types also derive serde's traits
//! (cgmath's `serde` feature covers their fields) for the serialize targets, which save
//! and load them through ripple, hecs, legion and plain serde ([`SceneRow`]).

pub mod crate_topia;
pub mod crossover;
pub mod dynamic_iter;
pub mod empty_systems;
pub mod events;
pub mod forest;
pub mod observers;
pub mod relations;
pub mod replicate;
pub mod rollback;
pub mod scenes;
pub mod schedule;
pub mod toggle;

use std::time::Duration;

use cgmath::{Matrix4, Vector3};
use criterion::Criterion;

/// Implements specs' `Component` with `VecStorage` and shipyard's `Component` (untracked,
/// what its derive generates by default) for each listed type.
macro_rules! impl_peer_components {
    ($($t:ident),* $(,)?) => {
        $(
            impl specs::Component for $t {
                type Storage = specs::VecStorage<Self>;
            }
            impl shipyard::Component for $t {
                type Tracking = shipyard::track::Untracked;
            }
        )*
    };
}

/// A 4×4 f32 matrix (64 bytes).
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component, serde::Serialize, serde::Deserialize)]
pub struct Transform(pub Matrix4<f32>);

/// 3×f32.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component, serde::Serialize, serde::Deserialize)]
pub struct Position(pub Vector3<f32>);

/// 3×f32.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component, serde::Serialize, serde::Deserialize)]
pub struct Rotation(pub Vector3<f32>);

/// 3×f32.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component, serde::Serialize, serde::Deserialize)]
pub struct Velocity(pub Vector3<f32>);

/// The payload iterated in frag_iter.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Data(pub f32);

impl_peer_components!(Transform, Position, Rotation, Velocity, Data);

/// Defines the letter components (f32 newtypes) used by frag_iter and add_remove.
macro_rules! letters {
    ($($l:ident),*) => {
        $(
            #[doc = concat!("Letter component `", stringify!($l), "`: an f32 newtype.")]
            #[derive(
                Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component,
            )]
            pub struct $l(pub f32);
            impl_peer_components!($l);
        )*
    };
}

/// Invokes `$m!(Letter)` for each of the 26 letter types `A`..`Z`, in order.
#[macro_export]
macro_rules! for_each_letter {
    ($m:ident) => {
        $m!(A);
        $m!(B);
        $m!(C);
        $m!(D);
        $m!(E);
        $m!(F);
        $m!(G);
        $m!(H);
        $m!(I);
        $m!(J);
        $m!(K);
        $m!(L);
        $m!(M);
        $m!(N);
        $m!(O);
        $m!(P);
        $m!(Q);
        $m!(R);
        $m!(S);
        $m!(T);
        $m!(U);
        $m!(V);
        $m!(W);
        $m!(X);
        $m!(Y);
        $m!(Z);
    };
}

letters!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z);

/// One pass of a line over its prepared world (a frame, a run of a schedule).
pub type Pass = Box<dyn FnMut()>;

/// Entities in simple_insert and simple_iter.
pub const N_ENTITIES: usize = 10_000;
/// Entities per letter in frag_iter.
pub const N_PER_LETTER: usize = 20;
/// Entities in add_remove.
pub const N_ADD_REMOVE: usize = 10_000;

/// heavy_compute's work on one entity: invert its transform 100 times, then transform its
/// position by it. Shared by the criterion target and the `paired` tool, so that both run
/// the same code.
#[inline]
pub fn heavy_work(transform: &mut Transform, position: &mut Position) {
    use cgmath::{SquareMatrix, Transform as _};
    for _ in 0..100 {
        transform.0 = transform.0.invert().expect("invertible");
    }
    position.0 = transform.0.transform_vector(position.0);
}

/// simple_iter's floor: the velocities and positions of `n` rows as two flat arrays of
/// f32 (x, y, z per row), the same bytes as two columns of Vector3.
pub fn flat_rows(n: usize) -> (Vec<f32>, Vec<f32>) {
    let flat = |v: Vector3<f32>| [v.x, v.y, v.z];
    let vels = (0..n).flat_map(|_| flat(tprv().3.0)).collect();
    let poss = (0..n).flat_map(|_| flat(tprv().1.0)).collect();
    (vels, poss)
}

/// simple_iter's pass on the floor's arrays: `pos += vel`, element by element, in
/// blocks of 32 floats of fixed size, which the compiler unrolls into vector adds with
/// no bound checks inside a block (on this machine about 1.4× faster than the plain
/// element loop, which it vectorises too but unrolls less).
#[inline]
pub fn add_flat(poss: &mut [f32], vels: &[f32]) {
    const BLOCK: usize = 32;
    let mut pos_blocks = poss.chunks_exact_mut(BLOCK);
    let mut vel_blocks = vels.chunks_exact(BLOCK);
    for (pos, vel) in (&mut pos_blocks).zip(&mut vel_blocks) {
        let pos: &mut [f32; BLOCK] = pos.try_into().expect("a whole block");
        let vel: &[f32; BLOCK] = vel.try_into().expect("a whole block");
        for i in 0..BLOCK {
            pos[i] += vel[i];
        }
    }
    for (pos, vel) in pos_blocks.into_remainder().iter_mut().zip(vel_blocks.remainder()) {
        *pos += *vel;
    }
}

/// The (Transform, Position, Rotation, Velocity) bundle every spawning workload uses.
#[inline]
pub fn tprv() -> (Transform, Position, Rotation, Velocity) {
    (
        Transform(Matrix4::from_scale(1.0)),
        Position(Vector3::unit_x()),
        Rotation(Vector3::unit_x()),
        Velocity(Vector3::unit_x()),
    )
}

/// One entity's (Transform, Position, Rotation, Velocity) as a plain struct: the `ideal`
/// line of the serialize targets and of `persist_scale` saves and loads a `Vec` of these
/// with serde alone, the floor for a save format (no entity ids, no component names, no
/// world to rebuild).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SceneRow {
    /// The entity's Transform.
    pub transform: Transform,
    /// The entity's Position.
    pub position: Position,
    /// The entity's Rotation.
    pub rotation: Rotation,
    /// The entity's Velocity.
    pub velocity: Velocity,
}

impl From<(Transform, Position, Rotation, Velocity)> for SceneRow {
    fn from((transform, position, rotation, velocity): (Transform, Position, Rotation, Velocity)) -> SceneRow {
        SceneRow { transform, position, rotation, velocity }
    }
}

/// Short criterion runs: all four §A targets finish in a few minutes on 2 cores.
pub fn criterion_config() -> Criterion {
    Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .without_plots()
}

/// Runs each of `lines` (name, pass) as a function of criterion group `group`, with
/// the short settings of the workloads whose passes take milliseconds (20 samples).
pub fn run_group(c: &mut Criterion, group: &str, lines: Vec<(&'static str, Pass)>) {
    let mut group = c.benchmark_group(group);
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for (name, mut pass) in lines {
        group.bench_function(name, |b| b.iter(&mut pass));
    }
    group.finish();
}

/// Pins glibc malloc's thresholds so that every library is measured in the same allocator
/// state, whichever ran before it in the process.
///
/// With glibc's defaults, blocks ≥ 128 KiB are `mmap`ed and the heap top is trimmed back to
/// the kernel on free, until glibc's *dynamic* threshold happens to be raised by some
/// earlier free. A workload that allocates and frees a world per iteration (simple_insert)
/// then pays fresh page faults on every iteration or on none, depending on which library
/// ran first: on this VM that moved bevy_ecs's simple_insert between ~1.2 ms and ~0.36 ms.
/// Here every block up to 32 MiB comes from the heap and the heap is never trimmed, which
/// is the state glibc reaches by itself after the first large free.
///
/// Set `BENCH_GLIBC_DEFAULTS=1` to measure with glibc's defaults instead. No-op on
/// targets other than Linux with glibc.
pub fn pin_allocator() {
    if std::env::var_os("BENCH_GLIBC_DEFAULTS").is_some_and(|v| v != "0") {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::ffi::c_int;
        unsafe extern "C" {
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        const M_TRIM_THRESHOLD: c_int = -1;
        const M_MMAP_THRESHOLD: c_int = -3;
        // SAFETY: mallopt only changes glibc malloc tunables; it is called before any
        // benchmark thread exists, and both values are within glibc's accepted ranges
        // (the mmap threshold's maximum on 64-bit targets is 32 MiB).
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 32 << 20);
            mallopt(M_TRIM_THRESHOLD, c_int::MAX);
        }
    }
}

/// `criterion_main!` plus [`pin_allocator`] first: `bench_main!(group_a, group_b)`.
#[macro_export]
macro_rules! bench_main {
    ($($group:path),+ $(,)?) => {
        fn main() {
            $crate::pin_allocator();
            $( $group(); )+
            criterion::Criterion::default().configure_from_args().final_summary();
        }
    };
}

/// Criterion's style: three significant digits in ns, µs, ms or s.
pub fn fmt_ns(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

/// Appends one `name value` line, formatted as `writeln!` would, to a `String` of
/// figures that a tool prints and keeps for the report (see [`keep_figures`]).
#[macro_export]
macro_rules! figure {
    ($lines:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($lines, $($arg)*);
    }};
}

/// Writes a tool's `name value` figures to `bench/<file>` under a heading naming the
/// tool and a sentence on how they were measured; the report's standing bars read
/// them from there.
pub fn keep_figures(file: &str, tool: &str, how: &str, lines: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = format!(
        "# {tool}\n\nWritten by `cargo run -p bench --release --bin {tool}` ({how}). \
         The report's standing bars read the figures below.\n\n```text\n{lines}```\n"
    );
    std::fs::write(&path, text).unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
    eprintln!("wrote {}", path.display());
}
