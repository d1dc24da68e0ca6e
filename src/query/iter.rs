//! [`QueryIter`]: the iterator form of a query run.

use crate::change::RunTicks;
use crate::storage::Archetype;
use crate::world::World;

use super::fetch::QueryData;
use super::filter::{ArchetypeFilter, QueryFilter};
use super::run_end::{PendingRun, RunEnd};
use super::state::{Candidate, Matched, Mode, QueryState};

/// Iterator over a query run's items, from [`QueryState::iter`](crate::query::QueryState::iter)
/// or [`QueryState::iter_mut`](crate::query::QueryState::iter_mut).
///
/// With a filter decided per table ([`ArchetypeFilter`]: no change filter) it knows
/// how many items are left ([`ExactSizeIterator`]); with a change filter, only a bound.
pub struct QueryIter<'w, 's, Q: QueryData, F: QueryFilter> {
    world: &'w World,
    matched: &'s [Matched<Q::ArchState, F::ArchState>],
    ticks: RunTicks,
    mode: Mode,
    /// `Tables` modes: the next matched table to open.
    next_table: usize,
    /// `Candidates` mode: the rows left to visit.
    candidates: std::slice::Iter<'s, Candidate>,
    /// The open table: its matched index and fetches.
    current: Option<(u32, Q::Fetch<'w>, F::Fetch<'w>)>,
    /// The open table's entities (`Sparse` mode reads them).
    entities: &'w [crate::entity::Entity],
    /// `Sparse` mode: the run's pointers into the sparse sets.
    sparse: Option<(Q::Sparse<'w>, F::Sparse<'w>)>,
    row: usize,
    len: usize,
    /// Records the run in the state when the iterator is dropped (unless a panic is
    /// unwinding: then the run's changes are reported again).
    _end: RunEnd<'s>,
}

impl<'w, 's, Q: QueryData, F: QueryFilter> QueryIter<'w, 's, Q, F> {
    /// The caller (`QueryState`) guarantees the access `Q` declares on `world` for `'w`
    /// and has just begun the run with `ticks` and `mode`, gathering `candidates` if the
    /// mode visits candidates.
    pub(crate) fn new(
        world: &'w World,
        state: &'s QueryState<Q, F>,
        candidates: &'s [Candidate],
        ticks: RunTicks,
        mode: Mode,
        pending: PendingRun,
    ) -> Self {
        let sparse = (mode == Mode::Sparse).then(|| {
            // SAFETY: the caller holds the declared access for `'w`.
            let data = unsafe { Q::fetch_sparse(&state.data, world, ticks) };
            (data, F::fetch_sparse(&state.filter, world, ticks))
        });
        QueryIter {
            sparse,
            world,
            matched: &state.matched,
            ticks,
            mode,
            next_table: 0,
            candidates: candidates.iter(),
            current: None,
            entities: &[],
            row: 0,
            len: 0,
            _end: state.end_of(pending),
        }
    }

