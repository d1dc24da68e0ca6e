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

/// Access to every component of the matched entities (an [`EntityRef`](crate::EntityRef)
/// or an [`EntityMutExcept`](crate::query::EntityMutExcept) in a query), but those excepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WholeAccess {
    pub(crate) write: bool,
    pub(crate) except: Box<[ComponentId]>,
    /// The query term, for messages.
    pub(crate) name: &'static str,
}

/// Two accesses that may not meet: what both touch, and whether both write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    /// The component, or the whole-entity term when both reach every component.
    pub(crate) name: &'static str,
    pub(crate) both_write: bool,
}

/// A query's footprint: what it touches, and which tables it can reach.
#[derive(Clone, Debug, Default)]
pub(crate) struct QueryAccess {
    pub(crate) components: Box<[ComponentAccess]>,
    /// Every component of the matched entities, but those excepted.
    pub(crate) whole: Option<WholeAccess>,
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
    /// sparse component, or any component if their tables may overlap). A whole-entity
    /// access touches every component but those it excepts; two of them conflict when
    /// either writes, whatever their tables (both reach every sparse set).
    pub(crate) fn conflict(&self, other: &QueryAccess) -> Option<Conflict> {
        if let (Some(mine), Some(theirs)) = (&self.whole, &other.whole)
            && (mine.write || theirs.write)
        {
            return Some(Conflict { name: mine.name, both_write: mine.write && theirs.write });
        }
        let disjoint = self.is_disjoint(other);
        let whole_meets = |whole: &Option<WholeAccess>, component: &ComponentAccess| {
            whole.as_ref().is_some_and(|whole| {
                (whole.write || component.write)
                    && !whole.except.contains(&component.id)
                    && (!disjoint || component.sparse)
            })
        };
        let found = self.components.iter().find_map(|mine| {
            if whole_meets(&other.whole, mine) {
                return Some((mine, mine.write && other.whole.as_ref().is_some_and(|w| w.write)));
            }
            let theirs = other.components.iter().find(|c| c.id == mine.id && (c.write || mine.write))?;
            (!disjoint || mine.sparse).then_some((mine, mine.write && theirs.write))
        });
        let found = found.or_else(|| {
            other
                .components
                .iter()
                .find(|theirs| whole_meets(&self.whole, theirs))
                .map(|theirs| (theirs, theirs.write && self.whole.as_ref().is_some_and(|w| w.write)))
        });
        found.map(|(component, both_write)| Conflict { name: component.name, both_write })
    }
}

/// The message for a component `component` that whole-entity term `whole` also reaches.
fn whole_conflict(whole: &str, component: &str, whole_writes: bool) -> String {
    let (how, instead) = if whole_writes { ("writes", "EntityMutExcept") } else { ("reads", "EntityRefExcept") };
    format!(
        "component `{component}` is accessed by another term, and `{whole}` {how} every component; \
         except it with `{instead}<({component},)>`"
    )
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
    /// Every component but those excepted (an entity reference term).
    whole: Option<WholeAccess>,
    /// Every component a term names, wherever it stands (inside `Option` and `Or`
    /// too): a query that names [`Disabled`](crate::Disabled) sees disabled entities.
    named: Vec<ComponentId>,
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

    /// Refuses writes of components the world keeps (a relation's), recording the
    /// first as the query's conflict; `refusal` says why one is kept.
    pub(crate) fn refuse_kept(&mut self, refusal: impl Fn(ComponentId) -> Option<String>) {
        if self.conflict.is_none() {
            self.conflict = self.entries.iter().filter(|&&(_, write, _)| write).find_map(|&(id, _, _)| refusal(id));
        }
    }

    /// Declares access to every component of the matched entities but `except`
    /// (written if `write`), by the term called `name`. One per query.
    pub(crate) fn whole(&mut self, write: bool, except: Vec<ComponentId>, name: &'static str) {
        if self.conflict.is_none() {
            if self.whole.is_some() {
                self.conflict = Some(format!("`{name}` reaches every component, and so does another term"));
            } else if let Some(&(_, _, other)) =
                self.entries.iter().find(|&&(id, w, _)| (write || w) && !except.contains(&id))
            {
                self.conflict = Some(whole_conflict(name, other, write));
            }
        }
        self.whole = Some(WholeAccess { write, except: except.into(), name });
    }

    /// Declares a read of `component`'s change ticks by a filter.
    pub(crate) fn read_ticks(&mut self, component: ComponentId, name: &'static str) {
        self.named.push(component);
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
        self.named.push(component.id);
        if self.optional == 0 && !component.sparse && !self.with.contains(&component.id) {
            self.with.push(component.id);
        }
    }

    /// Records that no match has `component`, under the same conditions as
    /// [`require`](Self::require).
    pub(crate) fn exclude(&mut self, component: &ComponentRef) {
        self.named.push(component.id);
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
            whole: self.whole.clone(),
            with: self.with.clone().into(),
            without: self.without.clone().into(),
        }
    }

    fn add(&mut self, component: ComponentId, write: bool, name: &'static str) {
        if self.conflict.is_none()
            && let Some(whole) = &self.whole
            && (whole.write || write)
            && !whole.except.contains(&component)
        {
            self.conflict = Some(whole_conflict(whole.name, name, whole.write));
        }
        if self.conflict.is_none() {
            if let Some(&(_, other_write, _)) = self.entries.iter().find(|e| e.0 == component) {
                if write || other_write {
                    let how = if write && other_write { "mutably twice" } else { "both mutably and immutably" };
                    self.conflict = Some(format!("component `{name}` is accessed {how}"));
                }
            }
        }
        self.named.push(component);
        self.entries.push((component, write, name));
    }

    /// Whether a term names `component` (see `named`).
    pub(crate) fn names(&self, component: ComponentId) -> bool {
        self.named.contains(&component)
    }

    /// The first aliasing conflict, described.
    pub(crate) fn conflict(&self) -> Option<&str> {
        self.conflict.as_deref()
    }
}
