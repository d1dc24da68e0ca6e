//! A typed component's values, tracked by entity slot: the shadow holds each slot's
//! value as of the newest checkpoint, a record the previous values of the slots a
//! checkpoint found changed (a slot index and the value, or the slot alone where the
//! component was absent).

use std::collections::VecDeque;

use crate::change::log::Cursor;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::query::{Changed, QueryState};
use crate::world::World;

use super::existence::Existence;
use super::track::{Phase, RecordBytes, Track};

/// How a restored value reaches the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    /// Through `get_mut` where the component is present (marks it changed), else
    /// inserted.
    InPlace,
    /// Inserted, replacing: for components the world keeps read-only (immutable
    /// components, relations).
    Insert,
}

/// The previous values of the slots one checkpoint found changed.
struct Record<T> {
    /// Slots whose component was present, with its value, in step.
    slots: Vec<u32>,
    values: Vec<T>,
    /// Slots whose component was absent.
    absent: Vec<u32>,
}

impl<T> Default for Record<T> {
    fn default() -> Self {
        Record { slots: Vec::new(), values: Vec::new(), absent: Vec::new() }
    }
}

impl<T> Record<T> {
    fn push(&mut self, slot: u32, value: Option<T>) {
        match value {
            Some(value) => {
                self.slots.push(slot);
                self.values.push(value);
            }
            None => self.absent.push(slot),
        }
    }

    fn is_empty(&self) -> bool {
        self.slots.is_empty() && self.absent.is_empty()
    }

    fn clear(&mut self) {
        self.slots.clear();
        self.values.clear();
        self.absent.clear();
    }

    fn recorded(&self) -> usize {
        (self.slots.len() + self.absent.len()) * size_of::<u32>() + self.values.len() * size_of::<T>()
    }

    fn reserved(&self) -> usize {
        (self.slots.capacity() + self.absent.capacity()) * size_of::<u32>() + self.values.capacity() * size_of::<T>()
    }
}

/// The tracked values of one component type.
pub(crate) struct ComponentTrack<T: Component> {
    id: ComponentId,
    changes: QueryState<Entity, Changed<T>>,
    removals: Cursor,
    shadow: Vec<Option<T>>,
    records: VecDeque<Record<T>>,
    redo: Vec<Record<T>>,
    spare: Vec<Record<T>>,
    touched: Vec<u32>,
    scratch: Vec<Entity>,
    write: Write,
    phase: Phase,
    hash: Option<fn(&T) -> u64>,
    sum: u64,
}

impl<T: Component + Clone + PartialEq> ComponentTrack<T> {
    /// Tracks `T` from the world as it is (O(entities with `T`)), restoring values in
    /// `phase` by `write`, adding `hash` of every value to the checksum.
    pub(crate) fn new(world: &mut World, write: Write, phase: Phase, hash: Option<fn(&T) -> u64>) -> Self {
        world.track::<T>();
        let id = world.components.id_or_register::<T>();
        let removals = world.removal_cursor(id);
        let mut changes = QueryState::<Entity, Changed<T>>::including_disabled(world);
        changes.skip_to_now(world);
        let mut track = ComponentTrack {
            id,
            changes,
            removals,
            shadow: Vec::new(),
            records: VecDeque::new(),
            redo: Vec::new(),
            spare: Vec::new(),
            touched: Vec::new(),
            scratch: Vec::new(),
            write,
            phase,
            hash,
            sum: 0,
        };
        let mut all = QueryState::<(Entity, &T)>::including_disabled(world);
        all.for_each(world, |(entity, value)| {
            track.set_shadow(entity.index(), Some(value.clone()));
        });
        track
    }

    /// Sets a slot's shadow value, keeping the checksum's sum; returns the value it
    /// replaced.
    fn set_shadow(&mut self, slot: u32, value: Option<T>) -> Option<T> {
        let slot = slot as usize;
        if slot >= self.shadow.len() {
            value.as_ref()?;
            self.shadow.resize_with(slot + 1, || None);
        }
        if let Some(hash) = self.hash {
            if let Some(old) = &self.shadow[slot] {
                self.sum = self.sum.wrapping_sub(hash(old));
            }
            if let Some(new) = &value {
                self.sum = self.sum.wrapping_add(hash(new));
            }
        }
        std::mem::replace(&mut self.shadow[slot], value)
    }

    fn shadow_of(&self, slot: u32) -> Option<&T> {
        self.shadow.get(slot as usize).and_then(Option::as_ref)
    }

