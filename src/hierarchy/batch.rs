//! The hierarchy's batch calls: attach many children at once (at the end or at an
//! index), replace a parent's children, despawn its descendants while keeping it, and
//! spawn many children.

use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::world::World;

use super::{ChildOf, HierarchyError};

impl World {
    /// Attaches every entity of `children` to `parent`, in order, at the end of its
    /// children: all or nothing.
    ///
    /// O(`children`), plus each child's cycle check and the leaving of its old list
    /// (see [`set_parent`](Self::set_parent)).
    ///
    /// # Errors
    /// The first [`HierarchyError`] among them; nothing is changed.
    pub fn add_children(&mut self, parent: Entity, children: &[Entity]) -> Result<(), HierarchyError> {
        for &child in children {
            self.check_parent(child, parent)?;
        }
        for &child in children {
            self.set_parent(child, parent)?;
        }
        Ok(())
    }

    /// Attaches `children` to `parent` and places them, in order, at `index` of its
    /// children (the end if past it); those already its children move there. All or
    /// nothing.
    ///
    /// O(children of `parent` · `children`), plus [`add_children`](Self::add_children).
    ///
    /// # Errors
    /// As [`add_children`](Self::add_children).
    pub fn insert_children(&mut self, parent: Entity, index: usize, children: &[Entity]) -> Result<(), HierarchyError> {
        self.add_children(parent, children)?;
        if let Some(mut list) = self.related_mut::<ChildOf>(parent) {
            crate::relation_registry::place_at(&mut list.list, index, children);
        }
        Ok(())
    }

    /// Makes `children` exactly `parent`'s children, in that order: its children not
    /// among them are detached (they become roots and live on). All or nothing.
    ///
    /// # Errors
    /// As [`add_children`](Self::add_children).
    pub fn replace_children(&mut self, parent: Entity, children: &[Entity]) -> Result<(), HierarchyError> {
        for &child in children {
            self.check_parent(child, parent)?;
        }
        let leaving: Vec<Entity> = self.children(parent)?.iter().copied().filter(|c| !children.contains(c)).collect();
        for child in leaving {
            self.remove_parent(child)?;
        }
        self.insert_children(parent, 0, children)
    }

    /// Despawns every descendant of `parent`, keeping `parent`; returns how many were
    /// despawned. O(descendants), without recursion.
    ///
    /// # Errors
    /// [`HierarchyError::NoSuchEntity`] if `parent` is not alive.
    pub fn despawn_descendants(&mut self, parent: Entity) -> Result<usize, HierarchyError> {
        Ok(self.despawn_related::<ChildOf>(parent)?)
    }

    /// Spawns one child of `parent` per bundle, in order, and returns them.
    ///
    /// # Errors
    /// [`HierarchyError::NoSuchEntity`] if `parent` is not alive; nothing is spawned.
    #[track_caller]
    pub fn spawn_children<B: Bundle>(
        &mut self,
        parent: Entity,
        bundles: impl IntoIterator<Item = B>,
    ) -> Result<Vec<Entity>, HierarchyError> {
        if !self.contains(parent) {
            return Err(HierarchyError::NoSuchEntity(parent));
        }
        Ok(bundles.into_iter().map(|bundle| self.spawn_child(parent, bundle).expect("checked alive")).collect())
    }
}
