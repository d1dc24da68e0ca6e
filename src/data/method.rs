//! Typed methods behind names: a Rust function `fn(&mut Api, T1, .., Tn)` becomes a
//! method that reads its arguments from raw JSON into `T1, .., Tn` with serde.

use std::any::{Any, type_name};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::entity::Entity;
use crate::world::World;

use super::parse::RawCommand;

/// An argument that could not be read.
pub(crate) struct ArgFailure {
    pub(crate) index: usize,
    pub(crate) expected: &'static str,
    pub(crate) message: String,
}

/// Why running a method failed (before anything changed).
pub(crate) enum RunFailure {
    Argument(ArgFailure),
    NotPublished,
}

/// serde_json's message without its "at line L column C": positions inside one
/// argument's text would mislead a reader looking at the whole input.
pub(crate) fn without_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rfind(" at line ") {
        Some(at) if error.line() > 0 => message[..at].to_owned(),
        _ => message,
    }
}

/// Reads argument `index` as a `T`; an `Entity` must also be alive in `world`, and an
/// `f32` within its range (serde reads a JSON number as an `f64` and narrows it, which
/// turns `1e39` into infinity; JSON itself has no infinities).
fn read_arg<T: DeserializeOwned + 'static>(world: &World, raw: &RawValue, index: usize) -> Result<T, ArgFailure> {
    let failure = |message: String| ArgFailure { index, expected: type_name::<T>(), message };
    let value: T = serde_json::from_str(raw.get()).map_err(|e| failure(without_position(&e)))?;
    if let Some(number) = (&value as &dyn Any).downcast_ref::<f32>()
        && number.is_infinite()
    {
        return Err(failure(format!("number {} is out of range for f32", raw.get())));
    }
    if let Some(&entity) = (&value as &dyn Any).downcast_ref::<Entity>() {
        // A level's commands are checked before its entities exist.
        if !world.contains(entity) && !crate::entity_serde::load_remap::is_upcoming(entity) {
            return Err(failure(format!("entity {entity} is not alive")));
        }
    }
    Ok(value)
}

/// A Rust function usable as a data method on API `A`, taking parameters `P` (a
/// tuple of up to 8 types that serde can read). Implemented for every
/// `Fn(&mut A, T1, .., Tn) + Send + Sync + 'static`, so methods register as plain
/// paths: `.method("apply_damage", HealthApi::apply_damage)`.
pub trait DataMethod<A, P>: Send + Sync + 'static {
    /// The parameter types, for messages.
    fn param_types() -> Vec<&'static str>;
    /// The method with its types erased, for the registry.
    #[doc(hidden)]
    fn into_method(self) -> MethodBox;
}

/// A registered method with its types erased (an implementation detail of
/// [`DataMethod`]).
#[doc(hidden)]
pub struct MethodBox(pub(crate) Box<dyn ErasedMethod>);

/// A command whose arguments have been read and checked: running it calls the
/// method with those very values.
pub(crate) type PreparedCall<'m> = Box<dyn FnOnce(&mut World) -> Result<(), RunFailure> + 'm>;

