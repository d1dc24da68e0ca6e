//! The entity remap a scene load runs its deserialization under.
//!
//! A scene names its entities by the handles they had when it was saved (its *file
//! ids*); loading gives them fresh handles. Components refer to entities through
//! plain `Entity` fields, so the remap happens where serde reads an `Entity`: the
//! load installs an [`EntityRemap`] for this thread, with [`loaded`] and
//! [`is_upcoming`] as the core's hooks ([`load_remap`]): `Entity`'s `Deserialize`
//! passes every handle it reads through the first, and a data method's check of an
//! entity asks the second.
//!
//! The new handles are known before anything changes: the world's allocator hands
//! out slots in a fixed order (its free list, last in first out, then fresh indices),
//! so the `k`-th entity the load will allocate is predictable ([`Upcoming`]). A file
//! id gets its slot `k` the first time it is seen — as a record's id, or inside a
//! value that refers to it — so one pass over the input suffices.

use std::cell::{Cell, RefCell};

use crate::entity::Entity;
use crate::entity::upcoming::Upcoming;
use crate::entity_serde::load_remap;
use crate::util::hash::IdMap;

use super::entity_map::EntityMap;

/// "None" in the per-slot records and reference sites.
pub(crate) const NONE: u32 = u32::MAX;

/// How references to ids that no record declared are read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Any id gets a slot on first sight; whether it is declared later is checked at
    /// the end of the load.
    Assign,
    /// The declared ids are all known: others are handles of the world, read as they
    /// are (and checked alive by whoever reads them).
    Known,
}

/// The remap of one load.
///
/// File ids are found by their index in a table (`dense`), as saved worlds number
/// their entities from 0 with few gaps; an id whose index lies past the table's limit
/// (which grows with the input, so a hostile index cannot make it huge) or shares its
/// index with another id goes to a hash map instead.
pub(crate) struct EntityRemap {
    pub(crate) mode: Mode,
    /// Per file index: 1 + the slot of the id with that index, 0 if none yet.
    dense: Vec<u32>,
    /// How long `dense` may grow.
    dense_limit: usize,
    /// Slots of the ids `dense` does not hold.
    overflow: IdMap<u64, u32>,
    /// The file ids, in slot order.
    pub(crate) slots: Vec<Slot>,
    /// Where each slot referred to before its record declared it was first referred
    /// to: record (or `NONE` for a resource) and component entry.
    first_references: IdMap<u32, (u32, u32)>,
    pub(crate) upcoming: Upcoming,
    /// In `Mode::Known`: handles read that no record declares (the world's, if
    /// alive), with where they were read.
    pub(crate) passed: Vec<(Entity, (u32, u32))>,
    /// Ids that already have local handles (a delta's receiver's map), read as those
    /// handles before anything else is looked up; empty for a scene load.
    pub(crate) known: EntityMap,
}

/// One file id seen by a load.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    pub(crate) id: Entity,
    /// The record (index in the file) that declares it, or `NONE`.
    pub(crate) record: u32,
}

/// The least `dense` may grow to, whatever the input's size.
const MIN_DENSE: usize = 4096;

impl EntityRemap {
    pub(crate) fn new(upcoming: Upcoming, mode: Mode) -> Self {
        EntityRemap {
            mode,
            dense: Vec::new(),
            dense_limit: MIN_DENSE,
            overflow: IdMap::default(),
            slots: Vec::new(),
            first_references: IdMap::default(),
            upcoming,
            passed: Vec::new(),
            known: EntityMap::new(),
        }
    }

    /// A remap of known ids to handles that exist: file id `ids[i]` is `handles[i]`.
    pub(crate) fn fixed(ids: &[Entity], handles: &[Entity]) -> Self {
        let upcoming = Upcoming::new(handles.to_vec(), u32::MAX);
        let mut remap = EntityRemap::new(upcoming, Mode::Known);
        remap.expect(ids.len());
        for (record, &file) in ids.iter().enumerate() {
            let _ = remap.declare(file, record as u32);
        }
        remap
    }

    /// Makes room for `count` more ids, and lets the index table cover four times
    /// as many indices.
    pub(crate) fn expect(&mut self, count: usize) {
        self.slots.reserve(count);
        self.dense_limit = self.dense_limit.max(count.saturating_mul(4));
    }

    /// The slot of `id`, if it has one.
    pub(crate) fn lookup(&self, id: Entity) -> Option<u32> {
        let index = id.index() as usize;
        if let Some(&slot) = self.dense.get(index)
            && slot != 0
            && self.slots[(slot - 1) as usize].id == id
        {
            return Some(slot - 1);
        }
        self.overflow.get(&id.to_bits()).copied()
    }

