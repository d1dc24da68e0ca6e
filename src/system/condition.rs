//! Run conditions: read-only systems that return `bool`, deciding whether a system
//! (or every system of a set) runs this time.

use std::borrow::Cow;
use std::marker::PhantomData;

use crate::component::Component;
use crate::query::{QueryFilter, QueryState, ReadOnlyQueryData};
use crate::world::World;

use super::access::SystemAccess;
use super::function::{IsFunctionSystem, SystemParamFunction, init_params, short_name};
use super::param::{Local, Removed, SystemMeta, SystemParam};
use super::query_param::Query;
use super::res::Res;

/// A system parameter that writes nothing in the world, so that a run condition may
/// take it: [`Res`], `Option<Res>`, [`Local`], [`Query`] of read-only data,
/// [`MessageReader`](crate::message::MessageReader), [`Removed`], and tuples of these.
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
impl<Q: ReadOnlyQueryData + 'static, F: QueryFilter + 'static> ReadOnlySystemParam for Query<'_, '_, Q, F> where
    QueryState<Q, F>: Send
{
}

macro_rules! impl_read_only_tuple {
    ($($name:ident),*) => {
        impl<$($name: ReadOnlySystemParam),*> ReadOnlySystemParam for ($($name,)*) {}
    };
}

crate::util::tuples::for_each_tuple_prefix!(impl_read_only_tuple; A, B, C, D, E, F, G, H, I, J, K, L);

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

struct FunctionCondition<Marker, F: SystemParamFunction<Marker, In = (), Out = bool>> {
    function: F,
    state: Option<<F::Param as SystemParam>::State>,
    meta: SystemMeta,
    _marker: PhantomData<fn() -> Marker>,
}

impl<Marker: 'static, F: SystemParamFunction<Marker, In = (), Out = bool>> ConditionFn
    for FunctionCondition<Marker, F>
{
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
        self.function.call((), params)
    }
}

/// How [`Combined`] joins its two conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Join {
    And,
    Or,
    Nand,
    Nor,
    Xor,
    Xnor,
}

impl Join {
    /// The joined verdict, given both conditions' verdicts.
    fn decide(self, first: bool, second: bool) -> bool {
        match self {
            Join::And => first && second,
            Join::Or => first || second,
            Join::Nand => !(first && second),
            Join::Nor => !(first || second),
            Join::Xor => first != second,
            Join::Xnor => first == second,
        }
    }

    /// Whether `first` alone decides (so a short-circuiting join skips the second).
    fn decided_by(self, first: bool) -> bool {
        match self {
            Join::And | Join::Nand => !first,
            Join::Or | Join::Nor => first,
            Join::Xor | Join::Xnor => false,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Join::And => "and",
            Join::Or => "or",
            Join::Nand => "nand",
            Join::Nor => "nor",
            Join::Xor => "xor",
            Join::Xnor => "xnor",
        }
    }
}

/// Two conditions joined: `and`, `or`, `nand` and `nor` short-circuit (the second is
/// evaluated only when the first does not decide), as bevy_ecs's `and_then`-style
/// combinators do, unless `eager` (bevy's `_eager` ones); `xor` and `xnor` evaluate
/// both.
struct Combined {
    join: Join,
    eager: bool,
    first: Condition,
    second: Condition,
    name: String,
    access: SystemAccess,
}

impl ConditionFn for Combined {
    fn name(&self) -> &str {
        &self.name
    }
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        let mut conflicts = Vec::new();
        for condition in [&mut self.first, &mut self.second] {
            if let Err(found) = condition.initialize(world) {
                conflicts.extend(found);
            }
        }
        if !conflicts.is_empty() {
            return Err(conflicts);
        }
        self.access = self.first.access().clone();
        self.access.extend(self.second.access());
        Ok(())
    }
    fn access(&self) -> &SystemAccess {
        &self.access
    }
    unsafe fn evaluate(&mut self, world: &World) -> bool {
        // SAFETY: per the caller, for both conditions, whose accesses this one's covers.
        unsafe {
            let first = self.first.evaluate(world);
            if !self.eager && self.join.decided_by(first) {
                // Any second verdict gives the same result: skip evaluating it, as
                // bevy_ecs's short-circuiting combinators do.
                return self.join.decide(first, false);
            }
            self.join.decide(first, self.second.evaluate(world))
        }
    }
}

