//! The set of components a query reads and writes, and the aliasing check.

use crate::component::ComponentId;

use super::sparse_fetch::ComponentRef;

/// One component a query touches, as a scheduler sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ComponentAccess {
    pub(crate) id: ComponentId,
    pub(crate) write: bool,
    pub(crate) name: &'static str,
    /// Stored in one sparse set for every entity (not per table): queries over
    /// disjoint tables still share it.
    pub(crate) sparse: bool,
}

/// A query's footprint: what it touches, and which tables it can reach.
#[derive(Clone, Debug, Default)]
pub(crate) struct QueryAccess {
    pub(crate) components: Box<[ComponentAccess]>,
    /// Table components every match has.
    pub(crate) with: Box<[ComponentId]>,
    /// Table components no match has.
    pub(crate) without: Box<[ComponentId]>,
}

impl QueryAccess {
    /// Whether no entity can match both queries: one requires a table component the
    /// other excludes, so they reach disjoint tables.
    pub(crate) fn is_disjoint(&self, other: &QueryAccess) -> bool {
        self.with.iter().any(|c| other.without.contains(c)) || other.with.iter().any(|c| self.without.contains(c))
    }

    /// The first component both touch, one writing it, that they may reach at once (a
    /// sparse component, or any component if their tables may overlap).
    pub(crate) fn conflict<'a>(&'a self, other: &'a QueryAccess) -> Option<(&'a ComponentAccess, &'a ComponentAccess)> {
        let disjoint = self.is_disjoint(other);
        self.components.iter().find_map(|mine| {
            let theirs = other.components.iter().find(|c| c.id == mine.id && (c.write || mine.write))?;
            (!disjoint || mine.sparse).then_some((mine, theirs))
        })
    }
}

/// Reads and writes declared by a query; records the first conflict.
#[derive(Default, Debug)]
pub struct Access {
    entries: Vec<(ComponentId, bool, &'static str)>,
    /// Components whose change ticks a filter reads (never an aliasing conflict inside
    /// one query: the query itself orders its tick reads and writes).
    tick_reads: Vec<(ComponentId, &'static str)>,
    conflict: Option<String>,
    /// Table components every matching entity has (`&T`, `&mut T`, `With<T>`).
    with: Vec<ComponentId>,
    /// Table components no matching entity has (`Without<T>`).
    without: Vec<ComponentId>,
    /// Inside `Option<..>` or `Or<..>`, where a term no longer decides a match.
    optional: u32,
}

impl Access {
    /// Declares a shared read of `component` (named `name` in messages).
    pub(crate) fn read(&mut self, component: ComponentId, name: &'static str) {
        self.add(component, false, name);
    }

    /// Declares an exclusive write of `component`.
    pub(crate) fn write(&mut self, component: ComponentId, name: &'static str) {
        if crate::hierarchy::is_relation(component) && self.conflict.is_none() {
            self.conflict = Some(crate::hierarchy::relation_write_refusal(name));
        }
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

    /// Records that every match has `component`, if it is stored in tables and the
    /// term is not inside an `Option` or `Or`: the query then only reaches tables
    /// that have it.
    pub(crate) fn require(&mut self, component: &ComponentRef) {
        if self.optional == 0 && !component.sparse && !self.with.contains(&component.id) {
            self.with.push(component.id);
        }
    }

    /// Records that no match has `component`, under the same conditions as
    /// [`require`](Self::require).
    pub(crate) fn exclude(&mut self, component: &ComponentRef) {
        if self.optional == 0 && !component.sparse && !self.without.contains(&component.id) {
            self.without.push(component.id);
        }
    }

    /// Runs `declare` for terms that do not decide a match on their own (the inside of
    /// an `Option` or an `Or`).
    pub(crate) fn optional(&mut self, declare: impl FnOnce(&mut Self)) {
        self.optional += 1;
        declare(self);
        self.optional -= 1;
    }

    /// What a scheduler needs to keep this query apart from others: every component
    /// touched, once each (whether it is written, and whether it lives in a sparse set
    /// according to `is_sparse`), and the table components that decide a match.
    pub(crate) fn finish(&self, is_sparse: impl Fn(ComponentId) -> bool) -> QueryAccess {
        QueryAccess {
            components: self
                .merged()
                .into_iter()
                .map(|(id, write, name)| ComponentAccess { id, write, name, sparse: is_sparse(id) })
                .collect(),
            with: self.with.clone().into(),
            without: self.without.clone().into(),
        }
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
