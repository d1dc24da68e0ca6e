//! [`Propagation`]: a derived "global" component computed from a "local" one down the
//! tree (world transforms, inherited visibility, tint), recomputing only what changed.

use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::query::{Dirty, QueryState, With, Without};
use crate::storage::{ArchetypeId, downcast, downcast_mut};
use crate::world::World;

use super::{CHILDREN, ChildOf, Children};

/// What one [`Propagation::run`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PropagationStats {
    /// Global values recomputed (and written).
    pub recomputed: usize,
    /// Whether the run walked every tree from its root instead of following changes:
    /// its first run, or one in which at least half the members changed.
    pub full: bool,
}

/// The per-slot marks of one run: the run's stamp above two state bits.
const DIRTY: u32 = 1;
/// Reachable from a root with nothing dirty at or above it.
const CLEAN: u32 = 2;
/// Below a dirty entity (recomputed with it) or not reachable from a root.
const SKIP: u32 = 3;

/// Up to this many candidates, a run first loads what their walks will touch, a level
/// of the tree at a time for all of them together, so that the cache misses of
/// scattered entities overlap instead of coming one after another.
const WARM_CANDIDATES: usize = 4096;
/// How many levels above the candidates that loading reaches.
const WARM_LEVELS: usize = 8;

/// Members whose local or parent changed, or that just became members.
type ChangedMembers<L, G> = (Dirty<(L, ChildOf)>, With<L>, With<G>);
/// Members without a parent.
type RootMembers<L, G> = (With<L>, With<G>, Without<ChildOf>);

type Combine<L, G> = Box<dyn Fn(&G, &L) -> G + Send + Sync>;

/// Computes each entity's `G` from its parent's `G` and its own `L`, down the
/// hierarchy, with a function `combine(parent_global, local)`.
///
/// The members are the entities with both `L` and `G`. A member without a parent is a
/// root: its `G` is `combine(root, local)`. A member whose parent is a member gets
/// `combine(parent's G, local)`. The walk stops at a child that is not a member: its
/// subtree is out of reach (as in a walk from the roots) until the link is restored.
///
/// [`run`](Self::run) recomputes exactly the members whose `L` changed, whose parent
/// changed (`ChildOf` inserted, replaced or removed), or that gained `G`, together
/// with their subtrees, and nothing else, judged against this propagation's own last
/// run. A frame where nothing changed costs O(1) in the number of entities; one where
/// K leaves changed costs O(K · depth). Run it as a system (or once a frame) after
/// the systems that write `L`; the order does not change what it computes, because it
/// catches up with every change since it last ran, also after being disabled.
///
/// `G` is the propagation's output: a value written over it stands until a change
/// above or at that entity recomputes it.
///
/// For a caller that needs one entity's `G` right after writing an `L` (a raycast
/// against a body just moved, before the propagation's turn), [`update_now`](Self::update_now)
/// recomputes the entity and its ancestors at once.
///
/// ```
/// use ripple::{Propagation, World};
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Offset(f32);
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Position(f32);
///
/// let mut world = World::new();
/// let sun = world.spawn((Offset(10.0), Position(0.0)));
/// let planet = world.spawn_child(sun, (Offset(2.0), Position(0.0))).unwrap();
/// let moon = world.spawn_child(planet, (Offset(0.5), Position(0.0))).unwrap();
///
/// let mut positions = Propagation::new(&mut world, Position(0.0), |parent: &Position, local: &Offset| {
///     Position(parent.0 + local.0)
/// });
/// positions.run(&mut world);
/// assert_eq!(world.get::<Position>(moon), Ok(&Position(12.5)));
///
/// world.get_mut::<Offset>(planet).unwrap().0 = 3.0;
/// let stats = positions.run(&mut world);
/// assert_eq!(stats.recomputed, 2); // the planet and its moon, not the sun
/// assert_eq!(world.get::<Position>(moon), Ok(&Position(13.5)));
///
/// world.get_mut::<Offset>(sun).unwrap().0 = 0.0;
/// // Read-your-writes before the next run:
/// assert_eq!(positions.update_now(&mut world, moon), Some(&Position(3.5)));
/// assert_eq!(positions.run(&mut world).recomputed, 3);
/// assert_eq!(positions.run(&mut world).recomputed, 0);
/// ```
pub struct Propagation<L: Component, G: Component + Clone> {
    root: G,
    combine: Combine<L, G>,
    local_id: ComponentId,
    global_id: ComponentId,
    /// Members whose `L` or parent changed, or that became members, since the last run.
    dirty: QueryState<Entity, ChangedMembers<L, G>>,
    roots: QueryState<Entity, RootMembers<L, G>>,
    /// Per table: the columns of `L`, `G` and `Children` (`NONE` where absent), or
    /// unresolved.
    columns: Vec<Option<MemberColumns>>,
    has_run: bool,
    /// Entities to look at this run: changed candidates, or roots for a full walk.
    candidates: Vec<Entity>,
    /// Per entity slot: `stamp << 2 | state` of the last run that marked it.
    marks: Vec<u32>,
    stamp: u32,
    /// The ancestors visited while resolving one candidate.
    path: Vec<Entity>,
    /// The walk down: entities to compute with their parent's new value.
    stack: Vec<(Entity, G)>,
}

