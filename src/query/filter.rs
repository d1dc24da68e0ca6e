//! Query filters: which entities a query visits, beyond what it fetches.
//!
//! Every filter here is *archetypal*: it decides per table, so iteration never looks
//! at a row it will skip. The trait also carries a per-row test (`filter_row`) for
//! filters that depend on the row, such as change filters; iteration calls it only
//! when `IS_ARCHETYPAL` is false, so archetypal filters cost nothing per row.

use std::marker::PhantomData;

use crate::change::RunTicks;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{Archetype, SparseSet};
use crate::world::World;

pub(crate) mod sealed {
    pub trait Sealed {}
}

use super::access::Access;
use super::change_filter::DirtyState;
use super::fetch::ComponentRef;

/// A condition on entities that a query must satisfy, without fetching anything.
///
/// Implemented for [`With<T>`], [`Without<T>`], [`Or<(..)>`](Or), `()` (no filter)
/// and tuples of filters (all must hold). Sealed.
///
/// # Safety
/// Implementations (all inside ripple) read no component in `filter_row` other than
/// through columns they were given in `fetch_archetype`, and only read. Code outside
/// ripple cannot implement it, even with `unsafe`:
///
/// ```compile_fail,E0277
/// struct Mine;
/// unsafe impl ripple::query::QueryFilter for Mine {}
/// ```
pub unsafe trait QueryFilter: sealed::Sealed {
    /// True if the filter decides per archetype only; then `filter_row` is never called.
    #[doc(hidden)]
    const IS_ARCHETYPAL: bool;
    /// True if `for_each_candidate` can list, per table, a superset of the rows that
    /// pass (change filters): iteration then visits only those rows.
    #[doc(hidden)]
    const DRIVES: bool = false;
    /// True if the filter is or contains [`Dirty`](crate::query::Dirty).
    #[doc(hidden)]
    const HAS_DIRTY: bool = false;
    /// True if the rows a `Candidates` run gathers for this filter all pass it, so
    /// `filter_row` need not be asked again.
    #[doc(hidden)]
    const EXACT: bool = false;
    #[doc(hidden)]
    type State: Send + Sync + 'static;
    #[doc(hidden)]
    type ArchState: Copy + Send + Sync + 'static;
    #[doc(hidden)]
    type Fetch<'w>;

    #[doc(hidden)]
    fn init_state(world: &mut World) -> Self::State;
    #[doc(hidden)]
    fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::ArchState>;
    /// # Safety
    /// `arch_state` came from `match_archetype` for this `archetype`.
    #[doc(hidden)]
    unsafe fn fetch_archetype<'w>(
        arch_state: Self::ArchState,
        archetype: &'w Archetype,
        ticks: RunTicks,
    ) -> Self::Fetch<'w>;
    /// # Safety
    /// `row < archetype.len()`.
    #[doc(hidden)]
    unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool;
    /// Lists candidate rows below `len`, each once, in no particular order (only when
    /// `DRIVES`).
    ///
    /// # Safety
    /// `fetch` was made for a table of `len` rows.
    #[doc(hidden)]
    unsafe fn for_each_candidate(fetch: &Self::Fetch<'_>, len: usize, f: &mut impl FnMut(usize)) {
        let _ = (fetch, len, f);
        unreachable!("only driving filters list candidates")
    }
    /// The [`Dirty`](crate::query::Dirty) part of this filter, if any.
    #[doc(hidden)]
    fn dirty_state(state: &Self::State) -> Option<&DirtyState> {
        let _ = state;
        None
    }
    /// Declares the change ticks the filter reads (change filters), so that a
    /// scheduler keeps writers of those components apart from it.
    #[doc(hidden)]
    fn access(state: &Self::State, access: &mut Access) {
        let _ = (state, access);
    }
    /// Pointers into the sparse sets the filter tests, made once per run on a world.
    #[doc(hidden)]
    type Sparse<'w>: Copy;
    /// Whether the filter tests a component stored in a sparse set: the query then
    /// visits entity by entity ([`filter_entity`](Self::filter_entity)).
    #[doc(hidden)]
    fn has_sparse(state: &Self::State) -> bool;
    /// As [`QueryData::sparse_ids`](super::QueryData::sparse_ids).
    #[doc(hidden)]
    fn sparse_ids(state: &Self::State, required: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>);
    #[doc(hidden)]
    fn fetch_sparse<'w>(state: &Self::State, world: &'w World, ticks: RunTicks) -> Self::Sparse<'w>;
    /// The whole test of `entity`, the entity of row `row` of the table `fetch` was
    /// made for: its row test (unless archetypal) and its sparse components.
    ///
    /// # Safety
    /// As `filter_row`; `sparse` was made for the same run.
    #[doc(hidden)]
    unsafe fn filter_entity(fetch: &Self::Fetch<'_>, sparse: &Self::Sparse<'_>, entity: Entity, row: usize) -> bool;
    /// Whether the filter, change conditions aside (a change filter asks only for its
    /// component), passes an entity of `archetype` that has exactly the sparse
    /// components `has_sparse` says: how a `Dirty` run, and the schedule's entity enter
    /// and exit callbacks, tell whether an entity matched before one of its moves.
    #[doc(hidden)]
    fn matches_presence(state: &Self::State, archetype: &Archetype, has_sparse: &dyn Fn(ComponentId) -> bool) -> bool;
}

