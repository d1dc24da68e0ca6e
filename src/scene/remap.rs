//! The entity remap a scene load runs its deserialization under.
//!
//! A scene names its entities by the handles they had when it was saved (its *file
//! ids*); loading gives them fresh handles. Components refer to entities through
//! plain `Entity` fields, so the remap happens where serde reads an `Entity`: the
//! load installs an [`EntityRemap`] for this thread, and `Entity`'s `Deserialize`
//! passes every handle it reads through [`loaded`].
//!
//! The new handles are known before anything changes: the world's allocator hands
//! out slots in a fixed order (its free list, last in first out, then fresh indices),
//! so the `k`-th entity the load will allocate is predictable ([`Upcoming`]). A file
//! id gets its slot `k` the first time it is seen — as a record's id, or inside a
//! value that refers to it — so one pass over the input suffices.

use std::cell::{Cell, RefCell};

use crate::entity::Entity;
use crate::hash::IdMap;

/// The handles a world's next allocations will give, in order.
pub(crate) struct Upcoming {
    /// Recycled slots first, in the order the allocator pops them.
    pub(crate) recycled: Vec<Entity>,
    /// Then fresh indices from this one on, at generation 1.
    pub(crate) fresh_from: u32,
}

impl Upcoming {
    /// The handle of the `k`-th allocation.
    pub(crate) fn get(&self, k: usize) -> Entity {
        match self.recycled.get(k) {
            Some(&entity) => entity,
            None => {
                let index = u64::from(self.fresh_from) + (k - self.recycled.len()) as u64;
                // Past 2^32 slots the allocator panics before handing this out.
                Entity::from_bits((1u64 << 32) | (index & u64::from(u32::MAX))).expect("generation 1")
            }
        }
    }
}

/// What a file id stands for during a load.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    /// Its position in allocation order.
    pub(crate) slot: u32,
    /// The record that declares it (its index in the file), once seen.
    pub(crate) record: Option<u32>,
    /// Where it was first referred to: record (or `u32::MAX` for a resource) and
    /// component entry.
    pub(crate) first_reference: Option<(u32, u32)>,
}

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
pub(crate) struct EntityRemap {
    pub(crate) mode: Mode,
    pub(crate) ids: IdMap<u64, Slot>,
    /// File ids in slot order.
    pub(crate) by_slot: Vec<Entity>,
    pub(crate) upcoming: Upcoming,
    /// In `Mode::Known`: handles read that no record declares (the world's, if
    /// alive), with where they were read.
    pub(crate) passed: Vec<(Entity, (u32, u32))>,
}

impl EntityRemap {
    pub(crate) fn new(upcoming: Upcoming, mode: Mode) -> Self {
        EntityRemap { mode, ids: IdMap::default(), by_slot: Vec::new(), upcoming, passed: Vec::new() }
    }

    /// A remap of known ids to handles that exist: `(file id, handle)` pairs.
    pub(crate) fn fixed(pairs: &[(Entity, Entity)]) -> Self {
        let upcoming = Upcoming { recycled: pairs.iter().map(|&(_, new)| new).collect(), fresh_from: u32::MAX };
        let mut remap = EntityRemap::new(upcoming, Mode::Known);
        for (record, &(file, _)) in pairs.iter().enumerate() {
            let _ = remap.declare(file, record as u32);
        }
        remap
    }

    fn slot_of(&mut self, id: Entity) -> &mut Slot {
        let next = self.by_slot.len() as u32;
        let by_slot = &mut self.by_slot;
        self.ids.entry(id.to_bits()).or_insert_with(|| {
            by_slot.push(id);
            Slot { slot: next, record: None, first_reference: None }
        })
    }

    /// Declares `id` as the id of record `record`; returns the record that declared
    /// it before, if any.
    pub(crate) fn declare(&mut self, id: Entity, record: u32) -> Result<u32, u32> {
        let slot = self.slot_of(id);
        match slot.record {
            Some(first) => Err(first),
            None => {
                slot.record = Some(record);
                Ok(slot.slot)
            }
        }
    }

    /// The new handle for a reference to `id` read inside a value.
    fn refer(&mut self, id: Entity) -> Entity {
        let at = SITE.with(Cell::get);
        if self.mode == Mode::Known {
            return match self.ids.get(&id.to_bits()) {
                Some(slot) => self.upcoming.get(slot.slot as usize),
                None => {
                    self.passed.push((id, at));
                    id
                }
            };
        }
        let slot = self.slot_of(id);
        slot.first_reference.get_or_insert(at);
        let slot = slot.slot as usize;
        self.upcoming.get(slot)
    }

    /// Whether `entity` is a handle this load will make alive.
    fn is_upcoming(&self, entity: Entity) -> bool {
        let declared = self.by_slot.len();
        if let Some(k) = self.upcoming.recycled.iter().position(|&e| e == entity) {
            return k < declared;
        }
        entity.generation() == 1
            && entity.index() >= self.upcoming.fresh_from
            && ((entity.index() - self.upcoming.fresh_from) as usize)
                < declared.saturating_sub(self.upcoming.recycled.len())
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
}

impl Installed {
    pub(crate) fn new(remap: EntityRemap) -> Installed {
        let previous = ACTIVE.with(|active| active.borrow_mut().replace(remap));
        Installed { previous }
    }

    /// Runs `f` on the installed remap.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut EntityRemap) -> R) -> R {
        ACTIVE.with(|active| f(active.borrow_mut().as_mut().expect("ripple: remap installed")))
    }

    /// Uninstalls the remap and returns it.
    #[cfg(test)]
    pub(crate) fn finish(mut self) -> EntityRemap {
        let previous = self.previous.take();
        let remap = ACTIVE.with(|active| std::mem::replace(&mut *active.borrow_mut(), previous));
        std::mem::forget(self);
        remap.expect("ripple: remap installed")
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let previous = self.previous.take();
        // `try_with`: during thread teardown the slot may be gone already.
        let _ = ACTIVE.try_with(|active| *active.borrow_mut() = previous);
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
    fn ids_get_slots_on_first_sight_and_map_to_upcoming_handles() {
        let upcoming = Upcoming { recycled: vec![entity(3, 2)], fresh_from: 10 };
        let guard = Installed::new(EntityRemap::new(upcoming, Mode::Assign));
        // A forward reference takes the first slot, its record later finds it.
        assert_eq!(loaded(entity(7, 1)), entity(3, 2));
        assert_eq!(guard.with(|r| r.declare(entity(5, 1), 0)), Ok(1));
        assert_eq!(guard.with(|r| r.declare(entity(7, 1), 1)), Ok(0));
        assert_eq!(guard.with(|r| r.declare(entity(7, 1), 2)), Err(1));
        assert_eq!(loaded(entity(5, 1)), entity(10, 1));
        assert!(is_upcoming(entity(10, 1)) && is_upcoming(entity(3, 2)) && !is_upcoming(entity(11, 1)));
        let remap = guard.finish();
        assert_eq!(remap.by_slot, vec![entity(7, 1), entity(5, 1)]);
        // Uninstalled: handles read as they are.
        assert_eq!(loaded(entity(5, 1)), entity(5, 1));
    }

    #[test]
    fn a_panic_uninstalls_the_remap() {
        let result = std::panic::catch_unwind(|| {
            let _guard = Installed::new(EntityRemap::new(Upcoming { recycled: vec![], fresh_from: 0 }, Mode::Assign));
            panic!("user code");
        });
        assert!(result.is_err());
        assert_eq!(loaded(entity(5, 1)), entity(5, 1));
    }
}
