//! How a query run begins: its tick, how it finds its rows ([`Mode`]), and the
//! candidate rows it gathers first ([`Gather`]).

use std::sync::atomic::Ordering;

use crate::change::{RunTicks, WorldPtr};
use crate::world::World;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::iter::QueryIter;
use super::run_end::PendingRun;
use super::state::{Mode, QueryState};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum RunKind {
    /// `for_each`-style: rows may be streamed.
    Serial,
    /// An iterator: rows must be listed up front.
    Iterator,
    /// Threads share the rows out: rows listed up front.
    Parallel,
}

/// Which candidate rows a run gathers before it starts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Gather {
    Nothing,
    /// The rows of a sparse run; with `keep_matching`, cut to those that match.
    Sparse {
        keep_matching: bool,
    },
    /// The rows the `Dirty` filter names.
    Dirty,
    /// The rows the driving change filter names.
    Driven,
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Starts a run: catches up with new tables, takes a tick, and gathers candidate
    /// rows if the filter drives iteration. The run records its tick as the state's
    /// last run when it completes ([`RunEnd`], made by [`end_of`](Self::end_of)).
    #[track_caller]
    pub(super) fn begin_run(&mut self, world: &World, kind: RunKind) -> (RunTicks, Mode, PendingRun) {
        self.update_archetypes(world);
        let (ticks, mode, pending, gather) = self.plan_run(world, kind);
        match gather {
            Gather::Nothing => {}
            Gather::Sparse { keep_matching } => {
                self.gather_sparse(world, ticks);
                if keep_matching {
                    // SAFETY: an iterator run's caller (`iter`, `iter_mut`,
                    // `iter_unchecked`) holds the access the query declared.
                    unsafe { self.keep_matching_candidates(world, ticks) };
                }
            }
            Gather::Dirty => self.gather_dirty_rows(world, ticks),
            Gather::Driven => self.gather_driven(world, ticks),
        }
        (ticks, mode, pending)
    }

    /// Takes a run's tick and decides how it finds its rows, and which candidate rows
    /// it must gather first (what [`begin_run`](Self::begin_run) then does).
    fn plan_run(&self, world: &World, kind: RunKind) -> (RunTicks, Mode, PendingRun, Gather) {
        let dirty_from = F::dirty_state(&self.filter).map(|dirty| dirty.cursor.load(Ordering::Relaxed));
        // Only a reader (a query with a change filter, or whose items compare
        // ticks) needs a tick of its own; a query without one stamps its writes with the current tick, like a write
        // outside any run, which is still newer than every reader's last run.
        let this_run =
            if F::IS_ARCHETYPAL && !Q::OBSERVES { world.change_tick() } else { world.increment_change_tick() };
        // Tick maintenance keeps an idle reader's last run ordered against every
        // stored tick, however long it idles.
        let last_run = self.last_run();
        let dirty = F::dirty_state(&self.filter);
        let (mode, gather) = if self.sparse {
            // An iterator over a filter decided per table reports its exact length.
            let keep_matching = kind == RunKind::Iterator && F::IS_ARCHETYPAL && !self.presence_known;
            (Mode::Sparse, Gather::Sparse { keep_matching })
        } else if F::IS_ARCHETYPAL {
            (Mode::Tables, Gather::Nothing)
        } else if dirty.map_or(last_run.is_none(), |dirty| dirty.starts_over(world, last_run)) {
            (Mode::FilteredTables, Gather::Nothing)
        } else if dirty.is_some() {
            (Mode::Candidates, Gather::Dirty)
        } else if F::DRIVES && kind == RunKind::Serial && Q::IS_READ_ONLY {
            // Streaming walks the summary while the closure runs, so only a query that
            // cannot write (and so cannot mark that summary) may stream.
            (Mode::Driven, Gather::Nothing)
        } else if F::DRIVES {
            (Mode::Candidates, Gather::Driven)
        } else {
            (Mode::FilteredTables, Gather::Nothing)
        };
        let ticks = RunTicks { last_run, this_run, world: WorldPtr(world) };
        (ticks, mode, PendingRun { this_run, dirty_from }, gather)
    }

    /// One iterator run that gathers nothing: it visits the candidate rows the state
    /// holds now, gathered by an iterator run of the same window that is still going
    /// (a system iterating its query inside a loop over the same query).
    ///
    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`; the state was
    /// updated against `world`; if the run needs candidate rows, the state holds
    /// those of a run with the same last run, against the same tables, and no
    /// structural change happened since.
    pub(crate) unsafe fn iter_reusing_candidates<'w, 's>(&'s self, world: &'w World) -> QueryIter<'w, 's, Q, F> {
        let (ticks, mode, pending, _) = self.plan_run(world, RunKind::Iterator);
        QueryIter::new(world, self, ticks, mode, pending)
    }
}
