//! Change observers ([`OnChange`](super::OnChange)): fed at sync points from the same
//! per-column change records that `Changed<T>` reads, so a delivery costs what changed
//! (`O(changed · log N)` to find the rows, as a `Changed<T>` query), never what exists.

use crate::component::ComponentId;
use crate::query::ChangeSource;
use crate::world::World;

use super::error::ObserverError;
use super::registry::{Key, Observers};

/// The most rounds of change delivery one sync point runs. Each round delivers what
/// the round before changed (observers writing what they observe); past it, what is
/// still waiting stays for the next sync point and the cut is recorded
/// ([`ObserverError::TooManyRounds`]).
pub const MAX_CHANGE_ROUNDS: usize = 64;

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
