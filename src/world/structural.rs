//! Structural changes: spawning, despawning, inserting and removing components (each
//! moves rows between archetype tables and runs the hooks of what changed).

use crate::bundle::{Bundle, BundleId, BundleRow, Bundles, SPARSE_COLUMN, SpawnTarget};
use crate::change::Move;
use crate::component::{ComponentId, Components};
use crate::entity::{Entity, Location};
use crate::error::{ComponentError, MissingComponent, NoSuchEntity};
use crate::hook::{HookKind, RemovedIds};
use crate::spawn_batch::SpawnBatch;
use crate::storage::{Archetype, ArchetypeId, Registries, RemoveEdge, Row, SparseSets};

use super::World;

impl World {
    /// The archetype a bundle spawns into, and the column of each element.
    #[inline]
    #[track_caller]
    fn spawn_target<B: Bundle>(&mut self) -> (BundleId, ArchetypeId) {
        let bundle = self.bundles.id_or_register::<B>(&mut self.components);
        let info = self.bundles.info(bundle);
        if let Some(target) = &info.spawn {
            return (bundle, target.archetype);
        }
        let archetype = self.archetypes.get_or_create(&info.sorted.clone(), &self.components, self.change_tick());
        let table = self.archetypes.get(archetype);
        let column = |c| match table.column_index(c) {
            Some(column) => column,
            None => {
                debug_assert!(self.components.is_sparse(c), "bundle column exists");
                SPARSE_COLUMN
            }
        };
        let columns = info.ids.iter().map(|&c| column(c)).collect();
        self.bundles.info_mut(bundle).spawn = Some(SpawnTarget { archetype, columns });
        (bundle, archetype)
    }

    /// Creates an entity with no components and returns its handle (bevy_ecs's
    /// `spawn_empty`; the same as `spawn(())`).
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let e = world.spawn_empty();
    /// assert!(world.contains(e));
    /// ```
    pub fn spawn_empty(&mut self) -> Entity {
        self.spawn(())
    }

