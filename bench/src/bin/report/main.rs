//! Prints the medians of the last criterion run as markdown tables with ripple's ratios
//! against each peer, and writes them to `bench/RESULTS.md` with the date, the machine and
//! the crate versions.
//!
//! Usage: `cargo bench -p bench && cargo run -p bench --release --bin report`
//!
//! Reads `<target>/criterion/**/new/{benchmark,estimates}.json`, where `<target>` is
//! `$CARGO_TARGET_DIR` if set, else the workspace root's `target/`. Every criterion group
//! found is reported, so workloads added later show up without touching this tool. A
//! parameterised benchmark (`group/function/value`) gets one table per value.
//!
//! Function names: `ripple` is the library under test; `ripple_<variant>` (e.g.
//! `ripple_tracked`) is a ripple variant, shown with its ratio to `ripple` and never counted
//! as a peer; `brute` and `ideal` are reference lines (BENCHMARKS.md §B), shown with
//! ripple's ratio to them but never counted as the best peer. The Crate-topia groups
//! (`crate_topia_render/N=..,K=..`, `crate_topia_frame/N=..,K=..`,
//! `crate_topia_mover/N=..,K=..`) are ordered by part, N and K, and summarised at
//! N = 1,000,000 after their tables.
//!
//! After the tables come every Crate-topia line beside its median before issue 18
//! (`before.rs`), and the standing list of bars (`bars.rs`): every acceptance line so
//! far, measured in this run, and whether it holds.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bench::fmt_ns;
use serde_json::Value;

mod bars;
mod before;
mod crossover;

/// Libraries in row order (after `ripple` come its `ripple_*` variants); then the reference
/// lines of [`REFERENCE_LINES`], then any other function, by name.
const LIBRARIES: &[&str] = &["ripple", "bevy_ecs", "hecs", "legion", "shipyard", "specs"];
/// Prefix of ripple variants (`ripple_tracked`, ...): ratio to `ripple`, never a peer.
const VARIANT_PREFIX: &str = "ripple_";
/// Reference lines (BENCHMARKS.md §B): ripple's ratio to them is shown, but they are not
/// peers, so never the "best peer".
const REFERENCE_LINES: &[&str] = &["brute", "ideal", "hash_map"];
/// Crate-topia's group prefixes (`<prefix>N=..,K=..`), in report order, with the part's label.
const CRATE_TOPIA_PARTS: &[(&str, &str)] = &[
    ("crate_topia_render/", "renderer step"),
    ("crate_topia_frame/", "whole frame (mover + renderer)"),
    ("crate_topia_mover/", "mover step"),
];
/// The N of Crate-topia's summary.
const CRATE_TOPIA_SUMMARY_N: u64 = 1_000_000;
/// Peers that store components in archetype tables, like ripple.
const ARCHETYPE_PEERS: &[&str] = &["bevy_ecs", "hecs", "legion"];
/// Peers proper (not ripple, not reference lines such as IDEAL or BRUTE).
const PEERS: &[&str] = &["bevy_ecs", "hecs", "legion", "shipyard", "specs"];
/// The peer a line measures, if it is one: `bevy_ecs` and its forms (`bevy_ecs_contiguous`,
/// `bevy_ecs_single_threaded`, ...), and likewise for each of [`PEERS`]. A peer is judged
/// by its fastest form.
fn peer_of(function: &str) -> Option<&'static str> {
    PEERS.iter().copied().find(|p| function == *p || function.strip_prefix(p).is_some_and(|rest| rest.starts_with('_')))
}

/// Groups in report order; any other group found follows, sorted by name.
const KNOWN_GROUPS: &[&str] = &[
    "simple_insert",
    "simple_iter",
    "frag_iter",
    "heavy_compute",
    "schedule",
    "add_remove",
    "toggle",
    "serialize_text",
    "serialize_binary",
    "deserialize_text",
    "deserialize_binary",
];
/// Crates whose locked versions the report lists.
const CRATES: &[&str] = &["ripple", "bevy_ecs", "hecs", "legion", "shipyard", "specs", "criterion", "cgmath", "rayon"];
/// A measurement this much older than the newest one of its table was not taken in the
/// same run: it is flagged, since only same-run ratios count.
const STALE_AFTER: Duration = Duration::from_secs(30 * 60);

