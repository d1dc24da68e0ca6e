//! Components and the per-world registry that gives each component type a dense id.

use std::any::TypeId;

use crate::hash::IdMap;
use crate::hook::ComponentHooks;
use crate::storage::{Column, TypedColumn};

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
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// What the world knows about one component type.
pub(crate) struct ComponentInfo {
    pub(crate) name: &'static str,
    /// Builds an empty column of this type for a new archetype.
    pub(crate) new_column: fn() -> Box<dyn Column>,
    /// Whether this type's changes are recorded (opt-in, never turned off).
    pub(crate) tracked: bool,
    /// Whether an observer of this type has existed: its columns keep change summaries.
    pub(crate) observed: bool,
    /// Callbacks run when this type is added to, written to or removed from an entity.
    pub(crate) hooks: ComponentHooks,
}

/// The registry of component types seen by one world.
#[derive(Default)]
pub struct Components {
    infos: Vec<ComponentInfo>,
    by_type: IdMap<TypeId, ComponentId>,
}

impl Components {
    /// The id of `T`, registering it on first sight.
    #[inline]
    pub(crate) fn id_or_register<T: Component>(&mut self) -> ComponentId {
        let next = ComponentId(self.infos.len() as u32);
        let infos = &mut self.infos;
        *self.by_type.entry(TypeId::of::<T>()).or_insert_with(|| {
            infos.push(ComponentInfo {
                name: std::any::type_name::<T>(),
                new_column: || Box::new(TypedColumn::<T>::default()),
                tracked: false,
                observed: false,
                hooks: ComponentHooks::default(),
            });
            next
        })
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

    /// Number of registered component types.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.infos.len()
    }
}