    /// The slot of `id`, given the next one if it has none.
    fn slot_of(&mut self, id: Entity) -> u32 {
        let index = id.index() as usize;
        let next = self.slots.len() as u32;
        if index < self.dense_limit {
            if index >= self.dense.len() {
                let len = (index + 1).next_power_of_two().clamp(64, self.dense_limit);
                self.dense.resize(len, 0);
            }
            match self.dense[index] {
                // New, unless it went to `overflow` while the table's limit was lower
                // (a load that reread its records declared them before the input's
                // count raised the limit).
                0 if self.overflow.is_empty() || !self.overflow.contains_key(&id.to_bits()) => {
                    self.dense[index] = next + 1;
                    self.push_slot(id);
                    return next;
                }
                0 => {}
                slot if self.slots[(slot - 1) as usize].id == id => return slot - 1,
                // Another id (another generation) holds the index.
                _ => {}
            }
        }
        match self.overflow.entry(id.to_bits()) {
            std::collections::hash_map::Entry::Occupied(slot) => *slot.get(),
            std::collections::hash_map::Entry::Vacant(vacant) => {
                vacant.insert(next);
                self.push_slot(id);
                next
            }
        }
    }

    fn push_slot(&mut self, id: Entity) {
        self.slots.push(Slot { id, record: NONE });
    }

    /// Where the undeclared slot `slot` was first referred to.
    pub(crate) fn first_reference(&self, slot: usize) -> (u32, u32) {
        self.first_references[&(slot as u32)]
    }

    /// Declares `id` as the id of record `record`: its slot, or `Err` with the
    /// record that declared it before.
    pub(crate) fn declare(&mut self, id: Entity, record: u32) -> Result<u32, u32> {
        let slot = self.slot_of(id);
        let declared = &mut self.slots[slot as usize].record;
        match *declared {
            NONE => {
                *declared = record;
                Ok(slot)
            }
            first => Err(first),
        }
    }

    /// The new handle for a reference to `id` read inside a value.
    fn refer(&mut self, id: Entity) -> Entity {
        if let Some(local) = self.known.get(id) {
            return local;
        }
        let at = SITE.with(Cell::get);
        if self.mode == Mode::Known {
            return match self.lookup(id) {
                Some(slot) => self.upcoming.get(slot as usize),
                None => {
                    self.passed.push((id, at));
                    id
                }
            };
        }
        let slot = self.slot_of(id);
        if self.slots[slot as usize].record == NONE {
            self.first_references.entry(slot).or_insert(at);
        }
        self.upcoming.get(slot as usize)
    }

    /// Whether `entity` is a handle this load will make alive.
    fn is_upcoming(&self, entity: Entity) -> bool {
        self.upcoming.position(entity).is_some_and(|k| k < self.slots.len())
    }

    /// The record that will become `entity`, if one will.
    pub(crate) fn record_of_upcoming(&self, entity: Entity) -> Option<u32> {
        let slot = self.slots.get(self.upcoming.position(entity)?)?;
        (slot.record != NONE).then_some(slot.record)
    }
}

thread_local! {
    static ACTIVE: RefCell<Option<EntityRemap>> = const { RefCell::new(None) };
    /// The record (or `u32::MAX` for a resource) and component entry being read, for
    /// reports of where a reference was made. Apart from `ACTIVE` because it is set
    /// for every value and read only for the few that hold entities.
    static SITE: Cell<(u32, u32)> = const { Cell::new((0, 0)) };
}

/// Records which value the load on this thread reads next.
#[inline]
pub(crate) fn set_site(site: (u32, u32)) {
    SITE.with(|cell| cell.set(site));
}

/// Installs `remap` for this thread until the guard is dropped (also by a panic),
/// which restores whatever was installed before and hands `remap` back.
pub(crate) struct Installed {
    previous: Option<EntityRemap>,
    /// The core's hook as it was before (see [`load_remap`]).
    previous_hook: Option<load_remap::Hooks>,
}

impl Installed {
    pub(crate) fn new(remap: EntityRemap) -> Installed {
        let previous = ACTIVE.with(|active| active.borrow_mut().replace(remap));
        let previous_hook = load_remap::replace(Some(load_remap::Hooks { remap: loaded, is_upcoming }));
        Installed { previous, previous_hook }
    }

    /// Runs `f` on the installed remap.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut EntityRemap) -> R) -> R {
        ACTIVE.with(|active| f(active.borrow_mut().as_mut().expect("ripple: remap installed")))
    }

    /// Uninstalls the remap and returns it.
    pub(crate) fn finish(mut self) -> EntityRemap {
        let previous = self.previous.take();
        let remap = ACTIVE.with(|active| std::mem::replace(&mut *active.borrow_mut(), previous));
        load_remap::replace(self.previous_hook);
        std::mem::forget(self);
        remap.expect("ripple: remap installed")
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let previous = self.previous.take();
        // `try_with`: during thread teardown the slot may be gone already.
        let _ = ACTIVE.try_with(|active| *active.borrow_mut() = previous);
        load_remap::replace(self.previous_hook);
    }
}

