//! [`Propagation`]: a derived "global" component computed from a "local" one down the
//! tree (world transforms, inherited visibility, tint), recomputing only what changed.
//! The tree is the hierarchy's by default, or that of any acyclic-in-practice
//! [`Relation`] (an item's `ContainedIn`, a turret's `MountedOn`).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::component::{Component, ComponentId, Storage};
use crate::entity::Entity;
use crate::query::{Dirty, QueryState, With, Without};
use crate::relation::{Related, Relation};
use crate::world::{World, WorldId};

use super::ChildOf;
use super::marks::{CLEAN, DIRTY, Marks, SKIP, WALKING};
use super::walk::{Chunk, Combine, Job, MemberTables, stamp_written, walk_parallel, walk_serial};
use crate::relation_registry::LinkTable;

/// What one [`Propagation::run`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PropagationStats {
    /// Global values recomputed (and written).
    pub recomputed: usize,
    /// Whether the run walked every tree from its root instead of following changes:
    /// its first run, one in which at least half the members changed, or the first
    /// after a run cut short by a panic.
    pub full: bool,
    /// Whether the run spread its walk over rayon's threads (see
    /// [`Propagation::run`]).
    pub parallel: bool,
}

/// Up to this many candidates, a run first loads what their walks will touch, a level
/// of the tree at a time for all of them together, so that the cache misses of
/// scattered entities overlap instead of coming one after another.
const WARM_CANDIDATES: usize = 4096;
/// How many levels above the candidates that loading reaches.
const WARM_LEVELS: usize = 8;
/// A walk of every tree goes parallel from this many members, and a walk of changed
/// subtrees from this many subtrees: runs of a few milliseconds, where the second
/// thread clearly pays for waking it (the measurements behind both are in the
/// changelog).
const PARALLEL_MEMBERS: usize = 32_768;
const PARALLEL_JOBS: usize = 4096;

/// Members whose local or parent changed, or that just became members.
type ChangedMembers<L, G, R> = (Dirty<(L, R)>, With<L>, With<G>);
/// Members without a parent.
type RootMembers<L, G, R> = (With<L>, With<G>, Without<R>);

/// Computes each entity's `G` from its parent's `G` and its own `L`, down the
/// hierarchy (or down any [`Relation`] `R`: an entity's parent is then its relation's
/// target), with a function `combine(parent_global, local)`.
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
/// [`Propagation::new`] follows the hierarchy (`ChildOf`); [`Propagation::along`]
/// follows a relation of your own, with the same costs and guarantees. A relation
/// with cycles is walked as far as its roots reach: members on a cycle have no root
/// above them and are left alone.
///
/// ```
/// use ripple::World;
/// use ripple::hierarchy::Propagation;
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
pub struct Propagation<L: Component, G: Component + Clone, R: Relation = ChildOf> {
    root: G,
    combine: Box<Combine<L, G>>,
    world_id: WorldId,
    local_id: ComponentId,
    global_id: ComponentId,
    /// `R`'s link table in the world's relation registry.
    links: u32,
    /// Members whose `L` or parent changed, or that became members, since the last run.
    dirty: QueryState<Entity, ChangedMembers<L, G, R>>,
    roots: QueryState<Entity, RootMembers<L, G, R>>,
    tables: MemberTables<L, G, R>,
    /// Whether the next run computes every member: before the first run, and after a
    /// run that a panic in `combine` cut short.
    walk_all: bool,
    /// This run's changed members.
    candidates: Vec<Entity>,
    /// This run's walks: where each starts, with its parent's value.
    jobs: Vec<Job<G>>,
    marks: Marks,
    /// The ancestors visited while resolving one candidate.
    path: Vec<Entity>,
    /// What each thread of a walk keeps (the first serves a walk on one thread).
    chunks: Vec<Chunk<G>>,
    /// Whether a run with much to do may spread over rayon's threads.
    parallel: bool,
}

