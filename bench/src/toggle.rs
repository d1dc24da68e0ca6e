//! toggle: a zero-sized marker that 1% of the entities gain and 1% lose each frame, and a
//! query over the marked entities — the "Changing" pattern, where a marker says which
//! entities move this frame.
//!
//! N = 1,000,000 entities with a Position (8 bytes); entity `i` belongs to group `i % 100`
//! (10,000 entities, one in every hundred). In frame `f` group `f % 100` carries the
//! `Moving` marker; the timed frame gives it to group `(f + 1) % 100`, takes it from group
//! `f % 100`, then visits every entity with `Moving` and folds its Position into a
//! checksum (the wrapping sum of `x`'s bits). So each frame 10,000 entities gain the
//! marker, 10,000 lose it, and the query finds 10,000.
//!
//! One function per library, each with its idiomatic storage for a toggled marker:
//! * `ripple`: the marker in a sparse set (`World::set_storage`), so adding or removing
//!   it moves nothing and the query starts from the set; added and removed through the
//!   set's view (`World::sparse_mut`), queried with `QueryState<&Position, With<Moving>>`;
//! * `ripple_table`: the same with the marker in the tables (the default storage):
//!   adding or removing it moves the entity's row to another table;
//! * `bevy_ecs`: `#[component(storage = "SparseSet")]` on the marker;
//!   `QueryState<&Position, With<Moving>>`; `bevy_ecs_insert_batch` gives the marker
//!   to the gaining group through `World::insert_batch`;
//! * `hecs`: archetypes only (`insert_one` / `remove_one`), `query_mut().with()`;
//! * `shipyard`: sparse sets (its only storage), `(&positions, &moving).iter()`;
//! * `specs`: `NullStorage` for the marker (its storage for zero-sized flags),
//!   `VecStorage` for Position, joined.
//!
//! The lists of each group's entities are made outside the timed part. Before timing,
//! each library runs 100 frames (every group once) and checks every frame's count and
//! checksum against the expected ones.

use std::hint::black_box;

/// 8 bytes, like Crate-topia's Position.
#[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}

/// The marker: zero-sized. Sparse-set storage in bevy_ecs.
#[derive(Clone, Copy, Debug, Default, PartialEq, bevy_ecs::component::Component)]
#[component(storage = "SparseSet")]
pub struct Moving;

impl specs::Component for Position {
    type Storage = specs::VecStorage<Self>;
}
impl specs::Component for Moving {
    type Storage = specs::NullStorage<Self>;
}
impl shipyard::Component for Position {
    type Tracking = shipyard::track::Untracked;
}
impl shipyard::Component for Moving {
    type Tracking = shipyard::track::Untracked;
}

/// Entities.
pub const N: usize = 1_000_000;
/// Groups: one in `GROUPS` entities is marked at a time.
pub const GROUPS: usize = 100;

fn position(i: usize) -> Position {
    Position { x: i as f32, y: 0.0 }
}

/// Entity `i`'s contribution to the checksum.
fn fold(p: &Position) -> u64 {
    u64::from(p.x.to_bits())
}

/// The checksum of group `g`.
pub fn expected(g: usize) -> u64 {
    (g..N).step_by(GROUPS).fold(0u64, |sum, i| sum.wrapping_add(fold(&position(i))))
}

/// Splits spawn-ordered entities into their groups.
fn groups<E: Copy>(entities: &[E]) -> Vec<Vec<E>> {
    (0..GROUPS).map(|g| entities[g..].iter().step_by(GROUPS).copied().collect()).collect()
}

/// A library's world in the toggle workload.
pub trait Line {
    /// Gives the marker to `gain`, takes it from `lose`.
    fn toggle(&mut self, gain: usize, lose: usize);
    /// Visits the marked entities: (count, checksum).
    fn visit(&mut self) -> (usize, u64);
}

/// One frame after frame `f`: returns what the query found.
pub fn frame(line: &mut dyn Line, f: usize) -> (usize, u64) {
    line.toggle((f + 1) % GROUPS, f % GROUPS);
    line.visit()
}

