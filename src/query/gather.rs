//! Gathering a run's candidate rows up front: the rows a driving change filter lists
//! (for runs that cannot stream them, see `Mode::Candidates`), and a [`Dirty`] filter's
//! dirty set.
//!
//! [`Dirty`]: crate::Dirty

use crate::change::{Move, RunTicks};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::ArchetypeId;
use crate::world::World;

use super::change_filter::DirtyState;
use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::state::{Candidate, Matched, QueryState};

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Candidates from the driving change filter, table by table.
    pub(super) fn gather_driven(&mut self, world: &World, ticks: RunTicks) {
        let candidates = &mut self.candidates;
        candidates.clear();
        for (index, matched) in self.matched.iter().enumerate() {
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; a filter only reads ticks.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            // SAFETY: `filter` was made for this table of `table.len()` rows.
            unsafe {
                F::for_each_candidate(&filter, table.len(), &mut |row| candidates.push((index as u32, row as u32)));
            }
        }
    }
}

/// Candidates for a `Dirty` run: rows whose listed components changed, plus
/// entities whose structural changes since the last run made them dirty: a listed
/// component added or removed, or a move that may have made them start matching (into
/// a matched table from one that is not, or a sparse component in `deciding`, whose
/// presence decides whether the query matches, added or removed).
pub(super) fn gather_dirty<QA, FA>(
    candidates: &mut Vec<Candidate>,
    matched: &[Matched<QA, FA>],
    world: &World,
    ticks: RunTicks,
    dirty: &DirtyState,
    deciding: &[ComponentId],
) {
    candidates.clear();
    let position = |archetype: ArchetypeId| matched.binary_search_by_key(&archetype, |m| m.archetype);
    let mut push_entity = |entity: Entity| {
        if let Some(location) = world.entities.get(entity) {
            if let Ok(index) = position(location.archetype) {
                candidates.push((index as u32, location.row.0));
            }
        }
    };
    if let Some(last_run) = ticks.last_run {
        for &component in dirty.components.iter() {
            let Some(set) = world.sparse.get(component) else { continue };
            let Some(column) = set.values.change_ticks() else { continue };
            let mut push = |dense: usize| push_entity(set.entities()[dense]);
            // SAFETY: the set's values' ticks, one per dense row; a `Dirty` query reads
            // its listed components' ticks, so no writer of them runs meanwhile.
            unsafe { column.for_each_changed(set.len(), last_run, ticks.this_run, &mut push) };
        }
        for (index, matched) in matched.iter().enumerate() {
            let table = world.archetypes.get(matched.archetype);
            for &component in dirty.components.iter() {
                let Some(column) = table.column_index(component) else { continue };
                let Some(column) = table.column(column).change_ticks() else { continue };
                let mut push = |row: usize| candidates.push((index as u32, row as u32));
                // SAFETY: the column's ticks, one per row; no writer runs (as above).
                unsafe { column.for_each_changed(table.len(), last_run, ticks.this_run, &mut push) };
            }
        }
    }
    let has =
        |archetype: Option<ArchetypeId>, component| archetype.is_some_and(|a| world.archetypes.get(a).has(component));
    let read = world.moves.read(&dirty.cursor);
    debug_assert_eq!(read.missed, 0, "a Dirty observer that missed moves takes every matching entity instead");
    for Move { entity, from, to, sparse } in read.entries {
        let Some(location) = world.entities.get(entity) else { continue };
        let dirtied = match sparse {
            Some(component) => dirty.components.contains(&component) || deciding.contains(&component),
            None => {
                let started_matching = from.is_none_or(|from| position(from).is_err());
                started_matching || dirty.components.iter().any(|&c| has(from, c) != has(to, c))
            }
        };
        if dirtied {
            if let Ok(index) = position(location.archetype) {
                candidates.push((index as u32, location.row.0));
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
}
