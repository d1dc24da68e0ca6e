//! [`DynamicQuery`]: a query whose terms are component ids chosen at run time.
//!
//! # Safety model
//! A run holds the world (shared for [`DynamicQuery::for_each`], exclusive for
//! [`for_each_mut`](DynamicQuery::for_each_mut) and
//! [`for_each_table`](DynamicQuery::for_each_table)), so no structural change happens
//! while it keeps raw pointers to columns. Within a run, each entity is visited once and
//! its item is the only way to its values; a component is a written term at most once
//! and never also a read term (checked when the query is built), so a value written
//! through an item is reachable through no other reference. Items cannot leave the
//! closure that receives them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::change::{Mut, Tick, TickSlot};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::{ArchetypeId, BlobColumn, Column, TickPtrs};
use crate::world::{World, WorldId};

use super::DynamicError;

/// Marks a term or filter stored in a sparse set (it has no table column).
const SPARSE: u32 = u32::MAX;
/// Marks an archetype the query does not match.
const UNMATCHED: u32 = u32::MAX;

/// One term of the items: a runtime component read or written.
#[derive(Clone, Copy)]
struct Term {
    id: ComponentId,
    write: bool,
    sparse: bool,
}

/// A change filter: only entities whose component was added (or changed) since the
/// query's last run.
#[derive(Clone, Copy)]
struct ChangeTerm {
    id: ComponentId,
    added: bool,
    sparse: bool,
}

/// A table the query matches, with the column of each term and change filter
/// ([`SPARSE`] for a sparse one).
struct MatchedTable {
    archetype: ArchetypeId,
    columns: Box<[u32]>,
    filters: Box<[u32]>,
}

/// Where one term's values lie during a run, for the table (or entity) being visited.
#[derive(Clone, Copy)]
struct TermColumn {
    base: *mut u8,
    size: usize,
    ticks: Option<TickPtrs>,
    write: bool,
    /// The value's row for a sparse term (its dense position), `usize::MAX` for a
    /// table term (whose row is the entity's).
    sparse_row: usize,
}

/// Builds a [`DynamicQuery`] term by term; from
/// [`World::dynamic_query`](crate::World::dynamic_query).
pub struct DynamicQueryBuilder<'w> {
    world: &'w mut World,
    terms: Vec<(ComponentId, bool)>,
    with: Vec<ComponentId>,
    without: Vec<ComponentId>,
    changes: Vec<(ComponentId, bool)>,
    dirty: Vec<ComponentId>,
    /// Whether [`Disabled`](crate::Disabled) entities are skipped if unnamed.
    hide_disabled: bool,
}

impl<'w> DynamicQueryBuilder<'w> {
    pub(crate) fn new(world: &'w mut World) -> Self {
        let (terms, with, without, changes, dirty) = Default::default();
        DynamicQueryBuilder { world, terms, with, without, changes, dirty, hide_disabled: true }
    }

    /// Adds a term reading runtime component `id`; items hand it out by its position
    /// among the terms (the first term added is 0).
    pub fn read(mut self, id: ComponentId) -> Self {
        self.terms.push((id, false));
        self
    }

    /// Adds a term writing runtime component `id` (see [`read`](Self::read)).
    pub fn write(mut self, id: ComponentId) -> Self {
        self.terms.push((id, true));
        self
    }

    /// Only entities that have component `id` (typed or runtime).
    pub fn with(mut self, id: ComponentId) -> Self {
        self.with.push(id);
        self
    }

    /// Only entities that lack component `id` (typed or runtime).
    pub fn without(mut self, id: ComponentId) -> Self {
        self.without.push(id);
        self
    }

    /// Only entities whose component `id` (typed or runtime) changed since the
    /// query's last run (on its first run, all that have it). Turns on its change
    /// tracking. Finding the changed rows costs what changed, not what exists.
    pub fn changed(mut self, id: ComponentId) -> Self {
        self.changes.push((id, false));
        self
    }

