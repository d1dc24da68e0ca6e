//! Change tracking: ticks, per-row change ticks with a summary that finds the changed
//! rows, the [`Mut`] handle that marks on write, and logs of structural events and
//! removals.
//!
//! The world owns a *change tick* that advances once per reader run (each iteration
//! of a [`QueryState`](crate::query::QueryState) with a change filter or a
//! [`Ref`](crate::query::Ref) fetch). A tracked column
//! stores, per row, the tick at which the value was added and last changed; beside the
//! rows, a summary lists the rows written recently, one segment per tick, and keeps a
//! tree of per-block maxima (64 rows per leaf, 16 entries per parent, …) for what the
//! list no longer holds. A reader that runs often reads the list: finding `K`
//! changed rows costs about `K`; one that lags walks the tree, about `K · log₁₆ N`; a
//! frame with no changes costs one comparison per matched table.
//!
//! Tracking is opt-in per component type ([`World::track`](crate::World::track), or a
//! query that asks with [`Changed`](crate::query::Changed),
//! [`Added`](crate::query::Added), [`Dirty`](crate::query::Dirty) or
//! [`Ref`](crate::query::Ref)); untracked columns carry no tick memory and `&mut T`
//! access to them writes straight through.

mod change_list;
pub(crate) mod history;
pub(crate) mod log;
mod moves;
mod mut_ref;
mod removals;
mod run_ticks;
mod summary;
mod tick;
mod tree;

#[doc(hidden)]
pub use change_list::ListCursor;
pub(crate) use log::ChangeLog;
pub(crate) use moves::Move;
pub use mut_ref::Mut;
pub(crate) use mut_ref::TickSlot;
pub use removals::{Removals, RemovedReader};
pub(crate) use run_ticks::{RunTicks, WorldPtr};
pub use summary::Summary;
pub(crate) use summary::stamp_rows;
pub use tick::Tick;
pub(crate) use tick::{CHECK_TICK_THRESHOLD, Remap};
pub(crate) use tree::LEAF;
