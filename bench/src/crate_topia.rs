//! crate_topia (BENCHMARKS.md §B, "Crate-topia"): change tracking.
//!
//! N entities with (Position, Sprite), N ∈ {100,000, 1,000,000}. Each frame a *mover*
//! writes the Position of a fixed strided set of K entities (original indices i·(N/K),
//! i < K), K ∈ {0, 100, 10,000}; a *renderer* processes exactly the entities whose
//! Position changed since it last ran and folds them into an order-independent checksum
//! (wrapping sum of a per-entity hash of the entity's original index, kept in Sprite, and
//! its position bits).
//!
//! Two criterion groups per (N, K), one function per line, and a third at N = 1,000,000,
//! K = 10,000:
//! * `crate_topia_render/N=..,K=..`: the renderer step alone; the mover runs untimed
//!   before each timed renderer call (`iter_custom`, one `Instant` pair per call);
//! * `crate_topia_frame/N=..,K=..`: mover + renderer, timed together;
//! * `crate_topia_mover/N=1000000,K=10000`: the mover step alone, the renderer untimed
//!   after it, with `ripple_untracked` (ripple's mover with Position not tracked: the
//!   cost of finding and writing the entities, with no change tracking) beside the
//!   lines.
//!
//! Lines: `ripple` (`Changed<Position>` on a tracked Position), `bevy_ecs` (`Changed<Position>`
//! in a `SystemState`), `specs` (`FlaggedStorage` + a `ReaderId` read into a `BitSet`),
//! `shipyard` (`track::Modification` + `.modified()` + `clear_all_modified`), `legion`
//! (`maybe_changed::<Position>()`), `brute` (a plain ripple query over all N) and `ideal`
//! (a `Vec<u32>` of changed indices into a `Vec` of positions: the practical floor, since
//! it touches exactly the K changed positions and sprites and nothing else). The peers'
//! faster forms beside them: `bevy_ecs_contiguous` (a summary tick per table and
//! contiguous iteration) and `specs_events` (the storage's events read directly, O(K)).
//!
//! legion's filter and BRUTE only narrow the candidates (legion: to archetype slices
//! written since its last run; BRUTE: not at all), so both find the changed entities
//! among the candidates by comparing each position with a shadow copy of the last one
//! they rendered: that is the price of not knowing which entities changed.
//!
//! Every world is built once per (N, K, line), outside the timed loops. Before timing,
//! each line runs one warm-up frame (discarded: a renderer's first run sees every entity
//! as new) and then `CHECK_FRAMES` frames whose checksums must equal IDEAL's, frame by
//! frame (`assert_eq!`); with K = 0 they must be 0.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// 2×f32; the mover adds 1 to `x`.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Position {
    /// Written by the mover.
    pub x: f32,
    /// Never written after spawn.
    pub y: f32,
}

/// The entity's original (spawn) index, and a payload.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Sprite {
    /// Index of the entity in spawn order: identifies it in the checksum.
    pub index: u32,
    /// Unused payload, so that Sprite is as large as Position.
    pub layer: u32,
}

// specs: Position is flagged (events on every mutable access), Sprite plain.
impl specs::Component for Position {
    type Storage = specs::FlaggedStorage<Self, specs::VecStorage<Self>>;
}
impl specs::Component for Sprite {
    type Storage = specs::VecStorage<Self>;
}

// shipyard: by hand, as `#[derive(Component)] #[track(Modification)]` would (the derive
// needs shipyard's `proc` feature, which the bench does not enable).
impl shipyard::Component for Position {
    type Tracking = shipyard::track::Modification;
}
impl shipyard::Component for Sprite {
    type Tracking = shipyard::track::Untracked;
}

/// Entity counts.
pub const SIZES: [usize; 2] = [100_000, 1_000_000];
/// Entities moved per frame.
pub const CHANGED: [usize; 3] = [0, 100, 10_000];
/// Checked frames after the warm-up frame.
pub const CHECK_FRAMES: usize = 4;
/// The (N, K) whose mover step is also timed alone (`crate_topia_mover`).
pub const MOVER_CASE: (usize, usize) = (1_000_000, 10_000);