    /// Only entities that gained component `id` (typed or runtime) since the query's
    /// last run (on its first run, all that have it). Turns on its change tracking.
    pub fn added(mut self, id: ComponentId) -> Self {
        self.changes.push((id, true));
        self
    }

    /// Only *dirty* entities, as the `Dirty` filter of a typed query: those for which
    /// component `id` (typed or runtime; call again to list more) changed, was added or
    /// was removed since the query's last run, and those that started matching the
    /// query since then. On its first run, every matching entity. Does not require
    /// `id`. Turns on its change tracking. Finding them costs what changed, not what
    /// exists.
    pub fn dirty(mut self, id: ComponentId) -> Self {
        self.dirty.push(id);
        self
    }

    /// Reaches [`Disabled`](crate::Disabled) entities too, without naming `Disabled`:
    /// for the world's own followers of changes, which must not lose what changes
    /// while an entity is disabled.
    pub(crate) fn including_disabled(mut self) -> Self {
        self.hide_disabled = false;
        self
    }

    /// The query.
    ///
    /// # Errors
    /// [`DynamicError::UnknownComponent`] for an id no component has here;
    /// [`DynamicError::Typed`] for a term naming a typed component;
    /// [`DynamicError::AccessConflict`] for a component written by one term and read
    /// or written by another, or both required and excluded.
    /// [`DynamicError::Immutable`] for a written term of an immutable component.
    pub fn build(self) -> Result<DynamicQuery, DynamicError> {
        let DynamicQueryBuilder { world, terms, with, without, changes, mut dirty, hide_disabled } = self;
        let known = |id: ComponentId| {
            if id.index() < world.components.len() { Ok(id) } else { Err(DynamicError::UnknownComponent(id)) }
        };
        for &(id, _) in &terms {
            world.runtime_component(id)?;
        }
        for &id in with.iter().chain(&without).chain(changes.iter().map(|(id, _)| id)).chain(&dirty) {
            known(id)?;
        }
        dirty.sort_unstable();
        dirty.dedup();
        for &id in &dirty {
            world.observe_id(id);
        }
        let cursor = (!dirty.is_empty()).then(|| world.moves.register());
        for (at, &(id, write)) in terms.iter().enumerate() {
            let clash = terms.iter().enumerate().any(|(other, &(o, w))| other != at && o == id && (write || w));
            if clash || without.contains(&id) {
                return Err(DynamicError::AccessConflict { component: world.components.info(id).name });
            }
            if let Some(refusal) = world.components.kept_refusal(id).filter(|_| write) {
                return Err(DynamicError::Immutable { refusal });
            }
        }
        if let Some(&id) = with.iter().chain(changes.iter().map(|(id, _)| id)).find(|id| without.contains(id)) {
            return Err(DynamicError::AccessConflict { component: world.components.info(id).name });
        }
        for &(id, added) in &changes {
            if added {
                world.track_id(id);
            } else {
                world.observe_id(id);
            }
        }
        let sparse = |id: ComponentId| world.components.is_sparse(id);
        let mut required: Vec<ComponentId> =
            terms.iter().map(|t| t.0).chain(with.iter().copied()).chain(changes.iter().map(|c| c.0)).collect();
        required.sort_unstable();
        required.dedup();
        let terms: Box<[Term]> = terms.iter().map(|&(id, write)| Term { id, write, sparse: sparse(id) }).collect();
        let changes: Box<[ChangeTerm]> =
            changes.iter().map(|&(id, added)| ChangeTerm { id, added, sparse: sparse(id) }).collect();
        let mut without = without;
        let named = |id| [&required, &without, &dirty].iter().any(|ids| ids.contains(&id));
        // `Disabled` entities are skipped unless the query names `Disabled`.
        if let Some(hidden) = crate::disabled::hidden_by_default(world, named).filter(|_| hide_disabled) {
            without.push(hidden);
        }
        let (required_sparse, required_table) = required.into_iter().partition(|&id| sparse(id));
        let (excluded_sparse, excluded_table) = without.into_iter().partition(|&id| sparse(id));
        Ok(DynamicQuery {
            world: world.id(),
            scratch: vec![
                TermColumn {
                    base: std::ptr::null_mut(),
                    size: 0,
                    ticks: None,
                    write: false,
                    sparse_row: usize::MAX
                };
                terms.len()
            ],
            filter_ticks: vec![None; changes.len()],
            terms,
            changes,
            required_table,
            excluded_table,
            required_sparse,
            excluded_sparse,
            seen: 0,
            tables: Vec::new(),
            table_of: Vec::new(),
            last_run: world.register_change_reader(),
            has_run: false,
            rows: Vec::new(),
            candidates: Vec::new(),
            dirty: dirty.into(),
            cursor,
        })
    }
}