/// One criterion measurement.
struct Measurement {
    function: String,
    median_ns: f64,
    modified: SystemTime,
    /// The bytes one iteration writes or reads, where the target says (its throughput).
    bytes: Option<u64>,
}

/// All measurements of one group (and one parameter value, if any): one table.
struct Table {
    group: String,
    value: Option<String>,
    rows: Vec<Measurement>,
}

fn main() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir.parent().unwrap_or(manifest_dir);
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace.join("target"),
    };
    let criterion_dir = target.join("criterion");

    let tables = collect(&criterion_dir);
    if tables.is_empty() {
        eprintln!("no criterion results under {} — run `cargo bench -p bench` first", criterion_dir.display());
        std::process::exit(1);
    }

    let (flipped, standing) = bars::render(&tables, manifest_dir);
    let mut body = flipped;
    body.push_str(&crossover::render(manifest_dir));
    body.push_str(&render_tables(&tables));
    body.push_str(&before::render(&tables, manifest_dir));
    body.push_str(&standing);
    body.push_str(&render_native(manifest_dir));
    body.push_str(&render_intel(manifest_dir));
    body.push_str(&render_scaling(manifest_dir));
    println!("{body}");

    let mut doc = String::new();
    let _ = writeln!(doc, "# ripple peer benchmarks — results\n");
    let _ = writeln!(
        doc,
        "Generated by `cargo run -p bench --release --bin report` from the last \
         `cargo bench -p bench` run. Medians of criterion samples; ratio = ripple's median / \
         the library's median (< 1 means ripple is faster). Only ratios taken in the same run \
         count (BENCHMARKS.md). `ripple_*` lines are ripple variants (their ratio is variant / \
         ripple); `brute` and `ideal` are reference lines, never counted as a peer.\n"
    );
    let _ = writeln!(doc, "{}", render_machine(workspace));
    let _ = writeln!(doc, "{body}");
    let path = manifest_dir.join("RESULTS.md");
    match fs::write(&path, doc) {
        Ok(()) => eprintln!("wrote {}", path.display()),
        Err(e) => {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
}

/// Finds every `new/benchmark.json` + `new/estimates.json` pair under `dir`.
fn collect(dir: &Path) -> Vec<Table> {
    let mut found = Vec::new();
    walk(dir, &mut found);

    let mut tables: BTreeMap<(GroupKey, String, Option<String>), Vec<Measurement>> = BTreeMap::new();
    for (new_dir, modified) in found {
        let Some(meta) = read_json(&new_dir.join("benchmark.json")) else { continue };
        let Some(est) = read_json(&new_dir.join("estimates.json")) else { continue };
        let Some(median_ns) = est["median"]["point_estimate"].as_f64() else { continue };
        let group = meta["group_id"].as_str().unwrap_or("?").to_owned();
        let function = meta["function_id"].as_str().unwrap_or("?").to_owned();
        let value = meta["value_str"].as_str().map(str::to_owned);
        let bytes = meta["throughput"]["Bytes"].as_u64();
        tables.entry((group_key(&group), group, value)).or_default().push(Measurement {
            function,
            median_ns,
            modified,
            bytes,
        });
    }

    tables
        .into_iter()
        .map(|((_, group, value), mut rows)| {
            rows.sort_by(|a, b| {
                row_rank(&a.function).cmp(&row_rank(&b.function)).then_with(|| a.function.cmp(&b.function))
            });
            Table { group, value, rows }
        })
        .collect()
}

/// Sort key of a group: known workloads in [`KNOWN_GROUPS`] order, then Crate-topia by part,
/// N and K, then any other group by name.
type GroupKey = (usize, usize, u64, u64);

fn group_key(group: &str) -> GroupKey {
    if let Some(rank) = KNOWN_GROUPS.iter().position(|g| *g == group) {
        return (rank, 0, 0, 0);
    }
    if let Some((part, n, k)) = crate_topia_params(group) {
        return (KNOWN_GROUPS.len(), part, n, k);
    }
    (KNOWN_GROUPS.len() + 1, 0, 0, 0)
}

/// `(part index in CRATE_TOPIA_PARTS, N, K)` of a Crate-topia group name.
fn crate_topia_params(group: &str) -> Option<(usize, u64, u64)> {
    CRATE_TOPIA_PARTS.iter().enumerate().find_map(|(part, (prefix, _))| {
        let rest = group.strip_prefix(prefix)?;
        let (n, k) = rest.strip_prefix("N=")?.split_once(",K=")?;
        Some((part, n.parse().ok()?, k.parse().ok()?))
    })
}

/// Row order: ripple, its variants, the peers in [`LIBRARIES`] order, the reference lines,
/// anything else.
fn row_rank(function: &str) -> usize {
    if function == "ripple" {
        0
    } else if function.starts_with(VARIANT_PREFIX) {
        1
    } else if let Some(i) = LIBRARIES.iter().position(|l| Some(*l) == peer_of(function)) {
        1 + i
    } else if let Some(i) = REFERENCE_LINES.iter().position(|l| *l == function) {
        1 + LIBRARIES.len() + i
    } else {
        1 + LIBRARIES.len() + REFERENCE_LINES.len()
    }
}

/// Collects the `new/` directories holding a criterion estimate, with their estimate's
/// modification time.
fn walk(dir: &Path, out: &mut Vec<(PathBuf, SystemTime)>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let name = entry.file_name();
        if name == "new" {
            let est = path.join("estimates.json");
            if let Ok(modified) = fs::metadata(&est).and_then(|m| m.modified()) {
                out.push((path, modified));
            }
        } else if name != "base" && name != "change" && name != "report" {
            walk(&path, out);
        }
    }
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

/// Where ripple's line and a peer's do different work, what differs, for the table of
/// `group`: a ratio is only read with it.
fn same_work_note(group: &str) -> Option<&'static str> {
    let crate_topia = crate_topia_params(group).is_some();
    Some(match group {
        "simple_iter" => {
            "`ripple` writes untracked, as `bevy_ecs_contiguous_no_detection`, hecs, legion, shipyard and specs \
             do; bevy always tracks (`bevy_ecs`, `bevy_ecs_contiguous` mark every row written), the same \
             work as `ripple_tracked`."
        }
        "deserialize_text" | "deserialize_binary" => {
            "ripple's load stages every value and checks the whole scene before it commits anything, and remaps \
             the entity references in components; hecs's and legion's loads do neither, and `ideal` builds no \
             world."
        }
        "serialize_text" | "serialize_binary" => {
            "ripple writes one record per entity with its id and the components keyed by name; hecs's column \
             form writes each component type's values once per archetype (`hecs_row` is its per-entity form), \
             and `ideal` writes bare rows."
        }
        "events_merged" => {
            "ripple merges the hits by target as they are sent (any key, any number of targets); \
             `bevy_ecs_totals*` total them in the writer, in an array sized for the 100 targets."
        }
        "schedule" => {
            "hecs has no scheduler: its line runs the three queries in sequence, with no schedule around them."
        }
        _ if crate_topia => {
            "ripple, bevy_ecs, specs and shipyard find the changed entities from their change records; legion and \
             `brute` compare with a shadow copy; `ideal` is handed the changed indices. Only ripple's and \
             `ideal`'s renderers cost what changed."
        }
        _ => return None,
    })
}

