//! The world's observers: who listens to what, and running them.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::hook::HookKind;
use crate::reactor::Reactor;
use crate::util::hash::IdMap;
use crate::world::World;

use super::change_watch::ChangeWatch;
use super::error::ObserverError;
use super::event::TriggerData;
use super::keys::{Key, Listeners, ObserverId};
use super::system::AnyObserver;

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
    pub(crate) systems: Systems,
    pub(crate) lists: super::lists::Lists,
    /// Per watched component, in the order first watched.
    pub(crate) watches: Vec<ChangeWatch>,
    /// Entities with targeted observers, and those observers.
    pub(crate) targeted: IdMap<Entity, Vec<ObserverId>>,
    /// Reused list of changed entities.
    pub(crate) changed: Vec<Entity>,
}

/// The observers themselves, by id, and what went wrong running them.
#[derive(Default)]
pub(crate) struct Systems {
    /// By id; `None` once removed.
    pub(crate) entries: Vec<Option<Entry>>,
    /// What went wrong since last taken, oldest first, at most
    /// [`MAX_OBSERVER_ERRORS`]; and how many in all.
    pub(crate) errors: Vec<ObserverError>,
    pub(crate) error_count: u64,
}

impl Systems {
    /// Runs observer `id` once; a panic is caught and recorded, and the commands it
    /// queued before panicking are kept.
    pub(crate) fn run(&mut self, world: &mut World, id: ObserverId, data: &mut TriggerData, event: Option<&dyn Any>) {
        let Some(Some(entry)) = self.entries.get_mut(id.0 as usize) else { return };
        let system = &mut entry.system;
        let ran = catch_unwind(AssertUnwindSafe(|| system.run(world, data, event)));
        system.defer(world);
        if let Err(panic) = ran {
            self.record_panic(id, &*panic);
        }
    }

    /// Runs observer `id` of a marker event once per entity of `entities`, in order; a
    /// panic is recorded and the runs go on with the next entity.
    pub(crate) fn run_each(&mut self, world: &mut World, id: ObserverId, entities: &[Entity], component: ComponentId) {
        let mut from = 0;
        while from < entities.len() {
            let Some(Some(entry)) = self.entries.get_mut(id.0 as usize) else { return };
            let system = &mut entry.system;
            let mut done = 0;
            let ran =
                catch_unwind(AssertUnwindSafe(|| system.run_each(world, &entities[from..], component, &mut done)));
            system.defer(world);
            from += done;
            if let Err(panic) = ran {
                self.record_panic(id, &*panic);
                from += 1;
            }
        }
    }

    /// Runs every observer of `listeners` for `data`'s entity: those of every entity,
    /// then the entity's own, each in registration order.
    pub(crate) fn dispatch(
        &mut self,
        world: &mut World,
        listeners: &Listeners,
        data: &mut TriggerData,
        event: Option<&dyn Any>,
    ) {
        for &id in &listeners.global {
            self.run(world, id, data, event);
        }
        if let Some(entity) = data.entity
            && !listeners.targeted.is_empty()
            && let Some(own) = listeners.targeted.get(&entity)
        {
            for &id in own {
                self.run(world, id, data, event);
            }
        }
    }

    #[cold]
    fn record_panic(&mut self, id: ObserverId, panic: &(dyn Any + Send)) {
        let message = super::error::panic_message(panic);
        let name =
            self.entries[id.0 as usize].as_ref().map_or_else(String::new, |entry| entry.system.name().to_string());
        self.record(ObserverError::Panicked { observer: id, name, message });
    }

    pub(crate) fn record(&mut self, error: ObserverError) {
        self.error_count += 1;
        if self.errors.len() == MAX_OBSERVER_ERRORS {
            // Forget the older half at once: each record costs O(1) amortized.
            self.errors.drain(..MAX_OBSERVER_ERRORS / 2);
        }
        self.errors.push(error);
    }
}

impl Observers {
    /// Whether anything listens to `key`.
    pub(crate) fn listens(&self, key: Key) -> bool {
        self.lists.get(&key).is_some_and(|listeners| !listeners.is_empty())
    }

    /// Runs every observer of `key` for `data`'s entity (see [`Systems::dispatch`]).
    pub(crate) fn dispatch(&mut self, world: &mut World, key: Key, data: &mut TriggerData, event: Option<&dyn Any>) {
        if let Some(listeners) = self.lists.get(&key) {
            self.systems.dispatch(world, listeners, data, event);
        }
    }

    /// Forgets the observers targeted at `entity` (it is being despawned): O(its
    /// observers, and theirs in each list they are in).
    fn forget_targeted(&mut self, entity: Entity) {
        for id in self.targeted.remove(&entity).unwrap_or_default() {
            self.remove(id);
        }
    }

    /// Removes observer `id`; whether it was registered.
    pub(crate) fn remove(&mut self, id: ObserverId) -> bool {
        let Some(entry) = self.systems.entries.get_mut(id.0 as usize).and_then(Option::take) else { return false };
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
                    if let Some(own) = self.targeted.get_mut(&entity) {
                        own.retain(|&other| other != id);
                        if own.is_empty() {
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
            self.dispatch(
                world,
                Key::Lifecycle(kind, component),
                &mut TriggerData::at(Some(entity), Some(component)),
                None,
            );
        }
    }

    fn despawning(&mut self, world: &mut World, entity: Entity) {
        self.dispatch(world, Key::Despawn, &mut TriggerData::at(Some(entity), None), None);
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
