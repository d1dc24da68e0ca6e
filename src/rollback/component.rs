//! A typed component's values, tracked by entity slot: the shadow holds each slot's
//! value as of the newest checkpoint, a record the previous values of the slots a
//! checkpoint found changed (a slot index and the value, or the slot alone where the
//! component was absent).

use crate::change::log::Cursor;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::query::{Changed, QueryState};
use crate::storage::ArchetypeId;
use crate::world::World;

use super::existence::Existence;
use super::ring::{Kept, Reusable, Ring};
use super::row_slots::RowSlots;
use super::track::{Moved, Phase, RecordBytes, Touched, Track};

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

impl<T> Reusable for Record<T> {
    fn clear(&mut self) {
        self.slots.clear();
        self.values.clear();
        self.absent.clear();
    }

    fn is_empty(&self) -> bool {
        self.slots.is_empty() && self.absent.is_empty()
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

    fn recorded(&self) -> usize {
        (self.slots.len() + self.absent.len()) * size_of::<u32>() + self.values.len() * size_of::<T>()
    }

    fn reserved(&self) -> usize {
        (self.slots.capacity() + self.absent.capacity()) * size_of::<u32>() + self.values.capacity() * size_of::<T>()
    }
}

/// Each slot's value as of the newest checkpoint, and the checksum's sum over them.
struct Shadow<T> {
    values: Vec<Option<T>>,
    hash: Option<fn(&T) -> u64>,
    sum: u64,
}

impl<T: PartialEq + Clone> Shadow<T> {
    fn get(&self, slot: u32) -> Option<&T> {
        self.values.get(slot as usize).and_then(Option::as_ref)
    }

    /// Sets a slot's value, keeping the sum; returns the value it replaced.
    #[inline(always)]
    fn set(&mut self, slot: u32, value: Option<T>) -> Option<T> {
        match self.values.get_mut(slot as usize) {
            Some(place) if self.hash.is_none() => std::mem::replace(place, value),
            _ => self.set_slow(slot, value),
        }
    }

    /// [`set`](Self::set) for a slot past the end, or with a checksum to keep.
    fn set_slow(&mut self, slot: u32, value: Option<T>) -> Option<T> {
        let slot = slot as usize;
        if slot >= self.values.len() {
            value.as_ref()?;
            self.values.resize_with(slot + 1, || None);
        }
        if let Some(hash) = self.hash {
            if let Some(old) = &self.values[slot] {
                self.sum = self.sum.wrapping_sub(hash(old));
            }
            if let Some(new) = &value {
                self.sum = self.sum.wrapping_add(hash(new));
            }
        }
        std::mem::replace(&mut self.values[slot], value)
    }

    /// Hints the processor to load `slot`'s value.
    #[inline]
    fn prefetch(&self, slot: u32) {
        crate::util::hint::prefetch(self.values.as_ptr().wrapping_add(slot as usize));
    }

    /// [`visit`](Self::visit) with the world's value taken: it is moved into the shadow
    /// (or dropped if equal) instead of cloned.
    #[inline]
    fn visit_owned(&mut self, slot: u32, now: T, record: &mut Record<T>) {
        if self.get(slot) == Some(&now) {
            return;
        }
        let before = self.set(slot, Some(now));
        record.push(slot, before);
    }

