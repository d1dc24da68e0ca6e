//! [`RemovedReader`]: a cursor into one component type's removal stream.

use std::marker::PhantomData;

use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::world::{World, WorldId};

use super::log::Cursor;
use super::tick::Tick;

/// Reads the removals of component `T`: every `(entity, tick)` at which a `T` left an
/// entity (removed, or despawned with it), each exactly once.
///
/// Removals are kept until every live reader has read them, so a reader that reads
/// rarely misses nothing. A reader sees removals made after it was created. Make one
/// with [`World::removal_reader`].
///
/// ```
/// use ripple::World;
/// struct Body;
/// let mut world = World::new();
/// let mut removed = world.removal_reader::<Body>();
/// let a = world.spawn((Body,));
/// let b = world.spawn((Body,));
/// world.remove::<(Body,)>(a).unwrap();
/// world.despawn(b).unwrap();
/// let gone: Vec<_> = removed.read(&world).map(|(entity, _tick)| entity).collect();
/// assert_eq!(gone, [a, b]);
/// assert_eq!(removed.read(&world).count(), 0);
/// ```
pub struct RemovedReader<T> {
    world: WorldId,
    component: ComponentId,
    cursor: Cursor,
    _component: PhantomData<fn() -> T>,
}

impl<T: Component> RemovedReader<T> {
    pub(crate) fn new(world: WorldId, component: ComponentId, cursor: Cursor) -> Self {
        RemovedReader { world, component, cursor, _component: PhantomData }
    }

    /// The removals not read yet, oldest first; reading consumes them for this reader.
    ///
    /// # Panics
    /// If `world` is not the world this reader was made for.
    #[track_caller]
    pub fn read<'w>(&mut self, world: &'w World) -> impl Iterator<Item = (Entity, Tick)> + 'w {
        assert!(self.world == world.id(), "RemovedReader used with a World other than the one it was made for");
        world.removal_log(self.component).read(&self.cursor)
    }
}
