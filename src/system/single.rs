//! [`Single`] and [`Populated`]: query parameters that skip their system when the
//! query does not match as they require (exactly one entity; at least one).

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use crate::component::ComponentId;
use crate::query::{QueryData, QueryFilter, QueryState};
use crate::storage::ArchetypeId;
use crate::world::World;

use super::param::{EntityCounts, SystemMeta, SystemParam};
use super::query_param::{Query, QueryParamState};

/// The item of the one entity that matches `D` and `F` (a system parameter). If no
/// entity or more than one matches, the system is skipped (listed in
/// [`Schedule::take_skipped_runs`](crate::schedule::Schedule::take_skipped_runs)) and a one-shot
/// run is refused with [`OneShotError::InvalidParams`](crate::system::OneShotError::InvalidParams),
/// as bevy_ecs does.
///
/// Each run is a run of the query, so change filters count from the system's last
/// run; a run that is skipped does not count (what changed is reported next time).
/// Finding the entity costs what one run of the query costs, stopped at the second
/// match.
///
/// ```
/// use ripple::World;
/// use ripple::query::With;
/// use ripple::schedule::Schedule;
/// use ripple::system::Single;
/// struct Player;
/// struct Hp(u32);
/// fn regenerate(mut hp: Single<&mut Hp, With<Player>>) {
///     hp.0 += 1;
/// }
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule.add_system(&mut world, regenerate).unwrap();
/// schedule.run(&mut world); // no player yet: skipped
/// assert_eq!(schedule.take_skipped_runs().len(), 1);
/// let player = world.spawn((Player, Hp(1)));
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Hp>(player).unwrap().0, 2);
/// ```
///
/// Inside a [`ParamSet`](super::ParamSet), hand it out once per run: a second
/// `pN()` is a second run of the query, which finds no changed entity left.
pub struct Single<'w, D: QueryData, F: QueryFilter = ()> {
    item: D::Item<'w>,
    _filter: PhantomData<F>,
}

impl<'w, D: QueryData, F: QueryFilter> Single<'w, D, F> {
    /// The item, out of the wrapper.
    pub fn into_inner(self) -> D::Item<'w> {
        self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> Deref for Single<'w, D, F> {
    type Target = D::Item<'w>;
    fn deref(&self) -> &D::Item<'w> {
        &self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> DerefMut for Single<'w, D, F> {
    fn deref_mut(&mut self) -> &mut D::Item<'w> {
        &mut self.item
    }
}

/// The parts of [`SystemParam`] a query-backed parameter takes from [`Query`]'s: its
/// state and access, and what it matches and counts.
macro_rules! query_param_parts {
    () => {
        const DEFERS: bool = false;
        fn init(world: &mut World, meta: &mut SystemMeta) -> Self::State {
            <Query<'_, '_, D, F> as SystemParam>::init(world, meta)
        }
        fn matches(
            state: &mut Self::State,
            world: &World,
            archetype: ArchetypeId,
            has_sparse: &dyn Fn(ComponentId) -> bool,
        ) -> bool {
            <Query<'_, '_, D, F> as SystemParam>::matches(state, world, archetype, has_sparse)
        }
        fn count(state: &mut Self::State, world: &World, counts: &mut EntityCounts) {
            <Query<'_, '_, D, F> as SystemParam>::count(state, world, counts);
        }
    };
}

/// How many entities one run of `query` yields, at most `limit`; the run does not
/// count (the state's memory is put back).
///
/// # Safety
/// The caller holds the access `query` declared on `world`, and nothing else uses it.
unsafe fn probe<D: QueryData, F: QueryFilter>(query: &mut QueryState<D, F>, world: &World, limit: usize) -> usize {
    let memory = query.memory();
    // SAFETY: per the caller; the items are dropped at once.
    let found = unsafe { query.iter_unchecked(world) }.take(limit).count();
    query.restore_memory(memory);
    found
}