/// A query over components chosen at run time, by id: what a scripting layer or an
/// editor iterates. Items hand out each term's value as bytes; writing one through
/// [`DynamicItem::get_mut`] marks it changed, as a typed query's write does.
///
/// ```
/// use ripple::World;
/// use ripple::dynamic::ComponentDescriptor;
/// let mut world = World::new();
/// let pos = world.register_component(ComponentDescriptor::new("pos", 4, 4).unwrap());
/// let vel = world.register_component(ComponentDescriptor::new("vel", 4, 4).unwrap());
/// for i in 0..3 {
///     let e = world.spawn(());
///     world.insert_by_id(e, pos, &0f32.to_ne_bytes()).unwrap();
///     world.insert_by_id(e, vel, &(i as f32).to_ne_bytes()).unwrap();
/// }
/// let mut query = world.dynamic_query().write(pos).read(vel).build().unwrap();
/// query.for_each_mut(&mut world, |mut item| {
///     let v = f32::from_ne_bytes(item.get(1).try_into().unwrap());
///     let mut p = item.get_mut(0);
///     let x = f32::from_ne_bytes((*p).try_into().unwrap()) + v;
///     p.copy_from_slice(&x.to_ne_bytes());
/// });
/// let mut sum = 0.0;
/// query.for_each(&world, |item| sum += f32::from_ne_bytes(item.get(0).try_into().unwrap()));
/// assert_eq!(sum, 3.0);
/// ```
///
/// # Complexity
/// A run visits the tables that match (cached; a new table is checked once, O(terms))
/// and their rows, O(matched entities). With a `changed` filter on a table component
/// it visits only the changed rows, found in O(changed · log N). With a term or
/// filter on a sparse component it visits the entities of the smallest such set and
/// checks each, O(that set). With a `dirty` filter, after its first run, it visits the
/// dirty entities, O(changed · log N + structural changes since its last run).
pub struct DynamicQuery {
    world: WorldId,
    terms: Box<[Term]>,
    changes: Box<[ChangeTerm]>,
    required_table: Vec<ComponentId>,
    excluded_table: Vec<ComponentId>,
    required_sparse: Vec<ComponentId>,
    excluded_sparse: Vec<ComponentId>,
    /// Archetypes checked so far.
    seen: usize,
    tables: Vec<MatchedTable>,
    /// Per archetype checked: its index in `tables`, or [`UNMATCHED`].
    table_of: Vec<u32>,
    last_run: Arc<AtomicU32>,
    has_run: bool,
    /// Per term, where its values lie in the table being visited.
    scratch: Vec<TermColumn>,
    /// Per change filter, its column's ticks in the table being visited.
    filter_ticks: Vec<Option<TickPtrs>>,
    /// The changed rows of the table being visited.
    rows: Vec<usize>,
    /// The entities a run visits when it does not walk tables: the driving sparse
    /// set's, or the dirty ones.
    candidates: Vec<Entity>,
    /// The components whose changes make an entity dirty (none: no `dirty` filter).
    dirty: Box<[ComponentId]>,
    /// With a `dirty` filter: the query's cursor into the world's structural-change log.
    cursor: Option<crate::change::log::Cursor>,
}