fn render_tables(tables: &[Table]) -> String {
    let mut s = String::new();
    for (i, table) in tables.iter().enumerate() {
        let part = crate_topia_params(&table.group).map(|(part, _, _)| CRATE_TOPIA_PARTS[part].1);
        let title = match (&table.value, part) {
            (Some(v), _) => format!("{} ({v})", table.group),
            (None, Some(label)) => format!("{} — {label}", table.group),
            (None, None) => table.group.clone(),
        };
        let _ = writeln!(s, "## {title}\n");
        if let Some(note) = same_work_note(&table.group) {
            let _ = writeln!(s, "*Not the same work:* {note}\n");
        }
        let ripple = table.rows.iter().find(|m| m.function == "ripple");
        let newest = table.rows.iter().map(|m| m.modified).max().unwrap_or(UNIX_EPOCH);
        let mut stale = false;

        // Lines that say how many bytes they write or read also get a column per byte.
        let per_byte = |m: &Measurement| m.bytes.filter(|&b| b > 0).map(|b| m.median_ns / b as f64);
        let bytes = table.rows.iter().any(|m| m.bytes.is_some());
        if bytes {
            let _ =
                writeln!(s, "| library | median | ripple / library | bytes | per byte | ripple / library per byte |");
            let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
        } else {
            let _ = writeln!(s, "| library | median | ripple / library |");
            let _ = writeln!(s, "|---|---:|---:|");
        }
        for m in &table.rows {
            let old = newest.duration_since(m.modified).is_ok_and(|d| d > STALE_AFTER);
            stale |= old;
            let ratio = match ripple {
                Some(r) if m.function.starts_with(VARIANT_PREFIX) => {
                    format!("— ({} / ripple = {})", m.function, fmt_ratio(m.median_ns / r.median_ns))
                }
                Some(r) if m.function != "ripple" => fmt_ratio(r.median_ns / m.median_ns),
                _ => "—".to_owned(),
            };
            let mark = if old { " †" } else { "" };
            if bytes {
                let (count, each) = match (m.bytes, per_byte(m)) {
                    (Some(count), Some(each)) => (count.to_string(), format!("{each:.3} ns")),
                    _ => ("—".to_owned(), "—".to_owned()),
                };
                let by_byte = match (ripple.and_then(per_byte), per_byte(m)) {
                    (Some(r), Some(o)) if m.function != "ripple" && !m.function.starts_with(VARIANT_PREFIX) => {
                        fmt_ratio(r / o)
                    }
                    _ => "—".to_owned(),
                };
                let _ = writeln!(
                    s,
                    "| {}{mark} | {} | {ratio} | {count} | {each} | {by_byte} |",
                    m.function,
                    fmt_ns(m.median_ns)
                );
            } else {
                let _ = writeln!(s, "| {}{mark} | {} | {ratio} |", m.function, fmt_ns(m.median_ns));
            }
        }
        let _ = writeln!(s);

        match ripple {
            Some(r) => {
                for v in table.rows.iter().filter(|m| m.function.starts_with(VARIANT_PREFIX)) {
                    let _ = writeln!(
                        s,
                        "- {} / ripple: **{}** (a ripple variant, not a peer)",
                        v.function,
                        fmt_ratio(v.median_ns / r.median_ns)
                    );
                }
                for (label, set) in [
                    ("best peer (each peer's fastest form)", PEERS),
                    ("best archetype peer (bevy_ecs, hecs, legion)", ARCHETYPE_PEERS),
                ] {
                    let best = table
                        .rows
                        .iter()
                        .filter(|m| peer_of(&m.function).is_some_and(|p| set.contains(&p)))
                        .min_by(|a, b| a.median_ns.total_cmp(&b.median_ns));
                    if let Some(best) = best {
                        let _ = writeln!(
                            s,
                            "- ripple / {label}: **{}** ({} at {})",
                            fmt_ratio(r.median_ns / best.median_ns),
                            best.function,
                            fmt_ns(best.median_ns)
                        );
                    }
                }
            }
            None => {
                let _ = writeln!(s, "- no ripple measurement in this group: no ratios");
            }
        }
        if stale {
            let _ = writeln!(
                s,
                "- † measured more than {} min before the newest line of this table: not the \
                 same run, re-run the whole group before comparing",
                STALE_AFTER.as_secs() / 60
            );
        }
        let _ = writeln!(s);

        // The Crate-topia summary follows the last Crate-topia table.
        let is_crate_topia = |t: &Table| crate_topia_params(&t.group).is_some();
        if is_crate_topia(table) && !tables.get(i + 1).is_some_and(is_crate_topia) {
            s.push_str(&render_crate_topia_summary(tables));
        }
        // So does the merged-send summary, after the last `merge_send` table.
        let is_merge_send = |t: &Table| t.group == MERGE_SEND;
        if is_merge_send(table) && !tables.get(i + 1).is_some_and(is_merge_send) {
            s.push_str(&render_merge_send_summary(tables));
        }
    }
    s
}

