//! A runtime component's values (plain bytes, registered with a
//! [`ComponentDescriptor`](crate::dynamic::ComponentDescriptor)), tracked by entity
//! slot as the typed track does, with the bytes in place of values.

use crate::change::log::Cursor;
use crate::component::ComponentId;
use crate::dynamic::DynamicQuery;
use crate::entity::Entity;
use crate::query::ChangeSource;
use crate::world::World;

use super::existence::Existence;
use super::ring::{Kept, Reusable, Ring};
use super::stable_hash;
use super::track::{Moved, Phase, RecordBytes, Touched, Track};

/// The previous values of the slots one checkpoint found changed.
#[derive(Default)]
struct Record {
    /// Slots whose component was present, with its bytes (`size` each), in step.
    slots: Vec<u32>,
    bytes: Vec<u8>,
    /// Slots whose component was absent.
    absent: Vec<u32>,
}

impl Reusable for Record {
    fn clear(&mut self) {
        self.slots.clear();
        self.bytes.clear();
        self.absent.clear();
    }

    fn is_empty(&self) -> bool {
        self.slots.is_empty() && self.absent.is_empty()
    }
}

impl Record {
    fn push(&mut self, slot: u32, bytes: Option<&[u8]>) {
        match bytes {
            Some(bytes) => {
                self.slots.push(slot);
                self.bytes.extend_from_slice(bytes);
            }
            None => self.absent.push(slot),
        }
    }
}

/// Each slot's bytes as of the newest checkpoint, `size` per slot, whether the
/// component was present (a bit per slot), and the checksum's sum over them.
struct Bytes {
    size: usize,
    values: Vec<u8>,
    present: Vec<u64>,
    hashed: bool,
    sum: u64,
}

impl Bytes {
    fn has(&self, slot: u32) -> bool {
        self.present.get(slot as usize / 64).is_some_and(|word| word & (1 << (slot % 64)) != 0)
    }

    fn get(&self, slot: u32) -> Option<&[u8]> {
        let start = slot as usize * self.size;
        self.has(slot).then(|| &self.values[start..start + self.size])
    }

    /// Sets a slot's bytes (`None`: absent), keeping the sum.
    fn set(&mut self, slot: u32, value: Option<&[u8]>) {
        if let Some(old) = self.get(slot)
            && self.hashed
        {
            self.sum = self.sum.wrapping_sub(stable_hash(old));
        }
        let (word, bit) = (slot as usize / 64, 1u64 << (slot % 64));
        match value {
            None => {
                if let Some(w) = self.present.get_mut(word) {
                    *w &= !bit;
                }
            }
            Some(bytes) => {
                if word >= self.present.len() {
                    self.present.resize(word + 1, 0);
                }
                self.present[word] |= bit;
                let start = slot as usize * self.size;
                if self.values.len() < start + self.size {
                    self.values.resize(start + self.size, 0);
                }
                self.values[start..start + self.size].copy_from_slice(bytes);
                if self.hashed {
                    self.sum = self.sum.wrapping_add(stable_hash(bytes));
                }
            }
        }
    }
}

/// Swaps `record`'s bytes into `shadow`, writing those they replaced into `replaced`
/// and listing the slots in `touched`.
fn swap_in(shadow: &mut Bytes, touched: &mut Touched, record: &mut Record, replaced: &mut Record) {
    let size = shadow.size;
    for (i, &slot) in record.slots.iter().enumerate() {
        replaced.push(slot, shadow.get(slot));
        shadow.set(slot, Some(&record.bytes[i * size..(i + 1) * size]));
        touched.add(slot);
    }
    for &slot in &record.absent {
        replaced.push(slot, shadow.get(slot));
        shadow.set(slot, None);
        touched.add(slot);
    }
}

/// The tracked bytes of one runtime component.
pub(crate) struct RuntimeTrack {
    id: ComponentId,
    name: &'static str,
    changes: DynamicQuery,
    removals: Cursor,
    shadow: Bytes,
    ring: Ring<Record>,
    touched: Touched,
    scratch: Vec<Entity>,
}

