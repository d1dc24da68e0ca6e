//! The visit of a list of entities ([`QueryState::for_each_of`]): each entity's table
//! and row looked up, consecutive entities of one table sharing the table's fetch.
//!
//! Not a run: like `get_mut` for each entity in turn, writes are stamped with the
//! world's current tick. Each entity's item is a batched run of one row: a write sets
//! a bit, and the loop records the row once its call returns ([`QueryData::end_row`])
//! — or while it unwinds. Rows go to a change list through a cursor the loop keeps
//! while it visits one table (`ListCursor`), handed to the list when it leaves the
//! table. Batching per leaf, as runs do, pays only where consecutive
//! entities share a leaf; for entities spread over many leaves, the usual case of a
//! list, it would only add bookkeeping per entity.

use std::cell::Cell;

use crate::change::RunTicks;
use crate::change::WorldPtr;
use crate::entity::{Entity, Location};
use crate::storage::{ArchetypeId, Row};
use crate::world::World;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::state::QueryState;

/// How far ahead an entity's location is looked up (and its row's columns
/// prefetched); its slot is prefetched twice as far ahead, so that the lookup finds it.
const AHEAD: usize = 8;

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Calls `f` with the item of each entity of `entities` that is alive and matches,
    /// in order; returns how many. Not a run: judged against the last run, writes
    /// stamped with the world's current tick.
    ///
    /// # Safety
    /// The caller holds the access `Q` declares on `world` for the call, and the
    /// archetype cache is up to date.
    pub(super) unsafe fn for_each_of_unchecked(
        &self,
        world: &World,
        entities: &[Entity],
        mut f: impl for<'a> FnMut(Q::Item<'a>),
    ) -> usize {
        if self.sparse {
            // SAFETY: forwarded from the caller.
            return unsafe { self.for_each_of_sparse(world, entities, f) };
        }
        let ticks =
            RunTicks { last_run: self.lookup_last_run(), this_run: world.change_tick(), world: WorldPtr(world) };
        // The locations of entities `index .. index + AHEAD`, entity `i`'s at
        // `ahead[i % AHEAD]` (a dead entity's in no table): each entity is looked up once,
        // `AHEAD` entities early.
        let locate = |index: usize| {
            let nowhere = Location { archetype: ArchetypeId::INVALID, row: Row(0) };
            entities.get(index).and_then(|&entity| world.entities.get(entity)).unwrap_or(nowhere)
        };
        let mut ahead: [Location; AHEAD] = std::array::from_fn(locate);
        let mut visited = 0;
        let mut index = 0;
        while index < entities.len() {
            let here = ahead[index % AHEAD];
            let Some(matched) = self.matched_position(here.archetype) else {
                // Dead, or in a table the query does not match.
                if let Some(&far) = entities.get(index + 2 * AHEAD) {
                    world.entities.prefetch(far);
                }
                ahead[index % AHEAD] = locate(index + AHEAD);
                index += 1;
                continue;
            };
            let matched = &self.matched[matched];
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let (fetch, filter) = unsafe {
                (Q::fetch_archetype(matched.data, table, ticks), F::fetch_archetype(matched.filter, table, ticks))
            };
            let record = Q::new_record();
            let guard = RowGuard::<Q> { fetch, record: &record, row: Cell::new(here.row.index()) };
            // This entity and those that follow in this table share its fetch.
            loop {
                let here = ahead[index % AHEAD];
                if here.archetype != matched.archetype {
                    break;
                }
                if let Some(&far) = entities.get(index + 2 * AHEAD) {
                    world.entities.prefetch(far);
                }
                let soon = locate(index + AHEAD);
                ahead[index % AHEAD] = soon;
                if soon.archetype == matched.archetype {
                    Q::prefetch(&fetch, soon.row.index());
                }
                let row = here.row.index();
                // SAFETY: `row` is the entity's live row; items are handed to `f` one at a
                // time and cannot outlive its call (an entity listed twice gets a second
                // item only after the first is gone, and the first's write is recorded).
                unsafe {
                    if F::IS_ARCHETYPAL || F::filter_row(&filter, row) {
                        guard.row.set(row);
                        f(Q::fetch_batched::<false>(&fetch, &record, row, 0, 0));
                        Q::end_row(&fetch, &record, row);
                        visited += 1;
                    }
                }
                index += 1;
                if index == entities.len() {
                    break;
                }
            }
        }
        visited
    }
}

/// Ends the visit of a table's entities: records the writes of the entity being visited
/// if its closure panicked (on the normal path there is nothing left to record), then
/// hands the rows appended through the record's cursors to the change lists
/// ([`QueryData::end_rows`]). It keeps a copy of the fetch: a reference would pin the
/// loop's fetch to memory.
struct RowGuard<'a, 'w, Q: QueryData> {
    fetch: Q::Fetch<'w>,
    record: &'a Q::Record,
    row: Cell<usize>,
}

impl<Q: QueryData> Drop for RowGuard<'_, '_, Q> {
    fn drop(&mut self) {
        // SAFETY: the row's item is gone (its call returned or is unwinding), the visit
        // holds the table's columns alone, and the record is used by this visit's
        // `end_row` calls only.
        unsafe {
            Q::end_row(&self.fetch, self.record, self.row.get());
            Q::end_rows(&self.fetch, self.record);
        }
    }
}
