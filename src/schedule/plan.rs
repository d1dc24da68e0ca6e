//! A phase's plan: the order its systems run in and which may run together.
//!
//! Order comes from explicit `before`/`after` edges; two systems that conflict and
//! have no order between them run in insertion order. The plan is a sequence of
//! *stages*: a system's stage is one past the latest stage of the systems it must
//! follow, so the systems of one stage never conflict and may run in parallel.

/// Systems of one phase, by position in insertion order.
pub(crate) struct PhaseGraph<'a> {
    /// For each system, the positions of the systems it must run after (explicit).
    pub(crate) after: &'a [Vec<usize>],
    /// Whether systems `i` and `j` conflict.
    pub(crate) conflicts: &'a dyn Fn(usize, usize) -> bool,
}

/// The computed plan.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Positions in a sequential order consistent with every edge (insertion order
    /// where free): also the order in which commands are applied.
    pub(crate) order: Vec<usize>,
    /// Positions grouped by stage, stage after stage.
    pub(crate) staged: Vec<usize>,
    /// Each stage's range in `staged`.
    pub(crate) stages: Vec<std::ops::Range<usize>>,
}

/// A cycle among explicit edges, as positions in order (the first repeats at the end).
pub(crate) fn find_cycle(after: &[Vec<usize>]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(node: usize, after: &[Vec<usize>], marks: &mut [Mark], path: &mut Vec<usize>) -> Option<Vec<usize>> {
        marks[node] = Mark::Open;
        path.push(node);
        for &next in &after[node] {
            match marks[next] {
                Mark::Open => {
                    let start = path.iter().position(|&p| p == next).expect("open nodes are on the path");
                    let mut cycle: Vec<usize> = path[start..].to_vec();
                    cycle.push(next);
                    // `after` edges point backwards in time; list the cycle forwards.
                    cycle.reverse();
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(cycle) = visit(next, after, marks, path) {
                        return Some(cycle);
                    }
                }
                Mark::Done => {}
            }
        }
        path.pop();
        marks[node] = Mark::Done;
        None
    }
    let mut marks = vec![Mark::New; after.len()];
    let mut path = Vec::new();
    (0..after.len())
        .find_map(|node| if marks[node] == Mark::New { visit(node, after, &mut marks, &mut path) } else { None })
}

/// Plans a phase whose explicit edges have no cycle.
pub(crate) fn plan(graph: &PhaseGraph<'_>) -> Plan {
    let n = graph.after.len();
    // reach[i][j]: `i` must run before `j`.
    let mut reach = vec![vec![false; n]; n];
    let mut preds: Vec<Vec<usize>> = graph.after.to_vec();
    for (j, befores) in graph.after.iter().enumerate() {
        for &i in befores {
            add_edge(&mut reach, i, j);
        }
    }
    for j in 0..n {
        for i in 0..j {
            if (graph.conflicts)(i, j) && !reach[i][j] && !reach[j][i] {
                preds[j].push(i);
                add_edge(&mut reach, i, j);
            }
        }
    }
    // Kahn's algorithm, always taking the earliest inserted ready system.
    let mut remaining: Vec<usize> = preds.iter().map(|p| p.len()).collect();
    let mut followers = vec![Vec::new(); n];
    for (j, p) in preds.iter().enumerate() {
        for &i in p {
            followers[i].push(j);
        }
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&j| remaining[j] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut stage_of = vec![0usize; n];
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &j in &followers[i] {
            stage_of[j] = stage_of[j].max(stage_of[i] + 1);
            remaining[j] -= 1;
            if remaining[j] == 0 {
                ready.insert(j);
            }
        }
    }
    assert_eq!(order.len(), n, "planned phases have no cycles");
    let stage_count = stage_of.iter().max().map_or(0, |&s| s + 1);
    let mut staged = Vec::with_capacity(n);
    let mut stages = Vec::with_capacity(stage_count);
    for stage in 0..stage_count {
        let start = staged.len();
        staged.extend(order.iter().copied().filter(|&i| stage_of[i] == stage));
        stages.push(start..staged.len());
    }
    Plan { order, staged, stages }
}

/// Records `i` before `j`, and everything that follows from it.
fn add_edge(reach: &mut [Vec<bool>], i: usize, j: usize) {
    if reach[i][j] {
        return;
    }
    let n = reach.len();
    let sources: Vec<usize> = (0..n).filter(|&x| x == i || reach[x][i]).collect();
    let targets: Vec<usize> = (0..n).filter(|&y| y == j || reach[j][y]).collect();
    for &x in &sources {
        for &y in &targets {
            reach[x][y] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicts_run_in_insertion_order_and_free_systems_share_a_stage() {
        // 0 and 2 conflict; 1 is free.
        let after = vec![vec![], vec![], vec![]];
        let conflicts = |i: usize, j: usize| (i.min(j), i.max(j)) == (0, 2);
        let plan = plan(&PhaseGraph { after: &after, conflicts: &conflicts });
        assert_eq!(plan.order, [0, 1, 2]);
        assert_eq!(plan.stages.len(), 2);
        assert_eq!(&plan.staged[plan.stages[0].clone()], [0, 1]);
        assert_eq!(&plan.staged[plan.stages[1].clone()], [2]);
    }

    #[test]
    fn explicit_order_wins_over_insertion_order() {
        // 0 after 1; they conflict.
        let after = vec![vec![1], vec![]];
        let conflicts = |_: usize, _: usize| true;
        let plan = plan(&PhaseGraph { after: &after, conflicts: &conflicts });
        assert_eq!(plan.order, [1, 0]);
        assert_eq!(plan.stages.len(), 2);
    }

    #[test]
    fn cycles_are_found_and_listed_in_run_order() {
        // 0 after 2, 2 after 1, 1 after 0.
        let after = vec![vec![2], vec![0], vec![1]];
        let cycle = find_cycle(&after).unwrap();
        assert_eq!(cycle.first(), cycle.last());
        assert_eq!(cycle.len(), 4);
        assert_eq!(find_cycle(&[vec![], vec![0]]), None);
    }
}
