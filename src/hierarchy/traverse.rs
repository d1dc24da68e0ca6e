//! Walking the tree: ancestors, descendants and roots, each O(what it yields).

use crate::entity::Entity;
use crate::world::World;

use super::{CHILD_OF, CHILDREN, Children};

/// The ancestors of an entity, nearest first ([`World::ancestors`]).
pub struct Ancestors<'w> {
    world: &'w World,
    next: Option<Entity>,
}

impl Iterator for Ancestors<'_> {
    type Item = Entity;
    fn next(&mut self) -> Option<Entity> {
        let entity = self.next?;
        self.next = self.world.parent(entity);
        Some(entity)
    }
}

/// The descendants of an entity, depth-first with children in order
/// ([`World::descendants`]).
pub struct Descendants<'w> {
    world: &'w World,
    /// The rest of each list being walked, innermost last.
    stack: Vec<&'w [Entity]>,
}

impl Iterator for Descendants<'_> {
    type Item = Entity;
    fn next(&mut self) -> Option<Entity> {
        loop {
            let rest = self.stack.last_mut()?;
            let Some((&entity, tail)) = rest.split_first() else {
                self.stack.pop();
                continue;
            };
            *rest = tail;
            if let Ok(children) = self.world.children(entity)
                && !children.is_empty()
            {
                self.stack.push(children);
            }
            return Some(entity);
        }
    }
}

impl World {
    /// The parent of `entity`, its parent, and so on up to the root (empty for a root
    /// or a dead entity). O(depth).
    pub fn ancestors(&self, entity: Entity) -> Ancestors<'_> {
        Ancestors { world: self, next: self.parent(entity) }
    }

    /// Every descendant of `entity`, depth-first, each entity's children in order
    /// (empty for a leaf or a dead entity). O(descendants); its stack holds one slice
    /// per level, allocated on the first level below `entity`.
    pub fn descendants(&self, entity: Entity) -> Descendants<'_> {
        let mut stack = Vec::new();
        if let Ok(children) = self.children(entity)
            && !children.is_empty()
        {
            stack.push(children);
        }
        Descendants { world: self, stack }
    }

    /// Every entity that has children and no parent: the roots of the trees. O(tables
    /// with a `Children` column + roots).
    pub fn roots(&self) -> impl Iterator<Item = Entity> + '_ {
        self.archetypes.iter().filter(|table| table.has(CHILDREN) && !table.has(CHILD_OF)).flat_map(|table| {
            let column = table.column_index(CHILDREN).expect("filtered on it");
            let lists = crate::storage::downcast::<Children>(table.column(column));
            table.entities().iter().enumerate().filter(move |&(row, _)| !lists.get(row).is_empty()).map(|(_, &e)| e)
        })
    }
}