impl<L: Component, G: Component + Clone> Propagation<L, G> {
    /// A propagation of `G` from `L` over `world`; `root` is the parent value roots are
    /// combined with (the identity transform, "visible", no tint). Its first run
    /// computes every member.
    pub fn new(world: &mut World, root: G, combine: impl Fn(&G, &L) -> G + Send + Sync + 'static) -> Self {
        let local_id = world.components.id_or_register::<L>();
        let global_id = world.components.id_or_register::<G>();
        Propagation {
            root,
            combine: Box::new(combine),
            local_id,
            global_id,
            dirty: QueryState::new(world),
            roots: QueryState::new(world),
            columns: Vec::new(),
            has_run: false,
            candidates: Vec::new(),
            marks: Vec::new(),
            stamp: 0,
            path: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// Brings every member's `G` up to date with the changes since the last run (or
    /// computes them all, on the first run).
    pub fn run(&mut self, world: &mut World) -> PropagationStats {
        self.next_stamp();
        self.candidates.clear();
        let mut full = !self.has_run;
        self.has_run = true;
        for entity in self.dirty.iter(world) {
            Self::mark_candidate(&mut self.marks, &mut self.candidates, self.stamp, entity);
        }
        full |= self.candidates.len() * 2 >= self.dirty.matched_entities(world).max(1);
        // Where at least half the members changed, a walk of every tree recomputes at
        // most twice what changed and saves walking up from each change.
        let mut recomputed = 0;
        if full {
            self.candidates.clear();
            self.candidates.extend(self.roots.iter(world));
            for at in 0..self.candidates.len() {
                let root = self.candidates[at];
                recomputed += self.descend(world, root, self.root.clone());
            }
        } else {
            if self.candidates.len() <= WARM_CANDIDATES {
                self.warm(world);
            }
            for at in 0..self.candidates.len() {
                let entity = self.candidates[at];
                if let Some(parent) = self.resolve(world, entity) {
                    recomputed += self.descend(world, entity, parent);
                }
            }
        }
        PropagationStats { recomputed, full }
    }

    /// Recomputes `entity`'s `G` now, and its ancestors' on the way, and returns it:
    /// read-your-writes for a caller that cannot wait for the next [`run`](Self::run)
    /// (which still recomputes whatever the writes affect). O(depth). `None` if the
    /// entity is not a member reachable from a root.
    pub fn update_now<'w>(&mut self, world: &'w mut World, entity: Entity) -> Option<&'w G> {
        self.path.clear();
        let mut at = entity;
        loop {
            if !self.is_member(world, at) {
                return None;
            }
            self.path.push(at);
            match world.relations.parent_of(at) {
                Some(parent) => at = parent,
                None => break,
            }
        }
        let mut value = self.root.clone();
        for at in (0..self.path.len()).rev() {
            let member = self.path[at];
            let location = world.locate(member).ok()?;
            let columns = self.columns_of(world, location.archetype);
            let (local, mut global, _) = columns.row(world, location.archetype, location.row.index())?;
            value = (self.combine)(&value, local);
            *global = value.clone();
        }
        world.get::<G>(entity).ok()
    }

