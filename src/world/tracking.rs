//! The world's change tracking: which component types are tracked and observed, what
//! tracking costs, marking a change by hand, and the removal streams.

use crate::change::{ChangeLog, RemovedReader, Tick};
use crate::component::{Component, ComponentId};
use crate::entity::{Entities, Entity, Location};
use crate::error::ComponentError;
use crate::storage::{Archetype, Row};

use super::World;

impl World {
    /// Starts recording changes to component `T` (tracking is opt-in per type). Queries
    /// with [`Changed`](crate::query::Changed), [`Added`](crate::query::Added) or
    /// [`Dirty`](crate::query::Dirty) call this for the types they ask about. Existing `T`s
    /// count as added and changed now. Calling it again does nothing.
    pub fn track<T: Component>(&mut self) {
        let id = self.components.id_or_register::<T>();
        self.track_id(id);
    }

    pub(crate) fn track_id(&mut self, id: ComponentId) {
        if self.components.info(id).tracked {
            return;
        }
        self.components.info_mut(id).tracked = true;
        let now = self.change_tick();
        self.for_each_column_of(id, |column| column.enable_tracking(now));
    }

    /// Applies `f` to the column of component `id` in every table that has one, or to
    /// its sparse set's values.
    fn for_each_column_of(&mut self, id: ComponentId, mut f: impl FnMut(&mut dyn crate::storage::Column)) {
        if let Some(set) = self.sparse.get_mut(id) {
            return f(&mut *set.values);
        }
        for table in self.archetypes.iter_mut() {
            if let Some(column) = table.column_index(id) {
                f(&mut *table.columns[column]);
            }
        }
    }

    /// Starts maintaining change summaries for component `id` (tracking it first):
    /// called when a reader of it (a change filter) is created. Until then tracked
    /// writes only stamp row ticks; the summaries are built from them here.
    pub(crate) fn observe_id(&mut self, id: ComponentId) {
        self.track_id(id);
        if self.components.info(id).observed {
            return;
        }
        self.components.info_mut(id).observed = true;
        let now = self.change_tick();
        self.for_each_column_of(id, |column| column.observe(now));
    }

    /// Whether changes to `T` are being recorded.
    pub fn is_tracked<T: Component>(&self) -> bool {
        self.components.id::<T>().is_some_and(|id| self.components.info(id).tracked)
    }

    /// Heap bytes used by change tracking: per-row ticks and summaries of every
    /// tracked column.
    pub fn tracking_bytes(&self) -> usize {
        let tables: usize = self.archetypes.iter().flat_map(|t| t.columns.iter()).map(|c| c.tracking_bytes()).sum();
        tables + self.sparse.iter().map(|set| set.tracking_bytes()).sum::<usize>()
    }

    /// Marks `entity`'s `T` changed now, without writing it (a manual "dirty" flag).
    /// Does nothing visible if `T` is not tracked.
    ///
    /// # Errors
    /// [`ComponentError`] if the entity is not alive or lacks `T`.
    pub fn mark_changed<T: Component>(&mut self, entity: Entity) -> Result<(), ComponentError> {
        let now = self.change_tick();
        let (column, row) = self.value_place_mut::<T>(entity)?;
        column.mark_changed(row, now);
        Ok(())
    }

    /// A reader of `T`'s removal stream; it sees removals made from now on, each once
    /// ("Removal streams" in docs/design.md).
    pub fn removal_reader<T: Component>(&mut self) -> RemovedReader<T> {
        let id = self.components.id_or_register::<T>();
        let cursor = self.removal_cursor(id);
        RemovedReader::new(self.id, id, cursor)
    }

    /// A cursor into component `id`'s removal log that sees removals made from now on.
    pub(crate) fn removal_cursor(&mut self, id: ComponentId) -> crate::change::log::Cursor {
        if self.removals.len() <= id.index() {
            // The structural-change log holds the world's limit for all logs.
            let limit = self.moves.limit();
            self.removals.resize_with(self.components.len(), || ChangeLog::with_limit(limit));
        }
        self.removals[id.index()].register()
    }

    pub(crate) fn removal_log(&self, id: ComponentId) -> &ChangeLog<(Entity, Tick)> {
        &self.removals[id.index()]
    }

    /// Moves `entity`'s handle from its row of `from` (at `location`) to a new last
    /// row of `to`, whose values the caller moves alongside, and updates its location
    /// and that of the entity swapped into its old row. Returns the new row.
    #[inline]
    pub(crate) fn move_handle(
        entities: &mut Entities,
        entity: Entity,
        location: Location,
        from: &mut Archetype,
        to: &mut Archetype,
    ) -> usize {
        if let Some(moved) = from.swap_remove_entity(location.row.index()) {
            entities.set_location(moved.index(), location);
        }
        let new_row = to.len();
        to.entities.push(entity);
        entities.set_location(entity.index(), Location { archetype: to.id(), row: Row(new_row as u32) });
        new_row
    }

    /// Records that `entity` lost the components `ids` at `now`, for readers.
    #[inline]
    pub(crate) fn record_removals(
        removals: &mut [ChangeLog<(Entity, Tick)>],
        ids: &[ComponentId],
        entity: Entity,
        now: Tick,
    ) {
        for id in ids {
            if let Some(log) = removals.get_mut(id.index()) {
                log.push((entity, now));
            }
        }
    }
}