/// The components of the entity spawned `i`-th.
#[inline]
pub fn spawn_item(i: usize) -> (Position, Sprite) {
    // Positions stay small so that `x += 1.0` changes x's bits for millions of frames.
    (Position { x: (i % 1024) as f32, y: (i / 1024) as f32 }, Sprite { index: i as u32, layer: 0 })
}

/// The original indices the mover writes: i·(N/K) for i < K.
pub fn mover_indices(n: usize, k: usize) -> Vec<usize> {
    if k == 0 { Vec::new() } else { (0..k).map(|i| i * (n / k)).collect() }
}

/// A ripple world of `n` crates with `Position` tracked, and the handles of its `k`
/// movers: the setup of the known-entity write workloads (`get_mut`, its probe).
pub fn ripple_tracked_movers(n: usize, k: usize) -> (ripple::World, Vec<ripple::Entity>) {
    let mut world = ripple::World::new();
    world.track::<Position>();
    let ids: Vec<ripple::Entity> = world.spawn_batch((0..n).map(spawn_item)).collect();
    let movers = mover_indices(n, k).into_iter().map(|i| ids[i]).collect();
    (world, movers)
}

/// splitmix64's finaliser.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Position's bits as one word (the shadow copies of legion and BRUTE).
#[inline(always)]
fn pos_bits(p: &Position) -> u64 {
    (u64::from(p.x.to_bits()) << 32) | u64::from(p.y.to_bits())
}

/// A shadow slot no position can match (its x bits are a NaN).
const NO_POSITION: u64 = u64::MAX;

/// The per-entity term of the checksum; the checksum is the wrapping sum of these over
/// the entities rendered, so it does not depend on visit order.
#[inline(always)]
fn entity_hash(index: u32, p: &Position) -> u64 {
    mix(pos_bits(p) ^ mix(u64::from(index) ^ 0x9E37_79B9_7F4A_7C15))
}

/// One library's world with its mover and renderer.
pub trait Line {
    /// Writes Position of the K mover entities (x += 1).
    fn mover(&mut self);
    /// Folds the entities whose Position changed since the last call into a checksum.
    fn render(&mut self) -> u64;
}

/// One frame of `line`: the mover, then the renderer; the renderer's checksum.
pub fn frame(line: &mut dyn Line) -> u64 {
    line.mover();
    line.render()
}

/// Criterion's settings for a group of frames at `n` entities: short runs, criterion's
/// minimum of 10 samples at a million.
pub fn configure(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, n: usize) {
    group.sample_size(if n >= 1_000_000 { 10 } else { 20 });
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_millis(1000));
}

// ---------------------------------------------------------------------------------------
// IDEAL: a Vec of positions and a Vec<u32> of the indices changed since the last render.

struct Ideal {
    positions: Vec<Position>,
    sprites: Vec<Sprite>,
    movers: Vec<u32>,
    changed: Vec<u32>,
}

impl Ideal {
    fn new(n: usize, movers: &[usize]) -> Self {
        let (positions, sprites) = (0..n).map(spawn_item).unzip();
        Ideal {
            positions,
            sprites,
            movers: movers.iter().map(|&i| i as u32).collect(),
            // Like every renderer's first run: everything is new.
            changed: (0..n as u32).collect(),
        }
    }
}

impl Line for Ideal {
    fn mover(&mut self) {
        for &i in &self.movers {
            self.positions[i as usize].x += 1.0;
            self.changed.push(i);
        }
    }

    fn render(&mut self) -> u64 {
        let mut sum = 0u64;
        for &i in &self.changed {
            let i = i as usize;
            sum = sum.wrapping_add(entity_hash(self.sprites[i].index, &self.positions[i]));
        }
        self.changed.clear();
        sum
    }
}