impl<L: Component, G: Component + Clone> Propagation<L, G, ChildOf> {
    /// A propagation of `G` from `L` down the hierarchy of `world`; `root` is the
    /// parent value roots are combined with (the identity transform, "visible", no
    /// tint). Its first run computes every member.
    ///
    /// # Panics
    /// If `L` or `G` is stored in sparse sets ([`World::set_storage`]): propagation
    /// reads and writes members in their tables. If `G` is `L`, [`ChildOf`] or
    /// [`Children`](super::Children) (or another relation's component): the output
    /// would feed its own input, or bypass the relation's bookkeeping.
    pub fn new(world: &mut World, root: G, combine: impl Fn(&G, &L) -> G + Send + Sync + 'static) -> Self {
        Self::along(world, root, combine)
    }
}

impl<L: Component, G: Component + Clone, R: Relation> Propagation<L, G, R> {
    /// A propagation of `G` from `L` down relation `R` (registered here if it is not
    /// yet): an entity's parent is the target its `R` names, and its children are the
    /// target's [`Related<R>`] list. Otherwise as [`Propagation::new`], panics
    /// included.
    ///
    /// ```
    /// use ripple::{Entity, World};
    /// use ripple::hierarchy::Propagation;
    /// use ripple::relation::Relation;
    /// #[derive(Clone, Copy, Debug, PartialEq)]
    /// struct Place(f32);
    /// #[derive(Clone, Copy, Debug, PartialEq)]
    /// struct WorldPlace(f32);
    /// /// A turret mounted on a ship: moves with it, but is not its child.
    /// struct MountedOn(Entity);
    /// impl Relation for MountedOn {
    ///     const ACYCLIC: bool = true;
    ///     fn target(&self) -> Entity { self.0 }
    ///     fn to(target: Entity) -> Self { MountedOn(target) }
    ///     fn set_target(&mut self, target: Entity) { self.0 = target; }
    /// }
    ///
    /// let mut world = World::new();
    /// let ship = world.spawn((Place(100.0), WorldPlace(0.0)));
    /// let turret = world.spawn((Place(2.0), WorldPlace(0.0)));
    /// world.relate(turret, MountedOn(ship)).unwrap();
    ///
    /// let mut places: Propagation<Place, WorldPlace, MountedOn> =
    ///     Propagation::along(&mut world, WorldPlace(0.0), |on: &WorldPlace, local: &Place| {
    ///         WorldPlace(on.0 + local.0)
    ///     });
    /// places.run(&mut world);
    /// assert_eq!(world.get::<WorldPlace>(turret), Ok(&WorldPlace(102.0)));
    ///
    /// world.get_mut::<Place>(ship).unwrap().0 = 50.0;
    /// assert_eq!(places.run(&mut world).recomputed, 2);
    /// assert_eq!(world.get::<WorldPlace>(turret), Ok(&WorldPlace(52.0)));
    /// ```
    pub fn along(world: &mut World, root: G, combine: impl Fn(&G, &L) -> G + Send + Sync + 'static) -> Self {
        assert!(
            world.storage::<L>() == Storage::Table && world.storage::<G>() == Storage::Table,
            "Propagation<{}, {}> needs both components in table storage",
            std::any::type_name::<L>(),
            std::any::type_name::<G>()
        );
        world.register_relation::<R>();
        let links = world.relation_index::<R>().expect("registered above");
        let list_id = world.components.id_or_register::<Related<R>>();
        let local_id = world.components.id_or_register::<L>();
        let global_id = world.components.id_or_register::<G>();
        assert!(
            local_id != global_id && world.components.kept_refusal(global_id).is_none(),
            "Propagation<{}, {}> needs an output other than its input and other than a relation's component \
             (ChildOf, Children, a Relation or its Related list)",
            std::any::type_name::<L>(),
            std::any::type_name::<G>()
        );
        Propagation {
            root,
            combine: Box::new(combine),
            world_id: world.id(),
            local_id,
            global_id,
            links,
            dirty: QueryState::including_disabled(world),
            roots: QueryState::including_disabled(world),
            tables: MemberTables::new(local_id, global_id, list_id),
            walk_all: true,
            candidates: Vec::new(),
            jobs: Vec::new(),
            marks: Marks::default(),
            path: Vec::new(),
            chunks: Vec::new(),
            parallel: true,
        }
    }