// SAFETY: the raw pointers in `scratch` and `filter_ticks` are rewritten at the start
// of each table a run visits and never read outside a run, which borrows the world;
// between runs they are dead values.
unsafe impl Send for DynamicQuery {}
// SAFETY: as above; a run needs `&mut self`.
unsafe impl Sync for DynamicQuery {}

/// One entity's values, handed to a [`DynamicQuery`]'s closure.
pub struct DynamicItem<'a> {
    entity: Entity,
    row: usize,
    columns: &'a [TermColumn],
    this_run: Tick,
    writable: bool,
}

impl DynamicItem<'_> {
    /// The entity.
    #[inline]
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// Term `term`'s value (terms count from 0 in the order they were added).
    ///
    /// # Panics
    /// If there is no term `term`.
    #[inline]
    pub fn get(&self, term: usize) -> &[u8] {
        let column = &self.columns[term];
        let row = if column.sparse_row == usize::MAX { self.row } else { column.sparse_row };
        // SAFETY: the run keeps the column unmoved and this row's value reachable only
        // through this item (module safety model); the bytes are initialised.
        unsafe { std::slice::from_raw_parts(column.base.add(row * column.size), column.size) }
    }

    /// Term `term`'s value, writable; writing through the handle marks it changed if
    /// the component is tracked.
    ///
    /// # Panics
    /// If there is no term `term`, it was added with `read`, or the run is
    /// [`for_each`](DynamicQuery::for_each) (which reads only).
    #[inline]
    pub fn get_mut(&mut self, term: usize) -> Mut<'_, [u8]> {
        let column = &self.columns[term];
        assert!(self.writable && column.write, "ripple: term {term} is not written by this run");
        let row = if column.sparse_row == usize::MAX { self.row } else { column.sparse_row };
        let slot = match column.ticks {
            // SAFETY: the row's tick belongs to this item as its value does; `this_run`
            // is the newest tick of the run.
            Some(ticks) => unsafe {
                TickSlot::immediate(ticks.changed.add(row), ticks.live_summary(), row, self.this_run)
            },
            None => TickSlot::untracked(),
        };
        // SAFETY: as in `get`, and `&mut self` makes this the only handle.
        let bytes = unsafe { std::slice::from_raw_parts_mut(column.base.add(row * column.size), column.size) };
        // SAFETY: the slot is valid for the item's borrow.
        unsafe { Mut::new(bytes, slot) }
    }
}

/// All the values of one table, handed to
/// [`DynamicQuery::for_each_table`]'s closure: term `i`'s values lie back to back.
pub struct DynamicTable<'a> {
    entities: &'a [Entity],
    columns: &'a [TermColumn],
    this_run: Tick,
}

impl<'a> DynamicTable<'a> {
    /// The table's entities, in row order.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        self.entities
    }

    /// Read term `term`'s values, one per entity, back to back (`entities().len()`
    /// times the value size). They stay readable while written terms are written:
    /// no term writes a component another term reads.
    ///
    /// # Panics
    /// If there is no term `term`, or it was added with `write` (read those through
    /// [`bytes_mut`](Self::bytes_mut)).
    #[inline]
    pub fn bytes(&self, term: usize) -> &'a [u8] {
        let column = &self.columns[term];
        assert!(!column.write, "ripple: term {term} is written by this run; read it through bytes_mut");
        // SAFETY: the table's rows, initialised and unmoved during the run; no term
        // writes this component (checked when the query was built).
        unsafe { std::slice::from_raw_parts(column.base, column.size * self.entities.len()) }
    }

    /// Term `term`'s values, writable; marks every row changed (if the component is
    /// tracked), since a slice can be written anywhere.
    ///
    /// # Panics
    /// If there is no term `term`, or it was added with `read`.
    #[inline]
    pub fn bytes_mut(&mut self, term: usize) -> &mut [u8] {
        let column = &self.columns[term];
        assert!(column.write, "ripple: term {term} is not written by this run");
        if let Some(ticks) = column.ticks {
            for row in 0..self.entities.len() {
                // SAFETY: the rows' ticks belong to this run, which holds the world
                // exclusively; `this_run` is its newest tick.
                unsafe { TickSlot::immediate(ticks.changed.add(row), ticks.live_summary(), row, self.this_run).mark() };
            }
        }
        // SAFETY: as in `bytes`, and `&mut self` makes this the only handle.
        unsafe { std::slice::from_raw_parts_mut(column.base, column.size * self.entities.len()) }
    }
}

