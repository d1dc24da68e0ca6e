//! Crate-topia before and after: every line's median in this run beside its median in the
//! run an issue started from, kept in `bench/baselines/crate_topia-<commit>.tsv`
//! (`group<TAB>function<TAB>median_ns` per line; `#` starts a comment).

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use bench::fmt_ns;

use super::{Table, crate_topia_params, fmt_ratio};

/// The baseline the before-and-after table compares with: the full run on 984f470, before
/// issue 18 reworked change tracking.
const BASELINE: (&str, &str) = ("984f470", "baselines/crate_topia-984f470.tsv");

/// The before-and-after table, or an empty string if the baseline file is missing or no
/// Crate-topia group was run.
pub(super) fn render(tables: &[Table], manifest_dir: &Path) -> String {
    let Ok(text) = fs::read_to_string(manifest_dir.join(BASELINE.1)) else {
        return String::new();
    };
    let before: Vec<(&str, &str, f64)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut cells = l.split('\t');
            Some((cells.next()?, cells.next()?, cells.next()?.parse().ok()?))
        })
        .collect();
    let mut groups: Vec<&Table> =
        tables.iter().filter(|t| t.value.is_none() && crate_topia_params(&t.group).is_some()).collect();
    if groups.is_empty() {
        return String::new();
    }
    groups.sort_by_key(|t| crate_topia_params(&t.group));
    let mut out = String::new();
    let _ = writeln!(out, "## crate_topia before and after\n");
    let _ = writeln!(
        out,
        "Each line's median in this run beside the full run on {} (bench/{}); now / before < 1 \
         means faster now. The two runs are hours or days apart, so only large differences \
         say anything: compare ratios within one run for the rest.\n",
        BASELINE.0, BASELINE.1
    );
    let _ = writeln!(out, "| group | line | before | now | now / before |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|");
    for table in groups {
        for row in &table.rows {
            let old = before.iter().find(|(g, f, _)| *g == table.group && *f == row.function).map(|b| b.2);
            let (old_shown, change) = match old {
                Some(old) => (fmt_ns(old), fmt_ratio(row.median_ns / old)),
                None => ("—".to_owned(), "—".to_owned()),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                table.group,
                row.function,
                old_shown,
                fmt_ns(row.median_ns),
                change
            );
        }
    }
    out.push('\n');
    out
}
