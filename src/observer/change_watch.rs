//! [`ChangeWatch`]: one watched component's change source, shared by its `OnChange`
//! observers, and what each observer that joined late hears of a look.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::change::Tick;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::query::ChangeSource;
use crate::world::World;

use super::keys::ObserverId;

/// One watched component's change source, shared by all its change observers.
pub(crate) struct ChangeWatch {
    pub(crate) component: ComponentId,
    pub(crate) source: Box<dyn ChangeSource>,
    /// Observers registered since the source's last look, while others listened: the
    /// next look also finds changes made before they existed, which are not theirs.
    /// Empty again after that look.
    pub(super) young: Vec<Young>,
}

/// An observer that joined a watch after its last look (see [`ChangeWatch::young`]).
pub(super) struct Young {
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
    pub(super) fn sort_young(&mut self, world: &World, changed: &[Entity]) {
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
    pub(super) fn heard_by<'a>(&'a self, id: ObserverId, changed: &'a [Entity]) -> &'a [Entity] {
        self.young.iter().find(|young| young.id == id).map_or(changed, |young| &young.heard)
    }

    /// Whether observer `id`, aimed at `entity`, hears `entity`'s change in the look
    /// under way (which found it): a young one's part holds at most its own entity.
    pub(super) fn hears(&self, id: ObserverId, entity: Entity) -> bool {
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
