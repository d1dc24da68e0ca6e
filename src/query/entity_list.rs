//! The visit of a list of entities ([`QueryState::for_each_of`]): each entity's table
//! and row looked up, consecutive entities of one table sharing the table's fetch.
//!
//! Not a run: like `get_mut` for each entity in turn, an item stamps its row (and the
//! summary) when written. Batching per leaf, as runs do, pays only where consecutive
//! entities share a leaf, and a summary update for a leaf already at the current tick
//! costs a few instructions; for entities spread over many leaves, the usual case of a
//! list, batching only adds bookkeeping per entity.

use crate::change::RunTicks;
use crate::entity::{Entity, Location};
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
        let ticks = RunTicks { last_run: self.last_run(), this_run: world.change_tick() };
        // The locations of entities `index .. index + AHEAD`, entity `i`'s at
        // `ahead[i % AHEAD]`: each entity is looked up once, `AHEAD` entities early.
        let mut ahead = [None; AHEAD];
        for (i, &entity) in entities.iter().take(AHEAD).enumerate() {
            ahead[i] = world.entities.get(entity);
        }
        // Replaces `index`'s location by that of `index + AHEAD`, returning it.
        let look_ahead = |ahead: &mut [Option<Location>; AHEAD], index: usize| {
            if let Some(&far) = entities.get(index + 2 * AHEAD) {
                world.entities.prefetch(far);
            }
            let soon = entities.get(index + AHEAD).and_then(|&soon| world.entities.get(soon));
            ahead[index % AHEAD] = soon;
            soon
        };
        let mut visited = 0;
        let mut index = 0;
        while index < entities.len() {
            let matched = ahead[index % AHEAD]
                .and_then(|first| self.matched.binary_search_by_key(&first.archetype, |m| m.archetype).ok());
            let Some(matched) = matched else {
                look_ahead(&mut ahead, index);
                index += 1;
                continue;
            };
            let matched = &self.matched[matched];
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let (fetch, filter) = unsafe {
                (Q::fetch_archetype(matched.data, table, ticks), F::fetch_archetype(matched.filter, table, ticks))
            };
            // This entity and those that follow in this table share its fetch.
            while let Some(here) = ahead[index % AHEAD].filter(|here| here.archetype == matched.archetype) {
                let row = here.row.index();
                if let Some(soon) = look_ahead(&mut ahead, index).filter(|soon| soon.archetype == matched.archetype) {
                    Q::prefetch(&fetch, soon.row.index());
                }
                // SAFETY: `row` is the entity's live row; items are handed to `f` one at a
                // time and cannot outlive its call (an entity listed twice gets a second
                // item only after the first is gone).
                unsafe {
                    if F::IS_ARCHETYPAL || F::filter_row(&filter, row) {
                        f(Q::fetch(&fetch, row));
                        visited += 1;
                    }
                }
                index += 1;
            }
        }
        visited
    }
}
