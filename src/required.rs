//! Required components (bevy_ecs's `#[require(B)]`): an entity given `A` gets `B` too,
//! made by a constructor, unless it has one already.

use std::fmt;

use crate::component::Component;
use crate::world::World;

/// Why [`World::register_required_components`] refused a requirement. Nothing was
/// registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequiredComponentsError {
    /// `required` is already required by `component`.
    Duplicate {
        /// The component that requires.
        component: &'static str,
        /// The component it requires.
        required: &'static str,
    },
    /// Entities with `component` exist already: they would lack what it now requires.
    /// Register requirements before spawning.
    EntitiesExist {
        /// The component that would require.
        component: &'static str,
    },
}

impl fmt::Display for RequiredComponentsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequiredComponentsError::Duplicate { component, required } => {
                write!(f, "component `{component}` already requires `{required}`")
            }
            RequiredComponentsError::EntitiesExist { component } => write!(
                f,
                "entities with component `{component}` exist already and would lack what it requires; \
                 register requirements before spawning"
            ),
        }
    }
}

impl std::error::Error for RequiredComponentsError {}

impl World {
    /// Makes `R` required by `A`: an entity that is given an `A` (spawned with it, or
    /// by `insert`) and has no `R` gets `R::default()` too. Requirements chain (an `R`
    /// that requires `S` brings `S`), and a component given explicitly wins over the
    /// default. bevy_ecs's `#[require(R)]`, registered at run time since every type is
    /// a component here.
    ///
    /// The required component is inserted by an `on_add` hook's command, so it is
    /// there when the operation that added `A` returns (and at the sync point, for a
    /// command), but `A`'s own `on_add` hooks and observers run before it arrives.
    ///
    /// ```
    /// use ripple::World;
    /// #[derive(Default, Debug, PartialEq)]
    /// struct Health(u32);
    /// struct Player;
    /// let mut world = World::new();
    /// world.register_required_components::<Player, Health>().unwrap();
    /// let player = world.spawn((Player,));
    /// assert_eq!(*world.get::<Health>(player).unwrap(), Health(0));
    /// let tough = world.spawn((Player, Health(300)));
    /// assert_eq!(*world.get::<Health>(tough).unwrap(), Health(300));
    /// ```
    ///
    /// # Errors
    /// [`RequiredComponentsError`] if `A` already requires `R`, or entities with `A`
    /// exist already; nothing is registered then.
    pub fn register_required_components<A: Component, R: Component + Default>(
        &mut self,
    ) -> Result<(), RequiredComponentsError> {
        self.register_required_components_with::<A, R>(R::default)
    }

    /// [`register_required_components`](Self::register_required_components) with `make`
    /// building the required value.
    ///
    /// # Errors
    /// As [`register_required_components`](Self::register_required_components).
    pub fn register_required_components_with<A: Component, R: Component>(
        &mut self,
        make: impl Fn() -> R + Send + Sync + 'static,
    ) -> Result<(), RequiredComponentsError> {
        let component = std::any::type_name::<A>();
        let a = self.components.id_or_register::<A>();
        let r = self.components.id_or_register::<R>();
        if self.components.info(a).required.contains(&r) {
            return Err(RequiredComponentsError::Duplicate { component, required: std::any::type_name::<R>() });
        }
        let exists = match self.sparse.get(a) {
            Some(set) => set.len() > 0,
            None => self.archetypes.iter().any(|table| table.has(a) && !table.is_empty()),
        };
        if exists {
            return Err(RequiredComponentsError::EntitiesExist { component });
        }
        self.components.info_mut(a).required.push(r);
        self.on_add::<A>(move |ctx| {
            if ctx.world.get::<R>(ctx.entity).is_ok() {
                return;
            }
            let entity = ctx.entity;
            let value = make();
            ctx.commands.add(move |world: &mut World| {
                // Still has `A` and still lacks `R` (an earlier command may have given it).
                if world.get::<A>(entity).is_ok() && world.get::<R>(entity).is_err() {
                    let _ = world.insert_one(entity, value);
                }
            });
        });
        Ok(())
    }
}
