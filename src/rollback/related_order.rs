//! The order of a relation's lists ([`Related<R>`]): restoring every source's relation
//! puts each source back on its target's list, but in the order of the restore; this
//! track puts each list back in the order it had.

use crate::change::log::Cursor;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::query::{Changed, QueryState};
use crate::relation::{Related, Relation};
use crate::world::World;

use super::existence::Existence;
use super::ring::{Kept, Reusable, Ring};
use super::track::{Moved, Phase, RecordBytes, Touched, Track};

/// The lists one checkpoint found changed, as they were: `(slot, start, len)` into
/// `entities`.
#[derive(Default)]
struct Record {
    lists: Vec<(u32, u32, u32)>,
    entities: Vec<Entity>,
}

impl Reusable for Record {
    fn clear(&mut self) {
        self.lists.clear();
        self.entities.clear();
    }

    fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }
}

impl Record {
    fn push(&mut self, slot: u32, list: &[Entity]) {
        self.lists.push((slot, self.entities.len() as u32, list.len() as u32));
        self.entities.extend_from_slice(list);
    }
}

/// Each target slot's list as of the newest checkpoint (empty: no list).
#[derive(Default)]
struct Lists(Vec<Vec<Entity>>);

impl Lists {
    fn get(&self, slot: u32) -> &[Entity] {
        self.0.get(slot as usize).map_or(&[], Vec::as_slice)
    }

    fn set(&mut self, slot: u32, list: &[Entity]) {
        let slot = slot as usize;
        if slot >= self.0.len() {
            if list.is_empty() {
                return;
            }
            self.0.resize_with(slot + 1, Vec::new);
        }
        self.0[slot].clear();
        self.0[slot].extend_from_slice(list);
    }
}

/// Swaps `record`'s lists into `shadow`, writing those they replaced into `replaced`
/// and listing the slots in `touched`.
fn swap_in(shadow: &mut Lists, touched: &mut Touched, record: &mut Record, replaced: &mut Record) {
    for &(slot, start, len) in &record.lists {
        replaced.push(slot, shadow.get(slot));
        shadow.set(slot, &record.entities[start as usize..(start + len) as usize]);
        touched.add(slot);
    }
}

/// The tracked order of `R`'s lists, by target slot (an empty list: no list).
pub(crate) struct RelatedOrderTrack<R: Relation> {
    id: ComponentId,
    changes: QueryState<Entity, Changed<Related<R>>>,
    removals: Cursor,
    shadow: Lists,
    ring: Ring<Record>,
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
            shadow: Lists::default(),
            ring: Ring::default(),
            touched: Touched::default(),
            scratch: Vec::new(),
        };
        let mut all = QueryState::<(Entity, &Related<R>)>::including_disabled(world);
        all.for_each(world, |(entity, list)| {
            track.shadow.set(entity.index(), list.as_slice());
        });
        track
    }

    fn current(world: &World, slot: u32) -> &[Entity] {
        world.entity_in_slot(slot).map_or(&[], |target| world.related::<R>(target))
    }
}

impl<R: Relation> Track for RelatedOrderTrack<R> {
    fn name(&self) -> &'static str {
        std::any::type_name::<Related<R>>()
    }

    fn capture(&mut self, world: &World, since: Moved<'_>) {
        let mut record = self.ring.fresh();
        let mut visit = |shadow: &mut Lists, slot: u32, force: bool| {
            let now = Self::current(world, slot);
            let before = shadow.get(slot);
            if before != now || (force && !now.is_empty()) {
                record.push(slot, before);
                shadow.set(slot, now);
            }
        };
        // First, so that the visits below find these slots settled.
        for &(slot, _) in since.reoccupied {
            visit(&mut self.shadow, slot, true);
        }
        let mut touched = std::mem::take(&mut self.scratch);
        touched.clear();
        self.changes.for_each(world, |entity| touched.push(entity));
        let read = world.removal_log(self.id).read(&self.removals);
        let missed = read.missed > 0;
        touched.extend(read.entries.map(|(entity, _)| entity));
        for entity in &touched {
            visit(&mut self.shadow, entity.index(), false);
        }
        if missed {
            for slot in 0..world.entities.slots().max(self.shadow.0.len()) as u32 {
                visit(&mut self.shadow, slot, false);
            }
        }
        self.scratch = touched;
        self.ring.push(record);
    }

    fn kept(&self) -> &dyn Kept {
        &self.ring
    }

    fn kept_mut(&mut self) -> &mut dyn Kept {
        &mut self.ring
    }

    fn unwind(&mut self, n: usize, keep: bool) {
        let (shadow, touched) = (&mut self.shadow, &mut self.touched);
        self.ring.undo(n, keep, |record, replaced| swap_in(shadow, touched, record, replaced));
    }

    fn redo(&mut self) {
        let (shadow, touched) = (&mut self.shadow, &mut self.touched);
        self.ring.redo(|record, replaced| swap_in(shadow, touched, record, replaced));
    }

    fn restore(&mut self, world: &mut World, existence: &Existence, phase: Phase) -> usize {
        if phase != Phase::Orders {
            return 0;
        }
        let mut written = 0;
        for &slot in self.touched.slots() {
            let Some(target) = existence.desired(slot) else { continue };
            let wanted = self.shadow.get(slot);
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
        RecordBytes {
            recorded: self.ring.in_use().map(|r| r.lists.len() * list + r.entities.len() * entity).sum(),
            reserved: self.ring.all().map(|r| r.lists.capacity() * list + r.entities.capacity() * entity).sum(),
            shadow: self.shadow.0.iter().map(|l| l.capacity() * entity).sum::<usize>()
                + self.shadow.0.capacity() * size_of::<Vec<Entity>>(),
        }
    }
}