// ---------------------------------------------------------------------------------------
// BRUTE: a plain ripple query over all N (Position untracked), diffed against a shadow.

struct Brute {
    world: ripple::World,
    movers: Vec<ripple::Entity>,
    mover: ripple::query::QueryState<&'static mut Position>,
    renderer: ripple::query::QueryState<(&'static Position, &'static Sprite)>,
    shadow: Vec<u64>,
}

impl Brute {
    fn new(n: usize, movers: &[usize]) -> Self {
        let mut world = ripple::World::new();
        let ids: Vec<ripple::Entity> = world.spawn_batch((0..n).map(spawn_item)).collect();
        let movers = movers.iter().map(|&i| ids[i]).collect();
        let mover = world.query::<&mut Position>();
        let renderer = world.query::<(&Position, &Sprite)>();
        Brute { world, movers, mover, renderer, shadow: vec![NO_POSITION; n] }
    }
}

impl Line for Brute {
    fn mover(&mut self) {
        for &e in &self.movers {
            self.mover.get_mut(&mut self.world, e).unwrap().x += 1.0;
        }
    }

    fn render(&mut self) -> u64 {
        let shadow = &mut self.shadow;
        let mut sum = 0u64;
        self.renderer.for_each(&self.world, |(p, s)| {
            let bits = pos_bits(p);
            let slot = &mut shadow[s.index as usize];
            if *slot != bits {
                *slot = bits;
                sum = sum.wrapping_add(entity_hash(s.index, p));
            }
        });
        sum
    }
}

// ---------------------------------------------------------------------------------------
// ripple: Position tracked; the renderer's QueryState remembers its last run.

struct Ripple {
    world: ripple::World,
    movers: Vec<ripple::Entity>,
    mover: ripple::query::QueryState<&'static mut Position>,
    renderer: ripple::query::QueryState<(&'static Position, &'static Sprite), ripple::query::Changed<Position>>,
}

impl Ripple {
    fn new(n: usize, movers: &[usize]) -> Self {
        let mut world = ripple::World::new();
        world.track::<Position>();
        let ids: Vec<ripple::Entity> = world.spawn_batch((0..n).map(spawn_item)).collect();
        let movers = movers.iter().map(|&i| ids[i]).collect();
        let mover = world.query::<&mut Position>();
        let renderer = world.query_filtered::<(&Position, &Sprite), ripple::query::Changed<Position>>();
        Ripple { world, movers, mover, renderer }
    }
}

impl Line for Ripple {
    fn mover(&mut self) {
        // Writes a known set of entities: one table lookup shared by the whole set.
        let moved = self.mover.for_each_of_mut(&mut self.world, &self.movers, |mut p| p.x += 1.0);
        debug_assert_eq!(moved, self.movers.len());
    }

    fn render(&mut self) -> u64 {
        let mut sum = 0u64;
        self.renderer.for_each(&self.world, |(p, s)| {
            sum = sum.wrapping_add(entity_hash(s.index, p));
        });
        sum
    }
}

/// ripple's line with the mover of the README's examples: `QueryState::get_mut`, one
/// entity at a time (each write looks its entity up alone).
struct RippleGet(Ripple);

impl Line for RippleGet {
    fn mover(&mut self) {
        let Ripple { world, movers, mover, .. } = &mut self.0;
        for &e in movers.iter() {
            mover.get_mut(world, e).unwrap().x += 1.0;
        }
    }

    fn render(&mut self) -> u64 {
        self.0.render()
    }
}

/// ripple's line with the mover writing through `World::get_mut`, entity by entity
/// (the README's other form: no query state at all).
struct RippleWorldGet(Ripple);

impl Line for RippleWorldGet {
    fn mover(&mut self) {
        let Ripple { world, movers, .. } = &mut self.0;
        for &e in movers.iter() {
            world.get_mut::<Position>(e).unwrap().x += 1.0;
        }
    }

    fn render(&mut self) -> u64 {
        self.0.render()
    }
}

