//! The order of a relation's lists ([`Related<R>`]): restoring every source's relation
//! puts each source back on its target's list, but in the order of the restore; this
//! track puts each list back in the order it had.

use std::collections::VecDeque;

use crate::change::log::Cursor;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::query::{Changed, QueryState};
use crate::relation::{Related, Relation};
use crate::world::World;

use super::existence::Existence;
use super::track::{Phase, RecordBytes, Touched, Track};

/// The lists one checkpoint found changed, as they were: `(slot, start, len)` into
/// `entities`.
#[derive(Default)]
struct Record {
    lists: Vec<(u32, u32, u32)>,
    entities: Vec<Entity>,
}

impl Record {
    fn push(&mut self, slot: u32, list: &[Entity]) {
        self.lists.push((slot, self.entities.len() as u32, list.len() as u32));
        self.entities.extend_from_slice(list);
    }

    fn clear(&mut self) {
        self.lists.clear();
        self.entities.clear();
    }
}

/// The tracked order of `R`'s lists, by target slot (an empty list: no list).
pub(crate) struct RelatedOrderTrack<R: Relation> {
    id: ComponentId,
    changes: QueryState<Entity, Changed<Related<R>>>,
    removals: Cursor,
    shadow: Vec<Vec<Entity>>,
    records: VecDeque<Record>,
    redo: Vec<Record>,
    spare: Vec<Record>,
    touched: Touched,
    scratch: Vec<Entity>,
}

impl<R: Relation> RelatedOrderTrack<R> {
    /// Tracks `R`'s lists from the world as it is. O(targets + their sources).
    pub(crate) fn new(world: &mut World) -> Self {
        world.track::<Related<R>>();
        let id = world.components.id_or_register::<Related<R>>();
        let removals = world.removal_cursor(id);
        let mut changes = QueryState::<Entity, Changed<Related<R>>>::including_disabled(world);
        changes.skip_to_now(world);
        let mut track = RelatedOrderTrack {
            id,
            changes,
            removals,
            shadow: Vec::new(),
            records: VecDeque::new(),
            redo: Vec::new(),
            spare: Vec::new(),
            touched: Touched::default(),
            scratch: Vec::new(),
        };
        let mut all = QueryState::<(Entity, &Related<R>)>::including_disabled(world);
        all.for_each(world, |(entity, list)| {
            track.shadow_mut(entity.index()).extend_from_slice(list.as_slice());
        });
        track
    }

    fn shadow_mut(&mut self, slot: u32) -> &mut Vec<Entity> {
        let slot = slot as usize;
        if slot >= self.shadow.len() {
            self.shadow.resize_with(slot + 1, Vec::new);
        }
        &mut self.shadow[slot]
    }

    fn shadow_of(&self, slot: u32) -> &[Entity] {
        self.shadow.get(slot as usize).map_or(&[], Vec::as_slice)
    }

    fn current(world: &World, slot: u32) -> &[Entity] {
        world.entity_in_slot(slot).map_or(&[], |target| world.related::<R>(target))
    }

    /// Swaps `record`'s lists into the shadow, returning a record of the lists they
    /// replaced.
    fn swap_in(&mut self, mut record: Record) -> Record {
        let mut replaced = self.spare.pop().unwrap_or_default();
        for &(slot, start, len) in &record.lists {
            let list = &record.entities[start as usize..(start + len) as usize];
            replaced.push(slot, self.shadow_of(slot));
            let shadow = self.shadow_mut(slot);
            shadow.clear();
            shadow.extend_from_slice(list);
            self.touched.add(slot);
        }
        record.clear();
        self.spare.push(record);
        replaced
    }
}

impl<R: Relation> Track for RelatedOrderTrack<R> {
    fn name(&self) -> &'static str {
        std::any::type_name::<Related<R>>()
    }

    fn capture(&mut self, world: &World, reoccupied: &[(u32, u32)]) {
        let mut record = self.spare.pop().unwrap_or_default();
        // First, so that the visits below find these slots settled.
        for &(slot, _) in reoccupied {
            let now = Self::current(world, slot);
            if !now.is_empty() || !self.shadow_of(slot).is_empty() {
                record.push(slot, self.shadow_of(slot));
                let shadow = self.shadow_mut(slot);
                shadow.clear();
                shadow.extend_from_slice(now);
            }
        }
        let mut touched = std::mem::take(&mut self.scratch);
        touched.clear();
        self.changes.for_each(world, |entity| touched.push(entity));
        let read = world.removal_log(self.id).read(&self.removals);
        let missed = read.missed > 0;
        touched.extend(read.entries.map(|(entity, _)| entity));
        let mut visit = |track: &mut Self, slot: u32| {
            let now = Self::current(world, slot);
            if track.shadow_of(slot) != now {
                record.push(slot, track.shadow_of(slot));
                let shadow = track.shadow_mut(slot);
                shadow.clear();
                shadow.extend_from_slice(now);
            }
        };
        for entity in &touched {
            visit(self, entity.index());
        }
        if missed {
            for slot in 0..world.entities.slots().max(self.shadow.len()) as u32 {
                visit(self, slot);
            }
        }
        self.scratch = touched;
        self.records.push_back(record);
    }

    fn newest_is_empty(&self) -> bool {
        self.records.back().is_none_or(|record| record.lists.is_empty())
    }

    fn unwind(&mut self, n: usize, keep: bool) {
        for _ in 0..n {
            let Some(record) = self.records.pop_back() else { return };
            let mut replaced = self.swap_in(record);
            if keep {
                self.redo.push(replaced);
            } else {
                replaced.clear();
                self.spare.push(replaced);
            }
        }
    }

    fn redo(&mut self) {
        if let Some(record) = self.redo.pop() {
            let replaced = self.swap_in(record);
            self.records.push_back(replaced);
        }
    }

    fn clear_redo(&mut self) {
        for mut record in self.redo.drain(..) {
            record.clear();
            self.spare.push(record);
        }
    }

    fn forget_oldest(&mut self) {
        if let Some(mut record) = self.records.pop_front() {
            record.clear();
            self.spare.push(record);
        }
    }

    fn restore(&mut self, world: &mut World, existence: &Existence, phase: Phase) -> usize {
        if phase != Phase::Orders {
            return 0;
        }
        let mut written = 0;
        for &slot in self.touched.slots() {
            let Some(target) = existence.desired(slot) else { continue };
            let wanted = self.shadow_of(slot);
            if world.entity_in_slot(slot) != Some(target) || wanted.is_empty() {
                continue;
            }
            if world.related::<R>(target) != wanted && world.replace_related::<R>(target, wanted).is_ok() {
                written += 1;
            }
        }
        self.touched.clear();
        written
    }

    fn checksum(&self) -> u64 {
        0
    }

    fn bytes(&self) -> RecordBytes {
        let entity = size_of::<Entity>();
        let list = size_of::<(u32, u32, u32)>();
        let kept = self.records.iter().chain(&self.redo);
        RecordBytes {
            recorded: kept.clone().map(|r| r.lists.len() * list + r.entities.len() * entity).sum(),
            reserved: kept.chain(&self.spare).map(|r| r.lists.capacity() * list + r.entities.capacity() * entity).sum(),
            shadow: self.shadow.iter().map(|l| l.capacity() * entity).sum::<usize>()
                + self.shadow.capacity() * size_of::<Vec<Entity>>(),
        }
    }
}
