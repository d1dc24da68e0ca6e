//! The standing list of bars: every acceptance line of the project's issues so far that
//! a benchmark measures, with its value in this run and whether it holds, so that a
//! regression in an old line shows in every report.
//!
//! A bar once met stays met: when a later issue tightens a line, both are listed. Lines
//! an issue set relative to "today" carry the figure of the run they were set against.
//! Add each new issue's lines to [`BARS`].

use std::fmt::Write as _;
use std::path::Path;

use bench::fmt_ns;

use super::{Table, crate_topia_params, fmt_ratio};

/// What a bar measures in this run.
#[derive(Clone, Copy)]
enum Measure {
    /// ripple's median over `other`'s in `group` (`other` may be a ripple variant).
    Ratio { group: &'static str, other: &'static str },
    /// ripple's median over one of its variants' (`ripple_untracked`, ...) in `group`.
    RippleOverVariant { group: &'static str, variant: &'static str },
    /// ripple's median over the best peer's in `group` (`archetype`: bevy_ecs, hecs and
    /// legion only).
    BestPeer { group: &'static str, archetype: bool },
    /// ripple's median in `group`, in nanoseconds.
    Median { group: &'static str },
    /// `other`'s median over ripple's in `group`: how many times faster ripple is.
    Speedup { group: &'static str, other: &'static str },
    /// ripple's mover (whole frame minus renderer step at N, K) over `other`'s.
    MoverBySubtraction { n: u64, k: u64, other: &'static str },
    /// ripple's merged send at the most keys over its cost at the fewest.
    MergeGrowth,
    /// The worst, over key counts, of ripple's merged send over a bare hash map's.
    MergeVsMap,
    /// A ratio from the paired tool's table (bench/PAIRED.md); where `other` is a peer,
    /// the worst of the ratios to its forms (its fastest form).
    Paired { workload: &'static str, other: &'static str },
    /// The worst paired ratio of `workload` to any peer's form (`archetype`: bevy_ecs,
    /// hecs and legion only): ripple against the fastest peer, paired.
    PairedBest { workload: &'static str, archetype: bool },
    /// The highest per-process median of `workload`'s paired ratios to any peer's form:
    /// a bar that must hold in every repetition.
    PairedEveryProcess { workload: &'static str, archetype: bool },
    /// A figure of the last run of a tool that keeps `name value` lines in `file`
    /// under bench/ (`persist_scale`: PERSIST_SCALE.md, `deep_tree`: DEEP_TREE.md,
    /// `cache_lines`: CACHE_LINES.md), shown with the figures named in `with`.
    Scale { file: &'static str, figure: &'static str, with: &'static [&'static str] },
    /// A ripple variant's median over the best of `peers` in `group`.
    VariantOverBestOf { group: &'static str, variant: &'static str, peers: &'static [&'static str] },
}

/// What a bar asks of its measure.
#[derive(Clone, Copy)]
enum Limit {
    AtMost(f64),
    AtLeast(f64),
    /// At most `factor` times the figure of the run the line was set against.
    AtMostTimes {
        baseline: f64,
        factor: f64,
    },
    /// A line its issue left blocked, with the bar its note proposed.
    Blocked {
        proposed: f64,
    },
}

struct Bar {
    issue: u32,
    line: &'static str,
    measure: Measure,
    limit: Limit,
    /// The same comparison in the paired tool, which judges the bar where it has the
    /// line (criterion's figure is shown beside it).
    paired: Option<Measure>,
}

const fn bar(issue: u32, line: &'static str, measure: Measure, limit: Limit) -> Bar {
    Bar { issue, line, measure, limit, paired: None }
}

impl Bar {
    /// The bar, judged by `paired` where the paired tool has it.
    const fn paired(self, paired: Measure) -> Bar {
        Bar { paired: Some(paired), ..self }
    }
}

use Limit::*;
use Measure::*;

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
const BARS: &[Bar] = &[
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
    bar(4, "50 empty systems / bevy_ecs", Ratio { group: "empty_systems", other: "bevy_ecs" }, AtMost(0.5))
        .paired(Paired { workload: "empty_systems", other: "bevy_ecs" }),
    bar(5, "events / bevy_ecs", Ratio { group: "events", other: "bevy_ecs" }, AtMost(1.0))
        .paired(Paired { workload: "events", other: "bevy_ecs" }),
    bar(5, "events_direct / bevy_ecs", Ratio { group: "events_direct", other: "bevy_ecs" }, AtMost(1.0))
        .paired(Paired { workload: "events_direct", other: "bevy_ecs" }),
    bar(5, "events_merged / bevy_ecs", Ratio { group: "events_merged", other: "bevy_ecs" }, AtMost(1.0))
        .paired(Paired { workload: "events_merged", other: "bevy_ecs" }),
    bar(5, "merged send, 1M keys / 1k keys (\"flat\")", MergeGrowth, Blocked { proposed: 5.0 }),
    bar(5, "merged send / bare hash map, worst key count", MergeVsMap, Blocked { proposed: 2.0 }),
    bar(17, "events / bevy_ecs, no worse than before", Ratio { group: "events", other: "bevy_ecs" }, AtMost(0.15))
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
    bar(18, "crate_topia N=1M, K=10,000: frame / specs", Ratio { group: F_K10K, other: "specs" }, AtMost(0.7))
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
        AtMostTimes { baseline: 0.620, factor: 1.1 },
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
        AtMostTimes { baseline: 0.586, factor: 1.1 },
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
        AtMostTimes { baseline: 0.613, factor: 1.1 },
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
        AtMostTimes { baseline: 0.589, factor: 1.1 },
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
        AtMost(0.1),
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
];

/// The files of [`Scale`] figures.
const PERSIST_SCALE: &str = "PERSIST_SCALE.md";
const DEEP_TREE: &str = "DEEP_TREE.md";
const CACHE_LINES: &str = "CACHE_LINES.md";

/// A `name value` figure of a [`Scale`] file's text.
fn scale_figure(scale: &str, name: &str) -> Option<f64> {
    scale.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// A measured value and how it reads.
struct Value {
    value: f64,
    shown: String,
}

/// The median of `function` in the table of `group` (without a parameter value).
fn median(tables: &[Table], group: &str, function: &str) -> Option<f64> {
    let table = tables.iter().find(|t| t.group == group && t.value.is_none())?;
    table.rows.iter().find(|m| m.function == function).map(|m| m.median_ns)
}

/// How a bar's lines are looked up: each peer by its fastest form (the report's
/// judgement), or each by its exact name alone (the judgement before peers' forms were
/// measured, to list the bars that judging by best forms turns from holding to failing).
#[derive(Clone, Copy, PartialEq)]
enum Forms {
    Best,
    Exact,
}

/// The fastest line of `name` in `group`: with [`Forms::Best`] and a peer's name, the
/// fastest of the peer's forms; else the line of that name. (name, median).
fn fastest(tables: &[Table], group: &str, name: &str, forms: Forms) -> Option<(String, f64)> {
    let table = tables.iter().find(|t| t.group == group && t.value.is_none())?;
    let is_peer = super::PEERS.contains(&name);
    table
        .rows
        .iter()
        .filter(|m| {
            m.function == name || (forms == Forms::Best && is_peer && super::peer_of(&m.function) == Some(name))
        })
        .min_by(|a, b| a.median_ns.total_cmp(&b.median_ns))
        .map(|m| (m.function.clone(), m.median_ns))
}

/// The paired table's rows: (workload, other, ratio, highest per-process median).
fn paired_rows(paired: &str) -> Vec<(String, String, f64, f64)> {
    // `| workload | other | ripple median | other median | **ratio** | faster | lo – hi |`
    paired
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let ratio: f64 = cells.get(5)?.trim_matches('*').parse().ok()?;
            let highest: f64 = cells.get(7)?.rsplit(' ').next()?.parse().ok()?;
            Some((cells[1].to_owned(), cells[2].to_owned(), ratio, highest))
        })
        .collect()
}

fn measure(
    tables: &[Table],
    paired: &str,
    manifest_dir: &Path,
    measure: Measure,
    forms: Forms,
) -> Result<Value, String> {
    let ratio = |value: f64, detail: String| Value { value, shown: format!("{} ({detail})", fmt_ratio(value)) };
    let need = |group: &str, function: &str| {
        median(tables, group, function).ok_or_else(|| format!("no {function} in {group}"))
    };
    let need_fastest =
        |group: &str, name: &str| fastest(tables, group, name, forms).ok_or_else(|| format!("no {name} in {group}"));
    let best_of = |group: &str, peers: &[&str]| {
        peers
            .iter()
            .filter_map(|p| fastest(tables, group, p, forms))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .ok_or_else(|| format!("no peer in {group}"))
    };
    // The worst paired ratio of `workload` to the lines `wanted` accepts.
    // The worst paired ratio of `workload` to the lines `wanted` accepts: the median
    // ratio, or with `every_process` the highest of the processes' medians.
    let paired_worst = |workload: &str, wanted: &dyn Fn(&str) -> bool, every_process: bool| -> Result<Value, String> {
        let rows: Vec<(String, String, f64, f64)> =
            paired_rows(paired).into_iter().filter(|(w, o, ..)| w == workload && wanted(o)).collect();
        let judged = |row: &(String, String, f64, f64)| if every_process { row.3 } else { row.2 };
        let worst = rows
            .iter()
            .max_by(|a, b| judged(a).total_cmp(&judged(b)))
            .ok_or_else(|| format!("no {workload} in PAIRED.md"))?;
        let detail = if every_process {
            format!("highest per-process median, against {}; bench/PAIRED.md", worst.1)
        } else {
            let process = rows.iter().map(|r| r.3).fold(0.0, f64::max);
            format!("paired, against {}; worst process median {}; bench/PAIRED.md", worst.1, fmt_ratio(process))
        };
        Ok(ratio(judged(worst), detail))
    };
    // Whether a paired line is a form of a peer (an archetype peer, with `archetype`).
    let peer_form = |archetype: bool| {
        let peers: &'static [&'static str] = if archetype { super::ARCHETYPE_PEERS } else { super::PEERS };
        move |o: &str| super::peer_of(o).is_some_and(|p| peers.contains(&p))
    };
    match measure {
        Ratio { group, other } if other.starts_with("ripple_") => {
            // A ripple variant over ripple.
            let (r, v) = (need(group, "ripple")?, need(group, other)?);
            Ok(ratio(v / r, format!("{} vs {}", fmt_ns(v), fmt_ns(r))))
        }
        Ratio { group, other } => {
            let (r, (name, o)) = (need(group, "ripple")?, need_fastest(group, other)?);
            Ok(ratio(r / o, format!("{} vs {name} at {}", fmt_ns(r), fmt_ns(o))))
        }
        RippleOverVariant { group, variant } => {
            let (r, v) = (need(group, "ripple")?, need(group, variant)?);
            Ok(ratio(r / v, format!("{} vs {}", fmt_ns(r), fmt_ns(v))))
        }
        BestPeer { group, archetype } => {
            let peers: &[&str] = if archetype { super::ARCHETYPE_PEERS } else { super::PEERS };
            let r = need(group, "ripple")?;
            let best = best_of(group, peers)?;
            Ok(ratio(r / best.1, format!("{} at {}", best.0, fmt_ns(best.1))))
        }
        Median { group } => {
            let r = need(group, "ripple")?;
            Ok(Value { value: r, shown: fmt_ns(r) })
        }
        Speedup { group, other } => {
            let (r, (name, o)) = (need(group, "ripple")?, need_fastest(group, other)?);
            Ok(Value { value: o / r, shown: format!("{:.0}× ({} vs {name} at {})", o / r, fmt_ns(r), fmt_ns(o)) })
        }
        MoverBySubtraction { n, k, other } => {
            let table = |part: usize| {
                tables
                    .iter()
                    .find(|t| t.value.is_none() && crate_topia_params(&t.group) == Some((part, n, k)))
                    .ok_or_else(|| format!("no crate_topia tables at N={n}, K={k}"))
            };
            let (render, frame) = (table(0)?, table(1)?);
            let mover = |function: &str| -> Option<f64> {
                let of = |t: &Table| t.rows.iter().find(|m| m.function == function).map(|m| m.median_ns);
                Some(of(frame)? - of(render)?)
            };
            let r = mover("ripple").ok_or("no ripple")?;
            let (name, o) = frame
                .rows
                .iter()
                .map(|m| m.function.as_str())
                // The peer's original line only: a form's frame and renderer medians come
                // from separate windows, and their difference is noise where the renderer
                // costs nearly the whole frame (specs_events).
                .filter(|f| *f == other)
                .filter_map(|f| Some((f.to_owned(), mover(f)?)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .ok_or(format!("no {other}"))?;
            Ok(ratio(r / o, format!("{} vs {name} at {}", fmt_ns(r), fmt_ns(o))))
        }
        MergeGrowth | MergeVsMap => {
            let mut rows: Vec<(u64, f64, Option<f64>)> = tables
                .iter()
                .filter(|t| t.group == super::MERGE_SEND)
                .filter_map(|t| {
                    let keys: u64 = t.value.as_deref()?.strip_prefix("keys=")?.parse().ok()?;
                    let of = |f: &str| t.rows.iter().find(|m| m.function == f).map(|m| m.median_ns);
                    Some((keys, of("ripple")?, of("hash_map")))
                })
                .collect();
            rows.sort_by_key(|r| r.0);
            let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
                return Err("no merge_send tables".to_owned());
            };
            if let MergeGrowth = measure {
                // Per send: each key is sent twice.
                let per = |row: &(u64, f64, Option<f64>)| row.1 / (2 * row.0) as f64;
                let growth = per(last) / per(first);
                return Ok(ratio(growth, format!("{} → {} per send", fmt_ns(per(first)), fmt_ns(per(last)))));
            }
            let worst = rows
                .iter()
                .filter_map(|(keys, r, m)| m.map(|m| (*keys, r / m)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .ok_or("no hash_map line")?;
            Ok(ratio(worst.1, format!("at {} keys", worst.0)))
        }
        VariantOverBestOf { group, variant, peers } => {
            let v = need(group, variant)?;
            let best = best_of(group, peers)?;
            Ok(ratio(v / best.1, format!("{} vs {} at {}", fmt_ns(v), best.0, fmt_ns(best.1))))
        }
        Scale { file, figure, with } => {
            let scale = std::fs::read_to_string(manifest_dir.join(file)).unwrap_or_default();
            let value = scale_figure(&scale, figure).ok_or_else(|| format!("no {figure} in {file}"))?;
            let detail: Vec<String> =
                with.iter().filter_map(|name| scale_figure(&scale, name).map(|v| format!("{name} {v}"))).collect();
            Ok(ratio(value, format!("{}; bench/{file}", detail.join(", "))))
        }
        Paired { workload, other } => {
            // Per byte, a peer is judged by the form it is judged by whole (its fastest),
            // not by a slower form that writes more bytes.
            let is_peer = super::PEERS.contains(&other) && !workload.ends_with("per byte");
            paired_worst(
                workload,
                &|o: &str| o == other || (forms == Forms::Best && is_peer && super::peer_of(o) == Some(other)),
                false,
            )
        }
        PairedBest { workload, archetype } => paired_worst(workload, &peer_form(archetype), false),
        PairedEveryProcess { workload, archetype } => paired_worst(workload, &peer_form(archetype), true),
    }
}

/// A bar's verdict on a value: (holds, holds the proposed bar of a blocked line).
fn judge(limit: Limit, value: f64) -> (bool, Option<bool>) {
    match limit {
        AtMost(limit) => (value <= limit, None),
        AtLeast(limit) => (value >= limit, None),
        AtMostTimes { baseline, factor } => (value <= baseline * factor, None),
        Blocked { proposed } => (false, Some(value <= proposed)),
    }
}

/// The standing list, as markdown: (the bars that judging by each peer's fastest form
/// and by paired ratios turns from holding to failing, for the top of the report; the
/// section of every bar).
pub(super) fn render(tables: &[Table], manifest_dir: &Path) -> (String, String) {
    let paired = std::fs::read_to_string(manifest_dir.join("PAIRED.md")).unwrap_or_default();
    let mut rows = String::new();
    let mut flipped = String::new();
    let (mut held, mut total, mut blocked_held) = (0, 0, 0);
    for bar in BARS {
        let criterion = measure(tables, &paired, manifest_dir, bar.measure, Forms::Best);
        let by_pairs = bar.paired.map(|m| measure(tables, &paired, manifest_dir, m, Forms::Best));
        // The paired figure judges where the paired tool has the line.
        let (judged, shown) = match (&by_pairs, &criterion) {
            (Some(Ok(p)), Ok(c)) => (Ok(p.value), format!("{}; criterion {}", p.shown, c.shown)),
            (Some(Ok(p)), Err(why)) => (Ok(p.value), format!("{}; criterion not measured: {why}", p.shown)),
            (_, Ok(c)) => (Ok(c.value), c.shown.clone()),
            (_, Err(why)) => (Err(why.clone()), String::new()),
        };
        let (shown, verdict) = match judged {
            Ok(value) => {
                let (ok, proposed) = judge(bar.limit, value);
                let verdict = match proposed {
                    Some(true) => "blocked; holds the proposed bar".to_owned(),
                    Some(false) => "blocked; **fails** the proposed bar".to_owned(),
                    None if ok => "yes".to_owned(),
                    None => "**no**".to_owned(),
                };
                total += 1;
                held += usize::from(ok);
                blocked_held += usize::from(proposed == Some(true));
                // Judged as before peers' forms and paired lines: by criterion, each peer
                // by its one original line.
                let before = measure(tables, &paired, manifest_dir, bar.measure, Forms::Exact);
                if let Ok(before) = before {
                    let (was, was_proposed) = judge(bar.limit, before.value);
                    if (was && !ok) || (was_proposed == Some(true) && proposed == Some(false)) {
                        let _ = writeln!(
                            flipped,
                            "- issue {}, {}: **{}** against {} (judged as before: {})",
                            bar.issue,
                            bar.line,
                            fmt_ratio(value),
                            limit_text(bar),
                            before.shown
                        );
                    }
                }
                (shown, verdict)
            }
            Err(why) => (format!("not measured: {why}"), "—".to_owned()),
        };
        let _ = writeln!(rows, "| {} | {} | {shown} | {} | {verdict} |", bar.issue, bar.line, limit_text(bar));
    }
    let mut top = String::new();
    if !flipped.is_empty() {
        let _ = writeln!(
            top,
            "## Bars this judgement turns from holding to failing\n\n\
             Each peer is judged by its fastest form and each bar by its paired ratio where the \
             paired tool has it; judged as before (criterion medians, each peer by its original \
             line) these held. The figures are the input to the next performance work; no bar \
             was lowered and no line dropped.\n\n{flipped}"
        );
    }
    let mut s = String::new();
    let _ = writeln!(s, "## Standing bars\n");
    let _ = writeln!(
        s,
        "Every acceptance line so far that a benchmark measures, in this run. Each peer is \
         judged by its fastest form (the fastest of its lines, `bevy_ecs_*` for bevy_ecs and \
         so on). Where the paired tool has the comparison (the last `paired` run, \
         bench/PAIRED.md), its median paired ratio judges the bar and criterion's ratio is \
         shown beside it. Scale lines: the last `persist_scale` and `deep_tree` runs, \
         bench/PERSIST_SCALE.md and bench/DEEP_TREE.md. A bar once met stays met.\n"
    );
    let _ = writeln!(s, "| issue | line | measured | bar | holds |");
    let _ = writeln!(s, "|---:|---|---|---|---|");
    s.push_str(&rows);
    let _ = writeln!(
        s,
        "\n{held} of {total} measured lines hold; of the rest, {blocked_held} are blocked lines that \
         hold the bar their issue's note proposed.\n"
    );
    (top, s)
}

/// A bar's limit as the table shows it.
fn limit_text(bar: &Bar) -> String {
    match bar.limit {
        AtMost(limit) if matches!(bar.measure, Median { .. }) => format!("≤ {}", fmt_ns(limit)),
        AtMost(limit) => format!("≤ {limit}"),
        AtLeast(limit) => format!("≥ {limit}"),
        AtMostTimes { baseline, factor } => format!("≤ {factor} × {baseline} = {:.3}", baseline * factor),
        Blocked { proposed } => format!("blocked (proposed ≤ {proposed})"),
    }
}
