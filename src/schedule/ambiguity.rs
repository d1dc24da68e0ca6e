//! Ambiguity detection: pairs of systems of one phase that touch the same data (one
//! writing it) with no order between them, as bevy_ecs's `ambiguity_detection`.

use std::fmt;

use super::config::SystemRef;
use super::node::Node;
use super::{Schedule, SystemId};

/// Two systems of one phase whose accesses conflict, or of which one writes a message
/// type the other reads, and that no order constraint puts one before the other. ripple runs such a pair in the order the systems were
/// added, every run, so results do not vary from run to run; but that order is
/// implied only by the order of `add_system` calls. State it with
/// [`before`](crate::schedule::IntoSystemConfig::before) / [`after`](crate::schedule::IntoSystemConfig::after),
/// or say it does not matter with
/// [`ambiguous_with`](crate::schedule::IntoSystemConfig::ambiguous_with).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ambiguity {
    /// The phase both run in.
    pub phase: String,
    /// The system added first (which runs first).
    pub first: String,
    /// The other.
    pub second: String,
    /// What both touch, one writing it: component and resource type names,
    /// `"World"` when one of them takes the whole world, or
    /// `ripple::message::MessagesOf<E>` for a writer and a reader of messages `E` (the
    /// reader reads them in the same run only if ordered after the writer).
    pub conflicts: Vec<&'static str>,
}

impl fmt::Display for Ambiguity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` and `{}` (phase `{}`) both touch {} with no order between them",
            self.first,
            self.second,
            self.phase,
            self.conflicts.join(", ")
        )
    }
}

impl Schedule {
    /// The pairs of systems that conflict and are not ordered, phase by phase, in the
    /// order the systems were added. O(n² · access) for a phase of n systems, with
    /// the order's transitive closure (n² bits); meant for tests and debug builds
    /// (`assert!(schedule.ambiguities().is_empty())`), not for every frame.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::schedule::{IntoSystemConfig, Schedule};
    /// use ripple::system::Query;
    /// struct Pos(f32);
    /// fn push(mut pos: Query<&mut Pos>) { pos.for_each_mut(|mut p| p.0 += 1.0); }
    /// fn pull(mut pos: Query<&mut Pos>) { pos.for_each_mut(|mut p| p.0 -= 1.0); }
    /// fn read(mut pos: Query<&Pos>) { pos.for_each(|_| {}); }
    /// let mut world = World::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(&mut world, push).unwrap();
    /// schedule.add_system(&mut world, pull).unwrap();
    /// schedule.add_system(&mut world, read.after("push").after("pull")).unwrap();
    /// let found = schedule.ambiguities();
    /// assert_eq!(found.len(), 1);
    /// assert_eq!((found[0].first.as_str(), found[0].second.as_str()), ("push", "pull"));
    /// ```
    pub fn ambiguities(&self) -> Vec<Ambiguity> {
        let mut found = Vec::new();
        for phase in 0..self.phases.len() {
            let members = &self.phases[phase].members;
            let n = members.len();
            let reach = self.order_closure(phase);
            let ordered = |i: usize, j: usize| reach[i * n + j] || reach[j * n + i];
            let excused = self.excused_pairs(phase);
            for (i, &first) in members.iter().enumerate() {
                let first = self.slot(first).expect("members exist");
                for (j, &second) in members.iter().enumerate().skip(i + 1) {
                    if ordered(i, j) || excused.contains(&(i, j)) {
                        continue;
                    }
                    let second = self.slot(second).expect("members exist");
                    let (a, b) = (first.system.access(), second.system.access());
                    let conflicts = if !a.conflicts_with(b) {
                        // A message reader beside its writer: no conflict, but which
                        // run it reads the messages in depends on their order.
                        a.order_sensitive_names(b)
                    } else if a.is_exclusive() || b.is_exclusive() {
                        vec!["World"]
                    } else {
                        a.conflicting_names(b)
                    };
                    if conflicts.is_empty() {
                        continue;
                    }
                    found.push(Ambiguity {
                        phase: self.phases[phase].name.to_string(),
                        first: first.system.name().to_string(),
                        second: second.system.name().to_string(),
                        conflicts,
                    });
                }
            }
        }
        found
    }

    /// For members `i` and `j` of `phase` (by position), whether `i` must follow `j`,
    /// directly or not: `reach[i * n + j]`.
    fn order_closure(&self, phase: usize) -> Vec<bool> {
        let after = self.phase_after_lists(phase);
        let n = after.len();
        let mut reach = vec![false; n * n];
        let mut stack = Vec::new();
        for start in 0..n {
            stack.clear();
            stack.extend(after[start].iter().copied());
            while let Some(node) = stack.pop() {
                if !reach[start * n + node] {
                    reach[start * n + node] = true;
                    stack.extend(after[node].iter().copied());
                }
            }
        }
        reach
    }

    /// The pairs of members of `phase` (by position, lower first) that a member
    /// declared ambiguous on purpose.
    fn excused_pairs(&self, phase: usize) -> Vec<(usize, usize)> {
        let members = &self.phases[phase].members;
        let position = |id: SystemId| members.iter().position(|&m| m == id);
        let mut pairs = Vec::new();
        for (i, &id) in members.iter().enumerate() {
            let slot = self.slot(id).expect("members exist");
            for target in &slot.ambiguous_with {
                let others = match target {
                    SystemRef::Id(other) => vec![*other],
                    SystemRef::Name(name) => {
                        match self.find(name).map(Node::System).or_else(|| self.find_set(name).map(Node::Set)) {
                            Some(Node::System(other)) => vec![other],
                            Some(Node::Set(set)) => self.set_members(set),
                            None => Vec::new(),
                        }
                    }
                };
                for j in others.into_iter().filter_map(position) {
                    pairs.push((i.min(j), i.max(j)));
                }
            }
        }
        pairs
    }
}