struct Ripple {
    world: ripple::World,
    groups: Vec<Vec<ripple::Entity>>,
    query: ripple::query::QueryState<&'static Position, ripple::query::With<Moving>>,
}

impl Ripple {
    fn new(storage: ripple::Storage) -> Self {
        let mut world = ripple::World::new();
        world.set_storage::<Moving>(storage).unwrap();
        let entities: Vec<ripple::Entity> = world.spawn_batch((0..N).map(|i| (position(i),))).collect();
        let groups = groups(&entities);
        for &e in &groups[0] {
            world.insert(e, (Moving,)).unwrap();
        }
        let query = world.query_filtered::<&Position, ripple::query::With<Moving>>();
        Ripple { world, groups, query }
    }
}

impl Line for Ripple {
    fn toggle(&mut self, gain: usize, lose: usize) {
        if self.world.storage::<Moving>() == ripple::Storage::SparseSet {
            // The set's view, resolved once per frame as shipyard's `ViewMut` and specs'
            // `WriteStorage` are.
            let mut moving = self.world.sparse_mut::<Moving>().unwrap();
            for &e in &self.groups[gain] {
                moving.insert(e, Moving).unwrap();
            }
            for &e in &self.groups[lose] {
                moving.remove(e).unwrap();
            }
            return;
        }
        for &e in &self.groups[gain] {
            self.world.insert(e, (Moving,)).unwrap();
        }
        for &e in &self.groups[lose] {
            self.world.remove::<(Moving,)>(e).unwrap();
        }
    }

    fn visit(&mut self) -> (usize, u64) {
        let (mut count, mut sum) = (0, 0u64);
        self.query.for_each(&self.world, |p| {
            count += 1;
            sum = sum.wrapping_add(fold(p));
        });
        (count, sum)
    }
}

struct Bevy {
    world: bevy_ecs::world::World,
    /// Gains the marker through `World::insert_batch`.
    batch: bool,
    groups: Vec<Vec<bevy_ecs::entity::Entity>>,
    query: bevy_ecs::query::QueryState<&'static Position, bevy_ecs::query::With<Moving>>,
}

impl Bevy {
    fn new(batch: bool) -> Self {
        let mut world = bevy_ecs::world::World::new();
        let entities: Vec<_> = world.spawn_batch((0..N).map(position)).collect();
        let groups = groups(&entities);
        for &e in &groups[0] {
            world.entity_mut(e).insert(Moving);
        }
        let query = world.query_filtered::<&Position, bevy_ecs::query::With<Moving>>();
        Bevy { world, batch, groups, query }
    }
}

impl Line for Bevy {
    fn toggle(&mut self, gain: usize, lose: usize) {
        if self.batch {
            // bevy_ecs 0.20.1 world/mod.rs `insert_batch`: one bundle inserter for the
            // group, where `entity_mut(e).insert` makes one per entity. bevy has no
            // batched remove.
            self.world.insert_batch(self.groups[gain].iter().map(|&e| (e, Moving)));
        } else {
            for &e in &self.groups[gain] {
                self.world.entity_mut(e).insert(Moving);
            }
        }
        for &e in &self.groups[lose] {
            self.world.entity_mut(e).remove::<Moving>();
        }
    }

    fn visit(&mut self) -> (usize, u64) {
        let (mut count, mut sum) = (0, 0u64);
        for p in self.query.iter(&self.world) {
            count += 1;
            sum = sum.wrapping_add(fold(p));
        }
        (count, sum)
    }
}

struct Hecs {
    world: hecs::World,
    groups: Vec<Vec<hecs::Entity>>,
}

impl Hecs {
    fn new() -> Self {
        let mut world = hecs::World::new();
        let entities: Vec<_> = world.spawn_batch((0..N).map(|i| (position(i),))).collect();
        let groups = groups(&entities);
        for &e in &groups[0] {
            world.insert_one(e, Moving).unwrap();
        }
        Hecs { world, groups }
    }
}

impl Line for Hecs {
    fn toggle(&mut self, gain: usize, lose: usize) {
        for &e in &self.groups[gain] {
            self.world.insert_one(e, Moving).unwrap();
        }
        for &e in &self.groups[lose] {
            black_box(self.world.remove_one::<Moving>(e).unwrap());
        }
    }

