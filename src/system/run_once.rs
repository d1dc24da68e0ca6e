//! [`World::run_system_once`]: a system run once without registering it (bevy_ecs's
//! `RunSystemOnce`).

use crate::world::World;

use super::input::{SystemIn, SystemInput};
use super::io_system::{IntoIoSystem, IoSystem};
use super::one_shot::OneShotError;

impl World {
    /// Runs `system` once, with exclusive access to the world, then applies its
    /// commands, and returns its output: bevy_ecs's `run_system_once`. Nothing is kept:
    /// the system is prepared for this run and dropped after it, so its change filters
    /// see everything as new (register it with
    /// [`register_system`](Self::register_system) to keep its memory between runs).
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::system::Query;
    /// struct Hp(u32);
    /// let mut world = World::new();
    /// world.spawn((Hp(3),));
    /// world.spawn((Hp(5),));
    /// let total = world.run_system_once(|hp: Query<&Hp>| hp.iter().map(|h| h.0).sum::<u32>()).unwrap();
    /// assert_eq!(total, 8);
    /// ```
    ///
    /// # Errors
    /// [`OneShotError::ConflictingParams`] if the system's parameters conflict;
    /// [`OneShotError::InvalidParams`] if they cannot be made now (a missing
    /// resource).
    pub fn run_system_once<O: 'static, M>(&mut self, system: impl IntoIoSystem<(), O, M>) -> Result<O, OneShotError> {
        self.run_system_once_with(system, ())
    }

    /// As [`run_system_once`](Self::run_system_once), for a system that takes an input.
    ///
    /// # Errors
    /// As [`run_system_once`](Self::run_system_once).
    pub fn run_system_once_with<I: SystemInput, O: 'static, M>(
        &mut self,
        system: impl IntoIoSystem<I, O, M>,
        input: SystemIn<'_, I>,
    ) -> Result<O, OneShotError> {
        let mut system = system.into_io_system();
        if let Err(conflicts) = system.initialize(self) {
            return Err(OneShotError::ConflictingParams { system: system.name().to_string(), conflicts });
        }
        if let Err(reason) = system.validate(self) {
            return Err(OneShotError::InvalidParams { system: system.name().to_string(), reason });
        }
        self.flush_reserved();
        self.maintain_ticks();
        let out = system.run_with(input, self);
        system.apply_deferred(self);
        self.flush();
        Ok(out)
    }
}
