//! Keeping `ChildOf` and `Children` in step: the checked calls (`set_parent` and
//! kin), and the hooks that follow the direct paths (inserting or removing `ChildOf`
//! or `Children`, despawning).
//!
//! The truth of "which list holds this child" is the hierarchy's link table in the
//! world's relation registry, indexed by entity slot: a direct insert replaces a
//! child's `ChildOf` before any hook runs, so the parent it had must be known from
//! somewhere else to take it off that list.

use std::sync::atomic::Ordering;

use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::error::{CommandError, CommandFailure, ComponentError, NoSuchEntity};
use crate::world::World;

use super::{CHILD_LINKS, CHILD_OF, CHILDREN, ChildOf, Children, HierarchyError};
use crate::relation_registry::LinkTable;

/// Registers the relation components under their fixed ids and the hooks that keep
/// them in step. Called by [`World::new`].
pub(crate) fn install(world: &mut World) {
    assert_eq!(world.components.id_or_register::<ChildOf>(), CHILD_OF, "ChildOf is registered first");
    assert_eq!(world.components.id_or_register::<Children>(), CHILDREN, "Children is registered second");
    assert_eq!(world.relation_tables.add(), CHILD_LINKS, "the hierarchy's links are the first table");
    // Custom observer events bubble along `ChildOf`.
    world.relation_tables.bubble = Some(CHILD_LINKS);
    for id in [CHILD_OF, CHILDREN] {
        world.components.keep(
            id,
            "the hierarchy and cannot be written through a query or get_mut; change relations with \
             World::set_parent, remove_parent or despawn",
        );
    }
    // The checked calls put the lists in step before they insert or remove `ChildOf`
    // (`set_parent` links, `remove_parent` unlists): their hooks find nothing to do and
    // queue nothing. Only a hook that finds the lists out of step (a direct insert or
    // removal, a despawn of a listed child) queues a command.
    world.on_insert::<ChildOf>(|ctx| {
        let child = ctx.entity;
        if let Ok(&ChildOf(parent)) = ctx.world.get::<ChildOf>(child)
            && ctx.world.child_links().target_of(child) == Some(parent)
        {
            return;
        }
        ctx.commands.add(move |world: &mut World| world.follow_child_of(child));
    });
    world.on_remove::<ChildOf>(|ctx| {
        let child = ctx.entity;
        if ctx.world.child_links().target_of(child).is_none() {
            return;
        }
        ctx.commands.add(move |world: &mut World| world.unlist(child));
    });
    world.on_insert::<Children>(|ctx| {
        let parent = ctx.entity;
        let Ok(children) = ctx.world.get::<Children>(parent) else { return };
        if !children.fresh.swap(false, Ordering::Relaxed) {
            ctx.commands.add(move |world: &mut World| world.rebuild_children(parent));
        }
    });
    world.on_remove::<Children>(|ctx| {
        let parent = ctx.entity;
        let Ok(children) = ctx.world.get::<Children>(parent) else { return };
        for &child in children.iter() {
            ctx.commands.add(move |world: &mut World| world.orphan(child, parent));
        }
    });
}

impl World {
    /// The hierarchy's link table: which parent's list holds each child.
    #[inline]
    pub(crate) fn child_links(&self) -> &LinkTable {
        self.relation_tables.get(CHILD_LINKS)
    }

    #[inline]
    fn child_links_mut(&mut self) -> &mut LinkTable {
        self.relation_tables.get_mut(CHILD_LINKS)
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
        self.link(child, parent, old);
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
        self.unlist(child);
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
    /// life: a measure of their work for tests; only with the `test-support` feature.
    #[cfg(feature = "test-support")]
    pub fn cycle_check_steps_for_tests(&self) -> u64 {
        self.child_links().steps.load(Ordering::Relaxed)
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
        if !self.contains(child) {
            return Err(HierarchyError::NoSuchEntity(child));
        }
        if child == parent {
            return Err(HierarchyError::OwnParent(child));
        }
        if !self.contains(parent) {
            return Err(HierarchyError::DeadParent { child, parent });
        }
        if self.children(child).is_ok_and(<[Entity]>::is_empty) {
            return Ok(());
        }
        let mut above = parent;
        while let Some(up) = self.child_links().target_of(above) {
            #[cfg(feature = "test-support")]
            self.child_links().steps.fetch_add(1, Ordering::Relaxed);
            if up == child {
                return Err(HierarchyError::Cycle { child, parent });
            }
            above = up;
        }
        Ok(())
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
        self.link(child, parent, None);
    }

    /// Moves `child` from `old`'s list (if any) to the end of `parent`'s.
    fn link(&mut self, child: Entity, parent: Entity, old: Option<Entity>) {
        if let Some(old) = old {
            self.remove_from_list(old, child);
        }
        self.child_links_mut().set(child, parent);
        if let Some(mut children) = self.children_mut(parent) {
            children.list.push(child);
            return;
        }
        self.insert(parent, (Children::fresh(vec![child]),)).expect("checked alive");
    }

    /// `parent`'s children for the hierarchy's own edits (marked changed if tracked).
    pub(super) fn children_mut(&mut self, parent: Entity) -> Option<crate::Mut<'_, Children>> {
        let now = self.change_tick();
        let (column, row) = self.value_place_mut::<Children>(parent).ok()?;
        Some(column.get_mut(row, now))
    }