impl DynamicQuery {
    /// Checks the archetypes created since the last run.
    fn update_archetypes(&mut self, world: &World) {
        while self.seen < world.archetypes.len() {
            let id = ArchetypeId(self.seen as u32);
            self.seen += 1;
            let table = world.archetypes.get(id);
            let matches =
                self.required_table.iter().all(|&c| table.has(c)) && !self.excluded_table.iter().any(|&c| table.has(c));
            if !matches {
                self.table_of.push(UNMATCHED);
                continue;
            }
            let column = |id: ComponentId, sparse: bool| {
                if sparse { SPARSE } else { table.column_index(id).expect("a required component") as u32 }
            };
            self.table_of.push(self.tables.len() as u32);
            self.tables.push(MatchedTable {
                archetype: id,
                columns: self.terms.iter().map(|t| column(t.id, t.sparse)).collect(),
                filters: self.changes.iter().map(|c| column(c.id, c.sparse)).collect(),
            });
        }
    }

    #[track_caller]
    fn check_world(&self, world: &World) {
        assert!(self.world == world.id(), "ripple: a DynamicQuery used with a World other than its own");
    }

    /// The run's tick, and the last run's (`None` on the first run).
    fn begin(&mut self, world: &World) -> (Tick, Option<Tick>) {
        self.check_world(world);
        self.update_archetypes(world);
        // An observer (a change or dirty filter) needs a tick of its own, so that later
        // writes are newer than its run; other queries stamp with the current tick.
        let observes = !self.changes.is_empty() || !self.dirty.is_empty();
        let this_run = if observes { world.increment_change_tick() } else { world.change_tick() };
        let last_run = self.has_run.then(|| Tick(self.last_run.load(Ordering::Relaxed)));
        (this_run, last_run)
    }

    /// Makes the next run report only what happens from now on.
    pub fn skip_to_now(&mut self, world: &World) {
        self.last_run.store(world.increment_change_tick().0, Ordering::Relaxed);
        self.has_run = true;
    }

    fn end(&mut self, this_run: Tick) {
        self.last_run.store(this_run.0, Ordering::Relaxed);
        self.has_run = true;
    }