/// The headline figures of BENCHMARKS.md §B at N = 1,000,000: ripple's renderer step at
/// K = 0, its renderer-step ratios to specs and bevy_ecs at K = 100 and to IDEAL at
/// K = 10,000, and its whole-frame ratio to specs at each K.
fn render_crate_topia_summary(tables: &[Table]) -> String {
    const RENDER: usize = 0;
    const FRAME: usize = 1;
    const MOVER: usize = 2;
    let n = CRATE_TOPIA_SUMMARY_N;
    let median = |part: usize, k: u64, function: &str| -> Option<f64> {
        tables
            .iter()
            .find(|t| t.value.is_none() && crate_topia_params(&t.group) == Some((part, n, k)))?
            .rows
            .iter()
            .find(|m| m.function == function)
            .map(|m| m.median_ns)
    };
    let ratio = |part: usize, k: u64, other: &str| -> String {
        match (median(part, k, "ripple"), median(part, k, other)) {
            (Some(r), Some(o)) => format!("**{}** ({} vs {})", fmt_ratio(r / o), fmt_ns(r), fmt_ns(o)),
            (None, _) => "no ripple measurement".to_owned(),
            (_, None) => format!("no {other} measurement"),
        }
    };

    let mut s = String::new();
    let _ = writeln!(s, "## crate_topia summary (N = {})\n", fmt_count(n));
    let _ = writeln!(s, "| figure | value |");
    let _ = writeln!(s, "|---|---|");
    let k0 = match median(RENDER, 0, "ripple") {
        Some(r) => {
            let ideal = median(RENDER, 0, "ideal").map_or(String::new(), |i| format!(" (ideal {})", fmt_ns(i)));
            format!("**{}**{ideal}", fmt_ns(r))
        }
        None => "no ripple measurement".to_owned(),
    };
    let _ = writeln!(s, "| renderer step, K = 0: ripple's median | {k0} |");
    for (k, other) in [(100, "specs"), (10_000, "ideal"), (100, "bevy_ecs")] {
        let _ = writeln!(s, "| renderer step, K = {}: ripple / {other} | {} |", fmt_count(k), ratio(RENDER, k, other));
    }
    for k in [0, 100, 10_000] {
        let _ = writeln!(s, "| whole frame, K = {}: ripple / specs | {} |", fmt_count(k), ratio(FRAME, k, "specs"));
    }
    let _ = writeln!(s, "| mover step, K = 10,000: ripple / specs | {} |", ratio(MOVER, 10_000, "specs"));
    let _ = writeln!(
        s,
        "| mover step, K = 10,000: ripple / ripple untracked | {} |",
        ratio(MOVER, 10_000, "ripple_untracked")
    );
    let _ = writeln!(s);
    s
}

