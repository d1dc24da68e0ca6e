//! Run conditions: read-only systems that return `bool`, deciding whether a system
//! (or every system of a set) runs this time.

use std::borrow::Cow;
use std::marker::PhantomData;

use crate::component::Component;
use crate::event::{Event, EventReader};
use crate::query::{QueryFilter, QueryState, ReadOnlyQueryData};
use crate::world::World;

use super::access::SystemAccess;
use super::function::{IsFunctionSystem, SystemParamFunction, init_params, short_name};
use super::param::{Local, Removed, SystemMeta, SystemParam};
use super::query_param::Query;
use super::res::Res;

/// A system parameter that writes nothing in the world, so that a run condition may
/// take it: [`Res`], `Option<Res>`, [`Local`], [`Query`] of read-only data,
/// [`EventReader`], [`Removed`], and tuples of these.
///
/// (A parameter that only reads may still keep memory of its own, as an event
/// reader's cursor or a change filter's last run.) A condition's parameters are never
/// asked to apply deferred work ([`SystemParam::apply`] is not called), so a parameter
/// that defers (as [`Commands`](crate::Commands) does) must not implement this trait.
pub trait ReadOnlySystemParam: SystemParam {}

impl<T: Send + Sync + 'static> ReadOnlySystemParam for Res<'_, T> {}
impl<T: Send + Sync + 'static> ReadOnlySystemParam for Option<Res<'_, T>> {}
impl<T: Default + Send + 'static> ReadOnlySystemParam for Local<'_, T> {}
impl<T: Component> ReadOnlySystemParam for Removed<'_, '_, T> {}
impl<E: Event> ReadOnlySystemParam for EventReader<'_, '_, E> {}
impl<Q: ReadOnlyQueryData + 'static, F: QueryFilter + 'static> ReadOnlySystemParam for Query<'_, '_, Q, F> where
    QueryState<Q, F>: Send
{
}

macro_rules! impl_read_only_tuple {
    ($($name:ident),*) => {
        impl<$($name: ReadOnlySystemParam),*> ReadOnlySystemParam for ($($name,)*) {}
    };
}

crate::tuples::for_each_tuple_prefix!(impl_read_only_tuple; A, B, C, D, E, F, G, H, I, J, K, L);

/// A run condition, ready to be attached to a system or a set with `run_if`. Made
/// from any function of [read-only parameters](ReadOnlySystemParam) returning `bool`
/// (closures too), or negated with [`not`].
pub struct Condition {
    inner: Box<dyn ConditionFn>,
    negated: bool,
}

impl std::fmt::Debug for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Condition").field("name", &self.name()).field("negated", &self.negated).finish()
    }
}

impl Condition {
    /// The condition's name: its function's, behind `not ` if negated.
    pub fn name(&self) -> Cow<'_, str> {
        if self.negated { Cow::Owned(format!("not {}", self.inner.name())) } else { Cow::Borrowed(self.inner.name()) }
    }

    /// Prepares the condition for `world`.
    ///
    /// # Errors
    /// The conflicts between the condition's own parameters.
    pub(crate) fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        self.inner.initialize(world)
    }

    /// What the condition reads.
    pub(crate) fn access(&self) -> &SystemAccess {
        self.inner.access()
    }

    /// Evaluates the condition.
    ///
    /// # Safety
    /// The condition was initialized with `world`, and no system writing what it
    /// reads runs meanwhile.
    #[inline]
    pub(crate) unsafe fn evaluate(&mut self, world: &World) -> bool {
        // SAFETY: per the caller.
        (unsafe { self.inner.evaluate(world) }) != self.negated
    }
}

/// The object-safe face of a condition made from a function.
trait ConditionFn: Send {
    fn name(&self) -> &str;
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>>;
    fn access(&self) -> &SystemAccess;
    /// # Safety
    /// As [`Condition::evaluate`].
    unsafe fn evaluate(&mut self, world: &World) -> bool;
}

struct FunctionCondition<Marker, F: SystemParamFunction<Marker, Out = bool>> {
    function: F,
    state: Option<<F::Param as SystemParam>::State>,
    meta: SystemMeta,
    _marker: PhantomData<fn() -> Marker>,
}

