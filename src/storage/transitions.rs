//! Cached archetype transitions: where a table's row goes when a bundle is inserted
//! into or removed from it, and which column each value moves to.
//!
//! Both caches are keyed by (source table, bundle type), so a repeated `insert` or
//! `remove` finds its transition with one hash lookup: the bundle's per-world id is
//! looked up (and the bundle registered) only the first time a table meets it.

use std::any::TypeId;
use std::collections::hash_map::Entry;

use crate::bundle::{Bundle, BundleId, Bundles, SPARSE_COLUMN};
use crate::change::Tick;
use crate::component::{ComponentId, Components};
use crate::util::hash::IdMap;

use super::{ArchetypeId, Archetypes};

/// A cached insert transition from one archetype.
pub(crate) struct InsertEdge {
    /// The inserted bundle.
    pub(crate) bundle: BundleId,
    /// Whether the bundle has a sparse element (its info's `has_sparse`, kept here so
    /// that a table-only insert never looks the info up).
    pub(crate) has_sparse: bool,
    pub(crate) target: ArchetypeId,
    /// For each bundle element, in the bundle's order, its column in the target
    /// (`SPARSE_COLUMN` for a sparse one).
    pub(crate) bundle_columns: Box<[usize]>,
    /// For each source column, its column in the target (empty if the target is the
    /// source: every bundle component is already there).
    pub(crate) moves: Box<[usize]>,
}

/// A cached remove transition from one archetype.
pub(crate) enum RemoveEdge {
    /// Every bundle element is present.
    Valid {
        /// The removed bundle.
        bundle: BundleId,
        /// Whether the bundle has a sparse element (as in [`InsertEdge`]).
        has_sparse: bool,
        target: ArchetypeId,
        /// For each bundle element, in the bundle's order, its column in the source
        /// (`SPARSE_COLUMN` for a sparse one).
        bundle_columns: Box<[usize]>,
        /// For each source column, its column in the target, or `None` if removed.
        moves: Box<[Option<usize>]>,
    },
    /// The archetype lacks this component of the bundle.
    Missing(ComponentId),
}

/// The transitions of one world, built on first use and kept (tables are never freed).
#[derive(Default)]
pub(crate) struct Transitions {
    inserts: IdMap<(ArchetypeId, TypeId), InsertEdge>,
    removes: IdMap<(ArchetypeId, TypeId), RemoveEdge>,
    /// Transitions of bundles reached by id (see [`Bundles::id_for_component`]).
    inserts_by_id: IdMap<(ArchetypeId, BundleId), InsertEdge>,
    removes_by_id: IdMap<(ArchetypeId, BundleId), RemoveEdge>,
}

/// What building a transition needs from the world besides the cache itself.
pub(crate) struct Registries<'a> {
    pub(crate) archetypes: &'a mut Archetypes,
    pub(crate) bundles: &'a mut Bundles,
    pub(crate) components: &'a mut Components,
    /// Stamps the columns of a table created on the way.
    pub(crate) now: Tick,
}

impl Transitions {
    /// The transition for inserting `B` into a row of `source`.
    ///
    /// # Panics
    /// If `B` names a component type twice (such a bundle is never registered nor
    /// cached, so every use panics, before anything changes).
    #[inline]
    #[track_caller]
    pub(crate) fn insert_edge<B: Bundle>(&mut self, source: ArchetypeId, world: Registries<'_>) -> &InsertEdge {
        match self.inserts.entry((source, TypeId::of::<B>())) {
            Entry::Occupied(edge) => edge.into_mut(),
            Entry::Vacant(slot) => {
                let bundle = world.bundles.id_or_register::<B>(world.components);
                slot.insert(build_insert_edge(source, bundle, world))
            }
        }
    }

    /// The transition for inserting the registered bundle `bundle` into a row of
    /// `source` (for bundles reached by id rather than by type).
    pub(crate) fn insert_edge_by_id(
        &mut self,
        source: ArchetypeId,
        bundle: BundleId,
        world: Registries<'_>,
    ) -> &InsertEdge {
        match self.inserts_by_id.entry((source, bundle)) {
            Entry::Occupied(edge) => edge.into_mut(),
            Entry::Vacant(slot) => slot.insert(build_insert_edge(source, bundle, world)),
        }
    }

    /// The transition for removing the registered bundle `bundle` from a row of
    /// `source`.
    pub(crate) fn remove_edge_by_id(
        &mut self,
        source: ArchetypeId,
        bundle: BundleId,
        world: Registries<'_>,
    ) -> &RemoveEdge {
        match self.removes_by_id.entry((source, bundle)) {
            Entry::Occupied(edge) => edge.into_mut(),
            Entry::Vacant(slot) => slot.insert(build_remove_edge(source, bundle, world)),
        }
    }

    /// The transition for removing `B` from a row of `source`.
    ///
    /// # Panics
    /// As [`insert_edge`](Self::insert_edge).
    #[inline]
    #[track_caller]
    pub(crate) fn remove_edge<B: Bundle>(&mut self, source: ArchetypeId, world: Registries<'_>) -> &RemoveEdge {
        match self.removes.entry((source, TypeId::of::<B>())) {
            Entry::Occupied(edge) => edge.into_mut(),
            Entry::Vacant(slot) => {
                let bundle = world.bundles.id_or_register::<B>(world.components);
                slot.insert(build_remove_edge(source, bundle, world))
            }
        }
    }
}

#[cold]
fn build_insert_edge(source: ArchetypeId, bundle: BundleId, world: Registries<'_>) -> InsertEdge {
    let Registries { archetypes, bundles, components, now } = world;
    let info = bundles.info(bundle);
    let mut union: Vec<_> = archetypes.get(source).components().to_vec();
    union.extend_from_slice(&info.sorted);
    union.sort_unstable();
    union.dedup();
    let target = archetypes.get_or_create(&union, components, now);
    let to = archetypes.get(target);
    let column_in_target = |c| to.column_index(c).expect("target has every source and bundle component");
    let bundle_columns =
        info.ids.iter().map(|&c| if components.is_sparse(c) { SPARSE_COLUMN } else { column_in_target(c) }).collect();
    let moves = if target == source {
        Box::default()
    } else {
        archetypes.get(source).components().iter().map(|&c| column_in_target(c)).collect()
    };
    InsertEdge { bundle, has_sparse: info.has_sparse, target, bundle_columns, moves }
}

#[cold]
fn build_remove_edge(source: ArchetypeId, bundle: BundleId, world: Registries<'_>) -> RemoveEdge {
    let Registries { archetypes, bundles, components, now } = world;
    let info = bundles.info(bundle);
    let from = archetypes.get(source);
    // Sparse elements are checked per entity, when removing.
    if let Some(&missing) = info.ids.iter().find(|&&c| !components.is_sparse(c) && !from.has(c)) {
        return RemoveEdge::Missing(missing);
    }
    let rest: Vec<_> = from.components().iter().copied().filter(|c| info.sorted.binary_search(c).is_err()).collect();
    let bundle_columns = info
        .ids
        .iter()
        .map(|&c| if components.is_sparse(c) { SPARSE_COLUMN } else { from.column_index(c).expect("checked present") })
        .collect();
    let target = archetypes.get_or_create(&rest, components, now);
    let to = archetypes.get(target);
    let moves = archetypes.get(source).components().iter().map(|&c| to.column_index(c)).collect();
    let has_sparse = bundles.info(bundle).has_sparse;
    RemoveEdge::Valid { bundle, has_sparse, target, bundle_columns, moves }
}
