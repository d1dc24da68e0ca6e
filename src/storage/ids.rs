//! The handles of storage places: [`ArchetypeId`] names a table, [`Row`] a row in it.

/// Index of an archetype in its world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArchetypeId(pub(crate) u32);

impl ArchetypeId {
    /// The archetype of entities with no components.
    pub(crate) const EMPTY: ArchetypeId = ArchetypeId(0);
    /// Marks a free entity slot.
    pub(crate) const INVALID: ArchetypeId = ArchetypeId(u32::MAX);

    /// The table's index among the world's tables (dense, from 0).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a row in an archetype table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Row(pub(crate) u32);

impl Row {
    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}