/// A method with its types erased. Every way of running it reads each argument once
/// and calls the method with the values read.
pub(crate) trait ErasedMethod: Send + Sync {
    /// Reads every argument and checks the API is published, changing nothing.
    fn check(&self, world: &World, command: &RawCommand<'_>) -> Result<(), RunFailure>;
    /// Reads every argument, then calls the method on the world's API.
    fn run(&self, world: &mut World, command: &RawCommand<'_>) -> Result<(), RunFailure>;
    /// As `check`, keeping the values read at the back of this method's queue of
    /// staged calls (whose memory is kept, so a steady stream of batches allocates
    /// nothing).
    fn stage(&self, world: &World, command: &RawCommand<'_>) -> Result<(), RunFailure>;
    /// Calls the method with the values at the front of the queue of staged calls.
    fn run_staged(&self, world: &mut World) -> Result<(), RunFailure>;
    /// Forgets every staged call (a batch was refused, or a method panicked).
    fn clear_staged(&self);
    /// Like `check`, keeping the values in the call it returns: for a batch that
    /// cannot use the queue (one already runs on this registry).
    fn prepare<'m>(&'m self, world: &World, command: &RawCommand<'_>) -> Result<PreparedCall<'m>, RunFailure>;
}

/// The typed implementation of one registered method.
struct TypedMethod<A, P, F> {
    function: F,
    /// Argument values read by a batch's check, waiting for its run.
    staged: Mutex<VecDeque<P>>,
    _types: PhantomData<fn(A)>,
}

/// Locks a queue of staged calls; a panic cannot leave one half-updated (no user
/// code runs under the lock), so a poisoned lock is taken as it is.
fn lock<P>(staged: &Mutex<VecDeque<P>>) -> MutexGuard<'_, VecDeque<P>> {
    staged.lock().unwrap_or_else(PoisonError::into_inner)
}

macro_rules! impl_data_method {
    ($($param:ident $index:tt),*) => {
        impl<A, F, $($param),*> DataMethod<A, ($($param,)*)> for F
        where
            A: Send + Sync + 'static,
            F: Fn(&mut A, $($param),*) + Send + Sync + 'static,
            $($param: DeserializeOwned + Send + 'static,)*
        {
            fn param_types() -> Vec<&'static str> {
                vec![$(type_name::<$param>()),*]
            }
            fn into_method(self) -> MethodBox {
                MethodBox(Box::new(TypedMethod { function: self, staged: Mutex::new(VecDeque::new()), _types: PhantomData }))
            }
        }

        impl<A, F, $($param),*> TypedMethod<A, ($($param,)*), F>
        where
            A: Send + Sync + 'static,
            F: Fn(&mut A, $($param),*) + Send + Sync + 'static,
            $($param: DeserializeOwned + Send + 'static,)*
        {
            /// Reads every argument, once, and checks the API is published.
            #[allow(unused_variables, clippy::unused_unit, reason = "methods without parameters")]
            fn read(world: &World, command: &RawCommand<'_>) -> Result<($($param,)*), RunFailure> {
                let values = ($(read_arg::<$param>(world, command.arg($index), $index).map_err(RunFailure::Argument)?,)*);
                if !world.contains_resource::<A>() {
                    return Err(RunFailure::NotPublished);
                }
                Ok(values)
            }

            /// Calls the method with values read by `read`.
            #[allow(unused_variables, non_snake_case, reason = "methods without parameters; values named after types")]
            fn call(&self, world: &mut World, values: ($($param,)*)) -> Result<(), RunFailure> {
                let ($($param,)*) = values;
                // Published when the values were read, and methods reach only their own
                // API, so it still is.
                let api = world.resource_mut::<A>().map_err(|_| RunFailure::NotPublished)?;
                (self.function)(api, $($param),*);
                Ok(())
            }
        }

        impl<A, F, $($param),*> ErasedMethod for TypedMethod<A, ($($param,)*), F>
        where
            A: Send + Sync + 'static,
            F: Fn(&mut A, $($param),*) + Send + Sync + 'static,
            $($param: DeserializeOwned + Send + 'static,)*
        {
            fn check(&self, world: &World, command: &RawCommand<'_>) -> Result<(), RunFailure> {
                Self::read(world, command).map(drop)
            }
            fn run(&self, world: &mut World, command: &RawCommand<'_>) -> Result<(), RunFailure> {
                let values = Self::read(world, command)?;
                self.call(world, values)
            }
            fn stage(&self, world: &World, command: &RawCommand<'_>) -> Result<(), RunFailure> {
                let values = Self::read(world, command)?;
                lock(&self.staged).push_back(values);
                Ok(())
            }
            fn run_staged(&self, world: &mut World) -> Result<(), RunFailure> {
                // The batch's check staged one call per command of this method, and
                // the batch holds the registry's queues until its run ends.
                let values = lock(&self.staged).pop_front().expect("ripple: a batch stages one call per command");
                self.call(world, values)
            }
            fn clear_staged(&self) {
                lock(&self.staged).clear();
            }

            fn prepare<'m>(&'m self, world: &World, command: &RawCommand<'_>) -> Result<PreparedCall<'m>, RunFailure> {
                let values = Self::read(world, command)?;
                Ok(Box::new(move |world: &mut World| self.call(world, values)))
            }
        }
    };
}

crate::util::tuples::for_each_indexed_tuple_prefix!(impl_data_method; T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7);