    fn visit(&mut self) -> (usize, u64) {
        let (mut count, mut sum) = (0, 0u64);
        for p in self.world.query_mut::<&Position>().with::<&Moving>() {
            count += 1;
            sum = sum.wrapping_add(fold(p));
        }
        (count, sum)
    }
}

struct Shipyard {
    world: shipyard::World,
    groups: Vec<Vec<shipyard::EntityId>>,
}

impl Shipyard {
    fn new() -> Self {
        let mut world = shipyard::World::new();
        let entities: Vec<_> = world.bulk_add_entity((0..N).map(|i| (position(i),))).collect();
        let groups = groups(&entities);
        let mut line = Shipyard { world, groups };
        line.toggle(0, usize::MAX);
        line
    }
}

impl Line for Shipyard {
    fn toggle(&mut self, gain: usize, lose: usize) {
        use shipyard::{Delete, EntitiesView, ViewMut};
        let groups = &self.groups;
        self.world.run(|entities: EntitiesView<'_>, mut moving: ViewMut<'_, Moving>| {
            for &e in &groups[gain] {
                entities.add_component(e, &mut moving, Moving);
            }
            if let Some(group) = groups.get(lose) {
                for &e in group {
                    black_box(moving.delete(e));
                }
            }
        });
    }

    fn visit(&mut self) -> (usize, u64) {
        use shipyard::{IntoIter, View};
        self.world.run(|positions: View<'_, Position>, moving: View<'_, Moving>| {
            let (mut count, mut sum) = (0, 0u64);
            for (p, _) in (&positions, &moving).iter() {
                count += 1;
                sum = sum.wrapping_add(fold(p));
            }
            (count, sum)
        })
    }
}

struct Specs {
    world: specs::World,
    groups: Vec<Vec<specs::Entity>>,
}

impl Specs {
    fn new() -> Self {
        use specs::{Builder, WorldExt};
        let mut world = specs::World::new();
        world.register::<Position>();
        world.register::<Moving>();
        let entities: Vec<_> = (0..N).map(|i| world.create_entity().with(position(i)).build()).collect();
        let groups = groups(&entities);
        let mut line = Specs { world, groups };
        line.toggle(0, usize::MAX);
        line
    }
}

impl Line for Specs {
    fn toggle(&mut self, gain: usize, lose: usize) {
        use specs::WorldExt;
        let mut moving = self.world.write_storage::<Moving>();
        for &e in &self.groups[gain] {
            moving.insert(e, Moving).unwrap();
        }
        if let Some(group) = self.groups.get(lose) {
            for &e in group {
                black_box(moving.remove(e));
            }
        }
    }

    fn visit(&mut self) -> (usize, u64) {
        use specs::{Join, WorldExt};
        let (positions, moving) = (self.world.read_storage::<Position>(), self.world.read_storage::<Moving>());
        let (mut count, mut sum) = (0, 0u64);
        for (p, _) in (&positions, &moving).join() {
            count += 1;
            sum = sum.wrapping_add(fold(p));
        }
        (count, sum)
    }
}

/// Every line's world, in report order, each with group 0 marked.
pub fn lines() -> Vec<(&'static str, Box<dyn Line>)> {
    vec![
        ("ripple", Box::new(Ripple::new(ripple::Storage::SparseSet))),
        ("ripple_table", Box::new(Ripple::new(ripple::Storage::Table))),
        ("bevy_ecs", Box::new(Bevy::new(false))),
        ("bevy_ecs_insert_batch", Box::new(Bevy::new(true))),
        ("hecs", Box::new(Hecs::new())),
        ("shipyard", Box::new(Shipyard::new())),
        ("specs", Box::new(Specs::new())),
    ]
}

/// Runs every group once on `line`, checking each frame's count and checksum; the line
/// ends back at group 0 marked.
pub fn check(name: &str, line: &mut dyn Line) {
    for f in 0..GROUPS {
        let found = frame(line, f);
        let g = (f + 1) % GROUPS;
        assert_eq!(found, (N / GROUPS, expected(g)), "{name}: frame {f} must find group {g}");
    }
}
