//! `Option<Q>` as query data: `Q`'s item where the entity has what `Q` fetches,
//! `None` elsewhere; it matches every table.

use crate::change::RunTicks;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::Archetype;
use crate::world::World;

use super::access::Access;
use super::fetch::{QueryData, ReadOnlyQueryData, sealed};

impl<Q: QueryData> sealed::Sealed for Option<Q> {}

// SAFETY: declares exactly the inner fetch's access and fetches through it.
unsafe impl<Q: QueryData> QueryData for Option<Q> {
    type Item<'w> = Option<Q::Item<'w>>;
    const IS_READ_ONLY: bool = Q::IS_READ_ONLY;
    const OBSERVES: bool = Q::OBSERVES;
    const WRITES_ANY: bool = Q::WRITES_ANY;
    type State = Q::State;
    type ArchState = Option<Q::ArchState>;
    type Fetch<'w> = Option<Q::Fetch<'w>>;
    type Record = Q::Record;
    #[inline]
    fn new_record() -> Q::Record {
        Q::new_record()
    }

    fn init_state(world: &mut World) -> Q::State {
        Q::init_state(world)
    }
    fn access(state: &Q::State, access: &mut Access) {
        access.optional(|access| Q::access(state, access));
    }
    #[inline]
    fn match_archetype(state: &Q::State, archetype: &Archetype) -> Option<Self::ArchState> {
        Some(Q::match_archetype(state, archetype))
    }
    #[inline]
    unsafe fn fetch_archetype<'w>(
        arch_state: Self::ArchState,
        archetype: &'w Archetype,
        ticks: RunTicks,
    ) -> Self::Fetch<'w> {
        // SAFETY: forwarded from the caller, for the inner query's own match.
        arch_state.map(|inner| unsafe { Q::fetch_archetype(inner, archetype, ticks) })
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: forwarded from the caller.
        fetch.as_ref().map(|inner| unsafe { Q::fetch(inner, row) })
    }
    type Rows<'w> = Option<Q::Rows<'w>>;
    #[inline]
    unsafe fn rows<'w>(fetch: &Self::Fetch<'w>, len: usize) -> Self::Rows<'w> {
        // SAFETY: forwarded from the caller.
        fetch.as_ref().map(|inner| unsafe { Q::rows(inner, len) })
    }
    #[inline]
    fn fetch_rows<'w>(rows: Self::Rows<'w>, like: &Self::Fetch<'w>) -> Self::Fetch<'w> {
        rows.zip(like.as_ref()).map(|(rows, like)| Q::fetch_rows(rows, like))
    }
    type Sparse<'w> = Q::Sparse<'w>;
    fn has_sparse(state: &Q::State) -> bool {
        Q::has_sparse(state)
    }
    fn sparse_ids(state: &Q::State, _: &mut Vec<ComponentId>, _: &mut Vec<ComponentId>) {
        // Optional: neither required nor deciding.
        let _ = state;
    }
    unsafe fn fetch_sparse<'w>(state: &Q::State, world: &'w World, ticks: RunTicks) -> Self::Sparse<'w> {
        // SAFETY: forwarded from the caller.
        unsafe { Q::fetch_sparse(state, world, ticks) }
    }
    #[inline]
    fn sparse_matches(_: &Self::Sparse<'_>, _: Entity) -> bool {
        true
    }
    #[inline]
    unsafe fn fetch_entity<'w>(
        fetch: &Self::Fetch<'w>,
        sparse: &Self::Sparse<'w>,
        entity: Entity,
        row: usize,
    ) -> Self::Item<'w> {
        let inner = fetch.as_ref().filter(|_| Q::sparse_matches(sparse, entity))?;
        // SAFETY: forwarded from the caller; the inner fetch matched the table and the
        // entity has its sparse parts.
        Some(unsafe { Q::fetch_entity(inner, sparse, entity, row) })
    }
    #[inline]
    fn tracked_writes(fetch: &Self::Fetch<'_>) -> usize {
        fetch.as_ref().map_or(0, Q::tracked_writes)
    }
    #[inline]
    fn writes(fetch: &Self::Fetch<'_>) -> usize {
        fetch.as_ref().map_or(0, Q::writes)
    }
    #[inline]
    unsafe fn fetch_untracked<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: forwarded from the caller.
        fetch.as_ref().map(|inner| unsafe { Q::fetch_untracked(inner, row) })
    }
    #[inline]
    unsafe fn fetch_batched<'w, const ALL_TRACKED: bool>(
        fetch: &Self::Fetch<'w>,
        record: &Q::Record,
        row: usize,
        byte: usize,
        bit: u32,
    ) -> Self::Item<'w> {
        // SAFETY: forwarded from the caller.
        fetch.as_ref().map(|inner| unsafe { Q::fetch_batched::<ALL_TRACKED>(inner, record, row, byte, bit) })
    }
    #[inline(always)]
    unsafe fn end_leaf(fetch: &Self::Fetch<'_>, record: &Q::Record, len: usize, leaf: usize, summary: bool) {
        if let Some(inner) = fetch {
            // SAFETY: forwarded from the caller.
            unsafe { Q::end_leaf(inner, record, len, leaf, summary) };
        }
    }
    #[inline(always)]
    unsafe fn end_row(fetch: &Self::Fetch<'_>, record: &Q::Record, row: usize) {
        if let Some(inner) = fetch {
            // SAFETY: forwarded from the caller.
            unsafe { Q::end_row(inner, record, row) };
        }
    }
    #[inline(always)]
    unsafe fn end_rows(fetch: &Self::Fetch<'_>, record: &Q::Record) {
        if let Some(inner) = fetch {
            // SAFETY: forwarded from the caller.
            unsafe { Q::end_rows(inner, record) };
        }
    }
    unsafe fn fold_table(fetch: &Self::Fetch<'_>, len: usize, rows: Option<&[(u32, u32)]>) {
        if let Some(inner) = fetch {
            // SAFETY: forwarded from the caller.
            unsafe { Q::fold_table(inner, len, rows) };
        }
    }
    #[inline]
    fn prefetch(fetch: &Self::Fetch<'_>, row: usize) {
        if let Some(inner) = fetch {
            Q::prefetch(inner, row);
        }
    }
}

// SAFETY: read-only when the inner query is.
unsafe impl<Q: ReadOnlyQueryData> ReadOnlyQueryData for Option<Q> {}
