//! Resources from a command queue (a system's [`Commands`]).

use crate::commands::Commands;
use crate::world::World;

/// Resources from a command queue: applied at the sync point with the queue's other
/// commands, in order.
impl Commands<'_, '_> {
    /// Queues storing `value` as the world's `R` (see [`World::insert_resource`]).
    pub fn insert_resource<R: Send + Sync + 'static>(&mut self, value: R) {
        self.add(move |world: &mut World| {
            world.insert_resource(value);
        });
    }

    /// Queues storing `R::default()` unless the world holds an `R` by then (see
    /// [`World::init_resource`]).
    pub fn init_resource<R: Default + Send + Sync + 'static>(&mut self) {
        self.add(|world: &mut World| world.init_resource::<R>());
    }

    /// Queues removing the world's `R`, if it holds one (see
    /// [`World::remove_resource`]).
    pub fn remove_resource<R: Send + Sync + 'static>(&mut self) {
        self.add(|world: &mut World| {
            // Absent is not a failure: the world ends without an `R` either way.
            let _ = world.remove_resource::<R>();
        });
    }
}
