//! Component hooks: callbacks per component type, run on the thread making a
//! structural change, the moment a type is added to, written to, or about to leave an
//! entity. They read the world and queue commands; the commands run once the
//! structural change that triggered them is complete, so hooks are never re-entrant.
//! (A hook whose commands trigger it again — an `on_insert` that inserts its own type —
//! loops until it stops queueing, or for at most [`MAX_HOOK_ROUNDS`] rounds; it never
//! recurses.)

mod context;
mod flags;
mod run;

pub use context::HookContext;
pub(crate) use context::{Hook, HookTable};
pub(crate) use flags::{ComponentHookFlags, HookFlags, HookKind};
pub use run::MAX_HOOK_ROUNDS;
pub(crate) use run::RemovedIds;