/// The movers of [`RippleSystemGet`], as a resource its system reads.
struct Movers(Vec<ripple::Entity>);

/// ripple's line with the mover as a one-shot system writing through its
/// `Query::get_mut`, entity by entity (the README's form inside systems).
struct RippleSystemGet {
    line: Ripple,
    mover: ripple::OneShotId<(), ()>,
}

impl RippleSystemGet {
    fn new(n: usize, movers: &[usize]) -> Self {
        let mut line = Ripple::new(n, movers);
        line.world.insert_resource(Movers(line.movers.clone()));
        let mover = line
            .world
            .register_system(
                |movers: ripple::system::Res<'_, Movers>, mut query: ripple::system::Query<'_, '_, &mut Position>| {
                    for &e in &movers.0 {
                        query.get_mut(e).unwrap().x += 1.0;
                    }
                },
            )
            .expect("the mover's parameters do not conflict");
        RippleSystemGet { line, mover }
    }
}

impl Line for RippleSystemGet {
    fn mover(&mut self) {
        self.line.world.run_system(self.mover).expect("the mover runs");
    }

    fn render(&mut self) -> u64 {
        self.line.render()
    }
}

// ---------------------------------------------------------------------------------------
// ripple with Position untracked: the mover alone (nothing can render only what changed),
// for the `crate_topia_mover` group: what ripple's entity lookup and write cost with no
// change tracking at all, beside the tracked mover. Its "renderer" reads the movers'
// Position and Sprite, the rows the tracked line's renderer reads after its mover, so
// that both movers meet the same caches (it does not know what changed: it reads the
// movers it was given).

pub struct RippleUntracked {
    world: ripple::World,
    movers: Vec<ripple::Entity>,
    mover: ripple::query::QueryState<&'static mut Position>,
    reader: ripple::query::QueryState<(&'static Position, &'static Sprite)>,
}

impl RippleUntracked {
    /// ripple's world of `n` crates whose `movers` (spawn indices) move, Position
    /// untracked.
    pub fn new(n: usize, movers: &[usize]) -> Self {
        let mut world = ripple::World::new();
        let ids: Vec<ripple::Entity> = world.spawn_batch((0..n).map(spawn_item)).collect();
        let movers = movers.iter().map(|&i| ids[i]).collect();
        let mover = world.query::<&mut Position>();
        let reader = world.query::<(&Position, &Sprite)>();
        RippleUntracked { world, movers, mover, reader }
    }
}

impl Line for RippleUntracked {
    fn mover(&mut self) {
        self.mover.for_each_of_mut(&mut self.world, &self.movers, |mut p| p.x += 1.0);
    }

    fn render(&mut self) -> u64 {
        let mut sum = 0u64;
        self.reader.for_each_of(&self.world, &self.movers, |(p, s)| sum = sum.wrapping_add(entity_hash(s.index, p)));
        sum
    }
}

/// [`RippleUntracked`] with the README's mover, `QueryState::get_mut` one entity at a
/// time: the lookup and write of the `ripple_get` line without change tracking.
struct RippleUntrackedGet(RippleUntracked);

impl Line for RippleUntrackedGet {
    fn mover(&mut self) {
        let RippleUntracked { world, movers, mover, .. } = &mut self.0;
        for &e in movers.iter() {
            mover.get_mut(world, e).unwrap().x += 1.0;
        }
    }

    fn render(&mut self) -> u64 {
        self.0.render()
    }
}

// ---------------------------------------------------------------------------------------
// bevy_ecs: the renderer is a SystemState (its own last-run tick) over
// Query<(&Position, &Sprite), Changed<Position>>; the mover a cached QueryState.

type BevyRenderQuery =
    bevy_ecs::system::Query<'static, 'static, (&'static Position, &'static Sprite), bevy_ecs::query::Changed<Position>>;

struct Bevy {
    world: bevy_ecs::world::World,
    movers: Vec<bevy_ecs::entity::Entity>,
    mover: bevy_ecs::query::QueryState<&'static mut Position>,
    renderer: bevy_ecs::system::SystemState<BevyRenderQuery>,
}

