//! [`Extension`]: a value the world keeps for a floor above the core (the event queues,
//! the one-shot systems), of a type the core does not name. The floor that defines the
//! type installs it when a world is made (`World::new`) and reaches it by type.

use std::any::{Any, TypeId};

/// One value of a type the core does not name. Reaching it by type costs one
/// comparison of type ids (kept beside the value, so no call through the box).
pub(crate) struct Extension {
    type_id: TypeId,
    value: Box<dyn Any + Send + Sync>,
}

impl Extension {
    /// `value`, kept by type.
    pub(crate) fn new<T: Any + Send + Sync>(value: T) -> Extension {
        Extension { type_id: TypeId::of::<T>(), value: Box::new(value) }
    }

    /// An empty slot, until its floor installs a value.
    pub(crate) fn empty() -> Extension {
        Extension::new(())
    }

    /// Panics unless the slot holds a `T`.
    #[inline]
    fn expect<T: Any>(&self) {
        assert!(
            self.type_id == TypeId::of::<T>(),
            "ripple: the world's {} was not installed",
            std::any::type_name::<T>()
        );
    }

    /// The value, which is a `T`.
    ///
    /// # Panics
    /// If the slot holds no `T` (the floor that defines `T` did not install it: a bug of
    /// ripple's, since `World::new` installs every extension).
    #[inline]
    pub(crate) fn get<T: Any>(&self) -> &T {
        self.expect::<T>();
        let value: *const (dyn Any + Send + Sync) = &*self.value;
        // SAFETY: `type_id` is the id of the boxed value's type (set with it in `new`,
        // never changed apart from it), so the value is a `T`; the thin pointer is its
        // address.
        unsafe { &*value.cast::<T>() }
    }

    /// The value, which is a `T`, mutably.
    ///
    /// # Panics
    /// As [`get`](Self::get).
    #[inline]
    pub(crate) fn get_mut<T: Any>(&mut self) -> &mut T {
        self.expect::<T>();
        let value: *mut (dyn Any + Send + Sync) = &mut *self.value;
        // SAFETY: as in `get`; borrowed exclusively through `self`.
        unsafe { &mut *value.cast::<T>() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_reached_by_its_own_type_only() {
        let mut slot = Extension::new(vec![1u32, 2]);
        slot.get_mut::<Vec<u32>>().push(3);
        assert_eq!(slot.get::<Vec<u32>>(), &[1, 2, 3]);
        let wrong = std::panic::catch_unwind(|| {
            Extension::empty().get::<Vec<u32>>();
        });
        assert!(wrong.is_err(), "an empty slot is no Vec");
    }
}
