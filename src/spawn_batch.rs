//! The iterator returned by [`World::spawn_batch`](crate::World::spawn_batch).

use std::iter::Fuse;

use crate::bundle::Bundle;
use crate::change::{ChangeLog, Move, Tick};
use crate::entity::{Entities, Entity, Location};
use crate::storage::{ArchetypeId, Row};
use crate::world::World;

/// Spawns one entity per bundle as it is advanced, yielding the new handles; spawns
/// the rest when dropped. Made by [`World::spawn_batch`](crate::World::spawn_batch).
pub struct SpawnBatch<'w, B: Bundle, I: Iterator<Item = B>> {
    inner: Inner<'w, B, I>,
}

enum Inner<'w, B: Bundle, I: Iterator<Item = B>> {
    /// Straight into the table.
    Fast(FastBatch<'w, B, I>),
    /// One [`World::spawn`] per bundle, so the table's hooks run for each entity.
    Hooked(HookedBatch<'w, B, I>),
}

/// Spawns through the world, running hooks.
struct HookedBatch<'w, B: Bundle, I: Iterator<Item = B>> {
    world: &'w mut World,
    /// Fused: once it has said `None`, dropping the batch asks no more of it (an
    /// iterator that yields again after `None` would have those spawned unseen).
    bundles: Fuse<I>,
}

impl<B: Bundle, I: Iterator<Item = B>> Drop for HookedBatch<'_, B, I> {
    fn drop(&mut self) {
        // Unwinding from a hook's panic: spawning the rest would run it again.
        if std::thread::panicking() {
            return;
        }
        for bundle in self.bundles.by_ref() {
            self.world.spawn(bundle);
        }
    }
}

/// Writes rows straight into the table.
struct FastBatch<'w, B: Bundle, I: Iterator<Item = B>> {
    /// Fused, as `HookedBatch`'s.
    bundles: Fuse<I>,
    writer: B::Writer<'w>,
    table_entities: &'w mut Vec<Entity>,
    entities: &'w mut Entities,
    moves: &'w mut ChangeLog<Move>,
    archetype: ArchetypeId,
    tick: Tick,
}

impl<'w, B: Bundle, I: Iterator<Item = B>> SpawnBatch<'w, B, I> {
    pub(crate) fn new(
        bundles: I,
        writer: B::Writer<'w>,
        table_entities: &'w mut Vec<Entity>,
        entities: &'w mut Entities,
        moves: &'w mut ChangeLog<Move>,
        archetype: ArchetypeId,
        tick: Tick,
    ) -> Self {
        let fast = FastBatch { bundles: bundles.fuse(), writer, table_entities, entities, moves, archetype, tick };
        SpawnBatch { inner: Inner::Fast(fast) }
    }

    /// A batch whose table has hooks: each entity is spawned through the world.
    pub(crate) fn hooked(world: &'w mut World, bundles: I) -> Self {
        SpawnBatch { inner: Inner::Hooked(HookedBatch { world, bundles: bundles.fuse() }) }
    }
}

impl<B: Bundle, I: Iterator<Item = B>> FastBatch<'_, B, I> {
    #[inline]
    fn spawn_one(&mut self, bundle: B) -> Entity {
        let row = Row(self.table_entities.len() as u32);
        let entity = self.entities.alloc(Location { archetype: self.archetype, row });
        // Values first: if the iterator's next bundle panics, no entity is left
        // without its row.
        bundle.push(&mut self.writer, self.tick);
        self.table_entities.push(entity);
        self.moves.push(Move::between(entity, None, Some(self.archetype)));
        entity
    }
}

impl<B: Bundle, I: Iterator<Item = B>> Iterator for SpawnBatch<'_, B, I> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        match &mut self.inner {
            Inner::Fast(fast) => {
                let bundle = fast.bundles.next()?;
                Some(fast.spawn_one(bundle))
            }
            Inner::Hooked(hooked) => {
                let bundle = hooked.bundles.next()?;
                Some(hooked.world.spawn(bundle))
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.inner {
            Inner::Fast(fast) => fast.bundles.size_hint(),
            Inner::Hooked(hooked) => hooked.bundles.size_hint(),
        }
    }

    #[inline]
    fn fold<Acc, G: FnMut(Acc, Entity) -> Acc>(mut self, init: Acc, mut g: G) -> Acc {
        let mut acc = init;
        // The fast path's loop, without `next`'s match per entity.
        if let Inner::Fast(fast) = &mut self.inner {
            while let Some(bundle) = fast.bundles.next() {
                let entity = fast.spawn_one(bundle);
                acc = g(acc, entity);
            }
            return acc;
        }
        // `for` calls `next`, not `fold`: no recursion.
        for entity in self {
            acc = g(acc, entity);
        }
        acc
    }
}

impl<B: Bundle, I: Iterator<Item = B>> ExactSizeIterator for SpawnBatch<'_, B, I> where I: ExactSizeIterator {}

impl<B: Bundle, I: Iterator<Item = B>> Drop for FastBatch<'_, B, I> {
    fn drop(&mut self) {
        // Spawning the rest is the documented behaviour of dropping the batch.
        while let Some(bundle) = self.bundles.next() {
            self.spawn_one(bundle);
        }
    }
}
