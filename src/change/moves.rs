//! [`Move`]: one entity's structural change, as the change log records it.

use super::log::ChangeLog;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::ArchetypeId;

/// A structural change of one entity, for [`Dirty`](crate::query::Dirty) readers and entity
/// callbacks: it left `from` (`None` when spawned) for `to` (`None` when despawned), or
/// it gained or lost the sparse component `sparse` (then `from` and `to` are `None`:
/// its row stayed put).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    pub(crate) entity: Entity,
    pub(crate) from: Option<ArchetypeId>,
    pub(crate) to: Option<ArchetypeId>,
    sparse: SparseChange,
}

impl ChangeLog<Move> {
    /// Logs that `entity` gained or lost each sparse component of `ids` in one
    /// operation: the first joined to the move logged just before it if `joined`, the
    /// others to the first.
    pub(crate) fn push_sparse(&mut self, entity: Entity, ids: impl IntoIterator<Item = ComponentId>, joined: bool) {
        for (i, id) in ids.into_iter().enumerate() {
            self.push(Move::sparse(entity, id, joined || i > 0));
        }
    }
}

// The world's memory budget for idle readers counts 32 bytes per structural change.
const _: () = assert!(std::mem::size_of::<Move>() == 32);

/// The sparse part of a [`Move`], in one word (the log holds up to a million moves).
#[derive(Clone, Copy, Debug)]
enum SparseChange {
    None,
    Alone(ComponentId),
    Joined(ComponentId),
}

impl Move {
    /// A move between tables (or into or out of the world).
    #[inline]
    pub(crate) fn between(entity: Entity, from: Option<ArchetypeId>, to: Option<ArchetypeId>) -> Move {
        Move { entity, from, to, sparse: SparseChange::None }
    }

    /// `entity` gained or lost the sparse component `component`, on its own or (when
    /// `joined`) in the same operation as the move logged just before.
    #[inline]
    pub(crate) fn sparse(entity: Entity, component: ComponentId, joined: bool) -> Move {
        let sparse = if joined { SparseChange::Joined(component) } else { SparseChange::Alone(component) };
        Move { entity, from: None, to: None, sparse }
    }

    /// The sparse component gained or lost, if this is such a move.
    #[inline]
    pub(crate) fn sparse_component(&self) -> Option<ComponentId> {
        match self.sparse {
            SparseChange::None => None,
            SparseChange::Alone(component) | SparseChange::Joined(component) => Some(component),
        }
    }

    /// Made by the same operation as the move logged just before it (of the same
    /// entity): one insert, remove or despawn that changes table and sparse components
    /// logs the table move first, then each sparse component joined to it. Readers
    /// judge an operation as a whole; the states between its moves never existed.
    #[inline]
    pub(crate) fn joined(&self) -> bool {
        matches!(self.sparse, SparseChange::Joined(_))
    }

    /// This move marked as joined to the one before it or not: for a subset of the log
    /// whose first kept move of an operation is not the operation's first. A table
    /// move always begins its operation.
    #[inline]
    pub(crate) fn rejoined(self, joined: bool) -> Move {
        match self.sparse_component() {
            Some(component) => Move::sparse(self.entity, component, joined),
            None => {
                debug_assert!(!joined, "a table move begins its operation");
                self
            }
        }
    }
}
