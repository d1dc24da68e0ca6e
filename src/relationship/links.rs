//! [`Links`]: for one relation, which target's list holds each source, indexed by
//! entity slot. A direct insert replaces a source's relation component before any hook
//! runs, so the target it had must be known from somewhere else to take it off that
//! list. Kept as a resource of the world, one per relation type.

use std::marker::PhantomData;

use crate::entity::Entity;

/// See the module docs.
pub(crate) struct Links<R> {
    /// Per entity slot: the source living there and the target whose list holds it.
    listed: Vec<Option<(Entity, Entity)>>,
    /// The entities of a cascade being despawned, and those it reached (kept for
    /// their capacity).
    pub(crate) doomed: Vec<Entity>,
    pub(crate) seen: crate::hash::IdMap<u64, ()>,
    _relation: PhantomData<fn() -> R>,
}

impl<R> Default for Links<R> {
    fn default() -> Self {
        Links { listed: Vec::new(), doomed: Vec::new(), seen: Default::default(), _relation: PhantomData }
    }
}

impl<R> Links<R> {
    /// The target whose list holds `source`, if any. O(1).
    #[inline]
    pub(crate) fn target_of(&self, source: Entity) -> Option<Entity> {
        match self.listed.get(source.index() as usize) {
            Some(Some((listed, target))) if *listed == source => Some(*target),
            _ => None,
        }
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