    /// Whether a run with much to do may spread its walk over rayon's threads (the
    /// default; see [`run`](Self::run)), or always stays on the calling thread: for a
    /// caller that already keeps every thread busy. What a run computes does not
    /// depend on it.
    pub fn set_parallel(&mut self, parallel: bool) -> &mut Self {
        self.parallel = parallel;
        self
    }

    fn check_world(&self, world: &World) {
        assert!(self.world_id == world.id(), "Propagation used with a World other than the one it was made for");
    }

    /// Brings every member's `G` up to date with the changes since the last run (or
    /// computes them all, on the first run).
    ///
    /// A run with much to do (a walk of every tree over at least 32,768 members, or at
    /// least 4,096 changed subtrees) computes independent subtrees in parallel on
    /// rayon's threads, whichever thread calls it: on a thread of a pool, that thread
    /// walks its share at once and idle workers steal the rest; from any other thread,
    /// the walk goes to rayon's global pool and the caller waits for it (waking the
    /// workers costs microseconds, against runs of milliseconds at these sizes: all
    /// 100,000 members of a forest changed take 18.5 ms on one thread of the 2-core
    /// bench machine and about 10 ms on two). [`set_parallel(false)`](Self::set_parallel)
    /// keeps every run on the calling thread.
    ///
    /// If `combine` panics, the panic is passed on after the values written so far are
    /// recorded as changed, and the next run computes every member again.
    ///
    /// # Panics
    /// If `world` is not the world the propagation was made for; and with `combine`
    /// (or `G`'s `Clone` or `Drop`), as above.
    ///
    /// Steady runs allocate nothing once their scratch space has grown.
    pub fn run(&mut self, world: &mut World) -> PropagationStats {
        self.check_world(world);
        self.marks.begin(world.entities.slots());
        self.tables.begin();
        self.candidates.clear();
        self.jobs.clear();
        self.dirty.update_archetypes(world);
        let members = self.dirty.matched_entities(world);
        // Where at least half the members changed, a walk of every tree recomputes at
        // most twice what changed and saves walking up from each change; the rest of
        // the changes need not be read then (the walk covers them). Until the run
        // completes, the next one walks every tree: user code below (`G::clone`,
        // `combine`) may panic after the changes were read.
        let mut full = self.walk_all;
        self.walk_all = true;
        // A `Dirty` run hands out each entity once.
        for entity in self.dirty.iter(world) {
            if full {
                break;
            }
            self.candidates.push(entity);
            full = self.candidates.len() * 2 >= members;
        }
        if full {
            self.jobs.extend(self.roots.iter(world).map(|root| (root, self.root.clone())));
        } else {
            for &entity in &self.candidates {
                self.marks.set(entity, DIRTY);
            }
            if self.candidates.len() <= WARM_CANDIDATES {
                self.warm(world);
            }
            let links = world.relation_tables.get(self.links);
            for at in 0..self.candidates.len() {
                let entity = self.candidates[at];
                if let Some(parent) = self.resolve(world, links, entity) {
                    self.jobs.push((entity, parent));
                }
            }
        }
        if self.jobs.is_empty() {
            self.walk_all = false;
            return PropagationStats { recomputed: 0, full, parallel: false };
        }
        let parallel = self.parallel
            && rayon::current_num_threads() > 1
            && self.jobs.len() > 1
            && (if full { members >= PARALLEL_MEMBERS } else { self.jobs.len() >= PARALLEL_JOBS });
        if self.chunks.is_empty() {
            self.chunks.push(Chunk::default());
        }
        let walked = catch_unwind(AssertUnwindSafe(|| {
            if parallel {
                walk_parallel(world, &*self.combine, &self.jobs, &mut self.tables, &self.marks, &mut self.chunks)
            } else {
                walk_serial(world, &*self.combine, &self.jobs, &mut self.tables, &mut self.marks, &mut self.chunks[0])
            }
        }));
        stamp_written(world, self.global_id, &mut self.chunks);
        // The jobs' values are the user's `G`s: not kept alive until the next run.
        self.jobs.clear();
        match walked {
            Ok(recomputed) => {
                self.walk_all = false;
                PropagationStats { recomputed, full, parallel }
            }
            Err(panic) => resume_unwind(panic),
        }
    }