impl Bevy {
    fn new(n: usize, movers: &[usize]) -> Self {
        let mut world = bevy_ecs::world::World::new();
        let ids: Vec<bevy_ecs::entity::Entity> = world.spawn_batch((0..n).map(spawn_item)).collect();
        let movers = movers.iter().map(|&i| ids[i]).collect();
        let mover = world.query::<&mut Position>();
        let renderer = bevy_ecs::system::SystemState::<BevyRenderQuery>::new(&mut world);
        Bevy { world, movers, mover, renderer }
    }
}

impl Line for Bevy {
    fn mover(&mut self) {
        let mut query = self.mover.query_mut(&mut self.world);
        for &e in &self.movers {
            query.get_mut(e).unwrap().x += 1.0;
        }
    }

    fn render(&mut self) -> u64 {
        let query = self.renderer.get(&self.world).unwrap();
        query.iter().fold(0u64, |sum, (p, s)| sum.wrapping_add(entity_hash(s.index, p)))
    }
}

// ---------------------------------------------------------------------------------------
// specs: FlaggedStorage<Position>; the renderer reads the storage's events since its
// last read into a BitSet and joins with it.

struct Specs {
    world: specs::World,
    movers: Vec<specs::Entity>,
    reader: specs::ReaderId<specs::storage::ComponentEvent>,
    dirty: specs::BitSet,
}

impl Specs {
    fn new(n: usize, movers: &[usize]) -> Self {
        use specs::{Builder, WorldExt};
        let mut world = specs::World::new();
        world.register::<Position>();
        world.register::<Sprite>();
        // Registered before the spawns: the first read sees every insertion.
        let reader = world.write_storage::<Position>().register_reader();
        let ids: Vec<specs::Entity> = (0..n)
            .map(|i| {
                let (p, s) = spawn_item(i);
                world.create_entity().with(p).with(s).build()
            })
            .collect();
        let movers = movers.iter().map(|&i| ids[i]).collect();
        Specs { world, movers, reader, dirty: specs::BitSet::new() }
    }
}

impl Line for Specs {
    fn mover(&mut self) {
        use specs::WorldExt;
        let mut positions = self.world.write_storage::<Position>();
        for &e in &self.movers {
            positions.get_mut(e).unwrap().x += 1.0;
        }
    }

    fn render(&mut self) -> u64 {
        use specs::storage::ComponentEvent;
        use specs::{Join, WorldExt};
        let positions = self.world.read_storage::<Position>();
        let sprites = self.world.read_storage::<Sprite>();
        self.dirty.clear();
        for event in positions.channel().read(&mut self.reader) {
            match *event {
                ComponentEvent::Inserted(id) | ComponentEvent::Modified(id) => {
                    self.dirty.add(id);
                }
                ComponentEvent::Removed(_) => {}
            }
        }
        (&positions, &sprites, &self.dirty)
            .join()
            .fold(0u64, |sum, (p, s, _)| sum.wrapping_add(entity_hash(s.index, p)))
    }
}

// ---------------------------------------------------------------------------------------
// shipyard: Position tracks modification; outside workloads the window is "since the last
// clear_all_modified", so the renderer clears after it has read.

struct Shipyard {
    world: shipyard::World,
    movers: Vec<shipyard::EntityId>,
}

impl Shipyard {
    fn new(n: usize, movers: &[usize]) -> Self {
        let mut world = shipyard::World::new();
        let ids: Vec<shipyard::EntityId> = world.bulk_add_entity((0..n).map(spawn_item)).collect();
        let movers = movers.iter().map(|&i| ids[i]).collect();
        Shipyard { world, movers }
    }
}