/// A [`QueryFilter`] decided by an entity's components alone (no change filter):
/// [`With`], [`Without`], [`Or`] and tuples of these, and `()`. A query with such a
/// filter knows how many items a run yields before it starts, so its iterator is an
/// [`ExactSizeIterator`].
///
/// ```
/// use ripple::World;
/// use ripple::query::With;
/// struct Pos(f32);
/// struct Enemy;
/// let mut world = World::new();
/// world.spawn((Pos(0.0), Enemy));
/// world.spawn((Pos(1.0),));
/// let mut enemies = world.query_filtered::<&Pos, With<Enemy>>();
/// assert_eq!(enemies.iter(&world).len(), 1);
/// ```
///
/// A change filter decides per row, so its iterator gives only a bound:
///
/// ```compile_fail
/// use ripple::World;
/// use ripple::query::Changed;
/// struct Pos(f32);
/// let mut world = World::new();
/// let mut moved = world.query_filtered::<&Pos, Changed<Pos>>();
/// let _ = moved.iter(&world).len(); // error: not an `ExactSizeIterator`
/// ```
pub trait ArchetypeFilter: QueryFilter {}

impl<T: Component> ArchetypeFilter for With<T> {}
impl<T: Component> ArchetypeFilter for Without<T> {}

macro_rules! impl_archetype_filter_tuple {
    ($($name:ident $index:tt),*) => {
        impl<$($name: ArchetypeFilter),*> ArchetypeFilter for ($($name,)*) {}
        impl<$($name: ArchetypeFilter),*> ArchetypeFilter for Or<($($name,)*)> {}
    };
}

