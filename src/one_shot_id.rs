//! [`OneShotId`]: the handle of a one-shot system. The core names it (the world keeps
//! its one-shot systems, and a refused run queued as a command is recorded with it);
//! the systems floor registers and runs them.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

/// Identifies a system registered with
/// [`World::register_system`](crate::World::register_system), which takes `I`
/// ([`In`](crate::system::In), [`InRef`](crate::system::InRef), [`InMut`](crate::system::InMut), or `()` for no
/// input) and returns `O`. Never reused, so a handle to an unregistered system stays
/// invalid.
pub struct OneShotId<I = (), O = ()> {
    pub(crate) index: u32,
    _types: PhantomData<fn(I) -> O>,
}

impl<I, O> OneShotId<I, O> {
    pub(crate) fn new(index: u32) -> Self {
        OneShotId { index, _types: PhantomData }
    }

    /// The same handle without its input and output types, as errors name it.
    pub fn untyped(self) -> OneShotId {
        OneShotId::new(self.index)
    }
}

impl<I, O> Clone for OneShotId<I, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I, O> Copy for OneShotId<I, O> {}

impl<I, O> PartialEq for OneShotId<I, O> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl<I, O> Eq for OneShotId<I, O> {}

impl<I, O> PartialOrd for OneShotId<I, O> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<I, O> Ord for OneShotId<I, O> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}

impl<I, O> Hash for OneShotId<I, O> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl<I, O> fmt::Debug for OneShotId<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OneShotId({})", self.index)
    }
}
