//! Parallel runs of a [`QueryState`]: the rows of every matched table (or the gathered
//! candidates) shared out to rayon's threads by [`SharedRows`].
//!
//! A participant batches its writes per leaf like a serial run, but stamps only the row
//! ticks (claims need not start on a leaf, so two participants may write rows of one
//! leaf); once every participant is done — also when one of them panicked — the run
//! folds the stamped rows into the summaries ([`FoldAfterParallel`]).

use std::ops::Range;

use crate::change::RunTicks;
use crate::world::World;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::parallel::SharedRows;
use super::serial::table_groups;
use super::stamper::{LeafStamper, leaf_of, place_of};
use super::state::{Candidate, Mode, QueryState};

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Shares the run's rows out to rayon's threads: the rows of every matched table one
    /// after another, or the gathered candidates. Returns how many it shared out.
    ///
    /// # Safety
    /// As `run_unchecked`; the items may be made on several threads at once, each row
    /// on exactly one.
    pub(super) unsafe fn par_run_unchecked<'w, G>(&self, world: &'w World, ticks: RunTicks, mode: Mode, f: &G) -> usize
    where
        G: Fn(Q::Item<'w>) + Send + Sync,
    {
        if mode == Mode::Sparse || Q::WRITES_ANY {
            // Entity by entity, or items that record their writes in the summaries as
            // they happen (which no two threads may do at once): serially.
            let mut visited = 0;
            // SAFETY: forwarded from the caller; the candidates were gathered for this run.
            unsafe {
                self.run_unchecked(world, ticks, mode, |_, _, item| {
                    visited += 1;
                    f(item);
                });
            }
            return visited;
        }
        // Folds what the participants stamped once they are all done, also if one
        // panicked.
        let _fold = FoldAfterParallel { state: self, world, ticks, mode };
        let threads = rayon::current_num_threads();
        if mode == Mode::Candidates {
            SharedRows::new(self.gathered.candidates.len(), threads).run(&|rows: &SharedRows| {
                while let Some(claim) = rows.claim() {
                    // SAFETY: forwarded from the caller; claims are disjoint.
                    unsafe { self.par_candidates(world, ticks, &self.gathered.candidates[claim], f) };
                }
            });
            return self.gathered.candidates.len();
        }
        let table = |index: usize| world.archetypes.get(self.matched[index].archetype);
        let len = self.matched_entities(world);
        SharedRows::new(len, threads).run(&|rows: &SharedRows| {
            // The table this participant is in, and the run's row where that table
            // starts: a participant's claims only move forward.
            let (mut index, mut table_start) = (0, 0);
            while let Some(claim) = rows.claim() {
                let mut start = claim.start;
                while start < claim.end {
                    let table_end = table_start + table(index).len();
                    if start >= table_end {
                        (index, table_start) = (index + 1, table_end);
                        continue;
                    }
                    let end = claim.end.min(table_end);
                    // SAFETY: forwarded from the caller; claims are disjoint, so these
                    // rows of this table are visited by this participant alone.
                    unsafe { self.par_rows(world, ticks, mode, index, start - table_start..end - table_start, f) };
                    start = end;
                }
            }
        });
        len
    }

    /// Visits `rows` of matched table `index` for one participant of a parallel run.
    ///
    /// # Safety
    /// As `run_unchecked`; `rows` lie in the table, and no other participant visits
    /// them.
    unsafe fn par_rows<'w, G>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mode: Mode,
        index: usize,
        rows: Range<usize>,
        f: &G,
    ) where
        G: Fn(Q::Item<'w>) + Send + Sync,
    {
        let matched = &self.matched[index];
        let table = world.archetypes.get(matched.archetype);
        // SAFETY: resolved for this table; access per the caller. Pointers made here are
        // used only for these rows.
        let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
        // SAFETY: resolved for this table.
        let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
        if Q::tracked_writes(&fetch) == 0 {
            for row in rows {
                // SAFETY: `row < len`, visited by this participant alone, once; no tracked
                // column is written.
                unsafe {
                    if mode == Mode::Tables || F::filter_row(&filter, row) {
                        f(Q::fetch_untracked(&fetch, row));
                    }
                }
            }
            return;
        }
        let record = Q::new_record();
        let stamper = LeafStamper::<Q>::new(&fetch, &record, table.len(), false);
        for row in rows {
            // SAFETY: `row < len`, visited by this participant alone, once; `f` cannot
            // keep items, so none of an earlier leaf is alive.
            unsafe {
                stamper.enter(leaf_of(row));
                if mode == Mode::Tables || F::filter_row(&filter, row) {
                    let (byte, bit) = place_of(row);
                    f(Q::fetch_batched::<false>(&fetch, &record, row, byte, bit));
                }
            }
        }
    }

    /// Visits `candidates` for one participant of a parallel run.
    ///
    /// # Safety
    /// As `run_candidates`; other participants get other candidates.
    unsafe fn par_candidates<'w, G>(&self, world: &'w World, ticks: RunTicks, candidates: &[Candidate], f: &G)
    where
        G: Fn(Q::Item<'w>) + Send + Sync,
    {
        for (index, group) in table_groups(candidates) {
            let matched = &self.matched[index];
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
            // SAFETY: resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            let record = Q::new_record();
            let stamper = LeafStamper::<Q>::new(&fetch, &record, table.len(), false);
            for &(_, row) in group {
                let row = row as usize;
                // SAFETY: distinct live rows of this table, one participant each; `f`
                // cannot keep items.
                unsafe {
                    stamper.enter(leaf_of(row));
                    if F::EXACT || F::filter_row(&filter, row) {
                        let (byte, bit) = place_of(row);
                        f(Q::fetch_batched::<false>(&fetch, &record, row, byte, bit));
                    }
                }
            }
        }
    }
}

/// Folds every table a parallel run visited into its summaries, after every
/// participant is done.
struct FoldAfterParallel<'a, 'w, Q: QueryData, F: QueryFilter> {
    state: &'a QueryState<Q, F>,
    world: &'w World,
    ticks: RunTicks,
    mode: Mode,
}

impl<Q: QueryData, F: QueryFilter> Drop for FoldAfterParallel<'_, '_, Q, F> {
    fn drop(&mut self) {
        let fold = |index: usize, rows: Option<&[Candidate]>| {
            let matched = &self.state.matched[index];
            let table = self.world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; the participants are done (rayon joins them
            // before the parallel loop returns or unwinds), so the run holds the table
            // alone.
            unsafe {
                let fetch = Q::fetch_archetype(matched.data, table, self.ticks);
                Q::fold_table(&fetch, table.len(), rows);
            }
        };
        if self.mode == Mode::Candidates {
            for (index, group) in table_groups(&self.state.gathered.candidates) {
                fold(index, Some(group));
            }
        } else {
            (0..self.state.matched.len()).for_each(|index| fold(index, None));
        }
    }
}
