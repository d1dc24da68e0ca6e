//! The world's operations on components reached by id: registering a runtime
//! component, inserting, reading, writing and removing its values, turning its change
//! tracking on, reading its removals and hooking its lifecycle.
//!
//! Each goes through the same machinery as its typed twin (the cached transitions, the
//! hooks and observers, the change ticks and removal streams, the structural-change
//! log), so everything that follows typed components follows these too.

use std::alloc::Layout;

use crate::bundle::{BundleId, SPARSE_COLUMN};
use crate::change::{Move, Mut, RemovedReader};
use crate::component::{ComponentId, Storage};
use crate::entity::{Entity, Location};
use crate::hook::{HookContext, HookKind, RemovedIds};
use crate::storage::{BlobColumn, Column, Registries, RemoveEdge};
use crate::world::World;

use super::{ComponentDescriptor, DynamicError};

/// Stands for a component reached by id where a type must be named: the removals of a
/// runtime component are read through a `RemovedReader<RuntimeComponent>` (see
/// [`World::removal_reader_by_id`]).
pub enum RuntimeComponent {}

impl World {
    /// Registers a component that has no Rust type and returns its id, which names it
    /// in this world only (another world gives its own ids). Each call registers a new
    /// component, even under a name used before.
    ///
    /// ```
    /// use ripple::{Storage, World};
    /// use ripple::dynamic::ComponentDescriptor;
    /// let mut world = World::new();
    /// let poisoned = world.register_component(
    ///     ComponentDescriptor::new("poisoned", 0, 1).unwrap().with_storage(Storage::SparseSet),
    /// );
    /// let e = world.spawn(());
    /// world.insert_by_id(e, poisoned, &[]).unwrap();
    /// assert!(world.entity(e).unwrap().contains_id(poisoned));
    /// ```
    pub fn register_component(&mut self, descriptor: ComponentDescriptor) -> ComponentId {
        let shape = crate::storage::BlobShape { layout: descriptor.layout, drop: descriptor.drop };
        let id = self.components.register_blob(descriptor.name, shape, descriptor.storage);
        if descriptor.immutable {
            self.components.keep(id, crate::immutable::IMMUTABLE);
        }
        if descriptor.storage == Storage::SparseSet {
            let column = self.components.info(id).make_column();
            self.sparse.create(id, column);
        }
        id
    }

    /// The id of component type `T` in this world, if it has been seen (spawned,
    /// inserted, queried, hooked or tracked): for filters over typed components in a
    /// [`DynamicQuery`](crate::dynamic::DynamicQuery) and the other calls by id.
    pub fn component_id<T: crate::Component>(&self) -> Option<ComponentId> {
        self.components.id::<T>()
    }

    /// The id of the first runtime component registered here under `name`, if any.
    pub fn component_id_named(&self, name: &str) -> Option<ComponentId> {
        self.components.runtime_named(name).first().copied()
    }

    /// The first runtime component registered here under `name` with values of
    /// `layout`.
    #[cfg_attr(not(feature = "persistence"), allow(dead_code, reason = "used by scenes and replication"))]
    pub(crate) fn runtime_component_named(&self, name: &str, layout: Layout) -> Option<ComponentId> {
        let matches = |id: &&ComponentId| self.components.info(**id).blob.is_some_and(|shape| shape.layout == layout);
        self.components.runtime_named(name).iter().find(matches).copied()
    }

