//! The set of components a query reads and writes, and the aliasing check.

use crate::component::ComponentId;

/// Reads and writes declared by a query; records the first conflict.
#[derive(Default, Debug)]
pub struct Access {
    entries: Vec<(ComponentId, bool, &'static str)>,
    /// Components whose change ticks a filter reads (never an aliasing conflict inside
    /// one query: the query itself orders its tick reads and writes).
    tick_reads: Vec<(ComponentId, &'static str)>,
    conflict: Option<String>,
}

impl Access {
    /// Declares a shared read of `component` (named `name` in messages).
    pub(crate) fn read(&mut self, component: ComponentId, name: &'static str) {
        self.add(component, false, name);
    }

    /// Declares an exclusive write of `component`.
    pub(crate) fn write(&mut self, component: ComponentId, name: &'static str) {
        self.add(component, true, name);
    }

    /// Declares a read of `component`'s change ticks by a filter.
    pub(crate) fn read_ticks(&mut self, component: ComponentId, name: &'static str) {
        self.tick_reads.push((component, name));
    }

    /// Every component touched, once each, with whether it is written: what a
    /// scheduler must keep apart from other systems.
    pub(crate) fn merged(&self) -> Vec<(ComponentId, bool, &'static str)> {
        let mut merged: Vec<(ComponentId, bool, &'static str)> = Vec::new();
        let all = self.entries.iter().copied().chain(self.tick_reads.iter().map(|&(id, name)| (id, false, name)));
        for (id, write, name) in all {
            match merged.iter_mut().find(|e| e.0 == id) {
                Some(entry) => entry.1 |= write,
                None => merged.push((id, write, name)),
            }
        }
        merged
    }

    fn add(&mut self, component: ComponentId, write: bool, name: &'static str) {
        if self.conflict.is_none() {
            if let Some(&(_, other_write, _)) = self.entries.iter().find(|e| e.0 == component) {
                if write || other_write {
                    let how = if write && other_write { "mutably twice" } else { "both mutably and immutably" };
                    self.conflict = Some(format!("component `{name}` is accessed {how}"));
                }
            }
        }
        self.entries.push((component, write, name));
    }

    /// The first aliasing conflict, described.
    pub(crate) fn conflict(&self) -> Option<&str> {
        self.conflict.as_deref()
    }
}