crate::util::tuples::for_each_indexed_tuple_prefix!(impl_archetype_filter_tuple; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// `With<T>`/`Without<T>`'s part of a run: `T`'s set, if `T` is sparse.
type SetRef<'w> = Option<&'w SparseSet>;

/// Matches entities that have a `T`, without fetching it.
pub struct With<T>(PhantomData<fn() -> T>);

/// Matches entities that have no `T`.
pub struct Without<T>(PhantomData<fn() -> T>);

/// Matches entities that satisfy any of the filters in the tuple `F`.
///
/// ```
/// use ripple::{World, Entity};
/// use ripple::query::{With, Or};
/// struct Player;
/// struct Enemy;
/// struct Rock;
/// let mut world = World::new();
/// world.spawn((Player,));
/// world.spawn((Enemy,));
/// world.spawn((Rock,));
/// let mut actors = world.query_filtered::<Entity, Or<(With<Player>, With<Enemy>)>>();
/// assert_eq!(actors.iter(&world).count(), 2);
/// ```
pub struct Or<F>(PhantomData<fn() -> F>);

impl<T> sealed::Sealed for With<T> {}

// SAFETY: reads nothing per row; per entity, only whether `T`'s set has it.
unsafe impl<T: Component> QueryFilter for With<T> {
    const IS_ARCHETYPAL: bool = true;
    type State = ComponentRef;
    type ArchState = ();
    type Fetch<'w> = ();

    fn init_state(world: &mut World) -> ComponentRef {
        ComponentRef::of::<T>(world)
    }
    fn access(state: &ComponentRef, access: &mut Access) {
        access.require(state);
    }
    #[inline]
    fn match_archetype(state: &ComponentRef, archetype: &Archetype) -> Option<()> {
        (state.sparse || archetype.has(state.id)).then_some(())
    }
    type Sparse<'w> = SetRef<'w>;
    fn has_sparse(state: &ComponentRef) -> bool {
        state.sparse
    }
    fn sparse_ids(state: &ComponentRef, required: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>) {
        state.list_sparse(required, deciding);
    }
    fn fetch_sparse<'w>(state: &ComponentRef, world: &'w World, _: RunTicks) -> SetRef<'w> {
        state.set(world)
    }
    #[inline]
    unsafe fn filter_entity(_: &(), set: &SetRef<'_>, entity: Entity, _: usize) -> bool {
        set.is_none_or(|set| set.contains(entity))
    }
    fn matches_presence(state: &ComponentRef, archetype: &Archetype, has_sparse: &dyn Fn(ComponentId) -> bool) -> bool {
        state.present(archetype, has_sparse)
    }
    #[inline]
    unsafe fn fetch_archetype(_: (), _: &Archetype, _: RunTicks) {}
    #[inline]
    unsafe fn filter_row(_: &(), _: usize) -> bool {
        true
    }
}

impl<T> sealed::Sealed for Without<T> {}

// SAFETY: reads nothing per row; per entity, only whether `T`'s set has it.
unsafe impl<T: Component> QueryFilter for Without<T> {
    const IS_ARCHETYPAL: bool = true;
    type State = ComponentRef;
    type ArchState = ();
    type Fetch<'w> = ();

    fn init_state(world: &mut World) -> ComponentRef {
        ComponentRef::of::<T>(world)
    }
    fn access(state: &ComponentRef, access: &mut Access) {
        access.exclude(state);
    }
    #[inline]
    fn match_archetype(state: &ComponentRef, archetype: &Archetype) -> Option<()> {
        (state.sparse || !archetype.has(state.id)).then_some(())
    }
    type Sparse<'w> = SetRef<'w>;
    fn has_sparse(state: &ComponentRef) -> bool {
        state.sparse
    }
    fn sparse_ids(state: &ComponentRef, _: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>) {
        if state.sparse {
            deciding.push(state.id);
        }
    }
    fn fetch_sparse<'w>(state: &ComponentRef, world: &'w World, _: RunTicks) -> SetRef<'w> {
        state.set(world)
    }
    #[inline]
    unsafe fn filter_entity(_: &(), set: &SetRef<'_>, entity: Entity, _: usize) -> bool {
        set.is_none_or(|set| !set.contains(entity))
    }
    fn matches_presence(state: &ComponentRef, archetype: &Archetype, has_sparse: &dyn Fn(ComponentId) -> bool) -> bool {
        !state.present(archetype, has_sparse)
    }
    #[inline]
    unsafe fn fetch_archetype(_: (), _: &Archetype, _: RunTicks) {}
    #[inline]
    unsafe fn filter_row(_: &(), _: usize) -> bool {
        true
    }
}