fn combine(join: Join, first: Condition, second: Condition) -> Condition {
    combine_as(join, false, first, second)
}

fn combine_as(join: Join, eager: bool, first: Condition, second: Condition) -> Condition {
    let name = format!("({} {}{} {})", first.name(), join.symbol(), if eager { "_eager" } else { "" }, second.name());
    let inner = Combined { join, eager, first, second, name, access: SystemAccess::default() };
    Condition { inner: Box::new(inner), negated: false }
}

/// Conversion into a [`Condition`]: implemented for functions of
/// [read-only parameters](ReadOnlySystemParam) returning `bool`. Its methods join two
/// conditions into one, as bevy_ecs's `SystemCondition` combinators do.
///
/// ```
/// use ripple::World;
/// use ripple::schedule::{IntoSystemConfig, Schedule};
/// use ripple::system::{IntoCondition, resource_exists};
/// struct Menu;
/// struct Paused;
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// let gate = resource_exists::<Menu>.or(resource_exists::<Paused>);
/// schedule.add_system(&mut world, (|| println!("ui")).run_if(gate)).unwrap();
/// ```
pub trait IntoCondition<Marker>: Sized {
    /// The condition.
    fn into_condition(self) -> Condition;

    /// Holds when both hold; `other` is evaluated only when this one holds.
    fn and<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine(Join::And, self.into_condition(), other.into_condition())
    }

    /// Holds when either holds; `other` is evaluated only when this one fails.
    fn or<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine(Join::Or, self.into_condition(), other.into_condition())
    }

    /// Holds unless both hold; `other` is evaluated only when this one holds.
    fn nand<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine(Join::Nand, self.into_condition(), other.into_condition())
    }

    /// Holds when neither holds; `other` is evaluated only when this one fails.
    fn nor<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine(Join::Nor, self.into_condition(), other.into_condition())
    }

    /// Holds when exactly one holds (both are evaluated).
    fn xor<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine(Join::Xor, self.into_condition(), other.into_condition())
    }

    /// Holds when both hold or both fail (both are evaluated).
    fn xnor<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine(Join::Xnor, self.into_condition(), other.into_condition())
    }

    /// bevy_ecs 0.20's name for [`and`](Self::and).
    fn and_then<M>(self, other: impl IntoCondition<M>) -> Condition {
        self.and(other)
    }

    /// bevy_ecs 0.20's name for [`or`](Self::or).
    fn or_else<M>(self, other: impl IntoCondition<M>) -> Condition {
        self.or(other)
    }

    /// bevy_ecs 0.20's name for [`nand`](Self::nand).
    fn nand_then<M>(self, other: impl IntoCondition<M>) -> Condition {
        self.nand(other)
    }

    /// bevy_ecs 0.20's name for [`nor`](Self::nor).
    fn nor_else<M>(self, other: impl IntoCondition<M>) -> Condition {
        self.nor(other)
    }

    /// Holds when both hold; both are evaluated every time (so a condition that
    /// watches for a change never misses one).
    fn and_eager<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine_as(Join::And, true, self.into_condition(), other.into_condition())
    }

    /// Holds when either holds; both are evaluated every time.
    fn or_eager<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine_as(Join::Or, true, self.into_condition(), other.into_condition())
    }

    /// Holds unless both hold; both are evaluated every time.
    fn nand_eager<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine_as(Join::Nand, true, self.into_condition(), other.into_condition())
    }

    /// Holds when neither holds; both are evaluated every time.
    fn nor_eager<M>(self, other: impl IntoCondition<M>) -> Condition {
        combine_as(Join::Nor, true, self.into_condition(), other.into_condition())
    }
}

impl IntoCondition<()> for Condition {
    fn into_condition(self) -> Condition {
        self
    }
}

impl<Marker: 'static, F> IntoCondition<(IsFunctionSystem, Marker)> for F
where
    F: SystemParamFunction<Marker, In = (), Out = bool>,
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
/// use ripple::World;
/// use ripple::schedule::{IntoSystemConfig, Schedule};
/// use ripple::system::{not, resource_exists};
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

