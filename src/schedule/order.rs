//! The order constraints of a schedule — between systems, between sets, and between
//! a system and a set — checked as one graph per phase and projected onto the
//! phase's systems for planning.
//!
//! Each set appears in a phase's graph as two nodes, its start and its end: every
//! member of the set follows the start and precedes the end, and the end follows the
//! start. "X before set S" makes S's start follow X; "S before Y" makes Y follow S's
//! end. An order through an empty set still holds (as a set is a node of its own),
//! and a cycle through sets is found as a cycle of this graph and named with them.

use std::borrow::Cow;

use super::node::Node;
use super::plan;
use super::{Schedule, ScheduleError, SystemId};

/// One phase's order graph.
struct PhaseOrder {
    /// For each node, the nodes it must follow: members `0..members`, then each
    /// set's start and end.
    after: Vec<Vec<usize>>,
    members: usize,
}

impl PhaseOrder {
    fn start(&self, set: usize) -> usize {
        self.members + 2 * set
    }
    fn end(&self, set: usize) -> usize {
        self.members + 2 * set + 1
    }
}

impl Schedule {
    /// The order graph of `phase`.
    fn phase_order(&self, phase: usize) -> PhaseOrder {
        let members = &self.phases[phase].members;
        let mut order =
            PhaseOrder { after: vec![Vec::new(); members.len() + 2 * self.sets.len()], members: members.len() };
        for set in 0..self.sets.len() {
            let (start, end) = (order.start(set), order.end(set));
            order.after[end].push(start);
            // A set inside another starts after it starts and ends before it ends.
            for &parent in &self.sets[set].parents {
                let (parent_start, parent_end) = (order.start(parent), order.end(parent));
                order.after[start].push(parent_start);
                order.after[parent_end].push(end);
            }
        }
        for (pos, &id) in members.iter().enumerate() {
            for &set in &self.slots[id.0 as usize].as_ref().expect("members exist").sets {
                let (start, end) = (order.start(set), order.end(set));
                order.after[pos].push(start);
                order.after[end].push(pos);
            }
        }
        let position = |id: SystemId| members.iter().position(|&m| m == id);
        for &(first, second) in &self.edges {
            let from = match first {
                Node::System(id) => position(id),
                Node::Set(set) => Some(order.end(set)),
            };
            let to = match second {
                Node::System(id) => position(id),
                Node::Set(set) => Some(order.start(set)),
            };
            if let (Some(from), Some(to)) = (from, to) {
                order.after[to].push(from);
            }
        }
        order
    }

    /// Checks every constraint: no cycle in any phase, and no constraint between
    /// systems of two phases that contradicts the phase order.
    pub(crate) fn check_order(&self) -> Result<(), ScheduleError> {
        for &(first, second) in &self.edges {
            for earlier in self.node_members(first) {
                for later in self.node_members(second) {
                    let (a, b) = (self.phase_of(earlier), self.phase_of(later));
                    if a > b {
                        return Err(ScheduleError::OrderAcrossPhases {
                            system: self.name_of(earlier),
                            other: self.name_of(later),
                        });
                    }
                }
            }
        }
        for phase in 0..self.phases.len() {
            let order = self.phase_order(phase);
            if let Some(cycle) = plan::find_cycle(&order.after) {
                let mut names: Vec<String> = Vec::new();
                for node in cycle {
                    let name = if node < order.members {
                        self.name_of(self.phases[phase].members[node])
                    } else {
                        format!("set `{}`", self.sets[(node - order.members) / 2].name)
                    };
                    // A set's start and end name it once.
                    if names.last() != Some(&name) {
                        names.push(name);
                    }
                }
                return Err(ScheduleError::Cycle(names));
            }
        }
        Ok(())
    }

    /// For each member of `phase` (by position), the members it must follow, directly
    /// or through sets (not through other members: planning closes over those).
    pub(crate) fn phase_after_lists(&self, phase: usize) -> Vec<Vec<usize>> {
        let order = self.phase_order(phase);
        let mut lists = vec![Vec::new(); order.members];
        let mut seen = vec![usize::MAX; order.after.len()];
        let mut stack = Vec::new();
        for (member, list) in lists.iter_mut().enumerate() {
            stack.clear();
            stack.extend(order.after[member].iter().copied());
            while let Some(node) = stack.pop() {
                if seen[node] == member {
                    continue;
                }
                seen[node] = member;
                if node < order.members {
                    list.push(node);
                } else {
                    stack.extend(order.after[node].iter().copied());
                }
            }
        }
        lists
    }

    /// The systems a node stands for, in any phase.
    fn node_members(&self, node: Node) -> Vec<SystemId> {
        match node {
            Node::System(id) => vec![id],
            Node::Set(set) => self.set_members(set),
        }
    }