    /// The value the world holds for the entity now in `slot`.
    fn current(world: &World, slot: u32) -> Option<&T> {
        world.entity_in_slot(slot).and_then(|entity| world.get::<T>(entity).ok())
    }

    /// Brings `slot`'s shadow up to the world, recording the value it held if it differed.
    fn visit(&mut self, world: &World, slot: u32, record: &mut Record<T>) {
        let now = Self::current(world, slot);
        if self.shadow_of(slot) == now {
            return;
        }
        let before = self.set_shadow(slot, now.cloned());
        record.push(slot, before);
    }

    /// Swaps `record`'s values into the shadow, returning a record of the values they
    /// replaced.
    fn swap_in(&mut self, mut record: Record<T>) -> Record<T> {
        let mut replaced = self.spare.pop().unwrap_or_default();
        for (slot, value) in record.slots.drain(..).zip(record.values.drain(..)) {
            replaced.push(slot, self.set_shadow(slot, Some(value)));
            self.touched.push(slot);
        }
        for slot in record.absent.drain(..) {
            replaced.push(slot, self.set_shadow(slot, None));
            self.touched.push(slot);
        }
        self.spare.push(record);
        replaced
    }
}

impl<T: Component + Clone + PartialEq> Track for ComponentTrack<T> {
    fn name(&self) -> &'static str {
        std::any::type_name::<T>()
    }

    fn capture(&mut self, world: &World, reoccupied: &[(u32, u32)]) {
        let mut record = self.spare.pop().unwrap_or_default();
        // First, so that the visits below find these slots settled.
        for &(slot, _) in reoccupied {
            let now = Self::current(world, slot);
            if now.is_some() || self.shadow_of(slot).is_some() {
                let before = self.set_shadow(slot, now.cloned());
                record.push(slot, before);
            }
        }
        let mut touched = std::mem::take(&mut self.scratch);
        touched.clear();
        self.changes.for_each(world, |entity| touched.push(entity));
        let read = world.removal_log(self.id).read(&self.removals);
        let missed = read.missed > 0;
        touched.extend(read.entries.map(|(entity, _)| entity));
        for entity in &touched {
            self.visit(world, entity.index(), &mut record);
        }
        if missed {
            // The removal log shed entries this track had not read: compare every slot.
            let slots = world.entities.slots().max(self.shadow.len());
            for slot in 0..slots as u32 {
                self.visit(world, slot, &mut record);
            }
        }
        self.scratch = touched;
        self.records.push_back(record);
    }

    fn newest_is_empty(&self) -> bool {
        self.records.back().is_none_or(Record::is_empty)
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

    fn detach(&mut self, world: &mut World, existence: &Existence) {
        if self.phase != Phase::Relations {
            return;
        }
        for &slot in &self.touched {
            let Some(entity) = existence.desired(slot) else { continue };
            if world.entity_in_slot(slot) != Some(entity) {
                continue;
            }
            let now = world.get::<T>(entity).ok();
            if now.is_some() && now != self.shadow_of(slot) {
                let _ = world.remove::<(T,)>(entity);
            }
        }
    }

    fn restore(&mut self, world: &mut World, existence: &Existence, phase: Phase) -> usize {
        if phase != self.phase {
            return 0;
        }
        let mut written = 0;
        let mut touched = std::mem::take(&mut self.touched);
        for &slot in &touched {
            let Some(entity) = existence.desired(slot) else { continue };
            if world.entity_in_slot(slot) != Some(entity) {
                continue;
            }
            let wanted = self.shadow_of(slot);
            let now = world.get::<T>(entity).ok();
            if wanted == now {
                continue;
            }
            written += 1;
            match wanted {
                None => {
                    let _ = world.remove::<(T,)>(entity);
                }
                Some(value) if now.is_some() && self.write == Write::InPlace => {
                    if let Ok(mut place) = world.get_mut::<T>(entity) {
                        *place = value.clone();
                    }
                }
                Some(value) => {
                    let _ = world.insert(entity, (value.clone(),));
                }
            }
        }
        touched.clear();
        self.touched = touched;
        written
    }

    fn checksum(&self) -> u64 {
        self.sum
    }

    fn bytes(&self) -> RecordBytes {
        let kept = self.records.iter().chain(&self.redo);
        RecordBytes {
            recorded: kept.clone().map(Record::recorded).sum(),
            reserved: kept.chain(&self.spare).map(Record::reserved).sum(),
            shadow: self.shadow.capacity() * size_of::<Option<T>>(),
        }
    }
}
