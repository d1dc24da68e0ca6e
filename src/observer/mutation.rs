//! Change observers ([`OnChange`](super::OnChange)): fed at sync points from the same
//! per-column change records that `Changed<T>` reads, so a delivery costs what changed
//! (`O(changed · log N)` to find the rows, as a `Changed<T>` query), never what exists.

use crate::world::World;

use super::error::ObserverError;
use super::keys::Key;
use super::registry::Observers;

/// The most rounds of change delivery one sync point runs. Each round delivers what
/// the round before changed (observers writing what they observe, directly or through
/// the one-shot systems their commands run); past it, what is still waiting stays for
/// the next sync point and the cut is recorded ([`ObserverError::TooManyRounds`]). A
/// sync point reached during a delivery (a one-shot run's end) is part of it: its
/// changes go to the delivery's next round, so the bound holds for the whole.
pub const MAX_CHANGE_ROUNDS: usize = 64;

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
            if !watch.young.is_empty() {
                watch.sort_young(world, &changed);
            }
            if changed.is_empty() {
                // Nothing changed since the last look, so nothing before the young
                // joined either: from now on they hear what the others hear.
                watch.young.clear();
                continue;
            }
            delivered = true;
            for &id in &listeners.global {
                let heard = watch.heard_by(id, &changed);
                if !heard.is_empty() {
                    systems.run_each(world, id, heard, component);
                }
            }
            if !listeners.targeted.is_empty() {
                for &entity in &changed {
                    if let Some(own) = listeners.targeted.get(&entity) {
                        for &id in own {
                            if watch.hears(id, entity) {
                                systems.run_each(world, id, std::slice::from_ref(&entity), component);
                            }
                        }
                    }
                }
            }
            watch.young.clear();
        }
        self.changed = changed;
        delivered
    }
}