    /// Calls `f` with each matching entity's item, reading only. One run.
    ///
    /// # Panics
    /// If `world` is not the world the query was built for.
    pub fn for_each(&mut self, world: &World, f: impl FnMut(DynamicItem<'_>)) {
        self.run(world, false, f);
    }

    /// Calls `f` with each matching entity's item, whose written terms may be written
    /// through [`DynamicItem::get_mut`]. One run.
    ///
    /// # Panics
    /// If `world` is not the world the query was built for.
    pub fn for_each_mut(&mut self, world: &mut World, f: impl FnMut(DynamicItem<'_>)) {
        world.maintain_ticks();
        self.run(world, true, f);
    }

    /// Calls `f` once per matching table with all its rows' values, for loops that
    /// work on whole columns (the fastest form). One run.
    ///
    /// # Errors
    /// [`DynamicError::NeedsRows`] for a query with a term or filter on a sparse
    /// component, or a change or dirty filter: those select entities row by row; use
    /// [`for_each_mut`](Self::for_each_mut).
    ///
    /// # Panics
    /// If `world` is not the world the query was built for.
    pub fn for_each_table(
        &mut self,
        world: &mut World,
        mut f: impl FnMut(DynamicTable<'_>),
    ) -> Result<(), DynamicError> {
        let by_rows = !self.required_sparse.is_empty() || !self.excluded_sparse.is_empty();
        if by_rows || !self.changes.is_empty() || !self.dirty.is_empty() {
            return Err(DynamicError::NeedsRows);
        }
        world.maintain_ticks();
        let (this_run, _) = self.begin(world);
        for matched in &self.tables {
            let table = world.archetypes.get(matched.archetype);
            if table.is_empty() {
                continue;
            }
            fill_terms(&mut self.scratch, &self.terms, world, matched, table);
            f(DynamicTable { entities: table.entities(), columns: &self.scratch, this_run });
        }
        self.end(this_run);
        Ok(())
    }

    /// One run over the matching entities.
    fn run(&mut self, world: &World, writable: bool, mut f: impl FnMut(DynamicItem<'_>)) {
        let (this_run, last_run) = self.begin(world);
        let starts_over = match &self.cursor {
            Some(cursor) if last_run.is_none() || world.moves.has_missed(cursor) => {
                let _ = world.moves.read(cursor);
                true
            }
            Some(_) => false,
            None => true,
        };
        if !starts_over {
            self.gather_dirty(world, this_run, last_run.expect("not a first run"));
            self.visit_candidates(world, writable, this_run, last_run, &mut f);
        } else if self.required_sparse.is_empty() {
            self.run_tables(world, writable, this_run, last_run, &mut f);
        } else {
            self.gather_sparse_driver(world);
            self.visit_candidates(world, writable, this_run, last_run, &mut f);
        }
        self.end(this_run);
    }

    /// Whether row `row` passes every change filter whose ticks are in `filter_ticks`.
    #[inline]
    fn passes(
        filter_ticks: &[Option<TickPtrs>],
        changes: &[ChangeTerm],
        row_of: impl Fn(usize) -> usize,
        this_run: Tick,
        last_run: Option<Tick>,
    ) -> bool {
        let Some(last_run) = last_run else { return true };
        changes.iter().zip(filter_ticks).enumerate().all(|(at, (change, ticks))| {
            let Some(ticks) = ticks else { return true };
            let row = row_of(at);
            // SAFETY: the run holds the world, so no one writes these ticks now but
            // this run's items, which write rows already tested.
            let tick = unsafe { if change.added { *ticks.added.add(row) } else { ticks.changed_at(row, this_run) } };
            tick.is_newer_than(last_run, this_run)
        })
    }

    /// A run with every required component in tables.
    fn run_tables(
        &mut self,
        world: &World,
        writable: bool,
        this_run: Tick,
        last_run: Option<Tick>,
        f: &mut impl FnMut(DynamicItem<'_>),
    ) {
        for matched in &self.tables {
            let table = world.archetypes.get(matched.archetype);
            if table.is_empty() {
                continue;
            }
            fill_terms(&mut self.scratch, &self.terms, world, matched, table);
            for ((ticks, change), &column) in
                self.filter_ticks.iter_mut().zip(self.changes.iter()).zip(matched.filters.iter())
            {
                *ticks = world_column(world, table, change.id, column).change_ticks();
            }
            let entities = table.entities();
            let columns = &self.scratch;
            let sets = &world.sparse;
            let excluded = &self.excluded_sparse;
            // A sparse component the query excludes is checked entity by entity.
            let kept = |entity: Entity| {
                !excluded.iter().any(|&id| sets.get(id).expect("ripple: a sparse component has a set").contains(entity))
            };
            // With a change filter and a last run, only the changed rows are visited: an
            // added row is a changed row too, so the change summary drives `added` as
            // well, and each candidate is then tested against every filter's ticks.
            let driver = (!self.changes.is_empty() && last_run.is_some()).then_some(0);
            match (driver, last_run) {
                (Some(driver), Some(last)) => {
                    let ticks = self.filter_ticks[driver].expect("a changed filter's component is tracked");
                    self.rows.clear();
                    let rows = &mut self.rows;
                    // SAFETY: the summary is live (the filter observes its component)
                    // and nothing writes the ticks while the rows are gathered.
                    unsafe { ticks.for_each_changed(entities.len(), last, this_run, &mut |row| rows.push(row)) };
                    for &row in self.rows.iter() {
                        if Self::passes(&self.filter_ticks, &self.changes, |_| row, this_run, last_run)
                            && kept(entities[row])
                        {
                            f(DynamicItem { entity: entities[row], row, columns, this_run, writable });
                        }
                    }
                }
                _ if self.changes.is_empty() && excluded.is_empty() => {
                    for (row, &entity) in entities.iter().enumerate() {
                        f(DynamicItem { entity, row, columns, this_run, writable });
                    }
                }
                _ => {
                    for (row, &entity) in entities.iter().enumerate() {
                        if Self::passes(&self.filter_ticks, &self.changes, |_| row, this_run, last_run) && kept(entity)
                        {
                            f(DynamicItem { entity, row, columns, this_run, writable });
                        }
                    }
                }
            }
        }
    }

    /// A run with some required component in a sparse set: the smallest such set's
    /// entities are the candidates.
    fn gather_sparse_driver(&mut self, world: &World) {
        let set_of = |id: ComponentId| world.sparse.get(id).expect("ripple: a sparse component has a set");
        let driver = self.required_sparse.iter().copied().min_by_key(|&id| set_of(id).len()).expect("a sparse term");
        self.candidates.clear();
        self.candidates.extend_from_slice(set_of(driver).entities());
    }

    /// Gathers the dirty entities since `last_run` (each once): those whose listed
    /// components' ticks are newer, and those whose structural changes since then
    /// listed a dirty component as added or removed, moved them into a matched table
    /// from one that is not, or added or removed a sparse component that decides the
    /// match. Whether each matches now is checked when it is visited.
    ///
    /// O(changed rows · log N + structural changes since the last run).
    fn gather_dirty(&mut self, world: &World, this_run: Tick, last_run: Tick) {
        self.candidates.clear();
        let candidates = &mut self.candidates;
        for &component in self.dirty.iter() {
            if let Some(set) = world.sparse.get(component) {
                let Some(ticks) = set.values.change_ticks() else { continue };
                let mut push = |dense: usize| candidates.push(set.entities()[dense]);
                // SAFETY: the set's ticks, one per dense row; no one writes them during
                // this shared borrow of the world.
                unsafe { ticks.for_each_changed(set.len(), last_run, this_run, &mut push) };
                continue;
            }
            for matched in &self.tables {
                let table = world.archetypes.get(matched.archetype);
                let Some(column) = table.column_index(component) else { continue };
                let Some(ticks) = table.column(column).change_ticks() else { continue };
                let mut push = |row: usize| candidates.push(table.entities()[row]);
                // SAFETY: the column's ticks, one per row; no writer runs (as above).
                unsafe { ticks.for_each_changed(table.len(), last_run, this_run, &mut push) };
            }
        }
        let cursor = self.cursor.as_ref().expect("a dirty query has a cursor");
        let matched = |table: Option<ArchetypeId>| {
            table.is_some_and(|t| self.table_of.get(t.index()).is_some_and(|&m| m != UNMATCHED))
        };
        let has = |table: Option<ArchetypeId>, c| table.is_some_and(|t| world.archetypes.get(t).has(c));
        for mv in world.moves.read(cursor).entries {
            let dirtied = match mv.sparse_component() {
                Some(c) => {
                    self.dirty.contains(&c) || self.required_sparse.contains(&c) || self.excluded_sparse.contains(&c)
                }
                None => {
                    (!matched(mv.from) && matched(mv.to))
                        || self.dirty.iter().any(|&c| has(mv.from, c) != has(mv.to, c))
                }
            };
            if dirtied {
                candidates.push(mv.entity);
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
    }

    /// Visits the candidates that match now.
    fn visit_candidates(
        &mut self,
        world: &World,
        writable: bool,
        this_run: Tick,
        last_run: Option<Tick>,
        f: &mut impl FnMut(DynamicItem<'_>),
    ) {
        let set_of = |id: ComponentId| world.sparse.get(id).expect("ripple: a sparse component has a set");
        let mut current = UNMATCHED;
        for at in 0..self.candidates.len() {
            let entity = self.candidates[at];
            let Ok(location) = world.locate(entity) else { continue };
            let Some(&matched) = self.table_of.get(location.archetype.index()) else { continue };
            if matched == UNMATCHED
                || !self.required_sparse.iter().all(|&id| set_of(id).contains(entity))
                || self.excluded_sparse.iter().any(|&id| set_of(id).contains(entity))
            {
                continue;
            }
            let table = world.archetypes.get(location.archetype);
            if matched != current {
                current = matched;
                fill_terms(&mut self.scratch, &self.terms, world, &self.tables[matched as usize], table);
            }
            let row = location.row.index();
            for (slot, term) in self.scratch.iter_mut().zip(self.terms.iter()) {
                if term.sparse {
                    slot.sparse_row = set_of(term.id).dense(entity).expect("checked present");
                }
            }
            let filter_columns = &self.tables[matched as usize].filters;
            for ((ticks, change), &column) in
                self.filter_ticks.iter_mut().zip(self.changes.iter()).zip(filter_columns.iter())
            {
                *ticks = world_column(world, table, change.id, column).change_ticks();
            }
            let changes = &self.changes;
            let dense = |at: usize| {
                let change = changes[at];
                if change.sparse { set_of(change.id).dense(entity).expect("checked present") } else { row }
            };
            if Self::passes(&self.filter_ticks, &self.changes, dense, this_run, last_run) {
                f(DynamicItem { entity, row, columns: &self.scratch, this_run, writable });
            }
        }
    }
}

/// Points each term's slot at `table`'s column (or its sparse set's values).
fn fill_terms(
    scratch: &mut [TermColumn],
    terms: &[Term],
    world: &World,
    matched: &MatchedTable,
    table: &crate::storage::Archetype,
) {
    for ((slot, term), &column) in scratch.iter_mut().zip(terms.iter()).zip(matched.columns.iter()) {
        let values = BlobColumn::of(world_column(world, table, term.id, column));
        *slot = TermColumn {
            base: values.row_ptr(0),
            size: values.item_size(),
            ticks: if term.write { values.change_ticks() } else { None },
            write: term.write,
            sparse_row: usize::MAX,
        };
    }
}

/// The column holding component `id` for `table`: its column `column` there, or the
/// component's sparse set's values for [`SPARSE`].
fn world_column<'w>(
    world: &'w World,
    table: &'w crate::storage::Archetype,
    id: ComponentId,
    column: u32,
) -> &'w dyn Column {
    if column == SPARSE {
        &*world.sparse.get(id).expect("ripple: a sparse component has a set").values
    } else {
        table.column(column as usize)
    }
}

impl World {
    /// Starts building a query over components chosen at run time (see
    /// [`DynamicQuery`]).
    pub fn dynamic_query(&mut self) -> DynamicQueryBuilder<'_> {
        DynamicQueryBuilder::new(self)
    }
}

/// A change query by id is a change source (for change observers of a runtime
/// component): each look reports the entities changed since the previous one.
impl crate::query::ChangeSource for DynamicQuery {
    fn gather(&mut self, world: &World, out: &mut Vec<Entity>) {
        self.for_each(world, |item| out.push(item.entity()));
    }

    fn pending(&mut self, world: &World, scratch: &mut Vec<Entity>) -> bool {
        if !self.has_run {
            return true;
        }
        let before = self.last_run.load(Ordering::Relaxed);
        scratch.clear();
        self.gather(world, scratch);
        self.last_run.store(before, Ordering::Relaxed);
        !scratch.is_empty()
    }
}
