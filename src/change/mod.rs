//! Change tracking: ticks, per-row change marks with hierarchical summaries, the
//! [`Mut`] handle that marks on write, and logs of structural events and removals.
//!
//! The world owns a *change tick* that advances once per observer run (each iteration
//! of a [`QueryState`](crate::QueryState)). A tracked column stores, per row, the tick
//! at which the value was added and last changed; above the rows sits a tree of
//! per-block maxima (16 rows per block, 16 blocks per parent, …). An observer that
//! last ran at tick `L` descends only into blocks whose maximum is newer than `L`, so
//! finding `K` changed rows among `N` costs about `K · log₁₆ N` block visits, and a
//! frame with no changes costs one comparison per matched table.
//!
//! Tracking is opt-in per component type ([`World::track`](crate::World::track), or a
//! query that asks with [`Changed`](crate::Changed), [`Added`](crate::Added) or
//! [`Dirty`](crate::Dirty)); untracked columns carry no tick memory and `&mut T` access
//! to them writes straight through.

mod leaf_log;
pub(crate) mod log;
mod mut_ref;
mod removals;
mod summary;
mod tick;

pub(crate) use log::EventLog;
pub use mut_ref::Mut;
pub(crate) use mut_ref::TickSlot;
pub use removals::RemovedReader;
pub(crate) use summary::LEAF;
pub use summary::Summary;
pub use tick::Tick;
pub(crate) use tick::{CHECK_TICK_THRESHOLD, Remap, RunTicks};

use crate::entity::Entity;
use crate::storage::ArchetypeId;

/// A structural change of one entity, for [`Dirty`](crate::Dirty) observers: it left
/// `from` (`None` when spawned) for `to` (`None` when despawned).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    pub(crate) entity: Entity,
    pub(crate) from: Option<ArchetypeId>,
    pub(crate) to: Option<ArchetypeId>,
}
