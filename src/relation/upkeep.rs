//! Keeping a relation's components in step: the hooks installed by
//! [`World::register_relation`](crate::World::register_relation), which follow the
//! direct paths (inserting or removing the relation or its list, despawning either
//! side), and the operations they and the checked calls share.

use std::sync::atomic::Ordering;

use crate::component::Component;
use crate::entity::Entity;
use crate::error::{CommandError, CommandFailure, ComponentError};
use crate::world::World;

use super::{DespawnPolicy, Related, Relation, RelationError};

/// How a refused direct insert of a relation is recorded among the failed commands.
pub(crate) type Refusal = fn(RelationError) -> CommandError;

/// The record of a refused direct insert of `R`: a [`CommandFailure::Relation`] under
/// `R`'s type name.
fn relation_refusal<R: Relation>(error: RelationError) -> CommandError {
    CommandError { command: std::any::type_name::<R>(), error: CommandFailure::Relation(error) }
}

/// Why a relation's components refuse writes (after the component's name).
const KEPT: &str = "is kept by its relation and cannot be written through a query or get_mut; change it with World::relate, \
                    unrelate or despawn";

/// Registers `R` and `Related<R>`, marks them kept by the world, gives `R` a link
/// table and installs the hooks that keep them in step; returns the table's index.
/// Only finds the index if `R` is registered already.
pub(crate) fn install<R: Relation>(world: &mut World) -> u32 {
    install_with::<R>(world, relation_refusal::<R>)
}

/// [`install`], recording a refused direct insert of `R` with `refusal` (the
/// hierarchy records its own error type).
pub(crate) fn install_with<R: Relation>(world: &mut World, refusal: Refusal) -> u32 {
    let source_id = world.components.id_or_register::<R>();
    if let Some(index) = world.components.info(source_id).relation {
        return index;
    }
    let index = world.relation_tables.add();
    world.components.info_mut(source_id).relation = Some(index);
    let target_id = world.components.id_or_register::<Related<R>>();
    world.components.info_mut(target_id).list_of = Some(source_id);
    for id in [source_id, target_id] {
        world.components.keep(id, KEPT);
    }
    // The checked calls put the lists in step before they insert or remove `R`: their
    // hooks find nothing to do. Only a hook that finds the lists out of step (a direct
    // insert or removal, a despawn) queues a command.
    world.on_insert::<R>(move |ctx| {
        let source = ctx.entity;
        if let Ok(relation) = ctx.world.get::<R>(source)
            && ctx.world.relation_tables.get(index).target_of(source) == Some(relation.target())
        {
            return;
        }
        ctx.commands.add(move |world: &mut World| world.follow_relation::<R>(index, source, refusal));
    });
    world.on_remove::<R>(move |ctx| {
        let source = ctx.entity;
        if ctx.world.relation_tables.get(index).target_of(source).is_some() {
            ctx.commands.add(move |world: &mut World| world.unlist_relation::<R>(index, source));
        }
    });
    world.on_insert::<Related<R>>(move |ctx| {
        let target = ctx.entity;
        let Ok(related) = ctx.world.get::<Related<R>>(target) else { return };
        if !related.fresh.swap(false, Ordering::Relaxed) {
            ctx.commands.add(move |world: &mut World| world.rebuild_related::<R>(index, target));
        }
    });
    world.on_remove::<Related<R>>(move |ctx| {
        let target = ctx.entity;
        let Ok(related) = ctx.world.get::<Related<R>>(target) else { return };
        for &source in related.iter() {
            ctx.commands.add(move |world: &mut World| world.orphan_relation::<R>(index, source, target));
        }
    });
    index
}

impl World {
    /// Relation `R`'s table index, if it is registered.
    #[inline]
    pub(crate) fn relation_index<R: Relation>(&self) -> Option<u32> {
        self.components.id::<R>().and_then(|id| self.components.info(id).relation)
    }