impl Line for Shipyard {
    fn mover(&mut self) {
        use shipyard::{Get, ViewMut};
        let movers = &self.movers;
        self.world.run(|mut positions: ViewMut<'_, Position>| {
            for &e in movers {
                (&mut positions).get(e).unwrap().x += 1.0;
            }
        });
    }

    fn render(&mut self) -> u64 {
        use shipyard::{IntoIter, View, ViewMut};
        self.world.run(|positions: ViewMut<'_, Position>, sprites: View<'_, Sprite>| {
            let sum = (positions.modified(), &sprites)
                .iter()
                .fold(0u64, |sum, (p, s)| sum.wrapping_add(entity_hash(s.index, p)));
            positions.clear_all_modified();
            sum
        })
    }
}

// ---------------------------------------------------------------------------------------
// legion: a stored query filtered by maybe_changed::<Position>() (per archetype slice:
// one write marks the whole slice), diffed against a shadow copy.

struct Legion {
    world: legion::World,
    movers: Vec<legion::Entity>,
    /// The renderer: owns the filtered query (whose filter keeps the versions it has seen)
    /// and the shadow copy.
    renderer: Box<dyn FnMut(&legion::World) -> u64>,
}

impl Legion {
    fn new(n: usize, movers: &[usize]) -> Self {
        use legion::{IntoQuery, Read, maybe_changed};
        let mut world = legion::World::default();
        let ids = world.extend((0..n).map(spawn_item)).to_vec();
        world.pack(legion::storage::PackOptions::force());
        let movers = movers.iter().map(|&i| ids[i]).collect();
        let mut query = <(Read<Position>, Read<Sprite>)>::query().filter(maybe_changed::<Position>());
        let mut shadow = vec![NO_POSITION; n];
        let renderer = Box::new(move |world: &legion::World| {
            let mut sum = 0u64;
            query.for_each(world, |(p, s): (&Position, &Sprite)| {
                let bits = pos_bits(p);
                let slot = &mut shadow[s.index as usize];
                if *slot != bits {
                    *slot = bits;
                    sum = sum.wrapping_add(entity_hash(s.index, p));
                }
            });
            sum
        });
        Legion { world, movers, renderer }
    }
}

impl Line for Legion {
    fn mover(&mut self) {
        for &e in &self.movers {
            self.world.entry(e).unwrap().get_component_mut::<Position>().unwrap().x += 1.0;
        }
    }

    fn render(&mut self) -> u64 {
        (self.renderer)(&self.world)
    }
}

// ---------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------
// bevy_ecs in its own answer to "render what changed", from bevy_ecs 0.20.1's docs on
// `#[component(summary_tick)]` (component/mod.rs) and its contiguous iteration
// (query/state.rs `contiguous_iter`; bevy's benches/bevy_ecs/iteration/
// iter_simple_contiguous.rs): Position carries a per-table summary tick, and the
// renderer walks each table's slices, skips a table whose summary tick says nothing
// changed, and otherwise tests each row's change tick (`is_changed_iter`). Contiguous
// iteration takes no `Changed` filter. All crates share one table, so the skip helps at
// K = 0 only; at K > 0 the renderer reads all N ticks. The mover stays `get_mut` per
// entity: contiguous iteration hands out whole tables, and writing through it would mark
// every row changed. The summary tick is on its own
// component type (`TickedPosition`) so that the `bevy_ecs` line's writes do not pay
// for it.

/// Position with bevy's per-table summary tick.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
#[component(summary_tick)]
pub struct TickedPosition(pub Position);

type BevyContiguousRenderQuery = bevy_ecs::system::Query<
    'static,
    'static,
    (bevy_ecs::change_detection::Ref<'static, TickedPosition>, &'static Sprite),
>;

struct BevyContiguous {
    world: bevy_ecs::world::World,
    movers: Vec<bevy_ecs::entity::Entity>,
    mover: bevy_ecs::query::QueryState<&'static mut TickedPosition>,
    renderer: bevy_ecs::system::SystemState<BevyContiguousRenderQuery>,
}

