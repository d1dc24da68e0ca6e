//! A runtime component's values (plain bytes, registered with a
//! [`ComponentDescriptor`](crate::dynamic::ComponentDescriptor)), tracked by entity
//! slot as the typed track does, with the bytes in place of values.

use std::collections::VecDeque;

use crate::change::log::Cursor;
use crate::component::ComponentId;
use crate::dynamic::DynamicQuery;
use crate::entity::Entity;
use crate::query::ChangeSource;
use crate::world::World;

use super::existence::Existence;
use super::stable_hash;
use super::track::{Phase, RecordBytes, Touched, Track};

/// The previous values of the slots one checkpoint found changed.
#[derive(Default)]
struct Record {
    /// Slots whose component was present, with its bytes (`size` each), in step.
    slots: Vec<u32>,
    bytes: Vec<u8>,
    /// Slots whose component was absent.
    absent: Vec<u32>,
}

impl Record {
    fn clear(&mut self) {
        self.slots.clear();
        self.bytes.clear();
        self.absent.clear();
    }
}

/// The tracked bytes of one runtime component.
pub(crate) struct RuntimeTrack {
    id: ComponentId,
    name: &'static str,
    size: usize,
    changes: DynamicQuery,
    removals: Cursor,
    /// Each slot's bytes as of the newest checkpoint, `size` per slot, and whether the
    /// component was present (one bit per slot).
    shadow: Vec<u8>,
    present: Vec<u64>,
    hashed: bool,
    sum: u64,
    records: VecDeque<Record>,
    redo: Vec<Record>,
    spare: Vec<Record>,
    touched: Touched,
    scratch: Vec<Entity>,
    /// One value's bytes, for swaps.
    value: Vec<u8>,
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
            size,
            changes,
            removals,
            shadow: Vec::new(),
            present: Vec::new(),
            hashed,
            sum: 0,
            records: VecDeque::new(),
            redo: Vec::new(),
            spare: Vec::new(),
            touched: Touched::default(),
            scratch: Vec::new(),
            value: vec![0; size],
        };
        let mut all = world.dynamic_query().read(id).including_disabled().build().expect("a registered component");
        let mut found = Vec::new();
        all.for_each(world, |item| found.push((item.entity(), item.get(0).to_vec())));
        for (entity, bytes) in found {
            track.set(entity.index(), Some(&bytes));
        }
        track
    }

    fn has(&self, slot: u32) -> bool {
        self.present.get(slot as usize / 64).is_some_and(|word| word & (1 << (slot % 64)) != 0)
    }

    fn get(&self, slot: u32) -> Option<&[u8]> {
        let start = slot as usize * self.size;
        self.has(slot).then(|| &self.shadow[start..start + self.size])
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
                if self.shadow.len() < start + self.size {
                    self.shadow.resize(start + self.size, 0);
                }
                self.shadow[start..start + self.size].copy_from_slice(bytes);
                if self.hashed {
                    self.sum = self.sum.wrapping_add(stable_hash(bytes));
                }
            }
        }
    }

    fn current(world: &World, id: ComponentId, slot: u32) -> Option<&[u8]> {
        world.entity_in_slot(slot).and_then(|entity| world.get_by_id(entity, id).ok())
    }

    /// Records `slot`'s bytes into `record` and brings it up to the world, if they
    /// differ (or always, when `force`).
    fn visit(&mut self, world: &World, slot: u32, record: &mut Record, force: bool) {
        let now = Self::current(world, self.id, slot);
        let before = self.get(slot);
        if before == now && !(force && now.is_some()) {
            return;
        }
        match before {
            Some(bytes) => {
                record.slots.push(slot);
                record.bytes.extend_from_slice(bytes);
            }
            None => record.absent.push(slot),
        }
        self.set(slot, now);
    }

    /// Swaps `record`'s bytes into the shadow, returning a record of those replaced.
    fn swap_in(&mut self, mut record: Record) -> Record {
        let mut replaced = self.spare.pop().unwrap_or_default();
        let mut value = std::mem::take(&mut self.value);
        let mut put = |track: &mut Self, slot: u32, bytes: Option<&[u8]>| {
            match track.get(slot) {
                Some(old) => {
                    replaced.slots.push(slot);
                    replaced.bytes.extend_from_slice(old);
                }
                None => replaced.absent.push(slot),
            }
            track.set(slot, bytes);
            track.touched.add(slot);
        };
        for (i, &slot) in record.slots.iter().enumerate() {
            value.copy_from_slice(&record.bytes[i * self.size..(i + 1) * self.size]);
            put(self, slot, Some(&value));
        }
        for &slot in &record.absent {
            put(self, slot, None);
        }
        self.value = value;
        record.clear();
        self.spare.push(record);
        replaced
    }
}

impl Track for RuntimeTrack {
    fn name(&self) -> &'static str {
        self.name
    }

    fn capture(&mut self, world: &World, reoccupied: &[(u32, u32)]) {
        let mut record = self.spare.pop().unwrap_or_default();
        for &(slot, _) in reoccupied {
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
            let slots = world.entities.slots().max(self.present.len() * 64);
            for slot in 0..slots as u32 {
                self.visit(world, slot, &mut record, false);
            }
        }
        self.scratch = touched;
        self.records.push_back(record);
    }

    fn newest_is_empty(&self) -> bool {
        self.records.back().is_none_or(|r| r.slots.is_empty() && r.absent.is_empty())
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
        if phase != Phase::Values {
            return 0;
        }
        let mut written = 0;
        for &slot in self.touched.slots() {
            let Some(entity) = existence.restored(world, slot) else { continue };
            let wanted = self.get(slot);
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
        self.sum
    }

    fn bytes(&self) -> RecordBytes {
        let kept = self.records.iter().chain(&self.redo);
        let used = |r: &Record| (r.slots.len() + r.absent.len()) * 4 + r.bytes.len();
        let reserved = |r: &Record| (r.slots.capacity() + r.absent.capacity()) * 4 + r.bytes.capacity();
        RecordBytes {
            recorded: kept.clone().map(used).sum(),
            reserved: kept.chain(&self.spare).map(reserved).sum(),
            shadow: self.shadow.capacity() + self.present.capacity() * 8,
        }
    }
}