/// `entity` as read from data: remapped while a load runs on this thread, unchanged
/// otherwise.
#[inline]
pub(crate) fn loaded(entity: Entity) -> Entity {
    ACTIVE.with(|active| match active.try_borrow_mut() {
        Ok(mut remap) => match remap.as_mut() {
            Some(remap) => remap.refer(entity),
            None => entity,
        },
        // A `Deserialize` impl that reads an entity while the remap is borrowed
        // cannot come from the load itself; read the handle as it is.
        Err(_) => entity,
    })
}

/// Whether `entity` will be alive once the load running on this thread commits (a
/// data command checked before a level's entities exist may name them).
pub(crate) fn is_upcoming(entity: Entity) -> bool {
    ACTIVE.with(|active| active.try_borrow().is_ok_and(|remap| remap.as_ref().is_some_and(|r| r.is_upcoming(entity))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(index: u32, generation: u32) -> Entity {
        Entity::from_bits((u64::from(generation) << 32) | u64::from(index)).unwrap()
    }

    #[test]
    fn an_upcoming_handle_gives_back_its_allocation() {
        let upcoming = Upcoming::new(vec![entity(3, 2), entity(7, 5)], 10);
        for k in 0..5 {
            assert_eq!(upcoming.position(upcoming.get(k)), Some(k));
        }
        assert_eq!(upcoming.position(entity(3, 1)), None, "the recycled slot's old generation");
        assert_eq!(upcoming.position(entity(4, 2)), None, "a slot that is not recycled");
        assert_eq!(upcoming.position(entity(10, 2)), None, "a fresh slot at another generation");
    }

    #[test]
    fn ids_get_slots_on_first_sight_and_map_to_upcoming_handles() {
        let upcoming = Upcoming::new(vec![entity(3, 2)], 10);
        let guard = Installed::new(EntityRemap::new(upcoming, Mode::Assign));
        // A forward reference takes the first slot, its record later finds it.
        assert_eq!(loaded(entity(7, 1)), entity(3, 2));
        assert_eq!(guard.with(|r| r.declare(entity(5, 1), 0)), Ok(1));
        assert_eq!(guard.with(|r| r.declare(entity(7, 1), 1)), Ok(0));
        assert_eq!(guard.with(|r| r.declare(entity(7, 1), 2)), Err(1));
        assert_eq!(loaded(entity(5, 1)), entity(10, 1));
        assert!(is_upcoming(entity(10, 1)) && is_upcoming(entity(3, 2)) && !is_upcoming(entity(11, 1)));
        let remap = guard.finish();
        assert_eq!(remap.slots.iter().map(|slot| slot.id).collect::<Vec<_>>(), vec![entity(7, 1), entity(5, 1)]);
        // Uninstalled: handles read as they are.
        assert_eq!(loaded(entity(5, 1)), entity(5, 1));
    }

    #[test]
    fn ids_past_the_index_table_or_sharing_an_index_keep_their_own_slots() {
        let mut remap = EntityRemap::new(Upcoming::new(vec![], 0), Mode::Assign);
        let far = entity(u32::MAX - 1, 1);
        let ids = [entity(3, 1), entity(3, 2), far, entity(3, 7), entity(MIN_DENSE as u32 * 2, 1)];
        for (record, &id) in ids.iter().enumerate() {
            assert_eq!(remap.declare(id, record as u32), Ok(record as u32), "{id:?}");
        }
        for (slot, &id) in ids.iter().enumerate() {
            assert_eq!(remap.lookup(id), Some(slot as u32), "{id:?}");
            assert_eq!(remap.declare(id, 99), Err(slot as u32), "declared twice: {id:?}");
        }
        assert_eq!(remap.lookup(entity(3, 3)), None);
        assert_eq!(remap.lookup(entity(4, 1)), None);
        assert!(remap.dense.len() <= MIN_DENSE, "a far index does not grow the table");
    }

    /// Failed before the fix: an id that went to `overflow` while the limit was low
    /// got a second slot once `expect` raised it (a reread load declares its records
    /// before it reads the input's count).
    #[test]
    fn an_id_declared_past_the_limit_keeps_its_slot_when_the_limit_grows() {
        let mut remap = EntityRemap::new(Upcoming::new(vec![], 0), Mode::Assign);
        let past = entity(MIN_DENSE as u32 + 5, 1);
        assert_eq!(remap.declare(past, 0), Ok(0));
        remap.expect(10 * MIN_DENSE);
        assert_eq!(remap.declare(past, 1), Err(0), "the same id, the same slot");
        assert_eq!(remap.lookup(past), Some(0));
        assert_eq!(remap.slots.len(), 1);
        // A new id at an index the table now covers takes the table as usual.
        assert_eq!(remap.declare(entity(MIN_DENSE as u32 + 6, 1), 1), Ok(1));
    }

    #[test]
    fn a_panic_uninstalls_the_remap() {
        let result = std::panic::catch_unwind(|| {
            let _guard = Installed::new(EntityRemap::new(Upcoming::new(vec![], 0), Mode::Assign));
            panic!("user code");
        });
        assert!(result.is_err());
        assert_eq!(loaded(entity(5, 1)), entity(5, 1));
    }
}