/// A run condition: whether any entity matches query `Q` with filter `F` (for
/// example `any_match::<(), With<Player>>`).
pub fn any_match<Q: ReadOnlyQueryData + 'static, F: QueryFilter + 'static>(query: Query<'_, '_, Q, F>) -> bool
where
    QueryState<Q, F>: Send,
{
    query.iter().next().is_some()
}

/// A run condition: true the first time it is evaluated, false ever after.
pub fn run_once(mut done: Local<'_, bool>) -> bool {
    !std::mem::replace(&mut *done, true)
}

/// A run condition: whether resource `T` equals `value`.
///
/// # Panics
/// When evaluated while the world has no `T` (as a [`Res`] parameter does); see
/// [`resource_exists_and_equals`].
pub fn resource_equals<T: PartialEq + Send + Sync + 'static>(value: T) -> impl FnMut(Res<'_, T>) -> bool + Send {
    move |resource: Res<'_, T>| *resource == value
}

/// A run condition: whether the world has a resource `T` equal to `value`.
pub fn resource_exists_and_equals<T: PartialEq + Send + Sync + 'static>(
    value: T,
) -> impl FnMut(Option<Res<'_, T>>) -> bool + Send {
    move |resource: Option<Res<'_, T>>| resource.is_some_and(|resource| *resource == value)
}

/// A run condition: whether resource `T` was removed since this condition was last
/// evaluated (it existed then and is gone now).
pub fn resource_removed<T: Send + Sync + 'static>(resource: Option<Res<'_, T>>, mut existed: Local<'_, bool>) -> bool {
    let exists = resource.is_some();
    std::mem::replace(&mut *existed, exists) && !exists
}

/// A run condition: whether resource `T` was inserted, written or removed since this
/// condition was last evaluated.
pub fn resource_changed_or_removed<T: Send + Sync + 'static>(
    resource: Option<Res<'_, T>>,
    mut existed: Local<'_, bool>,
) -> bool {
    let exists = resource.is_some();
    let removed = std::mem::replace(&mut *existed, exists) && !exists;
    removed || resource.is_some_and(|resource| resource.is_changed())
}

/// A run condition: whether any `T` was removed from an entity (or despawned with it)
/// since this condition was last evaluated. It reads the removals with a reader of
/// its own.
pub fn any_component_removed<T: Component>(mut removed: Removed<'_, '_, T>) -> bool {
    let mut removals = removed.read();
    removals.missed() > 0 || removals.next().is_some()
}

/// A condition whose answer is whether `condition`'s answer differs from the one it
/// gave the previous time (false the first time).
pub fn condition_changed<M>(condition: impl IntoCondition<M>) -> Condition {
    let inner = Watched { condition: condition.into_condition(), to: None, last: None, name: String::new() };
    Condition { inner: Box::new(inner), negated: false }
}

/// A condition that holds when `condition`'s answer changed since the previous time
/// and is now `to` (false the first time).
pub fn condition_changed_to<M>(to: bool, condition: impl IntoCondition<M>) -> Condition {
    let inner = Watched { condition: condition.into_condition(), to: Some(to), last: None, name: String::new() };
    Condition { inner: Box::new(inner), negated: false }
}

/// A condition watching another's answer for a change.
struct Watched {
    condition: Condition,
    /// The answer a change must reach to count (any, if `None`).
    to: Option<bool>,
    last: Option<bool>,
    name: String,
}

impl ConditionFn for Watched {
    fn name(&self) -> &str {
        &self.name
    }
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        self.name = format!("changed({})", self.condition.name());
        self.condition.initialize(world)
    }
    fn access(&self) -> &SystemAccess {
        self.condition.access()
    }
    unsafe fn evaluate(&mut self, world: &World) -> bool {
        // SAFETY: per the caller; the access is the watched condition's.
        let now = unsafe { self.condition.evaluate(world) };
        let changed = self.last.replace(now).is_some_and(|last| last != now);
        changed && self.to.is_none_or(|to| to == now)
    }
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
