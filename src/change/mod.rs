//! Change tracking: ticks, per-row change ticks with a summary that finds the changed
//! rows, the [`Mut`] handle that marks on write, and logs of structural events and
//! removals.
//!
//! The world owns a *change tick* that advances once per observer run (each iteration
//! of a [`QueryState`](crate::QueryState) with a change filter). A tracked column
//! stores, per row, the tick at which the value was added and last changed; beside the
//! rows, a summary lists the rows written recently, one segment per tick, and keeps a
//! tree of per-block maxima (64 rows per leaf, 16 entries per parent, …) for what the
//! list no longer holds. An observer that runs often reads the list: finding `K`
//! changed rows costs about `K`; one that lags walks the tree, about `K · log₁₆ N`; a
//! frame with no changes costs one comparison per matched table.
//!
//! Tracking is opt-in per component type ([`World::track`](crate::World::track), or a
//! query that asks with [`Changed`](crate::Changed), [`Added`](crate::Added) or
//! [`Dirty`](crate::Dirty)); untracked columns carry no tick memory and `&mut T` access
//! to them writes straight through.

mod change_list;
pub(crate) mod log;
mod mut_ref;
mod removals;
mod summary;
mod tick;
mod tree;

#[doc(hidden)]
pub use change_list::ListCursor;
pub(crate) use log::EventLog;
pub use mut_ref::Mut;
pub(crate) use mut_ref::TickSlot;
pub use removals::{Removals, RemovedReader};
pub use summary::Summary;
pub(crate) use summary::stamp_rows;
pub use tick::Tick;
pub(crate) use tick::{CHECK_TICK_THRESHOLD, Remap, RunTicks};
pub(crate) use tree::LEAF;

use crate::entity::Entity;
use crate::storage::ArchetypeId;

/// A structural change of one entity, for [`Dirty`](crate::Dirty) observers: it left
/// `from` (`None` when spawned) for `to` (`None` when despawned), or it gained or lost
/// the sparse component `sparse` (then `from` and `to` are `None`: its row stayed put).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    pub(crate) entity: Entity,
    pub(crate) from: Option<ArchetypeId>,
    pub(crate) to: Option<ArchetypeId>,
    pub(crate) sparse: Option<crate::component::ComponentId>,
}

impl Move {
    /// A move between tables (or into or out of the world).
    #[inline]
    pub(crate) fn between(entity: Entity, from: Option<ArchetypeId>, to: Option<ArchetypeId>) -> Move {
        Move { entity, from, to, sparse: None }
    }

    /// `entity` gained or lost the sparse component `component`.
    #[inline]
    pub(crate) fn sparse(entity: Entity, component: crate::component::ComponentId) -> Move {
        Move { entity, from: None, to: None, sparse: Some(component) }
    }
}
