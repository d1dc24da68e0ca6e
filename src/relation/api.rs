//! The world's calls for user relations: registering one, relating and unrelating
//! entities, reading both sides, and the batch forms (add, insert at an index,
//! replace, despawn the related, spawn related).

use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::world::World;

use super::{Related, Relation, RelationError};

impl World {
    /// Registers relation `R`: from now on the world keeps every target's
    /// [`Related<R>`] list in step with the sources' `R` components, and applies `R`'s
    /// despawn policy. Registering again does nothing; [`relate`](Self::relate)
    /// registers on first use, but an `R` inserted directly before registration is a
    /// plain component, not followed.
    pub fn register_relation<R: Relation>(&mut self) {
        super::upkeep::install::<R>(self);
    }

    /// `R`'s link table index, registering `R` on first use.
    #[inline]
    fn relation_index_or_register<R: Relation>(&mut self) -> u32 {
        match self.relation_index::<R>() {
            Some(index) => index,
            None => super::upkeep::install::<R>(self),
        }
    }

    /// Relates `source` to the target `relation` names (leaving the target it had,
    /// if any). Relating it again to the target it has changes nothing.
    ///
    /// # Complexity
    /// O(1) to join the target's list (amortised, plus one table move the first time
    /// the target gets a source); leaving the old list costs O(its length) (searched
    /// from the end). An [`ACYCLIC`](Relation::ACYCLIC) relation adds the walk up from
    /// the target, O(its chain), when `source` has sources of its own.
    ///
    /// # Errors
    /// [`RelationError`] if either entity is dead, they are the same entity, or (for
    /// an acyclic relation) the target leads back to `source`. Nothing is changed.
    pub fn relate<R: Relation>(&mut self, source: Entity, relation: R) -> Result<(), RelationError> {
        let index = self.relation_index_or_register::<R>();
        let target = relation.target();
        self.check_relation::<R>(index, source, target)?;
        let old = self.relation_tables.get(index).target_of(source);
        if old == Some(target) {
            return Ok(());
        }
        self.link_relation::<R>(index, source, target, old);
        // Its own hook finds the lists in step; user hooks see the relation.
        self.insert(source, (relation,)).expect("checked alive");
        Ok(())
    }

    /// Ends `source`'s relation `R`; returns the target it had (`None` if it had none,
    /// and nothing changes). O(length of the target's list).
    ///
    /// # Errors
    /// [`RelationError::NoSuchEntity`] if `source` is not alive.
    pub fn unrelate<R: Relation>(&mut self, source: Entity) -> Result<Option<Entity>, RelationError> {
        if !self.contains(source) {
            return Err(RelationError::NoSuchEntity(source));
        }
        let Some(target) = self.relation_target::<R>(source) else { return Ok(None) };
        let index = self.relation_index_or_register::<R>();
        self.unlist_relation::<R>(index, source);
        self.remove::<(R,)>(source).expect("checked present");
        Ok(Some(target))
    }

    /// The target of `source`'s relation `R`, if it has one (and is alive).
    #[inline]
    pub fn relation_target<R: Relation>(&self, source: Entity) -> Option<Entity> {
        self.get::<R>(source).ok().map(R::target)
    }

    /// The entities related to `target` through `R`, in the order they were related
    /// (empty if none, or if `target` is dead).
    #[inline]
    pub fn related<R: Relation>(&self, target: Entity) -> &[Entity] {
        self.get::<Related<R>>(target).map_or(&[], Related::as_slice)
    }

    /// Relates every entity of `sources` to `target`, in order, at the end of its
    /// list: all or nothing.
    ///
    /// # Errors
    /// The first [`RelationError`] among them; nothing is changed.
    pub fn add_related<R: Relation>(&mut self, target: Entity, sources: &[Entity]) -> Result<(), RelationError> {
        let index = self.relation_index_or_register::<R>();
        for &source in sources {
            self.check_relation::<R>(index, source, target)?;
        }
        for &source in sources {
            self.retarget::<R>(index, source, target)?;
        }
        Ok(())
    }