    /// Opens matched table `index` for fetching.
    #[inline]
    fn open(&mut self, index: u32) -> &'w Archetype {
        let matched = &self.matched[index as usize];
        let table: &'w Archetype = self.world.archetypes.get(matched.archetype);
        // SAFETY: resolved for this table; access guaranteed by the `QueryState` that
        // made this iterator.
        let fetches = unsafe {
            (Q::fetch_archetype(matched.data, table, self.ticks), F::fetch_archetype(matched.filter, table, self.ticks))
        };
        self.current = Some((index, fetches.0, fetches.1));
        self.entities = table.entities();
        table
    }

    /// `Tables` modes: moves to the next non-empty table; `false` when there is none.
    #[inline]
    fn next_table(&mut self) -> bool {
        while self.next_table < self.matched.len() {
            let index = self.next_table;
            self.next_table += 1;
            let table = self.world.archetypes.get(self.matched[index].archetype);
            if table.is_empty() {
                continue;
            }
            self.open(index as u32);
            self.row = 0;
            self.len = table.len();
            return true;
        }
        self.current = None;
        false
    }

    #[inline]
    fn next_candidate(&mut self) -> Option<Q::Item<'w>> {
        while let Some(&(index, row)) = self.candidates.next() {
            if self.current.as_ref().is_none_or(|c| c.0 != index) {
                self.open(index);
            }
            let (_, fetch, filter) = self.current.as_ref()?;
            let row = row as usize;
            if let Some((data_sets, filter_sets)) = &self.sparse {
                let entity = self.entities[row];
                // A filter decided per table had the candidates cut to the matching
                // ones when the run began (or they match by how they were gathered).
                // SAFETY: as below; the sparse pointers were made for this run.
                unsafe {
                    if F::IS_ARCHETYPAL
                        || (Q::sparse_matches(data_sets, entity) && F::filter_entity(filter, filter_sets, entity, row))
                    {
                        return Some(Q::fetch_entity(fetch, data_sets, entity, row));
                    }
                }
                continue;
            }
            // SAFETY: candidates are distinct live rows of this table, gathered for this
            // run with no structural change since.
            if unsafe { F::filter_row(filter, row) } {
                // SAFETY: as above.
                return Some(unsafe { Q::fetch(fetch, row) });
            }
        }
        None
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Iterator for QueryIter<'w, '_, Q, F> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        if matches!(self.mode, Mode::Candidates | Mode::Sparse) {
            return self.next_candidate();
        }
        loop {
            if self.row < self.len {
                let row = self.row;
                self.row += 1;
                let (_, fetch, filter) = self.current.as_ref()?;
                // SAFETY: `row < len` of the current table and the cursor never returns
                // to a row, so each row is fetched once.
                if self.mode == Mode::Tables || unsafe { F::filter_row(filter, row) } {
                    // SAFETY: as above.
                    return Some(unsafe { Q::fetch(fetch, row) });
                }
            } else if !self.next_table() {
                return None;
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self.mode {
            Mode::Tables | Mode::FilteredTables => {
                let rest: usize =
                    self.matched[self.next_table..].iter().map(|m| self.world.archetypes.get(m.archetype).len()).sum();
                let left = self.len - self.row + rest;
                (if self.mode == Mode::Tables { left } else { 0 }, Some(left))
            }
            // The candidates of a sparse run over a filter decided per table were cut
            // to the matching ones when the run began.
            Mode::Sparse if F::IS_ARCHETYPAL => (self.candidates.len(), Some(self.candidates.len())),
            Mode::Sparse | Mode::Candidates => (0, Some(self.candidates.len())),
            // Streaming runs are `for_each`'s, never an iterator's.
            Mode::Driven => (0, None),
        }
    }

    #[inline]
    fn fold<Acc, G: FnMut(Acc, Self::Item) -> Acc>(mut self, init: Acc, mut g: G) -> Acc {
        let mut acc = init;
        if matches!(self.mode, Mode::Candidates | Mode::Sparse) {
            while let Some(item) = self.next_candidate() {
                acc = g(acc, item);
            }
            return acc;
        }
        // Finish the current table, then run tight loops over the rest.
        while let Some(item) = (self.row < self.len).then(|| self.next()).flatten() {
            acc = g(acc, item);
        }
        while self.next_table() {
            let Some((_, fetch, filter)) = self.current.as_ref() else { break };
            for row in 0..self.len {
                // SAFETY: `row < len`, each row fetched once.
                if self.mode == Mode::Tables || unsafe { F::filter_row(filter, row) } {
                    // SAFETY: as above.
                    acc = g(acc, unsafe { Q::fetch(fetch, row) });
                }
            }
            self.row = self.len;
        }
        acc
    }
}

/// Exact for a filter decided per table: a `Tables` run counts its tables' rows, a
/// sparse run its candidates (cut to the matching ones when it began).
impl<Q: QueryData, F: ArchetypeFilter> ExactSizeIterator for QueryIter<'_, '_, Q, F> {}
