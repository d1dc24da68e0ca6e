//! Sparse-set storage: the values of one component type kept apart from the archetype
//! tables, so adding or removing it never moves an entity's row.
//!
//! A set is a dense array of values (a [`Column`], so change ticks and summaries work
//! exactly as in a table), the dense array of the entities they belong to, and a
//! sparse index from entity index to dense position. Adding appends; removing
//! swap-removes (the last value moves into the hole and its index entry follows). All
//! three arrays keep their capacity, so steady churn allocates nothing; a zero-sized
//! component's values take no memory at all, leaving the index and the entity list.

use crate::change::{Remap, Tick};
use crate::component::ComponentId;
use crate::entity::Entity;

use super::{Column, TypedColumn, downcast_mut};

/// Marks an entity index with no value in the set.
const ABSENT: u32 = u32::MAX;

/// Which entities a set holds, and where: the sparse index from entity index to dense
/// position, and the dense array of entities. Shared by [`SparseSet`] (values of any
/// type) and [`TypedSet`] (values known to be `T`s), so both keep the index alike.
struct SparseIndex {
    /// Per entity index: the position of its value in `entities` and the values, or
    /// `ABSENT`. Entries past the end are absent too.
    index: Vec<u32>,
    /// The entity of each dense position.
    entities: Vec<Entity>,
}

impl SparseIndex {
    /// The dense position of `entity`'s value, if this very entity (index and
    /// generation) has one. `entity` need not be alive: a despawned entity leaves every
    /// set, so a match also proves it alive.
    #[inline(always)]
    fn dense_exact(&self, entity: Entity) -> Option<usize> {
        let dense = *self.index.get(entity.index() as usize)? as usize;
        (self.entities.get(dense) == Some(&entity)).then_some(dense)
    }

    /// Where `entity`'s value goes: its dense position, and `true` if that position is
    /// new (one past the values' end: the caller pushes the value right away).
    #[inline(always)]
    fn slot_for(&mut self, entity: Entity) -> (usize, bool) {
        let at = entity.index() as usize;
        if self.index.len() <= at {
            self.index.resize(at + 1, ABSENT);
        }
        let slot = &mut self.index[at];
        let dense = *slot as usize;
        if self.entities.get(dense) == Some(&entity) {
            return (dense, false);
        }
        let dense = self.entities.len();
        *slot = u32::try_from(dense).expect("ripple: more than 2^32 - 1 values in one sparse set");
        self.entities.push(entity);
        (dense, true)
    }

    /// Forgets `entity`, whose value at `dense` the caller swap-removes from the
    /// values: the last entity takes its place, as its value does.
    #[inline(always)]
    fn forget(&mut self, entity: Entity, dense: usize) {
        let last = *self.entities.last().expect("ripple: forgetting an entity the set holds");
        self.entities.swap_remove(dense);
        // If the last entity is `entity` itself, the second write leaves it absent.
        self.index[last.index() as usize] = dense as u32;
        self.index[entity.index() as usize] = ABSENT;
    }
}

/// The values of one sparse component type. Public only because query fetch types
/// name it; nothing outside the crate can reach it.
#[doc(hidden)]
pub struct SparseSet {
    keys: SparseIndex,
    /// The values, one per dense position.
    pub(crate) values: Box<dyn Column>,
}

impl SparseSet {
    pub(crate) fn new(values: Box<dyn Column>) -> Self {
        SparseSet { keys: SparseIndex { index: Vec::new(), entities: Vec::new() }, values }
    }

