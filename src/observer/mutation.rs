//! Change observers ([`OnChange`](super::OnChange)): fed at sync points from the same
//! per-column change records that `Changed<T>` reads, so a delivery costs what changed
//! (`O(changed · log N)` to find the rows, as a `Changed<T>` query), never what exists.

use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::query::{Changed, QueryState};
use crate::world::World;

use super::error::ObserverError;
use super::registry::{Key, Observers};

/// The most rounds of change delivery one sync point runs. Each round delivers what
/// the round before changed (observers writing what they observe); past it, what is
/// still waiting stays for the next sync point and the cut is recorded
/// ([`ObserverError::TooManyRounds`]).
pub const MAX_CHANGE_ROUNDS: usize = 64;

/// Finds the entities whose component changed since the last look.
pub(crate) trait ChangeSource: Send + 'static {
    /// Appends the entities changed since the last call, each once, in the order a
    /// `Changed<T>` query yields them; the next call starts after them.
    fn gather(&mut self, world: &World, out: &mut Vec<Entity>);

    /// Whether any entity changed since the last call, without moving on.
    fn pending(&mut self, world: &World, scratch: &mut Vec<Entity>) -> bool;
}

/// A [`ChangeSource`] for `T`: a `Changed<T>` query of its own.
pub(crate) struct Changes<T: Component>(QueryState<Entity, Changed<T>>);

impl<T: Component> Changes<T> {
    /// Changes to `T` made from now on (turning `T`'s change tracking on).
    pub(crate) fn from_now(world: &mut World) -> Changes<T> {
        let mut state = QueryState::new(world);
        state.skip_to_now(world);
        Changes(state)
    }
}

impl<T: Component> ChangeSource for Changes<T> {
    fn gather(&mut self, world: &World, out: &mut Vec<Entity>) {
        self.0.for_each(world, |entity| out.push(entity));
    }

    fn pending(&mut self, world: &World, scratch: &mut Vec<Entity>) -> bool {
        let Some(before) = self.0.last_run() else { return true };
        scratch.clear();
        self.gather(world, scratch);
        self.0.rewind_to(before);
        !scratch.is_empty()
    }
}

/// One watched component's change source.
pub(crate) struct ChangeWatch {
    pub(crate) component: ComponentId,
    pub(crate) source: Box<dyn ChangeSource>,
}

impl Observers {
    /// One round of delivery (see [`MAX_CHANGE_ROUNDS`]): for each watched component
    /// in the order first watched, each observer of every entity (in registration
    /// order) for each changed entity, then each changed entity's own observers.
    /// Whether it delivered anything.
    pub(crate) fn deliver_changes(&mut self, world: &mut World, round: usize) -> bool {
        let mut changed = std::mem::take(&mut self.changed);
        if round == MAX_CHANGE_ROUNDS {
            let waiting = self.watches.iter_mut().any(|watch| watch.source.pending(world, &mut changed));
            self.changed = changed;
            if waiting {
                self.systems.record(ObserverError::TooManyRounds { rounds: round });
            }
            return false;
        }
        let mut delivered = false;
        let Observers { systems, lists, watches, .. } = self;
        for watch in watches.iter_mut() {
            let component = watch.component;
            let Some(listeners) = lists.get(&Key::Change(component)) else { continue };
            if listeners.global.is_empty() && listeners.targeted.is_empty() {
                continue;
            }
            changed.clear();
            watch.source.gather(world, &mut changed);
            if changed.is_empty() {
                continue;
            }
            delivered = true;
            for &id in &listeners.global {
                systems.run_each(world, id, &changed, component);
            }
            if !listeners.targeted.is_empty() {
                for &entity in &changed {
                    if let Some(own) = listeners.targeted.get(&entity) {
                        for &id in own {
                            systems.run_each(world, id, std::slice::from_ref(&entity), component);
                        }
                    }
                }
            }
        }
        self.changed = changed;
        delivered
    }
}
