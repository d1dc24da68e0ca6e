//! Change observers ([`OnChange`](super::OnChange)): fed at sync points from the same
//! per-column change records that `Changed<T>` reads, so a delivery costs what changed
//! (`O(changed · log N)` to find the rows, as a `Changed<T>` query), never what exists.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::change::Tick;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::query::ChangeSource;
use crate::world::World;

use super::error::ObserverError;
use super::registry::{Key, ObserverId, Observers};

/// The most rounds of change delivery one sync point runs. Each round delivers what
/// the round before changed (observers writing what they observe, directly or through
/// the one-shot systems their commands run); past it, what is still waiting stays for
/// the next sync point and the cut is recorded ([`ObserverError::TooManyRounds`]). A
/// sync point reached during a delivery (a one-shot run's end) is part of it: its
/// changes go to the delivery's next round, so the bound holds for the whole.
pub const MAX_CHANGE_ROUNDS: usize = 64;

/// One watched component's change source, shared by all its change observers.
pub(crate) struct ChangeWatch {
    pub(crate) component: ComponentId,
    pub(crate) source: Box<dyn ChangeSource>,
    /// Observers registered since the source's last look, while others listened: the
    /// next look also finds changes made before they existed, which are not theirs.
    /// Empty again after that look.
    young: Vec<Young>,
}

/// An observer that joined a watch after its last look (see [`ChangeWatch::young`]).
struct Young {
    id: ObserverId,
    /// The entity it is aimed at, if any.
    target: Option<Entity>,
    /// Its registration: it hears changes newer than this tick. Registered with the
    /// world, so tick maintenance keeps it ordered however long it waits.
    since: Arc<AtomicU32>,
    /// What it hears of the look under way.
    heard: Vec<Entity>,
}

impl ChangeWatch {
    pub(crate) fn new(component: ComponentId, source: Box<dyn ChangeSource>) -> Self {
        ChangeWatch { component, source, young: Vec::new() }
    }

    /// Observer `id` (aimed at `target`, if any) joins this watch, which others
    /// follow, at `since`: its first delivery leaves out the changes made before then.
    pub(crate) fn join(&mut self, id: ObserverId, target: Option<Entity>, since: Arc<AtomicU32>) {
        self.young.push(Young { id, target, since, heard: Vec::new() });
    }

    /// Sorts out what each young observer hears of `changed`, the look just taken
    /// (before any observer runs and writes): the entities whose component changed
    /// after it joined. O(changed) per young observer, once.
    fn sort_young(&mut self, world: &World, changed: &[Entity]) {
        let component = self.component;
        for young in &mut self.young {
            let since = Tick(young.since.load(Ordering::Relaxed));
            young.heard.clear();
            young.heard.extend(changed.iter().copied().filter(|&entity| {
                young.target.is_none_or(|target| target == entity) && changed_after(world, entity, component, since)
            }));
        }
    }

    /// What observer `id` hears of the look under way: `changed`, or, for a young
    /// observer, its part of it.
    fn heard_by<'a>(&'a self, id: ObserverId, changed: &'a [Entity]) -> &'a [Entity] {
        self.young.iter().find(|young| young.id == id).map_or(changed, |young| &young.heard)
    }

    /// Whether observer `id`, aimed at `entity`, hears `entity`'s change in the look
    /// under way (which found it): a young one's part holds at most its own entity.
    fn hears(&self, id: ObserverId, entity: Entity) -> bool {
        self.young.iter().find(|young| young.id == id).is_none_or(|young| young.heard.contains(&entity))
    }
}

/// Whether `entity`'s `component` changed after `since` (false if it has none).
fn changed_after(world: &World, entity: Entity, component: ComponentId, since: Tick) -> bool {
    let Ok(location) = world.locate(entity) else { return false };
    let Some((column, row)) = world.column_place(entity, location, component) else { return false };
    let Some(ticks) = column.change_ticks() else { return false };
    let now = world.change_tick();
    // SAFETY: the ticks are those of the column holding the value, which has row
    // `row`; the caller holds the world, so no one writes them during the call.
    let changed = unsafe { ticks.changed_at(row, now) };
    changed.is_newer_than(since, now)
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