/// The group timing merged sends at several key counts (`keys=K`): each key is sent twice.
const MERGE_SEND: &str = "merge_send";

/// Per-send cost of a merged send against the number of distinct keys, and its growth
/// from the smallest key count: the O(1) claim of issue 5 reads as a flat column.
fn render_merge_send_summary(tables: &[Table]) -> String {
    let mut rows: Vec<(u64, Option<f64>, Option<f64>)> = tables
        .iter()
        .filter(|t| t.group == MERGE_SEND)
        .filter_map(|t| {
            let keys: u64 = t.value.as_deref()?.strip_prefix("keys=")?.parse().ok()?;
            let per_send = |f: &str| t.rows.iter().find(|m| m.function == f).map(|m| m.median_ns / (2 * keys) as f64);
            Some((keys, per_send("ripple"), per_send("hash_map")))
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    let base = rows.first().and_then(|r| r.1);
    let mut s = String::new();
    let _ = writeln!(s, "## merge_send summary: cost per merged send\n");
    let _ = writeln!(
        s,
        "| distinct keys | ripple per send | vs fewest keys | bare hash map per send | ripple / hash map |"
    );
    let _ = writeln!(s, "|---:|---:|---:|---:|---:|");
    let show = |v: Option<f64>| v.map_or("—".to_owned(), fmt_ns);
    for (keys, ripple, hash_map) in rows {
        let growth = match (ripple, base) {
            (Some(r), Some(b)) => fmt_ratio(r / b),
            _ => "—".to_owned(),
        };
        let vs_map = match (ripple, hash_map) {
            (Some(r), Some(m)) => fmt_ratio(r / m),
            _ => "—".to_owned(),
        };
        let _ = writeln!(s, "| {} | {} | {growth} | {} | {vs_map} |", fmt_count(keys), show(ripple), show(hash_map));
    }
    let _ = writeln!(s);
    s
}

/// `1000000` as `1,000,000`.
fn fmt_count(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A ratio with two decimals, or two significant digits below 0.1 (change tracking puts
/// ratios at 1e-4 and below, which two decimals would show as 0.00).
fn fmt_ratio(r: f64) -> String {
    if !r.is_finite() || r >= 0.0995 {
        format!("{r:.2}")
    } else if r >= 0.000_995 {
        let decimals = (1.0 - r.log10().floor()) as usize;
        format!("{r:.decimals$}")
    } else {
        format!("{r:.1e}")
    }
}

fn render_machine(workspace: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## Run\n");
    let _ = writeln!(s, "- date: {}", utc_now());
    let nproc = command_output("nproc", &[])
        .unwrap_or_else(|| std::thread::available_parallelism().map_or("?".to_owned(), |n| n.to_string()));
    let _ = writeln!(s, "- nproc: {nproc}");
    let _ = writeln!(s, "- CPU: {}", cpu_model().unwrap_or_else(|| "unknown".to_owned()));
    if let Some(mem) = mem_total() {
        let _ = writeln!(s, "- memory: {mem}");
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let _ = writeln!(s, "- rustc: {}", command_output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".to_owned()));
    let _ = writeln!(
        s,
        "- profile: `bench` (release, codegen-units = 1); glibc malloc pinned by the harness \
         (no heap trimming, no mmap below 32 MiB) unless BENCH_GLIBC_DEFAULTS=1 was set"
    );
    if let Some(commit) = command_output_in(workspace, "git", &["rev-parse", "--short", "HEAD"]) {
        let dirty = command_output_in(workspace, "git", &["status", "--porcelain", "--", "src"])
            .is_some_and(|out| !out.is_empty());
        let note = if dirty { " (with uncommitted changes in src/)" } else { "" };
        let _ = writeln!(s, "- ripple commit (HEAD when this report was written): {commit}{note}");
    }
    let _ = writeln!(s, "\n### Crate versions (Cargo.lock)\n");
    let _ = writeln!(s, "| crate | version |");
    let _ = writeln!(s, "|---|---|");
    let locked = locked_versions(&workspace.join("Cargo.lock"));
    for name in CRATES {
        let v = locked.get(*name).map_or("not in Cargo.lock".to_owned(), |vs| vs.join(", "));
        let _ = writeln!(s, "| {name} | {v} |");
    }
    s
}

/// `name → versions` from the `[[package]]` entries of a Cargo.lock.
fn locked_versions(path: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let Ok(text) = fs::read_to_string(path) else { return out };
    let mut name: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name = None;
        } else if let Some(v) = line.strip_prefix("name = ") {
            name = Some(v.trim_matches('"').to_owned());
        } else if let Some(v) = line.strip_prefix("version = ")
            && let Some(n) = name.take()
        {
            out.entry(n).or_default().push(v.trim_matches('"').to_owned());
        }
    }
    out
}

fn cpu_model() -> Option<String> {
    let info = fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_owned())
}

fn mem_total() -> Option<String> {
    let info = fs::read_to_string("/proc/meminfo").ok()?;
    let kb: f64 = info.lines().find(|l| l.starts_with("MemTotal:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(format!("{:.1} GiB", kb / (1024.0 * 1024.0)))
}

fn command_output(program: &str, args: &[&str]) -> Option<String> {
    command_output_in(Path::new("."), program, args)
}

fn command_output_in(dir: &Path, program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).current_dir(dir).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The current UTC time as `YYYY-MM-DD HH:MM UTC`, without a date crate.
fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", rem / 3600, rem % 3600 / 60)
}

/// The paired table of a build with `-C target-cpu=native`, if one was kept
/// (bench/PAIRED_NATIVE.md): the iteration lines depend on the vector width the
/// compiler may use.
fn render_native(manifest_dir: &Path) -> String {
    let Ok(native) = fs::read_to_string(manifest_dir.join("PAIRED_NATIVE.md")) else { return String::new() };
    let table: String = native.lines().filter(|l| l.starts_with('|')).map(|l| format!("{l}\n")).collect();
    format!(
        "## Built with `-C target-cpu=native`\n\n\
         The paired tool's iteration lines from a build for this machine's CPU (AVX2 here), \
         bench/PAIRED_NATIVE.md; the standing bars read the default build's (bench/PAIRED.md).\n\n{table}\n"
    )
}

/// The paired table of a run on the lent 16-core Intel Xeon, if one was kept
/// (bench/PAIRED_INTEL.md): a bar holds when it holds on both CPU families.
fn render_intel(manifest_dir: &Path) -> String {
    let Ok(intel) = fs::read_to_string(manifest_dir.join("PAIRED_INTEL.md")) else { return String::new() };
    let how = intel.lines().find(|l| l.starts_with("Run as")).unwrap_or_default();
    let table: String = intel.lines().filter(|l| l.starts_with('|')).map(|l| format!("{l}\n")).collect();
    format!(
        "## On the 16-core Intel Xeon\n\n\
         The paired tool's table from the second CPU family (bench/PAIRED_INTEL.md). {how} The standing \
         bars read the project machine's (bench/PAIRED.md); the session notes list the bars this table \
         does not meet.\n\n{table}\n"
    )
}

/// The paired tables of runs limited to 1, 2, 4, 8 and 16 cores (bench/SCALING_<n>_THREAD(S).md,
/// written with `taskset` and `RIPPLE_PAIRED_OUT`), where a machine had them.
fn render_scaling(manifest_dir: &Path) -> String {
    let mut out = String::new();
    for threads in [1, 2, 4, 8, 16] {
        let name =
            if threads == 1 { "SCALING_1_THREAD.md".to_owned() } else { format!("SCALING_{threads}_THREADS.md") };
        let Ok(text) = fs::read_to_string(manifest_dir.join(&name)) else { continue };
        let table: String = text.lines().filter(|l| l.starts_with('|')).map(|l| format!("{l}\n")).collect();
        let _ =
            writeln!(out, "### {threads} {} (bench/{name})\n\n{table}", if threads == 1 { "core" } else { "cores" });
    }
    if out.is_empty() {
        return out;
    }
    format!(
        "## Scaling\n\n\
         heavy_compute, schedule and propagate in the paired tool, with the process limited to n cores by \
         `taskset` (rayon's pools, bevy's task pool and every library's threads see the same cores), on the \
         machine the run's header names; written with `RIPPLE_PAIRED_OUT=SCALING_<n>_THREAD(S).md taskset -c \
         0..n-1 cargo run -p bench --release --bin paired 100 heavy_compute schedule propagate/K=100000`.\n\n{out}"
    )
}
