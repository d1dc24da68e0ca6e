//! The crossover section: a frame's cost against the fraction of the world that
//! changed, per library, as a table and as a chart (bench/CROSSOVER.svg), from the
//! paired tool's crossover rows in bench/PAIRED.md.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One point: (N, K).
type Point = (u64, u64);

/// The lines drawn, in legend order: the name shown, the paired tool's `other` names
/// whose fastest is drawn (`ripple` is the rows' own side), and a colour.
const LINES: [(&str, &[&str], &str); 5] = [
    ("ripple (get_mut)", &["ripple"], "#d62728"),
    ("ripple for_each_of_mut", &["ripple_of"], "#ff7f0e"),
    ("bevy_ecs, fastest form", &["bevy_ecs", "bevy_ecs_contiguous"], "#1f77b4"),
    ("specs, FlaggedStorage events", &["specs_events"], "#2ca02c"),
    ("ideal", &["ideal"], "#7f7f7f"),
];

/// The peers' forms: ripple against the fastest of them at each point.
const PEERS: [&str; 3] = ["bevy_ecs", "bevy_ecs_contiguous", "specs_events"];

/// What the rows say of one point.
#[derive(Default)]
struct Figures {
    /// Median frame time per line (ripple's is the median of its rows' medians).
    seconds: BTreeMap<String, f64>,
    ripple: Vec<f64>,
    /// The paired ratio ripple / each other line.
    ratio: BTreeMap<String, f64>,
}

/// The section, and the chart written beside RESULTS.md; empty if PAIRED.md has no
/// crossover rows.
pub(super) fn render(manifest_dir: &Path) -> String {
    let paired = std::fs::read_to_string(manifest_dir.join("PAIRED.md")).unwrap_or_default();
    let mut points: BTreeMap<Point, Figures> = BTreeMap::new();
    for line in paired.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        let [workload, other, ours, theirs, ratio, ..] = cells[..] else { continue };
        let Some(point) = parse_point(workload) else { continue };
        let (Some(ours), Some(theirs)) = (parse_time(ours), parse_time(theirs)) else { continue };
        let Ok(ratio) = ratio.trim_matches('*').parse::<f64>() else { continue };
        let figures = points.entry(point).or_default();
        figures.ripple.push(ours);
        figures.seconds.insert(other.to_owned(), theirs);
        figures.ratio.insert(other.to_owned(), ratio);
    }
    if points.is_empty() {
        return String::new();
    }
    for figures in points.values_mut() {
        figures.ripple.sort_by(f64::total_cmp);
        let median = figures.ripple[figures.ripple.len() / 2];
        figures.seconds.insert("ripple".to_owned(), median);
    }
    let svg = chart(&points);
    let written = std::fs::write(manifest_dir.join("CROSSOVER.svg"), svg).is_ok();
    let mut s = String::new();
    let _ = writeln!(s, "## crossover: a frame against the fraction that changed\n");
    let _ = writeln!(
        s,
        "A frame writes K random crates' Position (tracked) and renders what changed (bench/src/crossover.rs). \
         Paired medians from `cargo run -p bench --release --bin paired 20 crossover` (rows in bench/PAIRED.md); \
         ripple / best peer is the worst of ripple's paired ratios to bevy_ecs's two forms and specs' events \
         (the fastest peer at that point).\n"
    );
    if written {
        let _ = writeln!(s, "![frame time against K/N, log-log](CROSSOVER.svg)\n");
    }
    let _ = writeln!(
        s,
        "| N | K/N | ripple (get_mut) | ripple for_each_of_mut | bevy_ecs fastest | specs events | ideal | ripple / best peer |"
    );
    let _ = writeln!(s, "|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (&(n, k), figures) in &points {
        let time = |names: &[&str]| {
            names
                .iter()
                .filter_map(|name| figures.seconds.get(*name).copied())
                .min_by(f64::total_cmp)
                .map_or("–".to_owned(), fmt_seconds)
        };
        let worst = PEERS.iter().filter_map(|peer| figures.ratio.get(*peer).copied()).max_by(f64::total_cmp);
        let worst = worst.map_or("–".to_owned(), |r| if r <= 1.0 { format!("{r:.2}") } else { format!("**{r:.2}**") });
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {worst} |",
            fmt_count(n),
            fmt_fraction(n, k),
            time(&["ripple"]),
            time(&["ripple_of"]),
            time(&["bevy_ecs", "bevy_ecs_contiguous"]),
            time(&["specs_events"]),
            time(&["ideal"]),
        );
    }
    s.push('\n');
    s
}

/// (N, K) of a `crossover/N=..,K=..` workload.
fn parse_point(workload: &str) -> Option<Point> {
    let rest = workload.strip_prefix("crossover/N=")?;
    let (n, k) = rest.split_once(",K=")?;
    Some((n.parse().ok()?, k.parse().ok()?))
}