    fn next_stamp(&mut self) {
        self.stamp += 1;
        if self.stamp > u32::MAX >> 2 {
            self.marks.fill(0);
            self.stamp = 1;
        }
    }

    #[inline]
    fn mark(&self, entity: Entity) -> u32 {
        match self.marks.get(entity.index() as usize) {
            Some(&mark) if mark >> 2 == self.stamp => mark & 3,
            _ => 0,
        }
    }

    #[inline]
    fn set_mark(marks: &mut Vec<u32>, stamp: u32, entity: Entity, state: u32) {
        let slot = entity.index() as usize;
        if slot >= marks.len() {
            marks.resize(slot + 1, 0);
        }
        marks[slot] = stamp << 2 | state;
    }

    fn mark_candidate(marks: &mut Vec<u32>, candidates: &mut Vec<Entity>, stamp: u32, entity: Entity) {
        let slot = entity.index() as usize;
        if marks.get(slot).is_some_and(|&mark| mark == stamp << 2 | DIRTY) {
            return;
        }
        Self::set_mark(marks, stamp, entity, DIRTY);
        candidates.push(entity);
    }

    /// Whether `entity` is alive with both `L` and `G`.
    #[inline]
    fn is_member(&self, world: &World, entity: Entity) -> bool {
        world.locate(entity).is_ok_and(|location| {
            let table = world.archetypes.get(location.archetype);
            table.has(self.local_id) && table.has(self.global_id)
        })
    }

    /// For a changed member: the parent value to recompute its subtree from, or `None`
    /// if a dirty ancestor will recompute it anyway or no root reaches it. Walks up
    /// only until it meets an ancestor this run has already judged.
    fn resolve(&mut self, world: &World, entity: Entity) -> Option<G> {
        self.path.clear();
        let mut at = entity;
        let reachable = loop {
            let Some(parent) = world.relations.parent_of(at) else { break true };
            match self.mark(parent) {
                DIRTY | SKIP => break false,
                CLEAN => break true,
                _ if !self.is_member(world, parent) => break false,
                _ => {
                    self.path.push(parent);
                    at = parent;
                }
            }
        };
        let judged = if reachable { CLEAN } else { SKIP };
        for &ancestor in &self.path {
            Self::set_mark(&mut self.marks, self.stamp, ancestor, judged);
        }
        if !reachable {
            return None;
        }
        match world.relations.parent_of(entity) {
            Some(parent) => world.get::<G>(parent).ok().cloned(),
            None => Some(self.root.clone()),
        }
    }

    /// Asks the cache for what the candidates' walks will read (slot records, marks,
    /// relations, and the rows of `L`, `G` and `Children`), level by level up to
    /// their roots: each pass issues every candidate's loads before waiting on any.
    fn warm(&mut self, world: &World) {
        self.path.clear();
        self.path.extend_from_slice(&self.candidates);
        for _ in 0..WARM_LEVELS {
            for &entity in &self.path {
                prefetch(world.entities.slot_address(entity));
                prefetch(world.relations.slot_address(entity));
                prefetch(self.marks.as_ptr().wrapping_add(entity.index() as usize).cast());
            }
            let mut kept = 0;
            for at in 0..self.path.len() {
                let entity = self.path[at];
                if let Some(location) = world.entities.get(entity) {
                    let columns = self.columns_of(world, location.archetype);
                    columns.prefetch_row::<L, G>(world, location.archetype, location.row.index());
                }
                if let Some(parent) = world.relations.parent_of(entity) {
                    self.path[kept] = parent;
                    kept += 1;
                }
            }
            self.path.truncate(kept);
            if kept == 0 {
                break;
            }
        }
    }

