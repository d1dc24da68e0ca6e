//! Reaching components: one entity's component, shared or mutable, an entity's view,
//! and query states.

use crate::change::Mut;
use crate::component::{Component, ComponentId};
use crate::entity::{Entity, Location};
use crate::entity_ref::EntityRef;
use crate::error::{ComponentError, MissingComponent, NoSuchEntity};
use crate::query::{QueryData, QueryFilter, QueryState};
use crate::storage::{TypedColumn, downcast, downcast_mut};

use super::World;

impl World {
    /// Shared access to `entity`'s component `T`.
    ///
    /// # Errors
    /// [`ComponentError`] if the entity is not alive or lacks `T`.
    #[inline]
    pub fn get<T: Component>(&self, entity: Entity) -> Result<&T, ComponentError> {
        let location = self.locate(entity)?;
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        let id = self.components.id::<T>().ok_or(missing)?;
        if let Some(set) = self.sparse.get(id) {
            let dense = set.dense(entity).ok_or(missing)?;
            return Ok(downcast::<T>(&*set.values).get(dense));
        }
        let table = self.archetypes.get(location.archetype);
        let column = table.column_index(id).ok_or(missing)?;
        Ok(downcast::<T>(table.column(column)).get(location.row.index()))
    }

    /// Exclusive access to `entity`'s component `T`. Writing through the returned
    /// [`Mut`] marks the component changed if `T` is tracked.
    ///
    /// # Errors
    /// [`ComponentError`] if the entity is not alive or lacks `T`.
    #[inline]
    ///
    /// # Panics
    /// For a component only the world writes (a relation's: [`ChildOf`](crate::hierarchy::ChildOf),
    /// [`Children`](crate::hierarchy::Children), a [`Relation`](crate::relation::Relation) and its
    /// [`Related`](crate::relation::Related) list): change those through the relation's calls.
    #[track_caller]
    pub fn get_mut<T: Component>(&mut self, entity: Entity) -> Result<Mut<'_, T>, ComponentError> {
        self.maintain_ticks();
        let now = self.change_tick();
        let location = self.locate(entity)?;
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        let id = self.components.id::<T>().ok_or(missing)?;
        if let Some(refusal) = self.components.kept_refusal(id) {
            panic!("{refusal}");
        }
        let (column, row) = self.value_place_at::<T>(entity, location, id)?;
        Ok(column.get_mut(row, now))
    }

    /// The column holding `entity`'s `T` (its table's, or `T`'s sparse set's values)
    /// and the row of the value in it.
    ///
    /// # Errors
    /// [`ComponentError`] if the entity is not alive or lacks `T`.
    #[inline]
    pub(crate) fn value_place_mut<T: Component>(
        &mut self,
        entity: Entity,
    ) -> Result<(&mut TypedColumn<T>, usize), ComponentError> {
        let location = self.locate(entity)?;
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        let id = self.components.id::<T>().ok_or(missing)?;
        self.value_place_at::<T>(entity, location, id)
    }

    /// [`value_place_mut`](Self::value_place_mut) once the entity is found and `T`'s
    /// id known.
    #[inline]
    fn value_place_at<T: Component>(
        &mut self,
        entity: Entity,
        location: Location,
        id: ComponentId,
    ) -> Result<(&mut TypedColumn<T>, usize), ComponentError> {
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        if let Some(set) = self.sparse.get_mut(id) {
            let dense = set.dense(entity).ok_or(missing)?;
            return Ok((downcast_mut::<T>(&mut *set.values), dense));
        }
        let table = self.archetypes.get_mut(location.archetype);
        let index = table.column_index(id).ok_or(missing)?;
        Ok((downcast_mut::<T>(&mut *table.columns[index]), location.row.index()))
    }

    /// The column holding `entity`'s component `id` (its table's, or the sparse set's
    /// values) and the row of the value in it; `None` if it has none. `location` is
    /// the entity's.
    #[inline]
    pub(crate) fn column_place(
        &self,
        entity: Entity,
        location: Location,
        id: ComponentId,
    ) -> Option<(&dyn crate::storage::Column, usize)> {
        if let Some(set) = self.sparse.get(id) {
            return Some((&*set.values, set.dense(entity)?));
        }
        let table = self.archetypes.get(location.archetype);
        Some((table.column(table.column_index(id)?), location.row.index()))
    }

    /// A read-only view of `entity`, for asking which components it has.
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive.
    #[inline]
    pub fn entity(&self, entity: Entity) -> Result<EntityRef<'_>, NoSuchEntity> {
        let location = self.locate(entity)?;
        Ok(EntityRef::new(self, entity, location))
    }

    /// A cached query over entities with the components `Q` fetches. See [`QueryState`].
    ///
    /// # Panics
    /// If `Q` would alias a component (`&mut A` twice, or `&A` with `&mut A`).
    #[track_caller]
    pub fn query<Q: QueryData>(&mut self) -> QueryState<Q, ()> {
        QueryState::new(self)
    }

    /// A cached query with a filter `F` such as `With<T>`, `Without<T>` or `Or<(..)>`.
    ///
    /// # Panics
    /// If `Q` would alias a component.
    #[track_caller]
    pub fn query_filtered<Q: QueryData, F: QueryFilter>(&mut self) -> QueryState<Q, F> {
        QueryState::new(self)
    }
}
