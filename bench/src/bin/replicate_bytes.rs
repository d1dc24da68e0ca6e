//! Bytes of a replication delta against the floor (entity bits and postcard value per
//! changed entity), at K = 100 and 10,000 changes of a million entities; kept in
//! bench/REPLICATE_BYTES.md for the report.
//!
//! `cargo run -p bench --release --bin replicate_bytes`

use bench::{figure, keep_figures};

fn main() {
    let mut lines = String::new();
    for k in [100, 10_000] {
        let (ripple, floor) = bench::replicate::delta_bytes(1_000_000, k);
        println!("K = {k}: delta {ripple} bytes, floor {floor} bytes, ratio {:.3}", ripple as f64 / floor as f64);
        figure!(lines, "delta_bytes_k{k} {ripple}");
        figure!(lines, "floor_bytes_k{k} {floor}");
        figure!(lines, "delta_over_floor_k{k} {:.4}", ripple as f64 / floor as f64);
    }
    keep_figures(
        "REPLICATE_BYTES.md",
        "replicate_bytes",
        "one peer's delta after K writes to a million replicated entities",
        &lines,
    );
}
