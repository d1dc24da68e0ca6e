//! The world as users get it: the core's bare world with the built-in relation, the
//! hierarchy (`ChildOf` and `Children`), registered first in every world. The core
//! does not know the hierarchy; this is where the two meet.

use crate::world::World;

impl World {
    /// An empty world (with the hierarchy's components and [`Disabled`](crate::Disabled)
    /// registered, as in every world).
    pub fn new() -> World {
        let mut world = World::bare();
        crate::message::install(&mut world);
        crate::system::install(&mut world);
        crate::hierarchy::install(&mut world);
        crate::disabled::install(&mut world);
        world
    }
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}