impl BevyContiguous {
    fn new(n: usize, movers: &[usize]) -> Self {
        let mut world = bevy_ecs::world::World::new();
        let ids: Vec<bevy_ecs::entity::Entity> = world
            .spawn_batch((0..n).map(|i| {
                let (p, s) = spawn_item(i);
                (TickedPosition(p), s)
            }))
            .collect();
        let movers = movers.iter().map(|&i| ids[i]).collect();
        let mover = world.query::<&mut TickedPosition>();
        let renderer = bevy_ecs::system::SystemState::<BevyContiguousRenderQuery>::new(&mut world);
        BevyContiguous { world, movers, mover, renderer }
    }
}

impl Line for BevyContiguous {
    fn mover(&mut self) {
        let mut query = self.mover.query_mut(&mut self.world);
        for &e in &self.movers {
            query.get_mut(e).unwrap().0.x += 1.0;
        }
    }

    fn render(&mut self) -> u64 {
        use bevy_ecs::change_detection::ContiguousRef;
        let query = self.renderer.get(&self.world).unwrap();
        let mut sum = 0u64;
        for (positions, sprites) in query.contiguous_iter().expect("both components are in tables") {
            let (positions, ticks) = ContiguousRef::split(positions);
            if ticks.summary_tick_is_changed() == Some(false) {
                continue;
            }
            for ((p, s), changed) in positions.iter().zip(sprites).zip(ticks.is_changed_iter()) {
                if changed {
                    sum = sum.wrapping_add(entity_hash(s.index, &p.0));
                }
            }
        }
        sum
    }
}

// ---------------------------------------------------------------------------------------
// specs reading its FlaggedStorage's events directly (specs 0.20 storage/track.rs:
// `channel().read(&mut reader)`), O(K): no BitSet whose clear and refill zero N/64 words
// a frame. A BitSet of the ids seen this frame (cleared bit by bit) keeps an entity
// flagged twice from being rendered twice, as `Changed` would not.

struct SpecsEvents {
    /// specs's world and mover, as the `specs` line has them (its BitSet unused).
    specs: Specs,
    seen: specs::BitSet,
    seen_ids: Vec<u32>,
}

impl SpecsEvents {
    fn new(n: usize, movers: &[usize]) -> Self {
        SpecsEvents { specs: Specs::new(n, movers), seen: specs::BitSet::new(), seen_ids: Vec::new() }
    }
}

impl Line for SpecsEvents {
    fn mover(&mut self) {
        self.specs.mover();
    }

    fn render(&mut self) -> u64 {
        use specs::WorldExt;
        use specs::storage::ComponentEvent;
        let Specs { world, reader, .. } = &mut self.specs;
        let positions = world.read_storage::<Position>();
        let sprites = world.read_storage::<Sprite>();
        let entities = world.entities();
        let mut sum = 0u64;
        for event in positions.channel().read(reader) {
            if let ComponentEvent::Inserted(id) | ComponentEvent::Modified(id) = *event {
                // `add` answers whether the bit was set already.
                if self.seen.add(id) {
                    continue;
                }
                self.seen_ids.push(id);
                let e = entities.entity(id);
                if let (Some(p), Some(s)) = (positions.get(e), sprites.get(e)) {
                    sum = sum.wrapping_add(entity_hash(s.index, p));
                }
            }
        }
        for id in self.seen_ids.drain(..) {
            self.seen.remove(id);
        }
        sum
    }
}

/// Builds one line's world for (n, k), by its name in [`build_lines`] (or
/// `ripple_untracked`, `ripple_untracked_get`); `None` for another name.
pub fn build_line(name: &str, n: usize, k: usize) -> Option<Box<dyn Line>> {
    build_line_moving(name, n, &mover_indices(n, k))
}

