//! The floor under the core: small helpers that know nothing of entities or worlds
//! (a hasher for ids, memory hints, tuple macros, short type names).

pub(crate) mod hash;
pub(crate) mod hint;
pub(crate) mod tuples;
pub(crate) mod type_name;
