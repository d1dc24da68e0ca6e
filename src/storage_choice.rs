//! The per-type storage choice ([`World::set_storage`]) and the lookups of values
//! that live in sparse sets.

use crate::component::{Component, Storage};
use crate::entity::Entity;
use crate::error::{MissingComponent, StorageInUse};
use crate::storage::{TypedColumn, downcast, downcast_mut};
use crate::world::World;

impl World {
    /// Chooses where component `T`'s values live in this world: in the archetype
    /// tables (the default) or in a sparse set of their own. See [`Storage`] for when
    /// each pays.
    ///
    /// Choose before `T` is first used — spawned, inserted, queried, observed, hooked
    /// or tracked — since everything built from then on assumes its storage. Choosing
    /// the storage a type already has is accepted and changes nothing.
    ///
    /// # Errors
    /// [`StorageInUse`] if `T` is already in use with the other storage; nothing is
    /// changed.
    ///
    /// ```
    /// use ripple::{Storage, With, World};
    /// struct Position(f32);
    /// struct Moving;
    ///
    /// let mut world = World::new();
    /// world.set_storage::<Moving>(Storage::SparseSet).unwrap();
    /// let crates: Vec<_> = world.spawn_batch((0..1000).map(|i| (Position(i as f32),))).collect();
    /// world.insert(crates[7], (Moving,)).unwrap(); // no row moves
    /// let mut movers = world.query_filtered::<&Position, With<Moving>>();
    /// assert_eq!(movers.iter(&world).count(), 1); // visits the one mover
    /// assert!(world.set_storage::<Position>(Storage::SparseSet).is_err()); // in use
    /// ```
    pub fn set_storage<T: Component>(&mut self, storage: Storage) -> Result<(), StorageInUse> {
        if let Some(id) = self.components.id::<T>() {
            let current = self.components.info(id).storage;
            if current == storage {
                return Ok(());
            }
            return Err(StorageInUse { component: std::any::type_name::<T>(), current, requested: storage });
        }
        let id = self.components.id_or_register_as::<T>(storage);
        if storage == Storage::SparseSet {
            self.sparse.create(id, Box::new(TypedColumn::<T>::default()));
        }
        Ok(())
    }

    /// The storage of component `T` in this world (the default, [`Storage::Table`],
    /// for a type not seen yet).
    pub fn storage<T: Component>(&self) -> Storage {
        self.components.id::<T>().map_or(Storage::Table, |id| self.components.info(id).storage)
    }

    /// `entity`'s `T` if `T` is sparse: `Ok(None)` when `T` lives in tables.
    ///
    /// # Errors
    /// [`MissingComponent`] if `T` is sparse and `entity` (alive) lacks it.
    #[inline]
    pub(crate) fn sparse_get<T: Component>(&self, entity: Entity) -> Result<Option<&T>, MissingComponent> {
        let Some(set) = self.components.id::<T>().and_then(|id| self.sparse.get(id)) else { return Ok(None) };
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        let dense = set.dense(entity).ok_or(missing)?;
        Ok(Some(downcast::<T>(&*set.values).get(dense)))
    }

    /// Whether `T` is stored in a sparse set.
    #[inline]
    pub(crate) fn is_sparse<T: Component>(&self) -> bool {
        self.components.id::<T>().is_some_and(|id| self.components.is_sparse(id))
    }

    /// The column holding `entity`'s `T` and its row in it; `T` is sparse.
    ///
    /// # Errors
    /// [`MissingComponent`] if `entity` (alive) lacks it.
    #[inline]
    pub(crate) fn sparse_column_mut<T: Component>(
        &mut self,
        entity: Entity,
    ) -> Result<(&mut TypedColumn<T>, usize), MissingComponent> {
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        let set = self.components.id::<T>().and_then(|id| self.sparse.get_mut(id)).ok_or(missing)?;
        let dense = set.dense(entity).ok_or(missing)?;
        Ok((downcast_mut::<T>(&mut *set.values), dense))
    }
}