    /// Brings `slot` up to `now` (the world's value), recording the value it held if
    /// it differed.
    #[inline]
    fn visit(&mut self, slot: u32, now: Option<&T>, record: &mut Record<T>) {
        if self.get(slot) == now {
            return;
        }
        let before = self.set(slot, now.cloned());
        record.push(slot, before);
    }
}

/// Swaps `record`'s values into `shadow`, writing those they replaced into `replaced`
/// and listing the slots in `touched`.
fn swap_in<T: Clone + PartialEq>(
    shadow: &mut Shadow<T>,
    touched: &mut Touched,
    record: &mut Record<T>,
    replaced: &mut Record<T>,
) {
    for (slot, value) in record.slots.drain(..).zip(record.values.drain(..)) {
        replaced.push(slot, shadow.set(slot, Some(value)));
        touched.add(slot);
    }
    for slot in record.absent.drain(..) {
        replaced.push(slot, shadow.set(slot, None));
        touched.add(slot);
    }
}

/// The tracked values of one component type.
pub(crate) struct ComponentTrack<T: Component> {
    id: ComponentId,
    /// The values of `T` changed since the last capture.
    changes: QueryState<&'static T, Changed<T>>,
    /// Writes restored values in place (`None` for a component the world keeps
    /// read-only, which a `&mut T` query may not name).
    writer: Option<QueryState<&'static mut T>>,
    removals: Cursor,
    shadow: Shadow<T>,
    ring: Ring<Record<T>>,
    touched: Touched,
    /// Entities whose restored value is written in place, for one batched pass.
    in_place: Vec<Entity>,
    /// A capture's changed values, their table, row and slot, for its passes.
    found: Vec<(ArchetypeId, u32, u32)>,
    values: Vec<T>,
    /// The slots of the rows changed recently.
    rows: RowSlots,
    phase: Phase,
}

impl<T: Component + Clone + PartialEq> ComponentTrack<T> {
    /// Tracks `T` from the world as it is (O(entities with `T`)), restoring values in
    /// `phase` by `write`, adding `hash` of every value to the checksum.
    pub(crate) fn new(world: &mut World, write: Write, phase: Phase, hash: Option<fn(&T) -> u64>) -> Self {
        world.track::<T>();
        let id = world.components.id_or_register::<T>();
        let removals = world.removal_cursor(id);
        let mut changes = QueryState::<&T, Changed<T>>::including_disabled(world);
        changes.skip_to_now(world);
        let writer = (write == Write::InPlace).then(|| QueryState::including_disabled(world));
        let mut track = ComponentTrack {
            id,
            changes,
            writer,
            removals,
            shadow: Shadow { values: Vec::new(), hash, sum: 0 },
            ring: Ring::default(),
            touched: Touched::default(),
            in_place: Vec::new(),
            found: Vec::new(),
            values: Vec::new(),
            rows: RowSlots::default(),
            phase,
        };
        let mut all = QueryState::<(Entity, &T)>::including_disabled(world);
        all.for_each(world, |(entity, value)| {
            track.shadow.set(entity.index(), Some(value.clone()));
        });
        track
    }

    /// The value the world holds for the entity now in `slot`.
    fn current(world: &World, slot: u32) -> Option<&T> {
        world.entity_in_slot(slot).and_then(|entity| world.get::<T>(entity).ok())
    }
}

/// Gives the live `entity` the value `wanted` (absent: `None`) by insert or remove, if
/// it differs; 1 if it wrote.
fn put<T: Component + Clone + PartialEq>(world: &mut World, entity: Entity, wanted: Option<&T>) -> usize {
    if !world.contains(entity) || world.get::<T>(entity).ok() == wanted {
        return 0;
    }
    match wanted {
        None => drop(world.remove::<(T,)>(entity)),
        Some(value) => drop(world.insert(entity, (value.clone(),))),
    }
    1
}

impl<T: Component + Clone + PartialEq> Track for ComponentTrack<T> {
    fn name(&self) -> &'static str {
        std::any::type_name::<T>()
    }