    /// Why `source` cannot be related to `target` through `R`, if it cannot.
    ///
    /// O(1), plus for an acyclic relation whose `source` has sources of its own the
    /// walk up from `target`, O(length of `target`'s chain).
    pub(crate) fn check_relation<R: Relation>(
        &self,
        index: u32,
        source: Entity,
        target: Entity,
    ) -> Result<(), RelationError> {
        if !self.contains(source) {
            return Err(RelationError::NoSuchEntity(source));
        }
        if source == target {
            return Err(RelationError::OwnTarget(source));
        }
        if !self.contains(target) {
            return Err(RelationError::DeadTarget { source, target });
        }
        if !R::ACYCLIC || self.get::<Related<R>>(source).map_or(true, |list| list.is_empty()) {
            return Ok(());
        }
        let links = self.relation_tables.get(index);
        let mut above = target;
        while let Some(up) = links.target_of(above) {
            #[cfg(feature = "internal-test-support")]
            links.steps.fetch_add(1, Ordering::Relaxed);
            if up == source {
                return Err(RelationError::Cycle { source, target });
            }
            above = up;
        }
        Ok(())
    }

    /// Moves `source` from `old`'s list (if any) to the end of `target`'s.
    pub(crate) fn link_relation<R: Relation>(
        &mut self,
        index: u32,
        source: Entity,
        target: Entity,
        old: Option<Entity>,
    ) {
        if let Some(old) = old {
            self.remove_from_related::<R>(old, source);
        }
        self.relation_tables.get_mut(index).set(source, target);
        if let Some(mut related) = self.related_mut::<R>(target) {
            related.list.push(source);
            return;
        }
        self.insert(target, (Related::<R>::fresh(vec![source]),)).expect("checked alive");
    }

    /// Changes `entity`'s `T` in place through `change`, seen as an overwriting insert
    /// of `T` would be: its `OnReplace` observers first (reading the value before),
    /// then the change (marked changed), then its `on_insert` hooks and `OnInsert`
    /// observers, whose commands apply before this returns. Unlike an insert, what
    /// `change` leaves alone is kept.
    ///
    /// # Errors
    /// [`ComponentError`] if `entity` is not alive or lacks `T`; nothing is changed.
    pub(crate) fn rewrite_as_insert<T: Component>(
        &mut self,
        entity: Entity,
        change: impl FnOnce(&mut T),
    ) -> Result<(), ComponentError> {
        self.flush_reserved();
        self.value_place_mut::<T>(entity)?;
        let location = self.locate(entity)?;
        self.maintain_ticks();
        let bundle = self.bundles.id_or_register::<(T,)>(&mut self.components);
        if self.reactor.replaces {
            // Observers cannot change the world's structure: the value stays where it is.
            self.replacing_bundle(bundle, entity, location);
        }
        let now = self.change_tick();
        let (column, row) = self.value_place_mut::<T>(entity)?;
        change(&mut column.get_mut(row, now));
        if self.bundles.info(bundle).hooks.adds_or_inserts() {
            self.hooks_after_write(bundle, entity, location.archetype, 0);
        }
        self.apply_hook_commands();
        Ok(())
    }