    /// The systems in `set`.
    pub(crate) fn set_members(&self, set: usize) -> Vec<SystemId> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.as_ref().is_some_and(|slot| slot.sets.contains(&set)))
            .map(|(index, _)| SystemId(index as u32))
            .collect()
    }

    fn phase_of(&self, id: SystemId) -> usize {
        self.slots[id.0 as usize].as_ref().expect("constraints name live systems").phase
    }

    /// Drops the constraints of `id`, ordering each node it followed before each node
    /// that followed it, so the order implied through it survives.
    pub(crate) fn bridge_edges_through(&mut self, id: SystemId) {
        let node = Node::System(id);
        let before: Vec<Node> = self.edges.iter().filter(|e| e.1 == node).map(|e| e.0).collect();
        let after: Vec<Node> = self.edges.iter().filter(|e| e.0 == node).map(|e| e.1).collect();
        self.edges.retain(|&(a, b)| a != node && b != node);
        for &first in &before {
            for &second in &after {
                if !self.edges.contains(&(first, second)) {
                    self.edges.push((first, second));
                }
            }
        }
    }

    /// The node a name or handle stands for: a system, else a set.
    pub(crate) fn resolve_node(&self, target: &super::SystemRef) -> Result<Node, ScheduleError> {
        match target {
            super::SystemRef::Name(name) => self
                .find(name)
                .map(Node::System)
                .or_else(|| self.find_set(name).map(Node::Set))
                .ok_or_else(|| ScheduleError::UnknownSystem(name.to_string())),
            super::SystemRef::Id(id) => self.slot(*id).map(|_| Node::System(*id)),
        }
    }

    /// The index of the set called `name`.
    pub(crate) fn find_set(&self, name: &str) -> Option<usize> {
        self.sets.iter().position(|set| !set.gone && set.name == name)
    }

    /// The node an order constraint names: a system, else a set; a name nothing has
    /// yet becomes a placeholder set, which a system added later under that name
    /// replaces (or which becomes a set when configured or joined).
    ///
    /// # Errors
    /// [`ScheduleError::NoSuchSystem`] for the handle of a removed system.
    pub(crate) fn order_target(&mut self, target: &super::SystemRef) -> Result<Node, ScheduleError> {
        match target {
            super::SystemRef::Name(name) if self.find(name).is_none() && self.find_set(name).is_none() => {
                let mut set = super::set_slot::SetSlot::new(name.clone());
                set.placeholder = true;
                self.sets.push(set);
                Ok(Node::Set(self.sets.len() - 1))
            }
            _ => self.resolve_node(target),
        }
    }

    /// Whether `set` only stands for a name an order gave before anything had it:
    /// no system or set is in it, and it was never configured or joined.
    pub(crate) fn is_placeholder(&self, set: usize) -> bool {
        self.sets[set].placeholder && !self.sets.iter().any(|other| !other.gone && other.parents.contains(&set))
    }

    /// If `set` is a placeholder, makes system `id` (added under its name) take its
    /// place in every order constraint, and retires the set.
    pub(crate) fn adopt_placeholder(&mut self, set: usize, id: SystemId) {
        if !self.is_placeholder(set) {
            return;
        }
        for edge in &mut self.edges {
            for end in [&mut edge.0, &mut edge.1] {
                if *end == Node::Set(set) {
                    *end = Node::System(id);
                }
            }
        }
        self.sets[set].gone = true;
        self.plans_stale = true;
    }

    /// The names orders were given against that no system or set has taken yet
    /// (a misspelt name, or a system not added yet): such an order does nothing until
    /// one is added under that name.
    pub fn unresolved_order_targets(&self) -> Vec<&str> {
        (0..self.sets.len())
            .filter(|&set| !self.sets[set].gone && self.is_placeholder(set))
            .map(|set| &*self.sets[set].name)
            .collect()
    }

    /// The index of the set called `name`, created (empty, enabled, in no phase) if
    /// new.
    ///
    /// # Errors
    /// [`ScheduleError::DuplicateName`] if a system has this name.
    pub(crate) fn set_or_create(&mut self, name: Cow<'static, str>) -> Result<usize, ScheduleError> {
        if let Some(set) = self.find_set(&name) {
            // Joined or configured: a set from now on, not a placeholder.
            self.sets[set].placeholder = false;
            return Ok(set);
        }
        if self.find(&name).is_some() {
            return Err(ScheduleError::DuplicateName(name.to_string()));
        }
        self.sets.push(super::set_slot::SetSlot::new(name));
        Ok(self.sets.len() - 1)
    }
}
