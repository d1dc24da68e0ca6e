//! The iterator returned by [`World::spawn_batch`](crate::World::spawn_batch).

use crate::bundle::Bundle;
use crate::change::{EventLog, Move, Tick};
use crate::entity::{Entities, Entity, Location};
use crate::storage::{ArchetypeId, Row};

/// Spawns one entity per bundle as it is advanced, yielding the new handles; spawns
/// the rest when dropped. Made by [`World::spawn_batch`](crate::World::spawn_batch).
pub struct SpawnBatch<'w, B: Bundle, I: Iterator<Item = B>> {
    bundles: I,
    writer: B::Writer<'w>,
    table_entities: &'w mut Vec<Entity>,
    entities: &'w mut Entities,
    moves: &'w mut EventLog<Move>,
    archetype: ArchetypeId,
    tick: Tick,
}

impl<'w, B: Bundle, I: Iterator<Item = B>> SpawnBatch<'w, B, I> {
    pub(crate) fn new(
        bundles: I,
        writer: B::Writer<'w>,
        table_entities: &'w mut Vec<Entity>,
        entities: &'w mut Entities,
        moves: &'w mut EventLog<Move>,
        archetype: ArchetypeId,
        tick: Tick,
    ) -> Self {
        SpawnBatch { bundles, writer, table_entities, entities, moves, archetype, tick }
    }

    #[inline]
    fn spawn_one(&mut self, bundle: B) -> Entity {
        let row = Row(self.table_entities.len() as u32);
        let entity = self.entities.alloc(Location { archetype: self.archetype, row });
        // Values first: if the iterator's next bundle panics, no entity is left
        // without its row.
        bundle.push(&mut self.writer, self.tick);
        self.table_entities.push(entity);
        self.moves.push(Move { entity, from: None, to: Some(self.archetype) });
        entity
    }
}

impl<B: Bundle, I: Iterator<Item = B>> Iterator for SpawnBatch<'_, B, I> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let bundle = self.bundles.next()?;
        Some(self.spawn_one(bundle))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.bundles.size_hint()
    }

    #[inline]
    fn fold<Acc, G: FnMut(Acc, Entity) -> Acc>(mut self, init: Acc, mut g: G) -> Acc {
        let mut acc = init;
        while let Some(bundle) = self.bundles.next() {
            let entity = self.spawn_one(bundle);
            acc = g(acc, entity);
        }
        acc
    }
}

impl<B: Bundle, I: Iterator<Item = B>> ExactSizeIterator for SpawnBatch<'_, B, I> where I: ExactSizeIterator {}

impl<B: Bundle, I: Iterator<Item = B>> Drop for SpawnBatch<'_, B, I> {
    fn drop(&mut self) {
        // Spawning the rest is the documented behaviour of dropping the batch.
        while let Some(bundle) = self.bundles.next() {
            self.spawn_one(bundle);
        }
    }
}
