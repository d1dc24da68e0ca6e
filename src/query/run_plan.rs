//! How a query run begins: its tick, how it finds its rows ([`Mode`]), and the
//! candidate rows it gathers first ([`Gather`]).

use std::sync::atomic::Ordering;

use crate::change::{RunTicks, WorldPtr};
use crate::world::World;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::gather::Gathered;
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
    #[inline]
    pub(super) fn begin_run(&mut self, world: &World, kind: RunKind) -> (RunTicks, Mode, PendingRun) {
        self.update_archetypes(world);
        let (ticks, mode, pending, gather) = self.plan_run(world, kind);
        if gather != Gather::Nothing {
            // Out of the state while it gathers, so that gathering reads the state
            // shared (a system's query gathers into buffers of its own the same way).
            let mut gathered = std::mem::take(&mut self.gathered);
            // SAFETY: a run's caller holds the access the query declared.
            unsafe { self.gather(world, ticks, gather, &mut gathered) };
            self.gathered = gathered;
        }
        (ticks, mode, pending)
    }

    /// Begins a run of a state already updated against `world`, gathering its
    /// candidate rows (if its mode visits candidates) into `out`.
    ///
    /// # Safety
    /// The caller holds the access this query declared on `world` for the run.
    pub(super) unsafe fn begin_run_into(
        &self,
        world: &World,
        kind: RunKind,
        out: &mut Gathered,
    ) -> (RunTicks, Mode, PendingRun) {
        let (ticks, mode, pending, gather) = self.plan_run(world, kind);
        // SAFETY: per the caller.
        unsafe { self.gather(world, ticks, gather, out) };
        (ticks, mode, pending)
    }

    /// Gathers what `gather` names into `out`.
    ///
    /// # Safety
    /// The caller holds the access this query declared on `world` for the run that
    /// `ticks` belong to.
    unsafe fn gather(&self, world: &World, ticks: RunTicks, gather: Gather, out: &mut Gathered) {
        match gather {
            Gather::Nothing => {}
            Gather::Sparse { keep_matching } => {
                self.gather_sparse(world, ticks, out);
                if keep_matching {
                    // SAFETY: per the caller.
                    unsafe { self.keep_matching_candidates(world, ticks, out) };
                }
            }
            Gather::Dirty => self.gather_dirty_rows(world, ticks, out),
            Gather::Driven => self.gather_driven(world, ticks, out),
        }
    }

    /// Takes a run's tick and decides how it finds its rows, and which candidate rows
    /// it must gather first (what [`begin_run`](Self::begin_run) then does).
    #[inline]
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

    /// One iterator run of a state already updated against `world` whose candidate
    /// rows, if its mode needs them, are `gathered`: gathered for a run of the same
    /// window (see `begin_run_into`) with no structural change since.
    ///
    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`, and `gathered` is
    /// as said.
    pub(crate) unsafe fn iter_with<'w, 's>(
        &'s self,
        world: &'w World,
        gathered: &'s Gathered,
        begun: (RunTicks, Mode, PendingRun),
    ) -> QueryIter<'w, 's, Q, F> {
        let (ticks, mode, pending) = begun;
        QueryIter::new(world, self, &gathered.candidates, ticks, mode, pending)
    }

    /// [`begin_run_into`](Self::begin_run_into) for an iterator run.
    ///
    /// # Safety
    /// As `begin_run_into`.
    pub(crate) unsafe fn begin_iter_into(&self, world: &World, out: &mut Gathered) -> (RunTicks, Mode, PendingRun) {
        // SAFETY: per the caller.
        unsafe { self.begin_run_into(world, RunKind::Iterator, out) }
    }

    /// Takes a run's tick and decides its mode without gathering (an iteration that
    /// visits rows gathered before, see `iter_with`).
    pub(crate) fn begin_run_reusing(&self, world: &World) -> (RunTicks, Mode, PendingRun) {
        let (ticks, mode, pending, _) = self.plan_run(world, RunKind::Iterator);
        (ticks, mode, pending)
    }
}
