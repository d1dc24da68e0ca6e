//! Components and the per-world registry that gives each component type a dense id.

use std::any::TypeId;

use crate::hook::ComponentHookFlags;
use crate::storage::{BlobColumn, BlobShape, Column, TypedColumn};
use crate::util::hash::IdMap;

/// Data attached to entities. Implemented for every `'static + Send + Sync` type: no
/// derive or registration is needed. Zero-sized types (tags) take no per-row memory.
pub trait Component: 'static + Send + Sync {}

impl<T: 'static + Send + Sync> Component for T {}

/// Dense per-world index of a component type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentId(pub(crate) u32);

impl ComponentId {
    /// The id as an index into per-component tables.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a component type's values live, chosen per type and world with
/// [`World::set_storage`](crate::World::set_storage) before the type is first used.
///
/// - [`Table`](Storage::Table), the default: values live in the archetype tables, one
///   column per type. Iterating is a linear walk over contiguous memory, the fastest
///   there is; adding or removing the component moves the entity's whole row to
///   another table.
/// - [`SparseSet`](Storage::SparseSet): values live in one set per type, outside the
///   tables. Adding or removing the component is O(1) and moves nothing, and a query
///   that requires it visits only the entities that have it; reading it costs a
///   lookup per entity. Choose it for markers that come and go often (a `Moving`
///   tag on the entities in motion, a `DamagedFlash` for a few frames) and for
///   components few entities have. To add or remove one on many entities at once, go
///   through the set's view, [`World::sparse_mut`](crate::World::sparse_mut): it
///   resolves the type once instead of per call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Storage {
    /// In the archetype tables (the default).
    #[default]
    Table,
    /// In a sparse set of its own.
    SparseSet,
}

/// What the world knows about one component type.
pub(crate) struct ComponentInfo {
    pub(crate) name: &'static str,
    #[cfg_attr(
        not(feature = "persistence"),
        allow(dead_code, reason = "used by scenes, data commands and replication")
    )]
    /// The Rust type; `None` for a component registered at run time.
    pub(crate) type_id: Option<TypeId>,
    /// Builds an empty column of this type for a new archetype (or sparse set).
    new_column: fn() -> Box<dyn Column>,
    /// For a component registered at run time: its values' shape (then `new_column`
    /// is unused).
    pub(crate) blob: Option<BlobShape>,
    /// Where the values live; fixed from registration on.
    pub(crate) storage: Storage,
    /// The size of one value in bytes.
    pub(crate) size: usize,
    /// Whether this type's changes are recorded (opt-in, never turned off).
    pub(crate) tracked: bool,
    /// Whether an observer of this type has existed: its columns keep change summaries.
    pub(crate) observed: bool,
    /// Callbacks run when this type is added to, written to or removed from an entity.
    pub(crate) hooks: ComponentHookFlags,
    /// Set for a component only the world writes (a relation's, kept in step by its
    /// hooks): why, and what to call instead. Queries writing it and `get_mut` refuse.
    pub(crate) kept: Option<&'static str>,
    /// For a user relation's component: its link table's index (see
    /// `relation_registry`).
    pub(crate) relation: Option<u32>,
    /// For a relation's list of sources (`Related<R>`): the relation's component, from
    /// which the world derives it.
    pub(crate) list_of: Option<ComponentId>,
    /// The components an entity given this one gets too (see `World::register_required_components`).
    pub(crate) required: Vec<ComponentId>,
}

impl ComponentInfo {
    /// A component seen for the first time: untracked, unobserved, unhooked.
    fn new(
        name: &'static str,
        type_id: Option<TypeId>,
        new_column: fn() -> Box<dyn Column>,
        blob: Option<BlobShape>,
        storage: Storage,
        size: usize,
    ) -> Self {
        ComponentInfo {
            name,
            type_id,
            new_column,
            blob,
            storage,
            size,
            tracked: false,
            observed: false,
            hooks: ComponentHookFlags::default(),
            kept: None,
            relation: None,
            list_of: None,
            required: Vec::new(),
        }
    }

