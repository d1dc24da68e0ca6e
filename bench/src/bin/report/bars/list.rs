//! The standing list of bars itself: one entry per acceptance line that a benchmark
//! measures, in issue order.

use super::Limit::*;
use super::Measure::*;
use super::{Bar, CACHE_LINES, DEEP_TREE, PERSIST_SCALE, REPLICATE_BYTES, bar};

const R_K0: &str = "crate_topia_render/N=1000000,K=0";
const R_K100: &str = "crate_topia_render/N=1000000,K=100";
const R_K10K: &str = "crate_topia_render/N=1000000,K=10000";
const F_K0: &str = "crate_topia_frame/N=1000000,K=0";
const F_K100: &str = "crate_topia_frame/N=1000000,K=100";
const F_K10K: &str = "crate_topia_frame/N=1000000,K=10000";
const M_K10K: &str = "crate_topia_mover/N=1000000,K=10000";

/// Every acceptance line a benchmark measures, by issue. Issue 18's "no line worse than
/// today by more than 10 %" lines compare ripple / specs with the run that opened the
/// issue's work on this machine (bench/RESULTS.md at commit 5d86d9d); issue 17's events
/// lines compare with bench/RESULTS.md before it (commit 96ea84e).
pub(super) const BARS: &[Bar] = &[
    bar(2, "simple_iter / best peer", BestPeer { group: "simple_iter", archetype: false }, AtMost(1.0))
        .paired(PairedBest { workload: "simple_iter", archetype: false }),
    bar(2, "simple_insert / best peer", BestPeer { group: "simple_insert", archetype: false }, AtMost(1.0))
        .paired(PairedBest { workload: "simple_insert", archetype: false }),
    bar(2, "frag_iter / best archetype peer", BestPeer { group: "frag_iter", archetype: true }, AtMost(1.0))
        .paired(PairedBest { workload: "frag_iter", archetype: true }),
    bar(2, "add_remove / best archetype peer", BestPeer { group: "add_remove", archetype: true }, AtMost(1.0))
        .paired(PairedBest { workload: "add_remove", archetype: true }),
    bar(3, "crate_topia N=1M: renderer, K=0", Median { group: R_K0 }, AtMost(100.0)),
    bar(3, "crate_topia N=1M: renderer / specs, K=100", Ratio { group: R_K100, other: "specs" }, AtMost(0.5))
        .paired(Paired { workload: "crate_topia_render/N=1000000,K=100", other: "specs" }),
    bar(3, "crate_topia N=1M: renderer / ideal, K=10,000", Ratio { group: R_K10K, other: "ideal" }, AtMost(2.0))
        .paired(Paired { workload: "crate_topia_render/N=1000000,K=10000", other: "ideal" }),
    bar(3, "crate_topia N=1M: frame / specs, K=0", Ratio { group: F_K0, other: "specs" }, AtMost(1.0))
        .paired(Paired { workload: "crate_topia_frame/N=1000000,K=0", other: "specs" }),
    bar(3, "crate_topia N=1M: frame / specs, K=100", Ratio { group: F_K100, other: "specs" }, AtMost(1.0))
        .paired(Paired { workload: "crate_topia_frame/N=1000000,K=100", other: "specs" }),
    bar(3, "crate_topia N=1M: frame / specs, K=10,000", Ratio { group: F_K10K, other: "specs" }, AtMost(1.0))
        .paired(Paired { workload: "crate_topia_frame/N=1000000,K=10000", other: "specs" }),
    bar(
        3,
        "crate_topia N=1M, K=100: times faster than bevy_ecs",
        Speedup { group: R_K100, other: "bevy_ecs" },
        AtLeast(300.0),
    ),
    bar(3, "simple_iter tracked / untracked", Ratio { group: "simple_iter", other: "ripple_tracked" }, AtMost(1.25))
        .paired(Paired { workload: "simple_iter_tracked", other: "ripple untracked" }),
    bar(4, "schedule / best peer", BestPeer { group: "schedule", archetype: false }, AtMost(1.0))
        .paired(PairedBest { workload: "schedule", archetype: false }),
    bar(4, "heavy_compute / best peer", BestPeer { group: "heavy_compute", archetype: false }, AtMost(1.0))
        .paired(PairedBest { workload: "heavy_compute", archetype: false }),
    // heavy_compute's criterion medians drift by more than the libraries differ (the same
    // math on rayon's pool): the paired lines are the steadier reading.
    bar(4, "heavy_compute / shipyard, paired", Paired { workload: "heavy_compute", other: "shipyard" }, AtMost(1.0)),
    bar(4, "heavy_compute / legion, paired", Paired { workload: "heavy_compute", other: "legion" }, AtMost(1.0)),
    bar(
        4,
        "50 empty systems / bevy_ecs",
        Ratio { group: "empty_systems", other: "bevy_ecs" },
        Retired {
            by: 62,
            restated: "≤ 0.5 (set against bevy's multi-threaded executor); now ≤ 0.5× its single-threaded one",
        },
    )
    .paired(Paired { workload: "empty_systems", other: "bevy_ecs" }),
    bar(5, "events / bevy_ecs", Ratio { group: "events", other: "bevy_ecs" }, AtMost(1.0))
        .paired(Paired { workload: "events", other: "bevy_ecs" }),
    bar(5, "events_direct / bevy_ecs", Ratio { group: "events_direct", other: "bevy_ecs" }, AtMost(1.0))
        .paired(Paired { workload: "events_direct", other: "bevy_ecs" }),
    bar(5, "events_merged / bevy_ecs", Ratio { group: "events_merged", other: "bevy_ecs" }, AtMost(1.0))
        .paired(Paired { workload: "events_merged", other: "bevy_ecs" }),
    bar(5, "merged send, 1M keys / 1k keys (\"flat\")", MergeGrowth, Blocked { proposed: 5.0 }),
    bar(5, "merged send / bare hash map, worst key count", MergeVsMap, Blocked { proposed: 2.0 }),
    bar(
        17,
        "events / bevy_ecs, no worse than before",
        Ratio { group: "events", other: "bevy_ecs" },
        Retired {
            by: 62,
            restated: "≤ 0.15 (set against bevy's multi-threaded executor); now ≤ 0.25× its single-threaded one",
        },
    )
    .paired(Paired { workload: "events", other: "bevy_ecs" }),
    bar(
        17,
        "events_direct / bevy_ecs, no worse than before",
        Ratio { group: "events_direct", other: "bevy_ecs" },
        AtMost(0.42),
    )
    .paired(Paired { workload: "events_direct", other: "bevy_ecs" }),
    bar(
        17,
        "events_merged / bevy_ecs, no worse than before",
        Ratio { group: "events_merged", other: "bevy_ecs" },
        AtMost(0.60),
    )
    .paired(Paired { workload: "events_merged", other: "bevy_ecs" }),
    bar(
        18,
        "crate_topia N=1M, K=10,000: frame / specs",
        Ratio { group: F_K10K, other: "specs" },
        Retired { by: 62, restated: "≤ 0.7 (set against plain specs); superseded by issue 58's crossover sweep" },
    )
    .paired(Paired { workload: "crate_topia_frame/N=1000000,K=10000", other: "specs" }),
    bar(18, "crate_topia N=1M, K=10,000: renderer / ideal", Ratio { group: R_K10K, other: "ideal" }, AtMost(1.5))
        .paired(Paired { workload: "crate_topia_render/N=1000000,K=10000", other: "ideal" }),
    // Asked: ≤ 0.7. Blocked: ripple's mover with Position untracked (`ripple_untracked`,
    // finding and writing the entities, no tracking) already costs about 0.7× specs'
    // mover, and tracking adds one more cache line per changed entity (the row's tick).
    bar(
        18,
        "crate_topia N=1M, K=10,000: mover (frame − renderer) / specs'",
        MoverBySubtraction { n: 1_000_000, k: 10_000, other: "specs" },
        Blocked { proposed: 1.4 },
    ),
    bar(
        18,
        "crate_topia N=1M, K=10,000: mover step / specs'",
        Ratio { group: M_K10K, other: "specs" },
        Blocked { proposed: 1.4 },
    )
    .paired(Paired { workload: "crate_topia_mover/N=1000000,K=10000", other: "specs" }),
    bar(
        18,
        "crate_topia N=1M, K=10,000: mover step, tracked / untracked",
        RippleOverVariant { group: M_K10K, variant: "ripple_untracked" },
        Blocked { proposed: 2.0 },
    )
    .paired(Paired { workload: "crate_topia_mover/N=1000000,K=10000", other: "ripple_untracked" }),
    bar(
        18,
        "crate_topia N=1M, K=0: renderer / specs, ≤ 1.1× before",
        Ratio { group: R_K0, other: "specs" },
        Retired {
            by: 62,
            restated: "≤ 1.1× a ratio of ~30-60 ns figures from an earlier run; now ≤ 0.8× specs, paired (N=1M)",
        },
    )
    .paired(Paired { workload: "crate_topia_render/N=1000000,K=0", other: "specs" }),
    bar(
        18,
        "crate_topia N=1M, K=100: renderer / specs, ≤ 1.1× before",
        Ratio { group: R_K100, other: "specs" },
        AtMostTimes { baseline: 0.255, factor: 1.1 },
    )
    .paired(Paired { workload: "crate_topia_render/N=1000000,K=100", other: "specs" }),
    bar(
        18,
        "crate_topia N=1M, K=0: frame / specs, ≤ 1.1× before",
        Ratio { group: F_K0, other: "specs" },
        Retired {
            by: 62,
            restated: "≤ 1.1× a ratio of ~30-60 ns figures from an earlier run; now ≤ 0.8× specs, paired (N=1M)",
        },
    )
    .paired(Paired { workload: "crate_topia_frame/N=1000000,K=0", other: "specs" }),
    bar(
        18,
        "crate_topia N=1M, K=100: frame / specs, ≤ 1.1× before",
        Ratio { group: F_K100, other: "specs" },
        AtMostTimes { baseline: 0.548, factor: 1.1 },
    )
    .paired(Paired { workload: "crate_topia_frame/N=1000000,K=100", other: "specs" }),
    bar(
        18,
        "crate_topia N=100k, K=0: renderer / specs, ≤ 1.1× before",
        Ratio { group: "crate_topia_render/N=100000,K=0", other: "specs" },
        Retired {
            by: 62,
            restated: "≤ 1.1× a ratio of ~30-60 ns figures from an earlier run; now ≤ 0.8× specs, paired (N=1M)",
        },
    ),
    bar(
        18,
        "crate_topia N=100k, K=100: renderer / specs, ≤ 1.1× before",
        Ratio { group: "crate_topia_render/N=100000,K=100", other: "specs" },
        AtMostTimes { baseline: 0.445, factor: 1.1 },
    ),
    bar(
        18,
        "crate_topia N=100k, K=0: frame / specs, ≤ 1.1× before",
        Ratio { group: "crate_topia_frame/N=100000,K=0", other: "specs" },
        Retired {
            by: 62,
            restated: "≤ 1.1× a ratio of ~30-60 ns figures from an earlier run; now ≤ 0.8× specs, paired (N=1M)",
        },
    ),
    bar(
        18,
        "crate_topia N=100k, K=100: frame / specs, ≤ 1.1× before",
        Ratio { group: "crate_topia_frame/N=100000,K=100", other: "specs" },
        AtMostTimes { baseline: 0.877, factor: 1.1 },
    ),
    bar(
        19,
        "add_remove, sparse B / best of shipyard and specs",
        VariantOverBestOf { group: "add_remove", variant: "ripple_sparse", peers: &["shipyard", "specs"] },
        AtMost(1.0),
    )
    .paired(PairedBest { workload: "add_remove_sparse", archetype: false }),
    bar(
        19,
        "add_remove, table B / best archetype peer",
        BestPeer { group: "add_remove", archetype: true },
        AtMost(0.8),
    )
    .paired(PairedBest { workload: "add_remove", archetype: true }),
    bar(
        19,
        "frag_iter, sparse letters / shipyard",
        VariantOverBestOf { group: "frag_iter", variant: "ripple_sparse", peers: &["shipyard"] },
        AtMost(1.0),
    )
    .paired(Paired { workload: "frag_iter_sparse", other: "shipyard" }),
    // Blocked: per toggled entity ripple's sparse set touches four cold cache lines (the
    // entity's slot to check it is alive and the set's index on insert; the index entries
    // of the removed entity and of the one swapped into its place on remove) and its query
    // two per visited entity (slot, row), where specs' bit set and VecStorage touch about
    // two and one; the issue-19 note has the measurements.
    bar(
        19,
        "toggle (sparse marker) / best peer",
        BestPeer { group: "toggle", archetype: false },
        Blocked { proposed: 2.0 },
    )
    .paired(PairedBest { workload: "toggle", archetype: false }),
    bar(19, "toggle (sparse marker) / shipyard", Ratio { group: "toggle", other: "shipyard" }, AtMost(1.0))
        .paired(Paired { workload: "toggle", other: "shipyard" }),
    bar(18, "simple_iter tracked / untracked", Ratio { group: "simple_iter", other: "ripple_tracked" }, AtMost(1.2)),
    bar(
        18,
        "simple_iter tracked / untracked, paired",
        Paired { workload: "simple_iter_tracked", other: "ripple untracked" },
        AtMost(1.2),
    ),
    bar(
        25,
        "merge_flood, 20,000 crafted colliding keys / plain keys",
        RippleOverVariant { group: "merge_flood", variant: "ripple_plain" },
        AtMost(2.0),
    ),
    // "No worse than today": the worst ratio to a bare hash map was 1.37 (keys=1000) in
    // the run before merge keys were seeded; a tenth over it allows for noise.
    bar(
        25,
        "merged send / bare hash map, worst key count, seeded hash",
        MergeVsMap,
        AtMostTimes { baseline: 1.37, factor: 1.1 },
    ),
    bar(
        23,
        "50 empty systems, each behind a true run condition / without conditions",
        VariantOverBestOf { group: "empty_systems", variant: "ripple_conditions", peers: &["ripple"] },
        AtMost(1.2),
    ),
    bar(
        23,
        "50 empty systems with run conditions / bevy_ecs without",
        VariantOverBestOf { group: "empty_systems", variant: "ripple_conditions", peers: &["bevy_ecs"] },
        Retired {
            by: 62,
            restated: "≤ 0.1 (set against bevy's multi-threaded executor); now ≤ 0.6× its single-threaded one",
        },
    ),
    bar(
        20,
        "serialize_text: ripple / best of hecs and legion",
        VariantOverBestOf { group: "serialize_text", variant: "ripple", peers: &["hecs", "legion"] },
        // Asked: ≤ 1. Blocked at 1.15–1.20 in issue 20's runs (one JSON object per entity,
        // components under their registered names, against hecs' column form); proposed
        // ≤ 1.25.
        Blocked { proposed: 1.25 },
    )
    .paired(Paired { workload: "serialize_text", other: "hecs" }),
    bar(
        20,
        "serialize_text: ripple / ideal (serde of a plain Vec of structs)",
        VariantOverBestOf { group: "serialize_text", variant: "ripple", peers: &["ideal"] },
        AtMost(1.5),
    ),
    bar(
        20,
        "serialize_text per output byte: ripple / hecs, paired",
        // What the blocked line above leaves out: ripple's JSON (one object per entity,
        // components keyed by name, as issue 20 asks) is 1.26× the bytes of hecs's
        // columns; per byte written, ripple should be no slower.
        Paired { workload: "serialize_text per byte", other: "hecs" },
        AtMost(1.0),
    ),
    bar(
        20,
        "serialize_binary: ripple / best of hecs and legion",
        VariantOverBestOf { group: "serialize_binary", variant: "ripple", peers: &["hecs", "legion"] },
        AtMost(1.0),
    )
    .paired(Paired { workload: "serialize_binary", other: "hecs" }),
    bar(
        20,
        "serialize_binary: ripple / ideal (serde of a plain Vec of structs)",
        VariantOverBestOf { group: "serialize_binary", variant: "ripple", peers: &["ideal"] },
        AtMost(1.5),
    )
    .paired(Paired { workload: "serialize_binary", other: "ideal" }),
    bar(
        20,
        "deserialize_text: ripple / best of hecs and legion",
        VariantOverBestOf { group: "deserialize_text", variant: "ripple", peers: &["hecs", "legion"] },
        // Asked: ≤ 1. Blocked at 1.19–1.35 under criterion over issues 20 to 25 (0.91
        // once, in a run where hecs was slow) and 1.20–1.21 paired. The format asked for
        // is 1.26× hecs's bytes and per byte ripple reads at 0.96× hecs's time (the
        // paired line below), so the whole ratio sits near 1.21 and criterion's swings
        // of hecs's window carry it past 1.25; proposed ≤ 1.35.
        Blocked { proposed: 1.35 },
    )
    .paired(Paired { workload: "deserialize_text", other: "hecs" }),
    bar(
        20,
        "deserialize_text: ripple / ideal (serde of a plain Vec of structs)",
        VariantOverBestOf { group: "deserialize_text", variant: "ripple", peers: &["ideal"] },
        AtMost(1.5),
    )
    .paired(Paired { workload: "deserialize_text", other: "ideal" }),
    bar(
        20,
        "deserialize_text per input byte: ripple / hecs, paired",
        // As for serialize_text: per byte read, ripple should be no slower than hecs.
        Paired { workload: "deserialize_text per byte", other: "hecs" },
        AtMost(1.0),
    ),
    bar(
        20,
        "deserialize_binary: ripple / best of hecs and legion",
        VariantOverBestOf { group: "deserialize_binary", variant: "ripple", peers: &["hecs", "legion"] },
        // Asked: ≤ 1. Blocked at 1.20–1.36 under criterion and 1.31–1.33 paired over the
        // sessions since (the load is all-or-nothing, staging every value before it
        // commits, and remaps entity references; hecs' does neither); proposed ≤ 1.4.
        Blocked { proposed: 1.4 },
    )
    .paired(Paired { workload: "deserialize_binary", other: "hecs" }),
    bar(
        20,
        "deserialize_binary: ripple / ideal (serde of a plain Vec of structs)",
        VariantOverBestOf { group: "deserialize_binary", variant: "ripple", peers: &["ideal"] },
        // Asked: ≤ 1.5. Blocked at 1.82–2.00 under criterion and 1.94 paired, as above;
        // proposed ≤ 2.1.
        Blocked { proposed: 2.1 },
    )
    .paired(Paired { workload: "deserialize_binary", other: "ideal" }),
    bar(
        21,
        "propagate/K=0: ripple / bevy (bevy_transform's systems)",
        VariantOverBestOf { group: "propagate/K=0", variant: "ripple", peers: &["bevy"] },
        AtMost(0.01),
    ),
    bar(
        21,
        "propagate/K=10: ripple / bevy",
        VariantOverBestOf { group: "propagate/K=10", variant: "ripple", peers: &["bevy"] },
        AtMost(0.05),
    ),
    bar(
        21,
        "propagate/K=100000: ripple / bevy",
        VariantOverBestOf { group: "propagate/K=100000", variant: "ripple", peers: &["bevy"] },
        AtMost(1.0),
    )
    .paired(Paired { workload: "propagate/K=100000", other: "bevy" }),
    bar(
        21,
        "propagate/K=100000: ripple / brute (full recomputation from the roots)",
        VariantOverBestOf { group: "propagate/K=100000", variant: "ripple", peers: &["brute"] },
        AtMost(1.1),
    )
    .paired(Paired { workload: "propagate/K=100000", other: "brute" }),
    bar(
        21,
        "propagate/K=100000: ripple / brute, paired",
        Paired { workload: "propagate/K=100000", other: "brute" },
        AtMost(1.1),
    ),
    bar(
        20,
        "1,000,000 entities: binary save / ideal (persist_scale)",
        Scale {
            file: PERSIST_SCALE,
            figure: "save_time_ratio_ripple_over_ideal",
            with: &["ripple_save_ms", "ideal_save_ms", "ripple_save_mb_s"],
        },
        AtMost(1.5),
    ),
    bar(
        20,
        "1,000,000 entities: binary load / ideal (persist_scale)",
        Scale {
            file: PERSIST_SCALE,
            figure: "load_time_ratio_ripple_over_ideal",
            with: &["ripple_load_ms", "ideal_load_ms", "ripple_load_mb_s"],
        },
        AtMost(1.5),
    ),
    bar(
        20,
        "1,000,000 entities: heap a save holds beyond its output buffer's capacity, in % of the world's component bytes",
        // The output buffer is the caller's vector, whose capacity grows by doubling as
        // any Vec's does (the floor's too); what the save itself holds is the rest.
        Scale {
            file: PERSIST_SCALE,
            figure: "ripple_save_peak_minus_output_capacity_pct_of_component_bytes",
            with: &["ripple_save_output_len", "ripple_save_output_capacity"],
        },
        AtMost(10.0),
    ),
    bar(
        41,
        "100,000-deep chain, JSON load: listed root first / listed leaf first (deep_tree)",
        Scale {
            file: DEEP_TREE,
            figure: "json_load_root_first_over_leaf_first",
            with: &["json_load_root_first_ms", "json_load_leaf_first_ms"],
        },
        AtMost(2.0),
    ),
    bar(
        41,
        "100,000-deep chain, binary load: listed root first / listed leaf first (deep_tree)",
        Scale {
            file: DEEP_TREE,
            figure: "binary_load_root_first_over_leaf_first",
            with: &["binary_load_root_first_ms", "binary_load_leaf_first_ms"],
        },
        AtMost(2.0),
    ),
    bar(
        41,
        "100,000-deep chain, JSON load listed root first, in ms (deep_tree)",
        Scale { file: DEEP_TREE, figure: "json_load_root_first_ms", with: &["json_load_leaf_first_ms"] },
        AtMost(500.0),
    ),
    bar(
        41,
        "100,000-deep chain, binary load listed root first, in ms (deep_tree)",
        Scale { file: DEEP_TREE, figure: "binary_load_root_first_ms", with: &["binary_load_leaf_first_ms"] },
        AtMost(500.0),
    ),
    bar(
        41,
        "2,000 spawn_child under the leaf of a 100,000-deep chain / under its root (deep_tree)",
        Scale {
            file: DEEP_TREE,
            figure: "spawn_child_under_leaf_over_under_root",
            with: &["spawn_child_under_leaf_us", "spawn_child_under_root_us"],
        },
        AtMost(2.0),
    ),
    bar(
        42,
        "50 empty systems, ripple's defaults / bevy_ecs's single-threaded executor",
        Ratio { group: "empty_systems", other: "bevy_ecs_single_threaded" },
        AtMost(1.0),
    )
    .paired(Paired { workload: "empty_systems", other: "bevy_ecs_single_threaded" }),
    bar(
        42,
        "frag_iter, tables / every archetype peer's fastest form, in every repetition",
        BestPeer { group: "frag_iter", archetype: true },
        AtMost(1.0),
    )
    .paired(PairedEveryProcess { workload: "frag_iter", archetype: true }),
    bar(42, "simple_insert / shipyard", Ratio { group: "simple_insert", other: "shipyard" }, AtMost(1.0))
        .paired(Paired { workload: "simple_insert", other: "shipyard" }),
    bar(
        42,
        "simple_iter tracked / bevy_ecs's contiguous form (bevy always tracks)",
        VariantOverBestOf { group: "simple_iter", variant: "ripple_tracked", peers: &["bevy_ecs_contiguous"] },
        AtMost(1.0),
    )
    .paired(Paired { workload: "simple_iter_tracked", other: "bevy_ecs_contiguous" }),
    bar(
        43,
        "cache lines touched per changed entity (simulated L1d misses, 2-core AMD's caches): renderer / ideal (cache_lines)",
        Scale {
            file: CACHE_LINES,
            figure: "amd_renderer_d1_over_ideal",
            with: &["amd_renderer_ripple_d1", "amd_renderer_ideal_d1"],
        },
        AtMost(1.5),
    ),
    bar(
        43,
        "cache lines touched per changed entity (16-core Intel's caches): renderer / ideal (cache_lines)",
        Scale {
            file: CACHE_LINES,
            figure: "intel_renderer_d1_over_ideal",
            with: &["intel_renderer_ripple_d1", "intel_renderer_ideal_d1"],
        },
        AtMost(1.5),
    ),
    bar(
        43,
        "cache lines touched per written entity (AMD's caches): tracked mover / untracked (cache_lines)",
        Scale {
            file: CACHE_LINES,
            figure: "amd_mover_d1_tracked_over_untracked",
            with: &["amd_mover_tracked_d1", "amd_mover_untracked_d1"],
        },
        AtMost(1.5),
    ),
    bar(
        43,
        "cache lines touched per written entity (Intel's caches): tracked mover / untracked (cache_lines)",
        Scale {
            file: CACHE_LINES,
            figure: "intel_mover_d1_tracked_over_untracked",
            with: &["intel_mover_tracked_d1", "intel_mover_untracked_d1"],
        },
        AtMost(1.5),
    ),
    bar(
        43,
        "tracked write of a known entity: QueryState::get_mut / bevy_ecs's, paired",
        Paired { workload: "get_mut", other: "bevy_ecs" },
        AtMost(1.0),
    ),
    bar(
        43,
        "tracked write of a known entity: World::get_mut / bevy_ecs's World::get_mut, paired",
        Paired { workload: "world_get_mut", other: "bevy_ecs" },
        AtMost(1.0),
    ),
    // The Intel part's 2 MiB L2 holds IDEAL's whole frame (K positions and sprites) but
    // not ripple's (the mover's entity slots and tick rows besides): the cause of the
    // renderer's 1.4-2.6x there. Bars on the excess of last-level misses per entity.
    bar(
        43,
        "simulated L2 misses per changed entity at Intel's 2 MiB L2, renderer: ripple − ideal (cache_lines)",
        Scale {
            file: CACHE_LINES,
            figure: "intel_renderer_ll_minus_ideal",
            with: &["intel_renderer_ripple_ll", "intel_renderer_ideal_ll"],
        },
        AtMost(0.5),
    ),
    bar(
        43,
        "simulated L2 misses per written entity at Intel's 2 MiB L2, mover: tracked − untracked (cache_lines)",
        Scale {
            file: CACHE_LINES,
            figure: "intel_mover_ll_tracked_minus_untracked",
            with: &["intel_mover_tracked_ll", "intel_mover_untracked_ll"],
        },
        AtMost(1.0),
    ),
    bar(
        44,
        "observe_lifecycle: 10,000 inserts and removals with a global and a targeted observer / bevy_ecs",
        Ratio { group: "observe_lifecycle", other: "bevy_ecs" },
        AtMost(1.0),
    )
    .paired(Paired { workload: "observe_lifecycle", other: "bevy_ecs" }),
    bar(
        44,
        "observe_trigger: 10,000 bubbling triggers through depth-4 trees / bevy_ecs",
        Ratio { group: "observe_trigger", other: "bevy_ecs" },
        AtMost(1.0),
    )
    .paired(Paired { workload: "observe_trigger", other: "bevy_ecs" }),
    bar(
        44,
        "observe_mutation N=1M, K=100: OnChange delivery frame / the same K through Changed<T>",
        Ratio { group: "observe_mutation/N=1000000,K=100", other: "ripple_changed_query" },
        AtMost(1.5),
    )
    .paired(Paired { workload: "observe_mutation/N=1000000,K=100", other: "ripple_changed_query" }),
    bar(
        44,
        "observe_mutation N=1M, K=10,000: OnChange delivery frame / the same K through Changed<T>",
        Ratio { group: "observe_mutation/N=1000000,K=10000", other: "ripple_changed_query" },
        AtMost(1.5),
    )
    .paired(Paired { workload: "observe_mutation/N=1000000,K=10000", other: "ripple_changed_query" }),
    bar(
        44,
        "observe_mutation N=1M, K=100: times faster than bevy_ecs's Changed<T> scan",
        Speedup { group: "observe_mutation/N=1000000,K=100", other: "bevy_ecs" },
        AtLeast(100.0),
    ),
    // Asked: 100 times faster. At K = 10,000 the K rows themselves (the writes, and
    // the changed query that visits them) cost about a third of bevy's whole scan.
    bar(
        44,
        "observe_mutation N=1M, K=10,000: ripple / bevy_ecs's Changed<T> scan (asked: 100x faster)",
        Ratio { group: "observe_mutation/N=1000000,K=10000", other: "bevy_ecs" },
        Blocked { proposed: 0.8 },
    )
    .paired(Paired { workload: "observe_mutation/N=1000000,K=10000", other: "bevy_ecs" }),
    bar(
        45,
        "replicate N=1M, K=100, 16 peers: ripple / scan as bevy_replicon scans (asked: >= 100x faster)",
        Ratio { group: REPLICATE, other: "scan" },
        AtMost(0.01),
    )
    .paired(Paired { workload: REPLICATE, other: "scan" }),
    bar(
        45,
        "replicate N=1M, K=100, 16 peers: ripple / serialising the K values once per peer (floor)",
        Ratio { group: REPLICATE, other: "floor" },
        AtMost(3.0),
    )
    .paired(Paired { workload: REPLICATE, other: "floor" }),
    bar(
        45,
        "replicate: bytes of a delta of K = 100 changes / entity ids plus postcard values (replicate_bytes)",
        Scale {
            file: REPLICATE_BYTES,
            figure: "delta_over_floor_k100",
            with: &["delta_bytes_k100", "floor_bytes_k100"],
        },
        AtMost(1.25),
    ),
    bar(
        45,
        "replicate: bytes of a delta of K = 10,000 changes / entity ids plus postcard values (replicate_bytes)",
        Scale {
            file: REPLICATE_BYTES,
            figure: "delta_over_floor_k10000",
            with: &["delta_bytes_k10000", "floor_bytes_k10000"],
        },
        AtMost(1.25),
    ),
    // Asked: 1.5. The baseline holds the local handles and the values; a delta's
    // records must each be decoded (entity varint, header, postcard value), mapped to
    // the local entity, and the whole delta checked before anything is written.
    bar(
        45,
        "apply_delta K=10,000: DeltaReceiver::apply_delta / the same values through get_mut (asked: 1.5)",
        Ratio { group: APPLY_DELTA, other: "get_mut" },
        Blocked { proposed: 4.0 },
    )
    .paired(Paired { workload: APPLY_DELTA, other: "get_mut" }),
    bar(
        47,
        "simple_iter over runtime component ids / the typed query over the same bytes",
        Ratio { group: "simple_iter", other: "ripple_dynamic" },
        AtMost(1.2),
    )
    .paired(Paired { workload: "simple_iter_dynamic", other: "ripple typed" }),
    bar(
        47,
        "relations: a user relation / ChildOf (insert, remove, despawn)",
        RippleOverVariant { group: "relations", variant: "ripple_child_of" },
        AtMost(1.1),
    )
    .paired(Paired { workload: "relations", other: "ripple ChildOf" }),
    bar(47, "relations: a user relation / bevy_ecs", Ratio { group: "relations", other: "bevy_ecs" }, AtMost(1.0))
        .paired(Paired { workload: "relations", other: "bevy_ecs" }),
    // Paired blocks of frames in one process (`cargo run --release -p ripple-inspector
    // --example crates -- --measure`), its row appended to PAIRED.md.
    bar(
        48,
        "Crate-topia 1M crates: frame watched by the inspector / unwatched",
        Paired { workload: "crates_inspector", other: "without the inspector" },
        AtMost(1.05),
    ),
    bar(
        57,
        "Crate-topia 1M crates: frame with a client polling the heaviest searches / unwatched",
        Paired { workload: "crates_inspector_search", other: "without the inspector" },
        AtMost(1.05),
    ),
    // Issue 58, item 4 (`cargo run -p bench --release --bin paired 100 observe_lifecycle
    // observe_lifecycle_unobserved "observe_mutation/N=1000000,K=100"`).
    bar(
        58,
        "observe_lifecycle: per observed event (insert and remove passes with observers, less without) / bevy_ecs",
        PairedPerEvent { observed: "observe_lifecycle", unobserved: "observe_lifecycle_unobserved", other: "bevy_ecs" },
        AtMost(1.0),
    ),
    bar(
        58,
        "observe_mutation N=1M, K=100: an OnChange sync point / the Changed<T> query over the same K (each above the writes alone)",
        PairedAddedOver {
            workload: "observe_mutation/N=1000000,K=100",
            reaction: "ripple_changed_query",
            base: "ripple_writes",
        },
        AtMost(2.0),
    ),
    // Tracking's memory must not grow with the write path's redesign
    // (`cargo run -p bench --release --bin tracking_memory`): today's 35.94 bytes a crate.
    bar(
        58,
        "Crate-topia 1M crates: change tracking's bytes per crate (World::memory, the inspector's panel)",
        Scale {
            file: "TRACKING_MEMORY.md",
            figure: "tracking_bytes_per_crate",
            with: &["value_bytes_per_crate", "tracking_mib", "values_mib"],
        },
        AtMost(35.94),
    ),
    // The crossover (`cargo run -p bench --release --bin paired 20 crossover`), its rows
    // appended to PAIRED.md: ripple's README form against the fastest peer form at each point.
    bar(
        58,
        "crossover N=100k, K/N=0: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=100000,K=0", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=100k, K/N=0.1%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=100000,K=100", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=100k, K/N=1%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=100000,K=1000", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=100k, K/N=10%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=100000,K=10000", archetype: false },
        AtMost(0.8),
    ),
    bar(
        58,
        "crossover N=100k, K/N=50%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=100000,K=50000", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=100k, K/N=100%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=100000,K=100000", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=1M, K/N=0: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=1000000,K=0", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=1M, K/N=0.1%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=1000000,K=1000", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=1M, K/N=1%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=1000000,K=10000", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=1M, K/N=10%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=1000000,K=100000", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=1M, K/N=50%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=1000000,K=500000", archetype: false },
        AtMost(1.0),
    ),
    bar(
        58,
        "crossover N=1M, K/N=100%: frame (get_mut writes, Changed renderer) / fastest peer form",
        PairedBest { workload: "crossover/N=1000000,K=1000000", archetype: false },
        AtMost(1.0),
    ),
    // Issue 61 (`RIPPLE_PAIRED_OUT=PAIRED_ROLLBACK.md cargo run -p bench --release --bin
    // paired 20 rollback_`), its rows appended to PAIRED.md: a Rollback of 8 frames
    // against copying every registered value each frame and writing all back (what
    // bevy_ggrs does), the same K entities moving each frame.
    bar(
        61,
        "rollback N=1M, K=100: a checkpoint / snapshot's copy of every registered value",
        Paired { workload: "rollback_checkpoint/N=1000000,K=100", other: "snapshot" },
        AtMost(0.01),
    ),
    bar(
        61,
        "rollback N=1M, K=100: a rollback of 8 frames / snapshot's restore of every value",
        Paired { workload: "rollback_restore/N=1000000,K=100", other: "snapshot" },
        AtMost(0.01),
    ),
    // Issue 62: every line judged against each peer's fastest form, paired; the bars
    // set earlier against slow forms are retired above, restated here.
    bar(
        62,
        "50 empty systems / bevy_ecs's single-threaded executor",
        Paired { workload: "empty_systems", other: "bevy_ecs_single_threaded" },
        AtMost(0.5),
    ),
    bar(
        62,
        "50 empty systems, each behind a true run condition / the same without, paired",
        Paired { workload: "empty_systems_with_conditions", other: "ripple without conditions" },
        AtMost(1.2),
    ),
    bar(
        62,
        "50 empty systems, each behind a true run condition / bevy_ecs's single-threaded executor without",
        Paired { workload: "empty_systems_with_conditions", other: "bevy_ecs_single_threaded" },
        AtMost(0.6),
    ),
    bar(
        62,
        "events / bevy_ecs's single-threaded executor",
        Paired { workload: "events", other: "bevy_ecs_single_threaded" },
        AtMost(0.25),
    ),
    bar(62, "merged send, 1M keys / 1k keys (\"flat\")", MergeGrowth, AtMost(2.0)),
    bar(
        62,
        "crate_topia N=1M, K=0: renderer / specs, paired",
        Paired { workload: "crate_topia_render/N=1000000,K=0", other: "specs" },
        AtMost(0.8),
    ),
    bar(
        62,
        "crate_topia N=1M, K=0: frame / specs, paired",
        Paired { workload: "crate_topia_frame/N=1000000,K=0", other: "specs" },
        AtMost(0.8),
    ),
    bar(
        62,
        "deserialize_binary: ripple / hecs, paired",
        Paired { workload: "deserialize_binary", other: "hecs" },
        AtMost(1.4),
    ),
    bar(
        62,
        "deserialize_binary: ripple / ideal, paired",
        Paired { workload: "deserialize_binary", other: "ideal" },
        AtMost(2.1),
    ),
    bar(
        62,
        "apply_delta K=10,000: DeltaReceiver::apply_delta / the same values through get_mut",
        Paired { workload: APPLY_DELTA, other: "get_mut" },
        AtMost(3.0),
    ),
    bar(62, "simple_insert / best archetype peer", BestPeer { group: "simple_insert", archetype: true }, AtMost(0.7))
        .paired(PairedBest { workload: "simple_insert", archetype: true }),
    bar(
        62,
        "frag_iter, sparse letters / best sparse-set peer (shipyard, specs)",
        VariantOverBestOf { group: "frag_iter", variant: "ripple_sparse", peers: &["shipyard", "specs"] },
        AtMost(1.0),
    ),
    bar(
        62,
        "simple_iter / best peer, built with -C target-cpu=native",
        PairedNativeBest { workload: "simple_iter" },
        AtMost(1.0),
    ),
    bar(
        62,
        "simple_iter tracked / best peer, built with -C target-cpu=native",
        PairedNativeBest { workload: "simple_iter_tracked" },
        AtMost(1.0),
    ),
];

/// The groups of issue 45's lines.
const REPLICATE: &str = "replicate/N=1000000,K=100,peers=16";
const APPLY_DELTA: &str = "apply_delta/K=10000";
