//! Runs of a query that reaches components stored in sparse sets: entity by entity.
//!
//! A sparse component has no column in the tables, so such a query cannot walk a
//! table's rows as slices. Its run gathers candidate rows first — the entities of the
//! smallest sparse set every match has (a query for `(&Position, With<Moving>)` visits
//! the movers, not every entity with a position), the dirty set of a `Dirty` filter,
//! or else every row of the matched tables — and then visits each candidate: its
//! sparse components are looked up in their sets, its table components read at its
//! row, and the whole filter (change filters included) tested for it. Writes are
//! stamped as they happen, as an iterator's are, so every kind of run (serial,
//! parallel, iterator) shares this one visit; parallel runs visit serially.

use crate::change::RunTicks;
use crate::change::WorldPtr;
use crate::entity::Entity;
use crate::storage::Archetype;
use crate::world::World;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::gather::Gathered;
use super::state::QueryState;

/// How many entities (or candidate rows) ahead a sparse run prefetches.
const AHEAD: usize = 16;

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Gathers the candidate rows of a sparse run (see the module docs).
    pub(super) fn gather_sparse(&self, world: &World, ticks: RunTicks, out: &mut Gathered) {
        if let Some(dirty) = F::dirty_state(&self.filter) {
            if !dirty.starts_over(world, ticks.last_run) {
                self.gather_dirty_rows(world, ticks, out);
                return;
            }
        }
        let candidates = &mut out.candidates;
        candidates.clear();
        let smallest = self.required_sparse.iter().filter_map(|&id| world.sparse.get(id)).min_by_key(|set| set.len());
        if let Some(set) = smallest {
            let entities = set.entities();
            for (at, &entity) in entities.iter().enumerate() {
                // The set lists entities in no useful order: each slot is a cache miss,
                // fetched ahead so that the misses overlap.
                if let Some(&far) = entities.get(at + AHEAD) {
                    world.entities.prefetch(far);
                }
                let Some(location) = world.entities.get(entity) else { continue };
                if let Some(index) = self.matched_position(location.archetype) {
                    candidates.push((index as u32, location.row.0));
                }
            }
            return;
        }
        for (index, matched) in self.matched.iter().enumerate() {
            let rows = world.archetypes.get(matched.archetype).len() as u32;
            candidates.extend((0..rows).map(|row| (index as u32, row)));
        }
    }

    /// Keeps only the gathered candidates that match (their sparse components present,
    /// the filter passed), so that the run's length is known before it starts: for an
    /// iterator over a filter decided per table ([`ArchetypeFilter`](super::ArchetypeFilter)).
    ///
    /// # Safety
    /// The caller holds the access this query declared on `world` for the run the
    /// candidates were gathered for (with `ticks`), with no structural change since.
    pub(super) unsafe fn keep_matching_candidates(&self, world: &World, ticks: RunTicks, out: &mut Gathered) {
        // SAFETY: the caller holds the declared access; only set membership is read.
        let data_sets = unsafe { Q::fetch_sparse(&self.data, world, ticks) };
        let filter_sets = F::fetch_sparse(&self.filter, world, ticks);
        let matched = &self.matched;
        // The table of the last candidate, opened again only when the table changes.
        let mut open: Option<(u32, &[crate::entity::Entity], F::Fetch<'_>)> = None;
        out.candidates.retain(|&(index, row)| {
            if open.as_ref().is_none_or(|(at, ..)| *at != index) {
                let matched = &matched[index as usize];
                let table = world.archetypes.get(matched.archetype);
                // SAFETY: the filter was resolved for this table; it only reads.
                let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
                open = Some((index, table.entities(), filter));
            }
            let Some((_, entities, filter)) = &open else { return false };
            let row = row as usize;
            let entity = entities[row];
            // SAFETY: `row` is `entity`'s live row in the table the filter was made for
            // (gathered for this run).
            Q::sparse_matches(&data_sets, entity) && unsafe { F::filter_entity(filter, &filter_sets, entity, row) }
        });
    }

    /// Visits the gathered candidates of a sparse run, calling `f` with each matching
    /// entity's table, row and item.
    ///
    /// # Safety
    /// The caller holds the access this query declared on `world` for `'w`; the
    /// candidates were gathered for this run, with no structural change since; if `Q`
    /// writes, items do not outlive `f`'s call.
    pub(super) unsafe fn run_sparse<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mut f: impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        // SAFETY: the caller holds the declared access.
        let data_sets = unsafe { Q::fetch_sparse(&self.data, world, ticks) };
        let filter_sets = F::fetch_sparse(&self.filter, world, ticks);
        let mut open = u32::MAX;
        let mut current = None;
        let presence_known = self.presence_known;
        for (at, &(index, row)) in self.gathered.candidates.iter().enumerate() {
            if index == open
                && let Some(&(soon_index, soon_row)) = self.gathered.candidates.get(at + AHEAD)
                && soon_index == open
                && let Some((_, data, _)) = &current
            {
                // Rows gathered from a set are scattered: fetch them ahead.
                Q::prefetch(data, soon_row as usize);
            }
            if index != open {
                open = index;
                let matched = &self.matched[index as usize];
                let table: &'w Archetype = world.archetypes.get(matched.archetype);
                // SAFETY: resolved for this table; access per the caller.
                current = Some(unsafe {
                    (
                        table,
                        Q::fetch_archetype(matched.data, table, ticks),
                        F::fetch_archetype(matched.filter, table, ticks),
                    )
                });
            }
            let Some((table, data, filter)) = &current else { continue };
            let row = row as usize;
            if presence_known {
                // SAFETY: as below; the fetch has no sparse part and the candidate
                // matches (see `gather_sparse`).
                unsafe { f(table, row, Q::fetch(data, row)) };
                continue;
            }
            let entity = table.entities()[row];
            // SAFETY: `row` is the live row of `entity` (gathered for this run); each
            // candidate is visited once, and an item does not outlive `f`'s call when
            // `Q` writes (caller).
            unsafe {
                if Q::sparse_matches(&data_sets, entity) && F::filter_entity(filter, &filter_sets, entity, row) {
                    f(table, row, Q::fetch_entity(data, &data_sets, entity, row));
                }
            }
        }
    }

    /// [`for_each_of`](QueryState::for_each_of) for a query that reaches sparse
    /// components: each entity looked up on its own.
    ///
    /// # Safety
    /// The caller holds the access `Q` declares on `world` for the call; items do not
    /// outlive `f`'s call.
    pub(super) unsafe fn for_each_of_sparse(
        &self,
        world: &World,
        entities: &[Entity],
        mut f: impl for<'a> FnMut(Q::Item<'a>),
    ) -> usize {
        let ticks =
            RunTicks { last_run: self.lookup_last_run(), this_run: world.change_tick(), world: WorldPtr(world) };
        let mut visited = 0;
        for &entity in entities {
            // SAFETY: per the caller; the previous item is gone (`f` returned).
            if let Ok(item) = unsafe { self.item_of(world, entity, ticks) } {
                f(item);
                visited += 1;
            }
        }
        visited
    }
}

#[cfg(test)]
mod tests {
    use crate::query::With;
    use crate::{Storage, World};

    struct Position(f32);
    struct Moving;

    #[test]
    fn a_run_requiring_a_sparse_component_visits_its_set_not_the_tables() {
        let mut world = World::new();
        world.set_storage::<Moving>(Storage::SparseSet).unwrap();
        let all: Vec<_> = world.spawn_batch((0..10_000).map(|i| (Position(i as f32),))).collect();
        for &e in all.iter().step_by(1_000) {
            world.insert_one(e, Moving).unwrap();
        }
        let mut movers = world.query_filtered::<&Position, With<Moving>>();
        let mut sum = 0.0;
        movers.for_each(&world, |p| sum += p.0);
        assert_eq!(sum, (0..10).map(|i| (i * 1_000) as f32).sum::<f32>());
        assert_eq!(
            movers.gathered.candidates.len(),
            10,
            "the run's candidates are the set's entities, not 10,000 rows"
        );
        let mut all_rows = world.query_filtered::<&Position, crate::query::Without<Moving>>();
        all_rows.for_each(&world, |_| {});
        assert_eq!(all_rows.gathered.candidates.len(), 10_000, "without a required set, every row is a candidate");
    }
}
