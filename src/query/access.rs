//! The set of components a query reads and writes, and the aliasing check.

use crate::component::ComponentId;

/// Reads and writes declared by a query; records the first conflict.
#[derive(Default, Debug)]
pub struct Access {
    entries: Vec<(ComponentId, bool, &'static str)>,
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