    /// Number of entities with a value.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.keys.entities.len()
    }

    /// The entities with a value, in dense order.
    #[inline]
    pub(crate) fn entities(&self) -> &[Entity] {
        &self.keys.entities
    }

    /// The dense position of `entity`'s value, if it has one. `entity` must be alive
    /// (a despawned entity leaves every set, so its slot's entry is absent).
    #[inline]
    pub(crate) fn dense(&self, entity: Entity) -> Option<usize> {
        match self.keys.index.get(entity.index() as usize) {
            Some(&dense) if dense != ABSENT => {
                debug_assert_eq!(self.keys.entities[dense as usize], entity, "ripple: stale sparse index");
                Some(dense as usize)
            }
            _ => None,
        }
    }

    /// Whether `entity` (alive) has a value.
    #[inline]
    pub(crate) fn contains(&self, entity: Entity) -> bool {
        self.dense(entity).is_some()
    }

    /// Where `entity`'s value goes (see `SparseIndex::slot_for`).
    #[inline]
    pub(crate) fn slot_for(&mut self, entity: Entity) -> (usize, bool) {
        self.keys.slot_for(entity)
    }

    /// Forgets `entity`, whose value at `dense` the caller swap-removes from `values`.
    #[inline]
    pub(crate) fn forget(&mut self, entity: Entity, dense: usize) {
        self.keys.forget(entity, dense);
    }

    /// Removes and drops `entity`'s value, if it has one; returns whether it had.
    /// The bookkeeping is done before the value's `Drop` runs, so a panicking `Drop`
    /// leaves the set consistent.
    #[inline]
    pub(crate) fn remove_drop(&mut self, entity: Entity, now: Tick) -> bool {
        let Some(dense) = self.dense(entity) else { return false };
        self.forget(entity, dense);
        self.values.swap_remove_drop(dense, now);
        true
    }

    /// The set with its values' type known: one downcast for many calls.
    ///
    /// # Panics
    /// If the values are not `T`s (an internal invariant violation).
    pub(crate) fn typed_mut<T: Send + Sync + 'static>(&mut self) -> TypedSet<'_, T> {
        TypedSet { keys: &mut self.keys, values: downcast_mut(&mut *self.values) }
    }

    /// Drops every value, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        let SparseIndex { index, entities } = &mut self.keys;
        for entity in entities.drain(..) {
            index[entity.index() as usize] = ABSENT;
        }
        self.values.clear();
    }

    /// Heap bytes used by change tracking.
    pub(crate) fn tracking_bytes(&self) -> usize {
        self.values.tracking_bytes()
    }

    /// Applies tick maintenance to the values' ticks.
    pub(crate) fn remap_ticks(&mut self, remap: &Remap) {
        self.values.remap_ticks(remap);
    }
}

/// A [`SparseSet`] whose values are known to be `T`s, for adding and removing many
/// values without a type check per call.
pub(crate) struct TypedSet<'a, T> {
    keys: &'a mut SparseIndex,
    values: &'a mut TypedColumn<T>,
}

impl<T: Send + Sync + 'static> TypedSet<'_, T> {
    /// Gives `entity` (alive) the value `value` at `now`; returns the value it had.
    #[inline(always)]
    pub(crate) fn insert(&mut self, entity: Entity, value: T, now: Tick) -> Option<T> {
        let (dense, new) = self.keys.slot_for(entity);
        if new {
            self.values.push(value, now);
            None
        } else {
            Some(self.values.replace(dense, value, now))
        }
    }

    /// Takes `entity`'s value out of the set, if this very entity has one.
    #[inline(always)]
    pub(crate) fn remove(&mut self, entity: Entity, now: Tick) -> Option<T> {
        let dense = self.keys.dense_exact(entity)?;
        self.keys.forget(entity, dense);
        Some(self.values.swap_remove(dense, now))
    }

    /// The value of `entity`, if this very entity has one.
    #[inline]
    pub(crate) fn get(&self, entity: Entity) -> Option<&T> {
        self.keys.dense_exact(entity).map(|dense| self.values.get(dense))
    }

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.keys.entities.len()
    }
}

/// The sparse sets of one world, by component id.
#[derive(Default)]
pub(crate) struct SparseSets {
    sets: Vec<Option<SparseSet>>,
    /// The ids that have a set, ascending.
    ids: Vec<ComponentId>,
}

impl SparseSets {
    /// Creates the (empty) set of component `id`.
    pub(crate) fn create(&mut self, id: ComponentId, values: Box<dyn Column>) {
        if self.sets.len() <= id.index() {
            self.sets.resize_with(id.index() + 1, || None);
        }
        debug_assert!(self.sets[id.index()].is_none());
        self.sets[id.index()] = Some(SparseSet::new(values));
        let at = self.ids.partition_point(|&other| other < id);
        self.ids.insert(at, id);
    }

    /// The set of component `id`, if it is stored sparse.
    #[inline]
    pub(crate) fn get(&self, id: ComponentId) -> Option<&SparseSet> {
        self.sets.get(id.index()).and_then(Option::as_ref)
    }