    /// Creates an entity with the components of `bundle` and returns its handle.
    ///
    /// # Panics
    /// If the bundle names a component type twice.
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let e = world.spawn((1u8, "name"));
    /// assert_eq!(world.get::<&str>(e), Ok(&"name"));
    /// ```
    #[track_caller]
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        self.flush_reserved();
        let (bundle_id, archetype) = self.spawn_target::<B>();
        let columns = &self.bundles.info(bundle_id).spawn.as_ref().expect("spawn target cached").columns;
        let now = self.change_tick();
        let table = self.archetypes.get_mut(archetype);
        let row = table.len();
        let entity = self.entities.alloc(Location { archetype, row: Row(row as u32) });
        table.entities.push(entity);
        let info = self.bundles.info(bundle_id);
        let mut hooks = table.hooks;
        if info.has_sparse {
            hooks = hooks.union(self.sparse_hooks);
        }
        let place = BundleRow::new(&mut table.columns, row, columns, info, &mut self.sparse, entity);
        // SAFETY: `columns` is the spawn target's column list for this bundle, in tuple
        // order, `SPARSE_COLUMN` for the sparse elements.
        let added_sparse = unsafe { place.write(bundle, now) };
        self.moves.push(Move::between(entity, None, Some(archetype)));
        if hooks.adds_or_inserts() {
            self.hooks_after_write(bundle_id, entity, ArchetypeId::EMPTY, added_sparse);
        }
        entity
    }

    /// Spawns one entity per bundle of `bundles`, reserving room for all of them once.
    ///
    /// Returns an iterator over the new handles; entities are spawned as it advances,
    /// and any not yet spawned are spawned when it is dropped, so
    /// `world.spawn_batch(iter);` on its own spawns everything.
    ///
    /// # Panics
    /// If the bundle names a component type twice.
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let ids: Vec<_> = world.spawn_batch((0..3).map(|i| (i as u32,))).collect();
    /// assert_eq!(ids.len(), 3);
    /// world.spawn_batch((0..5).map(|i| (i as u32,)));
    /// assert_eq!(world.len(), 8);
    /// ```
    #[track_caller]
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> SpawnBatch<'_, B, I::IntoIter>
    where
        B: Bundle,
        I: IntoIterator<Item = B>,
    {
        let bundles = bundles.into_iter();
        self.flush_reserved();
        let (bundle_id, archetype) = self.spawn_target::<B>();
        // One at a time where hooks run, or where values go to sparse sets.
        if self.archetypes.get(archetype).hooks.adds_or_inserts() || self.bundles.info(bundle_id).has_sparse {
            return SpawnBatch::hooked(self, bundles);
        }
        let additional = bundles.size_hint().0;
        let now = self.change_tick();
        self.entities.reserve(additional);
        self.moves.reserve(additional);
        let table = self.archetypes.get_mut(archetype);
        table.reserve(additional);
        let columns = &self.bundles.info(bundle_id).spawn.as_ref().expect("spawn target cached").columns;
        let Archetype { columns: table_columns, entities: table_entities, .. } = table;
        // SAFETY: `columns` is the spawn target's column list for this bundle, built
        // from the bundle's component ids in tuple order.
        let writer = unsafe { B::writer(table_columns, columns) };
        SpawnBatch::new(bundles, writer, table_entities, &mut self.entities, &mut self.moves, archetype, now)
    }

    /// Despawns `entity`, dropping its components.
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive.
    pub fn despawn(&mut self, entity: Entity) -> Result<(), NoSuchEntity> {
        self.flush_reserved();
        let location = self.locate(entity)?;
        self.maintain_ticks();
        self.sparse.components_of(entity, &mut self.sparse_scratch);
        let hooked = self.archetypes.get(location.archetype).hooks.has(HookKind::Remove)
            || (self.sparse_hooks.has(HookKind::Remove) && !self.sparse_scratch.is_empty())
            || self.reactor.despawns;
        if hooked {
            self.hooks_before_removal(entity, RemovedIds::Table(location.archetype));
            // Entities the hooks reserved come from the free list: make them alive
            // before this slot joins that list, so their handles stay right.
            self.flush_reserved_entities();
        }
        let now = self.change_tick();
        let table = self.archetypes.get_mut(location.archetype);
        let row = location.row.index();
        // Bookkeeping first, so the world is consistent before any user `Drop` runs.
        let moved = table.swap_remove_entity(row);
        if let Some(moved) = moved {
            self.entities.set_location(moved.index(), location);
        }
        self.entities.free(entity);
        Self::record_removals(&mut self.removals, table.components(), entity, now);
        Self::record_removals(&mut self.removals, &self.sparse_scratch, entity, now);
        self.moves.push(Move::between(entity, Some(location.archetype), None));
        // The sparse components it loses are logged too: a reader replaying the
        // entity's moves needs them to know what it had before.
        self.moves.push_sparse(entity, self.sparse_scratch.iter().copied(), true);
        if self.sparse_scratch.is_empty() {
            table.drop_row_values(row, now);
        } else {
            // Every set forgets the entity even if a value's `Drop` panics; then the row.
            let sets = &mut self.sparse;
            let doomed = &self.sparse_scratch;
            let finish =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sets.remove_all(entity, doomed, now)));
            table.drop_row_values(row, now);
            if let Err(panic) = finish {
                std::panic::resume_unwind(panic);
            }
        }
        if hooked {
            self.apply_hook_commands();
        }
        Ok(())
    }

    /// Adds the components of `bundle` to `entity`, replacing (and dropping) values of
    /// types it already has.
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive; nothing is changed and the bundle is
    /// dropped.
    ///
    /// # Panics
    /// If the bundle names a component type twice.
    #[track_caller]
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<(), NoSuchEntity> {
        self.flush_reserved();
        let location = self.locate(entity)?;
        self.maintain_ticks();
        if self.reactor.replaces && self.replacing::<B>(entity, location) {
            // Readers of the values about to be overwritten ran; the row has not
            // moved (they cannot change the world's structure), and their commands
            // apply once the insert is done.
            let inserted = self.insert_located(entity, location, bundle);
            self.apply_hook_commands();
            return inserted;
        }
        self.insert_located(entity, location, bundle)
    }

    /// Reports the values of `B`'s components that `entity` has and an insert is about
    /// to overwrite, if some reader watches them. Whether it reported any.
    #[cold]
    fn replacing<B: Bundle>(&mut self, entity: Entity, location: Location) -> bool {
        let bundle = self.bundles.id_or_register::<B>(&mut self.components);
        self.replacing_bundle(bundle, entity, location)
    }

    /// [`replacing`](Self::replacing) for a registered bundle.
    #[cold]
    pub(crate) fn replacing_bundle(&mut self, bundle: BundleId, entity: Entity, location: Location) -> bool {
        if !self.bundles.info(bundle).hooks.has(HookKind::Replace) {
            return false;
        }
        let mut reported = false;
        self.react_listed(HookKind::Replace, entity, |world, ids| {
            let table = world.archetypes.get(location.archetype);
            ids.extend(world.bundles.info(bundle).ids.iter().copied().filter(|&c| {
                if world.components.is_sparse(c) {
                    world.sparse.get(c).is_some_and(|set| set.contains(entity))
                } else {
                    table.has(c)
                }
            }));
            reported = !ids.is_empty();
        });
        reported
    }

    /// [`insert`](Self::insert) once the entity is found.
    #[track_caller]
    fn insert_located<B: Bundle>(&mut self, entity: Entity, location: Location, bundle: B) -> Result<(), NoSuchEntity> {
        let now = self.change_tick();
        let source = location.archetype;
        let row = location.row.index();
        let registries = Registries {
            archetypes: &mut self.archetypes,
            bundles: &mut self.bundles,
            components: &mut self.components,
            now,
        };
        let edge = self.transitions.insert_edge::<B>(source, registries);
        let (target, bundle_id, has_sparse) = (edge.target, edge.bundle, edge.has_sparse);
        let (to, row) = if target == source {
            (self.archetypes.get_mut(source), row)
        } else {
            let [from, to] = self.archetypes.get_two_mut(source, target);
            for (column, &dst) in from.columns.iter_mut().zip(edge.moves.iter()) {
                column.swap_remove_into(row, &mut *to.columns[dst], now);
            }
            let new_row = Self::move_handle(&mut self.entities, entity, location, from, to);
            self.moves.push(Move::between(entity, Some(source), Some(target)));
            (to, new_row)
        };
        if !has_sparse {
            // SAFETY: the edge's `bundle_columns` hold the target column of each bundle
            // element's component id, in tuple order, all in the table.
            unsafe { bundle.write_at(&mut to.columns, &edge.bundle_columns, row, now) };
            // Only the bundle's own hooks run: a hooked component elsewhere in the
            // table (a `ChildOf`, say) costs this insert nothing.
            if self.bundles.info(bundle_id).hooks.adds_or_inserts() {
                self.hooks_after_write(bundle_id, entity, source, 0);
            }
            return Ok(());
        }
        let info = self.bundles.info(bundle_id);
        let hooks = info.hooks;
        let place = BundleRow::new(&mut to.columns, row, &edge.bundle_columns, info, &mut self.sparse, entity)
            .logging(&mut self.moves, target != source);
        // SAFETY: the edge's `bundle_columns` hold the target column of each bundle
        // element's component id, in tuple order, `SPARSE_COLUMN` for sparse ones.
        let added_sparse = unsafe { place.write(bundle, now) };
        if hooks.adds_or_inserts() {
            self.hooks_after_write(bundle_id, entity, source, added_sparse);
        }
        Ok(())
    }

    /// Removes the components of bundle `B` from `entity` and returns them.
    ///
    /// # Errors
    /// [`ComponentError::NoSuchEntity`] if the entity is not alive;
    /// [`ComponentError::MissingComponent`] (naming the first missing type) if it lacks
    /// any of `B`'s components. On error nothing is changed.
    ///
    /// # Panics
    /// If the bundle names a component type twice.
    #[track_caller]
    pub fn remove<B: Bundle>(&mut self, entity: Entity) -> Result<B, ComponentError> {
        self.flush_reserved();
        let location = self.locate(entity)?;
        self.maintain_ticks();
        let now = self.change_tick();
        let source = location.archetype;
        let row = location.row.index();
        let registries = Registries {
            archetypes: &mut self.archetypes,
            bundles: &mut self.bundles,
            components: &mut self.components,
            now,
        };
        let edge = self.transitions.remove_edge::<B>(source, registries);
        let (bundle_id, target, has_sparse) = match edge {
            RemoveEdge::Valid { bundle, target, has_sparse, .. } => (*bundle, *target, *has_sparse),
            RemoveEdge::Missing(component) => {
                let component = *component;
                return Err(self.missing_for_removal::<B>(entity, source, component));
            }
        };
        if has_sparse
            && let Some(error) = Self::lacking_sparse(&self.bundles, &self.components, &self.sparse, bundle_id, entity)
        {
            return Err(error);
        }
        // Only the bundle's own `on_remove` hooks run (see `insert`).
        let hooked = self.bundles.info(bundle_id).hooks.has(HookKind::Remove);
        let edge = if hooked {
            self.hooks_before_removal(entity, RemovedIds::Bundle(bundle_id));
            // Looked up again only because the hooks borrow the world; they see it
            // shared and defer their structural changes, so it is the edge found above.
            let registries = Registries {
                archetypes: &mut self.archetypes,
                bundles: &mut self.bundles,
                components: &mut self.components,
                now,
            };
            self.transitions.remove_edge::<B>(source, registries)
        } else {
            edge
        };
        let RemoveEdge::Valid { bundle_columns, moves, .. } = edge else { unreachable!("checked above") };
        let info = self.bundles.info(bundle_id);
        // The bundle first, from the source row; then the rest of the row moves.
        let table = &mut self.archetypes.get_mut(source).columns;
        let removed = if has_sparse {
            let place = BundleRow::new(table, row, bundle_columns, info, &mut self.sparse, entity);
            // SAFETY: the edge's `bundle_columns` hold the source column of each bundle
            // element's component id, in tuple order, `SPARSE_COLUMN` for sparse ones,
            // which the entity was checked to have.
            unsafe { place.take::<B>(now) }
        } else {
            // SAFETY: as above, every element in the table.
            unsafe { B::take(table, bundle_columns, row, now) }
        };
        if target != source {
            // Otherwise only sparse elements (or none) left: the row stays put.
            let [from, to] = self.archetypes.get_two_mut(source, target);
            for (column, dst) in from.columns.iter_mut().zip(moves.iter()) {
                if let Some(dst) = *dst {
                    column.swap_remove_into(row, &mut *to.columns[dst], now);
                }
            }
            Self::move_handle(&mut self.entities, entity, location, from, to);
            self.moves.push(Move::between(entity, Some(source), Some(target)));
        }
        Self::record_removals(&mut self.removals, &info.ids, entity, now);
        if has_sparse {
            let sparse = info.ids.iter().copied().filter(|&c| self.components.is_sparse(c));
            self.moves.push_sparse(entity, sparse, target != source);
        }
        if hooked {
            self.apply_hook_commands();
        }
        Ok(removed)
    }

    /// Why `entity`, in table `source` which lacks `component` of bundle `B`, cannot
    /// have `B` removed: the first element it lacks, in tuple order, table or sparse.
    #[cold]
    fn missing_for_removal<B: Bundle>(
        &mut self,
        entity: Entity,
        source: ArchetypeId,
        component: ComponentId,
    ) -> ComponentError {
        let bundle = self.bundles.id_or_register::<B>(&mut self.components);
        let table = self.archetypes.get(source);
        let lacks = |&c: &ComponentId| match self.sparse.get(c) {
            Some(set) => !set.contains(entity),
            None => !table.has(c),
        };
        let component = *self.bundles.info(bundle).ids.iter().find(|c| lacks(c)).unwrap_or(&component);
        MissingComponent { entity, component: self.components.info(component).name }.into()
    }

    /// The first sparse element of `bundle` that `entity` lacks, as an error.
    fn lacking_sparse(
        bundles: &Bundles,
        components: &Components,
        sets: &SparseSets,
        bundle: BundleId,
        entity: Entity,
    ) -> Option<ComponentError> {
        let lacking = bundles
            .info(bundle)
            .ids
            .iter()
            .find(|&&c| components.is_sparse(c) && !sets.get(c).is_some_and(|set| set.contains(entity)))?;
        Some(MissingComponent { entity, component: components.info(*lacking).name }.into())
    }
}
