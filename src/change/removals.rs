//! [`RemovedReader`]: a cursor into one component type's removal stream.

use std::collections::vec_deque;
use std::iter::Copied;
use std::marker::PhantomData;

use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::world::{World, WorldId};

use super::log::{Cursor, Read};
use super::tick::Tick;

/// Reads the removals of component `T`: every `(entity, tick)` at which a `T` left an
/// entity (removed, or despawned with it), each exactly once.
///
/// Removals are kept until every live reader has read them, so a reader that reads
/// rarely misses nothing — up to the world's
/// [change-log limit](World::set_change_log_limit) of removals per component type: a
/// reader that falls further behind than that misses the older ones, and its next
/// read says how many ([`Removals::missed`]), so that a reader nobody reads costs
/// bounded memory. A reader sees removals made after it was created. Make one with
/// [`World::removal_reader`].
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
    /// If the reader fell further behind than the world keeps, the older ones are gone
    /// and [`Removals::missed`] counts them.
    ///
    /// # Panics
    /// If `world` is not the world this reader was made for.
    #[track_caller]
    pub fn read<'w>(&mut self, world: &'w World) -> Removals<'w> {
        assert!(self.world == world.id(), "RemovedReader used with a World other than the one it was made for");
        let Read { missed, entries } = world.removal_log(self.component).read(&self.cursor);
        Removals { missed, entries }
    }
}

/// The removals a [`RemovedReader`] had not read, oldest first, as `(entity, tick)`.
#[derive(Clone, Debug)]
pub struct Removals<'w> {
    missed: u64,
    entries: Copied<vec_deque::Iter<'w, (Entity, Tick)>>,
}

impl Removals<'_> {
    /// How many removals before these the reader missed because it fell further
    /// behind than the world's [change-log limit](World::set_change_log_limit); zero
    /// for a reader that reads at least that often. A reader that missed some can
    /// rebuild what it keeps from a query over what is still there.
    pub fn missed(&self) -> u64 {
        self.missed
    }
}

impl Iterator for Removals<'_> {
    type Item = (Entity, Tick);

    #[inline]
    fn next(&mut self) -> Option<(Entity, Tick)> {
        self.entries.next()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl ExactSizeIterator for Removals<'_> {}