    /// `target`'s list for the upkeep's own edits (marked changed if tracked).
    pub(crate) fn related_mut<R: Relation>(&mut self, target: Entity) -> Option<crate::Mut<'_, Related<R>>> {
        let now = self.change_tick();
        let (column, row) = self.value_place_mut::<Related<R>>(target).ok()?;
        Some(column.get_mut(row, now))
    }

    fn remove_from_related<R: Relation>(&mut self, target: Entity, source: Entity) {
        if let Some(mut related) = self.related_mut::<R>(target)
            && let Some(at) = related.list.iter().rposition(|&s| s == source)
        {
            related.list.remove(at);
        }
    }

    /// Takes `source` off the list that holds it (its `R` left or is leaving).
    pub(crate) fn unlist_relation<R: Relation>(&mut self, index: u32, source: Entity) {
        let links = self.relation_tables.get_mut(index);
        if let Some(target) = links.target_of(source) {
            links.clear(source);
            self.remove_from_related::<R>(target, source);
        }
    }

    /// After `R` was inserted on `source`: moves it to the list of the target the
    /// component names, or, if that target is refused, puts back the relation it had.
    fn follow_relation<R: Relation>(&mut self, index: u32, source: Entity, refusal: Refusal) {
        let Ok(relation) = self.get::<R>(source) else { return };
        let target = relation.target();
        let listed = self.relation_tables.get(index).target_of(source);
        if listed == Some(target) {
            return;
        }
        match self.check_relation::<R>(index, source, target) {
            Ok(()) => self.link_relation::<R>(index, source, target, listed),
            Err(error) => {
                self.record_failed_command(refusal(error));
                match listed {
                    Some(old) => {
                        let now = self.change_tick();
                        let (column, row) = self.value_place_mut::<R>(source).expect("read above");
                        column.get_mut(row, now).set_target(old);
                    }
                    None => {
                        let _ = self.remove::<(R,)>(source);
                    }
                }
            }
        }
    }

    /// After `target` lost its list: a source still listed there is detached if the
    /// target lives on (its list was removed), or dealt with by the relation's policy
    /// if the target was despawned.
    fn orphan_relation<R: Relation>(&mut self, index: u32, source: Entity, target: Entity) {
        if !self.contains(source) || self.relation_tables.get(index).target_of(source) != Some(target) {
            return;
        }
        if self.contains(target) || R::ON_TARGET_DESPAWN == DespawnPolicy::Detach {
            self.relation_tables.get_mut(index).clear(source);
            let _ = self.remove::<(R,)>(source);
        } else {
            self.despawn_cascade::<R>(index, source);
        }
    }

    /// Despawns `root` and every entity related to it through `R`, transitively, each
    /// once (a relation with cycles included), sources before their targets, without
    /// recursion. Returns how many were despawned.
    ///
    /// O(entities reached + their relations).
    pub(crate) fn despawn_cascade<R: Relation>(&mut self, index: u32, root: Entity) -> usize {
        self.despawn_reached::<R>(index, root, false)
    }

    /// Despawns every entity related to `target` through `R`, transitively, keeping
    /// `target` (see [`despawn_cascade`](Self::despawn_cascade)). Each leaves with its
    /// relation still naming its target, as in a cascade from a despawned target, so
    /// its observers can read it; the hooks take it off the list. A cascade that comes
    /// back to `target` (a relation with cycles) detaches it, since its own target goes.
    pub(crate) fn despawn_sources<R: Relation>(&mut self, index: u32, target: Entity) -> usize {
        self.despawn_reached::<R>(index, target, true)
    }

    /// Gathers `root` and what is related to it, breadth first, and despawns them in
    /// reverse (sources before their targets), `root` only unless `keep_root`.
    fn despawn_reached<R: Relation>(&mut self, index: u32, root: Entity, keep_root: bool) -> usize {
        let links = self.relation_tables.get_mut(index);
        let (mut doomed, mut seen) = (std::mem::take(&mut links.doomed), std::mem::take(&mut links.seen));
        doomed.clear();
        seen.clear();
        seen.insert(root.to_bits(), ());
        doomed.push(root);
        let mut came_back = false;
        let mut next = 0;
        while let Some(&entity) = doomed.get(next) {
            if let Ok(related) = self.get::<Related<R>>(entity) {
                for &source in related.iter() {
                    came_back |= source == root;
                    if seen.insert(source.to_bits(), ()).is_none() {
                        doomed.push(source);
                    }
                }
            }
            next += 1;
        }
        if keep_root && came_back {
            let _ = self.unrelate::<R>(root);
        }
        let reached = &doomed[usize::from(keep_root)..];
        // Breadth-first order reversed: sources before their targets.
        for &entity in reached.iter().rev() {
            let _ = self.despawn(entity);
        }
        // Every entity reached was alive; count those gone now (a hook's cascade may
        // have taken some before this loop came to them).
        let despawned = reached.iter().filter(|&&entity| !self.contains(entity)).count();
        doomed.clear();
        seen.clear();
        let links = self.relation_tables.get_mut(index);
        (links.doomed, links.seen) = (doomed, seen);
        despawned
    }

    /// After a list the upkeep did not build for this insert (one taken from some
    /// entity earlier) was inserted on `target`: lists the sources the links name
    /// instead, in slot order. Scans every slot: only this misuse pays.
    #[cold]
    fn rebuild_related<R: Relation>(&mut self, index: u32, target: Entity) {
        let list: Vec<Entity> =
            self.relation_tables.get(index).sources_of(target).filter(|&source| self.contains(source)).collect();
        if let Some(mut related) = self.related_mut::<R>(target) {
            related.list = list;
        }
    }
}