    /// The columns of a table, resolved once per table.
    #[inline]
    fn columns_of(&mut self, world: &World, archetype: ArchetypeId) -> MemberColumns {
        let slot = archetype.index();
        if let Some(Some(columns)) = self.columns.get(slot) {
            return *columns;
        }
        let table = world.archetypes.get(archetype);
        let column = |id| table.column_index(id).unwrap_or(MemberColumns::NONE);
        let columns =
            MemberColumns { local: column(self.local_id), global: column(self.global_id), children: column(CHILDREN) };
        if slot >= self.columns.len() {
            self.columns.resize(slot + 1, None);
        }
        self.columns[slot] = Some(columns);
        columns
    }

    /// Computes `start` from `parent` and every member below it; returns how many.
    fn descend(&mut self, world: &mut World, start: Entity, parent: G) -> usize {
        let mut computed = 0;
        let mut stack = std::mem::take(&mut self.stack);
        stack.push((start, parent));
        while let Some((entity, parent)) = stack.pop() {
            let Ok(location) = world.locate(entity) else { continue };
            let columns = self.columns_of(world, location.archetype);
            let Some((local, mut global, children)) = columns.row(world, location.archetype, location.row.index())
            else {
                continue;
            };
            let value = (self.combine)(&parent, local);
            stack.extend(children.iter().rev().map(|&child| (child, value.clone())));
            *global = value;
            computed += 1;
        }
        self.stack = stack;
        computed
    }
}

/// Where a table keeps a member's parts.
#[derive(Clone, Copy)]
struct MemberColumns {
    local: usize,
    global: usize,
    children: usize,
}

impl MemberColumns {
    const NONE: usize = usize::MAX;

    /// Hints the cache to load the row's local, global and children.
    #[inline]
    fn prefetch_row<L: Component, G: Component>(self, world: &World, archetype: ArchetypeId, row: usize) {
        if self.local == Self::NONE || self.global == Self::NONE {
            return;
        }
        let table = world.archetypes.get(archetype);
        prefetch(downcast::<L>(table.column(self.local)).get_ptr().wrapping_add(row).cast());
        prefetch(downcast::<G>(table.column(self.global)).get_ptr().wrapping_add(row).cast());
        if self.children != Self::NONE {
            prefetch(downcast::<Children>(table.column(self.children)).get_ptr().wrapping_add(row).cast());
        }
    }

    /// The local, the global (for writing) and the children of the entity at `row` of
    /// `archetype`, or `None` if the table lacks `L` or `G`. `G` is written without a
    /// change stamp when untracked, as any write outside a run.
    #[inline]
    fn row<'w, L: Component, G: Component>(
        self,
        world: &'w mut World,
        archetype: ArchetypeId,
        row: usize,
    ) -> Option<(&'w L, crate::Mut<'w, G>, &'w [Entity])> {
        if self.local == Self::NONE || self.global == Self::NONE {
            return None;
        }
        let now = world.change_tick();
        let table = world.archetypes.get_mut(archetype);
        let (before, after) = table.columns.split_at_mut(self.global);
        let (global, after) = after.split_first_mut().expect("the global's column");
        let other = |index: usize| -> &dyn crate::storage::Column {
            if index < self.global { &*before[index] } else { &*after[index - self.global - 1] }
        };
        let local = downcast::<L>(other(self.local)).get(row);
        let children = match self.children {
            Self::NONE => &[][..],
            index => downcast::<Children>(other(index)).get(row).as_slice(),
        };
        Some((local, downcast_mut::<G>(&mut **global).get_mut(row, now), children))
    }
}

/// A hint to load the cache line at `address`; it never faults, whatever the address.
#[inline(always)]
fn prefetch(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it reads nothing into the program and
    // never faults, whatever the address (SSE, which it needs, is in every x86_64).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
