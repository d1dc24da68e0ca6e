//! serialize_text, serialize_binary, deserialize_text and deserialize_binary
//! (BENCHMARKS.md §D): 1,000 entities of (Transform, Position, Rotation, Velocity), saved
//! to JSON (serde_json) and to postcard, and loaded back into a fresh world.
//!
//! Lines: ripple, hecs (its column form), hecs_row (its row form), legion and ideal, as
//! [`bench::scenes`] prepares them. Each line's throughput is its own byte count, so
//! the report shows every line per byte as well.
//!
//! Saving is timed into one output `Vec<u8>` per line, cleared before each save, so that
//! no line pays for growing its buffer and each writes through `io::Write` (ripple's
//! `to_json` / `to_binary`, `serde_json::to_writer`, `postcard::to_io`). The JSON is the
//! compact form for every line: ripple's `.compact()`, serde_json's `to_writer`.
//! Loading is timed from the bytes the same line saved: creating the empty world (or
//! `Vec`), reading every entity into it; dropping the loaded world is left out of the
//! timing for every line (`iter_with_large_drop`), as it is no part of a load.
//! Each line first saves and loads once untimed and checks that all entities came back.

use std::hint::black_box;

use bench::criterion_config;
use bench::scenes::{Format, HecsRowScene, HecsScene, IdealScene, LegionScene, RippleScene, Scene, prepared};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group};

fn save_line<S: Scene>(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, format: Format) {
    // The check's buffer is the timed one: it already has the capacity a save needs.
    let (mut scene, mut out) = prepared::<S>(format);
    // Bytes written: the report gives each line's time per byte beside its time.
    group.throughput(Throughput::Bytes(out.len() as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            out.clear();
            scene.save(format, &mut out);
            black_box(&out);
        })
    });
}

fn load_line<S: Scene>(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, format: Format) {
    let (mut scene, bytes) = prepared::<S>(format);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(name, |b| b.iter_with_large_drop(|| scene.load(format, &bytes)));
}

fn save_group(c: &mut Criterion, name: &str, format: Format) {
    let mut group = c.benchmark_group(name);
    save_line::<RippleScene>(&mut group, "ripple", format);
    save_line::<HecsScene>(&mut group, "hecs", format);
    save_line::<HecsRowScene>(&mut group, "hecs_row", format);
    save_line::<LegionScene>(&mut group, "legion", format);
    save_line::<IdealScene>(&mut group, "ideal", format);
    group.finish();
}

fn load_group(c: &mut Criterion, name: &str, format: Format) {
    let mut group = c.benchmark_group(name);
    load_line::<RippleScene>(&mut group, "ripple", format);
    load_line::<HecsScene>(&mut group, "hecs", format);
    load_line::<HecsRowScene>(&mut group, "hecs_row", format);
    load_line::<LegionScene>(&mut group, "legion", format);
    load_line::<IdealScene>(&mut group, "ideal", format);
    group.finish();
}

fn serialize_text(c: &mut Criterion) {
    save_group(c, "serialize_text", Format::Text);
}

fn serialize_binary(c: &mut Criterion) {
    save_group(c, "serialize_binary", Format::Binary);
}

fn deserialize_text(c: &mut Criterion) {
    load_group(c, "deserialize_text", Format::Text);
}

fn deserialize_binary(c: &mut Criterion) {
    load_group(c, "deserialize_binary", Format::Binary);
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = serialize_text, serialize_binary, deserialize_text, deserialize_binary
}
bench::bench_main!(benches);
