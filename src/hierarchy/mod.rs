//! Parent/child relations and propagation down the tree.
//!
//! A child names its parent with a [`ChildOf`] component; the parent's [`Children`]
//! component lists its children in the order they were attached. The world keeps the
//! two in step through every path that changes a relation:
//! [`World::set_parent`](crate::World::set_parent),
//! [`World::remove_parent`](crate::World::remove_parent),
//! [`World::spawn_child`](crate::World::spawn_child), inserting or removing `ChildOf`
//! directly (also from [`Commands`](crate::Commands) and hooks), and despawning.
//!
//! - **Despawning a parent despawns its descendants.** To keep them, detach them
//!   first with [`World::detach_children`](crate::World::detach_children) (they become roots).
//! - **Relations are refused, not repaired**: a dead parent, an entity as its own
//!   parent, or a parent that is a descendant of the child (a cycle) is a
//!   [`HierarchyError`] from `set_parent` and `spawn_child`, and nothing changes. A
//!   `ChildOf` inserted directly (where no error can be returned) that names such a
//!   parent is undone once the insert completes: the child keeps the parent it had,
//!   or none, and the refusal is recorded as a failed command
//!   ([`World::failed_commands`](crate::World::failed_commands)).
//! - **`ChildOf` and `Children` are read-only** to queries and `get_mut`: a query
//!   writing either is refused when it is built, and `get_mut` panics, because a
//!   write there would bypass the bookkeeping. Change a relation with the calls above.
//! - Hooks on `ChildOf` and `Children` and their removal streams see every relation
//!   change. A hook sees the component as written; the children lists catch up when
//!   the operation that ran it completes.
//!
//! [`Propagation`] computes a derived "global" component from a "local" one down the
//! tree, recomputing only what changed since it last ran.
//!
//! ```
//! use ripple::World;
//! let mut world = World::new();
//! let sun = world.spawn(("sun",));
//! let earth = world.spawn_child(sun, ("earth",)).unwrap();
//! let moon = world.spawn_child(earth, ("moon",)).unwrap();
//! assert_eq!(world.children(sun).unwrap(), [earth]);
//! assert_eq!(world.ancestors(moon).collect::<Vec<_>>(), [earth, sun]);
//! assert_eq!(world.descendants(sun).collect::<Vec<_>>(), [earth, moon]);
//! assert!(world.set_parent(sun, moon).is_err()); // a cycle: refused, nothing changes
//!
//! world.despawn(sun).unwrap(); // takes its descendants along
//! assert!(!world.contains(moon));
//! ```

mod batch;
mod commands;
mod marks;
mod propagate;
mod relations;
mod traverse;
mod walk;

use std::fmt;

#[cfg(feature = "persistence")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::relation::{DespawnPolicy, Related, Relation};

pub use crate::relation_error::HierarchyError;
pub use propagate::{Propagation, PropagationStats};
pub(crate) use relations::install;
pub use traverse::{Ancestors, Descendants};

/// The relation component on a child: the entity it is attached to.
///
/// Attach with [`World::set_parent`](crate::World::set_parent) (checked, with a typed
/// error) or by inserting `ChildOf(parent)` directly; the parent's [`Children`]
/// follows either way. With a scene registry, a saved `ChildOf` loads with its parent
/// remapped like any other stored [`Entity`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChildOf(pub Entity);

impl ChildOf {
    /// The parent this relation names.
    #[inline]
    pub fn parent(&self) -> Entity {
        self.0
    }
}

impl fmt::Debug for ChildOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChildOf({:?})", self.0)
    }
}

#[cfg(feature = "persistence")]
#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
impl Serialize for ChildOf {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(feature = "persistence")]
#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
impl<'de> Deserialize<'de> for ChildOf {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ChildOf, D::Error> {
        Entity::deserialize(deserializer).map(ChildOf)
    }
}

/// The relation component on a parent: its children, in the order they were attached.
///
/// The hierarchy is one [`Relation`] among others: `Children` is `ChildOf`'s
/// [`Related`] list, kept by the world; it cannot be built or written outside it. It
/// stays (empty) when the last child leaves, so a parent that gains and loses
/// children every frame keeps its list's capacity and allocates nothing. Removing it
/// from an entity detaches all its children.
pub type Children = Related<ChildOf>;

/// The hierarchy as a relation: acyclic, and despawning a parent despawns its
/// children. [`World::set_parent`](crate::World::set_parent) and its kin are the
/// hierarchy's names for [`World::relate`](crate::World::relate) and its kin, with
/// [`HierarchyError`] for their refusals.
impl Relation for ChildOf {
    const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::DespawnRelated;
    const ACYCLIC: bool = true;

    #[inline]
    fn target(&self) -> Entity {
        self.0
    }

    #[inline]
    fn to(target: Entity) -> Self {
        ChildOf(target)
    }

    #[inline]
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

/// `ChildOf`'s id in every world: registered first by [`World::new`](crate::World::new).
pub(crate) const CHILD_OF: ComponentId = ComponentId(0);
/// `Children`'s id in every world: registered second.
pub(crate) const CHILDREN: ComponentId = ComponentId(1);
/// The hierarchy's link table in every world's relation registry: the first.
pub(crate) const CHILD_LINKS: u32 = 0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::World;

    #[test]
    fn relation_components_have_their_fixed_ids_in_every_world() {
        for _ in 0..2 {
            let world = World::new();
            assert_eq!(world.components.id::<ChildOf>(), Some(CHILD_OF));
            assert_eq!(world.components.id::<Children>(), Some(CHILDREN));
        }
    }

    #[test]
    #[should_panic(expected = "kept by the hierarchy")]
    fn get_mut_refuses_children() {
        let mut world = World::new();
        let parent = world.spawn(());
        world.spawn_child(parent, ()).unwrap();
        let _ = world.get_mut::<Children>(parent);
    }
}