    fn capture(&mut self, world: &World, since: Moved<'_>) {
        let mut record = self.ring.fresh();
        // First, so that the visits below find these slots settled.
        for &(slot, _) in since.reoccupied {
            let now = Self::current(world, slot);
            if now.is_some() || self.shadow.get(slot).is_some() {
                let before = self.shadow.set(slot, now.cloned());
                record.push(slot, before);
            }
        }
        // Three passes, so that the loads of far-apart rows and slots overlap instead of
        // waiting in turn: the run copies each changed value out and finds its entity
        // slot among the rows seen before, or loads its table's entity list at its row;
        // then each slot not found is read, and each shadow slot loaded; then the values
        // are compared with the shadow's.
        const UNKNOWN: u32 = u32::MAX;
        self.rows.forget(since.shrunk);
        let mut found = std::mem::take(&mut self.found);
        let mut values = std::mem::take(&mut self.values);
        let rows = &self.rows;
        self.changes.for_each_with_row(world, |table, row, now| {
            let slot = rows.get(table.id(), row as u32).unwrap_or_else(|| {
                crate::util::hint::prefetch(table.entities().as_ptr().wrapping_add(row));
                UNKNOWN
            });
            found.push((table.id(), row as u32, slot));
            values.push(now.clone());
        });
        for (table, row, slot) in &mut found {
            if *slot == UNKNOWN {
                *slot = world.archetypes.get(*table).entities()[*row as usize].index();
                self.rows.insert(*table, *row, *slot);
            }
            self.shadow.prefetch(*slot);
        }
        for (&(_, _, slot), value) in found.iter().zip(values.drain(..)) {
            self.shadow.visit_owned(slot, value, &mut record);
        }
        found.clear();
        self.found = found;
        self.values = values;
        let read = world.removal_log(self.id).read(&self.removals);
        if read.missed > 0 {
            // The removal log shed entries this track had not read: compare every slot.
            let slots = world.entities.slots().max(self.shadow.values.len());
            for slot in 0..slots as u32 {
                self.shadow.visit(slot, Self::current(world, slot), &mut record);
            }
        } else {
            for (entity, _) in read.entries {
                let slot = entity.index();
                self.shadow.visit(slot, Self::current(world, slot), &mut record);
            }
        }
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
        if keep {
            self.ring.undo_kept(n, |record, replaced| swap_in(shadow, touched, record, replaced));
            return;
        }
        // Not kept: oldest record first, since a slot's value as of the frame returned to
        // is the one the oldest record holding the slot kept; newer ones are dropped. The
        // slots are loaded a few entries ahead (see `capture`).
        for record in self.ring.newest_mut(n) {
            for (i, (value, &slot)) in record.values.drain(..).zip(&record.slots).enumerate() {
                if let Some(&next) = record.slots.get(i + 8) {
                    shadow.prefetch(next);
                }
                if touched.add(slot) {
                    shadow.set(slot, Some(value));
                }
            }
            for &slot in &record.absent {
                if touched.add(slot) {
                    shadow.set(slot, None);
                }
            }
        }
        self.ring.drop_newest(n);
    }

    fn redo(&mut self) {
        let (shadow, touched) = (&mut self.shadow, &mut self.touched);
        self.ring.redo(|record, replaced| swap_in(shadow, touched, record, replaced));
    }

    fn detach(&mut self, world: &mut World, existence: &Existence) {
        if self.phase != Phase::Relations {
            return;
        }
        for &slot in self.touched.slots() {
            let Some(entity) = existence.desired(slot) else { continue };
            if world.entity_in_slot(slot) != Some(entity) {
                continue;
            }
            let now = world.get::<T>(entity).ok();
            if now.is_some() && now != self.shadow.get(slot) {
                let _ = world.remove::<(T,)>(entity);
            }
        }
    }

    fn restore(&mut self, world: &mut World, existence: &Existence, phase: Phase) -> usize {
        if phase != self.phase {
            return 0;
        }
        let mut written = 0;
        let mut in_place = std::mem::take(&mut self.in_place);
        for &slot in self.touched.slots() {
            let Some(entity) = existence.restored(world, slot) else { continue };
            match self.shadow.get(slot) {
                Some(_) if self.writer.is_some() => in_place.push(entity),
                wanted => written += put(world, entity, wanted),
            }
        }
        if let Some(writer) = &mut self.writer {
            // One lookup per entity (its location loaded a few entities ahead); the
            // table's entity list is not read, since the entity is known.
            for (i, &entity) in in_place.iter().enumerate() {
                if let Some(&ahead) = in_place.get(i + 8) {
                    world.entities.prefetch(ahead);
                }
                let Some(wanted) = self.shadow.get(entity.index()) else { continue };
                match writer.get_mut(world, entity) {
                    Ok(mut place) => {
                        if *place != *wanted {
                            *place = wanted.clone();
                            written += 1;
                        }
                    }
                    // It lacks `T` (it came back, or lost `T` since): insert it.
                    Err(_) => written += put(world, entity, Some(wanted)),
                }
            }
        }
        in_place.clear();
        self.in_place = in_place;
        self.touched.clear();
        written
    }

    fn checksum(&self) -> u64 {
        self.shadow.sum
    }

    fn bytes(&self) -> RecordBytes {
        RecordBytes {
            recorded: self.ring.in_use().map(Record::recorded).sum(),
            reserved: self.ring.all().map(Record::reserved).sum(),
            shadow: self.shadow.values.capacity() * size_of::<Option<T>>() + self.rows.bytes(),
        }
    }
}
