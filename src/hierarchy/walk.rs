//! The walk down the tree in one [`Propagation`](super::Propagation) run: each job (an
//! entity and its parent's new value) recomputes the entity and every member below it,
//! on one thread, or spread over rayon's threads when the run has much to do.
//!
//! The walk reads and writes the member tables' columns through raw pointers taken
//! once per table per run ([`MemberRows`]), not through a lookup per entity: at a
//! hundred thousand entities that lookup (a type check and two virtual calls per
//! column) costs more than the arithmetic.

use rayon::prelude::*;

use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{ArchetypeId, downcast_mut, downcast_unchecked};
use crate::util::hint::prefetch;
use crate::world::World;

use crate::relation::Related;

use super::marks::Marks;

/// The user's `combine(parent_global, local)`.
pub(super) type Combine<L, G> = dyn Fn(&G, &L) -> G + Send + Sync;

/// A job: an entity to compute, with its parent's value.
pub(super) type Job<G> = (Entity, G);

/// How many chunks of jobs each thread gets in a parallel walk: trees differ in size,
/// so more chunks than threads keep both cores busy to the end.
const CHUNKS_PER_THREAD: usize = 8;

/// Raw access to one member table's columns, taken in one run from the world that run
/// borrows exclusively, and used only during that run (no structural change happens
/// meanwhile, so the pointers stay valid).
pub(super) struct MemberRows<L, G, R> {
    local: *const L,
    global: *mut G,
    /// Null where the table has no `Related<R>` (the members' list of sources).
    children: *const Related<R>,
    len: usize,
    /// Whether `G` is change-tracked: its writes are stamped after the walk.
    tracked: bool,
}

impl<L, G, R> Clone for MemberRows<L, G, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L, G, R> Copy for MemberRows<L, G, R> {}

impl<L, G, R> MemberRows<L, G, R> {
    /// Hints the cache to load row `row`'s local, global and list of sources.
    #[inline]
    pub(super) fn prefetch(&self, row: usize) {
        prefetch(self.local.wrapping_add(row));
        prefetch(self.global.wrapping_add(row).cast_const());
        if !self.children.is_null() {
            prefetch(self.children.wrapping_add(row));
        }
    }
}

/// One table's entry in [`MemberTables`]: the run it was taken in, and its rows.
type TakenRows<L, G, R> = (u64, Option<MemberRows<L, G, R>>);

/// Per table, this run's [`MemberRows`], taken when the run first meets the table.
pub(super) struct MemberTables<L, G, R> {
    local_id: ComponentId,
    global_id: ComponentId,
    /// `Related<R>`'s id: the column the walk goes down by.
    list_id: ComponentId,
    /// Per archetype index: the run the entry was taken in, and the rows (`None` for a
    /// table without `L` or `G`).
    entries: Vec<TakenRows<L, G, R>>,
    run: u64,
}

// SAFETY: the raw pointers are dereferenced only during the run that took them, while
// that run borrows the world exclusively; reads of `L` and `Children` from several
// threads need `L: Sync` (every component is), and each `G` row is written by the one
// thread that claimed its entity in the run's marks, which moves `G` values between
// threads (`G: Send`, as every component is). `Related<R>` holds entities only.
unsafe impl<L: Component, G: Component, R> Send for MemberTables<L, G, R> {}
// SAFETY: as for `Send`.
unsafe impl<L: Component, G: Component, R> Sync for MemberTables<L, G, R> {}