macro_rules! impl_filter_tuple {
    ($($name:ident $index:tt),*) => {
        impl<$($name: QueryFilter),*> sealed::Sealed for ($($name,)*) {}

        // SAFETY: forwards to the elements, which uphold the contract.
        unsafe impl<$($name: QueryFilter),*> QueryFilter for ($($name,)*) {
            const IS_ARCHETYPAL: bool = true $(&& $name::IS_ARCHETYPAL)*;
            const DRIVES: bool = false $(|| $name::DRIVES)*;
            const HAS_DIRTY: bool = false $(|| $name::HAS_DIRTY)*;
            // Exact when the one row-level element gathers exactly its own rows.
            const EXACT: bool =
                (0 $(+ !$name::IS_ARCHETYPAL as usize)*) == 1 && (true $(&& ($name::IS_ARCHETYPAL || $name::EXACT))*);
            type State = ($($name::State,)*);
            type ArchState = ($($name::ArchState,)*);
            type Fetch<'w> = ($($name::Fetch<'w>,)*);

            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            fn init_state(world: &mut World) -> Self::State {
                let _ = &world;
                ($($name::init_state(world),)*)
            }
            fn access(state: &Self::State, access: &mut Access) {
                let _ = (&state, &access);
                $($name::access(&state.$index, access);)*
            }
            #[inline]
            fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::ArchState> {
                let _ = (&state, &archetype);
                Some(($($name::match_archetype(&state.$index, archetype)?,)*))
            }
            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn fetch_archetype<'w>(arch_state: Self::ArchState, archetype: &'w Archetype, ticks: RunTicks) -> Self::Fetch<'w> {
                let _ = (&arch_state, &archetype, ticks);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { ($($name::fetch_archetype(arch_state.$index, archetype, ticks),)*) }
            }
            #[inline]
            unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool {
                let _ = (&fetch, row);
                // SAFETY: forwarded from the caller.
                true $(&& unsafe { $name::filter_row(&fetch.$index, row) })*
            }
            #[inline]
            unsafe fn for_each_candidate(fetch: &Self::Fetch<'_>, len: usize, f: &mut impl FnMut(usize)) {
                let _ = (&fetch, len, &f);
                // The first driving element lists the candidates; the others filter them.
                $(
                    if $name::DRIVES {
                        // SAFETY: forwarded from the caller.
                        unsafe { $name::for_each_candidate(&fetch.$index, len, f) };
                        return;
                    }
                )*
            }
            fn dirty_state(state: &Self::State) -> Option<&DirtyState> {
                let _ = state;
                $(
                    if let Some(dirty) = $name::dirty_state(&state.$index) {
                        return Some(dirty);
                    }
                )*
                None
            }
            type Sparse<'w> = ($($name::Sparse<'w>,)*);
            fn has_sparse(state: &Self::State) -> bool {
                let _ = state;
                false $(|| $name::has_sparse(&state.$index))*
            }
            fn sparse_ids(state: &Self::State, required: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>) {
                let _ = (state, &required, &deciding);
                $($name::sparse_ids(&state.$index, required, deciding);)*
            }
            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            fn fetch_sparse<'w>(state: &Self::State, world: &'w World, ticks: RunTicks) -> Self::Sparse<'w> {
                let _ = (state, world, ticks);
                ($($name::fetch_sparse(&state.$index, world, ticks),)*)
            }
            #[inline]
            unsafe fn filter_entity(fetch: &Self::Fetch<'_>, sparse: &Self::Sparse<'_>, entity: Entity, row: usize) -> bool {
                let _ = (fetch, sparse, entity, row);
                // SAFETY: forwarded from the caller.
                true $(&& unsafe { $name::filter_entity(&fetch.$index, &sparse.$index, entity, row) })*
            }
            fn matches_presence(state: &Self::State, archetype: &Archetype, has_sparse: &dyn Fn(ComponentId) -> bool) -> bool {
                let _ = (state, archetype, has_sparse);
                true $(&& $name::matches_presence(&state.$index, archetype, has_sparse))*
            }
        }

        impl<$($name: QueryFilter),*> sealed::Sealed for Or<($($name,)*)> {}

        // SAFETY: forwards to the elements, which uphold the contract.
        unsafe impl<$($name: QueryFilter),*> QueryFilter for Or<($($name,)*)> {
            const IS_ARCHETYPAL: bool = true $(&& $name::IS_ARCHETYPAL)*;
            type State = ($($name::State,)*);
            type ArchState = ($(Option<$name::ArchState>,)*);
            type Fetch<'w> = ($(Option<$name::Fetch<'w>>,)*);

            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            #[track_caller]
            fn init_state(world: &mut World) -> Self::State {
                let _ = &world;
                assert!(
                    !(false $(|| $name::HAS_DIRTY)*),
                    "`Dirty<..>` cannot be nested in `Or<..>`; use it at the top level of a query's filter"
                );
                ($($name::init_state(world),)*)
            }
            fn access(state: &Self::State, access: &mut Access) {
                let _ = &state;
                access.optional(|access| {
                    let _ = &access;
                    $($name::access(&state.$index, access);)*
                });
            }
            #[inline]
            fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::ArchState> {
                let _ = (&state, &archetype);
                let each = ($($name::match_archetype(&state.$index, archetype),)*);
                let any = false $(|| each.$index.is_some())*;
                any.then_some(each)
            }
            #[inline]
            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            unsafe fn fetch_archetype<'w>(arch_state: Self::ArchState, archetype: &'w Archetype, ticks: RunTicks) -> Self::Fetch<'w> {
                let _ = (&arch_state, &archetype, ticks);
                // SAFETY: forwarded from the caller, for each element that matched.
                ($(arch_state.$index.map(|inner| unsafe { $name::fetch_archetype(inner, archetype, ticks) }),)*)
            }
            #[inline]
            unsafe fn filter_row(fetch: &Self::Fetch<'_>, row: usize) -> bool {
                let _ = (&fetch, row);
                // SAFETY: forwarded from the caller, for each element that matched.
                false $(|| fetch.$index.as_ref().is_some_and(|inner| unsafe { $name::filter_row(inner, row) }))*
            }
            type Sparse<'w> = ($($name::Sparse<'w>,)*);
            fn has_sparse(state: &Self::State) -> bool {
                let _ = state;
                false $(|| $name::has_sparse(&state.$index))*
            }
            fn sparse_ids(state: &Self::State, _: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>) {
                // An alternative requires nothing; each may decide.
                let _ = (state, &deciding);
                $($name::sparse_ids(&state.$index, &mut Vec::new(), deciding);)*
            }
            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            fn fetch_sparse<'w>(state: &Self::State, world: &'w World, ticks: RunTicks) -> Self::Sparse<'w> {
                let _ = (state, world, ticks);
                ($($name::fetch_sparse(&state.$index, world, ticks),)*)
            }
            #[inline]
            unsafe fn filter_entity(fetch: &Self::Fetch<'_>, sparse: &Self::Sparse<'_>, entity: Entity, row: usize) -> bool {
                let _ = (fetch, sparse, entity, row);
                // SAFETY: forwarded from the caller, for each element that matched.
                false $(|| fetch.$index.as_ref().is_some_and(|inner| unsafe { $name::filter_entity(inner, &sparse.$index, entity, row) }))*
            }
            fn matches_presence(state: &Self::State, archetype: &Archetype, has_sparse: &dyn Fn(ComponentId) -> bool) -> bool {
                let _ = (state, archetype, has_sparse);
                false $(|| $name::matches_presence(&state.$index, archetype, has_sparse))*
            }
        }
    };
}

crate::util::tuples::for_each_indexed_tuple_prefix!(impl_filter_tuple; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
