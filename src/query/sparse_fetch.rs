//! What a query resolves for a component that may live in a sparse set
//! ([`ComponentRef`]), and a run's pointers into such a set ([`SparseFetch`]).

use crate::change::{RunTicks, Tick};
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{Archetype, SparseSet, TickPtrs, downcast_unchecked};
use crate::world::World;

/// A component a query names: its id, and whether it is stored in a sparse set.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ComponentRef {
    pub(crate) id: ComponentId,
    pub(crate) sparse: bool,
}

impl ComponentRef {
    /// Registers `T` (with the default storage, if new) and resolves its storage.
    pub(crate) fn of<T: Component>(world: &mut World) -> ComponentRef {
        let id = world.components.id_or_register::<T>();
        ComponentRef { id, sparse: world.components.is_sparse(id) }
    }

    /// The set of a sparse component, for a run on `world`.
    pub(crate) fn set<'w>(&self, world: &'w World) -> Option<&'w SparseSet> {
        if self.sparse { world.sparse.get(self.id) } else { None }
    }

    /// Whether an entity of `archetype` that has the sparse components `has_sparse`
    /// says has this component.
    pub(crate) fn present(&self, archetype: &Archetype, has_sparse: &dyn Fn(ComponentId) -> bool) -> bool {
        if self.sparse { has_sparse(self.id) } else { archetype.has(self.id) }
    }

    /// Adds a sparse component to the lists of [`QueryData::sparse_ids`].
    pub(crate) fn list_sparse(&self, required: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>) {
        if self.sparse {
            required.push(self.id);
            deciding.push(self.id);
        }
    }
}

/// A run's pointers into the sparse set of a `&T` or `&mut T` fetch.
#[doc(hidden)]
pub struct SparseFetch<'w, T> {
    pub(super) set: &'w SparseSet,
    pub(super) values: *mut T,
    pub(super) ticks: Option<TickPtrs>,
    pub(super) tick: Tick,
}

impl<T> Clone for SparseFetch<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SparseFetch<'_, T> {}

impl<'w, T: Component> SparseFetch<'w, T> {
    /// A run's pointers into the set of `component`, if it is sparse.
    pub(super) fn of(component: &ComponentRef, world: &'w World, ticks: RunTicks) -> Option<Self> {
        component.set(world).map(|set| SparseFetch::new(set, ticks))
    }

    /// Whether `entity` has a value, for a fetch made by [`of`](Self::of) (a table
    /// component's fetch, `None`, asks nothing of the entity).
    #[inline]
    pub(super) fn has(fetch: &Option<Self>, entity: Entity) -> bool {
        fetch.as_ref().is_none_or(|fetch| fetch.set.contains(entity))
    }

    fn new(set: &'w SparseSet, ticks: RunTicks) -> Self {
        // SAFETY: a component's set holds values of its registered type.
        let column = unsafe { downcast_unchecked::<T>(&*set.values) };
        SparseFetch { set, values: column.get_ptr(), ticks: column.tick_ptrs(), tick: ticks.this_run }
    }

    /// The dense row of `entity`'s value.
    ///
    /// # Safety
    /// `entity` is alive and has a value in the set.
    #[inline]
    pub(super) unsafe fn dense(&self, entity: Entity) -> usize {
        let dense = self.set.dense(entity);
        debug_assert!(dense.is_some(), "ripple: fetched a sparse value the entity lacks");
        // SAFETY: present (caller).
        unsafe { dense.unwrap_unchecked() }
    }
}