impl<L: Component, G: Component, R: 'static> MemberTables<L, G, R> {
    pub(super) fn new(local_id: ComponentId, global_id: ComponentId, list_id: ComponentId) -> Self {
        MemberTables { local_id, global_id, list_id, entries: Vec::new(), run: 0 }
    }

    /// Starts a run: every table's rows are taken again when first needed.
    pub(super) fn begin(&mut self) {
        self.run += 1;
    }

    /// The rows of `archetype` for this run.
    #[inline]
    pub(super) fn rows(&mut self, world: &World, archetype: ArchetypeId) -> Option<MemberRows<L, G, R>> {
        match self.entries.get(archetype.index()) {
            Some(&(run, rows)) if run == self.run => rows,
            _ => self.take(world, archetype),
        }
    }

    /// Takes the rows of every table, for a walk that cannot take them as it goes.
    pub(super) fn take_all(&mut self, world: &World) {
        for table in world.archetypes.iter() {
            self.take(world, table.id());
        }
    }

    /// The rows of `archetype`, taken by [`take_all`](Self::take_all) or
    /// [`rows`](Self::rows) in this run (`None` otherwise).
    #[inline]
    fn taken(&self, archetype: ArchetypeId) -> Option<MemberRows<L, G, R>> {
        match self.entries.get(archetype.index()) {
            Some(&(run, rows)) if run == self.run => rows,
            _ => None,
        }
    }

    #[cold]
    fn take(&mut self, world: &World, archetype: ArchetypeId) -> Option<MemberRows<L, G, R>> {
        let table = world.archetypes.get(archetype);
        let rows = match (table.column_index(self.local_id), table.column_index(self.global_id)) {
            (Some(local), Some(global)) => {
                // SAFETY: each column is the one of its component's id in this table,
                // and the world registered those ids for `L`, `G` and `Related<R>` (the
                // propagation checks it runs on the world it was made for).
                let (local, global) = unsafe {
                    (downcast_unchecked::<L>(table.column(local)), downcast_unchecked::<G>(table.column(global)))
                };
                let children = match table.column_index(self.list_id) {
                    Some(index) => {
                        // SAFETY: as above.
                        let column = unsafe { downcast_unchecked::<Related<R>>(table.column(index)) };
                        column.get_ptr().cast_const()
                    }
                    None => std::ptr::null(),
                };
                Some(MemberRows {
                    local: local.get_ptr().cast_const(),
                    global: global.get_ptr(),
                    children,
                    len: table.len(),
                    tracked: global.tick_ptrs().is_some(),
                })
            }
            _ => None,
        };
        let slot = archetype.index();
        if slot >= self.entries.len() {
            self.entries.resize(slot + 1, (0, None));
        }
        self.entries[slot] = (self.run, rows);
        rows
    }
}

/// A member to compute, with where its parent's new value is: the job's value, or the
/// parent's row, written earlier in the same walk on the same thread.
struct Pending<G>(Entity, *const G);

// SAFETY: a `Pending` is pushed and popped by one walk on one thread, and its pointer is
// read only there; between walks the stack holding it is empty.
unsafe impl<G: Send> Send for Pending<G> {}
// SAFETY: as for `Send`: nothing reads a `Pending` through a shared reference.
unsafe impl<G: Sync> Sync for Pending<G> {}

/// What one thread of a walk keeps between jobs (capacity kept between runs).
pub(super) struct Chunk<G> {
    stack: Vec<Pending<G>>,
    /// The rows of a tracked `G` this chunk wrote, stamped after the walk.
    written: Vec<(ArchetypeId, usize)>,
}

impl<G> Default for Chunk<G> {
    fn default() -> Self {
        Chunk { stack: Vec::new(), written: Vec::new() }
    }
}

/// Walks `jobs` on this thread; returns how many members it computed.
pub(super) fn walk_serial<L: Component, G: Component, R: 'static>(
    world: &World,
    combine: &Combine<L, G>,
    jobs: &[Job<G>],
    tables: &mut MemberTables<L, G, R>,
    marks: &mut Marks,
    chunk: &mut Chunk<G>,
) -> usize {
    walk(world, combine, jobs, chunk, |archetype| tables.rows(world, archetype), |entity| marks.claim(entity))
}

