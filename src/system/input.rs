//! System input: a value handed to a system by whoever runs it ([`In`], [`InRef`],
//! [`InMut`]), taken as the system function's first parameter.

use std::ops::{Deref, DerefMut};

/// What a system takes as input, named by its function's first parameter: `()` (no
/// input), [`In<T>`], [`InRef<T>`] or [`InMut<T>`]. The caller hands over an
/// [`Inner`](Self::Inner) value ([`World::run_system_with`](crate::World::run_system_with),
/// or the output of the system before it in a [`pipe`](crate::system::IntoIoSystem::pipe)); the
/// function receives it wrapped as [`Param`](Self::Param).
pub trait SystemInput: Sized + 'static {
    /// What the system function receives.
    type Param<'i>;
    /// What the caller hands over.
    type Inner<'i>;
    /// Wraps the caller's value for the function.
    fn wrap(inner: Self::Inner<'_>) -> Self::Param<'_>;
}

impl SystemInput for () {
    type Param<'i> = ();
    type Inner<'i> = ();
    fn wrap((): Self::Inner<'_>) -> Self::Param<'_> {}
}

/// A system input taken by value: `fn double(In(x): In<u32>) -> u32 { x * 2 }`.
///
/// ```
/// use ripple::World;
/// use ripple::system::In;
/// let mut world = World::new();
/// let double = world.register_system(|In(x): In<u32>| x * 2).unwrap();
/// assert_eq!(world.run_system_with(double, 21), Ok(42));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct In<T>(pub T);

impl<T: 'static> SystemInput for In<T> {
    type Param<'i> = In<T>;
    type Inner<'i> = T;
    fn wrap(inner: Self::Inner<'_>) -> Self::Param<'_> {
        In(inner)
    }
}

impl<T> Deref for In<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for In<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// A system input borrowed for the run: the caller keeps the value.
///
/// ```
/// use ripple::World;
/// use ripple::system::InRef;
/// let mut world = World::new();
/// let total = world.register_system(|InRef(values): InRef<[u32]>| values.iter().sum::<u32>()).unwrap();
/// let values = vec![1, 2, 3];
/// assert_eq!(world.run_system_with(total, &values), Ok(6));
/// ```
#[derive(Debug)]
pub struct InRef<'i, T: ?Sized>(pub &'i T);

impl<T: ?Sized + 'static> SystemInput for InRef<'static, T> {
    type Param<'i> = InRef<'i, T>;
    type Inner<'i> = &'i T;
    fn wrap(inner: Self::Inner<'_>) -> Self::Param<'_> {
        InRef(inner)
    }
}

impl<T: ?Sized> Deref for InRef<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
    }
}

/// A system input borrowed mutably for the run: the system may write the caller's
/// value.
///
/// ```
/// use ripple::World;
/// use ripple::system::InMut;
/// let mut world = World::new();
/// let push = world.register_system(|InMut(log): InMut<Vec<u32>>| log.push(7)).unwrap();
/// let mut log = Vec::new();
/// world.run_system_with(push, &mut log).unwrap();
/// assert_eq!(log, [7]);
/// ```
#[derive(Debug)]
pub struct InMut<'i, T: ?Sized>(pub &'i mut T);

impl<T: ?Sized + 'static> SystemInput for InMut<'static, T> {
    type Param<'i> = InMut<'i, T>;
    type Inner<'i> = &'i mut T;
    fn wrap(inner: Self::Inner<'_>) -> Self::Param<'_> {
        InMut(inner)
    }
}

impl<T: ?Sized> Deref for InMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
    }
}

impl<T: ?Sized> DerefMut for InMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

/// The input type a system with input `I` is handed: `SystemIn<'_, In<u32>>` is `u32`.
pub type SystemIn<'i, I> = <I as SystemInput>::Inner<'i>;
