//! Resources: typed singletons stored on the world (time, input, configuration, a
//! system's public API).

use std::any::{Any, TypeId, type_name};

use crate::error::MissingResource;
use crate::hash::IdMap;
use crate::world::World;

/// Storage for one value per resource type.
#[derive(Default)]
pub(crate) struct Resources {
    values: IdMap<TypeId, Box<dyn Any + Send + Sync>>,
}

fn missing<R>() -> MissingResource {
    MissingResource { resource: type_name::<R>() }
}

impl World {
    /// Stores `value` as the world's `R`, returning the previous one if there was one.
    ///
    /// ```
    /// # use ripple::World;
    /// struct Gravity(f32);
    /// let mut world = World::new();
    /// world.insert_resource(Gravity(9.8));
    /// world.resource_mut::<Gravity>().unwrap().0 = 1.6;
    /// assert_eq!(world.resource::<Gravity>().unwrap().0, 1.6);
    /// ```
    pub fn insert_resource<R: Send + Sync + 'static>(&mut self, value: R) -> Option<R> {
        let old = self.resources.values.insert(TypeId::of::<R>(), Box::new(value))?;
        Some(*old.downcast::<R>().expect("resource stored under its own TypeId"))
    }

    /// Whether the world holds an `R`.
    pub fn contains_resource<R: Send + Sync + 'static>(&self) -> bool {
        self.resources.values.contains_key(&TypeId::of::<R>())
    }

    /// Shared access to the world's `R`.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn resource<R: Send + Sync + 'static>(&self) -> Result<&R, MissingResource> {
        let value = self.resources.values.get(&TypeId::of::<R>()).ok_or_else(missing::<R>)?;
        Ok(value.downcast_ref::<R>().expect("resource stored under its own TypeId"))
    }

    /// Exclusive access to the world's `R`.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn resource_mut<R: Send + Sync + 'static>(&mut self) -> Result<&mut R, MissingResource> {
        let value = self.resources.values.get_mut(&TypeId::of::<R>()).ok_or_else(missing::<R>)?;
        Ok(value.downcast_mut::<R>().expect("resource stored under its own TypeId"))
    }

    /// Takes the world's `R` out of it.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn remove_resource<R: Send + Sync + 'static>(&mut self) -> Result<R, MissingResource> {
        let value = self.resources.values.remove(&TypeId::of::<R>()).ok_or_else(missing::<R>)?;
        Ok(*value.downcast::<R>().expect("resource stored under its own TypeId"))
    }
}