/// Walks `jobs` in chunks spread over rayon's threads; returns how many members they
/// computed. Jobs whose subtrees meet (which a consistent hierarchy never has) still
/// compute each member once: a member goes to the thread that claims it first.
pub(super) fn walk_parallel<L: Component, G: Component, R: 'static>(
    world: &World,
    combine: &Combine<L, G>,
    jobs: &[Job<G>],
    tables: &mut MemberTables<L, G, R>,
    marks: &Marks,
    chunks: &mut Vec<Chunk<G>>,
) -> usize {
    tables.take_all(world);
    let tables = &*tables;
    let count = (rayon::current_num_threads() * CHUNKS_PER_THREAD).clamp(1, jobs.len().max(1));
    if chunks.len() < count {
        chunks.resize_with(count, Chunk::default);
    }
    let per_chunk = jobs.len().div_ceil(count).max(1);
    chunks[..count]
        .par_iter_mut()
        .zip(jobs.par_chunks(per_chunk))
        .map(|(chunk, jobs)| {
            walk(world, combine, jobs, chunk, |archetype| tables.taken(archetype), |entity| marks.claim_shared(entity))
        })
        .sum()
}

/// Computes each job's entity from its parent value, and every member below it that
/// `claim` hands over; returns how many. The walk stops at a child that is not a
/// member.
#[inline]
fn walk<L: Component, G: Component, R>(
    world: &World,
    combine: &Combine<L, G>,
    jobs: &[Job<G>],
    chunk: &mut Chunk<G>,
    mut rows_of: impl FnMut(ArchetypeId) -> Option<MemberRows<L, G, R>>,
    mut claim: impl FnMut(Entity) -> bool,
) -> usize {
    let mut computed = 0;
    for (start, parent) in jobs.iter().rev() {
        chunk.stack.push(Pending(*start, parent));
    }
    while let Some(Pending(entity, parent)) = chunk.stack.pop() {
        let Some(location) = world.entities.get(entity) else { continue };
        let Some(rows) = rows_of(location.archetype) else { continue };
        let row = location.row.index();
        if row >= rows.len || !claim(entity) {
            continue;
        }
        // SAFETY: `row` is within the table (checked above) whose columns `rows` points
        // into, valid for this run (`MemberRows`). `L` is only read during a run. The
        // parent's value is the job's, or a row this thread wrote earlier in the walk
        // and no thread writes again in this run (its entity is claimed).
        let value = combine(unsafe { &*parent }, unsafe { &*rows.local.add(row) });
        let global = rows.global.wrapping_add(row);
        // Recorded before the store, whose drop of the old value may panic.
        if rows.tracked {
            chunk.written.push((location.archetype, row));
        }
        // SAFETY: as above; the claim makes this thread the row's only writer.
        unsafe { *global = value };
        if !rows.children.is_null() {
            // SAFETY: as for `L`: `Related<R>` is only read during a run.
            let children = unsafe { &*rows.children.add(row) };
            chunk.stack.extend(children.iter().rev().map(|&child| Pending(child, global.cast_const())));
        }
        computed += 1;
    }
    computed
}

/// Marks the tracked `G` rows the walk wrote as changed now, and clears what the chunks
/// kept of the walk (also after a walk cut short by a panic).
pub(super) fn stamp_written<G: Component>(world: &mut World, global_id: ComponentId, chunks: &mut [Chunk<G>]) {
    let now = world.change_tick();
    for chunk in chunks {
        // Rows come in runs of one table: its column is looked up once per run.
        let mut column: Option<(ArchetypeId, usize)> = None;
        for &(archetype, row) in &chunk.written {
            let table = world.archetypes.get_mut(archetype);
            let index = match column {
                Some((at, index)) if at == archetype => Some(index),
                _ => table.column_index(global_id),
            };
            if let Some(index) = index {
                column = Some((archetype, index));
                downcast_mut::<G>(&mut *table.columns[index]).mark_changed(row, now);
            }
        }
        chunk.written.clear();
        chunk.stack.clear();
    }
}
