//! Queries: typed views over every entity whose components match.
//!
//! A [`QueryState`] resolves its component types once, caches the archetypes that
//! match, and on each use checks only the archetypes created since (new tables are
//! appended, so this is a range check). Iteration walks each matched table's columns
//! row by row; filters that depend only on the table cost nothing per row.
//!
//! Aliasing is refused when a query is built:
//!
//! ```should_panic
//! # use ripple::World;
//! let mut world = World::new();
//! let _ = world.query::<(&mut u32, &u32)>(); // panics: `u32` mutably and immutably
//! ```
//!
//! and a mutable query needs the world mutably, so items cannot outlive a structural
//! change:
//!
//! ```compile_fail
//! # use ripple::World;
//! let mut world = World::new();
//! let e = world.spawn((1u32,));
//! let mut query = world.query::<&mut u32>();
//! let first = query.iter_mut(&mut world).next().unwrap();
//! world.despawn(e).unwrap(); // error: `world` is still borrowed by `first`
//! *first += 1;
//! ```

mod access;
mod change_filter;
mod change_source;
mod entity_fetch;
mod entity_list;
mod fetch;
mod filter;
mod gather;
mod get_many;
mod iter;
mod mut_fetch;
mod option_fetch;
mod parallel;
mod parallel_run;
mod ref_fetch;
mod run_end;
mod run_plan;
mod serial;
mod sparse_fetch;
mod sparse_run;
mod stamper;
mod state;

pub(crate) use access::QueryAccess;
pub use change_filter::{Added, Changed, Dirty};
pub(crate) use change_source::{ChangeSource, Changes};
pub use entity_fetch::{EntityComponentsMut, EntityMutExcept, EntityRefExcept};
pub use fetch::{QueryData, ReadOnlyQueryData};
pub use filter::{ArchetypeFilter, Or, QueryFilter, With, Without};
pub(crate) use gather::Gathered;
pub use iter::QueryIter;
pub use ref_fetch::Ref;
pub(crate) use state::QueryMemory;
pub use state::QueryState;
