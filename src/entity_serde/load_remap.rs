//! The remap a load runs under, as the core sees it: a function that gives the handle an
//! entity read from data stands for, installed on this thread while a load (a scene, a
//! replicated delta) deserializes. `Entity`'s `Deserialize` passes every handle it
//! reads through [`loaded`]; with nothing installed, handles are read as they are.
//!
//! The core holds only a function pointer: the remap itself, and what it knows of the
//! load, belong to the loader, which installs its function and restores the previous
//! one when it is done (also by a panic).

use std::cell::Cell;

use crate::entity::Entity;

/// Gives the handle an entity read from data stands for.
pub(crate) type Remap = fn(Entity) -> Entity;

thread_local! {
    static ACTIVE: Cell<Option<Remap>> = const { Cell::new(None) };
}

/// Installs `remap` (or none) for this thread and returns what was installed before,
/// for the caller to put back.
pub(crate) fn replace(remap: Option<Remap>) -> Option<Remap> {
    // `try_with`: during thread teardown the slot may be gone already.
    ACTIVE.try_with(|active| active.replace(remap)).ok().flatten()
}

/// `entity` as read from data: remapped while a load runs on this thread, unchanged
/// otherwise.
#[inline]
pub(crate) fn loaded(entity: Entity) -> Entity {
    match ACTIVE.with(Cell::get) {
        Some(remap) => remap(entity),
        None => entity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next(entity: Entity) -> Entity {
        Entity::from_bits(entity.to_bits() + 1).unwrap()
    }

    #[test]
    fn entities_are_remapped_while_a_remap_is_installed() {
        let e = Entity::from_bits((1 << 32) | 5).unwrap();
        assert_eq!(loaded(e), e);
        let before = replace(Some(next));
        assert!(before.is_none());
        assert_eq!(loaded(e).index(), 6);
        assert_eq!(replace(before).map(|f| f(e)), Some(next(e)));
        assert_eq!(loaded(e), e);
    }
}
