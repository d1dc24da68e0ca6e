//! The hierarchy's calls (`set_parent` and kin) over the relation upkeep that keeps
//! `ChildOf` and `Children` in step, as it keeps every
//! [`Relation`](crate::relation::Relation): the hierarchy
//! is the relation registered first, with its own names and error type.
//!
//! The truth of "which list holds this child" is the hierarchy's link table in the
//! world's relation registry, indexed by entity slot: a direct insert replaces a
//! child's `ChildOf` before any hook runs, so the parent it had must be known from
//! somewhere else to take it off that list.

use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::error::{CommandError, CommandFailure, ComponentError, NoSuchEntity};
use crate::world::World;

use super::{CHILD_LINKS, CHILD_OF, CHILDREN, ChildOf, Children, HierarchyError};
use crate::relation_registry::LinkTable;

/// Registers the relation components under their fixed ids and the hooks that keep
/// them in step. Called by [`World::new`].
pub(crate) fn install(world: &mut World) {
    let links = crate::relation::install_with::<ChildOf>(world, |error| CommandError {
        command: "ChildOf",
        error: CommandFailure::Hierarchy(error.into()),
    });
    assert_eq!(world.components.id::<ChildOf>(), Some(CHILD_OF), "ChildOf is registered first");
    assert_eq!(world.components.id::<Children>(), Some(CHILDREN), "Children is registered second");
    assert_eq!(links, CHILD_LINKS, "the hierarchy's links are the first table");
    // Custom observer events bubble along `ChildOf`.
    world.relation_tables.bubble = Some(CHILD_LINKS);
    for id in [CHILD_OF, CHILDREN] {
        world.components.keep(
            id,
            "is kept by the hierarchy and cannot be written through a query or get_mut; change relations with \
             World::set_parent, remove_parent or despawn",
        );
    }
}

impl World {
    /// The hierarchy's link table: which parent's list holds each child.
    #[inline]
    pub(crate) fn child_links(&self) -> &LinkTable {
        self.relation_tables.get(CHILD_LINKS)
    }

    /// Attaches `child` to `parent`, at the end of its children; if `child` had
    /// another parent it leaves that one's list. Attaching a child to the parent it
    /// already has changes nothing.
    ///
    /// # Complexity
    /// The cycle check is O(1) when `child` has no children (a leaf, or an entity
    /// just spawned); otherwise it walks up from `parent`, O(depth of `parent`).
    /// Leaving the old parent's list costs O(its children) (the list is searched from
    /// the end, so the last-attached child leaves in O(1)); joining the new list is
    /// amortised O(1), plus one table move the first time `parent` gets a child.
    ///
    /// # Errors
    /// [`HierarchyError`] if either entity is dead, `child == parent`, or `parent`
    /// descends from `child`. Nothing is changed.
    pub fn set_parent(&mut self, child: Entity, parent: Entity) -> Result<(), HierarchyError> {
        self.check_parent(child, parent)?;
        let old = self.child_links().target_of(child);
        if old == Some(parent) {
            return Ok(());
        }
        self.link_relation::<ChildOf>(CHILD_LINKS, child, parent, old);
        // Its own hook finds the lists already in step; user hooks see the relation.
        self.insert(child, (ChildOf(parent),)).expect("checked alive");
        Ok(())
    }

    /// Detaches `child` from its parent, which it leaves as a root; returns the parent
    /// it had (`None` if it had none, and nothing changes).
    ///
    /// O(children of the parent) to take `child` off the list (searched from the end),
    /// plus one table move; independent of depth.
    ///
    /// # Errors
    /// [`HierarchyError::NoSuchEntity`] if `child` is not alive.
    pub fn remove_parent(&mut self, child: Entity) -> Result<Option<Entity>, HierarchyError> {
        if !self.contains(child) {
            return Err(HierarchyError::NoSuchEntity(child));
        }
        let Ok(&ChildOf(parent)) = self.get::<ChildOf>(child) else { return Ok(None) };
        self.unlist_relation::<ChildOf>(CHILD_LINKS, child);
        self.remove::<(ChildOf,)>(child).expect("checked present");
        Ok(Some(parent))
    }

    /// Spawns an entity with `bundle` as the last child of `parent`.
    ///
    /// O(1) whatever the depth of `parent` (a new entity has no descendants, so no
    /// cycle check walks the tree), plus the spawn and, the first time `parent` gets
    /// a child, one table move.
    ///
    /// # Errors
    /// [`HierarchyError::NoSuchEntity`] if `parent` is not alive; nothing is spawned.
    #[track_caller]
    pub fn spawn_child<B: Bundle>(&mut self, parent: Entity, bundle: B) -> Result<Entity, HierarchyError> {
        if !self.contains(parent) {
            return Err(HierarchyError::NoSuchEntity(parent));
        }
        let child = self.spawn(bundle);
        self.set_parent(child, parent).expect("a new entity can take any live parent");
        Ok(child)
    }

