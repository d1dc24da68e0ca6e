//! Archetype storage: one table per exact set of component types.
//!
//! Tables are created lazily the first time a set is seen and never freed: they are
//! pools whose column capacity survives churn, so steady spawning and despawning
//! allocates nothing. Transitions between tables (`+bundle → table`,
//! `-bundle → table`) are cached so that a repeated insert or remove is one hash
//! lookup.

mod archetype;
mod archetypes;
mod blob_column;
mod column;
mod column_ticks;
mod ids;
mod sparse_set;
mod transitions;

pub use archetype::Archetype;
pub(crate) use archetypes::Archetypes;
pub use blob_column::BlobColumn;
pub(crate) use blob_column::BlobShape;
pub use column::{Column, TypedColumn};
pub(crate) use column::{downcast, downcast_mut, downcast_mut_unchecked, downcast_unchecked};
pub(crate) use column_ticks::TickPtrs;
pub use ids::ArchetypeId;
pub(crate) use ids::Row;
pub(crate) use sparse_set::{SparseSet, SparseSets, TypedSet};
pub(crate) use transitions::{Registries, RemoveEdge, Transitions};
