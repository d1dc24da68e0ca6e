//! A counting global allocator proves that steady frames over runtime components and
//! user relations allocate nothing: inserts and removals by id, queries over ids (with
//! change and dirty filters), and relation churn with despawn cascades.

use ripple::dynamic::ComponentDescriptor;
use ripple::relation::{DespawnPolicy, Relation};
use ripple::{Entity, Storage, World};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_on_this_thread as allocations_in;

#[test]
fn steady_frames_over_runtime_components_allocate_nothing() {
    let mut world = World::new();
    let pos = world.register_component(ComponentDescriptor::new("pos", 12, 4).unwrap());
    let vel = world.register_component(ComponentDescriptor::new("vel", 12, 4).unwrap());
    let hit = world.register_component(ComponentDescriptor::new("hit", 0, 1).unwrap().with_storage(Storage::SparseSet));
    let entities: Vec<Entity> = (0..500)
        .map(|_| {
            let e = world.spawn(());
            world.insert_by_id(e, pos, &[0; 12]).unwrap();
            world.insert_by_id(e, vel, &[1; 12]).unwrap();
            e
        })
        .collect();
    let mut step = world.dynamic_query().write(pos).read(vel).build().unwrap();
    let mut changed = world.dynamic_query().read(pos).changed(pos).build().unwrap();
    let mut dirty = world.dynamic_query().dirty(hit).dirty(vel).build().unwrap();
    let mut frame = |world: &mut World| {
        step.for_each_table(world, |mut table| {
            let vels = table.bytes(1);
            for (p, v) in table.bytes_mut(0).iter_mut().zip(vels) {
                *p = p.wrapping_add(*v);
            }
        })
        .unwrap();
        for &e in &entities[..50] {
            world.insert_by_id(e, hit, &[]).unwrap();
            world.get_mut_by_id(e, vel).unwrap()[0] ^= 1;
        }
        let mut seen = 0;
        changed.for_each(world, |item| seen += item.get(0).len());
        dirty.for_each(world, |_| seen += 1);
        for &e in &entities[..50] {
            world.remove_by_id(e, hit).unwrap();
        }
        // A table move by id, there and back.
        world.remove_by_id(entities[60], vel).unwrap();
        world.insert_by_id(entities[60], vel, &[1; 12]).unwrap();
        std::hint::black_box(seen);
    };
    for _ in 0..3 {
        frame(&mut world);
    }
    let allocations = allocations_in(|| {
        for _ in 0..10 {
            frame(&mut world);
        }
    });
    assert_eq!(allocations, 0, "steady frames allocated {allocations} times");
}

struct HeldBy(Entity);

impl Relation for HeldBy {
    const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::DespawnRelated;
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        HeldBy(target)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

/// Steady relation frames allocate nothing once lists and scratch space have grown:
/// targets live on (a new target's list is a new allocation, as a new parent's
/// `Children` is), sources are spawned, related, retargeted, unrelated and despawned,
/// some through a cascade (`despawn_related`).
#[test]
fn steady_relation_churn_allocates_nothing() {
    let mut world = World::new();
    world.register_relation::<HeldBy>();
    let targets: [Entity; 10] = std::array::from_fn(|_| world.spawn(()));
    let mut sources = Vec::with_capacity(100);
    let frame = |world: &mut World, sources: &mut Vec<Entity>| {
        sources.clear();
        for i in 0..100 {
            let source = world.spawn(());
            world.relate(source, HeldBy(targets[i % 10])).unwrap();
            sources.push(source);
        }
        for (i, &source) in sources.iter().enumerate() {
            world.relate(source, HeldBy(targets[(i + 1) % 10])).unwrap();
        }
        for &source in &sources[..50] {
            world.unrelate::<HeldBy>(source).unwrap();
        }
        // A cascade through the relation, keeping the target.
        world.despawn_related::<HeldBy>(targets[1]).unwrap();
        for &source in sources.iter() {
            let _ = world.despawn(source);
        }
    };
    for _ in 0..3 {
        frame(&mut world, &mut sources);
    }
    let allocations = allocations_in(|| {
        for _ in 0..10 {
            frame(&mut world, &mut sources);
        }
    });
    assert_eq!(allocations, 0, "steady frames allocated {allocations} times");
    assert_eq!(world.len(), targets.len());
}