    fn remove_from_list(&mut self, parent: Entity, child: Entity) {
        if let Some(mut children) = self.children_mut(parent)
            && let Some(at) = children.list.iter().rposition(|&c| c == child)
        {
            children.list.remove(at);
        }
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
        let mut placed = crate::hash::IdMap::<u64, ()>::default();
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
        match self.children_mut(parent) {
            Some(mut children) => {
                children.list = wanted;
                true
            }
            None => false,
        }
    }

    /// Takes `child` off the list that holds it (after its `ChildOf` left).
    fn unlist(&mut self, child: Entity) {
        if let Some(parent) = self.child_links().target_of(child) {
            self.child_links_mut().clear(child);
            self.remove_from_list(parent, child);
        }
    }

    /// After `ChildOf` was inserted on `child`: moves it to the list of the parent the
    /// component names, or, if that parent is refused, puts back the relation it had.
    fn follow_child_of(&mut self, child: Entity) {
        let Ok(&ChildOf(parent)) = self.get::<ChildOf>(child) else { return };
        let listed = self.child_links().target_of(child);
        if listed == Some(parent) {
            return;
        }
        match self.check_parent(child, parent) {
            Ok(()) => self.link(child, parent, listed),
            Err(error) => {
                self.record_failed_command(CommandError {
                    command: "ChildOf",
                    error: CommandFailure::Hierarchy(error),
                });
                match listed {
                    Some(old) => {
                        let now = self.change_tick();
                        let (column, row) = self.value_place_mut::<ChildOf>(child).expect("read above");
                        *column.get_mut(row, now) = ChildOf(old);
                    }
                    None => {
                        let _ = self.remove::<(ChildOf,)>(child);
                    }
                }
            }
        }
    }

    /// After `parent` lost its `Children`: a child still listed there is detached if
    /// the parent lives on (its `Children` was removed), or despawned with its
    /// descendants if the parent was despawned.
    fn orphan(&mut self, child: Entity, parent: Entity) {
        if !self.contains(child) || self.child_links().target_of(child) != Some(parent) {
            return;
        }
        if self.contains(parent) {
            self.child_links_mut().clear(child);
            let _ = self.remove::<(ChildOf,)>(child);
        } else {
            self.despawn_tree(child);
        }
    }

    /// Despawns `root` and its descendants, deepest first, without recursion (a chain
    /// of any depth is fine).
    pub(super) fn despawn_tree(&mut self, root: Entity) {
        let mut doomed = std::mem::take(&mut self.child_links_mut().doomed);
        doomed.clear();
        doomed.push(root);
        let mut next = 0;
        while let Some(&entity) = doomed.get(next) {
            if let Ok(children) = self.children(entity) {
                doomed.extend_from_slice(children);
            }
            next += 1;
        }
        // Breadth-first order reversed: every child goes before its parent.
        for &entity in doomed.iter().rev() {
            let _ = self.despawn(entity);
        }
        doomed.clear();
        self.child_links_mut().doomed = doomed;
    }

    /// After a `Children` that the hierarchy did not build for this insert (one taken
    /// from some entity earlier) was inserted on `parent`: lists the children the
    /// relations name instead, in slot order. Scans every slot: only this misuse pays.
    #[cold]
    fn rebuild_children(&mut self, parent: Entity) {
        let list: Vec<Entity> = self.child_links().sources_of(parent).filter(|&child| self.contains(child)).collect();
        if let Some(mut children) = self.children_mut(parent) {
            children.list = list;
        }
    }
}
