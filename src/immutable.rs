//! Immutable components: values that are only ever replaced or removed, never written
//! in place, so that hooks see every change of them (bevy_ecs's
//! `#[component(immutable)]`).

use crate::component::Component;
use crate::world::World;

/// What a refused write of an immutable component says (after the component's name).
pub(crate) const IMMUTABLE: &str = "is immutable: replace its value with insert (hooks see the old one go and the new \
                                    one come) or take it with remove";

impl World {
    /// Makes `T` immutable in this world: a value of `T` can be read, replaced
    /// (`insert`) or removed, never written in place. So its `on_insert` hooks and
    /// its `OnInsert` and `OnReplace` observers see every change of its value, and an
    /// index kept by them (a name to entity map, say) stays exact.
    ///
    /// Every type is a component in ripple, so immutability is a registration, not a
    /// derive: a write is refused at run time, where bevy_ecs refuses it at compile
    /// time. [`get_mut`](World::get_mut) panics with a message naming `T`; a query
    /// that writes `T` (`&mut T`) panics when it is built (a system's, when the system
    /// is added), saying what to call instead. A component the world already keeps
    /// (a relation's) stays as it is. O(1).
    ///
    /// ```
    /// use ripple::World;
    /// #[derive(Clone, Copy, PartialEq, Debug)]
    /// struct Name(&'static str);
    /// let mut world = World::new();
    /// world.register_immutable::<Name>();
    /// let javier = world.spawn((Name("Javier"),));
    /// world.insert_one(javier, Name("Steven")).unwrap(); // a replacement, seen by hooks
    /// assert_eq!(*world.get::<Name>(javier).unwrap(), Name("Steven"));
    /// ```
    ///
    /// ```should_panic
    /// # use ripple::World;
    /// # struct Name(&'static str);
    /// # let mut world = World::new();
    /// world.register_immutable::<Name>();
    /// let e = world.spawn((Name("Alyssa"),));
    /// world.get_mut::<Name>(e).unwrap().0 = "Steven"; // panics: `Name` is immutable
    /// ```
    pub fn register_immutable<T: Component>(&mut self) {
        let id = self.components.id_or_register::<T>();
        if self.components.kept_refusal(id).is_none() {
            self.components.keep(id, IMMUTABLE);
        }
    }

    /// Whether writes of `T` in place are refused: `T` was made immutable
    /// ([`register_immutable`](World::register_immutable)) or is kept by the world (a
    /// relation's components).
    pub fn is_immutable<T: Component>(&self) -> bool {
        self.components.id::<T>().is_some_and(|id| self.components.kept_refusal(id).is_some())
    }
}
