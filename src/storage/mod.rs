//! Archetype storage: one table per exact set of component types.
//!
//! Tables are created lazily the first time a set is seen and never freed: they are
//! pools whose column capacity survives churn, so steady spawning and despawning
//! allocates nothing. Transitions between tables (`+bundle → table`,
//! `-bundle → table`) are cached so that a repeated insert or remove is one hash
//! lookup.

mod archetype;
mod blob_column;
mod column;
mod column_ticks;
mod sparse_set;
mod transitions;

pub use archetype::Archetype;
pub use blob_column::BlobColumn;
pub(crate) use blob_column::BlobShape;
pub use column::{Column, TypedColumn};
pub(crate) use column::{downcast, downcast_mut, downcast_mut_unchecked, downcast_unchecked};
pub(crate) use column_ticks::TickPtrs;
pub(crate) use sparse_set::{SparseSet, SparseSets, TypedSet};
pub(crate) use transitions::{Registries, RemoveEdge, Transitions};

use std::collections::HashMap;

use crate::change::Tick;
use crate::component::{ComponentId, Components};
use crate::hook::HookFlags;

/// Index of an archetype in its world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArchetypeId(pub(crate) u32);

impl ArchetypeId {
    /// The archetype of entities with no components.
    pub(crate) const EMPTY: ArchetypeId = ArchetypeId(0);
    /// Marks a free entity slot.
    pub(crate) const INVALID: ArchetypeId = ArchetypeId(u32::MAX);

    /// The table's index among the world's tables (dense, from 0).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a row in an archetype table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Row(pub(crate) u32);

impl Row {
    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// All archetypes of one world.
pub(crate) struct Archetypes {
    list: Vec<Archetype>,
    by_components: HashMap<Box<[ComponentId]>, ArchetypeId>,
}

impl Default for Archetypes {
    fn default() -> Self {
        Archetypes {
            list: vec![Archetype::new(ArchetypeId::EMPTY, Box::new([]), Box::new([]))],
            by_components: HashMap::new(),
        }
    }
}

impl Archetypes {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    #[inline]
    pub(crate) fn get(&self, id: ArchetypeId) -> &Archetype {
        &self.list[id.index()]
    }

    /// The table `id`, unchecked: for an id read from a live entity's location.
    ///
    /// # Safety
    /// `id` names a table of this world (tables are never removed, so every id a
    /// location holds does).
    #[inline]
    pub(crate) unsafe fn get_unchecked(&self, id: ArchetypeId) -> &Archetype {
        debug_assert!(id.index() < self.list.len());
        // SAFETY: per the caller.
        unsafe { self.list.get_unchecked(id.index()) }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: ArchetypeId) -> &mut Archetype {
        &mut self.list[id.index()]
    }

    /// Two distinct archetypes, mutably.
    #[inline]
    pub(crate) fn get_two_mut(&mut self, a: ArchetypeId, b: ArchetypeId) -> [&mut Archetype; 2] {
        self.list
            .get_disjoint_mut([a.index(), b.index()])
            .expect("ripple: a transition must join two distinct archetypes")
    }

    pub(crate) fn iter(&self) -> std::slice::Iter<'_, Archetype> {
        self.list.iter()
    }

    pub(crate) fn iter_mut(&mut self) -> std::slice::IterMut<'_, Archetype> {
        self.list.iter_mut()
    }

    /// The archetype for exactly `sorted` (ascending, no duplicates), creating it on
    /// first sight; columns of tracked components start tracked.
    pub(crate) fn get_or_create(&mut self, sorted: &[ComponentId], components: &Components, now: Tick) -> ArchetypeId {
        debug_assert!(sorted.windows(2).all(|w| w[0] < w[1]));
        if sorted.is_empty() {
            return ArchetypeId::EMPTY;
        }
        if let Some(&id) = self.by_components.get(sorted) {
            return id;
        }
        let id = ArchetypeId(u32::try_from(self.list.len()).expect("ripple: more than 2^32 archetypes"));
        let columns = sorted
            .iter()
            .map(|&c| {
                let info = components.info(c);
                let mut column = info.make_column();
                if info.tracked {
                    column.enable_tracking(now);
                }
                if info.observed {
                    column.observe(now);
                }
                column
            })
            .collect();
        let mut table = Archetype::new(id, sorted.into(), columns);
        table.hooks = sorted.iter().fold(HookFlags::NONE, |flags, &c| flags.union(components.info(c).hooks.flags()));
        self.list.push(table);
        self.by_components.insert(sorted.into(), id);
        id
    }
}
