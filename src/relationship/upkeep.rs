//! Keeping a relation's components in step: the hooks installed by
//! [`World::register_relation`](crate::World::register_relation), which follow the
//! direct paths (inserting or removing the relation or its list, despawning either
//! side), and the operations they and the checked calls share.

use std::sync::atomic::Ordering;

use crate::entity::Entity;
use crate::error::{CommandError, CommandFailure};
use crate::world::World;

use super::links::Links;
use super::{DespawnPolicy, Related, Relation, RelationError};

/// Why a relation's components refuse writes (after the component's name).
const KEPT: &str = "its relation and cannot be written through a query or get_mut; change it with World::relate, \
                    unrelate or despawn";

/// Registers `R` and `Related<R>`, marks them kept by the world, and installs the
/// hooks that keep them in step. Does nothing if `R` is registered already.
pub(crate) fn install<R: Relation>(world: &mut World) {
    if world.contains_resource::<Links<R>>() {
        return;
    }
    world.insert_resource(Links::<R>::default());
    for id in [world.components.id_or_register::<R>(), world.components.id_or_register::<Related<R>>()] {
        world.components.keep(id, KEPT);
    }
    // The checked calls put the lists in step before they insert or remove `R`: their
    // hooks find nothing to do. Only a hook that finds the lists out of step (a direct
    // insert or removal, a despawn) queues a command.
    world.on_insert::<R>(|ctx| {
        let source = ctx.entity;
        if let Ok(relation) = ctx.world.get::<R>(source)
            && ctx.world.links::<R>().target_of(source) == Some(relation.target())
        {
            return;
        }
        ctx.commands.add(move |world: &mut World| world.follow_relation::<R>(source));
    });
    world.on_remove::<R>(|ctx| {
        let source = ctx.entity;
        if ctx.world.links::<R>().target_of(source).is_some() {
            ctx.commands.add(move |world: &mut World| world.unlist_relation::<R>(source));
        }
    });
    world.on_insert::<Related<R>>(|ctx| {
        let target = ctx.entity;
        let Ok(related) = ctx.world.get::<Related<R>>(target) else { return };
        if !related.fresh.swap(false, Ordering::Relaxed) {
            ctx.commands.add(move |world: &mut World| world.rebuild_related::<R>(target));
        }
    });
    world.on_remove::<Related<R>>(|ctx| {
        let target = ctx.entity;
        let Ok(related) = ctx.world.get::<Related<R>>(target) else { return };
        for &source in related.iter() {
            ctx.commands.add(move |world: &mut World| world.orphan_relation::<R>(source, target));
        }
    });
}

impl World {
    /// Relation `R`'s links (it is registered).
    #[inline]
    pub(crate) fn links<R: Relation>(&self) -> &Links<R> {
        self.resource::<Links<R>>().expect("ripple: a relation's hooks run only once it is registered")
    }

    #[inline]
    fn links_mut<R: Relation>(&mut self) -> &mut Links<R> {
        self.resource_mut::<Links<R>>().expect("ripple: a relation's hooks run only once it is registered")
    }

    /// Why `source` cannot be related to `target` through `R`, if it cannot.
    ///
    /// O(1), plus for an acyclic relation whose `source` has sources of its own the
    /// walk up from `target`, O(length of `target`'s chain).
    pub(crate) fn check_relation<R: Relation>(&self, source: Entity, target: Entity) -> Result<(), RelationError> {
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
        let links = self.links::<R>();
        let mut above = target;
        while let Some(up) = links.target_of(above) {
            if up == source {
                return Err(RelationError::Cycle { source, target });
            }
            above = up;
        }
        Ok(())
    }

    /// Moves `source` from `old`'s list (if any) to the end of `target`'s.
    pub(crate) fn link_relation<R: Relation>(&mut self, source: Entity, target: Entity, old: Option<Entity>) {
        if let Some(old) = old {
            self.remove_from_related::<R>(old, source);
        }
        self.links_mut::<R>().set(source, target);
        if let Some(mut related) = self.related_mut::<R>(target) {
            related.list.push(source);
            return;
        }
        self.insert(target, (Related::<R>::fresh(vec![source]),)).expect("checked alive");
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
    pub(crate) fn unlist_relation<R: Relation>(&mut self, source: Entity) {
        if let Some(target) = self.links::<R>().target_of(source) {
            self.links_mut::<R>().clear(source);
            self.remove_from_related::<R>(target, source);
        }
    }

    /// After `R` was inserted on `source`: moves it to the list of the target the
    /// component names, or, if that target is refused, puts back the relation it had.
    fn follow_relation<R: Relation>(&mut self, source: Entity) {
        let Ok(relation) = self.get::<R>(source) else { return };
        let target = relation.target();
        let listed = self.links::<R>().target_of(source);
        if listed == Some(target) {
            return;
        }
        match self.check_relation::<R>(source, target) {
            Ok(()) => self.link_relation::<R>(source, target, listed),
            Err(error) => {
                let error =
                    CommandError { command: std::any::type_name::<R>(), error: CommandFailure::Relation(error) };
                self.record_failed_command(error);
                match listed {
                    Some(old) => {
                        let now = self.change_tick();
                        let (column, row) = self.value_place_mut::<R>(source).expect("read above");
                        *column.get_mut(row, now) = R::to(old);
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
    fn orphan_relation<R: Relation>(&mut self, source: Entity, target: Entity) {
        if !self.contains(source) || self.links::<R>().target_of(source) != Some(target) {
            return;
        }
        if self.contains(target) || R::ON_TARGET_DESPAWN == DespawnPolicy::Detach {
            self.links_mut::<R>().clear(source);
            let _ = self.remove::<(R,)>(source);
        } else {
            self.despawn_cascade::<R>(source);
        }
    }

    /// Despawns `root` and every entity related to it through `R`, transitively, each
    /// once (a relation with cycles included), sources before their targets, without
    /// recursion. Returns how many were despawned.
    ///
    /// O(entities reached + their relations).
    pub(crate) fn despawn_cascade<R: Relation>(&mut self, root: Entity) -> usize {
        let links = self.links_mut::<R>();
        let (mut doomed, mut seen) = (std::mem::take(&mut links.doomed), std::mem::take(&mut links.seen));
        doomed.clear();
        seen.clear();
        seen.insert(root.to_bits(), ());
        doomed.push(root);
        let mut next = 0;
        while let Some(&entity) = doomed.get(next) {
            if let Ok(related) = self.get::<Related<R>>(entity) {
                for &source in related.iter() {
                    if seen.insert(source.to_bits(), ()).is_none() {
                        doomed.push(source);
                    }
                }
            }
            next += 1;
        }
        let mut despawned = 0;
        // Breadth-first order reversed: sources before their targets.
        for &entity in doomed.iter().rev() {
            despawned += usize::from(self.despawn(entity).is_ok());
        }
        doomed.clear();
        seen.clear();
        let links = self.links_mut::<R>();
        (links.doomed, links.seen) = (doomed, seen);
        despawned
    }

    /// After a list the upkeep did not build for this insert (one taken from some
    /// entity earlier) was inserted on `target`: lists the sources the links name
    /// instead, in slot order. Scans every slot: only this misuse pays.
    #[cold]
    fn rebuild_related<R: Relation>(&mut self, target: Entity) {
        let list: Vec<Entity> = self.links::<R>().sources_of(target).filter(|&source| self.contains(source)).collect();
        if let Some(mut related) = self.related_mut::<R>(target) {
            related.list = list;
        }
    }
}
