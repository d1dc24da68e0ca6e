//! The per-type storage choice: [`World::set_storage`] and [`World::storage`].

use crate::component::{Component, Storage};
use crate::error::StorageInUse;
use crate::storage::TypedColumn;
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
    /// use ripple::{Storage, World};
    /// use ripple::query::With;
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
}
