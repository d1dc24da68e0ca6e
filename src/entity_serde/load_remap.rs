//! The remap a load runs under, as the core sees it: two functions, installed on this
//! thread while a load (a scene, a replicated delta) reads its data. `Entity`'s
//! `Deserialize` passes every handle it reads through [`loaded`], and a check made
//! before the load's entities exist (a data command of a level) asks [`is_upcoming`];
//! with nothing installed, handles are read as they are and nothing is upcoming.
//!
//! The core holds only function pointers: the remap itself, and what it knows of the
//! load, belong to the loader, which installs its functions and restores the previous
//! ones when it is done (also by a panic).

use std::cell::Cell;

use crate::entity::Entity;

/// What a loader installs.
#[derive(Clone, Copy)]
pub(crate) struct Hooks {
    /// Gives the handle an entity read from data stands for.
    pub(crate) remap: fn(Entity) -> Entity,
    /// Whether an entity will be alive once the load commits.
    pub(crate) is_upcoming: fn(Entity) -> bool,
}

thread_local! {
    static ACTIVE: Cell<Option<Hooks>> = const { Cell::new(None) };
}

/// Installs `hooks` (or none) for this thread and returns what was installed before,
/// for the caller to put back.
pub(crate) fn replace(hooks: Option<Hooks>) -> Option<Hooks> {
    // `try_with`: during thread teardown the slot may be gone already.
    ACTIVE.try_with(|active| active.replace(hooks)).ok().flatten()
}

/// `entity` as read from data: remapped while a load runs on this thread, unchanged
/// otherwise.
#[inline]
pub(crate) fn loaded(entity: Entity) -> Entity {
    match ACTIVE.with(Cell::get) {
        Some(hooks) => (hooks.remap)(entity),
        None => entity,
    }
}

/// Whether `entity` will be alive once the load running on this thread commits (false
/// when no load runs).
pub(crate) fn is_upcoming(entity: Entity) -> bool {
    ACTIVE.with(Cell::get).is_some_and(|hooks| (hooks.is_upcoming)(entity))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next(entity: Entity) -> Entity {
        Entity::from_bits(entity.to_bits() + 1).unwrap()
    }

    fn odd(entity: Entity) -> bool {
        entity.index() % 2 == 1
    }

    #[test]
    fn entities_are_remapped_while_hooks_are_installed() {
        let e = Entity::from_bits((1 << 32) | 5).unwrap();
        assert_eq!(loaded(e), e);
        assert!(!is_upcoming(e));
        let before = replace(Some(Hooks { remap: next, is_upcoming: odd }));
        assert!(before.is_none());
        assert_eq!(loaded(e).index(), 6);
        assert!(is_upcoming(e));
        assert!(replace(before).is_some());
        assert_eq!(loaded(e), e);
        assert!(!is_upcoming(e));
    }
}
