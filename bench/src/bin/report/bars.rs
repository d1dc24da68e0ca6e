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
    /// As [`PairedBest`](Measure::PairedBest), from the paired tool's run built with
    /// `-C target-cpu=native` (bench/PAIRED_NATIVE.md).
    PairedNativeBest { workload: &'static str },
    /// A figure of the last run of a tool that keeps `name value` lines in `file`
    /// under bench/ (`persist_scale`: PERSIST_SCALE.md, `deep_tree`: DEEP_TREE.md,
    /// `cache_lines`: CACHE_LINES.md), shown with the figures named in `with`.
    Scale { file: &'static str, figure: &'static str, with: &'static [&'static str] },
    /// A ripple variant's median over the best of `peers` in `group`.
    VariantOverBestOf { group: &'static str, variant: &'static str, peers: &'static [&'static str] },
    /// What `events` observed events cost ripple over what they cost `other`, from the
    /// paired medians of a workload with observers (`observed`) and of the same passes
    /// without (`unobserved`): (ripple's difference) / (`other`'s difference).
    PairedPerEvent { observed: &'static str, unobserved: &'static str, other: &'static str },
    /// What a reaction adds to ripple's pass over what another way of reacting adds to
    /// it, both above the same pass without a reaction (`base`, a ripple line of
    /// `workload`): from the paired ratios r = ripple / `reaction` and b = ripple /
    /// `base`, (1 − 1/b) / (1/r − 1/b).
    PairedAddedOver { workload: &'static str, reaction: &'static str, base: &'static str },
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
    /// A bar set against a peer's slow form, retired by a later issue that restated
    /// it (`by`, with what replaced it): shown, never counted.
    Retired {
        by: u32,
        restated: &'static str,
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

mod list;
use list::BARS;

/// The files of [`Scale`] figures.
const PERSIST_SCALE: &str = "PERSIST_SCALE.md";
const DEEP_TREE: &str = "DEEP_TREE.md";
const CACHE_LINES: &str = "CACHE_LINES.md";
const REPLICATE_BYTES: &str = "REPLICATE_BYTES.md";

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

/// A duration as the paired table shows it (`386 µs`, `1.21 ms`), in nanoseconds.
fn paired_duration(cell: &str) -> Option<f64> {
    let (number, unit) = cell.trim().split_once(' ')?;
    let scale = match unit {
        "ns" => 1.0,
        "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    Some(number.parse::<f64>().ok()? * scale)
}

/// The paired medians of (`workload`, `other`): (ripple's, other's), in nanoseconds.
fn paired_medians(paired: &str, workload: &str, other: &str) -> Option<(f64, f64)> {
    paired.lines().find_map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.get(1) != Some(&workload) || cells.get(2) != Some(&other) {
            return None;
        }
        Some((paired_duration(cells.get(3)?)?, paired_duration(cells.get(4)?)?))
    })
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
    let native = std::fs::read_to_string(manifest_dir.join("PAIRED_NATIVE.md")).unwrap_or_default();
    let paired_worst_in = |text: &str,
                           file: &str,
                           workload: &str,
                           wanted: &dyn Fn(&str) -> bool,
                           every_process: bool|
     -> Result<Value, String> {
        let rows: Vec<(String, String, f64, f64)> =
            paired_rows(text).into_iter().filter(|(w, o, ..)| w == workload && wanted(o)).collect();
        let judged = |row: &(String, String, f64, f64)| if every_process { row.3 } else { row.2 };
        let worst = rows
            .iter()
            .max_by(|a, b| judged(a).total_cmp(&judged(b)))
            .ok_or_else(|| format!("no {workload} in {file}"))?;
        let detail = if every_process {
            format!("highest per-process median, against {}; bench/{file}", worst.1)
        } else {
            let process = rows.iter().map(|r| r.3).fold(0.0, f64::max);
            format!("paired, against {}; worst process median {}; bench/{file}", worst.1, fmt_ratio(process))
        };
        Ok(ratio(judged(worst), detail))
    };
    let paired_worst = |workload: &str, wanted: &dyn Fn(&str) -> bool, every_process: bool| {
        paired_worst_in(paired, "PAIRED.md", workload, wanted, every_process)
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
        PairedNativeBest { workload } => {
            paired_worst_in(&native, "PAIRED_NATIVE.md", workload, &peer_form(false), false)
        }
        PairedPerEvent { observed, unobserved, other } => {
            let medians = |workload: &str| {
                paired_medians(paired, workload, other).ok_or_else(|| format!("no {workload} / {other} in PAIRED.md"))
            };
            let ((ours, theirs), (ours_bare, theirs_bare)) = (medians(observed)?, medians(unobserved)?);
            let (added, their_added) = (ours - ours_bare, theirs - theirs_bare);
            if their_added <= 0.0 {
                return Err(format!("{other}'s observed passes were not slower than its unobserved ones"));
            }
            Ok(ratio(
                added / their_added,
                format!(
                    "the events add {} to ripple's pass, {} to {other}'s; bench/PAIRED.md",
                    fmt_ns(added),
                    fmt_ns(their_added)
                ),
            ))
        }
        PairedAddedOver { workload, reaction, base } => {
            let row = |other: &str| {
                paired_rows(paired)
                    .into_iter()
                    .find(|(w, o, ..)| w == workload && o == other)
                    .map(|row| row.2)
                    .ok_or_else(|| format!("no {workload} / {other} in PAIRED.md"))
            };
            let (r, b) = (row(reaction)?, row(base)?);
            let (ours, theirs) = (1.0 - 1.0 / b, 1.0 / r - 1.0 / b);
            if theirs <= 0.0 {
                return Err(format!("{reaction} was not slower than {base}"));
            }
            Ok(ratio(
                ours / theirs,
                format!("paired ratios {} to {reaction}, {} to {base}; bench/PAIRED.md", fmt_ratio(r), fmt_ratio(b)),
            ))
        }
    }
}

/// A bar's verdict on a value: (holds, holds the proposed bar of a blocked line).
fn judge(limit: Limit, value: f64) -> (bool, Option<bool>) {
    match limit {
        AtMost(limit) => (value <= limit, None),
        AtLeast(limit) => (value >= limit, None),
        AtMostTimes { baseline, factor } => (value <= baseline * factor, None),
        Blocked { proposed } => (false, Some(value <= proposed)),
        Retired { .. } => (true, None),
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
            Ok(_) if matches!(bar.limit, Retired { .. }) => (shown, "retired".to_owned()),
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
    let _ = writeln!(
        top,
        "## Standing lines failing: {} of {total}\n\n{} of them are blocked lines that hold the bar \
         their issue's note proposed; the table under \"Standing bars\" lists every line.\n",
        total - held,
        blocked_held
    );
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
         hold the bar their issue's note proposed. Retired lines (a bar set against a peer's slow \
         form, restated by a later issue) are shown and not counted.\n"
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
        Retired { by, restated } => format!("retired by issue {by}: {restated}"),
    }
}