/// Seconds of a time the paired tool prints (`70.0 ns`, `1.73 µs`, `116 ms`, `1.2 s`).
fn parse_time(text: &str) -> Option<f64> {
    let (value, unit) = text.split_once(' ')?;
    let value: f64 = value.parse().ok()?;
    let scale = match unit {
        "ns" => 1e-9,
        "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    };
    Some(value * scale)
}

fn fmt_seconds(seconds: f64) -> String {
    let (value, unit) = match seconds {
        s if s >= 1.0 => (s, "s"),
        s if s >= 1e-3 => (s * 1e3, "ms"),
        s if s >= 1e-6 => (s * 1e6, "µs"),
        s => (s * 1e9, "ns"),
    };
    // Three significant figures, as the paired tool prints them.
    match value {
        v if v >= 100.0 => format!("{v:.0} {unit}"),
        v if v >= 10.0 => format!("{v:.1} {unit}"),
        v => format!("{v:.2} {unit}"),
    }
}

fn fmt_count(n: u64) -> String {
    if n >= 1_000_000 { format!("{}M", n / 1_000_000) } else { format!("{}k", n / 1000) }
}

fn fmt_fraction(n: u64, k: u64) -> String {
    let percent = k as f64 * 100.0 / n as f64;
    if percent == 0.0 { "0".to_owned() } else { format!("{percent}%") }
}

/// Where K = 0 sits on the log axis of fractions.
const ZERO_AT: f64 = 1e-4;

/// A log-log chart, one panel per N: K/N on x, frame time on y, a line per library.
fn chart(points: &BTreeMap<Point, Figures>) -> String {
    let sizes: Vec<u64> = {
        let mut sizes: Vec<u64> = points.keys().map(|&(n, _)| n).collect();
        sizes.dedup();
        sizes
    };
    let (panel_w, panel_h, margin) = (480.0, 340.0, 60.0);
    let width = panel_w * sizes.len() as f64 + margin;
    let height = panel_h + 110.0;
    let all: Vec<f64> = points.values().flat_map(|f| f.seconds.values().copied()).filter(|&s| s > 0.0).collect();
    let (lo, hi) = all.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &s| (lo.min(s), hi.max(s)));
    let (y_lo, y_hi) = (lo.log10().floor(), hi.log10().ceil());
    let (x_lo, x_hi) = (ZERO_AT.log10(), 0.0);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for (p, &n) in sizes.iter().enumerate() {
        let left = margin + p as f64 * panel_w;
        let (w, h, top) = (panel_w - 40.0, panel_h - 40.0, 30.0);
        let x = |fraction: f64| left + (fraction.max(ZERO_AT).log10() - x_lo) / (x_hi - x_lo) * w;
        let y = |seconds: f64| top + h - (seconds.log10() - y_lo) / (y_hi - y_lo) * h;
        let _ =
            writeln!(svg, r#"<text x="{}" y="18" text-anchor="middle">N = {}</text>"#, left + w / 2.0, fmt_count(n));
        let _ = writeln!(svg, r#"<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="black"/>"#);
        for decade in (y_lo as i32)..=(y_hi as i32) {
            let seconds = 10f64.powi(decade);
            let yy = y(seconds);
            let _ = writeln!(svg, r##"<line x1="{left}" y1="{yy}" x2="{}" y2="{yy}" stroke="#ddd"/>"##, left + w);
            if p == 0 {
                let _ = writeln!(
                    svg,
                    r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
                    left - 4.0,
                    yy + 4.0,
                    fmt_seconds(seconds)
                );
            }
        }
        for (fraction, label) in [(0.0, "0"), (0.001, "0.1%"), (0.01, "1%"), (0.1, "10%"), (0.5, "50%"), (1.0, "100%")]
        {
            let xx = x(fraction);
            let _ = writeln!(svg, r##"<line x1="{xx}" y1="{top}" x2="{xx}" y2="{}" stroke="#eee"/>"##, top + h);
            let _ = writeln!(svg, r#"<text x="{xx}" y="{}" text-anchor="middle">{label}</text>"#, top + h + 16.0);
        }
        let _ =
            writeln!(svg, r#"<text x="{}" y="{}" text-anchor="middle">K / N</text>"#, left + w / 2.0, top + h + 34.0);
        for (name, others, colour) in LINES {
            let mut path = String::new();
            for (&(_, k), figures) in points.iter().filter(|((size, _), _)| *size == n) {
                let seconds = others.iter().filter_map(|o| figures.seconds.get(*o).copied()).min_by(f64::total_cmp);
                let Some(seconds) = seconds.filter(|&s| s > 0.0) else { continue };
                let (xx, yy) = (x(k as f64 / n as f64), y(seconds));
                let _ = write!(path, "{}{xx:.1},{yy:.1} ", if path.is_empty() { "M" } else { "L" });
                let _ = writeln!(svg, r#"<circle cx="{xx:.1}" cy="{yy:.1}" r="2.5" fill="{colour}"/>"#);
            }
            let _ =
                writeln!(svg, r#"<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.6"/><!-- {name} -->"#);
        }
    }
    let mut xx = margin;
    for (name, _, colour) in LINES {
        let yy = height - 20.0;
        let _ = writeln!(svg, r#"<rect x="{xx}" y="{}" width="14" height="4" fill="{colour}"/>"#, yy - 6.0);
        let _ = writeln!(svg, r#"<text x="{}" y="{yy}">{name}</text>"#, xx + 18.0);
        // About seven pixels a character at 12 px, and a gap.
        xx += 18.0 + 7.0 * name.chars().count() as f64 + 24.0;
    }
    svg.push_str("</svg>\n");
    svg
}
