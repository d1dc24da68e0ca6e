//! Sets inside sets: each system's full list of sets (its own and their ancestors'),
//! and the checks a change to the set hierarchy must pass (no cycle, no redundant
//! membership, one phase).

use crate::system::SystemAccess;

use super::{Schedule, ScheduleError, SystemId};

impl Schedule {
    /// The sets `set` is in, directly or through others (not itself), nearest first.
    /// O(ancestors × parents).
    pub(crate) fn set_ancestors(&self, set: usize) -> Vec<usize> {
        let mut found: Vec<usize> = Vec::new();
        let mut next = 0;
        found.extend(&self.sets[set].parents);
        while next < found.len() {
            for &parent in &self.sets[found[next]].parents {
                if !found.contains(&parent) {
                    found.push(parent);
                }
            }
            next += 1;
        }
        found.retain(|&s| s != set);
        found
    }

    /// `direct` and every set those are in, each once, in that order.
    pub(crate) fn sets_closure(&self, direct: &[usize]) -> Vec<usize> {
        let mut all = direct.to_vec();
        for &set in direct {
            for ancestor in self.set_ancestors(set) {
                if !all.contains(&ancestor) {
                    all.push(ancestor);
                }
            }
        }
        all
    }

    /// Recomputes each system's full list of sets from its own.
    pub(crate) fn refresh_memberships(&mut self) {
        let lists: Vec<Option<Vec<usize>>> =
            self.slots.iter().map(|slot| slot.as_ref().map(|slot| self.sets_closure(&slot.direct_sets))).collect();
        for (slot, list) in self.slots.iter_mut().zip(lists) {
            if let (Some(slot), Some(list)) = (slot, list) {
                slot.sets = list;
            }
        }
        self.plans_stale = true;
    }

    /// Puts set `child` in set `parent`.
    ///
    /// # Errors
    /// [`ScheduleError::SetCycle`] if `child` would end up inside itself.
    pub(crate) fn nest(&mut self, child: usize, parent: usize) -> Result<(), ScheduleError> {
        if parent == child || self.set_ancestors(parent).contains(&child) {
            return Err(ScheduleError::SetCycle {
                set: self.sets[child].name.to_string(),
                parent: self.sets[parent].name.to_string(),
            });
        }
        if !self.sets[child].parents.contains(&parent) {
            self.sets[child].parents.push(parent);
        }
        Ok(())
    }

    /// Refuses a membership (of a system or a set) implied by another of the same
    /// member: in `a` and in `b` where `b` is inside `a`.
    ///
    /// # Errors
    /// [`ScheduleError::RedundantSet`] naming the member and both sets.
    pub(crate) fn check_redundancy(&self) -> Result<(), ScheduleError> {
        let check = |member: String, direct: &[usize]| {
            for &inner in direct {
                let ancestors = self.set_ancestors(inner);
                if let Some(&outer) = direct.iter().find(|&&outer| outer != inner && ancestors.contains(&outer)) {
                    return Err(ScheduleError::RedundantSet {
                        member,
                        set: self.sets[outer].name.to_string(),
                        through: self.sets[inner].name.to_string(),
                    });
                }
            }
            Ok(())
        };
        for (index, slot) in self.slots.iter().enumerate() {
            if let Some(slot) = slot {
                check(format!("system `{}`", self.name_of(SystemId(index as u32))), &slot.direct_sets)?;
            }
        }
        for set in &self.sets {
            check(format!("set `{}`", set.name), &set.parents)?;
        }
        Ok(())
    }

    /// Refuses a phase given to a set that differs from a member's (a system in it,
    /// directly or not) or an enclosing set's.
    ///
    /// # Errors
    /// [`ScheduleError::SetPhase`] naming both.
    pub(crate) fn check_phases(&self) -> Result<(), ScheduleError> {
        for (index, slot) in self.slots.iter().enumerate() {
            let Some(slot) = slot else { continue };
            for &set in &slot.sets {
                if let Some(phase) = self.sets[set].phase.filter(|&phase| phase != slot.phase) {
                    return Err(ScheduleError::SetPhase {
                        set: self.sets[set].name.to_string(),
                        phase: self.phases[phase].name.to_string(),
                        other: format!("system `{}`", self.name_of(SystemId(index as u32))),
                        other_phase: self.phases[slot.phase].name.to_string(),
                    });
                }
            }
        }
        for (index, set) in self.sets.iter().enumerate() {
            let Some(own) = set.phase else { continue };
            for ancestor in self.set_ancestors(index) {
                if let Some(phase) = self.sets[ancestor].phase.filter(|&phase| phase != own) {
                    return Err(ScheduleError::SetPhase {
                        set: self.sets[ancestor].name.to_string(),
                        phase: self.phases[phase].name.to_string(),
                        other: format!("set `{}`", set.name),
                        other_phase: self.phases[own].name.to_string(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The access of every condition that decides whether the system in `slot` runs
    /// (its own, and every set's it is in, directly or not), added to its own.
    pub(crate) fn planning_access(&self, slot: &super::Slot) -> SystemAccess {
        let mut access = slot.system.access().clone();
        for condition in slot.conditions.iter().chain(slot.sets.iter().flat_map(|&set| &self.sets[set].conditions)) {
            access.extend(condition.access());
        }
        access
    }
}
