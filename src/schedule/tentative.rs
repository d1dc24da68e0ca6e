//! [`Tentative`]: a schedule edit of several steps (adding a system, configuring sets)
//! that takes effect whole or not at all. The edit runs on the guard; an error returned
//! with `?`, or a panic from user code it calls (a system's or a condition's
//! initialization), drops the guard, which puts the schedule back as it was; only
//! [`commit`](Tentative::commit) keeps the changes.
//!
//! What an edit may change: the order edges, the sets (new ones, and each existing
//! set's phase, parents, conditions and flags), the systems (new slots only) and the
//! phases' member lists (appended to only). The guard remembers exactly these.

use std::ops::{Deref, DerefMut};

use super::Schedule;
use super::node::Node;

/// A schedule being edited; see the module docs.
pub(crate) struct Tentative<'s> {
    schedule: &'s mut Schedule,
    undo: Option<Undo>,
}

/// What [`Tentative`] puts back.
struct Undo {
    edges: Vec<(Node, Node)>,
    sets: usize,
    /// Per set that existed: phase, parents, conditions, enabled, placeholder, gone.
    kept: Vec<(Option<usize>, usize, usize, bool, bool, bool)>,
    slots: usize,
    /// Per phase, its member count.
    members: Vec<usize>,
}

impl Schedule {
    /// Starts an edit that is undone unless committed. O(edges + sets + phases).
    pub(crate) fn tentatively(&mut self) -> Tentative<'_> {
        let undo = Undo {
            edges: self.edges.clone(),
            sets: self.sets.len(),
            kept: self
                .sets
                .iter()
                .map(|s| (s.phase, s.parents.len(), s.conditions.len(), s.enabled, s.placeholder, s.gone))
                .collect(),
            slots: self.slots.len(),
            members: self.phases.iter().map(|phase| phase.members.len()).collect(),
        };
        Tentative { schedule: self, undo: Some(undo) }
    }
}

impl Tentative<'_> {
    /// Keeps the edit.
    pub(crate) fn commit(mut self) {
        self.undo = None;
    }
}

impl Deref for Tentative<'_> {
    type Target = Schedule;

    fn deref(&self) -> &Schedule {
        self.schedule
    }
}

impl DerefMut for Tentative<'_> {
    fn deref_mut(&mut self) -> &mut Schedule {
        self.schedule
    }
}

impl Drop for Tentative<'_> {
    fn drop(&mut self) {
        let Some(undo) = self.undo.take() else { return };
        let schedule = &mut *self.schedule;
        // New systems go first: the sets' memberships are recomputed from the slots.
        schedule.slots.truncate(undo.slots);
        for (phase, members) in schedule.phases.iter_mut().zip(undo.members) {
            phase.members.truncate(members);
        }
        schedule.edges = undo.edges;
        schedule.sets.truncate(undo.sets);
        for (set, (phase, parents, conditions, enabled, placeholder, gone)) in schedule.sets.iter_mut().zip(undo.kept) {
            set.phase = phase;
            set.parents.truncate(parents);
            set.conditions.truncate(conditions);
            set.enabled = enabled;
            set.placeholder = placeholder;
            set.gone = gone;
        }
        for slot in schedule.slots.iter_mut().flatten() {
            slot.direct_sets.retain(|&set| set < undo.sets);
        }
        schedule.refresh_memberships();
    }
}
