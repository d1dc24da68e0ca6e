//! [`SystemAccess`]: what one system reads and writes, derived from its parameters,
//! and the conflict test the schedule runs between systems.

use std::any::TypeId;

use crate::component::ComponentId;

/// One thing a system touches: a component's column (with its change ticks) or a
/// resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Component(ComponentId),
    Resource(TypeId),
}

/// The reads and writes of one system. Two systems conflict when one writes what the
/// other reads or writes, or when either takes the whole world.
#[derive(Clone, Debug, Default)]
pub struct SystemAccess {
    entries: Vec<(Key, bool, &'static str)>,
    /// Takes `&mut World`: conflicts with every system.
    exclusive: bool,
}

impl SystemAccess {
    /// Adds one parameter's component accesses (each component once, with whether it
    /// is written).
    ///
    /// # Errors
    /// A message naming the component if an earlier parameter of the same system
    /// already touches it and one of the two writes it.
    pub(crate) fn add_components(
        &mut self,
        accesses: &[(ComponentId, bool, &'static str)],
        param: &str,
    ) -> Result<(), String> {
        let entries: Vec<_> = accesses.iter().map(|&(id, write, name)| (Key::Component(id), write, name)).collect();
        self.add(&entries, param)
    }

    /// Adds a read (or, if `write`, a write) of resource `R`.
    ///
    /// # Errors
    /// As [`add_components`](Self::add_components), naming the resource.
    pub(crate) fn add_resource<R: 'static>(&mut self, write: bool, param: &str) -> Result<(), String> {
        self.add(&[(Key::Resource(TypeId::of::<R>()), write, std::any::type_name::<R>())], param)
    }

    /// Marks the system as taking the whole world.
    pub(crate) fn set_exclusive(&mut self) {
        self.exclusive = true;
    }

    /// Whether the system takes `&mut World`.
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    fn add(&mut self, new: &[(Key, bool, &'static str)], param: &str) -> Result<(), String> {
        for &(key, write, name) in new {
            if let Some(&(_, other_write, _)) = self.entries.iter().find(|e| e.0 == key) {
                if write || other_write {
                    let what = match key {
                        Key::Component(_) => "component",
                        Key::Resource(_) => "resource",
                    };
                    let how = if write && other_write { "written twice" } else { "both written and read" };
                    return Err(format!("{what} `{name}` is {how} (the second time by parameter `{param}`)"));
                }
            }
        }
        self.entries.extend_from_slice(new);
        Ok(())
    }

    /// Whether this system and `other` may not run at the same time.
    pub fn conflicts_with(&self, other: &SystemAccess) -> bool {
        self.exclusive
            || other.exclusive
            || self.entries.iter().any(|&(key, write, _)| {
                other.entries.iter().any(|&(other_key, other_write, _)| key == other_key && (write || other_write))
            })
    }

    /// The names of what both systems touch and at least one writes (for messages).
    pub fn conflicting_names(&self, other: &SystemAccess) -> Vec<&'static str> {
        let mut names = Vec::new();
        for &(key, write, name) in &self.entries {
            if other.entries.iter().any(|&(k, w, _)| k == key && (write || w)) && !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_share_and_writes_exclude() {
        let mut a = SystemAccess::default();
        a.add_resource::<u32>(false, "Res<u32>").unwrap();
        let mut b = SystemAccess::default();
        b.add_resource::<u32>(false, "Res<u32>").unwrap();
        assert!(!a.conflicts_with(&b));
        let mut c = SystemAccess::default();
        c.add_resource::<u32>(true, "ResMut<u32>").unwrap();
        assert!(a.conflicts_with(&c));
        assert_eq!(a.conflicting_names(&c), ["u32"]);
        let mut d = SystemAccess::default();
        d.set_exclusive();
        assert!(d.conflicts_with(&SystemAccess::default()));
    }

    #[test]
    fn one_system_cannot_write_what_it_also_reads() {
        let mut a = SystemAccess::default();
        a.add_resource::<u32>(false, "Res<u32>").unwrap();
        let error = a.add_resource::<u32>(true, "ResMut<u32>").unwrap_err();
        assert_eq!(error, "resource `u32` is both written and read (the second time by parameter `ResMut<u32>`)");
    }
}