    /// Relates `source` to `target` (checked by the caller) keeping its relation's
    /// data: a source related elsewhere has its `R` retargeted in place
    /// ([`Relation::set_target`]), which hooks and observers see as an insert of `R`;
    /// one without `R` gets [`Relation::to`].
    fn retarget<R: Relation>(&mut self, index: u32, source: Entity, target: Entity) -> Result<(), RelationError> {
        let old = self.relation_tables.get(index).target_of(source);
        if old == Some(target) {
            return Ok(());
        }
        if !self.entity(source).is_ok_and(|entity| entity.has::<R>()) {
            return self.relate(source, R::to(target));
        }
        self.link_relation::<R>(index, source, target, old);
        // Its own hook finds the lists in step; user hooks see the relation.
        self.rewrite_as_insert::<R>(source, |relation| relation.set_target(target)).expect("checked alive");
        Ok(())
    }

    /// Relates `sources` to `target` and places them, in order, at `index` of its list
    /// (the end if past it); those already related to it move there. All or nothing.
    ///
    /// O(list length · `sources`).
    ///
    /// # Errors
    /// As [`add_related`](Self::add_related).
    pub fn insert_related<R: Relation>(
        &mut self,
        target: Entity,
        index: usize,
        sources: &[Entity],
    ) -> Result<(), RelationError> {
        self.add_related::<R>(target, sources)?;
        if let Some(mut related) = self.related_mut::<R>(target) {
            crate::relation_registry::place_at(&mut related.list, index, sources);
        }
        Ok(())
    }

    /// Makes `sources` exactly `target`'s related entities, in that order: those not
    /// among them are unrelated (they live on), the others related. All or nothing.
    ///
    /// # Errors
    /// As [`add_related`](Self::add_related).
    pub fn replace_related<R: Relation>(&mut self, target: Entity, sources: &[Entity]) -> Result<(), RelationError> {
        let index = self.relation_index_or_register::<R>();
        for &source in sources {
            self.check_relation::<R>(index, source, target)?;
        }
        let leaving: Vec<Entity> = self.related::<R>(target).iter().copied().filter(|e| !sources.contains(e)).collect();
        for source in leaving {
            self.unrelate::<R>(source)?;
        }
        self.insert_related::<R>(target, 0, sources)
    }

    /// Despawns every entity related to `target` through `R`, and theirs, and so on,
    /// keeping `target`; returns how many were despawned. Each once, even around
    /// cycles; sources before their targets, each still related as it goes (its
    /// observers can read its relation, as when its target is despawned), and the
    /// hooks take it off its target's list. Where a cycle comes back to `target`, it
    /// is kept and detached (its own target is despawned).
    /// O(entities reached + their relations).
    ///
    /// # Errors
    /// [`RelationError::NoSuchEntity`] if `target` is not alive.
    pub fn despawn_related<R: Relation>(&mut self, target: Entity) -> Result<usize, RelationError> {
        if !self.contains(target) {
            return Err(RelationError::NoSuchEntity(target));
        }
        let index = self.relation_index_or_register::<R>();
        Ok(self.despawn_sources::<R>(index, target))
    }

    /// Spawns an entity with `bundle`, related to `target` through `R`.
    ///
    /// # Errors
    /// [`RelationError::NoSuchEntity`] if `target` is not alive; nothing is spawned.
    #[track_caller]
    pub fn spawn_related<R: Relation, B: Bundle>(
        &mut self,
        target: Entity,
        bundle: B,
    ) -> Result<Entity, RelationError> {
        if !self.contains(target) {
            return Err(RelationError::NoSuchEntity(target));
        }
        let source = self.spawn(bundle);
        self.relate(source, R::to(target)).expect("a new entity can be related to any live target");
        Ok(source)
    }
}
