//! The world's observers: who listens to what, and running them.

use std::any::{Any, TypeId};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::hash::IdMap;
use crate::hook::HookKind;
use crate::reactor::Reactor;
use crate::world::World;

use super::error::ObserverError;
use super::event::TriggerData;
use super::mutation::ChangeWatch;
use super::system::AnyObserver;

/// Identifies an observer registered with [`World::observe`] or
/// [`World::observe_entity`]. Never reused, so a handle to a removed observer stays
/// invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObserverId(pub(crate) u32);

/// What a list of observers listens to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Lifecycle(HookKind, ComponentId),
    Despawn,
    Change(ComponentId),
    Custom(TypeId),
}

/// The observers of one key: those of every entity, and those of some entities.
#[derive(Default)]
pub(crate) struct Listeners {
    pub(crate) global: Vec<ObserverId>,
    pub(crate) targeted: IdMap<Entity, Vec<ObserverId>>,
}

impl Listeners {
    fn is_empty(&self) -> bool {
        self.global.is_empty() && self.targeted.is_empty()
    }
}

pub(crate) struct Entry {
    pub(crate) system: Box<dyn AnyObserver>,
    pub(crate) key: Key,
    pub(crate) target: Option<Entity>,
}

/// How many errors the registry keeps until they are taken.
pub const MAX_OBSERVER_ERRORS: usize = 256;

/// Every observer of a world.
#[derive(Default)]
pub(crate) struct Observers {
    /// By id; `None` once removed.
    pub(crate) entries: Vec<Option<Entry>>,
    pub(crate) lists: IdMap<Key, Listeners>,
    /// Per watched component, in the order first watched.
    pub(crate) watches: Vec<ChangeWatch>,
    /// Entities with targeted observers, and how many each has.
    pub(crate) targeted: IdMap<Entity, u32>,
    /// What went wrong since last taken, oldest first, at most
    /// [`MAX_OBSERVER_ERRORS`]; and how many in all.
    pub(crate) errors: Vec<ObserverError>,
    pub(crate) error_count: u64,
    /// Reused lists.
    pub(crate) scratch: Vec<ObserverId>,
    pub(crate) changed: Vec<Entity>,
}

impl Observers {
    /// Puts the observers of `key` for `target` (global ones first, then the
    /// entity's, each in registration order) into `out`.
    pub(crate) fn listeners(&self, key: Key, target: Option<Entity>, out: &mut Vec<ObserverId>) {
        out.clear();
        let Some(listeners) = self.lists.get(&key) else { return };
        out.extend_from_slice(&listeners.global);
        if let Some(entity) = target
            && let Some(own) = listeners.targeted.get(&entity)
        {
            out.extend_from_slice(own);
        }
    }

    /// Whether anything listens to `key`.
    pub(crate) fn listens(&self, key: Key) -> bool {
        self.lists.get(&key).is_some_and(|listeners| !listeners.is_empty())
    }

    /// Runs observer `id` once; a panic is caught and recorded, and the commands it
    /// queued before panicking are kept.
    pub(crate) fn run(&mut self, world: &mut World, id: ObserverId, data: &mut TriggerData, event: Option<&dyn Any>) {
        let Some(Some(entry)) = self.entries.get_mut(id.0 as usize) else { return };
        let system = &mut entry.system;
        let ran = catch_unwind(AssertUnwindSafe(|| system.run(world, data, event)));
        system.defer(world);
        if let Err(panic) = ran {
            let message = super::error::panic_message(&*panic);
            let observer = system.name().to_string();
            self.record(ObserverError::Panicked { observer: id, name: observer, message });
        }
    }

    /// Runs every observer of `key` for `data`'s entity, in order.
    pub(crate) fn dispatch(&mut self, world: &mut World, key: Key, data: &mut TriggerData, event: Option<&dyn Any>) {
        let mut ids = std::mem::take(&mut self.scratch);
        self.listeners(key, data.entity, &mut ids);
        for &id in &ids {
            self.run(world, id, data, event);
        }
        self.scratch = ids;
    }

    pub(crate) fn record(&mut self, error: ObserverError) {
        self.error_count += 1;
        if self.errors.len() == MAX_OBSERVER_ERRORS {
            // Forget the older half at once: each record costs O(1) amortized.
            self.errors.drain(..MAX_OBSERVER_ERRORS / 2);
        }
        self.errors.push(error);
    }

    /// Forgets the observers targeted at `entity` (it is being despawned).
    fn forget_targeted(&mut self, entity: Entity) {
        if self.targeted.remove(&entity).is_none() {
            return;
        }
        for index in 0..self.entries.len() {
            if self.entries[index].as_ref().is_some_and(|entry| entry.target == Some(entity)) {
                self.remove(ObserverId(index as u32));
            }
        }
    }

    /// Removes observer `id`; whether it was registered.
    pub(crate) fn remove(&mut self, id: ObserverId) -> bool {
        let Some(entry) = self.entries.get_mut(id.0 as usize).and_then(Option::take) else { return false };
        if let Some(listeners) = self.lists.get_mut(&entry.key) {
            match entry.target {
                None => listeners.global.retain(|&other| other != id),
                Some(entity) => {
                    if let Some(own) = listeners.targeted.get_mut(&entity) {
                        own.retain(|&other| other != id);
                        if own.is_empty() {
                            listeners.targeted.remove(&entity);
                        }
                    }
                    if let Some(count) = self.targeted.get_mut(&entity) {
                        *count -= 1;
                        if *count == 0 {
                            self.targeted.remove(&entity);
                        }
                    }
                }
            }
        }
        true
    }
}

impl Reactor for Observers {
    fn lifecycle(&mut self, world: &mut World, kind: HookKind, entity: Entity, ids: &[ComponentId]) {
        for &component in ids {
            let key = Key::Lifecycle(kind, component);
            if self.lists.contains_key(&key) {
                self.dispatch(world, key, &mut TriggerData::at(Some(entity), Some(component)), None);
            }
        }
    }

    fn despawning(&mut self, world: &mut World, entity: Entity) {
        if self.lists.contains_key(&Key::Despawn) {
            self.dispatch(world, Key::Despawn, &mut TriggerData::at(Some(entity), None), None);
        }
    }

    fn despawned(&mut self, entity: Entity) {
        // Observers aimed at it go with it, once they ran for its despawn and removals.
        if !self.targeted.is_empty() {
            self.forget_targeted(entity);
        }
    }

    fn sync_point(&mut self, world: &mut World, round: usize) -> bool {
        self.deliver_changes(world, round)
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
