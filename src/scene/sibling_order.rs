//! The order a save writes entities in when it saves `ChildOf`: a load appends each
//! child to its parent's list in file order, so siblings must be written in the order
//! of their parent's [`Children`](crate::hierarchy::Children) list for that order to survive.
//!
//! The save's own order (every entity by ascending index, or the caller's selection)
//! is kept, except that the first time a child comes up, it and all its selected
//! siblings are written there, in list order. Each parent's list is read once, so the
//! walk stays O(saved entities); it keeps one bit per entity slot of the world.

use std::collections::VecDeque;

use crate::entity::{Entity, Location};
use crate::world::World;

/// One bit per entity slot index.
struct SlotBits(Vec<u64>);

impl SlotBits {
    fn new(slots: usize) -> Self {
        SlotBits(vec![0; slots.div_ceil(64)])
    }

    fn get(&self, entity: Entity) -> bool {
        let index = entity.index() as usize;
        self.0.get(index / 64).is_some_and(|word| word & (1 << (index % 64)) != 0)
    }

    fn set(&mut self, entity: Entity) {
        let index = entity.index() as usize;
        self.0[index / 64] |= 1 << (index % 64);
    }
}

/// `entities` (each alive, each once) reordered so that siblings come in their
/// parent's list order.
pub(crate) struct SiblingOrder<'w, I> {
    world: &'w World,
    entities: I,
    /// The saved entities' slots; `None` when every live entity is saved. A slot
    /// holds one live entity at a time, and children lists hold live entities, so a
    /// child whose slot is here is the saved entity.
    selected: Option<SlotBits>,
    /// Slots already handed out.
    written: SlotBits,
    /// Siblings of the child that came up last, waiting their turn.
    siblings: VecDeque<(Entity, Location)>,
}

impl<'w, I: Iterator<Item = (Entity, Location)>> SiblingOrder<'w, I> {
    /// `selection`: the entities saved, if not every live one (`entities` are then
    /// the same entities).
    pub(crate) fn new(world: &'w World, entities: I, selection: Option<&[(Entity, Location)]>) -> Self {
        let slots = world.entities.slots();
        let selected = selection.map(|selection| {
            let mut bits = SlotBits::new(slots);
            selection.iter().for_each(|&(entity, _)| bits.set(entity));
            bits
        });
        SiblingOrder { world, entities, selected, written: SlotBits::new(slots), siblings: VecDeque::new() }
    }

    fn is_selected(&self, entity: Entity) -> bool {
        self.selected.as_ref().is_none_or(|selected| selected.get(entity))
    }
}

impl<I: Iterator<Item = (Entity, Location)>> Iterator for SiblingOrder<'_, I> {
    type Item = (Entity, Location);

    fn next(&mut self) -> Option<(Entity, Location)> {
        loop {
            if let Some(next) = self.siblings.pop_front() {
                return Some(next);
            }
            let (entity, location) = self.entities.next()?;
            if self.written.get(entity) {
                continue;
            }
            let Some(parent) = self.world.child_links().target_of(entity) else {
                self.written.set(entity);
                return Some((entity, location));
            };
            let children = self.world.children(parent).expect("ripple: a listed child's parent is alive");
            for &child in children {
                if self.is_selected(child) && !self.written.get(child) {
                    self.written.set(child);
                    let location = self.world.locate(child).expect("ripple: a listed child is alive");
                    self.siblings.push_back((child, location));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siblings_come_in_list_order_where_the_first_of_them_came_up() {
        let mut world = World::new();
        let root = world.spawn(());
        let loose = world.spawn(());
        let kids: Vec<Entity> = (0..4).map(|_| world.spawn(())).collect();
        for &k in [kids[2], kids[0], kids[3], kids[1]].iter() {
            world.set_parent(k, root).unwrap();
        }
        let grandchild = world.spawn_child(kids[1], ()).unwrap();
        let order = |selection: Option<Vec<Entity>>| -> Vec<Entity> {
            let located: Option<Vec<(Entity, Location)>> =
                selection.map(|s| s.iter().map(|&e| (e, world.locate(e).unwrap())).collect());
            let source: Vec<(Entity, Location)> = match &located {
                Some(located) => located.clone(),
                None => world.entities.iter_alive().collect(),
            };
            SiblingOrder::new(&world, source.into_iter(), located.as_deref()).map(|(e, _)| e).collect()
        };
        assert_eq!(order(None), [root, loose, kids[2], kids[0], kids[3], kids[1], grandchild]);
        // A selection keeps its own order but for siblings, and leaves the unselected out.
        let picked = vec![grandchild, kids[1], loose, kids[2]];
        assert_eq!(order(Some(picked)), [grandchild, kids[2], kids[1], loose]);
    }
}