    /// Mutable form of [`get`](Self::get).
    #[inline]
    pub(crate) fn get_mut(&mut self, id: ComponentId) -> Option<&mut SparseSet> {
        self.sets.get_mut(id.index()).and_then(Option::as_mut)
    }

    /// The ids of the sparse component types, ascending.
    #[inline]
    pub(crate) fn ids(&self) -> &[ComponentId] {
        &self.ids
    }

    /// Lists in `out` the sparse components `entity` (alive) has, ascending.
    pub(crate) fn components_of(&self, entity: Entity, out: &mut Vec<ComponentId>) {
        out.clear();
        out.extend(self.ids.iter().copied().filter(|&id| self.get(id).is_some_and(|set| set.contains(entity))));
    }

    /// Removes and drops `entity`'s values of the components `ids`. If a value's `Drop`
    /// panics, the other sets still forget the entity while unwinding, so no set keeps
    /// a value for a freed slot.
    pub(crate) fn remove_all(&mut self, entity: Entity, ids: &[ComponentId], now: Tick) {
        struct Rest<'a> {
            sets: &'a mut SparseSets,
            ids: &'a [ComponentId],
            next: usize,
            entity: Entity,
            now: Tick,
        }
        impl Rest<'_> {
            fn run(&mut self) {
                while let Some(&id) = self.ids.get(self.next) {
                    // Advance first: if this `Drop` panics, unwinding resumes after it.
                    self.next += 1;
                    if let Some(set) = self.sets.get_mut(id) {
                        set.remove_drop(self.entity, self.now);
                    }
                }
            }
        }
        impl Drop for Rest<'_> {
            fn drop(&mut self) {
                self.run();
            }
        }
        Rest { sets: self, ids, next: 0, entity, now }.run();
    }

    /// Every set, in id order.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut SparseSet> {
        self.sets.iter_mut().flatten()
    }

    /// Every set, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &SparseSet> {
        self.sets.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{TypedColumn, downcast, downcast_mut};

    fn entity(index: u32) -> Entity {
        Entity::new(index, std::num::NonZeroU32::MIN)
    }

    fn insert(set: &mut SparseSet, e: Entity, value: String) {
        let (dense, new) = set.slot_for(e);
        let column = downcast_mut::<String>(&mut *set.values);
        if new {
            column.push(value, Tick(1));
        } else {
            column.replace(dense, value, Tick(1));
        }
    }

    fn value(set: &SparseSet, e: Entity) -> Option<&str> {
        set.dense(e).map(|d| downcast::<String>(&*set.values).get(d).as_str())
    }

    #[test]
    fn swap_remove_keeps_the_index_in_step() {
        let mut set = SparseSet::new(Box::new(TypedColumn::<String>::default()));
        for i in [5, 0, 9] {
            insert(&mut set, entity(i), format!("v{i}"));
        }
        assert!(set.remove_drop(entity(5), Tick(1)));
        assert!(!set.remove_drop(entity(5), Tick(1)));
        assert_eq!(value(&set, entity(9)), Some("v9"));
        assert_eq!(value(&set, entity(0)), Some("v0"));
        assert_eq!(value(&set, entity(5)), None);
        assert_eq!(set.len(), 2);
        insert(&mut set, entity(0), "again".into());
        assert_eq!((set.len(), value(&set, entity(0))), (2, Some("again")));
        assert_eq!(value(&set, entity(100)), None, "past the index's end is absent");
        set.clear();
        assert_eq!((set.len(), value(&set, entity(9))), (0, None));
    }

    #[test]
    fn zero_sized_values_take_no_memory_beyond_the_index_and_the_entity_list() {
        struct Marker;
        let mut set = SparseSet::new(Box::new(TypedColumn::<Marker>::default()));
        let mut typed = set.typed_mut::<Marker>();
        for i in 0..10_000 {
            assert!(typed.insert(entity(i * 3), Marker, Tick(1)).is_none());
        }
        for i in 0..5_000 {
            assert!(typed.remove(entity(i * 6), Tick(1)).is_some());
        }
        assert_eq!(typed.len(), 5_000);
        assert_eq!(Column::len(typed.values), 5_000);
        assert_eq!(typed.values.data_capacity(), usize::MAX, "a vector of zero-sized values never allocates");
        assert_eq!(set.tracking_bytes(), 0, "an untracked set keeps no ticks");
    }
}
