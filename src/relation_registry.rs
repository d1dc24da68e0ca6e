//! The link tables of user relations: for each registered relation, which target's
//! list holds each source, indexed by entity slot. A direct insert replaces a source's
//! relation component before any hook runs, so the target it had must be known from
//! somewhere else to take it off that list.
//!
//! The world keeps one table per relation, reached by the index its relation
//! component's registry entry records (no hashing on the hot paths: hooks capture
//! the index when they are installed), or, for the hierarchy, the index it was given
//! when it registered. The tables know no relation by name.

use crate::entity::Entity;
use crate::util::hash::IdMap;

/// One relation's links. See the module docs.
#[derive(Default)]
pub(crate) struct LinkTable {
    /// Per entity slot: the source living there and the target whose list holds it.
    listed: Vec<Option<(Entity, Entity)>>,
    /// The entities of a cascade being despawned, and those it reached (kept for
    /// their capacity).
    pub(crate) doomed: Vec<Entity>,
    pub(crate) seen: IdMap<u64, ()>,
    /// Targets visited by cycle checks, for tests that bound the work (only with the
    /// `internal-test-support` feature).
    #[cfg(feature = "internal-test-support")]
    pub(crate) steps: std::sync::atomic::AtomicU64,
}

impl LinkTable {
    /// The target whose list holds `source`, if any. O(1).
    #[inline]
    pub(crate) fn target_of(&self, source: Entity) -> Option<Entity> {
        match self.listed.get(source.index() as usize) {
            Some(Some((listed, target))) if *listed == source => Some(*target),
            _ => None,
        }
    }

    /// Hints the processor to load `source`'s slot record.
    #[inline]
    pub(crate) fn prefetch(&self, source: Entity) {
        crate::util::hint::prefetch(self.listed.as_ptr().wrapping_add(source.index() as usize));
    }

    pub(crate) fn set(&mut self, source: Entity, target: Entity) {
        let slot = source.index() as usize;
        if slot >= self.listed.len() {
            self.listed.resize(slot + 1, None);
        }
        self.listed[slot] = Some((source, target));
    }

    pub(crate) fn clear(&mut self, source: Entity) {
        if self.target_of(source).is_some() {
            self.listed[source.index() as usize] = None;
        }
    }

    /// The sources listed under `target`, in slot order. O(slots): only a rebuild
    /// after a misuse pays it.
    pub(crate) fn sources_of(&self, target: Entity) -> impl Iterator<Item = Entity> + '_ {
        self.listed.iter().flatten().filter(move |&&(_, of)| of == target).map(|&(source, _)| source)
    }
}

/// Every registered relation's link table, by relation index.
#[derive(Default)]
pub(crate) struct RelationTables {
    tables: Vec<LinkTable>,
    /// The relation custom observer events bubble along (to a target's target, and
    /// on), if one was chosen.
    pub(crate) bubble: Option<u32>,
}

impl RelationTables {
    /// A new table; returns its index.
    pub(crate) fn add(&mut self) -> u32 {
        self.tables.push(LinkTable::default());
        u32::try_from(self.tables.len() - 1).expect("ripple: fewer than 2^32 relations")
    }

    #[inline]
    pub(crate) fn get(&self, index: u32) -> &LinkTable {
        &self.tables[index as usize]
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, index: u32) -> &mut LinkTable {
        &mut self.tables[index as usize]
    }

    /// Where an event bubbling from `entity` goes next: its target through the
    /// bubbling relation, if any.
    #[inline]
    pub(crate) fn bubble_from(&self, entity: Entity) -> Option<Entity> {
        self.get(self.bubble?).target_of(entity)
    }
}

/// Places `entities` (each once, in order) at `index` of `list` (the end if past it),
/// taking those already in it out of their places first: what inserting related
/// entities at an index does to a target's list. O(list · entities).
pub(crate) fn place_at(list: &mut Vec<Entity>, index: usize, entities: &[Entity]) {
    let mut placed: Vec<Entity> = Vec::with_capacity(entities.len());
    for &entity in entities {
        if !placed.contains(&entity) {
            placed.push(entity);
        }
    }
    list.retain(|e| !placed.contains(e));
    let at = index.min(list.len());
    list.splice(at..at, placed);
}