    /// An empty column for this component's values.
    pub(crate) fn make_column(&self) -> Box<dyn Column> {
        match self.blob {
            Some(shape) => Box::new(BlobColumn::new(shape)),
            None => (self.new_column)(),
        }
    }
}

/// The registry of component types seen by one world.
#[derive(Default)]
pub struct Components {
    infos: Vec<ComponentInfo>,
    by_type: IdMap<TypeId, ComponentId>,
    /// Runtime components by name, in registration order (names may repeat).
    by_runtime_name: std::collections::HashMap<&'static str, Vec<ComponentId>>,
}

impl Components {
    /// The id of `T`, registering it on first sight.
    #[inline]
    pub(crate) fn id_or_register<T: Component>(&mut self) -> ComponentId {
        self.id_or_register_as::<T>(Storage::Table)
    }

    /// The id of `T`, registering it with `storage` on first sight (a type seen
    /// before keeps the storage it was registered with).
    #[inline]
    pub(crate) fn id_or_register_as<T: Component>(&mut self, storage: Storage) -> ComponentId {
        let next = ComponentId(self.infos.len() as u32);
        let infos = &mut self.infos;
        *self.by_type.entry(TypeId::of::<T>()).or_insert_with(|| {
            let new_column = || Box::new(TypedColumn::<T>::default()) as Box<dyn Column>;
            infos.push(ComponentInfo::new(
                std::any::type_name::<T>(),
                Some(TypeId::of::<T>()),
                new_column,
                None,
                storage,
                size_of::<T>(),
            ));
            next
        })
    }

    /// Registers a component with no Rust type, whose values are shaped `shape`,
    /// under `name` (names of runtime components need not be unique).
    pub(crate) fn register_blob(&mut self, name: &'static str, shape: BlobShape, storage: Storage) -> ComponentId {
        let id = ComponentId(u32::try_from(self.infos.len()).expect("ripple: more than 2^32 component types"));
        let new_column = || unreachable!("a runtime component's columns are blobs");
        self.infos.push(ComponentInfo::new(name, None, new_column, Some(shape), storage, shape.layout.size()));
        self.by_runtime_name.entry(name).or_default().push(id);
        id
    }

    /// The runtime components registered under `name`, in registration order.
    pub(crate) fn runtime_named(&self, name: &str) -> &[ComponentId] {
        self.by_runtime_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// The id of `T` if it has been registered.
    #[inline]
    pub(crate) fn id<T: Component>(&self) -> Option<ComponentId> {
        self.by_type.get(&TypeId::of::<T>()).copied()
    }

    #[inline]
    pub(crate) fn info(&self, id: ComponentId) -> &ComponentInfo {
        &self.infos[id.index()]
    }

    #[inline]
    pub(crate) fn info_mut(&mut self, id: ComponentId) -> &mut ComponentInfo {
        &mut self.infos[id.index()]
    }

    /// Whether component `id` is stored in a sparse set.
    #[inline]
    pub(crate) fn is_sparse(&self, id: ComponentId) -> bool {
        self.infos[id.index()].storage == Storage::SparseSet
    }

    /// Marks component `id` as written by the world only; `advice` says by what and
    /// what to call instead (see [`kept_refusal`]).
    pub(crate) fn keep(&mut self, id: ComponentId, advice: &'static str) {
        self.infos[id.index()].kept = Some(advice);
    }

    /// Why a write of component `id` is refused, if it is kept by the world.
    #[inline]
    pub(crate) fn kept_refusal(&self, id: ComponentId) -> Option<String> {
        let info = &self.infos[id.index()];
        info.kept.map(|advice| format!("{} {advice}", info.name))
    }

    /// Number of registered component types.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.infos.len()
    }
}