    /// Recomputes `entity`'s `G` now, and its ancestors' on the way, and returns it:
    /// read-your-writes for a caller that cannot wait for the next [`run`](Self::run)
    /// (which still recomputes whatever the writes affect). O(depth). `None` if the
    /// entity is not a member reachable from a root (also where the relation leads
    /// it into a cycle, found in O(path to the cycle + its length)).
    ///
    /// # Panics
    /// If `world` is not the world the propagation was made for.
    pub fn update_now<'w>(&mut self, world: &'w mut World, entity: Entity) -> Option<&'w G> {
        self.check_world(world);
        self.path.clear();
        let links = world.relation_tables.get(self.links);
        let mut at = entity;
        // For a relation that may have cycles: Brent's check, a marker moved to the
        // walk's head after 1, 2, 4, ... steps, which the walk meets again on a cycle
        // within twice the cycle's length.
        let (mut marker, mut since, mut span) = (entity, 0usize, 1usize);
        loop {
            if !self.is_member(world, at) {
                return None;
            }
            self.path.push(at);
            match links.target_of(at) {
                Some(parent) => at = parent,
                None => break,
            }
            if !R::ACYCLIC {
                if at == marker {
                    return None;
                }
                since += 1;
                if since == span {
                    (marker, since, span) = (at, 0, span * 2);
                }
            }
        }
        let mut value = self.root.clone();
        for &member in self.path.iter().rev() {
            value = (self.combine)(&value, world.get::<L>(member).ok()?);
            *world.get_mut::<G>(member).ok()? = value.clone();
        }
        world.get::<G>(entity).ok()
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
    fn resolve(&mut self, world: &World, links: &LinkTable, entity: Entity) -> Option<G> {
        self.path.clear();
        let mut at = entity;
        let reachable = loop {
            let Some(parent) = links.target_of(at) else { break true };
            match self.marks.get(parent) {
                // A dirty ancestor recomputes this one anyway; a path that meets itself
                // again is a cycle of the relation, which no root reaches.
                DIRTY | SKIP | WALKING => break false,
                CLEAN => break true,
                _ if !self.is_member(world, parent) => break false,
                _ => {
                    if !R::ACYCLIC {
                        self.marks.set(parent, WALKING);
                    }
                    self.path.push(parent);
                    at = parent;
                }
            }
        };
        let judged = if reachable { CLEAN } else { SKIP };
        for &ancestor in &self.path {
            self.marks.set(ancestor, judged);
        }
        if !reachable {
            return None;
        }
        match links.target_of(entity) {
            Some(parent) => world.get::<G>(parent).ok().cloned(),
            None => Some(self.root.clone()),
        }
    }

    /// Asks the cache for what the candidates' walks will read (slot records, marks,
    /// relations, and the rows of `L`, `G` and `Related<R>`), level by level up to
    /// their roots: each pass issues every candidate's loads before waiting on any.
    fn warm(&mut self, world: &World) {
        self.path.clear();
        self.path.extend_from_slice(&self.candidates);
        let links = world.relation_tables.get(self.links);
        for _ in 0..WARM_LEVELS {
            for &entity in &self.path {
                world.entities.prefetch(entity);
                links.prefetch(entity);
                self.marks.prefetch(entity);
            }
            let mut kept = 0;
            for at in 0..self.path.len() {
                let entity = self.path[at];
                if let Some(location) = world.entities.get(entity)
                    && let Some(rows) = self.tables.rows(world, location.archetype)
                {
                    rows.prefetch(location.row.index());
                }
                if let Some(parent) = links.target_of(entity) {
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
}