/// Builds one line's world of `n` crates whose `movers` (spawn indices, in the order
/// the mover writes them) move, by its name in [`build_lines`], `ripple_untracked`,
/// `ripple_untracked_get`, `ripple_get` (ripple's mover writing through
/// `QueryState::get_mut`, entity by entity) or `ripple_world_get` (through
/// `World::get_mut`); `None` for another name.
pub fn build_line_moving(name: &str, n: usize, movers: &[usize]) -> Option<Box<dyn Line>> {
    Some(match name {
        "ripple" => Box::new(Ripple::new(n, movers)),
        "ripple_get" => Box::new(RippleGet(Ripple::new(n, movers))),
        "ripple_world_get" => Box::new(RippleWorldGet(Ripple::new(n, movers))),
        "ripple_system_get" => Box::new(RippleSystemGet::new(n, movers)),
        "ripple_untracked" => Box::new(RippleUntracked::new(n, movers)),
        "ripple_untracked_get" => Box::new(RippleUntrackedGet(RippleUntracked::new(n, movers))),
        "bevy_ecs" => Box::new(Bevy::new(n, movers)),
        "bevy_ecs_contiguous" => Box::new(BevyContiguous::new(n, movers)),
        "specs" => Box::new(Specs::new(n, movers)),
        "specs_events" => Box::new(SpecsEvents::new(n, movers)),
        "shipyard" => Box::new(Shipyard::new(n, movers)),
        "legion" => Box::new(Legion::new(n, movers)),
        "brute" => Box::new(Brute::new(n, movers)),
        "ideal" => Box::new(Ideal::new(n, movers)),
        _ => return None,
    })
}

/// The lines of [`build_lines`], in report order.
pub const LINES: [&str; 9] =
    ["ripple", "bevy_ecs", "bevy_ecs_contiguous", "specs", "specs_events", "shipyard", "legion", "brute", "ideal"];

/// Builds every line's world for (n, k), in report order.
pub fn build_lines(n: usize, k: usize) -> Vec<(&'static str, Box<dyn Line>)> {
    LINES.iter().map(|&name| (name, build_line(name, n, k).expect("every listed line builds"))).collect()
}

/// Runs the warm-up frame and `CHECK_FRAMES` frames of every line and asserts that each
/// frame's checksum equals IDEAL's.
pub fn check_checksums(lines: &mut [(&'static str, Box<dyn Line>)], n: usize, k: usize) {
    let frames = |line: &mut dyn Line| -> Vec<u64> {
        let _warm_up = frame(line);
        (0..CHECK_FRAMES).map(|_| frame(line)).collect()
    };
    let ideal = lines.iter_mut().find(|(name, _)| *name == "ideal").expect("an ideal line");
    let expected = frames(ideal.1.as_mut());
    if k == 0 {
        assert!(expected.iter().all(|&c| c == 0), "IDEAL at N={n}, K=0: nonzero checksum {expected:?}");
    } else {
        assert!(expected.iter().all(|&c| c != 0), "IDEAL at N={n}, K={k}: zero checksum {expected:?}");
        assert!(expected.windows(2).all(|w| w[0] != w[1]), "IDEAL at N={n}, K={k}: frames alike {expected:?}");
    }
    for (name, line) in lines.iter_mut().filter(|(name, _)| *name != "ideal") {
        let got = frames(line.as_mut());
        assert_eq!(got, expected, "{name}: per-frame checksums differ from IDEAL's at N={n}, K={k}");
    }
    eprintln!("crate_topia N={n}, K={k}: {} lines, checksums equal to IDEAL's over {CHECK_FRAMES} frames", lines.len());
}

/// Which step of a frame a group times; the other runs untimed beside it.
#[derive(Clone, Copy)]
pub enum Step {
    /// The mover.
    Mover,
    /// The renderer.
    Render,
}

/// Runs `iters` frames of `line` (mover, then renderer) and returns the time spent in
/// `step` alone.
pub fn time_step(line: &mut dyn Line, iters: u64, step: Step) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = Instant::now();
        line.mover();
        if let Step::Mover = step {
            total += start.elapsed();
        }
        let start = Instant::now();
        black_box(line.render());
        if let Step::Render = step {
            total += start.elapsed();
        }
    }
    total
}
