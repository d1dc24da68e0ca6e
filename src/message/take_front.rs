//! Taking a batch of messages out of a vector one by one, front first, such that
//! whatever is not taken yet stays in the vector if the taker stops early (a panic in
//! a merge policy's `key` or `combine`): `Vec::drain` would drop it instead.

use std::ptr;

/// Hands out the messages of a vector by value, front first; when dropped, the ones not
/// handed out are moved to the vector's front and stay there.
pub(crate) struct TakeFront<'a, E> {
    vec: &'a mut Vec<E>,
    /// Messages handed out: moved out of `vec[..taken]`.
    taken: usize,
    /// Messages the vector held: `vec`'s length is 0 until the drop.
    len: usize,
}

impl<'a, E> TakeFront<'a, E> {
    /// Starts taking `vec`'s messages. Until this is dropped, `vec` reads as empty, so
    /// that if this is leaked the messages are leaked too, never dropped twice.
    pub(crate) fn new(vec: &'a mut Vec<E>) -> Self {
        let len = vec.len();
        // SAFETY: 0 is within the capacity, and `vec[..len]` stays initialized until
        // handed out or moved back by `drop`.
        unsafe { vec.set_len(0) };
        TakeFront { vec, taken: 0, len }
    }
}

impl<E> TakeFront<'_, E> {
    /// Messages not handed out yet.
    #[inline(always)]
    pub(crate) fn remaining(&self) -> usize {
        self.len - self.taken
    }

    /// The message `n` places after the next one to be handed out, if there is one
    /// (for loading what it will need ahead of time).
    #[inline(always)]
    pub(crate) fn peek(&self, n: usize) -> Option<&E> {
        let at = self.taken + n;
        // SAFETY: `vec[at]` is initialized and not handed out (`taken <= at < len`); the
        // reference lives no longer than `&self`, during which nothing is taken.
        (at < self.len).then(|| unsafe { &*self.vec.as_ptr().add(at) })
    }
}

impl<E> Iterator for TakeFront<'_, E> {
    type Item = E;

    #[inline(always)]
    fn next(&mut self) -> Option<E> {
        if self.taken == self.len {
            return None;
        }
        // SAFETY: `taken < len`, and `vec[taken]` is initialized and was never handed
        // out: each is read once, as `taken` advances past it.
        let message = unsafe { ptr::read(self.vec.as_ptr().add(self.taken)) };
        self.taken += 1;
        Some(message)
    }
}

impl<E> Drop for TakeFront<'_, E> {
    fn drop(&mut self) {
        let rest = self.len - self.taken;
        // SAFETY: `vec[taken..len]` is initialized and not handed out; moving it to the
        // front (the ranges may overlap: `ptr::copy`) and setting the length to `rest`
        // leaves exactly the messages not taken, each once, within the capacity.
        unsafe {
            let base = self.vec.as_mut_ptr();
            ptr::copy(base.add(self.taken), base, rest);
            self.vec.set_len(rest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_taken_stays_front_first() {
        let mut vec: Vec<String> = (0..5).map(|i| i.to_string()).collect();
        let mut take = TakeFront::new(&mut vec);
        assert_eq!(take.next().as_deref(), Some("0"));
        assert_eq!(take.next().as_deref(), Some("1"));
        drop(take);
        assert_eq!(vec, ["2", "3", "4"]);
        let taken: Vec<String> = TakeFront::new(&mut vec).collect();
        assert_eq!((taken.len(), vec.len()), (3, 0));
    }

    #[test]
    fn a_panic_while_taking_keeps_the_rest() {
        let mut vec: Vec<String> = (0..4).map(|i| i.to_string()).collect();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for message in TakeFront::new(&mut vec) {
                assert_ne!(message, "1", "the taker fails on the second message");
            }
        }));
        assert!(result.is_err());
        assert_eq!(vec, ["2", "3"], "the failed one is lost, the rest kept in order");
    }
}
