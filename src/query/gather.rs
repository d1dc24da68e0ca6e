//! Gathering a run's candidate rows up front: the rows a driving change filter lists
//! (for runs that cannot stream them, see `Mode::Candidates`), and a [`Dirty`] filter's
//! dirty set.
//!
//! [`Dirty`]: crate::query::Dirty

use std::ops::ControlFlow;

use crate::change::history::for_each_operation_back;
use crate::change::{Move, RunTicks};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::ArchetypeId;
use crate::world::World;

use super::change_filter::DirtyState;
use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::state::{Candidate, Matched, QueryState, matched_index};

/// The rows a run gathers before it starts, and the scratch a `Dirty` gathering
/// reuses: kept by the query state for its own runs, and by a system's query for the
/// iterations made through `&Query`.
#[derive(Default)]
pub(crate) struct Gathered {
    pub(crate) candidates: Vec<Candidate>,
    pub(crate) replay: Replay,
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Candidates for a run of a query whose filter has a `Dirty` part (see
    /// [`gather_dirty`]).
    pub(super) fn gather_dirty_rows(&self, world: &World, ticks: RunTicks, out: &mut Gathered) {
        let Gathered { candidates, replay } = out;
        let QueryState { matched, position, filter, required_sparse, deciding_sparse, .. } = self;
        let dirty = F::dirty_state(filter).expect("ripple: a Dirty run has a Dirty filter");
        let matches = |table: ArchetypeId, has: &dyn Fn(ComponentId) -> bool| {
            structurally_matches::<F>(position, required_sparse, filter, world, table, has)
        };
        let deciding = Deciding { components: deciding_sparse, matches: &matches };
        let tables = Tables { matched, position };
        gather_dirty(candidates, &tables, world, ticks, dirty, &deciding, replay);
    }

    /// Whether an entity in table `archetype` that has exactly the sparse components
    /// `has_sparse` says it has matches the query, leaving change filters aside (for
    /// the schedule's entity enter and exit callbacks).
    pub(crate) fn matches_entity_in(
        &mut self,
        world: &World,
        archetype: ArchetypeId,
        has_sparse: &dyn Fn(ComponentId) -> bool,
    ) -> bool {
        self.update_archetypes(world);
        structurally_matches::<F>(&self.position, &self.required_sparse, &self.filter, world, archetype, has_sparse)
    }

    /// Candidates from the driving change filter, table by table.
    pub(super) fn gather_driven(&self, world: &World, ticks: RunTicks, out: &mut Gathered) {
        let candidates = &mut out.candidates;
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

/// The structural part of a query's match: its tables, the sparse components every
/// match has, and the filter's test of which sparse components an entity has.
fn structurally_matches<F: QueryFilter>(
    position: &[u32],
    required_sparse: &[ComponentId],
    filter: &F::State,
    world: &World,
    table: ArchetypeId,
    has: &dyn Fn(ComponentId) -> bool,
) -> bool {
    matched_index(position, table).is_some()
        && required_sparse.iter().all(|&component| has(component))
        && F::matches_presence(filter, world.archetypes.get(table), has)
}

/// A query's matched tables, with the index that finds one by archetype.
struct Tables<'a, QA, FA> {
    matched: &'a [Matched<QA, FA>],
    position: &'a [u32],
}

/// Candidates for a `Dirty` run: rows whose listed components changed, plus
/// entities whose structural changes since the last run made them dirty: a listed
/// component added or removed, or a move that may have made them start matching (into
/// a matched table from one that is not, or a sparse component in `deciding`, whose
/// presence decides whether the query matches, added or removed).
fn gather_dirty<QA, FA>(
    candidates: &mut Vec<Candidate>,
    tables: &Tables<'_, QA, FA>,
    world: &World,
    ticks: RunTicks,
    dirty: &DirtyState,
    deciding: &Deciding<'_>,
    replay: &mut Replay,
) {
    candidates.clear();
    let position = |archetype: ArchetypeId| matched_index(tables.position, archetype);
    // The candidate an entity is, if it is alive in a matched table.
    let candidate = |entity: Entity| {
        let location = world.entities.get(entity)?;
        position(location.archetype).map(|index| (index as u32, location.row.0))
    };
    if let Some(last_run) = ticks.last_run {
        for &component in dirty.components.iter() {
            let Some(set) = world.sparse.get(component) else { continue };
            let Some(column) = set.values.change_ticks() else { continue };
            let mut push = |dense: usize| candidates.extend(candidate(set.entities()[dense]));
            // SAFETY: the set's values' ticks, one per dense row; a `Dirty` query reads
            // its listed components' ticks, so no writer of them runs meanwhile.
            unsafe { column.for_each_changed(set.len(), last_run, ticks.this_run, &mut push) };
        }
        for (index, matched) in tables.matched.iter().enumerate() {
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
    // Whether a table move made an entity start matching depends, once sparse
    // components decide the match too, on which of them it had at the time: then each
    // entity's table moves and moves of deciding components are replayed below, in log
    // order (a move's position in the read). A move of a sparse component the query
    // does not name changes no match: it is left out, and the next kept move of its
    // operation, if any, begins it instead.
    let replaying = !deciding.components.is_empty();
    let Replay { moves: replayed, flipped } = replay;
    replayed.clear();
    let mut operation_kept = false;
    for (at, mv) in read.entries.enumerate() {
        if !mv.joined() {
            operation_kept = false;
        }
        let Move { entity, from, to, .. } = mv;
        let sparse = mv.sparse_component();
        let Some(location) = world.entities.get(entity) else { continue };
        let dirtied = match sparse {
            Some(component) => dirty.components.contains(&component),
            None => {
                let started_matching = !replaying && from.is_none_or(|from| position(from).is_none());
                started_matching || dirty.components.iter().any(|&c| has(from, c) != has(to, c))
            }
        };
        if dirtied {
            if let Some(index) = position(location.archetype) {
                candidates.push((index as u32, location.row.0));
            }
        }
        if replaying && sparse.is_none_or(|component| deciding.components.contains(&component)) {
            replayed.push((at as u32, mv.rejoined(operation_kept)));
            operation_kept = true;
        }
    }
    if replaying {
        replayed.sort_unstable_by_key(|&(at, mv)| (mv.entity.to_bits(), at));
        for moves in replayed.chunk_by(|a, b| a.1.entity == b.1.entity) {
            let entity = moves[0].1.entity;
            if deciding.started_matching(world, entity, moves, flipped) {
                candidates.extend(candidate(entity));
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
}

/// Scratch a `Dirty` run keeps for replaying moves (capacity kept, so steady runs
/// allocate nothing).
#[derive(Default)]
pub(crate) struct Replay {
    /// The moves replayed: their position in the read, and the move.
    moves: Vec<(u32, Move)>,
    /// While one entity's moves are undone: the sparse components whose presence then
    /// differs from now.
    flipped: Vec<ComponentId>,
}

/// A query's structural test of an entity in a table, given which sparse components
/// it has.
type MatchesWith<'a> = dyn Fn(ArchetypeId, &dyn Fn(ComponentId) -> bool) -> bool + 'a;

/// The sparse components whose presence decides whether a query matches an entity
/// (`With`, `Without`, `Or` and fetches naming them), and the query's test of a
/// table together with which of them an entity has.
struct Deciding<'a> {
    components: &'a [ComponentId],
    /// Whether an entity in the table, having the deciding components the function
    /// says it has, matches the query.
    matches: &'a MatchesWith<'a>,
}

impl Deciding<'_> {
    /// Whether `entity` (alive) started matching in the course of `moves`, its moves
    /// since the last run in the order they happened, judged an operation at a time
    /// (see [`for_each_operation_back`]).
    fn started_matching(
        &self,
        world: &World,
        entity: Entity,
        moves: &[(u32, Move)],
        flipped: &mut Vec<ComponentId>,
    ) -> bool {
        let Some(location) = world.entities.get(entity) else { return false };
        let has_now = |component: ComponentId| world.sparse.get(component).is_some_and(|set| set.contains(entity));
        let matches = |table: Option<ArchetypeId>, flipped: &[ComponentId]| {
            table.is_some_and(|table| (self.matches)(table, &|c| has_now(c) != flipped.contains(&c)))
        };
        let mut started = false;
        for_each_operation_back(
            moves.iter().copied(),
            Some(location.archetype),
            flipped,
            matches,
            |_, before, after| {
                started = after && !before;
                if started { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
            },
        );
        started
    }
}
