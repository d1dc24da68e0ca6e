//! The rename a write runs under: the saving side's counterpart of the remap a load
//! runs under ([`load_remap`](super::load_remap)).
//!
//! Components refer to entities through plain `Entity` fields, so a writer that must
//! not show the world's own handles (replication, which names entities to each peer
//! by handles of that peer's own) renames them where serde writes an `Entity`: it
//! installs a [`Rename`] for this thread, and `Entity`'s `Serialize` passes every
//! handle it writes through [`saved`]. With nothing installed (a scene save), handles
//! are written as they are.

use std::any::Any;
use std::cell::RefCell;

use crate::entity::Entity;

/// Gives the handle an entity is written as.
pub(crate) trait Rename: Any {
    /// The handle `entity` is written as.
    fn rename(&mut self, entity: Entity) -> Entity;
}

thread_local! {
    static ACTIVE: RefCell<Option<Box<dyn Rename>>> = const { RefCell::new(None) };
}

/// Installs `rename` for this thread; [`uninstall`] hands it back. The box moves in and
/// out, so installing allocates nothing.
pub(crate) fn install(rename: Box<dyn Rename>) {
    ACTIVE.with(|active| *active.borrow_mut() = Some(rename));
}

/// Takes back what [`install`] installed on this thread, if anything.
pub(crate) fn uninstall() -> Option<Box<dyn Rename>> {
    // `try_with`: during thread teardown the slot may be gone already.
    ACTIVE.try_with(|active| active.borrow_mut().take()).ok().flatten()
}

/// A rename lent to this thread from its home (`home` holds it between loans) until the
/// loan is dropped, a panic in a value's `Serialize` included; then it goes back home.
pub(crate) struct Lent<'a, T: Rename> {
    home: &'a mut Option<Box<T>>,
}

impl<'a, T: Rename> Lent<'a, T> {
    /// Lends the rename `home` holds.
    ///
    /// # Panics
    /// If `home` is empty (a loan not given back: a bug of ripple's).
    pub(crate) fn new(home: &'a mut Option<Box<T>>) -> Lent<'a, T> {
        install(home.take().expect("ripple: a rename is home between loans"));
        Lent { home }
    }
}

impl<T: Rename> Drop for Lent<'_, T> {
    fn drop(&mut self) {
        if let Some(back) = uninstall() {
            let back: Box<dyn Any> = back;
            if let Ok(rename) = back.downcast::<T>() {
                *self.home = Some(rename);
            }
        }
    }
}

/// `entity` as written: renamed while a rename is installed on this thread, unchanged
/// otherwise.
#[inline]
pub(crate) fn saved(entity: Entity) -> Entity {
    ACTIVE.with(|active| match active.try_borrow_mut() {
        Ok(mut rename) => match rename.as_mut() {
            Some(rename) => rename.rename(entity),
            None => entity,
        },
        // A `Serialize` impl that writes an entity from inside the rename itself
        // cannot come from the writer; write the handle as it is.
        Err(_) => entity,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Shift(u32);

    impl Rename for Shift {
        fn rename(&mut self, entity: Entity) -> Entity {
            self.0 += 1;
            Entity::from_bits(entity.to_bits() + 1).unwrap()
        }
    }

    #[test]
    fn entities_are_renamed_while_installed_and_the_rename_comes_back() {
        let e = Entity::from_bits((1 << 32) | 5).unwrap();
        assert_eq!(saved(e), e);
        install(Box::new(Shift(0)));
        assert_eq!(postcard::to_stdvec(&e).unwrap(), postcard::to_stdvec(&((1u64 << 32) | 6)).unwrap());
        let back: Box<dyn Any> = uninstall().unwrap();
        assert_eq!(back.downcast::<Shift>().unwrap().0, 1);
        assert_eq!(saved(e), e);
        assert!(uninstall().is_none());
    }

    #[test]
    fn a_loan_comes_home_after_a_panic() {
        let mut home = Some(Box::new(Shift(0)));
        let e = Entity::from_bits((1 << 32) | 5).unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _lent = Lent::new(&mut home);
            let _ = saved(e);
            panic!("a value's Serialize");
        }));
        assert!(result.is_err());
        assert_eq!(home.map(|shift| shift.0), Some(1), "home, with what it counted");
        assert_eq!(saved(e), e, "uninstalled");
    }
}