    /// The name of component `id`: its type's for a Rust type, the descriptor's for a
    /// runtime component; `None` if no component has this id here.
    pub fn component_name(&self, id: ComponentId) -> Option<&'static str> {
        (id.index() < self.components.len()).then(|| self.components.info(id).name)
    }

    /// The layout of runtime component `id`'s values.
    ///
    /// # Errors
    /// [`DynamicError::UnknownComponent`] or [`DynamicError::Typed`].
    pub fn component_layout(&self, id: ComponentId) -> Result<Layout, DynamicError> {
        self.runtime_component(id).map(|_| self.components.info(id).blob.expect("checked runtime").layout)
    }

    /// Checks that `id` names a runtime component here; returns its name.
    pub(crate) fn runtime_component(&self, id: ComponentId) -> Result<&'static str, DynamicError> {
        if id.index() >= self.components.len() {
            return Err(DynamicError::UnknownComponent(id));
        }
        let info = self.components.info(id);
        match info.blob {
            Some(_) => Ok(info.name),
            None => Err(DynamicError::Typed { component: info.name }),
        }
    }

    /// Checks that `value` is one value of runtime component `id`.
    fn check_value(&self, id: ComponentId, value: &[u8]) -> Result<(), DynamicError> {
        let component = self.runtime_component(id)?;
        let expected = self.components.info(id).blob.expect("checked runtime").layout.size();
        if value.len() != expected {
            return Err(DynamicError::WrongSize { component, expected, got: value.len() });
        }
        Ok(())
    }

    /// Adds a copy of `value` as `entity`'s runtime component `id`, replacing (and
    /// dropping) the value it had. Hooks, observers and change tracking see it as they
    /// see a typed insert.
    ///
    /// # Errors
    /// [`DynamicError`] if the entity is dead, `id` names no runtime component, or
    /// `value` is not its size; nothing is changed.
    pub fn insert_by_id(&mut self, entity: Entity, id: ComponentId, value: &[u8]) -> Result<(), DynamicError> {
        self.flush_reserved();
        let location = self.locate(entity)?;
        self.check_value(id, value)?;
        self.maintain_ticks();
        let bundle = self.bundles.id_for_component(id, &self.components);
        if self.reactor.replaces && self.replacing_bundle(bundle, entity, location) {
            self.insert_bytes(entity, location, id, bundle, value);
            self.apply_hook_commands();
        } else {
            self.insert_bytes(entity, location, id, bundle, value);
        }
        Ok(())
    }

    /// [`insert_by_id`](Self::insert_by_id) once checked.
    fn insert_bytes(&mut self, entity: Entity, location: Location, id: ComponentId, bundle: BundleId, value: &[u8]) {
        let now = self.change_tick();
        let source = location.archetype;
        let registries = Registries {
            archetypes: &mut self.archetypes,
            bundles: &mut self.bundles,
            components: &mut self.components,
            now,
        };
        let edge = self.transitions.insert_edge_by_id(source, bundle, registries);
        let (target, column) = (edge.target, edge.bundle_columns[0]);
        let mut row = location.row.index();
        if target != source {
            let [from, to] = self.archetypes.get_two_mut(source, target);
            for (column, &dst) in from.columns.iter_mut().zip(edge.moves.iter()) {
                column.swap_remove_into(row, &mut *to.columns[dst], now);
            }
            row = Self::move_handle(&mut self.entities, entity, location, from, to);
            self.moves.push(Move::between(entity, Some(source), Some(target)));
        }
        let mut added_sparse = 0;
        if column == SPARSE_COLUMN {
            let set = self.sparse.get_mut(id).expect("ripple: a sparse component has a set");
            let (dense, new) = set.slot_for(entity);
            let values = BlobColumn::of_mut(&mut *set.values);
            if new {
                self.moves.push(Move::sparse(entity, id, false));
                values.push(value, now);
                added_sparse = 1;
            } else {
                values.replace(dense, value, now);
            }
        } else {
            let values = BlobColumn::of_mut(&mut *self.archetypes.get_mut(target).columns[column]);
            if values.len() == row {
                values.push(value, now);
            } else {
                values.replace(row, value, now);
            }
        }
        if self.bundles.info(bundle).hooks.adds_or_inserts() {
            self.hooks_after_write(bundle, entity, source, added_sparse);
        }
    }

    /// `entity`'s runtime component `id`, as bytes.
    ///
    /// # Errors
    /// [`DynamicError`] if the entity is dead or lacks it, or `id` names no runtime
    /// component.
    pub fn get_by_id(&self, entity: Entity, id: ComponentId) -> Result<&[u8], DynamicError> {
        let location = self.locate(entity)?;
        let component = self.runtime_component(id)?;
        let (column, row) =
            self.column_place(entity, location, id).ok_or(DynamicError::MissingComponent { entity, component })?;
        Ok(BlobColumn::of(column).bytes(row))
    }

    /// `entity`'s runtime component `id`, as writable bytes; writing through the
    /// handle marks it changed if the component is tracked.
    ///
    /// # Errors
    /// As [`get_by_id`](Self::get_by_id); [`DynamicError::Immutable`] for a component
    /// made [immutable](crate::dynamic::ComponentDescriptor::immutable).
    pub fn get_mut_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<Mut<'_, [u8]>, DynamicError> {
        let location = self.locate(entity)?;
        let component = self.runtime_component(id)?;
        if let Some(refusal) = self.components.kept_refusal(id) {
            return Err(DynamicError::Immutable { refusal });
        }
        let missing = DynamicError::MissingComponent { entity, component };
        self.maintain_ticks();
        let now = self.change_tick();
        if let Some(set) = self.sparse.get_mut(id) {
            let dense = set.dense(entity).ok_or(missing)?;
            return Ok(BlobColumn::of_mut(&mut *set.values).bytes_mut(dense, now));
        }
        let table = self.archetypes.get_mut(location.archetype);
        let column = table.column_index(id).ok_or(missing)?;
        Ok(BlobColumn::of_mut(&mut *table.columns[column]).bytes_mut(location.row.index(), now))
    }

    /// Removes `entity`'s runtime component `id`, dropping its value. Hooks, observers
    /// and the removal stream see it as they see a typed removal.
    ///
    /// # Errors
    /// [`DynamicError`] if the entity is dead or lacks it, or `id` names no runtime
    /// component; nothing is changed.
    pub fn remove_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<(), DynamicError> {
        self.flush_reserved();
        let location = self.locate(entity)?;
        let component = self.runtime_component(id)?;
        let missing = DynamicError::MissingComponent { entity, component };
        let sparse = self.components.is_sparse(id);
        let has = match self.sparse.get(id) {
            Some(set) => set.contains(entity),
            None => self.archetypes.get(location.archetype).has(id),
        };
        if !has {
            return Err(missing);
        }
        self.maintain_ticks();
        let now = self.change_tick();
        let bundle = self.bundles.id_for_component(id, &self.components);
        let hooked = self.bundles.info(bundle).hooks.has(HookKind::Remove);
        if hooked {
            self.hooks_before_removal(entity, RemovedIds::Bundle(bundle));
        }
        // Every record first; the value's drop function (user code) runs last, so a
        // panic there leaves the world consistent and the hooks' commands applied.
        let dropped = if sparse {
            Self::record_removals(&mut self.removals, &[id], entity, now);
            self.moves.push_sparse(entity, [id], false);
            let set = self.sparse.get_mut(id).expect("ripple: a sparse component has a set");
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| set.remove_drop(entity, now))).map(|_| ())
        } else {
            self.remove_table_value(entity, location, bundle, now)
        };
        if hooked {
            self.apply_hook_commands();
        }
        if let Err(panic) = dropped {
            std::panic::resume_unwind(panic);
        }
        Ok(())
    }

    /// Moves `entity`'s row to the table without runtime component `bundle`'s one
    /// element and drops that value, last; returns the drop's panic, if any.
    fn remove_table_value(
        &mut self,
        entity: Entity,
        location: Location,
        bundle: BundleId,
        now: crate::change::Tick,
    ) -> std::thread::Result<()> {
        let source = location.archetype;
        let row = location.row.index();
        let registries = Registries {
            archetypes: &mut self.archetypes,
            bundles: &mut self.bundles,
            components: &mut self.components,
            now,
        };
        let RemoveEdge::Valid { target, bundle_columns, moves, .. } =
            self.transitions.remove_edge_by_id(source, bundle, registries)
        else {
            unreachable!("ripple: the entity was checked to have the component")
        };
        let (target, removed) = (*target, bundle_columns[0]);
        let [from, to] = self.archetypes.get_two_mut(source, target);
        for (column, dst) in from.columns.iter_mut().zip(moves.iter()) {
            if let Some(dst) = *dst {
                column.swap_remove_into(row, &mut *to.columns[dst], now);
            }
        }
        Self::move_handle(&mut self.entities, entity, location, from, to);
        self.moves.push(Move::between(entity, Some(source), Some(target)));
        let ids = &self.bundles.info(bundle).ids;
        Self::record_removals(&mut self.removals, ids, entity, now);
        let column = &mut *self.archetypes.get_mut(source).columns[removed];
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| column.swap_remove_drop(row, now)))
    }

    /// Turns on change tracking for component `id` (typed or runtime), as
    /// [`track`](Self::track) does for a type.
    ///
    /// # Errors
    /// [`DynamicError::UnknownComponent`] if no component has this id here.
    pub fn track_by_id(&mut self, id: ComponentId) -> Result<(), DynamicError> {
        if id.index() >= self.components.len() {
            return Err(DynamicError::UnknownComponent(id));
        }
        self.track_id(id);
        Ok(())
    }

    /// A reader of component `id`'s removals (typed or runtime) from now on, as
    /// [`removal_reader`](Self::removal_reader) for a type.
    ///
    /// # Errors
    /// [`DynamicError::UnknownComponent`] if no component has this id here.
    pub fn removal_reader_by_id(&mut self, id: ComponentId) -> Result<RemovedReader<RuntimeComponent>, DynamicError> {
        if id.index() >= self.components.len() {
            return Err(DynamicError::UnknownComponent(id));
        }
        let cursor = self.removal_cursor(id);
        Ok(RemovedReader::new(self.id(), id, cursor))
    }

    /// Runs `hook` when runtime component `id` is added to an entity, as
    /// [`on_add`](Self::on_add) does for a type.
    ///
    /// # Errors
    /// [`DynamicError::UnknownComponent`] or [`DynamicError::Typed`].
    pub fn on_add_by_id(
        &mut self,
        id: ComponentId,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> Result<(), DynamicError> {
        self.hook_by_id(id, HookKind::Add, Box::new(hook))
    }

    /// Runs `hook` when runtime component `id` is written by an insert, as
    /// [`on_insert`](Self::on_insert) does for a type.
    ///
    /// # Errors
    /// As [`on_add_by_id`](Self::on_add_by_id).
    pub fn on_insert_by_id(
        &mut self,
        id: ComponentId,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> Result<(), DynamicError> {
        self.hook_by_id(id, HookKind::Insert, Box::new(hook))
    }

    /// Runs `hook` when runtime component `id` is about to leave an entity, as
    /// [`on_remove`](Self::on_remove) does for a type.
    ///
    /// # Errors
    /// As [`on_add_by_id`](Self::on_add_by_id).
    pub fn on_remove_by_id(
        &mut self,
        id: ComponentId,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> Result<(), DynamicError> {
        self.hook_by_id(id, HookKind::Remove, Box::new(hook))
    }

    fn hook_by_id(&mut self, id: ComponentId, kind: HookKind, hook: crate::hook::Hook) -> Result<(), DynamicError> {
        self.runtime_component(id)?;
        self.add_hook_id(id, kind, hook);
        Ok(())
    }
}