    /// Detaches every child of `parent` (they become roots, in order, last first) and
    /// returns how many there were: what to call before despawning a parent whose
    /// children should live on.
    ///
    /// # Errors
    /// [`HierarchyError::NoSuchEntity`] if `parent` is not alive.
    pub fn detach_children(&mut self, parent: Entity) -> Result<usize, HierarchyError> {
        let mut detached = 0;
        while let Some(&child) = self.children(parent)?.last() {
            self.remove_parent(child)?;
            detached += 1;
        }
        Ok(detached)
    }

    /// How many ancestors the hierarchy's cycle checks have visited in this world's
    /// life: a measure of their work for ripple's own tests (the internal
    /// `internal-test-support` feature; not part of the API).
    #[cfg(feature = "internal-test-support")]
    #[doc(hidden)]
    pub fn cycle_check_steps_for_tests(&self) -> u64 {
        self.child_links().steps.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The parent of `entity`, or `None` for a root or a dead entity.
    #[inline]
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.get::<ChildOf>(entity).ok().map(ChildOf::parent)
    }

    /// The children of `entity`, in order (empty if it has none).
    ///
    /// # Errors
    /// [`HierarchyError::NoSuchEntity`] if `entity` is not alive.
    #[inline]
    pub fn children(&self, entity: Entity) -> Result<&[Entity], HierarchyError> {
        match self.get::<Children>(entity) {
            Ok(children) => Ok(children.as_slice()),
            Err(ComponentError::NoSuchEntity(NoSuchEntity(entity))) => Err(HierarchyError::NoSuchEntity(entity)),
            Err(ComponentError::MissingComponent(_)) => Ok(&[]),
        }
    }

    /// Why `child` cannot be attached to `parent`, if it cannot.
    ///
    /// O(1) when `child` has no children (a new entity, a leaf: it cannot be an
    /// ancestor of anything); otherwise O(depth of `parent`), the walk up from `parent`
    /// looking for `child`.
    pub(super) fn check_parent(&self, child: Entity, parent: Entity) -> Result<(), HierarchyError> {
        Ok(self.check_relation::<ChildOf>(CHILD_LINKS, child, parent)?)
    }

    #[cfg_attr(
        not(feature = "persistence"),
        allow(dead_code, reason = "used by scenes, data commands and replication")
    )]
    /// Attaches a child a scene load just placed (with its `ChildOf` naming `parent`)
    /// at the end of `parent`'s list, before the load's hooks run, so its `ChildOf`
    /// hook finds the lists in step. No cycle check: the load refused cycles among its
    /// own records, and a new entity has no descendants in the world.
    pub(crate) fn link_loaded(&mut self, child: Entity, parent: Entity) {
        debug_assert!(self.child_links().target_of(child).is_none(), "a loaded child is in no list yet");
        self.link_relation::<ChildOf>(CHILD_LINKS, child, parent, None);
    }

    #[cfg_attr(
        not(feature = "persistence"),
        allow(dead_code, reason = "used by scenes, data commands and replication")
    )]
    /// Puts `parent`'s children that `order` names first, in `order`'s order (each
    /// once), the others after them in the order they had; returns whether the list
    /// changed. Entities in `order` that are not `parent`'s children are passed over.
    /// The list is only written (and marked changed) when its order differs.
    ///
    /// # Complexity
    /// O(children + `order`), with scratch space of the list's length.
    pub(crate) fn reorder_children(&mut self, parent: Entity, order: &[Entity]) -> bool {
        let Ok(children) = self.get::<Children>(parent) else { return false };
        let mut placed = crate::util::hash::IdMap::<u64, ()>::default();
        let mut wanted: Vec<Entity> = Vec::with_capacity(children.list.len());
        for &child in order {
            if self.child_links().target_of(child) == Some(parent) && placed.insert(child.to_bits(), ()).is_none() {
                wanted.push(child);
            }
        }
        wanted.extend(children.list.iter().filter(|c| !placed.contains_key(&c.to_bits())));
        if wanted == children.list {
            return false;
        }
        match self.related_mut::<ChildOf>(parent) {
            Some(mut children) => {
                children.list = wanted;
                true
            }
            None => false,
        }
    }
}
