//! [`SystemAccess`]: what one system reads and writes, derived from its parameters,
//! and the conflict test the schedule runs between systems.

use std::any::TypeId;

use crate::query::QueryAccess;

/// The reads and writes of one system. Two systems conflict when one writes what the
/// other reads or writes, or when either takes the whole world.
///
/// Component accesses are kept per query together with the table components that
/// decide the query's match, so that two queries writing one component are apart when
/// no entity can match both: `Query<&mut A, With<B>>` and `Query<&mut A,
/// Without<B>>` reach disjoint tables (if `A` and `B` are stored in tables; a
/// component in a sparse set is one store for every entity).
#[derive(Clone, Debug, Default)]
pub struct SystemAccess {
    queries: Vec<QueryAccess>,
    /// Resources, each once, with whether written.
    resources: Vec<(TypeId, bool, &'static str)>,
    /// Takes `&mut World`: conflicts with every system.
    exclusive: bool,
    /// Data two systems share without conflict whose order still decides what one
    /// sees (a message type: a reader beside its writer reads the next run), each
    /// once, with whether this system produces it. Never a conflict; an
    /// [ambiguity](crate::schedule::Schedule::ambiguities) when unordered.
    ordered_by: Vec<(TypeId, bool, &'static str)>,
}

impl SystemAccess {
    /// Adds one query's accesses.
    ///
    /// # Errors
    /// A message naming the component if an earlier query of the same system touches
    /// it, one of the two writes it, and an entity could match both.
    pub(crate) fn add_query(&mut self, query: &QueryAccess, param: &str) -> Result<(), String> {
        self.check_query(query, param)?;
        self.queries.push(query.clone());
        Ok(())
    }

    /// Whether `query` could be added (the message names the conflict).
    fn check_query(&self, query: &QueryAccess, param: &str) -> Result<(), String> {
        for earlier in &self.queries {
            if let Some(conflict) = query.conflict(earlier) {
                let how = if conflict.both_write { "written twice" } else { "both written and read" };
                return Err(format!(
                    "component `{}` is {how} (the second time by parameter `{param}`); split the queries with \
                     `With`/`Without` filters so no entity matches both, or put them in a `ParamSet`",
                    conflict.name
                ));
            }
        }
        Ok(())
    }

    /// Adds a read (or, if `write`, a write) of resource `R`.
    ///
    /// # Errors
    /// A message naming the resource if an earlier parameter of the same system
    /// already touches it and one of the two writes it.
    pub(crate) fn add_resource<R: 'static>(&mut self, write: bool, param: &str) -> Result<(), String> {
        let key = TypeId::of::<R>();
        self.check_resource(key, write, std::any::type_name::<R>(), param)?;
        if !self.resources.iter().any(|r| r.0 == key) {
            self.resources.push((key, write, std::any::type_name::<R>()));
        }
        Ok(())
    }

    /// Whether an access to resource `key` could be added (the message names it).
    fn check_resource(&self, key: TypeId, write: bool, name: &str, param: &str) -> Result<(), String> {
        match self.resources.iter().find(|r| r.0 == key) {
            Some(&(_, mine, _)) if write || mine => {
                let how = if write && mine { "written twice" } else { "both written and read" };
                Err(format!("resource `{name}` is {how} (the second time by parameter `{param}`)"))
            }
            _ => Ok(()),
        }
    }

    /// Adds everything `other` touches, without checking for conflicts between the
    /// two: for accesses that never happen at the same time (a `ParamSet`'s members, a
    /// system and its run conditions).
    pub(crate) fn extend(&mut self, other: &SystemAccess) {
        self.exclusive |= other.exclusive;
        for &(key, produces, name) in &other.ordered_by {
            match self.ordered_by.iter_mut().find(|entry| entry.0 == key) {
                Some(entry) => entry.1 |= produces,
                None => self.ordered_by.push((key, produces, name)),
            }
        }
        self.queries.extend(other.queries.iter().cloned());
        for &(key, write, name) in &other.resources {
            match self.resources.iter_mut().find(|r| r.0 == key) {
                Some(entry) => entry.1 |= write,
                None => self.resources.push((key, write, name)),
            }
        }
    }

    /// Whether `other` conflicts with anything already here (the message names it).
    pub(crate) fn check(&self, other: &SystemAccess, param: &str) -> Result<(), String> {
        for query in &other.queries {
            self.check_query(query, param)?;
        }
        for &(key, write, name) in &other.resources {
            self.check_resource(key, write, name, param)?;
        }
        Ok(())
    }

    /// Adds data whose order matters without conflicting (see `ordered_by`): `K`
    /// names it, `produces` says whether this system makes it or reads it.
    pub(crate) fn add_ordered_by<K: 'static>(&mut self, produces: bool) {
        let key = TypeId::of::<K>();
        match self.ordered_by.iter_mut().find(|entry| entry.0 == key) {
            Some(entry) => entry.1 |= produces,
            None => self.ordered_by.push((key, produces, std::any::type_name::<K>())),
        }
    }

    /// What this system and `other` share whose order decides what one of them sees
    /// (one produces it, the other reads it), though they do not conflict.
    pub fn order_sensitive_names(&self, other: &SystemAccess) -> Vec<&'static str> {
        self.ordered_by
            .iter()
            .filter(|&&(key, produces, _)| other.ordered_by.iter().any(|&(k, p, _)| k == key && produces != p))
            .map(|&(_, _, name)| name)
            .collect()
    }

    /// Marks the system as taking the whole world.
    pub(crate) fn set_exclusive(&mut self) {
        self.exclusive = true;
    }

    /// Whether the system takes `&mut World`.
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    /// Whether this system and `other` may not run at the same time.
    pub fn conflicts_with(&self, other: &SystemAccess) -> bool {
        self.exclusive
            || other.exclusive
            || self.queries.iter().any(|mine| other.queries.iter().any(|theirs| mine.conflict(theirs).is_some()))
            || self
                .resources
                .iter()
                .any(|&(key, write, _)| other.resources.iter().any(|&(k, w, _)| k == key && (write || w)))
    }

    /// The names of what both systems touch, at least one writing it, where they could
    /// meet (for messages).
    pub fn conflicting_names(&self, other: &SystemAccess) -> Vec<&'static str> {
        let mut names = Vec::new();
        for mine in &self.queries {
            for theirs in &other.queries {
                if let Some(conflict) = mine.conflict(theirs) {
                    if !names.contains(&conflict.name) {
                        names.push(conflict.name);
                    }
                }
            }
        }
        for &(key, write, name) in &self.resources {
            if other.resources.iter().any(|&(k, w, _)| k == key && (write || w)) && !names.contains(&name) {
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

    #[test]
    fn extending_merges_without_checking() {
        let mut a = SystemAccess::default();
        a.add_resource::<u32>(false, "Res<u32>").unwrap();
        let mut b = SystemAccess::default();
        b.add_resource::<u32>(true, "ResMut<u32>").unwrap();
        assert!(a.check(&b, "ResMut<u32>").is_err());
        a.extend(&b);
        let mut reader = SystemAccess::default();
        reader.add_resource::<u32>(false, "Res<u32>").unwrap();
        assert!(a.conflicts_with(&reader), "the merged access writes u32");
    }
}
