//! Serial runs of a [`QueryState`]: the loops that hand each visited row's item to a
//! closure, one per [`Mode`] — whole tables, gathered candidate rows, or rows streamed
//! out of a change summary.
//!
//! Writes to tracked columns are batched: items set bits in the run's record and a
//! [`LeafStamper`] stamps each leaf as the loop leaves it (see `stamper.rs`).

use std::ops::Range;

use crate::change::{LEAF, RunTicks};
use crate::storage::Archetype;
use crate::world::World;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::stamper::{LeafStamper, leaf_of, place_of};
use super::state::{Candidate, Mode, QueryState};

/// Rows a table loop visits side by side (see [`visit_unrolled`]): a byte's worth.
const UNROLL: usize = 8;

/// Visits `rows` [`UNROLL`] at a time, so that the compiler sees the calls of `f` side
/// by side and can merge their loads and stores into vector instructions (which it
/// does when the items reach their columns through parameters it knows to be
/// distinct, see [`QueryData::with_rows`]). Eight rather than four: a loop the compiler
/// would vectorize on its own (a swap of two `f32` columns) otherwise pays its loop
/// overhead every four rows. Of the last rows, fewer than eight, the first four (if
/// there are four) go side by side too: a table of 20 rows then runs as two chunks and
/// one vector step with no row-at-a-time loop.
///
/// `fetch` gets each row as its chunk's first row and its slot, the row's offset from
/// there (below [`UNROLL`]). In the unrolled loop the slot is a constant, so per-row
/// bookkeeping keyed by slot (a bit per slot of a byte per chunk) costs the rows
/// nothing when `f` writes unconditionally.
#[inline(always)]
fn visit_unrolled<I>(rows: Range<usize>, mut fetch: impl FnMut(usize, usize) -> I, mut f: impl FnMut(usize, I)) {
    let (mut row, end) = (rows.start, rows.end);
    while end - row >= UNROLL {
        for slot in 0..UNROLL {
            f(row + slot, fetch(row, slot));
        }
        row += UNROLL;
    }
    if row < end {
        let chunk = row;
        if end - row >= UNROLL / 2 {
            for slot in 0..UNROLL / 2 {
                f(row + slot, fetch(chunk, slot));
            }
            row += UNROLL / 2;
        }
        while row < end {
            f(row, fetch(chunk, row - chunk));
            row += 1;
        }
    }
}

