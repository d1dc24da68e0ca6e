//! [`Archetypes`]: every table of a world, found by id or by component set.

use std::collections::HashMap;

use crate::change::Tick;
use crate::component::{ComponentId, Components};
use crate::hook::HookFlags;

use super::archetype::Archetype;
use super::ids::ArchetypeId;

/// All archetypes of one world.
pub(crate) struct Archetypes {
    list: Vec<Archetype>,
    by_components: HashMap<Box<[ComponentId]>, ArchetypeId>,
}

impl Default for Archetypes {
    fn default() -> Self {
        Archetypes {
            list: vec![Archetype::new(ArchetypeId::EMPTY, Box::new([]), Box::new([]))],
            by_components: HashMap::new(),
        }
    }
}

impl Archetypes {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    #[inline]
    pub(crate) fn get(&self, id: ArchetypeId) -> &Archetype {
        &self.list[id.index()]
    }

    /// The table `id`, unchecked: for an id read from a live entity's location.
    ///
    /// # Safety
    /// `id` names a table of this world (tables are never removed, so every id a
    /// location holds does).
    #[inline]
    pub(crate) unsafe fn get_unchecked(&self, id: ArchetypeId) -> &Archetype {
        debug_assert!(id.index() < self.list.len());
        // SAFETY: per the caller.
        unsafe { self.list.get_unchecked(id.index()) }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: ArchetypeId) -> &mut Archetype {
        &mut self.list[id.index()]
    }

    /// Two distinct archetypes, mutably.
    #[inline]
    pub(crate) fn get_two_mut(&mut self, a: ArchetypeId, b: ArchetypeId) -> [&mut Archetype; 2] {
        self.list
            .get_disjoint_mut([a.index(), b.index()])
            .expect("ripple: a transition must join two distinct archetypes")
    }

    pub(crate) fn iter(&self) -> std::slice::Iter<'_, Archetype> {
        self.list.iter()
    }

    pub(crate) fn iter_mut(&mut self) -> std::slice::IterMut<'_, Archetype> {
        self.list.iter_mut()
    }

    /// The archetype for exactly `sorted` (ascending, no duplicates), creating it on
    /// first sight; columns of tracked components start tracked.
    pub(crate) fn get_or_create(&mut self, sorted: &[ComponentId], components: &Components, now: Tick) -> ArchetypeId {
        debug_assert!(sorted.windows(2).all(|w| w[0] < w[1]));
        if sorted.is_empty() {
            return ArchetypeId::EMPTY;
        }
        if let Some(&id) = self.by_components.get(sorted) {
            return id;
        }
        let id = ArchetypeId(u32::try_from(self.list.len()).expect("ripple: more than 2^32 archetypes"));
        let columns = sorted
            .iter()
            .map(|&c| {
                let info = components.info(c);
                let mut column = info.make_column();
                if info.tracked {
                    column.enable_tracking(now);
                }
                if info.observed {
                    column.observe(now);
                }
                column
            })
            .collect();
        let mut table = Archetype::new(id, sorted.into(), columns);
        table.hooks = sorted.iter().fold(HookFlags::NONE, |flags, &c| flags.union(components.info(c).hooks.flags()));
        self.list.push(table);
        self.by_components.insert(sorted.into(), id);
        id
    }
}