// SAFETY: declares what the query declares, and touches only that (the probe in
// `validate` runs only while nothing conflicting runs, as `validate`'s contract says).
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Single<'_, D, F>
where
    QueryState<D, F>: Send,
{
    type State = QueryParamState<D, F>;
    type Item<'w, 's> = Single<'w, D, F>;

    unsafe fn get<'w>(state: &mut Self::State, world: &'w World, _: &SystemMeta) -> Single<'w, D, F> {
        // SAFETY: the schedule holds the access this query declared, for `'w`; only one
        // item is made, and the iterator's run ends here (it found the only match).
        let item = unsafe { state.query.iter_unchecked(world) }.next();
        let item = item.unwrap_or_else(|| {
            panic!("`{}` found no entity: its system was not validated first", std::any::type_name::<Self>())
        });
        *state.processed.get_mut() += 1;
        Single { item, _filter: PhantomData }
    }
    const FALLIBLE: bool = true;
    fn validate(state: &mut Self::State, world: &World) -> Result<(), String> {
        // SAFETY: `validate` runs while nothing conflicting runs.
        match unsafe { probe(&mut state.query, world, 2) } {
            1 => Ok(()),
            0 => Err(format!("no entity matches `{}`", short(std::any::type_name::<Self>()))),
            _ => Err(format!("more than one entity matches `{}`", short(std::any::type_name::<Self>()))),
        }
    }
    query_param_parts!();
}

/// A [`Query`] with at least one match (a system parameter): if none matches, the
/// system is skipped (listed in
/// [`Schedule::take_skipped_runs`](crate::schedule::Schedule::take_skipped_runs)) and a
/// one-shot run refused, as bevy_ecs does. It is the query otherwise (it dereferences
/// to one). A skipped run does not count: what changed is reported next time. Deciding
/// costs a run of the query up to its first match.
///
/// ```
/// use ripple::World;
/// use ripple::query::Changed;
/// use ripple::schedule::Schedule;
/// use ripple::system::Populated;
/// struct Hp(u32);
/// fn report_hurt(mut hurt: Populated<&Hp, Changed<Hp>>) {
///     println!("{} hurt", hurt.iter().count());
/// }
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule.add_system(&mut world, report_hurt).unwrap();
/// schedule.run(&mut world); // nothing matches: skipped
/// world.spawn((Hp(3),));
/// schedule.run(&mut world); // runs
/// schedule.run(&mut world); // nothing changed since: skipped
/// assert_eq!(schedule.skipped_run_count(), 2);
/// ```
pub struct Populated<'w, 's, D: QueryData, F: QueryFilter = ()>(Query<'w, 's, D, F>);

impl<'w, 's, D: QueryData, F: QueryFilter> Populated<'w, 's, D, F> {
    /// The query, out of the wrapper.
    pub fn into_inner(self) -> Query<'w, 's, D, F> {
        self.0
    }
}

impl<'w, 's, D: QueryData, F: QueryFilter> Deref for Populated<'w, 's, D, F> {
    type Target = Query<'w, 's, D, F>;
    fn deref(&self) -> &Query<'w, 's, D, F> {
        &self.0
    }
}

impl<D: QueryData, F: QueryFilter> DerefMut for Populated<'_, '_, D, F> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

// SAFETY: as `Query`'s, whose state and access it takes; the probe in `validate` runs
// only while nothing conflicting runs.
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Populated<'_, '_, D, F>
where
    QueryState<D, F>: Send,
{
    type State = QueryParamState<D, F>;
    type Item<'w, 's> = Populated<'w, 's, D, F>;

    unsafe fn get<'w, 's>(state: &'s mut Self::State, world: &'w World, meta: &SystemMeta) -> Populated<'w, 's, D, F> {
        // SAFETY: forwarded from the caller.
        Populated(unsafe { <Query<'_, '_, D, F> as SystemParam>::get(state, world, meta) })
    }
    const FALLIBLE: bool = true;
    fn validate(state: &mut Self::State, world: &World) -> Result<(), String> {
        // SAFETY: `validate` runs while nothing conflicting runs.
        match unsafe { probe(&mut state.query, world, 1) } {
            0 => Err(format!("no entity matches `{}`", short(std::any::type_name::<Self>()))),
            _ => Ok(()),
        }
    }
    query_param_parts!();
}

/// A parameter's type name without module paths, for messages.
fn short(name: &str) -> String {
    crate::util::type_name::short_type_name(name)
}
