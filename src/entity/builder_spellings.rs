//! bevy_ecs's builder calls on what `spawn` returns, answered with ripple's spelling.
//!
//! ripple's `spawn` returns the [`Entity`] itself (as hecs's does), so a bevy_ecs user's
//! `world.spawn(..).id()` compiles (deprecated, with a note saying to drop it), and
//! `.with_children(..)`, `.insert(..)` or `.observe(..)` on the handle fail to compile
//! with a message naming what to write instead.

use super::Entity;

mod sealed {
    pub trait Never {}
}

/// Never implemented: the bound of the builder calls bevy_ecs makes on what `spawn`
/// returns, so that the compiler's message says what to write in ripple.
///
/// ```compile_fail,E0277
/// struct Ship;
/// struct Gun;
/// let mut world = ripple::World::new();
/// // error: ripple's `spawn` returns the `Entity` itself, not a builder
/// world.spawn((Ship,)).with_children(|parent: &mut ripple::relation::ChildSpawner| {
///     parent.spawn((Gun,));
/// });
/// ```
///
/// What to write instead:
///
/// ```
/// struct Ship;
/// struct Gun;
/// let mut world = ripple::World::new();
/// let ship = world.spawn((Ship,));
/// world.entity_mut(ship).unwrap().with_children(|parent| {
///     parent.spawn((Gun,));
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "ripple's `spawn` returns the `Entity` itself, not a builder",
    label = "this builder call needs an entity view",
    note = "from a system: `let e = commands.spawn(..); commands.entity(e).with_children(..)` (or `.insert(..)`, `.observe(..)`)",
    note = "on a world: `let e = world.spawn(..); world.entity_mut(e)?.with_children(..)` (or `.insert(..)`)"
)]
pub trait SpawnReturnsAnEntity: sealed::Never {}

impl Entity {
    /// The handle itself: bevy_ecs's `spawn(..).id()` spelled on ripple's `spawn`,
    /// which already returns the `Entity`.
    #[deprecated(note = "ripple's `spawn` returns the `Entity` itself: drop the `.id()`")]
    #[doc(hidden)]
    #[inline]
    pub const fn id(self) -> Entity {
        self
    }

    /// Not available on a handle (see [`SpawnReturnsAnEntity`]).
    #[doc(hidden)]
    pub fn with_children<F: SpawnReturnsAnEntity>(self, _: F) -> Entity {
        self
    }

    /// Not available on a handle (see [`SpawnReturnsAnEntity`]).
    #[doc(hidden)]
    pub fn insert<B: SpawnReturnsAnEntity>(self, _: B) -> Entity {
        self
    }

    /// Not available on a handle (see [`SpawnReturnsAnEntity`]).
    #[doc(hidden)]
    pub fn observe<F: SpawnReturnsAnEntity>(self, _: F) -> Entity {
        self
    }
}