impl RuntimeTrack {
    /// Tracks runtime component `id` (plain bytes, no drop function) from the world as
    /// it is. O(entities with it).
    pub(crate) fn new(world: &mut World, id: ComponentId, hashed: bool) -> RuntimeTrack {
        let info = world.components.info(id);
        let (name, size) = (info.name, info.size);
        world.track_id(id);
        let removals = world.removal_cursor(id);
        let mut changes =
            world.dynamic_query().changed(id).including_disabled().build().expect("a registered component");
        changes.skip_to_now(world);
        let mut track = RuntimeTrack {
            id,
            name,
            changes,
            removals,
            shadow: Bytes { size, values: Vec::new(), present: Vec::new(), hashed, sum: 0 },
            ring: Ring::default(),
            touched: Touched::default(),
            scratch: Vec::new(),
        };
        let mut all = world.dynamic_query().read(id).including_disabled().build().expect("a registered component");
        let mut found = Vec::new();
        all.for_each(world, |item| found.push((item.entity(), item.get(0).to_vec())));
        for (entity, bytes) in found {
            track.shadow.set(entity.index(), Some(&bytes));
        }
        track
    }

    fn current(world: &World, id: ComponentId, slot: u32) -> Option<&[u8]> {
        world.entity_in_slot(slot).and_then(|entity| world.get_by_id(entity, id).ok())
    }

    /// Records `slot`'s bytes into `record` and brings it up to the world, if they
    /// differ (or always, when `force`).
    fn visit(&mut self, world: &World, slot: u32, record: &mut Record, force: bool) {
        let now = Self::current(world, self.id, slot);
        let before = self.shadow.get(slot);
        if before == now && !(force && now.is_some()) {
            return;
        }
        record.push(slot, before);
        self.shadow.set(slot, now);
    }
}

impl Track for RuntimeTrack {
    fn name(&self) -> &'static str {
        self.name
    }

    fn capture(&mut self, world: &World, since: Moved<'_>) {
        let mut record = self.ring.fresh();
        for &(slot, _) in since.reoccupied {
            self.visit(world, slot, &mut record, true);
        }
        let mut touched = std::mem::take(&mut self.scratch);
        touched.clear();
        self.changes.gather(world, &mut touched);
        let read = world.removal_log(self.id).read(&self.removals);
        let missed = read.missed > 0;
        touched.extend(read.entries.map(|(entity, _)| entity));
        for entity in &touched {
            self.visit(world, entity.index(), &mut record, false);
        }
        if missed {
            let slots = world.entities.slots().max(self.shadow.present.len() * 64);
            for slot in 0..slots as u32 {
                self.visit(world, slot, &mut record, false);
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
        if phase != Phase::Values {
            return 0;
        }
        let mut written = 0;
        for &slot in self.touched.slots() {
            let Some(entity) = existence.restored(world, slot) else { continue };
            let wanted = self.shadow.get(slot);
            if Self::current(world, self.id, slot) == wanted {
                continue;
            }
            written += 1;
            // The id names a registered runtime component and the sizes match: these
            // calls cannot fail on a live entity (and an entity gone is skipped).
            match wanted {
                None => drop(world.remove_by_id(entity, self.id)),
                Some(bytes) => match world.get_mut_by_id(entity, self.id) {
                    Ok(mut place) => place.copy_from_slice(bytes),
                    Err(_) => drop(world.insert_by_id(entity, self.id, bytes)),
                },
            }
        }
        self.touched.clear();
        written
    }

    fn checksum(&self) -> u64 {
        self.shadow.sum
    }

    fn bytes(&self) -> RecordBytes {
        let used = |r: &Record| (r.slots.len() + r.absent.len()) * 4 + r.bytes.len();
        let reserved = |r: &Record| (r.slots.capacity() + r.absent.capacity()) * 4 + r.bytes.capacity();
        RecordBytes {
            recorded: self.ring.in_use().map(used).sum(),
            reserved: self.ring.all().map(reserved).sum(),
            shadow: self.shadow.values.capacity() + self.shadow.present.capacity() * 8,
        }
    }
}