impl<Marker: 'static, F: SystemParamFunction<Marker, Out = bool>> ConditionFn for FunctionCondition<Marker, F> {
    fn name(&self) -> &str {
        &self.meta.name
    }
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        init_params::<F::Param>(&mut self.state, world, &mut self.meta)
    }
    fn access(&self) -> &SystemAccess {
        &self.meta.access
    }
    #[inline]
    unsafe fn evaluate(&mut self, world: &World) -> bool {
        let state = self.state.as_mut().expect("condition initialized before it is evaluated");
        // SAFETY: the caller keeps writers of what the condition declared out while it
        // runs.
        let params = unsafe { F::Param::get(state, world, &self.meta) };
        self.function.call(params)
    }
}

/// Conversion into a [`Condition`]: implemented for functions of
/// [read-only parameters](ReadOnlySystemParam) returning `bool`.
pub trait IntoCondition<Marker>: Sized {
    /// The condition.
    fn into_condition(self) -> Condition;
}

impl IntoCondition<()> for Condition {
    fn into_condition(self) -> Condition {
        self
    }
}

impl<Marker: 'static, F> IntoCondition<(IsFunctionSystem, Marker)> for F
where
    F: SystemParamFunction<Marker, Out = bool>,
    F::Param: ReadOnlySystemParam,
{
    fn into_condition(self) -> Condition {
        let inner = FunctionCondition::<Marker, F> {
            function: self,
            state: None,
            meta: SystemMeta::new(short_name::<F>()),
            _marker: PhantomData,
        };
        Condition { inner: Box::new(inner), negated: false }
    }
}

/// The opposite of `condition`.
///
/// ```
/// use ripple::{IntoSystemConfig, Schedule, World, not, resource_exists};
/// struct Paused;
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule.add_system(&mut world, (|| {}).run_if(not(resource_exists::<Paused>))).unwrap();
/// ```
pub fn not<M>(condition: impl IntoCondition<M>) -> Condition {
    let mut condition = condition.into_condition();
    condition.negated = !condition.negated;
    condition
}

/// A run condition: whether the world has a resource `T`.
pub fn resource_exists<T: Send + Sync + 'static>(resource: Option<Res<'_, T>>) -> bool {
    resource.is_some()
}

/// A run condition: whether resource `T` was inserted or written since this condition
/// was last evaluated (false while the world has no `T`).
pub fn resource_changed<T: Send + Sync + 'static>(resource: Option<Res<'_, T>>) -> bool {
    resource.is_some_and(|resource| resource.is_changed())
}

/// A run condition: whether resource `T` was inserted since this condition was last
/// evaluated.
pub fn resource_added<T: Send + Sync + 'static>(resource: Option<Res<'_, T>>) -> bool {
    resource.is_some_and(|resource| resource.is_added())
}

/// A run condition: whether events of type `E` were delivered since this condition
/// was last evaluated. It reads them (with a reader of its own), so each batch
/// makes it true once; the system it guards reads them with its own reader.
pub fn on_event<E: Event>(mut events: EventReader<'_, '_, E>) -> bool {
    let any = !events.is_empty();
    events.clear();
    any
}

/// A run condition: whether any entity matches query `Q` with filter `F` (for
/// example `any_match::<(), With<Player>>`).
pub fn any_match<Q: ReadOnlyQueryData + 'static, F: QueryFilter + 'static>(mut query: Query<'_, '_, Q, F>) -> bool
where
    QueryState<Q, F>: Send,
{
    query.iter().next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_flips_and_names() {
        let mut world = World::new();
        let mut yes = (|| true).into_condition();
        let mut no = not(|| true);
        yes.initialize(&mut world).unwrap();
        no.initialize(&mut world).unwrap();
        // SAFETY: nothing else runs.
        unsafe {
            assert!(yes.evaluate(&world));
            assert!(!no.evaluate(&world));
        }
        assert!(no.name().starts_with("not "));
    }

    #[test]
    fn resource_conditions() {
        struct Score(u32);
        let mut world = World::new();
        let mut exists = resource_exists::<Score>.into_condition();
        let mut changed = resource_changed::<Score>.into_condition();
        exists.initialize(&mut world).unwrap();
        changed.initialize(&mut world).unwrap();
        // SAFETY: nothing else runs.
        unsafe {
            assert!(!exists.evaluate(&world));
            assert!(!changed.evaluate(&world));
        }
        world.insert_resource(Score(1));
        // SAFETY: nothing else runs.
        unsafe {
            assert!(exists.evaluate(&world));
            assert!(changed.evaluate(&world));
            assert!(!changed.evaluate(&world), "seen once");
        }
        world.resource_mut::<Score>().unwrap().0 = 2;
        // SAFETY: nothing else runs.
        unsafe {
            assert!(changed.evaluate(&world));
        }
    }
}