/// Splits sorted candidates into runs of one table each: `(matched index, rows)`.
pub(crate) fn table_groups(mut rest: &[Candidate]) -> impl Iterator<Item = (usize, &[Candidate])> {
    std::iter::from_fn(move || {
        let &(index, _) = rest.first()?;
        let count = rest.iter().take_while(|c| c.0 == index).count();
        let (group, tail) = rest.split_at(count);
        rest = tail;
        Some((index as usize, group))
    })
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Visits the run's rows, passing the table and row with each item. Items cannot
    /// outlive the call to `f` that receives them when `Q` writes (the callers' bounds
    /// see to it): writes are stamped as the loop leaves each leaf.
    ///
    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`; `ticks` and `mode`
    /// come from `begin_run` on this world.
    #[inline]
    pub(super) unsafe fn run_unchecked<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mode: Mode,
        mut f: impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        // One function per mode, so that `f` has one call site in each and is inlined.
        match mode {
            // SAFETY: forwarded from the caller; the candidates were gathered for this run.
            Mode::Sparse => unsafe { self.run_sparse(world, ticks, f) },
            // SAFETY: forwarded from the caller; the candidates were gathered for this run.
            Mode::Candidates => unsafe { self.run_candidates(world, ticks, &self.gathered.candidates, &mut f) },
            // SAFETY: forwarded from the caller, in `Driven` mode.
            Mode::Driven => unsafe { self.run_driven(world, ticks, f) },
            // SAFETY: forwarded from the caller, in a `Tables` mode.
            Mode::Tables | Mode::FilteredTables => unsafe { self.run_tables(world, ticks, mode, f) },
        }
    }

    /// Visits the rows the driving change filter lists, table by table (read-only
    /// queries only: a writer would mark the summary being walked).
    ///
    /// # Safety
    /// As `run_unchecked`, in `Driven` mode.
    #[inline]
    unsafe fn run_driven<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mut f: impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        debug_assert!(Q::IS_READ_ONLY);
        for matched in &self.matched {
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
            // SAFETY: resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            // SAFETY: `filter` was made for this table; the driving filter lists each row
            // once, below the table's length; the query does not write.
            unsafe {
                F::for_each_candidate(&filter, table.len(), &mut |row| {
                    if F::EXACT || F::filter_row(&filter, row) {
                        f(table, row, Q::fetch(&fetch, row));
                    }
                });
            }
        }
    }

    /// Visits every row of every matched table (tested by the filter in
    /// `FilteredTables` mode).
    ///
    /// # Safety
    /// As `run_unchecked`, in a `Tables` mode.
    #[inline]
    unsafe fn run_tables<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mode: Mode,
        mut f: impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        for matched in &self.matched {
            let table = world.archetypes.get(matched.archetype);
            let len = table.len();
            if len == 0 {
                continue;
            }
            // SAFETY: `matched.data` was resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
            // SAFETY: `matched.filter` was resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            if Q::tracked_writes(&fetch) > 0 {
                // SAFETY: forwarded from the caller, for this table.
                f = unsafe { run_table_batched::<Q, F, _>(table, fetch, &filter, mode, f) };
            } else if mode == Mode::Tables {
                // The common loop of a query with no tracked writes: through the rows, a few
                // at a time, with items that need not look whether they are tracked.
                // `f` moves into the loop's function and back: what it captures is then
                // reached through that function's own parameter, which the compiler
                // knows no write in the loop touches, so captured counters and sums stay
                // in registers.
                let visit = move |fetch: &Q::Fetch<'w>| {
                    // SAFETY: `row < len`, each row fetched once; no tracked column is
                    // written.
                    let fetch_row = |chunk, slot| unsafe { Q::fetch_untracked(fetch, chunk + slot) };
                    visit_unrolled(0..len, fetch_row, |row, item| f(table, row, item));
                    f
                };
                // SAFETY: `len` is the table's length; the table is reached only through
                // the remade fetch meanwhile.
                f = unsafe { Q::with_rows(&fetch, len, visit) };
            } else {
                for row in 0..len {
                    // SAFETY: `row < len`, each row fetched once; no tracked column is
                    // written.
                    unsafe {
                        if F::filter_row(&filter, row) {
                            f(table, row, Q::fetch_untracked(&fetch, row));
                        }
                    }
                }
            }
        }
    }

    /// Visits `candidates` (sorted, distinct, all rows of matched tables).
    ///
    /// # Safety
    /// As `run_unchecked`.
    unsafe fn run_candidates<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        candidates: &[Candidate],
        f: &mut impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        for (index, group) in table_groups(candidates) {
            let matched = &self.matched[index];
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
            // SAFETY: resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            if Q::tracked_writes(&fetch) == 0 {
                for &(_, row) in group {
                    let row = row as usize;
                    // SAFETY: distinct rows of this table gathered in this run; no tracked
                    // column is written.
                    unsafe {
                        if F::EXACT || F::filter_row(&filter, row) {
                            f(table, row, Q::fetch_untracked(&fetch, row));
                        }
                    }
                }
                continue;
            }
            let record = Q::new_record();
            let stamper = LeafStamper::<Q>::new(&fetch, &record, table.len(), true);
            for &(_, row) in group {
                let row = row as usize;
                debug_assert!(row < table.len());
                // SAFETY: candidates are rows of this table gathered in this run, with no
                // structural change since, and distinct (so each is fetched once, and no
                // item of an earlier leaf is alive: `f` cannot keep items).
                unsafe {
                    stamper.enter(leaf_of(row));
                    if F::EXACT || F::filter_row(&filter, row) {
                        let (byte, bit) = place_of(row);
                        f(table, row, Q::fetch_batched::<false>(&fetch, &record, row, byte, bit));
                    }
                }
            }
        }
    }
}

/// One table of a serial run over whole tables whose query writes tracked columns:
/// leaf by leaf, stamping each as the loop leaves it. Out of line, so that the common
/// loop (no tracked writes) keeps its fetch in registers.
///
/// # Safety
/// As `run_tables`; `fetch` and `filter` were made for `table` in this run.
#[inline(never)]
unsafe fn run_table_batched<'w, Q: QueryData, F: QueryFilter, G>(
    table: &'w Archetype,
    fetch: Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    mode: Mode,
    mut f: G,
) -> G
where
    G: FnMut(&'w Archetype, usize, Q::Item<'w>),
{
    let len = table.len();
    // Inside `with_rows`, so that the record lives in the loop's own function; `f` moves
    // in and back, as in `run_tables`.
    let visit_leaves = move |fetch: &Q::Fetch<'w>| {
        let record = Q::new_record();
        let stamper = LeafStamper::<Q>::new(fetch, &record, len, true);
        // Every written column is tracked: items need not look which, so the loop has no
        // branch on it.
        let all_tracked = Q::writes(fetch) == Q::tracked_writes(fetch);
        let mut start = 0;
        while start < len {
            let rows = start..(start + LEAF).min(len);
            if mode == Mode::Tables && all_tracked {
                // A write sets its slot's bit in its chunk's byte: a constant per slot, so
                // a loop whose rows are all written folds the marks into one store a chunk.
                if rows.len() == LEAF {
                    // A whole leaf: eight chunks of eight, a loop of fixed length (a loop
                    // that ends with each leaf costs a mispredicted branch per leaf).
                    for byte in 0..LEAF / UNROLL {
                        let chunk = start + byte * UNROLL;
                        for slot in 0..UNROLL {
                            // SAFETY: `row < len`, each row fetched once; the record
                            // outlives the items; `byte < 8`, `slot < 8`.
                            let item =
                                unsafe { Q::fetch_batched::<true>(fetch, &record, chunk + slot, byte, slot as u32) };
                            f(table, chunk + slot, item);
                        }
                    }
                } else {
                    // SAFETY: `row < len`, each row fetched once; the record outlives the
                    // items; a chunk lies in its leaf, so its byte is below 8.
                    let fetch_row = |chunk: usize, slot: usize| unsafe {
                        Q::fetch_batched::<true>(fetch, &record, chunk + slot, (chunk - start) / UNROLL, slot as u32)
                    };
                    visit_unrolled(rows, fetch_row, |row, item| f(table, row, item));
                }
            } else {
                for row in rows {
                    // SAFETY: `row < len`, each row fetched once; the record outlives the
                    // item.
                    unsafe {
                        if mode == Mode::Tables || F::filter_row(filter, row) {
                            let (byte, bit) = place_of(row);
                            f(table, row, Q::fetch_batched::<false>(fetch, &record, row, byte, bit));
                        }
                    }
                }
            }
            start += LEAF;
            // SAFETY: the leaf's items are gone (`f` cannot keep them).
            unsafe { stamper.next(leaf_of(start)) };
        }
        drop(stamper);
        f
    };
    // SAFETY: `len` is the table's length; the values are reached only through the
    // remade fetch meanwhile (the stamps reach ticks only).
    unsafe { Q::with_rows(&fetch, len, visit_leaves) }
}
